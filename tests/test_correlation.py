"""Tests of binaryeval.correlation: Fisher intervals, Williams test, Zou intervals, correlate(),
hybrid super-sampling.

Expected numbers come from tests/reference (R psych 2.2.9 ``r.test``, cocor 1.1-4, R ``cor.test``,
mt-metrics-eval ``WilliamsTest``; see the README there), from the WMT20 metrics-task release (its
reported Kendall and Pearson correlations, tests/reference/wmt20_reported_correlations.csv), from
scipy, or from closed forms.  The WMT15, WMT20 and WMT21 en-ru data are the datasets shipped in
binaryeval.datasets; the WMT19 de-en system scores are tests/reference/wmt19_deen_system_level.csv.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import REFERENCE, build_module
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

import binaryeval as be
from binaryeval import datasets
from binaryeval.correlation import (
    CorrelationResult,
    WilliamsResult,
    correlate,
    fisher_ci,
    hybrid_supersample,
    williams_test,
    zou_ci,
)
from binaryeval.errors import (
    BinaryEvalWarning,
    DataError,
    DirectionWarning,
    FormulaError,
    InputTypeError,
    ParameterError,
)

TOL = 1e-9


# ---------------------------------------------------------------------------------------------
# reference tables
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def dep_R() -> pd.DataFrame:
    return pd.read_csv(REFERENCE / "dependent_correlations_R.csv")


@pytest.fixture(scope="module")
def dep_mtme() -> pd.DataFrame:
    return pd.read_csv(REFERENCE / "dependent_correlations_mtme.csv")


@pytest.fixture(scope="module")
def edge_R() -> pd.DataFrame:
    return pd.read_csv(REFERENCE / "dependent_correlations_edge_R.csv")


def test_williams_matches_psych_and_cocor(dep_R):
    # R: psych::r.test(n, r12, r13, r23) -> psych_t, psych_p_two;
    #    cocor.dep.groups.overlap(r.jk=r12, r.jh=r13, r.kh=r23, n, test="williams1959",
    #    alternative="greater") -> williams_t, williams_df, williams_p_greater.  66 cases.
    diffs = []
    for row in dep_R.itertuples():
        n = int(row.n)
        res = williams_test(row.r12, row.r13, row.r23, n)
        two = williams_test(row.r12, row.r13, row.r23, n, alternative="two-sided")
        assert isinstance(res, WilliamsResult)
        assert res.df == row.williams_df == n - 3
        diffs += [abs(res.statistic - row.psych_t), abs(res.statistic - row.williams_t),
                  abs(res.p_value - row.williams_p_greater), abs(two.p_value - row.psych_p_two),
                  abs(two.p_value - row.williams_p_two)]
    assert max(diffs) < TOL
    assert len(diffs) == 5 * 66


def test_williams_worked_example():
    # R reference README: n=12, (.95, .90, .90): t = 1.126297, p(two-sided) = 0.289175
    t, p = williams_test(0.95, 0.90, 0.90, 12, alternative="two-sided")
    assert t == pytest.approx(1.126297, abs=5e-7)
    assert p == pytest.approx(0.289175, abs=5e-7)


@pytest.mark.parametrize("level,lo,hi", [(0.95, "zou95_lo", "zou95_hi"), (0.90, "zou90_lo", "zou90_hi")])
def test_zou_matches_cocor(dep_R, level, lo, hi):
    # R: cocor.dep.groups.overlap(..., test="zou2007", conf.level=level)
    got = np.array([zou_ci(r.r12, r.r13, r.r23, int(r.n), level=level) for r in dep_R.itertuples()])
    np.testing.assert_allclose(got[:, 0], dep_R[lo], rtol=0, atol=TOL)
    np.testing.assert_allclose(got[:, 1], dep_R[hi], rtol=0, atol=TOL)


def test_zou_worked_example():
    # R reference README: n=12, (.95, .90, .90): Zou 95% CI [-0.055455, 0.259031]
    low, high = zou_ci(0.95, 0.90, 0.90, 12)
    assert (low, high) == pytest.approx((-0.055455, 0.259031), abs=5e-7)


def test_mtme_one_sided_convention_differs_only_for_negative_t(dep_R, dep_mtme):
    # mt-metrics-eval WilliamsTest computes its one-sided p from |t| (reference README); ours keeps
    # the sign: equal where t >= 0, complementary (1 - p) where t < 0.
    merged = dep_R.merge(dep_mtme, on=["n", "r12", "r13", "r23"], validate="one_to_one")
    assert len(merged) == 66
    ours = np.array([williams_test(r.r12, r.r13, r.r23, int(r.n)).p_value for r in merged.itertuples()])
    t = merged["psych_t"].to_numpy()
    neg = t < 0
    assert neg.sum() == 6  # the (0.90, 0.95, 0.92) triple at each n
    np.testing.assert_allclose(ours[~neg], merged["mtme_p_one_sided"][~neg], rtol=0, atol=TOL)
    np.testing.assert_allclose(ours[neg], 1 - merged["mtme_p_one_sided"][neg], rtol=0, atol=TOL)
    assert np.all(np.abs(ours[neg] - merged["mtme_p_one_sided"][neg]) > 0.1)
    # their two-sided p is the usual one
    two = [williams_test(r.r12, r.r13, r.r23, int(r.n), "two-sided").p_value for r in merged.itertuples()]
    np.testing.assert_allclose(two, merged["mtme_p_two_sided"], rtol=0, atol=TOL)


# ---------------------------------------------------------------------------------------------
# edge cases (dependent_correlations_edge_R.csv)
# ---------------------------------------------------------------------------------------------
def _edge(edge_R, n, r12, r13, r23):
    row = edge_R[(edge_R.n == n) & np.isclose(edge_R.r12, r12) & np.isclose(edge_R.r13, r13)
                 & np.isclose(edge_R.r23, r23)]
    assert len(row) == 1
    return row.iloc[0]


def test_edge_invalid_matrix_rejected(edge_R):
    # R: det = -0.2301 < 0: psych/cocor Williams give NA, Hittner z = 17.5 and Zou [0.32, 1.06] are
    # finite nonsense.  We refuse the triple.
    row = _edge(edge_R, 12, 0.99, 0.5, 0.99)
    assert row.detR == pytest.approx(-0.2301)
    assert math.isnan(row.williams_t) and math.isfinite(row.zou95_lo)
    with pytest.raises(ParameterError, match="not a valid correlation matrix"):
        williams_test(0.99, 0.5, 0.99, 12)
    with pytest.raises(ParameterError, match="determinant is -0.2301"):
        zou_ci(0.99, 0.5, 0.99, 12)


def test_edge_equal_correlations(edge_R):
    # R: r12 = r13: t = 0, p = 1, Zou interval symmetric around 0
    row = _edge(edge_R, 12, 0.95, 0.95, 0.9)
    t, p = williams_test(0.95, 0.95, 0.9, 12, alternative="two-sided")
    assert (t, p) == (row.williams_t, row.williams_p_two) == (0.0, 1.0)
    assert williams_test(0.95, 0.95, 0.9, 12).p_value == 0.5
    low, high = zou_ci(0.95, 0.95, 0.9, 12)
    assert low == pytest.approx(row.zou95_lo, abs=TOL) and high == pytest.approx(row.zou95_hi, abs=TOL)
    assert low == pytest.approx(-high, abs=1e-15)


@pytest.mark.parametrize("n,r12,r13,r23", [(12, 0.999, 0.998, 0.9995), (4, 0.95, 0.9, 0.9)])
def test_edge_near_one_and_n4(edge_R, n, r12, r13, r23):
    # R: r near 1 (det 1.7e-6) and the smallest allowed n = 4 (df = 1)
    row = _edge(edge_R, n, r12, r13, r23)
    t, p = williams_test(r12, r13, r23, n, alternative="two-sided")
    assert t == pytest.approx(row.psych_t, abs=TOL) and t == pytest.approx(row.williams_t, abs=TOL)
    assert p == pytest.approx(row.psych_p_two, abs=TOL)
    assert zou_ci(r12, r13, r23, n) == pytest.approx((row.zou95_lo, row.zou95_hi), abs=TOL)


def test_edge_n3_rejected(edge_R):
    # R: n = 3 gives t = 0 and p = NA (df = 0); we refuse n < 4
    _edge(edge_R, 3, 0.95, 0.9, 0.9)
    for call in (lambda: williams_test(0.95, 0.9, 0.9, 3), lambda: zou_ci(0.95, 0.9, 0.9, 3),
                 lambda: fisher_ci(0.9, 3)):
        with pytest.raises(ParameterError, match="n = 3 systems is too few"):
            call()


def test_edge_r_equal_one(edge_R):
    # R: r12 = 1: Williams t = 15.2177, p = 9.95e-8; Zou NA in cocor (c is 0/0 there)
    row = _edge(edge_R, 12, 1.0, 0.9, 0.9)
    t, p = williams_test(1.0, 0.9, 0.9, 12, alternative="two-sided")
    assert t == pytest.approx(row.williams_t, abs=TOL)
    assert p == pytest.approx(row.williams_p_two, abs=TOL)
    assert math.isnan(row.zou95_lo)
    assert fisher_ci(1.0, 12) == (1.0, 1.0)


def test_zou_at_r_equal_one_is_the_limit():
    # Guards: zou_ci(1.0, 0.5, 0.5, 20) returned (nan, nan), a silent non-answer (R's cocor: NA).
    # At r12 = 1 the single interval of r12 is the point 1, its distance term and the cross term
    # vanish, and the interval is r13's Fisher interval shifted: (1 - u2, 1 - l2).  Checked
    # against that closed form (scipy's normal quantile, numpy's tanh) and against the limit
    # of Zou's interval as r12 -> 1 (valid matrices: r23 = r13 there).
    for r13, n in ((0.5, 20), (0.9, 12), (-0.3, 50)):
        q = stats.norm.ppf(0.975)
        l2, u2 = np.tanh(np.arctanh(r13) + np.array([-1, 1]) * q / math.sqrt(n - 3))
        low, high = zou_ci(1.0, r13, r13, n)
        assert (low, high) == pytest.approx((1 - u2, 1 - l2), abs=1e-12)
        near = zou_ci(1 - 1e-9, r13, r13, n)
        assert near == pytest.approx((low, high), abs=1e-6)
        # r12 = -1 (valid with r23 = -r13): the mirror image
        assert zou_ci(-1.0, r13, -r13, n) == pytest.approx((-1 - u2, -1 - l2), abs=1e-12)
    # r13 = 1 as well: both intervals are points, so is the difference's
    assert zou_ci(1.0, 1.0, 1.0, 20) == (0.0, 0.0)


# ---------------------------------------------------------------------------------------------
# argument errors
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [(1.2, 0.5, 0.5, 10), (0.5, -1.01, 0.5, 10), (0.5, 0.5, 2.0, 10)])
def test_abs_r_above_one_rejected(args):
    with pytest.raises(ParameterError, match="is not a correlation"):
        williams_test(*args)
    with pytest.raises(ParameterError, match="is not a correlation"):
        zou_ci(*args)


def test_bad_arguments():
    with pytest.raises(ParameterError, match="is not a correlation"):
        fisher_ci(1.5, 10)
    with pytest.raises(InputTypeError, match="r12='0.9' is a str"):
        williams_test("0.9", 0.8, 0.7, 10)
    with pytest.raises(ParameterError, match="alternative='bigger': use one of"):
        williams_test(0.9, 0.8, 0.7, 10, alternative="bigger")
    with pytest.raises(ParameterError, match="level=95 must lie strictly between 0 and 1"):
        zou_ci(0.9, 0.8, 0.7, 10, level=95)
    with pytest.raises(ParameterError, match="whole number"):
        fisher_ci(0.5, 10.5)
    with pytest.raises(ParameterError, match="n >= 5"):
        fisher_ci(0.5, 4, method="kendall")
    with pytest.raises(ParameterError, match="method='cosine': use one of"):
        fisher_ci(0.5, 10, method="cosine")
    with pytest.raises(ParameterError, match="finite"):
        fisher_ci(float("nan"), 10)


# ---------------------------------------------------------------------------------------------
# invariants
# ---------------------------------------------------------------------------------------------
@st.composite
def valid_triples(draw):
    r12 = draw(st.floats(-0.99, 0.99))
    r13 = draw(st.floats(-0.99, 0.99))
    # r23 inside the range that keeps the 3x3 matrix positive definite
    half = math.sqrt((1 - r12 ** 2) * (1 - r13 ** 2))
    u = draw(st.floats(-0.98, 0.98))
    return r12, r13, r12 * r13 + u * half


@settings(max_examples=200, deadline=None)
@given(valid_triples(), st.integers(4, 500))
def test_williams_alternatives_and_antisymmetry(triple, n):
    # closed forms: p_greater + p_less = 1; two-sided = 2 min(...); swapping the metrics negates t
    r12, r13, r23 = triple
    g = williams_test(r12, r13, r23, n, "greater")
    le = williams_test(r12, r13, r23, n, "less")
    two = williams_test(r12, r13, r23, n, "two-sided")
    assert g.p_value + le.p_value == pytest.approx(1.0, abs=1e-12)
    assert two.p_value == pytest.approx(min(1.0, 2 * min(g.p_value, le.p_value)), abs=1e-12)
    assert williams_test(r13, r12, r23, n).statistic == pytest.approx(-g.statistic, abs=1e-9)
    assert (g.p_value < 0.5) == (r12 > r13) or r12 == r13 or g.p_value == 0.5


@settings(max_examples=200, deadline=None)
@given(valid_triples(), st.integers(5, 500))
def test_zou_interval_invariants(triple, n):
    # closed forms: Zou's interval contains the estimate at every level and mirrors when the
    # two metrics are swapped: CI(r13 - r12) = -CI(r12 - r13).  It need not nest by level
    # (test_zou_interval_need_not_nest_by_level)
    r12, r13, r23 = triple
    lo95, hi95 = zou_ci(r12, r13, r23, n)
    lo90, hi90 = zou_ci(r12, r13, r23, n, level=0.90)
    d = r12 - r13
    assert lo95 <= d + 1e-12 and d - 1e-12 <= hi95
    assert lo90 <= d + 1e-12 and d - 1e-12 <= hi90
    lo_s, hi_s = zou_ci(r13, r12, r23, n)
    assert (lo_s, hi_s) == pytest.approx((-hi95, -lo95), abs=1e-12)


def test_zou_interval_need_not_nest_by_level():
    # Zou's formula itself, computed here from its single Fisher intervals: with the two
    # estimates' correlation c near 1 the upper end's square root shrinks from 90 % to 95 %
    # (a case a property test found), so the 95 % interval does not hold the 90 % one
    r12, r13, r23, n = 0.875, 0.96875, 0.9639851588420707, 11

    def by_hand(level):
        z = stats.norm.ppf(0.5 + level / 2)
        lo1, up1 = np.tanh(np.arctanh(r12) + np.array([-z, z]) / np.sqrt(n - 3))
        lo2, up2 = np.tanh(np.arctanh(r13) + np.array([-z, z]) / np.sqrt(n - 3))
        c = ((r23 - r12 * r13 / 2) * (1 - r12 ** 2 - r13 ** 2 - r23 ** 2) + r23 ** 3) / (
            (1 - r12 ** 2) * (1 - r13 ** 2))
        return (r12 - r13 - np.sqrt((r12 - lo1) ** 2 + (up2 - r13) ** 2
                                    - 2 * c * (r12 - lo1) * (up2 - r13)),
                r12 - r13 + np.sqrt((up1 - r12) ** 2 + (r13 - lo2) ** 2
                                    - 2 * c * (up1 - r12) * (r13 - lo2)))
    for level in (0.90, 0.95):
        assert zou_ci(r12, r13, r23, n, level=level) == pytest.approx(by_hand(level), abs=1e-14)
    hi90, hi95 = zou_ci(r12, r13, r23, n, level=0.90)[1], zou_ci(r12, r13, r23, n)[1]
    assert hi95 < hi90 and hi90 == pytest.approx(-0.061565630001648, abs=1e-14)


@settings(max_examples=100, deadline=None)
@given(st.floats(-0.999, 0.999), st.integers(4, 1000), st.floats(0.5, 0.999))
def test_fisher_ci_closed_form(r, n, level):
    # closed form: tanh(atanh r -+ z_{(1+level)/2} / sqrt(n - 3))
    q = special.ndtri((1 + level) / 2)
    low, high = fisher_ci(r, n, level)
    assert low == pytest.approx(math.tanh(math.atanh(r) - q / math.sqrt(n - 3)), abs=1e-12)
    assert high == pytest.approx(math.tanh(math.atanh(r) + q / math.sqrt(n - 3)), abs=1e-12)
    assert low <= r <= high


def test_rank_correlation_intervals():
    # Bonett & Wright (2000): Spearman se^2 = (1 + r^2/2)/(n - 3);
    # Fieller, Hartley & Pearson (1957): Kendall se^2 = 0.437/(n - 4)
    q = special.ndtri(0.975)
    r, n = 0.6, 15
    se_s = math.sqrt((1 + r ** 2 / 2) / (n - 3))
    se_k = math.sqrt(0.437 / (n - 4))
    assert fisher_ci(r, n, method="spearman") == pytest.approx(
        (math.tanh(math.atanh(r) - q * se_s), math.tanh(math.atanh(r) + q * se_s)), abs=1e-14)
    assert fisher_ci(r, n, method="kendall") == pytest.approx(
        (math.tanh(math.atanh(r) - q * se_k), math.tanh(math.atanh(r) + q * se_k)), abs=1e-14)


# ---------------------------------------------------------------------------------------------
# Fisher intervals on WMT15 (R cor.test and scipy)
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def column():
    """Shipped-dataset column of a metric named as in the WMT files (``chrF++`` -> ``chrf_pp``)."""
    return build_module().snake


def test_wmt15_single_r_intervals_match_R(column):
    # R: cor.test(SCORE, HUMAN)$conf.int per (lp, metric) on the Graham & Liu WMT15 inputs
    # (shipped as binaryeval.datasets.load_wmt15); 190 (lp, metric) cases in 10 language pairs
    ref = pd.read_csv(REFERENCE / "wmt15_single_r_ci_R.csv")
    assert len(ref) == 190 and ref["lp"].nunique() == 10
    worst = 0.0
    for lp, block in ref.groupby("lp"):
        data = datasets.load_wmt15(lp)
        metrics = [column(m) for m in block["metric"]]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DirectionWarning)
            res = correlate("human ~ " + " + ".join(metrics), data)
        # the direction check names exactly the metrics whose R interval lies below 0 (the
        # lower-is-better 'bs'), and warns once
        below = [m for m, hi in zip(metrics, block["cortest_ci_hi"], strict=True) if hi < 0]
        assert len(caught) == (1 if below else 0)
        if below:
            assert str(caught[0].message).startswith(f"metric(s) {below} correlate clearly")
        got = res.to_frame().set_index("metric").loc[metrics]
        assert list(res.metrics) == metrics and (got["n"] == block["n"].to_numpy()).all()
        for col, rcol in (("estimate", "r"), ("lower", "cortest_ci_lo"), ("upper", "cortest_ci_hi")):
            worst = max(worst, np.max(np.abs(got[col].to_numpy() - block[rcol].to_numpy())))
    assert worst < TOL


def test_fisher_ci_matches_scipy_column():
    # scipy: pearsonr(...).confidence_interval() as stored beside R's numbers
    ref = pd.read_csv(REFERENCE / "wmt15_single_r_ci_scipy_vs_R.csv")
    got = np.array([fisher_ci(r.scipy_r, int(r.n)) for r in ref.itertuples()])
    np.testing.assert_allclose(got[:, 0], ref["scipy_ci_lo"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(got[:, 1], ref["scipy_ci_hi"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(got[:, 0], ref["R_ci_lo"], rtol=0, atol=TOL)


# ---------------------------------------------------------------------------------------------
# correlate(): small synthetic data with hand-checkable numbers
# ---------------------------------------------------------------------------------------------
@pytest.fixture()
def toy() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 9
    human = rng.normal(size=n)
    return pd.DataFrame({"system": [f"s{i}" for i in range(n)], "human": human,
                         "bleu": human + rng.normal(scale=0.8, size=n),
                         "chrf": human + rng.normal(scale=0.5, size=n),
                         "ter": -human + rng.normal(scale=0.7, size=n)})


def test_correlate_matches_scalar_functions(toy):
    # scipy pearsonr for r and its interval; williams_test/zou_ci for every ordered pair (ter,
    # lower-is-better, undeclared: the direction check says so)
    with pytest.warns(DirectionWarning, match=r"\['ter'\] correlate clearly negatively"):
        res = correlate("human ~ bleu + chrf + ter", toy)
    assert isinstance(res, CorrelationResult)
    fr = res.to_frame()
    assert list(fr.columns) == ["metric", "estimate", "lower", "upper", "n"]
    assert fr.attrs["level"] == 0.95 and fr.attrs["method"] == "pearson"
    for row in fr.itertuples():
        ref = stats.pearsonr(toy[row.metric], toy["human"])
        ci = ref.confidence_interval(0.95)
        assert (row.estimate, row.lower, row.upper) == pytest.approx((ref.statistic, ci.low, ci.high), abs=1e-12)
    pw = res.pairwise()
    assert len(pw) == 6
    assert list(pw.columns) == ["metric_1", "metric_2", "r_1", "r_2", "r_23", "estimate", "lower", "upper",
                                "statistic", "df", "p_value", "significant"]
    assert pw.attrs["alternative"] == "greater"
    for row in pw.itertuples():
        r23 = stats.pearsonr(toy[row.metric_1], toy[row.metric_2]).statistic
        w = williams_test(row.r_1, row.r_2, r23, 9)
        assert row.r_23 == pytest.approx(r23, abs=1e-12)
        assert (row.statistic, row.p_value) == pytest.approx((w.statistic, w.p_value), abs=1e-10)
        assert (row.lower, row.upper) == pytest.approx(zou_ci(row.r_1, row.r_2, r23, 9), abs=1e-10)
        assert row.significant == (row.p_value < 0.05)


def test_lower_is_better_and_absolute(toy):
    # flipping a metric negates its r and its correlations with the other metrics
    with pytest.warns(DirectionWarning, match=r"\['ter'\] correlate clearly negatively"):
        plain = correlate("human ~ bleu + ter", toy)
    flip = correlate("human ~ bleu + ter", toy, lower_is_better=["ter"])
    expr = correlate("human ~ bleu + I(-ter)", toy)
    wmt = correlate("human ~ bleu + ter", toy, absolute=True)
    assert plain.r["ter"] < 0
    assert flip.r["ter"] == pytest.approx(-plain.r["ter"], abs=1e-14)
    assert expr.r["I(-ter)"] == pytest.approx(flip.r["ter"], abs=1e-14)
    assert wmt.flipped == ("ter",) and flip.flipped == ("ter",)
    np.testing.assert_allclose(wmt.correlation_matrix, flip.correlation_matrix, atol=1e-14)
    assert plain.correlation_matrix.loc["bleu", "ter"] == pytest.approx(
        -flip.correlation_matrix.loc["bleu", "ter"], abs=1e-14)
    with pytest.raises(ParameterError, match="lower_is_better"):
        correlate("human ~ bleu + ter", toy, lower_is_better=["meteor"])


def test_segment_aggregation_counts_rows():
    # "| system": means per system over complete rows; rows with a NaN are dropped and counted
    rng = np.random.default_rng(3)
    seg = pd.DataFrame({"sys": np.repeat([f"s{i}" for i in range(6)], 20),
                        "mqm": rng.normal(size=120), "comet": rng.normal(size=120),
                        "bleu": rng.normal(size=120)})
    seg["comet"] += np.repeat(np.arange(6), 20) * 0.3
    seg["mqm"] += np.repeat(np.arange(6), 20) * 0.2
    seg.loc[[0, 5, 50], "mqm"] = np.nan
    seg.loc[[7], "bleu"] = np.nan
    res = correlate("mqm ~ comet + bleu | sys", seg)
    assert res.aggregated and res.n_used == 116 and res.n_excluded == 4 and res.n == 6
    assert res.n_rows == 120 and dict(res.excluded) == {"missing score": 4}
    means = seg.dropna().groupby("sys")[["mqm", "comet", "bleu"]].mean()
    assert res.r["comet"] == pytest.approx(stats.pearsonr(means["comet"], means["mqm"]).statistic, abs=1e-13)
    pd.testing.assert_frame_equal(res.scores, means, check_names=False)
    text = str(res)
    # the row account as every summary states it
    info = res.summary().info
    assert (info["rows"], info["rows used"], info["rows excluded"]) == (120, 116, "4 missing score")
    assert "4 missing score" in text
    # s0 lost rows 0, 5 and 7, s2 row 50
    assert "mean of 17 to 20 segment scores per system" in text
    assert res.rows_per_system.tolist() == [17, 20, 19, 20, 20, 20]


def test_spearman_and_kendall(toy):
    # scipy spearmanr / kendalltau; intervals with the Bonett-Wright / Fieller variances
    for method, fun in (("spearman", stats.spearmanr), ("kendall", stats.kendalltau)):
        res = correlate("human ~ bleu + chrf", toy, method=method)
        fr = res.to_frame()
        assert fr.attrs["method"] == method
        for row in fr.itertuples():
            assert row.estimate == pytest.approx(fun(toy[row.metric], toy["human"]).statistic, abs=1e-13)
            assert (row.lower, row.upper) == pytest.approx(fisher_ci(row.estimate, 9, method=method), abs=1e-14)
        r23 = fun(toy["bleu"], toy["chrf"]).statistic
        assert res.correlation_matrix.loc["bleu", "chrf"] == pytest.approx(r23, abs=1e-13)
        assert "approximations" in str(res)


def test_correlate_errors(toy):
    with pytest.raises(DataError, match="only 3 systems"):
        correlate("human ~ bleu", toy.iloc[:3])
    const = toy.assign(flat=1.0)
    with pytest.raises(DataError, match="'flat' is constant"):
        correlate("human ~ bleu + flat", const)
    with pytest.raises(FormulaError, match="unknown name"):
        correlate("human ~ bleuu", toy)
    with pytest.raises(DataError, match="not numeric"):
        correlate("human ~ system", toy)
    with pytest.raises(ParameterError, match="method"):
        correlate("human ~ bleu", toy, method="distance")
    with pytest.raises(DataError, match="Kendall intervals need at least 5"):
        correlate("human ~ bleu", toy.iloc[:4], method="kendall")


def test_result_is_immutable(toy):
    res = correlate("human ~ bleu + chrf", toy)
    with pytest.raises(AttributeError):
        res.method = "spearman"  # type: ignore[misc]
    with pytest.raises(ValueError):
        res._corr[0, 1] = 0.0
    s = res.scores
    s.iloc[0, 0] = 99.0
    assert res.scores.iloc[0, 0] != 99.0


def test_result_pickles(toy):
    import pickle

    res = correlate("human ~ bleu + chrf", toy.assign(bleu=toy["bleu"].where(toy.index != 3)))
    back = pickle.loads(pickle.dumps(res))
    assert back.excluded == res.excluded == {"missing score": 1} and back.n_excluded == 1
    pd.testing.assert_frame_equal(back.pairwise(), res.pairwise())


def test_significance_matrix_and_plots(toy):
    # p(i beats j) + p(j beats i) = 1 for the one-sided Williams test; order by decreasing r
    res = correlate("human ~ bleu + chrf + I(-ter)", toy)
    mat = res.significance_matrix()
    assert list(mat.index) == list(res.r.sort_values(ascending=False).index) == list(mat.columns)
    p = mat.to_numpy()
    assert np.isnan(np.diag(p)).all()
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose((p + p.T)[off], 1.0, atol=1e-12)
    import matplotlib.axes

    for kind in ("heatmap", "forest"):
        ax = res.plot(kind=kind)
        assert isinstance(ax, matplotlib.axes.Axes)
    assert len(res.plot(kind="forest").get_yticklabels()) == 3
    with pytest.raises(ParameterError):
        res.plot(kind="pie")


def test_bootstrap_and_permutation_are_seeded(toy):
    res = correlate("human ~ bleu + chrf", toy)
    b1 = res.bootstrap(n_resamples=999, seed=11)
    b2 = res.bootstrap(n_resamples=999, seed=11)
    pd.testing.assert_frame_equal(b1, b2)
    assert b1.attrs["seed"] == 11
    # the point estimates are the sample correlations and their difference
    assert b1["estimate"].iloc[:2].tolist() == pytest.approx(res.r.tolist(), abs=1e-12)
    assert b1["estimate"].iloc[2] == pytest.approx(res.r["bleu"] - res.r["chrf"], abs=1e-12)
    assert ((b1["lower"] <= b1["estimate"]) & (b1["estimate"] <= b1["upper"])).all()
    p1 = res.permutation_test(n_resamples=999, seed=5)
    pd.testing.assert_frame_equal(p1, res.permutation_test(n_resamples=999, seed=5))
    # randomised test (2^9 > 999): p = (count + 1) / (999 + 1) as in scipy, so p >= 1/1000, and
    # the mirrored direction shares the null draws: p(a > b) + p(b > a) = 1 + (1 + ties) / 1000
    assert (p1["p_value"] >= 1 / 1000).all()
    two = p1.set_index(["metric_1", "metric_2"])["p_value"]
    assert two[("bleu", "chrf")] + two[("chrf", "bleu")] >= 1 + 1 / 1000 - 1e-12


def test_permutation_exact_enumeration():
    # with n = 6 systems scipy enumerates all 2^6 swaps; recompute the exact p by hand
    rng = np.random.default_rng(1)
    h = rng.normal(size=6)
    d = pd.DataFrame({"h": h, "a": h + rng.normal(scale=0.5, size=6), "b": rng.normal(size=6)})
    res = correlate("h ~ a + b", d)
    got = res.permutation_test(n_resamples=9999, seed=0).set_index(["metric_1", "metric_2"])
    z = (d - d.mean()) / d.std(ddof=0)
    obs = stats.pearsonr(z.h, z.a).statistic - stats.pearsonr(z.h, z.b).statistic
    count = count_rev = 0
    for swap in itertools.product([False, True], repeat=6):
        s = np.array(swap)
        x, y = np.where(s, z.b, z.a), np.where(s, z.a, z.b)
        diff = stats.pearsonr(z.h, x).statistic - stats.pearsonr(z.h, y).statistic
        count += diff >= obs - 1e-12
        count_rev += -diff >= -obs - 1e-12
    assert got.loc[("a", "b"), "p_value"] == pytest.approx(count / 64, abs=1e-12)
    assert got.loc[("b", "a"), "p_value"] == pytest.approx(count_rev / 64, abs=1e-12)
    assert got.loc[("a", "b"), "estimate"] == pytest.approx(obs, abs=1e-12)
    assert got.loc[("b", "a"), "estimate"] == pytest.approx(-obs, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# real data: WMT20 and WMT19
# ---------------------------------------------------------------------------------------------
WMT20_LPS = ["csen", "deen", "encs", "ende", "eniu_full", "eniu_news", "enja", "enpl", "enru", "enta",
             "enzh", "iuen", "jaen", "kmen", "plen", "psen", "ruen", "taen", "zhen"]


def _wmt20(lp: str, *, exclude_human: bool = True, exclude_outliers: bool = False) -> pd.DataFrame:
    """WMT20 newstest2020 system-level scores; ``lp`` named as in the WMT20 files (``"ende"``)."""
    code, _, variant = lp.partition("_")
    frame = datasets.load_wmt20(f"{code[:2]}-{code[2:]}")
    if code == "eniu":
        # en-iu was scored on two test sets, "full" and "news" (DA-newstest2020-eniu_{full,news}-
        # sys-scores.csv); the shipped dataset keeps both under lp "en-iu", each system's "full" row
        # first (data-raw/build_datasets.py reads the files in sorted order and sorts stably).
        # Which is which is confirmed by the reported correlations below.
        assert (frame.groupby("system").size() == 2).all()
        frame = frame[frame.groupby("system").cumcount() == ("full", "news").index(variant)]
    if exclude_human:
        frame = frame[~frame["is_human"]]
    if exclude_outliers:
        frame = frame[~frame["outlier"]]
    return frame.reset_index(drop=True)


@pytest.fixture(scope="module")
def wmt20_reported() -> pd.DataFrame:
    return pd.read_csv(REFERENCE / "wmt20_reported_correlations.csv")


@pytest.mark.parametrize("lp", WMT20_LPS)
def test_wmt20_reported_correlations(lp, wmt20_reported, column):
    # WMT20 metrics-task release: DA-<lp>-cor.csv holds the signed Kendall tau over MT systems
    # (Human-* excluded); DA-<lp>-cor-excloutl.csv the Pearson r with outliers also excluded
    # (both copied to wmt20_reported_correlations.csv).
    for outliers, method, col in ((False, "kendall", "Kendall"), (True, "pearson", "Pearson")):
        data = _wmt20(lp, exclude_outliers=outliers)
        reported = wmt20_reported[(wmt20_reported["lp"] == lp)
                                  & (wmt20_reported["outliers_excluded"] == outliers)]
        assert len(reported) > 0
        for n_sys, block in reported.groupby("N"):
            metrics = [column(m) for m in block["metric"]]
            sub = data.dropna(subset=metrics)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", DirectionWarning)
                res = correlate("human ~ " + " + ".join(metrics), sub, method=method)
            # a direction warning names only metrics the release reports as negative
            negative = {m for m, v in zip(metrics, block[col], strict=True) if v < 0}
            for w in caught:
                named = {m for m in metrics if f"'{m}'" in str(w.message).split(" correlate")[0]}
                assert named and named <= negative, str(w.message)
            assert res.n == n_sys
            np.testing.assert_allclose(res.r[metrics], block[col], rtol=0, atol=1e-12)


def test_wmt20_human_systems_are_excluded():
    # WMT20 en-de file: 17 rows, 3 of them Human-*; Human-A (the reference) has NaN for
    # reference-based metrics, Human-B and Human-P are scored against it.  Listwise deletion alone
    # would keep those two as "systems" (16 rows): they must be filtered explicitly, as WMT does.
    with_h = _wmt20("ende", exclude_human=False)
    without = _wmt20("ende")
    assert len(with_h) == 17 and len(without) == 14
    kept = correlate("human ~ bleu", with_h)
    assert kept.n == 16 and kept.n_excluded == 1
    res = correlate("human ~ bleu", without)
    assert res.n == 14 and res.n_excluded == 0


def test_wmt20_pairwise_heatmap_ende():
    # Graham & Liu Fig. 3 style matrix for WMT20 en-de (14 MT systems, a few metrics)
    data = _wmt20("ende")
    res = correlate("human ~ bleu + chrf + comet + yisi_1 + prism + esim", data)
    mat = res.significance_matrix()
    assert mat.shape == (6, 6) and res.n == 14
    # every entry agrees with the scalar Williams test on the same numbers
    cm = res.correlation_matrix
    for a, b in itertools.permutations(res.metrics, 2):
        w = williams_test(cm.loc["human", a], cm.loc["human", b], cm.loc[a, b], 14)
        assert mat.loc[a, b] == pytest.approx(w.p_value, abs=1e-12)
    ax = res.plot(kind="heatmap")
    assert ax.get_title().startswith("Williams p")


def test_wmt19_system_level():
    # WMT19 de-en, 16 systems: r and intervals equal scipy's pearsonr for every metric
    # (wmt19_deen_system_level.csv: DA z-score and every metric that scores all 16 systems)
    data = pd.read_csv(REFERENCE / "wmt19_deen_system_level.csv")
    metrics = [c for c in data.columns if c not in ("SYSTEM", "HUMAN")]
    res = correlate("HUMAN ~ " + " + ".join(f'Q("{m}")' for m in metrics), data)
    assert res.n == 16 and len(res.metrics) == len(metrics) >= 20
    fr = res.to_frame().set_index("metric")
    for m in metrics:
        ref = stats.pearsonr(data[m], data["HUMAN"])
        ci = ref.confidence_interval()
        assert (fr.loc[m, "estimate"], fr.loc[m, "lower"], fr.loc[m, "upper"]) == pytest.approx(
            (ref.statistic, ci.low, ci.high), abs=1e-12)
    assert len(res.pairwise()) == len(metrics) * (len(metrics) - 1)
    # WMT's |r| convention: absolute=True negates exactly the metrics with r < 0 (in de-en the
    # quality-estimation "metrics" LP, ibm1-morpheme, ibm1-pos4gram); the other correlations are
    # untouched, and metric-metric correlations change sign only across a flipped/unflipped pair.
    wmt = correlate(res.formula, data, absolute=True)
    negative = tuple(m for m in metrics if res.r[m] < 0)
    assert wmt.flipped == negative == ("LP", "ibm1-morpheme", "ibm1-pos4gram")
    np.testing.assert_allclose(wmt.r, np.abs(res.r), rtol=0, atol=1e-15)
    flipped_data = data.copy()
    flipped_data[list(negative)] *= -1
    manual = correlate(res.formula, flipped_data)
    np.testing.assert_allclose(wmt.correlation_matrix, manual.correlation_matrix, rtol=0, atol=1e-13)
    pd.testing.assert_frame_equal(wmt.pairwise(), manual.pairwise(), atol=1e-10)


# ---------------------------------------------------------------------------------------------
# hybrid super-sampling
# ---------------------------------------------------------------------------------------------
def _coded_segments() -> pd.DataFrame:
    # item j of system s scores code[s] * 10^j: a hybrid's total decodes to the chosen systems
    code = {"A": 1, "B": 2, "C": 3, "D": 4}
    rows = [(s, j, c * 10.0 ** j) for s, c in code.items() for j in range(4)]
    d = pd.DataFrame(rows, columns=["sys", "seg", "human"])
    d["metric"] = 2 * d["human"] + 1
    return d


def test_hybrid_mixes_two_systems_per_segment():
    d = _coded_segments()
    h = hybrid_supersample(d, system="sys", item="seg", human="human", metrics=["metric"],
                           n_systems=300, seed=4)
    assert list(h.columns) == ["system", "system_a", "system_b", "human", "metric"]
    assert (h["system_a"] != h["system_b"]).all()
    # the metric is 2 human + 1 on every segment, so also on every hybrid (same mask for all columns)
    np.testing.assert_allclose(h["metric"], 2 * h["human"] + 1, rtol=1e-12)
    code = {"A": 1, "B": 2, "C": 3, "D": 4}
    for row in h.itertuples():
        total = int(round(row.human * 4))
        digits = [(total // 10 ** j) % 10 for j in range(4)]
        assert set(digits) <= {code[row.system_a], code[row.system_b]}
    assert h.attrs["seed"] == 4 and h.attrs["n_items"] == 4


def test_hybrid_seed_and_chunk_invariance():
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"sys": np.repeat(list("ABCDE"), 30), "seg": np.tile(range(30), 5),
                      "h": rng.normal(size=150), "m": rng.normal(size=150)})
    one = hybrid_supersample(d, system="sys", item="seg", human="h", metrics=["m"], n_systems=777,
                             seed=9, chunk_size=1000)
    small = hybrid_supersample(d, system="sys", item="seg", human="h", metrics=["m"], n_systems=777,
                               seed=9, chunk_size=13)
    pd.testing.assert_frame_equal(one, small)
    other = hybrid_supersample(d, system="sys", item="seg", human="h", metrics=["m"], n_systems=777,
                               seed=10)
    assert not np.allclose(one["h"], other["h"])


def test_hybrid_rater_standardisation():
    # with rater=..., human scores become z-scores per rater before averaging per (system, item)
    d = pd.DataFrame({"sys": list("AABBAABB"), "seg": [0, 1, 0, 1] * 2, "rater": ["r1"] * 4 + ["r2"] * 4,
                      "h": [1.0, 2.0, 3.0, 4.0, 10.0, 30.0, 20.0, 40.0], "m": [1.0, 2, 3, 4] * 2})
    h = hybrid_supersample(d, system="sys", item="seg", human="h", metrics=["m"], n_systems=50, seed=1,
                           rater="rater")
    z1 = (np.array([1.0, 2, 3, 4]) - 2.5) / np.std([1.0, 2, 3, 4], ddof=1)
    z2 = (np.array([10.0, 30, 20, 40]) - 25) / np.std([10.0, 30, 20, 40], ddof=1)
    per_item = (z1 + z2) / 2  # A0, A1, B0, B1
    # item 0 from A or B, item 1 from A or B
    possible = {round((per_item[x0] + per_item[y1]) / 2, 12) for x0 in (0, 2) for y1 in (1, 3)}
    assert {round(v, 12) for v in h["h"]} <= possible


def test_hybrid_errors():
    d = _coded_segments()
    with pytest.raises(DataError, match="mismatched systems"):
        hybrid_supersample(d.iloc[1:], system="sys", item="seg", human="human", metrics=["metric"])
    with pytest.raises(DataError, match="occurs more than once"):
        hybrid_supersample(pd.concat([d, d.iloc[:1]]), system="sys", item="seg", human="human",
                           metrics=["metric"])
    with pytest.raises(DataError, match="not in data"):
        hybrid_supersample(d, system="sys", item="seg", human="human", metrics=["comet"])
    with pytest.raises(DataError, match="at least 2 systems"):
        hybrid_supersample(d[d.sys == "A"], system="sys", item="seg", human="human", metrics=["metric"])
    with pytest.raises(ParameterError, match="n_systems"):
        hybrid_supersample(d, system="sys", item="seg", human="human", metrics=["metric"], n_systems=0)


@pytest.fixture(scope="module")
def enru() -> pd.DataFrame:
    # the 14 systems with metric scores (9 MT systems and metricsystem1-5; refA and refB have none)
    df = datasets.load_wmt21_enru()
    return df[df.groupby("system")["bleurt20"].transform("count") > 0].reset_index(drop=True)


def test_hybrid_wmt21_enru_intervals_shrink(enru):
    # WMT21 en-ru, 14 MT systems, MQM on the 527 annotated segments (data README section 2);
    # BLEURT-20, COMET-MQM_2021 (reference A), chrF2 and BLEU
    real = correlate("mqm ~ bleurt20 + comet_mqm + chrf2 + bleu | system", enru)
    assert real.n == 14 and real.n_used == 14 * 527
    hyb = hybrid_supersample(enru, system="system", item="seg_id", human="mqm",
                             metrics=["bleurt20", "comet_mqm", "chrf2", "bleu"], n_systems=10000,
                             seed=2016)
    assert hyb.attrs["n_items"] == 527 and hyb.attrs["items_dropped"] == 1002 - 527
    # over 10,000 hybrids the string metrics' small negative r (about -0.15) is clear: said
    with pytest.warns(DirectionWarning, match=r"\['chrf2', 'bleu'\] correlate clearly"):
        big = correlate("mqm ~ bleurt20 + comet_mqm + chrf2 + bleu", hyb)
    assert big.n == 10000
    w_real = real.to_frame().eval("upper - lower")
    w_big = big.to_frame().eval("upper - lower")
    # Fisher widths scale like 1/sqrt(n - 3): 14 systems -> 10,000 hybrids is ~30x narrower
    assert (w_big < w_real / 10).all()
    # the expected hybrid score is the mean of the real systems' means (pairs are uniform)
    sys_means = real.scores["mqm"].mean()
    se = hyb["mqm"].std() / math.sqrt(len(hyb))
    assert abs(hyb["mqm"].mean() - sys_means) < 5 * se


@pytest.mark.filterwarnings("ignore::binaryeval.errors.DirectionWarning")  # random, unrelated scores
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(5, 40))
def test_kendall_with_ties_matches_scipy(seed, n):
    # scipy kendalltau (tau-b) on tied integer scores; pairwise Kendall r_23 as well
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({"h": rng.integers(0, 4, n), "a": rng.integers(0, 3, n), "b": rng.integers(0, 5, n)})
    d = d.astype(float)
    if (d.nunique() < 2).any():
        return
    res = correlate("h ~ a + b", d, method="kendall")
    cm = res.correlation_matrix
    for x, y in (("h", "a"), ("h", "b"), ("a", "b")):
        assert cm.loc[x, y] == pytest.approx(stats.kendalltau(d[x], d[y]).statistic, abs=1e-13)


def test_interval_and_williams_result_protocol(toy):
    res = correlate("human ~ bleu + chrf", toy)
    iv = res.interval(0.9)
    assert list(iv.columns) == ["lower", "upper"] and iv.attrs["level"] == 0.9
    # same numbers as fisher_ci at that level
    assert tuple(iv.loc["bleu"]) == pytest.approx(fisher_ci(res.r["bleu"], 9, 0.9), abs=1e-15)
    w = williams_test(0.9, 0.8, 0.7, 10)
    assert w.confidence_interval(0.9) == zou_ci(0.9, 0.8, 0.7, 10, level=0.9)
    assert repr(w) == (f"WilliamsResult(statistic={w.statistic:.6g}, p_value={w.p_value:.6g}, "
                       "df=7, alternative='greater')")
    assert str(w).startswith("Williams test") and "<table" in w._repr_html_()
    stat, p = w
    assert (stat, p) == (w.statistic, w.p_value) and w.df == 7 and w.alternative == "greater"


def test_hybrid_drops_items_with_missing_scores():
    # an item missing (NaN) for one system is dropped for all systems and counted
    d = _coded_segments()
    d.loc[(d.sys == "B") & (d.seg == 2), "human"] = np.nan
    h = hybrid_supersample(d, system="sys", item="seg", human="human", metrics=["metric"],
                           n_systems=20, seed=0)
    assert h.attrs["n_items"] == 3 and h.attrs["items_dropped"] == 1


def test_hybrid_excluded_rows_name_each_row_left_out_by_its_label_and_reason():
    # the caller's own labels (strings, rows in reverse order): an item missing one score is
    # dropped for every system, and each of its rows is listed, in data order
    d = _coded_segments().iloc[::-1]
    d.index = pd.Index([f"row{i:02d}" for i in range(len(d))], name="rid")
    d.loc[(d.sys == "B") & (d.seg == 2), "human"] = np.nan
    h = hybrid_supersample(d, system="sys", item="seg", human="human", metrics=["metric"],
                           n_systems=20, seed=0)
    rows = h.attrs["excluded_rows"].series()
    item_2 = d.index[(d.seg == 2).to_numpy()]
    assert len(item_2) == 4 and list(rows.index) == list(item_2)   # all four systems' rows
    assert list(rows.index) == [label for label in d.index if label in set(item_2)]
    assert rows.index.name == "rid" and rows.name == "reason"
    assert set(rows) == {"incomplete item"}
    assert rows.value_counts().to_dict() == h.attrs["excluded"] == {"incomplete item": 4}
    assert len(rows) == h.attrs["n_excluded"] == h.attrs["n_rows"] - h.attrs["n_used"]
    # nothing left out: an empty Series, the index's name kept
    full = hybrid_supersample(_coded_segments().set_index(pd.Index(list("abcdefghijklmnop"),
                                                                    name="rid")),
                              system="sys", item="seg", human="human", metrics=["metric"],
                              n_systems=5, seed=0)
    none = full.attrs["excluded_rows"].series()
    assert isinstance(none, pd.Series) and none.empty and none.index.name == "rid"
    assert full.attrs["excluded"] == {} and none.value_counts().to_dict() == {}


def test_hybrid_excluded_rows_with_raters_tell_a_missing_score_from_an_incomplete_item():
    # with rater, a NaN rating of an item the other ratings keep is a "missing score"; an item
    # whose every rating of one system is NaN is incomplete, and all of its rows go
    d = pd.DataFrame({"sys": list("AABBAABB") * 2, "seg": [0, 1, 0, 1] * 4,
                      "rater": ["r1"] * 8 + ["r2"] * 8,
                      "h": np.arange(16, dtype=float), "m": np.arange(16, dtype=float) % 5})
    d.index = [f"x{i}" for i in range(16)][::-1]
    lone = d.index[((d.sys == "A") & (d.seg == 0)).to_numpy()][1]   # one of A's four on item 0
    d.loc[lone, "h"] = np.nan
    d.loc[(d.sys == "B") & (d.seg == 1), "h"] = np.nan   # every rating of B on item 1
    h = hybrid_supersample(d, system="sys", item="seg", human="h", metrics=["m"], n_systems=10,
                           seed=1, rater="rater")
    rows = h.attrs["excluded_rows"].series()
    dropped = d.index[(d.seg == 1).to_numpy()]          # item 1 goes for A and B alike
    assert rows.drop(lone).index.tolist() == dropped.tolist()
    assert list(rows.index) == [label for label in d.index if label in set(rows.index)]
    assert rows[lone] == "missing score" and (rows.drop(lone) == "incomplete item").all()
    assert rows.value_counts().to_dict() == h.attrs["excluded"] == {"incomplete item": 8,
                                                                     "missing score": 1}


def test_hybrids_with_their_excluded_rows_are_read_by_correlate():
    rng = np.random.default_rng(5)
    d = pd.DataFrame({"sys": np.repeat(list("ABCD"), 30), "seg": np.tile(range(30), 4),
                      "mqm": rng.normal(size=120)}, index=[f"r{i}" for i in range(120)])
    d["comet"] = d["mqm"] + rng.normal(size=120)
    d.loc["r31", "comet"] = np.nan   # item 1 of system B
    h = hybrid_supersample(d, system="sys", item="seg", human="mqm", metrics=["comet"],
                           n_systems=50, seed=2)
    assert h.attrs["excluded_rows"].series().index.tolist() == ["r1", "r31", "r61", "r91"]
    assert correlate("mqm ~ comet", h).n == 50
    # the frame still joins: pandas compares the attrs of the frames it concatenates or
    # merges, which a Series there would stop ("truth value of a Series is ambiguous")
    both = pd.concat([h.iloc[:20], h.iloc[20:]])
    assert both.equals(h) and both.attrs["excluded_rows"] == h.attrs["excluded_rows"]
    assert len(pd.concat([h, h.copy()])) == 100
    assert len(h.merge(h[["system"]], on="system")) == 50
    other = hybrid_supersample(d.fillna({"comet": 0.0}), system="sys", item="seg", human="mqm",
                               metrics=["comet"], n_systems=50, seed=2)
    assert other.attrs["excluded_rows"] != h.attrs["excluded_rows"]


# ---------------------------------------------------------------------------------------------
# directions: lower_is_better on either side, and the sign check
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ende() -> pd.DataFrame:
    # shipped WMT21 en-de: mqm is minus the MQM penalty (higher is better); chrF/BLEU/TER for the
    # 8 MT systems with released text (human translations left out, as WMT does), 527
    # MQM-annotated segments each
    from binaryeval.datasets import load_wmt21_ende

    data = load_wmt21_ende(annotated_only=True).dropna(subset=["chrf"])
    return data[~data["system"].str.startswith("ref-")]


def test_human_lower_is_better_equals_the_negated_column(ende):
    # raw MQM penalties (lower is better) declared as such give exactly the numbers of the
    # shipped, negated column; metric-metric correlations are untouched
    raw = ende.assign(mqm=-ende["mqm"])
    shipped = correlate("mqm ~ chrf + bleu | system", ende)
    declared = correlate("mqm ~ chrf + bleu | system", raw, lower_is_better=["mqm"])
    as_string = correlate("mqm ~ chrf + bleu | system", raw, lower_is_better="mqm")
    assert shipped.n == 8 and (shipped.r > 0).all()
    np.testing.assert_allclose(declared.correlation_matrix, shipped.correlation_matrix,
                               rtol=0, atol=1e-14)
    pd.testing.assert_frame_equal(declared.pairwise(), shipped.pairwise(), atol=1e-12)
    pd.testing.assert_frame_equal(as_string.to_frame(), declared.to_frame())
    assert declared.lower_is_better == ("mqm",) and declared.flipped == ("mqm",)
    attrs = declared.to_frame().attrs
    assert attrs["lower_is_better"] == ["mqm"]
    assert attrs["directions"] == {"mqm": "lower is better (negated)", "chrf": "higher is better",
                                  "bleu": "higher is better"}
    assert "lower is better (negated): mqm" in str(declared)
    assert "higher is better: chrf, bleu" in str(declared)
    # both sides at once: TER (lower is better) on the metric side
    both = correlate("mqm ~ chrf + ter | system", raw, lower_is_better=["mqm", "ter"])
    ter = correlate("mqm ~ I(-ter) | system", ende).r["I(-ter)"]
    assert both.r["ter"] == pytest.approx(ter, abs=1e-14) and ter > 0
    assert both.to_frame().attrs["directions"]["ter"] == "lower is better (negated)"


def test_sign_check_warns_once_at_the_users_line(ende):
    import warnings

    from binaryeval.errors import DirectionWarning

    raw = ende.assign(mqm=-ende["mqm"])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = correlate("mqm ~ chrf + bleu | system", raw)
    hits = [x for x in w if issubclass(x.category, DirectionWarning)]
    assert len(hits) == 1 and len(w) == 1
    assert hits[0].filename == __file__
    message = str(hits[0].message)
    assert "lower_is_better=['mqm']" in message and "every metric correlates negatively" in message
    assert (res.r < 0).all()
    # declared, or the |r| convention asked for: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        correlate("mqm ~ chrf + bleu | system", raw, lower_is_better=["mqm"])
        correlate("mqm ~ chrf + bleu | system", raw, absolute=True)
        correlate("mqm ~ chrf + ter | system", raw, lower_is_better=["mqm", "ter"])
    # penalties and TER both undeclared: TER agrees, chrF runs clearly against (said: the
    # comparison of the two would rank chrF by its opposite)
    with pytest.warns(DirectionWarning, match=r"metric\(s\) \['chrf'\] correlate clearly"):
        correlate("mqm ~ chrf + ter | system", raw)


def test_sign_check_through_the_package_layers_points_at_the_caller():
    # a metric-only mistake (TER not declared) with one metric also warns, naming the terms
    import warnings

    from binaryeval.errors import DirectionWarning

    d = pd.DataFrame({"human": [1.0, 2, 3, 4, 5], "ter": [0.9, 0.7, 0.8, 0.5, 0.4]})
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        correlate("human ~ ter", d)
    assert len(w) == 1 and w[0].category is DirectionWarning and w[0].filename == __file__
    assert "the metric 'ter' correlates negatively" in str(w[0].message)


def test_lower_is_better_names_are_checked(toy):
    with pytest.raises(ParameterError, match=r"lower_is_better=\['TER'\] names 'TER'.*'human', "
                                             r"'bleu', 'ter'"):
        correlate("human ~ bleu + ter", toy, lower_is_better=["TER"])
    # Q("...") terms are named by their column, or by the term as written
    d = toy.rename(columns={"ter": "TER-1"})
    a = correlate('human ~ Q("TER-1")', d, lower_is_better=["TER-1"])
    b = correlate('human ~ Q("TER-1")', d, lower_is_better=['Q("TER-1")'])
    assert a.flipped == b.flipped == ("TER-1",) and a.r["TER-1"] > 0


# ---------------------------------------------------------------------------------------------
# aggregation: segment rows -> system scores, or ready system-level rows
# ---------------------------------------------------------------------------------------------
def test_segment_means_equal_a_ready_system_frame(ende):
    # WMT21 en-de shipped data: "| system" averaging 527 segment scores per system gives the same
    # results as a frame with one row per system holding those means (with or without "| system")
    formula = "mqm ~ chrf + bleu + I(-ter)"
    seg = correlate(formula + " | system", ende)
    means = ende.groupby("system")[["mqm", "chrf", "bleu", "ter"]].mean().reset_index()
    ready = correlate(formula + " | system", means)
    plain = correlate(formula, means)
    for other in (ready, plain):
        np.testing.assert_array_equal(other.correlation_matrix, seg.correlation_matrix)
        pd.testing.assert_frame_equal(other.to_frame(), seg.to_frame(), check_like=False,
                                      check_exact=True, check_flags=False)
        pd.testing.assert_frame_equal(other.pairwise(), seg.pairwise(), check_exact=True)
    assert seg.n == ready.n == plain.n == 8
    assert seg.aggregate == "mean" and seg.aggregated and seg.n_used == 8 * 527
    assert seg.system_scores == "mean of 527 segment scores per system"
    assert "system scores: mean of 527 segment scores per system" in " ".join(str(seg).split())
    assert "not the mean of its sentence scores" in " ".join(seg.summary().notes)
    assert "not the mean of its sentence scores" not in " ".join(ready.summary().notes)
    assert ready.aggregate is None and not ready.aggregated
    assert ready.system_scores == "one row per system, used as given (no aggregation)"
    assert plain.system_scores == "one row per system, used as given"
    assert seg.to_frame().attrs["system_scores"] == seg.system_scores
    assert ready.to_frame().attrs["aggregate"] is None


def test_median_aggregation(ende):
    # the median MQM of every MT system is 0 (most segments have no error): refused as constant
    with pytest.raises(DataError, match="'mqm' is constant over the 8 systems"):
        correlate("mqm ~ chrf | system", ende, aggregate="median")
    rng = np.random.default_rng(5)
    seg = pd.DataFrame({"sys": np.repeat(list("ABCDEF"), 31), "h": rng.normal(size=186),
                        "m": rng.normal(size=186)})
    seg["h"] += np.repeat(np.arange(6), 31) * 0.5
    seg["m"] += seg["h"]
    res = correlate("h ~ m | sys", seg, aggregate="median")
    med = seg.groupby("sys")[["h", "m"]].median()
    pd.testing.assert_frame_equal(res.scores, med, check_names=False)
    assert res.r["m"] == pytest.approx(stats.pearsonr(med["m"], med["h"]).statistic, abs=1e-13)
    assert res.system_scores == "median of 31 segment scores per system"


def test_aggregate_none_insists_on_one_row_per_system(ende):
    with pytest.raises(DataError, match="has 527 rows, but aggregate=None"):
        correlate("mqm ~ chrf | system", ende, aggregate=None)
    means = ende.groupby("system")[["mqm", "chrf"]].mean().reset_index()
    assert correlate("mqm ~ chrf | system", means, aggregate=None).n == 8
    with pytest.raises(ParameterError, match="aggregate='sum'"):
        correlate("mqm ~ chrf | system", ende, aggregate="sum")


# ---------------------------------------------------------------------------------------------
# misuse refused: infinite scores, duplicated column names; renamed arguments
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("column", ["human", "bleu"])
def test_infinite_scores_are_refused_naming_column_and_row(toy, column):
    # without the check, r would be NaN with a numpy warning
    bad = toy.copy()
    bad.loc[4, column] = np.inf
    with pytest.raises(DataError, match=rf"column '{column}' holds inf in row 4"):
        correlate("human ~ bleu + chrf", bad)
    # segment rows and expressions: the term is named, the first infinite row and the count given
    bad.loc[2, column] = -np.inf
    with pytest.raises(DataError, match=r"column 'I\(bleu \* 2\)' holds -inf in row 2 \(2 infinite"):
        correlate("chrf ~ I(bleu * 2) | system", bad.assign(bleu=bad[column]))


def test_duplicated_column_names_are_refused(toy):
    dup = pd.concat([toy, toy[["bleu"]]], axis=1)
    with pytest.raises(DataError, match=r"duplicated column names \['bleu'\]"):
        correlate("human ~ bleu + chrf", dup)
    with pytest.raises(DataError, match=r"duplicated column names \['bleu'\]"):
        hybrid_supersample(dup, system="system", item="system", human="human", metrics=["chrf"])


def test_old_spellings_raise_naming_the_new_ones(toy):
    res = correlate("human ~ bleu + chrf", toy)
    with pytest.raises(InputTypeError, match="'alpha', which is now 'sig_level'"):
        res.pairwise(alpha=0.01)
    with pytest.raises(InputTypeError, match="'alpha', which is now 'sig_level'"):
        res.plot(alpha=0.01)
    with pytest.raises(InputTypeError, match="'confidence_level', which is now 'level'"):
        williams_test(0.9, 0.8, 0.7, 10).confidence_interval(confidence_level=0.9)
    pw = res.pairwise(sig_level=0.5)
    assert pw.attrs["sig_level"] == 0.5 and (pw["significant"] == (pw["p_value"] < 0.5)).all()
    with pytest.raises(ParameterError, match="sig_level"):
        res.pairwise(sig_level=5)
    with pytest.raises(ParameterError, match="n_resamples"):
        res.bootstrap(n_resamples=0)


def test_williams_result_frame_matches_the_functions():
    # one row: the three correlations, r12 - r13 with Zou's interval, and the test
    w = williams_test(0.95, 0.90, 0.90, 12)
    fr = w.to_frame(level=0.9)
    row = fr.iloc[0]
    assert (row.r12, row.r13, row.r23, row.n, row.df) == (0.95, 0.90, 0.90, 12, 9)
    assert row.estimate == pytest.approx(0.05, abs=1e-15)
    assert (row.lower, row.upper) == zou_ci(0.95, 0.90, 0.90, 12, level=0.9)
    assert (row.statistic, row.p_value) == (w.statistic, w.p_value)
    assert fr.attrs["level"] == 0.9 and fr.attrs["alternative"] == "greater"
    # R reference README: t = 1.126297 for this triple
    assert "1.1263" in str(w)


# ---------------------------------------------------------------------------------------------
# correlations of exactly +-1
# ---------------------------------------------------------------------------------------------
def _p_perfect_ranking(rho: float, n: int, size: int, seed: int) -> float:
    """Monte Carlo P(the n ranks of y equal those of x) for bivariate normal data, correlation rho."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((size, n))
    y = rho * x + math.sqrt(1 - rho ** 2) * rng.standard_normal((size, n))
    ys = np.take_along_axis(y, np.argsort(x, axis=1), axis=1)
    return float((np.diff(ys, axis=1) > 0).all(axis=1).mean())


