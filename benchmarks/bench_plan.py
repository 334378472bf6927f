"""Speed of the planning module: exact engine against the paper's midpoint grid, in one process.

Prints wall times and ratios from a single run:

1. the paper's Table 12 (8 x 7 cells, rho = eta = 0.9 estimated) with the default (exact) engine;
2. a few of its cells with ``method="grid"`` at the paper's resolution (2000 x 1000 x 1000), and the
   time ratio grid / exact for the same cells;
3. four 8 x 7 theory tables (rho = eta in 0.7, 0.8, 0.9, 0.95; 224 cells), target < 5 s;
4. the thesis-style 7 x 7 table with ``simulate="sample", reps=50``, target < 2 minutes.

Row n_human = 0 of a table with estimated rates has no paired ratings (rho, eta ~ Beta(1, 1)); there
the exact engine's mixture is long for large n_metric (about 11 s at 10000, minutes beyond), so by
default those cells with n_metric > 10000 are left out and reported as skipped; ``--full`` runs them.

Usage: python benchmarks/bench_plan.py [--full] [--reps 50] [--n-jobs 2] [--skip-sample]
"""

from __future__ import annotations

import argparse
import time

from binaryeval import plan

N_HUMAN = list(plan.PAPER_N_HUMAN)
N_METRIC = list(plan.PAPER_N_METRIC)


def _table(rho, full, **kw):
    """A Table-12-shaped table; returns (seconds, cells, frame)."""
    t = time.perf_counter()
    rows = [h for h in N_HUMAN if h > 0]
    frame = plan.detectable_difference_table(0.6, rho, n_human=rows, n_metric=N_METRIC, **kw).to_frame()
    metric0 = N_METRIC if full else [m for m in N_METRIC if m <= 10000]
    plan.detectable_difference_table(0.6, rho, n_human=[0], n_metric=metric0, **kw)
    return time.perf_counter() - t, len(rows) * len(N_METRIC) + len(metric0), frame


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true", help="include the slow row-0 cells")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--skip-sample", action="store_true")
    args = ap.parse_args()
    skipped = 0 if args.full else sum(m > 10000 for m in N_METRIC)

    plan._moments.cache_clear()
    sec, cells, _ = _table(0.9, args.full)
    print(f"[1] Table 12 (exact engine): {cells} cells in {sec:.2f} s "
          f"({sec / cells * 1000:.0f} ms per cell; {skipped} row-0 cells skipped)")

    print("[2] cells with the paper's grid (2000 x 1000 x 1000) against the exact engine")
    for h, m in [(100, 1000), (1000, 10000), (10000, 100000)]:
        plan._moments.cache_clear()
        t = time.perf_counter()
        e_exact = plan.detectable_difference(0.6, 0.9, n_human=h, n_metric=m)
        t_exact = time.perf_counter() - t
        t = time.perf_counter()
        e_grid = plan.detectable_difference(0.6, 0.9, n_human=h, n_metric=m, method="grid")
        t_grid = time.perf_counter() - t
        print(f"    n_human={h:>5} n_metric={m:>6}: exact {t_exact:7.3f} s, grid {t_grid:7.2f} s, "
              f"ratio grid/exact {t_grid / t_exact:7.1f}; eps exact {e_exact:.5f} grid {e_grid:.5f}")

    plan._moments.cache_clear()
    total, n = 0.0, 0
    for rho in (0.7, 0.8, 0.9, 0.95):
        sec, cells, _ = _table(rho, args.full)
        total += sec
        n += cells
        print(f"    rho = eta = {rho}: {cells} cells in {sec:.2f} s")
    print(f"[3] four theory tables: {n} cells in {total:.2f} s (target < 5 s: "
          f"ratio to target {total / 5:.2f})")

    if not args.skip_sample:
        hs = [100, 250, 500, 1000, 2500, 5000, 10000]
        ms = [0, 1000, 2500, 5000, 10000, 50000, 100000]
        t = time.perf_counter()
        plan.detectable_difference_table(0.6, 0.9, n_human=hs, n_metric=ms, simulate="sample",
                                         reps=args.reps, seed=1, n_jobs=args.n_jobs, progress=False)
        sec = time.perf_counter() - t
        print(f"[4] 7 x 7 table, simulate='sample', reps={args.reps}, n_jobs={args.n_jobs}: "
              f"{sec:.1f} s (target < 120 s: ratio to target {sec / 120:.2f})")


if __name__ == "__main__":
    main()
