"""The engine's shortcuts answer what the long way answers.

Each shortcut saves work without changing the result: the scan for further modes skips points
whose weight is bounded below the level without the likelihood (by ``L <= 1``, then by a tangent
bound of ``log L``); the log-gamma tables are built over the counts they are read at; the quantile
search starts from a Cornish-Fisher-corrected Beta quantile and takes Halley steps; the piecewise
Chebyshev evaluation runs Clenshaw in place (in plain floats at a few points); the Stirling,
binomial and Beta kernels work in place; the FFT convolves only the windows that matter; the
kernel sums of a few points run on slices.  Every reference here is computed independently of the
shortcut: mpmath at 30-40 digits, scipy's root finder on the posterior's own distribution function,
numpy's Chebyshev series, or the same expression written out.
"""

import math

import numpy as np
import pytest
from scipy import optimize, special, stats

from binaryeval.binary import _kernels, _stack, engine, posterior
from binaryeval.binary._piecewise import PiecewiseChebyshev
from binaryeval.binary.engine import alpha_posterior
from binaryeval.validation import random_designs

# 300 paired rows and 10^3 / 10^4 / 10^5 metric-only rows (benchmarks/bench_speed.py, row 1)
BENCH = [(188, 300, 664, 1000, 159, 29, 94, 18), (188, 300, 6623, 10000, 155, 33, 89, 23),
         (188, 300, 65651, 100000, 150, 38, 84, 28)]


# -- the scan for further modes -------------------------------------------------------------------
@pytest.mark.parametrize("design", [
    dict(k=6623, M=10000, pos=(156, 34), neg=(24, 90), T=[0, 1, 17, 3000, 6623, 9999, 10000]),
    dict(k=0, M=5000, pos=(26, 4), neg=(20, 177), T=[0, 1, 2, 2500, 4999, 5000]),
    dict(k=5000, M=5000, pos=(2, 1), neg=(2, 3), T=[0, 1, 2500, 4999, 5000]),
    dict(k=65651, M=100000, pos=(151, 39), neg=(29, 85), T=[0, 3, 1562, 60000, 98438, 100000]),
])
def test_log_likelihood_is_a_log_probability(design):
    # the scan's bound rests on L(T) = P(X_T + Y_{M-T} = k) <= 1; with the metric counts all
    # positive or all negative L is near one at an end, where rounding could push it above
    lik = engine._MetricLikelihood(design["k"], design["M"], engine.RateDistribution(*design["pos"]),
                                   engine.RateDistribution(*design["neg"]))
    values = lik(np.array(design["T"], dtype=float))
    assert np.all(values <= 1e-12)
    # and the base terms bound the log weight from above, by the margin the scan allows (1)
    base = engine._log_weight_fn(30.0, 20.0, design["M"], None)
    logw = engine._log_weight_fn(30.0, 20.0, design["M"], lik)
    T = np.array(design["T"], dtype=float)
    assert np.all(logw(T) <= base(T) + 1e-9)


@pytest.mark.parametrize("counts", BENCH[:2] + [
    (40, 50, 560, 950, 33, 7, 9, 1),
    (1, 2, 30000, 30000, 0, 300, 300, 5),          # two modes, at 0 and 1
    (144, 253, 5061, 11516, 17, 3, 18, 5),
    (0, 0, 0, 100000, 25, 3, 1776, 196),          # the weights pile up at alpha = 1
])
def test_the_bounded_scan_finds_what_the_full_scan_finds(counts, monkeypatch):
    pruned = alpha_posterior(*counts)
    full_modes = engine._all_modes
    # the same scan with every point's log L computed
    monkeypatch.setattr(engine, "_all_modes",
                        lambda *a, **k: full_modes(*a, **dict(k, bound=None, finer=None)))
    monkeypatch.setattr(engine, "_DIRECT_MAX", -1)
    full = alpha_posterior(*counts)
    monkeypatch.undo()
    monkeypatch.setattr(engine, "_DIRECT_MAX", -1)
    pruned_windows = alpha_posterior(*counts)
    # the same windows, hence the same components and weights
    assert pruned_windows.n_components == full.n_components
    assert len(pruned_windows.parts) == len(full.parts)
    assert pruned_windows.mean() == full.mean()
    assert pruned.mean() == pytest.approx(full.mean(), abs=1e-12)


# -- the log-gamma tables ------------------------------------------------------------------------
def test_integer_tables_against_forty_digit_log_gamma_functions():
    # row[T] + first[x] + second[T - x] is the summand of L(T): log P(X_T = x) + log P(Y = k - x)
    # for beta-binomial X_T ~ BB(T, a, b) and Y ~ BB(M - T, a', b') (one rate known: binomial)
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40

    def lbb(x, n, a, b):
        return (mp.loggamma(n + 1) - mp.loggamma(x + 1) - mp.loggamma(n - x + 1)
                + mp.loggamma(x + a) + mp.loggamma(n - x + b) - mp.loggamma(n + a + b)
                - mp.loggamma(a) - mp.loggamma(b) + mp.loggamma(a + b))

    def lbin(x, n, p):
        return (mp.loggamma(n + 1) - mp.loggamma(x + 1) - mp.loggamma(n - x + 1)
                + x * mp.log(p) + (n - x) * mp.log(1 - p))

    k, M = 6623, 10000
    cases = [(engine.RateDistribution(156.0, 34.0), engine.RateDistribution(24.0, 90.0)),
             (engine.RateDistribution(10.5, 2.5), engine.RateDistribution(known=0.2)),
             (engine.RateDistribution(known=0.85), engine.RateDistribution(3.0, 9.0))]
    for pos, neg in cases:
        lik = engine._MetricLikelihood(k, M, pos, neg)
        row, first, second, pad = lik._int_tables()
        assert row.size == M + 1 and first.size == k + 1 + pad
        for T, x in [(7000, 5900), (3400, 3400), (9000, 6623), (6623, 3246), (10000, 6623),
                     (100, 0)]:
            if not (max(0, k - (M - T)) <= x <= min(T, k)):
                continue
            px = lbb(x, T, pos.a, pos.b) if pos.known is None else lbin(x, T, pos.known)
            qy = (lbb(k - x, M - T, neg.a, neg.b) if neg.known is None
                  else lbin(k - x, M - T, neg.known))
            got = row[T] + first[x] + second[pad + T - x]
            # each table entry is a few log-gamma ratios of size up to 10^4 log 10^4
            assert got == pytest.approx(float(px + qy), abs=1e-9, rel=0), (T, x)


# -- the quantile search ---------------------------------------------------------------------------
def _root(post, q):
    """The q-quantile by scipy's brentq on the posterior's own cdf (or sf above the median)."""
    m, sd = post.mean(), post.std()
    lo, hi = max(m - 12 * sd, 1e-300), min(m + 12 * sd, 1 - 1e-16)
    if q <= 0.5:
        return optimize.brentq(lambda x: post.cdf(x) - q, lo, hi, xtol=1e-17, rtol=1e-15)
    return optimize.brentq(lambda x: post.sf(x) - (1 - q), lo, hi, xtol=1e-17, rtol=1e-15)


@pytest.mark.parametrize("counts", BENCH + list(random_designs(6, seed=11)))
def test_interval_ends_are_the_roots_of_the_distribution_function(counts):
    post = alpha_posterior(*counts)
    lo, hi = post.interval(0.95)
    ref_lo, ref_hi = _root(post, 0.025), _root(post, 0.975)
    # the cdf's slope is about 1 / sd: the roots are defined to its rounding (1e-13 relative)
    sd = post.std()
    assert lo == pytest.approx(ref_lo, abs=1e-12 * sd)
    assert hi == pytest.approx(ref_hi, abs=1e-12 * sd)
    qs = np.array([1e-6, 0.01, 0.3, 0.7, 0.99])
    got = post.ppf(qs)
    for q, g in zip(qs, got, strict=True):
        assert g == pytest.approx(_root(post, q), abs=1e-12 * sd), q


def test_interval_of_the_bench_designs_takes_two_evaluations(monkeypatch):
    # the Cornish-Fisher start and the Halley steps: one evaluation of the distribution function
    # fewer than Newton's method from the Beta start (which took three)
    calls = []
    solve = _stack._solve_tails

    def counting(evaluate, *args):
        def wrapped(active, y):
            calls.append(y.size)
            return evaluate(active, y)
        return solve(wrapped, *args)

    from binaryeval.binary import posterior
    monkeypatch.setattr(_stack, "_solve_tails", counting)
    monkeypatch.setattr(posterior, "_solve_tails", counting)
    for counts in BENCH:
        post = alpha_posterior(*counts)
        calls.clear()
        post.interval(0.95)
        # one iteration of both ends at once, or of each end on its own (the smooth mixture)
        assert len(calls) <= (2 if post.smooth is None else 4), counts


def test_the_start_of_a_beta_is_its_own_quantile():
    # a target with the matched Beta's own skewness and kurtosis: the Cornish-Fisher terms cancel
    a, b = np.array([7.0, 300.0, 2.5]), np.array([5.0, 120.0, 40.0])
    c = a + b
    m, v = a / c, a * b / (c * c * (c + 1.0))
    skew = 2.0 * (b - a) * np.sqrt(c + 1.0) / ((c + 2.0) * np.sqrt(a * b))
    kurt = 6.0 * ((a - b) ** 2 * (c + 1.0) - a * b * (c + 2.0)) / (a * b * (c + 2.0) * (c + 3.0))
    t = np.array([0.025, 0.025, 0.1])
    y = special.betaincinv(a, b, t)
    start = _stack._cornish_fisher_start(y, t, m, v, c, skew, kurt)
    np.testing.assert_allclose(start, y, rtol=1e-12, atol=0)
    # scipy's moments of the Beta are the ones the start assumes
    for i in range(3):
        s, k = stats.beta.stats(a[i], b[i], moments="sk")
        assert float(s) == pytest.approx(skew[i], rel=1e-12)
        assert float(k) == pytest.approx(kurt[i], rel=1e-12)


