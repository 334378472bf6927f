"""``binaryeval.fit`` on 10^8 rows in Parquet, on a Dask ``LocalCluster`` with 2 workers.

The benchmark writes the data itself, file by file (one Parquet file per partition, into a
temporary folder removed at the end), so the frame never exists in memory anywhere: not when it
is written, not when it is fitted.  Columns, small types: ``system`` (dictionary-coded text, 20
systems), ``human`` and ``metric`` (int8 with nulls: 1 % of the rows have a human rating, 99.9 %
a metric rating; a few have neither), ``score`` (float32, the metric's score behind the rating).
A few rows have no system.  While each file is written its counts per system are taken with
plain numpy (``np.bincount``), independently of binaryeval.

Printed:

1. the 10^8-row fit on the cluster: wall time (the counting pass and the posteriors), the
   workers' peak memory (resident set size, sampled every 20 ms from outside the workers with
   psutil, and the kernel's high-water mark ``ru_maxrss`` read inside them), against the size the
   frame would have in pandas;
2. exact equality of the counts and of the row account with the generator's;
3. on a 10^7-row slice (the first tenth of the files): the Dask fit against a pandas fit of the
   same rows read into memory: counts equal exactly, every result column equal, and the same
   for the scalar metric with ``threshold="balanced"`` (two passes: the paired rows, then the
   counts).

Usage: python benchmarks/bench_dask.py [--rows 1e8] [--files 100] [--workers 2]
                                       [--slice-files 10] [--dir DIR] [--keep]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

import binaryeval as be

N_SYSTEMS = 20
SYSTEMS = [f"sys{i:02d}" for i in range(N_SYSTEMS)]
ALPHA = np.linspace(0.45, 0.85, N_SYSTEMS)   # rate of adequate outputs per system
RHO, ETA = 0.85, 0.80                        # the judge's rates at score >= 0.5
COLUMNS = ["human_pos", "human_total", "metric_pos", "metric_total", "tp", "fn", "tn", "fp"]


# -- the data ---------------------------------------------------------------------------------
def make_file(path: Path, rows: int, seed: int) -> dict:
    """Write one Parquet file of ``rows`` rows; return its counts, taken with numpy alone."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng([20261123, seed])
    system = rng.integers(0, N_SYSTEMS, rows).astype(np.int8)
    adequate = rng.random(rows) < ALPHA[system]
    # scores: normal around 0.65 (adequate) or 0.35, so that score >= 0.5 has rates near RHO, ETA
    score = np.where(adequate, rng.normal(0.65, 0.145, rows), rng.normal(0.35, 0.17, rows))
    metric = (score >= 0.5).astype(np.int8)
    u = rng.random(rows)
    has_human = u < 0.01
    has_metric = ~((u > 0.01) & (u < 0.0115))      # 0.15 %: no metric rating
    has_system = rng.random(rows) >= 1e-4
    human = adequate.astype(np.int8)

    # the counts, by plain numpy: cell 0..7 as in COLUMNS' order of the eight counts, 8 = neither
    hp, mp = human == 1, metric == 1
    cell = np.full(rows, 8, dtype=np.int64)
    only_h, only_m, both = has_human & ~has_metric, ~has_human & has_metric, has_human & has_metric
    cell[only_h & hp], cell[only_h & ~hp] = 0, 1
    cell[only_m & mp], cell[only_m & ~mp] = 2, 3
    cell[both & hp & mp], cell[both & hp & ~mp], cell[both & ~hp & ~mp], cell[both & ~hp & mp] = (
        4, 5, 6, 7)
    table = np.bincount(system[has_system].astype(np.int64) * 9 + cell[has_system],
                        minlength=N_SYSTEMS * 9).reshape(N_SYSTEMS, 9)

    batch = pa.table({
        "system": pa.DictionaryArray.from_arrays(
            pa.array(system, pa.int8(), mask=~has_system), pa.array(SYSTEMS)),
        "human": pa.array(human, pa.int8(), mask=~has_human),
        "metric": pa.array(metric, pa.int8(), mask=~has_metric),
        "score": pa.array(score.astype(np.float32), mask=~has_metric),
    })
    pq.write_table(batch, path, compression="zstd")
    return {"cells": table, "rows": rows, "missing_group": int((~has_system).sum())}


def write_data(folder: Path, rows: int, files: int) -> tuple[list[Path], list[dict]]:
    per_file = rows // files
    paths, counts = [], []
    for i in range(files):
        path = folder / f"part-{i:05d}.parquet"
        counts.append(make_file(path, per_file, i))
        paths.append(path)
    return paths, counts


