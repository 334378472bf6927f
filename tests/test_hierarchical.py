"""``rates="hierarchical"``: partial pooling of the groups' confusion matrices.

Numbers come from finite differences of the log density, the hyperprior itself (with no data
the draws are the prior's: log-normal concentration, uniform mean), the exact binary engine
with pooled rates (the limit of a huge concentration), and the saved simulation-based
calibration study (``studies/hierarchical_sbc.py``, Talts et al. 2018), one batch of which is
re-run from its seed.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import study_module
from reruns import assert_sbc_row_agrees
from scipy import special, stats

import binaryeval as be
from binaryeval.errors import ConvergenceWarning, FormulaError, ParameterError
from binaryeval.latent import diagnostics, fit_latent, fit_preferences, latent_posterior
from binaryeval.latent import hierarchical as hier
from binaryeval.plan import required_sample_size

ROOT = Path(__file__).resolve().parents[1]
SBC_CSV = ROOT / "vignettes" / "data" / "hierarchical_sbc.csv"


def _frame(seed=0, n=400, rated=100, systems=(("A", 0.7, 0.85, 0.8), ("B", 0.55, 0.8, 0.75),
                                              ("C", 0.4, 0.75, 0.85))):
    """Three systems: alpha, rho, eta each; a 0/1 human rating on the first ``rated`` rows."""
    rng = np.random.default_rng(seed)
    rows = []
    for system, alpha, rho, eta in systems:
        truth = rng.random(n) < alpha
        metric = np.where(truth, rng.random(n) < rho, rng.random(n) > eta)
        rows.append(pd.DataFrame({"system": system, "metric": metric.astype(int),
                                  "human": np.where(np.arange(n) < rated, truth, np.nan),
                                  "score": truth + rng.normal(0, 0.8, n)}))
    return pd.concat(rows, ignore_index=True)


@pytest.fixture(scope="module")
def df():
    return _frame()


@pytest.fixture()
def short_warmup(monkeypatch):
    """The argument walk checks routing, not accuracy: a short default warm-up."""
    monkeypatch.setattr(hier, "WARMUP", 150)


def _quiet(func, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return func(*args, **kw)


# ----------------------------------------------------------------------------------------------
# the target
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("g, k, j, informs", [(3, 2, 2, True), (4, 3, 3, True),
                                              (2, 3, 2, False)])
def test_gradient_matches_finite_differences(g, k, j, informs):
    rng = np.random.default_rng(0)
    b, c = 2, 2
    counts = [rng.integers(0, 20, (b, g, k, j)), rng.integers(0, 5, (b, g, k)),
              rng.integers(0, 50, (b, g, j)), np.ones((b, g, k))]
    target = hier._Joint(*(hier._units(x, c) for x in counts), informs, hier.Hyperprior())
    y = rng.normal(size=(target.dim, b * c))
    _, grad = target(y)
    h = 1e-6
    numeric = np.empty_like(y)
    for i in range(target.dim):
        e = np.zeros_like(y)
        e[i] = h
        numeric[i] = (target(y + e)[0] - target(y - e)[0]) / (2 * h)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-5)
    # the coordinates and the state are each other's inverse
    np.testing.assert_allclose(target.coordinates(*target.state(y)), y, atol=1e-10)


@pytest.mark.slow
def test_with_no_data_the_draws_are_the_prior():
    # zero counts: the posterior is the prior, log c ~ Normal(log 20, 1.5), m ~ Dirichlet(1, 1)
    # (mean 1/2, sd sqrt(1/12)), rows Theta_g ~ Dirichlet(c m) (mean 1/2), pi ~ Dirichlet(1, 1)
    z = np.zeros
    with np.errstate(all="ignore"):
        out = hier.sample_batch(z((6, 3, 2, 2)), z((6, 3, 2)), z((6, 3, 2)), np.ones((6, 3, 2)),
                                draws=600, chains=2, warmup=600, seed=11)
    log_c = np.log(out.concentration)
    assert abs(log_c.mean() - np.log(20)) < 0.25
    assert abs(log_c.std() - 1.5) < 0.15
    assert abs(out.mean[..., 0].mean() - 0.5) < 0.04
    assert abs(out.mean[..., 0].std() - np.sqrt(1 / 12)) < 0.03
    assert abs(float(out.theta[..., 0].mean()) - 0.5) < 0.04
    assert abs(out.pi[..., 0].std() - np.sqrt(1 / 12)) < 0.03


#: paired items of four groups whose rates differ (observed rho from 0.47 to 0.91): the data of
#: the tests against the exact posterior of the population level
EXACT_PAIRED = np.array([[[18, 4], [3, 15]], [[12, 9], [2, 20]], [[25, 2], [9, 8]],
                         [[9, 1], [6, 19]]])
#: the binary rows checked: rho's population mean (m_1[1]) and eta's (m_0[0])
EXACT_ROWS = [(1, 1), (0, 0)]


def _population_grid(counts, hyper):
    """The exact log posterior of ``m`` (the population mean of one binary row's rate) and
    ``log c`` given paired items only: each group's rate integrates out in closed form (a
    beta-binomial), leaving a two-dimensional density over ``(m, log c)``, here on a grid of
    800 x 561 midpoints (``m`` uniform, ``log c`` within 7 sd of its prior mean).  ``counts``:
    per group, (items where the metric agrees with the row's class, the others).  Returns the
    grid's ``m``, its ``log c`` and the log density on it (up to a constant).
    """
    m = (np.arange(800) + 0.5) / 800
    z = hyper.loc + hyper.scale * np.linspace(-7, 7, 561)
    mm, zz = np.meshgrid(m, z, indexing="ij")
    a, b = np.exp(zz) * mm, np.exp(zz) * (1 - mm)
    lp = -0.5 * ((zz - hyper.loc) / hyper.scale) ** 2
    prior_norm = special.betaln(a, b)
    for hit, miss in counts:
        lp = lp + special.betaln(hit + a, miss + b) - prior_norm
    return m, z, lp


@pytest.fixture(scope="module")
def exact_grids():
    """The grid of every checked row of ``EXACT_PAIRED``, computed once for the tests."""
    return {(row, col): _population_grid([(p[row, col], p[row, 1 - col]) for p in EXACT_PAIRED],
                                         hier.HYPERPRIOR)
            for row, col in EXACT_ROWS}


def _exact_population(grid, probs):
    """Quantiles ``probs`` of ``m`` and of ``log c`` under the grid's exact posterior."""
    m, z, lp = grid
    w = np.exp(lp - lp.max())
    w /= w.sum()
    return (np.interp(probs, np.cumsum(w.sum(axis=1)), m + 0.5 / 800),
            np.interp(probs, np.cumsum(w.sum(axis=0)), z))


@pytest.mark.slow
def test_the_population_level_is_its_exact_posterior(exact_grids):
    # Binary rows and paired items only: the posterior of each row's population mean and log
    # concentration is a two-dimensional integral (the groups' rates are beta-binomial given
    # them), computed independently of the sampler.  The sampler's draws must fall below the
    # exact 2.5, 25, 50, 75 and 97.5 % points in those shares, within four Monte Carlo sd at
    # an effective sample size of 2,000 (measured: 4,600 to 6,200 of the 8,000 draws).  A
    # wrong Jacobian of the non-centred rows, of log c or of the mean's log-ratios, or a
    # sampler that misses the tails, moves these shares by more.  Four groups whose rates
    # differ (observed rho from 0.47 to 0.91): the population level is learnt, not the prior.
    paired = EXACT_PAIRED
    nb = 4  # the same data set four times: 16 chains
    zeros = np.zeros
    with np.errstate(all="ignore"):
        out = hier.sample_batch(np.broadcast_to(paired, (nb, 4, 2, 2)), zeros((nb, 4, 2)),
                                zeros((nb, 4, 2)), np.ones((nb, 4, 2)), draws=500, chains=4,
                                warmup=1000, seed=3)
    probs = np.array([0.025, 0.25, 0.5, 0.75, 0.975])
    tol = 4 * np.sqrt(probs * (1 - probs) / 2000)
    for row, col in EXACT_ROWS:
        q_mean, q_log_c = _exact_population(exact_grids[row, col], probs)
        for x, q in [(out.mean[..., row, col], q_mean),
                     (np.log(out.concentration[..., row]), q_log_c)]:
            share = (x.ravel()[:, None] < q).mean(axis=0)
            assert (np.abs(share - probs) <= tol).all(), (row, share, q)


def test_normalise_is_scipys_log_sum_exp_to_the_last_bit():
    # the centred sweep's log-normalisation writes out scipy's logsumexp for real input (the
    # steps that apply to exp of reals): the same bits, with -inf, +inf and NaN terms, ties at
    # the top and terms 800 apart, along every axis
    rng = np.random.default_rng(0)
    x = rng.normal(0, 30, (6, 3, 50))
    x[0, 1] = -np.inf
    x[1, :, 2] = 5.0
    x[2, 0, 3] = 800.0
    x[3, :, 4] = -np.inf
    x[4, 0, 5] = np.inf
    x[4, :, 7] = np.inf
    x[5, 1, 6] = np.nan
    for axis in (0, 1, 2):
        with np.errstate(all="ignore"):
            want = x - special.logsumexp(x, axis=axis, keepdims=True)
            np.testing.assert_array_equal(hier._normalise(x, axis), want)


def _sweeps(target, y, sweeps, seed):
    """``sweeps`` centred Gibbs sweeps alone (no Hamiltonian move, step sizes as at start)."""
    step = hier._Centred(target, y.shape[1])
    rngs = [np.random.default_rng(seed)]
    for _ in range(sweeps):
        y = step.update(y, rngs, y.shape[1], adapting=False)
    return y


@pytest.mark.parametrize("k", [2, 3])
def test_the_centred_sweep_keeps_the_prior(k):
    # With no data the posterior is the prior.  Start 4,000 independent units at exact prior
    # draws (log c ~ Normal(log 20, 1.5^2), m ~ Dirichlet(1), rows ~ Dirichlet(c m), shares ~
    # Dirichlet(1)); after sweeps that leave the posterior invariant they are still prior
    # draws, independent across units: Kolmogorov-Smirnov against the exact marginals (log c
    # normal, m_k[0] Beta(1, J - 1)) and a row's mean against E Theta = 1 / J.  A wrong
    # conditional of the population level (a missing Jacobian, the hyperprior counted twice)
    # or of the rows moves them within a few sweeps.
    g, u = 3, 4000
    hp = hier.HYPERPRIOR
    rng = np.random.default_rng(5)
    z = np.zeros
    target = hier._Joint(z((g, k, k, u)), z((g, k, u)), z((g, k, u)), np.ones((g, k, u)), True,
                         hp)
    log_c = rng.normal(hp.loc, hp.scale, (k, u))
    m = np.moveaxis(rng.dirichlet(np.ones(k), (k, u)), 1, 2)  # (K, J, U)
    theta = np.empty((g, k, k, u))
    for i in range(u):
        for row in range(k):
            theta[:, row, :, i] = rng.dirichlet(np.exp(log_c[row, i]) * m[row, :, i], g)
    pi = np.moveaxis(rng.dirichlet(np.ones(k), (g, u)), 1, 2)
    y = target.coordinates(pi, np.maximum(theta, 1e-300), m, np.exp(log_c))
    with np.errstate(all="ignore"):
        pi, theta, m, c = target.state(_sweeps(target, y, 5, seed=1))
    for row in range(k):
        assert stats.kstest(np.log(c[row]), stats.norm(hp.loc, hp.scale).cdf).pvalue > 1e-3
        assert stats.kstest(m[row, 0], stats.beta(1, k - 1).cdf).pvalue > 1e-3
    assert stats.kstest(pi[0, 0], stats.beta(1, k - 1).cdf).pvalue > 1e-3
    # Theta_g[k, 0] has mean 1 / J and sd below 1 / 2: within 4 sd of the mean of 4,000
    assert abs(theta[:, :, 0].mean() - 1 / k) < 4 * 0.5 / np.sqrt(u)


def test_the_centred_sweep_keeps_the_exact_population_posterior(exact_grids):
    # Binary rows and paired items only (the data of the exact-posterior test above): draw
    # 4,000 independent units from the exact posterior (the population level from its grid,
    # within a grid cell uniformly; each group's rate from its Beta given the population; the
    # shares from their Dirichlet), take sweeps, and check that the draws of the population
    # mean and log concentration still fall below the exact 2.5 to 97.5 % points in those
    # shares, within four binomial sd at 4,000 independent draws.
    paired = EXACT_PAIRED.astype(float)
    g, u = 4, 4000
    hp = hier.HYPERPRIOR
    rng = np.random.default_rng(8)
    z = np.zeros
    target = hier._Joint(np.repeat(paired[..., None], u, axis=-1), z((g, 2, u)), z((g, 2, u)),
                         np.ones((g, 2, u)), True, hp)
    m, log_c = np.empty((2, 2, u)), np.empty((2, u))
    theta = np.empty((g, 2, 2, u))
    for row, col in EXACT_ROWS:
        hit, miss = paired[:, row, col], paired[:, row, 1 - col]
        grid_m, grid_z, lp = exact_grids[row, col]
        dz = grid_z[1] - grid_z[0]
        w = np.exp(lp - lp.max()).ravel()
        cell = rng.choice(w.size, size=u, p=w / w.sum())
        mean = grid_m[cell // 561] + (rng.random(u) - 0.5) / 800
        log_c[row] = grid_z[cell % 561] + (rng.random(u) - 0.5) * dz
        c = np.exp(log_c[row])
        m[row, col], m[row, 1 - col] = mean, 1 - mean
        rate = rng.beta(c * mean + hit[:, None], c * (1 - mean) + miss[:, None])  # (G, U)
        theta[:, row, col], theta[:, row, 1 - col] = rate, 1 - rate
    pi = np.moveaxis(np.stack([rng.dirichlet(1 + paired[i].sum(axis=1), u) for i in range(g)]),
                     1, 2)
    y = target.coordinates(pi, theta, m, np.exp(log_c))
    with np.errstate(all="ignore"):
        _, _, m, c = target.state(_sweeps(target, y, 5, seed=2))
    probs = np.array([0.025, 0.25, 0.5, 0.75, 0.975])
    tol = 4 * np.sqrt(probs * (1 - probs) / u)
    for row, col in EXACT_ROWS:
        q_mean, q_log_c = _exact_population(exact_grids[row, col], probs)
        for x, q in [(m[row, col], q_mean), (np.log(c[row]), q_log_c)]:
            share = (x[:, None] < q).mean(axis=0)
            assert (np.abs(share - probs) <= tol).all(), (row, share, q)


@pytest.mark.slow
def test_a_huge_concentration_is_the_pooled_model(df):
    # with the hyperprior fixed near c = 1e5 the groups' rows are one matrix (between-group sd
    # about 0.002) with a uniform prior: the per-group sampler's rates="pooled" (data
    # augmentation for the one matrix, an independent implementation of that model)
    groups = sorted(df["system"].unique())
    paired = np.zeros((3, 2, 2))
    metric = np.zeros((3, 2))
    for i, gname in enumerate(groups):
        sub = df[df["system"] == gname]
        rated = sub["human"].notna()
        for h in (0, 1):
            for m in (0, 1):
                paired[i, h, m] = ((sub["human"] == h) & (sub["metric"] == m)).sum()
        metric[i] = np.bincount(sub.loc[~rated, "metric"], minlength=2)
    pooled = _quiet(latent_posterior, paired, None, metric, rates="pooled", draws=2000,
                    seed=2).draws.pi[..., 1]
    with np.errstate(all="ignore"):
        out = hier.sample_batch(paired[None], np.zeros((1, 3, 2)), metric[None],
                                np.ones((1, 3, 2)), draws=800, chains=4, warmup=600, seed=3,
                                hyper=hier.Hyperprior(loc=float(np.log(1e5)), scale=0.01))
    alpha = out.pi[:, :, 0, :, 1]  # (chains, draws, G)
    _, ess, _ = diagnostics.summary(alpha)
    _, ess_pooled, _ = diagnostics.summary(pooled)
    for i in range(3):
        got, want = alpha[..., i].ravel(), pooled[..., i].ravel()
        mc = np.hypot(got.std() / np.sqrt(ess[i]), want.std() / np.sqrt(ess_pooled[i]))
        assert abs(got.mean() - want.mean()) < 5 * mc
        assert got.std() == pytest.approx(want.std(), rel=0.1)


# ----------------------------------------------------------------------------------------------
# the fit protocol through be.fit
# ----------------------------------------------------------------------------------------------

def test_the_binary_model_with_hierarchical_rates_answers_the_fit_protocol(df, short_warmup):
    fit = _quiet(be.fit, "human ~ metric | system", df, rates="hierarchical", draws=300,
                 chains=2, seed=5)
    assert isinstance(fit, be.LatentFit) and fit.latent.rates == "hierarchical"
    assert fit.latent.warmup == 150  # the default warm-up of rates="hierarchical"
    frame = fit.to_frame()
    assert list(frame.index) and frame.index.name == "system"
    for col in ("n_human", "n_paired", "n_metric", "estimate", "lower", "upper", "rhat",
                "ess_bulk"):
        assert col in frame.columns
    assert frame.attrs["rates"] == "hierarchical"
    # every row a group: the interval holds the estimate; the naive shares are the metric's
    assert ((frame["lower"] <= frame["estimate"]) & (frame["estimate"] <= frame["upper"])).all()
    naive = df.groupby("system")["metric"].mean()
    np.testing.assert_allclose(fit.naive()["estimate"].loc[naive.index], naive, rtol=1e-12)
    comp = fit.compare().to_frame()
    assert len(comp) == 3 and {"diff", "lower", "upper", "prob_greater"} <= set(comp.columns)
    assert len(fit.plan().to_frame()) >= 1
    rates = fit.rates()
    assert len(rates) == 3 * 4 and rates.attrs["rates"] == "hierarchical"
    # rows of each group's matrix sum to 1 in every draw
    np.testing.assert_allclose(fit.latent.draws.theta.sum(axis=-1), 1.0, atol=1e-5)
    text = str(fit.summary())
    assert "partially pooled" in text and "population" in text
    pop = fit.latent.population()
    assert pop.shape == (4, 7) and pop.index.names == ["class", "metric_output"]
    np.testing.assert_allclose(pop["estimate"].groupby(level="class").sum(), 1.0, atol=1e-9)
    assert (pop["concentration_lower"] <= pop["concentration"]).all()
    assert (pop["concentration"] <= pop["concentration_upper"]).all()
    # seeded: the same seed gives the same draws
    again = _quiet(be.fit, "human ~ metric | system", df, rates="hierarchical", draws=300,
                   chains=2, seed=5)
    np.testing.assert_array_equal(again.latent.draws.pi, fit.latent.draws.pi)


def test_the_other_arguments_of_fit_are_honoured_on_this_path(df, short_warmup):
    # level, order, prior, seed, draws, chains, eval_env (the walk of test_latent_protocol.py
    # for this path; threshold, method, grid, rate_prior, dependence are refused below)
    fit = _quiet(be.fit, "human ~ I(metric > cut) | system", df, rates="hierarchical",
                 level=0.9, order=["C", "A", "B"], prior=(5, 2), draws=120, chains=3, seed=7,
                 eval_env={"cut": 0.5})
    assert fit.to_frame().attrs["level"] == 0.9 and fit.compare().level == 0.9
    assert list(fit.to_frame().index) == ["C", "A", "B"]
    assert tuple(map(float, fit.prior)) == (5.0, 2.0)
    assert fit.latent.share_concentration.tolist() == [2.0, 5.0]  # Beta(5, 2) on adequate
    assert (fit.latent.seed, fit.latent.n_draws, fit.latent.n_chains) == (7, 120, 3)
    naive = (df["metric"] > 0.5).groupby(df["system"]).mean()
    np.testing.assert_allclose(fit.naive()["estimate"].loc[naive.index], naive, rtol=1e-12)
    with pytest.raises(ParameterError, match="lower_is_better"):
        be.fit("human ~ metric | system", df, rates="hierarchical", lower_is_better="metric")


def test_bins_several_metrics_and_preferences_take_hierarchical_rates(df, short_warmup):
    kw = {"draws": 100, "chains": 2, "seed": 1, "rates": "hierarchical"}
    binned = _quiet(be.fit, "human ~ score | system", df, bins=3, **kw)
    assert binned.latent.draws.theta.shape[2:] == (3, 2, 3)
    assert binned.latent.draws.mean.shape[2:] == (2, 3)
    scores = _frame_scores()
    pref = _quiet(fit_preferences, "hum ~ met | sys", scores, item="seg", **kw)
    assert pref.latent.rates == "hierarchical" and pref.latent.population().shape == (9, 7)
    assert "partially pooled" in str(pref.summary())


def _frame_scores(seed=0, items=120, rated=40):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        for s, q in {"A": 0.4, "B": 0.0, "C": -0.3}.items():
            h = np.round(q + rng.normal(), 0)
            rows.append({"seg": i, "sys": s, "hum": h if i < rated else np.nan,
                         "met": q + rng.normal(0, 0.8)})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("kw, match", [
    ({"threshold": 0.5}, r"threshold=0\.5.*rates='hierarchical'"),
    ({"method": "grid"}, r"method='grid'.*rates='hierarchical'"),
    ({"grid": (200, 50, 50)}, r"grid=.*rates='hierarchical'"),
    ({"rate_prior": (5, 1)}, r"rate_prior=\(5, 1\).*population Beta"),
    ({"dependence": "independent"}, r"dependence='independent'"),
])
def test_arguments_that_have_no_meaning_are_refused_naming_them(df, kw, match):
    with pytest.raises(ParameterError, match=match):
        be.fit("human ~ metric | system", df, rates="hierarchical", **kw)


def test_other_entries_refuse_hierarchical_rates_with_the_fix(df):
    with pytest.raises(ParameterError, match="rate_concentration=2.*population Dirichlet"):
        fit_latent("human ~ metric + score | system", df, bins={"score": 2},
                   rates="hierarchical", rate_concentration=2.0)
    with pytest.raises(ParameterError, match="dependence='joint'"):
        fit_latent("human ~ metric + score | system", df, bins={"score": 2},
                   rates="hierarchical", dependence="independent")
    with pytest.raises(ParameterError, match="latent-truth sampler"):
        be.fit_counts({"human_pos": 10, "human_total": 20, "metric_pos": 50,
                       "metric_total": 100, "tp": 9, "fn": 2, "tn": 6, "fp": 3},
                      rates="hierarchical")
    with pytest.raises(ParameterError, match="plan with rates='estimate'"):
        required_sample_size(0.05, alpha=0.6, rho=0.8, eta=0.8, rates="hierarchical")
    post = _quiet(latent_posterior, [[40, 10], [5, 45]], metric=[300, 700], draws=100,
                  chains=2, seed=1)
    with pytest.raises(ParameterError, match="refit with rates='hierarchical'"):
        post.population()


# ----------------------------------------------------------------------------------------------
# simulation-based calibration (the saved study and one batch re-run)
# ----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def study():
    return study_module("hierarchical_sbc")


@pytest.fixture(scope="module")
def saved():
    return pd.read_csv(SBC_CSV)


#: data sets per design in the saved study (the issue asks for 500; the run is resumable)
N_SAVED = 500
CELLS = [(d, q) for d in ("binary_equal", "binary_unequal", "3x3_equal", "3x3_unequal")
         for q in ("share", "rate", "mean", "log_concentration")]


def test_the_saved_study_covers_within_two_standard_errors(study, saved):
    """The criterion: coverage of the central 50, 90 and 95 % intervals within two binomial
    standard errors of the level, read as a calibrated sampler reads it over many cells.

    Over 4 designs x 4 quantities x 3 levels = 48 coverages a calibrated sampler puts each one
    outside two standard errors with probability about 0.05 (2.4 of 48 expected; all 48 inside
    happens only 8 % of the time).  So: no coverage beyond 3.1 standard errors (a two-sided
    5 % test of all 48 at once, Bonferroni), and at most 6 outside two (the 99 % point of
    Binomial(48, 0.05)).  The saved study's coverages and how many fall outside are printed
    by the study and in the WMT21 binary vignette; the population level's posterior is also
    checked directly (the exact posterior above; an independent Gibbs sampler,
    studies/hierarchical_crosscheck.py).
    """
    table = study.summarise(saved).set_index(["design", "quantity"])
    assert sorted(table.index) == sorted(CELLS)
    assert (table.n >= N_SAVED).all(), table.n
    z = []
    for level in (50, 90, 95):
        p = level / 100
        z.append((table[f"coverage_{level}"] - p) / np.sqrt(p * (1 - p) / table.n))
    z = pd.concat(z, axis=1, keys=(50, 90, 95))
    assert (z.abs() <= 3.1).all().all(), z.round(2)
    outside = int((z.abs() > 2).sum().sum())
    assert outside <= stats.binom.ppf(0.99, 48, 0.05) == 6, z.round(2)
    # the summary's own flags agree with the standard errors computed here
    flags = table[[f"within_2se_{lv}" for lv in (50, 90, 95)]].to_numpy()
    np.testing.assert_array_equal(~flags, (z.abs() > 2).to_numpy())


def test_the_saved_study_ranks_are_uniform(study, saved):
    # ranks of the truth among 499 draws, 20 bins: Pearson's chi-square p > 0.01 everywhere
    table = study.summarise(saved)
    assert set(zip(table.design, table.quantity, strict=True)) == set(CELLS)
    assert (table.rank_p_value > 0.01).all(), table[["design", "quantity", "rank_p_value"]]


def test_the_saved_study_fits_are_free_of_convergence_warnings(study, saved):
    # A fit is flagged when a quantity's R-hat (rank-normalised, split) is above 1.01 or its
    # bulk or tail effective sample size below 400 from 4 chains of 500 draws (the study's
    # ``flagged``, the thresholds of the fit's ConvergenceWarning).  A fit flagged in several
    # quantities is counted in each, so the sum over quantities bounds the flagged fits from
    # above.  At least 99 % of the study's fits free of warnings, and at most 2 % flagged in
    # any design, the groups' rates far apart included (with the Hamiltonian moves alone,
    # without the centred sweeps: 14.8 to 54 % of the fits in the unequal designs).
    table = study.summarise(saved)
    assert set(zip(table.design, table.quantity, strict=True)) == set(CELLS)
    per_batch = saved.groupby(["design", "batch"]).agg(n=("n", "first"),
                                                        flagged=("n_flagged", "sum"))
    bound = np.minimum(per_batch.flagged, per_batch.n)
    assert bound.sum() <= 0.01 * per_batch.n.sum(), bound.sum()
    by_design = bound.groupby("design").sum() / per_batch.n.groupby("design").sum()
    assert (by_design <= 0.02).all(), by_design


@pytest.mark.slow
def test_a_batch_reproduces_the_saved_one(study, saved):
    design = next(d for d in study.DESIGNS if d.name == "binary_unequal")
    rerun = study.run_batch(design, 0)
    for _, row in rerun.iterrows():
        match = saved[(saved.design == row.design) & (saved.batch == row.batch)
                      & (saved.quantity == row.quantity)]
        assert len(match) == 1
        assert_sbc_row_agrees(row, match.iloc[0])


def test_summary_title_names_what_the_rates_come_from(short_warmup):
    # One binary metric under rates="hierarchical" goes through the latent path; its summary
    # must not claim several metrics (the title once did).  The title does not depend on the
    # draws: the short warm-up of the routing tests.
    rng = np.random.default_rng(3)
    n = 240
    system = np.repeat(["A", "B"], n // 2)
    truth = rng.random(n) < np.where(system == "A", 0.7, 0.4)
    metric = np.where(truth, rng.random(n) < 0.8, rng.random(n) < 0.3).astype(int)
    human = np.where(np.arange(n) % 2 == 0, truth.astype(float), np.nan)
    df = pd.DataFrame({"system": system, "human": human, "metric": metric})
    res = _quiet(be.fit, "human ~ metric | system", df, rates="hierarchical", draws=100,
                 chains=2, seed=1)
    assert res.summary().title == "Latent-truth model: rate of adequate outputs from one metric"


def test_partial_pooling_without_a_metric_names_what_was_asked():
    # Guards: rates="hierarchical" on "human ~ 1" blamed dependence= and bins=, which were not
    # given
    df = pd.DataFrame({"system": list("AB") * 50, "human": np.tile([0, 1, 1, np.nan], 25)})
    with pytest.raises(FormulaError, match=r"^rates='hierarchical' needs a metric") as info:
        be.fit("human ~ 1 | system", df, rates="hierarchical", seed=1)
    assert "bins=" not in str(info.value) and "dependence=" not in str(info.value)
    with pytest.raises(FormulaError, match=r"^bins= needs a metric"):
        be.fit("human ~ 1 | system", df, bins=3, seed=1)


def test_one_group_says_there_is_no_population_to_learn(df, monkeypatch):
    # with one group the concentration's posterior is near its hyperprior (one matrix says
    # little about how alike groups are): log c ~ Normal(log 20, 1.5^2)
    monkeypatch.setattr(hier, "WARMUP", 60)
    one = df[df["system"] == "A"]
    fit = _quiet(be.fit, "human ~ metric | system", one, rates="hierarchical", draws=200,
                 chains=2, seed=3)
    log_c = np.log(fit.latent.draws.concentration).ravel()
    assert log_c.mean() == pytest.approx(np.log(20.0), abs=0.45)
    assert log_c.std() == pytest.approx(1.5, rel=0.25)
    text = str(fit.summary())
    assert "with one group there is no population to learn" in text
    assert "rates='estimate'" in text
    many = _quiet(be.fit, "human ~ metric | system", df[df["system"] != "C"],
                  rates="hierarchical", draws=20, chains=2, seed=3)
    assert "no population to learn" not in str(many.summary())


def test_a_lower_is_better_score_without_bins_is_told_to_bin_it(df):
    # a scalar score (400 x 3 distinct values) has a direction; the fix is bins=, not the
    # flip I(1 - score) of a 0/1 metric
    with pytest.raises(ParameterError, match=r"'score' is a score \(1200 distinct values\).*"
                                             r"bins=\{'score': 5\}"):
        be.fit("human ~ score | system", df, rates="hierarchical", lower_is_better="score")
    with pytest.raises(ParameterError, match=r"I\(1 - metric\)"):
        be.fit("human ~ metric | system", df, rates="hierarchical", lower_is_better="metric")
