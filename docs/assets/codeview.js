// The code view (reader/render/code.py). Lines come in chunks (`.rd-k`) of plain text and links;
// a chunk near the viewport gets its highlighting back (token runs in its `data-h`, classes and
// link titles in the view's `data-c` and `data-t`) and its line-number links (`a.rd-n`, which
// reader.js's line menu uses). Notes sit beside their lines and stick while their block scrolls;
// a note taller than the room before the next note folds behind "more". Hovering or focusing a
// note tints its lines, and a line tints its notes.
(function () {
  var LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  var RUN = /([a-zA-Z]+)(\d+)/g;
  var WIDE = "screen and (min-width: 60.0625em)";  // reader.css's narrow layout is max-width: 60em

  function tables(view) {  // code.py's _Shrunk.attributes
    if (!view.rdData) {
      var titles = {};
      (view.getAttribute("data-t") || "").split("\n").forEach(function (pair) {
        var tab = pair.indexOf("\t");
        if (tab > 0) titles[pair.slice(0, tab)] = pair.slice(tab + 1);
      });
      view.rdData = {c: (view.getAttribute("data-c") || "").split(" "), t: titles};
    }
    return view.rdData;
  }

  function classIndex(code) {  // code.py's _Shrunk._code, inverted
    var n = 0;
    for (var i = 0; i < code.length - 1; i++) n = (n + LETTERS.indexOf(code[i]) + 1) * 52;
    return n + LETTERS.indexOf(code[code.length - 1]);
  }

  function token(cls, node) {
    if (!cls) return node;
    var span = document.createElement("span");
    span.className = cls;
    span.appendChild(node);
    return span;
  }

  function paintLine(row, spec, data) {
    var runs = [], m, r = -1, left = 0;
    RUN.lastIndex = 0;
    while ((m = RUN.exec(spec))) runs.push([data.c[classIndex(m[1])] || "", +m[2]]);
    function current() {
      while (left === 0 && r + 1 < runs.length) { r++; left = runs[r][1]; }
      return left > 0 ? runs[r][0] : "";
    }
    Array.prototype.slice.call(row.childNodes).forEach(function (node) {
      if (node.nodeType === 3) {
        var text = node.data, pos = 0, out = document.createDocumentFragment();
        while (pos < text.length) {
          var cls = current(), take = left > 0 ? Math.min(left, text.length - pos) : text.length - pos;
          out.appendChild(token(cls, document.createTextNode(text.substr(pos, take))));
          pos += take;
          left = Math.max(0, left - take);
        }
        row.replaceChild(out, node);
      } else if (node.nodeType === 1 && node.textContent.length) {
        var cls2 = current();
        if (node.tagName === "A") {  // a link keeps its place (and focus): the class goes on it
          var title = data.t[node.getAttribute("href")];
          if (title && !node.title) node.title = title;
          if (cls2) node.classList.add(cls2);
        } else if (cls2) {
          row.replaceChild(token(cls2, node.cloneNode(true)), node);
        }
        left = Math.max(0, left - node.textContent.length);
      }
    });
    var number = document.createElement("a");
    number.className = "rd-n";
    number.href = "#" + row.id;
    number.setAttribute("aria-label", "line " + (/(\d+)$/.exec(row.id) || ["", ""])[1]);
    row.insertBefore(number, row.firstChild);
  }

  function paint(chunk) {
    if (chunk.rdPainted) return;
    chunk.rdPainted = true;
    var data = tables(chunk.closest(".rd-code"));
    var specs = (chunk.getAttribute("data-h") || "").split(" ");
    for (var i = 0; i < chunk.children.length; i++) paintLine(chunk.children[i], specs[i] || "", data);
    chunk.classList.add("rd-on");
  }
  window.readerCode = {paint: paint};

  function paintNear(chunks) {
    if (!("IntersectionObserver" in window)) { chunks.forEach(paint); return; }
    var seen = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting) { seen.unobserve(e.target); paint(e.target); }
      });
    }, {rootMargin: "1500px 0px"});
    chunks.forEach(function (chunk) { seen.observe(chunk); });
    window.addEventListener("beforeprint", function () { chunks.forEach(paint); });
    document.addEventListener("focusin", function (e) {  // Tab into a chunk not yet painted
      var chunk = e.target.closest && e.target.closest(".rd-k");
      if (chunk) paint(chunk);
    });
  }

  // Notes: each block's notes get the room down to the next noted block (or the view's end);
  // more than that folds, with a button to unfold (over what follows) and fold again.
  function fold(view) {
    var blocks = view.querySelectorAll(":scope > .rd-noted"), wide = matchMedia(WIDE).matches;
    var tops = Array.prototype.map.call(blocks, function (b) { return b.getBoundingClientRect().top; });
    tops.push(view.getBoundingClientRect().bottom);
    Array.prototype.forEach.call(blocks, function (block, i) {
      var notes = block.querySelector(".rd-ns"), room = Math.floor(tops[i + 1] - tops[i]);
      var button = notes.querySelector(":scope > .rd-more");
      var folds = wide && notes.scrollHeight > room + 1;
      notes.classList.toggle("rd-fold", folds);
      if (folds && notes.style.getPropertyValue("--rd-room") !== room + "px") {
        notes.style.setProperty("--rd-room", room + "px");
      }
      if (folds && !button) {
        button = document.createElement("button");
        button.type = "button";
        button.className = "rd-more";
        button.setAttribute("aria-expanded", "false");
        button.textContent = "more";
        notes.appendChild(button);
      }
      if (button) button.hidden = !folds;
    });
  }

  function unfold(notes, open) {
    var button = notes.querySelector(":scope > .rd-more");
    notes.classList.toggle("rd-open", open);
    if (button) {
      button.setAttribute("aria-expanded", String(open));
      button.textContent = open ? "less" : "more";
    }
  }

  // A note the URL names (`#note-x`) is shown whole, even where its block folds it.
  var shown = null;
  function showTarget() {
    var id = location.hash.slice(1), el = null;
    try { el = id && document.getElementById(decodeURIComponent(id)); } catch (err) { el = null; }
    var notes = el && el.closest && el.closest(".rd-ns.rd-fold");
    if (!notes || notes === shown) return;
    shown = notes;
    unfold(notes, true);
    el.scrollIntoView({block: "start"});
  }

  function foldAll(views) {
    var pending = false;
    function run() { pending = false; views.forEach(fold); showTarget(); }
    function later() { if (!pending) { pending = true; requestAnimationFrame(run); } }
    // A ResizeObserver reports every size once after the first layout, before the first paint:
    // no layout forced while the page loads.
    if (!("ResizeObserver" in window)) run();
    else {
      var watch = new ResizeObserver(run);
      views.forEach(function (v) {
        watch.observe(v);
        v.querySelectorAll(".rd-mn").forEach(function (n) { watch.observe(n); });
      });
    }
    window.addEventListener("resize", later);
    window.addEventListener("hashchange", function () { shown = null; showTarget(); });
    document.addEventListener("click", function (e) {
      var button = e.target.closest && e.target.closest(".rd-more");
      if (button) unfold(button.parentElement, !button.parentElement.classList.contains("rd-open"));
    });
  }

  // Hover and focus: a note and its lines, together.
  function linesOf(note) {
    var m = /^(.*?)L(\d+)(?:-L(\d+))?$/.exec(note.getAttribute("data-lines") || ""), out = [];
    if (!m) return out;
    for (var n = +m[2]; n <= +(m[3] || m[2]); n++) {
      var line = document.getElementById(m[1] + "L" + n);
      if (line) out.push(line);
    }
    return out;
  }

  function notesOf(line) {
    var block = line.closest(".rd-noted"), n = +(/(\d+)$/.exec(line.id) || [0, 0])[1];
    if (!block) return [];
    return Array.prototype.filter.call(block.querySelectorAll(".rd-mn"), function (note) {
      var m = /L(\d+)(?:-L(\d+))?$/.exec(note.getAttribute("data-lines") || "");
      return m && +m[1] <= n && n <= +(m[2] || m[1]);
    });
  }

  // Two sources, each with its own tinted set: the pointer and the keyboard focus.
  var hot = {pointer: {key: null, els: []}, focus: {key: null, els: []}};
  function heat(source, el) {
    var note = el && el.closest && el.closest(".rd-mn");
    var line = !note && el && el.closest && el.closest(".rd-noted .rd-k > div");
    var key = note || line || null, slot = hot[source], other = hot[source === "focus" ? "pointer" : "focus"];
    if (key === slot.key) return;
    slot.els.forEach(function (h) { if (other.els.indexOf(h) < 0) h.classList.remove("rd-hot"); });
    slot.key = key;
    slot.els = note ? [note].concat(linesOf(note)) : line ? notesOf(line) : [];
    slot.els.forEach(function (h) { h.classList.add("rd-hot"); });
  }

  // The chunks first in view, painted at once: the URL's line (`#L75-L83`, `#core-L12`, a
  // definition's id) and the one after it, else the page's first two chunks.
  function paintFirst(chunks) {
    var id = location.hash.slice(1), el = null;
    try { id = decodeURIComponent(id); } catch (err) { /* the raw fragment */ }
    if (id) el = document.getElementById(id.replace(/^(.*?L\d+)-(?:.*?)L\d+$/, "$1"));
    var at = el && el.closest(".rd-k") ? chunks.indexOf(el.closest(".rd-k")) : 0;
    chunks.slice(Math.max(at, 0), Math.max(at, 0) + 2).forEach(paint);
  }

  function start() {
    var chunks = Array.prototype.slice.call(document.querySelectorAll(".rd-k"));
    if (!chunks.length) return;
    paintFirst(chunks);
    paintNear(chunks);
    var views = Array.prototype.slice.call(document.querySelectorAll(".rd-code.rd-margin"));
    if (views.length) {
      foldAll(views);
      document.addEventListener("mouseover", function (e) { heat("pointer", e.target); });
      document.addEventListener("focusin", function (e) { heat("focus", e.target); });
      document.addEventListener("focusout", function (e) { if (!e.relatedTarget) heat("focus", null); });
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
