"""Simulation-based calibration of ``rates="hierarchical"`` (partial pooling of the rates).

Run from the repository root::

    python studies/hierarchical_sbc.py                  # 500 data sets per design, resumable
    python studies/hierarchical_sbc.py --batches 1 --out /tmp/quick.csv   # a look

Simulation-based calibration (Talts, Betancourt, Simpson, Vehtari and Gelman 2018): every data
set draws its parameters from the prior the fit uses, then counts from the model, then fits;
when sampler and model are right the rank of the drawn value among the posterior draws is
uniform and central intervals of level ``p`` contain it in a share ``p`` of data sets.

The model (:mod:`binaryeval.latent.hierarchical`): four groups, ``pi_g ~ Dirichlet(1)``, every
row ``Theta_g[k] ~ Dirichlet(c_k m_k)``, ``m_k ~ Dirichlet(1)``, ``log c_k ~ Normal(mu, s^2)``.
Two regimes of the hyperprior test the sampler where partial pooling is hardest:

* ``equal``: ``mu = log 300``, ``s = 0.5``: the groups' rates nearly equal (a rate of mean 0.75
  differs between groups by an sd of about 0.025), the neck of the funnel;
* ``unequal``: ``mu = log 3``, ``s = 0.5``: the groups' rates far apart (sd about 0.2).

Each in the binary model (K = J = 2, ``rho`` and ``eta`` per group) and the 3 x 3 model, with
60 paired and 140 metric-only items per group (200 items).  Sampler: 4 chains x 500 draws after
1,000 warm-up iterations (the default warm-up of ``rates="hierarchical"``).  Ranks are taken
among 499 draws (every fourth draw of each chain; the last one left out) in 20 bins of 25;
intervals from all 2,000 draws.  Quantities: the first group's share of the last class
(``share``, ``alpha`` in the binary model), its rate ``Theta[K-1, J-1]`` (``rate``, ``rho``),
the population mean of that rate ``m[K-1, J-1]`` (``mean``) and ``log c[K-1]``
(``log_concentration``).

Output: ``vignettes/data/hierarchical_sbc.csv``, one row per design x batch of 25 data sets x
quantity (the columns of ``studies/latent_sbc.py``).  Batches have their own seeds (base seed,
design, batch); finished batches are kept and skipped when the study is run again.
``tests/test_hierarchical.py`` re-runs one batch and checks the saved numbers.
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
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from binaryeval.latent import diagnostics  # noqa: E402
from binaryeval.latent.hierarchical import Hyperprior, sample_batch  # noqa: E402

BASE_SEED = 20261126
BATCH = 25
LEVELS = (0.5, 0.9, 0.95)
N_RANK_DRAWS = 499  # ranks 0..499 in 20 bins of 25
N_BINS = 20
DRAWS, CHAINS, WARMUP = 500, 4, 1000
GROUPS, N_PAIRED, N_METRIC = 4, 60, 140
OUT = ROOT / "vignettes" / "data" / "hierarchical_sbc.csv"


@dataclass(frozen=True)
class Design:
    name: str
    k: int
    loc: float
    scale: float = 0.5

    @property
    def hyper(self) -> Hyperprior:
        return Hyperprior(loc=float(np.log(self.loc)), scale=self.scale)


DESIGNS = [Design("binary_equal", 2, 300.0), Design("binary_unequal", 2, 3.0),
           Design("3x3_equal", 3, 300.0), Design("3x3_unequal", 3, 3.0)]


def batch_seed(design: str, batch: int) -> np.random.SeedSequence:
    key = sum(ord(c) * 31 ** i for i, c in enumerate(design)) % 2**31
    return np.random.SeedSequence([BASE_SEED, key, batch])


def simulate(design: Design, rng: np.random.Generator, n: int):
    """Parameters from the prior, counts from the model, for ``n`` data sets."""
    k = j = design.k
    hp = design.hyper
    conc = np.exp(rng.normal(hp.loc, hp.scale, (n, k)))
    mean = rng.dirichlet(np.ones(j), size=(n, k))
    theta = np.empty((n, GROUPS, k, j))
    for b in range(n):
        for c in range(k):
            theta[b, :, c] = rng.dirichlet(conc[b, c] * mean[b, c], size=GROUPS)
    pi = rng.dirichlet(np.ones(k), size=(n, GROUPS))
    paired = np.zeros((n, GROUPS, k, j), dtype=np.int64)
    metric = np.zeros((n, GROUPS, j), dtype=np.int64)
    for b in range(n):
        for g in range(GROUPS):
            for c, size in enumerate(rng.multinomial(N_PAIRED, pi[b, g])):
                paired[b, g, c] = rng.multinomial(size, theta[b, g, c])
            metric[b, g] = rng.multinomial(N_METRIC, pi[b, g] @ theta[b, g])
    truth = {"share": pi[:, 0, -1], "rate": theta[:, 0, -1, -1], "mean": mean[:, -1, -1],
             "log_concentration": np.log(conc[:, -1])}
    return truth, paired, metric


def flagged(x: np.ndarray) -> np.ndarray:
    r, bulk, tail = diagnostics.summary(x)
    return (r > 1.01) | (bulk < 400) | (tail < 400)


def run_batch(design: Design, batch: int, n: int = BATCH) -> pd.DataFrame:
    """One batch: ``n`` data sets in one sampler call; one row per quantity."""
    data_seed, fit_seed = batch_seed(design.name, batch).spawn(2)
    truth, paired, metric = simulate(design, np.random.default_rng(data_seed), n)
    k = design.k
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        out = sample_batch(paired, np.zeros((n, GROUPS, k)), metric, np.ones((n, GROUPS, k)),
                           draws=DRAWS, chains=CHAINS, warmup=WARMUP, seed=fit_seed,
                           hyper=design.hyper)
    draws = {"share": out.pi[:, :, :, 0, -1], "rate": out.theta[:, :, :, 0, -1, -1].astype(float),
             "mean": out.mean[:, :, :, -1, -1],
             "log_concentration": np.log(out.concentration[:, :, :, -1])}
    rows = []
    for name, x in draws.items():
        true = truth[name]
        thinned = x[:, ::4].reshape(-1, n)[:N_RANK_DRAWS]
        ranks = (thinned < true).sum(axis=0)
        hist = np.bincount(ranks // ((N_RANK_DRAWS + 1) // N_BINS), minlength=N_BINS)
        flat = x.reshape(-1, n)
        row = {"design": design.name, "batch": batch, "quantity": name, "n": n}
        for level in LEVELS:
            lo, hi = np.quantile(flat, [(1 - level) / 2, (1 + level) / 2], axis=0)
            row[f"covered_{round(100 * level)}"] = int(((lo <= true) & (true <= hi)).sum())
        row["n_flagged"] = int(flagged(x).sum())
        row.update({f"bin_{b:02d}": int(c) for b, c in enumerate(hist)})
        row["seed"] = BASE_SEED
        rows.append(row)
    return pd.DataFrame(rows)


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """Per design and quantity: coverage and whether it is within two binomial standard
    errors of the level, the rank test (Pearson's chi-square on 20 bins), flagged fits."""
    bins = [f"bin_{b:02d}" for b in range(N_BINS)]
    cols = ["n", *[f"covered_{round(100 * lv)}" for lv in LEVELS], "n_flagged", *bins]
    agg = frame.groupby(["design", "quantity"], sort=False)[cols].sum().reset_index()
    out = agg[["design", "quantity", "n"]].copy()
    for level in LEVELS:
        key = round(100 * level)
        cov = agg[f"covered_{key}"] / agg.n
        out[f"coverage_{key}"] = cov
        out[f"within_2se_{key}"] = (cov - level).abs() <= 2 * np.sqrt(level * (1 - level)
                                                                      / agg.n)
    out["rank_p_value"] = [float(stats.chisquare(row).pvalue) for row in agg[bins].to_numpy()]
    out["flagged_share"] = agg.n_flagged / agg.n
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=20, help="batches of 25 per design")
    parser.add_argument("--designs", nargs="*", default=[d.name for d in DESIGNS])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    done = pd.read_csv(args.out) if args.out.exists() else pd.DataFrame()
    chosen = [d for d in DESIGNS if d.name in args.designs]
    t0 = time.perf_counter()
    for b in range(args.batches):  # round-robin over designs: every design grows together
        for d in chosen:
            if len(done) and ((done.design == d.name) & (done.batch == b)).any():
                continue
            part = run_batch(d, b)
            done = pd.concat([done, part], ignore_index=True)
            args.out.parent.mkdir(parents=True, exist_ok=True)
            done.to_csv(args.out, index=False)
            print(f"{d.name} batch {b} done at {time.perf_counter() - t0:.0f} s", flush=True)
    table = summarise(done)
    with pd.option_context("display.width", 200, "display.float_format", "{:.3f}".format):
        print(table.to_string(index=False))


if __name__ == "__main__":
    main()
