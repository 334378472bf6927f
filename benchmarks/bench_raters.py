"""Speed and mixing of the rater-noise model (binaryeval.raters.fit_raters).

Run: ``PYTHONPATH=. python benchmarks/bench_raters.py``.

The design: 20 systems, 500 items each rated by 3 of 8 crowd raters (competence 0.6 to 0.95,
one spammer), a binary metric on every item (rho = eta = 0.8) and 2,000 further items per
system that only the metric rated (40,000 metric-only, 10,000 items with 30,000 human ratings).
One :func:`binaryeval.raters.fit_raters` call at its defaults (Dawid-Skene, 4 chains x 1,000
draws after 250 warm-up), then the same with ``raters="mace"``.  Prints the wall time against
the goal of 5 s and, as the baseline run in this process on the same data, the latent-truth
model of :func:`binaryeval.fit_latent` with one rater's labels taken as the truth (the same
sampler settings): the ratio of the two times is what a loaded machine does not change.  Also
the worst R-hat and bulk / tail ESS of ``alpha``, and how many of the 20 intervals cover the
simulation's share of adequate items.

Measured on the shared 2-core machine under a load average of about 12 (so wall times are
inflated about threefold; CPU time is the fit's own work): fit_latent 5.08 s wall / 1.61 s CPU;
Dawid-Skene 13.58 s wall / 3.83 s CPU (2.67 x / 2.37 x the baseline), worst R-hat 1.006, bulk
ESS >= 1,306, tail ESS >= 2,114, 18 of 20 intervals cover; MACE 14.91 s wall / 4.19 s CPU
(2.93 x / 2.60 x), R-hat 1.005, ESS >= 1,358 / 2,197, 18 of 20.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd

from binaryeval.latent import fit_latent
from binaryeval.raters import fit_raters
from binaryeval.raters._simulate import simulate_crowd

GOAL_SECONDS = 5.0
COMPETENCE = [0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.6, 0.0]


def design(seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    alphas = np.linspace(0.35, 0.8, 20)
    return simulate_crowd(seed, alphas=alphas, n_items=500, competence=COMPETENCE,
                          per_item=(3, 3), rho=0.8, eta=0.8, n_metric_only=2000)


def _timed(func, *args, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0, c0 = time.perf_counter(), time.process_time()
        out = func(*args, **kw)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return out, (wall, cpu), [str(w.message)[:100] for w in caught]


def main() -> None:
    df, truth = design()
    share = truth.groupby("system")["truth"].mean()
    print(f"data: {len(df):,} rows, {df['rating'].notna().sum():,} human ratings, "
          f"{df['rating'].isna().sum():,} metric-only items, 20 systems")
    # baseline: one rater's labels as the truth, the latent-truth sampler (same settings)
    first = df[df["rating"].isna() | ~df.duplicated(["system", "item"])].rename(
        columns={"rating": "human"})
    _, (base, base_cpu), _ = _timed(fit_latent, "human ~ metric | system", first, seed=1)
    print(f"baseline fit_latent (first rating as the truth): {base:.2f} s wall, "
          f"{base_cpu:.2f} s CPU")
    for model in ("dawid-skene", "mace"):
        fit, (wall, cpu), said = _timed(fit_raters, "rating ~ metric | system", df, rater="annotator",
                                 item="item", raters=model, seed=1)
        frame = fit.to_frame()
        cover = int(((frame["lower"] <= share[frame.index]) &
                     (share[frame.index] <= frame["upper"])).sum())
        print(f"{model}: {wall:.2f} s wall, {cpu:.2f} s CPU (goal {GOAL_SECONDS:g} s; "
              f"{wall / base:.2f} x the baseline's wall time, {cpu / base_cpu:.2f} x its CPU); worst R-hat {frame['rhat'].max():.3f}, bulk ESS "
              f">= {frame['ess_bulk'].min():.0f}, tail ESS >= {frame['ess_tail'].min():.0f}; "
              f"{cover}/20 intervals cover the simulated share; warnings: {len(said)}")


if __name__ == "__main__":
    main()
