"""Loading annotation files: YAML (round-trip, so every key keeps its line) checked against the
JSON Schema, into frozen `Article`s; every problem located at its YAML line.

Parsing is the slow part (ruamel's round-trip loader), so a file's result is cached by its text
and name: an unchanged file is read back, and ruamel and jsonschema are not even imported.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reader.annotations.model import (
    Article,
    Claim,
    ClaimShift,
    KeyLine,
    Note,
    Problem,
    Quote,
    ReadSpec,
    Review,
    Section,
    SymbolLines,
    Was,
)
from reader.atomic import finish_interrupted
from reader.cache import Cache
from reader.errors import InputError, Location
from reader.inputs import parse_yaml, read_input
from reader.providers import Provider, how, is_kept, keep, pickled, provide
from reader.workers import Workers

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from ruamel.yaml.comments import CommentedMap

ANNOTATIONS_DIR = "annotations"
SCHEMA_RESOURCE = "schema/annotation.schema.json"


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The JSON Schema of one annotation file (shipped as package data)."""
    return json.loads(resources.files("reader").joinpath(SCHEMA_RESOURCE).read_text("utf-8"))


@dataclass(frozen=True)
class Loaded:
    """One annotation file as read: its article when valid, and every problem found."""

    path: str
    """As shown in messages: relative to the project root (`annotations/x.yaml`)."""
    article: Article | None
    problems: tuple[Problem, ...]


def annotation_files(root: Path) -> list[Path]:
    """The annotation files, once a `reader diff --apply` killed while it rewrote them is completed."""
    folder = root / ANNOTATIONS_DIR
    if not folder.is_dir():
        return []
    finish_interrupted(folder)
    return sorted(folder.glob("*.yaml"))


def load_all(root: Path, cache: Cache | None = None) -> list[Loaded]:
    """Every `annotations/*.yaml` of the project, in file-name order (from `cache` when unchanged)."""
    return [load_file(p, p.relative_to(root).as_posix(), root, cache) for p in annotation_files(root)]


_PRELOADED: dict[Path, Callable[[], list[tuple[Parsed, Loaded]]]] = {}
"""The projects whose annotation files a process of their own is loading (`preload`)."""


def preload(root: Path, workers: Workers) -> None:
    """Load the annotation files the cache lacks on a process of their own (`workers.beside`: ruamel's
    round trip and the schema take 0.2-0.4 s for an edited file) while this one goes on (`reader
    build` imports the renderers meanwhile); `load_articles(root, cache)` puts what it loaded into
    its cache (a build's staged one) before it reads them back."""
    cache, todo = Cache(), []
    for path in annotation_files(root):
        display = path.relative_to(root).as_posix()
        try:
            text = read_input(path, display, root)
        except InputError:
            continue  # `load_articles` says so
        parsed = Parsed(display, path.stem, text, path)
        if not is_kept(LOADED, parsed, cache):
            todo.append(parsed)
    if todo and workers.may_fork():
        _PRELOADED[root.resolve()] = workers.beside(lambda: [(parsed, _loaded(parsed)) for parsed in todo])


def ready_to_parse() -> None:
    """Import the YAML parser and the schema's validator and run them once (0.3 s): a process that
    waits for edits (`reader serve`) does it while it waits, and an edited file costs its parse alone."""
    _parse("title: t\n", "<ready>", Path("ready.yaml"))


def load_articles(root: Path, cache: Cache | None = None) -> list[Article]:
    """The project's articles; raises InputError on the first file that does not load."""
    pending = _PRELOADED.pop(root.resolve(), None) if _PRELOADED else None
    for parsed, found in pending() if pending is not None else ():
        keep(LOADED, parsed, found, cache)
    out = []
    for loaded in load_all(root, cache):
        if loaded.problems:
            first = loaded.problems[0]
            raise InputError(first.message, first.where, first.hint)
        assert loaded.article is not None
        out.append(loaded.article)
    return out


def load_file(path: Path, display: str, root: Path | None = None,
              cache: Cache | None = None) -> Loaded:
    """Read, parse and validate one annotation file (which must lie inside `root` when given).

    With `cache`, a file whose text and name were loaded before is read back, not parsed.
    """
    try:
        text = read_input(path, display, root)
    except InputError as e:
        assert e.location is not None
        return _fail(display, e.location.line or 1, e.message, e.hint)
    return provide(LOADED, Parsed(display, path.stem, text, path), cache)


