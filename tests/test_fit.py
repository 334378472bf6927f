"""be.fit / be.fit_counts / compare / roc: real data, closed forms and the input checks."""

import json
import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import REFERENCE
from scipy import stats

import binaryeval as be
from binaryeval.errors import (
    ContradictionWarning,
    CountsError,
    DataError,
    DirectionWarning,
    FormulaError,
    IdentifiabilityWarning,
    InputTypeError,
    ParameterError,
)

# thesis Table 5.1 / paper showcase (tests/reference/paper_tables.md): modes n+/n of the human-only
# posteriors on WMT21 en-de, adequate iff MQM == 0, 527 rated segments per system
PUBLISHED_MODES = {"Facebook-AI": [0.67], "VolcTrans-GLAT": [0.64, 0.65], "Online-W": [0.64],
                   "Nemo": [0.64], "VolcTrans-AT": [0.61], "UEdin": [0.59], "HuaweiTSC": [0.58],
                   "eTranslation": [0.51], "ref-A": [0.65], "ref-B": [0.68], "ref-D": [0.64]}
# data README: adequate counts of 527
ADEQUATE = {"Facebook-AI": 353, "HuaweiTSC": 308, "Nemo": 336, "Online-W": 337, "UEdin": 310,
            "VolcTrans-AT": 324, "VolcTrans-GLAT": 340, "eTranslation": 271, "ref-A": 344,
            "ref-B": 358, "ref-C": 357, "ref-D": 339}


@pytest.fixture(scope="module")
def ende():
    from binaryeval.datasets import load_wmt21_ende

    df = load_wmt21_ende()
    return df[~df["system"].str.startswith("metricsystem")]


def test_wmt21_human_only_matches_thesis_table(ende):
    res = be.fit("I(mqm == 0) ~ 1 | system", ende)
    table = res.to_frame()
    for system, modes in PUBLISHED_MODES.items():
        assert round(table.loc[system, "mode"], 2) in modes, system
        n_pos = ADEQUATE[system]
        ref = stats.beta(n_pos + 1, 527 - n_pos + 1)
        assert table.loc[system, "n_human"] == 527
        assert table.loc[system, "estimate"] == pytest.approx(ref.mean(), abs=1e-14)
        assert table.loc[system, "std_error"] == pytest.approx(ref.std(), abs=1e-14)
    # Facebook-AI 0.67 / 0.020 as printed in the thesis
    assert round(table.loc["Facebook-AI", "std_error"], 3) == 0.020
    # nothing dropped silently: the 475 unrated segments of each system are counted
    assert res.n_rows == len(ende)
    assert res.excluded == {"no rating (human and metric missing)": 475 * ende["system"].nunique()}


def test_mixed_fit_corrects_naive_estimates(ende):
    # 100 human ratings per system (same segments), every other segment metric-only;
    # corrected means stay near the all-human ones, the naive classify-and-count ones do not
    full = be.fit("I(mqm == 0) ~ 1 | system", ende).to_frame()
    rng = np.random.default_rng(1)
    d = ende[~ende["system"].isin(["ref-B", "ref-C"])].copy()
    segs = np.sort(d.loc[d["mqm"].notna(), "seg_id"].unique())
    keep = rng.choice(segs, 100, replace=False)
    d.loc[~d["seg_id"].isin(keep), "mqm"] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IdentifiabilityWarning)
        res = be.fit("I(mqm == 0) ~ chrf | system", d, threshold="balanced")
    t = res.to_frame().join(full[["estimate"]].rename(columns={"estimate": "full"}))
    z = (t["estimate"] - t["full"]) / t["std_error"]
    assert (z.abs() < 2.5).all()
    corrected_gap = (t["estimate"] - t["full"]).abs().mean()
    naive_gap = (t["naive"] - t["full"]).abs().mean()
    assert naive_gap > 2 * corrected_gap
    # the metric scores human references against another reference: naive is far off there
    assert t.loc["ref-A", "full"] - t.loc["ref-A", "naive"] > 0.2
    assert abs(z["ref-A"]) < 2.5
    assert t.loc["Facebook-AI", "n_paired"] == 100 and t.loc["Facebook-AI", "n_metric"] == 902


def test_fit_counts_equals_fit():
    rng = np.random.default_rng(3)
    n = 600
    truth = rng.random(n) < 0.55
    metric = np.where(truth, rng.random(n) < 0.85, rng.random(n) < 0.25).astype(float)
    human = truth.astype(float)
    human[200:] = np.nan
    metric[150:200] = np.nan  # human-only rows
    df = pd.DataFrame({"h": human, "m": metric, "g": np.where(np.arange(n) % 2, "a", "b")})
    res = be.fit("h ~ m | g", df)
    counts = {}
    for g, sub in df.groupby("g"):
        both = sub.dropna()
        counts[g] = {"human_pos": int(((sub.h == 1) & sub.m.isna()).sum()),
                     "human_total": int((sub.h.notna() & sub.m.isna()).sum()),
                     "metric_pos": int(((sub.m == 1) & sub.h.isna()).sum()),
                     "metric_total": int((sub.m.notna() & sub.h.isna()).sum()),
                     "tp": int(((both.h == 1) & (both.m == 1)).sum()),
                     "fn": int(((both.h == 1) & (both.m == 0)).sum()),
                     "tn": int(((both.h == 0) & (both.m == 0)).sum()),
                     "fp": int(((both.h == 0) & (both.m == 1)).sum())}
    res2 = be.fit_counts(counts)
    pd.testing.assert_series_equal(res.to_frame()["estimate"], res2.to_frame()["estimate"],
                                   check_names=False, atol=1e-14, rtol=0)
    assert res.counts.loc["a", "human_total"] == res2.counts.loc["a", "human_total"]


def test_fit_counts_reproduces_authors_synthetic():
    # bayes_authors_nuts_synthetic.json S1: human [113, 200] (the labelled set), rho [92, 113],
    # eta [64, 87], metric [5575, 10000]; NUTS mean 0.5559, sd 0.0295 (MC tolerance)
    path = REFERENCE / "bayes_authors_nuts_synthetic.json"
    s1 = json.loads(path.read_text())["results"][0]
    res = be.fit_counts({"human_pos": 0, "human_total": 0, "metric_pos": 5575,
                         "metric_total": 10000, "tp": 92, "fn": 21, "tn": 64, "fp": 23})
    row = res.to_frame().iloc[0]
    assert abs(row["estimate"] - s1["mean"]) < 0.002
    assert abs(row["std_error"] / s1["sd"] - 1) < 0.02
    assert row["n_human"] == 200 and row["n_paired"] == 200


