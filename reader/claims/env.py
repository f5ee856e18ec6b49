"""The Python environment claims run in: the running interpreter when it has the pinned releases
installed, else a virtual environment made under the cache (`envs/`) with pip. The child processes
(a venv's versions asked, the venv made, the claims' batches) are the command's `Pythons`
(`reader.children.Children`), handed in: nothing here starts a process."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Protocol

from reader.cache import Cache
from reader.errors import InputError, Location
from reader.pins import Pin
from reader.progress import say

CHILD = Path(__file__).with_name("child.py")
COMPANIONS = {"jax": ("jaxlib",)}
"""Distributions installed with a pinned release whose version a claim's outcome depends on."""


class Finished(NamedTuple):
    """A child process run to its end: its exit status and what it printed."""

    code: int
    out: str
    err: str

    def tail(self, lines: int = 3) -> str:
        """The last `lines` lines it printed (stderr, else stdout), joined."""
        return " ".join((self.err or self.out).strip().splitlines()[-lines:])


class Stream(Protocol):
    """A child fed its input, read a line at a time (`reader.children.Stream`)."""

    def line(self, deadline: float) -> bytes | None:
        """Its next line (b"" at its end), or None when `deadline` (`time.monotonic`) passes first."""
        ...

    def code(self) -> int | None:
        """Its exit status, None while it runs."""
        ...

    def tail(self) -> str:
        """What it wrote to stderr."""
        ...

    def close(self) -> None:
        """Kill it (if it still runs) and remove what it was given."""
        ...


class Pythons(Protocol):
    """The child processes claims need, started by the command (`reader.children.Children`)."""

    def run(self, argv: Sequence[str]) -> Finished:
        """`argv` run to its end."""
        ...

    def install(self, folder: Path, reqs: Sequence[str]) -> Finished:
        """A venv at `folder` with `reqs` installed by pip: pip's run (venv's when that failed)."""
        ...

    def stream(self, argv: Sequence[str], payload: bytes, env: Mapping[str, str]) -> Stream:
        """`argv` started in a folder of its own, `payload` on its stdin, `env` on top of this
        process's environment."""
        ...


class Installed(NamedTuple):
    """A distribution and the version of it installed."""

    distribution: str
    version: str


@dataclass(frozen=True)
class Env:
    """A Python that has the pinned releases, and what is installed there."""

    python: str
    versions: tuple[Installed, ...]
    """The pinned releases and their companions, and `python`."""
    label: str
    """`jax 0.12.0.1 / tokamax 0.0.17`: the releases, as pages and findings name them."""

    def fingerprint(self) -> str:
        return json.dumps(self.versions)


def releases(pins: Mapping[str, Pin]) -> tuple[str, ...]:
    """The pip requirements (`jax==0.12.0.1`) of the pins that name a release, in pin order."""
    return tuple(p.release for p in pins.values() if p.release)


def label(pins: Mapping[str, Pin]) -> str:
    """`jax 0.12.0.1 / tokamax 0.0.17` from the pins' releases."""
    return _label(releases(pins))


def _label(reqs: tuple[str, ...]) -> str:
    return " / ".join(r.replace("==", " ") for r in reqs) or "the pins (no release named)"


def _wanted(reqs: tuple[str, ...]) -> dict[str, str]:
    return dict(r.split("==", 1) for r in reqs if "==" in r)


def _names(reqs: tuple[str, ...]) -> list[str]:
    names = list(_wanted(reqs))
    return names + [c for n in names for c in COMPANIONS.get(n, ())]


def _here(names: list[str]) -> dict[str, str]:
    # imported here: 25-60 ms, which a build that checks no claim never needs
    from importlib import metadata

    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = ""
    return out


def _there(python: str, names: list[str], pythons: Pythons) -> dict[str, str]:
    done = pythons.run([python, "-I", str(CHILD), "--versions", *names])
    if done.code:
        folder = Path(python).parents[1]
        raise InputError(f"the environment {folder} cannot say what it has installed: {done.tail()}",
                         Location("pins.toml"), f"remove {folder} and run again")
    return json.loads(done.out)


def _env(python: str, found: dict[str, str], reqs: tuple[str, ...], py: str) -> Env:
    versions = (*(Installed(*v) for v in sorted(found.items())), Installed("python", py))
    return Env(python, versions, _label(reqs))


def environment(pins: Mapping[str, Pin], cache: Cache, pythons: Pythons) -> Env:
    """An environment with every pin's release installed: this interpreter when it has them,
    else a venv under the cache, made once by `pythons` (pip honours its own settings:
    `PIP_INDEX_URL`, `PIP_FIND_LINKS`, `PIP_NO_INDEX`)."""
    found = installed(pins, cache, pythons)
    if found is not None:
        return found
    reqs = releases(pins)
    folder = _folder(reqs, cache)
    with cache.locked(f"env-{folder.name}"):
        if not (folder / ".complete").is_file():
            say(f"making a Python environment with {', '.join(reqs)} ({folder})")
            _make(folder, reqs, pythons)
    return _checked(folder, reqs, pythons)


def installed(pins: Mapping[str, Pin], cache: Cache, pythons: Pythons) -> Env | None:
    """The environment `environment` gives when it is there already (None when a venv would have
    to be made): what the outcomes kept in the cache are keyed by."""
    reqs = releases(pins)
    here = _here(_names(reqs))
    if all(here[n] == v for n, v in _wanted(reqs).items()):
        return _env(sys.executable, here, reqs, _py())
    folder = _folder(reqs, cache)
    return _checked(folder, reqs, pythons) if (folder / ".complete").is_file() else None


def _py() -> str:
    return ".".join(map(str, sys.version_info[:3]))


def _folder(reqs: tuple[str, ...], cache: Cache) -> Path:
    key = hashlib.sha1(json.dumps([reqs, _py(), sys.platform]).encode()).hexdigest()[:16]
    return cache.root / "envs" / key


def _checked(folder: Path, reqs: tuple[str, ...], pythons: Pythons) -> Env:
    """The venv at `folder`, which must have `reqs` installed."""
    names = _names(reqs)
    python = folder / "bin" / "python"
    found = _there(str(python), names, pythons)
    wrong = {n: found.get(n, "") for n, v in _wanted(reqs).items() if found.get(n) != v}
    if wrong:
        raise InputError(f"the environment {folder} has {wrong} installed, not {', '.join(reqs)}",
                         Location("pins.toml"), f"remove {folder} and run again")
    return _env(str(python), found, reqs, _py())


def _make(folder: Path, reqs: tuple[str, ...], pythons: Pythons) -> None:
    """A venv at `folder` with `reqs` installed (`pythons.install`), moved into place whole."""
    temp = folder.with_name(f"{folder.name}.tmp-{os.getpid()}")
    shutil.rmtree(temp, ignore_errors=True)
    try:
        done = pythons.install(temp, reqs)
        if done.code:
            raise InputError(f"pip cannot install {', '.join(reqs)}: {done.tail()}",
                             Location("pins.toml"), "check the pins' `release` and the package "
                             "index (PIP_INDEX_URL)")
        (temp / ".complete").write_text(json.dumps(reqs))
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(temp, folder)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
