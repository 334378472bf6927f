"""Speed of binaryeval.correlation against naive loops run in the same process.

Run: ``PYTHONPATH=. python benchmarks/bench_correlation.py``.  Prints wall times (best of a few
repeats), the ratio naive / vectorised, agreement of the results and peak traced memory.

Goals: every pair of 30 metrics "instantly" (well under 0.1 s); 10,000 hybrid systems of 1,000
segments and 5 metrics in under 2 s with bounded memory.
"""

from __future__ import annotations

import math
import time
import tracemalloc

import numpy as np
import pandas as pd
from scipy import stats

from binaryeval.correlation import correlate, hybrid_supersample


def best_time(fun, repeat=3):
    best, out = math.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fun()
        best = min(best, time.perf_counter() - t0)
    return best, out


def naive_pairwise(data: pd.DataFrame, human: str, metrics: list[str]) -> pd.DataFrame:
    """One pair at a time: scipy correlations, Williams t and Zou interval in plain Python."""
    n = len(data)
    q = stats.norm.ppf(0.975)
    rows = []
    for m1 in metrics:
        for m2 in metrics:
            if m1 == m2:
                continue
            r12 = stats.pearsonr(data[human], data[m1]).statistic
            r13 = stats.pearsonr(data[human], data[m2]).statistic
            r23 = stats.pearsonr(data[m1], data[m2]).statistic
            k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
            t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(
                2 * k * (n - 1) / (n - 3) + (r12 + r13) ** 2 * (1 - r23) ** 3 / 4)
            p = stats.t.sf(t, n - 3)
            l1, u1 = (math.tanh(math.atanh(r12) + s * q / math.sqrt(n - 3)) for s in (-1, 1))
            l2, u2 = (math.tanh(math.atanh(r13) + s * q / math.sqrt(n - 3)) for s in (-1, 1))
            c = ((r23 - r12 * r13 / 2) * (1 - r12 ** 2 - r13 ** 2 - r23 ** 2) + r23 ** 3) / (
                (1 - r12 ** 2) * (1 - r13 ** 2))
            low = r12 - r13 - math.sqrt((r12 - l1) ** 2 + (u2 - r13) ** 2 - 2 * c * (r12 - l1) * (u2 - r13))
            high = r12 - r13 + math.sqrt((u1 - r12) ** 2 + (r13 - l2) ** 2 - 2 * c * (u1 - r12) * (r13 - l2))
            rows.append((m1, m2, t, p, low, high))
    return pd.DataFrame(rows, columns=["metric_1", "metric_2", "statistic", "p_value", "lower", "upper"])


def naive_hybrids(cube: np.ndarray, n_systems: int, rng: np.random.Generator) -> np.ndarray:
    """One hybrid at a time: pick a pair, flip a coin per segment, average."""
    s = cube.shape[0]
    out = np.empty((n_systems, cube.shape[2]))
    for h in range(n_systems):
        a, b = rng.choice(s, size=2, replace=False)
        take_a = rng.random(cube.shape[1]) < 0.5
        out[h] = np.where(take_a[:, None], cube[a], cube[b]).mean(axis=0)
    return out


