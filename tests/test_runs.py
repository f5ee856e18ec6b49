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


def test_a_class_table_numbers_classes_as_they_first_come_and_writes_flat_runs():
    table = runs.ClassCodes([""])
    lines = [("k", 3, "", 1, "nf", 12, "p", 1), ("", 4, "nf", 2), tuple(x for i in range(60) for x in (f"c{i}", i + 1))]
    specs = [table.encode(line) for line in lines]
    assert table.classes()[:4] == ["", "k", "nf", "p"] and len(table.classes()) == 64
    index = {c: i for i, c in enumerate(table.classes())}
    for line, spec in zip(lines, specs, strict=True):
        pieces = list(zip(line[::2], line[1::2], strict=True))
        assert spec == runs.encode([(index[c], n) for c, n in pieces])
        assert runs.decode(spec) == [(index[c], n) for c, n in pieces]
    assert table.encode(()) == ""


def test_a_class_table_writes_any_length_and_a_class_met_late_in_order():
    table = runs.ClassCodes()
    assert table.encode(("k", 3)) == "a3"
    # a long run (past the lengths written ahead), then a new class after known ones
    assert table.encode(("k", 100_000, "s2", 2, "k", 7, "o", 1)) == "a100000b2a7c1"
    assert table.encode(("o", 100_000, "s2", 511, "k", 512)) == "c100000b511a512"
    assert table.classes() == ["k", "s2", "o"]
