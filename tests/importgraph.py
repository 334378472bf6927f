"""The import graph of a package, read from its source: every import statement in every module.

An import inside a function counts as much as one at the top of the module: it runs when the
function runs, and a cycle through it is a cycle in the design, merely postponed.  Only the
imports under ``if TYPE_CHECKING:`` are left out: they never run and name a type for annotations.

Edges are between modules (``pkg/sub/mod.py`` is ``pkg.sub.mod``, ``pkg/sub/__init__.py`` is
``pkg.sub``).  ``from . import x`` is an edge to the submodule ``x`` when there is one, else to
the package that defines ``x``; ``from .mod import name`` is an edge to ``mod``.  Importing a
submodule also runs its parents' ``__init__``; that implicit edge is not counted (every module
would then depend on the top package, which imports nearly everything).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

Graph = dict[str, dict[str, int]]  # module -> {imported module: line of the first such import}


def module_name(path: Path, root: Path) -> str:
    """``root/pkg/sub/mod.py`` -> ``pkg.sub.mod`` (``__init__.py`` names its package)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """Nodes under ``if TYPE_CHECKING:`` (or ``if typing.TYPE_CHECKING:``)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else (
                test.attr if isinstance(test, ast.Attribute) else None)
            if name == "TYPE_CHECKING":
                out.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return out


def _targets(node: ast.AST, module: str, is_package: bool, modules: Iterable[str]) -> list[str]:
    """The modules an import statement reaches (possibly outside the package)."""
    known = set(modules)
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    assert isinstance(node, ast.ImportFrom)
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    out = []
    for alias in node.names:
        sub = f"{prefix}.{alias.name}"
        out.append(sub if sub in known else prefix)
    return out


def import_graph(package_dir: Path) -> Graph:
    """The graph of imports between the modules of the package in ``package_dir``."""
    package_dir = Path(package_dir)
    root = package_dir.parent
    paths = {module_name(p, root): p for p in sorted(package_dir.rglob("*.py"))}
    graph: Graph = {m: {} for m in paths}
    for module, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        skip = _type_checking_nodes(tree)
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or id(node) in skip:
                continue
            for target in _targets(node, module, is_package, paths):
                while target and target not in paths:   # pkg.mod.name -> pkg.mod
                    target = target.rpartition(".")[0]
                if target and target != module:
                    graph[module].setdefault(target, node.lineno)
    return graph


def cycles(graph: Mapping[str, Mapping[str, int]]) -> list[list[str]]:
    """The strongly connected sets of two or more modules (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, {})):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            members = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                members.append(w)
                if w == v:
                    break
            if len(members) > 1:
                found.append(sorted(members))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def describe_cycle(graph: Mapping[str, Mapping[str, int]], members: Sequence[str]) -> str:
    """The edges inside one strongly connected set, with their lines."""
    inside = set(members)
    edges = [f"{a} -> {b} (line {line})" for a in members
             for b, line in sorted(graph[a].items()) if b in inside]
    return "import cycle among " + ", ".join(members) + ":\n  " + "\n  ".join(edges)


def layer_of(module: str, layers: Sequence[tuple[str, Sequence[str]]]) -> tuple[int, str] | None:
    """``(rank, package)`` of a module: its layer's rank (0 at the top) and the entry it matched.

    An entry names a module and everything below it, except the top package (``pkg``), which
    names its ``__init__.py`` only, so that every other module needs an entry of its own; the
    longest matching entry wins.
    """
    best = None
    for rank, (_, entries) in enumerate(layers):
        for entry in entries:
            if module == entry or ("." in entry and module.startswith(entry + ".")):
                if best is None or len(entry) > len(best[1]):
                    best = (rank, entry)
    return best


def layer_violations(graph: Mapping[str, Mapping[str, int]],
                     layers: Sequence[tuple[str, Sequence[str]]],
                     allowed: Iterable[tuple[str, str]] = ()) -> list[str]:
    """Every import that goes up a layer, or across packages of one layer without leave.

    Parameters
    ----------
    graph : mapping
        From :func:`import_graph`.
    layers : sequence of (name, entries)
        Top to bottom; each entry a module or package (with everything below it).
    allowed : pairs of entries
        ``(a, b)``: package ``a`` may import package ``b`` of the same layer.  Packages of one
        layer are peers that do not import one another otherwise; modules that are not packages
        of their own (single files of the ground floor) may import one another.
    """
    allowed = set(allowed)
    problems = []
    for module in sorted(graph):
        here = layer_of(module, layers)
        if here is None:
            problems.append(f"{module} is in no layer: add it to the layers of the test")
            continue
        for target, line in sorted(graph[module].items()):
            there = layer_of(target, layers)
            if there is None:
                continue  # reported as a module of its own
            if there[0] < here[0]:
                problems.append(f"{module} (line {line}) imports {target}: "
                                f"{layers[here[0]][0]!r} is below {layers[there[0]][0]!r}")
            elif (there[0] == here[0] and there[1] != here[1]
                  and (here[1], there[1]) not in allowed
                  and _is_package_entry(here[1], graph) and _is_package_entry(there[1], graph)):
                problems.append(f"{module} (line {line}) imports {target}: the peers "
                                f"{here[1]} and {there[1]} do not import each other")
    return problems


def _is_package_entry(entry: str, graph: Mapping[str, Mapping[str, int]]) -> bool:
    """Whether an entry of the layers is a package (it has submodules) rather than one file."""
    return any(m.startswith(entry + ".") for m in graph)
