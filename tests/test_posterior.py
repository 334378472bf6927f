"""The posterior's distribution functions and P(alpha_1 > alpha_2) at the engine's edges.

References are independent computations: the term-by-term mixture ``sum_j w_j I_x(a_j, b_j)``
with scipy's incomplete beta functions, and ``scipy.integrate.quad`` of ``f_1(x) F_2(x)`` with the
term-by-term density and CDF.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

import binaryeval as be
from binaryeval.binary._kernels import log_beta_pdf, log_dbinom


def _mixture_cdf(p, x):
    a, b, w = p.components()
    return float(np.dot(w, special.betainc(a, b, x)))


def _mixture_sf(p, x):
    a, b, w = p.components()
    return float(np.dot(w, special.betaincc(a, b, x)))


def _mixture_pdf(p, x):
    a, b, w = p.components()
    return float(np.dot(w, stats.beta.pdf(x, a, b)))


def _quad_prob_greater(p1, p2):
    """P(alpha_1 > alpha_2) = int f_1 F_2, by adaptive quadrature over p1's mass with breakpoints
    at both posteriors' quantiles (term-by-term density and CDF)."""
    lo, hi = _mixture_quantile(p1, 1e-13), _mixture_quantile(p1, 1 - 1e-13)
    qs = [0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999]
    pts = sorted({_mixture_quantile(p, q) for p in (p1, p2) for q in qs} | {lo, hi})
    pts = [v for v in pts if lo <= v <= hi]
    total = 0.0
    for a, b in zip(pts[:-1], pts[1:], strict=True):
        if b > a:
            val, _ = integrate.quad(lambda x: _mixture_pdf(p1, x) * _mixture_cdf(p2, x), a, b,
                                    epsabs=1e-14, epsrel=1e-12, limit=200)
            total += val
    return total


def _mixture_quantile(p, q):
    from scipy.optimize import brentq

    return brentq(lambda x: _mixture_cdf(p, x) - q, 0.0, 1.0, xtol=1e-15, rtol=1e-14)


# -- the two crashes ------------------------------------------------------------------------------
def test_cdf_far_below_the_mass_is_zero_not_an_index_error():
    post = be.alpha_posterior(human_pos=600, human_total=1000, metric_pos=6000, metric_total=10000,
                              tp=90, fn=10, tn=90, fp=10)
    assert post.cdf(0.1) == pytest.approx(_mixture_cdf(post, 0.1), abs=1e-300)
    assert post.cdf(0.1) < 1e-200
    # relative accuracy in the lower tail where the term-by-term value is representable
    x = post.mean() - 10 * post.std()
    assert post.cdf(x) == pytest.approx(_mixture_cdf(post, x), rel=1e-10)


def test_compare_of_a_wide_and_a_narrow_mixture_works():
    with pytest.warns(be.IdentifiabilityWarning, match="A"):
        res = be.fit_counts({
            "A": dict(tp=3, fn=1, tn=2, fp=1, metric_pos=6000, metric_total=10000),
            "B": dict(human_pos=6000, human_total=10000, metric_pos=60000, metric_total=100000,
                      tp=90, fn=10, tn=90, fp=10)})
    comp = res.compare().to_frame()
    a, b = res.posterior("A"), res.posterior("B")
    p = a.prob_greater(b)
    assert p == pytest.approx(_quad_prob_greater(a, b), abs=1e-9)
    row = comp.iloc[0]
    expected = p if row.group_1 == "A" else 1 - p
    assert row.prob_greater == pytest.approx(expected, abs=1e-14)


# -- P(alpha_1 > alpha_2) ---------------------------------------------------------------------------
def test_prob_greater_wide_against_narrow_beta():
    # the case: a Beta(2, 2) against Beta(570001, 430001); exact value from one Beta's
    # pdf against the other's survival function
    wide = be.alpha_posterior(human_pos=1, human_total=2)
    narrow = be.alpha_posterior(human_pos=570000, human_total=10**6)
    exact, _ = integrate.quad(lambda x: stats.beta.pdf(x, 570001, 430001) * stats.beta.sf(x, 2, 2),
                              0.565, 0.575, epsabs=1e-15, epsrel=1e-13, limit=200)
    assert wide.prob_greater(narrow) == pytest.approx(exact, abs=1e-12)
    assert wide.prob_greater(narrow) + narrow.prob_greater(wide) == pytest.approx(1.0, abs=1e-12)
    assert exact == pytest.approx(0.3956863, abs=1e-7)


