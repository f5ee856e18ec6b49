// @ts-check
// Diff pages (reader/render/filediff.py): unified or side by side, the reader's choice kept in
// localStorage for every diff page.
(function () {
  "use strict";
  var KEY = "reader.diffView";
  function choose(root, view) {
    root.setAttribute("data-view", view);
    root.querySelectorAll(".rd-diff-views button").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.getAttribute("data-view") === view));
    });
  }
  function wire() {
    document.querySelectorAll(".rd-diff").forEach(function (root) {
      var kept = null;
      try { kept = localStorage.getItem(KEY); } catch (e) { /* storage refused: the default */ }
      if (kept === "split" || kept === "unified") choose(root, kept);
      root.querySelectorAll(".rd-diff-views button").forEach(function (b) {
        b.addEventListener("click", function () {
          var view = b.getAttribute("data-view");
          choose(root, view);
          try { localStorage.setItem(KEY, view); } catch (e) { /* not kept */ }
          window.dispatchEvent(new Event("resize"));  // the code view sizes what it now shows
        });
      });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();
})();
