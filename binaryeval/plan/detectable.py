"""The minimal detectable difference of two systems, for one design or a table of designs."""

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
from ._setup import (
    PAPER_N_HUMAN,
    PAPER_N_METRIC,
    Setup,
    power_note,
    requires_model,
    shown_settings,
    simulation,
    size,
    sizes,
)
from ._setup import (
    progress as check_progress,
)
from .cells import (
    VARIANCES,
    child_seeds,
    epsilon,
    epsilon_both,
    epsilons,
    evaluate,
    frame,
    make_cell,
)

if TYPE_CHECKING:  # names used only in type hints
    from matplotlib.axes import Axes

__all__ = ["DetectableDifferenceTable", "detectable_difference", "detectable_difference_table"]

_PLOT_KINDS = ("lines", "heatmap")


@renamed(gamma="sig_level", reps="n_resamples")
@requires_model
def detectable_difference(alpha: float, rho: float, eta: float | None = None, n_human: int = 0,
                          n_metric: int = 0, n_paired: int | None = None, sig_level: float = 0.05,
                          rates: str = "estimate", simulate: str = "expected",
                          rounding: str = "half_up", n_resamples: int = 50,
                          seed: int | np.random.SeedSequence | np.random.Generator | None = None, *,
                          psi: float | None = None, method: str = "exact",
                          prior: Sequence[float] = (1, 1), rate_prior: Sequence[float] = (1, 1),
                          grid: Sequence[int] | None = None, power: float = 0.5,
                          variance: str = "equal") -> float:
    """Minimal difference in ``alpha`` two systems must have to be told apart.

    ``eps = sqrt(2 var(alpha)) z_{1 - sig_level/2}`` for the posterior of ``alpha`` of one planned
    experiment (both systems are assumed to have the same posterior variance): two systems
    ``eps`` apart are told apart half the time (power 0.5, the papers' definition; see
    :mod:`binaryeval.plan` for other powers).  Sizes are per system.

    Parameters
    ----------
    alpha : float
        Share of adequate (positive) outputs of the system.
    rho, eta : float
        The metric's true-positive and true-negative rates (``eta=None`` means ``eta = rho``);
        ``rho + eta`` must exceed 1.  Neither ``alpha`` nor ``rho`` has a default: take them from
        a pilot fit or from the literature.
    n_human : int
        Human ratings that inform ``alpha``.
    n_metric : int
        Metric ratings of items without a human rating.
    n_paired : int, optional
        Items rated by both (default ``n_human``: the human-rated items are also metric-rated).
        See the package notes on the paired set.
    sig_level : float
        Significance level of the comparison, in (0, 1).
    rates : "estimate", "pooled" or {"rho": float, "eta": float}
        The values :func:`binaryeval.fit` takes.  ``"estimate"``: ``rho``/``eta`` estimated from
        the paired counts (paper Table 12); ``"pooled"``: estimated from a paired set shared by
        the systems, which may be larger than ``n_human`` (its share of positives ``psi``
        defaults to ``alpha``); known values ``{"rho": 0.7, "eta": 0.7}``: the rates are known
        exactly (paper Table 1), and ``rho``/``eta`` need not be given again.
    simulate : {"expected", "sample"}
        Expected counts (the paper) or ``n_resamples`` binomial draws (thesis Algorithm 2); with
        ``"sample"`` the result is ``sqrt(2) z`` times the mean posterior sd over the draws.
        ``"sample"`` is no correction for few paired ratings: with 20 of them its eps is 1-3 %
        smaller than the expected counts' (drawn shares lie off ``alpha``, where the posterior
        is narrower), and in seeded simulations it was found less often (see ``power``).
    rounding : {"half_up", "half_even"}
        Rounding of the expected counts: ``floor(x + 1/2)`` (paper) or Python's ``round``
        (the authors' tool).
    n_resamples : int
        Number of simulated experiments (``simulate="sample"``).
    seed : int, numpy SeedSequence or Generator, optional
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
    power : float
        Chance of telling two systems ``eps`` apart, in [0.5, 1): ``eps`` spans
        ``z_{1 - sig_level/2} + z_power`` sds of their difference.  0.5 (default) is the papers'
        detectable difference; 0.8 asks for about 1.43 times its sds at ``sig_level = 0.05``.
        Checked in seeded simulations (``studies/binary_plan_power.py``: the z-test on two
        systems' posteriors at ``alpha +- eps/2``, rates estimated, 2,000 comparisons a design):
        with 50-300 paired ratings eps was found 0.47-0.52 of the time at power 0.5 and
        0.79-0.80 at 0.8; with 20-30 paired ratings 0.487 and 0.794 on average over ten
        designs, single designs 0.46-0.51 and 0.77-0.83 (a weak metric, ``rho = eta = 0.7``,
        with 20: 0.46 and 0.77); ``simulate="sample"`` gave 0.471 and 0.785 there.
    variance : {"equal", "both"}
        ``"equal"`` (default, the papers'): the other system's posterior has this one's variance,
        ``eps = sqrt(2) sd z``.  ``"both"``: the other system, ``eps`` away on the side nearer
        0.5, has its own (wider) posterior, ``eps = z sqrt(sd^2 + sd_eps^2)``, solved for
        ``eps``.  Near ``alpha = 0`` or 1 the equal variances overstate the power: at
        ``alpha = 0.05``, ``rho = 0.9``, 300 human and 5000 metric ratings, ``power=0.8`` gives
        ``eps = 0.044``, and a system that much better is found about 70% of the time;
        ``variance="both"`` gives the ``eps`` found 80% of the time.

    Returns
    -------
    float
        ``eps``; 1.0 when ``n_human = n_metric = 0``.

    Examples
    --------
    Known rates (paper Table 1):

    >>> from binaryeval.plan import detectable_difference
    >>> round(detectable_difference(0.6, n_human=1000, rates={"rho": 0.7, "eta": 0.7}), 3)
    0.043

    A rare outcome at power 0.8: each system with its own posterior variance needs a larger
    difference than the papers' equal variances promise:

    >>> design = dict(n_human=300, n_metric=5000, power=0.8)
    >>> round(detectable_difference(0.05, 0.9, **design), 4)
    0.0436
    >>> round(detectable_difference(0.05, 0.9, **design, variance="both"), 4)
    0.0496
    """
    s = Setup.check(alpha, rho, eta, sig_level=sig_level, rates=rates, rounding=rounding,
                    method=method, prior=prior, rate_prior=rate_prior, grid=grid,
                    power=power)
    psi = s.paired_share(psi)
    simulate, n_resamples = simulation(simulate, n_resamples)
    cell = make_cell(size(n_human, "n_human"), size(n_metric, "n_metric"), n_paired, psi,
                     check.seed(seed))
    variance = check.choice(variance, "variance", VARIANCES)
    (moments,) = evaluate(s, [cell], simulate=simulate, n_resamples=n_resamples)
    if variance == "both":
        return epsilon_both(s, cell, float(moments.sd.mean()), simulate=simulate,
                            n_resamples=n_resamples)
    return epsilon(s, moments)


