r"""Uncertainty of the Favi-Score: Dirichlet posterior, item bootstrap and the score interval.

Given the number of disagreements ``E``, the Favi-Score is the mean of ``E`` weights: each
disagreement carries the weight ``W_ij`` of its cell, one of ``-2, -1, 1, 2``, and the counts
``(n_-2, n_-1, n_1, n_2)`` of the four weights are multinomial with probabilities ``r``.  The
population Favi is the mean ``mu = sum_k r_k x_k`` of that four-point distribution.  So an
interval for Favi is an interval for the mean of a multinomial with known support, and nothing
else in the 3 x 3 matrix matters once ``E`` is given.

Three intervals are offered:

``"dirichlet"``
    Equal-tailed interval of Favi under the posterior ``Dirichlet(C + cell_concentration)`` of the nine cell
    probabilities (Monte Carlo).  Given ``E`` this is the ``Dirichlet(C_offdiag + cell_concentration)``
    posterior of the six off-diagonal cells: with few disagreements the prior's pseudo-counts
    (3 at the Jeffreys prior) pull the interval towards 0, and it misses a true Favi near the
    ends of ``[-2, 2]``.
``"bootstrap"``
    Percentile bootstrap over items (a multinomial draw from the observed matrix).  It never
    puts weight on a cell that was not observed, so when the ``E`` disagreements fall in one or
    two cells its interval collapses to a point.
``"score"``
    The score (Wilson-type) interval for the mean of the four-point multinomial: the set of
    ``mu`` with ``E (xbar - mu)^2 <= z^2 Var_mu``, where ``Var_mu`` is the variance of the
    restricted maximum-likelihood estimate of ``r`` under the constraint ``mean = mu`` (the
    likelihood may put mass on unobserved weights, which keeps the interval off a point).  With
    two support points it is exactly Wilson's interval for a binomial proportion.  It is
    computed without random draws.

Why the score interval at small ``E``.  An interval with guaranteed coverage exists (invert the
exact test of the sample mean, maximising the tail over the two nuisance dimensions of ``r``),
but it is of little use here: in a trial at ``E`` about 4.5 it spanned about 3 of the 4 units
of ``[-2, 2]`` and covered 99.5-100% of the time.  The score interval is the Wilson interval's answer to the same
problem.  In simulations of 95% intervals (``benchmarks/bench_favi.py``: 24 random shapes of the
off-diagonal probabilities, 1,000 pairs of 100 items each):

=========  ==========================  ==========================  ==========================
E about    score: mean / worst shape    Dirichlet: mean / worst      bootstrap: mean / worst
=========  ==========================  ==========================  ==========================
4.5        0.985 / 0.961 (width 2.17)  0.960 / 0.584 (width 1.77)  0.679 / 0.063 (width 1.79)
12         0.959 / 0.944 (width 1.38)  0.950 / 0.715 (width 1.27)  0.875 / 0.148 (width 1.42)
20         0.956 / 0.936 (width 1.08)  0.950 / 0.793 (width 1.03)  0.901 / 0.218 (width 1.09)
=========  ==========================  ==========================  ==========================

The worst shapes of the Monte Carlo intervals are those with a true Favi near an end of the range
or a rare cell.  The score interval pays for its coverage with width at the smallest ``E`` (an
interval from a handful of disagreements is wide whatever its method); from ``E`` about 12 it is
about as narrow as the others.

The rule: pairs with ``E < SMALL_E`` (20) get the score interval whatever ``method`` was asked,
with a :class:`~binaryeval.errors.SmallSampleWarning` naming their ``E``: there the bootstrap
misses on average and both Monte Carlo intervals can miss badly.  Above it the requested method
is used; the table shows that shapes with rare cells still trouble the Monte Carlo intervals at
``E = 20``, so ``method="score"`` (used for every pair) is the safe choice at any ``E``.  A pair
with ``E = 0`` gets ``[-2, 2]``: no disagreement says nothing about the direction of one.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._validate import choice, memory, real, size
from .._validate import level as check_level
from .._validate import seed as check_seed
from .._warnings import warn
from ..errors import ParameterError, SmallSampleWarning
from .score import FAVI_WEIGHTS, OFFDIAG, favi_from_counts, ratio

#: Pairs with fewer disagreements than this get the score interval.
SMALL_E = 20

METHODS = ("dirichlet", "bootstrap", "score")

#: The four weights a disagreement can carry, in the order of :func:`weight_counts`.
WEIGHT_VALUES = np.array([-2.0, -1.0, 1.0, 2.0])

METHOD_TEXT = {
    "dirichlet": "equal-tailed posterior interval of Favi under a Dirichlet(C + cell_concentration) posterior over the "
                 "9 cell probabilities (Monte Carlo)",
    "bootstrap": "percentile bootstrap over the pair's items (resampling items with replacement is a "
                 "multinomial draw from the observed confusion matrix)",
    "score": "score (Wilson-type) interval for the mean disagreement weight, the E weights (-2, -1, 1, 2) "
             "being multinomial given E; variance from the restricted maximum-likelihood estimate",
}

_BISECT_B = 90     # halvings of the Lagrange multiplier's bracket (reaches float resolution)
_BISECT_MU = 55    # halvings of [-2, 2]: endpoints to about 1e-16


def weight_counts(counts: np.ndarray) -> np.ndarray:
    """Counts of disagreements with weight ``-2, -1, 1, 2`` for a stack ``(k, 3, 3)`` -> ``(k, 4)``."""
    w = FAVI_WEIGHTS[OFFDIAG]
    off = counts[:, OFFDIAG]
    return np.stack([off[:, w == v].sum(axis=1) for v in WEIGHT_VALUES], axis=1).astype(float)


def restricted_mle(n: np.ndarray, mu: np.ndarray, values: np.ndarray = WEIGHT_VALUES) -> np.ndarray:
    """Probabilities of the support ``values`` maximising the likelihood of ``n`` subject to mean ``mu``.

    ``n`` has one row per sample and one column per support point (sorted ascending).  The
    stationarity condition gives ``r_k = n_k / (E + b (x_k - mu))`` for the observed points, with
    ``b`` the root of ``sum n_k (x_k - mu) / (E + b (x_k - mu)) = 0`` (decreasing in ``b``) inside
    ``(-E / (x_max - mu), E / (mu - x_min))``.  When the root would leave that bracket the optimum
    puts the remaining mass on the unobserved extreme point (``x_max`` or ``x_min``) instead.
    """
    e = n.sum(axis=1)
    d = values[None, :] - mu[:, None]
    observed = n > 0
    with np.errstate(divide="ignore"):  # an end of the range: the bracket is unbounded there
        b_lo, b_hi = -e / (values[-1] - mu), e / (mu - values[0])

    def g(b: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(observed, n * d / (e[:, None] + b[:, None] * d), 0.0)
        return terms.sum(axis=1)

    top_free = ~observed[:, -1] & (g(b_lo) <= 0)
    bottom_free = ~observed[:, 0] & (g(b_hi) >= 0) & ~top_free
    lo, hi = b_lo.copy(), b_hi.copy()
    for _ in range(_BISECT_B):
        mid = 0.5 * (lo + hi)
        right = g(mid) > 0
        lo = np.where(right, mid, lo)
        hi = np.where(right, hi, mid)
    b = np.where(top_free, b_lo, np.where(bottom_free, b_hi, 0.5 * (lo + hi)))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(observed, n / (e[:, None] + b[:, None] * d), 0.0)
    rest = np.clip(1.0 - r.sum(axis=1), 0.0, None)
    r[:, -1] += np.where(top_free, rest, 0.0)
    r[:, 0] += np.where(bottom_free, rest, 0.0)
    return r / r.sum(axis=1, keepdims=True)


def score_statistic(n: np.ndarray, mu: np.ndarray, values: np.ndarray = WEIGHT_VALUES) -> np.ndarray:
    """``E (xbar - mu)^2 / Var_mu`` with the variance of the restricted estimate under ``mu``."""
    e = n.sum(axis=1)
    xbar = n @ values / e
    r = restricted_mle(n, mu, values)
    var = (r * values**2).sum(axis=1) - mu**2
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = e * (xbar - mu) ** 2 / var
    return np.where(var > 0, stat, np.where(xbar == mu, 0.0, np.inf))


def score_interval(n: np.ndarray, level: float,
                   values: np.ndarray = WEIGHT_VALUES) -> tuple[np.ndarray, np.ndarray]:
    """Score interval for the mean of each row of ``n`` (counts on the support ``values``).

    The statistic grows as ``mu`` moves away from the sample mean on either side, so each end is
    found by bisection between the sample mean (inside) and the end of the support (outside,
    where the restricted variance vanishes).  Rows without observations get the whole support
    range.
    """
    from scipy import stats

    z2 = stats.norm.ppf(0.5 + level / 2) ** 2
    n = np.asarray(n, dtype=float)
    values = np.asarray(values, dtype=float)
    e = n.sum(axis=1)
    lower, upper = np.full(len(n), values[0]), np.full(len(n), values[-1])
    rows = np.flatnonzero(e > 0)
    if rows.size == 0:
        return lower, upper
    m = n[rows]
    xbar = m @ values / m.sum(axis=1)
    for out, edge in ((lower, values[0]), (upper, values[-1])):
        inside, outside = xbar.copy(), np.full_like(xbar, edge)
        open_end = xbar != edge
        for _ in range(_BISECT_MU):
            mid = 0.5 * (inside + outside)
            ok = score_statistic(m, mid, values) <= z2
            inside = np.where(ok, mid, inside)
            outside = np.where(ok, outside, mid)
        out[rows] = np.where(open_end, inside, edge)
    return lower, upper


def favi_draws(counts: np.ndarray, method: str, n_resamples: int, prior: float,
               rng: np.random.Generator) -> np.ndarray:
    """Draws of Favi for a stack of matrices (k, 3, 3) -> (n_resamples, k), pairs in blocks."""
    k = counts.shape[0]
    flat = counts.reshape(k, 9).astype(float)
    out = np.empty((n_resamples, k))
    block = max(1, 2_000_000 // (9 * n_resamples))
    for start in range(0, k, block):
        part = flat[start:start + block]
        m = part.shape[0]
        if method == "dirichlet":
            # Favi is a ratio of two linear functions of the cell probabilities, so it does not
            # change with their scale: independent Gamma(alpha_c, 1) draws give the Dirichlet draws.
            sample = rng.standard_gamma(part + prior, size=(n_resamples, m, 9))
        else:
            n = part.sum(axis=1)
            p = np.where(n[:, None] > 0, part / np.where(n > 0, n, 1)[:, None], 1.0 / 9)
            sample = rng.multinomial(n.astype(np.int64), p, size=(n_resamples, m)).astype(float)
        num, e = favi_from_counts(sample.reshape(n_resamples, m, 3, 3))
        out[:, start:start + m] = ratio(num, e)
    return out


def _monte_carlo(counts: np.ndarray, level: float, method: str, n_resamples: int, prior: float,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = favi_draws(counts, method, n_resamples, prior, rng)
    a = (1 - level) / 2
    undefined = np.isnan(d).mean(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lower = np.nanquantile(d, a, axis=0)
        upper = np.nanquantile(d, 1 - a, axis=0)
    return lower, upper, undefined


def _small_e_message(e: np.ndarray, small: np.ndarray, labels: list[str], method: str,
                     level: float) -> str:
    order = np.flatnonzero(small)[np.argsort(e[small], kind="stable")]
    shown = ", ".join(f"E = {int(e[i])} ({labels[i]})" for i in order[:3])
    more = f" and {order.size - 3} more" if order.size > 3 else ""
    return (f"{order.size} of {e.size} pair(s) have fewer than {SMALL_E} disagreements between metric and "
            f"humans: {shown}{more}.  With so few disagreements the {method} interval covers the true "
            f"Favi far less often than {level:.0%} of the time, so these pairs get the score interval "
            "(column 'method'), which keeps its coverage; it is wide because E is small: only more "
            "rated items narrow it")


def favi_intervals(counts: np.ndarray, labels: list[str], *, level: float, method: str,
                   n_resamples: int, cell_concentration: float | None,
                   seed: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Intervals for a stack of matrices: columns ``lower, upper, p_undefined, method`` and attrs.

    Pairs with ``E < SMALL_E`` get the score interval (with one warning naming their ``E``).
    """
    level = check_level(level)
    method = choice(method, "method", METHODS)
    n_resamples = size(n_resamples, "n_resamples", minimum=100)
    prior = cell_concentration
    if prior is None:
        prior = 0.5 if method == "dirichlet" else 0.0
    prior = real(prior, "cell_concentration")
    if method == "dirichlet" and prior <= 0:
        raise ParameterError(f"cell_concentration={prior!r}: the Dirichlet concentration per cell "
                             "must be > 0; 0.5 is the Jeffreys prior, 1 the uniform prior")
    seed = check_seed(seed)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2**63))
    e = counts[:, OFFDIAG].sum(axis=1)
    small = (e < SMALL_E) & (method != "score")
    use_score = small | (method == "score")
    lower, upper, undefined = (np.full(e.size, np.nan) for _ in range(3))
    if (~use_score).any():
        # the draws (resamples x pairs) and nanquantile's two working copies of them
        n_pairs = int((~use_score).sum())
        memory(24.0 * n_resamples * n_pairs, f"n_resamples={n_resamples} over {n_pairs} pairs",
               "use fewer resamples (the default is 4000) or compare fewer systems at once")
        rng = np.random.default_rng(seed)
        lo, hi, und = _monte_carlo(counts[~use_score], level, method, n_resamples, prior, rng)
        lower[~use_score], upper[~use_score], undefined[~use_score] = lo, hi, und
    if use_score.any():
        lower[use_score], upper[use_score] = score_interval(weight_counts(counts[use_score]), level)
    if small.any():
        warn(_small_e_message(e, small, labels, method, level), SmallSampleWarning)
    columns = {"lower": lower, "upper": upper, "p_undefined": undefined,
               "method": np.where(use_score, "score", method)}
    meta = {"level": level, "method": method, "seed": seed if method != "score" else None,
            "n_resamples": n_resamples if method != "score" else None,
            "cell_concentration": prior if method == "dirichlet" else None, "small_e": SMALL_E,
            "n_switched": int(small.sum()), "description": METHOD_TEXT[method]}
    return columns, meta
