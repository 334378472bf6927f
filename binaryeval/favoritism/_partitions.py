"""Favi counts of a Dask frame: the frame's checks and counts of pandas, partition by partition.

The first pass reads every partition with :func:`~.frame.favi_rows` (what a pandas frame runs
once) and keeps only a tally: the row account, the systems, the first problem (raised in the
order a single pandas frame raises them; a position among the rows used is counted from the
start of the data).  The second pass counts:

- preference data (one row per item and system pair) row by row: each partition's table of
  ratings per system pair is added up;
- scores (one row per item and system) per item: the complete rows are shuffled so that each
  item's rows meet in one partition, where its systems are compared pair by pair; the counts of
  the partitions are added up.

The counts equal those of the pandas frame exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .. import _dask
from .._pairs import system_order
from .._partition import referenced_names
from ..data import RowAccount, label_text, refuse_number_forms
from ..errors import BinaryEvalError, DataError
from .counting import (
    PairCounts,
    check_systems,
    count_from_scores,
    pair_keys,
    preference_pairs,
    preference_table,
    resolve_pairs,
    score_matrices,
    self_comparison,
    self_comparison_error,
    system_labels,
)
from .frame import FaviSpec, check_coding, check_rows, favi_rows, favi_spec

# a row comparing a system with itself is found when counting, after the frame's checks
_COUNTING = (3, 0)


def _shifted(exc: BinaryEvalError, offset: int) -> BinaryEvalError:
    """The error with a position among the rows used counted from the start of the data."""
    if not offset:
        return exc
    text = re.sub(r"(at position |^row )(\d+)", lambda m: f"{m[1]}{int(m[2]) + offset}",
                  str(exc))
    return type(exc)(text)


@dataclass
class Tally:
    """The first pass's summary of some partitions."""

    n_rows: int
    excluded: np.ndarray
    present: np.ndarray
    n_kept: int
    systems: frozenset
    problem: tuple[tuple[int, int], BinaryEvalError] | None
    coding: np.ndarray  # how the preference ratings were written (FaviRows.coding)

    def merge(self, other: Tally) -> Tally:
        """These rows followed by ``other``'s."""
        problem = self.problem
        if other.problem is not None and (problem is None or other.problem[0] < problem[0]):
            problem = (other.problem[0], _shifted(other.problem[1], self.n_kept))
        return Tally(self.n_rows + other.n_rows, self.excluded + other.excluded,
                     self.present + other.present, self.n_kept + other.n_kept,
                     self.systems | other.systems, problem, self.coding + other.coding)


def _system_names(rows, spec: FaviSpec) -> list[np.ndarray]:
    if spec.mode == "scores":
        return [system_labels(rows.systems[0]).to_numpy()]
    return [s.to_numpy().astype(str) for s in rows.systems]


def tally(part: pd.DataFrame, spec: FaviSpec) -> Tally:
    """The first pass over one partition."""
    rows = favi_rows(spec, part)
    out = Tally(rows.n_rows, rows.excluded, rows.present, 0, frozenset(), rows.problem,
                rows.coding)
    if rows.problem is not None:
        return out
    out.n_kept = rows.n_kept
    names = _system_names(rows, spec)
    out.systems = frozenset(str(s) for col in names for s in pd.unique(col))
    if spec.mode == "preferences":
        j = self_comparison(*names)
        if j is not None:
            out.problem = (_COUNTING, self_comparison_error(j, names[0][j]))
    return out


@dataclass
class PairTally:
    """The second pass's counts of some partitions."""

    counts: np.ndarray
    skipped: np.ndarray
    n_items: int = 0
    problem: BinaryEvalError | None = None

    def merge(self, other: PairTally) -> PairTally:
        """The counts of both."""
        return PairTally(self.counts + other.counts, self.skipped + other.skipped,
                         self.n_items + other.n_items, self.problem or other.problem)


def kept_scores(part: pd.DataFrame, spec: FaviSpec) -> pd.DataFrame:
    """The complete rows of one partition of scores data: item, system name, directed scores."""
    rows = favi_rows(spec, part)
    if rows.problem is not None:  # the first pass found none; the data changed in between
        raise rows.problem[1]
    # items by their text (as the pandas path counts them), so the shuffle meets "1" and 1
    return pd.DataFrame({"item": label_text(rows.items).to_numpy(),
                         "system": system_labels(rows.systems[0]).to_numpy().astype(object),
                         "human": rows.human, "metric": rows.metric})


