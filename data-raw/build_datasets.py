"""Build the datasets shipped in ``binaryeval/datasets/data/`` from the shared evaluation data.

Usage::

    python data-raw/build_datasets.py [--shared PATH] [--out DIR] [--only NAME ...]

``--shared`` is the folder that holds ``data/`` (default: ``$BINARYEVAL_SHARED`` or ``../shared``
relative to the repository root).  Each builder returns a tidy DataFrame; ``write_csv_gz`` writes it
as gzip-compressed CSV with a fixed header timestamp, so rebuilding gives byte-identical files.

What is shipped, and why it may be (see ``binaryeval/datasets/LICENSES.md``):

* item-level numbers (ids, system names, human and metric scores) from sources under MIT or
  Apache-2.0 (WMT21 en-de MQM, WMT21 en-ru MQM + metric scores, SummEval);
* sentence-level chrF / BLEU / TER for WMT21 en-de, computed here with sacrebleu from the WMT21
  texts (metric scores computed by the package itself; no text is shipped);
* only aggregates (system-level scores, counts per system) from sources without a licence file
  (WMT15, WMT20 system level, Spot-The-Bot), with one exception: Spot-The-Bot's verdicts per
  entity rating (``stb_convai2_ratings``), numbers only, conversations and annotators
  renumbered (no text, no user name), the small derived set the rater model needs (who rated
  what), with attribution.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import math
import os
import re
import sys
import zipfile
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "binaryeval" / "datasets" / "data"
# every read_csv of numbers reads them correctly rounded: the default parser of pandas < 3 does
# not (0.17410704890737333 reads as 0.1741070489073733), and the shipped files would then differ
# by pandas version in the last digit; pandas 3 rounds correctly by default and deprecates the
# argument that asks for it
EXACT_FLOATS = ({"float_precision": "round_trip"}
                if int(pd.__version__.split(".")[0]) < 3 else {})

# MQM system names that differ from the WMT21 file names
ENDE_TEXT_NAMES = {"Nemo": "NVIDIA-NeMo"}
ENDE_SCORED = ["Facebook-AI", "HuaweiTSC", "Nemo", "Online-W", "UEdin", "VolcTrans-AT",
               "VolcTrans-GLAT", "eTranslation", "ref-A", "ref-D"]
ENDE_REFERENCE = "C"


def default_shared() -> Path:
    """The shared folder: ``$BINARYEVAL_SHARED`` or ``../shared`` next to the repository."""
    env = os.environ.get("BINARYEVAL_SHARED")
    return Path(env) if env else REPO.parent / "shared"


def snake(name: str) -> str:
    """Column name usable in a formula: ``chrF++`` -> ``chrf_pp``, ``COMET-2R`` -> ``comet_2r``."""
    out = name.replace("++", "_pp").replace("+", "_p").lower()
    out = re.sub(r"[^0-9a-z]+", "_", out).strip("_")
    if out[0].isdigit():
        out = "m_" + out
    return out


def write_csv_gz(df: pd.DataFrame, path: Path) -> None:
    """Write ``df`` as gzip CSV with a zero timestamp and no file name in the header."""
    text = df.to_csv(index=False, lineterminator="\n")
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(text.encode("utf-8"))
    path.write_bytes(buf.getvalue())


def _float(text: str) -> float:
    if text in ("None", "nan", "NaN", ""):
        return math.nan
    return float(text) + 0.0  # turns -0.0 into 0.0


# ---------------------------------------------------------------------------------------------
# WMT21 en-de: MQM (google/wmt-mqm-human-evaluation, Apache-2.0) + sentence metrics computed here
# ---------------------------------------------------------------------------------------------

def _read_lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")  # not splitlines(): segments may contain other line-break characters
    return lines[:-1] if text.endswith("\n") else lines


def ende_sentence_metrics(data: Path) -> pd.DataFrame:
    """Sentence chrF, BLEU and TER (sacrebleu defaults) against reference C, all 1002 segments."""
    from sacrebleu.metrics import BLEU, CHRF, TER

    txt = data / "wmt21_ende_mqm" / "wmt21-news-systems" / "txt"
    ref = _read_lines(txt / f"newstest2021.en-de.ref.{ENDE_REFERENCE}.de")
    bleu, chrf, ter = BLEU(effective_order=True), CHRF(), TER()
    rows = []
    for system in ENDE_SCORED:
        if system.startswith("ref-"):
            name = f"newstest2021.en-de.ref.{system[-1]}.de"
        else:
            name = f"newstest2021.en-de.hyp.{ENDE_TEXT_NAMES.get(system, system)}.de"
        hyp = _read_lines(txt / name)
        if len(hyp) != len(ref):
            raise ValueError(f"{name}: {len(hyp)} lines, reference has {len(ref)}")
        for i, (h, r) in enumerate(zip(hyp, ref, strict=True), start=1):
            rows.append((system, i,
                         round(chrf.sentence_score(h, [r]).score, 4),
                         round(bleu.sentence_score(h, [r]).score, 4),
                         round(ter.sentence_score(h, [r]).score, 4)))
    return pd.DataFrame(rows, columns=["system", "seg_id", "chrf", "bleu", "ter"])


def build_wmt21_ende(data: Path) -> pd.DataFrame:
    path = data / "wmt21_ende_mqm" / "google-wmt-mqm" / "mqm_newstest2021_ende.avg_seg_scores.tsv"
    rows = []
    with open(path, encoding="utf-8") as fh:
        next(fh)  # header "system mqm_avg_score seg_id"
        for line in fh:
            system, score, seg = line.split()
            rows.append((system, int(seg), _float(score)))
    mqm = pd.DataFrame(rows, columns=["system", "seg_id", "mqm"])
    metrics = ende_sentence_metrics(data)
    df = mqm.merge(metrics, on=["system", "seg_id"], how="left", validate="one_to_one")
    return df.sort_values(["system", "seg_id"], kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------------------------------------
# WMT21 en-ru: MQM + metric scores (NataliaKhaidanova/MT-evaluation-metrics, MIT)
# ---------------------------------------------------------------------------------------------

def _seg_score_file(path: Path) -> pd.DataFrame:
    rows = []
    counter: dict[str, int] = defaultdict(int)
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            system, score = line.rstrip("\n").split("\t")
            counter[system] += 1
            rows.append((system, counter[system], _float(score)))
    return pd.DataFrame(rows, columns=["system", "seg_id", "score"])


def build_wmt21_enru(data: Path) -> pd.DataFrame:
    root = data / "wmt21_enru_mqm_khaidanova"
    ev = root / "WMT21-data" / "evaluation" / "newstest2021"
    df = _seg_score_file(ev / "en-ru.mqm.seg.score").rename(columns={"score": "mqm"})
    for kind in ("raw", "z"):
        da = _seg_score_file(ev / f"en-ru.wmt-{kind}.seg.score").rename(columns={"score": f"da_{kind}"})
        df = df.merge(da, on=["system", "seg_id"], how="left", validate="one_to_one")
    nt = root / "newstest2021"
    files = {
        "BLEURT-20": {"BLEURT-20_ref_A": "bleurt20", "BLEURT-20_ref_B": "bleurt20_refb"},
        "COMET-MQM_2021": {"COMET-MQM_2021_ref_A": "comet_mqm", "COMET-MQM_2021_ref_B": "comet_mqm_refb"},
        "COMET-QE-MQM_2021": {"COMET-QE-MQM_2021": "comet_qe"},
    }
    parts = []
    for system in sorted(df["system"].unique()):
        path = nt / "traditional_metrics" / f"{system}.tsv"
        if not path.exists():  # references have no metric scores
            continue
        cols = [pd.read_csv(path, sep="\t", **EXACT_FLOATS).rename(
            columns={"CHRF2": "chrf2", "sacre_BLEU": "bleu", "TER": "ter"})]
        for folder, names in files.items():
            cols.append(pd.read_csv(nt / folder / f"{system}_{folder}.tsv", sep="\t",
                                    **EXACT_FLOATS).rename(columns=names))
        block = pd.concat(cols, axis=1)
        block.insert(0, "seg_id", np.arange(1, len(block) + 1))
        block.insert(0, "system", system)
        parts.append(block)
    metrics = pd.concat(parts, ignore_index=True)
    metrics = metrics[["system", "seg_id", "bleurt20", "bleurt20_refb", "comet_mqm", "comet_mqm_refb",
                       "comet_qe", "chrf2", "bleu", "ter"]]
    df = df.merge(metrics, on=["system", "seg_id"], how="left", validate="one_to_one")
    return df.sort_values(["system", "seg_id"], kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------------------------------------
# SummEval (CogComp/stat-analysis-experiments, Apache-2.0; annotations MIT from Yale-LILY/SummEval)
# ---------------------------------------------------------------------------------------------

DIMENSIONS = ["coherence", "consistency", "fluency", "relevance"]
SUMMEVAL_METRICS = ["rouge", "bertscore", "s3", "meteor", "moverscore", "qaeval", "bewte", "autosummeng"]


def _jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _flatten(metrics: dict, prefix: str = "") -> dict[str, float]:
    out = {}
    for key, value in metrics.items():
        name = f"{prefix}_{key}" if prefix else key
        if isinstance(value, dict):
            out.update(_flatten(value, name))
        else:
            out[snake(name)] = value
    return out


def build_summeval(data: Path) -> pd.DataFrame:
    root = data / "summeval" / "stat-analysis-experiments_fabbri2020"
    rows = {}
    for item in _jsonl(root / "relevance.jsonl"):
        key = (item["instance_id"], item["summarizer_id"])
        rec = {"doc_id": key[0], "system": key[1]}
        for dim in DIMENSIONS:
            experts = item["metrics"]["expert"][dim]
            turkers = item["metrics"]["turker"][dim]
            if len(experts) != 3 or len(turkers) != 5:
                raise ValueError(f"{key}: {dim} has {len(experts)} expert / {len(turkers)} crowd values")
            rec[f"expert_{dim}"] = round(float(np.mean(experts)), 6)
            rec[f"turker_{dim}"] = round(float(np.mean(turkers)), 6)
            for j, v in enumerate(experts, start=1):
                rec[f"expert_{dim}_{j}"] = int(v)
        rows[key] = rec
    for name in SUMMEVAL_METRICS:
        for item in _jsonl(root / f"{name}.jsonl"):
            key = (item["instance_id"], item["summarizer_id"])
            rows[key].update(_flatten(item["metrics"]))
    df = pd.DataFrame(list(rows.values()))
    human = ["doc_id", "system"] + [f"expert_{d}" for d in DIMENSIONS] + [f"turker_{d}" for d in DIMENSIONS]
    human += [f"expert_{d}_{j}" for d in DIMENSIONS for j in (1, 2, 3)]
    rest = [c for c in df.columns if c not in human]
    df = df[human + rest]
    # system ids sort numerically: M0, M1, M2, M5, ...
    order = df["system"].str[1:].astype(int)
    df = df.assign(_o=order).sort_values(["doc_id", "_o"], kind="stable").drop(columns="_o")
    return df.reset_index(drop=True)


# ---------------------------------------------------------------------------------------------
# WMT15 system level (ygraham/MT-metric-confidence-intervals, no licence file: aggregates only)
# ---------------------------------------------------------------------------------------------

def build_wmt15(data: Path) -> pd.DataFrame:
    root = data / "graham_liu_wmt15" / "wmt15-data"
    parts = []
    for path in sorted(root.glob("hum-sys.*.scores.csv")):
        parts.append(pd.read_csv(path, sep=r"\s+", **EXACT_FLOATS))
    long = pd.concat(parts, ignore_index=True)
    long["metric"] = long["METRIC"].map(snake)
    wide = long.pivot_table(index=["LP", "SYSTEM"], columns="metric", values="SCORE", aggfunc="first",
                            sort=True)
    human = long.groupby(["LP", "SYSTEM"])["HUMAN"].agg(["first", "nunique"])
    if (human["nunique"] != 1).any():
        raise ValueError("WMT15: a system has more than one human score")
    wide.insert(0, "human", human["first"])
    wide = wide.reset_index().rename(columns={"LP": "lp", "SYSTEM": "system"})
    wide.columns.name = None
    return wide


# ---------------------------------------------------------------------------------------------
# WMT20 system level (WMT-Metrics-task/wmt20-metrics, no licence file: system-level aggregates)
# ---------------------------------------------------------------------------------------------

def build_wmt20(data: Path) -> pd.DataFrame:
    root = data / "wmt20_metrics_syslevel"
    outliers = json.loads((root / "outlier-systems-dict.json").read_text())
    parts = []
    pattern = re.compile(r"DA-(newstest[A-Z]?2020)-(.+)-sys-scores\.csv")
    for path in sorted((root / "system-level").glob("DA-*-sys-scores.csv")):
        testset = pattern.fullmatch(path.name).group(1)
        df = pd.read_csv(path, sep=" ", **EXACT_FLOATS)
        lp = df["LP"].str.split("_").str[0]
        out = pd.DataFrame({"lp": lp, "testset": testset, "system": df["SYSTEM"],
                            "human": df["HUMAN"], "human_raw": df["HUMAN_RAW"]})
        out["is_human"] = out["system"].str.startswith("Human")
        out["outlier"] = [s in set(outliers.get(p, [])) for p, s in zip(lp, df["SYSTEM"], strict=True)]
        metrics = df.drop(columns=["LP", "SYSTEM", "HUMAN", "HUMAN_RAW"])
        metrics.columns = [snake(c) for c in metrics.columns]
        parts.append(pd.concat([out, metrics], axis=1))
    wide = pd.concat(parts, ignore_index=True)
    fixed = ["lp", "testset", "system", "human", "human_raw", "is_human", "outlier"]
    metrics = sorted(c for c in wide.columns if c not in fixed)
    return wide[fixed + metrics].sort_values(["lp", "testset", "system"], kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------------------------------------
# Spot-The-Bot ConvAI2 (jderiu/spot-the-bot-code, no licence file: counts per system only)
# ---------------------------------------------------------------------------------------------

def _mongo_lines(zf: zipfile.ZipFile, name: str) -> list[dict]:
    with zf.open(name) as fh:
        return [json.loads(line) for line in io.TextIOWrapper(fh, encoding="utf-8") if line.strip()]


def stb_black_list(annotations: list[dict], convos: dict[str, dict]) -> set[str]:
    """Annotators dropped by the Spot-The-Bot rule.

    For each annotator, keep one annotation per conversation (the last one in file order) among
    the conversations found in the sample, and compute

    * correctness of an annotation: mean over the two entities of ``[predicted is_human == true]``;
    * turn penalty: mean over the two entities of ``(decision_turn - 2) / (len(convo) - 2)``
      (0 when ``decision_turn <= 2`` or the conversation has at most two turns).

    The annotator is dropped when (mean turn penalty <= 0.25 and mean correctness <= 0.75), or mean
    correctness <= 0.6, or they annotated fewer than 10 distinct conversations.
    """
    by_user: dict[str, dict[str, dict]] = defaultdict(dict)
    distinct: dict[str, set[str]] = defaultdict(set)
    for ann in annotations:
        distinct[ann["user_name"]].add(ann["convo_id"])
        if ann["convo_id"] in convos:
            by_user[ann["user_name"]][ann["convo_id"]] = ann
    dropped = set()
    for user in distinct:
        pairs = by_user.get(user, {})
        corr = pen = 0.0
        for cid, ann in pairs.items():
            convo = convos[cid]
            n_turns = len(convo["convo"])
            for e in (0, 1):
                a = ann[f"entity{e}_annotation"]
                corr += 0.5 * (a["is_human"] == convo[f"is_human{e}"])
                if a["decision_turn"] > 2 and n_turns > 2:
                    pen += 0.5 * (a["decision_turn"] - 2) / (n_turns - 2)
        k = len(pairs)
        corr, pen = (corr / k, pen / k) if k else (0.0, 0.0)
        if (pen <= 0.25 and corr <= 0.75) or corr <= 0.6 or len(distinct[user]) < 10:
            dropped.add(user)
    return dropped


def build_stb_convai2(data: Path) -> pd.DataFrame:
    path = data / "stb_convai2" / "spot-the-bot-code" / "MongoDump.zip"
    with zipfile.ZipFile(path) as zf:
        annotations = _mongo_lines(zf, "annotated-dialogues-full-convai2.json")
        sampled = _mongo_lines(zf, "sampled-dialogues-full-convai2.json")
    convos = {c["_id"]["$oid"]: c for c in sampled}
    dropped = stb_black_list(annotations, convos)
    counts: dict[tuple, list[int]] = defaultdict(lambda: [0] * 5)
    for ann in annotations:
        convo = convos[ann["convo_id"]]
        for subset in ("all", "kept"):
            if subset == "kept" and ann["user_name"] in dropped:
                continue
            for e in (0, 1):
                a = ann[f"entity{e}_annotation"]
                c = counts[(convo[f"system_type{e}"], int(a["decision_turn"]), subset)]
                c[0] += 1
                c[1] += bool(a["is_human"])
                c[2] += bool(a["fluencyValue"])
                c[3] += bool(a["specificityValue"])
                c[4] += bool(a["sensitivenessValue"])
    rows = [(s, t, sub, *v) for (s, t, sub), v in counts.items()]
    df = pd.DataFrame(rows, columns=["system", "segment_length", "annotators", "n", "judged_human",
                                     "fluent", "specific", "sensible"])
    df = df.sort_values(["annotators", "system", "segment_length"], kind="stable").reset_index(drop=True)
    df.attrs["n_annotators"] = len({a["user_name"] for a in annotations})
    df.attrs["n_dropped"] = len(dropped)
    return df


def build_stb_convai2_ratings(data: Path) -> pd.DataFrame:
    """Spot-The-Bot ConvAI2, one row per entity rating: who rated which entity, and the verdict.

    Conversations are numbered 0.. in the sample's order and annotators ``a01``.. in order of
    their first annotation (pseudonyms: the user names are not shipped).  ``kept`` marks the
    annotators the black-list rule keeps (:func:`stb_black_list`).
    """
    path = data / "stb_convai2" / "spot-the-bot-code" / "MongoDump.zip"
    with zipfile.ZipFile(path) as zf:
        annotations = _mongo_lines(zf, "annotated-dialogues-full-convai2.json")
        sampled = _mongo_lines(zf, "sampled-dialogues-full-convai2.json")
    convos = {c["_id"]["$oid"]: c for c in sampled}
    number = {cid: i for i, cid in enumerate(convos)}
    dropped = stb_black_list(annotations, convos)
    alias: dict[str, str] = {}
    rows = []
    for ann in annotations:
        user = ann["user_name"]
        alias.setdefault(user, f"a{len(alias) + 1:02d}")
        convo = convos[ann["convo_id"]]
        for e in (0, 1):
            a = ann[f"entity{e}_annotation"]
            rows.append((convo[f"system_type{e}"], number[ann["convo_id"]], e,
                         int(a["decision_turn"]), alias[user], int(bool(a["is_human"])),
                         int(bool(convo[f"is_human{e}"])), int(user not in dropped)))
    df = pd.DataFrame(rows, columns=["system", "conversation", "entity", "segment_length",
                                     "annotator", "judged_human", "is_human", "kept"])
    return df.sort_values(["system", "conversation", "entity", "annotator"],
                          kind="stable").reset_index(drop=True)


BUILDERS = {
    "wmt21_ende": build_wmt21_ende,
    "wmt21_enru": build_wmt21_enru,
    "summeval": build_summeval,
    "wmt15": build_wmt15,
    "wmt20": build_wmt20,
    "stb_convai2": build_stb_convai2,
    "stb_convai2_ratings": build_stb_convai2_ratings,
}


def build(names: list[str] | None = None, shared: Path | None = None, out: Path = DEFAULT_OUT,
          verbose: bool = False) -> dict[str, Path]:
    """Build the named datasets (all by default) into ``out``; returns the written paths."""
    data = Path(shared or default_shared()) / "data"
    if not data.is_dir():
        raise FileNotFoundError(f"shared data folder not found: {data} (pass --shared or set BINARYEVAL_SHARED)")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for name in names or list(BUILDERS):
        df = BUILDERS[name](data)
        path = out / f"{name}.csv.gz"
        write_csv_gz(df, path)
        written[name] = path
        if verbose:
            print(f"{name}: {df.shape[0]} rows x {df.shape[1]} columns -> {path} "
                  f"({path.stat().st_size:,} bytes)")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=None,
                        help="folder holding data/ (default: $BINARYEVAL_SHARED or ../shared)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    parser.add_argument("--only", nargs="+", choices=list(BUILDERS), help="build only these datasets")
    args = parser.parse_args(argv)
    build(args.only, args.shared, args.out, verbose=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
