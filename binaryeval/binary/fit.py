"""``fit`` and ``fit_counts``: the binary evaluation model on data frames and on counts."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import integrate, stats

from ..data import RowAccount, _show, as_binary, is_binary
from ..errors import CountsError, DataError, IdentifiabilityWarning, ParameterError
from ..formula import parse_formula
from ..summary import Summary
from .engine import AlphaPosterior, _check_beta_params, alpha_posterior
from .roc import THRESHOLD_RULES, choose_threshold

__all__ = ["fit", "fit_counts", "BinaryFit", "Comparison", "COUNT_COLUMNS"]

COUNT_COLUMNS = ("human_pos", "human_total", "metric_pos", "metric_total", "tp", "fn", "tn", "fp")
_SINGLE = "all"


def _prob_rates_unidentified(tp, fn, tn, fp, rate_prior) -> float:
    """P(rho + eta <= 1) under the Beta posteriors of the paired counts."""
    ar, br = rate_prior
    rho = stats.beta(tp + ar, fn + br)
    eta = stats.beta(tn + ar, fp + br)
    val, _ = integrate.quad(lambda r: rho.pdf(r) * eta.cdf(1.0 - r), 0.0, 1.0, limit=200,
                            points=[rho.mean()], epsabs=1e-12)
    return float(min(max(val, 0.0), 1.0))


def _known_rates_for(rates, group: str) -> tuple[float | None, float | None]:
    if isinstance(rates, Mapping) and ("rho" in rates or "eta" in rates):
        return rates.get("rho"), rates.get("eta")
    if isinstance(rates, Mapping):
        if group not in rates:
            raise ParameterError(f"rates has no entry for group {group!r}; give "
                                 "{'rho': .., 'eta': ..} for every group or one pair for all")
        entry = rates[group]
        if not isinstance(entry, Mapping):
            raise ParameterError(f"rates[{group!r}]={entry!r}: give a mapping "
                                 "{'rho': .., 'eta': ..}")
        return entry.get("rho"), entry.get("eta")
    raise ParameterError(f"rates={rates!r}: use 'estimate', 'pooled', or known values "
                         "{'rho': .7, 'eta': .7} (optionally per group)")


@dataclass(frozen=True, eq=False)
class BinaryFit:
    """Result of :func:`fit` / :func:`fit_counts`: one posterior of ``alpha`` per group.

    Attributes
    ----------
    counts : DataFrame
        Sufficient statistics per group in the convention of :func:`fit_counts` (``human_*``
        count rows with a human rating only; ``fit_counts(res.counts,
        paired_informs_alpha=res.paired_informs_alpha)`` reproduces the fit).
    posteriors : dict
        ``group -> AlphaPosterior``.
    """

    counts: pd.DataFrame
    posteriors: dict[str, AlphaPosterior]
    formula: str | None = None
    prior: tuple[float, float] = (1.0, 1.0)
    rate_prior: tuple[float, float] = (1.0, 1.0)
    rates_mode: str = "estimate"
    known_rates: dict = field(default_factory=dict)
    threshold: Any = None
    level: float = 0.95
    method: str = "exact"
    n_rows: int | None = None
    excluded: dict = field(default_factory=dict)
    unidentified: dict = field(default_factory=dict)
    paired_informs_alpha: bool = True
    call: dict = field(default_factory=dict)

    # -- access ----------------------------------------------------------------------------
    @property
    def groups(self) -> list[str]:
        return list(self.posteriors)

    def posterior(self, group: str | None = None) -> AlphaPosterior:
        """Posterior of ``alpha`` for one group (the only one when there is a single group)."""
        if group is None:
            if len(self.posteriors) != 1:
                raise ParameterError(f"name a group: one of {self.groups}")
            return next(iter(self.posteriors.values()))
        if str(group) not in self.posteriors:
            raise ParameterError(f"group {group!r} is not in the fit; groups are {self.groups}")
        return self.posteriors[str(group)]

    @property
    def n_used(self) -> int | None:
        return None if self.n_rows is None else self.n_rows - int(sum(self.excluded.values()))

    # -- tables ----------------------------------------------------------------------------
    def interval(self, level: float | None = None, kind: str = "eti") -> pd.DataFrame:
        """Credible intervals of ``alpha`` per group: columns ``lower``, ``upper``.

        ``attrs`` carry ``level`` and ``kind`` (``"eti"`` equal-tailed, ``"hdi"`` highest density).
        """
        level = self.level if level is None else level
        rows = {g: p.interval(level, kind) for g, p in self.posteriors.items()}
        out = pd.DataFrame(rows, index=["lower", "upper"]).T
        out.index.name = "group"
        out.attrs.update(level=level, kind=kind)
        return out

    def naive(self, level: float | None = None) -> pd.DataFrame:
        """Uncorrected classify-and-count: the share of positive metric ratings per group.

        Uses every metric-rated row (paired and metric-only) as if the metric were a human;
        ``estimate`` is the share, with a Beta(1, 1)-posterior interval.  This is the estimate the
        corrected model improves on (thesis Tables 5.1/5.2).
        """
        level = self.level if level is None else level
        c = self.counts
        pos = c["metric_pos"] + c["tp"] + c["fp"]
        tot = c["metric_total"] + c["tp"] + c["fp"] + c["tn"] + c["fn"]
        tail = (1 - level) / 2
        with np.errstate(invalid="ignore", divide="ignore"):
            est = pos / tot
        out = pd.DataFrame({
            "n_metric": tot.astype(int), "metric_pos": pos.astype(int), "estimate": est,
            "std_error": np.sqrt(est * (1 - est) / tot),
            "lower": stats.beta.ppf(tail, pos + 1, tot - pos + 1),
            "upper": stats.beta.ppf(1 - tail, pos + 1, tot - pos + 1)})
        out.index.name = "group"
        out.attrs.update(level=level, method="classify and count (uncorrected)")
        return out

    def rates(self, level: float | None = None) -> pd.DataFrame:
        """The metric's rates per group: posterior mean and interval of ``rho`` and ``eta``."""
        level = self.level if level is None else level
        tail = (1 - level) / 2
        ar, br = self.rate_prior
        rows = []
        for g in self.groups:
            c = self.counts.loc[g]
            known = self.known_rates.get(g, (None, None))
            row = {"group": g}
            for name, (pos, neg), kn in (("rho", ("tp", "fn"), known[0]),
                                         ("eta", ("tn", "fp"), known[1])):
                if kn is not None:
                    row.update({name: kn, f"{name}_std": 0.0, f"{name}_lower": kn,
                                f"{name}_upper": kn})
                    continue
                if self.rates_mode == "pooled":
                    a = self.counts[pos].sum() + ar
                    b = self.counts[neg].sum() + br
                else:
                    a, b = c[pos] + ar, c[neg] + br
                if a + b == ar + br and c["metric_total"] == 0:
                    # no metric rating in this group: the rate is not part of the fit
                    row.update({name: np.nan, f"{name}_std": np.nan, f"{name}_lower": np.nan,
                                f"{name}_upper": np.nan})
                    continue
                d = stats.beta(a, b)
                row.update({name: d.mean(), f"{name}_std": d.std(),
                            f"{name}_lower": d.ppf(tail), f"{name}_upper": d.ppf(1 - tail)})
            row.update({k: int(c[k]) for k in ("tp", "fn", "tn", "fp")})
            row["p_unidentified"] = self.unidentified.get(g, np.nan)
            rows.append(row)
        out = pd.DataFrame(rows).set_index("group")
        out.attrs.update(level=level, mode=self.rates_mode)
        return out

    def to_frame(self, level: float | None = None, kind: str = "eti") -> pd.DataFrame:
        """Tidy table, one row per group.

        Columns: ``n_human`` (human ratings, paired included), ``n_paired``, ``n_metric``
        (metric-only), ``estimate`` (posterior mean), ``std_error`` (posterior sd), ``mode``,
        ``lower``/``upper`` (credible interval; level and kind in ``attrs``), ``naive``,
        ``rho``, ``eta`` (posterior means of the rates, or the known values).
        """
        level = self.level if level is None else level
        c = self.counts
        iv = self.interval(level, kind)
        rates = self.rates(level)
        naive = self.naive(level)
        out = pd.DataFrame({
            "n_human": (c["human_total"] + (c["tp"] + c["fn"] + c["tn"] + c["fp"]
                                            if self.paired_informs_alpha else 0)).astype(int),
            "n_paired": (c["tp"] + c["fn"] + c["tn"] + c["fp"]).astype(int),
            "n_metric": c["metric_total"].astype(int),
            "estimate": [self.posteriors[g].mean for g in self.groups],
            "std_error": [self.posteriors[g].std for g in self.groups],
            "mode": [self.posteriors[g].mode for g in self.groups],
            "lower": iv["lower"], "upper": iv["upper"],
            "naive": naive["estimate"], "rho": rates["rho"], "eta": rates["eta"]},
            index=pd.Index(self.groups, name="group"))
        out.attrs.update(level=level, kind=kind, method=self.method, rates=self.rates_mode)
        return out

    # -- display ---------------------------------------------------------------------------
    def summary(self, level: float | None = None) -> Summary:
        level = self.level if level is None else level
        table = self.to_frame(level).drop(columns=["mode"])
        pct = f"{100 * level:g}%"
        table = table.rename(columns={"estimate": "mean", "std_error": "sd",
                                      "lower": f"{pct} lower", "upper": f"{pct} upper"})
        info: dict[str, Any] = {}
        if self.formula:
            info["formula"] = self.formula
        if self.n_rows is not None:
            info["rows"] = self.n_rows
            info["rows used"] = self.n_used
            excl = "; ".join(f"{n} {r}" for r, n in self.excluded.items() if n) or "none"
            info["rows excluded"] = excl
        info["prior (alpha)"] = f"Beta({self.prior[0]:g}, {self.prior[1]:g})"
        metric_cols = ["metric_total", "tp", "fn", "tn", "fp"]
        human_only = int(self.counts[metric_cols].to_numpy().sum()) == 0
        if human_only:
            # no metric rating anywhere: rho and eta take no part in the fit
            info["rates"] = "not used (human ratings only)"
            table = table.drop(columns=["naive", "rho", "eta"])
        elif self.rates_mode in ("estimate", "pooled"):
            info["rates"] = ("estimated per group from paired rows" if self.rates_mode == "estimate"
                             else "estimated once from all groups' paired rows")
            info["prior (rho, eta)"] = f"Beta({self.rate_prior[0]:g}, {self.rate_prior[1]:g})"
        else:
            info["rates"] = "known"
        if self.threshold is not None:
            info["threshold"] = self.threshold
        info["interval"] = f"{pct} equal-tailed credible interval"
        info["method"] = self.method
        s = Summary("Binary evaluation model: rate of adequate outputs (alpha)", info,
                    [("per group", table)])
        for g, p in self.unidentified.items():
            if p > 0.05:
                s.add_note(f"group {g}: P(rho + eta <= 1) = {p:.3f}; alpha is poorly identified "
                           "(flip the metric, e.g. I(1 - metric), if it is worse than chance)")
        if not human_only:
            s.add_note("naive = share of positive metric ratings (uncorrected classify and count)")
        return s

    def __str__(self) -> str:
        return self.summary().as_text()

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return self.summary().as_html()

    def plot(self, kind: str = "posterior", ax=None, level: float | None = None, **kw):
        """Plot the fit.

        Parameters
        ----------
        kind : {"posterior", "interval", "rates"}
            Posterior densities per group; a forest plot of means, credible intervals and the
            naive estimate; or the rates' intervals per group.
        ax : matplotlib Axes, optional
        """
        import matplotlib.pyplot as plt
        import seaborn as sns

        level = self.level if level is None else level
        if ax is None:
            _, ax = plt.subplots(figsize=(7, 0.35 * len(self.groups) + 2.5))
        if kind == "posterior":
            palette = sns.color_palette("husl", len(self.groups))
            for color, g in zip(palette, self.groups, strict=True):
                p = self.posteriors[g]
                lo, hi = p.ppf(1e-4), p.ppf(1 - 1e-4)
                x = np.linspace(lo, hi, 300)
                ax.plot(x, p.pdf(x), label=g, color=color, **kw)
            ax.set_xlabel("alpha (rate of adequate outputs)")
            ax.set_ylabel("posterior density")
            ax.legend(fontsize=7, ncol=2 if len(self.groups) > 8 else 1)
        elif kind == "interval":
            frame = self.to_frame(level).sort_values("estimate")
            y = np.arange(len(frame))
            ax.errorbar(frame["estimate"], y, xerr=[frame["estimate"] - frame["lower"],
                                                    frame["upper"] - frame["estimate"]],
                        fmt="o", color="C0", capsize=3, label=f"posterior mean, {level:.0%} CrI")
            ax.plot(frame["naive"], y, "x", color="C3", label="naive (metric share)")
            ax.set_yticks(y, frame.index)
            ax.set_xlabel("alpha")
            ax.legend(fontsize=8)
        elif kind == "rates":
            r = self.rates(level)
            y = np.arange(len(r))
            for off, name, color in ((-0.15, "rho", "C0"), (0.15, "eta", "C1")):
                ax.errorbar(r[name], y + off, xerr=[r[name] - r[f"{name}_lower"],
                                                    r[f"{name}_upper"] - r[name]],
                            fmt="o", color=color, capsize=2, label=name)
            ax.set_yticks(y, r.index)
            ax.set_xlabel("rate")
            ax.legend(fontsize=8)
        else:
            raise ParameterError(f"kind={kind!r}: use 'posterior', 'interval' or 'rates'")
        return ax

    # -- comparisons -----------------------------------------------------------------------
    def compare(self, method: str = "bayes", level: float | None = None,
                adjust: str | None = None) -> Comparison:
        """Compare every pair of groups.

        Parameters
        ----------
        method : {"bayes", "z"}
            ``"bayes"``: a pair differs when ``P(alpha_1 > alpha_2)`` is below ``gamma/2`` or above
            ``1 - gamma/2`` (``gamma = 1 - level``); ``p_value`` is the two-sided posterior tail
            ``2 min(P, 1 - P)``.  ``"z"``: the z-test on normal approximations of the two
            posteriors (paper eq. 6), ``z = (mean_1 - mean_2) / sqrt(var_1 + var_2)``.
        level : float, optional
            ``1 - gamma``; defaults to the fit's level.
        adjust : str, optional
            A statsmodels ``multipletests`` method (``"holm"``, ``"bonferroni"``, ``"fdr_bh"``...)
            applied to ``p_value`` over all pairs.
        """
        level = self.level if level is None else level
        if method not in ("bayes", "z"):
            raise ParameterError(f"method={method!r}: use 'bayes' or 'z'")
        if not 0 < level < 1:
            raise ParameterError(f"level={level!r} must lie strictly between 0 and 1")
        groups = self.groups
        if len(groups) < 2:
            raise DataError("compare needs at least two groups; add '| system' to the formula")
        rows = []
        for i, g1 in enumerate(groups):
            for g2 in groups[i + 1:]:
                p1, p2 = self.posteriors[g1], self.posteriors[g2]
                diff = p1.mean - p2.mean
                se = math.sqrt(p1.var + p2.var)
                z = diff / se if se > 0 else np.nan
                pg = p1.prob_greater(p2)
                rows.append({"group_1": g1, "group_2": g2, "diff": diff, "std_error": se,
                             "prob_greater": pg, "z": z,
                             "p_value_z": float(2 * stats.norm.sf(abs(z))) if se > 0 else np.nan,
                             "p_value_bayes": float(min(1.0, 2 * min(pg, 1 - pg)))})
        frame = pd.DataFrame(rows)
        frame["p_value"] = frame["p_value_z"] if method == "z" else frame["p_value_bayes"]
        frame = frame.drop(columns=["p_value_z", "p_value_bayes"])
        alpha_level = 1 - level
        if adjust is not None:
            from statsmodels.stats.multitest import multipletests

            try:
                reject, padj, _, _ = multipletests(frame["p_value"].to_numpy(), alpha=alpha_level,
                                                   method=adjust)
            except ValueError as exc:
                raise ParameterError(f"adjust={adjust!r}: {exc}") from None
            frame["p_adjusted"] = padj
            frame["significant"] = reject
            pcol = frame["p_adjusted"]
        else:
            frame["significant"] = frame["p_value"] < alpha_level
            pcol = frame["p_value"]
        frame["stars"] = np.select([pcol < 0.001, pcol < 0.01, pcol < 0.05], ["***", "**", "*"], "")
        frame.attrs.update(level=level, method=method, adjust=adjust)
        return Comparison(frame, groups, method, level, adjust)


