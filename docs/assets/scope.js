// @ts-check
// A source page's scopes (reader/render/scopes.py: each class and function with its lines and
// local names, from the page's paint script `assets/code/<path>.js`, which codeview.js loads; another
// file's, whose script a hover card loaded, is not this page's): a sticky line over the code naming the class and
// function of the topmost line in view, the outline's entry for it marked; and a name's
// occurrences marked (the CSS highlight `rd-ref`) when it is hovered, selected or focused: a
// local's in its function, any other name's in the whole file, not in strings or comments.
(function () {
  var script = /** @type {HTMLScriptElement | null} */ (document.currentScript);
  var BASE = script ? script.src.replace(/assets\/[\w.-]+\.js(?:[?#].*)?$/, "") : "";
  var IDENT = /[A-Za-z_][A-Za-z0-9_]*/;
  var LIMIT = 5000;  // occurrences marked at most
  var T = readerScopeTable;  // scopetable.js: which scopes hold a line, where a name means one thing
  var scopes = null, view = null, bar = null, count = null, current = null;

  window.readerScopes = {add: function (path, data) {
    if (path !== pagePath()) return;
    scopes = T.decode(data);
    update();
  }};

  function pagePath() {  // `source/<path>.html` -> `<path>`
    var here = location.href.split("#")[0].split("?")[0];
    if (here.indexOf(BASE) !== 0) return null;
    var m = /^source\/(.+)\.html$/.exec(decodeURIComponent(here.slice(BASE.length)));
    return m ? m[1] : null;
  }

  function lineNumber(el) {
    var line = el && el.closest && el.closest(".rd-k > div[id]");
    var m = line && /^L(\d+)$/.exec(line.id);
    return m ? +m[1] : 0;
  }

  // The sticky line.
  function topLine() {  // the first line below the bar: the last chunk, then line, starting above it
    var y = bar.getBoundingClientRect().bottom + 2;
    var chunk = last(view.querySelectorAll(".rd-k"), y);
    var line = chunk && last(chunk.children, y);
    return line ? lineNumber(line) : 0;
  }
  function last(els, y) {
    var lo = 0, hi = els.length - 1, found = null;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (els[mid].getBoundingClientRect().top <= y) { found = els[mid]; lo = mid + 1; } else hi = mid - 1;
    }
    return found;
  }
  function update() {
    if (!bar || !scopes) return;
    var n = topLine(), held = n ? T.chain(scopes, n) : [];
    var key = held.map(function (s) { return s.qualname; }).join(" ");
    if (key === current) return;
    current = key;
    var where = bar.querySelector(".rd-scope-where");
    where.textContent = "";
    held.forEach(function (s, i) {
      if (i) where.appendChild(document.createTextNode(" › "));
      var a = document.createElement("a");
      a.href = "#L" + s.start;
      a.textContent = T.label(s);
      where.appendChild(a);
    });
    if (!held.length) where.textContent = "module level";
    follow(held.length ? held[held.length - 1] : null);
  }
  function follow(scope) {  // the outline's entry for the scope in view
    var list = document.querySelector(".rd-ol");
    if (!list) return;
    var was = list.querySelector("a.rd-here");
    var link = scope ? list.querySelector('a[href="#L' + scope.start + '"]') : null;
    if (was === link) return;
    if (was) was.classList.remove("rd-here");
    if (!link) return;
    link.classList.add("rd-here");
    var panel = link.closest(".rd-outline-panel");
    if (panel && panel.scrollHeight > panel.clientHeight) {
      var top = /** @type {HTMLElement} */ (link).offsetTop - panel.clientHeight / 2;
      panel.scrollTop = Math.max(0, top);
    }
  }

  // Occurrences: the name in the role it was met in (scopetable.js's `role`): a name where it
  // means one thing (a local's function, else the file less the functions binding it again), an
  // attribute (`x.name`) or a call's keyword (`f(name=...)`) anywhere in the file; never inside a
  // string or a comment.
  function occurrences(name, line, as) {
    var where = as === "name" ? T.reach(scopes, name, line) : {from: 1, to: Infinity, skip: []};
    var ranges = [];
    var lines = view.querySelectorAll(".rd-k > div[id]");
    for (var i = 0; i < lines.length && ranges.length < LIMIT; i++) {
      var n = lineNumber(lines[i]);
      if (!T.within(where, n)) continue;
      var text = lines[i].textContent;
      if (text.indexOf(name) < 0) continue;
      collect(lines[i], T.columns(text, name, as, T.header(scopes, n)), name.length, ranges);
    }
    return ranges;
  }
  function collect(line, cols, length, ranges) {  // each column of the line's text, as a Range
    if (!cols.length) return;
    var walk = document.createTreeWalker(line, NodeFilter.SHOW_TEXT), node, at = 0, c = 0;
    while ((node = /** @type {Text | null} */ (walk.nextNode())) && c < cols.length) {
      var end = at + node.data.length;
      for (; c < cols.length && cols[c] < end; c++) {
        var parent = node.parentElement;
        if (cols[c] + length > end || parent.closest("a.rd-n") ||
            /(^|\s)(s\w*|c\w*)(\s|$)/.test(parent.className)) continue;
        var r = new Range();
        r.setStart(node, cols[c] - at);
        r.setEnd(node, cols[c] - at + length);
        ranges.push(r);
      }
      at = end;
    }
  }

  var marked = {name: "", line: 0, as: ""};
  function mark(name, line, as, elsewhere) {
    if (!window.CSS || !CSS.highlights || !scopes) return;
    if (name === marked.name && as === marked.as && (!name || T.same(scopes, line, marked.line))) return;
    marked = {name: name, line: line, as: as};
    var ranges = name && !elsewhere ? occurrences(name, line, as) : [];
    if (ranges.length) CSS.highlights.set("rd-ref", new Highlight(...ranges));
    else CSS.highlights.delete("rd-ref");
    count.textContent = elsewhere ? name + " is defined in " + elsewhere
      : ranges.length ? ranges.length + " \u00d7 " + (as === "attr" ? "." : "") + name + (as === "keyword" ? "=" : "") : "";
  }
  function again() {  // a chunk painted: its text nodes are new
    if (!marked.name) return;
    var m = marked;
    marked = {name: "", line: 0, as: ""};
    mark(m.name, m.line, m.as);
  }

  // The line a note's name is read at: the note's first line (`L12-L20`), as in the code.
  function noteLine(note) {
    var m = /L(\d+)(?:-L\d+)?$/.exec(note.getAttribute("data-lines") || "");
    return m ? +m[1] : 0;
  }

  // A name under the pointer (or selected, or focused) in the code or in a note: {name, line, as,
  // elsewhere}; `elsewhere`: the file a note's link to another page names (nothing is marked).
  function nameAt(node, start, end) {
    var text = node.data, word = text.slice(start, end);
    if (!(IDENT.test(word) && IDENT.exec(word)[0] === word && !/^\d/.test(word))) return null;
    var parent = node.parentElement, note = parent.closest(".rd-mn");
    if (note) {
      var a = parent.closest("a[href]"), href = a ? a.getAttribute("href") : "";
      if (href && href.charAt(0) !== "#") {
        var file = /(?:^|\/)source\/(.+?)\.html/.exec(decodeURIComponent(a.href.split("#")[0])) ||
                   /([^/]+\.py)\.html/.exec(decodeURIComponent(href.split("#")[0]));
        return {name: word, line: 0, as: "name", elsewhere: file ? file[1] : href.split("#")[0]};
      }
      return {name: word, line: noteLine(note), as: "name", elsewhere: ""};
    }
    var row = parent.closest(".rd-k > div[id]");
    if (!row) return null;
    var before = document.createRange();
    before.setStart(row, 0);
    before.setEnd(node, start);
    var n = lineNumber(row), col = before.toString().length;
    return {name: word, line: n, as: T.role(row.textContent, col, word, T.header(scopes, n)), elsewhere: ""};
  }

  function wordAt(x, y) {
    var pos = document.caretPositionFromPoint ? document.caretPositionFromPoint(x, y) : null;
    var node = /** @type {Text | null} */ (pos ? pos.offsetNode : null), at = pos ? pos.offset : 0;
    if (!pos && document.caretRangeFromPoint) {
      var r = document.caretRangeFromPoint(x, y);
      node = /** @type {Text | null} */ (r && r.startContainer);
      at = r ? r.startOffset : 0;
    }
    if (!node || node.nodeType !== 3 || !view.contains(node) || !scopes) return null;
    var text = node.data, start = at, end = at;
    while (start > 0 && /\w/.test(text[start - 1])) start--;
    while (end < text.length && /\w/.test(text[end])) end++;
    return nameAt(node, start, end);
  }

  function setUp() {
    view = document.querySelector(".rd-file .rd-code");
    var path = pagePath();
    if (!view || !path) return;
    bar = document.createElement("div");
    bar.className = "rd-scope";
    bar.innerHTML = '<span class="rd-scope-where"></span><span class="rd-scope-count" role="status"></span>' +
      '<span class="rd-scope-keys"><button type="button" data-k="line">Go to line <kbd>l</kbd></button>' +
      '<button type="button" data-k="files">Find a file <kbd>t</kbd></button></span>';
    bar.addEventListener("click", /** @param {MouseEvent & {target: HTMLElement}} e */ function (e) {
      var b = e.target.closest("button[data-k]");
      if (b && window.readerFinder) window.readerFinder[b.getAttribute("data-k")]();
    });
    count = bar.querySelector(".rd-scope-count");
    view.parentNode.insertBefore(bar, view);
    var header = document.querySelector(".md-header");
    function stick() {  // under the header, whatever its height
      var h = header ? header.getBoundingClientRect().height : 0;
      bar.style.top = h + "px";
      document.documentElement.style.setProperty("--rd-head", h + "px");  // the outline's button (outline.css)
      view.style.setProperty("--rd-scope-top", (h + bar.getBoundingClientRect().height) + "px");
    }
    requestAnimationFrame(stick);  // after the first layout: none forced while the page loads
    window.addEventListener("resize", stick);
    update();  // the scopes come in the page's paint script (codeview.js loads it): maybe here already
    var pending = false;
    window.addEventListener("scroll", function () {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () { pending = false; update(); });
    }, {passive: true});
    var hover = 0;
    view.addEventListener("mousemove", /** @param {MouseEvent & {target: HTMLElement}} e */ function (e) {
      clearTimeout(hover);
      hover = setTimeout(function () {
        if (hasSelection()) return;
        var w = wordAt(e.clientX, e.clientY);
        if (w) mark(w.name, w.line, w.as, w.elsewhere);
      }, 120);
    });
    view.addEventListener("mouseleave", function () {
      clearTimeout(hover);
      if (!hasSelection()) mark("", 0, "");
    });
    document.addEventListener("selectionchange", function () {
      var sel = window.getSelection(), text = sel ? sel.toString().trim() : "";
      var node = sel && sel.rangeCount ? sel.getRangeAt(0).startContainer : null;
      if (!text || !node || node.nodeType !== 3 || !view.contains(node) || !scopes) return;
      var start = sel.getRangeAt(0).startOffset, data = /** @type {Text} */ (node).data;
      while (start < data.length && /\s/.test(data[start])) start++;
      var w = data.slice(start, start + text.length) === text ? nameAt(/** @type {Text} */ (node), start, start + text.length) : null;
      if (w) mark(w.name, w.line, w.as, w.elsewhere);
    });
    view.addEventListener("focusin", /** @param {Event & {target: HTMLElement}} e */ function (e) {  // a name's link reached by Tab
      var a = e.target.closest("a:not(.rd-n)"), first = a && a.firstChild;
      while (first && first.nodeType !== 3) first = first.firstChild;
      var w = first && a.textContent === /** @type {Text} */ (first).data ? nameAt(/** @type {Text} */ (first), 0, a.textContent.length) : null;
      if (w) mark(w.name, w.line, w.as, w.elsewhere);
    });
    view.addEventListener("rd-painted", again);
  }
  function hasSelection() {
    var sel = window.getSelection();
    return sel && sel.toString().trim() && view.contains(sel.anchorNode);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
