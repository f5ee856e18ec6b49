"""Code-level differences of one pinned file: symbols added, removed, re-signed, annotated bodies changed."""

from __future__ import annotations

import ast
import difflib
import re

from reader.extract.parse import ParseError, located, parse_ast
from reader.extract.symbols import symbols_of
from reader.model import Span, Symbol
from reader.move.changes import SymbolChange

HUNK_RE = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def lines_of(text: str, span: Span) -> list[str]:
    return text.splitlines()[span.start - 1 : span.end]


def unified(old: list[str], new: list[str], old_start: int, new_start: int, label: str) -> str:
    """A unified diff of two excerpts whose hunk headers carry the excerpts' real line numbers."""
    out = []
    for line in difflib.unified_diff(old, new, f"a/{label}", f"b/{label}", lineterm="", n=2):
        m = HUNK_RE.match(line)
        if m:
            a, b = int(m[1]) + old_start - 1, int(m[3]) + new_start - 1
            line = f"@@ -{a}{m[2] or ''} +{b}{m[4] or ''} @@" + line[m.end():]
        out.append(line)
    return "\n".join(out)


def signatures_of(tree: ast.Module) -> dict[str, str]:
    """Qualname -> the canonical header of each function and class (`ast.unparse`: no comments, no
    layout), so that reformatting a signature is no change and a changed one reads on one line.
    `tree` comes from `parse_ast`: newer syntax is read by libcst and lowered to this `ast`."""
    out: dict[str, str] = {}
    _signatures(tree.body, "", out)
    return out


def _signatures(body: list[ast.stmt], prefix: str, out: dict[str, str]) -> None:
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            head = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
            ret = f" -> {ast.unparse(node.returns)}" if node.returns else ""
            out.setdefault(prefix + node.name,
                           f"{head} {node.name}{_generic(node)}({ast.unparse(node.args)}){ret}")
        elif isinstance(node, ast.ClassDef):
            bases = [ast.unparse(b) for b in node.bases]
            bases += [f"{k.arg}={ast.unparse(k.value)}" if k.arg else f"**{ast.unparse(k.value)}"
                      for k in node.keywords]
            name = f"{node.name}{_generic(node)}"
            out.setdefault(prefix + node.name, f"class {name}({', '.join(bases)})" if bases
                           else f"class {name}")
            _signatures(node.body, f"{prefix}{node.name}.", out)
        elif isinstance(node, ast.If) and not prefix:
            _signatures(node.body + node.orelse, prefix, out)
        elif isinstance(node, ast.Try) and not prefix:
            blocks = [node.body, *[h.body for h in node.handlers], node.orelse, node.finalbody]
            _signatures([s for b in blocks for s in b], prefix, out)


def _generic(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    """PEP 695 type parameters as written in a header (`[T: int, *Ts]`), or ""."""
    params = getattr(node, "type_params", [])
    return f"[{', '.join(ast.unparse(p) for p in params)}]" if params else ""


def _tree(text: str, pin: str, path: str, side: str) -> ast.Module:
    try:
        return parse_ast(text, located(pin, path))
    except ParseError as e:
        raise ParseError(f"{e.message} (on the {side} side)", e.location, e.col, e.hint) from None


def _by_name(symbols: list[Symbol]) -> dict[str, Symbol]:
    # A name defined twice (a property and its setter, an if/else definition): the first counts.
    out: dict[str, Symbol] = {}
    for s in symbols:
        out.setdefault(s.qualname, s)
    return out


def _inside(name: str, names: set[str]) -> bool:
    """Whether a class enclosing `name` is itself in `names` (its members need no own record)."""
    parts = name.split(".")
    return any(".".join(parts[:i]) in names for i in range(1, len(parts)))


def diff_symbols(pin: str, path: str, old_text: str, new_text: str,
                 annotated: frozenset[str] = frozenset()) -> list[SymbolChange]:
    """Symbols of `path` added, removed or re-signed, and body changes of the `annotated` ones.

    Members of an added or removed class are not listed on their own.
    """
    old_tree, new_tree = _tree(old_text, pin, path, "old"), _tree(new_text, pin, path, "new")
    old, new = _by_name(symbols_of(old_text, old_tree)), _by_name(symbols_of(new_text, new_tree))
    old_sig, new_sig = signatures_of(old_tree), signatures_of(new_tree)
    added, removed = set(new) - set(old), set(old) - set(new)
    out = []
    # By line, then name: an added and a removed symbol may share a line (sets have no order).
    for name in sorted(set(old) | set(new), key=lambda n: ((new[n] if n in new else old[n]).line, n)):
        a, b = old.get(name), new.get(name)
        if b is not None and a is None and not _inside(name, added):
            out.append(SymbolChange(status="added", pin=pin, path=path, qualname=name, kind=b.kind,
                                    new_line=b.line, new_signature=new_sig.get(name, "")))
        elif a is not None and b is None and not _inside(name, removed):
            out.append(SymbolChange(status="removed", pin=pin, path=path, qualname=name, kind=a.kind,
                                    old_line=a.line, old_signature=old_sig.get(name, "")))
        elif a is not None and b is not None:
            # A name that changed kind (a variable become a method) shows its kind for a header.
            sigs = (old_sig.get(name, f"({a.kind})"), new_sig.get(name, f"({b.kind})"))
            out.extend(_compare(pin, path, a, b, sigs, (old_text, new_text), name in annotated))
    return out


def _compare(pin: str, path: str, a: Symbol, b: Symbol, sigs: tuple[str, str],
             texts: tuple[str, str], annotated: bool) -> list[SymbolChange]:
    out = []
    if sigs[0] != sigs[1]:
        out.append(SymbolChange(status="signature", pin=pin, path=path, qualname=a.qualname,
                                kind=b.kind, old_line=a.line, new_line=b.line, old_signature=sigs[0],
                                new_signature=sigs[1], annotated=annotated))
    old_lines, new_lines = lines_of(texts[0], a.span), lines_of(texts[1], b.span)
    if annotated and old_lines != new_lines:
        diff = unified(old_lines, new_lines, a.span.start, b.span.start, f"{path}::{a.qualname}")
        out.append(SymbolChange(status="body", pin=pin, path=path, qualname=a.qualname, kind=b.kind,
                                old_line=a.span.start, new_line=b.span.start, diff=diff,
                                annotated=True))
    return out
