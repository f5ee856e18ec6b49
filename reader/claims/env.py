"""The Python environment claims run in: the running interpreter when it has the pinned releases
installed, else a virtual environment reader makes under the cache (`envs/`) with pip."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from reader.cache import Cache
from reader.errors import InputError, Location
from reader.pins import Pin
from reader.progress import say

CHILD = Path(__file__).with_name("child.py")
COMPANIONS = {"jax": ("jaxlib",)}
"""Distributions installed with a pinned release whose version a claim's outcome depends on."""


class Installed(NamedTuple):
    """A distribution and the version of it installed."""

    distribution: str
    version: str


@dataclass(frozen=True)
class Env:
    """A Python that has the pinned releases, and what is installed there."""

    python: str
    versions: tuple[Installed, ...]
    """The pinned releases and their companions, and `python`."""
    label: str
    """`jax 0.12.0.1 / tokamax 0.0.17`: the releases, as pages and findings name them."""

    def fingerprint(self) -> str:
        return json.dumps(self.versions)


def releases(pins: Mapping[str, Pin]) -> tuple[str, ...]:
    """The pip requirements (`jax==0.12.0.1`) of the pins that name a release, in pin order."""
    return tuple(p.release for p in pins.values() if p.release)


def label(pins: Mapping[str, Pin]) -> str:
    """`jax 0.12.0.1 / tokamax 0.0.17` from the pins' releases."""
    return _label(releases(pins))


def _label(reqs: tuple[str, ...]) -> str:
    return " / ".join(r.replace("==", " ") for r in reqs) or "the pins (no release named)"


def _wanted(reqs: tuple[str, ...]) -> dict[str, str]:
    return dict(r.split("==", 1) for r in reqs if "==" in r)


def _names(reqs: tuple[str, ...]) -> list[str]:
    names = list(_wanted(reqs))
    return names + [c for n in names for c in COMPANIONS.get(n, ())]


def _here(names: list[str]) -> dict[str, str]:
    # imported here: 25-60 ms, which a build that checks no claim never needs
    from importlib import metadata

    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = ""
    return out


def _there(python: str, names: list[str]) -> dict[str, str]:
    done = subprocess.run([python, "-I", str(CHILD), "--versions", *names], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


def _env(python: str, found: dict[str, str], reqs: tuple[str, ...], py: str) -> Env:
    versions = (*(Installed(*v) for v in sorted(found.items())), Installed("python", py))
    return Env(python, versions, _label(reqs))


def environment(pins: Mapping[str, Pin], cache: Cache) -> Env:
    """An environment with every pin's release installed: this interpreter when it has them,
    else a venv under the cache, made once (pip honours its own settings: `PIP_INDEX_URL`,
    `PIP_FIND_LINKS`, `PIP_NO_INDEX`)."""
    found = installed(pins, cache)
    if found is not None:
        return found
    reqs = releases(pins)
    folder = _folder(reqs, cache)
    with cache.locked(f"env-{folder.name}"):
        if not (folder / ".complete").is_file():
            say(f"making a Python environment with {', '.join(reqs)} ({folder})")
            _make(folder, reqs)
    return _checked(folder, reqs)


def installed(pins: Mapping[str, Pin], cache: Cache) -> Env | None:
    """The environment `environment` gives when it is there already (None when a venv would have
    to be made): what the outcomes kept in the cache are keyed by."""
    reqs = releases(pins)
    here = _here(_names(reqs))
    if all(here[n] == v for n, v in _wanted(reqs).items()):
        return _env(sys.executable, here, reqs, _py())
    folder = _folder(reqs, cache)
    return _checked(folder, reqs) if (folder / ".complete").is_file() else None


def _py() -> str:
    return ".".join(map(str, sys.version_info[:3]))


def _folder(reqs: tuple[str, ...], cache: Cache) -> Path:
    key = hashlib.sha1(json.dumps([reqs, _py(), sys.platform]).encode()).hexdigest()[:16]
    return cache.root / "envs" / key


def _checked(folder: Path, reqs: tuple[str, ...]) -> Env:
    """The venv at `folder`, which must have `reqs` installed."""
    names = _names(reqs)
    python = folder / "bin" / "python"
    found = _there(str(python), names)
    wrong = {n: found.get(n, "") for n, v in _wanted(reqs).items() if found.get(n) != v}
    if wrong:
        raise InputError(f"the environment {folder} has {wrong} installed, not {', '.join(reqs)}",
                         Location("pins.toml"), f"remove {folder} and run again")
    return _env(str(python), found, reqs, _py())


def _make(folder: Path, reqs: tuple[str, ...]) -> None:
    """A venv at `folder` with `reqs` installed by this interpreter's pip, moved into place whole."""
    temp = folder.with_name(f"{folder.name}.tmp-{os.getpid()}")
    shutil.rmtree(temp, ignore_errors=True)
    try:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(temp)], check=True,
                       capture_output=True)
        done = subprocess.run([sys.executable, "-m", "pip", "--python", str(temp / "bin" / "python"),
                               "install", "--disable-pip-version-check", "--quiet", *reqs],
                              capture_output=True, text=True)
        if done.returncode:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise InputError(f"pip cannot install {', '.join(reqs)}: {' '.join(tail)}",
                             Location("pins.toml"), "check the pins' `release` and the package "
                             "index (PIP_INDEX_URL)")
        (temp / ".complete").write_text(json.dumps(reqs))
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(temp, folder)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
