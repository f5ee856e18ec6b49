// The diff page's rows (docs/assets/diff.js): hunk heads, the hidden context between hunks, the two
// sides of the side-by-side view row for row, and where each change starts (what `n` and `p` visit).
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const D = require("../../docs/assets/diff.js");

test("a hunk head's numbers, and the context the hunks leave out in both files' numbers", () => {
  // tests/diff_project.py's core.py, v0 -> v1 (19 -> 26 lines), difflib's hunks with 3 lines of context
  const hunks = ["@@ -1,12 +1,18 @@", "@@ -15,5 +21,6 @@"].map(D.hunk);
  assert.deepStrictEqual(hunks[0], {oldStart: 1, oldLen: 12, newStart: 1, newLen: 18});
  assert.strictEqual(D.hunk("def f():"), null);
  assert.deepStrictEqual(D.gaps(hunks, 26), [
    {index: 0, lo: 1, hi: 0, shift: 0, below: true},  // nothing above the first hunk
    {index: 1, lo: 19, hi: 20, shift: 6, below: true},  // new lines 19-20 are old lines 13-14
    {index: 2, lo: 27, hi: 26, shift: 7, below: false},  // nothing after the last
  ]);
});

test("side by side: a removed line beside the line that replaced it, pads where a side has none", () => {
  const row = (cls, label, at) => ({cls, label, html: cls, spec: "", at});
  const rows = [row("rd-hunk", "", 1), row("rd-eq", "    3     3", 2), row("rd-del", "    4      -", 3),
                row("rd-add", "          4 +", 4), row("rd-add", "          5 +", 5), row("rd-eq rd-ctx", "    5     6", 6)];
  const [left, right] = D.sides(rows);
  assert.deepStrictEqual(left.map((s) => [s.cls, s.n]), [["rd-hunk", 0], ["rd-eq", 3], ["rd-del", 4], ["rd-pad", 0], ["rd-eq rd-ctx", 5]]);
  assert.deepStrictEqual(right.map((s) => [s.cls, s.n]), [["rd-hunk", 0], ["rd-eq", 3], ["rd-add", 4], ["rd-add", 5], ["rd-eq rd-ctx", 6]]);
  assert.strictEqual(left.length, right.length);
});

test("each change is visited once, at its first row", () => {
  assert.deepStrictEqual(D.changes(["rd-hunk", "rd-eq", "rd-del", "rd-add", "rd-eq", "rd-add", "rd-hunk", "rd-del"]), [2, 5, 7]);
  assert.deepStrictEqual(D.changes(["rd-eq rd-pad", "rd-del rd-pad"]), [1]);
});
