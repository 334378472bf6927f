"""Preference ratings, their confusion matrices, the Favi-Score, sign tests and rankings.

A *preference rating* compares two outputs for the same input: ``+`` (the first system's output is
better), ``=`` (equal) or ``-`` (the second is better).  A human and a metric each give one rating per
item and pair of systems; the 3 x 3 *confusion matrix* ``C`` (rows human, columns metric, order
``+, =, -``) counts how the two agree.  The Favi-Score (von Däniken et al. 2024) measures whether the
metric's *disagreements* with the humans lean towards one system:

.. math::

    \\mathrm{Favi}(C) = \\frac{\\sum_{ij} W_{ij} C_{ij}}{E}
                     = \\frac{\\mathrm{mar}(d_\\mathrm{metric}) - \\mathrm{mar}(d_\\mathrm{human})}{E},
    \\qquad W = \\begin{pmatrix}0&-1&-2\\\\1&0&-1\\\\2&1&0\\end{pmatrix},

with ``E`` the number of off-diagonal items (disagreements) and ``mar(d) = d+ - d-`` the margin of a
rating distribution.  It lies in ``[-2, 2]``; a positive value means the metric favours the first
system.  With ``E = 0`` the metric never disagrees and the score is undefined: the package returns
NaN (with :class:`FaviUndefinedWarning` where a single score is asked for), never 0.

Entry points
------------
- :func:`favi_score` -- the score of one 3 x 3 matrix.
- :func:`preference_confusion` -- a :class:`PreferenceConfusion` from two rating sequences.
- :func:`preferences` -- ratings ``+1/0/-1`` from two score sequences (tolerance, direction).
- :func:`sign_test` -- the sign test of ``n(+)`` against ``n(-)`` with a documented tie rule.
- :func:`favi` -- every system pair of a data frame: a :class:`FaviResult` with per-pair scores,
  a system x system matrix, one-vs-all distributions, ranking DAGs, intervals and plots.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from ._results import TestResult
from .data import _show
from .errors import (
    BinaryEvalWarning,
    CountsError,
    DataError,
    FaviUndefinedWarning,
    FormulaError,
    InputTypeError,
    ParameterError,
    UnpairedItemsWarning,
)
from .formula import parse_formula
from .summary import Summary

__all__ = [
    "FAVI_WEIGHTS",
    "FaviResult",
    "FaviUndefinedWarning",
    "PreferenceConfusion",
    "SignTestResult",
    "UnpairedItemsWarning",
    "favi",
    "favi_score",
    "preference_confusion",
    "preferences",
    "sign_test",
]

#: The weight matrix W of the Favi-Score (rows human, columns metric, order +, =, -).
FAVI_WEIGHTS = np.array([[0, -1, -2], [1, 0, -1], [2, 1, 0]], dtype=np.int64)
FAVI_WEIGHTS.setflags(write=False)

_LABELS = ("+", "=", "-")
_SYMBOLS: dict[Any, int] = {"+": 1, "=": 0, "-": -1, ">": 1, "<": -1}
_OFFDIAG = ~np.eye(3, dtype=bool)
_TIES = ("drop", "split")
_ALTERNATIVES = ("two-sided", "greater", "less")


# ---------------------------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------------------------

def _as_confusion(confusion: Any, name: str = "confusion") -> np.ndarray:
    if isinstance(confusion, PreferenceConfusion):
        return confusion.counts
    if isinstance(confusion, pd.DataFrame):
        confusion = confusion.to_numpy()
    try:
        arr = np.asarray(confusion, dtype=float)
    except (TypeError, ValueError):
        raise InputTypeError(f"{name} must be a 3 x 3 array of counts, got {type(confusion).__name__}; "
                             "pass e.g. [[n_pp, n_pe, n_pm], [n_ep, n_ee, n_em], [n_mp, n_me, n_mm]]") from None
    if arr.shape != (3, 3):
        raise CountsError(f"{name} must be 3 x 3 (rows human, columns metric, order +, =, -), "
                          f"got shape {arr.shape}; pass the full matrix including empty cells as 0")
    if not np.all(np.isfinite(arr)):
        raise CountsError(f"{name} has non-finite entries {arr.tolist()}; counts must be finite numbers >= 0")
    if np.any(arr < 0):
        bad = ", ".join(f"human {_LABELS[i]!r} / metric {_LABELS[j]!r}: {arr[i, j]:g}"
                        for i, j in zip(*np.nonzero(arr < 0), strict=True))
        raise CountsError(f"{name} has negative counts ({bad}); "
                          "counts must be >= 0")
    if np.all(arr == np.round(arr)):
        return arr.astype(np.int64)
    return arr


def _codes(values: Any, name: str) -> np.ndarray:
    """Map a sequence of ``+/=/-`` (or ``1/0/-1``) ratings to int8 codes ``1/0/-1``."""
    if isinstance(values, (str, bytes)):
        raise InputTypeError(f"{name} must be a sequence of ratings, got a single string {values!r}; "
                             "pass e.g. list('++=-') or ['+', '+', '=', '-']")
    arr = np.asarray(values, dtype=object).ravel() if not isinstance(values, np.ndarray) else values.ravel()
    if arr.dtype.kind == "b":
        raise DataError(f"{name} holds True/False values; preference ratings are '+', '=', '-' or 1, 0, -1")
    if arr.dtype.kind in "iu":
        out = arr.astype(np.int64)
        bad = ~np.isin(out, (-1, 0, 1))
        if bad.any():
            raise DataError(f"{name} has unknown rating {arr[np.argmax(bad)]!r} at position "
                            f"{int(np.argmax(bad))}; use '+', '=', '-' or 1, 0, -1")
        return out.astype(np.int8)
    if arr.dtype.kind == "f":
        ok = np.isin(arr, (-1.0, 0.0, 1.0))
        if not ok.all():
            i = int(np.argmax(~ok))
            raise DataError(f"{name} has unknown rating {arr[i]!r} at position {i}; "
                            "use '+', '=', '-' or 1, 0, -1 (drop missing ratings first)")
        return arr.astype(np.int8)
    # object / string: map each distinct value once
    series = pd.Series(arr, dtype=object)
    uniques = pd.unique(series)
    mapping: dict[Any, int] = {}
    for u in uniques:
        code = _symbol_code(u)
        if code is None:
            pos = int(np.flatnonzero(series.to_numpy() == u)[0]) if u == u else int(np.flatnonzero(series.isna())[0])
            raise DataError(f"{name} has unknown rating {u!r} at position {pos}; "
                            "use '+', '=', '-' or 1, 0, -1 (drop missing ratings first)")
        mapping[u] = code
    return series.map(mapping).to_numpy(dtype=np.int8)


def _symbol_code(value: Any) -> int | None:
    if isinstance(value, str):
        return _SYMBOLS.get(value.strip())
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, float, np.integer, np.floating)) and value in (-1, 0, 1):
        return int(value)
    return None


def _check_level(level: float, name: str = "level") -> float:
    if not isinstance(level, (int, float, np.floating)) or not 0 < float(level) < 1:
        raise ParameterError(f"{name} must be a probability strictly between 0 and 1, got {level!r}; "
                             "e.g. 0.95")
    return float(level)


def _check_choice(value: Any, name: str, options: Sequence[str]) -> str:
    if value not in options:
        raise ParameterError(f"{name} must be one of {list(options)}, got {value!r}")
    return value


def _tolerances(tolerance: Any) -> tuple[float, float]:
    if isinstance(tolerance, dict):
        unknown = set(tolerance) - {"human", "metric"}
        if unknown:
            raise ParameterError(f"tolerance dict keys must be 'human' and/or 'metric', got {sorted(unknown)}")
        pair = (tolerance.get("human", 0.0), tolerance.get("metric", 0.0))
    elif isinstance(tolerance, (tuple, list)):
        if len(tolerance) != 2:
            raise ParameterError(f"tolerance as a sequence must be (human, metric), got {tolerance!r}")
        pair = tuple(tolerance)
    else:
        pair = (tolerance, tolerance)
    out = []
    for side, t in zip(("human", "metric"), pair, strict=True):
        if isinstance(t, (bool, np.bool_)) or not isinstance(t, (int, float, np.integer, np.floating)) \
                or not np.isfinite(t) or t < 0:
            raise ParameterError(f"tolerance for the {side} scores must be a finite number >= 0, got {t!r}")
        out.append(float(t))
    return out[0], out[1]


def _direction(higher_is_better: Any, name: str) -> float:
    if not isinstance(higher_is_better, (bool, np.bool_)):
        raise InputTypeError(f"{name} must be True or False, got {higher_is_better!r}")
    return 1.0 if higher_is_better else -1.0


# ---------------------------------------------------------------------------------------------
# scores and ratings
# ---------------------------------------------------------------------------------------------

def _favi_from_counts(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised numerator sum(W * C) and E over a stack of matrices (..., 3, 3)."""
    num = np.einsum("...ij,ij->...", counts, FAVI_WEIGHTS.astype(counts.dtype))
    e = counts[..., _OFFDIAG].sum(axis=-1)
    return num, e


