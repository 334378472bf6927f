"""Resampling alternatives to the Fisher/Williams/Zou formulas: bootstrap and permutation tests.

Both work on the system-level score table (column 0 the human score, then the metrics) and
resample *systems*, so the human score and every metric move together.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._lazy import stats
from ..errors import DataError
from ._matrices import batch_corr_with_first, permutation_pvalue, rescaled

_MIRROR = {"greater": "less", "less": "greater", "two-sided": "two-sided"}


def bootstrap_table(values: np.ndarray, metrics: tuple[str, ...], method: str, *,
                    n_resamples: int, seed, level: float, ci_method: str) -> pd.DataFrame:
    """Bootstrap over systems of every r and every difference ``r_i - r_j`` (``i < j``)."""
    if method == "pearson":
        values = rescaled(values)  # no correlation changes; no squares over- or underflow
    n = values.shape[0]
    k = len(metrics)
    iu, ju = np.triu_indices(k, 1)

    def statistic(idx, axis=-1):
        idx = np.asarray(idx).astype(int)
        r = batch_corr_with_first(values[idx], method)  # (..., k)
        return np.moveaxis(np.concatenate([r, r[..., iu] - r[..., ju]], axis=-1), -1, 0)

    with warnings.catch_warnings():
        # (scipy's warning on an undefined interval names np.min: the error below says why)
        warnings.filterwarnings("ignore", message="The BCa confidence interval cannot")
        res = stats.bootstrap((np.arange(n, dtype=float),), statistic, n_resamples=n_resamples,
                              confidence_level=level, method=ci_method, vectorized=True,
                              random_state=np.random.default_rng(seed))
    undefined = np.isnan(np.asarray(res.bootstrap_distribution)).any(axis=0)
    if undefined.any():
        # a resample that draws one system's scores throughout a column has no correlation:
        # scipy's interval is then NaN for every row, with a warning about something else
        raise DataError(
            f"bootstrap(): {int(undefined.sum()):,} of the {n_resamples:,} resamples of the {n} "
            "systems hold one value throughout a column (a repeated system, or tied scores), "
            "where a correlation is undefined, so the bootstrap interval is too; with so few "
            "systems use the Fisher and Williams/Zou results (to_frame(), pairwise()) or "
            "permutation_test()")
    est = statistic(np.arange(n)[None, :])[:, 0]
    names = list(metrics)
    return pd.DataFrame({
        "metric_1": names + [names[a] for a in iu],
        "metric_2": [""] * k + [names[b] for b in ju],
        "estimate": est,
        "std_error": res.standard_error,
        "lower": res.confidence_interval.low,
        "upper": res.confidence_interval.high,
    })


def _difference_statistic(human: np.ndarray, method: str):
    """``r(human, x) - r(human, y)`` over the last axis, vectorised for scipy's resamplers."""
    if method == "pearson":
        hc = human - human.mean()
        hss = float(hc @ hc)

        def statistic(x, y, axis=-1):
            out = []
            for v in (x, y):
                v = np.moveaxis(np.asarray(v), axis, -1)
                vc = v - v.mean(axis=-1, keepdims=True)
                out.append((vc @ hc) / np.sqrt((vc * vc).sum(axis=-1) * hss))
            return out[0] - out[1]

        return statistic

    def statistic(x, y, axis=-1):
        x, y = np.moveaxis(np.asarray(x), axis, -1), np.moveaxis(np.asarray(y), axis, -1)
        both = np.stack([np.broadcast_to(human, x.shape), x, y], axis=-1)
        r = batch_corr_with_first(both, method)
        return r[..., 0] - r[..., 1]

    return statistic


def permutation_table(values: np.ndarray, metrics: tuple[str, ...], method: str, *,
                      n_resamples: int, seed, alternative: str) -> pd.DataFrame:
    """Paired permutation test of ``r_1 = r_2`` for every ordered pair of metrics."""
    rng = np.random.default_rng(seed)
    values = rescaled(values)  # no correlation changes; no squares over- or underflow
    z = (values - values.mean(axis=0)) / values.std(axis=0)
    statistic = _difference_statistic(z[:, 0], method)
    k = len(metrics)
    # One scipy call per unordered pair: swapping the metrics negates the statistic and its
    # null distribution, so the reversed pair's p-value comes from the same draws.
    exact = 2.0 ** values.shape[0] <= n_resamples
    rows = {}
    for a in range(k):
        for b in range(a + 1, k):
            res = stats.permutation_test((z[:, 1 + a], z[:, 1 + b]), statistic,
                                         permutation_type="samples", vectorized=True,
                                         n_resamples=n_resamples, alternative=alternative,
                                         random_state=rng)
            obs = float(res.statistic)
            p_rev = permutation_pvalue(res.null_distribution, obs, _MIRROR[alternative], exact)
            rows[a, b] = (metrics[a], metrics[b], obs, float(res.pvalue))
            rows[b, a] = (metrics[b], metrics[a], -obs, p_rev)
    ordered = [rows[a, b] for a in range(k) for b in range(k) if a != b]
    return pd.DataFrame(ordered, columns=["metric_1", "metric_2", "estimate", "p_value"])
