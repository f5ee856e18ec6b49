// @ts-check
// The review of a pin move (reader serve's /review/): one screen per flagged note, surest first.
// It reads the review reader serve gathered (/review/api/state, again whenever /__reader__/status
// moves on) and posts Accept, Edit and Re-anchor to /review/api/act with the page's token; Skip
// and the moves between notes stay in the page. A write refused because a file changed on disk
// turns the page read-only until the review is read again.
(function () {
  "use strict";

  /** @param {string} name */
  function meta(name) {
    const el = /** @type {HTMLMetaElement|null} */ (document.querySelector(`meta[name="${name}"]`));
    return el ? el.content : "";
  }

  const TOKEN = meta("reader-token"), HEADER = meta("reader-token-header");
  const POLL_MS = 500;
  /** @type {any} */
  let review = null;
  let version = -1;
  let digest = "";
  let current = "";
  /** @type {"view"|"edit"|"pick"} */
  let mode = "view";
  let readOnly = "";
  let sending = false;
  /** @type {number[]|null} */
  let pick = null;
  /** @type {string[]|null} */
  let wholeFile = null;
  /** @type {any[][]|null} */
  let wholeRuns = null;
  /** @type {Set<string>} */
  const done = new Set();
  /** @type {string[]} */
  const skipped = [];
  /** @type {Record<string, string>} */
  const written = {};

  const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

  /** @param {string} tag @param {string} [cls] @param {string} [text] */
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text != null) node.textContent = text;
    return node;
  }

  /** The notes left, in the review's order, the skipped ones last. */
  function queue() {
    if (!review) return [];
    const left = review.screens.filter((/** @type {any} */ s) => !done.has(s.id));
    const later = (/** @type {any} */ s) => skipped.indexOf(s.id);
    return left.filter((/** @type {any} */ s) => later(s) < 0)
      .concat(left.filter((/** @type {any} */ s) => later(s) >= 0).sort((a, b) => later(a) - later(b)));
  }

  function screen() {
    return queue().find((s) => s.id === current) || null;
  }

  /** @param {string} text @param {boolean} [bad] */
  function say(text, bad) {
    const p = $("rv-said");
    p.textContent = text;
    p.classList.toggle("rv-bad", !!bad);
  }

  /** @param {string} text */
  function banner(text) {
    const b = $("rv-banner");
    b.textContent = text;
    b.hidden = !text;
  }

  // ---- reading the review

  async function poll() {
    try {
      const r = await fetch("/__reader__/status", {cache: "no-store"});
      const s = await r.json();
      document.body.classList.toggle("rv-busy", !!s.busy);
      if (s.version !== version) {
        await load();
        version = s.version;
      }
    } catch (e) {
      document.body.classList.add("rv-busy");
    }
    setTimeout(poll, POLL_MS);
  }

  async function load() {
    const r = await fetch("/review/api/state", {cache: "no-store", headers: {[HEADER]: TOKEN}});
    const data = await r.json();
    if (!r.ok) { banner(data.message || "the review cannot be read"); return; }
    const next = JSON.stringify(data);
    if (next === digest) return;
    const before = current;
    const order = queue().map((s) => s.id);
    digest = next;
    review = data;
    for (const key of Object.keys(written)) delete written[key];
    if (readOnly) {
      readOnly = "";
      banner("The files changed on disk: the review read them again, and you can go on.");
    }
    const left = queue();
    if (!left.some((s) => s.id === before)) {
      // the note was done (or went away): the next one after it in the old order
      const at = order.indexOf(before);
      const after = order.slice(at + 1).concat(order.slice(0, Math.max(at, 0)));
      const next = after.find((id) => left.some((s) => s.id === id));
      current = next || (left[0] ? left[0].id : "");
    }
    if (mode === "view" || !screen()) { mode = "view"; render(); } else { counter(); }
  }

  // ---- drawing

  function counter() {
    const left = queue().length, total = left + done.size;
    const at = queue().findIndex((s) => s.id === current) + 1;
    $("rv-count").textContent = !review || !review.active ? "" :
      left ? `Note ${at} of ${left} left` + (done.size ? ` · ${done.size} done` : "") : `All ${done.size} done`;
    const bar = $("rv-progress-bar");
    bar.style.width = total ? `${(100 * done.size) / total}%` : "0";
    $("rv-move").textContent = !review || !review.active ? "" : review.move || `${review.old || ""} → ${review.new}`;
    for (const id of ["rv-accept", "rv-edit", "rv-reanchor", "rv-skip"]) {
      const b = /** @type {HTMLButtonElement} */ ($(id));
      b.disabled = !screen() || sending || (!!readOnly && id !== "rv-skip");
    }
    const s = screen();
    if (s) /** @type {HTMLButtonElement} */ ($("rv-accept")).disabled ||= !s.acceptable;
    label("rv-edit", mode === "edit" ? ["Ctrl+Enter", "Save"] : ["E", "Edit"]);
    label("rv-reanchor", mode === "pick" ? ["Enter", "Re-anchor here"] : ["R", "Re-anchor"]);
  }

  /** A button's key and words. @param {string} id @param {string[]} words */
  function label(id, [key, text]) {
    $(id).replaceChildren(el("kbd", "", key), ` ${text}`);
  }

  function render() {
    counter();
    const main = $("rv-main");
    main.replaceChildren();
    if (!review) return;
    if (!review.active) {
      main.append(el("p", "rv-empty", `No move to review: ${review.why}.`));
      main.append(el("p", "rv-hint", "A move starts with 'reader pin' (the pins then differ from HEAD's) " +
        "or 'reader diff --apply' (it marks the notes to re-read)."));
      return;
    }
    for (const problem of review.problems || []) main.append(el("p", "rv-problem", problem));
    const s = screen();
    if (!s) {
      main.append(el("p", "rv-empty", done.size ? `Every flagged note is done (${done.size}). ` +
        "'reader check' lists what is left, if anything." : "No note is flagged."));
      return;
    }
    const article = el("article", "rv-screen");
    article.append(head(s), words(s), mode === "pick" ? picker(s) : code(s));
    if (s.claim && s.claim.length) article.append(claim(s));
    main.append(article);
    if (mode === "edit") /** @type {HTMLTextAreaElement} */ (article.querySelector("textarea")).focus();
    if (mode === "pick") scrollToPick();
  }

  /** @param {any} s */
  function head(s) {
    const box = el("header", "rv-head");
    const h = el("h2", "rv-id");
    h.append(el("code", "", s.id));
    box.append(h);
    const where = el("p", "rv-where");
    const link = /** @type {HTMLAnchorElement} */ (el("a", "", s.title));
    link.href = `/articles/${s.article}.html#note-${s.id}`;
    link.target = "reader-note";
    link.title = "The note on its page (it reloads when the note changes)";
    where.append(link, ` · ${s.file}:${s.line}`);
    box.append(where);
    const verdict = el("p", "rv-verdict");
    verdict.append(el("span", `rv-status rv-status-${s.status}`, s.status));
    const sure = el("span", "rv-sure");
    const meter = /** @type {HTMLMeterElement} */ (el("meter"));
    meter.min = 0; meter.max = 1; meter.low = 0.5; meter.high = 0.85; meter.optimum = 1;
    meter.value = s.confidence;
    sure.append(meter, ` ${Math.round(s.confidence * 100)} % sure`);
    verdict.append(sure);
    if (s.how && s.how !== s.status) verdict.append(el("span", "rv-how", s.how));
    box.append(verdict, el("p", "rv-reason", s.reason));
    const moved = movedLeft();
    if (s.status === "moved" && moved.length > 1) {
      const all = /** @type {HTMLButtonElement} */ (el("button", "rv-all"));
      all.type = "button";
      all.append(el("kbd", "", "Shift+A"), ` Accept all ${moved.length} moved notes`);
      all.title = "Their code is unchanged: only their new lines are recorded (reader accept --moved)";
      all.disabled = !!readOnly || sending;
      all.addEventListener("click", acceptMoved);
      box.append(all);
    }
    return box;
  }

  /** @param {any} s */
  function words(s) {
    const box = el("section", "rv-words");
    box.setAttribute("aria-label", "The note's words");
    if (mode === "edit") {
      const area = /** @type {HTMLTextAreaElement} */ (el("textarea", "rv-body"));
      area.value = s.body;
      area.rows = Math.min(16, Math.max(5, s.body.split("\n").length + 2));
      area.setAttribute("aria-label", `The words of ${s.id} (Markdown)`);
      const tip = el("p", "rv-hint", "Markdown, as in the YAML file. Ctrl+Enter saves (and accepts " +
        "the note where it anchors), Esc cancels.");
      box.append(area, tip);
      return box;
    }
    if (s.words) {
      const body = el("div", "rv-note-body");
      body.innerHTML = s.words;  // the site's own sanitised HTML of the note
      const base = new URL(`/articles/${s.article}.html`, location.origin);
      for (const a of body.querySelectorAll("a[href]")) {
        const href = a.getAttribute("href") || "";
        if (!href.startsWith("#")) a.setAttribute("href", new URL(href, base).href);
        a.setAttribute("target", "reader-site");
      }
      for (const img of body.querySelectorAll("img[src]")) img.setAttribute("src", new URL(img.getAttribute("src") || "", base).href);
      box.append(body);
    } else {
      box.append(el("pre", "rv-raw", s.body));
    }
    return box;
  }

  /** @param {any} side @param {string} title @param {number[]|null} [pick] */
  function sideHead(side, title, pick) {
    const h = el("div", "rv-side-head");
    h.append(el("strong", "", title), ` ${side ? side.label : ""}`);
    if (side) {
      const span = side.span ? `lines ${side.span[0]}–${side.span[1]}` :
        pick ? `not found; the same code is at lines ${pick[0]}–${pick[1]}` : "not found";
      h.append(el("span", "rv-path", ` ${side.path} · ${span}`));
    }
    return h;
  }

  /** @param {any} side @param {number|null} n */
  function lineOf(side, n) {
    return n == null || !side ? "" : side.lines[n - side.first];
  }

  /**
   * A line's text highlighted as the site highlights it (`runs`: class, UTF-16 units, ...), its
   * changed characters marked (`marks`: [start, end) in UTF-16 units).
   * @param {string} text @param {any[]} runs @param {number[][]} [marks]
   */
  function codeLine(text, runs, marks) {
    const cell = el("span", "rv-text");
    const cuts = new Set([0, text.length]);
    /** @type {[number, number, string][]} */
    const tokens = [];
    let at = 0;
    for (let i = 0; i + 1 < (runs || []).length; i += 2) {
      tokens.push([at, at + runs[i + 1], runs[i]]);
      at += runs[i + 1];
      cuts.add(Math.min(at, text.length));
    }
    for (const [a, b] of marks || []) { cuts.add(a); cuts.add(b); }
    const points = [...cuts].sort((x, y) => x - y);
    for (let k = 0; k + 1 < points.length; k++) {
      const a = points[k], b = points[k + 1];
      const token = tokens.find((t) => t[0] <= a && a < t[1]);
      /** @type {Node} */
      let node = token && token[2] ? el("span", `t-${token[2]}`, text.slice(a, b)) : document.createTextNode(text.slice(a, b));
      if ((marks || []).some(([x, y]) => x <= a && b <= y)) {
        const mark = el("mark");
        mark.append(node);
        node = mark;
      }
      cell.append(node);
    }
    return cell;
  }

  /** @param {any} side @param {number} n */
  function runsOf(side, n) {
    return side.runs ? side.runs[n - side.first] || [] : [];
  }

  /** @param {any} span @param {number|null} n */
  function inside(span, n) {
    return span && n != null && span[0] <= n && n <= span[1];
  }

  /** @param {any} s */
  function code(s) {
    const box = el("section", "rv-code");
    box.setAttribute("aria-label", "The note's code before and after the move");
    const heads = el("div", "rv-heads");
    heads.append(sideHead(s.old, "Before"), sideHead(s.new, "After", s.pick));
    box.append(heads);
    if (!s.old || !s.new) {
      const only = s.new || s.old;
      box.append(el("p", "rv-hint", !s.new ? "The new pins have no such file: re-anchor is not possible here; " +
        "move the note by hand." : "No code before the move to compare with."));
      if (!only) return box;
      const rows = [];
      for (let i = 0; i < only.lines.length; i++) {
        const n = only.first + i;
        rows.push(s.new ? {old: null, new: n, kind: "added", old_marks: [], new_marks: []}
          : {old: n, new: null, kind: "removed", old_marks: [], new_marks: []});
      }
      box.append(table(s, rows));
      return box;
    }
    box.append(table(s, s.rows));
    return box;
  }

  const FOLD = 8;
  /** Unchanged lines kept around a fold of a long unchanged stretch. */
  const KEEP = 3;

  /** @param {any} s @param {any} r */
  function row(s, r) {
    const tr = el("tr", `rv-${r.kind}`);
    if (inside(s.old && s.old.span, r.old)) tr.classList.add("rv-in-old");
    if (inside(s.new && s.new.span, r.new)) tr.classList.add("rv-in-new");
    else if (s.new && !s.new.span && inside(s.pick, r.new)) tr.classList.add("rv-in-pick");
    const on = el("td", "rv-n rv-o", r.old == null ? "" : String(r.old));
    const ot = el("td", "rv-t rv-o");
    if (r.old != null) ot.append(codeLine(lineOf(s.old, r.old), runsOf(s.old, r.old), r.old_marks));
    const nn = el("td", "rv-n rv-w", r.new == null ? "" : String(r.new));
    const nt = el("td", "rv-t rv-w");
    if (r.new != null) nt.append(codeLine(lineOf(s.new, r.new), runsOf(s.new, r.new), r.new_marks));
    tr.append(on, ot, nn, nt);
    return tr;
  }

  /** The rows side by side; a stretch of more than FOLD unchanged lines around the note's
   * folded to a button that shows them. @param {any} s @param {any[]} rows */
  function table(s, rows) {
    const t = el("table", "rv-diff");
    const body = el("tbody");
    const foldable = (/** @type {any} */ r) => r.kind === "same" && !inside(s.old && s.old.span, r.old) &&
      !inside(s.new && s.new.span, r.new);
    for (let i = 0; i < rows.length;) {
      let j = i;
      while (j < rows.length && foldable(rows[j])) j++;
      if (j - i > FOLD) {
        const hidden = rows.slice(i + KEEP, j - KEEP);
        for (const r of rows.slice(i, i + KEEP)) body.append(row(s, r));
        const fold = el("tr", "rv-fold");
        const cell = /** @type {HTMLTableCellElement} */ (el("td"));
        cell.colSpan = 4;
        const open = /** @type {HTMLButtonElement} */ (el("button", "", `⋯ ${hidden.length} unchanged lines`));
        open.type = "button";
        open.addEventListener("click", () => fold.replaceWith(...hidden.map((r) => row(s, r))));
        cell.append(open);
        fold.append(cell);
        body.append(fold);
        for (const r of rows.slice(j - KEEP, j)) body.append(row(s, r));
        i = j;
      } else {
        for (const r of rows.slice(i, Math.max(j, i + 1))) body.append(row(s, r));
        i = Math.max(j, i + 1);
      }
    }
    t.append(body);
    return t;
  }

  /** Re-anchoring: the whole new file, the picked lines marked. @param {any} s */
  function picker(s) {
    const box = el("section", "rv-code rv-picking");
    box.setAttribute("aria-label", "Pick the note's lines on the new code");
    box.append(el("p", "rv-hint", "Pick the lines the note is about: click a line, Shift+click the last; " +
      "↑ ↓ move, Shift+↑ ↓ resize. Enter re-anchors the note there, Esc goes back."));
    box.append(sideHead(s.new, "After"));
    const list = el("ol", "rv-file");
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-multiselectable", "true");
    const lines = wholeFile || [];
    lines.forEach((text, i) => {
      const n = i + 1;
      const li = el("li", "rv-line");
      li.dataset.n = String(n);
      li.setAttribute("role", "option");
      li.append(el("span", "rv-n", String(n)), codeLine(text, wholeRuns ? wholeRuns[i] : []));
      const chosen = !!pick && pick[0] <= n && n <= pick[1];
      li.setAttribute("aria-selected", String(chosen));
      if (chosen) li.classList.add("rv-picked");
      if (inside(s.new.span, n)) li.classList.add("rv-in-new");
      list.append(li);
    });
    list.addEventListener("click", (e) => {
      const li = /** @type {HTMLElement|null} */ (/** @type {HTMLElement} */ (e.target).closest(".rv-line"));
      if (!li) return;
      const n = Number(li.dataset.n);
      pick = e.shiftKey && pick ? [Math.min(pick[0], n), Math.max(pick[0], n)] : [n, n];
      repaintPick();
    });
    box.append(list);
    const chosen = el("p", "rv-picked-lines");
    chosen.id = "rv-picked-lines";
    box.append(chosen);
    setTimeout(repaintPick);
    return box;
  }

  function repaintPick() {
    for (const li of document.querySelectorAll(".rv-file .rv-line")) {
      const n = Number(/** @type {HTMLElement} */ (li).dataset.n);
      const on = !!pick && pick[0] <= n && n <= pick[1];
      li.classList.toggle("rv-picked", on);
      li.setAttribute("aria-selected", String(on));
    }
    const p = document.getElementById("rv-picked-lines");
    if (p) p.textContent = pick ? `Lines ${pick[0]}–${pick[1]} picked. Enter re-anchors the note on them.` : "No lines picked.";
  }

  function scrollToPick() {
    if (!pick) return;
    const li = document.querySelector(`.rv-file .rv-line[data-n="${pick[0]}"]`);
    if (li) li.scrollIntoView({block: "center"});
  }

  /** @param {any} s */
  function claim(s) {
    const box = el("section", "rv-claim");
    box.append(el("h3", "", "Its claim"));
    box.append(el("pre", "rv-claim-text", s.claim_text.trimEnd()));
    const sides = el("div", "rv-claim-sides");
    for (const c of s.claim) {
      const side = el("div", "rv-claim-side");
      const kind = {passes: "rv-pass", fails: "rv-fail", says: "rv-says"}[c.outcome] || "rv-unknown";
      side.append(el("strong", "", c.outcome === "says" ? `${c.label}:` : `${c.label}: ${c.outcome}`));
      side.classList.add(kind);
      if (c.said) side.append(el("pre", "", c.said));
      sides.append(side);
    }
    box.append(sides);
    return box;
  }

  // ---- acting

  /** @param {string} kind @param {Record<string, any>} [extra] */
  async function act(kind, extra) {
    const s = screen();
    if (!s || sending) return;
    if (readOnly) { say(readOnly, true); return; }
    sending = true;
    counter();
    say(kind === "accept" ? "Accepting…" : kind === "edit" ? "Saving…" : "Re-anchoring…");
    try {
      const r = await fetch("/review/api/act", {
        method: "POST",
        headers: {"Content-Type": "application/json", [HEADER]: TOKEN},
        body: JSON.stringify({action: kind, note: s.id, digest: written[s.file] || s.digest, ...extra}),
      });
      const data = await r.json();
      if (r.ok) {
        written[s.file] = data.digest;
        done.add(s.id);
        mode = "view";
        pick = null;
        next(1, s.id);
        say(data.message);
      } else if (r.status === 409) {
        readOnly = data.message;
        banner(`Read-only: ${data.message}.`);
        say(data.message, true);
      } else {
        say(data.message || `refused (${r.status})`, true);
      }
    } catch (e) {
      say(`reader serve did not answer: ${e}`, true);
    } finally {
      sending = false;
      render();
    }
  }

  /** The notes left whose code moved unchanged: Shift+A accepts them all. */
  function movedLeft() {
    return queue().filter((s) => s.status === "moved" && s.acceptable);
  }

  async function acceptMoved() {
    const moved = movedLeft();
    if (!moved.length || sending || readOnly) return;
    const which = moved.length === 1 ? "the note" : `all ${moved.length} notes`;
    if (!window.confirm(`Accept ${which} whose code moved unchanged? Their new lines are recorded; ` +
      "nothing else in them changes.")) return;
    sending = true;
    counter();
    say(`Accepting ${moved.length} notes…`);
    try {
      const r = await fetch("/review/api/act", {
        method: "POST",
        headers: {"Content-Type": "application/json", [HEADER]: TOKEN},
        body: JSON.stringify({action: "accept", notes: moved.map((s) => s.id)}),
      });
      const data = await r.json();
      if (r.ok) {
        for (const s of moved) done.add(s.id);
        next(1, current);
        say(data.message);
      } else {
        if (r.status === 409) { readOnly = data.message; banner(`Read-only: ${data.message}.`); }
        say(data.message, true);
      }
    } catch (e) {
      say(`reader serve did not answer: ${e}`, true);
    } finally {
      sending = false;
      render();
    }
  }

  /** @param {number} step @param {string} [from] */
  function next(step, from) {
    const all = review ? review.screens.map((/** @type {any} */ s) => s.id) : [];
    const left = queue().map((s) => s.id);
    if (!left.length) { current = ""; return; }
    const order = from && !left.includes(from) ? all : left;
    let at = order.indexOf(from || current);
    for (let i = 0; i < order.length; i++) {
      at = (at + step + order.length) % order.length;
      if (left.includes(order[at])) { current = order[at]; return; }
    }
  }

  function skip() {
    const s = screen();
    if (!s) return;
    const i = skipped.indexOf(s.id);
    if (i >= 0) skipped.splice(i, 1);
    skipped.push(s.id);
    mode = "view";
    next(1, s.id);
    render();
    say(`Skipped ${s.id}: it comes back after the others.`);
  }

  async function startPick() {
    const s = screen();
    if (!s || readOnly || !s.new) { if (s && !s.new) say("The new pins have no such file to pick lines on.", true); return; }
    const r = await fetch(`/review/api/blob/${s.new.blob}`, {headers: {[HEADER]: TOKEN}});
    if (!r.ok) { say((await r.json()).message, true); return; }
    const file = await r.json();
    wholeFile = file.lines;
    wholeRuns = file.runs;
    pick = s.pick ? [s.pick[0], s.pick[1]] : [s.new.first, s.new.first];
    mode = "pick";
    render();
  }

  /** @param {number} step @param {boolean} resize */
  function movePick(step, resize) {
    if (!pick || !wholeFile) return;
    const last = wholeFile.length;
    if (resize) pick = [pick[0], Math.min(last, Math.max(pick[0], pick[1] + step))];
    else if (pick[0] + step >= 1 && pick[1] + step <= last) pick = [pick[0] + step, pick[1] + step];
    repaintPick();
    scrollToPick();
  }

  function saveEdit() {
    const area = /** @type {HTMLTextAreaElement|null} */ (document.querySelector(".rv-body"));
    if (area) act("edit", {body: area.value});
  }

  function edit() {
    if (!screen() || readOnly) return;
    mode = "edit";
    render();
  }

  function cancel() {
    mode = "view";
    pick = null;
    render();
  }

  function open() {
    const s = screen();
    if (s) window.open(`/articles/${s.article}.html#note-${s.id}`, "reader-note");
  }

  function keys() {
    const box = $("rv-keys"), button = $("rv-keys-toggle");
    box.hidden = !box.hidden;
    button.setAttribute("aria-expanded", String(!box.hidden));
  }

  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.metaKey) return;
    if (mode === "edit") {
      if (e.key === "Enter" && e.ctrlKey) { e.preventDefault(); saveEdit(); }
      else if (e.key === "Escape") { e.preventDefault(); cancel(); }
      return;
    }
    if (e.ctrlKey) return;
    const target = /** @type {HTMLElement} */ (e.target);
    if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return;
    if (mode === "pick") {
      const moves = {ArrowDown: 1, ArrowUp: -1};
      if (e.key in moves) { e.preventDefault(); movePick(moves[e.key], e.shiftKey); return; }
      if (e.key === "Enter") { e.preventDefault(); if (pick) act("reanchor", {lines: pick}); return; }
      if (e.key === "Escape") { e.preventDefault(); cancel(); return; }
    }
    if (e.key === "A" && e.shiftKey) { e.preventDefault(); acceptMoved(); return; }
    const key = e.key.toLowerCase();
    const run = {a: () => act("accept"), e: edit, r: startPick, s: skip, o: open, "?": keys,
                 j: () => { next(1); mode = "view"; render(); }, k: () => { next(-1); mode = "view"; render(); }}[key];
    if (run) { e.preventDefault(); run(); }
  });

  $("rv-accept").addEventListener("click", () => act("accept"));
  $("rv-edit").addEventListener("click", () => (mode === "edit" ? saveEdit() : edit()));
  $("rv-reanchor").addEventListener("click", () => (mode === "pick" && pick ? act("reanchor", {lines: pick}) : startPick()));
  $("rv-skip").addEventListener("click", skip);
  $("rv-keys-toggle").addEventListener("click", keys);
  poll();
})();
