"""The versions derived results are keyed by: reader's own code and the libraries that shape its
results (`code_version`), and any installed distribution's (`installed_versions`)."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import re
import sys
from collections.abc import Sequence
from pathlib import Path

SHAPING = ("Python", "libcst", "ruamel.yaml", "Pygments", "Markdown", "pymdown-extensions", "nh3",
           "Jinja2", "MarkupSafe", "mkdocs", "mkdocs-material", "selectolax")
"""What shapes reader's results and pages besides its own code and inputs: the interpreter (its
`ast`) and the libraries that parse, highlight, convert Markdown, sanitise, template, lay out and
read HTML back.
Their versions are part of `code_version()`, so every cache key names them."""


@functools.cache
def code_version() -> str:
    """A hash of reader's own source and of `library_versions()`: derived results are keyed by the
    code that produced them, an upgraded library included."""
    package = Path(__file__).resolve().parent  # reader/
    h = hashlib.sha1(json.dumps(library_versions(), sort_keys=True).encode())
    for path in sorted(package.rglob("*")):
        if path.suffix in {".py", ".j2", ".json", ".css", ".js"} and path.is_file():
            h.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.cache
def library_versions() -> dict[str, str]:
    """The version of each of `SHAPING` as installed ("absent" if not)."""
    return installed_versions(SHAPING)


def installed_versions(names: Sequence[str]) -> dict[str, str]:
    """The version of each distribution as installed ("absent" if not; "Python": the
    interpreter's), read from the `.dist-info` folder names on `sys.path`, the first found winning
    as for an import (`importlib.metadata` takes ~20 ms a name here)."""
    wanted = {_canonical(name): name for name in names}
    found = {"Python": f"{platform.python_implementation()} {platform.python_version()}"}
    for entry in sys.path:
        try:
            folders = os.listdir(entry or ".")
        except OSError:
            continue
        for folder in folders:
            stem = folder.removesuffix(".dist-info")
            dist, _, version = stem.partition("-")
            name = wanted.get(_canonical(dist))
            if stem != folder and name and name not in found:
                found[name] = version
    return {name: found.get(name, "absent") for name in names}
