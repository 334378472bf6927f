"""``fit_counts``: the binary evaluation model from the counts of each group.

The model needs only eight counts per group (its sufficient statistics).  :func:`fit_counts` takes
them as given; the formula front door :func:`binaryeval.fit` (:mod:`binaryeval.api`) codes a data
frame into them and hands them to :func:`fit_model` with the data's description (formula,
threshold, row account), so both paths meet here: options checked once by :func:`check_options`,
one posterior per group from the exact engine, one warning at most.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import integrate

from .. import _validate
from .._lazy import stats
from .._warnings import warn
from ..data import COUNT_COLUMNS, check_counts, join_label, keyed_by_label, label_text
from ..errors import CountsError, DataError, ParameterError
from . import _batch, engine
from ._describe import fit_warning
from .result import BinaryFit, _resolve_order

__all__ = ["COUNT_COLUMNS", "Options", "check_options", "fit_counts", "fit_model"]

#: The group of data without a grouping term (``human ~ metric``).
SINGLE = "all"


@dataclass(frozen=True)
class Options:
    """The model's options, checked (:func:`check_options`)."""

    prior: tuple[float, float]
    rate_prior: tuple[float, float]
    rates: Any
    level: float
    method: str
    grid: tuple[int, int, int]


def check_options(level, prior, rate_prior, rates, method, grid) -> Options:
    """The options shared by :func:`binaryeval.fit` and :func:`fit_counts`, checked once."""
    level = _validate.level(level)
    prior = _validate.beta_pair(prior, "prior")
    rate_prior = _validate.beta_pair(rate_prior, "rate_prior")
    method = _validate.choice(method, "method", ("exact", "grid"))
    rates = _validate.rates(rates)
    if isinstance(rates, str) and rates == "hierarchical":
        raise ParameterError("rates='hierarchical' (rates partially pooled across groups) is "
                             "fitted by the latent-truth sampler: call binaryeval.fit(formula, "
                             "data, rates='hierarchical') with the rows; the exact engine of "
                             "counts has rates='estimate', 'pooled' or known values")
    if rate_prior != (1.0, 1.0) and _all_rates_known(rates):
        raise ParameterError(f"rate_prior={tuple(rate_prior)!r} is the exact binary model's "
                             "Beta prior of rho and eta where they are estimated; rates= gives "
                             "both for every group, so it would change nothing: leave "
                             "rate_prior= out (or leave a rate out of rates= to estimate it)")
    return Options(prior, rate_prior, rates, level, method, tuple(int(g) for g in grid))


def _all_rates_known(rates) -> bool:
    """Whether known ``rates`` give both rho and eta of every group (nothing left to estimate)."""
    if isinstance(rates, str) or not isinstance(rates, Mapping):
        return False
    entries = [rates] if ({"rho", "eta"} & set(map(str, rates))) else list(rates.values())
    return bool(entries) and all(isinstance(e, Mapping) and e.get("rho") is not None
                                 and e.get("eta") is not None for e in entries)


def _known_rates_for(rates, group: str) -> tuple[float | None, float | None]:
    if "rho" in rates or "eta" in rates:
        entry = rates
    else:
        if group not in rates:
            keys = list(rates)[:8]
            raise ParameterError(f"rates= has no entry for group {group!r} (its groups: {keys}"
                                 f"{', ...' if len(rates) > 8 else ''}); give "
                                 "{'rho': .., 'eta': ..} for every group or one pair for all")
        entry = rates[group]
    rho, eta = entry.get("rho"), entry.get("eta")
    return (None if rho is None else float(rho)), (None if eta is None else float(eta))


def _prob_rates_unidentified(tp, fn, tn, fp, rate_prior) -> float:
    """P(rho + eta <= 1) under the Beta posteriors of the paired counts.

    With whole-number prior parameters (the default ``(1, 1)``) this is a beta-binomial
    distribution function (:func:`_beta_binomial_cdf`), summed exactly; otherwise the integral
    of rho's density times eta's distribution function at ``1 - rho``.
    """
    ar, br = rate_prior
    a1, b1, a2, b2 = tp + ar, fn + br, tn + ar, fp + br
    if float(ar).is_integer() and float(br).is_integer():
        # symmetric in rho and eta: expand the one with fewer terms
        if a2 + b2 > a1 + b1:
            a1, b1, a2, b2 = a2, b2, a1, b1
        return _beta_binomial_cdf(int(b2) - 1, int(a2 + b2) - 1, a1, b1)
    rho = stats.beta(a1, b1)
    eta = stats.beta(a2, b2)
    val, _ = integrate.quad(lambda r: rho.pdf(r) * eta.cdf(1.0 - r), 0.0, 1.0, limit=200,
                            points=[rho.mean()], epsabs=1e-12)
    return float(min(max(val, 0.0), 1.0))


