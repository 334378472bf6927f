"""Judge bias diagnostics: :func:`binaryeval.judge_bias`.

Where the numbers come from: the counts by ``pandas.crosstab`` of the rows turned to the order of
presentation by hand; the shares and agreement intervals from ``scipy.stats.beta``; the lean's
interval from 400,000 Dirichlet draws (numpy); the Bayes factor from
``scipy.stats.dirichlet_multinomial.logpmf`` (the multinomial coefficient cancels in the ratio);
the false-alarm rate from a seeded simulation of a judge without position bias.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import binaryeval as be
from binaryeval.errors import DataError, JudgeBiasWarning, ParameterError


def _data(seed, n=900, tie_first=0.5, long_correct=0.6):
    """Human and judge preferences of x vs y; the judge's errors are set in the shown order."""
    rng = np.random.default_rng(seed)
    human = rng.choice([1, 0, -1], size=n, p=[0.4, 0.2, 0.4])
    shown_x = rng.random(n) < 0.5
    long = rng.random(n) < 0.5
    h_pos = np.where(shown_x, human, -human)
    u = rng.random(n)
    tie_second = 1.0 - tie_first - 0.3
    correct = np.where(long, long_correct, 0.85)
    j_pos = np.where(h_pos == 0,
                     np.where(u < tie_first, 1, np.where(u < tie_first + 0.3, 0, -1)),
                     np.where(u < correct, h_pos, np.where(u < correct + 0.1, 0, -h_pos)))
    assert tie_second >= 0
    return pd.DataFrame({"a": "x", "b": "y", "human": human,
                         "judge": np.where(shown_x, j_pos, -j_pos),
                         "shown": np.where(shown_x, "x", "y"),
                         "words": np.where(long, 300.0, 40.0) + rng.normal(0, 5, n)})


def test_position_table_matches_counts_by_hand():
    df = _data(1, tie_first=0.5)
    with pytest.warns(JudgeBiasWarning, match="shown first at a true tie"):
        res = be.judge_bias("human ~ judge", df, first="a", second="b", shown_first="shown")
    s = np.where(df["shown"] == df["a"], 1, -1)
    tab = pd.crosstab(df["human"] * s, df["judge"] * s).reindex(index=[1, 0, -1],
                                                                 columns=[1, 0, -1], fill_value=0)
    frame = res.to_frame().loc["position"].loc["all"]
    for cls, h in (("shown first better", 1), ("tie", 0), ("shown second better", -1)):
        n = tab.loc[h].to_numpy()
        a = n + 1.0
        row = frame.loc[cls]
        assert row["n_paired"] == n.sum()
        assert row["judge_first"] == pytest.approx(a[0] / a.sum(), rel=1e-12)
        assert row["lean"] == pytest.approx((a[0] - a[2]) / a.sum(), rel=1e-12)
        k = {1: 0, 0: 1, -1: 2}[h]
        assert row["agreement_lower"] == pytest.approx(
            stats.beta.ppf(0.025, a[k], a.sum() - a[k]), rel=1e-10)
        draws = np.random.default_rng(3).dirichlet(a, size=400_000)
        lean = draws[:, 0] - draws[:, 2]
        assert row["lean_lower"] == pytest.approx(np.quantile(lean, 0.025), abs=4e-3)
        assert row["lean_upper"] == pytest.approx(np.quantile(lean, 0.975), abs=4e-3)
    assert res.position_bias()["lean_lower"] > 0


def _bf_scipy(counts):
    """log10 BF (one matrix per stratum vs one for all) with scipy's Dirichlet-multinomial."""
    dm = stats.dirichlet_multinomial
    sep = sum(dm.logpmf(counts[s, c], np.ones(3), counts[s, c].sum())
              for s in range(counts.shape[0]) for c in range(3))
    pooled = counts.sum(axis=0)
    com = sum(dm.logpmf(pooled[c], np.ones(3), pooled[c].sum()) for c in range(3))
    # logpmf includes the multinomial coefficient; the sequences' likelihoods differ from it by
    # log(n! / prod n_j!) per row, which does not cancel between the two: remove it
    def coef(n):
        from scipy.special import gammaln
        return gammaln(n.sum() + 1) - gammaln(n + 1).sum()
    sep -= sum(coef(counts[s, c]) for s in range(counts.shape[0]) for c in range(3))
    com -= sum(coef(pooled[c]) for c in range(3))
    return (sep - com) / np.log(10)


