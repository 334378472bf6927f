"""``binaryeval fit``: the binary evaluation model on a table."""

from __future__ import annotations

import argparse

from ..errors import ParameterError
from ._common import (
    _add_fit_options,
    _add_sampler_options,
    _bins,
    _fit_kwargs,
    _order,
    _pairs,
    _sampler_kwargs,
    _use_dask,
    add_data_arguments,
    add_output_arguments,
    dask_session,
    output_format,
    read_data,
    subcommand,
    write_result,
)


@subcommand
def add_fit_parser(subparsers) -> None:
    """Add the ``fit`` subcommand to ``subparsers`` (see ``binaryeval fit --help``)."""
    p = subparsers.add_parser(
        "fit", help="fit the evaluation model (rate of adequate outputs per system)",
        description="Fit the evaluation model to the table in --data and print its summary "
                    "(the same as binaryeval.fit(FORMULA, data, ...).summary()). Human ratings are "
                    "0/1 (empty = not rated); one metric, 0/1 or a score with --threshold, is the "
                    "exact binary model; several metric terms (\"human ~ m1 + m2 | system\") or a "
                    "score entered in bins (--bins K) are the latent-truth model; long data, "
                    "one row per human rating, with --rater and --item is the rater-noise model "
                    "(the human raters err too: binaryeval.fit_raters).",
        epilog='example: binaryeval fit "I(mqm == 0) ~ chrf | system" --data wmt21.csv '
               '--threshold balanced -o fit.csv; binned: binaryeval fit "I(mqm == 0) ~ chrf | '
               'system" --data wmt21.csv --bins 3 --seed 1; a folder of Parquet files larger '
               'than memory: binaryeval fit "human ~ judge | system" --data ratings/ --dask; '
               'raters who err: binaryeval fit "rating ~ metric | system" --data long.csv '
               '--rater annotator --item seg_id --seed 1')
    p.add_argument("formula", help='"human ~ metric | system", e.g. "I(mqm == 0) ~ chrf | system"; '
                                   '"human ~ 1 | system" for human ratings only; "human ~ m1 + m2 '
                                   '| system" for several metrics')
    add_data_arguments(p, dask=True)
    _add_fit_options(p)
    p.add_argument("--method", choices=["exact", "grid"], default="exact",
                   help="posterior engine of the binary model (default: exact)")
    p.add_argument("--bins", type=_bins, default=None, metavar="K|TERM=K,...",
                   help="enter a scalar metric in K bins (edges: the paired rows' quantiles) "
                        "through the latent-truth model, instead of a threshold")
    p.add_argument("--order", type=_order, default="estimate", metavar="estimate|input|A,B,...",
                   help="order of the groups in tables: by estimate (default), as the names "
                        "sort, or as listed")
    _add_sampler_options(p)
    add_rater_arguments(p)
    p.add_argument("--n-jobs", type=int, default=None,
                   help="the binary model's rho and eta of many groups on this many parallel "
                        "jobs (joblib; -1: every core; default: one); not on the latent-truth "
                        "path")
    p.add_argument("--rate-intervals", action=argparse.BooleanOptionalAction, default=True,
                   help="with --no-rate-intervals, the table (csv/json) has the model's rho and "
                        "eta as means alone, without their intervals: some 0.4 ms a group "
                        "instead of 10 (to_frame(rate_intervals=False)); binary model only")
    add_compare_and_plan_arguments(p, units="groups", plan="separate neighbouring systems")
    add_output_arguments(p)
    p.add_argument("--excluded-rows", default=None, metavar="FILE",
                   help="also write the rows the fit left out to this CSV file: each row's "
                        "number in the data read (0 = the first row; with --query, among the "
                        "rows it kept) and the reason; the same --overwrite rule as --output")

    def run(args: argparse.Namespace) -> int:
        from ..api import fit
        from ..binary.result import BinaryFit

        # the flags that need no data are checked before the fit, which can take minutes
        compare_kwargs, plan_kwargs = table_kwargs(args)
        if plan_kwargs and (args.rater or args.item):
            flags = " ".join(f"{_PLAN_OPTIONS[name]} {_shown(value)}"
                             for name, value in plan_kwargs.items())
            raise ParameterError(f"{flags}: the rater-noise model's plan (--plan with --rater "
                                 "and --item) weighs another rating of a rated item against a "
                                 "new item for each group and takes none of these; leave them "
                                 "out")
        if args.excluded_rows is not None and _use_dask(args):
            raise ParameterError("--excluded-rows with --dask: a Dask frame's partitions "
                                 "number their rows each from 0, so the fit cannot say which "
                                 "rows it left out (the summary counts them by reason); leave "
                                 "--excluded-rows out, or read the data without --dask")
        _refuse_binary_flags_on_latent(args)
        if args.n_jobs is not None:
            from .._validate import n_jobs

            n_jobs(args.n_jobs)
        with dask_session(args):
            # a formula on the command line reads columns only, never variables of this process
            result = fit(args.formula, read_data(args), method=args.method, eval_env={},
                         bins=args.bins, order=args.order, **_fit_kwargs(args),
                         **_sampler_kwargs(args), **rater_kwargs(args))
        if args.excluded_rows is not None:
            _write_excluded_rows(result.excluded_rows, args.excluded_rows)
        # (what the checks before the fit could not foresee: refused all the same)
        model = "rater-noise model" if args.rater or args.item else "latent-truth model"
        if args.n_jobs is not None:
            if not isinstance(result, BinaryFit):
                raise ParameterError(f"--n-jobs {args.n_jobs}: it spreads the binary model's "
                                     f"rho and eta over groups (one 0/1 metric); this fit is the "
                                     f"{model}: leave --n-jobs out")
            if not (args.compare or args.plan):
                # the costly columns of the binary model's tables, computed once on the
                # workers (the summary and to_frame() read them from the fit)
                result.rates(n_jobs=args.n_jobs)
        if not args.rate_intervals:
            if not isinstance(result, BinaryFit):
                raise ParameterError("--no-rate-intervals: it leaves the binary model's rho and "
                                     "eta intervals out of its table; this fit is the "
                                     f"{model}: leave --no-rate-intervals out")
            if args.compare or args.plan:
                raise ParameterError("--no-rate-intervals shapes the fit's own table; "
                                     "--compare and --plan write other tables: leave it out")
            if output_format(args) in ("csv", "json"):
                result = result.to_frame(rate_intervals=False)
        if args.compare:
            result = result.compare(**compare_kwargs)
        elif args.plan:
            result = result.plan(**plan_kwargs)
        return write_result(result, args)

    p.set_defaults(func=run)


