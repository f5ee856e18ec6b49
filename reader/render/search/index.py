"""The site's search index, in pieces a query fetches as it needs them (docs/assets/search.js).

The index is made of logical pieces, each a key and its data, packed into files that fill
`PACK_BLOCKS` disk blocks each, gzipped and base64'd (a query fetches what a piece cost before, in a
few hundred files instead of thousands: most pieces were under a disk block). Every file is a
script, loaded by a `<script>` tag (file:// works, where fetch() does not): `search/files.js`
calls `readerSearch.pack("files", "<base64>")` with the `files` piece, whose `packs` lists the
first key of each other pack; `search/<n>.js` calls `readerSearch.pack(n, "<base64>")` with the
pieces whose keys sort from the n-th first key to the next one's. search.js inflates them
(`DecompressionStream`) and hands each piece to `readerSearch.put(key, data)`. Words are
`[a-z0-9_]+`, lowercased; a word's piece of the code's index is named by its first three letters
(`prefix`), so that a query reads one piece per word, and a word typed in part finds the words it
begins.

    files       {"files": [[path, lines] or [path, lines, 0], ...],  # by file id; the file
                                                    # finder's; 0: a pin's `context` file, its
                                                    # definitions indexed, not its lines
                 "code": "abc abd ...",             # the code's pieces (no 404s)
                 "packs": ["code/0", "code/a_b", ...]}   # each pack's first key
    code/<abc>  {"t": {word: "f:l,+d,+d;f:l" | n},  # the lines of each file (id f) holding the
                                                    # word, each line after the first as its
                                                    # distance from the one before; n: on more
                                                    # than COMMON lines, not listed
                 "d": {name: [[f, line, kind, qualname, text], ...]},
                                                    # text: `name(signature): docstring's line`
                                                    # definitions by their last name, lowercased
                 "q": {"pl.program_id": [f, line, kind, qualname, text]}}
                                                    # (where any) a public module's name under
                                                    # an alias or its module's path, lowercased:
                                                    # its definition (`qualified.py`)
    lines/<f>/<k>   lines k*CHUNK+1 ... of file f (results' text, and a phrase or a pattern
                    checked in it; a `context` file's too)
    tri/<abc>   "c,+d,+d" | n: the pieces of lines (numbered across the files, in file order:
                    file f's k-th is the sum of the earlier files' pieces, plus k) whose words hold
                    the three letters `abc` (of `[a-z0-9_]`, lowercased); n: in more than
                    `COMMON_TRI` of them, not listed. A pattern or a substring that no word of
                    the code's index finds reads the pieces holding all its letters' triples.
    text/<n>        {word: "doc,+d,+d"}: the prose documents holding it (n: `text_shard`)
    docs/<b>        [[url, title, where, text], ...]: documents b*BUCKET ...

The code's pieces depend only on the pinned files (kept in the cache by their blobs); the prose's
(notes, articles' sections, pages) are made on every build: a note's edit rewrites the packs
holding them, which `site_patch` writes like any other asset.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import operator
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from reader.cache import Cache
from reader.extract.index import LINES, SCAN
from reader.model import SourceFile, split_lines
from reader.packed import Packing, packed, unpacked
from reader.providers import Provider, how, is_kept, keep, kept, pickled, provide, running_cache
from reader.render.code.annotated import INDEXED
from reader.render.code.entries import searchable
from reader.render.common.model import Asset, Page, SearchEntry
from reader.render.common.urls import html_of
from reader.render.common.urls import source_page as source_uri

SEARCH_DIR = "search"
CHUNK = 100
"""Lines per piece of a file's text."""
COMMON = 2000
"""A word of the code on more lines than this is counted, not listed (`self`, `the`, `if`)."""
COMMON_TRI = 0.2
"""A triple of letters in more than this share of the pieces of lines (and more than 64) is
counted, not listed."""
TEXT_SHARDS = 64
"""Pieces of the prose's word index: fixed, so that an edit rewrites them under the same names."""
BUCKET = 16
"""Documents per piece of the prose's documents."""
TEXT_CHARS = 2000
"""A document's text is cut here."""
BLOCK = 4096
PACK_BLOCKS = 2
"""The disk blocks (of `BLOCK` bytes) a pack's script fills at most: its pieces are added while
the script fits (a file's last block is slack: packs cut at 16 KB of JSON, 5 KB of script on
average, left a third of the index's disk space empty); about what a query read of one piece
before (a line chunk, 4 KB, gzipped)."""
_WRAPPER = len('readerSearch.pack("00000","");\n')
"""A pack's script but its packed text (a pack's number: five digits at most)."""
_WORD = re.compile(r"[A-Za-z0-9_]+")
_SECTION = re.compile(r'<h([1-6])[^>]*\bid="([^"]+)"[^>]*>(.*?)</h\1>', re.S)
_TAG = re.compile(r"<[^>]+>")
_BREAK = re.compile(r"</(?:p|li|h\d|div|pre|blockquote|tr)>|<br\s*/?>")
_SENTENCE = re.compile(r"(.+?[.!?:])(?:\s|$)")
_LINE = re.compile(r"L\d+$")


