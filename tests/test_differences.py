"""Intervals of alpha_1 - alpha_2 for every pair at once (binaryeval.binary._differences).

The stated bound: each end within 1e-9 (``_differences.TOL``) of the exact end.  References:
the pair-by-pair :func:`binaryeval.binary.compare.difference_interval` (Brent's method to 1e-12
over an adaptive quadrature, itself held to 1e-9 of scipy in test_latent_protocol), and for Beta
posteriors a quadrature of ``P(X_1 - X_2 <= d)`` with scipy's Beta functions
(tests/binary_quadrature.py) and scipy's Brent root finder.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import special

from binaryeval import alpha_posterior
from binaryeval.binary import _differences
from binaryeval.binary.compare import difference_interval, difference_intervals
from binaryeval.binary.posterior import summaries
from binaryeval.validation import pair_sweep

TOL = _differences.TOL


@pytest.fixture(scope="module")
def sweep():
    names = list(pair_sweep())
    return names, [alpha_posterior(*c) for c in pair_sweep().values()]


@pytest.fixture(scope="module")
def leaderboard():
    """Posteriors of 24 groups like a leaderboard's: 80-120 paired and 900 metric-only rows
    each, the rates shared by none (materialised mixtures of several hundred components)."""
    rng = np.random.default_rng(11)
    posts = []
    for _ in range(24):
        alpha, rho, eta = rng.uniform(0.3, 0.85), rng.uniform(0.75, 0.95), rng.uniform(0.7, 0.9)
        n_p, n_m = int(rng.integers(80, 121)), 900
        adequate = rng.random(n_p + n_m) < alpha
        metric = np.where(adequate, rng.random(adequate.size) < rho,
                          rng.random(adequate.size) > eta)
        y, yh, m = adequate[:n_p], metric[:n_p], metric[n_p:]
        tp, fn = int(np.sum(y & yh)), int(np.sum(y & ~yh))
        tn, fp = int(np.sum(~y & ~yh)), int(np.sum(~y & yh))
        posts.append(alpha_posterior(tp + fn, n_p, int(m.sum()), n_m, tp, fn, tn, fp))
    return posts


def _fast(posts, first, second, level=0.95):
    ends = summaries(posts, _differences.DOMAIN_TAIL, mode=False)
    return _differences.intervals(posts, np.asarray(first), np.asarray(second), level,
                                  ends["lower"], ends["upper"])


def test_every_pair_of_the_sweep_matches_the_pair_by_pair_interval(sweep):
    # every pair of posteriors of very different widths and locations (single
    # Betas of 5 to 10^5 ratings, mixtures, smooth posteriors of up to 10^6 metric ratings)
    names, posts = sweep
    pairs = list(itertools.combinations(range(len(posts)), 2))
    first, second = (np.array(x) for x in zip(*pairs, strict=True))
    lo, hi, ok = _fast(posts, first, second)
    # the Betas of 60 to 10^5 ratings and the mixture of 10^3 take the fast path (6 pairs);
    # the others (5 ratings, 20 paired rows, the smooth ones) the pair-by-pair one
    fast = {names.index(n) for n in ("beta 60", "beta 2000", "beta 1e5", "mix 1e3")}
    assert {k for k, (a, b) in enumerate(pairs) if a in fast and b in fast} <= set(
        np.flatnonzero(ok))
    # the other order: the mirrored interval, certified alike
    lo_s, hi_s, ok_s = _fast(posts, second, first)
    np.testing.assert_array_equal(ok_s, ok)
    np.testing.assert_allclose(lo_s[ok], -hi[ok], atol=2 * TOL, rtol=0)
    np.testing.assert_allclose(hi_s[ok], -lo[ok], atol=2 * TOL, rtol=0)
    wanted = {}
    for k, (a, b) in enumerate(pairs):
        want = wanted[a, b] = difference_interval(posts[a], posts[b])
        if ok[k]:
            assert abs(lo[k] - want[0]) <= TOL and abs(hi[k] - want[1]) <= TOL, (
                names[a], names[b], (lo[k], hi[k]), want)
        else:
            assert np.isnan(lo[k]) and np.isnan(hi[k])
    # the public function: the fast ends where certified, the pair-by-pair ones elsewhere
    # (against the pair-by-pair intervals above: a deterministic function of the pair)
    both = difference_intervals(posts, first, second)
    for k, (a, b) in enumerate(pairs[::7]):
        np.testing.assert_allclose(both[7 * k], wanted[a, b], atol=TOL, rtol=0)


def test_beta_pairs_match_scipy_quadrature():
    # P(X_1 - X_2 <= d) = int f_1(x) S_2(x - d) dx with scipy's Beta density and survival
    # function, by composite Gauss-Legendre checked against a rule of half the points
    # (tests/binary_quadrature.py: within 1e-14; scipy.integrate.quad to epsabs=1e-14 agreed
    # with it to 6e-14); the ends by brentq to 1e-13
    from binary_quadrature import beta_difference_ends

    cases = (((71, 31), (56, 46)), ((3, 9), (40, 30)), ((500, 400), (9, 3)),
             ((6001, 3001), (5800, 3300)), ((40, 30), (41, 29)))
    posts, want = [], []
    for (a1, b1), (a2, b2) in cases:
        want.append(beta_difference_ends((a1, b1), (a2, b2)))
        posts += [alpha_posterior(a1 - 1, a1 + b1 - 2), alpha_posterior(a2 - 1, a2 + b2 - 2)]
    first = np.arange(0, len(posts), 2)
    lo, hi, ok = _fast(posts, first, first + 1)
    for k, (w_lo, w_hi) in enumerate(want):
        if ok[k]:
            assert abs(lo[k] - w_lo) <= TOL and abs(hi[k] - w_hi) <= TOL, (cases[k], lo[k], hi[k])
    # Betas of a hundred ratings and more take the fast path (those of twelve, near an end of
    # [0, 1], the pair-by-pair one)
    assert ok[[0, 3, 4]].all()
    got = difference_intervals(posts, first, first + 1)
    np.testing.assert_allclose(got, np.array(want), atol=TOL, rtol=0)


def test_leaderboard_pairs_take_the_fast_path_within_the_bound(leaderboard):
    posts = leaderboard
    i, j = np.triu_indices(len(posts), k=1)
    lo, hi, ok = _fast(posts, i, j, level=0.9)
    assert ok.all()   # every pair certified: none left to the slow path
    for k in range(0, i.size, 9):
        want = difference_interval(posts[i[k]], posts[j[k]], 0.9)
        assert abs(lo[k] - want[0]) <= TOL and abs(hi[k] - want[1]) <= TOL
    # swapping a pair mirrors its interval
    lo_s, hi_s, ok_s = _fast(posts, j, i, level=0.9)
    assert ok_s.all()
    np.testing.assert_allclose(lo_s, -hi, atol=2 * TOL, rtol=0)
    np.testing.assert_allclose(hi_s, -lo, atol=2 * TOL, rtol=0)


def test_surrogates_keep_their_stated_error(leaderboard, sweep):
    # |Phi(z~) - F| at random points (not the check points) within each one's stated error,
    # F and S from the posteriors' exact kernel sums
    posts = leaderboard[:8] + sweep[1]
    ends = summaries(posts, _differences.DOMAIN_TAIL, mode=False)
    sur = _differences.Surrogates(posts, ends["lower"], ends["upper"])
    assert sur.ok[:8].all()
    rng = np.random.default_rng(3)
    for g in np.flatnonzero(sur.ok):
        p = posts[g]
        x = np.sort(rng.uniform(ends["lower"][g], ends["upper"][g], 300))
        z, dz = sur.scores(np.array([g]), x[None, :], deriv=True)
        upper = x > p.mean()
        exact = np.where(upper, p.sf(x), p.cdf(x))
        approx = special.ndtr(np.where(upper, -z[0], z[0]))
        assert np.max(np.abs(approx - exact)) <= sur.error[g] <= _differences._F_TOL, g
        # the surrogate's density, for Newton's method: close to the exact one
        dens = np.exp(-0.5 * z[0] ** 2) / np.sqrt(2 * np.pi) * dz[0]
        np.testing.assert_allclose(dens, p.pdf(x), rtol=1e-6, atol=1e-9 * p.pdf(x).max())
        # the quintic table of F the pairs read: F within the same stated error, its density
        # and the density's slope close to the exact ones (the slope by central differences)
        F, f, fp = sur.values(np.array([g]), x[None, :], deriv=True)
        assert np.max(np.abs(F[0] - p.cdf(x))) <= sur.error[g], g
        np.testing.assert_allclose(f[0], p.pdf(x), rtol=1e-6, atol=1e-9 * p.pdf(x).max())
        h = 1e-5 * p.std()
        slope = (p.pdf(x + h) - p.pdf(x - h)) / (2 * h)
        np.testing.assert_allclose(fp[0], slope, rtol=0, atol=1e-5 * np.abs(slope).max())
        # 0 below the domain and 1 above it, with no slope
        out = np.array([[ends["lower"][g] - p.std(), ends["upper"][g] + p.std()]])
        F, f, fp = sur.values(np.array([g]), out, deriv=True)
        assert F.tolist() == [[0.0, 1.0]] and f.tolist() == [[0.0, 0.0]]
        assert fp.tolist() == [[0.0, 0.0]]


def test_unsupported_posteriors_go_to_the_pair_by_pair_path(sweep):
    # a Beta of five ratings (its normal score bends at the end of [0, 1]) is left to
    # difference_interval; its pairs still get the exact interval
    names, posts = sweep
    k = names.index("beta 5")
    ends = summaries(posts, _differences.DOMAIN_TAIL, mode=False)
    sur = _differences.Surrogates(posts, ends["lower"], ends["upper"])
    assert not sur.ok[k] and sur.error[k] > _differences._F_TOL
    got = difference_intervals(posts, np.array([k, 1]), np.array([1, k]))
    np.testing.assert_allclose(got[0], difference_interval(posts[k], posts[1]), atol=0, rtol=0)
    np.testing.assert_allclose(got[1], difference_interval(posts[1], posts[k]), atol=0, rtol=0)


def test_compare_reports_the_all_pairs_intervals(leaderboard):
    from binaryeval.binary.compare import compare_posteriors

    posts = {f"s{k}": p for k, p in enumerate(leaderboard[:6])}
    rows = compare_posteriors(posts, level=0.9).to_frame()
    for _, r in rows.iterrows():
        want = difference_interval(posts[r["group_1"]], posts[r["group_2"]], 0.9)
        assert abs(r["lower"] - want[0]) <= TOL and abs(r["upper"] - want[1]) <= TOL


# -- the stated bound against an independent computation ------------------------------------------
_GL = np.polynomial.legendre.leggauss(20)


def _reference_ends(p1, p2, level=0.95, start=None):
    """The exact ends of alpha_1 - alpha_2, independently of the surrogates and of the rules.

    ``P(alpha_1 - alpha_2 <= d)`` as composite Gauss-Legendre quadrature (96 panels of 20
    points) over the narrower posterior's 1e-16 quantiles of its exact density times the other's
    exact distribution function (kernel sums, 1e-12), and Newton's method on ``d`` with the
    exact density of the difference, to a step below 1e-14.  Newton starts from ``start`` (two
    ends) when given, else from the normal approximation: the root it reaches does not depend on
    the start (the distribution function is increasing in ``d``), only the number of steps does
    (two from ends within 1e-9, the last one below 1e-14).
    """
    narrow_first = p1.std() <= p2.std()
    n, w = (p1, p2) if narrow_first else (p2, p1)
    a, b = float(n.ppf(1e-16)), float(n.isf(1e-16))
    edges = np.linspace(a, b, 97)
    mid, rad = 0.5 * (edges[1:] + edges[:-1]), 0.5 * (edges[1:] - edges[:-1])
    y = (mid[:, None] + rad[:, None] * _GL[0][None, :]).ravel()
    wy = (rad[:, None] * _GL[1][None, :]).ravel() * n.pdf(y)
    wy = wy / wy.sum()

    def cdf_pdf(d):
        # alpha_1 <= alpha_2 + d: F_1(y + d) over alpha_2 = y, or S_2(x - d) over alpha_1 = x
        if narrow_first:
            x = np.clip(y - d, 0.0, 1.0)
            return float(wy @ w.sf(x)), float(wy @ w.pdf(x))
        x = np.clip(y + d, 0.0, 1.0)
        return float(wy @ w.cdf(x)), float(wy @ w.pdf(x))

    out = []
    for end, q in enumerate(((1 - level) / 2, (1 + level) / 2)):
        d = (p1.mean() - p2.mean() + special.ndtri(q) * math.sqrt(p1.var() + p2.var())
             if start is None else float(start[end]))
        for _ in range(30):
            F, f = cdf_pdf(d)
            step = (F - q) / f
            d -= step
            if abs(step) < 1e-14:
                break
        out.append(d)
    return out


def _sweep_of_pairs():
    """Pairs of very different kinds: a leaderboard's mixtures, mixtures of 10^3 to 3 x 10^4
    metric ratings (materialised, some by the FFT), Betas of 60 to 10^5 ratings, near-equal and
    far-apart pairs, one posterior 30 times the other's width."""
    rng = np.random.default_rng(5)
    posts = []
    for n_m in (300, 900, 3000, 10_000, 30_000):
        for _ in range(3):
            alpha = rng.uniform(0.2, 0.9)
            n_p = int(rng.integers(40, 400))
            adequate = rng.random(n_p + n_m) < alpha
            metric = np.where(adequate, rng.random(adequate.size) < 0.85,
                              rng.random(adequate.size) < 0.2)
            y, yh, m = adequate[:n_p], metric[:n_p], metric[n_p:]
            tp, fn = int(np.sum(y & yh)), int(np.sum(y & ~yh))
            tn, fp = int(np.sum(~y & ~yh)), int(np.sum(~y & yh))
            posts.append(alpha_posterior(tp + fn, n_p, int(m.sum()), n_m, tp, fn, tn, fp))
    posts += [alpha_posterior(40, 60), alpha_posterior(1300, 2000), alpha_posterior(61_000, 100_000),
              alpha_posterior(41, 60)]
    return posts