def test_synthetic_dataset_end_to_end():
    # synthetic_binary_dataset.csv: 200 labelled + 10000 metric-only rows; counts in the json
    path = REFERENCE / "synthetic_binary_dataset.csv"
    df = pd.read_csv(path)
    counts = json.loads((REFERENCE / "synthetic_binary_counts.json").read_text())
    res = be.fit("human ~ metric", df)
    c = res.counts.iloc[0]
    assert (c["tp"], c["fn"], c["tn"], c["fp"]) == (counts["labeled_TP"], counts["labeled_FN"],
                                                    counts["labeled_TN"], counts["labeled_FP"])
    assert c["metric_pos"] == counts["unlabeled_metric_pos"]
    lo, hi = res.interval().iloc[0]
    assert lo < counts["alpha_true"] < hi


def test_interval_labels_match_computation():
    res = be.fit_counts({"a": {"human_pos": 30, "human_total": 50},
                         "b": {"human_pos": 20, "human_total": 50}}, level=0.9)
    iv = res.interval()
    assert iv.attrs == {"level": 0.9, "kind": "eti"}
    assert iv.loc["a", "lower"] == pytest.approx(stats.beta(31, 21).ppf(0.05), abs=1e-12)
    text = res.summary().as_text()
    # the summary's labels are to_frame()'s names; the level and kind are stated once
    assert "lower, upper: 90% equal-tailed credible interval" in text
    assert list(res.summary().tables[0][1].columns[-2:]) == ["lower", "upper"]
    hdi = res.interval(0.5, kind="hdi")
    assert hdi.attrs["kind"] == "hdi"
    post = res.posterior("a")
    assert post.cdf(hdi.loc["a", "upper"]) - post.cdf(hdi.loc["a", "lower"]) == pytest.approx(0.5)


def test_compare_bayes_and_z():
    res = be.fit_counts({"A": {"human_pos": 353, "human_total": 527},
                         "B": {"human_pos": 308, "human_total": 527},
                         "C": {"human_pos": 340, "human_total": 527}})
    cmp = res.compare()
    row = cmp.to_frame().set_index(["group_1", "group_2"]).loc[("A", "B")]
    # exact two-Beta probability by one-dimensional quadrature
    a, b = stats.beta(354, 175), stats.beta(309, 220)
    from scipy import integrate

    exact, _ = integrate.quad(lambda x: a.pdf(x) * b.cdf(x), 0, 1, epsabs=1e-13, points=[0.6])
    assert row["prob_greater"] == pytest.approx(exact, abs=1e-9)
    z = (a.mean() - b.mean()) / math.sqrt(a.var() + b.var())
    assert row["statistic"] == pytest.approx(z, rel=1e-12)
    zt = res.compare(method="z").to_frame().set_index(["group_1", "group_2"])
    assert zt.loc[("A", "B"), "p_value"] == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)
    m = cmp.matrix()
    assert m.loc["B", "A"] == pytest.approx(1 - m.loc["A", "B"], abs=1e-15)
    assert np.isnan(m.loc["A", "A"])
    # statsmodels' Holm adjustment over the three pairs
    from statsmodels.stats.multitest import multipletests

    holm = res.compare(method="z", adjust="holm").to_frame()
    np.testing.assert_allclose(holm["p_adjusted"],
                               multipletests(zt["p_value"].to_numpy(), method="holm")[1])


def test_adjustments_match_r_p_adjust():
    # R 4.2.2 p.adjust on eight p-values (tests/reference/p_adjust_R.csv), through the rows of
    # a comparison: a pair's Bayesian p-value is 2 min(P, 1 - P), so P = p / 2 gives p exactly
    from binaryeval._comparison import finish
    from binaryeval.favoritism.ranking import _adjusted

    ref = pd.read_csv(REFERENCE / "p_adjust_R.csv")
    n = len(ref)
    rows = pd.DataFrame({"group_1": [f"a{i}" for i in range(n)],
                         "group_2": [f"b{i}" for i in range(n)], "diff": 0.1,
                         "std_error": 0.05, "lower": 0.0, "upper": 0.2,
                         "prob_greater": ref["p"] / 2})
    names = {"bonferroni": "bonferroni", "holm": "holm", "hochberg": "simes-hochberg",
             "hommel": "hommel", "BH": "fdr_bh", "BY": "fdr_by"}
    for r_name, ours in names.items():
        out = finish(rows, groups=[], method="bayes", sig_level=0.05, adjust=ours, level=0.95,
                     group_name="system", quantity="P", interval="eti").to_frame()
        np.testing.assert_allclose(out["p_value"], ref["p"], rtol=1e-15)
        np.testing.assert_allclose(out["p_adjusted"], ref[r_name], rtol=1e-13, err_msg=r_name)
        np.testing.assert_array_equal(out["significant"], ref[r_name] <= 0.05)
        # the Favi-Score ranking adjusts through the same function
        np.testing.assert_allclose(_adjusted(ref["p"].to_numpy(), 0.05, ours), ref[r_name],
                                   rtol=1e-13)
        # R's name, where it differs, is answered with ours
        if r_name != ours:
            with pytest.raises(be.errors.ParameterError, match=f"is adjust='{ours}' here"):
                finish(rows, groups=[], method="bayes", sig_level=0.05, adjust=r_name,
                       level=0.95, group_name="system", quantity="P", interval="eti")


def test_compare_summary_labels_pairs():
    # WMT21 en-de adequate counts of 527 (Facebook-AI 353, HuaweiTSC 308): the printed table
    # must name each pair in one label, not as a tuple of the two group names
    res = be.fit_counts({"Facebook-AI": {"human_pos": 353, "human_total": 527},
                         "HuaweiTSC": {"human_pos": 308, "human_total": 527}})
    text = res.compare().summary().as_text()
    assert "Facebook-AI vs HuaweiTSC" in text
    assert "('Facebook-AI'" not in text
    assert "<td>Facebook-AI vs HuaweiTSC</td>" in res.compare().summary().as_html().replace(
        "<th>", "<td>").replace("</th>", "</td>")


def test_fit_accepts_repeated_index():
    # Spot-The-Bot style counts expanded to one row per rating with df.index.repeat: the index
    # repeats. Human ratings only, so the posterior is Beta(1 + k, 1 + n - k) exactly
    # (k, n = 30, 249 and 19, 252: load_stb_convai2("kept"), bert_rank at 4 and 6 turns).
    counts = pd.DataFrame({"g": ["a", "b"], "n": [249, 252], "k": [30, 19]})
    rows = counts.loc[counts.index.repeat(counts["n"])].copy()
    rows["judged"] = np.concatenate([np.r_[np.ones(k), np.zeros(n - k)]
                                     for n, k in zip(counts["n"], counts["k"], strict=True)])
    rows["m"] = rows["judged"]
    assert not rows.index.is_unique
    res = be.fit("judged ~ 1 | g", rows)
    for g, n, k in zip(counts["g"], counts["n"], counts["k"], strict=True):
        assert res.posterior(g).mean() == pytest.approx((1 + k) / (2 + n), rel=1e-12)
    # a paired metric with a repeated index: the same counts as on a fresh index
    rep = be.fit("judged ~ m | g", rows).counts
    fresh = be.fit("judged ~ m | g", rows.reset_index(drop=True)).counts
    pd.testing.assert_frame_equal(rep, fresh)
    assert int(rep.loc["a", "tp"]) == 30 and int(rep.loc["a", "tn"]) == 219


