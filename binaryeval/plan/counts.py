"""The counts of one planned experiment: expected (the paper, App. B) or sampled (thesis Alg. 2).

A count vector is a tuple in the order of :data:`KEYS`, the keywords of
:func:`binaryeval.binary.engine.alpha_posterior`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _validate as check
from ._setup import ROUNDING, Setup, model, paired, requires_model, size

__all__ = ["KEYS", "expected_counts"]

KEYS = ("human_pos", "human_total", "metric_pos", "metric_total", "tp", "fn", "tn", "fp")


def round_count(x: float, rounding: str) -> int:
    """``floor(x + 1/2)`` (``"half_up"``, the paper) or Python's ``round`` (``"half_even"``)."""
    if rounding == "half_up":
        return int(math.floor(x + 0.5))
    return int(round(x))


@requires_model
def expected_counts(alpha: float, rho: float, eta: float | None = None, n_human: int = 0,
                    n_metric: int = 0, n_paired: int | None = None, psi: float | None = None,
                    rounding: str = "half_up") -> dict[str, int]:
    """Counts of one experiment, each replaced by its rounded expected value (paper, App. B).

    Parameters
    ----------
    alpha : float
        Share of adequate (positive) outputs of the system.
    rho, eta : float
        The metric's true-positive and true-negative rates (``eta=None`` means ``rho``).
    n_human, n_metric, n_paired : int
        Human ratings (informing alpha), metric-only ratings, paired items (default ``n_human``).
    psi : float, optional
        Share of positives in the paired set (default ``alpha``).
    rounding : {"half_up", "half_even"}
        ``floor(x + 1/2)`` (the paper) or Python's ``round`` (the authors' tool).

    Returns
    -------
    dict
        ``human_pos, human_total, metric_pos, metric_total, tp, fn, tn, fp``: the keywords of
        :func:`binaryeval.binary.engine.alpha_posterior`, so that
        ``alpha_posterior(**expected_counts(...))`` is the planned posterior.  The keywords name
        cells of the count vector, not design sizes: ``human_total`` is every human rating that
        informs ``alpha`` (here ``n_human``: the paired items are counted once, in the human
        part) and ``tp + fn + tn + fp`` is ``n_paired``.  In :func:`binaryeval.fit_counts` the
        same keywords count the rows outside the paired table, and the fit's ``n_human`` adds
        the paired rows when they inform ``alpha``.

    Examples
    --------
    >>> from binaryeval.plan import expected_counts
    >>> expected_counts(0.3, 0.95, n_human=100, n_metric=100000, n_paired=1000, psi=0.3,
    ...                 rounding="half_even")["tp"]
    285
    """
    alpha, rho, eta = model(alpha, rho, eta)
    n_human, n_metric = size(n_human, "n_human"), size(n_metric, "n_metric")
    n_paired, psi = paired(n_human, n_paired, psi)
    setup = Setup(alpha, rho, eta, rounding=check.choice(rounding, "rounding", ROUNDING))
    return dict(zip(KEYS, expected(setup, n_human, n_metric, n_paired, psi), strict=True))


def expected(s: Setup, n_human: int, n_metric: int, n_paired: int,
             psi: float | None) -> tuple[int, ...]:
    """Expected counts of checked sizes (see :func:`expected_counts`)."""
    r = s.rounding
    share = s.alpha if psi is None else psi
    hp = round_count(s.alpha * n_human, r)
    mp = round_count((s.alpha * (s.rho + s.eta - 1) + 1 - s.eta) * n_metric, r)
    n_p = hp if (psi is None and n_paired == n_human) else round_count(share * n_paired, r)
    tp = round_count(s.rho * n_p, r)
    n_n = n_paired - n_p
    tn = round_count(s.eta * n_n, r)
    return hp, n_human, mp, n_metric, tp, n_p - tp, tn, n_n - tn


def sampled(rng: np.random.Generator, s: Setup, n_human: int, n_metric: int, n_paired: int,
            psi: float | None) -> tuple[int, ...]:
    """One simulated experiment: every count drawn from its binomial (thesis, Algorithm 2).

    The draws are made one experiment at a time, in a fixed order, so that a seed gives the same
    experiments however many are drawn.
    """
    alpha, rho, eta = s.alpha, s.rho, s.eta
    hp = int(rng.binomial(n_human, alpha))
    p = alpha * rho + (1 - alpha) * (1 - eta)
    mp = int(rng.binomial(n_metric, p))
    if psi is None:
        # The paired items are (a random subset of) the human-rated items.
        if n_paired == n_human:
            n_p = hp
        else:
            n_p = int(rng.hypergeometric(hp, n_human - hp, n_paired)) if n_paired else 0
    else:
        n_p = int(rng.binomial(n_paired, psi))
    tp = int(rng.binomial(n_p, rho))
    tn = int(rng.binomial(n_paired - n_p, eta))
    return hp, n_human, mp, n_metric, tp, n_p - tp, tn, n_paired - n_p - tn


def draws(s: Setup, n_human: int, n_metric: int, n_paired: int, psi: float | None,
          n_resamples: int, seed: Any) -> list[tuple[int, ...]]:
    """``n_resamples`` simulated experiments from ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    return [sampled(rng, s, n_human, n_metric, n_paired, psi) for _ in range(n_resamples)]
