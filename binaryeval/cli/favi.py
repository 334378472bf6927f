"""``binaryeval favi``: Favi-Scores of a preference metric."""

from __future__ import annotations

import argparse

from ..errors import ParameterError
from ._common import (
    _pairs,
    _tolerance,
    add_data_arguments,
    add_output_arguments,
    add_renamed_option,
    dask_session,
    read_data,
    subcommand,
    write_result,
)


@subcommand
def add_favi_parser(subparsers) -> None:
    """Add the ``favi`` subcommand to ``subparsers`` (see ``binaryeval favi --help``)."""
    p = subparsers.add_parser(
        "favi", help="Favi-Scores: does the metric favour some systems over others?",
        description="Compare the metric's preferences between pairs of systems with the humans' and "
                    "print the summary of binaryeval.favi(FORMULA, data, item=ITEM, ...). Data hold "
                    "one row per (item, system) with scores, or one row per (item, system_a, "
                    "system_b) with preferences (+/=/- or 1/0/-1).",
        epilog='example: binaryeval favi "mqm ~ chrf | system" --data wmt21.csv --item seg_id')
    p.add_argument("formula", help='"human ~ metric | system" (scores) or '
                                   '"human ~ metric | system_a + system_b" (preferences)')
    add_data_arguments(p, dask=True)
    p.add_argument("--item", required=True, metavar="COLUMN",
                   help="column naming the input (segment, document) shared by the systems")
    p.add_argument("--pairs", type=_pairs, default="all", metavar="A:B,...",
                   help="system pairs to compare (default: all)")
    p.add_argument("--tolerance", type=_tolerance, default=0.0, metavar="T|TERM=T,...",
                   help="score differences <= T count as ties; TERM=T per term as written in the "
                        "formula (or human=T1,metric=T2) for separate scales (default: 0)")
    p.add_argument("--lower-is-better", nargs="+", default=[], metavar="TERM",
                   help="terms (human or metric, as in the formula) whose lower scores are better, "
                        "e.g. mqm for MQM penalty points or ter")
    p.add_argument("--sign-test-ties", choices=["drop", "split"], default="drop",
                   help="tie rule of the sign tests (default: drop)")
    add_renamed_option(p, "--ties", "--sign-test-ties")
    p.add_argument("--sig-level", type=float, default=0.05,
                   help="significance threshold of the sign tests (default: 0.05)")
    p.add_argument("--unpaired", choices=["warn", "raise", "count"], default="warn",
                   help="items rated for one system of a pair only: skipped and counted; warn "
                        "(default), raise an error, or just count")
    add_output_arguments(p)

    def run(args: argparse.Namespace) -> int:
        from ..favoritism import favi

        if args.pairs == "neighbours":
            # refused before the data are read, in the command's words (not a Python list)
            raise ParameterError("--pairs neighbours: favi compares rated pairs, which have no "
                                 "order of systems to take neighbours in; give --pairs all "
                                 "(every pair, the default) or SYSTEM1:SYSTEM2 pairs separated "
                                 "by commas, e.g. --pairs A:B,A:C")
        with dask_session(args):
            result = favi(args.formula, read_data(args), item=args.item, pairs=args.pairs,
                          tolerance=args.tolerance,
                          lower_is_better=args.lower_is_better, sign_test_ties=args.sign_test_ties,
                          sig_level=args.sig_level, unpaired=args.unpaired)
        return write_result(result, args)

    p.set_defaults(func=run)
