"""A static walk of reader's calls from `reader.site.build_site`: steps, rooms entered, climbs back up.

    python benchmarks/walk.py [--tree DIR] [--start reader.site:build_site] [--follow root] [--handed]
                              [--edges]

Reads the package's sources under `--tree` (default: this checkout; any copy works, e.g.
`git archive REV | tar -x -C DIR`) with `ast`, imports nothing from them, and walks
depth first from the start function, each function entered once. It prints:

- the layout: each package folder of reader/ with its modules and lines (own, then with subfolders);
- steps: the distinct call edges (caller -> callee, both reader functions) out of every function
  entered; rooms entered: the distinct modules and package folders of the functions entered;
- climbs back up: steps from a module to one in a higher layer. Layers come from the `layers`
  contracts of `[tool.importlinter]` in the tree's pyproject.toml; an edge is judged by the contract
  whose layers place both modules most deeply (`reader.render.recipe.generate` -> `reader.opening` by
  the top contract, `reader.render.source` -> `reader.render.common.urls` by the recipe's), and
  modules in one layer there never climb. While the contracts hold, a call made through an import
  cannot climb: what can is a protocol's method implemented above (see below).
- re-entries, counted apart: steps into a room that is on the current call path below a frame in
  another room (the path left the room and comes back into it). A room is a package folder; a
  module directly in reader/ is a room of its own (reader/errors.py is not in reader/site.py's room);
- the walk read in the order the functions were entered, one after the other (as a reader follows
  it): the moves up a layer, and the moves into another room entered before;
- with `--follow NAME`, the same over the edges that pass the start function's parameter NAME on.

How `--follow` approximates the flow: an argument passes the value on when it is the value itself,
not something made from it: a name that carries it, any attribute named NAME (`project.root`,
`self.root`), a call of a carrying value's method without arguments (`root.resolve()`), or `a or b`
/ `a if c else b` with a carrying branch. In an entered function the names that carry are its
parameters bound to such arguments (by position and keyword; a dataclass's fields stand for its
`__init__`) and the names assigned from such expressions (`=`, `:=`, `for`, `with ... as`; a fixed
point, whatever their order). Passing an object that holds the value (`project`) does not count; a
class entered with it passes it to its `__init__`/`__post_init__`. A function is entered once, with
the names that carried on its first entry.

How calls resolve, and what the walk cannot resolve: benchmarks/callgraph.py says.
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from callgraph import Body, Callee, Index, Module, assignments, read_package, stored_names

ROOT = Path(__file__).resolve().parent.parent
DUNDER_ENTRIES = ("__init__", "__post_init__", "__new__")

@dataclass
class Walk:
    """What one walk found."""

    entered: list[str] = field(default_factory=list)
    steps: list[tuple[str, str]] = field(default_factory=list)
    climbs: list[tuple[str, str]] = field(default_factory=list)
    reentries: list[tuple[str, str]] = field(default_factory=list)
    calls: Counter[str] = field(default_factory=Counter)
    """Calls in the functions entered: "reader", "outside", "unresolved", "handed"."""
    longest: list[str] = field(default_factory=list)
    order_climbs: int = 0
    """In the order the functions were entered: moves from one to the next up a layer."""
    order_reentries: int = 0
    """In that order: moves into another room, one entered before."""


# --- the flow of one parameter -------------------------------------------------------------------

def carrying(expr: ast.AST | None, carriers: frozenset[str], follow: str) -> bool:
    """Whether an expression's value is the followed value itself (not one made from it)."""
    if isinstance(expr, ast.Name):
        return expr.id in carriers
    if isinstance(expr, ast.Attribute):
        return expr.attr == follow
    if isinstance(expr, ast.Call):  # root.resolve()
        return (not expr.args and not expr.keywords and isinstance(expr.func, ast.Attribute)
                and carrying(expr.func.value, carriers, follow))
    if isinstance(expr, ast.BoolOp):
        return any(carrying(value, carriers, follow) for value in expr.values)
    if isinstance(expr, ast.IfExp):
        return carrying(expr.body, carriers, follow) or carrying(expr.orelse, carriers, follow)
    if isinstance(expr, ast.Starred | ast.keyword | ast.NamedExpr):
        return carrying(expr.value, carriers, follow)
    return False


