// Search's query and matching (docs/assets/query.js) on the index that reader/render/searchindex.py
// writes for the golden fixture (tests/golden/index.search.js).
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const Q = require("../../docs/assets/query.js");
const {searchPieces} = require("./golden.js");

const pieces = searchPieces();
const files = pieces.files.files;
const code = {}, text = {};
for (const key of Object.keys(pieces)) {
  if (key.startsWith("code/")) code[key.slice(5)] = pieces[key];
  if (key.startsWith("text/")) text[+key.slice(5)] = pieces[key];
}
const lineOf = (h) => Q.lineText(pieces, h[0], h[1]);
const docText = (id) => { const d = Q.doc(pieces, id); return d[1] + " " + d[3]; };

/** What search.js's `run` lists for a query: definitions, the other lines, the documents. */
function results(typed) {
  const query = Q.parse(typed);
  const defs = Q.definitions(query, code, files);
  const lines = Q.codeLines(query, code);
  return {query, defs, lines, uses: Q.uses(defs, lines || []), docs: Q.proseDocs(query, text)};
}

const BARE = {pattern: null, files: [], only: "", error: ""};

test("a query's words, its phrase, a quoted phrase and a dotted name", () => {
  assert.deepStrictEqual(Q.parse('  "Wait with  no\tmatching"  '),
    {text: "Wait with  no\tmatching", phrase: "wait with no matching", words: ["wait", "with", "no", "matching"],
     quoted: true, name: "", ...BARE});
  assert.deepStrictEqual(Q.parse("spec spec Spec"), {text: "spec spec Spec", phrase: "spec spec spec",
    words: ["spec"], quoted: false, name: "", ...BARE});
  assert.strictEqual(Q.parse(" BlockSpec.to_block_mapping ").name, "BlockSpec.to_block_mapping");
  assert.strictEqual(Q.parse("pl.BlockSpec(").name, "");
});

test("the pieces a query needs are the ones the index has: its words' code and prose pieces", () => {
  const have = new Set(pieces.files.code.split(" "));
  assert.deepStrictEqual([...have].sort(), Object.keys(code).sort());  // the `files` piece lists them all
  assert.deepStrictEqual(Q.piecesFor(Q.parse("BlockSpec block mapping"), have),
    {prefixes: ["blo"], shards: [...new Set(["blockspec", "block", "mapping"].map(Q.textShard))]});
  assert.strictEqual(Object.keys(text).length, Q.TEXT_SHARDS);
  for (const [n, shard] of Object.entries(text)) {  // searchindex.py's text_shard is textShard
    for (const word of Object.keys(shard)) assert.strictEqual(Q.textShard(word), +n, word);
  }
  assert.deepStrictEqual([Q.linesKey(1, 1), Q.linesKey(1, Q.CHUNK), Q.linesKey(1, Q.CHUNK + 1)],
    ["lines/1/0", "lines/1/0", "lines/1/1"]);
  assert.deepStrictEqual([Q.docsKey(0), Q.docsKey(Q.BUCKET)], ["docs/0", "docs/1"]);
});

test("every word's postings are lines that hold it, and its documents hold it too", () => {
  let checked = 0;
  for (const [prefix, piece] of Object.entries(code)) {
    for (const [word, spec] of Object.entries(piece.t)) {
      assert.strictEqual(word.slice(0, 3), prefix);
      for (const h of Q.postings(spec)) {
        assert.ok(Q.words(lineOf(h)).includes(word), `${word} at ${h}: ${lineOf(h)}`);
        checked++;
      }
    }
  }
  for (const shard of Object.values(text)) {
    for (const [word, spec] of Object.entries(shard)) {
      for (const id of Q.docIds(spec)) assert.ok(Q.words(docText(id)).includes(word), `${word} in ${id}`);
    }
  }
  assert.ok(checked > 50, checked);
  assert.deepStrictEqual(Q.postings(code.blo.t.blockspec), [[0, 6], [1, 2], [1, 5]]);
});

test("a name's definition comes first, once, and its uses after it", () => {
  const got = results("BlockSpec");
  assert.deepStrictEqual(got.defs.map((d) => [d.url, d.kind, d.title, d.where]),
    [["source/fixture/core.py.html#L6", "class", "BlockSpec", "fixture/core.py:6"]]);
  assert.deepStrictEqual(got.lines, [[0, 6], [1, 2], [1, 5]]);
  assert.deepStrictEqual(got.uses, [[1, 2], [1, 5]]);
  assert.strictEqual(lineOf(got.uses[0]), "from fixture.core import BlockSpec");
  assert.deepStrictEqual(got.docs, [2, 4]);  // the article and its note name it
});