@dataclass(frozen=True, eq=False)
class Comparison:
    """Pairwise comparison of groups from :meth:`BinaryFit.compare`."""

    table: pd.DataFrame
    groups: list[str]
    method: str
    level: float
    adjust: str | None

    def to_frame(self) -> pd.DataFrame:
        """One row per pair: ``group_1, group_2, diff, std_error, prob_greater, z, p_value,
        [p_adjusted,] significant, stars``."""
        out = self.table.copy()
        out.attrs.update(self.table.attrs)
        return out

    def matrix(self, value: str = "prob_greater") -> pd.DataFrame:
        """Square table over groups; cell (i, j) is the value for group i against group j.

        ``prob_greater`` gives ``P(alpha_i > alpha_j)`` (the papers' table); ``diff`` is
        antisymmetric; ``p_value``, ``z``, ``significant`` are filled symmetrically (z changes sign).
        """
        if value not in self.table.columns:
            raise ParameterError(f"value={value!r}: use one of {list(self.table.columns[2:])}")
        m = pd.DataFrame(np.nan, index=self.groups, columns=self.groups, dtype=object)
        for _, r in self.table.iterrows():
            v = r[value]
            m.loc[r.group_1, r.group_2] = v
            if value == "prob_greater":
                m.loc[r.group_2, r.group_1] = 1 - v
            elif value in ("diff", "z"):
                m.loc[r.group_2, r.group_1] = -v
            else:
                m.loc[r.group_2, r.group_1] = v
        if value != "stars":
            m = m.astype(float)
        m.index.name = "group_1"
        m.columns.name = "group_2"
        return m

    def summary(self) -> Summary:
        info = {"method": {"bayes": "posterior probability P(alpha_1 > alpha_2)",
                           "z": "z-test on normal approximations (paper eq. 6)"}[self.method],
                "level": self.level, "adjustment": self.adjust or "none",
                "pairs": len(self.table),
                "significant pairs": int(self.table["significant"].sum())}
        # one readable label per pair ("A vs B"); a two-level index would print as tuples
        pairs = self.table.assign(pair=self.table["group_1"].astype(str) + " vs "
                                  + self.table["group_2"].astype(str))
        pairs = pairs.drop(columns=["group_1", "group_2"]).set_index("pair")
        return Summary("Pairwise comparison of groups", info, [("pairs", pairs)])

    def __str__(self) -> str:
        return self.summary().as_text()

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return self.summary().as_html()

    def plot(self, value: str = "prob_greater", ax=None, annot: bool = True, **kw):
        """Heatmap of :meth:`matrix` (seaborn)."""
        import matplotlib.pyplot as plt
        import seaborn as sns

        m = self.matrix(value).astype(float)
        if ax is None:
            n = len(self.groups)
            _, ax = plt.subplots(figsize=(0.6 * n + 2.5, 0.5 * n + 2))
        opts = {"cmap": "vlag", "center": 0.5 if value == "prob_greater" else 0.0,
                "annot": annot, "fmt": ".2f", "annot_kws": {"size": 7}, "square": True,
                "cbar_kws": {"label": value}}
        opts.update(kw)
        sns.heatmap(m, ax=ax, **opts)
        ax.set_title("P(alpha row > alpha column)" if value == "prob_greater" else value)
        return ax


