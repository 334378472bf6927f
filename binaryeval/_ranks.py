"""Ranks of systems with honest uncertainty: one :class:`Ranks` for every fit.

Every fit's ``ranks()`` (:class:`~binaryeval.BinaryFit`, :class:`~binaryeval.LatentFit`,
:class:`~binaryeval.PreferenceFit`) hands this module joint posterior draws of one score per system
(``alpha`` for the binary and latent fits, the average win rate for preference fits) and gets a
:class:`Ranks` back.  Rank 1 is the best (highest score).

Per draw every system gets its rank among the others (ties share the best rank they span); the
share of draws with rank ``r`` is the posterior probability ``P(rank = r)`` (the binary fit
computes these exactly from its posteriors and passes them in).

The rank intervals hold *simultaneously*: the posterior probability that every system's rank lies
inside its interval at once is at least ``level`` (the ``joint_probability`` in ``attrs`` is the
share of the sizing draws inside).  The draws are split in two: the first half of every chain
(of the independent draws, for the binary fit) *shapes* a nested sequence of boxes of rank
intervals, the second half *sizes* it:

1. calibrated marginal intervals (Montiel Olea and Plagborg-Moller 2019, "Simultaneous confidence
   bands", J. Appl. Econometrics 34): each system's equal-tailed rank interval at a common tail
   ``t``, nested as ``t`` grows, up to the largest ``t`` (at most ``(1 - level) / 2``) whose
   box holds ``level`` of the shaping draws;
2. greedy trimming, on from that box: move inward the end of some interval that loses the
   fewest shaping draws, and again, until some way past the box that holds ``level`` of them;
3. of this nested sequence, the smallest box holding ``ceil(level (n + 1))`` of the ``n``
   sizing draws.

Step 3 is a split-sample quantile: with sizing draws independent of the shaping ones and of
each other, the box's posterior probability is at least ``level`` on average over the draws.
Judged on the draws that shaped it, the box would hold ``level`` of *them*, but its
probability falls short by their Monte Carlo noise, which the trimming fits: with 20 systems
and 4,000 draws, 0.946 on average instead of 0.95 (``studies/ranks_calibration.py``).  The
split costs little width (about 2 % there).  ``kind="marginal"`` gives each system's own
equal-tailed rank interval, from all draws, which does not hold jointly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from . import _validate
from ._results import Result
from .errors import DataError
from .summary import Summary

if TYPE_CHECKING:  # names used only in type hints
    from matplotlib.axes import Axes

__all__ = ["Ranks", "min_draws", "rank_draws", "ranks_from_draws", "simultaneous_intervals"]

_KINDS = ("simultaneous", "marginal")


def rank_draws(scores: np.ndarray) -> np.ndarray:
    """Rank of every system in every draw: 1 for the highest score (ties share the best rank).

    Parameters
    ----------
    scores : ndarray (draws, systems)

    Returns
    -------
    ndarray of int, the same shape

    Examples
    --------
    >>> rank_draws(np.array([[0.2, 0.9, 0.5], [0.7, 0.1, 0.7]])).tolist()
    [[3, 1, 2], [1, 3, 1]]
    """
    from scipy.stats import rankdata

    x = np.asarray(scores, dtype=float)
    # rank = 1 + number of systems with a strictly higher score in the same draw ("min" ranks
    # of the negated scores), O(K log K) per draw
    return rankdata(-x, method="min", axis=1).astype(np.int32)


def _rank_shares(ranks: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each system's share of draws with rank ``<= r`` and ``>= r``, ``r = 1 ... k`` ((K, k) each)."""
    n = ranks.shape[0]
    cdf = np.stack([(ranks <= r).sum(axis=0) for r in range(1, k + 1)], axis=1) / n
    sf = np.stack([(ranks >= r).sum(axis=0) for r in range(1, k + 1)], axis=1) / n
    return cdf, sf


