"""Planning an evaluation: how many human and metric ratings tell two systems apart.

The binary evaluation model (von Däniken et al. 2022, Sec. 4 and App. B) estimates the share of
positive outputs ``alpha`` of a system from human ratings (error-free), metric ratings of items without
a human rating, and paired items carrying both ratings (which estimate the metric's true-positive rate
``rho`` and true-negative rate ``eta``).  The *minimal detectable difference* at level ``gamma`` of two
systems whose posteriors of ``alpha`` have the same variance is

    eps = sqrt(2 var(alpha)) * z_{1 - gamma/2},

shown as 1.0 when no rating informs ``alpha`` (``n_human = n_metric = 0``).

Counts of one planned experiment
--------------------------------
``simulate="expected"`` (the paper) replaces every count by its expected value, rounded:

* ``n+ = r(alpha n_human)`` human positives; they inform ``alpha``;
* ``m+ = r((alpha (rho + eta - 1) + 1 - eta) n_metric)`` metric positives among ``n_metric`` items
  rated by the metric only;
* ``n_p = r(psi n_paired)`` positives among the ``n_paired`` paired items, ``n_TP = r(rho n_p)``,
  ``n_TN = r(eta (n_paired - n_p))``; they inform only ``rho`` and ``eta``.

``rounding="half_up"`` is the paper's ``floor(x + 1/2)``; ``rounding="half_even"`` is Python's
``round``, as in the authors' tool.  ``simulate="sample"`` (the thesis' Algorithm 2) draws the counts
from their binomials ``reps`` times instead.

The paired set
--------------
``n_human`` is always the number of human ratings that inform ``alpha``.  By default
(``n_paired=None``) the human-rated items are also rated by the metric, so ``n_paired = n_human``, the
paired human ratings *are* the human sample (counted once for ``alpha``) and ``psi = alpha``.  A
smaller ``n_paired`` is a subset of the human-rated items (again ``psi = alpha``).  A paired set larger
than the human sample, or one given an explicit share of positives ``psi``, is a separate calibration
set whose human ratings inform only the rates; this is how the authors' ``estimate_epsilon`` treats its
``n_rho_eta`` (its reference values are reproduced with ``psi = alpha``, see the tests).  To let such
a set also inform ``alpha``, add it to ``n_human``.

Posterior engines
-----------------
``method="exact"`` (the default) uses :func:`binaryeval.binary.engine.alpha_posterior`;
``method="grid"`` the paper's midpoint grid (:func:`binaryeval.binary.grid.grid_posterior`,
``grid=(2000, 1000, 1000)`` unless given), which is far slower and carries a discretisation error of
order ``1 / N_alpha^2`` in the variance.

Reproducing the paper
---------------------
With the default settings (``rounding="half_up"``, exact engine) all 56 cells of the paper's
Table 12 (``rates="estimated"``) and 29 of the 30 cells of Table 1 (``rates="known"``) are reproduced
to three decimals.  The exception is Table 1 at ``n_human = 2500, n_metric = 10000``: the paper prints
0.020, while its own procedure gives 0.0213 (the exact posterior, the paper's grid and the normal
approximation agree, under either rounding), and its neighbouring cells agree with this computation;
the printed value is most likely a typo.  The authors' tool values (``estimate_epsilon``) are
reproduced with ``rounding="half_even"`` and ``psi = alpha`` for its separate paired set: the counts
exactly, ``eps`` within 0.4% (the NUTS Monte-Carlo error is up to 2%).  Where the paper's grid and
the exact engine differ, the grid's error is of order ``1 / N_alpha^2`` in the variance (< 0.1% of
``eps`` in these tables).

Speed
-----
The cost is that of the posterior engine: tens of milliseconds per cell (``benchmarks/bench_plan.py``
prints the times of the paper's tables against its grid).
Identical count vectors are computed once per process (an LRU cache), and sweeps can be spread over
processes or a cluster (below).

Parallel sweeps
---------------
Tables, simulations and allocations evaluate their cells through :class:`joblib.Parallel` with
``n_jobs``; inside ``joblib.parallel_config(backend="dask")`` (with a ``dask.distributed.Client``) or
the Ray backend the same call runs on a cluster.  Cells in ``simulate="sample"`` mode draw from
independent child seeds of ``seed``, so results do not depend on ``n_jobs`` or the backend.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .errors import InputTypeError, ParameterError
from .summary import Summary

__all__ = [
    "AllocationResult",
    "DetectableDifferenceTable",
    "SampleSizeResult",
    "SimulationResult",
    "detectable_difference",
    "detectable_difference_table",
    "expected_counts",
    "optimal_allocation",
    "required_sample_size",
    "simulate",
]

PAPER_N_HUMAN = (0, 100, 250, 500, 1000, 2500, 5000, 10000)
PAPER_N_METRIC = (0, 1000, 2500, 5000, 10000, 50000, 100000)
DEFAULT_GRID = (2000, 1000, 1000)

_RATES = ("estimated", "known")
_SIMULATE = ("expected", "sample")
_ROUNDING = ("half_up", "half_even")
_METHODS = ("exact", "grid")


# ---------------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------------
def _prob(name: str, value, *, open_interval: bool = False) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"{name} must be a number, got {value!r} ({type(value).__name__}).")
    v = float(value)
    if open_interval:
        if not 0.0 < v < 1.0:
            raise ParameterError(f"{name} must lie strictly between 0 and 1, got {value!r}; "
                                 f"e.g. {name}=0.05.")
    elif not 0.0 <= v <= 1.0:
        raise ParameterError(f"{name} must be a probability in [0, 1], got {value!r}.")
    return v


def _size(name: str, value) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"{name} must be a whole number of ratings, got {value!r} "
                             f"({type(value).__name__}).")
    if not np.isfinite(value) or value != int(value):
        raise ParameterError(f"{name} must be a whole number of ratings, got {value!r}.")
    if value < 0:
        raise ParameterError(f"{name} must be >= 0, got {value!r}; a number of ratings cannot be "
                             f"negative.")
    return int(value)


def _choice(name: str, value, options: Sequence[str]) -> str:
    if value not in options:
        raise ParameterError(f"{name} must be one of {', '.join(map(repr, options))}, got {value!r}.")
    return value


def _check_model(alpha, rho, eta) -> tuple[float, float, float]:
    alpha = _prob("alpha", alpha)
    rho = _prob("rho", rho)
    eta = rho if eta is None else _prob("eta", eta)
    if rho + eta <= 1.0:
        raise ParameterError(f"rho + eta must exceed 1 (got rho={rho!r}, eta={eta!r}, sum "
                             f"{rho + eta:.6g}): a metric with rho + eta <= 1 carries no information "
                             f"about alpha (the model is unidentified); swap the metric's labels if "
                             f"it is worse than chance.")
    return alpha, rho, eta


def _check_paired(n_human: int, n_paired, psi) -> tuple[int, float | None]:
    n_paired = n_human if n_paired is None else _size("n_paired", n_paired)
    if psi is not None:
        psi = _prob("psi", psi)
    elif n_paired > n_human:
        raise ParameterError(
            f"n_paired ({n_paired}) exceeds n_human ({n_human}): such a paired set cannot be a subset "
            f"of the human-rated items, so its share of positives is not implied; pass psi (e.g. "
            f"psi=alpha for a random calibration sample, as the authors' tool assumes), or add the "
            f"paired items to n_human if their human ratings should also inform alpha.")
    return n_paired, psi


def _check_beta(name: str, value) -> tuple[float, float]:
    try:
        a, b = (float(v) for v in value)
    except (TypeError, ValueError):
        raise InputTypeError(f"{name} must be a pair (a, b) of Beta parameters, got {value!r}.") from None
    if not (a > 0 and b > 0):
        raise ParameterError(f"{name} must have both Beta parameters > 0, got {value!r}.")
    return a, b


def _round(x: float, rounding: str) -> int:
    if rounding == "half_up":
        return int(math.floor(x + 0.5))
    return int(round(x))


# ---------------------------------------------------------------------------------------------------
# counts and posterior
# ---------------------------------------------------------------------------------------------------
def expected_counts(alpha: float, rho: float, eta: float | None = None, n_human: int = 0,
                    n_metric: int = 0, n_paired: int | None = None, psi: float | None = None,
                    rounding: str = "half_up") -> dict[str, int]:
    """Counts of one experiment, each replaced by its rounded expected value (paper, App. B).

    Parameters
    ----------
    alpha, rho, eta : float
        Share of positives, true-positive rate and true-negative rate (``eta=None`` means ``rho``).
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
        :func:`binaryeval.binary.engine.alpha_posterior`.

    Examples
    --------
    >>> expected_counts(0.3, 0.95, n_human=100, n_metric=100000, n_paired=1000, psi=0.3,
    ...                 rounding="half_even")["tp"]
    285
    """
    alpha, rho, eta = _check_model(alpha, rho, eta)
    n_human, n_metric = _size("n_human", n_human), _size("n_metric", n_metric)
    n_paired, psi = _check_paired(n_human, n_paired, psi)
    _choice("rounding", rounding, _ROUNDING)
    return _expected(alpha, rho, eta, n_human, n_metric, n_paired, psi, rounding)


def _expected(alpha, rho, eta, n_human, n_metric, n_paired, psi, rounding) -> dict[str, int]:
    share = alpha if psi is None else psi
    hp = _round(alpha * n_human, rounding)
    mp = _round((alpha * (rho + eta - 1) + 1 - eta) * n_metric, rounding)
    n_p = hp if (psi is None and n_paired == n_human) else _round(share * n_paired, rounding)
    tp = _round(rho * n_p, rounding)
    n_n = n_paired - n_p
    tn = _round(eta * n_n, rounding)
    return {"human_pos": hp, "human_total": n_human, "metric_pos": mp, "metric_total": n_metric,
            "tp": tp, "fn": n_p - tp, "tn": tn, "fp": n_n - tn}


def _sampled(rng: np.random.Generator, alpha, rho, eta, n_human, n_metric, n_paired,
             psi) -> dict[str, int]:
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
    return {"human_pos": hp, "human_total": n_human, "metric_pos": mp, "metric_total": n_metric,
            "tp": tp, "fn": n_p - tp, "tn": tn, "fp": n_paired - n_p - tn}


def _posterior(human_pos=0, human_total=0, metric_pos=0, metric_total=0, tp=0, fn=0, tn=0, fp=0,
               rho=None, eta=None, prior=(1.0, 1.0), rate_prior=(1.0, 1.0), method="exact",
               grid=None):
    """The posterior of alpha from the chosen engine (exact by default, or the paper's grid)."""
    counts = dict(human_pos=human_pos, human_total=human_total, metric_pos=metric_pos,
                  metric_total=metric_total, tp=tp, fn=fn, tn=tn, fp=fp, rho=rho, eta=eta,
                  prior=prior, rate_prior=rate_prior)
    if method == "grid":
        from .binary.grid import grid_posterior
        return grid_posterior(**counts, grid=DEFAULT_GRID if grid is None else grid)
    from .binary.engine import alpha_posterior
    return alpha_posterior(**counts, method="exact")


@lru_cache(maxsize=4096)
def _moments(counts: tuple, rho, eta, prior, rate_prior, method, grid) -> tuple[float, float]:
    post = _posterior(*counts, rho=rho, eta=eta, prior=prior, rate_prior=rate_prior,
                      method=method, grid=grid)
    return float(post.mean()), float(post.var())


_KEYS = ("human_pos", "human_total", "metric_pos", "metric_total", "tp", "fn", "tn", "fp")


def _post_moments(c: dict, rates, rho, eta, prior, rate_prior, method, grid) -> tuple[float, float]:
    known = rates == "known"
    key = tuple(c[k] for k in _KEYS)
    if known:  # the paired counts are ignored when the rates are known
        key = key[:4] + (0, 0, 0, 0)
    return _moments(key, rho if known else None, eta if known else None, prior, rate_prior,
                    method, None if grid is None else tuple(grid))


# ---------------------------------------------------------------------------------------------------
# one cell
# ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Cell:
    alpha: float
    rho: float
    eta: float
    n_human: int
    n_metric: int
    n_paired: int
    psi: float | None
    rates: str
    simulate: str
    rounding: str
    reps: int
    seed: Any
    prior: tuple
    rate_prior: tuple
    method: str
    grid: tuple | None


def _run_cell(cell: _Cell) -> dict[str, Any]:
    """Posterior moments of one planned experiment (or of ``reps`` simulated ones)."""
    base = {"n_human": cell.n_human, "n_metric": cell.n_metric, "n_paired": cell.n_paired}
    if cell.n_human == 0 and cell.n_metric == 0:
        # No rating informs alpha: the convention of the paper and the authors' tool.
        nan = np.full(cell.reps if cell.simulate == "sample" else 1, np.nan)
        return {**base, "none": True, "mean": nan, "sd": nan}
    args = (cell.alpha, cell.rho, cell.eta, cell.n_human, cell.n_metric, cell.n_paired, cell.psi)
    if cell.simulate == "expected":
        draws = [_expected(*args, cell.rounding)]
    else:
        rng = np.random.default_rng(cell.seed)
        draws = [_sampled(rng, *args) for _ in range(cell.reps)]
    means, sds = [], []
    for c in draws:
        m, v = _post_moments(c, cell.rates, cell.rho, cell.eta, cell.prior, cell.rate_prior,
                             cell.method, cell.grid)
        means.append(m)
        sds.append(math.sqrt(max(v, 0.0)))
    return {**base, "none": False, "mean": np.array(means), "sd": np.array(sds)}


def _epsilon_from_sd(sd: float, gamma: float) -> float:
    return float(math.sqrt(2.0) * sd * stats.norm.ppf(1.0 - gamma / 2.0))


def _run_cells(cells: list[_Cell], n_jobs, progress, desc: str) -> list[dict[str, Any]]:
    """Evaluate cells in order, through joblib (any configured backend) when n_jobs asks for it."""
    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    work = sum(c.reps if c.simulate == "sample" else 1 for c in cells)
    if progress is None:
        show = None if work >= 500 else False   # None: tqdm shows it only on a terminal
    else:
        show = bool(progress)
    bar = tqdm(total=len(cells), desc=desc, disable=(True if show is False else (None if show is None else False)))
    try:
        if n_jobs == 1 or (n_jobs is None and _joblib_default_sequential()):
            out = []
            for c in cells:
                out.append(_run_cell(c))
                bar.update(1)
            return out
        gen = Parallel(n_jobs=n_jobs, return_as="generator")(delayed(_run_cell)(c) for c in cells)
        out = []
        for r in gen:
            out.append(r)
            bar.update(1)
        return out
    finally:
        bar.close()


def _joblib_default_sequential() -> bool:
    """True when no joblib configuration asks for a parallel backend (then skip joblib's overhead)."""
    try:
        from joblib.parallel import _get_active_backend
        backend, n_jobs = _get_active_backend()
    except Exception:  # pragma: no cover - private helper moved; joblib then decides
        return False
    name = type(backend).__name__
    return name in ("SequentialBackend",) or (n_jobs in (None, 1) and name == "LokyBackend")


def _make_cell(alpha, rho, eta, n_human, n_metric, n_paired, psi, rates, simulate, rounding, reps,
               seed, prior, rate_prior, method, grid) -> _Cell:
    n_human, n_metric = _size("n_human", n_human), _size("n_metric", n_metric)
    n_paired, psi = _check_paired(n_human, n_paired, psi)
    return _Cell(alpha, rho, eta, n_human, n_metric, n_paired, psi, rates, simulate, rounding, reps,
                 seed, prior, rate_prior, method, None if grid is None else tuple(int(g) for g in grid))


def _check_options(gamma, rates, simulate, rounding, reps, method, prior, rate_prior):
    gamma = _prob("gamma", gamma, open_interval=True)
    _choice("rates", rates, _RATES)
    _choice("simulate", simulate, _SIMULATE)
    _choice("rounding", rounding, _ROUNDING)
    _choice("method", method, _METHODS)
    reps = _size("reps", reps)
    if reps < 1:
        raise ParameterError(f"reps must be >= 1, got {reps!r}.")
    return gamma, reps, _check_beta("prior", prior), _check_beta("rate_prior", rate_prior)


# ---------------------------------------------------------------------------------------------------
# detectable difference
# ---------------------------------------------------------------------------------------------------
def detectable_difference(alpha: float, rho: float, eta: float | None = None, n_human: int = 0,
                          n_metric: int = 0, n_paired: int | None = None, gamma: float = 0.05,
                          rates: str = "estimated", simulate: str = "expected",
                          rounding: str = "half_up", reps: int = 50, seed=None, *,
                          psi: float | None = None, method: str = "exact",
                          prior: Sequence[float] = (1, 1), rate_prior: Sequence[float] = (1, 1),
                          grid: Sequence[int] | None = None) -> float:
    """Minimal difference in ``alpha`` two systems must have to be told apart.

    ``eps = sqrt(2 var(alpha)) z_{1 - gamma/2}`` for the posterior of ``alpha`` of one planned
    experiment (both systems are assumed to have the same posterior variance).

    Parameters
    ----------
    alpha : float
        Share of positive outputs of the system.
    rho, eta : float
        The metric's true-positive and true-negative rates (``eta=None`` means ``eta = rho``);
        ``rho + eta`` must exceed 1.
    n_human : int
        Human ratings that inform ``alpha``.
    n_metric : int
        Metric ratings of items without a human rating.
    n_paired : int, optional
        Items rated by both (default ``n_human``: the human-rated items are also metric-rated).
        See the module notes on the paired set.
    gamma : float
        Level of the comparison, in (0, 1).
    rates : {"estimated", "known"}
        Estimate ``rho``/``eta`` from the paired counts (paper Table 12) or treat them as known
        exactly (paper Table 1).
    simulate : {"expected", "sample"}
        Expected counts (the paper) or ``reps`` binomial draws (thesis Algorithm 2); with
        ``"sample"`` the result is ``sqrt(2) z`` times the mean posterior sd over the draws.
    rounding : {"half_up", "half_even"}
        Rounding of the expected counts: ``floor(x + 1/2)`` (paper) or Python's ``round``
        (the authors' tool).
    reps : int
        Number of simulated experiments (``simulate="sample"``).
    seed : int or numpy SeedSequence, optional
        Seed of the simulated draws.
    psi : float, optional
        Share of positives in the paired set; needed when ``n_paired > n_human`` (then the paired
        set is a separate calibration set that informs only the rates).
    method : {"exact", "grid"}
        Posterior engine.
    prior, rate_prior : (a, b)
        Beta priors of ``alpha`` and of each rate.
    grid : (N_alpha, N_rho, N_eta), optional
        Grid of ``method="grid"`` (default (2000, 1000, 1000)).

    Returns
    -------
    float
        ``eps``; 1.0 when ``n_human = n_metric = 0``.

    Examples
    --------
    >>> round(detectable_difference(0.6, 0.7, n_human=1000, rates="known"), 3)  # paper Table 1
    0.043
    """
    alpha, rho, eta = _check_model(alpha, rho, eta)
    gamma, reps, prior, rate_prior = _check_options(gamma, rates, simulate, rounding, reps, method,
                                                    prior, rate_prior)
    cell = _make_cell(alpha, rho, eta, n_human, n_metric, n_paired, psi, rates, simulate, rounding,
                      reps, seed, prior, rate_prior, method, grid)
    res = _run_cell(cell)
    if res["none"]:
        return 1.0
    return _epsilon_from_sd(float(np.mean(res["sd"])), gamma)


def _as_sizes(name: str, values) -> list[int]:
    if isinstance(values, (int, float, np.integer, np.floating)) and not isinstance(values, bool):
        values = [values]
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InputTypeError(f"{name} must be a number or a sequence of numbers, got {values!r}.")
    out = [_size(name, v) for v in values]
    if not out:
        raise ParameterError(f"{name} must hold at least one size, got an empty sequence.")
    return out


@dataclass(frozen=True)
class DetectableDifferenceTable:
    """Minimal detectable differences over a grid of sample sizes (paper Tables 1 and 12).

    ``to_frame()`` gives the table (index ``n_human``, columns ``n_metric``, values ``eps``);
    ``tidy()`` gives one row per cell; ``plot()`` draws eps against the number of metric ratings,
    one line per number of human ratings (paper Figs. 1-3).  ``loc`` reads cells as on the frame.
    """

    table: pd.DataFrame = field(repr=False)
    cells: pd.DataFrame = field(repr=False)
    settings: dict = field(default_factory=dict)

    @property
    def loc(self):
        return self.to_frame().loc

    def to_frame(self) -> pd.DataFrame:
        df = self.table.copy()
        df.attrs.update(self.settings)
        return df

    def tidy(self) -> pd.DataFrame:
        df = self.cells.copy()
        df.attrs.update(self.settings)
        return df

    def summary(self) -> Summary:
        info = {k: v for k, v in self.settings.items()}
        notes = ["eps = sqrt(2 var(alpha)) z_{1-gamma/2}; 1.0 where no rating informs alpha."]
        return Summary("Minimal detectable difference", info,
                       [("eps (rows n_human, columns n_metric)", self.table)], notes, digits=3)

    def __str__(self) -> str:
        return self.summary().as_text()

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return self.summary().as_html()

    def plot(self, ax=None, x: str = "n_metric", **kwargs):
        """Plot eps against ``x`` ("n_metric" or "n_human"), one line per value of the other size.

        Returns
        -------
        matplotlib.axes.Axes
        """
        import matplotlib.pyplot as plt

        _choice("x", x, ("n_metric", "n_human"))
        if ax is None:
            _, ax = plt.subplots()
        tab = self.table if x == "n_metric" else self.table.T
        other = "n_human" if x == "n_metric" else "n_metric"
        for label, row in tab.iterrows():
            ax.plot(row.index.to_numpy(dtype=float), row.to_numpy(dtype=float), marker="o",
                    label=f"{other} = {label}", **kwargs)
        ax.set_xscale("symlog", linthresh=max(1.0, float(np.min([v for v in tab.columns if v > 0] or [1]))))
        ax.set_xlabel(f"number of ratings ({x})")
        ax.set_ylabel(f"minimal detectable difference (gamma = {self.settings.get('gamma', 0.05)})")
        ax.legend(fontsize="small")
        return ax


def detectable_difference_table(alpha: float, rho: float, eta: float | None = None,
                                n_human: Sequence[int] = PAPER_N_HUMAN,
                                n_metric: Sequence[int] = PAPER_N_METRIC,
                                n_paired: int | None = None, gamma: float = 0.05,
                                rates: str = "estimated", simulate: str = "expected",
                                rounding: str = "half_up", reps: int = 50, seed=None, *,
                                psi: float | None = None, method: str = "exact",
                                prior: Sequence[float] = (1, 1),
                                rate_prior: Sequence[float] = (1, 1),
                                grid: Sequence[int] | None = None, n_jobs: int | None = None,
                                progress: bool | None = None) -> DetectableDifferenceTable:
    """Minimal detectable difference for every combination of ``n_human`` and ``n_metric``.

    Parameters are those of :func:`detectable_difference`, with ``n_human`` and ``n_metric``
    sequences (defaults: the sizes of the paper's Table 12).  ``n_paired=None`` pairs each row's
    human-rated items with metric ratings (``n_paired = n_human`` per row); an integer fixes it.
    ``n_jobs`` is passed to :class:`joblib.Parallel` (use ``joblib.parallel_config`` to run on Dask
    or Ray); ``progress`` shows a tqdm bar (default: on a terminal for long sweeps).

    Returns
    -------
    DetectableDifferenceTable
        A small immutable result object rather than a DataFrame subclass (so that ``plot()`` does not
        shadow pandas' own ``DataFrame.plot`` accessor): ``to_frame()`` is the table (index
        ``n_human``, columns ``n_metric``), ``loc`` reads cells, ``plot()`` draws the paper's figure,
        ``summary()`` prints it; in ``simulate="sample"`` mode
        ``tidy()`` also holds the mean bias and the spread of the posterior sd per cell.

    Examples
    --------
    >>> t = detectable_difference_table(0.6, 0.7, n_human=[0, 100], n_metric=[0, 1000],
    ...                                 rates="known")
    >>> t.to_frame().round(3).values.tolist()   # paper Table 1
    [[1.0, 0.109], [0.134, 0.085]]
    """
    alpha, rho, eta = _check_model(alpha, rho, eta)
    gamma, reps, prior, rate_prior = _check_options(gamma, rates, simulate, rounding, reps, method,
                                                    prior, rate_prior)
    hs, ms = _as_sizes("n_human", n_human), _as_sizes("n_metric", n_metric)
    pairs = [(h, m) for h in hs for m in ms]
    seeds = np.random.SeedSequence(seed).spawn(len(pairs)) if simulate == "sample" else [None] * len(pairs)
    cells = [_make_cell(alpha, rho, eta, h, m, n_paired, psi, rates, simulate, rounding, reps, s,
                        prior, rate_prior, method, grid) for (h, m), s in zip(pairs, seeds, strict=True)]
    results = _run_cells(cells, n_jobs, progress, "detectable difference")
    tidy = _tidy(results, alpha, gamma)
    table = tidy.pivot(index="n_human", columns="n_metric", values="epsilon")
    table = table.loc[list(dict.fromkeys(hs)), list(dict.fromkeys(ms))]
    settings = dict(alpha=alpha, rho=rho, eta=eta, gamma=gamma, rates=rates, simulate=simulate,
                    rounding=rounding, method=method, n_paired="n_human" if n_paired is None else n_paired,
                    psi="alpha" if psi is None else psi)
    if simulate == "sample":
        settings.update(reps=reps, seed=seed)
    return DetectableDifferenceTable(table=table, cells=tidy, settings=settings)


def _tidy(results: list[dict[str, Any]], alpha: float, gamma: float) -> pd.DataFrame:
    rows = []
    for r in results:
        row = {"n_human": r["n_human"], "n_metric": r["n_metric"], "n_paired": r["n_paired"]}
        if r["none"]:
            row.update(epsilon=1.0, sd_mean=np.nan, sd_sd=np.nan, bias=np.nan, bias_se=np.nan,
                       empirical_sd=np.nan, rmse=np.nan, reps=len(r["sd"]))
        else:
            sd, mean = r["sd"], r["mean"]
            k = len(sd)
            row.update(epsilon=_epsilon_from_sd(float(sd.mean()), gamma), sd_mean=float(sd.mean()),
                       sd_sd=float(sd.std(ddof=1)) if k > 1 else np.nan,
                       bias=float(mean.mean() - alpha),
                       bias_se=float(mean.std(ddof=1) / math.sqrt(k)) if k > 1 else np.nan,
                       empirical_sd=float(mean.std(ddof=1)) if k > 1 else np.nan,
                       rmse=float(np.sqrt(np.mean((mean - alpha) ** 2))), reps=k)
        rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------------
# simulation
# ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SimulationResult:
    """Bias and spread of the posterior of ``alpha`` over repeated simulated experiments.

    ``to_frame()`` has one row per combination of sizes with ``bias`` (mean of posterior mean minus
    alpha), ``bias_se``, ``sd_mean`` (mean posterior sd), ``sd_sd`` (its spread over the
    repetitions), ``empirical_sd`` (sd of the posterior means), ``rmse`` and ``epsilon``
    (``sqrt(2) z sd_mean``).  ``draws`` holds every repetition.
    """

    cells: pd.DataFrame = field(repr=False)
    draws: pd.DataFrame = field(repr=False)
    settings: dict = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        df = self.cells.copy()
        df.attrs.update(self.settings)
        return df

    def summary(self) -> Summary:
        cols = ["n_human", "n_metric", "n_paired", "bias", "bias_se", "sd_mean", "sd_sd",
                "empirical_sd", "rmse", "epsilon"]
        return Summary("Simulated experiments", dict(self.settings),
                       [("per sample size", self.cells[cols].set_index(["n_human", "n_metric"]))],
                       ["bias = mean posterior mean - alpha; sd_mean/sd_sd = mean/sd of the posterior "
                        "sd over the repetitions."], digits=4)

    def __str__(self) -> str:
        return self.summary().as_text()

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return self.summary().as_html()

    def plot(self, ax=None, x: str | None = None, **kwargs):
        """Bias (with +- 2 standard errors) and mean posterior sd against ``x`` (thesis Figs. 5.3-5.4).

        ``x`` defaults to the size that varies most.  Returns the Axes (two panels are drawn on a
        new figure when ``ax`` is None; with ``ax`` given both curves share it).
        """
        import matplotlib.pyplot as plt

        df = self.cells
        if x is None:
            x = "n_human" if df["n_human"].nunique() >= df["n_metric"].nunique() else "n_metric"
        _choice("x", x, ("n_human", "n_metric"))
        other = "n_metric" if x == "n_human" else "n_human"
        if ax is None:
            _, axes = plt.subplots(1, 2, figsize=(10, 4))
        else:
            axes = [ax, ax]
        for value, sub in df.groupby(other):
            sub = sub.sort_values(x)
            axes[0].errorbar(sub[x], sub["bias"], yerr=2 * sub["bias_se"], marker="o", capsize=3,
                             label=f"{other} = {value}", **kwargs)
            axes[1].plot(sub[x], sub["sd_mean"], marker="o", label=f"sd, {other} = {value}", **kwargs)
        axes[0].axhline(0.0, color="grey", lw=0.8)
        axes[0].set_ylabel("bias of the posterior mean")
        axes[1].set_ylabel("mean posterior sd")
        for a in {id(a): a for a in axes}.values():
            a.set_xlabel(x)
            a.legend(fontsize="small")
        return axes[0]


def simulate(alpha: float, rho: float, eta: float | None = None, n_human=0, n_metric=0,
             n_paired: int | None = None, gamma: float = 0.05, rates: str = "estimated",
             reps: int = 50, seed=None, *, psi: float | None = None, method: str = "exact",
             prior: Sequence[float] = (1, 1), rate_prior: Sequence[float] = (1, 1),
             grid: Sequence[int] | None = None, n_jobs: int | None = None,
             progress: bool | None = None) -> SimulationResult:
    """Repeat a planned experiment with binomial counts and summarise the estimator.

    Each repetition draws ``n+ ~ Bin(n_human, alpha)``, ``m+ ~ Bin(n_metric, p)``, the paired
    positives (the human positives themselves when ``n_paired = n_human``, a hypergeometric subset
    when smaller, ``Bin(n_paired, psi)`` for a separate set), ``n_TP ~ Bin(n_p, rho)`` and
    ``n_TN ~ Bin(n_paired - n_p, eta)``, then computes the posterior of alpha (thesis Algorithm 2).

    Parameters
    ----------
    alpha, rho, eta, n_paired, gamma, rates, psi, method, prior, rate_prior, grid
        As in :func:`detectable_difference`.
    n_human, n_metric : int or sequence of int
        Sizes; every combination is simulated.
    reps : int
        Repetitions per combination.
    seed : int, optional
        Seed; each combination uses an independent child seed.
    n_jobs, progress
        As in :func:`detectable_difference_table`.

    Returns
    -------
    SimulationResult

    Examples
    --------
    >>> res = simulate(0.6, 0.8, n_human=[50, 200], n_metric=1000, reps=20, seed=1)
    >>> res.to_frame()[["n_human", "bias", "sd_mean"]].shape
    (2, 3)
    """
    alpha, rho, eta = _check_model(alpha, rho, eta)
    gamma, reps, prior, rate_prior = _check_options(gamma, rates, "sample", "half_up", reps, method,
                                                    prior, rate_prior)
    hs, ms = _as_sizes("n_human", n_human), _as_sizes("n_metric", n_metric)
    pairs = [(h, m) for h in hs for m in ms]
    seeds = np.random.SeedSequence(seed).spawn(len(pairs))
    cells = [_make_cell(alpha, rho, eta, h, m, n_paired, psi, rates, "sample", "half_up", reps, s,
                        prior, rate_prior, method, grid) for (h, m), s in zip(pairs, seeds, strict=True)]
    results = _run_cells(cells, n_jobs, progress, "simulate")
    draws = pd.concat([pd.DataFrame({"n_human": r["n_human"], "n_metric": r["n_metric"],
                                     "rep": np.arange(len(r["sd"])), "mean": r["mean"], "sd": r["sd"]})
                       for r in results], ignore_index=True)
    settings = dict(alpha=alpha, rho=rho, eta=eta, gamma=gamma, rates=rates, reps=reps, seed=seed,
                    method=method, n_paired="n_human" if n_paired is None else n_paired,
                    psi="alpha" if psi is None else psi)
    return SimulationResult(cells=_tidy(results, alpha, gamma), draws=draws, settings=settings)


# ---------------------------------------------------------------------------------------------------
# required sample size
# ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SampleSizeResult:
    """The smallest size reaching a target ``eps``, or why none can.

    Attributes
    ----------
    size : int or None
        Smallest value of ``vary`` with ``eps <= epsilon`` (None when unattainable).
    vary : str
        The size that was varied.
    epsilon : float
        Target.
    achieved : float
        ``eps`` at ``size`` (or at ``max_size`` when unattainable).
    attainable : bool
    limit : float
        ``eps`` as the varied size grows without bound (approximated at ``max_size``, or its exact
        limit where one is known).
    limited_by : str or None
        The quantity that keeps ``eps`` above the target when unattainable.
    message : str
    """

    size: int | None
    vary: str
    epsilon: float
    achieved: float
    attainable: bool
    limit: float
    limited_by: str | None
    message: str
    settings: dict = field(default_factory=dict)

    def __int__(self) -> int:
        if self.size is None:
            raise ParameterError(self.message)
        return int(self.size)

    def to_frame(self) -> pd.DataFrame:
        df = pd.DataFrame([{"vary": self.vary, "size": self.size, "epsilon": self.epsilon,
                            "achieved": self.achieved, "attainable": self.attainable,
                            "limit": self.limit, "limited_by": self.limited_by}])
        df.attrs.update(self.settings)
        return df

    def summary(self) -> Summary:
        return Summary("Required sample size", dict(self.settings), [("result", self.to_frame())],
                       [self.message], digits=4)

    def __str__(self) -> str:
        return self.summary().as_text()

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return self.summary().as_html()


def required_sample_size(epsilon: float, vary: str = "n_human", alpha: float = 0.5,
                         rho: float = 0.8, eta: float | None = None, n_human: int = 0,
                         n_metric: int = 0, n_paired: int | None = None, gamma: float = 0.05,
                         rates: str = "estimated", rounding: str = "half_up", *,
                         psi: float | None = None, method: str = "exact",
                         prior: Sequence[float] = (1, 1), rate_prior: Sequence[float] = (1, 1),
                         grid: Sequence[int] | None = None,
                         max_size: int = 10_000_000) -> SampleSizeResult:
    """Smallest number of ratings of one kind that brings ``eps`` down to ``epsilon``.

    The other sizes stay as given.  With ``vary="n_human"`` and ``n_paired=None`` the paired set
    follows the human sample (``n_paired = n_human``).  Counts are the expected ones (the paper's
    procedure); ``eps`` then decreases with every size up to the rounding of counts, and the
    smallest size is found by doubling and bisection.

    When no size up to ``max_size`` reaches the target, the result says which quantity limits
    ``eps``: more metric ratings cannot beat the uncertainty of ``rho``/``eta`` (fix: paired ratings)
    and of the human sample; more paired ratings cannot beat the information the human and metric
    ratings carry once the rates are known (fix: more human or metric ratings).

    Parameters
    ----------
    epsilon : float
        Target detectable difference, in (0, 1].
    vary : {"n_human", "n_metric", "n_paired"}
        The size to choose.
    alpha, rho, eta, n_human, n_metric, n_paired, gamma, rates, rounding, psi, method, prior,
    rate_prior, grid
        As in :func:`detectable_difference` (the value of the varied size is ignored).
    max_size : int
        Largest size tried.

    Returns
    -------
    SampleSizeResult
        ``int(result)`` is the size (raises when unattainable).

    Examples
    --------
    >>> res = required_sample_size(0.02, vary="n_human", alpha=0.6, rho=0.7, rates="known")
    >>> res.size > 2000
    True
    """
    alpha, rho, eta = _check_model(alpha, rho, eta)
    epsilon = float(epsilon)
    if not 0 < epsilon <= 1:
        raise ParameterError(f"epsilon must lie in (0, 1], got {epsilon!r}.")
    _choice("vary", vary, ("n_human", "n_metric", "n_paired"))
    gamma, _, prior, rate_prior = _check_options(gamma, rates, "expected", rounding, 1, method,
                                                 prior, rate_prior)
    max_size = _size("max_size", max_size)
    if vary == "n_paired" and rates == "known":
        raise ParameterError("vary='n_paired' has no effect with rates='known' (paired ratings only "
                             "estimate rho and eta); vary n_human or n_metric, or use rates='estimated'.")
    base = dict(n_human=_size("n_human", n_human), n_metric=_size("n_metric", n_metric),
                n_paired=n_paired)

    def eps_at(n: int, rates_=rates) -> float:
        sizes = dict(base)
        sizes[vary] = n
        if vary == "n_human" and n_paired is None:
            sizes["n_paired"] = None
        cell = _make_cell(alpha, rho, eta, sizes["n_human"], sizes["n_metric"], sizes["n_paired"],
                          psi, rates_, "expected", rounding, 1, None, prior, rate_prior, method, grid)
        res = _run_cell(cell)
        return 1.0 if res["none"] else _epsilon_from_sd(float(res["sd"][0]), gamma)

    settings = dict(alpha=alpha, rho=rho, eta=eta, gamma=gamma, rates=rates, rounding=rounding,
                    method=method, **{k: v for k, v in base.items() if k != vary})
    if settings.get("n_paired", 0) is None:   # the default paired set, as the other results say
        settings["n_paired"] = "n_human"

    def done(size, achieved, attainable, limit, limited_by, message):
        return SampleSizeResult(size, vary, epsilon, achieved, attainable, limit, limited_by,
                                message, settings)

    e0 = eps_at(0)
    if e0 <= epsilon:
        return done(0, e0, True, e0, None, f"eps = {e0:.4g} <= {epsilon} already without any {vary}.")
    e_max = eps_at(max_size)
    if e_max > epsilon:
        hi, e_hi = max_size, e_max
    else:
        hi, e_hi = 1, eps_at(1)
        while e_hi > epsilon and hi < max_size:
            hi = min(hi * 2, max_size)
            e_hi = e_max if hi == max_size else eps_at(hi)
    if e_hi > epsilon:
        limit, limited_by, why = e_hi, None, ""
        if vary == "n_metric" and rates == "estimated":
            known = eps_at(max_size, rates_="known")
            limited_by = "rho/eta uncertainty" if known <= epsilon else "human ratings"
            why = (f" More metric ratings cannot help: with the rates known exactly eps would be "
                   f"{known:.4g}, so the uncertainty of rho and eta (n_paired = "
                   f"{base['n_human'] if n_paired is None else n_paired} paired ratings) limits it; "
                   f"add paired (human + metric) ratings."
                   if known <= epsilon else
                   f" Even with rho and eta known exactly eps stays at {known:.4g}.")
        elif vary == "n_paired":
            limit = eps_at(0, rates_="known")
            limited_by = "human and metric ratings"
            why = (f" As n_paired grows the rates become known and eps tends to {limit:.4g} "
                   f"> {epsilon}: the given n_human = {base['n_human']} and n_metric = "
                   f"{base['n_metric']} limit it; add human or metric ratings.")
        elif vary == "n_metric":
            limited_by = "human ratings"
            why = " Increase max_size or add human ratings."
        else:
            limited_by = "max_size"
            why = " Human ratings alone always get there: increase max_size."
        return done(None, e_hi, False, limit, limited_by,
                    f"No {vary} up to {max_size} reaches eps = {epsilon}; at {max_size} eps = "
                    f"{e_hi:.4g}.{why}")
    lo = hi // 2 if hi > 1 else 0   # eps(lo) > epsilon >= eps(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if eps_at(mid) <= epsilon:
            hi = mid
        else:
            lo = mid
    e = eps_at(hi)
    return done(hi, e, True, e, None, f"{vary} = {hi} gives eps = {e:.4g} <= {epsilon}.")


# ---------------------------------------------------------------------------------------------------
# budget allocation
# ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AllocationResult:
    """The split of a budget between human and metric ratings that minimises ``eps``.

    Attributes
    ----------
    n_human, n_metric : int
        The best split found.
    epsilon : float
        Its detectable difference.
    cost : float
        What it costs (``<= budget``).
    frontier : DataFrame
        Every split evaluated: ``n_human``, ``n_metric``, ``cost``, ``epsilon`` (sorted by n_human).
    """

    n_human: int
    n_metric: int
    epsilon: float
    cost: float
    frontier: pd.DataFrame = field(repr=False)
    settings: dict = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        df = self.frontier.copy()
        df.attrs.update(self.settings)
        return df

    def summary(self) -> Summary:
        best = pd.DataFrame([{"n_human": self.n_human, "n_metric": self.n_metric, "cost": self.cost,
                              "epsilon": self.epsilon}])
        return Summary("Optimal allocation of a rating budget", dict(self.settings),
                       [("best split", best)],
                       [f"{len(self.frontier)} splits evaluated; see .frontier and .plot()."], digits=4)

    def __str__(self) -> str:
        return self.summary().as_text()

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return self.summary().as_html()

    def plot(self, ax=None, **kwargs):
        """eps against the number of human ratings bought, the best split marked."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        f = self.frontier
        ax.plot(f["n_human"], f["epsilon"], marker=".", **kwargs)
        ax.plot([self.n_human], [self.epsilon], marker="*", ms=14, color="C3", ls="none",
                label=f"best: {self.n_human} human + {self.n_metric} metric")
        ax.set_xlabel("human ratings (the rest of the budget buys metric ratings)")
        ax.set_ylabel("minimal detectable difference")
        ax.legend(fontsize="small")
        return ax


def optimal_allocation(budget: float, cost_human: float, cost_metric: float, alpha: float,
                       rho: float, eta: float | None = None, *, n_paired: int | None = None,
                       psi: float | None = None, gamma: float = 0.05, rates: str = "estimated",
                       rounding: str = "half_up", method: str = "exact",
                       prior: Sequence[float] = (1, 1), rate_prior: Sequence[float] = (1, 1),
                       grid: Sequence[int] | None = None, n_points: int = 41,
                       n_jobs: int | None = None, progress: bool | None = None) -> AllocationResult:
    """Split a budget between human and metric ratings so that ``eps`` is smallest.

    A split buys ``n_human`` human ratings at ``cost_human`` each (their items are also rated by
    the metric, at no extra cost, and form the paired set unless ``n_paired`` is given) and spends
    the rest on ``n_metric = floor((budget - n_human cost_human) / cost_metric)`` metric-only
    ratings.  ``n_points`` splits from all-metric to all-human are evaluated, then ``n_points`` more
    between the neighbours of the best one (expected counts, the paper's procedure).

    Parameters
    ----------
    budget, cost_human, cost_metric : float
        Budget and unit costs (> 0).
    alpha, rho, eta, n_paired, psi, gamma, rates, rounding, method, prior, rate_prior, grid
        As in :func:`detectable_difference`.
    n_points : int
        Splits per pass (>= 3).
    n_jobs, progress
        As in :func:`detectable_difference_table`.

    Returns
    -------
    AllocationResult

    Examples
    --------
    >>> best = optimal_allocation(200, 1.0, 0.1, alpha=0.6, rho=0.9, n_points=5)
    >>> best.cost <= 200
    True
    """
    alpha, rho, eta = _check_model(alpha, rho, eta)
    for name, v in (("budget", budget), ("cost_human", cost_human), ("cost_metric", cost_metric)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise InputTypeError(f"{name} must be a number, got {v!r}.")
        if not (v > 0 and np.isfinite(v)):
            raise ParameterError(f"{name} must be positive and finite, got {v!r}.")
    gamma, _, prior, rate_prior = _check_options(gamma, rates, "expected", rounding, 1, method,
                                                 prior, rate_prior)
    n_points = _size("n_points", n_points)
    if n_points < 3:
        raise ParameterError(f"n_points must be >= 3, got {n_points!r}.")
    max_h = int(math.floor(budget / cost_human + 1e-9))

    def split(h: int) -> tuple[int, int, float]:
        m = int(math.floor((budget - h * cost_human) / cost_metric + 1e-9))
        m = max(m, 0)
        return h, m, h * cost_human + m * cost_metric

    def evaluate(hs: Iterable[int]) -> list[dict]:
        todo = [split(h) for h in sorted(set(hs))]
        cells = [_make_cell(alpha, rho, eta, h, m,
                            n_paired if (n_paired is None or psi is not None) else min(n_paired, h),
                            psi, rates, "expected", rounding, 1, None, prior, rate_prior, method, grid)
                 for h, m, _ in todo]
        res = _run_cells(cells, n_jobs, progress, "allocation")
        return [{"n_human": h, "n_metric": m, "cost": c,
                 "epsilon": 1.0 if r["none"] else _epsilon_from_sd(float(r["sd"][0]), gamma)}
                for (h, m, c), r in zip(todo, res, strict=True)]

    first = np.unique(np.round(np.linspace(0, max_h, n_points)).astype(int))
    rows = evaluate(first)
    k = int(np.argmin([r["epsilon"] for r in rows]))
    lo = rows[max(k - 1, 0)]["n_human"]
    hi = rows[min(k + 1, len(rows) - 1)]["n_human"]
    seen = {r["n_human"] for r in rows}
    second = [h for h in np.unique(np.round(np.linspace(lo, hi, n_points)).astype(int)) if h not in seen]
    rows += evaluate(second) if second else []
    frontier = pd.DataFrame(rows).sort_values("n_human").reset_index(drop=True)
    best = frontier.loc[frontier["epsilon"].idxmin()]
    settings = dict(budget=budget, cost_human=cost_human, cost_metric=cost_metric, alpha=alpha,
                    rho=rho, eta=eta, gamma=gamma, rates=rates, method=method,
                    n_paired="n_human" if n_paired is None else n_paired)
    return AllocationResult(int(best["n_human"]), int(best["n_metric"]), float(best["epsilon"]),
                            float(best["cost"]), frontier, settings)
