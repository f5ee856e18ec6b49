// @ts-check
// A code view's tables as reader/render/code.py writes them, in either of its two forms: a view's
// attributes (`data-c`: the token classes by index, space-separated; `data-t`: a link's title by
// its href, "href<TAB>title" a line) or a source page's paint script (`readerCode.put(key, {c, t,
// h, p, m})`: the same tables as JSON, each chunk's runs, the lines changed since the last
// edition as [first, last] spans). codeview.js paints with them. Pure: a page gets the global
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

  var api = {fromAttributes: fromAttributes, lineRuns: lineRuns, named: named, spanLines: spanLines};
  var node = typeof module === "object" ? module : null;  // not `module.exports`: tsc would read
  if (node) node.exports = api;                          // the script as a CommonJS module
  return api;
})();
