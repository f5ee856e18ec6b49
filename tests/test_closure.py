"""What a pin's `context` holds (reader/extract/closure.py): the modules importing the pinned files
loads inside a package, and those their dotted names resolve through; the real pins hold theirs."""

from __future__ import annotations

import ast
from pathlib import Path

from reader.corpus import Corpus, Project
from reader.extract.closure import Module, import_closure, imports_at_load, resolved_through
from reader.extract.scan import summarize
from reader.model import module_of
from tests.conftest import REPO_ROOT

FILES = {
    "pkg/__init__.py": "from pkg._src.api import run\nfrom pkg._src import numbers as numbers\n",
    "pkg/_src/__init__.py": "",
    "pkg/_src/api.py": "from pkg._src import core\n\ndef run():\n  from pkg._src import late\n  return core.X\n",
    "pkg/_src/core.py": "from . import util\n\nclass X:\n  import pkg._src.klass\n",
    "pkg/_src/util.py": "import os\nimport pkg\n",
    "pkg/_src/late.py": "",
    "pkg/_src/klass.py": "",
    "pkg/_src/numbers.py": "class Int:\n  pass\n",
    "pkg/_src/unused.py": "",
    "user/kernel.py": "import pkg\nfrom pkg._src import api\n\ndef f():\n  return pkg.numbers.Int, api.run\n",
}
MODULES = {module_of(p): Module(t, p.endswith("__init__.py")) for p, t in FILES.items()}


def test_imports_at_load_leave_function_bodies_out_and_resolve_relative_ones():
    core = imports_at_load(ast.parse(FILES["pkg/_src/core.py"]), "pkg._src.core", False)
    assert core == {"pkg", "pkg._src", "pkg._src.util", "pkg._src.klass"}  # a class body runs at import
    api = imports_at_load(ast.parse(FILES["pkg/_src/api.py"]), "pkg._src.api", False)
    assert "pkg._src.late" not in api and "pkg._src.core" in api


def test_the_closure_stays_inside_the_package_it_is_asked_for():
    found = import_closure(MODULES, {"user.kernel"}, "pkg._src")
    # api -> core -> util and klass; util's `import pkg` (the public package, which would pull in
    # all of it) is not followed; `late` is imported by a function only
    assert found == {"pkg._src", "pkg._src.api", "pkg._src.core", "pkg._src.util", "pkg._src.klass"}


def test_names_resolve_through_the_modules_that_re_export_them():
    summaries = {m: summarize(src.text, m, src.is_package) for m, src in MODULES.items()}
    through = resolved_through(summaries, {"user.kernel"}, "pkg")
    assert through >= {"pkg", "pkg._src.numbers", "pkg._src.api"}  # pkg.numbers.Int; api.run
    assert "pkg._src.unused" not in through and "user.kernel" not in through


def test_the_real_context_holds_what_the_pinned_files_load_inside_jax_src():
    """Every module that importing a pinned file loads inside jax/_src (read from the installed
    release, which holds the pinned files) is pinned: a pin move that grows the closure fails here
    until `scripts/context jax` and `reader lock` are run."""
    import importlib.metadata as md

    corpus = Corpus.open(Project.load(REPO_ROOT))
    pins = corpus.project.pins
    dist = md.distribution("jax")
    release = {module_of(str(f)): Module(Path(str(dist.locate_file(f))).read_text(encoding="utf-8"),
                                         str(f).endswith("__init__.py"))
               for f in dist.files or () if str(f).startswith("jax/") and str(f).endswith(".py")}
    pinned = {module_of(p): Module(corpus.read_text(pin, p), p.endswith("__init__.py"))
              for pin, p in corpus.all_files()}
    tracked = {module_of(p) for pin, p in corpus.all_files() if not pins[pin].in_context(p)}
    assert sum(pins[pin].in_context(p) for pin, p in corpus.all_files()) == 206
    loaded = import_closure({**release, **pinned}, tracked, "jax._src")
    assert loaded and not loaded - set(pinned), sorted(loaded - set(pinned))
