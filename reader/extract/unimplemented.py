"""The error each backend raises for a primitive its table lacks ("Unimplemented primitive in
Pallas TPU lowering for tc: erf_inv"), its wording read from the pinned lowering module."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from reader.extract.ruletable import BACKENDS

MARKER = "Unimplemented primitive"
"""How each backend's message begins (jax's wording since the backends were written)."""
END = ". Please file"
"""Where the part that names the primitive ends: what follows is the same for every primitive."""


class MessagePart(NamedTuple):
    """A piece of a message: literal text (`text`) or an expression formatted into it (`expr`,
    its source: `eqn.primitive.name`)."""

    kind: str
    text: str


@dataclass(frozen=True)
class Message:
    """One backend's message as written: literal text and the expressions formatted into it."""

    backend: str
    parts: tuple[MessagePart, ...]
    path: str
    line: int

    def format(self, key: str, primitive: str) -> str:
        """The message for `primitive` in the table `key`, as jax words it (`Enum.__str__` as the
        pinned enums define it: CoreType's value, the semantics' `Class.Member`)."""
        out = []
        for kind, text in self.parts:
            if kind == "text":
                out.append(text)
            else:
                out.append(_value(text, key, primitive))
        return "".join(out).split(END)[0].rstrip(".")


def _value(expr: str, key: str, primitive: str) -> str:
    last = expr.rsplit(".", 1)[-1]
    if expr.endswith("primitive.name"):
        return primitive
    if last == "kernel_type":
        return key.lower()  # CoreType.TC's value is "tc", and its __str__ gives the value
    lowering, _, semantics = key.partition("/")
    if last == "lowering_semantics":
        return f"LoweringSemantics.{lowering}"
    if last == "primitive_semantics":
        return f"PrimitiveSemantics.{semantics}"
    return "{" + expr + "}"


def messages(paths: dict[str, str], read: Callable[[str], str]) -> dict[str, Message]:
    """Each backend's message, by backend name, from its lowering module (`paths`: module ->
    path; `read`: module -> text); a backend whose module holds none is left out."""
    out = {}
    for backend in BACKENDS:
        path = paths.get(backend.module)
        if path is None:
            continue
        found = _find(ast.parse(read(backend.module)), backend.name, path)
        if found is not None:
            out[backend.name] = found
    return out


def _find(tree: ast.Module, backend: str, path: str) -> Message | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and _starts(node):
            parts = tuple(MessagePart("text", str(v.value)) if isinstance(v, ast.Constant)
                          else MessagePart("expr", ast.unparse(v.value)) for v in node.values
                          if isinstance(v, (ast.Constant, ast.FormattedValue)))
            return Message(backend, parts, path, node.lineno)
    return None


def _starts(node: ast.JoinedStr) -> bool:
    first = node.values[0] if node.values else None
    return isinstance(first, ast.Constant) and str(first.value).startswith(MARKER)
