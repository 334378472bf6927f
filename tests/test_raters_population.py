"""The raters' population prior: ``fit_raters(..., rater_rates="hierarchical")``.

Numbers come from the hyperprior itself (with no ratings the sampler must return it: a
Kolmogorov-Smirnov test against its distributions), from a two-dimensional quadrature of the
exact posterior of the population given fixed counts (every item's class fixed by an error-free
rater, so the raters' Dirichlet-multinomial likelihood is known in closed form), from the known
truth of simulated crowds, and from the saved rows of ``studies/raters_population.py``.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import study_module
from scipy import special, stats

from binaryeval.errors import ConvergenceWarning, ParameterError
from binaryeval.latent import diagnostics
from binaryeval.latent.hierarchical import HYPERPRIOR
from binaryeval.raters import fit_raters
from binaryeval.raters._simulate import simulate_crowd
from binaryeval.raters.engine import POPULATION, RaterData, sample, sample_classes

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "vignettes" / "data" / "raters_population.csv"


def _quiet(func, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return func(*args, **kw)


def _no_ratings(model: str, k: int, n_raters: int = 4) -> RaterData:
    """Three items, nobody rated them, no metric: the posterior is the prior."""
    n = 3
    return RaterData(
        item_group=np.zeros(n, int), item_metric=np.full(n, -1), fixed=np.full(n, -1),
        rating_item=np.zeros(0, int), rating_rater=np.zeros(0, int),
        rating_label=np.zeros(0, int), metric_only=np.zeros((1, 0), int), n_groups=1,
        n_raters=n_raters, n_classes=k, n_outputs=0, model=model,
        share_concentration=np.ones(k), rater_prior=(2.0, 1.0),
        rate_concentration=np.ones((k, 0)), pooled=False, init=np.zeros(n, int),
        rater_rates="hierarchical")


def test_the_hyperprior_is_the_one_of_the_metrics_population():
    # one population prior in the package: log c ~ Normal(log 20, 1.5^2), truncated at 10 sd
    assert POPULATION.loc == HYPERPRIOR.loc == pytest.approx(np.log(20.0))
    assert POPULATION.scale == HYPERPRIOR.scale == 1.5


# ----------------------------------------------------------------------------------------------
# (a) with no ratings the draws of (m, log c) are the hyperprior's
# ----------------------------------------------------------------------------------------------

def _hyperprior_mean_draws(model: str, k: int, n: int = 200_000) -> np.ndarray:
    """Independent draws of ``m_0[0]`` from the hyperprior, by numpy and rejection.

    MACE: Beta(2, 1).  Dawid-Skene: row 0 ~ Dirichlet(2, 1 / (K - 1), ...) kept when its
    diagonal entry is the row's largest (the truncation of :class:`Population`).
    """
    rng = np.random.default_rng(99)
    if model == "mace":
        return rng.beta(2.0, 1.0, n)
    row = rng.dirichlet([2.0] + [1.0 / (k - 1)] * (k - 1), n)
    return row[row[:, 0] >= row.max(axis=1), 0]


@pytest.mark.parametrize(("model", "k"), [("dawid-skene", 2), ("mace", 2), ("dawid-skene", 3)])
def test_without_ratings_the_population_draws_are_the_hyperprior(model, k):
    out = (sample if k == 2 else sample_classes)(_no_ratings(model, k), draws=1000, chains=4,
                                                 warmup=200, seed=7)
    log_c = np.log(out.population_concentration[..., 0])           # (C, D), row 0
    m = out.population_mean[..., 0, 0]                               # m_0[0] (MACE: competence)
    # the hyperprior: log c ~ Normal(log 20, 1.5^2); m_0[0] from independent draws
    ref = _hyperprior_mean_draws(model, k)
    if model == "dawid-skene" and k == 2:   # closed form: Beta(2, 1) truncated to [0.5, 1]
        assert stats.kstest(ref[:5000], lambda x: (x ** 2 - 0.25) / 0.75).pvalue > 0.001
    norm = stats.norm(np.log(20.0), 1.5)
    for x, ref_x in ((log_c, norm.rvs(size=200_000, random_state=98)), (m, ref)):
        ess = float(diagnostics.summary(x[..., None])[1][0])
        assert ess > 400
        thin = x[:, ::max(1, int(x.size / ess))].ravel()   # about independent draws
        assert stats.ks_2samp(thin, ref_x).pvalue > 0.001
        # the mean within 4 Monte Carlo standard errors, the quartiles within 0.1 sd
        sd = ref_x.std()
        assert abs(x.mean() - ref_x.mean()) < 4 * sd / np.sqrt(ess)
        np.testing.assert_allclose(np.quantile(x, [0.25, 0.5, 0.75]),
                                   np.quantile(ref_x, [0.25, 0.5, 0.75]), atol=0.1 * sd)
    # the raters' parameters given the population: on average the population's mean
    theta = (out.competence if model == "mace" else out.phi[..., 0, 0]).astype(float)
    assert abs(theta.mean() - ref.mean()) < 0.03
    assert 0.25 < out.accept["concentration"] < 0.6 and 0.25 < out.accept["mean"] < 0.6


# ----------------------------------------------------------------------------------------------
# the exact posterior of the population given fixed counts, by quadrature
# ----------------------------------------------------------------------------------------------

def _fixed_classes_frame(seed=4, n=240, n_raters=30):
    """An error-free expert rates every item; 30 crowd raters rate 2 items each, on average."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.5
    comp = rng.uniform(0.55, 0.95, n_raters)
    rows = [{"item": i, "annotator": "expert", "rating": float(t)} for i, t in enumerate(truth)]
    for i, t in enumerate(truth):
        for r in rng.choice(n_raters, 1 + (rng.random() < 0.25), replace=False):
            knows = rng.random() < comp[r]
            rows.append({"item": i, "annotator": f"c{r:02d}",
                         "rating": float(t if knows else rng.random() < 0.5)})
    return pd.DataFrame(rows), truth


