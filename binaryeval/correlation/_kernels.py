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


def fisher_bounds(r, n, level: float, method: str):
    """``tanh(atanh(r) -+ z_q se)``; the degenerate ``(r, r)`` at ``|r| = 1``."""
    r = np.asarray(r, dtype=float)
    q = special.ndtri((1.0 + level) / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.arctanh(r)
        half = q * z_se(r, n, method)
        low = np.tanh(z - half)
        high = np.tanh(z + half)
    # r = +-1: the transform is infinite and the interval collapses on r
    edge = np.abs(r) == 1
    low = np.where(edge, r, low)
    high = np.where(edge, r, high)
    return low, high


def williams_t(r12, r13, r23, n):
    """Williams' (1959) t of ``r12 - r13`` given ``r23`` (Steiger 1980, eq. 7)."""
    r12, r13, r23 = (np.asarray(v, dtype=float) for v in (r12, r13, r23))
    k = np.maximum(det3(r12, r13, r23), 0.0)
    num = (r12 - r13) * np.sqrt((n - 1.0) * (1.0 + r23))
    den2 = 2.0 * k * (n - 1.0) / (n - 3.0) + (r12 + r13) ** 2 * (1.0 - r23) ** 3 / 4.0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = num / np.sqrt(den2)
    # 0/0 happens only for two identical metrics (r23 = 1, r12 = r13): no difference at all
    return np.where((den2 == 0) & (num == 0), 0.0, t)


def t_pvalue(t, df, alternative: str):
    """p-value of Student's t on ``df`` degrees of freedom for ``alternative``."""
    if alternative == "greater":
        return stats.t.sf(t, df)
    if alternative == "less":
        return stats.t.cdf(t, df)
    return 2.0 * stats.t.sf(np.abs(t), df)


def zou_bounds(r12, r13, r23, n, level: float, method: str):
    """Zou's (2007) interval of ``r12 - r13`` from the two single Fisher intervals.

    At ``|r12| = 1`` (or ``|r13| = 1``) the single interval of that correlation is the point
    itself (:func:`fisher_bounds`), so its distance term is 0 and the cross term ``2 c a b``
    vanishes with it, although ``c`` is 0/0 there (R's cocor returns NA).  That is the
    interval's limit as the correlation tends to +-1 (``c a`` tends to 0: a valid correlation
    matrix with ``|r12| = 1`` has ``r23 = r12 r13``, where the numerator of ``c`` is 0), so the
    interval is the other correlation's interval, shifted: e.g. ``(1 - u2, 1 - l2)`` at
    ``r12 = 1``.
    """
    r12, r13, r23 = (np.asarray(v, dtype=float) for v in (r12, r13, r23))
    l1, u1 = fisher_bounds(r12, n, level, method)
    l2, u2 = fisher_bounds(r13, n, level, method)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = (((r23 - r12 * r13 / 2.0) * (1.0 - r12 ** 2 - r13 ** 2 - r23 ** 2) + r23 ** 3)
             / ((1.0 - r12 ** 2) * (1.0 - r13 ** 2)))

        def half_width(a, b):
            cross = np.where((a == 0) | (b == 0), 0.0, 2.0 * c * a * b)
            return np.sqrt(np.maximum(a ** 2 + b ** 2 - cross, 0.0))

        low = r12 - r13 - half_width(r12 - l1, u2 - r13)
        high = r12 - r13 + half_width(u1 - r12, r13 - l2)
    return low, high
