"""Speed of binaryeval.plan, in one process: now against the goal and against the previous code.

Rows (printed as ``now / goal`` ratios; below 1 meets the goal):

1. the paper's four theory tables (8 x 7 cells each, rho = eta in 0.7, 0.8, 0.9, 0.95 estimated,
   224 cells), cold cache, sequential; goal <= 2 s;
2. the thesis-style 7 x 7 table with ``simulate="sample"`` and 50 simulated experiments per cell,
   ``n_jobs=2``; goal <= 10 s.

Each row is also run with the previous implementation (the single-module ``binaryeval/plan.py``,
read from git history and imported under another name), alternating with the current one, and
the speed-up ``previous / now`` is printed.  The time spent inside the posterior engine
(``binaryeval.binary.engine.alpha_posterior``) is measured separately, so the planning code's own
share is visible: ``plan = total - engine``.

Then the planning code alone (the engine replaced by a stub that returns at once), and, as before,
a few cells with the paper's midpoint grid against the exact engine.

Usage: python benchmarks/bench_plan.py [--n-resamples 50] [--n-jobs 2] [--rounds 3]
                                       [--skip-sample] [--skip-grid] [--skip-baseline]
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import binaryeval.binary.engine as engine
from binaryeval import plan

ROOT = Path(__file__).resolve().parents[1]
THEORY_RHO = (0.7, 0.8, 0.9, 0.95)
SAMPLE_SIZES = dict(n_human=[100, 250, 500, 1000, 2500, 5000, 10000],
                    n_metric=[0, 1000, 2500, 5000, 10000, 50000, 100000])
GOALS = {"theory": 2.0, "sample": 10.0}


# -- the engine's share -----------------------------------------------------------------------------
class EngineClock:
    """Wraps ``alpha_posterior`` (looked up at call time by both implementations) and sums its time."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._real = engine.alpha_posterior

    def __enter__(self) -> EngineClock:
        real = self._real

        def timed(*args, **kwargs):
            t = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - t

        engine.alpha_posterior = timed
        return self

    def __exit__(self, *exc) -> None:
        engine.alpha_posterior = self._real


