"""What the diff pages (reader/render/diff/page.py) cost a build, cold and warm.

    READER_CACHE=... .venv/bin/python benchmarks/diffs.py [--root .]

Runs the site's recipe (`generate_site`, no mkdocs) in this process, once with the diffs' own
cached results refused (the previous edition's pins read from git and its files opened, every
file's hunks computed, every diff page rendered: the cold cost, with the old files' blobs already
in the cache, as after the first build; the first fetch of the old archives is extra and printed by
that build) and once as they are (warm), the rest of the site read back from the cache both
times. Prints the seconds spent in each of the diff pages' steps. Needs a warm cache: run
`reader build` first.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reader.cache import Cache
from reader.editions import filediffs, past, previous
from reader.opening import open_project
from reader.render.diff.kind import DIFF
from reader.render.recipe import generate
from reader.render.recipe.pagecache import PageCache

SPENT: dict[str, float] = defaultdict(float)
COUNT: dict[str, int] = defaultdict(int)


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            SPENT[name] += time.perf_counter() - start
            COUNT[name] += 1
    return run


def measure(root: Path, cold: bool) -> dict[str, float]:
    SPENT.clear()
    COUNT.clear()
    refused = {previous.PREVIOUS.kind, filediffs.DIFF.kind} if cold else set()
    get_object, get_json, get_page = Cache.get_object, Cache.get_json, PageCache.get
    Cache.get_object = lambda self, kind, key: None if kind in refused else get_object(self, kind, key)  # type: ignore[method-assign]
    Cache.get_json = lambda self, kind, key: None if kind in refused else get_json(self, kind, key)  # type: ignore[method-assign]
    PageCache.get = lambda self, kind, shown: None if cold and kind == DIFF.name else get_page(self, kind, shown)  # type: ignore[method-assign]
    load, changed, render = past.load_previous, past.changed_files, DIFF.render
    past.load_previous = _timed("previous edition", load)  # type: ignore[assignment]
    past.changed_files = _timed("hunks", changed)  # type: ignore[assignment]
    DIFF.render = _timed("diff pages rendered", render)  # type: ignore[method-assign]
    start = time.perf_counter()
    try:
        generate.generate_site(open_project(root, Cache()), jobs=1)
    finally:
        Cache.get_object, Cache.get_json, PageCache.get = get_object, get_json, get_page  # type: ignore[method-assign]
        past.load_previous, past.changed_files = load, changed  # type: ignore[assignment]
        del DIFF.render
    return {"total (whole recipe)": time.perf_counter() - start, **SPENT}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path("."))
    args = parser.parse_args(argv)
    for label, cold in (("cold", True), ("warm", False)):
        spent = measure(args.root.resolve(), cold)
        diff_total = sum(v for k, v in spent.items() if k != "total (whole recipe)")
        print(f"{label}: the diff pages' steps {diff_total:.2f} s of a {spent['total (whole recipe)']:.2f} s recipe")
        for name, seconds in spent.items():
            if name != "total (whole recipe)":
                print(f"  {name:22} {seconds:7.2f} s  ({COUNT[name]} call(s))")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
