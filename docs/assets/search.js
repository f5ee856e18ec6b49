// @ts-check
// Search (reader/render/searchindex.py writes the index): a dialog opened by the header's button,
// `/` or `s`. The index comes in pieces, scripts loaded as a query needs them (file:// works): the
// code's words by their first three letters with the definitions by name, the files' lines in
// chunks (results' text, and phrases checked in them), the prose's words and documents.
// Results in three groups: definitions of the name asked for, then lines of code and the notes and
// pages (the code first for a name, the prose first for words); a quoted phrase matches as written.
(function () {
  var script = /** @type {HTMLScriptElement | null} */ (document.currentScript);
  var BASE = script ? script.src.replace(/assets\/search\.js(?:[?#].*)?$/, "") : "";
  var SHOWN = 20, CHECKED = 60;  // CHECKED: candidates a phrase is checked in

  // Pieces: `put` is what each script calls; `load` resolves with the data, or null if the piece
  // does not exist (no word of the index begins with those letters).
  /** @type {Object<string, any>} */
  var pieces = {}, pending = {};
  function put(key, data) {
    pieces[key] = data;
    (pending[key] || []).forEach(function (done) { done(data); });
    delete pending[key];
  }
  function load(key) {
    if (key in pieces) return Promise.resolve(pieces[key]);
    return new Promise(function (done) {
      if (pending[key]) { pending[key].push(done); return; }
      pending[key] = [done];
      var tag = document.createElement("script");
      tag.src = BASE + "search/" + key + ".js";
      tag.async = true;
      tag.onerror = function () { put(key, null); };
      document.head.appendChild(tag);
    });
  }
  window.readerSearch = {put: put, load: load, base: BASE};

  var Q = readerQuery;  // query.js: the query, the pieces it needs, the matching and ranking
  function lineText(f, n) { return Q.lineText(pieces, f, n); }
  function loadLines(hits) {
    return Promise.all(Q.unique(hits.map(function (h) { return Q.linesKey(h[0], h[1]); })).map(load));
  }
  function loadDocs(ids) { return Promise.all(Q.unique(ids.map(Q.docsKey)).map(load)); }
  function doc(id) { return Q.doc(pieces, id); }

  // A query's results: {defs, code, prose, codeFirst, common}; each list in its order.
  function run(query) {
    return load("files").then(function (table) {
      var wanted = Q.piecesFor(query, new Set(((table && table.code) || "").split(" ")));
      var prefixes = wanted.prefixes, shards = wanted.shards;
      return Promise.all([table].concat(prefixes.map(function (p) { return load("code/" + p); }),
                                        shards.map(function (n) { return load("text/" + n); })))
      .then(function (got) {
        /** @type {Object<string, any>} */
        var code = {};
        /** @type {Object<number, any>} */
        var text = {};
        var files = (got[0] && got[0].files) || [];
        prefixes.forEach(function (p, i) { code[p] = got[1 + i]; });
        shards.forEach(function (n, i) { text[n] = got[1 + prefixes.length + i]; });
        var defs = Q.definitions(query, code, files);
        var lines = Q.codeLines(query, code), ids = Q.proseDocs(query, text);
        var single = query.words.length === 1 && !query.quoted;
        var hits = Q.uses(defs, lines || []);
        var checking = single ? hits.slice(0, SHOWN) : hits.slice(0, CHECKED);
        return Promise.all([loadLines(checking), loadDocs(ids.slice(0, single ? SHOWN : CHECKED))]).then(function () {
          return {defs: defs, files: files, code: single ? hits : Q.rank(checking, query, codeText),
                  prose: single ? ids : Q.rank(ids.slice(0, CHECKED), query, proseText), common: lines === null,
                  codeFirst: !!query.name && (defs.length > 0 || hits.length > 0)};
        });
      });
    });
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
  function codeResult(h, files) {
    var path = files[h[0]][0];
    return {url: "source/" + path + ".html#L" + h[1], title: (codeText(h) || "").trim(), code: true,
            where: path + ":" + h[1]};
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
    var defs = results.defs.length ? group(results.defs, "Definitions", results.defs.length,
                                          function (d) { return item(d, query); }) : null;
    var code = results.code.length ? group(results.code, "Code", results.code.length,
                                          function (h) { return item(codeResult(h, results.files), query); },
                                          function (next) { return loadLines(next); }) : null;
    var prose = results.prose.length ? group(results.prose, "Notes and pages", results.prose.length,
                                            function (id) { return item(proseResult(id, query), query); },
                                            loadDocs) : null;
    [defs].concat(results.codeFirst ? [code, prose] : [prose, code]).forEach(function (s) { if (s) box.appendChild(s); });
    var total = results.defs.length + results.code.length + results.prose.length;
    return total ? total + " result" + (total === 1 ? "" : "s")
      : results.common ? "Every word is too common in the code to list; add a rarer one" : "No results";
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
    input.placeholder = "A name, words from the code or the notes, a \"quoted phrase\"";
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
    form.addEventListener("submit", function (e) {  // Enter in the box opens the first result
      e.preventDefault();
      var first = list.querySelector("a.rd-sr");
      if (first) first.click();
    });
    dialog.addEventListener("keydown", step);
    dialog.addEventListener("click", function (e) { if (e.target === dialog) dialog.close(); });
  }
  function ask() {
    var q = input.value, mine = ++asked, query = Q.parse(q);
    if (!query.words.length || (query.words.length === 1 && query.words[0].length < 2)) {
      list.textContent = "";
      status.textContent = "";
      return;
    }
    status.textContent = "Searching…";
    run(query).then(function (results) {
      if (mine !== asked) return;
      status.textContent = render(results, query, list);
    });
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
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", button);
  else button();
})();
