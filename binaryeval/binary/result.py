"""The result of fitting the binary evaluation model: one posterior of ``alpha`` per group."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import _validate
from .._lazy import stats
from .._results import Result, excluded_rows, row_account
from .._warnings import warn
from ..data import COUNT_COLUMNS, LeftOutRows
from ..errors import BinaryEvalWarning, ParameterError
from ..summary import Summary
from .posterior import AlphaPosterior, summaries

# the model rates' mixture must give the exact engine's mean of alpha this closely
_ALPHA_CHECK = 1e-8


def _warn_approximate(unchecked: list[tuple[Any, float]]) -> None:
    """One warning for the groups whose model rates missed the exact engine's mean of alpha."""
    if not unchecked:
        return
    worst_g, worst = max(unchecked, key=lambda item: item[1])
    warn(f"the model's rho and eta of {len(unchecked)} group(s) are approximate: "
         f"their mixture's mean of alpha is up to {worst:.1e} from the exact "
         f"posterior's (group {worst_g!r}); with this many metric-only ratings the "
         "split's weights reach the edges of their range over a region too large to "
         "sum term by term.  The alpha columns are exact; the rates' interval ends "
         "can be off by ten times that gap or more: use paired_rates() for those "
         "groups, or add paired ratings", BinaryEvalWarning)


def _rates_cost(task: dict) -> float:
    """A group's share of the model's rates work: its number of splits ``(X, U)``."""
    return float((task["k"] + 1) * (task["M"] - task["k"] + 1))

__all__ = ["BinaryFit"]

# compare() of more pairs than this says once that prob_greater_matrix() is the fast path
MANY_PAIRS = 50_000