def _rank_at_one(n, q, method):
    # the closed form: Spearman 1 - 12/(n^3 - n), Kendall the normal-copula tau of that rho
    rho = 1 - 12 / (n ** 3 - n)
    if method == "kendall":
        rho = 2 / math.pi * math.asin(2 * math.sin(math.pi * rho / 6))
        se = math.sqrt(0.437 / (n - 4))
    else:
        se = math.sqrt((1 + rho ** 2 / 2) / (n - 3))
    return math.tanh(math.atanh(rho) - q * se)


# Exact lower ends at a rank correlation of 1 under bivariate normal data: the population value at
# which a perfect ranking of n systems has probability (1 - level)/2, found by bisection on the
# Pearson rho with 40,000 simulated samples per step (numpy default_rng(2)), converted with
# Spearman = (6/pi) asin(rho/2) and Kendall = (2/pi) asin(rho).  (level, n, Spearman, Kendall).
PERFECT_RANKING_LOWER = [
    (0.8, 6, 0.86845, 0.68280), (0.8, 10, 0.98473, 0.89381), (0.8, 20, 0.99917, 0.97535),
    (0.95, 5, 0.34688, 0.23530), (0.95, 6, 0.65287, 0.46779), (0.95, 8, 0.89169, 0.71319),
    (0.95, 10, 0.95893, 0.82517), (0.95, 15, 0.99255, 0.92589), (0.95, 20, 0.99773, 0.95918),
    (0.95, 40, 0.99987, 0.99039), (0.95, 60, 0.99998, 0.99578),
    (0.99, 6, 0.29692, 0.20044), (0.99, 8, 0.75642, 0.56106), (0.99, 20, 0.99527, 0.94100),
]