def test_summary_of_human_only_fit_omits_metric_parts():
    # WMT21 en-de adequate counts of 527 (Facebook-AI 353, eTranslation 271), human ratings
    # only: the header must not claim that rho/eta were estimated, and the metric columns
    # (all NaN) are left out of the printed table while to_frame keeps them
    res = be.fit_counts({"Facebook-AI": {"human_pos": 353, "human_total": 527},
                         "eTranslation": {"human_pos": 271, "human_total": 527}})
    s = res.summary()
    assert s.info["rates"] == "not used (human ratings only)"
    assert "prior (rho, eta)" not in s.info
    assert list(s.tables[0][1].columns[-2:]) == ["lower", "upper"]
    assert not any("naive" in n for n in s.notes)
    assert res.to_frame()[["naive", "rho", "eta"]].isna().all().all()
    # with a metric the header and note stay
    mixed = be.fit_counts({"a": {"human_pos": 10, "human_total": 20, "metric_pos": 50,
                                 "metric_total": 100, "tp": 8, "fn": 2, "tn": 7, "fp": 3}})
    assert mixed.summary().info["rates"] == "estimated per group from its paired rows"
    assert "naive" in mixed.summary().tables[0][1].columns


def test_roc_against_sklearn_reference():
    # roc_threshold_sklearn.json: sklearn roc_curve(drop_intermediate=False) and the threshold
    # minimising |TPR - TNR|
    path = REFERENCE / "roc_threshold_data.csv"
    df = pd.read_csv(path)
    ref = json.loads((REFERENCE / "roc_threshold_sklearn.json").read_text())
    res = be.roc("human ~ score", df)
    curve = res.curves["pooled"]
    full = ref["drop_intermediate=False"]
    assert len(curve) == full["n_thresholds"]
    assert res.auc()["pooled"] == pytest.approx(ref["auc"], abs=1e-12)
    th = res.thresholds().set_index("rule").loc["balanced"]
    assert th["threshold"] == full["threshold"]
    assert th["rho"] == pytest.approx(full["rho_tpr"], abs=1e-15)
    assert th["eta"] == pytest.approx(full["eta_tnr"], abs=1e-15)
    c = ref["counts_at_threshold"]
    assert (th["tp"], th["fn"], th["tn"], th["fp"]) == (c["TP"], c["FN"], c["TN"], c["FP"])
    # AUC equals the Mann-Whitney U statistic / (n_pos n_neg)
    u = stats.mannwhitneyu(df.score[df.human == 1], df.score[df.human == 0]).statistic
    assert res.auc()["pooled"] == pytest.approx(u / (288 * 212), abs=1e-12)


