"""The package's layout: no import cycle between modules, each layer imports only from below it.

The import graph counts every import statement, those inside functions included
(:mod:`importgraph`).  The layers, top to bottom (README's developer section draws the same):

- the command: ``binaryeval.cli`` (and ``__main__``), which calls the library only;
- the public namespace: ``binaryeval/__init__.py``;
- the user report: ``binaryeval.reports``;
- the site builder, a tool: ``binaryeval._site``;
- the front door: ``binaryeval.api`` (``fit``, ``roc``, the model frame);
- the models, peers: ``binary``, ``latent``, ``plan``, ``favoritism``, ``correlation`` and the
  calibration library ``validation``; a model imports another only by leave (``PEERS``);
- the ground floor: the formula, data coding and row accounting, directions, checks, results,
  the summary renderer, errors and warnings, table reading, the datasets.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from importgraph import cycles, describe_cycle, import_graph, layer_violations

import binaryeval

PACKAGE = Path(binaryeval.__file__).parent

LAYERS = [
    ("command", ["binaryeval.__main__", "binaryeval.cli"]),
    ("public namespace", ["binaryeval"]),
    ("user report", ["binaryeval.reports"]),
    ("site builder", ["binaryeval._site"]),
    ("front door", ["binaryeval.api"]),
    ("models", ["binaryeval.binary", "binaryeval.latent", "binaryeval.plan",
                "binaryeval.favoritism", "binaryeval.correlation", "binaryeval.validation",
                "binaryeval.raters"]),
    ("ground floor", ["binaryeval.formula", "binaryeval.data", "binaryeval._directions",
                      "binaryeval._pairs", "binaryeval._vocabulary", "binaryeval._advice",
                      "binaryeval._partition", "binaryeval._dask", "binaryeval._validate",
                      "binaryeval._results", "binaryeval._comparison", "binaryeval._ranks",
                      "binaryeval.summary",
                      "binaryeval.errors", "binaryeval._warnings", "binaryeval._ranking",
                      "binaryeval._pooling", "binaryeval._parallel", "binaryeval._lazy",
                      "binaryeval._format", "binaryeval.io", "binaryeval._output",
                      "binaryeval.datasets"]),
]

#: Which model may use which (the rest do not import one another).
PEERS = [
    # planning runs the binary engine on expected counts, and plans from a binary fit
    ("binaryeval.plan", "binaryeval.binary"),
    # ... and plans from a latent-truth fit (LatentFit.plan(), PreferenceFit.plan())
    ("binaryeval.plan", "binaryeval.latent"),
    # the calibration library simulates and fits with the binary engine
    ("binaryeval.validation", "binaryeval.binary"),
    # the preference model reports the Favi-Score of its posterior, with the score's weights
    ("binaryeval.latent", "binaryeval.favoritism"),
    # the rater-noise model codes metrics, summarises draws and diagnoses chains as the latent
    # model does
    ("binaryeval.raters", "binaryeval.latent"),
]


@pytest.fixture(scope="module")
def graph():
    """The package's import graph, parsed once for the tests that read it (none changes it)."""
    return import_graph(PACKAGE)


def test_the_graph_sees_imports_inside_functions(graph):
    # known edges: a top-level one, one inside a function, one through "from . import x"
    assert "binaryeval.binary.engine" in graph["binaryeval.binary.model"]
    assert "binaryeval.binary.compare" in graph["binaryeval.binary.result"]   # inside compare()
    assert "binaryeval.plan.cells" in graph["binaryeval.plan"]                # from . import cells
    assert "binaryeval.api.frame" in graph["binaryeval.api.fit"]              # from . import frame


def test_no_import_cycles_between_modules(graph):
    found = cycles(graph)
    assert not found, "\n".join(describe_cycle(graph, c) for c in found)


def test_each_layer_imports_only_from_below(graph):
    problems = layer_violations(graph, LAYERS, PEERS)
    assert not problems, "\n".join(problems)


def _readme_layout() -> list[set[str]]:
    """The modules each line of README's layout names, top to bottom (``x/`` and ``x.py``)."""
    text = (PACKAGE.parent / "README.md").read_text(encoding="utf-8")
    block = text.split("## Layout (for developers)", 1)[1].split("```", 2)[1]
    lines = []
    for line in block.splitlines():
        if not line.startswith("  ") or line.startswith("   "):
            continue  # the package's own entries, not continuation lines or the other folders
        names = re.findall(r"(?<![\w/.])(_?\w+)(/|\.py)(?=[\s;:,)]|$)", line)
        lines.append({"binaryeval" if n == "__init__" else f"binaryeval.{n}" for n, _ in names})
    return lines


