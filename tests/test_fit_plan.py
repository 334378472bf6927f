"""From a fit to a plan: ``BinaryFit.plan`` against the normal approximation of the model.

The reference is independent of the package: the Fisher information of the binary model (human
ratings Bernoulli(alpha); paired ratings multinomial on (human, metric) with probabilities
alpha rho, alpha (1 - rho), (1 - alpha) eta, (1 - alpha)(1 - eta); metric-only ratings
Bernoulli(alpha rho + (1 - alpha)(1 - eta))), inverted for the variance of alpha.  With the counts
of these settings (hundreds to thousands of ratings) the posterior is close to normal, and the
number of additional human ratings agrees within 2 %.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import binaryeval as be


def _fisher_var(alpha, rho, eta, n_human_only, n_paired, n_metric, known):
    a, r, e = alpha, rho, eta
    info = np.zeros((3, 3))
    info[0, 0] += n_human_only / (a * (1 - a))
    # paired: cells (1,1), (1,0), (0,0), (0,1); gradients in (alpha, rho, eta)
    probs = [a * r, a * (1 - r), (1 - a) * e, (1 - a) * (1 - e)]
    grads = [(r, a, 0.0), (1 - r, -a, 0.0), (-e, 0.0, 1 - a), (-(1 - e), 0.0, -(1 - a))]
    for p, g in zip(probs, grads, strict=True):
        g = np.array(g)
        info += n_paired * np.outer(g, g) / p
    q = a * r + (1 - a) * (1 - e)
    g = np.array([r + e - 1, a, -(1 - a)])
    info += n_metric * np.outer(g, g) / (q * (1 - q))
    if known:
        return 1.0 / info[0, 0]
    return float(np.linalg.inv(info)[0, 0])


def _normal_k(groups, target, z, known):
    """Smallest k with z sqrt(var_1(k) + var_2(k)) <= target under the normal approximation."""
    def f(k):
        total = 0.0
        for g in groups:
            total += _fisher_var(g["alpha"], g["rho"], g["eta"], g["human_only"],
                                 g["paired"] + k, max(g["metric"] - k, 0), known)
        return z * math.sqrt(total)
    lo, hi = 0, 1
    while f(hi) > target:
        hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if f(mid) <= target else (mid, hi)
    return hi


def _counts(alpha, rho, eta, human_only, paired, metric):
    pos = alpha * paired
    q = alpha * rho + (1 - alpha) * (1 - eta)
    return {"human_pos": round(alpha * human_only), "human_total": human_only,
            "tp": round(pos * rho), "fn": round(pos * (1 - rho)),
            "tn": round((paired - pos) * eta), "fp": round((paired - pos) * (1 - eta)),
            "metric_pos": round(q * metric), "metric_total": metric}


SETTINGS = [
    # (alpha_A, alpha_B, rho, eta, human-only, paired, metric-only, known rates)
    (0.70, 0.66, 0.80, 0.75, 0, 400, 5000, False),
    (0.70, 0.66, 0.80, 0.75, 0, 400, 5000, True),
    (0.55, 0.50, 0.90, 0.85, 200, 300, 3000, False),
    (0.55, 0.50, 0.90, 0.85, 200, 300, 3000, True),
    (0.40, 0.36, 0.70, 0.70, 0, 800, 20000, False),
    (0.62, 0.58, 0.85, 0.60, 100, 500, 2000, False),
    (0.30, 0.25, 0.75, 0.80, 1000, 0, 0, True),
]


@pytest.mark.parametrize("aA, aB, rho, eta, human_only, paired, metric, known", SETTINGS)
def test_plan_agrees_with_the_normal_approximation(aA, aB, rho, eta, human_only, paired, metric,
                                                   known):
    counts = {"A": _counts(aA, rho, eta, human_only, paired, metric),
              "B": _counts(aB, rho, eta, human_only, paired, metric)}
    rates = {"rho": rho, "eta": eta} if known else "estimate"
    res = be.fit_counts(counts, rates=rates)
    plan = res.plan(epsilon=0.02, pairs="neighbours").to_frame().iloc[0]
    frame, fitted = res.to_frame(), res.rates()
    groups = []
    for g in ("A", "B"):
        groups.append({"alpha": frame.loc[g, "estimate"],
                       "rho": rho if known or metric == 0 else fitted.loc[g, "rho"],
                       "eta": eta if known or metric == 0 else fitted.loc[g, "eta"],
                       "human_only": human_only, "paired": paired, "metric": metric})
    z = stats.norm.ppf(0.975)
    k_normal = _normal_k(groups, 0.02, z, known or metric == 0)
    assert plan["attainable"] and plan["more_human"] == pytest.approx(k_normal, rel=0.02)


def test_plan_per_group_and_unreachable_targets():
    # human ratings only: the papers' eps = z sqrt(2) sd with sd^2 = a b / ((a + b)^2 (a + b + 1))
    res = be.fit_counts({"A": {"human_pos": 300, "human_total": 500},
                         "B": {"human_pos": 250, "human_total": 500}})
    per = res.plan(0.05, pairs=None).to_frame().set_index("group")
    z = stats.norm.ppf(0.975)
    for g, pos in (("A", 300), ("B", 250)):
        a, b = 1 + pos, 1 + 500 - pos
        now = z * math.sqrt(2) * math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
        assert per.loc[g, "separated_now"] == pytest.approx(now, rel=1e-3)
        assert per.loc[g, "more_human"] >= 0
    # a target no number of human ratings up to the cap reaches: the plan says so and why
    tiny = res.plan(0.001, pairs="neighbours", max_human=2000)
    row = tiny.to_frame().iloc[0]
    assert not row["attainable"] and pd.isna(row["more_human"])
    assert "not within 2,000 more human ratings" in row["note"]
    assert "A vs B: not within" in str(tiny)


def test_plan_requires_a_target_per_group_and_two_groups_for_pairs():
    res = be.fit_counts({"human_pos": 30, "human_total": 50})
    with pytest.raises(be.ParameterError, match="at least two groups"):
        res.plan()
    with pytest.raises(be.ParameterError, match="give epsilon="):
        res.plan(pairs=None)


@pytest.mark.parametrize("rates", ["estimate", {"rho": 0.85, "eta": 0.85}])
def test_plan_of_a_fit_whose_paired_rows_do_not_inform_alpha(rates):
    # Guards: with paired_informs_alpha=False the fit's n_human (50) excludes its 100 paired
    # rows, and plan() raised "n_paired (100) exceeds n_human (50) ... give psi=" for arguments
    # the caller never gave.  The paired rows are a calibration set with their own share of
    # positives (60 of 100 in A): the plan is detectable_difference with that psi, k more human
    # ratings turning metric-only items into paired ones.
    from binaryeval.plan import detectable_difference

    counts = {"A": dict(human_pos=30, human_total=50, metric_pos=560, metric_total=1000,
                        tp=52, fn=8, tn=34, fp=6),
              "B": dict(human_pos=25, human_total=50, metric_pos=500, metric_total=1000,
                        tp=45, fn=8, tn=40, fp=7)}
    fit = be.fit_counts(counts, rates=rates, paired_informs_alpha=False)
    row = fit.to_frame().loc["A"]
    assert (row["n_human"], row["n_paired"]) == (50, 100)
    plan = fit.plan(pairs=None, epsilon=0.05).to_frame().set_index("group")
    k = int(plan.loc["A", "more_human"])

    def eps(more):
        return detectable_difference(row["estimate"], row["rho"], row["eta"], n_human=50 + more,
                                     n_metric=1000 - more, n_paired=100 + more, psi=0.6,
                                     rates=rates)

    assert plan.loc["A", "separated_now"] == pytest.approx(eps(0), rel=1e-12)
    assert eps(k) <= 0.05 < eps(k - 1)
    if isinstance(rates, dict):
        # known rates: the planned posterior at k = 0 is the fit's own (its counts are the
        # expected ones up to rounding)
        z = stats.norm.ppf(0.975)
        assert plan.loc["A", "separated_now"] == pytest.approx(
            z * math.sqrt(2) * row["std_error"], rel=2e-3)
    assert fit.plan().to_frame()["attainable"].all()


def test_plan_of_equal_estimates_says_no_number_of_ratings_separates_them():
    # Guards: two groups with the same estimate (60 of 100 each) read "not within 100,000 more
    # human ratings per system: the difference is small against what human ratings can
    # resolve", as if more than 100,000 might do; no number of ratings separates a difference
    # of 0, and the latent-truth plan already said "the estimated difference is 0".
    fit = be.fit_counts({"A": {"human_pos": 60, "human_total": 100},
                         "B": {"human_pos": 60, "human_total": 100},
                         "C": {"human_pos": 50, "human_total": 100}})
    table = fit.plan(pairs="all").to_frame().set_index(["group_1", "group_2"])
    same = table.loc[("A", "B")]
    assert same["diff"] == 0 and not same["attainable"] and pd.isna(same["more_human"])
    assert same["note"].startswith("the estimated difference is 0: no number of human ratings")
    assert "not within" not in same["note"]
    assert table.loc[("A", "C"), "attainable"]
    assert any("A vs B: the estimated difference is 0" in n for n in fit.plan().summary().notes)
    # the latent-truth plans write the same note for a difference of 0
    from binaryeval.plan.latent_plan import _note

    assert _note(None, 500, 100_000, "the estimated difference is 0") == same["note"]


def test_latent_plans_refuse_a_difference_no_two_shares_can_have():
    # Guards: LatentFit.plan() and PreferenceFit.plan() took epsilon up to 2 and answered
    # epsilon=1.5 with "already separated"; two shares (alpha, or win_1 and win_2 with
    # win_1 + win_2 <= 1) differ by at most 1, the bound BinaryFit.plan() keeps
    from binaryeval.plan.latent_plan import _settings

    fit = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
                         "B": {"human_pos": 62, "human_total": 100}})
    for settings in (lambda e: _settings(None, 0.95, 1000, e), lambda e: fit.plan(e)):
        with pytest.raises(be.errors.ParameterError, match=r"epsilon=1.5 must lie in \(0, 1\]"):
            settings(1.5)
    sig, cap, target, z = _settings(None, 0.95, 1000, 1.0)
    assert (sig, cap, target) == (0.05, 1000, 1.0)
    assert z == pytest.approx(stats.norm.ppf(0.975), rel=1e-12)


def test_plans_from_a_fit_of_narrow_intervals_ask_for_a_sig_level():
    # Guards: a fit with level=0.4 lends sig_level 0.6: BinaryFit.plan() then failed with
    # "sig_level=0.6 ... give sig_level=0.4", about an argument never given, and the latent
    # plans used 0.6 silently (z_{0.7} = 0.52 sds instead of 1.96).  Both now name the fit's
    # level and ask for sig_level=; a sig_level given is used.
    from binaryeval.plan.latent_plan import _settings

    fit = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
                         "B": {"human_pos": 62, "human_total": 100}}, level=0.4)
    for call in (lambda: fit.plan(), lambda: _settings(None, 0.4, 1000, None)):
        with pytest.raises(be.errors.ParameterError, match=r"the fit's level=0.4 makes the "
                                                           r"default sig_level = 1 - level = 0.6"):
            call()
    given = fit.plan(sig_level=0.05).to_frame()
    same = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
                          "B": {"human_pos": 62, "human_total": 100}}).plan().to_frame()
    assert given["more_human"].tolist() == same["more_human"].tolist() == [177]
    sig, _, _, z = _settings(None, 0.9, 1000, None)
    assert sig == 0.1 and z == pytest.approx(stats.norm.ppf(0.95), rel=1e-12)


def test_plan_caps_beyond_the_engine_name_max_human():
    # Guards: plan(max_human=10**11) failed with "n_paired=100000000000 exceeds ...", an
    # argument plan() does not have; the largest max_human is the engine's limit (10**10) less
    # the fit's ratings (200 here)
    fit = be.fit_counts({"A": {"human_pos": 60, "human_total": 100},
                         "B": {"human_pos": 50, "human_total": 100}})
    with pytest.raises(be.errors.ParameterError,
                       match=r"max_human=100000000000 plus the fit's 200 ratings .* "
                             r"give at most max_human=9999999800"):
        fit.plan(max_human=10 ** 11)
    plan = fit.plan(max_human=10 ** 10 - 200).to_frame()
    assert plan["more_human"].tolist() == fit.plan().to_frame()["more_human"].tolist()


def test_plan_of_listed_pairs_is_those_rows_of_every_pair():
    # A plan of the pairs a user names (e.g. the top two systems) is the same rows as the plan
    # of every pair, each pair put in the fit's order (the group ranked higher first) whichever
    # way round it is listed, in the order listed
    fit = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
                         "B": {"human_pos": 62, "human_total": 100},
                         "C": {"human_pos": 55, "human_total": 120},
                         "D": {"human_pos": 40, "human_total": 90}})
    every = fit.plan(pairs="all", power=0.8).to_frame().set_index(["group_1", "group_2"])
    got = fit.plan(pairs=[("D", "A"), ("B", "C")], power=0.8).to_frame()
    assert list(zip(got["group_1"], got["group_2"], strict=True)) == [("A", "D"), ("B", "C")]
    pd.testing.assert_frame_equal(got.set_index(["group_1", "group_2"]),
                                  every.loc[[("A", "D"), ("B", "C")]])
    # diff is the posterior means' difference, group_1 less group_2 (71/102 - 63/102)
    listed = fit.plan(pairs=[("B", "A")]).to_frame()
    assert listed["diff"].iloc[0] == pytest.approx(8 / 102, rel=1e-9)
    for bad, message in [([("A", "Z")], "group 'Z' in pairs= is not a group of the fit"),
                         ([("A", "A")], "compares a group with itself"),
                         ([("A", "B"), ("B", "A")], "lists the pair ('A', 'B') twice"),
                         ([], "pairs= is empty"),
                         (["AB"], "each entry of pairs= must be (group_1, group_2)"),
                         ("top", "pairs")]:
        with pytest.raises(be.ParameterError, match=re.escape(message)):
            fit.plan(pairs=bad)


def test_the_latent_plans_fisher_information_is_the_binary_models_and_the_dirichlets():
    # The latent plans take what k more human ratings add from the Fisher information of the
    # latent-class model (binaryeval.plan.latent_plan._fisher_variance).  With K = J = 2 it is
    # the binary model's information above (another parametrisation: alpha, rho, eta); with a
    # metric whose rows of Theta are all alike (it carries nothing) or with no metric-only
    # items, the variance of diff = win_1 - win_2 is the multinomial's V / n of the items
    # whose human class is known; with no paired item the metric is not identified (inf).
    from binaryeval.plan.latent_plan import _fisher_variance

    a, r, e = 0.6, 0.8, 0.7
    theta = np.array([[r, 1 - r], [1 - e, e]])
    for human_only, paired, metric in ((0, 100, 1000), (30, 50, 500), (0, 200, 0)):
        want = _fisher_var(a, r, e, human_only, paired, metric, known=False)
        got = _fisher_variance(np.array([a, 1 - a]), theta, paired, human_only, metric,
                               np.array([1.0, 0.0]))
        assert got == pytest.approx(want, rel=1e-10)
    pi, grad = np.array([0.5, 0.2, 0.3]), np.array([1.0, 0.0, -1.0])
    v = pi[0] + pi[2] - (pi[0] - pi[2]) ** 2
    alike = np.tile([0.2, 0.5, 0.3], (3, 1))
    good = np.array([[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7]])
    assert _fisher_variance(pi, alike, 80, 20, 500, grad) == pytest.approx(v / 100, rel=1e-10)
    assert _fisher_variance(pi, good, 80, 20, 0, grad) == pytest.approx(v / 100, rel=1e-10)
    assert v / 600 < _fisher_variance(pi, good, 80, 20, 500, grad) < v / 100
    assert _fisher_variance(pi, good, 0, 20, 500, grad) == math.inf


def test_preference_plan_delivers_the_posterior_sd_and_power_it_promises():
    # A small simulation of the study studies/preference_plan_power.py: 200 replicates of one
    # pair (diff = 0.2, ties 0.2, a good 3 x 3 metric), 40 paired and 400 metric-only items;
    # the plan asks for k more human ratings for power 0.8 at the true diff (mean 64, 5-95 %
    # range 43-90), they go to the metric-only items, and the refit's posterior sd of diff is
    # the one the plan predicted (mean ratio 1.02; 1.10 when each metric-only item kept its
    # present worth, the rule before the Fisher gain) and the pair is decided in 0.825 of the
    # replicates (promised 0.8, binomial SE 0.028).
    rng = np.random.default_rng(7)
    n_rep, n_paired, n_metric, diff, power = 200, 40, 400, 0.2, 0.8
    pi = np.array([(0.8 + diff) / 2, 0.2, (0.8 - diff) / 2])
    theta = np.array([[0.75, 0.15, 0.10], [0.25, 0.50, 0.25], [0.10, 0.15, 0.75]])
    n_items = n_paired + n_metric + 200
    cls = rng.choice(3, size=(n_rep, n_items), p=pi)
    out = (rng.random(cls.shape)[..., None] > np.cumsum(theta, axis=1)[cls][..., :2]).sum(-1)
    code = np.array([1, 0, -1])   # first better, tie, second better
    first = np.repeat([f"a{r}" for r in range(n_rep)], n_items)
    second = np.repeat([f"b{r}" for r in range(n_rep)], n_items)

    def fit(n_human, n_rated, seed):
        pos = np.arange(n_items)[None, :]
        df = pd.DataFrame({"first": first, "second": second,
                           "human": np.where(pos < n_human[:, None], code[cls], np.nan).ravel(),
                           "metric": np.where(pos < n_rated[:, None], code[out], np.nan).ravel()})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # a few replicates' chains may mix slowly
            return be.fit_preferences("human ~ metric", df[(pos < n_rated[:, None]).ravel()],
                                      first="first", second="second", seed=seed)

    now = fit(np.full(n_rep, n_paired), np.full(n_rep, n_paired + n_metric), 1)
    plan = now.plan(diff, power=power).to_frame().set_index(["group_1", "group_2"])
    assert [key[0][0] for key in plan.index] == ["a"] * n_rep   # win_1: the first system
    k = plan["more_human"].to_numpy(dtype=int)
    assert 0 < k.min() and k.max() <= n_metric   # the new ratings go to metric-only items
    after = fit(n_paired + k, np.full(n_rep, n_paired + n_metric), 2).to_frame()
    after = after.loc[plan.index]
    z = stats.norm.isf(0.025) + stats.norm.ppf(power)
    ratio = (plan["achieved"] / z).mean() / after["std_error"].mean()
    assert 0.95 < ratio < 1.05, ratio
    decided = float((after["lower"] > 0).mean())
    assert abs(decided - power) < 3 * math.sqrt(power * (1 - power) / n_rep), decided


def test_latent_plan_delivers_the_posterior_sd_and_power_it_promises():
    # A small simulation of the study studies/latent_plan_power.py: 200 replicates of two
    # systems (alpha 0.72 and 0.62), a score in 4 bins (P(bin | class) below), 40 paired and
    # 400 metric-only items per system; the plan asks for k more human ratings per system for
    # power 0.8 at the true difference 0.1 (mean 281, 5-95 % range 237-322), they go to the
    # metric-only items, the refit's posterior sd of alpha_1 - alpha_2 is the one the plan
    # predicted (mean ratio 0.993) and the pair is decided (the equal-tailed 95 % interval of
    # the difference above 0) in 0.84 of the replicates (promised 0.8, binomial SE 0.028).
    rng = np.random.default_rng(11)
    n_rep, n_paired, n_metric, diff, power = 200, 40, 400, 0.1, 0.8
    alpha = np.array([0.72, 0.62])
    theta = np.array([[0.40, 0.30, 0.20, 0.10], [0.10, 0.20, 0.30, 0.40]])
    n_items = n_paired + n_metric
    cls = (rng.random((n_rep, 2, n_items)) < alpha[:, None]).astype(int)
    out = (rng.random(cls.shape)[..., None] > np.cumsum(theta, axis=1)[cls][..., :3]).sum(-1)
    system = np.array([[f"a{r}", f"b{r}"] for r in range(n_rep)])
    pos = np.arange(n_items)

    def fit(n_human, seed):   # n_human per replicate, both systems
        human = np.where(pos < n_human[:, None, None], cls, np.nan)
        df = pd.DataFrame({"system": np.repeat(system.ravel(), n_items),
                           "h": human.ravel(), "m": out.ravel()})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # a few replicates' chains may mix slowly
            return be.fit_latent("h ~ C(m) | system", df, seed=seed)

    now = fit(np.full(n_rep, n_paired), 1)
    pairs = [tuple(s) for s in system]
    plan = now.plan(diff, pairs=pairs, power=power).to_frame()
    k = pd.Series(plan["more_human"].to_numpy(dtype=int),
                  index=[min(g1, g2) for g1, g2 in zip(plan["group_1"], plan["group_2"],
                                                       strict=True)])
    k = k.loc[system[:, 0]].to_numpy()
    assert 0 < k.min() and k.max() <= n_metric   # the new ratings go to metric-only items
    after = fit(n_paired + k, 2)
    a = np.stack([after.alpha_draws(g).ravel() for g in system.ravel()]).reshape(n_rep, 2, -1)
    d = a[:, 0] - a[:, 1]
    z = stats.norm.isf(0.025) + stats.norm.ppf(power)
    ratio = (plan["achieved"] / z).mean() / d.std(axis=1, ddof=1).mean()
    assert 0.97 < ratio < 1.03, ratio
    decided = float((np.quantile(d, 0.025, axis=1) > 0).mean())
    assert abs(decided - power) < 3 * math.sqrt(power * (1 - power) / n_rep), decided
