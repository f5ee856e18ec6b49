// @ts-check
// Token runs, defined once: how reader/render/code.py and cards.py write a line's highlighting and
// codeview.js and cards.js read it back (reader/render/runs.py takes LETTERS from this file, and
// docs/assets/runs.js is a link to it). A line's runs are, for each run, its class's code and its
// length in UTF-16 units: "a4b12ba3". A class's code is its index in bijective base 52 over
// LETTERS: a..Z are 0..51, aa is 52, aZ 103, ba 104. A browser gets `window.readerRuns`; node,
// the tests, `require` it.
(function () {
  var LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  var BASE = LETTERS.length;
  var RUN = /([a-zA-Z]+)(\d+)/g;

  /** @param {number} index @returns {string} */
  function classCode(index) {
    var code = LETTERS[index % BASE];
    while (index >= BASE) {
      index = Math.floor(index / BASE) - 1;
      code = LETTERS[index % BASE] + code;
    }
    return code;
  }

  /** @param {string} code @returns {number} */
  function classIndex(code) {
    var n = 0;
    for (var i = 0; i < code.length - 1; i++) n = (n + LETTERS.indexOf(code[i]) + 1) * BASE;
    return n + LETTERS.indexOf(code[code.length - 1]);
  }

  /** A line's runs as [class index, length] pairs. @param {string} spec @returns {[number, number][]} */
  function decode(spec) {
    /** @type {[number, number][]} */
    var out = [];
    var m;
    RUN.lastIndex = 0;
    while ((m = RUN.exec(spec))) out.push([classIndex(m[1]), +m[2]]);
    return out;
  }

  var runs = {LETTERS: LETTERS, classCode: classCode, classIndex: classIndex, decode: decode};
  if (typeof module === "object" && module.exports) {
    module.exports = runs;
    return;
  }
  window.readerRuns = runs;
})();
