"""Every public result follows one protocol (binaryeval._results.Result).

``CASES`` builds one small instance of each public result class.  The test walks the public
modules, finds every class with ``summary``/``to_frame`` and fails when one has no case here, so
a new result class cannot skip the protocol.
"""

from __future__ import annotations

import importlib
import inspect
import re
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import binaryeval as be
from binaryeval._results import Result
from binaryeval.summary import Summary

PUBLIC_MODULES = ["binaryeval", "binaryeval.plan", "binaryeval.correlation",
                  "binaryeval.favoritism", "binaryeval.binary", "binaryeval.validation",
                  "binaryeval.latent"]


def _binary_fit():
    return be.fit_counts({"A": dict(human_pos=30, human_total=50, metric_pos=600, metric_total=1000,
                                    tp=20, fn=5, tn=20, fp=5),
                          "B": dict(human_pos=20, human_total=50, metric_pos=400, metric_total=1000,
                                    tp=20, fn=5, tn=20, fp=5)})


def _favi():
    rng = np.random.default_rng(0)
    rows = []
    for item in range(40):
        for s, q in (("A", 0.6), ("B", 0.5), ("C", 0.4)):
            h = rng.normal(q, 0.2)
            rows.append({"item": item, "system": s, "human": h, "metric": h + rng.normal(0, 0.2)})
    return be.favi("human ~ metric | system", pd.DataFrame(rows), item="item")


def _correlate():
    rng = np.random.default_rng(1)
    h = rng.normal(size=12)
    df = pd.DataFrame({"human": h, "m1": h + rng.normal(0, 0.5, 12),
                       "m2": h + rng.normal(0, 1.0, 12)})
    return be.correlate("human ~ m1 + m2", df)


def _roc():
    rng = np.random.default_rng(2)
    h = rng.integers(0, 2, 200)
    return be.roc("human ~ score", pd.DataFrame({"human": h, "score": h + rng.normal(0, 1, 200)}))


def _latent_example(module):
    import importlib

    return importlib.import_module(f"binaryeval.latent.{module}")._example()


def _raters():
    from binaryeval.raters._simulate import simulate_crowd

    df, _ = simulate_crowd(3, alphas=[0.7, 0.5], n_items=60, competence=[0.9, 0.8, 0.7])
    with warnings.catch_warnings():
        # 200 draws: enough for the protocol's shape, not always for the diagnostics (said)
        warnings.simplefilter("ignore", be.ConvergenceWarning)
        return be.fit("rating ~ metric | system", df, rater="annotator", item="item",
                      draws=200, chains=2, seed=1)


CASES = {
    "AlphaPosterior": lambda: be.alpha_posterior(human_pos=6, human_total=10, metric_pos=60,
                                                 metric_total=100, tp=8, fn=2, tn=8, fp=2),
    "GridPosterior": lambda: be.alpha_posterior(human_pos=6, human_total=10, method="grid",
                                                grid=(200, 1, 1)),
    "BinaryFit": _binary_fit,
    "Ranks": lambda: _binary_fit().ranks(seed=1),
    "JudgeBias": lambda: _latent_example("judge_bias"),
    "Comparison": lambda: _binary_fit().compare(),
    "RocResult": _roc,
    "FaviResult": _favi,
    "PreferenceConfusion": lambda: be.preference_confusion(list("++=-+-"), list("+==-++")),
    "SignTestResult": lambda: be.sign_test(15, 5, 3),
    "WilliamsResult": lambda: be.williams_test(0.9, 0.8, 0.7, 20),
    "CorrelationResult": _correlate,
    "DetectableDifferenceTable": lambda: be.plan.detectable_difference_table(
        0.6, 0.8, n_human=[0, 100], n_metric=[0, 1000]),
    "SampleSizeResult": lambda: be.plan.required_sample_size(0.1, alpha=0.6, rho=0.8),
    "AllocationResult": lambda: be.plan.optimal_allocation(1000, 1.0, 0.01, alpha=0.6, rho=0.8),
    "LatentPosterior": lambda: be.latent_posterior([[40, 10], [5, 45]], metric=[300, 700],
                                                   draws=300, seed=1),
    "PreferenceFit": lambda: _latent_example("preferences"),
    "LatentFit": lambda: _latent_example("multi"),
    "DrawsPosterior": lambda: _latent_example("multi").posterior("A"),
    "RaterFit": _raters,
    "SimulationResult": lambda: be.plan.simulate(0.6, 0.8, n_human=[20, 50], n_metric=[0, 200],
                                                 n_resamples=4, seed=1),
}


