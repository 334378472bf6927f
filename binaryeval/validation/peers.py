"""Peer intervals for a rate of adequate outputs, computed from binary counts.

These are the intervals a user would otherwise reach for when estimating a system's rate of
adequate outputs ``alpha`` from some human ratings and many metric ratings.  They exist here so
that the calibration study (``studies/calibration.py``) can compare them with the posterior of
:func:`binaryeval.binary.engine.alpha_posterior` on identical data.  Every function works on
sufficient statistics and returns a :class:`PeerInterval` ``(estimate, lower, upper)``.

Data layout (the same as the engine's)
--------------------------------------
- paired rows: rated by a human and by the metric, summarised as ``tp`` (human 1, metric 1),
  ``fn`` (human 1, metric 0), ``tn`` (human 0, metric 0), ``fp`` (human 0, metric 1);
- metric-only rows: ``metric_pos`` positives out of ``metric_total``.

Methods
-------
- :func:`classical_interval`: human ratings only.  ``"wald"`` is the z-interval
  ``p +- z sqrt(p (1 - p) / n)`` (the population standard deviation, as ppi_py's
  ``classical_mean_ci``); ``"wilson"`` and ``"clopper_pearson"`` come from statsmodels'
  ``proportion_confint``.
- :func:`ppi_interval`: prediction-powered inference for a mean (Angelopoulos et al. 2023,
  *Science* 382; PPI++: Angelopoulos, Duchi & Zrnic 2023, arXiv:2311.01453).  With weight
  ``lam`` the estimate is ``lam * mean(metric-only) + mean(human - lam * metric on paired)`` and
  its standard error ``sqrt(lam^2 s_U^2 / N + s_R^2 / n)`` (population standard deviations of
  the metric-only ratings and of the paired residuals ``human - lam * metric``); the interval
  is the normal one.  ``lam=1`` is PPI; ``lam=None`` is PPI++ with the power-tuned weight
  ``lam = cov(human, metric) / ((1 + n / N) var(metric over all rows))``, clipped to [0, 1]
  (the covariance over the paired rows with divisor ``n``, the variance over paired and
  metric-only rows together with divisor ``n + N - 1``), which minimises the estimated
  variance.  These are the choices of ppi_py 0.2.3; the tests check agreement to 1e-12.
- :func:`acc_interval`: adjusted classify-and-count (Forman 2008): the metric's positive rate
  on the metric-only rows ``q`` corrected by the paired estimates of its true- and
  false-positive rates, ``(q - fpr) / (tpr - fpr)`` clipped to [0, 1].  The interval is the
  delta-method normal interval (three independent binomial proportions), clipped to [0, 1].

All intervals are two-sided with coverage ``level``; note that ppi_py's default is 90 %
(``alpha=0.1``), ours is 95 %.

Rank sets
---------
- :func:`rank_sets`: the rank-sets of prediction-powered ranking (Chatzi, Straitouri, Thejaswi
  and Gomez-Rodriguez 2024, "Prediction-Powered Ranking of Large Language Models", NeurIPS):
  from estimates of one score per system (e.g. PPI estimates) with covariance ``Sigma``, the
  confidence ellipsoid ``(theta - hat) Sigma^-1 (theta - hat) <= chi2_k(level)`` (``k``
  systems) holds the true scores with probability ``level`` asymptotically; system ``i`` is
  surely below ``j`` when the ellipsoid's largest ``theta_i - theta_j``,
  ``hat_i - hat_j + sqrt(chi2_k(level) (Sigma_ii + Sigma_jj - 2 Sigma_ij))``, is negative.  The
  rank-set of ``i`` runs from ``1 +`` the systems surely above it to ``k -`` the systems surely
  below it, and all rank-sets cover the true ranking together with probability >= ``level``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from .. import _validate
from .._lazy import stats
from ..errors import CountsError, ParameterError

__all__ = ["PeerInterval", "acc_interval", "classical_interval", "ppi_interval", "ppi_lambda",
           "rank_sets"]


class PeerInterval(NamedTuple):
    """Point estimate and two-sided interval; unpacks to ``(estimate, lower, upper)``.

    Examples
    --------
    >>> from binaryeval.validation import PeerInterval
    >>> est, lo, hi = PeerInterval(0.5, 0.4, 0.6)
    >>> round(PeerInterval(0.5, 0.4, 0.6).width, 12)
    0.2
    """

    estimate: float
    lower: float
    upper: float

    @property
    def width(self) -> float:
        """``upper - lower``."""
        return self.upper - self.lower


def _count(name: str, value) -> int:
    # a whole number >= 0: not a bool, a string, an infinity (which stopped int() with an
    # OverflowError) or NaN
    return _validate.count(value, name, maximum=None)


def _z(level: float) -> float:
    try:
        lv = float(level)
    except (TypeError, ValueError):
        raise ParameterError(f"level={level!r}: must be a number strictly between 0 and 1, "
                             "e.g. 0.95") from None
    if not 0.0 < lv < 1.0:
        raise ParameterError(f"level={level!r}: must lie strictly between 0 and 1, e.g. 0.95")
    return float(stats.norm.ppf(0.5 + lv / 2.0))


def classical_interval(human_pos: int, human_total: int, level: float = 0.95,
                       method: str = "wald") -> PeerInterval:
    """Interval for a proportion from the human ratings alone.

    Parameters
    ----------
    human_pos, human_total : int
        Positive human ratings and all human ratings (``human_total > 0``).
    level : float
        Coverage of the two-sided interval.
    method : {"wald", "wilson", "clopper_pearson"}
        ``"wald"``: ``p +- z sqrt(p (1 - p) / n)``, not clipped (ppi_py's classical interval);
        ``"wilson"``: the score interval; ``"clopper_pearson"``: the exact binomial interval
        (both through ``statsmodels.stats.proportion.proportion_confint``).

    Returns
    -------
    PeerInterval
        ``(estimate, lower, upper)`` with estimate ``human_pos / human_total``.

    Examples
    --------
    >>> from binaryeval.validation import classical_interval
    >>> est, low, high = classical_interval(113, 200, level=0.95)
    >>> round(est, 3), round(low, 4), round(high, 4)
    (0.565, 0.4963, 0.6337)
    """
    k = _count("human_pos", human_pos)
    n = _count("human_total", human_total)
    if n == 0:
        raise CountsError("human_total=0: the classical interval needs at least one human rating")
    if k > n:
        raise CountsError(f"human_pos={k} exceeds human_total={n}")
    z = _z(level)
    p = k / n
    if method == "wald":
        half = z * math.sqrt(p * (1.0 - p) / n)
        return PeerInterval(p, p - half, p + half)
    if method in ("wilson", "clopper_pearson"):
        from statsmodels.stats.proportion import proportion_confint

        sm = "wilson" if method == "wilson" else "beta"
        low, high = proportion_confint(k, n, alpha=1.0 - float(level), method=sm)
        return PeerInterval(p, float(low), float(high))
    raise ParameterError(f"method={method!r}: use 'wald', 'wilson' or 'clopper_pearson'")


def _paired(tp, fn, tn, fp, metric_pos, metric_total):
    c = {name: _count(name, v) for name, v in
         dict(tp=tp, fn=fn, tn=tn, fp=fp, metric_pos=metric_pos,
              metric_total=metric_total).items()}
    if c["metric_pos"] > c["metric_total"]:
        raise CountsError(f"metric_pos={c['metric_pos']} exceeds metric_total="
                          f"{c['metric_total']}")
    return c


def ppi_lambda(tp: int, fn: int, tn: int, fp: int, metric_pos: int, metric_total: int) -> float:
    """Power-tuned PPI++ weight for a mean, from counts (see the module notes).

    Returns 0 when the metric ratings do not vary (nothing to learn from them).

    Examples
    --------
    >>> from binaryeval.validation import ppi_lambda
    >>> round(ppi_lambda(92, 21, 64, 23, 5575, 10000), 4)
    0.537
    """
    c = _paired(tp, fn, tn, fp, metric_pos, metric_total)
    n = c["tp"] + c["fn"] + c["tn"] + c["fp"]
    N = c["metric_total"]
    if n == 0 or N == 0:
        raise CountsError(f"PPI needs paired and metric-only rows (paired n={n}, "
                          f"metric_total={N})")
    ybar = (c["tp"] + c["fn"]) / n
    fbar = (c["tp"] + c["fp"]) / n
    cov = c["tp"] / n - ybar * fbar
    total = n + N
    pos = c["tp"] + c["fp"] + c["metric_pos"]
    var_all = (pos - pos * pos / total) / (total - 1) if total > 1 else 0.0
    if var_all <= 0.0:
        return 0.0
    lam = cov / ((1.0 + n / N) * var_all)
    return min(max(lam, 0.0), 1.0)


def ppi_interval(tp: int, fn: int, tn: int, fp: int, metric_pos: int, metric_total: int,
                 level: float = 0.95, lam: float | None = 1.0) -> PeerInterval:
    """Prediction-powered estimate and normal interval of a mean (PPI / PPI++).

    Parameters
    ----------
    tp, fn, tn, fp : int
        Paired rows (human and metric).
    metric_pos, metric_total : int
        Metric-only rows.
    level : float
        Coverage (two-sided).  ppi_py's ``ppi_mean_ci`` defaults to 90 %; pass
        ``alpha=1 - level`` there to compare.
    lam : float or None
        Weight of the metric ratings: 1 gives PPI, 0 the classical Wald interval, ``None`` the
        power-tuned PPI++ weight of :func:`ppi_lambda`.

    Returns
    -------
    PeerInterval
        Not clipped to [0, 1] (as ppi_py).

    Examples
    --------
    >>> from binaryeval.validation import ppi_interval
    >>> est, low, high = ppi_interval(92, 21, 64, 23, 5575, 10000, level=0.95, lam=1.0)
    >>> round(est, 4)
    0.5475
    """
    c = _paired(tp, fn, tn, fp, metric_pos, metric_total)
    z = _z(level)
    lam = ppi_lambda(**c) if lam is None else _validate.real(lam, "lam")
    n = c["tp"] + c["fn"] + c["tn"] + c["fp"]
    N = c["metric_total"]
    if n == 0 or N == 0:
        raise CountsError(f"PPI needs paired and metric-only rows (paired n={n}, "
                          f"metric_total={N})")
    q = c["metric_pos"] / N
    # residual r = human - lam * metric takes the values 1 - lam (tp), 1 (fn), 0 (tn), -lam (fp)
    vals = (1.0 - lam, 1.0, 0.0, -lam)
    cnts = (c["tp"], c["fn"], c["tn"], c["fp"])
    rbar = sum(v * m for v, m in zip(vals, cnts, strict=True)) / n
    rvar = sum(m * (v - rbar) ** 2 for v, m in zip(vals, cnts, strict=True)) / n
    est = lam * q + rbar
    se = math.sqrt(lam * lam * q * (1.0 - q) / N + rvar / n)
    return PeerInterval(est, est - z * se, est + z * se)


def acc_interval(tp: int, fn: int, tn: int, fp: int, metric_pos: int, metric_total: int,
                 level: float = 0.95) -> PeerInterval:
    """Adjusted classify-and-count with a delta-method interval.

    ``tpr = tp / (tp + fn)``, ``fpr = fp / (fp + tn)``, ``q = metric_pos / metric_total``; the
    estimate is ``(q - fpr) / (tpr - fpr)`` clipped to [0, 1].  Its variance, by the delta
    method with the three proportions independent binomials, is
    ``[v(q) + theta^2 v(tpr) + (1 - theta)^2 v(fpr)] / (tpr - fpr)^2`` with ``v(p) = p (1 - p)
    / size`` and ``theta`` the unclipped estimate; the normal interval around the unclipped
    estimate is then clipped to [0, 1].  When ``tpr == fpr`` the metric carries no
    information: the estimate is NaN and the interval [0, 1].

    Parameters
    ----------
    tp, fn, tn, fp : int
        Paired rows; both human classes must occur.
    metric_pos, metric_total : int
        Metric-only rows (``metric_total > 0``).
    level : float
        Coverage (two-sided).

    Returns
    -------
    PeerInterval

    Examples
    --------
    >>> from binaryeval.validation import acc_interval
    >>> est, low, high = acc_interval(96, 24, 64, 16, 5600, 10000)
    >>> round(est, 6)
    0.6
    """
    c = _paired(tp, fn, tn, fp, metric_pos, metric_total)
    z = _z(level)
    npos, nneg, N = c["tp"] + c["fn"], c["tn"] + c["fp"], c["metric_total"]
    if npos == 0 or nneg == 0:
        raise CountsError(f"adjusted classify-and-count needs paired rows of both human classes "
                          f"(tp + fn = {npos}, tn + fp = {nneg})")
    if N == 0:
        raise CountsError("metric_total=0: adjusted classify-and-count needs metric-only rows")
    tpr, fpr, q = c["tp"] / npos, c["fp"] / nneg, c["metric_pos"] / N
    gap = tpr - fpr
    if gap == 0.0:
        return PeerInterval(math.nan, 0.0, 1.0)
    theta = (q - fpr) / gap
    var = (q * (1 - q) / N + theta ** 2 * tpr * (1 - tpr) / npos
           + (1 - theta) ** 2 * fpr * (1 - fpr) / nneg) / gap ** 2
    half = z * math.sqrt(var)
    clip = lambda v: min(max(v, 0.0), 1.0)  # noqa: E731
    return PeerInterval(clip(theta), clip(theta - half), clip(theta + half))


def rank_sets(estimate: Sequence[float], covariance: Sequence[Sequence[float]],
              level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Rank-sets of prediction-powered ranking (Chatzi et al. 2024; module notes).

    Parameters
    ----------
    estimate : sequence of float
        One score per system (higher is better), e.g. PPI estimates of win rates.
    covariance : array-like (k, k)
        Covariance matrix of the estimates.
    level : float
        Probability with which all rank-sets cover the true ranking together (asymptotically).

    Returns
    -------
    lower, upper : ndarray of int
        Each system's rank-set ``[lower, upper]`` (rank 1 = the highest score).

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.validation import rank_sets
    >>> lo, hi = rank_sets([0.9, 0.5, 0.45], np.diag([0.02, 0.02, 0.02]) ** 2)
    >>> lo.tolist(), hi.tolist()
    ([1, 2, 2], [1, 3, 3])
    """
    _z(level)
    est = np.asarray(estimate, dtype=float)
    cov = np.asarray(covariance, dtype=float)
    k = est.size
    if est.ndim != 1 or cov.shape != (k, k) or not np.isfinite(est).all() \
            or not np.isfinite(cov).all():
        raise ParameterError(f"estimate must be {k} finite numbers and covariance a finite "
                             f"{k} x {k} matrix; got shapes {est.shape} and {cov.shape}")
    var = np.diag(cov)[:, None] + np.diag(cov)[None, :] - 2.0 * cov
    radius = np.sqrt(stats.chi2.ppf(float(level), k) * np.clip(var, 0.0, None))
    gap = est[:, None] - est[None, :]          # hat_i - hat_j
    below = gap + radius < 0                   # i surely below j
    np.fill_diagonal(below, False)
    lower = 1 + below.sum(axis=1)              # systems surely above i
    upper = k - below.sum(axis=0)              # systems surely below i
    return lower.astype(int), upper.astype(int)
