"""Confusion counts of every requested system pair, from scores or from preference ratings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._pairs import orient_codes, pair_indices, system_order
from ..data import _show, label_text, refuse_number_forms
from ..errors import DataError, ParameterError
from .frame import FaviFrame
from .score import preference_codes


@dataclass(frozen=True)
class PairCounts:
    """The counts of :func:`count_pairs`: one 3 x 3 matrix per pair, oriented as the pair."""

    systems: tuple[str, ...]
    pair_index: np.ndarray       # (n_pairs, 2) indices into systems: system 1, system 2
    counts: np.ndarray           # (n_pairs, 3, 3)
    n_skipped: np.ndarray        # items rated for one system of the pair only
    n_items: int
    n_repeated: int = 0          # preference rows rating an (item, pair) another row rates


def resolve_pairs(pairs: Any, systems: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Indices of system 1 and system 2 of each requested pair (``"all"``: natural order, ``sys2`` before ``sys10``)."""
    if isinstance(pairs, str):
        if pairs != "all":
            raise ParameterError(f"pairs={pairs!r}: give pairs='all' (every pair) or a list of "
                                 "(group_1, group_2); rated pairs have no order of systems to "
                                 "take neighbours in")
        return pair_indices(len(systems))
    idx = {s: i for i, s in enumerate(systems)}
    ia, ib = [], []
    seen: dict[frozenset, tuple] = {}
    for p in pairs:
        if not isinstance(p, (tuple, list)) or len(p) != 2:
            raise ParameterError(f"each entry of pairs= must be (group_1, group_2), got {p!r}")
        # systems are told apart by their text (label_text): 1 names the system '1'
        a, b = (str(s) for s in p)
        for s, given in zip((a, b), p, strict=True):
            if s not in idx:
                raise ParameterError(f"system {given!r} in pairs= has no row used (it is not in "
                                     "the data, or each of its rows lacks a rating the call "
                                     f"needs, e.g. a missing score); systems with rows: "
                                     f"{list(systems)}")
        if a == b:
            raise ParameterError(f"pair {p!r} compares a system with itself; give two different systems")
        key = frozenset((a, b))
        if key in seen:
            raise ParameterError(f"pairs= lists the pair {seen[key]!r} twice (again as "
                                 f"{tuple(p)!r}); give each pair once, in either order (swapping "
                                 "the systems only turns the signs round)")
        seen[key] = tuple(p)
        ia.append(idx[a])
        ib.append(idx[b])
    if not ia:
        raise ParameterError("pairs= is empty; give 'all' or at least one (group_1, group_2)")
    return np.asarray(ia, dtype=np.intp), np.asarray(ib, dtype=np.intp)


