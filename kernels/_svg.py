"""A minimal hand-written SVG builder for the labs' figures (no plotting dependency)."""

from __future__ import annotations

from html import escape


class Svg:
    """Accumulates SVG elements; `text()` returns the document."""

    def __init__(self, width: int, height: int, title: str):
        self.width, self.height = width, height
        self.parts: list[str] = [f"<title>{escape(title)}</title>",
                                 f'<rect width="{width}" height="{height}" fill="white"/>']

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = "#333",
             width: float = 1, dash: str = "") -> None:
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                          f'stroke="{stroke}" stroke-width="{width}"{extra}/>')

    def polyline(self, points: list[tuple[float, float]], stroke: str, width: float = 2) -> None:
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        self.parts.append(f'<polyline points="{pts}" fill="none" stroke="{stroke}" '
                          f'stroke-width="{width}"/>')

    def rect(self, x: float, y: float, w: float, h: float, fill: str, label: str = "",
             stroke: str = "#222") -> None:
        tip = f"<title>{escape(label)}</title>" if label else ""
        self.parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
                          f'fill="{fill}" stroke="{stroke}" stroke-width="0.5">{tip}</rect>')

    def circle(self, x: float, y: float, r: float, fill: str, label: str = "") -> None:
        tip = f"<title>{escape(label)}</title>" if label else ""
        self.parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{fill}">{tip}</circle>')

    def text(self, x: float, y: float, s: str, size: int = 12, anchor: str = "start",
             fill: str = "#111", rotate: float = 0) -> None:
        rot = f' transform="rotate({rotate} {x:.1f} {y:.1f})"' if rotate else ""
        self.parts.append(f'<text x="{x:.1f}" y="{y:.1f}" font-family="sans-serif" '
                          f'font-size="{size}" text-anchor="{anchor}" fill="{fill}"{rot}>'
                          f"{escape(s)}</text>")

    def document(self) -> str:
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
                f'height="{self.height}" viewBox="0 0 {self.width} {self.height}">')
        return "\n".join([head, *self.parts, "</svg>"]) + "\n"


PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def block_grid(labels: list[list[int]], names: tuple[str, ...], colors: tuple[str, ...],
               title: str, cell: int = 22) -> str:
    """A matrix of blocks (rows: query blocks, columns: key blocks) coloured by label."""
    rows, cols = len(labels), len(labels[0]) if labels else 0
    left, top = 60, 40
    svg = Svg(left + cols * cell + 170, top + rows * cell + 40, title)
    svg.text(left, 20, title, 12)
    svg.text(left + cols * cell / 2, top + rows * cell + 22, "key block", 11, "middle")
    svg.text(24, top + rows * cell / 2, "query block", 11, "middle", rotate=-90)
    for r, row in enumerate(labels):
        for c, value in enumerate(row):
            svg.rect(left + c * cell, top + r * cell, cell, cell, colors[value],
                     f"query block {r}, key block {c}: {names[value]}", "#888")
    for i, (name, color) in enumerate(zip(names, colors, strict=True)):
        y = top + i * 20
        svg.rect(left + cols * cell + 16, y, 14, 14, color, name, "#888")
        svg.text(left + cols * cell + 36, y + 11, name, 11)
    return svg.document()
