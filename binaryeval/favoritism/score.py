"""The Favi-Score's weights and arithmetic, count matrices checked, preference ratings from scores."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._validate import refused, renamed
from ..data import argument_series, numbers
from ..errors import CountsError, DataError, InputTypeError
from .ratings import tolerances

if TYPE_CHECKING:  # names used only in type hints
    from numpy.typing import ArrayLike

#: The weight matrix W of the Favi-Score (rows human, columns metric, order +, =, -).
FAVI_WEIGHTS = np.array([[0, -1, -2], [1, 0, -1], [2, 1, 0]], dtype=np.int64)
FAVI_WEIGHTS.setflags(write=False)

#: Rating labels in the order of the matrix rows and columns.
LABELS = ("+", "=", "-")

#: Mask of the off-diagonal cells (the disagreements).
OFFDIAG = ~np.eye(3, dtype=bool)

#: The largest total count of a confusion matrix: ``sum(W * C)`` lies in ``[-2N, 2N]``, so
#: totals up to ``2**61`` keep every sum well inside the int64 range.
MAX_TOTAL = 2**61

UNDEFINED_MESSAGE = ("the Favi-Score is undefined (NaN): the metric agrees with the humans on every item "
                     "(E = 0 off-diagonal counts), so there is no disagreement that could favour a system")


def preference_codes(a: np.ndarray, b: np.ndarray, tol: float) -> np.ndarray:
    """``1``, ``0``, ``-1`` (int8) as ``a - b`` exceeds ``tol``, stays within it or falls below ``-tol``.

    Scores and tolerances are mostly decimals that floats hold only approximately: ``0.8 - 0.7``
    is ``0.10000000000000009`` and ``0.3 - 0.2`` is ``0.09999999999999998``.  A positive
    tolerance is therefore widened by a few units of the rounding of ``a``, ``b`` and ``tol``
    (``4 * eps * (max(|a|, |b|) + tol)``, far below any difference a score is written with),
    so that every difference equal to it in decimals is a tie.  With ``tol = 0`` the sign of
    ``a - b`` is exact and used as it is.
    """
    d = a - b
    if tol > 0:
        with np.errstate(invalid="ignore"):
            tol = tol + 4 * np.finfo(float).eps * (np.maximum(np.abs(a), np.abs(b)) + tol)
    return (d > tol).view(np.int8) - (d < -tol).view(np.int8)


def favi_from_counts(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Numerator ``sum(W * C)`` and ``E`` over a stack of matrices ``(..., 3, 3)``."""
    num = np.einsum("...ij,ij->...", counts, FAVI_WEIGHTS.astype(counts.dtype))
    e = counts[..., OFFDIAG].sum(axis=-1)
    return num, e


