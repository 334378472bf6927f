"""``roc``: the ROC curve of a scalar metric from a formula (the curves are :mod:`binaryeval.binary.roc`'s)."""

from __future__ import annotations

import pandas as pd

from .._directions import check_direction
from .._validate import require_pandas
from ..binary.roc import RocResult, _auc, roc_table
from ..data import RowAccount, as_binary, label_text, natural_order, refuse_all_missing
from ..errors import DataError
from ..formula import parse_formula
from .frame import _scores, metric_directions

__all__ = ["roc"]


def roc(formula: str, data: pd.DataFrame, *, lower_is_better: str | list[str] | None = None,
        pooled: bool = True, eval_env: int | dict = 0) -> RocResult:
    """ROC curve of a scalar metric per group and pooled.

    Parameters
    ----------
    formula : str
        ``"human ~ score | group"`` (the group part is optional).  ``human`` must be binary
        (e.g. ``I(mqm == 0)``); ``score`` is the scalar metric.
    data : DataFrame
        One row per output; rows missing either rating are left out and counted.
    lower_is_better : str or list of str, optional
        The score term, when its lower values are better (TER, error counts): a rating is then
        positive when ``score <= threshold``.  When the pooled curve runs below the diagonal
        (AUC < 0.5) the call warns (:class:`~binaryeval.errors.DirectionWarning`).
    pooled : bool
        Add a curve over all groups.
    eval_env : int or dict
        Variables of your code the formula may read as values (numbers, strings, arrays,
        Series; see :mod:`binaryeval.formula`): a mapping, ``{}`` for none, or a stack depth as
        in patsy.

    Returns
    -------
    RocResult
        ``auc()``, ``thresholds()`` (what each rule picks), ``to_frame()``, ``summary()``,
        ``plot()``.

    Examples
    --------
    >>> from binaryeval import roc
    >>> import pandas as pd
    >>> df = pd.DataFrame({"h": [1, 0, 1, 0, 1, 0], "s": [.9, .2, .7, .6, .4, .1],
    ...                    "g": list("aaabbb")})
    >>> round(float(roc("h ~ s | g", df).auc()["pooled"]), 4)
    0.8889

    A score where lower is better gives the same curve with ``lower_is_better``; its thresholds
    are in its own units (positive when ``penalty <= threshold``):

    >>> df["penalty"] = 1 - df["s"]
    >>> res = roc("h ~ penalty | g", df, lower_is_better="penalty")
    >>> round(float(res.auc()["pooled"]), 4)
    0.8889
    >>> rules = res.thresholds().set_index(["group", "rule"])["threshold"]
    >>> round(float(rules["pooled", "balanced"]), 4)  # 1 - 0.6, the threshold on s
    0.4
    """
    require_pandas(data, "roc()")
    parsed = parse_formula(formula, allow_multiple_rhs=False, allow_intercept_rhs=False)
    frame = parsed.evaluate(data, eval_env)
    lower = bool(metric_directions(lower_is_better, parsed, thresholded=True))
    hname = parsed.lhs_names[0]
    human = as_binary(frame.lhs.iloc[:, 0], hname)
    raw = frame.rhs.iloc[:, 0]
    refuse_all_missing({parsed.rhs_names[0]: raw}, "metric score")
    score = pd.Series(_scores(raw, parsed.rhs_names[0]), index=raw.index)
    if lower:
        score = -score
    ok = human.notna() & score.notna()
    # groups by their labels' text, as fit names them
    group = None if frame.group is None else label_text(frame.group)
    if group is not None:
        ok &= group.notna()
    curves: dict[str, pd.DataFrame] = {}
    # every paired row: the pooled curve, and the direction check (also with pooled=False)
    everything = roc_table(human[ok], score[ok])
    if group is not None:
        for g in natural_order(pd.unique(group[ok])):
            sel = ok & (group == g)
            _both_classes(human[sel], g, str(frame.group.name))
            curves[str(g)] = roc_table(human[sel], score[sel])
    if pooled or group is None:
        curves["pooled"] = everything
    account = RowAccount(len(data))
    account.exclude("missing rating or group", rows=~ok.to_numpy())
    result = RocResult(formula, curves, int(ok.sum()), int((~ok).sum()),
                       None if frame.group is None else str(frame.group.name),
                       dict(account.excluded), lower, _left_out=account.left_out(data.index))
    _check_direction(result, parsed.rhs_names[0], _auc(everything))
    return result


def _both_classes(human: pd.Series, group, group_name: str) -> None:
    """Refuse a group whose paired rows hold one human class, naming it and the way out."""
    n_pos = int((human == 1.0).sum())
    n_neg = int(len(human) - n_pos)
    if n_pos and n_neg:
        return
    raise DataError(f"group {group!r} ({group_name}) has {len(human):,} paired rows, {n_pos} "
                    f"positive and {n_neg} negative human ratings: its ROC curve needs both "
                    "human classes; leave the group out of the data, or leave the grouping out "
                    "of the formula for the pooled curve alone")


def _check_direction(result: RocResult, name: str, value: float) -> None:
    """The direction check on all paired rows: warn when their curve runs below the diagonal."""
    read = " (read as lower-is-better)" if result.lower_is_better else ""
    check_direction(
        value, lambda: (f"the score {name!r}{read} runs against the human ratings (AUC "
                        f"{value:.2f} < 0.5 on {result.n_used:,} paired rows)"),
        terms=[name], sides=[(name,)], lower=[name] if result.lower_is_better else [])
