// @ts-check
// Search (reader/render/searchindex.py writes the index): a dialog opened by the header's button,
// `/` or `s`. The index comes in pieces, scripts loaded as a query needs them (file:// works): the
// code's words by their first three letters with the definitions by name, the files' lines in
// chunks (results' text, and phrases checked in them), the prose's words and documents.
// Results in three groups: definitions of the name asked for, then lines of code and the notes and
// pages (the code first for a name, the prose first for words); a quoted phrase matches as written.
// `file:PATH` keeps the results in those files (alone, it lists them), `in:code` and `in:notes` one
// side; `/regex/` matches lines of code in every file: those holding the words it needs or, where
// no word of the index does, the pieces of lines holding its letters' triples (query.js), or every
// line of the files `file:` names; its lines listed by file. A quoted phrase no word holds is
// matched inside words. Nothing found, it offers the closest words the index knows. The query is
// the page's `?q=` (a link to it opens its results).
(function () {
  var script = /** @type {HTMLScriptElement | null} */ (document.currentScript);
  var BASE = script ? script.src.replace(/assets\/[\w.-]+\.js(?:[?#].*)?$/, "") : "";
  var SHOWN = 20, CHECKED = 60;  // CHECKED: candidates a phrase is checked in
  // A pattern's candidate lines from the index: the packs of pieces of lines read at a time (8 KB
  // each at most), across the files; the lines of whole files it reads at most (mosaic/lowering.py's
  // 6,303 lines are 234 KB).
  var BATCH = 40, SCAN = 16000;

  // Pieces: `load(key)` resolves with a piece's data, or null when there is none (no word of the
  // index begins with those letters). They come in packs (reader/render/search/index.py): scripts
  // calling `pack(name, base64)` with the gzipped pieces, which are inflated and `put` by key;
  // `files` is a pack of its own and lists each other pack's first key.
  /** @type {Object<string, any>} */
  var pieces = {}, packs = {};
  function put(key, data) { pieces[key] = data; }
  function pack(name, b64) {
    var done = packs[name];
    window.readerInflate(b64).then(JSON.parse).then(function (data) {
      Object.keys(data).forEach(function (key) { put(key, data[key]); });
    }).catch(function () { /* a piece of it reads as absent */ }).then(function () { if (done) done.ready(); });
  }
  /** Load the pack `name` once; resolves when its pieces are `put` (or it failed to load). */
  function loadPack(name) {
    if (!packs[name]) {
      /** @type {(value?: unknown) => void} */
      var ready = function () {};
      var loaded = new Promise(function (done) { ready = done; });
      packs[name] = {loaded: loaded, ready: function () { ready(); }};
      var tag = document.createElement("script");
      tag.src = BASE + "search/" + name + ".js";
      tag.async = true;
      tag.onerror = function () { packs[name].ready(); };
      document.head.appendChild(tag);
    }
    return packs[name].loaded;
  }
  /** The pack holding `key`: the last whose first key is not after it (-1: none). */
  function packOf(key, firsts) {
    var lo = 0, hi = firsts.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (firsts[mid] <= key) lo = mid + 1; else hi = mid; }
    return lo - 1;
  }
  function load(key) {
    if (key in pieces) return Promise.resolve(pieces[key]);
    var where = key === "files" ? Promise.resolve("files") : load("files").then(function (files) {
      var n = files && files.packs ? packOf(key, files.packs) : -1;
      return n < 0 ? null : String(n);
    });
    return where.then(function (name) {
      if (name === null) return null;
      return loadPack(name).then(function () { return key in pieces ? pieces[key] : null; });
    });
  }
  window.readerSearch = {put: put, pack: pack, load: load, base: BASE};

  var Q = readerQuery;  // query.js: the query, the pieces it needs, the matching and ranking
  /**
   * @typedef {{defs: any[], code: any[], prose: any[], files: [string, number][], say?: string,
   *            named?: number[], fix?: string | null, pattern?: boolean, where?: string,
   *            rest?: [number, number][], common?: boolean, codeFirst?: boolean, query?: any,
   *            substring?: boolean}} Results
   * `say`: why there are none; `named`: the files `file:` names, when it is all the query is;
   * `fix`: the query respelled; `where`: a pattern's files; `rest`: its candidates not read yet;
   * `query`: the pattern matched; `substring`: a quoted phrase's lines found inside words.
   */
  function lineText(f, n) { return Q.lineText(pieces, f, n); }
  function loadLines(hits) {
    return Promise.all(Q.unique(hits.map(function (h) { return Q.linesKey(h[0], h[1]); })).map(load));
  }
  function loadDocs(ids) { return Promise.all(Q.unique(ids.map(Q.docsKey)).map(load)); }
  function doc(id) { return Q.doc(pieces, id); }

  // A query's results, each list in its order. @returns {Promise<Results>}
  function run(query) {
    return load("files").then(function (table) {
      var have = new Set(((table && table.code) || "").split(" ")), files = (table && table.files) || [];
      if (query.pattern) return runPattern(query, files, have);
      var wanted = Q.piecesFor(query, have);
      var prefixes = wanted.prefixes, shards = wanted.shards;
      return Promise.all(prefixes.map(function (p) { return load("code/" + p); })
                         .concat(shards.map(function (n) { return load("text/" + n); })))
      .then(function (got) {
        /** @type {Object<string, any>} */
        var code = {};
        /** @type {Object<number, any>} */
        var text = {};
        prefixes.forEach(function (p, i) { code[p] = got[i]; });
        shards.forEach(function (n, i) { text[n] = got[prefixes.length + i]; });
        var scope = query.files.length ? new Set(Q.filesIn(query, files)) : null;
        function inScope(f) { return !scope || scope.has(f); }
        var defs = query.only === "notes" ? [] : Q.definitions(query, code, files).filter(function (d) { return inScope(d.file); });
        var lines = query.only === "notes" ? [] : Q.codeLines(query, code);
        var ids = query.only === "code" ? [] : Q.proseDocs(query, text);
        var single = query.words.length === 1 && !query.quoted;
        var hits = Q.uses(defs, lines || []).filter(function (h) { return inScope(h[0]); });
        var checking = single ? hits.slice(0, SHOWN) : hits.slice(0, CHECKED);
        var reading = scope || !single ? ids.slice(0, CHECKED) : ids.slice(0, SHOWN);
        return Promise.all([loadLines(checking), loadDocs(reading)]).then(function () {
          if (scope) ids = reading.filter(function (id) { var d = doc(id); return d && Q.inFiles(query.files, d[0] + " " + d[2]); });
          /** @type {Results} */
          var out = {defs: defs, files: files, code: single ? hits : Q.rank(checking, query, codeText),
                     prose: single ? ids : Q.rank(ids.slice(0, CHECKED), query, proseText), common: lines === null,
                     codeFirst: !!query.name && (defs.length > 0 || hits.length > 0),
                     named: !query.words.length && scope ? Array.from(scope) : []};
          if (query.quoted && query.only !== "notes" && !out.code.length) return inWords(query, out, files, have);
          if (out.defs.length || out.code.length || out.prose.length || out.named.length || !query.words.length) return out;
          return respell(query, code, text, have).then(function (fix) { out.fix = fix; return out; });
        });
      });
    });
  }

  // A quoted phrase no line's words hold: the phrase inside words (`"owering_ru"`), as a pattern.
  function inWords(query, out, files, have) {
    return runPattern(Q.substring(query), files, have).then(function (found) {
      if (found.say || (!found.code.length && !found.rest.length)) return out;
      return Object.assign(out, {code: found.code, pattern: true, where: found.where, rest: found.rest,
                                 query: found.query, substring: true});
    });
  }

  // Nothing found: the query again with each word the index lacks respelled as the closest it has.
  function respell(query, code, text, have) {
    var lost = query.words.filter(function (w, i) {
      var last = i === query.words.length - 1 && !query.quoted, piece = code[w.slice(0, 3)];
      var known = piece && ((w in piece.d) || (last ? Object.keys(piece.t).some(function (k) { return k.indexOf(w) === 0; }) : w in piece.t));
      return !known && !(text[Q.textShard(w)] && w in text[Q.textShard(w)]);
    });
    if (!lost.length) return Promise.resolve(null);
    var prefixes = Q.unique([].concat.apply([], lost.map(function (w) { return Q.nearPrefixes(w, have); })));
    return Promise.all(prefixes.map(function (p) { return load("code/" + p); })).then(function (near) {
      /** @type {Object<string, string>} */
      var fixes = {}, found = false;
      lost.forEach(function (w) {
        var pieces = prefixes.map(function (p, i) { return Q.nearPrefixes(w, have).indexOf(p) >= 0 ? near[i] : null; });
        var best = Q.closest(w, pieces, [text[Q.textShard(w)]]);
        if (best) { fixes[w] = best; found = true; }
      });
      return found ? Q.respelled(input.value, fixes) : null;
    });
  }

  // A pattern: the lines holding the words it needs (the index's words: the files but the `context`
  // ones) with the lines of the context files' pieces holding its letters' triples; else the lines
  // of every piece holding those (`tri/`); else, its letters too common or too few, every line of
  // the files `file:` names. In the files `file:` names (or every file), each line read, matched.
  /** @returns {Promise<Results>} */
  function runPattern(query, files, have) {
    var named = query.files.length ? Q.filesIn(query, files) : null, keep = named ? new Set(named) : null;
    var few = named && named.reduce(function (n, f) { return n + files[f][1]; }, 0) <= SCAN;  // read whole
    var wanted = Q.piecesFor(query, have), triples = few ? [] : Q.patternTriples(query.pattern);
    function inScope(f) { return !keep || keep.has(f); }
    return Promise.all(wanted.prefixes.map(function (p) { return load("code/" + p); })
                       .concat(triples.map(function (t) { return load("tri/" + t); }))).then(function (got) {
      /** @type {Object<string, any>} */
      var code = {};
      wanted.prefixes.forEach(function (p, i) { code[p] = got[i]; });
      var lines = Q.patternLines(query, code), pieces = Q.triplePieces(got.slice(wanted.prefixes.length));
      var where = !named ? "every file" : named.length === 1 ? files[named[0]][0] : named.length + " files";
      /** @type {(say: string) => Results} */
      var none = function (say) { return {defs: [], code: [], prose: [], files: files, say: say}; };
      var candidates = null;
      if (lines) {
        candidates = lines.filter(function (h) { return inScope(h[0]); });
        if (pieces) {
          candidates = candidates.concat(Q.piecesLines(pieces, files, function (f) { return files[f][2] === 0 && inScope(f); }))
            .sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
        }
      } else if (pieces) {
        candidates = Q.piecesLines(pieces, files, inScope);
      }
      var whole = few || !candidates;  // the index holds no context file's words: named files are read whole
      if (whole) {
        if (!named) return none("This pattern holds nothing the index can look up: give it 3 letters, digits or _ " +
          "in a row outside ( ) and [ ] (lowering_rule, \\bjnp\\.), or name files (file:lowering.py)");
        var total = named.reduce(function (n, f) { return n + files[f][1]; }, 0);
        if (total > SCAN) return none("file: names " + named.length + " files of " + total.toLocaleString("en") +
          " lines; a pattern without 3 letters in a row reads at most " + SCAN.toLocaleString("en") + ": name fewer");
        candidates = [];
        named.forEach(function (f) { for (var n = 1; n <= files[f][1]; n++) candidates.push([f, n]); });
      }
      if (!whole) candidates = Q.acrossFiles(candidates, function (h) { return packFor(Q.linesKey(h[0], h[1])); });
      return matching(query, candidates, whole ? Infinity : BATCH).then(function (found) {
        return {defs: [], prose: [], files: files, code: Q.inOrder(found.lines), pattern: true, where: where,
                rest: found.rest, query: query};
      });
    });
  }

  // The candidates' lines read, from `most` packs at most (a pack's other pieces come free, and the
  // candidates they hold are read too): those that match, and the candidates left.
  function matching(query, candidates, most) {
    var keys = new Set(), packs = new Set(), read = 0;
    while (read < candidates.length) {
      var key = Q.linesKey(candidates[read][0], candidates[read][1]), pack = packFor(key);
      if (!packs.has(pack)) { if (packs.size === most) break; packs.add(pack); }
      keys.add(key);
      read++;
    }
    return Promise.all(Array.from(keys, load)).then(function () {
      var now = candidates.slice(0, read), rest = [];
      candidates.slice(read).forEach(function (h) {  // those whose pieces came in the packs read
        (Q.linesKey(h[0], h[1]) in pieces ? now : rest).push(h);
      });
      return {rest: rest, lines: now.filter(function (h) { return Q.matchesPattern(query, codeText(h)); })};
    });
  }

  /** The pack (its number) holding the piece `key`, by the `files` piece's list. */
  function packFor(key) {
    var files = pieces.files;
    return files && files.packs ? packOf(key, files.packs) : key;
  }
  function codeText(h) { return lineText(h[0], h[1]) || ""; }
  function proseText(id) { var d = doc(id); return d ? d[1] + " " + d[3] : ""; }

  // Rendering.
  function marked(text, query, parent) {  // `text` with the query's words (or its phrase) marked
    var re = Q.marks(query), at = 0, m;
    if (!re) { parent.appendChild(document.createTextNode(text)); return; }
    while ((m = re.exec(text)) && m[0].length) {
      parent.appendChild(document.createTextNode(text.slice(at, m.index)));
      var mark = document.createElement("mark");
      mark.textContent = m[0];
      parent.appendChild(mark);
      at = m.index + m[0].length;
    }
    parent.appendChild(document.createTextNode(text.slice(at)));
  }
  function item(result, query) {
    var li = document.createElement("li"), a = document.createElement("a");
    a.className = "rd-sr";
    a.href = BASE + result.url;
    var title = document.createElement("span");
    title.className = "rd-sr-t" + (result.code ? " rd-sr-code" : "");
    if (result.kind) {
      var kind = document.createElement("span");
      kind.className = "rd-sr-k";
      kind.textContent = result.kind + " ";
      title.appendChild(kind);
    }
    marked(result.title, query, title);
    var where = document.createElement("span");
    where.className = "rd-sr-w";
    where.textContent = result.where;
    a.appendChild(title);
    a.appendChild(where);
    if (result.text) {
      var text = document.createElement("span");
      text.className = "rd-sr-x";
      marked(result.text, query, text);
      a.appendChild(text);
    }
    li.appendChild(a);
    return li;
  }
  function codeResult(h, files, inFile) {  // inFile: under its file's heading, the line alone
    var path = files[h[0]][0];
    return {url: "source/" + path + ".html#L" + h[1], title: (codeText(h) || "").trim(), code: true,
            where: inFile ? "line " + h[1] : path + ":" + h[1]};
  }

  // A pattern's lines by file: each file's path (a link to its page) and count, then its lines.
  function byFile(results, query) {
    var section = document.createElement("section"), heading = document.createElement("h3");
    /** @type {Map<number, [number, number][]>} */
    var lines = new Map();
    results.code.forEach(function (h) {
      if (!lines.has(h[0])) lines.set(h[0], []);
      lines.get(h[0]).push(h);
    });
    section.className = "rd-sr-group";
    heading.textContent = "Lines matching (" + results.code.length + " in " + lines.size + " file" + (lines.size === 1 ? "" : "s") + ")";
    section.appendChild(heading);
    lines.forEach(function (hits, f) {
      var file = group(hits, results.files[f][0], hits.length, function (h) { return item(codeResult(h, results.files, true), query); });
      var title = file.querySelector("h3"), head = document.createElement("h4"), link = document.createElement("a");
      link.href = BASE + "source/" + results.files[f][0] + ".html";
      link.textContent = results.files[f][0];
      head.appendChild(link);
      head.appendChild(document.createTextNode(" (" + hits.length + ")"));
      file.replaceChild(head, /** @type {HTMLElement} */ (title));
      file.className = "rd-sr-group rd-sr-file";
      section.appendChild(file);
    });
    return section;
  }
  function proseResult(id, query) {
    var d = doc(id);
    return {url: d[0], title: d[1], where: d[2], text: Q.excerpt(d[3], query)};
  }

  function group(list, heading, count, make, more) {
    var section = document.createElement("section"), h = document.createElement("h3");
    section.className = "rd-sr-group";
    h.textContent = heading + " (" + count + ")";
    section.appendChild(h);
    var ul = document.createElement("ul");
    section.appendChild(ul);
    function show(items) { items.forEach(function (x) { ul.appendChild(make(x)); }); }
    show(list.slice(0, SHOWN));
    if (list.length > SHOWN) {
      var button = document.createElement("button"), shown = SHOWN;
      button.type = "button";
      button.className = "rd-sr-more";
      button.textContent = "more";
      button.addEventListener("click", function () {
        var next = list.slice(shown, shown + SHOWN);
        shown += SHOWN;
        (more ? more(next) : Promise.resolve()).then(function () {
          var first = ul.children.length;
          show(next);
          if (shown >= list.length) button.remove();
          var link = ul.children[first] && ul.children[first].querySelector("a");
          if (link) link.focus();
        });
      });
      section.appendChild(button);
    }
    return section;
  }

  function render(results, query, box) {
    box.textContent = "";
    if (results.say) return results.say;
    var defs = results.defs.length ? group(results.defs, "Definitions", results.defs.length,
                                          function (d) { return item(d, query); }) : null;
    var code = !results.code.length ? null : results.pattern ? byFile(results, query)
      : group(results.code, "Code", results.code.length, function (h) { return item(codeResult(h, results.files), query); },
              function (next) { return loadLines(next); });
    var prose = results.prose.length ? group(results.prose, "Notes and pages", results.prose.length,
                                            function (id) { return item(proseResult(id, query), query); },
                                            loadDocs) : null;
    var named = results.named && results.named.length ? group(results.named, "Files", results.named.length, function (f) {
      var file = results.files[f];
      return item({url: "source/" + file[0] + ".html", title: file[0], code: true,
                   where: file[1].toLocaleString("en") + " lines"}, Q.parse(""));
    }) : null;
    [named, defs].concat(results.codeFirst || results.pattern ? [code, prose] : [prose, code])
      .forEach(function (s) { if (s) box.appendChild(s); });
    if (results.rest && results.rest.length) box.appendChild(onward(results, query, box));
    if (results.fix) box.appendChild(offer(results.fix, query));
    var total = results.defs.length + results.code.length + results.prose.length + (results.named || []).length;
    if (results.pattern) {
      return total + " line" + (total === 1 ? "" : "s") + " match" + (total === 1 ? "es" : "") + " in " + results.where +
        (results.substring ? " (the phrase inside words: no word of the index holds it)" : "") +
        (results.rest.length ? "; " + results.rest.length.toLocaleString("en") + " more lines to read" : "");
    }
    return total ? total + " result" + (total === 1 ? "" : "s")
      : results.common ? "Every word is too common in the code to list; add a rarer one"
      : "No results" + (results.fix ? " for " + query.text.trim() : "");
  }

  // A pattern's candidates not read yet: a button reads the next batch.
  function onward(results, query, box) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "rd-sr-more";
    button.textContent = "read on (" + results.rest.length.toLocaleString("en") + " lines to read)";
    button.addEventListener("click", function () {
      var rest = results.rest;
      matching(results.query || query, rest, BATCH).then(function (found) {
        results.code = Q.inOrder(results.code.concat(found.lines));
        results.rest = found.rest;
        status.textContent = render(results, query, box);
      });
    });
    return button;
  }

  // Nothing found: the closest query the index answers, as a button that asks it.
  function offer(fix, query) {
    var p = document.createElement("p"), button = document.createElement("button");
    p.className = "rd-sr-fix";
    button.type = "button";
    button.className = "rd-sr-offer";
    button.textContent = fix;
    button.addEventListener("click", function () { input.value = fix; ask(); input.focus(); });
    p.appendChild(document.createTextNode("Did you mean "));
    p.appendChild(button);
    p.appendChild(document.createTextNode("?"));
    return p;
  }

  // The dialog.
  var dialog = null, input = null, list = null, status = null, asked = 0;
  function make() {
    dialog = document.createElement("dialog");
    dialog.className = "rd-search";
    dialog.setAttribute("aria-label", "Search");
    var form = document.createElement("form");
    form.method = "dialog";
    form.className = "rd-search-form";
    form.setAttribute("role", "search");
    input = document.createElement("input");
    input.type = "search";
    input.className = "rd-search-input";
    input.placeholder = "A name, words, a \"quoted phrase\", /regex/; file:PATH, in:code, in:notes";
    input.setAttribute("aria-label", "Search the code and the notes");
    input.autocomplete = "off";
    input.spellcheck = false;
    var close = document.createElement("button");
    close.type = "button";
    close.className = "rd-search-close";
    close.textContent = "Close";
    form.appendChild(input);
    form.appendChild(close);
    status = document.createElement("p");
    status.className = "rd-search-status";
    status.setAttribute("role", "status");
    list = document.createElement("div");
    list.className = "rd-search-results";
    dialog.appendChild(form);
    dialog.appendChild(status);
    dialog.appendChild(list);
    document.body.appendChild(dialog);
    var timer = 0;
    input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(ask, 120); });
    close.addEventListener("click", function () { dialog.close(); });
    dialog.addEventListener("close", function () { remember(""); });
    list.addEventListener("click", /** @param {MouseEvent & {target: HTMLElement}} e */ function (e) {  // a result on this page: the dialog makes way
      var link = /** @type {HTMLAnchorElement | null} */ (e.target.closest && e.target.closest("a.rd-sr"));
      if (link && link.href.split("#")[0] === location.href.split(/[?#]/)[0]) dialog.close();
    });
    form.addEventListener("submit", function (e) {  // Enter in the box opens the first result (or takes the offer)
      e.preventDefault();
      var first = /** @type {HTMLElement | null} */ (list.querySelector("a.rd-sr, .rd-sr-offer"));
      if (first) first.click();
    });
    dialog.addEventListener("keydown", step);
    dialog.addEventListener("click", function (e) { if (e.target === dialog) dialog.close(); });
  }
  function ask() {
    var q = input.value, mine = ++asked, query = Q.parse(q);
    remember(q);
    if (query.error) {
      list.textContent = "";
      status.textContent = query.error;
      return;
    }
    var bare = !query.pattern && !query.files.length &&
      (!query.words.length || (query.words.length === 1 && query.words[0].length < 2));
    if (bare) {
      list.textContent = "";
      status.textContent = query.only && !query.words.length ? "in:" + query.only + " keeps one side: add words" : "";
      return;
    }
    status.textContent = "Searching…";
    run(query).then(function (results) {
      if (mine !== asked) return;
      status.textContent = render(results, query, list);
      list.setAttribute("data-q", q);  // the query the results are for (a query typed on is not done)
    });
  }

  // The query is the page's `?q=` while the dialog is open: a link that opens its results.
  function remember(q) {
    try {
      var url = new URL(location.href);
      if (q.trim()) url.searchParams.set("q", q); else url.searchParams.delete("q");
      if (url.href !== location.href) history.replaceState(history.state, "", url.href);
    } catch (err) { /* a URL the page cannot rewrite: the query stays the dialog's */ }
  }
  function step(e) {  // arrows move between the box and the results
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    var links = [input].concat(Array.prototype.slice.call(list.querySelectorAll("a.rd-sr")));
    var at = links.indexOf(document.activeElement);
    if (at < 0) return;
    var next = links[Math.max(0, Math.min(links.length - 1, at + (e.key === "ArrowDown" ? 1 : -1)))];
    e.preventDefault();
    next.focus();
  }
  function open(text) {
    if (!dialog) make();
    if (!dialog.open) dialog.showModal();
    if (typeof text === "string") { input.value = text; ask(); }
    input.focus();
    input.select();
  }
  window.readerSearch.open = open;

  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target) || (dialog && dialog.open)) return;
    if (e.key === "/" || e.key === "s") { e.preventDefault(); open(); }
  });

  function button() {
    var header = document.querySelector(".md-header__inner");
    if (!header || header.querySelector(".rd-search-open")) return;
    var b = document.createElement("button");
    b.type = "button";
    b.className = "md-header__button md-icon rd-search-open";
    b.setAttribute("aria-label", "Search (/)");
    b.title = "Search (/)";
    b.innerHTML = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" aria-hidden="true"><path d="M9.5 3A6.5 6.5 0 0 1 16 9.5c0 1.61-.59 3.09-1.56 4.23l.27.27h.79l5 5-1.5 1.5-5-5v-.79l-.27-.27A6.52 6.52 0 0 1 9.5 16 6.5 6.5 0 0 1 3 9.5 6.5 6.5 0 0 1 9.5 3m0 2C7 5 5 7 5 9.5S7 14 9.5 14 14 12 14 9.5 12 5 9.5 5"/></svg><span class="rd-search-label">Search</span>';
    b.addEventListener("click", function () { open(); });
    var title = header.querySelector(".md-header__title");
    header.insertBefore(b, title ? title.nextSibling : null);
  }
  function begin() {
    button();
    var q = null;
    try { q = new URLSearchParams(location.search).get("q"); } catch (err) { /* no query */ }
    if (q) open(q);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", begin);
  else begin();
})();
