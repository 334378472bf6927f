"""Meta-evaluation by correlation: how well do metrics agree with human judgements?

Metric shared tasks (the WMT metrics task and its relatives) rank automatic metrics by their
correlation with human scores over a handful of systems.  With 7 to 20 systems, one correlation
carries a wide interval and the difference between two metrics is often well inside the noise.
This module gives the tools of Graham & Baldwin (2014) and Graham & Liu (2016):

* :func:`fisher_ci` -- the interval of one correlation via Fisher's r-to-z transform (asymmetric in
  r; for Spearman's rho and Kendall's tau with the variance adjustments of Bonett & Wright (2000)
  and Fieller, Hartley & Pearson (1957)).
* :func:`williams_test` -- Williams' (1959) t test of the difference of two *dependent, overlapping*
  correlations r12 and r13 (human vs metric A, human vs metric B) given r23 (metric A vs metric B).
* :func:`zou_ci` -- Zou's (2007) interval for r12 - r13, built from the two single intervals.
* :func:`correlate` -- a formula interface, ``correlate("human ~ bleu + chrf + comet", data)``,
  returning an immutable :class:`CorrelationResult` with every pairwise comparison.
* :func:`hybrid_supersample` -- hybrid super-sampling (Graham & Liu 2016): thousands of artificial
  systems mixing the segment outputs of pairs of real systems, to evaluate metrics on many systems.

Conventions
-----------
The WMT evaluation scripts report ``|r|`` (so that error metrics such as TER look good) and drop
human "systems" and outlier systems before correlating.  Here correlations keep their sign by
default: a metric where lower is better is flipped explicitly (``lower_is_better=["TER"]``, or a
term ``I(-TER)`` in the formula).  ``absolute=True`` reproduces the WMT convention by flipping every
metric whose correlation with the human score is negative; the flip is applied to the metric's
values, so the metric-metric correlations used by the Williams test change sign consistently.
Which systems to drop (human translations, outliers) is the caller's decision: filter the rows.

References
----------
Bonett, D. G., & Wright, T. A. (2000). Sample size requirements for estimating Pearson, Kendall and
Spearman correlations. Psychometrika, 65(1), 23-28.
Fieller, E. C., Hartley, H. O., & Pearson, E. S. (1957). Tests for rank correlation coefficients. I.
Biometrika, 44(3/4), 470-481.
Graham, Y., & Baldwin, T. (2014). Testing for significance of increased correlation with human
judgment. EMNLP 2014, 172-176.
Graham, Y., & Liu, Q. (2016). Achieving accurate conclusions in evaluation of automatic machine
translation metrics. NAACL 2016, 1-10.
Steiger, J. H. (1980). Tests for comparing elements of a correlation matrix. Psychological Bulletin,
87(2), 245-251.
Williams, E. J. (1959). The comparison of regression variables. JRSS B, 21(2), 396-399.
Zou, G. Y. (2007). Toward using confidence intervals to compare correlations. Psychological Methods,
12(4), 399-413.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import special, stats

from ._results import TestResult
from .data import _show
from .errors import DataError, InputTypeError, ParameterError
from .formula import parse_formula
from .summary import Summary

__all__ = [
    "CorrelationResult",
    "WilliamsResult",
    "correlate",
    "fisher_ci",
    "hybrid_supersample",
    "williams_test",
    "zou_ci",
]

_METHODS = ("pearson", "spearman", "kendall")
_ALTERNATIVES = ("greater", "less", "two-sided")
# Determinants of valid correlation matrices computed in floating point can come out a few ulps
# below zero (e.g. two identical metrics); only clearly negative ones are rejected.
_DET_TOL = 1e-12

_INTERVAL_NAMES = {
    "pearson": "Fisher z, se = 1/sqrt(n - 3)",
    "spearman": "Fisher z with the Bonett-Wright (2000) variance (1 + r^2/2)/(n - 3)",
    "kendall": "Fisher z with the Fieller-Hartley-Pearson (1957) variance 0.437/(n - 4)",
}


# ---------------------------------------------------------------------------------------------
# argument checks
# ---------------------------------------------------------------------------------------------
def _real(name: str, value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__}); "
                             "pass a float")
    v = float(value)
    if not math.isfinite(v):
        raise ParameterError(f"{name} must be finite, got {v}; pass a correlation in [-1, 1]")
    return v


def _corr_arg(name: str, value: Any) -> float:
    v = _real(name, value)
    if abs(v) > 1:
        raise ParameterError(f"{name} = {v} is not a correlation: |{name}| must be <= 1; "
                             "check that you passed correlations, not scores or covariances")
    return v


def _n_arg(n: Any, method: str = "pearson") -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"n must be an integer number of systems, got {n!r} ({type(n).__name__})")
    if not float(n).is_integer():
        raise ParameterError(f"n must be a whole number of systems, got {n}")
    n = int(n)
    low = 5 if method == "kendall" else 4
    if n < low:
        extra = " (the Kendall variance 0.437/(n - 4) needs n >= 5)" if method == "kendall" else ""
        raise ParameterError(f"n = {n} systems is too few: these intervals and tests need n >= {low}"
                             f"{extra}; with so few systems no correlation can be compared")
    return n


def _level_arg(level: Any) -> float:
    v = _real("level", level)
    if not 0 < v < 1:
        raise ParameterError(f"level must be in (0, 1), e.g. 0.95, got {v}")
    return v


def _method_arg(method: Any) -> str:
    if not isinstance(method, str) or method.lower() not in _METHODS:
        raise ParameterError(f"method must be one of {_METHODS}, got {method!r}")
    return method.lower()


def _alternative_arg(alternative: Any) -> str:
    if alternative not in _ALTERNATIVES:
        raise ParameterError(f"alternative must be one of {_ALTERNATIVES}, got {alternative!r}; "
                             "'greater' tests r12 > r13 (metric A closer to the humans than metric B)")
    return alternative


def _det3(r12, r13, r23):
    """Determinant of the 3 x 3 correlation matrix (Williams' K)."""
    return 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23


def _triple_arg(r12: Any, r13: Any, r23: Any) -> tuple[float, float, float, float]:
    r12, r13, r23 = _corr_arg("r12", r12), _corr_arg("r13", r13), _corr_arg("r23", r23)
    k = _det3(r12, r13, r23)
    if k < -_DET_TOL:
        raise ParameterError(
            f"(r12, r13, r23) = ({r12}, {r13}, {r23}) is not a valid correlation matrix: its "
            f"determinant is {k:.6g} < 0, so no three variables have these correlations; check that "
            "r23 is the correlation between the two metrics computed on the same systems")
    return r12, r13, r23, max(k, 0.0)


# ---------------------------------------------------------------------------------------------
# vectorised kernels (no checks; arrays broadcast)
# ---------------------------------------------------------------------------------------------
def _z_se(r, n, method: str):
    r = np.asarray(r, dtype=float)
    if method == "pearson":
        return np.broadcast_to(1.0 / np.sqrt(n - 3.0), r.shape)
    if method == "spearman":
        return np.sqrt((1.0 + r ** 2 / 2.0) / (n - 3.0))
    return np.broadcast_to(np.sqrt(0.437 / (n - 4.0)), r.shape)


def _fisher_bounds(r, n, level: float, method: str):
    r = np.asarray(r, dtype=float)
    q = special.ndtri((1.0 + level) / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.arctanh(r)
        half = q * _z_se(r, n, method)
        low = np.tanh(z - half)
        high = np.tanh(z + half)
    # r = +-1: the transform is infinite and the interval collapses on r
    edge = np.abs(r) == 1
    low = np.where(edge, r, low)
    high = np.where(edge, r, high)
    return low, high


def _williams_t(r12, r13, r23, n):
    r12, r13, r23 = (np.asarray(v, dtype=float) for v in (r12, r13, r23))
    k = np.maximum(_det3(r12, r13, r23), 0.0)
    num = (r12 - r13) * np.sqrt((n - 1.0) * (1.0 + r23))
    den2 = 2.0 * k * (n - 1.0) / (n - 3.0) + (r12 + r13) ** 2 * (1.0 - r23) ** 3 / 4.0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = num / np.sqrt(den2)
    # 0/0 happens only for two identical metrics (r23 = 1, r12 = r13): no difference at all
    return np.where((den2 == 0) & (num == 0), 0.0, t)


def _t_pvalue(t, df, alternative: str):
    if alternative == "greater":
        return stats.t.sf(t, df)
    if alternative == "less":
        return stats.t.cdf(t, df)
    return 2.0 * stats.t.sf(np.abs(t), df)


def _zou_bounds(r12, r13, r23, n, level: float, method: str):
    r12, r13, r23 = (np.asarray(v, dtype=float) for v in (r12, r13, r23))
    l1, u1 = _fisher_bounds(r12, n, level, method)
    l2, u2 = _fisher_bounds(r13, n, level, method)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = (((r23 - r12 * r13 / 2.0) * (1.0 - r12 ** 2 - r13 ** 2 - r23 ** 2) + r23 ** 3)
             / ((1.0 - r12 ** 2) * (1.0 - r13 ** 2)))
        a, b = r12 - l1, u2 - r13
        low = r12 - r13 - np.sqrt(a ** 2 + b ** 2 - 2.0 * c * a * b)
        a, b = u1 - r12, r13 - l2
        high = r12 - r13 + np.sqrt(a ** 2 + b ** 2 - 2.0 * c * a * b)
    # c is undefined when one correlation is +-1 (R's cocor returns NA there too)
    bad = ~np.isfinite(c)
    return np.where(bad, np.nan, low), np.where(bad, np.nan, high)


# ---------------------------------------------------------------------------------------------
# single-number functions
# ---------------------------------------------------------------------------------------------
def fisher_ci(r: float, n: int, level: float = 0.95, *, method: str = "pearson") -> tuple[float, float]:
    """Confidence interval of one correlation from Fisher's r-to-z transform.

    The interval is ``tanh(atanh(r) -+ z_q * se)`` with ``z_q`` the normal quantile at
    ``(1 + level) / 2``; it is asymmetric around ``r`` and stays inside [-1, 1].

    Parameters
    ----------
    r : float
        The correlation, ``|r| <= 1``.  ``r = +-1`` gives the degenerate interval ``(r, r)``.
    n : int
        Number of paired observations (systems), at least 4 (5 for Kendall).
    level : float
        Confidence level.
    method : {"pearson", "spearman", "kendall"}
        Which correlation ``r`` is.  Pearson: ``se = 1/sqrt(n - 3)`` (R's ``cor.test``, scipy's
        ``pearsonr(...).confidence_interval()``).  Spearman: ``se^2 = (1 + r^2/2)/(n - 3)``
        (Bonett & Wright 2000).  Kendall: ``se^2 = 0.437/(n - 4)`` (Fieller, Hartley & Pearson 1957).

    Returns
    -------
    (low, high) : tuple of float

    Examples
    --------
    >>> low, high = fisher_ci(0.9, 16)
    >>> round(low, 4), round(high, 4)
    (0.73, 0.9651)
    """
    method = _method_arg(method)
    r, n, level = _corr_arg("r", r), _n_arg(n, method), _level_arg(level)
    low, high = _fisher_bounds(r, n, level, method)
    return float(low), float(high)


@dataclass(frozen=True, repr=False)
class WilliamsResult(TestResult):
    """Williams' t test of two dependent, overlapping correlations.

    Unpacks to ``(statistic, pvalue)``; the other fields are reached by name.

    Attributes
    ----------
    statistic : float
        Williams' t.
    pvalue : float
        p-value for ``alternative``.
    df : int
        Degrees of freedom, ``n - 3``.
    alternative : str
        ``"greater"`` (r12 > r13), ``"less"`` or ``"two-sided"``.
    r12, r13, r23 : float
        The correlations tested (1 = human, 2 = metric A, 3 = metric B).
    n : int
        Number of systems.

    Examples
    --------
    >>> res = williams_test(0.95, 0.90, 0.90, 16)
    >>> round(res.statistic, 4), round(res.p_value, 4), res.df
    (1.3528, 0.0996, 13)
    >>> [round(v, 4) for v in res.confidence_interval(0.95)]
    [-0.0301, 0.2055]
    """

    df: int = 0
    alternative: str = "greater"
    r12: float = math.nan
    r13: float = math.nan
    r23: float = math.nan
    n: int = 0

    def confidence_interval(self, confidence_level: float = 0.95) -> tuple[float, float]:
        """Zou's (2007) interval for ``r12 - r13`` (see :func:`zou_ci`)."""
        return zou_ci(self.r12, self.r13, self.r23, self.n, level=confidence_level)

    def summary(self) -> Summary:
        """A printable summary."""
        frame = pd.DataFrame({"r12": [self.r12], "r13": [self.r13], "r23": [self.r23],
                              "diff": [self.r12 - self.r13], "statistic": [self.statistic],
                              "df": [self.df], "p_value": [self.p_value]})
        return Summary("Williams test of dependent correlations r12 vs r13",
                       {"n": self.n, "alternative": self.alternative}, [("", frame)],
                       ["1 = human, 2 = metric A, 3 = metric B; 'greater' tests r12 > r13."])

    def __str__(self) -> str:
        return self.summary().as_text()

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return self.summary().as_html()


def williams_test(r12: float, r13: float, r23: float, n: int,
                  alternative: str = "greater") -> WilliamsResult:
    """Williams' (1959) test of ``r12 = r13`` for two correlations sharing variable 1.

    With ``K = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23`` (the determinant of the correlation
    matrix),

    ``t = (r12 - r13) sqrt((n - 1)(1 + r23)) / sqrt(2 K (n - 1)/(n - 3) + (r12 + r13)^2 (1 - r23)^3 / 4)``

    on ``n - 3`` degrees of freedom (Steiger 1980, eq. 7; the test Graham & Baldwin 2014 use for MT
    metrics).  Same numbers as R's ``psych::r.test(n, r12, r13, r23)`` and
    ``cocor.dep.groups.overlap(..., test="williams1959")``.

    Parameters
    ----------
    r12 : float
        Correlation of the human score with metric A.
    r13 : float
        Correlation of the human score with metric B.
    r23 : float
        Correlation between metrics A and B (same systems).
    n : int
        Number of systems, at least 4.
    alternative : {"greater", "less", "two-sided"}
        ``"greater"``: metric A correlates more strongly (``r12 > r13``); the sign of ``t`` is
        respected, so a negative ``t`` gives ``p > 0.5``.  (mt-metrics-eval's one-sided p uses
        ``|t|`` and ignores the direction.)

    Returns
    -------
    WilliamsResult
        Unpacks to ``(statistic, pvalue)``; also ``df``, ``alternative`` and the inputs.

    Raises
    ------
    ParameterError
        ``n < 4``, ``|r| > 1``, or a triple that is no correlation matrix (negative determinant).

    Examples
    --------
    >>> t, p = williams_test(0.95, 0.90, 0.90, 12, alternative="two-sided")
    >>> round(t, 6), round(p, 6)
    (1.126297, 0.289175)
    """
    r12, r13, r23, _ = _triple_arg(r12, r13, r23)
    n = _n_arg(n)
    alternative = _alternative_arg(alternative)
    t = float(_williams_t(r12, r13, r23, n))
    p = float(_t_pvalue(t, n - 3, alternative))
    return WilliamsResult(statistic=t, p_value=p, method="Williams (1959) t test", df=n - 3,
                          alternative=alternative, r12=r12, r13=r13, r23=r23, n=n)


def zou_ci(r12: float, r13: float, r23: float, n: int, level: float = 0.95, *,
           method: str = "pearson") -> tuple[float, float]:
    """Zou's (2007) confidence interval for the difference ``r12 - r13`` of dependent correlations.

    From the single intervals ``(l1, u1)`` of ``r12`` and ``(l2, u2)`` of ``r13`` (see
    :func:`fisher_ci`) and the correlation of the two estimates

    ``c = ((r23 - r12 r13 / 2)(1 - r12^2 - r13^2 - r23^2) + r23^3) / ((1 - r12^2)(1 - r13^2))``,

    ``L = r12 - r13 - sqrt((r12 - l1)^2 + (u2 - r13)^2 - 2 c (r12 - l1)(u2 - r13))`` and
    ``U = r12 - r13 + sqrt((u1 - r12)^2 + (r13 - l2)^2 - 2 c (u1 - r12)(r13 - l2))``.
    Same numbers as ``cocor.dep.groups.overlap(..., test="zou2007")``.

    Parameters
    ----------
    r12, r13, r23 : float
        As in :func:`williams_test`.
    n : int
        Number of systems, at least 4 (5 for Kendall).
    level : float
        Confidence level.
    method : {"pearson", "spearman", "kendall"}
        Which single intervals to combine (see :func:`fisher_ci`); ``c`` is the Pearson expression,
        an approximation for rank correlations.

    Returns
    -------
    (low, high) : tuple of float
        ``(nan, nan)`` when ``|r12|`` or ``|r13|`` is 1 (``c`` is undefined; cocor gives NA).

    Examples
    --------
    >>> low, high = zou_ci(0.95, 0.90, 0.90, 12)
    >>> round(low, 6), round(high, 6)
    (-0.055455, 0.259031)
    """
    method = _method_arg(method)
    r12, r13, r23, _ = _triple_arg(r12, r13, r23)
    n, level = _n_arg(n, method), _level_arg(level)
    low, high = _zou_bounds(r12, r13, r23, n, level, method)
    return float(low), float(high)


# ---------------------------------------------------------------------------------------------
# correlation matrices
# ---------------------------------------------------------------------------------------------
def _kendall_from_signs(values: np.ndarray) -> np.ndarray:
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


_SIGN_LIMIT = 300  # largest n for the sign-matrix Kendall (n^2 memory); scipy beyond


def _corr_matrix(values: np.ndarray, method: str) -> np.ndarray:
    """Correlation matrix of the columns of ``values`` (rows = observations)."""
    if method == "spearman":
        values = stats.rankdata(values, axis=0)
    if method in ("pearson", "spearman"):
        x = values - values.mean(axis=0)
        x = x / np.sqrt((x ** 2).sum(axis=0))
        r = x.T @ x
    elif values.shape[0] <= _SIGN_LIMIT:
        r = _kendall_from_signs(values)
    else:
        k = values.shape[1]
        r = np.eye(k)
        for i in range(k):
            for j in range(i + 1, k):
                r[i, j] = r[j, i] = stats.kendalltau(values[:, i], values[:, j]).statistic
    r = np.clip(r, -1.0, 1.0)
    np.fill_diagonal(r, 1.0)
    return r


def _batch_corr_with_first(values: np.ndarray, method: str) -> np.ndarray:
    """Correlation of column 0 with every other column, for a batch ``(..., n, k + 1)``."""
    if method == "spearman":
        values = stats.rankdata(values, axis=-2)
    if method == "kendall":
        if values.shape[-2] <= _SIGN_LIMIT:
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


def _label(code: str) -> str:
    """``Q("chrF++")`` -> ``chrF++``; other terms keep their text."""
    m = re.fullmatch(r"""Q\(\s*(['"])(.*)\1\s*\)""", code.strip())
    return m.group(2) if m else code


def _permutation_pvalue(null: np.ndarray, observed: float, alternative: str, exact: bool) -> float:
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


# ---------------------------------------------------------------------------------------------
# the result
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False, eq=False)
class CorrelationResult:
    """Correlations of several metrics with a human score over the same systems.

    Built by :func:`correlate`; immutable (accessors return copies).

    Attributes
    ----------
    formula : str
        The formula given.
    method : str
        ``"pearson"``, ``"spearman"`` or ``"kendall"``.
    level : float
        Default confidence level of intervals.
    human : str
        Name of the human score.
    metrics : tuple of str
        Metric names, in formula order.
    n : int
        Number of systems used.
    rows_used, rows_dropped : int
        Input rows used and dropped (missing values in any used column).
    aggregated : bool
        Whether segment rows were averaged per system (``| system`` in the formula).
    flipped : tuple of str
        Metrics whose values were negated (``lower_is_better`` or ``absolute=True``).
    absolute : bool
        Whether the WMT ``|r|`` convention was requested.

    Notes
    -----
    The result is a frozen dataclass: attributes cannot be reassigned, the stored correlation
    matrix is read-only, and ``scores``, ``correlation_matrix``, ``r`` and every table are fresh
    copies.  ``pairwise()`` and ``significance_matrix()`` use Williams' t (p-values) and Zou's
    interval; ``bootstrap()`` and ``permutation_test()`` give resampling alternatives.

    Examples
    --------
    >>> import pandas as pd
    >>> d = pd.DataFrame({"human": [0.1, 0.4, 0.35, 0.8, 0.9, 0.2],
    ...                   "bleu": [20.0, 24, 23, 27, 30, 22], "chrf": [50.0, 49, 55, 58, 57, 52]})
    >>> res = correlate("human ~ bleu + chrf", d)
    >>> res.n, res.metrics
    (6, ('bleu', 'chrf'))
    >>> res.pairwise()[["metric_1", "metric_2", "p_value"]].round(3).values.tolist()
    [['bleu', 'chrf', 0.049], ['chrf', 'bleu', 0.951]]
    """

    formula: str
    method: str
    level: float
    human: str
    metrics: tuple[str, ...]
    n: int
    rows_used: int
    rows_dropped: int
    aggregated: bool
    flipped: tuple[str, ...]
    absolute: bool
    _scores: pd.DataFrame = field(repr=False)
    _corr: np.ndarray = field(repr=False)

    # -- data -----------------------------------------------------------------------------
    @property
    def scores(self) -> pd.DataFrame:
        """System-level scores used (one row per system, flipped metrics already negated)."""
        return self._scores.copy()

    @property
    def correlation_matrix(self) -> pd.DataFrame:
        """Full correlation matrix of the human score and the metrics."""
        names = [self.human, *self.metrics]
        return pd.DataFrame(self._corr.copy(), index=names, columns=names)

    @property
    def r(self) -> pd.Series:
        """Correlation of each metric with the human score."""
        return pd.Series(self._corr[0, 1:].copy(), index=list(self.metrics), name="r")

    def _level(self, level: float | None) -> float:
        return self.level if level is None else _level_arg(level)

    # -- tables -----------------------------------------------------------------------------
    def to_frame(self, level: float | None = None) -> pd.DataFrame:
        """One row per metric: ``metric, r, lower, upper, n``.

        ``lower``/``upper`` are the Fisher interval (with the rank-correlation variance for
        Spearman/Kendall, see :func:`fisher_ci`); ``level``, ``method`` and ``interval`` in attrs.
        """
        level = self._level(level)
        r = self._corr[0, 1:]
        low, high = _fisher_bounds(r, self.n, level, self.method)
        out = pd.DataFrame({"metric": list(self.metrics), "r": r, "lower": low, "upper": high,
                            "n": self.n})
        out.attrs.update(level=level, method=self.method, interval=_INTERVAL_NAMES[self.method])
        return out

    def interval(self, level: float = 0.95) -> pd.DataFrame:
        """Fisher intervals of the single correlations: DataFrame[lower, upper] indexed by metric."""
        frame = self.to_frame(level).set_index("metric")[["lower", "upper"]]
        frame.attrs.update(level=_level_arg(level), method=self.method,
                           interval=_INTERVAL_NAMES[self.method])
        return frame

    def pairwise(self, level: float | None = None, alternative: str = "greater",
                 alpha: float = 0.05) -> pd.DataFrame:
        """Every ordered pair of metrics: difference, Zou interval, Williams t and p.

        Parameters
        ----------
        level : float, optional
            Level of Zou's interval for ``r_1 - r_2`` (default: the result's level).
        alternative : {"greater", "less", "two-sided"}
            Alternative of the Williams test; ``"greater"``: metric_1 correlates more strongly
            with the human score than metric_2.
        alpha : float
            Threshold for the ``significant`` column (``p_value < alpha``).

        Returns
        -------
        DataFrame
            Columns ``metric_1, metric_2, r_1, r_2, r_23, diff, lower, upper, statistic, df,
            p_value, significant``; attrs hold ``alternative``, ``level``, ``alpha``, ``method``.
        """
        level = self._level(level)
        alternative = _alternative_arg(alternative)
        alpha = _real("alpha", alpha)
        if not 0 < alpha < 1:
            raise ParameterError(f"alpha must be in (0, 1), got {alpha}")
        k = len(self.metrics)
        i, j = np.nonzero(~np.eye(k, dtype=bool))
        r1, r2 = self._corr[0, 1 + i], self._corr[0, 1 + j]
        r23 = self._corr[1 + i, 1 + j]
        t = _williams_t(r1, r2, r23, self.n)
        p = _t_pvalue(t, self.n - 3, alternative)
        low, high = _zou_bounds(r1, r2, r23, self.n, level, self.method)
        names = np.asarray(self.metrics, dtype=object)
        out = pd.DataFrame({"metric_1": names[i], "metric_2": names[j], "r_1": r1, "r_2": r2,
                            "r_23": r23, "diff": r1 - r2, "lower": low, "upper": high,
                            "statistic": t, "df": self.n - 3, "p_value": p,
                            "significant": p < alpha})
        out.attrs.update(alternative=alternative, level=level, alpha=alpha, method=self.method,
                         test="Williams (1959) t", interval="Zou (2007)")
        return out

    def significance_matrix(self, alternative: str = "greater", order: str = "r") -> pd.DataFrame:
        """Square DataFrame of Williams p-values (Graham & Liu 2016, Fig. 3).

        Cell ``(i, j)`` is the p-value of "metric i correlates more strongly than metric j"
        (``alternative="greater"``); the diagonal is NaN.  ``order="r"`` sorts metrics by
        decreasing correlation, ``order="formula"`` keeps the formula order.
        """
        pw = self.pairwise(alternative=alternative)
        mat = pw.pivot(index="metric_1", columns="metric_2", values="p_value")
        if order == "r":
            names = list(self.r.sort_values(ascending=False, kind="stable").index)
        elif order == "formula":
            names = list(self.metrics)
        else:
            raise ParameterError(f"order must be 'r' or 'formula', got {order!r}")
        mat = mat.reindex(index=names, columns=names)
        mat.index.name, mat.columns.name = "metric_1", "metric_2"
        mat.attrs.update(alternative=alternative, method=self.method, test="Williams (1959) t")
        return mat

    # -- resampling alternatives --------------------------------------------------------------
    def bootstrap(self, n_resamples: int = 9999, *, seed: int | None = None,
                  level: float | None = None, ci_method: str = "BCa") -> pd.DataFrame:
        """Bootstrap (resampling systems) intervals of each r and of each difference of r.

        Uses :func:`scipy.stats.bootstrap` over system indices, so the human score and all metrics
        are resampled together.

        Returns
        -------
        DataFrame
            Columns ``metric_1, metric_2, estimate, std_error, lower, upper``; rows with
            ``metric_2`` empty are single correlations, the others differences ``r_1 - r_2``
            (``i < j`` in formula order).  attrs: ``level``, ``seed``, ``n_resamples``, ``method``.
        """
        level = self._level(level)
        values = self._scores[[self.human, *self.metrics]].to_numpy(float)
        k = len(self.metrics)
        iu, ju = np.triu_indices(k, 1)

        def statistic(idx, axis=-1):
            idx = np.asarray(idx).astype(int)
            r = _batch_corr_with_first(values[idx], self.method)  # (..., k)
            return np.moveaxis(np.concatenate([r, r[..., iu] - r[..., ju]], axis=-1), -1, 0)

        res = stats.bootstrap((np.arange(self.n, dtype=float),), statistic, n_resamples=n_resamples,
                              confidence_level=level, method=ci_method, vectorized=True,
                              random_state=np.random.default_rng(seed))
        est = statistic(np.arange(self.n)[None, :])[:, 0]
        names = list(self.metrics)
        out = pd.DataFrame({
            "metric_1": names + [names[a] for a in iu],
            "metric_2": [""] * k + [names[b] for b in ju],
            "estimate": est,
            "std_error": res.standard_error,
            "lower": res.confidence_interval.low,
            "upper": res.confidence_interval.high,
        })
        out.attrs.update(level=level, seed=seed, n_resamples=n_resamples, method=self.method,
                         interval=f"bootstrap ({ci_method}) over systems")
        return out

    def permutation_test(self, n_resamples: int = 9999, *, seed: int | None = None,
                         alternative: str = "greater") -> pd.DataFrame:
        """Paired permutation test of ``r_1 = r_2`` for every ordered pair of metrics.

        For each system the (standardised) scores of the two metrics are swapped at random, with
        :func:`scipy.stats.permutation_test` (``permutation_type="samples"``; exact when
        ``2^n <= n_resamples``).  The statistic is ``r(human, metric_1) - r(human, metric_2)``.

        Returns
        -------
        DataFrame
            Columns ``metric_1, metric_2, diff, p_value``; attrs ``alternative``, ``seed``,
            ``n_resamples``, ``method``.
        """
        alternative = _alternative_arg(alternative)
        if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
            raise ParameterError(f"n_resamples must be a positive integer, got {n_resamples!r}")
        rng = np.random.default_rng(seed)
        values = self._scores[[self.human, *self.metrics]].to_numpy(float)
        z = (values - values.mean(axis=0)) / values.std(axis=0)
        human = z[:, 0]
        method = self.method
        k = len(self.metrics)

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
        else:

            def statistic(x, y, axis=-1):
                x, y = np.moveaxis(np.asarray(x), axis, -1), np.moveaxis(np.asarray(y), axis, -1)
                both = np.stack([np.broadcast_to(human, x.shape), x, y], axis=-1)
                r = _batch_corr_with_first(both, method)
                return r[..., 0] - r[..., 1]

        # One scipy call per unordered pair: swapping the metrics negates the statistic and its
        # null distribution, so the reversed pair's p-value comes from the same draws.
        exact = 2.0 ** self.n <= n_resamples
        rows = {}
        for a in range(k):
            for b in range(a + 1, k):
                res = stats.permutation_test((z[:, 1 + a], z[:, 1 + b]), statistic,
                                             permutation_type="samples", vectorized=True,
                                             n_resamples=n_resamples, alternative=alternative,
                                             random_state=rng)
                obs = float(res.statistic)
                mirrored = {"greater": "less", "less": "greater", "two-sided": "two-sided"}[alternative]
                p_rev = _permutation_pvalue(res.null_distribution, obs, mirrored, exact)
                rows[a, b] = (self.metrics[a], self.metrics[b], obs, float(res.pvalue))
                rows[b, a] = (self.metrics[b], self.metrics[a], -obs, p_rev)
        rows = [rows[a, b] for a in range(k) for b in range(k) if a != b]
        out = pd.DataFrame(rows, columns=["metric_1", "metric_2", "diff", "p_value"])
        out.attrs.update(alternative=alternative, seed=seed, n_resamples=n_resamples,
                         method=self.method, test="paired permutation of standardised metric scores")
        return out

    # -- display ------------------------------------------------------------------------------
    def summary(self) -> Summary:
        """Correlations with intervals, and the pairwise significance when there are few metrics."""
        info = {
            "formula": self.formula,
            "method": self.method,
            "systems (n)": self.n,
            "rows used": self.rows_used,
            "rows dropped (missing)": self.rows_dropped,
            "aggregated per system": self.aggregated,
            "interval": f"{self.level:.0%} {_INTERVAL_NAMES[self.method]}",
        }
        if self.flipped:
            info["flipped (negated) metrics"] = ", ".join(self.flipped)
        tables = [("Correlation with " + self.human, self.to_frame().set_index("metric"))]
        if 2 <= len(self.metrics) <= 12:
            tables.append(("Williams p-values, row beats column (one-sided)",
                           self.significance_matrix()))
        notes = ["Correlations keep their sign (no |r|); metrics where lower is better must be "
                 "flipped explicitly (lower_is_better=..., or absolute=True for the WMT convention)."]
        if self.method != "pearson":
            notes.append("Williams' t and Zou's c assume Pearson correlations; for rank correlations "
                         "they are approximations (see bootstrap() and permutation_test()).")
        return Summary(f"Correlation with human judgements ({self.method})", info, tables, notes)

    def __str__(self) -> str:
        return self.summary().as_text()

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return self.summary().as_html()

    def plot(self, kind: str = "heatmap", ax=None, *, alpha: float = 0.05, **kwargs):
        """Plot the significance heatmap or a forest plot of the intervals.

        Parameters
        ----------
        kind : {"heatmap", "forest"}
            ``"heatmap"``: Williams p-values, row metric beating column metric, cells with
            ``p >= alpha`` left blank (Graham & Liu 2016, Fig. 3).  ``"forest"``: each metric's r
            with its Fisher interval, sorted by r (Graham & Liu 2016, Fig. 5).
        ax : matplotlib Axes, optional
            Where to draw; a new figure otherwise.
        alpha : float
            Significance threshold of the heatmap.
        **kwargs
            Passed to ``imshow`` (heatmap) or ``errorbar`` (forest).

        Returns
        -------
        matplotlib.axes.Axes
        """
        import matplotlib.pyplot as plt

        if kind not in ("heatmap", "forest"):
            raise ParameterError(f"kind must be 'heatmap' or 'forest', got {kind!r}")
        if ax is None:
            k = len(self.metrics)
            size = (max(4.0, 0.45 * k + 2), max(3.0, 0.45 * k + 1.5))
            _, ax = plt.subplots(figsize=size)
        if kind == "heatmap":
            mat = self.significance_matrix()
            p = mat.to_numpy(float)
            shown = np.ma.masked_where(~(p < alpha), p)
            opts = {"cmap": "Greens_r", "vmin": 0.0, "vmax": alpha}
            opts.update(kwargs)
            im = ax.imshow(shown, aspect="equal", **opts)
            ax.set_xticks(range(len(mat.columns)), labels=list(mat.columns), rotation=90)
            ax.set_yticks(range(len(mat.index)), labels=list(mat.index))
            ax.set_xlabel("metric 2")
            ax.set_ylabel("metric 1")
            ax.set_xticks(np.arange(-0.5, len(mat.columns)), minor=True)
            ax.set_yticks(np.arange(-0.5, len(mat.index)), minor=True)
            ax.grid(which="minor", color="0.85", linewidth=0.5)
            ax.tick_params(which="minor", length=0)
            ax.set_title("Williams p: metric 1 beats metric 2")
            ax.figure.colorbar(im, ax=ax, label=f"p-value (blank: p >= {alpha:g})")
        else:
            fr = self.to_frame().sort_values("r", kind="stable")
            y = np.arange(len(fr))
            opts = {"fmt": "o", "color": "black", "capsize": 3}
            opts.update(kwargs)
            ax.errorbar(fr["r"], y, xerr=[fr["r"] - fr["lower"], fr["upper"] - fr["r"]], **opts)
            ax.set_yticks(y, labels=list(fr["metric"]))
            ax.set_xlabel(f"{self.method} r with {self.human} ({self.level:.0%} interval, n = {self.n})")
        return ax


# ---------------------------------------------------------------------------------------------
# the formula interface
# ---------------------------------------------------------------------------------------------
def correlate(formula: str, data: pd.DataFrame, *, method: str = "pearson", level: float = 0.95,
              lower_is_better: Sequence[str] = (), absolute: bool = False) -> CorrelationResult:
    """Correlate metrics with a human score over systems: ``"human ~ bleu + chrf + comet"``.

    Parameters
    ----------
    formula : str
        ``human ~ metric_1 + metric_2 + ...`` on system-level data (one row per system), or
        ``human ~ metrics | system`` on segment-level data: rows are then averaged per system
        first.  Terms may be expressions (``I(-TER)``, ``Q("chrF++")``).
    data : DataFrame
        The scores.
    method : {"pearson", "spearman", "kendall"}
        Correlation coefficient.  Intervals: Fisher z (Pearson), with the Bonett & Wright (2000)
        variance for Spearman and the Fieller, Hartley & Pearson (1957) variance for Kendall.
    level : float
        Default confidence level.
    lower_is_better : sequence of str
        Metrics (term names) to negate before correlating (e.g. TER).
    absolute : bool
        Negate every metric whose correlation with the human score is negative (the WMT ``|r|``
        convention, applied consistently to the metric-metric correlations).

    Returns
    -------
    CorrelationResult

    Raises
    ------
    FormulaError
        Unknown columns, missing ``~``.
    DataError
        Fewer than 4 systems, constant columns, non-numeric scores, duplicated systems.

    Notes
    -----
    Rows with a missing value in any used column are dropped (listwise, so every correlation uses
    the same systems, as the Williams test requires); counts are kept in ``rows_used`` and
    ``rows_dropped``.  With ``| system`` the means per system are taken over the rows kept.

    Examples
    --------
    >>> import pandas as pd
    >>> d = pd.DataFrame({"human": [1, 2, 3, 4, 5.5], "bleu": [10, 12, 11, 15, 16.0],
    ...                   "ter": [0.9, 0.8, 0.85, 0.6, 0.5]})
    >>> res = correlate("human ~ bleu + ter", d, lower_is_better=["ter"])
    >>> res.to_frame()[["metric", "r"]].round(3).values.tolist()
    [['bleu', 0.918], ['ter', 0.929]]
    """
    method = _method_arg(method)
    level = _level_arg(level)
    parsed = parse_formula(formula, allow_groups=True, allow_multiple_rhs=True,
                           allow_intercept_rhs=False)
    if len(parsed.lhs) != 1:
        from .errors import FormulaError

        raise FormulaError(f"the left side must be one human score, got {parsed.lhs_names}",
                           formula)
    if not parsed.rhs:
        from .errors import FormulaError

        raise FormulaError("the right side must name at least one metric", formula)
    frame = parsed.evaluate(data, eval_env=1)
    human = _label(parsed.lhs_names[0])
    names = [_label(c) for c in parsed.rhs_names]
    if len(set(names)) != len(names) or human in names:
        raise DataError(f"metric names must be distinct and differ from the human score; got "
                        f"{human!r} ~ {names}")
    table = pd.concat([frame.lhs, frame.rhs], axis=1)
    table.columns = [human, *names]
    for col in table.columns:
        series = table[col]
        if pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series):
            try:
                table[col] = pd.to_numeric(series).astype(float)
            except (TypeError, ValueError):
                raise DataError(f"column {col!r} is not numeric (e.g. {series.iloc[0]!r}); "
                                "pass numeric scores") from None
    table = table.astype(float)
    n_rows = len(table)
    keep = table.notna().all(axis=1)
    if frame.group is not None:
        keep &= frame.group.notna()
    rows_used = int(keep.sum())
    table = table[keep]
    aggregated = frame.group is not None
    if aggregated:
        group = frame.group[keep]
        table = table.groupby(group.to_numpy(), sort=True).mean()
        table.index.name = frame.group.name
    n = len(table)
    if n < 4:
        raise DataError(f"only {n} systems with complete scores (rows used {rows_used} of {n_rows});"
                        " correlation intervals and tests need at least 4 systems")
    if method == "kendall" and n < 5:
        raise DataError(f"only {n} systems: Kendall intervals need at least 5 systems")
    for col in table.columns:
        if np.ptp(table[col].to_numpy()) == 0:
            raise DataError(f"column {col!r} is constant over the {n} systems (value "
                            f"{_show(table[col].iloc[0])}); its correlation is undefined: drop it")
    unknown = [m for m in lower_is_better if m not in names]
    if isinstance(lower_is_better, str) or unknown:
        raise ParameterError(f"lower_is_better must be a list of metric names from {names}; "
                             f"got {lower_is_better!r}")
    flipped = list(dict.fromkeys(lower_is_better))
    for m in flipped:
        table[m] = -table[m]
    corr = _corr_matrix(table.to_numpy(), method)
    if absolute:
        neg = [m for a, m in enumerate(names) if corr[0, 1 + a] < 0]
        for m in neg:
            table[m] = -table[m]
        flipped = [m for m in flipped if m not in neg] + [m for m in neg if m not in flipped]
        sign = np.array([1.0] + [-1.0 if m in neg else 1.0 for m in names])
        corr = corr * np.outer(sign, sign)
    corr.setflags(write=False)
    return CorrelationResult(formula=formula, method=method, level=level, human=human,
                             metrics=tuple(names), n=n, rows_used=rows_used,
                             rows_dropped=n_rows - rows_used, aggregated=aggregated,
                             flipped=tuple(flipped), absolute=bool(absolute), _scores=table,
                             _corr=corr)


