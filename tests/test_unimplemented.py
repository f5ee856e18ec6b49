"""The error a backend raises for a primitive its table lacks: the wording read from the lowering
module, formatted per table; checked against the installed jax, which raises it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from reader.extract.unimplemented import messages

TPU = '''\
def lower_jaxpr_to_mosaic(ctx, jaxpr):
  for eqn in jaxpr.eqns:
    if eqn.primitive in lowering_rules[ctx.kernel_type]:
      pass
    else:
      raise NotImplementedError(
          "Unimplemented primitive in Pallas TPU lowering for"
          f" {ctx.kernel_type}: {eqn.primitive.name}. Please file an issue at"
          " https://github.com/jax-ml/jax/issues/new/choose."
      )
'''
GPU = '''\
def lower(module_ctx, eqn):
  raise NotImplementedError(
      "Unimplemented primitive in Pallas Mosaic GPU lowering:"
      f" {eqn.primitive.name} for lowering semantics"
      f" {module_ctx.lowering_semantics} and user thread semantics"
      f" {module_ctx.primitive_semantics}. Please file an issue at"
      " https://github.com/jax-ml/jax/issues/new/choose."
  )
'''
MODULES = {"jax._src.pallas.mosaic.lowering": ("jax/_src/pallas/mosaic/lowering.py", TPU),
           "jax._src.pallas.mosaic_gpu.lowering": ("jax/_src/pallas/mosaic_gpu/lowering.py", GPU),
           "jax._src.pallas.triton.lowering": ("jax/_src/pallas/triton/lowering.py", "x = 1\n")}


def test_each_backend_message_as_jax_words_it_per_table():
    found = messages({m: p for m, (p, _) in MODULES.items()}, lambda m: MODULES[m][1])
    assert set(found) == {"tpu", "mosaic_gpu"}  # the Triton module raises none
    assert (found["tpu"].path, found["tpu"].line) == ("jax/_src/pallas/mosaic/lowering.py", 7)
    assert found["tpu"].format("TC", "erf_inv") == \
        "Unimplemented primitive in Pallas TPU lowering for tc: erf_inv"
    assert found["tpu"].format("SC_VECTOR_SUBCORE", "erf_inv") == \
        "Unimplemented primitive in Pallas TPU lowering for sc_vector_subcore: erf_inv"
    assert found["mosaic_gpu"].format("Warpgroup/Warp", "erf_inv") == (
        "Unimplemented primitive in Pallas Mosaic GPU lowering: erf_inv for lowering semantics "
        "LoweringSemantics.Warpgroup and user thread semantics PrimitiveSemantics.Warp")


def test_the_installed_jax_raises_the_message_read_from_its_source():
    if importlib.util.find_spec("jax") is None:
        pytest.skip("needs jax (the labs' extra)")
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.experimental import pallas as pl

    root = Path(jax.__file__).parent.parent
    module = "jax._src.pallas.mosaic.lowering"
    path = "jax/_src/pallas/mosaic/lowering.py"
    expected = messages({module: path}, lambda m: (root / path).read_text())["tpu"]

    def kernel(x_ref, o_ref):
        o_ref[...] = lax.igamma(x_ref[...], x_ref[...])  # no TensorCore rule at jax 0.12.0.1

    x = jnp.ones((8, 128), jnp.float32)
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))
    with pytest.raises(NotImplementedError) as raised:
        jax.jit(call).trace(x).lower(lowering_platforms=("tpu",))
    assert str(raised.value).startswith(expected.format("TC", "igamma") + ". Please file")
