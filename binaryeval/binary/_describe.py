"""How a binary fit describes itself: its summary, its identifiability message and its plots."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..summary import Summary

if TYPE_CHECKING:  # pragma: no cover
    from .result import BinaryFit

#: P(rho + eta <= 1) above which a group's alpha counts as poorly identified.
UNIDENTIFIED_AT = 0.05


def identifiability_message(fit: BinaryFit) -> str | None:
    """One message for every poorly identified group, with advice that fits the case.

    Returns None when every group is identified (``P(rho + eta <= 1) <= 0.05``).
    """
    flagged = {g: p for g, p in fit.unidentified.items() if p > UNIDENTIFIED_AT}
    if not flagged:
        return None
    listed = ", ".join(f"{g} ({p:.3f})" for g, p in sorted(flagged.items(), key=lambda t: -t[1]))
    known = all(fit.known_rates.get(g, (None, None))[0] is not None for g in flagged)
    head = (f"alpha is poorly identified in {len(flagged)} of {len(fit.posteriors)} groups, "
            f"where the posterior probability that rho + eta <= 1 is high: {listed}. ")
    if known:
        return head + ("With known rates rho + eta <= 1 the metric carries no information about "
                       "alpha (or reads it the wrong way round); check the known rates.")
    diag = fit.diagnostics
    if fit.threshold is not None:
        auc = diag.get("auc", np.nan)
        return head + (f"The thresholded metric has AUC {auc:.2f} on the paired rows: it barely "
                       "separates adequate from inadequate outputs, so its ratings say little "
                       "about alpha and these groups' posteriors rest on their human ratings. "
                       "More paired ratings, rates='pooled' or a stronger metric would help.")
    worse = [g for g in flagged if flagged[g] > 0.5]
    if worse:
        return head + (f"In {', '.join(map(str, worse))} the metric disagrees with the humans more "
                       "often than chance: if its labels are reversed, flip it in the formula "
                       "(e.g. I(1 - metric)).")
    return head + ("Too few paired rows pin down the metric's rates there; add paired ratings or "
                   "use rates='pooled'.")


def _info(fit: BinaryFit, level: float) -> dict[str, Any]:
    info: dict[str, Any] = {}
    if fit.formula:
        info["formula"] = fit.formula
    if fit.n_rows is not None:
        info["rows"] = fit.n_rows
        info["rows used"] = fit.n_used
        info["rows excluded"] = "; ".join(f"{n} {r}" for r, n in fit.excluded.items() if n) \
            or "none"
    info["prior (alpha)"] = f"Beta({fit.prior[0]:g}, {fit.prior[1]:g})"
    human_only = int(fit.counts[["metric_total", "tp", "fn", "tn", "fp"]].to_numpy().sum()) == 0
    if human_only:
        info["rates"] = "not used (human ratings only)"
    elif fit.rates_mode in ("estimate", "pooled"):
        info["rates"] = ("estimated per group from its paired rows" if fit.rates_mode == "estimate"
                         else "estimated once from all groups' paired rows")
        info["prior (rho, eta)"] = f"Beta({fit.rate_prior[0]:g}, {fit.rate_prior[1]:g})"
    else:
        info["rates"] = "known"
    if fit.threshold is not None:
        sign = "<=" if fit.lower_is_better else ">="
        where = "per group" if not np.isscalar(fit.threshold) else f"{fit.threshold:.6g}"
        info["threshold"] = (f"{where} ({fit.threshold_rule} rule; a metric rating is positive "
                             f"when score {sign} threshold)")
    info["interval"] = f"lower, upper: {100 * level:g}% equal-tailed credible interval"
    info["order"] = "by estimate, highest first" if fit.call.get("order", "estimate") == \
        "estimate" else "as given"
    info["method"] = fit.method
    return info


def summary_of_fit(fit: BinaryFit, level: float) -> Summary:
    """The summary of a :class:`~binaryeval.binary.result.BinaryFit`."""
    table = fit.to_frame(level)
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
    message = identifiability_message(fit)
    if message:
        s.add_note(message)
    if not human_only:
        s.add_note("naive = share of positive metric ratings (uncorrected classify and count); "
                   "n_eff = human ratings alone that would give the same posterior variance "
                   "(the excess over n_human is what the metric ratings were worth)")
    return s


def plot_fit(fit: BinaryFit, ax, kind: str, level: float, **kw):
    """Draw a fit (see :meth:`BinaryFit.plot`)."""
    import matplotlib.pyplot as plt

    n = len(fit.groups)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 0.35 * n + 2.5))
    if kind == "interval":
        frame = fit.to_frame(level)
        y = np.arange(n)[::-1]
        ax.errorbar(frame["estimate"], y, xerr=[frame["estimate"] - frame["lower"],
                                                frame["upper"] - frame["estimate"]],
                    fmt="o", color="C0", capsize=3,
                    label=f"posterior mean, {100 * level:g}% credible interval", **kw)
        if frame["n_metric"].sum() + frame["n_paired"].sum() > 0:
            ax.plot(frame["naive"], y, "x", color="C3", label="naive (metric share)")
        ax.set_yticks(y, frame.index)
        ax.set_xlabel("alpha (rate of adequate outputs)")
        ax.legend(fontsize=8, loc="best")
    elif kind == "posterior":
        import seaborn as sns

        palette = sns.color_palette("husl", n)
        for color, g in zip(palette, fit.groups, strict=True):
            p = fit.posteriors[g]
            x = np.linspace(p.ppf(1e-4), p.isf(1e-4), 300)
            ax.plot(x, p.pdf(x), label=g, color=color, **kw)
        ax.set_xlabel("alpha (rate of adequate outputs)")
        ax.set_ylabel("posterior density")
        ax.legend(fontsize=7, ncol=2 if n > 8 else 1)
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
