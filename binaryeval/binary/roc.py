"""Scalar metrics made binary: ROC curves, AUC and threshold rules.

A scalar metric becomes a binary one through a threshold ``t``: the metric rating is positive
when ``score >= t`` (the convention of scikit-learn's ``roc_curve``).  On paired rows the
true-positive rate is ``rho(t)`` and the false-positive rate ``1 - eta(t)``.  Every observed score
is a candidate threshold.  Rules:

- ``"balanced"``: the papers' rule, the threshold minimising ``|rho - eta|`` (ties: the one with
  the larger ``rho + eta``, then the larger threshold);
- ``"youden"``: the threshold maximising Youden's ``J = rho + eta - 1`` (ties: the larger
  threshold).

The rates are compared exactly (as counts over ``n_pos * n_neg``), so equal rates tie whatever
their rounding.  A lower-is-better score is turned round first, so there "the larger
threshold" is the smaller one in the score's own units (the stricter one, as for any score).  A rule needs paired rows of both human classes and at least two distinct
scores.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import _validate
from .._results import Result, excluded_rows, row_account, row_facts
from ..data import LeftOutRows, argument_series, as_binary, keyed_by_label, scores
from ..errors import DataError, ParameterError
from ..summary import Summary

__all__ = ["RocResult", "roc_table", "choose_threshold", "apply_threshold", "choose_cuts", "Cuts",
           "THRESHOLD_RULES", "Thresholded"]

THRESHOLD_RULES = ("balanced", "youden")


def roc_table(human, score) -> pd.DataFrame:
    """ROC points at every observed score.

    Parameters
    ----------
    human : array-like of 0/1
        Human ratings of the paired rows.
    score : array-like of float
        Metric scores of the same rows.

    Returns
    -------
    DataFrame
        Columns ``threshold`` (descending; the first row is ``inf``: nothing positive), ``tp``,
        ``fp``, ``tn``, ``fn``, ``rho`` (TPR), ``eta`` (TNR), ``fpr``.

    Examples
    --------
    >>> from binaryeval.binary import roc_table
    >>> roc_table([1, 0, 1, 0], [0.9, 0.1, 0.6, 0.7])[["threshold", "rho", "eta"]].iloc[2].tolist()
    [0.7, 0.5, 0.5]
    """
    h = np.asarray(human, dtype=float)
    s = np.asarray(score, dtype=float)
    if h.shape != s.shape:
        raise DataError(f"human ({h.size}) and score ({s.size}) have different lengths")
    ok = ~(np.isnan(h) | np.isnan(s))
    h, s = h[ok], s[ok]
    if not np.all((h == 0.0) | (h == 1.0)):
        # the curve counts positives as the sum of the ratings: only 0/1 gives it
        raise DataError(f"human ratings must be 0/1, got {h[(h != 0.0) & (h != 1.0)][0]:g}; "
                        "code them 1 (adequate) and 0 (not)")
    n_pos = int(h.sum())
    n_neg = int(h.size - n_pos)
    if n_pos == 0 or n_neg == 0:
        raise DataError(f"ROC needs paired rows of both human classes; got {n_pos} positive and "
                        f"{n_neg} negative human ratings")
    order = np.argsort(-s, kind="mergesort")
    s_sorted, h_sorted = s[order], h[order]
    # last index of each distinct score (descending): everything up to it is positive
    distinct = np.r_[np.nonzero(np.diff(s_sorted))[0], s_sorted.size - 1]
    tp = np.cumsum(h_sorted)[distinct]
    fp = (distinct + 1) - tp
    thresholds = s_sorted[distinct]
    tp = np.r_[0, tp]
    fp = np.r_[0, fp]
    thresholds = np.r_[np.inf, thresholds]
    frame = pd.DataFrame({"threshold": thresholds, "tp": tp.astype(int), "fp": fp.astype(int)})
    frame["fn"] = n_pos - frame["tp"]
    frame["tn"] = n_neg - frame["fp"]
    frame["rho"] = frame["tp"] / n_pos
    frame["eta"] = frame["tn"] / n_neg
    frame["fpr"] = 1.0 - frame["eta"]
    return frame


def _auc(table: pd.DataFrame) -> float:
    x = np.r_[table["fpr"].to_numpy(), 1.0]
    y = np.r_[table["rho"].to_numpy(), 1.0]
    return float(np.trapezoid(y, x)) if hasattr(np, "trapezoid") else float(np.trapz(y, x))


def _exact_rates(finite: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, int]:
    """``rho`` and ``eta`` of the points as whole numbers over the common denominator.

    ``rho = tp / n_pos`` and ``eta = tn / n_neg`` are compared as ``tp * n_neg`` and
    ``tn * n_pos`` (both over ``n_pos * n_neg``): equal rates stay equal, where their rounded
    quotients may differ in the last bit and reverse a tie.
    """
    n_pos = int(finite["tp"].iloc[0] + finite["fn"].iloc[0])
    n_neg = int(finite["tn"].iloc[0] + finite["fp"].iloc[0])
    # int64 holds the products up to some 3e9 paired rows; Python integers beyond
    kind = np.int64 if max(n_pos, n_neg, 1) < 2**31 else object
    tp = finite["tp"].to_numpy().astype(kind)
    tn = finite["tn"].to_numpy().astype(kind)
    return tp * n_neg, tn * n_pos, n_pos * n_neg


def _pick(table: pd.DataFrame, rule: str) -> int:
    if rule not in THRESHOLD_RULES:
        raise ParameterError(f"threshold rule {rule!r} is unknown; use one of {THRESHOLD_RULES}")
    finite = table[np.isfinite(table["threshold"])]
    rho, eta, scale = _exact_rates(finite)
    thresholds = finite["threshold"].to_numpy()
    if rule == "balanced":
        # smallest |rho - eta|, then the largest rho + eta, then the largest threshold
        gap = np.abs(rho - eta)
        total = rho + eta
        if gap.dtype == object:
            best = min(range(len(finite)), key=lambda i: (gap[i], -total[i], -thresholds[i]))
        else:
            best = int(np.lexsort((-thresholds, -total, gap))[0])
        return int(finite.index[best])
    # Youden: the largest rho + eta - 1, then the largest threshold (the rows run from the
    # largest threshold down)
    j = rho + eta - scale
    return int(finite.index[int(np.flatnonzero(j == j.max())[0])])


def choose_threshold(human, score, rule: str = "balanced") -> float:
    """The threshold a rule picks on paired rows (``score >= threshold`` is positive).

    Parameters
    ----------
    human : array-like of 0/1
        Human ratings of the paired rows: 0/1 or booleans, NaN for not rated (checked as in
        :func:`binaryeval.fit`: other codings, such as -1/+1 or a 1-5 scale, are refused with
        the way to binarise them).
    score : array-like of float
        Metric scores of the same rows (NaN: not scored).  Rows missing either are left out.
    rule : {"balanced", "youden"}
        ``"balanced"`` minimises ``|rho - eta|`` (the papers' rule), ``"youden"`` maximises
        ``rho + eta - 1``.

    Returns
    -------
    float

    Examples
    --------
    >>> from binaryeval import choose_threshold
    >>> choose_threshold([1, 1, 0, 0], [0.9, 0.4, 0.5, 0.1], "balanced")
    0.5
    """
    if isinstance(rule, (bool, np.bool_)) or not isinstance(rule, str) \
            or rule not in THRESHOLD_RULES:
        number = isinstance(rule, (int, float, np.integer, np.floating)) \
            and not isinstance(rule, (bool, np.bool_))
        raise ParameterError(
            f"rule={rule!r}: choose_threshold picks a threshold by a rule, one of "
            f"{THRESHOLD_RULES}" + (f"; {rule!r} is a threshold already (the rating is "
                                    f"score >= {rule!r})" if number else ""))
    if isinstance(human, pd.Series) and isinstance(score, pd.Series) \
            and not human.index.equals(score.index):
        # two Series are the ratings of the rows their index names, not of their positions
        if human.index.has_duplicates or score.index.has_duplicates \
                or set(human.index) != set(score.index):
            only = [x for x in human.index if x not in set(score.index)][:3] or \
                [x for x in score.index if x not in set(human.index)][:3]
            raise DataError("human and score are Series with different indexes (e.g. "
                            f"{', '.join(map(repr, only)) or 'repeated labels'}), so their "
                            "rows cannot be matched; align them first (human.align(score, "
                            "join='inner')) or pass arrays in the same row order")
        score = score.reindex(human.index)
    h = argument_series(human, "human")
    s = argument_series(score, "score")
    if len(h) != len(s):
        raise DataError(f"human ({len(h)} values) and score ({len(s)} values) have different "
                        "lengths; give the two ratings of the same rows")
    h = as_binary(h, "human", "human rating", argument=True).to_numpy()
    s = scores(s, "score", "argument", position=True)
    table = roc_table(h, s)
    used = np.isfinite(s) & ~np.isnan(h)
    if np.unique(s[used]).size < 2:
        raise DataError(f"score takes a single value ({_show_value(s[used])}) on the "
                        f"{int(used.sum())} rows rated by both: no threshold separates "
                        "anything; check the score column")
    from .._directions import check_direction

    auc = _auc(table)
    check_direction(
        auc, lambda: (f"the score runs against the human ratings (AUC {auc:.2f} < 0.5 on "
                      f"{int(used.sum()):,} paired rows)"),
        terms=["score"], sides=[("score",)], lower=[],
        advice="if lower scores are better, pass -score (the threshold then holds for -score)")
    return float(table.loc[_pick(table, rule), "threshold"])


def _rule_threshold(human: np.ndarray, score: np.ndarray, rule: str) -> float:
    """:func:`choose_threshold` on checked arrays, without its own checks (a fit makes them)."""
    table = roc_table(human, score)
    return float(table.loc[_pick(table, rule), "threshold"])


def _rule_cut(human: np.ndarray, oriented: np.ndarray, rule: str, *, column: str,
              sign: float, group=None) -> float:
    """The threshold (of the oriented score) a rule picks on paired rows, checked first.

    Both human classes and two distinct scores are needed; without them a rule picks a
    threshold from nothing, so the call is refused with what the rows hold and the fix.
    """
    where = "" if group is None else f" in group {group!r}"
    n_pos = int((human == 1.0).sum())
    n_neg = int(human.size - n_pos)
    if n_pos == 0 or n_neg == 0:
        fix = (f"give group {group!r} a number in the threshold mapping, or one rule for all "
               "groups (threshold='balanced' picks it from every group's paired rows)"
               if group is not None else "add paired rows of the other class, or give "
               "threshold a number")
        raise DataError(f"threshold rule {rule!r} for {column!r} needs paired rows of both human "
                        f"classes{where}; got {n_pos} positive and {n_neg} negative human "
                        f"ratings: {fix}")
    values = np.unique(oriented)
    if values.size < 2:
        raise DataError(f"{column!r} takes a single value ({sign * float(values[0]) + 0.0:g}) on the "
                        f"{human.size:,} paired rows{where}: no threshold separates anything, so "
                        f"the {rule!r} rule has nothing to choose from; check the score column, "
                        "or give threshold a number")
    return _rule_threshold(human, oriented, rule)


def _degenerate_pick(human: np.ndarray, oriented: np.ndarray, rule: str, cut: float, *,
                     column: str, where: str, lo: float, hi: float,
                     lower_is_better: bool) -> str:
    """Why a rule's threshold rates every output positive: the paired rows' scores run wrong."""
    from .._directions import direction_message

    auc = _auc(roc_table(human, oriented))
    head = (f"the {rule!r} rule picks threshold {cut:g} for {column!r}{where}, which rates "
            f"every output positive (scores run from {lo:g} to {hi:g}): no threshold of the "
            f"paired rows gives rho + eta above 1")
    if auc < 0.5:
        way = "lower" if lower_is_better else "higher"
        return direction_message(
            f"{head}; {way} scores go with inadequate outputs there (AUC {auc:.2f})",
            terms=[column], sides=[(column,)], lower=[column] if lower_is_better else [])
    return f"{head} (AUC {auc:.2f}); give threshold a number, or 'balanced'"


def _show_value(values: np.ndarray) -> str:
    return f"{float(values[0]):g}" if values.size else "none"


@dataclass(frozen=True, eq=False, repr=False)
class RocResult(Result):
    """ROC curves per group and pooled, from :func:`binaryeval.roc`.

    Examples
    --------
    >>> import pandas as pd
    >>> from binaryeval import roc
    >>> df = pd.DataFrame({"h": [1, 0, 1, 0, 1, 0], "s": [.9, .2, .7, .6, .4, .1]})
    >>> roc("h ~ s", df)
    RocResult(formula='h ~ s', curves=1, n_used=6)
    """

    formula: str
    curves: dict[str, pd.DataFrame]
    n_used: int
    n_excluded: int
    group_name: str | None = None
    excluded: dict = field(default_factory=dict)
    lower_is_better: bool = False
    _left_out: LeftOutRows | None = field(default=None, repr=False, compare=False)

    @property
    def n_rows(self) -> int:
        """Rows in the data (used and excluded)."""
        return self.n_used + self.n_excluded

    @property
    def excluded_rows(self) -> pd.Series:
        """The rows left out: the reason of each, indexed by the data's own row labels.

        In data order, the index name kept; the reasons are the keys of ``excluded`` and
        ``excluded_rows.value_counts()`` equals it.  Empty when no row was left out.

        Examples
        --------
        >>> import pandas as pd
        >>> from binaryeval import roc
        >>> df = pd.DataFrame({"h": [1, 0, 1, None, 1, 0], "s": [.9, .2, .7, .6, .4, .1]},
        ...                   index=["a", "b", "c", "d", "e", "f"])
        >>> roc("h ~ s", df).excluded_rows
        d    missing rating or group
        Name: reason, dtype: object
        """
        return excluded_rows(self._left_out)

    def auc(self) -> pd.Series:
        """Area under each curve (ties count one half, as in the Mann-Whitney statistic).

        Returns
        -------
        Series

        Examples
        --------
        >>> import pandas as pd
        >>> from binaryeval import roc
        >>> df = pd.DataFrame({"h": [1, 0, 1, 0], "s": [.9, .2, .7, .8]})
        >>> float(roc("h ~ s", df).auc()["pooled"])
        0.75
        """
        return pd.Series({g: _auc(t) for g, t in self.curves.items()}, name="auc")

    def thresholds(self) -> pd.DataFrame:
        """The threshold each rule picks, with its rho and eta, per curve.

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import pandas as pd
        >>> from binaryeval import roc
        >>> df = pd.DataFrame({"h": [1, 1, 0, 0], "s": [.9, .4, .5, .1]})
        >>> roc("h ~ s", df).thresholds()[["rule", "threshold"]].values.tolist()
        [['balanced', 0.5], ['youden', 0.9]]
        """
        rows = []
        for g, t in self.curves.items():
            for rule in THRESHOLD_RULES:
                i = _pick(t, rule)
                rows.append({"group": g, "rule": rule, "threshold": self._sign * t.loc[i, "threshold"],
                             "rho": t.loc[i, "rho"], "eta": t.loc[i, "eta"],
                             "tp": t.loc[i, "tp"], "fn": t.loc[i, "fn"],
                             "tn": t.loc[i, "tn"], "fp": t.loc[i, "fp"]})
        return pd.DataFrame(rows)

    def to_frame(self) -> pd.DataFrame:
        """All ROC points, one row per (group, threshold).

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import pandas as pd
        >>> from binaryeval import roc
        >>> df = pd.DataFrame({"h": [1, 0], "s": [.9, .2]})
        >>> list(roc("h ~ s", df).to_frame().columns)
        ['threshold', 'tp', 'fp', 'fn', 'tn', 'rho', 'eta', 'fpr', 'group']
        """
        out = pd.concat([t.assign(group=g) for g, t in self.curves.items()], ignore_index=True)
        out["threshold"] = self._sign * out["threshold"]
        from ..formula import parse_formula

        score = parse_formula(self.formula).rhs_names[0]
        out.attrs.update(method="empirical ROC: every observed score of the paired rows as a "
                         "threshold", directions={score: "lower is better" if self._sign < 0
                                                  else "higher is better"})
        out.attrs.update(row_account(self))
        return out

    @property
    def _sign(self) -> float:
        # the curves are held for the oriented score (higher is better); thresholds are reported
        # in the score's own units
        return -1.0 if self.lower_is_better else 1.0

    def _repr_fields(self):
        return {"formula": self.formula, "curves": len(self.curves), "n_used": self.n_used}

    def summary(self) -> Summary:
        """AUC and the rules' thresholds per curve.

        Returns
        -------
        Summary

        Examples
        --------
        >>> import pandas as pd
        >>> from binaryeval import roc
        >>> df = pd.DataFrame({"h": [1, 0, 1, 0], "s": [.9, .2, .7, .8]})
        >>> print(roc("h ~ s", df).summary().as_text().splitlines()[0])
        ROC of a scalar metric against binary human ratings
        """
        auc = self.auc()
        th = self.thresholds().pivot(index="group", columns="rule", values="threshold")
        table = pd.DataFrame({"auc": auc, "n_paired": {g: int(t[["tp", "fn", "tn", "fp"]].iloc[0].sum())
                                                       for g, t in self.curves.items()}})
        table = table.join(th.add_prefix("threshold_")).reindex(list(self.curves))
        info = {"formula": self.formula, **row_facts(self),
                "positive when": "score <= threshold" if self.lower_is_better
                else "score >= threshold"}
        return Summary("ROC of a scalar metric against binary human ratings", info,
                       [("per group (and pooled)", table)])

    def plot(self, ax=None, *, kind: str = "roc", groups=None, mark: str | None = "balanced",
             **kw):
        """ROC curves (TPR rho against FPR 1 - eta), the chosen thresholds marked.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (a new figure when None).
        kind : {"roc"}
            The only kind.
        groups : list of str, optional
            Curves to draw (default: all).
        mark : {"balanced", "youden"} or None
            Mark the threshold this rule picks on each curve.
        **kw
            Passed to ``Axes.plot``.

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import pandas as pd
        >>> from binaryeval import roc
        >>> df = pd.DataFrame({"h": [1, 0, 1, 0], "s": [.9, .2, .7, .8]})
        >>> ax = roc("h ~ s", df).plot()
        """
        import matplotlib.pyplot as plt

        _validate.choice(kind, "kind", ("roc",))
        if mark is not None:
            _validate.choice(mark, "mark", THRESHOLD_RULES)
        if ax is None:
            _, ax = plt.subplots(figsize=(5.5, 5))
        names = list(self.curves) if groups is None else list(groups)
        for g in names:
            t = self.curves[g]
            style = {"lw": 2.2, "color": "black"} if g == "pooled" else {"lw": 1.2}
            style.update(kw)
            line, = ax.plot(np.r_[t["fpr"], 1.0], np.r_[t["rho"], 1.0],
                            label=f"{g} (AUC {_auc(t):.2f})", **style)
            if mark:
                i = _pick(t, mark)
                ax.plot(t.loc[i, "fpr"], t.loc[i, "rho"], "o", color=line.get_color(), ms=5)
        ax.plot([0, 1], [0, 1], ls=":", color="grey", lw=1)
        ax.set_xlabel("false-positive rate 1 - eta")
        ax.set_ylabel("true-positive rate rho")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.01)
        ax.legend(fontsize=7, loc="lower right")
        return ax


@dataclass(frozen=True)
class Thresholded:
    """A scalar metric turned into 0/1 ratings by :func:`apply_threshold`.

    Attributes
    ----------
    metric : ndarray
        0.0/1.0 per row, NaN where the score is missing.
    thresholds : dict
        ``group -> threshold`` (in the score's units).
    rule : str
        ``"balanced"``, ``"youden"`` or ``"given"`` (numbers), the same for every group; else
        ``"mixed"`` (per-group thresholds of different rules, or rules beside numbers).
    per_group : bool
        Whether each group has its own threshold.
    lower_is_better : bool
        Whether a rating is positive at ``score <= threshold`` (else ``score >= threshold``).
    auc : float
        Area under the ROC curve of the paired rows (all groups), NaN without both classes.
    rho, eta : float
        Rates of the paired rows (all groups) at the thresholds, NaN without both classes.
    """

    metric: np.ndarray
    thresholds: dict
    rule: str
    per_group: bool
    lower_is_better: bool
    auc: float
    rho: float
    eta: float


def _check_threshold_value(value, column: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                      np.floating)):
        raise ParameterError(f"threshold={value!r} for {column!r}: give a number, 'balanced' or "
                             "'youden'")
    v = float(value)
    if not np.isfinite(v):
        raise ParameterError(f"threshold={value!r} for {column!r} is not finite; give a number "
                             "inside the observed scores, 'balanced' or 'youden'")
    return v


def apply_threshold(human: np.ndarray, score: np.ndarray, group: np.ndarray, threshold, *,
                    lower_is_better: bool = False, column: str = "metric") -> Thresholded:
    """Turn scalar scores into 0/1 metric ratings with a number or a rule.

    Parameters
    ----------
    human : ndarray
        Coded human ratings (0.0/1.0/NaN) of the same rows; the rules use the paired rows.
    score : ndarray
        Finite scores, NaN for "not rated".
    group : ndarray
        Group label of each row.
    threshold : float, "balanced", "youden" or mapping
        A number or rule for all groups (a rule is applied to the paired rows of all groups, as
        in the papers), or ``{group: number or rule}`` (a rule then uses that group's rows).
    lower_is_better : bool
        Positive when ``score <= threshold`` instead of ``score >= threshold``.
    column : str
        The metric's name, for messages.

    Returns
    -------
    Thresholded

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary.roc import apply_threshold
    >>> h = np.array([1.0, 1.0, 0.0, 0.0, np.nan])
    >>> s = np.array([0.9, 0.4, 0.5, 0.1, 0.7])
    >>> t = apply_threshold(h, s, np.array(["A"] * 5), "balanced")
    >>> t.thresholds, t.metric.tolist()
    ({'A': 0.5}, [1.0, 0.0, 1.0, 0.0, 1.0])
    """
    paired = ~np.isnan(human) & ~np.isnan(score)
    labels = list(dict.fromkeys(group.tolist()))
    score_range = (float(np.nanmin(score)), float(np.nanmax(score)))
    cuts = choose_cuts(human[paired], score[paired], group[paired], labels, threshold,
                       lower_is_better=lower_is_better, column=column, score_range=score_range)
    metric = cuts.apply(score, pd.Index(labels).get_indexer(group), labels)
    return Thresholded(metric, cuts.thresholds, cuts.rule, cuts.per_group, cuts.lower_is_better,
                       cuts.auc, cuts.rho, cuts.eta)


@dataclass(frozen=True)
class Cuts:
    """The thresholds :func:`choose_cuts` found, and what the paired rows say about them.

    Attributes
    ----------
    thresholds : dict
        ``group -> threshold``, in the order of the groups.
    rule, per_group, lower_is_better, auc, rho, eta
        As in :class:`Thresholded`.
    """

    thresholds: dict
    rule: str
    per_group: bool
    lower_is_better: bool
    auc: float
    rho: float
    eta: float

    def apply(self, score: np.ndarray, codes: np.ndarray, labels: list) -> np.ndarray:
        """0/1 ratings of scores (NaN stays NaN); row ``i`` is in group ``labels[codes[i]]``.

        Parameters
        ----------
        score : ndarray
            Scores, NaN for "not rated".
        codes : ndarray of int
            Group of each row, as positions in ``labels``.
        labels : list
            Group labels (keys of :attr:`thresholds`).

        Returns
        -------
        ndarray

        Examples
        --------
        >>> import numpy as np
        >>> from binaryeval.binary.roc import Cuts
        >>> c = Cuts({"A": 0.5, "B": 0.8}, "given", True, False, np.nan, np.nan, np.nan)
        >>> c.apply(np.array([0.6, 0.6, np.nan]), np.array([0, 1, 1]), ["A", "B"]).tolist()
        [1.0, 0.0, nan]
        """
        sign = -1.0 if self.lower_is_better else 1.0
        per_label = np.array([self.thresholds[g] for g in labels], dtype=float)
        cut_rows = per_label[codes] if per_label.size else np.full(score.size, np.nan)
        return np.where(np.isnan(score), np.nan, (sign * score >= sign * cut_rows).astype(float))


def choose_cuts(human: np.ndarray, score: np.ndarray, group: np.ndarray, labels: list,
                threshold, *, lower_is_better: bool = False, column: str = "metric",
                score_range: tuple[float, float]) -> Cuts:
    """The thresholds a number or rule gives each group, found from the paired rows.

    The rules need only the rows with both ratings, so this is all that has to be gathered
    from data too large for memory; :meth:`Cuts.apply` then rates every row.

    Parameters
    ----------
    human, score, group : ndarray
        Coded human ratings, scores and group labels of the rows (those missing either rating
        are ignored: pass just the paired rows).
    labels : list
        Every group, in order (also groups without paired rows).
    threshold : float, "balanced", "youden", mapping or Series
        As in :func:`apply_threshold`; a Series (group -> threshold, as
        :attr:`BinaryFit.threshold` holds per-group thresholds) is read as a mapping.
    lower_is_better : bool
        Positive when ``score <= threshold``.
    column : str
        The metric's name, for messages.
    score_range : (float, float)
        Smallest and largest score of all rows (a given threshold must lie inside).

    Returns
    -------
    Cuts

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary.roc import choose_cuts
    >>> h, s = np.array([1.0, 1.0, 0.0, 0.0]), np.array([0.9, 0.4, 0.5, 0.1])
    >>> choose_cuts(h, s, np.array(["A"] * 4), ["A"], "balanced", score_range=(0.1, 0.9)).thresholds
    {'A': 0.5}
    """
    sign = -1.0 if lower_is_better else 1.0
    oriented = sign * score
    paired = ~np.isnan(human) & ~np.isnan(score)
    if isinstance(threshold, pd.Series):
        # per-group thresholds as a fit reports them (BinaryFit.threshold): group -> threshold
        threshold = dict(threshold.items())
    per_group = isinstance(threshold, Mapping)
    if per_group:
        # keys match the groups by their text (1 is group "1")
        threshold = keyed_by_label(threshold, "threshold")
        missing = [g for g in labels if str(g) not in threshold]
        if missing:
            raise ParameterError(f"threshold= has no entry for group {missing[0]!r} (its groups: "
                                 f"{list(threshold)[:8]}); give one per group or a single "
                                 "number or rule")
    specs = {g: (threshold[str(g)] if per_group else threshold) for g in labels}
    kinds: set[str] = set()
    cuts: dict = {}
    picked: dict = {}   # group -> (rule, its paired rows) of the thresholds a rule chose
    pooled_cut = None
    for g, spec in specs.items():
        if isinstance(spec, str):
            if spec not in THRESHOLD_RULES:
                raise ParameterError(f"threshold={spec!r}: use a number or one of "
                                     f"{THRESHOLD_RULES}")
            kinds.add(spec)
            sel = paired & (group == g) if per_group else paired
            if not sel.any():
                where = f" in group {g!r}" if per_group else ""
                raise DataError(f"threshold rule {spec!r} needs paired rows (human and metric "
                                f"rating){where}; there are none")
            if per_group or pooled_cut is None:
                cut = sign * _rule_cut(human[sel], oriented[sel], spec, column=column,
                                       sign=sign, group=g if per_group else None)
                pooled_cut = cut if not per_group else pooled_cut
                picked[g] = (spec, sel)
            cuts[g] = cut if per_group else pooled_cut
        else:
            cuts[g] = _check_threshold_value(spec, column)
            kinds.add("given")
    # one rule (or numbers given) for every group, else "mixed" (the thresholds say which)
    rule = kinds.pop() if len(kinds) == 1 else "mixed"
    lo, hi = float(score_range[0]) + 0.0, float(score_range[1]) + 0.0   # no "-0" in messages
    for g, cut in cuts.items():
        if (lower_is_better and (cut < lo or cut >= hi)) or (not lower_is_better
                                                            and (cut <= lo or cut > hi)):
            where = '' if not per_group else f' (group {g!r})'
            if g in picked or (not per_group and picked):
                spec, sel = picked[g] if g in picked else next(iter(picked.values()))
                raise DataError(_degenerate_pick(human[sel], oriented[sel], spec, cut,
                                                 column=column, where=where, lo=lo, hi=hi,
                                                 lower_is_better=lower_is_better))
            if lo == hi:
                raise DataError(f"threshold {cut:g} for {column!r}{where} puts every rating in "
                                f"one class: the scores take a single value ({lo:g}), which no "
                                "threshold separates; check the score column")
            raise ParameterError(
                f"threshold {cut:g} for {column!r}{where} "
                f"puts every rating in one class (scores run from {lo:g} to {hi:g}); choose a "
                "threshold inside that range, or 'balanced'")
    chosen = Cuts({g: float(c) for g, c in cuts.items()}, rule, per_group, bool(lower_is_better),
                  np.nan, np.nan, np.nan)
    codes = pd.Index(labels).get_indexer(group)
    metric = chosen.apply(score, codes, labels)
    auc = rho = eta = np.nan
    hp = paired & (human == 1.0)
    hn = paired & (human == 0.0)
    if hp.any() and hn.any():
        auc = _auc(roc_table(human[paired], oriented[paired]))
        rho = float(metric[hp].mean())
        eta = float(1.0 - metric[hn].mean())
    return Cuts(chosen.thresholds, rule, per_group, bool(lower_is_better), auc, rho, eta)
