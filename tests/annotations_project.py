"""Builds small reader projects in tmp_path for the annotation tests: pins, lock, a filled cache."""

from __future__ import annotations

from pathlib import Path

from reader.cache import Cache, blob_sha

FIXTURES = Path(__file__).parent / "fixtures"
COMMITS = {"0.10.1": "619764c15117fbefc4ba13ab941871cb514c23f6",
           "0.10.2": "990e6a0b84138346e6a38785412f36356e0e5dc3"}
PALLAS_CALL = "jax/_src/pallas/pallas_call.py"
FUSER_UTILS = "jax/_src/pallas/fuser/fuser_utils.py"


def fixture(name: str, version: str) -> str:
    return (FIXTURES / f"{name}_{version}.py").read_text()


def release_files(version: str) -> dict[str, str]:
    """The two fixture files at their pinned paths, as jax `version` has them."""
    return {PALLAS_CALL: fixture("pallas_call", version),
            FUSER_UTILS: fixture("fuser_utils", version)}


def pin_project(root: Path, cache_root: Path, version: str, files: dict[str, str] | None = None,
                locked_only: tuple[str, ...] = ()) -> None:
    """Write pins.toml and pins.lock for jax `version` and put its files into the cache.
    `locked_only` paths are in the lock but served by no source."""
    files = release_files(version) if files is None else files
    commit = COMMITS[version]
    cache = Cache(cache_root)
    shas = {path: cache.put_blob(text.encode()) for path, text in files.items()}
    listed = dict(shas)
    for path in locked_only:
        shas[path] = blob_sha(path.encode())
    cache.write_manifest(cache.manifest_path("jax", commit, shas), {
        "commit": commit, "files": listed, "missing": list(locked_only), "sources": ["test"]})
    root.mkdir(parents=True, exist_ok=True)
    (root / "pins.toml").write_text(
        f'[pins.jax]\nrepo = "https://github.com/jax-ml/jax"\ncommit = "{commit}"\n'
        f'tag = "jax-v{version}"\nrelease = "jax=={version}"\n'
        'paths = ["jax/_src/pallas", "jax/experimental/pallas"]\n')
    lock = "".join(f'"{p}" = "{s}"\n' for p, s in sorted(shas.items()))
    (root / "pins.lock").write_text(f'[jax]\ncommit = "{commit}"\n\n[jax.files]\n{lock}')


def write_annotation(root: Path, slug: str, text: str) -> Path:
    path = root / "annotations" / f"{slug}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def write_kernel(root: Path, name: str) -> None:
    path = root / "kernels" / f"{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('"""A lab."""\n')