@dataclass(frozen=True, eq=False, repr=False)
class DetectableDifferenceTable(Result):
    """Minimal detectable differences over a grid of sample sizes (paper Tables 1 and 12).

    ``to_frame()`` has one row per cell (``n_human``, ``n_metric``, ``n_paired``, ``epsilon`` and,
    with ``simulate="sample"``, the spread over the simulated experiments); ``table`` is the
    paper's layout (index ``n_human``, columns ``n_metric``) and ``loc`` reads its cells;
    ``plot()`` draws eps against the number of metric ratings, one line per number of human
    ratings (paper Figs. 1-3).

    Attributes
    ----------
    cells : DataFrame
        One row per cell, in the order of the sizes given.
    settings : dict
        The model and options (also the ``attrs`` of every frame).

    Examples
    --------
    >>> from binaryeval.plan import detectable_difference_table
    >>> t = detectable_difference_table(0.6, n_human=[0, 100], n_metric=[0, 1000],
    ...                                 rates={"rho": 0.7, "eta": 0.7})
    >>> t
    DetectableDifferenceTable(alpha=0.6, rho=0.7, eta=0.7, rates={'rho': 0.7, 'eta': 0.7}, simulate='expected', n_human=[0, 100], n_metric=[0, 1000])
    >>> round(float(t.loc[100, 1000]), 3)   # paper Table 1
    0.085
    """

    cells: pd.DataFrame
    settings: dict = field(default_factory=dict)

    def _repr_fields(self) -> Mapping[str, Any]:
        keys = ("alpha", "rho", "eta", "rates", "simulate")
        return {**{k: self.settings.get(k) for k in keys},
                "n_human": list(dict.fromkeys(self.cells["n_human"].tolist())),
                "n_metric": list(dict.fromkeys(self.cells["n_metric"].tolist()))}

    @property
    def table(self) -> pd.DataFrame:
        """``eps`` as the paper prints it: index ``n_human``, columns ``n_metric`` (a copy)."""
        t = self.cells.pivot(index="n_human", columns="n_metric", values="epsilon")
        t = t.loc[list(dict.fromkeys(self.cells["n_human"])),
                  list(dict.fromkeys(self.cells["n_metric"]))]
        t.attrs.update(self.settings)
        return t

    @property
    def loc(self) -> Any:
        """Label-based access to :attr:`table`: ``result.loc[n_human, n_metric]``."""
        return self.table.loc

    def to_frame(self) -> pd.DataFrame:
        """One row per cell, the settings in ``attrs``.

        Returns
        -------
        DataFrame
            ``n_human``, ``n_metric``, ``n_paired``, ``epsilon``, ``sd_mean`` (mean posterior
            sd), ``sd_sd``, ``bias``, ``bias_std_error``, ``empirical_sd``, ``rmse`` (the last five
            from ``simulate="sample"``, NaN otherwise) and ``n_resamples``.

        Examples
        --------
        >>> from binaryeval.plan import detectable_difference_table
        >>> t = detectable_difference_table(0.6, n_human=[0, 100], n_metric=[0, 1000],
        ...                                 rates={"rho": 0.7, "eta": 0.7})
        >>> t.to_frame()[["n_human", "n_metric", "epsilon"]].round(3)
           n_human  n_metric  epsilon
        0        0         0    1.000
        1        0      1000    0.109
        2      100         0    0.134
        3      100      1000    0.085
        """
        df = self.cells.copy()
        df.attrs.update(self.settings)
        return df

    def summary(self) -> Summary:
        """The table in the paper's layout, with the settings.

        Examples
        --------
        >>> from binaryeval.plan import detectable_difference_table
        >>> t = detectable_difference_table(0.6, n_human=[0, 100], n_metric=[0, 1000],
        ...                                 rates={"rho": 0.7, "eta": 0.7})
        >>> t.summary().title
        'Minimal detectable difference'
        """
        power = self.settings.get("power", 0.5)
        variance = self.settings.get("variance", "equal")
        z = "z_{1 - sig_level/2}" if power == 0.5 else f"(z_{{1 - sig_level/2}} + z_{power:g})"
        rule = ("eps = sqrt(2 var(alpha)) " + z if variance == "equal" else
                f"eps = {z} sqrt(var(alpha) + var(alpha +- eps)), the other system eps away on "
                f"the side nearer 0.5, solved for eps")
        notes = [f"{rule}; 1.0 where no rating informs alpha.", power_note(power, variance)]
        if self.settings.get("simulate") == "sample":
            notes.append(f"Each cell averages the posterior sd over "
                         f"{self.settings.get('n_resamples')} simulated experiments; see "
                         f"to_frame() for their spread and the bias.")
        return Summary("Minimal detectable difference", shown_settings(self.settings),
                       [("eps (rows n_human, columns n_metric)", self.table)], notes, digits=3)

    def plot(self, ax: Axes | None = None, *, kind: str = "lines", x: str = "n_metric",
             **kwargs: Any) -> Axes:
        """Draw eps against one size, one line per value of the other, or as a heatmap.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw (default: a new figure).
        kind : {"lines", "heatmap"}
            ``"lines"``: eps against ``x`` (paper Figs. 1-3); ``"heatmap"``: the table, ``x`` on
            the horizontal axis, cells annotated.
        x : {"n_metric", "n_human"}
            The size on the horizontal axis.
        **kwargs
            Passed to ``Axes.plot`` (lines) or ``Axes.imshow`` (heatmap).

        Returns
        -------
        matplotlib.axes.Axes

        Examples
        --------
        >>> from binaryeval.plan import detectable_difference_table
        >>> t = detectable_difference_table(0.6, n_human=[100, 1000], n_metric=[0, 1000],
        ...                                 rates={"rho": 0.7, "eta": 0.7})
        >>> len(t.plot().get_lines())
        2
        """
        import matplotlib.pyplot as plt

        check.choice(kind, "kind", _PLOT_KINDS)
        check.choice(x, "x", ("n_metric", "n_human"))
        if ax is None:
            _, ax = plt.subplots()
        tab = self.table if x == "n_metric" else self.table.T
        other = "n_human" if x == "n_metric" else "n_metric"
        sig = self.settings.get("sig_level", 0.05)
        if kind == "heatmap":
            return _heatmap(ax, tab, x, other, sig, **kwargs)
        for label, row in tab.iterrows():
            ax.plot(row.index.to_numpy(dtype=float), row.to_numpy(dtype=float), marker="o",
                    label=f"{other} = {label}", **kwargs)
        positive = [v for v in tab.columns if v > 0]
        ax.set_xscale("symlog", linthresh=max(1.0, float(np.min(positive or [1]))))
        ax.set_xlabel(f"number of ratings ({x})")
        ax.set_ylabel(f"minimal detectable difference (sig_level = {sig})")
        ax.legend(fontsize="small")
        return ax


