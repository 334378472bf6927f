"""Speed and accuracy of binaryeval.fit_preferences: 20 systems, 190 pairs.

Run: ``PYTHONPATH=. python benchmarks/bench_latent.py [--systems K] [--paired N] [--metric M]``.

Data: ``K`` systems on ``N + M`` items; humans rate the first ``N`` items (integer scores, so
humans tie), a noisy metric that favours some systems (a bias per system) scores every item; each pair has ``N`` paired and ``M`` metric-only
preferences (defaults 300 and 3,000, as in the goal).  Prints the wall and CPU time of one
:func:`binaryeval.fit_preferences` call at its defaults (4 chains x 1,000 draws), the ratio to
the goal of 5 s, the worst sampler diagnostics, and how far the corrected ``diff``, the naive
metric-only ``diff`` and the human-only ``diff`` (the ``N`` rated items) fall from the
``diff`` of the hidden human scores of all items.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

from binaryeval.latent import fit_preferences

GOAL_SECONDS = 5.0


def simulate(n_systems: int, n_paired: int, n_metric: int, seed: int = 0):
    """Long data (item, system, human, metric) and the hidden human scores of every item."""
    rng = np.random.default_rng(seed)
    n_items = n_paired + n_metric
    quality = np.linspace(0.0, 0.8, n_systems)
    difficulty = rng.normal(0, 1, n_items)
    latent = quality[None, :] + difficulty[:, None] + rng.normal(0, 1, (n_items, n_systems))
    human = np.clip(np.round(3 + latent), 1, 5)
    # the metric reads the outputs with noise and likes some systems more than humans do
    bias = rng.normal(0, 0.3, n_systems)
    metric = latent + bias[None, :] + rng.normal(0, 0.8, (n_items, n_systems))
    shown = human.copy()
    shown[n_paired:] = np.nan
    systems = np.array([f"sys{k:02d}" for k in range(n_systems)])
    df = pd.DataFrame({"item": np.repeat(np.arange(n_items), n_systems),
                       "system": np.tile(systems, n_items), "human": shown.ravel(),
                       "metric": metric.ravel()})
    return df, pd.DataFrame(human, columns=systems)


def full_human_diff(hidden: pd.DataFrame, pairs) -> np.ndarray:
    return np.array([np.mean(np.sign(hidden[a] - hidden[b])) for a, b in pairs])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--paired", type=int, default=300)
    parser.add_argument("--metric", type=int, default=3000)
    args = parser.parse_args()
    df, hidden = simulate(args.systems, args.paired, args.metric)
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fit_preferences("human ~ metric | system", df, item="item", tolerance={"metric": 0.25},
                              seed=1)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    frame = res.to_frame()
    n_pairs = len(frame)
    print(f"fit_preferences: {args.systems} systems, {n_pairs} pairs, "
          f"{int(frame.n_paired.iloc[0])} paired + {int(frame.n_metric.iloc[0])} metric-only "
          f"items per pair, 4 chains x 1,000 draws")
    print(f"  wall {wall:.2f} s, CPU {cpu:.2f} s; goal {GOAL_SECONDS:.0f} s: "
          f"now/goal = {wall / GOAL_SECONDS:.2f} (CPU {cpu / GOAL_SECONDS:.2f})")
    print(f"  diagnostics of diff: max R-hat {frame.rhat.max():.4f}, min bulk ESS "
          f"{frame.ess_bulk.min():.0f}, min tail ESS {frame.ess_tail.min():.0f}; convergence "
          f"warnings: {sum('reliable' in str(w.message) for w in caught)}")
    truth = full_human_diff(hidden, res.pairs)
    rated = full_human_diff(hidden.iloc[:args.paired], res.pairs)
    for name, est in (("corrected", frame["diff"]), ("naive (metric only)", frame["naive_diff"]),
                      (f"human only ({args.paired} items)", rated)):
        err = np.abs(np.asarray(est) - truth)
        print(f"  |diff - full-human diff| {name:>24}: mean {err.mean():.4f}, max {err.max():.4f}")
    print(f"  posterior sd of diff: mean {frame['std_error'].mean():.4f}")
    covered = np.mean((frame["lower"] <= truth) & (truth <= frame["upper"]))
    print(f"  95% intervals covering the full-human diff: {covered:.3f} of {n_pairs} pairs "
          "(the full-human diff is itself a sample of 3,300 items, not the population value)")


if __name__ == "__main__":
    main()
