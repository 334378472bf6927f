"""The latent-truth sampler against exact answers.

K = J = 2 is the binary model, whose posterior of alpha ``binaryeval.alpha_posterior`` computes
exactly (a finite Beta mixture): the sampler's mean, sd and 2.5 / 97.5 % quantiles must agree
within 5 Monte-Carlo standard errors (from the bulk / tail ESS) on every setting, weak metrics
(rho + eta near 1.1), known rates, human-only ratings and the calibration design included.
QuaPy's BayesianCC (numpyro NUTS) is the independent implementation of the calibration design
(labelled items inform only the confusion matrix), for two and three classes.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import binaryeval as be
from binaryeval.latent import diagnostics, engine, latent_posterior

REF = Path(__file__).parent / "reference" / "latent"
TOL = 5.0  # Monte-Carlo standard errors

# (tp, fn, tn, fp, human_pos, human_total, metric_pos, metric_total)
ESTIMATE = {
    "typical": (96, 24, 64, 16, 0, 0, 5600, 10000),
    "weak_1.1_small": (55, 45, 55, 45, 0, 0, 520, 1000),
    "weak_1.1_large": (110, 90, 110, 90, 0, 0, 5200, 10000),
    "weak_1.2": (180, 120, 120, 80, 0, 0, 5200, 10000),
    "few_paired": (5, 1, 4, 2, 0, 0, 30, 100),
    "human_only_too": (10, 2, 8, 3, 30, 50, 300, 500),
    "many_human_only": (30, 10, 20, 10, 200, 400, 3000, 5000),
    "rare_class": (3, 0, 60, 7, 0, 0, 90, 1000),
}
KNOWN = {  # (human_pos, human_total, metric_pos, metric_total, rho, eta)
    "known_0.8_0.7": (40, 100, 600, 1000, 0.8, 0.7),
    "known_weak_1.1": (5, 10, 5200, 10000, 0.55, 0.55),
}
CALIBRATION = {  # the calibration design: QuaPy's E1, E4 and S2
    "E1_metric_only": (80, 20, 80, 20, 5200, 10000),
    "E4_weak_metric": (180, 120, 120, 80, 5200, 10000),
    "S2_synthetic_no_oracle": (92, 21, 64, 23, 5575, 10000),
}


def _binary_counts(tp, fn, tn, fp, hp, ht, k, m):
    return [[tn, fp], [fn, tp]], [ht - hp, hp], [m - k, k]


def _mcse(x: np.ndarray, exact, p_pdf):
    """Monte-Carlo standard errors of mean, sd and the 2.5/97.5 % quantiles of (chains, n)."""
    ess_b = diagnostics.ess_bulk(x)
    ess_t = diagnostics.ess_tail(x)
    flat = x.ravel()
    sd = flat.std()
    kurt = stats.kurtosis(flat, fisher=False)
    se_q = [np.sqrt(p * (1 - p) / ess_t) / p_pdf(exact.ppf(p)) for p in (0.025, 0.975)]
    return sd / np.sqrt(ess_b), sd * np.sqrt(max(kurt - 1.0, 0.1) / (4 * ess_b)), se_q


def _assert_matches(x: np.ndarray, exact, label: str):
    flat = x.ravel()
    se_mean, se_sd, se_q = _mcse(x, exact, exact.pdf)
    assert abs(flat.mean() - exact.mean()) < TOL * se_mean, (label, flat.mean(), exact.mean())
    assert abs(flat.std() - exact.std()) < TOL * se_sd, (label, flat.std(), exact.std())
    for p, se in zip((0.025, 0.975), se_q, strict=True):
        got, want = np.quantile(flat, p), exact.ppf(p)
        assert abs(got - want) < TOL * se, (label, p, got, want)
    assert diagnostics.rhat(x) < 1.01, label


def _sample(settings, **kw):
    counts = [_binary_counts(*c) for c in settings.values()]
    with warnings.catch_warnings():
        warnings.simplefilter("error", be.errors.ConvergenceWarning)
        return latent_posterior([c[0] for c in counts], [c[1] for c in counts],
                                [c[2] for c in counts], groups=list(settings), **kw)


def test_binary_model_equals_the_exact_engine():
    post = _sample(ESTIMATE, draws=1500, seed=11)
    for i, (name, (tp, fn, tn, fp, hp, ht, k, m)) in enumerate(ESTIMATE.items()):
        # the paired rows' human ratings inform alpha (the model's default)
        exact = be.alpha_posterior(hp + tp + fn, ht + tp + fn + tn + fp, k, m, tp, fn, tn, fp)
        _assert_matches(post.draws.pi[:, :, i, 1], exact, name)


def test_binary_model_with_priors_equals_the_exact_engine():
    # alpha ~ Beta(2, 3) is pi ~ Dirichlet(3, 2) over (class 0, class 1); rho, eta ~ Beta(2, 1)
    setting = {"priors": (40, 15, 30, 15, 10, 30, 2600, 5000)}
    post = _sample(setting, share_concentration=[3, 2], rate_concentration=[[2, 1], [1, 2]],
                   draws=1500, seed=12)
    tp, fn, tn, fp, hp, ht, k, m = setting["priors"]
    exact = be.alpha_posterior(hp + tp + fn, ht + tp + fn + tn + fp, k, m, tp, fn, tn, fp,
                               prior=(2, 3), rate_prior=(2, 1))
    _assert_matches(post.draws.pi[:, :, 0, 1], exact, "priors")


def test_known_rates_equal_the_exact_engine():
    counts = [([[0, 0], [0, 0]], [ht - hp, hp], [m - k, k]) for hp, ht, k, m, _, _ in
              KNOWN.values()]
    known = {name: [[eta, 1 - eta], [1 - rho, rho]]
             for name, (_, _, _, _, rho, eta) in KNOWN.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("error", be.errors.ConvergenceWarning)
        post = latent_posterior([c[0] for c in counts], [c[1] for c in counts],
                                [c[2] for c in counts], groups=list(KNOWN), rates=known,
                                draws=1500, seed=13)
    for i, (name, (hp, ht, k, m, rho, eta)) in enumerate(KNOWN.items()):
        exact = be.alpha_posterior(hp, ht, k, m, rho=rho, eta=eta)
        _assert_matches(post.draws.pi[:, :, i, 1], exact, name)


@pytest.fixture(scope="module")
def calibration_binary():
    counts = [([[tn, fp], [fn, tp]], [0, 0], [m - k, k]) for tp, fn, tn, fp, k, m in
              CALIBRATION.values()]
    with warnings.catch_warnings():
        warnings.simplefilter("error", be.errors.ConvergenceWarning)
        return latent_posterior([c[0] for c in counts], [c[1] for c in counts],
                                [c[2] for c in counts], groups=list(CALIBRATION),
                                paired_informs_pi=False, draws=1000, seed=14)


def test_calibration_design_equals_the_exact_engine(calibration_binary):
    for i, (name, (tp, fn, tn, fp, k, m)) in enumerate(CALIBRATION.items()):
        # the paired rows inform rho and eta only: no human ratings for alpha
        exact = be.alpha_posterior(0, 0, k, m, tp, fn, tn, fp)
        _assert_matches(calibration_binary.draws.pi[:, :, i, 1], exact, name)


def test_calibration_design_matches_quapy_bayesiancc_binary(calibration_binary):
    ref = json.loads((REF / "quapy_bayesiancc_binary.json").read_text())
    for case in ref["results"]:
        i = list(CALIBRATION).index(case["name"])
        tp, fn, tn, fp, k, m = CALIBRATION[case["name"]]
        assert case["labeled"] == [[tn, fp], [fn, tp]] and case["unlabeled"] == [m - k, k]
        x = calibration_binary.draws.pi[:, :, i, 1].ravel()
        # QuaPy's NUTS draws carry their own Monte-Carlo error (the reference's tolerances)
        assert abs(x.mean() - case["mean"]) < 0.002 + 3 * x.std() / np.sqrt(4000)
        assert abs(x.std() / case["sd"] - 1) < 0.02 + 0.02
        assert abs(np.quantile(x, 0.025) - case["q025"]) < 0.004 + 0.006
        assert abs(np.quantile(x, 0.975) - case["q975"]) < 0.004 + 0.006


def test_three_classes_match_quapy_bayesiancc():
    ref = json.loads((REF / "quapy_bayesiancc_3class.json").read_text())
    cases = ref["results"]
    # the weak design mixes slowly in the calibration design (bulk ESS about 150 of 4,000):
    # the tolerance follows the ESS, and the warning says so
    with pytest.warns(be.errors.ConvergenceWarning, match="K3_weak"):
            post = latent_posterior([c["labeled"] for c in cases],
                                metric=[c["unlabeled"] for c in cases],
                                groups=[c["name"] for c in cases], paired_informs_pi=False,
                                draws=1000, seed=15)
    for i, case in enumerate(cases):
        x = post.draws.pi[:, :, i]
        eb, et = diagnostics.ess_bulk(x), diagnostics.ess_tail(x)
        flat = x.reshape(-1, 3)
        sd = flat.std(axis=0)
        # both samplers' Monte-Carlo errors (QuaPy's ESS is stored with its summaries)
        se_mean = sd * np.sqrt(1 / eb + 1 / np.asarray(case["ess_bulk"]))
        np.testing.assert_array_less(np.abs(flat.mean(axis=0) - case["mean"]), TOL * se_mean)
        se_sd = sd * np.sqrt(1 / (2 * eb) + 1 / (2 * np.asarray(case["ess_bulk"])))
        np.testing.assert_array_less(np.abs(sd - case["sd"]), TOL * se_sd)
        dens = 0.058 / sd  # normal density at the 2.5 % quantile: phi(1.96) / sd
        se_q = np.sqrt(0.025 * 0.975 * (1 / et + 1 / np.asarray(case["ess_tail"]))) / dens
        for key, p in (("q025", 0.025), ("q975", 0.975)):
            np.testing.assert_array_less(np.abs(np.quantile(flat, p, axis=0) - case[key]),
                                         TOL * se_q)


def test_gradient_and_hessian_of_pi_given_theta():
    rng = np.random.default_rng(0)
    theta = rng.dirichlet(np.ones(4), size=(1, 2, 3))  # (C=1, G=2, K=3, J=4)
    a = np.array([[[2.0, 3.0, 1.5], [1.0, 4.0, 2.0]]])
    counts = np.array([[[30.0, 10.0, 5.0, 20.0], [0.0, 7.0, 40.0, 3.0]]])
    y = np.array([[[0.3, -0.2], [-0.5, 0.4]]])
    grad, hess = engine._grad_hess(y, a, counts, theta)
    h = 1e-5
    for d in range(2):
        e = np.zeros(2)
        e[d] = h
        f_plus = engine._log_target(y + e, a, counts, theta)
        f_minus = engine._log_target(y - e, a, counts, theta)
        np.testing.assert_allclose(grad[..., d], (f_plus - f_minus) / (2 * h), rtol=1e-6)
        g_plus, _ = engine._grad_hess(y + e, a, counts, theta)
        g_minus, _ = engine._grad_hess(y - e, a, counts, theta)
        np.testing.assert_allclose(hess[..., :, d], (g_plus - g_minus) / (2 * h), rtol=1e-5,
                                   atol=1e-6)


def test_seeds_reproduce_and_chains_do_not_depend_on_each_other():
    args = ([[40, 10], [5, 45]],)
    kw = dict(metric=[300, 700], draws=50, warmup=10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = latent_posterior(*args, seed=7, chains=2, **kw)
        b = latent_posterior(*args, seed=7, chains=2, **kw)
        c = latent_posterior(*args, seed=7, chains=3, **kw)
        d = latent_posterior(*args, seed=8, chains=2, **kw)
    np.testing.assert_array_equal(a.draws.pi, b.draws.pi)
    np.testing.assert_array_equal(a.draws.pi, c.draws.pi[:2])
    assert not np.array_equal(a.draws.pi, d.draws.pi)