def spread(node: ast.AST, carriers: frozenset[str], follow: str) -> frozenset[str]:
    """The names in a function that carry, from its carrying parameters (a fixed point)."""
    if isinstance(node, ast.ClassDef):
        return carriers
    pairs = list(assignments(node))
    while True:
        more = {name for target, value in pairs if carrying(value, carriers, follow)
                for name in stored_names(target)}
        if more <= carriers:
            return carriers
        carriers = carriers | more


def parameters(index: Index, callee: Callee) -> tuple[list[str], set[str], str | None, str | None]:
    """The callee's positional names (the receiver's dropped), keyword-only names, *args, **kwargs."""
    node = index.funcs[callee.key].node
    if isinstance(node, ast.ClassDef):
        init = index.member(callee.key, "__init__")
        if init and not isinstance(index.funcs[init].node, ast.ClassDef):
            return parameters(index, Callee(init, True))
        fields = [s.target.id for s in node.body if isinstance(s, ast.AnnAssign)
                  and isinstance(s.target, ast.Name) and "ClassVar" not in ast.dump(s.annotation)]
        return fields, set(), None, None
    args = node.args
    names = [a.arg for a in [*args.posonlyargs, *args.args]][int(callee.skip_first):]
    var, kw = (args.vararg.arg if args.vararg else None), (args.kwarg.arg if args.kwarg else None)
    return names, {a.arg for a in args.kwonlyargs}, var, kw


def bound(index: Index, call: ast.Call, callee: Callee, carriers: frozenset[str],
          follow: str) -> frozenset[str]:
    """The callee's parameters that receive a carrying argument."""
    names, kwonly, var, kw = parameters(index, callee)
    out: set[str] = set()
    for i, arg in enumerate(call.args):
        if not carrying(arg, carriers, follow):
            continue
        if isinstance(arg, ast.Starred) or i >= len(names):
            out.update(n for n in (var, *names[i:]) if n)
        else:
            out.add(names[i])
    for keyword in call.keywords:
        if carrying(keyword.value, carriers, follow):
            name = keyword.arg if keyword.arg in names or keyword.arg in kwonly else kw
            out.update([name] if name else names)
    return frozenset(out)


# --- the walk ------------------------------------------------------------------------------------

class Layers:
    """The `layers` contracts of import-linter: where each module stands, and which edges climb."""

    def __init__(self, pyproject: Path) -> None:
        self.contracts: list[list[list[str]]] = []
        if not pyproject.is_file():
            return
        config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        contracts = config.get("tool", {}).get("importlinter", {}).get("contracts", [])
        for contract in contracts:
            if contract.get("type") != "layers":
                continue
            containers = contract.get("containers") or [""]
            self.contracts.append([
                [f"{c}.{name}" if c else name for c in containers
                 for name in _layer_names(layer)] for layer in contract.get("layers", [])])

    def place(self, contract: list[list[str]], module: str) -> tuple[int, int] | None:
        """(layer index, depth of the deepest matching name) of a module in one contract."""
        best = None
        for i, names in enumerate(contract):
            for name in names:
                if module == name or module.startswith(name + "."):
                    depth = name.count(".") + 1
                    if best is None or depth > best[1]:
                        best = (i, depth)
        return best

    def climbs(self, caller: str, callee: str) -> bool:
        """Whether callee's layer is above caller's, in the contract placing both most deeply."""
        best: tuple[int, int, int] | None = None
        for contract in self.contracts:
            a, b = self.place(contract, caller), self.place(contract, callee)
            if a and b and (best is None or a[1] + b[1] >= best[0]):
                best = (a[1] + b[1], a[0], b[0])
        return best is not None and best[2] < best[1]


def _layer_names(layer: str) -> list[str]:
    text = layer.replace(":", "|").replace("(", "").replace(")", "")
    return [name.strip() for name in text.split("|") if name.strip()]


@dataclass
class Frame:
    key: str
    edges: Iterator[tuple[str, frozenset[str]]]


@dataclass(frozen=True)
class How:
    follow: str
    """The followed parameter ("": every call)."""
    handed: bool
    """Functions handed on as values are followed as edges too."""


