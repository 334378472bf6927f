"""``fit`` and ``fit_counts``: the binary evaluation model on data frames and on counts.

``fit`` is thin, in statsmodels' ``from_formula`` spirit: formula -> model frame (coded 0/1
ratings, one group label per row, an account of the rows left out) -> counts per group ->
:func:`fit_counts`.  The model needs only the counts, so the same path serves data frames that
do not fit in memory (each partition is coded and counted, the counts are added).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import integrate, stats

from .. import _validate
from .._dask import is_dask_frame
from .._partition import formula_env
from .._warnings import warn
from ..data import COUNT_COLUMNS, check_counts
from ..errors import (
    DataError,
    FormulaError,
    ParameterError,
)
from ..formula import ParsedFormula, parse_formula
from . import _frame
from ._describe import fit_warning
from .engine import alpha_posterior
from .result import BinaryFit, _resolve_order

__all__ = ["fit", "fit_counts", "COUNT_COLUMNS"]

_SINGLE = _frame.SINGLE


@dataclass(frozen=True)
class _Options:
    prior: tuple[float, float]
    rate_prior: tuple[float, float]
    rates: Any
    level: float
    method: str
    grid: tuple[int, int, int]


def _options(level, prior, rate_prior, rates, method, grid) -> _Options:
    """The options shared by :func:`fit` and :func:`fit_counts`, checked once."""
    level = _validate.level(level)
    prior = _validate.beta_pair(prior, "prior")
    rate_prior = _validate.beta_pair(rate_prior, "rate_prior")
    method = _validate.choice(method, "method", ("exact", "grid"))
    rates = _validate.rates(rates)
    return _Options(prior, rate_prior, rates, level, method, tuple(int(g) for g in grid))


def _known_rates_for(rates, group: str) -> tuple[float | None, float | None]:
    if "rho" in rates or "eta" in rates:
        entry = rates
    else:
        if group not in rates:
            raise ParameterError(f"rates has no entry for group {group!r}; give "
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


def _group_posterior(g: str, c: pd.Series, paired: pd.Series, opts: _Options,
                     paired_informs_alpha: bool):
    """One group's posterior, its known rates and P(rho + eta <= 1) (NaN when not defined)."""
    rho = eta = None
    if isinstance(opts.rates, Mapping):
        rho, eta = _known_rates_for(opts.rates, g)
    tp, fn, tn, fp = (int(paired[k]) for k in ("tp", "fn", "tn", "fp"))
    n_paired = int(c[["tp", "fn", "tn", "fp"]].sum())
    hp = int(c["human_pos"]) + (int(c["tp"] + c["fn"]) if paired_informs_alpha else 0)
    ht = int(c["human_total"]) + (n_paired if paired_informs_alpha else 0)
    mt, mp = int(c["metric_total"]), int(c["metric_pos"])
    p_unident = np.nan
    if mt > 0:
        for name, known, n_class, cls in (("rho", rho, tp + fn, "positive"),
                                          ("eta", eta, tn + fp, "negative")):
            if known is None and n_class == 0:
                raise DataError(
                    f"group {g!r} has {mt} metric-only ratings but no paired rows with a {cls} "
                    f"human rating, so {name} cannot be estimated; use rates='pooled' or give "
                    "known rates={'rho': .., 'eta': ..}")
        if rho is None and eta is None:
            p_unident = _prob_rates_unidentified(tp, fn, tn, fp, opts.rate_prior)
        elif rho is not None and eta is not None:
            p_unident = 1.0 if rho + eta <= 1 else 0.0
    if ht == 0 and mt == 0:
        raise DataError(f"group {g!r} has no ratings at all; drop it or add ratings")
    post = alpha_posterior(hp, ht, mp, mt, tp, fn, tn, fp, rho=rho, eta=eta, prior=opts.prior,
                           rate_prior=opts.rate_prior, method=opts.method, grid=opts.grid)
    return post, (rho, eta), p_unident


