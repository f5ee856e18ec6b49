"""The track's Markdown on a page: placeholders resolved to links and facts, then rendered safely."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from reader.annotations.markup import Placeholder, parse, substitute
from reader.cache import Cache
from reader.providers import Provider, as_json, provide
from reader.render.common.figure import Figure, figure_html
from reader.render.common.markdown import render_markdown
from reader.render.common.model import PageLink
from reader.render.common.urls import article_page, lab_page, rel

SourceResolver = Callable[[str, str], PageLink | None]
"""(path, qualname or '') -> where that definition (or file) is on the site, or None."""
FigureSource = Callable[[str], Figure | None]
"""A figure's name -> the figure (`figures.Figures`), or None: no such figure, or it failed."""

NOT_COMPUTED = "*(not computed at these pins)*"
"""A fact the pins give no value for, in the text citing it."""
@dataclass(frozen=True)
class Marked:
    """What a piece of prose's HTML reads: its Markdown."""

    text: str


def _marked(inputs: Marked) -> str:
    return render_markdown(inputs.text)


MARKDOWN: Provider[Marked, str] = Provider("markdown", Marked, _marked, as_json(str))
"""A piece of prose's Markdown as HTML."""
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|<>])")


def md_escape(text: str) -> str:
    """Text that Markdown shows as it is."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def _code(text: str) -> str:
    ticks = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fact_text(value: object) -> str:
    """A fact as Markdown: a number or a string as it is, a list as its items in code, comma-separated."""
    if isinstance(value, (list, tuple)):
        return ", ".join(_code(str(v)) for v in value)
    return md_escape(str(value))


@dataclass
class Prose:
    """Renders Markdown with `{{fact:..}}`, `{{figure:..}}`, `[[path::symbol]]`, `[[lab:..]]`,
    `[[page:..]]`."""

    source: SourceResolver
    articles: Mapping[str, str] = field(default_factory=dict)
    """slug -> title of every article on the site."""
    labs: Mapping[str, str] = field(default_factory=dict)
    """name -> title of every lab on the site."""
    facts: Callable[[], Mapping[str, object] | None] = lambda: None
    """The computed facts by name, computed on the first fact a text cites; None: not computable."""
    figures: FigureSource = lambda _name: None
    """The computed figures by name."""
    absent: Callable[[str], str] = lambda _name: ""
    """Why a fact is not computed: where and why its extractor failed at these pins (empty when
    no extractor names it)."""
    figure_absent: Callable[[str], str] = lambda _name: ""
    """Why a figure is not computed: where and why its maker failed at these pins (empty when it
    is made, or no maker has that name)."""
    unresolved: list[str] = field(default_factory=list)
    """Placeholders that linked nowhere, for the build to report."""
    cache: Cache | None = None
    """Where the Markdown's HTML is kept by the Markdown it was made from (`render_markdown` is
    a function of its text: an edited note renders its own Markdown alone, on every page)."""

    _facts: dict[str, object] | None = field(default=None, init=False, repr=False)

    def html(self, text: str, page: str) -> str:
        """`text` as safe HTML for `page`, links relative to it. A figure goes in after the
        author's Markdown is sanitised: a token stands in its place until then."""
        nonce = hashlib.sha1(text.encode()).hexdigest()[:12]  # a text cannot contain its own hash
        figures: dict[str, str] = {}

        def place(p: Placeholder) -> str:
            if p.kind != "figure":
                return self._placeholder(p, page)
            token = f"rdfigure{nonce}n{len(figures)}"
            figures[token] = p.target
            return token

        out = self._markdown(substitute(text, place))
        for token, name in figures.items():
            figure = self.figures(name)
            absent = figure is None and bool(self.figure_absent(name))  # the build says why
            if figure is None and not absent:
                self.unresolved.append(f"figure {name}")
            shown = figure_html(figure, name, page, absent)
            out = out.replace(f"<p>{token}</p>", shown).replace(token, shown)
        return out

    def _markdown(self, text: str) -> str:
        return provide(MARKDOWN, Marked(text), self.cache)

    def load_facts(self) -> dict[str, object]:
        """The facts, computed on the first call."""
        if self._facts is None:
            self._facts = dict(self.facts() or {})
        return self._facts

    def absences(self, texts: Iterable[str]) -> list[str]:
        """Why the facts and figures `texts` cite that are not computed are not (`absent`,
        `figure_absent`), each reason once."""
        cited = [p for text in texts for p in parse(text)[0] if p.kind in ("fact", "figure")]
        facts = self.load_facts() if any(p.kind == "fact" for p in cited) else {}
        why = [self.absent(p.target) if p.kind == "fact" and p.target not in facts
               else self.figure_absent(p.target) if p.kind == "figure" else "" for p in cited]
        return list(dict.fromkeys(filter(None, why)))

    def _placeholder(self, p: Placeholder, page: str) -> str:
        if p.kind == "fact":
            self.load_facts()
            assert self._facts is not None
            if p.target in self._facts:
                return fact_text(self._facts[p.target])
            self.unresolved.append(f"fact {p.target}")  # `reader check` reports it at the pins
            return NOT_COMPUTED  # an older edition's code today's extractor cannot read: `absences`
        if p.kind == "lab":
            return self._link(p.label or self.labs.get(p.target, p.target),
                              rel(page, lab_page(p.target)) if p.target in self.labs else "", p)
        if p.kind == "page":
            title = self.articles.get(p.target, p.target)
            return self._link(p.label or title,
                              rel(page, article_page(p.target)) if p.target in self.articles else "", p)
        target = self.source(p.target, p.symbol)
        href = rel(page, target.page, target.fragment) if target is not None else ""
        return self._link(p.label, href, p, code=p.symbol or p.target)

    def _link(self, label: str, href: str, p: Placeholder, code: str = "") -> str:
        text = md_escape(label) if label else _code(code)
        if not href:
            self.unresolved.append(f"{p.kind} {p.target}{'::' + p.symbol if p.symbol else ''}")
            return text
        return f"[{text}](<{href}>)"
