"""Tests of binaryeval.plan: detectable differences, tables, simulation, sample sizes, budgets."""

import json
import math

import numpy as np
import pytest
from conftest import REFERENCE
from scipy import stats

import binaryeval as be
from binaryeval import plan
from binaryeval.errors import InputTypeError, ParameterError
from binaryeval.plan import (
    detectable_difference,
    detectable_difference_table,
    expected_counts,
    optimal_allocation,
    required_sample_size,
    simulate,
)

# Paper (von Däniken et al. 2022) Table 1: rho = eta = 0.70 known, alpha = 0.6
# (transcribed in tests/reference/paper_tables.md).
T1_HUMAN = [0, 10, 100, 1000, 2500, 5000]
T1_METRIC = [0, 1000, 5000, 10000, 50000]
TABLE_1 = [
    [1.000, 0.109, 0.049, 0.035, 0.015],
    [0.379, 0.106, 0.049, 0.034, 0.015],
    [0.134, 0.085, 0.046, 0.033, 0.015],
    [0.043, 0.040, 0.032, 0.027, 0.015],
    [0.027, 0.026, 0.024, 0.020, 0.013],
    [0.019, 0.019, 0.018, 0.017, 0.012],
]
# Paper Table 12: rho = eta = 0.90 estimated from the paired human ratings, alpha = 0.6.
T12_HUMAN = [0, 100, 250, 500, 1000, 2500, 5000, 10000]
T12_METRIC = [0, 1000, 2500, 5000, 10000, 50000, 100000]
TABLE_12 = [
    [1.000, 0.739, 0.738, 0.738, 0.738, 0.738, 0.738],
    [0.134, 0.091, 0.088, 0.087, 0.086, 0.086, 0.086],
    [0.085, 0.061, 0.057, 0.055, 0.054, 0.053, 0.053],
    [0.061, 0.046, 0.042, 0.040, 0.039, 0.038, 0.037],
    [0.043, 0.036, 0.032, 0.030, 0.028, 0.027, 0.026],
    [0.027, 0.025, 0.022, 0.021, 0.019, 0.017, 0.017],
    [0.019, 0.018, 0.017, 0.016, 0.015, 0.013, 0.012],
    [0.014, 0.013, 0.013, 0.012, 0.011, 0.009, 0.009],
]


def _normal_eps(n_human, n_metric, alpha=0.6, rho=0.7, eta=0.7):
    """Known rates, normal approximation: precision of alpha from humans plus metric."""
    p = alpha * (rho + eta - 1) + 1 - eta
    prec = n_human / (alpha * (1 - alpha)) + n_metric * (rho + eta - 1) ** 2 / (p * (1 - p))
    return math.sqrt(2 / prec) * stats.norm.ppf(0.975)


@pytest.fixture(scope="module")
def table_1():
    return detectable_difference_table(0.6, 0.7, n_human=T1_HUMAN, n_metric=T1_METRIC,
                                       rates={"rho": 0.7, "eta": 0.7})


def test_table_1_cell_by_cell(table_1):
    # Expected: paper Table 1 (3 decimals), exact engine, expected counts rounded half up.
    got = table_1.table.round(3)
    assert list(got.index) == T1_HUMAN and list(got.columns) == T1_METRIC
    for i, h in enumerate(T1_HUMAN):
        for j, m in enumerate(T1_METRIC):
            if (h, m) == (2500, 10000):
                continue
            assert got.loc[h, m] == pytest.approx(TABLE_1[i][j], abs=1e-9), (h, m)


def test_table_1_cell_that_differs_from_the_paper(table_1):
    # The paper prints 0.020 for n_human = 2500, n_metric = 10000.  The exact posterior gives
    # 0.02134, the midpoint grid of the paper the same, and the normal approximation
    # sqrt(2 / (n_h / (a(1-a)) + n_m (rho+eta-1)^2 / (p(1-p)))) z = 0.02135; the neighbouring cells
    # (0.024 at 5000 metric, 0.017 at 5000 human) agree with this computation, so the printed
    # value is not reproducible by the paper's own procedure (no rounding convention changes it).
    eps = table_1.loc[2500, 10000]
    assert round(eps, 3) == 0.021
    assert eps == pytest.approx(_normal_eps(2500, 10000), rel=2e-3)
    for rounding in ("half_up", "half_even"):
        grid = detectable_difference(0.6, 0.7, n_human=2500, n_metric=10000, rates={"rho": 0.7, "eta": 0.7},
                                     rounding=rounding, method="grid")
        assert round(grid, 3) == 0.021


def test_table_1_with_the_papers_grid():
    # Expected: paper Table 1 again, with the paper's grid (N_alpha = 2000; known rates = one point).
    t = detectable_difference_table(0.6, 0.7, n_human=[10, 1000, 5000], n_metric=[1000, 50000],
                                    rates={"rho": 0.7, "eta": 0.7}, method="grid")
    np.testing.assert_allclose(t.table.round(3).to_numpy(),
                               [[0.106, 0.015], [0.040, 0.015], [0.019, 0.012]], atol=1e-9)


def test_table_12_cell_by_cell_rows_with_human_ratings():
    # Expected: paper Table 12 rows n_human >= 100 (3 decimals), exact engine, half-up rounding.
    t = detectable_difference_table(0.6, 0.9, n_human=T12_HUMAN[1:], n_metric=T12_METRIC)
    np.testing.assert_allclose(t.table.round(3).to_numpy(), TABLE_12[1:], atol=1e-9)


def test_table_12_row_without_human_ratings():
    # Expected: paper Table 12 row n_human = 0 (no paired ratings: rho, eta ~ Beta(1, 1)), exact
    # engine for every cell; the paper shows 1.000 where there are no ratings at all.
    exact = detectable_difference_table(0.6, 0.9, n_human=[0], n_metric=T12_METRIC)
    np.testing.assert_allclose(exact.table.round(3).to_numpy()[0], TABLE_12[0], atol=1e-9)
    # the midpoint grid (500 x 400 x 400) agrees on a large cell
    eps = detectable_difference(0.6, 0.9, n_human=0, n_metric=100000, method="grid",
                                grid=(500, 400, 400))
    assert round(eps, 3) == 0.738


