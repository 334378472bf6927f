"""Preference ratings: ``+/=/-`` symbols (or ``1/0/-1``) as codes, and score tolerances."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..data import preference_coding
from ..errors import DataError, InputTypeError, ParameterError

#: Rating symbols and their codes (``1``: the first system is better).
SYMBOLS: dict[Any, int] = {"+": 1, "=": 0, "-": -1, ">": 1, "<": -1}

#: The numbers ``1, 0, -1`` written as text (a column read from a file that mixes them with
#: symbols holds them so); they read as the numbers do.
TEXT_NUMBERS: dict[str, int] = {"1": 1, "0": 0, "-1": -1}

_HINT = "use '+', '=', '-' or 1, 0, -1 (drop missing ratings first)"


def codes(values: Any, name: str) -> np.ndarray:
    """Map a sequence of ``+/=/-`` (or ``1/0/-1``, numbers or text) ratings to int8 codes ``1/0/-1``."""
    return coded(values, name)[0]


def coded(values: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The int8 codes ``1/0/-1`` of :func:`codes` and :func:`~binaryeval.data.preference_coding`.

    The tally (second better, ties written as the number 0, first better) is what
    :func:`~binaryeval.data.check_preference_coding` reads to refuse a winner coded 0/1.
    """
    if isinstance(values, (str, bytes)):
        raise InputTypeError(f"{name} must be a sequence of ratings, got a single string {values!r}; "
                             "pass e.g. list('++=-') or ['+', '+', '=', '-']")
    arr = values.ravel() if isinstance(values, np.ndarray) else np.asarray(values, dtype=object).ravel()
    if arr.dtype.kind == "b":
        raise DataError(f"{name} holds True/False values; preference ratings are '+', '=', '-' or 1, 0, -1")
    if arr.dtype.kind in "iuf":
        ok = np.isin(arr, (-1, 0, 1))
        if not ok.all():
            i = int(np.argmax(~ok))
            raise DataError(f"{name} has unknown rating {arr[i].item()!r} at position {i}; {_HINT}")
        out = arr.astype(np.int8)
        return out, preference_coding(out, np.ones(out.size, dtype=bool))
    # object or string values: map each distinct value once
    series = pd.Series(arr, dtype=object)
    mapping: dict[Any, int] = {}
    for value in pd.unique(series):
        code = symbol_code(value)
        if code is None:
            hit = series.isna() if pd.isna(value) else series == value
            raise DataError(f"{name} has unknown rating {value!r} at position "
                            f"{int(np.flatnonzero(hit.to_numpy())[0])}; {_HINT}")
        mapping[value] = code
    out = series.map(mapping).to_numpy(dtype=np.int8)
    numeric = series.map({value: not isinstance(value, str) or value.strip() in TEXT_NUMBERS
                          for value in mapping})
    return out, preference_coding(out, numeric.to_numpy(dtype=bool))


def symbol_code(value: Any) -> int | None:
    """The code of one rating, or None when it is not a rating."""
    if isinstance(value, str):
        text = value.strip()
        return SYMBOLS.get(text, TEXT_NUMBERS.get(text))
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, float, np.integer, np.floating)) and value in (-1, 0, 1):
        return int(value)
    return None


def tolerances(tolerance: Any, terms: tuple[str, str] | None = None) -> tuple[float, float]:
    """``(human, metric)`` tolerances from a number, a pair or a mapping.

    The mapping's keys are ``"human"`` and ``"metric"``, or the formula's two ``terms`` as
    written (the keys :func:`binaryeval.fit_preferences` takes); a side not named gets 0.
    """
    if isinstance(tolerance, Mapping):
        sides = {"human": "human", "metric": "metric"}
        if terms is not None:
            sides.update({terms[0]: "human", terms[1]: "metric"})
        unknown = [k for k in tolerance if k not in sides]
        if unknown:
            raise ParameterError(f"tolerance names {unknown[0]!r}; name the formula's terms "
                                 f"{list(terms) if terms else []} (or 'human' and 'metric')")
        named = {"human": 0.0, "metric": 0.0}
        for key, t in tolerance.items():
            named[sides[key]] = t
        pair = (named["human"], named["metric"])
    elif isinstance(tolerance, (tuple, list)):
        if len(tolerance) != 2:
            raise ParameterError(f"tolerance as a sequence must be (human, metric), got {tolerance!r}")
        pair = tuple(tolerance)
    else:
        pair = (tolerance, tolerance)
    out = []
    for side, t in zip(("human", "metric"), pair, strict=True):
        if isinstance(t, (bool, np.bool_)) or not isinstance(t, (int, float, np.integer, np.floating)) \
                or not np.isfinite(t) or t < 0:
            raise ParameterError(f"tolerance={t!r} for the {side} scores: give a finite number >= 0")
        out.append(float(t))
    return out[0], out[1]
