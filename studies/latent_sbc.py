"""Simulation-based calibration and convergence of the latent-truth sampler (full run).

Run from the repository root::

    python studies/latent_sbc.py                    # 500 data sets per design, 2 processes
    python studies/latent_sbc.py --batches 2 --out /tmp/quick      # a look

Simulation-based calibration (Talts, Betancourt, Simpson, Vehtari and Gelman 2018, "Validating
Bayesian inference algorithms with simulation-based calibration"): every data set draws its
parameters from the prior the fit uses (``pi ~ Dirichlet(1)``, every row of every confusion
matrix ``~ Dirichlet(1)``), then counts from the model, then fits at the default settings
(4 chains x 1,000 draws after 250 warm-up).  When sampler and model are right, the rank of the
drawn value among posterior draws is uniform, and central intervals of level ``p`` contain it
in a share ``p`` of data sets.  Ranks are taken among 999 draws (every fourth draw of each
chain, so that they are nearly independent; the last one left out), binned into 20 bins of 50
ranks and tested for uniformity with Pearson's chi-square; intervals come from all 4,000 draws.

Every fit is also checked as the faces check it: the reported quantity (``diff`` of a
preference pair, ``alpha`` of a binary rating) is *flagged* when its R-hat exceeds 1.01 or its
bulk or tail ESS is below 400 (``fit_preferences`` and ``fit_latent`` would warn), and
``flagged_any`` counts data sets where some class share is (``latent_posterior`` would warn).

Designs (``DESIGNS``): the preference model (K = J = 3, one metric) at seven data sizes, among
them 30 paired + 20,000 metric-only items and the pair of an LLM-judge leaderboard with 10 %
human votes (16 paired + 142 judge-only), and a calibration sample (the paired items do not
inform the shares); a binary rating with two binary metrics, joint and product
(``dependence="independent"``) forms; preferences with two metrics in the product form.

Output: ``vignettes/data/latent_sbc.csv``, one row per design x batch of 50 data sets x
quantity: ``n``, ``covered_50``/``covered_90``/``covered_95``, ``n_flagged``,
``n_flagged_any`` and the rank histogram ``bin_00`` .. ``bin_19``; and ``seed``.  Every batch has
its own seed (base seed, design, batch), so results do not depend on the number of processes.
``tests/test_latent_sbc.py`` re-runs one batch and checks the saved numbers and their verdicts.
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

from binaryeval.latent import diagnostics, latent_posterior  # noqa: E402
from binaryeval.latent.engine import _product_theta  # noqa: E402

BASE_SEED = 20261126
BATCH = 50  # data sets per sampler call (one group each)
LEVELS = (0.5, 0.9, 0.95)
N_RANK_DRAWS = 999  # ranks 0..999 in 20 bins of 50
N_BINS = 20
OUT = ROOT / "vignettes" / "data" / "latent_sbc.csv"


@dataclass(frozen=True)
class Design:
    """One data size of one model form: paired, human-only and metric-only items."""

    name: str
    k: int
    levels: tuple[int, ...]
    n_paired: int
    n_human: int
    n_metric: int
    dependence: str = "joint"
    paired_informs_pi: bool = True

    @property
    def family(self) -> str:
        return "preferences" if self.k == 3 else "binary"


DESIGNS = [
    Design("P1", 3, (3,), 50, 0, 500),
    Design("P2", 3, (3,), 200, 0, 2000),
    Design("P3", 3, (3,), 100, 0, 5000),
    Design("P4", 3, (3,), 100, 100, 1000),
    Design("P5", 3, (3,), 30, 0, 20000),
    Design("P6", 3, (3,), 16, 0, 142),
    Design("P7", 3, (3,), 100, 0, 2000, paired_informs_pi=False),
    Design("J1", 2, (2, 2), 100, 0, 2000),
    Design("J2", 2, (2, 2), 30, 0, 5000),
    Design("I1", 2, (2, 2), 50, 0, 500, dependence="independent"),
    Design("I2", 2, (2, 2), 200, 0, 2000, dependence="independent"),
    Design("I3", 2, (2, 2), 100, 0, 5000, dependence="independent"),
    Design("I4", 2, (2, 2), 100, 100, 1000, dependence="independent"),
    Design("PI1", 3, (3, 3), 100, 0, 2000, dependence="independent"),
    Design("PI2", 3, (3, 3), 200, 0, 5000, dependence="independent"),
]


def batch_seed(design: str, batch: int) -> np.random.SeedSequence:
    """The seed of one batch: (base seed, design, batch)."""
    key = sum(ord(c) * 31 ** i for i, c in enumerate(design)) % 2**31
    return np.random.SeedSequence([BASE_SEED, key, batch])


def simulate(design: Design, rng: np.random.Generator, n: int):
    """Parameters from the prior and counts from the model for ``n`` data sets."""
    k, levels = design.k, design.levels
    pi = rng.dirichlet(np.ones(k), size=n)
    if design.dependence == "independent":
        theta = _product_theta([rng.dirichlet(np.ones(lv), size=(n, k)) for lv in levels])
    else:
        theta = rng.dirichlet(np.ones(int(np.prod(levels))), size=(n, k))
    j = theta.shape[2]
    paired = np.zeros((n, k, j), dtype=np.int64)
    human = np.zeros((n, k), dtype=np.int64)
    metric = np.zeros((n, j), dtype=np.int64)
    for r in range(n):
        # a calibration sample's classes are chosen apart from pi (they must not inform it):
        # a balanced sample, as a labelled calibration set usually is
        share = pi[r] if design.paired_informs_pi else np.full(k, 1.0 / k)
        for c, size in enumerate(rng.multinomial(design.n_paired, share)):
            paired[r, c] = rng.multinomial(size, theta[r, c])
        human[r] = rng.multinomial(design.n_human, pi[r])
        metric[r] = rng.multinomial(design.n_metric, pi[r] @ theta[r])
    return pi, paired, human, metric


def quantities(design: Design, pi_draws: np.ndarray, pi_true: np.ndarray):
    """``name -> (draws (chains, draws, n), true values (n,))``; the first is reported."""
    if design.family == "preferences":
        return {"diff": (pi_draws[..., 0] - pi_draws[..., 2], pi_true[:, 0] - pi_true[:, 2]),
                "win_1": (pi_draws[..., 0], pi_true[:, 0])}
    return {"alpha": (pi_draws[..., 1], pi_true[:, 1])}


def flagged(x: np.ndarray) -> np.ndarray:
    """Quantities (last axis) whose draws would draw a convergence warning."""
    r, bulk, tail = diagnostics.summary(x)
    return (r > 1.01) | (bulk < 400) | (tail < 400)


def run_batch(design: Design, batch: int, n: int = BATCH) -> pd.DataFrame:
    """One batch: ``n`` data sets, one sampler call; one row per quantity."""
    data_seed, fit_seed = batch_seed(design.name, batch).spawn(2)
    pi, paired, human, metric = simulate(design, np.random.default_rng(data_seed), n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        post = latent_posterior(paired, human, metric, levels=design.levels,
                                dependence=design.dependence,
                                paired_informs_pi=design.paired_informs_pi, seed=fit_seed)
    draws = post.draws.pi  # (chains, draws, n, K)
    any_share = flagged(draws).any(axis=1)
    rows = []
    for name, (x, truth) in quantities(design, draws, pi).items():
        thinned = x[:, ::4].reshape(-1, n)[:N_RANK_DRAWS]
        ranks = (thinned < truth).sum(axis=0)
        hist = np.bincount(ranks // ((N_RANK_DRAWS + 1) // N_BINS), minlength=N_BINS)
        flat = x.reshape(-1, n)
        row = {"design": design.name, "batch": batch, "quantity": name, "n": n}
        for level in LEVELS:
            lo, hi = np.quantile(flat, [(1 - level) / 2, (1 + level) / 2], axis=0)
            row[f"covered_{round(100 * level)}"] = int(((lo <= truth) & (truth <= hi)).sum())
        row["n_flagged"] = int(flagged(x).sum())
        row["n_flagged_any"] = int(any_share.sum())
        row.update({f"bin_{b:02d}": int(c) for b, c in enumerate(hist)})
        row["seed"] = BASE_SEED
        rows.append(row)
    return pd.DataFrame(rows)


def coverage_region(n: int, level: float, prob: float = 0.999) -> tuple[int, int]:
    """Counts of covering intervals inside the central ``prob`` region of Binomial(n, level)."""
    tail = (1 - prob) / 2
    return int(stats.binom.ppf(tail, n, level)), int(stats.binom.isf(tail, n, level))


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """Per design and quantity: coverage (with the binomial 99.9 % region and within two
    standard errors of the level), the rank test, and the share of flagged fits."""
    bins = [f"bin_{b:02d}" for b in range(N_BINS)]
    cols = ["n", *[f"covered_{round(100 * lv)}" for lv in LEVELS], "n_flagged",
            "n_flagged_any", *bins]
    agg = frame.groupby(["design", "quantity"], sort=False)[cols].sum().reset_index()
    out = agg[["design", "quantity", "n"]].copy()
    for level in LEVELS:
        key = f"covered_{round(100 * level)}"
        cov = agg[key] / agg.n
        out[f"coverage_{round(100 * level)}"] = cov
        se = np.sqrt(level * (1 - level) / agg.n)
        region = [coverage_region(int(m), level) for m in agg.n]
        out[f"inside_{round(100 * level)}"] = [lo <= c <= hi for c, (lo, hi) in
                                               zip(agg[key], region, strict=True)]
        out[f"within_2se_{round(100 * level)}"] = (cov - level).abs() <= 2 * se
    out["rank_p_value"] = [float(stats.chisquare(row).pvalue) for row in agg[bins].to_numpy()]
    out["flagged_share"] = agg.n_flagged / agg.n
    out["flagged_any_share"] = agg.n_flagged_any / agg.n
    return out


def main() -> None:
    from joblib import Parallel, delayed

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=10, help="batches of 50 per design")
    parser.add_argument("--designs", nargs="*", default=[d.name for d in DESIGNS])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    chosen = [d for d in DESIGNS if d.name in args.designs]
    jobs = [(d, b) for d in chosen for b in range(args.batches)]
    t0 = time.perf_counter()
    parts = Parallel(n_jobs=args.n_jobs)(delayed(run_batch)(*job) for job in jobs)
    frame = pd.concat(parts, ignore_index=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out, index=False)
    table = summarise(frame)
    with pd.option_context("display.width", 200, "display.max_rows", 200,
                           "display.float_format", "{:.3f}".format):
        print(table[["design", "quantity", "n", "coverage_50", "coverage_90", "coverage_95",
                     "rank_p_value", "flagged_share", "flagged_any_share"]].to_string(
                         index=False))
    inside = table[[c for c in table if c.startswith("inside_")]].to_numpy()
    print(f"{len(jobs)} batches of {BATCH} in {time.perf_counter() - t0:.0f} s; wrote "
          f"{args.out}")
    reported = frame[frame.quantity.isin(["diff", "alpha"])]
    print(f"coverages inside their 99.9% binomial regions: {int(inside.sum())} of "
          f"{inside.size}; rank tests with p > 0.01: {int((table.rank_p_value > 0.01).sum())} "
          f"of {len(table)}; fits flagged (reported quantity): {reported.n_flagged.sum()} of "
          f"{reported.n.sum()}, (some class share): {reported.n_flagged_any.sum()}")


if __name__ == "__main__":
    main()
