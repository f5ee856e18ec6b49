"""The jinja2 environment of the site's templates (`reader/templates/*.j2`): autoescape, strict."""

from __future__ import annotations

import json
from functools import lru_cache

import jinja2
from markupsafe import Markup


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
