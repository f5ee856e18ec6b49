// The goldens that the Python side writes (tests/golden.py renders them; `python -m tests.golden`
// rewrites them and tests/test_render_golden.py checks them byte for byte), read as a page does.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");
const codeTables = require("../../docs/assets/codetables.js");

const GOLDEN = path.join(__dirname, "..", "golden");

/** Data made in the script's context, as this context's objects (deepStrictEqual compares prototypes). */
function own(data) { return JSON.parse(JSON.stringify(data)); }

/** Run a golden script (`readerSearch.put(...)`, `readerScopes.add(...)`) with `globals`. */
function run(name, globals) {
  vm.runInNewContext(fs.readFileSync(path.join(GOLDEN, name), "utf8"), globals, {filename: name});
}

/** The search index's pieces by key, as search.js's `put` receives them. */
function searchPieces() {
  const pieces = {};
  run("index.search.js", {readerSearch: {put: (key, data) => { pieces[key] = own(data); }}});
  return pieces;
}

/** A source page's script's calls, each doing nothing (a test replaces the one it reads). */
const PAGE = {readerCode: {put() {}}, readerScopes: {add() {}}, readerCards: {add() {}}, readerUses: {add() {}}};

/** The rows a source page's paint script (`core.code.js`) hands `readerScopes.add`. */
function scopeRows(name) {
  let rows = null;
  run(name, {...PAGE, readerScopes: {add: (file, data) => { rows = own(data); }}});
  return rows;
}

const ENTITIES = {amp: "&", lt: "<", gt: ">", quot: '"', "#x27": "'", "#39": "'", nbsp: "\u00a0"};
function unescape(html) { return html.replace(/&(amp|lt|gt|quot|#x27|#39|nbsp);/g, (m, e) => ENTITIES[e]); }

/** What a source page's paint script (`core.html`: `core.code.js`) hands `readerCode.put`. */
function paintData(name) {
  let data = null;
  run(name.replace(/\.html$/, ".code.js"), {...PAGE, readerCode: {put: (key, d) => { data = own(d); }}});
  return data;
}

/** A page's code views as codeview.js finds them (code.py writes them): each view's tables
 * (`data-c`, `data-t` read by codetables.js, or its paint script's), its paint script's data (null
 * for a view without `data-paint`) and its chunks, each with its token runs (`data-h`, or the
 * paint script's) and its lines' ids and text. */
function codeViews(name) {
  const html = fs.readFileSync(path.join(GOLDEN, name), "utf8");
  return html.split('<div class="rd-code').slice(1).map((part) => {
    const attr = (a) => { const m = new RegExp(` ${a}="([^"]*)"`).exec(part.slice(0, part.indexOf(">"))); return m && unescape(m[1]); };
    const paint = attr("data-paint") ? paintData(name) : null;
    const chunks = part.split('<div class="rd-k"').slice(1).map((chunk, i) => ({
      h: paint ? paint.h[i] : unescape(/data-h="([^"]*)"/.exec(chunk)[1]),
      lines: [...chunk.matchAll(/<div id="((?:[\w-]+-)?L\d+)"[^>]*>(.*?)<\/div>(?=<div id="(?:[\w-]+-)?L\d|<\/div>)/g)]
        .map((m) => ({id: m[1], text: unescape(m[2].replace(/<[^>]*>/g, ""))})),
    }));
    const tables = paint ? {c: paint.c, t: paint.t} : codeTables.fromAttributes(attr("data-c"), attr("data-t"));
    return {tables, paint, chunks};
  });
}

/** A golden page's lines of code, by number: the text of each `L<n>` row of its first view. */
function codeLines(name) {
  const out = {};
  for (const chunk of codeViews(name)[0].chunks) for (const line of chunk.lines) out[+line.id.slice(1)] = line.text;
  return out;
}

/** What a source page's script (`core.code.js`) hands `readerUses.add`: [page, data]. */
function usesData(name) {
  let out = null;
  run(name, {...PAGE, readerUses: {add: (page, data) => { out = [page, own(data)]; }}});
  return out;
}

module.exports = {searchPieces, scopeRows, codeViews, codeLines, usesData};
