// @ts-check
// References lists (reader/render/uses.py). On a source page, `#uses-NAME` (a definition's own
// name in the code links there, and so does each count in the definitions list) opens, under the
// name's entry, every use of it grouped by file, each with its line of code and a link to it: the
// definition first, its own file's uses next, then the other pinned files', the labs', and the
// notes that cite it. The file's data comes in its page script, assets/code/<path>.js, added the first
// time a list opens: a <script> tag, so it works from file://. The pure part (`groups`, `marks`)
// is `readerRefs`, which node's tests `require` (tests/js/refs.test.js).
/* exported readerRefs */
/** @typedef {{title: string, href: string, rows: {n: number, code: string, href: string}[], notes?: {href: string, title: string, text: string}[]}} Group */
var readerRefs = (function () {
  /**
   * The groups a definition's list shows, from its file's data `d` (uses.py's format): the
   * definition, then each file's uses, then the notes. Links are relative to the site's root.
   * @param {any} d @param {string} page the file's page (`source/<path>.html`) @param {string} q
   * @returns {Group[] | null}
   */
  function groups(d, page, q) {
    var x = d && d.defs && d.defs[q];
    if (!x) return null;
    var path = page.replace(/^source\//, "").replace(/\.html$/, "");
    var out = [{title: "Definition", href: page + "#L" + x.l, rows: [{n: x.l, code: x.d, href: page + "#L" + x.l}]}];
    (x.u || []).forEach(/** @param {any[]} entry */ function (entry) {
      var file = d.files[entry[0]];
      if (typeof file === "string") file = [file, "source/" + file + ".html"];
      var rows = [];
      for (var i = 1; i + 1 < entry.length; i += 2) rows.push({n: entry[i], code: entry[i + 1], href: file[1] + "#L" + entry[i]});
      out.push({title: file[0] === path ? file[0] + " (this file)" : file[0], href: file[1], rows: rows});
    });
    if (x.n) {
      out.push({title: "Notes", href: "", rows: [], notes: x.n.map(/** @param {any[]} n */ function (n) {
        var article = d.articles[n[0]];
        return {href: article[0] + "#note-" + n[1], title: article[1], text: n[2] || ""};
      })});
    }
    return out;
  }

  /** [start, end) of each whole-word `name` in a line of code. @param {string} code @param {string} name */
  function marks(code, name) {
    var out = [], re = new RegExp("(?<![A-Za-z0-9_])" + name.replace(/[^\w]/g, "") + "(?![A-Za-z0-9_])", "g"), m;
    while ((m = re.exec(code))) out.push([m.index, m.index + m[0].length]);
    return out;
  }

  var api = {groups: groups, marks: marks};
  var node = typeof module === "object" ? module : null;  // not `module.exports`: tsc would read
  if (node) node.exports = api;                          // the script as a CommonJS module
  if (typeof document === "object") wire();
  return api;

  function wire() {
    var me = /** @type {HTMLScriptElement | null} */ (document.currentScript);
    var ROOT = me ? me.src.replace(/assets\/[\w.-]+\.js(?:[?#].*)?$/, "") : "";
    var scripts = window.readerScripts();
    window.readerUses = {add: scripts.add};

    function load(page, done) {
      scripts.load(page, ROOT + "assets/code/" + page.replace(/^source\//, "").replace(/\.html$/, "") + ".js", done);
    }

    function here() {  // this page, `source/<path>.html`, or null
      var url = location.href.split("#")[0].split("?")[0];
      if (!ROOT || url.indexOf(ROOT) !== 0) return null;
      var page = decodeURIComponent(url.slice(ROOT.length));
      return /^source\/.+\.html$/.test(page) ? page : null;
    }

    function el(tag, cls, text) {
      var e = document.createElement(tag);
      if (cls) e.className = cls;
      if (text) e.textContent = text;
      return e;
    }

    // A line of code, the name marked, a <wbr> where the code view would wrap it (never in a name).
    function code(text, name) {
      var box = el("code"), at = 0, cuts = window.readerCode ? window.readerCode.cuts(text) : [];
      function put(parent, from, to) {
        var last = from;
        cuts.forEach(function (c) {
          if (c > 0 && c >= from && c < to) { parent.append(text.slice(last, c), el("wbr")); last = c; }
        });
        parent.append(text.slice(last, to));
      }
      marks(text, name).forEach(function (m) {
        put(box, at, m[0]);
        var mark = el("mark");
        put(mark, m[0], m[1]);
        box.appendChild(mark);
        at = m[1];
      });
      put(box, at, text.length);
      return box;
    }

    function path(text) {  // a file's path, to wrap after a slash
      var box = el("span", "rd-refs-path");
      text.split("/").forEach(function (part, i, parts) {
        box.append(part + (i < parts.length - 1 ? "/" : ""));
        if (i < parts.length - 1) box.appendChild(el("wbr"));
      });
      return box;
    }

    function list(q, all) {
      var name = q.split(".").pop(), count = 0, files = 0;
      var box = el("div", "rd-refs");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", "References to " + q);
      box.tabIndex = -1;
      all.forEach(function (g, i) {
        if (i && !g.notes) { count += g.rows.length; files++; }
      });
      var notes = all.filter(function (g) { return g.notes; }).map(function (g) { return g.notes.length; })[0] || 0;
      box.appendChild(el("p", "rd-refs-sum", count + " use" + (count === 1 ? "" : "s") + " in " + files +
        " file" + (files === 1 ? "" : "s") + (notes ? " \u00b7 " + notes + " note" + (notes === 1 ? "" : "s") : "")));
      all.forEach(function (g) {
        var group = el("details", "rd-refs-file");
        group.open = true;
        var head = el("summary");
        head.append(path(g.title), el("span", "rd-refs-count", String(g.notes ? g.notes.length : g.rows.length)));
        group.appendChild(head);
        var items = el("ol");
        g.rows.forEach(function (r) {
          var a = /** @type {HTMLAnchorElement} */ (el("a", "rd-refs-row"));
          a.href = ROOT + r.href;
          a.append(el("span", "rd-refs-n", String(r.n)), code(r.code, name));
          var item = el("li");
          item.appendChild(a);
          items.appendChild(item);
        });
        (g.notes || []).forEach(function (n) {
          var item = el("li", "rd-refs-note"), a = /** @type {HTMLAnchorElement} */ (el("a", "", n.title));
          a.href = ROOT + n.href;
          item.append(a, n.text ? ": " + n.text : "");
          items.appendChild(item);
        });
        group.appendChild(items);
        box.appendChild(group);
      });
      return box;
    }

    // Opens the list of `q` under its entry (once made, shown again); `focus`: moves there.
    function open(q, focus) {
      var page = here(), entry = document.getElementById("uses-" + q);
      if (!page || !entry) return;
      var toggle = entry.querySelector("a.rd-uses");
      var made = entry.querySelector(":scope > .rd-refs");
      function show(box) {
        box.hidden = false;
        if (toggle) toggle.setAttribute("aria-expanded", "true");
        entry.scrollIntoView({block: "start"});
        if (focus) box.focus({preventScroll: true});
      }
      if (made) { show(made); return; }
      load(page, function (d) {
        var all = groups(d, page, q);
        if (!all || entry.querySelector(":scope > .rd-refs")) return;
        var box = list(q, all);
        entry.appendChild(box);
        show(box);
      });
    }

    function fromHash(focus) {
      var id = location.hash.slice(1);
      try { id = decodeURIComponent(id); } catch (err) { /* the raw fragment */ }
      var m = /^uses-(.+)$/.exec(id);
      if (m) open(m[1], focus);
    }

    document.addEventListener("click", /** @param {MouseEvent & {target: HTMLElement}} e */ function (e) {
      var a = e.target.closest && e.target.closest("a.rd-uses");
      if (!a) return;
      var entry = a.closest("li[id^='uses-']");
      var box = /** @type {HTMLElement | null} */ (entry && entry.querySelector(":scope > .rd-refs"));
      if (box && !box.hidden && location.hash === "#" + entry.id) {  // open: the count folds it
        e.preventDefault();
        box.hidden = true;
        a.setAttribute("aria-expanded", "false");
      } else if (location.hash === "#" + (entry && entry.id)) {
        e.preventDefault();
        open(entry.id.slice(5), true);
      }
    });
    window.addEventListener("hashchange", function () { fromHash(true); });
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { fromHash(false); });
    else fromHash(false);
  }
})();
