"""Each lab as a Jupyter notebook, generated from its module: `notebooks/<lab>.ipynb` in the
repository (what Colab opens, at a commit) and `labs/<lab>.ipynb` on the site (the download).

The cells: the setup (the pinned releases installed, with the jaxlib of the runtime's accelerator);
the lab's page text; the `kernels/` modules the lab imports, written beside the notebook; then the
lab's own module, read by jupytext as its `# %% Title` sections (a title becomes a heading); and
`main([])`, the lab's run. Nothing in it is written by hand: `reader notebooks` regenerates the
folder and tests/test_notebooks.py checks that it is up to date.
"""

from __future__ import annotations

import ast
import functools
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from reader.cache import Cache
from reader.errors import InputError, Location
from reader.labs import LabInfo, description
from reader.pins import Pin
from reader.providers import Provider, as_json, kept, provide
from reader.workers import Workers

FOLDER = "notebooks"
"""The repository folder of the notebooks (`notebooks/<lab>.ipynb`)."""
SUPPORT = "lab_support"
"""The folder, beside the notebook, that the lab's helper modules are written into."""
_MAIN_GUARD = re.compile(r'\n*if __name__ == "__main__":\n    raise SystemExit\(main\(\)\)\s*$')


class Helper(NamedTuple):
    """A module of the project's `kernels` package a lab imports: its path and text."""

    path: str
    text: str


@dataclass(frozen=True)
class NotebookInputs:
    """What a lab's notebook holds besides the lab's own module."""

    releases: tuple[str, ...]
    """Requirement strings: pins.toml's releases, jax's jaxlib, and the `labs` extra's `==` pins of
    the distributions the lab's code imports (`triton` for finding_the_spill)."""
    helpers: tuple[Helper, ...]
    """Each `kernels/` module the lab imports, the package's `__init__.py` first."""


def notebook_path(name: str) -> str:
    return f"{FOLDER}/{name}.ipynb"


def notebook_inputs(root: Path, lab: LabInfo, pins: Mapping[str, Pin],
                    cache: Cache | None = None) -> NotebookInputs:
    try:
        _analysed(lab.text, cache)
    except SyntaxError as e:
        raise InputError(f"lab {lab.name!r} is not valid Python: {e.msg}", Location(lab.path, e.lineno),
                         f"fix it (python -m kernels.{lab.name} shows the same error)") from None
    helpers = _helpers(root, lab.text, cache)
    imported = set().union(*(_analysed(text, cache).imported for text in (lab.text, *(t for _, t in helpers))))
    releases = [p.release for p in pins.values() if p.release]
    jax = next((r.partition("==")[2] for r in releases if r.startswith("jax==")), "")
    if jax:
        releases.insert(releases.index(f"jax=={jax}") + 1, f"jaxlib=={jax}")
    for requirement in _labs_pins(root):
        name = re.split(r"[=;\s\[]", requirement, maxsplit=1)[0]
        if name.replace("-", "_") in imported and not any(r.startswith(f"{name}==") for r in releases):
            releases.append(requirement)
    return NotebookInputs(tuple(releases), helpers)


def _helpers(root: Path, text: str, cache: Cache | None) -> tuple[Helper, ...]:
    """The `kernels/` modules `text` imports, and theirs, in a stable order (`__init__.py` first)."""
    found: dict[str, str] = {"kernels/__init__.py": (root / "kernels" / "__init__.py").read_text(encoding="utf-8")}
    todo = [text]
    while todo:
        for module in sorted(_analysed(todo.pop(), cache).kernels):
            path = f"kernels/{module}.py"
            if path not in found:
                if not (root / path).is_file():
                    raise InputError(f"a lab imports kernels.{module}, which has no file", Location(path),
                                     "add the module or remove the import")
                found[path] = (root / path).read_text(encoding="utf-8")
                todo.append(found[path])
    return tuple(Helper(*item) for item in sorted(found.items(), key=lambda item: (not item[0].endswith("__init__.py"), item[0])))


