"""The jinja2 environment of the site's templates (`reader/templates/*.j2`): autoescape, strict;
their compiled code kept in reader's cache (`keep_compiled`)."""

from __future__ import annotations

import json
from functools import lru_cache

import jinja2
from markupsafe import Markup

from reader.cache import Cache


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


TEMPLATES_KIND = "template-code"


class _Compiled(jinja2.BytecodeCache):
    """Compiled templates in reader's cache, by jinja's key (the template's name); jinja checks the
    source's checksum and its own version before it uses one (`jinja2.bccache.Bucket`)."""

    def __init__(self, cache: Cache):
        self.cache = cache

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self.cache.get_object(TEMPLATES_KIND, bucket.key)
        if isinstance(code, bytes):
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.cache.put_object(TEMPLATES_KIND, bucket.key, bucket.bytecode_to_string())


def keep_compiled(cache: Cache | None) -> None:
    """Read the templates' compiled code from `cache` and keep there what is compiled now (each
    build's process compiled every template it rendered: ~0.07 s of a note's edit, 9 templates)."""
    environment().bytecode_cache = _Compiled(cache) if cache is not None else None