def count_from_scores(hs: np.ndarray, ms: np.ndarray, ia: np.ndarray, ib: np.ndarray,
                      tol_h: float, tol_m: float) -> tuple[np.ndarray, np.ndarray]:
    """Confusion counts for system pairs from (n_systems, n_items) score arrays with NaN = missing.

    Scores are already turned so that higher is better.  Returns counts (n_pairs, 3, 3) and the
    number of items rated for only one system of each pair.
    """
    n_sys, n_items = hs.shape
    present = ~np.isnan(hs)
    complete = bool(present.all())
    n_pairs = ia.size
    counts = np.zeros((n_pairs, 9), dtype=np.int64)
    skipped = np.zeros(n_pairs, dtype=np.int64)
    # small chunks keep the temporaries in cache; int8 codes keep the passes cheap
    chunk = max(1, min(n_pairs, 500_000 // max(n_items, 1)))
    for start in range(0, n_pairs, chunk):
        a = ia[start:start + chunk]
        b = ib[start:start + chunk]
        code_h = preference_codes(hs[a], hs[b], tol_h)
        code_m = preference_codes(ms[a], ms[b], tol_m)
        # cell index (row human, column metric) = 3 * (1 - h) + (1 - m) with h, m in {1, 0, -1}
        cell = (4 - 3 * code_h - code_m).view(np.uint8)
        if not complete:
            pa = present[a]
            pb = present[b]
            cell[~(pa & pb)] = 9
            skipped[start:start + a.size] = (pa ^ pb).sum(axis=1)
        for r in range(a.size):
            counts[start + r] = np.bincount(cell[r], minlength=10)[:9]
    return counts.reshape(n_pairs, 3, 3), skipped


def system_labels(column: pd.Series) -> pd.Series:
    """System names as text (:func:`binaryeval.data.label_text`: ``1`` and ``"1"`` are one)."""
    return label_text(column)


def score_matrices(sys_col: pd.Series, items: pd.Series, human: np.ndarray, metric: np.ndarray,
                   systems: tuple[str, ...] | None = None
                   ) -> tuple[tuple[str, ...], np.ndarray, np.ndarray, int]:
    """(n_systems, n_items) arrays of the human and metric scores, NaN where a system has none.

    ``systems`` fixes the rows (all systems of the data, when these are some of its items);
    by default the systems present, in natural order.  Returns the systems, the two arrays and the number
    of items.  An item with two rows for one system is refused.
    """
    sys_col = system_labels(sys_col)
    if systems is None:
        systems = system_order(sys_col.unique())
    s_codes = pd.Index(systems).get_indexer(sys_col)
    # items by their text, as systems and groups (1 and "1" are one item)
    i_codes, items_arr = pd.factorize(label_text(items), sort=False)
    n_sys = len(systems)
    seen = np.bincount(i_codes.astype(np.int64) * n_sys + s_codes, minlength=len(items_arr) * n_sys)
    if seen.size and seen.max() > 1:
        j = int(np.argmax(seen))
        shown = items.iloc[int(np.flatnonzero(i_codes == j // n_sys)[0])]
        raise DataError(f"item {_show(shown)} has more than one row for system "
                        f"{systems[j % n_sys]!r}; data need one row per (item, system): "
                        "average repeated ratings first (items and systems are told apart by "
                        "their text: 1 and '1' are one)")
    hs = np.full((n_sys, len(items_arr)), np.nan)
    ms = np.full_like(hs, np.nan)
    hs[s_codes, i_codes] = human
    ms[s_codes, i_codes] = metric
    return systems, hs, ms, len(items_arr)


def check_systems(systems: tuple[str, ...]) -> None:
    """Favi compares pairs: refuse data with fewer than two systems."""
    if len(systems) < 2:
        raise DataError(f"the system column has one system ({systems}); Favi compares pairs of systems")


def _from_scores(frame: FaviFrame, pairs: Any, tol: tuple[float, float]) -> PairCounts:
    systems, hs, ms, n_items = score_matrices(frame.systems[0], frame.items, frame.human,
                                              frame.metric)
    check_systems(systems)
    ia, ib = resolve_pairs(pairs, systems)
    counts, skipped = count_from_scores(hs, ms, ia, ib, tol[0], tol[1])
    return PairCounts(systems, np.column_stack([ia, ib]), counts, skipped, n_items)


def self_comparison(sa: np.ndarray, sb: np.ndarray) -> int | None:
    """Position of the first row that compares a system with itself (None: no such row)."""
    same = sa == sb
    return int(np.flatnonzero(same)[0]) if same.any() else None


def self_comparison_error(j: int, system: str) -> DataError:
    """The error for row ``j`` (position among the rows used) comparing ``system`` with itself."""
    return DataError(f"row {j} compares system {str(system)!r} with itself; each row needs two systems")


def preference_table(sa: np.ndarray, sb: np.ndarray, human: np.ndarray, metric: np.ndarray,
                     systems: tuple[str, ...]) -> np.ndarray:
    """Ratings per (lower system, higher system) and cell: a (k * k, 3, 3) table.

    Every row is oriented as :func:`binaryeval._pairs.orient_codes` orients it (lower index
    first): swapping the systems reverses both ratings.
    """
    idx = {s: i for i, s in enumerate(systems)}
    a = np.fromiter((idx[s] for s in sa), dtype=np.intp, count=sa.size)
    b = np.fromiter((idx[s] for s in sb), dtype=np.intp, count=sb.size)
    lo, hi, flip = orient_codes(a, b)
    ha = np.where(flip, -human, human)
    ma = np.where(flip, -metric, metric)
    k = len(systems)
    cell = (1 - ha.astype(np.int64)) * 3 + (1 - ma.astype(np.int64))
    return np.bincount((lo * k + hi) * 9 + cell, minlength=k * k * 9).reshape(k * k, 3, 3)


def pair_keys(items: pd.Series, sa: np.ndarray, sb: np.ndarray) -> pd.Series:
    """One text key per preference row: its item and its two systems in sorted order.

    Two rows with one key rate the same item for the same pair of systems, in either order.
    """
    first = np.where(sa <= sb, sa, sb).astype(object)
    second = np.where(sa <= sb, sb, sa).astype(object)
    text = label_text(items).to_numpy().astype(object)
    return pd.Series(text + "\x1f" + first + "\x1f" + second, index=items.index, dtype=object)


def repeated_message(n_repeated: int, n_rows: int) -> str:
    """The warning for preference rows that rate an (item, system pair) already rated."""
    return (f"{n_repeated} of {n_rows} preference rows rate an (item, system pair) that another row "
            "already rates (the systems in either order): each row counts as one comparison in n, "
            "E and the sign tests, which take the rows as independent, so when they are several "
            "raters' or runs' ratings of the same two outputs the sign tests' p-values are too "
            "small; aggregate to one rating per item and pair first (e.g. the majority), or give "
            "each rating its own item when the outputs rated differ")


def preference_pairs(table: np.ndarray, pairs: Any, systems: tuple[str, ...]
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The requested pairs' indices and confusion matrices from a :func:`preference_table`."""
    k = len(systems)
    if isinstance(pairs, str):
        resolve_pairs(pairs, systems)
        present = np.flatnonzero(table.reshape(k * k, 9).sum(axis=1))
        ia, ib = present // k, present % k
    else:
        ia, ib = resolve_pairs(pairs, systems)
    counts = table[np.minimum(ia, ib) * k + np.maximum(ia, ib)].copy()
    empty = np.flatnonzero(counts.reshape(-1, 9).sum(axis=1) == 0)
    if empty.size:
        shown = ", ".join(f"({systems[ia[i]]!r}, {systems[ib[i]]!r})" for i in empty[:3])
        more = f" and {empty.size - 3} more" if empty.size > 3 else ""
        raise ParameterError(f"{empty.size} of {ia.size} pairs have no row comparing their two "
                             f"systems: {shown}{more}; drop them from pairs, or give "
                             "pairs='all' to compare the pairs the data rate")
    swap = ia > ib
    counts[swap] = counts[swap][:, ::-1, ::-1]
    return ia, ib, counts


def _from_preferences(frame: FaviFrame, pairs: Any) -> PairCounts:
    sa = frame.systems[0].to_numpy().astype(str)
    sb = frame.systems[1].to_numpy().astype(str)
    j = self_comparison(sa, sb)
    if j is not None:
        raise self_comparison_error(j, sa[j])
    systems = system_order(set(sa) | set(sb))
    refuse_number_forms([(str(col.name), pd.api.types.is_float_dtype(col), set(labels))
                         for col, labels in zip(frame.systems, (sa, sb), strict=True)])
    table = preference_table(sa, sb, frame.human, frame.metric, systems)
    ia, ib, counts = preference_pairs(table, pairs, systems)
    n_items = int(pd.unique(label_text(frame.items).to_numpy()).size)
    n_repeated = int(pair_keys(frame.items, sa, sb).duplicated().sum())
    return PairCounts(systems, np.column_stack([ia, ib]), counts, np.zeros(ia.size, dtype=np.int64),
                      n_items, n_repeated)


def count_pairs(frame: FaviFrame, pairs: Any, tol: tuple[float, float]) -> PairCounts:
    """The confusion matrix of every requested pair of systems."""
    if frame.mode == "scores":
        return _from_scores(frame, pairs, tol)
    return _from_preferences(frame, pairs)
