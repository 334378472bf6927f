"""One correlation and two dependent ones: Fisher's interval, Williams' test, Zou's interval.

Number the human score 1 and two metrics 2 and 3, all measured on the same ``n`` systems.
:func:`fisher_ci` gives the interval of one correlation; :func:`williams_test` tests
``r12 = r13`` given ``r23`` (the correlations share variable 1, so they are *dependent and
overlapping*), and :func:`zou_ci` gives the interval of ``r12 - r13``.  The numbers are those of
R's ``psych::r.test`` and ``cocor.dep.groups.overlap`` (tested to 1e-9).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .. import _validate
from .._results import TestResult
from .._validate import renamed
from ..summary import Summary
from ._args import alternative_arg, corr_arg, method_arg, n_arg, triple_arg
from ._kernels import fisher_bounds, t_pvalue, williams_t, zou_bounds

__all__ = ["WilliamsResult", "fisher_ci", "williams_test", "zou_ci"]

_ALTERNATIVE_TEXT = {"greater": "r12 > r13", "less": "r12 < r13", "two-sided": "r12 != r13"}


def fisher_ci(r: float, n: int, level: float = 0.95, *, method: str = "pearson") -> tuple[float, float]:
    """Confidence interval of one correlation from Fisher's r-to-z transform.

    The interval is ``tanh(atanh(r) -+ z_q * se)`` with ``z_q`` the normal quantile at
    ``(1 + level) / 2``; it is asymmetric around ``r`` and stays inside [-1, 1].

    Parameters
    ----------
    r : float
        The correlation, ``|r| <= 1``.  At ``r = +-1`` see Notes.
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
        The interval's bounds.

    Notes
    -----
    Fisher's transform is infinite at ``|r| = 1``.  A Pearson ``r = +-1`` means the points lie
    exactly on a line, which the bivariate normal model of the interval allows only when the
    population correlation is +-1: the interval is the point ``(r, r)`` (R's ``cor.test`` gives
    the same), and :func:`~binaryeval.correlation.correlate` warns, since a metric that is an
    exact linear function of the human score is usually a copy of it.

    A rank correlation of +-1 only says that the two rankings agree (or are reversed), which
    happens often with few systems: with 6 systems, a population Spearman rho of 0.65 gives a
    sample rho of exactly 1 in 2.5% of bivariate normal samples.  Its interval is the one of the
    value the observation stands for, with the outer end at +-1: ``(low(r_c), 1)`` at ``r = 1``.
    Spearman: ``r_c = 1 - 12/(n^3 - n)``, the largest value below 1 that ``n`` untied ranks give.
    Kendall: ``r_c = (2/pi) asin(2 sin(pi rho_c/6))`` with ``rho_c`` the Spearman value (the
    Kendall tau of the bivariate normal with that Spearman rho; both coefficients are 1 on the
    same event).  Against the exact lower end under bivariate normal data (the population value
    at which a perfect ranking has probability ``(1 - level)/2``, found by simulation) the lower
    end is conservative for every ``n`` from 5 to 60 at levels 0.8, 0.95 and 0.99: e.g. 0.383
    against 0.65 for Spearman with ``n = 6``, 0.9952 against 0.9977 with ``n = 20``.  The Williams
    and Zou comparisons of :meth:`~binaryeval.correlation.CorrelationResult.pairwise` use
    ``r_c`` in the same way.

    Examples
    --------
    >>> from binaryeval import fisher_ci
    >>> low, high = fisher_ci(0.9, 16)
    >>> round(low, 4), round(high, 4)
    (0.73, 0.9651)

    Six systems ranked exactly as the humans rank them:

    >>> low, high = fisher_ci(1.0, 6, method="spearman")
    >>> round(low, 4), high
    (0.3827, 1.0)
    """
    method = method_arg(method)
    r, n, level = corr_arg("r", r), n_arg(n, method), _validate.level(level)
    low, high = fisher_bounds(r, n, level, method)
    return float(low), float(high)


# Equality compares every field (all are scalars), as for scipy's result objects; eq=False would
# inherit the base's comparison of statistic, p-value and method only.
@dataclass(frozen=True, repr=False)
class WilliamsResult(TestResult):
    """Williams' t test of two dependent, overlapping correlations.

    Unpacks to ``(statistic, p_value)``; the other fields are reached by name.

    Attributes
    ----------
    statistic : float
        Williams' t.
    p_value : float
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
    >>> from binaryeval import williams_test
    >>> res = williams_test(0.95, 0.90, 0.90, 16)
    >>> res
    WilliamsResult(statistic=1.35281, p_value=0.099589, df=13, alternative='greater')
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

    @renamed(confidence_level="level")
    def confidence_interval(self, level: float = 0.95) -> tuple[float, float]:
        """Zou's (2007) interval for ``r12 - r13`` (see :func:`zou_ci`).

        Parameters
        ----------
        level : float
            Confidence level.

        Returns
        -------
        (low, high) : tuple of float
            The interval's bounds.

        Examples
        --------
        >>> from binaryeval import williams_test
        >>> low, high = williams_test(0.95, 0.90, 0.90, 12).confidence_interval(level=0.9)
        >>> round(low, 4), round(high, 4)
        (-0.031, 0.2076)
        """
        return zou_ci(self.r12, self.r13, self.r23, self.n, level=level)

    def to_frame(self, level: float = 0.95) -> pd.DataFrame:
        """One row: the three correlations, ``estimate = r12 - r13``, Zou's interval and the test.

        Parameters
        ----------
        level : float
            Level of Zou's interval (``lower``, ``upper``).

        Returns
        -------
        DataFrame
            Columns ``r12, r13, r23, estimate, lower, upper, statistic, df, p_value, n``;
            attrs ``level``, ``method``, ``interval``, ``alternative``.

        Examples
        --------
        >>> from binaryeval import williams_test
        >>> williams_test(0.95, 0.90, 0.90, 12).to_frame().round(4)
            r12  r13  r23  estimate   lower   upper  statistic  df  p_value   n
        0  0.95  0.9  0.9      0.05 -0.0555  0.2590     1.1263   9   0.1446  12
        """
        low, high = self.confidence_interval(level)
        out = pd.DataFrame({"r12": [self.r12], "r13": [self.r13], "r23": [self.r23],
                            "estimate": [self.r12 - self.r13], "lower": [low], "upper": [high],
                            "statistic": [self.statistic], "df": [self.df],
                            "p_value": [self.p_value], "n": [self.n]})
        out.attrs.update(level=_validate.level(level), method=self.method,
                         interval="Zou (2007)", alternative=self.alternative)
        return out

    def summary(self) -> Summary:
        """The test, the difference of the correlations and its 95% Zou interval.

        Returns
        -------
        Summary
            Printable as text, HTML and LaTeX.

        Examples
        --------
        >>> from binaryeval import williams_test
        >>> print(williams_test(0.95, 0.90, 0.90, 12).summary().as_text().splitlines()[0])
        Williams test of dependent correlations r12 vs r13
        """
        frame = self.to_frame().drop(columns=["n"])
        return Summary("Williams test of dependent correlations r12 vs r13",
                       {"n (systems)": self.n, "alternative": self.alternative,
                        "test": self.method, "interval": "95% Zou (2007)"}, [("", frame)],
                       [f"1 = human, 2 = metric A, 3 = metric B; the alternative "
                        f"{self.alternative!r} is {_ALTERNATIVE_TEXT[self.alternative]}; "
                        "estimate = r12 - r13."])

    def _repr_fields(self) -> Mapping[str, Any]:
        return {"statistic": self.statistic, "p_value": self.p_value, "df": self.df,
                "alternative": self.alternative}


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
        Unpacks to ``(statistic, p_value)``; also ``df``, ``alternative`` and the inputs.

    Raises
    ------
    ParameterError
        ``n < 4``, ``|r| > 1``, or a triple that is no correlation matrix (negative determinant).

    Examples
    --------
    >>> from binaryeval import williams_test
    >>> t, p = williams_test(0.95, 0.90, 0.90, 12, alternative="two-sided")
    >>> round(t, 6), round(p, 6)
    (1.126297, 0.289175)
    """
    r12, r13, r23 = triple_arg(r12, r13, r23)
    n = n_arg(n)
    alternative = alternative_arg(alternative)
    t = float(williams_t(r12, r13, r23, n))
    p = float(t_pvalue(t, n - 3, alternative))
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
    Same numbers as ``cocor.dep.groups.overlap(..., test="zou2007")``.  The interval always
    holds ``r12 - r13``, but need not nest by level: with ``c`` near 1 a square root can shrink
    as both single intervals widen (``r12 = 0.875``, ``r13 = 0.96875``, ``r23 = 0.964``,
    ``n = 11``, ``c = 0.938``: the 95 % upper end -0.06173 lies below the 90 % one -0.06157).

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
        When a Pearson ``|r12|`` or ``|r13|`` is 1 its single interval is the point itself
        (Fisher's transform is infinite there) and ``c`` is 0/0 (R's cocor gives NA): the
        interval is then the limit of Zou's as the correlation tends to +-1, the other
        correlation's interval shifted (``(1 - u2, 1 - l2)`` at ``r12 = 1``); it carries the
        uncertainty of that other correlation only.  A rank correlation of +-1 has a proper
        single interval (see :func:`fisher_ci`, Notes) and ``c`` is computed at the value that
        interval stands for.

    Examples
    --------
    >>> from binaryeval import fisher_ci, zou_ci
    >>> low, high = zou_ci(0.95, 0.90, 0.90, 12)
    >>> round(low, 6), round(high, 6)
    (-0.055455, 0.259031)

    A metric that ranks the systems exactly as the humans do (``r12 = 1``):

    >>> low, high = zou_ci(1.0, 0.5, 0.5, 20)
    >>> l2, u2 = fisher_ci(0.5, 20)
    >>> round(low, 6) == round(1 - u2, 6), round(high, 6) == round(1 - l2, 6)
    (True, True)
    """
    method = method_arg(method)
    r12, r13, r23 = triple_arg(r12, r13, r23)
    n, level = n_arg(n, method), _validate.level(level)
    low, high = zou_bounds(r12, r13, r23, n, level, method)
    return float(low), float(high)
