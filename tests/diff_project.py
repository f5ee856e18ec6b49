"""A synthetic upstream with two commits and a project pinned to the first, for the pin/diff tests.

Between v0 and v1 of the upstream: `moved_fn` moves down unchanged, `kernel`'s body changes,
`helper` gains a parameter, `deleted_fn` is deleted, a twin of `moved_fn` makes a quote ambiguous, the Triton rule table gains `get_p` and
loses `swap_p`, and `core.py` grows (so its line-count fact changes).
"""

from __future__ import annotations

from pathlib import Path

from reader.cli import main
from tests.conftest import Upstream, git, make_upstream, write_project

PRIMITIVES_V0 = """\
from jax._src import core as jax_core

load_p = jax_core.Primitive("load")
swap_p = jax_core.Primitive("swap")
"""

PRIMITIVES_V1 = PRIMITIVES_V0 + 'get_p = jax_core.Primitive("get")\n'

LOWERING = """\
from jax._src.pallas import primitives

triton_lowering_rules = {{}}


def register_lowering(primitive):
    def wrapper(fn):
        triton_lowering_rules[primitive] = fn
        return fn
    return wrapper


@register_lowering(primitives.load_p)
def _load_rule(ctx, x):
    return x


@register_lowering(primitives.{second}_p)
def _{second}_rule(ctx, x):
    return x
"""

CORE_V0 = '''\
"""Core."""


def helper(x):
    return x + 1


def kernel(a, b):
    total = a + b
    return total


def moved_fn(x):
    y = x * 2
    return y


def deleted_fn():
    return None
'''

CORE_V1 = '''\
"""Core."""

NEW_CONSTANT = 3


def inserted(x):
    return x


def helper(x, y=0):
    return x + 1


def kernel(a, b):
    total = a * b
    return total


def moved_fn(x):
    y = x * 2
    return y


def twin(x):
    y = x * 2
    return y
'''

UTILS = '''\
"""Untouched between the versions."""


def stable(x):
    return x
'''

ANNOTATION = """\
title: Demo
slug: demo
phase: 1
kind: article
order: 1
summary: Cites {{fact:lines.jax._src.pallas.core}} lines.
reads:
  - path: jax/_src/pallas/core.py
  - path: jax/_src/pallas/utils.py
notes:
  # a comment that --apply must keep
  - id: note-moved
    symbol: moved_fn
    body: Moves down unchanged.
  - id: note-changed
    symbol: kernel
    lines: [2, 2]
    body: The sum.
  - id: note-orphaned
    symbol: deleted_fn
    body: Gone in v1.
  - id: note-quote
    symbol: helper
    quote: "return x + 1"
    body: Its signature changes, not this line.
  - id: note-ambiguous
    quote: "y = x * 2"
    body: Unique in v0; v1 adds a twin.
  - id: note-unchanged
    path: jax/_src/pallas/utils.py
    symbol: stable
    body: Same file, same blob.
"""


def tree(version: int) -> dict[str, str]:
    return {
        "jax/_src/pallas/__init__.py": "",
        "jax/_src/pallas/primitives.py": PRIMITIVES_V1 if version else PRIMITIVES_V0,
        "jax/_src/pallas/triton/__init__.py": "",
        "jax/_src/pallas/triton/lowering.py": LOWERING.format(second="get" if version else "swap"),
        "jax/_src/pallas/core.py": CORE_V1 if version else CORE_V0,
        "jax/_src/pallas/utils.py": UTILS,
    }


def make_demo(tmp: Path, monkeypatch, extra: tuple[dict[str, str], dict[str, str]] = ({}, {}),
              ) -> tuple[Upstream, Path]:
    """The upstream (tags v0, v1; `extra` files added to each) and a git project pinned to v0 with
    its notes accepted there.

    The pin's repo is unreachable on purpose; `READER_MIRROR_JAX` points at the upstream."""
    upstream = make_upstream(tmp / "upstream", [{**tree(0), **extra[0]}, {**tree(1), **extra[1]}])
    monkeypatch.setenv("READER_MIRROR_JAX", upstream.url)
    root = write_project(tmp / "project", "jax", "https://example.invalid/jax", upstream.commits[0],
                         {**tree(0), **extra[0]}, paths=("jax/_src/pallas",))
    text = (root / "pins.toml").read_text()
    (root / "pins.toml").write_text("# The demo's pins: keep this comment.\n" +
                                    text.replace("paths =", 'tag = "v0"\npaths ='))
    (root / "annotations").mkdir()
    (root / "annotations" / "demo.yaml").write_text(ANNOTATION)
    assert main(["-C", str(root), "accept", "--all"]) == 0
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.invalid")
    git(root, "config", "user.name", "t")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "pinned at v0")
    return upstream, root