def _fit(counts: pd.DataFrame, opts: _Options, *, order, paired_informs_alpha: bool,
         **fields) -> BinaryFit:
    """Posteriors per group from validated counts, then the result (one warning at most)."""
    posteriors, known, unidentified = {}, {}, {}
    pooled = counts[["tp", "fn", "tn", "fp"]].sum()
    for g, c in counts.iterrows():
        g = str(g)
        paired = pooled if opts.rates == "pooled" else c
        posteriors[g], rates_g, p = _group_posterior(g, c, paired, opts, paired_informs_alpha)
        if isinstance(opts.rates, Mapping):
            known[g] = rates_g
        if not np.isnan(p):
            unidentified[g] = p
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
    from dataclasses import replace

    return replace(res, order=tuple(order))


# -- the model frame (see _frame) ------------------------------------------------------------
def _directions(lower_is_better, parsed: ParsedFormula, thresholded: bool) -> tuple[str, ...]:
    if lower_is_better is None:
        return ()
    names = [lower_is_better] if isinstance(lower_is_better, str) else list(lower_is_better)
    terms = parsed.lhs_names + parsed.rhs_names
    for name in names:
        if name not in terms:
            raise ParameterError(f"lower_is_better names {name!r}, which is not a term of the "
                                 f"formula; the terms are {terms}")
        if name in parsed.lhs_names:
            raise ParameterError(f"lower_is_better={name!r}: the human rating is binary (1 = "
                                 "adequate); turn penalties into a rating in the formula, e.g. "
                                 f"I({name} == 0)")
        if not thresholded:
            raise ParameterError(f"lower_is_better={name!r} applies to a scalar metric with "
                                 "threshold=; a binary metric has no direction to turn: if its "
                                 f"1 means inadequate, flip it in the formula, e.g. I(1 - {name})")
    return tuple(names)


def _names_read(parsed: ParsedFormula) -> list[str]:
    """The column names the formula's terms may read (identifiers and quoted names)."""
    codes = [t.code for t in (*parsed.lhs, *parsed.rhs, *parsed.groups)]
    return [name for code in codes
            for name in (*re.findall(r"[A-Za-z_]\w*", code),
                         *re.findall(r"[\"']([^\"']+)[\"']", code))]


@_validate.renamed(higher_is_better="lower_is_better", metric_higher_is_better="lower_is_better",
                   confidence="level", confidence_level="level", conf_level="level")
