"""Tests of the paper's midpoint-grid posterior (binaryeval.binary.grid)."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import REFERENCE
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from binaryeval.binary.engine import alpha_posterior
from binaryeval.binary.grid import grid_posterior
from binaryeval.errors import BinaryEvalWarning, CountsError, InputTypeError, ParameterError

# Counts of the reference cases (bayes_authors_nuts_posterior.json / _synthetic.json): the authors'
# tool takes rho = [tp, tp + fn], eta = [tn, tn + fp], human = [pos, total], metric = [pos, total].
CASES = {
    "E1_metric_only": dict(tp=80, fn=20, tn=80, fp=20, metric_pos=5200, metric_total=10000),
    "E2_sim_a60": dict(tp=96, fn=24, tn=64, fp=16, human_pos=60, human_total=100,
                       metric_pos=5600, metric_total=10000),
    "E3_sim_a50": dict(tp=80, fn=20, tn=80, fp=20, human_pos=50, human_total=100,
                       metric_pos=5000, metric_total=10000),
    "E4_weak_metric": dict(tp=180, fn=120, tn=120, fp=80, metric_pos=5200, metric_total=10000),
    "E5_zero_counts": dict(tp=10, fn=0, tn=10, fp=0, human_pos=0, human_total=10, metric_pos=0,
                           metric_total=1000),
    "S1_labeled_humans_as_oracle": dict(tp=92, fn=21, tn=64, fp=23, human_pos=113, human_total=200,
                                        metric_pos=5575, metric_total=10000),
    "S2_no_oracle": dict(tp=92, fn=21, tn=64, fp=23, metric_pos=5575, metric_total=10000),
}
SMALL = (400, 200, 200)


def _json_counts(entry):
    """The authors' JSON layout -> keyword counts."""
    if "rho" in entry and isinstance(entry["rho"], list):
        (tp, nr), (tn, ne) = entry["rho"], entry["eta"]
        (hp, ht), (mp, mt) = entry["human"], entry["metric"]
    else:
        tp, nr, tn, ne = entry["rho_pos"], entry["rho_total"], entry["eta_pos"], entry["eta_total"]
        hp, ht, mp, mt = (entry["human_pos"], entry["human_total"], entry["metric_pos"],
                          entry["metric_total"])
    return dict(tp=tp, fn=nr - tp, tn=tn, fp=ne - tn, human_pos=hp, human_total=ht,
                metric_pos=mp, metric_total=mt)


@pytest.fixture(scope="module")
def reference():
    # the authors' NUTS summaries (authors_* columns) of the seven cases
    return pd.read_csv(REFERENCE / "bayes_comparison.csv", index_col=0)


@pytest.fixture(scope="module")
def exact():
    # The posterior of each case by the test's own quadrature of the model
    # (tests/binary_quadrature.py: no package code; error below 1e-10).
    from binary_quadrature import QuadraturePosterior

    return {name: QuadraturePosterior(**c) for name, c in CASES.items()}


@pytest.fixture(scope="module")
def small_posteriors():
    # E5 (no positives: alpha within [0, 0.005]) on 400 alpha cells is coarse, as it warns
    out = {}
    for name, c in CASES.items():
        if name == "E5_zero_counts":
            with pytest.warns(BinaryEvalWarning, match=r"too coarse .*alpha: 400 cells"):
                out[name] = grid_posterior(**c, grid=SMALL)
        else:
            out[name] = grid_posterior(**c, grid=SMALL)
    return out


def test_case_counts_match_reference_json():
    # The counts above are those in the authors' reference files.
    post = json.loads((REFERENCE / "bayes_authors_nuts_posterior.json").read_text())["results"]
    syn = json.loads((REFERENCE / "bayes_authors_nuts_synthetic.json").read_text())["results"]
    by_name = {e["name"]: e for e in post + syn if "mean" in e}
    assert _json_counts(by_name["E1_metric_only"]) == {**dict.fromkeys(
        ["human_pos", "human_total"], 0), **CASES["E1_metric_only"]}
    for name in ["E2_sim_a60", "E3_sim_a50", "E5_zero_counts", "S1_labeled_humans_as_oracle"]:
        assert _json_counts(by_name[name]) == CASES[name]
    s2 = _json_counts(by_name["S2_no_oracle(label-shift style)"])
    assert s2 == {**CASES["S2_no_oracle"], "human_pos": 0, "human_total": 0}