def test_roc_of_a_lower_is_better_score_is_the_mirrored_curve():
    # TER-like penalty = -score: with lower_is_better the curve, the AUC and the counts at each
    # rule are those of the score, and the thresholds are the score's negated (its own units)
    df = pd.read_csv(REFERENCE / "roc_threshold_data.csv").assign(
        group=lambda d: np.where(np.arange(len(d)) % 3 == 0, "sys10", "sys2"))
    df["penalty"] = -df["score"]
    up = be.roc("human ~ score | group", df)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        down = be.roc("human ~ penalty | group", df, lower_is_better=["penalty"])
    pd.testing.assert_series_equal(up.auc(), down.auc())
    a, b = up.thresholds(), down.thresholds()
    assert np.array_equal(a["threshold"].to_numpy(), -b["threshold"].to_numpy())
    cols = ["group", "rule", "rho", "eta", "tp", "fn", "tn", "fp"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    assert down.summary().info["positive when"] == "score <= threshold"
    # groups in natural order, the pooled curve last
    assert list(down.summary().tables[0][1].index) == ["sys2", "sys10", "pooled"]
    # the same threshold as fit's balanced rule on the penalty
    fit = be.fit("human ~ penalty", df, threshold="balanced", lower_is_better="penalty")
    assert fit.threshold == b.set_index(["group", "rule"]).loc[("pooled", "balanced"), "threshold"]
    # without the direction the curve runs below the diagonal: one warning naming the fix
    with pytest.warns(DirectionWarning, match=r"lower_is_better=\['penalty'\]") as caught:
        wrong = be.roc("human ~ penalty | group", df)
    assert len(caught) == 1 and caught[0].filename == __file__
    assert wrong.auc()["pooled"] == pytest.approx(1 - up.auc()["pooled"], abs=1e-12)


def test_threshold_balanced_uses_roc_rule():
    path = REFERENCE / "roc_threshold_data.csv"
    df = pd.read_csv(path)
    res = be.fit("human ~ score", df, threshold="balanced")
    c = res.counts.iloc[0]
    assert (c["tp"], c["fn"], c["tn"], c["fp"]) == (209, 79, 154, 58)
    # a number (not a string), with the rule beside it, and a column of to_frame()
    assert res.threshold == 0.6 and res.threshold_rule == "balanced"
    assert res.to_frame()["threshold"].iloc[0] == 0.6


def test_identifiability_warning_and_flip():
    counts = {"human_pos": 0, "human_total": 0, "metric_pos": 500, "metric_total": 1000,
              "tp": 20, "fn": 30, "tn": 20, "fp": 30}
    with pytest.warns(IdentifiabilityWarning, match=r"rho \+ eta <= 1 is high: all \(0\.9") as w:
        res = be.fit_counts(counts)
    assert len(w) == 1 and "flip it" in str(w[0].message)
    assert res.unidentified["all"] > 0.9
    with pytest.warns(IdentifiabilityWarning, match="no information about alpha"):
        be.fit_counts({"human_pos": 1, "human_total": 2, "metric_pos": 3, "metric_total": 9},
                      rates={"rho": 0.3, "eta": 0.4})


def test_known_and_pooled_rates():
    counts = pd.DataFrame({"human_pos": [0, 0], "human_total": [0, 0], "metric_pos": [600, 400],
                           "metric_total": [1000, 1000], "tp": [40, 0], "fn": [10, 0],
                           "tn": [40, 0], "fp": [10, 0]}, index=["x", "y"])
    with pytest.raises(DataError, match="group 'y' has 1000 metric-only ratings but no paired"):
        be.fit_counts(counts)
    pooled = be.fit_counts(counts, rates="pooled")
    # the paired rows' pooled Beta(41, 11); the model's posterior also reads group y's metric
    assert pooled.paired_rates().loc["y", "rho"] == pytest.approx(41 / 52)
    assert pooled.rates().loc["y", "rho"] != pytest.approx(41 / 52, abs=1e-3)
    known = be.fit_counts(counts, rates={"rho": 0.8, "eta": 0.8})
    # known rates: moment check against the 1-D posterior by quadrature
    from scipy import integrate

    def dens(a):  # the paired rows' 50 of 100 human positives count for alpha too
        p = 0.8 * a + 0.2 * (1 - a)
        return math.exp(600 * math.log(p) + 400 * math.log1p(-p) + 50 * math.log(a)
                        + 50 * math.log1p(-a) + 740)
    z, _ = integrate.quad(dens, 0, 1, points=[0.67], epsrel=1e-12, limit=200)
    m, _ = integrate.quad(lambda a: a * dens(a), 0, 1, points=[0.67], epsrel=1e-12, limit=200)
    assert known.posterior("x").mean() == pytest.approx(m / z, abs=1e-10)


@pytest.mark.parametrize("frame, formula, kwargs, error, match", [
    (pd.DataFrame({"h": [1, 0], "m": [1, 0]}), "h ~ metric", {}, FormulaError, "unknown name 'metric'"),
    (pd.DataFrame({"h": [1, 2], "m": [1, 0]}), "h ~ m", {}, DataError, "column 'h' .* holds 2.0"),
    (pd.DataFrame({"h": ["yes", "no"], "m": [1, 0]}), "h ~ m", {}, InputTypeError, "'yes'"),
    (pd.DataFrame({"h": [1, 0], "m": [0.3, 0.9]}), "h ~ m", {}, DataError, "scalar .*threshold="),
    (pd.DataFrame({"h": [np.nan, np.nan], "m": [1, 0]}), "h ~ m", {}, DataError, "every row"),
    (pd.DataFrame({"h": [1, 0, np.nan], "m": [1, 0, np.nan], "s": ["a", "a", "b"]}), "h ~ m | s",
     {}, DataError, "group 'b' has no rated rows"),
    (pd.DataFrame({"h": [1, 0, np.nan], "m": [1, 0, 1], "s": ["a", "a", "b"]}), "h ~ m | s",
     {}, DataError, "group 'b' has 1 metric-only ratings but no paired"),
    (pd.DataFrame({"h": [1, 0], "m": [1, 0]}), "h ~ m", {"rates": "magic"}, ParameterError,
     "rates='magic'"),
    (pd.DataFrame({"h": [1, 0], "m": [0.2, 0.4]}), "h ~ m", {"threshold": "median"},
     ParameterError, "threshold='median'"),
    (pd.DataFrame({"h": [1, 0], "m": [1, 0]}), "h ~ m", {"level": 1.5}, ParameterError, "level=1.5"),
    (pd.DataFrame({"h": [1, 0], "m": [1, np.inf]}), "h ~ m", {"threshold": 0.5}, DataError,
     "infinite value inf .*finite score"),
])
def test_fit_input_errors(frame, formula, kwargs, error, match):
    with pytest.raises(error, match=match):
        be.fit(formula, frame, **kwargs)


@pytest.mark.parametrize("counts, match", [
    ({"human_pos": -1, "human_total": 4}, "human_pos.*-1"),
    ({"human_pos": 5, "human_total": 4}, "exceeds human_total"),
    ({"human_pos": 1.5, "human_total": 4}, "1.5"),
    ({"humans": 1}, "unknown column 'humans'"),
])
def test_fit_counts_errors(counts, match):
    with pytest.raises(CountsError, match=match):
        be.fit_counts(counts)


def test_result_protocol_and_plots():
    import matplotlib.pyplot as plt

    res = be.fit_counts({"A": {"human_pos": 30, "human_total": 50, "metric_pos": 300,
                               "metric_total": 500, "tp": 25, "fn": 5, "tn": 15, "fp": 5},
                         "B": {"human_pos": 20, "human_total": 50, "metric_pos": 200,
                               "metric_total": 500, "tp": 15, "fn": 5, "tn": 25, "fp": 5}})
    assert "Binary evaluation model" in str(res)
    assert "<table" in res._repr_html_() and "tabular" in res.summary().as_latex()
    frame = res.to_frame()
    assert list(frame.columns) == ["n_human", "n_paired", "n_metric", "estimate", "std_error",
                                   "mode", "lower", "upper", "naive", "rho", "rho_lower",
                                   "rho_upper", "eta", "eta_lower", "eta_upper", "n_eff",
                                   "metric_worth"]
    assert frame.loc["A", "n_human"] == 100 and frame.loc["A", "n_paired"] == 50
    for kind in ("posterior", "interval", "rates"):
        ax = res.plot(kind=kind)
        assert ax.has_data()
    # the heatmap shows P(alpha_i > alpha_j) in its cells: the annotations are the matrix's
    # values, by the package's rule for probabilities ("> 0.99" rather than "1.00")
    from binaryeval._format import format_probability

    comp = res.compare()
    ax = comp.plot()
    cells = sorted(t.get_text() for t in ax.texts)
    expected = comp.matrix().astype(float).to_numpy()
    assert cells == sorted(format_probability(v, 2)
                           for v in expected[~np.isnan(expected)])
    assert [t.get_text() for t in ax.get_xticklabels()] == list(comp.matrix().columns)
    plt.close("all")
    with pytest.raises(ParameterError, match="group 'Z'"):
        res.posterior("Z")


def test_counts_round_trip_through_fit_counts():
    # res.counts is in fit_counts' convention, so refitting from it reproduces the fit
    rng = np.random.default_rng(7)
    n = 300
    truth = rng.random(n) < 0.4
    metric = np.where(truth, rng.random(n) < 0.9, rng.random(n) < 0.15).astype(float)
    human = np.where(np.arange(n) < 120, truth.astype(float), np.nan)
    res = be.fit("h ~ m", pd.DataFrame({"h": human, "m": metric}))
    again = be.fit_counts(res.counts, paired_informs_alpha=res.paired_informs_alpha)
    assert again.to_frame()["estimate"].iloc[0] == pytest.approx(res.to_frame()["estimate"].iloc[0],
                                                                 abs=1e-14)
    assert res.to_frame()["n_human"].iloc[0] == 120


def _p_unidentified_exact(tp, fn, tn, fp):
    """P(rho + eta <= 1) with Beta(1, 1) rate priors in exact rational arithmetic.

    rho ~ Beta(a, b), eta ~ Beta(c, d) with whole numbers: P(eta <= 1 - r) is a binomial tail,
    and averaging it over rho gives sum_j C(n, j) B(a + j, b + n - j) / B(a, b) over j < d,
    n = c + d - 1 (each Beta function a ratio of factorials).
    """
    from fractions import Fraction

    def beta(x, y):
        return Fraction(math.factorial(x - 1) * math.factorial(y - 1), math.factorial(x + y - 1))

    a, b, c, d = tp + 1, fn + 1, tn + 1, fp + 1
    n = c + d - 1
    total = sum(math.comb(n, j) * beta(a + j, b + n - j) for j in range(d))
    return total / beta(a, b)


@pytest.mark.parametrize("counts", [(0, 0, 0, 0), (1, 0, 0, 1), (5, 3, 4, 2), (20, 5, 15, 5),
                                    (3, 30, 2, 25), (92, 21, 64, 23), (60, 70, 55, 80),
                                    (150, 40, 10, 160), (0, 40, 0, 35)])
def test_probability_rates_unidentified_is_exact(counts):
    # The beta-binomial sum against exact rationals: 1e-15 absolute, 1e-13 relative.
    from binaryeval.binary.model import _prob_rates_unidentified

    exact = _p_unidentified_exact(*counts)
    got = _prob_rates_unidentified(*counts, (1, 1))
    assert got == pytest.approx(float(exact), rel=1e-13, abs=1e-15)


def test_probability_rates_unidentified_other_priors():
    # Whole-number priors take the sum, others the quadrature; both against the integral of
    # rho's density times eta's distribution function (scipy's frozen Beta distributions).
    from scipy import integrate

    from binaryeval.binary.model import _prob_rates_unidentified

    for prior in ((2, 3), (0.5, 0.5), (1.5, 1)):
        for tp, fn, tn, fp in ((5, 3, 4, 2), (40, 12, 9, 30), (300, 20, 250, 40)):
            rho = stats.beta(tp + prior[0], fn + prior[1])
            eta = stats.beta(tn + prior[0], fp + prior[1])
            ref, _ = integrate.quad(lambda r, rho=rho, eta=eta: rho.pdf(r) * eta.cdf(1 - r), 0, 1,
                                    limit=200,
                                    points=[rho.mean()], epsabs=1e-13)
            got = _prob_rates_unidentified(tp, fn, tn, fp, prior)
            assert got == pytest.approx(ref, abs=1e-12)


def test_metric_only_ratings_that_contradict_the_paired_rows_are_named():
    # On the paired rows the metric accepts 40% of adequate and 10% of inadequate outputs, so any
    # alpha gives a metric-only acceptance rate between about 0.1 and 0.4 (0.033 to 0.564 at the
    # 99.9% bounds); group B's metric accepted all 1000: one ContradictionWarning naming B only,
    # with its rate and the reachable range, and the same note in the summary.
    from scipy import stats

    counts = pd.DataFrame({"metric_pos": [300, 1000], "metric_total": [1000, 1000],
                           "tp": [40, 40], "fn": [60, 60], "tn": [90, 90], "fp": [10, 10]},
                          index=["A", "B"])
    with pytest.warns(be.ContradictionWarning) as caught:
        res = be.fit_counts(counts)
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "In 1 of 2 groups" in text and "B: 100% of 1,000" in text and "A:" not in text
    lo = min(stats.beta.ppf(0.0005, 41, 61), 1 - stats.beta.ppf(0.9995, 91, 11))
    hi = max(stats.beta.ppf(0.9995, 41, 61), 1 - stats.beta.ppf(0.0005, 91, 11))
    assert f"reachable {100 * lo:.3g}% to {100 * hi:.3g}%" in text
    assert "B: 100% of 1,000" in str(res.summary())
    # consistent metric-only ratings: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        be.fit_counts(counts.loc[["A"]])
        be.fit_counts({"metric_pos": 500, "metric_total": 1000}, rates={"rho": 0.9, "eta": 0.9})
    # known rates bound the share exactly: 99% cannot come from rho = eta = 0.9
    with pytest.warns(be.ContradictionWarning, match=r"reachable 10% to 90%.*known rates"):
        be.fit_counts({"metric_pos": 990, "metric_total": 1000}, rates={"rho": 0.9, "eta": 0.9})


def test_known_rates_that_the_paired_rows_rule_out_are_named():
    # rho = 1 is given, but in group A's paired rows the metric accepted only 3 of 5 adequate
    # outputs and in B 30 of 32: impossible under rho = 1 (an exact binomial test gives p = 0).
    # eta = 0.9 fits every group (4 of 5, 40 of 44, 35 of 39: p well above 0.001), and C's
    # metric accepted all 60 of its adequate outputs.  One ContradictionWarning names A's and
    # B's rho, the same note is in the summary, and the fit still uses the rates as given.
    from scipy import stats

    counts = pd.DataFrame({"metric_pos": [3, 30, 60], "metric_total": [10, 100, 100],
                           "tp": [3, 30, 60], "fn": [2, 2, 0], "tn": [4, 40, 35], "fp": [1, 4, 4]},
                          index=["A", "B", "C"])
    with pytest.warns(be.ContradictionWarning) as caught:
        res = be.fit_counts(counts, rates={"rho": 1.0, "eta": 0.9})
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "In 2 of 3 groups the paired rows rule out the known rates" in text
    assert ("A: rho = 1 given, but the metric accepted 3 of 5 adequate paired outputs (60%; exact "
            "binomial test p = 0)") in text
    assert "B: rho = 1 given, but the metric accepted 30 of 32 adequate" in text
    assert "C:" not in text and "eta = 0.9" not in text and "rates='estimate'" in text
    assert "the paired rows rule out the known rates" in str(res.summary())
    assert res.rates()["rho"].tolist() == [1.0, 1.0, 1.0]
    # the p-value is twice the smaller binomial tail (scipy's binomtest agrees where the two
    # tails are alike): C's eta = 0.5 against 35 of 39
    p = 2 * stats.binom.sf(34, 39, 0.5)
    assert p == pytest.approx(stats.binomtest(35, 39, 0.5).pvalue, rel=1e-12)
    with pytest.warns(be.ContradictionWarning) as caught:
        be.fit_counts(counts, rates={"A": {"rho": 1.0, "eta": 0.9}, "B": {"rho": 1.0, "eta": 0.9},
                                     "C": {"rho": 1.0, "eta": 0.5}})
    text = str(caught[0].message)
    assert "In 3 of 3 groups" in text
    assert (f"C: eta = 0.5 given, but the metric rejected 35 of 39 inadequate paired outputs "
            f"(89.7%; exact binomial test p = {p:.2g})") in text
    # rates the paired rows allow: no warning (C alone; and A with rho = 0.6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        be.fit_counts(counts.loc[["C"]], rates={"rho": 1.0, "eta": 0.9})
        be.fit_counts(counts.loc[["A"]], rates={"rho": 0.6, "eta": 0.8})


def test_counts_that_known_rates_make_impossible_are_refused():
    # rho = 1, eta = 0: the metric accepts every output whatever alpha is, so a rejection has
    # probability 0 and there is no posterior (the grid gave NaN weights, the engine the prior);
    # rho = 0, eta = 1: it rejects every one.  Every entry point refuses with the counts, the
    # rates and the group; counts the rates allow give the prior's Beta(1 + 6, 1 + 4) (human
    # ratings only: the metric carries no information)
    from binaryeval.binary.grid import grid_posterior

    for rates, k in (((1.0, 0.0), 3), ((0.0, 1.0), 3), ((1.0, 0.0), 0), ((0.0, 1.0), 10)):
        kw = dict(human_pos=6, human_total=10, metric_pos=k, metric_total=10, rho=rates[0],
                  eta=rates[1])
        possible = (k == 10) if rates[0] == 1.0 else (k == 0)
        if possible:
            assert be.alpha_posterior(**kw).mean() == pytest.approx(7 / 12, abs=1e-14)
            assert grid_posterior(**kw, grid=(2000, 1, 1)).mean() == pytest.approx(7 / 12,
                                                                                  abs=1e-6)
            continue
        word = "accept" if rates[0] == 1.0 else "reject"
        message = (f"metric_pos={k} of metric_total=10, but the known rates rho={rates[0]:g}, "
                   f"eta={rates[1]:g} make the metric {word} every output")
        with pytest.raises(be.CountsError, match=re.escape(message)):
            be.alpha_posterior(**kw)
        with pytest.raises(be.CountsError, match=re.escape(message)):
            grid_posterior(**kw, grid=(50, 1, 1))
        counts = {"A": {"human_pos": 6, "human_total": 10, "metric_pos": 10 - k,
                        "metric_total": 10}, "B": {"human_pos": 6, "human_total": 10,
                                                   "metric_pos": k, "metric_total": 10}}
        with pytest.raises(be.CountsError, match="group 'B': " + re.escape(message)):
            be.fit_counts(counts, rates={"A": {"rho": 0.8, "eta": 0.8},
                                         "B": {"rho": rates[0], "eta": rates[1]}})


def test_choose_threshold_checks_direction_constant_scores_and_series_alignment():
    # the same paired rows as the balanced-rule test above (its threshold 0.6); the score
    # negated runs against the humans (AUC = 1 - the score's, by the Mann-Whitney identity):
    # one DirectionWarning with the AUC and the fix for a plain function (-score)
    df = pd.read_csv(REFERENCE / "roc_threshold_data.csv")
    h, s = df["human"], df["score"]
    assert be.choose_threshold(h, s) == 0.6
    auc = float(be.roc("human ~ score", df).auc()["pooled"])
    with pytest.warns(be.DirectionWarning) as caught:
        be.choose_threshold(h.to_numpy(), -s.to_numpy())
    assert len(caught) == 1
    assert f"AUC {1 - auc:.2f} < 0.5 on {len(df):,} paired rows" in str(caught[0].message)
    assert "pass -score" in str(caught[0].message)
    # a constant score separates nothing: refused (it returned 1.0)
    with pytest.raises(be.DataError, match=r"score takes a single value \(1\) on the 500 rows"):
        be.choose_threshold(h, np.ones(len(df)))
    # two Series are matched by their index, not by position (shuffled rows: same answer), and
    # Series whose indexes differ are refused
    shuffled = s.sample(frac=1.0, random_state=0)
    assert be.choose_threshold(h, shuffled) == 0.6
    with pytest.raises(be.DataError, match="Series with different indexes"):
        be.choose_threshold(h, s.set_axis(s.index + 1))


def test_youden_threshold_on_a_reversed_score_says_direction():
    # the Youden rule maximises rho + eta - 1, so on a reversed score it picks an extreme
    # threshold with rho + eta about 1 (not below): the paired rows' AUC (1 - the score's)
    # still tells, and the one warning is the DirectionWarning naming lower_is_better, as with
    # the balanced rule (it was an IdentifiabilityWarning saying the metric barely separates)
    rng = np.random.default_rng(0)
    frames = []
    for k, system in enumerate("ABC"):
        truth = rng.random(300) < 0.4 + 0.15 * k
        score = truth * 0.3 + rng.normal(0.5, 0.2, 300)
        human = np.where(rng.random(300) < 0.3, truth.astype(float), np.nan)
        frames.append(pd.DataFrame({"system": system, "human": human, "score": score}))
    df = pd.concat(frames, ignore_index=True)
    auc = float(be.roc("human ~ score", df).auc()["pooled"])
    for rule in ("youden", "balanced"):
        with pytest.warns(be.DirectionWarning) as caught:
            be.fit("human ~ neg | system", df.assign(neg=-df["score"]), threshold=rule)
        assert len(caught) == 1
        text = str(caught[0].message)
        assert f"AUC {1 - auc:.2f}" in text and "lower_is_better=['neg']" in text
        assert ("the Youden rule's threshold" in text) == (rule == "youden")


def test_the_summary_says_which_rates_are_known_and_when_threshold_rules_differ():
    # Guards: rates={"rho": 0.6} was summarised "rates: known" without the rate prior, though
    # eta is estimated per group; thresholds of different rules per group were summarised by
    # the last group's rule ("youden rule")
    df = be.datasets.load_wmt21_ende()
    df = df[df.system.isin(["Nemo", "UEdin", "Online-W"])]
    # rho = 0.6 is not these systems' rate: said, and still summarised as given
    with pytest.warns(ContradictionWarning, match=r"rule out the known rates"):
        half = be.fit("I(mqm == 0) ~ I(chrf >= 60) | system", df, rates={"rho": 0.6})
    info = half.summary().info
    assert info["rates"] == "rho known; eta estimated per group from its paired rows"
    assert info["prior (rho, eta)"].startswith("Beta(1, 1)")
    assert (half.rates()["eta_upper"] > half.rates()["eta_lower"]).all()  # estimated indeed
    with pytest.warns(ContradictionWarning, match=r"no alpha reconciles"):
        both = be.fit("I(mqm == 0) ~ I(chrf >= 60) | system", df, rates={"rho": 0.6, "eta": 0.7})
    assert both.summary().info["rates"] == "known"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mixed = be.fit("I(mqm == 0) ~ ter | system", df, lower_is_better="ter",
                       threshold={"Nemo": "balanced", "UEdin": "youden", "Online-W": 55})
        one = be.fit("I(mqm == 0) ~ ter | system", df, lower_is_better="ter",
                     threshold={"Nemo": "youden", "UEdin": "youden", "Online-W": "youden"})
    assert mixed.threshold_rule == "mixed" and one.threshold_rule == "youden"
    assert mixed.summary().info["threshold"].startswith(
        "per group (rules or numbers differing between groups;")
    assert mixed.threshold["Online-W"] == 55.0


def _rule_by_fractions(human, score, rule):
    """The threshold a rule picks, found by scanning every observed score in exact fractions."""
    from fractions import Fraction

    human, score = np.asarray(human), np.asarray(score, dtype=float)
    n_pos, n_neg = int(human.sum()), int((1 - human).sum())
    best = None
    for t in np.unique(score):
        pos = score >= t
        rho = Fraction(int((pos & (human == 1)).sum()), n_pos)
        eta = Fraction(int((~pos & (human == 0)).sum()), n_neg)
        key = ((abs(rho - eta), -(rho + eta), -t) if rule == "balanced"
               else (-(rho + eta), -t))
        if best is None or key < best[0]:
            best = (key, float(t))
    return best[1]


def test_threshold_rules_break_exact_ties_as_documented_not_by_rounding():
    # 7 positive, 7 negative paired rows: at 2 (rho 3/7, eta 4/7) and at 1 (rho 5/7, eta 4/7)
    # |rho - eta| is 1/7 in both, so the balanced rule takes the larger rho + eta, threshold 1;
    # 3/7 - 4/7 and 5/7 - 4/7 round apart in the last bit and 2 was picked
    human = [1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1]
    score = [1.0, 0.0, 5.0, 4.0, 0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 4.0, 1.0, 5.0, 0.0]
    assert _rule_by_fractions(human, score, "balanced") == 1.0
    assert be.choose_threshold(human, score, "balanced") == 1.0
    df = pd.DataFrame({"h": human, "s": score})
    assert be.fit("h ~ s", df, threshold="balanced").threshold == 1.0
    # the same on many small tied data sets, for both rules (scan in exact fractions)
    rng = np.random.default_rng(11)
    checked = 0
    while checked < 300:
        h = rng.integers(0, 2, rng.integers(4, 16))
        s = rng.integers(0, 6, h.size).astype(float)
        if h.min() == h.max() or np.unique(s).size < 2:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DirectionWarning)
            for rule in ("balanced", "youden"):
                assert be.choose_threshold(h, s, rule) == _rule_by_fractions(h, s, rule), (h, s)
        checked += 1


