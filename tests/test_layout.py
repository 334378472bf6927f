"""The package's layout: no import cycles between its modules, and ``import binaryeval`` stays light.

The import graph is read from the source (top-level ``import``/``from`` statements inside the
package; imports inside functions are deliberate deferrals and do not count).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import binaryeval

PACKAGE = Path(binaryeval.__file__).parent


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _resolve(module: str, is_package: bool, level: int, target: str | None) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        for node in tree.body:  # top level only
            targets = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = _resolve(name, is_package, node.level, node.module)
                    targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                               for a in node.names]
                elif node.module and node.module.startswith("binaryeval"):
                    targets = [node.module]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.startswith("binaryeval")]
            for t in targets:
                if t in modules and t != name:
                    graph[name].add(t)
    return graph


def test_no_import_cycles_between_modules():
    graph = _graph()
    # the walk sees the real structure (a known edge), so an empty graph cannot pass
    assert "binaryeval.binary.engine" in graph["binaryeval.binary.model"]
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                cycle = stack[stack.index(n):] + [n]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if state.get(n) is None:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if state.get(m) is None:
            visit(m)


def test_import_binaryeval_loads_no_plotting_or_optional_libraries():
    code = ("import sys, binaryeval; heavy = ['matplotlib', 'seaborn', 'statsmodels', 'networkx', "
            "'patsy', 'joblib', 'dask', 'jupytext', 'nbconvert', 'griffe']; "
            "print(','.join(m for m in heavy if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
