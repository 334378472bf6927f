"""Pairwise comparison of groups' posteriors of ``alpha``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .. import _validate
from .._results import Result
from ..errors import DataError, ParameterError
from ..summary import Summary
from .posterior import PosteriorDistribution, prob_greater_matrix

__all__ = ["Comparison", "compare_posteriors"]

_METHODS = {"bayes": "posterior probability P(alpha_1 > alpha_2)",
            "z": "z-test on normal approximations (paper eq. 6)"}


def compare_posteriors(posteriors: Mapping[str, PosteriorDistribution], *, method: str = "bayes",
                       sig_level: float = 0.05, adjust: str | None = None,
                       group_name: str = "group") -> Comparison:
    """Compare every pair of posteriors (see :meth:`BinaryFit.compare`).

    Parameters
    ----------
    posteriors : mapping
        ``group -> posterior``, in display order.
    method : {"bayes", "z"}
        Which p-value decides significance.
    sig_level : float
        Significance threshold.
    adjust : str, optional
        A statsmodels ``multipletests`` method applied over all pairs.
    group_name : str
        Name of the grouping column (for the matrix's axes).

    Returns
    -------
    Comparison

    Examples
    --------
    >>> from binaryeval import alpha_posterior
    >>> comp = compare_posteriors({"A": alpha_posterior(human_pos=70, human_total=100),
    ...                            "B": alpha_posterior(human_pos=55, human_total=100)})
    >>> comp
    Comparison(pairs=1, significant=1, method='bayes', sig_level=0.05)
    """
    method = _validate.choice(method, "method", tuple(_METHODS))
    sig_level = _validate.probability(sig_level, "sig_level", open=True)
    groups = [str(g) for g in posteriors]
    if len(groups) < 2:
        raise DataError("compare needs at least two groups; add '| system' to the formula")
    posts = [posteriors[g] for g in posteriors]
    mean = np.array([p.mean() for p in posts])
    var = np.array([p.var() for p in posts])
    # every pair at once (one quadrature over shared nodes; see binaryeval.binary._matrix)
    pg_all = prob_greater_matrix(posts)
    i, j = np.triu_indices(len(groups), k=1)
    diff = mean[i] - mean[j]
    se = np.sqrt(var[i] + var[j])
    pg = pg_all[i, j]
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, diff / np.where(se > 0, se, 1.0), np.nan)
    names = np.array(groups, dtype=object)
    frame = pd.DataFrame({"group_1": names[i], "group_2": names[j], "diff": diff,
                          "std_error": se, "prob_greater": pg, "statistic": z})
    if method == "z":
        frame["p_value"] = np.where(se > 0, 2 * stats.norm.sf(np.abs(z)), np.nan)
    else:
        frame["p_value"] = np.minimum(1.0, 2 * np.minimum(pg, 1 - pg))
    if adjust is not None:
        from statsmodels.stats.multitest import multipletests

        try:
            reject, padj, _, _ = multipletests(frame["p_value"].to_numpy(), alpha=sig_level,
                                               method=adjust)
        except ValueError as exc:
            raise ParameterError(f"adjust={adjust!r}: {exc}") from None
        frame["p_adjusted"] = padj
        frame["significant"] = reject
        pcol = frame["p_adjusted"]
    else:
        frame["significant"] = frame["p_value"] < sig_level
        pcol = frame["p_value"]
    frame["stars"] = np.select([pcol < 0.001, pcol < 0.01, pcol < 0.05], ["***", "**", "*"], "")
    frame.attrs.update(sig_level=sig_level, method=method, adjust=adjust)
    return Comparison(frame, groups, method, sig_level, adjust, group_name)


@dataclass(frozen=True, eq=False, repr=False)
class Comparison(Result):
    """Pairwise comparison of groups, from :meth:`BinaryFit.compare`.

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

    def to_frame(self) -> pd.DataFrame:
        """One row per pair.

        Returns
        -------
        DataFrame
            ``group_1, group_2, diff, std_error, prob_greater, statistic`` (z), ``p_value``,
            [``p_adjusted``,] ``significant``, ``stars``; ``sig_level``, ``method`` and
            ``adjust`` in ``attrs``.

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 7, "human_total": 10},
        ...                      "B": {"human_pos": 4, "human_total": 10}})
        >>> list(res.compare().to_frame().columns)[:5]
        ['group_1', 'group_2', 'diff', 'std_error', 'prob_greater']
        """
        out = self.table.copy()
        out.attrs.update(self.table.attrs)
        return out

    def matrix(self, value: str = "prob_greater") -> pd.DataFrame:
        """Square table over groups; cell (i, j) is the value for group i against group j.

        Parameters
        ----------
        value : str
            A column of :meth:`to_frame`.  ``prob_greater`` gives ``P(alpha_i > alpha_j)`` (the
            papers' table); ``diff`` and ``statistic`` are antisymmetric; ``p_value`` and
            ``significant`` are symmetric.

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
        pos = pd.Index(self.groups)
        i = pos.get_indexer(self.table["group_1"])
        j = pos.get_indexer(self.table["group_2"])
        n = len(self.groups)
        v = self.table[value].to_numpy()
        if value == "prob_greater":
            mirror = 1 - v
        elif value in ("diff", "statistic"):
            mirror = -v
        else:
            mirror = v
        vals = np.full((n, n), np.nan, dtype=object if value == "stars" else float)
        vals[i, j] = v
        vals[j, i] = mirror
        return pd.DataFrame(vals, index=pd.Index(self.groups, name="group_1"),
                            columns=pd.Index(self.groups, name="group_2"))

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
        info = {"method": _METHODS[self.method], "sig_level": self.sig_level,
                "adjustment": self.adjust or "none", "pairs": len(self.table),
                "significant pairs": int(self.table["significant"].sum()),
                "statistic": "z = (mean_1 - mean_2) / sqrt(var_1 + var_2)"}
        # one readable label per pair ("A vs B"); a two-level index would print as tuples
        pairs = self.table.assign(pair=self.table["group_1"].astype(str) + " vs "
                                  + self.table["group_2"].astype(str))
        pairs = pairs.drop(columns=["group_1", "group_2"]).set_index("pair")
        return Summary("Pairwise comparison of groups", info, [("pairs", pairs)])

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
        sns.heatmap(m, ax=ax, **opts)
        ax.set_title("P(alpha row > alpha column)" if value == "prob_greater" else value)
        return ax