def _beta_binomial_cdf(k: int, n: int, a: float, b: float) -> float:
    """P(X <= k) for X ~ BetaBinomial(n, a, b) with a, b >= 1, as P(rho + eta <= 1) needs it.

    For whole numbers ``a2, b2``, eta ~ Beta(a2, b2) has P(eta <= x) = P(Binomial(a2 + b2 - 1, x)
    >= a2); averaging over rho ~ Beta(a, b) at x = 1 - rho gives P(rho + eta <= 1) = P(X <= b2 -
    1) with n = a2 + b2 - 1.  The terms are built from their ratios outwards from the mode and
    normalised by their sum, so no Beta function of large arguments is needed and both tails
    keep a relative accuracy near machine precision (the quadrature it replaces: 1e-12
    absolute).  Terms beyond 60 standard deviations from the mean are left out: the
    distribution is log-concave, so together they weigh less than 1e-20.
    """
    mean = n * a / (a + b)
    sd = np.sqrt(n * a * b * (a + b + n) / ((a + b) ** 2 * (a + b + 1.0)))
    lo = int(max(0, np.floor(mean - 60 * sd - 10)))
    hi = int(min(n, np.ceil(mean + 60 * sd + 10)))
    j = np.arange(lo, hi, dtype=float)
    # log(p(j + 1) / p(j)), j = lo .. hi - 1; positive up to the mode
    step = np.log((n - j) * (j + a)) - np.log((j + 1.0) * (n - j - 1.0 + b))
    mode = int(np.count_nonzero(step > 0))
    log_w = np.zeros(hi - lo + 1)
    log_w[mode + 1:] = np.cumsum(step[mode:])
    log_w[:mode] = -np.cumsum(step[:mode][::-1])[::-1]
    w = np.exp(log_w)
    below = w[:max(k - lo + 1, 0)].sum()
    return float(min(below / w.sum(), 1.0))


def _class_check(g: str, c: dict, paired: dict, rho, eta, informs: bool) -> None:
    """The errors of a group the model cannot fit (checked before any posterior)."""
    mt = int(c["metric_total"])
    if mt > 0:
        for name, known, n_class, cls in (("rho", rho, paired["tp"] + paired["fn"], "positive"),
                                          ("eta", eta, paired["tn"] + paired["fp"], "negative")):
            if known is None and n_class == 0:
                raise DataError(
                    f"group {g!r} has {mt} metric-only ratings but no paired rows with a {cls} "
                    f"human rating, so {name} cannot be estimated; add paired ratings, give "
                    "known rates={'rho': .., 'eta': ..}, or, if the metric errs alike in every "
                    "group, use rates='pooled' (the pooled fit checks that on the paired rows "
                    "and warns when the groups differ)")
        try:
            _validate.possible_under_known_rates(int(c["metric_pos"]), mt, rho, eta)
        except CountsError as err:
            raise CountsError(f"group {g!r}: {err}") from None
    n_paired = int(c["tp"] + c["fn"] + c["tn"] + c["fp"])
    if int(c["human_total"]) + (n_paired if informs else 0) == 0 and mt == 0:
        raise DataError(f"group {g!r} has no ratings at all; drop it or add ratings")