def test_rank_correlation_of_one_is_not_the_point():
    # Guards: a Spearman rho of exactly 1 with 6 systems got the interval [1, 1] and the Williams
    # test then declared the metric the winner at p = 0.0012 (Pearson on the same data: 0.44).
    d = pd.DataFrame(dict(human=[1, 2, 3, 4, 5, 6.0], m=[10, 12, 13, 17, 18, 30.0],
                          m2=[1, 3, 2, 4, 6, 5.0]))
    res = correlate("human ~ m + m2", d, method="spearman")
    assert res.r["m"] == 1.0  # identical rankings: exactly 1, not 1 - 1 ulp
    fr = res.to_frame().set_index("metric")
    q = special.ndtri(0.975)
    low = _rank_at_one(6, q, "spearman")  # Bonett-Wright interval at rho = 1 - 12/210
    assert low == pytest.approx(0.382651, abs=1e-6)
    assert fr.loc["m", "lower"] == pytest.approx(low, abs=1e-12) and fr.loc["m", "upper"] == 1.0
    assert fisher_ci(1.0, 6, method="spearman") == pytest.approx((low, 1.0), abs=1e-12)
    assert fisher_ci(-1.0, 6, method="spearman") == pytest.approx((-1.0, -low), abs=1e-12)
    # the 95% lower end may not exceed 0.653, the population Spearman at which a perfect ranking
    # of 6 systems has probability 0.025 (table above); checked here by a fresh simulation too:
    # at the lower end (Pearson rho = 2 sin(pi 0.3827/6) = 0.398) a perfect ranking is rare
    # (about 0.005), at 0.653 (Pearson 0.670) it has probability 0.025 (+- 0.002 here)
    assert low <= 0.65287
    assert _p_perfect_ranking(2 * math.sin(math.pi * low / 6), 6, 40_000, 11) < 0.0125
    assert _p_perfect_ranking(0.67044, 6, 40_000, 12) == pytest.approx(0.025, abs=0.003)
    # the Williams test and Zou's interval use the same value, 1 - 12/210, in place of 1
    r13 = 1 - 6 * 4 / 210  # sum of squared rank differences 4
    pw = res.pairwise().set_index(["metric_1", "metric_2"])
    row = pw.loc[("m", "m2")]
    t, p = williams_test(1 - 12 / 210, r13, r13, 6)
    assert row.statistic == pytest.approx(t, abs=1e-9) and row.p_value == pytest.approx(p, abs=1e-9)
    assert p == pytest.approx(0.2805, abs=1e-4) and not row.significant
    assert (row.lower, row.upper) == pytest.approx(zou_ci(1.0, r13, r13, 6, method="spearman"),
                                                   abs=1e-12)
    assert row.lower < 0 < row.upper
    assert not pw["significant"].any()
    assert "+-0.9429" in res.summary().as_text()


