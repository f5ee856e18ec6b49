// A source page's scopes (docs/assets/scopetable.js) as reader/render/scopes.py writes them for the
// golden fixture (tests/golden/core.code.js, the page's paint script), over the lines of its golden page.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const T = require("../../docs/assets/scopetable.js");
const {scopeRows, codeLines} = require("./golden.js");

const scopes = T.decode(scopeRows("core.code.js"));
const lines = codeLines("core.html");
const names = (list) => list.map((s) => s.qualname);

/** The lines where `name`, met at line `at` in role `as`, is marked (as scope.js marks it), and
 * the columns marked there. */
function marked(name, at, as = "name") {
  const where = as === "name" ? T.reach(scopes, name, at) : {from: 1, to: Infinity, skip: []}, out = [];
  for (const [n, text] of Object.entries(lines)) {
    if (!T.within(where, +n)) continue;
    for (const col of T.columns(text, name, as, T.header(scopes, +n))) out.push(`${n}:${col}`);
  }
  return out;
}

test("scopes.py's rows decode to scopes, a function's local names split", () => {
  assert.deepStrictEqual(scopes[1], {start: 13, end: 14, kind: "f", qualname: "BlockSpec.to_block_mapping",
                                     names: ["grid", "self"], body: 14});
  assert.deepStrictEqual(scopes[0].names, []);  // a class: none
  assert.deepStrictEqual(names(scopes), ["BlockSpec", "BlockSpec.to_block_mapping", "BlockMapping", "BlockMapping.__init__"]);
});

test("a line's scopes, outermost first, as the sticky line names them", () => {
  assert.deepStrictEqual(names(T.chain(scopes, 14)), ["BlockSpec", "BlockSpec.to_block_mapping"]);
  assert.deepStrictEqual(T.chain(scopes, 14).map(T.label), ["class BlockSpec", "def to_block_mapping"]);
  assert.deepStrictEqual(names(T.chain(scopes, 11)), ["BlockSpec"]);
  assert.deepStrictEqual(names(T.chain(scopes, 6)), ["BlockSpec"]);  // the class line itself
  assert.deepStrictEqual(T.chain(scopes, 15), []);  // module level
  assert.deepStrictEqual(T.chain(scopes, 24), []);
  assert.ok(T.same(scopes, 13, 14) && T.same(scopes, 15, 2) && !T.same(scopes, 11, 13));
});

test("a function's local is marked in its function only, not as another object's attribute", () => {
  assert.deepStrictEqual(T.reach(scopes, "spec", 20), {from: 19, to: 21, skip: [], local: true});
  // `self.spec = spec`: the local, not the attribute; not BlockSpec's lines
  assert.deepStrictEqual(marked("spec", 20), [`19:${lines[19].indexOf("spec")}`, `20:${lines[20].lastIndexOf("spec")}`]);
  assert.deepStrictEqual(marked("grid", 14), [`13:${lines[13].indexOf("grid")}`, `14:${lines[14].indexOf("grid")}`]);  // not __init__'s
});

test("any other name is marked in the whole file, less the functions that bind it again", () => {
  const where = T.reach(scopes, "grid", 2);  // met at module level
  assert.strictEqual(where.local, false);
  assert.deepStrictEqual(names(where.skip), ["BlockSpec.to_block_mapping", "BlockMapping.__init__"]);
  assert.deepStrictEqual(marked("grid", 2), []);
  assert.deepStrictEqual(marked("BlockMapping", 14), ["14:11", "17:6"]);
  assert.deepStrictEqual(marked("spec", 6), []);  // `self.spec` is __init__'s, where spec is local
  assert.deepStrictEqual("xBlockSpec BlockSpec_ BlockSpec.x".match(T.pattern("BlockSpec", false)), ["BlockSpec"]);
});

test("a name's role where it is met: a name, another object's attribute, a call's keyword", () => {
  const text = "    return f(block_shape=block_shape, x=self.block_shape) == y.block_shape";
  const at = (k) => text.indexOf("block_shape", k);
  assert.strictEqual(T.role(text, at(0), "block_shape", false), "keyword");
  assert.strictEqual(T.role(text, at(0), "block_shape", true), "name");  // a def's parameter
  assert.strictEqual(T.role(text, at(at(0) + 1), "block_shape", false), "name");
  assert.strictEqual(T.role(text, text.indexOf("self.") + 5, "block_shape", false), "attr");
  assert.deepStrictEqual(T.columns(text, "block_shape", "name", false), [at(at(0) + 1)]);
  assert.deepStrictEqual(T.columns(text, "block_shape", "attr", false), [text.indexOf("self.") + 5, text.lastIndexOf("block_shape")]);
  // At a line's start: `a=b` continues a call's keywords; `a = b` assigns.
  assert.strictEqual(T.role("      block_shape=block_shape,", 6, "block_shape", false), "keyword");
  assert.strictEqual(T.role("  block_shape = (8, 128)", 2, "block_shape", false), "name");
  assert.strictEqual(T.role("  if x == block_shape:", 10, "block_shape", false), "name");
});

test("a local is marked without the attributes and keywords that share its name", () => {
  // `grid` in to_block_mapping: line 14's argument, not `self.grid` (line 21) nor __init__'s.
  assert.deepStrictEqual(marked("grid", 14), [`13:${lines[13].indexOf("grid")}`, `14:${lines[14].indexOf("grid")}`]);
  // met as `self.grid`: the attribute, wherever it is read
  assert.deepStrictEqual(marked("grid", 21, "attr"), [`21:${lines[21].indexOf("grid")}`]);
  assert.ok(T.header(scopes, 19) && !T.header(scopes, 20));  // __init__'s def line, then its body
});
