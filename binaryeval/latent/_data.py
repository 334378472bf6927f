"""From data frames to the counts of the latent-truth model (preferences, several metrics, bins)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from ..data import RowAccount, check_preference_coding, preference_coding, scores
from ..data import _show as show
from ..errors import DataError, FormulaError, InputTypeError, ParameterError

#: Preference classes and metric outputs, in the Favi-Score's order (+, =, -).
PREFERENCE_LABELS = ("first", "tie", "second")
_SYMBOLS = {"first": 1, "tie": 0, "second": -1, "+": 1, "=": 0, "-": -1, "1": 1, "0": 0,
            "-1": -1}
#: ratings written as words or symbols, not numbers: a tie written so is a tie, never a 0/1 winner
_WORDS = frozenset(k for k in _SYMBOLS if k not in ("1", "0", "-1"))


@dataclass
class Counts:
    """Counts per group: paired (G, K, J), human-only (G, K), metric-only (G, J)."""

    paired: np.ndarray
    human: np.ndarray
    metric: np.ndarray
    naive: np.ndarray  # (G, L_1): the first metric's outputs over every metric-rated item
    account: RowAccount
    notes: list[str] = field(default_factory=list)


def column(data: pd.DataFrame, name: Any, what: str) -> pd.Series:
    """A column of ``data`` by name, with an error naming the argument when it is absent."""
    if not isinstance(name, str):
        raise InputTypeError(f"{what}={name!r}: give the name of a column of data")
    if name not in data.columns:
        import difflib

        close = difflib.get_close_matches(name, [str(c) for c in data.columns], n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise DataError(f"{what}={name!r} is not a column of data{hint}")
    return data[name]


def tolerances(value: Any, terms: Sequence[str]) -> dict[str, float]:
    """``tolerance``: one number for every term, or a mapping ``term -> number`` (others 0)."""
    if isinstance(value, Mapping):
        unknown = [k for k in value if k not in terms]
        if unknown:
            raise ParameterError(f"tolerance names {unknown[0]!r}, which is not a term of the "
                                 f"formula; the terms are {list(terms)}")
        out = {t: 0.0 for t in terms}
        out.update({k: v.real(x, f"tolerance[{k!r}]") for k, x in value.items()})
    else:
        t = v.real(value, "tolerance")
        out = {term: t for term in terms}
    for k, t in out.items():
        if t < 0:
            raise ParameterError(f"tolerance for {k!r} is {t!r}; differences up to the tolerance "
                                 "count as ties, so it must be >= 0")
    return out


def numeric(values: pd.Series, term: str) -> np.ndarray:
    """A term's scores as floats with NaN for "not rated" (text and infinities refused)."""
    return scores(values, term, "term")


def _symbol(x: Any) -> float:
    if isinstance(x, (bool, np.bool_)):
        return np.nan
    if isinstance(x, (int, float, np.integer, np.floating)):
        return float(x) if float(x) in (-1.0, 0.0, 1.0) else np.nan
    code = _SYMBOLS.get(str(x).strip().lower())
    return np.nan if code is None else float(code)


def preference_codes(values: pd.Series, term: str, role: str = "preference") -> np.ndarray:
    """Preference ratings as 1 (first better), 0 (tie), -1 (second better), NaN missing.

    A column of the numbers 0 and 1 alone (a winner coded 0/1, or ties and first-system wins)
    is refused by :func:`binaryeval.data.check_preference_coding`; ``role`` names the column's
    part in the message (``"human preference"``).
    """
    out = np.full(len(values), np.nan)
    present = values.notna().to_numpy()
    raw = values[present]
    codes = raw.map(_symbol)
    bad = codes.isna()
    if bad.any():
        raise DataError(f"term {term!r} holds {show(raw[bad].iloc[0])}; preference ratings are -1, 0, "
                        "1 or 'first', 'tie', 'second' (second / tie / first better), NaN missing")
    out[present] = codes.to_numpy(dtype=float)
    numeric = raw.map(lambda x: not isinstance(x, str) or x.strip().lower() not in _WORDS)
    check_preference_coding(preference_coding(out[present], numeric.to_numpy(dtype=bool)),
                            term, role)
    return out


def classes_from_codes(code: np.ndarray) -> np.ndarray:
    """1/0/-1 codes to class indices 0/1/2 (first, tie, second); -1 where missing."""
    out = np.where(np.isnan(code), -1, 1 - np.nan_to_num(code)).astype(np.int64)
    return out


def sign_codes(a: np.ndarray, b: np.ndarray, tol: float) -> np.ndarray:
    """1/0/-1 from the scores ``a - b``, NaN where a score is missing.

    Ties are differences within ``tol`` as written in decimals (:func:`binaryeval.favi`'s rule).
    """
    from ..favoritism.score import preference_codes

    with np.errstate(invalid="ignore"):
        out = preference_codes(a, b, tol).astype(float)
    out[np.isnan(a) | np.isnan(b)] = np.nan
    return out


def joint_index(parts: list[np.ndarray], levels: Sequence[int]) -> np.ndarray:
    """Row-major joint pattern of per-metric indices; -1 when any part is missing."""
    missing = np.zeros(parts[0].shape, dtype=bool)
    out = np.zeros(parts[0].shape, dtype=np.int64)
    for part, lvl in zip(parts, levels, strict=True):
        missing |= part < 0
        out = out * lvl + np.maximum(part, 0)
    out[missing] = -1
    return out