@dataclass(frozen=True)
class Document:
    """A place in the prose search finds: a note, a section of a page, a page."""

    url: str
    """Relative to the site's root, with its `#fragment`."""
    title: str
    where: str
    """What holds it: an article's title and the lines a note is on, a page's title."""
    text: str


def script(key: str, data: object) -> Asset:
    return Asset(f"{SEARCH_DIR}/{key}.js", f"readerSearch.put({json.dumps(key)},".encode() + _json(data) + b");\n")


def _json(data: object) -> bytes:
    """A piece's data as its `script` holds it."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def prefix(word: str) -> str:
    """The name of a word's piece of the code's index."""
    return word[:3]


def text_shard(word: str) -> int:
    """The piece of the prose's index holding `word` (search.js computes the same)."""
    h = 0
    for ch in word[:2]:
        h = (h * 31 + ord(ch)) % TEXT_SHARDS
    return h


@dataclass(frozen=True)
class Coded:
    """What the code's part of the index reads: each pinned file's pin, path, blob and whether it
    is a `context` file, and the packs' size; the producer's way to them (`how`): the files' texts
    (known by their blobs), their source pages (whose search entries are their definitions, the
    files' own), the part made before (`lines`) and the qualified names (of the files)."""

    files: tuple[tuple[str, str, str, bool], ...]
    blocks: tuple[int, int] = (PACK_BLOCKS, BLOCK)
    sources: Sequence[SourceFile] = how(())
    pages: Sequence[Page] = how(())
    lines: CodeLines | None = how()
    names: Callable[[], Qualified] = how(dict)


def _coded(files: Sequence[SourceFile], context: frozenset[str], pages: Sequence[Page] = (),
           lines: CodeLines | None = None, names: Callable[[], Qualified] = dict) -> Coded:
    return Coded(tuple((f.pin, f.path, f.blob, f.path in context) for f in files), (PACK_BLOCKS, BLOCK),
                 files, pages, lines, names)


def _context(files: Sequence[tuple[str, str, str, bool]]) -> frozenset[str]:
    """The `context` files' paths among `Coded.files`."""
    return frozenset(path for _pin, path, _blob, inside in files if inside)


def _code_packs(inputs: Coded) -> tuple[dict[str, object], list[tuple[str, str]]]:
    files, lines, context = inputs.sources, inputs.lines, _context(inputs.files)
    if lines is None or lines.key != _code_key(files, context):
        lines = code_lines(files, context)
    return lines.joined(_entries(files, inputs.pages), inputs.names())


CODE_PACKS: Provider[Coded, tuple[dict[str, object], list[tuple[str, str]]]] = Provider(
    "search-packs", Coded, _code_packs, pickled(tuple, frozen=True), (SCAN, LINES))
"""The code's part of the index: (the files table, the code's packs)."""


