"""The sign test of ``n(+)`` against ``n(-)``, with a documented tie rule."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .._results import TestResult
from .._validate import choice, count, flag
from ..summary import Summary
from .score import MAX_TOTAL

TIES = ("drop", "split")
ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass(frozen=True, eq=False, repr=False)
class SignTestResult(TestResult):
    """Result of :func:`sign_test`; unpacks to ``(statistic, p_value)``.

    Attributes
    ----------
    statistic : float
        The number of ``+`` ratings entering the binomial test (after the tie rule), or the
        normal deviate ``z`` with ``exact=False``.
    p_value : float
        NaN when no untied rating is left.
    n_pos, n_neg, n_ties : int
        The counts as given.
    n : int
        Ratings entering the test.
    ties, alternative : str
        The tie rule and the alternative hypothesis.

    Examples
    --------
    >>> from binaryeval import sign_test
    >>> res = sign_test(15, 5, 3)
    >>> stat, p = res
    >>> stat, round(p, 6)
    (15.0, 0.041389)
    >>> res
    SignTestResult(statistic=15, p_value=0.0413895, n=20, alternative='two-sided')
    """

    n_pos: int = 0
    n_neg: int = 0
    n_ties: int = 0
    n: int = 0
    ties: str = "drop"
    alternative: str = "two-sided"

    def _repr_fields(self) -> Mapping[str, Any]:
        return {"statistic": self.statistic, "p_value": self.p_value, "n": self.n,
                "alternative": self.alternative}

    def summary(self) -> Summary:
        """The counts, the tie rule and the test.

        Examples
        --------
        >>> from binaryeval import sign_test
        >>> print(sign_test(15, 5, 3).summary().as_text().splitlines()[0])
        exact sign test, ties dropped (conditional test)
        """
        info = {"n(+)": self.n_pos, "n(-)": self.n_neg, "n(=)": self.n_ties,
                "ratings entering the test (n)": self.n, "ties": self.ties,
                "alternative": self.alternative, "statistic": self.statistic, "p_value": self.p_value}
        notes = ["statistic: the number of '+' ratings among the n entering the binomial test "
                 "(p = 1/2 under the null)" if "exact" in self.method else
                 "statistic: z = (2k - n) / sqrt(n) with k the '+' ratings entering the test"]
        return Summary(self.method, info, notes=notes)


def sign_pvalues(k: np.ndarray, n: np.ndarray, alternative: str = "two-sided") -> np.ndarray:
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


def apply_ties(n_pos: np.ndarray, n_neg: np.ndarray, n_ties: np.ndarray,
               ties: str) -> tuple[np.ndarray, np.ndarray]:
    """Successes and trials entering the binomial test under the tie rule."""
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
        ``statistic`` = successes entering the test (``z`` when ``exact=False``), ``p_value`` (NaN
        when no untied rating is left).

    Examples
    --------
    >>> # R: binom.test(15, 20)$p.value
    >>> from binaryeval import sign_test
    >>> round(sign_test(15, 5, 5).p_value, 6)
    0.041389
    """
    counts = [count(v, name, maximum=MAX_TOTAL)
              for name, v in (("n_pos", n_pos), ("n_neg", n_neg), ("n_ties", n_ties))]
    choice(ties, "ties", TIES)
    choice(alternative, "alternative", ALTERNATIVES)
    flag(exact, "exact")
    k, n = apply_ties(np.array(counts[0]), np.array(counts[1]), np.array(counts[2]), ties)
    tie_text = "ties dropped (conditional test)" if ties == "drop" else "ties split equally"
    if exact:
        stat = float(k)
        p = float(sign_pvalues(k, n, alternative))
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
