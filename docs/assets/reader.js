// @ts-check
// Data scripts stored packed (reader/packed.py): their text gzipped and base64'd, inflated here by
// the browser's DecompressionStream (the IR panes, the search index).
/** @param {string} b64 @returns {Promise<string>} */
window.readerInflate = function (b64) {
  var bytes = Uint8Array.from(atob(b64), function (c) { return c.charCodeAt(0); });
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
};
/** A data script packed whole: `object.method(...args)` once its arguments are inflated (and once
 * the page's scripts have run, where `object` is not defined yet: a source page's paint script,
 * loaded by codeview.js, carries the scopes of scope.js, which comes after it).
 * @param {string} object @param {string} method @param {string} b64 */
window.readerPacked = function (object, method, b64) {
  window.readerInflate(b64).then(function (text) {
    function call() {
      var target = /** @type {any} */ (window)[object];
      target[method].apply(target, JSON.parse(text));
    }
    if (!(object in window) && document.readyState === "loading") document.addEventListener("DOMContentLoaded", call);
    else call();
  });
};

/** Data scripts loaded on demand, one a key (a page's cards, its uses, a file's line changes):
 * `load(key, src, done)` adds the script once and calls `done` with what it hands to `add(key,
 * data)`; a script that fails to load gives `missing` where there is one, else drops its waiters.
 * @returns {ReaderScripts} */
window.readerScripts = function () {
  /** @type {Record<string, any>} */ var data = {};
  /** @type {Record<string, ((d: any) => void)[]>} */ var waiting = {};
  function add(key, d) {
    data[key] = d;
    var calls = waiting[key] || [];
    delete waiting[key];
    calls.forEach(function (call) { call(d); });
  }
  function load(key, src, done, missing) {
    if (data[key]) { done(data[key]); return; }
    if (waiting[key]) { waiting[key].push(done); return; }
    waiting[key] = [done];
    var s = document.createElement("script");
    s.src = src;
    s.charset = "utf-8";
    s.onerror = function () { if (missing === undefined) delete waiting[key]; else add(key, missing); };
    document.head.appendChild(s);
  }
  return {add: add, load: load};
};

// Opens a <details> element when the URL's fragment points at it or into it (where-used lists).
(function () {
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id) return;
    var el = document.getElementById(id);
    for (var node = el; node; node = node.parentElement) {
      if (node instanceof HTMLDetailsElement) node.open = true;
    }
    var details = el && /** @type {HTMLDetailsElement | null} */ (el.querySelector(":scope > details"));
    if (details) details.open = true;
  }
  window.addEventListener("hashchange", openTarget);
  document.addEventListener("DOMContentLoaded", openTarget);
})();

// A long report's closed <details> come empty (`data-i`), their bodies in a part of the page
// (reader/render/common/folds.py: `#rd-folds`'s `data-part`, loaded as the page loads through
// irview.js's readerIr.fetch, each body after a run mark): a <details> gets its body when opened, or
// when the URL names an element inside it, which is then shown.
(function () {
  var bodies = null, waiting = [];
  function whenHere(then) { if (bodies) then(); else waiting.push(then); }
  function fill(details) {
    var i = details.getAttribute("data-i");
    if (i === null || !bodies || bodies[+i] == null) return;
    details.insertAdjacentHTML("beforeend", bodies[+i]);
    bodies[+i] = null;
    details.removeAttribute("data-i");
  }
  function toTarget() {
    var id = location.hash.slice(1);
    try { id = decodeURIComponent(id); } catch (err) { /* the raw fragment */ }
    if (!id || document.getElementById(id)) return;
    whenHere(function () {
      var needle = 'id="' + id.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;") + '"';
      var i = bodies.findIndex(function (b) { return b != null && b.indexOf(needle) >= 0; });
      var details = /** @type {HTMLDetailsElement | null} */ (i < 0 ? null : document.querySelector('details[data-i="' + i + '"]'));
      if (!details) return;
      fill(details);
      details.open = true;
      var el = document.getElementById(id);
      if (el) el.scrollIntoView();
    });
  }
  function setUp() {
    var marker = document.getElementById("rd-folds");
    if (!marker || !window.readerIr) return;
    window.readerIr.fetch(marker, function (html) {
      bodies = html.split(window.readerIr.RUN).slice(1);
      waiting.forEach(function (then) { then(); });
      waiting = [];
    });
    document.addEventListener("toggle", /** @param {Event & {target: HTMLDetailsElement}} e */ function (e) {
      var details = e.target;
      if (details.open && details.hasAttribute && details.hasAttribute("data-i")) whenHere(function () { fill(details); });
    }, true);
    toTarget();
    window.addEventListener("hashchange", toTarget);
  }
  document.addEventListener("DOMContentLoaded", setUp);
})();