def code_packs_kept(files: Sequence[SourceFile], cache: Cache | None, context: frozenset[str] = frozenset()) -> bool:
    """Whether the cache holds the code's packs of these files (`search_assets` reads them back)."""
    return cache is not None and is_kept(CODE_PACKS, _coded(files, context), cache)


Qualified = Mapping[str, tuple[str, int]]
"""`alias.name` (lowercased) -> the path and line of its definition (`qualified.qualified_names`)."""


def search_assets(files: Sequence[SourceFile], pages: Sequence[Page], cache: Cache | None,
                  context: frozenset[str] = frozenset(), keys: Mapping[str, str] | None = None,
                  lines: CodeLines | None = None, names: Callable[[], Qualified] = dict) -> list[Asset]:
    """The index's files: its pieces packed (the code's packs from the cache when the pinned files
    are the same: only the prose's are made on every build, from what the last build with these
    files made of the pages it shares with this one, `ProseMemo`; `keys`: the pages' page-cache
    keys by `src_uri`; `lines`: the code's part that the pages do not change, made before, for
    these files; `names`: the qualified names, asked for when the code's packs are made)."""
    coded = _coded(files, context, pages, lines, names)
    kept = provide(CODE_PACKS, coded, cache)
    table, packs = kept
    memo = ProseMemo.load(cache, coded)
    docs = memo.documents(pages, keys or {})
    prose = _packs({k: _json(data) for k, data in _text_pieces(docs, memo.words(docs))}, memo.packed)
    memo.save(cache, coded)
    return _scripts(dict(table), packs + prose)


def _no_memo(_inputs: Coded) -> tuple[dict, dict, dict]:
    return {}, {}, {}


PROSE_MEMO: Provider[Coded, tuple[dict, dict, dict]] = Provider(
    "search-prose", Coded, _no_memo, pickled(tuple, frozen=True))
"""What a build with these files made of the prose (`ProseMemo`): a memo of pure functions'
results (a page's documents by its page-cache key, a document's words, a pack's text by its
bytes' hash), so that any memo is right; the files key it so that one build's is read by the next."""


class ProseMemo:
    """What a build made of the prose for the search index, by the pinned files (`search_assets`'
    key), for the next build to read back: each page's documents by its page-cache key, each
    document's words, each pack's text by its JSON's hash. Saved holding only what its build used
    (a note's edit rewrites one page's documents and the few packs holding them)."""

    def __init__(self, docs: dict[str, list[Document]] | None = None,
                 words: dict[Document, frozenset[str]] | None = None,
                 packs: dict[bytes, str] | None = None):
        self._old = (docs or {}, words or {}, packs or {})
        self._docs: dict[str, list[Document]] = {}
        self._words: dict[Document, frozenset[str]] = {}
        self._packs: dict[bytes, str] = {}

    @classmethod
    def load(cls, cache: Cache | None, coded: Coded) -> ProseMemo:
        found = kept(PROSE_MEMO, coded, cache)
        return cls(*found) if found is not None and len(found) == 3 else cls()

    def save(self, cache: Cache | None, coded: Coded) -> None:
        if (self._docs, self._words, self._packs) != self._old:
            keep(PROSE_MEMO, coded, (self._docs, self._words, self._packs), cache)

    def documents(self, pages: Iterable[Page], keys: Mapping[str, str]) -> list[Document]:
        """`documents(pages)`, a page with a page-cache key (in `keys`) read back when known."""
        out: list[Document] = []
        for page in pages:
            key = keys.get(page.src_uri)
            found = self._old[0].get(key) if key else None
            if found is None:
                found = documents([page])
            if key:
                self._docs[key] = found
            out += found
        return out

    def words(self, docs: Sequence[Document]) -> list[frozenset[str]]:
        """Each document's words (`words` of its title and text)."""
        out = []
        for d in docs:
            found = self._old[1].get(d)
            if found is None:
                found = frozenset(words(f"{d.title} {d.text}"))
            self._words[d] = found
            out.append(found)
        return out

    def packed(self, data: bytes) -> str:
        """`packed(data)`, read back when an earlier build packed the same bytes."""
        digest = hashlib.sha1(data).digest()
        text = self._packs.get(digest) or self._old[2].get(digest) or packed(data)
        self._packs[digest] = text
        return text