def _designs(groups: list[str], counts: pd.DataFrame, opts: Options,
             paired_informs_alpha: bool):
    """Every group's arguments of the engine, its known rates and P(rho + eta <= 1).

    Returns ``(design, rho, eta, p_unidentified)``: ``design`` an int array of the engine's
    eight counts per group (``human_pos, human_total, metric_pos, metric_total, tp, fn, tn,
    fp``, the paired rows' human ratings added to the human ones when they inform alpha, the
    pooled paired counts with pooled rates), the known rates (NaN where estimated) and
    P(rho + eta <= 1) (NaN where not defined).  Raises the error of the first group (in their
    order) that cannot be fitted.
    """
    n = len(groups)
    cols = counts if tuple(counts.columns) == COUNT_COLUMNS else counts[list(COUNT_COLUMNS)]
    c = cols.to_numpy(dtype=np.int64).reshape(n, len(COUNT_COLUMNS))
    hpos, htot, mpos, mtot, tp, fn, tn, fp = c.T
    paired = c[:, 4:8]
    if opts.rates == "pooled":
        paired = np.broadcast_to(paired.sum(axis=0), paired.shape)
    rho = np.full(n, np.nan)
    eta = np.full(n, np.nan)
    rho_known = np.zeros(n, dtype=bool)
    eta_known = np.zeros(n, dtype=bool)
    if isinstance(opts.rates, Mapping):
        for i, g in enumerate(groups):
            r, e = _known_rates_for(opts.rates, g)
            # a known rate is checked as the engine checks it (NaN and values outside [0, 1]
            # refused)
            if r is not None:
                rho[i], rho_known[i] = engine._check_rate("rho", r), True
            if e is not None:
                eta[i], eta_known[i] = engine._check_rate("eta", e), True
    ptp, pfn, ptn, pfp = paired.T
    bad = (mtot > 0) & ((~rho_known & (ptp + pfn == 0)) | (~eta_known & (ptn + pfp == 0)))
    n_paired = tp + fn + tn + fp
    bad |= (htot + (n_paired if paired_informs_alpha else 0) == 0) & (mtot == 0)
    # known rates under which the metric accepts (rejects) every output, beside a rejection
    # (an acceptance): probability 0
    with np.errstate(invalid="ignore"):
        sure = rho_known & eta_known & (rho + eta == 1.0) & ((rho == 1.0) | (rho == 0.0))
    bad |= sure & np.where(rho == 1.0, mpos < mtot, mpos > 0)
    if bad.any():
        i = int(np.argmax(bad))
        _class_check(groups[i], dict(zip(COUNT_COLUMNS, c[i].tolist(), strict=True)),
                     dict(zip(("tp", "fn", "tn", "fp"), paired[i].tolist(), strict=True)),
                     None if not rho_known[i] else rho[i], None if not eta_known[i] else eta[i],
                     paired_informs_alpha)
    extra = paired_informs_alpha
    design = np.stack([hpos + (tp + fn if extra else 0), htot + (n_paired if extra else 0),
                       mpos, mtot, ptp, pfn, ptn, pfp], axis=1)
    p_unident = np.full(n, np.nan)
    both = (mtot > 0) & ~rho_known & ~eta_known
    if both.any():
        ar, br = opts.rate_prior
        if float(ar).is_integer() and float(br).is_integer() and both.sum() >= 8:
            p_unident[both] = _batch.prob_rates_unidentified(ptp[both], pfn[both], ptn[both],
                                                              pfp[both], opts.rate_prior)
        else:
            p_unident[both] = [_prob_rates_unidentified(*v, opts.rate_prior)
                               for v in paired[both].tolist()]
    fixed = (mtot > 0) & rho_known & eta_known
    p_unident[fixed] = np.where(rho[fixed] + eta[fixed] <= 1, 1.0, 0.0)
    return design, rho, eta, p_unident


def fit_model(counts: pd.DataFrame, opts: Options, *, order, paired_informs_alpha: bool,
         **fields) -> BinaryFit:
    """Posteriors per group from validated counts, then the result (one warning at most).

    ``fields`` describe the data the counts came from (formula, threshold, row account, ...) and
    go to :class:`BinaryFit` as they are.  The posteriors of all groups are computed together
    (:func:`binaryeval.binary._batch.posteriors`), each what ``alpha_posterior`` gives for it.
    """
    if isinstance(opts.rates, Mapping) and not ({"rho", "eta"} & set(opts.rates)):
        # known rates per group: keys match the groups by their text (1 is group "1")
        opts = replace(opts, rates=keyed_by_label(opts.rates, "rates"))
    groups = [str(g) for g in counts.index]
    design, rho, eta, p_unident = _designs(groups, counts, opts, paired_informs_alpha)
    posts = _batch.posteriors(design, rho, eta, prior=opts.prior, rate_prior=opts.rate_prior,
                              method=opts.method, grid=opts.grid)
    posteriors = dict(zip(groups, posts, strict=True))
    known = {}
    if isinstance(opts.rates, Mapping):
        known = {g: (None if np.isnan(r) else float(r), None if np.isnan(e) else float(e))
                 for g, r, e in zip(groups, rho.tolist(), eta.tolist(), strict=True)}
    unidentified = {g: float(p) for g, p in zip(groups, p_unident.tolist(), strict=True)
                    if not np.isnan(p)}
    mode = opts.rates if isinstance(opts.rates, str) else "known"
    res = BinaryFit(counts, posteriors, prior=opts.prior, rate_prior=opts.rate_prior,
                    rates_mode=mode, known_rates=known, level=opts.level, method=opts.method,
                    unidentified=unidentified, paired_informs_alpha=paired_informs_alpha,
                    **fields)
    display = _resolve_order(res, order)
    res = _with_order(res, display)
    warning = fit_warning(res)
    if warning:
        warn(*warning)
    return res