@pytest.mark.parametrize(("level", "start"), [(0.95, 0), (0.8, 11)])
def test_certified_ends_within_the_stated_bound_of_independent_quadrature(level, start):
    # every 11th certified pair is checked, each at one of the two levels (half of them at each,
    # alternately), so that the pairs of all kinds are covered at both levels
    posts = _sweep_of_pairs()
    i, j = np.triu_indices(len(posts), k=1)
    lo, hi, ok = _fast(posts, i, j, level=level)
    assert ok.mean() > 0.9   # the bound is not met by refusing the pairs
    worst = 0.0
    for k in np.flatnonzero(ok)[start::22]:
        # (Newton from the ends under test: the reference's root, in two steps)
        want = _reference_ends(posts[i[k]], posts[j[k]], level, start=(lo[k], hi[k]))
        err = max(abs(lo[k] - want[0]), abs(hi[k] - want[1]))
        worst = max(worst, err)
        assert err <= TOL, (i[k], j[k], err)
    # and by a margin: the stated bound is not loose by orders of magnitude either way
    assert worst <= 0.5 * TOL


def test_a_pair_the_first_two_rules_leave_is_certified_by_the_third():
    # two groups of the 1,000-group benchmark (benchmarks/bench_speed.py, grouped_rows(1000,
    # 1000, seed=2): groups 38 and 641; counts metric_pos, metric_total, tp, fn, tn, fp), one of
    # 45 pairs there that 32- and 48-point rules did not certify and that went to the pair-by-pair
    # search: the 64-point rule certifies it, within the stated bound of that search
    counts = [(629, 899, 68, 9, 23, 1), (654, 906, 70, 15, 8, 1)]
    posts = [alpha_posterior(tp + fn, tp + fn + tn + fp, mp, mt, tp, fn, tn, fp)
             for mp, mt, tp, fn, tn, fp in counts]
    lower = np.array([p.ppf(_differences.DOMAIN_TAIL) for p in posts])
    upper = np.array([p.ppf(1 - _differences.DOMAIN_TAIL) for p in posts])
    lo, hi, ok = _differences.intervals(posts, np.array([0]), np.array([1]), 0.95, lower, upper)
    assert ok.all()
    exact = difference_interval(posts[0], posts[1], 0.95)
    assert abs(lo[0] - exact[0]) <= _differences.TOL and abs(hi[0] - exact[1]) <= _differences.TOL