@dataclass(frozen=True)
class Searched:
    """What the whole index reads: the code's inputs (`Coded`) and each page, known by its
    page-cache key (a kind's page: what it is rendered from) or its content (the outline's
    pages); the producer's way to them: the pages, and the cache their parts are kept in."""

    coded: Coded
    pages: tuple[tuple[str, str], ...]
    shown: Sequence[Page] = how(())
    keys: Mapping[str, str] = how(None)


def _search(inputs: Searched) -> list[tuple[str, bytes]]:
    coded = inputs.coded
    return [(a.src_uri, a.data) for a in search_assets(
        coded.sources, inputs.shown, running_cache(), _context(coded.files), inputs.keys, coded.lines, coded.names)]


SEARCH: Provider[Searched, list[tuple[str, bytes]]] = Provider(
    "search", Searched, _search, pickled(list), (CODE_PACKS, PROSE_MEMO))
"""The search index's files (`search_assets`)."""


def kept_search_assets(files: Sequence[SourceFile], pages: Sequence[Page], keys: Mapping[str, str],
                       cache: Cache | None, context: frozenset[str] = frozenset(),
                       lines: CodeLines | None = None, names: Callable[[], Qualified] = dict) -> list[Asset]:
    """`search_assets`, read back while the pinned files and the pages are the same: a kind's page
    known by its page-cache key (`keys`, by `src_uri`), the outline's by its text."""
    shown = tuple((page.src_uri, keys.get(page.src_uri) or repr((page.title, page.markdown, page.html, page.search)))
                  for page in pages)
    found = provide(SEARCH, Searched(_coded(files, context, (), lines, names), shown, pages, keys), cache)
    return [Asset(uri, data) for uri, data in found]


def search_pieces(files: Sequence[SourceFile], pages: Sequence[Page],
                  context: frozenset[str] = frozenset()) -> list[Asset]:
    """Every piece of the index, one `readerSearch.put` script each: the code's and the prose's;
    of the `context` files (paths), the definitions alone."""
    return _code_assets(files, _entries(files, pages), context) + text_assets(documents(pages))


_PUT = re.compile(rb'readerSearch\.put\(("[^"]*"),(.*)\);\n\Z', re.S)


def pack(pieces: Sequence[Asset]) -> list[Asset]:
    """The pieces (`script`s) in packs: `files` alone, with the first key of every other pack;
    the others in key order, each filling at most `PACK_BLOCKS` disk blocks, a pack holding one kind of piece
    (`code/`, `lines/`, `docs/`, `text/`: the code's are kept while the pinned files are the same)."""
    bodies = _bodies(pieces)
    return _scripts(json.loads(bodies.pop("files", b"{}")), _packs(bodies))


def _bodies(pieces: Sequence[Asset]) -> dict[str, bytes]:
    """Each piece's data (its JSON) by key."""
    out: dict[str, bytes] = {}
    for piece in pieces:
        m = _PUT.match(piece.data)
        assert m is not None, piece.src_uri
        out[json.loads(m.group(1))] = m.group(2)
    return out


def _packs(bodies: dict[str, bytes], pack_: Callable[[bytes], str] | None = None) -> list[tuple[str, str]]:
    """(first key, packed JSON) of each pack of `bodies`, in key order: as many pieces of one kind
    as fit `PACK_BLOCKS` blocks (a piece alone that does not: a pack of its own); `pack_`: one that
    reads back what an earlier build packed, else each pack's JSON is compressed as it grows."""
    out: list[tuple[str, str]] = []
    ratio: dict[str, float] = {}  # JSON bytes per byte of packed text, by kind, in its last pack
    for kind, group in itertools.groupby(sorted(bodies), key=_kind):
        keys = list(group)
        start = 0
        while start < len(keys):
            texts = _Grown(keys, start, bodies) if pack_ is None else _remembered(keys, start, bodies, pack_)
            end, text = _fit(keys, start, bodies, ratio.get(kind, 3.0), texts)
            ratio[kind] = sum(len(bodies[k]) for k in keys[start:end]) / len(text)
            out.append((keys[start], text))
            start = end
    return out


