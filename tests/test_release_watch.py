"""scripts/release-watch: the newest final releases on an index (a fixture of PyPI's JSON API),
the dry run's branch, commands and report, and a whole run on a git checkout with a local origin,
`reader` and `gh` standing in as recorders (the real commands' own tests are theirs)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import FIXTURES, REPO_ROOT, git

SCRIPT = REPO_ROOT / "scripts" / "release-watch"
INDEX = (FIXTURES / "release-index").as_uri()
PINS = """# The upstream commits.
[pins.jax]
repo = "https://github.com/jax-ml/jax"
commit = "dc4af684446e65ee98eee8090e1ff6f8211473fb"
release = "{jax}"
paths = ["jax/_src/pallas"]

[pins.tokamax]
repo = "https://github.com/openxla/tokamax"
commit = "c03469fc8b20c835e7b9effaeaa5a410df14536a"
release = "tokamax==0.0.17"
paths = ["tokamax"]
"""


def _project(tmp_path: Path, jax: str = "jax==0.12.0.1") -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pins.toml").write_text(PINS.format(jax=jax))
    return root


def _watch(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "--project", str(root), *args],
                          capture_output=True, text=True, timeout=120, env=env)


DRY = """jax: pinned 0.12.0.1, newest 0.12.1 (newer)
tokamax: pinned 0.0.17, newest 0.0.17 (pinned)
branch: release-watch/jax-0.12.1-tokamax-0.0.17
commands:
  git switch -c release-watch/jax-0.12.1-tokamax-0.0.17
  reader pin jax --release jax==0.12.1
  reader diff --apply
  reader diff HEAD:pins.toml --record moves/jax-0.12.1-tokamax-0.0.17.json
  reader check --run
  reader build --quiet
  reader diff --format markdown
  reader check --format json
  git add pins.toml pins.lock annotations moves
  git commit -m 'Move the pins: jax 0.12.0.1 -> 0.12.1'
  git push --set-upstream origin release-watch/jax-0.12.1-tokamax-0.0.17
  gh pr create --base main --head release-watch/jax-0.12.1-tokamax-0.0.17 --title 'Move to jax 0.12.1' --body-file REPORT.md
pull request: 'Move to jax 0.12.1' into main, its body REPORT.md:
  | <the output of reader diff --format markdown>
  |
  | **N notes left to review**: ... (N: the notes `reader check --format json` reports after the move)
  |
  | The move's record: `moves/jax-0.12.1-tokamax-0.0.17.json`. Opened by `scripts/release-watch`.
"""


def test_the_dry_run_prints_the_branch_the_commands_and_the_report(tmp_path):
    """The newest final release with files: not the yanked 0.13.0, the 0.14.0rc1 or the empty
    0.15.0 of the fixture; tokamax's 0.0.18.dev3 is no release either."""
    root = _project(tmp_path)
    done = _watch(root, "--dry-run", "--index", INDEX, "--reader", "reader")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == DRY
    assert sorted(p.name for p in root.iterdir()) == ["pins.toml"]  # it ran nothing


def test_nothing_newer_nothing_done(tmp_path):
    done = _watch(_project(tmp_path, "jax==0.12.1"), "--dry-run", "--index", INDEX)
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1] == ("release-watch: every pin is at its package's newest "
                                            "release; nothing to do")


def test_an_index_that_cannot_be_read_is_named(tmp_path):
    done = _watch(_project(tmp_path), "--dry-run", "--index", (tmp_path / "none").as_uri())
    assert done.returncode == 2
    assert done.stderr.startswith(f"release-watch: error: {(tmp_path / 'none').as_uri()}/jax/json: "
                                  "cannot read jax's releases: ")


READER = """#!{python}
import json, pathlib, sys
args = sys.argv[1:]
with open({log!r}, "a") as log:
    log.write(" ".join(args) + "\\n")
root = pathlib.Path.cwd()
if args[0] == "pin":
    pins = root / "pins.toml"
    pins.write_text(pins.read_text().replace("jax==0.12.0.1", args[3]))
    (root / "pins.lock").write_text("moved\\n")
elif args[:2] == ["diff", "--apply"]:
    note = root / "annotations" / "a.yaml"
    note.write_text(note.read_text() + "    review: {{reason: moved, confidence: 0.5}}\\n")
    sys.exit(1)
elif args[0] == "diff" and "--record" in args:
    (root / args[args.index("--record") + 1]).write_text("{{}}\\n")
elif args[:3] == ["diff", "--format", "markdown"]:
    print("## reader diff\\n\\n- jax 0.12.0.1 -> 0.12.1: 2 notes to re-read")
    sys.exit(1)
elif args[:3] == ["check", "--format", "json"]:
    print(json.dumps({{"problems": [
        {{"note": "a-one", "severity": "finding"}}, {{"note": "a-one", "severity": "finding"}},
        {{"note": "a-two", "severity": "notice"}}, {{"note": None, "severity": "error"}}]}}))
    sys.exit(1)
elif args[:2] == ["check", "--run"]:
    sys.exit(1)
"""

