"""The model frame's data: coding rating columns as 0/1, counting them per group, row accounting.

Everything here is vectorised: a column of a million ratings is checked and coded with a few
numpy operations (no Python call per value), so the same code serves a pandas frame in memory and
each partition of a Dask frame.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .errors import CountsError, DataError, InputTypeError

__all__ = ["COUNT_COLUMNS", "LeftOutRows", "RowAccount", "argument_series", "as_binary", "cell_codes",
           "cells_frame", "check_preference_coding", "count_binary", "count_cells", "is_binary",
           "join_label", "label_text", "numbers", "preference_coding", "refuse_all_missing"]

#: The sufficient statistics of the binary model, per group.
COUNT_COLUMNS = ("human_pos", "human_total", "metric_pos", "metric_total", "tp", "fn", "tn", "fp")


def natural_order(values) -> list:
    """Distinct values sorted as a reader expects: ``sys2`` before ``sys10``.

    Runs of digits compare as numbers, the rest as lower-case text; ties fall back to the
    original spelling, so the order is total and repeatable.

    >>> from binaryeval.data import natural_order
    >>> natural_order(["sys10", "sys2", "Sys1", "sys2"])
    ['Sys1', 'sys2', 'sys10']
    """
    def key(v):
        text = str(v)
        parts = re.split(r"(\d+)", text.lower())
        return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in parts], text
    return sorted(set(values), key=key)


def _show(value) -> str:
    """Repr of a value as a user typed it (numpy scalars as plain Python numbers)."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


# text that marks an adequate (positive) output in the codings people use
_POSITIVE_WORDS = ("yes", "y", "true", "t", "good", "adequate", "acceptable", "accept",
                   "accepted", "pass", "passed", "ok", "correct", "positive", "pos", "1")


def _recode_advice(column: str, text: pd.Series, argument: bool) -> str:
    """How to recode a text rating, without guessing which value means adequate.

    The example compares with a value that reads as positive ('yes', 'good', ...) when one is
    there; otherwise it names no value (copying a guessed one could read the ratings the wrong
    way round) and lists the values found.
    """
    values = list(dict.fromkeys(str(v) for v in text))
    shown = ", ".join(repr(v) for v in values[:6]) + (", ..." if len(values) > 6 else "")
    low = {v.strip().lower() for v in values}
    # a single letter counts only beside its partner ('y' with 'n', 't' with 'f')
    partner = {"y": "n", "t": "f"}
    positive = [v for v in values if (w := v.strip().lower()) in _POSITIVE_WORDS
                and (w not in partner or partner[w] in low)]
    if len(positive) == 1:
        target = repr(positive[0])
        tail = f" if {target} marks the adequate outputs (the text values: {shown})"
    else:
        target = "<the value that marks adequate outputs>"
        tail = f" (the text values: {shown})"
    fix = f"np.asarray({column}) == {target}" if argument else f"I({column} == {target})"
    return f"e.g. {fix}{tail}"


def _row_label(values: pd.Series, mask: np.ndarray) -> str:
    return _show(values.index[np.flatnonzero(mask)[0]])


def argument_series(values, name: str) -> pd.Series:
    """A one-dimensional argument (list, array, Series) as a Series numbered from 0.

    Parameters
    ----------
    values : array-like
        The values a caller passed (a Series keeps its dtype, e.g. ``category``).
    name : str
        The argument's name, for messages.

    Returns
    -------
    Series

    Raises
    ------
    InputTypeError
        For a single value, a string, or a table of more than one column.

    Examples
    --------
    >>> from binaryeval.data import argument_series
    >>> argument_series([1, 0, None], "human").tolist()
    [1.0, 0.0, nan]
    >>> argument_series("10", "human")
    Traceback (most recent call last):
    ...
    binaryeval.errors.InputTypeError: human must be a sequence of values (a list, array or Series), got the single value '10'
    """
    if isinstance(values, (str, bytes)) or np.ndim(values) == 0:
        raise InputTypeError(f"{name} must be a sequence of values (a list, array or Series), "
                             f"got the single value {_show(values)}")
    if isinstance(values, pd.DataFrame):
        if values.shape[1] != 1:
            raise InputTypeError(f"{name} must be one column of values, got a table of "
                                 f"{values.shape[1]} columns; pass one column, e.g. "
                                 f"{name}=frame['column']")
        values = values.iloc[:, 0]
    if isinstance(values, pd.Series):
        return values.reset_index(drop=True)
    arr = values if isinstance(values, np.ndarray) else np.asarray(values, dtype=object)
    if arr.ndim > 1 and sum(d > 1 for d in arr.shape) > 1:
        raise InputTypeError(f"{name} must be one-dimensional, got an array of shape "
                             f"{arr.shape}")
    # a list's values are read as pandas reads them (numbers with None: float with NaN)
    return pd.Series(arr.ravel() if isinstance(values, np.ndarray) else arr.ravel().tolist())


def _where(values: pd.Series, mask: np.ndarray, position: bool) -> str:
    """Where the first flagged value is: its row label, or its position in an argument."""
    if position:
        return f"position {int(np.flatnonzero(mask)[0])}"
    return f"row {_row_label(values, mask)}"


