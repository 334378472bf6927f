"""Shipped datasets: documented columns, facts from ../shared/data/README.md, exact rebuild.

No test reads ../shared: what the raw data (texts, the annotation database) say is computed from
them by data-raw/extract_references.py and kept as numbers in tests/reference (scores recomputed
with sacrebleu, the annotator black list's counts, the SHA-256 of every dataset rebuilt from the
raw data), so a bare clone checks the shipped files against them.
"""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from conftest import REFERENCE, REPO, build_module

import binaryeval as be
from binaryeval import datasets
from binaryeval.errors import ParameterError

# ---------------------------------------------------------------------------------------------
# WMT21 en-de
# ---------------------------------------------------------------------------------------------

# "adequate iff score == 0" counts of 527 per system, from the data README section 1
ENDE_ADEQUATE = {
    "Facebook-AI": 353, "HuaweiTSC": 308, "Nemo": 336, "Online-W": 337, "UEdin": 310,
    "VolcTrans-AT": 324, "VolcTrans-GLAT": 340, "eTranslation": 271, "ref-A": 344, "ref-B": 358,
    "ref-C": 357, "ref-D": 339, "metricsystem1": 253, "metricsystem2": 223, "metricsystem3": 268,
    "metricsystem4": 284, "metricsystem5": 256,
}
# mean(-score) per system, google/wmt-mqm-human-evaluation README table (quoted in the data README)
ENDE_MEAN_PENALTY = {
    "ref-C": 0.51, "VolcTrans-GLAT": 1.04, "Facebook-AI": 1.05, "ref-A": 1.22, "Nemo": 1.34,
    "HuaweiTSC": 1.38, "Online-W": 1.46, "UEdin": 1.51, "eTranslation": 1.70, "VolcTrans-AT": 1.74,
}


def test_wmt21_ende_shape_and_columns():
    df = datasets.load_wmt21_ende()
    assert list(df.columns) == ["system", "seg_id", "mqm", "chrf", "bleu", "ter"]
    # README: 17 systems x 1002 segments, 527 annotated per system
    assert df.shape == (17 * 1002, 6)
    assert df["system"].nunique() == 17
    assert df["seg_id"].dtype == np.int64 and df["seg_id"].min() == 1 and df["seg_id"].max() == 1002
    for col in ["mqm", "chrf", "bleu", "ter"]:
        assert df[col].dtype == np.float64
    assert (df.groupby("system")["mqm"].count() == 527).all()
    # the same 527 segments are annotated for every system
    annotated = df[df["mqm"].notna()].groupby("system")["seg_id"].apply(frozenset)
    assert annotated.nunique() == 1
    assert df["mqm"].max() == 0 and df["mqm"].min() >= -25
    assert len(datasets.load_wmt21_ende(annotated_only=True)) == 17 * 527


def test_wmt21_ende_readme_counts():
    df = datasets.load_wmt21_ende(annotated_only=True)
    counts = (df["mqm"] == 0).groupby(df["system"]).sum().to_dict()
    assert counts == ENDE_ADEQUATE
    mean_penalty = (-df["mqm"]).groupby(df["system"]).mean().round(2)
    for system, value in ENDE_MEAN_PENALTY.items():
        assert mean_penalty[system] == pytest.approx(value, abs=1e-9)


def test_wmt21_ende_metric_coverage():
    df = datasets.load_wmt21_ende()
    scored = sorted(df.loc[df["chrf"].notna(), "system"].unique())
    # the 8 MT systems with texts, ref-A and ref-D (scored against ref-C)
    assert scored == sorted(["Facebook-AI", "HuaweiTSC", "Nemo", "Online-W", "UEdin", "VolcTrans-AT",
                             "VolcTrans-GLAT", "eTranslation", "ref-A", "ref-D"])
    sub = df[df["system"].isin(scored)]
    assert sub[["chrf", "bleu", "ter"]].notna().all().all()
    assert sub["chrf"].between(0, 100).all() and sub["bleu"].between(0, 100).all()
    assert (sub["ter"] >= 0).all()


