"""Files written whole or not at all: one file, and several through a journal."""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

import pytest

from reader import atomic
from reader.atomic import JOURNAL, atomic_write, atomic_write_all, finish_interrupted
from reader.cache import blob_sha
from reader.errors import InputError


def test_atomic_write_makes_its_folders_and_leaves_no_temp_file(tmp_path, monkeypatch):
    target = tmp_path / "a" / "b" / "file.bin"
    atomic_write(target, b"one", durable=False)
    assert target.read_bytes() == b"one"
    # a dead process's leftover holds the next temp name: the write goes through anyway
    monkeypatch.setattr(atomic, "_TEMPS", itertools.count(7))
    leftover = target.parent / f".file.bin.{os.getpid()}-7.tmp"
    leftover.write_bytes(b"old")
    atomic_write(target, b"two")
    assert target.read_bytes() == b"two"
    assert sorted(p.name for p in target.parent.iterdir()) == [leftover.name, "file.bin"]


def test_a_journal_left_by_a_killed_write_is_completed_and_a_changed_file_refused(tmp_path: Path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"old a")
    b.write_bytes(b"old b")
    atomic_write_all({a: b"new a", b: b"new b"})
    assert (a.read_bytes(), b.read_bytes()) == (b"new a", b"new b") and not (tmp_path / JOURNAL).exists()
    # What a SIGKILL after the journal and the first file leaves: the rest is written on the next read.
    journal = {"files": {"a.txt": {"old": blob_sha(b"new a"), "new": "YWFh"},
                         "b.txt": {"old": blob_sha(b"new b"), "new": "YmJi"}}}
    (tmp_path / JOURNAL).write_text(json.dumps(journal))
    a.write_bytes(b"aaa")
    assert finish_interrupted(tmp_path) == ["a.txt", "b.txt"]
    assert (a.read_bytes(), b.read_bytes()) == (b"aaa", b"bbb") and not (tmp_path / JOURNAL).exists()
    # A file edited by hand since: nothing is overwritten, the journal is named.
    (tmp_path / JOURNAL).write_text(json.dumps(journal).replace(blob_sha(b"new b"), blob_sha(b"bbb")))
    a.write_bytes(b"edited")
    with pytest.raises(InputError, match="but a.txt changed since"):
        finish_interrupted(tmp_path)
    assert a.read_bytes() == b"edited"