def numbers(values: pd.Series, name: str, what: str = "column", *,
            position: bool = False) -> np.ndarray:
    """The values as floats with NaN for missing; text and other non-numbers refused.

    Booleans count as numbers (True = 1); infinities are kept (the caller decides).

    Parameters
    ----------
    values : Series
    name : str
        The column, term or argument, for messages.
    what : str
        What ``name`` is (``"column"``, ``"metric column"``, ``"argument"``).
    position : bool
        Name the offending value by its position (an argument) instead of its row label.

    Returns
    -------
    ndarray of float

    Examples
    --------
    >>> import pandas as pd
    >>> from binaryeval.data import argument_series, numbers
    >>> numbers(pd.Series([0.5, None, True]), "bleu").tolist()
    [0.5, nan, 1.0]
    >>> numbers(argument_series(["0.2", "high"], "score"), "score", "argument", position=True)
    Traceback (most recent call last):
    ...
    binaryeval.errors.DataError: argument 'score' holds a non-numeric value 'high' (position 1); scores must be numbers (NaN for not rated)
    """
    values = _plain(values)
    if pd.api.types.is_bool_dtype(values.dtype) or pd.api.types.is_numeric_dtype(values.dtype):
        return values.to_numpy(dtype=float, na_value=np.nan)
    if values.dtype.kind in "mM":
        # pandas would read dates as nanoseconds since 1970: never a score by accident
        first = values.dropna()
        raise DataError(f"{what} {name!r} holds dates or durations ({values.dtype}, e.g. "
                        f"{_show(first.iloc[0]) if len(first) else 'NaT'}), not scores; turn "
                        "them into numbers first if they are meant as scores")
    score = pd.to_numeric(values, errors="coerce")
    bad = (values.notna() & score.isna()).to_numpy()
    if bad.any():
        raise DataError(f"{what} {name!r} holds a non-numeric value "
                        f"{_show(values[bad].iloc[0])} ({_where(values, bad, position)}); scores "
                        "must be numbers (NaN for not rated)")
    return score.to_numpy(dtype=float, na_value=np.nan)


def scores(values: pd.Series, name: str, what: str = "column", *,
           position: bool = False) -> np.ndarray:
    """Scores as floats with NaN for "not rated"; text and infinities refused with the row.

    Parameters
    ----------
    values : Series
        The scores as read (numbers, booleans, NaN/None; anything else is refused).
    name : str
        The column or term, for messages.
    what : str
        What ``name`` is, for messages (``"metric column"``, ``"term"``).
    position : bool
        Name the offending value by its position (an argument) instead of its row label.

    Returns
    -------
    ndarray of float

    Examples
    --------
    >>> import pandas as pd
    >>> from binaryeval.data import scores
    >>> scores(pd.Series([0.5, None, 2]), "bleu").tolist()
    [0.5, nan, 2.0]
    >>> scores(pd.Series([0.5, "high"]), "bleu")
    Traceback (most recent call last):
    ...
    binaryeval.errors.DataError: column 'bleu' holds a non-numeric value 'high' (row 1); scores must be numbers (NaN for not rated)
    """
    arr = numbers(values, name, what, position=position)
    inf = np.isinf(arr)
    if inf.any():
        raise DataError(f"{what} {name!r} holds an infinite value {arr[inf][0]} "
                        f"({_where(values, inf, position)}); replace it with NaN (not rated) or "
                        "a finite score")
    return arr


#: booleans written out, as CSV files hold them and as Dask stores a column of Python booleans
#: (its string conversion of object columns); read as booleans wherever a rating is
_TRUE_TEXT = ("True", "TRUE", "true")
_FALSE_TEXT = ("False", "FALSE", "false")


