"""Planning cells: the posterior moments of ``alpha`` for one combination of sizes.

A *cell* is one planned experiment (``n_human``, ``n_metric``, the paired set); with
``simulate="sample"`` it stands for ``n_resamples`` simulated experiments drawn from the cell's own
seed.  :func:`evaluate` runs the cells of a table, a simulation, a search or an allocation:

1. every cell's count vectors are built in the calling process (expected counts, or draws from the
   cell's seed, so results depend neither on ``n_jobs`` nor on the backend);
2. each vector is keyed on what its posterior depends on (the paired counts drop out when the rates
   are known; with no metric ratings the exact posterior is ``Beta(prior + human counts)`` whatever
   the rates), so identical posteriors are computed once, and a process-wide cache keeps them
   across calls;
3. the distinct posteriors are computed here, or, when ``n_jobs`` (or a
   ``joblib.parallel_config`` in force) asks for several workers and there are at least two
   costly posteriors, in balanced batches (16 per worker) through :class:`joblib.Parallel` (any
   backend: loky, Dask, Ray).

The posterior itself is :func:`binaryeval.binary.engine.alpha_posterior` (or the paper's grid).
"""

from __future__ import annotations

import dataclasses
import math
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .. import _parallel
from ._setup import DEFAULT_GRID, Setup, paired, z_total
from .counts import KEYS, draws, expected

#: How many distinct posteriors the process-wide cache keeps (about 300 bytes each).
CACHE_SIZE = 32_768

_CACHE: OrderedDict[tuple, tuple[float, float]] = OrderedDict()


def cache_clear() -> None:
    """Forget every cached posterior (benchmarks use it to time a cold start)."""
    _CACHE.clear()


@dataclass(frozen=True)
class Cell:
    """One combination of sizes (checked); ``seed`` seeds its simulated experiments."""

    n_human: int
    n_metric: int
    n_paired: int
    psi: float | None
    seed: Any = None

    @property
    def uninformed(self) -> bool:
        """No rating informs alpha (``eps`` is 1 by the paper's convention)."""
        return self.n_human == 0 and self.n_metric == 0


@dataclass(frozen=True)
class Moments:
    """Posterior means and standard deviations of alpha for a cell (one per experiment)."""

    cell: Cell
    mean: np.ndarray
    sd: np.ndarray


def make_cell(n_human: int, n_metric: int, n_paired: Any, psi: Any, seed: Any = None) -> Cell:
    """A cell from checked sizes; ``n_paired`` and ``psi`` are checked here."""
    n_paired, psi = paired(n_human, n_paired, psi)
    return Cell(n_human, n_metric, n_paired, psi, seed)


def child_seeds(seed: Any, n: int) -> tuple[Any, list[Any]]:
    """Independent seeds for ``n`` cells, and the seed to report.

    ``seed=None`` draws fresh entropy and reports it, so that a result can be reproduced from its
    ``settings["seed"]``; a Generator or SeedSequence spawns its children.
    """
    if isinstance(seed, np.random.Generator):
        return seed, list(seed.spawn(n))
    sequence = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    reported = sequence.entropy if seed is None else seed
    return reported, list(sequence.spawn(n))


# -- the posterior of one count vector ------------------------------------------------------------
def _key(s: Setup, counts: tuple[int, ...]) -> tuple:
    """What the posterior of ``counts`` depends on under the settings ``s``."""
    rho = eta = None
    if s.rates == "known":   # the paired counts only estimate the rates
        counts = counts[:4] + (0, 0, 0, 0)
        rho, eta = s.rho, s.eta
    if s.method == "exact" and counts[3] == 0:
        # no metric ratings: the exact posterior is Beta(prior + human counts), whatever the rates
        counts = counts[:2] + (0, 0, 0, 0, 0, 0)
        rho = eta = None
    return counts, rho, eta, s.prior, s.rate_prior, s.method, s.grid


def _scalar(value: Any) -> float:
    """A moment of the posterior object, whether it is an attribute or a scipy-style method."""
    return float(value() if callable(value) else value)


def posterior_moments(key: tuple) -> tuple[float, float]:
    """Posterior mean and variance of alpha for one key of :func:`_key`."""
    counts, rho, eta, prior, rate_prior, method, grid = key
    kw = dict(zip(KEYS, counts, strict=True))
    if method == "grid":
        from ..binary.grid import grid_posterior

        post = grid_posterior(**kw, rho=rho, eta=eta, prior=prior, rate_prior=rate_prior,
                              grid=DEFAULT_GRID if grid is None else grid)
    else:
        from ..binary.engine import alpha_posterior

        post = alpha_posterior(**kw, rho=rho, eta=eta, prior=prior, rate_prior=rate_prior,
                               method="exact")
    return _scalar(post.mean), _scalar(post.var)