def count_items(part: pd.DataFrame, systems: tuple[str, ...], ia: np.ndarray, ib: np.ndarray,
                tol: tuple[float, float]) -> PairTally:
    """The pair counts of the items of one partition (holding every row of its items)."""
    out = PairTally(np.zeros((ia.size, 3, 3), dtype=np.int64), np.zeros(ia.size, dtype=np.int64))
    if not len(part):
        return out
    try:
        _, hs, ms, n_items = score_matrices(part["system"], part["item"], part["human"].to_numpy(),
                                            part["metric"].to_numpy(), systems)
    except DataError as exc:
        out.problem = exc
        return out
    out.counts, out.skipped = count_from_scores(hs, ms, ia, ib, tol[0], tol[1])
    out.n_items = n_items
    return out


def count_preferences(part: pd.DataFrame, spec: FaviSpec, systems: tuple[str, ...]) -> PairTally:
    """The table of ratings per system pair of one partition of preference data."""
    rows = favi_rows(spec, part)
    if rows.problem is not None:
        raise rows.problem[1]
    sa, sb = _system_names(rows, spec)
    table = preference_table(sa, sb, rows.human, rows.metric, systems)
    return PairTally(table, np.zeros(0, dtype=np.int64))


def kept_items(part: pd.DataFrame, spec: FaviSpec) -> pd.Series:
    """The item of each complete row of one partition, as text (1 and "1" are one item)."""
    return label_text(favi_rows(spec, part).items)


def kept_pair_keys(part: pd.DataFrame, spec: FaviSpec) -> pd.Series:
    """The :func:`~.counting.pair_keys` of each complete row of one partition of preference data."""
    rows = favi_rows(spec, part)
    sa, sb = _system_names(rows, spec)
    return pair_keys(rows.items, sa, sb)


def favi_counts(formula: str, ddf, *, item: str, lower_is_better: Any, pairs: Any,
                tol: tuple[float, float]) -> tuple[FaviSpec, RowAccount, PairCounts]:
    """What :func:`~.frame.favi_frame` and :func:`~.counting.count_pairs` give, for a Dask frame."""
    spec = favi_spec(formula, ddf, item=item, lower_is_better=lower_is_better)
    columns = _dask.needed_columns(ddf.columns, referenced_names(spec.parsed), {}, extra=[item])
    frame = ddf if columns is None else ddf[columns]
    first = _dask.map_reduce(frame, tally, spec)
    problem = first.problem if first.problem is None or first.problem[0] < _COUNTING else None
    account = check_rows(spec, first.n_rows, first.excluded, first.present, problem)
    check_coding(spec, first.coding)
    if first.problem is not None:
        raise first.problem[1]
    systems = system_order(first.systems)
    if spec.mode == "preferences":
        # each column's labels are in the union: a float column names "k.0" only, so "k" beside
        # it comes from the other column
        refuse_number_forms([(t.code, t.code in ddf.columns
                              and pd.api.types.is_float_dtype(ddf[t.code].dtype), first.systems)
                             for t in spec.parsed.groups])
    if spec.mode == "scores":
        check_systems(systems)
        ia, ib = resolve_pairs(pairs, systems)
        meta = pd.DataFrame({"item": pd.Series([], dtype=object),
                             "system": pd.Series([], dtype=object),
                             "human": pd.Series([], dtype=float),
                             "metric": pd.Series([], dtype=float)})
        rows = frame.map_partitions(kept_scores, spec, meta=meta)
        counted = _dask.map_reduce(rows.shuffle(on="item"), count_items, systems, ia, ib, tol)
        if counted.problem is not None:
            raise counted.problem
        return spec, account, PairCounts(systems, np.column_stack([ia, ib]), counted.counts,
                                         counted.skipped, counted.n_items)
    items = frame.map_partitions(kept_items, spec, meta=pd.Series([], dtype=object, name=item))
    keys = frame.map_partitions(kept_pair_keys, spec, meta=pd.Series([], dtype=object))
    # one computation for all three (an expression and a delayed task; mixing them warns)
    table, n_items, n_keys = _dask.compute(_dask.tree_reduce(frame, count_preferences, spec, systems),
                                           items.nunique().to_delayed(), keys.nunique().to_delayed())
    ia, ib, counts = preference_pairs(table.counts, pairs, systems)
    return spec, account, PairCounts(systems, np.column_stack([ia, ib]), counts,
                                     np.zeros(ia.size, dtype=np.int64), int(n_items),
                                     account.n_used - int(n_keys))
