"""The posterior's distribution functions and P(alpha_1 > alpha_2) at the engine's edges.

References are independent computations: the term-by-term mixture ``sum_j w_j I_x(a_j, b_j)``
with scipy's incomplete beta functions, and ``scipy.integrate.quad`` of ``f_1(x) F_2(x)`` with the
term-by-term density and CDF.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

import binaryeval as be
from binaryeval.binary._kernels import log_beta_pdf, log_dbinom
from binaryeval.errors import ParameterError


@functools.lru_cache(maxsize=8)
def _components(p):
    """``p.components()`` once per posterior (a smooth one computes its weights on every call)."""
    return p.components()


def _mixture_cdf(p, x):
    a, b, w = _components(p)
    return float(np.dot(w, special.betainc(a, b, x)))


def _mixture_sf(p, x):
    a, b, w = _components(p)
    return float(np.dot(w, special.betaincc(a, b, x)))


def _mixture_pdf(p, x):
    a, b, w = _components(p)
    return float(np.dot(w, stats.beta.pdf(x, a, b)))


def _quad_prob_greater(p1, p2):
    """P(alpha_1 > alpha_2) by adaptive quadrature over the narrower posterior's mass.

    ``int f_1 F_2`` over p1, or ``1 - int f_2 F_1`` over p2 when p2 is the narrower (a density a
    thousand times narrower than the other is resolved by quadrature over itself: over the
    wide one, a Beta of 10^6 ratings inside its range was integrated 7e-9 off).
    """
    if p2.std() < p1.std():
        return 1.0 - _quad_f_times_cdf(p2, p1)
    return _quad_f_times_cdf(p1, p2)


def _quad_f_times_cdf(p1, p2):
    """``int f_1 F_2`` over p1's mass with breakpoints at both posteriors' quantiles
    (term-by-term density and CDF)."""
    lo, hi = _mixture_quantile(p1, 1e-13), _mixture_quantile(p1, 1 - 1e-13)
    qs = [0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999]
    pts = sorted({_mixture_quantile(p, q) for p in (p1, p2) for q in qs} | {lo, hi})
    pts = [v for v in pts if lo <= v <= hi]

    def integrand(x):
        # (where F_2 is zero the product is zero: p1's density is not needed there)
        cdf = _mixture_cdf(p2, x)
        return _mixture_pdf(p1, x) * cdf if cdf > 0.0 else 0.0

    total = 0.0
    for a, b in zip(pts[:-1], pts[1:], strict=True):
        if b > a:
            val, _ = integrate.quad(integrand, a, b, epsabs=1e-14, epsrel=1e-12, limit=200)
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
# a Beta of 10^6 ratings inside a wide two-mode mixture (rho + eta < 1): the reference
# quadrature over the wide one was 7e-9 off, the engine right (quadrature over the narrow one)
@example(first={"human_pos_frac": 0.5, "human_total": 0, "metric_total": 2000,
                "metric_frac": 0.21875, "tp": 3, "fn": 8, "tn": 8, "fp": 9},
         narrow=10**6, frac=0.125)
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
    # one group of a 10^7-row fit: the weights' rounding noise is largest at their peak, which
    # the noise probe once missed (the interpolation then gave up)
    dict(human_pos=2679, human_total=5089, metric_pos=267856, metric_total=493703, tp=2311,
         fn=368, tn=1978, fp=432),
    # 3 x 10^6 human ratings against 10^7 metric ratings that contradict them (alpha 0.16 against
    # a metric that accepts 37 %, with 21 paired rows): the weight function's second base term
    # at a real t was taken at the rounded M - t (2e-10 of noise, so the weights were
    # interpolated to 4e-9 and the CDF was 1.5e-11 off; now 3e-14)
    dict(human_pos=461047, human_total=2946971, metric_pos=3755051, metric_total=10263816, tp=2,
         fn=0, tn=15, fp=4),
])
def test_smooth_representation_equals_the_component_sum(counts, monkeypatch):
    # above _SMOOTH_FROM components the posterior is held through its weight function and its
    # sums become integrals (Poisson summation with tapered ends); the same posterior with every
    # component materialised is the reference (the smooth way even where the windows'
    # convolution would answer)
    from binaryeval.binary import engine

    monkeypatch.setattr(engine, "_WINDOW_MAX", 0)
    smooth = be.alpha_posterior(**counts)
    assert smooth.smooth is not None
    monkeypatch.setattr(engine, "_SMOOTH_FROM", 10**12)
    full = be.alpha_posterior(**counts)
    assert full.smooth is None
    # mean = int (1 - F): a CDF within 1e-12 bounds the mean's error by 1e-12 too
    assert smooth.mean() == pytest.approx(full.mean(), rel=0, abs=1e-12)
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


@pytest.mark.parametrize("counts", [
    (3, 14, 27897, 78734, 1, 0, 8, 1),        # a material kink of log L at T = k in the window
    (0, 11, 19794, 103508, 0, 0, 9, 1),       # weights pressing T = 0, across the taper
    (1, 14, 30380, 120174, 1, 0, 1, 0),       # a steep kink: the sum is not the integral there
])
def test_smooth_cdf_across_kinks_and_the_taper_against_every_component(counts, monkeypatch):
    # near a kink of log L the components are summed one by one (tapered like the ends), and
    # the quadratures cut their panels across every taper: before, the 16-point rule ran across
    # the kinks and the taper and the cdf was 8.7e-9 and 7e-10 off (3.6e-8 on another design);
    # with cuts at the kink alone the third was 7.4e-11 off (the integral of a function with a
    # kink is not its sum: Euler-Maclaurin's f'/12 at the kink); the reference is the mixture
    # with log L at every component (no interpolation, no integrals)
    from binaryeval.binary import engine

    monkeypatch.setattr(engine, "_WINDOW_MAX", 0)
    smooth = be.alpha_posterior(*counts)
    assert smooth.smooth is not None
    monkeypatch.setattr(engine, "_FULL_T", 10**9)
    every = be.alpha_posterior(*counts)
    assert every.smooth is None
    xs = every.ppf(np.r_[1e-9, 1e-6, np.linspace(0.001, 0.999, 81), 1 - 1e-6])
    np.testing.assert_allclose(smooth.cdf(xs), every.cdf(xs), rtol=0, atol=1e-12)
    np.testing.assert_allclose(smooth.interval(0.95), every.interval(0.95), rtol=0, atol=1e-10)


# -- scipy's frozen-distribution interface -------------------------------------------------------
@pytest.mark.parametrize("make, ref", [
    # human ratings only: Beta(1 + 353, 1 + 174)
    (lambda: be.alpha_posterior(353, 527), stats.beta(354, 175)),
    # known rates and no metric rating: the same Beta
    (lambda: be.alpha_posterior(6, 10, rho=0.8, eta=0.7), stats.beta(7, 5)),
    (lambda: be.alpha_posterior(1, 40, prior=(0.5, 0.5)), stats.beta(1.5, 39.5)),
])
def test_a_beta_posterior_answers_as_scipy_beta(make, ref):
    post = make()
    xs = np.array([1e-3, 0.05, 0.3, ref.median(), 0.8, 0.999])
    assert post.support() == ref.support() == (0.0, 1.0)
    assert post.median() == pytest.approx(ref.median(), abs=1e-14)
    for conf in (0.5, 0.95):
        np.testing.assert_allclose(post.interval(confidence=conf), ref.interval(confidence=conf),
                                   atol=1e-13)
        np.testing.assert_allclose(post.interval(conf), ref.interval(conf), atol=1e-13)
    for moments in ("m", "mv", "mvsk", "sk", "k"):
        np.testing.assert_allclose(post.stats(moments=moments), ref.stats(moments=moments),
                                   rtol=1e-12)
    import mpmath as mp

    a, b = ref.args
    for order in range(7):
        # E[X^n] = prod_{i < n} (a + i) / (a + b + i) (scipy's own moment(5) of Beta(354, 175) is
        # off by 3e-11 relative, hence the closed form in 30 digits)
        with mp.workdps(30):
            exact = float(mp.fprod([(mp.mpf(a) + i) / (a + b + i) for i in range(order)]))
        assert post.moment(order) == pytest.approx(exact, rel=1e-14)
        if order <= 4:
            assert post.moment(order) == pytest.approx(ref.moment(order), rel=1e-13)
    np.testing.assert_allclose(post.logpdf(xs), ref.logpdf(xs), rtol=1e-12)
    np.testing.assert_allclose(post.logcdf(xs), ref.logcdf(xs), rtol=1e-12)
    np.testing.assert_allclose(post.logsf(xs), ref.logsf(xs), rtol=1e-12)
    for func in (None, np.sqrt, lambda x: math.log(x) ** 2):
        assert post.expect(func) == pytest.approx(ref.expect(func), rel=1e-10)
    assert post.expect(lb=0.3, ub=0.7, conditional=True) == pytest.approx(
        ref.expect(lb=0.3, ub=0.7, conditional=True), rel=1e-10)
    assert post.entropy() == pytest.approx(ref.entropy(), rel=1e-10, abs=1e-12)
    one = post.rvs(random_state=3)
    assert isinstance(one, float) and 0.0 < one < 1.0 and one == post.rvs(random_state=3)
    assert post.rvs(size=(2, 3), random_state=3).shape == (2, 3)
    with pytest.raises(ParameterError, match="give one"):
        post.interval(0.9, confidence=0.8)


@pytest.mark.parametrize("counts", [
    (60, 100, 560, 1000, 48, 12, 32, 8),          # 758 components, every one materialised
    (0, 0, 56000, 100000, 20, 5, 15, 5),          # the smooth representation
])
def test_mixture_moments_entropy_and_expectations_against_the_component_sums(counts):
    # the reference: every component materialised and summed term by term (moments in closed
    # form per Beta component), the entropy by a fixed Gauss-Legendre rule over the term-by-term
    # density
    post = be.alpha_posterior(*counts)
    a, b, w = post.components()
    n = a + b
    raw = [float(np.sum(w * np.prod([(a + i) / (n + i) for i in range(k)], axis=0)))
           for k in range(1, 5)]
    for k in range(1, 5):
        # the CDF's stated 1e-12 bounds the moments' error by as much
        assert post.moment(k) == pytest.approx(raw[k - 1], abs=1e-12)
    # central moments about the mixture's mean from each component's own (scipy's Beta mvsk)
    # shifted by d = (component mean - mixture mean): E[(X - m)^3] = k3 + 3 v d + d^3, ...
    m = raw[0]
    cm, cv, cs, ck = stats.beta.stats(a, b, moments="mvsk")
    k3, k4 = cs * cv ** 1.5, (ck + 3.0) * cv ** 2
    d = cm - m
    d3 = float(np.sum(w * (k3 + 3 * cv * d + d ** 3)))
    d4 = float(np.sum(w * (k4 + 4 * k3 * d + 6 * cv * d * d + d ** 4)))
    var = post.var()
    skew, kurt = post.stats("sk")
    assert skew == pytest.approx(d3 / var ** 1.5, abs=1e-9)
    assert kurt == pytest.approx(d4 / var ** 2 - 3.0, abs=1e-9)
    lo, hi = post.ppf(1e-15), post.isf(1e-15)
    x, gw = np.polynomial.legendre.leggauss(40)
    edges = np.linspace(lo, hi, 17)
    mid, rad = 0.5 * (edges[1:] + edges[:-1]), 0.5 * (edges[1:] - edges[:-1])
    pts = (mid[:, None] + rad[:, None] * x[None, :]).ravel()
    keep = w > 1e-18
    ak, bk, lb = a[keep], b[keep], special.betaln(a[keep], b[keep])
    # each component's density from log-gamma values (about 1e-11 relative at these sizes)
    dens = np.array([np.sum(w[keep] * np.exp((ak - 1) * np.log(v) + (bk - 1) * np.log1p(-v)
                                             - lb)) for v in pts])
    ref_entropy = -float(np.sum((rad[:, None] * gw[None, :]).ravel() * dens * np.log(dens)))
    assert post.entropy() == pytest.approx(ref_entropy, abs=1e-9)
    assert post.expect(lambda v: v ** 3) == pytest.approx(raw[2], abs=1e-11)


# -- many posteriors at once (a fit's to_frame and interval) -------------------------------------
def test_summaries_of_many_posteriors_equal_each_posteriors_own():
    from binaryeval.binary.posterior import summaries

    posts = [be.alpha_posterior(40, 50, 560, 950, 33, 7, 9, 1),
             be.alpha_posterior(188, 300, 689, 1000, 163, 25, 93, 19),
             be.alpha_posterior(353, 527),                                   # one Beta
             be.alpha_posterior(0, 40),                                      # its mode at 0
             be.alpha_posterior(0, 0, 56000, 100000, 20, 5, 15, 5),          # smooth
             be.alpha_posterior(0, 0, 30, 91, 3, 1, 7, 0),
             be.alpha_posterior(553, 956, 128, 235, 44, 41, 45, 17)]
    s = summaries(posts, 0.025, median=True)
    for i, p in enumerate(posts):
        lo, hi = p.interval(0.95)
        assert s["lower"][i] == pytest.approx(lo, abs=1e-15)
        assert s["upper"][i] == pytest.approx(hi, abs=1e-15)
        assert s["median"][i] == pytest.approx(p.median(), abs=1e-15)
        assert s["mode"][i] == pytest.approx(p.mode(), abs=1e-15)
        # against the term-by-term mixture: the quantiles' CDF values
        if p.smooth is None:
            assert _mixture_cdf(p, s["lower"][i]) == pytest.approx(0.025, abs=1e-13)
            assert _mixture_sf(p, s["upper"][i]) == pytest.approx(0.025, abs=1e-13)
    # the modes against the root of the term-by-term density's derivative (brentq); a flat
    # maximum resolves its mode only to the rounding of the derivative there (1e-9 of the sd
    # measured for the flattest of these, 92 components over an sd of 0.1)
    from scipy.optimize import brentq

    for i in (0, 1, 5, 6):
        a, b, w = posts[i].components()
        m = s["mode"][i]

        def slope(x, a=a, b=b, w=w):
            dens = stats.beta.pdf(x, a, b)
            return float(np.sum(w * dens * ((a - 1) / x - (b - 1) / (1 - x))))
        ref = brentq(slope, m * (1 - 1e-4), m * (1 + 1e-4), xtol=1e-16, rtol=1e-15)
        assert abs(m - ref) <= 1e-8 * posts[i].std()
    assert s["mode"][3] == posts[3].mode() == 0.0
