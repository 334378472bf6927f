"""Validation and 0/1 coding of rating columns, with an account of every row left out."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .errors import DataError, InputTypeError

__all__ = ["as_binary", "is_binary", "RowAccount"]


def _show(value) -> str:
    """repr of a value as a user typed it (numpy scalars as plain Python numbers)."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def _non_missing(values: pd.Series) -> pd.Series:
    return values[values.notna()]


def is_binary(values: pd.Series) -> bool:
    """True when every non-missing value is 0/1 or a boolean."""
    present = _non_missing(values)
    if present.empty:
        return True
    if present.dtype == bool or present.map(lambda v: isinstance(v, (bool, np.bool_))).all():
        return True
    try:
        numeric = pd.to_numeric(present, errors="raise")
    except (TypeError, ValueError):
        return False
    return bool(np.isin(numeric.astype(float), [0.0, 1.0]).all())


def as_binary(values: pd.Series, column: str, role: str = "human rating") -> pd.Series:
    """Code a rating column as float 0/1 with NaN for "not rated".

    Raises a clear error (naming the column and an offending value) for strings, infinities
    and numbers other than 0 and 1.
    """
    present = _non_missing(values)
    if present.empty:
        raise DataError(f"column {column!r} ({role}) is missing (NaN) in every row; "
                        "there is nothing to fit")
    if present.dtype == bool or present.map(lambda v: isinstance(v, (bool, np.bool_))).all():
        return values.map(lambda v: np.nan if pd.isna(v) else float(bool(v))).astype(float)
    numeric = pd.to_numeric(present, errors="coerce")
    bad_type = numeric.isna()
    if bad_type.any():
        example = present[bad_type].iloc[0]
        raise InputTypeError(
            f"column {column!r} ({role}) holds a non-numeric value {_show(example)} "
            f"(row {_show(present[bad_type].index[0])}); code it as 0/1 or booleans, "
            f"e.g. I({column} == 'yes')")
    arr = numeric.astype(float)
    if not np.isfinite(arr).all():
        example = arr[~np.isfinite(arr)].iloc[0]
        raise DataError(f"column {column!r} ({role}) holds {_show(example)} "
                        f"(row {_show(arr[~np.isfinite(arr)].index[0])}); ratings must be 0/1 "
                        "or NaN for 'not rated'")
    bad = ~np.isin(arr, [0.0, 1.0])
    if bad.any():
        example = arr[bad].iloc[0]
        raise DataError(
            f"column {column!r} ({role}) must be binary (0/1 or bool) but holds {_show(example)} "
            f"(row {_show(arr[bad].index[0])}); binarise it in the formula, e.g. I({column} == 0) "
            "or I(score > 0.5)")
    # positional fill: the index may repeat (e.g. rows expanded with df.loc[df.index.repeat(n)])
    out = np.full(len(values), np.nan)
    out[values.notna().to_numpy()] = arr.to_numpy()
    return pd.Series(out, index=values.index, dtype=float)


@dataclass
class RowAccount:
    """How many rows a model used and why the others were left out."""

    n_rows: int = 0
    excluded: Counter = field(default_factory=Counter)

    @property
    def n_excluded(self) -> int:
        return int(sum(self.excluded.values()))

    @property
    def n_used(self) -> int:
        return self.n_rows - self.n_excluded

    def exclude(self, reason: str, count: int) -> None:
        if count:
            self.excluded[reason] += int(count)

    def describe(self) -> str:
        if not self.excluded:
            return "none"
        return "; ".join(f"{n} {reason}" for reason, n in self.excluded.items())
