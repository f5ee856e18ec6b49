// @ts-check
// Diff pages (reader/render/filediff.py): unified or side by side, the reader's choice kept in
// localStorage for every diff page. The page carries the unified view only; the side-by-side one
// is made from its rows the first time it is chosen: the old file's lines on the left (a removed
// line beside the added line that replaced it, a blank where a side has none) with the previous
// edition's notes, the new file's on the right with this edition's. Its lines keep their links and
// highlighting (codeview.js paints them as it paints any view: `readerCode.add`). A line of either
// file, `#new-L12` or `#old-L3` in the URL, is found in the view shown by the rows' numbers;
// `readerDiff.line(n)` goes to the new file's line n (finder.js's go-to-line), on its own page
// when the diff does not show it.
(function () {
  "use strict";
  var KEY = "reader.diffView";
  var CHUNK = 50, RUN_ON = 40;  // code.py's CHUNK and RUN_ON
  var FILE_LINE = /^(new|old)-L(\d+)$/;

  // Every row of the unified view as first served: {cls, label, html, spec (its runs), at (its number)}.
  function unifiedRows(view) {
    var out = [];
    view.querySelectorAll(".rd-k").forEach(/** @param {any} chunk */ function (chunk) {
      var specs = (chunk.getAttribute("data-h") || "").split(" "), holder = chunk;
      if (chunk.rdRaw !== undefined) {  // painted already: its lines as they came
        holder = document.createElement("div");
        holder.innerHTML = chunk.rdRaw;
      }
      Array.prototype.forEach.call(holder.children, function (row, i) {
        out.push({cls: row.className, label: row.getAttribute("data-l") || "",
                  html: row.innerHTML, spec: specs[i] || "", at: out.length + 1});
      });
    });
    return out;
  }

  // The two sides, row for row: [old rows, new rows], each row {cls, label, html, spec, n (its
  // file's line, 0 for none), at (the unified row it shows)}.
  function sides(rows) {
    var left = [], right = [], pad = {cls: "rd-pad", label: "", html: "", spec: "", n: 0, at: 0};
    function side(row, cls, n) {
      return {cls: cls, label: n ? String(n).padStart(5) : "", html: row.html, spec: row.spec, n: n, at: row.at};
    }
    for (var i = 0; i < rows.length;) {
      var row = rows[i], label = row.label;
      if (row.cls === "rd-hunk" || row.cls === "rd-eq") {
        var old = row.cls === "rd-eq" ? +label.slice(0, 5) : 0, now = row.cls === "rd-eq" ? +label.slice(6, 11) : 0;
        left.push(side(row, row.cls, old));
        right.push(side(row, row.cls, now));
        i++;
        continue;
      }
      var removed = [], added = [];
      for (; i < rows.length && rows[i].cls === "rd-del"; i++) removed.push(side(rows[i], "rd-del", +rows[i].label.slice(0, 5)));
      for (; i < rows.length && rows[i].cls === "rd-add"; i++) added.push(side(rows[i], "rd-add", +rows[i].label.slice(6, 11)));
      for (var k = 0; k < Math.max(removed.length, added.length); k++) {
        left.push(removed[k] || pad);
        right.push(added[k] || pad);
      }
    }
    return [left, right];
  }

  // The notes of one side: each unified note (`.rd-mn`, its rows `uL5-L9`) of that edition, beside
  // the side's rows (`prefix`) that show the same unified rows; its link to its first row likewise.
  function notesOf(unified, rows, old, prefix) {
    var where = {};  // unified row -> this side's row
    rows.forEach(function (r, i) { if (r.n) where[r.at] = i + 1; });
    var out = [];
    unified.querySelectorAll(".rd-mn").forEach(function (note) {
      if (!!note.querySelector(".rd-note-was") !== old) return;
      var m = /^uL(\d+)(?:-L(\d+))?$/.exec(note.getAttribute("data-lines") || "");
      if (!m) return;
      var shown = [];
      for (var u = +m[1]; u <= +(m[2] || m[1]); u++) if (where[u]) shown.push(where[u]);
      if (!shown.length) return;
      // Ids made its own (material's `__code_0` on a claim's code, and its copy button's target).
      var html = note.innerHTML.replace(/href="#uL(\d+)"/g, function (all, u) {
        return where[u] ? 'href="#' + prefix + "L" + where[u] + '"' : all;
      }).replace(/ id="/g, ' id="s-').replace(/data-clipboard-target="#/g, 'data-clipboard-target="#s-');
      out.push({start: shown[0], end: shown[shown.length - 1], html: html});
    });
    return out.sort(function (a, b) { return a.start - b.start || a.end - b.end; });
  }

  function esc(text) { return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;"); }

  // Rows `first`..`last` (1-based) of a side as code.py's chunks: `--n`, the runs in `data-h`.
  function chunks(rows, first, last, prefix) {
    var out = "";
    for (var a = first; a <= last; a += CHUNK) {
      var b = Math.min(last, a + CHUNK - 1), html = "", specs = [];
      for (var n = a; n <= b; n++) {
        var r = rows[n - 1];
        html += '<div id="' + prefix + "L" + n + '" class="' + r.cls + '" data-l="' + esc(r.label) + '">' + r.html + "</div>";
        specs.push(r.spec);
      }
      out += '<div class="rd-k" style="--n:' + (b - a + 1) + '" data-h="' + esc(specs.join(" ")) + '">' + html + "</div>";
    }
    return out;
  }

  // One side's code view, laid out as code.py's code_view lays one out: noted blocks (notes whose
  // rows overlap, merged), `RUN_ON` rows after each that keep the notes' column, the rest free.
  function view(unified, rows, notes, prefix) {
    var el = document.createElement("div"), parts = [], cursor = 1, after = false;
    el.className = "rd-code highlight" + (notes.length ? " rd-margin" : "");
    ["data-c", "data-t"].forEach(function (a) { el.setAttribute(a, unified.getAttribute(a) || ""); });
    function plain(a, b) {
      var keep = after ? Math.min(b, a + RUN_ON - 1) : a - 1;
      if (keep >= a) parts.push('<div class="rd-block"><div class="rd-lines">' + chunks(rows, a, keep, prefix) + "</div></div>");
      if (b > keep) parts.push('<div class="rd-block rd-free"><div class="rd-lines">' + chunks(rows, keep + 1, b, prefix) + "</div></div>");
    }
    for (var i = 0; i < notes.length;) {
      var start = notes[i].start, end = notes[i].end, html = "";
      for (; i < notes.length && notes[i].start <= end; i++) {
        end = Math.max(end, notes[i].end);
        html += '<div class="rd-mn" data-lines="' + prefix + "L" + notes[i].start +
          (notes[i].end > notes[i].start ? "-L" + notes[i].end : "") + '">' + notes[i].html + "</div>";
      }
      if (start > cursor) plain(cursor, start - 1);
      parts.push('<div class="rd-block rd-noted"><div class="rd-lines">' + chunks(rows, start, end, prefix) +
                 '</div><aside class="rd-notes"><div class="rd-ns">' + html + "</div></aside></div>");
      cursor = end + 1;
      after = true;
    }
    if (cursor <= rows.length) plain(cursor, rows.length);
    var bar = unified.querySelector(":scope > .rd-bar");
    el.innerHTML = (bar ? bar.outerHTML : "") + parts.join("");
    return el;
  }

  function column(cls, title, code) {
    var col = document.createElement("div"), head = document.createElement("p");
    col.className = cls + " rd-file";
    head.className = "rd-meta";
    head.textContent = title;
    col.append(head, code);
    return col;
  }

  // The side-by-side view, made once from the unified one.
  function split(root) {
    var made = root.querySelector(":scope > .rd-diff-split");
    if (made) return made;
    var unified = root.querySelector(".rd-diff-unified > .rd-code");
    var both = sides(unifiedRows(unified)), left = both[0], right = both[1];
    var old = view(unified, left, notesOf(unified, left, true, "o"), "o");
    var now = view(unified, right, notesOf(unified, right, false, "s"), "s");
    made = document.createElement("div");
    made.className = "rd-diff-split";
    made.append(column("rd-diff-old", root.getAttribute("data-old") || "", old),
                column("rd-diff-new", root.getAttribute("data-new") || "", now));
    root.appendChild(made);
    if (window.readerCode) window.readerCode.add([old, now]);
    return made;
  }

  // The URL's line of a file (`#new-L12`, `#old-L3`) in the view shown: the row numbered so,
  // selected (reader.js's tint) and scrolled to.
  var chosen = null;
  function follow(root) {
    var id;
    try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
    var m = FILE_LINE.exec(id), split = root.getAttribute("data-view") === "split";
    if (chosen) chosen.classList.remove("rd-sel");
    chosen = null;
    if (!m) return;
    var rows = root.querySelectorAll(split ? (m[1] === "old" ? ".rd-diff-old" : ".rd-diff-new") + " .rd-k > div"
                                           : ".rd-diff-unified .rd-k > div");
    var at = m[1] === "old" || split ? 0 : 6;  // where its number is in the row's `data-l`
    for (var i = 0; i < rows.length && !chosen; i++) {
      if (+rows[i].getAttribute("data-l").slice(at, at + 5) === +m[2] && !/rd-hunk|rd-pad/.test(rows[i].className)) chosen = rows[i];
    }
    if (!chosen) return;
    if (window.readerCode) window.readerCode.paint(chosen.closest(".rd-k"));
    chosen.classList.add("rd-sel");
    chosen.scrollIntoView({block: "center"});
  }

  function choose(root, view) {
    if (view === "split") split(root);
    root.setAttribute("data-view", view);
    root.querySelectorAll(".rd-diff-views button").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.getAttribute("data-view") === view));
    });
    follow(root);
  }

  function wire() {
    document.querySelectorAll(".rd-diff").forEach(function (root) {
      var kept = null;
      try { kept = localStorage.getItem(KEY); } catch (e) { /* storage refused: the default */ }
      if (kept === "split") choose(root, kept);
      root.querySelectorAll(".rd-diff-views button").forEach(function (b) {
        b.addEventListener("click", function () {
          var view = b.getAttribute("data-view");
          choose(root, view);
          try { localStorage.setItem(KEY, view); } catch (e) { /* not kept */ }
          window.dispatchEvent(new Event("resize"));  // the code view sizes what it now shows
        });
      });
      window.addEventListener("hashchange", function () { follow(root); });
      window.readerDiff = {
        lines: +(root.getAttribute("data-lines") || 0),
        line: function (n) {
          location.hash = "#new-L" + n;
          follow(root);  // at once (no hashchange when the hash is already this line)
          if (!chosen) location.href = (root.getAttribute("data-source") || "") + "#L" + n;
        },
      };
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();
})();