def _write_excluded_rows(rows, target: str) -> None:
    """The fit's ``excluded_rows`` as CSV (``row,reason``), written whole or not at all."""
    from .._output import write_atomic

    table = rows.rename_axis("row").to_frame()
    write_atomic(target, lambda tmp: table.to_csv(tmp, lineterminator="\n"))


def _latent_reason(args: argparse.Namespace) -> str | None:
    """What on the command line sends ``fit`` to the latent-truth model, or None.

    The same choice as :func:`binaryeval.fit`: several metric terms, ``--bins``,
    ``--dependence`` or ``--rates hierarchical``.  A formula that does not parse gives None (the
    fit reports it, with a caret).

    Examples
    --------
    >>> import argparse
    >>> from binaryeval.cli.fit import _latent_reason
    >>> _latent_reason(argparse.Namespace(formula="h ~ m1 + m2 | system", bins=None,
    ...                                   dependence=None, rates="estimate"))
    '2 metric terms (m1 + m2)'
    >>> _latent_reason(argparse.Namespace(formula="h ~ m | system", bins=None,
    ...                                   dependence=None, rates="estimate")) is None
    True
    """
    from ..errors import FormulaError
    from ..formula import parse_formula

    try:
        terms = parse_formula(args.formula).rhs_names
    except FormulaError:
        return None
    if len(terms) > 1:
        return f"{len(terms)} metric terms ({' + '.join(terms)})"
    if args.bins is not None:
        bins = args.bins if isinstance(args.bins, int) else ",".join(
            f"{term}={k}" for term, k in args.bins.items())
        return f"--bins {bins}"
    if args.dependence is not None:
        return f"--dependence {args.dependence}"
    if isinstance(args.rates, str) and args.rates == "hierarchical":
        return "--rates hierarchical"
    return None


