"""Every public function, class and method has a numpydoc docstring with an example.

The examples themselves run as doctests (``--doctest-modules`` over ``binaryeval/`` in pytest's
configuration), so an example that goes stale fails the suite.  Each runs as a reader runs it,
pasted into a fresh Python session: the repository's ``conftest.py`` gives every doctest an empty
namespace instead of its module's, so an example imports what it uses.
"""

from __future__ import annotations

import ast
import builtins
import doctest
import importlib
import importlib.util
import inspect
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PUBLIC_MODULES = ["binaryeval", "binaryeval.plan", "binaryeval.correlation",
                  "binaryeval.favoritism", "binaryeval.binary", "binaryeval.validation",
                  "binaryeval.latent", "binaryeval.datasets", "binaryeval.reports",
                  "binaryeval.summary"]


def _documented():
    out = {}
    for modname in PUBLIC_MODULES:
        try:
            mod = importlib.import_module(modname)
        except ModuleNotFoundError:
            continue
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name, None)
            if inspect.isfunction(obj):
                out[name] = (obj, "function")
            elif inspect.isclass(obj):
                out[name] = (obj, "class")
                for meth_name, meth in vars(obj).items():
                    if meth_name.startswith("_"):
                        continue
                    if isinstance(meth, property):
                        out[f"{name}.{meth_name}"] = (meth.fget, "property")
                        continue
                    if isinstance(meth, (staticmethod, classmethod)):
                        meth = meth.__func__
                    if inspect.isfunction(meth):
                        out[f"{name}.{meth_name}"] = (meth, "method")
    return out


DOCUMENTED = _documented()


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_docstring_has_an_example(name):
    obj, kind = DOCUMENTED[name]
    doc = inspect.getdoc(obj) or ""
    assert doc.strip(), f"{name} has no docstring"
    if kind == "property":
        return  # a property's docstring describes the value; the class example shows it in use
    assert "Examples\n--------" in doc, f"{name}: add an 'Examples' section (it runs as a doctest)"
    assert ">>>" in doc


# ---------------------------------------------------------------------------------------------
# examples a reader can paste into a fresh session
# ---------------------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def _unbound_names(source: str) -> set[str]:
    """Names an example reads but never binds (by import, assignment, def, for, with, ...)."""
    bound, read = set(), set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return read - bound - set(dir(builtins))


def _public_modules() -> list[str]:
    return [m for m in PUBLIC_MODULES if importlib.util.find_spec(m) is not None]


@pytest.mark.parametrize("name", sorted(DOCUMENTED) + [f"module {m}" for m in _public_modules()])
def test_example_imports_what_it_uses(name):
    if name.startswith("module "):
        obj = importlib.import_module(name.split()[1])
    else:
        obj = DOCUMENTED[name][0]
    examples = doctest.DocTestParser().get_examples(inspect.getdoc(obj) or "")
    source = "\n".join(e.source for e in examples)
    assert _unbound_names(source) == set(), f"{name}: import these names in the example"
    assert "._example(" not in source and "import _example" not in source, name


def test_example_checker_finds_a_missing_import():
    assert _unbound_names("fit(df)\nfor k in range(3):\n    print(k)") == {"fit", "df"}
    assert _unbound_names("import numpy as np\nx = np.ones(2)\n[y for y in x]") == set()


def _doctests_of_a_sample(tmp_path, source: str) -> str:
    """pytest's report of the doctests of a module ``source`` beside the repository's conftest.py."""
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "sample.py").write_text(source)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "no:xdist", "--doctest-modules", "sample.py"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    return run.stdout


def test_doctests_run_in_a_fresh_namespace(tmp_path):
    """The repository's conftest.py, in a folder of its own: a module's example that uses the
    module's import fails with NameError, one that imports it passes, and it runs as
    ``__main__``."""
    assert "--doctest-modules" in (ROOT / "pyproject.toml").read_text()
    out = _doctests_of_a_sample(tmp_path, (
        'import math\n\n\ndef uses_the_module_import():\n    """\n    >>> round(math.pi, 2)\n'
        '    3.14\n    """\n\n\ndef imports_it():\n    """\n    >>> import math\n'
        '    >>> round(math.pi, 2)\n    3.14\n    >>> __name__\n    \'__main__\'\n    """\n'))
    assert "1 failed, 1 passed" in out, out
    assert "NameError: name 'math' is not defined" in out
    assert "sample.uses_the_module_import" in out


def test_a_doctest_that_warns_fails(tmp_path):
    """The repository's conftest.py, in a folder of its own: an example that triggers one of
    the package's warnings fails, naming it; one that catches and prints it passes; a warning
    of another kind is left alone."""
    out = _doctests_of_a_sample(tmp_path, (
        'def warns():\n    """\n    >>> import warnings\n'
        '    >>> from binaryeval.errors import ConvergenceWarning\n'
        '    >>> warnings.warn("not yet reliable", ConvergenceWarning)\n    """\n\n\n'
        'def catches():\n    """\n    >>> import warnings\n'
        '    >>> from binaryeval.errors import ConvergenceWarning\n'
        '    >>> with warnings.catch_warnings(record=True) as caught:\n'
        '    ...     warnings.simplefilter("always")\n'
        '    ...     warnings.warn("not yet reliable", ConvergenceWarning)\n'
        '    >>> print(caught[0].message)\n    not yet reliable\n    """\n\n\n'
        'def other():\n    """\n    >>> import warnings\n'
        '    >>> warnings.warn("elsewhere", FutureWarning)\n    """\n'))
    assert "1 failed, 2 passed" in out, out
    assert "sample.warns" in out
    assert "ConvergenceWarning: not yet reliable" in out
