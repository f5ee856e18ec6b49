"""tpu_facts: each chip's TpuInfo, core count and matmul formats read from tpu_info.py with libcst,
checked on a small inline file and against what the pinned jax computes at runtime."""

from __future__ import annotations

import dataclasses

import pytest

from reader.annotations.markup import FACT_NAME
from reader.cache import Cache
from reader.corpus import Corpus, Project
from reader.extract import tpu_facts as tp
from reader.extract.fact import ExtractError
from reader.fetch import InstalledSource, fetch_pin
from tests.conftest import REPO_ROOT
from tests.test_facts import documented

TPU_INFO = '''
class ChipVersion(ChipVersionBase, enum.Enum):
  TPU_A = "a"
  TPU_B = "b"

  @property
  def num_physical_tensor_cores_per_chip(self) -> int:
    match self:
      case ChipVersion.TPU_A:
        return 2
      case ChipVersion.TPU_B:
        return 1

class TpuInfo:
  def is_matmul_supported(self, lhs_dtype, rhs_dtype):
    F32 = np.float32
    S8 = np.int8
    match self.chip_version:
      case ChipVersion.TPU_A:
        return lhs_dtype == rhs_dtype == F32
      case ChipVersion.TPU_B:
        return (lhs_dtype in (F32,) and rhs_dtype in (F32, S8)) or (
            lhs_dtype in (S8,) and rhs_dtype in (S8,))
      case _:
        return False

def _get_tpu_info_impl(chip_version, num_cores):
  LANES = 128
  tensor_cores_per_chip = chip_version.num_physical_tensor_cores_per_chip
  match chip_version:
    case ChipVersion.TPU_A | ChipVersion.TPU_B:
      return TpuInfo(
          chip_version=chip_version,
          num_cores=num_cores,
          num_lanes=LANES,
          vmem_capacity_bytes=16 * 1024 * 1024,
          smem_capacity_bytes=16 * 1024,
          hbm_capacity_bytes=34_400_000_000 // tensor_cores_per_chip,
          mem_bw_bytes_per_second=int(8.25e11 // tensor_cores_per_chip),
          bf16_ops_per_second=int(1.40e14 // tensor_cores_per_chip),
          sparse_core=SparseCoreInfo(num_lanes=8),
      )
    case _:
      raise ValueError(chip_version)
'''


def _line(text: str) -> int:
    return TPU_INFO.splitlines().index(text) + 1


def test_reads_each_chip_with_its_own_core_count():
    a, b = tp.tpu_chips(TPU_INFO)
    assert (a.version, a.cores, b.version, b.cores) == ("a", 2, "b", 1)
    assert [f.name for f in a.fields] == ["num_lanes", "vmem_capacity_bytes", "smem_capacity_bytes",
                                          "hbm_capacity_bytes", "mem_bw_bytes_per_second",
                                          "bf16_ops_per_second", "sparse_core.num_lanes"]
    assert a.field("hbm_capacity_bytes") == 17_200_000_000 and b.field("hbm_capacity_bytes") == 34_400_000_000
    assert a.field("mem_bw_bytes_per_second") == 412_500_000_000
    assert a.line == b.line == _line("    case ChipVersion.TPU_A | ChipVersion.TPU_B:")
    assert a.matmul == ((("float32",), ("float32",)),)
    assert b.matmul == ((("float32",), ("float32", "int8")), (("int8",), ("int8",)))


def test_facts_have_documented_names_and_readable_units():
    facts = tp.tpu_facts(TPU_INFO)
    values = {f.name: f.value for f in facts}
    assert all(FACT_NAME.match(f.name) and documented(f.name) for f in facts)
    assert values["tpu.chips.names"] == ["a", "b"]
    assert values["tpu.chip.a.vmem_mib"] == 16 and values["tpu.chip.a.smem_kib"] == 16
    assert values["tpu.chip.a.hbm_gb"] == "17.2" and values["tpu.chip.b.bf16_tflops"] == "140"
    assert values["tpu.chip.b.matmul"] == "float32 × float32/int8; int8 × int8"
    assert "tpu.chip.a.num_cores" not in values  # a parameter, not a property of the chip
    line = {f.name: f.line for f in facts}
    assert line["tpu.chip.a.hbm_gb"] == _line("          hbm_capacity_bytes=34_400_000_000 // "
                                              "tensor_cores_per_chip,")


@pytest.mark.parametrize(("old", "new", "at"), [
    ("int(8.25e11 // tensor_cores_per_chip)", "int(8.25e11 // unknown)", "8.25e11 // unknown"),
    ("rhs_dtype in (S8,))", "rhs_dtype is S8)", "rhs_dtype is S8"),
    ("def _get_tpu_info_impl", "def _renamed", None),
    ("      case ChipVersion.TPU_B:\n        return 1\n", "", "case ChipVersion.TPU_A | ChipVersion.TPU_B:"),
])
def test_a_changed_source_is_a_located_error(old, new, at):
    text = TPU_INFO.replace(old, new)
    with pytest.raises(ExtractError) as e:
        tp.tpu_chips(text)
    assert e.value.location is not None and e.value.location.path == tp.TPU_INFO_PATH
    where = next((i for i, t in enumerate(text.splitlines(), 1) if at and at in t), None)
    assert e.value.location.line == where
    assert "tpu_facts.py" in e.value.hint


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    project = Project.load(REPO_ROOT)
    cache = Cache(tmp_path_factory.mktemp("cache"))
    fetch_pin(project.pins["jax"], project.locks["jax"], cache, [InstalledSource()])
    return Corpus.open(project, cache)


def test_pinned_chips_equal_what_jax_computes(corpus):
    import jax.numpy as jnp
    import numpy as np
    from jax._src import dtypes, tpu_info

    chips = tp.tpu_chips(corpus.read_text("jax", tp.TPU_INFO_PATH))
    assert [c.version for c in chips] == [v.value for v in tpu_info.ChipVersion]
    formats = [np.float32, jnp.bfloat16, np.int8, np.uint8, dtypes.int4, dtypes.uint4,
               dtypes.float8_e5m2, dtypes.float8_e4m3fn, dtypes.float8_e4m3b11fnuz]
    for chip in chips:
        version = tpu_info.ChipVersion(chip.version)
        info = dataclasses.asdict(tpu_info._get_tpu_info_impl(version, 1))
        assert chip.cores == version.num_physical_tensor_cores_per_chip
        for f in chip.fields:
            head, _, tail = f.name.partition(".")
            assert (info[head][tail] if tail else info[head]) == f.value, (chip.version, f.name)
        runtime = {(np.dtype(a).name, np.dtype(b).name) for a in formats for b in formats
                   if tpu_info._get_tpu_info_impl(version, 1).is_matmul_supported(a, b)}
        parsed = {(a, b) for lhs, rhs in chip.matmul for a in lhs for b in rhs}
        assert parsed == runtime, chip.version


def test_pinned_facts_point_at_the_line_they_read(corpus):
    text = corpus.read_text("jax", tp.TPU_INFO_PATH).splitlines()
    facts = tp.load_tpu_facts(corpus)
    assert {f.path for f in facts} == {tp.TPU_INFO_PATH}
    for f in facts:
        field = f.name.split(".", 3)[-1]
        if field in ("generation", "num_sublanes", "hbm_capacity_bytes", "mem_bw_bytes_per_second"):
            assert text[f.line - 1].strip().startswith(f"{field}="), (f.name, f.line)
        elif field == "matmul":
            assert text[f.line - 1].strip().startswith("case ChipVersion."), (f.name, f.line)