@pytest.mark.parametrize("level, n, spearman, kendall", PERFECT_RANKING_LOWER)
def test_rank_interval_at_one_is_conservative(level, n, spearman, kendall):
    # the lower end at r = 1 never exceeds the exact (simulated) one, and lies below the lower end
    # at the largest attainable value below 1 (the interval widens as it should)
    q = special.ndtri((1 + level) / 2)
    for method, exact, largest in (("spearman", spearman, 1 - 12 / (n ** 3 - n)),
                                   ("kendall", kendall, 1 - 4 / (n * (n - 1)))):
        low, high = fisher_ci(1.0, n, level, method=method)
        assert high == 1.0
        assert low == pytest.approx(_rank_at_one(n, q, method), abs=1e-12)
        assert low <= exact
        assert low <= fisher_ci(largest, n, level, method=method)[0]


def test_kendall_largest_value_below_one_would_overstate():
    # why Kendall does not use its own largest value below 1, 1 - 4/(n(n - 1)): with 8 systems
    # that interval's lower end, 0.762, exceeds the exact 0.713 of the table above
    assert fisher_ci(1 - 4 / 56, 8, method="kendall")[0] == pytest.approx(0.7616, abs=1e-4)
    assert fisher_ci(1.0, 8, method="kendall")[0] < 0.71319