def test_choose_threshold_given_a_number_says_it_takes_a_rule():
    # the message said "use one of ('balanced', 'youden') or a number" to a number
    with pytest.raises(ParameterError) as caught:
        be.choose_threshold([1, 0, 1, 0], [0.9, 0.1, 0.6, 0.2], 0.5)
    text = str(caught.value)
    assert "or a number" not in text and "one of ('balanced', 'youden')" in text
    assert "score >= 0.5" in text


def test_threshold_rules_refuse_groups_of_one_class_and_constant_paired_scores():
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"g": np.repeat(["A", "B"], 40), "s": rng.normal(size=80)})
    df["h"] = (df["s"] + rng.normal(size=80) > 0).astype(float)
    df.loc[(df["g"] == "B") & (np.arange(80) % 4 == 0), "h"] = np.nan
    only_pos = df.copy()
    only_pos.loc[only_pos["g"] == "B", "h"] = only_pos.loc[only_pos["g"] == "B", "h"].where(
        only_pos["h"].isna(), 1.0)
    n_b = int(only_pos.loc[only_pos["g"] == "B", "h"].notna().sum())
    # a per-group rule on a group whose paired rows are all positive: the group is named (the
    # message said only "ROC needs paired rows of both human classes")
    with pytest.raises(DataError, match=rf"in group 'B'; got {n_b} positive and 0 negative.*"
                                        r"give group 'B' a number"):
        be.fit("h ~ s | g", only_pos, threshold={"A": "balanced", "B": "balanced"})
    # roc names the group too
    with pytest.raises(DataError, match=rf"group 'B' \(g\) has {n_b} paired rows, {n_b} positive "
                                        "and 0 negative"):
        be.roc("h ~ s | g", only_pos)
    # paired rows with one score (metric-only rows vary): the rule has nothing to choose from
    # (it returned that score, rating every paired row positive, rho 1 and eta 0)
    flat = df.assign(s=np.where(df["h"].notna(), 0.25, df["s"]))
    with pytest.raises(DataError, match=r"'s' takes a single value \(0.25\) on the 70 paired rows"):
        be.fit("h ~ s | g", flat, threshold="balanced")
    # the same for a lower-is-better score, in its own units
    with pytest.raises(DataError, match=r"'s' takes a single value \(0.25\)"):
        be.fit("h ~ s | g", flat, threshold="youden", lower_is_better="s")


