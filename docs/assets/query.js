// @ts-check
// A search query and the index's pieces it reads (reader/render/searchindex.py writes them): the
// query's words and phrase, the pieces it needs, the lines and documents holding its words, the
// definitions ranked, the phrase's matches first. Pure: search.js loads the pieces and renders. A
// page gets the global `readerQuery` (a classic script's `var`, typed where it is used); node, the
// tests (tests/js/query.test.js), `require` it.
/* exported readerQuery */
/** @typedef {{text: string, phrase: string, words: string[], quoted: boolean, name: string}} Query */
var readerQuery = (function () {
  var CHUNK = 100, TEXT_SHARDS = 64, BUCKET = 16;  // searchindex.py's
  var PREFIXED = 24;  // the words a word typed in part stands for, at most
  var KINDS = {"class": 0, "function": 1, "method": 2, "variable": 3};
  var WORD = /[A-Za-z0-9_]+/g;

  /** @param {string} text @returns {string[]} */
  function words(text) { return (text.toLowerCase().match(WORD) || []); }
  /** @template T @param {T[]} list @returns {T[]} */
  function unique(list) { return list.filter(function (x, i) { return list.indexOf(x) === i; }); }
  /** The piece of the prose's index holding `word` (searchindex.py's text_shard). @param {string} word */
  function textShard(word) {
    var h = 0;
    for (var i = 0; i < Math.min(2, word.length); i++) h = (h * 31 + word.charCodeAt(i)) % TEXT_SHARDS;
    return h;
  }
  /** @param {string} text */
  function squash(text) { return text.toLowerCase().replace(/\s+/g, " ").trim(); }

  /**
   * The query: its words, the phrase they make (quoted: the phrase is required), a dotted name.
   * @param {string} q @returns {Query}
   */
  function parse(q) {
    var quoted = /^\s*"(.*)"\s*$/.exec(q);
    var text = quoted ? quoted[1] : q;
    return {text: text, phrase: squash(text), words: unique(words(text)), quoted: !!quoted,
            name: /^\s*[A-Za-z_][\w.]*\s*$/.test(text) ? text.trim() : ""};
  }

  /** The pieces of the index a query reads first: its words' pieces of the code's index (those in
   * `have`, the `files` piece's list) and of the prose's. @param {Query} query @param {Set<string>} have */
  function piecesFor(query, have) {
    var prefixes = unique(query.words.map(function (w) { return w.slice(0, 3); }))
      .filter(function (p) { return have.has(p); });
    return {prefixes: prefixes, shards: unique(query.words.map(textShard))};
  }
  /** The piece holding line n of file f. @param {number} f @param {number} n */
  function linesKey(f, n) { return "lines/" + f + "/" + Math.floor((n - 1) / CHUNK); }
  /** The piece holding prose document `id`. @param {number} id */
  function docsKey(id) { return "docs/" + Math.floor(id / BUCKET); }
  /** @param {Object<string, string[]>} pieces @param {number} f @param {number} n */
  function lineText(pieces, f, n) {
    var chunk = pieces[linesKey(f, n)];
    return chunk ? chunk[(n - 1) % CHUNK] : null;
  }
  /** @param {Object<string, any[]>} pieces @param {number} id @returns {string[] | null} */
  function doc(pieces, id) {
    var bucket = pieces[docsKey(id)];
    return bucket ? bucket[id % BUCKET] : null;
  }

  /** "f:l,+d;f:l" -> [[f, line], ...] @param {string} spec @returns {[number, number][]} */
  function postings(spec) {
    /** @type {[number, number][]} */
    var out = [];
    spec.split(";").forEach(function (part) {
      var colon = part.indexOf(":"), f = +part.slice(0, colon), line = 0;
      part.slice(colon + 1).split(",").forEach(function (d) { line += +d; out.push([f, line]); });
    });
    return out;
  }
  /** "doc,+d,+d" -> document ids @param {string} spec @returns {number[]} */
  function docIds(spec) {
    var id = 0;
    return spec.split(",").map(function (d) { id += +d; return id; });
  }

  /**
   * A word's entry in a piece, or the entries of the words it begins when it is the last word
   * typed and not a word itself.
   * @param {Object<string, any> | null | undefined} table @param {string} word
   * @param {boolean} last @returns {any[]}
   */
  function entries(table, word, last) {
    if (!table) return [];
    if (word in table) return [table[word]];
    if (!last) return [];
    return Object.keys(table).filter(function (w) { return w.indexOf(word) === 0; })
      .slice(0, PREFIXED).map(function (w) { return table[w]; });
  }

  /** Lists of items -> those in every list (by key), once each, in the first list's order.
   * @template T @param {T[][]} lists @param {(item: T) => number} key @returns {T[]} */
  function intersect(lists, key) {
    if (!lists.length) return [];
    var counts = new Map(), out = [], taken = new Set();
    lists.forEach(function (list) {
      var seen = new Set();
      list.forEach(function (item) {
        var k = key(item);
        if (!seen.has(k)) { seen.add(k); counts.set(k, (counts.get(k) || 0) + 1); }
      });
    });
    lists[0].forEach(function (item) {
      var k = key(item);
      if (counts.get(k) === lists.length && !taken.has(k)) { taken.add(k); out.push(item); }
    });
    return out;
  }

  /**
   * The definitions of the name asked for: those named exactly as typed first, then by kind
   * (classes, functions, methods, variables), file and line; a dotted name keeps those whose
   * qualname ends with it.
   * @param {Query} query @param {Object<string, any>} code the code's pieces read, by prefix
   * @param {[string, number][]} files the `files` piece's list
   */
  function definitions(query, code, files) {
    if (!query.name) return [];
    var dotted = query.name.toLowerCase(), name = dotted.split(".").pop();
    var shard = code[name.slice(0, 3)];
    /** @type {[number, number, string, string, string][]} */
    var found = shard && shard.d ? (shard.d[name] || []) : [];
    if (dotted.indexOf(".") >= 0) {
      found = found.filter(function (d) { return d[3].toLowerCase() === dotted || d[3].toLowerCase().endsWith("." + dotted); });
    }
    var exact = query.name.split(".").pop();
    return found.slice().sort(function (a, b) {
      return (Number(a[3].split(".").pop() !== exact) - Number(b[3].split(".").pop() !== exact))
        || (KINDS[a[2]] - KINDS[b[2]]) || (a[0] - b[0]) || (a[1] - b[1]);
    }).map(function (d) {
      var path = files[d[0]][0];
      return {url: "source/" + path + ".html#L" + d[1], title: d[3], kind: d[2], code: true,
              where: path + ":" + d[1], text: d[4], file: d[0], line: d[1]};
    });
  }

  /**
   * Lines of code holding every word, in file and line order (the words on too many lines to
   * list are left to the phrase's check in the text); `null` when every word is that common.
   * @param {Query} query @param {Object<string, any>} code @returns {[number, number][] | null}
   */
  function codeLines(query, code) {
    var lists = [], common = false;
    query.words.forEach(function (w, i) {
      var shard = code[w.slice(0, 3)], found = entries(shard && shard.t, w, i === query.words.length - 1 && !query.quoted);
      var listed = found.filter(function (e) { return typeof e === "string"; });
      if (found.length && !listed.length) { common = true; return; }
      lists.push([].concat.apply([], listed.map(postings)));
    });
    if (!lists.length) return common ? null : [];
    lists.sort(function (a, b) { return a.length - b.length; });
    var out = intersect(lists, function (x) { return x[0] * 1e6 + x[1]; });
    return out.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
  }

  /** The lines of code holding the words that are not the definitions' own lines: a definition
   * is listed once, among the definitions, ahead of its uses.
   * @param {{file: number, line: number}[]} defs @param {[number, number][]} lines */
  function uses(defs, lines) {
    var at = new Set(defs.map(function (d) { return d.file * 1e6 + d.line; }));
    return lines.filter(function (h) { return !at.has(h[0] * 1e6 + h[1]); });
  }

  /** The prose documents holding every word, by id. @param {Query} query
   * @param {Object<number, Object<string, string>>} text the prose's pieces read, by shard @returns {number[]} */
  function proseDocs(query, text) {
    var lists = query.words.map(function (w, i) {
      var found = entries(text[textShard(w)], w, i === query.words.length - 1 && !query.quoted);
      return [].concat.apply([], found.map(docIds));
    });
    return lists.length ? intersect(lists, function (x) { return x; }).sort(function (a, b) { return a - b; }) : [];
  }

  /** Whether `text` holds the query's phrase (case and runs of blanks aside). @param {string} text @param {Query} query */
  function hasPhrase(text, query) { return squash(text).indexOf(query.phrase) >= 0; }

  /** The phrase's matches first; a quoted phrase keeps only those.
   * @template T @param {T[]} items @param {Query} query @param {(item: T) => string} text @returns {T[]} */
  function rank(items, query, text) {
    if (query.words.length < 2 && !query.quoted) return items;
    var exact = [], loose = [];
    items.forEach(function (item) { (hasPhrase(text(item), query) ? exact : loose).push(item); });
    return query.quoted ? exact : exact.concat(loose);
  }

  /** What a result marks: the query's words, or its phrase when quoted or one word; a pattern
   * (global, any case), each term from a word's start; null when there is nothing to mark.
   * @param {Query} query @returns {RegExp | null} */
  function marks(query) {
    var terms = query.quoted || query.words.length < 2 ? [query.text.trim()] : query.words;
    var pattern = terms.filter(Boolean).map(function (t) {
      return (/^\w/.test(t) ? "(?<![A-Za-z0-9_])" : "") + t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    }).join("|");
    return pattern ? new RegExp(pattern, "gi") : null;
  }

  /** The text around its first match. @param {string} text @param {Query} query */
  function excerpt(text, query) {
    var lower = text.toLowerCase(), at = lower.indexOf(query.phrase);
    if (at < 0 && query.words.length) at = lower.indexOf(query.words[0]);
    var start = Math.max(0, at - 60);
    return (start ? "…" : "") + text.slice(start, start + 220) + (start + 220 < text.length ? "…" : "");
  }

  var api = {CHUNK: CHUNK, TEXT_SHARDS: TEXT_SHARDS, BUCKET: BUCKET, words: words, unique: unique,
               textShard: textShard, parse: parse, piecesFor: piecesFor, linesKey: linesKey,
               docsKey: docsKey, lineText: lineText, doc: doc, postings: postings, docIds: docIds,
               definitions: definitions, codeLines: codeLines, uses: uses, proseDocs: proseDocs,
               hasPhrase: hasPhrase, rank: rank, marks: marks, excerpt: excerpt};
  var node = typeof module === "object" ? module : null;  // not `module.exports`: tsc would read
  if (node) node.exports = api;                          // the script as a CommonJS module
  return api;
})();