test("a dotted name keeps the definitions whose qualname ends with it", () => {
  assert.deepStrictEqual(results("BlockSpec.to_block_mapping").defs.map((d) => [d.where, d.kind, d.text]),
    [["fixture/core.py:13", "method", "to_block_mapping(self, grid)"]]);
  assert.deepStrictEqual(results("blockspec.TO_BLOCK_MAPPING").defs.length, 1);
  assert.deepStrictEqual(results("BlockMapping.to_block_mapping").defs, []);
});

test("definitions rank the name as typed first, then classes, functions, methods, variables", () => {
  const rows = Object.values(code).flatMap((piece) => Object.values(piece.d).flat());
  const kinds = rows.map((d) => d[2]);
  assert.ok(["class", "function", "method", "variable"].every((k) => kinds.includes(k)), kinds);
  const all = {all: {t: {}, d: {all: rows.map((d) => [d[0], d[1], d[2], d[3] + ".all", d[4]])
    .concat([[1, 6, "variable", "All", ""]])}}};  // one written as typed, another case
  assert.deepStrictEqual(Q.definitions(Q.parse("all"), all, files).map((d) => d.kind + " " + d.where),
    ["class fixture/core.py:6", "class fixture/core.py:17", "function fixture/call.py:5",
     "method fixture/core.py:13", "variable fixture/core.py:24", "variable fixture/call.py:6"]);
});

test("lines hold every word; the last word typed in part stands for the words it begins", () => {
  assert.deepStrictEqual(results("blockspec pallas_call").lines, [[1, 5]]);
  assert.deepStrictEqual(results("pallas_call blocksp").lines, [[1, 5]]);
  assert.deepStrictEqual(results("blocksp pallas_call").lines, []);  // only the last word
  assert.deepStrictEqual(results('"pallas_call blocksp"').lines, []);  // quoted: words as written
  assert.deepStrictEqual(results("zzz").lines, []);
  assert.strictEqual(Q.codeLines(Q.parse("self"), {sel: {t: {self: 2001}, d: {}}}), null);  // all too common
});

test("the phrase's matches rank first; a quoted phrase keeps only them", () => {
  const loose = results("core import"), quoted = results('"core import"');
  assert.deepStrictEqual(loose.lines, [[1, 1], [1, 2]]);
  assert.deepStrictEqual(Q.rank(loose.lines, loose.query, lineOf), [[1, 2], [1, 1]]);
  assert.deepStrictEqual(Q.rank(quoted.lines, quoted.query, lineOf), [[1, 2]]);
  assert.ok(Q.hasPhrase("from fixture.CORE   import BlockSpec", loose.query));
  const note = results('"a spec is frozen"');
  assert.deepStrictEqual(Q.rank(note.docs, note.query, docText), [4]);
  const shuffled = results('"frozen spec"');
  assert.deepStrictEqual(shuffled.docs, [4]);
  assert.deepStrictEqual(Q.rank(shuffled.docs, shuffled.query, docText), []);
  const one = results("BlockSpec");  // one word: the order of the index
  assert.strictEqual(Q.rank(one.docs, one.query, docText), one.docs);
});

test("a result marks the words from a word's start, or the quoted phrase; the excerpt holds the match", () => {
  const marked = (typed, s) => s.match(Q.marks(Q.parse(typed))) || [];
  assert.deepStrictEqual(marked("spec blockspec", "pallas_call(kernel, spec: BlockSpec) xspec"), ["spec", "BlockSpec"]);
  assert.deepStrictEqual(marked('"core import"', "from fixture.core import BlockSpec"), ["core import"]);
  assert.deepStrictEqual(marked('"a.b("', "xa.b(c) a.b("), ["a.b("]);  // as written, from a word's start
  assert.strictEqual(Q.marks(Q.parse('""')), null);
  const long = "x ".repeat(200) + "A spec is frozen." + " y".repeat(200);
  const excerpt = Q.excerpt(long, Q.parse('"spec is frozen"'));
  assert.ok(excerpt.startsWith("…") && excerpt.endsWith("…") && excerpt.includes("A spec is frozen."), excerpt);
  assert.strictEqual(Q.excerpt(docText(4), Q.parse("frozen")), docText(4));
});

