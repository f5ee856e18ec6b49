"""reader/render/code/runs.py writes the token runs that reader/assets/runs.js (the one definition of
the format) reads: the alphabet comes from the script, and node decodes what Python encodes."""

import json
import shutil
import subprocess
from importlib import resources

import pytest

from reader.render.code import runs

NODE = shutil.which("node")
SCRIPT = resources.files("reader").joinpath("assets", "runs.js")


def test_the_alphabet_is_the_scripts_and_codes_round_trip():
    assert runs.LETTERS == "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    assert [runs.class_code(i) for i in (0, 51, 52, 103, 104, 2756)] == ["a", "Z", "aa", "aZ", "ba", "aaa"]
    pieces = [(i, i % 7 + 1) for i in range(0, 3000, 13)]
    assert runs.decode(runs.encode(pieces)) == pieces


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_node_decodes_what_python_encodes_past_52_classes():
    pieces = [(0, 4), (51, 1), (52, 2), (60, 9), (2756, 3)]
    spec = runs.encode(pieces)
    out = subprocess.run([NODE, "-e", f"process.stdout.write(JSON.stringify(require({json.dumps(str(SCRIPT))}).decode({json.dumps(spec)})))"],
                         capture_output=True, text=True, check=True).stdout
    assert [tuple(p) for p in json.loads(out)] == pieces