def test_prob_greater_matches_the_closed_form_for_two_betas():
    # Evan Miller's closed form for integer Beta parameters, X ~ Beta(a_x, b_x), Y ~ Beta(a_y, b_y):
    # P(X > Y) = sum_{i < a_x} B(a_y + i, b_x + b_y) / ((b_x + i) B(1 + i, b_x) B(a_y, b_y))
    def closed(ax, bx, ay, by):
        i = np.arange(ax)
        logs = (special.betaln(ay + i, bx + by) - np.log(bx + i) - special.betaln(1 + i, bx)
                - special.betaln(ay, by))
        return float(np.exp(logs).sum())

    for (hp1, n1), (hp2, n2) in [((30, 50), (20, 50)), ((3, 4), (40, 90)), ((1, 2), (300, 400))]:
        p1 = be.alpha_posterior(human_pos=hp1, human_total=n1)
        p2 = be.alpha_posterior(human_pos=hp2, human_total=n2)
        expected = closed(hp1 + 1, n1 - hp1 + 1, hp2 + 1, n2 - hp2 + 1)
        assert p1.prob_greater(p2) == pytest.approx(expected, abs=1e-12)


counts = st.fixed_dictionaries({
    "human_pos_frac": st.floats(0.05, 0.95), "human_total": st.sampled_from([0, 1, 2, 10, 300]),
    "metric_total": st.sampled_from([0, 3, 50, 2000]), "metric_frac": st.floats(0.05, 0.95),
    "tp": st.integers(1, 40), "fn": st.integers(0, 15), "tn": st.integers(1, 40),
    "fp": st.integers(0, 15)})


def _post(c):
    hp = int(round(c["human_pos_frac"] * c["human_total"]))
    mp = int(round(c["metric_frac"] * c["metric_total"]))
    return be.alpha_posterior(human_pos=hp, human_total=c["human_total"], metric_pos=mp,
                              metric_total=c["metric_total"], tp=c["tp"], fn=c["fn"], tn=c["tn"],
                              fp=c["fp"])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=counts, narrow=st.sampled_from([1, 10, 1000, 10**5, 10**6]),
       frac=st.floats(0.02, 0.98))
def test_prob_greater_property(first, narrow, frac):
    # a mixture against a Beta of 1 to 10^6 human ratings (width ratios up to 10^3 and more)
    p1 = _post(first)
    p2 = be.alpha_posterior(human_pos=int(round(frac * narrow)), human_total=narrow)
    forward, backward = p1.prob_greater(p2), p2.prob_greater(p1)
    assert forward + backward == pytest.approx(1.0, abs=1e-12)
    assert 0.0 <= forward <= 1.0
    assert forward == pytest.approx(_quad_prob_greater(p1, p2), abs=1e-9)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(c=counts)
def test_cdf_is_monotone_everywhere_and_matches_the_mixture(c):
    post = _post(c)
    m, s = post.mean(), post.std()
    xs = np.unique(np.clip(np.r_[np.linspace(0.0, 1.0, 101), m + s * np.linspace(-40, 40, 81),
                                 [1e-300, 1e-12, 1 - 1e-12]], 0.0, 1.0))
    f = post.cdf(xs)
    sf = post.sf(xs)
    # monotone to rounding: each side is computed where it is small and accurate relative to
    # itself, the other side as one minus it
    assert np.all(np.diff(f) >= -2e-14) and np.all(np.diff(sf) <= 2e-14)
    tail = f[1:] < 1e-3
    assert np.all(f[1:][tail] >= f[:-1][tail] * (1 - 1e-9))
    assert f[0] == 0.0 and f[-1] == 1.0
    inner = xs[(xs > 0) & (xs < 1)]
    ref = np.array([_mixture_cdf(post, x) for x in inner])
    np.testing.assert_allclose(post.cdf(inner), ref, atol=1e-12, rtol=0)
    np.testing.assert_allclose(post.sf(inner), 1 - ref, atol=1e-12, rtol=0)
    dens = np.array([_mixture_pdf(post, x) for x in inner])
    np.testing.assert_allclose(post.pdf(inner), dens, atol=1e-12 * max(dens.max(), 1), rtol=1e-10)


@pytest.mark.parametrize("metric_total", [10**6])
def test_cdf_against_the_term_by_term_mixture_at_a_million(metric_total):
    # 10^7 and 10^8 are measured by benchmarks/bench_accuracy.py (5.7e-13 and 5.6e-12)
    post = be.alpha_posterior(human_pos=600, human_total=1000, metric_pos=int(0.56 * metric_total),
                              metric_total=metric_total, tp=960, fn=240, tn=640, fp=160)
    xs = post.mean() + post.std() * np.array([-6.0, -2.0, 0.0, 1.5, 5.0])
    for x in xs:
        assert post.cdf(x) == pytest.approx(_mixture_cdf(post, x), abs=1e-12)
        assert post.sf(x) == pytest.approx(_mixture_sf(post, x), abs=1e-12)