def test_readme_layout_is_the_import_graph(graph):
    # the developer section of README.md lists the package so that each line imports only from
    # the lines below it (several modules on one line count as one), and lists every module
    lines = _readme_layout()
    rank = {}
    for i, names in enumerate(lines):
        for name in names:
            rank[name] = i

    def line_of(module: str) -> int | None:
        while module and module not in rank:
            module = module.rpartition(".")[0]
        return rank.get(module)

    assert len(lines) > 15 and "binaryeval.api" in rank and "binaryeval.io" in rank
    missing = [m for m in graph if line_of(m) is None]
    assert not missing, f"README's layout does not list {missing}"
    upward = [f"{a} imports {b}" for a in graph for b in graph[a]
              if line_of(b) < line_of(a)]
    assert not upward, "README's layout lists these above what they import:\n" + "\n".join(upward)


def _fake_package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "fake" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root / "fake"


def test_a_function_level_import_that_closes_a_cycle_fails(tmp_path):
    # low imports high at the top; high imports low only inside a function: still a cycle
    pkg = _fake_package(tmp_path, {
        "__init__.py": "",
        "low.py": "from . import high\n",
        "high.py": "def f():\n    from .low import g\n    return g\n",
        "typed.py": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                     "    from .user import User\n"),
        "user.py": "from .typed import TYPE_CHECKING\n",
        "sub/__init__.py": "",
        "sub/deep.py": "def h():\n    import fake.high\n    from .. import low\n",
    })
    graph = import_graph(pkg)
    assert graph["fake.low"] == {"fake.high": 1}
    assert graph["fake.high"] == {"fake.low": 2}
    assert graph["fake.sub.deep"] == {"fake.high": 2, "fake.low": 3}
    assert cycles(graph) == [["fake.high", "fake.low"]]
    message = describe_cycle(graph, ["fake.high", "fake.low"])
    assert "fake.high -> fake.low (line 2)" in message
    # an annotation-only import (under TYPE_CHECKING) never runs and closes no cycle
    assert "fake.user" not in graph["fake.typed"]
    # the same import inside a function of a lower layer goes up a layer
    layers = [("top", ["fake.high", "fake.sub"]), ("bottom", ["fake.low", "fake.typed",
                                                               "fake.user", "fake"])]
    assert layer_violations(graph, layers) == [
        "fake.low (line 1) imports fake.high: 'bottom' is below 'top'"]
    # once the function-level import is gone there is no cycle
    (pkg / "high.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    assert cycles(import_graph(pkg)) == []


def test_peers_of_one_layer_import_each_other_only_by_leave(tmp_path):
    pkg = _fake_package(tmp_path, {
        "__init__.py": "", "a/__init__.py": "", "b/__init__.py": "",
        "a/m.py": "def f():\n    from ..b import n\n", "b/n.py": "",
    })
    graph = import_graph(pkg)
    layers = [("models", ["fake.a", "fake.b"]), ("namespace", ["fake"])]
    assert layer_violations(graph, layers) == [
        "fake.a.m (line 2) imports fake.b.n: the peers fake.a and fake.b do not import each other"]
    assert layer_violations(graph, layers, [("fake.a", "fake.b")]) == []


def test_every_module_has_a_layer(tmp_path):
    # the top package's entry is its __init__ only: a new module needs a layer of its own
    pkg = _fake_package(tmp_path, {"__init__.py": "", "stray.py": "", "sub/__init__.py": "",
                                   "sub/inner.py": ""})
    assert layer_violations(import_graph(pkg), [("top", ["fake"]), ("low", ["fake.sub"])]) == [
        "fake.stray is in no layer: add it to the layers of the test"]


def test_import_binaryeval_loads_no_plotting_or_optional_libraries():
    code = ("import sys, binaryeval; heavy = ['matplotlib', 'seaborn', 'statsmodels', 'networkx', "
            "'patsy', 'joblib', 'dask', 'jupytext', 'nbconvert', 'griffe']; "
            "print(','.join(m for m in heavy if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
