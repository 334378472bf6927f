"""Many groups at once: the batched and restructured computations against direct ones."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, special

from binaryeval.binary import rates as rates_module


def _direct_rates(*, level=0.95, **case):
    """The (X, U) mixture term by term: beta functions on the whole grid, each component's
    incomplete beta function, Brent's method (independent of the tables and Newton steps).

    The distribution function sums the components of weight above 1e-30: those below hold less
    than 1e-20 of the mass (asserted), which moves it by less than that anywhere (each component's
    is within [0, 1]) and the interval ends by far less than the tests' 1e-11; the mean sums all.
    """
    w, comps = _direct_terms(**case)
    keep = w > 1e-30
    assert w[~keep].sum() < 1e-20
    tail = (1 - level) / 2
    out = {}
    for name, (a, b) in comps.items():
        def cdf(t, a=a[keep], b=b[keep], w=w[keep]):
            return float((w * special.betainc(a, b, t)).sum())
        mean = float((w * a / (a + b)).sum())
        out[name] = (mean, *(optimize.brentq(lambda t, p=p: cdf(t) - p, 1e-300, 1 - 1e-16,
                                             xtol=1e-14) for p in (tail, 1 - tail)))
    return out


def _direct_terms(*, A, B, k, M, tp, fn, tn, fp, rate_prior, rho=None, eta=None):
    """The weights of every (X, U) term (normalised) and each estimated rate's components."""
    ar, br = rate_prior
    X = np.arange(k + 1.0)[None, :]
    U = np.arange(M - k + 1.0)[:, None]
    lw = (special.gammaln(k + 1) - special.gammaln(X + 1) - special.gammaln(k - X + 1)
          + special.gammaln(M - k + 1) - special.gammaln(U + 1) - special.gammaln(M - k - U + 1)
          + special.betaln(A + X + U, B + M - X - U))
    comps = {}
    if rho is None:
        lw = lw + special.betaln(ar + tp + X, br + fn + U)
        comps["rho"] = (ar + tp + X + 0 * U, br + fn + U + 0 * X)
    else:
        lw = lw + X * np.log(rho) + U * np.log1p(-rho)
    if eta is None:
        lw = lw + special.betaln(ar + tn + M - k - U, br + fp + k - X)
        comps["eta"] = (ar + tn + M - k - U + 0 * X, br + fp + k - X + 0 * U)
    else:
        lw = lw + (M - k - U) * np.log(eta) + (k - X) * np.log1p(-eta)
    w = np.exp(lw - lw.max())
    w /= w.sum()
    return w, comps


@pytest.mark.parametrize("case", [
    dict(A=61, B=41, k=131, M=220, tp=51, fn=9, tn=32, fp=8, rate_prior=(1, 1)),
    dict(A=31, B=21, k=22, M=40, tp=5, fn=9, tn=30, fp=8, rate_prior=(1, 1)),
    dict(A=3, B=2, k=90, M=150, tp=1, fn=0, tn=2, fp=1, rate_prior=(0.5, 2)),
    dict(A=61, B=41, k=131, M=220, tp=51, fn=9, tn=32, fp=8, rate_prior=(1, 1), eta=0.8),
    dict(A=61, B=41, k=131, M=220, tp=51, fn=9, tn=32, fp=8, rate_prior=(1, 1), rho=0.9),
    dict(A=1, B=1, k=0, M=100, tp=5, fn=5, tn=5, fp=5, rate_prior=(1, 1)),
    dict(A=1, B=1, k=100, M=100, tp=5, fn=5, tn=5, fp=5, rate_prior=(1, 1)),
    dict(A=500, B=400, k=200, M=450, tp=300, fn=20, tn=200, fp=30, rate_prior=(1, 1),
         level=0.5),
    # more terms than every-term summation takes, zoomed to a lattice of unit steps (many
    # paired rows: the weights spread less than eight terms); once an UnboundLocalError
    dict(A=301, B=251, k=560, M=1100, tp=900, fn=100, tn=900, fp=100, rate_prior=(1, 1)),
    # a rate prior below 1 with no paired row on that side: the density is unbounded at 0,
    # where Newton's first steps are tiny; the lower end was once 1.5e-151 instead of 0.0056
    dict(A=16.5, B=11, k=57, M=150, tp=3, fn=2, tn=0, fp=0, rate_prior=(0.5, 2)),
])
def test_model_rates_tables_and_newton_equal_the_term_by_term_mixture(case):
    # the log-gamma tables (grid and kernel) and the safeguarded Newton root search give the
    # mixture's mean and interval ends of a term-by-term sum with Brent's method
    r, e, _ = rates_module.model_rates(**case)
    want = _direct_rates(**case)
    for got, name in ((r, "rho"), (e, "eta")):
        if name not in want:
            assert got.known
            continue
        mean, lo, hi = want[name]
        assert got.mean == pytest.approx(mean, abs=1e-12)
        assert got.lower == pytest.approx(lo, abs=1e-11)
        assert got.upper == pytest.approx(hi, abs=1e-11)


def test_the_log_weight_tables_equal_the_beta_functions():
    args = dict(A=40.5, B=30, k=70, M=150, Ar=21, Br=10, Ae=26, Be=12)
    X, U = np.arange(71.0), np.arange(81.0)
    for rho, eta in ((None, None), (0.8, None), (None, 0.7), (0.0, None), (None, 1.0)):
        full = rates_module._log_weights_full(**args, rho=rho, eta=eta)
        direct = rates_module._log_weights(X, U, **args, rho=rho, eta=eta)
        finite = np.isfinite(direct)
        assert np.array_equal(finite, np.isfinite(full))
        # the two differ by a constant at most (the grid's normalisation absorbs it)
        diff = full[finite] - direct[finite]
        assert np.ptp(diff) < 1e-10


def test_the_row_mixture_from_a_reference_point_equals_the_term_by_term_cdf():
    # the telescoping CDF and density evaluated from tabulated terms at a reference point (two
    # matrix-vector products a point) against a fresh pass over the terms at every point,
    # and against the components' own incomplete beta functions and densities
    rng = np.random.default_rng(3)
    W = rng.random((40, 60)) ** 4
    W /= W.sum()
    a0, b = 150.0, 30.0 + np.arange(40.0)
    ai = a0 + np.arange(60.0)
    lkern = -np.log(ai)[None, :] - special.betaln(ai[None, :], b[:, None])
    tails = np.cumsum(W[:, ::-1], axis=1)[:, ::-1]
    tails = np.concatenate([tails[:, 1:], np.zeros((40, 1))], axis=1)
    mix = rates_module._RowMixture(a0, b, W, tails, lkern, ai)
    A, Bm = ai[None, :] + 0 * b[:, None], b[:, None] + 0 * ai[None, :]
    from scipy import stats
    for t in np.r_[np.linspace(0.7, 0.9, 21), 0.8 + 1e-9, 0.5, 0.95, 0.8]:
        cdf, pdf = mix(t)
        fresh = rates_module._cdf_rows(t, a0, b, W, tails, lkern, ai, density=True)
        assert cdf == pytest.approx(fresh[0], abs=1e-14)
        assert pdf == pytest.approx(fresh[1], rel=1e-12, abs=1e-12)
        assert cdf == pytest.approx(float((W * special.betainc(A, Bm, t)).sum()), abs=1e-13)
        assert pdf == pytest.approx(float((W * stats.beta.pdf(t, A, Bm)).sum()), rel=1e-11,
                                    abs=1e-12)