def test_youden_rule_rating_everything_positive_names_the_direction():
    # paired rows only, the score reversed: every threshold but the lowest score has
    # rho + eta < 1, so the Youden rule (J = 0 there) rated every output positive and the
    # message said "threshold -9 ... choose a threshold inside that range, or 'balanced'"
    s = np.arange(10.0)
    df = pd.DataFrame({"h": (s >= 5).astype(float), "neg": -s})
    with pytest.raises(DataError) as caught:
        be.fit("h ~ neg", df, threshold="youden")
    text = str(caught.value)
    assert "'youden' rule picks threshold -9" in text and "AUC 0.00" in text
    assert "lower_is_better=['neg']" in text
    # with the direction the rule separates the classes: positive when neg <= -5
    assert be.fit("h ~ neg", df, threshold="youden", lower_is_better="neg").threshold == -5.0


def test_roc_direction_check_reads_every_paired_row_without_the_pooled_curve():
    # pooled=False: the check read the first group's AUC alone, so it missed a score reversed
    # in five of six groups and, the other way, blamed all rows for one reversed group
    good = {"h": [1, 0], "s": [0.9, 0.1]}
    bad = {"h": [1, 0], "s": [0.1, 0.9]}
    def frame(parts):
        return pd.concat([pd.DataFrame({**p, "g": f"g{i}"}) for i, p in enumerate(parts)],
                         ignore_index=True)
    mostly_reversed = frame([good] + [bad] * 5)
    # the AUC of all 12 paired rows: the Mann-Whitney U over n_pos n_neg (ties one half)
    h, s = mostly_reversed["h"], mostly_reversed["s"]
    u = stats.mannwhitneyu(s[h == 1], s[h == 0]).statistic / (6 * 6)
    assert u < 0.5
    with pytest.warns(DirectionWarning, match=rf"AUC {u:.2f} < 0.5 on 12 paired rows") as caught:
        be.roc("h ~ s | g", mostly_reversed, pooled=False)
    assert len(caught) == 1
    mostly_right = frame([bad] + [good] * 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DirectionWarning)
        res = be.roc("h ~ s | g", mostly_right, pooled=False)
    assert res.auc()["g0"] == 0.0 and "pooled" not in res.curves


