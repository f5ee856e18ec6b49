// The token runs' decoder (reader/assets/runs.js), the one definition the Python side writes by.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const runs = require("../../reader/assets/runs.js");

test("class codes are bijective base 52 over LETTERS", () => {
  assert.strictEqual(runs.LETTERS.length, 52);
  assert.deepStrictEqual([0, 25, 26, 51, 52, 103, 104, 2755, 2756].map(runs.classCode),
    ["a", "z", "A", "Z", "aa", "aZ", "ba", "ZZ", "aaa"]);
  for (let i = 0; i < 3000; i++) assert.strictEqual(runs.classIndex(runs.classCode(i)), i);
});

test("a line's runs decode to [class index, UTF-16 length] pairs", () => {
  assert.deepStrictEqual(runs.decode("a4b12ba3Z1"), [[0, 4], [1, 12], [104, 3], [51, 1]]);
  assert.deepStrictEqual(runs.decode(""), []);
});

test("decode starts afresh on each line (its pattern's lastIndex)", () => {
  assert.deepStrictEqual(runs.decode("c2"), [[2, 2]]);
  assert.deepStrictEqual(runs.decode("c2"), [[2, 2]]);
});
