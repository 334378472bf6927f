"""Speed of binaryeval.favi(): all pairs of 20 systems over 10^5 items.

Run: ``PYTHONPATH=. python benchmarks/bench_favi.py [--items N] [--systems K]``.

Prints the time of :func:`binaryeval.favi` (counting, Favi, sign tests) and of a naive
per-pair pandas loop (merge the two systems on the item, take signs, ``pd.crosstab``) run in the
same process on the same data, their ratio, and checks that both give the same counts.
Goal: under one second for 20 systems x 10^5 items.

Then the accuracy of the three Favi intervals at small E (``--coverage-reps``, 0 to skip): for 24
random shapes of the off-diagonal cell probabilities (8 each from Dirichlet(0.3), Dirichlet(1) and
Dirichlet(3)) and pairs of 100 items with about E disagreements, the share of 95% intervals that
cover the true Favi, averaged over the shapes and for the worst shape, and the mean width.  These
are the numbers quoted in ``binaryeval/favoritism/intervals.py``.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
import pandas as pd

from binaryeval import favi

LABELS = ["+", "=", "-"]


def simulate(n_items: int, n_systems: int, seed: int = 0) -> pd.DataFrame:
    """Long data: integer human scores 1..5 (many ties) and a noisy continuous metric."""
    rng = np.random.default_rng(seed)
    quality = np.linspace(0.0, 1.0, n_systems)
    item_difficulty = rng.normal(0, 1, n_items)
    latent = quality[None, :] + item_difficulty[:, None] + rng.normal(0, 1, (n_items, n_systems))
    human = np.clip(np.round(3 + latent), 1, 5)
    metric = latent + rng.normal(0, 1, (n_items, n_systems))
    systems = np.array([f"sys{k:02d}" for k in range(n_systems)])
    return pd.DataFrame({"item": np.repeat(np.arange(n_items), n_systems),
                         "system": np.tile(systems, n_items),
                         "human": human.ravel(), "metric": metric.ravel()})


def naive(df: pd.DataFrame) -> dict[tuple[str, str], np.ndarray]:
    """The straightforward per-pair loop with pandas."""
    out = {}
    by_system = {s: g[["item", "human", "metric"]] for s, g in df.groupby("system")}
    for a, b in itertools.combinations(sorted(by_system), 2):
        j = by_system[a].merge(by_system[b], on="item", suffixes=("_1", "_2"))
        h = np.sign(j.human_1 - j.human_2).map({1.0: "+", 0.0: "=", -1.0: "-"})
        m = np.sign(j.metric_1 - j.metric_2).map({1.0: "+", 0.0: "=", -1.0: "-"})
        ct = pd.crosstab(pd.Categorical(h, LABELS), pd.Categorical(m, LABELS), dropna=False)
        out[(a, b)] = ct.to_numpy()
    return out


def coverage(e_target: float, reps: int, n_resamples: int, n_items: int = 100, seed: int = 11) -> None:
    """Coverage of the Dirichlet, bootstrap and score intervals at about ``e_target`` disagreements."""
    from binaryeval.favoritism.intervals import _monte_carlo, score_interval, weight_counts
    from binaryeval.favoritism.score import FAVI_WEIGHTS, OFFDIAG

    rng = np.random.default_rng(seed)
    shapes = [rng.dirichlet(np.full(6, a)) for a in (0.3, 1.0, 3.0) for _ in range(8)]
    cover: dict[str, list[float]] = {"dirichlet": [], "bootstrap": [], "score": []}
    width: dict[str, list[float]] = {k: [] for k in cover}
    for shape in shapes:
        p = np.zeros((3, 3))
        p[np.diag_indices(3)] = np.array([0.35, 0.30, 0.35]) * (1 - e_target / n_items)
        p[OFFDIAG] = shape * e_target / n_items
        truth = float((FAVI_WEIGHTS[OFFDIAG] * shape).sum())
        counts = rng.multinomial(n_items, p.ravel(), size=reps).reshape(reps, 3, 3)
        found = {"score": score_interval(weight_counts(counts), 0.95)}
        for method, prior in (("dirichlet", 0.5), ("bootstrap", 0.0)):
            lo, hi, _ = _monte_carlo(counts, 0.95, method, n_resamples, prior, rng)
            found[method] = (lo, hi)
        for method, (lo, hi) in found.items():
            cover[method].append(float(np.mean((lo <= truth) & (truth <= hi))))
            width[method].append(float(np.nanmean(hi - lo)))
    for method in cover:
        print(f"  E ~ {e_target:4.1f}  {method:9s}  coverage mean {np.mean(cover[method]):.3f}  "
              f"worst shape {np.min(cover[method]):.3f}  mean width {np.mean(width[method]):.2f}")


def best_of(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--coverage-reps", type=int, default=1000,
                        help="replicates per shape of the interval coverage study (0: skip)")
    args = parser.parse_args()

    df = simulate(args.items, args.systems)
    n_pairs = args.systems * (args.systems - 1) // 2
    print(f"data: {args.systems} systems x {args.items} items = {len(df)} rows, {n_pairs} pairs")

    t_fast, res = best_of(lambda: favi("human ~ metric | system", df, item="item"), args.repeat)
    t_frame, frame = best_of(lambda: res.to_frame(), args.repeat)
    t_ci, _ = best_of(lambda: res.interval(n_resamples=2000, seed=1), 1)
    t_naive, ref = best_of(lambda: naive(df), 1)

    for k, (a, b) in enumerate(zip(frame.group_1, frame.group_2, strict=True)):
        if not np.array_equal(res.counts[k], ref[(a, b)]):
            raise SystemExit(f"mismatch for pair ({a}, {b})")
    print(f"favi(): all pairs counted, scored, sign-tested  {t_fast:8.3f} s  (best of {args.repeat})")
    print(f"to_frame()                                      {t_frame:8.3f} s")
    print(f"interval(): Dirichlet, 2000 draws per pair      {t_ci:8.3f} s")
    print(f"naive per-pair pandas loop                      {t_naive:8.3f} s")
    print(f"speed-up favi() vs naive loop: {t_naive / t_fast:.1f}x; counts identical for all {n_pairs} pairs")
    print(f"goal (< 1 s for 20 systems x 1e5 items): {'met' if t_fast < 1.0 else 'NOT met'}")

    # the path with missing ratings (5% of rows dropped: unpaired items are skipped and counted)
    holes = df.sample(frac=0.95, random_state=1)
    t_holes, res_h = best_of(lambda: favi("human ~ metric | system", holes, item="item",
                                          unpaired="count"), args.repeat)
    print(f"favi() with 5% of rows missing                  {t_holes:8.3f} s  "
          f"({int(res_h.n_skipped.sum())} item-pair combinations skipped)")

    if args.coverage_reps:
        print(f"coverage of 95% Favi intervals, 24 shapes x {args.coverage_reps} pairs of 100 items "
              "(a pair with E = 0 has no bootstrap interval and counts as not covered)")
        for e_target in (4.5, 12.0, 20.0):
            coverage(e_target, args.coverage_reps, n_resamples=1000)


if __name__ == "__main__":
    main()