@pytest.fixture(scope="module")
def authors_eps():
    return json.loads((REFERENCE / "bayes_authors_nuts_epsilon.json").read_text())["results"]


def _authors_kwargs(r):
    # The authors' n_rho_eta is a separate paired set with share of positives alpha; when it is
    # larger than n_human it needs an explicit psi here, when smaller it is a subset of the human
    # set (same counts, and in both conventions only the human ratings inform alpha).
    kw = dict(n_human=r["n_human"], n_metric=r["n_metric"], n_paired=r["n_rho_eta"],
              rounding="half_even")
    if r["n_rho_eta"] > r["n_human"]:
        kw["psi"] = r["alpha"]
    return kw


def test_authors_counts_reproduced(authors_eps):
    # Expected: the counts the authors' estimate_epsilon built (half-to-even rounding), exactly.
    for r in authors_eps:
        if r["counts"] is None:
            continue
        c = r["counts"]
        want = dict(human_pos=c["human"][0], human_total=c["human"][1], metric_pos=c["metric"][0],
                    metric_total=c["metric"][1], tp=c["rho"][0], fn=c["rho"][1] - c["rho"][0],
                    tn=c["eta"][0], fp=c["eta"][1] - c["eta"][0])
        assert expected_counts(r["alpha"], r["rho"], r["eta"], **_authors_kwargs(r)) == want


def test_authors_epsilon_within_monte_carlo_error(authors_eps):
    # Expected: estimate_epsilon values (NUTS); eps is proportional to the posterior sd, whose
    # Monte-Carlo error is <= 2% relative (reference README).  Measured: within 0.5%.
    for r in authors_eps:
        eps = detectable_difference(r["alpha"], r["rho"], r["eta"], **_authors_kwargs(r))
        if r["counts"] is None:
            assert eps == r["epsilon"] == 1.0
        else:
            assert eps == pytest.approx(r["epsilon"], rel=0.02), r


def test_rounding_conventions_differ_where_the_paper_and_the_tool_differ():
    # 0.75 * 350 = 262.5: half up gives 263 true positives (paper), half to even 262 (the tool).
    up = expected_counts(0.7, 0.75, 0.85, n_human=500, n_metric=10000, n_paired=500)
    even = expected_counts(0.7, 0.75, 0.85, n_human=500, n_metric=10000, n_paired=500,
                           rounding="half_even")
    assert (up["tp"], even["tp"]) == (263, 262)
    assert up["human_pos"] == even["human_pos"] == 350


def test_default_paired_set_is_the_human_set():
    # With n_paired = n_human the paired positives are the human positives (psi = alpha).
    c = expected_counts(0.6, 0.9, n_human=1000, n_metric=5000)
    assert c == dict(human_pos=600, human_total=1000, metric_pos=2900, metric_total=5000,
                     tp=540, fn=60, tn=360, fp=40)
    assert detectable_difference(0.6, 0.9, None, 1000, 5000) == detectable_difference(
        0.6, 0.9, 0.9, 1000, 5000, n_paired=1000)


def test_no_ratings_and_human_only_closed_form():
    # 1.0 by convention without ratings; human only: sqrt(2 var Beta(61, 41)) z_{0.975}.
    assert detectable_difference(0.6, 0.9) == 1.0
    want = math.sqrt(2 * stats.beta(61, 41).var()) * stats.norm.ppf(0.975)
    assert detectable_difference(0.6, 0.9, n_human=100) == pytest.approx(want, rel=1e-10)
    want90 = math.sqrt(2 * stats.beta(61, 41).var()) * stats.norm.ppf(0.95)
    assert detectable_difference(0.6, 0.9, n_human=100, sig_level=0.1) == pytest.approx(want90, rel=1e-10)


def test_sample_mode_human_only_bias_is_the_closed_form():
    # Human ratings only: the posterior mean (h + 1) / (n + 2) has bias (1 - 2 alpha) / (n + 2)
    # exactly; the simulated mean bias must lie within 4 standard errors of it.
    res = simulate(0.8, 0.9, n_human=[20, 80], n_metric=0, n_resamples=400, seed=11)
    df = res.to_frame().set_index("n_human")
    for n in (20, 80):
        assert abs(df.loc[n, "bias"] - (1 - 1.6) / (n + 2)) < 4 * df.loc[n, "bias_std_error"]
    assert len(res.draws) == 800
    assert "Simulated experiments" in str(res)


def test_sample_mode_is_reproducible_and_independent_of_n_jobs():
    # Invariant: child seeds per cell, so n_jobs and repeated calls give identical tables.
    kw = dict(n_human=[50, 100], n_metric=[0, 500], simulate="sample", n_resamples=5, seed=3)
    a = detectable_difference_table(0.6, 0.8, **kw, n_jobs=1).table
    b = detectable_difference_table(0.6, 0.8, **kw, n_jobs=2).table
    c = detectable_difference_table(0.6, 0.8, **kw).table
    np.testing.assert_array_equal(a.to_numpy(), b.to_numpy())
    np.testing.assert_array_equal(a.to_numpy(), c.to_numpy())
    d = detectable_difference_table(0.6, 0.8, **{**kw, "seed": 4}).table
    assert not np.array_equal(a.to_numpy(), d.to_numpy())
    # A single sampled cell equals its expected-counts value only approximately.
    single = detectable_difference(0.6, 0.8, n_human=100, simulate="sample", n_resamples=30,
                                   seed=1)
    assert single == pytest.approx(detectable_difference(0.6, 0.8, n_human=100), rel=0.1)


def test_table_on_a_dask_cluster():
    # The same call on Dask through joblib's backend gives the same numbers, and the cluster did
    # the work (its task stream recorded tasks).
    distributed = pytest.importorskip("distributed")
    from joblib import parallel_config

    kw = dict(n_human=[50, 100], n_metric=[0, 300], simulate="sample", n_resamples=3, seed=5)
    local = detectable_difference_table(0.6, 0.8, **kw).table
    plan.cells.cache_clear()   # so that the cluster computes the posteriors again
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        with distributed.get_task_stream(client) as ts, parallel_config(backend="dask"):
            remote = detectable_difference_table(0.6, 0.8, **kw).table
    np.testing.assert_array_equal(local.to_numpy(), remote.to_numpy())
    assert len(ts.data) > 0