@pytest.mark.parametrize("name", list(CASES))
def test_small_grid_matches_exact_posterior(name, exact, small_posteriors):
    # Expected: the exact posterior (independent quadrature).  Tolerances for the 400 x 200 x 200
    # grid: quantiles one alpha cell (1/400), sd 2.5e-4, mean 2e-5 (E5: 5e-4, its posterior sits
    # in the first cells, where a coarse grid is least accurate).  Measured: quantiles within
    # 0.22 cells, sd within 2e-4, mean within 6e-6 (E5: 4.4e-4).
    p, q = small_posteriors[name], exact[name]
    tol_mean = 5e-4 if name == "E5_zero_counts" else 2e-5
    assert abs(p.mean() - q.mean) <= tol_mean
    assert abs(p.std() - q.sd) <= 2.5e-4
    assert abs(p.ppf(0.025) - q.ppf(0.025)) <= 1 / 400
    assert abs(p.ppf(0.975) - q.ppf(0.975)) <= 1 / 400


@pytest.mark.parametrize("name", [n for n in CASES if n != "E5_zero_counts"])
def test_small_grid_matches_authors_nuts(name, reference, small_posteriors):
    # Expected: the authors' NUTS posterior (authors_* columns), within its Monte-Carlo error as
    # stated in the reference README: |mean| <= 0.002, relative sd <= 2%, quantiles <= 0.004.
    p, r = small_posteriors[name], reference.loc[name]
    assert abs(p.mean() - r.authors_nuts_mean) <= 0.002
    assert abs(p.std() / r.authors_nuts_sd - 1) <= 0.02
    assert abs(p.ppf(0.025) - r.authors_q025) <= 0.004
    assert abs(p.ppf(0.975) - r.authors_q975) <= 0.004


def test_e5_finer_alpha_grid_approaches_the_exact_posterior(reference, exact):
    # E5 (no positives at all) has its posterior in [0, 0.005], a few cells of the paper's alpha
    # grid: there the midpoint rule's sd is 0.76 % below the exact value with 2000 alpha cells
    # and 0.03 % above it with 8000 (measured, 100 x 100 rate cells).  That is grid error: the
    # authors' NUTS sd lies 1.3 % above the exact value, within its Monte-Carlo error (2 %).
    q, r = exact["E5_zero_counts"], reference.loc["E5_zero_counts"]
    assert abs(r.authors_nuts_sd / q.sd - 1) <= 0.02
    with pytest.warns(BinaryEvalWarning, match=r"too coarse .*alpha: 2000 cells"):
        coarse = grid_posterior(**CASES["E5_zero_counts"], grid=(2000, 100, 100))
    fine = grid_posterior(**CASES["E5_zero_counts"], grid=(8000, 100, 100))
    assert coarse.std() / q.sd - 1 < -0.005
    assert abs(fine.std() / q.sd - 1) <= 0.001
    assert abs(fine.mean() - q.mean) <= 5e-6
    assert abs(fine.ppf(0.975) - q.ppf(0.975)) <= 1e-5


@pytest.mark.slow
def test_full_grid_matches_exact_posterior(exact):
    # The paper's 2000 x 1000 x 1000 grid for E2 (~12 s) against the exact posterior
    # (independent quadrature): midpoint error only.
    p = grid_posterior(**CASES["E2_sim_a60"])
    q = exact["E2_sim_a60"]
    assert p.grid == (2000, 1000, 1000)
    assert abs(p.mean() - q.mean) <= 1e-6
    assert abs(p.std() - q.sd) <= 1e-5
    assert abs(p.ppf(0.975) - q.ppf(0.975)) <= 1e-5


def test_human_only_is_the_beta_posterior_up_to_midpoint_error():
    # Closed form: Beta(61, 41); the midpoint rule errs by O(1/N^2) in the moments.
    p = grid_posterior(human_pos=60, human_total=100, grid=(2000, 1, 1))
    b = stats.beta(61, 41)
    assert p.mean() == pytest.approx(b.mean(), abs=1e-7)
    assert p.var() == pytest.approx(b.var(), rel=1e-4)
    assert p.ppf(0.975) == pytest.approx(b.ppf(0.975), abs=1e-5)
    assert p.mode() == pytest.approx(0.6, abs=1 / 2000)