def test_quantile_nodes_solve_their_targets_in_a_few_newton_steps(leaderboard, monkeypatch):
    # each node solves z~(t) = z_k to rounding, and Newton's method gets there in a handful of
    # table evaluations (a converged node used to bisect away from its root when its last
    # rounding-sized residual moved the bracket's end onto it: 55 evaluations here); the
    # rule's outermost points, beyond the table's values, are the domain's ends
    ends = summaries(leaderboard, _differences.DOMAIN_TAIL, mode=False)
    sur = _differences.Surrogates(leaderboard, ends["lower"], ends["upper"])
    calls = []
    scores = _differences.Surrogates.scores
    monkeypatch.setattr(_differences.Surrogates, "scores",
                        lambda self, *a, **k: calls.append(1) or scores(self, *a, **k))
    rule = np.polynomial.hermite_e.hermegauss(32)
    nodes = sur.quantile_nodes(rule)
    assert len(calls) <= 12
    rows = np.arange(len(leaderboard))
    z, _ = scores(sur, rows, nodes, deriv=False)
    first = sur.z[sur.offset][:, None]
    last = sur.z[sur.offset + sur.cells][:, None]
    inner = (rule[0][None, :] > first) & (rule[0][None, :] < last)
    assert inner.sum() >= 0.7 * inner.size   # (the 32-point rule reaches |z| = 10)
    np.testing.assert_allclose(z[inner], np.broadcast_to(rule[0], z.shape)[inner], rtol=0,
                               atol=1e-12)
    lo = ends["lower"][:, None] + 0 * nodes
    hi = ends["upper"][:, None] + 0 * nodes
    below = rule[0][None, :] <= first
    above = rule[0][None, :] >= last
    np.testing.assert_allclose(nodes[below], lo[below], rtol=1e-14)
    np.testing.assert_allclose(nodes[above], hi[above], rtol=1e-14)
