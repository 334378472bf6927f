"""Reading the user's tables: a file, a folder of Parquet files or a shipped dataset, filtered.

:func:`read_table` is what ``binaryeval <command> --data`` and :func:`binaryeval.reports.make_report`
read data with, and what a script can call to read the same table the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from . import datasets
from .errors import DataError, ParameterError

if TYPE_CHECKING:  # names used only in type hints
    import dask.dataframe as dd

__all__ = ["read_table"]


def read_table(source: str | Path, query: str | None = None, *, dask: bool = False,
               argument_names: tuple[str, str] | None = None,
               string_columns: Sequence[str] | None = None) -> pd.DataFrame | dd.DataFrame:
    r"""Read a table file, a Parquet folder or a shipped dataset, optionally filtered.

    A folder of Parquet files whose files hold different columns reads as one table with every
    column (missing where a file lacks it), with or without ``dask``.

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
    string_columns : list of str, optional
        Columns of names (groups, systems, items, raters) read from a text file (CSV, TSV,
        JSON) as the text written there: ``007``, ``7`` and ``07.0`` stay three systems, and a
        system named ``NA``, ``None`` or ``null`` keeps its name; only an empty cell (JSON:
        ``null``) is missing.  Other columns are read as pandas reads them (``NA`` and empty
        cells missing).  The command line and :func:`binaryeval.reports.make_report` pass the
        formula's grouping columns and the ``--item``/``--rater`` columns.  Columns the table
        lacks are ignored; Parquet files and datasets keep their stored types.

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
    >>> from pathlib import Path
    >>> from binaryeval import read_table
    >>> read_table("wmt15", "lp == 'de-en'").shape  # a shipped dataset, filtered
    (13, 26)

    System ids that look like numbers stay as written:

    >>> import tempfile
    >>> csv = Path(tempfile.mkdtemp()) / "ratings.csv"
    >>> _ = csv.write_text("system,human\n007,1\n7,0\nNA,1\n,1\n")
    >>> read_table(csv, string_columns=["system"])["system"].tolist()
    ['007', '7', 'NA', nan]
    """
    what, query_name = argument_names or ("data", "query")
    text_columns = _string_columns(string_columns)
    source = str(source)
    path = Path(source)
    name = path.name.lower()
    text_as_read = names_as_read(source, text_columns)
    if path.is_dir():
        files = sorted(f for f in path.iterdir()
                       if f.is_file() and f.suffix.lower() in (".parquet", ".pq"))
        if not files:
            raise ParameterError(f"{what} {source!r} is a folder without .parquet files; pass a "
                                 "folder of Parquet files or a table file")
        df = _read(lambda: _read_parquet_folder(path, files, dask), what, source)
    elif path.is_file() and name.endswith((".parquet", ".pq")):
        df = _read(lambda: _reader(dask).read_parquet(path), what, source)
    elif path.is_file() and name.endswith((".json", ".jsonl")):
        df = _read(lambda: pd.read_json(path, lines=name.endswith(".jsonl"),
                                        dtype=_json_types(text_columns)), what, source)
    elif path.is_file() and name.endswith((".tsv", ".tsv.gz", ".tab")):
        df = _read(lambda: _reader(dask).read_csv(
            path, sep="\t", **_csv_options(path, "\t", text_columns)), what, source)
    elif path.is_file():
        df = _read(lambda: _reader(dask).read_csv(path, **_csv_options(path, ",", text_columns)),
                   what, source)
        _refuse_one_joined_column(df, what, source)
    elif source in datasets.names():
        df = datasets.load(source, every_row=True)
    else:
        raise ParameterError(f"{what} {source!r} is neither a file nor a shipped dataset; pass a "
                             "table file or one of the names listed by `binaryeval datasets`")
    if dask and isinstance(df, pd.DataFrame):
        import dask.dataframe as dd

        df = dd.from_pandas(df, npartitions=1)
    if query:
        # the query sees the id columns as pandas reads them (numbers as numbers): "system != 3"
        # means what it means in pandas, while the kept rows keep the names as written
        df = select_rows(df, query, query_name=query_name, as_read=text_as_read)
    return df


def names_as_read(source: str | Path, string_columns: list[str]) -> list[str]:
    """The columns of names that a query on ``source`` sees as pandas reads them.

    :func:`read_table` reads a CSV or TSV file's columns of names as text; its ``query`` sees
    them as pandas' own reader gives them (``"system != 3"`` means what it means in pandas).
    Pass the result as ``as_read`` to :func:`select_rows` to query a table read without one
    as :func:`read_table` would have.
    """
    path = Path(str(source))
    # a CSV or TSV file's columns of names are read as text, not as pandas would read them
    return list(string_columns) if path.is_file() and not path.name.lower().endswith(
        (".parquet", ".pq", ".json", ".jsonl")) else []


def _refuse_one_joined_column(df: Any, what: str, source: Any) -> None:
    """Refuse a comma-separated read that gave one column joining several names.

    A name holding ``;``, a tab or ``|`` says the file's fields are separated by that
    character; every later error would name one column called ``'system;seg_id;...'``.
    """
    if len(df.columns) != 1:
        return
    name = str(df.columns[0])
    for sep, shown in ((";", "';'"), ("\t", "a tab"), ("|", "'|'")):
        if sep in name:
            raise DataError(f"{what} {str(source)!r} reads as one column {name[:60]!r}: its "
                            f"fields are separated by {shown}, and a .csv file is read with "
                            "commas; write it with commas (pandas: "
                            "pd.read_csv(path, sep=...).to_csv(new_path, index=False))"
                            + (", or name it .tsv" if sep == "\t" else ""))


def select_rows(data: Any, query: str, *, query_name: str = "query",
                as_read: list[str] | None = None) -> Any:
    """The rows of ``data`` (pandas or Dask) matching a pandas ``query``; a pandas index from 0.

    ``as_read``: columns of names held as text that the query sees as pandas' own reader would
    give them (:func:`_as_pandas_reads`): missing-value words missing, and numbers when every
    value is one; the rows kept keep the text.

    Examples
    --------
    >>> import pandas as pd
    >>> from binaryeval.io import select_rows
    >>> select_rows(pd.DataFrame({"x": [1, 2, 3]}), "x > 1")["x"].tolist()
    [2, 3]
    >>> ids = pd.DataFrame({"system": ["007", "3", "12"], "y": [1, 0, 1]})
    >>> select_rows(ids, "system != 3", as_read=["system"])["system"].tolist()
    ['007', '12']
    """
    seen = [c for c in (as_read or []) if c in data.columns]
    try:
        if not seen:
            out = data.query(query)
        elif isinstance(data, pd.DataFrame):
            out = _query_as_read(data, query, seen)
        else:
            out = data.map_partitions(_query_as_read, query, seen, meta=data._meta)
    except Exception as exc:  # pandas raises many types here
        raise ParameterError(f"{query_name} {query!r} failed: {exc}") from None
    return out.reset_index(drop=True) if isinstance(out, pd.DataFrame) else out


def _query_as_read(part: pd.DataFrame, query: str, columns: list[str]) -> pd.DataFrame:
    """``part.query(query)`` evaluated with ``columns`` as pandas reads them (the rows as they are)."""
    view = part.assign(**{c: _as_pandas_reads(part[c]) for c in columns})
    # (positions, whatever the index: DataFrame.query's own rules decide which rows match)
    view.index = pd.RangeIndex(len(view))
    return part.iloc[view.query(query).index.to_numpy()]


def _as_pandas_reads(column: pd.Series) -> pd.Series:
    """A column of names held as text, as ``pandas.read_csv`` would have read it.

    pandas' missing-value words (``NA``, ``None``, ``null``, ...) missing, and the column made
    numbers when every value left is one (``"007"`` is 7 there, as in pandas).

    Examples
    --------
    >>> import pandas as pd
    >>> from binaryeval.io import _as_pandas_reads
    >>> _as_pandas_reads(pd.Series(["007", "12", "NA"], dtype=object)).tolist()
    [7.0, 12.0, nan]
    >>> _as_pandas_reads(pd.Series(["a", "7"], dtype=object)).tolist()
    ['a', '7']
    """
    from pandas._libs.parsers import STR_NA_VALUES  # pandas' default missing-value strings

    text = column.astype(object)
    text = text.where(~text.isin(sorted(STR_NA_VALUES)) & text.notna())
    number = pd.to_numeric(text, errors="coerce")
    if bool((number.notna() | text.isna()).all()) and text.notna().any():
        return number
    return text


def _string_columns(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    names = list(value)
    bad = [v for v in names if not isinstance(v, str)]
    if bad:
        raise ParameterError(f"string_columns holds {bad[0]!r}; give column names (text), e.g. "
                             "string_columns=['system']")
    return names


def _csv_options(path: Path, sep: str, text_columns: list[str]) -> dict[str, Any]:
    """``read_csv`` options reading ``text_columns`` as written, only an empty cell missing.

    pandas takes a missing-value list per column only when every column has one, so the others
    get pandas' own list (``NA``, ``null``, ``None``, ``NaN``, ...).
    """
    if not text_columns:
        return {}
    header = [str(c) for c in pd.read_csv(path, sep=sep, nrows=0).columns]
    wanted = [c for c in header if c in set(text_columns)]
    if not wanted:
        return {}
    from pandas._libs.parsers import STR_NA_VALUES  # pandas' default missing-value strings

    return {"dtype": {c: str for c in wanted}, "keep_default_na": False,
            "na_values": {c: [""] if c in wanted else sorted(STR_NA_VALUES) for c in header}}


def _json_types(text_columns: list[str]) -> Any:
    """``read_json``'s ``dtype``: the id columns as stored (``"007"`` is not made a number)."""
    return {c: object for c in text_columns} if text_columns else True