def _ends_from_shares(shares: tuple[np.ndarray, np.ndarray], tail: float
                      ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_marginal_ends` from the tables of :func:`_rank_shares` (computed once for many tails)."""
    cdf, sf = shares
    k = cdf.shape[1]
    lower = np.argmax(cdf > tail, axis=1) + 1
    upper = k - np.argmax((sf > tail)[:, ::-1], axis=1)
    return lower, upper


def _marginal_ends(ranks: np.ndarray, tail: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each system's equal-tailed rank interval (the whole observed range at ``tail`` 0).

    The smallest rank whose cdf exceeds ``tail`` and the largest whose survival exceeds it.
    """
    return _ends_from_shares(_rank_shares(ranks, k), tail)


def _inside(ranks: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    return ((ranks >= lower) & (ranks <= upper)).all(axis=1)


def _halves(n: int, chains: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the shaping and the sizing draws: the first and the second half of every chain.

    ``n`` draws in ``chains`` equal blocks of consecutive rows (chain-major, as the samplers'
    ``(chains, draws)`` arrays flatten); one block when ``n`` does not divide.

    Examples
    --------
    >>> [r.tolist() for r in _halves(8, 2)]
    [[0, 1, 4, 5], [2, 3, 6, 7]]
    """
    if chains < 1 or n % chains:
        chains = 1
    per = n // chains
    first = np.arange(n) % per < per // 2
    return np.flatnonzero(first), np.flatnonzero(~first)


def _tail_depth(ranks: np.ndarray, cdf: np.ndarray, sf: np.ndarray) -> np.ndarray:
    """Per draw, the smallest of its systems' counts of shaping draws at or beyond its rank.

    ``cdf``/``sf`` (K, K): counts of shaping draws with rank ``<= r`` and ``>= r``.  A draw lies
    inside the box of the equal-tailed intervals at tail count ``t`` (ends: the smallest rank
    whose cdf count exceeds ``t``, the largest whose sf count exceeds it) exactly when its depth
    exceeds ``t``.
    """
    cols = np.arange(ranks.shape[1])
    at = ranks - 1
    return np.minimum(cdf[cols, at], sf[cols, at]).min(axis=1)


def _sizable(n: int, chains: int, level: float) -> bool:
    """Whether the sizing half of ``n`` draws can hold ``level`` of itself (else: ``1 ... K``)."""
    rows_a, rows_b = _halves(n, chains)
    return len(rows_a) > 0 and math.ceil(level * (len(rows_b) + 1) - 1e-9) <= len(rows_b)


def min_draws(level: float, chains: int = 1) -> int:
    """The fewest draws (a multiple of ``chains``) whose rank intervals can be narrower than 1 ... K.

    The sizing half of the ``n`` draws (:func:`simultaneous_intervals`) must hold
    ``ceil(level (n_b + 1))`` of its ``n_b`` draws, so ``n_b >= level / (1 - level)``.

    Examples
    --------
    >>> min_draws(0.95), min_draws(0.99), min_draws(0.99, chains=4)
    (37, 197, 196)
    """
    n = chains
    while not _sizable(n, chains, level):
        n += chains
    return n


def simultaneous_intervals(ranks: np.ndarray, level: float, chains: int = 1
                           ) -> tuple[np.ndarray, np.ndarray, float]:
    """Rank intervals holding jointly with posterior probability >= ``level`` (module notes).

    The first half of every chain's draws shapes a nested sequence of boxes; the second half
    picks the smallest box of the sequence that holds enough of them (a split-sample
    quantile, so that the box's probability is not judged on the draws that shaped it).

    Parameters
    ----------
    ranks : ndarray (draws, systems)
        Ranks per draw (:func:`rank_draws`), ``chains`` blocks of consecutive rows.
    level : float
        Joint posterior probability the intervals must hold.
    chains : int
        How many chains the rows are (1 for independent draws).

    Returns
    -------
    lower, upper : ndarray of int
    joint : float
        The share of the sizing draws whose every rank is inside its interval (at least
        ``level (n + 1) / n`` of the ``n`` sizing draws, unless there are too few: then the
        intervals are the whole range ``1 ... K``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> r = rank_draws(rng.normal([3.0, 2.0, 0.0], 0.6, size=(4000, 3)))
    >>> lo, hi, joint = simultaneous_intervals(r, 0.9)
    >>> lo.tolist(), hi.tolist(), bool(joint >= 0.9)
    ([1, 1, 3], [2, 2, 3], True)
    """
    ranks = np.asarray(ranks)
    n, k = ranks.shape
    rows_a, rows_b = _halves(n, chains)
    ra, rb = ranks[rows_a], ranks[rows_b]
    n_a, n_b = len(ra), len(rb)
    need_b = math.ceil(level * (n_b + 1) - 1e-9)
    if not _sizable(n, chains, level):
        return np.ones(k, dtype=int), np.full(k, k, dtype=int), 1.0
    # 1. the outer sequence: boxes of equal-tailed intervals at a common tail (count t of the
    # shaping draws), nested as t grows; the box at the largest t (at most (1 - level) / 2 of
    # them) that holds `need_a` shaping draws is where the trimming starts
    cdf = np.stack([(ra <= r).sum(axis=0) for r in range(1, k + 1)], axis=1)
    sf = np.stack([(ra >= r).sum(axis=0) for r in range(1, k + 1)], axis=1)
    depth_a = _tail_depth(ra, cdf, sf)
    need_a = math.ceil(level * n_a - 1e-9)
    cap = math.floor((1.0 - level) / 2.0 * n_a + 1e-9) + 1     # depth > (1 - level) / 2 share
    start = min(int(np.sort(depth_a)[::-1][need_a - 1]), cap) if need_a > 0 else cap
    lower = np.argmax(cdf >= start, axis=1) + 1
    upper = k - np.argmax((sf >= start)[:, ::-1], axis=1)
    # 2. the inner sequence: greedy trimming on the shaping draws (move inward the end that
    # loses the fewest), on past `need_a` by a margin of several binomial sd, so that the
    # sizing draws can pick a box on either side of it
    inside = _inside(ra, lower, upper)
    count = int(inside.sum())
    floor = need_a - math.ceil(4.0 * math.sqrt(n_a * level * (1.0 - level))) - 1
    moves: list[tuple[int, int]] = []   # (system, 0 lower / 1 upper)
    lo_t, hi_t = lower.copy(), upper.copy()
    while True:
        sub = ra[inside]
        open_ = hi_t > lo_t
        lose_lo = np.where(open_, (sub == lo_t).sum(axis=0), n + 1)
        lose_hi = np.where(open_, (sub == hi_t).sum(axis=0), n + 1)
        j_lo, j_hi = int(np.argmin(lose_lo)), int(np.argmin(lose_hi))
        if lose_lo[j_lo] <= lose_hi[j_hi]:
            j, loss, side = j_lo, int(lose_lo[j_lo]), 0
        else:
            j, loss, side = j_hi, int(lose_hi[j_hi]), 1
        if loss > n or count - loss < floor:
            break
        if side == 0:
            inside &= ra[:, j] != lo_t[j]
            lo_t[j] += 1
        else:
            inside &= ra[:, j] != hi_t[j]
            hi_t[j] -= 1
        count -= loss
        moves.append((j, side))
    # 3. the depth of every sizing draw along the whole nested sequence: outside the start box
    # its tail depth (below `start`), inside it n_a + 1 + the trimming moves it survives
    depth_b = _tail_depth(rb, cdf, sf).astype(np.int64)
    in_b = _inside(rb, lower, upper)
    survived = np.full(n_b, len(moves), dtype=np.int64)
    alive = in_b.copy()
    lo_t, hi_t = lower.copy(), upper.copy()
    for step, (j, side) in enumerate(moves):
        end = lo_t if side == 0 else hi_t
        out = alive & (rb[:, j] == end[j])
        survived[out] = step
        alive &= ~out
        if side == 0:
            lo_t[j] += 1
        else:
            hi_t[j] -= 1
    depth_b = np.where(in_b, n_a + 1 + survived, np.minimum(depth_b, start - 1))
    # 4. the box of the sizing draws' need_b-th largest depth: the smallest box of the
    # sequence holding need_b of them
    cut = int(np.sort(depth_b)[::-1][need_b - 1])
    if cut > n_a:
        lo_t, hi_t = lower.copy(), upper.copy()
        for j, side in moves[:cut - n_a - 1]:
            if side == 0:
                lo_t[j] += 1
            else:
                hi_t[j] -= 1
        lower, upper = lo_t, hi_t
    else:
        cut = max(cut, 0)
        lower = np.argmax(cdf >= cut, axis=1) + 1
        upper = k - np.argmax((sf >= cut)[:, ::-1], axis=1)
    joint = float(_inside(rb, lower, upper).mean())
    return lower.astype(int), upper.astype(int), joint


def _score_ranks(values: np.ndarray) -> np.ndarray:
    """Rank of each value (1 = highest; NaN ranks missing), ties sharing the best rank."""
    x = np.asarray(values, dtype=float)
    ok = np.isfinite(x)
    out = np.full(x.shape, np.nan)
    out[ok] = 1 + (x[ok][None, :] > x[ok][:, None]).sum(axis=1)
    return out


@dataclass(frozen=True, eq=False, repr=False)
class Ranks(Result):
    """Posterior ranks of the systems of a fit, with simultaneous credible rank intervals.

    Returned by the ``ranks()`` method of every fit.  Rank 1 is the best.  ``to_frame()`` has one
    row per system (best posterior mean first): the ranked score's posterior mean ``estimate``
    and ``std_error``, its ``rank``, the simultaneous rank interval ``lower``/``upper`` (all
    systems' ranks lie inside their intervals at once with posterior probability >= ``level``),
    ``p_best`` = P(rank = 1), the uncorrected score ``naive_score`` and its rank ``naive_rank``.
    :meth:`probabilities` is the whole posterior of each rank; :meth:`plot` the leaderboard.

    Attributes
    ----------
    groups : tuple of str
        The systems, best posterior mean first.
    ranks : ndarray (draws, systems)
        The rank of every system in every posterior draw (columns in ``groups`` order).
    ranked : str
        What the score is (e.g. ``"alpha"``, or the average win rate for preferences).

    Examples
    --------
    >>> import binaryeval as be
    >>> res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
    ...                      "B": {"human_pos": 62, "human_total": 100},
    ...                      "C": {"human_pos": 30, "human_total": 100}})
    >>> rk = res.ranks(seed=1)
    >>> rk.to_frame()[["rank", "lower", "upper"]].values.tolist()
    [[1, 1, 2], [2, 1, 2], [3, 3, 3]]
    """

    groups: tuple[str, ...]
    ranks: np.ndarray
    estimate: np.ndarray
    std_error: np.ndarray
    naive_score: np.ndarray
    level: float = 0.95
    ranked: str = "score"
    method: str = ""
    seed: int | np.random.SeedSequence | np.random.Generator | None = None
    group_name: str = "group"
    exact_probabilities: np.ndarray | None = None
    notes: tuple[str, ...] = ()
    chains: int = 1
    draws_option: str = "draws"
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_draws(self) -> int:
        """Posterior draws the rank intervals come from."""
        return int(self.ranks.shape[0])

    def _index(self) -> pd.Index:
        return pd.Index(list(self.groups), name=self.group_name)

    def _simultaneous(self, level: float) -> tuple[np.ndarray, np.ndarray, float]:
        key = ("simultaneous", level)
        if key not in self._cache:
            self._cache[key] = simultaneous_intervals(self.ranks, level, self.chains)
            if len(self.groups) > 1 and not _sizable(self.n_draws, self.chains, level):
                from ._warnings import warn
                from .errors import BinaryEvalWarning

                text = self._too_few(level)
                self._cache[("too few", level)] = text
                warn(text, BinaryEvalWarning)
        return self._cache[key]

    def _too_few(self, level: float) -> str:
        need = min_draws(level, self.chains)
        per = f" ({need // self.chains} per chain)" if self.chains > 1 else ""
        return (f"the simultaneous rank intervals at level {level:g} need at least "
                f"{need} posterior draws{per} and there are {self.n_draws}, "
                f"so every interval is the whole range 1 ... {len(self.groups)}, whatever the "
                f"data say: draw more ({self.draws_option}=) or lower the level")

    def probabilities(self) -> pd.DataFrame:
        """``P(rank = r)`` for every system (rows) and rank (columns, 1 = best).

        Returns
        -------
        DataFrame
            Each row sums to 1; ``attrs["method"]`` says whether the probabilities are exact
            (the binary fit) or shares of posterior draws.

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
        ...                      "B": {"human_pos": 55, "human_total": 100}})
        >>> p = res.ranks(seed=1).probabilities()
        >>> round(float(p.loc["A", 1]), 4) == round(float(res.compare().matrix().loc["A", "B"]), 4)
        True
        """
        k = len(self.groups)
        if self.exact_probabilities is not None:
            if "exact" not in self._cache:
                exact = self.exact_probabilities
                self._cache["exact"] = np.asarray(exact() if callable(exact) else exact,
                                                  dtype=float)
            prob = self._cache["exact"]
            how = "exact, by quadrature over the posteriors"
        else:
            prob = np.stack([(self.ranks == r).mean(axis=0) for r in range(1, k + 1)], axis=1)
            how = f"shares of {self.n_draws} posterior draws"
        out = pd.DataFrame(prob, index=self._index(),
                           columns=pd.Index(range(1, k + 1), name="rank"))
        out.attrs.update(method=how, quantity="P(rank = column)")
        return out

    def interval(self, level: float | None = None, kind: str = "simultaneous") -> pd.DataFrame:
        """Rank intervals per system: columns ``lower``, ``upper`` (ranks, 1 = best).

        Parameters
        ----------
        level : float, optional
            Posterior probability (default: the level of ``ranks()``).
        kind : {"simultaneous", "marginal"}
            Intervals that hold for all systems at once (module notes), or each system's own
            equal-tailed rank interval.

        Returns
        -------
        DataFrame
            ``attrs`` hold ``level``, ``kind`` and the ``joint_probability`` of the set.

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
        ...                      "B": {"human_pos": 55, "human_total": 100}})
        >>> res.ranks(seed=1).interval(0.5).values.tolist()
        [[1, 1], [2, 2]]
        """
        level = self.level if level is None else _validate.level(level)
        kind = _validate.choice(kind, "kind", _KINDS)
        if kind == "simultaneous":
            lower, upper, joint = self._simultaneous(level)
        else:
            lower, upper = _marginal_ends(self.ranks, (1.0 - level) / 2.0, len(self.groups))
            joint = float(_inside(self.ranks, lower, upper).mean())
        out = pd.DataFrame({"lower": lower, "upper": upper}, index=self._index())
        out.attrs.update(level=level, kind=kind, joint_probability=joint)
        return out

    def to_frame(self, level: float | None = None) -> pd.DataFrame:
        """One row per system, best posterior mean first.

        Parameters
        ----------
        level : float, optional
            Joint posterior probability of the rank intervals (default: the level of
            ``ranks()``).

        Returns
        -------
        DataFrame
            ``estimate`` and ``std_error`` (posterior mean and sd of the ranked score),
            ``rank`` (of ``estimate``), ``lower``/``upper`` (the simultaneous rank interval),
            ``p_best`` (P(rank = 1)), ``naive_score`` (the score from the metric or judge alone,
            uncorrected) and ``naive_rank``.  ``attrs``: ``level``, ``kind``, ``method``,
            ``ranked`` and ``joint_probability``.

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
        ...                      "B": {"human_pos": 55, "human_total": 100}})
        >>> list(res.ranks(seed=1).to_frame().columns)
        ['estimate', 'std_error', 'rank', 'lower', 'upper', 'p_best', 'naive_score', 'naive_rank']
        """
        level = self.level if level is None else _validate.level(level)
        lower, upper, joint = self._simultaneous(level)
        prob = self.probabilities()
        out = pd.DataFrame({
            "estimate": self.estimate, "std_error": self.std_error,
            "rank": _score_ranks(self.estimate).astype(int), "lower": lower, "upper": upper,
            "p_best": prob[1].to_numpy(), "naive_score": self.naive_score,
            "naive_rank": pd.array(_score_ranks(self.naive_score), dtype="Int64")},
            index=self._index())
        out.attrs.update(level=level, kind="simultaneous", method=self.method,
                         ranked=self.ranked, joint_probability=joint)
        if self.exact_probabilities is None:
            out.attrs["n_draws"] = int(self.n_draws)   # p_best is a share of these draws
        return out

    def _repr_fields(self) -> Mapping[str, Any]:
        return {"groups": len(self.groups), "level": self.level, "n_draws": self.n_draws}

    def summary(self, level: float | None = None) -> Summary:
        """The leaderboard as a table, with what is ranked and how the intervals hold.

        Parameters
        ----------
        level : float, optional
            Joint posterior probability of the rank intervals.

        Returns
        -------
        Summary

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 7, "human_total": 10},
        ...                      "B": {"human_pos": 4, "human_total": 10}})
        >>> print(res.ranks(seed=1).summary().title)
        Ranks with simultaneous credible intervals
        """
        frame = self.to_frame(level)
        level = frame.attrs["level"]
        facts: dict[str, Any] = {
            "ranked by": self.ranked, "systems": len(self.groups),
            "rank intervals": f"simultaneous, joint posterior probability "
                              f"{frame.attrs['joint_probability']:.3f} (level {level:g})",
            "posterior draws": self.n_draws, "method": self.method, "seed": self.seed}
        s = Summary("Ranks with simultaneous credible intervals", facts, [("ranks", frame)])
        s.add_note("rank 1 is the best; every system's rank lies inside [lower, upper] at once "
                   f"with posterior probability >= {level:g}")
        moved = frame["naive_rank"].notna() & ((frame["naive_rank"] < frame["lower"])
                                               | (frame["naive_rank"] > frame["upper"]))
        if moved.any():
            names = ", ".join(str(g) for g in frame.index[moved.to_numpy(dtype=bool)][:8])
            s.add_note(f"the uncorrected ranks fall outside the credible rank interval for "
                       f"{int(moved.sum())} systems ({names})")
        for note in self.notes:
            s.add_note(note)
        if ("too few", level) in self._cache:
            s.add_note(self._cache[("too few", level)])
        return s

    def plot(self, ax: Axes | None = None, *, kind: str = "leaderboard",
             level: float | None = None, **kwargs: Any) -> Axes:
        """The leaderboard, or the posterior probabilities of the ranks.

        The leaderboard shows each system's rank with its simultaneous interval and the naive
        rank beside it.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (a new figure when None).
        kind : {"leaderboard", "probabilities"}
            The ranks with their intervals, or a heat map of ``P(rank = r)``.
        level : float, optional
            Joint posterior probability of the intervals.
        **kwargs
            Passed to the matplotlib call that draws the intervals.

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 7, "human_total": 10},
        ...                      "B": {"human_pos": 4, "human_total": 10}})
        >>> ax = res.ranks(seed=1).plot()
        """
        import matplotlib.pyplot as plt

        kind = _validate.choice(kind, "kind", ("leaderboard", "probabilities"))
        frame = self.to_frame(level)
        k = len(frame)
        if ax is None:
            _, ax = plt.subplots(figsize=(7, min(0.35 * k + 2.0, 14.0)))
        if kind == "probabilities":
            import seaborn as sns

            kwargs.setdefault("annot", k <= 12)
            kwargs.setdefault("fmt", ".2f")
            kwargs.setdefault("cmap", "Blues")
            sns.heatmap(self.probabilities(), ax=ax, vmin=0.0, vmax=1.0, **kwargs)
            ax.set_xlabel("rank (1 = best)")
            ax.set_title("P(rank)", fontsize=9)
            return ax
        y = np.arange(k)
        rank = frame["rank"].to_numpy(dtype=float)
        err = np.array([rank - frame["lower"].to_numpy(), frame["upper"].to_numpy() - rank])
        kwargs.setdefault("color", "C0")
        ax.errorbar(rank, y, xerr=err, fmt="o", capsize=3,
                    label=f"corrected rank, simultaneous {frame.attrs['level']:.0%} interval",
                    **kwargs)
        naive = frame["naive_rank"].to_numpy(dtype=float, na_value=np.nan)
        ax.plot(naive, y + 0.25, "x", color="C3", label="naive rank (metric or judge alone)")
        ax.set_yticks(y, [str(g) for g in frame.index])
        ax.set_ylim(k - 0.5, -0.7)
        ax.set_xlim(0.5, k + 0.5)
        ax.set_xticks(np.arange(1, k + 1))
        ax.set_xlabel("rank (1 = best)")
        ax.set_title(f"ranked by {self.ranked}", fontsize=9)
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2,
                  frameon=False)
        return ax


def ranks_from_draws(scores: np.ndarray, groups: Sequence[str], naive: np.ndarray, *,
                     level: float, ranked: str, method: str,
                     seed: int | np.random.SeedSequence | np.random.Generator | None = None,
                     group_name: str = "group", exact: np.ndarray | None = None,
                     notes: Sequence[str] = (),
                     moments: tuple[np.ndarray, np.ndarray] | None = None,
                     chains: int = 1, draws_option: str = "draws") -> Ranks:
    """The :class:`Ranks` of joint posterior draws of one score per system.

    Parameters
    ----------
    scores : ndarray (draws, systems)
        Joint posterior draws, columns in ``groups`` order.
    groups : sequence of str
    naive : ndarray (systems,)
        The uncorrected score of each system (NaN when it has none).
    level : float
    ranked, method : str
        What the score is and how the draws were made.
    seed : optional
        The seed of the draws (reported).
    group_name : str
    exact : ndarray (systems, systems) or callable returning one, optional
        Exact ``P(rank = r)`` (rows in ``groups`` order); a callable is called when the
        probabilities are first asked for.
    notes : sequence of str
    moments : (ndarray, ndarray), optional
        The exact posterior mean and sd of each system's score (``groups`` order), where they
        are known: they order the systems and are the ``estimate`` and ``std_error`` (the
        draws' own would differ from them, and from the fit's table, by their Monte Carlo
        error); the draws give the rank intervals.
    chains : int
        The rows of ``scores`` are this many chains of equal length, one after the other (1 for
        independent draws): the first half of every chain shapes the simultaneous intervals,
        the second half sizes them (:func:`simultaneous_intervals`).
    draws_option : str
        The argument that sets the number of draws (named when there are too few for the
        level).

    Returns
    -------
    Ranks

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> rk = ranks_from_draws(rng.normal([0.0, 1.0], 0.1, size=(1000, 2)), ["a", "b"],
    ...                       np.array([0.1, 0.9]), level=0.95, ranked="score", method="demo")
    >>> rk.groups
    ('b', 'a')
    """
    x = np.asarray(scores, dtype=float)
    if x.ndim != 2 or x.shape[1] != len(groups):
        raise DataError(f"scores of shape {x.shape} do not match {len(groups)} groups")
    if not np.isfinite(x).all():
        raise DataError("the posterior draws of the score hold missing or infinite values")
    if moments is None:
        mean = x.mean(axis=0)
        sd = x.std(axis=0, ddof=1) if x.shape[0] > 1 else np.zeros(x.shape[1])
    else:
        mean, sd = (np.asarray(m, dtype=float) for m in moments)
    order = np.argsort(-mean, kind="stable")
    x = x[:, order]
    ranks = rank_draws(x)
    if exact is None:
        probs = None
    elif callable(exact):
        def probs() -> np.ndarray:
            return np.asarray(exact(), dtype=float)[order]
    else:
        probs = np.asarray(exact, dtype=float)[order]
    return Ranks(tuple(str(groups[i]) for i in order), ranks, mean[order], sd[order],
                 np.asarray(naive, dtype=float)[order], level=level, ranked=ranked,
                 method=method, seed=seed, group_name=group_name, exact_probabilities=probs,
                 notes=tuple(notes), chains=int(chains), draws_option=draws_option)