def _check_options(level, prior, rate_prior) -> tuple[tuple[float, float], tuple[float, float]]:
    """Options shared by fit and fit_counts: the level and the two Beta priors."""
    if not 0 < level < 1:
        raise ParameterError(f"level={level!r}: must lie strictly between 0 and 1, e.g. 0.95")
    return _check_beta_params("prior", prior), _check_beta_params("rate_prior", rate_prior)


def _fit_from_counts(counts: pd.DataFrame, *, prior, rate_prior, rates, method, grid,
                     paired_informs_alpha: bool) -> tuple[dict, dict, dict, str]:
    """Posteriors per group from counts (human_* exclude the paired rows here)."""
    posteriors: dict[str, AlphaPosterior] = {}
    unidentified: dict[str, float] = {}
    known: dict[str, tuple] = {}
    if isinstance(rates, str):
        if rates not in ("estimate", "pooled"):
            raise ParameterError(f"rates={rates!r}: use 'estimate', 'pooled', or known values "
                                 "{'rho': .7, 'eta': .7} (optionally per group)")
        mode = rates
    elif isinstance(rates, Mapping):
        mode = "known"
    else:
        raise ParameterError(f"rates={rates!r}: use 'estimate', 'pooled', or known values "
                             "{'rho': .7, 'eta': .7} (optionally per group)")
    pooled = counts[["tp", "fn", "tn", "fp"]].sum()
    for g, c in counts.iterrows():
        g = str(g)
        rho = eta = None
        if mode == "known":
            rho, eta = _known_rates_for(rates, g)
            for nm, v in (("rho", rho), ("eta", eta)):
                if v is not None and not 0 <= float(v) <= 1:
                    raise ParameterError(f"known {nm}={v!r} for group {g!r} is outside [0, 1]")
            known[g] = (rho, eta)
        paired = pooled if mode == "pooled" else c[["tp", "fn", "tn", "fp"]]
        tp, fn, tn, fp = (int(paired[k]) for k in ("tp", "fn", "tn", "fp"))
        hp = int(c["human_pos"]) + (int(c["tp"] + c["fn"]) if paired_informs_alpha else 0)
        ht = int(c["human_total"]) + (int(c[["tp", "fn", "tn", "fp"]].sum())
                                      if paired_informs_alpha else 0)
        mt, mp = int(c["metric_total"]), int(c["metric_pos"])
        if mt > 0:
            if rho is None and tp + fn == 0:
                raise DataError(
                    f"group {g!r} has {mt} metric-only ratings but no paired rows with a positive "
                    "human rating, so rho cannot be estimated; use rates='pooled' or give known "
                    "rates={'rho': .., 'eta': ..}")
            if eta is None and tn + fp == 0:
                raise DataError(
                    f"group {g!r} has {mt} metric-only ratings but no paired rows with a negative "
                    "human rating, so eta cannot be estimated; use rates='pooled' or give known "
                    "rates={'rho': .., 'eta': ..}")
            if rho is None and eta is None:
                pu = _prob_rates_unidentified(tp, fn, tn, fp, rate_prior)
                unidentified[g] = pu
                if pu > 0.05:
                    warnings.warn(
                        f"group {g!r}: the posterior probability that rho + eta <= 1 is {pu:.3f}; "
                        "alpha is not identified when the metric is no better than chance. If the "
                        "metric is worse than chance, flip it (e.g. I(1 - metric)).",
                        IdentifiabilityWarning, stacklevel=4)
            elif rho is not None and eta is not None and rho + eta <= 1:
                unidentified[g] = 1.0
                warnings.warn(
                    f"group {g!r}: known rho + eta = {rho + eta:g} <= 1: the metric is "
                    + ("uninformative (alpha comes from human ratings only)" if rho + eta == 1
                       else "worse than chance; flip it (e.g. I(1 - metric)) to read it the right way"),
                    IdentifiabilityWarning, stacklevel=4)
        if ht == 0 and mt == 0:
            raise DataError(f"group {g!r} has no ratings at all; drop it or add ratings")
        posteriors[g] = alpha_posterior(hp, ht, mp, mt, tp, fn, tn, fp, rho=rho, eta=eta,
                                        prior=prior, rate_prior=rate_prior, method=method,
                                        grid=grid)
    return posteriors, unidentified, known, mode