def test_pearson_exact_line_keeps_the_point_and_warns():
    d = pd.DataFrame(dict(human=[1, 2, 3, 4, 5, 6.0], m=[10, 12, 13, 17, 18, 30.0]))
    d["copy"] = 3 * d["human"] + 1
    with pytest.warns(BinaryEvalWarning, match=r"\['copy'\] are an exact linear function") as w:
        res = correlate("human ~ m + copy", d)
    assert len(w) == 1 and w[0].filename == __file__
    fr = res.to_frame().set_index("metric")
    assert (fr.loc["copy", "lower"], fr.loc["copy", "upper"]) == pytest.approx((1.0, 1.0))


@pytest.mark.parametrize("alternative, text", [("greater", "'greater' is r12 > r13"),
                                               ("less", "'less' is r12 < r13"),
                                               ("two-sided", "'two-sided' is r12 != r13")])
def test_williams_note_names_the_alternative(alternative, text):
    out = williams_test(0.9, 0.95, 0.9, 12, alternative=alternative).summary().as_text()
    assert text in " ".join(out.split())
    assert "'greater' tests" not in out


@pytest.mark.parametrize("rater", [False, True])
def test_hybrid_does_not_depend_on_row_order(rater):
    # Guards: the systems and items were taken in order of appearance, so shuffled rows gave
    # other hybrids for the same seed
    rng = np.random.default_rng(3)
    d = pd.DataFrame({"sys": np.repeat(list("DBCAE"), 20), "seg": np.tile(np.arange(20)[::-1], 5),
                      "h": rng.normal(size=100), "m": rng.normal(size=100)})
    kw = dict(system="sys", item="seg", human="h", metrics=["m"], n_systems=300, seed=5)
    if rater:
        d = pd.concat([d.assign(r="r1"), d.assign(r="r2", h=d["h"] * 2 + 1)], ignore_index=True)
        kw["rater"] = "r"
    one = hybrid_supersample(d, **kw)
    for s in range(3):
        shuffled = d.sample(frac=1, random_state=s)
        pd.testing.assert_frame_equal(hybrid_supersample(shuffled, **kw), one)
    # mixed key types still sort (by type name, then text)
    mixed = d.assign(seg=d["seg"].astype(object).where(d["seg"] % 2 == 0, d["seg"].astype(str)))
    pd.testing.assert_frame_equal(hybrid_supersample(mixed.sample(frac=1, random_state=0), **kw),
                                  hybrid_supersample(mixed, **kw))


