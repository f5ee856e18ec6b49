// @ts-check
// The linked IR view (reader/render/irview.py): a kernel line and the ops lowered from it share
// `data-k`; selecting one (click a line or an op, Enter/Space on either) marks the other and
// scrolls it into view inside its pane; hovering a line marks its ops without scrolling (a
// pointer crossing the kernel on its way elsewhere does not move the reader's place). On a line, n/p go to the first/last op of the
// selection and ↓/↑ to the next/previous line; on an op, n/p or ↓/↑ go to the next/previous op
// of the selection; Escape clears it. Tabs choose a kernel's backend. Works from file://.
// A module's panes are not in the page: each is a script (irview.py's part_script) calling
// readerIr.pack(module id, HTML packed: reader.js's readerInflate) and so put(module id, HTML), loaded by a <script> tag when the module's tab is shown and the
// module is near the viewport, or when the URL's fragment points into it. A part of another view
// (a long source file's rows, codeview.js) is loaded by `fetch` and handed to the view's own taker.
(function () {
  "use strict";

  var painted = {};  // module id -> the functions waiting for its panes
  var runs = {};  // module id -> the HTML of each run of ops lines, null once painted
  var takers = {};  // element id -> what takes the HTML of its part when it is no module's panes
  var RUN = "<!--ir-k-->";  // before each run of a part's lines (reader/packed.py's RUN_MARK)

  function addScript(src) {
    var script = document.createElement("script");
    script.src = src;
    document.head.appendChild(script);
  }

  // The ops pane comes in runs of lines, each after an <!--ir-k--> mark: a run is an empty
  // `.ir-k` (sized by its --rows) until it comes near the pane's view or a selection needs it.
  window.readerIr = {
    RUN: RUN,
    put: function (id, html) {
      if (takers[id]) { var take = takers[id]; delete takers[id]; take(html); return; }
      var panel = document.getElementById(id), view = panel && panel.querySelector(".ir-view[data-part]");
      if (!view) return;
      var pieces = html.split(RUN), todo = pieces.slice(1, -1);
      view.innerHTML = pieces[0] + todo.map(function (run, i) {
        return run.slice(0, run.indexOf(">")) + ' data-i="' + i + '"></div>';
      }).join("") + pieces[pieces.length - 1];
      runs[id] = todo;
      view.removeAttribute("data-part");
      view.removeAttribute("aria-busy");
      paintNear(panel);
      (painted[id] || []).forEach(function (f) { f(); });
      delete painted[id];
    },
    pack: function (id, b64) {
      window.readerInflate(b64).then(function (html) { window.readerIr.put(id, html); });
    },
    // Another view's part (codeview.js: a long file's rows): the script of `el`'s `data-part`
    // loaded once, its HTML handed to `take`.
    fetch: function (el, take) {
      if (!el.id || el.hasAttribute("data-loading")) return;
      el.setAttribute("data-loading", "true");
      takers[el.id] = take;
      addScript(el.getAttribute("data-part"));
    }
  };

  function paintRun(panel, i) {
    var todo = runs[panel.id], run = todo && todo[i];
    var slot = run && panel.querySelector('.ir-k[data-i="' + i + '"]');
    if (!slot) return;
    todo[i] = null;
    slot.insertAdjacentHTML("afterend", run);
    slot.remove();
  }

  // Paint the runs whose HTML passes `test` (holds a line's id, a key in a data-k).
  function paintHolding(panel, test) {
    (runs[panel.id] || []).forEach(function (run, i) { if (run && test(run)) paintRun(panel, i); });
  }

  function paintKey(panel, key) {
    var re = new RegExp('data-k="(?:[^"]* )?' + key.replace(/[^\w-]/g, "") + '[ "]');
    paintHolding(panel, function (run) { return re.test(run); });
  }

  function paintNear(panel) {
    var pane = panel.querySelector(".ir-ir-pane"), slots = panel.querySelectorAll(".ir-k[data-i]");
    if (!pane || !slots.length) return;
    if (!("IntersectionObserver" in window)) { slots.forEach(function (s) { paintRun(panel, +s.dataset.i); }); return; }
    var seen = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting) { seen.unobserve(e.target); paintRun(panel, +(/** @type {HTMLElement} */ (e.target)).dataset.i); }
      });
    }, {root: pane, rootMargin: "100% 0px"});
    slots.forEach(function (s) { seen.observe(s); });
  }

  // Paint the module's panes (once), then call `then`.
  function load(panel, then) {
    var view = panel.querySelector(".ir-view[data-part]");
    if (!view) { if (then) then(); return; }
    if (then) (painted[panel.id] = painted[panel.id] || []).push(then);
    if (view.dataset.loading) return;
    view.dataset.loading = "true";
    addScript(view.getAttribute("data-part"));
  }

  // A hidden module is never in view: its panes load when its tab shows it near the viewport.
  function loadNear(doc) {
    var views = doc.querySelectorAll(".ir-view[data-part]");
    if (!("IntersectionObserver" in window)) {
      views.forEach(function (v) { if (!panelOf(v).hidden) load(panelOf(v)); });
      return;
    }
    var seen = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting) { seen.unobserve(e.target); load(panelOf(e.target)); }
      });
    }, {rootMargin: "800px 0px"});
    views.forEach(function (v) { seen.observe(v); });
  }

  // The module holding the element `id` once painted: the longest module id it starts with.
  function moduleOf(id) {
    var best = null;
    document.querySelectorAll(".ir-module").forEach(function (m) {
      if (id.indexOf(m.id + "-") === 0 && (!best || m.id.length > best.id.length)) best = m;
    });
    return best;
  }

  function panelOf(el) { return el.closest(".ir-module"); }

  function opsOf(panel, key) {
    return Array.prototype.slice.call(panel.querySelectorAll('.ir-op[data-k~="' + key + '"]'));
  }

  function lineOf(panel, key) {
    return panel.querySelector('.ir-src[data-k="' + key + '"]');
  }

  // Scroll `el` into its scrolling pane's view (the pane only); with `page`, also into the window's.
  // Lines not yet laid out count one line high (irview.css), so the scroll is corrected over the
  // next frames, as the lines it passed are laid out.
  function reveal(el, page, tries) {
    var pane = el.closest(".ir-scroll");
    if (pane) {
      var d = el.getBoundingClientRect().top - pane.getBoundingClientRect().top;
      if (d < 0 || d + el.offsetHeight > pane.clientHeight) pane.scrollTop += d - pane.clientHeight / 3;
      if ((tries || 0) < 8) requestAnimationFrame(function () { reveal(el, false, (tries || 0) + 1); });
    }
    if (page) el.scrollIntoView({block: "nearest"});
  }

  function clear(panel) {
    panel.querySelectorAll(".ir-sel, .ir-cur").forEach(function (el) {
      el.classList.remove("ir-sel", "ir-cur");
      el.removeAttribute("aria-current");
    });
    delete panel.dataset.sel;
  }

  // Select the kernel line `key` and its ops; `from` is the element chosen (a line or an op);
  // `still`: mark them only, scrolling nothing.
  function select(panel, key, from, page, still) {
    paintKey(panel, key);
    clear(panel);
    panel.dataset.sel = key;
    var line = lineOf(panel, key), ops = opsOf(panel, key);
    if (line) { line.classList.add("ir-sel"); line.setAttribute("aria-current", "true"); }
    ops.forEach(function (op) { op.classList.add("ir-sel"); });
    if (from && from.classList.contains("ir-op")) {
      from.classList.add("ir-cur");
      from.setAttribute("aria-current", "true");
      if (line && !still) reveal(line, page);
    } else if (ops.length && !still) {
      reveal(ops[0], page);
    }
  }

  function firstKey(op) { return (op.dataset.k || "").split(" ")[0]; }

  // Focus the op `step` away from the current one among the selection's ops (wrapping).
  function stepOp(panel, from, step) {
    var key = panel.dataset.sel;
    if (!key) { key = from.classList.contains("ir-op") ? firstKey(from) : from.dataset.k; select(panel, key, null, false); }
    var ops = opsOf(panel, key);
    if (!ops.length) return;
    var at = ops.indexOf(from.classList.contains("ir-op") ? from : panel.querySelector(".ir-op.ir-cur"));
    var next = at < 0 ? (step > 0 ? ops[0] : ops[ops.length - 1]) : ops[(at + step + ops.length) % ops.length];
    panel.querySelectorAll(".ir-cur").forEach(function (el) { el.classList.remove("ir-cur"); el.removeAttribute("aria-current"); });
    next.classList.add("ir-cur");
    next.setAttribute("aria-current", "true");
    reveal(next, true);
    next.focus({preventScroll: true});
  }

  function stepLine(panel, from, step) {
    var lines = Array.prototype.slice.call(panel.querySelectorAll(".ir-src[data-k]"));
    var next = lines[lines.indexOf(from) + step];
    if (next) { reveal(next, true); next.focus({preventScroll: true}); }
  }

  function onKey(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var tab = e.target.closest('[role="tab"]');
    if (tab) { tabKey(e, tab); return; }
    var el = e.target.closest(".ir-src[data-k], .ir-op[data-k]");
    if (!el || e.target.closest("a")) return;
    var panel = panelOf(el), isOp = el.classList.contains("ir-op"), k = e.key, done = true;
    if (k === "Enter" || k === " ") select(panel, isOp ? firstKey(el) : el.dataset.k, el, true);
    else if (k === "n" || (isOp && k === "ArrowDown")) stepOp(panel, el, 1);
    else if (k === "p" || (isOp && k === "ArrowUp")) stepOp(panel, el, -1);
    else if (k === "ArrowDown") stepLine(panel, el, 1);
    else if (k === "ArrowUp") stepLine(panel, el, -1);
    else if (k === "Escape") clear(panel);
    else done = false;
    if (done) { e.preventDefault(); e.stopPropagation(); }  // n/p are also the theme's page keys
  }

  function onClick(e) {
    var tab = e.target.closest('[role="tab"]');
    if (tab) { show(tab); return; }
    if (e.target.closest("a")) return;
    var el = e.target.closest(".ir-src[data-k], .ir-op[data-k]");
    if (!el) return;
    select(panelOf(el), el.classList.contains("ir-op") ? firstKey(el) : el.dataset.k, el, false);
  }

  function onHover(e) {
    var line = e.target.closest(".ir-src[data-k]");
    var panel = line && panelOf(line);
    if (line && panel.dataset.sel !== line.dataset.k) select(panel, line.dataset.k, line, false, true);
  }

  function tabsOf(tab) { return Array.prototype.slice.call(tab.parentElement.querySelectorAll('[role="tab"]')); }

  function show(tab) {
    tabsOf(tab).forEach(function (t) {
      var on = t === tab, panel = document.getElementById(t.getAttribute("aria-controls"));
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      if (panel) panel.hidden = !on;
      if (panel && on) load(panel);
    });
  }

  function tabKey(e, tab) {
    var tabs = tabsOf(tab), at = tabs.indexOf(tab), to = null;
    if (e.key === "ArrowRight") to = tabs[(at + 1) % tabs.length];
    else if (e.key === "ArrowLeft") to = tabs[(at - 1 + tabs.length) % tabs.length];
    else if (e.key === "Home") to = tabs[0];
    else if (e.key === "End") to = tabs[tabs.length - 1];
    if (to) { e.preventDefault(); e.stopPropagation(); show(to); to.focus(); }
  }

  // The tab holding the URL's fragment, when it points into the view.
  function fromHash() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    var panel = el ? el.closest(".ir-module") : id && moduleOf(id);
    if (!panel) return;
    var tab = document.getElementById(panel.id + "-tab");
    if (tab && tab.closest('[role="tablist"]') && !(/** @type {HTMLElement} */ (tab.closest('[role="tablist"]'))).hidden) show(tab);
    load(panel, function () {
      paintHolding(panel, function (run) { return run.indexOf('id="' + id + '"') >= 0; });
      var found = document.getElementById(id);
      if (!found || !found.closest(".ir-view")) return;
      if (found.dataset.k) select(panel, found.classList.contains("ir-op") ? firstKey(found) : found.dataset.k, found, false);
      reveal(found, true);
    });
  }

  function setUp() {
    document.querySelectorAll(".ir-doc").forEach(function (doc) {
      doc.querySelectorAll('.ir-tabs[role="tablist"]').forEach(function (list) {
        var tabs = list.querySelectorAll('[role="tab"]');
        if (tabs.length > 1) { /** @type {HTMLElement} */ (list).hidden = false; show(tabs[0]); }
      });
      doc.addEventListener("keydown", onKey);
      doc.addEventListener("click", onClick);
      doc.addEventListener("mouseover", onHover);
      loadNear(doc);
    });
    fromHash();
  }

  window.addEventListener("hashchange", fromHash);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