def _heatmap(ax: Any, tab: pd.DataFrame, x: str, other: str, sig: float, **kwargs: Any) -> Any:
    values = tab.to_numpy(dtype=float)
    image = ax.imshow(values, aspect="auto", cmap=kwargs.pop("cmap", "viridis_r"), **kwargs)
    ax.set_xticks(range(tab.shape[1]), [str(c) for c in tab.columns])
    ax.set_yticks(range(tab.shape[0]), [str(i) for i in tab.index])
    ax.set_xlabel(x)
    ax.set_ylabel(other)
    middle = np.nanmean(values)
    for i in range(tab.shape[0]):
        for j in range(tab.shape[1]):
            ax.text(j, i, f"{values[i, j]:.3f}", ha="center", va="center", fontsize="small",
                    color="white" if values[i, j] < middle else "black")
    ax.figure.colorbar(image, ax=ax, label=f"minimal detectable difference (sig_level = {sig})")
    return ax


@renamed(gamma="sig_level", reps="n_resamples")
@requires_model
def detectable_difference_table(alpha: float, rho: float, eta: float | None = None,
                                n_human: Sequence[int] = PAPER_N_HUMAN,
                                n_metric: Sequence[int] = PAPER_N_METRIC,
                                n_paired: int | None = None, sig_level: float = 0.05,
                                rates: str = "estimate", simulate: str = "expected",
                                rounding: str = "half_up", n_resamples: int = 50,
                                seed: int | np.random.SeedSequence | np.random.Generator | None = None, *,
                                psi: float | None = None,
                                method: str = "exact", prior: Sequence[float] = (1, 1),
                                rate_prior: Sequence[float] = (1, 1),
                                grid: Sequence[int] | None = None, n_jobs: int | None = None,
                                progress: bool | None = None,
                                power: float = 0.5,
                                variance: str = "equal") -> DetectableDifferenceTable:
    """Minimal detectable difference for every combination of ``n_human`` and ``n_metric``.

    Parameters
    ----------
    alpha : float
        Share of adequate (positive) outputs of the system.
    rho, eta, n_paired, sig_level, rates, simulate, rounding, n_resamples, seed, psi, method, prior, rate_prior, grid, power
        As in :func:`detectable_difference`; ``n_paired=None`` pairs each row's human-rated
        items with metric ratings (``n_paired = n_human`` per row), an integer fixes it.  With
        ``simulate="sample"`` every cell draws from its own child seed of ``seed``.
    n_human, n_metric : int or sequence of int
        The sizes (defaults: those of the paper's Table 12); repeated sizes count once.
    n_jobs : int, optional
        Passed to :class:`joblib.Parallel` (``None``: sequential unless a
        ``joblib.parallel_config`` is in force, which also runs the table on Dask or Ray).
    progress : bool, optional
        Show a tqdm bar (default: on a terminal, for sweeps of 500 posteriors or more).
    variance : {"equal", "both"}
        ``"equal"`` (default, the papers'): the other system's posterior has this one's variance,
        ``eps = sqrt(2) sd z``.  ``"both"``: the other system, ``eps`` away on the side nearer
        0.5, has its own (wider) posterior, ``eps = z sqrt(sd^2 + sd_eps^2)``, solved for
        ``eps`` in every cell, each cell's value that of :func:`detectable_difference` with
        ``variance="both"`` (``sd_mean`` stays this system's).  Near ``alpha = 0`` or 1 the equal
        variances overstate the power (see :func:`detectable_difference`).  The settings say
        ``variance="both"``, and the summary's notes which assumption was used.

    Returns
    -------
    DetectableDifferenceTable
        ``table`` in the paper's layout, ``to_frame()`` one row per cell.

    Examples
    --------
    >>> from binaryeval.plan import detectable_difference_table
    >>> t = detectable_difference_table(0.6, n_human=[0, 100], n_metric=[0, 1000],
    ...                                 rates={"rho": 0.7, "eta": 0.7})
    >>> t.table.round(3).values.tolist()   # paper Table 1
    [[1.0, 0.109], [0.134, 0.085]]

    A rare outcome at power 0.8: each system with its own posterior variance needs larger
    differences than the papers' equal variances promise, in every cell:

    >>> design = dict(n_human=[300, 1000], n_metric=[5000], power=0.8)
    >>> detectable_difference_table(0.05, 0.9, **design).table.round(4)
    n_metric    5000
    n_human
    300       0.0436
    1000      0.0244
    >>> both = detectable_difference_table(0.05, 0.9, **design, variance="both")
    >>> both.table.round(4)
    n_metric    5000
    n_human
    300       0.0496
    1000      0.0265
    >>> both.settings["variance"]
    'both'
    """
    s = Setup.check(alpha, rho, eta, sig_level=sig_level, rates=rates, rounding=rounding,
                    method=method, prior=prior, rate_prior=rate_prior, grid=grid,
                    power=power)
    psi = s.paired_share(psi)
    simulate, n_resamples = simulation(simulate, n_resamples)
    variance = check.choice(variance, "variance", VARIANCES)
    n_jobs, progress = check.n_jobs(n_jobs), check_progress(progress)
    hs = list(dict.fromkeys(sizes(n_human, "n_human")))
    ms = list(dict.fromkeys(sizes(n_metric, "n_metric")))
    pairs = [(h, m) for h in hs for m in ms]
    reported, seeds = (child_seeds(check.seed(seed), len(pairs)) if simulate == "sample"
                       else (None, [None] * len(pairs)))
    cells = [make_cell(h, m, n_paired, psi, sd) for (h, m), sd in zip(pairs, seeds, strict=True)]
    results = evaluate(s, cells, simulate=simulate, n_resamples=n_resamples, n_jobs=n_jobs,
                       progress=progress, desc="detectable difference")
    settings = dict(s.facts(), simulate=simulate,
                    n_paired="n_human" if n_paired is None else cells[0].n_paired,
                    psi="alpha" if psi is None else psi)
    if variance == "both":
        settings["variance"] = "both"
    if simulate == "sample":
        settings.update(n_resamples=n_resamples, seed=reported)
    eps = (epsilons(s, results, variance, simulate=simulate, n_resamples=n_resamples)
           if variance == "both" else None)
    return DetectableDifferenceTable(cells=frame(s, results, simulate == "sample", eps),
                                     settings=settings)
