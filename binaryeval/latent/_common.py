"""Shared pieces of the latent-truth faces: option checks, sampling runs, summaries, warnings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._warnings import warn
from ..data import keyed_by_label
from ..errors import ConvergenceWarning, CountsError, InputTypeError, ParameterError
from . import diagnostics, hierarchical
from .engine import Draws, Model, sample

RHAT_MAX = 1.01
ESS_MIN = 400.0


def sampler_options(draws: Any, chains: Any, warmup: Any, seed: Any, rates: Any = None
                    ) -> tuple[int, int, int, Any]:
    """Checked ``draws``, ``chains``, ``warmup`` and ``seed``.

    ``warmup`` defaults to ``draws // 4`` (at least 100); with ``rates="hierarchical"`` to
    :data:`hierarchical.WARMUP`.  The seed is a SeedSequence or the given number: fresh entropy
    for None, drawn here so that the fit can report it (:func:`reported_seed`).
    """
    draws = v.size(draws, "draws", minimum=4)
    chains = v.size(chains, "chains", minimum=1)
    default = (hierarchical.WARMUP if isinstance(rates, str) and rates == "hierarchical"
               else max(100, draws // 4))
    warmup = default if warmup is None else v.size(warmup, "warmup", minimum=0)
    seed = v.seed(seed)
    if isinstance(seed, np.random.Generator):
        seed = np.random.SeedSequence(int(seed.integers(2**63)))
    elif seed is None:
        seed = np.random.SeedSequence()
    return draws, chains, warmup, seed


def reported_seed(seed: Any, seed_used: Any) -> Any:
    """The seed a fit carries: one that reproduces it.

    The given number (or SeedSequence); for None or a Generator, whose state moves on, the
    entropy that :func:`sampler_options` drew (``seed=`` of that number gives the same draws).
    """
    if seed is None or isinstance(seed, np.random.Generator):
        return int(seed_used.entropy)
    return seed


class BetaRatePrior(tuple):
    """``rate_prior=(a, b)`` of :func:`binaryeval.fit` passed on to the latent-truth model.

    The Beta prior of ``rho`` and ``eta`` of a metric with two outputs is the Dirichlet prior
    ``[[a, b], [b, a]]`` of its confusion matrix (rows inadequate/adequate, columns metric
    0/1 or low/high bin); a matrix with more outputs has no such reading, and the error says
    which argument to give instead.
    """

    def matrix(self, shape: tuple[int, ...]) -> np.ndarray:
        """``[[a, b], [b, a]]`` for a 2 x 2 matrix; a ParameterError naming the fix otherwise."""
        a, b = self
        if tuple(shape) != (2, 2):
            raise ParameterError(
                f"rate_prior=({a:g}, {b:g}) is the Beta prior of rho and eta of a metric with "
                f"two outputs; this latent-truth fit's confusion matrix is {shape[0]} x "
                f"{shape[1]} (several metric terms or bins=): give its Dirichlet prior as "
                "rate_concentration= to binaryeval.fit_latent (a number or an array of that "
                "shape), or leave rate_prior= out (the uniform prior)")
        return np.array([[a, b], [b, a]], dtype=float)


def concentration(value: Any, name: str, shape: tuple[int, ...], *, what: str) -> np.ndarray:
    """A Dirichlet concentration: a positive number (every cell) or an array of ``shape``."""
    if isinstance(value, BetaRatePrior):
        return value.matrix(shape)
    if isinstance(value, (str, bytes)) or isinstance(value, Mapping):
        raise InputTypeError(f"{name}={value!r}: give a positive number (the same for every "
                             f"cell) or an array of shape {shape} ({what})")
    arr = np.asarray(value.to_numpy() if isinstance(value, pd.DataFrame) else value)
    if arr.dtype.kind not in "iuf" or arr.dtype == bool:
        raise InputTypeError(f"{name}={value!r}: Dirichlet concentrations are positive numbers, "
                             f"e.g. {name}=1 (uniform)")
    arr = arr.astype(float)
    if arr.ndim == 0:
        arr = np.full(shape, float(arr))
    if arr.shape != shape:
        raise ParameterError(f"{name} has shape {arr.shape}; give one number or an array of "
                             f"shape {shape} ({what})")
    if not (np.all(np.isfinite(arr)) and np.all(arr > 0)):
        raise ParameterError(f"{name}={arr.tolist()!r}: Dirichlet concentrations must be "
                             "positive and finite")
    return arr


def known_rates(rates: Any, groups: Sequence[str], k: int, j: int,
                classes: Sequence[str], outputs: Sequence[str]) -> np.ndarray:
    """Known ``Theta``: one K x J matrix for every group, or a mapping ``group -> matrix``.

    For one binary metric a matrix may be given as ``{"rho": .., "eta": ..}``, for every group
    or per group, as in :func:`binaryeval.fit`.
    """
    def rho_eta(value: Mapping, where: str) -> np.ndarray:
        if k != 2 or j != 2:
            raise ParameterError(f"rates{where}={{'rho': .., 'eta': ..}} describes one binary "
                                 f"metric; this model has {k} classes and {j} metric outputs: "
                                 f"give a {k} x {j} matrix")
        unknown = [name for name in ("rho", "eta") if value.get(name) is None]
        if unknown:
            raise ParameterError(f"rates{where}={dict(value)!r} leaves {unknown[0]} unknown: the "
                                 "latent-truth model takes a metric's rates known as a whole "
                                 "(both rho and eta) or estimated; give both, or leave rates= "
                                 "out (the exact binary model, one 0/1 metric without "
                                 "dependence=, takes one rate known and the other estimated)")
        rho = v.probability(value.get("rho"), f"rates{where}['rho']")
        eta = v.probability(value.get("eta"), f"rates{where}['eta']")
        return np.array([[eta, 1.0 - eta], [1.0 - rho, rho]])

    def one(value: Any, where: str) -> np.ndarray:
        if isinstance(value, Mapping) and {"rho", "eta"} & set(value):
            return rho_eta(value, where)
        if isinstance(value, pd.DataFrame):
            value = value.to_numpy()
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise InputTypeError(f"rates{where}={value!r}: give a {k} x {j} matrix of "
                                 "probabilities P(metric output | human class)") from None
        # "rates=" alone is the argument (the command line's --rates); "rates['A']" an entry
        label = f"rates{where}" if where else "rates="
        if arr.shape != (k, j):
            raise ParameterError(f"{label} has shape {arr.shape}; known rates are a {k} x "
                                 f"{j} matrix (rows: human classes {list(classes)}, columns: "
                                 f"metric outputs {list(outputs)})")
        if not (np.all(np.isfinite(arr)) and np.all(arr >= 0)
                and np.allclose(arr.sum(axis=1), 1.0, atol=1e-9)):
            raise ParameterError(f"{label} needs rows of probabilities summing to 1, "
                                 f"got row sums {np.round(arr.sum(axis=1), 6).tolist()}")
        return arr

    if isinstance(rates, Mapping) and not ({"rho", "eta"} & set(rates)):
        rates = keyed_by_label(rates, "rates")   # keys match groups by their text (1 is "1")
        missing = [g for g in groups if str(g) not in rates]
        if missing:
            raise ParameterError(f"rates= has no entry for group {missing[0]!r}; give a matrix "
                                 "for every group or one matrix for all")
        return np.stack([one(rates[str(g)], f"[{g!r}]") for g in groups])
    return one(rates, "")[None]


def possible_under_known(metric: np.ndarray, known: np.ndarray, groups: Sequence[str],
                         outputs: Sequence[str]) -> None:
    """Refuse metric-only ratings in an output that the known rates give probability 0.

    ``metric``: (G, J) metric-only counts; ``known``: (G or 1, K, J).  An output whose column
    of the known matrix is 0 in every human class cannot occur whatever the class shares are.
    """
    never = np.broadcast_to(~(np.asarray(known) > 0).any(axis=1), metric.shape)
    hit = np.argwhere(never & (metric > 0))
    if hit.size:
        gi, jj = (int(x) for x in hit[0])
        raise CountsError(
            f"group {groups[gi]!r} has {int(metric[gi, jj])} metric-only ratings "
            f"{outputs[jj]!r}, but the known rates give that output probability 0 in every "
            "human class (its column of the matrix is 0): the data have probability 0 under "
            "them. Check the known rates, or estimate them from the paired items "
            "(rates='estimate').")


def known_conflicts(paired: np.ndarray, known: np.ndarray, level: float = 0.999
                    ) -> list[tuple[int, int, float]]:
    """(group, human class, p-value) where the paired items reject a row of the known rates.

    Per group and human class the paired items' metric outputs are tested against that row of
    the known matrix (:func:`binaryeval._validate.known_rows_p_values`: ``p = 0`` for an output
    the row gives probability 0, an exact binomial test with two outputs, the G test with
    more).  Rows rejected at ``1 - level`` are returned.
    """
    known = np.broadcast_to(np.asarray(known, dtype=float), paired.shape)
    g, k, j = paired.shape
    p = v.known_rows_p_values(paired.reshape(g * k, j), known.reshape(g * k, j))
    return [(int(i // k), int(i % k), float(p[i])) for i in np.flatnonzero(p < 1.0 - level)]


def rates_mode(rates: Any) -> str:
    """``"estimate"``, ``"pooled"`` or ``"known"`` (old spellings get an error naming the new)."""
    return v.rates_mode(rates, example="[[0.9, 0.1], [0.2, 0.8]] (a K x J matrix, rows the "
                                       "human classes; one per group, or a mapping group -> "
                                       "matrix)")


def run(model: Model, draws: int, chains: int, warmup: int, seed: Any) -> Draws:
    """Run the sampler (numpy errors on impossible data stay silent; draws carry NaN then).

    ``rates="hierarchical"`` runs :func:`binaryeval.latent.hierarchical.sample`.
    """
    if model.rates == "hierarchical":
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return hierarchical.sample(model, draws=draws, chains=chains, warmup=warmup,
                                       seed=seed)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return sample(model, draws=draws, chains=chains, warmup=warmup, seed=seed)


def summarise(draws: np.ndarray, level: float) -> dict[str, np.ndarray]:
    """Posterior mean, sd, equal-tailed interval and diagnostics of (chains, draws, Q) draws."""
    flat = draws.reshape(-1, draws.shape[2])
    tail = (1.0 - level) / 2.0
    lower, upper = np.quantile(flat, [tail, 1.0 - tail], axis=0)
    rhat, ess_bulk, ess_tail = diagnostics.summary(draws)
    return {"estimate": flat.mean(axis=0), "std_error": flat.std(axis=0, ddof=1),
            "lower": lower, "upper": upper, "rhat": rhat, "ess_bulk": ess_bulk,
            "ess_tail": ess_tail}


def hdi(flat: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Shortest intervals holding ``level`` of the draws, per column of (n, Q) draws."""
    n = flat.shape[0]
    s = np.sort(flat, axis=0)
    width = max(1, int(np.ceil(level * n)))
    if width >= n:
        return s[0], s[-1]
    spans = s[width:] - s[:n - width]
    best = np.argmin(spans, axis=0)
    cols = np.arange(flat.shape[1])
    return s[best, cols], s[best + width, cols]


