"""The lowering-rules page: every backend's table at the pins and, where the rules' pin has a
`history`, each primitive's rules across those releases."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reader.extract.providers import load_rules
from reader.extract.rulehistory import RuleHistory
from reader.extract.unimplemented import messages
from reader.render.common.links import target_of
from reader.render.common.model import Page
from reader.render.common.urls import RULES
from reader.render.kind import World
from reader.render.rules.page import rules_page


@dataclass(frozen=True)
class RulesInputs:
    history: RuleHistory | None
    """Read from the releases' archives (cached): not a function of the pinned files."""


class RulesKind:
    name = "rules"

    def collect(self, world: World) -> World:
        return world

    def pages(self, world: World, artifacts: bool) -> Iterable[str]:
        return [] if artifacts else [RULES]

    def inputs(self, world: World, name: str) -> RulesInputs:
        return RulesInputs(world.editions.history)

    def render(self, world: World, inputs: RulesInputs) -> Page:
        index = world.index
        paths = {m: path for m, (_, path) in index.files.items()}
        errors = messages(paths, lambda m: world.corpus.read_text(*index.files[m]))
        return rules_page(load_rules(world.corpus, index), lambda m, v: target_of(index, m, v),
                          inputs.history, errors)

    def prose(self, world: World, inputs: RulesInputs) -> Iterable[str]:
        return ()


RULES_KIND = RulesKind()