class Imports(NamedTuple):
    """What a module imports: the `kernels` submodules (`from kernels import _platform`,
    `from kernels.flash_attention import x`), and the top-level names of every module, anywhere
    in its code."""

    kernels: frozenset[str]
    imported: frozenset[str]


@dataclass(frozen=True)
class Imported:
    """What a module's `Imports` read: its text."""

    text: str


def _analysed(text: str, cache: Cache | None) -> Imports:
    """A module's `Imports`, kept in the cache by its text (a syntax error raises `SyntaxError`)."""
    return provide(IMPORTS, Imported(text), cache)


def _imports(inputs: Imported) -> Imports:
    kernels: set[str] = set()
    imported: set[str] = set()
    for node in ast.walk(ast.parse(inputs.text)):
        if isinstance(node, ast.ImportFrom) and node.module == "kernels":
            kernels |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kernels."):
            kernels.add((node.module or "").split(".")[1])
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported.add(node.module.split(".")[0])
    return Imports(frozenset(kernels), frozenset(imported))


IMPORTS: Provider[Imported, Imports] = Provider(
    "lab-imports", Imported, _imports,
    as_json(list, lambda found: [sorted(found.kernels), sorted(found.imported)],
            lambda data: Imports(frozenset(data[0]), frozenset(data[1]))))
"""A module's `Imports`."""


def _labs_pins(root: Path) -> list[str]:
    """The `labs` extra's exact pins (`name==version`, with any marker) in pyproject.toml."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return []
    return list(_labs_extra(path.read_text(encoding="utf-8")))


@functools.lru_cache(maxsize=8)
def _labs_extra(text: str) -> tuple[str, ...]:
    """`_labs_pins` of a pyproject.toml's text, parsed once: a build asks for each lab."""
    extras = tomllib.loads(text).get("project", {}).get("optional-dependencies", {})
    return tuple(r for r in extras.get("labs", []) if "==" in r)


def build_notebook(lab: LabInfo, inputs: NotebookInputs) -> Any:
    """The lab's notebook (an `nbformat` v4 node, validated), cell ids stable across runs."""
    import jupytext
    import nbformat
    from nbformat import v4

    cells = [v4.new_code_cell(setup_cell(lab, inputs.releases)), v4.new_markdown_cell(_intro(lab))]
    if inputs.helpers:
        names = ", ".join(f"`{path}`" for path, _ in inputs.helpers)
        cells.append(v4.new_markdown_cell(
            f"## The lab's helpers\n\nThe lab imports {names} from the project's `kernels` package: "
            f"the cells below write them into `{SUPPORT}/kernels/` and put `{SUPPORT}` first on the "
            "import path."))
        cells.append(v4.new_code_cell(
            f"import os\nimport sys\n\nos.makedirs({SUPPORT + '/kernels'!r}, exist_ok=True)\n"
            f"sys.path.insert(0, os.path.abspath({SUPPORT!r}))"))
        cells += [v4.new_code_cell(f"%%writefile {SUPPORT}/{path}\n{text.rstrip()}")
                  for path, text in inputs.helpers]
    module = jupytext.reads(lab.text, fmt="py:percent")
    for i, cell in enumerate(module.cells):
        source = _without_docstring(cell.source) if i == 0 else cell.source
        source = _MAIN_GUARD.sub("", source).strip("\n")
        if title := cell.metadata.get("title"):
            cells.append(v4.new_markdown_cell(f"## {title}"))
        if source:
            cells.append(v4.new_code_cell(source))
    cells.append(v4.new_markdown_cell(
        f"## Run it\n\nThe lab's `main` with its default arguments, as `python -m kernels.{lab.name}` runs it."))
    cells.append(v4.new_code_cell("assert main([]) == 0"))
    nb = v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "colab": {"name": f"{lab.name}.ipynb", "provenance": []},
    })
    for i, cell in enumerate(nb.cells):
        cell.id = f"{lab.name[:48]}-{i:02d}"
    nbformat.validate(nb)
    return nb


