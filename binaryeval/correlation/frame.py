"""From a formula and a data frame to the table of system scores that is correlated.

``human ~ m1 + m2`` reads one row per system; ``human ~ m1 + m2 | system`` reads several rows per
system (segments, ratings) and combines them per system with ``aggregate`` (mean or median), or
takes them as they are when every system has one row.  Every row left out is counted with its
reason, and values that cannot be scores (text, infinities) are refused with the column and row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._dask import is_dask_frame
from .._partition import code_groups, evaluate_terms, say_merged_labels
from ..data import LeftOutRows, RowAccount, _show
from ..errors import BinaryEvalError, DataError, FormulaError
from ..formula import ParsedFormula, parse_formula

AGGREGATES = ("mean", "median")


@dataclass(frozen=True)
class SystemScores:
    """The scores to correlate, one row per system, and how they were obtained."""

    table: pd.DataFrame  # columns: human, *metrics
    human: str
    metrics: tuple[str, ...]
    codes: dict[str, str]  # term code as written in the formula -> column label
    account: RowAccount
    rows_per_system: pd.Series | None  # rows combined into each system score (None: no "| g")
    aggregate: str | None  # the rule applied, None when no system had more than one row
    left_out: tuple = ()  # systems in the data without a complete row (so without a score)
    rows_left_out: LeftOutRows | None = None   # which rows were left out (a pandas frame)

    def describe(self) -> str:
        """How the rows became system scores, in words."""
        if self.rows_per_system is None:
            return "one row per system, used as given"
        if self.aggregate is None:
            return "one row per system, used as given (no aggregation)"
        low, high = int(self.rows_per_system.min()), int(self.rows_per_system.max())
        count = f"{low}" if low == high else f"{low} to {high}"
        return f"{self.aggregate} of {count} segment scores per system"


def label(code: str) -> str:
    """``Q("chrF++")`` -> ``chrF++``; other terms keep their text."""
    m = re.fullmatch(r"""Q\(\s*(['"])(.*)\1\s*\)""", code.strip())
    return m.group(2) if m else code


def _check_columns(data: object) -> None:
    if not (isinstance(data, pd.DataFrame) or is_dask_frame(data)):
        raise DataError(f"data must be a pandas DataFrame, got {type(data).__name__}; "
                        "wrap it with pd.DataFrame(...)")
    dup = data.columns[data.columns.duplicated()].unique().tolist()
    if dup:
        raise DataError(f"data has duplicated column names {dup}: a formula term cannot tell "
                        f"them apart; rename or drop the copies, e.g. "
                        "data.loc[:, ~data.columns.duplicated()]")


def _numeric(table: pd.DataFrame) -> pd.DataFrame:
    """Every column as float; text, and infinities, refused naming the column and the row.

    The error carries ``order = (check, column)``: text is looked for in every column before
    infinities, so that partitions of one frame report what the whole frame would.
    """
    for i, col in enumerate(table.columns):
        series = table[col]
        if series.dtype.kind in "mM" or isinstance(series.dtype, pd.PeriodDtype):
            # pandas would read dates as nanoseconds since 1970 (periods as their ordinals):
            # never a score by accident
            exc = DataError(f"column {col!r} holds dates or durations ({series.dtype}), not "
                            "scores; turn them into numbers first if they are meant as scores")
            exc.order = (1, i)
            raise exc
        if pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series):
            coerced = pd.to_numeric(series, errors="coerce")
        else:
            coerced = series
        if coerced.dtype.kind == "c":
            # numpy would drop the imaginary parts with a ComplexWarning
            row = coerced.index[int(np.argmax(coerced.to_numpy().imag != 0))]
            exc = DataError(f"column {col!r} holds complex numbers (row {_show(row)}: "
                            f"{_show(series[row])}); scores must be real numbers: pass the part "
                            f"meant as the score, e.g. the real part np.real(data[{col!r}])")
            exc.order = (1, i)
            raise exc
        if pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series):
            bad = coerced.isna() & series.notna()
            if bad.any():
                row = bad.idxmax()
                exc = DataError(f"column {col!r} is not numeric: row {_show(row)} holds "
                                f"{_show(series[row])}; pass numeric scores")
                exc.order = (1, i)
                raise exc
            table[col] = coerced
    table = table.astype(float)
    for i, col in enumerate(table.columns):
        inf = np.isinf(table[col].to_numpy())
        if inf.any():
            row = table.index[int(np.argmax(inf))]
            exc = DataError(f"column {col!r} holds {table[col][row]} in row {_show(row)} "
                            f"({int(inf.sum())} infinite value(s) in all); scores must be finite "
                            "numbers: fix the value, or make it NaN to leave the row out")
            exc.order = (2, i)
            raise exc
    return table


def system_order(systems: pd.Index) -> np.ndarray:
    """Positions that sort the systems as the table lists them: by value, mixed types by text.

    Categories sort by their values (not the categories' order), and a column mixing numbers
    and text (``1`` and ``"b"``), which Python cannot order, by text (then type).  The one order
    of a pandas and a Dask frame (whose reader may hold the numbers as text), so that a seeded
    resample draws the same systems.

    Examples
    --------
    >>> import pandas as pd
    >>> from binaryeval.correlation.frame import system_order
    >>> system_order(pd.Index(["b", "a", "c"])).tolist()
    [1, 0, 2]
    >>> system_order(pd.Index([2, "b", 10, "a"], dtype=object)).tolist()
    [2, 0, 3, 1]
    """
    values = systems.astype(object) if isinstance(systems.dtype, pd.CategoricalDtype) else systems
    try:
        return np.asarray(values.argsort(), dtype=np.intp)
    except TypeError:
        keys = np.array([f"{v}\0{type(v).__name__}" for v in values], dtype=object)
        return np.argsort(keys, kind="stable").astype(np.intp)


def rows_per_system(sizes: pd.Series) -> pd.Series:
    """The systems that have rows (a category without rows is no system), in table order."""
    sizes = sizes[sizes > 0]
    return sizes.iloc[system_order(sizes.index)]


def _combine(table: pd.DataFrame, group: pd.Series, aggregate: str | None
             ) -> tuple[pd.DataFrame, pd.Series, str | None]:
    """System scores from the rows of each system (``group`` aligned with ``table``)."""
    sizes = rows_per_system(group.value_counts(sort=False))
    if (sizes == 1).all():
        out = table.set_axis(group.to_numpy())
        rule = None
    elif aggregate is None:
        system = sizes.idxmax()
        raise DataError(f"system {_show(system)} has {int(sizes.max())} rows, but aggregate=None "
                        "asks for one row per system; pass aggregate='mean' (or 'median') to "
                        "combine segment scores, or give one row per system")
    else:
        out = table.groupby(group.to_numpy(), sort=False).agg(aggregate)
        rule = aggregate
    out = out.iloc[system_order(out.index)]
    out.index.name = group.name
    return out, sizes.rename("rows"), rule


def _check_systems(table: pd.DataFrame, method: str, account: RowAccount) -> None:
    n = len(table)
    if n < 4:
        raise DataError(f"only {n} systems with complete scores (rows used {account.n_used} of "
                        f"{account.n_rows}); correlation intervals and tests need at least 4 systems")
    if method == "kendall" and n < 5:
        raise DataError(f"only {n} systems: Kendall intervals need at least 5 systems")
    for col in table.columns:
        if np.ptp(table[col].to_numpy()) == 0:
            raise DataError(f"column {col!r} is constant over the {n} systems (value "
                            f"{_show(table[col].iloc[0])}); its correlation is undefined: drop it")


@dataclass
class Rows:
    """The complete rows of one partition, their systems, and the rows left out (by reason)."""

    table: pd.DataFrame | None
    group: pd.Series | None
    n_rows: int
    missing_score: int = 0
    missing_system: int = 0
    present: np.ndarray | None = None   # rows with a value in each grouping term
    problem: tuple[tuple[int, int], Exception] | None = None
    kinds: list | None = None           # several grouping columns: their values by their text
    seen: pd.Series | None = None       # rows per system before incomplete rows are left out
    left_out: LeftOutRows | None = None  # which rows were left out (when asked for)


def _group_values(groups: list[pd.Series], names: list[str], index: pd.Index,
                  kinds: list | None = None) -> pd.Series | None:
    """The group of each row as :meth:`ParsedFormula.evaluate` gives it (NaN: none).

    Several columns are joined into labels (values that print alike are one); ``kinds``
    receives their values by their text (see :func:`~binaryeval._partition.code_groups`).
    """
    if not groups:
        return None
    if len(groups) == 1:
        return groups[0].rename(names[0])
    codes, labels = code_groups(groups, kinds)
    values = np.asarray(labels + [np.nan], dtype=object)[codes]
    return pd.Series(values, index=index, name=":".join(names))


def partition_rows(parsed: ParsedFormula, data: pd.DataFrame, env: dict, human: str,
                   names: list[str], *, rows: bool = False) -> Rows:
    """Evaluate the formula on one partition and keep its complete rows; problems are kept.

    With ``rows``, the result also says which rows were left out (``left_out``).
    """
    out = Rows(None, None, len(data))
    try:
        lhs, rhs, groups = evaluate_terms(parsed, data, env)
    except BinaryEvalError as exc:
        out.problem = ((0, 0), exc)
        return out
    out.present = np.array([int(g.notna().sum()) for g in groups], dtype=np.int64)
    table = pd.concat([*lhs, *rhs], axis=1) if len(data) else pd.DataFrame(
        {c: pd.Series([], dtype=float) for c in [human, *names]})
    table.columns = [human, *names]
    try:
        table = _numeric(table)
    except DataError as exc:
        out.problem = (exc.order, exc)
        return out
    if len(groups) > 1:
        out.kinds = []
    group = _group_values(groups, parsed.group_names, data.index, out.kinds)
    complete = table.notna().all(axis=1)
    out.missing_score = int((~complete).sum())
    keep = complete
    if group is not None:
        out.seen = group.value_counts(sort=False)
        keep = complete & group.notna()
        out.missing_system = int((complete & group.isna()).sum())
        out.group = group[keep]
    out.table = table[keep]
    if rows:
        account = RowAccount(len(data))
        account.exclude("missing score", rows=~complete.to_numpy())
        if group is not None:
            account.exclude("missing system", rows=(complete & group.isna()).to_numpy())
        out.left_out = account.left_out(data.index)
    return out


def check_rows(parsed: ParsedFormula, n_rows: int, present: np.ndarray | None,
               problem: tuple[tuple[int, int], Exception] | None) -> None:
    """Raise the data's first problem in the order one pandas frame meets them."""
    if n_rows == 0:
        raise DataError("data has no rows: nothing to fit")
    if problem is not None and problem[0][0] == 0:
        raise problem[1]
    for t, n in zip(parsed.groups, present, strict=True):
        if n == 0:
            raise DataError(f"grouping column {t.code!r} is missing (NaN) in every row; "
                            "fill it or drop it from the formula")
    if problem is not None:
        raise problem[1]


def say_merged(parsed: ParsedFormula, kinds: list | None,
               problem: tuple[tuple[int, int], Exception] | None) -> None:
    """Say values of a grouping column joined as one, once for all partitions."""
    if problem is None:
        say_merged_labels(parsed.group_names, kinds)


def _account(n_rows: int, missing_score: int, missing_system: int) -> RowAccount:
    account = RowAccount(n_rows=n_rows)
    account.exclude("missing score", missing_score)
    account.exclude("missing system", missing_system)
    return account


def _terms(formula: str) -> tuple[ParsedFormula, str, list[str]]:
    parsed = parse_formula(formula, allow_groups=True, allow_multiple_rhs=True,
                           allow_intercept_rhs=False)
    if len(parsed.lhs) != 1:
        raise FormulaError(f"the left side must be one human score, got {parsed.lhs_names}", formula)
    human = label(parsed.lhs_names[0])
    names = [label(c) for c in parsed.rhs_names]
    if len(set(names)) != len(names) or human in names:
        raise DataError(f"metric names must be distinct and differ from the human score; got "
                        f"{human!r} ~ {names}")
    return parsed, human, names


def systems_left_out(seen: pd.Series | None, kept: pd.Series | None) -> tuple:
    """Systems with rows in the data but no complete row, in table order."""
    if seen is None or kept is None:
        return ()
    seen = rows_per_system(seen)
    return tuple(seen.index[~seen.index.isin(kept.index)].tolist())
