"""Speed of the exact engine against its goals, the package before this work, and ppi_py.

Run: ``python benchmarks/bench_speed.py [--rounds 7] [--quick] [--rows 3,4,5]``.

The baseline is the package as it was before the engine's speed work (commit ``BASELINE``, read
from git history into a temporary folder and imported as ``binaryeval_baseline``); it runs in
this process on the same data, so a loaded machine slows both alike and the ratio
``baseline / now`` holds.  Absolute times are printed too (wall clock, and the process's CPU
time, which waiting for a busy CPU does not inflate).  Rows:

1. one posterior with its 95 % interval from 300 paired and 10^3 / 10^4 / 10^5 metric-only
   rows; beside it ppi_py's PPI++ mean and 95 % interval on the same rows (skipped, with a
   note, when ``ppi_py`` is not installed: ``pip install -e .[bench]``).  Goal: 2 ms.
2. ``be.fit`` on a 10^3-row frame (300 paired rows).  Goal: 10 ms.
3. ``fit`` + ``to_frame()`` on 10^7 rows in 10^4 groups (1,000 rows a group, 10 % paired),
   run in full against the goal of 10 s, with fit split into the posteriors (``fit_counts`` of
   its counts) and reading the frame, and to_frame into the model's rates and the rest; then
   ``to_frame(n_jobs=-1)`` of a fresh fit on every core (``--jobs``), and ``fit`` +
   ``to_frame(rate_intervals=False)`` (the rates' means without their intervals).  The
   ratio: now and the baseline on the same 100 groups (the baseline took 309 s for fit alone
   on all of them, and did not finish to_frame in 290 s); and the model's rates alone on those
   groups, from one-dimensional tables (the default) against the box of the whole grid's log
   weights (the way before them, every check's fallback), CPU time a group and the largest
   gap between the two.
4. ``compare()`` of 1,000 groups (499,500 pairs), in full.  Goal: 10 s (or the matrix of
   ``P(alpha_1 > alpha_2)`` alone, ``prob_greater_matrix()``, also in full).  The ratio: now
   and the baseline on the same 40 groups (780 pairs); beside it the pair-by-pair
   :func:`~binaryeval.binary.compare.difference_interval` that the all-pairs intervals
   replaced (100 pairs, projected to all).
5. ``favi(...).summary()`` with 1,000 systems.  Goal: 2 s.  Baseline: 150 systems.  Beside it
   ``be.fit(...).summary()`` of 1,000 groups (same goal), and ``to_frame()`` of that fit.
6. ``P(alpha_1 > alpha_2)`` over every pair of :func:`binaryeval.validation.pair_sweep` (fresh
   posteriors each, so each pair pays for what it builds), and over consecutive pairs of 30
   random designs (10^4.5 to 10^8.5 metric ratings): the slowest pair and the median.  Not run
   for the baseline, which crashed after minutes on two of these fits.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import io
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import warnings
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd

import binaryeval as be
from binaryeval.binary.engine import alpha_posterior
from binaryeval.validation import pair_sweep, random_designs

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "941f54a"  # the package before the engine's speed work
GOALS = {"posterior": 0.002, "fit_1e3": 0.010, "scale": 10.0, "compare": 10.0, "favi": 2.0}


def baseline_package() -> ModuleType | None:
    """The package at ``BASELINE`` from git, imported as ``binaryeval_baseline`` (None without git)."""
    try:
        archive = subprocess.run(["git", "archive", BASELINE, "binaryeval"], cwd=ROOT,
                                 capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    folder = Path(tempfile.mkdtemp(prefix="bench_speed_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "binaryeval").rename(folder / "binaryeval_baseline")
    sys.path.insert(0, str(folder))
    return importlib.import_module("binaryeval_baseline")


def timed(fn, rounds: int = 1) -> tuple[float, float, object]:
    """Median wall and CPU time of ``rounds`` calls, and the last result."""
    wall, cpu, out = [], [], None
    for _ in range(rounds):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu), out


# -- data ---------------------------------------------------------------------------------------
def paired_design(n_metric: int, n_paired: int = 300, seed: int = 0):
    """Rows of one system: ``(Y, Yhat)`` on the paired rows, ``Yhat`` on the metric-only ones."""
    rng = np.random.default_rng(seed)
    alpha, rho, eta = 0.7, 0.85, 0.8
    adequate = rng.random(n_paired + n_metric) < alpha
    metric = np.where(adequate, rng.random(adequate.size) < rho, rng.random(adequate.size) > eta)
    y, yhat = adequate[:n_paired].astype(float), metric[:n_paired].astype(float)
    return y, yhat, metric[n_paired:].astype(float)


def counts_of(y, yhat, unlabeled) -> tuple[int, ...]:
    tp = int(np.sum((y == 1) & (yhat == 1)))
    fn = int(np.sum((y == 1) & (yhat == 0)))
    tn = int(np.sum((y == 0) & (yhat == 0)))
    fp = int(np.sum((y == 0) & (yhat == 1)))
    return (tp + fn, y.size, int(unlabeled.sum()), unlabeled.size, tp, fn, tn, fp)


def grouped_rows(n_groups: int, per_group: int, paired_share: float = 0.1, seed: int = 1):
    rng = np.random.default_rng(seed)
    n = n_groups * per_group
    g = np.repeat(np.arange(n_groups), per_group)
    alpha = rng.uniform(0.3, 0.85, n_groups)[g]
    adequate = rng.random(n) < alpha
    metric = np.where(adequate, rng.random(n) < 0.85, rng.random(n) < 0.2).astype(np.int8)
    human = np.where(rng.random(n) < paired_share, adequate.astype(float), np.nan)
    names = np.array([f"g{i:05d}" for i in range(n_groups)])
    return pd.DataFrame({"system": pd.Categorical(names[g]), "human": human, "metric": metric})


# -- rows ---------------------------------------------------------------------------------------
def posterior_rows(old, rounds: int) -> None:
    try:
        import ppi_py
    except ImportError:
        ppi_py = None
        print("(ppi_py not installed: its column is skipped; pip install -e .[bench])")
    print(f"\n1. one posterior with its 95% interval, 300 paired rows (goal "
          f"{1e3 * GOALS['posterior']:.0f} ms; median of {rounds})")
    print(f"{'metric-only rows':>17}{'now ms':>9}{'cpu ms':>9}{'/goal':>7}{'base ms':>9}"
          f"{'base/now':>9}{'ppi_py ms':>11}{'ppi cpu':>9}{'lower':>9}{'upper':>9}"
          f"{'ppi lower':>11}{'ppi upper':>11}")
    sizes = (10**3, 10**4, 10**5)
    ours = {}
    for n in sizes:
        y, yhat, unl = paired_design(n)
        c = counts_of(y, yhat, unl)
        wall, cpu, iv = timed(lambda c=c: alpha_posterior(*c).interval(0.95), rounds)
        base = float("nan")
        if old is not None:
            base = timed(lambda c=c: old.alpha_posterior(*c).interval(0.95), max(1, rounds // 2))[0]
        ours[n] = (wall, cpu, iv, base)
    # ppi_py after every size of ours: the BLAS threads of its linear algebra keep spinning for a
    # while after each call, and their CPU time would count in the next size's measurement
    for n in sizes:
        y, yhat, unl = paired_design(n)
        wall, cpu, iv, base = ours[n]
        peer = (float("nan"),) * 4
        if ppi_py is not None:
            t_ppi, c_ppi, ci = timed(lambda y=y, yhat=yhat, unl=unl: ppi_py.ppi_mean_ci(
                y, yhat, unl, alpha=0.05), rounds)
            peer = (t_ppi, float(np.ravel(ci[0])[0]), float(np.ravel(ci[1])[0]), c_ppi)
        print(f"{n:>17,}{1e3 * wall:>9.2f}{1e3 * cpu:>9.2f}{wall / GOALS['posterior']:>7.2f}"
              f"{1e3 * base:>9.1f}{base / wall:>9.1f}{1e3 * peer[0]:>11.2f}{1e3 * peer[3]:>9.2f}"
              f"{iv[0]:>9.4f}{iv[1]:>9.4f}{peer[1]:>11.4f}{peer[2]:>11.4f}")


def fit_row(old, rounds: int) -> None:
    y, yhat, unl = paired_design(700)
    frame = pd.DataFrame({"human": np.r_[y, np.full(unl.size, np.nan)],
                          "metric": np.r_[yhat, unl].astype(int)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wall, cpu, _ = timed(lambda: be.fit("human ~ metric", frame), rounds)
        base = (timed(lambda: old.fit("human ~ metric", frame), rounds)[0] if old is not None
                else float("nan"))
    print(f"\n2. be.fit on a 10^3-row frame: now {1e3 * wall:.2f} ms (cpu {1e3 * cpu:.2f}), goal "
          f"{1e3 * GOALS['fit_1e3']:.0f} ms, now/goal {wall / GOALS['fit_1e3']:.2f}; baseline "
          f"{1e3 * base:.1f} ms, baseline/now {base / wall:.1f}")


def scale_row(old, quick: bool, jobs: int = -1) -> None:
    n_groups = 1000 if quick else 10_000
    frame = grouped_rows(n_groups, 1000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w_fit, c_fit, res = timed(lambda: be.fit("human ~ metric | system", frame))
        # the posteriors alone (from the fit's counts): the rest of fit is reading the frame
        w_post, c_post, _ = timed(lambda: be.fit_counts(
            res.counts, paired_informs_alpha=res.paired_informs_alpha))
        # the model's rates first (to_frame reads them from the fit's cache), then the rest
        w_rates, c_rates, _ = timed(lambda: res.rates())
        w_rest, c_rest, _ = timed(lambda: res.to_frame())
        w_tf, c_tf = w_rates + w_rest, c_rates + c_rest
        # the same on joblib's workers (a fresh fit, so nothing comes from the cache)
        w_par = c_par = float("nan")
        if jobs != 1:
            again = be.fit("human ~ metric | system", frame)
            w_par, c_par, par = timed(lambda: again.to_frame(n_jobs=jobs))
            same = par.equals(res.to_frame())
        # the table with the rates' means alone (to_frame(rate_intervals=False)), a fresh fit
        # timed with it (nothing from the cache)
        w_lean, c_lean, lean = timed(lambda: be.fit("human ~ metric | system", frame).to_frame(
            rate_intervals=False))
        rest_cols = [c for c in lean.columns if c not in ("rho", "eta")]
        lean_same = (lean[rest_cols].equals(res.to_frame()[rest_cols])
                     and bool(np.allclose(lean[["rho", "eta"]], res.to_frame()[["rho", "eta"]],
                                          rtol=0, atol=1e-11)))
        # like for like in this process: the same 100 groups, now and the baseline
        small = grouped_rows(100, 1000)
        w_s, c_s, _ = timed(lambda: be.fit("human ~ metric | system", small).to_frame())
        w_b = c_b = float("nan")
        if old is not None:
            w_b, c_b, _ = timed(lambda: old.fit("human ~ metric | system", small).to_frame())
        # the model's rates alone on those 100 groups, in this process: from one-dimensional
        # tables (the default) and on the box of the whole grid's log weights (the way before
        # them, still every check's fallback); the largest gap between the two
        tasks = _rate_tasks(be.fit("human ~ metric | system", small))
        c_tab, got = _rates_cpu(tasks, tables=True)
        c_box, want = _rates_cpu(tasks, tables=False)
        gap = max(max(abs(g.mean - w.mean), abs(g.lower - w.lower), abs(g.upper - w.upper))
                  for gg, ww in zip(got, want, strict=True)
                  for g, w in zip(gg[:2], ww[:2], strict=True))
    total, total_cpu = w_fit + w_tf, c_fit + c_tf
    print(f"\n3. fit + to_frame(), {len(frame):,} rows in {n_groups:,} groups: fit {w_fit:.2f} s "
          f"(cpu {c_fit:.2f}; the posteriors from the counts {c_post:.2f}, reading and "
          f"grouping the frame {c_fit - c_post:.2f}), to_frame {w_tf:.2f} s (cpu {c_tf:.2f}: "
          f"the model's rho and eta {c_rates:.2f}, the rest {c_rest:.2f}); total {total:.2f} s "
          f"(cpu {total_cpu:.2f}), goal {GOALS['scale']:.0f} s, now/goal "
          f"{total / GOALS['scale']:.2f} (cpu/goal {total_cpu / GOALS['scale']:.2f})")
    if jobs != 1:
        from joblib import effective_n_jobs

        print(f"   to_frame(n_jobs={jobs}) on {effective_n_jobs(jobs)} workers: {w_par:.2f} s "
              f"(cpu of this process {c_par:.2f}); fit + to_frame {w_fit + w_par:.2f} s, "
              f"now/goal {(w_fit + w_par) / GOALS['scale']:.2f}; the same table as "
              f"sequential: {same}")
    print(f"   fit + to_frame(rate_intervals=False) (the rates' means, no intervals): "
          f"{w_lean:.2f} s (cpu {c_lean:.2f}), now/goal {w_lean / GOALS['scale']:.2f}; every "
          f"other column as to_frame()'s, rho and eta within 1e-11: {lean_same}")
    print(f"   the same 100 groups (10^5 rows), fit + to_frame: now {w_s:.2f} s (cpu {c_s:.2f}), "
          f"baseline {w_b:.2f} s (cpu {c_b:.2f}); baseline/now {w_b / w_s:.1f} (cpu "
          f"{c_b / c_s:.1f})")
    print(f"   the model's rho and eta of those 100 groups: from the tables {1e3 * c_tab:.2f} "
          f"cpu ms a group, on the box of the whole grid {1e3 * c_box:.2f}; box/tables "
          f"{c_box / c_tab:.2f}; largest gap in a mean or an interval end {gap:.1e}")


def _rate_tasks(res) -> list[dict]:
    """The model-rate problems of a fit's groups (keyword arguments of model_rates)."""
    tasks, _, _ = res._rate_tasks(res._group_counts(), res._pooled_paired())
    return tasks


