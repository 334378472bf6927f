"""Does :meth:`PreferenceFit.plan` deliver the power it promises?  A simulation (full run).

Run from the repository root::

    python studies/preference_plan_power.py                   # the full study
    python studies/preference_plan_power.py --batches 1       # a look
    python studies/preference_plan_power.py --designs 0 --out /tmp/d0.csv   # one design
    python studies/preference_plan_power.py --table /tmp/d0.csv /tmp/d1.csv  # their table
    python studies/preference_plan_power.py --null            # false positives, fresh data

Every replicate is one experiment of four systems (six pairs), each pair with its own true
preference shares ``(win_1, tie, win_2)`` and the metric's 3 x 3 confusion matrix ``Theta``
(rows: the humans' class, first better / tie / second better; columns: the metric's).  Per pair
``n_paired`` items carry a human and a metric preference and ``n_metric`` more the metric's
alone.  The replicate is fitted (the latent-truth model, ``rates="estimate"``, the defaults of
:func:`~binaryeval.fit_preferences`), and :meth:`PreferenceFit.plan` asks for ``k`` more human
ratings per pair: at the true ``|diff|`` as ``epsilon`` (the plan's promise: a pair that far
apart is decided with probability ``power``), for power 0.5 and 0.8.  The ``k`` ratings then go
where the plan puts them: first to the pair's metric-only items (which become paired), beyond
them to new items (rated by the metric too).  The extended data set (the first one plus the new
ratings) is fitted again and the pair counts as decided when the equal-tailed ``1 - sig_level``
interval of ``diff`` lies on the true side of 0 (the plan's criterion).  Each replicate is also
extended by the fractions ``FRACTIONS`` of its ``k``, to see how many ratings the promised power
really needs.  A pair with true ``diff = 0`` is planned at ``epsilon = NULL_EPS`` and counts its
decisions (false positives; the rate should be at most ``sig_level``).

Every fit of a batch runs in one sampler call (the pairs of all replicates as groups: with
``rates="estimate"`` each pair has its own ``Theta`` and the groups are independent), so the
fit is that of :func:`~binaryeval.fit_preferences` on the same counts; the plan is the
package's own ``PreferenceFit.plan`` of a :class:`~binaryeval.latent.PreferenceFit` built from
that posterior.

Result (the saved run, ``studies/results/preference_plan_power.csv``, the designs run one at a
time, about 6-7 minutes each on one core, 10 for two metrics with 5 batches; ``--table``
prints it): realised power at the plan's ``k`` over the pairs the plan never called separated
already (``k = 0`` promises at least ``power``), binomial SE at the promise; the plan's mean sd
of ``diff`` at ``k`` over the refit's mean posterior sd; the pair with ``diff = 0`` decided (at
power 0.5 and 0.8 of its plan):

================  ======  =======================  =======================  ========  ============
design            rule    power 0.5                power 0.8                sd ratio  false pos.
================  ======  =======================  =======================  ========  ============
good, 40 + 400    fisher  0.529 +- 0.017 (900)     0.789 +- 0.010 (1500)    1.01      0.033, 0.040
good, 40 + 400    worth   0.577                    0.825                    1.06-1.08 0.037, 0.040
weak, 60 + 600    fisher  0.480 +- 0.017 (900)     0.783 +- 0.010 (1500)    1.00      0.047, 0.043
weak, 60 + 600    worth   0.513                    0.810                    1.03-1.04 0.040, 0.047
good, 100 + 300   fisher  0.477 +- 0.020 (600)     0.809 +- 0.013 (900)     1.00      0.040, 0.067
good, 100 + 300   worth   0.510                    0.804                    1.01-1.04 0.043, 0.057
two, 40 + 400     fisher  0.533 +- 0.018 (750)     0.809 +- 0.011 (1250)    1.03-1.04 0.092, 0.064
two, 40 + 400     worth   0.573                    0.832                    1.08-1.10 0.104, 0.064
================  ======  =======================  =======================  ========  ============

(``two``: the good and the weak metric, 250 replicates.)  ``fisher`` is the plan; ``worth`` the
rule it replaced, which asked for 1.14-1.37 times the ratings where they go to metric-only
items (mean 1.22).  With three quarters of the plan's ``k`` the power fell to 0.43-0.47 and
0.71-0.74.  The false positives of the two-metric design, 23 and 16 of 250, are above 0.05 at
z = 3.0 and 1.0 (the cells share their first data sets); ``--null`` fits 1,000 fresh data sets
of the pair with ``diff = 0`` at 40 and at 240 paired items (of 440): with both metrics 0.014
and 0.043, with the good one 0.038 and 0.055 (SE 0.007), in 100 s.

Output: ``studies/results/preference_plan_power.csv`` (one row per design x pair x power x
fraction x batch: replicates, decisions, the planned ``k``s' sum), and a table of the realised
power against the promised one with binomial standard errors.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import binaryeval.plan.latent_plan as latent_plan  # noqa: E402
from binaryeval.latent import latent_posterior  # noqa: E402
from binaryeval.latent.preferences import PreferenceFit  # noqa: E402
from binaryeval.plan._setup import z_total  # noqa: E402

BASE_SEED = 20261128
BATCH = 50            # replicates per batch (each 6 pairs: 300 groups per sampler call)
POWERS = (0.5, 0.8)
FRACTIONS = (0.5, 0.75, 1.0)
RULES = ("fisher", "worth")   # the plan's rule, and the one before it (see plan_k)
SIG_LEVEL = 0.05
NULL_EPS = 0.10
MAX_HUMAN = 3000
OUT = ROOT / "studies" / "results" / "preference_plan_power.csv"

GOOD = np.array([[0.75, 0.15, 0.10], [0.25, 0.50, 0.25], [0.10, 0.15, 0.75]])
WEAK = np.array([[0.60, 0.25, 0.15], [0.30, 0.40, 0.30], [0.15, 0.25, 0.60]])


def _shares(diff: float, tie: float = 0.2) -> tuple[float, float, float]:
    rest = 1.0 - tie
    return ((rest + diff) / 2, tie, (rest - diff) / 2)


# six pairs of four systems A > B > C = D: true (win_1, tie, win_2) per pair
PAIRS = {"A-B": _shares(0.15), "A-C": _shares(0.20), "A-D": _shares(0.20),
         "B-C": _shares(0.10), "B-D": _shares(0.10), "C-D": _shares(0.0)}


@dataclass(frozen=True)
class Design:
    """Sizes per pair, the metric's confusion matrix and, for two metrics, the second's.

    The two metrics err independently given the humans' class; the model sees their joint
    pattern (J = 9).
    """

    name: str
    n_paired: int
    n_metric: int
    theta: np.ndarray
    second: np.ndarray | None = None

    @property
    def levels(self) -> tuple[int, ...]:
        return (3,) if self.second is None else (3, 3)


DESIGNS = [Design("good metric, 40 + 400", 40, 400, GOOD),
           Design("weak metric, 60 + 600", 60, 600, WEAK),
           Design("good metric, 100 + 300", 100, 300, GOOD),
           Design("good + weak metric, 40 + 400", 40, 400, GOOD, WEAK)]


def batch_seed(design: int, batch: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([BASE_SEED, design, batch])


def items(design: Design, rng: np.random.Generator, n_rep: int, n_items: int):
    """True classes and metric outputs of ``n_items`` items per (replicate, pair)."""
    pi = np.array(list(PAIRS.values()))
    u = rng.random((n_rep, len(PAIRS), n_items))
    cls = (u[..., None] > np.cumsum(pi, axis=1)[None, :, None, :2]).sum(axis=-1)
    cum = np.cumsum(design.theta, axis=1)[:, :2]
    out = (rng.random(cls.shape)[..., None] > cum[cls]).sum(axis=-1)
    if design.second is not None:   # the joint pattern, the second metric varying fastest
        cum = np.cumsum(design.second, axis=1)[:, :2]
        out = 3 * out + (rng.random(cls.shape)[..., None] > cum[cls]).sum(axis=-1)
    return cls, out


def counts(cls, out, n_paired, n_total, n_out=3):
    """Paired (G, 3, J) and metric-only (G, J) counts: items ``< n_paired`` paired, the rest
    up to ``n_total`` metric-only (per group, arrays of shape (G,))."""
    g, n = cls.shape
    idx = np.arange(n)[None, :]
    is_p = idx < n_paired[:, None]
    is_m = (idx >= n_paired[:, None]) & (idx < n_total[:, None])
    paired = np.zeros((g, 3, n_out), dtype=np.int64)
    metric = np.zeros((g, n_out), dtype=np.int64)
    for c in range(3):
        for j in range(n_out):
            paired[:, c, j] = ((cls == c) & (out == j) & is_p).sum(axis=1)
    for j in range(n_out):
        metric[:, j] = ((out == j) & is_m).sum(axis=1)
    return paired, metric


def fit(paired, metric, seed, levels=(3,)):
    g = paired.shape[0]
    names = ("first", "tie", "second")
    outputs = ["/".join(names[i] for i in pattern) for pattern in np.ndindex(*levels)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        post = latent_posterior(paired, np.zeros((g, 3), dtype=np.int64), metric, levels=levels,
                                groups=[f"p{i}" for i in range(g)], classes=names,
                                outputs=outputs, seed=seed)
    return post


def as_fit(post) -> PreferenceFit:
    g = len(post.groups)
    systems = tuple(f"s{i:05d}" for i in range(2 * g))
    index = np.column_stack([np.arange(0, 2 * g, 2), np.arange(1, 2 * g, 2)])
    both = post.paired.sum(axis=1) + post.metric
    naive = both.reshape(g, 3, -1).sum(axis=2)   # the first metric's preferences
    terms = ("metric",) if both.shape[1] == 3 else ("metric", "second_metric")
    return PreferenceFit(f"human ~ {' + '.join(terms)}", systems, index, post, "human", terms,
                         naive, input="preferences", level=1 - SIG_LEVEL)


def decided(post, truth_sign):
    d = post.draws.pi[..., 0] - post.draws.pi[..., 2]
    flat = d.reshape(-1, d.shape[-1])
    lo, hi = np.quantile(flat, [SIG_LEVEL / 2, 1 - SIG_LEVEL / 2], axis=0)
    right = np.where(truth_sign > 0, lo > 0, np.where(truth_sign < 0, hi < 0, False))
    any_ = (lo > 0) | (hi < 0)
    return right, any_, flat.std(axis=0, ddof=1)


def plan_k(pf: PreferenceFit, eps: np.ndarray, power: float, rule: str) -> np.ndarray:
    """The plan's ``k`` per pair at ``epsilon = eps`` (NaN: not attainable) and its sd at ``k``.

    ``rule="fisher"`` is the package's plan; ``"worth"`` the rule it replaced (each metric-only
    item keeps its present worth, the Fisher gain switched off), for comparison.
    """
    k = np.full(len(eps), np.nan)
    sd = np.full(len(eps), np.nan)
    gain = latent_plan._preference_gain
    if rule == "worth":
        latent_plan._preference_gain = lambda *args: None
    try:
        for e in np.unique(eps):
            sel = eps == e
            keys = [pf.pairs[i] for i in np.flatnonzero(sel)]
            plan = pf.plan(float(e), pairs=keys, sig_level=SIG_LEVEL, max_human=MAX_HUMAN,
                           power=power).to_frame()
            k[sel] = plan["more_human"].astype(float).to_numpy()
            sd[sel] = plan["achieved"].to_numpy() / z_total(SIG_LEVEL, power)
    finally:
        latent_plan._preference_gain = gain
    return k, sd


def run_batch(d: int, batch: int, n: int = BATCH) -> pd.DataFrame:
    design = DESIGNS[d]
    data_seed, *fit_seeds = batch_seed(d, batch).spawn(
        2 + len(RULES) * len(POWERS) * len(FRACTIONS))
    names = list(PAIRS)
    n_items = design.n_paired + design.n_metric + MAX_HUMAN
    cls, out = items(design, np.random.default_rng(data_seed), n, n_items)
    g = n * len(names)
    cls, out = cls.reshape(g, n_items), out.reshape(g, n_items)
    pair = np.tile(np.arange(len(names)), n)
    true_diff = np.array([PAIRS[p][0] - PAIRS[p][2] for p in names])[pair]
    base_p = np.full(g, design.n_paired)
    base_t = np.full(g, design.n_paired + design.n_metric)
    n_out = 3 ** len(design.levels)
    post0 = fit(*counts(cls, out, base_p, base_t, n_out), fit_seeds[0], design.levels)
    pf = as_fit(post0)
    eps = np.where(true_diff == 0, NULL_EPS, np.abs(true_diff))
    rows = []
    for (ir, rule), (ip, power) in itertools.product(enumerate(RULES), enumerate(POWERS)):
        k, sd_plan = plan_k(pf, eps, power, rule)
        for jf, frac in enumerate(FRACTIONS):
            kk = np.round(frac * np.nan_to_num(k, nan=0.0)).astype(int)
            new_p = base_p + kk
            new_t = np.maximum(base_t, new_p)   # beyond the metric-only items: new items
            seed = fit_seeds[1 + (ir * len(POWERS) + ip) * len(FRACTIONS) + jf]
            post = fit(*counts(cls, out, new_p, new_t, n_out), seed, design.levels)
            right, any_, sd_real = decided(post, np.sign(true_diff))
            for i, name in enumerate(names):
                m = (pair == i) & np.isfinite(k)
                rows.append(dict(design=design.name, pair=name, true_diff=PAIRS[name][0]
                                 - PAIRS[name][2], rule=rule, power=power, fraction=frac,
                                 batch=batch,
                                 n=int(m.sum()), decided=int(right[m].sum()),
                                 decided_any=int(any_[m].sum()), k_sum=float(k[m].sum()),
                                 k_max=float(np.max(k[m], initial=0)),
                                 n_unplanned=int(((pair == i) & ~np.isfinite(k)).sum()),
                                 beyond=int((kk[m] > design.n_metric).sum()),
                                 k_zero=int((k[m] == 0).sum()),
                                 sd_plan_sum=float(sd_plan[m].sum()) if frac == 1 else np.nan,
                                 sd_sum=float(sd_real[m].sum())))
    return pd.DataFrame(rows)


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    keys = ["design", "pair", "true_diff", "rule", "power", "fraction"]
    agg = frame.groupby(keys, sort=False).agg(n=("n", "sum"), decided=("decided", "sum"),
                                              decided_any=("decided_any", "sum"),
                                              k_sum=("k_sum", "sum"),
                                              beyond=("beyond", "sum"),
                                              k_zero=("k_zero", "sum"),
                                              sd_plan_sum=("sd_plan_sum", "sum"),
                                              sd_sum=("sd_sum", "sum")).reset_index()
    agg["k_mean"] = agg.k_sum / agg.n
    # the plan's sd of diff at k against the posterior sd the k ratings gave (mean ratio)
    agg["sd_ratio"] = np.where(agg.fraction == 1, agg.sd_plan_sum / agg.sd_sum, np.nan)
    null = agg.true_diff == 0
    agg["rate"] = np.where(null, agg.decided_any / agg.n, agg.decided / agg.n)
    agg["se"] = np.sqrt(agg.rate * (1 - agg.rate) / agg.n)
    agg["promised"] = np.where(null, SIG_LEVEL, agg.power)
    agg["z"] = np.where(null, np.nan, (agg.rate - agg.power)
                        / np.sqrt(agg.power * (1 - agg.power) / agg.n))
    return agg.drop(columns=["k_sum", "sd_plan_sum", "sd_sum"])


def headline(frame: pd.DataFrame) -> pd.DataFrame:
    """Per design, rule and power at the plan's ``k``: realised power over the pairs with a
    difference that the plan never called separated already (and its binomial SE), the
    false-positive rate of the pair without, the ratio of the plan's mean sd to the refit's,
    the mean ``k``."""
    full = frame[frame.fraction == 1]
    # a pair the plan calls separated already in some replicate (k = 0) promises at least
    # ``power`` there, not ``power``: such pairs are left out of the realised power
    cell = ["design", "pair", "rule", "power"]
    planned = full.groupby(cell, sort=False)["k_zero"].transform("sum") == 0
    rows = []
    for (design, rule, power), sub in full.groupby(["design", "rule", "power"], sort=False):
        real = sub[(sub.true_diff != 0) & planned.loc[sub.index]]
        null = sub[sub.true_diff == 0]
        n, hit = real.n.sum(), real.decided.sum()
        rows.append(dict(design=design, rule=rule, power=power, pairs=real.pair.nunique(),
                         n=int(n),
                         realised=hit / n, se=np.sqrt(power * (1 - power) / n),
                         sd_ratio=real.sd_plan_sum.sum() / real.sd_sum.sum(),
                         k_mean=real.k_sum.sum() / n, n_null=int(null.n.sum()),
                         false_positive=null.decided_any.sum() / null.n.sum()))
    return pd.DataFrame(rows)


def _show(frame: pd.DataFrame) -> None:
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(summarise(frame).to_string(index=False, float_format=lambda x: f"{x:.3f}"))
        print(headline(frame).to_string(index=False, float_format=lambda x: f"{x:.3f}"))


def null_check(n: int = 1000) -> pd.DataFrame:
    """False positives of the pair with ``diff = 0``: ``n`` fresh data sets of 440 items, 40 or
    240 of them paired, the good metric alone and with the weak one."""
    rows = []
    for d in (0, 3):
        design = DESIGNS[d]
        ss = np.random.SeedSequence([BASE_SEED, 99, d])
        data_seed, fit_seed = ss.spawn(2)
        u = np.random.default_rng(data_seed)
        tie = PAIRS["C-D"]
        cls = u.choice(3, size=(n, 440), p=tie)
        cum = np.cumsum(design.theta, axis=1)[:, :2]
        out = (u.random(cls.shape)[..., None] > cum[cls]).sum(axis=-1)
        if design.second is not None:
            cum = np.cumsum(design.second, axis=1)[:, :2]
            out = 3 * out + (u.random(cls.shape)[..., None] > cum[cls]).sum(axis=-1)
        n_out = 3 ** len(design.levels)
        for n_paired in (40, 240):
            post = fit(*counts(cls, out, np.full(n, n_paired), np.full(n, 440), n_out), fit_seed,
                       design.levels)
            _, any_, _ = decided(post, np.zeros(n))
            rows.append(dict(design=design.name, n_paired=n_paired, n_metric=440 - n_paired,
                             n=n, false_positive=float(any_.mean()),
                             se=float(np.sqrt(SIG_LEVEL * (1 - SIG_LEVEL) / n))))
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=6, help="batches of 50 per design")
    parser.add_argument("--designs", type=int, nargs="*", default=list(range(len(DESIGNS))))
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--table", type=Path, nargs="*",
                        help="only print the table of these output files (runs of some designs)")
    parser.add_argument("--null", action="store_true",
                        help="only the false positives of fresh data sets with diff = 0")
    args = parser.parse_args()
    if args.null:
        print(null_check().to_string(index=False, float_format=lambda x: f"{x:.3f}"))
        return
    if args.table:
        _show(pd.concat([pd.read_csv(f) for f in args.table], ignore_index=True))
        return
    t0 = time.perf_counter()
    parts = []
    for d in args.designs:
        for b in range(args.batches):
            parts.append(run_batch(d, b))
            print(f"design {d} batch {b}: {time.perf_counter() - t0:.0f} s", flush=True)
    frame = pd.concat(parts, ignore_index=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out, index=False, float_format="%.10g")
    _show(frame)
    print(f"{len(parts)} batches of {BATCH} replicates in {time.perf_counter() - t0:.0f} s; "
          f"wrote {args.out}")


if __name__ == "__main__":
    main()