def _refuse_binary_flags_on_latent(args: argparse.Namespace) -> None:
    """Refuse ``--n-jobs`` and ``--no-rate-intervals`` on the latent path, before any data.

    Both shape the binary model's columns of ``rho`` and ``eta`` per group; the latent-truth
    model has neither (its rates come from the draws of its sampler, in ``rates()``), and its
    fit can take minutes: the flags are refused before the data are read.
    """
    given = [flag for flag, on in ((f"--n-jobs {args.n_jobs}", args.n_jobs is not None),
                                   ("--no-rate-intervals", not args.rate_intervals)) if on]
    if not given:
        return
    one = len(given) == 1
    if getattr(args, "rater", None) or getattr(args, "item", None):
        raise ParameterError(
            f"{' and '.join(given)}: {'it shapes' if one else 'they shape'} the binary "
            "model's rho and eta per group; with --rater and --item the fit is the rater-noise "
            f"model, whose table has no such columns: leave {'it' if one else 'them'} out")
    reason = _latent_reason(args)
    if reason is None:
        return
    does = ["spreads the binary model's rho and eta of many groups over parallel jobs"
            if flag.startswith("--n-jobs") else
            "leaves the intervals of rho and eta out of the binary model's table"
            for flag in given]
    said = " and ".join(f"{flag} {what}" for flag, what in zip(given, does, strict=True))
    raise ParameterError(
        f"{said}; with {reason} the fit is "
        "the latent-truth model, whose table has no rho and eta columns (its sampler's "
        f"draws give them, in rates()): leave {'it' if one else 'them'} out, or fit one 0/1 or "
        "thresholded metric (--threshold) without --bins, --dependence and --rates "
        "hierarchical for the binary model")


def add_rater_arguments(p) -> None:
    """``--rater`` and ``--item`` (long data, one row per rating): the rater-noise model.

    With them ``fit`` is :func:`binaryeval.fit_raters` (through :func:`binaryeval.fit` with
    ``rater=`` and ``item=``): the human raters err too.  ``--raters``, ``--error-free`` and
    ``--rater-rates`` are its options.
    """
    group = p.add_argument_group(
        "rater-noise model", "long data, one row per human rating, with the rater and the "
        "item rated: the human raters err too (binaryeval.fit_raters); the sampler's --seed, "
        "--draws and --chains apply")
    group.add_argument("--rater", default=None, metavar="COLUMN",
                       help="the column naming who gave each rating (with --item)")
    group.add_argument("--item", default=None, metavar="COLUMN",
                       help="the column naming the item rated, within its group (with --rater)")
    group.add_argument("--raters", choices=["dawid-skene", "mace"], default=None,
                       help="the raters' error model: a confusion matrix per rater "
                            "(dawid-skene, default) or a competence and a guessing "
                            "distribution per rater (mace)")
    group.add_argument("--error-free", nargs="+", default=None, metavar="RATER",
                       help="raters read without error (their ratings are the truth)")
    group.add_argument("--rater-rates", choices=["estimate", "hierarchical"], default=None,
                       help="each rater's confusion under a fixed prior (estimate, default) or "
                            "drawn from a population learnt from all raters (hierarchical)")


def rater_kwargs(args: argparse.Namespace) -> dict:
    """The rater-noise model's arguments given on the command line (none: the other paths)."""
    given = {"rater": args.rater, "item": args.item, "raters": args.raters,
             "error_free": args.error_free, "rater_rates": args.rater_rates}
    return {name: value for name, value in given.items() if value is not None}


