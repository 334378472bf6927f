"""The model frame of :func:`~binaryeval.favi`: formula and data to checked, directed ratings.

Scores data hold one row per (item, system) with a human and a metric score; preference data
hold one row per (item, system_a, system_b) with two ratings.  The frame keeps the rows that
have every value, counts the others by reason, refuses infinite scores and duplicated columns,
and turns lower-is-better scores around so that higher is better everywhere after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import unique_columns
from ..data import RowAccount, _show
from ..errors import DataError, FormulaError
from ..formula import ParsedFormula, parse_formula
from .direction import resolve_lower_is_better
from .ratings import codes


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


def _names_read(formula: str, item: str) -> list[str]:
    """Column names the call may read: identifiers and quoted names in the formula, and the item."""
    return [*re.findall(r"[A-Za-z_]\w*", formula), *re.findall(r"[\"']([^\"']+)[\"']", formula), item]


def _keep_complete(account: RowAccount, columns: dict[str, pd.Series]) -> np.ndarray:
    """Rows with every value present; each other row is counted once, under its first missing value."""
    keep = np.ones(account.n_rows, dtype=bool)
    for reason, values in columns.items():
        missing = values.isna().to_numpy() & keep
        account.exclude(reason, int(missing.sum()))
        keep &= ~missing
    return keep


def _finite_scores(values: pd.Series, side: str, term: str) -> np.ndarray:
    try:
        out = values.to_numpy().astype(float)
    except (TypeError, ValueError):
        raise DataError(f"{side} column {term!r} must hold numbers (scalar or ordinal scores) when data have "
                        "one row per (item, system); for preference symbols use "
                        "'| system_a + system_b'") from None
    bad = np.isinf(out)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(f"{side} column {term!r} holds {out[i]} in row {_show(values.index[i])}; scores must be "
                        "finite: set it to NaN to leave the row out (it is counted as excluded) or "
                        "replace it with a finite score")
    return out


def favi_frame(formula: str, data: pd.DataFrame, *, item: str, lower_is_better: object) -> FaviFrame:
    """Parse ``formula``, check the columns, evaluate the terms and keep the complete rows."""
    if not isinstance(data, pd.DataFrame):
        raise DataError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    parsed = _parse(formula)
    unique_columns(data, _names_read(formula, item))
    item_col = _column(data, item, "item")
    group_cols = [_column(data, t.code, "system", formula) for t in parsed.groups]
    mode = "scores" if len(group_cols) == 1 else "preferences"
    h_term, m_term = parsed.lhs[0].code, parsed.rhs[0].code
    lower = resolve_lower_is_better(lower_is_better, h_term, m_term, mode)
    evaluated = parsed.evaluate(data, eval_env={})
    human, metric = evaluated.lhs.iloc[:, 0], evaluated.rhs.iloc[:, 0]
    account = RowAccount(len(data))
    keep = _keep_complete(account, {
        f"missing item ({item})": item_col,
        **{f"missing system ({t.code})": g for t, g in zip(parsed.groups, group_cols, strict=True)},
        f"missing human score ({h_term})": human, f"missing metric score ({m_term})": metric})
    if not keep.any():
        raise DataError("no row has human score, metric score, item and system all present; "
                        f"excluded: {account.describe()}")
    systems = tuple(g[keep] for g in group_cols)
    if mode == "scores":
        h = _finite_scores(human[keep], "human", h_term) * (-1.0 if h_term in lower else 1.0)
        m = _finite_scores(metric[keep], "metric", m_term) * (-1.0 if m_term in lower else 1.0)
    else:
        h = codes(human.to_numpy()[keep], f"human column {h_term!r}")
        m = codes(metric.to_numpy()[keep], f"metric column {m_term!r}")
    return FaviFrame(mode=mode, human=h, metric=m, items=item_col[keep], systems=systems,
                     human_term=h_term, metric_term=m_term, lower_is_better=lower, account=account)
