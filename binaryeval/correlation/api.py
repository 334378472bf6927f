"""The formula entry point: ``correlate("human ~ bleu + chrf | system", data)``.

formula -> system scores (:mod:`.frame`) -> directions -> correlation matrix ->
:class:`~binaryeval.correlation.result.CorrelationResult`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .. import _validate
from .._dask import is_dask_frame
from .._directions import check_direction, read_lower_is_better
from .._partition import formula_env
from .._warnings import warn
from ..errors import BinaryEvalWarning
from ._args import method_arg
from ._matrices import corr_matrix
from ._partitions import dask_system_scores
from .frame import (
    AGGREGATES,
    SystemScores,
    _account,
    _check_columns,
    _check_systems,
    _combine,
    _terms,
    check_rows,
    label,
    partition_rows,
    say_merged,
    systems_left_out,
)
from .result import CorrelationResult

__all__ = ["correlate"]


def correlate(formula: str, data: pd.DataFrame, *, method: str = "pearson", level: float = 0.95,
              lower_is_better: str | Sequence[str] | None = None, aggregate: str | None = "mean",
              absolute: bool = False, eval_env: int | dict = 0) -> CorrelationResult:
    """Correlate metrics with a human score over systems: ``"human ~ bleu + chrf + comet"``.

    Parameters
    ----------
    formula : str
        ``human ~ metric_1 + metric_2 + ...`` on system-level data (one row per system), or
        ``human ~ metrics | system`` when the rows are segments (or ratings) of systems: the rows
        of each system are then combined with ``aggregate``.  Terms may be expressions
        (``I(-TER)``, ``Q("chrF++")``).
    data : DataFrame
        The scores: a pandas frame, or a Dask frame (segment rows combined per system
        partition by partition; the same table, means up to rounding).
    method : {"pearson", "spearman", "kendall"}
        Correlation coefficient.  Intervals: Fisher z (Pearson), with the Bonett & Wright (2000)
        variance for Spearman and the Fieller, Hartley & Pearson (1957) variance for Kendall.
        A rank correlation of exactly +-1 gets a proper interval, not the point (see
        :func:`~binaryeval.correlation.fisher_ci`, Notes).
    level : float
        Default confidence level.
    lower_is_better : str or list of str, optional
        Terms of either side of the formula where a lower score is better, negated before
        correlating: the human score given as error penalties (raw MQM, ``"mqm"``) or an error
        metric (``"ter"``).  The summary and ``to_frame().attrs["directions"]`` state the
        direction used for every term.
    aggregate : {"mean", "median"} or None
        With ``| system``: how the segment scores of a system become its system score, the
        ``"mean"`` (default) or the ``"median"`` of its rows.  Data with one row per system are
        used as given whatever ``aggregate`` says (the summary says so); ``None`` insists on
        that and refuses several rows per system.  Without ``| system`` every row is a system.
    absolute : bool
        Negate every metric whose correlation with the human score is negative (the WMT ``|r|``
        convention, applied consistently to the metric-metric correlations).
    eval_env : int or dict
        Variables of your code the formula may read as values (numbers, strings, arrays,
        Series): a mapping, ``{}`` for none, or a stack depth as in patsy (0: the code calling
        ``correlate``).  See :mod:`binaryeval.formula` for what a formula may contain.

    Returns
    -------
    CorrelationResult

    Raises
    ------
    FormulaError
        Unknown columns, missing ``~``.
    DataError
        Fewer than 4 systems, constant columns, non-numeric or infinite scores (the column and
        the row are named), duplicated column names, several rows per system with
        ``aggregate=None``.
    ParameterError
        A ``lower_is_better`` name that is not a term of the formula; unknown ``method`` or
        ``aggregate``.

    Warns
    -----
    BinaryEvalWarning
        With ``method="pearson"``, a metric that is an exact linear function of the human score
        (``|r| = 1``): usually a copy or rescaling of the human column.
    DirectionWarning
        Every metric correlates negatively with the human score (and ``absolute`` is False):
        the human score is probably lower-is-better (e.g. MQM penalties); the message names the
        fix, ``lower_is_better=["<human term>"]``.  Also when some metrics correlate clearly
        negatively (their interval below 0) while others correlate positively: a lower-is-better
        metric (TER) or human score left undeclared beside the others.

    Notes
    -----
    Rows with a missing value in any used column are left out (listwise, so every correlation
    uses the same systems, as the Williams test requires) and counted in ``n_excluded`` with the
    reason in ``excluded``.  With ``| system`` the system scores are computed over the rows kept.

    A *corpus-level* metric (BLEU, chrF computed on a system's whole output) is not the mean of
    its sentence scores: compute it per system (e.g. with sacrebleu's ``corpus_score``) and pass
    one row per system, with the human score averaged per system beside it.  Averaging
    sentence-level BLEU or chrF with ``| system`` gives a different metric.

    Examples
    --------
    System-level scores, the usual case (e.g. corpus BLEU and chrF per system, and TER, where
    lower is better):

    >>> from binaryeval import correlate
    >>> import pandas as pd
    >>> d = pd.DataFrame({"human": [1, 2, 3, 4, 5.5], "bleu": [10, 12, 11, 15, 16.0],
    ...                   "ter": [0.9, 0.8, 0.85, 0.6, 0.5]})
    >>> res = correlate("human ~ bleu + ter", d, lower_is_better=["ter"])
    >>> res.to_frame()[["metric", "estimate"]].round(3).values.tolist()
    [['bleu', 0.918], ['ter', 0.929]]
    >>> res.to_frame().attrs["directions"]
    {'human': 'higher is better', 'bleu': 'higher is better', 'ter': 'lower is better (negated)'}

    Segment scores with raw MQM penalties (lower is better), averaged per system:

    >>> seg = pd.DataFrame({"system": list("AABBCCDDEE"),
    ...                     "mqm": [0, 2, 1, 5, 9, 7, 3, 3, 0, 1.0],
    ...                     "chrf": [60, 58, 55, 52, 40, 44, 50, 51, 62, 59.0]})
    >>> res = correlate("mqm ~ chrf | system", seg, lower_is_better="mqm")
    >>> round(float(res.r["chrf"]), 4), res.system_scores
    (0.9757, 'mean of 2 segment scores per system')
    """
    method = method_arg(method)
    level = _validate.level(level)
    absolute = _validate.flag(absolute, "absolute")
    if aggregate is not None:
        aggregate = _validate.choice(aggregate, "aggregate", AGGREGATES)
    scores = system_scores(formula, data, aggregate=aggregate, method=method, eval_env=eval_env)
    lower = read_lower_is_better(lower_is_better, [scores.human, *scores.metrics],
                                 aliases=scores.codes)
    table = scores.table.copy()
    for term in lower:
        table[term] = -table[term]
    corr = corr_matrix(table.to_numpy(), method)
    if not absolute:
        _sign_check(corr[0, 1:], scores.human, scores.metrics, lower, n=len(table),
                    method=method, level=level)
    flipped = list(lower)
    if absolute:
        neg = [m for a, m in enumerate(scores.metrics) if corr[0, 1 + a] < 0]
        for m in neg:
            table[m] = -table[m]
        flipped = [m for m in flipped if m not in neg] + [m for m in neg if m not in flipped]
        sign = np.array([1.0] + [-1.0 if m in neg else 1.0 for m in scores.metrics])
        corr = corr * np.outer(sign, sign)
    if method == "pearson":
        _collinear_check(corr[0, 1:], scores.human, scores.metrics)
    corr.setflags(write=False)
    account = scores.account
    return CorrelationResult(
        formula=formula, method=method, level=level, human=scores.human, metrics=scores.metrics,
        n=len(table), n_rows=account.n_rows, n_used=account.n_used,
        _excluded=tuple(account.excluded.items()), aggregate=scores.aggregate,
        system_scores=scores.describe(), lower_is_better=lower, flipped=tuple(flipped),
        absolute=absolute, _scores=table, _corr=corr, _rows_per_system=scores.rows_per_system,
        _left_out=scores.left_out, _rows_left_out=scores.rows_left_out)


def system_scores(formula: str, data: pd.DataFrame, *, aggregate: str | None, method: str,
                  eval_env: int | dict) -> SystemScores:
    """Evaluate ``formula`` on ``data`` and build the system-level table (:mod:`.frame`).

    ``eval_env`` is a mapping of the variables the formula's expressions may read, or the stack
    depth of the frame whose variables they may read, as in patsy, 0 being the user's code that
    called into binaryeval.  A Dask frame is read partition by partition (see
    :mod:`._partitions`).
    """
    _check_columns(data)
    parsed, human, names = _terms(formula)
    env = formula_env(parsed, eval_env)
    if is_dask_frame(data):
        table, account, sizes, rule, left_out = dask_system_scores(parsed, data, env, human,
                                                                   names, aggregate)
        rows_left_out = None   # a Dask frame's index labels are per partition: no row is found
    else:
        rows = partition_rows(parsed, data, env, human, names, rows=True)
        say_merged(parsed, rows.kinds, rows.problem)
        check_rows(parsed, rows.n_rows, rows.present, rows.problem)
        account = _account(rows.n_rows, rows.missing_score, rows.missing_system)
        table, sizes, rule = rows.table, None, None
        if rows.group is not None:
            table, sizes, rule = _combine(table, rows.group, aggregate)
        left_out = systems_left_out(rows.seen, sizes)
        rows_left_out = rows.left_out
    _check_systems(table, method, account)
    codes = {code: label(code) for code in [*parsed.lhs_names, *parsed.rhs_names]}
    return SystemScores(table, human, tuple(names), codes, account, sizes, rule, left_out,
                        rows_left_out)


def _sign_check(r: np.ndarray, human: str, metrics: tuple[str, ...],
                lower: tuple[str, ...], *, n: int, method: str, level: float) -> None:
    """The direction check: warn once when the metrics' signs say a direction is undeclared.

    Every metric correlating negatively with the human; or some clearly (their interval below
    0) while others correlate positively.  The second case is a lower-is-better metric (TER)
    read as higher-is-better beside others, or a lower-is-better human score (MQM penalties)
    beside such a metric: either way the comparisons of metrics rank one side by its opposite.
    """
    from ._kernels import fisher_bounds

    if len(metrics) > 1 and r.max() > 0:
        _, high = fisher_bounds(r, n, level, method)
        against = [m for m, v, h in zip(metrics, r, high, strict=True) if v < 0 and h < 0]
        if against:
            values = ", ".join(f"{m} {v:.3f}" for m, v in zip(metrics, r, strict=True)
                               if m in against)
            check_direction(
                float(max(v for m, v in zip(metrics, r, strict=True) if m in against)),
                lambda: (f"metric(s) {against} correlate clearly negatively with {human!r} "
                         f"(r: {values}; their {100 * level:g}% intervals below 0) while the "
                         "others correlate positively: the comparisons of metrics would rank "
                         "them by their opposite"),
                chance=0.0, terms=[human, *metrics], sides=[tuple(against)], lower=lower,
                note=f"if {human!r} itself is lower-is-better (penalties), declare it and the "
                     "positively correlated metrics instead")
            return
    what = (f"the metric {metrics[0]!r} correlates" if len(metrics) == 1 else
            "every metric correlates")
    span = f"r = {r[0]:.3f}" if len(r) == 1 else f"r from {r.min():.3f} to {r.max():.3f}"
    check_direction(
        float(r.max()), lambda: (f"{what} negatively with {human!r} ({span}): the comparisons of "
                                 "metrics would run the wrong way"),
        chance=0.0, terms=[human, *metrics], sides=[(human,), tuple(metrics)], lower=lower,
        note="human translations among the systems, scored by metrics against another "
             "reference, can also turn the correlations round: filter them out first")


def _collinear_check(r: np.ndarray, human: str, metrics: tuple[str, ...]) -> None:
    """Warn once when a metric is an exact linear function of the human score (Pearson |r| = 1)."""
    exact = [m for m, v in zip(metrics, r, strict=True) if abs(v) >= 1 - 1e-12]
    if exact:
        warn(f"metric(s) {exact} are an exact linear function of {human!r} (Pearson |r| = 1): "
             "their interval is the single point and the Williams test ranks them above every "
             "other metric; check that no metric is a copy or a rescaling of the human score",
             BinaryEvalWarning)
