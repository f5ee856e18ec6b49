"""The dataclass methods' codes kept across runs (`reader/classcode.py`)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from reader import classcode

pytestmark = pytest.mark.skipif(not classcode.applies(), reason="CPython 3.12's dataclasses only")

MODULE = '''
from __future__ import annotations
import dataclasses
from dataclasses import dataclass, field

@dataclass(frozen=True, order=True)
class Frozen:
    name: str
    count: int = 0
    tags: tuple[str, ...] = ()

@dataclass
class Open:
    items: list[int] = field(default_factory=list)
    label: str = field(default="x", repr=False)

def described():
    f, o = Frozen("a", 2, ("t",)), Open([1])
    try:
        f.name = "b"
        frozen = "assigned"
    except dataclasses.FrozenInstanceError:
        frozen = "refused"
    return [repr(f), repr(o), f == Frozen("a", 2, ("t",)), f < Frozen("b"), hash(f) == hash(Frozen("a", 2, ("t",))),
            frozen, o.items, o.label, str(Frozen.__init__.__annotations__), str(Open.__init__.__annotations__),
            [x.name for x in dataclasses.fields(Frozen)]]
'''


def _run(tmp_path: Path, install: bool) -> list[str]:
    """The module's classes described in a fresh interpreter, made the stdlib's way or with the
    kept codes (`install`); then what the file holds."""
    (tmp_path / "made.py").write_text(MODULE)
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from reader import classcode
        keep = classcode.install(Path({str(tmp_path / 'kept')!r})) if {install} else (lambda: None)
        import made
        print(made.described())
        print(len(classcode._NEW), "new")
        keep()
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": f"{tmp_path}:{Path(classcode.__file__).parents[1]}", "PATH": ""})
    return out.stdout.splitlines()


def test_a_class_made_from_kept_codes_is_the_class_the_stdlib_makes(tmp_path):
    plain, first, second = _run(tmp_path, False), _run(tmp_path, True), _run(tmp_path, True)
    assert "refused" in plain[0] and "'name': 'str'" in plain[0]  # the annotations stay text, as exec made them
    assert first[0] == plain[0] and second[0] == plain[0]
    made = int(first[1].split()[0])
    assert made >= 8  # the two classes' methods were compiled, and kept...
    assert second[1] == "0 new"  # ...so the next run compiled none
    assert classcode.kept_file(tmp_path / "kept").is_file()


def test_an_unreadable_file_is_compiled_again_and_written_whole(tmp_path):
    kept = classcode.kept_file(tmp_path / "kept")
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"not marshal at all")
    (tmp_path / "plain").mkdir()
    plain = _run(tmp_path / "plain", False)
    first = _run(tmp_path, True)
    assert first[0] == plain[0] and first[1] != "0 new"
    assert _run(tmp_path, True)[1] == "0 new"


def test_another_python_is_left_as_it_is(tmp_path, monkeypatch):
    monkeypatch.setattr(classcode, "_STDLIB", None)
    before = dataclasses._create_fn  # type: ignore[attr-defined]
    classcode.install(tmp_path)()
    assert dataclasses._create_fn is before  # type: ignore[attr-defined]
    assert not list(tmp_path.iterdir())
