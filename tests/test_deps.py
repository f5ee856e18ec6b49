"""Dependencies by use: `reader check`, `diff`, `rules` and `facts` read the pinned source
statically, so they run where jax and tokamax cannot be imported (a venv without the `labs`
extra), and print what they print where they can."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from reader.cli import main

ROOT = Path(__file__).resolve().parents[1]
BLOCKED = ("jax", "jaxlib", "tokamax")
WITHOUT_JAX = f"""
import sys
for name in {BLOCKED!r}:
    sys.modules[name] = None  # `import jax` now raises ImportError
from reader.cli import main
code = main(sys.argv[1:])
loaded = sorted(n for n, m in sys.modules.items() if m is not None and n.split(".")[0] in {BLOCKED!r})
assert not loaded, loaded
sys.exit(code)
"""


def without_jax(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT_JAX, *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def test_the_block_works():
    done = subprocess.run([sys.executable, "-c", WITHOUT_JAX.replace("from reader.cli", "import jax\n#")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "import of jax halted" in done.stderr


def test_check_needs_no_jax():
    done = without_jax("check")
    assert done.returncode == 0, done.stderr
    found = re.search(r"reader check: \d+ annotation files; (\d+) notes \((\d+) ok\)", done.stderr)
    assert found and int(found[1]) > 0 and found[1] == found[2], done.stderr


def test_diff_needs_no_jax():
    # the claims run in child processes with each side's releases installed, jax among them
    # (tests/test_claims_diff.py): this process reads the pinned source alone
    done = without_jax("diff", "--no-claims")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("reader diff HEAD:pins.toml -> pins.toml"), done.stdout[:200]
    assert "Lowering rule tables:" in done.stdout and "Facts:" in done.stdout


@pytest.mark.parametrize("command", ["rules", "facts"])
def test_tables_and_facts_need_no_jax_and_are_the_same_without_it(command, capsys):
    assert main([command]) == 0
    with_jax = capsys.readouterr().out
    done = without_jax(command)
    assert done.returncode == 0, done.stderr
    assert done.stdout == with_jax
    assert len(with_jax.splitlines()) > 50