def test_table_result_protocol(table_1):
    df = table_1.table
    assert df.index.name == "n_human" and df.columns.name == "n_metric"
    assert df.attrs["rates"] == {"rho": 0.7, "eta": 0.7} and df.attrs["sig_level"] == 0.05
    tidy = table_1.to_frame()
    assert len(tidy) == len(T1_HUMAN) * len(T1_METRIC)
    assert set(["n_human", "n_metric", "epsilon"]) <= set(tidy.columns)
    assert "Minimal detectable difference" in str(table_1)
    ax = table_1.plot()
    assert len(ax.get_lines()) == len(T1_HUMAN)
    ax2 = table_1.plot(x="n_human")
    assert len(ax2.get_lines()) == len(T1_METRIC)


def test_required_sample_size_is_the_smallest():
    # Invariant: eps(size) <= target < eps(size - 1); with known rho = eta = 0.7 and no metric the
    # paper says >= 5000 human ratings are needed for eps = 0.02 (Table 1: 0.019 at 5000).
    res = required_sample_size(0.02, vary="n_human", alpha=0.6, rates={"rho": 0.7, "eta": 0.7})
    assert res.attainable and 2500 < res.size <= 5000
    assert detectable_difference(0.6, 0.7, n_human=res.size, rates={"rho": 0.7, "eta": 0.7}) <= 0.02
    assert detectable_difference(0.6, n_human=res.size - 1, rates={"rho": 0.7, "eta": 0.7}) > 0.02
    assert int(res) == res.size
    # The paper's text: 2500 human ratings plus 10000 metric ratings reach about 0.02.
    mix = required_sample_size(0.022, vary="n_metric", alpha=0.6, rho=0.7, n_human=2500,
                               rates={"rho": 0.7, "eta": 0.7})
    assert mix.attainable and 5000 < mix.size <= 10000


def test_required_sample_size_says_what_limits_it():
    # 100 paired human ratings (rho = eta = 0.9 estimated): Table 12 shows eps -> 0.086 however many
    # metric ratings; with the rates known it would reach 0.05, so rho/eta uncertainty limits it.
    res = required_sample_size(0.05, vary="n_metric", alpha=0.6, rho=0.9, n_human=100,
                               max_size=50_000)
    assert not res.attainable and res.size is None
    assert res.limited_by == "rho/eta uncertainty"
    assert res.achieved == pytest.approx(0.0858, abs=5e-4)   # Table 12: 0.086 at 50000
    assert "paired" in res.message
    with pytest.raises(ParameterError):
        int(res)
    # The default paired set is reported as in the tables and allocations (not as None).
    assert res.to_frame().attrs["n_paired"] == "n_human"
    # More paired ratings cannot beat 1000 metric ratings with known rates (eps -> 0.0534).
    res2 = required_sample_size(0.05, vary="n_paired", alpha=0.6, rho=0.9, n_metric=1000, psi=0.6,
                                max_size=20_000)
    assert not res2.attainable and res2.limited_by == "human and metric ratings"
    assert res2.limit == pytest.approx(detectable_difference(0.6, 0.9, n_metric=1000, rates={"rho": 0.9, "eta": 0.9}))
    assert "Required sample size" in str(res2)


def test_optimal_allocation_known_rates_is_a_corner():
    # With known rates the precision is linear in the split (normal approximation), so the best
    # split is a corner: per unit cost, metric ratings carry 0.644 / 0.01 > 4.17 / 1 here.
    res = optimal_allocation(2000, 1.0, 0.01, alpha=0.6, rates={"rho": 0.7, "eta": 0.7}, n_points=11)
    assert res.n_human == 0 and res.n_metric == 200_000
    assert res.epsilon == pytest.approx(res.frontier["epsilon"].min())
    # Expensive metric ratings: all human.
    res2 = optimal_allocation(2000, 1.0, 0.5, alpha=0.6, rho=0.7, rates={"rho": 0.7, "eta": 0.7}, n_points=11)
    assert res2.n_human == 2000 and res2.n_metric == 0


def test_optimal_allocation_estimated_rates_is_interior():
    # Estimated rates: without human (= paired) ratings the metric is uninformative and with only
    # human ratings there are few; the best split lies strictly inside and beats both ends.
    res = optimal_allocation(200, 1.0, 0.1, alpha=0.6, rho=0.9, n_points=9)
    f = res.frontier
    assert 0 < res.n_human < 200
    assert res.epsilon < f["epsilon"].iloc[0] and res.epsilon < f["epsilon"].iloc[-1]
    assert (f["cost"] <= 200 + 1e-9).all()
    assert res.cost <= 200
    ax = res.plot()
    assert ax.get_xlabel().startswith("human ratings")
    assert "Optimal allocation" in str(res)


def test_grid_and_exact_engines_agree():
    # The two engines of _posterior: grid error at 1000 x 200 x 200 is well below 1%.
    kw = dict(n_human=500, n_metric=5000)
    exact = detectable_difference(0.6, 0.8, **kw)
    grid = detectable_difference(0.6, 0.8, **kw, method="grid", grid=(1000, 200, 200))
    assert grid == pytest.approx(exact, rel=5e-3)


@pytest.mark.parametrize("kwargs, error, text", [
    (dict(alpha=1.2), ParameterError, "alpha"),
    (dict(rho=-0.1), ParameterError, "rho"),
    (dict(eta=1.01), ParameterError, "eta"),
    (dict(rho=0.5, eta=0.5), ParameterError, "unidentified"),
    (dict(rho=0.4, eta=0.55), ParameterError, "rho \\+ eta"),
    (dict(n_human=-5), ParameterError, "n_human"),
    (dict(n_metric=-1), ParameterError, "n_metric"),
    (dict(n_human=10.5), ParameterError, "n_human"),
    (dict(n_human="10"), InputTypeError, "n_human"),
    (dict(sig_level=0.0), ParameterError, "sig_level"),
    (dict(sig_level=1.0), ParameterError, "sig_level"),
    (dict(n_human=10, n_paired=20), ParameterError, "psi"),
    (dict(psi=1.5, n_human=10), ParameterError, "psi"),
    (dict(rates="unknown"), ParameterError, "rates"),
    (dict(simulate="draw"), ParameterError, "simulate"),
    (dict(rounding="up"), ParameterError, "rounding"),
    (dict(method="mcmc"), ParameterError, "method"),
    (dict(simulate="sample", n_resamples=0), ParameterError, "n_resamples"),
])
def test_impossible_inputs(kwargs, error, text):
    args = {"alpha": 0.6, "rho": 0.8, **kwargs}
    with pytest.raises(error, match=text):
        detectable_difference(**args)


