"""Readers of the shared SummEval and WMT21 files for the Favi tests (long format, one row per item x system).

Files are read from ``conftest.DATA`` (never copied into the repository); formats are described in
``DATA / "README.md"``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

SUMMEVAL_METRICS = {
    # file stem -> {column name: path inside "metrics"}
    "bertscore": {"bertscore_f1": ("bertscore", "f1")},
    "rouge": {"rouge_l_f1": ("rouge-l", "f1"), "rouge_2_f1": ("rouge-2", "f1")},
    "s3": {"s3_pyr": ("s3", "pyr"), "s3_resp": ("s3", "resp")},
    "moverscore": {"moverscore": ("MoverScore",)},
    "meteor": {"meteor": ("METEOR",)},
}


def _dig(obj, path):
    for key in path:
        obj = obj[key]
    return obj


@lru_cache(maxsize=2)
def summeval(data_dir: Path) -> pd.DataFrame:
    """SummEval: 1,600 rows (100 documents x 16 systems), expert means per dimension and metric scores."""
    folder = Path(data_dir) / "summeval" / "stat-analysis-experiments_fabbri2020"
    rows = {}
    with open(folder / "relevance.jsonl") as fh:
        for line in fh:
            rec = json.loads(line)
            key = (rec["instance_id"], rec["summarizer_id"])
            expert = rec["metrics"]["expert"]
            rows[key] = {dim: float(np.mean(expert[dim])) for dim in
                         ("coherence", "consistency", "fluency", "relevance")}
    for stem, columns in SUMMEVAL_METRICS.items():
        with open(folder / f"{stem}.jsonl") as fh:
            for line in fh:
                rec = json.loads(line)
                key = (rec["instance_id"], rec["summarizer_id"])
                for col, path in columns.items():
                    try:
                        rows[key][col] = float(_dig(rec["metrics"], path))
                    except KeyError:
                        rows[key][col] = np.nan
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index = pd.MultiIndex.from_tuples(df.index, names=["doc_id", "system"])
    return df.reset_index()


@lru_cache(maxsize=2)
def wmt21_ende(data_dir: Path) -> pd.DataFrame:
    """WMT21 en-de: MQM (minus penalty, higher is better) joined with sentence BLEU/chrF/TER vs ref-C."""
    base = Path(data_dir) / "wmt21_ende_mqm"
    recs = []
    with open(base / "google-wmt-mqm" / "mqm_newstest2021_ende.avg_seg_scores.tsv") as fh:
        next(fh)
        for line in fh:
            system, score, seg = line.split()
            recs.append((system, int(seg), np.nan if score == "None" else float(score)))
    mqm = pd.DataFrame(recs, columns=["system", "seg_id", "mqm"])
    sent = pd.read_csv(base / "wmt21_ende_sentence_sacrebleu_refC.derived.tsv", sep="\t")
    return mqm.merge(sent, on=["system", "seg_id"], how="inner")


@lru_cache(maxsize=2)
def wmt21_enru(data_dir: Path) -> pd.DataFrame:
    """WMT21 en-ru: MQM (0-100, higher is better) with BLEURT-20 and COMET-MQM_2021 against reference A."""
    base = Path(data_dir) / "wmt21_enru_mqm_khaidanova"
    mqm = pd.read_csv(base / "WMT21-data" / "evaluation" / "newstest2021" / "en-ru.mqm.seg.score", sep="\t",
                      header=None, names=["system", "mqm"], na_values=["None"])
    mqm["seg_id"] = mqm.groupby("system").cumcount() + 1
    frames = []
    for path in sorted((base / "newstest2021" / "BLEURT-20").glob("*_BLEURT-20.tsv")):
        system = path.name[: -len("_BLEURT-20.tsv")]
        bleurt = pd.read_csv(path, sep="\t")
        comet = pd.read_csv(base / "newstest2021" / "COMET-MQM_2021" / f"{system}_COMET-MQM_2021.tsv", sep="\t")
        frames.append(pd.DataFrame({"system": system, "seg_id": np.arange(1, len(bleurt) + 1),
                                    "bleurt": bleurt["BLEURT-20_ref_A"].to_numpy(),
                                    "comet": comet["COMET-MQM_2021_ref_A"].to_numpy()}))
    metrics = pd.concat(frames, ignore_index=True)
    return mqm.merge(metrics, on=["system", "seg_id"], how="inner")
