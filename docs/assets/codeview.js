// @ts-check
// The code view (reader/render/code.py). Lines come in chunks (`.rd-k`) of plain text and links;
// a chunk near the viewport gets its highlighting back (token runs in its `data-h`, classes and
// link titles in the view's `data-c` and `data-t`; a source page's view has them in its paint
// script, `data-paint`, loaded at once: its chunks wait for it) and its line-number links
// (`a.rd-n`, which reader.js's line menu uses). Notes sit beside their lines and stick while their block scrolls;
// a note taller than the room before the next note folds behind "more". Hovering or focusing a
// note tints its lines, and a line tints its notes. Long lines wrap at spaces or scroll sideways,
// the reader's choice (the `.rd-wrap` toggle, kept in localStorage); the chunks not yet laid out
// are sized as they will be, so that the page does not grow while it is read. A view made after
// the page loaded (diff.js's side by side) joins through `readerCode.add`; a chunk keeps its lines
// as first served in `rdRaw` once painted, for such a view to be made from. A long file's chunks
// past its first screenfuls are empty in the page (`.rd-k[data-i]`, sized by their line count):
// their rows come as a part of the page, as an IR pane's ops do (`data-part`, loaded as the page
// loads through irview.js's readerIr.fetch), each chunk's after a run mark, and a chunk gets its
// rows when it is painted or when a row in it is needed (`need`: a `#L` fragment, a definition's
// id, the line a script goes to).
(function () {
  var WRAP_KEY = "reader.wrap";
  // Where a long line may wrap besides its spaces: after a dot, an opening bracket or a comma that
  // a name follows (`lo_grid_mapping.|slice_index_ops`), never inside a name or a number. A painted
  // line longer than its view's narrowest row gets a <wbr> there; `rowsOf` counts the same places.
  var AFTER = "(?<=(?:^|[^0-9])\\.|[(\\[{,])(?=[^ )\\]},:.0-9])";
  var CUT = new RegExp(AFTER, "g"), BREAK = new RegExp(AFTER + "|(?<= )(?=[^ ])");
  var root = document.documentElement;

  function stored() {
    try { return window.localStorage.getItem(WRAP_KEY); } catch (err) { return null; }
  }
  if (stored() === "scroll") root.classList.add("rd-scroll");

  // A view's paint script (code.py's split_code_view) calls put(): its tables, and each chunk's runs.
  function load(view) {
    if (view.rdLoading) return;
    view.rdLoading = true;
    var tag = document.createElement("script");
    tag.src = view.getAttribute("data-paint");
    tag.async = true;
    document.head.appendChild(tag);
  }

  var waiting = {};  // key -> calls for its data (diff.js: the runs of a file's context lines)
  function wait(key, done) { (waiting[key] = waiting[key] || []).push(done); }

  function put(key, data) {
    (waiting[key] || []).forEach(function (done) { done(data); });
    delete waiting[key];
    document.querySelectorAll(".rd-code[data-paint]").forEach(/** @param {any} view */ function (view) {
      if (view.getAttribute("data-code") !== key || view.rdData) return;
      view.rdData = {c: data.c, t: data.t};
      view.querySelectorAll(".rd-k").forEach(/** @param {any} chunk */ function (chunk, i) { chunk.rdRuns = data.h[i] || ""; });
      view.rdChanged = {};
      readerCodeTables.spanLines(data.m).forEach(function (n) {  // the lines changed since the last edition
        var row = document.getElementById(data.p + "L" + n);
        if (row) row.classList.add("rd-chg");
        else view.rdChanged[data.p + "L" + n] = true;  // in a chunk not yet filled
      });
      (view.rdWaiting || []).forEach(paint);
      view.rdWaiting = null;
    });
  }

  // A long file's rows (the view's part) arrived: the chunks waiting for them painted, the view
  // sized again with their text, and the URL's line shown when it was among them (reader.js).
  function loadRows(view) {
    if (view.hasAttribute("data-part") && window.readerIr) window.readerIr.fetch(view, function (html) {
      view.rdRows = html.split(window.readerIr.RUN).slice(1);
      view.rdFirst = view.rdRows.map(readerCodeTables.firstLine);
      (view.rdRowWaiting || []).forEach(paint);
      view.rdRowWaiting = null;
      if (view.rdRoom !== undefined) size(view);
      var id = location.hash.slice(1);
      try { id = decodeURIComponent(id); } catch (err) { /* the raw fragment */ }
      if (id && !document.getElementById(id) && need(id.replace(/^(.*?L\d+)-(?:.*?)L\d+$/, "$1"))) {
        window.dispatchEvent(new Event("rd-rows"));
      }
    });
  }

  // Chunk `i` of the view filled with its rows (left unpainted), once.
  function fill(view, i) {
    var chunk = view.querySelector('.rd-k[data-i="' + i + '"]'), rows = view.rdRows && view.rdRows[i];
    if (!chunk || rows == null) return;
    view.rdRows[i] = null;
    chunk.innerHTML = rows;
    chunk.removeAttribute("data-i");
    var changed = view.rdChanged || {};
    for (var k = 0; k < chunk.children.length; k++) {
      if (changed[chunk.children[k].id]) chunk.children[k].classList.add("rd-chg");
    }
  }

  // The run of the view's rows holding the element `id`, -1 if none: a line by its number (the
  // runs' first lines), any other id by its text.
  function holding(view, id) {
    var rows = view.rdRows, m = /^(.*?)L(\d+)$/.exec(id), i;
    if (m) {
      for (i = rows.length - 1; i >= 0 && !(view.rdFirst[i] && view.rdFirst[i] <= +m[2]); i--) { /* the last run starting before */ }
      return i >= 0 && rows[i] && rows[i].indexOf('id="' + id + '"') >= 0 ? i : -1;
    }
    var needle = 'id="' + id.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;") + '"';
    for (i = 0; i < rows.length; i++) if (rows[i] && rows[i].indexOf(needle) >= 0) return i;
    return -1;
  }

  // Whether the element `id` is in the page, its rows put in first where they have arrived.
  function need(id) {
    if (!id) return false;
    if (document.getElementById(id)) return true;
    var views = document.querySelectorAll(".rd-code[data-part]");
    for (var v = 0; v < views.length; v++) {
      var view = /** @type {any} */ (views[v]), i = view.rdRows ? holding(view, id) : -1;
      if (i >= 0) { fill(view, i); return !!document.getElementById(id); }
    }
    return false;
  }

  // The file's last line: its chunks' line counts (a long file's chunks past the first are empty).
  function lines() {
    var n = 0;
    document.querySelectorAll(".rd-file .rd-k").forEach(/** @param {HTMLElement} chunk */ function (chunk) {
      n += parseInt(chunk.style.getPropertyValue("--n"), 10) || 0;
    });
    return n;
  }

  function tables(view) {  // codetables.js reads code.py's _Shrunk.attributes
    if (!view.rdData) view.rdData = readerCodeTables.fromAttributes(view.getAttribute("data-c"), view.getAttribute("data-t"));
    return view.rdData;
  }

  function token(cls, node) {
    if (!cls) return node;
    var span = document.createElement("span");
    span.className = cls;
    span.appendChild(node);
    return span;
  }

  function cut(text, from, cuts) {  // `text` (at offset `from` of its line), a <wbr> at each cut inside
    var out = document.createDocumentFragment(), last = 0;
    for (var i = 1; i < text.length; i++) {
      if (!cuts[from + i]) continue;
      out.append(text.slice(last, i), document.createElement("wbr"));
      last = i;
    }
    out.append(text.slice(last));
    return out;
  }

  function paintLine(row, spec, data, room) {
    var runs, r = -1, left = 0, whole = row.textContent, at = 0, cuts = {};
    var indent = /^ */.exec(whole)[0].length;
    if (indent) row.style.setProperty("--i", indent);  // the hanging indent of its wrapped rows
    if (whole.length > room) whole.replace(CUT, function (match, offset) { cuts[offset] = true; return ""; });
    runs = readerCodeTables.named(window.readerRuns.decode(spec), data.c);
    function current() {
      while (left === 0 && r + 1 < runs.length) { r++; left = runs[r][1]; }
      return left > 0 ? runs[r][0] : "";
    }
    Array.prototype.slice.call(row.childNodes).forEach(function (node) {
      if (node.nodeType === 3) {
        var text = node.data, pos = 0, out = document.createDocumentFragment();
        while (pos < text.length) {
          var cls = current(), take = left > 0 ? Math.min(left, text.length - pos) : text.length - pos;
          if (cuts[at + pos] && at + pos) out.appendChild(document.createElement("wbr"));
          out.appendChild(token(cls, cut(text.substr(pos, take), at + pos, cuts)));
          pos += take;
          left = Math.max(0, left - take);
        }
        row.replaceChild(out, node);
        at += text.length;
      } else if (node.nodeType === 1 && node.textContent.length) {
        var cls2 = current();
        if (cuts[at]) row.insertBefore(document.createElement("wbr"), node);
        if (node.tagName === "A") {  // a link keeps its place (and focus): the class goes on it
          var title = data.t[node.getAttribute("href")];
          if (title && !node.title) node.title = title;
          if (cls2) node.classList.add(cls2);
        } else if (cls2) {
          row.replaceChild(token(cls2, node.cloneNode(true)), node);
        }
        left = Math.max(0, left - node.textContent.length);
        at += node.textContent.length;
      }
    });
    var number = document.createElement("a");
    number.className = "rd-n";
    var own = row.getAttribute("data-a") || row.id;  // a diff's side by side: the line's own id
    number.href = "#" + own;
    if (row.hasAttribute("data-l")) number.setAttribute("data-l", row.getAttribute("data-l"));  // a diff row's numbers
    number.setAttribute("aria-label", (/^old-/.test(own) ? "old line " : "line ") + (/(\d+)$/.exec(own) || ["", ""])[1]);
    row.insertBefore(number, row.firstChild);
  }

  function paint(chunk) {
    if (chunk.rdPainted) return;
    var view = chunk.closest(".rd-code");
    if (chunk.hasAttribute("data-i")) {  // its rows first
      if (!view.rdRows) { (view.rdRowWaiting = view.rdRowWaiting || []).push(chunk); return; }
      fill(view, +chunk.getAttribute("data-i"));
    }
    if (view.hasAttribute("data-paint") && !view.rdData) {  // its script has not run yet
      (view.rdWaiting = view.rdWaiting || []).push(chunk);
      return;
    }
    chunk.rdPainted = true;
    chunk.rdRaw = chunk.innerHTML;
    var data = tables(view);
    var specs = readerCodeTables.lineRuns(chunk.rdRuns !== undefined ? chunk.rdRuns : chunk.getAttribute("data-h") || "");
    var room = view.rdRoom || 40;  // size() measures it; before that, a phone's
    for (var i = 0; i < chunk.children.length; i++) paintLine(chunk.children[i], specs[i] || "", data, room);
    chunk.classList.add("rd-on");
    chunk.dispatchEvent(new Event("rd-painted", {bubbles: true}));  // scope.js marks names again
  }
  function cuts(text) {  // where a line of code may wrap besides its spaces (refs.js's rows too)
    var out = /** @type {number[]} */ ([]);
    text.replace(CUT, function (match, offset) { out.push(offset); return ""; });
    return out;
  }
  window.readerCode = {paint: paint, put: put, add: add, cuts: cuts, wait: wait, need: need, lines: lines,
                     resize: function () { resizers.forEach(function (resize) { resize(); }); }};
  document.querySelectorAll(".rd-code[data-paint]").forEach(load);  // as soon as the view is parsed
  document.querySelectorAll(".rd-code[data-part]").forEach(loadRows);

  var seen = null;
  function paintNear(chunks) {
    if (!("IntersectionObserver" in window)) { chunks.forEach(paint); return; }
    if (!seen) {
      seen = new IntersectionObserver(function (entries) {
        entries.forEach(function (e) {
          if (e.isIntersecting) { seen.unobserve(e.target); paint(e.target); }
        });
      }, {rootMargin: "1500px 0px"});
      window.addEventListener("beforeprint", function () { document.querySelectorAll(".rd-k").forEach(paint); });
      document.addEventListener("focusin", /** @param {Event & {target: HTMLElement}} e */ function (e) {  // Tab into a chunk not yet painted
        var chunk = e.target.closest && e.target.closest(".rd-k");
        if (chunk) paint(chunk);
      });
    }
    chunks.forEach(function (chunk) { seen.observe(chunk); });
  }

  // Rows a line of `text` takes when wrapped: the browser breaks it only at the places `BREAK`
  // names (codeview.css: no break inside a word), so with a monospace font the rows follow from
  // its characters, `first` of them on its first row and `rest` on each continuation row. A piece
  // longer than a row overflows it: `overflows` is set.
  var overflows = false;
  function rowsOf(text, first, rest) {
    var rows = 1, room = first, x = 0;
    if (text.length <= first) return 1;
    text.split(BREAK).forEach(function (piece) {
      var ink = piece.replace(/ +$/, "").length;  // spaces at a row's end hang past it
      if (x > 0 && x + ink > room) { rows++; room = rest; x = 0; }
      if (ink > room) overflows = true;
      x += piece.length;
    });
    return rows;
  }

  function linesOfChunk(chunk) {  // [text, indent] of each line, read once; null for rows not yet here
    if (!chunk.rdText) {
      var texts, rows = chunk.hasAttribute("data-i") ? chunk.closest(".rd-code").rdRows : null;
      if (rows) texts = readerCodeTables.rowTexts(rows[+chunk.getAttribute("data-i")] || "");
      else if (chunk.hasAttribute("data-i")) return null;
      else texts = Array.prototype.map.call(chunk.children, function (row) { return row.textContent; });
      chunk.rdText = texts.map(function (text) { return [text, /^ */.exec(text)[0].length]; });
      chunk.rdLongest = Math.max.apply(null, chunk.rdText.map(function (t) { return t[0].length; }));
    }
    return chunk.rdText;
  }

  // The view's metrics, from a probe line laid out at the end of its first block: the width of a
  // character, where a row's text starts (the gutter) and the room it keeps at its right.
  function metrics(view) {
    var lines = view.querySelector(".rd-lines"), probe = document.createElement("div");
    probe.className = "rd-k";
    probe.setAttribute("aria-hidden", "true");
    probe.style.cssText = "content-visibility:visible;height:0;overflow:hidden;width:100%";
    probe.innerHTML = "<div>0000000000</div>";
    lines.appendChild(probe);
    var row = /** @type {Element} */ (probe.firstChild), range = document.createRange();
    range.selectNodeContents(row.firstChild);
    var text = range.getBoundingClientRect(), box = row.getBoundingClientRect();
    var out = {ch: text.width / 10, gutter: text.left - box.left,  // padding-left + text-indent
               right: parseFloat(getComputedStyle(row).paddingRight), view: view.clientWidth};
    probe.remove();
    return out;
  }

  // Each chunk's `--rows`: its height (in rows) before it is laid out. In the scrolling mode a line
  // is one row, and a block holding a line wider than its view keeps its scrollbar (`rd-wide`).
  function size(view) {
    var m = metrics(view), scroll = root.classList.contains("rd-scroll");
    view.rdRoom = Infinity;
    view.querySelectorAll(":scope > .rd-block > .rd-lines").forEach(function (lines) {
      var width = lines.clientWidth - m.gutter - m.right;
      var first = Math.floor(width / m.ch + 0.01), wide = false;
      view.rdRoom = Math.min(view.rdRoom, first);
      lines.querySelectorAll(":scope > .rd-k").forEach(function (chunk) {
        var text = linesOfChunk(chunk);
        if (!text) return;  // sized by its line count until its rows come
        var rows = text.length;
        if (chunk.rdLongest > first) {
          wide = scroll;
          if (!scroll) {
            rows = 0;
            text.forEach(function (t) {
              var hang = Math.min((t[1] + 4) * m.ch, 0.4 * m.view);
              rows += rowsOf(t[0], first, Math.max(1, Math.floor((width - hang) / m.ch + 0.01)));
            });
          }
        }
        chunk.style.setProperty("--rows", rows);
      });
      lines.classList.toggle("rd-wide", wide || overflows);
      overflows = false;
    });
  }

  // Sized on load and whenever a view's width or the mode changes; a chunk laid out before keeps
  // the height it had (`contain-intrinsic-block-size: auto`) unless that is forgotten: `rd-resized`
  // drops the `auto` for a frame.
  function sizeAll(views) {
    var widths = new Map();
    function run(changed) {
      changed.forEach(size);
      if (widths.size && changed.length) {
        changed.forEach(function (v) { v.classList.add("rd-resized"); });
        requestAnimationFrame(function () {
          requestAnimationFrame(function () {
            changed.forEach(function (v) { v.classList.remove("rd-resized"); });
          });
        });
      }
    }
    var first = true;
    function observe(entries) {
      var changed = [];
      entries.forEach(function (e) {
        var w = Math.round(e.contentRect.width);
        if (widths.get(e.target) !== w) changed.push(e.target);
        widths.set(e.target, w);
      });
      if (first) { first = false; changed.forEach(size); return; }
      run(changed);
    }
    if (!("ResizeObserver" in window)) views.forEach(size);
    else {
      var watch = new ResizeObserver(observe);
      views.forEach(function (v) { watch.observe(v); });
    }
    return function () { run(views); };
  }

  // The wrap toggle: every view's button shows the one choice, kept for the next pages.
  var resizers = [];
  function showWrap() {
    var wrap = !root.classList.contains("rd-scroll");
    document.querySelectorAll(".rd-wrap").forEach(function (b) { b.setAttribute("aria-pressed", String(wrap)); });
  }
  function toggles(buttons) {
    buttons.forEach(function (button) {
      button.addEventListener("click", function () {
        var scroll = !root.classList.contains("rd-scroll");
        root.classList.toggle("rd-scroll", scroll);
        try { window.localStorage.setItem(WRAP_KEY, scroll ? "scroll" : "wrap"); } catch (err) { /* not kept */ }
        showWrap();
        resizers.forEach(function (resize) { resize(); });
      });
    });
    showWrap();
  }

  // Notes, where they stand beside the lines (a grid): down the margin column, each block's notes
  // beside its first line, or below the notes before them where those run on past it; the column
  // beside unannotated lines is theirs to run on in. Where the notes after them would otherwise sit
  // more than DRIFT rows below their lines, or run into lines that take the whole width
  // (`.rd-free`), the notes before them give room, nearest first: a claim's
  // example shuts to its one-line head (a button opens it), then a note's text folds behind "more",
  // never to less than its head and first sentence, nor to hide fewer than LEAST rows.
  var DRIFT = 10, GAP = 4, LEAST = 2;

  function sentenceEnd(body) {  // the Range to the end of the body's first sentence (or paragraph)
    var walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT), last = null, seen = 0;
    var first = body.querySelector("p, li, div") || body;
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!first.contains(node) && last) break;
      var text = /** @type {Text} */ (node), re = /[.!?](?=\s|$)/g, m;
      while ((m = re.exec(text.data))) {
        if (seen + m.index < 12 || (node.parentElement && node.parentElement.closest("code"))) continue;
        var range = document.createRange();
        range.setStart(text, 0);
        range.setEnd(text, m.index + 1);
        return range;
      }
      seen += text.data.length;
      last = text;
    }
    if (!last) return null;
    var whole = document.createRange();
    whole.selectNodeContents(last);
    return whole;
  }

  // A note as laid out: its height whole (`full`), what shutting its claim saves (`claim`), the
  // least its text may fold to, and the height it is given (`h`).
  function measure(note, row) {
    var box = note.getBoundingClientRect(), full = box.height;
    var claim = note.querySelector(".rd-claim:not(.rd-claim-kept) > .rd-claim-code");
    var saves = claim ? claim.getBoundingClientRect().height : 0;
    var body = note.querySelector(".rd-note-body"), end = body && sentenceEnd(body);
    var rest = full - saves, least = rest;
    if (end && !note.querySelector(".rd-claim-kept:not(.rd-claim-shut)")) {  // one the reader opened stays whole
      var rects = end.getClientRects(), bottom = rects.length ? rects[rects.length - 1].bottom : box.bottom;
      least = Math.min(rest, Math.ceil(bottom - box.top + 0.4 * row));
    }
    return {el: note, full: full, claim: saves, least: least, h: full, shut: false};
  }

  // A view's notes placed, folded where they must be; the view gets room below its last line for
  // the last notes that run past it.

  function layout(view) {
    var marks = view.querySelectorAll(":scope > .rd-noted, :scope > .rd-free");
    var groups = [], origin = view.getBoundingClientRect().top, wide = false;
    Array.prototype.forEach.call(marks, function (block) {
      var ns = block.querySelector(":scope > .rd-notes > .rd-ns");
      if (!ns) { groups.push({wall: true, top: block.getBoundingClientRect().top - origin}); return; }
      wide = wide || getComputedStyle(block).display === "grid";
      ns.style.marginTop = "";
      ns.querySelectorAll(":scope > .rd-mn").forEach(function (n) { n.classList.remove("rd-fold"); });
      ns.querySelectorAll(".rd-claim-shut:not(.rd-claim-kept)").forEach(function (c) { shut(c, false); });
      groups.push({ns: ns, top: block.getBoundingClientRect().top - origin, notes: []});
    });
    if (!wide) {
      view.style.paddingBottom = "";
      groups.forEach(function (g) { if (g.ns) fit(g.ns, []); });
      return;
    }
    var line = view.querySelector(".rd-k > div");
    var row = line ? parseFloat(getComputedStyle(line).lineHeight) || 20 : 20;
    groups.forEach(function (g) {
      if (g.ns) g.notes = Array.prototype.map.call(g.ns.querySelectorAll(":scope > .rd-mn"), function (n) { return measure(n, row); });
    });
    place(groups, row);
    var end = view.getBoundingClientRect().bottom - origin - (parseFloat(view.style.paddingBottom) || 0);
    var last = groups.filter(function (g) { return !g.wall; }).pop(), over = last ? last.y + height(last) - end : 0;
    view.style.paddingBottom = over > 0 ? Math.ceil(over) + "px" : "";  // room below the lines for the last notes
    groups.forEach(function (g) {
      if (!g.ns) return;
      g.ns.style.marginTop = g.y > g.top + 0.5 ? Math.round(g.y - g.top) + "px" : "";
      fit(g.ns, g.notes);
    });
  }

  // Each group's top `y`: beside its block, or after the group before; a group (or a wall) that
  // would sit further down than it may takes room from the notes before it.
  function place(groups, row) {
    var end = -Infinity;
    for (var i = 0; i < groups.length; i++) {
      var g = groups[i], limit = g.wall ? g.top : g.top + DRIFT * row;
      var y = Math.max(g.top, end + GAP);
      if (y > limit) {
        shrink(pushing(groups, i), y - limit, row);
        end = settle(groups, i);
        y = Math.max(g.top, end + GAP);
      }
      g.y = y;
      end = g.wall ? -Infinity : y + height(g);
    }
  }
  function height(g) { return g.notes.reduce(function (sum, n) { return sum + n.h; }, 0); }
  function pushing(groups, i) {  // the notes that push group i down, nearest first
    var out = [];
    for (var j = i - 1; j >= 0 && !groups[j].wall; j--) {
      out = out.concat(groups[j].notes.slice().reverse());
      if (groups[j].y <= groups[j].top + 0.5) break;  // beside its lines: those before push nothing
    }
    return out;
  }
  function shrink(notes, need, row) {
    notes.forEach(function (n) {  // claims first
      if (need <= 0 || !n.claim || n.shut) return;
      n.shut = true;
      n.h -= n.claim;
      need -= n.claim;
    });
    notes.forEach(function (n) {
      var cut = Math.min(Math.max(need, LEAST * row), n.h - n.least);
      if (need <= 0 || cut < LEAST * row) return;
      n.h -= cut;
      need -= cut;
    });
  }
  function settle(groups, i) {  // the groups before i placed again, from the last wall: where they end
    var j = i - 1, end = -Infinity;
    while (j > 0 && !groups[j - 1].wall) j--;
    for (; j < i; j++) {
      if (groups[j].wall) continue;
      groups[j].y = Math.max(groups[j].top, end + GAP);
      end = groups[j].y + height(groups[j]);
    }
    return end;
  }

  // A claim's example shut to its head, or open again; its head's button says which.
  function shut(claim, closed) {
    claim.classList.toggle("rd-claim-shut", closed);
    var button = claim.querySelector(".rd-claim-toggle");
    if (closed && !button) {
      var lines = (claim.querySelector(".rd-claim-code") || claim).textContent.replace(/\n$/, "").split("\n").length;
      button = document.createElement("button");
      button.type = "button";
      button.className = "rd-claim-toggle";
      button.textContent = "example, " + lines + " line" + (lines === 1 ? "" : "s");
      claim.querySelector(".rd-claim-head").insertBefore(button, claim.querySelector(".rd-checked"));
    }
    if (button) {
      button.hidden = !closed && !claim.classList.contains("rd-claim-kept");
      button.setAttribute("aria-expanded", String(!closed));
    }
  }

  // A group's notes folded to their heights: at the bottom of a row of text (`--rd-cut`, a strip
  // under it covering what follows) with room under it for the button (`--rd-room`).
  function fit(ns, notes) {
    notes.forEach(function (n) {
      if (n.shut) shut(n.el.querySelector(".rd-claim:not(.rd-claim-kept)"), true);
      var folds = n.h < n.full - (n.shut ? n.claim : 0) - 1, button = n.el.querySelector(":scope > .rd-more");
      if (folds && !button) {
        button = document.createElement("button");
        button.type = "button";
        button.className = "rd-more";
        button.setAttribute("aria-expanded", "false");
        button.textContent = "more";
        n.el.appendChild(button);
      }
      if (button) button.hidden = !folds;
      n.el.classList.remove("rd-fold");
      if (!folds) return;
      var room = Math.ceil(/** @type {HTMLElement} */ (button).getBoundingClientRect().height) + 4;
      var cut = rowEnd(n.el, n.h - room);
      n.el.classList.add("rd-fold");
      n.el.style.setProperty("--rd-cut", cut + "px");
      n.el.style.setProperty("--rd-room", (cut + room) + "px");
    });
    if (!notes.length) ns.querySelectorAll(".rd-more").forEach(function (b) { b.hidden = true; });
  }

  // The lowest bottom of a row of the note's text at most `most` px below its top that no row
  // crosses (its first row's when none is that high): where a fold cuts no row.
  function rowEnd(note, most) {
    var top = note.getBoundingClientRect().top, rows = [], range = document.createRange();
    var walker = document.createTreeWalker(note, NodeFilter.SHOW_TEXT);
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!/\S/.test(/** @type {Text} */ (node).data) || (node.parentElement && node.parentElement.closest(".rd-more"))) continue;
      range.selectNodeContents(node);
      Array.prototype.forEach.call(range.getClientRects(), function (r) {
        if (r.height) rows.push([r.top - top, r.bottom - top]);
      });
    }
    var best = -1, first = Infinity;
    rows.forEach(function (r) {
      var end = Math.ceil(r[1]);
      first = Math.min(first, end);
      if (end > most || end <= best) return;
      if (rows.every(function (o) { return o[0] >= end - 0.5 || o[1] <= end + 0.5; })) best = end;
    });
    return best >= 0 ? best : first === Infinity ? Math.max(0, Math.floor(most)) : first;
  }

  function unfold(note, open) {
    var button = note.querySelector(":scope > .rd-more");
    note.classList.toggle("rd-open", open);
    note.closest(".rd-ns").classList.toggle("rd-open", !!note.parentElement.querySelector(":scope > .rd-open"));
    if (button) {
      button.setAttribute("aria-expanded", String(open));
      button.textContent = open ? "less" : "more";
    }
  }

  // A note the URL names (`#note-x`) is shown whole, even where it folds.
  var shown = null;
  function showTarget() {
    var id = location.hash.slice(1), el;
    try { el = id && document.getElementById(decodeURIComponent(id)); } catch (err) { el = null; }
    var note = el && el.closest && el.closest(".rd-mn.rd-fold");
    if (!note || note === shown) return;
    shown = note;
    unfold(note, true);
    el.scrollIntoView({block: "start"});
  }

  var folded = [], watch = null;
  function foldAll(views) {
    var pending = false;
    function run() { pending = false; folded.forEach(layout); showTarget(); }
    function later() { if (!pending) { pending = true; requestAnimationFrame(run); } }
    if (!folded.length) {
      window.addEventListener("resize", later);
      window.addEventListener("hashchange", function () { shown = null; showTarget(); });
      document.addEventListener("click", /** @param {MouseEvent & {target: HTMLElement}} e */ function (e) {
        var button = e.target.closest && e.target.closest(".rd-more");
        if (button) unfold(button.parentElement, !button.parentElement.classList.contains("rd-open"));
        var toggle = e.target.closest && e.target.closest(".rd-claim-toggle");
        if (toggle) {  // opened (or shut) by the reader, a claim stays so: the notes after it make room
          var claim = toggle.closest(".rd-claim");
          claim.classList.add("rd-claim-kept");
          shut(claim, !claim.classList.contains("rd-claim-shut"));
        }
      });
      document.addEventListener("mouseover", function (e) { heat("pointer", e.target); });
      document.addEventListener("focusin", /** @param {Event & {target: HTMLElement}} e */ function (e) { heat("focus", e.target); });
      document.addEventListener("focusout", function (e) { if (!e.relatedTarget) heat("focus", null); });
      // A ResizeObserver reports every size once after the first layout, before the first paint:
      // no layout forced while the page loads. It watches the notes' contents, which folding
      // leaves as they are, and the views' widths.
      if ("ResizeObserver" in window) watch = new ResizeObserver(run);
    }
    folded = folded.concat(views);
    if (!watch) run();
    else {
      views.forEach(function (v) {
        watch.observe(v);
        v.querySelectorAll(".rd-mn > .rd-note").forEach(function (n) { watch.observe(n); });
      });
    }
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

  // The views' chunks painted near the viewport, sized, their wrap toggles and notes wired.
  function add(views) {
    var chunks = [];
    views.forEach(function (v) { chunks.push.apply(chunks, v.querySelectorAll(".rd-k")); });
    paintNear(chunks);
    resizers.push(sizeAll(views));
    var buttons = [];
    views.forEach(function (v) { buttons.push.apply(buttons, v.querySelectorAll(".rd-wrap")); });
    toggles(buttons);
    var margins = views.filter(function (v) { return v.classList.contains("rd-margin"); });
    if (margins.length) foldAll(margins);
  }

  function start() {
    document.querySelectorAll(".rd-code[data-paint]").forEach(load);
    document.querySelectorAll(".rd-code[data-part]").forEach(loadRows);
    var chunks = Array.prototype.slice.call(document.querySelectorAll(".rd-k"));
    if (!chunks.length) return;
    paintFirst(chunks);
    add(Array.prototype.slice.call(document.querySelectorAll(".rd-code")));
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