def expected_counts(parts: list[dict]) -> tuple[pd.DataFrame, int, dict]:
    table = sum(p["cells"] for p in parts)
    frame = pd.DataFrame({
        "human_pos": table[:, 0], "human_total": table[:, 0] + table[:, 1],
        "metric_pos": table[:, 2], "metric_total": table[:, 2] + table[:, 3],
        "tp": table[:, 4], "fn": table[:, 5], "tn": table[:, 6], "fp": table[:, 7]},
        index=pd.Index(SYSTEMS, name="system"))
    excluded = {"missing group": sum(p["missing_group"] for p in parts),
                "no rating (human and metric missing)": int(table[:, 8].sum())}
    return frame, sum(p["rows"] for p in parts), excluded


# -- memory of the workers ------------------------------------------------------------------------
class MemorySampler:
    """The resident set size of some processes, sampled from a thread; keeps each one's peak."""

    def __init__(self, pids: dict[str, int], every: float = 0.02) -> None:
        import psutil

        self.procs = {name: psutil.Process(pid) for name, pid in pids.items()}
        self.peak = dict.fromkeys(pids, 0)
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for name, proc in self.procs.items():
                try:
                    self.peak[name] = max(self.peak[name], proc.memory_info().rss)
                except Exception:  # a process that just ended: keep its last peak
                    pass
            self._stop.wait(self.every)

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def _max_rss() -> int:
    """This process's peak resident set size in bytes (Linux reports KiB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak * (1 if sys.platform == "darwin" else 1024)


def _rss() -> int:
    import psutil

    return psutil.Process().memory_info().rss


def mib(n: float) -> str:
    return f"{n / 2**20:,.0f} MiB"


# -- the comparisons ------------------------------------------------------------------------------
def same_fit(a, b) -> list[str]:
    """The fields in which two fits differ (empty: identical)."""
    out = []
    if not a.counts.equals(b.counts):
        out.append("counts")
    if not a.to_frame().equals(b.to_frame()):
        out.append("to_frame()")
    if list(a.excluded.items()) != list(b.excluded.items()) or a.n_rows != b.n_rows:
        out.append("row account")
    if a.threshold != b.threshold:
        out.append("threshold")
    return out


def fit_on_cluster(client, paths: list[Path], parts: list[dict], rows: int, workers: int):
    """Rows 1 and 2: the whole data on the cluster, its memory, its counts."""
    import dask.dataframe as dd

    expected, n_rows, excluded = expected_counts(parts)
    pids = client.run(os.getpid)
    idle = client.run(_rss)
    ddf = dd.read_parquet([str(p) for p in paths])
    with MemorySampler(pids) as sampler:
        t = time.perf_counter()
        res = be.fit("human ~ metric | system", ddf, order="input")
        wall = time.perf_counter() - t
    high_water = client.run(_max_rss)
    t = time.perf_counter()
    be.fit_counts(res.counts, order="input")
    t_post = time.perf_counter() - t
    print(f"\n1. be.fit('human ~ metric | system', dask_frame) on {workers} workers: "
          f"{wall:.1f} s wall (posteriors of the {N_SYSTEMS} systems: {t_post:.1f} s of "
          f"it; counting {wall - t_post:.1f} s, {rows / (wall - t_post) / 1e6:.0f} M rows/s)")
    print("   worker   idle RSS   peak RSS (sampled)   ru_maxrss")
    for name in pids:
        print(f"   {str(name)[-22:]:<24}{mib(idle[name]):>10}{mib(sampler.peak[name]):>16}"
              f"{mib(high_water[name]):>15}")
    grew = max(sampler.peak[name] - idle[name] for name in pids)
    print(f"   the frame in pandas: {mib(rows * 25)}; a worker's memory grew by at most "
          f"{mib(grew)} ({grew / (rows * 25):.1%} of the frame)")

    print(f"\n2. counts of the {rows:,} rows against the generator's (numpy bincount):")
    equal = res.counts.loc[SYSTEMS].equals(expected) and res.n_rows == n_rows and \
        res.excluded == {k: v for k, v in excluded.items() if v}
    print(f"   counts, n_rows, excluded: {'identical' if equal else 'DIFFERENT'} "
          f"(n_rows {res.n_rows:,}, excluded {res.excluded})")
    if not equal:
        raise SystemExit("counts differ from the generator's")
    return res


def _fit_or_error(formula: str, data, kw: dict):
    try:
        return be.fit(formula, data, order="input", **kw)
    except Exception as exc:  # reported, and the counts compared without the posterior
        return exc


def counts_of(formula: str, data, kw: dict) -> pd.DataFrame:
    """The counts per group of ``fit``'s model frame (no posterior)."""
    from binaryeval.binary import _frame
    from binaryeval.formula import parse_formula

    parsed = parse_formula(formula)
    summary, _ = _frame.summarise_data(parsed, data, {}, threshold=kw.get("threshold"),
                                       lower_is_better=False)
    return _frame.model_counts(summary, "system")[0]