def test_known_rates_match_quadrature():
    # Known rates: posterior ∝ p^k (1-p)^(M-k) with p = 0.7 a + 0.3 (1 - a); scipy quad reference.
    k, m = 560, 1000
    p = grid_posterior(metric_pos=k, metric_total=m, rho=0.7, eta=0.7, grid=(4000, 1, 1))

    def dens(a):
        q = 0.7 * a + 0.3 * (1 - a)
        return np.exp(k * np.log(q) + (m - k) * np.log1p(-q) + 690)

    z = integrate.quad(dens, 0, 1, points=[0.65], limit=200)[0]
    mean = integrate.quad(lambda a: a * dens(a), 0, 1, points=[0.65], limit=200)[0] / z
    sec = integrate.quad(lambda a: a * a * dens(a), 0, 1, points=[0.65], limit=200)[0] / z
    assert p.mean() == pytest.approx(mean, abs=1e-7)
    assert p.var() == pytest.approx(sec - mean**2, rel=1e-4)


def test_distribution_functions_are_consistent(small_posteriors):
    # Invariants: cdf(ppf(q)) = q, pdf integrates to 1, sample mean ~ mean, HDI no longer than ETI.
    p = small_posteriors["E2_sim_a60"]
    q = np.linspace(0.01, 0.99, 25)
    np.testing.assert_allclose(p.cdf(p.ppf(q)), q, atol=1e-12)
    x = np.linspace(0, 1, 400_001)
    assert integrate.trapezoid(p.pdf(x), x) == pytest.approx(1.0, abs=1e-3)
    draws = p.rvs(size=40_000, random_state=3)
    assert abs(draws.mean() - p.mean()) < 4 * p.std() / np.sqrt(draws.size)
    np.testing.assert_array_equal(draws, p.rvs(size=40_000, random_state=3))
    lo, hi = p.interval(0.9, kind="hdi")
    elo, ehi = p.interval(0.9)
    assert hi - lo <= ehi - elo + 1e-12
    assert p.cdf(hi) - p.cdf(lo) == pytest.approx(0.9, abs=1e-3)
    assert (elo, ehi) == pytest.approx(tuple(p.ppf([0.05, 0.95])))
    assert p.method == "grid"
    assert "Posterior of alpha" in str(p)
    assert list(p.to_frame().columns) == ["estimate", "std_error", "mode", "median", "lower", "upper"]


def test_symmetric_counts_give_mean_one_half(small_posteriors):
    # E3 is symmetric under swapping the labels: the posterior mean is 1/2 exactly.
    assert small_posteriors["E3_sim_a50"].mean() == pytest.approx(0.5, abs=1e-12)


@pytest.mark.filterwarnings("ignore:the grid is too coarse")   # a small grid on purpose
@settings(max_examples=15, deadline=None)
@given(hp=st.integers(0, 20), hn=st.integers(0, 20), mp=st.integers(0, 60), mn=st.integers(0, 60),
       tp=st.integers(0, 15), fn=st.integers(0, 15), tn=st.integers(0, 15), fp=st.integers(0, 15))
def test_swapping_labels_mirrors_alpha(hp, hn, mp, mn, tp, fn, tn, fp):
    # Invariant: renaming positive <-> negative maps alpha to 1 - alpha (rho <-> eta, tp <-> tn).
    g = (60, 12, 12)
    a = grid_posterior(hp, hp + hn, mp, mp + mn, tp, fn, tn, fp, grid=g)
    b = grid_posterior(hn, hp + hn, mn, mp + mn, tn, fp, tp, fn, grid=g)
    assert a.mean() == pytest.approx(1 - b.mean(), abs=1e-12)
    assert a.var() == pytest.approx(b.var(), abs=1e-12)


@pytest.mark.parametrize("kwargs, error, text", [
    (dict(human_pos=-1), CountsError, "human_pos"),
    (dict(human_pos=5, human_total=3), CountsError, "human_pos"),
    (dict(metric_pos=2.5, metric_total=4), CountsError, "metric_pos"),
    (dict(tp="3"), InputTypeError, "tp"),
    (dict(rho=1.5), ParameterError, "rho"),
    (dict(prior=(0, 1)), ParameterError, "prior"),
    (dict(grid=(0, 10, 10)), ParameterError, "grid"),
])
def test_invalid_input(kwargs, error, text):
    with pytest.raises(error, match=text):
        grid_posterior(**{"grid": (50, 10, 10), **kwargs})


def test_invalid_interval_arguments(small_posteriors):
    p = small_posteriors["E1_metric_only"]
    with pytest.raises(ParameterError, match="level"):
        p.interval(1.5)
    with pytest.raises(ParameterError, match="kind"):
        p.interval(0.9, kind="box")