def _fit(keys: Sequence[str], start: int, bodies: dict[str, bytes], ratio: float,
         texts: Callable[[int], str]) -> tuple[int, str]:
    """(end, packed text) of the pack of `keys[start:end]` whose script fits `PACK_BLOCKS` blocks
    (end > start): from a guess by their JSON's size (`ratio`: JSON bytes per byte of packed text),
    one piece more or less until it fits and one more would not (`texts(end)`: the packed text of
    `keys[start:end]`)."""
    limit = PACK_BLOCKS * BLOCK - _WRAPPER
    end, size = start + 1, len(bodies[keys[start]])
    while end < len(keys) and size + len(bodies[keys[end]]) <= limit * ratio:
        size += len(bodies[keys[end]])
        end += 1
    text = texts(end)
    if len(text) > limit:
        while len(text) > limit and end > start + 1:
            end -= 1
            text = texts(end)
        return end, text  # (the pack of one piece more, just tried, does not fit)
    while end < len(keys):
        more = texts(end + 1)
        if len(more) > limit:
            break
        end, text = end + 1, more
    return end, text


class _Grown:
    """The packed text of `keys[start:end]` for the `end`s `_fit` tries, from one gzip stream
    (`Packing`) grown a piece at a time: a piece more costs that piece; one less, the copy kept
    before the last piece (a second one less grows it again, keeping a copy at every piece)."""

    def __init__(self, keys: Sequence[str], start: int, bodies: dict[str, bytes]):
        self.keys, self.start, self.bodies = keys, start, bodies
        self.packing, self.at = Packing(), start
        self.before: dict[int, Packing] = {}  # the packing of keys[start:n], by n

    def __call__(self, end: int) -> str:
        if end < self.at:
            if end in self.before:
                self.packing, self.at = self.before.pop(end), end
            else:
                self.packing, self.at = Packing(), self.start
                self._grow(end, self.start + 1)
        else:
            self._grow(end, end - 1 if self.at == self.start else end)
        return self.packing.text(b"}")

    def _grow(self, end: int, keep: int) -> None:
        """Add `keys[at:end]`, keeping a copy before each from the `keep`-th on."""
        for n in range(self.at, end):
            if n >= keep and n > self.start:
                self.before[n] = self.packing.copy()
            self.packing.add((b"," if n > self.start else b"{") + json.dumps(self.keys[n]).encode() + b":"
                             + self.bodies[self.keys[n]])
        self.at = end


def _remembered(keys: Sequence[str], start: int, bodies: dict[str, bytes],
                pack_: Callable[[bytes], str]) -> Callable[[int], str]:
    """The packed text of `keys[start:end]`, `pack_` of its whole JSON."""
    return lambda end: _packed_json({k: bodies[k] for k in keys[start:end]}, pack_)


def _kind(key: str) -> str:
    return key.split("/", 1)[0]


def _scripts(table: dict[str, object], packs: list[tuple[str, str]]) -> list[Asset]:
    """`files.js` (the table, with each pack's first key) and the packs' scripts, numbered in their
    first keys' order."""
    packs = sorted(packs)
    table["packs"] = [first for first, _ in packs]
    files = json.dumps(table, separators=(",", ":"), ensure_ascii=False).encode()
    return [_script("files", _packed_json({"files": files})),
            *(_script(str(n), text) for n, (_, text) in enumerate(packs))]


def _packed_json(bodies: dict[str, bytes], pack_: Callable[[bytes], str] = packed) -> str:
    return pack_(b"{" + b",".join(json.dumps(k).encode() + b":" + body for k, body in bodies.items()) + b"}")