@pytest.mark.parametrize("counts", BENCH[:2] + [(40, 50, 560, 950, 33, 7, 9, 1)])
def test_shape_of_a_materialised_mixture_against_its_central_moments(counts):
    post = alpha_posterior(*counts)
    assert post.smooth is None and not post.parts
    g, e = post._skew_kurt
    k3, k4 = post._central_moments()
    v = post.var()
    # the components' excess kurtosis (order 1 / N) is left out of the one-pass form
    assert g == pytest.approx(k3 / v ** 1.5, rel=1e-9)
    assert e == pytest.approx(k4 / v ** 2 - 3.0, abs=0.02)


# -- piecewise Chebyshev evaluation --------------------------------------------------------------
def test_piecewise_chebyshev_equals_numpy_series_panel_by_panel():
    rng = np.random.default_rng(5)
    edges = np.sort(rng.uniform(-50.0, 900.0, 8))
    coefs = rng.normal(size=(7, 25)) * np.exp(-0.4 * np.arange(25))
    poly = PiecewiseChebyshev(edges, coefs, left=-1.0, right=2.0)
    x = np.r_[rng.uniform(edges[0], edges[-1], 400), edges, edges[0] - 1.0, edges[-1] + 1.0,
              np.nan]
    got = poly(x)
    k = np.clip(np.searchsorted(edges, x[:-3], side="right") - 1, 0, len(edges) - 2)
    u = (2.0 * x[:-3] - (edges[k] + edges[k + 1])) / (edges[k + 1] - edges[k])
    ref = np.array([np.polynomial.chebyshev.chebval(ui, coefs[ki]) for ui, ki in zip(u, k,
                                                                                    strict=True)])
    scale = np.abs(coefs).sum(axis=1)[k]
    assert np.all(np.abs(got[:-3] - ref) <= 1e-15 * scale)
    assert got[-3] == -1.0 and got[-2] == 2.0 and math.isnan(got[-1])


# -- the Beta density at a few points ------------------------------------------------------------
def test_beta_log_density_at_a_few_points_against_forty_digits():
    # the one-point form (arrays of up to four points) and the array form against mpmath; a and b
    # are half-integers, so that a + b is exact in the reference too
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40

    rng = np.random.default_rng(7)
    for _ in range(60):
        a = float(np.round(np.exp(rng.uniform(np.log(17.0), np.log(2e7))) * 2) / 2)
        b = float(np.round(np.exp(rng.uniform(np.log(17.0), np.log(2e7))) * 2) / 2)
        m = a / (a + b)
        x = float(np.clip(m + 5 * rng.normal() * math.sqrt(m * (1 - m) / (a + b)), 1e-9, 1 - 1e-9))
        ref = float((a - 1) * mp.log(x) + (b - 1) * mp.log(1 - mp.mpf(x))
                    - mp.loggamma(a) - mp.loggamma(b) + mp.loggamma(a + b))
        few = float(_kernels.log_beta_pdf(np.array([x]), np.array([a]), np.array([b]))[0])
        many = float(_kernels.log_beta_pdf(np.full(6, x), np.full(6, a), np.full(6, b))[0])
        # the array form's own error at these sizes (measured: up to 9e-14 at a, b ~ 10^7,
        # from rounding n x, the count's mean); the one-point form repeats its operations in
        # plain floats, whose log and exp can differ from numpy's vectorised ones by a few units
        # in the last place (numpy 1.26 on AVX-512: the two forms 1.1e-14 apart, 4e-16 with
        # numpy 2), which the large terms multiply
        assert few == pytest.approx(ref, abs=5e-13 * max(1.0, abs(ref)))
        assert many == pytest.approx(ref, abs=5e-13 * max(1.0, abs(ref)))
        assert few == pytest.approx(many, abs=4e-14 * max(1.0, abs(ref)))
    # below its plain case (a count under 16) the one-point form defers to the array form
    assert _kernels._log_beta_pdf_one(0.3, 7.0, 5.0) is None
    assert float(_kernels.log_beta_pdf(np.array([0.3]), np.array([7.0]), np.array([5.0]))[0]) == \
        pytest.approx(stats.beta.logpdf(0.3, 7, 5), rel=1e-14)


# -- every weight by one FFT convolution ----------------------------------------------------------
# designs of the FFT path (k (M - k) above engine._FFT_FROM), the hard ones among them: k near 0
# and near M, a perfect metric, a handful of paired rows, paired rows that contradict the metric
# (weights piled at both ends), a U-shaped rate prior (no concavity: the cruder bound), known
# rates, many human ratings far from the metric
FFT_DESIGNS = [
    dict(c=(188, 300, 6623, 10000, 155, 33, 89, 23)),                 # the bench design
    dict(c=(188, 300, 2024, 3000, 159, 29, 94, 18)),
    dict(c=(40, 50, 33000, 50000, 33, 7, 9, 1)),                       # a fit's group, 5e4
    dict(c=(0, 0, 400, 20000, 25, 3, 176, 19)),                        # k near 0
    dict(c=(0, 0, 19950, 20000, 176, 19, 25, 3)),                      # k near M
    dict(c=(5, 10, 6000, 9000, 120, 0, 80, 0)),                        # a perfect metric
    dict(c=(0, 0, 5600, 10000, 2, 1, 1, 0)),                           # a handful of paired rows
    dict(c=(1, 2, 5000, 6000, 0, 30, 30, 1)),                          # contradicting: two piles
    dict(c=(0, 0, 3000, 6000, 0, 0, 0, 0), rate_prior=(0.5, 0.5)),     # U-shaped
    dict(c=(6, 10, 5300, 8000, 0, 0, 0, 0), rho=0.85, eta=0.8),        # known rates
    dict(c=(9000, 10000, 4000, 10000, 80, 20, 80, 20)),                # humans far from metric
]


def _tilted_sequences(c, rho=None, eta=None, rate_prior=(1.0, 1.0)):
    """The engine's two sequences and the weights' other factor for a design (as it builds them)."""
    hp, ht, k, M, tp, fn, tn, fp = c
    ar, br = rate_prior
    A, B = 1.0 + hp, 1.0 + ht - hp
    pos = (engine.RateDistribution(tp + ar, fn + br) if rho is None
           else engine.RateDistribution(known=rho))
    neg = (engine.RateDistribution(fp + br, tn + ar) if eta is None
           else engine.RateDistribution(known=1.0 - eta))
    lik = engine._MetricLikelihood(k, M, pos, neg)
    row, first, second, pad = lik._int_tables()
    lp, lq = first[:k + 1], second[pad:pad + M - k + 1]
    H = engine._base_steps(A, B, M, np.arange(M + 1.0)) + row
    t0 = int(min(max(round(engine._guess(A, B, k, M, pos, neg)[0]), 1), M - 1))
    return lp, lq, H, 0.5 * (H[t0 + 1] - H[t0 - 1])


@pytest.mark.parametrize("design", FFT_DESIGNS)
def test_fft_convolution_within_its_stated_bound_of_the_exact_one(design):
    # the stated bound 16 eps sqrt(log2 n) ||p|| ||q|| on every entry, against the direct
    # convolution (np.convolve in pieces, tested below; sums of positive terms: relative error
    # below n eps) with the engine's tilt and a tilt off by a tenth of the sequences' length
    # either way
    d = dict(design)
    lp, lq, H, theta = _tilted_sequences(d.pop("c"), **d)
    for th in (theta, theta + 10.0 / lp.size, theta - 10.0 / lp.size):
        a, b = lp + th * np.arange(lp.size), lq + th * np.arange(lq.size)
        p, q = np.exp(a - a.max()), np.exp(b - b.max())
        fast, delta = engine._fft_convolve(p, q)
        exact = _kernels.convolve(p, q)
        err = np.max(np.abs(fast - exact))
        assert err <= delta, (err, delta)
        # the bound is not vacuous: within three orders of magnitude of the error
        assert delta <= 1e-11 * exact.max()


def test_direct_convolution_in_pieces_is_np_convolve():
    # one np.convolve, bit for bit, while the shorter sequence has at most 8,192 terms; beyond,
    # pieces added at their offsets: within n eps of np.convolve for positive terms (9,000 terms
    # keep np.convolve's own inner products on one BLAS thread), and of math.fsum at a few entries
    rng = np.random.default_rng(4)
    p, q = rng.random(20_000), rng.random(8_192)
    assert np.array_equal(_kernels.convolve(p, q), np.convolve(p, q))
    assert np.array_equal(_kernels.convolve(q, p), np.convolve(q, p))
    q = np.exp(-30.0 * rng.random(9_000))
    got, ref = _kernels.convolve(q, p), np.convolve(p, q)
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=9_000 * np.finfo(float).eps, atol=0)
    for t in (0, 5_000, 8_191, 8_192, 8_193, 15_000, 28_998):
        lo, hi = max(0, t - p.size + 1), min(t, q.size - 1)
        exact = math.fsum(p[t - j] * q[j] for j in range(lo, hi + 1))
        assert got[t] == pytest.approx(exact, rel=9_000 * np.finfo(float).eps)


