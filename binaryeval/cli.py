"""The ``binaryeval`` command.

``binaryeval <subcommand> [options]``; ``python -m binaryeval`` is the same.  Exit codes: 0 success,
1 the command failed (a :class:`~binaryeval.errors.BinaryEvalError`; the message is printed on
stderr), 2 bad command-line usage (argparse).  Warnings raised while a command runs are printed on
stderr, one line each (``binaryeval fit: warning: ...``).

Subcommands
-----------
``render``     render ``.qmd`` documents to HTML (:mod:`binaryeval.reports`)
``datasets``   list or export the shipped datasets
``fit``        :func:`binaryeval.fit`; ``--compare`` for ``result.compare()``
``favi``       :func:`binaryeval.favi`
``correlate``  :func:`binaryeval.correlate`; ``--pairwise`` for the Williams tests
``plan``       detectable differences and sample sizes (:mod:`binaryeval.plan`)
``report``     an HTML report of :func:`binaryeval.fit` on the user's data, rendered from
               ``binaryeval/templates/report.qmd``

``fit``, ``favi`` and ``correlate`` print ``result.summary().as_text()``, exactly as the Python API
does; ``--output FILE`` writes the summary as text (``.txt``), HTML (``.html``) or LaTeX (``.tex``),
or the tidy table ``to_frame()`` as CSV (``.csv``) or JSON records (``.json``).  Input tables are
read by extension: CSV, TSV, Parquet, JSON.

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
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .errors import BinaryEvalError, ParameterError

__all__ = ["main", "build_parser", "subcommand", "add_data_arguments", "read_data", "read_table",
           "add_output_arguments", "output_format", "write_result", "report_template",
           "separation_sample_sizes"]

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


def read_table(source: str | Path, query: str | None = None, *, option: str = "--data"):
    """Read a table file (by extension) or a shipped dataset by name, optionally filtered.

    Parameters
    ----------
    source : str or Path
        ``.csv`` (also ``.csv.gz``), ``.tsv``, ``.parquet``/``.pq``, ``.json``/``.jsonl``, or the
        name of a shipped dataset (``binaryeval.datasets.names()``).
    query : str, optional
        A pandas ``DataFrame.query`` expression selecting the rows to keep.
    option : str
        The command-line option named in error messages.

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> read_table("wmt15", "lp == 'de-en'").shape  # doctest: +SKIP
    (13, 15)
    """
    import pandas as pd

    from . import datasets

    source = str(source)
    path = Path(source)
    if path.is_file():
        name = path.name.lower()
        try:
            if name.endswith((".parquet", ".pq")):
                df = pd.read_parquet(path)
            elif name.endswith((".json", ".jsonl")):
                df = pd.read_json(path, lines=name.endswith(".jsonl"))
            elif name.endswith((".tsv", ".tsv.gz", ".tab")):
                df = pd.read_csv(path, sep="\t")
            else:
                df = pd.read_csv(path)
        except Exception as exc:  # the readers raise many types (ParserError, ArrowInvalid, ...)
            raise ParameterError(f"{option} {source!r} could not be read as a table "
                                 f"({type(exc).__name__}: {exc}); pass a .csv, .tsv, .parquet "
                                 "or .json file") from None
    elif source in datasets.names():
        df = datasets.load(source)
    else:
        raise ParameterError(f"{option} {source!r} is neither a file nor a shipped dataset; "
                             "pass a table file or one of the names listed by `binaryeval datasets`")
    if query:
        try:
            df = df.query(query).reset_index(drop=True)
        except Exception as exc:  # pandas raises many types here
            raise ParameterError(f"--query {query!r} failed: {exc}") from None
    return df


def read_data(args: argparse.Namespace):
    """Read the table named by ``--data`` and apply ``--query``; returns a DataFrame."""
    return read_table(args.data, getattr(args, "query", None))


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--format`` (text, csv, json, html, latex) and ``--output`` (file; default stdout)."""
    parser.add_argument("--format", "-f", choices=list(FORMATS), default=None,
                        help="text: the summary; csv/json: the tidy table (to_frame()); html/latex: "
                             "the summary. Default: from the --output extension (.csv, .json, .html, "
                             ".tex), else text")
    parser.add_argument("--output", "-o", default=None, metavar="FILE",
                        help="write here instead of stdout (the format follows the extension)")