def ratio(num: np.ndarray, e: np.ndarray) -> np.ndarray:
    """``num / e`` with NaN where ``e = 0`` (the score is undefined there)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(e > 0, num / np.where(e > 0, e, 1), np.nan)


def aligned(first: Any, second: Any, names: tuple[str, str]) -> tuple[Any, Any]:
    """Two per-item sequences in one row order: two Series indexed by the same items are matched.

    Two Series whose indexes hold the same labels in another order are the ratings of the same
    items: ``second`` is put in the order of ``first``.  Indexes without a label in common (row
    numbers of two parts of one table) say nothing about the items, and the values are taken in
    the order given, as arrays are.  Indexes that share some labels but not all, or repeat one,
    cannot be matched either way and are refused.
    """
    if not (isinstance(first, pd.Series) and isinstance(second, pd.Series)) \
            or first.index.equals(second.index):
        return first, second
    shared = first.index.intersection(second.index)
    if shared.empty:
        return first, second
    a, b = names
    if first.index.has_duplicates or second.index.has_duplicates \
            or len(shared) != len(first) or len(shared) != len(second):
        only = [x for x in first.index if x not in shared][:3] or \
            [x for x in second.index if x not in shared][:3]
        shown = ", ".join(map(repr, only)) if only else "a repeated label"
        raise DataError(f"{a} and {b} are Series whose indexes share some labels but not all "
                        f"(e.g. {shown} in one only), so their items cannot be matched; align "
                        f"them first (e.g. {a}.align({b}, join='inner')) or pass arrays in the "
                        "same item order")
    return first, second.reindex(first.index)


def as_confusion(confusion: Any, name: str = "confusion") -> np.ndarray:
    """A checked 3 x 3 count matrix (int64 when every entry is whole, float otherwise)."""
    if isinstance(confusion, pd.DataFrame):
        confusion = confusion.to_numpy()
    try:
        arr = np.asarray(confusion, dtype=float)
    except (TypeError, ValueError):
        raise InputTypeError(f"{name} must be a 3 x 3 array of counts, got {type(confusion).__name__}; "
                             "pass e.g. [[n_pp, n_pe, n_pm], [n_ep, n_ee, n_em], [n_mp, n_me, n_mm]]") from None
    if arr.shape != (3, 3):
        raise CountsError(f"{name} must be 3 x 3 (rows human, columns metric, order +, =, -), "
                          f"got shape {arr.shape}; pass the full matrix including empty cells as 0")
    if not np.all(np.isfinite(arr)):
        raise CountsError(f"{name} has non-finite entries {arr.tolist()}; counts must be finite numbers >= 0")
    if np.any(arr < 0):
        bad = ", ".join(f"human {LABELS[i]!r} / metric {LABELS[j]!r}: {arr[i, j]:g}"
                        for i, j in zip(*np.nonzero(arr < 0), strict=True))
        raise CountsError(f"{name} has negative counts ({bad}); counts must be >= 0")
    if arr.sum() > MAX_TOTAL:
        raise CountsError(f"{name} holds {arr.sum():.4g} ratings in all, more than the largest supported "
                          f"total 2**61 = {MAX_TOTAL:.4g}: beyond it the integer sums of the score would "
                          "overflow int64; divide the counts by a common factor (the score depends only "
                          "on their proportions)")
    if np.all(arr == np.round(arr)):
        return arr.astype(np.int64)
    return arr


@renamed(first="scores_1", second="scores_2")
@refused(lower_is_better="lower_is_better names the terms of a formula; here, negate the "
                         "scores of a lower-is-better metric: preferences(-scores_1, -scores_2)",
         higher_is_better="higher scores are better by default; negate the scores of a "
                          "lower-is-better metric: preferences(-scores_1, -scores_2)")
def preferences(scores_1: ArrayLike, scores_2: ArrayLike, *, tolerance: float = 0.0) -> np.ndarray:
    """Preference ratings from the scores of two systems on the same items.

    ``+1`` when the first system's score is higher by more than ``tolerance``, ``-1`` when the
    second's is, ``0`` otherwise (paper Def. 13 with ``tolerance = 0``).

    Parameters
    ----------
    scores_1, scores_2 : array-like of float
        Scores of ``group_1`` and ``group_2``, aligned by item; higher is better (negate a
        score where lower is better).  Two Series indexed by the same items are matched
        by their index.
    tolerance : float
        Differences with ``|s1 - s2| <= tolerance`` count as equal (as written in decimals: a
        difference that floats make a hair larger, ``0.8 - 0.7`` against ``0.1``, is a tie).

    Returns
    -------
    ndarray of int8
        ``1``, ``0`` or ``-1`` per item.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval import preferences
    >>> preferences([0.9, 0.5, 0.3], [0.4, 0.5, 0.35], tolerance=0.1).tolist()
    [1, 0, 0]

    A score where lower is better (TER, MQM penalty points) is negated first:

    >>> preferences(-np.array([10, 30]), -np.array([20, 20])).tolist()
    [1, -1]
    """
    scores_1, scores_2 = aligned(scores_1, scores_2, ("scores_1", "scores_2"))
    a = numbers(argument_series(scores_1, "scores_1"), "scores_1", "argument", position=True)
    b = numbers(argument_series(scores_2, "scores_2"), "scores_2", "argument", position=True)
    if a.shape != b.shape:
        raise DataError(f"scores_1 and scores_2 must have the same length, got {a.size} and "
                        f"{b.size}; align the two systems' scores by item")
    if np.isnan(a).any() or np.isnan(b).any():
        raise DataError("scores_1/scores_2 contain missing scores (NaN); drop those items first")
    if np.isinf(a).any() or np.isinf(b).any():
        side, arr = ("scores_1", a) if np.isinf(a).any() else ("scores_2", b)
        i = int(np.flatnonzero(np.isinf(arr))[0])
        raise DataError(f"{side} holds {arr[i]} at position {i}; scores must be finite")
    tol, _ = tolerances(tolerance)
    return preference_codes(a, b, tol)
