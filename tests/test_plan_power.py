"""The power a plan promises, checked against seeded simulated comparisons and closed forms.

A plan at ``power`` says two systems ``eps`` apart are told apart with that chance by the test
``|mean_2 - mean_1| > z_{1 - sig_level/2} sqrt(var_1 + var_2)`` on their posteriors.  The papers'
``eps`` gives both systems this one's posterior variance; near ``alpha = 0`` or 1 the other
system's posterior is wider and the promise is not kept, which ``variance="both"`` repairs.
"""

import math

import numpy as np
import pytest
from scipy import special, stats

from binaryeval import plan
from binaryeval.binary.engine import alpha_posterior
from binaryeval.errors import ParameterError
from binaryeval.plan._setup import (
    BOTH_VARIANCE_NOTE,
    EQUAL_VARIANCE_NOTE,
    POWER_NOTE,
    power_note,
)

Z = special.ndtri(0.975)
KEYS = ("human_pos", "human_total", "metric_pos", "metric_total", "tp", "fn", "tn", "fp")


def _draw(rng, alpha, rho, n_human, n_metric):
    """One experiment's counts: the human-rated items are the paired ones (the plan's default)."""
    hp = int(rng.binomial(n_human, alpha))
    mp = int(rng.binomial(n_metric, alpha * rho + (1 - alpha) * (1 - rho)))
    tp = int(rng.binomial(hp, rho))
    tn = int(rng.binomial(n_human - hp, rho))
    return dict(zip(KEYS, (hp, n_human, mp, n_metric, tp, hp - tp, tn, n_human - hp - tn),
                       strict=True))