def favi_score(confusion: Any) -> float:
    """The Favi-Score of a 3 x 3 preference confusion matrix.

    Parameters
    ----------
    confusion : array-like of shape (3, 3) or PreferenceConfusion
        Counts with rows = human rating and columns = metric rating, both in the order
        ``+, =, -`` (``+``: the first system is better).  Non-integer non-negative values
        (e.g. cell probabilities) are accepted.

    Returns
    -------
    float
        ``sum(W * C) / E`` in ``[-2, 2]``; positive when the metric's disagreements with the
        humans favour the first system.  NaN, with a :class:`FaviUndefinedWarning`, when the
        metric never disagrees (``E = 0``): the score is undefined, not 0.

    Raises
    ------
    CountsError
        When the matrix is not 3 x 3, or has negative or non-finite entries.

    Examples
    --------
    >>> # 10 items humans rated '-' and the metric '+' (paper example C1)
    >>> favi_score([[100, 0, 0], [0, 100, 0], [10, 0, 90]])
    2.0
    """
    counts = _as_confusion(confusion)
    num, e = _favi_from_counts(counts)
    if e == 0:
        warnings.warn("the Favi-Score is undefined (NaN): the metric agrees with the humans on every item "
                      "(E = 0 off-diagonal counts), so there is no disagreement that could favour a system",
                      FaviUndefinedWarning, stacklevel=2)
        return float("nan")
    return float(num / e)


def preferences(first: Any, second: Any, *, tolerance: float = 0.0,
                higher_is_better: bool = True) -> np.ndarray:
    """Preference ratings from the scores of two systems on the same items.

    ``+1`` when the first score is better by more than ``tolerance``, ``-1`` when the second is,
    ``0`` otherwise (paper Def. 13 with ``tolerance = 0``).

    Parameters
    ----------
    first, second : array-like of float
        Scores of system 1 and system 2, aligned by item.
    tolerance : float
        Differences with ``|s1 - s2| <= tolerance`` count as equal.
    higher_is_better : bool
        False for scores where lower is better (TER, MQM penalty points).

    Returns
    -------
    ndarray of int8
        ``1``, ``0`` or ``-1`` per item.

    Examples
    --------
    >>> preferences([0.9, 0.5, 0.3], [0.4, 0.5, 0.35], tolerance=0.1).tolist()
    [1, 0, 0]
    """
    a = np.asarray(first, dtype=float).ravel()
    b = np.asarray(second, dtype=float).ravel()
    if a.shape != b.shape:
        raise DataError(f"first and second must have the same length, got {a.size} and {b.size}; "
                        "align the two systems' scores by item")
    if np.isnan(a).any() or np.isnan(b).any():
        raise DataError("first/second contain missing scores (NaN); drop those items first")
    tol, _ = _tolerances(tolerance)
    d = _direction(higher_is_better, "higher_is_better") * (a - b)
    return ((d > tol).astype(np.int8) - (d < -tol).astype(np.int8))


# ---------------------------------------------------------------------------------------------
# sign test
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SignTestResult(TestResult):
    """Result of :func:`sign_test`; unpacks to ``(statistic, pvalue)``.

    ``statistic`` is the number of ``+`` ratings entering the binomial test (after the tie rule).
    """

    n_pos: int = 0
    n_neg: int = 0
    n_ties: int = 0
    n: int = 0
    ties: str = "drop"
    alternative: str = "two-sided"


def _sign_pvalues(k: np.ndarray, n: np.ndarray, alternative: str = "two-sided") -> np.ndarray:
    """Exact binomial p-values for k successes out of n with p = 1/2 (vectorised; NaN where n = 0)."""
    from scipy import stats

    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore"):
        if alternative == "two-sided":
            # the null distribution is symmetric, so the two-sided p is twice the smaller tail
            p = np.minimum(1.0, 2.0 * stats.binom.cdf(np.minimum(k, n - k), n, 0.5))
        elif alternative == "greater":
            p = stats.binom.sf(k - 1, n, 0.5)
        else:
            p = stats.binom.cdf(k, n, 0.5)
    return np.where(n > 0, p, np.nan)


def _apply_ties(n_pos: np.ndarray, n_neg: np.ndarray, n_ties: np.ndarray, ties: str):
    if ties == "drop":
        return n_pos, n_pos + n_neg
    half = n_ties // 2
    return n_pos + half, n_pos + n_neg + 2 * half


