"""requirements.lock pins every dependency pyproject.toml names, at a version it allows, so that
scripts/venv installs the same packages on every machine (scripts/lock rewrites it)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def locked() -> dict[str, list[tuple[str, str]]]:
    """Each locked package: its (version, marker) lines (a universal lock may list one twice)."""
    pins: dict[str, list[tuple[str, str]]] = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.\-]+)==([^ ;]+)\s*(?:;\s*(.*))?$", line)
        if m:
            pins.setdefault(canonicalize_name(m[1]), []).append((m[2], m[3] or ""))
    return pins


def requirements(*extras: str) -> list[Requirement]:
    """The requirements of reader and of the named extras (all of them when none is named)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = list(project["dependencies"])
    for extra, reqs in project["optional-dependencies"].items():
        if not extras or extra in extras:
            names += [r for r in reqs if not r.startswith("reader[")]
    return [Requirement(r) for r in names]


def test_every_requirement_is_locked_at_an_allowed_version() -> None:
    pins = locked()
    assert len(pins) > 50, "the lock names too few packages: rewrite it with scripts/lock"
    for req in requirements():
        versions = pins.get(canonicalize_name(req.name))
        assert versions, f"{req.name} is not in requirements.lock: run scripts/lock"
        for version, _ in versions:
            assert req.specifier.contains(version, prereleases=True), (
                f"requirements.lock has {req.name}=={version}, pyproject.toml wants {req}: "
                "run scripts/lock")


def test_the_installed_packages_are_the_locked_ones() -> None:
    from importlib.metadata import version

    pins = locked()
    for req in requirements("labs", "test"):  # what `./scripts/venv test` installs
        if req.marker is not None and not req.marker.evaluate():
            continue
        want = {v for v, _ in pins[canonicalize_name(req.name)]}
        assert version(req.name) in want, (
            f"{req.name} {version(req.name)} is installed, the lock has {sorted(want)}: "
            "run ./scripts/venv again")


def _venv_script(tmp: Path, extras: str, tools: tuple[str, ...]) -> str:
    """What `scripts/venv EXTRAS` prints on stderr where PATH has only `tools` (and dirname), in an
    existing venv whose pip installs nothing (this Python, a no-op pip)."""
    import os
    import shutil
    import subprocess
    import sys

    venv, path = tmp / "venv", tmp / "path"
    (venv / "bin").mkdir(parents=True)
    path.mkdir()
    (venv / "bin" / "python").symlink_to(sys.executable)
    (venv / "bin" / "pip").write_text("#!/bin/sh\nexit 0\n")
    (venv / "bin" / "pip").chmod(0o755)
    for tool in ("dirname", *tools):
        (path / tool).symlink_to(shutil.which(tool) or "/bin/true")
    done = subprocess.run([shutil.which("bash") or "bash", str(ROOT / "scripts" / "venv"), extras], capture_output=True, text=True,
                          env={**os.environ, "PATH": str(path), "VENV": str(venv), "PYTHON": sys.executable},
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_scripts_venv_test_says_how_to_get_the_browser_when_it_is_missing(tmp_path):
    missing = _venv_script(tmp_path / "a", "test", ())
    assert "Chromium or its driver is missing, so the browser tests will skip" in missing
    assert "apt-get install chromium chromium-driver" in missing
    assert "Chromium" not in _venv_script(tmp_path / "b", "test", ("chromium", "chromedriver"))
    assert "Chromium" not in _venv_script(tmp_path / "c", "labs", ())