@dataclass(frozen=True)
class Parsed:
    """What loading an annotation file reads: its name as shown, its stem (the article's slug)
    and its text; its path only names it in an error."""

    display: str
    stem: str
    text: str
    path: Path = how()


def _loaded(inputs: Parsed) -> Loaded:
    return _parse(inputs.text, inputs.display, inputs.path)


LOADED: Provider[Parsed, Loaded] = Provider("annotation", Parsed, _loaded, pickled(Loaded))
"""One annotation file as loaded (`Loaded`)."""


def _parse(text: str, display: str, path: Path) -> Loaded:
    from jsonschema import Draft202012Validator
    from ruamel.yaml.comments import CommentedMap

    try:
        data = parse_yaml(text, display)
    except InputError as e:
        assert e.location is not None
        return _fail(display, e.location.line or 1, e.message, e.hint)
    if not isinstance(data, CommentedMap):
        return _fail(display, 1, "the file is not a YAML mapping",
                     "start with `title:`, `slug:`, `phase:`, `kind:`, `order:`")
    errors = sorted(Draft202012Validator(schema()).iter_errors(data),
                    key=lambda e: (_line_at(data, e.absolute_path), e.message))
    if errors:
        problems = tuple(p for e in errors for p in _explain(e, data, display))
        return Loaded(display, None, problems)
    return _build(data, display, Path(path).stem)


def _fail(display: str, line: int, message: str, hint: str) -> Loaded:
    return Loaded(display, None, (Problem(Location(display, line), message, hint),))