def test_wmt21_ende_metrics_match_shared_derived_file():
    # the shared DERIVED file was computed with sacrebleu 2.6.0 from the same texts against ref-C;
    # every fifth segment of it is copied into tests/reference (provenance in README.md there)
    ref = pd.read_csv(REFERENCE / "wmt21_ende_sacrebleu_refC_sample.csv")
    df = datasets.load_wmt21_ende().merge(ref, on=["system", "seg_id"], how="inner")
    assert len(df) == len(ref) == 10 * 201
    np.testing.assert_allclose(df["chrf"], df["chrF"], atol=1e-4)
    np.testing.assert_allclose(df["bleu"], df["sentBLEU"], atol=1e-4)
    np.testing.assert_allclose(df["ter"], df["TER"], atol=1e-4)


def test_wmt21_ende_matches_scores_recomputed_with_sacrebleu():
    # chrF, BLEU and TER recomputed with sacrebleu 2.6.0 from the WMT21 texts against ref-C on
    # 82 segments of Nemo and ref-A (tests/reference/wmt21_ende_sacrebleu_recomputed.csv, made
    # by data-raw/extract_references.py; the texts themselves are not in the repository)
    ref = pd.read_csv(REFERENCE / "wmt21_ende_sacrebleu_recomputed.csv")
    assert len(ref) == 2 * 41
    df = datasets.load_wmt21_ende().merge(ref, on=["system", "seg_id"], how="inner",
                                          suffixes=("", "_sacrebleu"))
    assert len(df) == len(ref)
    np.testing.assert_allclose(df["chrf"], df["chrf_sacrebleu"], atol=5e-5, rtol=0)
    np.testing.assert_allclose(df["bleu"], df["bleu_sacrebleu"], atol=5e-5, rtol=0)
    np.testing.assert_allclose(df["ter"], df["ter_sacrebleu"], atol=5e-5, rtol=0)


# ---------------------------------------------------------------------------------------------
# WMT21 en-ru
# ---------------------------------------------------------------------------------------------

# "adequate iff score == 100" counts of 527, data README section 2
ENRU_ADEQUATE = {
    "metricsystem1": 386, "metricsystem2": 377, "metricsystem3": 342, "metricsystem4": 392,
    "metricsystem5": 358, "refA": 506, "refB": 492, "Online-W": 408, "Facebook-AI": 435,
    "Online-B": 327, "Online-G": 330, "Nemo": 352, "Online-A": 346, "Manifold": 358,
    "NiuTrans": 321, "Online-Y": 286,
}


def test_wmt21_enru_columns_and_counts():
    df = datasets.load_wmt21_enru()
    assert list(df.columns) == ["system", "seg_id", "mqm", "da_raw", "da_z", "bleurt20", "bleurt20_refb",
                                "comet_mqm", "comet_mqm_refb", "comet_qe", "chrf2", "bleu", "ter"]
    assert df.shape[0] == 16 * 1002
    assert all(df[c].dtype == np.float64 for c in df.columns[2:])
    assert (df.groupby("system")["mqm"].count() == 527).all()
    ann = datasets.load_wmt21_enru(annotated_only=True)
    assert (ann["mqm"] == 100).groupby(ann["system"]).sum().to_dict() == ENRU_ADEQUATE
    # metric scores exist for the 14 non-reference systems only
    assert sorted(df.loc[df["bleurt20"].notna(), "system"].unique()) == sorted(
        s for s in ENRU_ADEQUATE if not s.startswith("ref"))


def test_wmt21_enru_pooled_correlations_match_readme():
    # data README section 2: pooled over 14 systems, 7,378 MQM-annotated rows, Pearson vs MQM
    # BLEURT-20(refA) 0.373, COMET-MQM(refA) 0.281, chrF2 0.245; Kendall BLEURT 0.29
    df = datasets.load_wmt21_enru(annotated_only=True).dropna(subset=["bleurt20"])
    assert len(df) == 7378
    r = df[["mqm", "bleurt20", "comet_mqm", "chrf2"]].corr()["mqm"]
    assert r["bleurt20"] == pytest.approx(0.373, abs=5e-4)
    assert r["comet_mqm"] == pytest.approx(0.281, abs=5e-4)
    assert r["chrf2"] == pytest.approx(0.245, abs=5e-4)
    tau = df[["mqm", "bleurt20"]].corr(method="kendall").iloc[0, 1]
    assert tau == pytest.approx(0.29, abs=5e-3)


