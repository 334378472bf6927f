"""RaterFit.plan(): another rating of a rated item, or a new item?

The gains are the expected reduction of the posterior variance of alpha (preposterior analysis
from the fit's draws).  Checked against the closed form of the Beta-binomial model (error-free
raters: the fit's alpha is Beta(1 + k, 1 + n - k)), against cases whose answer is known in
sign, and against invariants of the table.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from binaryeval.errors import ConvergenceWarning, ParameterError
from binaryeval.raters import fit_raters
from binaryeval.raters._plan import RaterPlan
from binaryeval.raters._simulate import simulate_crowd


def _quiet(func, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return func(*args, **kw)


def _two_experts(seed=0, n=200, alphas=(("A", 0.7), ("B", 0.4))):
    """Two error-free raters, each rating half of every system's items (no item twice)."""
    rng = np.random.default_rng(seed)
    rows = []
    for system, a in alphas:
        t = rng.random(n) < a
        rows += [{"system": system, "item": i, "annotator": "e1" if i % 2 else "e2",
                  "rating": float(t[i])} for i in range(n)]
    return pd.DataFrame(rows)


def test_perfect_raters_a_rerating_buys_nothing_a_new_item_the_beta_binomial_gain():
    df = _two_experts()
    fit = fit_raters("rating ~ 1 | system", df, rater="annotator", item="item",
                     error_free=["e1", "e2"], draws=2000, seed=1)
    for who in (None, "e1"):
        t = fit.plan(rater=who).to_frame()
        for g in ("A", "B"):
            row = t.loc[g]
            # the class of every rated item is known: another rating of it changes nothing
            # (zero up to rounding: the reweighted means agree to the last bits)
            assert row["gain_rated"] < 1e-12 * row["gain_new"]
            assert row["gain_rated_mc_error"] < 1e-12 * row["gain_new"]
            # a new item's class y ~ Bernoulli(mu): with alpha ~ Beta(a, b), n0 = a + b,
            # E(alpha | y) moves by 1 / (n0 + 1), so the expected variance reduction is
            # mu (1 - mu) / (n0 + 1)^2 (the law of total variance)
            k = df.loc[df["system"] == g, "rating"].sum()
            a, b = 1 + k, 1 + 200 - k
            mu, n0 = a / (a + b), a + b
            want = mu * (1 - mu) / (n0 + 1) ** 2
            assert abs(row["gain_new"] - want) < 4 * row["gain_new_mc_error"]
            assert row["gain_new"] == pytest.approx(want, rel=0.06)
            assert row["better"] == "new item" and row["worth"] < 1e-12
            assert row["new_item"] == "a new item"
            # the raters are error-free: their rating is worth one error-free rating
            assert row["ratings_per_error_free"] == pytest.approx(1.0, rel=1e-9)


def _expert_and_crowd(seed, n_crowd=1000, n_expert=100, overlap=15, acc=0.7, alpha=0.6):
    """An expert (error-free) on 100 items, one noisy crowd rater on 1000, 15 items shared."""
    rng = np.random.default_rng(seed)
    n = n_crowd + n_expert - overlap
    t = rng.random(n) < alpha
    rows = []
    for i in range(n):
        if i < n_expert:
            rows.append({"item": i, "annotator": "expert", "rating": float(t[i])})
        if i >= n_expert - overlap:
            rows.append({"item": i, "annotator": "crowd",
                         "rating": float(t[i] if rng.random() < acc else 1 - t[i])})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("model", ["dawid-skene", "mace"])
def test_noisy_single_ratings_a_second_rating_buys_more_than_a_new_item(model):
    # most items carry one rating by a noisy rater whose errors 15 shared items barely pin
    # down: a second rating of such an item teaches those errors, which move alpha; a new item
    # adds one item to the 1000
    df = _expert_and_crowd(1)
    fit = _quiet(fit_raters, "rating ~ 1", df, rater="annotator", item="item", raters=model,
                 error_free="expert", draws=1000, seed=1)
    for who in ("expert", None):
        t = fit.plan(rater=who).to_frame().iloc[0]
        assert t["gain_rated"] - t["gain_new"] > 2 * t["diff_mc_error"], who
        assert t["better"] == "rated item" and t["worth"] > 1.2


