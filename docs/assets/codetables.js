// @ts-check
// A code view's tables as reader/render/code.py writes them, in either of its two forms: a view's
// attributes (`data-c`: the token classes by index, space-separated; `data-t`: a link's title by
// its href, "href<TAB>title" a line) or a source page's paint script (`readerCode.put(key, {c, t,
// h, p, m})`: the same tables as JSON, each chunk's runs, the lines changed since the last
// edition as [first, last] spans), and a long file's rows as its part brings them. codeview.js
// paints with them. Pure: a page gets the global
// `readerCodeTables` (a classic script's `var`); node, the tests (tests/js/codetables.test.js),
// `require` it.
/* exported readerCodeTables */
/** @typedef {{c: string[], t: Object<string, string>}} CodeTables */
var readerCodeTables = (function () {
  /** The tables of a view's `data-c` and `data-t` attributes. @param {string | null} c
   * @param {string | null} t @returns {CodeTables} */
  function fromAttributes(c, t) {
    /** @type {Object<string, string>} */
    var titles = {};
    (t || "").split("\n").forEach(function (pair) {
      var tab = pair.indexOf("\t");
      if (tab > 0) titles[pair.slice(0, tab)] = pair.slice(tab + 1);
    });
    return {c: (c || "").split(" "), t: titles};
  }

  /** A chunk's runs (from its `data-h` or its paint script's `h`), a line's each. @param {string} h */
  function lineRuns(h) { return h.split(" "); }

  /** A line's decoded runs ([class index, length], runs.js's `decode`) with their classes' names
   * ('' for none). @param {[number, number][]} runs @param {string[]} classes @returns {[string, number][]} */
  function named(runs, classes) {
    return runs.map(function (run) { return [classes[run[0]] || "", run[1]]; });
  }

  /** The line numbers of [first, last] spans. @param {[number, number][]} spans @returns {number[]} */
  function spanLines(spans) {
    var out = [];
    spans.forEach(function (span) { for (var n = span[0]; n <= span[1]; n++) out.push(n); });
    return out;
  }

  var ENTITY = /&(amp|lt|gt|quot|#x27|#39);/g, CHARS = {amp: "&", lt: "<", gt: ">", quot: '"', "#x27": "'", "#39": "'"};
  /** The text of each row of a chunk's HTML (a long file's rows come so, code.py's
   * split_code_view: `<div id="L12">…</div>` a row, no element inside a row holds a div).
   * @param {string} html @returns {string[]} */
  function rowTexts(html) {
    return html.split("</div>").slice(0, -1).map(function (row) {
      return row.replace(/<[^>]*>/g, "").replace(ENTITY, function (m, name) { return CHARS[name]; });
    });
  }

  /** The first line of a chunk's HTML, by its first row's id (`L12`, `core-L12`); 0 when none.
   * @param {string} html */
  function firstLine(html) {
    var m = /^<div id="[^"]*?L(\d+)"/.exec(html);
    return m ? +m[1] : 0;
  }

  var api = {fromAttributes: fromAttributes, lineRuns: lineRuns, named: named, spanLines: spanLines,
             rowTexts: rowTexts, firstLine: firstLine};
  var node = typeof module === "object" ? module : null;  // not `module.exports`: tsc would read
  if (node) node.exports = api;                          // the script as a CommonJS module
  return api;
})();
