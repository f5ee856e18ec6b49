"""`reader diff --apply`: every note's proposal written into its annotation file, and a re-read
mark (`review:`) on each note a person must read again: its code or claim changed, or its new
place is not certain. All files are replaced together through the journaled writer; comments,
key order and every other byte stay (`annotations.accept.edit_notes`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reader.annotations.accept import DELETE, edit_items, edit_notes, rewrite_links
from reader.annotations.markup import parse
from reader.annotations.model import Article, Note, Quote, ReadSpec
from reader.corpus import Corpus
from reader.errors import Location
from reader.move.changes import ClaimChange
from reader.move.notes import CorpusFiles
from reader.move.place import Proposal, Side, follow, follow_file

LINKED = 0.5
"""How sure a definition a `reads` item or a link names, found under its own name in another
file, must be to follow it there."""
RENAMED = 0.8
"""How sure it must be when found under another name."""


def _followed_to(f: Proposal, name: str) -> bool:
    """Whether a definition a page names (`reads`, links) goes where `f` found it."""
    return f.span is not None and bool(f.symbol) and (
        f.confidence >= RENAMED or (f.symbol == name and f.confidence >= LINKED))


@dataclass(frozen=True)
class Applied:
    """What `--apply` writes (`files`, all or none: `reader diff` writes them) and what it did."""

    placed: tuple[str, ...]
    """Notes whose anchor was rewritten or stamped."""
    marked: tuple[str, ...]
    """Notes left with a re-read mark."""
    orphans: tuple[str, ...]
    """Marked notes with no place (their anchor left as it was)."""
    pages: tuple[str, ...] = ()
    """What changed in the articles besides notes: one line each (`reads`, links)."""
    files: dict[Path, bytes] = field(default_factory=dict)
    """The annotation files it changed: path -> their new bytes."""


def quote_value(quote: Quote) -> str | dict[str, str]:
    """A quote as the YAML writes it: a string, or a mapping when it has a prefix or suffix."""
    if not (quote.prefix or quote.suffix):
        return quote.exact
    out = {"exact": quote.exact}
    out.update({k: v for k, v in (("prefix", quote.prefix), ("suffix", quote.suffix)) if v})
    return out


def anchor_edit(note: Note, p: Proposal) -> dict[str, Any]:
    """The keys that put `note` where `p` proposes (only those that differ), stamped."""
    assert p.span is not None and p.fingerprint is not None
    edit: dict[str, Any] = {}
    if p.path != note.path:
        edit["path"] = p.path
    if p.symbol != note.symbol:
        edit["symbol"] = p.symbol if p.symbol is not None else DELETE
    if p.lines != note.lines:
        edit["lines"] = list(p.lines) if p.lines is not None else DELETE
    if p.quote != note.quote:
        edit["quote"] = quote_value(p.quote) if p.quote is not None else DELETE
    edit["fingerprint"] = p.fingerprint
    edit["line"] = p.span.start
    return edit


def mark(note: Note, p: Proposal, old: Corpus, claim: ClaimChange | None) -> dict[str, Any]:
    """The re-read mark's mapping: why, how sure, where the code was (a mark a person has not
    cleared since an earlier move keeps its `was`: that is the code they last read)."""
    reasons = [p.reason] if p.marked else []
    if claim is not None:
        reasons.append(f"its claim's outcome changed: >>> {claim.source} gives {claim.new!r}, "
                       f"not {claim.old!r}")
    if p.span is None and p.candidates:
        reasons.append("nearest: " + ", ".join(map(str, p.candidates)))
    out: dict[str, Any] = {"reason": "; ".join(reasons), "confidence": p.confidence}
    if note.review is not None:
        w = note.review.was
        out["was"] = {"path": w.path, "lines": list(w.lines), "blob": w.blob, "commit": w.commit}
    else:
        pin = old.pin_of(p.old_path) or ""
        lines = [p.was.start, p.was.end] if p.was else [note.line or 1] * 2
        out["was"] = {"path": p.old_path, "lines": lines,
                      "blob": old.blob(pin, p.old_path) if pin else "",
                      "commit": old.pins[pin].commit if pin else ""}
    if claim is not None:
        out["claim"] = {"source": claim.source, "old": claim.old, "new": claim.new}
    return out


@dataclass(frozen=True)
class PageEdit:
    """What the move changes in an article besides its notes: its `reads` and source links."""

    reads: dict[int, dict[str, Any]]
    """`reads` items' new `path` and `symbols`, by index."""
    added: list[dict[str, Any]]
    """`reads` items for the files its notes moved to."""
    links: dict[str, str]
    """Source link targets (`path` or `path::Qualname`) and where they point now."""
    dropped: list[str]
    """`reads` symbols gone at the new pins (`path::Qualname`), no longer shown."""
    lost: list[tuple[Location, str, str]] = field(default_factory=list)
    """Source links that lead nowhere at the new pins and that could not be followed: (where the
    text is, the target, why)."""


