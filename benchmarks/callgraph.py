"""reader's functions, classes and modules read with `ast`, and what each call in them enters.

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
outside. Unresolved: calls on values of unknown type (loop variables over what no annotation
describes, callables held in variables or passed in, `super()`). Functions handed on as values (to a pool, a scheduler) are counted,
and followed only with `--handed` (as edges from the function handing them on; in a `--follow` walk
when that call passes the value too, entering them with their parameters named like a passed name
or NAME carrying it); properties read as attributes are not calls; a method of a base class that is no
protocol is entered in the base, not in its subclasses' overrides.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

Target = tuple[str, str]
"""What an expression is, as (kind, key): "module" (dotted name), "func", "class" or "method" (key
"module:Qual.name"), "instance" of a reader class, a container of instances ("items", "mapping",
"pairs"), or "external" (a value from outside reader)."""


@dataclass
class Module:
    name: str
    package: str
    tree: ast.Module
    lines: int
    scope: dict[str, ast.AST] = field(default_factory=dict)
    """Module-level names: their def, class, import or assignment."""


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
        return [h for part in _union(annotation) for h in _heads(part)]
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
            info = self.funcs.get(callee[1])
            if info is None or isinstance(info.node, ast.ClassDef):
                return None
            return self.annotated(info, info.node.returns)
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

    def field(self, cls: str, name: str, seen: frozenset[str] = frozenset()) -> Target | None:
        """An annotated field or property `name` of reader class `cls` (or its bases) as a value."""
        info = self.funcs.get(cls)
        if info is None or cls in seen or not isinstance(info.node, ast.ClassDef):
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
            if target and target[0] == "class":
                return self.field(target[1], name, seen | {cls})
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


def stored_names(target: ast.AST) -> Iterator[str]:
    for node in ast.walk(target):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            yield node.id


def assignments(node: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
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
        self.local |= {n for target, _ in assignments(node) for n in stored_names(target)}
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
