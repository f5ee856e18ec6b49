"""Runs labs' `artifacts(out_dir)` in a child process (jax imported once): `python -m reader.labs.child`.

Usage: `python -m reader.labs.child OUT_DIR NAME...`; writes `OUT_DIR/manifest.json`
mapping each lab to the files it wrote (relative to `OUT_DIR/NAME`) or to the error it raised.
A lab with `lowerings()` also gets `lowered.json` (reader/ir; reader/render/ir/lowered.py reads it); the
name `canonical` writes the pinned kernels the articles read, one JSON each (reader/ir/canonical.py).
"""

from __future__ import annotations

import importlib
import json
import sys
import traceback
from pathlib import Path


def run(out_dir: Path, names: list[str]) -> dict[str, dict[str, object]]:
    manifest: dict[str, dict[str, object]] = {}
    for name in names:
        target = out_dir / name
        try:
            if name == CANONICAL:
                from reader.ir import canonical
                target.mkdir(parents=True, exist_ok=True)
                paths = [_write(target / f"{kernel}.json", doc) for kernel, doc in canonical.documents(Path.cwd())]
                manifest[name] = {"files": [Path(p).name for p in paths], "error": ""}
                continue
            module = importlib.import_module(f"kernels.{name}")
            paths = list(module.artifacts(target)) if hasattr(module, "artifacts") else []
            if hasattr(module, "lowerings"):
                paths.append(_lowered(module, target))
            _project_relative(paths, Path.cwd())
            manifest[name] = {"files": [Path(p).resolve().relative_to(target.resolve()).as_posix()
                                        for p in paths], "error": ""}
        except Exception as e:  # a lab's failure is reported on its page, not fatal to the others
            last = traceback.format_exception_only(type(e), e)[-1].strip()
            manifest[name] = {"files": [], "error": last, "line": _line_in_lab(e, name)}
    return manifest


CANONICAL = "canonical"
"""The pseudo-lab whose artifacts are the canonical kernels' lowered modules."""


def _write(path: Path, doc: dict[str, object]) -> Path:
    """`doc` as compact JSON at `path`."""
    path.write_text(json.dumps(doc, separators=(",", ":")))
    return path


def _lowered(module: object, target: Path) -> Path:
    """`target/lowered.json`: every module the lab's `lowerings()` declares (reader/ir/lower.py)."""
    from reader.ir import LAB_FILE, lower
    doc = lower.document(lower.lower_all(module.lowerings(), lower.locator(Path.cwd())))  # type: ignore[attr-defined]
    target.mkdir(parents=True, exist_ok=True)
    return _write(target / LAB_FILE, doc)


def _project_relative(paths: list[Path], root: Path) -> None:
    """Rewrite the project's absolute path out of what a lab wrote (MLIR locations name the
    kernel's file: `/home/x/reader/kernels/lab.py:42:25` becomes `kernels/lab.py:42:25`), so that
    the site is the same wherever the project is checked out."""
    prefix = f"{root.resolve()}/".encode()
    for path in paths:
        data = Path(path).read_bytes()
        if prefix in data:
            Path(path).write_bytes(data.replace(prefix, b""))


def _line_in_lab(e: BaseException, name: str) -> int | None:
    """The line of the lab's own file nearest the raise (None when it raised elsewhere only)."""
    own = (Path("kernels") / f"{name}.py").resolve()
    lines = [f.lineno for f in traceback.extract_tb(e.__traceback__) if Path(f.filename).resolve() == own]
    return lines[-1] if lines else None


def main(argv: list[str]) -> int:
    out_dir = Path(argv[0])
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "manifest.json").write_text(json.dumps(run(out_dir, argv[1:]), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
