// blame.js's pure part: a file's blame runs as lines, and what a line's blame says.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const B = require("../../docs/assets/blame.js");

const DATA = {r: ["0.9.2", "0.10.0", "0.10.2", "0.11.0", "0.12.0.1"], e: 2, c: [0, 1, 2, 3, 4], l: [2, 0, 4, 1, 3, 4, 1, 1, 2]};

test("runs become lines, each run's first marked", () => {
  assert.deepStrictEqual(B.lines(DATA.l), [
    {first: 0, last: 4, start: true}, {first: 0, last: 4, start: false},
    {first: 3, last: 4, start: true}, {first: 1, last: 2, start: true}]);
});

test("a line first read after the previous edition links its diff; one before says there is none", () => {
  const [oldest, , newer, gone] = B.lines(DATA.l);
  assert.deepStrictEqual(B.says(DATA, newer), {label: "0.11.0", diffed: true,
    title: "Reads as now in jax 0.11.0 to 0.12.0.1; read otherwise in 0.10.2. Its change: the diff of 0.10.2 to 0.12.0.1."});
  assert.strictEqual(B.says(DATA, oldest).label, "\u22640.9.2");
  assert.match(B.says(DATA, oldest).title, /0\.9\.2 is the oldest release read\)\.$/);
  const said = B.says(DATA, gone);
  assert.strictEqual(said.diffed, false);
  assert.strictEqual(said.title, "Reads as now in jax 0.10.0 to 0.10.2; changed in 0.11.0; read otherwise in 0.9.2. " +
    "No diff page for 0.10.0 here: the site's diffs compare 0.10.2 with 0.12.0.1.");
});

test("a file new in a release says no earlier release holds it", () => {
  const data = {...DATA, c: [3, 4]};
  assert.match(B.says(data, {first: 3, last: 4, start: true}).title, /\(the file is in no earlier release read\)/);
});
