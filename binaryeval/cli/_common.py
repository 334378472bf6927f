"""What the subcommands share: the registry, the data options, writing results, option values."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from ..io import read_table

PROG = "binaryeval"

#: functions ``add_<name>_parser(subparsers)``, in the order they appear in ``--help``
SUBCOMMANDS: list[Callable[[Any], None]] = []


def subcommand(add_parser: Callable[[Any], None]) -> Callable[[Any], None]:
    """Register ``add_parser(subparsers)`` as a subcommand of ``binaryeval``.

    Parameters
    ----------
    add_parser : callable
        ``add_parser(subparsers)`` adds the subcommand's parser and sets its ``func``.

    Returns
    -------
    callable
        ``add_parser`` itself (a decorator).

    Examples
    --------
    >>> from binaryeval.cli import SUBCOMMANDS
    >>> len(SUBCOMMANDS) >= 7
    True
    """
    SUBCOMMANDS.append(add_parser)
    return add_parser


class _Renamed(argparse.Action):
    """An option spelled an earlier way: an error that names the new spelling."""

    def __init__(self, option_strings, dest, new: str = "", flag: bool = False, **kwargs):
        self.new = new
        super().__init__(option_strings, dest, nargs=0 if flag else "?", help=argparse.SUPPRESS,
                         **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        shown = f"{self.new} {values}" if values not in (None, []) else self.new
        parser.error(f"{option_string} is now {self.new}: use {shown}")


def add_renamed_option(parser: argparse.ArgumentParser, old: str, new: str, *,
                       flag: bool = False) -> None:
    """Refuse ``old`` with an error naming ``new`` (hidden from the help); ``flag``: no value."""
    parser.add_argument(old, action=_Renamed, new=new, flag=flag,
                        dest=f"_renamed_{old.strip('-')}")


def add_data_arguments(parser: argparse.ArgumentParser, *, dask: bool = False) -> None:
    """Add ``--data`` (a table, a Parquet folder or a dataset name) and ``--query`` (a filter).

    With ``dask``, also ``--dask`` and ``--scheduler ADDRESS`` (see :func:`dask_session`).
    """
    parser.add_argument("--data", "-d", required=True, metavar="FILE|DIR|NAME",
                        help="table: .csv, .tsv, .csv.gz, .parquet or .json file, a folder of "
                             ".parquet files, or the name of a shipped dataset (see "
                             "`binaryeval datasets`)")
    parser.add_argument("--query", "-q", default=None, metavar="EXPR",
                        help="keep the rows matching this pandas query, e.g. \"lp == 'de-en'\"")
    if dask:
        add_cluster_arguments(
            parser, "data larger than memory",
            "read --data with Dask, partition by partition (a folder of Parquet files: one "
            "partition per file), and compute on a Dask cluster; the result is the same")


def add_cluster_arguments(parser: argparse.ArgumentParser, title: str, description: str) -> None:
    """Add ``--dask`` and ``--scheduler ADDRESS`` (exclusive) as a group of their own.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The subcommand's parser.
    title, description : str
        The group's heading and what the cluster is used for (``--help`` shows both).
    """
    group = parser.add_argument_group(title, description)
    where = group.add_mutually_exclusive_group()
    where.add_argument("--dask", action="store_true",
                       help="start a local Dask cluster (one worker process per core)")
    where.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="use the running Dask cluster at ADDRESS, e.g. tcp://10.0.0.5:8786")


def _use_dask(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "dask", False) or getattr(args, "scheduler", None))


@contextmanager
def dask_session(args: argparse.Namespace) -> Iterator[None]:
    """A Dask client for ``--dask`` or ``--scheduler ADDRESS``, closed at the end.

    ``--dask`` starts a local cluster (worker processes, no dashboard, quiet logs);
    ``--scheduler`` connects to a running one.  Without either nothing happens.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Yields
    ------
    None

    Examples
    --------
    >>> import argparse
    >>> from binaryeval.cli._common import dask_session
    >>> with dask_session(argparse.Namespace()):
    ...     pass
    """
    if not _use_dask(args):
        yield
        return
    try:
        import distributed
    except ImportError:
        raise ParameterError("--dask and --scheduler need Dask: pip install "
                             "'binaryeval[dask]'") from None
    if args.scheduler:
        try:
            client = distributed.Client(args.scheduler, timeout="20s")
        except OSError as exc:
            raise ParameterError(f"--scheduler {args.scheduler!r}: no Dask scheduler answered "
                                 f"({exc})") from None
        with client:
            yield
        return
    with distributed.LocalCluster(processes=True, dashboard_address=None,
                                  silence_logs=logging.WARNING) as cluster, \
            distributed.Client(cluster):
        yield


#: options of the subcommands that name a column of names (read as text, as written)
NAME_OPTIONS = ("item", "rater", "first", "second", "shown_first", "by")


def name_columns(args: argparse.Namespace) -> list[str]:
    """The columns of names a command reads: the formula's grouping columns, ``--item``, ...

    Read from a text file as written (:func:`binaryeval.read_table`'s ``string_columns``), so
    that systems ``007`` and ``7`` stay two and a system named ``NA`` keeps its name.

    Examples
    --------
    >>> import argparse
    >>> from binaryeval.cli._common import name_columns
    >>> name_columns(argparse.Namespace(formula="h ~ m | system + lp", item="seg_id"))
    ['system', 'lp', 'seg_id']
    """
    from .._partition import grouping_columns
    from ..errors import FormulaError
    from ..formula import parse_formula

    names: list[str] = []
    formula = getattr(args, "formula", None)
    if isinstance(formula, str):
        try:
            names += grouping_columns(parse_formula(formula))
        except FormulaError:
            pass  # the command's own call reports it, with a caret
    names += [v for v in (getattr(args, o, None) for o in NAME_OPTIONS) if isinstance(v, str)]
    return list(dict.fromkeys(names))


def read_data(args: argparse.Namespace):
    """Read the table named by ``--data`` and apply ``--query``.

    A pandas DataFrame, or a Dask DataFrame with ``--dask`` or ``--scheduler``.  The columns
    of names (:func:`name_columns`) are read as text, as written.
    """
    query = getattr(args, "query", None)
    names = name_columns(args)
    data = read_table(args.data, query, dask=_use_dask(args),
                      argument_names=("--data", "--query"), string_columns=names)
    if query and not _use_dask(args) and len(data) == 0:
        # "data has no rows" would blame the table for what the filter did
        total = len(read_table(args.data, None, argument_names=("--data", "--query"),
                               string_columns=names))
        if total:
            raise ParameterError(
                f"--query {query!r} kept none of the {total:,} rows of --data {args.data!r}; "
                "check the column names and values (text in quotes, e.g. \"lp == 'de-en'\")")
    return data


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--format`` (text, csv, json, html, latex) and ``--output`` (file; default stdout)."""
    parser.add_argument("--format", "-f", choices=list(FORMATS), default=None,
                        help="text: the summary; csv/json: the tidy table (to_frame()); html/latex: "
                             "the summary. Default: from the --output extension (.csv, .json, .html, "
                             ".tex), else text")
    parser.add_argument("--output", "-o", default=None, metavar="FILE",
                        help="write here instead of stdout (the format follows the extension); "
                             "never over the input, nor over an existing file without "
                             "--overwrite")
    add_force_argument(parser)


def add_force_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--overwrite`` (``overwrite=`` of the library): leave to replace existing output files.

    An input is never replaced.  The earlier spelling ``--force`` is refused naming it.
    """
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an existing output file (an input is never replaced)")
    add_renamed_option(parser, "--force", "--overwrite", flag=True)


def check_destination(args: argparse.Namespace) -> None:
    """Refuse ``--output`` (and ``--excluded-rows``) before any work.

    An input, an existing file without ``--overwrite``, a folder, a file in a missing folder
    (:func:`binaryeval._output.check_output`); ``--excluded-rows`` is not ``--output`` either.
    """
    from .._output import check_output, input_paths

    output = getattr(args, "output", None)
    inputs = input_paths(getattr(args, "data", None))
    force = bool(getattr(args, "overwrite", False))
    if output not in (None, "-"):
        check_output(output, inputs=inputs, force=force)
    rows = getattr(args, "excluded_rows", None)
    if rows is not None:
        if output not in (None, "-"):
            inputs = [*inputs, Path(output)]
        check_output(rows, inputs=inputs, force=force, option="--excluded-rows")


#: output formats of :func:`write_result` and the file extensions that select them
FORMATS = {"text": (".txt",), "csv": (".csv",), "json": (".json",), "html": (".html", ".htm"),
           "latex": (".tex",)}


#: Extensions of binary files: text written under such a name could not be opened by the
#: program the name promises (a spreadsheet, an image, an archive)
_BINARY_SUFFIXES = frozenset({".xlsx", ".xls", ".ods", ".parquet", ".pq", ".feather", ".arrow",
                              ".pdf", ".png", ".jpg", ".jpeg", ".svg", ".docx", ".odt", ".pptx",
                              ".zip", ".gz", ".pkl", ".pickle"})


def output_format(args: argparse.Namespace) -> str:
    """``--format`` if given, else the format named by the ``--output`` extension, else text.

    An extension of a binary file (``.xlsx``, ``.parquet``, ``.pdf``, ...) without ``--format``
    is refused: the text written there would not open in the program the name promises.
    """
    fmt = getattr(args, "format", None)
    if fmt:
        return fmt
    output = getattr(args, "output", None)
    if output not in (None, "-"):
        suffix = Path(output).suffix.lower()
        for name, suffixes in FORMATS.items():
            if suffix in suffixes:
                return name
        if suffix in _BINARY_SUFFIXES:
            raise ParameterError(
                f"--output {output!r}: the command writes text, CSV, JSON, HTML or LaTeX "
                f"(.txt, .csv, .json, .html, .tex), and a {suffix} file holding text would not "
                f"open as one; name it {Path(output).with_suffix('.csv').name!r} (spreadsheets "
                "open CSV), or give --format to write that format under this name")
    return "text"


def _emit(text: str, output: str | None, args: argparse.Namespace | None = None) -> None:
    text = text if text.endswith("\n") else text + "\n"
    if output in (None, "-"):
        sys.stdout.write(text)
    else:
        from .._output import write_text

        check_destination(args if args is not None else argparse.Namespace(output=output))
        write_text(output, text)  # a temporary file renamed into place: never half written


def _html_page(body: str, title: str) -> str:
    import html

    from .._site.pages import CONTENT_SECURITY_POLICY

    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">\n'
            f"<title>{html.escape(title)}</title>\n"
            "<style>body { font-family: system-ui, sans-serif; margin: 2rem; } "
            "table { border-collapse: collapse; margin: 0.5rem 0; } "
            "th, td { padding: 0.15rem 0.6rem; text-align: right; } "
            "table.binaryeval-info th, table.binaryeval-info td { text-align: left; }</style>\n"
            f"</head>\n<body>\n{body}\n</body>\n</html>")


def _tidy(frame):
    """A result table with its row labels as columns (``to_csv(index=False)`` keeps them)."""
    import pandas as pd

    if isinstance(frame.index, pd.RangeIndex) and frame.index.name is None:
        return frame
    return frame.reset_index()


def _with_level(frame):
    """A table of intervals with their ``level`` as a last column: a file keeps no ``attrs``."""
    level = frame.attrs.get("level")
    intervals = any(c in ("lower", "upper") or str(c).endswith(("_lower", "_upper"))
                    for c in frame.columns)
    if intervals and isinstance(level, float) and "level" not in frame.columns:
        frame = frame.assign(level=level)
    return frame


def write_result(result: Any, args: argparse.Namespace) -> int:
    """Print or save a result (anything with ``summary()``/``to_frame()``, or a DataFrame).

    The format is ``--format``, or else the ``--output`` extension (:func:`output_format`): the
    summary as text, HTML (a page of its own when written to a file) or LaTeX, or the tidy table
    ``to_frame()`` as CSV or JSON records (row labels such as ``group`` become columns; a table
    of intervals gets their ``level`` as its last column).
    """
    import pandas as pd

    fmt = output_format(args)
    output = getattr(args, "output", None)
    frame = result if isinstance(result, pd.DataFrame) else None
    if fmt in ("csv", "json"):
        if frame is None:
            if not hasattr(result, "to_frame"):
                raise ParameterError(f"--format {fmt}: this result has no table; use --format text")
            frame = result.to_frame()
        frame = _with_level(_tidy(frame))
        text = frame.to_csv(index=False) if fmt == "csv" else json.dumps(
            json.loads(frame.to_json(orient="records", double_precision=15)), indent=2)
    elif frame is not None:
        # a table as its CSV has it: row labels as columns, no row numbers
        frame = _tidy(frame)
        text = {"text": lambda: frame.to_string(index=False),
                "html": lambda: frame.to_html(index=False),
                "latex": lambda: frame.to_latex(index=False)}[fmt]()
        if fmt == "html" and output not in (None, "-"):
            text = _html_page(text, f"{PROG} {getattr(args, 'command', '')}".strip())
    else:
        summary = result.summary() if hasattr(result, "summary") else None
        if summary is not None:
            from .._advice import as_flags

            # the notes' advice as typed on the command line (--rates pooled, not rates='pooled')
            summary.notes = [as_flags(note, getattr(args, "_flags", None))
                             for note in summary.notes]
        if summary is None:
            text = str(result)
        else:
            text = {"text": summary.as_text, "html": summary.as_html, "latex": summary.as_latex}[fmt]()
            if fmt == "html" and output not in (None, "-"):
                text = _html_page(text, summary.title)
    _emit(text, output, args)
    return 0


def _number_pair(option: str) -> Callable[[str], tuple[float, float]]:
    def parse(text: str) -> tuple[float, float]:
        parts = [t.strip() for t in text.split(",")]
        try:
            values = tuple(float(t) for t in parts)
        except ValueError:
            values = ()
        if len(values) != 2:
            raise argparse.ArgumentTypeError(f"{option} {text!r}: give two numbers 'a,b', e.g. 1,1")
        return values  # type: ignore[return-value]
    return parse


def _threshold(text: str) -> float | str:
    """A number, or a rule name passed on to :func:`binaryeval.fit` (which checks it)."""
    try:
        return float(text)
    except ValueError:
        return text


def _key_values(text: str, option: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        try:
            if not sep:
                raise ValueError
            out[key.strip()] = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{option} {text!r}: expected key=number pairs separated by commas, "
                "e.g. rho=0.7,eta=0.8") from None
    return out


def _rates(text: str) -> str | dict | list:
    """Read ``--rates``.

    ``estimate``, ``pooled``, ``hierarchical``, ``rho=..,eta=..``, a JSON mapping (per group)
    or a JSON matrix (the latent-truth model's known confusion matrix).
    """
    if text in ("estimate", "pooled", "hierarchical"):
        return text
    if text == "known":
        raise argparse.ArgumentTypeError(
            "--rates known: give the known values instead, e.g. --rates rho=0.7,eta=0.8")
    if text.lstrip().startswith("["):
        try:
            matrix = json.loads(text)
        except json.JSONDecodeError as exc:
            raise argparse.ArgumentTypeError(f"--rates: invalid JSON ({exc})") from None
        return matrix
    if text.lstrip().startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise argparse.ArgumentTypeError(f"--rates: invalid JSON ({exc})") from None
        if not isinstance(value, dict):
            raise argparse.ArgumentTypeError("--rates: the JSON must be an object")
        return value
    if "=" in text:
        return _key_values(text, "--rates")
    raise argparse.ArgumentTypeError(
        f"--rates {text!r}: use estimate, pooled, hierarchical, known rates rho=0.7,eta=0.8, a JSON object "
        "per group '{\"sysA\": {\"rho\": 0.7, \"eta\": 0.8}, ...}', or a known confusion "
        "matrix as JSON '[[0.8, 0.1, 0.1], ...]' (rows: the human classes)")


def _tolerance(text: str) -> float | dict[str, float]:
    try:
        return float(text)
    except ValueError:
        return _key_values(text, "--tolerance")


def _pairs(text: str) -> str | list[tuple[str, str]]:
    # one set of values wherever --pairs is taken: a word or SYSTEM1:SYSTEM2 pairs (favi has no
    # order of systems, so it refuses 'neighbours' with its own error)
    if text in ("all", "neighbours"):
        return text
    pairs = []
    for part in text.split(","):
        a, sep, b = part.partition(":")
        if not sep or not a.strip() or not b.strip():
            raise argparse.ArgumentTypeError(
                f"--pairs {text!r}: give 'all', 'neighbours' or SYSTEM1:SYSTEM2 pairs "
                "separated by commas")
        pairs.append((a.strip(), b.strip()))
    return pairs


def _add_fit_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--threshold", "-t", type=_threshold, default=None, metavar="NUMBER|RULE",
                   help="for a scalar metric: positive when score >= NUMBER, or a rule: balanced "
                        "(|rho - eta| smallest, the papers' rule) or youden (rho + eta largest)")
    p.add_argument("--rates", type=_rates, default="estimate", metavar="MODE",
                   help="estimate (rho, eta per group; default), pooled (one pair for all groups), "
                        "hierarchical (per group, partially pooled), known values rho=0.7,eta=0.8, or a JSON object with known values per group")
    p.add_argument("--prior", type=_number_pair("--prior"), default=(1.0, 1.0), metavar="A,B",
                   help="Beta prior of alpha (default: 1,1)")
    p.add_argument("--rate-prior", type=_number_pair("--rate-prior"), default=(1.0, 1.0),
                   metavar="A,B", help="Beta prior of rho and eta (default: 1,1)")
    p.add_argument("--lower-is-better", nargs="+", default=[], metavar="TERM",
                   help="metric terms whose lower scores are better (with --threshold a rating "
                        "is positive when score <= threshold), e.g. --lower-is-better ter")
    p.add_argument("--level", type=float, default=0.95,
                   help="credible level of intervals and comparisons (default: 0.95)")


def _bins(text: str) -> int | dict[str, int]:
    """``--bins 5`` (every metric term) or ``--bins score=5,ter=3`` (per term)."""
    try:
        return int(text)
    except ValueError:
        pass
    out = {}
    for key, value in _key_values(text, "--bins").items():
        if not float(value).is_integer():
            raise argparse.ArgumentTypeError(f"--bins {text!r}: bins are whole numbers")
        out[key] = int(value)
    return out


def _add_sampler_options(p: argparse.ArgumentParser, *, dependence: bool = True,
                         seed_help: str = "seed of the sampler") -> None:
    """The latent-truth model's options: its sampler, and how several metrics combine."""
    group = p.add_argument_group(
        "latent-truth model", "several metric terms, --bins or preferences: the sampler's "
        "settings and how several metrics combine")
    if dependence:
        group.add_argument("--dependence", choices=["joint", "independent"], default=None,
                           help="several metrics: their joint pattern (default, valid however "
                                "they depend on each other) or a product of one confusion "
                                "matrix per metric")
    group.add_argument("--seed", type=int, default=None, help=seed_help)
    group.add_argument("--draws", type=int, default=1000,
                       help="draws kept per chain (default: 1000)")
    group.add_argument("--chains", type=int, default=4, help="chains (default: 4)")


def _sampler_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The sampler's options, only those given (the binary model refuses them)."""
    out: dict[str, Any] = {}
    if getattr(args, "seed", None) is not None:
        out["seed"] = args.seed
    if getattr(args, "draws", 1000) != 1000:
        out["draws"] = args.draws
    if getattr(args, "chains", 4) != 4:
        out["chains"] = args.chains
    if getattr(args, "dependence", None) is not None:
        out["dependence"] = args.dependence
    return out


def _order(text: str) -> str | list[str]:
    """``estimate``, ``input`` or SYSTEM,SYSTEM,... (every group once)."""
    if text in ("estimate", "input"):
        return text
    return [part.strip() for part in text.split(",") if part.strip()]


def _fit_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {"threshold": args.threshold, "rates": args.rates, "prior": args.prior,
            "rate_prior": args.rate_prior, "level": args.level,
            "lower_is_better": list(args.lower_is_better) or None}
