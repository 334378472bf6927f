"""Calibration and power of the check before pooling, and what it sees on WMT21 (full run).

Run from the repository root::

    python studies/pooling_check.py                 # 24 minutes on one core of a busy machine
    python studies/pooling_check.py --sims 20 --splits 2 --out /tmp/quick      # a look

Three parts (:mod:`binaryeval._pooling` is the check; ``sig_level`` 0.01, 2,000 draws):

1. *False alarms.*  Data sets whose groups share one confusion matrix (binary: ``rho = 0.8``,
   ``eta = 0.7``; preferences: one 3 x 3 matrix), the groups' class shares drawn at random;
   the share of data sets where the check fires, at 0.01 and (for orientation) 0.05, by number
   of groups and paired items per group.  The test is exact, so both stay at or below their
   level up to simulation error.
2. *Power.*  One group in eight whose ``rho`` is lower by ``delta`` (binary, 40 and 200 paired
   rows per group), and one pair in ten whose judge is poorer (preferences).
3. *WMT21.*  The shipped en-de (human: no MQM error; chrF or BLEU at one balanced threshold) and
   en-ru (human: MQM 100, i.e. no error; BLEURT-20, COMET or chrF2) data, with MQM kept on a
   random share of the segments (5 splits per share) and the rest metric-only: how often the
   pooled and the per-system 95 % intervals cover each system's all-MQM rate, and how often the
   check fires.

Output: ``vignettes/data/pooling_check.csv``, one row per part x design: ``part``, ``design``,
``n`` (data sets or splits), ``fired_01``, ``fired_05`` (shares), and for WMT21
``cover_pooled``, ``cover_estimate``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import binaryeval as be  # noqa: E402
from binaryeval import _pooling, datasets  # noqa: E402

BASE_SEED = 20261126
OUT = ROOT / "vignettes" / "data" / "pooling_check.csv"
GOOD = np.array([[0.8, 0.15, 0.05], [0.2, 0.6, 0.2], [0.05, 0.15, 0.8]])
POOR = np.array([[0.45, 0.2, 0.35], [0.3, 0.4, 0.3], [0.35, 0.2, 0.45]])


def binary_tables(rng, rho, eta, n_paired):
    g = len(rho)
    pos = rng.binomial(n_paired, rng.uniform(0.3, 0.8, g))
    tp = rng.binomial(pos, rho)
    tn = rng.binomial(n_paired - pos, eta)
    return np.stack([np.stack([tp, pos - tp], 1), np.stack([n_paired - pos - tn, tn], 1)], 1)


def preference_tables(rng, theta, n_paired):
    out = []
    for th in theta:
        cls = rng.multinomial(n_paired, rng.dirichlet([4, 2, 4]))
        out.append([rng.multinomial(cls[c], th[c]) for c in range(3)])
    return np.array(out)


def rates_of(tables_fn, sims, rng, labels):
    p = np.array([_pooling.check(tables_fn(rng), labels).attrs["p_value"] for _ in range(sims)])
    return {"n": sims, "fired_01": float(np.mean(p < 0.01)), "fired_05": float(np.mean(p < 0.05))}


def simulations(sims: int) -> list[dict]:
    rows = []
    rng = np.random.default_rng(BASE_SEED)
    for g in (2, 8, 30):
        for n in (10, 40, 200):
            r = rates_of(lambda rng, g=g, n=n: binary_tables(rng, [0.8] * g, [0.7] * g, n),
                         sims, rng, [str(i) for i in range(g)])
            rows.append({"part": "false alarms", "design": f"binary, {g} groups x {n} paired",
                         **r})
    for g in (10, 190):
        for n in (5, 30):
            r = rates_of(lambda rng, g=g, n=n: preference_tables(rng, [GOOD] * g, n), sims, rng,
                         [str(i) for i in range(g)])
            rows.append({"part": "false alarms", "design": f"preferences, {g} pairs x {n} paired",
                         **r})
    for n in (40, 200):
        for delta in (0.1, 0.2, 0.3):
            rho = [0.85] * 7 + [0.85 - delta]
            r = rates_of(lambda rng, rho=rho, n=n: binary_tables(rng, rho, [0.75] * 8, n),
                         sims, rng, [str(i) for i in range(8)])
            rows.append({"part": "power", "design": f"binary, 1 of 8 groups rho lower by "
                         f"{delta:g}, {n} paired", **r})
    for n in (30, 60, 100):
        r = rates_of(lambda rng, n=n: preference_tables(rng, [GOOD] * 9 + [POOR], n), sims, rng,
                     [str(i) for i in range(10)])
        rows.append({"part": "power", "design": f"preferences, 1 of 10 pairs poorer, {n} paired",
                     **r})
    return rows


def wmt(splits: int) -> list[dict]:
    rows = []
    ende = datasets.load_wmt21_ende()
    enru = datasets.load_wmt21_enru()
    cases = [("en-de", ende, m, ende["mqm"] == 0) for m in ("chrf", "bleu")]
    cases += [("en-ru", enru, m, enru["mqm"] >= 100) for m in ("bleurt20", "comet_mqm", "chrf2")]
    for name, data, metric, human in cases:
        ok = data["mqm"].notna() & data[metric].notna()
        d = data[ok].assign(no_error=human[ok].astype(float))
        truth = d.groupby("system")["no_error"].mean()
        segs = d["seg_id"].unique()
        for keep in (0.2, 0.3, 0.5):
            rng = np.random.default_rng([BASE_SEED, int(100 * keep)])
            cover = {"pooled": [], "estimate": []}
            fired = []
            for _ in range(splits):
                kept = rng.choice(segs, int(keep * len(segs)), replace=False)
                x = d.assign(human=np.where(d["seg_id"].isin(kept), d["no_error"], np.nan))
                for rates in ("pooled", "estimate"):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        fit = be.fit(f"human ~ {metric} | system", x, threshold="balanced",
                                     rates=rates)
                    fr = fit.to_frame()
                    t = truth[fr.index]
                    cover[rates].append(float(((fr["lower"] <= t) & (t <= fr["upper"])).mean()))
                    if rates == "pooled":
                        fired.append(fit.pooling_check().attrs["p_value"])
            fired = np.array(fired)
            rows.append({"part": "WMT21", "design": f"{name} {metric}, MQM on {keep:.0%}",
                         "n": splits, "fired_01": float(np.mean(fired < 0.01)),
                         "fired_05": float(np.mean(fired < 0.05)),
                         "cover_pooled": float(np.mean(cover["pooled"])),
                         "cover_estimate": float(np.mean(cover["estimate"]))})
            print(rows[-1], flush=True)
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=100)
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    start = time.time()
    rows = simulations(args.sims)
    for r in rows:
        print(r, flush=True)
    rows += wmt(args.splits)
    out = pd.DataFrame(rows)
    out.attrs["seconds"] = time.time() - start
    args.out.parent.mkdir(parents=True, exist_ok=True)
    out.to_csv(args.out, index=False, float_format="%.4f")
    print(f"{len(out)} rows in {time.time() - start:.0f} s -> {args.out}")


if __name__ == "__main__":
    main()
