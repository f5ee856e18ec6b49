"""The lowering-rules page: every backend's table, a function of the pinned files alone."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reader.extract.ruletable import load_rules
from reader.render.kind import Site, World
from reader.render.links import target_of
from reader.render.model import Page
from reader.render.rules import rules_page
from reader.render.urls import RULES


@dataclass(frozen=True)
class RulesInputs:
    """None besides the world."""


class RulesKind:
    name = "rules"

    def pages(self, site: Site, artifacts: bool) -> Iterable[str]:
        return [] if artifacts else [RULES]

    def inputs(self, site: Site, name: str) -> RulesInputs:
        return RulesInputs()

    def render(self, world: World, inputs: RulesInputs) -> Page:
        index = world.index
        return rules_page(load_rules(world.corpus, index), lambda m, v: target_of(index, m, v))

    def prose(self, world: World, inputs: RulesInputs) -> Iterable[str]:
        return ()


RULES_KIND = RulesKind()
