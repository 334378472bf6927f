"""From a fit to a plan: how many more human ratings would tell systems apart.

:meth:`BinaryFit.plan <binaryeval.binary.result.BinaryFit.plan>` plans at the fitted values: each
group's posterior mean of ``alpha``, its rates ``rho``/``eta`` (estimated per group, pooled, or
known, as in the fit) and the ratings it already has.  ``k`` more human ratings go to ``k`` of the
group's outputs that so far have a metric rating only (they become paired: the human rating
informs ``alpha`` and the pair informs the rates); once every output has a human rating, further
ratings are of new outputs rated by both.  The posterior standard deviation at ``k`` comes from the
exact engine on the expected counts (the papers' planning procedure,
:mod:`binaryeval.plan`), and the smallest ``k`` is found by doubling and bisection.

Pairs of groups are separated at significance ``sig_level`` when their difference is at least
``z_{1 - sig_level/2} sqrt(sd_1^2 + sd_2^2)``; a single group's target is the papers' detectable
difference ``eps = z sqrt(2) sd`` (two systems like this one).  With pooled rates the other
groups' paired ratings enter as a calibration set of the pooled size (the group's own paired rows
then count twice, a small optimism when there are many groups).  A fit whose paired rows do not
inform ``alpha`` (``paired_informs_alpha=False``) has them enter as a calibration set with the
group's own share of positives; the ``k`` new human ratings inform ``alpha`` as well.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import _validate
from .._results import Result
from .._validate import MAX_COUNT
from ..binary.result import BinaryFit
from ..errors import ParameterError
from ..summary import Summary
from ._setup import (
    EQUAL_VARIANCE_NOTE,
    Setup,
    fit_sig_level,
    plan_pairs,
    power_note,
    z_total,
)
from .cells import evaluate, make_cell
from .sample_size import smallest_size

__all__ = ["FitPlan", "plan_fit"]


@dataclass(frozen=True)
class _Group:
    """One group's planning model: fitted values and the ratings it has."""

    name: str
    alpha: float
    rho: float
    eta: float
    rates: str          # "estimate" or "known" (for the plan engine)
    n_human: int
    n_metric: int
    n_paired: int
    pooled_paired: int | None   # size of the pooled calibration set, with pooled rates
    psi: float | None
    weak: bool          # rho + eta <= 1 at the fitted values: the metric is left out

    def cell(self, k: int) -> tuple[int, int, int, float | None]:
        """``(n_human, n_metric, n_paired, psi)`` with ``k`` more human ratings."""
        if self.weak:
            return self.n_human + k, 0, 0, None
        n_metric = max(self.n_metric - k, 0)
        if self.pooled_paired is not None:
            return self.n_human + k, n_metric, self.pooled_paired + k, self.psi
        # psi is None when the paired rows are among the human ratings that inform alpha; a
        # paired set that does not inform alpha is a calibration set with its own share
        return self.n_human + k, n_metric, self.n_paired + k, self.psi


def _groups(fit: BinaryFit) -> dict[str, _Group]:
    # the rates' means alone (the plan reads no interval of theirs)
    frame = fit._frame(fit.level, "eti", None, rate_intervals=False)
    rates = frame[["rho", "eta"]]
    c = fit.counts
    pooled = None
    psi = None
    if fit.rates_mode == "pooled":
        tp, fn, tn, fp = (int(c[k].sum()) for k in ("tp", "fn", "tn", "fp"))
        pooled = tp + fn + tn + fp
        psi = (tp + fn) / pooled if pooled else None
    out = {}
    for g in fit.groups:
        row = frame.loc[g]
        if pooled is None:
            # paired rows outside the human ratings that inform alpha (paired_informs_alpha=False)
            # are a calibration set: the plan needs their share of positives
            n_pair = int(c.loc[g, ["tp", "fn", "tn", "fp"]].sum())
            psi = (None if fit.paired_informs_alpha or not n_pair
                   else int(c.loc[g, ["tp", "fn"]].sum()) / n_pair)
        rho, eta = float(rates.loc[g, "rho"]), float(rates.loc[g, "eta"])
        has_metric = int(row["n_metric"]) > 0 and np.isfinite(rho) and np.isfinite(eta)
        weak = not has_metric or rho + eta <= 1.0
        # without an informative metric the plan has human ratings only (the rates are then
        # placeholders the engine never uses)
        out[g] = _Group(
            g, float(row["estimate"]), 0.75 if weak else rho, 0.75 if weak else eta,
            "known" if fit.rates_mode == "known" or weak else "estimate",
            int(row["n_human"]), int(row["n_metric"]), int(row["n_paired"]),
            pooled, psi, weak and has_metric)
    return out


