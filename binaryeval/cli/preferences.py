"""``binaryeval preferences``: preference rates per system pair, corrected for a metric's errors."""

from __future__ import annotations

import argparse

from ._common import (
    _add_sampler_options,
    _order,
    _rates,
    _sampler_kwargs,
    _tolerance,
    add_data_arguments,
    add_output_arguments,
    read_data,
    subcommand,
    write_result,
)
from .fit import add_compare_and_plan_arguments, table_kwargs


def add_preference_data_arguments(p, *, lower_is_better: bool = True) -> None:
    """Add the options that say how the data become preferences.

    ``--item`` (scores per item and system) or ``--first``/``--second`` (ready preferences),
    ``--tolerance`` and ``--lower-is-better``.
    """
    p.add_argument("--item", default=None, metavar="COLUMN",
                   help="scores per (item, system): the column naming the input the systems' "
                        "outputs share (segment); the formula then ends in '| system'")
    p.add_argument("--first", default=None, metavar="COLUMN",
                   help="ready preferences: the column naming each row's first system")
    p.add_argument("--second", default=None, metavar="COLUMN",
                   help="ready preferences: the column naming each row's second system")
    p.add_argument("--tolerance", type=_tolerance, default=0.0, metavar="T|TERM=T,...",
                   help="score differences up to T are ties, one number or per term "
                        "(default: 0)")
    if lower_is_better:
        p.add_argument("--lower-is-better", nargs="+", default=[], metavar="TERM",
                       help="terms (human or metric) whose lower scores are better, e.g. an "
                            "MQM penalty or TER")


def preference_kwargs(args: argparse.Namespace) -> dict:
    """The options of :func:`binaryeval.fit_preferences` given on the command line."""
    out = {"item": args.item, "first": args.first, "second": args.second,
           "rates": args.rates, "level": args.level, "order": args.order, **_sampler_kwargs(args)}
    if args.tolerance not in (0, 0.0):
        out["tolerance"] = args.tolerance
    if args.lower_is_better:
        out["lower_is_better"] = list(args.lower_is_better)
    return out


@subcommand
def add_preferences_parser(subparsers) -> None:
    """Add the ``preferences`` subcommand (see ``binaryeval preferences --help``)."""
    p = subparsers.add_parser(
        "preferences", help="preference rates per system pair, corrected for a metric's errors",
        description="Fit the preference model to --data and print its summary (the same as "
                    "binaryeval.fit_preferences(FORMULA, data, ...).summary()): for every pair "
                    "of systems the share of items humans prefer from each, corrected for the "
                    "errors of the metric (or LLM judge) that rated the other items. Data hold "
                    "scores per (item, system) with --item, or ready preferences per row "
                    "(first/tie/second, +/=/- or 1/0/-1) with --first and --second.",
        epilog='examples: binaryeval preferences "mqm ~ chrf | system" --data wmt21_ende '
               '--item seg_id --seed 1; ready verdicts of a judge: binaryeval preferences '
               '"human ~ judge" --data battles.csv --first model_a --second model_b')
    p.add_argument("formula", help='"human ~ metric | system" (scores, with --item) or '
                                   '"human ~ metric" (ready preferences, with --first/--second); '
                                   'several metrics: "human ~ m1 + m2 | system"')
    add_data_arguments(p)
    add_preference_data_arguments(p)
    p.add_argument("--rates", type=_rates, default="estimate", metavar="MODE",
                   help="the metric's confusion matrix: estimate (per pair; default), pooled "
                        "(one for all pairs), hierarchical (per pair, partially pooled) or "
                        "known, as a JSON matrix '[[...], ...]' (rows: humans prefer first / "
                        "tie / second)")
    p.add_argument("--level", type=float, default=0.95,
                   help="credible level of the intervals (default: 0.95)")
    p.add_argument("--order", type=_order, default="estimate", metavar="estimate|input|A,B,...",
                   help="order of the systems in the comparison and plan")
    _add_sampler_options(p)
    add_compare_and_plan_arguments(p, units="systems", plan="decide each pair")
    add_output_arguments(p)

    def run(args: argparse.Namespace) -> int:
        from ..latent import fit_preferences

        # the flags that need no data are checked before the fit
        compare_kwargs, plan_kwargs = table_kwargs(args)
        # a formula on the command line reads columns only, never variables of this process
        result = fit_preferences(args.formula, read_data(args), eval_env={},
                                 **preference_kwargs(args))
        if args.compare:
            result = result.compare(**compare_kwargs)
        elif args.plan:
            result = result.plan(**plan_kwargs)
        return write_result(result, args)

    p.set_defaults(func=run)
