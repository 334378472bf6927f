"""Speed of ``binaryeval.fit`` on 10^6 rows, in one process: now against the goal and the past.

The row of the speed table: 20 systems, each with 500 paired rows (human and metric rating)
and 49,500 metric-only rows; the system column holds text (pandas' Arrow-backed strings), the
human ratings floats with NaN, the metric ratings 0/1 integers.  Goal: <= 1 s per fit.

The previous implementation (the package as it was before the model frame was coded partition
by partition, read from git history into a temporary folder and imported under another name)
runs on the same frame, alternating with the current one; the best of ``--rounds`` runs of each
is printed, with the time inside the posterior engine (``alpha_posterior``) shown apart, so the
model frame's own share (``frame = total - engine``) and its speed-up are visible.  Both fits
must give the same table.

Usage: python benchmarks/bench_fit.py [--rounds 5] [--skip-previous]
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd

import binaryeval

# the module whose alpha_posterior the engine clock times
fit_module = importlib.import_module("binaryeval.binary.model")

ROOT = Path(__file__).resolve().parents[1]
GOAL = 1.0
N_SYSTEMS, N_PAIRED, N_METRIC = 20, 500, 49_500


def ratings(seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    per = N_PAIRED + N_METRIC
    n = N_SYSTEMS * per
    system = np.repeat([f"sys{i:02d}" for i in range(N_SYSTEMS)], per)
    alpha = np.repeat(np.linspace(0.45, 0.85, N_SYSTEMS), per)
    adequate = rng.random(n) < alpha
    metric = np.where(adequate, rng.random(n) < 0.85, rng.random(n) < 0.2).astype(np.int64)
    paired = np.tile(np.r_[np.ones(N_PAIRED, bool), np.zeros(N_METRIC, bool)], N_SYSTEMS)
    human = np.where(paired, adequate.astype(float), np.nan)
    frame = pd.DataFrame({"system": system, "human": human, "metric": metric})
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


# -- the previous implementation ----------------------------------------------------------------
def previous_package() -> ModuleType | None:
    """The package before the partition-wise model frame, from git (None without git)."""
    try:
        added = subprocess.run(
            ["git", "log", "--diff-filter=A", "--format=%H", "--", "binaryeval/binary/_frame.py"],
            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
        if not added:
            return None
        archive = subprocess.run(["git", "archive", f"{added[-1]}^", "binaryeval"], cwd=ROOT,
                                 capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    folder = Path(tempfile.mkdtemp(prefix="bench_fit_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "binaryeval").rename(folder / "binaryeval_previous")
    sys.path.insert(0, str(folder))
    return importlib.import_module("binaryeval_previous")


class EngineClock:
    """Sums the time spent in the posterior engine as a fit module calls it."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.seconds = 0.0

    def __enter__(self) -> EngineClock:
        real = self.module.alpha_posterior

        def timed(*args, **kwargs):
            t = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - t

        self._real = real
        self.module.alpha_posterior = timed
        return self

    def __exit__(self, *exc) -> None:
        self.module.alpha_posterior = self._real


def timed_fit(package: ModuleType, fit_mod: ModuleType, df: pd.DataFrame):
    with EngineClock(fit_mod) as clock:
        t = time.perf_counter()
        res = package.fit("human ~ metric | system", df, order="input")
        total = time.perf_counter() - t
    return total, clock.seconds, res


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-previous", action="store_true")
    args = parser.parse_args(argv)

    df = ratings()
    print(f"data: {len(df):,} rows, {N_SYSTEMS} systems x ({N_PAIRED} paired + {N_METRIC:,} "
          f"metric-only); dtypes {dict(df.dtypes.astype(str))}")
    previous = None if args.skip_previous else previous_package()
    prev_fit = None if previous is None else importlib.import_module(
        "binaryeval_previous.binary.fit")
    now, before = [], []
    timed_fit(binaryeval, fit_module, df)  # imports and first-call costs out of the way
    if previous is not None:
        timed_fit(previous, prev_fit, df)
    for i in range(args.rounds):
        # alternate which goes first, so that a change in the machine's load favours neither
        if previous is not None and i % 2 == 0:
            before.append(timed_fit(previous, prev_fit, df))
        now.append(timed_fit(binaryeval, fit_module, df))
        if previous is not None and i % 2 == 1:
            before.append(timed_fit(previous, prev_fit, df))
    total, engine, res = min(now, key=lambda r: r[0])
    print(f"\nbe.fit on 10^6 rows (best of {args.rounds}):")
    print(f"{'':<12}{'total s':>9}{'engine s':>10}{'frame s':>9}{'now/goal':>10}")
    print(f"{'now':<12}{total:>9.3f}{engine:>10.3f}{total - engine:>9.3f}{total / GOAL:>10.2f}")
    if before:
        p_total, p_engine, p_res = min(before, key=lambda r: r[0])
        print(f"{'previous':<12}{p_total:>9.3f}{p_engine:>10.3f}{p_total - p_engine:>9.3f}"
              f"{p_total / GOAL:>10.2f}")
        print(f"speed-up: total {p_total / total:.1f}x, model frame (coding and counting) "
              f"{(p_total - p_engine) / (total - engine):.1f}x")
        cols = ["n_human", "n_paired", "n_metric", "estimate", "lower", "upper"]
        same = res.counts.equals(p_res.counts) and np.allclose(
            res.to_frame()[cols].to_numpy(float), p_res.to_frame()[cols].to_numpy(float),
            rtol=1e-9, atol=1e-12)
        print(f"same counts and table as the previous implementation: {same}")
        if not same:
            raise SystemExit("the fits differ")
    print(f"goal (<= {GOAL:g} s): {'met' if total <= GOAL else 'NOT met'}")


if __name__ == "__main__":
    main()
