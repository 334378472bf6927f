"""Reading the user's tables: a file, a folder of Parquet files or a shipped dataset, filtered.

:func:`read_table` is what ``binaryeval <command> --data`` and :func:`binaryeval.reports.make_report`
read data with, and what a script can call to read the same table the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from . import datasets
from .errors import ParameterError

__all__ = ["read_table"]


def read_table(source: str | Path, query: str | None = None, *, dask: bool = False,
               argument_names: tuple[str, str] | None = None) -> Any:
    """Read a table file, a Parquet folder or a shipped dataset, optionally filtered.

    Parameters
    ----------
    source : str or Path
        ``.csv`` (also ``.csv.gz``), ``.tsv``, ``.parquet``/``.pq``, ``.json``/``.jsonl`` (by
        extension), a folder of Parquet files, or the name of a shipped dataset
        (``binaryeval.datasets.names()``).
    query : str, optional
        A pandas ``DataFrame.query`` expression selecting the rows to keep (the index of a pandas
        frame is then renumbered from 0).
    dask : bool
        Return a Dask frame (Parquet and CSV are read lazily, partition by partition).
    argument_names : (str, str), optional
        How the caller names ``source`` and ``query`` in error messages (default ``("data",
        "query")``; the command line says ``("--data", "--query")``).

    Returns
    -------
    DataFrame
        A pandas frame, or a Dask frame with ``dask``.

    Raises
    ------
    ParameterError
        ``source`` is neither a readable table nor a dataset name, or ``query`` fails.

    Examples
    --------
    >>> read_table("wmt15", "lp == 'de-en'").shape  # a shipped dataset, filtered
    (13, 26)
    """
    what, query_name = argument_names or ("data", "query")
    source = str(source)
    path = Path(source)
    name = path.name.lower()
    if path.is_dir():
        if not any(path.glob("*.parquet")) and not any(path.glob("*.pq")):
            raise ParameterError(f"{what} {source!r} is a folder without .parquet files; pass a "
                                 "folder of Parquet files or a table file")
        df = _read(lambda: _reader(dask).read_parquet(path), what, source)
    elif path.is_file() and name.endswith((".parquet", ".pq")):
        df = _read(lambda: _reader(dask).read_parquet(path), what, source)
    elif path.is_file() and name.endswith((".json", ".jsonl")):
        df = _read(lambda: pd.read_json(path, lines=name.endswith(".jsonl")), what, source)
    elif path.is_file() and name.endswith((".tsv", ".tsv.gz", ".tab")):
        df = _read(lambda: _reader(dask).read_csv(path, sep="\t"), what, source)
    elif path.is_file():
        df = _read(lambda: _reader(dask).read_csv(path), what, source)
    elif source in datasets.names():
        df = datasets.load(source)
    else:
        raise ParameterError(f"{what} {source!r} is neither a file nor a shipped dataset; pass a "
                             "table file or one of the names listed by `binaryeval datasets`")
    if dask and isinstance(df, pd.DataFrame):
        import dask.dataframe as dd

        df = dd.from_pandas(df, npartitions=1)
    if query:
        df = select_rows(df, query, query_name=query_name)
    return df


def select_rows(data: Any, query: str, *, query_name: str = "query") -> Any:
    """The rows of ``data`` (pandas or Dask) matching a pandas ``query``; a pandas index from 0.

    Examples
    --------
    >>> select_rows(pd.DataFrame({"x": [1, 2, 3]}), "x > 1")["x"].tolist()
    [2, 3]
    """
    try:
        out = data.query(query)
    except Exception as exc:  # pandas raises many types here
        raise ParameterError(f"{query_name} {query!r} failed: {exc}") from None
    return out.reset_index(drop=True) if isinstance(out, pd.DataFrame) else out


def _reader(dask: bool):
    """The module whose ``read_parquet``/``read_csv`` read the data: pandas or Dask's."""
    if dask:
        import dask.dataframe as dd

        return dd
    return pd


def _read(read: Callable[[], Any], what: str, source: str):
    try:
        return read()
    except Exception as exc:  # the readers raise many types (ParserError, ArrowInvalid, ...)
        raise ParameterError(f"{what} {source!r} could not be read as a table "
                             f"({type(exc).__name__}: {exc}); pass a .csv, .tsv, .parquet "
                             "or .json file, or a folder of .parquet files") from None
