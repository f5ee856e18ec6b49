"""`reader run flash_attention --check FILE`: a learner's blind kernel, checked, then diffed."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernels import LABS
from reader.cli import main as reader_main

REPO_ROOT = Path(__file__).resolve().parent.parent
SCAFFOLD = REPO_ROOT / "kernels" / "flash_attention_blind.py"

# A learner's answer written from the scaffold's TODOs (not the lab's solution: no shared helpers).
SOLVED = '''
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

MASK = -1e30


def flash_kernel(q_ref, k_ref, v_ref, o_ref, lse_ref, m_scratch, l_scratch, acc_scratch, *,
                 sm_scale, causal):
    block_q, block_k = q_ref.shape[0], k_ref.shape[0]
    r, c = pl.program_id(1), pl.program_id(2)

    @pl.when(c == 0)
    def _():
        m_scratch[...] = jnp.full(m_scratch.shape, -jnp.inf, jnp.float32)
        l_scratch[...] = jnp.zeros(l_scratch.shape, jnp.float32)
        acc_scratch[...] = jnp.zeros(acc_scratch.shape, jnp.float32)

    @pl.when(jnp.logical_or(not causal, (r + 1) * block_q - 1 >= c * block_k))
    def _():
        s = jax.lax.dot_general(q_ref[...] * sm_scale, k_ref[...], (((1,), (1,)), ((), ())),
                                precision=jax.lax.Precision.HIGHEST, preferred_element_type=jnp.float32)
        if causal:
            rows = r * block_q + jax.lax.broadcasted_iota(jnp.int32, s.shape, 0)
            cols = c * block_k + jax.lax.broadcasted_iota(jnp.int32, s.shape, 1)
            s = jnp.where(cols <= rows, s, MASK)
        m = m_scratch[...]
        m_new = jnp.maximum(m, s.max(axis=1, keepdims=True))
        alpha = ALPHA
        p = jnp.exp(s - m_new)
        l_scratch[...] = alpha * l_scratch[...] + p.sum(axis=1, keepdims=True)
        acc_scratch[...] = alpha * acc_scratch[...] + jnp.dot(
            p, v_ref[...], precision=jax.lax.Precision.HIGHEST, preferred_element_type=jnp.float32)
        m_scratch[...] = m_new

    @pl.when(c == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = (acc_scratch[...] / l_scratch[...]).astype(o_ref.dtype)
        lse_ref[...] = m_scratch[...] + jnp.log(l_scratch[...])
'''


def learner(tmp_path: Path, alpha: str = "jnp.exp(m - m_new)", text: str | None = None) -> Path:
    path = tmp_path / "mine.py"
    path.write_text(text if text is not None else SOLVED.replace("ALPHA", alpha))
    return path


def check(path: Path) -> int:
    return reader_main(["-C", str(REPO_ROOT), "run", "flash_attention", "--check", str(path)])


def test_a_correct_kernel_passes_and_is_diffed_against_the_pinned_kernel(tmp_path, capsys):
    assert check(learner(tmp_path)) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    verdicts = [line for line in lines if line.startswith(("pass", "FAIL"))]
    assert len(verdicts) == 4 and all(v.startswith("pass") for v in verdicts)
    assert any("causal=True" in v for v in verdicts) and any("causal=False" in v for v in verdicts)
    assert "+++ jax@dc4af684446e:jax/experimental/pallas/ops/tpu/flash_attention.py::" \
           "_flash_attention_kernel_single_batch" in out
    assert "+def _flash_attention_kernel_single_batch(" in lines
    assert "-def flash_kernel(q_ref, k_ref, v_ref, o_ref, lse_ref, m_scratch, l_scratch, acc_scratch, *," in lines
    # A line both kernels share is context, not a change.
    assert "         @pl.when(c == pl.num_programs(2) - 1)" not in lines
    assert "     kv_seq_idx = pl.program_id(3)" not in lines and "+    kv_seq_idx = pl.program_id(3)" in lines


def test_a_kernel_without_the_rescale_fails_with_1(tmp_path, capsys):
    assert check(learner(tmp_path, alpha="jnp.ones_like(m)")) == 1
    captured = capsys.readouterr()
    verdicts = [line for line in captured.out.splitlines() if line.startswith(("pass", "FAIL"))]
    assert any(v.startswith("FAIL") for v in verdicts), verdicts
    assert "does not match the reference yet" in captured.err
    assert "+++ jax@" in captured.out          # the diff is printed either way


def test_the_scaffold_fails_cleanly(capsys):
    assert check(SCAFFOLD) == 1
    captured = capsys.readouterr()
    verdicts = [line for line in captured.out.splitlines() if line.startswith(("pass", "FAIL"))]
    assert len(verdicts) == 4 and all(v.startswith("FAIL") for v in verdicts)
    assert "Traceback" not in captured.out + captured.err
    assert "-    # TODO 1." in captured.out


def test_a_kernel_that_raises_fails_with_its_line(tmp_path, capsys):
    path = learner(tmp_path, alpha="jnp.exp(m - m_nwe)")
    line = 1 + SOLVED.splitlines().index("        alpha = ALPHA")
    assert check(path) == 1
    out = capsys.readouterr().out
    assert f"FAIL  {path}:{line}: flash_kernel raised NameError: name 'm_nwe' is not defined" in out


@pytest.mark.parametrize(("text", "line", "message"), [
    ("def flash_kernel(q_ref:\n    pass\n", 1, "syntax error"),
    ("import jax\n\ndef attention_kernel(*refs):\n    pass\n", 1, "no top-level function 'flash_kernel'"),
    ("import jax\nfrom kernels import nothing_here\n\ndef flash_kernel():\n    pass\n", 2,
     "importing it raised ImportError"),
])
def test_bad_files_are_input_errors_naming_file_and_line(tmp_path, capsys, text, line, message):
    path = learner(tmp_path, text=text)
    assert check(path) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"reader: error: {path}:{line}: {message}"), err


def test_missing_file_and_non_blind_lab_are_input_errors(tmp_path, capsys):
    assert check(tmp_path / "nope.py") == 2
    assert "no such file" in capsys.readouterr().err
    assert reader_main(["run", "tiled_matmul", "--check", str(SCAFFOLD)]) == 2
    assert "is not written blind" in capsys.readouterr().err
    assert reader_main(["run", "flash_attention", "--check"]) == 2


def test_the_registry_names_the_scaffold_and_a_pinned_function():
    blind = LABS["flash_attention"].blind
    assert blind is not None
    assert (REPO_ROOT / "kernels" / f"{blind.scaffold}.py").is_file()
    assert f"def {blind.kernel}(" in SCAFFOLD.read_text()
    assert blind.upstream_symbol == "_flash_attention_kernel_single_batch"
    assert [lab.name for lab in LABS.values() if lab.blind] == ["flash_attention"]
