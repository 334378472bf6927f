"""Splitting a rating budget between human and metric ratings so that ``eps`` is smallest."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .. import _validate as check
from .._results import Result
from .._validate import renamed
from ..errors import ParameterError
from ..summary import Summary
from ._setup import Setup, power_note, requires_model, shown_settings
from ._setup import progress as check_progress
from .cells import VARIANCES, epsilons, evaluate, make_cell

if TYPE_CHECKING:  # names used only in type hints
    from matplotlib.axes import Axes

__all__ = ["AllocationResult", "optimal_allocation"]


@dataclass(frozen=True, eq=False, repr=False)
class AllocationResult(Result):
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
    settings : dict
        The budget, the costs, the model and the options.

    Examples
    --------
    >>> from binaryeval.plan import optimal_allocation
    >>> best = optimal_allocation(200, 1.0, 0.1, alpha=0.6, rho=0.9, n_points=5)
    >>> best
    AllocationResult(n_human=150, n_metric=500, epsilon=0.080596, cost=200, budget=200)
    """

    n_human: int
    n_metric: int
    epsilon: float
    cost: float
    frontier: pd.DataFrame
    settings: dict = field(default_factory=dict)

    def _repr_fields(self) -> Mapping[str, Any]:
        return {"n_human": self.n_human, "n_metric": self.n_metric, "epsilon": self.epsilon,
                "cost": self.cost, "budget": self.settings.get("budget")}

    def to_frame(self) -> pd.DataFrame:
        """Every split evaluated (the frontier), the settings in ``attrs``.

        Examples
        --------
        >>> from binaryeval.plan import optimal_allocation
        >>> best = optimal_allocation(200, 1.0, 0.1, alpha=0.6, rho=0.9, n_points=5)
        >>> list(best.to_frame().columns)
        ['n_human', 'n_metric', 'cost', 'epsilon']
        """
        df = self.frontier.copy()
        df.attrs.update(self.settings)
        return df

    def summary(self) -> Summary:
        """The best split, with the budget, the costs and the model.

        Examples
        --------
        >>> from binaryeval.plan import optimal_allocation
        >>> best = optimal_allocation(200, 1.0, 0.1, alpha=0.6, rho=0.9, n_points=5)
        >>> best.summary().title
        'Optimal allocation of a rating budget'
        """
        best = pd.DataFrame([{"n_human": self.n_human, "n_metric": self.n_metric,
                              "cost": self.cost, "epsilon": self.epsilon}])
        return Summary("Optimal allocation of a rating budget", shown_settings(self.settings),
                       [("best split", best)],
                       [f"{len(self.frontier)} splits evaluated; see .frontier and .plot().",
                        power_note(self.settings.get("power", 0.5),
                                   self.settings.get("variance", "equal"))], digits=4)

    def plot(self, ax: Axes | None = None, *, kind: str = "frontier", **kwargs: Any) -> Axes:
        """Draw eps against the number of human ratings bought, the best split marked.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw (default: a new figure).
        kind : {"frontier"}
            The only drawing: eps of every split evaluated.
        **kwargs
            Passed to ``Axes.plot`` for the frontier (e.g. ``label=``).

        Returns
        -------
        matplotlib.axes.Axes

        Examples
        --------
        >>> from binaryeval.plan import optimal_allocation
        >>> best = optimal_allocation(200, 1.0, 0.1, alpha=0.6, rho=0.9, n_points=5)
        >>> best.plot().get_xlabel()
        'human ratings (the rest of the budget buys metric ratings)'
        """
        import matplotlib.pyplot as plt

        check.choice(kind, "kind", ("frontier",))
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


def _positive(value: Any, name: str) -> float:
    v = check.real(value, name)
    if not v > 0:
        raise ParameterError(f"{name}={value!r} must be positive (and finite)")
    return v


