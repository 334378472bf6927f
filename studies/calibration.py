"""Seeded calibration study of the alpha posterior and its peers (the full run).

Run from the repository root::

    python studies/calibration.py                # the full study, 2 processes
    python studies/calibration.py --reps 50 --misspec-reps 50 --out /tmp/quick   # a look

It lives in ``studies/`` rather than ``benchmarks/`` because it measures statistical validity
(coverage, calibration, bias), not speed.  The building blocks are in
:mod:`binaryeval.validation.calibration`; ``tests/test_calibration.py`` runs a small version in CI.

Outputs (read by ``vignettes/validation.qmd``), in ``vignettes/data/``:

- ``calibration_results.csv``: one row per setting x design x method x level: coverage, the
  count of covering intervals, the 99.9 % binomial acceptance region for that count, whether the
  count lies in it, mean width (fixed design);
- ``calibration_sbc_ranks.csv``: SBC rank histograms (20 bins of the ranks 0..99) per setting
  with the chi-square p-value;
- ``calibration_misspecification.csv``: bias and coverage of pooled vs per-system rates when
  the metric's rates differ by system;
- ``calibration_meta.json``: base seed, settings, replicate counts, software versions, run times.

Every replicate has its own generator seeded by (base seed, setting name, design, replicate
index), so results do not depend on the number of processes.
"""

from __future__ import annotations

import argparse
import json
import pickle
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from binaryeval.validation.calibration import (  # noqa: E402
    LEVELS,
    METHODS,
    SBC_DRAWS,
    Setting,
    coverage_region,
    fixed_replicate,
    misspecification_replicate,
    rank_histogram,
    replicate_seed,
    sbc_replicate,
)

BASE_SEED = 20251122


def _sbc_prior(rho: float, eta: float) -> tuple[float, float]:
    """Beta prior of the rates for the SBC design: mean (rho + eta) / 2, prior sample size 10."""
    m = (rho + eta) / 2.0
    return (round(10 * m, 3), round(10 * (1 - m), 3))


def _setting(name, alpha, rho, eta, n_human, n_metric, rates="estimate", others=()):
    return Setting(name, alpha, rho, eta, n_human, n_metric, rates=rates,
                   other_alphas=tuple(others), rate_prior=_sbc_prior(rho, eta))


#: the settings: alpha 0.05-0.95, rates 0.55-0.99 (rho != eta in most), n_human 20-2000,
#: n_metric 0-10^5, per-system and pooled rates
SETTINGS = [
    _setting("S01", 0.05, 0.90, 0.95, 200, 2_000),
    _setting("S02", 0.95, 0.99, 0.70, 200, 3_000),
    _setting("S03", 0.50, 0.55, 0.55, 200, 10_000),
    _setting("S04", 0.30, 0.80, 0.60, 20, 1_000),
    _setting("S05", 0.70, 0.90, 0.90, 2000, 100_000),
    _setting("S06", 0.40, 0.85, 0.75, 100, 0),
    _setting("S07", 0.20, 0.95, 0.90, 2000, 100_000),
    _setting("S08", 0.60, 0.80, 0.80, 200, 10_000, "pooled", (0.4, 0.8)),
    _setting("S09", 0.85, 0.70, 0.90, 500, 5_000, "pooled", (0.5, 0.7)),
    _setting("S10", 0.10, 0.60, 0.99, 1000, 10_000),
    _setting("S11", 0.50, 0.99, 0.99, 20, 300),
    _setting("S12", 0.35, 0.75, 0.65, 60, 2_000, "pooled", (0.3, 0.6)),
    _setting("S13", 0.90, 0.95, 0.55, 300, 30_000, "pooled", (0.6, 0.9)),
]

#: rough CPU seconds per replicate pair (fixed + SBC), to run the cheap settings first
COST = {"S01": 0.09, "S02": 0.12, "S04": 0.17, "misspec": 0.3, "S05": 0.8, "S07": 0.81}

#: misspecification: one metric, two systems of equal quality alpha on which it behaves
#: differently (accurate on the first, lenient on the second); pooling their paired rows gives
#: rates that fit neither
MISSPEC_SYSTEMS = [(0.50, 0.95, 0.95), (0.50, 0.60, 0.90)]
MISSPEC_SIZES = dict(n_human=200, n_metric=5_000)


def _chunks(n: int, size: int):
    return [range(i, min(i + size, n)) for i in range(0, n, size)]


def _run_fixed(setting: Setting, reps) -> list[dict]:
    return [fixed_replicate(setting, replicate_seed(BASE_SEED, setting.name, "fixed", r))
            for r in reps]


def _run_sbc(setting: Setting, reps) -> list[tuple[float, int]]:
    return [sbc_replicate(setting, replicate_seed(BASE_SEED, setting.name, "sbc", r))
            for r in reps]


