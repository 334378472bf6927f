"""System scores of a Dask frame: segment rows combined per system, partition by partition.

Every partition runs :func:`~.frame.partition_rows` (what a pandas frame runs once) and keeps, per
system, the sum of each score and the number of rows; the sums are added up in partition order
and divided once at the end (``aggregate="mean"``; equal to pandas' means up to rounding, about
1e-15 relative).  A median needs all of a system's rows: the complete rows are grouped by system
with Dask's shuffle and each system's median taken by pandas (equal to pandas' exactly).  Without
``| system`` the rows are the systems: they are gathered as they are.  Problems are raised in the
order a single pandas frame raises them, and the row account is added up the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import _dask
from .._partition import merge_kinds, referenced_names
from ..data import RowAccount
from ..errors import DataError
from ..formula import ParsedFormula
from .frame import (
    _account,
    check_rows,
    partition_rows,
    rows_per_system,
    say_merged,
    systems_left_out,
)

_GROUP = "__system__"


@dataclass
class Sums:
    """Some partitions' row account, first problem, and scores summed per system."""

    n_rows: int
    missing_score: int
    missing_system: int
    present: np.ndarray | None
    problem: tuple | None
    sums: pd.DataFrame | None = None    # per system (| system)
    sizes: pd.Series | None = None
    rows: pd.DataFrame | None = None    # the rows themselves (no | system)
    kinds: list | None = None           # several grouping columns: their values by their text
    seen: pd.Series | None = None       # rows per system, complete or not (| system)

    def merge(self, other: Sums) -> Sums:
        """These rows followed by ``other``'s."""
        problem = self.problem
        if other.problem is not None and (problem is None or other.problem[0] < problem[0]):
            problem = other.problem
        present = (other.present if self.present is None else self.present
                   if other.present is None else self.present + other.present)

        def add(a, b):
            if a is None or b is None:
                return b if a is None else a
            return pd.concat([a, b]).groupby(level=0, sort=False, observed=False).sum()

        rows = (other.rows if self.rows is None else self.rows if other.rows is None
                else pd.concat([self.rows, other.rows]))
        return Sums(self.n_rows + other.n_rows, self.missing_score + other.missing_score,
                    self.missing_system + other.missing_system, present, problem,
                    add(self.sums, other.sums), add(self.sizes, other.sizes), rows,
                    merge_kinds(self.kinds, other.kinds), add(self.seen, other.seen))


def summarise(part: pd.DataFrame, parsed: ParsedFormula, env: dict, human: str,
              names: list[str]) -> Sums:
    """One partition's :class:`Sums`."""
    rows = partition_rows(parsed, part, env, human, names)
    out = Sums(rows.n_rows, rows.missing_score, rows.missing_system, rows.present, rows.problem,
               kinds=rows.kinds, seen=rows.seen)
    if rows.problem is not None:
        return out
    if rows.group is None:
        out.rows = rows.table
    else:
        keys = rows.group.to_numpy()
        out.sums = rows.table.groupby(keys, sort=False).sum()
        out.sizes = rows.group.value_counts(sort=False)
    return out


def kept_rows(part: pd.DataFrame, parsed: ParsedFormula, env: dict, human: str,
              names: list[str]) -> pd.DataFrame:
    """One partition's complete rows with their system (for the medians)."""
    rows = partition_rows(parsed, part, env, human, names)
    if rows.problem is not None:  # the first pass found none; the data changed in between
        raise rows.problem[1]
    return rows.table.assign(**{_GROUP: rows.group.to_numpy()})


def dask_system_scores(parsed: ParsedFormula, ddf, env: dict, human: str, names: list[str],
                       aggregate: str | None
                       ) -> tuple[pd.DataFrame, RowAccount, pd.Series | None, str | None,
                                  tuple]:
    """The system table, row account, rows per system, rule applied, systems left out."""
    columns = _dask.needed_columns(ddf.columns, referenced_names(parsed), env)
    frame = ddf if columns is None else ddf[columns]
    total = _dask.map_reduce(frame, summarise, parsed, env, human, names)
    say_merged(parsed, total.kinds, total.problem)
    check_rows(parsed, total.n_rows, total.present, total.problem)
    account = _account(total.n_rows, total.missing_score, total.missing_system)
    if total.sizes is None:
        table = total.rows if total.rows is not None else pd.DataFrame(columns=[human, *names])
        return table, account, None, None, ()
    group_name = parsed.group_names[0] if len(parsed.groups) == 1 else ":".join(
        parsed.group_names)
    sizes = rows_per_system(total.sizes).rename("rows").rename_axis(group_name)
    keys = sizes.index.to_numpy()
    if (sizes == 1).all():
        table, rule = total.sums.loc[keys], None
    elif aggregate is None:
        raise DataError(f"system {sizes.idxmax()!r} has {int(sizes.max())} rows, but "
                        "aggregate=None asks for one row per system; pass aggregate='mean' (or "
                        "'median') to combine segment scores, or give one row per system")
    elif aggregate == "mean":
        table, rule = total.sums.loc[keys].div(sizes.to_numpy(), axis=0), "mean"
    else:
        meta = pd.DataFrame({c: pd.Series([], dtype=float) for c in [human, *names]}
                            ).assign(**{_GROUP: pd.Series([], dtype=object)})
        rows = frame.map_partitions(kept_rows, parsed, env, human, names, meta=meta)
        table = rows.groupby(_GROUP).median().compute().loc[keys]
        rule = "median"
    # the index as a pandas groupby of the values gives it
    table = table.set_axis(pd.Index(list(keys))).rename_axis(group_name)
    left_out = systems_left_out(total.seen, sizes)
    return table[[human, *names]].astype(float), account, sizes, rule, left_out
