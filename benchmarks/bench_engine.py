"""Speed of the exact posterior engine: against its goals, the previous engine and the paper's grid.

Run: ``python benchmarks/bench_engine.py [--rounds 5] [--skip-grid] [--full-grid] [--skip-sweep]
[--only-intervals]``.

Row 0: one posterior with its 95 % interval from 300 paired and 10^3 / 10^4 / 10^5 metric-only
rows (``bench_speed.py`` row 1's data), goal 2 ms, in CPU time against the engine before the FFT
convolution (alternating call by call in this process) and ppi_py's PPI++ interval.

Rows (``now / goal``: below 1 meets the goal; the previous engine -- ``binaryeval/binary/engine.py``
as it was before the smooth representation, read from git history and imported under another
name -- runs in the same process, alternating with the current one, and ``previous / now`` is the
speed-up):

1. one posterior (build, mean and sd) with 10^3 and with 10^5 metric ratings: goal 10 ms each;
2. one posterior with 10^6 metric ratings, without and with 10^4 human ratings: goal 20 ms;
3. one posterior with few paired rows (20/5/15/5) and 10^6 / 10^7 metric ratings: goal 20 ms;
4. ``compare()`` on a mixed fit of 20 systems (190 pairs; 100 human and 400 metric-only ratings
   per system, the WMT21 design): goal 0.5 s;
5. a robustness sweep: 300 random designs (10^4.5 to 10^8.5 metric ratings, 10 to 3e5 paired and
   0 to 3e4 human ratings, alpha 0.05 to 0.95, rho and eta 0.55 to 0.99, binomial counts), each
   posterior built and its 95 % interval and CDF at the mean evaluated: failures (goal 0) and time.

Times are the median over ``--rounds`` runs (wall clock; the machine should be quiet).  The 95 %
interval of each posterior is timed too, for information.  Then the paper's midpoint grid against
the exact engine on the authors' cases (agreement of mean, sd and quantiles).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import binaryeval as be
from binaryeval.binary.engine import alpha_posterior
from binaryeval.validation import random_designs

ROOT = Path(__file__).resolve().parents[1]
PREVIOUS = "5007fa2"  # the engine before this benchmark's rows were worked on
BEFORE_FFT = "8d1f41b"  # the engine before the FFT convolution and the faster log-gamma tables

POSTERIORS = {
    # name: (counts, goal in seconds)
    "10^3 metric": ((60, 100, 560, 1000, 48, 12, 32, 8), 0.010),
    "10^5 metric": ((120, 200, 56000, 100000, 96, 24, 64, 16), 0.010),
    "10^6 metric": ((0, 0, 560000, 1000000, 480, 120, 320, 80), 0.020),
    "10^4 human + 10^6 metric": ((6000, 10000, 560000, 1000000, 4800, 1200, 3200, 800), 0.020),
    "few paired + 10^6 metric": ((0, 0, 560000, 1000000, 20, 5, 15, 5), 0.020),
    "few paired + 10^7 metric": ((0, 0, 5600000, 10000000, 20, 5, 15, 5), 0.020),
}
GRID_CASES = {
    "E1 metric only": (0, 0, 5200, 10000, 80, 20, 80, 20),
    "E2 mixed": (60, 100, 5600, 10000, 96, 24, 64, 16),
    "E4 weak metric": (0, 0, 5200, 10000, 180, 120, 120, 80),
    "S1 synthetic": (113, 200, 5575, 10000, 92, 21, 64, 23),
}


def previous_engine(commit: str = PREVIOUS, name: str = "_engine_previous"):
    """The engine module at ``commit``, from git history, or None when git or the commit is absent."""
    try:
        src = subprocess.run(["git", "-C", str(ROOT), "show",
                              f"{commit}:binaryeval/binary/engine.py"],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    path = Path(tempfile.mkdtemp()) / f"{name}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"binaryeval.binary.{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _moments(post):
    m = post.mean() if callable(post.mean) else post.mean
    s = post.std() if callable(post.std) else post.std
    return m, s


def _time(fn, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def posterior_rows(old, rounds: int) -> None:
    print(f"{'posterior':<28}{'now ms':>9}{'goal ms':>9}{'now/goal':>9}{'prev ms':>9}"
          f"{'prev/now':>9}{'interval ms':>12}{'|d mean|':>10}")
    for name, (c, goal) in POSTERIORS.items():
        now = _time(lambda c=c: _moments(alpha_posterior(*c)), rounds)
        post = alpha_posterior(*c)
        interval = _time(lambda c=c: alpha_posterior(*c).interval(0.95), rounds) - now
        prev = diff = float("nan")
        if old is not None and "10^7" not in name:
            prev = _time(lambda c=c: _moments(old.alpha_posterior(*c)), max(1, rounds // 2))
            diff = abs(_moments(old.alpha_posterior(*c))[0] - post.mean())
        elif old is not None:
            prev = _time(lambda c=c: _moments(old.alpha_posterior(*c)), 1)
        print(f"{name:<28}{1e3 * now:>9.1f}{1e3 * goal:>9.0f}{now / goal:>9.2f}{1e3 * prev:>9.1f}"
              f"{prev / now:>9.1f}{1e3 * max(interval, 0.0):>12.1f}{diff:>10.1e}")


def interval_rows(rounds: int) -> None:
    """Row 0: one posterior with its 95 % interval (300 paired + 10^3 / 10^4 / 10^5 metric-only
    rows, the data of ``bench_speed.py`` row 1) against the engine at ``BEFORE_FFT`` and ppi_py.

    The two engines alternate call by call in this process and are timed in CPU time (which
    waiting for a busy CPU does not inflate); the ratio of their medians is the speed-up.
    """
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_speed import counts_of, paired_design

    before = previous_engine(BEFORE_FFT, "_engine_before_fft")
    try:
        import ppi_py
    except ImportError:
        ppi_py = None
    print(f"\n0. one posterior with its 95% interval, 300 paired rows (goal 2 ms; CPU ms, median "
          f"of {rounds}, the engine at {BEFORE_FFT} alternating)")
    print(f"{'metric-only rows':>17}{'now cpu':>9}{'before':>9}{'before/now':>11}{'ppi_py':>9}"
          f"{'now/ppi':>9}{'|d lower|':>11}{'|d upper|':>11}")
    for n in (10**3, 10**4, 10**5):
        y, yhat, unl = paired_design(n)
        c = counts_of(y, yhat, unl)
        now, old, peer = [], [], []
        for _ in range(rounds):
            for engine_, out in ((alpha_posterior, now), (getattr(before, "alpha_posterior", None),
                                                          old)):
                if engine_ is None:
                    continue
                t = time.process_time()
                engine_(*c).interval(0.95)
                out.append(time.process_time() - t)
            if ppi_py is not None:
                t = time.process_time()
                ppi_py.ppi_mean_ci(y, yhat, unl, alpha=0.05)
                peer.append(time.process_time() - t)
        med = [statistics.median(v) if v else float("nan") for v in (now, old, peer)]
        iv = alpha_posterior(*c).interval(0.95)
        iv_old = before.alpha_posterior(*c).interval(0.95) if before else (math.nan,) * 2
        print(f"{n:>17,}{1e3 * med[0]:>9.2f}{1e3 * med[1]:>9.2f}{med[1] / med[0]:>11.2f}"
              f"{1e3 * med[2]:>9.2f}{med[0] / med[2]:>9.1f}{abs(iv[0] - iv_old[0]):>11.1e}"
              f"{abs(iv[1] - iv_old[1]):>11.1e}")


def compare_row(old, rounds: int) -> None:
    rng = np.random.default_rng(3)
    counts = {}
    for i in range(20):
        alpha = rng.uniform(0.5, 0.8)
        rho, eta = 0.7, 0.7
        tp = int(round(100 * alpha * rho))
        fn = int(round(100 * alpha)) - tp
        tn = int(round(100 * (1 - alpha) * eta))
        fp = 100 - tp - fn - tn
        q = alpha * rho + (1 - alpha) * (1 - eta)
        counts[f"s{i:02d}"] = dict(tp=tp, fn=fn, tn=tn, fp=fp, metric_total=400,
                                   metric_pos=int(round(400 * q)))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = be.fit_counts(counts)
    # a fresh fit each round: nothing cached from the previous comparison
    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            be.fit_counts(counts).compare()

    now = _time(run, max(1, rounds // 2))
    fit_only = _time(lambda: be.fit_counts(counts), max(1, rounds // 2))
    now -= fit_only
    print(f"\ncompare() on a mixed fit, 20 systems, 190 pairs: now {now:.3f} s, goal 0.5 s, "
          f"now/goal {now / 0.5:.2f}")
    if old is not None:
        # the fit counts the paired rows' human ratings for alpha too
        posts = [old.alpha_posterior(**dict(c, human_pos=c["tp"] + c["fn"], human_total=100))
                 for c in counts.values()]
        t = time.perf_counter()
        p_old = [[a.prob_greater(b) for b in posts[i + 1:]] for i, a in enumerate(posts)]
        prev = time.perf_counter() - t
        p_new = res.compare(order="input").to_frame()["prob_greater"].to_numpy()
        flat = np.array([v for row in p_old for v in row])
        print(f"previous engine's 190 P(alpha_i > alpha_j): {prev:.3f} s (previous/now "
              f"{prev / now:.1f}); largest difference {np.max(np.abs(flat - p_new)):.1e}")


def sweep_row(n: int = 300, seed: int = 0) -> None:
    failures = []
    t = time.perf_counter()
    for design in random_designs(n, seed):
        try:
            post = alpha_posterior(*design)
            lo, hi = post.interval(0.95)
            f = post.cdf(post.mean())
            if not (0.0 <= lo < post.mean() < hi <= 1.0 and 0.0 < f < 1.0):
                failures.append((design, "interval or cdf out of place"))
        except Exception as exc:  # noqa: BLE001 - every failure is counted and shown
            failures.append((design, repr(exc)))
    took = time.perf_counter() - t
    print(f"\nrobustness sweep: {n} random designs, {len(failures)} failures, {took:.1f} s "
          f"({1e3 * took / n:.1f} ms per design: build, interval, cdf)")
    for design, why in failures[:10]:
        print(f"    {design}: {why}")


def grid_rows(full: bool) -> None:
    grid = (2000, 1000, 1000) if full else (500, 250, 250)
    print(f"\nexact engine vs midpoint grid {grid}")
    print(f"{'case':<18}{'exact s':>10}{'grid s':>10}{'ratio':>9}{'|d mean|':>11}{'|d sd|':>10}"
          f"{'|d q.025|':>11}{'|d q.975|':>11}")
    for name, c in GRID_CASES.items():
        t0 = time.perf_counter()
        ex = alpha_posterior(*c)
        ex_s = (ex.mean(), ex.std(), *ex.interval(0.95))
        t1 = time.perf_counter()
        gr = alpha_posterior(*c, method="grid", grid=grid)
        gr_s = (gr.mean(), gr.std(), *gr.interval(0.95))
        t2 = time.perf_counter()
        diffs = [abs(a - b) for a, b in zip(ex_s, gr_s, strict=True)]
        print(f"{name:<18}{t1 - t0:>10.4f}{t2 - t1:>10.2f}{(t2 - t1) / (t1 - t0):>9.0f}"
              + "".join(f"{d:>11.2e}" for d in diffs))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-grid", action="store_true")
    parser.add_argument("--full-grid", action="store_true")
    parser.add_argument("--skip-sweep", action="store_true")
    parser.add_argument("--only-intervals", action="store_true",
                        help="row 0 only: one posterior with its interval against ppi_py")
    args = parser.parse_args(argv)
    old = previous_engine()
    if old is None:
        print("(previous engine not found in git history: speed-ups not shown)")
    interval_rows(max(args.rounds, 15))
    if args.only_intervals:
        return
    posterior_rows(old, args.rounds)
    compare_row(old, args.rounds)
    if not args.skip_sweep:
        sweep_row()
    if not args.skip_grid:
        grid_rows(args.full_grid)


if __name__ == "__main__":
    main()