def test_a_rescaled_copy_does_not_beat_itself_and_a_negated_metric_takes_the_limit():
    # Guards: BLEU and BLEU/100 gave Williams t = +-inf, p = 0, "significant" (r12 and r13 an
    # ulp apart over a denominator of 0); a metric against its negation gave t = 0 (rank
    # methods) or inf (Pearson) where the formula tends to r sqrt(n - 3) / sqrt(1 - r^2)
    d = pd.DataFrame({"human": [70.3, 83.6, 82.2, 64.9, 67.0, 64.7, 75.7, 69.4],
                      "bleu": [26.4, 20.5, 33.7, 21.2, 25.1, 21.0, 23.7, 25.0]})
    d["bleu_frac"] = d["bleu"] / 100
    pw = be.correlate("human ~ bleu + bleu_frac", d).pairwise()
    assert (pw["statistic"] == 0.0).all() and (pw["p_value"] == 0.5).all()
    assert not pw["significant"].any()
    six = pd.DataFrame({"human": [1, 2, 3, 4, 5, 6.], "bleu": [20, 22, 21, 25, 27, 26.]})
    six["neg"] = -six["bleu"]
    for method in ("pearson", "spearman", "kendall"):
        with pytest.warns(DirectionWarning, match=r"\['neg'\] correlate clearly"):
            row = be.correlate("human ~ bleu + neg", six, method=method).pairwise().iloc[0]
        r = (row["r_1"] - row["r_2"]) / 2
        assert row["statistic"] == pytest.approx(r * math.sqrt(3) / math.sqrt(1 - r * r),
                                                 rel=1e-12), method
        # the limit, approached from inside: a slightly perturbed negation
        near = be.williams_test(row["r_1"], row["r_2"], -1 + 1e-9, n=6)
        assert near.statistic == pytest.approx(row["statistic"], rel=1e-6), method