def interval_frame(draws: np.ndarray, level: float, kind: str, index: pd.Index) -> pd.DataFrame:
    """``lower``/``upper`` of (chains, draws, Q) draws, equal-tailed or highest-density."""
    level = v.level(level)
    kind = v.choice(kind, "kind", ("eti", "hdi"))
    flat = draws.reshape(-1, draws.shape[2])
    if kind == "eti":
        tail = (1.0 - level) / 2.0
        lower, upper = np.quantile(flat, [tail, 1.0 - tail], axis=0)
    else:
        lower, upper = hdi(flat, level)
    out = pd.DataFrame({"lower": lower, "upper": upper}, index=index)
    out.attrs.update(level=level, kind=kind)
    return out


#: R-hat beyond this says the chains sit in different modes rather than mix slowly
MODES_RHAT = 1.2


def warn_convergence(frame: pd.DataFrame, quantity: str, labels: Sequence[str],
                     draws: int, chains: int, modes: str | None = None) -> None:
    """One :class:`ConvergenceWarning` at the user's line when R-hat or ESS fail.

    ``modes``: what to say when R-hat is far above its bound (chains in different modes, which
    more draws do not join), for a model that has such modes.
    """
    r = frame["rhat"].to_numpy(dtype=float)
    eb = frame["ess_bulk"].to_numpy(dtype=float)
    et = frame["ess_tail"].to_numpy(dtype=float)
    if chains < 2:
        # R-hat compares chains: with one there is nothing to compare (NaN), and a sampler
        # stuck in one of two modes cannot be seen
        warn(f"the sampler's draws of {quantity} are unchecked: R-hat needs at least two "
             f"chains (chains={chains}), so whether they converged, or settled in one of "
             "several modes, cannot be told; run chains=4", ConvergenceWarning)
        return
    bad = (r > RHAT_MAX) | (eb < ESS_MIN) | (et < ESS_MIN)
    if not bad.any():
        return
    idx = np.flatnonzero(bad)
    worst = idx[np.argmin(np.fmin(eb[idx], et[idx]) / np.maximum(r[idx], 1.0))]
    more = f" (and {idx.size - 1} more)" if idx.size > 1 else ""
    # ESS grows with the draws: enough draws for the smallest ESS of any flagged quantity to
    # reach ESS_MIN (with a tenth to spare), rounded up to a hundred; at least twice as many
    smallest = float(np.nanmin(np.fmin(eb[idx], et[idx]))) if np.isfinite(
        np.fmin(eb[idx], et[idx])).any() else np.nan
    needed = 2 * draws
    if np.isfinite(smallest) and smallest > 0:
        needed = max(needed, int(np.ceil(1.1 * draws * ESS_MIN / smallest / 100.0)) * 100)
    warn(
        f"the sampler's draws of {quantity} for {labels[worst]}{more} are not yet reliable: "
        f"R-hat {_beside(r[worst], RHAT_MAX, 3)} (want <= {RHAT_MAX}), bulk ESS "
        f"{_beside(eb[worst], ESS_MIN, 0)}, tail ESS {_beside(et[worst], ESS_MIN, 0)} "
        f"(want >= {ESS_MIN:.0f}); run more draws, e.g. draws={needed} "
        f"(or chains={chains + 2}), and check again"
        + (f"; {modes}" if modes and np.nanmax(r[idx]) > MODES_RHAT else ""), ConvergenceWarning)


