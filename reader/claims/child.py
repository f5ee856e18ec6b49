"""The child process that runs claims: stdlib only, so any environment's Python can run this file.

Reads a JSON list of claims on stdin (`key`, `name`, `setup`, `text`: doctest's `>>>` form), runs
each in a fresh namespace after its setup, and writes one JSON line per event on the original
stdout: `{"start": key}` before a claim, `{"result": {...}}` after it. The examples' own output
(and anything written to file descriptor 1) goes to stderr, so it cannot garble the protocol.
`--versions NAME...` prints the installed version of each distribution instead.
"""

from __future__ import annotations

import doctest
import json
import os
import sys
from importlib import metadata

FLAGS = doctest.ELLIPSIS
"""Option flags every claim runs with (`python -m doctest -o ELLIPSIS` reproduces a run)."""


class _Recorder(doctest.OutputChecker):
    """Remembers the last output doctest compared: an example's printed text, or for one that
    raised as expected, its exception line."""

    got = ""

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        self.got = got
        return super().check_output(want, got, optionflags)


class _Runner(doctest.DocTestRunner):
    """Records each example's outcome rather than printing a report."""

    def __init__(self) -> None:
        self.recorder = _Recorder()
        super().__init__(checker=self.recorder, optionflags=FLAGS)
        self.examples: list[dict[str, object]] = []

    def _record(self, example: doctest.Example, got: str, ok: bool) -> None:
        self.examples.append({"line": example.lineno, "source": example.source,
                              "want": example.exc_msg if example.exc_msg is not None else example.want,
                              "got": got, "ok": ok, "raises": example.exc_msg is not None})

    def report_start(self, out, test, example) -> None:
        self.recorder.got = ""

    def report_success(self, out, test, example, got) -> None:
        self._record(example, self.recorder.got if example.exc_msg is not None else got, True)

    def report_failure(self, out, test, example, got) -> None:
        self._record(example, self.recorder.got if example.exc_msg is not None else got, False)

    def report_unexpected_exception(self, out, test, example, exc_info) -> None:
        text = " ".join(str(exc_info[1]).split())  # notes left out, as `str()` does
        self._record(example, f"raised {exc_info[0].__qualname__}: {text[:500]}\n", False)


def run_claim(claim: dict[str, str]) -> dict[str, object]:
    """One claim's outcome: `ok`, each example's (line, source, want, got, ok), or a setup `error`."""
    parser = doctest.DocTestParser()
    globs: dict[str, object] = {"__name__": "__claim__"}
    runner = _Runner()
    if claim.get("setup"):
        setup = parser.get_doctest(claim["setup"], globs, claim["name"] + " (setup)", None, 0)
        runner.run(setup, out=lambda _s: None, clear_globs=False)
        failed = [e for e in runner.examples if not e["ok"]]
        if failed:
            return {"key": claim["key"], "ok": False, "examples": [],
                    "error": f"the setup failed at {str(failed[0]['source']).strip()!r}: "
                             f"{str(failed[0]['got']).strip()}"}
        runner.examples = []
        globs = setup.globs  # a DocTest runs in a copy of the globals it is given
    test = parser.get_doctest(claim["text"], globs, claim["name"], None, 0)
    runner.run(test, out=lambda _s: None, clear_globs=False)
    examples = runner.examples
    return {"key": claim["key"], "ok": all(e["ok"] for e in examples) and bool(examples),
            "examples": examples, "error": ""}


def main(argv: list[str]) -> int:
    if argv[:1] == ["--versions"]:
        found = {}
        for name in argv[1:]:
            try:
                found[name] = metadata.version(name)
            except metadata.PackageNotFoundError:
                found[name] = ""
        print(json.dumps(found))
        return 0
    claims = json.load(sys.stdin)
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # the examples' prints and any C-level writes go to stderr
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    for claim in claims:
        protocol.write(json.dumps({"start": claim["key"]}) + "\n")
        try:
            result = run_claim(claim)
        except Exception as e:  # a claim the parser rejects: its own result, the batch goes on
            result = {"key": claim["key"], "ok": False, "examples": [],
                      "error": f"{type(e).__name__}: {e}"}
        protocol.write(json.dumps({"result": result}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