def _public_result_classes():
    found = {}
    for modname in PUBLIC_MODULES:
        try:
            mod = importlib.import_module(modname)
        except ModuleNotFoundError:
            continue
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name, None)
            if inspect.isclass(obj) and (hasattr(obj, "summary") or hasattr(obj, "to_frame")):
                found[name] = obj
    return found


def test_every_public_result_class_has_a_case():
    missing = sorted(set(_public_result_classes()) - set(CASES))
    assert not missing, f"add a protocol case for {missing}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_result_protocol(name):
    res = CASES[name]()
    assert type(res).__name__ == name
    assert isinstance(res, Result)
    text = repr(res)
    assert "\n" not in text and text.startswith(f"{name}(") and len(text) < 200
    summary = res.summary()
    assert isinstance(summary, Summary)
    assert str(res) == summary.as_text() and "\n" in str(res)
    assert res._repr_html_().lstrip().startswith("<")
    assert "\\" in res._repr_latex_()
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) > 0
    bad = [c for c in frame.columns if not re.fullmatch(r"[a-z][a-z0-9_]*", str(c))]
    assert not bad, f"to_frame() columns must be snake_case: {bad}"
    # a list of results stays readable in the REPL
    assert "\n" not in repr([res, res])


_CLASSES = _public_result_classes()
PLOTTABLE = sorted(n for n in CASES if hasattr(_CLASSES.get(n), "plot"))


def test_results_that_draw():
    # the results without a plot: a posterior has pdf/cdf, a single test has nothing to draw
    assert set(CASES) - set(PLOTTABLE) <= {"AlphaPosterior", "GridPosterior", "DrawsPosterior",
                                           "SignTestResult", "WilliamsResult", "SampleSizeResult"}


@pytest.mark.parametrize("name", PLOTTABLE)
def test_plot_protocol(name):
    res = CASES[name]()
    params = list(inspect.signature(res.plot).parameters.values())
    assert params[0].name == "ax" and params[0].default is None
    kind = [p for p in params if p.name == "kind"]
    assert kind and kind[0].default is not inspect.Parameter.empty
    ax = res.plot()
    assert isinstance(ax, plt.Axes)
    fig, given = plt.subplots()
    assert res.plot(ax=given) is given
    plt.close("all")


def test_posterior_follows_scipy_frozen_distributions():
    from scipy import stats

    post = be.alpha_posterior(human_pos=6, human_total=10)
    ref = stats.beta(7, 5)
    for meth in ("mean", "std", "var", "median"):
        assert getattr(post, meth)() == pytest.approx(getattr(ref, meth)(), rel=1e-12)
    x = np.array([0.1, 0.5, 0.9])
    for meth in ("pdf", "cdf", "sf", "logpdf"):
        np.testing.assert_allclose(getattr(post, meth)(x), getattr(ref, meth)(x), rtol=1e-12)
    np.testing.assert_allclose(post.ppf([0.1, 0.5]), ref.ppf([0.1, 0.5]), rtol=1e-10)
    np.testing.assert_allclose(post.isf([0.1, 0.5]), ref.isf([0.1, 0.5]), rtol=1e-10)
    np.testing.assert_allclose(post.interval(0.9), ref.interval(0.9), rtol=1e-10)
    draws = post.rvs(size=5, random_state=3)
    assert draws.shape == (5,)
    np.testing.assert_array_equal(draws, post.rvs(size=5, random_state=3))
    assert post.support() == (0.0, 1.0)


ROW_KEYS = ("n_rows", "n_used", "n_excluded", "excluded")


