"""Speed and accuracy of the exact posterior engine against the paper's midpoint grid.

Run: ``python benchmarks/bench_engine.py [--full-grid]``.

For each case the default engine (``method="exact"``) and the grid (``method="grid"``) are run in
the same process; the script prints both times, their ratio and the differences of mean, sd and
the 2.5 %/97.5 % quantiles.  By default the grid uses (N_alpha, N_rho, N_eta) = (500, 250, 250)
to keep the run short; ``--full-grid`` uses the paper's (2000, 1000, 1000) (minutes per case).
A second table times the exact engine alone up to 10^4 human and 10^6 metric ratings
(goal: 10 ms per posterior; the mean of five runs is shown).
"""

from __future__ import annotations

import argparse
import time

from binaryeval.binary.engine import alpha_posterior

CASES = {
    # name: (human_pos, human_total, metric_pos, metric_total, tp, fn, tn, fp)
    "E1 metric only": (0, 0, 5200, 10000, 80, 20, 80, 20),
    "E2 mixed": (60, 100, 5600, 10000, 96, 24, 64, 16),
    "E4 weak metric": (0, 0, 5200, 10000, 180, 120, 120, 80),
    "S1 synthetic": (113, 200, 5575, 10000, 92, 21, 64, 23),
}

SCALING = {
    "10^2 human": (60, 100, 0, 0, 0, 0, 0, 0),
    "10^3 metric": (60, 100, 560, 1000, 48, 12, 32, 8),
    "10^5 metric": (120, 200, 56000, 100000, 96, 24, 64, 16),
    "10^4 human + 10^6 metric": (6000, 10000, 560000, 1000000, 4800, 1200, 3200, 800),
    "10^6 metric only": (0, 0, 560000, 1000000, 480, 120, 320, 80),
}


def _summary(post):
    lo, hi = post.interval(0.95)
    return post.mean(), post.std(), lo, hi


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--full-grid", action="store_true")
    args = parser.parse_args(argv)
    grid = (2000, 1000, 1000) if args.full_grid else (500, 250, 250)
    print(f"exact engine vs midpoint grid {grid}")
    print(f"{'case':<18}{'exact s':>10}{'grid s':>10}{'ratio':>9}{'|d mean|':>11}{'|d sd|':>10}"
          f"{'|d q.025|':>11}{'|d q.975|':>11}")
    for name, c in CASES.items():
        t0 = time.perf_counter()
        ex = _summary(alpha_posterior(*c))
        t1 = time.perf_counter()
        gr = _summary(alpha_posterior(*c, method="grid", grid=grid))
        t2 = time.perf_counter()
        diffs = [abs(a - b) for a, b in zip(ex, gr, strict=True)]
        print(f"{name:<18}{t1 - t0:>10.4f}{t2 - t1:>10.2f}{(t2 - t1) / (t1 - t0):>9.0f}"
              + "".join(f"{d:>11.2e}" for d in diffs))
    print()
    print("exact engine alone (mean of 5 runs: posterior, mean and sd; then the 95 % interval)")
    for name, c in SCALING.items():
        times, itimes = [], []
        for _ in range(5):
            t0 = time.perf_counter()
            post = alpha_posterior(*c)
            _ = (post.mean(), post.std())
            t1 = time.perf_counter()
            post.interval(0.95)
            t2 = time.perf_counter()
            times.append(t1 - t0)
            itimes.append(t2 - t1)
        print(f"{name:<28} posterior {1e3 * sum(times) / 5:8.1f} ms   interval "
              f"{1e3 * sum(itimes) / 5:8.1f} ms   components {post.n_components}")


if __name__ == "__main__":
    main()