# ---------------------------------------------------------------------------------------------
# SummEval
# ---------------------------------------------------------------------------------------------

def test_summeval_columns_and_means():
    df = datasets.load_summeval()
    # README section 4: 100 documents x 16 systems
    assert df.shape[0] == 1600 and df["doc_id"].nunique() == 100
    assert sorted(df["system"].unique(), key=lambda s: int(s[1:])) == [
        "M0", "M1", "M2", "M5", "M8", "M9", "M10", "M11", "M12", "M13", "M14", "M15", "M17", "M20",
        "M22", "M23"]
    for dim in ["coherence", "consistency", "fluency", "relevance"]:
        experts = df[[f"expert_{dim}_{j}" for j in (1, 2, 3)]]
        assert all(experts[c].dtype == np.int64 for c in experts)
        assert experts.isin([1, 2, 3, 4, 5]).all().all()
        np.testing.assert_allclose(df[f"expert_{dim}"], experts.mean(axis=1), atol=1e-6)
        assert df[f"turker_{dim}"].between(1, 5).all()
    for col in ["rouge_1_f1", "rouge_l_f1", "bertscore_f1", "s3_pyr", "meteor", "moverscore",
                "qa_eval_f1", "bewte_f1", "autosummeng"]:
        assert df[col].dtype == np.float64 and df[col].notna().all()


def test_summeval_expert_means_match_bartscore_copy():
    # BARTScore's SummEval copy stores the mean of the 3 experts (README: equal on 6,400/6,400);
    # its first ten documents are copied into tests/reference (provenance in README.md there)
    ref = pd.read_csv(REFERENCE / "summeval_bartscore_expert_means.csv")
    df = datasets.load_summeval().set_index(["doc_id", "system"])
    checked = 0
    for row in ref.itertuples(index=False):
        for dim in ("coherence", "consistency", "fluency", "relevance"):
            value = getattr(row, dim)
            assert df.loc[(row.doc_id, row.system), f"expert_{dim}"] == pytest.approx(value, abs=1e-6)
            checked += 1
    assert checked == 10 * 16 * 4


# ---------------------------------------------------------------------------------------------
# WMT15 and WMT20 system level
# ---------------------------------------------------------------------------------------------

def test_wmt15_layout():
    df = datasets.load_wmt15()
    # README section 5: systems per language pair
    sizes = {"cs-en": 16, "de-en": 13, "fi-en": 14, "fr-en": 7, "ru-en": 13, "en-cs": 15, "en-de": 16,
             "en-fi": 10, "en-fr": 7, "en-ru": 10}
    assert df.groupby("lp").size().to_dict() == sizes
    assert list(df.columns[:3]) == ["lp", "system", "human"]
    # 23 metrics into English, 15 out of English
    n_metrics = df.drop(columns=["lp", "system", "human"]).notna().groupby(df["lp"]).any().sum(axis=1)
    assert n_metrics.to_dict() == {lp: (23 if lp.endswith("-en") else 15) for lp in sizes}
    de = datasets.load_wmt15("de-en")
    assert len(de) == 13 and de[["human", "bleu", "chrf3"]].notna().all().all()
    assert all(c.isidentifier() for c in df.columns)


def test_wmt15_value_from_source_file():
    # first data line of hum-sys.en-de.scores.csv: BEER en-de newstest2015 CIMS.4117 0.133551040562904 -0.035
    df = datasets.load_wmt15("en-de").set_index("system")
    assert df.loc["CIMS.4117", "beer"] == 0.133551040562904
    assert df.loc["CIMS.4117", "human"] == -0.035


