"""The model frame of :func:`~binaryeval.favi`: formula and data to checked, directed ratings.

Scores data hold one row per (item, system) with a human and a metric score; preference data
hold one row per (item, system_a, system_b) with two ratings.  The frame keeps the rows that
have every value, counts the others by reason, refuses infinite scores and duplicated columns,
and turns lower-is-better scores around so that higher is better everywhere after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._directions import read_lower_is_better
from .._partition import evaluate_terms, referenced_names
from .._validate import require_pandas, unique_columns
from ..data import LeftOutRows, RowAccount, _show, check_preference_coding, numbers
from ..errors import BinaryEvalError, DataError, FormulaError, ParameterError
from ..formula import ParsedFormula, parse_formula
from .ratings import coded


@dataclass(frozen=True)
class FaviFrame:
    """Rows used by :func:`favi`: directed scores (or rating codes), items and systems."""

    mode: str                      # "scores" or "preferences"
    human: np.ndarray              # float scores, higher is better; or int8 codes
    metric: np.ndarray
    items: pd.Series
    systems: tuple[pd.Series, ...]  # one column (scores) or two (preferences)
    human_term: str
    metric_term: str
    lower_is_better: tuple[str, ...]
    account: RowAccount
    left_out: LeftOutRows | None = None


def _parse(formula: str) -> ParsedFormula:
    parsed = parse_formula(formula, allow_groups=True, allow_multiple_rhs=False, allow_intercept_rhs=False)
    if len(parsed.lhs) != 1:
        raise FormulaError("give one human rating column left of '~'", formula,
                           (parsed.lhs[1].start, parsed.lhs[-1].end))
    if len(parsed.groups) not in (1, 2):
        raise FormulaError("name the system column after '|' ('| system'), or the two system columns of "
                           "preference data ('| system_a + system_b')", formula)
    return parsed


def _column(data: pd.DataFrame, name: str, what: str, formula: str | None = None) -> pd.Series:
    if name not in data.columns:
        msg = f"{what} column {name!r} is not in data; the columns are {list(map(str, data.columns))[:12]}"
        if formula is not None:
            raise FormulaError(msg, formula, (formula.find(name), formula.find(name) + len(name))
                               if name in formula else None)
        raise DataError(msg)
    return data[name]


def _keep_complete(account: RowAccount, columns: dict[str, pd.Series]) -> np.ndarray:
    """Rows with every value present; each other row is counted once, under its first missing value."""
    keep = np.ones(account.n_rows, dtype=bool)
    for reason, values in columns.items():
        missing = values.isna().to_numpy() & keep
        account.exclude(reason, rows=missing)
        keep &= ~missing
    return keep


def _as_float(values: pd.Series, side: str, term: str) -> np.ndarray:
    # the one reading of scores (numbers, numbers written as text; no text, no dates)
    try:
        return numbers(values, term, f"{side} column")
    except DataError as exc:
        raise DataError(f"{exc}; data with one row per (item, system) hold scalar or ordinal "
                        "scores, for preference symbols use '| system_a + system_b'") from None


def _check_finite(out: np.ndarray, values: pd.Series, side: str, term: str) -> np.ndarray:
    bad = np.isinf(out)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(f"{side} column {term!r} holds {out[i]} in row {_show(values.index[i])}; scores must be "
                        "finite: set it to NaN to leave the row out (it is counted as excluded) or "
                        "replace it with a finite score")
    return out


def _finite_scores(values: pd.Series, side: str, term: str) -> np.ndarray:
    return _check_finite(_as_float(values, side, term), values, side, term)


@dataclass(frozen=True)
class FaviSpec:
    """What the formula and the columns say, before a row is read (pandas or Dask data)."""

    parsed: ParsedFormula
    item: str
    mode: str
    human_term: str
    metric_term: str
    lower_is_better: tuple[str, ...]

    @property
    def reasons(self) -> tuple[str, ...]:
        """Why a row is left out, in the order the checks run (the first missing value)."""
        return (f"missing item ({self.item})",
                *(f"missing system ({t.code})" for t in self.parsed.groups),
                f"missing human score ({self.human_term})",
                f"missing metric score ({self.metric_term})")


def favi_spec(formula: str, data, *, item: str, lower_is_better: object) -> FaviSpec:
    """Parse ``formula`` and check it against the columns of ``data`` (a pandas or Dask frame)."""
    parsed = _parse(formula)
    unique_columns(data, [*referenced_names(parsed), item])
    _column(data, item, "item")
    for t in parsed.groups:
        _column(data, t.code, "system", formula)
    mode = "scores" if len(parsed.groups) == 1 else "preferences"
    h_term, m_term = parsed.lhs[0].code, parsed.rhs[0].code
    lower = read_lower_is_better(lower_is_better, (h_term, m_term))
    if lower and mode == "preferences":
        raise ParameterError(f"lower_is_better={list(lower)!r} applies to scores; preference "
                             "ratings ('+' = the first system is better) have no direction to flip")
    return FaviSpec(parsed, item, mode, h_term, m_term, lower)


# where a partition's problem arose: the formula, then the human and the metric scores
FORMULA, HUMAN, METRIC = 0, 1, 2


@dataclass
class FaviRows:
    """The complete rows of one partition, directed; how many rows each reason left out."""

    n_rows: int
    excluded: np.ndarray                 # rows per reason of FaviSpec.reasons
    present: np.ndarray                  # rows with a value in each grouping term
    human: np.ndarray | None = None
    metric: np.ndarray | None = None
    items: pd.Series | None = None
    systems: tuple[pd.Series, ...] = ()
    problem: tuple[tuple[int, int], BinaryEvalError] | None = None
    # preference data: how the human (row 0) and metric (row 1) ratings were written
    coding: np.ndarray = field(default_factory=lambda: np.zeros((2, 3), dtype=np.int64))
    left_out: LeftOutRows | None = None   # which rows were left out (asked of a pandas frame)

    @property
    def n_kept(self) -> int:
        """Rows with every value present."""
        return self.n_rows - int(self.excluded.sum())


def favi_rows(spec: FaviSpec, data: pd.DataFrame, *, rows: bool = False) -> FaviRows:
    """Evaluate the terms on one partition, keep the complete rows; a problem is kept, not raised.

    With ``rows``, the result also says which rows were left out (``left_out``).
    """
    n_reasons = len(spec.reasons)
    out = FaviRows(len(data), np.zeros(n_reasons, dtype=np.int64),
                   np.zeros(len(spec.parsed.groups), dtype=np.int64))
    try:
        lhs, rhs, groups = evaluate_terms(spec.parsed, data, {})
    except BinaryEvalError as exc:
        out.problem = ((FORMULA, 0), exc)
        return out
    out.present = np.array([int(g.notna().sum()) for g in groups], dtype=np.int64)
    human, metric = lhs[0], rhs[0]
    item_col = data[spec.item]
    group_cols = [data[t.code] for t in spec.parsed.groups]
    account = RowAccount(len(data))
    keep = _keep_complete(account, dict(zip(spec.reasons, [item_col, *group_cols, human, metric],
                                            strict=True)))
    out.excluded = np.array([account.excluded.get(r, 0) for r in spec.reasons], dtype=np.int64)
    if rows:
        out.left_out = account.left_out(data.index)
    # the checks in the order a single frame meets them: each column's type, then its values
    stage = (HUMAN, 0)
    try:
        if spec.mode == "scores":
            sign = {t: -1.0 if t in spec.lower_is_better else 1.0
                    for t in (spec.human_term, spec.metric_term)}
            h_kept, m_kept = human[keep], metric[keep]
            h = _as_float(h_kept, "human", spec.human_term)
            stage = (HUMAN, 1)
            h = _check_finite(h, h_kept, "human", spec.human_term) * sign[spec.human_term]
            stage = (METRIC, 0)
            m = _as_float(m_kept, "metric", spec.metric_term)
            stage = (METRIC, 1)
            m = _check_finite(m, m_kept, "metric", spec.metric_term) * sign[spec.metric_term]
        else:
            h, h_coding = coded(human.to_numpy()[keep], f"human column {spec.human_term!r}")
            stage = (METRIC, 0)
            m, m_coding = coded(metric.to_numpy()[keep], f"metric column {spec.metric_term!r}")
            out.coding = np.stack([h_coding, m_coding])
    except BinaryEvalError as exc:
        out.problem = (stage, exc)
        return out
    out.human, out.metric = h, m
    out.items = item_col[keep]
    out.systems = tuple(g[keep] for g in group_cols)
    return out


def check_rows(spec: FaviSpec, n_rows: int, excluded: np.ndarray, present: np.ndarray,
               problem: tuple[tuple[int, int], BinaryEvalError] | None) -> RowAccount:
    """Raise the data's first problem in the order one pandas frame meets them; the account."""
    if n_rows == 0:
        raise DataError("data has no rows: nothing to fit")
    if problem is not None and problem[0][0] == FORMULA:
        raise problem[1]
    for t, n in zip(spec.parsed.groups, present, strict=True):
        if n == 0:
            raise DataError(f"grouping column {t.code!r} is missing (NaN) in every row; "
                            "fill it or drop it from the formula")
    account = RowAccount(n_rows)
    for reason, n in zip(spec.reasons, excluded, strict=True):
        account.exclude(reason, int(n))
    if account.n_used == 0:
        raise DataError("no row has human score, metric score, item and system all present; "
                        f"excluded: {account.describe()}")
    if problem is not None:
        raise problem[1]
    return account


def check_coding(spec: FaviSpec, coding: np.ndarray) -> None:
    """Refuse preference columns of the numbers 0 and 1 alone (is 0 a tie or a second-system win?)."""
    if spec.mode == "preferences":
        check_preference_coding(coding[0], spec.human_term, "human preference")
        check_preference_coding(coding[1], spec.metric_term, "metric preference")


def favi_frame(formula: str, data: pd.DataFrame, *, item: str, lower_is_better: object) -> FaviFrame:
    """Parse ``formula``, check the columns, evaluate the terms and keep the complete rows."""
    require_pandas(data, "favi()")
    spec = favi_spec(formula, data, item=item, lower_is_better=lower_is_better)
    rows = favi_rows(spec, data, rows=True)
    account = check_rows(spec, rows.n_rows, rows.excluded, rows.present, rows.problem)
    check_coding(spec, rows.coding)
    return FaviFrame(mode=spec.mode, human=rows.human, metric=rows.metric, items=rows.items,
                     systems=rows.systems, human_term=spec.human_term,
                     metric_term=spec.metric_term, lower_is_better=spec.lower_is_better,
                     account=account, left_out=rows.left_out)
