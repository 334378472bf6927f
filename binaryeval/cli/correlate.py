"""``binaryeval correlate``: correlations with human scores and their comparison."""

from __future__ import annotations

import argparse

from ._common import (
    add_data_arguments,
    add_output_arguments,
    dask_session,
    read_data,
    subcommand,
    write_result,
)


@subcommand
def add_correlate_parser(subparsers) -> None:
    """Add the ``correlate`` subcommand to ``subparsers`` (see ``binaryeval correlate --help``)."""
    p = subparsers.add_parser(
        "correlate", help="correlate metrics with human scores over systems (Williams tests)",
        description="Correlate each metric with the human score over systems and print the summary "
                    "of binaryeval.correlate(FORMULA, data, method=...): intervals and Williams "
                    "p-values. Segment rows are averaged per system first when the formula ends "
                    "in '| system'.",
        epilog='example: binaryeval correlate "mqm ~ chrf + bleu + I(-ter) | system" --data wmt21.csv')
    p.add_argument("formula", help='"human ~ metric_1 + metric_2 + ..." (one row per system) or '
                                   '"human ~ metrics | system" (segment rows)')
    add_data_arguments(p, dask=True)
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
                   help="write the table of pairwise Williams tests and Zou intervals instead; "
                        "p_value is one-sided (metric_1 correlates more strongly than metric_2; "
                        "the reversed pair is the other row), lower/upper Zou's two-sided "
                        "interval of r_1 - r_2 at --level")
    add_output_arguments(p)

    def run(args: argparse.Namespace) -> int:
        from ..correlation import correlate

        if args.pairwise:
            _refuse_one_metric(args.formula)
        with dask_session(args):
            result = correlate(args.formula, read_data(args), method=args.method,
                               level=args.level, lower_is_better=args.lower_is_better,
                               aggregate=args.aggregate, absolute=args.absolute,
                               eval_env={})  # columns only, never variables of this process
        return write_result(result.pairwise() if args.pairwise else result, args)

    p.set_defaults(func=run)


def _refuse_one_metric(formula: str) -> None:
    """Refuse ``--pairwise`` with one metric term, before the data are read (no pair to test)."""
    from ..errors import FormulaError, ParameterError
    from ..formula import parse_formula

    try:
        terms = parse_formula(formula).rhs_names
    except FormulaError:
        return  # correlate() reports it, with a caret
    if len(terms) < 2:
        raise ParameterError(f"--pairwise tests metrics against each other; the formula "
                             f"{formula!r} has {len(terms)} metric term"
                             f"{'' if len(terms) == 1 else 's'}: add another, e.g. "
                             "'human ~ bleu + chrf', or leave --pairwise out")