def _quadrature(counts: np.ndarray) -> tuple[float, float]:
    """Posterior means of ``m`` (the diagonal) and ``log c`` of one Dawid-Skene row.

    ``counts`` (R, 2): each rater's ratings (the class's own label, the other) of the items of
    that class.  Density: Beta(2, 1) on ``m`` truncated to [0.5, 1], Normal(log 20, 1.5^2) on
    ``log c``, times ``prod_r B(c m + n_r1, c (1 - m) + n_r2) / B(c m, c (1 - m))``.
    """
    m = np.linspace(0.500625, 0.999375, 400)[:, None]
    z = np.linspace(np.log(20.0) - 9.0, np.log(20.0) + 9.0, 361)[None, :]
    c = np.exp(z)
    a, b = c * m, c * (1 - m)
    logp = np.log(m) - 0.5 * ((z - np.log(20.0)) / 1.5) ** 2
    for n1, n2 in counts:
        logp = logp + special.betaln(a + n1, b + n2) - special.betaln(a, b)
    w = np.exp(logp - logp.max())
    w /= w.sum()
    return float((w * m).sum()), float((w * z).sum())


def test_with_fixed_classes_the_population_is_the_exact_posterior():
    df, truth = _fixed_classes_frame()
    fit = _quiet(fit_raters, "rating ~ 1", df, rater="annotator", item="item",
                 error_free="expert", rater_rates="hierarchical", draws=1000, chains=4,
                 seed=3)
    crowd = df[df["annotator"] != "expert"].assign(truth=truth[df["item"][df["annotator"]
                                                                        != "expert"]])
    log_c = np.log(fit.draws.population_concentration)            # (C, D, 2)
    m = fit.draws.population_mean                                  # (C, D, 2, 2)
    for k in (0, 1):
        rows = crowd[crowd["truth"] == k]
        own = (rows["rating"] == k).groupby(rows["annotator"]).agg(["sum", "size"])
        counts = np.c_[own["sum"], own["size"] - own["sum"]]
        want_m, want_z = _quadrature(counts)
        for x, want in ((m[..., k, k], want_m), (log_c[..., k], want_z)):
            ess = float(diagnostics.summary(x[..., None])[1][0])
            mc_se = x.std() / np.sqrt(ess)
            assert abs(x.mean() - want) < 4.5 * mc_se, (k, x.mean(), want, mc_se)