def _line_at(data: Any, path: Any) -> int:
    """1-based YAML line of the node at `path` (its key's line for a mapping entry)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    node, line = data, 1
    if not list(path):
        return 1
    for step in path:
        if isinstance(node, CommentedMap) and step in node:
            line = node.lc.key(step)[0] + 1
        elif isinstance(node, CommentedSeq) and isinstance(step, int) and step < len(node):
            line = node.lc.item(step)[0] + 1
        else:
            break
        node = node[step]
    return line


def _where(path: Any, data: Any) -> str:
    """A readable name for the node at `path`: `note 'x'`, `reads[1]`, `phase`."""
    steps = list(path)
    if len(steps) >= 2 and steps[0] == "notes" and isinstance(steps[1], int):
        note = data["notes"][steps[1]]
        nid = note.get("id") if isinstance(note, dict) else None
        name = f"note {nid!r}" if isinstance(nid, str) else f"notes[{steps[1]}]"
        rest = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in steps[2:])
        return name + (f" `{rest[1:]}`" if rest else "")
    text = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in steps)
    return f"`{text[1:]}`" if text else "the file"


_PATTERN_HINTS = {
    "slug": "use lower-case words joined by '-', e.g. pallas-call",
    "fingerprint": "delete it and run 'reader accept' (it is written by the tool, never by hand)",
    "id": "use letters, digits, '-', '_' or '.'",
    "kernels": "name a module kernels/<name>.py by its name",
    "claim": "write it in doctest's form: `>>> ` lines, each followed by its expected output",
    "claim_setup": "write it in doctest's form: `>>> import ...` lines",
    "blob": "write the old file's 40-hex git blob sha (`reader diff --apply` writes it)",
    "commit": "write the old pin's full 40-hex commit (`reader diff --apply` writes it)",
}


def _explain(e: ValidationError, data: Any, display: str) -> list[Problem]:
    from ruamel.yaml.comments import CommentedMap

    path = list(e.absolute_path)
    loc = Location(display, _line_at(data, path))
    what = _where(path, data)
    inst, v = e.instance, e.validator
    if v == "additionalProperties" and isinstance(inst, CommentedMap):
        known = sorted(e.schema.get("properties", {}))
        out = []
        for key in [k for k in inst if k not in known]:
            close = difflib.get_close_matches(str(key), known, n=1)
            dym = f" (did you mean {close[0]!r}?)" if close else ""
            out.append(Problem(Location(display, inst.lc.key(key)[0] + 1),
                               f"unknown key {key!r} in {what}{dym}",
                               f"known keys: {', '.join(known)}"))
        return out
    if v == "required" and isinstance(inst, dict):
        missing = [k for k in e.validator_value if k not in inst]
        return [Problem(loc, f"{what} lacks the required key {k!r}", f"add `{k}:`") for k in missing]
    if v == "anyOf":
        return [Problem(loc, f"{what} has neither `symbol` nor `quote`",
                        "anchor it with a `symbol`, a `quote`, or both")]
    if v == "dependentRequired":
        return [Problem(loc, f"{what} has `lines` but no `symbol`",
                        "`lines` count from the symbol's first line: add `symbol:`")]
    if v == "oneOf":
        return [Problem(loc, f"{what} must be a string or a mapping with `exact` "
                             "(and optional `prefix`, `suffix`)", "fix the quote")]
    key = next((s for s in reversed(path) if isinstance(s, str)), "")
    if v == "type":
        return [Problem(loc, f"{what} must be {_a(e.validator_value)}, not {_yaml_type(inst)}",
                        _PATTERN_HINTS.get(key, f"write it as {_a(e.validator_value)}"))]
    if v == "enum":
        return [Problem(loc, f"{what} is {inst!r}, not one of {', '.join(map(str, e.validator_value))}",
                        "use one of those")]
    if v in ("minimum", "maximum"):
        sch = e.schema
        bounds = f"between {sch['minimum']} and {sch['maximum']}" if "maximum" in sch else \
            f"at least {sch['minimum']}"
        return [Problem(loc, f"{what} is {inst!r}; it must be {bounds}", "fix the number")]
    if v in ("minItems", "maxItems") and path and path[-1] == "lines":
        return [Problem(loc, f"{what} must be two numbers [first, last]",
                        "write `lines: [first, last]`, relative to the symbol")]
    if v == "minLength":
        return [Problem(loc, f"{what} is empty", "write something or drop the key")]
    if v == "pattern":
        return [Problem(loc, f"{what} {inst!r} is malformed",
                        _PATTERN_HINTS.get(key, f"match {e.validator_value}"))]
    return [Problem(loc, f"{what}: {e.message}", "fix it to match the annotation schema")]


def _a(kind: Any) -> str:
    names = {"string": "a string", "integer": "an integer", "array": "a list",
             "object": "a mapping", "boolean": "true or false", "number": "a number"}
    return names.get(str(kind), str(kind))


def _yaml_type(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "a mapping" if isinstance(value, dict) else type(value).__name__


def _build(data: CommentedMap, display: str, stem: str) -> Loaded:
    from ruamel.yaml.comments import CommentedMap
    problems: list[Problem] = []

    def at(node: Any, key: Any) -> Location:
        pos = node.lc.key(key) if isinstance(node, CommentedMap) else node.lc.item(key)
        return Location(display, pos[0] + 1)

    if data["slug"] != stem:
        problems.append(Problem(at(data, "slug"), f"slug {data['slug']!r} differs from the file "
                                f"name {stem + '.yaml'!r}", f"rename the file to {data['slug']}.yaml "
                                "or change the slug"))
    reads = tuple(ReadSpec(str(r["path"]), tuple(str(s) for s in r.get("symbols", ())),
                           at(data["reads"], i)) for i, r in enumerate(data.get("reads", ())))
    sections = tuple(Section(str(s["title"]), str(s["body"]), at(data["sections"], i),
                             _claim(s, "claim", display, problems))
                     for i, s in enumerate(data.get("sections", ())))
    notes = []
    for i, raw in enumerate(data.get("notes", ())):
        note, problem = _note(raw, i, at(data["notes"], i), reads)
        if problem:
            problems.append(problem)
        if note:
            notes.append(replace(note, claim=_claim(raw, "claim", display, problems)))
    article = Article(
        title=str(data["title"]), slug=str(data["slug"]), phase=int(data["phase"]),
        kind=str(data["kind"]), order=int(data["order"]), where=Location(display, 1),
        summary=str(data.get("summary", "")), reads=reads,
        kernels=tuple(str(k) for k in data.get("kernels", ())), intro=str(data.get("intro", "")),
        sections=sections, outro=str(data.get("outro", "")), notes=tuple(notes),
        claim_setup=_claim(data, "claim_setup", display, problems),
        key_lines=tuple(KeyLine(str(k), data.lc.key(k)[0] + 1) for k in data))
    return Loaded(display, None if problems else article, tuple(problems))


def _note(raw: CommentedMap, index: int, where: Location,
          reads: tuple[ReadSpec, ...]) -> tuple[Note | None, Problem | None]:
    nid = str(raw["id"])
    path = raw.get("path") or (reads[0].path if reads else None)
    if path is None:
        return None, Problem(where, f"note {nid!r} has no `path` and the page reads no files",
                             "add `path:` to the note or a `reads:` entry to the page")
    lines = tuple(int(x) for x in raw["lines"]) if "lines" in raw else None
    if lines is not None and lines[0] > lines[1]:
        return None, Problem(where, f"note {nid!r} has `lines: [{lines[0]}, {lines[1]}]`, "
                             "which ends before it starts", "write `lines: [first, last]`")
    review = raw.get("review")
    if review is not None and review["was"]["lines"][0] > review["was"]["lines"][1]:
        a, b = review["was"]["lines"]
        return None, Problem(where, f"note {nid!r} has `review: was: lines: [{a}, {b}]`, which "
                             "ends before it starts", "write `lines: [first, last]`")
    quote = _quote(raw.get("quote"))
    if quote is not None and not quote.exact.strip():
        return None, Problem(where, f"note {nid!r} quotes only whitespace",
                             "quote some code text")
    note = Note(id=nid, path=str(path), body=str(raw["body"]), where=where,
                symbol=str(raw["symbol"]) if "symbol" in raw else None,
                lines=SymbolLines(lines[0], lines[1]) if lines else None, quote=quote,
                fingerprint=str(raw["fingerprint"]) if "fingerprint" in raw else None,
                line=int(raw["line"]) if "line" in raw else None, index=index,
                review=_review(raw.get("review")))
    return note, None


def _review(raw: Any) -> Review | None:
    """The re-read mark (already checked against the schema), or None."""
    if raw is None:
        return None
    was, claim = raw["was"], raw.get("claim")
    lines = SymbolLines(int(was["lines"][0]), int(was["lines"][1]))
    return Review(str(raw["reason"]), float(raw["confidence"]),
                  Was(str(was["path"]), lines, str(was["blob"]), str(was["commit"])),
                  ClaimShift(str(claim["source"]), str(claim["old"]), str(claim["new"]))
                  if claim is not None else None)


def _quote(raw: Any) -> Quote | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        return Quote(str(raw))
    return Quote(str(raw["exact"]), str(raw.get("prefix", "")), str(raw.get("suffix", "")))


def _claim(node: CommentedMap, key: str, display: str, problems: list[Problem]) -> Claim | None:
    """The claim under `key`, located at its text's first line; a text doctest cannot read is
    a problem at the offending line."""
    from ruamel.yaml.scalarstring import FoldedScalarString, LiteralScalarString

    if key not in node:
        return None
    raw = node[key]
    block = isinstance(raw, LiteralScalarString | FoldedScalarString)
    claim = Claim(str(raw), Location(display, node.lc.key(key)[0] + 1 + int(block)))
    problem = claim_problem(claim)
    if problem:
        problems.append(problem)
        return None
    return claim


def claim_problem(claim: Claim) -> Problem | None:
    """Why doctest cannot read `claim`, located at the line it stops on (None when it can)."""
    import doctest
    import re

    try:
        examples = doctest.DocTestParser().get_examples(claim.text, "claim")
    except ValueError as e:
        found = re.search(r"line (\d+) of", str(e))
        line = (claim.where.line or 1) + (int(found.group(1)) - 1 if found else 0)
        return Problem(Location(claim.where.path, line), f"the claim is not doctest's form: {e}",
                       "write `>>> ` (with its space) and indent continuation lines as `... `")
    if not examples:
        return Problem(claim.where, "the claim has no `>>> ` example",
                       "write `>>> expression` lines, each followed by its expected output")
    return None
