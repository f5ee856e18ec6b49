"""Claims: the `claim` field loaded and located, run in child processes with a time limit, kept
in the cache, and `reader check --run` reporting a failing one at its YAML line."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from reader.annotations.load import load_file
from reader.cache import Cache
from reader.children import Children
from reader.claims.env import Env, Finished, environment, label
from reader.claims.run import Spec, run_claims
from reader.cli import main
from reader.errors import InputError
from reader.pins import load_pins
from tests.annotations_project import pin_project, write_annotation
from tests.conftest import REPO_ROOT

HEAD = ("title: T\nslug: a\nphase: 2\nkind: article\norder: 1\n"
        "reads:\n  - path: jax/_src/pallas/pallas_call.py\n"
        "claim_setup: |\n  >>> import statistics\n")
NOTE = """notes:
  - id: n1
    symbol: _pallas_call_impl
    body: The median of 1, 3 and 5 is 3.
    claim: |
      >>> data = [1, 3, 5]
      >>> statistics.median(data)
      {answer}
"""
HERE = Env(sys.executable, (("python", sys.version),), "this Python")
CHILDREN = Children()


def article(answer: str = "3") -> str:
    return HEAD + NOTE.format(answer=answer)


def loaded(tmp_path: Path, text: str):
    path = write_annotation(tmp_path, "a", text)
    return load_file(path, "annotations/a.yaml")


def test_a_claim_is_located_at_its_first_example(tmp_path):
    got = loaded(tmp_path, article())
    assert not got.problems
    note = got.article.notes[0]
    assert note.claim.where.line == 15 and note.claim.text.startswith(">>> data = [1, 3, 5]\n")
    assert got.article.claim_setup.text == ">>> import statistics\n"


@pytest.mark.parametrize(("claim", "expected"), [
    ("      >>>data = 1\n      >>> data\n      1\n",
     "annotations/a.yaml:15: the claim is not doctest's form: line 1 of the docstring for claim "
     "lacks blank after >>>: '>>>data = 1'; write `>>> ` (with its space) and indent "
     "continuation lines as `... `"),
    ("      it returns 3\n", "annotations/a.yaml:14: note 'n1' `claim` 'it returns 3\\n' is "
                             "malformed; write it in doctest's form: `>>> ` lines, each followed "
                             "by its expected output"),
])
def test_a_claim_doctest_cannot_read_is_located(tmp_path, claim, expected):
    text = HEAD + NOTE.split("    claim: |\n")[0] + "    claim: |\n" + claim
    got = loaded(tmp_path, text)
    assert got.article is None
    assert [str(p) for p in got.problems] == [expected]


def spec(text: str, name: str = "c") -> Spec:
    return Spec(name, ">>> import time\n", text)


def test_claims_run_in_one_child_with_their_expected_and_actual_output(tmp_path):
    good, bad = spec(">>> sum([1, 2])\n3\n"), spec(">>> x = 2\n>>> x * 2\n5\n")
    raises = spec(">>> int('q')\nTraceback (most recent call last):\nValueError: invalid literal"
                  " for int() with base 10: 'q'\n")
    out = run_claims([good, bad, raises], HERE, "pins", None, timeout=60, pythons=CHILDREN)
    assert [o.ok for o in out] == [True, False, True]
    failed = out[1].first_failure()
    assert (failed.line, failed.source, failed.want, failed.got) == (1, "x * 2\n", "5\n", "4\n")


def test_a_claim_past_its_time_limit_fails_and_the_batch_goes_on(tmp_path):
    slow, after = spec(">>> time.sleep(30)\n"), spec(">>> 6 * 7\n42\n")
    out = run_claims([slow, after], HERE, "pins", None, timeout=2, pythons=CHILDREN)
    assert (out[0].ok, out[0].error) == (False, "timed out after 2 s")
    assert out[1].ok


def test_a_warm_run_reads_every_outcome_from_the_cache(tmp_path):
    cache = Cache(tmp_path / "cache")
    claims = [spec(">>> 6 * 7\n42\n"), spec(">>> 6 * 7\n41\n")]
    cold = run_claims(claims, HERE, "pins", cache, timeout=60, pythons=CHILDREN)
    assert run_claims(claims, HERE, "pins", cache, timeout=60, pythons=Refusing()) == cold
    assert [o.ok for o in cold] == [True, False]


class Refusing:
    """A `Pythons` that starts nothing."""

    def run(self, argv: Sequence[str]) -> Finished:
        raise AssertionError(f"started {argv}")

    def install(self, folder: Path, reqs: Sequence[str]) -> Finished:
        raise AssertionError(f"installed {reqs}")

    def stream(self, argv: Sequence[str], payload: bytes, env: Mapping[str, str]):
        raise AssertionError(f"started {argv}")


class Pip(Refusing):
    """A `Pythons` whose pip installs `reqs` (a venv's `bin/python` and what it says it has), or fails
    with `error`; what it was asked is kept in `asked`."""

    def __init__(self, error: str = "") -> None:
        self.error, self.asked, self.has = error, [], {}

    def install(self, folder: Path, reqs: Sequence[str]) -> Finished:
        self.asked.append(("install", folder.name, tuple(reqs)))
        (folder / "bin").mkdir(parents=True)  # the venv, made before pip runs
        if self.error:
            return Finished(1, "", f"Collecting it\n{self.error}\n")
        (folder / "bin" / "python").write_text("")
        self.has = dict(r.split("==") for r in reqs)
        return Finished(0, "", "")

    def run(self, argv: Sequence[str]) -> Finished:
        self.asked.append(("run", Path(argv[0]).parent.parent.name, tuple(argv[-2:])))
        return Finished(0, json.dumps({n: self.has.get(n, "") for n in argv[4:]}), "")


def pinned(release: str):
    from reader.pins import Pin

    return {"jax": Pin("jax", "https://example.com/jax.git", "a" * 40, ("jax",), release=release)}


def test_a_venv_is_made_through_the_pythons_the_command_hands_in_once(tmp_path):
    cache, pip = Cache(tmp_path / "cache"), Pip()
    env = environment(pinned("jax==0.0.1"), cache, pip)
    [(verb, folder, reqs), *_] = pip.asked
    assert (verb, reqs) == ("install", ("jax==0.0.1",)) and ".tmp-" in folder  # made aside, moved whole
    assert env.python == str(tmp_path / "cache" / "envs" / folder.split(".tmp-")[0] / "bin" / "python")
    assert ("jax", "0.0.1") in env.versions and env.label == "jax 0.0.1"
    asked = len(pip.asked)
    assert environment(pinned("jax==0.0.1"), cache, pip) == env  # made once: asked its versions only
    assert [a[0] for a in pip.asked[asked:]] == ["run"]


def test_pip_failing_to_install_the_pins_is_an_input_error_at_pins_toml(tmp_path):
    with pytest.raises(InputError) as e:
        environment(pinned("jax==0.0.1"), Cache(tmp_path / "cache"), Pip("ERROR: No matching distribution"))
    assert str(e.value).startswith("pins.toml: pip cannot install jax==0.0.1: Collecting it ERROR: No matching")
    assert not list((tmp_path / "cache" / "envs").iterdir())  # nothing half-made left


def test_the_label_names_the_pinned_releases():
    assert label(load_pins(REPO_ROOT / "pins.toml")) == "jax 0.12.0.1 / tokamax 0.0.17"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("READER_CACHE", str(cache))
    root = tmp_path / "proj"
    pin_project(root, cache, "0.10.2")
    pins = root / "pins.toml"  # no release: the claims run on this Python
    pins.write_text(pins.read_text().replace('release = "jax==0.10.2"\n', ""))
    return root


def test_check_run_reports_a_failing_claim_at_its_line(project, capsys):
    write_annotation(project, "a", article("4"))
    assert main(["-C", str(project), "accept", "n1"]) == 0
    assert main(["-C", str(project), "check"]) == 0  # without --run, claims are not run
    capsys.readouterr()
    assert main(["-C", str(project), "check", "--run"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "annotations/a.yaml:16: the claim of n1 fails at the pins (no release named): "
        ">>> statistics.median(data): expected '4', got '3'; run its lines at the pins, then fix "
        "the text or the claim"]
    assert "1 claim at the pins (no release named): 0 passed, 1 failed (1 run" in err
    path = project / "annotations" / "a.yaml"
    path.write_text(path.read_text().replace("      4\n", "      3\n"))
    assert main(["-C", str(project), "check", "--run"]) == 0


def test_every_page_of_the_track_carries_claims():
    """Each annotation file, article, source notes, layer or lab page, has at least one claim (its
    behaviour checked at the pins, not only its code's text), and the track keeps its 220."""
    from reader.annotations import load_articles
    from reader.claims.track import claims_of

    articles = load_articles(REPO_ROOT)
    assert [a.slug for a in articles if not claims_of([a])] == []
    assert len(claims_of(articles)) >= 220


def test_a_page_without_a_claim_is_found(tmp_path):
    """The check above can fail: a page whose notes carry no claim has none to count."""
    from reader.claims.track import claims_of

    bare = loaded(tmp_path, HEAD + NOTE.replace("    claim: |\n      >>> data = [1, 3, 5]\n"
                                                "      >>> statistics.median(data)\n      {answer}\n", ""))
    assert not bare.problems and claims_of([bare.article]) == []
    assert len(claims_of([loaded(tmp_path, article()).article])) == 1
