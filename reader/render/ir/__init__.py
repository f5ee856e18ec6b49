"""The IR view: lowered modules beside the kernel lines and rules that emitted them."""
