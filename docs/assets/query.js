// @ts-check
// A search query and the index's pieces it reads (reader/render/search/index.py writes them): the
// query's words and phrase, its filters (`file:PATH`, `in:code`, `in:notes`) or its pattern
// (`/regex/flags`, over lines of code), the pieces it needs, the lines and documents holding its
// words, the definitions ranked, the phrase's matches first; the words a pattern needs a line to
// hold; the close words offered when nothing matches. Pure: search.js loads the pieces and renders.
// A page gets the global `readerQuery` (a classic script's `var`, typed where it is used); node,
// the tests (tests/js/query.test.js), `require` it.
/* exported readerQuery */
/**
 * @typedef {{text: string, phrase: string, words: string[], quoted: boolean, name: string,
 *            pattern: RegExp | null, files: string[], only: string, error: string}} Query
 * `pattern`: a `/regex/flags` query's; `files`: the `file:` filters (any may match); `only`: "code"
 * or "notes" (`in:`); `error`: what is wrong with the query, for the reader.
 */
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
   * The query: its filters, then its pattern (the rest, `/.../flags`) or its words, the phrase they
   * make (quoted: the phrase is required) and a dotted name.
   * @param {string} q @returns {Query}
   */
  function parse(q) {
    /** @type {Query} */
    var query = {text: "", phrase: "", words: [], quoted: false, name: "", pattern: null, files: [], only: "",
                 error: ""};
    var text = filters(q, query), slashed = /^\s*\/(.*)\/([A-Za-z]*)\s*$/.exec(text);
    if (slashed && slashed[1]) {
      if (/[^imsu]/.test(slashed[2])) query.error = "A pattern's flags are i, m, s or u, not " + slashed[2];
      else {
        try { query.pattern = new RegExp(slashed[1], slashed[2]); } catch (err) {
          query.error = "Not a regular expression: " + /** @type {Error} */ (err).message.replace(/^Invalid regular expression: /, "");
        }
      }
      if (query.only === "notes") query.error = "A /pattern/ matches lines of code: in:notes takes words";
      query.text = slashed[1];
      return query;
    }
    var quoted = /^\s*"(.*)"\s*$/.exec(text);
    query.text = quoted ? quoted[1] : text;
    query.phrase = squash(query.text);
    query.words = unique(words(query.text));
    query.quoted = !!quoted;
    query.name = /^\s*[A-Za-z_][\w.]*\s*$/.test(query.text) ? query.text.trim() : "";
    return query;
  }

  /** The query without its `file:` and `in:` filters (outside quotes and a pattern), which go into
   * `query`. @param {string} q @param {Query} query @returns {string} */
  function filters(q, query) {
    var slash = /(^|\s)\//.exec(q), end = slash ? q.search(/\/[A-Za-z]*\s*$/) : -1;
    var head = q, tail = "";
    if (slash && end > slash.index + slash[1].length) {  // a pattern runs from its first slash to its last
      head = q.slice(0, slash.index + slash[1].length);
      tail = q.slice(slash.index + slash[1].length);
    }
    var kept = head.replace(/("[^"]*"?)|(?:^|\s)(file|in):(\S*)/gi, function (all, quoted, key, value) {
      if (quoted) return all;
      if (key.toLowerCase() === "file") {
        if (value) query.files.push(value.toLowerCase());
        else query.error = "file: needs a part of a path: file:lowering.py, file:mosaic/*.py";
      } else if (/^(code|notes?)$/i.test(value)) {
        query.only = /^code$/i.test(value) ? "code" : "notes";
      } else {
        query.error = "in: takes code or notes, not " + (value || "nothing");
      }
      return " ";
    });
    return (kept + tail).replace(/^\s+|\s+$/g, "") || "";
  }

  /** Whether `path` answers one of the `file:` filters: a part of it, `*` any letters but a
   * slash, `**` any (case aside). No filter: every path.
   * @param {string[]} filters @param {string} path */
  function inFiles(filters, path) {
    if (!filters.length) return true;
    var lower = path.toLowerCase();
    return filters.some(function (f) {
      if (!/[*?]/.test(f)) return lower.indexOf(f) >= 0;
      var re = f.split("**").map(function (part) {
        return part.split("*").map(function (bit) {
          return bit.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\?/g, "[^/]");
        }).join("[^/]*");
      }).join(".*");
      return new RegExp(re).test(lower);
    });
  }

  /** The ids of the files the `file:` filters name. @param {Query} query @param {[string, number][]} files */
  function filesIn(query, files) {
    var out = [];
    files.forEach(function (f, i) { if (inFiles(query.files, f[0])) out.push(i); });
    return out;
  }

  /** The pieces of the index a query reads first: its words' pieces of the code's index (those in
   * `have`, the `files` piece's list) and of the prose's. @param {Query} query @param {Set<string>} have */
  function piecesFor(query, have) {
    var typed = query.pattern ? patternWords(query.pattern).map(function (w) { return w.word; }) : query.words;
    var prefixes = unique(typed.map(function (w) { return w.slice(0, 3); }))
      .filter(function (p) { return have.has(p); });
    return {prefixes: prefixes, shards: query.pattern ? [] : unique(query.words.map(textShard))};
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
   * (classes, functions, methods, variables), file and line; a dotted name is the definition it
   * names through a public module's alias or path (`pl.program_id`, the `q` table), else those
   * whose qualname ends with it.
   * @param {Query} query @param {Object<string, any>} code the code's pieces read, by prefix
   * @param {[string, number][]} files the `files` piece's list
   */
  function definitions(query, code, files) {
    if (!query.name) return [];
    var dotted = query.name.toLowerCase(), name = dotted.split(".").pop();
    var shard = code[name.slice(0, 3)];
    /** @type {[number, number, string, string, string][]} */
    var found = shard && shard.d ? (shard.d[name] || []) : [];
    var resolved = shard && shard.q && shard.q[dotted];  // `pl.program_id`: through the imports
    if (resolved) found = [resolved];
    else if (dotted.indexOf(".") >= 0) {
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

  /** A quoted phrase as a pattern (case and runs of blanks aside), to find it inside words where
   * the index's words do not: `"owering_ru"`. @param {Query} query @returns {Query} */
  function substring(query) {
    var source = query.text.trim().split(/\s+/).map(function (part) {
      return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    }).join("\\s+");
    return Object.assign({}, query, {pattern: new RegExp(source, "i")});
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

  /** What a result marks: the query's words, or its phrase when quoted or one word (each term from
   * a word's start, any case), or its pattern's matches: a global RegExp; null when there is
   * nothing to mark.
   * @param {Query} query @returns {RegExp | null} */
  function marks(query) {
    if (query.pattern) return query.pattern.source === "(?:)" ? null : new RegExp(query.pattern.source, query.pattern.flags.replace("g", "") + "g");
    var terms = query.quoted || query.words.length < 2 ? [query.text.trim()] : query.words;
    var pattern = terms.filter(Boolean).map(function (t) {
      return (/^\w/.test(t) ? "(?<![A-Za-z0-9_])" : "") + t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    }).join("|");
    return pattern ? new RegExp(pattern, "gi") : null;
  }

  /** The text around its first match, cut between words (a word longer than 20 letters aside).
   * @param {string} text @param {Query} query */
  function excerpt(text, query) {
    var lower = text.toLowerCase(), at = lower.indexOf(query.phrase);
    if (at < 0 && query.words.length) at = lower.indexOf(query.words[0]);
    var start = Math.max(0, at - 60), end = Math.min(text.length, start + 220);
    if (start > 0 && /\S/.test(text[start - 1])) {
      var before = text.slice(Math.max(0, start - 20), start).search(/\s\S*$/);
      if (before >= 0) start = Math.max(0, start - 20) + before + 1;
    }
    if (end < text.length && /\S/.test(text[end])) {
      var back = text.slice(Math.max(start, end - 20), end).search(/\s\S*$/);
      if (back >= 0) end = Math.max(start, end - 20) + back;
    }
    return (start ? "…" : "") + text.slice(start, end).trim() + (end < text.length ? "…" : "");
  }

  // ---- a pattern: the words a line must hold for it to match ----

  /**
   * The words every line the pattern matches holds, as the index can look them up: a whole word
   * (`exact`), or a word's start of 3 letters or more. Read from the pattern's required literal
   * runs (none where it has a `|` outside a class): a word is whole when a non-word character, `^`,
   * `$`, `\b`, `\s` or `\W` bounds it on both sides, begun when on its left only.
   * @param {RegExp} pattern @returns {{word: string, exact: boolean}[]}
   */
  function patternWords(pattern) { return literals(pattern).words; }

  /** The runs of 3 or more word characters every line the pattern matches holds (lowercased; read
   * as `patternWords`, bounded or not). @param {RegExp} pattern @returns {string[]} */
  function patternRuns(pattern) { return literals(pattern).runs; }

  /** `patternWords` and `patternRuns`. @param {RegExp} pattern
   * @returns {{words: {word: string, exact: boolean}[], runs: string[]}} */
  function literals(pattern) {
    var src = pattern.source, out = [], runs = [], run = "", left = false, i = 0;
    if (topAlternation(src)) return {words: [], runs: []};
    /** @param {boolean} right */
    function flush(right) {
      var re = /\w+/g, m;
      while ((m = re.exec(run))) {
        var starts = m.index > 0 || left, ends = m.index + m[0].length < run.length || right;
        var word = m[0].toLowerCase();
        if (word.length >= 3) runs.push(word);
        if (starts && ends) out.push({word: word, exact: true});
        else if (starts && word.length >= 3) out.push({word: word, exact: false});
      }
      run = "";
    }
    while (i < src.length) {
      var c = src[i], atom = "", kind;  // kind: "char", "bound" (a non-word place), "any"
      if (c === "\\") {
        var n = src[i + 1] || "";
        if (/[bsW]/.test(n)) kind = "bound";
        else if (/[BdDwSpPkcux1-9]/.test(n)) kind = "any";
        else { kind = "char"; atom = {n: "\n", t: "\t", r: "\r", f: "\f", v: "\v", 0: "\0"}[n] || n; }
        i += 2;
      } else if (c === "[" || c === "(") {
        i = closing(src, i) + 1;
        kind = "any";
      } else if (c === "^" || c === "$") {
        kind = "bound";
        i++;
      } else {
        kind = c === "." ? "any" : "char";
        atom = c;
        i++;
      }
      var q = /^(?:[*?]|\{0*(?:,\d*)?\}|\{0+,?\d*\})\??/.exec(src.slice(i)), more = !q && /^(?:\+|\{\d+,?\d*\})\??/.exec(src.slice(i));
      if (q) i += q[0].length;
      if (more) i += more[0].length;
      if (q) { flush(false); left = false; continue; }  // optional: nothing known of this place
      if (kind === "char") {
        run += atom;
        if (more) { flush(false); left = false; }
      } else {
        flush(kind === "bound");
        left = kind === "bound";
      }
    }
    flush(false);
    return {words: out, runs: runs};
  }
  /** Whether a pattern has a `|` at its top level. @param {string} src */
  function topAlternation(src) {
    for (var i = 0; i < src.length; i++) {
      if (src[i] === "\\") i++;
      else if (src[i] === "[" || src[i] === "(") i = closing(src, i);
      else if (src[i] === "|") return true;
    }
    return false;
  }
  /** The index of the bracket closing the class or group opened at `at`. @param {string} src @param {number} at */
  function closing(src, at) {
    var depth = 0, klass = src[at] === "[";
    for (var i = at; i < src.length; i++) {
      if (src[i] === "\\") { i++; continue; }
      if (klass) { if (src[i] === "]" && i > at + 1 && !(i === at + 2 && src[at + 1] === "^")) return i; continue; }
      if (src[i] === "[") i = closing(src, i);
      else if (src[i] === "(") depth++;
      else if (src[i] === ")" && --depth === 0) return i;
    }
    return src.length;
  }

  /**
   * The lines of code holding every word a pattern needs (`null` when it needs none the index
   * lists: every word too common, or none at all): in file and line order.
   * @param {Query} query @param {Object<string, any>} code @returns {[number, number][] | null}
   */
  function patternLines(query, code) {
    var lists = [];
    patternWords(/** @type {RegExp} */ (query.pattern)).forEach(function (w) {
      var shard = code[w.word.slice(0, 3)], table = shard && shard.t;
      var found = !table ? [] : w.exact ? (w.word in table ? [table[w.word]] : []) :
        Object.keys(table).filter(function (k) { return k.indexOf(w.word) === 0; }).map(function (k) { return table[k]; });
      var listed = found.filter(function (e) { return typeof e === "string"; });
      if (found.length && listed.length < found.length) return;  // one too common to list: no help
      lists.push([].concat.apply([], listed.map(postings)));
    });
    if (!lists.length) return null;
    lists.sort(function (a, b) { return a.length - b.length; });
    return intersect(lists, function (x) { return x[0] * 1e6 + x[1]; }).sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
  }

  // ---- a pattern or a substring no word finds: the pieces of lines holding its letters ----

  /** The triples of letters (`tri/` pieces) of a pattern's runs (`patternRuns`), each one: every
   * line it matches holds them all (overlapping, they narrow more than a cover of the run does).
   * @param {RegExp} pattern @returns {string[]} */
  function patternTriples(pattern) {
    var out = [];
    patternRuns(pattern).forEach(function (run) {
      for (var i = 0; i + 3 <= run.length; i++) out.push(run.slice(i, i + 3));
    });
    return unique(out);
  }

  /** Each file's first piece of lines, numbered across the files as the `tri/` pieces number them,
   * and after the last file's, their count. @param {[string, number][]} files @returns {number[]} */
  function pieceStarts(files) {
    var out = [0];
    files.forEach(function (f) { out.push(out[out.length - 1] + Math.ceil(f[1] / CHUNK)); });
    return out;
  }

  /** The pieces of lines holding every triple, given the triples' `tri/` pieces (null where the
   * index has none: no line holds it); null when none of them lists its pieces (each too common).
   * @param {(string | number | null)[]} found @returns {number[] | null} */
  function triplePieces(found) {
    if (found.some(function (t) { return t === null || t === undefined; })) return [];
    var lists = found.filter(function (t) { return typeof t === "string"; }).map(function (t) { return docIds(String(t)); });
    return lists.length ? intersect(lists, function (x) { return x; }).sort(function (a, b) { return a - b; }) : null;
  }

  /** The lines ([file, line]) of the pieces numbered `ids` (ascending), in the files `keep` takes.
   * @param {number[]} ids @param {[string, number][]} files @param {(file: number) => boolean} keep
   * @returns {[number, number][]} */
  function piecesLines(ids, files, keep) {
    var starts = pieceStarts(files), out = [], f = 0;
    ids.forEach(function (id) {
      while (f < files.length && starts[f + 1] <= id) f++;
      if (f >= files.length || !keep(f)) return;
      var k = id - starts[f], last = Math.min(files[f][1], (k + 1) * CHUNK);
      for (var n = k * CHUNK + 1; n <= last; n++) out.push(/** @type {[number, number]} */ ([f, n]));
    });
    return out;
  }

  /** Lines ([file, line], in file and line order) reordered so that their packs (`packOf` a line:
   * the script holding its piece) are read across the files: each file's first pack, then each
   * one's second, and so on (a first batch finds lines in many files, not in the first file alone).
   * @param {[number, number][]} lines @param {(line: [number, number]) => any} packOf
   * @returns {[number, number][]} */
  function acrossFiles(lines, packOf) {
    var rank = new Map(), last = new Map();
    lines.forEach(function (h) {
      var key = h[0] + " " + packOf(h);
      if (!rank.has(key)) {
        var n = last.has(h[0]) ? last.get(h[0]) + 1 : 0;
        last.set(h[0], n);
        rank.set(key, n);
      }
    });
    function order(h) { return rank.get(h[0] + " " + packOf(h)); }
    return lines.slice().sort(function (a, b) { return order(a) - order(b) || a[0] - b[0] || a[1] - b[1]; });
  }
  /** @param {[number, number][]} lines @returns {[number, number][]} */
  function inOrder(lines) { return lines.slice().sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; }); }

  /** Whether line `text` matches the query's pattern. @param {Query} query @param {string} text */
  function matchesPattern(query, text) {
    var re = /** @type {RegExp} */ (query.pattern);
    re.lastIndex = 0;
    return re.test(text);
  }

  // ---- nothing found: the close words ----

  /** Optimal string alignment distance of a and b, or `most + 1` once it must exceed `most`.
   * @param {string} a @param {string} b @param {number} most */
  function distance(a, b, most) {
    if (Math.abs(a.length - b.length) > most) return most + 1;
    var prev2 = [], prev = [], row;
    for (var j = 0; j <= b.length; j++) prev[j] = j;
    for (var i = 1; i <= a.length; i++) {
      row = [i];
      var best = i;
      for (j = 1; j <= b.length; j++) {
        var cost = a[i - 1] === b[j - 1] ? 0 : 1;
        row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j], prev2[j - 2] + 1);
        best = Math.min(best, row[j]);
      }
      if (best > most) return most + 1;
      prev2 = prev;
      prev = row;
    }
    return prev[b.length];
  }

  /** The code's pieces where a word with one of its first letters left out, doubled or swapped
   * would be (a slip there; one later is in its own piece): those the index has, its own first.
   * @param {string} word @param {Set<string>} have @returns {string[]} */
  function nearPrefixes(word, have) {
    var out = [word.slice(0, 3)];
    for (var i = 0; i < 3 && i < word.length; i++) {
      out.push((word.slice(0, i) + word.slice(i + 1)).slice(0, 3));  // a letter too many
      if (i + 1 < word.length) out.push((word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2)).slice(0, 3));
    }
    return unique(out).filter(function (p) { return p.length === 3 && have.has(p); });
  }

  /**
   * The known word closest to `word` in the tables given (the code's pieces, their words and
   * definitions' names, and the prose's): within a slip or two (one for a short word), a
   * definition before a word, then the fewest slips, the most lines; written as its definition
   * is (`BlockSpec`). Null when none is close.
   * @param {string} word @param {Object<string, any>[]} code @param {Object<string, string>[]} prose
   * @returns {string | null}
   */
  function closest(word, code, prose) {
    var most = word.length <= 4 ? 1 : word.length <= 8 ? 2 : 3, best = null, score = Infinity;
    function consider(w, rank, spelled) {
      if (w === word) return;
      var d = distance(word, w, most);
      if (d > most) return;
      var s = d * 10 + rank;
      if (s < score) { score = s; best = spelled; }
    }
    code.forEach(function (piece) {
      if (!piece) return;
      Object.keys(piece.d || {}).forEach(function (w) {
        consider(w, 0, piece.d[w][0][3].split(".").pop());
      });
      Object.keys(piece.t || {}).forEach(function (w) {
        var e = piece.t[w];
        consider(w, typeof e === "string" && e.length < 12 ? 3 : 2, w);
      });
    });
    prose.forEach(function (shard) {
      Object.keys(shard || {}).forEach(function (w) { consider(w, 4, w); });
    });
    return best;
  }

  /** The query as typed with each word of `typed` that the index lacks replaced by its closest.
   * @param {string} typed @param {Object<string, string>} fixes lowercase word -> replacement */
  function respelled(typed, fixes) {
    return typed.replace(/[A-Za-z0-9_]+/g, function (w) {
      var fix = fixes[w.toLowerCase()];
      return fix === undefined ? w : fix;
    });
  }

  var api = {CHUNK: CHUNK, TEXT_SHARDS: TEXT_SHARDS, BUCKET: BUCKET, words: words, unique: unique,
               textShard: textShard, parse: parse, piecesFor: piecesFor, linesKey: linesKey,
               docsKey: docsKey, lineText: lineText, doc: doc, postings: postings, docIds: docIds,
               definitions: definitions, codeLines: codeLines, uses: uses, proseDocs: proseDocs,
               hasPhrase: hasPhrase, substring: substring, rank: rank, marks: marks, excerpt: excerpt, inFiles: inFiles,
               filesIn: filesIn, patternWords: patternWords, patternRuns: patternRuns,
               patternTriples: patternTriples, pieceStarts: pieceStarts, triplePieces: triplePieces,
               piecesLines: piecesLines, acrossFiles: acrossFiles, inOrder: inOrder, patternLines: patternLines,
               matchesPattern: matchesPattern, distance: distance, nearPrefixes: nearPrefixes,
               closest: closest, respelled: respelled};
  var node = typeof module === "object" ? module : null;  // not `module.exports`: tsc would read
  if (node) node.exports = api;                          // the script as a CommonJS module
  return api;
})();