def test_impossible_inputs_elsewhere():
    with pytest.raises(ParameterError, match="epsilon"):
        required_sample_size(0.0, alpha=0.6, rho=0.8)
    with pytest.raises(ParameterError, match="vary"):
        required_sample_size(0.05, vary="n_items", alpha=0.6, rho=0.8)
    with pytest.raises(ParameterError, match="budget"):
        optimal_allocation(-1, 1, 1, alpha=0.6, rho=0.8)
    with pytest.raises(ParameterError, match="cost_metric"):
        optimal_allocation(100, 1, 0, alpha=0.6, rho=0.8)
    with pytest.raises(ParameterError, match="n_metric"):
        detectable_difference_table(0.6, 0.8, n_metric=[0, -3])
    assert set(plan.__all__) >= {"detectable_difference", "detectable_difference_table",
                                 "required_sample_size", "optimal_allocation", "simulate"}


# -- the model is required; the vocabulary --------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda: required_sample_size(0.03),
    lambda: required_sample_size(0.03, alpha=0.6),
    lambda: detectable_difference(n_human=100),
    lambda: detectable_difference_table(0.6),
    lambda: simulate(n_human=100, n_resamples=2),
    lambda: optimal_allocation(100, 1.0, 0.1),
    lambda: expected_counts(rho=0.8, n_human=10),
], ids=["size", "size-no-rho", "difference", "table-no-rho", "simulate", "allocation", "counts"])
def test_the_model_has_no_defaults(call):
    # Without alpha and rho a plan would answer for a made-up system and metric: the error names
    # what is missing and where the values come from.
    with pytest.raises(InputTypeError, match="needs the model's") as info:
        call()
    message = str(info.value)
    assert "alpha=" in message and "rho=" in message and "fit" in message


def test_required_sample_size_takes_the_model_by_name():
    # vary stays the second positional argument; the model is named.
    by_name = required_sample_size(0.05, "n_human", alpha=0.6, rho=0.7, rates={"rho": 0.7, "eta": 0.7})
    assert by_name.size == required_sample_size(0.05, alpha=0.6, rates={"rho": 0.7, "eta": 0.7}).size
    with pytest.raises(TypeError):
        required_sample_size(0.05, "n_human", 0.6, 0.7)


@pytest.mark.parametrize("func, kwargs", [
    (detectable_difference, {}),
    (detectable_difference_table, dict(n_human=[10], n_metric=[0])),
    (simulate, dict(n_human=10, n_resamples=2)),
])
def test_old_spellings_raise_naming_the_new_ones(func, kwargs):
    with pytest.raises(TypeError, match="'sig_level'; call .*sig_level=0.1"):
        func(0.6, 0.8, gamma=0.1, **kwargs)
    with pytest.raises(TypeError, match="'n_resamples'"):
        func(0.6, 0.8, reps=10, **kwargs)
    with pytest.raises(ParameterError, match="rates='estimated' is now spelled 'estimate'"):
        func(0.6, 0.8, rates="estimated", **kwargs)


def test_old_spellings_elsewhere():
    with pytest.raises(TypeError, match="sig_level"):
        required_sample_size(0.05, alpha=0.6, rho=0.8, gamma=0.1)
    with pytest.raises(TypeError, match="sig_level"):
        optimal_allocation(100, 1.0, 0.1, 0.6, 0.8, gamma=0.1)
    with pytest.raises(ParameterError, match="'estimate'"):
        required_sample_size(0.05, alpha=0.6, rho=0.8, rates="estimated")


def test_results_speak_the_vocabulary():
    kw = dict(n_human=[20], n_metric=[0, 100], n_resamples=3, seed=2)
    sim = simulate(0.6, 0.8, **kw)
    table = detectable_difference_table(0.6, 0.8, simulate="sample", **kw)
    for frame in (sim.to_frame(), table.to_frame(), table.table,
                  required_sample_size(0.2, alpha=0.6, rho=0.8).to_frame(),
                  optimal_allocation(50, 1.0, 0.1, 0.6, 0.8, n_points=3).to_frame()):
        assert "sig_level" in frame.attrs and "gamma" not in frame.attrs
        assert frame.attrs["rates"] == "estimate"
        assert "reps" not in frame.columns and "reps" not in frame.attrs
    assert sim.to_frame()["n_resamples"].tolist() == [3, 3]
    assert sim.settings["n_resamples"] == 3 and table.settings["n_resamples"] == 3
    assert list(sim.draws.columns) == ["n_human", "n_metric", "resample", "estimate", "std_error"]


# -- the cells: caching and deduplication change no number --------------------------------------
@pytest.mark.parametrize("rates", ["estimate", "known"])
def test_cells_equal_the_engine_cell_by_cell(rates):
    # Each cell equals sqrt(2) z sd of alpha_posterior on its expected counts, computed directly
    # (no plan code in between), to the last bit: the cache keys, which drop the paired counts
    # for known rates and everything but the human counts without metric ratings, lose nothing.
    from binaryeval.binary.engine import alpha_posterior

    plan.cells.cache_clear()
    hs, ms = [0, 40, 300], [0, 700]
    value = {"rho": 0.85, "eta": 0.75} if rates == "known" else rates
    t = detectable_difference_table(0.6, 0.85, 0.75, n_human=hs, n_metric=ms, rates=value)
    z = stats.norm.ppf(0.975)
    for h in hs:
        for m in ms:
            if h == m == 0:
                assert t.loc[h, m] == 1.0
                continue
            c = expected_counts(0.6, 0.85, 0.75, n_human=h, n_metric=m)
            known = dict(rho=0.85, eta=0.75) if rates == "known" else {}
            post = alpha_posterior(**c, **known)
            var = post.var() if callable(post.var) else post.var
            assert t.loc[h, m] == math.sqrt(2.0) * math.sqrt(var) * z, (h, m)


