"""The ``binaryeval`` command.

``binaryeval <subcommand> [options]``; ``python -m binaryeval`` is the same.  Exit codes: 0 success,
1 the command failed (a :class:`~binaryeval.errors.BinaryEvalError`; the message is printed on
stderr), 2 bad command-line usage (argparse).

Adding a subcommand
-------------------
Write a function that adds a parser to the sub-parsers and sets ``func`` (the code that runs it,
returning an exit code), and decorate it with :func:`subcommand`.  Import the package's heavy modules
inside ``run`` so ``binaryeval --help`` stays fast.  The helpers :func:`add_data_arguments`,
:func:`read_data`, :func:`add_output_arguments` and :func:`write_result` cover the usual "formula
on a table" command::

    @subcommand
    def add_fit_parser(subparsers):
        p = subparsers.add_parser("fit", help="fit the binary evaluation model",
                                  description="Fit FORMULA on the table in DATA.")
        p.add_argument("formula", help='e.g. "I(mqm == 0) ~ I(chrf > 50) | system"')
        add_data_arguments(p)
        add_output_arguments(p)
        p.add_argument("--seed", type=int, default=None)

        def run(args):
            from binaryeval import fit
            result = fit(args.formula, read_data(args), seed=args.seed)
            return write_result(result, args)

        p.set_defaults(func=run)

Examples
--------
>>> from binaryeval.cli import main
>>> main(["datasets"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .errors import BinaryEvalError, ParameterError

__all__ = ["main", "build_parser", "subcommand", "add_data_arguments", "read_data",
           "add_output_arguments", "write_result"]

PROG = "binaryeval"

#: functions ``add_<name>_parser(subparsers)``, in the order they appear in ``--help``
SUBCOMMANDS: list[Callable[[Any], None]] = []


def subcommand(add_parser: Callable[[Any], None]) -> Callable[[Any], None]:
    """Register ``add_parser(subparsers)`` as a subcommand of ``binaryeval``."""
    SUBCOMMANDS.append(add_parser)
    return add_parser


# ---------------------------------------------------------------------------------------------
# shared helpers for subcommands
# ---------------------------------------------------------------------------------------------

def add_data_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--data`` (a table file or a shipped dataset name) and ``--query`` (a row filter)."""
    parser.add_argument("--data", "-d", required=True, metavar="FILE|NAME",
                        help="table: .csv, .tsv, .csv.gz, .parquet or .json file, or the name of a shipped "
                             "dataset (see `binaryeval datasets`)")
    parser.add_argument("--query", "-q", default=None, metavar="EXPR",
                        help="keep the rows matching this pandas query, e.g. \"lp == 'de-en'\"")