def test_a_grid_too_coarse_for_the_posterior_is_said():
    # the audit's design on a 2 x 2 x 2 grid: sd 0.25 against the exact engine's 0.084, without
    # a word before; the midpoint rule's variance error h^2 / 12 is then 33 % of alpha's variance
    # (and more of the rates'): one warning naming the three grids.  The same design on a
    # 400 x 200 x 200 grid (errors below 0.1 %) says nothing and is within 1e-4 of the engine
    design = dict(human_pos=10, human_total=20, metric_pos=50, metric_total=100, tp=20, fn=5,
                  tn=20, fp=5)
    with pytest.warns(BinaryEvalWarning, match=r"the grid is too coarse") as caught:
        grid_posterior(**design, grid=(2, 2, 2))
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "alpha: 2 cells of width 0.5 for a posterior sd of 0.25" in text
    assert "rho: 2 cells" in text and "eta: 2 cells" in text and "method='exact'" in text
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fine = grid_posterior(**design, grid=(400, 200, 200))
    assert abs(fine.std() - alpha_posterior(**design).std()) <= 1e-4


@pytest.mark.parametrize("counts", [
    dict(tp=96, fn=24, tn=64, fp=16, mp=5600, mt=10000),        # E2's rates and metric
    dict(tp=3, fn=2, tn=1, fp=4, mp=900, mt=1000),              # wide rates
    dict(tp=10, fn=0, tn=10, fp=0, mp=0, mt=1000),              # no metric positive
    dict(tp=50, fn=5, tn=40, fp=6, mp=200_000, mt=200_000),     # no metric negative
    dict(tp=50, fn=5, tn=40, fp=6, mp=100_000, mt=200_000),     # a narrow band
    dict(tp=0, fn=30, tn=30, fp=0, mp=2500, mt=3000),           # rates pressing 0 and 1
])
def test_the_band_of_rate_cells_is_every_cell_that_counts(counts):
    # Expected: the metric's log likelihood of every alpha row computed from every rate cell
    # (terms below e^-700 of a row's largest counted as zero); the band leaves out terms
    # below e^-60 of it, about 1e-26 each, so the two agree to rounding (1e-13 relative).
    from binaryeval.binary.grid import _band_loglik, _metric_loglik, _rate_cells

    r, lr = _rate_cells(None, counts["tp"], counts["fn"], (1.0, 1.0), 250)
    e, le = _rate_cells(None, counts["tn"], counts["fp"], (1.0, 1.0), 250)
    a = (np.arange(200) + 0.5) / 200
    mp, mn = counts["mp"], counts["mt"] - counts["mp"]
    every = _metric_loglik(a, r, lr, e, le, mp, mn)
    band = _band_loglik(a, r, lr, e, le, mp, mn)
    finite = np.isfinite(every)
    assert np.array_equal(finite, np.isfinite(band))
    assert np.array_equal(every[~finite], band[~finite])
    np.testing.assert_allclose(band[finite], every[finite], rtol=1e-13, atol=0)


@pytest.mark.filterwarnings("ignore:the grid is too coarse")   # 100 alpha cells; the sums matter
def test_the_paper_grid_takes_the_band(monkeypatch):
    # The paper's grid with 10,000 metric-only ratings goes through the band; with 100 (or a
    # known rate: one rate cell) through every cell.  Expected: the band's posterior equals the
    # every-cell one (same data, band switched off) to rounding.
    from binaryeval.binary import grid

    calls = []
    band = grid._band_loglik
    monkeypatch.setattr(grid, "_band_loglik", lambda *a: calls.append("band") or band(*a))
    kw = dict(tp=96, fn=24, tn=64, fp=16, human_pos=60, human_total=100, metric_pos=5600,
              metric_total=10000, grid=(100, 400, 400))
    fast = grid_posterior(**kw)
    assert calls == ["band"]
    grid_posterior(**{**kw, "metric_pos": 56, "metric_total": 100})
    grid_posterior(**{**kw, "rho": 0.8})
    assert calls == ["band"]
    monkeypatch.setattr(grid, "_BAND_FROM", 10**12)
    slow = grid_posterior(**kw)
    np.testing.assert_allclose(fast.weights, slow.weights, rtol=1e-12, atol=1e-300)
    assert fast.mean() == pytest.approx(slow.mean(), rel=1e-14)