test("filters: file: (any of them, a part of the path or a glob), in:code, in:notes; a bad one says why", () => {
  const q = Q.parse('BlockSpec file:Core.py in:notes "file:kept" file:mosaic/*.py');
  assert.deepStrictEqual([q.text, q.name, q.files, q.only, q.error],
    ['BlockSpec   "file:kept"', "", ["core.py", "mosaic/*.py"], "notes", ""]);
  assert.deepStrictEqual([Q.parse("x in:code").only, Q.parse("x in:note").only], ["code", "notes"]);
  assert.match(Q.parse("x in:files").error, /in: takes code or notes/);
  assert.match(Q.parse("x file:").error, /file: needs/);
  assert.deepStrictEqual(Q.filesIn(Q.parse("file:CALL"), files), [1]);
  assert.deepStrictEqual(Q.filesIn(Q.parse("file:fixture/*.py"), files), [0, 1]);
  assert.ok(!Q.inFiles(["pallas/*.py"], "jax/_src/pallas/mosaic/lowering.py"));
  assert.ok(Q.inFiles(["pallas/**.py"], "jax/_src/pallas/mosaic/lowering.py"));
  assert.ok(Q.inFiles(["mosaic/l?wering"], "jax/_src/pallas/mosaic/lowering.py"));
});

test("a pattern: its flags, its errors, and the words a matching line must hold", () => {
  const q = Q.parse("file:core.py /def _.*_lowering_rule/i");
  assert.deepStrictEqual([q.pattern.source, q.pattern.flags, q.files, q.words], ["def _.*_lowering_rule", "i", ["core.py"], []]);
  assert.match(Q.parse("/[abc/").error, /^Not a regular expression: .*Unterminated character class/);
  assert.match(Q.parse("/abc/g").error, /flags are i, m, s or u/);
  const needs = (p) => Q.patternWords(Q.parse(p).pattern).map((w) => (w.exact ? "=" : "^") + w.word);
  assert.deepStrictEqual(needs("/def _.*_lowering_rule/"), []);  // no word begins for sure: none looked up
  assert.deepStrictEqual(needs("/^def _pallas_call/"), ["=def", "^_pallas_call"]);
  assert.deepStrictEqual(needs("/pl\\.program_id\\(\\d\\)/"), ["=program_id"]);
  assert.deepStrictEqual(needs("/\\bBlockSpec\\(/"), ["=blockspec"]);
  assert.deepStrictEqual(needs("/x?abcd efgh*/"), ["^efg"]);  // h optional: efg begins a word
  assert.deepStrictEqual(needs("/ab+cd efg/"), ["^efg"]);  // cd follows b+ inside a word
  assert.deepStrictEqual(needs("/[)]foo (bar) baz\\s/"), ["=baz"]);
  assert.deepStrictEqual(needs("/\\bone|two/"), []);  // either side may match
});

test("a pattern's lines: those holding its words, each matched; none needed, none listed", () => {
  const pattern = (typed) => {
    const query = Q.parse(typed), lines = Q.patternLines(query, code);
    return [lines, (lines || []).filter((h) => Q.matchesPattern(query, lineOf(h)))];
  };
  assert.deepStrictEqual(pattern("/\\bBlockSpec\\b/"), [[[0, 6], [1, 2], [1, 5]], [[0, 6], [1, 2], [1, 5]]]);
  assert.deepStrictEqual(pattern("/^class Block/"), [[[0, 6], [0, 17]], [[0, 6], [0, 17]]]);
  assert.deepStrictEqual(pattern("/\\bBlockSpec:$/")[1], [[0, 6]]);
  assert.deepStrictEqual(pattern("/lock/"), [null, []]);  // the index cannot say: search.js reads a file
  const every = (typed) => Array.from({length: files[0][1]}, (_, i) => [0, i + 1])
    .filter((h) => Q.matchesPattern(Q.parse(typed), lineOf(h)));
  assert.deepStrictEqual(every("/def \\w+_block_\\w+\\(/"), [[0, 13]]);
  assert.deepStrictEqual(String(Q.marks(Q.parse("/Block\\w+/i"))), "/Block\\w+/gi");
});

test("nothing found: the closest word the index knows, written as its definition is", () => {
  const have = new Set(pieces.files.code.split(" "));
  assert.strictEqual(Q.distance("blokspec", "blockspec", 2), 1);
  assert.strictEqual(Q.distance("blcokspec", "blockspec", 2), 1);  // two letters swapped: one slip
  assert.strictEqual(Q.distance("abcdef", "uvwxyz", 2), 3);  // past the most: most + 1
  assert.deepStrictEqual(Q.nearPrefixes("bolckspec", have), ["blo"]);  // its own piece missing, a swap's
  assert.deepStrictEqual(Q.nearPrefixes("blokspec", have), ["blo"]);
  assert.strictEqual(Q.closest("blokspec", [code.blo], []), "BlockSpec");
  assert.strictEqual(Q.closest("blockmaping", [code.blo], []), "BlockMapping");
  assert.strictEqual(Q.closest("blo", [code.blo], []), null);  // a short word: one slip at most
  assert.strictEqual(Q.closest("frozn", [], [text[Q.textShard("frozen")]]), "frozen");
  assert.strictEqual(Q.respelled("BlokSpec file:core.py", {blokspec: "BlockSpec"}), "BlockSpec file:core.py");
});

