"""How a binary fit describes itself: its summary, its identifiability message and its plots."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._directions import check_direction
from .._results import row_facts
from ..summary import Summary, prior_text

if TYPE_CHECKING:  # pragma: no cover
    from .result import BinaryFit

#: P(rho + eta <= 1) above which a group's alpha counts as poorly identified.
UNIDENTIFIED_AT = 0.05

#: Credible level of the bounds that decide whether metric-only ratings contradict the paired
#: rows (high, so that a warning means a real disagreement, not chance).
CONTRADICTION_LEVEL = 0.999

#: AUC below which a thresholded metric "barely separates" the classes (0.5-0.7 is poor
#: discrimination in the usual reading of ROC areas; above it, few paired rows are the cause).
WEAK_AUC = 0.7


def _metric_name(fit: BinaryFit) -> str:
    if fit.formula:
        from ..formula import parse_formula

        rhs = parse_formula(fit.formula, allow_multiple_rhs=False).rhs_names
        if rhs:
            return rhs[0]
    return "metric"


def _direction_advice(fit: BinaryFit) -> str | None:
    """The direction message of a thresholded metric that runs against the human ratings.

    The package's one direction check on the paired rows' AUC, when at the threshold the metric
    is also no better than chance (``rho + eta < 1``); None otherwise.
    """
    d = fit.diagnostics
    auc, rho, eta = d.get("auc", np.nan), d.get("rho", np.nan), d.get("eta", np.nan)
    # the Youden rule maximises rho + eta - 1, so on reversed scores it picks an extreme
    # threshold where rho + eta is about 1 rather than below it: the AUC alone tells then
    youden = fit.threshold_rule in ("youden", "mixed")  # (mixed: some groups' may be Youden's)
    if fit.threshold is None or not (rho + eta < 1.0 or youden):
        return None
    name = _metric_name(fit)
    way = "Lower" if name in fit.lower_is_better else "Higher"
    rule_said = ("the Youden rule's threshold" if fit.threshold_rule == "youden"
                 else "the thresholds chosen")
    at = (f"at the threshold rho + eta = {rho + eta:.2f} < 1" if rho + eta < 1.0 else
          f"{rule_said} then read them at rho + eta = {rho + eta:.2f}, barely above chance")
    message = check_direction(
        auc, lambda: (f"{way} {name!r} scores go with inadequate outputs on the paired rows (AUC "
                      f"{auc:.2f}; {at})"),
        terms=[name], sides=[(name,)], lower=fit.lower_is_better, emit=False)
    return None if message is None else message + "."


def _runs_backwards(fit: BinaryFit) -> bool:
    """A thresholded metric whose scores run against the human ratings on the paired rows."""
    return _direction_advice(fit) is not None


def _flagged(fit: BinaryFit) -> dict[str, float]:
    return {g: p for g, p in fit.unidentified.items() if p > UNIDENTIFIED_AT}


def _listing(fit: BinaryFit, flagged: dict[str, float]) -> str:
    listed = ", ".join(f"{g} ({p:.3f})" for g, p in sorted(flagged.items(), key=lambda t: -t[1]))
    return (f"alpha is poorly identified in {len(flagged)} of {len(fit.posteriors)} groups, "
            f"where the posterior probability that rho + eta <= 1 is high: {listed}.")


def identifiability_message(fit: BinaryFit) -> str | None:
    """One message for every poorly identified group, with advice that fits the case.

    Returns None when every group is identified (``P(rho + eta <= 1) <= 0.05``).
    """
    flagged = _flagged(fit)
    if not flagged:
        return None
    head = _listing(fit, flagged) + " "
    known = all(fit.known_rates.get(g, (None, None))[0] is not None for g in flagged)
    if known:
        return head + ("With known rates rho + eta <= 1 the metric carries no information about "
                       "alpha (or reads it the wrong way round); check the known rates.")
    if _runs_backwards(fit):
        return head + _direction_advice(fit)
    auc = fit.diagnostics.get("auc", np.nan)
    if fit.threshold is not None and not auc >= WEAK_AUC:
        return head + (f"The thresholded metric has AUC {auc:.2f} on the paired rows: it barely "
                       "separates adequate from inadequate outputs, so its ratings say little "
                       "about alpha and these groups' posteriors rest on their human ratings. "
                       f"More paired ratings{_pooling_advice(fit)} or a stronger metric would "
                       "help.")
    worse = [g for g in flagged if flagged[g] > 0.5]
    if worse and fit.threshold is None:
        return head + (f"In {', '.join(map(str, worse))} the metric disagrees with the humans more "
                       "often than chance: if its labels are reversed, flip it in the formula "
                       "(e.g. I(1 - metric)).")
    return head + ("Too few paired rows pin down the metric's rates there; add paired ratings"
                   f"{_pooling_advice(fit)}.")


def blind_spot(fit: BinaryFit) -> tuple[str, int, float, float] | None:
    """What a passing check before pooling can miss, at the group of median paired rows.

    ``(group, n_paired, d, shift)`` from :func:`binaryeval._pooling.unseen_shift`: the move
    ``d`` of the metric's positive calls in both human classes that the check misses about half
    the time or more, and the move of ``alpha`` it causes.  None for a fit with one group or a
    check that fails or cannot run.
    """
    from .. import _pooling

    if len(fit.posteriors) < 2 or not _pooling.passes(fit.pooling_check()):
        return None
    c = fit.counts.loc[fit.groups]
    paired = np.stack([c[["tp", "fn"]].to_numpy(dtype=float),
                       c[["fp", "tn"]].to_numpy(dtype=float)], axis=1)
    n = paired.sum(axis=(1, 2))
    at = int(np.argsort(n, kind="stable")[(len(n) - 1) // 2])
    d, shift = _pooling.unseen_shift(paired, at)
    if not np.isfinite(shift):
        return None
    return str(fit.groups[at]), int(n[at]), d, min(shift, 1.0)


def _pooling_advice(fit: BinaryFit) -> str:
    """``", rates='pooled'"`` when pooling is an option the paired rows support, else a caveat.

    Pooling is advised only for a fit with rates per group, several groups and a check before
    pooling (:meth:`BinaryFit.pooling_check`) that passes; when the check fails the advice
    says why pooling is no remedy.
    """
    from .. import _pooling

    if fit.rates_mode != "estimate" or len(fit.posteriors) < 2:
        return ""
    check = fit.pooling_check()
    p = check.attrs["p_value"]
    if _pooling.passes(check):
        spot = blind_spot(fit)
        seen = f"; {_pooling.unseen_text(spot)}" if spot else ""
        return (", rates='hierarchical' (the groups' rates drawn from one population, as alike "
                "as their paired rows say) or rates='pooled' (the check before pooling finds no "
                f"difference between the groups' rates, p = {p:.2g}{seen})")
    if np.isfinite(p):
        return (f" (not rates='pooled': the paired rows say the groups' rates differ, check "
                f"before pooling p = {p:.2g}; most different: "
                f"{', '.join(_pooling.deviations(check))})")
    return ""


def pooling_message(fit: BinaryFit) -> str | None:
    """With ``rates="pooled"``: the warning when the paired rows reject one pair of rates.

    It names the groups that deviate most; None when the check passes or cannot run.
    """
    from .. import _pooling

    if fit.rates_mode != "pooled" or len(fit.posteriors) < 2:
        return None
    check = fit.pooling_check()
    if _pooling.passes(check) or not np.isfinite(check.attrs["p_value"]):
        return None
    c = fit.counts
    total = c[["tp", "fn", "tn", "fp"]].sum()

    def share(num: float, den: float) -> str:
        return f"{num / den:.2f}" if den else "n/a"

    def describe(g: str) -> str:
        r = c.loc[g]
        return (f"rho {share(r.tp, r.tp + r.fn)} ({int(r.tp)} of {int(r.tp + r.fn)}) against "
                f"{share(total.tp, total.tp + total.fn)} pooled, eta {share(r.tn, r.tn + r.fp)} "
                f"({int(r.tn)} of {int(r.tn + r.fp)}) against "
                f"{share(total.tn, total.tn + total.fp)} pooled")

    return _pooling.message(check, describe, units="groups",
                            matrix="one pair of rates (rho, eta)")


def _percent(x: float) -> str:
    return f"{100 * x:.3g}%"


def contradictions(fit: BinaryFit) -> pd.DataFrame:
    """Groups whose metric-only acceptance rate no ``alpha`` can reach from the paired rows.

    For any ``alpha`` the metric accepts an output with probability ``alpha rho + (1 - alpha)
    (1 - eta)``, between ``rho`` and ``1 - eta``.  A group is listed when the metric-only rate's
    interval (Jeffreys, ``CONTRADICTION_LEVEL``) lies wholly outside the range from the lower to
    the upper bound of those two rates' intervals at the same level.

    Returns
    -------
    DataFrame
        One row per such group: ``metric_rate``, ``reachable_lower``, ``reachable_upper``.
    """
    from scipy import special

    # the bounds of fit.paired_rates(CONTRADICTION_LEVEL), computed here without its frame
    # (special.betaincinv is stats.beta.ppf without the argument checks)
    tail = (1 - CONTRADICTION_LEVEL) / 2
    c = fit.counts
    if list(c.index) != list(fit.groups):
        c = c.loc[list(fit.groups)]
    k = c["metric_pos"].to_numpy(dtype=float)
    m = c["metric_total"].to_numpy(dtype=float)
    ar, br = fit.rate_prior
    source = fit.counts.sum().to_frame().T if fit.rates_mode == "pooled" else c
    bounds = {}
    for j, (name, (pos, neg)) in enumerate((("rho", ("tp", "fn")), ("eta", ("tn", "fp")))):
        a = np.broadcast_to(source[pos].to_numpy(dtype=float) + ar, k.shape)
        b = np.broadcast_to(source[neg].to_numpy(dtype=float) + br, k.shape)
        known = np.array([fit.known_rates.get(g, (None, None))[j] for g in fit.groups]
                         if fit.known_rates else [None] * k.size, dtype=float)
        is_known = ~np.isnan(known)
        for side, q in (("lower", tail), ("upper", 1 - tail)):
            v = np.where(is_known, known, special.betaincinv(a, b, q))
            bounds[f"{name}_{side}"] = np.where(m == 0, np.nan, v)
    lo = np.minimum(bounds["rho_lower"], 1.0 - bounds["eta_upper"])
    hi = np.maximum(bounds["rho_upper"], 1.0 - bounds["eta_lower"])
    with np.errstate(invalid="ignore", divide="ignore"):
        q_lo = np.where(k > 0, special.betaincinv(k + 0.5, m - k + 0.5, tail), 0.0)
        q_hi = np.where(k < m, special.betaincinv(k + 0.5, m - k + 0.5, 1 - tail), 1.0)
        share = k / m
    usable = (m > 0) & np.isfinite(bounds["rho_lower"]) & np.isfinite(bounds["eta_lower"])
    bad = usable & ((q_hi < lo) | (q_lo > hi))
    return pd.DataFrame({"metric_rate": share[bad], "reachable_lower": lo[bad],
                         "reachable_upper": hi[bad]},
                        index=pd.Index([fit.groups[i] for i in np.flatnonzero(bad)]))


def known_rate_conflicts(fit: BinaryFit) -> pd.DataFrame:
    """Known rates that the group's own paired rows rule out.

    With known rates the fit takes ``rho`` and ``eta`` as given, and the metric ratings of the
    paired rows inform nothing.  A known rate is listed when an exact binomial test of it on the
    paired rows (``tp`` of ``tp + fn`` for ``rho``, ``tn`` of ``tn + fp`` for ``eta``; two-sided,
    twice the smaller tail) rejects it at ``1 - CONTRADICTION_LEVEL``: for example ``rho = 1``
    beside paired rows in which the metric rejected an adequate output (``p = 0``).

    Returns
    -------
    DataFrame
        One row per such (group, rate): ``group``, ``rate``, ``known``, ``successes``, ``n``
        and ``p_value``.
    """
    from .. import _validate

    columns = ["group", "rate", "known", "successes", "n", "p_value"]
    if not fit.known_rates:
        return pd.DataFrame(columns=columns)
    groups = list(fit.groups)
    c = fit.counts.loc[groups]
    used = c["metric_total"].to_numpy() > 0   # elsewhere the rates take no part in the fit
    found = []
    for j, (name, (pos, neg)) in enumerate((("rho", ("tp", "fn")), ("eta", ("tn", "fp")))):
        known = np.array([np.nan if (v := fit.known_rates.get(g, (None, None))[j]) is None
                          else v for g in groups], dtype=float)
        k = c[pos].to_numpy(dtype=float)
        n = k + c[neg].to_numpy(dtype=float)
        test = np.flatnonzero(used & ~np.isnan(known) & (n > 0))
        p_value = _validate.known_rows_p_values(
            np.column_stack([k[test], n[test] - k[test]]),
            np.column_stack([known[test], 1.0 - known[test]]))
        found += [(i, j, (groups[i], name, float(known[i]), int(k[i]), int(n[i]), float(pv)))
                  for i, pv in zip(test, p_value, strict=True)
                  if pv < 1.0 - CONTRADICTION_LEVEL]
    found.sort(key=lambda f: (f[0], f[1]))
    return pd.DataFrame([f[2] for f in found], columns=columns)


def _known_rates_message(fit: BinaryFit) -> str | None:
    bad = known_rate_conflicts(fit)
    if bad.empty:
        return None
    listed = "; ".join(
        f"{r.group}: {r.rate} = {r.known:g} given, but the metric "
        f"{'accepted' if r.rate == 'rho' else 'rejected'} {r.successes:,} of {r.n:,} "
        f"{'adequate' if r.rate == 'rho' else 'inadequate'} paired outputs "
        f"({_percent(r.successes / r.n)}; exact binomial test p = {r.p_value:.2g})"
        for r in bad.itertuples())
    return (f"In {bad['group'].nunique()} of {len(fit.posteriors)} groups the paired rows rule "
            f"out the known rates: {listed}. Known rates are used as given, so the paired rows' "
            "metric ratings inform nothing and alpha rests on the given values. Check the known "
            "rates (and that the paired rows use the same metric, threshold and label coding), "
            "or let the paired rows estimate them: rates='estimate'.")


def contradiction_message(fit: BinaryFit) -> str | None:
    """One message for every group whose ratings contradict its rates.

    Metric-only ratings that no ``alpha`` reconciles with the rates (:func:`contradictions`),
    and known rates that the paired rows rule out (:func:`known_rate_conflicts`).
    """
    bad = contradictions(fit)
    known = _known_rates_message(fit)
    if bad.empty:
        return known
    listed = "; ".join(
        f"{g}: {_percent(r.metric_rate)} of {int(fit.counts.loc[g, 'metric_total']):,} "
        f"(reachable {_percent(r.reachable_lower)} to {_percent(r.reachable_upper)})"
        for g, r in bad.iterrows())
    return (f"In {len(bad)} of {len(fit.posteriors)} groups the metric accepts a share of the "
            "metric-only outputs that no alpha reconciles with the metric's rates (any alpha "
            "gives a share between rho and 1 - eta; rates estimated from paired rows at their "
            f"{100 * CONTRADICTION_LEVEL:g}% bounds): {listed}. The posterior then rests on rates "
            "far from the paired rows' and can have two modes, near 0 and 1. Check that the "
            "paired and the metric-only rows use the same metric, threshold and label coding "
            "(with known rates: that rho and eta are right), and that they sample the same "
            "outputs." + (f" Also: {known}" if known else ""))


def fit_warning(fit: BinaryFit) -> tuple[str, type[Warning]] | None:
    """The one warning a fit gives, with its class, or None.

    A thresholded metric that runs against the human ratings gets a
    :class:`~binaryeval.errors.DirectionWarning` (which also lists the poorly identified groups);
    metric-only ratings that contradict the paired rows a
    :class:`~binaryeval.errors.ContradictionWarning` (with the poorly identified groups, if any);
    otherwise poorly identified groups get an :class:`~binaryeval.errors.IdentifiabilityWarning`.
    With ``rates="pooled"``, groups whose paired rows reject one pair of rates (the check before
    pooling) get a :class:`~binaryeval.errors.PoolingWarning` that also carries the other two
    messages; only a direction problem comes first.
    """
    from ..errors import (
        ContradictionWarning,
        DirectionWarning,
        IdentifiabilityWarning,
        PoolingWarning,
    )

    if _runs_backwards(fit):
        flagged = _flagged(fit)
        tail = f" As fitted, {_listing(fit, flagged)}" if flagged else ""
        return _direction_advice(fit) + tail, DirectionWarning
    message = identifiability_message(fit)
    conflict = contradiction_message(fit)
    pooling = pooling_message(fit)
    if pooling:
        also = " ".join(m for m in (conflict, message) if m)
        return pooling + "." + (f" Also: {also}" if also else ""), PoolingWarning
    if conflict:
        return conflict + (f" Also: {message}" if message else ""), ContradictionWarning
    return (message, IdentifiabilityWarning) if message else None


def _info(fit: BinaryFit, level: float) -> dict[str, Any]:
    info: dict[str, Any] = {}
    if fit.formula:
        info["formula"] = fit.formula
    info.update(row_facts(fit))
    info["prior (alpha)"] = prior_text(fit.prior)
    human_only = int(fit.counts[["metric_total", "tp", "fn", "tn", "fp"]].to_numpy().sum()) == 0
    if human_only:
        info["rates"] = "not used (human ratings only)"
    elif fit.rates_mode in ("estimate", "pooled"):
        info["rates"] = ("estimated per group from its paired rows" if fit.rates_mode == "estimate"
                         else "pooled: every group's model takes all groups' paired rows for rho "
                              "and eta (its own metric-only rows update them in its model)")
        info["prior (rho, eta)"] = prior_text(fit.rate_prior)
    else:
        known = [fit.known_rates.get(g, (None, None)) for g in fit.groups]
        rho_known = all(r is not None for r, _ in known)
        eta_known = all(e is not None for _, e in known)
        if rho_known and eta_known:
            info["rates"] = "known"
        else:
            # a rate not given is estimated per group from its paired rows
            said = {name: ("known" if all_known else "known in some groups, else estimated"
                           if any_known else "estimated per group from its paired rows")
                    for name, all_known, any_known in (
                        ("rho", rho_known, any(r is not None for r, _ in known)),
                        ("eta", eta_known, any(e is not None for _, e in known)))}
            info["rates"] = f"rho {said['rho']}; eta {said['eta']}"
            info["prior (rho, eta)"] = (f"{prior_text(fit.rate_prior)} "
                                        "(of the estimated ones)")
    if fit.threshold is not None:
        sign = "<=" if fit.lower_is_better else ">="
        where = "per group" if not np.isscalar(fit.threshold) else f"{fit.threshold:.6g}"
        rule = ("rules or numbers differing between groups" if fit.threshold_rule == "mixed"
                else f"{fit.threshold_rule} rule")
        info["threshold"] = (f"{where} ({rule}; a metric rating is positive "
                             f"when score {sign} threshold)")
    info["interval"] = f"lower, upper: {100 * level:g}% equal-tailed credible interval"
    info["order"] = "by estimate, highest first" if fit.call.get("order", "estimate") == \
        "estimate" else "as given"
    info["method"] = fit.method
    return info


def summary_of_fit(fit: BinaryFit, level: float) -> Summary:
    """The summary of a :class:`~binaryeval.binary.result.BinaryFit`."""
    # the rates' means alone: the table shows no interval of theirs
    table = fit._frame(level, "eti", None, rate_intervals=False)
    human_only = int(fit.counts[["metric_total", "tp", "fn", "tn", "fp"]].to_numpy().sum()) == 0
    keep = ["n_human", "n_paired", "n_metric", "estimate", "std_error", "lower", "upper"]
    if not human_only:
        keep += ["naive", "rho", "eta", "n_eff"]
    if "threshold" in table.columns and not np.isscalar(fit.threshold):
        keep.append("threshold")
    if human_only:
        keep.remove("n_paired")
        keep.remove("n_metric")
    s = Summary("Binary evaluation model: rate of adequate outputs (alpha)", _info(fit, level),
                [("per group", table[keep])])
    for message in (contradiction_message(fit), identifiability_message(fit)):
        if message:
            s.add_note(message)
    if fit.rates_mode == "pooled" and len(fit.posteriors) > 1:
        from .. import _pooling

        spot = blind_spot(fit)
        caveat = None
        width = float(np.median((table["upper"] - table["lower"]).to_numpy() / 2))
        if spot and spot[3] > width:
            caveat = (f"but {_pooling.unseen_text(spot)} (the median interval's half-width is "
                      f"{width:.2f}): the pooled intervals assume no such difference; "
                      "rates='hierarchical' estimates how far the groups' rates differ")
        note = _pooling.summary_note(fit.pooling_check(), units="groups", caveat=caveat)
        if note:
            s.add_note(note)
    if not human_only:
        s.add_note("naive = share of positive metric ratings (uncorrected classify and count); "
                   "n_eff = human ratings alone that would give the same posterior variance "
                   "(the excess over n_human is what the metric ratings were worth)")
        below = table.index[table["metric_worth"] < -1e-9].tolist()
        if below:
            s.add_note(f"n_eff < n_human in {', '.join(map(str, below))}: there the metric "
                       "ratings, read through rates that the paired rows pin down poorly, widen "
                       "the posterior of alpha instead of narrowing it")
    return s


def legend_below(ax, **kw):
    """Put the legend under the x-axis label, one row, where it cannot cover a marker.

    Inside the axes every corner of a forest plot can hold a point or an interval's end (the
    naive crosses sit left of the intervals, the best systems right), so no place chosen there
    is safe.  The legend hangs below the axes by the height of the tick labels and the axis
    label, measured in points, so it clears them at any figure size.
    """
    from matplotlib.font_manager import FontProperties
    from matplotlib.transforms import ScaledTranslation

    xaxis = ax.xaxis
    ticks = xaxis.get_ticklabels()
    tick_size = (ticks[0].get_size() if ticks else
                 FontProperties(size=mpl_rc("xtick.labelsize")).get_size_in_points())
    label_size = xaxis.label.get_size() if xaxis.label.get_text() else 0.0
    drop = (xaxis.get_tick_padding() + 1.25 * tick_size + xaxis.labelpad + 1.25 * label_size
            + 4.0)
    offset = ScaledTranslation(0, -drop / 72, ax.figure.dpi_scale_trans)
    options = {"fontsize": 8, "loc": "upper center", "bbox_to_anchor": (0.5, 0.0),
               "bbox_transform": ax.transAxes + offset, "ncol": 2, "frameon": False,
               "borderaxespad": 0.0}
    options.update(kw)
    return ax.legend(**options)


def mpl_rc(key: str):
    import matplotlib as mpl

    return mpl.rcParams[key]


def plot_fit(fit: BinaryFit, ax, kind: str, level: float, **kw):
    """Draw a fit (see :meth:`BinaryFit.plot`)."""
    import matplotlib.pyplot as plt

    n = len(fit.groups)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 0.35 * n + 2.5))
    if kind == "interval":
        # (the rates' means alone: no interval of theirs is drawn)
        frame = fit._frame(level, "eti", None, rate_intervals=False)
        y = np.arange(n)[::-1]
        ax.errorbar(frame["estimate"], y, xerr=[frame["estimate"] - frame["lower"],
                                                frame["upper"] - frame["estimate"]],
                    fmt="o", color="C0", capsize=3,
                    label=f"posterior mean, {100 * level:g}% credible interval", **kw)
        if frame["n_metric"].sum() + frame["n_paired"].sum() > 0:
            ax.plot(frame["naive"], y, "x", color="C3", label="naive (metric share)")
        ax.set_yticks(y, frame.index)
        ax.set_xlabel("alpha (rate of adequate outputs)")
        legend_below(ax)
    elif kind == "posterior":
        import seaborn as sns

        # qualitative palettes keep neighbouring curves apart; husl only past 20 systems
        palette = sns.color_palette("tab10" if n <= 10 else "tab20" if n <= 20 else "husl", n)
        for color, g in zip(palette, fit.groups, strict=True):
            p = fit.posteriors[g]
            x = np.linspace(p.ppf(1e-4), p.isf(1e-4), 300)
            ax.plot(x, p.pdf(x), label=g, color=color, **kw)
        ax.set_xlabel("alpha (rate of adequate outputs)")
        ax.set_ylabel("posterior density")
        # below the axis label: inside, the legend covered the tops of neighbouring curves
        # (wherever they peak, some corner holds one)
        legend_below(ax, fontsize=7, ncol=min(n, 3))
    else:
        r = fit.rates(level)
        y = np.arange(n)[::-1]
        for off, name, color in ((-0.15, "rho", "C0"), (0.15, "eta", "C1")):
            ax.errorbar(r[name], y + off, xerr=[r[name] - r[f"{name}_lower"],
                                                r[f"{name}_upper"] - r[name]],
                        fmt="o", color=color, capsize=2, label=name, **kw)
        ax.set_yticks(y, r.index)
        ax.set_xlabel("rate")
        ax.legend(fontsize=8)
    return ax
