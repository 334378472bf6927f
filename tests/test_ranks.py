"""Ranks with simultaneous credible intervals: ``ranks()`` of every fit, :class:`binaryeval.Ranks`.

Where the numbers come from:

- exact rank probabilities of the binary fit: for two systems ``P(rank_A = 1) = P(alpha_A >
  alpha_B)``, the package's own quadrature of :meth:`AlphaPosterior.prob_greater` (tested to
  1e-12 elsewhere); for three Beta posteriors the one-dimensional integrals
  ``int f_A F_B F_C`` etc. by ``scipy.integrate.quad``; for mixture posteriors 200,000 joint draws;
- the simultaneous intervals: their defining property (share of the sizing half of the draws
  >= level), checked on the draws; the box's probability on 100,000 draws it never saw, averaged
  over 40 sets of draws (0.9459 when the same draws shaped and sized it);
- the preference score: the average of ``win + tie / 2`` over opponents, recomputed from
  :meth:`PreferenceFit.pair_draws`;
- coverage of the true ranking: a seeded simulation with known truth (the ``binary`` design of
  ``studies/ranks_coverage.py``, fewer replicates), beside the rank-sets of prediction-powered
  ranking (Chatzi et al. 2024, :func:`binaryeval.validation.rank_sets`) on the same data;
- calibration with truths drawn from the prior (``studies/ranks_calibration.py``): the saved run
  and its first batch of the exact fit re-run.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import study_module
from scipy import integrate, stats

import binaryeval as be
from binaryeval._ranks import _marginal_ends, rank_draws, simultaneous_intervals
from binaryeval.binary.ranks import rank_probabilities
from binaryeval.errors import BinaryEvalWarning, ParameterError
from binaryeval.validation import rank_sets


# -- the draws' machinery -----------------------------------------------------------------------------
def test_rank_draws_rank_one_is_the_highest_and_ties_share_the_best_rank():
    x = np.array([[0.1, 0.5, 0.3, 0.5]])
    assert rank_draws(x).tolist() == [[4, 1, 3, 1]]
    # many ties: 1 + the number of strictly higher scores, counted by brute force
    x = np.random.default_rng(0).integers(0, 4, (300, 6)).astype(float)
    np.testing.assert_array_equal(rank_draws(x), 1 + (x[:, None, :] > x[:, :, None]).sum(axis=2))


def _draws(seed=0, n=3000):
    rng = np.random.default_rng(seed)
    means = np.array([2.0, 1.6, 1.5, 0.8, 0.7, 0.0])
    return rank_draws(rng.normal(means, 0.4, size=(n, means.size)))


@pytest.mark.parametrize("level", [0.5, 0.8, 0.95])
@pytest.mark.parametrize("chains", [1, 4])
def test_simultaneous_intervals_hold_jointly_on_the_sizing_half(level, chains):
    ranks = _draws()
    lower, upper, joint = simultaneous_intervals(ranks, level, chains)
    # the sizing draws: the second half of each of the `chains` blocks of 3000 / chains rows
    per = len(ranks) // chains
    sizing = np.arange(len(ranks)) % per >= per // 2
    inside = ((ranks >= lower) & (ranks <= upper)).all(axis=1)
    assert joint == pytest.approx(inside[sizing].mean(), abs=1e-12)
    n_b = int(sizing.sum())
    assert inside[sizing].sum() >= np.ceil(level * (n_b + 1) - 1e-9)
    # the box of the sequence one move smaller would not: some sizing draw sits on an end of
    # an open interval, else the box could have been smaller
    on_end = ((ranks[sizing] == lower) | (ranks[sizing] == upper)) & (upper > lower)
    assert on_end[inside[sizing]].any()


def test_simultaneous_intervals_need_enough_sizing_draws():
    # 10 sizing draws cannot hold ceil(0.95 * 11) = 11 of them: the whole range
    lower, upper, joint = simultaneous_intervals(_draws(n=20), 0.95)
    assert lower.tolist() == [1] * 6 and upper.tolist() == [6] * 6 and joint == 1.0


def test_simultaneous_intervals_hold_their_level_on_draws_they_never_saw():
    # 20 systems, normal scores 0, 0.16, ..., 3 with sd 0.5: many ranks of small probability,
    # which the greedy trimming, judged on the draws that shaped the box, fitted to their noise.
    # The box's probability, measured on 100,000 independent draws and averaged over 40 sets of
    # 4,000 draws, was 0.9459 (se 0.0005) when one set of draws both shaped and sized it; with
    # the first half shaping and the second sizing it is at least the level (measured: 0.9554)
    means = np.linspace(0.0, 3.0, 20)
    hold = rank_draws(np.random.default_rng(0).normal(means, 0.5, size=(100_000, 20)))
    got = []
    for s in range(40):
        r = rank_draws(np.random.default_rng([1, s]).normal(means, 0.5, size=(4000, 20)))
        lo, hi, _ = simultaneous_intervals(r, 0.95)
        got.append(((hold >= lo) & (hold <= hi)).all(axis=1).mean())
    assert np.mean(got) - 2 * np.std(got, ddof=1) / np.sqrt(40) > 0.95


def test_simultaneous_intervals_are_no_wider_than_the_calibrated_marginal_box():
    ranks = _draws(1)
    lower, upper, _ = simultaneous_intervals(ranks, 0.9)
    lo0, hi0 = _marginal_ends(ranks, 0.0, ranks.shape[1])   # the whole observed range
    assert (lower >= lo0).all() and (upper <= hi0).all()
    # simultaneous holds jointly, so it is at least as wide as each marginal 90 % interval needs
    # to be for the system with the widest spread of ranks
    mlo, mhi = _marginal_ends(ranks, 0.05, ranks.shape[1])
    assert ((upper - lower) >= 0).all()
    assert (upper - lower).sum() >= 0.5 * (mhi - mlo).sum()


def test_marginal_ends_are_equal_tailed_quantiles():
    ranks = _draws(2)
    lo, hi = _marginal_ends(ranks, 0.025, ranks.shape[1])
    # numpy's inverted-cdf quantile is the smallest rank whose cdf reaches the probability
    q = np.quantile(ranks, 0.025, axis=0, method="inverted_cdf")
    cdf_at_q = np.array([(ranks[:, j] <= q[j]).mean() for j in range(6)])
    expected = np.where(cdf_at_q > 0.025, q, q + 1)     # ours asks for cdf > tail
    np.testing.assert_array_equal(lo, expected)
    assert (hi >= lo).all()
    for j in range(ranks.shape[1]):
        assert (ranks[:, j] < lo[j]).mean() <= 0.025
        assert (ranks[:, j] > hi[j]).mean() <= 0.025


# -- exact rank probabilities of the binary fit ------------------------------------------------------
def test_exact_two_systems_is_prob_greater():
    a = be.alpha_posterior(human_pos=70, human_total=100)
    b = be.alpha_posterior(human_pos=55, human_total=100)
    p = rank_probabilities([a, b])
    assert p[0, 0] == pytest.approx(a.prob_greater(b), abs=1e-9)
    assert p[1, 0] == pytest.approx(b.prob_greater(a), abs=1e-9)


def test_exact_three_betas_match_scipy_quad():
    params = [(31, 21), (26, 26), (12, 9)]     # Beta posteriors of 30/50, 25/50, 11/19
    posts = [be.alpha_posterior(human_pos=a - 1, human_total=a + b - 2) for a, b in params]
    d = [stats.beta(a, b) for a, b in params]
    got = rank_probabilities(posts)
    for s in range(3):
        o = [t for t in range(3) if t != s]

        def rank(r, s=s, o=o):
            def f(x):
                above = [d[t].sf(x) for t in o]
                below = [1 - q for q in above]
                pb = {1: below[0] * below[1], 2: above[0] * below[1] + below[0] * above[1],
                      3: above[0] * above[1]}[r]
                return d[s].pdf(x) * pb
            return integrate.quad(f, 0, 1, epsabs=1e-13, epsrel=1e-12, limit=200)[0]

        for r in (1, 2, 3):
            assert got[s, r - 1] == pytest.approx(rank(r), abs=1e-9)


def test_taking_one_system_out_of_all_equals_the_recursion_over_the_others():
    # P(rank_s = r) needs the Poisson-binomial of every system but s at each node: it is the
    # distribution of all K systems with s divided out (upwards where s's survival p <= 1/2,
    # downwards above), against the recursion over the K - 1 others built from the start (the
    # way before, K times the work), on 50 systems whose survivals run through 0 and 1
    from binaryeval.binary.ranks import _add_one, _take_out

    rng = np.random.default_rng(7)
    k, n = 50, 400
    surv = rng.random((k, n))
    surv[:, :40] = np.round(surv[:, :40])          # nodes beyond supports: exactly 0 or 1
    surv[:, 40:60] = 0.5                           # both ways meet
    full = np.zeros((k + 1, n))
    full[0] = 1.0
    for t in range(k):
        full = _add_one(full, surv[t])
    for s in (0, 17, 49):
        want = np.zeros((k, n))
        want[0] = 1.0
        for t in range(k):
            if t != s:
                new = want * (1.0 - surv[t])
                new[1:] += want[:-1] * surv[t]
                want = new
        np.testing.assert_allclose(_take_out(full, surv[s]), want, rtol=0, atol=1e-14)
    # and the rank probabilities of a leaderboard are probabilities: rows and columns sum to 1
    posts = [be.alpha_posterior(human_pos=int(x), human_total=120)
             for x in np.linspace(30, 90, 12)]
    p = rank_probabilities(posts)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-13)
    np.testing.assert_allclose(p.sum(axis=0), 1.0, atol=1e-12)
    assert p.min() >= -1e-15


def test_panels_joined_across_systems_stay_within_each_systems_own_and_change_nothing():
    # Guards the joined panels (50 systems: some 3,300 panels of the union of every system's
    # quantile edges became a few hundred): each joined panel is no wider than the narrowest
    # own panel of any system whose support it touches, the supports' ends stay edges, and the
    # rank probabilities are those of the union's panels (within 1e-13 on 30 mixture
    # posteriors; measured 3e-16)
    from binaryeval.binary import ranks as R

    rng = np.random.default_rng(5)
    own = []
    for _ in range(40):
        lo, hi = np.sort(rng.uniform(0, 1, 2))
        inner = np.sort(rng.uniform(lo, hi, int(rng.integers(3, 60))))
        own.append(np.unique(np.r_[lo, inner, hi]))
    merged = R._merged_edges(own)
    assert np.all(np.diff(merged) > 0)
    union = np.unique(np.concatenate(own))
    assert merged[0] == union[0] and merged[-1] == union[-1]
    assert set(merged) <= set(union) and len(merged) < 0.7 * len(union)
    for e in own:
        assert {e[0], e[-1]} <= set(merged)
        for a, b in zip(merged[:-1], merged[1:], strict=True):
            if b <= e[0] or a >= e[-1]:
                continue
            touched = np.diff(e)[(e[1:] > a) & (e[:-1] < b)]
            assert b - a <= touched.min() * (1 + 1e-12)
    posts = []
    for _ in range(30):
        n, a = int(rng.integers(40, 300)), rng.uniform(0.3, 0.8)
        m = int(rng.integers(1000, 8000))
        tp = int(n * a * 0.8)
        fn, tn = int(n * a) - tp, int(n * (1 - a) * 0.75)
        posts.append(be.alpha_posterior(tp + fn, n, int(m * (a * 0.8 + (1 - a) * 0.25)), m, tp,
                                        fn, tn, n - tp - fn - tn))
    joined = rank_probabilities(posts)
    union_nodes = R._merged_edges
    try:
        R._merged_edges = lambda own: np.unique(np.concatenate(own))
        every = rank_probabilities(posts)
    finally:
        R._merged_edges = union_nodes
    np.testing.assert_allclose(joined, every, rtol=0, atol=1e-13)


def test_exact_probabilities_of_mixture_posteriors_match_joint_draws():
    counts = {"A": dict(human_pos=6, human_total=10, metric_pos=60, metric_total=100, tp=8, fn=2,
                        tn=7, fp=3),
              "B": dict(human_pos=5, human_total=10, metric_pos=55, metric_total=100, tp=7, fn=3,
                        tn=8, fp=2),
              "C": dict(human_pos=3, human_total=10, metric_pos=40, metric_total=100, tp=6, fn=2,
                        tn=9, fp=3)}
    res = be.fit_counts(counts)
    posts = [res.posteriors[g] for g in res.groups]
    exact = rank_probabilities(posts)
    rng = np.random.default_rng(11)
    n = 200_000
    r = rank_draws(np.column_stack([p.rvs(size=n, random_state=rng) for p in posts]))
    emp = np.stack([(r == k).mean(axis=0) for k in (1, 2, 3)], axis=1)
    se = np.sqrt(exact * (1 - exact) / n)
    assert (np.abs(emp - exact) <= 5 * se + 1e-12).all()
    np.testing.assert_allclose(exact.sum(axis=0), 1.0, atol=1e-8)   # each rank held once


# -- the fits' ranks() -------------------------------------------------------------------------------
def _three():
    return be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
                          "B": {"human_pos": 62, "human_total": 100},
                          "C": {"human_pos": 30, "human_total": 100}})


def test_binary_ranks_table_and_reproducibility():
    res = _three()
    rk = res.ranks(seed=3)
    frame = rk.to_frame()
    assert list(frame.index) == ["A", "B", "C"]
    # the exact posterior means and sds: to_frame()'s, not the draws' (which differ by their
    # Monte Carlo error and once ordered two close groups against the fit's own table)
    table = res.to_frame().loc[list(frame.index)]
    np.testing.assert_array_equal(frame["estimate"], table["estimate"])
    np.testing.assert_array_equal(frame["std_error"], table["std_error"])
    assert frame["p_best"]["A"] == pytest.approx(rank_probabilities(
        [res.posteriors[g] for g in "ABC"])[0, 0], abs=1e-12)
    assert frame.attrs["joint_probability"] >= 0.95
    pd.testing.assert_frame_equal(frame, res.ranks(seed=3).to_frame())
    assert rk.seed == 3 and res.ranks().seed is not None          # a chosen seed is reported
    prob = rk.probabilities()
    np.testing.assert_allclose(prob.sum(axis=1), 1.0, atol=1e-12)


def test_binary_ranks_order_two_close_groups_as_the_exact_means_do_whatever_the_seed():
    # Guards: ranks() ordered by the mean of 4,000 draws, so two groups 0.0014 apart came out
    # against to_frame() and compare() for one seed in forty (WMT21 UEdin and HuaweiTSC);
    # here 0.0004 apart, well within the Monte Carlo error of 200 draws
    res = be.fit_counts({"UEdin": {"human_pos": 5838, "human_total": 10000},
                         "HuaweiTSC": {"human_pos": 5834, "human_total": 10000},
                         "Other": {"human_pos": 5000, "human_total": 10000}})
    assert res.prob_greater_matrix().loc["UEdin", "HuaweiTSC"] > 0.5
    for seed in range(40):
        assert res.ranks(seed=seed, n_resamples=200).groups == ("UEdin", "HuaweiTSC", "Other")


def test_bad_arguments_are_refused_by_name():
    res = _three()
    with pytest.raises(ParameterError, match="level"):
        res.ranks(level=1.5)
    with pytest.raises(ParameterError, match="n_resamples"):
        res.ranks(n_resamples=10)
    with pytest.raises(ParameterError, match="kind"):
        res.ranks(seed=1).interval(kind="hdi")


def test_latent_ranks_come_from_the_alpha_draws():
    from binaryeval.latent.multi import _example

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = _example()
    rk = fit.ranks()
    draws = np.column_stack([fit.alpha_draws(g).ravel() for g in rk.groups])
    np.testing.assert_allclose(rk.estimate, draws.mean(axis=0), rtol=1e-12)
    p_best = (draws[:, 0] > draws[:, 1]).mean()
    assert rk.to_frame()["p_best"].iloc[0] == pytest.approx(p_best, abs=1e-12)
    np.testing.assert_allclose(rk.naive_score,
                               fit.naive()["estimate"].reindex(list(rk.groups)), rtol=1e-12)
    # the rows are the chains one after the other: each chain's halves shape and size the box
    assert rk.chains == fit.latent.n_chains > 1
    lo, hi, joint = simultaneous_intervals(rk.ranks, rk.level, rk.chains)
    frame = rk.to_frame()
    assert frame["lower"].tolist() == lo.tolist() and frame["upper"].tolist() == hi.tolist()
    assert frame.attrs["joint_probability"] == joint


def test_preference_score_is_the_average_win_rate():
    from binaryeval.latent.preferences import _example

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = _example()
    rk = fit.ranks()
    for s in fit.systems:
        rates = []
        for t in fit.systems:
            if t != s:
                d = fit.pair_draws(s, t)
                rates.append(d["win_1"] + d["tie"] / 2)
        expected = np.mean(rates, axis=0)
        i = rk.groups.index(s)
        assert rk.estimate[i] == pytest.approx(expected.mean(), abs=1e-12)
    nv = fit.naive()
    naive = {s: np.mean([(nv.loc[p, "win_1"] + nv.loc[p, "tie"] / 2) if p[0] == s else
                         (nv.loc[p, "win_2"] + nv.loc[p, "tie"] / 2)
                         for p in nv.index if s in p]) for s in fit.systems}
    np.testing.assert_allclose(rk.naive_score, [naive[s] for s in rk.groups], rtol=1e-12)
    assert "average win rate" in rk.to_frame().attrs["ranked"]


def test_preferences_with_missing_pairs_warn_once():
    rng = np.random.default_rng(4)
    rows = []
    for a, b in (("x", "y"), ("y", "z")):          # x and z never compared
        h = rng.choice([-1, 0, 1], size=120)
        rows.append(pd.DataFrame({"a": a, "b": b, "human": np.where(np.arange(120) < 40, h,
                                                                      np.nan), "judge": h}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = be.fit_preferences("human ~ judge", pd.concat(rows), first="a", second="b",
                                 draws=200, seed=1)
    with pytest.warns(BinaryEvalWarning, match="not compared with every other") as caught:
        rk = fit.ranks()
    assert len([w for w in caught if issubclass(w.category, BinaryEvalWarning)]) == 1
    assert any("different opponents" in n for n in rk.summary().notes)


def test_names_from_data_are_escaped_in_html():
    res = be.fit_counts({"<b>A</b>": {"human_pos": 7, "human_total": 10},
                         "B": {"human_pos": 4, "human_total": 10}})
    html = res.ranks(seed=1)._repr_html_()
    assert "<b>A</b>" not in html and "&lt;b&gt;A&lt;/b&gt;" in html


# -- the peer ----------------------------------------------------------------------------------------
def test_rank_sets_separate_exactly_at_the_ellipsoid_radius():
    # two systems, variances 1e-4 each: radius sqrt(chi2_2(0.95) * 2e-4)
    radius = np.sqrt(stats.chi2.ppf(0.95, 2) * 2e-4)
    cov = np.diag([1e-4, 1e-4])
    lo, hi = rank_sets([0.5 + radius * 1.001, 0.5], cov, 0.95)
    assert lo.tolist() == [1, 2] and hi.tolist() == [1, 2]
    lo, hi = rank_sets([0.5 + radius * 0.999, 0.5], cov, 0.95)
    assert lo.tolist() == [1, 1] and hi.tolist() == [2, 2]


# -- coverage of the true ranking --------------------------------------------------------------------
def _binary_replicate(rep, rho, eta, alpha, level):
    rng = np.random.default_rng([20241126, 1, rep])
    counts, est, var = {}, [], []
    for g, (a, r, e) in enumerate(zip(alpha, rho, eta, strict=True)):
        h = rng.random(40) < a
        m = np.where(h, rng.random(40) < r, rng.random(40) > e)
        hu = rng.random(800) < a
        mu = np.where(hu, rng.random(800) < r, rng.random(800) > e)
        counts[f"s{g}"] = {"tp": int((h & m).sum()), "fn": int((h & ~m).sum()),
                           "tn": int((~h & ~m).sum()), "fp": int((~h & m).sum()),
                           "metric_pos": int(mu.sum()), "metric_total": 800}
        resid = h.astype(float) - m
        est.append(mu.mean() + resid.mean())                       # PPI
        var.append(mu.var() / 800 + resid.var() / 40)
    truth = pd.Series(1 + (alpha[None, :] > alpha[:, None]).sum(axis=1),
                      index=[f"s{g}" for g in range(len(alpha))])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        iv = be.fit_counts(counts).ranks(level, n_resamples=2000, seed=rep).interval()
    t = truth[iv.index].to_numpy()
    ours = (bool(((iv["lower"] <= t) & (t <= iv["upper"])).all()),
            float((iv["upper"] - iv["lower"] + 1).mean()))
    lo, hi = rank_sets(est, np.diag(var), level)
    peer = (bool(((lo <= truth.to_numpy()) & (truth.to_numpy() <= hi)).all()),
            float((hi - lo + 1).mean()))
    return ours, peer


def test_rank_intervals_cover_the_true_ranking_and_beat_ppr_rank_sets():
    # the binary design of studies/ranks_coverage.py: 8 systems, alpha 0.40..0.75, 40 paired and
    # 800 metric-only items each, the metric's rates differing by system
    level = 0.95
    design = np.random.default_rng([20241126, 0])
    rho, eta = design.uniform(0.7, 0.9, 8), design.uniform(0.7, 0.9, 8)
    alpha = np.linspace(0.40, 0.75, 8)
    got = [_binary_replicate(rep, rho, eta, alpha, level) for rep in range(60)]
    ours = np.array([g[0] for g in got])
    peer = np.array([g[1] for g in got])
    assert ours[:, 0].mean() >= level             # coverage of the whole true ranking
    assert peer[:, 0].mean() >= level             # the peer's guarantee holds here too
    # at (at least) equal coverage, the posterior's rank intervals are smaller
    assert ours[:, 1].mean() < 0.8 * peer[:, 1].mean()


def test_systems_numbered_in_float_and_int_columns_are_not_split_in_two():
    # ids 1, 2, 3 in both columns; one missing id makes pandas hold `first` as 1.0, 2.0, 3.0,
    # which print differently from `second`'s 1, 2, 3: the three systems would be ranked as six
    rng = np.random.default_rng(6)
    rows = []
    for a, b in ((1, 2), (1, 3), (2, 3)):
        h = rng.choice([-1, 0, 1], size=60)
        rows.append(pd.DataFrame({"a": a, "b": b, "human": np.where(np.arange(60) < 20, h,
                                                                      np.nan), "judge": h}))
    df = pd.concat(rows, ignore_index=True)
    df["a"] = df["a"].astype(float)
    df.loc[0, "a"] = np.nan
    with pytest.raises(be.errors.DataError, match=r"'a' holds the systems as floats.*Int64"):
        be.fit_preferences("human ~ judge", df, first="a", second="b", draws=20, seed=1)
    df["a"] = df["a"].astype("Int64")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = be.fit_preferences("human ~ judge", df, first="a", second="b", draws=20,
                                 chains=2, seed=1)
    assert fit.systems == ("1", "2", "3")
    assert sorted(fit.ranks().groups) == ["1", "2", "3"]
    # 59 + 60 + 60 rows kept; the row without its first system is counted as missing
    assert int(fit.to_frame()["n_human"].sum()) == 19 + 20 + 20


# -- the calibration study (studies/ranks_calibration.py): the saved run and one batch re-run ----
def test_saved_calibration_study_holds_the_level_and_one_batch_reproduces():
    study = study_module("ranks_calibration")
    saved = pd.read_csv(Path(study.__file__).parents[1] / "studies" / "results"
                        / "ranks_calibration.csv")
    # the promise, averaged over truths from the prior: the box's posterior probability on
    # draws the intervals never saw, and the coverage of the true ranking, per path
    table = study.summarise(saved)
    assert set(table.index) == {"estimate", "hierarchical"}
    assert (table["holdout"] - 2 * table["holdout_se"] > 0.95).all()
    assert (table["covered"] + 2 * table["covered_se"] >= 0.95).all()
    assert (table["marginal_holdout"] >= 0.95).all()
    # the first batch of the exact fit, re-run (25 leaderboards of 20 systems)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = pd.DataFrame(study.run_estimate(0))
    first = saved[(saved["path"] == "estimate") & (saved["batch"] == 0)]
    cols = ["covered", "in_sample", "holdout", "mean_size", "marginal_covered",
            "marginal_holdout"]
    pd.testing.assert_frame_equal(again[cols].reset_index(drop=True),
                                  first[cols].reset_index(drop=True), check_dtype=False,
                                  rtol=1e-12)


def test_a_system_without_confident_wins_or_losses_stays_inside_the_ranking_figure():
    # A beats B; C has no confident relation.  Only the edges set the axes' limits, so C, at
    # the end of the top layer, was drawn beyond them: the system vanished from the figure
    import matplotlib.pyplot as plt
    import networkx as nx

    from binaryeval._ranking import draw_layers, reduced

    g = nx.DiGraph()
    g.add_nodes_from(["A", "B", "C"])
    g.add_edge("A", "B")
    fig, ax = plt.subplots()
    draw_layers(reduced(g, "wins"), ax, "wins")
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    placed = {t.get_text(): t.get_position() for t in ax.texts}
    assert set(placed) == {"A", "B", "C"}
    for name, (x, y) in placed.items():
        assert x0 < x < x1 and y0 < y < y1, (name, (x, y), (x0, x1))
    plt.close(fig)


def test_too_few_draws_for_the_level_warn_instead_of_a_silent_whole_range():
    # three systems far apart (P(A best) > 0.9999): at level 0.99 the sizing half of 100 draws
    # (50) cannot hold ceil(0.99 * 51) = 51 of itself, so every interval is 1 ... 3; this is said
    res = be.fit_counts({"A": {"human_pos": 90, "human_total": 100},
                         "B": {"human_pos": 50, "human_total": 100},
                         "C": {"human_pos": 10, "human_total": 100}})
    rk = res.ranks(level=0.99, n_resamples=100, seed=1)
    with pytest.warns(BinaryEvalWarning, match=r"at least 197 posterior draws .* 100, so every "
                                                r"interval is the whole range 1 \.\.\. 3.*draw "
                                                r"more \(n_resamples=\)"):
        frame = rk.to_frame()
    assert frame["lower"].tolist() == [1, 1, 1] and frame["upper"].tolist() == [3, 3, 3]
    assert "at least 197 posterior draws" in rk.summary().as_text()
    # the fewest draws that do hold the level give the separated ranks, without a warning
    # (n_b = 99 sizing draws hold ceil(0.99 * 100) = 99)
    with warnings.catch_warnings():
        warnings.simplefilter("error", BinaryEvalWarning)
        enough = res.ranks(level=0.99, n_resamples=197, seed=1).interval()
    assert enough.values.tolist() == [[1, 1], [2, 2], [3, 3]]


def test_pooled_binary_ranks_say_the_shared_paired_rows_are_left_out():
    # rates="pooled": every group's rho/eta come from all groups' paired rows, so the
    # posteriors are not independent; compare() said so, ranks() did not
    counts = {g: {"human_pos": hp, "human_total": 30, "metric_pos": mp, "metric_total": 300,
                  "tp": 10, "fn": 2, "tn": 6, "fp": 2}
              for g, hp, mp in (("A", 20, 200), ("B", 15, 160), ("C", 10, 120))}
    pooled = be.fit_counts(counts, rates="pooled").ranks(seed=1)
    assert any("share the paired rows" in note for note in pooled.notes)
    assert "share the paired rows" in pooled.summary().as_text()
    assert not be.fit_counts(counts).ranks(seed=1).notes


def _verbose_judge_battles(seed=0, n=3000, voted=0.1, verbose=3, push=0.35):
    """Six systems of strength 0.6 ... -0.6; the judge copies the human 80 % of the time, but on
    35 % of the rows with system m3 it picks m3's (longer) answer whatever the truth."""
    rng = np.random.default_rng(seed)
    s, names = np.linspace(0.6, -0.6, 6), np.array([f"m{i}" for i in range(6)])
    i = rng.integers(0, 6, n)
    j = (i + rng.integers(1, 6, n)) % 6
    win = 0.8 / (1 + np.exp(-(s[i] - s[j])))
    u = rng.random(n)
    human = np.where(u < win, 1, np.where(u < win + 0.2, 0, -1))
    u = rng.random(n)
    judge = np.where(u < 0.8, human, np.where(u < 0.9, 0, -human))
    u = rng.random(n)
    judge = np.where((i == verbose) & (u < push), 1, judge)
    judge = np.where((j == verbose) & (u < push), -1, judge)
    return pd.DataFrame({"a": names[i], "b": names[j], "judge": judge,
                         "human": np.where(rng.random(n) < voted, human, np.nan)})