def notebook_text(lab: LabInfo, inputs: NotebookInputs) -> str:
    import nbformat

    return nbformat.writes(build_notebook(lab, inputs)) + "\n"


def notebooks(root: Path, labs: Sequence[LabInfo], pins: Mapping[str, Pin],
              cache: Cache | None = None) -> dict[str, str]:
    """Every lab's notebook text by lab name, each read back from the cache while its inputs are
    unchanged (so a warm build never loads jupytext, and a lab's edit makes its notebook alone)."""
    known, todo = _known(root, labs, pins, cache)
    made = {lab.name: provide(NOTEBOOKS, notebook, cache) for lab, _, notebook in todo}
    return {lab.name: known.get(lab.name) or made[lab.name] for lab in labs}


Unmade = list[tuple[LabInfo, NotebookInputs, "Notebook"]]
"""The labs whose notebooks the cache lacks: each with its notebook's inputs (the lab's, and
the provider's)."""


@dataclass(frozen=True)
class Notebook:
    """What a lab's generated notebook reads: the lab and its notebook's inputs."""

    lab: LabInfo
    inputs: NotebookInputs


def _notebook(inputs: Notebook) -> str:
    return notebook_text(inputs.lab, inputs.inputs)


NOTEBOOKS: Provider[Notebook, str] = Provider("notebooks-v1", Notebook, _notebook, as_json(str))
"""A lab's notebook as generated (`notebook_text`)."""


def _known(root: Path, labs: Sequence[LabInfo], pins: Mapping[str, Pin],
           cache: Cache | None) -> tuple[dict[str, str], Unmade]:
    """The notebooks the cache holds by lab name, and the labs whose notebooks it lacks (a lab that
    is not valid Python: an InputError, here)."""
    known, todo = {}, []
    for lab in labs:
        inputs = notebook_inputs(root, lab, pins, cache)
        hit = kept(NOTEBOOKS, Notebook(lab, inputs), cache)
        if hit is not None:
            known[lab.name] = hit
        else:
            todo.append((lab, inputs, Notebook(lab, inputs)))
    return known, todo


@dataclass(frozen=True)
class Shipped:
    """What whether the committed notebook is served reads: the generated notebook's text and the
    committed notebook's."""

    text: str
    committed: str


def _same(inputs: Shipped) -> bool:
    from reader.labs.outputs import inputs_of

    return bool(inputs.committed) and inputs_of(inputs.committed) == inputs.text


SHIPPED: Provider[Shipped, bool] = Provider("notebook-shipped", Shipped, _same, as_json(bool))
"""Whether a lab's committed notebook has the generated one's inputs (then it is served)."""


def shipped(root: Path, labs: Sequence[LabInfo], pins: Mapping[str, Pin],
            cache: Cache | None = None) -> dict[str, str]:
    """Every lab's notebook as the site serves it: the committed one, with its outputs, where its
    inputs are the lab's; else the one generated now (without outputs)."""
    return start_shipped(root, labs, pins, cache)()


def start_shipped(root: Path, labs: Sequence[LabInfo], pins: Mapping[str, Pin], cache: Cache | None = None,
                  workers: Workers | None = None) -> Callable[[], dict[str, str]]:
    """`shipped` in two steps: the notebooks the cache lacks start now, on a process of their own
    (`workers.beside`: jupytext and nbformat take 0.5 s to import, a lab's edit need not wait for
    them), and the returned call waits for them. A lab that is not valid Python raises here."""
    known, todo = _known(root, labs, pins, cache)

    def make() -> list[str]:
        return [_served(root, lab.name, provide(NOTEBOOKS, notebook, cache), cache) for lab, _, notebook in todo]
    made = workers.beside(make) if workers is not None and todo else make

    def finish() -> dict[str, str]:
        served = dict(zip((lab.name for lab, _, _ in todo), made(), strict=True))
        return {lab.name: served.get(lab.name) or _served(root, lab.name, known[lab.name], cache) for lab in labs}
    return finish


