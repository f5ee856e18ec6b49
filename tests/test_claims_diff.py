"""`reader diff` runs the claims with each side's releases installed: a pin moved to a release
whose behaviour differs under byte-identical code is reported as exactly that note ("re-read:
behaviour changed"). The releases are two small local wheels; the environments are made by
reader under its cache with pip (no index). And a quote-only note gets re-read advice when the
code around its quote changes."""

from __future__ import annotations

import base64
import hashlib
import json
import zipfile
from pathlib import Path

from reader.cli import main
from tests.conftest import make_upstream, write_project

CORE = '''def answer():
    """What the release returns."""
    return ANSWER


def stable():
    return "same"
'''
EXTRA = '''def helper(x):
    total = x + 1
    return total * {factor}
'''
TREES = [{"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/extra.py": EXTRA.format(factor=2)},
         {"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/extra.py": EXTRA.format(factor=3)}]
ARTICLE = """title: Demo
slug: demo
phase: 1
kind: article
order: 1
reads:
  - path: pkg/core.py
  - path: pkg/extra.py
claim_setup: |
  >>> import fakelib
notes:
  - id: n-answer
    symbol: answer
    body: Returns 41.
    claim: |
      >>> fakelib.answer()
      41
  - id: n-stable
    symbol: stable
    body: Returns "same".
    claim: |
      >>> fakelib.stable()
      'same'
  - id: n-quote
    path: pkg/extra.py
    quote: "total = x + 1"
    body: Adds one first.
"""


def wheel(folder: Path, version: str, answer: int) -> None:
    """A pure-Python wheel of `fakelib` whose `answer()` returns `answer`."""
    info = f"fakelib-{version}.dist-info"
    files = {"fakelib/__init__.py": f"def answer():\n    return {answer}\n\n\n"
                                    "def stable():\n    return 'same'\n",
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: fakelib\nVersion: {version}\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                              "Tag: py3-none-any\n"}
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{name},sha256={digest.decode()},{len(text.encode())}")
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    with zipfile.ZipFile(folder / f"fakelib-{version}-py3-none-any.whl", "w") as z:
        for name, text in files.items():
            z.writestr(name, text)


def test_diff_reports_the_claim_whose_behaviour_changed_under_identical_code(tmp_path, monkeypatch,
                                                                             capsys):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    wheel(wheels, "1.0", 41)
    wheel(wheels, "2.0", 42)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    monkeypatch.setenv("READER_CACHE", str(tmp_path / "cache"))
    upstream = make_upstream(tmp_path / "upstream", TREES)
    monkeypatch.setenv("READER_MIRROR_FAKE", upstream.url)
    root = write_project(tmp_path / "project", "fake", "https://example.invalid/fake",
                         upstream.commits[0], TREES[0], release="fakelib==1.0")
    new = write_project(tmp_path / "new", "fake", "https://example.invalid/fake",
                        upstream.commits[1], TREES[1], release="fakelib==2.0")
    (root / "annotations").mkdir()
    (root / "annotations" / "demo.yaml").write_text(ARTICLE)
    assert main(["-C", str(root), "accept", "--all"]) == 0
    assert main(["-C", str(root), "check", "--run"]) == 0
    capsys.readouterr()

    code = main(["-C", str(root), "diff", str(root / "pins.toml"), str(new / "pins.toml")])
    out = capsys.readouterr().out
    assert code == 1
    claims = [line.strip() for line in out.splitlines() if "behaviour changed" in line]
    assert claims == [
        "1 note and 1 claim whose behaviour changed need a person; 1 placed note in changed code "
        "(re-read advised)".join(["reader diff " + str(root / "pins.toml") + " -> " + str(new / "pins.toml")
                         + ": ", ""]),
        "Claims: 1 whose behaviour changed or cannot be run",
        "annotations/demo.yaml:16: note 'n-answer': re-read: behaviour changed: >>> "
        "fakelib.answer() gives '41' at fakelib 1.0, '42' at fakelib 2.0"]
    assert ("annotations/demo.yaml:28: note 'n-quote' on pkg/extra.py: unchanged (lines 2); the "
            "code around it in helper changed: re-read the note") in out
    assert out.count("re-read") == 3  # the summary, the quote-only note, the claim
    envs = sorted(p.name for p in (tmp_path / "cache" / "envs").iterdir())
    assert len(envs) == 2  # one environment per side's releases, made once
    markdown = main(["-C", str(root), "diff", str(root / "pins.toml"), str(new / "pins.toml"),
                     "--format", "markdown"])
    out = capsys.readouterr().out
    assert markdown == 1
    assert ("| `n-answer` | `annotations/demo.yaml:16` | `fakelib.answer()` | `41` | `42` |"
            in out.splitlines())
    assert main(["-C", str(root), "diff", str(root / "pins.toml"), str(new / "pins.toml"),
                 "--format", "json"]) == 1
    changes = json.loads(capsys.readouterr().out)["changes"]
    assert [(c["note"], c["old"], c["new"]) for c in changes if c["section"] == "claims"] == [
        ("n-answer", "41", "42")]
