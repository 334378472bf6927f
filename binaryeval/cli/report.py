"""``binaryeval report``: an HTML report of a fit on the user's own data."""

from __future__ import annotations

import argparse
import json
import shlex

from ._common import (
    _add_fit_options,
    _add_sampler_options,
    _fit_kwargs,
    _sampler_kwargs,
    add_force_argument,
    subcommand,
)
from .preferences import add_preference_data_arguments


def _report_command(args: argparse.Namespace) -> str:
    """The ``binaryeval report`` command line that makes this report (shown in the report)."""
    words = ["binaryeval", "report", str(args.data), "--formula", args.formula]
    if args.query:
        words += ["--query", args.query]
    for option, value in (("--item", args.item), ("--first", args.first),
                          ("--second", args.second)):
        if value:
            words += [option, value]
    if args.tolerance not in (0, 0.0):
        words += ["--tolerance", f"{args.tolerance:g}" if isinstance(args.tolerance, float)
                  else ",".join(f"{k}={v:g}" for k, v in args.tolerance.items())]
    for option, value in (("--seed", args.seed), ("--draws", None if args.draws == 1000
                                                   else args.draws),
                          ("--chains", None if args.chains == 4 else args.chains)):
        if value is not None:
            words += [option, str(value)]
    if args.threshold is not None:
        words += ["--threshold", f"{args.threshold:g}" if isinstance(args.threshold, float)
                  else str(args.threshold)]
    if args.lower_is_better:
        words += ["--lower-is-better", *args.lower_is_better]
    if args.rates != "estimate":
        words += ["--rates", args.rates if isinstance(args.rates, str) else json.dumps(args.rates)]
    for option, value in (("--prior", args.prior), ("--rate-prior", args.rate_prior)):
        if tuple(value) != (1.0, 1.0):
            words += [option, ",".join(f"{v:g}" for v in value)]
    if args.level != 0.95:
        words += ["--level", f"{args.level:g}"]
    if args.include_prior_dominated:
        words.append("--include-prior-dominated")
    return shlex.join(words)


@subcommand
def add_report_parser(subparsers) -> None:
    """Add the ``report`` subcommand to ``subparsers`` (see ``binaryeval report --help``)."""
    p = subparsers.add_parser(
        "report", help="an HTML report of the evaluation model on your data",
        description="Fit the binary evaluation model to DATA and write a self-contained HTML report: "
                    "the data and the rows used, the fit's summary, posterior and interval plots, "
                    "the pairwise comparison heatmap, the metric's ROC curve (with --threshold) "
                    "and how many more human ratings would separate neighbouring systems. With "
                    "--item (scores per item and system) or --first/--second (ready "
                    "preferences), a preference report instead: per-pair differences, the "
                    "corrected ranking, the metric's confusion matrix and Favi-Scores, and what "
                    "more human ratings would decide. The templates "
                    "(binaryeval/reports/templates/) are filled with these options and rendered "
                    "with Jupyter (or Quarto, --engine quarto).",
        epilog='example: binaryeval report wmt21.csv --formula "I(mqm == 0) ~ chrf | system" '
               '--threshold balanced -o report.html; preference data: binaryeval report '
               'wmt21_ende --formula "mqm ~ chrf | system" --item seg_id --seed 1')
    p.add_argument("data", metavar="DATA",
                   help="table: .csv, .tsv, .parquet or .json file, or a shipped dataset name")
    p.add_argument("--formula", required=True,
                   help='"human ~ metric | system", e.g. "I(mqm == 0) ~ chrf | system"')
    p.add_argument("--query", "-q", default=None, metavar="EXPR",
                   help="keep the rows matching this pandas query, e.g. \"lp == 'en-de'\"")
    _add_fit_options(p)
    group = p.add_argument_group("preference data", "--item or --first/--second: the "
                                 "preference report (binaryeval.fit_preferences)")
    add_preference_data_arguments(group, lower_is_better=False)
    group.add_argument("--include-prior-dominated", action="store_true",
                       help="keep the pairs whose posterior is essentially the prior (too few "
                            "human ratings) in the ranking; by default they are named and "
                            "left out")
    _add_sampler_options(p, dependence=False)
    p.add_argument("--title", default=None, help="report title (default: from DATA)")
    p.add_argument("--output", "-o", default=None, metavar="FILE.html",
                   help="the HTML file to write (default: DATA's name + '-report.html'); never "
                        "over DATA, nor over an existing file without --overwrite")
    add_force_argument(p)
    p.add_argument("--engine", choices=["jupyter", "quarto", "auto"], default="jupyter",
                   help="renderer (default: jupyter; auto uses Quarto when installed)")
    p.add_argument("--timeout", type=int, default=600, metavar="SECONDS",
                   help="time allowed per report chunk (default: 600)")

    def run(args: argparse.Namespace) -> int:
        from ..reports import make_report

        preference = {"item": args.item, "first": args.first, "second": args.second,
                      "tolerance": args.tolerance, **_sampler_kwargs(args)}
        if args.include_prior_dominated:
            preference["include_prior_dominated"] = True
        path = make_report(args.data, args.formula, query=args.query, title=args.title,
                           output=args.output, overwrite=args.overwrite, engine=args.engine,
                           timeout=args.timeout,
                           command=_report_command(args), **_fit_kwargs(args), **preference)
        print(path)
        return 0

    p.set_defaults(func=run)
