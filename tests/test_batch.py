"""The posteriors of many groups at once (binaryeval/binary/_batch.py) against the engine one by one.

The batch stacks the engine's direct path over groups; every posterior must be the one
``alpha_posterior`` gives for the same counts.  References: ``alpha_posterior`` called per
design, scipy's regularised incomplete beta function (``special.betainc``) for the mixtures'
CDFs, and the one-group ``_prob_rates_unidentified``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import special

import binaryeval as be
from binaryeval.binary import _batch, engine
from binaryeval.binary.model import _prob_rates_unidentified

X = np.linspace(0.0, 1.0, 401)


def _mixture_cdf(post) -> np.ndarray:
    """The CDF of the posterior's Beta mixture at every 4th point of X, from scipy (independent of the package)."""
    a, b, w = post.components()
    return special.betainc(a[:, None], b[:, None], X[None, ::4]).T @ w


def _random_designs(rng, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows = []
    for _ in range(n):
        M = int(rng.choice([0, 1, 2, 7, 40, 300, 900, 2500]))
        k = int(rng.integers(0, M + 1))
        ht = int(rng.choice([0, 0, 3, 60, 400]))
        hp = int(rng.integers(0, ht + 1))
        tp, fn, tn, fp = (int(v) for v in rng.choice([0, 1, 2, 9, 40, 150], 4))
        rows.append([hp, ht, k, M, tp, fn, tn, fp])
    rho = np.where(rng.random(n) < 0.25, rng.uniform(0.45, 0.99, n), np.nan)
    eta = np.where(rng.random(n) < 0.25, rng.uniform(0.45, 0.99, n), np.nan)
    return np.array(rows), rho, eta


def _one(counts, rho, eta, **kw):
    r = None if np.isnan(rho) else float(rho)
    e = None if np.isnan(eta) else float(eta)
    return engine.alpha_posterior(*(int(v) for v in counts), rho=r, eta=e, **kw)


def _engine_or_error(counts, rho, eta, **kw):
    try:
        return _one(counts, rho, eta, **kw)
    except be.errors.BinaryEvalError as exc:
        return exc


@pytest.mark.parametrize("prior, rate_prior", [((1.0, 1.0), (1.0, 1.0)),
                                               ((0.5, 0.5), (2.5, 1.0))])
def test_batch_matches_engine_on_random_designs(prior, rate_prior):
    rng = np.random.default_rng(20)
    counts, rho, eta = _random_designs(rng, 70)
    batch = _batch.posteriors(counts, rho, eta, prior=prior, rate_prior=rate_prior)
    assert len(batch) == len(counts)
    compared = 0
    for i, post in enumerate(batch):
        ref = _engine_or_error(counts[i], rho[i], eta[i], prior=prior, rate_prior=rate_prior)
        assert not isinstance(ref, Exception), ref
        assert post.counts == ref.counts
        # the CDF at 101 points, from the components by scipy: within 1e-12
        np.testing.assert_allclose(_mixture_cdf(post), _mixture_cdf(ref), rtol=0, atol=1e-12)
        a, b, w = post.components()
        ra, rb, rw = ref.components()
        if w.size == rw.size:
            np.testing.assert_array_equal(a, ra)
            np.testing.assert_allclose(w, rw, rtol=1e-12, atol=1e-300)
        compared += 1
    assert compared == len(counts)


def test_batch_interval_ends_match_engine():
    rng = np.random.default_rng(7)
    counts, rho, eta = _random_designs(rng, 40)
    batch = _batch.posteriors(counts, rho, eta, prior=(1.0, 1.0), rate_prior=(1.0, 1.0))
    for i, post in enumerate(batch):
        ref = _one(counts[i], rho[i], eta[i])
        np.testing.assert_allclose(post.interval(0.95), ref.interval(0.95), rtol=0, atol=1e-12)
        np.testing.assert_allclose(post.cdf(X), ref.cdf(X), rtol=0, atol=1e-12)
        assert post.mean() == pytest.approx(ref.mean(), abs=1e-13)


def test_batch_takes_most_groups_itself(monkeypatch):
    """Groups of the direct path's size are settled by the batch, not one by one."""
    rng = np.random.default_rng(3)
    n = 60
    M = rng.integers(200, 1200, n)
    k = (M * rng.uniform(0.3, 0.7, n)).astype(int)
    counts = np.stack([np.zeros(n, int), np.zeros(n, int), k, M,
                       rng.integers(20, 80, n), rng.integers(3, 15, n),
                       rng.integers(20, 80, n), rng.integers(3, 15, n)], axis=1)
    calls = []
    real = engine.alpha_posterior
    monkeypatch.setattr(engine, "alpha_posterior", lambda *a, **kw: calls.append(a) or real(*a, **kw))
    _batch.posteriors(counts, np.full(n, np.nan), np.full(n, np.nan), prior=(1, 1),
                      rate_prior=(1, 1))
    assert len(calls) == 0


EDGE = [
    # (counts: human_pos, human_total, metric_pos, metric_total, tp, fn, tn, fp), rho, eta
    ((0, 0, 30, 50, 0, 0, 0, 0), 0.8, 0.7),          # no paired rows at all, both rates known
    ((0, 0, 30, 50, 0, 0, 12, 3), 0.8, np.nan),      # no positive paired row, rho known
    ((0, 0, 30, 50, 12, 3, 0, 0), np.nan, 0.75),     # no negative paired row, eta known
    ((0, 0, 1, 1, 5, 2, 6, 1), np.nan, np.nan),      # one metric-only rating, accepted
    ((0, 0, 0, 1, 5, 2, 6, 1), np.nan, np.nan),      # one metric-only rating, rejected
    ((4, 9, 0, 0, 3, 1, 2, 2), np.nan, np.nan),      # no metric-only rating: one Beta
    ((2, 5, 7, 9, 3, 1, 2, 2), 0.6, 0.4),            # rho + eta = 1: one Beta
    ((0, 0, 40, 40, 30, 0, 0, 30), np.nan, np.nan),  # metric accepts all, paired say it rejects
    ((0, 0, 0, 40, 0, 30, 30, 0), np.nan, np.nan),   # a metric that is always wrong
    ((0, 0, 300, 1000, 1, 0, 1, 0), np.nan, np.nan),  # two paired rows for 1,000 metric ratings
    ((5, 10, 300, 1000, 40, 10, 40, 10), 1.0, np.nan),  # a known rate of 1 (engine's own path)
    ((0, 0, 3000, 60000, 40, 10, 40, 10), np.nan, np.nan),  # beyond the direct path
]


def test_batch_edge_designs_match_engine():
    counts = np.array([c for c, _, _ in EDGE])
    rho = np.array([r for _, r, _ in EDGE], dtype=float)
    eta = np.array([e for _, _, e in EDGE], dtype=float)
    batch = _batch.posteriors(counts, rho, eta, prior=(1, 1), rate_prior=(1, 1))
    for i, post in enumerate(batch):
        ref = _one(counts[i], rho[i], eta[i])
        np.testing.assert_allclose(post.cdf(X), ref.cdf(X), rtol=0, atol=1e-12)
        np.testing.assert_allclose(post.interval(0.95), ref.interval(0.95), rtol=0, atol=1e-12)


def test_batch_refuses_what_the_engine_refuses():
    with pytest.raises(be.errors.CountsError, match="metric_pos=5 exceeds"):
        _batch.posteriors(np.array([[0, 0, 5, 3, 1, 1, 1, 1]]), np.array([np.nan]),
                          np.array([np.nan]), prior=(1, 1), rate_prior=(1, 1))
    with pytest.raises(be.errors.ParameterError, match="rho=1.5"):
        _batch.posteriors(np.array([[0, 0, 2, 3, 1, 1, 1, 1]]), np.array([1.5]),
                          np.array([np.nan]), prior=(1, 1), rate_prior=(1, 1))
    with pytest.raises(be.errors.ParameterError, match="prior"):
        _batch.posteriors(np.array([[0, 0, 2, 3, 1, 1, 1, 1]]), np.array([np.nan]),
                          np.array([np.nan]), prior=(1e10, 1), rate_prior=(1, 1))


def test_guess_matches_engine():
    rng = np.random.default_rng(5)
    counts, rho, eta = _random_designs(rng, 200)
    counts = counts[counts[:, 3] > 0]
    rho, eta = rho[:len(counts)], eta[:len(counts)]
    hp, ht, k, M, tp, fn, tn, fp = counts.T.astype(float)
    A, B = 1.0 + hp, 1.0 + ht - hp
    pa, pb, na, nb = tp + 1.0, fn + 1.0, fp + 1.0, tn + 1.0
    rk, ek = ~np.isnan(rho), ~np.isnan(eta)
    got = _batch._guess(A, B, k, M, np.where(rk, rho, pa / (pa + pb)),
                        np.where(ek, 1.0 - eta, na / (na + nb)), rk, ek, pa + pb, na + nb)
    for i in range(len(counts)):
        pos = (engine.RateDistribution(known=float(rho[i])) if rk[i]
               else engine.RateDistribution(pa[i], pb[i]))
        neg = (engine.RateDistribution(known=1.0 - float(eta[i])) if ek[i]
               else engine.RateDistribution(na[i], nb[i]))
        assert got[i] == engine._guess(A[i], B[i], int(k[i]), int(M[i]), pos, neg)[0]


def test_prob_rates_unidentified_matches_one_group():
    rng = np.random.default_rng(11)
    tp, fn, tn, fp = (rng.choice([0, 1, 3, 30, 400, 5000], 300) for _ in range(4))
    for prior in ((1, 1), (2, 3)):
        got = _batch.prob_rates_unidentified(tp, fn, tn, fp, prior)
        ref = np.array([_prob_rates_unidentified(*v, prior) for v in
                        zip(tp.tolist(), fn.tolist(), tn.tolist(), fp.tolist(), strict=True)])
        np.testing.assert_allclose(got, ref, rtol=1e-13, atol=0)
    with pytest.raises(ValueError, match="whole-number"):
        _batch.prob_rates_unidentified(tp, fn, tn, fp, (0.5, 1))


def _counts_frame(rng, n):
    M = rng.integers(0, 1500, n)
    k = (M * rng.uniform(0.1, 0.9, n)).astype(int)
    ht = rng.integers(0, 30, n)
    return pd.DataFrame({"human_pos": (ht * rng.uniform(0, 1, n)).astype(int),
                         "human_total": ht, "metric_pos": k, "metric_total": M,
                         "tp": rng.integers(1, 60, n), "fn": rng.integers(1, 20, n),
                         "tn": rng.integers(1, 60, n), "fp": rng.integers(1, 20, n)},
                        index=[f"s{i}" for i in range(n)])


@pytest.mark.parametrize("rates", ["estimate", "pooled", "known-one", "known-each"])
def test_fit_counts_posteriors_are_the_engines(rates):
    rng = np.random.default_rng(42)
    counts = _counts_frame(rng, 25)
    if rates == "known-one":
        arg = {"rho": 0.85, "eta": 0.7}
    elif rates == "known-each":
        # per group; some groups with one rate known, the other estimated
        arg = {g: {"rho": float(r), "eta": (None if i % 3 == 0 else float(e))}
               for i, (g, r, e) in enumerate(zip(counts.index, rng.uniform(0.6, 0.95, 25),
                                                 rng.uniform(0.55, 0.9, 25), strict=True))}
    else:
        arg = rates
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = be.fit_counts(counts, rates=arg)
    pooled = counts[["tp", "fn", "tn", "fp"]].sum()
    for g, row in counts.iterrows():
        paired = pooled if rates == "pooled" else row
        rho = eta = None
        if rates == "known-one":
            rho, eta = 0.85, 0.7
        elif rates == "known-each":
            rho, eta = arg[g]["rho"], arg[g]["eta"]
        ref = engine.alpha_posterior(
            int(row.human_pos + row.tp + row.fn),
            int(row.human_total + row.tp + row.fn + row.tn + row.fp),
            int(row.metric_pos), int(row.metric_total),
            *(int(paired[c]) for c in ("tp", "fn", "tn", "fp")), rho=rho, eta=eta)
        post = res.posteriors[g]
        np.testing.assert_allclose(post.cdf(X), ref.cdf(X), rtol=0, atol=1e-12)
        assert res.known_rates.get(g, (None, None)) == ((rho, eta) if rho or eta else
                                                        (None, None))


def test_fit_counts_errors_name_the_first_bad_group():
    counts = pd.DataFrame({"metric_pos": [3, 4, 5], "metric_total": [9, 9, 9],
                           "tp": [2, 0, 0], "fn": [1, 0, 0], "tn": [2, 4, 0], "fp": [1, 1, 0]},
                          index=["a", "b", "c"])
    with pytest.raises(be.errors.DataError, match="group 'b' has 9 metric-only ratings but no "
                                                  "paired rows with a positive"):
        be.fit_counts(counts)
    empty = pd.DataFrame({"human_total": [3, 0], "human_pos": [1, 0]}, index=["a", "b"])
    with pytest.raises(be.errors.DataError, match="group 'b' has no ratings at all"):
        be.fit_counts(empty)


def test_batch_in_small_blocks_and_stacks_is_the_same(monkeypatch):
    """Tables built per block of groups and stacks of one group give the same posteriors."""
    rng = np.random.default_rng(9)
    counts, rho, eta = _random_designs(rng, 30)
    whole = _batch.posteriors(counts, rho, eta, prior=(1, 1), rate_prior=(1, 1))
    monkeypatch.setattr(_batch, "_TABLES", 64)
    monkeypatch.setattr(_batch, "_BUDGET", 8)
    split = _batch.posteriors(counts, rho, eta, prior=(1, 1), rate_prior=(1, 1))
    for p, q in zip(whole, split, strict=True):
        for u, v in zip(p.components(), q.components(), strict=True):
            np.testing.assert_array_equal(u, v)


def test_paired_rows_alone_are_no_ratings_when_they_do_not_inform_alpha():
    counts = pd.DataFrame({"tp": [3, 1], "fn": [1, 1], "tn": [1, 1], "fp": [1, 1],
                           "human_total": [2, 0], "human_pos": [1, 0]}, index=["a", "b"])
    with pytest.raises(be.errors.DataError, match="group 'b' has no ratings at all"):
        be.fit_counts(counts, paired_informs_alpha=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = be.fit_counts(counts)   # the paired rows' human ratings inform alpha
    # group b: human_pos 0 + tp 1 + fn 1 positives of human_total 0 + 4 paired rows
    ref = engine.alpha_posterior(2, 4, tp=1, fn=1, tn=1, fp=1)
    np.testing.assert_allclose(res.posteriors["b"].cdf(X), ref.cdf(X), rtol=0, atol=1e-15)
    assert res.posteriors["b"].components()[0].tolist() == [3.0]
