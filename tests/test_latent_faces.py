"""The data-frame faces of the latent-truth model: preferences, several metrics, bins."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import binaryeval as be
from binaryeval.errors import (
    ConvergenceWarning,
    DataError,
    DependenceWarning,
    FormulaError,
    ParameterError,
)
from binaryeval.latent import diagnostics, fit_latent, fit_preferences, latent_posterior


def _quiet(func, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return func(*args, **kw)


# ----------------------------------------------------------------------------------------------
# several metrics: a duplicated metric
# ----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def duplicated():
    rng = np.random.default_rng(3)
    n = 6000
    truth = rng.random(n) < 0.6
    m = np.where(truth, rng.random(n) < 0.75, rng.random(n) < 0.3).astype(int)
    df = pd.DataFrame({"human": np.where(np.arange(n) < 1000, truth.astype(float), np.nan),
                       "m": m})
    df["m_copy"] = df["m"]
    return df


def test_duplicated_metric_joint_equals_the_metric_alone(duplicated):
    # The joint model puts prior mass on the patterns (0, 1) and (1, 0), which never occur; the
    # posterior of alpha then differs from the single metric's by a shift of order
    # var(alpha) * 2 |1/alpha - 1/(1 - alpha)|, here 0.0003 (0.02 posterior sd), which is below
    # the Monte-Carlo error of these draws.
    df = duplicated
    res = fit_latent("human ~ m + m_copy", df, draws=1500, seed=2)
    x = res.alpha_draws()
    h = df["human"].notna()
    tp = int(((df.human == 1) & (df.m == 1)).sum())
    fn = int(((df.human == 1) & (df.m == 0)).sum())
    tn = int(((df.human == 0) & (df.m == 0)).sum())
    fp = int(((df.human == 0) & (df.m == 1)).sum())
    exact = be.alpha_posterior(tp + fn, tp + fn + tn + fp, int(df.m[~h].sum()), int((~h).sum()),
                               tp, fn, tn, fp)
    ess = diagnostics.ess_bulk(x)
    se = x.std() / np.sqrt(ess)
    assert abs(x.mean() - exact.mean()) < 5 * se
    assert abs(x.std() - exact.std()) < 5 * x.std() / np.sqrt(2 * ess)
    for p in (0.025, 0.975):
        se_q = np.sqrt(p * (1 - p) / diagnostics.ess_tail(x)) / exact.pdf(exact.ppf(p))
        assert abs(np.quantile(x, p) - exact.ppf(p)) < 5 * se_q
    check = res.dependence()
    assert check.attrs["log10_bf"] > 10
    assert check.attrs["verdict"].startswith("conditional dependence")
    assert "conditional dependence" in " ".join(str(res).split())  # notes wrap


def test_duplicated_metric_independent_over_tightens(duplicated):
    with pytest.warns(DependenceWarning, match=r"treats 'm', 'm_copy' as erring independently"):
        res = fit_latent("human ~ m + m_copy", duplicated, dependence="independent", draws=1000,
                         seed=2)
    joint = fit_latent("human ~ m", duplicated, draws=1000, seed=2)
    # the copy counts the same evidence twice: the interval shrinks to about half
    assert res.alpha_draws().std() < 0.6 * joint.alpha_draws().std()
    assert res.dependence().attrs["verdict"].startswith("conditional dependence")


def test_independent_metrics_are_not_flagged():
    rng = np.random.default_rng(4)
    n = 4000
    truth = rng.random(n) < 0.5
    df = pd.DataFrame({"human": np.where(np.arange(n) < 2000, truth, np.nan),
                       "m1": np.where(truth, rng.random(n) < 0.8, rng.random(n) < 0.3),
                       "m2": np.where(truth, rng.random(n) < 0.7, rng.random(n) < 0.2)})
    res = _quiet(fit_latent, "human ~ m1 + m2", df, draws=200, seed=0)
    assert res.dependence().attrs["log10_bf"] < -1


# ----------------------------------------------------------------------------------------------
# binned scalar metric
# ----------------------------------------------------------------------------------------------

def test_bins_are_the_paired_rows_quantiles_and_are_reported():
    rng = np.random.default_rng(5)
    n = 1500
    truth = rng.random(n) < 0.55
    score = truth + rng.normal(0, 0.8, n)
    df = pd.DataFrame({"human": np.where(np.arange(n) < 400, truth, np.nan), "score": score,
                       "system": np.where(np.arange(n) % 2 == 0, "a", "b")})
    res = _quiet(fit_latent, "human ~ score | system", df, bins=4, draws=200, seed=1)
    want = np.quantile(score[:400], [0.25, 0.5, 0.75])
    np.testing.assert_allclose(res.bin_edges["score"], want)
    assert res.to_frame().attrs["bins"]["score"] == pytest.approx(want.tolist())
    text = " ".join(str(res).split())
    assert "bins of score" in text and "quantiles of the paired rows" in text
    # the paired rows fall evenly into the four bins
    assert res.latent.paired.sum(axis=(0, 1)).tolist() == [100, 100, 100, 100]
    with pytest.raises(DataError, match="bins=5"):
        fit_latent("human ~ score", df)


def test_bins_that_would_hold_no_paired_row_are_refused():
    # BLEU-like scores: 150 of 400 paired rows score 0, so the 1/3 quantile is 0 and the bin
    # [min, 0) held no row at all; bins=3 fitted with two used bins and three reported
    rng = np.random.default_rng(3)
    score = np.concatenate([np.zeros(150), rng.uniform(1, 10, 250)])
    human = (score + rng.normal(0, 3, 400) > 4).astype(float)
    df = pd.DataFrame({"human": human, "score": score})
    assert np.quantile(score, 1 / 3) == 0.0 == score.min()
    with pytest.raises(DataError, match=r"term 'score'.*3 bins: the bin of scores below 0 holds "
                                        r"none of them.*only 2 bins.*use fewer bins"):
        fit_latent("human ~ score", df, bins=3, draws=50, chains=1, seed=1)
    # a lower-is-better score tied at its highest value: said in its own units
    with pytest.raises(DataError, match=r"the bin of scores above 100 holds none"):
        fit_latent("human ~ bad", df.assign(bad=100 - score), bins=3, lower_is_better="bad",
                   draws=50, chains=1, seed=1)
    # two bins hold rows: fitted, each bin with paired rows
    res = _quiet(fit_latent, "human ~ score", df, bins=2, draws=50, chains=1, seed=1)
    assert (res.latent.paired.sum(axis=(0, 1)) > 0).all()


def test_one_binary_metric_is_the_binary_model():
    rng = np.random.default_rng(6)
    n = 3000
    truth = rng.random(n) < 0.4
    df = pd.DataFrame({"human": np.where(np.arange(n) < 250, truth, np.nan),
                       "metric": np.where(truth, rng.random(n) < 0.7, rng.random(n) < 0.35),
                       "system": "s"})
    res = fit_latent("human ~ metric | system", df, draws=1000, seed=3)
    exact = be.fit("human ~ metric | system", df).posterior("s")
    x = res.alpha_draws("s")
    assert abs(x.mean() - exact.mean()) < 5 * x.std() / np.sqrt(diagnostics.ess_bulk(x))
    row = res.to_frame().iloc[0]
    assert (row.n_human, row.n_paired, row.n_metric) == (250, 250, 2750)


# ----------------------------------------------------------------------------------------------
# preferences
# ----------------------------------------------------------------------------------------------

def _scores_frame(seed=0, items=120, rated=40):
    rng = np.random.default_rng(seed)
    quality = {"A": 0.4, "B": 0.0, "C": -0.2}
    rows = []
    for i in range(items):
        for s, q in quality.items():
            h = np.round(q + rng.normal(), 0)  # integer scores: human ties happen
            rows.append({"seg": i, "sys": s, "hum": h if i < rated else np.nan,
                         "met": q + rng.normal(0, 0.8), "ter": -q + rng.normal(0, 0.8)})
    return pd.DataFrame(rows)


def test_scores_become_preferences_as_counted_by_hand():
    df = _scores_frame()
    res = _quiet(fit_preferences, "hum ~ met | sys", df, item="seg", tolerance={"met": 0.3},
                 draws=100, seed=0)
    wide_h = df.pivot(index="seg", columns="sys", values="hum")
    wide_m = df.pivot(index="seg", columns="sys", values="met")
    hd = wide_h["A"] - wide_h["C"]
    md = wide_m["A"] - wide_m["C"]
    cls = np.where(hd > 0, 0, np.where(hd < 0, 2, 1))
    out = np.where(md > 0.3, 0, np.where(md < -0.3, 2, 1))
    paired = np.zeros((3, 3), int)
    rated = hd.notna().to_numpy()
    np.add.at(paired, (cls[rated], out[rated]), 1)
    i = res.pairs.index(("A", "C"))
    np.testing.assert_array_equal(res.latent.paired[i], paired)
    np.testing.assert_array_equal(res.latent.metric[i], np.bincount(out[~rated], minlength=3))
    assert res.latent.human[i].sum() == 0
    row = res.to_frame().iloc[i]
    assert row.naive_diff == pytest.approx(((out == 0).sum() - (out == 2).sum()) / len(out))


def test_lower_is_better_flips_the_preference():
    df = _scores_frame()
    df["neg"] = -df["met"]
    a = _quiet(fit_preferences, "hum ~ met | sys", df, item="seg", draws=50, seed=1)
    b = _quiet(fit_preferences, "hum ~ neg | sys", df, item="seg", lower_is_better="neg",
               draws=50, seed=1)
    np.testing.assert_array_equal(a.latent.paired, b.latent.paired)
    np.testing.assert_array_equal(a.latent.draws.pi, b.latent.draws.pi)
    with pytest.raises(ParameterError, match="not a term of the formula"):
        fit_preferences("hum ~ met | sys", df, item="seg", lower_is_better="ter")
    with pytest.raises(TypeError, match="lower_is_better"):
        fit_preferences("hum ~ met | sys", df, item="seg", higher_is_better=False)


def test_ready_preferences_in_either_order_equal_the_scores_route():
    df = _scores_frame(seed=2)
    res = _quiet(fit_preferences, "hum ~ met | sys", df, item="seg", draws=60, seed=4)
    # the same preferences as rows, with half of them written as (second, first)
    rng = np.random.default_rng(0)
    rows = []
    for (a, b) in res.pairs:
        for _, g in df.groupby("seg"):
            s = g.set_index("sys")
            h = np.sign(s.hum[a] - s.hum[b]) if pd.notna(s.hum[a]) else np.nan
            m = np.sign(s.met[a] - s.met[b])
            if rng.random() < 0.5:
                rows.append({"first": a, "second": b, "h": h, "m": m})
            else:
                label = {1: "second", 0: "tie", -1: "first"}
                rows.append({"first": b, "second": a,
                             "h": np.nan if np.isnan(h) else label[int(h)], "m": -m})
    ready = pd.DataFrame(rows)
    res2 = _quiet(fit_preferences, "h ~ m", ready, first="first", second="second", draws=60,
                  seed=4)
    assert res2.pairs == res.pairs
    np.testing.assert_array_equal(res2.latent.paired, res.latent.paired)
    np.testing.assert_array_equal(res2.latent.metric, res.latent.metric)
    np.testing.assert_array_equal(res2.latent.draws.pi, res.latent.draws.pi)


def test_three_classes_with_known_rates_match_a_grid_posterior():
    # K = J = 3 with a known confusion matrix: the posterior of (win_1, tie, win_2) on a fine
    # grid over the simplex is the exact answer (up to the grid's resolution)
    theta = np.array([[0.6, 0.25, 0.15], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6]])
    human, metric = np.array([12, 5, 8]), np.array([260, 180, 160])
    post = latent_posterior(np.zeros((3, 3)), human, metric, rates=theta, draws=2000, seed=5)
    x = post.draws.pi[:, :, 0]
    diff = x[..., 0] - x[..., 2]
    n = 1500
    u = (np.arange(n) + 0.5) / n
    p0, p2 = np.meshgrid(u, u, indexing="ij")
    p1 = 1 - p0 - p2
    ok = p1 > 0
    pis = np.stack([p0[ok], p1[ok], p2[ok]], axis=1)
    logp = (human * np.log(pis)).sum(1) + (metric * np.log(pis @ theta)).sum(1)
    w = np.exp(logp - logp.max())
    w /= w.sum()
    d = pis[:, 0] - pis[:, 2]
    mean = (w * d).sum()
    sd = np.sqrt((w * (d - mean) ** 2).sum())
    ess = diagnostics.ess_bulk(diff)
    assert abs(diff.mean() - mean) < 5 * sd / np.sqrt(ess)
    assert abs(diff.std() - sd) < 5 * sd / np.sqrt(2 * ess) + 1e-4
    tie_mean = (w * pis[:, 1]).sum()
    assert abs(x[..., 1].mean() - tie_mean) < 5 * x[..., 1].std() / np.sqrt(
        diagnostics.ess_bulk(x[..., 1]))


def test_human_only_preferences_are_dirichlet():
    # no metric ratings: the shares are Dirichlet(1 + counts) exactly
    counts = np.array([30, 12, 18])
    post = latent_posterior(np.zeros((3, 3)), counts, np.zeros(3), draws=2000, seed=6)
    x = post.draws.pi[:, :, 0].reshape(-1, 3)
    alpha = 1 + counts
    np.testing.assert_allclose(x.mean(0), alpha / alpha.sum(), atol=5 * x.std(0).max() / 60)
    diff = x[:, 0] - x[:, 2]
    a0 = alpha.sum()
    var = (alpha[0] * (a0 - alpha[0]) + alpha[2] * (a0 - alpha[2]) + 2 * alpha[0] * alpha[2]) / (
        a0 ** 2 * (a0 + 1))
    assert diff.std() == pytest.approx(np.sqrt(var), rel=0.05)
    assert stats.kstest(x[:, 1], stats.beta(alpha[1], a0 - alpha[1]).cdf).pvalue > 1e-4


def test_favi_of_the_expected_confusion_matrix():
    df = _scores_frame(seed=7, items=200, rated=80)
    res = _quiet(fit_preferences, "hum ~ met | sys", df, item="seg", draws=100, seed=2)
    draws = res._favi_draws()
    pi = res.latent.draws.pi
    theta = res.latent.draws.theta.astype(float)
    for c, d, p in ((0, 0, 0), (1, 17, 1), (3, 99, 2)):
        conf = pi[c, d, p][:, None] * theta[c, d, p]
        assert draws[c, d, p] == pytest.approx(be.favi_score(conf), rel=1e-9)
    frame = res.to_frame()
    assert np.all((frame.favi_lower <= frame.favi) & (frame.favi <= frame.favi_upper))


def test_compare_ranking_and_table_agree():
    df = _scores_frame(seed=8, items=300, rated=150)
    res = _quiet(fit_preferences, "hum ~ met | sys", df, item="seg", draws=300, seed=3)
    m = res.compare().matrix()
    frame = res.to_frame().reset_index()
    for row in frame.itertuples():
        assert m.loc[row.group_1, row.group_2] == pytest.approx(row.prob_greater)
        assert m.loc[row.group_1, row.group_2] + m.loc[row.group_2, row.group_1] == \
            pytest.approx(1.0)
    g = res.ranking(min_prob=0.9)
    for a, b, data in g.edges(data=True):
        assert data["prob"] >= 0.9 and m.loc[a, b] >= 0.9
    with pytest.raises(be.InputTypeError, match="'threshold', which is now 'min_prob'"):
        res.ranking(threshold=0.9)
    iv = res.interval(0.5)
    assert np.all(iv["lower"].to_numpy() <= frame["diff"].to_numpy())
    d = res.pair_draws("C", "A")
    assert d["diff"].mean() == pytest.approx(-frame.set_index(["group_1", "group_2"]).loc[
        ("A", "C"), "diff"])


def test_compare_turns_each_pair_to_the_order_asked():
    # Expected: compare(order=...) lists and turns the pairs as the systems come in the order
    # (group_1 first in it), as the compare() of a fit of groups does; a pair turned round has
    # diff and the interval negated (ends swapped) and 1 - prob_greater, all else the same
    # (the order only reordered the matrix: the pairs stayed as the fit holds them)
    df = _scores_frame(seed=8, items=300, rated=150)
    res = _quiet(fit_preferences, "hum ~ met | sys", df, item="seg", draws=300, seed=3)
    ahead = res.compare(order=["A", "B", "C"]).to_frame()
    behind = res.compare(order=["C", "B", "A"]).to_frame()
    assert list(zip(ahead.group_1, ahead.group_2, strict=True)) == [
        ("A", "B"), ("A", "C"), ("B", "C")]
    assert list(zip(behind.group_1, behind.group_2, strict=True)) == [
        ("C", "B"), ("C", "A"), ("B", "A")]
    # the fit's numbers for A over C, in the fit's own orientation
    table = res.to_frame().loc[("A", "C")]
    a_c = ahead.iloc[1]
    assert a_c["diff"] == pytest.approx(table["diff"], abs=1e-12)
    assert a_c["prob_greater"] == pytest.approx(table["prob_greater"], abs=1e-12)
    assert 0.9 < a_c["prob_greater"] <= 1 and 0.2 < a_c["diff"] < 0.8  # A is the better system
    same_pairs = list(zip(ahead.group_1, ahead.group_2, strict=True))
    mirrored = behind.set_index(["group_2", "group_1"]).loc[same_pairs]
    for column in ("diff", "statistic"):
        np.testing.assert_array_equal(mirrored[column].to_numpy(), -ahead[column].to_numpy())
    np.testing.assert_array_equal(mirrored["lower"].to_numpy(), -ahead["upper"].to_numpy())
    np.testing.assert_array_equal(mirrored["upper"].to_numpy(), -ahead["lower"].to_numpy())
    np.testing.assert_array_equal(mirrored["prob_greater"].to_numpy(),
                                  1 - ahead["prob_greater"].to_numpy())
    for column in ("std_error", "p_value", "significant", "stars", "prior_dominated"):
        assert mirrored[column].tolist() == ahead[column].tolist()
    assert (ahead["lower"] < ahead["diff"]).all() and (ahead["diff"] < ahead["upper"]).all()
    # without order= the pairs keep the orientation of every table of pairs (to_frame)
    plain = res.compare().to_frame()
    assert list(zip(plain.group_1, plain.group_2, strict=True)) == list(res.to_frame().index)
    pd.testing.assert_frame_equal(plain, ahead)  # A, B, C: natural order is this order
    # the matrix reads the same either way
    pd.testing.assert_frame_equal(
        res.compare(order=["C", "B", "A"]).matrix().loc[["A", "B", "C"], ["A", "B", "C"]],
        res.compare(order=["A", "B", "C"]).matrix(), check_names=False)


def test_an_order_missing_a_system_is_refused_before_sampling(monkeypatch):
    # Guards: order= naming too few systems was refused only after the sampler had run
    from binaryeval.latent import _common

    ran = []
    monkeypatch.setattr(_common, "run", lambda *args, **kw: ran.append(args) or 1 / 0)
    df = _scores_frame(seed=8, items=60, rated=30)
    with pytest.raises(ParameterError, match=r"order=\['A', 'B'\] must list every group "
                                             r"once: \['A', 'B', 'C'\]"):
        fit_preferences("hum ~ met | sys", df, item="seg", order=["A", "B"])
    with pytest.raises(ParameterError, match=r"order='best'.*'estimate', 'input'"):
        fit_preferences("hum ~ met | sys", df, item="seg", order="best")
    with pytest.raises(ParameterError, match=r"order=\['C'\] must list every group once"):
        fit_latent("hum ~ met + ter | sys", df.assign(hum=(df["hum"] > 0).where(
            df["hum"].notna()), met=df["met"] > 0, ter=df["ter"] < 0), order=["C"])
    assert ran == []


def test_rows_are_accounted_for():
    df = _scores_frame()
    df.loc[0, "sys"] = np.nan
    df.loc[1, ["hum", "met", "ter"]] = np.nan
    res = _quiet(fit_preferences, "hum ~ met | sys", df, item="seg", draws=50, seed=0)
    # item 0 is then rated for system C alone: that row enters no pair
    assert res.n_rows == len(df) and res.n_excluded == 3
    assert res.excluded == {"missing system": 1, "no rating (every term missing)": 1,
                            "item rated for no other system (in no pair)": 1}
    assert "1 missing system" in " ".join(str(res).split())


def test_bad_input_gets_clear_errors():
    df = _scores_frame()
    with pytest.raises(ParameterError, match="item="):
        fit_preferences("hum ~ met | sys", df)
    with pytest.raises(DataError, match="more than one row"):
        fit_preferences("hum ~ met | sys", pd.concat([df, df.iloc[:1]]), item="seg")
    with pytest.raises(FormulaError, match="one grouping term"):
        fit_preferences("hum ~ met", df, item="seg")
    ready = pd.DataFrame({"a": ["x", "y"], "b": ["y", "x"], "h": [1, 2], "m": [1, 0]})
    with pytest.raises(DataError, match="'h' holds 2"):
        fit_preferences("h ~ m", ready, first="a", second="b")
    with pytest.raises(DataError, match="item='segment' is not a column.*'seg'"):
        fit_preferences("hum ~ met | sys", df, item="segment")
    with pytest.raises(ParameterError, match="rates="):
        fit_preferences("hum ~ met | sys", df, item="seg", rates="estimated")
    with pytest.raises(ParameterError, match="3 x 3"):
        fit_preferences("hum ~ met | sys", df, item="seg", rates=np.eye(2))


def test_convergence_warning_points_at_the_caller():
    df = _scores_frame()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fit_preferences("hum ~ met | sys", df, item="seg", draws=20, warmup=5, seed=0)
    conv = [x for x in w if issubclass(x.category, ConvergenceWarning)]
    assert len(conv) == 1 and conv[0].filename == __file__
    # enough draws for the ESS bound: 1.1 x 20 x 400 / the smallest ESS (14), up to a hundred
    assert "bulk ESS 14" in str(conv[0].message) and "draws=700" in str(conv[0].message)


def test_pooled_and_known_rates_run():
    df = _scores_frame(seed=9, items=200, rated=100)
    pooled = _quiet(fit_preferences, "hum ~ met | sys", df, item="seg", rates="pooled",
                    draws=200, seed=1)
    assert pooled.latent.draws.theta.shape[2] == 1
    assert np.isfinite(pooled.to_frame()["favi"]).all()
    known = _quiet(fit_preferences, "hum ~ met | sys", df, item="seg",
                   rates=pooled.latent.theta_mean().to_numpy(), draws=200, seed=1)
    assert "favi" not in known.to_frame()
    # with the pooled matrix plugged in, the known-rates fit is at least as precise
    assert (known.to_frame()["std_error"] <= pooled.to_frame()["std_error"] * 1.1).all()


def test_a_score_difference_equal_to_the_tolerance_is_a_tie_as_in_favi():
    # scores on a 0.01 grid, tolerance 0.05: 0.26 - 0.21 is 0.05000000000000002 in floats and
    # 0.12 - 0.07 is 0.049999999999999996; both are differences of exactly the tolerance, ties
    # by the definition (|d| <= tolerance), in fit_preferences as in favi
    grid = np.round(np.arange(0, 1, 0.01), 2)
    n = grid.size - 5
    df = pd.DataFrame({"seg": np.tile(np.arange(n), 2), "sys": np.repeat(["a", "b"], n),
                       "hum": np.concatenate([grid[5:], grid[:-5]]),
                       "met": np.concatenate([grid[5:], grid[:-5] + 0.5])})
    assert ((grid[5:] - grid[:-5]) > 0.05).any()  # the float artefact is in the data
    res = _quiet(fit_preferences, "hum ~ met | sys", df, item="seg",
                 tolerance={"hum": 0.05, "met": 0.05}, draws=50, seed=0)
    # every human difference is a tie; the metric prefers b on every item (0.45 apart)
    np.testing.assert_array_equal(res.latent.paired[0], [[0, 0, 0], [0, 0, n], [0, 0, 0]])
    fav = be.favi("hum ~ met | sys", df, item="seg", tolerance=0.05)
    np.testing.assert_array_equal(fav.counts[0], res.latent.paired[0])


def test_ranking_refuses_min_prob_at_or_below_one_half():
    # documented as 0.5 < min_prob < 1 but taken as any probability: at min_prob <= 0.5 a pair
    # with P(a > b) between 1 - min_prob and min_prob gets an edge both ways (a cycle, and
    # "confident wins" that are not)
    from binaryeval.latent import multi, preferences

    for res in (preferences._example(), multi._example()):
        m = res.compare().matrix()
        for bad in (0.5, 0.3):
            with pytest.raises(ParameterError, match=rf"min_prob={bad}: .*above 0\.5"):
                res.ranking(min_prob=bad)
        g = res.ranking(min_prob=0.6)
        assert all(m.loc[a, b] >= 0.6 for a, b in g.edges)
        assert not any(g.has_edge(b, a) for a, b in g.edges)
