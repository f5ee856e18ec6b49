"""A lab that raises fails `reader build` (the old site kept), or with `--keep-going` is built
with its page saying it failed and the command naming it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from reader.cli import main
from reader.errors import LabError
from reader.site import build_site
from tests.test_render_labs import REGISTRY, isolated_kernels  # noqa: F401 (autouse)
from tests.test_site import TRACK, site_project

LABS = '(Lab("fine", "Fine", "LAB·0.1", 1), Lab("broken", "Broken", "LAB·0.2", 1))'
FINE = '''"""LAB·0.1 · Fine: writes one listing."""


def artifacts(out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "fine.txt").write_text("ran\\n")
    return [out_dir / "fine.txt"]
'''
BROKEN = '''"""LAB·0.2 · Broken."""


def artifacts(out_dir):
    raise RuntimeError("no chip here")
'''


@pytest.fixture
def project(tmp_path: Path, cache) -> Path:
    """The small project of test_site.py with two labs, both running for now."""
    root = site_project(tmp_path, TRACK.replace("lab: not_a_lab", "lab: broken"))
    (root / "kernels").mkdir()
    (root / "kernels/__init__.py").write_text(
        REGISTRY.replace(REGISTRY.split("LABS = {lab.name: lab for lab in ")[1].split("}")[0], LABS))
    (root / "kernels/fine.py").write_text(FINE)
    (root / "kernels/broken.py").write_text(FINE.replace("0.1 · Fine", "0.2 · Broken"))
    return root


def _break(root: Path) -> None:
    (root / "kernels/broken.py").write_text(BROKEN)


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_a_failing_lab_fails_the_build_and_keeps_the_old_site(project):
    build_site(project, jobs=1)
    before = _tree(project / "site")
    assert "This lab failed" not in (project / "site/labs/broken.html").read_text()
    _break(project)
    with pytest.raises(LabError) as failed:
        build_site(project, jobs=1)
    assert str(failed.value.location) == "kernels/broken.py:5"  # the line that raised
    assert "lab 'broken' failed: RuntimeError: no chip here" in str(failed.value)
    assert "--keep-going" in failed.value.hint and failed.value.exit_code == 1
    assert _tree(project / "site") == before
    assert not list(project.glob(".site-*"))


def test_keep_going_builds_the_site_and_the_page_says_the_lab_failed(project):
    _break(project)
    report = build_site(project, jobs=1, keep_going=True)
    assert [str(f.location) for f in report.failures] == ["kernels/broken.py:5"]
    broken = (project / "site/labs/broken.html").read_text()
    assert "This lab failed when the site was built" in broken
    assert "RuntimeError: no chip here" in broken and "kernels/broken.py:5" in broken
    fine = (project / "site/labs/fine.html").read_text()
    assert "This lab failed" not in fine and "fine.txt" in fine


def test_several_failed_labs_are_one_error_naming_each(project):
    _break(project)
    (project / "kernels/fine.py").write_text(FINE.replace('    out_dir.mkdir', '    1 / 0\n    out_dir.mkdir'))
    with pytest.raises(LabError) as failed:
        build_site(project, jobs=1)
    text = str(failed.value)
    assert "kernels/fine.py:5: lab 'fine' failed: ZeroDivisionError" in text
    assert "kernels/broken.py:5: lab 'broken' failed: RuntimeError: no chip here" in text


def test_the_command_exits_1_naming_the_lab_with_or_without_keep_going(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    _break(project)
    assert main(["build", "--jobs", "1"]) == 1
    out, err = capsys.readouterr()
    assert "reader: error: kernels/broken.py:5: lab 'broken' failed: RuntimeError: no chip here" in err
    assert "built" not in out and not (project / "site").exists()
    assert main(["build", "--jobs", "1", "--keep-going"]) == 1
    out, err = capsys.readouterr()
    assert "reader: error: kernels/broken.py:5: lab 'broken' failed" in err
    assert "1 lab(s) failed, built anyway (--keep-going): kernels/broken.py:5" in out
    assert (project / "site/labs/broken.html").is_file()


def test_rewording_a_labs_docstring_renders_its_page_alone_and_equals_a_cold_build(project, tmp_path,
                                                                                 monkeypatch):
    from reader.render.lab.kind import LAB

    build_site(project, jobs=1)
    rendered: list[str] = []
    render = LAB.render
    monkeypatch.setattr(LAB, "render", lambda world, inputs: rendered.append(inputs.lab.name) or
                        render(world, inputs))
    fine = project / "kernels/fine.py"
    fine.write_text(fine.read_text().replace("writes one listing", "writes one listing, reworded"))
    report = build_site(project, jobs=1)
    assert rendered == ["fine"]  # the other lab's page shows nothing of this file
    assert [name for name, _ in report.steps] == ["pages", "patch", "link check"]
    assert "writes one listing, reworded" in (project / "site/labs/fine.html").read_text()
    cold = tmp_path / "cold-cache"  # the fetched sources only: the labs run again, every page renders
    for part in ("objects", "pins"):
        shutil.copytree(Path(os.environ["READER_CACHE"]) / part, cold / part)
    monkeypatch.setenv("READER_CACHE", str(cold))
    build_site(project, tmp_path / "cold", jobs=1)
    assert _tree(project / "site") == _tree(tmp_path / "cold")


def _fails_located(project: Path, capsys, where: str, message: str) -> None:
    """`reader build` exits 2 with one located line, no traceback, and the site as it was."""
    before = _tree(project / "site")
    assert main(["-C", str(project), "build", "--jobs", "1"]) == 2
    out, err = capsys.readouterr()
    errors = [line for line in err.splitlines() if line.startswith("reader: error:")]
    assert len(errors) == 1 and errors[0].startswith(f"reader: error: {where}: {message}; "), err
    assert "Traceback" not in err and "built" not in out
    assert _tree(project / "site") == before


def test_a_lab_that_does_not_parse_is_a_located_error_and_the_site_is_kept(project, capsys):
    build_site(project, jobs=1)
    fine = project / "kernels/fine.py"
    lines = fine.read_text().count("\n")
    fine.write_text(fine.read_text() + "def (:\n")
    _fails_located(project, capsys, f"kernels/fine.py:{lines + 1}", "invalid syntax")


def test_a_registered_lab_without_its_module_is_located_at_its_entry(project, capsys):
    build_site(project, jobs=1)
    (project / "kernels/broken.py").unlink()
    init = (project / "kernels/__init__.py").read_text()
    line = init[:init.index('Lab("broken"')].count("\n") + 1
    _fails_located(project, capsys, f"kernels/__init__.py:{line}",
                   "lab 'broken' is registered but kernels/broken.py does not exist")


def test_an_exercise_that_is_not_in_the_pinned_files_is_located_at_its_line(project, capsys):
    build_site(project, jobs=1)
    fine = project / "kernels/fine.py"
    fine.write_text(fine.read_text().replace(
        'writes one listing."""',
        'writes one listing.\n\nExercises: pkg/core.py::BlockSpec, pkg/core.py::NoSuchThing\n"""'))
    _fails_located(project, capsys, "kernels/fine.py:3",
                   "lab 'fine' exercises pkg/core.py::NoSuchThing, not in the pinned files")


def test_a_build_stopped_midway_ends_the_labs_run_it_started(project, monkeypatch):
    """Ctrl-C (or any failure) after the labs' child started: the child ended, its folder gone."""
    from reader.render.recipe import generate, schedule

    runs = []

    def start_slow(*args, **kwargs):
        runs.append(started := real(*args, **kwargs))
        return started

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    real = schedule.start_slow
    monkeypatch.setattr(schedule, "start_slow", start_slow)
    monkeypatch.setattr(generate, "gather", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build_site(project, jobs=1)
    [started] = runs
    assert started.artifacts.out is not None and not started.artifacts.out.exists()
    assert started.artifacts.proc is None  # killed and waited for
