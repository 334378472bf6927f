"""What the latent model's fits share: the rates table, the dependence alarm, direction checks."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _pooling
from .._directions import check_direction
from .._warnings import warn
from ..errors import ContradictionWarning, DependenceWarning, PoolingWarning
from . import _common, dependence
from .posterior import LatentPosterior


def rates_frame(post: LatentPosterior, index_rows: Sequence[tuple], names: Sequence[str],
                level: float, order: Sequence[int] | None = None) -> pd.DataFrame:
    """The model's posterior of ``Theta``: one row per (unit, human class, metric output).

    ``index_rows`` holds one tuple of index values per unit (group or pair), in the order of
    the posterior's groups; ``order`` the positions to show, in display order.
    """
    g, k, j = post.paired.shape
    order = list(range(g)) if order is None else list(order)
    theta = post.draws.theta
    tail = (1.0 - level) / 2.0
    if theta is not None:
        flat = theta.reshape(-1, theta.shape[2], k, j).astype(float)
        mean = flat.mean(axis=0)
        sd = flat.std(axis=0, ddof=1)
        lo, hi = np.quantile(flat, [tail, 1.0 - tail], axis=0)
    else:
        known = np.asarray(post.known, dtype=float)
        mean, sd, lo, hi = known, np.zeros_like(known), known, known
    shared = mean.shape[0] == 1
    rows, idx = [], []
    for u in order:
        t = 0 if shared else u
        for c in range(k):
            for o in range(j):
                idx.append((*index_rows[u], post.classes[c], post.outputs[o]))
                rows.append((mean[t, c, o], sd[t, c, o], lo[t, c, o], hi[t, c, o],
                             int(post.paired[u, c, o])))
    out = pd.DataFrame(rows, columns=["estimate", "std_error", "lower", "upper", "n_paired"],
                       index=_common.display_index(idx, [*names, "class", "metric_output"]))
    out.attrs.update(level=level, kind="eti", rates=post.rates,
                     method=("known" if theta is None else
                             "posterior draws of the model (paired and metric-only items)"))
    return out


def dependence_alarm(post: LatentPosterior, labels: Sequence[str], terms: Sequence[str]
                     ) -> str | None:
    """Warn when metrics fitted as independent err together on the paired items.

    With ``dependence="independent"``: log10 Bayes factor above :data:`dependence.THRESHOLD`;
    said once, loudly.
    """
    if post.dependence != "independent" or len(terms) < 2:
        return None
    check = dependence.check(post.paired, post.levels, labels, pooled=post.rates == "pooled")
    bf = check.attrs["log10_bf"]
    if not (np.isfinite(bf) and bf > dependence.THRESHOLD):
        return None
    message = (f"dependence='independent' treats {', '.join(map(repr, terms))} as erring "
               f"independently given the truth, but on the paired items they err together: the "
               f"dependence check's log10 Bayes factor is {bf:,.1f} for the joint model (above "
               f"{dependence.THRESHOLD:g} is decisive). The product model then counts the same "
               "evidence more than once and its intervals are too narrow (a metric and its copy "
               "cover the truth far less often than stated); refit with dependence='joint' "
               "(the default)")
    warn(message, DependenceWarning)
    return message


def pooling_check(post: LatentPosterior, labels: Sequence[str]) -> pd.DataFrame:
    """The check before pooling on the posterior's paired items (:mod:`binaryeval._pooling`).

    Kept for the fit's later calls (summary, the method): among 190 pairs it takes a second.
    """
    paired = np.ascontiguousarray(post.paired, dtype=np.int64)
    out = _cached_check(paired.tobytes(), paired.shape, tuple(str(x) for x in labels))
    frame = out.copy()
    frame.attrs.update(out.attrs)
    return frame


@functools.lru_cache(maxsize=8)
def _cached_check(data: bytes, shape: tuple[int, ...], labels: tuple[str, ...]) -> pd.DataFrame:
    return _pooling.check(np.frombuffer(data, dtype=np.int64).reshape(shape), labels)


def _describe_cell(post: LatentPosterior, check: pd.DataFrame, kind: str):
    """How a group's most deviating cell reads: ``kind`` names the ratings ("preference")."""
    index = {str(g): i for i, g in enumerate(check.index)}

    def describe(g: str) -> str:
        c, j, share, pooled, n = _pooling.largest_cell(post.paired, index[g])
        k = int(post.paired[index[g], c, j])
        return (f"metric {kind} {post.outputs[j]!r} where the human {kind} is "
                f"{post.classes[c]!r} in {k} of {n} paired items ({share:.2f}) against "
                f"{pooled:.2f} pooled")
    return describe


