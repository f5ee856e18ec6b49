// The code view's tables (docs/assets/codetables.js) as reader/render/code.py writes them for the
// golden fixture: a source page's paint script (tests/golden/core.code.js, call.code.js) and an
// article's view attributes (golden-article.html), decoded with the token runs (runs.js).
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const T = require("../../docs/assets/codetables.js");
const runs = require("../../reader/assets/runs.js");
const {codeViews} = require("./golden.js");

/** Line number -> [text, its runs as [class name, length]] of a view. */
function painted(view) {
  const out = {};
  for (const chunk of view.chunks) {
    const specs = T.lineRuns(chunk.h);
    assert.strictEqual(specs.length, chunk.lines.length);  // a chunk's runs: one per line
    chunk.lines.forEach((line, i) => {
      out[+/\d+$/.exec(line.id)[0]] = [line.text, T.named(runs.decode(specs[i]), view.tables.c)];
    });
  }
  return out;
}

const [page] = codeViews("core.html"), [call] = codeViews("call.html");
const article = codeViews("golden-article.html");

test("a source page's view has its paint script; an article's views, their attributes", () => {
  assert.ok(page.paint && call.paint && article.every((v) => v.paint === null));
  assert.strictEqual(article.length, 2);  // core.py's lines, then call.py's
});

test("every line's runs cover its text, in UTF-16 units", () => {
  for (const view of [page, call, ...article]) {
    for (const [n, [text, named]] of Object.entries(painted(view))) {
      assert.strictEqual(named.reduce((sum, r) => sum + r[1], 0), text.length, `line ${n}: ${text}`);
    }
  }
});

test("runs name their token classes", () => {
  const lines = painted(page);
  assert.deepStrictEqual(lines[6], ["class BlockSpec:", [["k", 5], ["", 1], ["nc", 9], ["p", 1]]]);
  assert.deepStrictEqual(painted(call)[5][1].slice(0, 3), [["k", 3], ["", 1], ["nf", 11]]);  // def pallas_call
  assert.deepStrictEqual(T.named([[0, 2], [99, 1]], ["k"]), [["k", 2], ["", 1]]);  // a class past the table: none
});

test("both forms decode to the same highlighting and the same link titles", () => {
  const onPage = painted(page), inArticle = painted(article[0]);
  const shared = Object.keys(inArticle);
  assert.ok(shared.length >= 7, shared);
  for (const n of shared) assert.deepStrictEqual(inArticle[n], onPage[n], `line ${n}`);
  assert.strictEqual(page.tables.t["#L17"], "fixture.core.BlockMapping");
  assert.strictEqual(call.tables.t["core.py.html#L6"], "fixture.core.BlockSpec");
  assert.strictEqual(article[1].tables.t["../source/fixture/core.py.html#L6"], "fixture.core.BlockSpec");
  assert.strictEqual(article[0].tables.t["../source/fixture/core.py.html#uses-BlockSpec"], "where is this used?");
});

test("the attributes' forms: a title after its href's first tab, a pair a line", () => {
  assert.deepStrictEqual(T.fromAttributes("k  nf", "#a\tA title\n\nno tab\n#b\tB\twith a tab"),
    {c: ["k", "", "nf"], t: {"#a": "A title", "#b": "B\twith a tab"}});
  assert.deepStrictEqual(T.fromAttributes(null, null), {c: [""], t: {}});
});

test("the lines changed since the last edition, from their spans", () => {
  assert.deepStrictEqual(page.paint.m, []);  // the golden page has no previous edition
  assert.deepStrictEqual(T.spanLines([[3, 5], [9, 9]]), [3, 4, 5, 9]);
});

// A long file's rows as its part brings them (reader/render/code/view.py's split_code_view: a chunk's
// rows after each run mark, tests/test_view.py checks that shape), read for sizing before they are put in.
const ROWS = '<div id="L201" style="counter-reset:l 200">x = a &lt; b &amp;&amp; &quot;c&quot; &#x27;d&#x27;</div>' +
  '<div id="L202"><span class="rd-sym" id="f"></span>def <a href="#uses-f">f</a>(<a href="core.py.html#L6">g</a>):</div>' +
  '<div id="L203"></div>';

test("a chunk's rows give each row's text as the page shows it", () => {
  assert.deepStrictEqual(T.rowTexts(ROWS), ["x = a < b && \"c\" 'd'", "def f(g):", ""]);
  assert.deepStrictEqual(T.rowTexts(""), []);
});

test("a chunk's rows give their first line, on an article's prefixed ids too", () => {
  assert.strictEqual(T.firstLine(ROWS), 201);
  assert.strictEqual(T.firstLine('<div id="core-L12">x</div>'), 12);
  assert.strictEqual(T.firstLine(""), 0);
});
