"""The GitHub workflows: the Pages deploy builds the site on every push to main and publishes it
with the standard pair of actions, READER_SITE_URL set from the Pages site's URL."""

from __future__ import annotations

import json

import yaml

from tests.conftest import REPO_ROOT


def _workflow(name: str) -> dict:
    return yaml.safe_load((REPO_ROOT / ".github" / "workflows" / name).read_text())


def test_pages_deploys_the_built_site_on_every_push_to_main():
    flow = _workflow("pages.yml")
    assert flow[True]["push"]["branches"] == ["main"]  # YAML 1.1 reads `on` as True
    assert flow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    build = flow["jobs"]["build"]["steps"]
    uses = [s.get("uses", "").split("@")[0] for s in build]
    assert uses.index("actions/configure-pages") < uses.index("actions/upload-pages-artifact")
    # The diff pages read the previous edition's pins from git history: the whole of it.
    assert build[0]["with"]["fetch-depth"] == 0
    [run] = [s for s in build if "reader build" in s.get("run", "")]
    pages_id = next(s["id"] for s in build if s.get("uses", "").startswith("actions/configure-pages"))
    assert run["env"]["READER_SITE_URL"].startswith(f"${{{{ steps.{pages_id}.outputs.base_url }}}}")
    [upload] = [s for s in build if s.get("uses", "").startswith("actions/upload-pages-artifact")]
    assert upload["with"]["path"] == "site"
    deploy = flow["jobs"]["deploy"]
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]


CI_RUN = REPO_ROOT / ".ci" / "run"


def _commands(script: str) -> list[str]:
    """A shell script's command lines: comments, blank lines and continuations folded away."""
    joined = script.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]


def test_the_ci_workflow_runs_ci_run_and_nothing_else():
    """One CI definition: GitHub's test job sets up Pythons, checks out the history and restores the
    cache, then runs .ci/run itself, so the checks it runs are the script's (no step of its own,
    no environment that hides Material's end-of-life notice)."""
    flow = _workflow("ci.yml")
    test = flow["jobs"]["test"]
    runs = [s["run"].strip() for s in test["steps"] if "run" in s]
    assert runs == [".ci/run"]
    assert [s["uses"].split("@")[0] for s in test["steps"] if "uses" in s] == \
        ["actions/checkout", "actions/setup-python", "actions/cache"]
    assert test["steps"][0]["with"]["fetch-depth"] == 0  # the older editions read git history
    assert "NO_MKDOCS_2_WARNING" not in json.dumps(flow)
    versions = str(test["steps"][1]["with"]["python-version"]).split()
    assert "3.12" in versions and "3.13" in versions  # the tests on one, the smoke build on the other


def test_ci_run_holds_every_check_and_the_readme_test_command():
    """What used to differ between the two definitions: lint-imports, eslint, tsc, the node tests and
    `reader check --run` are in the script, and so are the README's two commands and the notice."""
    commands = "\n".join(_commands(CI_RUN.read_text()))
    for check in (".venv/bin/ruff check .", ".venv/bin/mypy", ".venv/bin/lint-imports",
                  "npx eslint ", "npx tsc --noEmit", "node --test tests/js/", ".venv/bin/reader check --run",
                  ".venv/bin/python -m pytest", "./scripts/venv test", "./scripts/venv labs",
                  "reader build --verbose", "end_of_life"):
        assert check in commands, check
    assert "NO_MKDOCS_2_WARNING" not in commands
    readme = (REPO_ROOT / "README.md").read_text()
    assert "    ./scripts/venv test && .venv/bin/python -m pytest\n" in readme
