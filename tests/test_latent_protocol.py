"""One protocol for every fit, every argument of fit() on every path, and the latent path's
regression tests (preferences, several metrics, bins).

Numbers come from closed forms (Beta and Dirichlet posteriors), independent implementations
(scipy quadrature in tests/reference/binary_rates_quadrature.json, Monte Carlo draws of a
Dirichlet), the exact binary engine against the latent model's draws, or invariants.
"""

from __future__ import annotations

import inspect
import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import binaryeval as be
from binaryeval import datasets
from binaryeval._comparison import Comparison
from binaryeval.errors import (
    ConvergenceWarning,
    DependenceWarning,
    DirectionWarning,
    InputTypeError,
    ParameterError,
)
from binaryeval.latent import DrawsPosterior, fit_latent, fit_preferences
from binaryeval.plan.fit_plan import FitPlan

REFERENCE = Path(__file__).parent / "reference"


def _quiet(func, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return func(*args, **kw)


# ----------------------------------------------------------------------------------------------
# data
# ----------------------------------------------------------------------------------------------

def _binary_frame(seed=0, n=600, rated=150, alphas=(("A", 0.7), ("B", 0.55), ("C", 0.4))):
    """Outputs of three systems: a 0/1 human rating on the first ``rated``, two binary metrics
    that err independently and a scalar score."""
    rng = np.random.default_rng(seed)
    rows = []
    for system, alpha in alphas:
        truth = rng.random(n) < alpha
        rows.append(pd.DataFrame({
            "system": system,
            "human": np.where(np.arange(n) < rated, truth.astype(float), np.nan),
            "m1": np.where(truth, rng.random(n) < 0.8, rng.random(n) < 0.25).astype(int),
            "m2": np.where(truth, rng.random(n) < 0.75, rng.random(n) < 0.3).astype(int),
            "score": truth + rng.normal(0, 0.8, n)}))
    return pd.concat(rows, ignore_index=True)


def _scores_frame(seed=0, items=200, rated=60):
    rng = np.random.default_rng(seed)
    quality = {"A": 0.4, "B": 0.0, "C": -0.3}
    rows = []
    for i in range(items):
        for s, q in quality.items():
            h = np.round(q + rng.normal(), 0)
            rows.append({"seg": i, "sys": s, "hum": h if i < rated else np.nan,
                         "met": q + rng.normal(0, 0.8), "met2": q + rng.normal(0, 0.8)})
    return pd.DataFrame(rows)


def _wmt21_ende_30_percent() -> pd.DataFrame:
    """The shipped WMT21 en-de data, the ten systems with MQM and chrF, 30 % of the MQM kept."""
    data = datasets.load_wmt21_ende()
    has_metric = data.groupby("system")["chrf"].count() > 0
    data = data[data["system"].isin(has_metric[has_metric].index)].reset_index(drop=True)
    keep = np.random.default_rng(0).random(len(data)) <= 0.3
    data.loc[~keep, "mqm"] = np.nan
    return data.assign(penalty=-data["mqm"])


@pytest.fixture(scope="module")
def binary_df():
    return _binary_frame()


@pytest.fixture(scope="module")
def wmt30():
    return _wmt21_ende_30_percent()


# ----------------------------------------------------------------------------------------------
# one protocol for every fit
# ----------------------------------------------------------------------------------------------

def _fits(df):
    sampler = {"draws": 200, "chains": 2, "seed": 1}
    return {
        "BinaryFit": be.fit("human ~ m1 | system", df),
        "LatentFit, several metrics": _quiet(be.fit, "human ~ m1 + m2 | system", df, **sampler),
        "LatentFit, bins": _quiet(be.fit, "human ~ score | system", df, bins=3, **sampler),
        "PreferenceFit": _quiet(fit_preferences, "hum ~ met | sys", _scores_frame(),
                                item="seg", **sampler),
    }


@pytest.fixture(scope="module")
def fits(binary_df):
    return _fits(binary_df)


def _units(fit):
    """The labels of to_frame()'s rows and the systems of the comparison."""
    if isinstance(fit, be.PreferenceFit):
        return fit.pairs, list(fit.order)
    return list(fit.groups), list(fit.groups)


@pytest.mark.parametrize("name", ["BinaryFit", "LatentFit, several metrics", "LatentFit, bins",
                                  "PreferenceFit"])
def test_every_fit_answers_the_same_calls(fits, name):
    fit = fits[name]
    pairs = isinstance(fit, be.PreferenceFit)
    frame = fit.to_frame()
    # indexed by the group column (pairs by group_1, group_2), one row per unit
    assert list(frame.index.names) == (["group_1", "group_2"] if pairs else ["system"])
    assert "group" not in frame.columns and "group_1" not in frame.columns
    for col in ("n_human", "n_paired", "n_metric", "std_error", "lower", "upper"):
        assert col in frame.columns
    assert frame.attrs["level"] == 0.95
    # compare(): the same Comparison object, with each difference's interval
    comp = fit.compare()
    assert isinstance(comp, Comparison)
    table = comp.to_frame()
    for col in ("group_1", "group_2", "diff", "std_error", "lower", "upper", "prob_greater",
                "p_value", "significant"):
        assert col in table.columns
    assert np.all(table["lower"] <= table["diff"]) and np.all(table["diff"] <= table["upper"])
    m = comp.matrix()
    assert m.shape[0] == m.shape[1] >= 2
    for row in table.itertuples():
        assert m.loc[row.group_1, row.group_2] == pytest.approx(row.prob_greater)
        assert m.loc[row.group_2, row.group_1] == pytest.approx(1 - row.prob_greater)
        assert comp.matrix("lower").loc[row.group_2, row.group_1] == pytest.approx(-row.upper)
    # plan(), posterior(), rates(), naive()
    plan = fit.plan()
    assert isinstance(plan, FitPlan) and len(plan.to_frame()) >= 1
    assert plan.to_frame().attrs["method"]
    post = fit.posterior(*table[["group_1", "group_2"]].iloc[0]) if pairs else \
        fit.posterior(str(frame.index[0]))
    lo, hi = post.interval(0.95)
    assert lo <= post.mean() <= hi and post.std() > 0
    rates = fit.rates()
    assert isinstance(rates, pd.DataFrame) and len(rates) > 0
    naive = fit.naive()
    assert list(naive.index) == list(frame.index)
    assert {"estimate", "lower", "upper"} <= set(naive.columns)


def test_order_is_honoured_by_every_fit(binary_df):
    order = ["C", "A", "B"]
    sampler = {"draws": 100, "chains": 2, "seed": 1}
    binary = be.fit("human ~ m1 | system", binary_df, order=order)
    several = _quiet(be.fit, "human ~ m1 + m2 | system", binary_df, order=order, **sampler)
    binned = _quiet(be.fit, "human ~ score | system", binary_df, bins=3, order=order, **sampler)
    for fit in (binary, several, binned):
        assert list(fit.to_frame().index) == order
        assert list(fit.compare().matrix().index) == order
        assert list(fit.compare(order="input").matrix().index) == ["A", "B", "C"]
    pref = _quiet(fit_preferences, "hum ~ met | sys", _scores_frame(), item="seg",
                  order=order, **sampler)
    assert list(pref.order) == order and list(pref.compare().matrix().index) == order
    with pytest.raises(ParameterError, match="every group once"):
        _quiet(be.fit, "human ~ m1 + m2 | system", binary_df, order=["A"], **sampler)


def test_latent_alpha_and_rates_agree_with_the_exact_binary_model(binary_df):
    # one binary metric through the latent model (K = J = 2) is the binary model: the draws'
    # alpha and the model's posterior of rho and eta match the exact computation
    df = binary_df[binary_df["system"] == "B"]
    exact = be.fit("human ~ m1 | system", df)
    latent = fit_latent("human ~ m1 | system", df, draws=2000, seed=4)
    post, want = latent.posterior("B"), exact.posterior("B")
    ess = float(latent.to_frame()["ess_bulk"].iloc[0])
    assert abs(post.mean() - want.mean()) < 5 * want.std() / math.sqrt(ess)
    r = latent.rates().loc["B"]
    exact_rates = exact.rates().loc["B"]
    # Theta[adequate, metric 1] is rho, Theta[inadequate, metric 0] is eta
    for cell, name in ((("1", "1"), "rho"), (("0", "0"), "eta")):
        got = r.loc[cell]
        assert abs(got["estimate"] - exact_rates[name]) < 5 * exact_rates[f"{name}_std_error"] \
            / math.sqrt(ess)
        assert got["lower"] == pytest.approx(exact_rates[f"{name}_lower"], abs=0.02)


# ----------------------------------------------------------------------------------------------
# every argument of fit() on every path: honoured, or refused naming it and the path
# ----------------------------------------------------------------------------------------------

SAMPLER = {"draws": 100, "chains": 2, "seed": 3}
#: path -> (formula, options, the path's kind)
PATHS = {
    "binary": ("human ~ m1 | system", {}, "binary"),
    "binary, pooled": ("human ~ m1 | system", {"rates": "pooled"}, "binary"),
    "binary, known": ("human ~ m1 | system", {"rates": {"rho": 0.8, "eta": 0.75}}, "binary"),
    "several metrics": ("human ~ m1 + m2 | system", SAMPLER, "several"),
    "several metrics, pooled": ("human ~ m1 + m2 | system", {**SAMPLER, "rates": "pooled"},
                                "several"),
    "several metrics, known": ("human ~ m1 + m2 | system",
                               {**SAMPLER, "rates": [[0.6, 0.15, 0.15, 0.1],
                                                     [0.05, 0.15, 0.2, 0.6]]}, "several"),
    "bins": ("human ~ score | system", {**SAMPLER, "bins": 3}, "bins"),
    "bins, pooled": ("human ~ score | system", {**SAMPLER, "bins": 3, "rates": "pooled"},
                     "bins"),
}

H, R = "honoured", "refused"
#: argument -> expected outcome per kind of path (binary, several, bins)
EXPECTED = {
    "prior": (H, H, H), "rates": (H, H, H), "threshold": (H, R, R),
    "lower_is_better": (H, R, H), "level": (H, H, H), "order": (H, H, H),
    "method": (H, R, R), "rate_prior": (H, R, R), "grid": (H, R, R), "eval_env": (H, H, H),
    "dependence": (R, H, R), "bins": (H, H, H), "seed": (R, H, H), "draws": (R, H, H),
    "chains": (R, H, H),
    # the rater-noise model's arguments (its own walk: tests/test_raters.py) need rater= and
    # item= together; alone they are refused on these paths
    "rater": (R, R, R), "item": (R, R, R), "raters": (R, R, R), "error_free": (R, R, R),
    "rater_rates": (R, R, R),
}


def test_the_walk_covers_every_argument_of_fit():
    params = [p for p in inspect.signature(be.fit).parameters if p not in ("formula", "data")]
    assert sorted(params) == sorted(EXPECTED)


def _case(name: str, formula: str, kw: dict, kind: str):
    """The call that gives argument ``name`` a value other than its default on this path, and
    how to see in the result that it was used."""
    kw = dict(kw)
    term = {"binary": "m1", "several": "m1", "bins": "score"}[kind]
    if name == "prior":
        kw["prior"] = (5, 2)
        return formula, kw, lambda f: tuple(map(float, f.prior)) == (5.0, 2.0)
    if name == "rates":
        kw["rates"] = "estimate" if kw.get("rates") == "pooled" else "pooled"
        want = kw["rates"]
        return formula, kw, lambda f: (f.latent.rates if isinstance(f, be.LatentFit)
                                       else f.rates_mode) == want
    if name == "threshold":
        f2 = formula.replace("m1", "score") if kind == "binary" else formula
        kw["threshold"] = 0.5
        return f2, kw, lambda f: f.threshold == 0.5
    if name == "lower_is_better":
        if kind == "binary":
            kw["threshold"] = 0.5
            return formula.replace("m1", "score"), {**kw, "lower_is_better": ["score"]}, \
                lambda f: f.lower_is_better == ("score",) and f.threshold_rule is not None
        kw["lower_is_better"] = [term]
        return formula, kw, lambda f: f.lower_is_better == (term,)
    if name == "level":
        kw["level"] = 0.9
        return formula, kw, lambda f: (f.to_frame().attrs["level"] == 0.9
                                       and f.compare().level == 0.9)
    if name == "order":
        kw["order"] = ["C", "A", "B"]
        return formula, kw, lambda f: list(f.to_frame().index) == ["C", "A", "B"]
    if name == "method":
        kw.update(method="grid", grid=(200, 50, 50))
        return formula, kw, lambda f: f.method == "grid"
    if name == "rate_prior":
        kw["rate_prior"] = (50, 1)
        return formula, kw, lambda f: tuple(f.rate_prior) == (50.0, 1.0)
    if name == "grid":
        kw["grid"] = (200, 50, 50)
        if kind == "binary":
            kw["method"] = "grid"
        return formula, kw, lambda f: f.method == "grid" and f.to_frame() is not None
    if name == "eval_env":
        kw["eval_env"] = {"cut": 0.4}
        f2 = formula.replace(term, "I(score > cut)" if kind != "bins" else "I(score * cut)")
        literal = f2.replace("cut", "0.4")
        ref = be.fit(literal, _binary_frame(), **{k: v for k, v in kw.items()
                                                  if k != "eval_env"})
        return f2, kw, lambda f: np.allclose(f.to_frame()["estimate"],
                                             ref.to_frame()["estimate"], rtol=0, atol=1e-12)
    if name == "dependence":
        kw["dependence"] = "independent"
        return formula, kw, lambda f: f.latent.dependence == "independent"
    if name == "bins":
        if not isinstance(kw.get("rates", "estimate"), str):
            kw.pop("rates")   # known rates have the shape of the path's outputs
        kw["bins"] = 4
        f2 = formula.replace(term, "score") if kind != "bins" else formula
        f2 = f2 if kind != "several" else "human ~ m1 + score | system"
        if kind == "several":
            kw["bins"] = {"score": 4}
        return f2, kw, lambda f: len(f.metric_levels["score"]) == 4
    if name in ("rater", "item", "raters", "error_free", "rater_rates"):
        kw[name] = {"rater": "annotator", "item": "item_id", "raters": "mace",
                    "error_free": "expert", "rater_rates": "hierarchical"}[name]
        return formula, kw, lambda f: False
    if name in ("seed", "draws", "chains"):
        kw[name] = {"seed": 7, "draws": 120, "chains": 3}[name]
        want = kw[name]
        return formula, kw, lambda f: {"seed": f.latent.seed if isinstance(f, be.LatentFit)
                                       else None, "draws": getattr(getattr(f, "latent", None),
                                                                   "n_draws", None),
                                       "chains": getattr(getattr(f, "latent", None),
                                                         "n_chains", None)}[name] == want
    raise AssertionError(name)


@pytest.mark.parametrize("path", sorted(PATHS))
def test_every_argument_of_fit_is_honoured_or_refused_on_every_path(binary_df, path):
    formula, base_kw, kind = PATHS[path]
    column = {"binary": 0, "several": 1, "bins": 2}[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, expected in EXPECTED.items():
            f, kw, used = _case(name, formula, base_kw, kind)
            want = expected[column]
            if name == "rate_prior" and path.endswith("known"):
                want = R   # every rate known: no prior of estimated rates to take
            try:
                fit = be.fit(f, binary_df, **kw)
            except ParameterError as exc:
                assert want == R, (path, name, str(exc))
                text = str(exc)
                # the refusal names the argument and the path taken
                assert f"{name}=" in text, (path, name, text)
                assert any(w in text for w in ("latent-truth", "binary", "exact",
                                               "several metrics", "two outputs")), (path, text)
                continue
            assert want == H, (path, name, "not refused")
            assert used(fit), (path, name)


def test_rate_prior_reaches_the_latent_model_or_is_refused(binary_df):
    # a two-output metric (bins=2): the Beta prior is the Dirichlet [[a, b], [b, a]]; results
    # differ from the default (the finding: rate_prior=(50, 1) gave identical results)
    kw = {"bins": 2, "draws": 200, "chains": 2, "seed": 5}
    base = _quiet(be.fit, "human ~ score | system", binary_df, **kw)
    strong = _quiet(be.fit, "human ~ score | system", binary_df, rate_prior=(50, 1), **kw)
    direct = _quiet(fit_latent, "human ~ score | system", binary_df,
                    rate_concentration=[[50, 1], [1, 50]], **kw)
    np.testing.assert_array_equal(strong.latent.draws.pi, direct.latent.draws.pi)
    assert not np.allclose(strong.to_frame()["estimate"], base.to_frame()["estimate"])
    with pytest.raises(ParameterError, match=r"rate_prior=\(50, 1\).*rate_concentration="):
        be.fit("human ~ m1 + m2 | system", binary_df, rate_prior=(50, 1), **kw)


def test_formula_variables_resolve_on_every_path(binary_df):
    # I(score > cut) with one metric and with two (the finding: eval_env={} on the latent path)
    # (called from here: eval_env=0 is the frame that calls into binaryeval)
    cut = 0.3  # noqa: F841  (read by the formulas)
    lo = -0.2  # noqa: F841
    pref_df = _scores_frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", be.DirectionWarning)   # random scores
        one = be.fit("human ~ I(score > cut) | system", binary_df)
        two = be.fit("human ~ I(score > cut) + m2 | system", binary_df, draws=100, chains=2,
                     seed=1)
        pref = fit_preferences("hum ~ I(met > lo) | sys", pref_df, item="seg", draws=100,
                               chains=2, seed=1)
    assert one.formula.startswith("human ~ I(score > cut)")
    assert "I(score > cut)" in two.metric_terms and "I(met > lo)" in pref.metric_terms
    # the same values as the column computed by hand
    want = (binary_df["score"] > 0.3).groupby(binary_df["system"]).mean()
    got = two.naive()["estimate"]
    np.testing.assert_allclose(got.loc[want.index], want, rtol=1e-12)

    def inner():
        cut = 10.0  # noqa: F841  (depth 0 is this frame, depth 1 the test's)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return be.fit("human ~ I(score > cut) + m2 | system", binary_df, draws=100,
                          chains=2, seed=1, eval_env=1)
    np.testing.assert_allclose(inner().naive()["estimate"].loc[want.index], want, rtol=1e-12)


def test_one_capture_of_the_callers_variables_without_patsy_internals(binary_df, monkeypatch):
    import patsy

    def refuse(*a, **k):
        raise AssertionError("patsy's EvalEnvironment is not used")

    monkeypatch.setattr(patsy.EvalEnvironment, "capture", refuse)
    cut = 0.3  # noqa: F841
    be.fit("human ~ I(score > cut) | system", binary_df)
    be.roc("human ~ I(score + cut) | system", binary_df)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        be.fit("human ~ I(score > cut) + m2 | system", binary_df, draws=50, chains=1, seed=1)
    with pytest.raises(InputTypeError, match="eval_env='x'"):
        be.fit("human ~ m1 | system", binary_df, eval_env="x")


# ----------------------------------------------------------------------------------------------
# finding 1: directions (fit_preferences, fit_latent; the bool form refused everywhere)
# ----------------------------------------------------------------------------------------------

def test_fit_preferences_warns_on_raw_penalties_and_the_fix_equals_the_negated_run(wmt30):
    kw = {"item": "seg_id", "draws": 100, "chains": 2, "seed": 1}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit_preferences("penalty ~ chrf | system", wmt30, **kw)
    direction = [w for w in caught if w.category is DirectionWarning]
    assert len(direction) == 1
    text = str(direction[0].message)
    assert "lower_is_better=['penalty']" in text and "opposite systems" in text
    assert direction[0].filename == __file__  # pointed at the user's line
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fixed = fit_preferences("penalty ~ chrf | system", wmt30, lower_is_better=["penalty"],
                                **kw)
        negated = fit_preferences("mqm ~ chrf | system", wmt30, **kw)
    assert not [w for w in caught if w.category is DirectionWarning]
    pd.testing.assert_frame_equal(fixed.to_frame(), negated.to_frame())
    assert fixed.lower_is_better == ("penalty",)


def test_fit_latent_warns_when_a_binned_score_runs_against_the_humans(binary_df):
    df = binary_df.assign(bad=-binary_df["score"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _quiet(fit_latent, "human ~ bad | system", df, bins=3, draws=100, chains=2, seed=1)
    msgs = [str(w.message) for w in caught if w.category is DirectionWarning]
    assert len(msgs) == 1 and "lower_is_better=['bad']" in msgs[0] and "AUC 0." in msgs[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = fit_latent("human ~ bad | system", df, bins=3, lower_is_better=["bad"],
                         draws=100, chains=2, seed=1)
    assert not [w for w in caught if w.category is DirectionWarning]
    # the bins are turned round, labelled in the score's own units
    assert fit.metric_levels["bad"][0].startswith(">")


@pytest.mark.parametrize("call", ["fit", "fit_latent", "fit_preferences", "favi", "correlate",
                                  "roc"])
def test_lower_is_better_as_a_bool_is_refused_with_the_fix(binary_df, call):
    pref_df = _scores_frame()
    calls = {
        "fit": lambda: be.fit("human ~ score | system", binary_df, threshold=0.5,
                              lower_is_better=True),
        "fit_latent": lambda: fit_latent("human ~ score", binary_df, bins=3,
                                         lower_is_better=True),
        "fit_preferences": lambda: fit_preferences("hum ~ met | sys", pref_df, item="seg",
                                                   lower_is_better=True),
        "favi": lambda: be.favi("hum ~ met | sys", pref_df, item="seg", lower_is_better=True),
        "correlate": lambda: be.correlate("hum ~ met", pref_df.dropna(), lower_is_better=False),
        "roc": lambda: be.roc("human ~ score", binary_df, lower_is_better=True),
    }
    with pytest.raises(InputTypeError, match=r"lower_is_better=(True|False): name the terms.*"
                                             r"lower_is_better=\[") as caught:
        calls[call]()
    if call in ("fit", "fit_latent", "roc"):
        # the example is the metric: the human rating of these models has no direction
        # (lower_is_better=['human'] was shown, which is then refused)
        assert "lower_is_better=['score']" in str(caught.value)


# ----------------------------------------------------------------------------------------------
# finding 4: pairs oriented one way, group_1/group_2 in every frame
# ----------------------------------------------------------------------------------------------

def test_favi_and_fit_preferences_agree_on_every_pair_and_frame(wmt30):
    fv = be.favi("mqm ~ chrf | system", wmt30, item="seg_id", unpaired="count")
    pf = _quiet(fit_preferences, "mqm ~ chrf | system", wmt30, item="seg_id", draws=60,
                chains=1, seed=1)
    favi_pairs = list(zip(fv.to_frame()["group_1"], fv.to_frame()["group_2"], strict=True))
    assert favi_pairs == pf.pairs == list(pf.to_frame().index)
    frames = {"to_frame": pf.to_frame(), "naive": pf.naive(), "interval": pf.interval(),
              "favi": pf.favi(), "rates": pf.rates(), "compare": pf.compare().to_frame(),
              "plan": pf.plan().to_frame()}
    for name, frame in frames.items():
        names = set(frame.index.names) | set(frame.columns)
        assert {"group_1", "group_2"} <= names, name
        assert not names & {"system_1", "system_2"}, name
    comp = pf.compare().to_frame()
    assert list(zip(comp["group_1"], comp["group_2"], strict=True)) == favi_pairs
    # the model's Favi-Score and favi's point the same way where both are clear
    both = pd.DataFrame({"model": pf.to_frame()["favi"].to_numpy(),
                         "counted": fv.to_frame()["favi"].to_numpy()})
    clear = both[(both.abs() > 0.3).all(axis=1)]
    assert len(clear) > 5 and (np.sign(clear["model"]) == np.sign(clear["counted"])).mean() > 0.9


# ----------------------------------------------------------------------------------------------
# finding 5: what the data cannot say
# ----------------------------------------------------------------------------------------------

def _pairs_without_humans():
    """Ready preferences of four systems; pair (c, d) has metric ratings only."""
    rng = np.random.default_rng(2)
    rows = []
    for a, b, h_share in (("a", "b", 0.7), ("a", "c", 0.8), ("b", "c", 0.6), ("c", "d", 0.5),
                          ("a", "d", 0.7), ("b", "d", 0.6)):
        for i in range(300):
            human = 1 if rng.random() < h_share else -1
            metric = human if rng.random() < 0.75 else -human
            rated = i < 120 and (a, b) != ("c", "d")
            rows.append({"s1": a, "s2": b, "h": human if rated else np.nan, "m": metric})
    return pd.DataFrame(rows)


def test_prior_dominated_pairs_are_named_marked_and_left_out_of_rankings():
    fit = _quiet(fit_preferences, "h ~ m", _pairs_without_humans(), first="s1", second="s2",
                 draws=300, chains=2, seed=2)
    frame = fit.to_frame()
    assert frame["prior_dominated"].tolist() == [(a, b) == ("c", "d") for a, b in frame.index]
    # the prior of diff under Dirichlet(1, 1, 1) has sd 1/sqrt(6); with no human rating the
    # posterior sd stays near it
    assert frame.loc[("c", "d"), "std_error"] > 0.75 / math.sqrt(6)
    assert fit.prior_dominated() == [("c", "d")]
    text = " ".join(str(fit).split())
    assert "the data say little about 1 of 6 pairs (c vs d)" in text
    assert "left out of the system order and of ranking()" in text
    # ranking and system scores leave the pair out; asked, it is kept
    g = fit.ranking(0.51)
    assert not g.has_edge("c", "d") and not g.has_edge("d", "c")
    assert fit.compare().to_frame().set_index(["group_1", "group_2"]).loc[
        ("c", "d"), "prior_dominated"]
    scores = fit._system_scores()
    d_pairs = frame.loc[[("a", "d"), ("b", "d")], "diff"]
    assert scores["d"] == pytest.approx(-d_pairs.mean())   # (c, d) is not averaged in
    kept = fit.ranking(0.51, include_prior_dominated=True)
    assert sorted(kept.nodes) == ["a", "b", "c", "d"] and kept.graph["left_out"] == []
    # the plan does not pretend: no plan for a pair the data say nothing about
    plan = fit.plan().to_frame().set_index(["group_1", "group_2"])
    assert pd.isna(plan.loc[("c", "d"), "more_human"])
    assert "says nothing" in plan.loc[("c", "d"), "note"] or \
        "say nothing" in plan.loc[("c", "d"), "note"]


def test_a_group_without_information_is_marked_in_a_latent_fit(binary_df):
    # system D: metric ratings only, rates per group: its alpha is the prior's
    rng = np.random.default_rng(9)
    extra = pd.DataFrame({"system": "D", "human": np.nan,
                          "m1": rng.integers(0, 2, 400), "m2": rng.integers(0, 2, 400),
                          "score": rng.normal(size=400)})
    df = pd.concat([binary_df, extra], ignore_index=True)
    fit = _quiet(be.fit, "human ~ m1 + m2 | system", df, draws=300, chains=2, seed=1)
    frame = fit.to_frame()
    assert frame.loc["D", "prior_dominated"] and not frame.drop("D")["prior_dominated"].any()
    assert fit.order[-1] == "D"   # last in the default order
    assert "D" in fit.ranking().graph["left_out"] and "D" not in fit.ranking().nodes
    assert "D" in fit.ranking(include_prior_dominated=True).nodes
    assert "the data say little about D" in " ".join(str(fit).split())


# ----------------------------------------------------------------------------------------------
# finding 6: rho and eta are the model's posterior
# ----------------------------------------------------------------------------------------------

def test_binary_rates_are_the_models_posterior_by_independent_quadrature():
    # reference: 3-D adaptive quadrature of the joint posterior (scipy tplquad), see
    # tests/reference/binary_rates_quadrature.py
    ref = json.loads((REFERENCE / "binary_rates_quadrature.json").read_text())
    for case in ref["cases"]:
        hp, ht, k, m, tp, fn, tn, fp = case["counts"]
        counts = {"human_pos": hp, "human_total": ht, "metric_pos": k, "metric_total": m,
                  "tp": tp, "fn": fn, "tn": tn, "fp": fp}
        with warnings.catch_warnings():
            # some cases are chosen where alpha is poorly identified (said; not the point here)
            warnings.simplefilter("ignore", be.IdentifiabilityWarning)
            fit = (be.fit_counts(counts) if case["eta_known"] is None
                   else be.fit_counts(counts, rates={"eta": case["eta_known"]}))
        got = fit.rates().iloc[0]
        assert got["rho"] == pytest.approx(case["rho_mean"], abs=1e-8)
        assert got["eta"] == pytest.approx(case["eta_mean"], abs=1e-8)
        # and not the paired rows' alone
        assert got["rho"] != pytest.approx(fit.paired_rates().iloc[0]["rho"], abs=1e-3)


@pytest.mark.parametrize("m", [40, 600, 3000, 30000])
def test_the_rates_mixture_has_the_exact_alpha(m):
    # the alpha margin of the (X, U) mixture is the exact engine's posterior
    from binaryeval.binary.rates import model_rates

    rng = np.random.default_rng(m)
    tp, fn, tn, fp = (int(x) for x in rng.integers(5, 60, 4))
    k = int(rng.binomial(m, 0.55))
    _, _, alpha_mean = model_rates(A=31, B=21, k=k, M=m, tp=tp, fn=fn, tn=tn, fp=fp,
                                   rate_prior=(1, 1))
    exact = be.alpha_posterior(30, 50, k, m, tp, fn, tn, fp)
    assert alpha_mean == pytest.approx(exact.mean(), abs=1e-10)


def test_model_rates_beyond_every_term_summation_equal_every_term(monkeypatch):
    # 701 x 801 terms, more than every-term summation takes by default: the located box
    # (the weights press both edges here, so unit steps) against every term of the square
    from binaryeval.binary import rates as module

    args = dict(A=40, B=30, k=700, M=1500, tp=20, fn=9, tn=25, fp=11, rate_prior=(1, 1))
    located = module.model_rates(**args)
    monkeypatch.setattr(module, "_FULL", 10**7)
    full = module.model_rates(**args)
    for z, f in zip(located[:2], full[:2], strict=True):
        assert z.mean == pytest.approx(f.mean, abs=1e-12)
        assert z.sd == pytest.approx(f.sd, abs=1e-11)
        assert z.lower == pytest.approx(f.lower, abs=1e-11)
        assert z.upper == pytest.approx(f.upper, abs=1e-11)


# ----------------------------------------------------------------------------------------------
# finding 8: dependence="independent" on copies is said loudly; the default is joint
# ----------------------------------------------------------------------------------------------

def test_independent_metrics_that_are_copies_are_reported_loudly(binary_df):
    df = binary_df.assign(copy=binary_df["m1"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = be.fit("human ~ m1 + copy | system", df, dependence="independent", draws=100,
                     chains=2, seed=1)
    dep = [str(w.message) for w in caught if w.category is DependenceWarning]
    assert len(dep) == 1 and "dependence='joint'" in dep[0] and "Bayes factor" in dep[0]
    bf = fit.dependence().attrs["log10_bf"]
    assert f"{bf:,.1f}" in dep[0] and bf > 10
    assert "WARNING: the metrics err together" in " ".join(str(fit).split())
    # the default is the joint model, and it says nothing of the kind
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        joint = be.fit("human ~ m1 + copy | system", df, draws=100, chains=2, seed=1)
    assert joint.latent.dependence == "joint"
    assert not [w for w in caught if w.category is DependenceWarning]
    # ... and its summary does not advise the setting it already has (it said 'conditional
    # dependence: use dependence="joint"' under a joint fit)
    text = " ".join(str(joint).split())
    assert 'dependence="joint" (this fit) allows for' in text and "use dependence" not in text
    assert inspect.signature(fit_latent).parameters["dependence"].default == "joint"
    assert inspect.signature(fit_preferences).parameters["dependence"].default == "joint"


def test_independent_metrics_that_do_err_independently_are_not_flagged():
    df = _scores_frame(seed=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _quiet(fit_preferences, "hum ~ met + met2 | sys", df, item="seg",
               dependence="independent", draws=100, chains=2, seed=1)
    assert not [w for w in caught if w.category is DependenceWarning]


# ----------------------------------------------------------------------------------------------
# the must-shows on WMT21 en-de with 30 % of the human ratings
# ----------------------------------------------------------------------------------------------

def test_a_binned_fit_on_wmt21_answers_the_comparison_and_the_plan(wmt30):
    fit = _quiet(be.fit, "I(mqm == 0) ~ chrf | system", wmt30, bins=3, draws=200, chains=2,
                 seed=1)
    m = fit.compare().matrix()
    assert m.shape == (10, 10) and list(m.index) == list(fit.order)
    off = m.to_numpy()[~np.eye(10, dtype=bool)]
    assert np.all((off >= 0) & (off <= 1))
    np.testing.assert_allclose((m.to_numpy() + m.to_numpy().T)[~np.eye(10, dtype=bool)], 1.0,
                               rtol=0, atol=1e-12)
    plan = fit.plan().to_frame()
    assert len(plan) == 9 and plan["more_human"].notna().sum() >= 5
    assert list(plan["group_1"]) == list(fit.order[:-1])


# ----------------------------------------------------------------------------------------------
# the pieces: Comparison, DrawsPosterior, naive intervals, plans
# ----------------------------------------------------------------------------------------------

def test_binary_difference_interval_matches_quadrature():
    # P(alpha_1 - alpha_2 <= d) for two Beta posteriors by quadrature of scipy's Beta density
    # and survival function (tests/binary_quadrature.py: composite Gauss-Legendre, within 1e-14
    # as a rule of half the points says), and its roots by brentq to 1e-13
    from binary_quadrature import beta_difference_ends

    from binaryeval.binary.compare import difference_interval

    for (a1, b1), (a2, b2) in (((71, 31), (56, 46)), ((3, 9), (40, 30)), ((500, 400), (9, 3))):
        p1 = be.alpha_posterior(a1 - 1, a1 + b1 - 2)
        p2 = be.alpha_posterior(a2 - 1, a2 + b2 - 2)
        want = beta_difference_ends((a1, b1), (a2, b2))
        np.testing.assert_allclose(difference_interval(p1, p2, 0.95), want, atol=1e-9)


def test_draws_posterior_reads_its_draws():
    rng = np.random.default_rng(0)
    x = rng.normal(0.2, 0.1, size=(4, 5000))
    post = DrawsPosterior(x, "diff", "A vs B", source=1)
    assert post.mean() == pytest.approx(x.mean()) and post.std() == pytest.approx(x.std(ddof=1))
    lo, hi = post.interval(0.9)
    assert post.cdf(lo) == pytest.approx(0.05, abs=1e-3) and post.sf(hi) == pytest.approx(
        0.05, abs=1e-3)
    assert post.ppf(0.5) == pytest.approx(np.median(x))
    lo_h, hi_h = post.interval(0.9, kind="hdi")
    assert hi_h - lo_h <= hi - lo + 1e-12
    # same source: draw by draw (the joint posterior); otherwise independent
    y = x + rng.normal(0, 0.01, x.shape)
    assert post.prob_greater(DrawsPosterior(y, source=1)) == pytest.approx(np.mean(x > y))
    indep = post.prob_greater(DrawsPosterior(y, source=2))
    assert indep == pytest.approx(0.5, abs=0.02)
    np.testing.assert_array_equal(post.rvs(5, random_state=3), post.rvs(5, random_state=3))


def test_naive_preference_interval_is_the_dirichlet_difference():
    from binaryeval.latent.preferences import dirichlet_diff_interval

    rng = np.random.default_rng(5)
    for a in ((31.0, 12.0, 58.0), (2.0, 1.0, 1.0), (200.0, 150.0, 190.0)):
        draws = rng.dirichlet(a, size=2_000_000)
        d = draws[:, 0] - draws[:, 2]
        want = np.quantile(d, [0.025, 0.975])
        se = np.sqrt(0.025 * 0.975 / d.size) / stats.gaussian_kde(d[:20000])(want)
        np.testing.assert_allclose(dirichlet_diff_interval(*a, 0.95), want, atol=float(
            5 * se.max()))


def test_the_beta_quantile_of_the_intervals_is_scipys():
    # the Dirichlet-difference interval and the judge's agreement bounds call the beta
    # quantile as scipy.special.betaincinv: it must be scipy.stats.beta.ppf bit for bit, the
    # support's ends included, and NaN outside [0, 1]
    from binaryeval.latent.preferences import _beta_ppf

    rng = np.random.default_rng(2)
    q = np.r_[0.0, 1.0, 1e-300, 1 - 1e-16, rng.random(20000)]
    a, b = rng.gamma(1, 30, q.size) + 0.3, rng.gamma(1, 30, q.size) + 0.3
    with warnings.catch_warnings():  # Boost's root finder gives up at 1e-300 in both
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_array_equal(_beta_ppf(q, a, b), stats.beta.ppf(q, a, b))
    assert _beta_ppf(0.3, 2.0, 3.0) == stats.beta.ppf(0.3, 2.0, 3.0)
    assert np.isnan(_beta_ppf(np.array([-0.1, 1.1, np.nan]), 2.0, 3.0)).all()


def test_latent_plan_is_close_to_the_exact_binary_plan():
    # one binary metric: the latent model's effective-sample-size plan against the exact plan
    # of the binary model on the same data.  When each metric-only item kept its present worth
    # (leaving out that new paired rows also sharpen the rates) the ratios ran 0.93-0.99,
    # 1.34-1.53 and 1.29-1.34 over seeds 0-5 at these 2,000 draws; with the gain of k more
    # ratings taken from the Fisher information they run 0.95-1.02 (seeds 0-3, all three
    # pairs): a bound of 10 % each way is above the Monte Carlo spread and below the old rule
    df = _binary_frame(seed=11, n=1500, rated=150,
                       alphas=(("A", 0.62), ("B", 0.55), ("C", 0.5)))
    exact = be.fit("human ~ m1 | system", df)
    latent = fit_latent("human ~ m1 | system", df, draws=2000, seed=3)
    for eps in (None, 0.06):
        e = exact.plan(eps).to_frame()
        la = latent.plan(eps).to_frame()
        assert list(e["group_1"]) == list(la["group_1"])
        ratio = la["more_human"].astype(float) / e["more_human"].astype(float)
        assert np.all(ratio > 0.9) and np.all(ratio < 1.1), ratio.tolist()


def test_preference_plan_without_metric_information_is_the_dirichlet_answer():
    # a metric with known, uninformative rates (every row of Theta the same): the posterior is
    # the humans' Dirichlet, the plan's n_eff is their number, and the plan is the closed form
    # V (z / d)^2 - c0 - 1 - n at the fitted shares (V = win_1 + win_2 - d^2, c0 = 3)
    rng = np.random.default_rng(4)
    n = 150
    human = rng.choice([1, 0, -1], 600, p=[0.45, 0.2, 0.35]).astype(float)
    human[n:] = np.nan
    df = pd.DataFrame({"s1": "x", "s2": "y", "h": human, "m": rng.choice([1, 0, -1], 600)})
    known = [[1 / 3] * 3] * 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", be.DirectionWarning)   # a random metric
        fit = fit_preferences("h ~ m", df, first="s1", second="s2", rates=known, draws=4000,
                              seed=1)
    row = fit.to_frame().iloc[0]
    assert row["n_eff"] == pytest.approx(n, rel=0.05)
    z = stats.norm.isf(0.025)
    d, v = row["diff"], row["win_1"] + row["win_2"] - row["diff"] ** 2
    want = math.ceil(v * z ** 2 / d ** 2 - 4 - n)
    got = int(fit.plan().to_frame()["more_human"].iloc[0])
    assert want > 50 and abs(got - want) <= 0.05 * (want + n)


def test_latent_and_preference_plans_of_listed_pairs_are_those_rows_of_every_pair(wmt30):
    # pairs= takes the groups' own list in every plan of a fit, as the binary model's does:
    # the rows are those of pairs="all", each pair oriented as that table orients it
    df = _binary_frame(seed=2)
    latent = _quiet(fit_latent, "human ~ m1 + m2 | system", df, draws=300, chains=2, seed=1)
    every = latent.plan(pairs="all").to_frame().set_index(["group_1", "group_2"])
    got = latent.plan(pairs=[("C", "A")]).to_frame().set_index(["group_1", "group_2"])
    first = latent.order.index("A") < latent.order.index("C")
    key = ("A", "C") if first else ("C", "A")
    pd.testing.assert_frame_equal(got, every.loc[[key]])
    with pytest.raises(be.ParameterError, match=re.escape("group 'Z' in pairs= is not")):
        latent.plan(pairs=[("A", "Z")])
    prefs = _quiet(fit_preferences, "mqm ~ chrf | system", wmt30, item="seg_id", draws=100,
                   chains=2, seed=1)
    every = prefs.plan().to_frame().set_index(["group_1", "group_2"])
    a, b = every.index[-1]
    got = prefs.plan(pairs=[(b, a), every.index[0]]).to_frame().set_index(["group_1", "group_2"])
    pd.testing.assert_frame_equal(got, every.loc[[(a, b), every.index[0]]])


def test_a_prior_of_rates_that_are_all_known_is_refused_not_ignored(binary_df):
    # with every rate known nothing is estimated: the prior of the estimated rates changed no
    # number (the finding: rate_prior=(2, 2) and rate_concentration=5 gave the same posterior
    # to the last digit); now they are refused by name, and kept where a rate is estimated
    known = {"rho": 0.8, "eta": 0.75}
    with pytest.raises(ParameterError, match=r"rate_prior=\(2\.0, 2\.0\).*would change nothing"):
        be.fit("human ~ m1 | system", binary_df, rates=known, rate_prior=(2, 2))
    per_group = {g: known for g in ("A", "B", "C")}
    with pytest.raises(ParameterError, match=r"rate_prior=.*would change nothing"):
        be.fit("human ~ m1 | system", binary_df, rates=per_group, rate_prior=(2, 2))
    # eta estimated: its Beta prior counts, and moves alpha
    half = be.fit("human ~ m1 | system", binary_df, rates={"rho": 0.8}, rate_prior=(20, 2))
    plain = be.fit("human ~ m1 | system", binary_df, rates={"rho": 0.8})
    assert not np.allclose(half.to_frame()["estimate"], plain.to_frame()["estimate"])
    matrix = [[0.75, 0.25], [0.2, 0.8]]
    with pytest.raises(ParameterError, match=r"rate_concentration=5 .*would change nothing"):
        fit_latent("human ~ m1 | system", binary_df, rates=matrix, rate_concentration=5,
                   draws=100, chains=1, seed=1)
    prefs = pd.DataFrame({"a": ["x", "y"] * 40, "b": ["y", "z"] * 40,
                          "human": [1, -1, 0, None] * 20, "judge": [1, -1, 1, 1] * 20})
    judge = [[0.8, 0.1, 0.1], [0.3, 0.4, 0.3], [0.1, 0.1, 0.8]]
    with pytest.raises(ParameterError, match=r"rate_concentration=2 .*would change nothing"):
        fit_preferences("human ~ judge", prefs, first="a", second="b", rates=judge,
                        rate_concentration=2, draws=100, chains=1, seed=1)