# -- the previous implementation ----------------------------------------------------------------------
def previous_plan() -> ModuleType | None:
    """The single-module plan.py before the package, from git history (None without git)."""
    try:
        deleted = subprocess.run(
            ["git", "log", "--diff-filter=D", "-1", "--format=%H", "--", "binaryeval/plan.py"],
            cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
        if not deleted:
            return None
        source = subprocess.run(["git", "show", f"{deleted}^:binaryeval/plan.py"], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    # a module of its own, importable by joblib's workers too (they inherit sys.path)
    folder = Path(tempfile.mkdtemp(prefix="bench_plan_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    source = re.sub(r"from \.(\w)", r"from binaryeval.\1", source)
    # the posterior's moments became methods (scipy's frozen-distribution style) since then
    source = re.sub(r"\b(post\.(?:mean|var|std))\b(?!\()", r"\1()", source)
    (folder / "plan_previous.py").write_text(source)
    sys.path.insert(0, str(folder))
    return importlib.import_module("plan_previous")


def theory_tables(impl: ModuleType, old: bool, n_jobs: int | None = None) -> None:
    for rho in THEORY_RHO:
        kw = {"rates": "estimated"} if old else {}
        impl.detectable_difference_table(0.6, rho, n_human=list(plan.PAPER_N_HUMAN),
                                         n_metric=list(plan.PAPER_N_METRIC), n_jobs=n_jobs, **kw)


def sample_table(impl: ModuleType, old: bool, n_resamples: int, n_jobs: int) -> None:
    kw = {"reps": n_resamples, "rates": "estimated"} if old else {"n_resamples": n_resamples}
    impl.detectable_difference_table(0.6, 0.9, **SAMPLE_SIZES, simulate="sample", seed=1,
                                     n_jobs=n_jobs, progress=False, **kw)


def clear(impl: ModuleType, old: bool) -> None:
    if old:
        impl._moments.cache_clear()
    else:
        plan.cells.cache_clear()


def timed(run, impl: ModuleType, old: bool) -> tuple[float, float, float]:
    """(wall seconds, engine seconds, CPU seconds of this process) of one cold run.

    The CPU time hardly moves with other load on the machine; for sequential runs it is the
    figure to compare when the wall times are noisy.
    """
    clear(impl, old)
    with EngineClock() as clock:
        t, cpu = time.perf_counter(), time.process_time()
        run(impl, old)
        total, cpu = time.perf_counter() - t, time.process_time() - cpu
    return total, clock.seconds, cpu


def row(name: str, run, previous: ModuleType | None, rounds: int, parallel: bool = False) -> None:
    """Alternate previous and current implementations; report the best of ``rounds`` each.

    With ``parallel`` the engine runs in joblib's workers, where the clock does not reach.
    """
    now, before = [], []
    for i in range(rounds):
        # alternate which goes first, so that a change in the machine's load favours neither
        if previous is not None and i % 2 == 0:
            before.append(timed(run, previous, True))
        now.append(timed(run, plan, False))
        if previous is not None and i % 2 == 1:
            before.append(timed(run, previous, True))
    total, eng, cpu = min(now)
    goal = GOALS[name]
    split = ("engine in the workers" if parallel else
             f"engine {eng:6.2f} s, plan {total - eng:5.2f} s = {(total - eng) / total:5.1%}, "
             f"CPU {cpu:6.2f} s")
    print(f"    now:      {total:6.2f} s ({split}); now / goal = {total:.2f} / {goal:.0f} = "
          f"{total / goal:.2f}")
    if before:
        b_total, b_eng, b_cpu = min(before)
        split = ("engine in the workers" if parallel else
                 f"engine {b_eng:6.2f} s, plan {b_total - b_eng:5.2f} s, CPU {b_cpu:6.2f} s")
        print(f"    previous: {b_total:6.2f} s ({split}); speed-up previous / now = "
              f"{b_total / total:.2f}")


class _StubPosterior:
    def mean(self) -> float:
        return 0.6

    def var(self) -> float:
        return 1e-4


def plan_alone(previous: ModuleType | None, n_resamples: int, rounds: int = 5) -> None:
    """The planning code's own cost: the engine replaced by a stub that returns at once."""
    real = engine.alpha_posterior
    engine.alpha_posterior = lambda *args, **kwargs: _StubPosterior()
    try:
        for label, run in (("four theory tables", theory_tables),
                           ("7 x 7 sample table, sequential",
                            lambda impl, old: sample_table(impl, old, n_resamples, 1))):
            now = min(timed(run, plan, False)[0] for _ in range(rounds))
            text = f"    {label}: now {now * 1000:6.1f} ms"
            if previous is not None:
                before = min(timed(run, previous, True)[0] for _ in range(rounds))
                text += f", previous {before * 1000:6.1f} ms (previous / now = {before / now:.1f})"
            print(text)
    finally:
        engine.alpha_posterior = real


def grid_cells() -> None:
    print("[4] cells with the paper's grid (2000 x 1000 x 1000) against the exact engine")
    for h, m in [(100, 1000), (1000, 10000), (10000, 100000)]:
        plan.cells.cache_clear()
        t = time.perf_counter()
        e_exact = plan.detectable_difference(0.6, 0.9, n_human=h, n_metric=m)
        t_exact = time.perf_counter() - t
        t = time.perf_counter()
        e_grid = plan.detectable_difference(0.6, 0.9, n_human=h, n_metric=m, method="grid")
        t_grid = time.perf_counter() - t
        print(f"    n_human={h:>5} n_metric={m:>6}: exact {t_exact:7.3f} s, grid {t_grid:7.2f} s, "
              f"ratio grid/exact {t_grid / t_exact:7.1f}; eps exact {e_exact:.5f} grid {e_grid:.5f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-resamples", type=int, default=50)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3, help="runs per implementation (best counts)")
    ap.add_argument("--skip-sample", action="store_true")
    ap.add_argument("--skip-grid", action="store_true")
    ap.add_argument("--skip-baseline", action="store_true")
    args = ap.parse_args()

    previous = None if args.skip_baseline else previous_plan()
    if previous is None and not args.skip_baseline:
        print("(previous implementation not found in git history: current code only)")
    # imports, joblib's workers and the engine's first call are paid before any timing
    plan.detectable_difference_table(0.6, 0.9, n_human=[100], n_metric=[0, 1000],
                                     simulate="sample", n_resamples=4, n_jobs=args.n_jobs)

    print("[1] the paper's four theory tables (224 cells, cold cache, sequential)")
    row("theory", theory_tables, previous, args.rounds)
    print(f"    the same with n_jobs={args.n_jobs} (current code)")
    row("theory", lambda impl, old: theory_tables(impl, old, args.n_jobs), None, args.rounds,
        parallel=True)
    if not args.skip_sample:
        print(f"[2] 7 x 7 table, simulate='sample', n_resamples={args.n_resamples}, "
              f"n_jobs={args.n_jobs} (cold cache)")
        row("sample", lambda impl, old: sample_table(impl, old, args.n_resamples, args.n_jobs),
            previous, 1, parallel=args.n_jobs != 1)
    print("[3] the planning code alone (posterior engine replaced by a stub)")
    plan_alone(previous, args.n_resamples)
    if not args.skip_grid:
        grid_cells()


if __name__ == "__main__":
    main()