def bench_pairwise(n_systems=20, n_metrics=30):
    rng = np.random.default_rng(1)
    human = rng.normal(size=n_systems)
    cols = {"human": human}
    for j in range(n_metrics):
        cols[f"m{j:02d}"] = human + rng.normal(scale=0.3 + 0.05 * j, size=n_systems)
    data = pd.DataFrame(cols)
    metrics = [c for c in cols if c != "human"]
    formula = "human ~ " + " + ".join(metrics)
    t_fast, fast = best_time(lambda: correlate(formula, data).pairwise())
    t_naive, naive = best_time(lambda: naive_pairwise(data, "human", metrics), repeat=1)
    diff = np.max(np.abs(fast[["statistic", "p_value", "lower", "upper"]].to_numpy()
                         - naive[["statistic", "p_value", "lower", "upper"]].to_numpy()))
    print(f"pairwise, {n_metrics} metrics ({len(fast)} ordered pairs), {n_systems} systems")
    print(f"  correlate(...).pairwise(): {t_fast * 1e3:8.1f} ms")
    print(f"  naive loop:                {t_naive * 1e3:8.1f} ms   ratio naive/ours = {t_naive / t_fast:6.1f}")
    print(f"  max abs difference: {diff:.2e}")
    t_sig, _ = best_time(lambda: correlate(formula, data).significance_matrix())
    print(f"  significance_matrix():     {t_sig * 1e3:8.1f} ms")
    t_k, fast_k = best_time(lambda: correlate(formula, data, method="kendall").correlation_matrix)

    def scipy_kendall():
        vals = data[["human", *metrics]].to_numpy()
        k = vals.shape[1]
        r = np.eye(k)
        for i in range(k):
            for j in range(i + 1, k):
                r[i, j] = r[j, i] = stats.kendalltau(vals[:, i], vals[:, j]).statistic
        return r

    t_kn, slow_k = best_time(scipy_kendall, repeat=1)
    print(f"  Kendall matrix (31 x 31):  {t_k * 1e3:8.1f} ms; scipy kendalltau loop {t_kn * 1e3:8.1f} ms"
          f"   ratio = {t_kn / t_k:6.1f}; max abs diff {np.max(np.abs(fast_k.to_numpy() - slow_k)):.1e}")


def bench_hybrids(n_real=14, n_items=1000, n_metrics=5, n_hybrids=10000):
    rng = np.random.default_rng(2)
    quality = rng.normal(size=n_real)
    rows = {"sys": np.repeat([f"s{i:02d}" for i in range(n_real)], n_items),
            "seg": np.tile(np.arange(n_items), n_real)}
    base = np.repeat(quality, n_items) + rng.normal(size=n_real * n_items)
    rows["human"] = base
    metrics = [f"metric{j}" for j in range(n_metrics)]
    for j, m in enumerate(metrics):
        rows[m] = base + rng.normal(scale=0.5 + 0.3 * j, size=n_real * n_items)
    data = pd.DataFrame(rows)
    print(f"\nhybrid super-sampling: {n_hybrids} hybrids of {n_real} systems x {n_items} segments, "
          f"{n_metrics} metrics")

    def ours():
        return hybrid_supersample(data, system="sys", item="seg", human="human", metrics=metrics,
                                  n_systems=n_hybrids, seed=3)

    t_fast, hyb = best_time(ours)
    tracemalloc.start()
    ours()
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    cube = np.stack([data.pivot(index="sys", columns="seg", values=c).to_numpy()
                     for c in ["human", *metrics]], axis=-1)
    t_naive, naive = best_time(lambda: naive_hybrids(cube, n_hybrids, np.random.default_rng(3)), repeat=1)
    print(f"  hybrid_supersample:        {t_fast:8.3f} s   (peak traced memory {peak:.0f} MB; "
          f"input cube {cube.nbytes / 1e6:.1f} MB)")
    print(f"  naive per-hybrid loop:     {t_naive:8.3f} s   ratio naive/ours = {t_naive / t_fast:6.1f}")
    # the two use different random streams: compare distributions, not values
    print(f"  mean human score: ours {hyb['human'].mean():.4f}, naive {naive[:, 0].mean():.4f}, "
          f"real systems {cube[:, :, 0].mean():.4f}")
    print(f"  sd of hybrid human score: ours {hyb['human'].std():.4f}, naive {naive[:, 0].std(ddof=1):.4f}")
    t_corr, res = best_time(lambda: correlate("human ~ " + " + ".join(metrics), hyb))
    print(f"  correlate on the hybrids:  {t_corr:8.3f} s   (n = {res.n})")
    big = 5 * n_hybrids
    t_big, _ = best_time(lambda: hybrid_supersample(data, system="sys", item="seg", human="human",
                                                    metrics=metrics, n_systems=big, seed=3), repeat=1)
    print(f"  {big} hybrids:            {t_big:8.3f} s   (x{t_big / t_fast:.1f} time for x5 hybrids)")


def main() -> None:
    bench_pairwise()
    bench_hybrids()


if __name__ == "__main__":
    main()