# -- NaN and the ends -------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: be.alpha_posterior(human_pos=6, human_total=10),
    lambda: be.alpha_posterior(human_pos=6, human_total=10, metric_pos=60, metric_total=100,
                               tp=8, fn=2, tn=8, fp=2),
    lambda: be.alpha_posterior(human_pos=6, human_total=10, method="grid", grid=(200, 20, 20))])
def test_nan_in_nan_out_and_defined_on_all_of_zero_one(make):
    post = make()
    for fn in (post.cdf, post.sf, post.pdf, post.ppf, post.isf):
        assert math.isnan(fn(float("nan")))
        out = fn(np.array([np.nan, 0.5]))
        assert math.isnan(out[0]) and not math.isnan(out[1])
    assert math.isnan(post.ppf(1.5)) and math.isnan(post.ppf(-0.1))
    assert post.cdf(-1.0) == 0.0 and post.cdf(2.0) == 1.0
    assert post.pdf(-1.0) == 0.0 and post.pdf(2.0) == 0.0
    assert post.ppf(0.0) == 0.0 and post.ppf(1.0) == 1.0


# -- the kernels ------------------------------------------------------------------------------------
def test_log_dbinom_is_accurate_where_log_gamma_differences_are_not():
    import mpmath as mp

    mp.mp.dps = 40
    for k, n, p in [(5_600_123.5, 1e7, 0.56), (70_000_000.25, 1.25e8, 0.56), (3.0, 10.0, 0.4),
                    (0.5, 1e7, 0.3)]:
        ref = float(mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)
                    + k * mp.log(p) + (n - k) * mp.log(1 - mp.mpf(p)))
        assert float(log_dbinom(k, n, p)) == pytest.approx(ref, abs=2e-12, rel=1e-15)
    for x, a, b in [(0.3, 2.5, 4.0), (0.56, 5.6e6 + 0.5, 4.4e6 + 0.5), (0.2, 0.5, 3e6)]:
        ref = float((a - 1) * mp.log(x) + (b - 1) * mp.log(1 - mp.mpf(x)) - mp.log(mp.beta(a, b)))
        assert float(log_beta_pdf(x, a, b)) == pytest.approx(ref, abs=2e-12, rel=1e-15)


# -- the smooth representation of very many components --------------------------------------------
@pytest.mark.parametrize("counts", [
    dict(metric_pos=56000, metric_total=100000, tp=20, fn=5, tn=15, fp=5),     # few paired rows
    dict(human_pos=600, human_total=1000, metric_pos=560000, metric_total=10**6, tp=480, fn=120,
         tn=320, fp=80),
    dict(human_pos=2, human_total=10, metric_pos=30000, metric_total=100000, tp=30, fn=10,
         tn=30, fp=10),                                                        # mass near 0.1
])
def test_smooth_representation_equals_the_component_sum(counts, monkeypatch):
    # above _SMOOTH_FROM components the posterior is held through its weight function and its
    # sums become integrals (Poisson summation with tapered ends); the same posterior with every
    # component materialised is the reference
    from binaryeval.binary import engine

    smooth = be.alpha_posterior(**counts)
    assert smooth.smooth is not None
    monkeypatch.setattr(engine, "_SMOOTH_FROM", 10**12)
    full = be.alpha_posterior(**counts)
    assert full.smooth is None
    assert smooth.mean() == pytest.approx(full.mean(), rel=1e-13, abs=1e-15)
    assert smooth.var() == pytest.approx(full.var(), rel=1e-11)
    m, s = full.mean(), full.std()
    x = np.clip(m + s * np.linspace(-7, 7, 15), 1e-9, 1 - 1e-9)
    np.testing.assert_allclose(smooth.cdf(x), full.cdf(x), atol=1e-12, rtol=0)
    np.testing.assert_allclose(smooth.sf(x), full.sf(x), atol=1e-12, rtol=0)
    dens = full.pdf(x)
    np.testing.assert_allclose(smooth.pdf(x), dens, atol=1e-11 * dens.max(), rtol=0)
    np.testing.assert_allclose(smooth.interval(0.95), full.interval(0.95), atol=1e-10)
    # the weights at the components both hold (the smooth window may keep a few more, each below
    # 1e-20 of the largest)
    a_s, _, w_s = smooth.components()
    a_f, _, w_f = full.components()
    common = np.intersect1d(a_s, a_f)
    np.testing.assert_allclose(w_s[np.isin(a_s, common)], w_f[np.isin(a_f, common)], atol=1e-14,
                               rtol=0)