def _with_order(res: BinaryFit, order: list[str]) -> BinaryFit:
    return replace(res, order=tuple(order))


def _counts_frame(counts) -> pd.DataFrame:
    if isinstance(counts, Mapping):
        if counts and all(isinstance(v, Mapping) for v in counts.values()):
            # a count left out of a group's mapping is 0 (a NaN given explicitly is refused)
            cols = list(dict.fromkeys(c for v in counts.values() for c in v))
            frame = pd.DataFrame([[v.get(c, 0) for c in cols] for v in counts.values()],
                                 index=list(counts), columns=cols, dtype=object)
        else:
            frame = pd.DataFrame([counts], index=[SINGLE])
    elif isinstance(counts, pd.DataFrame):
        frame = counts.copy()
        if "group" in frame.columns:
            frame = frame.set_index("group")
    else:
        raise DataError(f"counts must be a DataFrame or a mapping, got {type(counts).__name__}")
    if frame.empty:
        raise DataError("counts has no rows")
    frame.index = _group_labels(frame.index)
    return check_counts(frame)


def _group_labels(index: pd.Index) -> pd.Index:
    """The groups of a counts table as text labels, the package's one rule for labels.

    ``1`` and ``"1"`` are one label (so a table holding both is refused as a repeated group);
    a MultiIndex names each group by its levels joined as :func:`binaryeval.fit` joins several
    grouping columns (:func:`~binaryeval.data.join_label`).
    """
    if isinstance(index, pd.MultiIndex):
        if any(index.get_level_values(i).isna().any() for i in range(index.nlevels)):
            raise CountsError("the counts' index has a missing group label (NaN); name every "
                              "group")
        labels = [join_label(label_text(pd.Series(list(t), dtype=object)).tolist())
                  for t in index]
        names = [n for n in index.names if n is not None]
        name = ":".join(map(str, names)) if len(names) == index.nlevels else "group"
        return pd.Index(labels, name=name, dtype=object)
    text = label_text(pd.Series(index, dtype=object))
    if text.isna().any():
        raise CountsError("the counts' index has a missing group label (NaN); name every group")
    return pd.Index(text.tolist(), name=index.name if index.name is not None else "group",
                    dtype=object)


@_validate.renamed(confidence="level", confidence_level="level", conf_level="level")
def fit_counts(counts, *, prior: tuple[float, float] = (1, 1), rates: str | Mapping = "estimate",
               level: float = 0.95, order: str | Sequence[str] = "estimate",
               method: str = "exact", rate_prior: tuple[float, float] = (1, 1),
               paired_informs_alpha: bool = True,
               grid: tuple[int, int, int] = (2000, 1000, 1000)) -> BinaryFit:
    """Fit the model from sufficient statistics, one row per group.

    Parameters
    ----------
    counts : DataFrame or mapping
        Columns (missing ones count as 0): ``human_pos``, ``human_total`` (rows with a human
        rating only), ``metric_pos``, ``metric_total`` (rows with a metric rating only), ``tp``,
        ``fn``, ``tn``, ``fp`` (paired rows: human 1/metric 1, human 1/metric 0, human 0/metric
        0, human 0/metric 1).  The index (or a ``group`` column) names the groups.  A mapping
        ``{group: {column: count}}`` or a single ``{column: count}`` also works.  Counts must be
        whole numbers (NaN, None and booleans are refused).
    prior, rates, level, order, method, rate_prior, grid
        As in :func:`binaryeval.fit`.
    paired_informs_alpha : bool
        Whether the paired rows' human ratings also count for ``alpha`` (True in the model;
        False when the rates were measured on a separate set, as in the authors' tool).

    Returns
    -------
    BinaryFit

    Examples
    --------
    >>> from binaryeval import fit_counts
    >>> res = fit_counts({"human_pos": 113, "human_total": 200, "metric_pos": 5575,
    ...                   "metric_total": 10000, "tp": 92, "fn": 21, "tn": 64, "fp": 23},
    ...                  paired_informs_alpha=False)
    >>> round(float(res.to_frame()["estimate"].iloc[0]), 3)
    0.556
    """
    opts = check_options(level, prior, rate_prior, rates, method, grid)
    frame = _counts_frame(counts)
    informs = _validate.flag(paired_informs_alpha, "paired_informs_alpha")
    return fit_model(frame, opts, order=order, paired_informs_alpha=informs,
                group_name=frame.index.name or "group",
                call={"rates": rates, "paired_informs_alpha": informs, "order": order})

