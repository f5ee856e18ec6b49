"""The GitHub workflows: the Pages deploy builds the site on every push to main and publishes it
with the standard pair of actions, READER_SITE_URL set from the Pages site's URL."""

from __future__ import annotations

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