@pytest.mark.parametrize("design", FFT_DESIGNS)
def test_fft_weights_against_the_exact_convolution(design, monkeypatch):
    # the posterior through the FFT against the same posterior through np.convolve (itself held
    # to term-by-term scipy sums in test_engine.py): the stated CDF error 2 FFT_TOL = 5e-13
    d = dict(design)
    c = d.pop("c")
    used = []
    fft_weights = engine._fft_log_weights
    monkeypatch.setattr(engine, "_fft_log_weights",
                        lambda *a: used.append(fft_weights(*a)) or used[-1])
    used_weights = lambda: [u[0] is not None for u in used]  # noqa: E731
    monkeypatch.setattr(engine, "_FFT_FROM", 0)
    fast = alpha_posterior(*c, **d)
    monkeypatch.setattr(engine, "_FFT_FROM", 10**15)
    monkeypatch.setattr(engine, "_CONV_MAX", 10**15)
    exact = alpha_posterior(*c, **d)
    qs = np.array([1e-9, 1e-6, 0.025, 0.25, 0.5, 0.75, 0.975, 1 - 1e-6, 1 - 1e-9])
    xs = exact.ppf(qs)
    np.testing.assert_allclose(fast.cdf(xs), exact.cdf(xs), atol=2 * engine.FFT_TOL, rtol=0)
    assert fast.mean() == pytest.approx(exact.mean(), abs=2 * engine.FFT_TOL)
    assert fast.std() == pytest.approx(exact.std(), abs=1e-12)
    # the ordinary designs take the FFT's weights (the bound's check does not refuse them all);
    # the others answer through np.convolve
    assert used, "the FFT path was not reached"
    if c in ((188, 300, 6623, 10000, 155, 33, 89, 23), (188, 300, 2024, 3000, 159, 29, 94, 18),
             (40, 50, 33000, 50000, 33, 7, 9, 1), (9000, 10000, 4000, 10000, 80, 20, 80, 20)):
        assert any(used_weights())


def test_fft_weights_of_the_bench_design_against_forty_digit_sums():
    # the weights as mpmath sums of the beta-binomial terms at 40 digits, at T over the window
    # (the two sequences' products summed exactly): the FFT's weights within FFT_TOL of the mass
    mpmath = pytest.importorskip("mpmath")
    c = (188, 300, 2024, 3000, 159, 29, 94, 18)
    lp, lq, H, theta = _tilted_sequences(c)
    lw = engine._fft_log_weights(lp, lq, H, theta)[0]
    assert lw is not None
    top = np.max(lw)
    w = np.exp(lw - top)
    mass = w.sum()
    mpmath.mp.dps = 40
    ep = [mpmath.exp(mpmath.mpf(float(v))) for v in lp]
    eq = [mpmath.exp(mpmath.mpf(float(v))) for v in lq]
    peak = int(np.argmax(lw))
    for T in (peak - 400, peak - 150, peak - 40, peak, peak + 40, peak + 150, peak + 400):
        s = mpmath.fsum(ep[x] * eq[T - x] for x in range(max(0, T - len(eq) + 1),
                                                            min(T, len(ep) - 1) + 1))
        ref = float(mpmath.exp(mpmath.mpf(float(H[T])) + mpmath.log(s) - mpmath.mpf(float(top))))
        assert abs(w[T] - ref) <= engine.FFT_TOL * mass, T
        if w[T] > 1e-6:
            assert w[T] == pytest.approx(ref, rel=1e-9), T


# -- the smooth mixture's cdf rule ----------------------------------------------------------------
def _step_sum(side, x, dense):
    """The smooth cdf's sum over the step (the end components aside), by the cdf's own panels or
    by 60 Gauss-Legendre panels of 48 points (the reference)."""
    N = side.N
    centre, width = x * N - side.a0, np.sqrt(N * x * (1.0 - x))
    reach = 14.0 * width + 40.0
    if not dense:
        u, w, start = side._panels(centre, width, reach)
    else:
        xg, wg = np.polynomial.legendre.leggauss(48)
        cuts = np.clip(centre[:, None] + np.linspace(-1.0, 1.0, 61)[None, :] * reach[:, None],
                       0.0, side.U)
        mid, rad = 0.5 * (cuts[:, 1:] + cuts[:, :-1]), 0.5 * (cuts[:, 1:] - cuts[:, :-1])
        u = (mid[:, :, None] + rad[:, :, None] * xg).reshape(x.size, -1)
        w = (rad[:, :, None] * wg).reshape(x.size, -1)
        start = cuts[:, 0]
    inner = np.sum(side.g(u) * special.betainc(side.a0 + u, N - side.a0 - u, x[:, None]) * w,
                   axis=1)
    return side.G(start) + inner


@pytest.mark.parametrize("counts", [BENCH[2], (188, 300, 654139, 1000000, 155, 33, 89, 23),
                                    (23, 276, 33160, 231434, 21, 2, 231, 22),
                                    (0, 0, 40000, 100000, 10, 2, 20, 5)])
def test_smooth_cdf_rule_agrees_with_a_dense_rule(counts, monkeypatch):
    # the cdf's ten 16-point panels around the step against sixty 48-point ones, on both sides
    # from the 1e-15 quantile to the median (the stated error of the cdf is 1e-12; measured 1e-15);
    # the quantile search's cdf and steering density on one set of nodes: the same cdf (the
    # smooth representation even where the windows' convolution would answer)
    monkeypatch.setattr(engine, "_WINDOW_MAX", 0)
    post = alpha_posterior(*counts)
    assert post.smooth is not None
    qs = np.r_[1e-15, 1e-12, 1e-9, 1e-6, 1e-3, np.linspace(0.01, 0.5, 12)]
    for side, x in ((post.smooth.lower, post.ppf(qs)), (post.smooth.upper, 1.0 - post.isf(qs))):
        assert np.max(np.abs(_step_sum(side, x, False) - _step_sum(side, x, True))) <= 1e-14
        cdf, logpdf = side.cdf_logpdf(x)
        np.testing.assert_array_equal(cdf, side.cdf(x))
        # the steering density on the step's nodes: the density's own rule to 1e-12 of its peak
        own = np.exp(side.logpdf(x))
        np.testing.assert_allclose(np.exp(logpdf), own, rtol=0, atol=1e-12 * own.max())


@pytest.mark.parametrize("prior", [(1.0, 0.5), (0.5, 1.0), (0.5, 0.5)])
def test_summaries_of_a_beta_with_a_parameter_below_one(prior):
    # a single Beta component whose kernel peaks beyond its end (b < 1: all human ratings
    # positive under a prior with b = 0.5) once made the stacked kernel sums index nothing;
    # the stacked quantiles agree with scipy's
    posts = [alpha_posterior(5, 5, prior=prior), alpha_posterior(0, 7, prior=prior),
             alpha_posterior(60, 100, 560, 1000, 40, 10, 30, 20, prior=prior)]
    got = posterior.summaries(posts, 0.025)
    for i, (a, b) in enumerate([(5 + prior[0], prior[1]), (prior[0], 7 + prior[1])]):
        assert got["lower"][i] == pytest.approx(stats.beta.ppf(0.025, a, b), rel=1e-10)
        assert got["upper"][i] == pytest.approx(stats.beta.isf(0.025, a, b), rel=1e-10)
    lo, hi = posts[2].interval(0.95)
    assert got["lower"][2] == pytest.approx(lo, rel=1e-12)
    assert got["upper"][2] == pytest.approx(hi, rel=1e-12)


@pytest.mark.parametrize("prior", [(0.5, 0.5), (1, 0.5), (0.5, 1)])
def test_prior_alone_below_one_evaluates_like_scipy(prior):
    # no ratings at all under a prior with a parameter below one: the posterior is the prior,
    # a single Beta whose density is unbounded at an end (its cdf once indexed an empty window)
    post = alpha_posterior(prior=prior)
    x = np.array([1e-9, 0.01, 0.3, 0.5, 0.97, 1 - 1e-9])
    np.testing.assert_allclose(post.cdf(x), stats.beta.cdf(x, *prior), rtol=1e-11, atol=0)
    np.testing.assert_allclose(post.ppf([0.025, 0.975]), stats.beta.ppf([0.025, 0.975], *prior),
                               rtol=1e-10)


# -- the tangent bound of log L (the scan for further modes) ---------------------------------------
def _bound_designs():
    rng = np.random.default_rng(17)
    out = [BENCH[2][2:4] + BENCH[2][4:], (0, 5000, 26, 4, 20, 177), (5000, 5000, 2, 1, 2, 3),
           (30000, 30000, 0, 300, 300, 5), (40000, 100000, 10, 2, 20, 5)]
    for _ in range(12):
        M = int(rng.integers(50, 200000))
        out.append((int(rng.integers(0, M + 1)), M) + tuple(int(v) for v in rng.integers(0, 80, 4)))
    return out


@pytest.mark.parametrize("design", _bound_designs())
def test_tangent_bound_of_the_log_likelihood_is_above_it(design):
    # L(T) = sum_x exp(f(x)) with f concave in x (rate priors of at least one, or known rates):
    # f(x) <= f(x0) + f'(x0) (x - x0) on [lo, hi], so log L <= that + log(hi - lo + 1); against
    # log L itself (held to sums of scipy's beta-binomial terms in test_engine.py) at T over
    # all of 0..M, for estimated and known rates
    k, M, tp, fn, tn, fp = design
    rng = np.random.default_rng(k + M)
    T = np.unique(np.r_[np.round(np.linspace(0, M, 41)), np.round(rng.uniform(0, M, 20)), 0, 1,
                        M - 1, M, k, M - k]).clip(0, M)
    for pos, neg in ((engine.RateDistribution(tp + 1.0, fn + 1.0),
                      engine.RateDistribution(fp + 1.0, tn + 1.0)),
                     (engine.RateDistribution(known=0.8), engine.RateDistribution(fp + 1.0, tn + 1.0)),
                     (engine.RateDistribution(known=0.9), engine.RateDistribution(known=0.25))):
        lik = engine._MetricLikelihood(k, M, pos, neg)
        value, bound = lik(T), lik.log_bound(T)
        # above log L up to rounding (equal where the sum has one term); the scan keeps a margin
        # of one log unit
        assert np.all(bound >= value - 1e-9 * np.maximum(1.0, np.abs(value)))
        assert np.all(np.isneginf(bound) == np.isneginf(value))
        # and not far above where it matters: within log(hi - lo + 1) + 1 of log L near its peak
        fin = np.isfinite(value)
        best = int(np.argmax(np.where(fin, value, -np.inf)))
        width = min(T[best], k) - max(0, k - (M - T[best])) + 1
        assert bound[best] <= value[best] + math.log(width) + 1.0


