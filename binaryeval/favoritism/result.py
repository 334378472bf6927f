"""The result of :func:`~binaryeval.favi`: every system pair's confusion matrix and what follows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from .._directions import describe
from .._results import Result, excluded_rows, row_facts
from .._validate import choice, renamed
from .._validate import sig_level as valid_sig_level
from ..data import LeftOutRows
from ..errors import ParameterError
from ..summary import Summary
from .confusion import PreferenceConfusion
from .intervals import favi_intervals
from .score import favi_from_counts, ratio
from .sign import apply_ties, sign_pvalues

if TYPE_CHECKING:  # names used only in type hints
    import networkx as nx
    from matplotlib.axes import Axes


@dataclass(frozen=True, eq=False, repr=False)
class FaviResult(Result):
    """Favi-Scores, agreement and sign tests for pairs of systems (returned by :func:`favi`).

    Attributes
    ----------
    systems : tuple of str
        System names in their canonical order.
    pair_index : ndarray (n_pairs, 2)
        Indices into ``systems`` of ``group_1`` and ``group_2`` of each pair.
    counts : ndarray (n_pairs, 3, 3)
        Confusion matrices (rows human, columns metric, order ``+, =, -``).
    n_skipped : ndarray (n_pairs,)
        Items rated for only one system of the pair (skipped).
    n_rows, excluded : int, dict
        Rows of the data and, per reason, the rows left out (``n_used``, ``n_excluded``).
    excluded_rows : Series or None
        Which rows were left out: the reason of each, indexed by the data's row labels (None
        for a Dask frame).
    human_term, metric_term : str
        The formula's two terms; ``lower_is_better`` lists those whose lower scores are better.

    Examples
    --------
    >>> import binaryeval as be
    >>> ende = be.datasets.load_wmt21_ende()
    >>> res = be.favi("mqm ~ chrf | system", ende, item="seg_id")
    >>> res
    FaviResult(formula='mqm ~ chrf | system', systems=10, pairs=45, n_used=5270, mean_abs_favi=0.32903)
    >>> res.n_rows, res.n_excluded
    (17034, 11764)
    """

    formula: str
    item: str
    systems: tuple[str, ...]
    pair_index: np.ndarray
    counts: np.ndarray
    n_skipped: np.ndarray
    mode: str
    n_rows: int
    excluded: dict[str, int]
    n_items: int
    tolerance: tuple[float, float]
    human_term: str
    metric_term: str
    lower_is_better: tuple[str, ...] = ()
    sign_test_ties: str = "drop"
    sig_level: float = 0.05
    call: dict[str, Any] = field(default_factory=dict)
    _left_out: LeftOutRows | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("pair_index", "counts", "n_skipped"):
            arr = np.array(getattr(self, name), copy=True)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "excluded", dict(self.excluded))

    # -- rows and pairs -----------------------------------------------------------------------
    @property
    def n_excluded(self) -> int:
        """Rows left out (missing item, system, human or metric score); reasons in ``excluded``."""
        return int(sum(self.excluded.values()))

    @property
    def n_used(self) -> int:
        """Rows used: ``n_rows - n_excluded``."""
        return self.n_rows - self.n_excluded

    @property
    def excluded_rows(self) -> pd.Series | None:
        """The rows left out: the reason of each, indexed by the data's own row labels.

        In data order, the index name kept; the reasons are the keys of ``excluded`` and
        ``excluded_rows.value_counts()`` equals it.  Empty when no row was left out.  None for
        data in a Dask frame: its partitions' index labels need not be unique or ordered, so
        they would not find the rows.

        Examples
        --------
        >>> import pandas as pd
        >>> from binaryeval import favi
        >>> df = pd.DataFrame({"seg": [1, 1, 2, 2, 3, 3, 4], "system": list("abababa"),
        ...                    "human": [3, 2, 1, None, 4, 5, 2],
        ...                    "metric": [0.9, 0.2, 0.6, 0.5, 0.4, 0.3, None]},
        ...                   index=pd.Index(list("pqrstuv"), name="row"))
        >>> favi("human ~ metric | system", df, item="seg", unpaired="count").excluded_rows
        row
        s     missing human score (human)
        v    missing metric score (metric)
        Name: reason, dtype: object
        """
        return excluded_rows(self._left_out)

    @property
    def n_pairs(self) -> int:
        """Number of system pairs."""
        return int(self.pair_index.shape[0])

    @property
    def directions(self) -> dict[str, str]:
        """The direction used for each term: ``{term: "higher is better" | "lower is better"}``."""
        return describe((self.human_term, self.metric_term), self.lower_is_better)

    def _pair_stats(self) -> dict[str, np.ndarray]:
        # computed once (the sign tests of half a million pairs are not free)
        if "_pair_stats_cache" not in self.__dict__:
            object.__setattr__(self, "_pair_stats_cache", self._compute_pair_stats())
        return self.__dict__["_pair_stats_cache"]

    def _compute_pair_stats(self) -> dict[str, np.ndarray]:
        c = self.counts
        n = c.sum(axis=(1, 2))
        num, e = favi_from_counts(c)
        mar_h = c[:, 0, :].sum(axis=1) - c[:, 2, :].sum(axis=1)
        mar_m = c[:, :, 0].sum(axis=1) - c[:, :, 2].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            acc = np.where(n > 0, np.trace(c, axis1=1, axis2=2) / np.where(n > 0, n, 1), np.nan)
        ph = sign_pvalues(*apply_ties(c[:, 0, :].sum(1), c[:, 2, :].sum(1), c[:, 1, :].sum(1),
                                      self.sign_test_ties), "two-sided")
        pm = sign_pvalues(*apply_ties(c[:, :, 0].sum(1), c[:, :, 2].sum(1), c[:, :, 1].sum(1),
                                      self.sign_test_ties), "two-sided")
        return {"n": n, "e": e, "favi": ratio(num, e), "mar_human": mar_h, "mar_metric": mar_m,
                "accuracy": acc, "sign_agreement": np.sign(mar_h) == np.sign(mar_m), "p_human": ph,
                "p_metric": pm}

    def _labels(self) -> list[str]:
        return [f"{self.systems[a]!r} vs {self.systems[b]!r}" for a, b in self.pair_index]

    def to_frame(self) -> pd.DataFrame:
        """One row per system pair.

        Columns: ``group_1, group_2, n`` (items rated for both; for preference data, the rows
        rating the pair, an item rated twice counting twice), ``n_skipped`` (rated for only
        one), ``n_disagreements`` (``E``), ``favi``, ``mar_human``, ``mar_metric``,
        ``sample_accuracy``, ``sign_agreement`` (``sign(mar_human) == sign(mar_metric)``),
        ``p_value_human`` and ``p_value_metric`` (two-sided sign tests with the result's tie rule).
        ``attrs`` hold the ``method``, ``formula``, ``sig_level``, the direction of each term
        (``directions``, ``lower_is_better``) and the row account.

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import binaryeval as be
        >>> ende = be.datasets.load_wmt21_ende()
        >>> res = be.favi("mqm ~ chrf | system", ende, item="seg_id")
        >>> frame = res.to_frame()
        >>> frame.loc[0, ["group_1", "group_2", "n", "n_disagreements"]].to_dict()
        {'group_1': 'eTranslation', 'group_2': 'Facebook-AI', 'n': 527, 'n_disagreements': 338}
        >>> frame.attrs["directions"]
        {'mqm': 'higher is better', 'chrf': 'higher is better'}
        """
        s = self._pair_stats()
        names = np.array(self.systems, dtype=object)
        df = pd.DataFrame({
            "group_1": names[self.pair_index[:, 0]], "group_2": names[self.pair_index[:, 1]],
            "n": s["n"], "n_skipped": self.n_skipped, "n_disagreements": s["e"], "favi": s["favi"],
            "mar_human": s["mar_human"], "mar_metric": s["mar_metric"], "sample_accuracy": s["accuracy"],
            "sign_agreement": s["sign_agreement"], "p_value_human": s["p_human"],
            "p_value_metric": s["p_metric"]})
        df.attrs.update({"method": "Favi-Score per system pair; exact sign tests "
                         + ("with ties dropped" if self.sign_test_ties == "drop" else "with ties split"),
                         "formula": self.formula, "sig_level": self.sig_level,
                         "directions": self.directions, "lower_is_better": list(self.lower_is_better),
                         "n_rows": self.n_rows, "n_used": self.n_used, "n_excluded": self.n_excluded,
                         "excluded": dict(self.excluded)})
        return df

    @renamed(system_1="group_1", system_2="group_2")
    def confusion(self, group_1: str, group_2: str) -> PreferenceConfusion:
        """The confusion matrix of one pair, oriented as asked (swapping systems reverses both axes).

        Parameters
        ----------
        group_1, group_2 : str
            The pair; ``group_1`` is the first system (``+`` means it is better).

        Returns
        -------
        PreferenceConfusion

        Examples
        --------
        >>> import binaryeval as be
        >>> ende = be.datasets.load_wmt21_ende()
        >>> res = be.favi("mqm ~ chrf | system", ende, item="seg_id")
        >>> res.confusion("ref-A", "Online-W").favi == -res.confusion("Online-W", "ref-A").favi
        True
        """
        i = self._pair_position(group_1, group_2)
        if i is None:
            j = self._pair_position(group_2, group_1)
            if j is None:
                raise ParameterError(f"the pair ({group_1!r}, {group_2!r}) is not in this result; "
                                     f"systems are {list(self.systems)}")
            return PreferenceConfusion(self.counts[j][::-1, ::-1])
        return PreferenceConfusion(self.counts[i])

    def _pair_position(self, a: str, b: str) -> int | None:
        idx = {s: k for k, s in enumerate(self.systems)}
        a, b = str(a), str(b)  # systems are told apart by their text: 1 names '1'
        if a not in idx or b not in idx:
            return None
        hits = np.flatnonzero((self.pair_index[:, 0] == idx[a]) & (self.pair_index[:, 1] == idx[b]))
        return int(hits[0]) if hits.size else None

    def matrix(self) -> pd.DataFrame:
        """System x system Favi-Scores: entry (row a, column b) is Favi with a as ``group_1``.

        The matrix is antisymmetric (swapping the systems flips the sign); pairs not evaluated
        and pairs with ``E = 0`` are NaN.

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import binaryeval as be
        >>> ende = be.datasets.load_wmt21_ende()
        >>> res = be.favi("mqm ~ chrf | system", ende, item="seg_id")
        >>> m = res.matrix()
        >>> bool(m.loc["ref-A", "Nemo"] == -m.loc["Nemo", "ref-A"])
        True
        """
        k = len(self.systems)
        m = np.full((k, k), np.nan)
        fv = self._pair_stats()["favi"]
        a, b = self.pair_index[:, 0], self.pair_index[:, 1]
        m[a, b] = fv
        m[b, a] = 0.0 - fv  # a score of 0 stays 0 both ways round (-fv would print as -0)
        return pd.DataFrame(m, index=pd.Index(self.systems, name="group_1"),
                            columns=pd.Index(self.systems, name="group_2"))

    def by_system(self) -> pd.DataFrame:
        """One-vs-all distributions (the paper's Fig. 6): Favi of each system against every other.

        Returns
        -------
        DataFrame
            Long, with ``group_1``, ``group_2`` and ``favi`` (every pair both ways round, so
            positive values mean the metric favours ``group_1``); ``attrs["summary"]`` holds per
            system (index ``group``) ``mean``, ``median``, ``sd``, ``min``, ``max`` and
            ``n_pairs`` (defined scores only) and ``pooled_favi``: the Favi of the summed
            confusion matrices of all the system's pairs
            (each oriented with the system first), i.e. one score weighting pairs by their
            disagreements.

        Examples
        --------
        >>> import binaryeval as be
        >>> ende = be.datasets.load_wmt21_ende()
        >>> res = be.favi("mqm ~ chrf | system", ende, item="seg_id")
        >>> summ = res.by_system().attrs["summary"]
        >>> summ.index[-1], int(summ.loc["ref-A", "n_pairs"])
        ('ref-A', 9)
        """
        m = self.matrix().to_numpy()
        # the defined scores off the diagonal, row by row (group_1, then group_2)
        rows, cols = np.nonzero(~np.isnan(m) & ~np.eye(len(self.systems), dtype=bool))
        names = np.array(self.systems, dtype=object)
        long = pd.DataFrame({"group_1": names[rows], "group_2": names[cols],
                             "favi": m[rows, cols]})
        g = long.groupby("group_1", sort=False)["favi"]
        summ = pd.DataFrame({"mean": g.mean(), "median": g.median(), "sd": g.std(), "min": g.min(),
                             "max": g.max(), "n_pairs": g.count()})
        pooled = np.zeros((len(self.systems), 3, 3), dtype=self.counts.dtype)
        np.add.at(pooled, self.pair_index[:, 0], self.counts)
        np.add.at(pooled, self.pair_index[:, 1], self.counts[:, ::-1, ::-1])
        summ["pooled_favi"] = pd.Series(ratio(*favi_from_counts(pooled)), index=list(self.systems))
        summ.index.name = "group"
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
        """Share of pairs with ``sign(mar_human) == sign(mar_metric)``; a tie on both sides agrees."""
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

    @renamed(alpha="sig_level")
    def favoured(self, sig_level: float | None = None) -> pd.DataFrame:
        """Systems the metric favours or disfavours: the :meth:`by_system` summary per system.

        Parameters
        ----------
        sig_level : float, optional
            Significance level: when given, a ``significant`` column marks systems whose
            one-vs-all Favi values differ from 0 by a two-sided Wilcoxon signed-rank test (a
            descriptive screen: the pairs share systems and are not independent), beside its
            ``p_value``.

        Returns
        -------
        DataFrame
            One row per system, most favoured first.

        Examples
        --------
        >>> import binaryeval as be
        >>> ende = be.datasets.load_wmt21_ende()
        >>> res = be.favi("mqm ~ chrf | system", ende, item="seg_id")
        >>> fav = res.favoured(sig_level=0.05)
        >>> fav.index[-1], bool(fav.loc["ref-A", "significant"])
        ('ref-A', True)
        """
        summ = self.by_system().attrs["summary"].copy()
        if sig_level is not None:
            from scipy import stats

            sig_level = valid_sig_level(sig_level)
            long = self.by_system()
            p = {}
            for s, grp in long.groupby("group_1"):
                v = grp.favi.dropna().to_numpy()
                p[s] = stats.wilcoxon(v).pvalue if v.size > 1 and np.any(v != 0) else np.nan
            summ["p_value"] = pd.Series(p)
            summ["significant"] = summ["p_value"] < sig_level
        return summ

    # -- uncertainty --------------------------------------------------------------------------
    @renamed(draws="n_resamples", prior="cell_concentration")
    def interval(self, level: float = 0.95, *,
                 method: Literal["dirichlet", "bootstrap", "score"] = "dirichlet",
                 n_resamples: int = 4000, cell_concentration: float | None = None,
                 seed: int | np.random.SeedSequence | np.random.Generator | None = None) -> pd.DataFrame:
        """Per-pair intervals for the Favi-Score.

        Parameters
        ----------
        level : float
            Probability content of each interval.
        method : {"dirichlet", "bootstrap", "score"}
            ``"dirichlet"`` (default): equal-tailed interval of Favi under the posterior
            ``Dirichlet(C + cell_concentration)`` of each pair's 9 cell probabilities; ``"bootstrap"``:
            percentile bootstrap over each pair's items; ``"score"``: the score (Wilson-type)
            interval for the mean disagreement weight, without random draws.  Pairs with fewer
            than 20 disagreements get the score interval whatever is asked (see Notes).
        n_resamples : int
            Monte Carlo draws per pair (posterior draws or bootstrap resamples).
        cell_concentration : float, optional
            Dirichlet concentration added to every cell, the prior of ``"dirichlet"`` (default
            0.5, Jeffreys).
        seed : int, optional
            Seed of ``numpy.random.default_rng``; drawn at random and recorded when omitted.

        Returns
        -------
        DataFrame
            ``group_1, group_2, estimate, n_disagreements, lower, upper, p_undefined`` (share of
            draws with ``E = 0``; NaN for the score interval) and ``method`` (the interval used
            for the pair); ``attrs`` hold ``level``, ``method``, ``seed``, ``cell_concentration``,
            ``n_resamples``, ``small_e`` and ``n_switched``.

        Warns
        -----
        SmallSampleWarning
            When some pairs have ``E < 20`` and ``method`` is not ``"score"``, naming their ``E``.

        Notes
        -----
        Given ``E``, a pair's Favi is the mean of ``E`` multinomial weights in
        ``{-2, -1, 1, 2}``.  With fewer than 20 disagreements the bootstrap interval collapses
        onto the observed cells and the Dirichlet interval is pulled towards 0 by its prior:
        both then miss the true Favi far more often than ``1 - level`` (at about 4.5
        disagreements, the bootstrap covered 68% of the time at 95%).  The score interval keeps
        its coverage there (the simulations are summarised in
        :mod:`binaryeval.favoritism.intervals`), so the package switches to it.

        Examples
        --------
        >>> import binaryeval as be
        >>> ende = be.datasets.load_wmt21_ende()
        >>> res = be.favi("mqm ~ chrf | system", ende, item="seg_id")
        >>> ci = res.interval(seed=1)
        >>> ci.attrs["method"], ci.attrs["seed"], int(ci.n_disagreements.min())
        ('dirichlet', 1, 327)
        >>> row = ci.iloc[0]
        >>> bool(row.lower < row.estimate < row.upper)
        True
        """
        stats = self._pair_stats()
        columns, meta = favi_intervals(self.counts, self._labels(), level=level, method=method,
                                       n_resamples=n_resamples,
                                       cell_concentration=cell_concentration, seed=seed)
        df = self.to_frame()[["group_1", "group_2", "favi"]].rename(columns={"favi": "estimate"})
        df["n_disagreements"] = stats["e"]
        for name, values in columns.items():
            df[name] = values
        df.attrs.update(meta)
        return df

    # -- rankings -----------------------------------------------------------------------------
    @renamed(alpha="sig_level", p_adjust="adjust")
    def ranking(self, source: Literal["human", "metric"] = "human", *, sig_level: float | None = None,
                adjust: str | None = None) -> nx.DiGraph:
        """Significant pairwise wins as a DAG (networkx DiGraph), transitive edges removed.

        An edge ``a -> b`` means ``a`` beats ``b``: the two-sided sign test of the ``source``
        ratings has ``p < sig_level`` and more ratings prefer ``a``.  Node attributes: ``wins``
        and ``losses`` (significant, before the reduction) and ``favi_mean`` (mean one-vs-all
        Favi); edge attributes: ``p_value`` (adjusted when asked), ``margin`` and ``n``.  When the
        wins contain a cycle no reduction is possible; the full graph is returned with
        ``graph["reduced"] = False``.

        Parameters
        ----------
        source : {"human", "metric"}
            Whose preference ratings decide the wins.
        sig_level : float, optional
            Significance threshold (default: the result's ``sig_level``, 0.05 unless set in
            :func:`favi`).
        adjust : str, optional
            Multiple-testing adjustment over the pairs, a method name of
            ``statsmodels.stats.multitest.multipletests`` (``"holm"``, ``"fdr_bh"``, ...).  The
            default (None) tests each pair at ``sig_level``, as the paper does.

        Returns
        -------
        networkx.DiGraph

        Examples
        --------
        >>> import binaryeval as be
        >>> ende = be.datasets.load_wmt21_ende()
        >>> res = be.favi("mqm ~ chrf | system", ende, item="seg_id")
        >>> g = res.ranking("human")
        >>> g.graph["reduced"], g.nodes["ref-A"]["losses"]
        (True, 0)
        """
        from .ranking import ranking_graph

        return ranking_graph(self, source, sig_level, adjust)

    # -- display ------------------------------------------------------------------------------
    def _repr_fields(self) -> Mapping[str, Any]:
        return {"formula": self.formula, "systems": len(self.systems), "pairs": self.n_pairs,
                "n_used": self.n_used, "mean_abs_favi": self.mean_abs_favi}

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "formula": self.formula, "item column": self.item,
            "input": "scores per (item, system)" if self.mode == "scores" else
            "preferences per (item, group_1, group_2)",
            "systems": len(self.systems), "pairs": self.n_pairs, "items": self.n_items,
            **row_facts(self)}
        if self.mode == "scores":
            info.update({f"direction of {t}": d for t, d in self.directions.items()})
            # as a preference fit writes it: each term's own
            info["tolerance"] = ", ".join(
                f"{term}: {float(t):g}" for term, t in zip((self.human_term, self.metric_term),
                                                           self.tolerance, strict=True))
        info.update({"items skipped (rated for one system of a pair)": int(self.n_skipped.sum()),
                     "mean |Favi|": self.mean_abs_favi, "sd |Favi|": self.sd_abs_favi,
                     "sample-level sign accuracy": self.sample_accuracy,
                     "system-level sign accuracy": self.system_sign_accuracy})
        # the sign tests at the result's sig_level (what ranking() draws its wins from)
        s = self._pair_stats()
        for source in ("human", "metric"):
            tested = int(np.isfinite(s[f"p_{source}"]).sum())  # pairs with an untied rating
            significant = int((s[f"p_{source}"] < self.sig_level).sum())
            info[f"pairs with a significant {source} preference (sign test p < {self.sig_level:g})"] = \
                f"{significant} of {tested}"
        return info

    def summary(self) -> Summary:
        """Facts, the pairs table (the columns of :meth:`to_frame`) and the one-vs-all table.

        Examples
        --------
        >>> import binaryeval as be
        >>> ende = be.datasets.load_wmt21_ende()
        >>> res = be.favi("mqm ~ chrf | system", ende, item="seg_id")
        >>> res.summary().info["direction of mqm"]
        'higher is better'
        """
        frame = self.to_frame()
        n_empty = int((frame.n == 0).sum())
        n_undef = int((frame.favi.isna() & (frame.n > 0)).sum())
        show = frame.drop(columns=["n_skipped"]) if not self.n_skipped.any() else frame
        # one readable label per pair: the Summary renderer would print a MultiIndex as tuples
        show = show.set_index(pd.Index(show["group_1"] + " vs " + show["group_2"], name="pair")
                              ).drop(columns=["group_1", "group_2"])
        tables = [("pairs", show),
                  ("one-vs-all Favi per system (positive: favoured by the metric)",
                   self.by_system().attrs["summary"])]
        notes = ["Favi > 0: the metric's disagreements with the humans favour group_1 (the first system of "
                 "'group_1 vs group_2')",
                 "system-level sign agreement counts a pair where humans and metric both tie as agreeing",
                 "sign tests: exact binomial, "
                 + ("ties dropped (conditional test)" if self.sign_test_ties == "drop"
                    else "ties split equally (odd tie dropped)")]
        if n_undef:
            notes.append(f"{n_undef} pair(s) with E = 0: the metric never disagrees, Favi undefined (NaN)")
        if n_empty:
            notes.append(f"{n_empty} pair(s) with no item rated for both systems (n = 0): nothing "
                         "to compare, Favi and the sign tests undefined (NaN); such pairs are left "
                         "out of the system-level sign accuracy")
        if self.n_skipped.any():
            notes.append(f"{int(self.n_skipped.sum())} item-pair combinations skipped because only one "
                         "system of the pair was rated")
        return Summary("Favi-Score: metric favouritism across system pairs", self._info(), tables, notes)

    def plot(self, ax: Axes | None = None, *, kind: Literal["box", "dag", "heatmap"] = "box",
             source: Literal["human", "metric"] = "human", **kwargs: Any) -> Axes:
        """Plot the result; returns the matplotlib Axes.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure when omitted.
        kind : {"box", "heatmap", "dag"}
            ``"box"``: one-vs-all Favi per system (paper Fig. 6), systems ordered by median;
            ``"heatmap"``: the system x system matrix; ``"dag"``: the ranking of ``source`` in
            layers (winners on top).
        source : {"human", "metric"}
            Whose ranking ``kind="dag"`` draws.
        **kwargs
            Passed to seaborn (box, heat map) or ``networkx.draw_networkx`` (DAG); ``figsize``
            for a new figure.

        Returns
        -------
        matplotlib.axes.Axes

        Examples
        --------
        >>> import binaryeval as be
        >>> ende = be.datasets.load_wmt21_ende()
        >>> res = be.favi("mqm ~ chrf | system", ende, item="seg_id")
        >>> ax = res.plot(kind="heatmap")
        >>> ax.get_title()
        'Favi (row system as group_1)'
        """
        import matplotlib.pyplot as plt

        from . import plots

        plots.check_ax(ax)
        choice(kind, "kind", ("box", "dag", "heatmap"))
        if ax is None:
            _, ax = plt.subplots(figsize=kwargs.pop("figsize", (7, 4)))
        if kind == "box":
            return plots.box(self, ax, **kwargs)
        if kind == "heatmap":
            return plots.heatmap(self, ax, **kwargs)
        return plots.dag(self, ax, source, **kwargs)
