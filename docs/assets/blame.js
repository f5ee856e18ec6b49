// @ts-check
// A source page's blame across the releases the track reads (reader/editions/blame.py), as a code
// host's blame view: the "Blame" toggle in the code view's bar loads the file's script
// (`assets/blame/<path>.js`, `data-blame` on `.rd-file`) and puts, in a column left of the line
// numbers, the earliest read release in which each run of lines reads as now; it links the line on
// the file's diff page where the site has one for that release (the diffs compare the previous
// edition with the pins: a line first read after the previous edition), and says so where it has
// none. Its title names the earliest and the latest release. The pure part (`lines`, `says`) is
// `readerBlameLines` (tests/js/blame.test.js).
/* exported readerBlameLines */
/** @typedef {{r: string[], e: number, l: number[], c: number[]}} Blame */
/** @typedef {{first: number, last: number, start: boolean}} Line */
var readerBlameLines = (function () {
  /** Each line's releases from the runs [count, earliest, latest, ...]; index 0 is line 1. @param {number[]} runs @returns {Line[]} */
  function lines(runs) {
    var out = [];
    for (var i = 0; i + 2 < runs.length; i += 3) {
      for (var k = 0; k < runs[i]; k++) out.push({first: runs[i + 1], last: runs[i + 2], start: k === 0});
    }
    return out;
  }

  /**
   * What a line's blame says: its label (the earliest release), its title (earliest and latest, and
   * the release before, where it read otherwise), and whether the site has that release's diff.
   * @param {Blame} data @param {Line} line @returns {{label: string, title: string, diffed: boolean}}
   */
  function says(data, line) {
    var r = data.r, newest = r.length - 1, first = r[line.first], last = r[line.last];
    var carried = data.c || [], before = carried.filter(function (k) { return k < line.first; }).pop();
    var title = "Reads as now in jax " + (line.first === line.last ? first + " only" : first + " to " + last);
    if (line.last < newest) title += "; changed in " + r[line.last + 1];
    if (before === undefined) {
      title += line.first === 0 ? " (" + first + " is the oldest release read)" : " (the file is in no earlier release read)";
    } else {
      title += "; read otherwise in " + r[before];
    }
    var diffed = data.e >= 0 && line.first > data.e;
    title += diffed ? ". Its change: the diff of " + r[data.e] + " to " + r[newest] + "."
      : line.first === 0 ? "." : ". No diff page for " + first + " here: the site's diffs compare " +
        (data.e >= 0 ? r[data.e] : "no release") + " with " + r[newest] + ".";
    return {label: (line.first === 0 ? "\u2264" : "") + first, title: title, diffed: diffed};
  }

  var api = {lines: lines, says: says};
  var node = typeof module === "object" ? module : null;  // not `module.exports`: tsc would read
  if (node) node.exports = api;                          // the script as a CommonJS module
  if (typeof document === "object") wire();
  return api;

  function wire() {
    var scripts = window.readerScripts();
    window.readerBlame = {put: scripts.add};

    // The view's painted rows get their blame: a run's first row (and a chunk's), its label.
    function mark(file, data, shown, chunks) {
      var diff = file.getAttribute("data-diff") || "";
      chunks.forEach(function (chunk) {
        Array.prototype.forEach.call(chunk.children, function (row, i) {
          var n = +((/L(\d+)$/.exec(row.id) || [0, 0])[1]), line = shown[n - 1];
          if (!line || row.querySelector(":scope > .rd-bl")) return;
          row.classList.toggle("rd-bs", line.start);
          if (!line.start && i) return;
          var said = says(data, line), el = document.createElement(said.diffed && diff ? "a" : "span");
          el.className = "rd-bl";
          el.setAttribute("data-r", said.label);
          el.title = said.title;
          if (el instanceof HTMLAnchorElement) el.href = diff + "#new-L" + n;
          el.setAttribute("aria-label", said.title);
          var number = row.querySelector(":scope > .rd-n");
          row.insertBefore(el, number ? number.nextSibling : row.firstChild);
        });
      });
    }

    function unmark(view) {
      view.querySelectorAll(".rd-bl").forEach(function (el) { el.remove(); });
      view.querySelectorAll(".rd-bs").forEach(function (el) { el.classList.remove("rd-bs"); });
    }

    function turn(file, view, button, on) {
      button.setAttribute("aria-pressed", String(on));
      var legend = file.querySelector(".rd-blame-legend");
      if (!on) {
        view.classList.remove("rd-blaming");
        unmark(view);
        if (legend) legend.hidden = true;
        if (window.readerCode) window.readerCode.resize();
        return;
      }
      var path = file.getAttribute("data-path") || "";
      scripts.load(path, file.getAttribute("data-blame") || "", function (/** @type {Blame} */ data) {
        if (button.getAttribute("aria-pressed") !== "true") return;
        var shown = lines(data.l);
        view.classList.add("rd-blaming");
        if (!legend) {
          legend = document.createElement("p");
          legend.className = "rd-blame-legend rd-meta";
          legend.setAttribute("role", "status");
          file.insertBefore(legend, file.firstChild);
        }
        var newest = data.r[data.r.length - 1];
        legend.textContent = "Blame: beside each run of lines, the earliest of the releases read (" +
          data.r.join(", ") + ") in which it reads as now, to " + newest + ". " +
          (data.e >= 0 ? "A release after " + data.r[data.e] + " links the line on this file's diff since " +
            data.r[data.e] + "; the site has no diff pages for the releases before." : "The site has no diff pages.");
        legend.hidden = false;
        file.rdBlame = {data: data, shown: shown};
        mark(file, data, shown, Array.prototype.slice.call(view.querySelectorAll(".rd-k.rd-on")));
        if (window.readerCode) window.readerCode.resize();
      });
    }

    function setUp() {
      document.querySelectorAll(".rd-file[data-blame]").forEach(/** @param {any} file */ function (file) {
        var view = file.querySelector(".rd-code"), bar = view && view.querySelector(".rd-bar");
        if (!bar) return;
        var button = document.createElement("button");
        button.type = "button";
        button.className = "rd-blame";
        button.setAttribute("aria-pressed", "false");
        button.title = "Beside each line, the earliest of the releases read in which it reads as now";
        button.textContent = "Blame";
        bar.insertBefore(button, bar.firstChild);
        button.addEventListener("click", function () {
          turn(file, view, button, button.getAttribute("aria-pressed") !== "true");
        });
        view.addEventListener("rd-painted", /** @param {Event & {target: HTMLElement}} e */ function (e) {
          if (file.rdBlame && view.classList.contains("rd-blaming")) mark(file, file.rdBlame.data, file.rdBlame.shown, [e.target]);
        });
      });
    }
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
    else setUp();
  }
})();