@dataclass(frozen=True, eq=False, repr=False)
class BinaryFit(Result):
    """Result of :func:`~binaryeval.fit` / :func:`~binaryeval.fit_counts`.

    Groups are listed by posterior mean, highest first (``order=`` of the fit changes that).

    Attributes
    ----------
    counts : DataFrame
        Sufficient statistics per group (``human_*`` count rows with a human rating only;
        ``fit_counts(res.counts, paired_informs_alpha=res.paired_informs_alpha)`` reproduces
        the fit).  The index is named after the grouping column(s).
    posteriors : dict
        ``group -> AlphaPosterior``.
    threshold : float, Series or None
        The threshold that made a scalar metric binary (a Series when each group has its own);
        the rule that chose it is ``threshold_rule`` (``"mixed"`` when groups' rules differ).
    n_rows, n_used, n_excluded, excluded
        Rows in the data, used, left out, and why (``reason -> count``).
    excluded_rows
        Which rows were left out: a Series of the reason of each, indexed by the data's row
        labels (None for a fit from counts or from a Dask frame).

    Examples
    --------
    >>> import binaryeval as be
    >>> res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
    ...                      "B": {"human_pos": 55, "human_total": 100}})
    >>> res
    BinaryFit(groups=2, n_human=200, n_metric=0, level=0.95)
    >>> res.to_frame()[["estimate", "lower", "upper"]].round(3)
           estimate  lower  upper
    group
    A         0.696  0.604  0.781
    B         0.549  0.452  0.644
    """

    counts: pd.DataFrame
    posteriors: dict[str, AlphaPosterior]
    formula: str | None = None
    prior: tuple[float, float] = (1.0, 1.0)
    rate_prior: tuple[float, float] = (1.0, 1.0)
    rates_mode: str = "estimate"
    known_rates: dict = field(default_factory=dict)
    threshold: float | str | Mapping | None = None
    threshold_rule: str | None = None
    lower_is_better: tuple[str, ...] = ()
    level: float = 0.95
    method: str = "exact"
    n_rows: int | None = None
    excluded: dict = field(default_factory=dict)
    unidentified: dict = field(default_factory=dict)
    paired_informs_alpha: bool = True
    group_name: str = "group"
    order: tuple[str, ...] = ()
    diagnostics: dict = field(default_factory=dict)
    call: dict = field(default_factory=dict)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)
    _left_out: LeftOutRows | None = field(default=None, repr=False, compare=False)

    # -- access ----------------------------------------------------------------------------
    @property
    def groups(self) -> list[str]:
        """Group labels in display order (by posterior mean unless the fit chose another)."""
        return list(self.order) if self.order else list(self.posteriors)

    @property
    def n_used(self) -> int | None:
        """Rows the fit used (None for a fit from counts)."""
        return None if self.n_rows is None else self.n_rows - self.n_excluded

    @property
    def n_excluded(self) -> int:
        """Rows left out, over all reasons (see ``excluded``)."""
        return int(sum(self.excluded.values()))

    @property
    def excluded_rows(self) -> pd.Series | None:
        """The rows left out: the reason of each, indexed by the data's own row labels.

        In data order, the index name kept; the reasons are the keys of ``excluded`` and
        ``excluded_rows.value_counts()`` equals it.  Empty when no row was left out.  None for
        a fit from counts (there are no rows) and for a fit from a Dask frame: its partitions'
        index labels need not be unique or ordered, so they would not find the rows.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import binaryeval as be
        >>> df = pd.DataFrame({"human": [1, 0, np.nan, 1, 1], "metric": [1, 0, np.nan, 1, 0],
        ...                    "system": ["A", "A", "A", None, "B"]},
        ...                   index=pd.Index(["r1", "r2", "r3", "r4", "r5"], name="id"))
        >>> be.fit("human ~ metric | system", df).excluded_rows
        id
        r3    no rating (human and metric missing)
        r4                           missing group
        Name: reason, dtype: object
        >>> be.fit_counts({"human_pos": 6, "human_total": 10}).excluded_rows is None
        True
        """
        return excluded_rows(self._left_out)

    def posterior(self, group: str | None = None) -> AlphaPosterior:
        """Posterior of ``alpha`` for one group (the only one when there is a single group).

        Parameters
        ----------
        group : str, optional
            A group label; may be omitted when the fit has one group.

        Returns
        -------
        AlphaPosterior

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"human_pos": 6, "human_total": 10})
        >>> round(res.posterior().mean(), 4)
        0.5833
        """
        if group is None:
            if len(self.posteriors) != 1:
                raise ParameterError(f"name a group: one of {self.groups}")
            return next(iter(self.posteriors.values()))
        if str(group) not in self.posteriors:
            raise ParameterError(f"group {group!r} is not in the fit; groups are {self.groups}")
        return self.posteriors[str(group)]

    def _index(self) -> pd.Index:
        return pd.Index(self.groups, name=self.group_name)

    # -- tables ----------------------------------------------------------------------------
    def interval(self, level: float | None = None, kind: str = "eti") -> pd.DataFrame:
        """Credible intervals of ``alpha`` per group: columns ``lower``, ``upper``.

        Parameters
        ----------
        level : float, optional
            Posterior probability inside the interval (default: the fit's level).
        kind : {"eti", "hdi"}
            Equal-tailed or highest-density interval; level and kind are in ``attrs``.

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"human_pos": 6, "human_total": 10})
        >>> res.interval(0.9).round(4).values.tolist()
        [[0.3498, 0.8004]]
        """
        level = self.level if level is None else _validate.level(level)
        kind = _validate.choice(kind, "kind", ("eti", "hdi"))
        if kind == "eti":
            s = summaries([self.posteriors[g] for g in self.groups], (1.0 - level) / 2.0)
            rows = np.c_[s["lower"], s["upper"]]
        else:
            rows = [self.posteriors[g].interval(level, kind) for g in self.groups]
        out = pd.DataFrame(rows, columns=["lower", "upper"], index=self._index())
        out.attrs.update(level=level, kind=kind)
        return out

    def naive(self, level: float | None = None) -> pd.DataFrame:
        """Uncorrected classify-and-count: the share of positive metric ratings per group.

        Every metric-rated row (paired and metric-only) counts as if the metric were a human;
        ``estimate`` is the share, with a Beta(1, 1)-posterior interval.  This is the estimate
        the corrected model improves on (thesis Tables 5.1/5.2).

        Parameters
        ----------
        level : float, optional
            Probability of the interval (default: the fit's level).

        Returns
        -------
        DataFrame
            ``n_metric_all`` (metric ratings, paired ones included: unlike ``n_metric`` of
            :meth:`to_frame`, the metric-only ones), ``metric_pos_all`` (their positives),
            ``estimate``, ``std_error``, ``lower``, ``upper``.

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"metric_pos": 30, "metric_total": 50, "tp": 8, "fn": 2,
        ...                      "tn": 7, "fp": 3})
        >>> int(res.naive()["n_metric_all"].iloc[0])   # 50 metric-only + 20 paired
        70
        >>> float(res.naive()["estimate"].iloc[0])
        0.5857142857142857
        """
        level = self.level if level is None else _validate.level(level)
        c = self.counts.loc[self.groups]
        pos = c["metric_pos"] + c["tp"] + c["fp"]
        tot = c["metric_total"] + c["tp"] + c["fp"] + c["tn"] + c["fn"]
        tail = (1 - level) / 2
        with np.errstate(invalid="ignore", divide="ignore"):
            est = pos / tot
        out = pd.DataFrame({
            "n_metric_all": tot.astype(int), "metric_pos_all": pos.astype(int), "estimate": est,
            "std_error": np.sqrt(est * (1 - est) / tot),
            "lower": stats.beta.ppf(tail, pos + 1, tot - pos + 1),
            "upper": stats.beta.ppf(1 - tail, pos + 1, tot - pos + 1)}, index=self._index())
        out.attrs.update(level=level, method="classify and count (uncorrected)")
        return out

    def rates(self, level: float | None = None, n_jobs: int | None = None,
              progress: bool | None = None) -> pd.DataFrame:
        """The metric's rates per group: the model's posterior of ``rho`` and ``eta``.

        The posterior of the whole model, paired *and* metric-only ratings (through ``alpha``
        the metric-only ratings say how often the metric accepts), computed exactly as a
        mixture over how the metric-only ratings split into adequate and inadequate outputs
        (:mod:`binaryeval.binary.rates`).  The paired rows' own Beta posterior is
        :meth:`paired_rates`.

        Parameters
        ----------
        level : float, optional
            Probability of the intervals (default: the fit's level).
        n_jobs : int, optional
            Groups computed on this many of joblib's workers (``-1``: all cores; default: one,
            or what a ``joblib.parallel_config`` in force says).  A group of 1,000 ratings
            takes some 4 ms, so thousands of groups are worth spreading; the answers do not
            depend on it.
        progress : bool, optional
            A progress bar of the groups done (tqdm, on stderr): True shows it, False never;
            by default it shows for 500 groups or more, on a terminal.

        Returns
        -------
        DataFrame
            ``rho``, ``rho_std_error``, ``rho_lower``, ``rho_upper``, the same for ``eta``, the paired
            counts and ``p_unidentified`` = P(rho + eta <= 1) (from the paired rows).  A group
            without metric-only ratings has no rates (NaN): they take no part in its fit.

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"metric_pos": 30, "metric_total": 50, "tp": 8, "fn": 2,
        ...                      "tn": 7, "fp": 3})
        >>> res.rates()[["rho", "eta"]].round(4).values.tolist()
        [[0.7805, 0.6367]]
        """
        level = self.level if level is None else _validate.level(level)
        n_jobs = _validate.n_jobs(n_jobs)
        progress = _validate.progress(progress)
        key = ("rates", level)
        if key not in self._cache:
            self._cache[key] = self._rates(level, model=True, n_jobs=n_jobs, progress=progress)
        return self._cache[key].copy()

    def paired_rates(self, level: float | None = None) -> pd.DataFrame:
        """The rates as the paired rows alone say.

        ``Beta(tp + a, fn + b)`` and ``Beta(tn + a, fp + b)`` (pooled counts with pooled rates).

        Parameters
        ----------
        level : float, optional
            Probability of the intervals (default: the fit's level).

        Returns
        -------
        DataFrame
            The columns of :meth:`rates`.

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"metric_pos": 30, "metric_total": 50, "tp": 8, "fn": 2,
        ...                      "tn": 7, "fp": 3})
        >>> res.paired_rates()[["rho", "eta"]].round(4).values.tolist()
        [[0.75, 0.6667]]
        """
        level = self.level if level is None else _validate.level(level)
        return self._rates(level, model=False)

    def _rates(self, level: float, model: bool, n_jobs: int | None = None,
               progress: bool | None = None) -> pd.DataFrame:
        from .. import _parallel
        from .rates import model_rates_batch

        tail = (1 - level) / 2
        ar, br = self.rate_prior
        if not model:
            # every group's Beta posterior of the paired rows' rates at once
            c = self.counts.loc[self.groups]
            n = len(self.groups)
            out: dict[str, Any] = {}
            known = [self.known_rates.get(g, (None, None)) for g in self.groups]
            no_metric = c["metric_total"].to_numpy() == 0
            sides = (("rho", ("tp", "fn")), ("eta", ("tn", "fp")))
            for j, (name, (pos, neg)) in enumerate(sides):
                if self.rates_mode == "pooled":
                    a = np.full(n, float(self.counts[pos].sum()) + ar)
                    b = np.full(n, float(self.counts[neg].sum()) + br)
                else:
                    a = c[pos].to_numpy(dtype=float) + ar
                    b = c[neg].to_numpy(dtype=float) + br
                est = {name: stats.beta.mean(a, b), f"{name}_std_error": stats.beta.std(a, b),
                       f"{name}_lower": stats.beta.ppf(tail, a, b),
                       f"{name}_upper": stats.beta.ppf(1 - tail, a, b)}
                kn = np.array([np.nan if k[j] is None else k[j] for k in known], dtype=float)
                is_known = ~np.isnan(kn)
                for key, vals in est.items():
                    vals = np.asarray(vals, dtype=float).copy()
                    # no metric-only rating in a group: the rate takes no part in its fit
                    vals[no_metric] = np.nan
                    vals[is_known] = 0.0 if key.endswith("_std_error") else kn[is_known]
                    out[key] = vals
            for k in ("tp", "fn", "tn", "fp"):
                out[k] = c[k].to_numpy().astype(int)
            out["p_unidentified"] = [self.unidentified.get(g, np.nan) for g in self.groups]
            frame = pd.DataFrame(out, index=self._index())
            frame.attrs.update(level=level, rates=self.rates_mode,
                               method="the paired rows' Beta posterior")
            return frame
        rows = []
        # the model's rates of every group with metric-only ratings, here or on joblib's
        # workers (the costly part: a mixture over (k + 1)(M - k + 1) splits each)
        counts = self._group_counts()
        tasks, names, computed = self._rate_tasks(counts, self._pooled_paired())
        for task in tasks:
            task["level"] = level
        results = _parallel.run(model_rates_batch, tasks, _rates_cost, n_jobs, progress,
                                "rho and eta per group")
        computed.update(zip(names, results, strict=True))
        unchecked: list[tuple[Any, float]] = []
        for g, c in zip(self.groups, counts, strict=True):
            row: dict[str, Any] = {}
            if c["metric_total"] == 0:
                # no metric-only rating in this group: the rates take no part in its fit
                for name in ("rho", "eta"):
                    row.update({name: np.nan, f"{name}_std_error": np.nan,
                                f"{name}_lower": np.nan, f"{name}_upper": np.nan})
            else:
                rho, eta, alpha_check = computed[g]
                # the mixture's alpha against the exact engine's: a check on its sums
                off = abs(alpha_check - self.posteriors[g].mean())
                if off > _ALPHA_CHECK:
                    unchecked.append((g, off))
                for name, r in (("rho", rho), ("eta", eta)):
                    row.update({name: r.mean, f"{name}_std_error": r.sd,
                                f"{name}_lower": r.lower, f"{name}_upper": r.upper})
            row.update({k: c[k] for k in ("tp", "fn", "tn", "fp")})
            row["p_unidentified"] = self.unidentified.get(g, np.nan)
            rows.append(row)
        _warn_approximate(unchecked)
        out = pd.DataFrame(rows, index=self._index())
        out.attrs.update(level=level, rates=self.rates_mode,
                         method="the model's posterior (paired and metric-only ratings)")
        return out

    def _group_counts(self) -> list[dict[str, int]]:
        """The counts of each group as plain numbers.

        (A row Series per group costs more than its rates on small groups.)
        """
        c_all = self.counts.loc[self.groups, list(COUNT_COLUMNS)].to_numpy(dtype=np.int64)
        return [dict(zip(COUNT_COLUMNS, (int(v) for v in vals), strict=True)) for vals in c_all]

    def _pooled_paired(self) -> dict[str, int]:
        return dict(zip(("tp", "fn", "tn", "fp"), (int(v) for v in self.counts[
            ["tp", "fn", "tn", "fp"]].sum()), strict=True))

    def _rate_tasks(self, counts, pooled_paired) -> tuple[list[dict], list, dict]:
        """The model-rate problems of the groups with metric-only ratings.

        Keyword arguments of :func:`~binaryeval.binary.rates.model_rates` (without ``level``),
        their groups, and the answers of the groups whose rates are both known.
        """
        from .rates import RatePosterior

        a, b = self.prior
        ar, br = self.rate_prior
        tasks, names, known_both = [], [], {}
        for g, c in zip(self.groups, counts, strict=True):
            if c["metric_total"] == 0:
                continue
            known = self.known_rates.get(g, (None, None))
            if known[0] is not None and known[1] is not None:
                # both rates given: nothing to compute (and no check of alpha to make)
                known_both[g] = (RatePosterior(known[0], 0.0, known[0], known[0], known=True),
                                 RatePosterior(known[1], 0.0, known[1], known[1], known=True),
                                 np.nan)
                continue
            paired = pooled_paired if self.rates_mode == "pooled" else c
            n_paired = c["tp"] + c["fn"] + c["tn"] + c["fp"]
            hp = c["human_pos"] + (c["tp"] + c["fn"] if self.paired_informs_alpha else 0)
            ht = c["human_total"] + (n_paired if self.paired_informs_alpha else 0)
            tasks.append(dict(
                A=a + hp, B=b + ht - hp, k=c["metric_pos"], M=c["metric_total"],
                tp=paired["tp"], fn=paired["fn"], tn=paired["tn"], fp=paired["fp"],
                rate_prior=(ar, br), rho=known[0], eta=known[1]))
            names.append(g)
        return tasks, names, known_both

    def _rate_means(self) -> pd.DataFrame:
        """The model's posterior means of ``rho`` and ``eta`` per group (the summary's columns).

        From :meth:`rates` when it was computed already; else from the one-dimensional sums of
        :func:`~binaryeval.binary.rates.model_rate_means` (no intervals: some twenty times
        faster), checked like :meth:`rates` against the exact engine's mean of ``alpha``;
        a group those sums cannot answer, or whose check fails, gets
        :func:`~binaryeval.binary.rates.model_rates`' means (and its warning when they are
        approximate).
        """
        done = [key for key in self._cache if isinstance(key, tuple) and key[0] == "rates"]
        if done:
            return self._cache[done[0]][["rho", "eta"]].copy()
        if "rate_means" not in self._cache:
            from .rates import model_rate_means, model_rates_batch

            counts = self._group_counts()
            tasks, names, known_both = self._rate_tasks(counts, self._pooled_paired())
            means = {g: (r.mean, e.mean) for g, (r, e, _) in known_both.items()}
            rest, rest_names = [], []
            for g, task in zip(names, tasks, strict=True):
                got = model_rate_means(**task)
                if got is None or abs(got[2] - self.posteriors[g].mean()) > _ALPHA_CHECK:
                    rest.append(dict(task, level=self.level))
                    rest_names.append(g)
                    continue
                means[g] = got[:2]
            unchecked = []
            for g, (r, e, alpha) in zip(rest_names, model_rates_batch(rest), strict=True):
                off = abs(alpha - self.posteriors[g].mean())
                if off > _ALPHA_CHECK:
                    unchecked.append((g, off))
                means[g] = (r.mean, e.mean)
            _warn_approximate(unchecked)
            nan = (np.nan, np.nan)
            out = pd.DataFrame([means.get(g, nan) for g in self.groups], columns=["rho", "eta"],
                               index=self._index())
            self._cache["rate_means"] = out
        return self._cache["rate_means"].copy()

    def pooling_check(self) -> pd.DataFrame:
        """Check before pooling: whether one ``rho`` and one ``eta`` fit every group's paired rows.

        An exact conditional test of homogeneity of the groups' paired confusion counts
        (:mod:`binaryeval._pooling`): per human class, Pearson's statistic of the groups'
        ``(tp, fn)`` and ``(fp, tn)`` tables, its p-value from tables drawn with both margins
        fixed.  ``rates="pooled"`` runs it and warns when it fails; it answers for any fit.

        Returns
        -------
        DataFrame
            Per group: ``n_paired`` and the group-against-the-rest ``statistic``, ``df`` and
            approximate ``p_value``; ``attrs`` hold the test's ``statistic``, ``p_value``,
            ``sig_level``, ``verdict`` and ``method``.

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"tp": 40, "fn": 10, "tn": 40, "fp": 10},
        ...                      "B": {"tp": 40, "fn": 10, "tn": 15, "fp": 35}})
        >>> round(res.pooling_check().attrs["p_value"], 4)
        0.0005
        """
        if "pooling" not in self._cache:
            from .. import _pooling

            c = self.counts.loc[self.groups]
            paired = np.stack([c[["tp", "fn"]].to_numpy(dtype=float),
                               c[["fp", "tn"]].to_numpy(dtype=float)], axis=1)
            out = _pooling.check(paired, self.groups)
            out.index.name = self.group_name
            self._cache["pooling"] = out
        out = self._cache["pooling"]
        frame = out.copy()
        frame.attrs.update(out.attrs)
        return frame

    def n_eff(self) -> pd.Series:
        """Human ratings alone that would give each group's posterior variance of ``alpha``.

        ``n_eff = m (1 - m) / v - 1 - (a + b)`` for posterior mean ``m``, variance ``v`` and prior
        ``Beta(a, b)``: exactly the number of human ratings for a fit without metric ratings
        (the posterior is then ``Beta(a + h+, b + h-)``); the excess over ``n_human`` is what the
        metric ratings were worth.

        Returns
        -------
        Series

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"human_pos": 60, "human_total": 100})
        >>> round(float(res.n_eff().iloc[0]), 9)
        100.0
        """
        a, b = self.prior
        vals = []
        for g in self.groups:
            p = self.posteriors[g]
            m, v = p.mean(), p.var()
            vals.append(m * (1.0 - m) / v - 1.0 - (a + b) if v > 0 else np.inf)
        return pd.Series(vals, index=self._index(), name="n_eff")

    def _n_human(self) -> pd.Series:
        c = self.counts.loc[self.groups]
        paired = c["tp"] + c["fn"] + c["tn"] + c["fp"]
        return (c["human_total"] + (paired if self.paired_informs_alpha else 0)).astype(int)

    def to_frame(self, level: float | None = None, kind: str = "eti",
                 n_jobs: int | None = None, rate_intervals: bool = True,
                 progress: bool | None = None) -> pd.DataFrame:
        """Tidy table, one row per group (index named after the grouping column).

        Parameters
        ----------
        level : float, optional
            Probability of the credible intervals (default: the fit's level; in ``attrs``).
        kind : {"eti", "hdi"}
            Equal-tailed or highest-density intervals.
        n_jobs : int, optional
            joblib's workers for the model's rates of many groups (:meth:`rates`).
        rate_intervals : bool
            With False, the metric's rates as posterior means alone (``rho`` and ``eta``, the
            same values), without the columns of their intervals: those cost some 4 ms a
            group of 1,000 ratings, the means about 0.4 ms, so a fit of 10,000 groups is
            tabulated in seconds instead of most of a minute.  :meth:`rates` gives the
            intervals of the groups one needs later.
        progress : bool, optional
            A progress bar of the rates' groups (:meth:`rates`): by default for 500 groups or
            more, on a terminal.

        Returns
        -------
        DataFrame
            ``n_human`` (human ratings, paired included), ``n_paired``, ``n_metric``
            (metric-only), ``estimate`` (posterior mean), ``std_error`` (posterior sd),
            ``mode``, ``lower``, ``upper``, ``naive`` (share of positive metric ratings),
            ``rho``, ``rho_lower``, ``rho_upper``, ``eta``, ``eta_lower``, ``eta_upper``
            (without the four interval columns when ``rate_intervals=False``; ``attrs`` says
            which), ``threshold`` (with a thresholded scalar metric), ``n_eff`` and
            ``metric_worth`` = ``n_eff - n_human``.

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"human_pos": 60, "human_total": 100})
        >>> list(res.to_frame().columns[:6])
        ['n_human', 'n_paired', 'n_metric', 'estimate', 'std_error', 'mode']

        The rates' means alone, for many groups:

        >>> res = be.fit_counts({"metric_pos": 30, "metric_total": 50, "tp": 8, "fn": 2,
        ...                      "tn": 7, "fp": 3})
        >>> res.to_frame(rate_intervals=False)[["rho", "eta"]].round(4).values.tolist()
        [[0.7805, 0.6367]]
        """
        level = self.level if level is None else _validate.level(level)
        kind = _validate.choice(kind, "kind", ("eti", "hdi"))
        out = self._frame(level, kind, _validate.n_jobs(n_jobs),
                          rate_intervals=_validate.flag(rate_intervals, "rate_intervals"),
                          progress=_validate.progress(progress))
        out.attrs.update(row_account(self))
        return out

    def _frame(self, level: float, kind: str, n_jobs: int | None,
               rate_intervals: bool, progress: bool | None = None) -> pd.DataFrame:
        """The table of :meth:`to_frame`.

        Without ``rate_intervals``, the rates' means alone (:meth:`_rate_means`): what
        :meth:`summary` shows, without the cost of the rates' intervals.
        """
        c = self.counts.loc[self.groups]
        post = [self.posteriors[g] for g in self.groups]
        # every group's quantiles and mode together (one Newton iteration for all of them)
        s = summaries(post, (1.0 - level) / 2.0)
        if kind == "eti":
            lower, upper = s["lower"], s["upper"]
        else:
            iv = self.interval(level, kind)
            lower, upper = iv["lower"].to_numpy(), iv["upper"].to_numpy()
        rates = (self.rates(level, n_jobs=n_jobs, progress=progress) if rate_intervals
                 else self._rate_means())
        n_human = self._n_human()
        n_eff = self.n_eff()
        out = pd.DataFrame({
            "n_human": n_human,
            "n_paired": (c["tp"] + c["fn"] + c["tn"] + c["fp"]).astype(int),
            "n_metric": c["metric_total"].astype(int),
            "estimate": [p.mean() for p in post], "std_error": [p.std() for p in post],
            "mode": s["mode"], "lower": lower, "upper": upper,
            "naive": self.naive(level)["estimate"]}, index=self._index())
        for name in ("rho", "eta"):
            for suffix in ("", "_lower", "_upper") if rate_intervals else ("",):
                out[name + suffix] = rates[name + suffix]
        if self.threshold is not None:
            out["threshold"] = (self.threshold.reindex(self.groups).to_numpy()
                                if isinstance(self.threshold, pd.Series) else self.threshold)
        out["n_eff"] = n_eff
        out["metric_worth"] = n_eff - n_human
        out.attrs.update(level=level, kind=kind, method=self.method, rates=self.rates_mode,
                         rate_intervals=rate_intervals,
                         threshold_rule=self.threshold_rule,
                         lower_is_better=list(self.lower_is_better))
        return out

    def _repr_fields(self) -> Mapping[str, Any]:
        n_human = int(self._n_human().sum())
        return {"groups": len(self.posteriors), "n_human": n_human,
                "n_metric": int(self.counts["metric_total"].sum()), "level": self.level}

    # -- display ---------------------------------------------------------------------------
    def summary(self, level: float | None = None) -> Summary:
        """R-style summary: the call, the rows used, the priors and one row per group.

        The rows show ``alpha``'s estimate and interval and the metric's rates ``rho`` and
        ``eta`` as posterior means (the rates' intervals are in :meth:`rates` and
        :meth:`to_frame`, which cost some 4 ms a group of 1,000 ratings; the means alone
        about 0.4 ms).

        Parameters
        ----------
        level : float, optional
            Probability of the credible intervals (default: the fit's level).

        Returns
        -------
        Summary

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"human_pos": 60, "human_total": 100})
        >>> print(res.summary().as_text().splitlines()[0])
        Binary evaluation model: rate of adequate outputs (alpha)
        """
        from ._describe import summary_of_fit

        return summary_of_fit(self, self.level if level is None else _validate.level(level))

    def plot(self, ax=None, *, kind: str = "interval", level: float | None = None, **kw):
        """Plot the fit.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (a new figure when None).
        kind : {"interval", "posterior", "rates"}
            A forest plot of posterior means and credible intervals beside the naive estimate
            (ordered as the summary); the posterior densities; or the rates' intervals.
        level : float, optional
            Probability of the intervals (default: the fit's level).
        **kw
            Passed to the matplotlib call that draws the estimates.

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 7, "human_total": 10},
        ...                      "B": {"human_pos": 4, "human_total": 10}})
        >>> ax = res.plot(kind="interval")
        """
        from ._describe import plot_fit

        kind = _validate.choice(kind, "kind", ("interval", "posterior", "rates"))
        return plot_fit(self, ax, kind, self.level if level is None else _validate.level(level),
                        **kw)

    def ranks(self, level: float | None = None, *, n_resamples: int = 4000,
              seed: int | np.random.SeedSequence | np.random.Generator | None = None):
        """Posterior ranks of the groups by ``alpha``, with simultaneous credible rank intervals.

        The groups are ordered, and ``estimate`` and ``std_error`` given, by their exact
        posterior means and sds (those of :meth:`to_frame`).  ``P(rank = r)`` is exact
        (quadrature over the independent posteriors,
        :mod:`binaryeval.binary.ranks`); the rank intervals, which hold for every group at once
        with posterior probability >= ``level``, come from ``n_resamples`` joint draws of the
        posteriors (:mod:`binaryeval._ranks`).  The naive rank is the rank of the uncorrected
        share of positive metric ratings (:meth:`naive`).  With ``rates="pooled"`` the
        groups share the paired rows, which the independent draws leave out (as in
        :meth:`compare`; the summary says so).

        Parameters
        ----------
        level : float, optional
            Joint posterior probability of the rank intervals (default: the fit's level).
        n_resamples : int
            Joint posterior draws the intervals come from.
        seed : int, optional
            Seed of the draws (one is chosen and reported when None).

        Returns
        -------
        Ranks

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
        ...                      "B": {"human_pos": 55, "human_total": 100}})
        >>> res.ranks(seed=1).to_frame()["rank"].tolist()
        [1, 2]
        """
        from .._ranks import ranks_from_draws
        from .ranks import rank_probabilities

        level = self.level if level is None else _validate.level(level)
        n = _validate.size(n_resamples, "n_resamples", minimum=100)
        seed = _validate.seed(seed)
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % (2 ** 32))
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        groups = self.groups
        posts = [self.posteriors[g] for g in groups]
        draws = np.column_stack([p.rvs(size=n, random_state=rng) for p in posts])
        notes = []
        if self.rates_mode == "pooled":
            notes.append("the groups' posteriors are drawn as independent; with pooled rates "
                         "they share the paired rows, which this leaves out (it usually makes "
                         "the rank intervals wider and P(rank) less sure); the model with one "
                         "shared rho/eta is binaryeval.fit_latent(..., rates='pooled').ranks()")
            from .. import _pooling
            from ._describe import blind_spot

            spot = blind_spot(self)
            if spot:
                notes.append(f"the check before pooling found no difference between the "
                             f"groups' rates, but {_pooling.unseen_text(spot)}; the ranks assume no "
                             "such difference (rates='hierarchical' estimates how far the "
                             "groups' rates differ)")
        return ranks_from_draws(
            draws, groups, self.naive(level)["estimate"].to_numpy(dtype=float), level=level,
            ranked="alpha (rate of adequate outputs)",
            method=f"exact P(rank); rank intervals from {n} joint draws of the exact posteriors",
            seed=seed, group_name=self.group_name, notes=notes, draws_option="n_resamples",
            exact=lambda: rank_probabilities(posts),
            # the exact means and sds order the groups and fill estimate and std_error, as in
            # to_frame() (the draws' means differ by their Monte Carlo error)
            moments=(np.array([p.mean() for p in posts]), np.array([p.std() for p in posts])))

    # -- comparisons and planning -----------------------------------------------------------
    def compare(self, method: str = "bayes", *, sig_level: float | None = None,
                adjust: str | None = None, order: str | Sequence[str] | None = None):
        """Compare every pair of groups.

        Parameters
        ----------
        method : {"bayes", "z"}
            ``"bayes"``: ``P(alpha_1 > alpha_2)`` from the two posteriors; a pair differs when it
            is below ``sig_level / 2`` or above ``1 - sig_level / 2``, and ``p_value`` is the
            two-sided posterior tail ``2 min(P, 1 - P)``.  ``"z"``: the z-test on normal
            approximations of the two posteriors (paper eq. 6),
            ``statistic = (mean_1 - mean_2) / sqrt(var_1 + var_2)``.
        sig_level : float, optional
            Significance threshold (default ``1 - level`` of the fit, i.e. 0.05).
        adjust : str, optional
            A statsmodels ``multipletests`` method (``"holm"``, ``"bonferroni"``,
            ``"fdr_bh"``...) applied to ``p_value`` over all pairs.
        order : "estimate", "input" or list of str, optional
            Order of the groups in the matrix and heatmap (default: the fit's order).

        Returns
        -------
        Comparison

        Notes
        -----
        The groups' posteriors are taken as independent.  With ``rates="pooled"`` they share
        the paired rows (see :func:`binaryeval.fit`), which this leaves out (it usually makes
        ``P`` and the intervals conservative), and the summary says so; a comparison of the
        model with one shared ``rho``/``eta`` is ``fit_latent(..., rates="pooled").compare()``.

        Every pair gets its row, with the exact interval of its difference: with a thousand
        groups that is half a million intervals (tens of seconds).  When only
        ``P(alpha_1 > alpha_2)`` is wanted, :meth:`prob_greater_matrix` gives
        ``compare().matrix()`` (the same numbers) without the intervals, several times faster
        (one vectorised quadrature for the whole matrix, no pair computed on its own).  A
        comparison of more than ``MANY_PAIRS`` (50,000) pairs, about 320 groups, says so once
        (a ``BinaryEvalWarning``) before it starts.

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
        ...                      "B": {"human_pos": 55, "human_total": 100}})
        >>> round(float(res.compare().matrix().loc["A", "B"]), 4)
        0.9855
        """
        from .compare import compare_posteriors

        sig = _validate.sig_level_or(sig_level, self.level)
        groups = self.groups if order is None else _resolve_order(self, order)
        n_pairs = len(groups) * (len(groups) - 1) // 2
        if n_pairs > MANY_PAIRS:
            warn(f"compare() of {len(groups):,} groups computes the exact interval of each of "
                 f"its {n_pairs:,} pairs' differences (about half a minute per 500,000 pairs); "
                 "when P(alpha_1 > alpha_2) for every pair is what you need, the fit's "
                 ".prob_greater_matrix() gives compare().matrix() (the same numbers) without "
                 "the intervals, several times faster", BinaryEvalWarning)
        return compare_posteriors({g: self.posteriors[g] for g in groups}, method=method,
                                  sig_level=sig, adjust=adjust, group_name=self.group_name,
                                  level=self.level, shared_rows=self.rates_mode == "pooled")

    def prob_greater_matrix(self, order: str | Sequence[str] | None = None) -> pd.DataFrame:
        """``P(alpha_i > alpha_j)`` for every pair of groups, without the pairs' intervals.

        The matrix of :meth:`compare` (``compare().matrix()``, the same numbers: one
        quadrature over nodes shared by every posterior,
        :func:`~binaryeval.binary.posterior.prob_greater_matrix`), without computing each
        difference's interval: for thousands of groups, where ``compare()`` spends most of its
        time on the half million intervals.

        Parameters
        ----------
        order : "estimate", "input" or list of str, optional
            Order of the groups in rows and columns (default: the fit's order).

        Returns
        -------
        DataFrame
            Cell ``(i, j)`` is ``P(alpha_i > alpha_j)`` (index ``group_1``, columns
            ``group_2``; the diagonal is NaN), as :meth:`Comparison.matrix` shows it.

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
        ...                      "B": {"human_pos": 55, "human_total": 100}})
        >>> round(float(res.prob_greater_matrix().loc["A", "B"]), 4)
        0.9855
        """
        from .posterior import prob_greater_matrix

        groups = self.groups if order is None else _resolve_order(self, order)
        P = prob_greater_matrix([self.posteriors[g] for g in groups])
        out = pd.DataFrame(P, index=pd.Index(groups, name="group_1"),
                           columns=pd.Index(groups, name="group_2"))
        out.attrs.update(quantity="P(alpha_1 > alpha_2)")
        return out


def _resolve_order(fit: BinaryFit, order) -> list[str]:
    if isinstance(order, str):
        _validate.choice(order, "order", ("estimate", "input"))
        if order == "input":
            return list(fit.posteriors)
        return sorted(fit.posteriors, key=lambda g: -fit.posteriors[g].mean())
    labels = [str(g) for g in order]
    if sorted(labels) != sorted(fit.posteriors):
        raise ParameterError(f"order={list(order)!r} must list every group once: "
                             f"{sorted(fit.posteriors)}")
    return labels
