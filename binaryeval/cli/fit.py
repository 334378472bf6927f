"""``binaryeval fit``: the binary evaluation model on a table."""

from __future__ import annotations

import argparse

from ._common import (
    _add_fit_options,
    _fit_kwargs,
    add_data_arguments,
    add_output_arguments,
    dask_session,
    read_data,
    subcommand,
    write_result,
)


@subcommand
def add_fit_parser(subparsers) -> None:
    """Add the ``fit`` subcommand to ``subparsers`` (see ``binaryeval fit --help``)."""
    p = subparsers.add_parser(
        "fit", help="fit the binary evaluation model (rate of adequate outputs per system)",
        description="Fit the binary evaluation model to the table in --data and print its summary "
                    "(the same as binaryeval.fit(FORMULA, data, ...).summary()). Human ratings are "
                    "0/1 (empty = not rated); the metric is 0/1 or a score with --threshold.",
        epilog='example: binaryeval fit "I(mqm == 0) ~ chrf | system" --data wmt21.csv '
               '--threshold balanced -o fit.csv; a folder of Parquet files larger than memory: '
               'binaryeval fit "human ~ judge | system" --data ratings/ --dask')
    p.add_argument("formula", help='"human ~ metric | system", e.g. "I(mqm == 0) ~ chrf | system"; '
                                   '"human ~ 1 | system" for human ratings only')
    add_data_arguments(p, dask=True)
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
        from ..api import fit

        with dask_session(args):
            # a formula on the command line reads columns only, never variables of this process
            result = fit(args.formula, read_data(args), method=args.method, eval_env={},
                         **_fit_kwargs(args))
        if args.compare:
            result = result.compare(method=args.compare_method, adjust=args.adjust)
        return write_result(result, args)

    p.set_defaults(func=run)
