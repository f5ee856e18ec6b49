"""A static walk of reader's calls from `reader.site.build_site`: steps, rooms entered, climbs back up.

    python benchmarks/walk.py [--tree DIR] [--start reader.site:build_site] [--follow root] [--handed]
                              [--edges]

Reads the package's sources under `--tree` (default: this checkout; any copy works, e.g.
`git archive 3189c1c | tar -x -C /tmp/before`) with `ast`, imports nothing from them, and walks
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

How calls resolve (each call counted as reader, outside reader, or unresolved): a bare name
through the function's nested defs and imports, the enclosing functions', the module's defs, imports
and assignments (`from x import f`, `import x as y; y.f`, relative imports, re-exports followed
through a package's `__init__`), then builtins; `a.b.f` through modules; methods on classes defined
in reader (and their reader bases) when the receiver's class is known by name: `self`/`cls`, a
parameter or `x: C` annotated with one reader class (`C | None` too), `x = C(...)` or `x = f(...)`
with `f` annotated to return one, a module-level `X = C(...)`, a field or property so annotated
(`self.project.corpus.open`), `C.m`, `C(...).m`, an item of a container so annotated (`list[C]`,
`Sequence[C]`, `Mapping[str, C]`: `for c in cs`, `for k, c in m.items()`, `m.values()`, `m[k]`,
`m.get(k)`). A method of a reader `Protocol` enters every reader class that has all the protocol's
methods (the page kinds behind `PageKind`), not the protocol's stub; that is how a call can climb
while the import contracts hold. Calling a reader class enters the class and from it
its `__init__`/`__post_init__`/`__new__`. A method on a value the names say comes from outside
reader (a literal, a parameter annotated `Path` or `list[C]`, an outside call's result) is a call
outside. Unresolved: calls on values of unknown type (loop variables, items of containers, callables
held in variables or passed in). Functions handed on as values (to a pool, a scheduler) are counted,
and followed only with `--handed` (as edges from the function handing them on; in a `--follow` walk
when that call passes the value too, entering them with their parameters named like a passed name
or NAME carrying it); properties read as attributes are not calls; a method of a base class that is no
protocol is entered in the base, not in its subclasses' overrides.

How `--follow` approximates the flow: an argument passes the value on when it is the value itself,
not something made from it: a name that carries it, any attribute named NAME (`project.root`,
`self.root`), a call of a carrying value's method without arguments (`root.resolve()`), or `a or b`
/ `a if c else b` with a carrying branch. In an entered function the names that carry are its
parameters bound to such arguments (by position and keyword; a dataclass's fields stand for its
`__init__`) and the names assigned from such expressions (`=`, `:=`, `for`, `with ... as`; a fixed
point, whatever their order). Passing an object that holds the value (`project`) does not count; a
class entered with it passes it to its `__init__`/`__post_init__`. A function is entered once, with
the names that carried on its first entry.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import sys
import tomllib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DUNDER_ENTRIES = ("__init__", "__post_init__", "__new__")
Target = tuple[str, str]
"""What a name refers to: ("func" | "class" | "module" | "external", key); key "mod:Qual.name"."""


@dataclass
class Module:
    name: str
    package: str
    tree: ast.Module
    lines: int
    scope: dict[str, ast.AST] = field(default_factory=dict)
    """Module-level names: their def, class or import node."""


@dataclass
class Func:
    """A function, a method or a class (a class is entered when called)."""

    key: str
    module: str
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    owner: str | None = None
    """The class key of a method."""
    parent: str | None = None
    """The enclosing function of a nested def."""


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


# --- reading the package -------------------------------------------------------------------------

def read_package(tree: Path, package: str) -> tuple[dict[str, Module], list[str]]:
    """Every module under tree/package, parsed; and the files that did not parse."""
    modules, failed = {}, []
    base = tree / package
    for path in sorted(base.rglob("*.py")):
        parts = path.relative_to(tree).with_suffix("").parts
        is_init = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_init else parts)
        try:
            text = path.read_text(encoding="utf-8")
            parsed = ast.parse(text, filename=str(path))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            failed.append(str(path.relative_to(tree)))
            continue
        pkg = name if is_init else name.rpartition(".")[0] or name
        modules[name] = Module(name, pkg, parsed, text.count("\n"))
    return modules, failed


def _toplevel(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements of a body, looking into `if`/`try`/`with` blocks but not into defs."""
    for stmt in body:
        if isinstance(stmt, ast.If | ast.Try | ast.With):
            inner = [*stmt.body, *getattr(stmt, "orelse", []), *getattr(stmt, "finalbody", [])]
            for handler in getattr(stmt, "handlers", []):
                inner.extend(handler.body)
            yield from _toplevel(inner)
        else:
            yield stmt


