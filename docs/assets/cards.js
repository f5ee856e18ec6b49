// @ts-check
// Hover cards. Hovering (or focusing) a link to a definition on a source page shows a card: its
// header and first lines of code, its docstring's first line, where it is defined, its count of
// uses with a link to their list (refs.js) and the notes on it. Each source file's cards come in its
// page script, assets/code/<path>.js (reader/render/code/cards.py), added the first time a link into that file is
// hovered or focused: a <script> tag, so it works from file://. Keyboard: focusing a link shows
// its card, Down arrow moves into it, Tab and Shift+Tab move through it and back to the link,
// Escape closes it; `r` opens the references list of the name focused (or of the card shown).
(function () {
  var me = /** @type {HTMLScriptElement | null} */ (document.currentScript);
  var ROOT = me ? me.src.replace(/assets\/[\w.-]+\.js(?:[?#].*)?$/, "") : "";
  var SHOW_MS = 250, HIDE_MS = 300;
  var scripts = window.readerScripts();
  var card = null, trigger = null, pending = null, quiet = null;
  var showTimer = 0, hideTimer = 0, pointerIn = false;

  window.readerCards = {add: scripts.add};

  function load(page, done) {
    scripts.load(page, ROOT + "assets/code/" + page.replace(/^source\//, "").replace(/\.html$/, "") + ".js", done);
  }

  // {page, line, q, name} when `a` links to a line or a `#uses-` entry of a source page; else null.
  function target(a) {
    if (!a || !ROOT || !a.closest(".md-content") ||
        a.closest(".rd-card, .rd-n, .rd-bl, .rd-gap, .rd-range, .rd-gh, .rd-menu, .rd-outline")) return null;
    var href = a.href || "", hash = href.indexOf("#");
    if (hash < 0 || href.indexOf(ROOT) !== 0) return null;
    var page = href.slice(ROOT.length, hash), frag = href.slice(hash + 1);
    if (!/^source\/.+\.py\.html$/.test(page)) return null;
    try { frag = decodeURIComponent(frag); } catch (err) { /* the raw fragment */ }
    var line = /^L(\d+)$/.exec(frag), uses = /^uses-(.+)$/.exec(frag);
    if (!line && !uses) return null;
    return {page: page, line: line ? +line[1] : 0, q: uses ? uses[1] : "", name: a.textContent.trim()};
  }

  // The definition `t` names: by qualified name, or the one on its line (the link's own name first).
  function find(d, t) {
    var hit = null;
    (d.defs || []).forEach(function (x) {
      if (t.q ? x.q === t.q : x.l === t.line) {
        if (!hit || (!t.q && x.q.split(".").pop() === t.name && hit.q.split(".").pop() !== t.name)) hit = x;
      }
    });
    return hit;
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text) node.textContent = text;
    return node;
  }

  function link(href, text, cls) {
    var a = el("a", cls, text);
    a.href = ROOT + href;
    return a;
  }

  // A code line: [number, text, runs]; runs (runs.js) "a4b1": a class (an index into d.classes)
  // and a length each, the rest plain.
  function codeLine(box, row, classes) {
    var text = row[1], at = 0;
    function put(cls, piece) {
      if (piece) box.appendChild(cls ? el("span", cls, piece) : document.createTextNode(piece));
    }
    window.readerRuns.decode(row[2] || "").forEach(function (run) {
      put(classes[run[0]], text.substr(at, run[1]));
      at += run[1];
    });
    put("", text.slice(at) + "\n");
  }

  function code(d, x, t) {
    var pre = el("pre", "rd-card-code highlight"), box = el("code"), last = 0;
    (x.c || []).forEach(function (row) {
      if (last && row[0] > last + 1) box.appendChild(el("span", "rd-card-skip", "\u22ef\n"));
      last = row[0];
      codeLine(box, row, d.classes || [""]);
    });
    pre.appendChild(box);
    if (x.m) {
      var more = link(t.page + "#L" + x.l, "\u22ef " + x.m + " more line" + (x.m === 1 ? "" : "s"), "rd-card-more");
      pre.appendChild(more);
    }
    return pre;
  }

  // Its count of uses, and the way to their list (refs.js: the source page's `#uses-` entry).
  function uses(x, t) {
    var u = x.u || [0, 0];
    if (!u[0]) return el("p", "rd-card-none", "No uses in the pinned sources or labs.");
    var box = el("p", "rd-card-uses");
    box.appendChild(link(references(t, x), "Find references", "rd-card-refs"));
    box.appendChild(document.createTextNode(": " + u[0] + " use" + (u[0] === 1 ? "" : "s") + " in " +
                                            u[1] + " file" + (u[1] === 1 ? "" : "s")));
    return box;
  }

  function references(t, x) { return t.page + "#uses-" + x.q; }

  function notes(d, x) {
    var box = el("div", "rd-card-notes"), list = el("ul");
    box.appendChild(el("p", "rd-card-label", x.n.length === 1 ? "Note" : x.n.length + " notes"));
    x.n.forEach(function (n) {
      var article = d.articles[n[0]], item = el("li");
      item.appendChild(link(article[0] + "#note-" + n[1], article[1]));
      if (n[2]) item.appendChild(document.createTextNode(": " + n[2]));
      list.appendChild(item);
    });
    box.appendChild(list);
    return box;
  }

  function fill(d, x, t, keyboard) {
    card.textContent = "";
    card.setAttribute("aria-label", x.k + " " + x.q);
    var head = el("div", "rd-card-head");
    head.appendChild(el("code", "rd-card-name", x.q));
    head.appendChild(el("span", "rd-card-kind", x.k));
    var path = t.page.replace(/^source\//, "").replace(/\.html$/, "");
    head.appendChild(link(t.page + "#L" + x.l, path + ":" + x.l, "rd-card-where"));
    card.appendChild(head);
    if (x.c && x.c.length) card.appendChild(code(d, x, t));
    if (x.d) card.appendChild(el("p", "rd-card-doc", x.d));
    card.appendChild(uses(x, t));
    if (x.n) card.appendChild(notes(d, x));
    if (keyboard) card.appendChild(el("p", "rd-card-hint", "\u2193 moves into this card \u00b7 r finds references \u00b7 Esc closes it"));
  }

  function create() {
    card = el("div", "rd-card");
    card.id = "rd-card";
    card.setAttribute("role", "dialog");
    card.hidden = true;
    card.addEventListener("mouseenter", function () { pointerIn = true; clearTimeout(hideTimer); });
    card.addEventListener("mouseleave", function () { pointerIn = false; later(); });
    document.body.appendChild(card);
  }

  function place(a) {
    var r = a.getBoundingClientRect(), width = document.documentElement.clientWidth;
    var h = card.offsetHeight, w = card.offsetWidth, top = r.bottom + 4;
    if (top + h > window.innerHeight - 4 && r.top - h - 4 > 4) top = r.top - h - 4;
    var left = Math.max(4, Math.min(r.left, width - w - 4));
    card.style.left = left + window.scrollX + "px";
    card.style.top = top + window.scrollY + "px";
  }

  function show(a, t, keyboard) {
    clearTimeout(hideTimer);
    pending = a;
    load(t.page, function (d) {
      if (pending !== a) return;
      var x = find(d, t);
      if (!x) return;
      if (!card) create();
      if (trigger && trigger !== a) trigger.setAttribute("aria-expanded", "false");
      trigger = a;
      fill(d, x, t, keyboard);
      card.hidden = false;
      a.setAttribute("aria-controls", card.id);
      a.setAttribute("aria-expanded", "true");
      place(a);
    });
  }

  function hide(refocus) {
    clearTimeout(hideTimer);
    clearTimeout(showTimer);
    pending = null;
    if (!card || card.hidden) return;
    card.hidden = true;
    pointerIn = false;
    if (trigger) {
      trigger.setAttribute("aria-expanded", "false");
      if (refocus) { quiet = trigger; trigger.focus(); }
    }
  }

  function later() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(function () {
      if (card && !card.contains(document.activeElement) && !pointerIn) hide(false);
    }, HIDE_MS);
  }

  // Focus from the keyboard (or a script), not from a click: a click's card comes from hovering.
  function keyboardFocus(a) {
    try { return a.matches(":focus-visible"); } catch (err) { return true; }
  }

  function focusables() {
    return Array.prototype.slice.call(card.querySelectorAll("a[href]"));
  }

  document.addEventListener("mouseover", /** @param {MouseEvent & {target: HTMLElement}} e */ function (e) {
    var a = /** @type {HTMLAnchorElement | null} */ (e.target.closest && e.target.closest("a[href]")), t = a && target(a);
    if (!t) return;
    if (a.title) { a.setAttribute("data-title", a.title); a.removeAttribute("title"); }
    clearTimeout(hideTimer);
    if (a === trigger && card && !card.hidden) return;
    clearTimeout(showTimer);
    showTimer = setTimeout(function () { show(a, t, false); }, SHOW_MS);
  });
  document.addEventListener("mouseout", /** @param {MouseEvent & {target: HTMLElement, relatedTarget: Node | null}} e */ function (e) {
    var a = e.target.closest && e.target.closest("a[href]");
    if (!a || (e.relatedTarget && a.contains(e.relatedTarget))) return;
    clearTimeout(showTimer);
    if (a === pending && (!card || card.hidden)) pending = null;
    if (a === trigger && card && !card.hidden && document.activeElement !== a) later();
  });
  document.addEventListener("focusin", /** @param {Event & {target: HTMLElement}} e */ function (e) {
    if (card && card.contains(e.target)) { clearTimeout(hideTimer); return; }
    if (e.target === quiet) { quiet = null; return; }
    var a = e.target.closest && e.target.closest("a[href]"), t = a && target(a);
    if (t && keyboardFocus(a)) show(a, t, true);
    else if (card && !card.hidden && a !== trigger) hide(false);
  });
  document.addEventListener("focusout", function (e) {
    if (!card || card.hidden || (e.target !== trigger && !card.contains(e.target))) return;
    var to = e.relatedTarget;
    if (to && (to === trigger || card.contains(to))) return;
    if (!pointerIn) later();
  });
  document.addEventListener("keydown", function (e) {
    if (!card || card.hidden) return;
    var inside = card.contains(e.target), items = focusables();
    if (e.key === "Escape") {
      e.preventDefault();
      hide(inside || e.target === trigger);
    } else if (e.target === trigger && e.key === "ArrowDown" && items.length) {
      e.preventDefault();
      items[0].focus();
    } else if (inside && e.key === "Tab") {
      var at = items.indexOf(e.target);
      if (!e.shiftKey && at === items.length - 1) { e.preventDefault(); hide(true); }
      else if (e.shiftKey && at === 0) { e.preventDefault(); quiet = trigger; trigger.focus(); }
    }
  });
  // `r`: the references of the name focused, or of the card's (the name hovered).
  document.addEventListener("keydown", /** @param {KeyboardEvent & {target: HTMLElement}} e */ function (e) {
    if (e.key !== "r" || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented ||
        /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName) || e.target.isContentEditable) return;
    var focused = /** @type {HTMLAnchorElement | null} */ (e.target.closest && e.target.closest("a[href]"));
    var a = focused && target(focused) ? focused : card && !card.hidden ? trigger : null, t = a && target(a);
    if (!t) return;
    e.preventDefault();
    load(t.page, function (d) {
      var x = find(d, t);
      if (x) location.href = ROOT + references(t, x);
    });
  });
  window.addEventListener("resize", function () { hide(false); });
  window.addEventListener("hashchange", function () { hide(false); });
})();
