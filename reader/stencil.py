"""Theme stencils: material's layout rendered once per folder, then filled with each page's title
and content, for the pages whose layout differs in nothing else (the pinned files' pages).

Material renders its whole navigation for every page, which is most of what mkdocs spends on the
source pages. A page that is not in the nav, has no table of contents, no `<h1>` of its own and a
plain title gets the same layout as its neighbours in the same folder but for the title and the
content. So the first such page of a folder is rendered twice, for real and with two tokens in
place of its title and content; when filling the tokens in gives exactly the real output (and the
layout names nothing of the page), the result is the folder's stencil.

Every page filled in is verified, not only the first: while the stencil is made, it records what
the layout read (each variable of the context but `page`; each attribute or item of `page` the
templates reached, `page.file.src_uri`, `page.meta.hide`; each use of the title or the content
other than as text, `"<h1" in page.content`, `page.title | length`). A page is filled in only when
the layout would read the same of it; otherwise, or when the layout did something with the page
that cannot be recorded (called a method of it, iterated a list from it), the theme renders it.
A theme upgrade that makes the layout depend on something else costs speed, never a wrong page.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from jinja2 import ChoiceLoader, DictLoader, Environment, Undefined, pass_context
from jinja2.runtime import Context

TEMPLATE = "reader-stencil.html"
"""The template name a stencilled page's `meta['template']` is set to."""
THEME_TEMPLATE = "main.html"
TITLE = "ReaderStencilTitle5c1e"
CONTENT = "ReaderStencilContent5c1e"
_PLAIN_TITLE = re.compile(r"^[A-Za-z0-9_./ -]+$")

class Step(NamedTuple):
    """One step from `page`, as jinja's getattr (`attr`, a name) or getitem (`item`, a key) took it."""

    how: str
    key: Any


def eligible(page: Any, content: str) -> bool:
    """Whether `page` may share its folder's stencil: not in the nav, no toc, no own `<h1>`, a
    title that no filter of the theme changes."""
    title = page.title or ""
    return (page.parent is None and page.previous_page is None and page.next_page is None
            and not list(page.toc) and "<h1" not in content and TITLE not in content
            and CONTENT not in content and bool(_PLAIN_TITLE.match(title))
            and page.meta.get("title") == title and not page.is_homepage)


@dataclass(frozen=True)
class Read:
    """Something the layout read of the page: at `path` from `page`, `op` gave `result`."""

    path: tuple[Step, ...]
    op: str
    """`value` (data), `shape` (an object's type, truth and length), `undefined`, or the str
    method the layout applied to the title or the content (`__contains__`, `__len__`...)."""
    args: tuple[Any, ...]
    result: Any


@dataclass(frozen=True)
class Stencil:
    """A folder's layout with tokens for title and content, and what the layout read to make it."""

    text: str
    context: Mapping[str, Any]
    """The context's variables the layout read, but `page`."""
    reads: tuple[Read, ...]

    def fits(self, values: Mapping[str, Any], page: Any, env: Environment) -> bool:
        """Whether the layout would read of `page` (in context `values`) what it read to make this."""
        if any(k not in values or (values[k] is not v and values[k] != v)
               for k, v in self.context.items()):
            return False
        return all(_replay(read, page, env) for read in self.reads)


class Stencils:
    """The stencils of one build, by folder and front matter; `filled` counts the pages made
    from one, `refused` those a stencil was not verified for (the theme rendered them)."""

    def __init__(self) -> None:
        self.env: Environment | None = None
        self._by_key: dict[tuple[str, str], Stencil | None] = {}
        self.filled = 0
        self.refused = 0

    def install(self, env: Environment) -> Environment:
        """Add the stencil template (and the function it calls) to the theme's environment."""
        own = DictLoader({TEMPLATE: "{{ reader_stencil() }}"})
        env.loader = ChoiceLoader([own, env.loader] if env.loader is not None else [own])
        env.globals["reader_stencil"] = pass_context(lambda ctx: self._render(ctx))
        self.env = env
        return env

    def _render(self, ctx: Context) -> str:
        env = self.env
        assert env is not None
        page = ctx["page"]
        main = env.get_template(THEME_TEMPLATE)
        values = ctx.get_all()
        key = (posixpath.dirname(page.file.src_uri),
               repr(sorted((k, v) for k, v in page.meta.items() if k not in ("title", "template"))))
        if key in self._by_key:
            stencil = self._by_key[key]
            if stencil is not None and stencil.fits(values, page, env):
                self.filled += 1
                return fill(stencil.text, page.title, page.content)
            self.refused += stencil is not None
            return main.render(values)
        real = main.render(values)
        self._by_key[key] = _stencil_of(env, main, values, page, real)
        return real


def _stencil_of(env: Environment, main: Any, values: Mapping[str, Any], page: Any,
                real: str) -> Stencil | None:
    """`page`'s layout with tokens for its title and content, and what the layout read, or None
    when that is not exactly what `page` differs from its neighbours by."""
    meta, content = page.meta, page.content
    trace = _Trace(env, page)
    page.meta = {**meta, "title": _Token(TITLE, (Step("attr", "title"),), trace)}
    page.content = _Token(CONTENT, (Step("attr", "content"),), trace)
    try:
        with trace:
            shell = main.render(values)
    finally:
        page.meta, page.content = meta, content
    own = posixpath.basename(page.url or "")
    if trace.opaque or shell.count(CONTENT) != 1 or TITLE not in shell or (own and own in shell):
        return None
    if fill(shell, page.title, content) != real:
        return None
    context = {k: values[k] for k in trace.names if k in values and k != "page"}
    return Stencil(shell, context, tuple(trace.reads))


