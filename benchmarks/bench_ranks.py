"""Speed of the exact rank probabilities of a binary fit's leaderboard (``ranks()``).

Run: ``PYTHONPATH=. python benchmarks/bench_ranks.py [--systems 10,20,50] [--rounds 3]``.

Each leaderboard has ``K`` systems with 100-400 paired rows and 1,000-20,000 metric-only rows
(exact mixtures of some 800-10,000 Beta components).  Timed, as CPU time of this process:

- the posteriors' distribution functions (each posterior's Chebyshev interpolants, built once
  and kept by the posterior: the first ``ranks()`` of a fit pays for them);
- :func:`~binaryeval.binary.ranks.rank_probabilities` now, with panels joined across systems
  (each no wider than any system's own panels where it touches that system's support);
- the same on the panels of the union of every system's edges (the way before; the baseline,
  run in this process on the same posteriors), and the largest gap between the two tables.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import binaryeval as be
from binaryeval.binary import ranks as R


def leaderboard(k: int, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    posts = []
    for _ in range(k):
        n, a = int(rng.integers(100, 400)), rng.uniform(0.3, 0.8)
        m = int(rng.integers(1000, 20000))
        tp = int(n * a * 0.8)
        fn, tn = int(n * a) - tp, int(n * (1 - a) * 0.75)
        posts.append(be.alpha_posterior(tp + fn, n, int(m * (a * 0.8 + (1 - a) * 0.25)), m, tp,
                                        fn, tn, n - tp - fn - tn))
    return posts


def cpu(fn, rounds: int):
    times, out = [], None
    for _ in range(rounds):
        t = time.process_time()
        out = fn()
        times.append(time.process_time() - t)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", default="10,20,50")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print(f"{'systems':>8}{'interp s':>10}{'now s':>8}{'nodes':>8}{'union s':>9}{'nodes':>8}"
          f"{'union/now':>10}{'gap':>10}")
    joined = R._merged_edges
    for k in (int(x) for x in args.systems.split(",")):
        posts = leaderboard(k)
        t_int = time.process_time()
        for p in posts:
            p._fast()
        t_int = time.process_time() - t_int
        t_now, now = cpu(lambda posts=posts: R.rank_probabilities(posts), args.rounds)
        n_now = R._nodes(posts)[0].size
        try:
            R._merged_edges = lambda own: np.unique(np.concatenate(own))
            t_old, old = cpu(lambda posts=posts: R.rank_probabilities(posts), args.rounds)
            n_old = R._nodes(posts)[0].size
        finally:
            R._merged_edges = joined
        gap = float(np.abs(now - old).max())
        print(f"{k:>8}{t_int:>10.2f}{t_now:>8.2f}{n_now:>8}{t_old:>9.2f}{n_old:>8}"
              f"{t_old / t_now:>10.1f}{gap:>10.1e}")


if __name__ == "__main__":
    main()