# ----------------------------------------------------------------------------------------------
# (c) raters all alike: the population mean is their common competence
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model", ["mace", "dawid-skene"])
def test_alike_raters_population_mean_recovers_their_competence(model):
    df, _ = simulate_crowd(11, alphas=[0.6, 0.4], n_items=150, competence=[0.8] * 30,
                           per_item=(2, 3), n_metric_only=100)
    fit = _quiet(fit_raters, "rating ~ metric | system", df, rater="annotator", item="item",
                 raters=model, rater_rates="hierarchical", draws=600, chains=3, seed=2)
    pop = fit.population()
    # MACE: the competence 0.8; Dawid-Skene: P(rating c | class c) = 0.8 + 0.2 / 2 = 0.9
    want = 0.8 if model == "mace" else 0.9
    rows = pop.iloc[[0]] if model == "mace" else pop.loc[[("0", "0"), ("1", "1")]]
    for _, row in rows.iterrows():
        assert row["lower"] <= want <= row["upper"]
        assert abs(row["estimate"] - want) < 0.04
    # alike raters: the concentration is learnt to be large, well above the hyperprior's centre
    assert rows["concentration"].min() > 20


# ----------------------------------------------------------------------------------------------
# (b) many raters who rate few items: the population prior estimates their errors better
# ----------------------------------------------------------------------------------------------

def _sparse_crowd(seed):
    rng = np.random.default_rng(seed)
    comp = rng.uniform(0.6, 0.95, 50)
    df, _ = simulate_crowd(seed, alphas=[0.35, 0.65], n_items=100, competence=comp,
                           per_item=(2, 3), n_metric_only=200)
    return df, comp


@pytest.mark.parametrize("model", ["dawid-skene", "mace"])
def test_the_population_prior_reduces_the_raters_error(model, study):
    rater_error = study.rater_error
    got = {}
    for prior in ("estimate", "hierarchical"):
        errs = []
        for seed in (1, 2):
            df, comp = _sparse_crowd(seed)
            fit = _quiet(fit_raters, "rating ~ metric | system", df, rater="annotator",
                         item="item", raters=model, rater_rates=prior, draws=300, chains=2,
                         warmup=200, seed=seed)
            errs.append(rater_error(fit, comp))
        got[prior] = np.mean(errs)
    # about 4 ratings per rater: the fixed Beta(2, 1) pulls every rater towards 2/3; the
    # population learns where the raters are (the study: 0.04 vs 0.10 for Dawid-Skene)
    assert got["hierarchical"] < 0.9 * got["estimate"], got


# ----------------------------------------------------------------------------------------------
# the study: alpha's coverage with the population prior, and the raters' error
# ----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def study():
    return study_module("raters_population")


@pytest.fixture(scope="module")
def saved():
    return pd.read_csv(CSV)


def test_one_saved_data_set_is_reproduced(study, saved):
    again = study.run_dataset(0, 1)
    want = saved[(saved["batch"] == 0) & (saved["dataset"] == 1)].reset_index(drop=True)
    assert len(again) == len(want) == 8
    num = ["alpha", "estimate", "rater_mae"]
    pd.testing.assert_frame_equal(again.drop(columns=num), want.drop(columns=num),
                                  check_dtype=False)
    np.testing.assert_allclose(again[num], want[num], rtol=0, atol=1e-9)


def test_the_population_prior_covers_alpha_and_beats_the_fixed_prior(study, saved):
    table = study.summarise(saved)
    for model in ("dawid-skene", "mace"):
        hier, fixed = table.loc[(model, "hierarchical")], table.loc[(model, "estimate")]
        assert hier["n"] >= 200
        for c, level in ((50, 0.5), (90, 0.9), (95, 0.95)):
            assert abs(hier[f"coverage_{c}"] - level) <= 2 * hier[f"se_{c}"], (model, c, hier)
        # the raters' errors: smaller with the population, by more than the noise
        gap = fixed["rater_mae"] - hier["rater_mae"]
        assert gap > 3 * np.hypot(fixed["rater_mae_se"], hier["rater_mae_se"]), (model, gap)
        # alpha: no worse than with the fixed prior
        assert hier["rmse"] <= 1.1 * fixed["rmse"], model


# ----------------------------------------------------------------------------------------------
# the result says which prior it used
# ----------------------------------------------------------------------------------------------