GH = """#!/bin/sh
echo "$@" >> {log}
while [ $# -gt 0 ]; do
  if [ "$1" = --body-file ]; then cp "$2" {body}; fi
  shift
done
"""


def test_a_run_moves_the_pins_on_a_branch_pushes_it_and_opens_the_pull_request(tmp_path):
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    root = _project(tmp_path)
    (root / "pins.lock").write_text("old\n")
    (root / "annotations").mkdir()
    (root / "annotations" / "a.yaml").write_text("notes:\n  - id: a-one\n")
    (root / "moves").mkdir()
    (root / "moves" / ".keep").write_text("")
    for args in (["init", "-q", "-b", "main"], ["config", "user.email", "w@example.invalid"],
                 ["config", "user.name", "w"], ["add", "-A"], ["commit", "-qm", "track"],
                 ["remote", "add", "origin", str(origin)], ["push", "-q", "origin", "main"]):
        git(root, *args)
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    calls, gh_calls, body = tmp_path / "reader.log", tmp_path / "gh.log", tmp_path / "body.md"
    (bin_ / "reader").write_text(READER.format(python=sys.executable, log=str(calls)))
    (bin_ / "gh").write_text(GH.format(log=gh_calls, body=body))
    for tool in ("reader", "gh"):
        (bin_ / tool).chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_}{os.pathsep}{os.environ['PATH']}")
    done = _watch(root, "--index", INDEX, "--reader", str(bin_ / "reader"), env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    branch = "release-watch/jax-0.12.1-tokamax-0.0.17"
    assert calls.read_text().splitlines() == [
        "pin jax --release jax==0.12.1", "diff --apply",
        "diff HEAD:pins.toml --record moves/jax-0.12.1-tokamax-0.0.17.json", "check --run",
        "build --quiet", "diff --format markdown", "check --format json"]
    assert git(origin, "log", "-1", "--format=%s", branch) == "Move the pins: jax 0.12.0.1 -> 0.12.1"
    changed = git(origin, "diff", "--name-only", "main", branch).splitlines()
    assert changed == ["annotations/a.yaml", "moves/jax-0.12.1-tokamax-0.0.17.json", "pins.lock",
                       "pins.toml"]
    assert 'release = "jax==0.12.1"' in git(origin, "show", f"{branch}:pins.toml")
    [gh] = gh_calls.read_text().splitlines()
    assert gh.startswith(f"pr create --base main --head {branch} --title Move to jax 0.12.1 "
                         "--body-file ")
    assert body.read_text() == (
        "## reader diff\n\n- jax 0.12.0.1 -> 0.12.1: 2 notes to re-read\n\n"
        "**2 notes left to review**: `reader serve`, then http://127.0.0.1:8000/review/ (or "
        "`reader check` and `reader accept NOTE_ID`).\n\n"
        "The move's record: `moves/jax-0.12.1-tokamax-0.0.17.json`. Opened by "
        "`scripts/release-watch`.\n")
    # the branch is on origin now: the next scheduled run opens nothing
    git(root, "switch", "-q", "main")
    again = _watch(root, "--index", INDEX, "--reader", str(bin_ / "reader"), env=env)
    assert again.returncode == 0 and again.stdout.splitlines()[-1] == (
        f"release-watch: origin has {branch} already (its pull request is open, or was closed); "
        "nothing to do")
    assert len(calls.read_text().splitlines()) == 7


def test_the_workflow_runs_the_script_on_a_schedule_with_the_repository_token():
    flow = yaml.safe_load((REPO_ROOT / ".github" / "workflows" / "release-watch.yml").read_text())
    assert flow[True]["schedule"] and "workflow_dispatch" in flow[True]  # YAML 1.1: `on` is True
    assert flow["permissions"] == {"contents": "write", "pull-requests": "write"}
    steps = flow["jobs"]["watch"]["steps"]
    [watch] = [s for s in steps if "scripts/release-watch" in s.get("run", "")]
    assert watch["env"]["GH_TOKEN"] == "${{ secrets.GITHUB_TOKEN }}"
    assert steps[0]["uses"].startswith("actions/checkout@") and steps[0]["with"]["fetch-depth"] == 0
    assert any("scripts/venv labs" in s.get("run", "") for s in steps)