@renamed(gamma="sig_level")
@requires_model
def optimal_allocation(budget: float, cost_human: float, cost_metric: float, alpha: float,
                       rho: float, eta: float | None = None, *, n_paired: int | None = None,
                       psi: float | None = None, sig_level: float = 0.05, rates: str = "estimate",
                       rounding: str = "half_up", method: str = "exact",
                       prior: Sequence[float] = (1, 1), rate_prior: Sequence[float] = (1, 1),
                       grid: Sequence[int] | None = None, n_points: int = 41,
                       n_jobs: int | None = None, progress: bool | None = None,
                       power: float = 0.5, variance: str = "equal") -> AllocationResult:
    """Split a budget between human and metric ratings so that ``eps`` is smallest.

    A split buys ``n_human`` human ratings at ``cost_human`` each (their items are also rated by
    the metric, at no extra cost, and form the paired set unless ``n_paired`` is given) and spends
    the rest on ``n_metric = floor((budget - n_human cost_human) / cost_metric)`` metric-only
    ratings.  A given ``n_paired`` without ``psi`` is a subset of the split's human-rated items
    (at most ``n_human`` of them); with ``psi`` it is a separate calibration set already at hand,
    whose ratings the budget does not pay for.  ``n_points`` splits from all-metric to all-human
    are evaluated, then ``n_points`` more between the neighbours of the best one (expected
    counts, the paper's procedure; where rounded counts make ``eps`` jagged, a split outside
    those neighbours may be a fraction of a percent better).

    Parameters
    ----------
    budget, cost_human, cost_metric : float
        Budget and unit costs (> 0), per system: each of the two systems compared is planned
        to get the split (as every size of :mod:`binaryeval.plan`).
    alpha : float
        Share of adequate (positive) outputs of the system.
    rho, eta, n_paired, psi, sig_level, rates, rounding, method, prior, rate_prior, grid, power
        As in :func:`~binaryeval.plan.detectable_difference`.
    n_points : int
        Splits per pass (>= 3).
    n_jobs, progress
        As in :func:`~binaryeval.plan.detectable_difference_table`.
    variance : {"equal", "both"}
        ``"equal"`` (default, the papers'): the other system's posterior has this one's variance,
        ``eps = sqrt(2) sd z``.  ``"both"``: the other system, ``eps`` away on the side nearer
        0.5, has its own (wider) posterior, ``eps = z sqrt(sd^2 + sd_eps^2)``, solved for
        ``eps`` at every split (each that of :func:`~binaryeval.plan.detectable_difference`
        with ``variance="both"``), and the best split is the one with the smallest such
        ``eps``.  Near ``alpha = 0`` or 1 the equal variances overstate the power (see
        :func:`~binaryeval.plan.detectable_difference`).  The settings say
        ``variance="both"``, and the summary's notes which assumption was used.

    Returns
    -------
    AllocationResult

    Examples
    --------
    >>> from binaryeval.plan import optimal_allocation
    >>> best = optimal_allocation(200, 1.0, 0.1, alpha=0.6, rho=0.9, n_points=5)
    >>> best.cost <= 200
    True

    A rare outcome at power 0.8: with each system's own posterior variance the best split
    (another one) detects only a larger difference than the papers' equal variances promise:

    >>> rare = dict(alpha=0.05, rho=0.9, power=0.8, n_points=5)
    >>> optimal_allocation(1000, 1.0, 0.1, **rare)
    AllocationResult(n_human=938, n_metric=620, epsilon=0.0269973, cost=1000, budget=1000)
    >>> optimal_allocation(1000, 1.0, 0.1, **rare, variance="both")
    AllocationResult(n_human=875, n_metric=1250, epsilon=0.029969, cost=1000, budget=1000)
    """
    s = Setup.check(alpha, rho, eta, sig_level=sig_level, rates=rates, rounding=rounding,
                    method=method, prior=prior, rate_prior=rate_prior, grid=grid,
                    power=power)
    psi = s.paired_share(psi)
    variance = check.choice(variance, "variance", VARIANCES)
    budget, cost_human, cost_metric = (_positive(budget, "budget"),
                                       _positive(cost_human, "cost_human"),
                                       _positive(cost_metric, "cost_metric"))
    n_points = check.size(n_points, "n_points", minimum=3)
    n_jobs, progress = check.n_jobs(n_jobs), check_progress(progress)
    max_h = int(math.floor(budget / cost_human + 1e-9))
    cheaper = min(cost_human, cost_metric)
    if budget / cheaper > check.MAX_COUNT:
        raise ParameterError(f"budget={budget:g} buys {budget / cheaper:,.0f} ratings at "
                             f"{cheaper:g} each, more than a plan computes ({check.MAX_COUNT:,}, "
                             f"the posterior engine's limit): give a budget of at most "
                             f"{check.MAX_COUNT * cheaper:g}")
    if max_h == 0 and math.floor(budget / cost_metric + 1e-9) == 0:
        raise ParameterError(f"budget={budget:g} buys no rating (cost_human={cost_human:g}, "
                             f"cost_metric={cost_metric:g}): there is nothing to split; give a "
                             f"budget of at least {min(cost_human, cost_metric):g}")

    def split(h: int) -> tuple[int, int, float]:
        m = max(int(math.floor((budget - h * cost_human) / cost_metric + 1e-9)), 0)
        return h, m, h * cost_human + m * cost_metric

    def evaluate_splits(hs: Iterable[int]) -> list[dict[str, Any]]:
        todo = [split(h) for h in sorted(set(hs))]
        # a fixed paired set is a subset of the human-rated items unless psi makes it separate
        cells = [make_cell(h, m, n_paired if (n_paired is None or psi is not None)
                           else min(n_paired, h), psi) for h, m, _ in todo]
        results = evaluate(s, cells, n_jobs=n_jobs, progress=progress, desc="allocation")
        eps = epsilons(s, results, variance)
        return [{"n_human": h, "n_metric": m, "cost": c, "epsilon": e}
                for (h, m, c), e in zip(todo, eps, strict=True)]

    first = np.unique(np.round(np.linspace(0, max_h, n_points)).astype(int))
    rows = evaluate_splits(first.tolist())
    k = int(np.argmin([r["epsilon"] for r in rows]))
    lo = rows[max(k - 1, 0)]["n_human"]
    hi = rows[min(k + 1, len(rows) - 1)]["n_human"]
    seen = {r["n_human"] for r in rows}
    second = [h for h in np.unique(np.round(np.linspace(lo, hi, n_points)).astype(int)).tolist()
              if h not in seen]
    rows += evaluate_splits(second) if second else []
    frontier = pd.DataFrame(rows).sort_values("n_human").reset_index(drop=True)
    best = frontier.loc[frontier["epsilon"].idxmin()]
    settings = dict(budget=budget, cost_human=cost_human, cost_metric=cost_metric,
                    **s.facts(), n_paired="n_human" if n_paired is None else n_paired,
                    **({"psi": psi} if psi is not None else {}),
                    **({"variance": "both"} if variance == "both" else {}),
                    sizes="per system: each of the two systems compared gets the budget")
    return AllocationResult(int(best["n_human"]), int(best["n_metric"]), float(best["epsilon"]),
                            float(best["cost"]), frontier, settings)
