"""``binaryeval plan``: detectable differences and sample sizes."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import ParameterError
from ._common import (
    _number_pair,
    _rates,
    _use_dask,
    add_cluster_arguments,
    add_output_arguments,
    dask_session,
    subcommand,
    write_result,
)


def _sizes(text: str) -> list[int]:
    try:
        values = [int(t) for t in text.replace(",", " ").split()]
    except ValueError:
        values = []
    if not values:
        raise argparse.ArgumentTypeError(f"{text!r}: give whole numbers, e.g. 0,100,1000")
    return values


def _add_plan_options(p: argparse.ArgumentParser) -> None:
    """The model, sizes and options of ``binaryeval plan`` (one argument each)."""
    p.add_argument("what", choices=["difference", "table", "size"],
                   help="difference, table or size (see above)")
    p.add_argument("--alpha", type=float, required=True, help="share of positive outputs")
    p.add_argument("--rho", type=float, default=None,
                   help="the metric's true-positive rate (or give known rates with --rates)")
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
    p.add_argument("--power", type=float, default=0.5,
                   help="chance of telling two systems eps apart (default 0.5: the papers' "
                        "detectable difference; 0.8 plans for four times in five)")
    p.add_argument("--variance", choices=("equal", "both"), default="equal",
                   help="the other system's posterior variance: equal to this one's (default, "
                        "the papers') or its own, eps away on the side nearer 0.5 (both: keeps "
                        "--power near alpha 0 or 1; difference, table, size)")
    p.add_argument("--rates", type=_rates, default="estimate", metavar="MODE",
                   help="as in 'binaryeval fit': estimate (from the paired ratings; default), "
                        "pooled (a paired set shared by the systems) or known values "
                        "rho=0.7,eta=0.7 (then --rho and --eta may be left out)")
    p.add_argument("--simulate", choices=["expected", "sample"], default="expected",
                   help="expected counts (the paper; default) or binomial draws (difference, table)")
    p.add_argument("--n-resamples", type=int, default=50,
                   help="simulated experiments with --simulate sample (default: 50)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the draws with --simulate sample (difference, table)")
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
    p.add_argument("--n-jobs", type=int, default=None,
                   help="table: parallel jobs (joblib; with --dask or --scheduler default: every "
                        "worker of the cluster)")
    add_cluster_arguments(p, "planning on a cluster",
                          "table: the posteriors of the cells computed on a Dask cluster through "
                          "joblib's Dask backend; the numbers are the same")


@subcommand
def add_plan_parser(subparsers) -> None:
    """Add the ``plan`` subcommand to ``subparsers`` (see ``binaryeval plan --help``)."""
    p = subparsers.add_parser(
        "plan", help="plan an evaluation: detectable differences and sample sizes",
        description="Planning with the binary evaluation model (binaryeval.plan). "
                    "'difference': the minimal difference in alpha two systems must have to be told "
                    "apart with the given ratings (detectable_difference); 'table': the same over "
                    "every combination of --n-human and --n-metric (detectable_difference_table; "
                    "default sizes: the paper's Table 12); 'size': the smallest number of ratings "
                    "of one kind (--vary) reaching --epsilon (required_sample_size).",
        epilog="example: binaryeval plan difference --alpha 0.6 --n-human 1000 "
               "--rates rho=0.7,eta=0.7")
    _add_plan_options(p)
    add_output_arguments(p)
    p.set_defaults(func=_run)


def _one(values: list[int] | None, option: str, what: str) -> int:
    if values is None:
        return 0
    if len(values) != 1:
        raise ParameterError(f"{option} {','.join(map(str, values))}: '{what}' takes one "
                             f"number; several sizes are for 'binaryeval plan table'")
    return values[0]

#: options that only some kinds of plan take: option -> (default, the kinds that take it)
_ONLY = {"epsilon": (None, ("size",)), "vary": ("n_human", ("size",)),
         "max_size": (10_000_000, ("size",)), "simulate": ("expected", ("difference", "table")),
         "n_resamples": (50, ("difference", "table")), "seed": (None, ("difference", "table")),
         "n_jobs": (None, ("table",)), "variance": ("equal", ("difference", "table", "size"))}


def _refuse_others(a: argparse.Namespace) -> None:
    """Refuse an option the kind of plan asked for would not use (it was ignored)."""
    for dest, (default, kinds) in _ONLY.items():
        value = getattr(a, dest)
        if value != default and a.what not in kinds:
            takes = " and ".join(f"'binaryeval plan {kind}'" for kind in kinds)
            raise ParameterError(f"--{dest.replace('_', '-')} {value}: an option of {takes}; "
                                 f"'{a.what}' does not use it: leave it out")
    if a.simulate == "expected":
        # expected counts draw nothing: the number of draws and their seed would be ignored
        for dest, default in (("n_resamples", 50), ("seed", None)):
            value = getattr(a, dest)
            if value != default:
                raise ParameterError(f"--{dest.replace('_', '-')} {value}: it sets the simulated "
                                     f"experiments of --simulate sample; expected counts (the "
                                     f"default) draw none: add --simulate sample, or leave it out")


@contextmanager
def _backend(a: argparse.Namespace) -> Iterator[None]:
    """The Dask backend of joblib while a cluster is up (``--dask``/``--scheduler``), else nothing."""
    if not _use_dask(a):
        yield
        return
    from joblib import parallel_config

    with parallel_config(backend="dask"):
        yield


def _run(a: argparse.Namespace) -> int:
    import pandas as pd

    from .. import plan

    known = a.rates if isinstance(a.rates, dict) else {}
    rho = a.rho if a.rho is not None else known.get("rho")
    if rho is None:
        raise ParameterError("plan needs the metric's true-positive rate: --rho 0.7, or known "
                             "rates --rates rho=0.7,eta=0.7")
    eta = a.eta if a.eta is not None else known.get("eta")
    common = {"eta": eta, "n_paired": a.n_paired, "sig_level": a.sig_level, "power": a.power,
              "rates": a.rates,
              "rounding": a.rounding, "psi": a.psi, "method": a.method, "prior": a.prior,
              "rate_prior": a.rate_prior}
    _refuse_others(a)
    if _use_dask(a) and a.what != "table":
        raise ParameterError(f"--dask and --scheduler run the cells of 'binaryeval plan table' on a "
                             f"cluster; '{a.what}' computes here: drop the option")
    if a.what == "size":
        if a.epsilon is None:
            raise ParameterError("plan size needs --epsilon, the target detectable difference, "
                                 "e.g. --epsilon 0.05")
        given = getattr(a, a.vary)
        if given is not None:
            # the size searched for would be ignored as given (the answer is its total)
            flag = "--" + a.vary.replace("_", "-")
            shown = ",".join(map(str, given)) if isinstance(given, list) else given
            raise ParameterError(f"{flag} {shown}: 'plan size --vary {a.vary}' chooses {a.vary} "
                                 f"(the answer is the total per system, not a number to add); "
                                 f"leave {flag} out")
        result = plan.required_sample_size(
            a.epsilon, vary=a.vary, alpha=a.alpha, rho=rho, n_human=_one(a.n_human, "--n-human", a.what),
            n_metric=_one(a.n_metric, "--n-metric", a.what), max_size=a.max_size,
            variance=a.variance, **common)
    elif a.what == "table":
        sizes = {}
        if a.n_human is not None:
            sizes["n_human"] = a.n_human
        if a.n_metric is not None:
            sizes["n_metric"] = a.n_metric
        with dask_session(a), _backend(a):
            n_jobs = -1 if a.n_jobs is None and _use_dask(a) else a.n_jobs
            result = plan.detectable_difference_table(
                a.alpha, rho, simulate=a.simulate, n_resamples=a.n_resamples, seed=a.seed,
                n_jobs=n_jobs, progress=False, variance=a.variance, **sizes, **common)
    else:
        n_human = _one(a.n_human, "--n-human", a.what)
        n_metric = _one(a.n_metric, "--n-metric", a.what)
        eps = plan.detectable_difference(a.alpha, rho, n_human=n_human, n_metric=n_metric,
                                         simulate=a.simulate, n_resamples=a.n_resamples, seed=a.seed,
                                         variance=a.variance, **common)
        result = pd.DataFrame([{
            "alpha": a.alpha, "rho": rho, "eta": rho if eta is None else eta,
            "n_human": n_human, "n_metric": n_metric,
            "n_paired": n_human if a.n_paired is None else a.n_paired,
            # the paired set's share of positives: alpha unless --psi makes it a separate set
            "psi": a.alpha if a.psi is None else a.psi, "sig_level": a.sig_level,
            "power": a.power, **({"variance": a.variance} if a.variance != "equal" else {}),
            "rates": ",".join(f"{k}={v:g}" for k, v in known.items()) if known else a.rates,
            "epsilon": eps}])
    return write_result(result, a)
