// @ts-check
// A source file's scopes (reader/render/scopes.py writes them; scope.js shows them): which classes
// and functions enclose a line, and the lines where a name means what it means at a line (a
// local's function, less the functions inside it that bind the name again; any other name's file,
// less the functions that bind it), and a name's occurrences in a line's text as the role it was
// met in: a name, another object's attribute (`x.name`) or a call's keyword (`f(name=...)`). Pure: a page gets the global `readerScopeTable` (a classic
// script's `var`); node, the tests (tests/js/scopetable.test.js), `require` it.
/* exported readerScopeTable */
/** @typedef {{start: number, end: number, kind: string, qualname: string, names: string[], body: number}} Scope */
var readerScopeTable = (function () {
  /** scopes.py's rows, [start, end, kind, qualname, "local names", body], as scopes.
   * @param {[number, number, string, string, string, number?][]} rows @returns {Scope[]} */
  function decode(rows) {
    return rows.map(function (s) {
      return {start: s[0], end: s[1], kind: s[2], qualname: s[3], names: s[4] ? s[4].split(" ") : [],
              body: s[5] || s[0] + 1};
    });
  }

  /** Whether line n is in a def's header (its parameters: `name=` there binds, not a call's
   * keyword). @param {Scope[]} scopes @param {number} n */
  function header(scopes, n) {
    return scopes.some(function (s) { return s.kind === "f" && s.start <= n && n < s.body; });
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

  var KEYWORD_AFTER = /^\s*=(?!=)/, KEYWORD_BEFORE = /(?:[(,]\s*|^\s*)$/;

  /**
   * The role of `name` at column `col` of a line's `text`: `attr` after a dot (`x.name`, another
   * object's attribute), `keyword` a call's keyword argument (`f(name=...)`; not in a def's
   * `header`, where it is a parameter), else `name`.
   * @param {string} text @param {number} col @param {string} name @param {boolean} header
   */
  function role(text, col, name, header) {
    if (/\.\s*$/.test(text.slice(0, col))) return "attr";
    var after = text.slice(col + name.length), before = text.slice(0, col);
    if (!header && KEYWORD_AFTER.test(after) && KEYWORD_BEFORE.test(before) &&
        (/[(,]\s*$/.test(before) || /^=/.test(after))) return "keyword";  // at a line's start: `a=b`, not `a = b`
    return "name";
  }

  /** The columns where `name` occurs in a line's `text` in role `as` (`role`).
   * @param {string} text @param {string} name @param {string} as @param {boolean} header */
  function columns(text, name, as, header) {
    var out = [], m, re = pattern(name, false);
    while ((m = re.exec(text))) if (role(text, m.index, name, header) === as) out.push(m.index);
    return out;
  }

  var api = {decode: decode, chain: chain, same: same, label: label, reach: reach, within: within, pattern: pattern,
             header: header, role: role, columns: columns};
  var node = typeof module === "object" ? module : null;  // not `module.exports`: tsc would read
  if (node) node.exports = api;                          // the script as a CommonJS module
  return api;
})();