def _rates_cpu(tasks: list[dict], tables: bool) -> tuple[float, list]:
    """CPU seconds a group of model_rates, with or without the tables' way, and the answers."""
    from binaryeval.binary import rates

    saved = rates._TABLES
    rates._TABLES = tables
    try:
        start = time.process_time()
        out = [rates.model_rates(**task) for task in tasks]
        return (time.process_time() - start) / max(len(tasks), 1), out
    finally:
        rates._TABLES = saved


def compare_row(old, quick: bool) -> None:
    from binaryeval.binary.compare import difference_interval

    n_groups = 300 if quick else 1000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = be.fit("human ~ metric | system", grouped_rows(n_groups, 1000, seed=2))
        wall, cpu, comp = timed(lambda: res.compare())
        w_m, c_m, _ = timed(lambda: comp.matrix())
        w_pm, c_pm, _ = timed(lambda: res.prob_greater_matrix())
        # like for like in this process: compare() of the same 40 groups (780 pairs), now and
        # the baseline; and the pair-by-pair interval the all-pairs intervals replaced
        small_data = grouped_rows(40, 1000, seed=2)
        small_fit = be.fit("human ~ metric | system", small_data)
        w40, c40, _ = timed(lambda: small_fit.compare(), 3)
        posts = list(res.posteriors.values())
        t, c = time.perf_counter(), time.process_time()
        for k in range(100):
            difference_interval(posts[k], posts[k + 1])
        per_pair = (time.perf_counter() - t) / 100
        per_pair_cpu = (time.process_time() - c) / 100
        w_b = c_b = float("nan")
        if old is not None:
            small = old.fit("human ~ metric | system", small_data)
            w_b, c_b, _ = timed(lambda: small.compare())
    pairs = n_groups * (n_groups - 1) // 2
    print(f"\n4. compare() of {n_groups:,} groups ({pairs:,} pairs): {wall:.2f} s (cpu {cpu:.2f}), "
          f"then matrix() {w_m:.2f} s (cpu {c_m:.2f}); goal {GOALS['compare']:.0f} s, now/goal "
          f"{wall / GOALS['compare']:.2f} (cpu/goal {cpu / GOALS['compare']:.2f})")
    print(f"   prob_greater_matrix() (the matrix without the intervals): {w_pm:.2f} s (cpu "
          f"{c_pm:.2f}), now/goal {w_pm / GOALS['compare']:.2f} (cpu/goal "
          f"{c_pm / GOALS['compare']:.2f})")
    print(f"   the same 40 groups (780 pairs), compare(): now {w40:.3f} s (cpu {c40:.3f}), "
          f"baseline {w_b:.2f} s (cpu {c_b:.2f}); baseline/now {w_b / w40:.0f} (cpu "
          f"{c_b / c40:.0f})")
    print(f"   pair-by-pair difference_interval: {1e3 * per_pair:.1f} ms a pair (cpu "
          f"{1e3 * per_pair_cpu:.1f}), {pairs * per_pair:,.0f} s projected for the {pairs:,} "
          f"pairs; compare() now / that: {wall / (pairs * per_pair):.4f}")


