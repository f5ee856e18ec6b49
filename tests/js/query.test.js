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

test("a query's words, its phrase, a quoted phrase and a dotted name", () => {
  assert.deepStrictEqual(Q.parse('  "Wait with  no\tmatching"  '),
    {text: "Wait with  no\tmatching", phrase: "wait with no matching", words: ["wait", "with", "no", "matching"],
     quoted: true, name: ""});
  assert.deepStrictEqual(Q.parse("spec spec Spec"), {text: "spec spec Spec", phrase: "spec spec spec",
    words: ["spec"], quoted: false, name: ""});
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
