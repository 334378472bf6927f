"""The formula front door: :func:`fit` reads the formula's shape and hands the data to a model.

- one metric term (binary, or scalar with ``threshold=``) or none (``human ~ 1``): the exact binary
  model (:mod:`binaryeval.binary`), from the counts of the model frame (:mod:`.frame`);
- several metric terms, ``bins=`` or ``dependence=``: the latent-truth model
  (:func:`binaryeval.latent.fit_latent`).

A new model is a new package beside these and one more branch here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from .. import _validate
from .._dask import is_dask_frame
from .._partition import formula_env, referenced_names
from ..binary.model import check_options, fit_model
from ..errors import DataError, FormulaError, ParameterError
from ..formula import ParsedFormula, parse_formula
from ..latent import fit_latent
from ..latent._common import BetaRatePrior
from . import frame

if TYPE_CHECKING:  # names used only in type hints
    import numpy as np

__all__ = ["fit"]


@_validate.renamed(higher_is_better="lower_is_better", metric_higher_is_better="lower_is_better",
                   confidence="level", confidence_level="level", conf_level="level")
def fit(formula: str, data: pd.DataFrame, *, prior: tuple[float, float] = (1, 1),
        rates: str | Mapping = "estimate", threshold: float | str | Mapping | None = None,
        lower_is_better: str | Sequence[str] | None = None, level: float = 0.95,
        order: str | Sequence[str] = "estimate", method: str = "exact",
        rate_prior: tuple[float, float] = (1, 1), grid: tuple[int, int, int] = (2000, 1000, 1000),
        eval_env: int | dict = 0, dependence: str | None = None, bins: int | Mapping[str, int] | None = None,
        seed: int | np.random.SeedSequence | np.random.Generator | None = None, draws: int = 1000, chains: int = 4,
        rater: str | None = None, item: str | None = None, raters: str | None = None,
        error_free: str | Sequence[str] | None = None, rater_rates: str | None = None):
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
        Beta prior of ``alpha`` (every path).
    rates : "estimate", "pooled", "hierarchical" or mapping
        ``"estimate"``: ``rho``/``eta`` per group from its paired rows (the papers' default);
        ``"hierarchical"``: ``rho``/``eta`` per group drawn from population Betas whose mean
        and concentration are learnt (partial pooling: groups borrow strength from each other
        as far as their paired rows say they are alike; fitted by the latent-truth sampler,
        so ``seed``, ``draws``, ``chains`` apply and ``threshold``, ``method``, ``grid``,
        ``rate_prior`` are refused; see :mod:`binaryeval.latent.hierarchical`);
        ``"pooled"``: one ``rho``/``eta`` from all groups' paired rows (checked first: a
        :class:`~binaryeval.PoolingWarning` when the groups' paired rows say their rates
        differ, see :meth:`BinaryFit.pooling_check`).  On the exact binary path each group's
        model takes the pooled paired rows, and only its own metric-only rows update the rates
        there (the papers' model of one system, per system), so ``rho``/``eta`` in
        :meth:`BinaryFit.to_frame` differ between groups and ``compare()`` treats the groups'
        posteriors as independent although they share those rows (which usually makes ``P``
        conservative, nearer 1/2).  The model in which every group's rows inform one shared ``rho``/``eta`` is
        :func:`binaryeval.latent.fit_latent` with ``rates="pooled"`` (sampled); it differs
        most for a group with few human ratings of its own.  Known values
        ``{"rho": .7, "eta": .7}`` or per group ``{"sys1": {"rho": .., "eta": ..}, ...}``; with
        several metrics or bins, a known 2 x J confusion matrix (see
        :func:`binaryeval.latent.fit_latent`).
    threshold : float, "balanced", "youden" or mapping, optional
        For a scalar metric: a rating is positive when ``score >= threshold``.  ``"balanced"``
        picks the observed score minimising ``|rho - eta|`` on all paired rows (the papers'
        rule), ``"youden"`` maximises ``rho + eta - 1``; a mapping gives a number or rule per
        group (a Series too, e.g. the per-group ``threshold`` of an earlier fit).
    lower_is_better : str or list of str, optional
        Metric terms whose lower scores are better: with a threshold their ratings are
        positive when ``score <= threshold``; binned (``bins=``), their bins are turned round.
    level : float
        Credible level used by ``summary``, ``to_frame`` and ``compare``.
    order : "estimate", "input" or list of str
        Order of the groups in tables and plots: by posterior mean (highest first), as the labels
        sort, or as listed (every path).
    method : {"exact", "grid"}
        Posterior engine of the binary model (see :func:`binaryeval.alpha_posterior`); the
        latent-truth model has its sampler, so ``"grid"`` is refused there.
    rate_prior : (float, float)
        Beta prior of ``rho`` and ``eta``; on the latent-truth path the Dirichlet prior
        ``[[a, b], [b, a]]`` of a metric with two outputs (refused for more outputs: give
        ``rate_concentration=`` to :func:`binaryeval.latent.fit_latent`).
    grid : (int, int, int)
        Grid sizes for ``method="grid"`` (refused with any other method).
    eval_env : int or dict
        Variables of your code the formula may read as values (numbers, strings, arrays,
        Series): a mapping, ``{}`` for none, or a stack depth (0: the code calling ``fit``; 1
        the code that called that, ...).  The same on every path.  Per-row values are read as
        columns are: a row where one is missing (NaN) is missing in the term, and a Series must
        have the data's index (another is refused: pandas would match its rows by label).
    dependence : {"joint", "independent"}, optional
        With several metric terms (``"human ~ m1 + m2 | system"``) the latent-truth model of
        :func:`binaryeval.latent.fit_latent` is fitted: ``"joint"`` (default) models the metrics'
        joint outputs given the truth, ``"independent"`` their product.
    bins : int or mapping, optional
        Enter a scalar metric binned into this many classes (edges from the paired rows'
        quantiles) through the latent-truth model, instead of thresholding it.
    seed, draws, chains
        Sampler settings of the latent-truth model (several metrics or ``bins``) and of the
        rater-noise model (``rater=``); the exact engine of one binary metric has no random
        draws and refuses them.
    rater, item : str, optional
        Columns naming who gave each rating and the item rated: the human raters err too (the
        rater-noise model, :func:`binaryeval.raters.fit_raters`); ``data`` is then long, one
        row per rating.
    raters : {"dawid-skene", "mace"}, optional
        The raters' error model with ``rater=`` (default ``"dawid-skene"``).
    error_free : str or list of str, optional
        With ``rater=``: raters read without error (their ratings are the truth).
    rater_rates : {"estimate", "hierarchical"}, optional
        With ``rater=``: each rater's confusion under a fixed prior (default ``"estimate"``),
        or drawn from a population with learnt mean and concentration (``"hierarchical"``;
        see :func:`binaryeval.raters.fit_raters`).

    Returns
    -------
    BinaryFit, LatentFit or RaterFit
        A :class:`BinaryFit` for one (thresholded) metric or none; a
        :class:`~binaryeval.latent.LatentFit` for several metrics or binned scores; a
        :class:`~binaryeval.raters.RaterFit` with ``rater=``.  Both answer
        ``to_frame()``, ``compare()``, ``posterior()``, ``rates()``, ``naive()``, ``plan()``.

    Notes
    -----
    Every argument is honoured on both paths or refused with a
    :class:`~binaryeval.ParameterError` naming it and the path.

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
    if rater is not None or item is not None or raters is not None or error_free is not None \
            or rater_rates is not None:
        return _fit_raters(formula, data, rater=rater, item=item, raters=raters,
                           error_free=error_free, rater_rates=rater_rates, prior=prior, rates=rates, level=level,
                           order=order, eval_env=eval_env, seed=seed, draws=draws,
                           chains=chains, rate_prior=rate_prior, refused={
                               "threshold": (threshold is not None, threshold),
                               "lower_is_better": (lower_is_better is not None, lower_is_better),
                               "method": (method != "exact", method),
                               "grid": (tuple(grid) != _GRID, grid),
                               "dependence": (dependence is not None, dependence),
                               "bins": (bins is not None, bins)})
    hierarchical = isinstance(rates, str) and rates == "hierarchical"
    if len(parsed.rhs) > 1 or bins is not None or dependence is not None or hierarchical:
        return _fit_latent(formula, data, parsed, dependence=dependence, bins=bins, rates=rates,
                           prior=prior, level=level, seed=seed, draws=draws, chains=chains,
                           lower_is_better=lower_is_better, order=order, eval_env=eval_env,
                           rate_prior=rate_prior, refused={
                               "threshold": (threshold is not None, threshold),
                               "method": (method != "exact", method),
                               "grid": (tuple(grid) != _GRID, grid)})
    _refuse_on_binary(seed=seed, draws=draws, chains=chains, method=method, grid=grid)
    opts = check_options(level, prior, rate_prior, rates, method, grid)
    lower = frame.metric_directions(lower_is_better, parsed, thresholded=threshold is not None)
    if not (isinstance(data, pd.DataFrame) or is_dask_frame(data)):
        raise DataError(f"data must be a pandas DataFrame, got {type(data).__name__}; "
                        "wrap it with pd.DataFrame(...)")
    _validate.unique_columns(data, referenced_names(parsed))
    hname, mname = frame.terms(parsed)
    if mname is None and threshold is not None:
        raise ParameterError("threshold given but the formula has no metric (right side 1)")
    env = formula_env(parsed, eval_env)
    summary, cuts = frame.summarise_data(parsed, data, env, threshold=threshold,
                                         lower_is_better=mname in lower)
    group_name = _group_name(parsed)
    counts, account = frame.model_counts(summary, group_name)
    threshold_value = rule = None
    diagnostics: dict[str, Any] = {}
    if cuts is not None:
        per_group = pd.Series(cuts.thresholds).reindex(counts.index)
        threshold_value = per_group if cuts.per_group else float(per_group.iloc[0])
        rule = cuts.rule
        diagnostics = {"auc": cuts.auc, "rho": cuts.rho, "eta": cuts.eta}
    return fit_model(counts, opts, order=order, paired_informs_alpha=True, formula=formula,
                     threshold=threshold_value, threshold_rule=rule, lower_is_better=lower,
                     n_rows=account.n_rows, excluded=dict(account.excluded),
                     _left_out=summary.left_out,
                     group_name=group_name, diagnostics=diagnostics,
                     call={"rates": rates, "threshold": threshold, "order": order})


#: the default of ``grid=`` (the grid of ``method="grid"``)
_GRID = (2000, 1000, 1000)

_BINARY = "one binary (or thresholded) metric or none: the exact binary model"
_LATENT = "several metric terms, bins= or dependence=: the latent-truth model"
_HIERARCHICAL = "rates='hierarchical': the latent-truth model's sampler"


def _refuse_on_binary(*, seed, draws, chains, method, grid) -> None:
    """Refuse the latent model's sampler settings on the binary path.

    The exact engine has no draws, and a grid needs the grid engine: an argument is honoured or
    refused.
    """
    given = [name for name, value, default in (("seed", seed, None), ("draws", draws, 1000),
                                               ("chains", chains, 4)) if value != default]
    if given:
        shown = ", ".join(f"{n}={v!r}" for n, v in zip(
            given, [{"seed": seed, "draws": draws, "chains": chains}[n] for n in given],
            strict=True))
        raise ParameterError(f"{shown}: sampler settings of the latent-truth model; this fit "
                             f"takes the path of {_BINARY}, whose posterior is computed exactly "
                             "with no random draws: leave them out (or add metric terms or "
                             "bins= for the latent-truth model)")
    try:
        grid_given = tuple(grid) != _GRID
    except TypeError:
        grid_given = True
    if method == "exact" and grid_given:
        raise ParameterError(f"grid={grid!r} sets the grid of method='grid'; with the exact "
                             "engine (method='exact', the default) it has no use: give "
                             "method='grid' too, or leave grid out")


def _fit_latent(formula, data, parsed, *, refused, rate_prior, **options):
    """Several metric terms or binned scores: the latent-truth model (binaryeval.latent)."""
    for name, (given, value) in refused.items():
        if not given:
            continue
        fix = {"threshold": "threshold each scalar metric in the formula, e.g. "
                            "I(chrf >= 50), or bin it with bins=",
               "method": "the latent-truth model has one sampler (seed=, draws=, chains=)",
               "grid": "it sets the grid of the binary model's method='grid'"}[name]
        path = _HIERARCHICAL if options["rates"] == "hierarchical" else _LATENT
        raise ParameterError(f"{name}={value!r} applies to one binary or thresholded metric "
                             f"(the path of {_BINARY}); this fit has {path}, which takes "
                             f"the scores as they are: {fix}")
    if is_dask_frame(data):
        raise DataError("several metric terms or bins= fit the latent-truth model, which needs "
                        "the rows in memory: pass a pandas frame (ddf.compute(), after selecting "
                        "the rows and columns the formula uses)")
    dependence_given = options["dependence"] is not None
    if options["dependence"] is None:
        options["dependence"] = "joint"
    if len(parsed.rhs) < 1:
        asked = [text for text, given in (
            ("rates='hierarchical'", options["rates"] == "hierarchical"),
            ("dependence=", dependence_given), ("bins=", options.get("bins") is not None))
            if given]
        said = " and ".join(asked) or "the latent-truth model"
        one = len(asked) < 2
        raise FormulaError(f"{said} need{'s' if one else ''} a metric on the right of '~' "
                           f"({'it models' if one else 'they model'} the metric's errors); "
                           f"with human ratings alone ('human ~ 1') leave {'it' if one else 'them'} "
                           "out: alpha is then the human ratings' Beta posterior", formula)
    a, b = _validate.beta_pair(rate_prior, "rate_prior")
    if (a, b) != (1.0, 1.0) and options["rates"] == "hierarchical":
        raise ParameterError(f"rate_prior={rate_prior!r} is the Beta prior of rho and eta of "
                             f"each group; with {_HIERARCHICAL}, they are drawn from a "
                             "population Beta whose mean and concentration are learnt (their "
                             "hyperprior is fixed): leave rate_prior out, or use "
                             "rates='estimate'")
    options["rate_concentration"] = 1.0 if (a, b) == (1.0, 1.0) else BetaRatePrior((a, b))
    return fit_latent(formula, data, **options)


_RATERS = "rater= and item=: the rater-noise model"


def _fit_raters(formula, data, *, rater, item, raters, error_free, rater_rates, refused,
                rate_prior, **options):
    """Long data with a rater column: the rater-noise model (binaryeval.raters)."""
    from ..raters import fit_raters

    given = {"rater": rater, "item": item}
    for name in ("rater", "item"):
        if given[name] is None:
            other = [f"{k}={v!r}" for k, v in (("rater", rater), ("item", item),
                                                ("raters", raters), ("error_free", error_free),
                                                ("rater_rates", rater_rates))
                     if v is not None]
            raise ParameterError(f"{', '.join(other)} asks for the rater-noise model, which "
                                 f"also needs {name}= (the column naming the "
                                 f"{'rater of each rating' if name == 'rater' else 'item rated'})"
                                 f"; without rater= and item= the fit takes the path of "
                                 f"{_BINARY} or the latent-truth model, where the human rating "
                                 "is the truth")
    for name, (flag, value) in refused.items():
        if flag:
            raise ParameterError(f"{name}={value!r} is not taken by the rater-noise model "
                                 f"({_RATERS}, one binary or categorical metric as it is); "
                                 f"it applies to the binary or latent-truth path: threshold "
                                 f"the metric in the formula, e.g. I(score >= 0.5)")
    if is_dask_frame(data):
        raise DataError("rater= fits the rater-noise model, which needs the rows in memory: "
                        "pass a pandas frame (ddf.compute())")
    a, b = _validate.beta_pair(rate_prior, "rate_prior")
    conc = 1.0 if (a, b) == (1.0, 1.0) else BetaRatePrior((a, b))
    return fit_raters(formula, data, rater=rater, item=item,
                      raters="dawid-skene" if raters is None else raters,
                      error_free=error_free, rate_concentration=conc,
                      rater_rates="estimate" if rater_rates is None else rater_rates, **options)


def _group_name(parsed: ParsedFormula) -> str:
    return ":".join(parsed.group_names) if parsed.groups else "group"