def favi_row(old, quick: bool) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_favi import simulate

    n_sys = 300 if quick else 1000
    data = simulate(200, n_sys)
    res = be.favi("human ~ metric | system", data, item="item")
    wall, cpu, _ = timed(lambda: res.summary())
    base = float("nan")
    if old is not None:
        small = simulate(200, 150)
        r_old = old.favi("human ~ metric | system", small, item="item")
        base = timed(lambda: r_old.summary())[0]
    print(f"\n5. favi(...).summary() with {n_sys:,} systems: {wall:.2f} s (cpu {cpu:.2f}), goal "
          f"{GOALS['favi']:.0f} s, now/goal {wall / GOALS['favi']:.2f}; baseline with 150 "
          f"systems {base:.2f} s")
    # the binary model's summary of as many groups (1,000 rows each, 10 % paired): it shows the
    # rates' means, not their intervals; beside it to_frame(), which computes those
    fit = be.fit("human ~ metric | system", grouped_rows(n_sys, 1000))
    wall, cpu, _ = timed(lambda: fit.summary())
    t_frame = timed(lambda: fit.to_frame())[0]
    print(f"   be.fit(...).summary() with {n_sys:,} groups: {wall:.2f} s (cpu {cpu:.2f}), goal "
          f"{GOALS['favi']:.0f} s, now/goal {wall / GOALS['favi']:.2f}; to_frame() of the same "
          f"fit, with the rates' intervals, {t_frame:.2f} s")


