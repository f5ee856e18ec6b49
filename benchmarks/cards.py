"""Hover cards' weight: a built site's card data (`readerCards.add` in `assets/code/**.js`,
reader/render/code/cards.py).

    python benchmarks/cards.py SITE [--top N]

Prints how many scripts there are, their bytes in all, the N biggest, and, for those, which part
of a card's data takes the bytes (the code lines shown, the uses, the rest). A page loads one
script per file it links into, the first time such a link is hovered or focused. Nothing asserts.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

from reader.packed import unpacked_call

_SCRIPT = re.compile(r'readerCards\.add\(("[^"]+"),(.*)\);\n', re.S)


def parts(script: bytes) -> Counter[str]:
    """Bytes of a data script's cards by part: `code`, `uses`, `notes`, `other`."""
    calls = (unpacked_call(script) or b"").decode("utf-8").splitlines(keepends=True)
    m = _SCRIPT.fullmatch(calls[2]) if len(calls) > 2 else None  # paint, scopes, cards, uses
    if m is None:
        raise SystemExit("not a card script")
    data = json.loads(m.group(2))
    out: Counter[str] = Counter()
    for d in data["defs"]:
        for key, value in d.items():
            part = {"c": "code", "u": "uses", "n": "notes"}.get(key, "other")
            out[part] += len(json.dumps(value, separators=(",", ":")))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--top", type=int, default=5)
    args = parser.parse_args()
    scripts = sorted((args.site / "assets" / "code").rglob("*.js"), key=lambda p: -p.stat().st_size)
    total = sum(p.stat().st_size for p in scripts)
    print(f"{len(scripts)} page scripts (paint, scopes, cards, uses), {total / 1e6:.2f} MB in all")
    for path in scripts[:args.top]:
        split = parts(path.read_bytes())
        shown = ", ".join(f"{k} {v / 1e3:.0f} kB" for k, v in split.most_common())
        print(f"  {path.stat().st_size / 1e3:7.1f} kB  {path.relative_to(args.site)}  ({shown})")


if __name__ == "__main__":
    main()
