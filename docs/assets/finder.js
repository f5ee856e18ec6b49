// @ts-check
// Two keys of a code browser, as on GitHub: `t` finds a file by the letters of its path (the list
// is search's `files` piece, loaded on first use), `l` goes to a line of the page's code; on a
// phone, the header's "Files" button and the scope line's "Go to line" (scope.js) do the same.
(function () {
  var SHOWN = 50;

  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }

  function dialog(cls, label, placeholder, type) {
    var d = document.createElement("dialog");
    d.className = "rd-search " + cls;
    d.setAttribute("aria-label", label);
    var form = document.createElement("form");
    form.method = "dialog";
    form.className = "rd-search-form";
    var input = document.createElement("input");
    input.type = type;
    input.className = cls + "-input rd-dialog-input";
    input.placeholder = placeholder;
    input.setAttribute("aria-label", label);
    input.autocomplete = "off";
    input.spellcheck = false;
    var close = document.createElement("button");
    close.type = "button";
    close.className = "rd-search-close";
    close.addEventListener("click", function () { d.close(); });
    close.textContent = "Close";
    form.appendChild(input);
    form.appendChild(close);
    var status = document.createElement("p");
    status.className = "rd-search-status";
    status.setAttribute("role", "status");
    d.appendChild(form);
    d.appendChild(status);
    document.body.appendChild(d);
    d.addEventListener("click", function (e) { if (e.target === d) d.close(); });
    return {dialog: d, form: form, input: input, status: status};
  }

  // The file finder: a path's letters in order (fuzzy.js).
  var finder = null;
  function openFinder() {
    if (!finder) {
      finder = dialog("rd-finder", "Find a file", "Letters of a file's path", "search");
      finder.list = document.createElement("ul");
      finder.list.className = "rd-finder-list";
      finder.dialog.appendChild(finder.list);
      finder.input.addEventListener("input", narrow);
      finder.form.addEventListener("submit", function (e) {  // Enter opens the first file
        e.preventDefault();
        var first = finder.list.querySelector("a");
        if (first) first.click();
      });
      finder.dialog.addEventListener("keydown", step);
    }
    if (!finder.dialog.open) finder.dialog.showModal();
    finder.input.focus();
    finder.input.select();
    window.readerSearch.load("files").then(function (table) {
      finder.files = (table && table.files) || [];
      narrow();
    });
  }
  function narrow() {
    if (!finder.files) return;
    // the track's files first, then the modules they import (a pin's `context`: [path, lines, 0])
    function paths(context) {
      return finder.files.filter(function (f) { return (f[2] === 0) === context; }).map(function (f) { return f[0]; });
    }
    var found = readerFuzzy.find(paths(false), finder.input.value).concat(readerFuzzy.find(paths(true), finder.input.value));
    finder.list.textContent = "";
    found.slice(0, SHOWN).forEach(function (path) {
      var li = document.createElement("li"), a = document.createElement("a");
      a.className = "rd-sr rd-sr-code";
      a.href = window.readerSearch.base + "source/" + path + ".html";
      a.textContent = path;
      li.appendChild(a);
      finder.list.appendChild(li);
    });
    finder.status.textContent = found.length + " file" + (found.length === 1 ? "" : "s") +
      (found.length > SHOWN ? ", the first " + SHOWN + " shown" : "");
  }
  function step(e) {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    var links = [finder.input].concat(Array.prototype.slice.call(finder.list.querySelectorAll("a")));
    var at = links.indexOf(document.activeElement);
    if (at < 0) return;
    e.preventDefault();
    links[Math.max(0, Math.min(links.length - 1, at + (e.key === "ArrowDown" ? 1 : -1)))].focus();
  }

  // Go to line: the page's own lines (`#L<n>`); on a diff page, the new file's (diff.js).
  var goto = null;
  function lastLine() {
    if (window.readerDiff) return window.readerDiff.lines;
    if (window.readerCode && document.querySelector(".rd-file .rd-k[data-i]")) return window.readerCode.lines();
    var lines = document.querySelectorAll(".rd-file .rd-k > div[id^='L']");
    var m = lines.length ? /^L(\d+)$/.exec(lines[lines.length - 1].id) : null;
    return m ? +m[1] : 0;
  }
  function openGoto() {
    var last = lastLine();
    if (!last) return;
    if (!goto) {
      goto = dialog("rd-goto", "Go to line", "Line number", "number");
      goto.input.min = "1";
      goto.form.addEventListener("submit", function (e) {
        e.preventDefault();
        var n = parseInt(goto.input.value, 10);
        if (!(n >= 1 && n <= last)) { goto.status.textContent = "A line from 1 to " + last; return; }
        goto.dialog.close();
        if (window.readerDiff) { window.readerDiff.line(n); return; }
        location.hash = "#L" + n;
        if (window.readerCode) window.readerCode.need("L" + n);
        var line = document.getElementById("L" + n);
        if (line) {
          if (window.readerCode) window.readerCode.paint(line.closest(".rd-k"));
          line.scrollIntoView({block: "center"});
          var number = /** @type {HTMLElement | null} */ (line.querySelector("a.rd-n"));
          if (number) number.focus({preventScroll: true});
        }
      });
    }
    goto.input.max = String(last);
    goto.status.textContent = "Lines 1 to " + last;
    if (!goto.dialog.open) goto.dialog.showModal();
    goto.input.value = "";
    goto.input.focus();
  }

  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target) || document.querySelector("dialog[open]")) return;
    if (e.key === "t" && window.readerSearch) { e.preventDefault(); openFinder(); }
    else if (e.key === "l" && lastLine()) { e.preventDefault(); openGoto(); }
  });
  // Leaving the page (a file chosen), the finder and go-to-line close, their words cleared: Back
  // brings the page back as it was before they opened, not a dialog with the old query.
  window.addEventListener("pagehide", function () {
    [finder, goto].forEach(function (d) {
      if (!d) return;
      d.input.value = "";
      if (d.dialog.open) d.dialog.close();
    });
  });
  window.readerFinder = {files: openFinder, line: openGoto};

  // Buttons in the header beside search's, so that a phone (no `t`, no `l`) reaches them: the
  // finder's on every page; go-to-line's on a page with lines to go to (a diff's, a lab's) but no
  // scope line (a source page's has its own, scope.js).
  var ICONS = {
    files: '<path d="M13 9V3.5L18.5 9M6 2c-1.11 0-2 .89-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8l-6-6z"/>',
    line: '<path d="M2 5h4v2H2zm0 6h4v2H2zm0 6h4v2H2zm6-12h14v2H8zm0 6h14v2H8zm0 6h14v2H8z"/>'};
  function headerButton(header, after, label, key, icon, text, act) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "md-header__button md-icon rd-finder-open";
    b.setAttribute("aria-label", text + ": " + label + " (" + key + ")");  // holding its visible text (axe)
    b.title = label + " (" + key + ")";
    b.innerHTML = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" aria-hidden="true">' + icon +
      '</svg><span class="rd-search-label">' + text + "</span>";
    b.addEventListener("click", act);
    header.insertBefore(b, after ? after.nextSibling : null);
    return b;
  }
  function buttons() {
    var header = document.querySelector(".md-header__inner");
    if (!header || header.querySelector(".rd-finder-open") || !window.readerSearch) return;
    var files = headerButton(header, header.querySelector(".rd-search-open") || header.querySelector(".md-header__title"),
                             "Find a file", "t", ICONS.files, "Files", openFinder);
    if (document.querySelector(".rd-diff, .rd-file .rd-k > div[id^='L']") && !document.querySelector(".rd-scope")) {
      headerButton(header, files, "Go to line", "l", ICONS.line, "Line", openGoto);
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", buttons);
  else buttons();
})();
