"""Every public function, class and method has a numpydoc docstring with an example.

The examples themselves run as doctests (``--doctest-modules`` over ``binaryeval/`` in pytest's
configuration), so an example that goes stale fails the suite.
"""

from __future__ import annotations

import importlib
import inspect

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