def test_covariate_bins_and_bayes_factor_match_scipy():
    df = _data(2, tie_first=0.35, long_correct=0.55)
    with pytest.warns(JudgeBiasWarning, match="differs across words"):
        res = be.judge_bias("human ~ judge", df, first="a", second="b", shown_first="shown",
                            by="words", bins=2)
    frame = res.to_frame().loc["words"]
    strata = list(dict.fromkeys(frame.index.get_level_values("stratum")))
    assert len(strata) == 2 and strata[0].startswith("< ")
    cut = float(strata[0][2:])
    assert cut == pytest.approx(np.quantile(df["words"], 0.5), rel=1e-3)
    s = np.where(df["shown"] == df["a"], 1, -1)
    counts = np.zeros((2, 3, 3))
    for st, part in enumerate((df["words"] < cut, df["words"] >= cut)):
        tab = pd.crosstab((df["human"] * s)[part], (df["judge"] * s)[part]).reindex(
            index=[1, 0, -1], columns=[1, 0, -1], fill_value=0)
        counts[st] = tab.to_numpy()
    assert res.tests().loc["words", "log10_bf"] == pytest.approx(_bf_scipy(counts), abs=1e-9)
    assert res.tests().loc["words", "log10_bf"] > 1


def test_no_false_alarm_without_bias_in_most_simulations():
    # a judge without position bias (at a tie 35 % first, 35 % second) whose errors do not
    # depend on length: the warning may fire by chance, rarely
    alarms = 0
    for seed in range(30):
        df = _data(100 + seed, n=600, tie_first=0.35, long_correct=0.85)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            be.judge_bias("human ~ judge", df, first="a", second="b", shown_first="shown",
                          by="words", bins=2)
        alarms += any(issubclass(w.category, JudgeBiasWarning) for w in caught)
    assert alarms <= 3          # <= 10 %: a 95 % interval and two Bayes factors at BF > 10


def test_rows_not_rated_by_both_are_accounted_for():
    df = _data(3, n=300)
    df.loc[:49, "human"] = np.nan
    df.loc[50:59, "shown"] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeBiasWarning)
        res = be.judge_bias("human ~ judge", df, first="a", second="b", shown_first="shown")
    assert res.excluded == {"not rated by both the humans and the judge": 50,
                            "missing shown_first": 10}
    assert res.n_used == 240
    assert int(res.to_frame().loc["position"]["n_paired"].sum()) == 240


def test_bad_input_is_refused_by_name():
    df = _data(4, n=100)
    with pytest.raises(ParameterError, match="shown_first="):
        be.judge_bias("human ~ judge", df, first="a", second="b")
    bad = df.copy()
    bad.loc[5, "shown"] = "z"
    with pytest.raises(DataError, match="'shown' names 'z' in row 5"):
        be.judge_bias("human ~ judge", bad, first="a", second="b", shown_first="shown")
    with pytest.raises(DataError, match="by='word'.*did you mean 'words'"):
        be.judge_bias("human ~ judge", df, first="a", second="b", by="word")
    with pytest.raises(ParameterError, match="one human and one judge"):
        be.judge_bias("human ~ judge | a", df, first="a", second="b", by="words")


def test_strata_names_are_escaped_in_html():
    df = _data(5, n=200)
    df["domain"] = np.where(np.arange(200) % 2, "<i>news</i>", "chat")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeBiasWarning)
        html = be.judge_bias("human ~ judge", df, first="a", second="b", by="domain")._repr_html_()
    assert "<i>news</i>" not in html and "&lt;i&gt;news&lt;/i&gt;" in html


def test_the_advice_names_the_order_of_presentation_only_when_position_matters():
    # a covariate bias alone (no position column): fit the strata separately, nothing about
    # the order of presentation; a position bias at ties: both pieces of advice
    df = _data(2, tie_first=0.35, long_correct=0.55)
    with pytest.warns(JudgeBiasWarning) as caught:
        be.judge_bias("human ~ judge", df, first="a", second="b", by="words", bins=2)
    text = str(caught[0].message)
    assert "differs across words" in text and "fit the strata separately" in text
    assert "order of presentation" not in text
    with pytest.warns(JudgeBiasWarning) as caught:
        be.judge_bias("human ~ judge", _data(3, tie_first=0.6), first="a", second="b",
                      shown_first="shown")
    text = str(caught[0].message)
    assert "shown first at a true tie" in text and "order of presentation" in text