def _read_parquet_folder(path: Path, files: list[Path], dask: bool) -> Any:
    """A folder of Parquet files as one table; files lacking some columns get them missing.

    Files with one schema are read by pandas' or Dask's own reader.  Files whose columns differ
    are read file by file against their unified schema (only the columns a call reads are
    read), each column with the type pandas gives it in the first file that holds it
    (nullable ``Int64``, ``category``, ...), so that the pandas frame and the Dask frame hold
    the same values and every column of every file.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    schemas = [pq.read_schema(f) for f in files]
    if all(s.equals(schemas[0], check_metadata=False) for s in schemas[1:]):
        if not dask:
            return pd.read_parquet(path)
        import dask.dataframe as dd

        return dd.read_parquet(path)
    try:
        schema = pa.unify_schemas([s.remove_metadata() for s in schemas],
                                  promote_options="permissive")
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        if not dask:
            # pyarrow's dataset reads every file as the first file's types
            return pd.read_parquet(path)
        raise ParameterError(_type_clash(files, schemas)) from None
    plain = schema.empty_table().to_pandas()
    dtypes: dict[str, Any] = {}
    for name in schema.names:
        holder = next(s for s in schemas if name in s.names)
        # the file's own pandas types (its metadata), unless the files disagree on the type
        if holder.field(name).type.equals(schema.field(name).type):
            dtypes[name] = holder.empty_table().to_pandas()[name].dtype
        else:
            dtypes[name] = plain[name].dtype
    for name in {n for s in schemas for n in schema.names if n not in s.names}:
        # a column some files lack holds missing values: numbers as float, booleans as objects
        kind = dtypes[name]
        if isinstance(kind, np.dtype) and kind.kind in "iu":
            dtypes[name] = np.dtype(float)
        elif isinstance(kind, np.dtype) and kind.kind == "b":
            dtypes[name] = np.dtype(object)
    reader = _ParquetFile(schema, dtypes)
    if not dask:
        parts = [reader(str(f)) for f in files]
        for name, kind in dtypes.items():
            if isinstance(kind, pd.CategoricalDtype):
                # every file's categories, in the order the files hold them
                seen = [c for p in parts for c in p[name].cat.categories]
                union = pd.CategoricalDtype(list(dict.fromkeys(seen)), ordered=kind.ordered)
                for p in parts:
                    p[name] = p[name].astype(union)
        return pd.concat(parts, ignore_index=True)
    import dask.dataframe as dd
    from dask.dataframe.utils import clear_known_categories

    meta = pd.DataFrame({n: pd.Series([], dtype=t) for n, t in dtypes.items()})
    # each file has its own categories: Dask's meta says they are not known in advance
    meta = clear_known_categories(meta)
    return dd.from_map(reader, [str(f) for f in files], meta=meta, label="read-parquet-files")


def _type_clash(files: list[Path], schemas: list) -> str:
    """What to do about files of a folder that hold a column with types no type holds both."""
    first: dict[str, tuple[Any, Path]] = {}
    clashes = []
    for f, s in zip(files, schemas, strict=True):
        for field in s:
            kind, where = first.setdefault(field.name, (field.type, f))
            if not field.type.equals(kind) and field.name not in [c[0] for c in clashes]:
                clashes.append((field.name, f"{kind} in {where.name}, {field.type} in {f.name}"))
    shown = "; ".join(f"{name!r} ({types})" for name, types in clashes[:3])
    return (f"the Parquet files of the folder disagree on the type of {shown or 'a column'}, "
            "and Dask reads every file with one type per column: write the column with one "
            "type in every file, or read the folder without Dask (pandas reads each file as "
            "the first file's types)")


class _ParquetFile:
    """Read one Parquet file as a partition of the unified schema (``columns=``: a projection)."""

    def __init__(self, schema, dtypes: dict) -> None:
        self.schema = schema
        self.dtypes = dtypes

    def __call__(self, file: str, columns: list | None = None) -> pd.DataFrame:
        import pyarrow as pa
        import pyarrow.parquet as pq

        names = list(columns) if columns is not None else list(self.schema.names)
        stored = set(pq.read_schema(file).names)
        table = pq.read_table(file, columns=[n for n in names if n in stored])
        # the unified types, with the file's own pandas metadata (nullable ints, categories)
        table = table.cast(pa.schema([self.schema.field(n) for n in table.column_names],
                                     metadata=table.schema.metadata))
        got = table.to_pandas()
        got.index = pd.RangeIndex(len(got))
        frame = pd.DataFrame(index=got.index)
        for n in names:
            kind = self.dtypes[n]
            if n not in stored:
                frame[n] = pd.Series(None, index=got.index, dtype=object).astype(kind)
                continue
            column = got[n]
            if isinstance(kind, pd.CategoricalDtype):
                # this file's categories (the pandas reader unites them)
                frame[n] = column if isinstance(column.dtype, pd.CategoricalDtype) \
                    else column.astype("category")
            else:
                frame[n] = column if column.dtype == kind else column.astype(kind)
        return frame


def _reader(dask: bool):
    """The module whose ``read_parquet``/``read_csv`` read the data: pandas or Dask's."""
    if dask:
        return _DaskReader
    return pd


