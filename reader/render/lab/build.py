"""The labs' steps in a build besides their pages (the recipe reaches them through its registry): the
labs opened once the pinned files are scanned (their exercises checked against the index), their
notebooks started, and what the site reports of them (the labs that failed, the Colab note)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from reader.cache import Cache
from reader.corpus import Corpus
from reader.errors import InputError, LabError
from reader.extract import Index
from reader.extract.index import REFS, SCAN
from reader.labs import ArtifactRun, LabArtifacts, LabInfo, code_of, lab_failure, unknown_exercises
from reader.labs.colab import ColabSource, colab_build_note
from reader.labs.notebook import start_shipped
from reader.model import Reference, module_of
from reader.providers import Provider, how, pickled, provide
from reader.render.kind import Labs
from reader.workers import Workers

type CurrentLabs = tuple[LabInfo, ...]
"""The current edition's labs, which an older edition's lab pages link (it runs none of its own)."""


def opened_labs(labs: Sequence[LabInfo], artifacts: ArtifactRun, colab: ColabSource, index: Index,
                corpus: Corpus, cache: Cache | None, current: CurrentLabs | None = None) -> Labs:
    """An edition's labs once its files are scanned (`index`): the current edition's `labs`, run by
    `artifacts`, their exercises checked (one naming code not pinned is an input error, the run
    stopped), their Colab links from `colab`; an older edition's: `current`, the current edition's
    labs, unchecked (their pages show the exercises it lacks as such) and with no Colab link."""
    if current is not None:
        return Labs({lab.name: lab for lab in current}, artifacts, ColabSource("", ""))
    try:
        unknown_exercises(labs, _defined(labs, index, corpus, cache))
    except InputError:
        artifacts.stop()
        raise
    return Labs({lab.name: lab for lab in labs}, artifacts, colab)


def start_notebooks(labs: Labs, corpus: Corpus, cache: Cache | None,
                    workers: Workers) -> Callable[[], dict[str, str]]:
    """The labs' notebooks the cache lacks started on a process of their own (`start_shipped`); the
    call that waits for them gives each lab's notebook, by lab name."""
    return start_shipped(corpus.project.root, list(labs.by_name.values()), corpus.pins, cache, workers)


def lab_failures(labs: Labs, ready: Mapping[str, LabArtifacts]) -> tuple[LabError, ...]:
    """The labs whose run (`ready`) raised: each page says so, and the build fails unless told not to."""
    return tuple(e for name, r in ready.items()
                 if name in labs.by_name and (e := lab_failure(labs.by_name[name], r)))


def lab_notes(labs: Labs) -> list[str]:
    """The labs' note for the track's author: why their pages have no Colab link, if so."""
    return [note for note in [colab_build_note(labs.colab)] if note and labs.by_name]


def _defines(index: Index, path: str, symbol: str) -> bool:
    """Whether `path` is a pinned file that defines `symbol` (any symbol when empty)."""
    module = module_of(path)
    found = index.files.get(module)
    return found is not None and found[1] == path and (not symbol or index.symbol(module, symbol) is not None)


def _defined(labs: Sequence[LabInfo], index: Index, corpus: Corpus,
             cache: Cache | None) -> Callable[[str, str], bool]:
    """`_defines` for the labs' exercises, the answers kept by the files they name (their pins and
    blobs): a warm build loads none of those files' scans."""
    asked = sorted({(e.path, e.symbol) for lab in labs for e in lab.exercises})
    where = [(path, symbol, found, corpus.blob(*found) if found and corpus.has(*found) else "")
             for path, symbol in asked for found in [index.files.get(module_of(path))]]
    known = provide(EXERCISES, Exercised(tuple(where), index), cache)
    return lambda path, symbol: (path, symbol) in known


@dataclass(frozen=True)
class Exercised:
    """What the answers to whether the labs' exercises name definitions read: each exercise's path
    and symbol, with the pinned file and blob it names; the producer's way to them: the index."""

    where: tuple[tuple[str, str, tuple[str, str] | None, str], ...]
    index: Index | None = how()


def _exercised(inputs: Exercised) -> frozenset[tuple[str, str]]:
    index = inputs.index
    assert index is not None
    return frozenset((p, s) for p, s, _, _ in inputs.where if _defines(index, p, s))


EXERCISES: Provider[Exercised, frozenset[tuple[str, str]]] = Provider(
    "exercises", Exercised, _exercised, pickled(frozenset), (SCAN,))
"""The labs' exercises that name a definition of the pins."""


@dataclass(frozen=True)
class LabRefs:
    """What a lab's references into the corpus read: the world (the pinned blobs), the lab's name,
    path and code without its docstring's words (`code_of`: its lines kept: a docstring holds no
    reference); the producer's way to them: the lab's text and the corpus's index."""

    world: str
    name: str
    path: str
    code: str
    text: str = how("")
    index: Index | None = how()


def _references(inputs: LabRefs) -> list[Reference]:
    assert inputs.index is not None
    return inputs.index.references_in(inputs.text, inputs.path)


LAB_REFS: Provider[LabRefs, list[Reference]] = Provider("lab-refs", LabRefs, _references, pickled(list),
                                                        (SCAN, REFS))
"""A lab's references into the corpus (resolving them reads many modules: 0.13 s of a docstring's edit)."""


def lab_refs(labs: Iterable[LabInfo], index: Index, cache: Cache | None, world: str) -> dict[str, list[Reference]]:
    """Each lab's references into the corpus (`LAB_REFS`), which its page reads."""
    return {lab.name: provide(LAB_REFS, LabRefs(world, lab.name, lab.path, code_of(lab.text), lab.text, index), cache)
            for lab in labs}
