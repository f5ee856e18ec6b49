"""The canonical kernels' lowered pages (`ir/<kernel>.md`): a page kind over the IR view (`render/ir/`)."""
