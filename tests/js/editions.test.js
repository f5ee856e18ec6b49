// The edition switch's line mapping (docs/assets/editions.js): a line of one edition's file to the
// other's, through the file's changes (reader/render/code/page.py's `assets/lines.js`,
// old [a, b) and new [c, d), 0-based), as difflib gives them for tests/diff_project.py's core.py.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const E = require("../../docs/assets/editions.js");

// v0 -> v1 of the demo's core.py: a line inserted after line 2, line 4 replaced by six, line 9 by
// one, lines 18-19 by three.
const BLOCKS = [[2, 2, 2, 3], [3, 4, 4, 10], [8, 9, 14, 15], [17, 19, 23, 26]];

test("an unchanged line maps to its number on the other side, both ways", () => {
  assert.deepStrictEqual(E.map(BLOCKS, 19, true), {line: 13, end: 13, how: "same"});  // def moved_fn
  assert.deepStrictEqual(E.map(BLOCKS, 13, false), {line: 19, end: 19, how: "same"});
  assert.deepStrictEqual(E.map(BLOCKS, 1, true), {line: 1, end: 1, how: "same"});
  assert.deepStrictEqual(E.map([], 566, true), {line: 566, end: 566, how: "same"});  // an unchanged file
});

test("a changed line maps to the lines its change replaced, an added one to the line before", () => {
  assert.deepStrictEqual(E.map(BLOCKS, 15, true), {line: 9, end: 9, how: "changed"});
  assert.deepStrictEqual(E.map(BLOCKS, 4, false), {line: 5, end: 10, how: "changed"});
  assert.deepStrictEqual(E.map(BLOCKS, 3, true), {line: 2, end: 2, how: "added"});  // NEW_CONSTANT
  assert.deepStrictEqual(E.map(BLOCKS, 24, true), {line: 18, end: 19, how: "changed"});
});
