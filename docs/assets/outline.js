// @ts-check
// A source page's outline: its classes (methods nested), functions and module-level names, each a
// link to its line. On a wide desktop (outline.css) it is a sticky column beside the code (open by
// default; the reader's choice persists in localStorage); on narrower screens a drawer that its
// button opens and Escape, a chosen name or a click outside closes. A filter box narrows the names;
// the name whose line the URL names is marked current. Works from file://.
(function () {
  var KEY = "reader.outline";
  var column = window.matchMedia("(min-width: 120em)");  // outline.css

  function stored() {
    try { return window.localStorage.getItem(KEY); } catch (err) { return null; }
  }
  function store(value) {
    try { window.localStorage.setItem(KEY, value); } catch (err) { /* storage off: not kept */ }
  }

  // The list from the panel's `data-outline` (reader/render/outline.py `outline_data`): a line per name,
  // `<depth spaces><kind letter><line> <name>`; a class's members nest in a list of their own.
  function build(text) {
    var top = document.createElement("ul");
    top.className = "rd-ol";
    var lists = [top], items = [];  // lists[d] takes the rows of depth d; items[d]: its last
    text.split("\n").forEach(function (row) {
      var m = /^( *)([a-z])(\d+) (.+)$/.exec(row);
      if (!m) return;
      var depth = Math.min(m[1].length, lists.length);
      if (depth === lists.length && !items[depth - 1]) depth -= 1;
      if (depth === lists.length) {  // the first member of the item above
        var sub = document.createElement("ul");
        items[depth - 1].appendChild(sub);
        lists.push(sub);
      }
      lists.length = depth + 1;
      var li = document.createElement("li"), a = document.createElement("a");
      a.href = "#L" + m[3];
      a.setAttribute("data-k", m[2]);
      a.textContent = a.title = m[4];  // the title: a long name is cut to the column's width
      li.appendChild(a);
      lists[depth].appendChild(li);
      items[depth] = li;
    });
    return top;
  }

  function setUp() {
    var nav = document.querySelector(".rd-outline");
    if (!nav) return;
    var button = /** @type {HTMLElement} */ (nav.querySelector(".rd-outline-toggle"));
    var panel = /** @type {HTMLElement} */ (nav.querySelector(".rd-outline-panel"));
    var data = panel.getAttribute("data-outline");
    var filter = null, items = [];

    function fill() {  // built when first shown: a closed outline costs the page no elements
      if (filter || !data) return;
      filter = document.createElement("input");
      filter.type = "search";
      filter.className = "rd-outline-filter";
      filter.placeholder = "Filter names";
      filter.setAttribute("aria-label", "Filter the outline's names");
      filter.addEventListener("input", narrow);
      var list = build(data);
      panel.replaceChildren(filter, list);
      items = Array.prototype.slice.call(list.querySelectorAll("li")).reverse();
    }

    function drawer() { return !column.matches; }
    function shown() { return window.getComputedStyle(panel).display !== "none"; }
    function sync() {
      var open = shown();
      if (open) fill();
      button.setAttribute("aria-expanded", String(open));
    }
    function set(open, persist) {
      nav.classList.toggle("rd-open", open);
      nav.classList.toggle("rd-closed", !open);
      if (persist) store(open ? "open" : "closed");
      sync();
    }
    function apply() {  // on load and when the screen changes between desktop and drawer
      nav.classList.remove("rd-open", "rd-closed");
      var choice = stored();
      if (!drawer() && (choice === "open" || choice === "closed")) set(choice === "open", false);
      sync();
      markCurrent();
    }

    function close(refocus) {
      set(false, false);
      if (refocus) button.focus();
    }

    // The drawer hangs under its button, wherever the scope line holding it is (in the page's flow
    // at its top, stuck under the header once scrolled): the button stays in view beside it.
    var placing = false;
    function place() {
      placing = false;
      if (drawer() && shown()) panel.style.setProperty("--rd-drawer-top", Math.round(button.getBoundingClientRect().bottom + 4) + "px");
    }
    window.addEventListener("scroll", function () {
      if (!placing && drawer() && shown()) { placing = true; requestAnimationFrame(place); }
    }, {passive: true});

    button.addEventListener("click", function () {
      var open = !shown();
      set(open, !drawer());
      place();
      if (open) {
        markCurrent();
        if (drawer() && filter) filter.focus();
      }
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && drawer() && shown()) {
        e.preventDefault();
        close(nav.contains(document.activeElement) || document.activeElement === document.body);
      }
    });
    document.addEventListener("click", /** @param {MouseEvent & {target: HTMLElement}} e */ function (e) {
      if (drawer() && shown() && !nav.contains(e.target)) close(false);
    });
    nav.addEventListener("focusout", /** @param {FocusEvent & {relatedTarget: Node | null}} e */ function (e) {  // Tab out of the drawer: it closes behind
      if (drawer() && shown() && e.relatedTarget && !nav.contains(e.relatedTarget)) close(false);
    });
    panel.addEventListener("click", /** @param {MouseEvent & {target: HTMLElement}} e */ function (e) {
      var link = /** @type {HTMLAnchorElement | null} */ (e.target.closest && e.target.closest("a[href^='#L']"));
      if (!link) return;
      if (!drawer()) {  // the column stays: the chosen name keeps the focus (the fragment took it)
        window.setTimeout(function () { link.focus({preventScroll: true}); }, 0);
        return;
      }
      close(false);
      // The chosen line takes the focus (its number, painted now if codeview.js has not yet).
      window.setTimeout(function () {
        var id = link.getAttribute("href").slice(1);
        if (window.readerCode) window.readerCode.need(id);
        var line = document.getElementById(id);
        if (!line) return;
        var chunk = line.closest(".rd-k");
        if (!line.querySelector(".rd-n") && chunk && window.readerCode) window.readerCode.paint(chunk);
        var target = /** @type {HTMLElement} */ (line.querySelector(".rd-n") || line);
        if (target === line) line.tabIndex = -1;
        target.focus({preventScroll: true});
      }, 0);
    });

    function narrow() {
      var want = filter.value.trim().toLowerCase();
      items.forEach(function (li) {  // children before their parents
        var name = li.firstElementChild.textContent.toLowerCase();
        li.hidden = want !== "" && name.indexOf(want) < 0 &&
          !li.querySelector(":scope > ul > li:not([hidden])");
      });
    }

    var current = null;
    function markCurrent() {
      var m = /^#L(\d+)(?:-L\d+)?$/.exec(location.hash);
      var link = m ? panel.querySelector('a[href="#L' + m[1] + '"]') : null;
      if (current && current !== link) current.removeAttribute("aria-current");
      current = link;
      if (!link) return;
      link.setAttribute("aria-current", "location");
      if (shown()) {  // into view inside the panel, not the page
        var box = panel.getBoundingClientRect(), at = link.getBoundingClientRect();
        if (at.top < box.top || at.bottom > box.bottom) {
          panel.scrollTop += at.top - box.top - panel.clientHeight / 3;
        }
      }
    }

    window.addEventListener("hashchange", markCurrent);
    if (column.addEventListener) column.addEventListener("change", apply);
    apply();
  }

  document.documentElement.classList.add("rd-js");
  document.addEventListener("DOMContentLoaded", setUp);
})();