def _script(name: str, text: str) -> Asset:
    return Asset(f"{SEARCH_DIR}/{name}.js", f"readerSearch.pack({json.dumps(name)},\"{text}\");\n".encode())


_PACK = re.compile(rb'readerSearch\.pack\("[^"]*","([A-Za-z0-9+/=]*)"\);\n\Z')


def unpack(data: bytes) -> dict[str, object]:
    """The pieces a pack's script holds, by key (what search.js hands `put`)."""
    m = _PACK.match(data)
    text = unpacked(m.group(1).decode()) if m else None
    assert text is not None, data[:80]
    return json.loads(text)


def _code_key(files: Sequence[SourceFile], context: frozenset[str]) -> str:
    return hashlib.sha1(repr([(f.pin, f.path, f.blob, f.path in context) for f in files]).encode()).hexdigest()


def _entries(files: Sequence[SourceFile], pages: Sequence[Page]) -> list[Sequence[SearchEntry]]:
    """Each file's source page's search entries (its definitions)."""
    by_page = {p.src_uri: p.search for p in pages}
    return [by_page.get(source_uri(f.path), ()) for f in files]


@dataclass(frozen=True)
class CodeLines:
    """The part of the code's index that depends on the pinned files alone (`code_lines`): made on
    a process of its own while the pages are rendered, joined with their definitions (`joined`)."""

    key: str
    """`_code_key` of the files."""
    table: list[list[str | int]]
    words: dict[str, str | int]
    """Each word's postings (`_postings`), or its count of lines when over `COMMON`, in word order."""
    packs: list[tuple[str, str]]
    """The packs of the files' lines and their letters' triples (`lines/` and `tri/` pieces: each kind
    packed on its own, `_packs`)."""

    def joined(self, entries: Sequence[Sequence[SearchEntry]], names: Qualified | None = None
               ) -> tuple[dict[str, object], list[tuple[str, str]]]:
        """(the files table, the code's packs), as `search_assets` keeps them."""
        shards = _shards(self.words, entries, _file_ids(self.table), names or {})
        code = _packs({f"code/{p}": _json(shard) for p, shard in sorted(shards.items())})
        return {"files": self.table, "code": " ".join(sorted(shards))}, code + self.packs


def code_lines(files: Sequence[SourceFile], context: frozenset[str] = frozenset()) -> CodeLines:
    table, words_, lines = _file_words(files, context)
    return CodeLines(_code_key(files, context), table, words_, _packs({k: _json(v) for k, v in lines}))


def _code_assets(files: Sequence[SourceFile], entries: Sequence[Sequence[SearchEntry]],
                 context: frozenset[str] = frozenset()) -> list[Asset]:
    table, words_, lines = _file_words(files, context)
    shards = _shards(words_, entries, {}, {})
    out = [script(k, v) for k, v in lines]
    out += [script(f"code/{p}", shard) for p, shard in sorted(shards.items())]
    out.append(script("files", {"files": table, "code": " ".join(sorted(shards))}))
    return out


