"""Correlation matrices and batches of correlations (the resampling methods call these).

Pearson and Spearman are matrix products of standardised columns (ranks for Spearman); Kendall's
tau-b comes from the sign matrices of all pairs for up to ``SIGN_LIMIT`` observations and from
:func:`scipy.stats.kendalltau` beyond.
"""

from __future__ import annotations

import numpy as np

from .._lazy import stats

SIGN_LIMIT = 300  # largest n for the sign-matrix Kendall (n^2 memory); scipy beyond


def kendall_from_signs(values: np.ndarray) -> np.ndarray:
    """Kendall's tau-b between the last-axis columns of ``values`` (``(..., n, k)``).

    Uses the sign matrices ``sgn(x_i - x_j)``: the numerator is the sum of the products of signs
    (concordant minus discordant pairs, each counted twice) and the denominator the square root of
    the product of the numbers of untied pairs, which is tau-b exactly.  Memory ``n^2 k`` per batch.
    """
    s = np.sign(values[..., :, None, :] - values[..., None, :, :])  # (..., n, n, k)
    s = s.reshape(s.shape[:-3] + (-1, s.shape[-1]))
    num = np.einsum("...pa,...pb->...ab", s, s)
    d = np.sqrt(np.einsum("...aa->...a", num))
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / (d[..., :, None] * d[..., None, :])


def rescaled(values: np.ndarray) -> np.ndarray:
    """Each column centred and divided by its largest absolute deviation (into [-1, 1]).

    A positive affine map of each column, so no correlation changes; without it the squares of
    scores of the order of 1e160 overflow (Pearson's r came out 0) and those of 1e-170
    underflow (NaN).  A constant column stays 0.  (Rank correlations need no rescaling: ranks
    and signs do not over- or underflow.)
    """
    x = values - values.mean(axis=0)
    top = np.abs(x).max(axis=0)
    return x / np.where(top > 0, top, 1.0)


def corr_matrix(values: np.ndarray, method: str) -> np.ndarray:
    """Correlation matrix of the columns of ``values`` (rows = observations)."""
    if method == "pearson":
        values = rescaled(np.asarray(values, dtype=float))
    if method == "spearman":
        values = stats.rankdata(values, axis=0)
    if method in ("pearson", "spearman"):
        x = values - values.mean(axis=0)
        x = x / np.sqrt((x ** 2).sum(axis=0))
        r = x.T @ x
    elif values.shape[0] <= SIGN_LIMIT:
        r = kendall_from_signs(values)
    else:
        k = values.shape[1]
        r = np.eye(k)
        for i in range(k):
            for j in range(i + 1, k):
                r[i, j] = r[j, i] = stats.kendalltau(values[:, i], values[:, j]).statistic
    if method in ("spearman", "kendall"):
        # identical (reversed) rankings are exactly +1 (-1); the float product can miss by an ulp
        # (Kendall's num / sqrt(num) sqrt(num) is 0.9999999999999998 at some n)
        ranks = values if method == "spearman" else stats.rankdata(values, axis=0)
        n = values.shape[0]
        r[(ranks[:, :, None] == ranks[:, None, :]).all(axis=0)] = 1.0
        r[(ranks[:, :, None] == (n + 1 - ranks)[:, None, :]).all(axis=0)] = -1.0
    r = np.clip(r, -1.0, 1.0)
    np.fill_diagonal(r, 1.0)
    return r


def batch_corr_with_first(values: np.ndarray, method: str) -> np.ndarray:
    """Correlation of column 0 with every other column, for a batch ``(..., n, k + 1)``."""
    if method == "spearman":
        values = stats.rankdata(values, axis=-2)
    if method == "kendall":
        if values.shape[-2] <= SIGN_LIMIT:
            s = np.sign(values[..., :, None, :] - values[..., None, :, :])
            s = s.reshape(s.shape[:-3] + (-1, s.shape[-1]))
            num = np.einsum("...p,...pk->...k", s[..., 0], s[..., 1:])
            sq = np.einsum("...pk,...pk->...k", s, s)
            with np.errstate(invalid="ignore", divide="ignore"):
                return num / np.sqrt(sq[..., :1] * sq[..., 1:])
        flat = values.reshape(-1, values.shape[-2], values.shape[-1])
        out = np.empty((flat.shape[0], flat.shape[-1] - 1))
        for b in range(flat.shape[0]):
            for j in range(1, flat.shape[-1]):
                out[b, j - 1] = stats.kendalltau(flat[b, :, 0], flat[b, :, j]).statistic
        return out.reshape(values.shape[:-2] + (values.shape[-1] - 1,))
    x = values - values.mean(axis=-2, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = x / np.sqrt((x ** 2).sum(axis=-2, keepdims=True))
    return np.einsum("...n,...nk->...k", x[..., 0], x[..., 1:])


def permutation_pvalue(null: np.ndarray, observed: float, alternative: str, exact: bool) -> float:
    """p-value of ``observed`` against a permutation null distribution.

    Same rule as :func:`scipy.stats.permutation_test`: values within a relative ``100 eps`` of the
    observed statistic count as ties, and randomised (not exact) tests add one to the count and
    to the number of resamples.
    """
    gamma = abs(np.finfo(float).eps * 100 * observed)
    adj = 0 if exact else 1
    m = null.size
    less = ((null <= observed + gamma).sum() + adj) / (m + adj)
    greater = ((null >= observed - gamma).sum() + adj) / (m + adj)
    if alternative == "less":
        return float(less)
    if alternative == "greater":
        return float(greater)
    return float(min(1.0, 2 * min(less, greater)))
