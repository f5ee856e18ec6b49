"""Each lab's notebook (reader/labs/notebook.py): generated from its module, committed up to date
in notebooks/ with the outputs of its run, pinning pins.toml's releases in its first cell, and run
top to bottom on this machine's CPU with its printed errors checked against the lab's references
and its outputs against the committed ones (numbers aside: what `reader notebooks --execute`
committed is what this run prints)."""

from __future__ import annotations

import ast
import fnmatch
import os
import re
import shutil
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from kernels import LABS as REGISTRY
from reader.children import run_notebook
from reader.cli import main as reader
from reader.labs.colab import NO_REPOSITORY, colab_url, github_url, origin_url, project_colab
from reader.labs.notebook import notebook_path
from reader.labs.outputs import has_outputs, printed
from reader.opening import built_commits

ROOT = Path(__file__).resolve().parents[1]
LABS = list(REGISTRY)

NUMBER = r"(\d\.\d\de[+-]\d\d)"
REFERENCES = {
    # lab: (the lines that print an error against a reference, how many, the lab's tolerance)
    "first_kernels": (rf"max abs error vs jnp {NUMBER}", 3, 1e-4),
    "tiled_matmul": (rf"max abs error vs jnp {NUMBER}", 3, 1e-3),
    "pipelining": (rf"max abs error vs jnp {NUMBER}", 1, 1e-3),
    "lowering_ladder": (rf"max abs error vs jnp {NUMBER}", 1, 1e-5),
    "finding_the_spill": (rf"max abs error vs jnp {NUMBER}", 1, 1e-3),
    "mosaic_gpu_matmul": (rf"max abs error vs jnp {NUMBER}", 2, 0.2),   # float16 outputs up to ~100
    "flash_attention": (rf"(?:vs jnp reference|vs jax's TPU kernel \(TPU interpreter\)|loop_kernel vs jnp) {NUMBER}",
                        6, 1e-5),
    "flash_attention_bwd": (rf"\b(?:o|dq|dk|dv) {NUMBER}", 8, 1e-5),
    "block_sparse": (rf"(?:vs dense masked reference|vs splash attention \(interpret\)) {NUMBER}", 2, 1e-5),
    "autotuned_op": (rf"max abs error of the op vs the jnp reference: {NUMBER}", 1, 1e-5),
    "ring_attention": (rf"(?:ppermute ring|in-kernel ring|in-kernel vs ppermute) {NUMBER}", 6, 1e-5),
    "reduce_scatter": (rf"max abs error vs jax\.lax\.psum(?:_scatter)? {NUMBER}", 2, 1e-5),
}
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def releases_of(setup: str) -> list[str]:
    """The `RELEASES` a notebook's setup cell installs."""
    for node in ast.walk(ast.parse(setup)):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "RELEASES" for t in node.targets):
            return list(ast.literal_eval(node.value))
    return []


def _notebook(name: str):
    return nbformat.read(ROOT / notebook_path(name), as_version=4)


def test_every_lab_has_a_notebook_and_a_reference_check():
    assert sorted(LABS) == sorted(REFERENCES) and len(LABS) == 12
    assert sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb")) == sorted(LABS)


def test_committed_notebooks_are_up_to_date(capsys):
    assert reader(["-C", str(ROOT), "notebooks", "--check"]) == 0, capsys.readouterr().err


