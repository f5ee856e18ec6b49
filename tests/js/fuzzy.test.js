// The file finder's matching (docs/assets/fuzzy.js) over the site's real file list: the pinned
// files of pins.lock that the track reads (finder.js lists the pins' `context` after them), which
// search's `files` piece lists for the finder.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const F = require("../../docs/assets/fuzzy.js");

const PINS = fs.readFileSync(path.join(__dirname, "..", "..", "pins.lock"), "utf8");
const TOML = fs.readFileSync(path.join(__dirname, "..", "..", "pins.toml"), "utf8");
const context = new Set([...(/^context = \[([^\]]*)\]/m.exec(TOML) || ["", ""])[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]));
const paths = [...PINS.matchAll(/^"([^"]+\.py)" = "[0-9a-f]{40}"$/gm)].map((m) => m[1]).filter((p) => !context.has(p));

function holdsInOrder(p, letters) {
  let at = -1;
  for (const ch of letters) if ((at = p.indexOf(ch, at + 1)) < 0) return false;
  return true;
}

test("the pinned files are the list", () => {
  assert.ok(paths.length > 500 && paths.includes("jax/_src/pallas/core.py"), paths.length);
  assert.ok(context.size > 100 && !paths.includes("jax/_src/core.py"), context.size);
});

test("a path matches when it holds the letters typed, in order and near, any case, blanks aside", () => {
  for (const typed of ["core", "tpu/pr", "flash attention", "Lowering.PY"]) {
    const letters = typed.toLowerCase().replace(/\s+/g, "");
    const found = F.find(paths, typed);
    assert.ok(found.length > 0 && found.every((p) => holdsInOrder(p.toLowerCase(), letters)), typed);
    assert.deepStrictEqual(found.filter((p) => F.score(p.toLowerCase(), letters) < 0), [], typed);
  }
  // c, o, r, e there, but scattered over 30 characters: no match
  assert.ok(holdsInOrder("jax/_src/pallas/mosaic/interpret/params.py", "core"));
  assert.ok(!F.find(paths, "core").includes("jax/_src/pallas/mosaic/interpret/params.py"));
  assert.deepStrictEqual(F.find(paths, "Core.PY"), F.find(paths, "core.py"));
  assert.deepStrictEqual(F.find(paths, "zzzq"), []);
  assert.deepStrictEqual(F.find(paths, "  "), paths);  // nothing typed: all, in their order
  assert.strictEqual(F.score("jax/core.py", "xq"), -1);
});

test("the file name starting with the letters ranks first, the shorter path first among them", () => {
  assert.deepStrictEqual(F.find(paths, "core").slice(0, 4), ["jax/_src/pallas/core.py", "jax/_src/pallas/mosaic/core.py",
    "jax/_src/pallas/triton/core.py", "jax/_src/pallas/mosaic_gpu/core.py"]);
  assert.strictEqual(F.find(paths, "pallas core")[0], "jax/_src/pallas/core.py");
  assert.strictEqual(F.find(paths, "mosaic lowering")[0], "jax/_src/pallas/mosaic/lowering.py");
  assert.ok(F.score("a/lowering.py", "low") > F.score("low/a_lowering.py", "low"));  // the file name's letters
  assert.ok(F.score("a/flash.py", "fla") > F.score("a/f_l_a.py", "fla"));  // letters together
});
