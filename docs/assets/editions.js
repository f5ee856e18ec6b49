// @ts-check
// The edition switch carries the reader's place (reader/editions.py writes the switcher). On a
// source page with a line in the URL (`#L566`, `#L10-L20`), choosing the other edition opens the
// same file at the same code: an unchanged line at its number there, a changed one at the lines
// its change replaced (or, added, after the line it follows), through the file's changes since
// the previous edition (`assets/lines.js` of the current edition, every changed file's, from
// reader/render/diff/page.py: none for a file that did not change). The page reached says where the line went; a page
// with no counterpart in that edition says so where the reader is, with the nearest page there. The mapping (`map`) is
// `readerEditions`, which node's tests `require` (tests/js/editions.test.js).
/* exported readerEditions */
/** @typedef {{line: number, end: number, how: string}} Place */
var readerEditions = (function () {
  /**
   * Where line `n` (1-based) of one side is on the other: `blocks` [[a, b, c, d], ...] are the
   * changes, old lines [a, b) and new lines [c, d), 0-based, in order; `fromNew`: n is a new line.
   * `how`: `same` (an unchanged line; `line` its number there), `changed` (lines `line`..`end`
   * there are what replaced it or what it replaced), `added` (none there: it comes after `line`,
   * 0 for the top).
   * @param {number[][]} blocks @param {number} n @param {boolean} fromNew @returns {Place}
   */
  function map(blocks, n, fromNew) {
    var x = n - 1, shift = 0;
    for (var i = 0; i < blocks.length; i++) {
      var b = blocks[i], from = fromNew ? [b[2], b[3]] : [b[0], b[1]], to = fromNew ? [b[0], b[1]] : [b[2], b[3]];
      if (x < from[0]) break;
      if (x < from[1]) {
        return to[1] > to[0] ? {line: to[0] + 1, end: to[1], how: "changed"} : {line: to[0], end: to[0], how: "added"};
      }
      shift += (to[1] - to[0]) - (from[1] - from[0]);
    }
    return {line: n + shift, end: n + shift, how: "same"};
  }

  var api = {map: map};
  var node = typeof module === "object" ? module : null;  // not `module.exports`: tsc would read
  if (node) node.exports = api;                          // the script as a CommonJS module
  if (typeof document === "object") wire();
  return api;

  function wire() {
    var KEY = "reader.editionNote";
    var scripts = window.readerScripts();
    window.readerLines = {put: scripts.add};

    function load(src, path, done) {  // a file not in the script did not change: no changes
      scripts.load("lines", src, function (all) { done(all[path] || []); }, {});
    }

    function note(to, text) {
      try { sessionStorage.setItem(KEY, JSON.stringify({to: to.split("#")[0], text: text})); } catch (err) { /* not kept */ }
    }

    function go(a, hash, text) {
      var to = /** @type {HTMLAnchorElement} */ (a).href.split("#")[0];
      note(to, text);
      location.href = to + hash;
    }

    // The reader's line, carried to the link's edition (the current one and the one before it: the
    // diffs are between those two).
    function carry(e, a, box) {
      var page = box.getAttribute("data-page") || "", m = /^source\/(.+)\.html$/.exec(page);
      var hash = /^#L(\d+)(?:-L(\d+))?$/.exec(location.hash);
      var here = box.querySelector(".rd-edition-here"), current = box.querySelector("[data-current]");
      var other = a.getAttribute("data-edition"), fromNew = here === current;
      if (!m || !hash || !here || !other || other === here.getAttribute("data-edition") ||
          (fromNew ? !a.hasAttribute("data-diffed") : !here.hasAttribute("data-diffed") || a !== current)) return;
      e.preventDefault();
      var path = m[1], start = +hash[1], stop = +(hash[2] || hash[1]), was = here.getAttribute("data-edition");
      load((box.getAttribute("data-now") || "") + "assets/lines.js", path, function (blocks) {
        var first = map(blocks, start, fromNew), last = map(blocks, stop, fromNew);
        var lines = start === stop ? "Line " + start : "Lines " + start + "\u2013" + stop;
        var at = first.how === "added" ? Math.max(first.line, 1) : first.line;
        var end = Math.max(last.end, at);
        var target = "#L" + at + (end > at ? "-L" + end : "");
        var text = first.how === "same" && last.how === "same"
          ? lines + " of " + path + " in " + was + " " + (start === stop ? "is line " + at : "are lines " + at + "\u2013" + end) + " here."
          : first.how === "added" && last.how === "added"
            ? lines + " of " + path + " in " + was + (start === stop ? " is" : " are") + " not in this edition: " +
              (first.line ? "the place is after line " + first.line + " here." : "the place is the top of the file here.")
            : lines + " of " + path + " in " + was + " changed between the editions: " +
              (end > at ? "lines " + at + "\u2013" + end : "line " + at) + " here are what " + (fromNew ? "it replaced." : "replaced it.");
        go(a, target, text);
      });
    }

    document.addEventListener("click", /** @param {MouseEvent & {target: HTMLElement}} e */ function (e) {
      var a = e.target.closest && e.target.closest(".rd-editions a[data-edition], .rd-edition-banner a");
      var box = document.querySelector(".rd-editions");
      if (!a || !box || e.ctrlKey || e.metaKey || e.shiftKey || e.button) return;
      if (a.closest(".rd-edition-banner")) a = box.querySelector("[data-current]") || a;  // "this page now"
      if (a.hasAttribute("data-missing")) {
        e.preventDefault();
        missing(/** @type {HTMLAnchorElement} */ (a));
        return;
      }
      carry(e, a, box);
    });

    // A page the other edition lacks: said here, where the reader stands (under the header, whatever
    // the scroll), with the nearest page there to open.
    function missing(a) {
      var box = document.querySelector(".rd-edition-missing");
      if (!box) {
        box = document.createElement("div");
        box.className = "rd-edition-missing";
        box.setAttribute("role", "status");
        document.body.appendChild(box);
      }
      var edition = a.getAttribute("data-edition") || "", name = document.title.split(" - ")[0] || "This page";
      box.textContent = "";
      var text = document.createElement("p"), link = document.createElement("a"), close = document.createElement("button");
      text.textContent = name + " has no counterpart in the " + edition + " edition. Nearest there: ";
      link.href = a.href;
      link.textContent = a.getAttribute("data-missing") || edition;
      text.append(link, ".");
      close.type = "button";
      close.className = "rd-edition-close";
      close.setAttribute("aria-label", "Close");
      close.textContent = "\u00d7";
      close.addEventListener("click", function () { box.remove(); });
      box.append(text, close);
      link.focus();
    }

    function show() {  // the note the switch left for this page
      var kept;
      try { kept = JSON.parse(sessionStorage.getItem(KEY) || "null"); sessionStorage.removeItem(KEY); } catch (err) { return; }
      if (!kept || kept.to !== location.href.split("#")[0]) return;
      var where = document.querySelector(".md-content__inner") || document.body;
      var box = document.createElement("p");
      box.className = "rd-edition-note";
      box.setAttribute("role", "status");
      box.textContent = kept.text;
      where.insertBefore(box, where.firstChild);
    }
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", show);
    else show();
  }
})();
