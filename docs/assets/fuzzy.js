// @ts-check
// The file finder's matching (finder.js): a path matches when it holds the letters typed, in
// order, not too far apart (each letter skipped costs); it ranks higher for letters in its file
// name, letters together, the file name starting with them, and a shorter path. Pure: a page gets the global `readerFuzzy` (a classic script's
// `var`); node, the tests (tests/js/fuzzy.test.js), `require` it.
/* exported readerFuzzy */
var readerFuzzy = (function () {
  /** A path's score for the letters typed (both lowercase): -1 when it lacks them, below 0 when
   * they are scattered far apart.
   * @param {string} path @param {string} query */
  function score(path, query) {
    var name = path.lastIndexOf("/") + 1, at = -1, total = 0, run = 0;
    for (var i = 0; i < query.length; i++) {
      var next = path.indexOf(query[i], at + 1);
      if (next < 0) return -1;
      run = next === at + 1 ? run + 1 : 0;
      total += (next >= name ? 2 : 0) + run * 3 - (next - at - 1) * 0.01;
      at = next;
    }
    if (path.slice(name).indexOf(query) === 0) total += 20;
    return total - path.length * 0.001;
  }

  /** The paths matching what was typed (any case, blanks aside), best first; all of them, in
   * their order, when nothing was. @param {string[]} paths @param {string} typed @returns {string[]} */
  function find(paths, typed) {
    var query = typed.toLowerCase().replace(/\s+/g, "");
    /** @type {[string, number][]} */
    var found = paths.map(function (p) { return [p, query ? score(p.toLowerCase(), query) : 0]; });
    found = found.filter(function (x) { return x[1] >= 0; });
    if (query) found.sort(function (a, b) { return b[1] - a[1]; });
    return found.map(function (x) { return x[0]; });
  }

  var api = {score: score, find: find};
  var node = typeof module === "object" ? module : null;  // not `module.exports`: tsc would read
  if (node) node.exports = api;                          // the script as a CommonJS module
  return api;
})();