def _beside(value: float, bound: float, decimals: int) -> str:
    """``value`` with ``decimals`` decimals, or more where fewer would print it on the bound.

    An R-hat of 1.0104 is above the bound 1.01 but prints as 1.010 with three decimals (and an
    ESS of 399.6 as 400): a diagnostic shown beside its bound must read on its own side of it.

    Examples
    --------
    >>> _beside(1.0104, 1.01, 3), _beside(1.0204, 1.01, 3), _beside(399.6, 400.0, 0)
    ('1.0104', '1.020', '399.6')
    """
    if not np.isfinite(value):
        return f"{value}"
    for d in range(decimals, decimals + 8):
        text = f"{value:.{d}f}"
        if (float(text) == bound) == (value == bound):
            return text
    return f"{value!r}"


def label_pair(a: Any, b: Any) -> str:
    return f"{a} vs {b}"


# ----------------------------------------------------------------------------------------------
# what the data cannot say: posteriors that are essentially the prior
# ----------------------------------------------------------------------------------------------

#: A posterior whose sd is at least this share of the prior's is "essentially the prior": the data
#: removed less than 44 % of the prior variance (with a uniform prior, fewer than about three human
#: ratings' worth of information).
PRIOR_DOMINATED = 0.75


def prior_sd_share(conc: np.ndarray, first: int, second: int | None = None) -> float:
    """Prior sd of a Dirichlet(``conc``) share, or of the difference of two shares.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.latent._common import prior_sd_share
    >>> round(prior_sd_share(np.array([1.0, 1.0, 1.0]), 0, 2), 4)   # diff under Dirichlet(1, 1, 1)
    0.4082
    >>> round(prior_sd_share(np.array([1.0, 1.0]), 1), 4)           # Beta(1, 1)
    0.2887
    """
    c = np.asarray(conc, dtype=float)
    c0 = c.sum()
    mean = c / c0
    var = mean * (1 - mean) / (c0 + 1)
    if second is None:
        return float(np.sqrt(var[first]))
    cov = -mean[first] * mean[second] / (c0 + 1)
    return float(np.sqrt(var[first] + var[second] - 2 * cov))


