"""Name resolution over scanned summaries alone (no index, no pins): what each name means."""

from __future__ import annotations

from reader.extract.names import Resolver, Target, resolve_chain
from reader.extract.scan import summarize

FILES = {
    "pkg": ("from pkg.core import *\nfrom pkg.api import Spec as PublicSpec\n", True),
    "pkg.core": ("import numpy as np\n\nclass Base:\n    def run(self):\n        pass\n\n"
                 "class Spec(Base):\n    pass\n\ndef helper():\n    return np.zeros\n", False),
    "pkg.api": ("from .core import Spec\n", False),
}


def resolver() -> Resolver:
    return Resolver({m: summarize(text, m, is_package) for m, (text, is_package) in FILES.items()})


def test_names_resolve_through_star_imports_aliases_and_re_exports():
    r = resolver()
    assert r.resolve_name("pkg", "helper") == Target("def", "pkg.core", "helper")
    assert r.resolve_name("pkg", "PublicSpec") == Target("def", "pkg.core", "Spec")
    assert r.resolve_attr(Target("module", "pkg.api"), "Spec") == Target("def", "pkg.core", "Spec")
    assert r.resolve_dotted("pkg.core", "np.zeros") == Target("external", "numpy.zeros")
    assert r.resolve_name("pkg", "missing") is None


def test_members_come_through_known_bases_and_only_corpus_targets_link():
    r = resolver()
    assert r.member("pkg.core", "Spec", "run") == Target("def", "pkg.core", "Base.run")
    assert r.member("pkg.core", "Spec", "absent") is None
    assert r.linkable(Target("def", "pkg.core", "Base.run"))
    assert not r.linkable(Target("external", "numpy.zeros"))
    assert not r.linkable(Target("def", "pkg.core", "nothing"))


def test_a_chain_resolves_part_by_part_until_a_part_does_not():
    r = resolver()
    fs = summarize("import pkg.api\nx = pkg.api.Spec.run.nope\n", "user")
    chain = next(c for c in fs.chains if c.parts[0].name == "pkg")
    resolved = [(part.name, target) for part, target in resolve_chain(r, fs, chain)]
    assert resolved == [("pkg", Target("module", "pkg")), ("api", Target("module", "pkg.api")),
                        ("Spec", Target("def", "pkg.core", "Spec")),
                        ("run", Target("def", "pkg.core", "Base.run"))]