// Line anchors as in a code browser. A line number (`#L12`, `#core-L12` on an article's second
// file) selects its line and opens a menu: copy a link, open the line on the full source page,
// open it on GitHub at the pinned commit. Shift-click (Shift+Enter) extends the selection to a
// range, `#L75-L83`; a range in the URL scrolls to its first line and tints its lines. One
// listener for the whole page; the menu is built once, on first use. Works from file://.
(function () {
  var RANGE = /^(.*?)L(\d+)(?:-(?:\1)?L(\d+))?$/;
  var MAX = 10000;
  var LINE = ".rd-k > div";  // a code line (codeview.css)
  var selected = [];
  var anchor = null;  // {prefix, n}: the line a shift-click extends from
  var menu = null, trigger = null;

  function need(id) {  // a long file's row, put in first (codeview.js)
    if (window.readerCode) window.readerCode.need(id);
  }

  function lineEl(prefix, n) {
    need(prefix + "L" + n);
    var el = document.getElementById(prefix + "L" + n);
    return el && el.matches(LINE) ? el : null;
  }

  // {prefix, a, b, first} for a fragment naming a line, a range or an anchor on a line; else null.
  function parse(id) {
    var m = RANGE.exec(id);
    if (m && lineEl(m[1], +m[2])) {
      var a = +m[2], b = m[3] ? +m[3] : a;
      if (b < a) { var t = a; a = b; b = t; }
      return {prefix: m[1], a: a, b: Math.min(b, a + MAX), first: lineEl(m[1], a)};
    }
    if (id) need(id);
    var el = id && document.getElementById(id);
    var line = el && el.closest(LINE);
    m = line && RANGE.exec(line.id);
    return m ? {prefix: m[1], a: +m[2], b: +m[2], first: line} : null;
  }

  function fragment(sel, prefix) {
    return prefix + "L" + sel.a + (sel.b > sel.a ? "-L" + sel.b : "");
  }

  function select(sel) {
    selected.forEach(function (el) { el.classList.remove("rd-sel"); });
    selected = [];
    if (!sel) return;
    for (var n = sel.a; n <= sel.b; n++) {
      var el = lineEl(sel.prefix, n);
      if (el) { el.classList.add("rd-sel"); selected.push(el); }
    }
  }

  // A `def` or `class` line lands with its decorators in view (`@register_lowering_rule(...)`
  // says what the function is for): the first line of the decorators right above it.
  function decorated(line) {
    var text = line.textContent, indent = /^ */.exec(text)[0].length, top = line;
    if (!/^ *(async +def|def|class) /.test(text)) return line;
    for (var el = line.previousElementSibling || prevChunkLine(line), n = 0; el && n < 30; n++) {
      var t = el.textContent, i = /^ */.exec(t)[0].length;
      if (!t.trim() || (i <= indent && !/^ *[@)\]]/.test(t))) break;
      if (i === indent && t.charAt(i) === "@") top = el;
      el = el.previousElementSibling || prevChunkLine(el);
    }
    return top;
  }
  function prevChunkLine(line) {
    var chunk = line.parentElement.previousElementSibling;
    return chunk && chunk.matches(".rd-k") ? chunk.lastElementChild : null;
  }

  function fromHash(scroll) {
    var id = location.hash.slice(1);
    try { id = decodeURIComponent(id); } catch (err) { /* a malformed escape: the raw fragment */ }
    var sel = parse(id);
    select(sel);
    if (sel) anchor = {prefix: sel.prefix, n: sel.a};
    if (sel && scroll) decorated(sel.first).scrollIntoView({block: "start"});
  }

  function item(tag, text) {
    var el = document.createElement(tag);
    el.setAttribute("role", "menuitem");
    el.tabIndex = -1;
    el.className = "rd-menu-item";
    el.textContent = text;
    return el;
  }

  function buildMenu() {
    menu = document.createElement("div");
    menu.className = "rd-menu";
    menu.id = "rd-line-menu";
    menu.setAttribute("role", "menu");
    menu.hidden = true;
    var copy = item("button", "");
    copy.type = "button";
    copy.dataset.act = "copy";
    var page = item("a", "Open on the full source page");
    page.dataset.act = "page";
    var github = item("a", "");
    github.dataset.act = "github";
    github.rel = "noopener";
    var status = document.createElement("span");
    status.className = "rd-menu-status";
    status.setAttribute("role", "status");
    menu.append(copy, page, github, status);
    menu.addEventListener("keydown", menuKey);
    menu.addEventListener("click", /** @param {MouseEvent & {target: HTMLElement}} e */ function (e) {
      var act = /** @type {HTMLElement | null} */ (e.target.closest("[data-act]"));
      if (act && act.dataset.act === "copy") copyLink(act);
      else if (act) close(false);
    });
    document.body.appendChild(menu);
  }

  function open(number, sel) {
    if (!menu) buildMenu();
    var file = number.closest("[data-blob], [data-page]");
    var frag = fragment(sel, sel.prefix), plain = fragment(sel, "");
    var what = sel.b > sel.a ? "lines " + sel.a + "\u2013" + sel.b : "line " + sel.a;
    var blob = file ? file.getAttribute("data-blob") : "";
    var page = file ? file.getAttribute("data-page") : "";
    var short = (/\/blob\/([0-9a-f]{7})/.exec(blob || "") || [])[1] || "the pinned commit";
    var items = menu.querySelectorAll(".rd-menu-item");
    items[0].textContent = "Copy link to " + what;
    items[0].dataset.href = location.href.split("#")[0] + "#" + frag;
    items[1].hidden = !page;
    items[1].href = page ? page + "#" + plain : "#";
    items[2].hidden = !blob;
    items[2].href = blob ? blob + "#" + plain : "#";
    items[2].textContent = "Open on GitHub at " + short + " \u2197";
    menu.querySelector(".rd-menu-status").textContent = "";
    menu.setAttribute("aria-label", what.charAt(0).toUpperCase() + what.slice(1));
    if (trigger && trigger !== number) trigger.removeAttribute("aria-expanded");
    trigger = number;
    number.setAttribute("aria-expanded", "true");
    number.setAttribute("aria-controls", menu.id);
    menu.hidden = false;
    place(number);
    items[0].focus();
  }

  function place(number) {
    // Beside the number, over the code: the numbers below stay free for a shift-click.
    var r = number.getBoundingClientRect();
    var left = Math.max(4, Math.min(r.right + 4, document.documentElement.clientWidth - menu.offsetWidth - 4));
    menu.style.left = left + window.scrollX + "px";
    menu.style.top = r.top + window.scrollY + "px";
  }

  function close(refocus) {
    if (!menu || menu.hidden) return;
    menu.hidden = true;
    if (trigger) {
      trigger.setAttribute("aria-expanded", "false");
      if (refocus) trigger.focus();
    }
  }

  function visibleItems() {
    return Array.prototype.filter.call(menu.querySelectorAll(".rd-menu-item"), function (el) {
      return !el.hidden;
    });
  }

  function menuKey(e) {
    var items = visibleItems(), at = items.indexOf(document.activeElement), to = null;
    if (e.key === "Escape") { e.preventDefault(); close(true); return; }
    if (e.key === "ArrowDown" || (e.key === "Tab" && !e.shiftKey)) to = at + 1;
    else if (e.key === "ArrowUp" || (e.key === "Tab" && e.shiftKey)) to = at - 1;
    else if (e.key === "Home") to = 0;
    else if (e.key === "End") to = items.length - 1;
    else if (e.key === " " && e.target.tagName === "A") { e.preventDefault(); e.target.click(); return; }
    if (to === null) return;
    e.preventDefault();
    items[(to + items.length) % items.length].focus();
  }

  function copyLink(button) {
    var url = button.dataset.href, status = menu.querySelector(".rd-menu-status");
    function done(ok) {
      status.textContent = ok ? "Link copied" : "Copy failed: " + url;
      if (ok) setTimeout(function () { close(true); }, 700);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(url).then(function () { done(true); }, function () { done(legacyCopy(url)); });
    } else {
      done(legacyCopy(url));
    }
  }

  function legacyCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var ok;
    try { ok = document.execCommand("copy"); } catch (err) { ok = false; }
    area.remove();
    if (menu && !menu.hidden) visibleItems()[0].focus();
    return ok;
  }

  // A line number pressed: select its line (or extend to a range) and open the menu.
  function activate(number, extend) {
    var line = number.closest(LINE);
    var m = line && RANGE.exec(line.id);
    if (!m) return;
    var n = +m[2], sel = {prefix: m[1], a: n, b: n, first: line};
    if (extend && anchor && anchor.prefix === m[1] && anchor.n !== n) {
      sel.a = Math.min(anchor.n, n);
      sel.b = Math.max(anchor.n, n);
      sel.first = lineEl(m[1], sel.a);
    } else {
      anchor = {prefix: m[1], n: n};
    }
    select(sel);
    history.replaceState(history.state, "", "#" + fragment(sel, sel.prefix));
    open(number, sel);
  }

  // A claim's copy button: its example, setup included, as `python -m doctest` reads it.
  function copyClaim(button) {
    var text = button.closest(".rd-claim").querySelector("pre").textContent;
    function done(ok) { button.textContent = ok ? "copied" : "copy failed"; }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(legacyCopy(text)); });
    } else {
      done(legacyCopy(text));
    }
  }

  document.addEventListener("click", /** @param {MouseEvent & {target: HTMLElement}} e */ function (e) {
    var copy = e.target.closest && e.target.closest(".rd-claim .rd-copy");
    if (copy) { copyClaim(copy); return; }
    var number = e.target.closest && e.target.closest(".rd-n");
    if (number && !e.ctrlKey && !e.metaKey && !e.altKey && e.button === 0) {
      e.preventDefault();
      activate(number, e.shiftKey);
    } else if (menu && !menu.hidden && !menu.contains(e.target)) {
      close(false);
    }
  });
  document.addEventListener("keydown", /** @param {KeyboardEvent & {target: HTMLElement}} e */ function (e) {
    var number = e.target.closest && e.target.closest(".rd-n");
    if (number && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      activate(number, e.shiftKey);
    }
  });
  document.addEventListener("focusin", /** @param {Event & {target: HTMLElement}} e */ function (e) {
    if (e.target.classList && e.target.classList.contains("rd-n")) {
      e.target.setAttribute("aria-haspopup", "menu");
    }
  });
  window.addEventListener("resize", function () { close(false); });
  // A fragment followed (a link, a search result) scrolls to its line; Back or Forward to an entry
  // of this page returns to where the reader was on it (the browser scrolls to the fragment
  // instead): each entry gets an id in its state once shown, and its last scroll position is kept
  // by that id (`places`), read at `popstate`, before the browser's own scroll is reported.
  var places = {}, back = null;
  function entry() { return history.state && typeof history.state === "object" ? history.state.rdEntry : null; }
  function mark() {
    if (entry()) return;
    var state = history.state && typeof history.state === "object" ? history.state : {};
    var id = Date.now().toString(36) + "." + Math.random().toString(36).slice(2, 8);
    try { history.replaceState(Object.assign({}, state, {rdEntry: id}), ""); } catch (err) { /* left unmarked */ }
  }
  window.addEventListener("popstate", function () {
    var id = entry();
    back = id && id in places ? places[id] : null;
  });
  window.addEventListener("scroll", function () {
    var id = entry();
    if (id && back === null) places[id] = window.scrollY;
  }, {passive: true});
  window.addEventListener("hashchange", function () {
    var returning = back, known = !!entry();
    back = null;
    mark();
    close(false);
    fromHash(!known);
    if (returning !== null) window.scrollTo(0, returning);
  });
  document.documentElement.classList.add("rd-js");
  // Scrolled once the lines exist, and again once fonts and images have moved them, unless the
  // reader has scrolled or picked other lines meanwhile.
  var initial = location.hash, scrolled = null;
  document.addEventListener("DOMContentLoaded", function () { mark(); fromHash(true); scrolled = window.scrollY; });
  function again() {
    if (location.hash === initial && scrolled !== null && Math.abs(window.scrollY - scrolled) < 2) {
      fromHash(true);
      scrolled = window.scrollY;
    }
  }
  window.addEventListener("load", again);
  window.addEventListener("rd-rows", again);  // the URL's line came with a long file's rows (codeview.js)
})();

