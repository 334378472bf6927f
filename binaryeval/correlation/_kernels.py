"""Vectorised kernels of the Fisher interval, Williams' t and Zou's interval.

No argument checks here: the public functions check their inputs and call these; the result
object calls them on whole arrays of correlations at once (every ordered pair of metrics in one
call).  Inputs broadcast like numpy arrays.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .._lazy import stats

INTERVAL_NAMES = {
    "pearson": "Fisher z, se = 1/sqrt(n - 3)",
    "spearman": "Fisher z with the Bonett-Wright (2000) variance (1 + r^2/2)/(n - 3)",
    "kendall": "Fisher z with the Fieller-Hartley-Pearson (1957) variance 0.437/(n - 4)",
}


def det3(r12, r13, r23):
    """Determinant of the 3 x 3 correlation matrix (Williams' K)."""
    return 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23


def z_se(r, n, method: str):
    """Standard error of ``atanh(r)``: Pearson, Bonett-Wright (Spearman), Fieller et al. (Kendall)."""
    r = np.asarray(r, dtype=float)
    if method == "pearson":
        return np.broadcast_to(1.0 / np.sqrt(n - 3.0), r.shape)
    if method == "spearman":
        return np.sqrt((1.0 + r ** 2 / 2.0) / (n - 3.0))
    return np.broadcast_to(np.sqrt(0.437 / (n - 4.0)), r.shape)


def rank_substitute(n, method: str):
    """The value a rank correlation of exactly +1 stands for in intervals and tests.

    Spearman: ``1 - 12/(n^3 - n)``, the largest value below 1 that ``n`` untied ranks can give
    (one adjacent pair swapped).  Kendall: the Kendall tau of the bivariate normal whose Spearman
    rho is that value, ``(2/pi) asin(2 sin(pi rho/6))``: both coefficients are 1 on the same event
    (identical rankings), and Kendall's largest value below 1, ``1 - 4/(n(n - 1))``, gives a lower
    end above the one the event supports for ``n >= 8``.
    """
    n = np.asarray(n, dtype=float)
    rho = 1.0 - 12.0 / (n ** 3 - n)
    if method == "spearman":
        return rho
    return 2.0 / np.pi * np.arcsin(2.0 * np.sin(np.pi * rho / 6.0))


def corrected(r, n, method: str):
    """``r`` with a rank correlation of +-1 replaced by ``+-rank_substitute`` (Pearson unchanged)."""
    r = np.asarray(r, dtype=float)
    if method == "pearson":
        return r
    return np.where(np.abs(r) == 1, np.sign(r) * rank_substitute(n, method), r)


def fisher_bounds(r, n, level: float, method: str):
    """``tanh(atanh(r) -+ z_q se)``; the interval at ``|r| = 1`` as described below.

    Pearson ``r = +-1``: the degenerate ``(r, r)`` (points exactly on a line, which the bivariate
    normal model behind the interval gives only when the population correlation is +-1).  A rank
    correlation of +-1: the interval of :func:`corrected` ``r``, with its outer end moved to
    ``r`` (``(low(r_c), 1)`` at ``r = 1``).
    """
    r = np.asarray(r, dtype=float)
    q = special.ndtri((1.0 + level) / 2.0)
    rc = corrected(r, n, method)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.arctanh(rc)
        half = q * z_se(rc, n, method)
        low = np.tanh(z - half)
        high = np.tanh(z + half)
    edge = np.abs(r) == 1
    if method == "pearson":
        # r = +-1: the transform is infinite and the interval collapses on r
        low = np.where(edge, r, low)
        high = np.where(edge, r, high)
    else:
        low = np.where(edge & (r < 0), r, low)
        high = np.where(edge & (r > 0), r, high)
    return low, high


#: ``|r23|`` this close to 1 is read as 1: the metrics are then one another's affine image
#: (the correlations' rounding, some ``n eps``, leaves ``r12`` and ``r13`` an ulp apart, and
#: Williams' t would divide that by a denominator of the same size)
SAME_METRIC_TOL = 1e-10


def williams_t(r12, r13, r23, n):
    """Williams' (1959) t of ``r12 - r13`` given ``r23`` (Steiger 1980, eq. 7).

    At ``r23 = 1`` (within :data:`SAME_METRIC_TOL`: one metric a rescaled copy of the other)
    ``r12 = r13`` and the formula is 0/0: t is 0.  At ``r23 = -1`` (one the other negated)
    ``r13 = -r12``, and t is the formula's limit ``r sqrt(n - 3) / sqrt(1 - r^2)`` with
    ``r = (r12 - r13) / 2``.

    Examples
    --------
    >>> from binaryeval.correlation._kernels import williams_t
    >>> float(williams_t(0.38298946506383950, 0.38298946506383946, 1.0, 8))
    0.0
    >>> round(float(williams_t(0.8, -0.8, -1.0, 10)), 6), round(0.8 * 7 ** 0.5 / 0.6, 6)
    (3.527668, 3.527668)
    """
    r12, r13, r23 = (np.asarray(v, dtype=float) for v in (r12, r13, r23))
    k = np.maximum(det3(r12, r13, r23), 0.0)
    num = (r12 - r13) * np.sqrt((n - 1.0) * (1.0 + r23))
    den2 = 2.0 * k * (n - 1.0) / (n - 3.0) + (r12 + r13) ** 2 * (1.0 - r23) ** 3 / 4.0
    half = (r12 - r13) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = num / np.sqrt(den2)
        negated = half * np.sqrt(n - 3.0) / np.sqrt(1.0 - half ** 2)
    t = np.where((den2 == 0) & (num == 0), 0.0, t)
    t = np.where(1.0 + r23 <= SAME_METRIC_TOL, negated, t)
    return np.where(1.0 - r23 <= SAME_METRIC_TOL, 0.0, t)


def t_pvalue(t, df, alternative: str):
    """p-value of Student's t on ``df`` degrees of freedom for ``alternative``."""
    if alternative == "greater":
        return stats.t.sf(t, df)
    if alternative == "less":
        return stats.t.cdf(t, df)
    return 2.0 * stats.t.sf(np.abs(t), df)


def zou_bounds(r12, r13, r23, n, level: float, method: str):
    """Zou's (2007) interval of ``r12 - r13`` from the two single Fisher intervals.

    Pearson ``|r12| = 1`` (or ``|r13| = 1``): the single interval of that correlation is the
    point itself (:func:`fisher_bounds`), so its distance term is 0 and the cross term
    ``2 c a b`` vanishes with it, although ``c`` is 0/0 there (R's cocor returns NA).  That is the
    interval's limit as the correlation tends to +-1 (``c a`` tends to 0: a valid correlation
    matrix with ``|r12| = 1`` has ``r23 = r12 r13``, where the numerator of ``c`` is 0), so the
    interval is the other correlation's interval, shifted: e.g. ``(1 - u2, 1 - l2)`` at
    ``r12 = 1``.  A rank correlation of +-1 has a proper single interval (:func:`fisher_bounds`)
    and ``c`` is computed from the :func:`corrected` correlations, the values that interval
    stands for.
    """
    r12, r13, r23 = (np.asarray(v, dtype=float) for v in (r12, r13, r23))
    l1, u1 = fisher_bounds(r12, n, level, method)
    l2, u2 = fisher_bounds(r13, n, level, method)
    c12, c13 = corrected(r12, n, method), corrected(r13, n, method)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = (((r23 - c12 * c13 / 2.0) * (1.0 - c12 ** 2 - c13 ** 2 - r23 ** 2) + r23 ** 3)
             / ((1.0 - c12 ** 2) * (1.0 - c13 ** 2)))

        def half_width(a, b):
            cross = np.where((a == 0) | (b == 0), 0.0, 2.0 * c * a * b)
            return np.sqrt(np.maximum(a ** 2 + b ** 2 - cross, 0.0))

        low = r12 - r13 - half_width(r12 - l1, u2 - r13)
        high = r12 - r13 + half_width(u1 - r12, r13 - l2)
    return low, high