def sign_test(n_pos: int, n_neg: int, n_ties: int = 0, *, ties: Literal["drop", "split"] = "drop",
              alternative: Literal["two-sided", "greater", "less"] = "two-sided",
              exact: bool = True) -> SignTestResult:
    """Sign test of ``n(+)`` against ``n(-)`` (H0: ``P(+) = P(-)``).

    Parameters
    ----------
    n_pos, n_neg, n_ties : int
        Counts of ``+``, ``-`` and ``=`` ratings.
    ties : {"drop", "split"}
        ``"drop"`` (default): the conditional test, a binomial test of ``n_pos`` out of
        ``n_pos + n_neg`` with ``p = 1/2`` (R ``binom.test`` after removing ties, statsmodels
        ``sign_test``).  ``"split"``: ties are shared equally, ``floor(n_ties / 2)`` to each side
        (one tie dropped when ``n_ties`` is odd), and the binomial test is run on the enlarged
        sample; this pulls the p-value towards 1 when ties are many.  Coakley & Heise (1996)
        compare these versions.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: ``+`` more likely than ``-``.
    exact : bool
        True (default): exact binomial p-values.  False: the normal approximation
        ``z = (2k - n) / sqrt(n)`` (for ties dropped, ``(n_pos - n_neg) / sqrt(n_pos + n_neg)``).

    Returns
    -------
    SignTestResult
        ``statistic`` = successes entering the test (``z`` when ``exact=False``), ``pvalue`` (NaN
        when no untied rating is left).

    Examples
    --------
    >>> # R: binom.test(15, 20)$p.value
    >>> round(sign_test(15, 5, 5).p_value, 6)
    0.041389
    """
    counts = []
    for name, v in (("n_pos", n_pos), ("n_neg", n_neg), ("n_ties", n_ties)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer, float, np.floating)) \
                or not np.isfinite(v) or v < 0 or int(v) != v:
            raise CountsError(f"{name} must be a whole number >= 0, got {v!r}")
        counts.append(int(v))
    _check_choice(ties, "ties", _TIES)
    _check_choice(alternative, "alternative", _ALTERNATIVES)
    if not isinstance(exact, (bool, np.bool_)):
        raise InputTypeError(f"exact must be True or False, got {exact!r}")
    k, n = _apply_ties(np.array(counts[0]), np.array(counts[1]), np.array(counts[2]), ties)
    tie_text = "ties dropped (conditional test)" if ties == "drop" else "ties split equally"
    if exact:
        stat = float(k)
        p = float(_sign_pvalues(k, n, alternative))
        method = f"exact sign test, {tie_text}"
    else:
        from scipy import stats

        stat = float((2 * k - n) / np.sqrt(n)) if n > 0 else float("nan")
        if n == 0:
            p = float("nan")
        elif alternative == "two-sided":
            p = float(2 * stats.norm.sf(abs(stat)))
        elif alternative == "greater":
            p = float(stats.norm.sf(stat))
        else:
            p = float(stats.norm.cdf(stat))
        method = f"sign test, normal approximation, {tie_text}"
    return SignTestResult(statistic=stat, p_value=p, method=method, n_pos=counts[0], n_neg=counts[1],
                          n_ties=counts[2], n=int(n), ties=ties, alternative=alternative)


# ---------------------------------------------------------------------------------------------
# uncertainty of Favi
# ---------------------------------------------------------------------------------------------

def _favi_draws(counts: np.ndarray, method: str, draws: int, prior: float,
                rng: np.random.Generator) -> np.ndarray:
    """Draws of Favi for a stack of matrices (k, 3, 3) -> (draws, k), pairs taken in blocks."""
    k = counts.shape[0]
    flat = counts.reshape(k, 9).astype(float)
    out = np.empty((draws, k))
    block = max(1, 2_000_000 // (9 * draws))
    for start in range(0, k, block):
        part = flat[start:start + block]
        m = part.shape[0]
        if method == "dirichlet":
            # Favi is a ratio of two linear functions of the cell probabilities, so it does not
            # change with their scale: independent Gamma(alpha_c, 1) draws give the Dirichlet draws.
            sample = rng.standard_gamma(part + prior, size=(draws, m, 9))
        else:
            n = part.sum(axis=1)
            p = np.where(n[:, None] > 0, part / np.where(n > 0, n, 1)[:, None], 1.0 / 9)
            sample = rng.multinomial(n.astype(np.int64), p, size=(draws, m)).astype(float)
        num, e = _favi_from_counts(sample.reshape(draws, m, 3, 3))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, start:start + m] = np.where(e > 0, num / np.where(e > 0, e, 1), np.nan)
    return out