def test_wmt20_layout_and_kendall():
    df = datasets.load_wmt20(testset=None)
    assert len(df) == 400
    assert list(df.columns[:7]) == ["lp", "testset", "system", "human", "human_raw", "is_human", "outlier"]
    assert df["is_human"].dtype == bool and df["outlier"].dtype == bool
    assert all(c.isidentifier() for c in df.columns)
    assert set(df["testset"]) == {"newstest2020", "newstestB2020", "newstestM2020", "newstestP2020"}
    ende = datasets.load_wmt20("en-de")
    assert len(ende) == 17 and ende["testset"].eq("newstest2020").all()
    # outlier list for en-de (outlier-systems-dict): Online-G.1556, WMTBiomedBaseline.388, zlabs-nlp.179
    assert sorted(ende.loc[ende["outlier"], "system"]) == ["Online-G.1556", "WMTBiomedBaseline.388",
                                                          "zlabs-nlp.179"]
    # first data row of DA-newstest2020-ende-sys-scores.csv: en-de PROMT_NMT.73 0.247014407933923 ... BLEU 31.7987
    promt = ende.set_index("system").loc["PROMT_NMT.73"]
    assert promt["human"] == 0.247014407933923 and promt["bleu"] == 31.7987


def test_wmt20_kendall_matches_task_file():
    # DA-ende-cor.csv holds the task's Kendall tau over MT systems (Human-* excluded); copied to
    # tests/reference/wmt20_reported_correlations.csv
    cor = pd.read_csv(REFERENCE / "wmt20_reported_correlations.csv")
    cor = cor[(cor["lp"] == "ende") & ~cor["outliers_excluded"]].set_index("metric")
    ende = datasets.load_wmt20("en-de")
    ende = ende[~ende["is_human"]]
    assert len(ende) == cor.loc["BLEU", "N"] == 14
    for metric, column in [("BLEU", "bleu"), ("chrF", "chrf"), ("esim", "esim"), ("COMET-2R", "comet_2r")]:
        tau = ende[["human", column]].corr(method="kendall").iloc[0, 1]
        assert tau == pytest.approx(cor.loc[metric, "Kendall"], abs=1e-12)


# ---------------------------------------------------------------------------------------------
# Spot-The-Bot
# ---------------------------------------------------------------------------------------------

# README section 3: entity ratings per system (all annotators) and % judged human
STB_ALL = {"lost_in_conversation": (1364, 41.7), "suckybot": (1367, 9.4), "model": (1372, 52.6),
           "bert_rank": (1354, 15.6), "kvmemnn": (1363, 37.2), "huggingface": (1356, 29.2),
           "human": (2070, 68.2)}
# after the black-list rule
STB_KEPT = {"bert_rank": 766, "huggingface": 785, "kvmemnn": 782, "lost_in_conversation": 757,
            "model": 773, "suckybot": 767, "human": 1188}


def test_stb_counts_match_readme():
    df = datasets.load_stb_convai2()
    assert list(df.columns) == ["system", "segment_length", "annotators", "n", "judged_human",
                                "fluent", "specific", "sensible"]
    assert set(df["segment_length"]) == {4, 6, 10}
    assert all(df[c].dtype == np.int64 for c in ["segment_length", "n", "judged_human"])
    totals = df.groupby(["annotators", "system"])[["n", "judged_human"]].sum()
    for system, (n, pct) in STB_ALL.items():
        assert totals.loc[("all", system), "n"] == n
        assert 100 * totals.loc[("all", system), "judged_human"] / n == pytest.approx(pct, abs=0.05)
    for system, n in STB_KEPT.items():
        assert totals.loc[("kept", system), "n"] == n
    # 2,909 annotations kept, each rating two entities
    assert totals.loc["kept", "n"].sum() == 2 * 2909
    assert totals.loc["all", "n"].sum() == 2 * 5123
    # each segment length holds about a third of the ratings
    share = df[df["annotators"] == "kept"].groupby("segment_length")["n"].sum() / (2 * 2909)
    assert share.between(0.25, 0.42).all()
    assert (df["judged_human"] <= df["n"]).all()


