"""Where partial pooling pays: simulated groups with few paired items and a good metric.

Run from the repository root::

    python studies/hierarchical_gain.py             # 10 data sets per design

Eight groups, each with ``alpha_g`` evenly spread over [0.3, 0.7], 20 paired items and 500
metric-only items; the metric's rates either equal in every group (``rho = eta = 0.85``) or
spread (``rho_g``, ``eta_g`` evenly over [0.65, 0.95], in opposite orders).  Per data set and
rates (``"estimate"``, the exact binary engine; ``"hierarchical"``): the share of groups whose
95 % interval of ``alpha`` covers the true value and the mean interval width.

Output: ``vignettes/data/hierarchical_gain.csv``, one row per design x data set x rates.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import binaryeval as be  # noqa: E402

BASE_SEED = 20261126
OUT = ROOT / "vignettes" / "data" / "hierarchical_gain.csv"
GROUPS, N_PAIRED, N_METRIC = 8, 20, 500


def simulate(rng, equal: bool) -> tuple[pd.DataFrame, np.ndarray]:
    alpha = np.linspace(0.3, 0.7, GROUPS)
    rho = np.full(GROUPS, 0.85) if equal else np.linspace(0.65, 0.95, GROUPS)
    eta = np.full(GROUPS, 0.85) if equal else np.linspace(0.95, 0.65, GROUPS)
    frames = []
    n = N_PAIRED + N_METRIC
    for g in range(GROUPS):
        truth = rng.random(n) < alpha[g]
        metric = np.where(truth, rng.random(n) < rho[g], rng.random(n) > eta[g])
        frames.append(pd.DataFrame({"system": f"s{g}", "metric": metric.astype(int),
                                    "human": np.where(np.arange(n) < N_PAIRED, truth, np.nan)}))
    return pd.concat(frames, ignore_index=True), alpha


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=10)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    done = pd.read_csv(args.out) if args.out.exists() else pd.DataFrame()
    t0 = time.perf_counter()
    for sim in range(args.sims):
        for equal in (True, False):
            design = "equal rates" if equal else "spread rates"
            if len(done) and ((done.design == design) & (done.sim == sim)).any():
                continue
            rng = np.random.default_rng([BASE_SEED, sim, int(equal)])
            df, alpha = simulate(rng, equal)
            rows = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fits = {"estimate": be.fit("human ~ metric | system", df, order="input"),
                        "hierarchical": be.fit("human ~ metric | system", df, order="input",
                                               rates="hierarchical", seed=sim)}
            for rates, fit in fits.items():
                fr = fit.to_frame()
                rows.append({"design": design, "sim": sim, "rates": rates,
                             "coverage": float(((fr["lower"] <= alpha)
                                                & (alpha <= fr["upper"])).mean()),
                             "width": float((fr["upper"] - fr["lower"]).mean())})
            done = pd.concat([done, pd.DataFrame(rows)], ignore_index=True)
            args.out.parent.mkdir(parents=True, exist_ok=True)
            done.to_csv(args.out, index=False)
            print(f"{design} {sim} at {time.perf_counter() - t0:.0f} s: " + "; ".join(
                f"{r['rates']} {r['coverage']:.2f} {r['width']:.3f}" for r in rows), flush=True)
    print(done.groupby(["design", "rates"])[["coverage", "width"]].mean())


if __name__ == "__main__":
    main()