def _plain(values: pd.Series) -> pd.Series:
    """A categorical column as its values (the ratings are the categories' values)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return values.astype(object)
    return values


def _numeric(values: pd.Series) -> tuple[np.ndarray | None, np.ndarray]:
    """The values as float with NaN for missing, or None when some value is not a number.

    Returns ``(numbers, missing)``.  Booleans count as numbers (True = 1); text counts as the
    number or boolean it spells (``"1"``, ``"0.5"``, ``"True"``/``"False"``), as a CSV reader
    reads it and as Dask's string columns hold numbers and booleans; a categorical column
    counts by its values.
    """
    values = _plain(values)
    missing = values.isna().to_numpy()
    dtype = values.dtype
    if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype):
        arr = values.to_numpy(dtype=float, na_value=np.nan)
        return arr, missing
    present = values[~missing]
    if dtype == np.dtype(object):
        # mixed objects: booleans and numbers are fine, anything else is not
        kinds = present.map(type).unique() if len(present) else []
        if all(issubclass(k, (bool, np.bool_, int, float, np.integer, np.floating)) for k in kinds):
            arr = np.full(len(values), np.nan)
            arr[~missing] = present.astype(float).to_numpy()
            return arr, missing
    if (dtype == np.dtype(object) or pd.api.types.is_string_dtype(dtype)) and len(present):
        # text: read as the number or boolean it spells, as a CSV reader would (Dask stores
        # object columns, numbers and booleans included, as text); anything else is not
        text = present.astype(str)
        true = text.isin(_TRUE_TEXT).to_numpy()
        false = text.isin(_FALSE_TEXT).to_numpy()
        number = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        if (true | false | ~np.isnan(number)).all():
            arr = np.full(len(values), np.nan)
            arr[~missing] = np.where(true, 1.0, np.where(false, 0.0, number))
            return arr, missing
    return None, missing


def refuse_all_missing(columns: dict[str, pd.Series], role: str) -> None:
    """Refuse the first term that is missing in every row (a term nobody rated).

    Parameters
    ----------
    columns : dict of str to Series
        The evaluated terms by name.
    role : str
        What they are, for the message (``"metric rating"``).

    Raises
    ------
    DataError
        Naming the term, before it can make other terms' ratings look missing.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from binaryeval.data import refuse_all_missing
    >>> refuse_all_missing({"m1": pd.Series([1, 0]), "m2": pd.Series([np.nan, np.nan])},
    ...                    "metric rating")
    Traceback (most recent call last):
    ...
    binaryeval.errors.DataError: column 'm2' (metric rating) is missing (NaN) in every row; there is nothing to fit: drop it from the formula (or fill it)
    """
    for name, values in columns.items():
        if len(values) and not values.notna().any():
            raise DataError(f"column {name!r} ({role}) is missing (NaN) in every row; there is "
                            "nothing to fit: drop it from the formula (or fill it)")


def all_missing(column: str, role: str) -> DataError:
    """The error for a rating column that is missing in every row (raised by the caller).

    Examples
    --------
    >>> from binaryeval.data import all_missing
    >>> print(all_missing("mqm", "human rating"))
    column 'mqm' (human rating) is missing (NaN) in every row; there is nothing to fit
    """
    return DataError(f"column {column!r} ({role}) is missing (NaN) in every row; "
                     "there is nothing to fit")


def preference_coding(codes: np.ndarray, numeric: np.ndarray) -> np.ndarray:
    """How a preference column's ratings were written: what :func:`check_preference_coding` reads.

    Parameters
    ----------
    codes : ndarray
        The ratings read as 1 (first system better), 0 (tie), -1 (second better), NaN missing.
    numeric : ndarray of bool
        True where the rating was written as a number (or the text of one) rather than a
        symbol (``'='``, ``'tie'``, ...).

    Returns
    -------
    ndarray of int64
        ``[second better, ties written as the number 0, first better]``; the tallies of two
        parts of a column add up to the column's.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.data import preference_coding
    >>> preference_coding(np.array([1, 0, 0, np.nan]), np.array([True, True, False, True]))
    array([0, 1, 1])
    """
    codes = np.asarray(codes, dtype=float)
    zero = (codes == 0) & np.asarray(numeric, dtype=bool)
    return np.array([(codes == -1).sum(), zero.sum(), (codes == 1).sum()], dtype=np.int64)


def check_preference_coding(tally: np.ndarray, column: str, role: str, *,
                            argument: bool = False) -> None:
    """Refuse preference ratings written as the numbers 0 and 1 with no -1 among them.

    Preferences are read as 1 (the first system is better), 0 (a tie), -1 (the second is
    better).  A column of 0s and 1s alone is also how a winner is usually coded (1: the first
    wins, 0: the second wins); read as -1/0/1 every win of the second system would become a tie,
    so the column is refused until its coding is said: -1 for the second system's wins, or the
    ties written as the symbol ``'='``.  A column with a -1, or with no 0, reads one way only.

    Parameters
    ----------
    tally : ndarray
        :func:`preference_coding` of the column (summed over its parts).
    column : str
        The column or formula term, as the user wrote it.
    role : str
        What it holds, for the message (``"human preference"``).
    argument : bool
        The ratings came as a function's argument (the fix is written before the call), not as
        a formula term (the fix is written in the formula).

    Raises
    ------
    DataError
        Naming the column, the values found, both readings and the fix for each.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.data import check_preference_coding
    >>> check_preference_coding(np.array([0, 3, 5]), "human", "human preference")
    Traceback (most recent call last):
    ...
    binaryeval.errors.DataError: column 'human' (human preference) holds only the numbers 0 and 1 (3 zeros, 5 ones, no -1); preferences are read as 1 = the first system is better, 0 = a tie, -1 = the second is better, so no rating would prefer the second system. If 1 and 0 mean that the first and the second system wins (a winner coded 0/1), recode it to 1/-1, e.g. I(2 * human - 1) in the formula (I(1 - 2 * human) when 0 marks the first system's win); if 0 means a tie, write the ties as '=' in the data, e.g. data['human'].replace(0, '=')
    """
    second, zeros, first = (int(x) for x in tally)
    if second or not zeros:
        return
    if argument:
        recode = (f"2 * np.asarray({column}) - 1 (1 - 2 * np.asarray({column}) when 0 marks "
                  "the first system's win)")
        tie = f", e.g. pd.Series({column}).replace(0, '=')"
    else:
        recode = (f"I(2 * {column} - 1) in the formula (I(1 - 2 * {column}) when 0 marks the "
                  "first system's win)")
        tie = (f" in the data, e.g. data[{column!r}].replace(0, '=')" if column.isidentifier()
               else " in the data the term is computed from")
    raise DataError(
        f"column {column!r} ({role}) holds only the numbers 0 and 1 ({zeros:,} zeros, "
        f"{first:,} ones, no -1); preferences are read as 1 = the first system is better, "
        "0 = a tie, -1 = the second is better, so no rating would prefer the second system. "
        "If 1 and 0 mean that the first and the second system wins (a winner coded 0/1), "
        f"recode it to 1/-1, e.g. {recode}; if 0 means a tie, write the ties as '='{tie}")


def is_binary(values: pd.Series) -> bool:
    """True when every non-missing value is 0, 1, True or False.

    Parameters
    ----------
    values : Series

    Returns
    -------
    bool

    Examples
    --------
    >>> import pandas as pd
    >>> from binaryeval.data import is_binary
    >>> is_binary(pd.Series([0, 1, None])), is_binary(pd.Series([0.2, 1.0]))
    (True, False)
    """
    arr, missing = _numeric(values)
    if arr is None:
        return False
    present = arr[~missing]
    return bool(np.all((present == 0.0) | (present == 1.0)))


def _binarise_hint(name: str, present: np.ndarray, argument: bool) -> str:
    """How to turn numbers other than 0/1 into a binary rating (formula term or argument)."""
    def expr(op: str, value) -> str:
        value = _show(value)
        return f"np.asarray({name}) {op} {value}" if argument else f"I({name} {op} {value})"

    where = "before the call" if argument else "in the formula"
    distinct = np.unique(present)
    values = set(distinct.tolist())
    whole = bool(np.all(np.mod(distinct, 1) == 0))
    if whole and {0.0, 1.0} < values and len(values) == 3:
        # 0 and 1 and one more code: most often the mark of outputs nobody rated
        (code,) = values - {0.0, 1.0}
        rows = int(np.sum(present == code))
        shown = _show(int(code))
        missing = (f"np.where(np.asarray({name}) == {shown}, np.nan, {name})" if argument
                   else f"where({name} == {shown}, np.nan, {name})")
        other = (f"make 1 the adequate outputs and everything else 0 {where}, e.g. "
                 f"{expr('==', 1)}" if code == -1.0 else f"binarise it {where}, e.g. "
                 f"{expr('>=', 1)}")
        return (f"besides 0 and 1 it holds {shown} ({rows:,} row{'s' if rows != 1 else ''}): "
                f"if {shown} marks outputs "
                f"nobody rated, make it missing {where}, e.g. {missing}; if it is a rating, "
                f"{other}")
    if whole and values <= {-1.0, 0.0, 1.0}:
        return (f"it looks coded -1/+1: make 1 the adequate outputs and everything else 0 "
                f"{where}, e.g. {expr('==', 1)}")
    if whole:
        lo, hi = int(distinct.min()), int(distinct.max())
        # (only the values the column holds: == 1 on a scale without 1 selects nothing)
        ways = ([f"{expr('==', 1)} if 1 marks an adequate output"] if 1.0 in values else [])
        ways += ([f"{expr('==', 0)} for penalty points (MQM: 0 = no error)"]
                 if 0.0 in values else [])
        ways.append(f"a cut of the scale ({lo} to {hi}), e.g. {expr('>=', hi)}")
        return f"binarise it {where}: " + (", or ".join(ways) if len(ways) < 3 else
                                           ", ".join(ways[:-1]) + ", or " + ways[-1])
    lo, hi = float(distinct.min()), float(distinct.max())
    if 0.0 <= lo and hi <= 1.0:
        return (f"binarise it {where}, e.g. {expr('>', 0.5)} for a score whose values above "
                "0.5 mean adequate")
    # (a cut outside the values, such as > 0.5 on an averaged 1-5 scale, would rate every
    # output alike)
    ways = ([f"{expr('==', 0)} for penalty points (MQM: 0 = no error)"]
            if 0.0 in values and (lo == 0.0 or hi == 0.0) else [])
    middle = float(f"{(lo + hi) / 2:.3g}")
    ways.append(f"a cut of its range ({lo:g} to {hi:g}), e.g. {expr('>=', middle)}")
    return f"binarise it {where}: " + ", or ".join(ways)


def as_binary(values: pd.Series, column: str, role: str = "human rating", *,
              argument: bool = False) -> pd.Series:
    """Code a rating column as float 0/1 with NaN for "not rated": the one check of ratings.

    Accepted: the numbers 0 and 1 (any numeric dtype, nullable ones too), booleans, the same
    written as text (``"1"``, ``"0"``, ``"True"``/``"False"``, as CSV files and Dask's string
    columns hold them), a categorical column of such values, and NaN/None/``pd.NA`` for "not
    rated".  Anything else is
    refused, with the way to binarise it: numbers coded -1/+1, a Likert scale (1 to 5), penalty
    points or scores give a different answer than the same ratings coded 0/1, so they are never
    read as ratings.

    Parameters
    ----------
    values : Series
        The ratings.
    column : str
        The column's (or argument's) name (for error messages).
    role : str
        What the column is (for error messages), e.g. ``"metric rating"``.
    argument : bool
        ``values`` is a function's argument, not a formula term: the messages name positions
        and suggest numpy (``np.asarray(human) == 1``) instead of a formula term.

    Returns
    -------
    Series
        Float values 0.0, 1.0 or NaN, same index.

    Raises
    ------
    InputTypeError
        For strings and other non-numbers.
    DataError
        For infinities and numbers other than 0 and 1 (the message suggests how to binarise).

    Examples
    --------
    >>> import pandas as pd
    >>> from binaryeval.data import as_binary
    >>> as_binary(pd.Series([True, False, None]), "ok").tolist()
    [1.0, 0.0, nan]
    >>> as_binary(pd.Series([1, -1, 1]), "human")
    Traceback (most recent call last):
    ...
    binaryeval.errors.DataError: column 'human' (human rating) must be binary (1 = adequate, 0 = not, or booleans) but holds -1.0 (row 1); it looks coded -1/+1: make 1 the adequate outputs and everything else 0 in the formula, e.g. I(human == 1)
    """
    values = _plain(values)
    arr, missing = _numeric(values)
    what = f"argument {column!r}" if argument else f"column {column!r}"
    if missing.all():
        if argument:
            raise DataError(f"{what} ({role}) is missing (NaN) everywhere; there is nothing "
                            "to fit")
        raise all_missing(column, role)
    if arr is None:
        present = values[~missing]
        kinds = (bool, np.bool_, int, float, np.integer, np.floating)
        bad = np.array([not isinstance(v, kinds) for v in present], dtype=bool)
        # text among numbers written as text (a column read as text because of one value):
        # point at the value that is no number, the reason the column is text
        parsed = pd.to_numeric(present[bad].astype(str), errors="coerce").notna().to_numpy()
        text = ""
        if parsed.any() and not parsed.all():
            bad[np.flatnonzero(bad)[parsed]] = False
            text = " among numbers written as text (the column was read as text because of it)"
        example = present[bad].iloc[0]
        raise InputTypeError(
            f"{what} ({role}) holds a non-numeric value {_show(example)} "
            f"({_where(present, bad, argument)}){text}; code it as 0/1 or booleans, "
            + _recode_advice(column, present[bad], argument))
    infinite = np.isinf(arr)
    if infinite.any():
        raise DataError(f"{what} ({role}) holds {_show(arr[infinite][0])} "
                        f"({_where(values, infinite, argument)}); ratings must be 0/1 "
                        "or NaN for 'not rated'")
    bad = ~missing & (arr != 0.0) & (arr != 1.0)
    if bad.any():
        raise DataError(
            f"{what} ({role}) must be binary (1 = adequate, 0 = not, or booleans) but holds "
            f"{_show(arr[bad][0])} ({_where(values, bad, argument)}); "
            f"{_binarise_hint(column, arr[~missing], argument)}")
    return pd.Series(arr, index=values.index, dtype=float)


def refuse_number_forms(columns) -> None:
    """Refuse system columns that name one system by a whole number in two forms.

    ``columns``: ``(name, held as floats, its labels as text)`` per system column.  Labels are
    told apart by their text (:func:`label_text`), so a column of whole numbers that pandas
    holds as floats (one missing value makes ``1, 2, NaN`` the floats ``1.0, 2.0, NaN``) names
    ``"1.0"`` where a column of integers names ``"1"``: one system would be counted as two,
    each with part of its pairs.  A float column whose label ``"k.0"`` is ``"k"`` in another
    system column is refused, naming both columns and the fix; text labels (``"1"`` and
    ``"1.0"`` as written, two versions of a model) are left as they are.

    Examples
    --------
    >>> from binaryeval.data import refuse_number_forms
    >>> refuse_number_forms([("first", True, {"1.0", "2.0"}), ("second", False, {"2", "3"})])
    Traceback (most recent call last):
    ...
    binaryeval.errors.DataError: column 'first' holds the systems as floats ('2.0') where 'second' names '2': one system would be counted as two. Give the ids as whole numbers or text in both columns, e.g. data['first'] = data['first'].astype('Int64')
    """
    columns = [(name, bool(floats), {str(t) for t in labels}) for name, floats, labels in columns]
    for name, floats, labels in columns:
        if not floats:
            continue
        for other, _, other_labels in columns:
            if other == name:
                continue
            twice = sorted(t for t in labels if t.endswith(".0") and t[:-2] in other_labels)
            if twice:
                raise DataError(
                    f"column {name!r} holds the systems as floats ({twice[0]!r}) where "
                    f"{other!r} names {twice[0][:-2]!r}: one system would be counted as two. "
                    f"Give the ids as whole numbers or text in both columns, e.g. "
                    f"data[{name!r}] = data[{name!r}].astype('Int64')")


def label_text(values: pd.Series) -> pd.Series:
    """Labels (groups, systems, items) as text, the one rule by which they are told apart.

    A label is what its value prints as: ``1``, ``np.int64(1)`` and ``"1"`` are one label
    (``"1"``), so a column mixing them (ids read from two sources) names one item or system, not
    two that never meet; ``1`` and ``1.0`` print differently and stay two.  Missing values stay
    missing.

    Parameters
    ----------
    values : Series

    Returns
    -------
    Series
        Object dtype: ``str`` values and NaN, same index.

    Examples
    --------
    >>> import pandas as pd
    >>> from binaryeval.data import label_text
    >>> label_text(pd.Series([1, "1", None, 2.5], dtype=object)).tolist()
    ['1', '1', nan, '2.5']
    """
    missing = values.isna().to_numpy()
    text = values.astype(str).astype(object)
    if missing.any():
        text = text.mask(missing)
    return text


#: characters that make a value quoted inside a joined label
_QUOTED = re.compile(r"[:'\"\\]")


def join_label(parts) -> str:
    """The label of a row grouped by several columns: the values' text joined by ``":"``.

    A value holding ``":"``, a quote or a backslash is written quoted (Python's ``repr`` of the
    text), so that different rows never share a label: ``("x:y", "z")`` is ``'x:y':z`` and
    ``("x", "y:z")`` is ``x:'y:z'``.  A bare part holds none of those characters, and a quoted one
    starts with a quote and ends at its closing quote, so a label reads back into its parts in one
    way only.

    Parameters
    ----------
    parts : iterable of str
        The values' text (:func:`label_text`), one per grouping column.

    Returns
    -------
    str

    Examples
    --------
    >>> from binaryeval.data import join_label
    >>> join_label(["sys1", "news"]), join_label(["x:y", "z"]), join_label(["x", "y:z"])
    ('sys1:news', "'x:y':z", "x:'y:z'")
    """
    return ":".join(repr(p) if _QUOTED.search(p) else p for p in map(str, parts))


def keyed_by_label(mapping, what: str) -> dict:
    """A mapping of groups to values (known rates, thresholds) keyed by the groups' labels.

    Keys match groups by their text, as labels do (:func:`label_text`): ``{1: ...}`` is the
    entry of group ``"1"``; a tuple key names a group of several grouping columns
    (``("sys1", "news")`` is ``"sys1:news"``, :func:`join_label`).  Two keys with the same text
    are refused.

    Parameters
    ----------
    mapping : mapping
    what : str
        The argument's name, for messages.

    Returns
    -------
    dict

    Examples
    --------
    >>> from binaryeval.data import keyed_by_label
    >>> keyed_by_label({1: 0.5, ("a", "b"): 0.7}, "threshold")
    {'1': 0.5, 'a:b': 0.7}
    """
    from .errors import ParameterError

    out: dict = {}
    first: dict = {}
    for key, value in mapping.items():
        label = join_label(key) if isinstance(key, tuple) else str(key)
        if label in out:
            raise ParameterError(f"{what} has two entries for group {label!r} ({first[label]!r} "
                                 f"and {key!r}); groups are told apart by their text: keep one")
        out[label], first[label] = value, key
    return out


def count_binary(human: np.ndarray, metric: np.ndarray, group: np.ndarray,
                 order: list[str] | None = None) -> pd.DataFrame:
    """Sufficient statistics per group from coded ratings (0.0/1.0/NaN arrays).

    Parameters
    ----------
    human, metric : ndarray
        Coded ratings of each row (NaN = not rated).
    group : ndarray
        Group label of each row (strings).
    order : list of str, optional
        Groups in the order of the output's index (default: sorted labels).

    Returns
    -------
    DataFrame
        One row per group, the columns of :data:`COUNT_COLUMNS` (int64). Rows with a human rating
        only count in ``human_*``, rows with a metric rating only in ``metric_*``, rows with both
        in ``tp``/``fn``/``tn``/``fp`` (human 1 / metric 1, 1/0, 0/0, 0/1).

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.data import count_binary
    >>> h = np.array([1.0, 0.0, np.nan, 1.0])
    >>> m = np.array([1.0, np.nan, 1.0, 0.0])
    >>> count_binary(h, m, np.array(["A", "A", "A", "B"])).loc["A"].tolist()
    [0, 1, 1, 1, 1, 0, 0, 0]
    """
    codes, labels = pd.factorize(np.asarray(group), sort=True)
    table = count_cells(cell_codes(human, metric), codes, len(labels))
    counts = cells_frame(table, [str(g) for g in labels])
    if order is not None:
        counts = counts.reindex(order, fill_value=0)
    return counts


#: cell of a row by (human state, metric state), a state being 0 = missing, 1 = rated 0,
#: 2 = rated 1: 0/1 human only (positive/negative), 2/3 metric only, 4..7 tp, fn, tn, fp, 8 neither
_CELLS = np.array([8, 3, 2,  1, 6, 7,  0, 5, 4], dtype=np.intp)


def cell_codes(human: np.ndarray, metric: np.ndarray) -> np.ndarray:
    """The cell (0..8) of every row from its coded ratings (0.0/1.0/NaN).

    Cells 0/1: human rating only (1/0); 2/3: metric rating only (1/0); 4, 5, 6, 7: both, tp
    (human 1, metric 1), fn (1/0), tn (0/0), fp (0/1); 8: neither.

    Parameters
    ----------
    human, metric : ndarray
        Coded ratings of the same rows.

    Returns
    -------
    ndarray of intp

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.data import cell_codes
    >>> cell_codes(np.array([1.0, 0.0, np.nan, np.nan]), np.array([1.0, 1.0, 0.0, np.nan])).tolist()
    [4, 7, 3, 8]
    """
    h_state = (human == human).view(np.uint8) + (human == 1.0).view(np.uint8)
    m_state = (metric == metric).view(np.uint8) + (metric == 1.0).view(np.uint8)
    return _CELLS[h_state * np.uint8(3) + m_state]


def count_cells(cells: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """Rows per (group, cell): an ``(n_groups, 9)`` table of int64.

    Parameters
    ----------
    cells : ndarray of int
        :func:`cell_codes` of each row.
    group : ndarray of int
        Group of each row, ``0 .. n_groups - 1``.
    n_groups : int

    Returns
    -------
    ndarray

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.data import count_cells
    >>> count_cells(np.array([4, 4, 8]), np.array([0, 1, 1]), 2)[:, [4, 8]].tolist()
    [[1, 0], [1, 1]]
    """
    flat = np.bincount(group.astype(np.intp, copy=False) * 9 + cells, minlength=n_groups * 9)
    return flat.astype(np.int64, copy=False).reshape(n_groups, 9)


def cells_frame(table: np.ndarray, labels: list[str]) -> pd.DataFrame:
    """The counts (:data:`COUNT_COLUMNS`, one row per label) of a :func:`count_cells` table.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.data import cells_frame
    >>> cells_frame(np.array([[1, 2, 3, 4, 5, 6, 7, 8, 9]]), ["A"]).loc["A"].tolist()
    [1, 3, 3, 7, 5, 6, 7, 8]
    """
    out = np.array(table[:, :8], dtype=np.int64)   # one block (a frame of 8 arrays costs more)
    out[:, 1] += out[:, 0]
    out[:, 3] += out[:, 2]
    return pd.DataFrame(out, index=pd.Index(labels, name="group"), columns=list(COUNT_COLUMNS))


def check_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Validate a counts table (columns of :data:`COUNT_COLUMNS`) and return it as int64.

    NaN, None, booleans, negative or fractional values, duplicated group labels, and positives
    that outnumber their totals are refused with the group and column named.

    Parameters
    ----------
    frame : DataFrame
        One row per group.

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> import pandas as pd
    >>> from binaryeval.data import check_counts
    >>> check_counts(pd.DataFrame({"human_pos": [3], "human_total": [5]}, index=["A"]))["human_total"].tolist()
    [5]
    """
    from . import _validate

    if frame.index.has_duplicates:
        dup = frame.index[frame.index.duplicated()][0]
        raise CountsError(f"group {dup!r} appears more than once in the counts; sum its rows "
                          "first (counts.groupby(level=0).sum()) or give each group one row "
                          "(groups are told apart by their text: 1 and '1' are one group)")
    unknown = [c for c in frame.columns if c not in COUNT_COLUMNS]
    if unknown:
        raise CountsError(f"counts has unknown column {unknown[0]!r}; the columns are "
                          f"{list(COUNT_COLUMNS)}")
    out = pd.DataFrame(index=frame.index)
    for col in COUNT_COLUMNS:
        if col not in frame.columns:
            out[col] = np.zeros(len(frame), dtype=np.int64)
            continue
        column = frame[col]
        if column.dtype.kind in "iu" and not column.hasnans:
            # whole numbers already (a nullable integer column with a missing value goes to the
            # one-by-one check below): only their range is checked here (a value out of it
            # gets the one-by-one check below, and its message)
            arr = column.to_numpy()
            if arr.size == 0 or (arr.min() >= 0 and arr.max() <= _validate.MAX_COUNT):
                out[col] = arr.astype(np.int64)
                continue
        values = []
        for g, v in zip(frame.index, column, strict=True):
            if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)):
                raise CountsError(f"counts[{col!r}] for group {g!r} is missing ({_show(v)}); "
                                  "give a count (0 if there are none)")
            try:
                values.append(_validate.count(v, f"counts[{col!r}] for group {g!r}"))
            except InputTypeError as exc:
                raise CountsError(str(exc)) from None
        out[col] = np.asarray(values, dtype=np.int64)
    for pos, tot in (("human_pos", "human_total"), ("metric_pos", "metric_total")):
        bad = out[pos] > out[tot]
        if bad.any():
            g = out.index[bad.to_numpy()][0]
            raise CountsError(f"group {g!r}: {pos}={out.loc[g, pos]} exceeds {tot}="
                              f"{out.loc[g, tot]}; positives cannot outnumber ratings")
    return out


