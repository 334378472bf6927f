"""Dask data frames: recognising them, reading only the columns a formula needs, map-reduce.

The models need counts or sums per group, so a Dask frame is summarised partition by partition
by the same function that summarises a pandas frame (one partition), and the summaries are
merged in partition order (a tree of merges, so that no task holds more than a few of them).
The work runs on Dask's current scheduler: a ``distributed.Client`` when one is active
(``binaryeval ... --dask`` or ``--scheduler ADDRESS`` starts or joins one), else Dask's threads.

Dask is imported only when a Dask frame is given.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from functools import reduce
from typing import Any

__all__ = ["compute", "is_dask_frame", "map_reduce", "needed_columns", "tree_reduce"]

#: summaries merged by one task of the tree
FAN_IN = 8


def is_dask_frame(data: Any) -> bool:
    """Whether ``data`` is a Dask DataFrame (False without Dask installed or imported).

    Examples
    --------
    >>> from binaryeval._dask import is_dask_frame
    >>> import pandas as pd
    >>> is_dask_frame(pd.DataFrame({"a": [1]}))
    False
    """
    module = sys.modules.get("dask.dataframe")
    return module is not None and isinstance(data, module.DataFrame)


def needed_columns(columns: Iterable[Any], names: Iterable[str], env: dict[str, Any],
                   extra: Iterable[str] = ()) -> list | None:
    """The columns a call reads: the names it mentions that are columns, in the frame's order.

    Parameters
    ----------
    columns : iterable
        The frame's columns.
    names : iterable of str
        Names the formula mentions (see :func:`binaryeval._partition.referenced_names`).
    env : dict
        Names the formula may take from outside the data.
    extra : iterable of str
        Further columns the call reads (e.g. an item column).

    Returns
    -------
    list or None
        None when a name is neither a column nor known otherwise: every column is then read,
        so that the formula's error lists them all.

    Examples
    --------
    >>> from binaryeval._dask import needed_columns
    >>> needed_columns(["h", "m", "unused"], ["h", "I", "m"], {"I": None})
    ['h', 'm']
    """
    import numpy as np
    import pandas as pd

    columns = list(columns)
    wanted = set(names) | set(extra)
    known = set(map(str, columns))
    for name in sorted(wanted - known):
        value = env.get(name)
        if isinstance(value, (np.ndarray, pd.Series)) and np.ndim(value) > 0:
            from .errors import FormulaError

            raise FormulaError(f"the formula reads the variable {name!r}, a "
                               f"{type(value).__name__} of values per row; a Dask frame's "
                               "partitions each hold part of the rows, so per-row values must "
                               f"be a column: add {name!r} to the data (data.assign(...) "
                               "before dask.dataframe.from_pandas, or in the files)")
    for name in wanted:
        if name not in known and name not in env:
            return None
    out = [c for c in columns if isinstance(c, str) and c in wanted]
    return out or columns[:1]


def _merge_all(*summaries):
    return reduce(lambda a, b: a.merge(b), summaries)


def tree_reduce(ddf, summarise: Callable[..., Any], *args: Any, columns: list | None = None):
    """The task (a ``dask.delayed``) whose result :func:`map_reduce` computes."""
    import dask

    frame = ddf if columns is None else ddf[columns]
    tasks = [dask.delayed(summarise, pure=True)(part, *args) for part in frame.to_delayed()]
    while len(tasks) > 1:
        tasks = [dask.delayed(_merge_all, pure=True)(*tasks[i:i + FAN_IN])
                 for i in range(0, len(tasks), FAN_IN)]
    return tasks[0]


def map_reduce(ddf, summarise: Callable[..., Any], *args: Any, columns: list | None = None):
    """``summarise(partition, *args)`` on every partition, merged in partition order.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        The data.
    summarise : callable
        Returns an object with ``merge(other)`` (``other`` from later partitions).
    *args
        Passed to ``summarise`` after the partition (sent once per task: keep them small).
    columns : list, optional
        Read only these columns (Parquet reads just them).

    Returns
    -------
    object
        The merged summary.

    Examples
    --------
    >>> from binaryeval._dask import map_reduce
    >>> import pandas as pd, dask.dataframe as dd
    >>> class Rows:
    ...     def __init__(self, n): self.n = n
    ...     def merge(self, other): return Rows(self.n + other.n)
    >>> ddf = dd.from_pandas(pd.DataFrame({"a": range(10)}), npartitions=3)
    >>> map_reduce(ddf, lambda part: Rows(len(part))).n
    10
    """
    (merged,) = compute(tree_reduce(ddf, summarise, *args, columns=columns))
    return merged


def compute(*tasks: Any) -> tuple:
    """``dask.compute(*tasks)``, with a column read as another type than its first rows named.

    Dask reads a CSV file's types from its first rows; a text value (or, for whole numbers, a
    missing one) further down fails the read of its block with Dask's own table of the columns.
    That is the data's problem, so it is raised as a :class:`~binaryeval.errors.DataError`
    naming the columns and what to do.

    Examples
    --------
    >>> from binaryeval._dask import compute
    >>> import dask
    >>> compute(dask.delayed(sum)([1, 2]))
    (3,)
    """
    import dask

    from .errors import DataError

    try:
        return dask.compute(*tasks)
    except ValueError as exc:
        text = str(exc)
        if "Mismatched dtypes found" not in text:
            raise
        rows = re.findall(r"^\|\s*(.+?)\s*\|\s*(\S+)\s*\|\s*(\S+)\s*\|$", text, flags=re.M)
        found = [f"{c!r} (first rows: {want}, later: {got})" for c, got, want in rows
                 if (c, got, want) != ("Column", "Found", "Expected")]
        raise DataError("a column holds values of another type further down than in its first "
                        f"rows, which Dask reads its types from: {', '.join(found) or text}; "
                        "a text value among the numbers? Read the file without Dask to see the "
                        "row (binaryeval refuses it by name), or fix the column") from None
