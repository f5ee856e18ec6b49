"""Lowering rule tables, computed facts and figures before and after a move, and the prose citing them."""

from __future__ import annotations

import json
from collections.abc import Mapping

from reader.annotations import Article
from reader.annotations.markup import parse
from reader.errors import Location, ReaderError
from reader.extract.fact import Facts, Unknown
from reader.extract.ruletable import RuleEntry, RuleTable
from reader.move.changes import Change, FactChange, FactsUncomputed, FiguresUncomputed, RuleChange


def _rule(e: RuleEntry) -> str:
    return f"{e.rule.qualname} ({e.rule.path}:{e.rule.line})"


def diff_rules(old: list[RuleTable], new: list[RuleTable]) -> list[RuleChange]:
    """Per backend and key: primitives added or removed, and rules that moved to another function
    or file (a rule that only shifted lines, or its registration, is not reported)."""
    before = {(t.backend, t.key): {e.primitive.key: e for e in t.entries} for t in old}
    after = {(t.backend, t.key): {e.primitive.key: e for e in t.entries} for t in new}
    out = []
    for table in [*after, *(k for k in before if k not in after)]:
        a, b = before.get(table, {}), after.get(table, {})
        for prim in sorted(set(a) | set(b), key=lambda k: ((b.get(k) or a[k]).primitive.dotted, k)):
            x, y = a.get(prim), b.get(prim)
            common = dict(backend=table[0], key=table[1],
                          primitive=(y or x).primitive.dotted)  # type: ignore[union-attr]
            if x is None and y is not None:
                out.append(RuleChange(status="added", new_rule=_rule(y), **common))
            elif y is None and x is not None:
                out.append(RuleChange(status="removed", old_rule=_rule(x), **common))
            elif x is not None and y is not None and _moved(x, y):
                out.append(RuleChange(status="moved", old_rule=_rule(x), new_rule=_rule(y), **common))
    return out


def _moved(x: RuleEntry, y: RuleEntry) -> bool:
    return (x.rule.path, x.rule.qualname, x.rule.kind) != (y.rule.path, y.rule.qualname, y.rule.kind)


def citations(articles: list[Article], kind: str = "fact") -> dict[str, list[Location]]:
    """Fact (or `kind`: figure) name -> where the prose cites it (`{{fact:NAME}}`): the text's key
    or note in its file."""
    out: dict[str, list[Location]] = {}
    for article in articles:
        for text, where in article.prose():
            for p in parse(text)[0]:
                if p.kind == kind and where not in out.get(p.target, []):
                    out.setdefault(p.target, []).append(where)
    return out


def _show(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


def diff_facts(old: Facts, new: Facts, articles: list[Article], old_label: str = "old",
               new_label: str = "new") -> list[Change]:
    """Facts whose value changed (or that appeared or went), each with the prose citing it; then
    what either side could not compute, in place of the facts it costs."""
    cites = citations(articles)
    out: list[Change] = []
    for name in sorted(set(old.values) | set(new.values)):
        if old.unknown_for(name) or new.unknown_for(name):
            continue
        a = _show(old.values[name]) if name in old.values else "(none)"
        b = _show(new.values[name]) if name in new.values else "(none)"
        if a != b:
            out.append(FactChange(status="changed", name=name, old=a, new=b,
                                  cited_by=tuple(cites.get(name, ()))))
    for label, side in ((old_label, old), (new_label, new)):
        out += [_uncomputed(u, label, cites) for u in side.unknown]
    return out


def _uncomputed(u: Unknown, label: str, cites: dict[str, list[Location]]) -> FactsUncomputed:
    cited = dict.fromkeys(w for name, where in cites.items() if u.covers(name) for w in where)
    return FactsUncomputed(status="unknown", side=label, what=u.what, where=u.where,
                           reason=u.reason, cited_by=tuple(sorted(cited)))


def diff_figures(old: Mapping[str, ReaderError], new: Mapping[str, ReaderError], articles: list[Article],
                 old_label: str = "old", new_label: str = "new") -> list[Change]:
    """The figures the prose cites that one side's pinned code cannot make (`old`, `new`: name ->
    why), each with the prose citing it."""
    cites = citations(articles, "figure")
    return [FiguresUncomputed(status="unknown", side=label, what=f"figure {name}",
                              where=e.location or Location(""), reason=e.message,
                              cited_by=tuple(cites.get(name, ())))
            for label, side in ((old_label, old), (new_label, new)) for name, e in sorted(side.items())]