def test_per_group_thresholds_of_a_fit_can_be_given_back(ende):
    # fit reports per-group thresholds as a Series; given back as threshold= it was refused
    # ("threshold=Nemo 50 ... give a number, 'balanced' or 'youden'"): a Series is a mapping
    df = ende[ende.system.isin(["Nemo", "UEdin"])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = be.fit("I(mqm == 0) ~ chrf | system", df,
                       threshold={"Nemo": "balanced", "UEdin": 55})
        again = be.fit("I(mqm == 0) ~ chrf | system", df, threshold=first.threshold)
    assert isinstance(first.threshold, pd.Series)
    assert again.threshold.to_dict() == first.threshold.to_dict()
    # the counts are those of score >= each group's threshold, counted by hand
    paired = df[df.mqm.notna() & df.chrf.notna()]
    for system, cut in again.threshold.items():
        rows = paired[paired.system == system]
        tp = int(((rows.chrf >= cut) & (rows.mqm == 0)).sum())
        fp = int(((rows.chrf >= cut) & (rows.mqm != 0)).sum())
        assert (again.counts.loc[system, "tp"], again.counts.loc[system, "fp"]) == (tp, fp)


def test_the_advice_for_a_scalar_human_rating_splits_its_values():
    # an averaged 1-5 scale (SummEval) or MQM penalties with fractions: the advice was
    # I(x > 0.5), which rates every SummEval summary adequate and every WMT segment not
    from binaryeval.datasets import load_summeval, load_wmt21_ende

    for data, human, metric in ((load_summeval(), "expert_coherence", "rouge_l_f1"),
                                (load_wmt21_ende(), "mqm", "chrf")):
        with pytest.raises(DataError) as caught:
            be.roc(f"{human} ~ {metric}", data)
        advised = re.findall(r"e\.g\. (I\(" + human + r" [<>=]+ [-\d.]+\))", str(caught.value))
        assert advised, str(caught.value)
        op, value = re.match(r"I\(\w+ ([<>=]+) ([-\d.]+)\)", advised[-1]).groups()
        present = data[human].dropna()
        rated = present >= float(value) if op == ">=" else present > float(value)
        assert 0 < rated.mean() < 1, advised
        # the advised term is a rating the curve takes
        assert 0 < be.roc(f"{advised[-1]} ~ {metric}", data).auc()["pooled"] < 1


def test_lower_is_better_names_a_quoted_column_by_its_label_on_every_path():
    # a column whose name is no identifier enters as Q("TER score"); lower_is_better may name
    # it by its label, as correlate() always allowed: the same counts and AUC as its negation
    rng = np.random.default_rng(0)
    n = 400
    truth = rng.random(n) < 0.6
    ter = np.where(truth, rng.normal(0.3, 0.1, n), rng.normal(0.6, 0.1, n))
    df = pd.DataFrame({"system": np.repeat(["A", "B"], n // 2),
                       "human": np.where(np.arange(n) % 3 == 0, truth, np.nan),
                       "TER score": ter, "neg": -ter})
    quoted = be.fit('human ~ Q("TER score") | system', df, threshold=0.45,
                    lower_is_better="TER score")
    negated = be.fit("human ~ neg | system", df, threshold=-0.45)
    assert quoted.counts.equals(negated.counts)
    assert int(quoted.counts.metric_pos.sum()) == int((df.human.isna() & (ter <= 0.45)).sum())
    auc = be.roc('human ~ Q("TER score")', df, lower_is_better=["TER score"]).auc()
    assert auc["pooled"] == pytest.approx(be.roc("human ~ neg", df).auc()["pooled"], abs=1e-15)


# -- which rows were left out -----------------------------------------------------------------------
def _rows_frame(index):
    # rows 3 and 10 have no group, row 4 no rating at all; rows 7 and 8 carry one rating each
    return pd.DataFrame({
        "system": ["A", "A", None, "A", "B", "B", "B", "A", "B", np.nan],
        "human": [1, 0, 1, np.nan, 1, 0, np.nan, 1, 0, 1],
        "metric": [1, 0, 1, np.nan, 1, 0, 1, np.nan, 0, 0]}, index=index)


def _quiet(fitter, *args, **kwargs):
    # so few paired rows leave alpha poorly identified: that warning is not what is tested here
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", be.IdentifiabilityWarning)
        return fitter(*args, **kwargs)


def test_excluded_rows_name_each_row_left_out_by_its_label_and_reason():
    index = pd.Index([50, 3, 7, 21, 9, 14, 2, 40, 11, 5], name="row_id")   # not monotonic
    res = _quiet(be.fit, "human ~ metric | system", _rows_frame(index))
    rows = res.excluded_rows
    expected = pd.Series(["missing group", "no rating (human and metric missing)",
                          "missing group"], index=pd.Index([7, 21, 5], name="row_id"),
                         dtype=object, name="reason")
    pd.testing.assert_series_equal(rows, expected)
    assert rows.value_counts().to_dict() == res.excluded
    assert rows.index.dtype == index.dtype
    # only the left-out rows are kept, not a mask of every row
    assert res._left_out.labels.size == res.n_excluded == 3


@pytest.mark.parametrize("index", [
    pd.Index(["r0", "r1", "<script>x</script>", "r3", "r4", "r5", "r6", "r7", "r8", "r9"]),
    pd.date_range("2024-03-01", periods=10, freq="D", name="day")[::-1],
    pd.MultiIndex.from_arrays([list("aabbccddee"), [1, 2] * 5], names=["batch", "n"])])
def test_excluded_rows_keep_the_callers_index(index):
    res = _quiet(be.fit, "human ~ metric | system", _rows_frame(index))
    rows = res.excluded_rows
    assert rows.index.equals(index[[2, 3, 9]]) and rows.index.names == index.names
    assert rows.index.dtype == index.dtype
    assert rows.tolist() == ["missing group", "no rating (human and metric missing)",
                             "missing group"]
    assert rows.value_counts().to_dict() == res.excluded


def test_excluded_rows_of_a_threshold_fit_and_of_no_rows_left_out():
    df = _rows_frame(pd.Index(list("abcdefghij"), name="key"))
    df["score"] = [0.9, 0.2, 0.8, np.nan, 0.7, 0.3, 0.6, np.nan, 0.1, 0.4]
    res = _quiet(be.fit, "human ~ score | system", df, threshold=0.5)
    assert res.excluded_rows.to_dict() == {"c": "missing group",
                                           "d": "no rating (human and metric missing)",
                                           "j": "missing group"}
    assert res.excluded_rows.value_counts().to_dict() == res.excluded
    full = _quiet(be.fit, "human ~ metric | system", df.iloc[[0, 1, 4, 5, 6, 8]])
    assert full.excluded == {} and len(full.excluded_rows) == 0
    assert full.excluded_rows.dtype == object and full.excluded_rows.index.name == "key"
    assert full.excluded_rows.value_counts().to_dict() == full.excluded
    assert be.fit_counts({"human_pos": 6, "human_total": 10}).excluded_rows is None


def test_roc_excluded_rows():
    df = _rows_frame(pd.Index([9, 8, 7, 6, 5, 4, 3, 2, 1, 0], name="i"))
    df["score"] = [0.9, 0.2, 0.8, np.nan, 0.7, 0.3, 0.6, np.nan, 0.1, 0.4]
    res = be.roc("human ~ score | system", df)
    assert res.excluded_rows.to_dict() == {7: "missing rating or group",
                                           6: "missing rating or group",
                                           3: "missing rating or group",
                                           2: "missing rating or group",
                                           0: "missing rating or group"}
    assert res.excluded_rows.value_counts().to_dict() == res.excluded