class _Planner:
    """Posterior sd of a group's alpha at ``k`` more human ratings (cached)."""

    def __init__(self, fit: BinaryFit, groups: dict[str, _Group], sig_level: float,
                 power: float = 0.5):
        self.groups = groups
        self.sig_level = sig_level
        self.z = z_total(sig_level, power)
        self.setups = {g: Setup.check(m.alpha, m.rho, m.eta, sig_level=sig_level, power=power,
                                      rates={"rho": m.rho, "eta": m.eta} if m.rates == "known"
                                      else "estimate",
                                      prior=fit.prior, rate_prior=fit.rate_prior)
                       for g, m in groups.items()}
        self._sd: dict[tuple[str, int], float] = {}

    def sd(self, g: str, k: int) -> float:
        key = (g, k)
        if key not in self._sd:
            n_human, n_metric, n_paired, psi = self.groups[g].cell(k)
            (moments,) = evaluate(self.setups[g], [make_cell(n_human, n_metric, n_paired, psi)])
            self._sd[key] = float(moments.sd.mean())
        return self._sd[key]

    def threshold(self, gs: tuple[str, ...], k: int) -> float:
        """Smallest difference separated at ``k``: ``z sqrt(sum sd^2)``.

        For one group its variance counts twice (the papers' eps: two systems like this one).
        """
        if len(gs) == 1:
            return self.z * math.sqrt(2.0) * self.sd(gs[0], k)
        return self.z * math.sqrt(sum(self.sd(g, k) ** 2 for g in gs))


#: the note of a pair whose estimates are equal (no number of ratings separates them)
ZERO_DIFFERENCE = ("the estimated difference is 0: no number of human ratings separates equal "
                   "estimates; give epsilon= for the difference that matters")


def _why(planner: _Planner, gs: tuple[str, ...], cap: int) -> str:
    """Why no ``k`` up to ``cap`` is enough, in words."""
    models = [planner.groups[g] for g in gs]
    weak = [m.name for m in models if m.weak]
    if weak:
        return (f"the metric is too weak in {', '.join(weak)} (rho + eta <= 1 at the fitted "
                "rates), so only human ratings count there")
    if all(m.rates == "estimate" for m in models):
        return ("the difference is small against what human ratings can resolve; the metric's "
                "estimated rates (more paired ratings would narrow them) and the human sample "
                "both limit it")
    return "the difference is small against what human ratings can resolve"