def test_stb_ratings_add_up_to_the_counts():
    # the rows behind the shipped counts: the same totals per system and segment length
    rows = datasets.load_stb_convai2_ratings()
    counts = datasets.load_stb_convai2()
    for subset, part in (("all", rows), ("kept", datasets.load_stb_convai2_ratings("kept"))):
        got = part.groupby(["system", "segment_length"])["judged_human"].agg(["size", "sum"])
        want = counts[counts["annotators"] == subset].set_index(["system", "segment_length"])
        assert got["size"].to_dict() == want["n"].to_dict()
        assert got["sum"].to_dict() == want["judged_human"].to_dict()
    assert rows["annotator"].nunique() == 47
    assert rows.loc[rows["kept"] == 1, "annotator"].nunique() == 47 - 25
    assert (rows["is_human"] == (rows["system"] == "human")).all()
    # the docstring's account: 975 conversations in the sample, 846 annotated (171 of two
    # humans, 675 of two bots, none mixed), 5,123 annotations (two rows each), 2,909 kept
    kind = rows.groupby("conversation")["is_human"].agg(["min", "max"])
    assert rows["conversation"].max() + 1 == 975 and len(kind) == 846
    assert (kind["min"] == 1).sum() == 171 and (kind["max"] == 0).sum() == 675
    assert len(rows) == 2 * 5123 and (rows["kept"] == 1).sum() == 2 * 2909


def test_stb_black_list_drops_25_of_47():
    # README section 3: the black-list rule drops 25 of the 47 annotators (counted from the raw
    # annotation dump by data-raw/extract_references.py, tests/reference/stb_black_list_counts.csv);
    # the shipped ratings keep every annotator's rows and mark the dropped ones' as not kept
    counts = pd.read_csv(REFERENCE / "stb_black_list_counts.csv").iloc[0]
    assert (counts["n_annotators"], counts["n_dropped"]) == (47, 25)
    rows = datasets.load("stb_convai2_ratings")
    kept = rows.groupby("annotator")["kept"].agg(["min", "max"])
    assert len(kept) == counts["n_annotators"]
    assert (kept["max"] == 0).sum() == counts["n_dropped"]
    assert (kept["min"] == 1).sum() == counts["n_annotators"] - counts["n_dropped"]


# ---------------------------------------------------------------------------------------------
# registry, errors, rebuild
# ---------------------------------------------------------------------------------------------

def test_describe_and_load():
    d = datasets.describe()
    assert d["name"].tolist() == ["wmt21_ende", "wmt21_enru", "summeval", "wmt15", "wmt20", "stb_convai2",
                                  "stb_convai2_ratings"]
    assert d.set_index("name")["rows"].to_dict() == {
        "wmt21_ende": 17034, "wmt21_enru": 16032, "summeval": 1600, "wmt15": 121, "wmt20": 400,
        "stb_convai2": 42, "stb_convai2_ratings": 10246}
    # a few MB at most in total
    assert d["bytes"].sum() < 2_000_000
    assert datasets.load("wmt15").equals(datasets.load_wmt15())
    assert datasets.load_wmt15().attrs["dataset"] == "wmt15"
    assert "Apache-2.0" in datasets.load_wmt21_ende().attrs["licence"]


def test_bad_arguments_name_the_argument():
    with pytest.raises(ParameterError, match="lp='xx-yy'"):
        datasets.load_wmt15("xx-yy")
    with pytest.raises(ParameterError, match="testset="):
        datasets.load_wmt20(testset="newstest2019")
    with pytest.raises(ParameterError, match="annotators="):
        datasets.load_stb_convai2("some")
    with pytest.raises(ParameterError, match="name='nope'"):
        datasets.load("nope")


def test_a_switch_that_is_no_bool_is_refused():
    # Guards: annotated_only="False" (a string, so true) kept only the 8,959 annotated rows of
    # the 17,034, and every_row="no" read every row
    from binaryeval.errors import InputTypeError

    for call in (lambda: datasets.load_wmt21_ende(annotated_only="False"),
                 lambda: datasets.load_wmt21_enru(annotated_only="False"),
                 lambda: datasets.load("wmt20", every_row="no")):
        with pytest.raises(InputTypeError, match="pass True or False"):
            call()
    assert len(datasets.load_wmt21_ende(annotated_only=False)) == 17034
    assert len(datasets.load_wmt21_ende(annotated_only=True)) == 17 * 527
    assert len(datasets.load("wmt20", every_row=False)) == 237


