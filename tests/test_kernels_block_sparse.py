"""EXTRA·B: the mask's block schedule, the kernel against dense attention and splash."""

from __future__ import annotations

import numpy as np
import pytest

from kernels import block_sparse as lab


def test_kernel_matches_dense_and_splash_and_labels_match_splash():
    schedule, c = lab.check(seq=256, block_q=32, block_k=32)
    assert c.vs_dense <= 1e-5 and c.vs_splash <= 1e-5
    assert c.labels_match_splash


def test_schedule_of_a_small_mask():
    mask = lab.window_with_sinks(8, window=3, sinks=2)
    s = lab.build_schedule(mask, 2, 2)
    assert s.labels.tolist() == [[1, 0, 0, 0], [2, 1, 0, 0], [2, 1, 1, 0], [2, 0, 1, 1]]
    assert s.steps == 3
    assert s.kv_index.tolist() == [[0, 0, 0], [0, 1, 1], [0, 1, 2], [0, 2, 3]]
    assert s.kind.tolist() == [[1, 0, 0], [2, 1, 0], [2, 1, 1], [2, 1, 1]]
    # every partial step points at the stored copy of its own mask block
    for r in range(4):
        for j in range(s.steps):
            if s.kind[r, j] == lab.PARTIAL:
                c = s.kv_index[r, j]
                assert (s.partial_masks[s.mask_index[r, j]] == mask[2 * r:2 * r + 2, 2 * c:2 * c + 2]).all()
    assert len(s.partial_masks) == 2 and int((s.labels == lab.PARTIAL).sum()) == 6   # deduplicated


def test_empty_rows_and_ragged_blocks_are_refused():
    with pytest.raises(ValueError, match="at least one visible key"):
        lab.build_schedule(np.zeros((4, 4), bool), 2, 2)
    with pytest.raises(ValueError, match="must divide"):
        lab.build_schedule(np.ones((6, 6), bool), 4, 4)


def test_main_prints_the_block_picture(capsys):
    assert lab.main(["--seq", "128", "--block", "32"]) == 0
    out = capsys.readouterr().out
    assert "'.' empty" in out and "labels equal splash's process_mask block_mask: True" in out


def test_labels_svg_colours_every_block(tmp_path):
    import xml.etree.ElementTree as ET
    (path,) = lab.artifacts(tmp_path)
    rects = ET.fromstring(path.read_text()).findall("{http://www.w3.org/2000/svg}rect")
    assert len(rects) == 1 + 8 * 8 + 3   # background, blocks, legend
    assert sum("partial" in (r.findtext("{http://www.w3.org/2000/svg}title") or "") for r in rects) == 22 + 1