def read_data(args: argparse.Namespace):
    """Read the table named by ``--data`` and apply ``--query``; returns a DataFrame."""
    import pandas as pd

    from . import datasets

    source = args.data
    path = Path(source)
    if path.is_file():
        name = path.name.lower()
        if name.endswith((".parquet", ".pq")):
            df = pd.read_parquet(path)
        elif name.endswith((".json", ".jsonl")):
            df = pd.read_json(path, lines=name.endswith(".jsonl"))
        elif name.endswith((".tsv", ".tsv.gz", ".tab")):
            df = pd.read_csv(path, sep="\t")
        else:
            df = pd.read_csv(path)
    elif source in datasets.names():
        df = datasets.load(source)
    else:
        raise ParameterError(f"--data {source!r} is neither a file nor a shipped dataset; "
                             "pass a table file or one of the names listed by `binaryeval datasets`")
    if getattr(args, "query", None):
        try:
            df = df.query(args.query).reset_index(drop=True)
        except Exception as exc:  # pandas raises many types here
            raise ParameterError(f"--query {args.query!r} failed: {exc}") from None
    return df


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--format`` (text, csv, json, html, latex) and ``--output`` (file; default stdout)."""
    parser.add_argument("--format", "-f", choices=["text", "csv", "json", "html", "latex"], default="text",
                        help="text: summary; csv/json: the tidy table (to_frame()); html/latex: summary")
    parser.add_argument("--output", "-o", default=None, metavar="FILE", help="write here instead of stdout")


def _emit(text: str, output: str | None) -> None:
    if output in (None, "-"):
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        Path(output).write_text(text, encoding="utf-8")


def write_result(result: Any, args: argparse.Namespace) -> int:
    """Print or save a result (anything with ``summary()``/``to_frame()``, or a DataFrame)."""
    import pandas as pd

    fmt = getattr(args, "format", "text")
    frame = result if isinstance(result, pd.DataFrame) else None
    if fmt in ("csv", "json"):
        if frame is None:
            if not hasattr(result, "to_frame"):
                raise ParameterError(f"--format {fmt}: this result has no table; use --format text")
            frame = result.to_frame()
        text = frame.to_csv(index=False) if fmt == "csv" else json.dumps(
            json.loads(frame.to_json(orient="records")), indent=2)
    elif frame is not None:
        text = {"text": lambda: frame.to_string(index=False), "html": frame.to_html,
                "latex": frame.to_latex}[fmt]()
    else:
        summary = result.summary() if hasattr(result, "summary") else None
        if summary is None:
            text = str(result)
        else:
            text = {"text": summary.as_text, "html": summary.as_html, "latex": summary.as_latex}[fmt]()
    _emit(text, getattr(args, "output", None))
    return 0


# ---------------------------------------------------------------------------------------------
# render
# ---------------------------------------------------------------------------------------------

@subcommand
def add_render_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "render", help="render Quarto (.qmd) documents to HTML",
        description="Render .qmd documents to self-contained HTML files plus an index.html. Uses "
                    "`quarto render` when Quarto is installed (--engine auto), otherwise executes the "
                    "chunks with Jupyter (jupytext, nbclient, nbconvert).")
    p.add_argument("paths", nargs="*", default=["vignettes"], metavar="PATH",
                   help=".qmd files or folders holding them (default: vignettes)")
    p.add_argument("--output-dir", default=None, metavar="DIR",
                   help="output folder (default: output-dir of _quarto.yml, else reports)")
    p.add_argument("--engine", choices=["auto", "quarto", "jupyter"], default="auto",
                   help="auto: Quarto when on the PATH, else Jupyter (default: auto)")
    p.add_argument("--timeout", type=int, default=600, metavar="SECONDS",
                   help="time allowed per chunk, Jupyter engine (default: 600)")
    p.add_argument("--no-index", action="store_true", help="do not write index.html")

    def run(args: argparse.Namespace) -> int:
        from .reports import render

        written = render(args.paths, output_dir=args.output_dir, engine=args.engine,
                         timeout=args.timeout, index=not args.no_index)
        for path in written:
            print(path)
        return 0

    p.set_defaults(func=run)


# ---------------------------------------------------------------------------------------------
# datasets
# ---------------------------------------------------------------------------------------------

@subcommand
def add_datasets_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "datasets", help="list the shipped datasets or export them to CSV",
        description="Without NAME: list the shipped datasets (rows, columns, licence). With NAME(s): "
                    "write each as NAME.csv into --output-dir, or to stdout with --stdout.")
    p.add_argument("names", nargs="*", metavar="NAME", help="datasets to export; 'all' for every one")
    p.add_argument("--output-dir", default=".", metavar="DIR", help="folder for NAME.csv (default: .)")
    p.add_argument("--stdout", action="store_true", help="print the CSV of one dataset instead")

    def run(args: argparse.Namespace) -> int:
        from . import datasets

        if not args.names:
            if args.stdout:
                raise ParameterError("--stdout needs a dataset NAME")
            shown = datasets.describe()[["name", "rows", "columns", "licence", "title"]]
            print(shown.to_string(index=False))
            return 0
        available = datasets.names()
        names = available if args.names == ["all"] else args.names
        unknown = [n for n in names if n not in available]
        if unknown:
            raise ParameterError(f"unknown dataset(s) {unknown}; use one of {available} or 'all'")
        if args.stdout:
            if len(names) != 1:
                raise ParameterError(f"--stdout prints one dataset, got {len(names)}: {names}")
            sys.stdout.write(datasets.load(names[0]).to_csv(index=False))
            return 0
        out = Path(args.output_dir)
        out.mkdir(parents=True, exist_ok=True)
        for name in names:
            target = out / f"{name}.csv"
            datasets.load(name).to_csv(target, index=False)
            print(target)
        return 0

    p.set_defaults(func=run)


# ---------------------------------------------------------------------------------------------
# entry point
# ---------------------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    """The ``binaryeval`` parser with every registered subcommand."""
    from . import __version__

    parser = argparse.ArgumentParser(
        prog=PROG, description="Evaluating the evaluation of text-generation systems.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``binaryeval`` with ``argv`` (default: ``sys.argv[1:]``); returns the exit code.

    Examples
    --------
    >>> main(["datasets", "wmt15", "--stdout"])  # doctest: +SKIP
    lp,system,human,beer,...
    """
    parser = build_parser()
    try:
        args = parser.parse_args(None if argv is None else list(argv))
    except SystemExit as exc:  # --help, --version, usage errors
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except BinaryEvalError as exc:
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return 1