def test_tangent_bound_only_for_concave_summands():
    # a rate prior below one (a U-shaped Beta) or a known rate of 0 or 1: no bound (the scan
    # then evaluates log L, as before)
    lik = engine._MetricLikelihood(3000, 6000, engine.RateDistribution(0.5, 0.5),
                                   engine.RateDistribution(2.0, 3.0))
    assert lik.log_bound(np.array([10.0, 3000.0])) is None
    lik = engine._MetricLikelihood(3000, 6000, engine.RateDistribution(known=1.0),
                                   engine.RateDistribution(2.0, 3.0))
    assert lik.log_bound(np.array([10.0, 3000.0])) is None


# designs whose scan points pass the bound L <= 1: the bench design of 10^5 (3 of them) and three
# of random_designs(15, seed=11) (50, 4 and 83 of them; few human ratings, so the base term is flat)
@pytest.mark.parametrize("counts", [BENCH[2], (0, 1, 53299, 103342, 277, 13, 830, 599),
                                    (2443, 4535, 31344950, 44890906, 5331, 100, 2976, 1622),
                                    (4, 4, 29915, 67993, 42986, 24254, 33520, 1864)])
def test_the_tangent_bound_leaves_the_posterior_as_it_was(counts, monkeypatch):
    # the scan with the tangent bound against the scan with L <= 1 alone: the same windows, the
    # same posterior, and the tangent bound spares log L at some scan points (the scan of the
    # smooth way, even where the windows' convolution would answer)
    monkeypatch.setattr(engine, "_WINDOW_MAX", 0)
    spared = []
    modes = engine._all_modes

    def counting(logw, *a, **k):
        asked = []
        out = modes(lambda t: asked.append(np.size(t)) or logw(t), *a, **k)
        spared.append(sum(asked))
        return out

    monkeypatch.setattr(engine, "_all_modes", counting)
    fast = alpha_posterior(*counts)
    monkeypatch.setattr(engine, "_all_modes",
                        lambda *a, **k: counting(*a, **dict(k, finer=None)))
    slow = alpha_posterior(*counts)
    assert spared[0] < spared[1]
    assert fast.n_components == slow.n_components and len(fast.parts) == len(slow.parts)
    x = slow.ppf(np.array([1e-9, 0.025, 0.5, 0.975, 1 - 1e-9]))
    np.testing.assert_array_equal(fast.cdf(x), slow.cdf(x))
    assert fast.mean() == slow.mean() and fast.std() == slow.std()
    assert fast.interval(0.95) == slow.interval(0.95)


# -- kernels in place ------------------------------------------------------------------------------
def test_log_gamma_ratio_with_a_few_small_arguments_against_forty_digits():
    # one call with arguments below 16 (the plain difference of log-gamma functions), from 16 to
    # 500 (Stirling's form, five-term series) and beyond (two-term series): each value as when
    # computed alone, and against mpmath
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    from binaryeval.binary import _kernels

    rng = np.random.default_rng(3)
    z = np.r_[rng.uniform(0.5, 16.0, 20), rng.uniform(16.0, 500.0, 30), 10 ** rng.uniform(2.7, 7, 40)]
    d = np.r_[rng.uniform(-0.4, 200.0, z.size)]
    got = _kernels.log_gamma_ratio(z.reshape(9, 10), d.reshape(9, 10)).ravel()
    alone = np.array([float(_kernels.log_gamma_ratio(np.array([zi]), np.array([di]))[0])
                      for zi, di in zip(z, d, strict=True)])
    # the five-term series' last terms are below half a unit in the last place beyond 500
    np.testing.assert_allclose(got, alone, rtol=2e-16, atol=0)
    ref = np.array([float(mp.loggamma(mp.mpf(zi) + mp.mpf(di)) - mp.loggamma(mp.mpf(zi)))
                    for zi, di in zip(z, d, strict=True)])
    np.testing.assert_allclose(got, ref, rtol=1e-13, atol=1e-13)
    # broadcasting: an offset per row
    rows = _kernels.log_gamma_ratio(z.reshape(9, 10), d[:9, None])
    ref_rows = np.array([[float(_kernels.log_gamma_ratio(np.array([zi]), np.array([d[i]]))[0])
                          for zi in z.reshape(9, 10)[i]] for i in range(9)])
    np.testing.assert_allclose(rows, ref_rows, rtol=2e-16, atol=0)


def test_log_gamma_ratio_ranges_with_whole_offsets_from_shared_tables():
    # whole offsets read stirlerr and log of every range from shared tables: the values must be
    # those of each range's own Stirling form (log-gamma differences up to 16, the five-term
    # series to 500, the two-term beyond), bit for bit, for short tables (one pass) and long
    # ones (a pass per range), and within 1e-13 of forty digits
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    from scipy import special

    from binaryeval.binary import _kernels

    def own_form(n, d):
        z = np.arange(1.0, n + 1.0)
        out = special.gammaln(z + d) - special.gammaln(z)
        mid, far = (z > 16.0) & (z <= 501.0), z > 501.0
        out[mid] = _kernels._stirling_ratio(z[mid], np.float64(d), 15.5)
        out[far] = _kernels._stirling_ratio(z[far], np.float64(d), 500.5)
        return out

    for specs in ([(1001, 188.0), (656, 150.0), (346, 38.0), (1001, 112.0), (656, 28.0)],
                  [(30001, 2000.0), (19000, 0.0), (11002, 7.0), (30001, 90.0)]):
        got = _kernels.log_gamma_ratio_ranges(specs)
        for (n, d), values in zip(specs, got, strict=True):
            np.testing.assert_array_equal(values, own_form(n, d))
            for z in sorted({1, 17, min(502, n), n}):
                ref = float(mp.loggamma(z + d) - mp.loggamma(z))
                assert abs(values[z - 1] - ref) <= 1e-13 * max(1.0, abs(ref))

