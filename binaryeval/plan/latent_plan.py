"""From a latent-truth fit to a plan: how many more human ratings would settle each comparison.

:meth:`LatentFit.plan <binaryeval.latent.LatentFit.plan>` asks, for neighbouring groups in the
fit's order, how many more human ratings per system would separate them;
:meth:`PreferenceFit.plan <binaryeval.latent.PreferenceFit.plan>` asks, for each pair of systems,
how many more human preference ratings would decide the sign of ``diff = win_1 - win_2``.  Both
at the fitted values, as :meth:`BinaryFit.plan` does, and with the same answer
(:class:`~binaryeval.plan.fit_plan.FitPlan`).

The method: an effective-sample-size approximation
--------------------------------------------------
The sampler cannot be rerun for every candidate number of ratings, so the plan uses the
information the fit already shows.  For a share ``p`` (``alpha``) or a difference of shares
(``diff``), one human rating contributes the variance ``V`` (``p (1 - p)``, or
``win_1 + win_2 - diff^2``), and a Dirichlet posterior of ``n`` human ratings alone has variance
``V / (n + c0 + 1)`` (``c0`` the prior's total concentration).  So the fit's posterior sd ``s``
is worth ``n_eff = V / s^2 - c0 - 1`` human ratings (exact without metric ratings).  ``k`` more
human ratings go first to metric-only items (each becomes a paired item), then to new items
(rated by the metric too), and are worth ``gain(k)`` human ratings more:

    n(k) = n_eff + gain(k),    sd(k) = sqrt(V / (n(k) + c0 + 1))      at the fitted values.

``gain(k) = n_F(k) - n_F(0)``, where ``n_F = V / var_F`` and ``var_F`` is the variance of the
share (or of ``diff``) by the inverse expected Fisher information of the latent-class model at
the posterior means of ``pi`` and ``Theta`` (a paired item is a draw of the cell ``(c, j)``
with probability ``pi_c Theta[c, j]``, a metric-only item one of ``j`` with
``sum_c pi_c Theta[c, j]``): it counts that the new paired items also sharpen the metric's
confusion matrix, which makes the remaining metric-only items worth more.  Beyond the
metric-only items every item is paired and ``gain`` adds one per rating.  This holds for the
default model (``Theta`` per group, the metrics' joint pattern); with pooled, partially pooled
or known rates or ``dependence="independent"`` (``Theta`` learnt from more than the group's
items, or restricted) each metric-only item keeps its present worth
``w = (n_eff - n_human) / n_metric`` instead (``gain(k) = k (1 - w)`` up to ``n_metric``, then
one per rating), which errs towards more ratings.  A comparison is settled at ``sig_level``
with probability ``power`` when the difference is at least ``z_{1 - sig_level/2} + z_power``
times its sd (two groups: ``sqrt(sd_1^2 + sd_2^2)``, as for the binary model).

Validation
----------
On a binary metric the latent plan asks for 0.95-1.02 times the ratings of the exact plan of
the binary model (:meth:`BinaryFit.plan`) on the same data; with the present worth ``w`` kept
it asked for 1.30-1.41 times as many where the new ratings go to metric-only items
(tests/test_latent_protocol.py).

The latent plan was checked by simulation (``studies/latent_plan_power.py``, results in
``studies/results/latent_plan_power.csv``): pairs of systems with ``alpha`` 0.72 and 0.62
(difference 0.10), 0.62 and 0.55 (0.07), 0.55 and 0.55 (0), each pair an experiment of its
own; a score in 4 bins (``P(bin | class)`` 0.4, 0.3, 0.2, 0.1 for inadequate outputs, the
reverse for adequate ones) or two binary metrics (sensitivity 0.80 and 0.75, specificity 0.75
and 0.70, erring independently, their joint pattern: J = 4), per system 40 paired and 400
metric-only items, 100 + 300 or 20 + 400; 1,000 replicates of each pair (500 for 100 + 300).
Each replicate was fitted (``rates="estimate"``), planned at the true difference with
``sig_level = 0.05``, both systems given the ``k`` ratings as the plan places them and fitted
again; the pair counts as separated when the equal-tailed 95 % interval of ``alpha_1 -
alpha_2`` lies on the true side of 0.  Over the two pairs with a difference (the plan never
called them separated already):

=====================  ==================  ==================  =========  ===============
design                 power 0.5           power 0.8           sd ratio   false positives
=====================  ==================  ==================  =========  ===============
4 bins, 40 + 400       0.500 (SE 0.011)    0.789 (SE 0.009)    0.99-1.00  0.056, 0.044
two metrics, 40 + 400  0.492 (SE 0.011)    0.806 (SE 0.009)    0.99-1.02  0.058, 0.026
4 bins, 100 + 300      0.509 (SE 0.016)    0.800 (SE 0.013)    1.00       0.056, 0.046
4 bins, 20 + 400       0.483 (SE 0.011)    0.798 (SE 0.009)    0.98-1.00  0.053, 0.057
=====================  ==================  ==================  =========  ===============

(sd ratio: the plan's mean sd of the difference at ``k`` over the refit's mean posterior sd;
false positives: the pair with difference 0, planned at ``epsilon = 0.1``, separated at power
0.5 and 0.8 of the plan, SE 0.007-0.010; at most 0.05 but for 1.2 SE.)  All 16 planned pairs
and powers lie within 1.7 binomial SEs of the promise (z from -1.7 to 1.7, mean -0.1; the
first 500 replicates of 20 + 400 gave 0.452 for the difference 0.07 at power 0.5, z = -2.1,
the 1,000 0.475).  The mean ``k`` was 45-127 at power 0.5 and 228-306 at 0.8 for the
difference 0.10 (ratings of metric-only items), 266-336 and 664-731 for 0.07 (at 0.8 beyond the
metric-only items: new items).  At the difference 0.07 the plan's sd is 0.4-1.6 % below the
refit's (largest with 20 paired items; not traced further), at 0.10 within 0.4 % (1.6 % above
with two metrics at power 0.5).  With 20 paired items the first fit's difference is drawn
towards 0 (0.90 of the true one on average, 0.97-1.01 with 40), which a plan at the fitted
difference would feel; planned at the true one, the refit's mean difference is 0.98-1.00 of it.

The preference plan was checked by simulation (``studies/preference_plan_power.py``, results in
``studies/results/preference_plan_power.csv``): four systems (six pairs, true ``diff`` 0.15,
0.2, 0.2, 0.1, 0.1 and 0, ties 0.2), 3 x 3 metrics and four designs (per pair 40 paired and
400 metric-only items with a good metric, 60 + 600 with a weak one, 100 + 300 with the good
one, 40 + 400 with both metrics, their joint pattern), 300 replicates each (250 with two
metrics).  Each replicate was fitted, planned at the true ``|diff|`` with ``sig_level = 0.05``,
given the ``k`` ratings as the plan places them and fitted again.  Over the pairs the plan never
called separated already (``k = 0`` promises at least ``power``):

=====================  ==================  ==================  =========  ===============
design                 power 0.5           power 0.8           sd ratio   false positives
=====================  ==================  ==================  =========  ===============
good, 40 + 400         0.529 (SE 0.017)    0.789 (SE 0.010)    1.01       0.033, 0.040
weak, 60 + 600         0.480 (SE 0.017)    0.783 (SE 0.010)    1.00       0.047, 0.043
good, 100 + 300        0.477 (SE 0.020)    0.809 (SE 0.013)    1.00       0.040, 0.067
good + weak, 40 + 400  0.533 (SE 0.018)    0.809 (SE 0.011)    1.03-1.04  0.092, 0.064
=====================  ==================  ==================  =========  ===============

(sd ratio: the plan's mean sd of ``diff`` at ``k`` over the refit's mean posterior sd; false
positives: the pair with ``diff = 0``, planned at ``epsilon = 0.1``, decided at power 0.5 and
0.8 of the plan, sig_level 0.05.)  Of the 29 planned pairs and powers all but three lie within
2 binomial SEs of the promise (z from -3.3 to 2.1, mean -0.02).  Two are at power 0.8 and
``diff = 0.1`` (0.753 and 0.723, z = -2.0 and -3.3), where the plan takes ``V`` at the fitted
shares, which the noise of the first ``diff`` lowers by some 2 %
(``E[diff_hat^2] = diff^2 + var``): its sd there is 1 % below the refit's.  With two metrics
(J = 9) the plan is a little conservative where the ratings go to metric-only items (its sd
2.5-5 % above the refit's: 0.852 for 0.8 in one pair, z = 2.1): the Fisher information at the
posterior means of the 24 free entries of ``Theta``, drawn towards uniform by their prior,
undervalues the metric.  Their false positives, 0.092 and 0.064 of 250, share their first data
sets; 1,000 fresh ones with ``diff = 0`` gave 0.014 and 0.043 at 40 and 240 paired items
(``--null``).  Three quarters of the planned ``k`` gave 0.43-0.47 and 0.71-0.74, half of it
0.37-0.38 and 0.61-0.64: the plan does not ask for more than the power needs.  Keeping each
metric-only item's present worth asked for 1.14-1.37 times the ratings (mean 1.22) where they
go to metric-only items and delivered 0.51-0.58 and 0.80-0.83 (single pairs up to 0.61 and
0.89; sd ratio up to 1.13).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _validate
from ..errors import ParameterError
from ..latent.multi import LatentFit
from ..latent.preferences import PreferenceFit
from ._setup import fit_sig_level, plan_pairs, z_total
from .fit_plan import ZERO_DIFFERENCE, FitPlan
from .sample_size import smallest_size

__all__ = ["plan_latent", "plan_preferences"]

METHOD = ("effective-sample-size approximation at the fitted values (the posterior sd's worth "
          "in human ratings, the gain of more ratings from the model's Fisher information; see "
          "binaryeval.plan.latent_plan)")


class _Unit:
    """One share or difference: its posterior and the ratings behind it.

    ``gain(k)``, when given, is what ``k`` more human ratings add in human ratings (the Fisher
    information's answer, :func:`_fisher_gain`); without it each metric-only item keeps its
    present worth ``w``.
    """

    def __init__(self, mean: float, sd: float, per_item: float, c0: float, n_human: int,
                 n_metric: int, gain: Callable[[int], float] | None = None):
        self.mean, self.sd, self.per_item, self.c0 = mean, sd, per_item, c0
        self.n_human, self.n_metric = int(n_human), int(n_metric)
        with np.errstate(divide="ignore", invalid="ignore"):
            n_eff = per_item / sd ** 2 - c0 - 1.0 if sd > 0 else math.inf
        self.n_eff = max(float(n_eff), 0.0)
        worth = (self.n_eff - n_human) / n_metric if n_metric else 0.0
        self.worth = float(min(max(worth, 0.0), 1.0))
        self.gain = gain

    def sd_at(self, k: int) -> float:
        if not self.sd > 0:
            return 0.0
        if self.gain is not None and k > 0:
            n = self.n_eff + self.gain(k)
        else:
            k_old = min(k, self.n_metric)
            n = self.n_eff + k_old * (1.0 - self.worth) + max(k - self.n_metric, 0)
        return math.sqrt(max(self.per_item, 0.0) / (n + self.c0 + 1.0))


def _fisher_variance(pi: np.ndarray, theta: np.ndarray, n_paired: float, n_human: float,
                     n_metric: float, grad: np.ndarray) -> float:
    """Variance of ``grad . pi`` by the inverse expected Fisher information of the model.

    Parameters: the first ``K - 1`` shares and the first ``J - 1`` entries of every row of
    ``Theta``.  A paired item is one draw of the cell ``(c, j)`` with probability
    ``pi_c Theta[c, j]``, a metric-only item one of ``j`` with ``q_j = sum_c pi_c Theta[c, j]``,
    a human-only item one of ``c``.  ``inf`` when the information is singular (no paired item:
    the metric's errors are not identified).
    """
    k, j = theta.shape
    size = k - 1 + k * (j - 1)
    d_pi = np.zeros((k, size))
    d_pi[np.arange(k - 1), np.arange(k - 1)] = 1.0
    d_pi[k - 1, : k - 1] = -1.0
    d_theta = np.zeros((k, j, size))
    for c in range(k):
        first = k - 1 + c * (j - 1)
        cols = np.arange(first, first + j - 1)
        d_theta[c, np.arange(j - 1), cols] = 1.0
        d_theta[c, j - 1, cols] = -1.0
    cell = pi[:, None] * theta
    d_cell = theta[:, :, None] * d_pi[:, None, :] + pi[:, None, None] * d_theta
    flat = d_cell.reshape(-1, size)
    info = n_paired * (flat.T / cell.ravel()) @ flat
    q, d_q = cell.sum(axis=0), d_cell.sum(axis=0)
    info += n_metric * (d_q.T / q) @ d_q
    info += n_human * (d_pi.T / pi) @ d_pi
    g = grad @ d_pi
    # singular (to rounding: LAPACK's solve need not notice; numpy 1.26's returned a finite
    # number where numpy 2's raised) when no paired item identifies Theta
    if n_paired <= 0 or not np.isfinite(info).all() or np.linalg.cond(info) > 1e12:
        return math.inf
    try:
        var = float(g @ np.linalg.solve(info, g))
    except np.linalg.LinAlgError:
        return math.inf
    return var if np.isfinite(var) and var > 0 else math.inf


def _fisher_gain(pi: np.ndarray, theta: np.ndarray, n_paired: int, n_human: int,
                 n_metric: int, grad: np.ndarray, per_item: float) -> Callable[[int], float]:
    """``k -> n_F(k) - n_F(0)``: human ratings' worth of ``k`` more, by the Fisher information.

    ``n_F(k) = V / var_F(k)`` with ``var_F`` of :func:`_fisher_variance` after ``k`` more human
    ratings placed as the plan places them (metric-only items first, each becoming paired, then
    new items, paired too: the metric rates every item).  With the metric-only items used up
    every item is paired and ``n_F`` is their number, as for human ratings alone.
    """
    def n_f(k: int) -> float:
        k_old = min(k, n_metric)
        var = _fisher_variance(pi, theta, n_paired + k, n_human, n_metric - k_old, grad)
        if not math.isfinite(var):   # no paired item: metric-only items are worth nothing
            return float(n_paired + k + n_human)
        return per_item / var

    base = n_f(0)
    return functools.lru_cache(maxsize=None)(lambda k: max(n_f(k) - base, 0.0))


def _settings(sig_level: Any, level: float, max_human: Any, epsilon: Any, power: Any = 0.5
              ) -> tuple[float, int, float | None, float]:
    sig = fit_sig_level(sig_level, level)
    cap = _validate.size(max_human, "max_human", minimum=1)
    target = None if epsilon is None else _validate.real(epsilon, "epsilon")
    if target is not None and not 0 < target <= 1:
        # two shares (alpha, or win_1 and win_2 of one pair, which add up to at most 1) differ
        # by at most 1, as in BinaryFit.plan()
        raise ParameterError(f"epsilon={epsilon!r} must lie in (0, 1]: a difference of two "
                             f"shares, e.g. epsilon=0.05")
    return sig, cap, target, z_total(sig, _validate.power(power))


def _note(k: int | None, n_metric: int, cap: int, why: str) -> str:
    if why == "the estimated difference is 0":
        return ZERO_DIFFERENCE
    if k is None:
        return f"not within {cap:,} more human ratings per system: {why}"
    if k == 0:
        return "already separated"
    if k <= n_metric:
        return f"rate {k:,} more items per system (of those with a metric rating only)"
    return f"{k:,} more human ratings per system, beyond the items rated so far: rate new items"


def plan_latent(fit: LatentFit, epsilon: float | None = None, *,
                pairs: str | Sequence[tuple[str, str]] = "neighbours",
                sig_level: float | None = None, max_human: int = 100_000,
                power: float = 0.5) -> FitPlan:
    """More human ratings per group that would separate groups (see :meth:`LatentFit.plan`).

    Parameters
    ----------
    fit : LatentFit
    epsilon : float, optional
        Difference to detect; default each pair's estimated difference.
    pairs : {"neighbours", "all"} or sequence of (str, str)
        Neighbouring groups in the fit's order, every pair, or the pairs listed (each put in
        the fit's order).
    sig_level : float, optional
        Significance level (default: 1 - the fit's level).
    max_human : int
        Largest number of additional human ratings per group tried.
    power : float
        Chance of telling a pair apart, in [0.5, 1) (0.5: the papers' detectable difference).

    Returns
    -------
    FitPlan

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import binaryeval as be
    >>> from binaryeval.plan.latent_plan import plan_latent
    >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
    >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
    >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
    ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
    ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
    ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
    >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
    >>> plan_latent(res).to_frame()[["group_1", "group_2", "more_human"]].shape
    (1, 3)
    """
    sig, cap, target, z = _settings(sig_level, fit.level, max_human, epsilon, power)
    order = list(fit.order or fit.groups)
    todo = plan_pairs(pairs, order)
    if len(order) < 2:
        raise ParameterError("planning pairs needs at least two groups")
    frame = fit.to_frame()
    a, b = fit.prior
    units = {}
    for g in order:
        m = float(frame.loc[g, "estimate"])
        units[g] = _Unit(m, float(frame.loc[g, "std_error"]), m * (1 - m), a + b,
                         int(frame.loc[g, "n_human"]), int(frame.loc[g, "n_metric"]),
                         _model_gain(fit.latent, fit.groups.index(g), (0.0, 1.0), m * (1 - m)))
    rows = []
    for g1, g2 in todo:
        u1, u2 = units[g1], units[g2]
        diff = u1.mean - u2.mean
        goal = target if target is not None else abs(diff)

        def needed(k: int, u1=u1, u2=u2) -> float:
            return z * math.sqrt(u1.sd_at(k) ** 2 + u2.sd_at(k) ** 2)

        now = needed(0)
        k, reached = (smallest_size(needed, goal, cap) if goal > 0 else (None, now))
        why = ("the estimated difference is 0" if not goal > 0 else
               "the difference is small against what human ratings can resolve")
        rows.append({"group_1": g1, "group_2": g2, "diff": diff, "epsilon": goal,
                     "separated_now": now, "more_human": k,
                     "n_human_1": u1.n_human, "n_human_needed_1": None if k is None
                     else u1.n_human + k, "n_metric_1": u1.n_metric,
                     "n_human_2": u2.n_human, "n_human_needed_2": None if k is None
                     else u2.n_human + k, "n_metric_2": u2.n_metric,
                     "achieved": reached, "attainable": k is not None,
                     "note": _note(k, min(u1.n_metric, u2.n_metric), cap, why)})
    return _result(rows, "pair", sig, target, cap, fit.latent.rates, fit.group_name, power)


def plan_preferences(fit: PreferenceFit, epsilon: float | None = None, *,
                     pairs: str | Sequence[tuple[str, str]] = "all",
                     sig_level: float | None = None, max_human: int = 100_000,
                     power: float = 0.5) -> FitPlan:
    """More human preference ratings per pair that would decide its sign.

    See :meth:`PreferenceFit.plan`.

    Parameters
    ----------
    fit : PreferenceFit
    epsilon : float, optional
        The difference ``|win_1 - win_2|`` to detect; default each pair's estimate.
    pairs : {"all", "neighbours"} or sequence of (str, str)
        Every pair of the fit, the pairs of neighbouring systems in the fit's order, or the
        pairs listed (each oriented as the fit's table orients it).
    sig_level : float, optional
        Significance level (default: 1 - the fit's level).
    max_human : int
        Largest number of additional human ratings per pair tried.
    power : float
        Chance of telling a pair apart, in [0.5, 1) (0.5: the papers' detectable difference).

    Returns
    -------
    FitPlan

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import binaryeval as be
    >>> from binaryeval.plan.latent_plan import plan_preferences
    >>> rng = np.random.default_rng(0)
    >>> quality = np.array([0.3, 0.0, -0.3])  # systems A, B, C; 300 items each
    >>> z = quality[:, None] + rng.normal(size=(300, 3, 2))
    >>> df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
    ...                    "system": np.tile(["A", "B", "C"], 300),
    ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
    >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rated the first 60 items
    >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
    >>> plan_preferences(res).to_frame()["more_human"].tolist()
    [0, 0, 0]
    """
    sig, cap, target, z = _settings(sig_level, fit.level, max_human, epsilon, power)
    if isinstance(pairs, str):
        _validate.choice(pairs, "pairs", ("all", "neighbours"))
    frame = fit.to_frame()
    conc = np.asarray(fit.latent.share_concentration, dtype=float)
    c0 = float((conc[0] if conc.ndim > 1 else conc).sum())
    keys = list(frame.index)
    if pairs == "neighbours":
        order = list(fit.order or fit.systems)
        wanted = set()
        for x, y in zip(order[:-1], order[1:], strict=True):
            wanted.add(tuple(sorted((x, y), key=lambda s: fit.systems.index(s))))
        keys = [key for key in keys if key in wanted]
    elif not isinstance(pairs, str):
        # the listed pairs, in the order given, each as the fit's table orients it
        keys = plan_pairs(pairs, list(fit.order or fit.systems), orient=list(fit.systems))
        absent = [key for key in keys if key not in frame.index]
        if absent:
            raise ParameterError(f"pairs {absent!r}: the fit has no preference of these pairs "
                                 "(no item rates both systems); pairs it has: "
                                 f"{list(frame.index)}")
    position = {key: i for i, key in enumerate(frame.index)}
    rows = []
    for g1, g2 in keys:
        r = frame.loc[(g1, g2)]
        per_item = float(r["win_1"] + r["win_2"] - (r["win_1"] - r["win_2"]) ** 2)
        u = _Unit(float(r["diff"]), float(r["std_error"]), per_item, c0, int(r["n_human"]),
                  int(r["n_metric"]), _preference_gain(fit, position[(g1, g2)], per_item))
        goal = target if target is not None else abs(u.mean)
        now = z * u.sd_at(0)
        k, reached = (smallest_size(lambda k, u=u: z * u.sd_at(k), goal, cap) if goal > 0
                      else (None, now))
        if bool(r["prior_dominated"]) and target is None:
            why = ("the data say nothing about this pair yet (its posterior is the prior): "
                   "rate some of its items by humans first, then plan again")
            k, reached = None, now
        elif not goal > 0:
            why = "the estimated difference is 0"
        else:
            why = "the difference is small against what human ratings can resolve"
        rows.append({"group_1": g1, "group_2": g2, "diff": u.mean, "epsilon": goal,
                     "separated_now": now, "more_human": k, "n_human": u.n_human,
                     "n_human_needed": None if k is None else u.n_human + k,
                     "n_metric": u.n_metric, "achieved": reached, "attainable": k is not None,
                     "note": _note(k, u.n_metric, cap, why).replace("per system", "per pair")})
    return _result(rows, "preference", sig, target, cap, fit.latent.rates, "system", power)


def _model_gain(post: Any, i: int, grad: Sequence[float], per_item: float
                ) -> Callable[[int], float] | None:
    """The Fisher gain of group ``i``'s share ``grad . pi`` (:func:`_fisher_gain`), or None.

    For the default model only: ``Theta`` estimated per group over the metrics' joint pattern,
    the paired items informing the shares.  Pooled, partially pooled or known rates learn
    ``Theta`` from more than the group's own items (or not at all), and ``"independent"``
    restricts it: there the new paired items sharpen ``Theta`` less than the group's own
    information says, and the plan keeps the metric-only items' present worth (None).
    """
    theta = post.draws.theta
    if (post.rates != "estimate" or post.dependence != "joint" or theta is None
            or theta.shape[2] != post.draws.pi.shape[2] or not post.paired_informs_pi):
        return None
    pi = post.draws.pi[:, :, i].reshape(-1, post.draws.pi.shape[-1]).mean(axis=0)
    th = theta[:, :, i].reshape(-1, *theta.shape[-2:]).astype(float).mean(axis=0)
    return _fisher_gain(pi, th, int(post.paired[i].sum()), int(post.human[i].sum()),
                        int(post.metric[i].sum()), np.asarray(grad, dtype=float), per_item)


def _preference_gain(fit: PreferenceFit, i: int, per_item: float
                     ) -> Callable[[int], float] | None:
    """The Fisher gain of ``diff = win_1 - win_2`` of pair ``i`` (see :func:`_model_gain`)."""
    return _model_gain(fit.latent, i, (1.0, 0.0, -1.0), per_item)


def _result(rows: list[dict], unit: str, sig: float, target: float | None, cap: int,
            rates: str, group_name: str, power: float = 0.5) -> FitPlan:
    frame = pd.DataFrame(rows)
    counts = [c for c in frame.columns if c == "more_human" or c.startswith("n_human")]
    frame[counts] = frame[counts].astype("Int64")
    return FitPlan(frame, unit, sig, target, cap, rates, group_name, method=METHOD,
                   power=float(power))


def _latent_plan(self, epsilon: float | None = None, *,
                 pairs: str | Sequence[tuple[str, str]] = "neighbours",
                 sig_level: float | None = None, max_human: int = 100_000,
                 power: float = 0.5) -> FitPlan:
    """How many more human ratings per system, at the fitted values, would separate groups.

    For neighbouring groups in the fit's order (or every pair): the smallest number of
    additional human ratings per system whose expected posterior separates the two at
    ``sig_level`` (two-sided), by the effective-sample-size approximation of
    :mod:`binaryeval.plan.latent_plan` (the posterior sd's worth in human ratings, and what
    more ratings add from the model's Fisher information; the answer says so in
    ``attrs["method"]``; checked by simulation there, a score in 4 bins or two binary metrics:
    power 0.48-0.51 where it promises 0.5, 0.79-0.81 for 0.8).

    Parameters
    ----------
    epsilon : float, optional
        Difference to detect; by default each pair's estimated difference.
    pairs : {"neighbours", "all"} or sequence of (str, str)
        Neighbouring groups in the fit's order (default), every pair, or the pairs listed
        (e.g. ``[("A", "C")]``; each put in the fit's order).
    sig_level : float, optional
        Significance level (default ``1 - level`` of the fit).
    max_human : int
        Largest number of additional human ratings per system tried.
    power : float
        Chance of telling a pair apart, in [0.5, 1) (0.5: the papers' detectable difference).

    Returns
    -------
    FitPlan

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import binaryeval as be
    >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
    >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
    >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
    ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
    ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
    ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
    >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
    >>> res.plan().to_frame().attrs["method"].startswith("effective-sample-size")
    True
    """
    return plan_latent(self, epsilon, pairs=pairs, sig_level=sig_level, max_human=max_human,
                       power=power)


def _preference_plan(self, epsilon: float | None = None, *,
                     pairs: str | Sequence[tuple[str, str]] = "all",
                     sig_level: float | None = None, max_human: int = 100_000,
                     power: float = 0.5) -> FitPlan:
    """How many more human preference ratings per pair would decide the sign of ``diff``.

    For each pair (or the pairs of neighbouring systems in the fit's order): the smallest number
    of additional human ratings of the pair's items whose expected posterior puts the credible
    interval of ``diff = win_1 - win_2`` at ``1 - sig_level`` on one side of 0, at the fitted
    values, by the effective-sample-size approximation of :mod:`binaryeval.plan.latent_plan`
    (checked by simulation there: power 0.48-0.53 where it promises 0.5, 0.78-0.81 for 0.8).
    Pairs whose posterior is essentially the prior get no plan (rate some of their items first).

    Parameters
    ----------
    epsilon : float, optional
        The difference to detect; by default each pair's estimated ``|diff|``.
    pairs : {"all", "neighbours"} or sequence of (str, str)
        Every pair (default), the pairs of neighbouring systems in the fit's order, or the
        pairs listed (e.g. ``[("A", "C")]``; each oriented as the fit's table orients it).
    sig_level : float, optional
        Significance level (default ``1 - level`` of the fit).
    max_human : int
        Largest number of additional human ratings per pair tried.
    power : float
        Chance of telling a pair apart, in [0.5, 1) (0.5: the papers' detectable difference).

    Returns
    -------
    FitPlan

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import binaryeval as be
    >>> rng = np.random.default_rng(0)
    >>> quality = np.array([0.3, 0.0, -0.3])  # systems A, B, C; 300 items each
    >>> z = quality[:, None] + rng.normal(size=(300, 3, 2))
    >>> df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
    ...                    "system": np.tile(["A", "B", "C"], 300),
    ...                    "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
    >>> df.loc[df["item"] >= 60, "human"] = np.nan  # humans rated the first 60 items
    >>> res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1)
    >>> bool(res.plan(epsilon=0.05).to_frame()["attainable"].all())
    True
    """
    return plan_preferences(self, epsilon, pairs=pairs, sig_level=sig_level,
                            max_human=max_human, power=power)


# The planning package sits above the latent model and gives its results this method, as it
# does for the binary model (see the layers in README.md).
LatentFit.plan = _latent_plan  # type: ignore[attr-defined]
PreferenceFit.plan = _preference_plan  # type: ignore[attr-defined]