def _bind(scope: dict[str, ast.AST], stmt: ast.AST) -> None:
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        scope[stmt.name] = stmt
    elif isinstance(stmt, ast.Import):
        for alias in stmt.names:
            scope[alias.asname or alias.name.partition(".")[0]] = stmt
    elif isinstance(stmt, ast.ImportFrom):
        for alias in stmt.names:
            scope[alias.asname or alias.name] = stmt


def _body_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, not those of nested defs or classes (their names are)."""
    todo = list(ast.iter_child_nodes(node))
    while todo:
        child = todo.pop()
        yield child
        if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            todo.extend(ast.iter_child_nodes(child))


LITERALS = (ast.Constant, ast.JoinedStr, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp,
            ast.SetComp, ast.DictComp, ast.GeneratorExp)
Names = Callable[[str], "Target | None"]
SEQUENCES = frozenset({"list", "tuple", "set", "frozenset", "Sequence", "Iterable", "Iterator",
                       "Collection", "AbstractSet", "MutableSequence", "deque"})
MAPPINGS = frozenset({"dict", "Mapping", "MutableMapping", "defaultdict", "OrderedDict"})
PASSING = frozenset({"sorted", "list", "tuple", "reversed", "set", "frozenset"})
"""Builtins whose result holds the items of their argument."""
CONTAINED = ("items", "mapping", "pairs")
"""Targets of containers of a reader class's instances: a sequence, a mapping's values, (key,
value) pairs."""


def _union(annotation: ast.AST) -> list[ast.AST]:
    """The parts of `A | B | None`."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _union(annotation.left) + _union(annotation.right)
    return [annotation]