def _run_misspec(reps) -> list[np.ndarray]:
    return [misspecification_replicate(replicate_seed(BASE_SEED, "misspec", "fixed", r),
                                       MISSPEC_SYSTEMS, **MISSPEC_SIZES) for r in reps]


def _setting_columns(s: Setting) -> dict:
    return dict(setting=s.name, alpha=s.alpha, rho=s.rho, eta=s.eta, n_human=s.n_human,
                n_metric=s.n_metric, rates=s.rates)


def summarise_fixed(setting: Setting, reps: list[dict]) -> list[dict]:
    """Coverage, width, bias per method and level from fixed-design replicates."""
    rows = []
    for m in METHODS:
        arr = np.array([r[m] for r in reps])
        if np.isnan(arr[:, 1]).all():
            continue
        est = arr[:, 0]
        for j, lv in enumerate(LEVELS):
            low, high = arr[:, 1 + 2 * j], arr[:, 2 + 2 * j]
            cov = int(np.sum((low <= setting.alpha) & (setting.alpha <= high)))
            n = arr.shape[0]
            lo, hi = coverage_region(n, lv)
            rows.append(dict(_setting_columns(setting), design="fixed", method=m, level=lv,
                             n_reps=n, n_undefined=int(np.isnan(est).sum()), covered=cov,
                             coverage=cov / n, region_low=lo, region_high=hi,
                             within=bool(lo <= cov <= hi), mean_width=float(np.mean(high - low)),
                             bias=float(np.nanmean(est) - setting.alpha),
                             rmse=float(np.sqrt(np.nanmean((est - setting.alpha) ** 2)))))
    return rows


def summarise_sbc(setting: Setting, reps: list[tuple[float, int]]):
    """Coverage of the equal-tailed intervals and the rank histogram from SBC replicates."""
    u = np.array([r[0] for r in reps])
    ranks = np.array([r[1] for r in reps])
    rows = []
    for lv in LEVELS:
        cov = int(np.sum(((1 - lv) / 2 <= u) & (u <= (1 + lv) / 2)))
        lo, hi = coverage_region(u.size, lv)
        rows.append(dict(_setting_columns(setting), design="sbc", method="posterior", level=lv,
                         n_reps=u.size, n_undefined=0, covered=cov, coverage=cov / u.size,
                         region_low=lo, region_high=hi, within=bool(lo <= cov <= hi),
                         mean_width=np.nan, bias=np.nan, rmse=np.nan))
    counts, p = rank_histogram(ranks)
    width = (SBC_DRAWS + 1) // counts.size
    hist = [dict(setting=setting.name, bin=i, rank_low=i * width, rank_high=(i + 1) * width - 1,
                 count=int(c), chisq_p=p) for i, c in enumerate(counts)]
    return rows, hist


def summarise_misspec(reps: list[np.ndarray]) -> list[dict]:
    arr = np.stack(reps)  # rep, system, (pooled, estimate), (mean, covered)
    rows = []
    for i, (a, r, e) in enumerate(MISSPEC_SYSTEMS):
        for j, rates in enumerate(("pooled", "estimate")):
            means = arr[:, i, j, 0]
            rows.append(dict(system=i + 1, alpha=a, rho=r, eta=e, rates=rates,
                             n_reps=arr.shape[0], mean_estimate=float(means.mean()),
                             bias=float(means.mean() - a),
                             mc_se=float(means.std(ddof=1) / np.sqrt(means.size)),
                             coverage_95=float(arr[:, i, j, 1].mean()), **MISSPEC_SIZES))
    return rows


def _versions() -> dict:
    import joblib
    import scipy
    import statsmodels

    import binaryeval

    return dict(python=platform.python_version(), binaryeval=binaryeval.__version__,
                numpy=np.__version__, scipy=scipy.__version__, pandas=pd.__version__,
                statsmodels=statsmodels.__version__, joblib=joblib.__version__)


CHUNK = 25


def _task_list(settings, n_reps, misspec_reps):
    """(key, chunk index, callable, args) for every chunk, cheapest work first."""
    groups = []
    for s in settings:
        tasks = [((s.name, design), i, fn, (s, ch))
                 for design, fn in (("fixed", _run_fixed), ("sbc", _run_sbc))
                 for i, ch in enumerate(_chunks(n_reps[s.name], CHUNK))]
        groups.append((COST.get(s.name, 0.1), s.name, tasks))
    groups.append((COST["misspec"], "misspec",
                   [(("misspec", "fixed"), i, _run_misspec, (ch,))
                    for i, ch in enumerate(_chunks(misspec_reps, CHUNK))]))
    return [t for _, _, tasks in sorted(groups, key=lambda g: g[:2]) for t in tasks]