def test_identical_posteriors_are_computed_once(monkeypatch):
    # Known rates: the paired counts drop out; no metric ratings: only the human counts matter.
    # 3 x 2 cells with n_paired varying per row share 4 distinct posteriors; a second call needs none.
    calls = []
    real = plan.cells.posterior_moments

    def counting(key):
        calls.append(key)
        return real(key)

    monkeypatch.setattr(plan.cells, "posterior_moments", counting)
    plan.cells.cache_clear()
    kw = dict(n_human=[100, 200], n_metric=[0, 1000], rates={"rho": 0.8, "eta": 0.8})
    first = detectable_difference_table(0.6, 0.8, **kw)
    assert len(calls) == 4
    again = detectable_difference_table(0.6, 0.8, **kw, n_paired=50)
    assert len(calls) == 4
    np.testing.assert_array_equal(first.table.to_numpy(), again.table.to_numpy())
    # simulated human-only experiments repeat their counts: one posterior per distinct count
    simulate(0.6, 0.8, n_human=10, n_metric=0, n_resamples=200, seed=0)
    assert len(calls) - 4 <= 11


def test_a_seed_of_none_is_reported_and_reproduces():
    res = simulate(0.6, 0.8, n_human=[30], n_metric=[200], n_resamples=4)
    seed = res.settings["seed"]
    assert isinstance(seed, int)
    again = simulate(0.6, 0.8, n_human=[30], n_metric=[200], n_resamples=4, seed=seed)
    np.testing.assert_array_equal(res.draws["std_error"], again.draws["std_error"])
    gen = simulate(0.6, 0.8, n_human=[30], n_metric=[200], n_resamples=4,
                   seed=np.random.default_rng(5))
    assert len(gen.draws) == 4


def test_repeated_sizes_count_once():
    t = detectable_difference_table(0.6, 0.8, n_human=[100, 100], n_metric=[0, 0, 500])
    assert t.table.shape == (1, 2) and len(t.to_frame()) == 2


def test_plot_kinds():
    import matplotlib.pyplot as plt

    t = detectable_difference_table(0.6, 0.8, n_human=[50, 100], n_metric=[0, 1000, 5000])
    ax = t.plot(kind="heatmap")
    assert [x.get_text() for x in ax.get_xticklabels()] == ["0", "1000", "5000"]
    assert len(ax.texts) == 6
    with pytest.raises(ParameterError, match="kind"):
        t.plot(kind="bars")
    sim = simulate(0.6, 0.8, n_human=[50, 100], n_metric=[0], n_resamples=3, seed=1)
    assert sim.plot(kind="sd").get_ylabel() == "mean posterior sd"
    assert sim.plot().get_ylabel() == "bias of the posterior mean"
    plt.close("all")


# -- rates: the values fit() takes ------------------------------------------------------------------
def test_known_rates_are_values_as_in_fit():
    # {'rho': .., 'eta': ..} is what fit() takes; in a plan rho/eta may then be left out, and when
    # given they must agree.  The same cell computed three ways is one number.
    known = {"rho": 0.7, "eta": 0.8}
    a = detectable_difference(0.6, n_human=300, n_metric=2000, rates=known)
    b = detectable_difference(0.6, 0.7, 0.8, n_human=300, n_metric=2000, rates=known)
    from binaryeval.binary.engine import alpha_posterior

    c = expected_counts(0.6, 0.7, 0.8, n_human=300, n_metric=2000)
    post = alpha_posterior(**c, rho=0.7, eta=0.8)
    assert a == b == math.sqrt(2.0) * post.std() * stats.norm.ppf(0.975)
    with pytest.raises(ParameterError, match="differ"):
        detectable_difference(0.6, 0.75, n_human=300, rates=known)
    with pytest.raises(ParameterError, match="give both"):
        detectable_difference(0.6, 0.7, n_human=300, rates={"rho": 0.7})
    with pytest.raises(ParameterError, match=r"rates='known'.*rates=\{'rho': 0.7, 'eta': 0.7\}"):
        detectable_difference(0.6, 0.7, n_human=300, rates="known")
    table = detectable_difference_table(0.6, n_human=[100], n_metric=[0], rates=known)
    assert table.settings["rates"] == known and table.to_frame().attrs["rates"] == known


def test_pooled_rates_plan_a_shared_paired_set():
    # A pooled paired set is shared by the systems: it may exceed one system's human sample, and
    # its share of positives defaults to alpha.  Same counts as rates="estimate" with psi=alpha
    # (the separate calibration set); with the default n_paired, the same as "estimate".
    pooled = detectable_difference(0.6, 0.8, n_human=200, n_metric=5000, n_paired=2000,
                                   rates="pooled")
    separate = detectable_difference(0.6, 0.8, n_human=200, n_metric=5000, n_paired=2000,
                                     psi=0.6)
    assert pooled == separate
    with pytest.raises(ParameterError, match="psi"):
        detectable_difference(0.6, 0.8, n_human=200, n_metric=5000, n_paired=2000)
    assert detectable_difference(0.6, 0.8, n_human=200, n_metric=5000, rates="pooled") == \
        detectable_difference(0.6, 0.8, n_human=200, n_metric=5000)
    t = detectable_difference_table(0.6, 0.8, n_human=[200], n_metric=[5000], n_paired=2000,
                                    rates="pooled")
    assert t.settings["rates"] == "pooled" and t.loc[200, 5000] == pooled


def test_fit_and_plan_accept_the_same_rates():
    # every value one accepts the other accepts; every value one refuses the other refuses
    import binaryeval as be

    counts = {"A": dict(human_pos=30, human_total=50, metric_pos=600, metric_total=1000, tp=20,
                        fn=5, tn=20, fp=5)}
    for value in ("estimate", "pooled", {"rho": 0.8, "eta": 0.8}):
        be.fit_counts(counts, rates=value)
        detectable_difference(0.6, 0.8, n_human=100, rates=value)
    for value in ("known", "estimated", "pool", ["rho", 0.8], {"rh0": 0.8}):
        with pytest.raises(be.BinaryEvalError, match="rates"):
            be.fit_counts(counts, rates=value)
        with pytest.raises(be.BinaryEvalError, match="rates"):
            detectable_difference(0.6, 0.8, n_human=100, rates=value)