def test_stirling_series_in_place_equals_its_expression():
    from binaryeval.binary import _kernels

    s0, s1, s2, s3, s4 = _kernels._S
    rng = np.random.default_rng(4)
    for n in (rng.uniform(15.5, 500.0, 300), 10 ** rng.uniform(2.71, 9, 300)):
        nn = n * n
        five = (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n
        two = (s0 - s1 / nn) / n
        np.testing.assert_array_equal(_kernels.stirlerr(n, 15.5), five)
        if n.min() > 500.0:
            np.testing.assert_array_equal(_kernels.stirlerr(n), two)
        z, dd = n + 1.0, rng.uniform(-0.5, 300.0, n.size)
        u, v = z - 1.0, z - 1.0 + dd
        ref = (u + 0.5) * np.log1p(dd / u) + dd * np.log(v) - dd + (
            _kernels.stirlerr(v, 14.5 + min(n.min(), 1.0)) - _kernels.stirlerr(u, 15.5))
        np.testing.assert_allclose(_kernels._stirling_ratio(z, dd, 14.5 + min(n.min(), 1.0)),
                                   ref, rtol=1e-15, atol=1e-15)


def test_binomial_and_beta_log_densities_of_whole_arrays_against_forty_digits():
    # every count at least one (the in-place form) against mpmath and against the masked form
    # (the same arrays with one count below one among them); integer counts and x on a grid of
    # 1/1024, so that the references see the same arguments
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    from binaryeval.binary import _kernels

    rng = np.random.default_rng(8)
    n = np.round(10 ** rng.uniform(1.5, 5, 120))
    p = np.round(rng.uniform(0.05, 0.95, n.size) * 1024) / 1024
    k = np.clip(np.round(n * p + rng.normal(0, 3, n.size) * np.sqrt(n * p * (1 - p))), 1, n - 1)
    whole = _kernels.log_dbinom(k, n, p)
    ref = np.array([float(mp.loggamma(ni + 1) - mp.loggamma(ki + 1) - mp.loggamma(ni - ki + 1)
                          + ki * mp.log(mp.mpf(pi)) + (ni - ki) * mp.log(1 - mp.mpf(pi)))
                    for ki, ni, pi in zip(k, n, p, strict=True)])
    # Loader's form: a few units in the last place of the probability
    assert np.all(np.abs(whole - ref) <= 1e-13 * np.maximum(1.0, np.abs(ref)))
    masked = _kernels.log_dbinom(np.r_[k, 0.5], np.r_[n, 10.0], np.r_[p, 0.3])[:-1]
    np.testing.assert_allclose(whole, masked, rtol=4e-16, atol=4e-16)
    a, b, x = k + 1.0, n - k + 1.0, p
    dens = _kernels.log_beta_pdf(x, a, b)
    ref = np.array([float((ai - 1) * mp.log(mp.mpf(xi)) + (bi - 1) * mp.log(1 - mp.mpf(xi))
                          - mp.loggamma(ai) - mp.loggamma(bi) + mp.loggamma(ai + bi))
                    for ai, bi, xi in zip(a, b, x, strict=True)])
    assert np.all(np.abs(dens - ref) <= 1e-13 * np.maximum(1.0, np.abs(ref)))
    mixed = _kernels.log_beta_pdf(np.r_[x, 0.4], np.r_[a, 0.7], np.r_[b, 3.0])[:-1]
    np.testing.assert_allclose(dens, mixed, rtol=4e-16, atol=4e-16)


def test_piecewise_chebyshev_at_a_few_points_equals_its_array_form():
    # up to four points in plain floats: the array form's operations in the same order (the same
    # values, bit for bit), ends, outside and NaN included
    rng = np.random.default_rng(6)
    edges = np.sort(rng.uniform(-50.0, 900.0, 8))
    poly = PiecewiseChebyshev(edges, rng.normal(size=(7, 25)) * np.exp(-0.3 * np.arange(25)),
                              left=-1.0, right=2.0)
    x = np.r_[rng.uniform(edges[0] - 5, edges[-1] + 5, 500), edges, np.nan]
    many = poly(np.r_[x, x[:10]])[:x.size]
    for size in (1, 2, 3, 4):
        few = np.concatenate([poly(x[i:i + size]) for i in range(0, x.size, size)])
        np.testing.assert_array_equal(few[:x.size], many)
    assert poly(np.array(edges[3])).shape == () and poly(np.zeros((2, 2))).shape == (2, 2)


def test_kernel_window_check_of_a_few_points_as_of_many():
    # the check that each window ends where the kernel is negligible, done in plain floats for
    # a few points: it must pass and fail where the array form does (a window cut to three
    # terms each way raises; the full windows give the same sums to a unit in the last place:
    # the few points' kernel at the anchor is in plain floats, and a window as wide as the
    # widest of five sums in other pairs)
    from binaryeval.binary import _stack

    post = alpha_posterior(60, 100, 560, 1000, 48, 12, 32, 8)
    stack = _stack.both_sides([(post.a, post.b, post.weights)])
    x = np.array([0.55, 0.6, 0.62, 0.65, 0.7])
    grp = np.zeros(x.size, dtype=np.int64)
    assert _stack._FEW_TARGETS < x.size
    many = stack.sums(grp, x, stack.cdf_pdf_coefs)
    for i in range(x.size):
        one = stack.sums(grp[i:i + 1], x[i:i + 1], stack.cdf_pdf_coefs)
        # within a few units in the last place: the few points' plain-float log and exp against
        # numpy's vectorised ones (numpy 1.26 on AVX-512: 4.1e-16 and 2.0e-15 apart; numpy 2:
        # 1.4e-16 and 2.2e-16)
        assert abs(one[0][0] - many[0][i]) <= 2e-15 * abs(many[0][i])
        np.testing.assert_allclose(one[1][:, 0], many[1][:, i], rtol=8e-15, atol=0)
    ia = np.full(x.size, 300, dtype=np.int64)
    lx = np.log(x) - np.log1p(-x)
    first, last = np.zeros(x.size, dtype=np.int64), np.full(x.size, post.a.size - 1)
    for n in (2, x.size):
        with pytest.raises(FloatingPointError, match="too narrow"):
            stack._window(ia[:n], ia[:n] - 3, ia[:n] + 3, lx[:n], stack.cdf_pdf_coefs, 3,
                          first[:n], last[:n])


def test_kernel_window_products_against_log_sums_and_scipy():
    # the window's kernel as a running product of rational factors against the exponential
    # of running log sums (the form it replaced, kept for products beyond the range of
    # doubles), and the distribution function and density against scipy's Beta term by term
    post = alpha_posterior(60, 100, 560, 1000, 48, 12, 32, 8)
    stack = _stack.both_sides([(post.a, post.b, post.weights)])
    rng = np.random.default_rng(11)
    x = np.sort(rng.uniform(0.45, 0.8, 40))
    grp = np.zeros(x.size, dtype=np.int64)
    ia = np.round(x * (post.a[0] + post.b[0] - 2) + 1 - post.a[0]).astype(np.int64)
    lx = np.log(x) - np.log1p(-x)
    first, last = np.zeros(x.size, dtype=np.int64), np.full(x.size, post.a.size - 1)
    lo, hi = np.maximum(ia - 200, first), np.minimum(ia + 200, last)
    prod = stack._window(ia, lo, hi, lx, stack.cdf_pdf_coefs, 200, first, last)
    logs = stack._window_log(ia, lo, hi, lx, stack.cdf_pdf_coefs, 200, first, last)
    np.testing.assert_allclose(prod, logs, rtol=5e-14, atol=0)
    F, f = stack.cdf_pdf(grp, x)
    dens = stats.beta.pdf(x[:, None], post.a[None, :], post.b[None, :]) @ post.weights
    cdf = stats.beta.cdf(x[:, None], post.a[None, :], post.b[None, :]) @ post.weights
    np.testing.assert_allclose(f, dens, rtol=1e-12)
    np.testing.assert_allclose(F, cdf, rtol=1e-12)
    # a factor beyond the range of doubles inside a window: the log sums answer, no warning
    stack.step_up = stack.step_up.copy()
    stack.step_up[ia[0] + 5] = np.inf
    with np.errstate(all="raise"):
        got = stack._window(ia, lo, hi, lx, stack.cdf_pdf_coefs, 200, first, last)
    np.testing.assert_array_equal(got, logs)


def test_stacks_are_shared_inside_reuse_only_for_the_same_mixtures():
    # inside _stack.reuse() the last two-sided stack is kept for the same arrays (the
    # quantiles, both quadrature tables and the surrogates of compare() read one); another set
    # replaces it; outside the block nothing is kept, and the answers do not depend on it
    one = alpha_posterior(60, 100, 560, 1000, 48, 12, 32, 8)
    two = alpha_posterior(30, 100, 420, 1000, 25, 5, 60, 10)
    mix = [one.components(), two.components()]
    assert _stack.shared(mix) is None
    assert _stack.both_sides(mix) is not _stack.both_sides(mix)
    with _stack.reuse():
        first = _stack.both_sides(mix)
        with _stack.reuse():    # a nested block shares the outer one's
            assert _stack.both_sides(mix) is first and _stack.shared(mix) is first
        assert _stack.shared(mix[:1]) is None
        other = _stack.both_sides(mix[:1])
        assert _stack.shared(mix) is None and _stack.shared(mix[:1]) is other
    assert _stack.shared(mix[:1]) is None
    x = np.array([0.55, 0.3])
    F, f = first.cdf_pdf(np.array([0, 1]), x)
    np.testing.assert_allclose(F, [one.cdf(0.55), two.cdf(0.3)], rtol=1e-12)
    np.testing.assert_allclose(f, [one.pdf(0.55), two.pdf(0.3)], rtol=1e-12)
    with _stack.reuse():
        P = posterior.prob_greater_matrix([one, two])
    np.testing.assert_array_equal(P, posterior.prob_greater_matrix([one, two]))


# -- the convolution over the windows that matter -------------------------------------------------
def _window_designs():
    """Designs of the windowed convolution: the bench's, and rows drawn from one system's rates
    at 2,000 to 60,000 metric ratings (100 to 1,000 paired rows)."""
    rng = np.random.default_rng(21)
    out = [BENCH[1], (188, 300, 1339, 2000, 154, 34, 93, 19)]
    for _ in range(10):
        M, npair = int(rng.integers(2000, 60001)), int(rng.integers(250, 1001))
        alpha, rho, eta = rng.uniform(0.2, 0.9), rng.uniform(0.7, 0.97), rng.uniform(0.6, 0.95)
        ht = npair
        pos = int(rng.binomial(npair, alpha))
        tp, tn = int(rng.binomial(pos, rho)), int(rng.binomial(npair - pos, eta))
        k = int(rng.binomial(M, alpha * rho + (1 - alpha) * (1 - eta)))
        out.append((pos, ht, k, M, tp, pos - tp, tn, npair - pos - tn))
    return out


def _window_inputs(c):
    hp, ht, k, M, tp, fn, tn, fp = c
    A, B = 1.0 + hp, 1.0 + ht - hp
    pos = engine.RateDistribution(tp + 1.0, fn + 1.0)
    neg = engine.RateDistribution(fp + 1.0, tn + 1.0)
    lik = engine._MetricLikelihood(k, M, pos, neg)
    return A, B, k, M, lik, engine._guess(A, B, k, M, pos, neg)[0]


@pytest.mark.parametrize("c", _window_designs())
def test_window_weights_against_the_exact_convolution(c, monkeypatch):
    # the weights from the windows' FFT against the exact convolution of every T (np.convolve,
    # itself held to term-by-term sums in test_engine.py): the stated CDF error 2 FFT_TOL
    used = []
    window = engine._window_log_weights
    monkeypatch.setattr(engine, "_window_log_weights",
                        lambda *a: used.append(window(*a)) or used[-1])
    fast = alpha_posterior(*c)
    assert used and used[0] is not None, "the windows were not taken"
    monkeypatch.setattr(engine, "_window_log_weights", lambda *a: None)
    monkeypatch.setattr(engine, "_FFT_FROM", 10**15)
    monkeypatch.setattr(engine, "_CONV_MAX", 10**15)
    exact = alpha_posterior(*c)
    qs = np.array([1e-9, 1e-6, 0.025, 0.25, 0.5, 0.75, 0.975, 1 - 1e-6, 1 - 1e-9])
    xs = exact.ppf(qs)
    np.testing.assert_allclose(fast.cdf(xs), exact.cdf(xs), atol=2 * engine.FFT_TOL, rtol=0)
    assert fast.mean() == pytest.approx(exact.mean(), abs=2 * engine.FFT_TOL)
    assert fast.std() == pytest.approx(exact.std(), abs=1e-12)
    lo, hi = fast.interval(0.95)
    ref = exact.interval(0.95)
    assert abs(lo - ref[0]) <= 1e-12 and abs(hi - ref[1]) <= 1e-12


@pytest.mark.parametrize("c", _window_designs()[:6])
def test_window_bounds_hold_against_the_whole_tables(c):
    # the windows' bounds against the whole tables: the mass left out of each tilted sequence
    # is below its geometric bound, and beyond [S0, S1] H rises no faster than _rises says
    A, B, k, M, lik, centre = _window_inputs(c)
    got = {}
    fft_weights = engine._fft_log_weights

    def spy(lp, lq, H, theta, concave, trunc, beyond):
        got.update(lp=lp, lq=lq, H=H, theta=theta, trunc=trunc, beyond=beyond)
        return fft_weights(lp, lq, H, theta, concave, trunc, beyond)

    engine._fft_log_weights, saved = spy, engine._fft_log_weights
    try:
        assert engine._window_log_weights(A, B, k, M, lik, centre) is not None
    finally:
        engine._fft_log_weights = saved
    row, lp, lq = lik._plain_tables()
    theta = got["theta"]
    # where the windows lie in the whole sequences (the window's tables are their entries)
    x0 = int(np.flatnonzero(lp == got["lp"][0])[0])
    u0 = int(np.flatnonzero(lq == got["lq"][0])[0])
    np.testing.assert_array_equal(lp[x0:x0 + got["lp"].size], got["lp"])
    np.testing.assert_array_equal(lq[u0:u0 + got["lq"].size], got["lq"])
    out = 0.0
    for whole, at, n in ((lp, x0, got["lp"].size), (lq, u0, got["lq"].size)):
        v = whole + theta * np.arange(whole.size)
        v -= v[at:at + n].max()
        assert v.max() == 0.0      # the largest entry is inside the window
        out += float(np.sum(np.exp(v[:at])) + np.sum(np.exp(v[at + n:])))
    assert out <= got["trunc"] * (1 + 1e-9)
    # and far below the FFT's own error bound (the sequences scaled as the FFT takes them)
    a = got["lp"] + theta * np.arange(got["lp"].size)
    b = got["lq"] + theta * np.arange(got["lq"].size)
    delta = engine._fft_convolve(np.exp(a - a.max()), np.exp(b - b.max()))[1]
    assert got["trunc"] <= 1e-4 * delta
    S0, S1 = x0 + u0, x0 + u0 + got["H"].size - 1
    t0 = int(min(max(round(centre), 0), M))
    H = engine._base_steps(A, B, M, np.arange(M + 1.0), t0) + row
    shift = H - theta * np.arange(M + 1.0)
    n_left, g_left, n_right, g_right = got["beyond"]
    assert (n_left, n_right) == (S0, M - S1)
    left = shift[:S0] - shift[S0] - g_left * np.arange(S0, 0, -1)
    right = shift[S1 + 1:] - shift[S1] - g_right * np.arange(1, M - S1 + 1)
    assert left.max(initial=-np.inf) <= 1e-9 and right.max(initial=-np.inf) <= 1e-9


def test_base_steps_from_a_reference_against_forty_digits():
    # log C(M, T) B(A + T, B + M - T) summed outwards from a reference near the peak: within a
    # few 1e-14 of 40 digits over thousands of components at 10^4 ratings (summed from T = 0 the
    # running sums reach thousands, and the same values were a few 1e-12 off)
    mp = pytest.importorskip("mpmath")
    A, B, M, ref = 189.0, 113.0, 10000, 6655
    T = np.arange(M + 1.0)
    got = engine._base_steps(A, B, M, T, ref)
    assert got[ref] == 0.0
    with mp.workdps(40):
        def exact(t):
            return (mp.loggamma(t + A) - mp.loggamma(t + 1) + mp.loggamma(M - t + B)
                    - mp.loggamma(M - t + 1))
        top = exact(ref)
        for t in (3200, 4700, 5500, 6000, 6654, 6656, 7000, 8200, 9100):
            assert abs(got[t] - float(exact(t) - top)) <= 2e-13, t
    # the same steps as from T = 0 (to rounding)
    whole = engine._base_steps(A, B, M, T)
    np.testing.assert_allclose(got, whole - whole[ref], rtol=0, atol=1e-9)
    part = engine._base_steps(A, B, M, T[3000:9001], ref - 3000)
    np.testing.assert_array_equal(part, got[3000:9001])


def test_log_gamma_ratio_change_against_forty_digits():
    # the change of log Γ(z + d) - log Γ(z) from z_ref to z, for references up to 10^8, offsets
    # from -0.5 to 10^8 and shifts of 1 to 10^6 each way, every shift of a reference in one call
    # (as the weight function calls it): within 8 eps |change| + 1e-15 (measured: 6 eps).  The
    # difference of two Stirling-form ratios was up to 2e5 eps off (1e-11 to 5e-10 at offsets
    # above 10^3), and _base_change, its two changes, was 4e-11 off at 10^4 ratings
    mp = pytest.importorskip("mpmath")
    eps = np.finfo(float).eps
    shifts = np.array([1.0, 7.0, 100.0, 2500.0, 10**4 + 0.5, 10**5, 10**6])
    shifts = np.concatenate((shifts, -shifts))
    rows = []   # (z_ref, shift, d, exact) of every case, for log_gamma_ratio_shifts below
    with mp.workdps(40):
        def ratio(x, d):
            return mp.loggamma(mp.mpf(x) + d) - mp.loggamma(mp.mpf(x))

        for z_ref in (1.0, 6.5, 40.0, 1500.0, 34567.0, 10**6 + 0.5, 3 * 10**7, 10**8):
            for d in (-0.5, 0.5, 3.0, 999.0, 1001.5, 10**4, 2.5e5, 10**6, 10**8):
                z = z_ref + shifts
                z = z[(z > 0) & (z + d > 0)]
                got = _kernels.log_gamma_ratio_change(z, z_ref, d)
                at_ref = ratio(z_ref, d)
                exact = np.array([float(ratio(x, d) - at_ref) for x in z.tolist()])
                bound = 8 * eps * np.abs(exact) + 1e-15
                assert np.all(np.abs(got - exact) <= bound), (z_ref, d)
                rows += [(z_ref, x - z_ref, d, e) for x, e in zip(z, exact, strict=True)]
    # every reference and offset at once (as the metric likelihood's pairs call it): the same bound
    z_ref, shift, d, exact = (np.array(v) for v in zip(*rows, strict=True))
    got = _kernels.log_gamma_ratio_shifts(z_ref[:, None], shift[:, None], d[:, None])[:, 0]
    assert np.all(np.abs(got - exact) <= 8 * eps * np.abs(exact) + 1e-15)
    # _base_change: log C(M, t) B(A + t, B + M - t) less the same at t_ref, 10^4 ratings from each
    # side of the reference, with 2 x 10^4 and 3 x 10^6 human ratings (offsets A - 1, B - 1)
    A, B, M, t_ref = 20001.5, 3 * 10**6 + 0.5, 5 * 10**6, 2 * 10**6
    t = t_ref + np.array([-10**4, -37, 1, 10**4, 3 * 10**5])
    got = engine._base_change(A, B, M, t, t_ref)
    with mp.workdps(40):
        def base(x):
            return (mp.loggamma(x + A) - mp.loggamma(x + 1) + mp.loggamma(M - x + B)
                    - mp.loggamma(M - x + 1))

        exact = np.array([float(base(x) - base(t_ref)) for x in t.tolist()])
        np.testing.assert_allclose(got, exact, rtol=16 * eps, atol=1e-15)
        # at real t (the smooth path's quadrature nodes) against the same t exactly: two changes
        # of about 186 each, within 8 eps of each (measured: 1.2e-13); taken at the rounded
        # M - t the second change was 2.4e-10 off
        A, B, M, t_ref = 461048.0, 2485925.0, 10263816, 1605755.0
        t = 1606491.0 + np.array([-0.16, 0.0137, 0.09, 0.5])
        got = engine._base_change(A, B, M, t, t_ref)
        exact = np.array([float(base(mp.mpf(x)) - base(t_ref)) for x in t.tolist()])
    np.testing.assert_allclose(got, exact, rtol=0, atol=8 * eps * 2 * 186)


# designs at the largest sizes of the paths that sum the base terms below the FFT's: the direct
# convolution (6 x 10^4 metric ratings, k (M - k) below _FFT_FROM), a materialised window of
# about 27,000 components (known rates, 5 x 10^6 ratings), one with the rates 0.85 / 0.88, and the
# whole range of a few hundred components (a rate known to be 1).  Summed from T = 0 (or from the
# window's start) the CDFs were 3.5e-12, 1.2e-12, 3.7e-12, 3.6e-12 and 2.8e-14 off.
PEAK_DESIGNS = [
    ((18800, 30000, 3, 60000, 1, 187, 111, 1), {}),
    ((188, 300, 59997, 60000, 187, 1, 1, 111), {}),
    ((1708283, 1934300, 242094, 2182384, 0, 0, 0, 0), dict(rho=0.8, eta=0.935)),
    ((71878, 1081002, 1493364, 2323311, 0, 0, 0, 0), dict(rho=0.679, eta=0.657)),
    ((669, 1566, 260, 519, 0, 0, 0, 0), dict(rho=1.0, eta=0.726)),
]


@pytest.mark.parametrize("design", PEAK_DESIGNS)
def test_base_terms_summed_from_the_peak_against_forty_digits(design, monkeypatch):
    # the posterior against the same posterior whose base terms log C(M, T) B(A + T, B + M - T)
    # are mpmath's log-gamma functions at 30 digits at every T (no running sums): the stated CDF
    # error 1e-12 (measured: below 2e-13)
    mp = pytest.importorskip("mpmath")
    c, kw = design
    used = []
    steps = engine._base_steps
    monkeypatch.setattr(engine, "_base_steps",
                        lambda A, B, M, T, ref=0: used.append((T.size, ref)) or steps(A, B, M, T,
                                                                                      ref))
    fast = alpha_posterior(*c, **kw)
    # the path summed its terms from a reference inside, not from its first component
    assert any(ref > 0 for _, ref in used)
    known = {}

    def exact_steps(A, B, M, T, ref=0):
        with mp.workdps(30):
            for t in T.tolist():
                if (A, B, M, t) not in known:
                    known[A, B, M, t] = (mp.loggamma(t + A) - mp.loggamma(t + 1)
                                         + mp.loggamma(M - t + B) - mp.loggamma(M - t + 1))
            top = known[A, B, M, float(T[ref])]
            return np.array([float(known[A, B, M, t] - top) for t in T.tolist()])

    monkeypatch.setattr(engine, "_base_steps", exact_steps)
    exact = alpha_posterior(*c, **kw)
    qs = np.array([1e-9, 1e-6, 1e-3, 0.025, 0.1, 0.25, 0.5, 0.75, 0.9, 0.975, 1 - 1e-3, 1 - 1e-6,
                   1 - 1e-9])
    xs = exact.ppf(qs)
    np.testing.assert_allclose(fast.cdf(xs), exact.cdf(xs), rtol=0, atol=1e-12)
    assert fast.mean() == pytest.approx(exact.mean(), abs=1e-12)


def test_batch_sums_the_base_terms_as_the_engine_does():
    # the batch of many groups sums from each group's guessed peak in the engine's order: the
    # same weights bit for bit (at 12,000 ratings and 10^5 human ratings, summed from T = 0 the
    # CDFs were 5e-13 off)
    from binaryeval.binary import _batch

    counts = np.array([(90000, 100000, 3, 12000, 1, 187, 111, 1),
                       (188, 300, 11990, 12000, 187, 1, 1, 111),
                       (188, 300, 664, 1000, 159, 29, 94, 18), (0, 0, 5, 40, 3, 2, 8, 1)])
    nan = np.full(len(counts), np.nan)
    got = _batch.posteriors(counts, nan, nan, prior=(1.0, 1.0), rate_prior=(1.0, 1.0))
    for row, post in zip(counts.tolist(), got, strict=True):
        ref = alpha_posterior(*row)
        for u, v in zip(post.components(), ref.components(), strict=True):
            np.testing.assert_array_equal(u, v)


def test_geometric_sums_and_fft_lengths():
    for start, g, n in ((-3.0, -0.2, 7), (-3.0, 0.0, 7), (-40.0, 0.3, 50), (-1.0, -1e-9, 10**6)):
        ref = math.fsum(math.exp(start + g * j) for j in range(1, n + 1))
        assert engine._geometric(start, g, n) == pytest.approx(ref, rel=1e-9)
    assert engine._geometric(0.0, 10.0, 10**6) == math.inf
    for size in list(range(1, 3000)) + [10_001, 65_537, 999_999]:
        n = engine._fft_length(size)
        best = min(m * 2 ** max(0, math.ceil(math.log2(size / m))) for m in engine._FFT_ODD)
        assert n == best and n >= size
    assert engine._fft_length(10_001) == 10_240


def test_log_gamma_ratio_ranges_from_a_start_are_slices_of_the_whole():
    rng = np.random.default_rng(3)
    for _ in range(40):
        specs = [(int(n), float(d)) for n, d in zip(rng.integers(1, 30_000, 4),
                                                     rng.integers(0, 400, 4), strict=True)]
        specs.append((int(rng.integers(1, 3000)), float(rng.uniform(-0.9, 50.0))))
        starts = [int(rng.integers(0, n)) for n, _ in specs]
        whole = _kernels.log_gamma_ratio_ranges(specs)
        part = _kernels.log_gamma_ratio_ranges([(n, d, s) for (n, d), s in zip(specs, starts,
                                                                                 strict=True)])
        for w, p, s in zip(whole, part, starts, strict=True):
            np.testing.assert_array_equal(p, w[s:])
    # the kept integer tables are the tables of each range alone
    grid, ser, logs = _kernels._integer_tables(True, 600, 9000)
    own = np.arange(600.0, 9000.0)
    np.testing.assert_array_equal(grid, own)
    np.testing.assert_array_equal(ser, _kernels._stirling_series(own, True))
    np.testing.assert_array_equal(logs, np.log(own))


def test_kernel_sums_of_a_few_points_are_the_array_forms_bit_for_bit():
    # the few points' windows one at a time on slices: the same sums as the array form laid out
    # the same way (every coefficient row, both sides, kernels peaking inside and beyond an end)
    post = alpha_posterior(*BENCH[1])
    stack = _stack.both_sides([(post.a, post.b, post.weights)])
    rng = np.random.default_rng(8)
    for g in (0, 1):
        m = post.mean() if g == 0 else 1.0 - post.mean()
        for x in (np.clip(m + post.std() * rng.normal(0.0, 4.0, 4), 1e-3, 1 - 1e-3),
                  np.array([0.3, 0.95]), np.array([m])):
            grp = np.full(x.size, g)
            log_peak, few = stack._sums_few(grp, x, stack.cdf_pdf_coefs)
            cols = []
            for xi in x.tolist():
                start, K = int(stack.start[g]), int(stack.K[g])
                lx = math.log(xi) - math.log1p(-xi)
                n = float(stack.N[g]) - 2.0
                centre = xi * n + 1.0 - float(stack.a0[g])
                half = math.ceil(10.0 * math.sqrt(n * xi * (1.0 - xi)) + 40.0)
                lo, hi = min(max(math.floor(centre - half), 0), K - 1), \
                    min(max(math.ceil(centre + half), 0), K - 1)
                if centre < 0:
                    r = float(stack.ratio[start]) + lx
                    hi = min(K - 1, max(hi, min(math.ceil(42.0 / max(-r, 1e-300)) + 1, 2 * half)))
                elif centre > K - 1:
                    r = float(stack.ratio[start + K - 2]) + lx
                    lo = max(0, min(lo, K - 1 - min(math.ceil(42.0 / max(r, 1e-300)) + 1,
                                                    2 * half)))
                anchor = int(min(max(round(centre), lo), hi))
                cols.append((start + anchor, start + lo, start + hi, lx, start, start + K - 1,
                             max(hi - anchor, anchor - lo)))
            ia, lo, hi, lx, first, last, reach = (np.array(v) for v in zip(*cols, strict=True))
            ref = stack.cdf_pdf_coefs[:, ia] + stack._window(
                ia, lo, hi, lx.astype(float), stack.cdf_pdf_coefs, int(reach.max()), first, last)
            np.testing.assert_array_equal(few, ref)
            np.testing.assert_array_equal(log_peak, _kernels.log_beta_pdf(x, stack.a[ia],
                                                                          stack.b[ia]))
    # a factor beyond the range of doubles: the array form's log sums answer (their log factors
    # made from the factors as they were), with the sums of the products to rounding
    x = np.array([post.mean()])
    before = stack._sums_few(np.zeros(1, dtype=np.int64), x, stack.cdf_pdf_coefs)[1]
    ia = int(round(x[0] * (stack.N[0] - 2.0) + 1.0 - stack.a0[0]))
    assert stack.ratio.size == stack.a.size
    stack.step_up = stack.step_up.copy()
    stack.step_up[ia + 3] = np.inf
    with np.errstate(all="raise"):
        after = stack._sums_few(np.zeros(1, dtype=np.int64), x, stack.cdf_pdf_coefs)[1]
    np.testing.assert_allclose(after, before, rtol=5e-14, atol=0)


def test_two_sided_stack_attributes_by_their_definitions():
    # the lean constructor: each attribute as the module notes define it
    mixes = [alpha_posterior(*c).components() for c in (BENCH[0], (40, 50, 560, 950, 33, 7, 9, 1))]
    stack = _stack.both_sides(mixes)
    for i, (a, b, w) in enumerate(mixes + [(b[::-1], a[::-1], w[::-1]) for a, b, w in mixes]):
        sl = slice(int(stack.start[i]), int(stack.start[i] + stack.K[i]))
        N = float(a[0] + b[0])
        np.testing.assert_array_equal(stack.a[sl], a)
        np.testing.assert_array_equal(stack.b[sl], N - a)
        np.testing.assert_array_equal(stack.w[sl], w)
        np.testing.assert_array_equal(stack.step_up[sl], (N - a - 1.0) / a)
        np.testing.assert_array_equal(stack.step_down[sl], a / (N - a - 1.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            np.testing.assert_array_equal(stack.ratio[sl], np.log((N - a - 1.0) / a))
        coef = np.cumsum(w) / a
        coef[-1] = 0.0
        np.testing.assert_array_equal(stack.cdf_coef[sl], coef)
        np.testing.assert_array_equal(stack.cdf_pdf_coefs[:, sl], np.stack([coef, w]))
        assert stack.mean_a[i] == pytest.approx(float(np.add.reduce(w * a)), rel=1e-15)


@pytest.mark.parametrize("counts", [BENCH[2], (188, 300, 654139, 1000000, 155, 33, 89, 23)])
def test_halved_panels_checked_on_their_parents_points_against_direct_log_likelihood(counts):
    # a halved panel of log L is checked at its parent's nodes and checks inside it (no new
    # evaluations): the interpolant against log L evaluated directly at every 16th component of
    # the window, weighted by the component's weight relative to the peak: within the stated
    # 1e-12 up to the direct values' own rounding (measured: 1.0e-12 and 1.7e-12)
    hp, ht, k, M, tp, fn, tn, fp = counts
    A, B = 1.0 + hp, 1.0 + ht - hp
    pos = engine.RateDistribution(tp + 1.0, fn + 1.0)
    neg = engine.RateDistribution(fp + 1.0, tn + 1.0)
    lik = engine._MetricLikelihood(k, M, pos, neg)
    logw = engine._log_weight_fn(A, B, M, lik)
    base = engine._log_weight_fn(A, B, M, None)
    t_lo, t_hi, peak, _ = engine._locate(logw, M, *engine._guess(A, B, k, M, pos, neg),
                                         extra=(k, M - k))
    sizes = []
    counted = engine._MetricLikelihood.__call__

    class Counted(engine._MetricLikelihood):
        def __call__(self, T):
            sizes.append(np.size(T))
            return counted(self, T)

    spy = Counted(k, M, pos, neg)
    panels = engine._chebyshev_panels(spy, t_lo, t_hi, base, peak)
    # two first panels (25 nodes, 9 checks, and the noise probe's 17 points), then halves with
    # their 25 nodes alone
    assert sizes[0] == 2 * 34 + 17 and all(n % 25 == 0 for n in sizes[1:]) and len(sizes) > 1
    T = np.arange(t_lo, t_hi + 1, 16, dtype=float)
    direct = lik(T)
    interp = np.full(T.size, np.nan)
    for a, b, cheb in panels:
        sel = (T >= a) & (T < b)
        interp[sel] = np.polynomial.chebyshev.chebval((T[sel] - 0.5 * (a + b)) / (0.5 * (b - a)),
                                                      cheb)
    w = np.exp(base(T) + direct - peak)
    assert np.max(np.abs(interp - direct) * w) <= 2e-12


# ~10^5 and ~10^4 paired rows: log L's rounding noise (its summand's log-gamma pairs are of size
# (a - 1) log z, a up to the paired counts) is about 0.3-0.6 eps P log M (P the estimated rates'
# Beta parameters together), above what 1e-12 of the CDF allows.  A known rate's count takes
# Loader's form (its log-gamma functions of the counts carried 7e-10 of noise at 10^6 ratings,
# and the CDF was 1.2e-10 off)
NOISY_DESIGNS = [
    ((24, 34, 3879359, 4277908, 55777, 29855, 23039, 13241), {}),  # 2,462 components
    ((361, 653, 116020, 345092, 6301, 687, 5220, 1009), {}),       # 31,233 components, smooth
    ((600, 1000, 560000, 10**6, 0, 0, 0, 0), dict(rho=0.8, eta=0.7)),
    ((60, 100, 56000, 100000, 20, 5, 0, 0), dict(eta=0.7)),
]


@pytest.mark.parametrize("counts, rates", NOISY_DESIGNS)
def test_cdf_within_its_stated_bound_of_log_likelihood_at_every_component(counts, rates):
    # the posterior against the mixture whose weights take log L directly at every component
    # (no panels; its rounding noise, independent from one T to the next, averages out of the
    # CDF) and the base terms by _base_change: within max(1e-12, eps P log M), and within 1e-12
    # where eps P log M exceeds engine._REF_FROM, the bounds stated in the engine's notes
    # (measured: 5e-14 at eps P log M = 4.1e-10, where the pairs taken whole were 3.4e-11 off;
    # 4.0e-12 against a bound of 3.7e-11; with known rates 8e-15)
    hp, ht, k, M, tp, fn, tn, fp = counts
    A, B = 1.0 + hp, 1.0 + ht - hp
    pos = (engine.RateDistribution(known=rates["rho"]) if "rho" in rates
           else engine.RateDistribution(tp + 1.0, fn + 1.0))
    neg = (engine.RateDistribution(known=1.0 - rates["eta"]) if "eta" in rates
           else engine.RateDistribution(fp + 1.0, tn + 1.0))
    P = sum(d.a + d.b for d in (pos, neg) if d.known is None)
    lik = engine._MetricLikelihood(k, M, pos, neg)
    post = alpha_posterior(*counts, **rates)
    if post.smooth is None:
        T = np.sort(post.components()[0]) - A
    else:
        T = post.smooth.a0 - A + np.arange(post.smooth.U + 1.0)
    scale = np.finfo(float).eps * P * math.log(M)
    # the noise of log L itself, from fourth differences at consecutive T: below eps P log M (and
    # with P in the thousands above 1e-12); where eps P log M exceeds engine._REF_FROM the
    # log-gamma pairs are changes from a reference point, and it is below 1 % of that
    probe = np.round(T[T.size // 2]) + np.arange(-8.0, 9.0)
    noise = float(np.std(np.diff(lik(probe), 4))) / math.sqrt(70.0)
    if scale > engine._REF_FROM:
        bound = 1e-12
        assert noise < 0.01 * scale
    else:
        bound = max(1e-12, scale)
        assert noise < bound and (noise > 1e-12 or P < 1000)
    lw = engine._base_change(A, B, M, T, float(np.round(T[T.size // 2])))
    lw += np.concatenate([lik(T[i:i + 4096]) for i in range(0, T.size, 4096)])
    w = np.exp(lw - lw.max())
    w /= w.sum()
    a, b = A + T, B + M - T
    xs = post.ppf(np.array([1e-6, 0.001, 0.025, 0.16, 0.5, 0.84, 0.975, 0.999, 1 - 1e-6]))
    ref = np.array([w @ special.betainc(a, b, x) for x in xs])
    err = np.max(np.abs(post.cdf(xs) - ref))
    assert err <= bound, (err, bound)


def _thirty_digit_log_likelihood(mp, T: int, k: int, M: int, a1, b1, a2, b2):
    """log L(T) for estimated rates: beta-binomial terms summed outwards from the largest."""
    n = M - T
    lo, hi = max(0, k - n), min(T, k)
    lg = mp.loggamma

    def log_term(x):
        y = k - x
        return (lg(T + 1) - lg(x + 1) - lg(T - x + 1) + lg(x + a1) + lg(T - x + b1)
                - lg(T + a1 + b1) - lg(a1) - lg(b1) + lg(a1 + b1)
                + lg(n + 1) - lg(y + 1) - lg(n - y + 1) + lg(y + a2) + lg(n - y + b2)
                - lg(n + a2 + b2) - lg(a2) - lg(b2) + lg(a2 + b2))

    def up(x):  # term(x + 1) / term(x)
        y = k - x
        return (mp.mpf(T - x) / (x + 1) * mp.mpf(x + a1) / (T - x - 1 + b1)
                * mp.mpf(y) / (n - y + 1) * mp.mpf(n - y + b2) / (y - 1 + a2))

    p, q = a1 / (a1 + b1), a2 / (a2 + b2)
    x0 = int(min(max(round(T * p * k / (T * p + n * q)), lo), hi))
    while x0 < hi and up(x0) > 1:
        x0 += 1
    while x0 > lo and up(x0 - 1) < 1:
        x0 -= 1
    total = mp.mpf(1)
    for step in (1, -1):
        t, x = mp.mpf(1), x0
        while (x < hi) if step > 0 else (x > lo):
            if step > 0:
                t *= up(x)
            else:
                t /= up(x - 1)
            x += step
            total += t
            if t < mp.mpf(10) ** -40:
                break
    return log_term(x0) + mp.log(total)


def test_estimated_rates_log_likelihood_against_thirty_digit_sums():
    # 10^5 paired rows, 4.3 x 10^6 metric ratings (eps P log M = 4.1e-10, above engine._REF_FROM):
    # the log-gamma pairs as changes from a reference point, log L(T) - log L(T_0) within 5e-12
    # of 30-digit sums around the weights' peak (measured: 2.2e-12; the pairs taken whole,
    # each of size (a - 1) log z, were 3.8e-10 off)
    mp = pytest.importorskip("mpmath")
    hp, ht, k, M, tp, fn, tn, fp = 24, 34, 3879359, 4277908, 55777, 29855, 23039, 13241
    a1, b1, a2, b2 = tp + 1, fn + 1, fp + 1, tn + 1
    lik = engine._MetricLikelihood(k, M, engine.RateDistribution(a1, b1),
                                   engine.RateDistribution(a2, b2))
    t_c = int(round(alpha_posterior(hp, ht, k, M, tp, fn, tn, fp).mean() * (M + ht + 2))) - hp - 1
    Ts = [t_c + o for o in (0, 1, 2, 3, 50, -70, 300, -400)]
    got = lik(np.array(Ts, dtype=float))
    with mp.workdps(35):
        exact = [_thirty_digit_log_likelihood(mp, T, k, M, a1, b1, a2, b2) for T in Ts]
        ref = np.array([float(v - exact[0]) for v in exact])
    err = np.abs((got - got[0]) - ref)
    assert err.max() <= 5e-12, err


def test_known_rate_log_likelihood_against_thirty_digit_sums():
    # L(T) = sum_x Binom(x; T, rho) Binom(k - x; M - T, 1 - eta) summed in 30 digits outwards from
    # its largest term by the terms' ratios: within 1e-12 and two units in the last place of
    # log L at 10^6 ratings (measured: 2e-14 near the peak; with log-gamma functions of the counts
    # 2e-11 to 1e-9 off)
    mp = pytest.importorskip("mpmath")
    k, M, p, q = 560000, 10**6, 0.8, 0.3
    lik = engine._MetricLikelihood(k, M, engine.RateDistribution(known=p),
                                   engine.RateDistribution(known=q))
    Ts = [497000, 520000, 521234]   # the weights' peak near 520,000
    got = lik(np.array(Ts, dtype=float))
    with mp.workdps(30):
        pm, qm = mp.mpf(p), mp.mpf(q)
        r = pm / (1 - pm) * (1 - qm) / qm
        for T, g in zip(Ts, got.tolist(), strict=True):
            n = M - T
            lo, hi = max(0, k - n), min(T, k)
            x0 = int(min(max(round(T * p + (k - T * p - n * q) * (T * p * (1 - p))
                                   / (T * p * (1 - p) + n * q * (1 - q))), lo), hi))
            top = (mp.loggamma(T + 1) - mp.loggamma(x0 + 1) - mp.loggamma(T - x0 + 1)
                   + x0 * mp.log(pm) + (T - x0) * mp.log(1 - pm) + mp.loggamma(n + 1)
                   - mp.loggamma(k - x0 + 1) - mp.loggamma(n - k + x0 + 1)
                   + (k - x0) * mp.log(qm) + (n - k + x0) * mp.log(1 - qm))
            total = mp.mpf(1)
            for step in (1, -1):
                t, x = mp.mpf(1), x0
                while lo < x + (step < 0) and x + (step > 0) <= hi:
                    if step > 0:
                        t *= mp.mpf(T - x) / (x + 1) * mp.mpf(k - x) / (n - k + x + 1) * r
                    else:
                        t /= mp.mpf(T - x + 1) / x * mp.mpf(k - x + 1) / (n - k + x) * r
                    x += step
                    total += t
                    if t < mp.mpf(10) ** -35:
                        break
            assert abs(g - float(top + mp.log(total))) <= 1e-12 + 4e-16 * abs(g), T
