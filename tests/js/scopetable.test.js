// A source page's scopes (docs/assets/scopetable.js) as reader/render/scopes.py writes them for the
// golden fixture (tests/golden/core.scopes.js), over the lines of its golden page.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const T = require("../../docs/assets/scopetable.js");
const {scopeRows, codeLines} = require("./golden.js");

const scopes = T.decode(scopeRows("core.scopes.js"));
const lines = codeLines("core.html");
const names = (list) => list.map((s) => s.qualname);

/** The lines where `name`, met at line `at`, is marked, and what is marked there. */
function marked(name, at) {
  const where = T.reach(scopes, name, at), out = [];
  for (const [n, text] of Object.entries(lines)) {
    if (!T.within(where, +n)) continue;
    for (const m of text.matchAll(T.pattern(name, where.local))) out.push(`${n}:${m.index}`);
  }
  return out;
}

test("scopes.py's rows decode to scopes, a function's local names split", () => {
  assert.deepStrictEqual(scopes[1], {start: 13, end: 14, kind: "f", qualname: "BlockSpec.to_block_mapping",
                                     names: ["grid", "self"]});
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
