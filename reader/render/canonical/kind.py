"""The canonical kernels' lowered pages (`ir/<kernel>.md`), once the labs' run has lowered them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reader.render.common.model import Page
from reader.render.kind import World


@dataclass(frozen=True)
class IrInputs:
    page: str
    digest: str
    """The digest of the kernel's lowered JSON: the page reads it from `World.ir`."""
    labs: str
    """The digest of the labs' texts the view shows (`IrPages.labs_digest`)."""


class IrKind:
    name = "ir"

    def collect(self, world: World) -> World:
        return world

    def pages(self, world: World, artifacts: bool) -> Iterable[str]:
        return [page for page, _ in world.ir.summary.pages] if artifacts else []

    def inputs(self, world: World, name: str) -> IrInputs:
        return IrInputs(name, dict(world.ir.summary.pages)[name], world.ir.labs_digest(name))

    def render(self, world: World, inputs: IrInputs) -> Page:
        return world.ir.render(inputs.page, world.cache)

    def prose(self, world: World, inputs: IrInputs) -> Iterable[str]:
        return ()


IR = IrKind()
