// Typesets the math that reader's Markdown marks up as arithmatex's generic spans and divs
// (`\(x\)` inline, `\[x\]` display) with the site's own KaTeX (assets/katex/, MIT); no CDN.
(function () {
  function typeset(root) {
    if (!window.katex) return;
    root.querySelectorAll(".arithmatex").forEach(function (el) {
      if (el.dataset.typeset) return;
      var text = el.textContent.trim();
      var display = el.tagName === "DIV";
      var tex = text.replace(/^\\[\(\[]/, "").replace(/\\[\)\]]$/, "");
      el.dataset.typeset = "1";
      katex.render(tex, el, { displayMode: display, throwOnError: false, output: "htmlAndMathml" });
    });
  }
  if (window.document$ && window.document$.subscribe) {
    window.document$.subscribe(function () { typeset(document); });
  } else {
    document.addEventListener("DOMContentLoaded", function () { typeset(document); });
  }
})();
