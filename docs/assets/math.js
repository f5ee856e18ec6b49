// @ts-check
// Typesets the math that reader's Markdown marks up as arithmatex's generic spans and divs
// (`\(x\)` inline, `\[x\]` display) with the site's own KaTeX (assets/katex/, MIT); no CDN.
// KaTeX (273 KB) is loaded only by a page that has math (a script tag: file:// works).
(function () {
  var script = /** @type {HTMLScriptElement | null} */ (document.currentScript);
  var BASE = script ? script.src.replace(/assets\/[\w.-]+\.js(?:[?#].*)?$/, "") : "";
  var loading = null;

  function katexLoaded() {
    if (window.katex) return Promise.resolve();
    if (!loading) {
      loading = new Promise(function (done) {
        var css = document.createElement("link");
        css.rel = "stylesheet";
        css.href = BASE + "assets/katex/katex.min.css";
        document.head.appendChild(css);
        var js = document.createElement("script");
        js.src = BASE + "assets/katex/katex.min.js";
        js.onload = js.onerror = function () { done(); };
        document.head.appendChild(js);
      });
    }
    return loading;
  }

  function typeset(root) {
    var found = Array.prototype.filter.call(root.querySelectorAll(".arithmatex"),
                                            function (el) { return !el.dataset.typeset; });
    if (!found.length) return;
    katexLoaded().then(function () {
      if (!window.katex) return;
      found.forEach(function (el) {
        if (el.dataset.typeset) return;
        var tex = el.textContent.trim().replace(/^\\[([]/, "").replace(/\\[)\]]$/, "");
        el.dataset.typeset = "1";
        katex.render(tex, el, {displayMode: el.tagName === "DIV", throwOnError: false, output: "htmlAndMathml"});
      });
    });
  }
  if (window.document$ && window.document$.subscribe) {
    window.document$.subscribe(function () { typeset(document); });
  } else {
    document.addEventListener("DOMContentLoaded", function () { typeset(document); });
  }
})();
