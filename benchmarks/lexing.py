"""Why reader has a lexer of its own: pygments' Python lexer against reader's joined one
(reader/render/code/lexing.py) on the pinned files.

    python benchmarks/lexing.py [--rounds N] [--files N]

Lexes every pinned file of this project (its cache: run `reader fetch` first), side by side, each
round in turn: pygments' own loop (`pygments.lex`, a `re.match` per rule tried) and `JoinedLexer`
(one match per token over the rules that can start with the next character), both on the text as
the lexer prepares it. Prints each one's CPU seconds (user + sys, the best round), their ratio,
the joined lexer's build time, and the files whose tokens differ (there must be none). Nothing
asserts.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pygments  # noqa: E402
from pygments.lexers.python import PythonLexer  # noqa: E402

from reader.corpus import Corpus, Project  # noqa: E402
from reader.render.code.lexing import JoinedLexer  # noqa: E402


def cpu() -> float:
    t = os.times()
    return t.user + t.system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--files", type=int, default=0, help="only the first N files (0: all)")
    args = parser.parse_args()
    corpus = Corpus.open(Project.load(Path(__file__).resolve().parents[1]))
    lexer = PythonLexer(stripnl=False, stripall=False, ensurenl=False)
    texts = [lexer._preprocess_lexer_input(corpus.read_text(pin, path))
             for pin, path in corpus.all_files()][:args.files or None]
    start = cpu()
    joined = JoinedLexer(PythonLexer(stripnl=False, stripall=False, ensurenl=False))
    built = cpu() - start
    best = {"pygments": float("inf"), "joined": float("inf")}
    differ = 0
    for _ in range(args.rounds):
        start = cpu()
        own = [[(t, v) for _, t, v in lexer.get_tokens_unprocessed(text)] for text in texts]
        best["pygments"] = min(best["pygments"], cpu() - start)
        start = cpu()
        ours = [list(joined.tokens(text)) for text in texts]
        best["joined"] = min(best["joined"], cpu() - start)
        differ = sum(a != b for a, b in zip(own, ours, strict=True))
    chars = sum(map(len, texts))
    print(f"pygments {pygments.__version__}, {len(texts)} files, {chars / 1e6:.1f} M characters, "
          f"best of {args.rounds} rounds (CPU s, load {os.getloadavg()[0]:.1f})")
    for name, seconds in best.items():
        print(f"  {name:9} {seconds:6.2f} s  {seconds / chars * 1e6:.2f} us a character")
    print(f"  ratio     {best['joined'] / best['pygments']:.2f}x (joined / pygments), the joined "
          f"lexer built in {built:.2f} s; files whose tokens differ: {differ}")


if __name__ == "__main__":
    main()