def test_plans_say_their_power_and_refuse_a_coverage_as_sig_level():
    # Guards: every planning answer has power 0.5 (the papers' eps) and nothing said so (an
    # analyst assuming 80 % gets half the ratings needed); sig_level=0.95 (the coverage) was
    # accepted and gave an eps 30 times too small
    from scipy import special

    from binaryeval.plan._setup import POWER_NOTE

    z, zb = special.ndtri(0.975), special.ndtri(0.8)
    assert f"{(z + zb) / z:.2f}" == "1.43" and f"{((z + zb) / z) ** 2:.2f}" == "2.04"
    assert "power=0.8" in POWER_NOTE and "1.43" in POWER_NOTE and "2.04" in POWER_NOTE
    rates = {"rho": 0.8, "eta": 0.8}
    half = plan.required_sample_size(0.05, alpha=0.6, rates=rates)
    assert POWER_NOTE in half.summary().notes
    # the note's rule: the eps for power 0.8 needs about 2.04 times the ratings
    eighty = plan.required_sample_size(0.05 / ((z + zb) / z), alpha=0.6, rates=rates)
    assert eighty.size / half.size == pytest.approx(((z + zb) / z) ** 2, rel=0.01)
    # power 0.5 at eps for two systems of equal variance, by the normal approximation
    sd = 0.05 / (2 ** 0.5 * z)
    power = special.ndtr(0.05 / (2 ** 0.5 * sd) - z) + special.ndtr(-0.05 / (2 ** 0.5 * sd) - z)
    assert power == pytest.approx(0.5 + special.ndtr(-2 * z), abs=1e-12)
    res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
                         "B": {"human_pos": 62, "human_total": 100}})
    assert any("half the time (power 0.5)" in n for n in res.plan().summary().notes)
    for call in (lambda: plan.detectable_difference(0.6, 0.9, n_human=100, sig_level=0.95),
                 lambda: res.plan(sig_level=0.95)):
        with pytest.raises(ParameterError, match=r"sig_level=0.95 is a significance level.*"
                                                 r"give sig_level=0.05"):
            call()


def test_sample_sizes_with_a_paired_set_inside_the_human_sample_are_searched_where_they_can_be():
    # Guards: vary="n_paired" (paired set inside the human sample) failed with "n_paired
    # (10000000) exceeds n_human", and vary="n_human" with a fixed paired set with "n_paired
    # (300) exceeds n_human (0)"; the answers exist and are checked against a direct scan.
    # Also: limit was achieved copied for attainable results, and psi was not in settings.
    r = required_sample_size(0.045, vary="n_paired", alpha=0.6, rho=0.9, n_human=500,
                             n_metric=50000)
    assert r.size == 250
    assert detectable_difference(0.6, 0.9, n_human=500, n_metric=50000, n_paired=250) <= 0.045
    assert detectable_difference(0.6, 0.9, n_human=500, n_metric=50000, n_paired=249) > 0.045
    h = required_sample_size(0.03, vary="n_human", alpha=0.6, rho=0.9, n_metric=50000,
                             n_paired=300)
    assert h.size >= 300
    assert detectable_difference(0.6, 0.9, n_human=h.size, n_metric=50000, n_paired=300) <= 0.03
    assert detectable_difference(0.6, 0.9, n_human=h.size - 1, n_metric=50000,
                                 n_paired=300) > 0.03
    m = required_sample_size(0.045, vary="n_metric", alpha=0.6, rho=0.9, n_human=500)
    floor = detectable_difference(0.6, 0.9, n_human=500, n_metric=10_000_000)
    assert m.limit == pytest.approx(floor, rel=1e-12) and m.limit < m.achieved
    p = required_sample_size(0.03, alpha=0.6, rho=0.9, n_metric=50000, n_paired=1000, psi=0.6)
    assert p.settings["psi"] == 0.6 and p.settings["sizes"].startswith("per system")
    assert "per system" in p.message


def test_power_plans_for_the_chance_asked_and_simulation_finds_it():
    # Guards: every plan was at power 0.5 with no way to ask for more.  eps with power scales
    # by (z_{1-sig/2} + z_power) / z_{1-sig/2} exactly; a human-only plan at power 0.8 detects
    # a true difference of eps in about 80 % of simulated experiments (the z-test on the two
    # shares, as compare(method="z") makes it), and at 0.5 in about half
    from scipy import special

    z, zb = special.ndtri(0.975), special.ndtri(0.8)
    base = detectable_difference(0.6, 0.9, n_human=400, n_metric=5000)
    assert detectable_difference(0.6, 0.9, n_human=400, n_metric=5000, power=0.8) == \
        pytest.approx(base * (z + zb) / z, rel=1e-12)
    assert detectable_difference(0.6, 0.9, n_human=400, n_metric=5000, power=0.5) == base
    rng = np.random.default_rng(7)
    for power, lo, hi in ((0.5, 0.46, 0.54), (0.8, 0.77, 0.83)):
        n = required_sample_size(0.1, alpha=0.6, rho=0.9, n_metric=0,
                                 rates={"rho": 0.9, "eta": 0.9},
                                 power=power).size
        a = rng.binomial(n, 0.65, 4000) / n
        b = rng.binomial(n, 0.55, 4000) / n
        se = np.sqrt(a * (1 - a) / n + b * (1 - b) / n)
        found = np.mean(np.abs(a - b) / se > z)
        assert lo < found < hi, (power, n, found)
    res = be.fit_counts({"A": {"human_pos": 70, "human_total": 100},
                         "B": {"human_pos": 62, "human_total": 100}})
    half, eighty = res.plan(), res.plan(power=0.8)
    assert eighty.to_frame().attrs["power"] == 0.8
    more = eighty.to_frame()["n_human_needed_1"].iloc[0] / half.to_frame()["n_human_needed_1"].iloc[0]
    assert 1.9 < more < 2.2
    assert any("planned for power 0.8" in n for n in eighty.summary().notes)
    with pytest.raises(ParameterError, match=r"power=0.2 must lie in \[0.5, 1\)"):
        detectable_difference(0.6, 0.9, n_human=100, power=0.2)


