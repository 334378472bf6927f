"""The smallest number of ratings of one kind that reaches a target detectable difference."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .. import _validate as check
from .._results import Result
from .._validate import renamed
from ..errors import ParameterError
from ..summary import Summary
from ._setup import (
    Setup,
    at_most_engine,
    power_note,
    requires_model,
    shown_settings,
    size,
    z_total,
)
from .cells import VARIANCES, epsilon, evaluate, make_cell, other_sd

__all__ = ["SampleSizeResult", "required_sample_size"]

_VARY = ("n_human", "n_metric", "n_paired")


@dataclass(frozen=True, eq=False, repr=False)
class SampleSizeResult(Result):
    """The smallest size reaching a target ``eps``, or why none can.

    Attributes
    ----------
    size : int or None
        The value of ``vary`` found by doubling and bisection whose predecessor misses the
        target (None when unattainable).  With expected counts, ``eps`` decreases with the size
        up to the rounding of the counts: where a count's rounding makes ``eps`` jump up (rare
        positives, a few percent), a smaller size may reach the target too, and ``size`` is then
        up to some percent above the smallest; ``simulate="sample"`` in
        :func:`~binaryeval.plan.detectable_difference` has no such steps.
    vary : str
        The size that was varied.
    epsilon : float
        Target.
    achieved : float
        ``eps`` at ``size`` (or at ``max_size`` when unattainable).
    attainable : bool
        Whether a size up to ``max_size`` reaches the target.
    limit : float
        ``eps`` as the varied size grows without bound (approximated at ``max_size``, or its exact
        limit where one is known).
    limited_by : str or None
        The quantity that keeps ``eps`` above the target when unattainable.
    message : str
        The answer in words.
    settings : dict
        The model and options.

    Examples
    --------
    >>> from binaryeval.plan import required_sample_size
    >>> res = required_sample_size(0.05, alpha=0.6, rates={"rho": 0.7, "eta": 0.7})
    >>> res
    SampleSizeResult(vary='n_human', size=735, epsilon=0.05, achieved=0.0499907, attainable=True)
    >>> int(res)
    735
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

    def _repr_fields(self) -> Mapping[str, Any]:
        return {"vary": self.vary, "size": self.size, "epsilon": self.epsilon,
                "achieved": self.achieved, "attainable": self.attainable}

    def to_frame(self) -> pd.DataFrame:
        """One row: the varied size, the size found, the target and what was achieved.

        Examples
        --------
        >>> from binaryeval.plan import required_sample_size
        >>> frame = required_sample_size(0.05, alpha=0.6, rates={"rho": 0.7, "eta": 0.7}).to_frame()
        >>> frame[["vary", "size", "attainable"]]
              vary  size  attainable
        0  n_human   735        True
        """
        df = pd.DataFrame([{"vary": self.vary, "size": self.size, "epsilon": self.epsilon,
                            "achieved": self.achieved, "attainable": self.attainable,
                            "limit": self.limit, "limited_by": self.limited_by}])
        df.attrs.update(self.settings)
        return df

    def summary(self) -> Summary:
        """The answer, the settings and the message.

        Examples
        --------
        >>> from binaryeval.plan import required_sample_size
        >>> required_sample_size(0.05, alpha=0.6, rates={"rho": 0.7, "eta": 0.7}).summary().notes[0]
        'n_human = 735 per system gives eps = 0.04999 <= 0.05.'
        """
        info = shown_settings(self.settings)
        table = self.to_frame()
        if "vary" in table.columns:
            table = table.set_index("vary")    # the size searched names the row
        return Summary("Required sample size", info, [("result", table)],
                       [self.message, power_note(self.settings.get("power", 0.5),
                                                 self.settings.get("variance", "equal"))],
                       digits=4)


class _Search:
    """``eps`` as a function of the varied size, the other sizes held."""

    def __init__(self, s: Setup, vary: str, base: dict[str, Any], psi: float | None,
                 other: float | None = None) -> None:
        # other: the target difference when the other system has its own variance
        # (variance="both"), None for the papers' equal variances
        self.s, self.vary, self.base, self.psi, self.other = s, vary, base, psi, other

    def eps(self, n: int, rates: str | None = None) -> float:
        sizes = dict(self.base)
        sizes[self.vary] = n
        if self.vary == "n_human" and self.base["n_paired"] is None:
            sizes["n_paired"] = None   # the paired set follows the human sample
        elif (self.vary == "n_human" and self.psi is None
              and n < (self.base["n_paired"] or 0)):
            # a paired set inside the human sample: fewer human ratings than paired ones cannot
            # be (infinite eps keeps the search looking upwards, eps decreasing in n)
            return math.inf
        s = self.s if rates is None else dataclasses.replace(self.s, rates=rates)
        cell = make_cell(sizes["n_human"], sizes["n_metric"], sizes["n_paired"], self.psi)
        (moments,) = evaluate(s, [cell])
        if self.other is None or cell.uninformed:
            return epsilon(s, moments)
        # the difference this system and one ``other`` away, each with its own posterior sd,
        # tell apart: compared with the target it decides like eps does
        sd = float(moments.sd.mean())
        return z_total(s.sig_level, s.power) * math.hypot(sd, other_sd(s, cell, self.other))


