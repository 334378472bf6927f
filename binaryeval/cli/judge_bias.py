"""``binaryeval judge-bias``: the judge's confusion by position and by a covariate."""

from __future__ import annotations

import argparse

from ..errors import ParameterError
from ._common import (
    _bins,
    add_data_arguments,
    add_output_arguments,
    read_data,
    subcommand,
    write_result,
)


@subcommand
def add_judge_bias_parser(subparsers) -> None:
    """Add the ``judge-bias`` subcommand (see ``binaryeval judge-bias --help``)."""
    p = subparsers.add_parser(
        "judge-bias", help="the judge's confusion by position and by a covariate",
        description="Estimate, on the rows humans rated too, whether the judge's errors depend "
                    "on the order the outputs were shown (--shown-first: its lean towards the "
                    "output shown first at a true tie, with an interval) or on a covariate "
                    "(--by: one confusion matrix per level, a Bayes factor against one matrix "
                    "for all). The same as binaryeval.judge_bias(FORMULA, data, ...).summary().",
        epilog='examples: binaryeval judge-bias "human ~ judge" --data battles.csv --first '
               'model_a --second model_b --shown-first shown --by length --bins 4; ratings of '
               'single outputs: binaryeval judge-bias "human ~ I(judge > 5)" --data ratings.csv '
               '--by domain -o bias.csv')
    p.add_argument("formula", help='"human ~ judge": preferences (-1, 0, 1 or second/tie/first) '
                                   'with --first/--second, else ratings of single outputs')
    add_data_arguments(p)
    p.add_argument("--first", default=None, metavar="COLUMN",
                   help="preferences: the column naming each row's first system")
    p.add_argument("--second", default=None, metavar="COLUMN",
                   help="preferences: the column naming each row's second system")
    p.add_argument("--shown-first", default=None, metavar="COLUMN",
                   help="the column naming the system whose output was shown first")
    p.add_argument("--by", default=None, metavar="COLUMN",
                   help="a covariate (domain, response length): its levels, or --bins quantile "
                        "bins of a numeric column with more than 12 values")
    p.add_argument("--bins", type=_bins, default=4, metavar="K",
                   help="quantile bins of a numeric --by column (default: 4)")
    p.add_argument("--level", type=float, default=0.95, help="coverage of the intervals (default: 0.95)")
    add_output_arguments(p)

    def run(args: argparse.Namespace) -> int:
        import pandas as pd

        from ..io import _as_pandas_reads
        from ..latent import judge_bias
        from ..latent.judge_bias import _MAX_LEVELS

        if isinstance(args.bins, dict):
            # fit's --bins TERM=K bins metric terms; here one --by column is binned
            shown = ",".join(f"{term}={k}" for term, k in args.bins.items())
            raise ParameterError(f"--bins {shown}: judge-bias bins one column, the --by "
                                 "covariate: give one whole number, e.g. --bins 4")
        data = read_data(args)
        if args.by is not None and isinstance(data, pd.DataFrame) and args.by in data.columns:
            # read as written (levels 01 and 1 stay two, a domain named NA keeps its name); a
            # numeric covariate (more than 12 numbers) as numbers, to be binned
            number = _as_pandas_reads(data[args.by])
            if (pd.api.types.is_numeric_dtype(number)
                    and number.nunique() > _MAX_LEVELS):
                data = data.assign(**{args.by: number})
        # a formula on the command line reads columns only, never variables of this process
        result = judge_bias(args.formula, data, first=args.first, second=args.second,
                            shown_first=args.shown_first, by=args.by, bins=args.bins,
                            level=args.level, eval_env={})
        return write_result(result, args)

    p.set_defaults(func=run)