@dataclass(frozen=True, eq=False)
class LeftOutRows:
    """The rows a fit left out: their labels in the data's own index and the reason of each.

    Only the left-out rows are kept (a label and a small reason code each), so a fit that
    leaves out few of many rows keeps little.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from binaryeval.data import LeftOutRows
    >>> rows = LeftOutRows(pd.Index(["b", "d"], name="id"), np.array([1, 0], dtype=np.int16),
    ...                    ("missing group", "no rating"))
    >>> rows.series()
    id
    b        no rating
    d    missing group
    Name: reason, dtype: object
    """

    labels: pd.Index
    codes: np.ndarray
    reasons: tuple[str, ...]

    def __eq__(self, other: object) -> bool:
        # one truth value (pandas compares the attrs of the frames it joins)
        if not isinstance(other, LeftOutRows):
            return NotImplemented
        return (self.reasons == other.reasons and self.labels.equals(other.labels)
                and bool(np.array_equal(self.codes, other.codes)))

    __hash__ = None  # type: ignore[assignment]

    def __len__(self) -> int:
        return len(self.codes)

    def series(self) -> pd.Series:
        """The rows as a Series: the data's row labels, the reason of each (text)."""
        values = np.asarray(self.reasons, dtype=object)[self.codes] if len(self.codes) else \
            np.empty(0, dtype=object)
        return pd.Series(values, index=self.labels.copy(), dtype=object, name="reason")