def add_compare_and_plan_arguments(p, *, units: str, plan: str) -> None:
    """``--compare`` with its method and adjustment, ``--plan`` with the arguments of plan().

    ``units`` names what is compared (groups, systems); ``plan`` says what the plan tells.
    """
    p.add_argument("--compare", action="store_true",
                   help=f"write the pairwise comparison of {units} (result.compare()) instead")
    p.add_argument("--compare-method", choices=["bayes", "z"], default=None,
                   help="with --compare: posterior probability (bayes, default) or z-test")
    p.add_argument("--adjust", default=None, metavar="METHOD",
                   help="with --compare: multiple-testing adjustment (holm, bonferroni, fdr_bh, ...)")
    p.add_argument("--plan", action="store_true",
                   help=f"write how many more human ratings would {plan} (result.plan()) "
                        "instead")
    plan_options = p.add_argument_group(
        "with --plan", "the arguments of result.plan() (left out: its defaults; the pairs "
        "are the neighbouring systems, every pair for preference fits)")
    plan_options.add_argument("--epsilon", type=float, default=None,
                              help="difference to detect (default: each pair's estimated one)")
    plan_options.add_argument("--sig-level", type=float, default=None,
                              help="significance level (default: 1 - the fit's --level)")
    plan_options.add_argument("--power", type=float, default=None,
                              help="chance of telling the pair apart (default 0.5, the papers' "
                                   "eps; 0.8 for four times in five)")
    plan_options.add_argument("--max-human", type=int, default=None,
                              help="the most human ratings a plan may ask for (default 100000)")
    plan_options.add_argument("--pairs", type=_pairs, default=None, metavar="A:B,...",
                              help="the pairs to plan: 'neighbours' (neighbouring systems in "
                                   "the fit's order), 'all', or SYSTEM1:SYSTEM2 pairs separated "
                                   "by commas (default: neighbours; all for preference fits)")


def table_kwargs(args: argparse.Namespace) -> tuple[dict, dict]:
    """The arguments of ``compare()`` and ``plan()`` given, checked before the fit.

    ``--compare`` and ``--plan`` together, and the options of one without it, are refused.
    """
    if args.compare and args.plan:
        raise ParameterError("--compare and --plan write different tables: give one")
    compare_given = [f"{flag} {value}" for flag, value in (
        ("--compare-method", args.compare_method), ("--adjust", args.adjust))
        if value is not None]
    if compare_given and not args.compare:
        one = len(compare_given) == 1
        raise ParameterError(f"{' '.join(compare_given)}: {'it sets' if one else 'they set'} "
                             "the comparison of --compare; add --compare or leave "
                             f"{'it' if one else 'them'} out")
    if args.adjust is not None:
        _check_adjust(args.adjust)
    return ({"method": args.compare_method or "bayes", "adjust": args.adjust},
            _plan_kwargs(args))


def _check_adjust(value: str) -> None:
    """Refuse an unknown ``--adjust`` before the fit, in the command's words (no ``None``)."""
    from .._validate import _R_ADJUSTMENTS, ADJUSTMENTS, adjust

    try:
        adjust(value)
    except ParameterError:
        listed = ", ".join(ADJUSTMENTS)
        known = _R_ADJUSTMENTS.get(value)
        said = f" (R's p.adjust method {value} is --adjust {known} here)" if known else ""
        raise ParameterError(f"--adjust {value}: use one of {listed}{said}, or leave --adjust "
                             "out for no adjustment") from None


#: the options of ``fit --plan`` and the arguments of ``plan()`` they give
_PLAN_OPTIONS = {"epsilon": "--epsilon", "sig_level": "--sig-level", "power": "--power",
                 "max_human": "--max-human", "pairs": "--pairs"}


def _plan_kwargs(args: argparse.Namespace) -> dict:
    """The arguments of ``result.plan()`` given on the command line (refused without --plan)."""
    given = {name: getattr(args, name) for name in _PLAN_OPTIONS
             if getattr(args, name) is not None}
    if given and not args.plan:
        flags = " ".join(f"{_PLAN_OPTIONS[name]} {_shown(value)}" for name, value in given.items())
        raise ParameterError(f"{flags}: these set the plan of --plan; add --plan or leave "
                             "them out")
    # their values, as plan() checks them (the significance level needs the fit's level, and
    # max_human its counts: plan() checks those two against the fit)
    from .. import _validate

    if args.power is not None:
        _validate.power(args.power)
    if args.max_human is not None:
        _validate.size(args.max_human, "max_human", minimum=1)
    if args.sig_level is not None:
        from ..plan._setup import fit_sig_level

        fit_sig_level(args.sig_level, 0.95)
    if args.epsilon is not None and not 0 < args.epsilon <= 1:
        raise ParameterError(f"epsilon={args.epsilon!r} must lie in (0, 1]: a difference of "
                             "two rates")
    return given


def _shown(value) -> str:
    """A flag's value as typed: pairs as ``A:B,C:D``."""
    if isinstance(value, list):
        return ",".join(f"{a}:{b}" for a, b in value)
    return str(value)
