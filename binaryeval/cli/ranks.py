"""``binaryeval ranks``: a leaderboard, each system's rank with a simultaneous interval."""

from __future__ import annotations

import argparse

from ..errors import ParameterError
from ._common import (
    _add_fit_options,
    _add_sampler_options,
    _bins,
    _fit_kwargs,
    _sampler_kwargs,
    add_data_arguments,
    add_output_arguments,
    read_data,
    subcommand,
    write_result,
)
from .preferences import add_preference_data_arguments


@subcommand
def add_ranks_parser(subparsers) -> None:
    """Add the ``ranks`` subcommand (see ``binaryeval ranks --help``)."""
    p = subparsers.add_parser(
        "ranks", help="a leaderboard: each system's rank with a simultaneous interval",
        description="Fit FORMULA to --data and print the systems' ranks (the same as "
                    "binaryeval.fit(...).ranks().summary(), or binaryeval.fit_preferences(...)"
                    ".ranks() with --item or --first/--second): the posterior rank of every "
                    "system, an interval that holds for all systems at once, the probability "
                    "of being best, and the rank from the metric (or judge) alone beside it. "
                    "Binary ratings rank by the rate of adequate outputs, preferences by the "
                    "average win rate.",
        epilog='examples: binaryeval ranks "I(mqm == 0) ~ chrf | system" --data wmt21_ende '
               '--threshold balanced --seed 1; verdicts of an LLM judge with some human votes: '
               'binaryeval ranks "human ~ judge" --data battles.csv --first model_a --second '
               'model_b --seed 1 -o ranks.csv')
    p.add_argument("formula", help='"human ~ metric | system" (binary ratings or scores; with '
                                   '--item, preferences from scores) or "human ~ judge" '
                                   '(ready preferences, with --first/--second)')
    add_data_arguments(p)
    _add_fit_options(p)
    p.add_argument("--bins", type=_bins, default=None, metavar="K|TERM=K,...",
                   help="enter a scalar metric in K bins through the latent-truth model")
    add_preference_data_arguments(p, lower_is_better=False)
    _add_sampler_options(p, seed_help="seed of the sampler; on the exact binary model (one "
                                      "binary or thresholded metric), which draws nothing, the "
                                      "seed of the rank intervals' joint draws")
    add_output_arguments(p)

    def run(args: argparse.Namespace) -> int:
        from ..api import fit
        from ..formula import parse_formula
        from ..latent import fit_preferences

        sampler = _sampler_kwargs(args)
        if args.item is not None or args.first is not None or args.second is not None:
            # refused before the data are read: the flags need none
            _refuse_binary_options(args)
            data = read_data(args)
            kwargs = {"item": args.item, "first": args.first, "second": args.second,
                      "rates": args.rates, "level": args.level, **sampler}
            if args.tolerance not in (0, 0.0):
                kwargs["tolerance"] = args.tolerance
            if args.lower_is_better:
                kwargs["lower_is_better"] = list(args.lower_is_better)
            # a formula on the command line reads columns only, never variables of this process
            return write_result(fit_preferences(args.formula, data, eval_env={},
                                                **kwargs).ranks(), args)
        if args.tolerance not in (0, 0.0):
            raise ParameterError("--tolerance: ties of preferences; give --item (scores per "
                                 "item and system) or --first/--second (ready preferences)")
        data = read_data(args)
        # the path binaryeval.fit takes: the exact binary model, unless several metric terms,
        # --bins, --dependence or --rates hierarchical ask for the latent-truth sampler
        binary = (len(parse_formula(args.formula).rhs) <= 1 and args.bins is None
                  and args.dependence is None
                  and not (isinstance(args.rates, str) and args.rates == "hierarchical"))
        # the exact binary model draws nothing: --seed seeds the rank intervals' draws instead
        seed = sampler.pop("seed", None) if binary else None
        result = fit(args.formula, data, eval_env={}, bins=args.bins, **_fit_kwargs(args),
                     **sampler)
        return write_result(result.ranks(seed=seed) if binary else result.ranks(), args)

    p.set_defaults(func=run)


def _refuse_binary_options(args: argparse.Namespace) -> None:
    """Refuse the options of binary ratings on preferences, saying what preferences take.

    Ready preferences (``--first``/``--second``) are verdicts taken as they are: ``--tolerance``
    and ``--lower-is-better``, which turn scores into preferences, do not apply to them either;
    preferences from scores (``--item``) take those two.
    """
    given = [f"{flag} {shown}" for flag, shown, used in (
        ("--threshold", _shown(args.threshold), args.threshold is not None),
        ("--bins", _shown(args.bins), args.bins is not None),
        ("--prior", _shown(args.prior), tuple(args.prior) != (1.0, 1.0)),
        ("--rate-prior", _shown(args.rate_prior), tuple(args.rate_prior) != (1.0, 1.0)))
        if used]
    if not given:
        return
    one = len(given) == 1
    said = (f"{' '.join(given)}: {'it applies' if one else 'they apply'} to ratings of "
            "single outputs (0/1 human ratings beside a metric's, without --item, --first and "
            "--second)")
    if args.item is None:
        raise ParameterError(
            f"{said}; ready preferences (--first/--second) are verdicts already (first/tie/"
            "second, 1/0/-1 or +/=/-), used as they are: leave "
            f"{'it' if one else 'them'} out; what applies to them is --rates, --level, "
            "--dependence (several judges) and the sampler's --seed, --draws and --chains")
    raise ParameterError(
        f"{said}; preferences from scores per item (--item) compare each item's scores as "
        f"they are: leave {'it' if one else 'them'} out; score differences up to --tolerance "
        "are ties, and --lower-is-better names the scores where lower is better")


def _shown(value) -> str:
    """An option's value as typed: ``1,1`` for a pair, ``score=3`` for a mapping."""
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, (tuple, list)):
        return ",".join(f"{x:g}" if isinstance(x, float) else str(x) for x in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
