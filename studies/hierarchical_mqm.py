"""Partial pooling on the shipped WMT21 en-de data: interval width and coverage of the all-MQM
truth, ``rates="hierarchical"`` against ``rates="estimate"``.

Run from the repository root::

    python studies/hierarchical_mqm.py               # 2 splits per share
    python studies/hierarchical_mqm.py --splits 1 --out /tmp/quick.csv

The design of ``studies/pooling_check.py`` (part 3): the human rating is "no MQM error"
(``mqm == 0``), the metric chrF or BLEU at one balanced threshold (chosen by
``threshold="balanced"`` on the paired rows of the per-system fit, then used as the column
``I(metric >= t)`` by both fits), MQM kept on a random share of the segments (10, 20, 30, 50 %)
and the rest metric-only.  The truth of each system is its share of error-free segments over
all its MQM ratings.  Per split and rates: the share of systems whose 95 % interval covers the
truth and the mean interval width.

Output: ``vignettes/data/hierarchical_mqm.csv``, one row per metric x share x split x rates.
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
from binaryeval import datasets  # noqa: E402

BASE_SEED = 20261126
OUT = ROOT / "vignettes" / "data" / "hierarchical_mqm.csv"
SHARES = (0.1, 0.2, 0.3, 0.5)
METRICS = ("chrf", "bleu")


def run(splits: int, out: Path) -> pd.DataFrame:
    data = datasets.load_wmt21_ende()
    done = pd.read_csv(out) if out.exists() else pd.DataFrame()
    t0 = time.perf_counter()
    for metric in METRICS:
        ok = data["mqm"].notna() & data[metric].notna()
        d = data[ok].assign(no_error=(data.loc[ok, "mqm"] == 0).astype(float))
        truth = d.groupby("system")["no_error"].mean()
        segs = d["seg_id"].unique()
        for keep in SHARES:
            rng = np.random.default_rng([BASE_SEED, int(100 * keep)])
            for split in range(splits):
                kept = rng.choice(segs, int(keep * len(segs)), replace=False)
                if len(done) and ((done.metric == metric) & (done.share == keep)
                                  & (done.split == split)).any():
                    continue
                x = d.assign(human=np.where(d["seg_id"].isin(kept), d["no_error"], np.nan))
                rows = []
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    per_group = be.fit(f"human ~ {metric} | system", x, threshold="balanced")
                    cut = float(per_group.threshold)
                    x = x.assign(above=(x[metric] >= cut).astype(float))
                    fits = {"estimate": be.fit("human ~ above | system", x),
                            "hierarchical": be.fit("human ~ above | system", x,
                                                   rates="hierarchical", seed=split)}
                for rates, fit in fits.items():
                    fr = fit.to_frame()
                    t = truth[fr.index]
                    row = {"metric": metric, "share": keep, "split": split, "rates": rates,
                           "threshold": cut, "n_systems": len(fr),
                           "coverage": float(((fr["lower"] <= t) & (t <= fr["upper"])).mean()),
                           "width": float((fr["upper"] - fr["lower"]).mean()),
                           "abs_error": float((fr["estimate"] - t).abs().mean())}
                    if rates == "hierarchical":
                        row["max_rhat"] = float(fr["rhat"].max())
                        row["min_ess_bulk"] = float(fr["ess_bulk"].min())
                    rows.append(row)
                done = pd.concat([done, pd.DataFrame(rows)], ignore_index=True)
                out.parent.mkdir(parents=True, exist_ok=True)
                done.to_csv(out, index=False)
                print(f"{metric} {keep:.0%} split {split} at {time.perf_counter() - t0:.0f} s: "
                      + "; ".join(f"{r['rates']} cover {r['coverage']:.2f} width "
                                  f"{r['width']:.3f}" for r in rows), flush=True)
    return done


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean coverage and width per metric, share and rates, and the width ratio."""
    table = frame.groupby(["metric", "share", "rates"])[["coverage", "width", "abs_error"]
                                                        ].mean().unstack("rates")
    table[("width", "ratio")] = table[("width", "hierarchical")] / table[("width", "estimate")]
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=2)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    frame = run(args.splits, args.out)
    with pd.option_context("display.width", 200, "display.float_format", "{:.3f}".format):
        print(summarise(frame))


if __name__ == "__main__":
    main()
