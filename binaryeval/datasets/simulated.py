"""Simulated data whose truth is known, for examples and checks."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import ParameterError

__all__ = ["simulate_battles", "simulate_ratings"]


def simulate_battles(n: int = 1200, *,
                     seed: int | np.random.SeedSequence | np.random.Generator | None = None,
                     ) -> pd.DataFrame:
    """Pairwise verdicts of a human and of a judge that leans to the output shown first.

    Every row compares the outputs of systems ``"x"`` and ``"y"``; ``human`` and ``judge`` are
    1 (the first system's output is better), 0 (a tie) or -1 (the second's).  The human truth
    is 1 / 0 / -1 with probabilities 0.4 / 0.2 / 0.4.  The judge sees the outputs in a random
    order (``shown``: the system shown first); in that order, at a true tie it says "first"
    with probability 0.5, "tie" 0.3 and "second" 0.2 (a position lean of +0.3); otherwise it
    agrees with the human with probability 0.85 on ``"short"`` outputs and 0.6 on ``"long"``
    ones (``length``), says "tie" with probability 0.1 and the reverse otherwise.

    Parameters
    ----------
    n : int
        Rows.
    seed : int, SeedSequence or Generator, optional
        Seed of the simulation (the same seed, the same rows).

    Returns
    -------
    DataFrame
        Columns ``a``, ``b`` (the two systems), ``human``, ``judge``, ``shown``, ``length``.

    Examples
    --------
    >>> from binaryeval.datasets import simulate_battles
    >>> df = simulate_battles(seed=7)
    >>> df.shape
    (1200, 6)
    >>> sorted(df["human"].unique().tolist())
    [-1, 0, 1]
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParameterError(f"n={n!r}: give a whole number of rows, at least 1")
    rng = np.random.default_rng(seed)
    human = rng.choice([1, 0, -1], size=n, p=[0.4, 0.2, 0.4])
    shown_a, long = rng.random(n) < 0.5, rng.random(n) < 0.5
    h_pos, u = np.where(shown_a, human, -human), rng.random(n)
    correct = np.where(long, 0.6, 0.85)
    j_pos = np.where(h_pos == 0, np.where(u < 0.5, 1, np.where(u < 0.8, 0, -1)),
                     np.where(u < correct, h_pos, np.where(u < correct + 0.1, 0, -h_pos)))
    return pd.DataFrame({"a": "x", "b": "y", "human": human,
                         "judge": np.where(shown_a, j_pos, -j_pos),
                         "shown": np.where(shown_a, "x", "y"),
                         "length": np.where(long, "long", "short")})


def simulate_ratings(n: int = 150, *,
                     seed: int | np.random.SeedSequence | np.random.Generator | None = None,
                     ) -> pd.DataFrame:
    """Several human raters of known accuracy, and a metric, on two systems' outputs.

    Systems ``"A"`` and ``"B"`` have ``n`` outputs each, adequate with probability 0.7 and
    0.45 (``alpha``).  The metric gives the right 0/1 verdict with probability 0.8; each output
    is rated by 3 of the 4 annotators ``r1`` to ``r4``, who give the right verdict with
    probability 0.9, 0.85, 0.75 and 0.65.  One row per rating (the long data of
    :func:`binaryeval.fit_raters`).

    Parameters
    ----------
    n : int
        Outputs per system.
    seed : int, SeedSequence or Generator, optional
        Seed of the simulation (the same seed, the same rows).

    Returns
    -------
    DataFrame
        Columns ``system``, ``item``, ``annotator``, ``metric``, ``rating``.

    Examples
    --------
    >>> from binaryeval.datasets import simulate_ratings
    >>> df = simulate_ratings(seed=0)
    >>> df.shape
    (900, 5)
    >>> sorted(df["annotator"].unique())
    ['r1', 'r2', 'r3', 'r4']
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParameterError(f"n={n!r}: give a whole number of outputs per system, at least 1")
    rng = np.random.default_rng(seed)
    truth = rng.random(2 * n) < np.repeat([0.7, 0.45], n)
    metric = np.where(rng.random(2 * n) < 0.8, truth, ~truth).astype(int)
    accuracy = {"r1": 0.9, "r2": 0.85, "r3": 0.75, "r4": 0.65}
    rows = [{"system": "AB"[i // n], "item": i, "annotator": r, "metric": metric[i],
             "rating": int(t if rng.random() < accuracy[r] else 1 - t)}
            for i, t in enumerate(truth) for r in rng.choice(list(accuracy), 3, replace=False)]
    return pd.DataFrame(rows)