def test_prob_greater_matrix_is_the_comparisons_matrix_without_the_intervals():
    import binaryeval as be

    counts = {g: {"human_pos": hp, "human_total": 100, "metric_pos": mp, "metric_total": 900,
                  "tp": 40, "fn": 8, "tn": 30, "fp": 6}
              for g, hp, mp in (("A", 70, 600), ("B", 55, 520), ("C", 62, 480), ("D", 30, 300))}
    res = be.fit_counts(counts)
    direct = res.prob_greater_matrix()
    via = res.compare().matrix()
    # the same quadrature: equal numbers, names and order
    pd.testing.assert_frame_equal(direct, via, check_exact=False, rtol=0, atol=1e-15)
    given = res.prob_greater_matrix(order=["D", "C", "B", "A"])
    assert list(given.index) == ["D", "C", "B", "A"] == list(given.columns)
    assert given.loc["A", "D"] == direct.loc["A", "D"]
    off = ~np.eye(4, dtype=bool)
    np.testing.assert_allclose((direct.to_numpy() + direct.to_numpy().T)[off], 1.0, atol=1e-12)


@pytest.mark.parametrize("values", [
    pd.Categorical(["b", "a", None, "b", "c"], categories=["c", "b", "a", "unused"]),
    pd.Categorical([1, 2, None, 1, 10]),
    pd.Categorical.from_codes([0, 1, 2, 1, -1, 0], categories=pd.Index([1, "1", 2.5],
                                                                       dtype=object)),
    pd.Categorical([None, None]),
])
def test_a_categorical_groups_column_codes_as_its_rows_text(values):
    # the categorical path (the categories' text once) against the text of every row's own
    # value (pandas' astype(str) of an integer categorical with a missing value would write
    # "1.0", so a partition with a missing value would name the group differently)
    from binaryeval._partition import _factorize
    from binaryeval.data import label_text

    series = pd.Series(values)
    codes, uniques = _factorize(series)
    rows = pd.Series(list(values), dtype=object)
    want_codes, want_uniques = pd.factorize(label_text(rows))
    np.testing.assert_array_equal(codes, want_codes)
    assert uniques.tolist() == list(want_uniques)


def test_compare_of_many_groups_points_once_at_the_matrix_without_intervals(monkeypatch):
    # above MANY_PAIRS pairs compare() says once, at the caller's line, that
    # prob_greater_matrix() is the fast path; its matrix is compare().matrix() (checked above)
    import warnings

    import binaryeval as be
    from binaryeval.binary import result as result_module
    from binaryeval.errors import BinaryEvalWarning

    counts = {g: {"human_pos": hp, "human_total": 100}
              for g, hp in (("A", 70), ("B", 55), ("C", 62), ("D", 30))}
    res = be.fit_counts(counts)
    monkeypatch.setattr(result_module, "MANY_PAIRS", 5)   # 4 groups: 6 pairs
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        comp = res.compare()
    mine = [w for w in caught if issubclass(w.category, BinaryEvalWarning)]
    assert len(mine) == 1
    assert mine[0].filename == __file__
    text = str(mine[0].message)
    assert "prob_greater_matrix()" in text and "4 groups" in text and "6 pairs" in text
    assert len(comp.to_frame()) == 6
    monkeypatch.setattr(result_module, "MANY_PAIRS", 6)   # not more than the limit: silent
    with warnings.catch_warnings():
        warnings.simplefilter("error", BinaryEvalWarning)
        res.compare()


