"""The Markdown placeholders: facts, source links, lab and page links; code is left alone."""

from __future__ import annotations

from reader.annotations.markup import parse, substitute


def test_each_kind_of_placeholder():
    text = ("TPU has {{fact:tpu.rules.tc}} rules; see\n"
            "[[jax/_src/pallas/core.py::BlockSpec.to_block_mapping|the mapping]], "
            "[[jax/_src/pallas/core.py]], [[lab:tiled_matmul]] and [[page:pallas-call|next]].")
    found, problems = parse(text)
    assert problems == []
    assert [(p.kind, p.target, p.symbol, p.label, p.line) for p in found] == [
        ("fact", "tpu.rules.tc", "", "", 0),
        ("source", "jax/_src/pallas/core.py", "BlockSpec.to_block_mapping", "the mapping", 1),
        ("source", "jax/_src/pallas/core.py", "", "", 1),
        ("lab", "tiled_matmul", "", "", 1),
        ("page", "pallas-call", "", "next", 1),
    ]
    assert text[found[0].start:found[0].end] == "{{fact:tpu.rules.tc}}"


def test_code_spans_and_fences_are_not_placeholders():
    text = "Use `{{fact:x}}` or ``[[lab:y]]``.\n```python\nd = {{'a': 1}}\nx[[0]]\n```\n[[lab:z]]"
    found, problems = parse(text)
    assert problems == []
    assert [(p.kind, p.target, p.line) for p in found] == [("lab", "z", 5)]


def test_malformed_placeholders_are_reported_with_their_line():
    text = "ok\n{{ fact }} and {{name}}\n[[lab:]] [[page:Not_A_Slug]] [[../x.py]] [[a.py::1bad]]"
    found, problems = parse(text)
    assert found == []
    assert [(p.message, p.line) for p in problems] == [
        ("malformed fact name in '{{ fact }}'", 1),
        ("unknown placeholder '{{name}}'", 1),
        ("malformed lab link '[[lab:]]'", 2),
        ("malformed page link '[[page:Not_A_Slug]]'", 2),
        ("malformed link '[[../x.py]]'", 2),
        ("malformed link '[[a.py::1bad]]'", 2),
    ]


def test_substitute_renders_each_placeholder():
    text = "{{fact:n}} rules in [[a/b.py::C|class C]]; `{{fact:n}}` stays."
    out = substitute(text, lambda p: f"<{p.kind}:{p.target}:{p.symbol}:{p.label}>")
    assert out == "<fact:n::> rules in <source:a/b.py:C:class C>; `{{fact:n}}` stays."
