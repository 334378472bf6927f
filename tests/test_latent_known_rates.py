"""Known rates in the latent model, checked against the data as in the binary model.

Known rates are used as given, so the paired items' metric outputs inform nothing: a known
matrix that they rule out is named in one ContradictionWarning (an exact binomial test per row
with two outputs, twice the smaller tail, from scipy's binomial distribution; the
likelihood-ratio G test with more, as scipy's ``power_divergence`` computes it), and metric-only
ratings in an output that the known matrix never produces (probability 0 whatever the shares)
are refused with a CountsError.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import binaryeval as be
from binaryeval.latent._common import known_conflicts


def test_rows_the_paired_items_reject_against_scipy():
    # group 0: class 0 fits its row (45/5 against 0.9/0.1), class 1 does not (20/30 against
    # 0.1/0.9); group 1: three outputs, class 0 rejected, class 1 fits; an output with known
    # probability 0 that occurs gives p = 0
    paired = np.array([[[45, 5, 0], [20, 30, 0]], [[10, 10, 10], [2, 8, 30]]])
    known = np.array([[[0.9, 0.1, 0.0], [0.1, 0.9, 0.0]], [[0.8, 0.1, 0.1], [0.05, 0.2, 0.75]]])
    two = known_conflicts(paired[:1, :, :2], known[:1, :, :2])
    assert [(g, c) for g, c, _ in two] == [(0, 1)]
    both_tails = 2 * min(stats.binom.cdf(20, 50, 0.1), stats.binom.sf(19, 50, 0.1))
    assert two[0][2] == pytest.approx(both_tails, rel=1e-12)
    three = known_conflicts(paired[1:], known[1:])
    assert [(g, c) for g, c, _ in three] == [(0, 0)]
    g_test = stats.power_divergence([10, 10, 10], 30 * known[1, 0], lambda_="log-likelihood")
    assert three[0][2] == pytest.approx(g_test.pvalue, rel=1e-9)
    fits = stats.power_divergence([2, 8, 30], 40 * known[1, 1], lambda_="log-likelihood")
    assert fits.pvalue > 0.001
    impossible = known_conflicts(np.array([[[45, 4, 1], [0, 0, 0]]]),
                                 np.array([[[0.9, 0.1, 0.0], [0.1, 0.9, 0.0]]]))
    assert impossible == [(0, 0, 0.0)]


def _ratings(seed: int = 0, n: int = 2000) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.6
    metric = np.where(truth, rng.random(n) < 0.8, rng.random(n) < 0.3).astype(int)
    return pd.DataFrame({"human": np.where(np.arange(n) < 300, truth, np.nan), "m1": metric})


def test_fit_latent_names_known_rates_the_paired_items_rule_out():
    df = _ratings()
    paired = df.dropna()
    counts = pd.crosstab(paired["human"], paired["m1"]).to_numpy()
    with pytest.warns(be.ContradictionWarning) as caught:
        be.fit_latent("human ~ m1", df, rates=[[0.95, 0.05], [0.05, 0.95]], draws=200, seed=1)
    text = str(caught[0].message)
    assert "In 1 of 1 groups the paired items rule out the known rates" in text
    k, n = int(counts[0, 0]), int(counts[0].sum())
    p0 = 2 * min(stats.binom.cdf(k, n, 0.95), stats.binom.sf(k - 1, n, 0.95))
    assert (f"all, human rating '0': the metric gave '0' {counts[0, 0]}, '1' {counts[0, 1]} "
            f"against the known '0' 0.95, '1' 0.05 (p = {p0:.2g})") in text
    assert "rates='estimate'" in text
    # rates close to the simulation's (0.7 / 0.3 and 0.2 / 0.8): nothing to say
    with warnings.catch_warnings():
        warnings.simplefilter("error", be.ContradictionWarning)
        be.fit_latent("human ~ m1", df, rates=[[0.7, 0.3], [0.2, 0.8]], draws=200, seed=1)


def test_metric_only_ratings_the_known_rates_never_produce_are_refused():
    df = _ratings()
    n_one = int((df["human"].isna() & (df["m1"] == 1)).sum())
    message = (f"group 'all' has {n_one} metric-only ratings '1', but the known rates give that "
               "output probability 0 in every human class")
    with pytest.raises(be.CountsError, match=re.escape(message)):
        be.fit_latent("human ~ m1", df, rates=[[1.0, 0.0], [1.0, 0.0]], draws=200, seed=1)


def test_fit_preferences_names_known_rates_the_paired_items_rule_out():
    # the metric always agrees with the humans' preference on the paired items, and the known
    # matrix says it reverses it half the time: every row is rejected
    df = pd.DataFrame({"sys_a": ["x", "y", "x", "x"] * 30, "sys_b": ["y", "x", "y", "y"] * 30,
                       "human": [1, -1, 0, None] * 30, "metric": [1, -1, 0, 1] * 30})
    flip = [[0.5, 0.0, 0.5], [0.0, 1.0, 0.0], [0.5, 0.0, 0.5]]
    # (the sampler's convergence is not what this asks about: 200 draws can miss R-hat 1.01 where
    # numpy's vectorised functions round otherwise, e.g. numpy 1.26 on AVX-512)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", be.ConvergenceWarning)
        with pytest.warns(be.ContradictionWarning,
                          match="the paired items rule out the known rates"):
            be.fit_preferences("human ~ metric", df, first="sys_a", second="sys_b", rates=flip,
                               draws=200, seed=2)