def _single(seed=4, n=1000, short_hit=0.9, long_hit=0.65):
    """A judge rating single outputs 0/1, right less often on long outputs; humans rated 70 %."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.6
    long = rng.random(n) < 0.5
    hit = rng.random(n) < np.where(long, long_hit, short_hit)
    human = np.where(rng.random(n) < 0.7, truth.astype(float), np.nan)
    return pd.DataFrame({"human": human, "score": np.where(hit, truth, ~truth) + 0.1 * long,
                         "length": np.where(long, "long", "short")})


def test_single_outputs_rho_eta_and_bayes_factor_match_scipy():
    df = _single()
    with pytest.warns(JudgeBiasWarning, match="differs across length") as caught:
        res = be.judge_bias("human ~ I(score > 0.5)", df, by="length")
    assert "fit per stratum" in str(caught[0].message)
    assert "order of presentation" not in str(caught[0].message)
    frame = res.to_frame().loc["length"]
    paired = df.dropna(subset=["human"])
    counts = np.zeros((2, 2, 2))
    for s, name in enumerate(["long", "short"]):
        part = paired[paired["length"] == name]
        tab = pd.crosstab(part["human"].astype(int), (part["score"] > 0.5).astype(int))
        counts[s] = tab.reindex(index=[0, 1], columns=[0, 1], fill_value=0).to_numpy()
        for c in (0, 1):
            row = frame.loc[(name, str(c))]
            assert row["n_paired"] == counts[s, c].sum()
            a, b = counts[s, c, c] + 1, counts[s, c, 1 - c] + 1   # agreement: eta (0), rho (1)
            assert row["agreement"] == pytest.approx(a / (a + b), rel=1e-12)
            lo, hi = stats.beta.ppf([0.025, 0.975], a, b)
            assert (row["agreement_lower"], row["agreement_upper"]) == pytest.approx((lo, hi))
            assert row[f"judge_{c}"] == pytest.approx(a / (a + b), rel=1e-12)
    dm = stats.dirichlet_multinomial
    ones = np.ones(2)

    def log_seq(n):  # the sequence's log likelihood: scipy's pmf less the multinomial coefficient
        from scipy.special import gammaln
        return dm.logpmf(n, ones, n.sum()) - (gammaln(n.sum() + 1) - gammaln(n + 1).sum())

    sep = sum(log_seq(counts[s, c]) for s in range(2) for c in range(2))
    com = sum(log_seq(counts.sum(axis=0)[c]) for c in range(2))
    assert res.tests().loc["length", "log10_bf"] == pytest.approx((sep - com) / np.log(10),
                                                                  abs=1e-9)
    assert res.n_excluded == int(df["human"].isna().sum())
    assert res.excluded == {"not rated by both the humans and the judge":
                            int(df["human"].isna().sum())}
    with pytest.raises(ParameterError, match="kind='agreement'"):
        res.plot(kind="lean")
    res.plot()  # the agreement, by default


def test_single_outputs_quiet_when_the_judge_errs_alike():
    with warnings.catch_warnings():
        warnings.simplefilter("error", JudgeBiasWarning)
        res = be.judge_bias("human ~ I(score > 0.5)", _single(long_hit=0.9), by="length")
    assert res.tests().loc["length", "log10_bf"] < 1


def test_single_outputs_refuse_what_they_cannot_use():
    df = _single()
    with pytest.raises(ParameterError, match="shown_first= needs preferences"):
        be.judge_bias("human ~ score", df.assign(s="x"), shown_first="s", by="length")
    with pytest.raises(ParameterError, match="both first= and second="):
        be.judge_bias("human ~ score", df.assign(a="x"), first="a", by="length")
    with pytest.raises(DataError, match="threshold a score in the formula"):
        be.judge_bias("human ~ noise", df.assign(noise=np.linspace(0, 1, len(df))),
                      by="length")


def test_systems_numbered_in_float_and_int_columns_are_refused_with_the_fix():
    # a missing id makes pandas hold `first` as floats (1.0) while `second` and `shown` hold
    # 1: the rows would name one system two ways, and every shown-first value mismatch
    df = _data(3).assign(x=1, y=2)
    df = df.assign(shown=np.where(df["shown"] == "x", 1, 2))
    df["x"] = df["x"].astype(float)
    df.loc[df.index[0], "x"] = np.nan
    with pytest.raises(DataError, match=r"column 'x' holds the systems as floats \('1\.0'\)"
                                        r" where 'shown' names '1'.*astype\('Int64'\)"):
        be.judge_bias("human ~ judge", df, first="x", second="y", shown_first="shown")
    df["x"] = df["x"].astype("Int64")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeBiasWarning)
        res = be.judge_bias("human ~ judge", df, first="x", second="y", shown_first="shown")
    assert res.excluded["missing system"] == 1


def test_bins_of_close_numbers_get_distinct_labels_and_the_right_rows():
    # response lengths 10000.0 to 10000.5: four quantile bins whose edges agree in their first
    # four digits; each stratum keeps its own label and exactly the rows between its edges
    df = _data(3, n=800)
    df["words"] = 10000.0 + np.random.default_rng(1).random(len(df)) * 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeBiasWarning)
        res = be.judge_bias("human ~ judge", df, first="a", second="b", by="words", bins=4)
    frame = res.to_frame().loc["words"]
    strata = list(dict.fromkeys(frame.index.get_level_values("stratum")))
    assert len(strata) == 4 and not frame.index.duplicated().any()
    edges = np.quantile(df["words"], [0.25, 0.5, 0.75])
    sizes = np.bincount(np.searchsorted(edges, df["words"], side="right"), minlength=4)
    n_paired = frame.groupby(level="stratum", sort=False)["n_paired"].sum()
    assert n_paired.loc[strata].tolist() == sizes.tolist()
    # "[a, b)" and ">= a" name their lower edge, closer to it than to any other edge
    gap = np.diff(edges).min() / 2
    for label, cut in zip(strata[1:], edges, strict=True):
        assert float(label.strip("[>= ").split(",")[0]) == pytest.approx(cut, abs=gap)


def _single_output_ratings(seed: int = 8, n: int = 1200) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth, long = rng.random(n) < 0.6, rng.random(n) < 0.5
    hit = rng.random(n) < np.where(long, 0.65, 0.9)
    return pd.DataFrame({"human": truth, "judge": np.where(hit, truth, ~truth).astype(int),
                         "length": np.where(long, "long", "short"),
                         "rated": rng.random(n) < 0.7})


def test_human_bools_with_none_for_unrated_rows_match_a_0_1_judge():
    # a human column of Python bools, None where not rated (object dtype), and a 0/1 judge: the
    # classes are the judge's outputs 0 and 1, and the agreement is the share of rows the judge
    # got right, Beta(1 + right, 1 + wrong) (eta at class 0, rho at class 1)
    df = _single_output_ratings()
    human = pd.Series(df["human"].to_numpy(), dtype=object).where(df["rated"], None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeBiasWarning)
        res = be.judge_bias("human ~ judge", df.assign(human=human), by="length")
    frame = res.to_frame()
    assert set(frame.index.get_level_values("class")) == {"0", "1"}
    for (_, stratum, cls), row in frame.iterrows():
        part = df[df["rated"] & (df["length"] == stratum) & (df["human"] == (cls == "1"))]
        right = int((part["judge"] == int(cls)).sum())
        assert row["n_paired"] == len(part)
        assert row["agreement"] == pytest.approx((right + 1) / (len(part) + 2), rel=1e-12)
        assert row["agreement_lower"] == pytest.approx(
            stats.beta.ppf(0.025, right + 1, len(part) - right + 1), rel=1e-9)
    # numbers in an object column (0.0/1.0 read from JSON) read the same
    as_numbers = pd.Series(df["human"].astype(float).to_numpy(), dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeBiasWarning)
        again = be.judge_bias("human ~ judge", df.assign(human=as_numbers.where(df["rated"])),
                              by="length")
    pd.testing.assert_frame_equal(again.to_frame(), frame)


def test_human_classes_unlike_the_judge_outputs_say_why_agreement_is_missing():
    df = _single_output_ratings()
    df["human"] = np.where(df["human"], "yes", "no")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeBiasWarning)
        res = be.judge_bias("human ~ judge", df, by="length")
    assert res.to_frame()["agreement"].isna().all()
    assert any("agreement is undefined" in note and "yes" in note and "code both alike" in note
               for note in res.notes)
    assert "agreement is undefined" in res.summary().as_text()


def test_excluded_rows_name_each_row_left_out_by_its_label_and_reason():
    df = _data(3, n=300)
    df.index = pd.Index([f"battle-{i}" for i in range(300)][::-1], name="battle")
    ids = df.index
    df.loc[ids[0], "b"] = None
    df.loc[ids[[1, 2]], "human"] = np.nan
    df.loc[ids[10], "shown"] = np.nan
    df.loc[ids[20], "words"] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeBiasWarning)
        res = be.judge_bias("human ~ judge", df, first="a", second="b", shown_first="shown",
                            by="words", bins=2)
    rows = res.excluded_rows
    assert rows.index.name == "battle"
    assert rows.to_dict() == {ids[0]: "missing system",
                              ids[1]: "not rated by both the humans and the judge",
                              ids[2]: "not rated by both the humans and the judge",
                              ids[10]: "missing shown_first", ids[20]: "missing words"}
    assert list(rows.index) == list(ids[[0, 1, 2, 10, 20]])
    assert rows.value_counts().to_dict() == res.excluded
    # a judge rating outputs one at a time
    single = _single().dropna(subset=["human"]).reset_index(drop=True)   # every row rated
    single.index = single.index * 3 + 1
    single.loc[single.index[[4, 8]], "human"] = np.nan
    single.loc[single.index[6], "length"] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeBiasWarning)
        one = be.judge_bias("human ~ I(score > 0.5)", single, by="length")
    assert one.excluded_rows.to_dict() == {13: "not rated by both the humans and the judge",
                                           19: "missing length",
                                           25: "not rated by both the humans and the judge"}
    assert one.excluded_rows.value_counts().to_dict() == one.excluded