# ---------------------------------------------------------------------------------------------
# hybrid super-sampling
# ---------------------------------------------------------------------------------------------
def hybrid_supersample(data: pd.DataFrame, *, system: str, item: str, human: str,
                       metrics: Sequence[str], n_systems: int = 10000, seed: int | None = None,
                       rater: str | None = None, chunk_size: int = 500) -> pd.DataFrame:
    """Hybrid super-sampling of systems (Graham & Liu 2016).

    Each hybrid system takes a random pair of distinct real systems ``(a, b)`` and, for every
    segment, the output of ``a`` or of ``b`` with probability 1/2.  Its human and metric scores
    are the means over segments of the chosen outputs' segment scores (for corpus-level metrics
    such as BLEU, supply segment-level scores: the hybrid's score is their mean).

    Parameters
    ----------
    data : DataFrame
        Segment-level scores, one row per (system, item) (or per rating when ``rater`` is given).
    system, item : str
        Columns naming the system and the segment.
    human : str
        Column of the human score.
    metrics : sequence of str
        Metric columns.
    n_systems : int
        Number of hybrid systems.
    seed : int, optional
        Seed of :func:`numpy.random.default_rng`; the output does not depend on ``chunk_size``.
    rater : str, optional
        Column naming the rater: human scores are then standardised (z-scores) per rater and the
        ratings of one (system, item) averaged.  Without it the human scores are used as given.
    chunk_size : int
        Hybrids built per block (working memory about ``chunk_size x items`` floats).

    Returns
    -------
    DataFrame
        One row per hybrid: ``system`` ("hybrid_00001", ...), ``system_a``, ``system_b``, the human
        column and the metric columns, ready for :func:`correlate`.  attrs: ``seed``, ``n_items``,
        ``items_dropped`` (items with a missing value for some system), ``n_real_systems``.

    Raises
    ------
    DataError
        Missing columns, duplicated (system, item) rows without ``rater``, fewer than 2 systems,
        or systems that do not share the same items ("mismatched systems").

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> d = pd.DataFrame({"sys": np.repeat(list("ABCD"), 50), "seg": np.tile(range(50), 4)})
    >>> d["mqm"] = rng.normal(size=200); d["comet"] = d["mqm"] + rng.normal(size=200)
    >>> h = hybrid_supersample(d, system="sys", item="seg", human="mqm", metrics=["comet"],
    ...                        n_systems=100, seed=1)
    >>> h.shape
    (100, 5)
    """
    if not isinstance(data, pd.DataFrame):
        raise DataError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    if not metrics:
        raise ParameterError("metrics must name at least one metric column")
    cols = [system, item, human, *metrics] + ([rater] if rater is not None else [])
    missing = [c for c in cols if c not in data.columns]
    if missing:
        raise DataError(f"columns {missing} are not in data; the columns are {list(data.columns)[:12]}")
    if len(set([human, *metrics])) != len(metrics) + 1:
        raise DataError(f"human and metric columns must be distinct, got {human!r} and {metrics}")
    if isinstance(n_systems, bool) or not isinstance(n_systems, (int, np.integer)) or n_systems < 1:
        raise ParameterError(f"n_systems must be a positive integer, got {n_systems!r}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise ParameterError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    values = [human, *metrics]
    frame = data[cols].copy()
    for c in values:
        try:
            frame[c] = pd.to_numeric(frame[c]).astype(float)
        except (TypeError, ValueError):
            raise DataError(f"column {c!r} is not numeric; pass numeric scores") from None
    if rater is not None:
        g = frame.groupby(rater)[human]
        sd = g.transform("std")
        if (sd.fillna(0) == 0).any():
            bad = frame.loc[sd.fillna(0) == 0, rater].unique()[:5].tolist()
            raise DataError(f"raters {bad} give a single or constant score: they cannot be "
                            "standardised; drop them or pass rater=None")
        frame[human] = (frame[human] - g.transform("mean")) / sd
        frame = frame.groupby([system, item], sort=True)[values].mean().reset_index()
    elif frame.duplicated([system, item]).any():
        dup = frame.loc[frame.duplicated([system, item]), [system, item]].iloc[0].tolist()
        raise DataError(f"(system, item) = ({', '.join(_show(v) for v in dup)}) occurs more than once; pass rater=... "
                        "to average several ratings, or remove duplicates")
    systems = pd.Index(pd.unique(frame[system]))
    items = pd.Index(pd.unique(frame[item]))
    if len(systems) < 2:
        raise DataError(f"hybrids need at least 2 systems, got {len(systems)}")
    counts = frame.groupby(system)[item].nunique()
    if counts.nunique() != 1 or len(frame) != len(systems) * len(items):
        short = counts[counts < len(items)].index[:5].tolist()
        raise DataError(f"mismatched systems: systems {short} lack rows for some of the {len(items)} "
                        "items; every system must be scored on the same items (give missing scores "
                        "as NaN rows, which are dropped per item)")
    frame = frame.set_index([system, item])
    cube = np.stack([frame[v].unstack(item).reindex(index=systems, columns=items).to_numpy(float)
                     for v in values], axis=-1)  # (systems, items, vars)
    complete = np.isfinite(cube).all(axis=(0, 2))
    if not complete.any():
        raise DataError("no item has complete scores for every system and column")
    cube = np.ascontiguousarray(cube[:, complete, :])
    n_items = cube.shape[1]

    rng = np.random.default_rng(seed)
    s = len(systems)
    a = rng.integers(0, s, size=n_systems)
    b = rng.integers(0, s - 1, size=n_systems)
    b = b + (b >= a)  # distinct second system, uniform over the others
    words = -(-n_items // 64)  # 64 coin flips per raw draw of the bit generator
    bitgen = rng.bit_generator
    out = np.empty((n_systems, len(values)))
    for start in range(0, n_systems, chunk_size):
        stop = min(start + chunk_size, n_systems)
        # raw 64-bit draws are consumed row by row, so the result does not depend on chunk_size
        raw = bitgen.random_raw((stop - start) * words).astype("<u8", copy=False)
        bits = np.unpackbits(raw.view(np.uint8).reshape(stop - start, words * 8), axis=1,
                             bitorder="little")[:, :n_items]
        take_a = bits.astype(float)
        acc = np.zeros((stop - start, len(values)))
        ca, cb = a[start:stop], b[start:stop]
        for k in range(s):
            rows = np.flatnonzero(ca == k)
            if rows.size:
                acc[rows] += take_a[rows] @ cube[k]
            rows = np.flatnonzero(cb == k)
            if rows.size:
                acc[rows] += (1.0 - take_a[rows]) @ cube[k]
        out[start:stop] = acc / n_items
    width = len(str(n_systems))
    result = pd.DataFrame(out, columns=values)
    result.insert(0, "system_b", np.asarray(systems)[b])
    result.insert(0, "system_a", np.asarray(systems)[a])
    result.insert(0, "system", [f"hybrid_{i + 1:0{width}d}" for i in range(n_systems)])
    result.attrs.update(seed=seed, n_items=n_items, items_dropped=int((~complete).sum()),
                        n_real_systems=s, method="hybrid super-sampling (Graham & Liu 2016)")
    return result