def _rejections(alpha_1, alpha_2, rho, n_human, n_metric, reps, seed):
    """Share of seeded simulated comparisons the two-sided posterior z-test calls different."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        p1 = alpha_posterior(**_draw(rng, alpha_1, rho, n_human, n_metric))
        p2 = alpha_posterior(**_draw(rng, alpha_2, rho, n_human, n_metric))
        hits += abs(p2.mean() - p1.mean()) > Z * math.sqrt(p1.var() + p2.var())
    return hits / reps


def test_power_near_zero_is_kept_with_each_systems_own_variance():
    # Guards: at alpha = 0.05 (rho = 0.9 estimated, 300 human + 5000 metric ratings) power=0.8
    # planned eps = 0.0436, and a system that much better was found 71 % of the time (500
    # seeded comparisons; the normal approximation with both variances says 0.70): the equal
    # variances of the papers' eps hold only near alpha = 0.5.  variance="both" gives 0.0496.
    design = dict(n_human=300, n_metric=5000, power=0.8)
    equal = plan.detectable_difference(0.05, 0.9, **design)
    both = plan.detectable_difference(0.05, 0.9, **design, variance="both")
    assert equal == pytest.approx(0.04362, abs=5e-5)
    assert both == pytest.approx(0.04959, abs=5e-5)
    reps = 400   # binomial sd of a share near 0.8: 0.02
    found_equal = _rejections(0.05, 0.05 + equal, 0.9, 300, 5000, reps, seed=11)
    found_both = _rejections(0.05, 0.05 + both, 0.9, 300, 5000, reps, seed=11)
    assert found_equal < 0.75                      # the old promise of 0.8 is not kept
    assert found_both == pytest.approx(0.8, abs=0.05)
    # the test's false-positive rate at a difference of 0 is the stated sig_level
    assert _rejections(0.05, 0.05, 0.9, 300, 5000, reps, seed=12) == pytest.approx(0.05, abs=0.03)


def test_both_variances_at_mid_alpha_keep_the_papers_numbers_and_power():
    # near alpha = 0.5 both systems' variances are nearly equal: the two answers agree and the
    # simulated power is the promised one (paper-style design of Table 12, rho = 0.9)
    design = dict(n_human=200, n_metric=2000, power=0.8)
    equal = plan.detectable_difference(0.6, 0.9, **design)
    both = plan.detectable_difference(0.6, 0.9, **design, variance="both")
    assert both == pytest.approx(equal, rel=0.01)
    assert _rejections(0.6, 0.6 - both, 0.9, 200, 2000, 300, seed=5) == pytest.approx(0.8,
                                                                                      abs=0.06)
    # the papers' eps (power 0.5) is unchanged by the new option's default
    assert plan.detectable_difference(0.6, 0.9, n_human=1000, n_metric=10000) == \
        pytest.approx(0.028, abs=5e-4)


def _beta_sd(alpha, n):
    """Posterior sd of alpha from n human ratings at their expected (half-up) positives."""
    k = math.floor(alpha * n + 0.5)
    return math.sqrt(stats.beta(1 + k, 1 + n - k).var())


def test_both_variances_solve_their_equation_in_closed_form():
    # human ratings only: each posterior is a Beta, so eps with both variances solves
    # eps = (z + z_0.8) sqrt(sd(alpha)^2 + sd(alpha + eps)^2) in closed form
    zt = Z + special.ndtri(0.8)
    n = 10_000
    eps = plan.detectable_difference(0.05, 0.9, n_human=n, power=0.8, variance="both")
    need = zt * math.hypot(_beta_sd(0.05, n), _beta_sd(0.05 + eps, n))
    assert eps == pytest.approx(need, rel=1e-4)
    # the papers' eps is sqrt(2) (z + z_0.8) sd(alpha), smaller here
    assert plan.detectable_difference(0.05, 0.9, n_human=n, power=0.8) == pytest.approx(
        math.sqrt(2) * zt * _beta_sd(0.05, n), rel=1e-9)
    assert eps > 1.03 * math.sqrt(2) * zt * _beta_sd(0.05, n)


def test_required_sample_size_with_both_variances_matches_the_closed_form():
    # Guards: at alpha = 0.05 the size for eps = 0.05 at power 0.8 was 233 human ratings (with
    # 5000 metric ratings); with the better system's own variance it takes 296.  Human ratings
    # alone, the size is the smallest n with (z + z_0.8) sqrt(sd(0.05)^2 + sd(0.10)^2) <= 0.05.
    zt = Z + special.ndtri(0.8)
    closed = next(n for n in range(1, 5000)
                  if zt * math.hypot(_beta_sd(0.05, n), _beta_sd(0.10, n)) <= 0.05)
    res = plan.required_sample_size(0.05, alpha=0.05, rho=0.9, power=0.8, variance="both")
    assert res.size == closed
    assert res.achieved <= 0.05 and res.settings["variance"] == "both"
    equal = plan.required_sample_size(0.05, alpha=0.05, rho=0.9, n_metric=5000, power=0.8)
    both = plan.required_sample_size(0.05, alpha=0.05, rho=0.9, n_metric=5000, power=0.8,
                                     variance="both")
    assert (equal.size, both.size) == (233, 296)
    # a plan at the size found keeps its power in seeded simulated comparisons
    assert _rejections(0.05, 0.10, 0.9, both.size, 5000, 300, seed=3) >= 0.75


def test_variance_is_checked_and_the_notes_state_the_assumption():
    with pytest.raises(ParameterError, match="variance"):
        plan.detectable_difference(0.6, 0.9, n_human=100, variance="unequal")
    with pytest.raises(ParameterError, match="variance"):
        plan.required_sample_size(0.05, alpha=0.6, rho=0.9, variance="own")
    assert EQUAL_VARIANCE_NOTE in POWER_NOTE and "variance='both'" in POWER_NOTE
    res = plan.required_sample_size(0.05, alpha=0.6, rho=0.9, power=0.8)
    assert any(EQUAL_VARIANCE_NOTE in n for n in res.summary().notes)
    # an uninformed plan stays at the papers' 1 whatever the variance
    assert plan.detectable_difference(0.6, 0.9, variance="both") == 1.0


def test_cli_plan_takes_variance(capsys):
    from binaryeval.cli import main

    assert main(["plan", "difference", "--alpha", "0.05", "--rho", "0.9", "--n-human", "300",
                 "--n-metric", "5000", "--power", "0.8", "--variance", "both",
                 "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "variance" in out.splitlines()[0] and "0.04958" in out


RARE = dict(power=0.8)   # alpha = 0.05, rho = 0.9: where the two assumptions part


def test_table_with_both_variances_is_detectable_difference_cell_by_cell():
    # every cell of the table is the one-design answer with each system's own variance, to the
    # last digit (the table used to ignore the assumption: it had no variance=)
    sizes = dict(n_human=[0, 100, 300], n_metric=[0, 5000])
    table = plan.detectable_difference_table(0.05, 0.9, **sizes, **RARE, variance="both")
    equal = plan.detectable_difference_table(0.05, 0.9, **sizes, **RARE)
    for h in sizes["n_human"]:
        for m in sizes["n_metric"]:
            one = plan.detectable_difference(0.05, 0.9, n_human=h, n_metric=m, **RARE,
                                             variance="both")
            assert table.loc[h, m] == one
            if h:   # near alpha = 0 the better system's wider posterior asks for more
                assert table.loc[h, m] > equal.loc[h, m]
    assert table.loc[300, 5000] == pytest.approx(0.04959, abs=5e-5)
    assert equal.loc[300, 5000] == pytest.approx(0.04362, abs=5e-5)
    # the assumption is stated: settings, the frame's attrs and the summary's notes
    assert table.settings["variance"] == "both" and table.to_frame().attrs["variance"] == "both"
    notes = table.summary().notes
    assert any(BOTH_VARIANCE_NOTE in n for n in notes)
    assert not any(EQUAL_VARIANCE_NOTE in n for n in notes)
    assert "variance" not in equal.settings
    assert any(EQUAL_VARIANCE_NOTE in n for n in equal.summary().notes)


def test_table_with_both_variances_draws_each_cell_from_its_own_seed():
    # simulated experiments: each cell is detectable_difference with that cell's child seed
    sizes = dict(n_human=[100, 300], n_metric=[1000])
    table = plan.detectable_difference_table(0.05, 0.9, **sizes, simulate="sample",
                                             n_resamples=4, seed=7, **RARE, variance="both")
    children = np.random.SeedSequence(7).spawn(2)
    for h, child in zip(sizes["n_human"], children, strict=True):
        one = plan.detectable_difference(0.05, 0.9, n_human=h, n_metric=1000,
                                         simulate="sample", n_resamples=4, seed=child, **RARE,
                                         variance="both")
        assert table.loc[h, 1000] == one


def test_allocation_with_both_variances_is_the_brute_force_minimum():
    # Guards: with a budget of 1000 (human 1, metric 0.1) at alpha = 0.05, power 0.8, the papers'
    # equal variances put the best split at 938 human + 620 metric ratings, eps = 0.0270; each
    # system with its own variance finds 875 + 1250, eps = 0.0300 (n_points=5)
    args = (1000, 1.0, 0.1)
    kw = dict(alpha=0.05, rho=0.9, n_points=5, **RARE)
    equal = plan.optimal_allocation(*args, **kw)
    both = plan.optimal_allocation(*args, **kw, variance="both")
    assert both.epsilon > equal.epsilon
    assert (equal.n_human, equal.n_metric) == (938, 620)
    assert (both.n_human, both.n_metric) == (875, 1250)
    assert (equal.epsilon, both.epsilon) == (pytest.approx(0.0270, abs=5e-5),
                                             pytest.approx(0.0300, abs=5e-5))
    # every split: the one-design answer with both variances, larger than the equal one
    brute = {(int(r.n_human), int(r.n_metric)): plan.detectable_difference(
        0.05, 0.9, n_human=int(r.n_human), n_metric=int(r.n_metric), **RARE, variance="both")
        for r in both.frontier.itertuples()}
    assert both.frontier["epsilon"].tolist() == list(brute.values())
    best = min(brute, key=brute.get)
    assert (both.n_human, both.n_metric) == best and both.epsilon == brute[best]
    shared = equal.frontier.merge(both.frontier, on=["n_human", "n_metric"],
                                  suffixes=("_equal", "_both"))
    informed = shared[shared["n_human"] + shared["n_metric"] > 0]
    assert len(informed) >= 4
    assert (informed["epsilon_both"] > informed["epsilon_equal"]).all()
    # the assumption is stated
    assert both.settings["variance"] == "both" and both.to_frame().attrs["variance"] == "both"
    assert any(BOTH_VARIANCE_NOTE in n for n in both.summary().notes)
    assert any(EQUAL_VARIANCE_NOTE in n for n in equal.summary().notes)


def test_table_and_allocation_refuse_a_bad_variance():
    with pytest.raises(ParameterError, match="variance"):
        plan.detectable_difference_table(0.6, 0.9, n_human=[100], n_metric=[0],
                                         variance="unequal")
    with pytest.raises(ParameterError, match="variance"):
        plan.optimal_allocation(200, 1.0, 0.1, alpha=0.6, rho=0.9, n_points=3, variance="own")


def test_sample_size_with_both_variances_says_so_in_its_notes():
    res = plan.required_sample_size(0.05, alpha=0.05, rho=0.9, power=0.8, variance="both")
    notes = res.summary().notes
    assert any(BOTH_VARIANCE_NOTE in n for n in notes)
    assert not any(EQUAL_VARIANCE_NOTE in n for n in notes)


def test_cli_plan_table_takes_variance(capsys):
    from binaryeval.cli import main

    flags = ["plan", "table", "--alpha", "0.05", "--rho", "0.9", "--n-human", "100,300",
             "--n-metric", "0,5000", "--power", "0.8", "--variance", "both"]
    assert main([*flags, "--format", "csv"]) == 0
    out = capsys.readouterr().out
    table = plan.detectable_difference_table(0.05, 0.9, n_human=[100, 300], n_metric=[0, 5000],
                                             **RARE, variance="both")
    import io

    import pandas as pd

    printed = pd.read_csv(io.StringIO(out))
    assert printed["epsilon"].tolist() == pytest.approx(table.to_frame()["epsilon"].tolist(),
                                                        rel=1e-12)
    assert main(flags) == 0
    assert "(--variance both)" in capsys.readouterr().out


# -- few paired ratings ---------------------------------------------------------------------------
def _told_apart(alpha, eps, rho, n_paired, n_metric, reps, seed):
    """Share of seeded comparisons of systems at ``alpha +- eps/2`` the plan's z-test separates.

    The human-rated items are the paired ones (the plan's default ``n_human = n_paired``); the
    rates are estimated from them; the posterior is the one :func:`binaryeval.fit_counts` reports.
    """
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        p1 = alpha_posterior(**_draw(rng, alpha + eps / 2, rho, n_paired, n_metric))
        p2 = alpha_posterior(**_draw(rng, alpha - eps / 2, rho, n_paired, n_metric))
        hits += abs(p1.mean() - p2.mean()) > Z * math.sqrt(p1.var() + p2.var())
    return hits / reps


#: designs with 20-30 paired ratings (alpha, rho = eta, n_paired, n_metric)
FEW_PAIRED = ((0.6, 0.8, 20, 1000), (0.6, 0.7, 20, 5000), (0.2, 0.8, 30, 5000))


def test_power_with_few_paired_ratings_is_the_promised_one_on_average():
    # studies/binary_plan_power.py (2,000 comparisons a design): with 20-30 paired ratings the
    # default plan's eps (expected counts) is found 0.77-0.83 of the time at power 0.8 (mean
    # 0.795) and 0.46-0.51 at 0.5 (mean 0.486).  Here 600 seeded comparisons a design, pooled
    # over three designs (binomial SE 0.009 at 0.8, 0.012 at 0.5; these three designs were
    # found 0.79 and 0.47 in the study): the pooled share must lie within 3 SEs plus 0.01 (the
    # study's mean shortfall) of the promise.  An eps 10 % too small gives 0.71 and 0.40 here
    # and fails.
    reps = 600
    for power, se in ((0.8, math.sqrt(0.8 * 0.2 / (3 * reps))),
                      (0.5, math.sqrt(0.25 / (3 * reps)))):
        found = []
        for i, (alpha, rho, n, m) in enumerate(FEW_PAIRED):
            eps = plan.detectable_difference(alpha, rho, n_human=n, n_metric=m, power=power)
            found.append(_told_apart(alpha, eps, rho, n, m, reps, seed=[31, i, int(10 * power)]))
        assert np.mean(found) == pytest.approx(power, abs=3 * se + 0.01), (power, found)
        # single designs scatter more than the binomial SE (0.016 at 600), up to 0.04 each way
        assert all(abs(f - power) < 0.07 for f in found), (power, found)


def test_few_paired_ratings_keep_the_false_positive_rate():
    # at eps = 0 the test separates two equal systems at most sig_level of the time; with 20
    # paired ratings it is conservative (0.030-0.052 over four designs, 2,000 comparisons each)
    reps = 1000   # binomial SE at 0.05: 0.007
    for i, (alpha, rho, n, m) in enumerate(FEW_PAIRED[:2]):
        assert _told_apart(alpha, 0.0, rho, n, m, reps, seed=[32, i]) < 0.05 + 3 * 0.007


def test_sampled_experiments_do_not_repair_few_paired_ratings():
    # simulate="sample" averages the posterior sd over drawn experiments: with 20 paired
    # ratings the drawn shares lie off alpha, where the posterior is narrower, so its eps is
    # 1-3 % smaller than the expected counts' and its realised power lower (0.785 against 0.794
    # at 0.8, 0.471 against 0.487 at 0.5 over 20-30 paired ratings,
    # studies/binary_plan_power.py); the note says so
    for alpha, rho, n, m in FEW_PAIRED[:2]:   # 20 paired ratings
        expected = plan.detectable_difference(alpha, rho, n_human=n, n_metric=m, power=0.8)
        sampled = plan.detectable_difference(alpha, rho, n_human=n, n_metric=m, power=0.8,
                                             simulate="sample", n_resamples=200, seed=5)
        assert sampled < expected
    for power in (0.5, 0.8):
        note = power_note(power)
        assert "paired ratings" in note and "0.77-0.83" in note and "0.46 and 0.77" in note
    assert POWER_NOTE == power_note(0.5)