def plan_fit(fit: BinaryFit, epsilon: float | None = None, *,
             pairs: str | Sequence[tuple[str, str]] | None = "neighbours",
             sig_level: float | None = None, max_human: int = 100_000,
             power: float = 0.5) -> FitPlan:
    """Additional human ratings per group that separate systems (see :meth:`BinaryFit.plan`).

    Parameters
    ----------
    fit : BinaryFit
        The fitted model.
    epsilon : float, optional
        Difference to detect; default (pairs only) each pair's estimated difference.
    pairs : {"neighbours", "all"}, sequence of (str, str) or None
        Neighbouring groups in the fit's order, every pair, the pairs listed (each put in the
        fit's order), or (None) each group on its own against the papers' ``eps``.
    sig_level : float, optional
        Significance level (default: 1 - the fit's level).
    max_human : int
        Largest number of additional human ratings per group tried.
    power : float
        Chance of telling the pair apart, in [0.5, 1) (0.5: the papers' detectable difference;
        see :func:`~binaryeval.plan.detectable_difference`).

    Returns
    -------
    FitPlan

    Examples
    --------
    >>> from binaryeval.plan.fit_plan import plan_fit
    >>> import binaryeval as be
    >>> res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
    ...                      "B": {"human_pos": 62, "human_total": 100}})
    >>> plan_fit(res).to_frame()[["group_1", "group_2", "more_human"]].values.tolist()
    [['A', 'B', 177]]
    """
    sig = fit_sig_level(sig_level, fit.level)
    pw = _validate.power(power)
    cap = _validate.size(max_human, "max_human", minimum=1)
    # the planned counts add cap to the fit's own; the engine takes up to MAX_COUNT
    # (all of the fit's ratings: a pooled paired set gathers every group's)
    largest = int(fit.counts[["human_total", "metric_total", "tp", "fn", "tn", "fp"]]
                  .to_numpy().sum())
    if cap + largest > MAX_COUNT:
        raise ParameterError(f"max_human={max_human!r} plus the fit's {largest:,} ratings "
                             f"exceeds the largest number of ratings a plan computes, "
                             f"{MAX_COUNT:,} (the posterior engine's limit): give at most "
                             f"max_human={MAX_COUNT - largest}")
    units = None if pairs is None else plan_pairs(pairs, fit.groups)
    target = None if epsilon is None else _validate.real(epsilon, "epsilon")
    if target is not None and not 0 < target <= 1:
        raise ParameterError(f"epsilon={epsilon!r} must lie in (0, 1]: a difference of two rates")
    if pairs is None and target is None:
        raise ParameterError("pairs=None plans each group against a difference epsilon; give "
                             "epsilon= (e.g. 0.05), or plan pairs='neighbours'")
    groups = _groups(fit)
    planner = _Planner(fit, groups, sig, pw)
    if units is None:
        units = [(g,) for g in fit.groups]
    if not units:
        raise ParameterError("planning pairs needs at least two groups; use pairs=None with "
                             "epsilon= for one group")
    rows = [_plan_unit(planner, fit, u, target, cap) for u in units]
    frame = pd.DataFrame(rows)
    # counts stay whole numbers where a plan is out of reach (missing, not NaN-as-float)
    counts = [c for c in frame.columns if c == "more_human" or c.startswith("n_human")]
    frame[counts] = frame[counts].astype("Int64")
    return FitPlan(frame, "group" if pairs is None else "pair", sig, target, cap,
                   fit.rates_mode, fit.group_name, power=pw)


def _plan_unit(planner: _Planner, fit: BinaryFit, gs: tuple[str, ...], target: float | None,
               cap: int) -> dict[str, Any]:
    means = [fit.posteriors[g].mean() for g in gs]
    diff = abs(means[0] - means[1]) if len(gs) == 2 else np.nan
    goal = target if target is not None else diff
    row: dict[str, Any] = ({"group": gs[0]} if len(gs) == 1 else
                           {"group_1": gs[0], "group_2": gs[1], "diff": means[0] - means[1]})
    row["epsilon"] = goal
    row["separated_now"] = planner.threshold(gs, 0)
    if not goal > 0:
        k, reached = None, row["separated_now"]
    else:
        k, reached = smallest_size(lambda n: planner.threshold(gs, n), goal, cap)
    row["more_human"] = k
    for i, g in enumerate(gs, start=1):
        suffix = "" if len(gs) == 1 else f"_{i}"
        m = planner.groups[g]
        row[f"n_human{suffix}"] = m.n_human
        row[f"n_human_needed{suffix}"] = None if k is None else m.n_human + k
        row[f"n_metric{suffix}"] = m.n_metric
    row["achieved"] = reached
    row["attainable"] = k is not None
    if k is None and not goal > 0:
        row["note"] = ZERO_DIFFERENCE
    elif k is None:
        row["note"] = (f"not within {cap:,} more human ratings per system: "
                       + _why(planner, gs, cap))
    elif k == 0:
        row["note"] = "already separated"
    elif all(k <= planner.groups[g].n_metric for g in gs):
        row["note"] = f"rate {k:,} more outputs per system (of those with a metric rating only)"
    else:
        row["note"] = (f"{k:,} more human ratings per system, beyond the outputs rated so far: "
                       "rate new outputs")
    return row