def test_a_stale_or_stray_notebook_is_reported_and_regenerated(tmp_path, capsys):
    for name in ("kernels", "notebooks"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pins.toml", "pins.lock", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    lab = tmp_path / "kernels" / "tiled_matmul.py"
    lab.write_text(lab.read_text().replace("# %% The roofline of each block shape", "# %% The roofline"))
    (tmp_path / "notebooks" / "gone.ipynb").write_text("{}")
    assert reader(["-C", str(tmp_path), "notebooks", "--check"]) == 1
    err = capsys.readouterr().err
    assert "notebooks/tiled_matmul.ipynb: out of date" in err and "notebooks/gone.ipynb: no lab makes it" in err
    assert reader(["-C", str(tmp_path), "notebooks"]) == 0
    assert "1 without outputs: `reader notebooks --execute` runs them" in capsys.readouterr().out
    assert not (tmp_path / "notebooks" / "gone.ipynb").exists()
    changed = (tmp_path / "notebooks" / "tiled_matmul.ipynb").read_text()
    assert "## The roofline" in [c.source for c in nbformat.reads(changed, 4).cells]
    assert not has_outputs(changed)  # its old outputs are not its new inputs'
    kept = (tmp_path / "notebooks" / "pipelining.ipynb").read_text()
    assert kept == (ROOT / "notebooks" / "pipelining.ipynb").read_text() and has_outputs(kept)  # untouched
    assert reader(["-C", str(tmp_path), "notebooks", "--check"]) == 1
    assert capsys.readouterr().err == ("notebooks/tiled_matmul.ipynb: no outputs; run `reader notebooks --execute`"
                                       " and commit them\n")


def test_the_site_serves_the_committed_notebook_with_its_outputs_while_it_is_up_to_date(tmp_path):
    from reader.corpus import Project
    from reader.labs import load_labs
    from reader.labs.notebook import shipped

    for name in ("kernels", "notebooks"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pins.toml", "pins.lock", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    lab = tmp_path / "kernels" / "pipelining.py"
    lab.write_text(lab.read_text().replace("# %% ", "# %% Retitled: ", 1))
    served = shipped(tmp_path, load_labs(tmp_path), Project.load(tmp_path).pins)
    assert served["tiled_matmul"] == (ROOT / "notebooks" / "tiled_matmul.ipynb").read_text()
    assert has_outputs(served["tiled_matmul"])
    assert not has_outputs(served["pipelining"]) and "Retitled: " in served["pipelining"]  # generated now


def test_execute_runs_the_notebooks_without_outputs_and_writes_theirs(tmp_path, capsys):
    for name in ("kernels", "notebooks"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pins.toml", "pins.lock", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    lab = tmp_path / "kernels" / "pipelining.py"  # no other lab imports it
    first = re.search(r"^# %% (.+)$", lab.read_text(), re.MULTILINE).group(1)
    lab.write_text(lab.read_text().replace(f"# %% {first}", f"# %% {first}, retitled"))
    assert reader(["-C", str(tmp_path), "notebooks", "--execute", "nope"]) == 2
    assert "no lab makes notebooks/nope.ipynb" in capsys.readouterr().err
    assert reader(["-C", str(tmp_path), "notebooks", "--execute"]) == 0
    out = capsys.readouterr().out
    assert "ran notebooks/pipelining.ipynb in " in out and out.count("ran notebooks/") == 1, out
    assert out.rstrip().endswith(f"1 written, 0 removed, {len(LABS) - 1} up to date in notebooks/, 1 run"), out
    ran = nbformat.read(tmp_path / "notebooks" / "pipelining.ipynb", 4)
    assert f"## {first}, retitled" in [c.source for c in ran.cells]
    assert printed(ran) == printed(_notebook("pipelining"))  # what the committed run printed
    assert [c.execution_count for c in ran.cells if c.cell_type == "code"] == list(range(1, 1 + sum(
        c.cell_type == "code" for c in ran.cells)))
    assert all("execution" not in c.metadata for c in ran.cells)
    assert reader(["-C", str(tmp_path), "notebooks", "--check"]) == 0


@pytest.mark.parametrize("name", LABS)
def test_first_cell_installs_the_pinned_releases(name):
    pins = tomllib.loads((ROOT / "pins.toml").read_text())["pins"]
    releases = [pin["release"] for pin in pins.values()]
    first = _notebook(name).cells[0]
    assert first.cell_type == "code"
    installed = releases_of(first.source)
    assert set(releases) <= set(installed), (releases, installed)
    jax = next(r for r in releases if r.startswith("jax=="))
    assert f"jaxlib=={jax.partition('==')[2]}" in installed
    assert "jax[{chip}]" in first.source and 'print("installed:"' in first.source


class _Runtime:
    """What the setup cell sees of a runtime: its devices, its installed distributions and the
    requirements of the installed jax; and the commands it runs."""

    def __init__(self, monkeypatch, devices: list[str], dists: dict[str, str], jax_requires: list[str],
                 smi: str = ""):
        import glob
        import importlib.metadata
        import subprocess
        self.commands: list[list[str]] = []

        def run(command, **kwargs):
            self.commands.append(list(command))
            return subprocess.CompletedProcess(command, 0, smi, "")

        def version(dist):
            if dist not in dists:
                raise importlib.metadata.PackageNotFoundError(dist)
            return dists[dist]

        monkeypatch.delenv("COLAB_TPU_ADDR", raising=False)
        monkeypatch.setattr(glob, "glob", lambda pattern: fnmatch.filter(devices, pattern))
        monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/nvidia-smi" if smi and name == "nvidia-smi"
                            else None)
        monkeypatch.setattr(subprocess, "run", run)
        monkeypatch.setattr(importlib.metadata, "version", version)
        monkeypatch.setattr(importlib.metadata, "requires", lambda dist: jax_requires if dist == "jax" else [])

    def setup(self, lab: str, capsys) -> tuple[list[list[str]], str]:
        """Run the committed notebook's setup cell here: the pip commands it ran, what it printed."""
        exec(compile(_notebook(lab).cells[0].source, f"{lab} setup", "exec"), {"__name__": "setup"})
        pips = [c for c in self.commands if c[1:4] == ["-m", "pip", "install"]]
        return pips, capsys.readouterr().out


PINS = dict(pin["release"].split("==") for pin in tomllib.loads((ROOT / "pins.toml").read_text())["pins"].values())
JAX, TOKAMAX = PINS["jax"], PINS["tokamax"]
PINNED = {"jax": JAX, "jaxlib": JAX, "tokamax": TOKAMAX}
JAX_REQUIRES = [f'jaxlib<={JAX},>={JAX}; extra == "tpu"', 'libtpu==0.0.50.*; extra == "tpu"',
                f'jax-cuda12-plugin[with-cuda]<={JAX},>={JAX}; extra == "cuda12"']
"""The installed jax's requirements, as jax 0.12.0.1's metadata words them (`importlib.metadata.requires`)."""


@pytest.mark.parametrize("dists, wanted", [
    ({"jax": "0.7.2", "jaxlib": "0.7.2", "libtpu": "0.0.21"}, [f"jax[tpu]=={JAX}", f"jaxlib=={JAX}",
                                                            f"tokamax=={TOKAMAX}"]),
    ({**PINNED, "libtpu": "0.0.21"}, [f"jax[tpu]=={JAX}"]),   # the pinned jax beside another libtpu
    ({**PINNED}, [f"jax[tpu]=={JAX}"]),                       # no libtpu at all
    ({**PINNED, "libtpu": "0.0.50.1"}, []),
], ids=["colab-preinstalled", "libtpu-of-another-jax", "no-libtpu", "all-pinned"])
def test_the_setup_cell_on_a_tpu_runtime_installs_the_pinned_jax_with_its_tpu_extra(monkeypatch, capsys, dists,
                                                                                  wanted):
    import sys
    runtime = _Runtime(monkeypatch, ["/dev/accel0"], dists, JAX_REQUIRES)
    pips, out = runtime.setup("first_kernels", capsys)
    assert pips == ([[sys.executable, "-m", "pip", "install", "-q", *wanted]] if wanted else [])
    assert "runtime: tpu: jax[tpu] runs the kernels built for it natively" in out


@pytest.mark.parametrize("devices, smi, wanted", [
    ([], "", f"jax=={JAX}"),
    (["/dev/vfio/0"], "", f"jax[tpu]=={JAX}"),   # a TPU whose chips are VFIO devices (v5p, v6e)
    ([], "| NVIDIA-SMI 550.54  Driver Version: 550.54  CUDA Version: 12.4 |", f"jax[cuda12]=={JAX}"),
], ids=["cpu", "tpu-vfio", "gpu"])
def test_the_setup_cell_installs_the_jax_of_the_runtimes_chip(monkeypatch, capsys, devices, smi, wanted):
    runtime = _Runtime(monkeypatch, devices, {}, JAX_REQUIRES, smi)
    pips, _ = runtime.setup("finding_the_spill", capsys)
    assert len(pips) == 1 and pips[0][5] == wanted and f"jaxlib=={JAX}" in pips[0]


def test_a_lab_importing_triton_installs_the_labs_extra_pin():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["labs"]
    triton = next(r for r in extra if r.startswith("triton=="))
    assert triton in releases_of(_notebook("finding_the_spill").cells[0].source)
    assert not any(r.startswith("triton") for r in releases_of(_notebook("first_kernels").cells[0].source))


@pytest.mark.parametrize("name", LABS)
def test_cells_follow_the_lab_sections_and_hold_its_code_once(name):
    nb, text = _notebook(name), (ROOT / "kernels" / f"{name}.py").read_text()
    nbformat.validate(nb)
    titles = re.findall(r"^# %% (.+)$", text, re.MULTILINE)
    headings = [c.source[3:].split("\n")[0] for c in nb.cells
                if c.cell_type == "markdown" and c.source.startswith("## ")]
    assert headings[0] == "The lab's helpers" and headings[1:-1] == titles and headings[-1] == "Run it"
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code" and "%%writefile" not in c.source)
    defined = [n.name for n in ast.parse(text).body if isinstance(n, ast.FunctionDef | ast.ClassDef)]
    assert all(len(re.findall(rf"^(?:def|class) {d}\b", code, re.MULTILINE)) == 1 for d in defined), name
    assert '__name__ == "__main__"' not in code and ast.get_docstring(ast.parse(text)).splitlines()[0] not in code
    assert nb.cells[-1].source == "assert main([]) == 0"


def test_helpers_written_beside_the_notebook_are_the_project_modules():
    nb = _notebook("ring_attention")
    written = {c.source.splitlines()[0].split()[1]: c.source.split("\n", 1)[1]
               for c in nb.cells if c.source.startswith("%%writefile")}
    assert sorted(written) == ["lab_support/kernels/__init__.py", "lab_support/kernels/_platform.py",
                               "lab_support/kernels/_record.py", "lab_support/kernels/_svg.py",
                               "lab_support/kernels/flash_attention.py"]
    for path, source in written.items():
        assert source == (ROOT / path.removeprefix("lab_support/")).read_text().rstrip()


def test_colab_url_shape():
    sha = "0123456789abcdef0123456789abcdef01234567"
    assert colab_url("https://github.com/owner/reader", sha, "pipelining") == (
        f"https://colab.research.google.com/github/owner/reader/blob/{sha}/notebooks/pipelining.ipynb")
    assert colab_url("https://github.com/owner/reader.git/", sha, "x").startswith(
        "https://colab.research.google.com/github/owner/reader/blob/")
    assert colab_url("https://gitlab.com/owner/reader", sha, "x") == ""
    assert colab_url("https://github.com/owner/reader", "HEAD", "x") == ""
    assert colab_url("", sha, "x") == ""


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """Every notebook run top to bottom on a fresh kernel (this machine's CPU: interpret mode),
    as many at once as the machine has cores, at most 4 (each kernel holds its own jax):
    (executed notebook or None, seconds, error)."""
    def one(name: str):
        try:
            nb, seconds = run_notebook(ROOT / notebook_path(name), tmp_path_factory.mktemp(name))
            return nb, seconds, ""
        except Exception as e:  # a failing cell: reported by the lab's own test below
            return None, 0.0, f"{type(e).__name__}: {str(e)[-3000:]}"

    with ThreadPoolExecutor(min(4, os.cpu_count() or 1)) as pool:
        runs = dict(zip(LABS, pool.map(one, LABS), strict=True))
    print("\nnotebook CPU run times: " + ", ".join(f"{n} {s:.1f} s" for n, (_, s, _) in runs.items()))
    return runs


@pytest.mark.parametrize("name", LABS)
def test_the_committed_outputs_are_what_this_run_prints(executed, name):
    nb, _, error = executed[name]
    assert not error, error
    committed = _notebook(name)
    assert has_outputs(nbformat.writes(committed)), f"notebooks/{name}.ipynb: run `reader notebooks --execute`"
    assert printed(committed) == printed(nb), f"notebooks/{name}.ipynb: run `reader notebooks --execute {name}`"


@pytest.mark.parametrize("name", LABS)
def test_notebook_runs_on_a_cpu_and_matches_the_lab_references(executed, name):
    nb, seconds, error = executed[name]
    assert not error, error
    out = ANSI.sub("", "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream"))
    setup = "".join(o.get("text", "") for o in nb.cells[0].outputs)
    assert "runtime: no TPU or GPU found, so the kernels run in interpret mode on the CPU" in setup
    assert re.search(r"(interpret mode|TPU interpreter|GPU interpreter)[^\n]*, since ", out), out[:500]  # where, and why
    pattern, count, tolerance = REFERENCES[name]
    errors = [float(x) for x in re.findall(pattern, out)]
    assert len(errors) == count, (pattern, out[-2000:])
    assert all(e <= tolerance for e in errors), errors
    print(f"{name}: {seconds:.1f} s")


def _git(root: Path, *args: str) -> str:
    import subprocess

    return subprocess.run(["git", "-C", str(root), "-c", "user.name=r", "-c", "user.email=r@example.invalid", *args],
                          check=True, capture_output=True, text=True).stdout.strip()


def _checkout(tmp_path: Path, commits: int = 2) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    _git(root, "init", "-q")
    for n in range(commits):
        (root / "f.txt").write_text(str(n))
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", f"commit {n}")
    return root


def test_the_colab_link_needs_a_github_repository_and_says_how_to_get_one(tmp_path):
    assert github_url("git@github.com:owner/reader.git") == "https://github.com/owner/reader"
    assert github_url("ssh://git@github.com/owner/reader") == "https://github.com/owner/reader"
    assert github_url("https://github.com/owner/reader.git") == "https://github.com/owner/reader"
    assert github_url("https://gitlab.com/owner/reader.git") == ""
    bare = tmp_path / "bare"
    bare.mkdir()
    assert project_colab(bare, built_commits, {}) == ("", "", NO_REPOSITORY)  # nothing says where
    assert "READER_REPO_URL=https://github.com/OWNER/NAME" in NO_REPOSITORY
    root = _checkout(tmp_path)
    head = _git(root, "rev-parse", "HEAD")
    assert project_colab(root, built_commits, {}) == ("", "", NO_REPOSITORY)  # a checkout without a remote
    assert project_colab(root, built_commits, {"READER_REPO_URL": "https://github.com/o/r"}) == ("https://github.com/o/r", head, "")
    actions = {"GITHUB_REPOSITORY": "o/ci", "GITHUB_SHA": "a" * 40, "GITHUB_SERVER_URL": "https://github.com"}
    assert project_colab(root, built_commits, actions) == ("https://github.com/o/ci", "a" * 40, "")
    assert project_colab(bare, built_commits, {"READER_REPO_URL": "https://github.com/o/r"}).note.startswith("this build is not a commit")
    assert "not on GitHub" in project_colab(root, built_commits, {"READER_REPO_URL": "https://gitlab.com/o/r"}).note


def test_the_colab_link_follows_origin_at_the_newest_commit_pushed(tmp_path):
    root = _checkout(tmp_path, commits=3)
    head, older = _git(root, "rev-parse", "HEAD"), _git(root, "rev-parse", "HEAD~1")
    _git(root, "remote", "add", "origin", "git@github.com:owner/pallas-reader.git")
    assert origin_url(root) == "git@github.com:owner/pallas-reader.git"
    assert project_colab(root, built_commits, {}) == ("https://github.com/owner/pallas-reader", head, "")  # no remote branch known
    _git(root, "update-ref", "refs/remotes/origin/main", older)  # pushed up to HEAD~1
    assert project_colab(root, built_commits, {}) == ("https://github.com/owner/pallas-reader", older,
                                       f"as of {older[:7]}, the newest commit of this build on GitHub")
    _git(root, "update-ref", "refs/remotes/origin/main", head)
    assert project_colab(root, built_commits, {}).commit == head
    _git(root, "worktree", "add", "-q", str(tmp_path / "wt"))  # a worktree reads the shared config
    assert origin_url(tmp_path / "wt") == "git@github.com:owner/pallas-reader.git"
    assert origin_url(tmp_path / "wt" / "sub") == "git@github.com:owner/pallas-reader.git"