def smallest_size(eps_at: Callable[[int], float], target: float, max_size: int,
              ) -> tuple[int | None, float]:
    """The smallest size with ``eps <= target`` by doubling and bisection, or None and eps(max).

    ``eps`` decreases with the size up to the rounding of expected counts; the search returns a
    size whose predecessor misses the target.
    """
    e0 = eps_at(0)
    if e0 <= target:
        return 0, e0
    e_max = eps_at(max_size)
    if e_max > target:
        return None, e_max
    hi, e_hi = 1, eps_at(1)
    while e_hi > target and hi < max_size:
        hi = min(hi * 2, max_size)
        e_hi = e_max if hi == max_size else eps_at(hi)
    lo = hi // 2 if hi > 1 else 0   # eps(lo) > target >= eps(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if eps_at(mid) <= target:
            hi = mid
        else:
            lo = mid
    return hi, eps_at(hi)


def _why(search: _Search, target: float, e_max: float, max_size: int,
         n_paired: int | None) -> tuple[float, str, str]:
    """``(limit, limited_by, explanation)`` when no size up to ``max_size`` reaches the target."""
    vary, base = search.vary, search.base
    if vary == "n_metric" and search.s.rates == "estimate":
        known = search.eps(max_size, rates="known")
        if known <= target:
            return e_max, "rho/eta uncertainty", (
                f" More metric ratings cannot help: with the rates known exactly eps would be "
                f"{known:.4g}, so the uncertainty of rho and eta (n_paired = "
                f"{base['n_human'] if n_paired is None else n_paired} paired ratings) limits it; "
                f"add paired (human + metric) ratings.")
        return e_max, "human ratings", (f" Even with rho and eta known exactly eps stays at "
                                        f"{known:.4g}.")
    if vary == "n_paired":
        limit = search.eps(0, rates="known")
        if limit <= target:
            # known rates would reach the target: the paired set, inside the human sample,
            # stops at n_human before the rates are known well enough
            return e_max, "human ratings", (
                f" The paired set lies inside the human sample, so it holds at most n_human = "
                f"{base['n_human']} items; with the rates known exactly eps would be "
                f"{limit:.4g}: add human ratings (vary='n_human'), or give psi= to plan a "
                f"separate calibration set of paired items.")
        return limit, "human and metric ratings", (
            f" As n_paired grows the rates become known and eps tends to {limit:.4g} > {target}: "
            f"the given n_human = {base['n_human']} and n_metric = {base['n_metric']} limit it; "
            f"add human or metric ratings.")
    if vary == "n_metric":
        # known rates: eps falls to 0 as metric ratings grow (rho + eta > 1), so the search's
        # bound stops it, not the human ratings
        return e_max, "max_size", (" With the rates known, metric ratings alone get there: "
                                   "increase max_size (or add human ratings).")
    return e_max, "max_size", " Human ratings alone always get there: increase max_size."