def fill(stencil: str, title: str, content: str) -> str:
    head, _, tail = stencil.partition(CONTENT)
    return f"{head.replace(TITLE, title)}{content}{tail.replace(TITLE, title)}"


# Recording what the layout reads ------------------------------------------------------------------

@dataclass
class _Trace:
    """While active, the environment's getattr/getitem record every read of `page` and of what
    was read from it; `opaque` is set by a use that cannot be recorded."""

    env: Environment
    page: Any
    reads: list[Read] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    """The context's variables the templates looked up."""
    opaque: bool = False
    _paths: dict[int, tuple[Step, ...]] = field(default_factory=dict)
    _alive: list[Any] = field(default_factory=list)
    _resolve: Any = None

    def __enter__(self) -> _Trace:
        env = self.env
        self._paths[id(self.page)] = ()
        self._alive.append(self.page)
        real_attr, real_item = env.getattr, env.getitem
        real_resolve = Context.resolve_or_missing
        self._resolve = real_resolve

        def resolve(ctx: Context, key: str) -> Any:
            self.names.add(key)
            return real_resolve(ctx, key)
        Context.resolve_or_missing = resolve  # type: ignore[method-assign, assignment]
        env.getattr = lambda obj, name: self._saw(obj, Step("attr", name), real_attr(obj, name))  # type: ignore[method-assign, assignment]
        env.getitem = lambda obj, key: self._saw(obj, Step("item", key), real_item(obj, key))  # type: ignore[method-assign, assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        Context.resolve_or_missing = self._resolve  # type: ignore[method-assign]
        vars(self.env).pop("getattr", None)
        vars(self.env).pop("getitem", None)

    def _saw(self, obj: Any, step: Step, value: Any) -> Any:
        base = self._paths.get(id(obj))
        if base is None or isinstance(value, _Token):  # not the page's; or a token: its uses count
            return value
        path = (*base, step)
        if isinstance(value, Undefined):
            self.reads.append(Read(path, "undefined", (), True))
        elif _is_data(value):
            self.reads.append(Read(path, "value", (), value))
        elif callable(value) or (isinstance(value, list | tuple | set) and value):
            self.opaque = True  # a method's result, or a list's items: not recorded
        else:
            self._paths[id(value)] = path
            self._alive.append(value)
            self.reads.append(Read(path, "shape", (), _shape(value)))
        return value

    def use(self, path: tuple[Step, ...], op: str, args: tuple[Any, ...], result: Any) -> None:
        if _is_data(result) and all(_is_data(a) for a in args):
            self.reads.append(Read(path, op, args, result))
        else:
            self.opaque = True


class _Token(str):
    """A stand-in for the title or the content: its uses other than as text are recorded."""

    _path: tuple[Step, ...]
    _trace: _Trace

    def __new__(cls, text: str, path: tuple[Step, ...], trace: _Trace) -> _Token:
        token = super().__new__(cls, text)
        token._path, token._trace = path, trace
        return token

    def __getattribute__(self, name: str) -> Any:
        if not name.startswith("_"):  # a str method (`upper`, `replace`): its result is untraced
            str.__getattribute__(self, "_trace").opaque = True
        return str.__getattribute__(self, name)

    __hash__ = str.__hash__

    def __bool__(self) -> bool:  # `if page.title`: its truth, not its length
        return bool(_recorded("__bool__")(self))

    def __iter__(self) -> Iterator[str]:  # its characters: not recorded
        str.__getattribute__(self, "_trace").opaque = True
        return str.__iter__(self)


def _recorded(op: str) -> Callable[..., Any]:
    def method(self: _Token, *args: Any) -> Any:
        result = _str_op(op)(self, *args)
        str.__getattribute__(self, "_trace").use(str.__getattribute__(self, "_path"), op, args, result)
        return result
    return method


_OPS = ("__contains__", "__len__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
        "__getitem__")
for _op in _OPS:
    setattr(_Token, _op, _recorded(_op))


def _str_op(op: str) -> Callable[..., Any]:
    return (lambda s: str.__len__(s) > 0) if op == "__bool__" else getattr(str, op)


def _is_data(value: Any) -> bool:
    if value is None or isinstance(value, bool | int | float | str):
        return True
    if isinstance(value, list | tuple):
        return all(_is_data(v) for v in value)
    return False


def _shape(value: Any) -> tuple[str, bool, int | None]:
    length = len(value) if hasattr(type(value), "__len__") else None
    return type(value).__qualname__, bool(value), length


def _replay(read: Read, page: Any, env: Environment) -> bool:
    """Whether `read` gives the same result on `page`."""
    obj = page
    try:
        for kind, key in read.path:
            obj = env.getattr(obj, key) if kind == "attr" else env.getitem(obj, key)
        if read.op == "undefined":
            return isinstance(obj, Undefined)
        if read.op == "value":
            return _is_data(obj) and type(obj) is type(read.result) and obj == read.result
        if read.op == "shape":
            return not isinstance(obj, Undefined) and _shape(obj) == read.result
        return isinstance(obj, str) and _str_op(read.op)(obj, *read.args) == read.result
    except Exception:  # whatever the theme's objects raise: not the same
        return False
