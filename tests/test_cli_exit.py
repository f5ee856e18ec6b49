"""How the program ends (`reader.cli.end`): the atexit handlers run and the output is flushed, the
interpreter's teardown is skipped, and the exit code, the output and the files are those of `main`."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.small_project import REPO_ROOT, Small, build_small, reader, tree_digest


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Small:
    return build_small(tmp_path_factory.mktemp("small"))


@pytest.fixture
def small(built: Small, tmp_path: Path) -> Small:
    return built.copy(tmp_path)


def test_a_build_in_a_child_process_writes_the_same_site_and_exits_0(small):
    done = reader(small, "build", "--site", "again")  # forked workers: joined at the exit
    assert done.returncode == 0, done.stderr
    built, notes = done.stdout.splitlines()[-2:]  # the last lines whole: flushed before the exit
    assert built.startswith("built ") and notes.endswith("reader build --verbose lists them")
    assert tree_digest(small.root / "again") == tree_digest(small.root / "site")
    assert not list(small.root.glob(".again-*"))  # no temporary folder left


def test_a_failed_build_in_a_child_process_exits_2_with_its_error_and_keeps_the_site(small):
    before = tree_digest(small.root / "site")
    (small.root / "annotations" / "tour.yaml").write_text("notes: [unclosed\n")
    done = reader(small, "build")
    assert done.returncode == 2
    assert done.stderr.startswith("reader: error: ") and "tour.yaml" in done.stderr
    assert tree_digest(small.root / "site") == before


def test_the_program_runs_the_atexit_handlers_and_skips_the_teardown(tmp_path):
    script = textwrap.dedent(f"""
        import atexit, sys
        from reader.cli import entry

        class Torn:
            def __del__(self):
                print("torn down")

        kept = Torn()
        atexit.register(print, "atexit ran")
        print("buffered, not flushed", end="")
        sys.argv = ["reader", "-C", {str(tmp_path)!r}, "build"]
        entry()
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, env={"PYTHONPATH": str(REPO_ROOT)})
    assert done.returncode == 2, done.stderr  # no mkdocs.yml: main's code for it
    assert done.stderr == f"reader: error: {tmp_path}/mkdocs.yml: mkdocs.yml not found; run reader " \
                          "build from the project root (or pass -C DIR)\n"
    assert done.stdout == "buffered, not flushedatexit ran\n"  # not "torn down": no teardown


def test_a_profiled_run_ends_normally_so_the_profiler_writes_its_results(tmp_path):
    out = tmp_path / "run.prof"
    done = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "reader",
                           "-C", str(tmp_path), "build"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, env={"PYTHONPATH": str(REPO_ROOT)})
    assert "mkdocs.yml not found" in done.stderr  # main ran (cProfile exits 0 after it)
    assert out.is_file() and out.stat().st_size > 0, done.stderr  # not skipped by os._exit