// The lowering-rules matrix: the second header row sticks under the first (measured after the
// first layout: none forced while the page loads), the filter box shows only the primitives whose
// name or module contains what is typed, and a rule's cell shows its name (its aria-label, not
// written twice in the page) as a tooltip when pointed at.
(function () {
  function setUp() {
    var table = /** @type {HTMLTableElement | null} */ (document.getElementById("rd-matrix"));
    if (!table) return;
    var first = table.querySelector("thead tr");
    function measure() { table.style.setProperty("--rd-head1", first.getBoundingClientRect().height + "px"); }
    requestAnimationFrame(measure);
    window.addEventListener("resize", measure);
    table.addEventListener("pointerover", /** @param {PointerEvent & {target: HTMLElement}} e */ function (e) {
      var cell = e.target.closest && e.target.closest("a[aria-label]:not([title])");
      if (cell) cell.setAttribute("title", cell.getAttribute("aria-label"));
    });
    var input = /** @type {HTMLInputElement | null} */ (document.querySelector(".rd-filter-input"));
    var count = document.querySelector(".rd-filter-count");
    if (!input) return;
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    function filter() {
      var want = input.value.trim().toLowerCase();
      var shown = 0;
      rows.forEach(function (row) {
        var name = row.cells[0].textContent.toLowerCase();
        var hit = !want || name.indexOf(want) >= 0;
        row.hidden = !hit;
        shown += hit ? 1 : 0;
      });
      count.textContent = want ? shown + " of " + rows.length + " primitives" : "";
    }
    input.addEventListener("input", filter);
    if (input.value) filter();  // a value the browser kept (back, reload); else every row shows
    // A row opened by its link (a search result) shows its releases.
    function openTarget() {
      var row = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
      var more = row && row.parentNode === table.tBodies[0] && row.querySelector("details");
      if (more) more.open = true;
    }
    window.addEventListener("hashchange", openTarget);
    openTarget();
  }
  document.addEventListener("DOMContentLoaded", setUp);
})();