def _served(root: Path, name: str, text: str, cache: Cache | None) -> str:
    """The committed notebook of lab `name` when its inputs are `text`, else `text`."""
    committed = root / notebook_path(name)
    found = committed.read_text(encoding="utf-8") if committed.is_file() else ""
    return found if provide(SHIPPED, Shipped(text, found), cache) else text


def _intro(lab: LabInfo) -> str:
    lines = [f"# {lab.heading}", "", description(lab.docstring)]
    if lab.exercises:
        lines += ["", "The pinned code it exercises:", ""]
        lines += [f"- `{symbol or path}` in `{path}`" for path, symbol in lab.exercises]
    lines += ["", f"Generated from `{lab.path}` by `reader notebooks`: change the module, not this notebook."]
    return "\n".join(lines)


def _without_docstring(source: str) -> str:
    """A module's first cell without the module docstring (the notebook's text cell holds it)."""
    tree = ast.parse(source)
    first = tree.body[0] if tree.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return "\n".join(source.splitlines()[first.end_lineno or 0:])
    return source


def setup_cell(lab: LabInfo, releases: Sequence[str]) -> str:
    return SETUP.replace("{heading}", lab.heading).replace("{releases}", repr(list(releases)))


SETUP = '''\
# {heading}: setup. Installs the releases the track pins (pins.toml) with jax's jaxlib for
# this runtime (jax[tpu] on a TPU; jax[cuda12] or jax[cuda13] on a GPU, by its driver's CUDA),
# unless they are installed already; then says what it has and where the kernels will run.
import glob
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys

RELEASES = {releases}


def accelerator():
    """'tpu', 'cuda12' or 'cuda13' for this runtime's chip; '' when it has none (a CPU)."""
    if os.environ.get("COLAB_TPU_ADDR") or glob.glob("/dev/accel[0-9]*") or glob.glob("/dev/vfio/[0-9]*"):
        return "tpu"
    if shutil.which("nvidia-smi"):
        smi = subprocess.run(["nvidia-smi"], capture_output=True, text=True).stdout
        if cuda := re.search(r"CUDA Version: (\\d+)", smi):
            return "cuda13" if int(cuda.group(1)) >= 13 else "cuda12"
    return ""


def installed(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def plugin_at_jaxs_pin(plugin, chip):
    """Whether `plugin` is installed at the version the installed jax's `chip` extra pins."""
    have = installed(plugin)
    for requirement in importlib.metadata.requires("jax") or []:
        spec, _, marker = requirement.partition(";")
        if re.match(rf"\\s*{re.escape(plugin)}\\b", spec) and f'"{chip}"' in marker.replace("'", '"'):
            pins = re.findall(r"(?:==|<=|>=)\\s*([\\w.*]+)", spec)
            return have is not None and all(have == v or (v.endswith("*") and have.startswith(v[:-1])) for v in pins)
    return have is not None


chip = accelerator()
plugin = {"tpu": "libtpu", "cuda12": "jax-cuda12-plugin", "cuda13": "jax-cuda13-plugin"}.get(chip)
wanted = []
for release in RELEASES:
    name, _, version = release.partition(";")[0].strip().partition("==")
    current = installed(name) == version
    if name == "jax" and plugin and current:
        current = plugin_at_jaxs_pin(plugin, chip)
    if not current:
        wanted.append(f"jax[{chip}]=={version}" if name == "jax" and chip else release)
if wanted:
    print("installing:", " ".join(wanted))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", *wanted], check=True)
    if "jax" in sys.modules:
        print("jax was imported before this install: restart the runtime and run this cell again")
else:
    print("the pinned releases are installed already:", " ".join(RELEASES))
dists = [r.partition(";")[0].partition("==")[0].strip() for r in RELEASES] + ([plugin] if plugin else [])
print("installed:", ", ".join(f"{d} {installed(d)}" for d in dists if installed(d)))
print("runtime:", f"{chip}: jax[{chip}] runs the kernels built for it natively, the others interpreted" if chip
      else "no TPU or GPU found, so the kernels run in interpret mode on the CPU")'''
