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
  var CHUNK = 100, TEXT_SHARDS = 64, BUCKET = 16, SHOWN = 20, CHECKED = 60, PREFIXED = 24;  // CHECKED: candidates a phrase is checked in
  var KINDS = {"class": 0, "function": 1, "method": 2, "variable": 3};
  var WORD = /[A-Za-z0-9_]+/g;

  // Pieces: `put` is what each script calls; `load` resolves with the data, or null if the piece
  // does not exist (no word of the index begins with those letters).
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

  function words(text) { return (text.toLowerCase().match(WORD) || []); }
  function unique(list) { return list.filter(function (x, i) { return list.indexOf(x) === i; }); }
  function textShard(word) {  // searchindex.py's text_shard
    var h = 0;
    for (var i = 0; i < Math.min(2, word.length); i++) h = (h * 31 + word.charCodeAt(i)) % TEXT_SHARDS;
    return h;
  }
  function squash(text) { return text.toLowerCase().replace(/\s+/g, " ").trim(); }

  // The query: words, the phrase they make (quoted: the phrase is required), a dotted name.
  function parse(q) {
    var quoted = /^\s*"(.*)"\s*$/.exec(q);
    var text = quoted ? quoted[1] : q;
    return {text: text, phrase: squash(text), words: unique(words(text)), quoted: !!quoted,
            name: /^\s*[A-Za-z_][\w.]*\s*$/.test(text) ? text.trim() : ""};
  }

  function postings(spec) {  // "f:l,+d;f:l" -> [[f, line], ...]
    var out = [];
    spec.split(";").forEach(function (part) {
      var colon = part.indexOf(":"), f = +part.slice(0, colon), line = 0;
      part.slice(colon + 1).split(",").forEach(function (d) { line += +d; out.push([f, line]); });
    });
    return out;
  }
  function docIds(spec) {
    var id = 0;
    return spec.split(",").map(function (d) { id += +d; return id; });
  }

  // A word's entry in a piece, or the entries of the words it begins when it is the last word
  // typed and not a word itself.
  function entries(table, word, last) {
    if (!table) return [];
    if (word in table) return [table[word]];
    if (!last) return [];
    return Object.keys(table).filter(function (w) { return w.indexOf(word) === 0; })
      .slice(0, PREFIXED).map(function (w) { return table[w]; });
  }

  function intersect(lists, key) {  // lists of items -> those in every list (by key), once each
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

  function definitions(query, code, files) {
    if (!query.name) return [];
    var dotted = query.name.toLowerCase(), name = dotted.split(".").pop();
    var shard = code[name.slice(0, 3)];
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

  // Lines of code holding every word (the words on too many lines to list are checked in the
  // text); `null` when every word is that common.
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

  function lineText(f, n) {
    var chunk = pieces["lines/" + f + "/" + Math.floor((n - 1) / CHUNK)];
    return chunk ? chunk[(n - 1) % CHUNK] : null;
  }
  function loadLines(hits) {
    return Promise.all(unique(hits.map(function (h) { return "lines/" + h[0] + "/" + Math.floor((h[1] - 1) / CHUNK); }))
      .map(load));
  }

  function proseDocs(query, text) {
    var lists = query.words.map(function (w, i) {
      var found = entries(text[textShard(w)], w, i === query.words.length - 1 && !query.quoted);
      return [].concat.apply([], found.map(docIds));
    });
    return lists.length ? intersect(lists, function (x) { return x; }).sort(function (a, b) { return a - b; }) : [];
  }
  function doc(id) {
    var bucket = pieces["docs/" + Math.floor(id / BUCKET)];
    return bucket ? bucket[id % BUCKET] : null;
  }

  // A query's results: {defs, code, prose, codeFirst, common}; each list in its order.
  function run(query) {
    var shards = unique(query.words.map(textShard));
    return load("files").then(function (table) {
      var have = new Set(((table && table.code) || "").split(" "));
      var prefixes = unique(query.words.map(function (w) { return w.slice(0, 3); }))
        .filter(function (p) { return have.has(p); });
      return Promise.all([table].concat(prefixes.map(function (p) { return load("code/" + p); }),
                                        shards.map(function (n) { return load("text/" + n); })))
      .then(function (got) {
        var files = (got[0] && got[0].files) || [], code = {}, text = {};
        prefixes.forEach(function (p, i) { code[p] = got[1 + i]; });
        shards.forEach(function (n, i) { text[n] = got[1 + prefixes.length + i]; });
        var defs = definitions(query, code, files);
        var lines = codeLines(query, code), ids = proseDocs(query, text);
        var single = query.words.length === 1 && !query.quoted;
        var at = new Set(defs.map(function (d) { return d.file * 1e6 + d.line; }));
        var hits = (lines || []).filter(function (h) { return !at.has(h[0] * 1e6 + h[1]); });
        var checking = single ? hits.slice(0, SHOWN) : hits.slice(0, CHECKED);
        var buckets = unique(ids.slice(0, single ? SHOWN : CHECKED).map(function (id) { return "docs/" + Math.floor(id / BUCKET); }));
        return Promise.all([loadLines(checking), Promise.all(buckets.map(load))]).then(function () {
          return {defs: defs, files: files, code: single ? hits : rank(checking, query, codeText),
                  prose: single ? ids : rank(ids.slice(0, CHECKED), query, proseText), common: lines === null,
                  codeFirst: !!query.name && (defs.length > 0 || hits.length > 0)};
        });
      });
    });
  }
  function codeText(h) { return lineText(h[0], h[1]) || ""; }
  function proseText(id) { var d = doc(id); return d ? d[1] + " " + d[3] : ""; }

  // The phrase's matches first; a quoted phrase keeps only those.
  function rank(items, query, text) {
    if (query.words.length < 2 && !query.quoted) return items;
    var exact = [], loose = [];
    items.forEach(function (item) {
      (squash(text(item)).indexOf(query.phrase) >= 0 ? exact : loose).push(item);
    });
    return query.quoted ? exact : exact.concat(loose);
  }

  // Rendering.
  function marked(text, query, parent) {  // `text` with the query's words (or its phrase) marked
    var terms = query.quoted || query.words.length < 2 ? [query.text.trim()] : query.words;
    var pattern = terms.filter(Boolean).map(function (t) {  // a word from its start
      return (/^\w/.test(t) ? "(?<![A-Za-z0-9_])" : "") + t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    }).join("|");
    if (!pattern) { parent.appendChild(document.createTextNode(text)); return; }
    var re = new RegExp(pattern, "gi"), at = 0, m;
    while ((m = re.exec(text)) && m[0].length) {
      parent.appendChild(document.createTextNode(text.slice(at, m.index)));
      var mark = document.createElement("mark");
      mark.textContent = m[0];
      parent.appendChild(mark);
      at = m.index + m[0].length;
    }
    parent.appendChild(document.createTextNode(text.slice(at)));
  }
  function excerpt(text, query) {  // the text around its first match
    var lower = text.toLowerCase(), at = lower.indexOf(query.phrase);
    if (at < 0 && query.words.length) at = lower.indexOf(query.words[0]);
    var start = Math.max(0, at - 60);
    return (start ? "…" : "") + text.slice(start, start + 220) + (start + 220 < text.length ? "…" : "");
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
    return {url: d[0], title: d[1], where: d[2], text: excerpt(d[3], query)};
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
                                            function (next) {
                                              return Promise.all(unique(next.map(function (id) { return "docs/" + Math.floor(id / BUCKET); })).map(load));
                                            }) : null;
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
    var q = input.value, mine = ++asked, query = parse(q);
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