def edges(index: Index, key: str, carriers: frozenset[str] | None, how: How,
          counts: Counter[str]) -> Iterator[tuple[str, frozenset[str]]]:
    """The distinct callees a function enters (with `carriers`: the carrying calls only), in order."""
    func = index.funcs[key]
    found: dict[str, frozenset[str]] = {}
    if isinstance(func.node, ast.ClassDef):
        for name in DUNDER_ENTRIES:
            entry = index.member(key, name)
            if entry and not isinstance(index.funcs[entry].node, ast.ClassDef):
                first = parameters(index, Callee(entry, False))[0][:1]
                found[entry] = frozenset([*(carriers or ()), *first])
        yield from found.items()
        return
    body, follow = Body(index, func), how.follow
    flowing = spread(func.node, carriers, follow) if carriers is not None else None
    for call in body.calls():
        counts[body.kind(call)] += 1
        handed = body.handed(call)
        counts["handed"] += len(handed)
        passing = flowing is not None and any(
            carrying(a, flowing, follow) for a in [*call.args, *call.keywords])
        for callee in body.resolve(call):
            binds = bound(index, call, callee, flowing, follow) if flowing is not None else frozenset()
            if flowing is None or passing or binds:
                found[callee.key] = found.get(callee.key, frozenset()) | binds
        for callee in handed if how.handed and (flowing is None or passing) else []:
            names, kwonly, var, kw = parameters(index, callee)
            given = {a.id for a in call.args if isinstance(a, ast.Name)} | {follow}
            binds = frozenset(n for n in [*names, *kwonly, var, kw] if n in given)
            found[callee.key] = found.get(callee.key, frozenset()) | binds
    yield from found.items()


def walk(index: Index, layers: Layers, start: str, follow: str | None = None,
         handed: bool = False) -> Walk:
    """Depth first from `start`, each function entered once (see the module's docstring)."""
    result = Walk()
    first: frozenset[str] | None = frozenset([follow]) if follow else None
    how = How(follow or "", handed)
    stack = [Frame(start, edges(index, start, first, how, result.calls))]
    parent: dict[str, str | None] = {start: None}
    depth, deepest = {start: 1}, start
    result.entered.append(start)
    while stack:
        frame = stack[-1]
        step = next(frame.edges, None)
        if step is None:
            stack.pop()
            continue
        callee, carriers = step
        caller_mod, callee_mod = index.funcs[frame.key].module, index.funcs[callee].module
        result.steps.append((frame.key, callee))
        if caller_mod != callee_mod and layers.climbs(caller_mod, callee_mod):
            result.climbs.append((frame.key, callee))
        here, there = index.room(caller_mod), index.room(callee_mod)
        if here != there and there in {index.room(index.funcs[f.key].module) for f in stack}:
            result.reentries.append((frame.key, callee))
        if callee in parent:
            continue
        parent[callee], depth[callee] = frame.key, depth[frame.key] + 1
        deepest = callee if depth[callee] > depth[deepest] else deepest
        result.entered.append(callee)
        carried = carriers if follow else None
        stack.append(Frame(callee, edges(index, callee, carried, how, result.calls)))
    node: str | None = deepest
    while node is not None:
        result.longest.insert(0, node)
        node = parent[node]
    _in_order(index, layers, result)
    return result


def _in_order(index: Index, layers: Layers, result: Walk) -> None:
    """The walk read as a reader reads it, one function after the other in the order entered."""
    order = [index.funcs[key].module for key in result.entered]
    seen: set[str] = set()
    for here, there in zip(order, order[1:], strict=False):
        seen.add(index.room(here))
        if here != there and layers.climbs(here, there):
            result.order_climbs += 1
        if index.room(here) != index.room(there) and index.room(there) in seen:
            result.order_reentries += 1


# --- printing ------------------------------------------------------------------------------------

