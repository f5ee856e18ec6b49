// @ts-check
// Diff pages (reader/render/diff/page.py), as a code-review tool shows them: unified or side by
// side, the reader's choice kept in localStorage for every diff page. The page carries the unified
// view only; the side-by-side one is made from its rows the first time it is chosen, as one grid:
// each row holds the old line on the left and the new one on the right (a removed line beside the
// added line that replaced it, a blank where a side has none), so the two sides share each row's
// height and stay aligned, the notes of either edition in rows of their own under their lines.
// Its lines keep their links and highlighting (codeview.js paints them: `readerCode.add`).
// Context expands: above each hunk and after the last one, the hidden unchanged lines come back
// 20 at a time or all at once (their text from search's pieces of the file's lines). A line of
// either file, `#new-L12` or `#old-L3` in the URL, is marked and shown in the view shown, on load
// and when the URL changes, its context expanded if it was hidden; `n` and `p` go to the next and
// previous change. `readerDiff.line(n)` goes to the new file's line n (finder.js's go-to-line).
// The pure part (`hunks`, `gaps`, `sides`, `changes`) is `readerDiffRows` (tests/js/diff.test.js).
/* exported readerDiffRows */
/** @typedef {{cls: string, label: string, html: string, spec: string, at: number, w?: string}} Row */
/** @typedef {{cls: string, label: string, html: string, spec: string, n: number, at: number, w: string, a: string}} Side */
/** @typedef {{oldStart: number, oldLen: number, newStart: number, newLen: number}} Hunk */
/** @typedef {{index: number, lo: number, hi: number, shift: number, below: boolean}} Gap */
var readerDiffRows = (function () {
  var HEAD = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@/;

  /** A hunk head's numbers (its `-a,b +c,d`), or null. @param {string} text @returns {Hunk | null} */
  function hunk(text) {
    var m = HEAD.exec(text);
    return m ? {oldStart: +m[1], oldLen: +m[2], newStart: +m[3], newLen: +m[4]} : null;
  }

  /**
   * The unchanged lines the hunks leave out, lines `lo`..`hi` of the new file (line n is line
   * n - `shift` of the old one): one gap above each hunk (`index` the hunk's), and one after the
   * last (`index` = the hunks' count, nothing `below` it); empty ones too, so that a gap's index
   * names its place.
   * @param {Hunk[]} hunks @param {number} lines the new file's line count @returns {Gap[]}
   */
  function gaps(hunks, lines) {
    var out = [], newEnd = 0, oldEnd = 0;
    hunks.forEach(function (h, i) {
      out.push({index: i, lo: newEnd + 1, hi: h.newStart - 1, shift: newEnd - oldEnd, below: true});
      newEnd = h.newStart + h.newLen - 1;
      oldEnd = h.oldStart + h.oldLen - 1;
    });
    out.push({index: hunks.length, lo: newEnd + 1, hi: lines, shift: newEnd - oldEnd, below: false});
    return out;
  }

  /** The numbers in a unified row's label (`  old   new`, `  old      -`, `        new +`). @param {string} label */
  function numbers(label) {
    return {old: +label.slice(0, 5) || 0, now: +label.slice(6, 11) || 0};
  }

  /**
   * The two sides, row for row: [old rows, new rows], a removed line beside the added line that
   * replaced it, a pad where a side has none.
   * @param {Row[]} rows @returns {[Side[], Side[]]}
   */
  function sides(rows) {
    var left = [], right = [], pad = {cls: "rd-pad", label: "", html: "", spec: "", n: 0, at: 0, w: "", a: ""};
    function side(row, cls, n, old) {  // `a`: the line's own id, which its number links
      return {cls: cls, label: n ? String(n).padStart(5) : "", html: row.html, spec: row.spec, n: n, at: row.at,
              w: row.w || "", a: n ? (old ? "old-L" : "new-L") + n : ""};
    }
    for (var i = 0; i < rows.length;) {
      var row = rows[i], kind = /\brd-(hunk|eq|del|add)\b/.exec(row.cls);
      if (!kind || kind[1] === "hunk" || kind[1] === "eq") {
        var at = numbers(row.label), eq = kind && kind[1] === "eq";
        left.push(side(row, row.cls, eq ? at.old : 0, true));
        right.push(side(row, row.cls, eq ? at.now : 0, false));
        i++;
        continue;
      }
      var removed = [], added = [];
      for (; i < rows.length && /\brd-del\b/.test(rows[i].cls); i++) removed.push(side(rows[i], "rd-del", numbers(rows[i].label).old, true));
      for (; i < rows.length && /\brd-add\b/.test(rows[i].cls); i++) added.push(side(rows[i], "rd-add", numbers(rows[i].label).now, false));
      for (var k = 0; k < Math.max(removed.length, added.length); k++) {
        left.push(removed[k] || pad);
        right.push(added[k] || pad);
      }
    }
    return [left, right];
  }

  /** The first row (0-based) of each run of changed rows. @param {string[]} classes each row's @returns {number[]} */
  function changes(classes) {
    var out = [];
    classes.forEach(function (cls, i) {
      var changed = /\brd-(add|del)\b/.test(cls);
      if (changed && (i === 0 || !/\brd-(add|del)\b/.test(classes[i - 1]))) out.push(i);
    });
    return out;
  }

  var api = {hunk: hunk, gaps: gaps, numbers: numbers, sides: sides, changes: changes};
  var node = typeof module === "object" ? module : null;  // not `module.exports`: tsc would read
  if (node) node.exports = api;                          // the script as a CommonJS module
  if (typeof document === "object") wire();
  return api;

  function wire() {
    "use strict";
    var KEY = "reader.diffView";
    var CHUNK = 50, STEP = 20;  // code.py's CHUNK; the lines an expander shows at a time
    var FILE_LINE = /^(new|old)-L(\d+)$/;

    // Every row of the unified view as first served, its expanded context included:
    // {cls, label, html, spec (its runs), at (its number)}.
    function unifiedRows(view) {
      var out = [];
      view.querySelectorAll(".rd-k").forEach(/** @param {any} chunk */ function (chunk) {
        var specs = (chunk.getAttribute("data-h") || "").split(" "), holder = chunk;
        if (chunk.rdRaw !== undefined) {  // painted already: its lines as they came
          holder = document.createElement("div");
          holder.innerHTML = chunk.rdRaw;
        }
        Array.prototype.forEach.call(holder.children, function (row, i) {
          out.push({cls: row.className.replace(/ ?\brd-sel\b/, ""), label: row.getAttribute("data-l") || "",
                    html: row.innerHTML, spec: specs[i] || "", at: out.length + 1, w: row.getAttribute("data-w") || ""});
        });
      });
      return out;
    }

    // The notes of one side: each unified note (`.rd-mn`, its lines `new-L5-L9` or `old-L3`) of
    // that edition, at the side's rows that show those lines.
    function notesOf(unified, rows, old) {
      var where = {};  // line -> this side's row
      rows.forEach(function (r, i) { if (r.n) where[r.n] = i + 1; });
      var out = [];
      unified.querySelectorAll(".rd-mn").forEach(function (note) {
        if (!!note.querySelector(".rd-note-was") !== old) return;
        var m = /^(?:new|old)-L(\d+)(?:-L(\d+))?$/.exec(note.getAttribute("data-lines") || "");
        if (!m) return;
        var shown = [];
        for (var u = +m[1]; u <= +(m[2] || m[1]); u++) if (where[u]) shown.push(where[u]);
        if (!shown.length) return;
        // Ids made its own (material's `__code_0` on a claim's code, and its copy button's target).
        var html = note.innerHTML.replace(/ id="/g, ' id="s-').replace(/data-clipboard-target="#/g, 'data-clipboard-target="#s-');
        out.push({start: shown[0], end: shown[shown.length - 1], html: html});
      });
      return out;
    }

    function esc(text) { return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;"); }

    function cell(r, id) {  // its number links the line's own id (`data-a`)
      return '<div id="' + id + '" class="' + r.cls + '" data-l="' + esc(r.label) + '"' +
        (r.a ? ' data-a="' + r.a + '"' : "") + (r.w ? ' data-w="' + r.w + '"' : "") + ">" + r.html + "</div>";
    }

    // The side-by-side view: one grid, each row both sides' lines (`oL<row>`, `sL<row>`); a new
    // chunk at each hunk head (an expander goes before it) and after each row that notes follow,
    // whose notes make a row of their own: the old edition's on the left, this one's on the right.
    function splitView(root, unified) {
      var both = sides(unifiedRows(unified)), left = both[0], right = both[1];
      var notes = {};  // the row they follow -> [left html, right html]
      [[notesOf(unified, left, true), 0], [notesOf(unified, right, false), 1]].forEach(function (pair) {
        /** @type {any[]} */ (pair[0]).forEach(function (n) {
          var at = notes[n.end] || (notes[n.end] = ["", ""]);
          at[/** @type {number} */ (pair[1])] += '<div class="rd-mn" data-lines="' + (pair[1] ? "s" : "o") + "L" + n.start +
            (n.end > n.start ? "-L" + n.end : "") + '">' + n.html + "</div>";
        });
      });
      var parts = [], html = "", specs = [], size = 0, placed = {}, gs = model(root).gaps;
      function expanders(limit) {  // the hidden lines before new line `limit`, where they are
        gs.forEach(function (g) {
          if (!placed[g.index] && g.hi < limit) { placed[g.index] = true; close(); parts.push(expanderHtml(g.index)); }
        });
      }
      function close() {
        if (!size) return;
        parts.push('<div class="rd-k rd-sk" style="--n:' + size + '" data-h="' + esc(specs.join(" ")) + '">' + html + "</div>");
        html = "";
        specs = [];
        size = 0;
      }
      for (var i = 0; i < left.length; i++) {
        var head = /\brd-hunk\b/.test(left[i].cls) ? hunk(right[i].html.replace(/<[^>]*>/g, "")) : null;
        expanders(head ? head.newStart : right[i].n || 0);
        if (head) close();
        else if (size >= CHUNK) close();
        html += cell(left[i], "oL" + (i + 1)) + cell(right[i], "sL" + (i + 1));
        specs.push(left[i].spec, right[i].spec);
        size++;
        if (notes[i + 1]) {
          close();
          parts.push('<div class="rd-snotes"><aside class="rd-sn">' + notes[i + 1][0] + '</aside><aside class="rd-sn">' +
                     notes[i + 1][1] + "</aside></div>");
        }
      }
      expanders(Infinity);
      close();
      var view = document.createElement("div");
      view.className = "rd-code highlight rd-split";
      ["data-c", "data-t"].forEach(function (a) { view.setAttribute(a, unified.getAttribute(a) || ""); });
      view.innerHTML = '<div class="rd-split-head"><p class="rd-meta">' + esc(root.getAttribute("data-old") || "") +
        '</p><p class="rd-meta">' + esc(root.getAttribute("data-new") || "") + "</p></div>" +
        '<div class="rd-block"><div class="rd-lines">' + parts.join("") + "</div></div>";
      return view;
    }

    // The side-by-side view, made once from the unified one (again after context expands).
    function split(root) {
      var made = root.querySelector(":scope > .rd-diff-split");
      if (made) return made;
      var unified = root.querySelector(".rd-diff-unified > .rd-code");
      var view = splitView(root, unified);
      made = document.createElement("div");
      made.className = "rd-diff-split rd-file";
      made.appendChild(view);
      root.appendChild(made);
      fillExpanders(root, made);
      if (window.readerCode) window.readerCode.add([view]);
      return made;
    }

    // Context ----------------------------------------------------------------------------------
    var state = new WeakMap();  // root -> {hunks, gaps, text: Promise of the file's lines}

    function model(root) {
      var got = state.get(root);
      if (got) return got;
      var heads = root.querySelectorAll(".rd-diff-unified .rd-k > .rd-hunk");
      var hunks = Array.prototype.map.call(heads, function (h) { return hunk(h.textContent || ""); });
      got = {hunks: hunks, gaps: gaps(hunks, +(root.getAttribute("data-lines") || 0)), lines: null};
      state.set(root, got);
      return got;
    }

    function expanderHtml(index) { return '<div class="rd-expand" data-gap="' + index + '"></div>'; }

    // The unified view's expanders: one before each hunk head's chunk, one after the last chunk.
    function placeExpanders(root) {
      var unified = root.querySelector(".rd-diff-unified > .rd-code");
      var heads = unified.querySelectorAll(".rd-k > .rd-hunk");
      Array.prototype.forEach.call(heads, function (head, i) {
        var chunk = head.parentElement;
        chunk.insertAdjacentHTML("beforebegin", expanderHtml(i));
      });
      var chunks = unified.querySelectorAll(".rd-k");
      if (chunks.length) chunks[chunks.length - 1].insertAdjacentHTML("afterend", expanderHtml(heads.length));
      fillExpanders(root, unified);
    }

    function fillExpanders(root, view) {
      var m = model(root);
      view.querySelectorAll(".rd-expand").forEach(function (box) {
        var gap = m.gaps[+(box.getAttribute("data-gap") || 0)], count = gap ? gap.hi - gap.lo + 1 : 0;
        box.textContent = "";
        box.hidden = count <= 0;
        if (count <= 0) return;
        box.setAttribute("role", "group");
        box.setAttribute("aria-label", count + " unchanged line" + (count === 1 ? "" : "s") + " hidden");
        var above = gap.lo > 1, below = gap.below;  // shown lines on each side to grow from
        function button(text, how) {
          var b = document.createElement("button");
          b.type = "button";
          b.className = "rd-expand-" + how;
          b.setAttribute("data-how", how);
          b.textContent = text;
          box.appendChild(b);
        }
        if (count > STEP && above) button("\u2193 " + STEP + " lines", "down");
        button((count > STEP ? "All " : "") + count + " unchanged line" + (count === 1 ? "" : "s") +
               " (" + gap.lo + (count > 1 ? "\u2013" + gap.hi : "") + ")", "all");
        if (count > STEP && below) button("\u2191 " + STEP + " lines", "up");
      });
    }

    // The new file's lines `lo`..`hi` from search's pieces of its text, or null (no search here).
    function linesOf(root, lo, hi) {
      var S = window.readerSearch, Q = /** @type {any} */ (window).readerQuery;  // query.js
      if (!S || !Q) return Promise.resolve(null);
      var path = root.getAttribute("data-path");
      return S.load("files").then(function (table) {
        var files = (table && table.files) || [], f = -1;
        files.forEach(function (row, i) { if (row[0] === path) f = i; });
        if (f < 0) return null;
        var keys = [];
        for (var n = lo; n <= hi; n++) if (keys.indexOf(Q.linesKey(f, n)) < 0) keys.push(Q.linesKey(f, n));
        return Promise.all(keys.map(function (k) { return S.load(k); })).then(function (found) {
          /** @type {Object<string, string[]>} */
          var pieces = {};
          keys.forEach(function (k, i) { pieces[k] = found[i]; });
          var out = [];
          for (var n = lo; n <= hi; n++) {
            var text = Q.lineText(pieces, f, n);
            if (text === null || text === undefined) return null;
            out.push(text);
          }
          return out;
        });
      });
    }

    // The new file's token runs, a line's each, from its source page's paint script (`data-paint`:
    // `readerCode.put(path, {c, h})`), or null where there is none.
    function runsOf(root) {
      var m = model(root), code = window.readerCode, src = root.getAttribute("data-paint");
      if (!m.runs) {
        m.runs = new Promise(function (done) {
          if (!src || !code) { done(null); return; }
          code.wait(root.getAttribute("data-path") || "", function (data) {
            var lines = [];
            data.h.forEach(function (h) { lines.push.apply(lines, h.split(" ")); });  // codetables.js's lineRuns
            done({lines: lines, c: data.c});
          });
          var tag = document.createElement("script");
          tag.src = src;
          tag.onerror = function () { done(null); };
          document.head.appendChild(tag);
        });
      }
      return m.runs;
    }

    // A line's runs in the unified view's classes (`data-c`, which grows by the classes it lacks).
    function recode(spec, from, view) {
      var table = (view.getAttribute("data-c") || "").split(" "), grew = false, R = window.readerRuns;
      var out = R.decode(spec).map(function (run) {
        var name = from[run[0]] || "", k = table.indexOf(name);
        if (k < 0) { k = table.push(name) - 1; grew = true; }
        return R.classCode(k) + run[1];
      }).join("");
      if (grew) {
        view.setAttribute("data-c", table.join(" "));
        if (view.rdData) view.rdData.c = table;
      }
      return out;
    }

    // A chunk of unchanged lines `lo`..`hi` (the new file's numbers) for the unified view, each row
    // the new line's id, highlighted as the file's page is (`runs`).
    function contextChunk(lo, texts, shift, runs, view) {
      var chunk = document.createElement("div"), html = "", specs = [];
      chunk.className = "rd-k rd-ctx";
      chunk.style.setProperty("--n", String(texts.length));
      texts.forEach(function (text, i) {
        var n = lo + i;
        html += '<div id="new-L' + n + '" class="rd-eq rd-ctx" data-l="' + String(n - shift).padStart(5) + " " +
          String(n).padStart(5) + '">' + esc(text).replace(/>/g, "&gt;") + "</div>";
        specs.push(runs && runs.lines[n - 1] !== undefined ? recode(runs.lines[n - 1], runs.c, view) : "");
      });
      chunk.innerHTML = html;
      chunk.setAttribute("data-h", specs.join(" "));
      return chunk;
    }

    // The characters a changed line's words changed (`data-w`: `start-end` pairs), marked in its
    // painted rows: each piece of text inside them wrapped in `.rd-w`.
    function words(chunk) {
      Array.prototype.forEach.call(chunk.children, /** @param {any} row */ function (row) {
        var spec = row.getAttribute("data-w");
        if (!spec || row.rdWords) return;
        row.rdWords = true;
        var ranges = spec.split(" ").map(function (p) { return p.split("-").map(Number); });
        var walker = document.createTreeWalker(row, NodeFilter.SHOW_TEXT), nodes = [], at = 0;
        for (var t = walker.nextNode(); t; t = walker.nextNode()) nodes.push(/** @type {Text} */ (t));
        nodes.forEach(function (node) {
          var from = at, to = at + node.data.length;
          at = to;
          ranges.filter(function (r) { return r[0] < to && r[1] > from; }).reverse().forEach(function (r) {
            var piece = node.splitText(Math.max(r[0], from) - from);
            piece.splitText(Math.min(r[1], to) - Math.max(r[0], from));
            var mark = document.createElement("span");
            mark.className = "rd-w";
            piece.replaceWith(mark);
            mark.appendChild(piece);
          });
        });
      });
    }

    // Shows lines of gap `index`: `how` down (after the hunk above), up (before the hunk below), all.
    function expand(root, index, how, around) {
      var m = model(root), gap = m.gaps[index];
      if (!gap || gap.hi < gap.lo) return Promise.resolve(false);
      var lo = gap.lo, hi = gap.hi;
      if (how === "down") hi = Math.min(gap.hi, gap.lo + STEP - 1);
      else if (how === "up") lo = Math.max(gap.lo, gap.hi - STEP + 1);
      else if (how === "near") { lo = Math.max(gap.lo, around - 10); hi = Math.min(gap.hi, around + 10); }
      return Promise.all([linesOf(root, lo, hi), runsOf(root)]).then(function (got) {
        var texts = got[0];
        if (!texts) {  // no text at hand: the lines on the file's own page
          location.href = (root.getAttribute("data-source") || "") + "#L" + lo + "-L" + hi;
          return false;
        }
        var unified = root.querySelector(".rd-diff-unified > .rd-code");
        var box = unified.querySelector('.rd-expand[data-gap="' + index + '"]');
        var chunk = contextChunk(lo, texts, gap.shift, got[1], unified);
        if (lo === gap.lo) {  // down, all: after what is shown above
          box.before(chunk);
          gap.lo = hi + 1;
        } else if (hi === gap.hi) {  // up: by what is shown below
          box.after(chunk);
          gap.hi = lo - 1;
        } else {  // a window in the middle: the gap splits in two, the lower part a gap of its own
          var rest = {index: m.gaps.length, lo: hi + 1, hi: gap.hi, shift: gap.shift, below: gap.below};
          m.gaps.push(rest);
          gap.hi = lo - 1;
          gap.below = true;
          box.after(chunk);
          chunk.insertAdjacentHTML("afterend", expanderHtml(rest.index));
        }
        if (window.readerCode) window.readerCode.paint(chunk);
        fillExpanders(root, unified);
        var made = root.querySelector(":scope > .rd-diff-split");
        if (made) {  // remade from the unified view with its new rows
          made.remove();
          if (root.getAttribute("data-view") === "split") split(root);
        }
        return true;
      });
    }

    // The URL's line ------------------------------------------------------------------------------
    var chosen = null;

    function rowOf(root, side, n) {
      var isSplit = root.getAttribute("data-view") === "split";
      if (isSplit) {
        var cells = root.querySelectorAll(".rd-split .rd-k > [id^='" + (side === "old" ? "o" : "s") + "L']");
        for (var i = 0; i < cells.length; i++) {
          if (+cells[i].getAttribute("data-l") === n && !/rd-hunk|rd-pad/.test(cells[i].className)) return cells[i];
        }
        return null;
      }
      var rows = root.querySelectorAll(".rd-diff-unified .rd-k > div");
      for (var j = 0; j < rows.length; j++) {
        var at = numbers(rows[j].getAttribute("data-l") || "");
        if ((side === "old" ? at.old : at.now) === n && !/rd-hunk/.test(rows[j].className)) return rows[j];
      }
      return null;
    }

    // Scrolls `el` to the middle of the view and keeps it there while what is above it is laid out
    // (a second or so), unless the reader scrolls meanwhile.
    var showing = 0;
    function show(el) {
      var frames = 0, steady = 0, at = null, run = ++showing;
      function place() {
        if (run !== showing || (at !== null && Math.abs(window.scrollY - at) > 1)) return;  // scrolled by another
        var box = el.getBoundingClientRect(), want = (window.innerHeight - box.height) / 2;
        if (Math.abs(box.top - want) > 2) { window.scrollBy(0, box.top - want); steady = 0; } else steady++;
        at = window.scrollY;
        if (++frames < 90 && steady < 4) requestAnimationFrame(place);
      }
      place();
    }

    function follow(root, again) {
      var id;
      try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
      var m = FILE_LINE.exec(id);
      if (chosen) chosen.classList.remove("rd-sel");
      chosen = null;
      if (!m) return;
      var n = +m[2], found = rowOf(root, m[1], n);
      if (!found && !again) {  // hidden context: shown, then followed again
        var gap = model(root).gaps.filter(function (g) {
          var now = m[1] === "new" ? n : n + g.shift;
          return g.lo <= now && now <= g.hi;
        })[0];
        if (gap) {
          expand(root, gap.index, "near", m[1] === "new" ? n : n + gap.shift).then(function (done) { if (done) follow(root, true); });
        }
        return;
      }
      if (!found) return;
      chosen = found;
      if (window.readerCode) window.readerCode.paint(chosen.closest(".rd-k"));
      chosen.classList.add("rd-sel");
      show(chosen);
    }

    // n and p ---------------------------------------------------------------------------------------
    function step(root, by) {
      var isSplit = root.getAttribute("data-view") === "split";
      var rows = Array.prototype.slice.call(root.querySelectorAll(isSplit ? ".rd-split .rd-k > [id^='oL']" : ".rd-diff-unified .rd-k > div"));
      var classes = rows.map(function (r) {
        return isSplit ? r.className + " " + (r.nextElementSibling ? r.nextElementSibling.className : "") : r.className;
      });
      var starts = changes(classes).map(function (i) { return rows[i]; });
      if (!starts.length) return;
      // From the change marked last (still in this view), else from the top of the view.
      var from = chosen && root.contains(chosen) && chosen.getClientRects().length ? chosen : null;
      var head = document.querySelector(".md-header");
      var ref = from ? from.getBoundingClientRect().top : (head ? head.getBoundingClientRect().bottom : 0);
      var target = by > 0 ? starts.filter(function (r) { return r.getBoundingClientRect().top > ref + (from ? 1 : -1); })[0]
        : starts.filter(function (r) { return r.getBoundingClientRect().top < ref - 1; }).pop();
      var status = root.querySelector(".rd-diff-status");
      if (!target) {
        if (status) status.textContent = by > 0 ? "No change below" : "No change above";
        return;
      }
      var side, at;
      if (isSplit) {
        var right = target.nextElementSibling, added = right && /\brd-add\b/.test(right.className);
        side = added ? "new" : "old";
        at = +((added ? right : target).getAttribute("data-l") || 0);
      } else {
        var nums = numbers(target.getAttribute("data-l") || "");
        side = nums.now ? "new" : "old";
        at = nums.now || nums.old;
      }
      if (status) status.textContent = "Change " + (starts.indexOf(target) + 1) + " of " + starts.length;
      history.replaceState(null, "", "#" + side + "-L" + at);
      follow(root);
    }

    function choose(root, view) {
      if (view === "split") split(root);
      root.setAttribute("data-view", view);
      root.querySelectorAll(".rd-diff-views button").forEach(function (b) {
        b.setAttribute("aria-pressed", String(b.getAttribute("data-view") === view));
      });
      follow(root);
    }

    // The changed files, listed when their list opens (assets/diffs.js: one script for every page).
    function fileList(box) {
      var waiting = [];
      window.readerDiffFiles = {put: function (rows) { waiting.forEach(function (done) { done(rows); }); }};
      box.addEventListener("toggle", function () {
        if (!box.open || box.querySelector("ol")) return;
        waiting.push(function (rows) {
          if (box.querySelector("ol")) return;
          var list = document.createElement("ol"), here = box.getAttribute("data-path") || "";
          var base = (box.getAttribute("data-src") || "").replace(/assets\/diffs\.js$/, "");
          rows.forEach(function (row) {
            var item = document.createElement("li"), a = document.createElement("a"), code = document.createElement("code");
            a.href = base + "diffs/" + row[0] + ".html";
            code.textContent = row[0];
            a.appendChild(code);
            if (row[0] === here) a.setAttribute("aria-current", "page");
            var stat = document.createElement("span");
            stat.className = "rd-diffstat";
            stat.innerHTML = '<span class="rd-plus">+' + row[1] + '</span> <span class="rd-minus">-' + row[2] + "</span>";
            item.append(a, " ", stat);
            list.appendChild(item);
          });
          box.appendChild(list);
        });
        var s = document.createElement("script");
        s.src = box.getAttribute("data-src") || "";
        document.head.appendChild(s);
      });
    }

    function setUp() {
      document.querySelectorAll(".rd-diff-files details[data-src]").forEach(fileList);
      document.querySelectorAll(".rd-diff").forEach(function (root) {
        root.querySelectorAll(".rd-k.rd-on").forEach(words);  // painted before this ran
        root.addEventListener("rd-painted", /** @param {Event & {target: HTMLElement}} e */ function (e) { words(e.target); });
        placeExpanders(root);
        var bar = root.querySelector(".rd-diff-steps");
        if (bar && !root.querySelector(".rd-diff-status")) {
          var status = document.createElement("span");
          status.className = "rd-diff-status";
          status.setAttribute("role", "status");
          bar.appendChild(status);
        }
        var kept = null;
        try { kept = localStorage.getItem(KEY); } catch (e) { /* storage refused: the default */ }
        if (kept === "split") choose(root, kept);
        else follow(root);  // the URL's line, on load as on a change
        root.querySelectorAll(".rd-diff-views button").forEach(function (b) {
          b.addEventListener("click", function () {
            var view = b.getAttribute("data-view");
            choose(root, view);
            try { localStorage.setItem(KEY, view); } catch (e) { /* not kept */ }
            window.dispatchEvent(new Event("resize"));  // the code view sizes what it now shows
          });
        });
        root.addEventListener("click", /** @param {MouseEvent & {target: HTMLElement}} e */ function (e) {
          var b = e.target.closest && e.target.closest(".rd-expand button, .rd-diff-steps button[data-step]");
          if (!b) return;
          if (b.hasAttribute("data-step")) { step(root, +(b.getAttribute("data-step") || 1)); return; }
          var box = b.closest(".rd-expand"), index = +(box.getAttribute("data-gap") || 0);
          var anchor = box.getBoundingClientRect().top;
          expand(root, index, b.getAttribute("data-how")).then(function () {
            var again = root.querySelector((root.getAttribute("data-view") === "split" ? ".rd-split" : ".rd-diff-unified") +
                                           ' .rd-expand[data-gap="' + index + '"]');
            if (again && !(/** @type {HTMLElement} */ (again)).hidden) window.scrollBy(0, again.getBoundingClientRect().top - anchor);
          });
        });
        window.addEventListener("hashchange", function () { follow(root); });
        document.addEventListener("keydown", /** @param {KeyboardEvent & {target: HTMLElement}} e */ function (e) {
          if ((e.key !== "n" && e.key !== "p") || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented ||
              /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName) || e.target.isContentEditable ||
              document.querySelector("dialog[open]")) return;
          e.preventDefault();
          step(root, e.key === "n" ? 1 : -1);
        });
        window.readerDiff = {
          lines: +(root.getAttribute("data-lines") || 0),
          line: function (n) {
            location.hash = "#new-L" + n;
            follow(root);  // at once (no hashchange when the hash is already this line)
          },
        };
      });
    }
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
    else setUp();
  }
})();