def fit(formula: str, data: pd.DataFrame, *, prior: tuple[float, float] = (1, 1),
        rates: str | Mapping = "estimate", threshold: Any = None,
        lower_is_better: str | Sequence[str] | None = None, level: float = 0.95,
        order: str | Sequence[str] = "estimate", method: str = "exact",
        rate_prior: tuple[float, float] = (1, 1), grid: tuple[int, int, int] = (2000, 1000, 1000),
        eval_env: int | dict = 0, dependence: str | None = None, bins: Any = None,
        seed: Any = None, draws: int = 1000, chains: int = 4):
    """Fit the binary evaluation model with a formula.

    Parameters
    ----------
    formula : str
        ``"human ~ metric | system"``.  ``human`` is the error-free rating (0/1, bool, NaN = not
        rated); ``metric`` the metric rating (binary, or scalar with ``threshold``) or ``1`` for
        human ratings only; after ``|`` the grouping columns (none: one group).  A term may be an
        expression, e.g. ``"I(mqm == 0) ~ I(bleurt > 0.3) | system"``: columns, ``Q("odd
        name")``, numbers and strings, arithmetic, comparisons, ``& | ~``, ``I()``, ``C()``, numpy
        functions such as ``np.log`` and the caller's variables as values (see
        :mod:`binaryeval.formula`); it is evaluated from that allow-list, never run as Python
        code.  A missing value in a column a term uses makes the term missing, never ``False``.
    data : DataFrame
        One row per output: a pandas frame, or a Dask frame for data larger than memory (read
        partition by partition and counted, with a threshold rule chosen from the paired rows;
        the same result).
    prior : (float, float)
        Beta prior of ``alpha``.
    rates : "estimate", "pooled" or mapping
        ``"estimate"``: ``rho``/``eta`` per group from its paired rows (the papers' default);
        ``"pooled"``: one ``rho``/``eta`` from all groups' paired rows; known values
        ``{"rho": .7, "eta": .7}`` or per group ``{"sys1": {"rho": .., "eta": ..}, ...}``.
    threshold : float, "balanced", "youden" or mapping, optional
        For a scalar metric: a rating is positive when ``score >= threshold``.  ``"balanced"``
        picks the observed score minimising ``|rho - eta|`` on all paired rows (the papers'
        rule), ``"youden"`` maximises ``rho + eta - 1``; a mapping gives a number or rule per
        group.
    lower_is_better : str or list of str, optional
        Metric terms whose lower scores are better: their ratings are positive when
        ``score <= threshold``.
    level : float
        Credible level used by ``summary``, ``to_frame`` and ``compare``.
    order : "estimate", "input" or list of str
        Order of the groups in tables and plots: by posterior mean (highest first), as the labels
        sort, or as listed.
    method : {"exact", "grid"}
        Posterior engine (see :func:`binaryeval.alpha_posterior`).
    rate_prior : (float, float)
        Beta prior of ``rho`` and ``eta``.
    grid : (int, int, int)
        Grid sizes for ``method="grid"``.
    eval_env : int or dict
        Variables of your code the formula may read as values (numbers, strings, arrays,
        Series): a mapping, ``{}`` for none, or a stack depth as in patsy (0: the code calling
        ``fit``).
    dependence : {"joint", "independent"}, optional
        With several metric terms (``"human ~ m1 + m2 | system"``) the latent-truth model of
        :func:`binaryeval.latent.fit_latent` is fitted: ``"joint"`` (default) models the metrics'
        joint outputs given the truth, ``"independent"`` their product.
    bins : int or mapping, optional
        Enter a scalar metric binned into this many classes (edges from the paired rows'
        quantiles) through the latent-truth model, instead of thresholding it.
    seed, draws, chains
        Sampler settings of the latent-truth model (several metrics or ``bins``); the exact engine
        of one binary metric needs none.

    Returns
    -------
    BinaryFit or LatentFit
        A :class:`BinaryFit` for one (thresholded) metric or none; a
        :class:`~binaryeval.latent.LatentFit` for several metrics or binned scores.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import binaryeval as be
    >>> rng = np.random.default_rng(0)
    >>> n = 400
    >>> human = rng.random(n) < 0.6
    >>> metric = np.where(human, rng.random(n) < 0.8, rng.random(n) < 0.2)
    >>> df = pd.DataFrame({"human": np.where(np.arange(n) < 100, human, np.nan),
    ...                    "metric": metric.astype(int)})
    >>> res = be.fit("human ~ metric", df)
    >>> round(float(res.to_frame()["estimate"].iloc[0]), 2)
    0.53
    """
    parsed = parse_formula(formula)
    if len(parsed.rhs) > 1 or bins is not None or dependence is not None:
        return _fit_latent(formula, data, parsed, dependence=dependence, bins=bins, rates=rates,
                           prior=prior, level=level, seed=seed, draws=draws, chains=chains,
                           unsupported={"threshold": threshold, "lower_is_better": lower_is_better,
                                        "method": None if method == "exact" else method})
    opts = _options(level, prior, rate_prior, rates, method, grid)
    lower = _directions(lower_is_better, parsed, threshold is not None)
    if not (isinstance(data, pd.DataFrame) or is_dask_frame(data)):
        raise DataError(f"data must be a pandas DataFrame, got {type(data).__name__}; "
                        "wrap it with pd.DataFrame(...)")
    _validate.unique_columns(data, _names_read(parsed))
    hname, mname = _frame.terms(parsed)
    if mname is None and threshold is not None:
        raise ParameterError("threshold given but the formula has no metric (right side 1)")
    env = formula_env(parsed, eval_env)
    summary, cuts = _frame.summarise_data(parsed, data, env, threshold=threshold,
                                          lower_is_better=mname in lower)
    group_name = _group_name(parsed)
    counts, account = _frame.model_counts(summary, group_name)
    threshold_value = rule = None
    diagnostics: dict[str, Any] = {}
    if cuts is not None:
        per_group = pd.Series(cuts.thresholds).reindex(counts.index)
        threshold_value = per_group if cuts.per_group else float(per_group.iloc[0])
        rule = cuts.rule
        diagnostics = {"auc": cuts.auc, "rho": cuts.rho, "eta": cuts.eta}
    return _fit(counts, opts, order=order, paired_informs_alpha=True, formula=formula,
                threshold=threshold_value, threshold_rule=rule, lower_is_better=lower,
                n_rows=account.n_rows, excluded=dict(account.excluded), group_name=group_name,
                diagnostics=diagnostics, call={"rates": rates, "threshold": threshold,
                                               "order": order})