def _random_designs(n, seed):
    """Random designs with the edges a fit meets: tp or tn zero, no paired rows, tiny groups,
    no metric-only positives or negatives, known rates, priors below 1."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        M = int(rng.choice([1, 2, 3, 7, 30, 80, 150]))
        k = int(rng.integers(0, M + 1))
        paired = rng.multinomial(int(rng.choice([0, 1, 5, 40])), rng.dirichlet(np.ones(4)))
        tp, fn, tn, fp = (int(v) for v in paired)
        if i % 5 == 1:
            tp = 0
        if i % 5 == 2:
            tn = 0
        hp = int(rng.integers(0, 30))
        prior = (0.5, 2.0) if i % 7 == 3 else (1.0, 1.0)
        case = dict(A=prior[0] + hp + tp + fn, B=prior[1] + int(rng.integers(0, 30)) + tn + fp,
                    k=k, M=M, tp=tp, fn=fn, tn=tn, fp=fp, rate_prior=prior)
        if i % 11 == 4:
            case["eta"] = float(rng.uniform(0.6, 0.95))
        if i % 13 == 6:
            case["rho"] = float(rng.uniform(0.6, 0.95))
        out.append(case)
    out += [dict(A=2, B=1, k=1, M=1, tp=0, fn=0, tn=0, fp=0, rate_prior=(1, 1)),
            dict(A=1, B=1, k=0, M=1, tp=0, fn=3, tn=0, fp=2, rate_prior=(1, 1)),
            dict(A=1, B=1, k=150, M=150, tp=20, fn=0, tn=0, fp=20, rate_prior=(1, 1)),
            dict(A=1, B=1, k=0, M=150, tp=0, fn=20, tn=20, fp=0, rate_prior=(1, 1))]
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_model_rates_on_random_and_edge_designs_equal_the_term_by_term_mixture(seed):
    # the pruned box, the in-place kernel tables and the Newton stopping rule against the
    # independent term-by-term mixture with Brent's method (every term, no tables): means to
    # 1e-12, interval ends to 1e-10
    for case in _random_designs(30, seed):
        _as_brent(rates_module.model_rates(**case), case, tol=1e-10)


def test_the_pruned_box_leaves_out_less_than_its_stated_bound():
    # every term outside the box is below 1e-20 of the largest: together below 1e-20 times
    # the number of terms (the docstring's bound), on designs whose weights spread widely
    for args in (dict(A=66, B=21, k=509, M=896, Ar=55, Br=12, Ae=32, Be=9),
                 dict(A=1, B=1, k=300, M=400, Ar=1, Br=1, Ae=1, Be=1),
                 dict(A=200, B=5, k=20, M=480, Ar=3, Br=40, Ae=30, Be=2)):
        lw = rates_module._log_weights_full(**args, rho=None, eta=None)
        X, U, w = rates_module._box(lw)
        full = np.exp(lw - lw.max())
        full /= full.sum()
        inside = full[int(U[0]):int(U[-1]) + 1, int(X[0]):int(X[-1]) + 1].sum()
        assert -1e-15 <= 1.0 - inside <= 1e-20 * lw.size + 1e-15
        np.testing.assert_allclose(w, full[int(U[0]):int(U[-1]) + 1,
                                           int(X[0]):int(X[-1]) + 1] / inside, rtol=1e-12)


# -- the rates' density on a Chebyshev grid --------------------------------------------------
def _chebyshev_calls(monkeypatch):
    """Count the rates that took the Chebyshev grid (``True``) or fell back (``False``)."""
    calls = []
    original = rates_module._chebyshev_rate

    def counted(*args, **kwargs):
        got = original(*args, **kwargs)
        calls.append(got is not None)
        return got

    monkeypatch.setattr(rates_module, "_chebyshev_rate", counted)
    return calls


def _groups_of_1000(n, seed):
    """Counts of groups of 1,000 ratings, 10 % of them paired (the scale benchmark's shape)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        adequate = rng.random(1000) < rng.uniform(0.3, 0.85)
        metric = np.where(adequate, rng.random(1000) < 0.85, rng.random(1000) < 0.2)
        paired = rng.random(1000) < 0.1
        y, m = adequate[paired], metric[paired]
        tp, fn = int((y & m).sum()), int((y & ~m).sum())
        tn, fp = int((~y & ~m).sum()), int((~y & m).sum())
        out.append(dict(A=1 + tp + fn, B=1 + tn + fp, k=int(metric[~paired].sum()),
                        M=int((~paired).sum()), tp=tp, fn=fn, tn=tn, fp=fp,
                        rate_prior=(1, 1)))
    return out


def test_the_chebyshev_series_helpers_equal_numpys():
    from numpy.polynomial import chebyshev

    rng = np.random.default_rng(11)
    for n in (5, 33, 65):
        x = np.cos(np.pi * np.arange(n) / (n - 1))
        values = np.exp(-3 * (x - 0.2) ** 2) * (1 + rng.random() * x)
        c = rates_module._cheb_coefficients(values)
        # interpolation through the n points: numpy's least squares of degree n - 1
        np.testing.assert_allclose(c, chebyshev.chebfit(x, values, n - 1), atol=1e-12)
        np.testing.assert_allclose(rates_module._cheb_integral(c),
                                   chebyshev.chebint(c, lbnd=-1), atol=1e-14)
        theta = np.linspace(0, np.pi, 7)
        np.testing.assert_allclose(np.cos(np.outer(theta, np.arange(n))) @ c,
                                   chebyshev.chebval(np.cos(theta), c), atol=1e-13)


def test_the_scaled_kernel_equals_one_exponential():
    # w exp(H[i + j] + C[i] + R[j]) from three tilted factors, and from one exponential when
    # the factors would be too large, against the exponential of the sum term by term
    rng = np.random.default_rng(5)
    nu, nx = 40, 30
    lw = -0.01 * (np.arange(nu)[:, None] - 17.0) ** 2 - 0.02 * (np.arange(nx)[None, :] - 9) ** 2
    w = np.exp(lw)
    t, i, j = np.arange(nu + nx - 1.0), np.arange(nx), np.arange(nu)
    for q in (0.0, 0.25):
        # q > 0: each table spans far more than e^230, their sum (a cross term) does not
        H = np.cumsum(rng.normal(size=t.size)) + 3 * t + q * (t - 26) ** 2
        C = rng.normal(size=nx) - q * (i - 9) ** 2
        R = rng.normal(size=nu) - q * (j - 17) ** 2
        want = np.exp(lw + np.lib.stride_tricks.sliding_window_view(H, nx) + C[None, :]
                      + R[:, None])
        np.testing.assert_allclose(rates_module._scaled(w, lw, H, C, R), want, rtol=1e-12)


def _as_brent(got, case, tol):
    """rho and eta against the term-by-term mixture solved by Brent's method: means within
    1e-12, interval ends within ``tol`` (a known rate as given)."""
    want = _direct_rates(**case)
    for rate, name in zip(got[:2], ("rho", "eta"), strict=True):
        if name not in want:
            assert rate.known and rate.mean == case[name]
            continue
        mean, lo, hi = want[name]
        assert rate.mean == pytest.approx(mean, abs=1e-12), case
        assert rate.lower == pytest.approx(lo, abs=tol), case
        assert rate.upper == pytest.approx(hi, abs=tol), case


def _marginals_term_by_term(case, args, px, pu):
    """The tables' marginals of X and U against the weights summed term by term (1e-10)."""
    X, U = np.arange(case["k"] + 1.0), np.arange(case["M"] - case["k"] + 1.0)
    lw = rates_module._log_weights(X, U, **args)
    w = np.exp(lw - special.logsumexp(lw))
    for got, want in ((px, w.sum(axis=0)), (pu, w.sum(axis=1))):
        big = want > 1e-200
        np.testing.assert_allclose(got[big], want[big], rtol=1e-10)


def _same_rates(got, want, mean_tol=1e-12, tol=1e-11):
    """Two ways' rho and eta alike: means within ``mean_tol``, sds and interval ends ``tol``."""
    for g, w in zip(got, want, strict=True):
        assert g.mean == pytest.approx(w.mean, abs=mean_tol)
        assert g.sd == pytest.approx(w.sd, abs=tol)
        assert g.lower == pytest.approx(w.lower, abs=tol)
        assert g.upper == pytest.approx(w.upper, abs=tol)


def test_model_rates_chebyshev_grid_and_newton_agree_on_groups_of_1000(monkeypatch):
    # two independent ways to the same mixture on groups the size of the scale benchmark's:
    # the density on a Chebyshev grid (moments by Clenshaw-Curtis, ends as roots of the
    # interpolant's integral) against the Hankel moments and Newton's method on the
    # telescoping distribution function (incomplete beta functions row by row)
    cases = _groups_of_1000(6, seed=4)
    calls = _chebyshev_calls(monkeypatch)
    grid = [rates_module.model_rates(**case) for case in cases]
    assert calls and all(calls)      # every rate took the grid
    monkeypatch.setattr(rates_module, "_chebyshev_rate", lambda *a, **k: None)
    newton = [rates_module.model_rates(**case) for case in cases]
    for g, n in zip(grid, newton, strict=True):
        # the grid's alpha sums every term (the tables' marginals), Newton's the box's
        assert g[2] == pytest.approx(n[2], abs=1e-14)
        _same_rates(g[:2], n[:2])


def test_model_rates_chebyshev_grid_equals_the_term_by_term_mixture(monkeypatch):
    # the grid on designs that take it, against Brent's method on the sum of every
    # component's incomplete beta function; and the random designs above take it often
    calls = _chebyshev_calls(monkeypatch)
    for case in (dict(A=30, B=12, k=190, M=300, tp=25, fn=4, tn=9, fp=2, rate_prior=(1, 1)),
                 dict(A=12, B=30, k=70, M=260, tp=9, fn=3, tn=25, fp=3, rate_prior=(1, 1))):
        before = len(calls)
        r, e, _ = rates_module.model_rates(**case)
        assert calls[before:] == [True, True]
        want = _direct_rates(**case)
        for got, name in ((r, "rho"), (e, "eta")):
            mean, lo, hi = want[name]
            assert got.mean == pytest.approx(mean, abs=1e-12)
            assert got.lower == pytest.approx(lo, abs=1e-11)
            assert got.upper == pytest.approx(hi, abs=1e-11)
    del calls[:]
    for case in _random_designs(30, 0):
        rates_module.model_rates(**case)
    assert sum(calls) >= 10 and not all(calls)


# -- every term from one-dimensional tables (no exponential of a two-dimensional array) -------
def _table_spy(monkeypatch, answers: list | None = None):
    """Record whether the tables' way answered both rates of each call (and its answers)."""
    calls = []
    original = rates_module._table_rates

    def counted(*args, **kwargs):
        got = original(*args, **kwargs)
        calls.append(got is not None and got[0] is not None and got[1] is not None)
        if answers is not None:
            answers.append(got)
        return got

    monkeypatch.setattr(rates_module, "_table_rates", counted)
    return calls


def _box_path(monkeypatch, case):
    """model_rates on the box of the whole grid's log weights (the tables' way switched off)."""
    with monkeypatch.context() as m:
        m.setattr(rates_module, "_TABLES", False)
        return rates_module.model_rates(**case)


def _args(case):
    ar, br = case["rate_prior"]
    return dict(A=case["A"], B=case["B"], k=case["k"], M=case["M"], Ar=ar + case["tp"],
                Br=br + case["fn"], Ae=ar + case["tn"], Be=br + case["fp"],
                rho=case.get("rho"), eta=case.get("eta"))


def test_the_tables_marginals_equal_the_sums_of_every_beta_function_term():
    # the correlations of the tilted tables against the whole grid of beta functions
    # (rates_module._log_weights, term by term), normalised in log space
    for case in _groups_of_1000(2, seed=8) + [
            dict(A=30, B=12, k=190, M=300, tp=25, fn=4, tn=9, fp=2, rate_prior=(1, 1)),
            dict(A=3, B=2, k=90, M=150, tp=1, fn=0, tn=2, fp=1, rate_prior=(0.5, 2)),
            dict(A=61, B=41, k=131, M=220, tp=51, fn=9, tn=32, fp=8, rate_prior=(1, 1),
                 eta=0.8)]:
        args = _args(case)
        tables = rates_module._log_weight_tables(**args)
        px, pu, norm, scaled = rates_module._table_marginals(tables, args)
        _marginals_term_by_term(case, args, px, pu)
        assert px.sum() == pytest.approx(1.0, abs=1e-14)
        # the scaled tables: the same log weights less a constant, norm the log of their sum
        full = rates_module._log_weights_full(**args)
        grid = rates_module._log_weights_full(**args, tables=scaled)
        finite = np.isfinite(full)
        assert np.array_equal(finite, np.isfinite(grid))
        assert np.ptp(grid[finite] - full[finite]) < 1e-9
        assert norm == pytest.approx(float(special.logsumexp(grid)), abs=1e-12)


def test_the_trimmed_sides_leave_out_less_than_their_stated_bound():
    # at most _TRIM of the marginal mass at each end, so the box keeps all but 4 _TRIM
    rng = np.random.default_rng(2)
    for p in (rng.random(300) ** 30, np.exp(-0.5 * ((np.arange(400) - 60) / 18.0) ** 2),
              np.r_[1.0, np.zeros(5)], np.ones(1)):
        p = p / p.sum()
        lo, hi = rates_module._trim(p)
        assert 0 <= lo < hi <= p.size
        assert p[:lo].sum() <= rates_module._TRIM and p[hi:].sum() <= rates_module._TRIM
        # and no longer run would do: one more entry at either end holds more
        if lo + 1 < hi:
            assert p[:lo + 1].sum() > rates_module._TRIM or p[hi - 1:].sum() > rates_module._TRIM
    for case in _groups_of_1000(2, seed=9):
        args = _args(case)
        px, pu, _, _ = rates_module._table_marginals(rates_module._log_weight_tables(**args),
                                                     args)
        (r0, r1), (c0, c1) = rates_module._trim(pu), rates_module._trim(px)
        X, U = np.arange(case["k"] + 1.0), np.arange(case["M"] - case["k"] + 1.0)
        lw = rates_module._log_weights(X, U, **args)
        w = np.exp(lw - lw.max())
        outside = w.copy()
        outside[r0:r1, c0:c1] = 0.0
        assert 0 < outside.sum() / w.sum() <= 4 * rates_module._TRIM
        # the box is smaller than the box of every term within 1e-20 of the largest
        Xb, Ub, _ = rates_module._box(lw)
        assert (r1 - r0) * (c1 - c0) < Xb.size * Ub.size


def test_the_table_density_equals_the_sum_of_every_components_density():
    # each rate's density at points across its range, from the tables and one Hankel matrix,
    # against the weights times scipy's beta densities term by term
    from scipy import stats

    case = _groups_of_1000(1, seed=10)[0]
    args = _args(case)
    px, pu, norm, scaled = rates_module._table_marginals(rates_module._log_weight_tables(**args),
                                                         args)
    (r0, r1), (c0, c1) = rates_module._trim(pu), rates_module._trim(px)
    X, U = np.arange(c0, c1, dtype=float), np.arange(r0, r1, dtype=float)
    # the weights from the beta functions term by term, normalised over the whole square
    lw = rates_module._log_weights(X, U, **args)
    lw_all = rates_module._log_weights(np.arange(case["k"] + 1.0),
                                       np.arange(case["M"] - case["k"] + 1.0), **args)
    w = np.exp(lw - special.logsumexp(lw_all))
    ex, eu = float(px @ np.arange(px.size)), float(pu @ np.arange(pu.size))
    k, M = case["k"], case["M"]
    for name, a, b in (("rho", args["Ar"] + X[None, :], args["Br"] + U[:, None]),
                       ("eta", args["Ae"] + M - k - U[:, None], args["Be"] + k - X[None, :])):
        mean = float((w * a / (a + b)).sum() / w.sum())
        dens = rates_module._table_density(name, X, U, args, scaled, norm, mean, (ex, eu))
        ts = mean + np.linspace(-0.2, 0.2, 9)
        ts = ts[(ts > 0) & (ts < 1)]
        got = np.exp(dens(np.log(ts), np.log1p(-ts)))
        want = np.array([float((w * stats.beta.pdf(t, a, b)).sum()) for t in ts])
        # both carry each term's rounding of log-gamma values some 3,000 each (1e-13 relative
        # and more in the far tails), the reference's normaliser too (about 5e-13)
        ratio = got / want
        assert np.all(np.abs(ratio - 1.0) < 1e-12)
        assert np.ptp(ratio) < 5e-13


def test_the_log_beta_function_is_exact_to_a_few_ulps():
    # a few ulps: against the factorials' ratio in 50-digit decimals (integers), and scipy's
    # betaln where its arguments are small (no cancellation there)
    from decimal import Decimal, getcontext
    from math import factorial

    getcontext().prec = 50
    for a, b in ((400, 80), (80, 400), (3, 402), (15, 15), (14, 16), (16, 900), (1500, 1600),
                 (2, 2000), (30, 100_000)):
        exact = (Decimal(factorial(a - 1) * factorial(b - 1)) / Decimal(factorial(a + b - 1))).ln()
        got = rates_module._log_beta(float(a), float(b))
        assert abs(Decimal(got) - exact) <= Decimal(1e-15) * max(1, abs(exact)), (a, b)
    # the differences of log-gamma functions from a reference, against decimals: each within
    # a few ulps of its own size (at least 30), none with the rounding of the reference's
    # log-gamma value (some 2,000: 2e-13 common to all)
    x = np.array([15.0, 16.0, 40.0, 399.0, 400.0, 401.0, 650.0, 700.0, 1200.0, 3.0, 1.0])
    x0 = 401.0
    got = rates_module._lgamma_diff(x, x0)
    ref = Decimal(factorial(int(x0) - 1)).ln()
    for xi, gi in zip(x, got, strict=True):
        exact = Decimal(factorial(int(xi) - 1)).ln() - ref if xi > 1 else -ref
        assert abs(Decimal(gi) - exact) <= Decimal(1e-15) * max(30, abs(exact)), xi
    for a, b in ((0.5, 2.0), (3.5, 9.0), (12.0, 0.25)):
        assert rates_module._log_beta(a, b) == pytest.approx(float(special.betaln(a, b)),
                                                              rel=1e-15)


def test_model_rates_from_the_tables_equal_the_box_of_every_term_on_groups_of_1000(monkeypatch):
    # the tables' way (marginals by correlation, the trimmed box, the density from one
    # Hankel matrix) against the box of the whole grid (the every-term path before it,
    # tested against Brent's method above)
    calls = _table_spy(monkeypatch)
    for case in _groups_of_1000(8, seed=6):
        before = len(calls)
        got = rates_module.model_rates(**case)
        assert calls[before:] == [True]
        want = _box_path(monkeypatch, case)
        assert got[2] == pytest.approx(want[2], abs=1e-14)
        _same_rates(got[:2], want[:2])


def test_model_rates_from_the_tables_equal_the_term_by_term_mixture(monkeypatch):
    # against Brent's method on every component's incomplete beta function (independent of
    # the tables), on designs that take the tables' way, with a known rate among them
    calls = _table_spy(monkeypatch)
    for case in (dict(A=30, B=12, k=190, M=300, tp=25, fn=4, tn=9, fp=2, rate_prior=(1, 1)),
                 dict(A=12, B=30, k=70, M=260, tp=9, fn=3, tn=25, fp=3, rate_prior=(1, 1)),
                 dict(A=61, B=41, k=131, M=220, tp=51, fn=9, tn=32, fp=8, rate_prior=(1, 1),
                      rho=0.9),
                 _groups_of_1000(1, seed=7)[0]):
        before = len(calls)
        got = rates_module.model_rates(**case)
        assert calls[before:] == [True]
        _as_brent(got, case, tol=1e-11)


@pytest.mark.parametrize("seed", [0, 1])
def test_random_and_edge_designs_take_the_tables_or_fall_back_to_the_box(monkeypatch, seed):
    # the edges a fit meets (tp or tn zero, no paired rows, one metric-only rating, no
    # metric-only positives or negatives, known rates, a prior below 1): where the tables'
    # checks pass the answer is the box's, where one fails the box answers
    answers: list = []
    calls = _table_spy(monkeypatch, answers)
    partial = 0
    for case in _random_designs(30, seed):
        got = rates_module.model_rates(**case)
        want = _box_path(monkeypatch, case)
        tables = answers[-1]
        if tables is None or (tables[0] is None and tables[1] is None):
            # the marginals' check, or both rates' grids failed: the box's answer throughout
            assert got == want
            continue
        assert got[2] == pytest.approx(want[2], abs=1e-13)
        for g, w, t in zip(got[:2], want[:2], tables[:2], strict=True):
            if t is None:
                # this rate failed the tables' checks: the box's answer, as it is
                partial += 1
                assert g == w
                continue
            assert g.known == w.known
            assert g.mean == pytest.approx(w.mean, abs=1e-12)
            assert g.lower == pytest.approx(w.lower, abs=1e-10)
            assert g.upper == pytest.approx(w.upper, abs=1e-10)
    assert sum(calls) >= 10 and not all(calls)
    assert partial >= 1


def test_a_failed_check_of_the_tables_falls_back_to_the_box(monkeypatch):
    # the underflow check failing (its floor raised above any sum), and the grid's checks
    # failing, send the group to the box of the whole grid: the same answer as without the
    # tables
    case = _groups_of_1000(1, seed=12)[0]
    want = _box_path(monkeypatch, case)
    calls = _table_spy(monkeypatch)
    monkeypatch.setattr(rates_module, "_UNDERFLOW", 1e4)
    assert rates_module.model_rates(**case) == want
    assert calls == [False]
    monkeypatch.setattr(rates_module, "_UNDERFLOW", -600.0)
    monkeypatch.setattr(rates_module, "_MISSING_TOL", -1.0)
    got = rates_module.model_rates(**case)
    assert calls == [False, False]
    monkeypatch.setattr(rates_module, "_TABLES", False)
    assert got == rates_module.model_rates(**case)


def test_a_known_rate_the_data_contradict_takes_the_aligned_tilt(monkeypatch):
    # a known eta far from what the data say: the expected split is far from the weights', the
    # first tilt leaves the sum below its floor, the tilt that lines the tables up answers
    cases = [dict(A=107.0, B=28.0, k=701, M=893, tp=79, fn=8, tn=20, fp=0, rate_prior=(1, 1),
                  eta=0.612782360309549),
             dict(A=14.0, B=7.0, k=877, M=1000, tp=0, fn=0, tn=0, fp=0, rate_prior=(1, 1),
                  eta=0.9494132442713119)]
    for case in cases:
        args = _args(case)
        tables = rates_module._log_weight_tables(**args)
        s = rates_module._aligned_tilt(*tables)
        fx, gu, ht = tables

        def gap(s, fx=fx, gu=gu, ht=ht):
            return (np.argmax(fx + s * np.arange(fx.size)) + np.argmax(gu + s * np.arange(gu.size))
                    - np.argmax(ht - s * np.arange(ht.size)))

        # the largest entries cross there (the gap may jump: the tables need not be concave)
        assert gap(s - 1e-6) <= 0 <= gap(s + 1e-6)
        px, pu, _, _ = rates_module._table_marginals(tables, args)
        _marginals_term_by_term(case, args, px, pu)
        calls = _table_spy(monkeypatch)
        got = rates_module.model_rates(**case)
        want = _box_path(monkeypatch, case)
        assert calls == [True]
        assert got[1] == want[1] and got[1].known
        assert got[0].mean == pytest.approx(want[0].mean, abs=1e-12)
        assert got[0].lower == pytest.approx(want[0].lower, abs=1e-11)
        assert got[0].upper == pytest.approx(want[0].upper, abs=1e-11)


def test_a_skewed_tail_beyond_ten_sds_takes_a_wider_grid_from_the_tables(monkeypatch):
    # eta of this group of 1,000 ratings (one false positive among the paired rows) has a long
    # lower tail: 7.7e-12 of its mass lies more than 10 guessed sds below the guessed mean, so
    # the first grid fails check (ii); the grid reaching 14 sds passes, and the tables answer
    # both rates (before, eta went to the box of the whole grid)
    case = dict(A=78.0, B=27.0, k=598, M=897, tp=63, fn=14, tn=25, fp=1, rate_prior=(1, 1))
    args = _args(case)
    kappa = _direct_rates(**case)["eta"]
    seen = []
    original = rates_module._chebyshev_rate

    def spy(name, *a, **kwargs):
        failed = kwargs.get("failed")
        got = original(name, *a, **kwargs)
        seen.append((name, kwargs.get("reach", rates_module._GUESS_REACH),
                     None if failed is None else list(failed), got is not None))
        return got

    calls = _table_spy(monkeypatch)
    monkeypatch.setattr(rates_module, "_chebyshev_rate", spy)
    got = rates_module.model_rates(**case)
    assert calls == [True]
    assert seen == [("rho", 10.0, [], True), ("eta", 10.0, ["mass"], False),
                    ("eta", 14.0, None, True)]
    # the mass the first grid left out: the mixture's distribution function at its lower end
    # (the grid's guess from the tables' marginals of X and U, as _table_rates makes it)
    px, pu, _, _ = rates_module._table_marginals(rates_module._log_weight_tables(**args), args)
    x, u = np.arange(px.size), np.arange(pu.size)
    ex, eu = px @ x, pu @ u
    guess_mean, guess_sd = rates_module._guess("eta", args, ex, eu, px @ (x - ex) ** 2,
                                               pu @ (u - eu) ** 2)
    w, comps = _direct_terms(**case)
    a, b = comps["eta"]
    below = float((w * special.betainc(a, b, guess_mean - 10.0 * guess_sd)).sum())
    assert 1e-12 < below < 1e-11
    mean, lower, upper = kappa
    assert got[1].mean == pytest.approx(mean, abs=1e-12)
    assert got[1].lower == pytest.approx(lower, abs=1e-11)
    assert got[1].upper == pytest.approx(upper, abs=1e-11)
    want = _box_path(monkeypatch, case)
    assert got[1].lower == pytest.approx(want[1].lower, abs=1e-11)
    assert got[1].upper == pytest.approx(want[1].upper, abs=1e-11)


def test_a_rate_the_tables_cannot_answer_is_the_boxs_and_the_other_stays(monkeypatch):
    # eta's grid from the tables failing: eta is the box's answer exactly, rho the tables'
    case = _groups_of_1000(1, seed=13)[0]
    tables_only = rates_module.model_rates(**case)
    want = _box_path(monkeypatch, case)
    original = rates_module._chebyshev_rate

    def no_eta_from_tables(name, *args, **kwargs):
        if name == "eta" and kwargs.get("table_density") is not None:
            return None
        return original(name, *args, **kwargs)

    monkeypatch.setattr(rates_module, "_chebyshev_rate", no_eta_from_tables)
    got = rates_module.model_rates(**case)
    assert got[0] == tables_only[0]
    assert got[1] == want[1]
    assert got[2] == tables_only[2]


# -- more terms than every-term summation takes: the located box and the lattice ---------------
def _lattice_spy(monkeypatch):
    """Record the lattices the rates took (their steps), or None where none was possible."""
    from binaryeval.binary import _lattice

    seen = []
    original = _lattice.lattice_weights

    def spy(*args, **kwargs):
        got = original(*args, **kwargs)
        seen.append(None if got is None else got.steps)
        return got

    monkeypatch.setattr(_lattice, "lattice_weights", spy)
    return seen


@pytest.mark.parametrize("case", [
    # 5,000 metric-only ratings, 2,400 paired: the weights well inside the square, strides
    # in both directions
    dict(A=1401, B=1001, k=2600, M=5000, tp=1200, fn=200, tn=800, fp=200, rate_prior=(1, 1)),
    # no false positive among the paired rows: the weights press against X = k (every
    # metric positive adequate), unit steps there and strides in U
    dict(A=1401, B=1001, k=2100, M=5000, tp=1200, fn=200, tn=1000, fp=0, rate_prior=(1, 1)),
    # no false negative: they press against U = 0, strides in X
    dict(A=1401, B=1001, k=2300, M=5000, tp=1400, fn=0, tn=800, fp=200, rate_prior=(1, 1)),
    # a known eta
    dict(A=1401, B=1001, k=2600, M=5000, tp=1200, fn=200, tn=800, fp=200, rate_prior=(1, 1),
         eta=0.8),
])
def test_model_rates_on_a_lattice_equal_the_sum_of_every_term(monkeypatch, case):
    # more terms than _FULL: the box located by Newton's method and the lattice whose
    # shifted copy agrees, against every term of the square (the tables and Newton's method
    # tested above), and the mixture's alpha against the exact engine's
    import binaryeval as be

    seen = _lattice_spy(monkeypatch)
    got = rates_module.model_rates(**case)
    assert seen and seen[-1] is not None and seen[-1] != (1, 1)
    monkeypatch.setattr(rates_module, "_FULL", 10**7)
    want = rates_module.model_rates(**case)
    for g, w in zip(got[:2], want[:2], strict=True):
        assert g.known == w.known
        assert g.mean == pytest.approx(w.mean, abs=1e-12)
        assert g.sd == pytest.approx(w.sd, abs=1e-11)
        assert g.lower == pytest.approx(w.lower, abs=1e-11)
        assert g.upper == pytest.approx(w.upper, abs=1e-11)
    # the paired rows inform alpha: A and B hold them
    hp, n_h = case["A"] - 1, case["A"] + case["B"] - 2
    exact = be.alpha_posterior(hp, n_h, case["k"], case["M"], case["tp"], case["fn"], case["tn"],
                               case["fp"], eta=case.get("eta"))
    assert got[2] == pytest.approx(exact.mean(), abs=1e-11)


@pytest.mark.parametrize("args", [
    dict(A=191, B=12, k=620, M=1150, Ar=171, Br=21, Ae=11, Be=1),
    dict(A=40, B=30, k=700, M=1500, Ar=21, Br=10, Ae=26, Be=12),
    dict(A=3, B=3, k=300, M=700, Ar=2, Br=2, Ae=2, Be=2),
    dict(A=200, B=5, k=20, M=480, Ar=3, Br=40, Ae=30, Be=2),
])
def test_the_located_box_holds_every_term_above_the_cut(args):
    # the box found from the mode without visiting the square holds the box of every term
    # within 1e-20 of the largest (found by visiting all of them)
    from binaryeval.binary import _lattice

    lw = rates_module._log_weights_full(**args, rho=None, eta=None)
    X, U, _ = rates_module._box(lw)
    p = _lattice.parts(**args, rho=None, eta=None)
    box = _lattice.locate(p, (args["k"] / 2, (args["M"] - args["k"]) / 2))
    assert box is not None
    assert box.x[0] <= X[0] and X[-1] <= box.x[1]
    assert box.u[0] <= U[0] and U[-1] <= box.u[1]
    # and its log weights are the grid's up to a constant
    sub = _lattice.log_weights(p, X, U)
    full = lw[int(U[0]):int(U[-1]) + 1, int(X[0]):int(X[-1]) + 1]
    assert np.ptp(sub - full) < 1e-9


def test_a_lattice_too_coarse_is_refined_until_its_shifted_copy_agrees(monkeypatch):
    # start from steps far too coarse: the shifted copies disagree, the steps are halved, and
    # the lattice's mass and means then equal the sum over every term
    from binaryeval.binary import _lattice

    args = dict(A=1401, B=1001, k=2600, M=5000, Ar=1201, Br=201, Ae=801, Be=201)
    p = _lattice.parts(**args, rho=None, eta=None)
    box = _lattice.locate(p, (2200.0, 500.0))
    assert not (box.pressed_x or box.pressed_u)
    natural = _lattice.steps(box)
    monkeypatch.setattr(_lattice, "steps", lambda box, narrowings=(): (256, 256))
    lat = _lattice.lattice_weights(p, box)
    assert lat.steps[0] < 256 and lat.steps[1] < 256
    assert max(lat.steps) <= 4 * max(natural)
    lw = rates_module._log_weights_full(**args, rho=None, eta=None)
    w = np.exp(lw - lw.max())
    w /= w.sum()
    mx, mu = float(w.sum(axis=0) @ np.arange(w.shape[1])), float(w.sum(axis=1) @ np.arange(
        w.shape[0]))
    assert float(lat.w.sum(axis=0) @ lat.X) == pytest.approx(mx, abs=1e-9)
    assert float(lat.w.sum(axis=1) @ lat.U) == pytest.approx(mu, abs=1e-9)


def test_rates_the_lattice_cannot_certify_are_said_to_be_approximate():
    # 300,000 metric-only ratings and 30 paired: the weights press two edges over some 10^10
    # terms, no lattice fits; the rates come from the coarse zoom, whose alpha misses the
    # exact engine's by about 1e-4, and the fit says so (the alpha columns stay exact)
    import warnings

    import binaryeval as be
    from binaryeval.errors import BinaryEvalWarning

    counts = {"human_pos": 0, "human_total": 0, "metric_pos": 150390, "metric_total": 300000,
              "tp": 11, "fn": 1, "tn": 16, "fp": 2}
    fit = be.fit_counts(counts)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit.rates()
    said = [w for w in caught if issubclass(w.category, BinaryEvalWarning)
            and "approximate" in str(w.message)]
    assert len(said) == 1 and "1 group(s)" in str(said[0].message)


def test_rates_where_the_weights_press_an_edge_of_a_large_square_have_the_exact_alpha(
        monkeypatch):
    # 6,000 metric-only ratings, 100 paired with no false negative: the weights sit on
    # U = 0 (every metric negative inadequate); the coarse lattice that summed them before
    # missed the exact engine's mean of alpha by 4.3e-4, the lattice (unit steps in U,
    # strides in X) meets it, and no warning is given
    import warnings

    import binaryeval as be

    seen, original = [], rates_module._model_rates

    def recorded(**kwargs):
        seen.append(original(**kwargs))
        return seen[-1]

    # (each group's rates, whether from model_rates or from model_rates_batch)
    monkeypatch.setattr(rates_module, "_model_rates", recorded)
    steps = _lattice_spy(monkeypatch)
    counts = {"human_pos": 0, "human_total": 0, "metric_pos": 869, "metric_total": 6000,
              "tp": 7, "fn": 0, "tn": 85, "fp": 8}
    fit = be.fit_counts(counts)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = fit.rates().iloc[0]
    (r, e, alpha_mean), = seen
    assert steps and steps[-1] is not None and steps[-1][1] == 1 and steps[-1][0] > 1
    assert alpha_mean == pytest.approx(fit.posteriors["all"].mean(), abs=1e-11)
    assert got["rho"] == r.mean and got["eta_upper"] == e.upper
    # an interval around the mean, inside (0, 1]
    assert 0.0 < got["rho_lower"] < got["rho"] < got["rho_upper"] <= 1.0


def test_model_rates_with_few_paired_rows_beyond_every_term_summation_equal_every_term(
        monkeypatch):
    # with no or few paired rows the weights spread over the whole square and may have two
    # modes (the mirror image swapping adequate and inadequate outputs): the lattice is taken
    # only when one mode holds everything above the cut (a coarse scan checks), else every
    # term; either way the same as the sum over every term
    rng = np.random.default_rng(1)
    cases = [dict(A=1, B=1, k=600, M=1100, tp=0, fn=0, tn=0, fp=0, rate_prior=(1, 1))]
    for _ in range(6):
        tp, fn, tn, fp = (int(v) for v in rng.integers(0, 3, 4))
        M = int(rng.integers(1100, 1600))
        k = int(rng.integers(M // 4, 3 * M // 4))
        cases.append(dict(A=1 + tp + fn, B=1 + tn + fp, k=k, M=M, tp=tp, fn=fn, tn=tn, fp=fp,
                          rate_prior=(1, 1)))
    got = [rates_module.model_rates(**case) for case in cases]
    monkeypatch.setattr(rates_module, "_FULL", 10**8)
    for case, g in zip(cases, got, strict=True):
        want = rates_module.model_rates(**case)
        assert g[2] == pytest.approx(want[2], abs=1e-12), case
        for a, b in zip(g[:2], want[:2], strict=True):
            assert a.mean == pytest.approx(b.mean, abs=1e-12), case
            assert a.lower == pytest.approx(b.lower, abs=1e-11), case
            assert a.upper == pytest.approx(b.upper, abs=1e-11), case


def test_a_second_mode_outside_the_box_sends_the_rates_elsewhere():
    # two bumps: the box grown from one of them does not hold the other; the scan sees it
    from binaryeval.binary import _lattice

    args = dict(A=1, B=1, k=600, M=1100, Ar=1, Br=1, Ae=1, Be=1, rho=None, eta=None)
    p = _lattice.parts(**args)
    lw = rates_module._log_weights_full(**args)
    top = float(lw.max())
    # the mirror modes sit at the corners (0, 0) and (k, M - k)
    assert lw[0, 0] == pytest.approx(top) and lw[-1, -1] == pytest.approx(top)
    assert _lattice._elsewhere(p, (0, 100), (0, 100), top - 46.0)
    assert not _lattice._elsewhere(p, (0, 600), (0, 500), top - 46.0)


def test_rates_on_joblibs_workers_equal_the_sequential_ones_exactly():
    # groups of 200-1,000 metric-only ratings: every group's rates depend on its
    # own counts alone, so dealing them out to two workers changes no digit
    import binaryeval as be

    rng = np.random.default_rng(20)
    groups = {}
    for i in range(9):
        m = int(rng.integers(200, 1000))
        tp, tn = (int(v) for v in rng.integers(20, 40, 2))
        fn, fp = (int(v) for v in rng.integers(2, 10, 2))
        groups[f"g{i}"] = {"human_pos": int(rng.integers(10, 30)), "human_total": 40,
                           "metric_pos": int(rng.integers(m // 5, 4 * m // 5)),
                           "metric_total": m, "tp": tp, "fn": fn, "tn": tn, "fp": fp}
    groups["none"] = {"human_pos": 10, "human_total": 20}   # no metric-only ratings: NaN
    sequential = be.fit_counts(groups).to_frame()
    # joblib's threads run the same dealing out and reassembly as its processes, without
    # starting any; the batches' function and arguments travel to processes by pickle
    import pickle

    import joblib

    with joblib.parallel_config(backend="threading"):
        parallel = be.fit_counts(groups).to_frame(n_jobs=2)
    pd.testing.assert_frame_equal(parallel, sequential, check_exact=True)
    assert pickle.loads(pickle.dumps(rates_module.model_rates_batch)) is \
        rates_module.model_rates_batch
    assert sequential.loc["none", "rho"] != sequential.loc["none", "rho"]   # NaN
    with pytest.raises(be.errors.InputTypeError, match="n_jobs=0"):
        be.fit_counts(groups).rates(n_jobs=0)


def test_the_rates_of_many_groups_show_a_progress_bar_and_the_same_table(capsys):
    # the rates' intervals of 10,000 groups take most of a minute: progress=True shows a bar
    # of the groups done on stderr (by default: 500 groups or more, on a terminal), here and
    # on joblib's workers, and changes no digit of the table
    import joblib

    import binaryeval as be

    groups = {f"g{i}": {"human_pos": 12 + i, "human_total": 40, "metric_pos": 150 + 9 * i,
                        "metric_total": 300, "tp": 25, "fn": 4, "tn": 20, "fp": 5}
              for i in range(7)}
    quiet = be.fit_counts(groups).to_frame()
    assert capsys.readouterr().err == ""            # 7 groups: no bar by default
    shown = be.fit_counts(groups).to_frame(progress=True)
    err = capsys.readouterr().err
    assert "rho and eta per group" in err and "7/7" in err
    with joblib.parallel_config(backend="threading"):
        spread = be.fit_counts(groups).rates(n_jobs=2, progress=True)
    assert "7/7" in capsys.readouterr().err
    pd.testing.assert_frame_equal(shown, quiet, check_exact=True)
    pd.testing.assert_frame_equal(spread, be.fit_counts(groups).rates(), check_exact=True)
    be.fit_counts(groups).to_frame(progress=False)
    assert capsys.readouterr().err == ""
    with pytest.raises(be.errors.InputTypeError, match="progress=1: pass True or False"):
        be.fit_counts(groups).rates(progress=1)


@pytest.mark.parametrize("seed", [0, 1])
def test_model_rate_means_equal_the_term_by_term_mixture(seed):
    # the means from one-dimensional sums (three convolutions) against the independent
    # term-by-term mixture (every term's beta functions): 1e-12, and the mean of alpha.
    # Random and edge designs: no paired rows of a class, a prior below 1, a known rate, one
    # metric-only rating, no metric-only positive or negative.
    for case in _random_designs(30, seed):
        got = rates_module.model_rate_means(**case)
        assert got is not None, case
        want = _direct_rates(**case)
        for value, name in zip(got[:2], ("rho", "eta"), strict=True):
            if name not in want:
                assert value == case[name]
                continue
            assert value == pytest.approx(want[name][0], abs=1e-12), case
        # alpha: the mixture's mean over every term (model_rates' box, no lattice here)
        assert got[2] == pytest.approx(rates_module.model_rates(**case)[2], abs=1e-12), case


def _every_term_means(*, A, B, k, M, tp, fn, tn, fp, rate_prior, rho=None, eta=None):
    """The means of rho, eta and alpha over every term of the split (beta functions)."""
    ar, br = rate_prior
    X = np.arange(k + 1.0)[None, :]
    U = np.arange(M - k + 1.0)[:, None]
    Ar, Br, Ae, Be = ar + tp, br + fn, ar + tn, br + fp
    lw = (special.gammaln(k + 1) - special.gammaln(X + 1) - special.gammaln(k - X + 1)
          + special.gammaln(M - k + 1) - special.gammaln(U + 1) - special.gammaln(M - k - U + 1)
          + special.betaln(A + X + U, B + M - X - U))
    lw = lw + (special.betaln(Ar + X, Br + U) if rho is None
               else X * np.log(rho) + U * np.log1p(-rho))
    lw = lw + (special.betaln(Ae + M - k - U, Be + k - X) if eta is None
               else (M - k - U) * np.log(eta) + (k - X) * np.log1p(-eta))
    w = np.exp(lw - lw.max())
    w /= w.sum()
    return (rho if rho is not None else (w * (Ar + X) / (Ar + Br + X + U)).sum(),
            eta if eta is not None else (w * (Ae + M - k - U) / (Ae + Be + M - X - U)).sum(),
            (w * (A + X + U) / (A + B + M)).sum())


@pytest.mark.parametrize("case, in_log_space", [
    # 3,000 metric-only ratings, 61 paired: model_rates' own means are 1.2e-11 off here
    (dict(A=159, B=72, k=2720, M=3123, tp=19, fn=18, tn=18, fp=6, rate_prior=(1.0, 1.0)),
     False),
    # a known eta and six paired rows: far from the weights' peak the convolution's entries
    # fall below the smallest double while the factor in T grows, so 523 entries are summed
    # in log space
    (dict(A=5, B=79, k=480, M=2059, tp=0, fn=0, tn=4, fp=2, rate_prior=(1.0, 1.0), eta=0.7),
     True),
])
def test_model_rate_means_equal_every_term_of_large_splits(monkeypatch, case, in_log_space):
    # Expected: the means over every one of the 1-1.1 million terms, within 1e-13; beyond
    # _MEANS_CONV_MAX terms no answer (model_rates answers there)
    logged = []
    split = rates_module._split_sums_at
    monkeypatch.setattr(rates_module, "_split_sums_at",
                        lambda T, *a: logged.append(T.size) or split(T, *a))
    want = _every_term_means(**case)
    got = rates_module.model_rate_means(**case)
    assert got == pytest.approx(want, abs=1e-13)
    assert (sum(logged) > 0) == in_log_space
    r, e, alpha = rates_module.model_rates(**case)
    assert (r.mean, e.mean, alpha) == pytest.approx(want, abs=1.3e-11)
    big = dict(case, k=3000, M=6000)
    assert (big["k"] + 1) * (big["M"] - big["k"] + 1) > rates_module._MEANS_CONV_MAX
    assert rates_module.model_rate_means(**big) is None


def _grouped_ratings(seed: int, n_groups: int, per: int, *, rho: float, false_pos: float,
                     paired: float) -> pd.DataFrame:
    """Groups of ``per`` outputs: a 0/1 metric, human ratings on a ``paired`` share of them."""
    rng = np.random.default_rng(seed)
    system = np.repeat([f"s{i}" for i in range(n_groups)], per)
    alpha = np.repeat(rng.uniform(0.3, 0.8, n_groups), per)
    truth = rng.random(system.size) < alpha
    metric = np.where(truth, rng.random(system.size) < rho,
                      rng.random(system.size) < false_pos)
    human = np.where(rng.random(system.size) < paired, truth.astype(float), np.nan)
    return pd.DataFrame({"system": system, "human": human, "metric": metric.astype(int)})


def _count_model_rates(monkeypatch) -> list:
    """The sizes of the batches model_rates_batch is asked for, from now on."""
    calls: list = []
    batch = rates_module.model_rates_batch
    monkeypatch.setattr(rates_module, "model_rates_batch",
                        lambda tasks: calls.append(len(tasks)) or batch(tasks))
    return calls


def test_a_summary_shows_the_rates_means_without_computing_their_intervals(monkeypatch):
    # Expected: summary()'s rho and eta are to_frame()'s (within 1e-11), computed without
    # model_rates (whose intervals the summary does not show); a group the means' sums cannot
    # answer gets model_rates' answer; after to_frame() the summary reads its rates.
    import binaryeval as be

    n_groups = 6
    df = _grouped_ratings(4, n_groups, 400, rho=0.85, false_pos=0.2, paired=0.15)
    calls = _count_model_rates(monkeypatch)
    res = be.fit("human ~ metric | system", df)
    table = res.summary().tables[0][1]
    assert sum(calls) == 0
    full = be.fit("human ~ metric | system", df).to_frame()
    assert sum(calls) == n_groups
    np.testing.assert_allclose(table[["rho", "eta"]].to_numpy(dtype=float),
                               full.loc[table.index, ["rho", "eta"]].to_numpy(), atol=1e-11,
                               rtol=0)
    # one group the means cannot answer: model_rates answers it alone
    means = rates_module.model_rate_means
    first = int(res.counts.loc["s0", "metric_pos"])
    monkeypatch.setattr(rates_module, "model_rate_means",
                        lambda **kw: None if kw["k"] == first else means(**kw))
    calls.clear()
    again = be.fit("human ~ metric | system", df).summary().tables[0][1]
    assert calls == [1]
    np.testing.assert_allclose(again[["rho", "eta"]].to_numpy(dtype=float),
                               table[["rho", "eta"]].to_numpy(dtype=float), atol=1e-11, rtol=0)
    # the plan and the interval plot read the rates' means alone too
    import matplotlib.pyplot as plt

    calls.clear()
    fresh = be.fit("human ~ metric | system", df)
    fresh.plan(0.05, pairs=None)
    plt.close(fresh.plot(kind="interval").figure)
    assert calls == [1]  # the group the means cannot answer
    res.to_frame()
    calls.clear()
    monkeypatch.setattr(rates_module, "model_rate_means", None)
    np.testing.assert_array_equal(res.summary().tables[0][1][["rho", "eta"]].to_numpy(float),
                                  res.to_frame().loc[table.index, ["rho", "eta"]].to_numpy())
    assert calls == []


def test_to_frame_without_rate_intervals_is_to_frame_less_their_columns(monkeypatch):
    # Expected: to_frame(rate_intervals=False) is to_frame() without rho_lower, rho_upper,
    # eta_lower and eta_upper: every other column the same (rho and eta within 1e-11, from the
    # means' sums), computed without model_rates; a flag that is not a boolean is refused.
    import binaryeval as be
    from binaryeval.errors import InputTypeError

    n_groups = 5
    df = _grouped_ratings(11, n_groups, 500, rho=0.8, false_pos=0.25, paired=0.12)
    calls = _count_model_rates(monkeypatch)
    lean = be.fit("human ~ metric | system", df).to_frame(rate_intervals=False)
    assert sum(calls) == 0
    full = be.fit("human ~ metric | system", df).to_frame()
    assert sum(calls) == n_groups
    dropped = ["rho_lower", "rho_upper", "eta_lower", "eta_upper"]
    assert list(lean.columns) == [c for c in full.columns if c not in dropped]
    assert lean.attrs["rate_intervals"] is False and full.attrs["rate_intervals"] is True
    rest = [c for c in lean.columns if c not in ("rho", "eta")]
    pd.testing.assert_frame_equal(lean[rest], full[rest])
    np.testing.assert_allclose(lean[["rho", "eta"]].to_numpy(), full[["rho", "eta"]].to_numpy(),
                               atol=1e-11, rtol=0)
    # the rates' means lie inside their intervals
    assert ((full["rho_lower"] < lean["rho"]) & (lean["rho"] < full["rho_upper"])).all()
    with pytest.raises(InputTypeError, match="rate_intervals=0"):
        be.fit("human ~ metric | system", df).to_frame(rate_intervals=0)


def test_the_rates_matrix_products_run_on_one_blas_thread():
    # each rate's density is one product of some 65 x 300 by 300 x 200: a second BLAS thread
    # only spins (doubling the CPU time on a busy machine), so the rates hold BLAS to one
    # thread, and give it back after (threadpoolctl before 3.5 does not see the OpenBLAS of
    # numpy 2's wheels, and would hold nothing)
    from threadpoolctl import threadpool_info

    before = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
    assert before, "numpy's BLAS is not seen, so its threads cannot be held to one"
    with rates_module._one_blas_thread():
        inside = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
    assert inside == [1] * len(before)
    assert [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"] == before