def fit(formula: str, data: pd.DataFrame, *, prior: tuple[float, float] = (1, 1),
        rates: str | Mapping = "estimate", threshold: Any = None, level: float = 0.95,
        method: str = "exact", rate_prior: tuple[float, float] = (1, 1),
        grid: tuple[int, int, int] = (2000, 1000, 1000), eval_env: int | dict = 0) -> BinaryFit:
    """Fit the binary evaluation model with a formula.

    Parameters
    ----------
    formula : str
        ``"human ~ metric | system"``.  ``human`` is the error-free rating (0/1, bool, NaN = not
        rated); ``metric`` the metric rating (binary, or scalar with ``threshold``) or ``1`` for
        human ratings only; after ``|`` the grouping columns (none: one group).  Each side may be
        a patsy expression, e.g. ``"I(mqm == 0) ~ I(bleurt > 0.3) | system"``.
    data : DataFrame
        One row per output.
    prior : (float, float)
        Beta prior of ``alpha``.
    rates : "estimate", "pooled" or mapping
        ``"estimate"``: ``rho``/``eta`` per group from its paired rows (the papers' default);
        ``"pooled"``: one ``rho``/``eta`` from all groups' paired rows; known values
        ``{"rho": .7, "eta": .7}`` or per group ``{"sys1": {"rho": .., "eta": ..}, ...}``.
    threshold : float, "balanced", "youden" or mapping, optional
        For a scalar metric: positive when ``score >= threshold``.  ``"balanced"`` picks the
        observed score minimising ``|rho - eta|`` on all paired rows (the papers' rule),
        ``"youden"`` maximises ``rho + eta - 1``; a mapping gives a number or rule per group.
    level : float
        Credible level used by ``summary``, ``to_frame`` and ``compare``.
    method : {"exact", "grid"}
        Posterior engine (see :func:`binaryeval.binary.engine.alpha_posterior`).
    rate_prior : (float, float)
        Beta prior of ``rho`` and ``eta``.

    Returns
    -------
    BinaryFit

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import binaryeval as be
    >>> rng = np.random.default_rng(0)
    >>> n = 400
    >>> human = rng.random(n) < 0.6
    >>> metric = np.where(human, rng.random(n) < 0.8, rng.random(n) < 0.2)
    >>> df = pd.DataFrame({"human": np.where(np.arange(n) < 100, human, np.nan),
    ...                    "metric": metric.astype(int), "system": "A"})
    >>> res = be.fit("human ~ metric", df)
    >>> round(res.to_frame()["estimate"].iloc[0], 2)
    0.59
    """
    prior, rate_prior = _check_options(level, prior, rate_prior)
    parsed = parse_formula(formula, allow_multiple_rhs=False)
    mf = parsed.evaluate(data, eval_env + 1 if isinstance(eval_env, int) else eval_env)
    account = RowAccount(len(data))
    hname = parsed.lhs_names[0]
    if len(parsed.lhs) != 1:
        raise ParameterError(f"the left side of {formula!r} must be one human-rating term")
    human = as_binary(mf.lhs.iloc[:, 0], hname, "human rating")
    group = mf.group.astype(object) if mf.group is not None else pd.Series(_SINGLE, index=data.index)
    gmiss = group.isna()
    account.exclude("missing group", int(gmiss.sum()))
    group = group[~gmiss].astype(str)
    human = human[~gmiss]
    threshold_used: Any = None
    if parsed.rhs:
        mname = parsed.rhs_names[0]
        raw = mf.rhs.iloc[:, 0][~gmiss]
        if threshold is None:
            if not is_binary(raw):
                example = raw[raw.notna()].iloc[0] if raw.notna().any() else raw.iloc[0]
                raise DataError(
                    f"metric column {mname!r} is scalar (e.g. {_show(example)}); give threshold= a "
                    "number, 'balanced' or 'youden', or binarise it in the formula, "
                    f"e.g. I({mname} > 0.5)")
            metric = as_binary(raw, mname, "metric rating")
        else:
            score = pd.to_numeric(raw, errors="coerce")
            bad = raw.notna() & score.isna()
            if bad.any():
                raise DataError(f"metric column {mname!r} holds a non-numeric value "
                                f"{_show(raw[bad].iloc[0])}; a thresholded metric must be numeric")
            if not np.isfinite(score.dropna()).all():
                raise DataError(f"metric column {mname!r} holds an infinite value; "
                                "replace it with NaN (not rated) or a finite score")
            paired = human.notna() & score.notna()
            per_group = {}
            for g in pd.unique(group):
                spec = threshold.get(g, threshold.get(str(g))) if isinstance(threshold, Mapping) \
                    else threshold
                if spec is None:
                    raise ParameterError(f"threshold has no entry for group {g!r}")
                if isinstance(spec, str):
                    if spec not in THRESHOLD_RULES:
                        raise ParameterError(f"threshold={spec!r}: use a number or one of "
                                             f"{THRESHOLD_RULES}")
                    sel = paired if not isinstance(threshold, Mapping) else paired & (group == g)
                    if sel.sum() == 0:
                        raise DataError(f"threshold rule {spec!r} needs paired rows (human and "
                                        f"metric) {'in group ' + repr(g) if isinstance(threshold, Mapping) else ''}; "
                                        "there are none")
                    spec = choose_threshold(human[sel], score[sel], spec)
                per_group[g] = float(spec)
            values = set(per_group.values())
            threshold_used = (next(iter(values)) if len(values) == 1 and not isinstance(threshold, Mapping)
                              else per_group)
            if isinstance(threshold, str):
                threshold_used = f"{threshold_used:.6g} ({threshold} rule)"
            cut = group.map(per_group).astype(float)
            metric = pd.Series(np.where(score.isna(), np.nan, (score >= cut).astype(float)),
                               index=score.index)
    else:
        metric = pd.Series(np.nan, index=human.index)
        if threshold is not None:
            raise ParameterError("threshold given but the formula has no metric (right side 1)")
    neither = human.isna() & metric.isna()
    account.exclude("no rating (human and metric missing)", int(neither.sum()))
    keep = ~neither
    human, metric, group = human[keep], metric[keep], group[keep]
    if len(group) == 0:
        raise DataError("no row has a rating; check the columns in the formula")
    order = list(pd.unique(mf.group.dropna().astype(str))) if mf.group is not None else [_SINGLE]
    if mf.group is not None:
        present = set(group)
        empty = [g for g in order if g not in present]
        if empty:
            raise DataError(f"group {empty[0]!r} has no rated rows (every human and metric "
                            "rating missing); drop it from the data")
        try:
            order = sorted(order, key=lambda v: (float(v), v))
        except ValueError:
            order = sorted(order)
    h, m = human.to_numpy(), metric.to_numpy()
    both = ~np.isnan(h) & ~np.isnan(m)
    only_h = ~np.isnan(h) & np.isnan(m)
    only_m = np.isnan(h) & ~np.isnan(m)
    frame = pd.DataFrame({
        "group": group.to_numpy(),
        "human_pos": only_h & (h == 1), "human_total": only_h,
        "metric_pos": only_m & (m == 1), "metric_total": only_m,
        "tp": both & (h == 1) & (m == 1), "fn": both & (h == 1) & (m == 0),
        "tn": both & (h == 0) & (m == 0), "fp": both & (h == 0) & (m == 1)})
    counts = frame.groupby("group", sort=False).sum().astype(int).reindex(order)
    posteriors, unident, known, mode = _fit_from_counts(
        counts, prior=prior, rate_prior=rate_prior, rates=rates, method=method, grid=grid,
        paired_informs_alpha=True)
    # report human_* including the paired rows' human ratings
    return BinaryFit(counts, posteriors, formula=formula, prior=prior, rate_prior=rate_prior,
                     rates_mode=mode, known_rates=known, threshold=threshold_used, level=level,
                     method=method, n_rows=len(data), excluded=dict(account.excluded),
                     unidentified=unident,
                     call={"rates": rates if isinstance(rates, str) else dict(rates),
                           "threshold": threshold})


