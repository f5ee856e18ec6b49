"""The jinja2 environment of the site's templates (`reader/templates/*.j2`): autoescape, strict;
their compiled code kept in reader's cache (`keep_compiled`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

import jinja2
from markupsafe import Markup

from reader.cache import Cache
from reader.errors import BuildError, Location
from reader.providers import Provider, keep, kept, pickled


def _yaml_string(value: str) -> Markup:
    """A front matter value: a JSON string is a valid YAML double-quoted scalar."""
    return Markup(json.dumps(str(value), ensure_ascii=True))


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("reader", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["yaml_string"] = _yaml_string
    return env


def render(name: str, **context: object) -> str:
    return environment().get_template(name).render(**context)


@dataclass(frozen=True)
class Compiled:
    """What a template's compiled code reads: jinja's key (the template's name), its source's
    checksum and jinja's version."""

    name: str
    checksum: str
    jinja: str = jinja2.__version__


def _compile(inputs: Compiled) -> bytes:
    raise BuildError(f"template {inputs.name!r} is compiled by jinja, which keeps it (`_Compiled`)",
                     Location(__file__), "read it with `kept`")


TEMPLATES: Provider[Compiled, bytes] = Provider("template-code", Compiled, _compile, pickled(bytes))
"""A template's compiled code, as jinja's bytecode cache dumps it."""


class _Compiled(jinja2.BytecodeCache):
    """Compiled templates in reader's cache, by jinja's key (the template's name); jinja checks the
    source's checksum and its own version before it uses one (`jinja2.bccache.Bucket`)."""

    def __init__(self, cache: Cache):
        self.cache = cache

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = kept(TEMPLATES, Compiled(bucket.key, bucket.checksum), self.cache)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        keep(TEMPLATES, Compiled(bucket.key, bucket.checksum), bucket.bytecode_to_string(), self.cache)


def compiled_in(cache: Cache) -> jinja2.BytecodeCache:
    """A jinja environment's bytecode cache kept in `cache` (`TEMPLATES`): the theme's too."""
    return _Compiled(cache)


def keep_compiled(cache: Cache | None) -> None:
    """Read the templates' compiled code from `cache` and keep there what is compiled now (each
    build's process compiled every template it rendered: ~0.07 s of a note's edit, 9 templates)."""
    environment().bytecode_cache = _Compiled(cache) if cache is not None else None
