"""Calibration of alpha when the human raters err: the rater model beside two shortcuts.

Run from the repository root::

    python studies/raters_calibration.py                 # 10 batches of 20 data sets
    python studies/raters_calibration.py --batches 2 --out /tmp/quick.csv   # a look

Every data set is drawn as simulation-based calibration draws it (Talts et al. 2018) for the
quantity of interest: ``alpha`` of each of two systems from its prior, Beta(1, 1).  The crowd is
realistic rather than drawn from the fit's own prior: eight raters, six with competence drawn
uniformly from 0.6 to 0.95 (MACE's story: the class with that probability, otherwise a fair
guess) and two spammers (competence 0, guessing "adequate" with a probability drawn from 0.2 to
0.8); each of 100 items per system is rated by 2 to 5 of them; a binary metric with ``rho`` and
``eta`` drawn from 0.7 to 0.9 rates every item and 400 more per system.  Three analyses of
each data set:

- ``rater model``: :func:`binaryeval.raters.fit_raters` (Dawid-Skene, 2 chains x 300 draws
  after 150 warm-up);
- ``one rater as truth``: today's exact model (:func:`binaryeval.fit`) with the item's first
  rating (a random rater) as the human rating;
- ``majority as truth``: the same with the majority vote (ties broken by a coin).

For each: the estimate (posterior mean), and whether the central 50 / 90 / 95 % intervals
contain the drawn ``alpha``; for the rater model also the rank of ``alpha`` among 99 thinned
posterior draws (uniform when calibrated).

Output: ``vignettes/data/raters_calibration.csv``, one row per batch x data set x system x
analysis: ``alpha``, ``estimate``, ``covered_50``, ``covered_90``, ``covered_95``, ``rank`` and
the batch's ``seed``.  The study resumes: batches already in the file are not run again.  Every
batch has its own seed (base seed, batch), so ``tests/test_raters_calibration.py`` re-runs one
and compares it with the saved rows.
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

import binaryeval as be  # noqa: E402
from binaryeval.raters import fit_raters  # noqa: E402
from binaryeval.raters._simulate import simulate_crowd  # noqa: E402

BASE_SEED = 20261127
BATCH = 20
N_ITEMS, N_METRIC_ONLY, PER_ITEM = 100, 400, (2, 5)
LEVELS = (0.5, 0.9, 0.95)
SAMPLER = {"draws": 300, "chains": 2, "warmup": 150}
OUT = ROOT / "vignettes" / "data" / "raters_calibration.csv"
ANALYSES = ("rater model", "one rater as truth", "majority as truth")


def _covered(lo_hi: dict[float, tuple[float, float]], value: float) -> dict[str, int]:
    return {f"covered_{round(100 * lv)}": int(lo <= value <= hi) for lv, (lo, hi) in lo_hi.items()}


def _exact(items: pd.DataFrame, truth: pd.Series) -> list[dict]:
    """Today's exact model with ``human`` as the truth, per system."""
    with warnings.catch_warnings():   # the shortcuts' identifiability warnings, expected here
        warnings.simplefilter("ignore")
        fit = be.fit("human ~ metric | system", items, order="input")
    rows = []
    for system, post in ((g, fit.posterior(g)) for g in fit.groups):
        rows.append({"system": system, "estimate": post.mean(),
                     **_covered({lv: post.interval(lv) for lv in LEVELS}, truth[system])})
    return rows


def one_dataset(rng: np.random.Generator) -> list[dict]:
    """The three analyses of one simulated data set."""
    alphas = rng.random(2)
    competence = np.r_[rng.uniform(0.6, 0.95, 6), 0.0, 0.0]
    guess = np.r_[np.full(6, 0.5), rng.uniform(0.2, 0.8, 2)]
    rho, eta = rng.uniform(0.7, 0.9, 2)
    df, _ = simulate_crowd(rng.integers(2**63), alphas=alphas, n_items=N_ITEMS,
                           competence=competence, guess=guess, per_item=PER_ITEM, rho=rho,
                           eta=eta, n_metric_only=N_METRIC_ONLY)
    truth = pd.Series(alphas, index=["S00", "S01"])
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit_raters("rating ~ metric | system", df, rater="annotator", item="item",
                         seed=int(rng.integers(2**31)), order="input", **SAMPLER)
    for g in fit.groups:
        draws = fit.alpha_draws(g)
        flat = draws.ravel()
        thin = flat[::flat.size // 99][:99]
        tail = {lv: tuple(np.quantile(flat, [(1 - lv) / 2, (1 + lv) / 2])) for lv in LEVELS}
        rows.append({"analysis": "rater model", "system": g, "estimate": float(flat.mean()),
                     "rank": int((thin < truth[g]).sum()), **_covered(tail, truth[g])})
    # the shortcuts: one rating per item taken as the truth
    rated = df.dropna(subset=["rating"])
    only = df[df["rating"].isna()].rename(columns={"rating": "human"})
    first = rated.drop_duplicates(["system", "item"]).rename(columns={"rating": "human"})
    vote = rated.groupby(["system", "item"]).agg(share=("rating", "mean"),
                                                 metric=("metric", "first")).reset_index()
    coin = rng.random(len(vote)) < 0.5
    vote["human"] = np.where(vote["share"] == 0.5, coin, vote["share"] > 0.5).astype(float)
    for name, items in (("one rater as truth", first), ("majority as truth", vote)):
        data = pd.concat([items[["system", "human", "metric"]],
                          only[["system", "human", "metric"]]], ignore_index=True)
        rows += [{"analysis": name, "rank": -1, **r} for r in _exact(data, truth)]
    for r in rows:
        r["alpha"] = float(truth[r["system"]])
    return rows


def run_batch(batch: int) -> pd.DataFrame:
    """The ``BATCH`` data sets of one batch, from the batch's own seed."""
    ss = np.random.SeedSequence([BASE_SEED, batch])
    rng = np.random.default_rng(ss)
    rows = []
    for k in range(BATCH):
        for r in one_dataset(rng):
            rows.append({"batch": batch, "dataset": k, **r})
    out = pd.DataFrame(rows)
    out["seed"] = f"{BASE_SEED}/{batch}"
    cols = ["batch", "dataset", "system", "analysis", "alpha", "estimate", "covered_50",
            "covered_90", "covered_95", "rank", "seed"]
    return out[cols]


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """Coverage (with its binomial standard error), bias and RMSE per analysis."""
    g = frame.assign(error=frame["estimate"] - frame["alpha"]).groupby("analysis", sort=False)
    out = pd.DataFrame({
        "n": g.size(), "bias": g["error"].mean(),
        "rmse": g["error"].apply(lambda e: float(np.sqrt(np.mean(e ** 2)))),
        **{f"coverage_{c}": g[f"covered_{c}"].mean() for c in (50, 90, 95)}})
    for c, lv in ((50, 0.5), (90, 0.9), (95, 0.95)):
        out[f"se_{c}"] = np.sqrt(lv * (1 - lv) / out["n"])
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=10)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    done = pd.read_csv(args.out) if args.out.exists() else None
    have = set() if done is None else set(done["batch"])
    for batch in range(args.batches):
        if batch in have:
            continue
        part = run_batch(batch)
        done = part if done is None else pd.concat([done, part], ignore_index=True)
        done.to_csv(args.out, index=False)
        print(f"batch {batch} written ({len(done)} rows)", flush=True)
    print(summarise(done).round(4).to_string())


if __name__ == "__main__":
    main()
