"""Every result the cache derives, as a provider with declared inputs (LibCST's metadata
providers, made the project's one mechanism): a provider names its cache kind, the frozen
dataclass of what it reads (files and blobs by their sha, versions, settings, the world key), its
producer, the form it is kept in and the providers it reads. A result's key is `key(provider,
inputs)`, a function of those inputs alone, and `reader.cache`'s derived store is read and written
through this module only (tests/test_providers.py holds both). A producer is a module-level
function of its inputs (no closure: it cannot read what it does not declare) that reads another
provider only when it declares it (`needs`; two that need each other are refused); under
`strict()` (the tests) a read of a provider not declared is refused, and the producer is handed a
view of its inputs that raises on reading anything but a declared field."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, is_dataclass
from functools import partial
from typing import Any, Protocol, cast

from reader.cache import Cache, json_data
from reader.errors import BuildError, Location

HOW = {"how": True}
"""A field's metadata for an input that changes how a result is computed, never what it is (the
worker processes, an index built beside): left out of the key."""


def how(default: Any = None) -> Any:
    """A dataclass field for an input that is not part of the key (`HOW`)."""
    return field(default=default, metadata=HOW, compare=False, repr=False)


class Keyed(Protocol):
    """An input known by a key of its own (a corpus: its pinned blobs; a text: its blob's sha)."""

    def input_key(self) -> str: ...


@dataclass(frozen=True)
class Blob:
    """A text (or bytes) known by a digest of it (a git blob's sha, a sha1): keyed by the digest,
    read only when the producer asks."""

    sha: str
    read: Callable[[], Any] = field(compare=False, repr=False)

    def input_key(self) -> str:
        return self.sha

    @property
    def text(self) -> str:
        return self.read()


@dataclass(frozen=True)
class Form[T]:
    """How a result is kept: as JSON (`dump`; `load` returns None for data not of the form) or
    pickled (`dump` None; `load` checks the object read back); `frozen`: read back through the
    process's memory while its file is unchanged (`Cache.get_frozen`)."""

    load: Callable[[Any], T | None]
    dump: Callable[[T], Any] | None = None
    frozen: bool = False


def pickled[T](type_: type[T], frozen: bool = False) -> Form[T]:
    """A result pickled, read back when it is a `type_`."""
    def loaded(found: Any) -> T | None:
        return found if isinstance(found, type_) else None
    return Form(loaded, None, frozen)


def as_json[T](type_: type, dump: Callable[[T], Any] | None = None,
               load: Callable[[Any], T] | None = None, frozen: bool = False) -> Form[T]:
    """A result kept as JSON: `dump` makes the data (default: the result is data), `load` the
    result from data that is a `type_` (default: the data itself); `frozen`: the loaded result
    held in the process's memory while its file is unchanged (it must never be changed)."""
    def loaded(data: Any) -> T | None:
        if not isinstance(data, type_):
            return None
        return load(data) if load is not None else cast(T, data)
    return Form(loaded, dump or (lambda value: value), frozen)


PROVIDERS: dict[str, Provider[Any, Any]] = {}
"""Every provider declared, by its kind (a kind is one provider's alone)."""


@dataclass(frozen=True, eq=False)
class Provider[I, T]:
    """One kind of derived result: its cache kind, its inputs' dataclass, its producer, its form,
    the providers its producer reads, and `lasting`: kept across reader's code versions (JSON
    under `derived/kept/`), for a result whose inputs name everything it depends on, the code
    that makes it included (a claim's run, a release's file list)."""

    kind: str
    inputs: type[I]
    produce: Callable[[I], T]
    form: Form[T]
    needs: tuple[Provider[Any, Any], ...] = ()
    lasting: bool = False

    def __post_init__(self) -> None:
        where = Location(self.produce.__code__.co_filename)
        if not (is_dataclass(self.inputs) and self.inputs.__dataclass_params__.frozen):  # type: ignore[attr-defined]
            raise BuildError(f"provider {self.kind!r}: its inputs must be a frozen dataclass", where,
                             "declare what it reads as the fields of one")
        if getattr(self.produce, "__closure__", None):
            raise BuildError(f"provider {self.kind!r}: its producer reads variables it does not declare "
                             f"({', '.join(self.produce.__code__.co_freevars)})", where,
                             "make it a module-level function of its inputs alone")
        if self.lasting and self.form.dump is None:
            raise BuildError(f"provider {self.kind!r} lasts across code versions: it is kept as JSON", where,
                             "give it an `as_json` form")
        if self.kind in PROVIDERS:
            raise BuildError(f"two providers of kind {self.kind!r}", where, "give each kind one provider")
        PROVIDERS[self.kind] = self


def _token(value: Any) -> str:
    """One input's part of a key: a keyed input's own key, a set's sorted members, else its repr
    (a frozen dataclass's, a string's, a tuple's: data whose repr is its value)."""
    if isinstance(value, str):
        return value
    own = getattr(type(value), "input_key", None)  # `Keyed` (an isinstance of a protocol is slow)
    if own is not None:
        return own(value)
    if isinstance(value, bytes):
        return hashlib.sha1(value).hexdigest()
    if isinstance(value, (frozenset, set)):
        return repr(sorted(map(_token, value)))
    if isinstance(value, (tuple, list)) and any(hasattr(type(v), "input_key") for v in value):
        return repr([_token(v) for v in value])
    token = repr(value)
    if " object at 0x" in token:  # an address: a key no other process computes
        raise BuildError(f"an input is known by its address: {token[:200]}", Location(__file__),
                         "give its class an `input_key`, or declare the data it is read for")
    return token


_DECLARED: dict[type, tuple[str, ...]] = {}
"""An inputs dataclass's fields in the key (those not marked `HOW`)."""


def _keyed_fields(inputs: Any) -> tuple[str, ...]:
    names = _DECLARED.get(type(inputs))
    if names is None:
        names = _DECLARED[type(inputs)] = tuple(f.name for f in fields(inputs) if not f.metadata.get("how"))
    return names


def key(provider: Provider[Any, Any], inputs: Any) -> str:
    """The one key of `provider`'s result over `inputs`: its kind and every declared field's
    token (those marked `HOW` left out)."""
    memo = getattr(inputs, "__dict__", None)  # a key computed once per inputs (a page's: its repr)
    found = memo.get("_provider_key") if memo is not None else None
    if found is not None and found[0] == provider.kind:
        return found[1]
    if type(inputs) is not provider.inputs:
        raise BuildError(f"provider {provider.kind!r} is given {type(inputs).__name__}, not its "
                         f"{provider.inputs.__name__}", Location(__file__), "pass its declared inputs")
    h = hashlib.sha1(provider.kind.encode())
    for name in _keyed_fields(inputs):
        h.update(f"\0{name}\0".encode())
        h.update(_token(getattr(inputs, name)).encode())  # a page's inputs: ~100 KB, not copied again
    found = h.hexdigest()
    if memo is not None:
        memo["_provider_key"] = (provider.kind, found)
    return found


def _declared(provider: Provider[Any, Any]) -> None:
    """Under `strict()` (the tests), refuse a read of `provider` by a running producer that does
    not declare it."""
    if not _STRICT[-1]:
        return
    reader = _RUNNING.stack[-1][0] if _RUNNING.stack else None
    if reader is not None and provider is not reader and provider not in reader.needs:
        raise BuildError(f"provider {reader.kind!r} reads {provider.kind!r}, which it does not declare",
                         Location(reader.produce.__code__.co_filename), "add it to the provider's needs")


def kept[T](provider: Provider[Any, T], inputs: Any, cache: Cache | None) -> T | None:
    """The result the cache keeps for `inputs`, or None."""
    _declared(provider)
    if cache is None:
        return None
    k, form = key(provider, inputs), provider.form
    if form.frozen and form.dump is not None:  # the loaded value is what the memory holds
        return cache.get_frozen(provider.kind, k, partial(_loaded_json, form), provider.lasting)
    if form.dump is None:
        found = cache.get_frozen(provider.kind, k) if form.frozen else cache.get_object(provider.kind, k)
    else:
        found = (cache.get_kept_json if provider.lasting else cache.get_json)(provider.kind, k)
    return None if found is None else form.load(found)


def _loaded_json[T](form: Form[T], data: bytes | None) -> T | None:
    found = json_data(data)
    return None if found is None else form.load(found)


def is_kept(provider: Provider[Any, Any], inputs: Any, cache: Cache) -> bool:
    """Whether the cache holds a result for `inputs` (not read: a build's plan of what to compute)."""
    _declared(provider)
    return (cache.has_kept if provider.lasting else cache.has)(provider.kind, key(provider, inputs))


def keep[T](provider: Provider[Any, T], inputs: Any, value: T, cache: Cache | None) -> None:
    """Keep `value` as `provider`'s result for `inputs` (one its producer made, in a batch)."""
    _declared(provider)
    if cache is None:
        return
    k, form = key(provider, inputs), provider.form
    if form.dump is None:
        cache.put_object(provider.kind, k, value)
    else:
        (cache.put_kept_json if provider.lasting else cache.put_json)(provider.kind, k, form.dump(value))


class _Running(threading.local):
    """The providers whose producers run now in this thread, outermost first, with the cache each
    keeps its result in (where the providers it needs are kept)."""

    def __init__(self) -> None:
        self.stack: list[tuple[Provider[Any, Any], Cache | None]] = []


_RUNNING = _Running()
_STRICT: list[bool] = [False]


@contextmanager
def strict() -> Iterator[None]:
    """Producers run in the block are handed a view of their inputs that raises on reading
    anything not declared, and may read only the providers they declare (the tests run so)."""
    _STRICT.append(True)
    try:
        yield
    finally:
        _STRICT.pop()


class Declared:
    """A producer's inputs as it sees them under `strict()`: the declared fields, nothing else."""

    def __init__(self, provider: Provider[Any, Any], inputs: Any):
        self._provider, self._inputs = provider, inputs
        self._names = {f.name for f in fields(inputs)}

    def __getattr__(self, name: str) -> Any:
        if name not in self._names:
            raise BuildError(f"provider {self._provider.kind!r} reads {name!r}, which its inputs do not declare",
                             Location(self._provider.produce.__code__.co_filename),
                             f"add {name!r} to {self._provider.inputs.__name__}")
        return getattr(self._inputs, name)


def renew[T](provider: Provider[Any, T], inputs: Any, cache: Cache | None) -> T:
    """`provider`'s result produced again and kept (one kept whose sources have left the cache)."""
    _declared(provider)
    value = _produce(provider, inputs, cache)
    keep(provider, inputs, value, cache)
    return value


def _produce[T](provider: Provider[Any, T], inputs: Any, cache: Cache | None) -> T:
    key(provider, inputs)  # its inputs are its own, before any work
    _RUNNING.stack.append((provider, cache))
    try:
        return provider.produce(Declared(provider, inputs) if _STRICT[-1] else inputs)
    finally:
        _RUNNING.stack.pop()


def running_cache() -> Cache | None:
    """The cache the running producer's result is kept in (where it reads those it needs)."""
    return _RUNNING.stack[-1][1] if _RUNNING.stack else None


def provide[T](provider: Provider[Any, T], inputs: Any, cache: Cache | None) -> T:
    """`provider`'s result over `inputs`: kept, or produced and kept. A running producer reads
    only the providers it declares (`needs`), and two that need each other are refused."""
    running = [p for p, _ in _RUNNING.stack]
    if provider in running:
        cycle = " -> ".join(p.kind for p in (*running[running.index(provider):], provider))
        raise BuildError(f"providers need each other: {cycle}", Location(__file__),
                         "a provider may need only those declared before it")
    found = kept(provider, inputs, cache)
    if found is not None:
        return found
    value = _produce(provider, inputs, cache)
    keep(provider, inputs, value, cache)
    return value