@pytest.mark.parametrize("n", [5, 16, 33])
def test_identical_rankings_are_a_kendall_tau_of_exactly_one(n):
    # Guards: tau-b of identical rankings came out 0.9999999999999998 at n = 5, 16, 33, ...,
    # skipping the documented handling of a rank correlation of 1 (the interval collapsed on 1
    # and Williams' test used the raw value: "significant" at n = 5)
    rng = np.random.default_rng(n)
    x = rng.permutation(n).astype(float)
    d = pd.DataFrame({"human": x, "same": 10 * x + 3, "reversed": -x,
                      "other": rng.permutation(n).astype(float)})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DirectionWarning)
        res = be.correlate("human ~ same + reversed + other", d, method="kendall")
    # 'reversed' is said once its interval lies below 0 (not with 5 systems)
    assert [str(w.message)[:22] for w in caught] == ["metric(s) ['reversed']"] * (n > 5)
    assert res.r["same"] == 1.0 and res.r["reversed"] == -1.0
    frame = res.to_frame().set_index("metric")
    low, high = be.fisher_ci(1.0, n, method="kendall")
    assert frame.loc["same", "lower"] == pytest.approx(low, rel=1e-12)
    assert frame.loc["same", "upper"] == high == 1.0


def test_a_bootstrap_with_undefined_resamples_is_refused_with_the_reason():
    # Guards: at 6 systems, 2 of 9,999 resamples had a constant column and every row of the
    # bootstrap table came out NaN, with scipy's warning about np.min
    d = pd.DataFrame({"human": [0.1, 0.4, 0.35, 0.8, 0.9, 0.2],
                      "bleu": [20.0, 24, 23, 27, 30, 22], "chrf": [50.0, 49, 55, 58, 57, 52]})
    with pytest.raises(DataError, match=r"2 of the 9,999 resamples of the 6 systems hold one "
                                        r"value throughout a column"):
        be.correlate("human ~ bleu + chrf", d).bootstrap(seed=1, ci_method="percentile")


def test_metrics_of_both_signs_are_said_when_some_run_clearly_against_the_human():
    # Guards: with MQM penalties (lower is better) against BLEU, TER and chrF, none declared,
    # TER came out best and "beat" BLEU with p = 0.0003 and no warning (the check fired only
    # when every metric correlated negatively)
    d = pd.DataFrame({"mqm": [9, 8, 7.5, 5, 4, 3.5, 2], "bleu": [10, 12, 11, 15, 16., 15, 19],
                      "ter": [.9, .8, .85, .6, .5, .55, .4], "chrf": [40, 45, 41, 44, 50, 49, 55.]})
    with pytest.warns(be.DirectionWarning, match=r"metric\(s\) \['bleu', 'chrf'\] correlate "
                                                 r"clearly negatively with 'mqm'") as caught:
        be.correlate("mqm ~ bleu + ter + chrf", d)
    assert len(caught) == 1 and caught[0].filename == __file__
    assert "if 'mqm' itself is lower-is-better" in str(caught[0].message)
    # declared: nothing to say, and every metric now correlates positively
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok = be.correlate("mqm ~ bleu + ter + chrf", d, lower_is_better=["mqm", "ter"])
    assert (ok.r > 0).all()
    # one metric weakly negative (its interval reaches above 0) beside positive ones: silent
    weak = d.assign(chrf=[45, 50, 41, 44, 55, 40, 49.])  # r = -0.17
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = be.correlate("mqm ~ ter + chrf", weak)
    assert res.r["chrf"] < 0 < res.r["ter"]
    assert res.to_frame().set_index("metric").loc["chrf", "upper"] > 0


def test_interval_defaults_to_the_results_level_and_labels_say_it_exactly():
    # Guards: correlate(..., level=0.8).interval() gave 95% intervals (while to_frame() gave 80%),
    # and the summary and forest plot printed level=0.975 as "98%" and 0.999 as "100%".
    # Closed form: tanh(atanh(r) -+ z_{(1 + level)/2} / sqrt(n - 3)).
    d = pd.DataFrame({"human": [0.1, 0.4, 0.35, 0.8, 0.9, 0.2],
                      "bleu": [20.0, 24, 23, 27, 30, 22], "chrf": [50.0, 49, 55, 58, 57, 52]})
    res = correlate("human ~ bleu + chrf", d, level=0.8)
    iv = res.interval()
    assert iv.attrs["level"] == 0.8
    r = res.r["bleu"]
    half = special.ndtri(0.9) / math.sqrt(3)
    assert tuple(iv.loc["bleu"]) == pytest.approx(
        (math.tanh(math.atanh(r) - half), math.tanh(math.atanh(r) + half)), abs=1e-12)
    pd.testing.assert_frame_equal(iv, res.to_frame().set_index("metric")[["lower", "upper"]],
                                  check_names=False, check_like=True)
    assert res.interval(0.95).attrs["level"] == 0.95
    for level, text in ((0.975, "97.5%"), (0.999, "99.9%"), (0.9, "90%")):
        res = correlate("human ~ bleu + chrf", d, level=level)
        assert res.summary().info["interval"].startswith(text + " Fisher z")
        assert f"({text} interval, n = 6)" in res.plot(kind="forest").get_xlabel()


def test_hybrid_refuses_unplaceable_rows_and_scores_that_are_no_numbers():
    # Guards: a NaN system or item was reported as "mismatched systems" (item NaN counted as an
    # 11th item), a NaN rater as "raters [nan] give a single or constant score", and with
    # rater=... a rating without a system was dropped silently; infinite scores were dropped as
    # missing items and dates read as nanoseconds (correlate() refuses both); human=["h"],
    # metrics=None and rater equal to system ended in TypeError/ValueError tracebacks.
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"sys": np.repeat(list("ABCD"), 10), "seg": np.tile(range(10), 4),
                      "h": rng.normal(size=40), "m": rng.normal(size=40)})
    kw = dict(system="sys", item="seg", human="h", metrics=["m"], n_systems=20, seed=1)
    for col in ("sys", "seg"):
        bad = d.assign(**{col: d[col].where(d.index != 3)})
        with pytest.raises(DataError, match=rf"column '{col}' is missing \(NaN\) in row 3 \(1 row"):
            hybrid_supersample(bad, **kw)
    # two ratings per (system, item); one rating lost its system
    rated = pd.concat([d.assign(r="r1"), d.assign(r="r2", h=2 * d["h"] + 1)], ignore_index=True)
    lost = rated.assign(sys=rated["sys"].where(rated.index != 45))
    with pytest.raises(DataError, match=r"system column 'sys' is missing \(NaN\) in row 45"):
        hybrid_supersample(lost, rater="r", **kw)
    with pytest.raises(DataError, match=r"rater column 'r' is missing \(NaN\) in row 7"):
        hybrid_supersample(rated.assign(r=rated["r"].where(rated.index != 7)), rater="r", **kw)
    with pytest.raises(DataError, match=r"column 'm' holds inf in row 5"):
        hybrid_supersample(d.assign(m=d["m"].where(d.index != 5, np.inf)), **kw)
    with pytest.raises(DataError, match=r"column 'm' holds dates"):
        hybrid_supersample(d.assign(m=pd.Timestamp("2020-01-01")), **kw)
    with pytest.raises(DataError, match=r"column 'h' is not numeric: row 2 holds 'x'"):
        hybrid_supersample(d.assign(h=d["h"].astype(object).where(d.index != 2, "x")), **kw)
    with pytest.raises(ParameterError, match=r"human holds \['h'\], not a column name"):
        hybrid_supersample(d, **{**kw, "human": ["h"]})
    with pytest.raises(ParameterError, match=r"metrics=None: name the metric columns"):
        hybrid_supersample(d, **{**kw, "metrics": None})
    with pytest.raises(ParameterError, match=r"system='sys' is also rater"):
        hybrid_supersample(d, rater="sys", **kw)
    with pytest.raises(ParameterError, match=r"system='sys' is also a score column"):
        hybrid_supersample(d, **{**kw, "human": "sys"})
    # a NaN score is still a missing score: its item is dropped for every system and counted
    h = hybrid_supersample(d.assign(m=d["m"].where(d.index != 5)), **kw)
    assert h.attrs["n_items"] == 9 and h.attrs["items_dropped"] == 1


def test_unseeded_resampling_reports_the_seed_that_reproduces_it():
    # Guards: with seed=None, hybrid_supersample, bootstrap() and permutation_test() recorded
    # attrs["seed"] = None, so an unseeded run could never be repeated; the rest of the package
    # draws fresh entropy and reports it.  Invariant: passing the reported seed back gives the
    # same table.
    d = _coded_segments()
    kw = dict(system="sys", item="seg", human="human", metrics=["metric"], n_systems=200)
    h = hybrid_supersample(d, **kw)
    seed = h.attrs["seed"]
    assert isinstance(seed, int) and seed >= 0
    pd.testing.assert_frame_equal(hybrid_supersample(d, seed=seed, **kw), h)
    res = correlate("human ~ bleu + chrf", pd.DataFrame({
        "human": [0.1, 0.4, 0.35, 0.8, 0.9, 0.2, 0.5, 0.6, 0.3, 0.7, 0.75, 0.15],
        "bleu": [20.0, 24, 23, 27, 30, 22, 25, 24, 21, 28, 26, 19],
        "chrf": [50.0, 49, 55, 58, 57, 52, 51, 56, 50, 53, 59, 48]}))
    b = res.bootstrap(n_resamples=199, ci_method="percentile")
    assert isinstance(b.attrs["seed"], int)
    pd.testing.assert_frame_equal(res.bootstrap(n_resamples=199, ci_method="percentile",
                                                seed=b.attrs["seed"]), b)
    p = res.permutation_test(n_resamples=199)  # 2^12 > 199: randomised
    assert isinstance(p.attrs["seed"], int)
    pd.testing.assert_frame_equal(res.permutation_test(n_resamples=199, seed=p.attrs["seed"]), p)