def pooling_alarm(post: LatentPosterior, labels: Sequence[str], units: str, kind: str
                  ) -> pd.DataFrame | None:
    """With ``rates="pooled"``: the check before pooling, and one warning when it fails.

    The warning is said when the groups' (pairs') paired items reject one confusion matrix;
    returns the check (None when the fit does not pool).
    """
    if post.rates != "pooled" or len(labels) < 2:
        return None
    check = pooling_check(post, labels)
    if not _pooling.passes(check) and np.isfinite(check.attrs["p_value"]):
        warn(_pooling.message(check, _describe_cell(post, check, kind), units=units,
                              matrix="one confusion matrix"), PoolingWarning)
    return check


def known_rates_alarm(post: LatentPosterior, labels: Sequence[str], units: str,
                      kind: str) -> str | None:
    """With known rates: one warning naming the rows of the known matrix the paired items reject.

    Known rates are used as given and the paired items' metric outputs inform nothing, so a
    matrix that contradicts them (:func:`binaryeval.latent._common.known_conflicts`, at 0.001)
    would otherwise go unnoticed.  Returns the message (None when there is nothing to say).
    """
    if post.rates != "known" or post.known is None:
        return None
    bad = _common.known_conflicts(post.paired, post.known)
    if not bad:
        return None
    known = np.broadcast_to(np.asarray(post.known, dtype=float), post.paired.shape)

    def row(values) -> str:
        return ", ".join(f"{o!r} {x:.3g}" for o, x in zip(post.outputs, values, strict=True))

    listed = "; ".join(
        f"{labels[g]}, human {kind} {post.classes[c]!r}: the metric gave "
        f"{row(post.paired[g, c])} against the known {row(known[g, c])} (p = {p:.2g})"
        for g, c, p in bad)
    n_units = len({g for g, _, _ in bad})
    message = (f"In {n_units} of {len(labels)} {units} the paired items rule out the known "
               f"rates: {listed}. Known rates are used as given, so the paired items' metric "
               f"{kind}s inform nothing and the shares rest on the given matrix. Check the "
               "known rates (and that the paired items use the same metric and coding), or "
               "let the paired items estimate them: rates='estimate'.")
    warn(message, ContradictionWarning)
    return message


