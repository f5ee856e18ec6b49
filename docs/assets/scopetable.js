// @ts-check
// A source file's scopes (reader/render/scopes.py writes them; scope.js shows them): which classes
// and functions enclose a line, and the lines where a name means what it means at a line (a
// local's function, less the functions inside it that bind the name again; any other name's file,
// less the functions that bind it). Pure: a page gets the global `readerScopeTable` (a classic
// script's `var`); node, the tests (tests/js/scopetable.test.js), `require` it.
/* exported readerScopeTable */
/** @typedef {{start: number, end: number, kind: string, qualname: string, names: string[]}} Scope */
var readerScopeTable = (function () {
  /** scopes.py's rows, [start, end, kind, qualname, "local names"], as scopes.
   * @param {[number, number, string, string, string][]} rows @returns {Scope[]} */
  function decode(rows) {
    return rows.map(function (s) {
      return {start: s[0], end: s[1], kind: s[2], qualname: s[3], names: s[4] ? s[4].split(" ") : []};
    });
  }

  /** The scopes holding line n, outermost first. @param {Scope[]} scopes @param {number} n */
  function chain(scopes, n) {
    return scopes.filter(function (s) { return s.start <= n && n <= s.end; });
  }

  /** Whether lines a and b are in the same scopes. @param {Scope[]} scopes @param {number} a @param {number} b */
  function same(scopes, a, b) {
    var x = chain(scopes, a), y = chain(scopes, b);
    return x.length === y.length && x.every(function (s, i) { return s === y[i]; });
  }

  /** How the sticky line names a scope. @param {Scope} scope */
  function label(scope) {
    return (scope.kind === "c" ? "class " : "def ") + scope.qualname.split(".").pop();
  }

  /**
   * Where `name`, met at `line`, means the same thing: lines `from` to `to` less those of the
   * scopes in `skip`; `local` when the innermost function binding it holds the line (then an
   * attribute `x.name` is another name).
   * @param {Scope[]} scopes @param {string} name @param {number} line
   */
  function reach(scopes, name, line) {
    /** @type {Scope | null} */
    var local = null;
    chain(scopes, line).forEach(function (s) { if (s.kind === "f" && s.names.indexOf(name) >= 0) local = s; });
    var skip = scopes.filter(function (s) {  // scopes where the name means another thing
      return s !== local && s.kind === "f" && s.names.indexOf(name) >= 0 &&
        (!local || (local.start < s.start && s.end <= local.end));
    });
    return {from: local ? local.start : 1, to: local ? local.end : Infinity, skip: skip, local: !!local};
  }

  /** Whether line n is in a reach. @param {{from: number, to: number, skip: Scope[]}} where @param {number} n */
  function within(where, n) {
    return n >= where.from && n <= where.to && !where.skip.some(function (s) { return s.start <= n && n <= s.end; });
  }

  /** The name's occurrences in a line's text (global). @param {string} name @param {boolean} local */
  function pattern(name, local) {
    return new RegExp((local ? "(?<![A-Za-z0-9_.])" : "(?<![A-Za-z0-9_])") + name + "(?![A-Za-z0-9_])", "g");
  }

  var api = {decode: decode, chain: chain, same: same, label: label, reach: reach, within: within, pattern: pattern};
  var node = typeof module === "object" ? module : null;  // not `module.exports`: tsc would read
  if (node) node.exports = api;                          // the script as a CommonJS module
  return api;
})();