def test_licence_file_covers_every_dataset():
    text = (REPO / "binaryeval" / "datasets" / "LICENSES.md").read_text()
    for name in datasets.describe()["name"]:
        assert f"{name}.csv.gz" in text


def test_snake_names():
    build = build_module()
    assert build.snake("chrF++") == "chrf_pp"
    assert build.snake("COMET-2R") == "comet_2r"
    assert build.snake("VERTa-70Adeq30Flu") == "verta_70adeq30flu"
    assert build.snake("qa-eval_em") == "qa_eval_em"


def test_shipped_files_are_the_rebuild_from_the_raw_data():
    # data-raw/extract_references.py rebuilds every dataset from the raw data with
    # data-raw/build_datasets.py (sacrebleu 2.6.0 for the sentence scores) and keeps the SHA-256
    # of each rebuilt file (tests/reference/datasets_rebuilt_sha256.csv): the shipped files are
    # those bytes, so none was edited by hand or built from other inputs
    import hashlib

    digests = pd.read_csv(REFERENCE / "datasets_rebuilt_sha256.csv").set_index("name")["sha256"]
    assert sorted(digests.index) == sorted(datasets.describe()["name"])
    for name, digest in digests.items():
        assert hashlib.sha256(datasets.data_path(name).read_bytes()).hexdigest() == digest, name


def test_files_are_deterministic_gzip():
    # zero timestamp in the gzip header, so rebuilding gives identical bytes
    for name in datasets.describe()["name"]:
        raw = datasets.data_path(name).read_bytes()
        assert raw[:2] == b"\x1f\x8b" and raw[4:8] == b"\x00\x00\x00\x00"
        assert gzip.decompress(raw).startswith(b"system,") or gzip.decompress(raw)[:3] in (b"lp,", b"doc")


def test_wmt15_wmt20_metric_direction_as_documented():
    # load_wmt15 documents ter/wer/per/cder as turned round (higher is better) and bs as lower is
    # better; expected r from R's cor.test on the source files (reference wmt15_single_r_ci_R.csv,
    # cs-en: TER 0.907422682424864, BS -0.97572346627155)
    ref = pd.read_csv(REFERENCE / "wmt15_single_r_ci_R.csv")
    ref = ref[ref["lp"] == "cs-en"].set_index("metric")["r"]
    cs = datasets.load_wmt15("cs-en")
    for col, name in [("ter", "TER"), ("wer", "WER"), ("per", "PER"), ("cder", "CDER"), ("bs", "BS")]:
        assert cs["human"].corr(cs[col]) == pytest.approx(ref[name], abs=1e-12)
    assert ref["TER"] > 0 and ref["BS"] < 0
    # load_wmt20 documents ter as -TER: every stored value is negative (a TER is >= 0)
    assert (datasets.load_wmt20(testset=None)["ter"].dropna() < 0).all()


def test_wmt21_enru_documented_duplicate_surface_metrics():
    # load_wmt21_enru warns that the source's traditional_metrics files are byte-identical for
    # {Manifold, NiuTrans} and {Online-W, Online-Y, metricsystem3} (checked with md5sum on
    # traditional_metrics/*.tsv); no other column has systems with identical scores on every segment
    df = datasets.load_wmt21_enru()
    for col in ["chrf2", "bleu", "ter", "bleurt20", "comet_mqm", "comet_qe", "mqm"]:
        wide = df.pivot(index="seg_id", columns="system", values=col).dropna(axis=1, how="all")
        groups = wide.T.groupby(list(wide.index), dropna=False).groups
        dup = sorted(sorted(map(str, g)) for g in groups.values() if len(g) > 1)
        expected = [["Manifold", "NiuTrans"], ["Online-W", "Online-Y", "metricsystem3"]] \
            if col in ("chrf2", "bleu", "ter") else []
        assert dup == expected, col


