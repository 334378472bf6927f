"""Simulated experiments: bias and spread of the posterior of ``alpha`` (thesis Algorithm 2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .. import _validate as check
from .._results import Result
from .._validate import renamed
from ..summary import Summary
from ._setup import Setup, power_note, requires_model, shown_settings, simulation, sizes
from ._setup import progress as check_progress
from .cells import child_seeds, evaluate, frame, make_cell

if TYPE_CHECKING:  # names used only in type hints
    from matplotlib.axes import Axes

__all__ = ["SimulationResult", "simulate"]

_PLOT_KINDS = ("bias", "sd")


@dataclass(frozen=True, eq=False, repr=False)
class SimulationResult(Result):
    """Bias and spread of the posterior of ``alpha`` over repeated simulated experiments.

    ``to_frame()`` has one row per combination of sizes with ``bias`` (mean of posterior mean minus
    alpha), ``bias_std_error``, ``sd_mean`` (mean posterior sd), ``sd_sd`` (its spread over the
    experiments), ``empirical_sd`` (sd of the posterior means), ``rmse``, ``epsilon``
    (``sqrt(2) z sd_mean``) and ``n_resamples``.

    Attributes
    ----------
    cells : DataFrame
        The table of ``to_frame()``.
    draws : DataFrame
        Every simulated experiment: ``n_human``, ``n_metric``, ``resample`` (its number),
        ``estimate`` (posterior mean) and ``std_error`` (posterior sd).
    settings : dict
        The model and options, with the ``seed`` that reproduces the draws.

    Examples
    --------
    >>> from binaryeval.plan import simulate
    >>> res = simulate(0.6, 0.8, n_human=[50, 200], n_metric=1000, n_resamples=5, seed=1)
    >>> res
    SimulationResult(alpha=0.6, rho=0.8, eta=0.8, rates='estimate', n_resamples=5, seed=1, n_cells=2)
    >>> len(res.draws)
    10
    """

    cells: pd.DataFrame
    draws: pd.DataFrame
    settings: dict = field(default_factory=dict)

    def _repr_fields(self) -> Mapping[str, Any]:
        keys = ("alpha", "rho", "eta", "rates", "n_resamples", "seed")
        return {**{k: self.settings.get(k) for k in keys}, "n_cells": len(self.cells)}

    def to_frame(self) -> pd.DataFrame:
        """One row per combination of sizes, the settings in ``attrs``.

        Examples
        --------
        >>> from binaryeval.plan import simulate
        >>> res = simulate(0.6, 0.8, n_human=[50, 200], n_metric=1000, n_resamples=5, seed=1)
        >>> res.to_frame()[["n_human", "bias", "sd_mean"]].shape
        (2, 3)
        """
        df = self.cells.copy()
        df.attrs.update(self.settings)
        return df

    def summary(self) -> Summary:
        """Bias and spread per combination of sizes, with the settings.

        Examples
        --------
        >>> from binaryeval.plan import simulate
        >>> res = simulate(0.6, 0.8, n_human=[50, 200], n_metric=1000, n_resamples=5, seed=1)
        >>> res.summary().title
        'Simulated experiments'
        """
        cols = ["n_human", "n_metric", "n_paired", "bias", "bias_std_error", "sd_mean", "sd_sd",
                "empirical_sd", "rmse", "epsilon"]
        return Summary("Simulated experiments", shown_settings(self.settings),
                       [("per sample size", self.cells[cols].set_index(["n_human", "n_metric"]))],
                       ["bias = mean posterior mean - alpha; sd_mean/sd_sd = mean/sd of the "
                        "posterior sd over the simulated experiments.",
                        power_note(self.settings.get("power", 0.5))], digits=4)

    def plot(self, ax: Axes | None = None, *, kind: str = "bias", x: str | None = None,
             **kwargs: Any) -> Axes:
        """The bias (+- 2 standard errors) or the mean posterior sd against a size.

        One line per value of the other size (thesis Figs. 5.3-5.4).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw (default: a new figure).
        kind : {"bias", "sd"}
            The bias of the posterior mean, or the mean posterior standard deviation.
        x : {"n_human", "n_metric"}, optional
            The size on the horizontal axis (default: the one with more values).
        **kwargs
            Passed to ``Axes.errorbar`` (bias) or ``Axes.plot`` (sd).

        Returns
        -------
        matplotlib.axes.Axes

        Examples
        --------
        >>> from binaryeval.plan import simulate
        >>> res = simulate(0.6, 0.8, n_human=[50, 200], n_metric=1000, n_resamples=5, seed=1)
        >>> res.plot(kind="sd").get_ylabel()
        'mean posterior sd'
        """
        import matplotlib.pyplot as plt

        check.choice(kind, "kind", _PLOT_KINDS)
        df = self.cells
        if x is None:
            x = "n_human" if df["n_human"].nunique() >= df["n_metric"].nunique() else "n_metric"
        check.choice(x, "x", ("n_human", "n_metric"))
        other = "n_metric" if x == "n_human" else "n_human"
        if ax is None:
            _, ax = plt.subplots()
        for value, sub in df.groupby(other):
            sub = sub.sort_values(x)
            if kind == "bias":
                ax.errorbar(sub[x], sub["bias"], yerr=2 * sub["bias_std_error"], marker="o", capsize=3,
                            label=f"{other} = {value}", **kwargs)
            else:
                ax.plot(sub[x], sub["sd_mean"], marker="o", label=f"{other} = {value}", **kwargs)
        if kind == "bias":
            ax.axhline(0.0, color="grey", lw=0.8)
        ax.set_ylabel("bias of the posterior mean" if kind == "bias" else "mean posterior sd")
        ax.set_xlabel(x)
        ax.legend(fontsize="small")
        return ax


@renamed(gamma="sig_level", reps="n_resamples")
@requires_model
def simulate(alpha: float, rho: float, eta: float | None = None, n_human: int | Sequence[int] = 0,
             n_metric: int | Sequence[int] = 0, n_paired: int | None = None, sig_level: float = 0.05,
             rates: str = "estimate", n_resamples: int = 50,
             seed: int | np.random.SeedSequence | np.random.Generator | None = None, *,
             psi: float | None = None, method: str = "exact", prior: Sequence[float] = (1, 1),
             rate_prior: Sequence[float] = (1, 1), grid: Sequence[int] | None = None,
             n_jobs: int | None = None, progress: bool | None = None,
             power: float = 0.5) -> SimulationResult:
    """Repeat a planned experiment with binomial counts and summarise the estimator.

    Each experiment draws ``n+ ~ Bin(n_human, alpha)``, ``m+ ~ Bin(n_metric, p)``, the paired
    positives (the human positives themselves when ``n_paired = n_human``, a hypergeometric subset
    when smaller, ``Bin(n_paired, psi)`` for a separate set), ``n_TP ~ Bin(n_p, rho)`` and
    ``n_TN ~ Bin(n_paired - n_p, eta)``, then computes the posterior of alpha (thesis Algorithm 2).

    Parameters
    ----------
    alpha : float
        Share of adequate (positive) outputs of the system.
    rho, eta, n_paired, sig_level, rates, psi, method, prior, rate_prior, grid, power
        As in :func:`~binaryeval.plan.detectable_difference` (``sig_level`` and ``power`` set
        the ``epsilon`` column only).
    n_human, n_metric : int or sequence of int
        Sizes; every combination is simulated.
    n_resamples : int
        Simulated experiments per combination.
    seed : int, numpy SeedSequence or Generator, optional
        Seed; each combination uses an independent child seed.  ``None`` draws fresh entropy and
        reports it in ``settings["seed"]``, so the draws can be repeated.
    n_jobs, progress
        As in :func:`~binaryeval.plan.detectable_difference_table`.

    Returns
    -------
    SimulationResult

    Examples
    --------
    >>> from binaryeval.plan import simulate
    >>> res = simulate(0.6, 0.8, n_human=[50, 200], n_metric=1000, n_resamples=20, seed=1)
    >>> res.to_frame()[["n_human", "bias", "sd_mean"]].shape
    (2, 3)
    """
    s = Setup.check(alpha, rho, eta, sig_level=sig_level, rates=rates, method=method,
                    prior=prior, rate_prior=rate_prior, grid=grid, power=power)
    psi = s.paired_share(psi)
    _, n_resamples = simulation("sample", n_resamples)
    n_jobs, progress = check.n_jobs(n_jobs), check_progress(progress)
    pairs = [(h, m) for h in dict.fromkeys(sizes(n_human, "n_human"))
             for m in dict.fromkeys(sizes(n_metric, "n_metric"))]
    reported, seeds = child_seeds(check.seed(seed), len(pairs))
    cells = [make_cell(h, m, n_paired, psi, sd) for (h, m), sd in zip(pairs, seeds, strict=True)]
    results = evaluate(s, cells, simulate="sample", n_resamples=n_resamples, n_jobs=n_jobs,
                       progress=progress, desc="simulate")
    draws = pd.concat([pd.DataFrame({"n_human": r.cell.n_human, "n_metric": r.cell.n_metric,
                                     "resample": np.arange(len(r.sd)), "estimate": r.mean,
                                     "std_error": r.sd})
                       for r in results], ignore_index=True)
    facts = s.facts()
    del facts["rounding"]   # simulated counts are not rounded
    settings = dict(facts, n_resamples=n_resamples, seed=reported,
                    n_paired="n_human" if n_paired is None else cells[0].n_paired,
                    psi="alpha" if psi is None else psi)
    return SimulationResult(cells=frame(s, results), draws=draws, settings=settings)
