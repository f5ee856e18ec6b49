// Lint for the site's own scripts: classic browser scripts (no modules, so that pages work from
// file://), sharing globals through window.reader*; the vendored KaTeX and axe-core are not ours.
"use strict";
const js = require("@eslint/js");
const globals = require("globals");

module.exports = [
  {ignores: ["docs/assets/katex/**", "tests/vendor/**", "site/**", ".ci-site/**", "node_modules/**"]},
  js.configs.recommended,
  {
    files: ["docs/assets/**/*.js", "reader/assets/**/*.js", "reader/review/assets/**/*.js"],
    languageOptions: {ecmaVersion: 2022, sourceType: "script", globals: {
      ...globals.browser, katex: "readonly",
      // the pure modules' globals (query.js, scopetable.js, fuzzy.js: a classic script's `var`)
      readerQuery: "readonly", readerScopeTable: "readonly", readerFuzzy: "readonly", readerCodeTables: "readonly",
    }},
    rules: {"no-unused-vars": ["error", {args: "none", caughtErrors: "none"}], eqeqeq: ["error", "smart"]},
  },
  {  // shared with node (tests/test_sm90_dial.py, tests/js): exported when `module` is there
    files: ["reader/assets/sm90-budget.js", "reader/assets/runs.js", "docs/assets/runs.js",
            "docs/assets/query.js", "docs/assets/scopetable.js", "docs/assets/fuzzy.js", "docs/assets/codetables.js",
            "docs/assets/refs.js", "docs/assets/editions.js", "docs/assets/diff.js", "docs/assets/blame.js"],
    languageOptions: {globals: {module: "readonly", readerQuery: "off", readerScopeTable: "off", readerFuzzy: "off",
                                readerCodeTables: "off"}},
  },
  {
    files: ["eslint.config.js", "tests/js/**/*.js"],
    languageOptions: {ecmaVersion: 2022, sourceType: "commonjs", globals: globals.node},
  },
];
