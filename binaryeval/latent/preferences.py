"""Preference ratings with an error-prone metric: :func:`fit_preferences` and :class:`PreferenceFit`.

For a pair of systems each item gets a human preference (first better, tie, second better) and
one from each metric.  The human preference is the latent truth (K = 3 classes with shares
``win_1``, ``tie``, ``win_2``); a metric's preference is its error-prone reading, with a 3 x 3
confusion matrix ``Theta`` per pair in the place of the binary model's ``rho`` and ``eta``
(Deriu, von Däniken, Tuggener and Cieliebak 2023, "Correction of Errors in Preference Ratings
from Automated Metrics for Text Generation", Findings of ACL).  Several metrics enter through
the joint pattern of their preferences (J = 3^R).  The answer per pair is the posterior of
``diff = win_1 - win_2`` and ``P(win_1 > win_2)``; the ranking of systems follows from the
pairwise posteriors, and the Favi-Score of the expected confusion matrix ``pi_c Theta[c, j]``
says whether the metric's errors favour one system (von Däniken et al. 2024).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._comparison import Comparison, compare_draws
from .._directions import read_lower_is_better
from .._pairs import orient_codes, orient_pair, pair_indices, system_order
from .._results import Result, excluded_rows, row_account, row_facts
from .._warnings import warn
from ..data import LeftOutRows, RowAccount, label_text, refuse_all_missing, refuse_number_forms
from ..errors import DataError, ParameterError, UnpairedItemsWarning
from ..favoritism.score import FAVI_WEIGHTS
from ..summary import Summary
from . import _common, _data, _fit, dependence
from ._ranking import _min_prob, plot_dag, ranking_graph
from .draws import DrawsPosterior
from .posterior import HIERARCHICAL_TEXT, LatentPosterior, build_model

if TYPE_CHECKING:  # names used only in type hints
    from collections.abc import Mapping

    import networkx as nx
    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike

__all__ = ["PreferenceFit", "fit_preferences"]

_K = 3


# ----------------------------------------------------------------------------------------------
# data -> counts
# ----------------------------------------------------------------------------------------------

def _scores_counts(parsed, frame, data: pd.DataFrame, item: str, lower_is_better: Any,
                   tolerance: Any) -> tuple[tuple[str, ...], np.ndarray, _data.Counts]:
    """Counts per system pair from scores per (item, system)."""
    terms = [*parsed.lhs_names, *parsed.rhs_names]
    lower = read_lower_is_better(lower_is_better, terms)
    tol = _data.tolerances(tolerance, terms)
    items = _data.column(data, item, "item")
    system = frame.group
    account = RowAccount(len(data))
    miss_sys, miss_item = system.isna().to_numpy(), items.isna().to_numpy()
    account.exclude("missing system", rows=miss_sys)
    account.exclude("missing item", rows=miss_item & ~miss_sys)
    values = {t: _data.numeric(frame.lhs[t] if t in frame.lhs else frame.rhs[t], t)
              * (-1.0 if t in lower else 1.0) for t in terms}
    unrated = np.all([np.isnan(x) for x in values.values()], axis=0)
    keep = ~miss_sys & ~miss_item
    account.exclude("no rating (every term missing)", rows=unrated & keep)
    keep &= ~unrated
    if not keep.any():
        raise DataError("no row has a system, an item and at least one rating")
    labels = label_text(system[keep])
    systems = system_order(labels.unique())
    s_codes = pd.Index(systems).get_indexer(labels)
    # items by their text, as systems (1 and "1" are one item: rows of two sources meet)
    i_codes, _ = pd.factorize(label_text(items[keep]), sort=False)
    n_sys, n_items = len(systems), int(i_codes.max()) + 1
    cell = i_codes.astype(np.int64) * n_sys + s_codes
    seen = np.bincount(cell, minlength=n_sys * n_items)
    if seen.max() > 1:
        j = int(np.argmax(seen))
        shown = items[keep].iloc[int(np.flatnonzero(i_codes == j // n_sys)[0])]
        raise DataError(f"item {_data.show(shown)} has more than one row for system "
                        f"{systems[j % n_sys]!r}; give one row per (item, system) (items and "
                        "systems are told apart by their text: 1 and '1' are one)")
    if n_sys < 2:
        raise DataError(f"the system column has one system ({list(systems)}); preferences "
                        "compare pairs of systems")
    # a row whose item no other system has enters no pair: left out, and said
    per_item = np.bincount(i_codes, minlength=n_items)
    alone = per_item[i_codes] < 2
    account.exclude("item rated for no other system (in no pair)",
                    rows=np.flatnonzero(keep)[alone])
    lonely = [systems[k] for k in range(n_sys)
              if np.any(s_codes == k) and alone[s_codes == k].all()]
    if lonely:
        warn(f"system(s) {', '.join(map(repr, lonely[:5]))} share no item with another "
             f"system (items are matched by their text in {item!r}): their pairs rest on "
             "the prior alone; check the item ids", UnpairedItemsWarning)
    grid = {}
    for t in terms:
        arr = np.full((n_sys, n_items), np.nan)
        arr[s_codes, i_codes] = values[t][keep]
        grid[t] = arr
    ia, ib = pair_indices(n_sys)
    cls = _data.classes_from_codes(_data.sign_codes(grid[terms[0]][ia], grid[terms[0]][ib],
                                                    tol[terms[0]]))
    parts = [_data.classes_from_codes(_data.sign_codes(grid[t][ia], grid[t][ib], tol[t]))
             for t in terms[1:]]
    counts = _pair_counts(np.repeat(np.arange(ia.size), n_items), cls.ravel(),
                          [p.ravel() for p in parts], ia.size, account)
    return tuple(str(s) for s in systems), np.column_stack([ia, ib]), counts


def _pair_counts(group, cls, parts, n_pairs, account: RowAccount) -> _data.Counts:
    levels = (_K,) * len(parts)
    out = _data.joint_index(parts, levels)
    n, h, m, naive = _data.tally(group, cls, out, parts[0], n_pairs, _K, _K ** len(parts), _K)
    partial = int(((np.stack(parts) >= 0).any(axis=0) & (out < 0)).sum()) if len(parts) > 1 else 0
    counts = _data.Counts(n, h, m, naive, account)
    if partial:
        counts.notes.append(f"{partial} item-pair combinations rated by some metrics only: their "
                            "metric ratings are not used")
    return counts


def _preference_counts(parsed, frame, data: pd.DataFrame, first: str, second: str
                       ) -> tuple[tuple[str, ...], np.ndarray, _data.Counts]:
    """Counts per system pair from ready preferences with the two systems named per row."""
    sa = _data.column(data, first, "first")
    sb = _data.column(data, second, "second")
    account = RowAccount(len(data))
    miss = (sa.isna() | sb.isna()).to_numpy()
    account.exclude("missing system", rows=miss)
    codes = [_data.preference_codes(frame.lhs.iloc[:, 0], parsed.lhs_names[0], "human preference")]
    codes += [_data.preference_codes(frame.rhs[t], t, "metric preference") for t in parsed.rhs_names]
    unrated = np.all([np.isnan(c) for c in codes], axis=0) & ~miss
    account.exclude("no rating (every term missing)", rows=unrated)
    keep = ~miss & ~unrated
    if not keep.any():
        raise DataError("no row has both systems and at least one rating")
    a = label_text(sa[keep]).to_numpy()
    b = label_text(sb[keep]).to_numpy()
    refuse_number_forms([(first, pd.api.types.is_float_dtype(sa), a),
                         (second, pd.api.types.is_float_dtype(sb), b)])
    same = a == b
    if same.any():
        raise DataError(f"a row compares system {a[np.argmax(same)]!r} with itself; each row "
                        f"needs two different systems in {first!r} and {second!r}")
    systems = system_order(set(a) | set(b))
    idx = {s: i for i, s in enumerate(systems)}
    ia = np.fromiter((idx[s] for s in a), dtype=np.int64, count=a.size)
    ib = np.fromiter((idx[s] for s in b), dtype=np.int64, count=b.size)
    lo, hi, swapped = orient_codes(ia, ib)
    flip = np.where(swapped, -1.0, 1.0)
    key = lo * len(systems) + hi
    present, group = np.unique(key, return_inverse=True)
    cls = _data.classes_from_codes(codes[0][keep] * flip)
    parts = [_data.classes_from_codes(c[keep] * flip) for c in codes[1:]]
    counts = _pair_counts(group, cls, parts, present.size, account)
    pairs = np.column_stack([present // len(systems), present % len(systems)])
    return systems, pairs, counts


# ----------------------------------------------------------------------------------------------
# the result
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False, repr=False)
class PreferenceFit(Result):
    """Corrected preference rates per system pair (returned by :func:`fit_preferences`).

    It answers what :class:`~binaryeval.BinaryFit` answers, pair by pair: ``to_frame()`` (indexed
    by ``group_1``, ``group_2``), ``compare()``, ``posterior(group_1, group_2)``, ``rates()``,
    ``naive()``, ``plan()``, ``ranking()``, with the systems in the fit's ``order``.

    Attributes
    ----------
    systems : tuple of str
        The systems, in natural order (the order of every pair: ``group_1`` comes first).
    pair_index : ndarray (pairs, 2)
        Indices into ``systems`` of ``group_1`` and ``group_2`` of every pair.
    latent : LatentPosterior
        The draws; classes ``first``, ``tie``, ``second`` (first system better, tie, second
        better), metric outputs the (joint) metric preferences.
    naive_counts : ndarray (pairs, 3)
        The first metric's preferences over every item it rated.
    order : tuple of str
        The systems in display order (``order=`` of the fit; by default by their mean ``diff``
        against the others, over the pairs the data say something about).

    Examples
    --------
    >>> from binaryeval import fit_preferences
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> quality = {"A": 0.3, "B": 0.0, "C": -0.3}
    >>> rows = [{"item": i, "system": s, "human": q + rng.normal(),
    ...          "metric": q + rng.normal()} for i in range(300) for s, q in quality.items()]
    >>> df = pd.DataFrame(rows)
    >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rate the first 60 items only
    >>> res = fit_preferences("human ~ metric | system", df, item="item", seed=1)
    >>> res
    PreferenceFit(systems=3, pairs=3, metrics=1, n_rows=900, chains=4, draws=1000)
    >>> row = res.to_frame().loc[("A", "B")]
    >>> int(row["n_paired"]), int(row["n_metric"])
    (60, 240)
    """

    formula: str
    systems: tuple[str, ...]
    pair_index: np.ndarray
    latent: LatentPosterior
    human_term: str
    metric_terms: tuple[str, ...]
    naive_counts: np.ndarray
    input: str = "scores"
    level: float = 0.95
    n_rows: int = 0
    excluded: dict = field(default_factory=dict)
    tolerance: dict = field(default_factory=dict)
    lower_is_better: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    call: dict = field(default_factory=dict)
    order: tuple[str, ...] = ()
    _left_out: LeftOutRows | None = field(default=None, repr=False, compare=False)

    # -- access -----------------------------------------------------------------------------------
    @property
    def excluded_rows(self) -> pd.Series:
        """The rows left out: the reason of each, indexed by the data's own row labels.

        In data order, the index name kept; the reasons are the keys of ``excluded`` and
        ``excluded_rows.value_counts()`` equals it.  Empty when no row was left out.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import binaryeval as be
        >>> rng = np.random.default_rng(0)
        >>> z = np.array([0.3, 0.0, -0.3])[:, None, None] + rng.normal(size=(3, 200, 2))
        >>> df = pd.DataFrame({"item": np.tile(np.arange(200), 3),
        ...                    "system": np.repeat(["A", "B", "C"], 200),
        ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
        >>> df.loc[df["item"] >= 50, "human"] = np.nan   # humans rate the first 50 items
        >>> df.loc[3, "system"] = None
        >>> df.loc[4, ["human", "metric"]] = np.nan
        >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
        >>> res.excluded_rows
        3                     missing system
        4    no rating (every term missing)
        Name: reason, dtype: object
        """
        return excluded_rows(self._left_out)

    @property
    def n_pairs(self) -> int:
        """Number of system pairs."""
        return int(self.pair_index.shape[0])

    @property
    def n_used(self) -> int:
        """Rows used (``n_rows - n_excluded``)."""
        return self.n_rows - self.n_excluded

    @property
    def n_excluded(self) -> int:
        """Rows left out (reasons in ``excluded``)."""
        return int(sum(self.excluded.values()))

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """The pairs as ``(group_1, group_2)`` names."""
        return [(self.systems[a], self.systems[b]) for a, b in self.pair_index]

    @property
    def _shown(self) -> list[str]:
        return list(self.order) if self.order else list(self.systems)

    def _labels(self) -> list[str]:
        return [_common.label_pair(a, b) for a, b in self.pairs]

    def _pair_index(self) -> pd.MultiIndex:
        return pd.MultiIndex.from_tuples(self.pairs, names=["group_1", "group_2"])

    def _diff_draws(self) -> np.ndarray:
        pi = self.latent.draws.pi
        return pi[..., 0] - pi[..., 2]

    def _position(self, group_1: str, group_2: str) -> tuple[int, float]:
        """Position of the pair in ``pairs`` and +1, or -1 when it is stored the other way round."""
        try:
            a, b, swapped = orient_pair(group_1, group_2)
        except ValueError:
            a, b, swapped = None, None, False
        for i, pair in enumerate(self.pairs):
            if pair == (a, b):
                return i, -1.0 if swapped else 1.0
        raise ParameterError(f"the pair ({group_1!r}, {group_2!r}) is not in the fit; systems "
                             f"are {list(self.systems)}")

    @v.renamed(system_1="group_1", system_2="group_2")
    def pair_draws(self, group_1: str, group_2: str) -> pd.DataFrame:
        """Posterior draws of one pair, oriented as asked: ``win_1``, ``tie``, ``win_2``, ``diff``.

        Parameters
        ----------
        group_1, group_2 : str
            The pair; swapping them swaps ``win_1`` and ``win_2``.

        Returns
        -------
        DataFrame
            One row per draw (chains stacked), with a ``chain`` column.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> rng = np.random.default_rng(0)
        >>> quality = np.array([0.3, 0.0, -0.3])  # systems A, B, C; 300 items each
        >>> z = quality[:, None] + rng.normal(size=(300, 3, 2))
        >>> df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
        ...                    "system": np.tile(["A", "B", "C"], 300),
        ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
        >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rated the first 60 items
        >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
        >>> d = res.pair_draws("B", "A")
        >>> bool((d["win_1"] - d["win_2"] == d["diff"]).all())
        True
        """
        i, sign = self._position(group_1, group_2)
        pi = self.latent.draws.pi[:, :, i]
        c, n, _ = pi.shape
        first, second = (pi[..., 0], pi[..., 2]) if sign > 0 else (pi[..., 2], pi[..., 0])
        return pd.DataFrame({"chain": np.repeat(np.arange(c), n), "win_1": first.ravel(),
                             "tie": pi[..., 1].ravel(), "win_2": second.ravel(),
                             "diff": (first - second).ravel()})

    def posterior(self, group_1: str | None = None, group_2: str | None = None
                  ) -> DrawsPosterior:
        """Posterior of ``diff = win_1 - win_2`` for one pair, oriented as asked.

        Parameters
        ----------
        group_1, group_2 : str, optional
            The pair (may be omitted when the fit has one pair); swapping them changes the sign.

        Returns
        -------
        DrawsPosterior

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> rng = np.random.default_rng(0)
        >>> quality = np.array([0.3, 0.0, -0.3])  # systems A, B, C; 300 items each
        >>> z = quality[:, None] + rng.normal(size=(300, 3, 2))
        >>> df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
        ...                    "system": np.tile(["A", "B", "C"], 300),
        ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
        >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rated the first 60 items
        >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
        >>> round(res.posterior("A", "B").mean() + res.posterior("B", "A").mean(), 12)
        0.0
        """
        if group_1 is None and group_2 is None:
            if self.n_pairs != 1:
                raise ParameterError(f"name a pair: group_1 and group_2, two of "
                                     f"{list(self.systems)}")
            group_1, group_2 = self.pairs[0]
        if group_1 is None or group_2 is None:
            raise ParameterError("name both systems of the pair: group_1 and group_2")
        i, sign = self._position(group_1, group_2)
        return DrawsPosterior(sign * self._diff_draws()[..., i], "diff",
                              _common.label_pair(group_1, group_2), source=id(self.latent))

    # -- what the data cannot say -----------------------------------------------------------------
    def _prior_sd(self) -> float:
        conc = self.latent.share_concentration
        conc = np.asarray(conc, dtype=float)
        return _common.prior_sd_share(conc[0] if conc.ndim > 1 else conc, 0, 2)

    def _dominated(self) -> np.ndarray:
        flat = self._diff_draws().reshape(-1, self.n_pairs)
        return _fit.prior_dominated(flat.std(axis=0, ddof=1), self._prior_sd())

    def prior_dominated(self) -> list[tuple[str, str]]:
        """The pairs whose posterior of ``diff`` is essentially the prior (see :meth:`to_frame`).

        Returns
        -------
        list of (str, str)

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> rng = np.random.default_rng(0)
        >>> quality = np.array([0.3, 0.0, -0.3])  # systems A, B, C; 300 items each
        >>> z = quality[:, None] + rng.normal(size=(300, 3, 2))
        >>> df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
        ...                    "system": np.tile(["A", "B", "C"], 300),
        ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
        >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rated the first 60 items
        >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
        >>> res.prior_dominated()
        []
        """
        return [p for p, d in zip(self.pairs, self._dominated(), strict=True) if d]

    def _system_scores(self) -> dict[str, float]:
        """Each system's mean ``diff`` against the others.

        Over the pairs that are not prior-dominated (NaN when every pair of the system is).
        """
        d = self._diff_draws().reshape(-1, self.n_pairs).mean(axis=0)
        dominated = self._dominated()
        sums = {s: [] for s in self.systems}
        for (a, b), x, dom in zip(self.pairs, d, dominated, strict=True):
            if not dom:
                sums[a].append(x)
                sums[b].append(-x)
        return {s: float(np.mean(v_)) if v_ else float("nan") for s, v_ in sums.items()}

    # -- tables -----------------------------------------------------------------------------------
    def interval(self, level: float | None = None, kind: str = "eti") -> pd.DataFrame:
        """Credible intervals of ``diff = win_1 - win_2`` per pair: columns ``lower``, ``upper``.

        Parameters
        ----------
        level : float, optional
            Coverage (default: the fit's ``level``).
        kind : {"eti", "hdi"}
            Equal-tailed or highest-density interval.

        Returns
        -------
        DataFrame
            Indexed by (group_1, group_2); ``attrs`` hold ``level`` and ``kind``.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> rng = np.random.default_rng(0)
        >>> quality = np.array([0.3, 0.0, -0.3])  # systems A, B, C; 300 items each
        >>> z = quality[:, None] + rng.normal(size=(300, 3, 2))
        >>> df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
        ...                    "system": np.tile(["A", "B", "C"], 300),
        ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
        >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rated the first 60 items
        >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
        >>> res.interval(0.5).shape
        (3, 2)
        """
        level = self.level if level is None else level
        return _common.interval_frame(self._diff_draws(), level, kind, self._pair_index())

    def to_frame(self, level: float | None = None, kind: str = "eti") -> pd.DataFrame:
        """One row per system pair, indexed by ``group_1``, ``group_2``.

        Parameters
        ----------
        level : float, optional
            Probability of the credible intervals (default: the fit's level; in ``attrs``).
        kind : {"eti", "hdi"}
            Equal-tailed or highest-density intervals.

        Returns
        -------
        DataFrame
            ``n_human`` (human ratings informing the shares, paired included), ``n_paired``,
            ``n_metric`` (metric-only); the posterior means ``win_1``, ``tie``, ``win_2``;
            ``diff`` (mean of ``win_1 - win_2``), ``std_error`` (its posterior sd),
            ``lower``/``upper`` (credible interval at ``level``), ``prob_greater``
            (``P(win_1 > win_2)``); ``naive_diff`` (the first metric's share of first-better
            minus second-better over every item it rated); with one metric ``favi``,
            ``favi_lower``, ``favi_upper`` (the Favi-Score of ``pi_c Theta[c, j]``; missing for a
            pair the metric did not rate);
            ``n_eff`` (human ratings alone that would give this posterior sd of ``diff``);
            ``prior_dominated`` (the posterior sd of ``diff`` is at least 0.75 of the
            prior's: the data say little about the pair); and the sampler diagnostics of
            ``diff``: ``rhat``, ``ess_bulk``, ``ess_tail``.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> rng = np.random.default_rng(0)
        >>> quality = np.array([0.3, 0.0, -0.3])  # systems A, B, C; 300 items each
        >>> z = quality[:, None] + rng.normal(size=(300, 3, 2))
        >>> df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
        ...                    "system": np.tile(["A", "B", "C"], 300),
        ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
        >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rated the first 60 items
        >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
        >>> list(res.to_frame().columns)[:6]
        ['n_human', 'n_paired', 'n_metric', 'win_1', 'tie', 'win_2']
        """
        level = self.level if level is None else v.level(level)
        post = self.latent
        pi = post.draws.pi.reshape(-1, self.n_pairs, _K).mean(axis=0)
        diff = self._diff_draws()
        s = _common.summarise(diff, level)
        iv = _common.interval_frame(diff, level, kind, self._pair_index())
        n_paired = post.paired.sum(axis=(1, 2))
        n_human = post.human.sum(axis=1) + (n_paired if post.paired_informs_pi else 0)
        naive = self.naive_counts
        with np.errstate(invalid="ignore", divide="ignore"):
            naive_diff = (naive[:, 0] - naive[:, 2]) / naive.sum(axis=1)
        per_item = pi[:, 0] + pi[:, 2] - (pi[:, 0] - pi[:, 2]) ** 2
        conc = np.asarray(post.share_concentration, dtype=float)
        c0 = float((conc[0] if conc.ndim > 1 else conc).sum())
        out = pd.DataFrame({
            "n_human": n_human.astype(int), "n_paired": n_paired.astype(int),
            "n_metric": post.metric.sum(axis=1).astype(int),
            "win_1": pi[:, 0], "tie": pi[:, 1], "win_2": pi[:, 2],
            "diff": s["estimate"], "std_error": s["std_error"],
            "lower": iv["lower"].to_numpy(), "upper": iv["upper"].to_numpy(),
            "prob_greater": (diff > 0).mean(axis=(0, 1)), "naive_diff": naive_diff},
            index=self._pair_index())
        if len(self.metric_terms) == 1 and post.draws.theta is not None:
            fv = self.favi(level=level)
            # a pair the metric never rated has no Favi-Score (its Theta is the prior's)
            rated = (n_paired + post.metric.sum(axis=1)) > 0
            for col, src in (("favi", "estimate"), ("favi_lower", "lower"),
                             ("favi_upper", "upper")):
                out[col] = np.where(rated, fv[src].to_numpy(), np.nan)
        out["n_eff"] = _common.effective_human(per_item, s["std_error"] ** 2, c0)
        out["prior_dominated"] = _fit.prior_dominated(s["std_error"], self._prior_sd())
        out["rhat"] = s["rhat"]
        out["ess_bulk"] = s["ess_bulk"]
        out["ess_tail"] = s["ess_tail"]
        out.attrs.update(level=level, kind=kind, method=post.method, rates=post.rates,
                         naive_basis=f"metric {self.metric_terms[0]!r}, every item it rated",
                         order=self._shown,
                         # prob_greater is a share of these draws (shown no finer than 1/n)
                         n_draws=int(diff.shape[0] * diff.shape[1]))
        out.attrs.update(row_account(self))
        return out

    def naive(self, level: float | None = None) -> pd.DataFrame:
        """Uncorrected preferences of the first metric per pair (every item it rated).

        The metric's preferences count as if they were the humans': ``win_1``, ``tie``,
        ``win_2`` are its shares and ``estimate`` their difference ``win_1 - win_2``, with the
        posterior sd and equal-tailed interval of that difference under a Dirichlet(1, 1, 1)
        prior (exact, by quadrature over ``win_1 + win_2``).

        Parameters
        ----------
        level : float, optional
            Probability of the interval (default: the fit's level).

        Returns
        -------
        DataFrame
            Indexed by (group_1, group_2).

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> rng = np.random.default_rng(0)
        >>> quality = np.array([0.3, 0.0, -0.3])  # systems A, B, C; 300 items each
        >>> z = quality[:, None] + rng.normal(size=(300, 3, 2))
        >>> df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
        ...                    "system": np.tile(["A", "B", "C"], 300),
        ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
        >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rated the first 60 items
        >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
        >>> nv = res.naive()
        >>> int(nv["n_metric_all"].iloc[0])
        300
        """
        level = self.level if level is None else v.level(level)
        c = np.asarray(self.naive_counts, dtype=float)
        n = c.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            shares = c / n[:, None]
        a = c + 1.0
        a0 = a.sum(axis=1)
        var = (a[:, 0] * (a0 - a[:, 0]) + a[:, 2] * (a0 - a[:, 2]) + 2 * a[:, 0] * a[:, 2]) / (
            a0 ** 2 * (a0 + 1))
        bounds = np.array([dirichlet_diff_interval(*row, level) for row in a])
        out = pd.DataFrame({"n_metric_all": n.astype(int), "win_1": shares[:, 0],
                            "tie": shares[:, 1], "win_2": shares[:, 2],
                            "estimate": shares[:, 0] - shares[:, 2], "std_error": np.sqrt(var),
                            "lower": bounds[:, 0], "upper": bounds[:, 1]},
                           index=self._pair_index())
        out.attrs.update(level=level, kind="eti", term=self.metric_terms[0],
                         method="the metric's preferences counted as the humans' (uncorrected)")
        return out

    def rates(self, level: float | None = None) -> pd.DataFrame:
        """The model's posterior of the metric's confusion matrix ``Theta`` per pair.

        One row per (pair, human class, metric output): ``P(metric output | human preference)``
        from the draws of the whole model (paired and metric-only items), not from the paired
        items alone; ``n_paired`` is the pair's paired count in that cell.  Pooled rates repeat
        the one matrix for every pair; known rates have no spread.

        Parameters
        ----------
        level : float, optional
            Probability of the intervals (default: the fit's level).

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> rng = np.random.default_rng(0)
        >>> quality = np.array([0.3, 0.0, -0.3])  # systems A, B, C; 300 items each
        >>> z = quality[:, None] + rng.normal(size=(300, 3, 2))
        >>> df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
        ...                    "system": np.tile(["A", "B", "C"], 300),
        ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
        >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rated the first 60 items
        >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
        >>> r = res.rates()
        >>> r.index.names
        FrozenList(['group_1', 'group_2', 'class', 'metric_output'])
        >>> round(float(r.loc[("A", "B", "first")]["estimate"].sum()), 6)
        1.0
        """
        level = self.level if level is None else v.level(level)
        return _fit.rates_frame(self.latent, self.pairs, ["group_1", "group_2"], level)

    def favi(self, term: str | None = None, level: float | None = None) -> pd.DataFrame:
        """The Favi-Score implied by the model per pair, with its posterior interval.

        The expected confusion matrix of the metric ``term`` against the human preferences is
        ``C[c, j] = pi_c Theta_term[c, j]`` (``Theta_term`` the margin of ``Theta`` over the
        other metrics); its Favi-Score ``sum(W * C) / sum(off-diagonal C)`` (``W`` =
        :data:`binaryeval.FAVI_WEIGHTS`) is positive when the metric's disagreements favour
        ``group_1``.

        Parameters
        ----------
        term : str, optional
            The metric (default: the first metric term).
        level : float, optional
            Coverage of the interval (default: the fit's ``level``).

        Returns
        -------
        DataFrame
            ``estimate`` (posterior mean), ``std_error``, ``lower``, ``upper`` per pair.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> rng = np.random.default_rng(0)
        >>> quality = np.array([0.3, 0.0, -0.3])  # systems A, B, C; 300 items each
        >>> z = quality[:, None] + rng.normal(size=(300, 3, 2))
        >>> df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
        ...                    "system": np.tile(["A", "B", "C"], 300),
        ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
        >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rated the first 60 items
        >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
        >>> fv = res.favi()
        >>> bool(fv["lower"].le(fv["estimate"]).all())
        True
        """
        level = self.level if level is None else v.level(level)
        score = self._favi_draws(term)
        s = _common.summarise(score, level)
        out = pd.DataFrame({k: s[k] for k in ("estimate", "std_error", "lower", "upper")},
                           index=self._pair_index())
        out.attrs.update(level=level, kind="eti", term=term or self.metric_terms[0])
        return out

    def _favi_draws(self, term: str | None = None) -> np.ndarray:
        """Favi-Score of ``pi_c Theta_term[c, j]`` for every draw: (chains, draws, pairs)."""
        term = self.metric_terms[0] if term is None else term
        if term not in self.metric_terms:
            raise ParameterError(f"term={term!r} is not a metric of the fit; the metrics are "
                                 f"{list(self.metric_terms)}")
        theta = self.latent.draws.theta
        if theta is None:
            raise ParameterError("known rates: the Favi-Score of the known matrices has no "
                                 "posterior; compute it with binaryeval.favi_score")
        r = self.metric_terms.index(term)
        lv = (_K,) * len(self.metric_terms)
        full = theta.astype(float).reshape(*theta.shape[:-1], *lv)
        other = tuple(full.ndim - len(lv) + s for s in range(len(lv)) if s != r)
        marg = full.sum(axis=other) if other else full
        if marg.shape[2] != self.n_pairs:  # pooled rates: one matrix for every pair
            marg = np.broadcast_to(marg, (*marg.shape[:2], self.n_pairs, _K, _K))
        conf = self.latent.draws.pi[..., None] * marg  # (C, D, P, 3, 3)
        weights = np.asarray(FAVI_WEIGHTS, dtype=float)
        num = np.einsum("cdpij,ij->cdp", conf, weights)
        off = conf.sum(axis=(3, 4)) - np.trace(conf, axis1=3, axis2=4)
        return num / off

    def compare(self, method: str = "bayes", *, sig_level: float | None = None,
                adjust: str | None = None,
                order: str | Sequence[str] | None = None) -> Comparison:
        """The pairs as a comparison of systems: ``P(humans prefer group_1 over group_2)``.

        Each pair of the fit is one row (oriented as in :meth:`to_frame`): ``diff`` is the
        posterior mean of ``win_1 - win_2`` with its ``std_error`` and credible interval
        ``lower``/``upper``, ``prob_greater`` = ``P(win_1 > win_2)``; ``prior_dominated`` marks
        the pairs the data say little about.  :meth:`Comparison.matrix` lays it out over the
        systems (in the fit's order); pairs without data are missing.

        Parameters
        ----------
        method : {"bayes", "z"}
            Which p-value decides ``significant`` (see :meth:`BinaryFit.compare`).
        sig_level : float, optional
            Significance threshold (default ``1 - level`` of the fit).
        adjust : str, optional
            A statsmodels ``multipletests`` method applied over all pairs.
        order : "estimate", "input" or list of str, optional
            Order of the systems in the matrix (default: the fit's order).

        Returns
        -------
        Comparison

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> rng = np.random.default_rng(0)
        >>> quality = np.array([0.3, 0.0, -0.3])  # systems A, B, C; 300 items each
        >>> z = quality[:, None] + rng.normal(size=(300, 3, 2))
        >>> df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
        ...                    "system": np.tile(["A", "B", "C"], 300),
        ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
        >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rated the first 60 items
        >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
        >>> m = res.compare().matrix()
        >>> round(float(m.loc["A", "B"] + m.loc["B", "A"]), 6)
        1.0
        """
        sig = v.sig_level_or(sig_level, self.level)
        shown = self._shown if order is None else list(self._order_of(order))
        comp = compare_draws(self._diff_draws(), self.pairs, groups=shown, method=method,
                             sig_level=sig, adjust=adjust, level=self.level,
                             group_name="system",
                             quantity="P(humans prefer group_1 over group_2)")
        comp.table["prior_dominated"] = self._dominated()
        return comp

    def _order_of(self, order: Any) -> tuple[str, ...]:
        scores = self._system_scores()
        unknown = [s for s, x in scores.items() if not np.isfinite(x)]
        score = {s: (x if np.isfinite(x) else -np.inf) for s, x in scores.items()}
        return _common.resolve_order(order, self.systems, score, last=unknown)

    @v.renamed(threshold="min_prob")
    def ranking(self, min_prob: float = 0.95, *, include_prior_dominated: bool = False) -> nx.DiGraph:
        """Systems ranked by the pairwise posteriors: a DAG of confident wins (networkx).

        An edge ``a -> b`` means ``P(a preferred over b) >= min_prob``; transitive edges are
        removed (as in :meth:`binaryeval.FaviResult.ranking`).  Node attributes: ``mean_diff``
        (mean ``diff`` against the others, over the pairs kept); edge attribute ``prob``.  When
        the confident wins contain a cycle the full graph is returned with ``graph["reduced"] =
        False``.  Pairs whose posterior is essentially the prior are left out (and systems with
        no other pair; ``graph["left_out"]`` lists them) unless asked.

        Parameters
        ----------
        min_prob : float
            Posterior probability a win needs (0.5 < min_prob < 1).
        include_prior_dominated : bool
            Keep the pairs whose posterior is essentially the prior.

        Returns
        -------
        networkx.DiGraph

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> rng = np.random.default_rng(0)
        >>> quality = np.array([0.3, 0.0, -0.3])  # systems A, B, C; 300 items each
        >>> z = quality[:, None] + rng.normal(size=(300, 3, 2))
        >>> df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
        ...                    "system": np.tile(["A", "B", "C"], 300),
        ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
        >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rated the first 60 items
        >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
        >>> g = res.ranking(0.9)
        >>> sorted(g.nodes)
        ['A', 'B', 'C']
        """
        min_prob = _min_prob(min_prob)
        keep_all = v.flag(include_prior_dominated, "include_prior_dominated")
        comp = self.compare()
        table = comp.table
        if not keep_all:
            table = table[~table["prior_dominated"].to_numpy(dtype=bool)]
        present = set(table["group_1"]) | set(table["group_2"])
        kept = [s for s in self._shown if s in present]
        left_out = [s for s in self._shown if s not in present]
        prob = Comparison(table, kept, comp.method, comp.sig_level, comp.adjust,
                          comp.group_name).matrix()
        scores = self._system_scores()
        prob.attrs["mean_diff"] = {s: scores[s] for s in kept}
        g = ranking_graph(prob, min_prob)
        g.graph["left_out"] = left_out
        return g

    def _win_rates(self, shares: np.ndarray) -> np.ndarray:
        """Each system's average win rate ``mean_b (win(a over b) + tie / 2)``.

        Over the pairs it is in, from shares ``(..., pairs, 3)``: ``(..., systems)`` (NaN
        without a pair; pairs with missing shares left out).
        """
        k = len(self.systems)
        first = shares[..., 0] + 0.5 * shares[..., 1]   # group_1's half-tie win rate
        total = np.zeros((*shares.shape[:-2], k))
        n = np.zeros((*shares.shape[:-2], k))
        for i, (a, b) in enumerate(self.pair_index):
            x = first[..., i]
            ok = np.isfinite(x)
            total[..., a] += np.where(ok, x, 0.0)
            total[..., b] += np.where(ok, 1.0 - x, 0.0)
            n[..., a] += ok
            n[..., b] += ok
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, total / np.maximum(n, 1), np.nan)

    def ranks(self, level: float | None = None, *, n_resamples: int | None = None,
              seed: int | None = None):
        """Posterior ranks of the systems by their average win rate, with rank intervals.

        The score of a system is its *average win rate*: over every system it is paired with in
        the fit, the share of items the humans prefer its output, ties counted half
        (``win + tie / 2``), averaged over those opponents with equal weight; 0.5 is an even
        record.  It is computed in every posterior draw from the same draws as :meth:`to_frame`,
        so ``P(rank = r)`` are shares of draws and the rank intervals hold for every system at
        once with posterior probability >= ``level`` (:mod:`binaryeval._ranks`).  Pairs whose
        posterior is essentially the prior are kept: their uncertainty widens the intervals
        rather than being left out.  The naive score is the same average from the first
        metric's preferences alone.

        Parameters
        ----------
        level : float, optional
            Joint posterior probability of the rank intervals (default: the fit's level).
        n_resamples, seed : None
            Taken for the same call as :meth:`binaryeval.BinaryFit.ranks` and refused when
            given: the ranks are those of the sampler's own draws (their number and seed
            are the fit's ``draws``, ``chains`` and ``seed``), nothing is drawn anew.

        Returns
        -------
        Ranks

        Warns
        -----
        BinaryEvalWarning
            When the systems have different sets of opponents in the fit (ready preferences
            with some pairs never compared): their average win rates are then taken over
            different opponents.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> rng = np.random.default_rng(0)
        >>> quality = np.array([0.3, 0.0, -0.3])  # systems A, B, C; 300 items each
        >>> z = quality[:, None] + rng.normal(size=(300, 3, 2))
        >>> df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
        ...                    "system": np.tile(["A", "B", "C"], 300),
        ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
        >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rated the first 60 items
        >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
        >>> res.ranks().to_frame()["rank"].tolist()
        [1, 2, 3]
        """
        from .._ranks import ranks_from_draws
        from .._warnings import warn
        from ..errors import BinaryEvalWarning

        _common.refuse_resampling(n_resamples, seed, self.latent)
        level = self.level if level is None else v.level(level)
        post = self.latent
        score = self._win_rates(post.draws.pi).reshape(-1, len(self.systems))
        c = np.asarray(self.naive_counts, dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            naive = self._win_rates(c / c.sum(axis=1, keepdims=True))
        opponents = np.bincount(self.pair_index.ravel(), minlength=len(self.systems))
        notes = []
        if (opponents < len(self.systems) - 1).any():
            few = [f"{s} ({n})" for s, n in zip(self.systems, opponents, strict=True)
                   if n < len(self.systems) - 1]
            text = (f"{len(few)} systems were not compared with every other one "
                    f"(opponents: {', '.join(few[:8])}); their average win rates are over "
                    "different opponents, so the ranks compare them on different terms: "
                    "compare every pair on some items")
            notes.append(text)
            warn(text, BinaryEvalWarning)
        if not np.isfinite(score).all():
            from ..errors import DataError
            raise DataError("a system has no pair in the fit; its average win rate is undefined")
        # ranks from one confusion matrix for all pairs are only as good as that matrix: a judge
        # that favours one system (longer answers) breaks it, and the ranks say what the check
        # before pooling found, as the fit's summary does
        pooled = _fit.pooling_note(post, self.pooling_check(), "pairs") \
            if post.rates == "pooled" else None
        if pooled:
            notes.append(pooled)
        return ranks_from_draws(
            score, self.systems, naive, level=level,
            ranked="average win rate (win + tie / 2 against each opponent, opponents weighted "
                   "equally)",
            method=f"{post.n_chains} x {post.n_draws} draws of the sampler ({post.method})",
            seed=post.seed, group_name="system", notes=notes, chains=post.n_chains)

    def dependence(self) -> pd.DataFrame:
        """Check of conditional dependence of the metrics on the paired items (several metrics).

        Returns
        -------
        DataFrame
            ``n_paired`` and ``log10_bf`` (joint over independent) per pair; ``attrs`` hold
            the overall ``log10_bf`` and the ``verdict``.  See
            :mod:`binaryeval.latent.dependence`.

        Examples
        --------
        >>> from binaryeval import fit_preferences
        >>> import numpy as np, pandas as pd
        >>> df = pd.DataFrame({"a": ["x"] * 40, "b": ["y"] * 40,
        ...                    "h": np.tile([1, 0, -1, 1], 10), "m": np.tile([1, 0, -1, 0], 10)})
        >>> df["m2"] = df["m"]
        >>> res = fit_preferences("h ~ m + m2", df, first="a", second="b", draws=2000, seed=0)
        >>> res.dependence().attrs["verdict"]
        'conditional dependence: use dependence="joint"'
        """
        if len(self.metric_terms) < 2:
            raise ParameterError("the dependence check compares metrics: the fit has one")
        post = self.latent
        out = dependence.check(post.paired, (_K,) * len(self.metric_terms), self._labels(),
                               pooled=post.rates == "pooled")
        out.index.name = "pair"
        return out

    def pooling_check(self) -> pd.DataFrame:
        """Check before pooling: whether one confusion matrix fits every pair's paired items.

        An exact conditional test of homogeneity of the pairs' paired confusion counts (per
        human preference, the pairs' counts of the metric's preferences; see
        :mod:`binaryeval._pooling`).  ``rates="pooled"`` runs it and warns when it fails
        (:class:`~binaryeval.errors.PoolingWarning`); it answers for any fit.

        Returns
        -------
        DataFrame
            Per pair: ``n_paired`` and the pair-against-the-rest ``statistic``, ``df`` and
            approximate ``p_value``; ``attrs`` hold the test's ``statistic``, ``p_value``,
            ``sig_level``, ``verdict`` and ``method``.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> rng = np.random.default_rng(0)
        >>> quality = np.array([0.3, 0.0, -0.3])  # systems A, B, C; 300 items each
        >>> z = quality[:, None] + rng.normal(size=(300, 3, 2))
        >>> df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
        ...                    "system": np.tile(["A", "B", "C"], 300),
        ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
        >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rated the first 60 items
        >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
        >>> bool(res.pooling_check().attrs["p_value"] > 0.01)
        True
        """
        out = _fit.pooling_check(self.latent, self._labels())
        out.index.name = "pair"
        return out

    # -- display ----------------------------------------------------------------------------------
    def _repr_fields(self) -> dict[str, Any]:
        return {"systems": len(self.systems), "pairs": self.n_pairs,
                "metrics": len(self.metric_terms), "n_rows": self.n_rows,
                "chains": self.latent.n_chains, "draws": self.latent.n_draws}

    def summary(self, level: float | None = None) -> Summary:
        """Facts of the fit and the table of pairs.

        Parameters
        ----------
        level : float, optional
            Probability of the credible intervals (default: the fit's level).

        Returns
        -------
        Summary

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> rng = np.random.default_rng(0)
        >>> quality = np.array([0.3, 0.0, -0.3])  # systems A, B, C; 300 items each
        >>> z = quality[:, None] + rng.normal(size=(300, 3, 2))
        >>> df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
        ...                    "system": np.tile(["A", "B", "C"], 300),
        ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
        >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rated the first 60 items
        >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
        >>> print(res.summary().title)
        Preference ratings corrected for metric errors
        """
        level = self.level if level is None else v.level(level)
        frame = self.to_frame(level)
        pct = f"{100 * level:g}%"
        show = frame.set_index(pd.Index(self._labels(), name="pair")).drop(
            columns=["win_1", "tie", "win_2", "n_eff"])
        show[["ess_bulk", "ess_tail"]] = show[["ess_bulk", "ess_tail"]].round().astype("Int64")
        show.attrs = dict(frame.attrs)   # (n_draws: how finely prob_greater is known)
        post = self.latent
        info: dict[str, Any] = {
            "formula": self.formula,
            "input": ("scores per (item, system)" if self.input == "scores"
                      else "preferences per row (two system columns)"),
            "systems": len(self.systems), "pairs": self.n_pairs,
            **row_facts(self), "metrics": ", ".join(self.metric_terms)}
        if self.input == "scores":
            info["tolerance"] = ", ".join(f"{k}: {t:g}" for k, t in self.tolerance.items())
            info["lower is better"] = ", ".join(self.lower_is_better) or "none"
        info["rates"] = ({"estimate": "estimated per pair", "hierarchical": HIERARCHICAL_TEXT}.get(
            post.rates, post.rates)) + (
            "" if len(self.metric_terms) == 1 else f"; dependence: {post.dependence}")
        info["interval"] = f"{pct} equal-tailed credible interval of diff = win_1 - win_2"
        info["system order"] = ", ".join(self._shown)
        info["sampler"] = post.method
        info["seed"] = post.seed
        s = Summary("Preference ratings corrected for metric errors", info, [("pairs", show)])
        if len(self.metric_terms) > 1:
            s.add_note(dependence.note(self.dependence().attrs["log10_bf"], post.dependence))
        if post.rates == "pooled":
            note = _fit.pooling_note(post, self.pooling_check(), "pairs")
            if note:
                s.add_note(note)
        note = _fit.population_note(post, "pairs")
        if note:
            s.add_note(note)
        dominated = [_common.label_pair(a, b) for a, b in self.prior_dominated()]
        if dominated:
            shown = ", ".join(dominated[:8]) + (f" and {len(dominated) - 8} more"
                                                 if len(dominated) > 8 else "")
            s.add_note(f"the data say little about {len(dominated)} of {self.n_pairs} pairs "
                       f"({shown}): their posterior of diff is essentially the prior "
                       f"(posterior sd at least {_common.PRIOR_DOMINATED:g} of the prior's; "
                       "prior_dominated in to_frame()); they are left out of the system order "
                       "and of ranking()")
        s.add_note("diff = win_1 - win_2: the share of items humans prefer from group_1 minus "
                   "from group_2; prob_greater = P(win_1 > win_2)")
        s.add_note(f"naive_diff: the same from metric {self.metric_terms[0]!r} alone, uncorrected")
        for note in self.notes:
            s.add_note(note)
        return s

    @v.renamed(threshold="min_prob")
    def plot(self, ax: Axes | None = None, *, kind: str = "diff", min_prob: float = 0.95,
             level: float | None = None, **kwargs: Any) -> Axes:
        """Draw the pairs, the preference matrix or the ranking.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure when None.
        kind : {"diff", "matrix", "ranking"}
            ``"diff"``: corrected ``diff`` with its interval per pair (hollow grey where the
            posterior is essentially the prior), the naive metric answer beside it;
            ``"matrix"``: heat map of ``P(row preferred over column)``; ``"ranking"``: the DAG
            of :meth:`ranking` in layers (winners on top).
        min_prob : float
            Posterior probability of a win in ``kind="ranking"``.
        level : float, optional
            Probability of the intervals of ``kind="diff"`` (default: the fit's level).
        **kwargs
            Passed to matplotlib (seaborn for the matrix, networkx for the ranking).

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> rng = np.random.default_rng(0)
        >>> quality = np.array([0.3, 0.0, -0.3])  # systems A, B, C; 300 items each
        >>> z = quality[:, None] + rng.normal(size=(300, 3, 2))
        >>> df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
        ...                    "system": np.tile(["A", "B", "C"], 300),
        ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
        >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rated the first 60 items
        >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
        >>> ax = res.plot(kind="matrix")
        """
        import matplotlib.pyplot as plt

        kind = v.choice(kind, "kind", ("diff", "matrix", "ranking"))
        level = self.level if level is None else v.level(level)
        if level != self.level and kind != "diff":
            raise ParameterError(f"level={level!r} sets the intervals of kind='diff'; "
                                 f"kind={kind!r} draws none: leave level out")
        if kind == "matrix":
            kwargs.setdefault("annot", len(self.systems) <= 12)
            return self.compare().plot(ax, **kwargs)
        if ax is None:
            height = 0.3 * self.n_pairs + 2.0 if kind == "diff" else 5.0
            _, ax = plt.subplots(figsize=(7, min(height, 14.0)))
        if kind == "diff":
            return _plot_diff(self.to_frame(level), self._labels(), level, ax, **kwargs)
        return plot_dag(self.ranking(min_prob), ax, **kwargs)


def _plot_diff(frame: pd.DataFrame, labels: list[str], level: float, ax: Any, **kwargs: Any):
    y = np.arange(len(frame))
    weak = frame["prior_dominated"].to_numpy(dtype=bool)
    err = np.array([frame["diff"] - frame["lower"], frame["upper"] - frame["diff"]])
    ax.errorbar(frame["diff"][~weak], y[~weak], xerr=err[:, ~weak], fmt="o", capsize=2,
                color="C0", label=f"corrected, {level:.0%} interval", **kwargs)
    if weak.any():
        ax.errorbar(frame["diff"][weak], y[weak], xerr=err[:, weak], fmt="o", mfc="none",
                    capsize=2, color="0.6", label="corrected, posterior essentially the prior")
    ax.plot(frame["naive_diff"], y, "x", color="C3", label="naive (metric only)")
    ax.axvline(0.0, color="0.5", lw=0.8, ls="--")
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel("diff = win_1 - win_2")
    ax.legend(fontsize=8)
    return ax


@functools.cache
def _legendre64() -> tuple[np.ndarray, np.ndarray]:
    """64-point Gauss-Legendre nodes plus one, and weights (computed once)."""
    x, w = np.polynomial.legendre.leggauss(64)
    return x + 1.0, w


def _beta_ppf(q, a, b):
    """``scipy.stats.beta(a, b).ppf(q)`` for ``q`` in [0, 1], without the frozen distribution.

    The same numbers: inside (0, 1) the quantile method that ``ppf`` calls (``beta._ppf``,
    the method a ``rv_continuous`` defines; ``scipy.special.betaincinv`` differs from it below
    about 1e-20, where it gives up), the support's ends at 0 and 1, NaN elsewhere.  The
    frozen distribution's checks cost a hundred times the quantile on one number.
    """
    from scipy import stats

    q = np.asarray(q, dtype=float)
    out = stats.beta._ppf(q, a, b)
    out = np.where(q == 0.0, 0.0, np.where(q == 1.0, 1.0, out))
    out = np.where((q >= 0.0) & (q <= 1.0), out, np.nan)
    return out[()] if out.ndim == 0 else out


def dirichlet_diff_interval(a1: float, a2: float, a3: float, level: float
                            ) -> tuple[float, float]:
    """Equal-tailed interval of ``p1 - p3`` for ``(p1, p2, p3) ~ Dirichlet(a1, a2, a3)``.

    ``p1 - p3 = S (2U - 1)`` with ``S = p1 + p3 ~ Beta(a1 + a3, a2)`` and ``U ~ Beta(a1, a3)``
    independent, so ``P(p1 - p3 <= d) = E_S[I_{(1 + d/S)/2}(a1, a3)]``: 64-point Gauss-Legendre
    quadrature in the quantile scale of ``S``, split where ``S = |d|`` (below it the inner
    probability is 0 or 1), and Brent's method for the quantiles.  ``S``'s distribution and
    quantile functions are scipy's beta ones, called as ``scipy.special`` functions
    (``_beta_ppf``).

    Examples
    --------
    >>> from binaryeval.latent.preferences import dirichlet_diff_interval
    >>> lo, hi = dirichlet_diff_interval(2.0, 1.0, 2.0, 0.95)
    >>> round(lo + hi, 12)   # symmetric when a1 == a3
    0.0
    """
    from scipy import optimize, special

    a_s, b_s = a1 + a3, a2
    x1, w = _legendre64()

    def s_cdf(v: float) -> float:  # scipy.stats.beta(a_s, b_s).cdf(v), its support's ends
        if v >= 1.0:
            return 1.0
        if v <= 0.0:
            return 0.0
        return float(special.betainc(a_s, b_s, v))

    def cdf(d: float) -> float:
        u_star = s_cdf(abs(d))
        head = u_star if d > 0 else 0.0
        if u_star >= 1.0:
            return head
        u = u_star + (1.0 - u_star) * x1 / 2.0
        s = _beta_ppf(u, a_s, b_s)
        with np.errstate(divide="ignore", invalid="ignore"):
            arg = np.clip((1.0 + d / s) / 2.0, 0.0, 1.0)
        return head + float((1.0 - u_star) / 2.0 * (w * special.betainc(a1, a3, arg)).sum())

    out = []
    for p in ((1.0 - level) / 2.0, (1.0 + level) / 2.0):
        out.append(float(optimize.brentq(lambda d, q: cdf(d) - q, -1.0, 1.0, args=(p,), xtol=1e-12)))
    return out[0], out[1]


# ----------------------------------------------------------------------------------------------
# the entry point
# ----------------------------------------------------------------------------------------------

def _check_directions(paired: np.ndarray, human: str, terms: Sequence[str], lower: Sequence[str],
                      ready: bool) -> None:
    """The direction check: warn when a metric and the humans disagree.

    They prefer opposite systems on most of the decided item comparisons (one warning per
    call).
    """
    messages = []
    for r, term in enumerate(terms):
        agree, opposite, decided = _fit.preference_agreement(paired, r, len(terms))
        msg = _fit.check_terms(
            agree, lambda term=term, opposite=opposite, decided=decided: (
                f"the human ({human}) and metric ({term}) preferences point to opposite "
                f"systems on {opposite / decided:.0%} of the {decided:,} paired item "
                "comparisons where both prefer a system"),
            terms=[human, *terms], sides=[(human,), (term,)], lower=lower,
            advice=("check that 'first' (or 1) means the first system is better in both columns"
                    if ready else None))
        if msg:
            messages.append(msg)
    _fit.emit_direction(messages)


@v.renamed(higher_is_better="lower_is_better", human_higher_is_better="lower_is_better",
           metric_higher_is_better="lower_is_better", confidence="level", random_state="seed",
           prior="share_concentration", rate_prior="rate_concentration")
def fit_preferences(formula: str, data: pd.DataFrame, *, item: str | None = None,
                    first: str | None = None, second: str | None = None,
                    lower_is_better: str | Sequence[str] | None = None,
                    tolerance: float | dict[str, float] = 0.0, dependence: str = "joint",
                    rates: str | Mapping = "estimate",
                    share_concentration: float | ArrayLike = 1.0,
                    rate_concentration: float | ArrayLike = 1.0,
                    paired_informs_pi: bool = True, level: float = 0.95,
                    order: str | Sequence[str] = "estimate", eval_env: int | dict = 0,
                    seed: int | None = None, draws: int = 1000, chains: int = 4,
                    warmup: int | None = None) -> PreferenceFit:
    """Preference rates per system pair, corrected for the errors of automated metrics.

    Parameters
    ----------
    formula : str
        ``"human ~ metric | system"`` for scores per (item, system) (with ``item=``), turned
        into preferences for every pair of systems; or ``"human ~ metric"`` for ready
        preferences per row (with ``first=`` and ``second=``).  Several metrics:
        ``"human ~ m1 + m2 | system"`` (their joint preference pattern enters the model).
    data : DataFrame
        One row per (item, system) with scores, or one row per compared pair of outputs.
    item : str, optional
        Column naming the input (segment) that the systems' outputs share (scores input).
    first, second : str, optional
        Columns naming the two systems of each row (preference input).  Ratings are -1, 0, 1
        or ``"second"``, ``"tie"``, ``"first"`` (``"-"``, ``"="``, ``"+"``); rows for (a, b)
        and (b, a) are merged with the sign flipped; NaN means not rated.  A column of the
        numbers 0 and 1 alone is refused (a :class:`~binaryeval.DataError`): its 0 may be a tie
        or a win of the second system (a winner coded 0/1, ``I(2 * human - 1)`` recodes it);
        write the ties as ``"="`` when they are ties.
    lower_is_better : str or list of str, optional
        Terms, human or metric, whose lower scores are better (TER, MQM penalty points), scores
        input.  A :class:`~binaryeval.DirectionWarning` names the likely list when the human
        and a metric prefer opposite systems on most items.
    tolerance : float or dict
        Score differences up to the tolerance are ties: one number for every term or
        ``{term: tolerance}`` (others 0).  Scores input.
    dependence : {"joint", "independent"}
        Several metrics: their joint pattern (``"joint"``, valid whatever their dependence) or
        a product of one confusion matrix per metric (``"independent"``; narrower but wrong
        when they err together: a :class:`~binaryeval.DependenceWarning` says so, see
        :meth:`PreferenceFit.dependence`).
    rates : "estimate", "pooled", "hierarchical" or array-like
        The metric's confusion matrix per pair, one for all pairs, per pair partially pooled
        (each row drawn from a population Dirichlet whose mean and concentration are learnt,
        :mod:`binaryeval.latent.hierarchical`; ``rate_concentration`` is then refused), or
        known (3 x J, rows first/tie/second better by the humans).  ``"pooled"`` is checked on
        the paired items first (:meth:`PreferenceFit.pooling_check`).
    share_concentration : float or array-like of shape (3,)
        Dirichlet concentration of the preference shares ``(win_1, tie, win_2)``, their prior
        (1: uniform).
    rate_concentration : float or array-like of shape (3, J)
        Dirichlet concentration of each row of the confusion matrix, its prior.
    paired_informs_pi : bool
        Whether the paired items' human preferences count for the shares (True; False when
        they are a separate calibration sample).
    level : float
        Coverage of the credible intervals.
    order : "estimate", "input" or list of str
        Order of the systems in the comparison matrix, plots and plans: by their mean ``diff``
        against the others (over the pairs the data say something about; best first), as the
        names sort, or as listed.
    eval_env : int or dict
        Variables of your code the formula may read as values (see :func:`binaryeval.fit`).
    seed : int, optional
        Seed of the sampler (each chain gets its own stream; reproducible on one machine: see
        :func:`binaryeval.latent_posterior`).  None draws fresh entropy; the fit reports the
        seed that reproduces it (``latent.seed``, the summary's ``seed`` line).
    draws, chains, warmup : int
        Draws kept per chain, chains, warm-up iterations (default ``max(100, draws // 4)``).

    Returns
    -------
    PreferenceFit

    Warns
    -----
    DirectionWarning
        When the human and a metric prefer opposite systems on most paired item comparisons:
        a lower-is-better score (an MQM penalty, TER) was probably read as higher-is-better.
    DependenceWarning
        With ``dependence="independent"``, when the paired items show the metrics err together.
    PoolingWarning
        With ``rates="pooled"``, when the paired items say the pairs' confusion matrices differ
        (the check before pooling rejects at 0.01).
    ConvergenceWarning
        When ``diff`` of some pair has R-hat above 1.01 or bulk/tail ESS below 400.

    Examples
    --------
    >>> from binaryeval import fit_preferences
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sys_a": ["x", "y", "x", "x"] * 30, "sys_b": ["y", "x", "y", "y"] * 30,
    ...                    "human": [1, -1, 0, None] * 30, "metric": [1, -1, 1, 1] * 30})
    >>> res = fit_preferences("human ~ metric", df, first="sys_a", second="sys_b", seed=2)
    >>> row = res.to_frame().loc[("x", "y")]
    >>> int(row["n_paired"]), int(row["n_metric"])
    (90, 30)
    """
    from ..formula import parse_formula

    v.require_pandas(data, "fit_preferences()")
    level = v.level(level)
    draws, chains, warmup, seed_used = _common.sampler_options(draws, chains, warmup, seed,
                                                                rates=rates)
    parsed = parse_formula(formula)
    ready = first is not None or second is not None
    _data.check_formula_sides(parsed, formula, groups=(0,) if ready else (1,))
    if not isinstance(order, str):
        order = list(order)
    if ready:
        if first is None or second is None or item is not None:
            raise ParameterError("ready preferences need first= and second= (the two system "
                                 "columns) and no item=; scores need item= and '| system'")
        given = [f"{name}={value!r}" for name, value, unset in (
            ("lower_is_better", lower_is_better, lower_is_better is None),
            ("tolerance", tolerance, isinstance(tolerance, (int, float)) and tolerance == 0))
            if not unset]
        if given:
            one = len(given) == 1
            raise ParameterError(f"{' and '.join(given)}: {'it turns' if one else 'they turn'} "
                                 "scores per (item, system) into preferences (with item=); "
                                 "the data already hold preferences (first=, second=): leave "
                                 f"{'it' if one else 'them'} out")
        frame = parsed.evaluate(data, eval_env=eval_env)
        refuse_all_missing({**frame.lhs, **frame.rhs}, "rating")
        systems, pairs, counts = _preference_counts(parsed, frame, data, first, second)
        lower: tuple[str, ...] = ()
    else:
        if item is None:
            raise ParameterError("scores per (item, system) need item=, the column naming the "
                                 "shared input (segment); for ready preferences give first= "
                                 "and second=")
        lower = read_lower_is_better(lower_is_better, [*parsed.lhs_names, *parsed.rhs_names])
        frame = parsed.evaluate(data, eval_env=eval_env)
        refuse_all_missing({**frame.lhs, **frame.rhs}, "rating")
        systems, pairs, counts = _scores_counts(parsed, frame, data, item, lower_is_better,
                                                tolerance)
    terms = parsed.rhs_names
    _check_directions(counts.paired, parsed.lhs_names[0], terms, lower, ready)
    labels = [_common.label_pair(systems[a], systems[b]) for a, b in pairs]
    names = _data.PREFERENCE_LABELS
    outputs = ["/".join(names[int(i)] for i in pattern) for pattern in
               np.ndindex(*(_K,) * len(terms))]
    model = build_model(counts.paired, counts.human, counts.metric, labels, names, outputs,
                        levels=(_K,) * len(terms), dependence=dependence, rates=rates,
                        share_concentration=share_concentration,
                        rate_concentration=rate_concentration,
                        paired_informs_pi=paired_informs_pi)
    out = _common.run(model, draws, chains, warmup, seed_used)
    post = LatentPosterior(tuple(labels), names, tuple(outputs), counts.paired, counts.human,
                           counts.metric, out, level=level, share_concentration=model.prior[0],
                           rate_concentration=model.rate_prior, rates=model.rates,
                           known=model.known,
                           dependence=model.dependence, levels=model.levels,
                           paired_informs_pi=model.paired_informs_pi,
                           seed=_common.reported_seed(seed, seed_used), warmup=warmup)
    res = PreferenceFit(formula, systems, pairs, post, parsed.lhs_names[0], tuple(terms),
                        counts.naive, input="preferences" if ready else "scores", level=level,
                        n_rows=counts.account.n_rows, excluded=dict(counts.account.excluded),
                        _left_out=counts.account.left_out(data.index),
                        tolerance=_data.tolerances(tolerance, [*parsed.lhs_names, *terms])
                        if not ready else {},
                        lower_is_better=lower, notes=tuple(counts.notes),
                        call={"formula": formula, "item": item, "first": first,
                              "second": second, "rates": rates, "dependence": dependence,
                              "lower_is_better": lower_is_better, "order": order,
                              "draws": draws, "chains": chains, "seed": seed})
    res = replace(res, order=res._order_of(order))
    _fit.dependence_alarm(post, labels, list(terms))
    _fit.pooling_alarm(post, labels, "pairs", "preference")
    _fit.known_rates_alarm(post, labels, "pairs", "preference")
    s = _common.summarise(res._diff_draws(), level)
    _common.warn_convergence(pd.DataFrame(s), "diff", labels, draws, chains)
    return res


@functools.lru_cache(maxsize=1)
def _example() -> PreferenceFit:
    """A small fit for the examples (three systems, 60 of 300 items rated by humans)."""
    rng = np.random.default_rng(0)
    quality = {"A": 0.3, "B": 0.0, "C": -0.3}
    rows = [{"item": i, "system": s, "human": q + rng.normal(), "metric": q + rng.normal()}
            for i in range(300) for s, q in quality.items()]
    df = pd.DataFrame(rows)
    df.loc[df["item"] >= 60, "human"] = np.nan
    return fit_preferences("human ~ metric | system", df, item="item", seed=1)