@renamed(gamma="sig_level")
@requires_model
def required_sample_size(epsilon: float, vary: str = "n_human", *, alpha: float, rho: float,
                         eta: float | None = None, n_human: int = 0, n_metric: int = 0,
                         n_paired: int | None = None, sig_level: float = 0.05,
                         rates: str = "estimate", rounding: str = "half_up",
                         psi: float | None = None, method: str = "exact",
                         prior: Sequence[float] = (1, 1), rate_prior: Sequence[float] = (1, 1),
                         grid: Sequence[int] | None = None,
                         max_size: int = 10_000_000, power: float = 0.5,
                         variance: str = "equal") -> SampleSizeResult:
    """Smallest number of ratings of one kind that brings ``eps`` down to ``epsilon``.

    The other sizes stay as given.  With ``vary="n_human"`` and ``n_paired=None`` the paired set
    follows the human sample (``n_paired = n_human``).  Counts are the expected ones (the paper's
    procedure); ``eps`` then decreases with every size up to the rounding of counts, and the
    smallest size is found by doubling and bisection.

    When no size up to ``max_size`` reaches the target, the result says which quantity limits
    ``eps``: more metric ratings cannot beat the uncertainty of ``rho``/``eta`` (fix: paired ratings)
    and of the human sample; more paired ratings cannot beat the information the human and metric
    ratings carry once the rates are known (fix: more human or metric ratings), and a paired set
    inside the human sample cannot outgrow ``n_human`` (fix: more human ratings, or ``psi=`` for a
    separate calibration set).

    Parameters
    ----------
    epsilon : float
        Target detectable difference, in (0, 1].
    vary : {"n_human", "n_metric", "n_paired"}
        The size to choose.
    alpha : float
        Share of adequate (positive) outputs of the system; required, as is ``rho``.
    rho, eta, n_human, n_metric, n_paired, sig_level, rates, rounding, psi, method, prior, rate_prior, grid, power
        As in :func:`~binaryeval.plan.detectable_difference` (the value of the varied size is
        ignored; ``power=0.8``: sizes that find a difference of ``epsilon`` four times in five).
    max_size : int
        Largest size tried.
    variance : {"equal", "both"}
        ``"equal"`` (default, the papers'): the other system's posterior has this one's
        variance.  ``"both"``: the other system, ``epsilon`` away on the side nearer 0.5, has
        its own, and the size is the smallest with ``z sqrt(sd^2 + sd_epsilon^2) <= epsilon``
        (``achieved`` and ``limit`` are that difference); near ``alpha = 0`` or 1 this is the
        size that keeps the planned ``power`` (see
        :func:`~binaryeval.plan.detectable_difference`).

    Returns
    -------
    SampleSizeResult
        ``int(result)`` is the size (raises when unattainable).

    Examples
    --------
    >>> from binaryeval.plan import required_sample_size
    >>> res = required_sample_size(0.02, vary="n_human", alpha=0.6, rates={"rho": 0.7, "eta": 0.7})
    >>> res.size > 2000
    True
    """
    s = Setup.check(alpha, rho, eta, sig_level=sig_level, rates=rates, rounding=rounding,
                    method=method, prior=prior, rate_prior=rate_prior, grid=grid,
                    power=power)
    psi = s.paired_share(psi)
    target = check.real(epsilon, "epsilon")
    if not 0 < target <= 1:
        raise ParameterError(f"epsilon={epsilon!r} must lie in (0, 1]: it is a difference of two "
                             f"shares, e.g. epsilon=0.05")
    vary = check.choice(vary, "vary", _VARY)
    variance = check.choice(variance, "variance", VARIANCES)
    max_size = at_most_engine(check.size(max_size, "max_size", minimum=1), "max_size")
    if vary == "n_paired" and s.rates == "known":
        raise ParameterError("vary='n_paired' has no effect with known rates (paired ratings only "
                             "estimate rho and eta); vary n_human or n_metric, or use "
                             "rates='estimate'.")
    base = dict(n_human=size(n_human, "n_human"), n_metric=size(n_metric, "n_metric"),
                n_paired=n_paired)
    search = _Search(s, vary, base, psi, target if variance == "both" else None)
    settings = dict(s.facts(), **{k: v for k, v in base.items() if k != vary})
    if variance == "both":
        settings["variance"] = "both"
    if settings.get("n_paired", 0) is None:   # the default paired set, as the other results say
        settings["n_paired"] = "n_human"
    if psi is not None:
        settings["psi"] = psi
    settings["sizes"] = "per system (each of the two systems compared gets them)"
    if vary == "n_paired" and psi is None:
        # a paired set inside the human sample holds at most n_human items
        if base["n_human"] < 1:
            raise ParameterError("vary='n_paired' with the paired set inside the human sample "
                                 "needs n_human >= 1 (it holds at most n_human items); give "
                                 "n_human, or psi= for a separate calibration set")
        max_size = min(max_size, base["n_human"])
    found, achieved = smallest_size(search.eps, target, max_size)
    if found is not None:
        message = (f"eps = {achieved:.4g} <= {target} already without any {vary}." if found == 0
                   else f"{vary} = {found} per system gives eps = {achieved:.4g} <= {target:g}.")
        if (vary == "n_human" and psi is None and found and found == n_paired
                and _Search(s, vary, dict(base, n_paired=None), psi,
                            search.other).eps(found - 1) <= target):
            # the fixed paired set, not the target, set the size
            unpaired = required_sample_size(
                epsilon, vary, alpha=s.alpha, rho=s.rho, eta=s.eta, n_metric=base["n_metric"],
                sig_level=s.sig_level, rates=s.rates_value, rounding=s.rounding,
                method=s.method, prior=s.prior, rate_prior=s.rate_prior, grid=s.grid,
                max_size=max_size, power=s.power, variance=variance)
            known = " (known rates: paired items do not inform it)" if s.rates == "known" else ""
            message += (f" That is the fixed n_paired = {n_paired}: the paired set lies inside "
                        f"the human sample, which must hold it; with n_paired left out (every "
                        f"human-rated item paired) n_human = {unpaired.size} reaches the "
                        f"target{known}.")
        # the floor: eps with the varied size as large as the search may go
        floor = search.eps(max_size)
        return SampleSizeResult(found, vary, target, achieved, True, floor, None, message,
                                settings)
    limit, limited_by, why = _why(search, target, achieved, max_size, n_paired)
    message = (f"No {vary} up to {max_size} reaches eps = {target}; at {max_size} eps = "
               f"{achieved:.4g}.{why}")
    return SampleSizeResult(None, vary, target, achieved, False, limit, limited_by, message,
                            settings)
