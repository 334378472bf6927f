"""Pairwise comparison of groups: one :class:`Comparison` for every fit.

Every fit's ``compare()`` (:class:`~binaryeval.BinaryFit`, :class:`~binaryeval.LatentFit`,
:class:`~binaryeval.PreferenceFit`) returns a :class:`Comparison`: one row per pair of groups with
the posterior of the difference (``diff``, its ``std_error``, the credible interval ``lower``,
``upper`` at ``level``), ``P(group_1 > group_2)`` (``prob_greater``), a z statistic, a p-value and
the call at ``sig_level``.  :meth:`Comparison.matrix` turns any column into a square table over the
groups.  The models compute the rows (the binary model from its exact posteriors, the latent model
from its draws); :func:`finish` adds the p-values, the multiple-testing adjustment and the stars
the same way for both.

A later method of the fits (``ranks()``) reads the same draws or posteriors; nothing here assumes
more than a table of pairs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from . import _validate
from ._results import Result
from .errors import DataError
from .summary import Summary

__all__ = ["Comparison", "compare_draws", "finish", "turn_pairs", "METHODS"]

#: how ``p_value`` is computed, by ``method``
METHODS = {"bayes": "two-sided posterior tail 2 min(P, 1 - P) of P(group_1 > group_2)",
           "z": "z-test on a normal approximation of the difference (paper eq. 6)"}

#: columns whose value for (j, i) is minus that for (i, j)
_ANTISYMMETRIC = ("diff", "statistic")


def adjusted(p: np.ndarray, adjust: str, sig_level: float = 0.05
             ) -> tuple[np.ndarray, np.ndarray]:
    """p-values adjusted by statsmodels' ``multipletests`` and which it rejects at ``sig_level``.

    The adjustment runs over the finite p-values only (a pair without a test is not counted);
    NaN stays NaN and is not rejected.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval._comparison import adjusted
    >>> adjusted(np.array([0.01, np.nan, 0.04]), "holm")
    (array([0.02, nan, 0.04]), array([ True, False,  True]))
    """
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(p, dtype=float)
    ok = np.isfinite(p)
    out = np.full(p.shape, np.nan)
    reject = np.zeros(p.shape, dtype=bool)
    if ok.any():
        reject[ok], out[ok], _, _ = multipletests(p[ok], alpha=sig_level, method=adjust)
    return out, reject


def finish(rows: pd.DataFrame, *, groups: Sequence[str], method: str, sig_level: float,
           adjust: str | None, level: float, group_name: str, quantity: str,
           interval: str, extra: dict[str, Any] | None = None) -> Comparison:
    """p-values, adjustment, significance and stars for rows of pairs; the :class:`Comparison`.

    Parameters
    ----------
    rows : DataFrame
        ``group_1, group_2, diff, std_error, lower, upper, prob_greater`` per pair.
    groups : sequence of str
        The groups in display order (rows and columns of :meth:`Comparison.matrix`).
    method : {"bayes", "z"}
        Which p-value decides significance.
    sig_level : float
        Significance threshold.
    adjust : str, optional
        A statsmodels ``multipletests`` method applied over all pairs.
    level : float
        Probability of the credible intervals ``lower``/``upper``.
    group_name : str
        Name of the grouping column.
    quantity : str
        What ``prob_greater`` is the probability of, in words (for the summary and plot).
    interval : str
        How ``lower``/``upper`` were computed (the summary says it).
    extra : dict, optional
        Further facts for ``attrs`` and the summary.

    Returns
    -------
    Comparison

    Examples
    --------
    >>> import pandas as pd
    >>> from binaryeval._comparison import finish
    >>> rows = pd.DataFrame({"group_1": ["A"], "group_2": ["B"], "diff": [0.1],
    ...                      "std_error": [0.05], "lower": [0.002], "upper": [0.198],
    ...                      "prob_greater": [0.977]})
    >>> finish(rows, groups=["A", "B"], method="bayes", sig_level=0.05, adjust=None,
    ...        level=0.95, group_name="system", quantity="P(A > B)", interval="eti")
    Comparison(pairs=1, significant=1, method='bayes', sig_level=0.05)
    """
    method = _validate.choice(method, "method", tuple(METHODS))
    adjust = _validate.adjust(adjust)
    frame = rows.reset_index(drop=True).copy()
    se = frame["std_error"].to_numpy(dtype=float)
    diff = frame["diff"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(se > 0, diff / se, np.nan)
    pg = frame["prob_greater"].to_numpy(dtype=float)
    frame["statistic"] = z
    # (the normal upper tail: scipy.stats.norm.sf is ndtr(-x), without importing scipy.stats)
    p_z = np.where(np.isfinite(z), 2 * special.ndtr(-np.abs(z)), np.nan)
    p_bayes = np.minimum(1.0, 2 * np.minimum(pg, 1 - pg))
    frame["p_value"] = p_z if method == "z" else p_bayes
    if adjust is not None:
        frame["p_adjusted"], frame["significant"] = adjusted(
            frame["p_value"].to_numpy(dtype=float), adjust, sig_level)
        pcol = frame["p_adjusted"]
    else:
        frame["significant"] = (frame["p_value"] < sig_level).to_numpy()
        pcol = frame["p_value"]
    # stars at what the evidence resolves: from n draws a p-value is known only down to 2 / n
    # (every draw on one side), so such a pair gets the stars of that bound
    draws = (extra or {}).get("n_draws")
    pstar = np.maximum(pcol.to_numpy(dtype=float), 2.0 / draws) if draws else pcol
    frame["stars"] = np.select([pstar < 0.001, pstar < 0.01, pstar < 0.05], ["***", "**", "*"], "")
    attrs = dict(sig_level=sig_level, method=method, adjust=adjust, level=level, kind="eti",
                 quantity=quantity, interval=interval, **(extra or {}))
    frame.attrs.update(attrs)
    return Comparison(frame, [str(g) for g in groups], method, sig_level, adjust, group_name,
                      level, quantity, interval)


def turn_pairs(table: pd.DataFrame, swapped: Any) -> pd.DataFrame:
    """The rows of a comparison with the pairs marked ``swapped`` turned round.

    A turned pair reads ``group_2`` against ``group_1``: the names change places, ``diff`` and
    ``statistic`` change sign, the interval ``lower``/``upper`` becomes ``-upper``/``-lower``
    and ``prob_greater`` becomes ``1 - prob_greater`` (the rules of :meth:`Comparison.matrix`).
    The rest (``std_error``, the p-values, ``significant``, ``stars``, ...) is the same either
    way round and is kept as it is.

    Parameters
    ----------
    table : DataFrame
        Rows of pairs with ``group_1``, ``group_2`` and any of the columns above.
    swapped : array-like of bool
        One per row: whether to turn it round.

    Returns
    -------
    DataFrame
        A copy, with the same ``attrs``.

    Examples
    --------
    >>> import pandas as pd
    >>> from binaryeval._comparison import turn_pairs
    >>> rows = pd.DataFrame({"group_1": ["A"], "group_2": ["B"], "diff": [0.25],
    ...                      "lower": [0.125], "upper": [0.5], "prob_greater": [0.75]})
    >>> turn_pairs(rows, [True])
      group_1 group_2  diff  lower  upper  prob_greater
    0       B       A -0.25   -0.5 -0.125          0.25
    """
    out = table.copy()
    out.attrs.update(table.attrs)
    turn = np.asarray(swapped, dtype=bool)
    if turn.shape != (len(out),):
        raise ValueError(f"swapped needs one flag per row ({len(out)}), got shape {turn.shape}")
    if not turn.any():
        return out
    rows = out.index[turn]
    out.loc[rows, ["group_1", "group_2"]] = table.loc[rows, ["group_2", "group_1"]].to_numpy()
    for column in _ANTISYMMETRIC:
        if column in out.columns:
            out.loc[rows, column] = -table.loc[rows, column].to_numpy(dtype=float)
    if "lower" in out.columns and "upper" in out.columns:
        out.loc[rows, "lower"] = -table.loc[rows, "upper"].to_numpy(dtype=float)
        out.loc[rows, "upper"] = -table.loc[rows, "lower"].to_numpy(dtype=float)
    if "prob_greater" in out.columns:
        out.loc[rows, "prob_greater"] = 1.0 - table.loc[rows, "prob_greater"].to_numpy(dtype=float)
    return out


def pair_differences(draws: np.ndarray, groups: Sequence[str], shown: Sequence[str]
                     ) -> tuple[list[tuple[str, str]], np.ndarray]:
    """Every pair of ``shown`` (in that order) and draws of its difference.

    ``draws`` is (chains, draws, groups) with its last axis in the order of ``groups``; the
    result's last axis holds ``x_group_1 - x_group_2`` for each pair, ready for
    :func:`compare_draws`.

    Examples
    --------
    >>> import numpy as np
    >>> pairs, d = pair_differences(np.arange(6.0).reshape(1, 2, 3), ["a", "b", "c"], ["c", "a"])
    >>> pairs, d[0, :, 0].tolist()
    ([('c', 'a')], [2.0, 2.0])
    """
    idx = {g: i for i, g in enumerate(groups)}
    pairs = [(a, b) for i, a in enumerate(shown) for b in shown[i + 1:]]
    if not pairs:
        return pairs, np.zeros(draws.shape[:2] + (0,))
    first = [idx[a] for a, _ in pairs]
    second = [idx[b] for _, b in pairs]
    return pairs, draws[..., first] - draws[..., second]


def compare_draws(draws: np.ndarray, pairs: Sequence[tuple[str, str]], *, groups: Sequence[str],
                  method: str = "bayes", sig_level: float = 0.05, adjust: str | None = None,
                  level: float = 0.95, group_name: str = "group", quantity: str,
                  extra: dict[str, Any] | None = None) -> Comparison:
    """A :class:`Comparison` from posterior draws of each pair's difference.

    Parameters
    ----------
    draws : ndarray (chains, draws, pairs)
        Draws of ``x_group_1 - x_group_2`` for each pair, from the joint posterior.
    pairs : sequence of (str, str)
        ``(group_1, group_2)`` of each column of ``draws``.
    groups, method, sig_level, adjust, level, group_name, quantity, extra
        As in :func:`finish`.

    Returns
    -------
    Comparison
        ``diff`` is the posterior mean of the difference, ``std_error`` its posterior sd,
        ``lower``/``upper`` the equal-tailed interval of the draws at ``level``,
        ``prob_greater`` the share of draws above 0 (ties, a difference of exactly 0, count
        half).

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval._comparison import compare_draws
    >>> rng = np.random.default_rng(0)
    >>> d = rng.normal(0.1, 0.05, size=(2, 500, 1))
    >>> c = compare_draws(d, [("A", "B")], groups=["A", "B"], quantity="P(A > B)")
    >>> round(float(c.to_frame()["prob_greater"].iloc[0]), 2)
    0.98
    """
    if len(groups) < 2:
        raise DataError("compare needs at least two groups; add '| system' to the formula")
    level = _validate.level(level)
    flat = np.asarray(draws, dtype=float).reshape(-1, draws.shape[-1])
    tail = (1.0 - level) / 2.0
    if flat.shape[1]:
        lower, upper = np.quantile(flat, [tail, 1.0 - tail], axis=0)
    else:
        lower = upper = np.zeros(0)
    rows = pd.DataFrame({
        "group_1": [str(a) for a, _ in pairs], "group_2": [str(b) for _, b in pairs],
        "diff": flat.mean(axis=0), "std_error": flat.std(axis=0, ddof=1),
        "lower": lower, "upper": upper,
        "prob_greater": (flat > 0).mean(axis=0) + 0.5 * (flat == 0).mean(axis=0)})
    return finish(rows, groups=groups, method=method, sig_level=sig_level, adjust=adjust,
                  level=level, group_name=group_name, quantity=quantity,
                  interval=f"equal-tailed quantiles of {flat.shape[0]:,} posterior draws",
                  extra={**(extra or {}), "n_draws": int(flat.shape[0])})


@dataclass(frozen=True, eq=False, repr=False)
class Comparison(Result):
    """Pairwise comparison of groups, from the ``compare()`` of every fit.

    Attributes
    ----------
    table : DataFrame
        One row per pair (see :meth:`to_frame`).
    groups : list of str
        The groups in display order.
    method : str
        ``"bayes"`` or ``"z"``: which p-value decides ``significant``.
    sig_level : float
        Significance threshold.
    adjust : str or None
        Multiple-testing adjustment of the p-values.
    group_name : str
        Name of the grouping column.
    level : float
        Probability of the credible intervals of the differences.
    quantity : str
        What ``prob_greater`` is the probability of.
    interval : str
        How the intervals were computed.

    Examples
    --------
    >>> import binaryeval as be
    >>> res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
    ...                      "B": {"human_pos": 55, "human_total": 100}})
    >>> res.compare().to_frame()[["group_1", "group_2", "prob_greater"]].round(4)
      group_1 group_2  prob_greater
    0       A       B        0.9855
    """

    table: pd.DataFrame
    groups: list[str]
    method: str
    sig_level: float
    adjust: str | None
    group_name: str = "group"
    level: float = 0.95
    quantity: str = "P(group_1 > group_2)"
    interval: str = ""

    def to_frame(self) -> pd.DataFrame:
        """One row per pair.

        Returns
        -------
        DataFrame
            ``group_1, group_2``, ``diff`` (posterior mean of the difference), ``std_error``
            (its posterior sd), ``lower``, ``upper`` (its equal-tailed credible interval at
            ``level``), ``prob_greater``, ``statistic`` (z = diff / std_error), ``p_value``,
            [``p_adjusted``,] ``significant``, ``stars``; ``level``, ``kind``, ``sig_level``,
            ``method`` and ``adjust`` in ``attrs``.

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 7, "human_total": 10},
        ...                      "B": {"human_pos": 4, "human_total": 10}})
        >>> list(res.compare().to_frame().columns)[:7]
        ['group_1', 'group_2', 'diff', 'std_error', 'lower', 'upper', 'prob_greater']
        """
        out = self.table.copy()
        out.attrs.update(self.table.attrs)
        return out

    def matrix(self, value: str = "prob_greater") -> pd.DataFrame:
        """Square table over groups; cell (i, j) is the value for group i against group j.

        Parameters
        ----------
        value : str
            A column of :meth:`to_frame`.  ``prob_greater`` gives ``P(x_i > x_j)`` (the papers'
            table); ``diff`` and ``statistic`` are antisymmetric; ``lower`` of (j, i) is minus
            ``upper`` of (i, j) and the other way round; ``p_value`` and ``significant`` are
            symmetric.  Pairs without a row (no data) are missing.

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 7, "human_total": 10},
        ...                      "B": {"human_pos": 4, "human_total": 10}})
        >>> res.compare().matrix().round(3)
        group_2      A      B
        group_1
        A          NaN  0.901
        B        0.099    NaN
        """
        cols = [c for c in self.table.columns if c not in ("group_1", "group_2")]
        value = _validate.choice(value, "value", cols)
        n = len(self.groups)
        # numbers in a float array (only the stars are text)
        kind = object if value == "stars" else float
        vals = np.full((n, n), np.nan, dtype=kind)
        other = {"lower": "upper", "upper": "lower"}.get(value)
        # every pair at once (thousands of groups have half a million pairs)
        labels = pd.Index(self.groups, dtype=object)
        i = labels.get_indexer(self.table["group_1"].astype(object)).astype(np.int64)
        j = labels.get_indexer(self.table["group_2"].astype(object)).astype(np.int64)
        keep = (i >= 0) & (j >= 0)
        i, j = i[keep], j[keep]
        v = self.table[value].to_numpy(dtype=kind)[keep]
        vals[i, j] = v
        if value == "prob_greater":
            vals[j, i] = 1 - v.astype(float)
        elif value in _ANTISYMMETRIC:
            vals[j, i] = -v.astype(float)
        elif other is not None:
            vals[j, i] = -self.table[other].to_numpy(dtype=float)[keep]
        else:
            vals[j, i] = v
        m = pd.DataFrame(vals, index=pd.Index(self.groups, name="group_1"),
                         columns=pd.Index(self.groups, name="group_2"))
        return m if value == "stars" else m.astype(float)

    def _repr_fields(self) -> dict[str, Any]:
        return {"pairs": len(self.table), "significant": int(self.table["significant"].sum()),
                "method": self.method, "sig_level": self.sig_level}

    def summary(self) -> Summary:
        """Printable summary: the test, the level and one row per pair.

        Returns
        -------
        Summary

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 7, "human_total": 10},
        ...                      "B": {"human_pos": 4, "human_total": 10}})
        >>> print(res.compare().summary().as_text().splitlines()[0])
        Pairwise comparison of groups
        """
        info = {"quantity": self.quantity, "method": METHODS[self.method],
                "sig_level": self.sig_level, "adjustment": self.adjust or "none",
                "pairs": len(self.table),
                "significant pairs": int(self.table["significant"].sum()),
                "interval": f"{100 * self.level:g}% credible interval of diff"
                            + (f" ({self.interval})" if self.interval else ""),
                "statistic": "z = diff / std_error"}
        # one readable label per pair ("A vs B"); a two-level index would print as tuples
        pairs = self.table.assign(pair=self.table["group_1"].astype(str) + " vs "
                                  + self.table["group_2"].astype(str))
        pairs = pairs.drop(columns=["group_1", "group_2"]).set_index("pair")
        pairs.attrs = dict(self.table.attrs)   # (n_draws: how finely its probabilities are known)
        notes = []
        n = self.table.attrs.get("n_draws")
        if n:
            p = self.table["prob_greater"].to_numpy(dtype=float)
            if np.any((p < 1.0 / n) | (p > 1.0 - 1.0 / n)):
                notes.append(f"prob_greater is a share of {n:,} posterior draws, so it is known "
                             f"no finer than 1/{n:,} and a p-value no finer than 2/{n:,}: a pair "
                             "with every draw on one side shows those bounds and gets the stars "
                             "of its bound")
        return Summary("Pairwise comparison of groups", info, [("pairs", pairs)], notes)

    def plot(self, ax=None, *, kind: str = "heatmap", value: str = "prob_greater",
             annot: bool = True, **kw):
        """Heatmap of :meth:`matrix` (seaborn), rows and columns in the fit's order.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (a new figure when None).
        kind : {"heatmap"}
            The only kind.
        value : str
            The column of :meth:`to_frame` to show.
        annot : bool
            Write the values in the cells.
        **kw
            Passed to :func:`seaborn.heatmap`.

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 7, "human_total": 10},
        ...                      "B": {"human_pos": 4, "human_total": 10}})
        >>> ax = res.compare().plot()
        """
        import matplotlib.pyplot as plt
        import seaborn as sns

        _validate.choice(kind, "kind", ("heatmap",))
        m = self.matrix(value).astype(float)
        if ax is None:
            n = len(self.groups)
            _, ax = plt.subplots(figsize=(0.6 * n + 2.5, 0.5 * n + 2))
        opts = {"cmap": "vlag", "center": 0.5 if value == "prob_greater" else 0.0,
                "annot": annot, "fmt": ".2f", "annot_kws": {"size": 7}, "square": True,
                "cbar_kws": {"label": value}}
        opts.update(kw)
        fixed = re.fullmatch(r"\.(\d)f", str(opts["fmt"]))
        if opts["annot"] is True and value == "prob_greater" and fixed:
            # probabilities by the package's one rule: 0.996 reads "> 0.99", never "1.00" (only a
            # probability that is exactly 1 does, as in its tables)
            from ._format import format_probability

            digits = int(fixed.group(1))
            opts["annot"] = np.array([[format_probability(v, digits, na="")
                                       for v in row] for row in m.to_numpy()])
            opts["fmt"] = ""
        sns.heatmap(m, ax=ax, **opts)
        ax.set_title(_row_column(self.quantity) if value == "prob_greater" else value)
        return ax


def _row_column(quantity: str) -> str:
    """``P(alpha_1 > alpha_2)`` -> ``P(alpha row > alpha column)`` for the heatmap's title."""
    out = quantity.replace("group_1", "row").replace("group_2", "column")
    return out.replace("_1", " row").replace("_2", " column")
