"""Simulated crowds with a known truth: the data of the rater model's tests, study and benchmark.

Each item of each system is adequate with probability ``alpha`` of its system; a random subset
of the raters (``per_item`` of them, a number drawn uniformly from the given range) rates it:
a rater of competence ``theta`` gives the item's class with probability ``theta`` and otherwise
guesses, adequate with probability ``guess`` (MACE's generative story; a spammer has competence
0).  The metric reads the class with true-positive rate ``rho`` and true-negative rate ``eta``;
``n_metric_only`` further items per system carry the metric alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def simulate_crowd(seed: int | np.random.SeedSequence, *, alphas: Sequence[float],
                   n_items: int, competence: Sequence[float], guess: Sequence[float] | None = None,
                   per_item: tuple[int, int] = (3, 3), rho: float = 0.8, eta: float = 0.8,
                   n_metric_only: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Long data (one row per rating; metric-only items one row without a rater) and the truth.

    Returns
    -------
    (DataFrame, DataFrame)
        ``system, item, annotator, rating, metric`` and ``system, item, truth``.

    Examples
    --------
    >>> from binaryeval.raters._simulate import simulate_crowd
    >>> df, truth = simulate_crowd(0, alphas=[0.7], n_items=10, competence=[0.9, 0.8, 0.7])
    >>> len(df), len(truth)
    (30, 10)
    """
    rng = np.random.default_rng(seed)
    comp = np.asarray(competence, dtype=float)
    guesses = np.full(comp.size, 0.5) if guess is None else np.asarray(guess, dtype=float)
    names = np.array([f"r{i:02d}" for i in range(comp.size)])
    lo, hi = per_item
    frames, truths = [], []
    for g, alpha in enumerate(alphas):
        system = f"S{g:02d}"
        total = n_items + n_metric_only
        t = rng.random(total) < alpha
        metric = np.where(t, rng.random(total) < rho, rng.random(total) >= eta).astype(int)
        k = rng.integers(lo, hi + 1, size=n_items)
        # each item's raters: the first k of a random permutation
        order = np.argsort(rng.random((n_items, comp.size)), axis=1)
        item_idx = np.repeat(np.arange(n_items), k)
        rater_idx = order[np.arange(n_items)[:, None], np.arange(comp.size)[None, :]][
            np.arange(comp.size)[None, :] < k[:, None]]
        knows = rng.random(item_idx.size) < comp[rater_idx]
        guessed = rng.random(item_idx.size) < guesses[rater_idx]
        rating = np.where(knows, t[item_idx], guessed).astype(int)
        frames.append(pd.DataFrame({"system": system, "item": item_idx,
                                    "annotator": names[rater_idx], "rating": rating,
                                    "metric": metric[item_idx]}))
        if n_metric_only:
            extra = np.arange(n_items, total)
            frames.append(pd.DataFrame({"system": system, "item": extra, "annotator": None,
                                        "rating": np.nan, "metric": metric[extra]}))
        truths.append(pd.DataFrame({"system": system, "item": np.arange(total),
                                    "truth": t.astype(int)}))
    df = pd.concat(frames, ignore_index=True)
    df["rating"] = df["rating"].astype(float)
    return df, pd.concat(truths, ignore_index=True)


def simulate_binned_crowd(seed: int | np.random.SeedSequence, *,
                          shares: Sequence[Sequence[float]], n_items: int,
                          confusion: Sequence[np.ndarray], per_item: tuple[int, int] = (3, 3),
                          levels: Sequence[float] | None = None,
                          metric: np.ndarray | None = None,
                          n_metric_only: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A crowd giving binned ratings: each rater reads the class through a K x K confusion.

    ``shares[g]`` are system ``g``'s class shares; ``confusion[r][c, l]`` is rater ``r``'s
    chance of rating ``l`` an item of class ``c``; ``metric`` (K x J) the metric's confusion
    (None: no metric column).  Ratings are the ``levels`` (default 1..K).

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.raters._simulate import simulate_binned_crowd
    >>> good = np.full((3, 3), 0.1) + 0.7 * np.eye(3)
    >>> df, truth = simulate_binned_crowd(0, shares=[[0.2, 0.3, 0.5]], n_items=10,
    ...                                   confusion=[good, good, good])
    >>> sorted(df["rating"].unique().tolist()) <= [1.0, 2.0, 3.0], len(truth)
    (True, 10)
    """
    rng = np.random.default_rng(seed)
    conf = [np.asarray(c, dtype=float) for c in confusion]
    k = conf[0].shape[0]
    lev = np.arange(1, k + 1, dtype=float) if levels is None else np.asarray(levels, float)
    names = np.array([f"r{i:02d}" for i in range(len(conf))])
    lo, hi = per_item
    frames, truths = [], []
    for g, share in enumerate(shares):
        system = f"S{g:02d}"
        total = n_items + n_metric_only
        t = rng.choice(k, size=total, p=np.asarray(share, dtype=float))
        met = None
        if metric is not None:
            mconf = np.asarray(metric, dtype=float)
            cum = np.cumsum(mconf[t], axis=1)
            met = (cum < rng.random(total)[:, None]).sum(axis=1)
        n_per = rng.integers(lo, hi + 1, size=n_items)
        rows = []
        for i in range(n_items):
            for r in rng.choice(len(conf), n_per[i], replace=False):
                rows.append((i, names[r], lev[rng.choice(k, p=conf[r][t[i]])]))
        frame = pd.DataFrame(rows, columns=["item", "annotator", "rating"])
        frame.insert(0, "system", system)
        if met is not None:
            frame["metric"] = met[frame["item"].to_numpy()]
        frames.append(frame)
        if n_metric_only and met is not None:
            extra = np.arange(n_items, total)
            frames.append(pd.DataFrame({"system": system, "item": extra, "annotator": None,
                                        "rating": np.nan, "metric": met[extra]}))
        truths.append(pd.DataFrame({"system": system, "item": np.arange(total),
                                    "truth": lev[t]}))
    return pd.concat(frames, ignore_index=True), pd.concat(truths, ignore_index=True)
