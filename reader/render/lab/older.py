"""An older edition's lab pages: it runs no labs of its own, and each lab's page there says so and
links the lab in the current edition (`reader/editions.py`)."""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass

from reader.render.code.annotated import page_markdown
from reader.render.common.model import Page
from reader.render.common.urls import html_of, lab_page
from reader.render.kind import World


@dataclass(frozen=True)
class CurrentLabInputs:
    name: str
    to_current: str
    """The current edition's root from this edition's root (`../`)."""


@dataclass(frozen=True)
class CurrentLabKind:
    """The `lab` kind of an older edition, `to_current` below the current one."""

    to_current: str
    name: str = "lab"

    def collect(self, world: World) -> World:
        return world

    def pages(self, world: World, artifacts: bool) -> Iterable[str]:
        return [] if artifacts else list(world.labs.by_name)

    def inputs(self, world: World, name: str) -> CurrentLabInputs:
        return CurrentLabInputs(name, self.to_current)

    def render(self, world: World, inputs: CurrentLabInputs) -> Page:
        lab = world.labs.by_name[inputs.name]
        uri = lab_page(lab.name)
        href = "../" + inputs.to_current + html_of(uri)  # from labs/<name>.html
        body = (f'<p class="rd-edition-lab">This older edition runs no labs of its own: '
                f'<a href="{html.escape(href)}">{html.escape(lab.heading)}</a> is the current '
                f"edition's lab, at the current pins.</p>")
        return Page(uri, lab.heading, page_markdown(lab.heading), body)

    def prose(self, world: World, inputs: CurrentLabInputs) -> Iterable[str]:
        return ()
