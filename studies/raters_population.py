"""The raters' population prior against the fixed prior: raters' errors and alpha's coverage.

Run from the repository root::

    python studies/raters_population.py                 # 10 batches of 10 data sets
    python studies/raters_population.py --batches 1 --out /tmp/quick.csv   # a look
    python studies/raters_population.py --start 5 --out /tmp/part.csv     # batches 5-9 apart

A crowd where many raters rate few items, the case ``rater_rates="hierarchical"`` is for:
40 raters with competence drawn uniformly from 0.6 to 0.95 (MACE's story: the class with that
probability, otherwise a fair guess), each of 60 items per system rated by 2 or 3 of them (about
4 ratings per rater), a binary metric with ``rho`` and ``eta`` drawn from 0.7 to 0.9 on every
item and 200 more per system; ``alpha`` of each of two systems drawn from Beta(1, 1), as
simulation-based calibration draws it.  Each data set is fitted four times: Dawid-Skene and
MACE, each with the fixed prior (``rater_rates="estimate"``) and with the population
(``"hierarchical"``), 2 chains x 300 draws after 300 warm-up sweeps.

Per fit and system: the estimate of ``alpha`` and whether the central 50 / 90 / 95 % intervals
cover the drawn value; per fit the mean absolute error of the raters' estimated chance of giving
the item's class against the truth (Dawid-Skene: the mean of ``P(rating c | class c)`` over the
two classes, whose truth is ``theta + (1 - theta) / 2``; MACE: the competence ``theta``).

Output: ``vignettes/data/raters_population.csv``, one row per batch x data set x model x prior
x system: ``alpha``, ``estimate``, ``covered_50``, ``covered_90``, ``covered_95``,
``rater_mae`` (repeated on both systems' rows) and the batch's ``seed``.  The study resumes:
batches already in the file are not run again.  ``tests/test_raters_population.py`` re-runs one
data set from its seed and compares it with the saved rows, and checks the saved verdicts.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from binaryeval.raters import fit_raters  # noqa: E402
from binaryeval.raters._simulate import simulate_crowd  # noqa: E402

BASE_SEED = 20261126
BATCH = 10
N_RATERS, N_ITEMS, N_METRIC_ONLY, PER_ITEM = 40, 60, 200, (2, 3)
LEVELS = (0.5, 0.9, 0.95)
SAMPLER = {"draws": 300, "chains": 2, "warmup": 300}
OUT = ROOT / "vignettes" / "data" / "raters_population.csv"
MODELS = ("dawid-skene", "mace")
PRIORS = ("estimate", "hierarchical")


def rater_error(fit, competence: np.ndarray) -> float:
    """Mean absolute error of each rater's chance of giving the item's class."""
    idx = np.array([int(x[1:]) for x in fit.rater_names])
    r = len(idx)
    if fit.model == "mace":
        est = fit.draws.competence.reshape(-1, r).astype(float).mean(axis=0)
        return float(np.abs(est - competence[idx]).mean())
    phi = fit.draws.phi.reshape(-1, r, 2, 2).astype(float).mean(axis=0)
    est = 0.5 * (phi[:, 0, 0] + phi[:, 1, 1])
    return float(np.abs(est - (competence[idx] + (1.0 - competence[idx]) / 2.0)).mean())


def one_dataset(rng: np.random.Generator, models: tuple[str, ...] = MODELS) -> list[dict]:
    """The four fits of one simulated data set (or those of ``models``)."""
    alphas = rng.random(2)
    competence = rng.uniform(0.6, 0.95, N_RATERS)
    rho, eta = rng.uniform(0.7, 0.9, 2)
    df, _ = simulate_crowd(rng.integers(2**63), alphas=alphas, n_items=N_ITEMS,
                           competence=competence, per_item=PER_ITEM, rho=rho, eta=eta,
                           n_metric_only=N_METRIC_ONLY)
    truth = dict(zip(["S00", "S01"], alphas, strict=True))
    seed = int(rng.integers(2**31))
    rows = []
    for model, prior in ((m, p) for m in models for p in PRIORS):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = fit_raters("rating ~ metric | system", df, rater="annotator", item="item",
                             raters=model, rater_rates=prior, seed=seed, order="input",
                             **SAMPLER)
        mae = rater_error(fit, competence)
        for g in fit.groups:
            flat = fit.alpha_draws(g).ravel()
            row = {"model": model, "rater_rates": prior, "system": g, "alpha": truth[g],
                   "estimate": float(flat.mean()), "rater_mae": mae}
            for lv in LEVELS:
                lo, hi = np.quantile(flat, [(1 - lv) / 2, (1 + lv) / 2])
                row[f"covered_{round(100 * lv)}"] = int(lo <= truth[g] <= hi)
            rows.append(row)
    return rows


def run_dataset(batch: int, k: int, models: tuple[str, ...] = MODELS) -> pd.DataFrame:
    """Data set ``k`` of a batch, from its own seed (base seed, batch, k)."""
    rng = np.random.default_rng(np.random.SeedSequence([BASE_SEED, batch, k]))
    out = pd.DataFrame(one_dataset(rng, models))
    out.insert(0, "dataset", k)
    out.insert(0, "batch", batch)
    out["seed"] = f"{BASE_SEED}/{batch}/{k}"
    return out


def run_batch(batch: int, models: tuple[str, ...] = MODELS) -> pd.DataFrame:
    """The ``BATCH`` data sets of one batch."""
    return pd.concat([run_dataset(batch, k, models) for k in range(BATCH)], ignore_index=True)


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (model, prior): coverage with its binomial SE, bias and RMSE of alpha, raters' MAE."""
    f = frame.assign(error=frame["estimate"] - frame["alpha"])
    g = f.groupby(["model", "rater_rates"])
    per_fit = f.drop_duplicates(["batch", "dataset", "model", "rater_rates"]).groupby(
        ["model", "rater_rates"])
    out = pd.DataFrame({
        "n": g.size(), "bias": g["error"].mean(),
        "rmse": g["error"].apply(lambda e: float(np.sqrt(np.mean(e ** 2)))),
        **{f"coverage_{c}": g[f"covered_{c}"].mean() for c in (50, 90, 95)},
        "rater_mae": per_fit["rater_mae"].mean(),
        "rater_mae_se": per_fit["rater_mae"].std(ddof=1) / np.sqrt(per_fit.size())})
    for c, lv in ((50, 0.5), (90, 0.9), (95, 0.95)):
        out[f"se_{c}"] = np.sqrt(lv * (1 - lv) / out["n"])
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=10)
    parser.add_argument("--start", type=int, default=0, help="first batch (to split the runs)")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS,
                        help="the rater models fitted (a model's rows can be re-run apart)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    done = pd.read_csv(args.out) if args.out.exists() else None
    have = set() if done is None else set(done["batch"])
    for batch in range(args.start, args.batches):
        if batch in have:
            continue
        part = run_batch(batch, tuple(args.models))
        done = part if done is None else pd.concat([done, part], ignore_index=True)
        done.to_csv(args.out, index=False)
        print(f"batch {batch} written ({len(done)} rows)", flush=True)
    print(summarise(done).round(4).to_string())


if __name__ == "__main__":
    main()
