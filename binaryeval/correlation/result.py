"""The result of :func:`~binaryeval.correlation.correlate`: correlations, intervals, comparisons."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import _validate
from .._results import Result, excluded_rows, row_facts
from .._validate import renamed
from ..data import LeftOutRows
from ..errors import ParameterError
from ..summary import Summary
from ._args import alternative_arg, seed_arg
from ._kernels import (
    INTERVAL_NAMES,
    corrected,
    fisher_bounds,
    rank_substitute,
    t_pvalue,
    williams_t,
    zou_bounds,
)
from ._resampling import bootstrap_table, permutation_table

__all__ = ["CorrelationResult"]

#: What Williams' t and Zou's interval are worth on rank correlations (they are built for Pearson
#: r).  Simulated with bivariate normal scores, 4,000 samples per case, (rho_12 = rho_13,
#: rho_23, n) in {(0.8, 0.7, 13), (0.5, 0.5, 20), (0.9, 0.9, 10), (0.3, 0.2, 50)}: a one-sided
#: 5% Williams test rejected the true null in 0.4% to 1.7% of samples on Kendall's tau and 5.2%
#: to 8.8% on Spearman's rho (Pearson: 4.2% to 5.2%); Zou's 95% interval covered 0 in 91% to
#: 97% (Kendall) and 94% to 95% (Spearman) of them.
RANK_TEST_NOTES = {
    "kendall": "Williams' t and Zou's c assume Pearson correlations; on Kendall's tau they are "
               "approximations, and the Williams test is conservative: with normal scores a "
               "one-sided 5% test rejected a true null in only 0.4% to 1.7% of simulated "
               "samples (10 to 50 systems), so real differences are missed. bootstrap() and "
               "permutation_test() make no such assumption.",
    "spearman": "Williams' t and Zou's c assume Pearson correlations; on Spearman's rho they are "
                "approximations, and the Williams test is liberal with few systems: with normal "
                "scores a one-sided 5% test rejected a true null in 5% to 9% of simulated "
                "samples (10 to 50 systems). bootstrap() and permutation_test() make no such "
                "assumption.",
}

@dataclass(frozen=True, eq=False, repr=False)
class CorrelationResult(Result):
    """Correlations of several metrics with a human score over the same systems.

    Built by :func:`~binaryeval.correlation.correlate`; immutable (accessors return copies).

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
    n_rows, n_used : int
        Input rows given and used.
    excluded : dict
        Rows left out, by reason (``"missing score"``, ``"missing system"``); ``n_excluded``
        is their sum.
    excluded_rows : Series or None
        Which rows were left out: the reason of each, indexed by the data's row labels (None
        for a Dask frame).
    aggregate : str or None
        How the rows of a system were combined (``"mean"``, ``"median"``); None when every
        system came as one row.
    system_scores : str
        The same in words, e.g. ``"mean of 527 segment scores per system"``.
    systems_left_out : list
        Systems of the data none of whose rows holds every score (``| system`` only), so not
        among the ``n`` systems; the summary names them.
    lower_is_better : tuple of str
        Terms declared lower-is-better (negated before correlating).
    flipped : tuple of str
        Terms whose values were negated (``lower_is_better``, and ``absolute=True``).
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
    >>> from binaryeval import correlate
    >>> d = pd.DataFrame({"human": [0.1, 0.4, 0.35, 0.8, 0.9, 0.2],
    ...                   "bleu": [20.0, 24, 23, 27, 30, 22], "chrf": [50.0, 49, 55, 58, 57, 52]})
    >>> res = correlate("human ~ bleu + chrf", d)
    >>> res
    CorrelationResult(method='pearson', human='human', metrics=('bleu', 'chrf'), n=6)
    >>> res.pairwise()[["metric_1", "metric_2", "p_value"]].round(3).values.tolist()
    [['bleu', 'chrf', 0.049], ['chrf', 'bleu', 0.951]]
    """

    formula: str
    method: str
    level: float
    human: str
    metrics: tuple[str, ...]
    n: int
    n_rows: int
    n_used: int
    _excluded: tuple[tuple[str, int], ...]
    aggregate: str | None
    system_scores: str
    lower_is_better: tuple[str, ...]
    flipped: tuple[str, ...]
    absolute: bool
    _scores: pd.DataFrame = field(repr=False)
    _corr: np.ndarray = field(repr=False)
    _rows_per_system: pd.Series | None = field(default=None, repr=False)
    _left_out: tuple = field(default=(), repr=False)
    _rows_left_out: LeftOutRows | None = field(default=None, repr=False, compare=False)

    # -- data -----------------------------------------------------------------------------
    @property
    def excluded(self) -> dict[str, int]:
        """Rows left out, by reason (``"missing score"``, ``"missing system"``)."""
        return dict(self._excluded)

    @property
    def n_excluded(self) -> int:
        """Input rows left out (the sum of ``excluded``)."""
        return int(sum(self.excluded.values()))

    @property
    def excluded_rows(self) -> pd.Series | None:
        """The rows left out: the reason of each, indexed by the data's own row labels.

        In data order, the index name kept; the reasons are the keys of ``excluded`` and
        ``excluded_rows.value_counts()`` equals it.  Empty when no row was left out.  None for
        data in a Dask frame: its partitions' index labels need not be unique or ordered, so
        they would not find the rows.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> from binaryeval import correlate
        >>> d = pd.DataFrame({"sys": list("ABCDEFG"),
        ...                   "human": [0.1, 0.4, 0.35, 0.8, 0.9, 0.2, np.nan],
        ...                   "bleu": [20.0, 24, 23, 27, 30, 22, 25]},
        ...                  index=pd.Index([30, 10, 20, 60, 50, 40, 70], name="run"))
        >>> d.loc[40, "sys"] = None
        >>> correlate("human ~ bleu | sys", d).excluded_rows
        run
        40    missing system
        70     missing score
        Name: reason, dtype: object
        """
        return excluded_rows(self._rows_left_out)

    @property
    def systems_left_out(self) -> list:
        """Systems of the data without a row holding every score (``| system`` only).

        They have no system score and are not among the ``n`` systems correlated; their rows
        are counted in ``excluded``.
        """
        return list(self._left_out)

    @property
    def aggregated(self) -> bool:
        """Whether some system's score combines several rows (``| system`` on segment rows)."""
        return self.aggregate is not None

    @property
    def rows_per_system(self) -> pd.Series | None:
        """Rows combined into each system's score (None without ``| system``)."""
        return None if self._rows_per_system is None else self._rows_per_system.copy()

    @property
    def direction(self) -> dict[str, str]:
        """The direction used for each term: human score first, then the metrics."""
        out = {}
        for term in (self.human, *self.metrics):
            declared, negated = term in self.lower_is_better, term in self.flipped
            if declared and negated:
                out[term] = "lower is better (negated)"
            elif declared:
                out[term] = "lower is better, negated back by absolute=True (r < 0)"
            elif negated:
                out[term] = "negated by absolute=True (r < 0)"
            else:
                out[term] = "higher is better"
        return out

    @property
    def scores(self) -> pd.DataFrame:
        """System-level scores used (one row per system; lower-is-better terms negated)."""
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
        return self.level if level is None else _validate.level(level)

    def _attrs(self) -> dict[str, Any]:
        return {"method": self.method, "interval": INTERVAL_NAMES[self.method],
                "human": self.human, "lower_is_better": list(self.lower_is_better),
                "directions": self.direction, "aggregate": self.aggregate,
                "system_scores": self.system_scores, "n_rows": self.n_rows,
                "n_used": self.n_used, "n_excluded": self.n_excluded,
                "excluded": self.excluded, "systems_left_out": self.systems_left_out}

    # -- tables -----------------------------------------------------------------------------
    def to_frame(self, level: float | None = None) -> pd.DataFrame:
        """One row per metric: ``metric, estimate, lower, upper, n``.

        ``estimate`` is the correlation with the human score; ``lower``/``upper`` its Fisher
        interval (with the rank-correlation variance for Spearman/Kendall, see
        :func:`~binaryeval.correlation.fisher_ci`).

        Parameters
        ----------
        level : float, optional
            Level of the intervals (default: the result's level).

        Returns
        -------
        DataFrame
            attrs: ``level``, ``method``, ``interval``, ``directions`` (term -> direction used),
            ``lower_is_better``, ``aggregate`` and ``system_scores`` (how rows became system
            scores), the row account ``n_rows``, ``n_used``, ``n_excluded``, ``excluded``, and
            ``systems_left_out`` (systems whose rows all lack a score).

        Examples
        --------
        >>> import pandas as pd
        >>> from binaryeval import correlate
        >>> d = pd.DataFrame({"human": [0.1, 0.4, 0.35, 0.8, 0.9, 0.2],
        ...                   "bleu": [20.0, 24, 23, 27, 30, 22], "chrf": [50.0, 49, 55, 58, 57, 52]})
        >>> res = correlate("human ~ bleu + chrf", d)
        >>> res.to_frame().round(4)
          metric  estimate   lower   upper  n
        0   bleu    0.9817  0.8368  0.9981  6
        1   chrf    0.8010 -0.0302  0.9773  6
        """
        level = self._level(level)
        r = self._corr[0, 1:]
        low, high = fisher_bounds(r, self.n, level, self.method)
        out = pd.DataFrame({"metric": list(self.metrics), "estimate": r, "lower": low,
                            "upper": high, "n": self.n})
        out.attrs.update(level=level, **self._attrs())
        return out

    def interval(self, level: float | None = None) -> pd.DataFrame:
        """Fisher intervals of the single correlations: DataFrame[lower, upper] indexed by metric.

        Parameters
        ----------
        level : float, optional
            Confidence level (default: the result's level, as in :meth:`to_frame`).

        Returns
        -------
        DataFrame
            Columns ``lower``, ``upper``; attrs ``level``, ``method``, ``interval``.

        Examples
        --------
        >>> import pandas as pd
        >>> from binaryeval import correlate
        >>> d = pd.DataFrame({"human": [0.1, 0.4, 0.35, 0.8, 0.9, 0.2],
        ...                   "bleu": [20.0, 24, 23, 27, 30, 22], "chrf": [50.0, 49, 55, 58, 57, 52]})
        >>> res = correlate("human ~ bleu + chrf", d)
        >>> res.interval(0.9).round(4)
                 lower   upper
        metric
        bleu    0.8837  0.9972
        chrf    0.1506  0.9675
        """
        level = self._level(level)
        frame = self.to_frame(level).set_index("metric")[["lower", "upper"]]
        frame.attrs.update(level=level, method=self.method,
                           interval=INTERVAL_NAMES[self.method])
        return frame

    @renamed(alpha="sig_level")
    def pairwise(self, level: float | None = None, alternative: str = "greater",
                 sig_level: float = 0.05) -> pd.DataFrame:
        """Every ordered pair of metrics: difference, Zou interval, Williams t and p.

        Parameters
        ----------
        level : float, optional
            Level of Zou's interval for ``r_1 - r_2`` (default: the result's level).
        alternative : {"greater", "less", "two-sided"}
            Alternative of the Williams test; ``"greater"``: metric_1 correlates more strongly
            with the human score than metric_2.
        sig_level : float
            Significance level of the ``significant`` column (``p_value < sig_level``).

        Returns
        -------
        DataFrame
            Columns ``metric_1, metric_2, r_1, r_2, r_23, estimate, lower, upper, statistic, df,
            p_value, significant`` (``estimate = r_1 - r_2``, ``lower``/``upper`` its Zou
            interval); attrs hold ``alternative``, ``level``, ``sig_level``, ``method``, and
            for Spearman and Kendall a ``note`` on what the Pearson formulas are worth there
            (the Williams test is conservative on Kendall's tau, liberal on Spearman's rho with
            few systems).

        Examples
        --------
        >>> import pandas as pd
        >>> from binaryeval import correlate
        >>> d = pd.DataFrame({"human": [0.1, 0.4, 0.35, 0.8, 0.9, 0.2],
        ...                   "bleu": [20.0, 24, 23, 27, 30, 22], "chrf": [50.0, 49, 55, 58, 57, 52]})
        >>> res = correlate("human ~ bleu + chrf", d)
        >>> res.pairwise()[["metric_1", "metric_2", "estimate", "statistic", "p_value"]].round(4)
          metric_1 metric_2  estimate  statistic  p_value
        0     bleu     chrf    0.1807     2.3736   0.0491
        1     chrf     bleu   -0.1807    -2.3736   0.9509
        """
        level = self._level(level)
        alternative = alternative_arg(alternative)
        sig_level = _validate.sig_level(sig_level)
        k = len(self.metrics)
        i, j = np.nonzero(~np.eye(k, dtype=bool))
        r1, r2 = self._corr[0, 1 + i], self._corr[0, 1 + j]
        r23 = self._corr[1 + i, 1 + j]
        # a rank correlation of +-1 enters the test as the value its interval stands for
        t = williams_t(corrected(r1, self.n, self.method), corrected(r2, self.n, self.method),
                       r23, self.n)
        p = t_pvalue(t, self.n - 3, alternative)
        low, high = zou_bounds(r1, r2, r23, self.n, level, self.method)
        names = np.asarray(self.metrics, dtype=object)
        out = pd.DataFrame({"metric_1": names[i], "metric_2": names[j], "r_1": r1, "r_2": r2,
                            "r_23": r23, "estimate": r1 - r2, "lower": low, "upper": high,
                            "statistic": t, "df": self.n - 3, "p_value": p,
                            "significant": p < sig_level})
        out.attrs.update(alternative=alternative, level=level, sig_level=sig_level,
                         method=self.method, test="Williams (1959) t", interval="Zou (2007)")
        if self.method != "pearson":
            out.attrs["note"] = RANK_TEST_NOTES[self.method]
        return out

    def significance_matrix(self, alternative: str = "greater",
                            order: str | Sequence[str] = "estimate") -> pd.DataFrame:
        """Square DataFrame of Williams p-values (Graham & Liu 2016, Fig. 3).

        Parameters
        ----------
        alternative : {"greater", "less", "two-sided"}
            Alternative of the Williams test; with ``"greater"`` cell ``(i, j)`` is the p-value
            of "metric i correlates more strongly than metric j".  The diagonal is NaN.
        order : "estimate", "input" or list of str
            ``"estimate"``: metrics by decreasing correlation; ``"input"``: the formula's order;
            or the metric names in the order wanted (the values ``order`` takes in every fit).

        Returns
        -------
        DataFrame
            Rows ``metric_1``, columns ``metric_2``; attrs ``alternative``, ``method``, ``test``.

        Examples
        --------
        >>> import pandas as pd
        >>> from binaryeval import correlate
        >>> d = pd.DataFrame({"human": [0.1, 0.4, 0.35, 0.8, 0.9, 0.2],
        ...                   "bleu": [20.0, 24, 23, 27, 30, 22], "chrf": [50.0, 49, 55, 58, 57, 52]})
        >>> res = correlate("human ~ bleu + chrf", d)
        >>> res.significance_matrix().round(4)
        metric_2    bleu    chrf
        metric_1
        bleu         NaN  0.0491
        chrf      0.9509     NaN
        """
        pw = self.pairwise(alternative=alternative)
        mat = pw.pivot(index="metric_1", columns="metric_2", values="p_value")
        if isinstance(order, str):
            order = _validate.choice(order, "order", ("estimate", "input"),
                                     renamed_values={"r": "estimate", "formula": "input"})
        if order == "estimate":
            names = list(self.r.sort_values(ascending=False, kind="stable").index)
        elif order == "input":
            names = list(self.metrics)
        elif isinstance(order, Sequence) and sorted(map(str, order)) == sorted(self.metrics):
            names = [str(m) for m in order]
        else:
            raise ParameterError(f"order={order!r}: use 'estimate', 'input' or a list of "
                                 f"the metrics {list(self.metrics)}")
        mat = mat.reindex(index=names, columns=names)
        mat.index.name, mat.columns.name = "metric_1", "metric_2"
        mat.attrs.update(alternative=pw.attrs["alternative"], method=self.method,
                         test="Williams (1959) t")
        return mat

    # -- resampling alternatives --------------------------------------------------------------
    def bootstrap(self, n_resamples: int = 9999, *,
                  seed: int | np.random.SeedSequence | np.random.Generator | None = None,
                  level: float | None = None, ci_method: str = "BCa") -> pd.DataFrame:
        """Bootstrap (resampling systems) intervals of each r and of each difference of r.

        Uses :func:`scipy.stats.bootstrap` over system indices, so the human score and all metrics
        are resampled together.

        Parameters
        ----------
        n_resamples : int
            Bootstrap resamples.
        seed : int, numpy Generator or None
            Randomness (:func:`numpy.random.default_rng`); the same seed gives the same table.
            ``None`` draws fresh entropy and reports it in ``attrs["seed"]``.
        level : float, optional
            Level of the intervals (default: the result's level).
        ci_method : {"BCa", "percentile", "basic"}
            scipy's interval method.

        Returns
        -------
        DataFrame
            Columns ``metric_1, metric_2, estimate, std_error, lower, upper``; rows with
            ``metric_2`` empty are single correlations, the others differences ``r_1 - r_2``
            (``i < j`` in formula order).  attrs: ``level``, ``seed``, ``n_resamples``, ``method``.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> from binaryeval import correlate
        >>> rng = np.random.default_rng(0)
        >>> h = rng.normal(size=15)
        >>> d = pd.DataFrame({"human": h, "bleu": h + rng.normal(0, 0.5, 15),
        ...                   "chrf": h + rng.normal(0, 1, 15)})
        >>> res = correlate("human ~ bleu + chrf", d)
        >>> res.bootstrap(n_resamples=999, seed=1).round(3)
          metric_1 metric_2  estimate  std_error  lower  upper
        0     bleu              0.938      0.035  0.861  0.982
        1     chrf              0.568      0.130  0.226  0.774
        2     bleu     chrf     0.370      0.117  0.188  0.656
        """
        level = self._level(level)
        n_resamples = _validate.size(n_resamples, "n_resamples")
        seed = seed_arg(seed)
        ci_method = _validate.choice(ci_method, "ci_method", ("BCa", "percentile", "basic"))
        values = self._scores[[self.human, *self.metrics]].to_numpy(float)
        out = bootstrap_table(values, self.metrics, self.method, n_resamples=n_resamples,
                              seed=seed, level=level, ci_method=ci_method)
        out.attrs.update(level=level, seed=seed, n_resamples=n_resamples, method=self.method,
                         interval=f"bootstrap ({ci_method}) over systems")
        return out

    def permutation_test(self, n_resamples: int = 9999, *,
                         seed: int | np.random.SeedSequence | np.random.Generator | None = None,
                         alternative: str = "greater") -> pd.DataFrame:
        """Paired permutation test of ``r_1 = r_2`` for every ordered pair of metrics.

        For each system the (standardised) scores of the two metrics are swapped at random, with
        :func:`scipy.stats.permutation_test` (``permutation_type="samples"``; exact when
        ``2^n <= n_resamples``).  The statistic is ``r(human, metric_1) - r(human, metric_2)``.

        Parameters
        ----------
        n_resamples : int
            Random permutations (all ``2^n`` swaps when that is fewer).
        seed : int, numpy Generator or None
            Randomness of the randomised test; ``None`` draws fresh entropy and reports it in
            ``attrs["seed"]``.
        alternative : {"greater", "less", "two-sided"}
            ``"greater"``: metric_1 correlates more strongly than metric_2.

        Returns
        -------
        DataFrame
            Columns ``metric_1, metric_2, estimate, p_value`` (``estimate = r_1 - r_2``); attrs
            ``alternative``, ``seed``, ``n_resamples``, ``method``.

        Examples
        --------
        >>> import pandas as pd
        >>> from binaryeval import correlate
        >>> d = pd.DataFrame({"human": [0.1, 0.4, 0.35, 0.8, 0.9, 0.2],
        ...                   "bleu": [20.0, 24, 23, 27, 30, 22], "chrf": [50.0, 49, 55, 58, 57, 52]})
        >>> res = correlate("human ~ bleu + chrf", d)
        >>> res.permutation_test(seed=0).round(4)
          metric_1 metric_2  estimate  p_value
        0     bleu     chrf    0.1807   0.0625
        1     chrf     bleu   -0.1807   0.9531
        """
        alternative = alternative_arg(alternative)
        n_resamples = _validate.size(n_resamples, "n_resamples")
        seed = seed_arg(seed)
        values = self._scores[[self.human, *self.metrics]].to_numpy(float)
        out = permutation_table(values, self.metrics, self.method, n_resamples=n_resamples,
                                seed=seed, alternative=alternative)
        out.attrs.update(alternative=alternative, seed=seed, n_resamples=n_resamples,
                         method=self.method, test="paired permutation of standardised metric scores")
        return out

    # -- display ------------------------------------------------------------------------------
    def _info(self) -> dict[str, Any]:
        by_direction: dict[str, list[str]] = {}
        for term, how in self.direction.items():
            by_direction.setdefault(how, []).append(term)
        return {
            "formula": self.formula,
            "method": self.method,
            "systems (n)": self.n,
            **row_facts(self),
            "system scores": self.system_scores,
            **({"systems left out": f"{len(self._left_out)} without a complete row ("
                + ", ".join(map(str, self._left_out)) + ")"} if self._left_out else {}),
            "direction": "; ".join(f"{how}: {', '.join(terms)}"
                                   for how, terms in by_direction.items()),
            "interval": f"{100 * self.level:g}% {INTERVAL_NAMES[self.method]}",
        }

    def summary(self) -> Summary:
        """Correlations with intervals, and the pairwise significance when there are few metrics.

        Returns
        -------
        Summary
            Facts (rows used, how rows became system scores, the direction of each term), the
            correlations sorted by estimate, and the Williams p-values for 2 to 12 metrics.

        Examples
        --------
        >>> import pandas as pd
        >>> from binaryeval import correlate
        >>> d = pd.DataFrame({"human": [0.1, 0.4, 0.35, 0.8, 0.9, 0.2],
        ...                   "bleu": [20.0, 24, 23, 27, 30, 22], "chrf": [50.0, 49, 55, 58, 57, 52]})
        >>> res = correlate("human ~ bleu + chrf", d)
        >>> print(res.summary().as_text())  # doctest: +ELLIPSIS
        Correlation with human judgements (pearson)
        ...
        system scores: one row per system, used as given
        direction: higher is better: human, bleu, chrf
        ...
        """
        table = self.to_frame().set_index("metric").sort_values("estimate", ascending=False,
                                                                  kind="stable")
        tables = [(f"Correlation with {self.human} (sorted by estimate)", table)]
        if 2 <= len(self.metrics) <= 12:
            matrix = self.significance_matrix()
            matrix.attrs["probabilities"] = True
            tables.append(("Williams p-values, row beats column (one-sided)", matrix))
        notes = ["Correlations keep their sign (no |r|); terms where lower is better, on either "
                 "side of the formula, are named in lower_is_better=[...] (absolute=True applies "
                 "the WMT |r| convention)."]
        if self.aggregated:
            notes.append(f"System scores are the {self.aggregate} of segment scores. A corpus-level "
                         "metric (BLEU or chrF on a system's whole output) is not the mean of its "
                         "sentence scores: compute it per system and pass one row per system.")
        perfect = [m for m, v in zip(self.metrics, self._corr[0, 1:], strict=True) if abs(v) == 1]
        if self.method != "pearson" and perfect:
            sub = float(rank_substitute(self.n, self.method))
            notes.append(f"{', '.join(perfect)}: {self.method} = +-1 (the rankings agree exactly); "
                         f"its interval and the Williams and Zou comparisons use +-{sub:.4f}, the "
                         "value such a ranking stands for (see fisher_ci).")
        if self.method != "pearson":
            notes.append(RANK_TEST_NOTES[self.method])
        return Summary(f"Correlation with human judgements ({self.method})", self._info(), tables,
                       notes)

    def _repr_fields(self) -> Mapping[str, Any]:
        return {"method": self.method, "human": self.human, "metrics": self.metrics, "n": self.n}

    @renamed(alpha="sig_level")
    def plot(self, ax=None, *, kind: str = "heatmap", sig_level: float = 0.05, **kwargs):
        """Plot the significance heatmap or a forest plot of the intervals.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure otherwise.
        kind : {"heatmap", "forest"}
            ``"heatmap"``: Williams p-values, row metric beating column metric, cells with
            ``p >= sig_level`` left blank (Graham & Liu 2016, Fig. 3).  ``"forest"``: each
            metric's r with its Fisher interval, sorted by r (Graham & Liu 2016, Fig. 5).
        sig_level : float
            Significance level of the heatmap.
        **kwargs
            Passed to ``imshow`` (heatmap) or ``errorbar`` (forest).

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on.

        Examples
        --------
        >>> import pandas as pd
        >>> from binaryeval import correlate
        >>> d = pd.DataFrame({"human": [0.1, 0.4, 0.35, 0.8, 0.9, 0.2],
        ...                   "bleu": [20.0, 24, 23, 27, 30, 22], "chrf": [50.0, 49, 55, 58, 57, 52]})
        >>> res = correlate("human ~ bleu + chrf", d)
        >>> ax = res.plot(kind="forest")
        >>> [t.get_text() for t in ax.get_yticklabels()]
        ['chrf', 'bleu']
        """
        import matplotlib.pyplot as plt

        kind = _validate.choice(kind, "kind", ("heatmap", "forest"))
        sig_level = _validate.sig_level(sig_level)
        if ax is None:
            k = len(self.metrics)
            size = (max(4.0, 0.45 * k + 2), max(3.0, 0.45 * k + 1.5))
            _, ax = plt.subplots(figsize=size)
        if kind == "heatmap":
            self._heatmap(ax, sig_level, kwargs)
        else:
            fr = self.to_frame().sort_values("estimate", kind="stable")
            y = np.arange(len(fr))
            opts = {"fmt": "o", "color": "black", "capsize": 3}
            opts.update(kwargs)
            ax.errorbar(fr["estimate"], y, xerr=[fr["estimate"] - fr["lower"],
                                                 fr["upper"] - fr["estimate"]], **opts)
            ax.set_yticks(y, labels=list(fr["metric"]))
            ax.set_xlabel(f"{self.method} r with {self.human} ({100 * self.level:g}% interval, "
                          f"n = {self.n})")
        return ax

    def _heatmap(self, ax, sig_level: float, kwargs: dict) -> None:
        mat = self.significance_matrix()
        p = mat.to_numpy(float)
        shown = np.ma.masked_where(~(p < sig_level), p)
        opts = {"cmap": "Greens_r", "vmin": 0.0, "vmax": sig_level}
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
        ax.figure.colorbar(im, ax=ax, label=f"p-value (blank: p >= {sig_level:g})")