def pooling_note(post: LatentPosterior, check: pd.DataFrame | None, units: str) -> str | None:
    """The summary's line about the check before pooling of a pooled fit.

    When the check passes, it says what the check can miss at the group (or pair) of median
    paired items, where that move exceeds the median interval's half-width (as the binary
    model's summary does): for a binary human rating and a metric with two outputs the exact
    :func:`binaryeval._pooling.unseen_shift`, as the binary model says it; for any other table
    (a metric's bins, several metrics' joint patterns, preference ratings)
    :func:`binaryeval._pooling.unseen_move`, read as a move of ``alpha`` (groups) or of
    ``diff = win_1 - win_2`` (pairs).
    """
    if post.rates != "pooled":
        return None
    caveat = None
    if _pooling.passes(check) and post.paired.shape[0] > 1:
        paired = np.asarray(post.paired, dtype=float)
        n = paired.sum(axis=(1, 2))
        at = int(np.argsort(n, kind="stable")[(len(n) - 1) // 2])
        name = str(check.index[at])
        text, move = None, float("nan")
        if paired.shape[1:] == (2, 2) and units == "groups":
            # a binary human rating and a metric with two outputs: classes and outputs run
            # (inadequate, adequate), the check's helper takes the adequate class and the
            # positive output first
            d, move = _pooling.unseen_shift(paired[:, ::-1, ::-1], at)
            if np.isfinite(move):
                text = _pooling.unseen_text((name, int(n[at]), d, min(move, 1.0)))
        elif units == "groups" and paired.shape[1] == 2:
            # alpha is the share of the second class (adequate)
            v, move = _pooling.unseen_move(paired, at, [0.0, 1.0],
                                           theta=post.theta_mean().to_numpy(dtype=float))
            if np.isfinite(move):
                text = _pooling.unseen_move_text(name, int(n[at]), post.outputs, v, move,
                                                 estimand="alpha", unit="group")
        elif units == "pairs" and tuple(post.classes) == ("first", "tie", "second"):
            v, move = _pooling.unseen_move(paired, at, [1.0, 0.0, -1.0],
                                           theta=post.theta_mean().to_numpy(dtype=float))
            if np.isfinite(move):
                text = _pooling.unseen_move_text(name, int(n[at]), post.outputs, v, move,
                                                 estimand="diff", unit="pair", whole=2.0)
        width = _median_half_width(post, units) if text else math.inf
        if move > width:
            caveat = (f"but {text} (the median interval's half-width is {width:.2f}): the "
                      "pooled intervals assume no such difference; rates='hierarchical' "
                      f"estimates how far the {units}' rates differ")
    return _pooling.summary_note(check, units=units, caveat=caveat)


def _median_half_width(post: LatentPosterior, units: str) -> float:
    """The median over groups of the half-width of the interval of alpha (or of a pair's diff)."""
    pi = np.asarray(post.draws.pi, dtype=float)
    # alpha is the adequate (last of two) class; diff = win_1 - win_2 (classes first, tie, second)
    draws = pi[..., 0] - pi[..., 2] if units == "pairs" else pi[..., -1]
    tail = (1.0 - post.level) / 2.0
    ends = np.quantile(draws.reshape(-1, draws.shape[-1]), [tail, 1.0 - tail], axis=0)
    return float(np.median((ends[1] - ends[0]) / 2.0))


def population_note(post: LatentPosterior, units: str) -> str | None:
    """The summary's line about the population level of ``rates="hierarchical"``."""
    if post.rates != "hierarchical":
        return None
    if post.paired.shape[0] < 2:
        one = units[:-1] if units.endswith("s") else units
        return (f"population level (rates='hierarchical'): with one {one} there is no "
                f"population to learn: how alike {units} are (the concentration) stays near its "
                "hyperprior, which then acts as a prior on this one confusion matrix; partial "
                f"pooling needs several {units} (for one {one}, rates='estimate')")
    pop = post.population()
    first = pop.groupby(level="class", sort=False).first()
    parts = [f"{c!r} {row.concentration:.3g} [{row.concentration_lower:.3g}, "
             f"{row.concentration_upper:.3g}]" for c, row in first.iterrows()]
    return (f"population level (rates='hierarchical'): the concentration of each human class's "
            f"row across {units} (median [{100 * post.level:g}% interval]): "
            + "; ".join(parts) + f". A rate of population mean m differs between {units} by an "
            "sd of sqrt(m (1 - m) / (concentration + 1)): large means alike (close to pooled), "
            "small means far apart; the means are in latent.population()")


def auc_from_counts(n0: np.ndarray, n1: np.ndarray) -> float:
    """Area under the ROC curve of ordered levels.

    P(level of a positive > a negative's), ties half, from the counts of negatives ``n0`` and
    positives ``n1`` per level.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.latent._fit import auc_from_counts
    >>> auc_from_counts(np.array([3, 1]), np.array([1, 3]))
    0.75
    """
    n0, n1 = np.asarray(n0, dtype=float), np.asarray(n1, dtype=float)
    total = n0.sum() * n1.sum()
    if total == 0:
        return float("nan")
    below = np.cumsum(n0) - n0
    return float((n1 * (below + 0.5 * n0)).sum() / total)


def preference_agreement(paired: np.ndarray, r: int, n_metrics: int) -> tuple[float, int, int]:
    """Agreement of the human and metric ``r`` on the decided item comparisons.

    The share where they prefer the same system (cells first/first and second/second against
    first/second and second/first), the number opposite and the number decided.
    """
    k = paired.shape[1]
    full = paired.sum(axis=0).reshape(k, *(3,) * n_metrics)
    other = tuple(1 + s for s in range(n_metrics) if s != r)
    margin = full.sum(axis=other) if other else full
    opposite = int(margin[0, 2] + margin[2, 0])
    decided = opposite + int(margin[0, 0] + margin[2, 2])
    return (1.0 - opposite / decided if decided else float("nan")), opposite, decided


def emit_direction(messages: list[str]) -> None:
    """Say the direction findings of one call as one warning."""
    from ..errors import DirectionWarning

    if messages:
        warn("; ".join(messages), DirectionWarning)


def check_terms(statistic: float, evidence: Any, **kw: Any) -> str | None:
    """:func:`binaryeval._directions.check_direction` without emitting (collected per call)."""
    return check_direction(statistic, evidence, emit=False, **kw)


def prior_dominated(sd: np.ndarray, prior_sd: float) -> np.ndarray:
    """Whether each posterior sd is at least :data:`_common.PRIOR_DOMINATED` of the prior's."""
    return np.asarray(sd, dtype=float) >= _common.PRIOR_DOMINATED * prior_sd


#: P(rho + eta <= 1) above which alpha counts as poorly identified (the exact binary model's)
UNIDENTIFIED_AT = 0.05


def identifiability_alarm(post: LatentPosterior, labels: Sequence[str]) -> str | None:
    """One binary metric (outputs 0/1): warn where ``P(rho + eta <= 1)`` is above 0.05.

    ``rho = Theta[1, 1]`` and ``eta = Theta[0, 0]``; the share of draws with ``rho + eta <= 1``
    is the posterior probability that the metric carries no information about ``alpha`` or
    reads it the wrong way round, the exact binary model's
    :class:`~binaryeval.IdentifiabilityWarning`.  Returns the message (None when every group
    is identified, or the metric is not one 0/1 metric).
    """
    from ..errors import IdentifiabilityWarning

    if tuple(post.outputs) != ("0", "1") or post.classes != ("0", "1"):
        return None
    theta = post.draws.theta
    if theta is None:
        known = np.broadcast_to(np.asarray(post.known, dtype=float), post.paired.shape)
        total = known[:, 1, 1] + known[:, 0, 0]
        prob = (total <= 1.0).astype(float)
    else:
        flat = theta.reshape(-1, theta.shape[2], 2, 2).astype(float)
        prob = (flat[:, :, 1, 1] + flat[:, :, 0, 0] <= 1.0).mean(axis=0)
        prob = np.broadcast_to(prob, (len(labels),))
    flagged = sorted(((float(p), str(g)) for g, p in zip(labels, prob, strict=True)
                      if p > UNIDENTIFIED_AT), reverse=True)
    if not flagged:
        return None
    listed = ", ".join(f"{g} ({p:.3f})" for p, g in flagged)
    if theta is None:
        advice = ("With known rates rho + eta <= 1 the metric carries no information about "
                  "alpha (or reads it the wrong way round); check the known rates.")
    else:
        advice = ("Too few paired rows pin down the metric's rates there, or the metric barely "
                  "tells adequate from inadequate outputs: these groups' posteriors rest on "
                  "their human ratings; add paired ratings or use a stronger metric.")
    message = (f"alpha is poorly identified in {len(flagged)} of {len(labels)} groups, where "
               f"the posterior probability that rho + eta <= 1 is high: {listed}. {advice}")
    warn(message, IdentifiabilityWarning)
    return message