def page_edit(article: Article, proposals: Mapping[str, Proposal], old: Side,
              new: Side) -> PageEdit:
    """The article's `reads` following its files and symbols (and showing where its notes now
    are), and its source links following their definitions where that is certain."""
    placed = [(n, p) for n in article.notes if (p := proposals.get(n.id)) is not None
              and p.span is not None]
    reads: dict[int, dict[str, Any]] = {}
    added: dict[str, dict[str, Any]] = {}
    dropped: list[str] = []
    for i, read in enumerate(article.reads):
        groups = _followed(read, placed, old, new, dropped)
        dest, symbols = groups[0]
        edit: dict[str, Any] = {}
        if dest != read.path:
            edit["path"] = dest
        if read.symbols and symbols != list(read.symbols):
            edit["symbols"] = symbols
        if edit:
            reads[i] = edit
        for path, names in groups[1:]:
            item = added.setdefault(path, {"path": path, "symbols": []})
            item["symbols"] += [s for s in names if s not in item["symbols"]]
    shown = {r.get("path", a.path) for a, r in ((a, reads.get(i, {}))
                                                for i, a in enumerate(article.reads))} | set(added)
    for note, p in placed:
        if article.reads and p.path not in shown:
            item = added.setdefault(p.path, {"path": p.path, "symbols": []})
            restricted = any(r.symbols for r in article.reads if r.path == note.path)
            if restricted and p.symbol and p.symbol not in item["symbols"]:
                item["symbols"].append(p.symbol)
    items = [{k: v for k, v in item.items() if v} for item in added.values()]
    lost: list[tuple[Location, str, str]] = []
    return PageEdit(reads, items, _links(article, old, new, lost), dropped, lost)


def _followed(read: ReadSpec, placed: Sequence[tuple[Note, Proposal]], old: Side, new: Side,
              dropped: list[str]) -> list[tuple[str, list[str]]]:
    """Where a `reads` item's file and symbols are at the new side: (path, symbols) groups, the
    item's own first; the symbols holding the article's notes placed there are added, those
    whose code is gone are dropped (and named in `dropped`)."""
    gone = new.text(read.path) is None
    here = Counter(p.path for n, p in placed if n.path == read.path)
    home = (here.most_common(1)[0][0] if here else None) if gone else read.path
    home = home or follow_file(read.path, old, new) or read.path
    groups: dict[str, list[str]] = {home: []}
    for name in read.symbols:
        path = home
        if name not in {s.qualname for s in new.symbols(home)}:
            f = follow(read.path, name, old, new)
            if not _followed_to(f, name):
                dropped.append(f"{read.path}::{name}")
                continue
            assert f.symbol is not None
            path, name = f.path, f.symbol
        if name not in groups.setdefault(path, []):
            groups[path].append(name)
    if read.symbols:
        for path, names in groups.items():
            defined = new.symbols(path)
            for _, p in placed:
                if p.path != path or p.span is None:
                    continue
                inside = [s for s in defined
                          if s.span.start <= p.span.start and p.span.end <= s.span.end]
                if inside and not any(s.qualname in names for s in inside):
                    names.append(min(inside, key=lambda s: len(s.span)).qualname)
    if read.symbols and not groups[home] and len(groups) > 1:
        del groups[home]  # every symbol it showed went elsewhere: the item follows the most
        home = max(groups, key=lambda path: len(groups[path]))
    out = [(home, groups.pop(home))]
    return out + [(path, names) for path, names in groups.items() if names]