def compare_slice(paths: list[Path], parts: list[dict], n_files: int) -> None:
    """Row 3: the first files with Dask and with pandas, binary and thresholded metric."""
    import dask.dataframe as dd

    n = sum(p["rows"] for p in parts[:n_files])
    print(f"\n3. a {n_files}-file slice ({n:,} rows): Dask fit against pandas fit of the same "
          "rows")
    some = [str(p) for p in paths[:n_files]]
    expected, _, _ = expected_counts(parts[:n_files])
    for formula, kw in (("human ~ metric | system", {}),
                        ("human ~ score | system", {"threshold": "balanced"})):
        t = time.perf_counter()
        on_dask = _fit_or_error(formula, dd.read_parquet(some), kw)
        t_dask = time.perf_counter() - t
        t = time.perf_counter()
        frame = pd.read_parquet(some)
        in_pandas = _fit_or_error(formula, frame, kw)
        t_pandas = time.perf_counter() - t
        if isinstance(on_dask, Exception) or isinstance(in_pandas, Exception):
            # the posterior failed after counting: compare the model frames' counts instead
            same_error = repr(on_dask) == repr(in_pandas)
            a, b = counts_of(formula, dd.read_parquet(some), kw), counts_of(formula, frame, kw)
            diff = [] if same_error and a.equals(b) else ["error or counts"]
            print(f"   {formula} {kw or ''}: both fits raise {in_pandas!r} (the posterior "
                  f"engine); the counts of the model frames: "
                  f"{'identical' if a.equals(b) else 'DIFFERENT'}")
        else:
            diff = same_fit(on_dask, in_pandas)
            generator = "" if kw else (
                f"; counts = generator's: {on_dask.counts.loc[SYSTEMS].equals(expected)}")
            print(f"   {formula} {kw or ''}: Dask {t_dask:.1f} s, pandas (read + fit) "
                  f"{t_pandas:.1f} s; {'identical' if not diff else 'DIFFERENT: ' + str(diff)}"
                  f" (counts, every column of to_frame(), row account, threshold){generator}")
        del frame
        if diff:
            raise SystemExit("Dask and pandas fits differ")
    print(f"   driver process peak RSS: {mib(_max_rss())} (the pandas slice was read here)")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e8)
    parser.add_argument("--files", type=int, default=100, help="Parquet files (partitions)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--slice-files", type=int, default=10,
                        help="files of the slice fitted with pandas too (10: 10^7 rows)")
    parser.add_argument("--dir", type=Path, default=None, help="where to write (default: a "
                        "temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the Parquet files")
    args = parser.parse_args(argv)

    import dask
    import distributed

    rows = int(args.rows)
    folder = Path(tempfile.mkdtemp(prefix="bench_dask_", dir=args.dir))
    free = shutil.disk_usage(folder).free
    print(f"data: {rows:,} rows in {args.files} Parquet files under {folder} "
          f"({free / 2**30:,.0f} GiB free there)")
    try:
        t = time.perf_counter()
        paths, parts = write_data(folder, rows, args.files)
        size = sum(p.stat().st_size for p in paths)
        print(f"written in {time.perf_counter() - t:.1f} s: {size / 2**20:,.0f} MiB on disk; in "
              f"pandas (float64 ratings and score, categorical system) the frame would take "
              f"{mib(rows * (8 + 8 + 8 + 1))}")
        # no spilling to disk: the memory measured is what the work needs
        with dask.config.set({"distributed.worker.memory.target": False,
                              "distributed.worker.memory.spill": False}), \
                distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                         processes=True, memory_limit="3GiB",
                                         dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            res = fit_on_cluster(client, paths, parts, rows, args.workers)
            compare_slice(paths, parts, args.slice_files)
        print("\n" + res.to_frame()[["n_human", "n_paired", "n_metric", "estimate", "lower",
                                     "upper"]].head(5).round(4).to_string())
    finally:
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