def test_simulate_battles_has_the_stated_truth():
    """The docstring's probabilities, within 4 binomial standard errors on 200,000 rows."""
    from binaryeval.datasets import simulate_battles

    df = simulate_battles(200_000, seed=1)
    pd.testing.assert_frame_equal(simulate_battles(50, seed=3), simulate_battles(50, seed=3))
    shown_first = df["shown"] == df["a"]
    human = np.where(shown_first, df["human"], -df["human"])   # in the order shown
    judge = np.where(shown_first, df["judge"], -df["judge"])

    def near(mask, want):
        got, n = mask.mean(), len(mask)
        assert abs(got - want) <= 4 * np.sqrt(want * (1 - want) / n), (got, want)

    near(df["human"].to_numpy() == 1, 0.4)
    near(df["human"].to_numpy() == 0, 0.2)
    tie = human == 0
    near(judge[tie] == 1, 0.5)
    near(judge[tie] == 0, 0.3)
    for length, right in (("short", 0.85), ("long", 0.6)):
        sure = (human != 0) & (df["length"].to_numpy() == length)
        near(judge[sure] == human[sure], right)
        near(judge[sure] == 0, 0.1)
    with pytest.raises(ParameterError, match="n=0"):
        simulate_battles(0)


def test_simulate_ratings_has_the_stated_truth():
    """The docstring's accuracies, within 4 binomial standard errors on 40,000 outputs."""
    from binaryeval.datasets import simulate_ratings

    df = simulate_ratings(20_000, seed=2)
    pd.testing.assert_frame_equal(simulate_ratings(20, seed=5), simulate_ratings(20, seed=5))
    assert (df.groupby("item").size() == 3).all()
    assert not df.duplicated(["item", "annotator"]).any()
    # the truth is not in the frame: two raters agree with P = a1 a2 + (1 - a1)(1 - a2), and a
    # rater (or the metric) says 1 with P = alpha a + (1 - alpha)(1 - a)
    wide = df.pivot(index="item", columns="annotator", values="rating")
    acc = {"r1": 0.9, "r2": 0.85, "r3": 0.75, "r4": 0.65}

    def near(values, want):
        n = len(values)
        assert abs(values.mean() - want) <= 4 * np.sqrt(want * (1 - want) / n), (values.mean(),
                                                                                   want)

    for a, b in (("r1", "r2"), ("r1", "r4"), ("r3", "r4")):
        both = wide[[a, b]].dropna()
        near((both[a] == both[b]).to_numpy(), acc[a] * acc[b] + (1 - acc[a]) * (1 - acc[b]))
    for system, alpha in (("A", 0.7), ("B", 0.45)):
        r1 = df[(df.system == system) & (df.annotator == "r1")]["rating"].to_numpy()
        near(r1 == 1, alpha * 0.9 + (1 - alpha) * 0.1)
        metric = df[df.system == system].drop_duplicates("item")["metric"].to_numpy()
        near(metric == 1, alpha * 0.8 + (1 - alpha) * 0.2)
    with pytest.raises(ParameterError, match="n=0"):
        simulate_ratings(0)


def test_the_command_line_reads_and_exports_every_row_the_listing_counts(tmp_path, capsys):
    # Guards: `binaryeval datasets` listed wmt20 with 400 rows, while `--data wmt20` and the
    # export held the loader's default selection (newstest2020, 237 rows), so a --query for
    # another test set found no rows
    from binaryeval.cli import main

    listed = datasets.describe().set_index("name")["rows"]
    assert main(["datasets", "wmt20", "--output-dir", str(tmp_path)]) == 0
    exported = pd.read_csv(tmp_path / "wmt20.csv")
    assert len(exported) == listed["wmt20"] == len(datasets.load_wmt20(testset=None))
    assert len(datasets.load("wmt20")) == len(datasets.load_wmt20())  # the loader's default
    table = be.read_table("wmt20", "testset == 'newstestB2020' and lp == 'en-de'")
    assert len(table) == len(datasets.load_wmt20("en-de", testset="newstestB2020")) > 0
    for name in listed.index:
        assert len(datasets.load(name, every_row=True)) == listed[name], name