def _links(article: Article, old: Side, new: Side,
           lost: list[tuple[Location, str, str]]) -> dict[str, str]:
    """Source links whose file or definition moved, each to where it now is (when certain); those
    that led somewhere at the old pins and lead nowhere now are added to `lost`."""
    out: dict[str, str] = {}
    for text, where in article.prose():
        for link in parse(text)[0]:
            if link.kind != "source":
                continue
            target = f"{link.target}::{link.symbol}" if link.symbol else link.target
            if target in out or old.text(link.target) is None:
                continue
            if not link.symbol:
                dest = follow_file(link.target, old, new)
                if dest and dest != link.target:
                    out[target] = dest
                elif new.text(link.target) is None:
                    lost.append((where, target, "the file is not at the new pins"))
            elif link.symbol not in {s.qualname for s in new.symbols(link.target)}:
                f = follow(link.target, link.symbol, old, new)
                if _followed_to(f, link.symbol):
                    out[target] = f"{f.path}::{f.symbol}"
                elif link.symbol in {s.qualname for s in old.symbols(link.target)}:
                    lost.append((where, target, f"{link.symbol!r} is not defined there at the new "
                                                f"pins, and no definition is surely it"))
    return out


def apply_proposals(root: Path, articles: Sequence[Article], proposals: Mapping[str, Proposal],
                    old: Corpus, new: Corpus, claims: Sequence[ClaimChange] = ()) -> Applied:
    """Each note's proposal and marks, and each article's `reads` and links that the move changed,
    written into the annotation files under `root` (their new bytes: `Applied.files`)."""
    before, after = Side(CorpusFiles(old)), Side(CorpusFiles(new))
    by_claim = {c.note: c for c in claims}
    edits: dict[str, dict[int, dict[str, Any]]] = {}
    placed, marked, orphans = [], [], []
    for article in articles:
        for note in article.notes:
            p = proposals.get(note.id)
            if p is None:
                continue
            claim = by_claim.get(note.id)
            edit = anchor_edit(note, p) if p.span is not None else {}
            if edit == {"fingerprint": note.fingerprint, "line": note.line}:
                edit = {}  # already where it goes
            elif edit:
                placed.append(note.id)
            if p.marked or claim is not None:
                edit["review"] = mark(note, p, old, claim)
                marked.append(note.id)
                if p.span is None:
                    orphans.append(note.id)
            if edit:
                edits.setdefault(note.where.path, {})[note.index] = edit
    files, told = {}, []
    for article in articles:
        path = article.where.path
        text = (root / path).read_bytes().decode("utf-8")
        page = page_edit(article, proposals, before, after)
        told += [f"{path}: `reads` no longer shows {d} (gone at the new pins)" for d in page.dropped]
        told += [f"{path}: link [[{a}]] now [[{b}]]" for a, b in page.links.items()]
        told += [f"{where}: link [[{target}]] leads nowhere at the new pins ({why}); rewrite or "
                 "remove it ('reader check' reports it until then)" for where, target, why in page.lost]
        out = edit_notes(text, edits.get(path, {}), path) if path in edits else text
        if page.reads or page.added:
            out = edit_items(out, "reads", page.reads, path, page.added)
        out = rewrite_links(out, page.links, path)
        if out != text:
            files[root / path] = out.encode("utf-8")
    return Applied(tuple(placed), tuple(marked), tuple(orphans), tuple(told), files)