def _batch_moments(keys: Sequence[tuple]) -> list[tuple[float, float]]:
    """The moments of several keys (one joblib task)."""
    return [posterior_moments(k) for k in keys]


# -- running many cells ---------------------------------------------------------------------------
def _compute(keys: list[tuple], n_jobs: int | None, progress: bool | None,
             desc: str) -> dict[tuple, tuple[float, float]]:
    """The moments of distinct keys, here or on joblib's workers."""
    out: dict[tuple, tuple[float, float]] = {}
    if not keys:
        return out
    bar = _parallel.progress_bar(len(keys), progress, desc)
    try:
        costly = [k for k in keys if k[5] != "exact" or k[0][3] > 0]
        workers = _parallel.workers(n_jobs) if len(costly) >= 2 else 1
        here = keys
        if workers > 1:
            from joblib import Parallel, delayed

            # more metric ratings: more mixture components
            batches = _parallel.deal(costly, lambda k: k[0][3], workers)
            results = Parallel(n_jobs=n_jobs, return_as="generator")(
                delayed(_batch_moments)(b) for b in batches)
            for batch, values in zip(batches, results, strict=True):
                out.update(zip(batch, values, strict=True))
                bar.update(len(batch))
            here = [k for k in keys if k not in out]
        for k in here:
            out[k] = posterior_moments(k)
            bar.update(1)
    finally:
        bar.close()
    return out


def _vectors(s: Setup, cell: Cell, simulate: str, n_resamples: int) -> list[tuple]:
    """The keys of a cell's experiments (none for an uninformed cell)."""
    if cell.uninformed:
        return []
    sizes = (cell.n_human, cell.n_metric, cell.n_paired, cell.psi)
    if simulate == "expected":
        return [_key(s, expected(s, *sizes))]
    return [_key(s, c) for c in draws(s, *sizes, n_resamples, cell.seed)]


def evaluate(s: Setup, cells: Iterable[Cell], *, simulate: str = "expected",
             n_resamples: int = 1, n_jobs: int | None = None, progress: bool | None = False,
             desc: str = "planning") -> list[Moments]:
    """Posterior moments for every cell, in order (see the module notes for how they are run)."""
    cells = list(cells)
    vectors = [_vectors(s, c, simulate, n_resamples) for c in cells]
    wanted = dict.fromkeys(k for keys in vectors for k in keys)
    found = {k: _CACHE[k] for k in wanted if k in _CACHE}
    computed = _compute([k for k in wanted if k not in found], n_jobs, progress, desc)
    for k, v in computed.items():
        _CACHE[k] = v
    while len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    found.update(computed)
    out = []
    for cell, keys in zip(cells, vectors, strict=True):
        if cell.uninformed:
            nan = np.full(n_resamples if simulate == "sample" else 1, np.nan)
            out.append(Moments(cell, nan, nan))
            continue
        moments = [found[k] for k in keys]
        out.append(Moments(cell, np.array([m for m, _ in moments]),
                           np.array([math.sqrt(max(v, 0.0)) for _, v in moments])))
    return out


def epsilon(s: Setup, moments: Moments) -> float:
    """``eps`` of a cell: ``sqrt(2) (z_{1 - sig_level/2} + z_power)`` times the mean posterior sd.

    1 for an uninformed cell (``z_0.5 = 0``: the papers' eps at the default power).
    """
    if moments.cell.uninformed:
        return 1.0
    return s.epsilon(float(moments.sd.mean()))


#: ``variance=``: the papers' equal variances, or each system's own
VARIANCES = ("equal", "both")


def other_sd(s: Setup, cell: Cell, diff: float, *, simulate: str = "expected",
             n_resamples: int = 1) -> float:
    """Mean posterior sd of alpha of the other system, ``diff`` from ``s.alpha``, the same sizes.

    The larger of the two systems at ``alpha - diff`` and ``alpha + diff`` that lie in [0, 1]
    (the one nearer 0.5, whose posterior is wider, makes the comparison harder); when neither
    does, the bound farther from ``alpha``.  ``cell`` keeps its seed, so simulated experiments
    of both systems are drawn alike.
    """
    sides = [a for a in (s.alpha - diff, s.alpha + diff) if 0.0 <= a <= 1.0]
    if not sides:
        sides = [0.0 if s.alpha >= 0.5 else 1.0]
    sds = []
    for a in sides:
        (m,) = evaluate(dataclasses.replace(s, alpha=a), [cell], simulate=simulate,
                        n_resamples=n_resamples)
        sds.append(float(m.sd.mean()))
    return max(sds)