def _fit_latent(formula, data, parsed, *, unsupported, **options):
    """Several metric terms or binned scores: the latent-truth model (binaryeval.latent)."""
    from ..latent import fit_latent

    for name, value in unsupported.items():
        if value is not None:
            raise ParameterError(f"{name}={value!r} applies to one binary or thresholded metric; "
                                 "with several metric terms or bins= the latent-truth model takes "
                                 "the scores as they are (use bins= for a scalar metric)")
    if is_dask_frame(data):
        raise DataError("several metric terms or bins= fit the latent-truth model, which needs "
                        "the rows in memory: pass a pandas frame (ddf.compute(), after selecting "
                        "the rows and columns the formula uses)")
    if options["dependence"] is None:
        options["dependence"] = "joint"
    if len(parsed.rhs) < 1:
        raise FormulaError("dependence= and bins= need a metric on the right of '~'", formula)
    return fit_latent(formula, data, **options)


def _group_name(parsed: ParsedFormula) -> str:
    return ":".join(parsed.group_names) if parsed.groups else "group"


def _counts_frame(counts) -> pd.DataFrame:
    if isinstance(counts, Mapping):
        if counts and all(isinstance(v, Mapping) for v in counts.values()):
            # a count left out of a group's mapping is 0 (a NaN given explicitly is refused)
            cols = list(dict.fromkeys(c for v in counts.values() for c in v))
            frame = pd.DataFrame([[v.get(c, 0) for c in cols] for v in counts.values()],
                                 index=list(counts), columns=cols, dtype=object)
        else:
            frame = pd.DataFrame([counts], index=[_SINGLE])
    elif isinstance(counts, pd.DataFrame):
        frame = counts.copy()
        if "group" in frame.columns:
            frame = frame.set_index("group")
    else:
        raise DataError(f"counts must be a DataFrame or a mapping, got {type(counts).__name__}")
    if frame.empty:
        raise DataError("counts has no rows")
    out = check_counts(frame)
    name = frame.index.name or "group"
    out.index = pd.Index(frame.index.astype(str), name=name)
    return out


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
        As in :func:`fit`.
    paired_informs_alpha : bool
        Whether the paired rows' human ratings also count for ``alpha`` (True in the model;
        False when the rates were measured on a separate set, as in the authors' tool).

    Returns
    -------
    BinaryFit

    Examples
    --------
    >>> res = fit_counts({"human_pos": 113, "human_total": 200, "metric_pos": 5575,
    ...                   "metric_total": 10000, "tp": 92, "fn": 21, "tn": 64, "fp": 23},
    ...                  paired_informs_alpha=False)
    >>> round(float(res.to_frame()["estimate"].iloc[0]), 3)
    0.556
    """
    opts = _options(level, prior, rate_prior, rates, method, grid)
    frame = _counts_frame(counts)
    informs = _validate.flag(paired_informs_alpha, "paired_informs_alpha")
    return _fit(frame, opts, order=order, paired_informs_alpha=informs,
                group_name=frame.index.name or "group",
                call={"rates": rates, "paired_informs_alpha": informs, "order": order})