@dataclass(frozen=True, eq=False, repr=False)
class FitPlan(Result):
    """How many more human ratings would settle comparisons, from the ``plan()`` of a fit.

    Attributes
    ----------
    table : DataFrame
        One row per pair (or group): the difference to detect (``epsilon``), the smallest
        difference separated now (``separated_now``), ``more_human`` (additional human ratings per
        system, or per pair for preferences; missing (``pd.NA``, the columns are ``Int64``) when
        not within ``max_human``), the human ratings now and then, and a note.
    unit : {"pair", "group", "preference"}
        Pairs of groups, single groups, or preference pairs (one difference per pair).
    method : str
        How the posterior at more ratings is obtained (exact for the binary model, an
        approximation for the latent-truth model).

    Examples
    --------
    >>> import binaryeval as be
    >>> res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
    ...                      "B": {"human_pos": 62, "human_total": 100}})
    >>> res.plan()
    FitPlan(unit='pair', rows=1, sig_level=0.05, attainable=1)
    """

    table: pd.DataFrame
    unit: str
    sig_level: float
    epsilon: float | None
    max_human: int
    rates: str
    group_name: str = "group"
    settings: dict = field(default_factory=dict)
    method: str = "exact posterior on expected counts at the fitted values"
    power: float = 0.5

    def to_frame(self) -> pd.DataFrame:
        """The plan, one row per pair (or group); ``sig_level`` and the method in ``attrs``.

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
        ...                      "B": {"human_pos": 62, "human_total": 100}})
        >>> list(res.plan().to_frame().columns)[:5]
        ['group_1', 'group_2', 'diff', 'epsilon', 'separated_now']
        """
        out = self.table.copy()
        out.attrs.update(sig_level=self.sig_level, power=self.power, max_human=self.max_human,
                         rates=self.rates, method=self.method)
        return out

    def _repr_fields(self) -> Mapping[str, Any]:
        return {"unit": self.unit, "rows": len(self.table), "sig_level": self.sig_level,
                "attainable": int(self.table["attainable"].sum())}

    def summary(self) -> Summary:
        """What to add, per pair (or group), with the reason where nothing within reach will do.

        Returns
        -------
        Summary

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
        ...                      "B": {"human_pos": 62, "human_total": 100}})
        >>> print(res.plan().summary().as_text().splitlines()[0])
        Planning from the fit: more human ratings to separate systems
        """
        per = "pair" if self.unit == "preference" else "system"
        info = {"target": ("each pair's estimated difference" if self.epsilon is None
                           else f"a difference of {self.epsilon:g}"),
                "significance": f"sig_level = {self.sig_level:g} (two-sided)",
                "fitted values": (f"preference shares per pair, rates {self.rates}"
                                  if self.unit == "preference"
                                  else f"alpha per group, rates {self.rates}"),
                "new ratings": "turn metric-only items into paired ones, then new items",
                "largest plan": f"{self.max_human:,} more human ratings per {per}",
                "method": self.method}
        t = self.table
        if self.unit == "preference":
            shown = t.assign(pair=t["group_1"].astype(str) + " vs " + t["group_2"].astype(str))
            cols = ["diff", "epsilon", "separated_now", "more_human", "n_human", "n_metric"]
            shown = shown.set_index("pair")[cols]
        elif self.unit == "pair":
            shown = t.assign(pair=t["group_1"].astype(str) + " vs " + t["group_2"].astype(str))
            cols = ["diff", "epsilon", "separated_now", "more_human", "n_human_1", "n_human_2"]
            shown = shown.set_index("pair")[cols]
        else:
            shown = t.set_index("group")[["epsilon", "separated_now", "more_human", "n_human"]]
        title = ("Planning from the fit: more human ratings to decide each preference"
                 if self.unit == "preference"
                 else "Planning from the fit: more human ratings to separate systems")
        s = Summary(title, info, [("per group" if self.unit == "group" else "per pair", shown)])
        for _, r in t.iterrows():
            if not r["attainable"]:
                who = r["group"] if self.unit == "group" else f"{r['group_1']} vs {r['group_2']}"
                s.add_note(f"{who}: {r['note']}")
        s.add_note("separated_now = the smallest difference the ratings at hand separate; "
                   f"more_human = additional human ratings per {per}")
        note = power_note(self.power).replace(
            "eps is the papers' detectable difference",
            "the targets are the papers' detectable differences")
        if self.unit != "group":
            # a pair's threshold adds the two groups' own variances
            note = note.replace(EQUAL_VARIANCE_NOTE,
                                "; here each system of a pair has its own posterior variance")
        s.add_note(note)
        return s

    def plot(self, ax=None, *, kind: str = "bars", **kw):
        """Human ratings per system now and as planned, one bar pair per row.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (a new figure when None).
        kind : {"bars"}
            The only kind.
        **kw
            Passed to ``Axes.barh``.

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import binaryeval as be
        >>> res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
        ...                      "B": {"human_pos": 62, "human_total": 100}})
        >>> ax = res.plan().plot()
        """
        import matplotlib.pyplot as plt

        _validate.choice(kind, "kind", ("bars",))
        t = self.table
        labels = (t["group"] if self.unit == "group"
                  else t["group_1"].astype(str) + " vs " + t["group_2"].astype(str))
        now = (t["n_human"] if self.unit in ("group", "preference")
               else t[["n_human_1", "n_human_2"]].max(axis=1))
        more = t["more_human"].astype(float).fillna(self.max_human)
        if ax is None:
            _, ax = plt.subplots(figsize=(7, 0.35 * len(t) + 2))
        y = np.arange(len(t))[::-1]
        ax.barh(y, now, color="C0", label="human ratings now", **kw)
        ax.barh(y, more, left=now, color="C1", alpha=0.7,
                label="more needed (capped where unattainable)")
        ax.set_yticks(y, labels)
        ax.set_xlabel("human ratings per pair" if self.unit == "preference"
                      else "human ratings per system")
        ax.legend(fontsize=8, loc="best")
        return ax