@dataclass
class RowAccount:
    """How many rows a model used and why the others were left out.

    ``exclude(reason, count, rows=...)`` records which rows (their positions in the data) as well
    as how many; :meth:`left_out` turns those positions into the data's own row labels.  An
    account to which some rows were counted without their positions (or merged from partitions
    of a Dask frame) cannot say which rows: its ``rows`` is None.

    Examples
    --------
    >>> from binaryeval.data import RowAccount
    >>> acc = RowAccount(10)
    >>> acc.exclude("missing group", 2)
    >>> acc.n_used, acc.describe()
    (8, '2 missing group')
    """

    n_rows: int = 0
    excluded: Counter = field(default_factory=Counter)
    rows: dict[str, list[np.ndarray]] | None = field(default_factory=dict)

    @property
    def n_excluded(self) -> int:
        """Rows left out, over all reasons."""
        return int(sum(self.excluded.values()))

    @property
    def n_used(self) -> int:
        """Rows the model used."""
        return self.n_rows - self.n_excluded

    def exclude(self, reason: str, count: int | None = None, *,
                rows: np.ndarray | None = None) -> None:
        """Record rows left out for ``reason``: ``count`` of them, or the ``rows`` themselves.

        ``rows`` is a boolean mask over the data's rows or their positions (0-based); the count
        is then the number of rows it selects.

        Examples
        --------
        >>> import numpy as np
        >>> from binaryeval.data import RowAccount
        >>> acc = RowAccount(5)
        >>> acc.exclude("no rating", rows=np.array([False, True, False, False, True]))
        >>> dict(acc.excluded), acc.rows["no rating"][0].tolist()
        ({'no rating': 2}, [1, 4])
        """
        if rows is not None:
            rows = np.asarray(rows)
            positions = np.flatnonzero(rows) if rows.dtype == bool else \
                rows.astype(np.intp, copy=False)
            count = positions.size
        if not count:
            return
        self.excluded[reason] += int(count)
        if rows is None:
            self.rows = None
        elif self.rows is not None:
            self.rows.setdefault(reason, []).append(positions)

    def merge(self, other: RowAccount) -> RowAccount:
        """The account of two disjoint sets of rows (e.g. two partitions of a Dask frame).

        The merged account counts the rows left out but does not say which (``rows`` is None):
        positions in two partitions do not add up to positions in the whole.

        Examples
        --------
        >>> from binaryeval.data import RowAccount
        >>> a, b = RowAccount(3), RowAccount(4)
        >>> b.exclude("missing group", 1)
        >>> a.merge(b).n_used
        6
        """
        out = RowAccount(self.n_rows + other.n_rows, Counter(self.excluded), None)
        out.excluded.update(other.excluded)
        return out

    def left_out(self, index: pd.Index) -> LeftOutRows | None:
        """The rows left out, by their labels in ``index`` (the data's), in data order.

        None when the account does not know which rows (see the class).

        Examples
        --------
        >>> import pandas as pd
        >>> from binaryeval.data import RowAccount
        >>> acc = RowAccount(4)
        >>> acc.exclude("missing group", rows=[3])
        >>> acc.exclude("no rating", rows=[0])
        >>> acc.left_out(pd.Index([10, 20, 30, 40])).series().to_dict()
        {10: 'no rating', 40: 'missing group'}
        """
        if self.rows is None:
            return None
        reasons = tuple(r for r, n in self.excluded.items() if n)
        parts = [np.concatenate(self.rows[r]) for r in reasons]
        if not parts:
            return LeftOutRows(index[:0], np.empty(0, dtype=np.int16), ())
        positions = np.concatenate(parts)
        codes = np.repeat(np.arange(len(reasons), dtype=np.int16), [p.size for p in parts])
        order = np.argsort(positions, kind="stable")
        return LeftOutRows(index.take(positions[order]), codes[order], reasons)

    def describe(self) -> str:
        """The excluded rows as text, e.g. ``"2 missing group; 1 no rating"``.

        Examples
        --------
        >>> from binaryeval.data import RowAccount
        >>> RowAccount(3).describe()
        'none'
        """
        if not self.excluded:
            return "none"
        return "; ".join(f"{n} {reason}" for reason, n in self.excluded.items())
