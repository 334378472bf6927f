"""The formula front door: :func:`fit` reads the formula's shape and hands the data to a model.

- one metric term (binary, or scalar with ``threshold=``) or none (``human ~ 1``): the exact binary
  model (:mod:`binaryeval.binary`), from the counts of the model frame (:mod:`.frame`);
- several metric terms, ``bins=`` or ``dependence=``: the latent-truth model
  (:func:`binaryeval.latent.fit_latent`).

A new model is a new package beside these and one more branch here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .. import _validate
from .._dask import is_dask_frame
from .._partition import formula_env, referenced_names
from ..binary.model import check_options, fit_model
from ..errors import DataError, FormulaError, ParameterError
from ..formula import ParsedFormula, parse_formula
from ..latent import fit_latent
from . import frame

__all__ = ["fit"]


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
                     group_name=group_name, diagnostics=diagnostics,
                     call={"rates": rates, "threshold": threshold, "order": order})


def _fit_latent(formula, data, parsed, *, unsupported, **options):
    """Several metric terms or binned scores: the latent-truth model (binaryeval.latent)."""
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