test("an excerpt is cut between words, its match inside", () => {
  const text = "word ".repeat(20) + "the comment points at the line " + "more ".repeat(60);
  const cut = Q.excerpt(text, Q.parse("points"));
  assert.ok(cut.startsWith("…word ") && cut.endsWith("more…") && cut.includes("the comment points at"), cut);
  const long = "an_unbroken_name_".repeat(30) + " points";
  assert.ok(Q.excerpt(long, Q.parse("points")).includes("points"));
});

test("a pattern no word finds: the pieces of lines holding its letters' triples, every line of them matched", () => {
  assert.deepStrictEqual(Q.patternRuns(Q.parse("/def _.*_lowering_rule/").pattern), ["def", "_lowering_rule"]);
  assert.deepStrictEqual(Q.patternTriples(Q.parse("/lowering_rule/").pattern),
    ["low", "owe", "wer", "eri", "rin", "ing", "ng_", "g_r", "_ru", "rul", "ule"]);
  assert.deepStrictEqual(Q.patternTriples(Q.parse("/(lowering)|x/").pattern), []);  // nothing required
  const lines = (typed) => {
    const query = Q.parse(typed);
    const found = Q.triplePieces(Q.patternTriples(query.pattern).map((t) => pieces["tri/" + t] ?? null));
    return found && Q.piecesLines(found, files, () => true).filter((h) => Q.matchesPattern(query, lineOf(h)));
  };
  // "lock" inside BlockSpec: no word of the index begins with it, the triples find it
  const every = Array.from({length: files.length}, (_, f) => Array.from({length: files[f][1]}, (_, i) => [f, i + 1])).flat();
  assert.deepStrictEqual(lines("/lockSpec/"), every.filter((h) => /lockSpec/.test(lineOf(h))));
  assert.ok(lines("/lockSpec/").length >= 3 && new Set(lines("/lockSpec/").map((h) => h[0])).size === 2);
  assert.deepStrictEqual(lines("/qqqzzz/"), []);  // a triple no line holds
  assert.deepStrictEqual(Q.pieceStarts([["a", 250], ["b", 0], ["c", 100]]), [0, 3, 3, 4]);
  assert.deepStrictEqual(Q.piecesLines([3], [["a", 250], ["b", 0], ["c", 100]], () => true).slice(0, 2), [[2, 1], [2, 2]]);
});

test("a quoted phrase as a substring pattern: escaped, blanks as runs, any case", () => {
  const q = Q.substring(Q.parse('"owering_ru (x.y)  z"'));
  assert.deepStrictEqual([q.pattern.source, q.pattern.flags], ["owering_ru\\s+\\(x\\.y\\)\\s+z", "i"]);
  assert.match(Q.parse("in:notes /abc/").error, /in:notes takes words/);
});

test("a dotted name through a module's alias lands on the one definition it names", () => {
  const row = code.blo.d.blockspec[0];
  const aliased = {blo: {t: code.blo.t, d: code.blo.d, q: {"pl.blockspec": row}}};
  assert.deepStrictEqual(Q.definitions(Q.parse("pl.BlockSpec"), aliased, files).map((d) => d.where), ["fixture/core.py:6"]);
  assert.deepStrictEqual(Q.definitions(Q.parse("pl.BlockSpec"), code, files), []);  // no alias known: the qualname's
});

test("a pattern's candidate lines are read across the files: each one's first pack first", () => {
  const lines = [[0, 1], [0, 2], [0, 150], [0, 301], [3, 5], [3, 120], [7, 9]];
  const piece = (h) => Math.floor((h[1] - 1) / 100);
  assert.deepStrictEqual(Q.acrossFiles(lines, piece), [[0, 1], [0, 2], [3, 5], [7, 9], [0, 150], [3, 120], [0, 301]]);
  assert.deepStrictEqual(Q.inOrder(Q.acrossFiles(lines, piece)), lines);
  const pack = (h) => (h[0] === 0 && h[1] < 200 ? "a" : h[0] + ":" + piece(h));  // file 0's first two pieces in one pack
  assert.deepStrictEqual(Q.acrossFiles(lines, pack), [[0, 1], [0, 2], [0, 150], [3, 5], [7, 9], [0, 301], [3, 120]]);
});