def fit_counts(counts, *, prior: tuple[float, float] = (1, 1), rates: str | Mapping = "estimate",
               level: float = 0.95, method: str = "exact",
               rate_prior: tuple[float, float] = (1, 1), paired_informs_alpha: bool = True,
               grid: tuple[int, int, int] = (2000, 1000, 1000)) -> BinaryFit:
    """Fit the model from sufficient statistics, one row per group.

    Parameters
    ----------
    counts : DataFrame or mapping
        Columns (missing ones count as 0): ``human_pos``, ``human_total`` (rows with a human
        rating only), ``metric_pos``, ``metric_total`` (rows with a metric rating only), ``tp``,
        ``fn``, ``tn``, ``fp`` (paired rows: human 1/metric 1, human 1/metric 0, human 0/metric 0,
        human 0/metric 1).  The index (or a ``group`` column) names the groups.  A mapping
        ``{group: {column: count}}`` or a single ``{column: count}`` also works.
    paired_informs_alpha : bool
        Whether the paired rows' human ratings also count for ``alpha`` (True in the model;
        False when the rates were measured on a separate set, as in the authors' tool).
    prior, rates, level, method, rate_prior, grid
        As in :func:`fit`.

    Returns
    -------
    BinaryFit

    Examples
    --------
    >>> res = fit_counts({"human_pos": 113, "human_total": 200, "metric_pos": 5575,
    ...                   "metric_total": 10000, "tp": 92, "fn": 21, "tn": 64, "fp": 23},
    ...                  paired_informs_alpha=False)
    >>> round(res.to_frame()["estimate"].iloc[0], 3)
    0.556
    """
    prior, rate_prior = _check_options(level, prior, rate_prior)
    if isinstance(counts, Mapping):
        if all(isinstance(v, Mapping) for v in counts.values()):
            frame = pd.DataFrame.from_dict(counts, orient="index")
        else:
            frame = pd.DataFrame([counts], index=[_SINGLE])
    elif isinstance(counts, pd.DataFrame):
        frame = counts.copy()
        if "group" in frame.columns:
            frame = frame.set_index("group")
    else:
        raise CountsError(f"counts must be a DataFrame or a mapping, got {type(counts).__name__}")
    if frame.empty:
        raise CountsError("counts has no rows")
    unknown = [c for c in frame.columns if c not in COUNT_COLUMNS]
    if unknown:
        raise CountsError(f"counts has unknown column {unknown[0]!r}; the columns are "
                          f"{list(COUNT_COLUMNS)}")
    frame = frame.reindex(columns=COUNT_COLUMNS).fillna(0)
    for col in COUNT_COLUMNS:
        vals = pd.to_numeric(frame[col], errors="coerce")
        bad = vals.isna() | (vals < 0) | (vals != np.floor(vals)) | ~np.isfinite(vals)
        if bad.any():
            g = frame.index[bad.to_numpy()][0]
            raise CountsError(f"counts[{col!r}] for group {g!r} is {_show(frame.loc[g, col])}; counts "
                              "must be non-negative whole numbers")
        frame[col] = vals.astype(np.int64)
    for pos, tot in (("human_pos", "human_total"), ("metric_pos", "metric_total")):
        bad = frame[pos] > frame[tot]
        if bad.any():
            g = frame.index[bad.to_numpy()][0]
            raise CountsError(f"group {g!r}: {pos}={frame.loc[g, pos]} exceeds {tot}="
                              f"{frame.loc[g, tot]}; positives cannot outnumber ratings")
    frame.index = frame.index.astype(str)
    frame.index.name = "group"
    posteriors, unident, known, mode = _fit_from_counts(
        frame, prior=prior, rate_prior=rate_prior, rates=rates, method=method, grid=grid,
        paired_informs_alpha=paired_informs_alpha)
    return BinaryFit(frame, posteriors, formula=None, prior=prior, rate_prior=rate_prior,
                     rates_mode=mode, known_rates=known, level=level, method=method,
                     unidentified=unident,
                     paired_informs_alpha=paired_informs_alpha,
                     call={"rates": rates if isinstance(rates, str) else dict(rates),
                           "paired_informs_alpha": paired_informs_alpha})