def test_pooled_ranks_carry_the_check_before_pooling():
    # a judge that favours m3 (true rank 4): one confusion matrix for all pairs puts m3 first,
    # with the interval [1, 1]; the fit warned, its ranks' summary said nothing of it
    df = _verbose_judge_battles()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = be.fit_preferences("human ~ judge", df, first="a", second="b", rates="pooled",
                                 seed=1, draws=300)
    frame = fit.ranks().to_frame()
    assert frame.loc["m3", "rank"] == 1 and frame.loc["m3", "upper"] == 1   # wrong, and sure
    check = fit.pooling_check()
    assert check.attrs["p_value"] < 0.01
    text = fit.ranks().summary().as_text()
    assert "check before pooling" in text and "WARNING" in text
    # a fit that pools nothing carries no such note
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        own = be.fit_preferences("human ~ judge", df, first="a", second="b", seed=1, draws=300)
    assert not any("pooling" in note for note in own.ranks().notes)
    true_rank = 4
    lo, hi = own.ranks().to_frame().loc["m3", ["lower", "upper"]]
    assert lo <= true_rank <= hi


def test_pooled_latent_ranks_carry_the_check_before_pooling():
    # two systems whose metric errs differently (rho 0.95 and 0.6): the check rejects one
    # confusion matrix, and the ranks' summary says so as the fit's does
    rng = np.random.default_rng(4)
    frames = []
    for name, alpha, rho in (("A", 0.7, 0.95), ("B", 0.5, 0.6)):
        truth = rng.random(600) < alpha
        metric = np.where(truth, rng.random(600) < rho, rng.random(600) < 0.2)
        frames.append(pd.DataFrame({"system": name, "metric": metric.astype(int),
                                    "human": np.where(np.arange(600) < 200, truth, np.nan)}))
    df = pd.concat(frames, ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = be.fit_latent("human ~ metric | system", df, rates="pooled", draws=200, seed=1)
    assert fit.pooling_check().attrs["p_value"] < 0.01
    notes = fit.ranks().notes
    assert any("check before pooling" in n and "WARNING" in n for n in notes)