def _intervals(counts: np.ndarray, level: float, method: str, draws: int, prior: float | None,
               seed: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    _check_level(level)
    _check_choice(method, "method", ("dirichlet", "bootstrap"))
    if not isinstance(draws, (int, np.integer)) or draws < 100:
        raise ParameterError(f"draws must be a whole number >= 100, got {draws!r}")
    if prior is None:
        prior = 0.5 if method == "dirichlet" else 0.0
    if method == "dirichlet" and (not np.isfinite(prior) or prior <= 0):
        raise ParameterError(f"prior (Dirichlet concentration per cell) must be > 0, got {prior!r}; "
                             "0.5 is the Jeffreys prior, 1 the uniform prior")
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2**63))
    rng = np.random.default_rng(seed)
    d = _favi_draws(counts, method, int(draws), float(prior), rng)
    a = (1 - level) / 2
    undefined = np.isnan(d).mean(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lower = np.nanquantile(d, a, axis=0)
        upper = np.nanquantile(d, 1 - a, axis=0)
    meta = {"level": level, "method": method, "seed": seed, "draws": int(draws),
            "prior": float(prior) if method == "dirichlet" else None}
    return lower, upper, undefined, meta


_METHOD_TEXT = {
    "dirichlet": "equal-tailed posterior interval of Favi under a Dirichlet(C + prior) posterior over the "
                 "9 cell probabilities (Monte Carlo)",
    "bootstrap": "percentile bootstrap over the pair's items (resampling items with replacement is a "
                 "multinomial draw from the observed confusion matrix)",
}


# ---------------------------------------------------------------------------------------------
# one confusion matrix
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class PreferenceConfusion:
    """A 3 x 3 confusion matrix of human (rows) against metric (columns) preference ratings.

    Build it with :func:`preference_confusion` or :meth:`from_counts`.

    Attributes
    ----------
    counts : ndarray (3, 3)
        Counts, rows human and columns metric, both in the order ``+, =, -``.

    Examples
    --------
    >>> c = PreferenceConfusion.from_counts([[413, 20, 23], [28, 164, 10], [44, 13, 285]])
    >>> c.E, c.mar_human, c.mar_metric, round(c.favi, 4), c.accuracy
    (138, 114, 167, 0.3841, 0.862)
    """

    counts: np.ndarray

    def __post_init__(self) -> None:
        arr = _as_confusion(self.counts, "counts").copy()
        arr.setflags(write=False)
        object.__setattr__(self, "counts", arr)

    @classmethod
    def from_counts(cls, confusion: Any) -> PreferenceConfusion:
        """Wrap an existing 3 x 3 count matrix (rows human, columns metric, order ``+, =, -``)."""
        return cls(_as_confusion(confusion))

    # -- counts -------------------------------------------------------------------------------
    @property
    def n(self) -> float:
        """Number of rated items."""
        return _num(self.counts.sum())

    @property
    def E(self) -> float:  # noqa: N802 (the paper's symbol)
        """Number of disagreements (off-diagonal sum)."""
        return _num(self.counts[_OFFDIAG].sum())

    @property
    def human_margins(self) -> pd.Series:
        """Human rating distribution ``d_human = (d+, d=, d-)`` (row sums)."""
        return pd.Series(self.counts.sum(axis=1), index=list(_LABELS), name="human")

    @property
    def metric_margins(self) -> pd.Series:
        """Metric rating distribution ``d_metric`` (column sums)."""
        return pd.Series(self.counts.sum(axis=0), index=list(_LABELS), name="metric")

    @property
    def margins(self) -> pd.DataFrame:
        """Both rating distributions: rows ``+, =, -``, columns ``human`` and ``metric``."""
        return pd.concat([self.human_margins, self.metric_margins], axis=1)

    @property
    def mar_human(self) -> float:
        """Margin ``d+ - d-`` of the human ratings."""
        return _num(self.counts[0].sum() - self.counts[2].sum())

    @property
    def mar_metric(self) -> float:
        """Margin ``d+ - d-`` of the metric ratings."""
        return _num(self.counts[:, 0].sum() - self.counts[:, 2].sum())

    @property
    def accuracy(self) -> float:
        """Sample-level sign accuracy ``trace(C) / N`` (NaN for an empty matrix)."""
        n = self.counts.sum()
        return float(np.trace(self.counts) / n) if n > 0 else float("nan")

    @property
    def sign_agreement(self) -> bool:
        """System-level agreement ``sign(mar_human) == sign(mar_metric)`` (a tie on both sides agrees)."""
        return bool(np.sign(self.mar_human) == np.sign(self.mar_metric))

    @property
    def favi(self) -> float:
        """The Favi-Score (NaN with a :class:`FaviUndefinedWarning` when ``E = 0``)."""
        return favi_score(self.counts)

    @property
    def favi_margin_form(self) -> float:
        """``(mar(d_metric) - mar(d_human)) / E`` (Lemma 1); equal to :attr:`favi`."""
        e = self.E
        return float((self.mar_metric - self.mar_human) / e) if e > 0 else float("nan")

    def sign_test(self, source: Literal["human", "metric"] = "human", *,
                  ties: Literal["drop", "split"] = "drop",
                  alternative: Literal["two-sided", "greater", "less"] = "two-sided") -> SignTestResult:
        """Sign test of the human (row sums) or metric (column sums) ratings; see :func:`sign_test`."""
        _check_choice(source, "source", ("human", "metric"))
        d = self.human_margins if source == "human" else self.metric_margins
        return sign_test(int(d["+"]), int(d["-"]), int(d["="]), ties=ties, alternative=alternative)

    def interval(self, level: float = 0.95, *, method: Literal["dirichlet", "bootstrap"] = "dirichlet",
                 draws: int = 4000, prior: float | None = None, seed: int | None = None) -> pd.DataFrame:
        """Interval for the Favi-Score of the population the items come from.

        Parameters
        ----------
        level : float
            Probability content of the interval.
        method : {"dirichlet", "bootstrap"}
            ``"dirichlet"``: equal-tailed interval of Favi under the posterior
            ``Dirichlet(C + prior)`` of the 9 cell probabilities.  ``"bootstrap"``: percentile
            bootstrap over items.
        draws : int
            Monte Carlo draws.
        prior : float, optional
            Dirichlet concentration added to every cell (default 0.5, Jeffreys).
        seed : int, optional
            Seed of ``numpy.random.default_rng``; drawn at random and recorded when omitted.

        Returns
        -------
        DataFrame
            One row with ``estimate``, ``lower``, ``upper`` and ``p_undefined`` (share of draws
            with ``E = 0``); ``level``, ``method``, ``seed``, ``prior`` and ``draws`` in ``attrs``.

        Examples
        --------
        >>> c = PreferenceConfusion.from_counts([[53, 3, 3], [25, 52, 5], [9, 4, 46]])
        >>> ci = c.interval(seed=1)
        >>> bool(ci.lower[0] < c.favi < ci.upper[0])
        True
        """
        lower, upper, undef, meta = _intervals(self.counts[None], level, method, draws, prior, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FaviUndefinedWarning)
            est = self.favi
        out = pd.DataFrame({"estimate": [est], "lower": lower, "upper": upper, "p_undefined": undef})
        out.attrs.update(meta)
        out.attrs["description"] = _METHOD_TEXT[method]
        return out

    # -- protocol ---------------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """The matrix as a labelled DataFrame (index ``human``, columns ``metric``)."""
        return pd.DataFrame(self.counts, index=pd.Index(_LABELS, name="human"),
                            columns=pd.Index(_LABELS, name="metric"))

    def summary(self) -> Summary:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FaviUndefinedWarning)
            fv = self.favi
        table = self.to_frame().copy()
        table["total"] = table.sum(axis=1)
        table.loc["total"] = table.sum(axis=0)
        info = {"items (N)": self.n, "disagreements (E)": self.E, "mar(d_human)": self.mar_human,
                "mar(d_metric)": self.mar_metric, "Favi-Score": fv,
                "sample-level sign accuracy": self.accuracy,
                "system-level sign agreement": self.sign_agreement}
        notes = ["rows: human rating, columns: metric rating; '+' = first system better"]
        if self.E == 0:
            notes.append("E = 0: the metric never disagrees with the humans, so Favi is undefined (NaN)")
        return Summary("Preference confusion matrix", info, [("counts", table)], notes)

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Heat map of the counts; returns the matplotlib Axes."""
        import matplotlib.pyplot as plt
        import seaborn as sns

        if ax is None:
            _, ax = plt.subplots(figsize=(3.6, 3.0))
        kwargs.setdefault("annot", True)
        kwargs.setdefault("fmt", "g")
        kwargs.setdefault("cmap", "Blues")
        sns.heatmap(self.to_frame(), ax=ax, **kwargs)
        ax.set_title("human (rows) vs metric (columns)")
        return ax

    def __str__(self) -> str:
        return self.summary().as_text()

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return self.summary().as_html()


def _num(x: Any) -> float:
    x = float(x)
    return int(x) if x.is_integer() else x


def preference_confusion(human: Any, metric: Any) -> PreferenceConfusion:
    """Confusion matrix of human against metric preference ratings.

    Parameters
    ----------
    human, metric : sequence
        One rating per item, as ``'+', '=', '-'`` (also ``'>'``/``'<'``) or ``1, 0, -1``.

    Returns
    -------
    PreferenceConfusion
        Counts, ``E``, margins, accuracy and Favi-Score.

    Raises
    ------
    DataError
        Unknown rating symbols (including missing values) or sequences of different length.

    Examples
    --------
    >>> c = preference_confusion(list("++=--+=+"), [1, 0, 0, -1, 1, 1, -1, 1])
    >>> c.counts.astype(int).tolist(), c.E, c.favi
    ([[3, 1, 0], [0, 1, 1], [1, 0, 1]], 3, 0.0)
    """
    h = _codes(human, "human")
    m = _codes(metric, "metric")
    if h.size != m.size:
        raise DataError(f"human and metric must rate the same items: got {h.size} human and {m.size} "
                        "metric ratings; align them by item")
    cell = (1 - h.astype(np.int64)) * 3 + (1 - m.astype(np.int64))
    counts = np.bincount(cell, minlength=9).reshape(3, 3)
    return PreferenceConfusion(counts)


# ---------------------------------------------------------------------------------------------
# all system pairs of a data frame
# ---------------------------------------------------------------------------------------------

def _count_from_scores(hs: np.ndarray, ms: np.ndarray, ia: np.ndarray, ib: np.ndarray,
                       tol_h: float, tol_m: float) -> tuple[np.ndarray, np.ndarray]:
    """Confusion counts for system pairs from (n_systems, n_items) score arrays with NaN = missing.

    Scores are already multiplied by their direction (+1 higher is better, -1 lower is better).
    Returns counts (n_pairs, 3, 3) and the number of items rated for only one system of each pair.
    """
    n_sys, n_items = hs.shape
    present = ~np.isnan(hs)
    complete = bool(present.all())
    n_pairs = ia.size
    counts = np.zeros((n_pairs, 9), dtype=np.int64)
    skipped = np.zeros(n_pairs, dtype=np.int64)
    # small chunks keep the temporaries in cache; int8 codes keep the passes cheap
    chunk = max(1, min(n_pairs, 500_000 // max(n_items, 1)))
    for start in range(0, n_pairs, chunk):
        a = ia[start:start + chunk]
        b = ib[start:start + chunk]
        dh = hs[a] - hs[b]
        dm = ms[a] - ms[b]
        code_h = (dh > tol_h).view(np.int8) - (dh < -tol_h).view(np.int8)
        code_m = (dm > tol_m).view(np.int8) - (dm < -tol_m).view(np.int8)
        # cell index (row human, column metric) = 3 * (1 - h) + (1 - m) with h, m in {1, 0, -1}
        cell = (4 - 3 * code_h - code_m).view(np.uint8)
        if not complete:
            pa = present[a]
            pb = present[b]
            cell[~(pa & pb)] = 9
            skipped[start:start + a.size] = (pa ^ pb).sum(axis=1)
        for r in range(a.size):
            counts[start + r] = np.bincount(cell[r], minlength=10)[:9]
    return counts.reshape(n_pairs, 3, 3), skipped


@dataclass(frozen=True, repr=False)
class FaviResult:
    """Favi-Scores, agreement and sign tests for pairs of systems (returned by :func:`favi`).

    Attributes
    ----------
    systems : tuple of str
        System names in their canonical order.
    pair_index : ndarray (n_pairs, 2)
        Indices into ``systems`` of system 1 and system 2 of each pair.
    counts : ndarray (n_pairs, 3, 3)
        Confusion matrices (rows human, columns metric, order ``+, =, -``).
    n_skipped : ndarray (n_pairs,)
        Items rated for only one system of the pair (skipped).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"seg": np.repeat(np.arange(50), 3), "system": list("abc") * 50,
    ...                    "human": rng.integers(1, 6, 150), "metric": rng.normal(size=150)})
    >>> res = favi("human ~ metric | system", df, item="seg")
    >>> res.matrix().shape, list(res.to_frame().system_1)
    ((3, 3), ['a', 'a', 'b'])
    """

    formula: str
    item: str
    systems: tuple[str, ...]
    pair_index: np.ndarray
    counts: np.ndarray
    n_skipped: np.ndarray
    mode: str
    rows_used: int
    rows_excluded: int
    n_items: int
    tolerance: tuple[float, float]
    higher_is_better: tuple[bool, bool]
    sign_test_ties: str = "drop"
    alpha: float = 0.05
    call: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        for name in ("pair_index", "counts", "n_skipped"):
            arr = np.array(getattr(self, name), copy=True)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    # -- per pair ---------------------------------------------------------------------------
    @property
    def n_pairs(self) -> int:
        return int(self.pair_index.shape[0])

    def _pair_stats(self) -> dict[str, np.ndarray]:
        c = self.counts
        n = c.sum(axis=(1, 2))
        num, e = _favi_from_counts(c)
        mar_h = c[:, 0, :].sum(axis=1) - c[:, 2, :].sum(axis=1)
        mar_m = c[:, :, 0].sum(axis=1) - c[:, :, 2].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            fv = np.where(e > 0, num / np.where(e > 0, e, 1), np.nan)
            acc = np.where(n > 0, np.trace(c, axis1=1, axis2=2) / np.where(n > 0, n, 1), np.nan)
        ph = _sign_pvalues(*_apply_ties(c[:, 0, :].sum(1), c[:, 2, :].sum(1), c[:, 1, :].sum(1),
                                        self.sign_test_ties), "two-sided")
        pm = _sign_pvalues(*_apply_ties(c[:, :, 0].sum(1), c[:, :, 2].sum(1), c[:, :, 1].sum(1),
                                        self.sign_test_ties), "two-sided")
        return {"n": n, "E": e, "favi": fv, "mar_human": mar_h, "mar_metric": mar_m, "accuracy": acc,
                "sign_agreement": np.sign(mar_h) == np.sign(mar_m), "p_human": ph, "p_metric": pm}

    def to_frame(self) -> pd.DataFrame:
        """One row per system pair.

        Columns: ``system_1, system_2, n`` (items rated for both), ``n_skipped`` (rated for only
        one), ``E``, ``favi``, ``mar_human``, ``mar_metric``, ``sample_accuracy``,
        ``sign_agreement`` (``sign(mar_human) == sign(mar_metric)``), ``p_value_human`` and
        ``p_value_metric`` (two-sided sign tests with the result's tie rule).
        """
        s = self._pair_stats()
        names = np.array(self.systems, dtype=object)
        df = pd.DataFrame({
            "system_1": names[self.pair_index[:, 0]], "system_2": names[self.pair_index[:, 1]],
            "n": s["n"], "n_skipped": self.n_skipped, "E": s["E"], "favi": s["favi"],
            "mar_human": s["mar_human"], "mar_metric": s["mar_metric"], "sample_accuracy": s["accuracy"],
            "sign_agreement": s["sign_agreement"], "p_value_human": s["p_human"],
            "p_value_metric": s["p_metric"]})
        df.attrs.update({"method": "Favi-Score per system pair; exact sign tests "
                         + ("with ties dropped" if self.sign_test_ties == "drop" else "with ties split"),
                         "formula": self.formula, "alpha": self.alpha})
        return df

    def confusion(self, system_1: str, system_2: str) -> PreferenceConfusion:
        """The confusion matrix of one pair, oriented as asked (swapping systems reverses both axes)."""
        i = self._pair_position(system_1, system_2)
        if i is None:
            j = self._pair_position(system_2, system_1)
            if j is None:
                raise ParameterError(f"the pair ({system_1!r}, {system_2!r}) is not in this result; "
                                     f"systems are {list(self.systems)}")
            return PreferenceConfusion(self.counts[j][::-1, ::-1])
        return PreferenceConfusion(self.counts[i])

    def _pair_position(self, a: str, b: str) -> int | None:
        idx = {s: k for k, s in enumerate(self.systems)}
        if a not in idx or b not in idx:
            return None
        hits = np.flatnonzero((self.pair_index[:, 0] == idx[a]) & (self.pair_index[:, 1] == idx[b]))
        return int(hits[0]) if hits.size else None

    def matrix(self) -> pd.DataFrame:
        """System x system Favi-Scores: entry (row a, column b) is Favi with a as system 1.

        The matrix is antisymmetric (swapping the systems flips the sign); pairs not evaluated
        and pairs with ``E = 0`` are NaN.
        """
        k = len(self.systems)
        m = np.full((k, k), np.nan)
        fv = self._pair_stats()["favi"]
        a, b = self.pair_index[:, 0], self.pair_index[:, 1]
        m[a, b] = fv
        m[b, a] = -fv
        return pd.DataFrame(m, index=pd.Index(self.systems, name="system_1"),
                            columns=pd.Index(self.systems, name="system_2"))

    def by_system(self) -> pd.DataFrame:
        """One-vs-all distributions (the paper's Fig. 6): Favi of each system against every other.

        Returns a long DataFrame with ``system``, ``opponent`` and ``favi`` (the system as system 1,
        so positive values mean the metric favours ``system``); ``attrs["summary"]`` holds per
        system ``mean``, ``median``, ``sd``, ``min``, ``max`` and ``n_pairs`` (defined scores only)
        and ``pooled``: the Favi of the summed confusion matrices of all the system's pairs (each
        oriented with the system first), i.e. one score weighting pairs by their disagreements.
        """
        m = self.matrix()
        long = m.stack(future_stack=True).rename("favi").reset_index()
        long.columns = ["system", "opponent", "favi"]
        long = long[long.system != long.opponent]
        evaluated = ~np.isnan(m.to_numpy())
        keep = [evaluated[self.systems.index(s), self.systems.index(o)] for s, o in
                zip(long.system, long.opponent, strict=True)]
        long = long[keep].reset_index(drop=True)
        g = long.groupby("system", sort=False)["favi"]
        summ = pd.DataFrame({"mean": g.mean(), "median": g.median(), "sd": g.std(), "min": g.min(),
                             "max": g.max(), "n_pairs": g.count()})
        pooled = np.zeros((len(self.systems), 3, 3), dtype=self.counts.dtype)
        np.add.at(pooled, self.pair_index[:, 0], self.counts)
        np.add.at(pooled, self.pair_index[:, 1], self.counts[:, ::-1, ::-1])
        num, e = _favi_from_counts(pooled)
        with np.errstate(invalid="ignore", divide="ignore"):
            pooled_favi = np.where(e > 0, num / np.where(e > 0, e, 1), np.nan)
        summ["pooled"] = pd.Series(pooled_favi, index=list(self.systems))
        long.attrs["summary"] = summ.sort_values("mean", ascending=False)
        return long

    # -- aggregates ---------------------------------------------------------------------------
    @property
    def sample_accuracy(self) -> float:
        """Sample-level sign accuracy pooled over pairs: sum of traces / sum of N."""
        n = self.counts.sum()
        return float(np.trace(self.counts, axis1=1, axis2=2).sum() / n) if n > 0 else float("nan")

    @property
    def system_sign_accuracy(self) -> float:
        """Share of pairs with ``sign(mar_human) == sign(mar_metric)``; a tie on both sides counts as agreement."""
        s = self._pair_stats()
        ok = s["n"] > 0
        return float(s["sign_agreement"][ok].mean()) if ok.any() else float("nan")

    @property
    def mean_abs_favi(self) -> float:
        """Mean |Favi| over pairs with a defined score."""
        fv = self._pair_stats()["favi"]
        return float(np.nanmean(np.abs(fv))) if np.isfinite(fv).any() else float("nan")

    @property
    def sd_abs_favi(self) -> float:
        """Sample standard deviation of |Favi| over pairs with a defined score."""
        fv = np.abs(self._pair_stats()["favi"])
        fv = fv[np.isfinite(fv)]
        return float(np.std(fv, ddof=1)) if fv.size > 1 else float("nan")

    def favoured(self, alpha: float | None = None) -> pd.DataFrame:
        """Systems the metric favours or disfavours: the :meth:`by_system` summary per system.

        With ``alpha`` given, a ``significant`` column marks systems whose one-vs-all Favi values
        differ from 0 by a two-sided Wilcoxon signed-rank test (a descriptive screen: the pairs
        share systems and are not independent).
        """
        summ = self.by_system().attrs["summary"].copy()
        if alpha is not None:
            from scipy import stats

            _check_level(alpha, "alpha")
            long = self.by_system()
            p = {}
            for s, grp in long.groupby("system"):
                v = grp.favi.dropna().to_numpy()
                p[s] = stats.wilcoxon(v).pvalue if v.size > 1 and np.any(v != 0) else np.nan
            summ["p_value"] = pd.Series(p)
            summ["significant"] = summ["p_value"] < alpha
        return summ

    # -- uncertainty --------------------------------------------------------------------------
    def interval(self, level: float = 0.95, *, method: Literal["dirichlet", "bootstrap"] = "dirichlet",
                 draws: int = 4000, prior: float | None = None, seed: int | None = None) -> pd.DataFrame:
        """Per-pair intervals for the Favi-Score.

        ``"dirichlet"`` (default): equal-tailed interval of Favi under the posterior
        ``Dirichlet(C + prior)`` of each pair's 9 cell probabilities (prior 0.5 per cell unless
        given); ``"bootstrap"``: percentile bootstrap over each pair's items.  Draws use
        ``numpy.random.default_rng(seed)``; a random seed is drawn and recorded when omitted.

        Returns
        -------
        DataFrame
            ``system_1, system_2, estimate, lower, upper, p_undefined``; ``attrs`` hold ``level``,
            ``method``, ``seed``, ``prior`` and ``draws``.
        """
        lower, upper, undef, meta = _intervals(self.counts, level, method, draws, prior, seed)
        df = self.to_frame()[["system_1", "system_2", "favi"]].rename(columns={"favi": "estimate"})
        df["lower"], df["upper"], df["p_undefined"] = lower, upper, undef
        df.attrs.update(meta)
        df.attrs["description"] = _METHOD_TEXT[method]
        return df

    # -- rankings -----------------------------------------------------------------------------
    def ranking(self, source: Literal["human", "metric"] = "human", *, alpha: float | None = None,
                p_adjust: str | None = None) -> Any:
        """Significant pairwise wins as a DAG (networkx DiGraph), transitive edges removed.

        An edge ``a -> b`` means ``a`` beats ``b``: the two-sided sign test of the ``source``
        ratings has ``p < alpha`` and more ratings prefer ``a``.  Node attributes: ``wins`` and
        ``losses`` (significant, before the reduction) and ``favi_mean`` (mean one-vs-all Favi);
        edge attributes: ``p_value`` (adjusted when asked), ``margin`` and ``n``.  When the wins
        contain a cycle no reduction is possible; the full graph is returned with
        ``graph["reduced"] = False``.

        Parameters
        ----------
        source : {"human", "metric"}
            Whose preference ratings decide the wins.
        alpha : float, optional
            Significance level (default: the result's ``alpha``, 0.05 unless set in :func:`favi`).
        p_adjust : str, optional
            Multiple-testing adjustment over the pairs, a method name of
            ``statsmodels.stats.multitest.multipletests`` (``"holm"``, ``"fdr_bh"``, ...).  The
            default (None) tests each pair at ``alpha``, as the paper does.
        """
        import networkx as nx

        _check_choice(source, "source", ("human", "metric"))
        alpha = self.alpha if alpha is None else _check_level(alpha, "alpha")
        s = self._pair_stats()
        p = s["p_human"] if source == "human" else s["p_metric"]
        if p_adjust is not None:
            from statsmodels.stats.multitest import multipletests

            ok = np.isfinite(p)
            adjusted = np.full_like(p, np.nan)
            try:
                if ok.any():
                    adjusted[ok] = multipletests(p[ok], alpha=alpha, method=p_adjust)[1]
            except ValueError:
                raise ParameterError(f"p_adjust {p_adjust!r} is not a multipletests method; use e.g. "
                                     "'holm', 'bonferroni' or 'fdr_bh'") from None
            p = adjusted
        mar = s["mar_human"] if source == "human" else s["mar_metric"]
        g = nx.DiGraph(source=source, alpha=alpha, ties=self.sign_test_ties, p_adjust=p_adjust)
        fmean = self.by_system().attrs["summary"]["mean"]
        for name in self.systems:
            g.add_node(name, favi_mean=float(fmean.get(name, np.nan)))
        for (a, b), pv, mg, n in zip(self.pair_index, p, mar, s["n"], strict=True):
            if np.isfinite(pv) and pv < alpha and mg != 0:
                win, lose = (self.systems[a], self.systems[b]) if mg > 0 else (self.systems[b], self.systems[a])
                g.add_edge(win, lose, p_value=float(pv), margin=int(abs(mg)), n=int(n))
        for name in self.systems:
            g.nodes[name]["wins"] = g.out_degree(name)
            g.nodes[name]["losses"] = g.in_degree(name)
        if not nx.is_directed_acyclic_graph(g):
            warnings.warn(f"the significant {source} wins contain a cycle; the graph is returned without "
                          "transitive reduction", BinaryEvalWarning, stacklevel=2)
            g.graph["reduced"] = False
            return g
        tr = nx.transitive_reduction(g)
        tr.graph.update(g.graph)
        tr.graph["reduced"] = True
        tr.add_nodes_from(g.nodes(data=True))
        for u, v in tr.edges:
            tr.edges[u, v].update(g.edges[u, v])
        return tr

    # -- display ------------------------------------------------------------------------------
    def summary(self) -> Summary:
        frame = self.to_frame()
        n_undef = int(frame.favi.isna().sum())
        info = {"formula": self.formula, "item column": self.item,
                "input": "scores per (item, system)" if self.mode == "scores" else
                "preferences per (item, system_1, system_2)",
                "systems": len(self.systems), "pairs": self.n_pairs, "items": self.n_items,
                "rows used": self.rows_used, "rows excluded (missing values)": self.rows_excluded,
                "items skipped (rated for one system of a pair)": int(self.n_skipped.sum()),
                "mean |Favi|": self.mean_abs_favi, "sd |Favi|": self.sd_abs_favi,
                "sample-level sign accuracy": self.sample_accuracy,
                "system-level sign accuracy": self.system_sign_accuracy}
        if self.mode == "scores":
            info["tolerance (human, metric)"] = self.tolerance
            info["higher is better (human, metric)"] = self.higher_is_better
        show = frame.drop(columns=["n_skipped"]) if not self.n_skipped.any() else frame
        # one readable label per pair: the Summary renderer would print a MultiIndex as tuples
        show = show.set_index(pd.Index(show["system_1"] + " vs " + show["system_2"], name="pair")
                              ).drop(columns=["system_1", "system_2"])
        tables = [("pairs", show),
                  ("one-vs-all Favi per system (positive: favoured by the metric)",
                   self.by_system().attrs["summary"])]
        notes = ["Favi > 0: the metric's disagreements with the humans favour system_1 (the first system of "
                 "'system_1 vs system_2')",
                 "system-level sign agreement counts a pair where humans and metric both tie as agreeing",
                 "sign tests: exact binomial, "
                 + ("ties dropped (conditional test)" if self.sign_test_ties == "drop"
                    else "ties split equally (odd tie dropped)")]
        if n_undef:
            notes.append(f"{n_undef} pair(s) with E = 0: the metric never disagrees, Favi undefined (NaN)")
        if self.n_skipped.any():
            notes.append(f"{int(self.n_skipped.sum())} item-pair combinations skipped because only one "
                         "system of the pair was rated")
        return Summary("Favi-Score: metric favouritism across system pairs", info, tables, notes)

    def plot(self, kind: Literal["box", "dag", "heatmap"] = "box", ax: Any = None, *,
             source: Literal["human", "metric"] = "human", **kwargs: Any) -> Any:
        """Plot the result; returns the matplotlib Axes.

        ``"box"``: one-vs-all Favi per system (paper Fig. 6), systems ordered by median;
        ``"heatmap"``: the system x system matrix; ``"dag"``: the ranking of ``source`` in layers
        (winners on top).
        """
        import matplotlib.pyplot as plt

        _check_choice(kind, "kind", ("box", "dag", "heatmap"))
        if ax is None:
            _, ax = plt.subplots(figsize=kwargs.pop("figsize", (7, 4)))
        if kind == "box":
            import seaborn as sns

            long = self.by_system()
            order = long.groupby("system")["favi"].median().sort_values(ascending=False).index
            sns.boxplot(data=long, x="system", y="favi", order=list(order), ax=ax,
                        color=kwargs.pop("color", "0.8"), **kwargs)
            ax.axhline(0, color="0.3", lw=0.8, ls="--")
            ax.set_ylabel("Favi (system as system 1)")
            ax.tick_params(axis="x", rotation=60)
        elif kind == "heatmap":
            import seaborn as sns

            m = self.matrix()
            lim = float(np.nanmax(np.abs(m.to_numpy()))) if np.isfinite(m.to_numpy()).any() else 1.0
            kwargs.setdefault("cmap", "RdBu_r")
            kwargs.setdefault("center", 0.0)
            kwargs.setdefault("vmin", -lim)
            kwargs.setdefault("vmax", lim)
            sns.heatmap(m, ax=ax, **kwargs)
            ax.set_title("Favi (row system as system 1)")
        else:
            import networkx as nx

            g = self.ranking(source)
            if g.graph.get("reduced", False):
                for layer, nodes in enumerate(nx.topological_generations(g)):
                    for nd in nodes:
                        g.nodes[nd]["layer"] = layer
            else:
                for nd in g.nodes:
                    g.nodes[nd]["layer"] = 0
            pos = nx.multipartite_layout(g, subset_key="layer", align="horizontal")
            pos = {k: (x, -y) for k, (x, y) in pos.items()}
            kwargs.setdefault("node_color", "white")
            kwargs.setdefault("edgecolors", "0.3")
            kwargs.setdefault("node_size", 900)
            kwargs.setdefault("font_size", 8)
            nx.draw_networkx(g, pos=pos, ax=ax, arrows=True, **kwargs)
            ax.set_title(f"significant {source} wins (alpha = {g.graph['alpha']})")
            ax.set_axis_off()
        return ax

    def __str__(self) -> str:
        return self.summary().as_text()

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return self.summary().as_html()


def _resolve_pairs(pairs: Any, systems: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    k = len(systems)
    if isinstance(pairs, str):
        if pairs != "all":
            raise ParameterError(f"pairs must be 'all' or a list of (system_1, system_2), got {pairs!r}")
        ia, ib = np.triu_indices(k, 1)
        return ia.astype(np.intp), ib.astype(np.intp)
    idx = {s: i for i, s in enumerate(systems)}
    ia, ib = [], []
    for p in pairs:
        if not isinstance(p, (tuple, list)) or len(p) != 2:
            raise ParameterError(f"each entry of pairs must be (system_1, system_2), got {p!r}")
        a, b = p
        for s in (a, b):
            if s not in idx:
                raise ParameterError(f"system {s!r} in pairs is not in the data; systems are {list(systems)}")
        if a == b:
            raise ParameterError(f"pair {p!r} compares a system with itself; give two different systems")
        ia.append(idx[a])
        ib.append(idx[b])
    if not ia:
        raise ParameterError("pairs is empty; give 'all' or at least one (system_1, system_2)")
    return np.asarray(ia, dtype=np.intp), np.asarray(ib, dtype=np.intp)


def _column(data: pd.DataFrame, name: str, what: str, formula: str | None = None) -> pd.Series:
    if name not in data.columns:
        msg = f"{what} column {name!r} is not in data; the columns are {list(map(str, data.columns))[:12]}"
        if formula is not None:
            raise FormulaError(msg, formula, (formula.find(name), formula.find(name) + len(name))
                               if name in formula else None)
        raise DataError(msg)
    return data[name]


def favi(formula: str, data: pd.DataFrame, *, item: str, pairs: Any = "all",
         tolerance: float | tuple[float, float] | dict[str, float] = 0.0,
         human_higher_is_better: bool = True, metric_higher_is_better: bool = True,
         sign_test_ties: Literal["drop", "split"] = "drop", alpha: float = 0.05,
         unpaired: Literal["warn", "raise", "count"] = "warn") -> FaviResult:
    """Favi-Scores of a metric against human ratings for every pair of systems.

    Parameters
    ----------
    formula : str
        ``"human ~ metric | system"`` for data with one row per (item, system) holding scalar or
        ordinal scores, e.g. ``"mqm ~ bleurt | system"``.  ``"human ~ metric | system_a + system_b"``
        for data that already hold preference ratings (``+/=/-`` or ``1/0/-1``) per
        (item, system_a, system_b); pairs given in either order are oriented consistently.
    data : DataFrame
        The data.
    item : str
        Column naming the input (segment, document) shared by the systems.
    pairs : "all" or list of (str, str)
        The system pairs (oriented as given).  ``"all"`` takes every unordered pair, system 1
        first in sorted order.
    tolerance : float, (float, float) or dict
        Score differences ``<= tolerance`` count as ``=``; a pair or ``{"human": .., "metric": ..}``
        sets the two sides separately (their scales differ).
    human_higher_is_better, metric_higher_is_better : bool
        False for scores where lower is better (TER, MQM penalty points).
    sign_test_ties : {"drop", "split"}
        Tie rule of the per-pair sign tests (see :func:`sign_test`).
    alpha : float
        Level of the sign tests used by :meth:`FaviResult.ranking`.
    unpaired : {"warn", "raise", "count"}
        What to do with items rated for only one system of a pair: they are always skipped and
        counted (``n_skipped``); ``"warn"`` also warns, ``"raise"`` raises :class:`DataError`.

    Returns
    -------
    FaviResult

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"seg": [1, 1, 2, 2, 3, 3], "system": list("ababab"),
    ...                    "human": [3, 2, 1, 1, 4, 5], "metric": [0.9, 0.2, 0.6, 0.5, 0.4, 0.3]})
    >>> r = favi("human ~ metric | system", df, item="seg")
    >>> r.to_frame()[["system_1", "system_2", "n", "E", "favi"]].to_dict("records")
    [{'system_1': 'a', 'system_2': 'b', 'n': 3, 'E': 2, 'favi': 1.5}]
    """
    if not isinstance(data, pd.DataFrame):
        raise DataError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    _check_choice(unpaired, "unpaired", ("warn", "raise", "count"))
    _check_choice(sign_test_ties, "sign_test_ties", _TIES)
    alpha = _check_level(alpha, "alpha")
    tol = _tolerances(tolerance)
    dir_h = _direction(human_higher_is_better, "human_higher_is_better")
    dir_m = _direction(metric_higher_is_better, "metric_higher_is_better")
    parsed = parse_formula(formula, allow_groups=True, allow_multiple_rhs=False, allow_intercept_rhs=False)
    if len(parsed.lhs) != 1:
        raise FormulaError("give one human rating column left of '~'", formula,
                           (parsed.lhs[1].start, parsed.lhs[-1].end))
    if len(parsed.groups) not in (1, 2):
        raise FormulaError("name the system column after '|' ('| system'), or the two system columns of "
                           "preference data ('| system_a + system_b')", formula)
    item_col = _column(data, item, "item")
    group_cols = [_column(data, t.code, "system", formula) for t in parsed.groups]
    frame = parsed.evaluate(data, eval_env={})
    human = frame.lhs.iloc[:, 0]
    metric = frame.rhs.iloc[:, 0]
    call = {"formula": formula, "item": item, "pairs": pairs, "tolerance": tolerance,
            "human_higher_is_better": human_higher_is_better,
            "metric_higher_is_better": metric_higher_is_better,
            "sign_test_ties": sign_test_ties, "alpha": alpha, "unpaired": unpaired}
    missing = human.isna() | metric.isna() | item_col.isna()
    for g in group_cols:
        missing |= g.isna()
    rows_excluded = int(missing.sum())
    keep = ~missing.to_numpy()
    if not keep.any():
        raise DataError("no row has human score, metric score, item and system all present")

    if len(group_cols) == 1:
        mode = "scores"
        sys_col = group_cols[0][keep]
        item_kept = item_col[keep]
        try:
            h = human.to_numpy()[keep].astype(float)
            m = metric.to_numpy()[keep].astype(float)
        except (TypeError, ValueError):
            raise DataError("human and metric columns must hold numbers (scalar or ordinal scores) when "
                            "data have one row per (item, system); for preference symbols use "
                            "'| system_a + system_b'") from None
        s_codes, systems_arr = pd.factorize(sys_col.astype(str) if sys_col.dtype.kind not in "OUST"
                                            and not isinstance(sys_col.dtype, pd.StringDtype)
                                            else sys_col, sort=True)
        i_codes, items_arr = pd.factorize(item_kept, sort=False)
        n_sys = len(systems_arr)
        seen = np.bincount(i_codes.astype(np.int64) * n_sys + s_codes, minlength=len(items_arr) * n_sys)
        if seen.max() > 1:
            j = int(np.argmax(seen))
            raise DataError(f"item {_show(items_arr[j // n_sys])} has more than one row for system "
                            f"{systems_arr[j % n_sys]!r}; data need one row per (item, system): "
                            "average repeated ratings first")
        systems = tuple(str(s) for s in systems_arr)
        if len(systems) < 2:
            raise DataError(f"the system column has one system ({systems}); Favi compares pairs of systems")
        hs = np.full((len(systems), len(items_arr)), np.nan)
        ms = np.full_like(hs, np.nan)
        hs[s_codes, i_codes] = dir_h * h
        ms[s_codes, i_codes] = dir_m * m
        ia, ib = _resolve_pairs(pairs, systems)
        counts, skipped = _count_from_scores(hs, ms, ia, ib, tol[0], tol[1])
        n_items = len(items_arr)
    else:
        mode = "preferences"
        ha = _codes(human.to_numpy()[keep], f"human column {parsed.lhs[0].code!r}")
        ma = _codes(metric.to_numpy()[keep], f"metric column {parsed.rhs[0].code!r}")
        sa = group_cols[0].to_numpy()[keep].astype(str)
        sb = group_cols[1].to_numpy()[keep].astype(str)
        same = sa == sb
        if same.any():
            j = int(np.flatnonzero(same)[0])
            raise DataError(f"row {j} compares system {sa[j]!r} with itself; each row needs two systems")
        systems = tuple(sorted(set(sa) | set(sb)))
        idx = {s: i for i, s in enumerate(systems)}
        a = np.fromiter((idx[s] for s in sa), dtype=np.intp, count=sa.size)
        b = np.fromiter((idx[s] for s in sb), dtype=np.intp, count=sb.size)
        flip = a > b
        ha = np.where(flip, -ha, ha)
        ma = np.where(flip, -ma, ma)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        k = len(systems)
        if isinstance(pairs, str):
            _resolve_pairs(pairs, systems)
            present = np.unique(lo * k + hi)
            ia, ib = present // k, present % k
        else:
            ia, ib = _resolve_pairs(pairs, systems)
        # counts for the canonical (lo, hi) orientation, then oriented as requested
        key = lo * k + hi
        cell = (1 - ha.astype(np.int64)) * 3 + (1 - ma.astype(np.int64))
        table = np.bincount(key * 9 + cell, minlength=k * k * 9).reshape(k * k, 3, 3)
        want_lo, want_hi = np.minimum(ia, ib), np.maximum(ia, ib)
        counts = table[want_lo * k + want_hi].copy()
        swap = ia > ib
        counts[swap] = counts[swap][:, ::-1, ::-1]
        skipped = np.zeros(ia.size, dtype=np.int64)
        n_items = int(pd.unique(item_col.to_numpy()[keep]).size)
    if skipped.any():
        msg = (f"{int(skipped.sum())} item-pair combinations are rated for only one system of the pair "
               f"(in {int((skipped > 0).sum())} of {skipped.size} pairs); they are skipped and counted in "
               "to_frame()['n_skipped']")
        if unpaired == "raise":
            raise DataError(msg + "; drop those items or pass unpaired='warn'")
        if unpaired == "warn":
            warnings.warn(msg, UnpairedItemsWarning, stacklevel=2)
    return FaviResult(formula=formula, item=item, systems=systems, pair_index=np.column_stack([ia, ib]),
                      counts=counts, n_skipped=skipped, mode=mode, rows_used=int(keep.sum()),
                      rows_excluded=rows_excluded, n_items=n_items, tolerance=tol,
                      higher_is_better=(bool(human_higher_is_better), bool(metric_higher_is_better)),
                      sign_test_ties=sign_test_ties, alpha=alpha, call=call)
