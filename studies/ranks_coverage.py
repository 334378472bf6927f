"""Seeded coverage study of the simultaneous rank intervals of ``ranks()``, beside the rank-sets of
prediction-powered ranking (Chatzi et al. 2024) on the same data.

Run from the repository root::

    python studies/ranks_coverage.py                      # both designs, 2 processes
    python studies/ranks_coverage.py --reps 20 --out /tmp/quick   # a look

Two designs whose truth is known:

- ``binary``: 8 systems with rates of adequate outputs 0.40, 0.45, ..., 0.75; per system 40
  paired items (human and metric) and 800 metric-only items; the metric's true-positive and
  true-negative rates differ between systems (drawn once from U(0.7, 0.9)).  Ours:
  ``fit_counts(...).ranks()`` (rates per system).  Peer: rank-sets from the per-system PPI
  estimates (metric-only mean plus the paired rectifier) and their variances.
- ``preference``: 6 systems compared pairwise by an LLM judge on 300 items per pair and by humans
  on 30 more (judged too); the human preference per pair has a tie share of 0.2 and
  ``P(first wins) = 0.8 / (1 + exp(-2 (s_a - s_b)))`` for strengths ``s`` evenly spaced in
  [-0.5, 0.5] (``--spread 0.2``: in [-0.2, 0.2], closer systems); the judge's 3 x 3 confusion matrix differs between pairs (each row Dirichlet with
  concentration 40 times a base row).  The ranked score is the average win rate (ties half).
  Ours: ``fit_preferences(...).ranks()`` (rates per pair).  Peer: rank-sets from the per-pair PPI
  estimates of the half-tie win rate, averaged over opponents (the covariance of the averages
  from the independent pairs).

Per replicate and method: whether every system's true rank lies in its interval (coverage of
the true ranking), and the mean interval size (number of ranks), at the levels 0.5, 0.8, 0.9, 0.95
and 0.99 (so sizes can be compared at equal coverage).  Output:
``studies/results/ranks_coverage_<designs>.csv`` (one row per replicate, level and method) and a
printed table; the summary over every result file is written to
``vignettes/data/ranks_coverage.csv`` (read by ``vignettes/validation.qmd``).
Every replicate has its own generator seeded by (base seed, design, replicate index).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

import binaryeval as be
from binaryeval.validation import rank_sets

LEVEL = 0.95
LEVELS = (0.5, 0.8, 0.9, 0.95, 0.99)  # every method at each level: sizes at equal coverage
BASE_SEED = 20241126


def _true_ranks(score: np.ndarray) -> np.ndarray:
    return 1 + (score[None, :] > score[:, None]).sum(axis=1)


def _record(design, rep, method, lower, upper, truth, level=LEVEL):
    lower, upper = np.asarray(lower), np.asarray(upper)
    return {"design": design, "rep": rep, "method": method, "level": level,
            "covered": bool(((lower <= truth) & (truth <= upper)).all()),
            "mean_size": float((upper - lower + 1).mean())}


# -- the binary design ------------------------------------------------------------------------------
def binary_counts(rng: np.random.Generator, alpha, rho, eta, n_paired: int, n_metric: int):
    """Counts per system and the PPI estimate and variance of each system's alpha."""
    counts, est, var = {}, [], []
    for g, (a, r, e) in enumerate(zip(alpha, rho, eta, strict=True)):
        h = rng.random(n_paired) < a
        m = np.where(h, rng.random(n_paired) < r, rng.random(n_paired) > e)
        hu = rng.random(n_metric) < a
        mu = np.where(hu, rng.random(n_metric) < r, rng.random(n_metric) > e)
        counts[f"s{g}"] = {"tp": int((h & m).sum()), "fn": int((h & ~m).sum()),
                           "tn": int((~h & ~m).sum()), "fp": int((~h & m).sum()),
                           "metric_pos": int(mu.sum()), "metric_total": n_metric}
        resid = h.astype(float) - m
        est.append(mu.mean() + resid.mean())
        var.append(mu.var() / n_metric + resid.var() / n_paired)
    return counts, np.array(est), np.diag(var)