#: output formats of :func:`write_result` and the file extensions that select them
FORMATS = {"text": (".txt",), "csv": (".csv",), "json": (".json",), "html": (".html", ".htm"),
           "latex": (".tex",)}


def output_format(args: argparse.Namespace) -> str:
    """``--format`` if given, else the format named by the ``--output`` extension, else text."""
    fmt = getattr(args, "format", None)
    if fmt:
        return fmt
    output = getattr(args, "output", None)
    if output not in (None, "-"):
        suffix = Path(output).suffix.lower()
        for name, suffixes in FORMATS.items():
            if suffix in suffixes:
                return name
    return "text"


def _emit(text: str, output: str | None) -> None:
    if output in (None, "-"):
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        Path(output).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")


def _html_page(body: str, title: str) -> str:
    import html

    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
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


def write_result(result: Any, args: argparse.Namespace) -> int:
    """Print or save a result (anything with ``summary()``/``to_frame()``, or a DataFrame).

    The format is ``--format``, or else the ``--output`` extension (:func:`output_format`): the
    summary as text, HTML (a page of its own when written to a file) or LaTeX, or the tidy table
    ``to_frame()`` as CSV or JSON records (row labels such as ``group`` become columns).
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
        frame = _tidy(frame)
        text = frame.to_csv(index=False) if fmt == "csv" else json.dumps(
            json.loads(frame.to_json(orient="records", double_precision=15)), indent=2)
    elif frame is not None:
        text = {"text": lambda: frame.to_string(index=False), "html": frame.to_html,
                "latex": frame.to_latex}[fmt]()
    else:
        summary = result.summary() if hasattr(result, "summary") else None
        if summary is None:
            text = str(result)
        else:
            text = {"text": summary.as_text, "html": summary.as_html, "latex": summary.as_latex}[fmt]()
            if fmt == "html" and output not in (None, "-"):
                text = _html_page(text, summary.title)
    _emit(text, output)
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
# option values
# ---------------------------------------------------------------------------------------------

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


def _rates(text: str) -> str | dict:
    """``estimate``, ``pooled``, ``rho=..,eta=..`` or a JSON mapping (per group)."""
    if text in ("estimate", "pooled"):
        return text
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
        f"--rates {text!r}: use estimate, pooled, known rates rho=0.7,eta=0.8, or a JSON object "
        "per group '{\"sysA\": {\"rho\": 0.7, \"eta\": 0.8}, ...}'")


def _tolerance(text: str) -> float | dict[str, float]:
    try:
        return float(text)
    except ValueError:
        return _key_values(text, "--tolerance")


def _pairs(text: str) -> str | list[tuple[str, str]]:
    if text == "all":
        return text
    pairs = []
    for part in text.split(","):
        a, sep, b = part.partition(":")
        if not sep or not a.strip() or not b.strip():
            raise argparse.ArgumentTypeError(
                f"--pairs {text!r}: give 'all' or SYSTEM1:SYSTEM2 pairs separated by commas")
        pairs.append((a.strip(), b.strip()))
    return pairs


def _add_fit_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--threshold", "-t", type=_threshold, default=None, metavar="NUMBER|RULE",
                   help="for a scalar metric: positive when score >= NUMBER, or a rule: balanced "
                        "(|rho - eta| smallest, the papers' rule) or youden (rho + eta largest)")
    p.add_argument("--rates", type=_rates, default="estimate", metavar="MODE",
                   help="estimate (rho, eta per group; default), pooled (one pair for all groups), "
                        "known values rho=0.7,eta=0.8, or a JSON object with known values per group")
    p.add_argument("--prior", type=_number_pair("--prior"), default=(1.0, 1.0), metavar="A,B",
                   help="Beta prior of alpha (default: 1,1)")
    p.add_argument("--rate-prior", type=_number_pair("--rate-prior"), default=(1.0, 1.0),
                   metavar="A,B", help="Beta prior of rho and eta (default: 1,1)")
    p.add_argument("--level", type=float, default=0.95,
                   help="credible level of intervals and comparisons (default: 0.95)")


def _fit_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {"threshold": args.threshold, "rates": args.rates, "prior": args.prior,
            "rate_prior": args.rate_prior, "level": args.level}


# ---------------------------------------------------------------------------------------------
# fit
# ---------------------------------------------------------------------------------------------

@subcommand
def add_fit_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "fit", help="fit the binary evaluation model (rate of adequate outputs per system)",
        description="Fit the binary evaluation model to the table in --data and print its summary "
                    "(the same as binaryeval.fit(FORMULA, data, ...).summary()). Human ratings are "
                    "0/1 (empty = not rated); the metric is 0/1 or a score with --threshold.",
        epilog='example: binaryeval fit "I(mqm == 0) ~ chrf | system" --data wmt21.csv '
               '--threshold balanced -o fit.csv')
    p.add_argument("formula", help='"human ~ metric | system", e.g. "I(mqm == 0) ~ chrf | system"; '
                                   '"human ~ 1 | system" for human ratings only')
    add_data_arguments(p)
    _add_fit_options(p)
    p.add_argument("--method", choices=["exact", "grid"], default="exact",
                   help="posterior engine (default: exact)")
    p.add_argument("--compare", action="store_true",
                   help="write the pairwise comparison of groups (result.compare()) instead")
    p.add_argument("--compare-method", choices=["bayes", "z"], default="bayes",
                   help="with --compare: posterior probability (bayes, default) or z-test")
    p.add_argument("--adjust", default=None, metavar="METHOD",
                   help="with --compare: multiple-testing adjustment (holm, bonferroni, fdr_bh, ...)")
    add_output_arguments(p)

    def run(args: argparse.Namespace) -> int:
        from .binary import fit

        result = fit(args.formula, read_data(args), method=args.method, **_fit_kwargs(args))
        if args.compare:
            result = result.compare(method=args.compare_method, adjust=args.adjust)
        return write_result(result, args)

    p.set_defaults(func=run)


# ---------------------------------------------------------------------------------------------
# favi
# ---------------------------------------------------------------------------------------------

@subcommand
def add_favi_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "favi", help="Favi-Scores: does the metric favour some systems over others?",
        description="Compare the metric's preferences between pairs of systems with the humans' and "
                    "print the summary of binaryeval.favi(FORMULA, data, item=ITEM, ...). Data hold "
                    "one row per (item, system) with scores, or one row per (item, system_a, "
                    "system_b) with preferences (+/=/- or 1/0/-1).",
        epilog='example: binaryeval favi "mqm ~ chrf | system" --data wmt21.csv --item seg_id')
    p.add_argument("formula", help='"human ~ metric | system" (scores) or '
                                   '"human ~ metric | system_a + system_b" (preferences)')
    add_data_arguments(p)
    p.add_argument("--item", required=True, metavar="COLUMN",
                   help="column naming the input (segment, document) shared by the systems")
    p.add_argument("--pairs", type=_pairs, default="all", metavar="A:B,...",
                   help="system pairs to compare (default: all)")
    p.add_argument("--tolerance", type=_tolerance, default=0.0, metavar="T",
                   help="score differences <= T count as ties; human=T1,metric=T2 for separate "
                        "scales (default: 0)")
    p.add_argument("--lower-is-better", nargs="+", default=[], metavar="TERM",
                   help="terms (human or metric, as in the formula) whose lower scores are better, "
                        "e.g. mqm for MQM penalty points or ter")
    p.add_argument("--ties", choices=["drop", "split"], default="drop",
                   help="tie rule of the sign tests (default: drop)")
    p.add_argument("--sig-level", type=float, default=0.05,
                   help="significance threshold of the sign tests (default: 0.05)")
    p.add_argument("--unpaired", choices=["warn", "raise", "count"], default="warn",
                   help="items rated for one system of a pair only: skipped and counted; warn "
                        "(default), raise an error, or just count")
    add_output_arguments(p)

    def run(args: argparse.Namespace) -> int:
        from .favoritism import favi

        result = favi(args.formula, read_data(args), item=args.item, pairs=args.pairs,
                      tolerance=args.tolerance,
                      lower_is_better=args.lower_is_better, sign_test_ties=args.ties,
                      sig_level=args.sig_level, unpaired=args.unpaired)
        return write_result(result, args)

    p.set_defaults(func=run)


# ---------------------------------------------------------------------------------------------
# correlate
# ---------------------------------------------------------------------------------------------

@subcommand
def add_correlate_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "correlate", help="correlate metrics with human scores over systems (Williams tests)",
        description="Correlate each metric with the human score over systems and print the summary "
                    "of binaryeval.correlate(FORMULA, data, method=...): intervals and Williams "
                    "p-values. Segment rows are averaged per system first when the formula ends "
                    "in '| system'.",
        epilog='example: binaryeval correlate "mqm ~ chrf + bleu + I(-ter) | system" --data wmt21.csv')
    p.add_argument("formula", help='"human ~ metric_1 + metric_2 + ..." (one row per system) or '
                                   '"human ~ metrics | system" (segment rows)')
    add_data_arguments(p)
    p.add_argument("--method", choices=["pearson", "spearman", "kendall"], default="pearson",
                   help="correlation coefficient (default: pearson)")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default: 0.95)")
    p.add_argument("--lower-is-better", nargs="+", default=[], metavar="TERM",
                   help="terms on either side of the formula where lower is better, negated "
                        "first, e.g. ter, or mqm for raw MQM penalties")
    p.add_argument("--aggregate", choices=["mean", "median"], default="mean",
                   help="with '| system': how segment rows become system scores (default: mean)")
    p.add_argument("--absolute", action="store_true",
                   help="negate every metric that correlates negatively (the WMT |r| convention)")
    p.add_argument("--pairwise", action="store_true",
                   help="write the table of pairwise Williams tests and Zou intervals instead")
    add_output_arguments(p)

    def run(args: argparse.Namespace) -> int:
        from .correlation import correlate

        result = correlate(args.formula, read_data(args), method=args.method, level=args.level,
                           lower_is_better=args.lower_is_better, aggregate=args.aggregate,
                           absolute=args.absolute)
        return write_result(result.pairwise() if args.pairwise else result, args)

    p.set_defaults(func=run)


# ---------------------------------------------------------------------------------------------
# plan
# ---------------------------------------------------------------------------------------------

def _sizes(text: str) -> list[int]:
    try:
        values = [int(t) for t in text.replace(",", " ").split()]
    except ValueError:
        values = []
    if not values:
        raise argparse.ArgumentTypeError(f"{text!r}: give whole numbers, e.g. 0,100,1000")
    return values


@subcommand
def add_plan_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "plan", help="plan an evaluation: detectable differences and sample sizes",
        description="Planning with the binary evaluation model (binaryeval.plan). "
                    "'difference': the minimal difference in alpha two systems must have to be told "
                    "apart with the given ratings (detectable_difference); 'table': the same over "
                    "every combination of --n-human and --n-metric (detectable_difference_table; "
                    "default sizes: the paper's Table 12); 'size': the smallest number of ratings "
                    "of one kind (--vary) reaching --epsilon (required_sample_size).",
        epilog="example: binaryeval plan difference --alpha 0.6 --rho 0.7 --n-human 1000 "
               "--rates known")
    p.add_argument("what", choices=["difference", "table", "size"],
                   help="difference, table or size (see above)")
    p.add_argument("--alpha", type=float, required=True, help="share of positive outputs")
    p.add_argument("--rho", type=float, required=True, help="the metric's true-positive rate")
    p.add_argument("--eta", type=float, default=None,
                   help="the metric's true-negative rate (default: rho)")
    p.add_argument("--n-human", type=_sizes, default=None, metavar="N[,N...]",
                   help="human ratings informing alpha (several for 'table'; default 0, or the "
                        "paper's sizes for 'table')")
    p.add_argument("--n-metric", type=_sizes, default=None, metavar="N[,N...]",
                   help="metric-only ratings (several for 'table'; default 0, or the paper's sizes "
                        "for 'table')")
    p.add_argument("--n-paired", type=int, default=None, metavar="N",
                   help="items rated by both (default: the human-rated items)")
    p.add_argument("--psi", type=float, default=None,
                   help="share of positives in a separate paired set (n_paired > n_human)")
    p.add_argument("--sig-level", type=float, default=0.05,
                   help="significance level of the comparison (default: 0.05)")
    p.add_argument("--rates", choices=["estimate", "known"], default="estimate",
                   help="rho and eta estimated from the paired ratings (default) or known exactly")
    p.add_argument("--simulate", choices=["expected", "sample"], default="expected",
                   help="expected counts (the paper; default) or binomial draws (difference, table)")
    p.add_argument("--n-resamples", type=int, default=50,
                   help="simulated experiments with --simulate sample (default: 50)")
    p.add_argument("--seed", type=int, default=None, help="seed of the draws")
    p.add_argument("--rounding", choices=["half_up", "half_even"], default="half_up",
                   help="rounding of expected counts (default: half_up, the paper's)")
    p.add_argument("--method", choices=["exact", "grid"], default="exact",
                   help="posterior engine (default: exact)")
    p.add_argument("--prior", type=_number_pair("--prior"), default=(1.0, 1.0), metavar="A,B",
                   help="Beta prior of alpha (default: 1,1)")
    p.add_argument("--rate-prior", type=_number_pair("--rate-prior"), default=(1.0, 1.0),
                   metavar="A,B", help="Beta prior of rho and eta (default: 1,1)")
    p.add_argument("--epsilon", type=float, default=None,
                   help="size: the target detectable difference")
    p.add_argument("--vary", choices=["n_human", "n_metric", "n_paired"], default="n_human",
                   help="size: the number of ratings to choose (default: n_human)")
    p.add_argument("--max-size", type=int, default=10_000_000,
                   help="size: largest size tried (default: 10000000)")
    p.add_argument("--n-jobs", type=int, default=None, help="table: parallel jobs (joblib)")
    add_output_arguments(p)

    def one(values: list[int] | None, option: str, what: str) -> int:
        if values is None:
            return 0
        if len(values) != 1:
            raise ParameterError(f"{option} {','.join(map(str, values))}: '{what}' takes one "
                                 f"number; several sizes are for 'binaryeval plan table'")
        return values[0]

    def run(a: argparse.Namespace) -> int:
        import pandas as pd

        from . import plan

        common = {"eta": a.eta, "n_paired": a.n_paired, "sig_level": a.sig_level, "rates": a.rates,
                  "rounding": a.rounding, "psi": a.psi, "method": a.method, "prior": a.prior,
                  "rate_prior": a.rate_prior}
        if a.what == "size":
            if a.epsilon is None:
                raise ParameterError("plan size needs --epsilon, the target detectable difference, "
                                     "e.g. --epsilon 0.05")
            result = plan.required_sample_size(
                a.epsilon, vary=a.vary, alpha=a.alpha, rho=a.rho, n_human=one(a.n_human, "--n-human", a.what),
                n_metric=one(a.n_metric, "--n-metric", a.what), max_size=a.max_size, **common)
        elif a.what == "table":
            sizes = {}
            if a.n_human is not None:
                sizes["n_human"] = a.n_human
            if a.n_metric is not None:
                sizes["n_metric"] = a.n_metric
            result = plan.detectable_difference_table(
                a.alpha, a.rho, simulate=a.simulate, n_resamples=a.n_resamples, seed=a.seed, n_jobs=a.n_jobs,
                progress=False, **sizes, **common)
        else:
            n_human = one(a.n_human, "--n-human", a.what)
            n_metric = one(a.n_metric, "--n-metric", a.what)
            eps = plan.detectable_difference(a.alpha, a.rho, n_human=n_human, n_metric=n_metric,
                                             simulate=a.simulate, n_resamples=a.n_resamples, seed=a.seed,
                                             **common)
            result = pd.DataFrame([{
                "alpha": a.alpha, "rho": a.rho, "eta": a.rho if a.eta is None else a.eta,
                "n_human": n_human, "n_metric": n_metric,
                "n_paired": n_human if a.n_paired is None else a.n_paired, "sig_level": a.sig_level,
                "rates": a.rates, "epsilon": eps}])
        return write_result(result, a)

    p.set_defaults(func=run)


# ---------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------

#: name of the parameter file the report template reads from its own folder
REPORT_PARAMS = "report-params.json"


def report_template() -> str:
    """The text of the report template shipped in ``binaryeval/templates/report.qmd``."""
    from importlib.resources import files

    return (files("binaryeval") / "templates" / "report.qmd").read_text(encoding="utf-8")


def separation_sample_sizes(result: Any, level: float | None = None, comparison: Any = None):
    """How many human ratings per system would separate neighbours in the ranking.

    For each pair of systems adjacent in the ranking by posterior mean that the fit's pairwise
    comparison (``result.compare(level=level)``) does not separate, the posterior sds are assumed
    to shrink like ``1 / sqrt(n)`` as both systems get ``k`` times their ``n`` human ratings.  The
    pair is then separated at ``level`` by a normal approximation when
    ``|diff| = z * sqrt(sd_1^2 + sd_2^2) / sqrt(k)``, so
    ``k = (z * sqrt(sd_1^2 + sd_2^2) / |diff|)^2`` and ``n_needed = k * n_human`` per system,
    with ``z`` the ``(1 + level) / 2`` normal quantile.  This is a rough guide: it treats every
    source of information (metric ratings included) as growing with the human ratings, and the
    difference as staying the same.

    Parameters
    ----------
    result : BinaryFit
        A fit with at least two groups.
    level : float, optional
        Level of the comparison (default: the fit's level).
    comparison : Comparison, optional
        ``result.compare(level=level)`` when already computed (it takes a quadrature per pair).

    Returns
    -------
    DataFrame
        One row per unseparated neighbouring pair: ``system_1`` (higher mean), ``system_2``,
        ``diff``, ``std_error`` (sd of the difference), ``prob_greater``, ``n_human_1``,
        ``n_human_2``, ``factor`` (``k``), ``n_needed_1``, ``n_needed_2`` (rounded up),
        ``more_1``, ``more_2`` (additional human ratings, at least 0).  ``attrs`` hold ``level``,
        ``z`` and ``n_pairs_not_separated`` (over all pairs, neighbours or not).

    Examples
    --------
    >>> import pandas as pd
    >>> import binaryeval as be
    >>> df = pd.DataFrame({"system": ["A"] * 50 + ["B"] * 50,
    ...                    "human": [1] * 30 + [0] * 20 + [1] * 27 + [0] * 23})
    >>> plan = separation_sample_sizes(be.fit("human ~ 1 | system", df))
    >>> plan[["system_1", "system_2", "factor", "n_needed_1"]].round(2).to_dict("records")
    [{'system_1': 'A', 'system_2': 'B', 'factor': 10.65, 'n_needed_1': 533}]
    """
    import math

    import numpy as np
    import pandas as pd
    from scipy import stats

    level = result.level if level is None else level
    if not 0 < level < 1:
        raise ParameterError(f"level={level!r} must lie strictly between 0 and 1, e.g. 0.95")
    z = float(stats.norm.ppf(0.5 + level / 2))
    frame = result.to_frame(level)
    if comparison is None:
        comparison = result.compare(level=level)
    elif not math.isclose(comparison.level, level):
        raise ParameterError(f"comparison was made at level {comparison.level:g}, not {level:g}; "
                             f"pass result.compare(level={level:g})")
    pairs = comparison.to_frame()
    separated, greater = {}, {}
    for r in pairs.itertuples(index=False):
        separated[(r.group_1, r.group_2)] = separated[(r.group_2, r.group_1)] = bool(r.significant)
        greater[(r.group_1, r.group_2)] = float(r.prob_greater)
        greater[(r.group_2, r.group_1)] = 1.0 - float(r.prob_greater)
    ranked = frame.sort_values("estimate", ascending=False, kind="stable")
    rows = []
    for g1, g2 in zip(ranked.index[:-1], ranked.index[1:], strict=True):
        if separated[(g1, g2)]:
            continue
        a, b = ranked.loc[g1], ranked.loc[g2]
        diff = float(a["estimate"] - b["estimate"])
        se = math.sqrt(a["std_error"] ** 2 + b["std_error"] ** 2)
        factor = (z * se / diff) ** 2 if diff > 0 else math.inf
        row = {"system_1": g1, "system_2": g2, "diff": diff, "std_error": se,
               "prob_greater": greater[(g1, g2)],
               "n_human_1": int(a["n_human"]), "n_human_2": int(b["n_human"]), "factor": factor}
        for i, n in ((1, int(a["n_human"])), (2, int(b["n_human"]))):
            needed = math.ceil(factor * n) if math.isfinite(factor) and n > 0 else np.nan
            row[f"n_needed_{i}"] = needed
            row[f"more_{i}"] = max(needed - n, 0) if needed == needed else np.nan
        rows.append(row)
    columns = ["system_1", "system_2", "diff", "std_error", "prob_greater", "n_human_1", "n_human_2",
               "factor", "n_needed_1", "n_needed_2", "more_1", "more_2"]
    out = pd.DataFrame(rows, columns=columns)
    out.attrs.update(level=level, z=z, n_pairs_not_separated=int((~pairs["significant"]).sum()),
                     method="normal approximation, posterior sd proportional to 1/sqrt(n)")
    return out


def _report_document(template: str, title: str, subtitle: str) -> str:
    """The template with ``title`` and ``subtitle`` set in its YAML header."""
    import yaml

    from .reports import _split_header

    header, body = _split_header(template, "report template")
    header.update(title=title, subtitle=subtitle)
    return "---\n" + yaml.safe_dump(header, sort_keys=False, allow_unicode=True) + "---\n" + body


def _report_command(args: argparse.Namespace) -> str:
    """The ``binaryeval report`` command line that makes this report (shown in the report)."""
    import shlex

    words = ["binaryeval", "report", str(args.data), "--formula", args.formula]
    if args.query:
        words += ["--query", args.query]
    if args.threshold is not None:
        words += ["--threshold", f"{args.threshold:g}" if isinstance(args.threshold, float)
                  else str(args.threshold)]
    if args.rates != "estimate":
        words += ["--rates", args.rates if isinstance(args.rates, str) else json.dumps(args.rates)]
    for option, value in (("--prior", args.prior), ("--rate-prior", args.rate_prior)):
        if tuple(value) != (1.0, 1.0):
            words += [option, ",".join(f"{v:g}" for v in value)]
    if args.level != 0.95:
        words += ["--level", f"{args.level:g}"]
    return shlex.join(words)


@subcommand
def add_report_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "report", help="an HTML report of the binary evaluation model on your data",
        description="Fit the binary evaluation model to DATA and write a self-contained HTML report: "
                    "the data and the rows used, the fit's summary, posterior and interval plots, "
                    "the pairwise comparison heatmap, the metric's ROC curve (with --threshold) "
                    "and how many more human ratings would separate neighbouring systems. The "
                    "report template (binaryeval/templates/report.qmd) is filled with these "
                    "options and rendered with Jupyter (or Quarto, --engine quarto).",
        epilog='example: binaryeval report wmt21.csv --formula "I(mqm == 0) ~ chrf | system" '
               '--threshold balanced -o report.html')
    p.add_argument("data", metavar="DATA",
                   help="table: .csv, .tsv, .parquet or .json file, or a shipped dataset name")
    p.add_argument("--formula", required=True,
                   help='"human ~ metric | system", e.g. "I(mqm == 0) ~ chrf | system"')
    p.add_argument("--query", "-q", default=None, metavar="EXPR",
                   help="keep the rows matching this pandas query, e.g. \"lp == 'en-de'\"")
    _add_fit_options(p)
    p.add_argument("--title", default=None, help="report title (default: from DATA)")
    p.add_argument("--output", "-o", default=None, metavar="FILE.html",
                   help="the HTML file to write (default: DATA's name + '-report.html')")
    p.add_argument("--engine", choices=["jupyter", "quarto", "auto"], default="jupyter",
                   help="renderer (default: jupyter; auto uses Quarto when installed)")
    p.add_argument("--timeout", type=int, default=600, metavar="SECONDS",
                   help="time allowed per report chunk (default: 600)")

    def run(args: argparse.Namespace) -> int:
        import shutil
        import tempfile
        import warnings

        from .binary import fit
        from .reports import render

        data = read_table(args.data, args.query, option="DATA")
        # the model is fitted here first so that a bad formula or option is reported as such,
        # not as a failed chunk; its warnings appear in the report's notes
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit(args.formula, data, **_fit_kwargs(args))
        source = Path(args.data)
        is_file = source.is_file()
        name = source.name if is_file else str(args.data)
        stem = source.name.split(".")[0] if is_file else str(args.data)
        target = Path(args.output) if args.output else Path(f"{stem}-report.html")
        params = {"data": str(source.resolve()) if is_file else str(args.data), "name": name,
                  "query": args.query, "formula": args.formula, **_fit_kwargs(args)}
        params["prior"] = list(params["prior"])
        params["rate_prior"] = list(params["rate_prior"])
        params["command"] = _report_command(args)
        title = args.title or f"Binary evaluation report: {name}"
        subtitle = args.formula + (f" (rows where {args.query})" if args.query else "")
        with tempfile.TemporaryDirectory(prefix="binaryeval-report-") as tmp:
            folder = Path(tmp)
            doc = folder / "report.qmd"
            doc.write_text(_report_document(report_template(), title, subtitle), encoding="utf-8")
            (folder / REPORT_PARAMS).write_text(json.dumps(params, indent=2), encoding="utf-8")
            written = render([doc], output_dir=folder / "html", engine=args.engine,
                             timeout=args.timeout, index=False)
            if target.parent != Path(""):
                target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(written[0], target)
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
    with warnings.catch_warnings(record=True) as caught:
        try:
            code = int(args.func(args) or 0)
        except BinaryEvalError as exc:
            code = 1
            message = f"{PROG} {args.command}: error: {exc}"
        else:
            message = None
    # warnings (identifiability, unpaired items, ...) go to stderr as one line each
    for w in caught:
        print(f"{PROG} {args.command}: warning: {w.message}", file=sys.stderr)
    if message:
        print(message, file=sys.stderr)
    return code