def effective_human(per_item_var: np.ndarray, post_var: np.ndarray, c0: float) -> np.ndarray:
    """Human ratings alone that would give the posterior variance: ``V / var - c0 - 1``.

    ``V`` is the variance one rating contributes (``p (1 - p)`` for a share, ``p1 + p3 - (p1 -
    p3)^2`` for a difference of shares) at the posterior means, ``c0`` the prior's total
    concentration: exact for a Dirichlet posterior of human ratings alone.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.latent._common import effective_human
    >>> n, a = 40, np.array([1.0, 1.0])            # 30 of 40 positive: Beta(31, 11)
    >>> m = 31 / 42; var = m * (1 - m) / 43
    >>> round(float(effective_human(np.array(m * (1 - m)), np.array(var), 2.0)), 9)
    40.0
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(post_var > 0, per_item_var / post_var - c0 - 1.0, np.inf)


def resolve_order(order: Any, labels: Sequence[str], score: Mapping[str, float],
                  last: Sequence[str] = ()) -> tuple[str, ...]:
    """Display order of labels.

    ``"estimate"`` (score, highest first; ``last`` at the end), ``"input"`` (as the labels
    sort) or a list naming every label once.

    Examples
    --------
    >>> from binaryeval.latent._common import resolve_order
    >>> resolve_order("estimate", ["a", "b", "c"], {"a": 0.1, "b": 0.5, "c": 0.3}, last=["b"])
    ('c', 'a', 'b')
    """
    labels = [str(x) for x in labels]
    if isinstance(order, str):
        v.choice(order, "order", ("estimate", "input"))
        if order == "input":
            return tuple(labels)
        tail = set(last)
        head = sorted((g for g in labels if g not in tail), key=lambda g: -score[g])
        return tuple(head + sorted((g for g in labels if g in tail), key=lambda g: -score[g]))
    try:
        given = [str(g) for g in order]
    except TypeError:
        raise InputTypeError(f"order={order!r}: give 'estimate', 'input' or a list of the "
                             "groups") from None
    if sorted(given) != sorted(labels):
        raise ParameterError(f"order={given!r} must list every group once: {sorted(labels)}")
    return tuple(given)


def display_index(rows: Sequence[tuple], names: Sequence[str]) -> pd.MultiIndex:
    """A MultiIndex of ``rows`` whose levels keep the order the rows show them in.

    ``from_tuples`` sorts each level's values, so that rows in display order (classes
    ``first``, ``tie``, ``second``) are not sorted by the index's codes and a partial key
    (``frame.loc[("A", "B")]``) costs pandas' PerformanceWarning; with each level in order of
    first appearance, rows listed group by group are sorted by their codes.

    Examples
    --------
    >>> from binaryeval.latent._common import display_index
    >>> ix = display_index([("A", "first"), ("A", "tie"), ("A", "second")], ["g", "class"])
    >>> list(ix.levels[1]), ix.codes[1].tolist()
    (['first', 'tie', 'second'], [0, 1, 2])
    """
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(names)
    codes, levels = [], []
    for values in columns:
        c, u = pd.factorize(pd.Index(list(values), tupleize_cols=False), sort=False)
        codes.append(c)
        levels.append(u)
    return pd.MultiIndex(levels=levels, codes=codes, names=list(names))


def refuse_resampling(n_resamples: Any, seed: Any, post: Any) -> None:
    """Refuse ``ranks(n_resamples=, seed=)`` of a fit that ranks its sampler's draws.

    The exact binary model draws its ranks anew and takes both; a sampled fit has its draws
    (their seed is the fit's), so an argument that would change nothing is refused by name.
    """
    given = [f"{name}={value!r}" for name, value in (("n_resamples", n_resamples),
                                                     ("seed", seed)) if value is not None]
    if given:
        raise ParameterError(
            f"{', '.join(given)}: ranks() of this fit ranks the sampler's own draws "
            f"({post.n_chains} chains x {post.n_draws} draws, seed={post.seed!r} of the fit) "
            "and draws nothing anew: leave it out (for more or other draws, refit with "
            "draws=, chains= or seed=)")
