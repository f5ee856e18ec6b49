"""The site's bundles minified by esbuild (npm's, which `npm ci` installs from package-lock.json
into node_modules/), each with its source map: an index map whose sections are its parts' own
maps (with their sources' text), so that a browser's tools show each part as written. Without
esbuild the bundles stay as written and the build's notes say how to get it."""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from reader.errors import ReaderError

ESBUILD = Path("node_modules") / ".bin" / "esbuild"
"""esbuild, under the project's root (package.json pins it)."""
NOT_MINIFIED = ("the site's scripts and stylesheets are not minified: esbuild is not installed "
                "(npm ci, in the project, installs it from package-lock.json)")


class Part(NamedTuple):
    """One file of a bundle: its name in the source map (`docs/assets/search.js`) and its path."""

    name: str
    path: Path


class Minified(NamedTuple):
    code: bytes
    """The parts minified, in order, ending with the comment that names the map."""
    map: bytes
    """The index source map (version 3, `sections`)."""


def esbuild(root: Path) -> Path | None:
    """esbuild, when installed: the project's (`root`), else that of the checkout reader runs from."""
    for folder in (root, Path(__file__).resolve().parent.parent):
        if (folder / ESBUILD).is_file():
            return folder / ESBUILD
    return None


def minify(tool: Path, dest: str, parts: Sequence[Part]) -> Minified:
    """The bundle `dest` (`assets/bundle.js` or `.css`) made of `parts` minified, one esbuild run
    for them all, and its map (named `dest`'s name plus `.map`, beside it)."""
    css = dest.endswith(".css")
    name = dest.rsplit("/", 1)[-1]
    with tempfile.TemporaryDirectory(prefix="reader-minify-") as tmp:
        inputs = []
        for i, part in enumerate(parts):  # numbered copies: one output each, whatever their names
            copy = Path(tmp) / "in" / f"{i}{part.path.suffix}"
            copy.parent.mkdir(exist_ok=True)
            copy.write_bytes(part.path.read_bytes())
            inputs.append(copy)
        out = Path(tmp) / "out"
        done = subprocess.run([str(tool), *map(str, inputs), "--minify", "--sourcemap=external", "--charset=utf8",
                               "--legal-comments=none", "--log-level=error", f"--outdir={out}"],
                              capture_output=True, text=True, check=False)
        if done.returncode:
            raise ReaderError(f"esbuild could not minify {dest}: {done.stderr.strip() or done.stdout.strip()}")
        return _joined(name, css, [((out / p.name).read_text(encoding="utf-8"),
                                    json.loads((out / f"{p.name}.map").read_text(encoding="utf-8")), part.name)
                                   for p, part in zip(inputs, parts, strict=True)])


def _joined(name: str, css: bool, minified: Sequence[tuple[str, dict, str]]) -> Minified:
    """The minified parts (code, map, source name) joined in order, with their index map."""
    sep = "\n" if css else "\n;\n"  # a script's last statement ended
    code, sections, line = [], [], 0
    for text, part_map, source in minified:
        text = _without_map_comment(text).rstrip("\n")
        part_map["sources"] = [source] * len(part_map.get("sources", [])) or [source]
        sections.append({"offset": {"line": line, "column": 0}, "map": part_map})
        code.append(text)
        line += text.count("\n") + sep.count("\n")
    comment = f"/*# sourceMappingURL={name}.map */" if css else f"//# sourceMappingURL={name}.map"
    index = {"version": 3, "file": name, "sections": sections}
    return Minified((sep.join(code) + "\n" + comment + "\n").encode(),
                    json.dumps(index, separators=(",", ":"), ensure_ascii=False).encode())


def _without_map_comment(text: str) -> str:
    lines = text.rstrip("\n").split("\n")
    if lines and "sourceMappingURL=" in lines[-1]:
        lines.pop()
    return "\n".join(lines)