def binary_replicate(rep: int, seed: int = BASE_SEED) -> list[dict]:
    design = np.random.default_rng([seed, 0])
    k = 8
    alpha = np.linspace(0.40, 0.75, k)
    rho, eta = design.uniform(0.7, 0.9, k), design.uniform(0.7, 0.9, k)
    rng = np.random.default_rng([seed, 1, rep])
    counts, est, cov = binary_counts(rng, alpha, rho, eta, 40, 800)
    truth = pd.Series(_true_ranks(alpha), index=[f"s{g}" for g in range(k)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # 40 paired items leave some rates loose, by design
        rk = be.fit_counts(counts).ranks(LEVEL, seed=rep)
    return _methods("binary", rep, rk, est, cov, truth)


def _methods(design, rep, rk, est, cov, truth) -> list[dict]:
    out = []
    for level in LEVELS:
        for kind in ("simultaneous", "marginal"):
            iv = rk.interval(level, kind=kind)
            out.append(_record(design, rep, f"ranks() {kind}", iv["lower"], iv["upper"],
                               truth[iv.index].to_numpy(), level))
        lo, hi = rank_sets(est, cov, level)
        out.append(_record(design, rep, "PPR rank-sets (PPI)", lo, hi, truth.to_numpy(), level))
    return out


# -- the preference design --------------------------------------------------------------------------
_BASE = np.array([[0.75, 0.10, 0.15], [0.25, 0.50, 0.25], [0.15, 0.10, 0.75]])


def preference_data(rng: np.random.Generator, k: int, n_paired: int, n_judge: int,
                    spread: float = 0.5):
    """Battles per pair, the true average win rates and the PPI rank-set inputs."""
    strength = np.linspace(spread, -spread, k)
    names = [f"m{i}" for i in range(k)]
    rows, psi_hat, psi_var, pairs = [], [], [], []
    true = np.zeros(k)
    for a in range(k):
        for b in range(a + 1, k):
            w = 0.8 / (1.0 + np.exp(-2.0 * (strength[a] - strength[b])))
            p = np.array([w, 0.2, 0.8 - w])            # first better, tie, second better
            true[a] += p[0] + p[1] / 2
            true[b] += p[2] + p[1] / 2
            theta = np.stack([rng.dirichlet(40 * row) for row in _BASE])
            n = n_paired + n_judge
            h = rng.choice(3, size=n, p=p)
            u = rng.random(n)
            j = (u[:, None] > np.cumsum(theta[h], axis=1)).sum(axis=1)
            rows.append(pd.DataFrame({"first": names[a], "second": names[b],
                                      "human": np.where(np.arange(n) < n_paired, 1 - h, np.nan),
                                      "judge": 1 - j}))
            score = {0: 1.0, 1: 0.5, 2: 0.0}
            hs = np.vectorize(score.get)(h).astype(float)
            js = np.vectorize(score.get)(j).astype(float)
            resid = hs[:n_paired] - js[:n_paired]
            psi_hat.append(js[n_paired:].mean() + resid.mean())
            psi_var.append(js[n_paired:].var() / n_judge + resid.var() / n_paired)
            pairs.append((a, b))
    # average win rate = A psi + c (each pair enters its two systems with opposite signs)
    m = np.zeros((k, len(pairs)))
    const = np.zeros(k)
    for i, (a, b) in enumerate(pairs):
        m[a, i] += 1.0 / (k - 1)
        m[b, i] -= 1.0 / (k - 1)
        const[b] += 1.0 / (k - 1)
    est = m @ np.array(psi_hat) + const
    cov = m @ np.diag(psi_var) @ m.T
    return pd.concat(rows, ignore_index=True), names, true / (k - 1), est, cov


def preference_replicate(rep: int, seed: int = BASE_SEED, spread: float = 0.5) -> list[dict]:
    rng = np.random.default_rng([seed, 3, rep])
    df, names, true, est, cov = preference_data(rng, 6, 30, 300, spread)
    truth = pd.Series(_true_ranks(true), index=names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = be.fit_preferences("human ~ judge", df, first="first", second="second", seed=rep)
    rk = res.ranks(LEVEL)
    design = "preference" if spread == 0.5 else f"preference (spread {spread:g})"
    return _methods(design, rep, rk, est, cov, truth)


def summarise(folder: Path, target: Path = Path("vignettes/data/ranks_coverage.csv")
              ) -> pd.DataFrame:
    """Coverage and mean size per design, level and method over every result file in
    ``folder``: the table the validation vignette shows."""
    frames = [pd.read_csv(f) for f in sorted(Path(folder).glob("ranks_coverage_*.csv"))]
    frame = pd.concat(frames, ignore_index=True)
    table = frame.groupby(["design", "level", "method"], as_index=False).agg(
        reps=("covered", "size"), covered=("covered", "sum"), mean_size=("mean_size", "mean"))
    table["coverage"] = table["covered"] / table["reps"]
    if target.parent.is_dir():
        table.to_csv(target, index=False)
    return table


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--designs", default="binary,preference")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", default="studies/results")
    parser.add_argument("--spread", type=float, default=0.5,
                        help="strengths of the preference design in [-spread, spread]")
    args = parser.parse_args(argv)
    jobs = {"binary": binary_replicate, "preference": preference_replicate}
    rows = []
    for design in args.designs.split(","):
        start = time.time()
        kw = {"spread": args.spread} if design == "preference" else {}
        got = Parallel(n_jobs=args.n_jobs)(delayed(jobs[design])(r, **kw)
                                           for r in range(args.reps))
        rows += [row for rep in got for row in rep]
        print(f"{design}: {args.reps} replicates in {time.time() - start:.0f} s", flush=True)
    frame = pd.DataFrame(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tag = args.designs.replace(",", "_") + ("" if args.spread == 0.5 else f"_spread{args.spread:g}")
    name = f"ranks_coverage_{tag}.csv"
    frame.to_csv(out / name, index=False)
    # the vignette's table is the summary of the saved results only: a look elsewhere
    # (--out /tmp/quick) leaves it as it is
    if out.resolve() == Path("studies/results").resolve():
        summarise(out)
    table = frame.groupby(["design", "level", "method"]).agg(
        reps=("covered", "size"), coverage=("covered", "mean"), mean_size=("mean_size", "mean"))
    table["coverage_se"] = np.sqrt(table["coverage"] * (1 - table["coverage"]) / table["reps"])
    print(table.round(4).to_string())
    return frame


if __name__ == "__main__":
    main()