def layout(modules: dict[str, Module], package: str) -> list[str]:
    """Each package folder: its own modules and lines, then (with subfolders) all of them."""
    own: dict[str, list[Module]] = {}
    for module in modules.values():
        own.setdefault(module.package, []).append(module)
    lines = [f"layout ({package}/: modules, lines; [with its subfolders]):"]
    for folder in sorted(own, key=lambda f: f.split(".")):
        inner = [m for f, ms in own.items() if f == folder or f.startswith(folder + ".") for m in ms]
        label = "  " * folder.count(".") + folder.rpartition(".")[2] + "/"
        mods = own[folder]
        text = f"  {label:<24}{len(mods):>4} {sum(m.lines for m in mods):>7,}"
        if len(inner) > len(mods):
            text += f"   [{len(inner)} {sum(m.lines for m in inner):,}]"
        lines.append(text)
    return lines


def report(index: Index, result: Walk, title: str, show_edges: bool, handed: bool) -> list[str]:
    modules = {index.funcs[k].module for k in result.entered}
    folders = {index.modules[m].package for m in modules}
    calls = result.calls
    lines = [
        title,
        f"  steps: {len(result.steps):,} call edges; {len(result.entered):,} functions entered",
        f"  rooms entered: {len(modules)} modules in {len(folders)} folders",
        f"  climbs back up: {len(result.climbs)} to a higher layer; "
        f"re-entries: {len(result.reentries)} into a room the path had left",
        f"  in the order entered: {result.order_climbs} moves up a layer, "
        f"{result.order_reentries} into a room entered before",
        f"  calls in the functions entered: {calls['reader']:,} to {index.package}, "
        f"{calls['outside']:,} outside it, {calls['unresolved']:,} unresolved; "
        f"{calls['handed']:,} {index.package} functions handed on as values "
        f"({'followed' if handed else 'not followed'})",
        f"  longest path: {len(result.longest)} functions: "
        + " > ".join(k.partition(":")[2] for k in result.longest),
    ]
    if show_edges:
        for name, pairs in (("climbs", result.climbs), ("re-entries", result.reentries)):
            counted = Counter((index.funcs[a].module, index.funcs[b].module) for a, b in pairs)
            lines.append(f"  {name} by module:")
            lines += [f"    {n:>3}  {a} -> {b}" for (a, b), n in sorted(counted.items())]
        if len(result.entered) <= 60:
            lines.append("  functions entered: " + ", ".join(result.entered))
    return lines


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="a checkout (default: this one)")
    parser.add_argument("--package", default="reader")
    parser.add_argument("--start", default="reader.site:build_site", help="module:function")
    parser.add_argument("--follow", default="root",
                        help="the start's parameter to follow ('' for none)")
    parser.add_argument("--handed", action="store_true",
                        help="follow functions handed on as values (to a pool, a scheduler) too")
    parser.add_argument("--edges", action="store_true",
                        help="list the climbs, the re-entries and (60 at most) the functions entered")
    return parser.parse_args(argv)


def _problem(index: Index, args: argparse.Namespace, tree: Path) -> str | None:
    if args.start not in index.funcs:
        return f"{args.start} not found under {tree} (pass --start module:function)"
    start = index.funcs[args.start].node
    params = [] if isinstance(start, ast.ClassDef) else [
        a.arg for a in [*start.args.posonlyargs, *start.args.args, *start.args.kwonlyargs]]
    if args.follow and args.follow not in params:
        return f"{args.start} has no parameter {args.follow!r} (pass --follow NAME, or '')"
    return None


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    tree = args.tree.resolve()
    if not (tree / args.package).is_dir():
        print(f"walk: error: {tree / args.package}: no such package folder", file=sys.stderr)
        return 2
    modules, failed = read_package(tree, args.package)
    index = Index(modules, args.package)
    problem = _problem(index, args, tree)
    if problem:
        print(f"walk: error: {problem}", file=sys.stderr)
        return 2
    layers = Layers(tree / "pyproject.toml")
    lines = [f"tree: {tree} ({len(modules)} modules, {sum(m.lines for m in modules.values()):,} lines;"
             f" {len(failed)} not parsed{': ' + ', '.join(failed) if failed else ''};"
             f" {len(layers.contracts)} layers contracts)"]
    lines += layout(modules, args.package)
    for follow in ["", args.follow] if args.follow else [""]:
        title = f"following {follow!r}" if follow else "every call"
        result = walk(index, layers, args.start, follow or None, args.handed)
        lines += report(index, result, f"walk from {args.start}, {title}:", args.edges, args.handed)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
