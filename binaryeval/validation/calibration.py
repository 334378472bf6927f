"""Simulation-based calibration of the alpha posterior and of its peer intervals.

The building blocks of the calibration study (``studies/calibration.py`` runs the full,
seeded version; ``tests/test_calibration.py`` a small one).  Data are drawn from the model the
posterior assumes, as sufficient statistics:

- ``n_human`` outputs of the target system are rated by a human and by the metric (paired rows);
  their human ratings count for ``alpha`` and their confusion counts for ``rho``/``eta``;
- ``n_metric`` further outputs are rated by the metric only; each is adequate with probability
  ``alpha`` and rated positive with probability ``rho`` if adequate, ``1 - eta`` if not;
- with ``rates="pooled"`` the metric's rates are estimated from the paired rows of the target
  system *and* of further systems (``other_alphas``, each with ``n_human`` paired rows), as when
  one metric is validated once and applied to several systems.  ``other_rates`` gives those
  systems different rates (the misspecified case of :func:`misspecification_replicate`).

Two designs:

``"sbc"`` (simulation-based calibration, Talts et al. 2018, arXiv:1804.06788)
    ``alpha ~ Beta(1, 1)`` and ``rho, eta ~ Beta(rate_prior)`` are drawn for every replicate and the
    posterior is computed with those same priors.  Then the posterior CDF at the true ``alpha`` is
    exactly uniform, every equal-tailed credible interval covers with exactly its level, and the
    rank of the true value among ``L`` posterior draws is uniform on ``0..L``.
``"fixed"`` (frequentist coverage)
    ``alpha``, ``rho``, ``eta`` are held at the setting's values and the posterior uses the default
    flat priors.  Coverage is then only approximately nominal (a Bayesian interval is not a
    confidence interval), and the peer intervals can be computed on identical data.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import asdict, dataclass, field

import numpy as np

from .. import _validate
from .._lazy import stats
from ..binary.engine import alpha_posterior
from ..errors import CountsError, ParameterError
from .peers import acc_interval, classical_interval, ppi_interval

__all__ = [
    "LEVELS",
    "METHODS",
    "Setting",
    "coverage_region",
    "draw_counts",
    "fixed_replicate",
    "misspecification_replicate",
    "rank_histogram",
    "replicate_seed",
    "sbc_replicate",
]

#: interval levels studied
LEVELS = (0.5, 0.8, 0.95)
#: methods compared in the fixed design (ours first)
METHODS = ("posterior", "wald", "wilson", "clopper_pearson", "ppi", "ppi_pp", "acc")
#: posterior draws per SBC replicate (ranks take the values 0..SBC_DRAWS)
SBC_DRAWS = 99


@dataclass(frozen=True)
class Setting:
    """One simulation setting.

    Parameters
    ----------
    name : str
        Short identifier (also seeds the replicates, see :func:`replicate_seed`).
    alpha, rho, eta : float
        True rate of adequate outputs of the target system and the metric's true-positive and
        true-negative rates (fixed design).
    n_human : int
        Paired rows (human and metric) of the target system (and of each other system).
    n_metric : int
        Metric-only rows of the target system.
    rates : {"estimate", "pooled"}
        Whether the metric's rates are estimated from the target's paired rows only or from the
        paired rows of all systems.
    other_alphas : tuple of float
        ``alpha`` of the further systems whose paired rows are pooled (fixed design; in the SBC
        design they are drawn from ``Beta(1, 1)``).
    rate_prior : (float, float)
        ``Beta`` prior of ``rho`` and ``eta`` in the SBC design (drawn from and used in the fit).

    Examples
    --------
    >>> from binaryeval.validation import Setting
    >>> Setting("S01", alpha=0.6, rho=0.8, eta=0.8, n_human=100, n_metric=1000).rates
    'estimate'
    """

    name: str
    alpha: float
    rho: float
    eta: float
    n_human: int
    n_metric: int
    rates: str = "estimate"
    other_alphas: tuple[float, ...] = ()
    rate_prior: tuple[float, float] = (1.0, 1.0)
    other_rates: tuple[tuple[float, float], ...] | None = field(default=None)

    def __post_init__(self):
        for name in ("alpha", "rho", "eta"):
            _validate.probability(getattr(self, name), name)
        for name in ("n_human", "n_metric"):
            _validate.count(getattr(self, name), name, maximum=None)
        for a in self.other_alphas:
            _validate.probability(a, "other_alphas")
        _validate.beta_pair(self.rate_prior, "rate_prior")
        if self.rates not in ("estimate", "pooled"):
            raise ParameterError(f"rates={self.rates!r}: use 'estimate' or 'pooled'")
        if self.rates == "pooled" and not self.other_alphas:
            raise ParameterError("rates='pooled' needs other_alphas (the systems whose paired "
                                 "rows are pooled)")
        if self.other_rates is not None and len(self.other_rates) != len(self.other_alphas):
            raise ParameterError(f"other_rates has {len(self.other_rates)} entries for "
                                 f"{len(self.other_alphas)} other systems; give one (rho, eta) "
                                 "per system")

    def as_dict(self) -> dict:
        """Plain dict (tuples kept) for records.

        Returns
        -------
        dict

        Examples
        --------
        >>> from binaryeval.validation import Setting
        >>> Setting("S01", 0.6, 0.8, 0.8, 100, 1000).as_dict()["n_metric"]
        1000
        """
        return asdict(self)


def replicate_seed(base_seed: int, setting: str, design: str, rep: int) -> np.random.Generator:
    """Generator for one replicate, independent of how replicates are split across workers."""
    key = zlib.crc32(f"{setting}/{design}".encode())
    return np.random.default_rng([int(base_seed), key, int(rep)])


def draw_counts(rng: np.random.Generator, alpha: float, rho: float, eta: float, n_human: int,
                n_metric: int) -> dict[str, int]:
    """Sufficient statistics of one system drawn from the model.

    Returns ``human_pos`` (human positives among the paired rows), ``tp, fn, tn, fp`` and
    ``metric_pos`` (of ``n_metric`` metric-only rows).

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.validation.calibration import draw_counts
    >>> c = draw_counts(np.random.default_rng(1), 0.6, 0.8, 0.8, 200, 1000)
    >>> c["tp"] + c["fn"] == c["human_pos"]
    True
    """
    h = int(rng.binomial(n_human, alpha))
    tp = int(rng.binomial(h, rho))
    tn = int(rng.binomial(n_human - h, eta))
    k = int(rng.binomial(n_metric, alpha * rho + (1.0 - alpha) * (1.0 - eta)))
    return dict(human_pos=h, tp=tp, fn=h - tp, tn=tn, fp=n_human - h - tn, metric_pos=k)


def random_designs(n: int, seed: int) -> list[tuple[int, ...]]:
    """Random count sets like an analyst's, for robustness sweeps of the engine.

    10^4.5 to 10^8.5 metric ratings, 10 to 3e5 paired rows, 0 (one time in five) or 1 to 3e4
    human ratings (all log-uniform), ``alpha`` in [0.05, 0.95] and ``rho``, ``eta`` in
    [0.55, 0.99] (uniform), every count binomial given them.

    Parameters
    ----------
    n : int
        Number of designs.
    seed : int
        Seed of the generator (the same seed gives the same designs).

    Returns
    -------
    list of tuple
        ``(human_pos, human_total, metric_pos, metric_total, tp, fn, tn, fp)`` per design, the
        positional arguments of :func:`binaryeval.alpha_posterior`.

    Examples
    --------
    >>> from binaryeval.validation import random_designs
    >>> designs = random_designs(3, seed=0)
    >>> len(designs), len(designs[0]), designs == random_designs(3, seed=0)
    (3, 8, True)
    """
    n = _validate.size(n, "n", minimum=0)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        M = int(10 ** rng.uniform(4.5, 8.5))
        npair = int(10 ** rng.uniform(1, math.log10(3e5)))
        nh = int(10 ** rng.uniform(0, math.log10(3e4))) if rng.uniform() > 0.2 else 0
        alpha = rng.uniform(0.05, 0.95)
        rho, eta = rng.uniform(0.55, 0.99, 2)
        npos = int(rng.binomial(npair, alpha))
        tp, tn = int(rng.binomial(npos, rho)), int(rng.binomial(npair - npos, eta))
        k = int(rng.binomial(M, alpha * rho + (1 - alpha) * (1 - eta)))
        out.append((int(rng.binomial(nh, alpha)), nh, k, M, tp, npos - tp, tn, npair - npos - tn))
    return out


def pair_sweep() -> dict[str, tuple[int, ...]]:
    """Count sets of posteriors of very different widths and locations, for sweeps over pairs.

    Single Betas from 5 to 10^5 human ratings, materialised mixtures of 10^3 to 2 * 10^4 metric
    ratings (a few paired rows among them) and smooth ones of 3.7 * 10^4 to 10^6 metric ratings;
    the first two smooth ones are two realistic fits whose comparison once crashed after minutes.
    Every pair of them is a case for :func:`binaryeval.binary.posterior.prob_greater`.

    Returns
    -------
    dict
        ``name -> counts``, the positional arguments of :func:`binaryeval.alpha_posterior`.

    Examples
    --------
    >>> from binaryeval.validation import pair_sweep
    >>> sweep = pair_sweep()
    >>> len(sweep), sweep["beta 60"]
    (10, (41, 60))
    """
    return {
        "beta 5": (2, 5), "beta 60": (41, 60), "beta 2000": (300, 2000),
        "beta 1e5": (62000, 10**5),
        "mix 1e3": (60, 100, 560, 1000, 48, 12, 32, 8),
        "mix 1e4, 20 paired": (0, 0, 5600, 10000, 8, 2, 7, 3),
        "mix 2e4": (10, 30, 19000, 20000, 90, 3, 20, 2),
        "smooth 2.3e5": (23, 276, 33160, 231434, 21, 2, 231, 22),
        "smooth 3.7e4": (44, 59, 27736, 36852, 40, 4, 8, 7),
        "smooth 1e6": (6000, 10000, 560000, 1000000, 4800, 1200, 3200, 800),
    }


def _pooled_confusion(rng, own, others, n_human):
    conf = {key: own[key] for key in ("tp", "fn", "tn", "fp")}
    for a, r, e in others:
        c = draw_counts(rng, a, r, e, n_human, 0)
        for key in conf:
            conf[key] += c[key]
    return conf


def _safe(method, *args, **kw):
    """A peer interval, or the uninformative (nan, 0, 1) when the method is undefined."""
    try:
        return tuple(method(*args, **kw))
    except CountsError:
        return (math.nan, 0.0, 1.0)


def fixed_replicate(setting: Setting, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """One fixed-parameter replicate: every method's estimate and intervals on the same data.

    Returns
    -------
    dict
        ``method -> array [estimate, lower_50, upper_50, lower_80, upper_80, lower_95, upper_95]``
        (NaN when a method does not apply: PPI and ACC without metric-only rows).  When ACC is
        undefined on a replicate (a human class absent from the paired rows) its interval is
        [0, 1].  Also ``"cdf"``: the posterior CDF at the true ``alpha``.
    """
    s = setting
    own = draw_counts(rng, s.alpha, s.rho, s.eta, s.n_human, s.n_metric)
    if s.rates == "pooled":
        rates = s.other_rates or [(s.rho, s.eta)] * len(s.other_alphas)
        others = [(a, r, e) for a, (r, e) in zip(s.other_alphas, rates, strict=True)]
        conf = _pooled_confusion(rng, own, others, s.n_human)
    else:
        conf = {key: own[key] for key in ("tp", "fn", "tn", "fp")}
    post = alpha_posterior(own["human_pos"], s.n_human, own["metric_pos"], s.n_metric, **conf)
    own_conf = {key: own[key] for key in ("tp", "fn", "tn", "fp")}
    k, M = own["metric_pos"], s.n_metric
    nan = np.full(1 + 2 * len(LEVELS), math.nan)
    out: dict[str, np.ndarray] = {"cdf": np.array([post.cdf(s.alpha)])}
    out["posterior"] = np.array([post.mean()] + [v for lv in LEVELS for v in post.interval(lv)])
    for m in ("wald", "wilson", "clopper_pearson"):
        ivs = [classical_interval(own["human_pos"], s.n_human, lv, method=m) for lv in LEVELS]
        out[m] = np.array([ivs[0][0]] + [v for iv in ivs for v in iv[1:]])
    if M == 0:
        for m in ("ppi", "ppi_pp", "acc"):
            out[m] = nan
        return out
    for m, lam in (("ppi", 1.0), ("ppi_pp", None)):
        ivs = [ppi_interval(**own_conf, metric_pos=k, metric_total=M, level=lv, lam=lam)
               for lv in LEVELS]
        out[m] = np.array([ivs[0][0]] + [v for iv in ivs for v in iv[1:]])
    ivs = [_safe(acc_interval, **conf, metric_pos=k, metric_total=M, level=lv) for lv in LEVELS]
    out["acc"] = np.array([ivs[0][0]] + [v for iv in ivs for v in iv[1:]])
    return out


def sbc_replicate(setting: Setting, rng: np.random.Generator,
                  n_draws: int = SBC_DRAWS) -> tuple[float, int]:
    """One SBC replicate: parameters from the prior, data, posterior.

    Returns
    -------
    (float, int)
        The posterior CDF at the drawn ``alpha`` (uniform on [0, 1] when the posterior is right)
        and the rank of ``alpha`` among ``n_draws`` posterior draws (uniform on ``0..n_draws``).
    """
    s = setting
    ar, br = s.rate_prior
    alpha = float(rng.beta(1.0, 1.0))
    rho, eta = float(rng.beta(ar, br)), float(rng.beta(ar, br))
    own = draw_counts(rng, alpha, rho, eta, s.n_human, s.n_metric)
    if s.rates == "pooled":
        others = [(float(rng.beta(1.0, 1.0)), rho, eta) for _ in s.other_alphas]
        conf = _pooled_confusion(rng, own, others, s.n_human)
    else:
        conf = {key: own[key] for key in ("tp", "fn", "tn", "fp")}
    post = alpha_posterior(own["human_pos"], s.n_human, own["metric_pos"], s.n_metric, **conf,
                           prior=(1.0, 1.0), rate_prior=(ar, br))
    draws = post.rvs(size=n_draws, random_state=rng)
    return float(post.cdf(alpha)), int(np.sum(draws < alpha))


def misspecification_replicate(rng: np.random.Generator, systems, n_human: int, n_metric: int,
                               level: float = 0.95) -> np.ndarray:
    """Estimate every system's ``alpha`` with pooled and with per-system rates.

    Parameters
    ----------
    systems : sequence of (alpha, rho, eta)
        True values per system; when ``rho``/``eta`` differ across systems, pooling the paired
        rows to estimate one pair of rates misspecifies the model.
    n_human, n_metric : int
        Paired and metric-only rows per system.

    Returns
    -------
    ndarray, shape (n_systems, 2, 2)
        ``[system, (pooled, estimate), (posterior mean, covered at level)]``.
    """
    counts = [draw_counts(rng, a, r, e, n_human, n_metric) for a, r, e in systems]
    pooled = {key: sum(c[key] for c in counts) for key in ("tp", "fn", "tn", "fp")}
    out = np.empty((len(systems), 2, 2))
    for i, ((a, _, _), c) in enumerate(zip(systems, counts, strict=True)):
        own = {key: c[key] for key in ("tp", "fn", "tn", "fp")}
        for j, conf in enumerate((pooled, own)):
            post = alpha_posterior(c["human_pos"], n_human, c["metric_pos"], n_metric, **conf)
            u = post.cdf(a)
            out[i, j] = (post.mean(), float((1 - level) / 2 <= u <= (1 + level) / 2))
    return out


def coverage_region(n: int, level: float, region: float = 0.999) -> tuple[int, int]:
    """Acceptance region for the number of covering intervals among ``n`` replicates.

    With ``n`` independent replicates of an interval of exact coverage ``level`` the count is
    ``Binomial(n, level)``; the region ``[ppf(t), ppf(1 - t)]`` with ``t = (1 - region) / 2``
    holds it with probability at least ``region``.

    Parameters
    ----------
    n : int
        Number of replicates.
    level : float
        Coverage of each interval.
    region : float
        Probability of the region under exact coverage.

    Returns
    -------
    (int, int)

    Examples
    --------
    >>> from binaryeval.validation import coverage_region
    >>> coverage_region(1000, 0.95)
    (926, 971)
    """
    n = _validate.size(n, "n")
    level = _validate.level(level)
    region = _validate.level(region, "region")
    t = (1.0 - region) / 2.0
    return int(stats.binom.ppf(t, n, level)), int(stats.binom.ppf(1.0 - t, n, level))


def rank_histogram(ranks, n_draws: int = SBC_DRAWS, n_bins: int = 20):
    """Bin SBC ranks (``0..n_draws``) into ``n_bins`` equal bins and test uniformity.

    ``n_draws + 1`` must be divisible by ``n_bins`` so that every bin holds the same number of
    rank values.

    Returns
    -------
    (ndarray, float)
        Counts per bin and the p-value of Pearson's chi-square test of uniformity.
    """
    if (n_draws + 1) % n_bins:
        raise ParameterError(f"n_bins={n_bins}: must divide n_draws + 1 = {n_draws + 1}")
    ranks = np.asarray(ranks, dtype=int)
    counts = np.bincount(ranks // ((n_draws + 1) // n_bins), minlength=n_bins)
    return counts, float(stats.chisquare(counts).pvalue)