def pairs_row() -> None:
    sweep = list(pair_sweep().values())
    times, answers = [], {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(len(sweep)):
            for j in range(i + 1, len(sweep)):
                a, b = alpha_posterior(*sweep[i]), alpha_posterior(*sweep[j])
                t = time.perf_counter()
                answers[(i, j)] = a.prob_greater(b)
                times.append(time.perf_counter() - t)
        names = list(pair_sweep())
        crash = (names.index("smooth 2.3e5"), names.index("smooth 3.7e4"))
        t = time.perf_counter()
        alpha_posterior(*sweep[crash[0]]).prob_greater(alpha_posterior(*sweep[crash[1]]))
        t_crash = time.perf_counter() - t
        designs = random_designs(30, seed=5)
        scan, fails = [], 0
        for k in range(0, 30, 2):
            a, b = alpha_posterior(*designs[k]), alpha_posterior(*designs[k + 1])
            t = time.perf_counter()
            try:
                a.prob_greater(b)
            except Exception:  # noqa: BLE001 - counted
                fails += 1
            scan.append(time.perf_counter() - t)
    print(f"\n6. P(alpha_1 > alpha_2): {len(times)} pairs of the pair sweep, slowest "
          f"{max(times):.3f} s, median {statistics.median(times) * 1e3:.1f} ms; the two fits "
          f"that once crashed compare(): {1e3 * t_crash:.1f} ms; 15 pairs of random designs: "
          f"slowest {max(scan):.3f} s, median {statistics.median(scan) * 1e3:.1f} ms, "
          f"{fails} failures")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--quick", action="store_true",
                        help="smaller scale rows (1,000 groups, 300 in compare and favi)")
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument("--jobs", type=int, default=-1,
                        help="row 3 again with to_frame(n_jobs=JOBS) (1: skip; default -1, "
                             "all cores)")
    parser.add_argument("--rows", default="1,2,3,4,5,6",
                        help="which rows to run, e.g. --rows 3,4,5 (default: all)")
    args = parser.parse_args(argv)
    rows = {int(r) for r in args.rows.split(",") if r.strip()}
    old = None if args.skip_baseline else baseline_package()
    if old is None:
        print("(baseline package not loaded: ratios not shown)")
    if 1 in rows:
        posterior_rows(old, args.rounds)
    if 2 in rows:
        fit_row(old, args.rounds)
    if 3 in rows:
        scale_row(old, args.quick, args.jobs)
    if 4 in rows:
        compare_row(old, args.quick)
    if 5 in rows:
        favi_row(old, args.quick)
    if 6 in rows:
        pairs_row()


if __name__ == "__main__":
    main()