class _DaskReader:
    """Dask's readers; a CSV's whole-number columns read as floats, its True/False ones nullable.

    Dask reads a CSV file's types from its first rows: a whole-number column with a missing
    value further down (a rating not given) would fail the read of that block, so such columns
    are read as floats from the start (``assume_missing``), as pandas reads them.  A column of
    True/False in those rows is typed ``bool``, and an empty cell further down then reads as
    True (a rating not given counted as adequate): such columns are read as pandas' nullable
    ``boolean``, where an empty cell stays missing.
    """

    @staticmethod
    def read_parquet(*args, **kwargs):
        import dask.dataframe as dd

        return dd.read_parquet(*args, **kwargs)

    @staticmethod
    def read_csv(*args, **kwargs):
        import dask.dataframe as dd

        frame = dd.read_csv(*args, assume_missing=True, **kwargs)
        flags = [c for c, t in frame.dtypes.items() if pd.api.types.is_bool_dtype(t) and t.kind == "b"]
        given = kwargs.get("dtype")
        if flags and (given is None or isinstance(given, dict)):
            dtype = dict(given or {})
            dtype.update({c: "boolean" for c in flags if c not in dtype})
            frame = dd.read_csv(*args, assume_missing=True, **{**kwargs, "dtype": dtype})
        return frame


def _read(read: Callable[[], Any], what: str, source: str):
    try:
        return read()
    except ParameterError:
        raise
    except Exception as exc:  # the readers raise many types (ParserError, ArrowInvalid, ...)
        raise ParameterError(f"{what} {source!r} could not be read as a table "
                             f"({type(exc).__name__}: {exc}); pass a .csv, .tsv, .parquet "
                             "or .json file, or a folder of .parquet files") from None