def _heads(annotation: ast.AST) -> list[ast.AST]:
    """The types an annotation allows (`A | None` -> A; `list[A]` -> list; `Optional[A]` -> A)."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _heads(annotation.left) + _heads(annotation.right)
    if isinstance(annotation, ast.Subscript):
        head = annotation.value
        if isinstance(head, ast.Name | ast.Attribute) and ast.unparse(head).endswith(("Optional", "Union")):
            inner = annotation.slice
            return [h for e in (inner.elts if isinstance(inner, ast.Tuple) else [inner])
                    for h in _heads(e)]
        return [head]
    if isinstance(annotation, ast.Constant) and annotation.value is None:
        return []
    return [annotation]


class Index:
    """The package's modules, functions and classes, and how names in them resolve."""

    def __init__(self, modules: dict[str, Module], package: str) -> None:
        self.modules, self.package = modules, package
        self.funcs: dict[str, Func] = {}
        self.keys: dict[int, str] = {}
        """id() of a def or class node -> its key."""
        self.local_scopes: dict[str, dict[str, ast.AST]] = {}
        self._implementations: dict[str, list[str]] = {}
        for module in modules.values():
            for stmt in _toplevel(module.tree.body):
                _bind(module.scope, stmt)
                if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
                    for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                        if isinstance(target, ast.Name):
                            module.scope[target.id] = stmt
                self._add(module.name, stmt, prefix="", owner=None, parent=None)

    def _add(self, module: str, stmt: ast.AST, prefix: str, owner: str | None,
             parent: str | None) -> None:
        if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return
        key = f"{module}:{prefix}{stmt.name}"
        self.funcs[key] = Func(key, module, stmt, owner, parent)
        self.keys[id(stmt)] = key
        if isinstance(stmt, ast.ClassDef):
            for inner in _toplevel(stmt.body):
                self._add(module, inner, f"{prefix}{stmt.name}.", owner=key, parent=None)
            return
        scope: dict[str, ast.AST] = {}
        for node in _body_nodes(stmt):
            _bind(scope, node)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self._add(module, node, f"{prefix}{stmt.name}.", owner=None, parent=key)
        self.local_scopes[key] = scope

    # --- names ---

    def absolute(self, module: str, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        mod = self.modules.get(module)
        base = mod.package if mod else module
        for _ in range(node.level - 1):
            base = base.rpartition(".")[0]
        return f"{base}.{node.module}" if node.module else base

    def room(self, module: str) -> str:
        """A module's package folder; a module directly in the package's own folder is a room alone
        (reader/errors.py is a layer of its own, not part of a room holding reader/site.py)."""
        folder = self.modules[module].package
        return module if folder == self.package else folder

    def in_package(self, dotted: str) -> bool:
        return dotted == self.package or dotted.startswith(self.package + ".")

    def attribute(self, module: str, name: str, seen: frozenset[str] = frozenset()) -> Target | None:
        """What `module.name` is: a submodule, a def or class there, or what it imports."""
        if f"{module}.{name}" in self.modules:
            return ("module", f"{module}.{name}")
        if not self.in_package(module):
            return ("external", f"{module}.{name}")
        mod = self.modules.get(module)
        if mod is None or name not in mod.scope or f"{module}:{name}" in seen:
            return None
        return self.binding(module, name, mod.scope[name], seen | {f"{module}:{name}"})

    def binding(self, module: str, name: str, node: ast.AST,
                seen: frozenset[str] = frozenset()) -> Target | None:
        """What a name bound in `module` by a def, class, import or assignment refers to."""
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            kind = "class" if isinstance(node, ast.ClassDef) else "func"
            return (kind, self.keys.get(id(node), f"{module}:?"))
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname == name:
                    return self._module_target(alias.name)
                if alias.asname is None and alias.name.partition(".")[0] == name:
                    return self._module_target(name)
        if isinstance(node, ast.ImportFrom):
            source = self.absolute(module, node)
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    return self.attribute(source, alias.name, seen)
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            return self.target(node.value, lambda n: self.module_name(module, n, seen))
        return None

    def _module_target(self, dotted: str) -> Target:
        kind = "module" if dotted in self.modules else "external"
        return (kind, dotted)

    def module_name(self, module: str, name: str, seen: frozenset[str]) -> Target | None:
        found = self.attribute(module, name, seen)
        return found or (("external", name) if hasattr(builtins, name) else None)

    def lookup(self, func: Func, name: str) -> Target | None:
        """A bare name inside `func`: its nested defs and imports, the enclosing ones', the module's."""
        current: Func | None = func
        while current is not None:
            scope = self.local_scopes.get(current.key, {})
            if name in scope:
                return self.binding(current.module, name, scope[name])
            current = self.funcs.get(current.parent) if current.parent else None
        return self.module_name(func.module, name, frozenset())

    # --- expressions ---

    def target(self, node: ast.AST, names: Names) -> Target | None:
        """What an expression is: a module, a def or class, a method ("method"), an instance of a
        reader class ("instance"), a value from outside reader ("external"), or None (unknown)."""
        if isinstance(node, ast.Name):
            return names(node.id)
        if isinstance(node, ast.Attribute):
            base = self.target(node.value, names)
            return self.attribute_of(base, node.attr) if base else None
        if isinstance(node, ast.Subscript):
            base = self.target(node.value, names)
            return ("instance", base[1]) if base and base[0] in CONTAINED[:2] else None
        if isinstance(node, ast.Call):
            contained = self._contained(node, names)
            if contained:
                return contained
            callee = self.target(node.func, names)
            if callee is None or callee[0] == "module":
                return None
            if callee[0] == "class":
                return ("instance", callee[1])
            if callee[0] == "external":
                return ("external", f"{callee[1]}()")
            info = self.funcs[callee[1]]
            returns = None if isinstance(info.node, ast.ClassDef) else info.node.returns
            return self.annotated(info, returns)
        if isinstance(node, LITERALS):
            return ("external", type(node).__name__)
        if isinstance(node, ast.BinOp):  # root / "site", "a" + b
            left = self.target(node.left, names)
            return left if left and left[0] == "external" else None
        return None

    def _contained(self, call: ast.Call, names: Names) -> Target | None:
        """`m.values()`, `m.items()`, `m.get(k)` on a mapping of instances; `sorted(s)`, `list(s)`."""
        if isinstance(call.func, ast.Attribute):
            base = self.target(call.func.value, names)
            if base and base[0] == "mapping":
                kind = {"values": "items", "items": "pairs", "get": "instance", "pop": "instance"}
                return (kind[call.func.attr], base[1]) if call.func.attr in kind else None
        if isinstance(call.func, ast.Name) and call.func.id in PASSING and call.args:
            if names(call.func.id) == ("external", call.func.id):
                inner = self.target(call.args[0], names)
                return inner if inner and inner[0] in ("items", "pairs") else None
        return None

    def attribute_of(self, base: Target, attr: str) -> Target | None:
        kind, key = base
        if kind == "module":
            return self.attribute(key, attr)
        if kind == "external" or kind in CONTAINED:
            return ("external", f"{key}.{attr}")
        if kind not in ("class", "instance"):
            return None
        found = self.member(key, attr)
        if found and isinstance(self.funcs[found].node, ast.ClassDef):
            return ("class", found)
        if found and kind == "class":
            return ("func", found)
        if found and "property" not in _decorators(self.funcs[found].node):
            return ("method", found)
        return self.field(key, attr) if kind == "instance" else None

    def expression_target(self, func: Func, node: ast.AST) -> Target | None:
        """An expression in `func`, its names looked up through its scopes."""
        return self.target(node, lambda name: self.lookup(func, name))

    # --- classes ---

    def member(self, cls: str, name: str, seen: frozenset[str] = frozenset()) -> str | None:
        """The key of a method (or nested class) `name` on reader class `cls` or its reader bases."""
        if f"{cls}.{name}" in self.funcs:
            return f"{cls}.{name}"
        info = self.funcs.get(cls)
        if info is None or cls in seen or not isinstance(info.node, ast.ClassDef):
            return None
        for base in info.node.bases:
            target = self.expression_target(info, base)
            if target and target[0] == "class":
                found = self.member(target[1], name, seen | {cls})
                if found:
                    return found
        return None

    def annotated(self, func: Func, annotation: ast.AST | None) -> Target | None:
        """An annotation as a value: an instance of its one reader class (`C`, `C | None`, `"C"`),
        a value from outside reader (`Path`, `list[C]`, `str | None`), else None."""
        if annotation is None:
            return None
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return None
        contained = self._container(func, annotation)
        if contained:
            return contained
        heads = [self.expression_target(func, head) for head in _heads(annotation)]
        classes = {h[1] for h in heads if h and h[0] == "class"}
        if len(classes) == 1 and all(h and h[0] in ("class", "external") for h in heads):
            return ("instance", classes.pop())
        if heads and all(h and h[0] == "external" for h in heads):
            return ("external", ast.unparse(annotation))
        return None

    def _container(self, func: Func, annotation: ast.AST) -> Target | None:
        """`list[C]`, `Sequence[C]`, `tuple[C, ...]` as ("items", C); `Mapping[K, C]` as ("mapping", C)."""
        parts = [p for p in _union(annotation) if not (isinstance(p, ast.Constant) and p.value is None)]
        if len(parts) != 1 or not isinstance(parts[0], ast.Subscript):
            return None
        head = self.expression_target(func, parts[0].value)
        name = head[1].rpartition(".")[2] if head and head[0] == "external" else ""
        inner = parts[0].slice
        args = inner.elts if isinstance(inner, ast.Tuple) else [inner]
        if name in MAPPINGS and len(args) == 2:
            kind, element = "mapping", args[1]
        elif name in SEQUENCES and (len(args) == 1 or (name == "tuple" and len(args) == 2 and
                                                       isinstance(args[1], ast.Constant)
                                                       and args[1].value is Ellipsis)):
            kind, element = "items", args[0]
        else:
            return None
        found = self.annotated(func, element)
        return (kind, found[1]) if found and found[0] == "instance" else None

    def is_protocol(self, cls: str) -> bool:
        node = self.funcs[cls].node
        return isinstance(node, ast.ClassDef) and any(
            ast.unparse(b).split("[")[0].rpartition(".")[2] == "Protocol" for b in node.bases)

    def implementations(self, protocol: str) -> list[str]:
        """The reader classes (not protocols) with every method a reader protocol names."""
        if protocol not in self._implementations:
            node = self.funcs[protocol].node
            assert isinstance(node, ast.ClassDef)
            required = [s.name for s in node.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
                        and "property" not in _decorators(s) and not s.name.startswith("__")]
            self._implementations[protocol] = [
                key for key, info in self.funcs.items()
                if isinstance(info.node, ast.ClassDef) and key != protocol and required
                and not self.is_protocol(key) and all(self.member(key, n) for n in required)]
        return self._implementations[protocol]

    def field(self, cls: str, name: str) -> Target | None:
        """An annotated field or property `name` of reader class `cls` (or its bases) as a value."""
        info = self.funcs.get(cls)
        if info is None or not isinstance(info.node, ast.ClassDef):
            return None
        for stmt in info.node.body:
            if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                    and stmt.target.id == name):
                return self.annotated(info, stmt.annotation)
        method = self.member(cls, name)
        node = self.funcs[method].node if method else None
        if method and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return self.annotated(self.funcs[method], node.returns)
        for base in info.node.bases:
            target = self.expression_target(info, base)
            if target and target[0] == "class" and target[1] != cls:
                return self.field(target[1], name)
        return None