def _file_words(files: Sequence[SourceFile], context: frozenset[str]
                ) -> tuple[list[list[str | int]], dict[str, str | int], list[tuple[str, object]]]:
    """The files table, each word's postings (`CodeLines.words`) and the `lines/` and `tri/`
    pieces (key, data) of `files` (a `context` file's words are not indexed, its lines are); each
    line's words are found once, for both."""
    postings: dict[str, list[tuple[int, list[int]]]] = defaultdict(list)  # word -> (file id, its lines)
    pieces: list[tuple[str, object]] = []
    triples = _Triples()
    table: list[list[str | int]] = []
    findall = _WORD.findall
    for fid, f in enumerate(files):
        lines = split_lines(f.text)
        indexed = f.path not in context
        table.append([f.path, len(lines)] if indexed else [f.path, len(lines), 0])
        at: dict[str, list[int]] = defaultdict(list)  # word -> the lines holding it (1-based)
        for k in range(0, len(lines), CHUNK):
            piece = lines[k:k + CHUNK]
            pieces.append((f"lines/{fid}/{k // CHUNK}", piece))
            seen: set[str] = set()  # the piece's words, as the triples find them
            for n, line in enumerate(piece, k + 1):
                found = set(findall(line.lower()))
                seen |= found
                if indexed:
                    # an ASCII line lowercased first has the same words (a letter stays a letter in place)
                    for w in found if line.isascii() else words(line):
                        at[w].append(n)
            triples.add(seen)
        for w, lines_of in at.items():
            postings[w].append((fid, lines_of))
    words_: dict[str, str | int] = {}
    for w, posted in sorted(postings.items()):
        count = sum(len(lines_of) for _, lines_of in posted)
        words_[w] = _postings(posted) if count <= COMMON else count
    return table, words_, pieces + triples.pieces()


class _Triples:
    """The `tri/` pieces: each triple of letters and the pieces of lines holding it."""

    def __init__(self) -> None:
        self.pieces_of: dict[str, list[int]] = defaultdict(list)
        self.count = 0
        self._of_word: dict[str, tuple[str, ...]] = {}

    def add(self, words_: set[str]) -> None:
        """The next piece of lines, by its words (lowercase)."""
        of_word = self._of_word
        for w in words_:
            if w not in of_word:
                of_word[w] = tuple({w[i:i + 3] for i in range(len(w) - 2)})
        for t in set().union(*[of_word[w] for w in words_]):
            self.pieces_of[t].append(self.count)
        self.count += 1

    def pieces(self) -> list[tuple[str, object]]:
        most = max(COMMON_TRI * self.count, 64)
        return [(f"tri/{t}", _deltas(at) if len(at) <= most else len(at))
                for t, at in sorted(self.pieces_of.items())]


def _file_ids(table: Sequence[Sequence[str | int]]) -> dict[str, int]:
    return {str(row[0]): fid for fid, row in enumerate(table)}


def _shards(words_: Mapping[str, str | int], entries: Sequence[Sequence[SearchEntry]],
            ids: Mapping[str, int], names: Qualified) -> dict[str, dict[str, dict[str, object]]]:
    """The `code/<abc>` pieces' data: the words (in word order), definitions and qualified names
    (`names`, their files by id in `ids`) by prefix."""
    defs: dict[str, list[list[object]]] = defaultdict(list)
    for fid, listed in enumerate(entries):
        for e in listed:
            if e.fragment.startswith("L"):
                name = e.title.rsplit(".", 1)[-1].lower()
                kind, _, text = html.unescape(e.text).partition(" ")  # `kind name(sig): doc`
                defs[name].append([fid, int(e.fragment[1:]), kind, e.title, text])
    shards: dict[str, dict[str, dict[str, object]]] = defaultdict(lambda: {"t": {}, "d": {}})
    for w, posted in words_.items():
        shards[prefix(w)]["t"][w] = posted
    for name, places in defs.items():
        shards[prefix(name)]["d"][name] = places
    for dotted, (path, line) in sorted(names.items()):
        name = dotted.rsplit(".", 1)[-1]
        found = [d for d in defs.get(name, ()) if d[:2] == [ids.get(path), line]]
        if found:
            shards[prefix(name)].setdefault("q", {})[dotted] = found[0]
    return shards


def _postings(found: Sequence[tuple[int, Sequence[int]]]) -> str:
    """`f:l,+d,+d;f:l`: each file's lines (file id, its lines), after the first as distances."""
    return ";".join(f"{fid}:{_deltas(lines)}" for fid, lines in found)


def _deltas(numbers: Sequence[int]) -> str:
    """`3,+4,+1` for 3, 7, 8."""
    return ",".join(map(str, map(operator.sub, numbers, [0, *numbers])))


def text_assets(docs: Sequence[Document]) -> list[Asset]:
    return [script(key, data) for key, data in _text_pieces(docs, [words(f"{d.title} {d.text}") for d in docs])]


