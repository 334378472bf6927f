"""Readers of the WMT files under ../shared/data used by the correlation tests and benchmarks.

The data sit outside the repository (see the data README for provenance and licences); these
helpers only parse them into tidy frames.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd

WMT15 = Path("graham_liu_wmt15") / "wmt15-data"
WMT20 = Path("wmt20_metrics_syslevel")
WMT19 = Path("wmt19_metrics_syslevel")
ENRU = Path("wmt21_enru_mqm_khaidanova")


def wmt15_system_level(data: Path, lp: str) -> pd.DataFrame:
    """Graham & Liu (2016) WMT15 inputs: one row per system, HUMAN plus one column per metric."""
    raw = pd.read_csv(data / WMT15 / f"hum-sys.{lp}.scores.csv", sep=r"\s+")
    wide = raw.pivot(index="SYSTEM", columns="METRIC", values="SCORE")
    human = raw.groupby("SYSTEM")["HUMAN"].agg(["min", "max"])
    if (human["min"] != human["max"]).any():
        raise ValueError(f"{lp}: human score differs between metric rows of a system")
    wide.insert(0, "HUMAN", human["min"])
    wide.columns.name = None
    return wide.reset_index()


def wmt20_system_level(data: Path, lp: str, *, exclude_human: bool = True,
                       exclude_outliers: bool = False) -> pd.DataFrame:
    """WMT20 newstest2020 system-level scores; ``lp`` like ``"ende"`` (file naming)."""
    frame = pd.read_csv(data / WMT20 / "system-level" / f"DA-newstest2020-{lp}-sys-scores.csv", sep=" ")
    if exclude_human:
        frame = frame[~frame["SYSTEM"].str.startswith("Human")]
    if exclude_outliers:
        outliers = json.loads((data / WMT20 / "outlier-systems-dict.json").read_text())
        frame = frame[~frame["SYSTEM"].isin(outliers.get(frame["LP"].iloc[0], []))]
    return frame.reset_index(drop=True)


def wmt20_reported(data: Path, lp: str, *, outliers_excluded: bool) -> pd.DataFrame:
    """The correlations WMT20 reported: Kendall (all MT systems) or Pearson (outliers excluded)."""
    suffix = "-cor-excloutl.csv" if outliers_excluded else "-cor.csv"
    return pd.read_csv(data / WMT20 / "system-level" / f"DA-{lp}{suffix}", sep="\t", index_col=0)


def wmt19_system_level(data: Path, lp: str) -> pd.DataFrame:
    """WMT19 newstest2019: HUMAN (DA z) and every metric with a score for every system of ``lp``."""
    human = pd.read_csv(data / WMT19 / "DA-syslevel.csv", sep=" ")
    human = human[human["LP"] == lp].set_index("SYSTEM")["HUMAN"]
    scores = {}
    for folder in ("baselines", "submissions-corrected"):
        for path in sorted((data / WMT19 / folder).glob("*.sys.score.gz")):
            with gzip.open(path, "rt") as fh:
                rows = [line.split() for line in fh if line.strip()]
            for row in rows:
                metric, row_lp, testset, system, score = row[:5]
                if row_lp == lp and testset == "newstest2019":
                    scores.setdefault(metric, {})[system] = float(score)
    wide = pd.DataFrame(scores).reindex(human.index)
    wide = wide.loc[:, wide.notna().all()]
    wide.insert(0, "HUMAN", human)
    wide.index.name = "SYSTEM"
    return wide.reset_index()


def wmt21_enru_segments(data: Path) -> pd.DataFrame:
    """WMT21 en-ru segment scores of the 14 MT systems: MQM and BLEURT-20, COMET, chrF, BLEU (ref A).

    One row per (system, item); ``mqm`` is NaN for segments without an MQM annotation.
    """
    root = data / ENRU
    mqm = pd.read_csv(root / "WMT21-data" / "evaluation" / "newstest2021" / "en-ru.mqm.seg.score",
                      sep="\t", header=None, names=["system", "mqm"], na_values=["None"])
    mqm["item"] = mqm.groupby("system").cumcount()
    parts = []
    for path in sorted((root / "newstest2021" / "traditional_metrics").glob("*.tsv")):
        system = path.stem
        trad = pd.read_csv(path, sep="\t")
        bleurt = pd.read_csv(root / "newstest2021" / "BLEURT-20" / f"{system}_BLEURT-20.tsv", sep="\t")
        comet = pd.read_csv(root / "newstest2021" / "COMET-MQM_2021" / f"{system}_COMET-MQM_2021.tsv",
                            sep="\t")
        parts.append(pd.DataFrame({
            "system": system, "item": np.arange(len(trad)),
            "bleurt": bleurt["BLEURT-20_ref_A"].to_numpy(float),
            "comet": comet["COMET-MQM_2021_ref_A"].to_numpy(float),
            "chrf": trad["CHRF2"].to_numpy(float), "bleu": trad["sacre_BLEU"].to_numpy(float)}))
    metrics = pd.concat(parts, ignore_index=True)
    return metrics.merge(mqm, on=["system", "item"], how="left", validate="one_to_one")