def test_allocation_summary_writes_the_cost_as_an_amount():
    # the best split's cost is a sum of money: 200, not 200.0000 (the planning page showed
    # 1000.0000), while eps keeps the summary's four decimals
    best = optimal_allocation(200, 1.0, 0.1, alpha=0.6, rho=0.9, n_points=5)
    text = str(best.summary())
    # (the row has no label: n_human, n_metric, cost, epsilon)
    row = text.split("best split")[1].splitlines()[2].split()
    assert row[2] == f"{best.cost:g}" and "." not in row[2]
    assert row[3] == f"{best.epsilon:.4f}"
    assert best.to_frame()["cost"].dtype.kind == "f"  # the table itself keeps numbers


def test_paired_set_capped_by_the_human_sample_is_named_as_the_limit():
    # Guards: vary="n_paired" with the paired set inside 1000 human ratings stops at 1000 paired
    # items (eps 0.0354 > 0.03), but the answer said the limit was the human and metric ratings
    # and that eps "tends to 0.02022 > 0.03", a limit below the target.  An unattainable result's
    # limit is never below its target; here the cap n_paired <= n_human limits it.
    r = required_sample_size(0.03, vary="n_paired", alpha=0.6, rho=0.8, n_human=1000,
                             n_metric=10000)
    assert not r.attainable
    at_cap = detectable_difference(0.6, 0.8, n_human=1000, n_metric=10000, n_paired=1000)
    assert r.achieved == pytest.approx(at_cap, rel=1e-12)
    assert r.limit > r.epsilon and r.limit == pytest.approx(at_cap, rel=1e-12)
    assert r.limited_by == "human ratings"
    known = detectable_difference(0.6, n_human=1000, n_metric=10000,
                                  rates={"rho": 0.8, "eta": 0.8})
    assert f"{known:.4g}" in r.message and "psi=" in r.message and "> 0.03" not in r.message
    # the separate calibration set the message suggests does reach the target
    assert required_sample_size(0.03, vary="n_paired", alpha=0.6, rho=0.8, n_human=1000,
                                n_metric=10000, psi=0.6).attainable


def test_table_summary_states_the_formula_of_the_power_planned():
    # Guards: at power=0.8 the table's summary said "eps = sqrt(2 var(alpha)) z_{1 - sig_level/2}"
    # while its cells are sqrt(2 var(alpha)) (z_{1 - sig_level/2} + z_0.8) (0.191, not 0.134,
    # for 100 human ratings: Beta(61, 41) has var 61 * 41 / (102^2 * 103)).
    from scipy import special

    var = 61 * 41 / (102 ** 2 * 103)
    z, zb = special.ndtri(0.975), special.ndtri(0.8)
    t = detectable_difference_table(0.6, 0.9, n_human=[100], n_metric=[0], power=0.8)
    assert t.loc[100, 0] == pytest.approx(math.sqrt(2 * var) * (z + zb), rel=1e-12)
    assert t.summary().notes[0].startswith(
        "eps = sqrt(2 var(alpha)) (z_{1 - sig_level/2} + z_0.8);")
    half = detectable_difference_table(0.6, 0.9, n_human=[100], n_metric=[0])
    assert half.loc[100, 0] == pytest.approx(math.sqrt(2 * var) * z, rel=1e-12)
    assert half.summary().notes[0].startswith("eps = sqrt(2 var(alpha)) z_{1 - sig_level/2};")


def test_expected_counts_report_no_estimator_error_the_simulation_finds_it():
    # Guards: with expected counts (one posterior per cell, no experiments) the table reported
    # bias -0.00196 and rmse 0.00196 for 100 human ratings at alpha = 0.6, the distance of one
    # posterior mean from alpha; the estimator's rmse is 25 times that.  The posterior mean
    # (n+ + 1) / (n + 2) with n+ ~ Bin(100, 0.6) has rmse sqrt(100 * 0.24 + (1 - 1.2)^2) / 102.
    sizes = dict(n_human=[100], n_metric=[0])
    expected = detectable_difference_table(0.6, 0.9, **sizes).to_frame().iloc[0]
    for column in ("sd_sd", "bias", "bias_std_error", "empirical_sd", "rmse"):
        assert np.isnan(expected[column]), column
    assert expected["sd_mean"] == pytest.approx(math.sqrt(61 * 41 / (102 ** 2 * 103)), rel=1e-12)
    sampled = detectable_difference_table(0.6, 0.9, **sizes, simulate="sample", n_resamples=400,
                                          seed=11).to_frame().iloc[0]
    truth = math.sqrt(100 * 0.24 + 0.2 ** 2) / 102
    assert sampled["rmse"] == pytest.approx(truth, rel=0.12)
    k = sampled["n_resamples"]
    assert sampled["rmse"] ** 2 == pytest.approx(
        sampled["bias"] ** 2 + sampled["empirical_sd"] ** 2 * (k - 1) / k, rel=1e-9)


def test_known_rates_more_metric_ratings_name_max_size_as_the_limit():
    # Guards: with known rates, vary="n_metric" stopped by max_size=1000 said limited_by
    # "human ratings", yet 118,628 metric ratings alone reach eps = 0.01 with the same 100
    # human ratings (known rates: eps falls to 0 as metric ratings grow).
    known = {"rho": 0.7, "eta": 0.7}
    r = required_sample_size(0.01, vary="n_metric", alpha=0.6, rates=known, n_human=100,
                             max_size=1000)
    assert not r.attainable and r.limited_by == "max_size"
    assert r.achieved == pytest.approx(detectable_difference(
        0.6, n_human=100, n_metric=1000, rates=known), rel=1e-12)
    assert "increase max_size" in r.message
    unbounded = required_sample_size(0.01, vary="n_metric", alpha=0.6, rates=known, n_human=100)
    assert unbounded.attainable and unbounded.size > 1000
    assert detectable_difference(0.6, n_human=100, n_metric=unbounded.size, rates=known) <= 0.01