def _text_pieces(docs: Sequence[Document], words_of: Sequence[Iterable[str]]) -> list[tuple[str, object]]:
    """The prose's pieces (key, data): its word index, each word of a document (`words_of`, in
    `docs`' order) listing it, and its documents in buckets."""
    postings: dict[str, list[int]] = defaultdict(list)
    for i, found in enumerate(words_of):
        for w in found:
            postings[w].append(i)
    shards: list[dict[str, str]] = [{} for _ in range(TEXT_SHARDS)]
    for w, ids in sorted(postings.items()):
        shards[text_shard(w)][w] = _deltas(ids)
    out: list[tuple[str, object]] = [(f"text/{n}", shard) for n, shard in enumerate(shards)]
    out += [(f"docs/{b // BUCKET}", [[d.url, d.title, d.where, d.text] for d in docs[b:b + BUCKET]])
            for b in range(0, len(docs), BUCKET)]
    return out


def documents(pages: Iterable[Page]) -> list[Document]:
    """The prose's places: each page (its title and lede), its sections (by their headings' ids),
    its notes (`note-<id>` entries), a source page's own entry, any other place a page names
    (the lowering-rules rows)."""
    out = []
    for page in pages:
        url = html_of(page.src_uri)
        own = next((e for e in page.search if not e.fragment), None)
        sections = _sections(page.html)
        lede = sections.pop(0)[2] if sections and not sections[0][0] else ""
        out.append(Document(url, page.title, "", _plain(own.text) if own else lede))
        out += [Document(f"{url}#{anchor}", title, page.title, text) for anchor, title, text in sections]
        out += [Document(f"{url}#{e.fragment}", _first_sentence(text), f"{page.title} · {e.title}", text)
                for e in page.search if e.fragment.startswith("note-") for text in [_plain(e.text)]]
        out += [Document(f"{url}#{e.fragment}", e.title, page.title, _plain(e.text))
                for e in page.search if _place(e.fragment)]
    return out


def _place(fragment: str) -> bool:
    """A page's own place (a lowering-rules row): not the page, a note, or a definition's line
    (the code's index finds those)."""
    return bool(fragment) and not fragment.startswith("note-") and not _LINE.match(fragment)


def _first_sentence(text: str) -> str:
    """A note's title: its first sentence, or its first words."""
    m = _SENTENCE.match(text)
    return m.group(1) if m and len(m.group(1)) <= 120 else text[:100].rsplit(" ", 1)[0] + "…"


def _sections(page_html: str) -> list[tuple[str, str, str]]:
    """(heading id, heading, text) of each section of the page's indexed HTML (`pages.with_prose`:
    its first and last blocks); the text before the first heading as ('', '', text)."""
    indexed = "\n".join(_indexed(page_html))
    out: list[tuple[str, str, str]] = []
    at, anchor, title = 0, "", ""
    for m in _SECTION.finditer(indexed):
        out.append((anchor, title, _plain(searchable(indexed[at:m.start()], TEXT_CHARS))))
        at, anchor, title = m.end(), m.group(2), _plain(m.group(3))
    out.append((anchor, title, _plain(searchable(indexed[at:], TEXT_CHARS))))
    return [s for s in out if s[0] or s[2]]


_OPEN, _CLOSE = INDEXED.split("{}")


def _indexed(page_html: str) -> list[str]:
    """The prose `with_prose` put before and after a page's body."""
    out = []
    if page_html.startswith(_OPEN):
        out.append(page_html[len(_OPEN):page_html.index(_CLOSE)])
    tail = page_html.rfind("\n\n" + _OPEN)
    if tail >= 0 and page_html.endswith(_CLOSE):
        out.append(page_html[tail + 2 + len(_OPEN):-len(_CLOSE)])
    return out


def _plain(fragment: str) -> str:
    return " ".join(html.unescape(_TAG.sub("", _BREAK.sub(" ", fragment))).split())