def test_reliable_overlapping_crowd_a_new_item_buys_more():
    # three good raters per item: the items' classes are nearly known and the raters' errors
    # well learnt, so another rating of a rated item moves alpha little; a new item (one of
    # the items with a metric output only) adds an item
    df, _ = simulate_crowd(3, alphas=[0.6], n_items=300, per_item=(3, 3),
                           competence=[0.95, 0.9, 0.9, 0.85], n_metric_only=300)
    fit = _quiet(fit_raters, "rating ~ metric | system", df, rater="annotator", item="item",
                 draws=1000, seed=1)
    plan = fit.plan()
    t = plan.to_frame().iloc[0]
    assert t["gain_new"] - t["gain_rated"] > 2 * t["diff_mc_error"]
    assert t["better"] == "new item" and t["worth"] < 0.5
    assert t["new_item"] == "an item with a metric output only" and t["n_metric"] == 300
    assert isinstance(plan, RaterPlan)
    assert repr(plan) == "RaterPlan(groups=1, rated_item=0, new_item=1, either=0)"


def test_the_plan_table_is_consistent_and_reproducible():
    df, _ = simulate_crowd(2, alphas=[0.75, 0.5], n_items=100, per_item=(2, 3),
                           competence=[0.9, 0.8, 0.7, 0.6])
    fit = _quiet(fit_raters, "rating ~ metric | system", df, rater="annotator", item="item",
                 draws=300, chains=2, seed=4)
    one, two = fit.plan().to_frame(), fit.plan().to_frame()
    pd.testing.assert_frame_equal(one, two)       # a function of the draws: no new randomness
    frame = fit.to_frame()
    np.testing.assert_allclose(one["estimate"], frame["estimate"])
    np.testing.assert_allclose(one["std_error"], frame["std_error"], rtol=1e-6)
    np.testing.assert_allclose(one["std_error_rated"] ** 2,
                               one["std_error"] ** 2 - one["gain_rated"])
    np.testing.assert_allclose(one["worth"], one["gain_rated"] / one["gain_new"])
    assert (one["gain_rated"] >= 0).all() and (one["gain_new"] >= 0).all()
    # no metric-only items: the new item is rated by the metric too
    assert set(one["new_item"]) == {"a new item (metric output and rating)"}
    assert one.attrs["method"].startswith("preposterior analysis")
    assert list(one["n_ratings"]) == list(frame["n_ratings"])
    text = fit.plan().summary().as_text()
    assert "worth" in text and "2 Monte-Carlo errors" in text


@pytest.mark.parametrize("model", ["dawid-skene", "mace"])
def test_an_error_free_rating_of_a_new_item_the_identity_of_moments(model):
    # without a metric, a new item rated without error reveals its class z ~ Bernoulli(m):
    # E(alpha | z = 1) - m = V / m and E(alpha | z = 0) - m = -V / (1 - m) (m, V the posterior
    # mean and variance), so the gain is V^2 / (m (1 - m)) exactly, whatever the raters
    df, _ = simulate_crowd(1, alphas=[0.6, 0.35], n_items=400, per_item=(3, 3),
                           competence=[0.8] * 4)
    fit = _quiet(fit_raters, "rating ~ 1 | system", df, rater="annotator", item="item",
                 raters=model, draws=500, seed=1)
    t = fit.plan().to_frame()
    for g in t.index:
        a = fit.alpha_draws(g).ravel().astype(float)
        m, var = a.mean(), a.var()
        assert t.loc[g, "gain_error_free"] == pytest.approx(var ** 2 / (m * (1 - m)), rel=1e-9)
        # a crowd rating is worth less than an error-free one
        assert t.loc[g, "ratings_per_error_free"] > 1.5
        np.testing.assert_allclose(t.loc[g, "ratings_per_error_free"],
                                   t.loc[g, "gain_error_free"] / t.loc[g, "gain_new"])


def test_when_every_rater_rated_every_item_only_new_items_are_left():
    df, _ = simulate_crowd(5, alphas=[0.6], n_items=80, per_item=(3, 3),
                           competence=[0.9, 0.8, 0.7])
    fit = _quiet(fit_raters, "rating ~ 1", df, rater="annotator", item="item", draws=200,
                 chains=2, seed=1)
    plan = fit.plan()
    t = plan.to_frame().iloc[0]
    assert np.isnan(t["gain_rated"]) and np.isnan(t["worth"]) and t["better"] == "new item"
    assert t["gain_new"] > 0
    assert "no rated item is left to rate again" in str(plan)


def test_an_unknown_rater_is_refused_by_name():
    df, _ = simulate_crowd(2, alphas=[0.75], n_items=60, per_item=(2, 3),
                           competence=[0.9, 0.8, 0.7])
    fit = _quiet(fit_raters, "rating ~ 1", df, rater="annotator", item="item", draws=100,
                 chains=2, seed=1)
    with pytest.raises(ParameterError, match="rater='nobody' is not one of the fit's raters"):
        fit.plan(rater="nobody")