def _cached(cache: Path, key, i, fn, fargs):
    """Run one chunk unless its result is already in the cache (so a run can be resumed)."""
    path = cache / f"{key[0]}_{key[1]}_{i:04d}.pkl"
    if path.exists():
        return pickle.loads(path.read_bytes())
    t0 = time.time()
    res = fn(*fargs)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(pickle.dumps((res, time.time() - t0)))
    tmp.replace(path)  # atomic: a reader never sees a half-written chunk
    return res, time.time() - t0


def assemble(settings, cache: Path, out: Path, run_info: dict, n_reps: dict) -> None:
    """Summarise the cached chunks (up to ``n_reps[name]`` replicates) into the output files."""
    collected: dict = {}
    seconds: dict = {}
    for path in sorted(cache.glob("*.pkl")):
        name, design, idx = path.stem.rsplit("_", 2)
        if name not in n_reps or int(idx) * CHUNK >= n_reps[name]:
            continue
        res, sec = pickle.loads(path.read_bytes())
        collected.setdefault((name, design), []).extend(res)
        seconds[name] = seconds.get(name, 0.0) + sec
    rows, hist, reps = [], [], {}
    for s in settings:
        if (s.name, "fixed") not in collected or (s.name, "sbc") not in collected:
            continue
        rows += summarise_fixed(s, collected[(s.name, "fixed")])
        r, h = summarise_sbc(s, collected[(s.name, "sbc")])
        rows += r
        hist += h
        reps[s.name] = dict(fixed=len(collected[(s.name, "fixed")]),
                            sbc=len(collected[(s.name, "sbc")]))
    out.mkdir(parents=True, exist_ok=True)
    results = pd.DataFrame(rows)
    results.to_csv(out / "calibration_results.csv", index=False, float_format="%.6g")
    pd.DataFrame(hist).to_csv(out / "calibration_sbc_ranks.csv", index=False,
                              float_format="%.6g")
    mis_reps = collected.get(("misspec", "fixed"), [])
    if mis_reps:
        mis = pd.DataFrame(summarise_misspec(mis_reps))
        mis.to_csv(out / "calibration_misspecification.csv", index=False, float_format="%.6g")
        print(mis.round(4).to_string())
    meta = dict(
        base_seed=BASE_SEED,
        seeding="numpy default_rng([base_seed, crc32('<setting>/<design>'), replicate])",
        replicates=reps, misspecification_replicates=len(mis_reps),
        sbc_posterior_draws=SBC_DRAWS, levels=list(LEVELS),
        settings=[s.as_dict() for s in settings if s.name in reps],
        misspecification=dict(systems=MISSPEC_SYSTEMS, **MISSPEC_SIZES),
        worker_seconds={k: round(v, 1) for k, v in seconds.items()},
        versions=_versions(), **run_info)
    (out / "calibration_meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    show = results[results.level == 0.95].pivot_table(index=["setting", "design"],
                                                       columns="method", values="coverage")
    print(show.round(3).to_string())


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000, help="replicates per setting and design")
    ap.add_argument("--reps-for", nargs="*", default=[], metavar="NAME=N",
                    help="fewer replicates for named settings, e.g. S07=100 (multiples of 25)")
    ap.add_argument("--misspec-reps", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", nargs="*", default=None, help="run only these settings")
    ap.add_argument("--out", type=Path, default=ROOT / "vignettes" / "data")
    ap.add_argument("--cache", type=Path,
                    default=Path(tempfile.gettempdir()) / "binaryeval_calibration_cache",
                    help="folder of per-chunk results; a rerun skips chunks found there")
    ap.add_argument("--assemble-only", action="store_true",
                    help="only summarise the cached chunks into the output files")
    args = ap.parse_args(argv)

    settings = [s for s in SETTINGS if args.only is None or s.name in args.only]
    special = {k: int(v) for k, v in (item.split("=") for item in args.reps_for)}
    n_reps = {s.name: special.get(s.name, args.reps) for s in settings}
    args.cache.mkdir(parents=True, exist_ok=True)
    run_info = dict(processes=args.jobs,
                    command="python studies/calibration.py " + " ".join(argv or sys.argv[1:]))
    meta_path = args.out / "calibration_meta.json"
    if args.assemble_only and meta_path.exists():
        # keep the record of the run that produced the cached chunks
        previous = json.loads(meta_path.read_text())
        run_info.update({k: previous[k] for k in ("command", "run_seconds") if k in previous})
    if not args.assemble_only:
        tasks = _task_list(settings, n_reps, args.misspec_reps)
        t0 = time.time()
        Parallel(n_jobs=args.jobs)(delayed(_cached)(args.cache, key, i, fn, fargs)
                                   for key, i, fn, fargs in tasks)
        run_info["run_seconds"] = round(time.time() - t0, 1)
    assemble(settings, args.cache, args.out, run_info, dict(n_reps, misspec=args.misspec_reps))


if __name__ == "__main__":
    main()