// A long text artifact of a lab comes packed (reader/render/lab/page.py): its text put back.
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("code[data-packed]").forEach(function (code) {
    window.readerInflate(code.getAttribute("data-packed") || "").then(function (text) {
      code.textContent = text;
      code.removeAttribute("data-packed");
    });
  });
});

// A box that scrolls (code; a lab's listing, in its <pre>, a11y.css; a wide table) takes the keyboard
// focus when nothing in it can, so that the arrow keys scroll it: material does so only where a
// pointer can hover, this everywhere. Observed after material's own observer, so it has the last word.
document.addEventListener("DOMContentLoaded", function () {
  var FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]";
  function check(box) {
    var scrolls = box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight;
    if (scrolls && !box.hasAttribute("tabindex") && !box.querySelector(FOCUSABLE)) {
      box.tabIndex = 0;
      box.dataset.rdFocus = "";
    } else if (!scrolls && "rdFocus" in box.dataset) {
      box.removeAttribute("tabindex");
      delete box.dataset.rdFocus;
    }
  }
  var boxes = document.querySelectorAll(".md-typeset pre > code, .rd-artifact pre, .md-typeset__scrollwrap");
  if (!("ResizeObserver" in window)) { boxes.forEach(check); return; }
  var seen = new ResizeObserver(function (entries) {
    entries.forEach(function (e) { check(e.target); });
  });
  boxes.forEach(function (box) { seen.observe(box); });
});

// A path in the page's title (a source or diff page's) breaks after a slash, not inside a name
// (on a phone, "mosaic/lo|wering.py"): a <wbr> after each slash.
document.addEventListener("DOMContentLoaded", function () {
  var title = document.querySelector(".md-content h1");
  if (!title || title.children.length || title.textContent.indexOf("/") < 0) return;
  var parts = title.textContent.split("/");
  title.textContent = "";
  parts.forEach(function (part, i) {
    if (i) title.append("/", document.createElement("wbr"));
    title.append(part);
  });
});