def _plan_method(self, epsilon: float | None = None, *,
                 pairs: str | Sequence[tuple[str, str]] | None = "neighbours",
                 sig_level: float | None = None, max_human: int = 100_000, power: float = 0.5):
    """How many more human ratings, at the fitted values, would tell systems apart.

    Plans at each group's posterior mean of ``alpha``, its fitted ``rho``/``eta`` and the metric
    ratings it has: ``k`` more human ratings per system go first to outputs that have a metric
    rating only (see :mod:`binaryeval.plan.fit_plan`).  The answer says when no ``k`` up to
    ``max_human`` is enough, and why.

    Parameters
    ----------
    epsilon : float, optional
        Difference to detect; by default each pair's estimated difference.
    pairs : {"neighbours", "all"}, sequence of (str, str) or None
        Neighbouring groups in the fit's order (default), every pair, the pairs listed (e.g.
        ``[("A", "C")]``; each put in the fit's order, the group ranked higher first), or
        each group on its own against the papers' detectable difference ``eps`` (then
        ``epsilon`` is required).
    sig_level : float, optional
        Significance level (default ``1 - level`` of the fit).
    max_human : int
        Largest number of additional human ratings per system tried.
    power : float
        Chance of telling a pair apart, in [0.5, 1) (0.5: the papers' detectable difference;
        0.8 plans for four times in five, about twice the ratings).

    Returns
    -------
    FitPlan

    Examples
    --------
    >>> import binaryeval as be
    >>> res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
    ...                      "B": {"human_pos": 62, "human_total": 100}})
    >>> int(res.plan().to_frame()["more_human"].iloc[0])
    177
    """
    return plan_fit(self, epsilon, pairs=pairs, sig_level=sig_level, max_human=max_human,
                    power=power)


# The planning package sits above the binary model and gives its result this method: the
# model's result never imports the planner (see the layers in README.md).
BinaryFit.plan = _plan_method  # type: ignore[attr-defined]
