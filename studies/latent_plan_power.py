"""Does :meth:`LatentFit.plan` deliver the power it promises?  A simulation.

Run from the repository root::

    python studies/latent_plan_power.py                    # the full study
    python studies/latent_plan_power.py --batches 1        # a look
    python studies/latent_plan_power.py --designs 0 --out /tmp/d0.csv   # one design
    python studies/latent_plan_power.py --table /tmp/d0.csv /tmp/d1.csv  # their table

Modelled on ``studies/preference_plan_power.py``.  Every replicate holds the three neighbouring
pairs of four systems A > B > C = D (true shares of adequate outputs 0.72, 0.62, 0.55, 0.55:
differences 0.10, 0.07 and 0), each pair an experiment of two systems of its own (so that
each system gets its own pair's ``k``; with ``rates="estimate"`` the groups are independent and
a pair's plan and refit do not depend on the other systems), each system with ``n_paired`` items rated by humans and the
metric(s) and ``n_metric`` more by the metric(s) alone.  Two metric set-ups: (a) one score in
4 bins (``fit_latent("h ~ C(m) | system")`` or ``bins=4``) with the 2 x 4 confusion matrix
``BINS``; (b) two binary metrics erring independently given the humans' class, seen through
their joint pattern (``"h ~ m1 + m2 | system"``, J = 4).  The replicate is fitted (the
latent-truth model, ``rates="estimate"``, ``dependence="joint"``, the defaults of
:func:`~binaryeval.fit_latent`) and :meth:`LatentFit.plan` asks for ``k`` more human ratings
per system for each neighbouring pair at the true difference as ``epsilon`` (for power 0.5 and
0.8; the pair with difference 0 at ``epsilon = NULL_EPS``).  Both systems of the pair get the
``k`` ratings where the plan puts them: first their metric-only items (which become paired),
beyond them new items (rated by the metric too).  The extended data set is fitted again and the
pair counts as decided when the equal-tailed ``1 - sig_level`` interval of ``alpha_1 -
alpha_2`` lies on the true side of 0: the plan's criterion (``z_{1 - sig_level/2} + z_power``
posterior sds of the difference, for the plan's ``sd(k)``; ``compare()``'s ``"bayes"`` test).

Every fit of a batch runs in one sampler call (the systems of all replicates as groups: with
``rates="estimate"`` each group has its own ``Theta`` and the groups are independent), so the
fit is that of :func:`~binaryeval.fit_latent` on the same counts; the plan is the package's own
``LatentFit.plan`` of a :class:`~binaryeval.latent.LatentFit` built from that posterior, asked
for every pair of the batch at once (``pairs=``).

Result (the saved run, ``studies/results/latent_plan_power.csv``: 20 batches of the first
two designs and of ``20 + 400``, 10 of ``100 + 300``, the designs run in parallel, about 10 s
a batch with a core to itself, 3 minutes for 20; ``--table`` prints it per pair): realised
power at the plan's ``k`` over the two pairs with a difference (the plan never called them
separated already), binomial SE at the promise; the plan's mean sd of the difference at ``k``
over the refit's mean posterior sd; the pair with difference 0 separated (at power 0.5 and
0.8 of its plan at ``epsilon = 0.1``):

=============================  ==========================  ==========================  =========  ============
design                         power 0.5                   power 0.8                   sd ratio   false pos.
=============================  ==========================  ==========================  =========  ============
4 bins, 40 + 400               0.500 +- 0.011 (2000)       0.789 +- 0.009 (2000)       0.99-1.00  0.056, 0.044
two binary metrics, 40 + 400   0.492 +- 0.011 (2000)       0.806 +- 0.009 (2000)       0.99-1.02  0.058, 0.026
4 bins, 100 + 300              0.509 +- 0.016 (1000)       0.800 +- 0.013 (1000)       1.00       0.056, 0.046
4 bins, 20 + 400               0.483 +- 0.011 (2000)       0.798 +- 0.009 (2000)       0.98-1.00  0.053, 0.057
=============================  ==========================  ==========================  =========  ============

Per pair and power (16) z lies in [-1.7, 1.7]; the first 500 replicates of ``20 + 400``
(an earlier run, the same seeds) gave 0.452 for the difference 0.07 at power 0.5 (z = -2.1).
Mean ``k``: 45-127 (power 0.5) and 228-306 (0.8) for the difference 0.10, all on metric-only
items; 266-336 and 664-731 for 0.07, at 0.8 beyond the metric-only items (new items).  The
plan's sd is 0.4-1.6 % below the refit's at the difference 0.07.  With 20 paired items the first
fit's mean difference is 0.90 of the true one (``mean0_ratio``; 0.97-1.01 with 40), the refit's
0.98-1.00 (``mean_ratio``; recorded for ``20 + 400`` and the first 10 batches of
``4 bins, 40 + 400``).  False positives: SE 0.007 (0.010 for ``100 + 300``).  Not simulated:
pooled, hierarchical or known rates and ``dependence="independent"`` (there the plan keeps
each metric-only item's present worth), more than two metrics, ``K > 2`` classes, plans at the
fitted rather than the true difference.

Output: ``studies/results/latent_plan_power.csv`` (one row per design x pair x power x batch:
replicates, decisions, the planned ``k``s' sum, the plan's and the refit's sds), and a table of
the realised power against the promised one with binomial standard errors.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import binaryeval.plan.latent_plan  # noqa: E402, F401  (gives LatentFit its plan())
from binaryeval.latent import latent_posterior  # noqa: E402
from binaryeval.latent.multi import LatentFit  # noqa: E402
from binaryeval.plan._setup import z_total  # noqa: E402

BASE_SEED = 20261128
BATCH = 50            # replicates per batch (each 4 systems: 200 groups per sampler call)
POWERS = (0.5, 0.8)
SIG_LEVEL = 0.05
NULL_EPS = 0.10
MAX_HUMAN = 3000
OUT = ROOT / "studies" / "results" / "latent_plan_power.csv"

# the neighbouring pairs of four systems A > B > C = D, each its own experiment of two
# systems (true alpha of the first and the second): differences 0.10, 0.07 and 0
PAIRS = {"A-B": (0.72, 0.62), "B-C": (0.62, 0.55), "C-D": (0.55, 0.55)}
ALPHA = np.array([a for pair in PAIRS.values() for a in pair])   # the groups of a replicate

# P(bin | class), rows: inadequate, adequate (a plausible score cut at its quartiles)
BINS = np.array([[0.40, 0.30, 0.20, 0.10],
                 [0.10, 0.20, 0.30, 0.40]])
# two binary metrics, P(metric = 1 | class): rows inadequate, adequate
M1 = np.array([[0.75, 0.25], [0.20, 0.80]])
M2 = np.array([[0.70, 0.30], [0.25, 0.75]])


@dataclass(frozen=True)
class Design:
    """Sizes per system and the metric set-up: ``"bins"`` (one score, 4 bins) or ``"two"``."""

    name: str
    n_paired: int
    n_metric: int
    kind: str

    @property
    def levels(self) -> tuple[int, ...]:
        return (4,) if self.kind == "bins" else (2, 2)


DESIGNS = [Design("4 bins, 40 + 400", 40, 400, "bins"),
           Design("two binary metrics, 40 + 400", 40, 400, "two"),
           Design("4 bins, 100 + 300", 100, 300, "bins"),
           Design("4 bins, 20 + 400", 20, 400, "bins")]


def batch_seed(design: int, batch: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([BASE_SEED, design, batch])


def items(design: Design, rng: np.random.Generator, n_rep: int, n_items: int):
    """True classes (1 = adequate) and metric outputs of ``n_items`` items per (replicate,
    system); two metrics as their joint pattern ``2 m1 + m2``."""
    cls = (rng.random((n_rep, len(ALPHA), n_items)) < ALPHA[None, :, None]).astype(int)
    if design.kind == "bins":
        cum = np.cumsum(BINS, axis=1)[:, :3]
        out = (rng.random(cls.shape)[..., None] > cum[cls]).sum(axis=-1)
    else:
        m1 = rng.random(cls.shape) < M1[cls, 1]
        m2 = rng.random(cls.shape) < M2[cls, 1]
        out = 2 * m1 + m2
    return cls, out


def counts(cls, out, n_paired, n_total, n_out):
    """Paired (G, 2, J) and metric-only (G, J) counts: items ``< n_paired`` paired, the rest up
    to ``n_total`` metric-only (per group, arrays of shape (G,))."""
    g, n = cls.shape
    idx = np.arange(n)[None, :]
    is_p = idx < n_paired[:, None]
    is_m = (idx >= n_paired[:, None]) & (idx < n_total[:, None])
    paired = np.zeros((g, 2, n_out), dtype=np.int64)
    metric = np.zeros((g, n_out), dtype=np.int64)
    for j in range(n_out):
        hit = out == j
        for c in range(2):
            paired[:, c, j] = (hit & (cls == c) & is_p).sum(axis=1)
        metric[:, j] = (hit & is_m).sum(axis=1)
    return paired, metric


def fit(paired, metric, seed, levels):
    g = paired.shape[0]
    outputs = [str(p) for p in np.ndindex(*levels)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return latent_posterior(paired, np.zeros((g, 2), dtype=np.int64), metric, levels=levels,
                                groups=[f"g{i:05d}" for i in range(g)], classes=("0", "1"),
                                outputs=outputs, seed=seed)


def as_fit(post, design: Design) -> LatentFit:
    """The :class:`LatentFit` of ``fit_latent`` with this posterior (prior Beta(1, 1))."""
    both = post.paired.sum(axis=1) + post.metric
    if design.kind == "bins":
        terms, naive, positive = ("m",), both, (False, False, True, True)
        labels = {"m": [str(j) for j in range(4)]}
    else:   # the first metric's outputs: patterns 0, 1 -> m1 = 0; 2, 3 -> m1 = 1
        terms, naive, positive = ("m1", "m2"), both.reshape(-1, 2, 2).sum(axis=2), (False, True)
        labels = {"m1": ["0", "1"], "m2": ["0", "1"]}
    return LatentFit(f"h ~ {' + '.join(terms)} | system", tuple(post.groups), post, "h", terms,
                     labels, level=1 - SIG_LEVEL, group_name="system", order=tuple(post.groups),
                     naive_counts=naive, naive_positive=positive)


def decided(post, first, second, truth_sign):
    """Per pair (group indices ``first``, ``second``): decided on the true side, decided at all,
    the posterior sd and mean of the difference."""
    a = post.draws.pi[..., 1].reshape(-1, post.draws.pi.shape[2])
    d = a[:, first] - a[:, second]
    lo, hi = np.quantile(d, [SIG_LEVEL / 2, 1 - SIG_LEVEL / 2], axis=0)
    right = np.where(truth_sign > 0, lo > 0, np.where(truth_sign < 0, hi < 0, False))
    return right, (lo > 0) | (hi < 0), d.std(axis=0, ddof=1), d.mean(axis=0)


def plan_k(lf: LatentFit, first, second, eps: np.ndarray, power: float):
    """The plan's ``k`` per pair at ``epsilon = eps`` (NaN: not attainable) and its sd of the
    difference at ``k``."""
    k = np.full(len(eps), np.nan)
    sd = np.full(len(eps), np.nan)
    for e in np.unique(eps):
        sel = np.flatnonzero(eps == e)
        keys = [(lf.groups[first[i]], lf.groups[second[i]]) for i in sel]
        plan = lf.plan(float(e), pairs=keys, sig_level=SIG_LEVEL, max_human=MAX_HUMAN,
                       power=power).to_frame()
        k[sel] = plan["more_human"].astype(float).to_numpy()
        sd[sel] = plan["achieved"].to_numpy() / z_total(SIG_LEVEL, power)
    return k, sd


def run_batch(d: int, batch: int, n: int = BATCH) -> pd.DataFrame:
    design = DESIGNS[d]
    data_seed, *fit_seeds = batch_seed(d, batch).spawn(1 + 1 + len(POWERS))
    n_items = design.n_paired + design.n_metric + MAX_HUMAN
    cls, out = items(design, np.random.default_rng(data_seed), n, n_items)
    n_sys = len(ALPHA)
    g = n * n_sys
    cls, out = cls.reshape(g, n_items), out.reshape(g, n_items)
    n_out = int(np.prod(design.levels))
    base_p = np.full(g, design.n_paired)
    base_t = np.full(g, design.n_paired + design.n_metric)
    post0 = fit(*counts(cls, out, base_p, base_t, n_out), fit_seeds[0], design.levels)
    lf = as_fit(post0, design)
    names = list(PAIRS)
    rep = np.repeat(np.arange(n), len(PAIRS))
    pair = np.tile(np.arange(len(PAIRS)), n)
    first = rep * n_sys + 2 * pair
    second = first + 1
    true_diff = np.round(ALPHA[first % n_sys] - ALPHA[second % n_sys], 10)
    eps = np.where(true_diff == 0, NULL_EPS, np.abs(true_diff))
    _, _, sd0, mean0 = decided(post0, first, second, np.sign(true_diff))
    rows = []
    for ip, power in enumerate(POWERS):
        k, sd_plan = plan_k(lf, first, second, eps, power)
        kk = np.nan_to_num(k, nan=0.0).astype(int)   # both systems of a pair get its k
        per_group = np.zeros(g, dtype=int)
        per_group[first], per_group[second] = kk, kk
        new_p = base_p + per_group
        new_t = np.maximum(base_t, new_p)   # beyond the metric-only items: new items
        post = fit(*counts(cls, out, new_p, new_t, n_out), fit_seeds[1 + ip], design.levels)
        right, any_, sd_real, mean_real = decided(post, first, second, np.sign(true_diff))
        for i, name in enumerate(names):
            m = (pair == i) & np.isfinite(k)
            rows.append(dict(design=design.name, pair=name, true_diff=true_diff[pair == i][0],
                             power=power, batch=batch, n=int(m.sum()),
                             decided=int(right[m].sum()), decided_any=int(any_[m].sum()),
                             k_sum=float(k[m].sum()), k_max=float(np.max(k[m], initial=0)),
                             n_unplanned=int(((pair == i) & ~np.isfinite(k)).sum()),
                             beyond=int((kk[m] > design.n_metric).sum()),
                             k_zero=int((k[m] == 0).sum()),
                             sd0_sum=float(sd0[m].sum()),
                             diff0_sum=float(mean0[m].sum()),
                             diff_sum=float(mean_real[m].sum()),
                             sd_plan_sum=float(sd_plan[m].sum()),
                             sd_sum=float(sd_real[m].sum())))
    return pd.DataFrame(rows)


def headline(frame: pd.DataFrame) -> pd.DataFrame:
    """Per design, pair and power: realised power (binomial SE at the promise), the z of the
    difference, the ratio of the plan's mean sd at ``k`` to the refit's, the mean ``k``; for the
    pair with difference 0 the share decided (false positives)."""
    keys = ["design", "pair", "true_diff", "power"]
    frame = frame.copy()
    for col in ("diff0_sum", "diff_sum"):   # recorded in the later runs only
        frame[col] = frame[col] if col in frame else np.nan
    frame["n_mean"] = np.where(frame["diff_sum"].notna(), frame["n"], 0)
    agg = frame.groupby(keys, sort=False).sum(numeric_only=True).reset_index()
    null = agg.true_diff == 0
    agg["rate"] = np.where(null, agg.decided_any / agg.n, agg.decided / agg.n)
    promise = np.where(null, SIG_LEVEL, agg.power)
    agg["se"] = np.sqrt(promise * (1 - promise) / agg.n)
    agg["z"] = (agg.rate - promise) / agg.se
    agg["sd_ratio"] = agg.sd_plan_sum / agg.sd_sum
    agg["k_mean"] = agg.k_sum / agg.n
    # the posterior mean of the difference, first fit and refit, over the true one (over the
    # batches that recorded it)
    for col, name in (("diff0_sum", "mean0_ratio"), ("diff_sum", "mean_ratio")):
        agg[name] = (agg[col] / agg.n_mean.where(agg.n_mean > 0)
                     / agg.true_diff.where(agg.true_diff != 0))
    agg["share_beyond"] = agg.beyond / agg.n
    return agg[keys + ["n", "k_zero", "rate", "se", "z", "sd_ratio", "k_mean",
                       "share_beyond", "mean0_ratio", "mean_ratio"]]


def _show(frame: pd.DataFrame) -> None:
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(headline(frame).to_string(index=False, float_format=lambda x: f"{x:.3f}"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=6, help="batches of 50 per design")
    parser.add_argument("--designs", type=int, nargs="*", default=list(range(len(DESIGNS))))
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--table", type=Path, nargs="*",
                        help="only print the table of these output files (runs of some designs)")
    args = parser.parse_args()
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
