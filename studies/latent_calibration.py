"""Simulation-based calibration of the latent-truth model, with PPI++ as the peer (full run).

Run from the repository root::

    python studies/latent_calibration.py             # the full study, 2 processes
    python studies/latent_calibration.py --batches 2 --out /tmp/quick   # a look

Simulation-based calibration (Talts et al. 2018): every replicate draws its parameters from the
prior the model uses (``pi ~ Dirichlet(1)``, every row of ``Theta ~ Dirichlet(1)``), then data
from the model, then fits; the posterior's ``level`` intervals must then contain the drawn value
in a share ``level`` of replicates, whatever the data sizes.  Two models:

- ``preferences``: K = J = 3 (first better, tie, second better), one metric; quantities
  ``diff = win_1 - win_2`` and ``win_1``;
- ``joint``: a binary human rating and two binary metrics, their joint pattern (J = 4);
  quantity ``alpha``;

four data sizes each (paired, human-only and metric-only items).  The peer is PPI++
(Angelopoulos, Duchi and Zrnic 2023) with one metric: ``win_1`` as the mean of the indicator
"humans prefer the first system" with the metric's indicator as the prediction (preferences),
``alpha`` with the first metric (joint).

Output: ``vignettes/data/latent_calibration.csv``, one row per model x setting x batch x quantity
x method x level: ``n`` replicates, ``covered`` (intervals containing the drawn value),
``width_sum``, ``n_flagged`` (replicates whose draws of the quantity had R-hat > 1.01 or an ESS
below 400), the batch's ``seed``.  Every batch has its own seed (base seed, model, setting,
batch), so results do not depend on the number of processes; ``tests/test_latent_calibration.py``
re-runs one batch and checks every coverage against its binomial 99.9 % region.
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

from binaryeval.latent import diagnostics, latent_posterior  # noqa: E402

BASE_SEED = 20251123
LEVELS = (0.5, 0.8, 0.95)
BATCH = 50  # replicates per sampler call (one group each)
OUT = ROOT / "vignettes" / "data" / "latent_calibration.csv"


@dataclass(frozen=True)
class Setting:
    """A data size: paired, human-only and metric-only items per replicate."""

    name: str
    n_paired: int
    n_human: int
    n_metric: int


SETTINGS = {
    "preferences": [Setting("P1", 50, 0, 500), Setting("P2", 200, 0, 2000),
                    Setting("P3", 100, 0, 5000), Setting("P4", 100, 100, 1000)],
    "joint": [Setting("J1", 50, 0, 500), Setting("J2", 200, 0, 2000),
              Setting("J3", 100, 0, 5000), Setting("J4", 100, 100, 1000)],
}
SHAPES = {"preferences": (3, 3, (3,)), "joint": (2, 4, (2, 2))}  # K, J, levels


def _ppi_interval():
    try:  # the peers' home after the package's restructuring
        from binaryeval.validation import ppi_interval
    except ImportError:
        from binaryeval.validation.peers import ppi_interval
    return ppi_interval


def batch_seed(model: str, setting: str, batch: int) -> np.random.SeedSequence:
    """The seed of one batch: (base seed, model, setting, batch)."""
    key = [sum(ord(c) * 31 ** i for i, c in enumerate(model)) % 2**31,
           sum(ord(c) * 31 ** i for i, c in enumerate(setting)) % 2**31, batch]
    return np.random.SeedSequence([BASE_SEED, *key])


def simulate(model: str, setting: Setting, rng: np.random.Generator, n: int):
    """Parameters from the prior and counts from the model for ``n`` replicates."""
    k, j, _ = SHAPES[model]
    pi = rng.dirichlet(np.ones(k), size=n)
    theta = rng.dirichlet(np.ones(j), size=(n, k))
    paired = np.zeros((n, k, j), dtype=np.int64)
    human = np.zeros((n, k), dtype=np.int64)
    metric = np.zeros((n, j), dtype=np.int64)
    for r in range(n):
        by_class = rng.multinomial(setting.n_paired, pi[r])
        for c in range(k):
            paired[r, c] = rng.multinomial(by_class[c], theta[r, c])
        human[r] = rng.multinomial(setting.n_human, pi[r])
        metric[r] = rng.multinomial(setting.n_metric, pi[r] @ theta[r])
    return pi, theta, paired, human, metric


def _quantities(model: str, pi_draws: np.ndarray, pi_true: np.ndarray):
    """``name -> (draws (chains, draws, n), true values (n,))``."""
    if model == "preferences":
        return {"diff": (pi_draws[..., 0] - pi_draws[..., 2], pi_true[:, 0] - pi_true[:, 2]),
                "win_1": (pi_draws[..., 0], pi_true[:, 0])}
    return {"alpha": (pi_draws[..., 1], pi_true[:, 1])}


def _peer_counts(model: str, paired, metric):
    """Binary counts (tp, fn, tn, fp, metric_pos, metric_total) for PPI++, per replicate."""
    if model == "preferences":  # y: humans prefer the first; f: the metric does
        y_pos, f_pos = [0], [0]
    else:  # y: adequate (class 1); f: the first metric says 1 (patterns (1, 0) and (1, 1))
        y_pos, f_pos = [1], [2, 3]
    k, j = paired.shape[1:]
    y_neg = [c for c in range(k) if c not in y_pos]
    f_neg = [o for o in range(j) if o not in f_pos]
    cell = lambda ys, fs: paired[:, ys][:, :, fs].sum(axis=(1, 2))  # noqa: E731
    return (cell(y_pos, f_pos), cell(y_pos, f_neg), cell(y_neg, f_neg), cell(y_neg, f_pos),
            metric[:, f_pos].sum(axis=1), metric.sum(axis=1))


def run_batch(model: str, setting: Setting, batch: int, n: int = BATCH,
              draws: int = 1000) -> pd.DataFrame:
    """One batch: ``n`` replicates, one sampler call; coverage rows for every level."""
    ss = batch_seed(model, setting.name, batch)
    data_seed, fit_seed = ss.spawn(2)
    pi, _, paired, human, metric = simulate(model, setting, np.random.default_rng(data_seed), n)
    k, j, levels = SHAPES[model]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        post = latent_posterior(paired, human, metric, levels=levels, draws=draws,
                                seed=fit_seed)
    rows = []
    for name, (x, truth) in _quantities(model, post.draws.pi, pi).items():
        flat = x.reshape(-1, n)
        flagged = int(((diagnostics.rhat(x) > 1.01) | (diagnostics.ess_bulk(x) < 400)
                       | (diagnostics.ess_tail(x) < 400)).sum())
        for level in LEVELS:
            lo, hi = np.quantile(flat, [(1 - level) / 2, (1 + level) / 2], axis=0)
            rows.append(dict(quantity=name, method="latent model", level=level, n=n,
                             covered=int(((lo <= truth) & (truth <= hi)).sum()),
                             width_sum=float((hi - lo).sum()), n_flagged=flagged))
    ppi = _ppi_interval()
    counts = _peer_counts(model, paired, metric)
    peer_name = "win_1" if model == "preferences" else "alpha"
    peer_truth = pi[:, 0] if model == "preferences" else pi[:, 1]
    for level in LEVELS:
        iv = np.array([ppi(*(int(c[r]) for c in counts), level=level, lam=None)[1:]
                       for r in range(n)])
        rows.append(dict(quantity=peer_name, method="PPI++ (one metric)", level=level, n=n,
                         covered=int(((iv[:, 0] <= peer_truth) & (peer_truth <= iv[:, 1])).sum()),
                         width_sum=float((iv[:, 1] - iv[:, 0]).sum()), n_flagged=0))
    out = pd.DataFrame(rows)
    out.insert(0, "model", model)
    out.insert(1, "setting", setting.name)
    out.insert(2, "n_paired", setting.n_paired)
    out.insert(3, "n_human", setting.n_human)
    out.insert(4, "n_metric", setting.n_metric)
    out.insert(5, "batch", batch)
    out["seed"] = BASE_SEED
    return out


def coverage_region(n: int, level: float, prob: float = 0.999) -> tuple[int, int]:
    """Counts of covering intervals inside the central ``prob`` region of Binomial(n, level)."""
    from scipy import stats

    tail = (1 - prob) / 2
    return int(stats.binom.ppf(tail, n, level)), int(stats.binom.isf(tail, n, level))


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """Coverage per model x setting x quantity x method x level, with the binomial region."""
    keys = ["model", "setting", "n_paired", "n_human", "n_metric", "quantity", "method", "level"]
    agg = frame.groupby(keys, sort=False).agg(n=("n", "sum"), covered=("covered", "sum"),
                                              width_sum=("width_sum", "sum"),
                                              n_flagged=("n_flagged", "sum")).reset_index()
    agg["coverage"] = agg.covered / agg.n
    agg["mean_width"] = agg.width_sum / agg.n
    region = [coverage_region(n, lv) for n, lv in zip(agg.n, agg.level, strict=True)]
    agg["region_low"] = [r[0] for r in region]
    agg["region_high"] = [r[1] for r in region]
    agg["inside"] = (agg.covered >= agg.region_low) & (agg.covered <= agg.region_high)
    return agg.drop(columns=["width_sum"])


def main() -> None:
    from joblib import Parallel, delayed

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=10, help="batches of 50 per setting")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    jobs = [(model, s, b) for model, settings in SETTINGS.items() for s in settings
            for b in range(args.batches)]
    t0 = time.perf_counter()
    parts = Parallel(n_jobs=args.n_jobs)(delayed(run_batch)(*job) for job in jobs)
    frame = pd.concat(parts, ignore_index=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out, index=False, float_format="%.10g")
    table = summarise(frame)
    with pd.option_context("display.width", 160, "display.max_rows", 200):
        print(table[["model", "setting", "quantity", "method", "level", "n", "coverage",
                     "mean_width", "inside", "n_flagged"]].to_string(index=False))
    ours = table[table.method == "latent model"]
    peer = table[table.method != "latent model"]
    print(f"{len(jobs)} batches of {BATCH} in {time.perf_counter() - t0:.0f} s; wrote {args.out}")
    print(f"latent model: {int(ours.inside.sum())} of {len(ours)} coverages inside their 99.9% "
          f"binomial regions; PPI++: {int(peer.inside.sum())} of {len(peer)}")


if __name__ == "__main__":
    main()
