"""One name per concept across the public API (the table in vignettes/vocabulary.qmd).

The test walks every public function and every public method of every public class and fails on
an argument spelled the old way (``binaryeval._validate.RENAMED``), on ``alpha`` used for anything
but the model's rate, and on result attributes that account for rows under another name.
"""

from __future__ import annotations

import importlib
import inspect
import re

import pytest

from binaryeval._validate import RENAMED

PUBLIC_MODULES = ["binaryeval", "binaryeval.plan", "binaryeval.correlation",
                  "binaryeval.favoritism", "binaryeval.binary", "binaryeval.validation",
                  "binaryeval.latent", "binaryeval.datasets", "binaryeval.reports"]

# scipy-compatible methods of the posterior keep scipy's names (code written for scipy.stats works)
SCIPY_NAMES = {("rvs", "random_state"), ("interval", "confidence")}

# names a row account may not use (the vocabulary: n_rows, n_used, n_excluded, excluded)
ROW_SPELLINGS = {"rows_used", "rows_excluded", "rows_dropped", "n_dropped", "dropped"}


def _callables():
    seen = {}
    for modname in PUBLIC_MODULES:
        try:
            mod = importlib.import_module(modname)
        except ModuleNotFoundError:
            continue
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name, None)
            if inspect.isfunction(obj):
                seen[f"{obj.__module__}.{obj.__qualname__}"] = (name, obj)
            elif inspect.isclass(obj):
                for meth_name, meth in inspect.getmembers(obj):
                    if meth_name.startswith("_") or not callable(meth):
                        continue
                    if inspect.isfunction(meth) or inspect.ismethod(meth):
                        seen[f"{obj.__module__}.{obj.__qualname__}.{meth_name}"] = (
                            f"{name}.{meth_name}", meth)
    return sorted(seen.values(), key=lambda t: t[0])


CALLABLES = _callables()


def test_the_walk_finds_the_api():
    names = {n for n, _ in CALLABLES}
    assert {"fit", "fit_counts", "favi", "correlate", "BinaryFit.compare"} <= names


@pytest.mark.parametrize("name,func", CALLABLES, ids=[n for n, _ in CALLABLES])
def test_argument_names(name, func):
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return
    for p in params:
        if (name.rsplit(".", 1)[-1], p) in SCIPY_NAMES:
            continue
        if p == "draws" and "chains" in params:
            continue  # an MCMC sampler's draws per chain (the vocabulary: draws, chains)
        assert p not in RENAMED, f"{name}({p}=...): the vocabulary's name is {RENAMED[p]!r}"
        if p == "alpha":
            doc = inspect.getdoc(func) or ""
            m = re.search(r"^alpha\b[^\n]*\n((?:[ \t]+[^\n]*\n?)+)", doc, re.M)
            assert m and "adequate" in m.group(1), (
                f"{name}: 'alpha' is the model's rate of adequate outputs; a significance "
                "threshold is 'sig_level'")


def test_row_accounting_names():
    for modname in PUBLIC_MODULES:
        try:
            mod = importlib.import_module(modname)
        except ModuleNotFoundError:
            continue
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name, None)
            if inspect.isclass(obj):
                attrs = set(dir(obj)) | set(getattr(obj, "__dataclass_fields__", {}))
                assert not attrs & ROW_SPELLINGS, f"{name}: use n_rows/n_used/n_excluded"


def test_old_spellings_raise_naming_the_new_one():
    import binaryeval as be
    from binaryeval.errors import BinaryEvalError

    with pytest.raises(BinaryEvalError, match="'estimate'"):
        be.plan.detectable_difference(0.6, 0.8, n_human=100, rates="estimated")
    with pytest.raises(TypeError, match="sig_level"):
        be.plan.detectable_difference(0.6, 0.8, n_human=100, gamma=0.05)
    with pytest.raises(TypeError, match="n_resamples"):
        be.plan.simulate(0.6, 0.8, n_human=100, reps=10)
    with pytest.raises(TypeError, match="level"):
        be.williams_test(0.9, 0.8, 0.7, 20).confidence_interval(confidence_level=0.9)
