// The references lists (docs/assets/refs.js) over reader/render/uses.py's data for the golden
// fixture (tests/golden/core.code.js): the definition first, then each file's uses with their
// lines of code and links, then the notes citing it.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const R = require("../../docs/assets/refs.js");
const {usesData} = require("./golden.js");

const [page, data] = usesData("core.code.js");

test("a definition's list: its line, then its own file's uses, then the other files', each line linked", () => {
  const groups = R.groups(data, page, "BlockMapping");
  assert.deepStrictEqual(groups.map((g) => g.title), ["Definition", "fixture/core.py (this file)", "fixture/call.py"]);
  assert.deepStrictEqual(groups[0].rows, [{n: 17, code: "class BlockMapping:", href: "source/fixture/core.py.html#L17"}]);
  assert.deepStrictEqual(groups[1].rows, [{n: 14, code: "return BlockMapping(self, grid)", href: "source/fixture/core.py.html#L14"}]);
  assert.deepStrictEqual(groups[2].rows, [{n: 6, code: "return pallas_core.BlockMapping(spec, (1,))",
                                           href: "source/fixture/call.py.html#L6"}]);
});

test("the notes on a definition and those linking it close its list", () => {
  const notes = R.groups(data, page, "BlockSpec.to_block_mapping").pop();
  assert.strictEqual(notes.title, "Notes");
  assert.deepStrictEqual(notes.notes.map((n) => [n.href, n.title]), [
    ["articles/other-article.html#note-golden-mapping", "Another article"],  // on its lines
    ["articles/golden-article.html#note-golden-blockspec", "The golden article"],  // links it
  ]);
  assert.strictEqual(R.groups(data, page, "NoSuchName"), null);
  assert.deepStrictEqual(R.groups(data, page, "BlockSpec.block_shape").map((g) => g.title), ["Definition"]);
});

test("a use's name is marked as a whole word, an invisible character as a mark", () => {
  assert.deepStrictEqual(R.marks("x = BlockMapping(BlockMappings, BlockMapping)", "BlockMapping"), [[4, 16], [32, 44]]);
  assert.strictEqual(R.groups(data, page, "TROJAN")[0].rows[0].code, 'TROJAN = "access\u2423\u2423 granted"');
});