def tally(group: np.ndarray, cls: np.ndarray, out: np.ndarray, first: np.ndarray,
          n_groups: int, k: int, j: int, l1: int) -> tuple[np.ndarray, ...]:
    """Count paired, human-only, metric-only items and the first metric's outputs per group.

    ``cls`` (human class), ``out`` (joint metric pattern) and ``first`` (first metric's output)
    are -1 where missing.
    """
    paired = (cls >= 0) & (out >= 0)
    human = (cls >= 0) & (out < 0)
    metric = (cls < 0) & (out >= 0)
    n = np.bincount(group[paired] * k * j + cls[paired] * j + out[paired],
                    minlength=n_groups * k * j).reshape(n_groups, k, j)
    h = np.bincount(group[human] * k + cls[human], minlength=n_groups * k).reshape(n_groups, k)
    m = np.bincount(group[metric] * j + out[metric], minlength=n_groups * j).reshape(n_groups, j)
    rated = first >= 0
    naive = np.bincount(group[rated] * l1 + first[rated],
                        minlength=n_groups * l1).reshape(n_groups, l1)
    return n, h, m, naive


def check_formula_sides(parsed, formula: str, *, groups: tuple[int, ...] | None) -> None:
    """One human term on the left, at least one metric on the right, the grouping terms.

    ``groups``: the numbers of grouping terms the model takes (None: any number, each
    combination of their values a group, as in the exact binary model).
    """
    if len(parsed.lhs) != 1:
        raise FormulaError("give one human rating term left of '~'", formula,
                           (parsed.lhs[1].start, parsed.lhs[-1].end))
    if not parsed.rhs:
        raise FormulaError("name at least one metric right of '~'", formula)
    if groups is not None and len(parsed.groups) not in groups:
        want = "no '| ...' part" if groups == (0,) else "one grouping term after '|'"
        raise FormulaError(f"this model takes {want}", formula)
    names = [*parsed.lhs_names, *parsed.rhs_names]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise FormulaError(f"the term {dup!r} appears twice; give each metric once (copy a "
                           "column under a new name to model a duplicate)", formula)


def bin_edges(scores: np.ndarray, paired: np.ndarray, bins: int, term: str,
              lower: bool = False) -> np.ndarray:
    """Interior bin edges: quantiles ``1/bins, ..., (bins-1)/bins`` of the paired rows' scores.

    Every bin must hold some paired row.  ``lower``: the scores are a lower-is-better score
    negated (messages show the score's own values).
    """
    ref = scores[paired & ~np.isnan(scores)]
    if ref.size < bins:
        raise DataError(f"term {term!r} has {ref.size} paired rows; {bins} bins need at least "
                        f"{bins} (edges come from the paired rows' quantiles)")
    values = np.unique(ref)
    if values.size < bins:
        shown = ", ".join(f"{v:g}" for v in values[:10]) + (", ..." if values.size > 10 else "")
        raise DataError(f"term {term!r}: the paired rows' scores take only {values.size} "
                        f"values ({shown}), fewer than {bins} bins; a metric that is already a "
                        f"rating (0/1 or levels) needs no bins: leave {term!r} out of bins= "
                        "(or use fewer bins)")
    edges = np.unique(np.quantile(ref, np.arange(1, bins) / bins))
    if edges.size < bins - 1:
        raise DataError(f"term {term!r}: the paired rows' scores have too many ties for {bins} "
                        f"bins (their quantiles give only {edges.size + 1} distinct bins); use "
                        "fewer bins")
    # a bin is [edge, next edge): where many paired scores tie at the lowest value the first
    # quantile is that value and the bin below it holds none of them
    held = np.bincount(np.searchsorted(edges, ref, side="right"), minlength=bins)
    if not held.all():
        empty = int(np.flatnonzero(held == 0)[0])
        if lower:
            shown = (f"above {-edges[0] + 0.0:g}" if empty == 0 else
                     f"above {-edges[empty] + 0.0:g} up to {-edges[empty - 1] + 0.0:g}")
        else:
            shown = (f"below {edges[0]:g}" if empty == 0 else
                     f"from {edges[empty - 1]:g} up to {edges[empty]:g}")
        raise DataError(f"term {term!r}: the paired rows' scores have too many ties for {bins} "
                        f"bins: the bin of scores {shown} holds none of them (their quantiles "
                        f"give only {int((held > 0).sum())} bins that hold any); use fewer bins")
    return edges


def bins_for(value: Any, terms: Sequence[str]) -> dict[str, int]:
    """``bins``: None, one count for every metric term, or a mapping ``term -> count``."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        unknown = [k for k in value if k not in terms]
        if unknown:
            raise ParameterError(f"bins={dict(value)!r} names {unknown[0]!r}, which is not a "
                                 f"metric term; the metric terms are {list(terms)}")
        return {k: v.size(x, f"bins[{k!r}]", minimum=2) for k, x in value.items()}
    n = v.size(value, "bins", minimum=2)
    return {t: n for t in terms}