@pytest.mark.parametrize("name", sorted(CASES))
def test_row_account_rides_in_the_tidy_table(name):
    # favi and correlate put n_rows/n_used/n_excluded/excluded in to_frame().attrs; the fits,
    # roc and judge_bias kept them on the result only, so a saved table lost them
    res = CASES[name]()
    attrs = res.to_frame().attrs
    if getattr(res, "n_rows", None) is None:
        assert not set(ROW_KEYS) & set(attrs)
        return
    assert {k: attrs[k] for k in ROW_KEYS[:3]} == {"n_rows": res.n_rows, "n_used": res.n_used,
                                                   "n_excluded": res.n_excluded}
    assert attrs["n_used"] + attrs["n_excluded"] == attrs["n_rows"]
    assert attrs["excluded"] == {k: n for k, n in res.excluded.items() if n}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_summary_states_the_row_account_alike(name):
    # the summaries said it three ways: "rows used: 5270 of 17034" with "missing score (11764)"
    # (correlate), "n_rows"/"n_used"/"n_excluded" with "0" for none (favi), and "rows"/"rows
    # used"/"rows excluded" with "3325 no rating" or "none" (the fits)
    res = CASES[name]()
    if getattr(res, "n_rows", None) is None:
        return
    info = res.summary().info
    used = "paired rows used" if "paired rows used" in info else "rows used"
    assert info["rows"] == res.n_rows and info[used] == res.n_used
    reasons = [f"{n:,} {r}" for r, n in res.excluded.items() if n]
    assert info["rows excluded"] == ("; ".join(reasons) or "none")
    assert not {"n_rows", "n_used", "n_excluded"} & set(info)


def test_row_account_counts_the_rows_left_out():
    df = pd.DataFrame({"system": ["A", "A", "B", "B", None, "B"] * 10,
                       "human": [1, 0, 1, 0, 1, np.nan] * 10,
                       "score": [0.9, 0.2, 0.7, 0.4, 0.8, 0.5] * 10})
    for res in (be.fit("human ~ I(score > 0.5) | system", df), be.roc("human ~ score | system", df)):
        attrs = res.to_frame().attrs
        assert attrs["n_rows"] == 60 and attrs["n_excluded"] >= 10
        assert sum(attrs["excluded"].values()) == attrs["n_excluded"]


def test_roc_and_judge_bias_tables_say_how_they_were_computed():
    # the tidy tables carry method (and the score's direction, the intervals' kind) in attrs
    import warnings

    from scipy import stats

    from binaryeval.datasets import simulate_battles
    from binaryeval.errors import JudgeBiasWarning

    df = pd.DataFrame({"h": [1, 0, 1, 0, 1, 0], "pen": [.1, .8, .3, .4, .6, .9]})
    frame = be.roc("h ~ pen", df, lower_is_better="pen").to_frame()
    assert frame.attrs["directions"] == {"pen": "lower is better"}
    assert frame.attrs["method"].startswith("empirical ROC")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeBiasWarning)
        res = be.judge_bias("human ~ judge", simulate_battles(seed=7), first="a", second="b",
                            shown_first="shown")
    table = res.to_frame()
    assert table.attrs["kind"] == "eti" and table.attrs["level"] == 0.95
    # the agreement interval is the equal-tailed one of its Beta(1 + agree, 1 + other) margin
    row = table.dropna(subset=["agreement"]).iloc[0]
    a = row["agreement"] * (row["n_paired"] + 3)  # mean of Beta(a, b) with a + b = n + 3
    b = row["n_paired"] + 3 - a
    lo, hi = stats.beta.ppf([0.025, 0.975], a, b)
    assert (row["agreement_lower"], row["agreement_upper"]) == pytest.approx((lo, hi), abs=1e-9)


def test_a_preference_fits_prob_greater_says_how_many_draws_it_is_a_share_of():
    # its summary printed '> 0.9999' where every one of 2,000 draws agreed
    res = CASES["PreferenceFit"]()
    frame = res.to_frame()
    n = frame.attrs["n_draws"]
    assert n == res.latent.n_chains * res.latent.n_draws
    assert np.allclose(frame["prob_greater"] * n, np.round(frame["prob_greater"] * n))