def epsilon_both(s: Setup, cell: Cell, sd: float, *, simulate: str = "expected",
                 n_resamples: int = 1, tol: float = 1e-7) -> float:
    """Smallest ``d`` with ``d >= (z_{1 - sig_level/2} + z_power) sqrt(sd^2 + sd_d^2)``.

    ``sd`` is this system's mean posterior sd and ``sd_d`` that of the other system ``d`` away
    (:func:`other_sd`): the detectable difference when each system has its own posterior
    variance, found by doubling and bisection on ``d``.  1 for an uninformed cell.
    """
    if cell.uninformed:
        return 1.0
    z = z_total(s.sig_level, s.power)

    def need(d: float) -> float:
        return z * math.hypot(sd, other_sd(s, cell, d, simulate=simulate,
                                           n_resamples=n_resamples))

    hi = max(s.epsilon(sd), tol)
    while need(hi) > hi and hi < 4.0:
        hi *= 2.0
    if need(hi) > hi:   # no system in [0, 1] is that far: the sds alone are beyond any share
        return need(hi)
    lo = 0.0
    while hi - lo > tol * max(hi, 1e-3):
        mid = 0.5 * (lo + hi)
        if need(mid) <= mid:
            hi = mid
        else:
            lo = mid
    return hi


def epsilons(s: Setup, results: Sequence[Moments], variance: str = "equal", *,
             simulate: str = "expected", n_resamples: int = 1) -> list[float]:
    """``eps`` of every cell under ``variance`` (:data:`VARIANCES`), in order.

    ``"equal"``: :func:`epsilon`; ``"both"``: :func:`epsilon_both` from the cell's mean posterior
    sd, the other system's experiments drawn from the cell's own seed (as
    :func:`~binaryeval.plan.detectable_difference` draws them for that cell alone).
    """
    if variance == "both":
        return [1.0 if r.cell.uninformed else
                epsilon_both(s, r.cell, float(r.sd.mean()), simulate=simulate,
                             n_resamples=n_resamples) for r in results]
    return [epsilon(s, r) for r in results]


def frame(s: Setup, results: list[Moments], simulated: bool = True,
          eps: Sequence[float] | None = None) -> pd.DataFrame:
    """One row per cell: sizes, ``epsilon`` and the spread of the simulated experiments.

    With expected counts (``simulated=False``) there are no experiments: their columns (``sd_sd``,
    ``bias``, ``bias_std_error``, ``empirical_sd``, ``rmse``) are NaN, since the one posterior's
    distance from ``alpha`` is not the estimator's error (its rmse is near the posterior sd).
    ``eps`` replaces the papers' ``epsilon`` of each cell (from :func:`epsilons`, e.g. with each
    system's own variance); the other columns describe this system's posterior.
    """
    rows = []
    for r in results:
        c = r.cell
        row: dict[str, Any] = {"n_human": c.n_human, "n_metric": c.n_metric,
                               "n_paired": c.n_paired}
        k = len(r.sd)
        if c.uninformed or not simulated:
            sd_mean = np.nan if c.uninformed else float(r.sd.mean())
            row.update(epsilon=1.0 if c.uninformed else s.epsilon(sd_mean), sd_mean=sd_mean,
                       sd_sd=np.nan, bias=np.nan, bias_std_error=np.nan, empirical_sd=np.nan,
                       rmse=np.nan, n_resamples=k)
        else:
            sd, mean = r.sd, r.mean
            row.update(epsilon=s.epsilon(float(sd.mean())), sd_mean=float(sd.mean()),
                       sd_sd=float(sd.std(ddof=1)) if k > 1 else np.nan,
                       bias=float(mean.mean() - s.alpha),
                       bias_std_error=float(mean.std(ddof=1) / math.sqrt(k)) if k > 1 else np.nan,
                       empirical_sd=float(mean.std(ddof=1)) if k > 1 else np.nan,
                       rmse=float(np.sqrt(np.mean((mean - s.alpha) ** 2))), n_resamples=k)
        rows.append(row)
    out = pd.DataFrame(rows)
    if eps is not None:
        out["epsilon"] = np.asarray(eps, dtype=float)
    return out