def test_the_result_names_its_prior_and_reports_the_population():
    df, _ = simulate_crowd(5, alphas=[0.6], n_items=80, competence=[0.9, 0.8, 0.7, 0.85],
                           per_item=(2, 3))
    fixed = _quiet(fit_raters, "rating ~ metric", df, rater="annotator", item="item",
                   draws=200, chains=2, seed=1)
    hier = _quiet(fit_raters, "rating ~ metric", df, rater="annotator", item="item",
                  rater_rates="hierarchical", draws=200, chains=2, seed=1)
    assert fixed.to_frame().attrs["rater_rates"] == "estimate"
    assert "population" not in fixed.to_frame().attrs
    assert "Beta(2.0, 1.0)" in fixed.raters().attrs["method"]
    with pytest.raises(ParameterError, match="rater_rates='hierarchical'"):
        fixed.population()
    attrs = hier.to_frame().attrs
    assert attrs["rater_rates"] == "hierarchical" == hier.raters().attrs["rater_rates"]
    pop = hier.population()
    # the text in attrs carries the table's numbers
    assert f"{pop.loc[('0', '0'), 'estimate']:.3f}" in attrs["population"]
    assert f"{pop.loc[('1', '1'), 'concentration']:.3g}" in attrs["population"]
    assert list(pop.columns) == ["estimate", "std_error", "lower", "upper", "concentration",
                                 "concentration_lower", "concentration_upper", "rhat",
                                 "ess_bulk", "ess_tail"]
    # the rows of the population mean sum to one; the concentration's interval holds its median
    np.testing.assert_allclose(pop["estimate"].groupby(level="class").sum(), 1.0, atol=1e-9)
    assert (pop["concentration_lower"] <= pop["concentration"]).all()
    assert (pop["concentration"] <= pop["concentration_upper"]).all()
    # the summary: the population's table with its diagnostics, and the prior in words
    s = hier.summary()
    titles = [t for t, _ in s.tables]
    assert any("population" in t for t in titles)
    text = s.as_text()
    assert "rater_rates='hierarchical'" in text and "Normal(log 20, 1.5^2)" in text
    assert "rhat" in dict(s.tables)[titles[-1]].columns


def test_the_population_diagnostics_match_the_draws():
    df, _ = simulate_crowd(6, alphas=[0.5], n_items=80, competence=[0.9, 0.8, 0.7, 0.85],
                           per_item=(2, 3))
    fit = _quiet(fit_raters, "rating ~ metric", df, rater="annotator", item="item",
                 raters="mace", rater_rates="hierarchical", draws=200, chains=2, seed=1)
    pop = fit.population()
    rhat_m, ess_m, _ = diagnostics.summary(fit.draws.population_mean[..., 0, :1])
    rhat_c, ess_c, _ = diagnostics.summary(np.log(fit.draws.population_concentration))
    assert pop["rhat"].iloc[0] == pytest.approx(max(rhat_m[0], rhat_c[0]))
    assert pop["ess_bulk"].iloc[0] == pytest.approx(min(ess_m[0], ess_c[0]))


def test_a_fixed_rater_prior_and_the_population_are_refused_together():
    df, _ = simulate_crowd(5, alphas=[0.6], n_items=20, competence=[0.9, 0.8, 0.7],
                           per_item=(2, 3))
    with pytest.raises(ParameterError, match=r"rater_prior=\(3, 1\)"):
        fit_raters("rating ~ metric", df, rater="annotator", item="item",
                   rater_prior=(3, 1), rater_rates="hierarchical")
    with pytest.raises(ParameterError, match="rater_rates"):
        fit_raters("rating ~ metric", df, rater="annotator", item="item",
                   rater_rates="pooled")


def test_binned_ratings_learn_the_population_of_their_confusions():
    from binaryeval.raters._simulate import simulate_binned_crowd

    # twelve raters reading three classes alike: P(rating c | class c) = 0.8, 0.1 elsewhere
    good = np.full((3, 3), 0.1) + 0.7 * np.eye(3)
    df, _ = simulate_binned_crowd(0, shares=[[0.2, 0.3, 0.5], [0.5, 0.3, 0.2]], n_items=100,
                                  confusion=[good] * 12, per_item=(2, 3),
                                  metric=np.array([[0.8, 0.2], [0.5, 0.5], [0.2, 0.8]]))
    fit = _quiet(fit_raters, "rating ~ metric | system", df, rater="annotator", item="item",
                 rater_rates="hierarchical", draws=300, chains=2, seed=1)
    pop = fit.population()
    assert pop.shape[0] == 9
    for c in ("1", "2", "3"):
        row = pop.loc[(c, c)]
        assert row["lower"] <= 0.8 <= row["upper"], (c, row)
    np.testing.assert_allclose(pop["estimate"].groupby(level="class").sum(), 1.0, atol=1e-9)