def test_allocation_of_a_budget_that_buys_no_rating_is_refused():
    # Guards: budget 0.05 with ratings at 1 and 0.1 returned a "best split" of 0 human and 0
    # metric ratings (eps 1.0) as if it were a plan; one metric rating's worth is the least
    # budget with something to split
    with pytest.raises(ParameterError, match=r"budget=0.05 buys no rating \(cost_human=1, "
                                             r"cost_metric=0.1\).*at least 0.1"):
        optimal_allocation(0.05, 1.0, 0.1, alpha=0.6, rho=0.8)
    least = optimal_allocation(0.1, 1.0, 0.1, alpha=0.6, rho=0.8)
    assert (least.n_human, least.n_metric) == (0, 1)
    assert least.epsilon == pytest.approx(detectable_difference(0.6, 0.8, n_metric=1), rel=1e-12)


def test_sizes_beyond_the_engine_name_the_planning_argument():
    # Guards: n_metric=2e10 failed with "metric_pos=11,200,000,000 exceeds the largest supported
    # count ... fit a random sample of them", naming an engine count the caller never gave and
    # advice for fits; so did max_size=1e11 in mid-search (human_pos) and budget 1e12 at 0.1
    # per rating.  The error now names the argument, its value and the limit, 10**10.
    from binaryeval._validate import MAX_COUNT

    assert MAX_COUNT == 10 ** 10
    for call, text in [
            (lambda: detectable_difference(0.6, 0.8, n_metric=2 * 10 ** 10), "n_metric=20000000000"),
            (lambda: detectable_difference_table(0.6, 0.8, n_human=[10, 2 * 10 ** 10], n_metric=0),
             "n_human=20000000000"),
            (lambda: required_sample_size(1e-7, alpha=0.6, rho=0.8, max_size=10 ** 11),
             "max_size=100000000000"),
            (lambda: optimal_allocation(1e12, 1.0, 0.1, alpha=0.6, rho=0.8),
             "budget=1e+12 buys 10,000,000,000,000 ratings at 0.1 each")]:
        with pytest.raises(ParameterError, match=r"10,000,000,000") as err:
            call()
        assert str(err.value).startswith(text), str(err.value)
        assert "random sample" not in str(err.value)
    # at the limit the plan runs: 10**10 metric ratings with estimated rates stay at the floor
    # of Table 12's first row (0.738 from 1000 metric ratings on)
    assert detectable_difference(0.6, 0.9, n_metric=MAX_COUNT) == pytest.approx(0.738, abs=5e-4)


def test_plans_state_a_prior_and_a_grid_that_change_their_numbers():
    # Guards: a table planned with prior=(2, 5) (eps 0.1338 for 100 human ratings: Beta(62, 45))
    # printed the same settings as one with the uniform prior (0.1339: Beta(61, 41)), and a
    # grid plan did not say its grid; the summary is the record of a plan, so both are stated
    # when they are not the defaults.
    from scipy import special

    def beta_eps(a, b):
        return math.sqrt(2 * a * b / ((a + b) ** 2 * (a + b + 1))) * special.ndtri(0.975)

    shaped = detectable_difference_table(0.6, 0.9, n_human=[100], n_metric=[0], prior=(2, 5))
    flat = detectable_difference_table(0.6, 0.9, n_human=[100], n_metric=[0])
    assert shaped.loc[100, 0] == pytest.approx(beta_eps(62, 45), rel=1e-12)
    assert flat.loc[100, 0] == pytest.approx(beta_eps(61, 41), rel=1e-12)
    assert shaped.to_frame().attrs["prior"] == (2.0, 5.0)
    assert "prior:     (2.0, 5.0)" in str(shaped.summary())
    assert "prior" not in flat.to_frame().attrs and "rate_prior" not in flat.to_frame().attrs
    size = required_sample_size(0.05, alpha=0.6, rho=0.8, rate_prior=(0.5, 0.5))
    assert size.settings["rate_prior"] == (0.5, 0.5)
    grid = detectable_difference_table(0.6, 0.9, n_human=[100], n_metric=[0], method="grid",
                                       grid=(400, 200, 200))
    assert grid.settings["grid"] == (400, 200, 200)
    assert "grid" not in flat.settings


def test_simulate_takes_power_as_every_planning_function():
    # Guards: the package notes say every planning function takes power=, but simulate(...,
    # power=0.8) raised TypeError.  Its epsilon column now spans z_{1-sig/2} + z_power sds of
    # the same simulated experiments (the draws do not depend on power).
    from scipy import special

    kw = dict(n_human=[100], n_metric=[1000], n_resamples=5, seed=3)
    half = simulate(0.6, 0.9, **kw)
    eighty = simulate(0.6, 0.9, **kw, power=0.8)
    assert half.draws.equals(eighty.draws)
    z, zb = special.ndtri(0.975), special.ndtri(0.8)
    assert eighty.to_frame()["epsilon"].iloc[0] == pytest.approx(
        half.to_frame()["epsilon"].iloc[0] * (z + zb) / z, rel=1e-12)
    assert eighty.settings["power"] == 0.8
    assert any("planned for power 0.8" in n for n in eighty.summary().notes)


@pytest.mark.parametrize("rates", ["estimate", {"rho": 0.8, "eta": 0.8}])
def test_a_fixed_paired_set_that_sets_the_human_sample_says_so(rates):
    # Guards: vary="n_human" with n_paired=500 inside the human sample answered "n_human = 500
    # per system gives eps = 0.06056 <= 0.1" and no more, as if 500 were needed for 0.1; 500 is
    # the fixed paired set's size, and with every human-rated item paired 182 suffice.
    r = required_sample_size(0.1, alpha=0.6, rho=0.8, rates=rates, n_paired=500)
    assert r.size == 500
    free = required_sample_size(0.1, alpha=0.6, rho=0.8, rates=rates)
    assert free.size == 182
    assert detectable_difference(0.6, 0.8, n_human=182, rates=rates) <= 0.1
    assert detectable_difference(0.6, 0.8, n_human=181, rates=rates) > 0.1
    assert "That is the fixed n_paired = 500" in r.message
    assert "n_human = 182 reaches the target" in r.message
    # where the target, not the paired set, sets the size, nothing is added
    h = required_sample_size(0.03, alpha=0.6, rho=0.9, n_metric=50000, n_paired=300)
    assert h.size > 300 and "fixed n_paired" not in h.message