# --- one function's calls ------------------------------------------------------------------------

@dataclass(frozen=True)
class Callee:
    key: str
    skip_first: bool
    """The callee's first parameter is bound by the receiver (`self`, `cls`)."""


def _decorators(node: ast.AST) -> set[str]:
    names = set()
    for deco in getattr(node, "decorator_list", []):
        target = deco.func if isinstance(deco, ast.Call) else deco
        if isinstance(target, ast.Name | ast.Attribute):
            names.add(target.id if isinstance(target, ast.Name) else target.attr)
    return names


def _stored_names(target: ast.AST) -> Iterator[str]:
    for node in ast.walk(target):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            yield node.id


def _assignments(node: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(target, value) for each way a body binds a name from an expression."""
    for child in _body_nodes(node):
        if isinstance(child, ast.Assign):
            for target in child.targets:
                yield target, child.value
        elif isinstance(child, ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and child.value:
            yield child.target, child.value
        elif isinstance(child, ast.For | ast.AsyncFor | ast.comprehension):
            yield child.target, child.iter
        elif isinstance(child, ast.withitem) and child.optional_vars is not None:
            yield child.optional_vars, child.context_expr


class Body:
    """The calls in one function, resolved: their callees and which arguments bind which names."""

    def __init__(self, index: Index, func: Func) -> None:
        self.index, self.func = index, func
        self.known: dict[str, Target] = {}
        """Local names whose value the names say: a reader instance or a value from outside."""
        self.local: set[str] = set()
        node = func.node
        if isinstance(node, ast.ClassDef):
            return
        params = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        self.local = {a.arg for a in params} | {a.arg for a in (node.args.vararg, node.args.kwarg) if a}
        self.local |= {n for target, _ in _assignments(node) for n in _stored_names(target)}
        if func.owner and params and "staticmethod" not in _decorators(node):
            kind = "class" if "classmethod" in _decorators(node) else "instance"
            self.known[params[0].arg] = (kind, func.owner)
        for arg in params:
            self._know(arg.arg, index.annotated(func, arg.annotation))
        for child in _body_nodes(node):
            if isinstance(child, ast.AnnAssign) and isinstance(child.target, ast.Name):
                self._know(child.target.id, index.annotated(func, child.annotation))
        ordered = sorted(_body_nodes(node), key=lambda n: getattr(n, "lineno", 0))
        for _ in range(2):  # a comprehension's loop has no line: its names may come later
            for child in ordered:
                self._learn(child)

    def _learn(self, child: ast.AST) -> None:
        """What an assignment or a loop over a container says about the names it binds."""
        if isinstance(child, ast.Assign | ast.NamedExpr):
            targets = child.targets if isinstance(child, ast.Assign) else [child.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    self._know(target.id, self.target(child.value))
        elif isinstance(child, ast.For | ast.AsyncFor | ast.comprehension):
            source = self.target(child.iter)
            target = child.target
            if source and source[0] == "items" and isinstance(target, ast.Name):
                self._know(target.id, ("instance", source[1]))
            if (source and source[0] == "pairs" and isinstance(target, ast.Tuple)
                    and len(target.elts) == 2 and isinstance(target.elts[1], ast.Name)):
                self._know(target.elts[1].id, ("instance", source[1]))

    def _know(self, name: str, target: Target | None) -> None:
        if target and target[0] in ("instance", "external", *CONTAINED) and name not in self.known:
            self.known[name] = target

    def name(self, name: str) -> Target | None:
        if name in self.known:
            return self.known[name]
        if name in self.local:
            return None
        return self.index.lookup(self.func, name)

    def target(self, node: ast.AST) -> Target | None:
        return self.index.target(node, self.name)

    def resolve(self, call: ast.Call) -> list[Callee]:
        """The reader functions or classes a call enters (a protocol's method: its implementations')."""
        target = self.target(call.func)
        if target is None or target[0] not in ("func", "class", "method"):
            return []
        info = self.index.funcs.get(target[1])
        if info is None:
            return []
        if target[0] != "method" or not isinstance(call.func, ast.Attribute):
            return [Callee(target[1], bool(info.owner) and "classmethod" in _decorators(info.node))]
        keys = [target[1]]
        if info.owner and self.index.is_protocol(info.owner):
            found = (self.index.member(c, call.func.attr)
                     for c in self.index.implementations(info.owner))
            keys = [k for k in found if k]
        return [Callee(k, "staticmethod" not in _decorators(self.index.funcs[k].node)) for k in keys]

    def kind(self, call: ast.Call) -> str:
        """"reader", "outside" or "unresolved"."""
        if self.resolve(call):
            return "reader"
        target = self.target(call.func)
        return "outside" if target and target[0] == "external" else "unresolved"

    def calls(self) -> list[ast.Call]:
        if isinstance(self.func.node, ast.ClassDef):
            return []
        found = [n for n in _body_nodes(self.func.node) if isinstance(n, ast.Call)]
        return sorted(found, key=lambda n: (n.lineno, n.col_offset))

    def handed(self, call: ast.Call) -> list[Callee]:
        """Reader functions passed as arguments (to a pool, a scheduler), to be called later."""
        found = []
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            target = self.target(arg) if isinstance(arg, ast.Name | ast.Attribute) else None
            if target and target[0] in ("func", "method"):
                found.append(Callee(target[1], target[0] == "method"))
        return found


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
    pairs = list(_assignments(node))
    while True:
        more = {name for target, value in pairs if carrying(value, carriers, follow)
                for name in _stored_names(target)}
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
        f"  calls in the functions entered: {calls['reader']:,} to reader, "
        f"{calls['outside']:,} outside it, {calls['unresolved']:,} unresolved; "
        f"{calls['handed']:,} reader functions handed on as values "
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