def _williams_null_rejections(method: str, n: int = 10, size: int = 2000, seed: int = 3) -> float:
    """Share of one-sided 5% Williams rejections under rho_12 = rho_13 = 0.9, rho_23 = 0.9.

    The computation of ``pairwise()`` (its correlation matrix, the value a rank correlation of
    +-1 stands for, Williams' t), without building a result per sample.
    """
    from binaryeval.correlation._kernels import corrected, t_pvalue, williams_t
    from binaryeval.correlation._matrices import corr_matrix

    rng = np.random.default_rng(seed)
    chol = np.linalg.cholesky(np.array([[1, 0.9, 0.9], [0.9, 1, 0.9], [0.9, 0.9, 1.0]]))
    hits = 0
    for _ in range(size):
        r = corr_matrix(rng.standard_normal((n, 3)) @ chol.T, method)
        t = williams_t(corrected(r[0, 1], n, method), corrected(r[0, 2], n, method), r[1, 2], n)
        hits += bool(t_pvalue(t, n - 3, "greater") < 0.05)
    return hits / size


def test_rank_correlation_williams_tests_say_which_way_they_err():
    # Guards: for Kendall and Spearman the summary said only that Williams' t and Zou's c are
    # "approximations"; under a true null the one-sided 5% Williams test on Kendall's tau rejects
    # about 1% of the time (real differences missed) and on Spearman's rho more than 5%.  The
    # note now says which way, and pairwise() carries it.  Simulated here (bivariate normal,
    # 10 systems, 2,000 samples: 3 standard errors of a rate of 0.05 are 0.015)
    kendall = _williams_null_rejections("kendall")
    spearman = _williams_null_rejections("spearman")
    pearson = _williams_null_rejections("pearson")
    assert kendall < 0.03 < 0.035 < pearson < 0.065 < spearman
    d = pd.DataFrame({"human": [0.1, 0.4, 0.35, 0.8, 0.9, 0.2],
                      "bleu": [20.0, 24, 23, 27, 30, 22], "chrf": [50.0, 49, 55, 58, 57, 52]})
    for method, word in (("kendall", "conservative"), ("spearman", "liberal")):
        res = correlate("human ~ bleu + chrf", d, method=method)
        text = " ".join(str(res).split())
        assert f"the Williams test is {word}" in text
        assert f"the Williams test is {word}" in res.pairwise().attrs["note"]
    assert "note" not in correlate("human ~ bleu + chrf", d).pairwise().attrs


def test_complex_and_period_scores_are_refused_naming_the_column():
    # Guards: a complex column lost its imaginary parts (numpy's ComplexWarning only) and a
    # pandas Period column was read as day numbers since 1970 (18262, 18263, ...), both then
    # correlated as scores; hybrid_supersample reads scores through the same check
    d = pd.DataFrame({"human": [1, 2, 3, 4, 5.0], "m": [1 + 1j, 2 + 5j, 3, 5, 4]})
    with pytest.raises(DataError, match=r"column 'm' holds complex numbers \(row 0: \(1\+1j\)\)"):
        correlate("human ~ m", d)
    d["m"] = pd.period_range("2020-01-01", periods=5, freq="D")
    with pytest.raises(DataError, match=r"column 'm' holds dates or durations \(period\[D\]\)"):
        correlate("human ~ m", d)
    seg = _coded_segments().assign(metric=lambda x: x["metric"] + 1j)
    with pytest.raises(DataError, match=r"column 'metric' holds complex numbers"):
        hybrid_supersample(seg, system="sys", item="seg", human="human", metrics=["metric"])


def test_hybrid_reports_its_row_account():
    # Guards: rows left out (those of items dropped for a missing score, and with rater=...
    # ratings without a score) were counted only as items; the result now carries n_rows,
    # n_used, n_excluded and excluded by reason, as correlate() does.  4 systems x 4 items.
    d = _coded_segments()
    d.loc[(d.sys == "B") & (d.seg == 2), "human"] = np.nan
    h = hybrid_supersample(d, system="sys", item="seg", human="human", metrics=["metric"],
                           n_systems=20, seed=0)
    assert (h.attrs["n_rows"], h.attrs["n_used"], h.attrs["n_excluded"]) == (16, 12, 4)
    assert h.attrs["excluded"] == {"incomplete item": 4}
    # two ratings per (system, item): one rating without a human score, its item kept by the other
    rated = pd.concat([_coded_segments().assign(r="r1"),
                       _coded_segments().assign(r="r2", human=lambda x: x["human"] * 2)],
                      ignore_index=True)
    rated.loc[3, "human"] = np.nan
    h = hybrid_supersample(rated, system="sys", item="seg", human="human", metrics=["metric"],
                           n_systems=20, seed=0, rater="r")
    assert h.attrs["n_items"] == 4 and h.attrs["items_dropped"] == 0
    assert (h.attrs["n_rows"], h.attrs["n_used"], h.attrs["excluded"]) == (32, 31,
                                                                           {"missing score": 1})
    full = hybrid_supersample(_coded_segments(), system="sys", item="seg", human="human",
                              metrics=["metric"], n_systems=5, seed=0)
    assert (full.attrs["n_used"], full.attrs["n_excluded"], full.attrs["excluded"]) == (16, 0, {})


@pytest.mark.parametrize("scale", [1e160, 1e-170])
def test_pearson_of_very_large_or_small_scores_is_the_usual_one(scale):
    # Guards: the squares of the centred scores overflowed at 1e160 (r came out 0.0, with an
    # interval around 0) and underflowed at 1e-170 (NaN); scipy's pearsonr gives the same r at
    # every scale, and a correlation does not depend on the unit of a score.
    d = pd.DataFrame({"h": [1, 2, 3, 4, 5, 6, 7.0], "m": [1, 3, 2, 5, 4, 7, 6.0],
                      "k": [2, 1, 3, 5, 4, 6, 7.0]})
    plain = correlate("h ~ m + k", d)
    big = d.assign(h=d["h"] * scale, m=d["m"] * scale)
    res = correlate("h ~ m + k", big)
    assert res.r["m"] == pytest.approx(stats.pearsonr(d["h"], d["m"]).statistic, abs=1e-12)
    assert res.r["m"] == pytest.approx(stats.pearsonr(big["h"], big["m"]).statistic, abs=1e-12)
    pd.testing.assert_frame_equal(res.to_frame(), plain.to_frame(), rtol=1e-12)
    pd.testing.assert_frame_equal(res.pairwise(), plain.pairwise(), rtol=1e-10)
    boot = res.bootstrap(n_resamples=99, seed=1, ci_method="percentile")
    assert boot["estimate"].tolist() == pytest.approx(
        plain.bootstrap(n_resamples=99, seed=1, ci_method="percentile")["estimate"].tolist(),
        abs=1e-12)
    pd.testing.assert_frame_equal(res.permutation_test(n_resamples=99, seed=1),
                                  plain.permutation_test(n_resamples=99, seed=1), rtol=1e-12)


def test_hybrid_refuses_more_systems_than_memory_holds():
    # Guards: n_systems=10**12 ended in numpy's MemoryError ("Unable to allocate 7.28 TiB")
    from binaryeval._validate import available_memory

    if available_memory() is None:
        pytest.skip("the available memory is not known here")
    with pytest.raises(ParameterError, match=r"hybrid_supersample\(n_systems=1,000,000,000,000\) "
                                             r"needs about .* of memory"):
        hybrid_supersample(_coded_segments(), system="sys", item="seg", human="human",
                           metrics=["metric"], n_systems=10 ** 12, seed=1)


def test_the_attrs_the_docstrings_name_are_the_attrs_given():
    # Guards: to_frame()'s docstring named an attr ``direction`` where the frame holds
    # ``directions``.  Every name in a Returns section's "attrs" sentence is a key of the attrs.
    import re

    d = pd.DataFrame({"human": [0.1, 0.4, 0.35, 0.8, 0.9, 0.2],
                      "bleu": [20.0, 24, 23, 27, 30, 22], "chrf": [50.0, 49, 55, 58, 57, 52]})
    res = correlate("human ~ bleu + chrf", d, method="spearman")
    calls = {"to_frame": res.to_frame(), "interval": res.interval(), "pairwise": res.pairwise(),
             "significance_matrix": res.significance_matrix(),
             "bootstrap": res.bootstrap(n_resamples=99, seed=1, ci_method="percentile"),
             "permutation_test": res.permutation_test(seed=1)}
    for name, frame in calls.items():
        doc = getattr(CorrelationResult, name).__doc__
        returns = doc.split("Returns")[1].split("Examples")[0]
        sentence = re.split(r"attrs(?: hold)?:?", returns, maxsplit=1)[1]
        named = re.findall(r"``([a-z_]+)``", sentence)
        assert named, name
        missing = [a for a in named if a not in frame.attrs]
        assert not missing, (name, missing)


@pytest.mark.parametrize("call", [lambda n: fisher_ci(0.5, n), lambda n: williams_test(0.9, 0.8, 0.7, n),
                                  lambda n: zou_ci(0.9, 0.8, 0.7, n, method="kendall")])
def test_a_number_of_systems_of_the_wrong_type_is_refused_with_a_number_of_systems(call):
    # Guards: n=True or n="16" was refused with "pass a number, e.g. n=0.5", itself refused
    for bad in (True, "16"):
        with pytest.raises(InputTypeError, match=rf"n={bad!r} is a .*; pass the number of "
                                                 r"systems, a whole number >= [45], e.g. n=16"):
            call(bad)


def test_systems_without_a_complete_row_are_named():
    # Guards: with "| system", a system none of whose rows held every score (WMT21 en-ru: the
    # references refA and refB have no metric scores) vanished from the correlation; only the
    # row count (1,054 = 2 x 527 rows "missing score") hinted at it.  The result names them.
    enru = datasets.load_wmt21_enru(annotated_only=True)
    res = correlate("mqm ~ bleurt20 + comet_mqm | system", enru)
    assert res.n == 14 and res.excluded == {"missing score": 2 * 527}
    assert res.systems_left_out == ["refA", "refB"]
    assert res.to_frame().attrs["systems_left_out"] == ["refA", "refB"]
    assert res.summary().info["systems left out"] == "2 without a complete row (refA, refB)"
    kept = enru[~enru["system"].isin(["refA", "refB"])]
    plain = correlate("mqm ~ bleurt20 + comet_mqm | system", kept)
    assert plain.systems_left_out == [] and "systems left out" not in plain.summary().info
    pd.testing.assert_frame_equal(plain.scores, res.scores)


def test_excluded_rows_name_each_row_left_out_by_its_label_and_reason():
    rng = np.random.default_rng(3)
    seg = pd.DataFrame({"sys": np.repeat([f"s{i}" for i in range(6)], 20),
                        "mqm": rng.normal(size=120), "comet": rng.normal(size=120)},
                       index=pd.date_range("2024-01-01", periods=120, freq="min",
                                           name="when")[::-1])
    seg["mqm"] += np.repeat(np.arange(6), 20) * 0.5
    seg["comet"] += np.repeat(np.arange(6), 20) * 0.5
    when = seg.index
    seg.loc[when[[0, 50]], "mqm"] = np.nan
    seg.loc[when[7], "comet"] = np.nan
    seg.loc[when[30], "sys"] = None
    seg.loc[when[31], ["sys", "comet"]] = [None, np.nan]   # a missing score comes first
    res = correlate("mqm ~ comet | sys", seg)
    rows = res.excluded_rows
    assert rows.index.name == "when" and rows.index.dtype == seg.index.dtype
    assert rows.to_dict() == {when[0]: "missing score", when[7]: "missing score",
                              when[30]: "missing system", when[31]: "missing score",
                              when[50]: "missing score"}
    assert list(rows.index) == list(when[[0, 7, 30, 31, 50]])
    assert rows.value_counts().to_dict() == res.excluded
    systems = correlate("mqm ~ comet", seg.groupby("sys").mean())
    assert systems.excluded == {} and systems.excluded_rows.empty
    assert systems.excluded_rows.index.name == "sys"
