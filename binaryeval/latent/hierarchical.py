"""Partial pooling of the groups' confusion matrices: ``rates="hierarchical"``.

The model
---------
The latent-truth model of :mod:`binaryeval.latent.engine` with one more level.  Each group
``g`` has its own confusion matrix ``Theta_g``; row ``k`` (the metric's outputs given human
class ``k``) is drawn from a population Dirichlet with a learned mean ``m_k`` (a point of the
simplex over the ``J`` outputs) and a learned concentration ``c_k > 0``:

    Theta_g[k] ~ Dirichlet(c_k m_k)        independently for every group g,
    m_k ~ Dirichlet(1, ..., 1)             (uniform over the simplex),
    log c_k ~ Normal(log 20, 1.5^2)        (the hyperprior, :data:`HYPERPRIOR`).

``c_k`` says how alike the groups are: a rate of population mean ``m`` has a between-group
standard deviation ``sqrt(m (1 - m) / (c_k + 1))`` (at ``m = 0.75``: 0.10 for ``c_k = 20``,
0.24 for ``c_k = 2``, 0.02 for ``c_k = 500``).  The hyperprior is weakly informative: its
central 95 % runs from ``c_k = 1.1`` (groups nothing alike) to ``c_k = 380`` (rates that differ
by about 0.02), so the data decide between nearly separate rates (``rates="estimate"``) and
nearly one matrix (``rates="pooled"``), and every point between.  With K = J = 2 (one binary
metric) the rows are ``(eta_g, 1 - eta_g)`` and ``(1 - rho_g, rho_g)``: ``rho_g`` and ``eta_g``
are drawn from population Betas with means ``m_1[1]``, ``m_0[0]`` and concentrations ``c_1``,
``c_0``.  The class shares keep their prior ``pi_g ~ Dirichlet(a)`` (``share_concentration``).

The sampler
-----------
One Hamiltonian Monte Carlo chain over every parameter at once, in coordinates chosen so that
neither regime of the population is a funnel: per group the additive log-ratios of ``pi_g``;
per group and row the *standardised* log-ratios ``eta_g[k]``, with

    alr Theta_g[k] = alr m_k + s_k * eta_g[k],   s_k[j] = sqrt((1 / m_k[j] + 1 / m_k[J]) / c_k)

(``s_k`` is about the prior sd of ``alr Theta_g[k, j]``: a non-centred parametrisation, so that
a large ``c_k``, rows nearly equal, does not pinch the groups' coordinates); and per class
``log c_k`` and the log-ratios of ``m_k``.  The density is the model's, times the Jacobians:
``prod pi^a`` and ``prod Theta^(c m)`` in log-ratio coordinates (the Dirichlets with their
log-ratio Jacobians), the normalising constants ``Gamma(c_k) / prod_j Gamma(c_k m_k[j])``,
``prod s_k`` per group and row, the hyperprior (``prod m^1`` with its Jacobian), and the
likelihood of the paired, human-only and metric-only items.  The gradient is written out
(digamma for the normalising constants) and checked against finite differences in the tests.
The hyperprior of ``log c_k`` is truncated at :data:`TRUNCATE` sd (mass beyond: below 1e-23),
where the normalising constants lose every digit to cancellation.

Sampling the hyperparameters jointly with the groups' rates (rather than alternating
conditional draws) moves ``c_k`` and the rows together where the rows are nearly equal (large
``c_k``), where a Gibbs sweep of ``c_k`` given the rows would crawl.  The moves are those of the
per-group sampler: leapfrog trajectories with a dense metric, step size, metric and trajectory
length adapted in warm-up from the chain's own draws
(:class:`binaryeval.latent.engine._Hamiltonian`), then fixed; and the independence proposal
from a multivariate t at the warm-up mean.  Up to :data:`MAX_STEPS` leapfrog steps per
transition, :data:`TRANSITIONS` transitions per iteration, :data:`WARMUP` warm-up iterations
by default (the dense metric over all groups needs a longer warm-up than the per-group
sampler's 250).

The non-centred coordinates are the wrong ones where the groups differ widely (small ``c_k``)
and their paired items pin the rows down: the population level is then tied to the
standardised rows along curved ridges, and rows near the simplex's edge (a Dirichlet parameter
``c_k m_k[j]`` below 1) have heavy-tailed log-ratios that short trajectories cross slowly
(with the Hamiltonian moves alone, 15 to 54 % of the simulation study's fits with such groups
warned about R-hat or the effective sample size).  So every iteration ends with
:data:`SWEEPS` Gibbs sweeps in the centred parametrisation (:class:`_Centred`): the
metric-only items' classes by data augmentation, the shares from their Dirichlet conditional,
the population level by Metropolis moves given the completed counts with the rows integrated
out, then the rows from their Dirichlet conditionals; the standardised rows are recomputed
from them.  Alternating centred
and non-centred moves is the interweaving idea of Yu and Meng (2011, "To center or not to
center: that is not the question"); each move leaves the posterior invariant, so the chain is
exact.

Chains start from each group's own paired items, the population mean of all groups' and the
hyperprior's median concentration, the standardised rows cut to within :data:`START_LIMIT`
sd.  ``theta`` is kept per group, as with ``rates="estimate"``.

When to use it
--------------
With several groups whose metric errs in similar but not identical ways: few paired items per
group make per-group rates wide, one pooled matrix is wrong when the groups differ (the
check before pooling, :mod:`binaryeval._pooling`).  Partial pooling learns from the paired
items how alike the groups are.  It costs a sampler run (seconds to a minute) where the binary
model's exact engine takes milliseconds, and it needs at least two groups to learn anything
about the population.  It is not the default for several groups: on the shipped WMT21 data
(``studies/hierarchical_mqm.py``) its intervals were as wide as per-group rates' (0.992 to 1.002
times) at the same coverage, so the exact per-group engine's milliseconds buy the same answer.

Checked: the gradient against finite differences; the centred sweeps alone, started at
exact draws, keep the prior (binary and 3 x 3) and the exact population posterior of
paired-only binary data; with no data the draws are the hyperprior's; with paired items only,
the draws of a binary row's population mean and log concentration against their exact
posterior (the groups' rates integrate out as beta-binomials, leaving a two-dimensional
integral: the shares of draws below its 2.5 to 97.5 % points agree within Monte Carlo
error); with the hyperprior fixed near ``c = 10^5`` the draws match the per-group sampler's
``rates="pooled"``; simulation-based calibration in ``studies/hierarchical_sbc.py`` (binary
and 3 x 3, groups nearly alike and far apart, saved in ``vignettes/data/hierarchical_sbc.csv``;
its results and their limits are in the WMT21 binary vignette).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from .engine import _TINY, Draws, Model, _dirichlet, _Hamiltonian, _unit_draws

__all__: list[str] = []

# reductions called as the ufuncs' own (``x.sum(axis)`` is ``np.add.reduce(x, axis)`` behind
# a Python wrapper, which costs as much as the sum on the sampler's small arrays)
_sum = np.add.reduce
_max = np.maximum.reduce

#: leapfrog steps per transition at most, transitions per iteration
MAX_STEPS = 16
TRANSITIONS = 1
#: the chains start with every standardised row coordinate within this many sd of the mean
START_LIMIT = 2.0
#: warm-up iterations by default (the adaptation needs more than the per-group sampler's)
WARMUP = 1000
#: the hyperprior of ``log c_k`` is truncated this many sd from its centre
TRUNCATE = 10.0
#: rounds of Metropolis moves of the population level given the rows per iteration, and the
#: acceptance rate their step sizes are adapted to in warm-up
INTERWEAVE_STEPS = 5
#: centred sweeps (classes, shares and rows, population level) per iteration
SWEEPS = 3
INTERWEAVE_ACCEPT = 0.4


def _adapted(step: np.ndarray, ok: np.ndarray, up: float, down: float) -> np.ndarray:
    """A Robbins-Monro step size: ``up`` times after an acceptance, ``down`` after a rejection.

    Kept within [1e-3, 10].
    """
    return np.minimum(np.maximum(step * np.where(ok, up, down), 1e-3), 10.0)


@dataclass(frozen=True)
class Hyperprior:
    """The population level's prior: ``log c_k ~ Normal(loc, scale^2)``, ``m_k ~ Dir(mean)``."""

    loc: float = float(np.log(20.0))
    scale: float = 1.5
    mean: float = 1.0


#: the hyperprior of ``rates="hierarchical"``
HYPERPRIOR = Hyperprior()


@dataclass(frozen=True)
class HierarchicalDraws(Draws):
    """:class:`~binaryeval.latent.engine.Draws` with the population level.

    ``mean`` has shape (chains, draws, K, J) (``m_k``, row ``k``), ``concentration`` (chains,
    draws, K) (``c_k``).
    """

    mean: np.ndarray | None = None
    concentration: np.ndarray | None = None


# ----------------------------------------------------------------------------------------------
# the joint target, units last (a unit is one chain of one data set)
# ----------------------------------------------------------------------------------------------

def _log_simplex(y: np.ndarray, axis: int) -> np.ndarray:
    """``log x`` for ``x`` the inverse additive log-ratio of ``y`` along ``axis`` (n-1 -> n).

    ``log x = [y, 0] - L`` with ``L`` the log-sum-exp of ``[y, 0]``, computed about its
    largest entry.  With one log-ratio (binary rows and shares) the same arithmetic is
    written out on ``y``'s own shape: the largest entry is ``max(y, 0)``, the sum two terms.
    """
    if y.shape[axis] == 1:
        top = np.maximum(y, 0.0)
        big = top + np.log(np.exp(y - top) + np.exp(np.negative(top)))
        return np.concatenate([y - big, np.subtract(0.0, big)], axis=axis)
    shape = list(y.shape)
    shape[axis] = 1
    full = np.concatenate([y, np.zeros(shape)], axis=axis)
    top = _max(full, axis=axis, keepdims=True)
    return full - (top + np.log(_sum(np.exp(full - top), axis=axis, keepdims=True)))


class _Joint:
    """Log density and gradient of the hierarchical model in its coordinates.

    ``y`` (d, U): per group ``alr pi_g`` (K - 1), groups one after the other; then per group
    and row the standardised log-ratios ``eta_g[k]`` (J - 1) with ``alr Theta_g[k] = alr m_k
    + s_k * eta_g[k]``, ``s_k[j] = sqrt((1 / m_k[j] + 1 / m_k[J]) / c_k)`` (about the prior
    sd of ``alr Theta_g[k, j]``: a non-centred parametrisation); then ``log c`` (K) and
    ``alr m_k`` (K (J - 1)).  Counts have the units last: ``paired`` (G, K, J, U), ``human``
    (G, K, U), ``metric`` (G, J, U), ``prior`` (G, K, U).
    """

    def __init__(self, paired, human, metric, prior, informs: bool, hyper: Hyperprior):
        self.g, self.k, self.j = paired.shape[:3]
        g, k, j = self.g, self.k, self.j
        self.n_pi = g * (k - 1)
        self.n_eta = g * k * (j - 1)
        self.dim = self.n_pi + self.n_eta + k + k * (j - 1)
        self.paired = paired
        self.metric = metric
        self.a_pi = prior + human + (paired.sum(axis=2) if informs else 0)  # (G, K, U)
        self.hyper = hyper
        # the shares' exponents and metric-only items per group, summed (G, 1, U)
        self._pi_total = (self.a_pi.sum(axis=1) + metric.sum(axis=1))[:, None]

    def split(self, y: np.ndarray):
        g, k, j = self.g, self.k, self.j
        u = y.shape[-1]
        a, b = self.n_pi, self.n_pi + self.n_eta
        return (y[:a].reshape(g, k - 1, u), y[a:b].reshape(g, k, j - 1, u), y[b:b + k],
                y[b + k:].reshape(k, j - 1, u))

    @staticmethod
    def _scale(z, lm):
        """``log s`` (K, J - 1, U) from ``log c`` (K, U) and ``log m`` (K, J, U)."""
        neg = np.negative(lm)
        return -0.5 * z[:, None] + 0.5 * np.logaddexp(neg[:, :-1], neg[:, -1:])

    def state(self, y: np.ndarray):
        """``pi`` (G, K, U), ``Theta`` (G, K, J, U), ``m`` (K, J, U), ``c`` (K, U)."""
        y_pi, eta, z, w = self.split(y)
        lm = _log_simplex(w, 1)
        x = w[None] + np.exp(self._scale(z, lm))[None] * eta
        return (np.exp(_log_simplex(y_pi, 1)), np.exp(_log_simplex(x, 2)), np.exp(lm),
                np.exp(z))

    def coordinates(self, pi, theta, m, c) -> np.ndarray:
        """``y`` from the state (the inverse of :meth:`state`)."""
        u = pi.shape[-1]
        lpi, lt, lm = (np.log(np.maximum(x, _TINY)) for x in (pi, theta, m))
        z = np.log(c)
        w = lm[:, :-1] - lm[:, -1:]
        eta = ((lt[:, :, :-1] - lt[:, :, -1:]) - w[None]) / np.exp(self._scale(z, lm))[None]
        return np.concatenate([(lpi[:, :-1] - lpi[:, -1:]).reshape(-1, u), eta.reshape(-1, u),
                               z, w.reshape(-1, u)])

    def __call__(self, y: np.ndarray, theta=None, value: bool = True):
        g, k, j = self.g, self.k, self.j
        hp = self.hyper
        u = y.shape[-1]
        y_pi, eta, z, w = self.split(y)
        lpi = _log_simplex(y_pi, 1)  # (G, K, U)
        pi = np.exp(lpi)
        lm = _log_simplex(w, 1)  # (K, J, U)
        m = np.exp(lm)
        c = np.exp(z)  # (K, U)
        log_s = self._scale(z, lm)  # (K, J - 1, U)
        s = np.exp(log_s)
        lt = _log_simplex(w + s * eta, 2)  # (G, K, J, U)
        t = np.exp(lt)
        q = np.maximum(np.einsum("gku,gkju->gju", pi, t), _TINY)  # (G, J, U)
        mq = self.metric / q
        conc = c[:, None] * m  # (K, J, U)
        f = self.paired + conc  # (G, K, J, U)
        a_pi = self.a_pi
        z_dev = z - hp.loc
        grad = np.empty_like(y)
        # the shares
        ext_pi = np.einsum("gkju,gju->gku", t, mq)
        na, nb = self.n_pi, self.n_pi + self.n_eta
        grad[:na] = (a_pi[:, :-1] + pi[:, :-1] * (ext_pi[:, :-1] - self._pi_total)).reshape(
            na, u)
        # the rows, through x = w + s eta
        ext_t = pi[:, :, None] * mq[:, None]  # (G, K, J, U)
        d_x = (f[:, :, :-1] + t[:, :, :-1] * (ext_t[:, :, :-1] - (
            _sum(f, axis=2) + _sum(t * ext_t, axis=2))[:, :, None]))  # (G, K, J - 1, U)
        grad[na:nb] = (s * d_x).reshape(nb - na, u)
        # the population level
        d_conc = _sum(lt, axis=0) - g * special.digamma(conc)  # d/dC (K, J, U)
        d_log_s = g + _sum(eta * s * d_x, axis=0)  # (K, J - 1, U)
        grad[nb:nb + k] = (c * (_sum(m * d_conc, axis=1) + g * special.digamma(c))
                           - 0.5 * _sum(d_log_s, axis=1) - z_dev / hp.scale ** 2)
        inv_pair = 1.0 / (m[:, :-1] + m[:, -1:])  # (K, J - 1, U)
        half = 0.5 * d_log_s
        d_m = c[:, None] * d_conc
        d_m[:, :-1] += half * (inv_pair - 1.0 / m[:, :-1])
        d_m[:, -1] += _sum(half * (inv_pair - 1.0 / m[:, -1:]), axis=1)
        grad[nb + k:] = (m[:, :-1] * (d_m[:, :-1] - _sum(m * d_m, axis=1)[:, None])
                         + _sum(d_x, axis=0) + hp.mean * (1.0 - j * m[:, :-1])).reshape(-1, u)
        logp = None
        if value:
            logp = (_sum(a_pi * lpi, axis=(0, 1)) + _sum(f * lt, axis=(0, 1, 2))
                    + _sum(self.metric * np.log(q), axis=(0, 1))
                    + g * _sum(special.gammaln(c) - _sum(special.gammaln(conc), axis=1)
                               + _sum(log_s, axis=1), axis=0)
                    - 0.5 * _sum((z_dev / hp.scale) ** 2, axis=0)
                    + hp.mean * _sum(lm, axis=(0, 1)))
            # the hyperprior is truncated at TRUNCATE sd (mass beyond: below 1e-23), where
            # the normalising constants of Dirichlets of concentration 1e13 and more lose
            # every digit to cancellation
            logp = np.where((np.abs(z_dev) <= TRUNCATE * hp.scale).all(axis=0), logp, -np.inf)
        return logp, grad


# ----------------------------------------------------------------------------------------------
# the centred sweep: data augmentation, the groups' shares and rows, the population level
# ----------------------------------------------------------------------------------------------

def _log_gamma(rngs, groups: int, shape: np.ndarray) -> np.ndarray:
    """``log`` of Gamma(``shape``) draws, units last, chain by chain.

    ``log G_a = log G_(a+1) + log(U) / a`` with ``U`` uniform: exact, and no underflow where
    ``a`` is small and the draw itself would be below the smallest float.  Each chain's
    generator draws its gammas, then its uniforms; the arithmetic is done once for all chains.
    """
    plus = shape + 1.0
    if len(rngs) == 1:
        rng = rngs[0]
        return np.log(rng.standard_gamma(plus)) + np.log1p(-rng.random(shape.shape)) / shape
    gamma = np.empty(shape.shape)
    uniform = np.empty(shape.shape)
    size = (*shape.shape[:-1], groups)
    for c, rng in enumerate(rngs):
        part = slice(c * groups, (c + 1) * groups)
        gamma[..., part] = rng.standard_gamma(plus[..., part])
        uniform[..., part] = rng.random(size)
    return np.log(gamma) + np.log1p(-uniform) / shape


def _normalise(log_x: np.ndarray, axis: int) -> np.ndarray:
    """``log`` of the point of the simplex proportional to ``exp(log_x)`` along ``axis``.

    The log-sum-exp is scipy's (``special.logsumexp`` of scipy 1.17 for real input: the
    largest terms counted apart, ``log1p`` of the rest), step for step in plain numpy: on the
    sampler's arrays of a few dozen numbers scipy's array-API checks cost ten times the sum.
    Of scipy's steps, those for negative or complex terms are left out (the terms here are
    ``exp`` of reals, the count of largest terms is positive: they never apply), and the plain
    ``log(sum(exp))`` that scipy falls back on where the result is not finite is computed
    only when some result is not.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        top = _max(log_x, axis=axis, keepdims=True)
        at_top = log_x == top
        m = _sum(at_top, axis=axis, dtype=float, keepdims=True)
        # (m >= 1 unless a term is NaN, and then s is NaN too: s / m is scipy's s where s == 0)
        s = _sum(np.exp(np.where(at_top, -np.inf, log_x) - top), axis=axis, keepdims=True) / m
        out = np.log1p(s) + np.log(m) + top
        finite = np.isfinite(out)
        if not finite.all():
            out = np.where(finite, out, np.log(_sum(np.exp(log_x), axis=axis, keepdims=True)))
    return log_x - out


def _binomial(rngs, groups: int, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Binomial draws, units last, chain by chain."""
    out = np.empty(n.shape, dtype=np.int64)
    for c, rng in enumerate(rngs):
        part = slice(c * groups, (c + 1) * groups)
        out[..., part] = rng.binomial(n[..., part], p[..., part])
    return out


class _Centred:
    """Gibbs sweeps in the centred parametrisation, after the Hamiltonian moves.

    The Hamiltonian chain moves the standardised rows ``eta_g[k]`` with the population level;
    where the groups' rows differ widely (small ``c_k``) and the data pin them down, the
    population level is tied to those coordinates, and rows near the simplex's edge (a
    Dirichlet parameter ``c_k m_k[j]`` below 1) have heavy-tailed log-ratios that short
    trajectories cross slowly.  Each iteration therefore also takes :data:`SWEEPS` sweeps of:

    1. the classes of the metric-only items given ``pi_g`` and ``Theta_g`` (data augmentation:
       per group and metric output, the items spread over the classes by a multinomial draw
       with probabilities ``pi_g[k] Theta_g[k, j]``), giving complete counts ``N_g[k, j]``
       (paired items plus the metric-only items so classed);
    2. ``pi_g ~ Dirichlet(a_g + n_g)`` given those classes (``a_g``: the shares' prior with the
       human-only and, when they inform it, the paired items' class counts);
    3. ``(log c_k, alr m_k)`` given the complete counts, the rows integrated out:
       :data:`INTERWEAVE_STEPS` rounds of a random-walk Metropolis move of ``z = log c_k``
       then of ``w = alr m_k`` on the groups' Dirichlet-multinomial likelihood times the
       hyperprior,

           sum_g [log Gamma(c) - log Gamma(c + N_g[k, .])
                  + sum_j (log Gamma(c m_j + N_g[k, j]) - log Gamma(c m_j))]
           + mean sum_j log m_j - (z - loc)^2 / (2 scale^2)

       (``mean sum_j log m_j``: the Dirichlet hyperprior of ``m_k`` with the log-ratios'
       Jacobian), truncated like the joint target; step sizes adapted in warm-up towards an
       acceptance rate of :data:`INTERWEAVE_ACCEPT` (Robbins-Monro on the log step), then
       fixed;
    4. ``Theta_g[k] ~ Dirichlet(c_k m_k + N_g[k])`` given the new population level (the rows
       integrated out in step 3 are drawn right after it, so the sweep is an exact, partially
       collapsed Gibbs sweep).  The shares and rows are drawn as log-gamma variates, so that
       no rate underflows.

    The standardised coordinates are then recomputed from the new rows and population level,
    ``eta = (alr Theta - w) / s(z, w)``.  Alternating these centred moves with the
    Hamiltonian moves, which hold the standardised rows' geometry, is the interweaving idea
    of Yu and Meng (2011); collapsing the rows out of the population move, as the rater
    model's population step does, unties the population level from rows near the simplex's
    edge.  Every step leaves the posterior invariant (the classes are drawn afresh and
    dropped), so the chain stays exact; its cost is a few draws per group and cell.
    """

    def __init__(self, target: _Joint, units: int):
        k = target.k
        self.target = target
        self.step_z = np.full((k, units), 1.0)
        self.step_w = np.full((k, units), 0.5 / np.sqrt(max(target.j - 1, 1)))
        self.n_moves = 0
        self.accept_z = np.zeros((k, units))
        self.accept_w = np.zeros((k, units))
        self.n_kept = 0
        self._metric = target.metric.astype(np.int64)  # (G, J, U)

    # -- the log conditional of the population level, term by term ---------------------------
    # (z = log c (K, U), m the population mean (K, J, U); counts (G, K, J, U), total their row
    # sums; the target is of_z + mixed + of_m - penalty inside the truncation, -inf outside)
    @staticmethod
    def _of_z(c, total):
        return _sum(special.gammaln(c) - special.gammaln(c + total), axis=0)

    @staticmethod
    def _mixed(c, m, counts):
        conc = c[:, None] * m
        return _sum(special.gammaln(conc + counts) - special.gammaln(conc), axis=(0, 2))

    def _penalty(self, z):
        hp = self.target.hyper
        d = z - hp.loc
        return 0.5 * (d / hp.scale) ** 2, np.abs(d) <= TRUNCATE * hp.scale

    def _classes(self, rngs, groups, lpi, lt):
        """The metric-only items' classes (G, K, J, U), by sequential binomials over classes."""
        k = self.target.k
        joint = lpi[:, :, None] + lt  # (G, K, J, U)
        post = np.exp(joint - _max(joint, axis=1, keepdims=True))
        post /= _sum(post, axis=1, keepdims=True)
        n = np.empty(joint.shape)
        left_n = self._metric  # (G, J, U)
        # the first class's share is post itself (in [0, 1]: nothing is left to divide by);
        # then each class's share of what the earlier classes left
        drawn = _binomial(rngs, groups, left_n, post[:, 0])
        n[:, 0] = drawn
        left_n = left_n - drawn
        left_p = 1.0 - post[:, 0]
        for c in range(1, k - 1):
            share = np.clip(post[:, c] / np.maximum(left_p, _TINY), 0.0, 1.0)
            drawn = _binomial(rngs, groups, left_n, np.where(left_p > 0, share, 0.0))
            n[:, c] = drawn
            left_n = left_n - drawn
            left_p = left_p - post[:, c]
        n[:, k - 1] = left_n
        return n

    def _population(self, rngs, groups, z, w, lm, counts, adapting):
        """:data:`INTERWEAVE_STEPS` rounds of Metropolis moves of ``z``, then of ``w``.

        The terms of the target that a move leaves alone are kept, not computed again.
        """
        target = self.target
        k, j = target.k, target.j
        total = _sum(counts, axis=2)
        m = np.exp(lm)
        c = np.exp(z)
        of_z = self._of_z(c, total)
        of_m = target.hyper.mean * _sum(lm, axis=1)
        penalty, inside = self._penalty(z)
        now = np.where(inside, of_z + self._mixed(c, m, counts) + of_m - penalty, -np.inf)
        noises = _unit_draws(rngs, groups, "normal", (INTERWEAVE_STEPS, k, j))
        log_u = np.log(_unit_draws(rngs, groups, "uniform", (INTERWEAVE_STEPS, 2, k)))
        if adapting:
            # the Robbins-Monro factors of an accepted and a rejected move (one gain per call)
            gain = 1.0 / np.sqrt(self.n_moves + 1.0)
            up, down = np.exp(gain * (np.array([True, False]) - INTERWEAVE_ACCEPT))
        for noise, uniform in zip(noises, log_u, strict=True):
            z_new = z + self.step_z * noise[:, 0]
            c_new = np.exp(z_new)
            of_z_new = self._of_z(c_new, total)
            penalty_new, inside_new = self._penalty(z_new)
            new = np.where(inside_new, of_z_new + self._mixed(c_new, m, counts) + of_m
                           - penalty_new, -np.inf)
            ok = uniform[0] < new - now  # NaN compares false: a rejection
            z, c, now = np.where(ok, z_new, z), np.where(ok, c_new, c), np.where(ok, new, now)
            of_z = np.where(ok, of_z_new, of_z)
            penalty, inside = np.where(ok, penalty_new, penalty), np.where(ok, inside_new, inside)
            if adapting:
                self.step_z = _adapted(self.step_z, ok, up, down)
            else:
                self.accept_z += ok
            w_new = w + self.step_w[:, None] * noise[:, 1:]
            lm_new = _log_simplex(w_new, 1)
            m_new = np.exp(lm_new)
            of_m_new = target.hyper.mean * _sum(lm_new, axis=1)
            new = np.where(inside, of_z + self._mixed(c, m_new, counts) + of_m_new - penalty,
                           -np.inf)
            ok = uniform[1] < new - now
            okj = ok[:, None]
            w, lm, m = np.where(okj, w_new, w), np.where(okj, lm_new, lm), np.where(okj, m_new, m)
            now, of_m = np.where(ok, new, now), np.where(ok, of_m_new, of_m)
            if adapting:
                self.step_w = _adapted(self.step_w, ok, up, down)
            else:
                self.accept_w += ok
        if adapting:
            self.n_moves += 1
        else:
            self.n_kept += INTERWEAVE_STEPS
        return z, w, lm, c, m

    def update(self, y: np.ndarray, rngs, groups: int, adapting: bool) -> np.ndarray:
        """The point after :data:`SWEEPS` sweeps."""
        target = self.target
        u = y.shape[-1]
        y_pi, eta, z, w = target.split(y)
        lm = _log_simplex(w, 1)
        lpi = _log_simplex(y_pi, 1)  # (G, K, U)
        lt = _log_simplex(w[None] + np.exp(target._scale(z, lm))[None] * eta, 2)  # (G, K, J, U)
        for _ in range(SWEEPS):
            n = self._classes(rngs, groups, lpi, lt)
            # the shares and the rows given the classes, from log-gamma draws
            lpi = _normalise(_log_gamma(rngs, groups, target.a_pi + _sum(n, axis=2)), 1)
            counts = target.paired + n
            z, w, lm, c, m = self._population(rngs, groups, z, w, lm, counts, adapting)
            lt = _normalise(_log_gamma(rngs, groups, (c[:, None] * m)[None] + counts), 2)
        x = lt[:, :, :-1] - lt[:, :, -1:]  # alr Theta (G, K, J - 1, U)
        eta = (x - w[None]) / np.exp(target._scale(z, lm))[None]
        return np.concatenate([(lpi[:, :-1] - lpi[:, -1:]).reshape(-1, u), eta.reshape(-1, u),
                               z, w.reshape(-1, u)])

    def acceptance(self) -> float:
        """The mean acceptance rate of the kept population moves (NaN before any)."""
        if not self.n_kept:
            return float("nan")
        return float((self.accept_z + self.accept_w).mean() / (2 * self.n_kept))


# ----------------------------------------------------------------------------------------------
# the driver
# ----------------------------------------------------------------------------------------------

def _units(a: np.ndarray, chains: int) -> np.ndarray:
    """(B, ...) per data set -> (..., chains * B), chain-major like the per-group sampler."""
    moved = np.moveaxis(np.asarray(a, dtype=float), 0, -1)
    return np.ascontiguousarray(np.tile(moved, (1,) * (moved.ndim - 1) + (chains,)))


def sample_batch(paired: np.ndarray, human: np.ndarray, metric: np.ndarray, prior: np.ndarray,
                 *, paired_informs_pi: bool = True, draws: int, chains: int, warmup: int,
                 seed, hyper: Hyperprior = HYPERPRIOR) -> HierarchicalDraws:
    """Draws of ``B`` independent data sets at once (a leading batch axis on every count).

    Shapes: ``paired`` (B, G, K, J), ``human`` (B, G, K), ``metric`` (B, G, J), ``prior``
    (B, G, K).  Returns draws with the batch after the draw axis: ``pi`` (C, D, B, G, K),
    ``theta`` (C, D, B, G, K, J), ``mean`` (C, D, B, K, J), ``concentration`` (C, D, B, K).
    Each chain has its own generator spawned from ``seed``; a data set's draws depend on the
    batch it runs in (the chains' generators serve the whole batch).
    """
    nb, g, k, j = paired.shape
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    rngs = [np.random.default_rng(s) for s in ss.spawn(chains)]
    target = _Joint(_units(paired, chains), _units(human, chains), _units(metric, chains),
                    _units(prior, chains), paired_informs_pi, hyper)
    # a start per chain: every group's rows and shares from its own items, the population
    # mean from all groups' paired items and the concentration at the hyperprior's median
    start_pi = _dirichlet(rngs, np.broadcast_to(prior + human + paired.sum(axis=3),
                                                (chains, nb, g, k)))
    start_theta = _dirichlet(rngs, np.broadcast_to(1.0 + paired, (chains, nb, g, k, j)))
    pooled = 1.0 + paired.sum(axis=1)  # (B, K, J)
    start_m = np.broadcast_to(pooled / pooled.sum(axis=2, keepdims=True), (chains, nb, k, j))
    start_c = np.full((chains, nb, k), np.exp(hyper.loc))

    def to_units(x):  # (C, B, ...) -> (..., C * B)
        return np.moveaxis(x.reshape(chains * nb, *x.shape[2:]), 0, -1)

    y = target.coordinates(to_units(start_pi), to_units(start_theta), to_units(start_m),
                           to_units(start_c))
    # the rows' standardised coordinates kept within the population's central range: with a
    # large concentration the groups' own estimates would lie hundreds of sd away
    y[target.n_pi:target.n_pi + target.n_eta] = np.clip(
        y[target.n_pi:target.n_pi + target.n_eta], -START_LIMIT, START_LIMIT)
    # a diagonal first metric: the shares' log-ratio sd from their counts, 0.5 for the rest
    a_pi = np.moveaxis(target.a_pi, -1, 0) + 1.0  # (U, G, K)
    scale = np.concatenate([
        np.sqrt(1.0 / a_pi[:, :, :-1] + 1.0 / a_pi[:, :, -1:]).reshape(len(a_pi), -1),
        np.full((len(a_pi), target.dim - target.n_pi), 0.5)], axis=1).T
    hmc = _Hamiltonian(target, np.ascontiguousarray(scale), MAX_STEPS)
    weave = _Centred(target, y.shape[1])
    pi_out = np.empty((chains, draws, nb, g, k))
    theta_out = np.empty((chains, draws, nb, g, k, j), dtype=np.float32)
    mean_out = np.empty((chains, draws, nb, k, j))
    conc_out = np.empty((chains, draws, nb, k))
    adapt = warmup >= 20
    w15, w40, w85 = (int(f * warmup) for f in (0.15, 0.4, 0.85))
    at = None
    for it in range(warmup + draws):
        warming = it < warmup
        for _ in range(TRANSITIONS):
            y, at = hmc.step(y, rngs, nb, None, adapting=adapt and warming, start=at)
        if hmc.has_center.any():
            y, at = hmc.jump(y, rngs, nb, None, at, kept=not warming)
        y = weave.update(y, rngs, nb, adapting=adapt and warming)
        at = None
        if adapt and warming:
            if w15 <= it < w85:
                hmc.collect(y)
            if it + 1 in (w40, w85):
                hmc.update_metric(lengths=it + 1 == w85)
            if it + 1 == warmup:
                hmc.finish_step_size()
        if not warming:
            pi, theta, m, c = target.state(y)
            d = it - warmup
            pi_out[:, d] = np.moveaxis(pi, -1, 0).reshape(chains, nb, g, k)
            theta_out[:, d] = np.moveaxis(theta, -1, 0).reshape(chains, nb, g, k, j)
            mean_out[:, d] = np.moveaxis(m, -1, 0).reshape(chains, nb, k, j)
            conc_out[:, d] = np.moveaxis(c, -1, 0).reshape(chains, nb, k)
    accept = {"hamiltonian": hmc.accept_sum / hmc.n_kept if hmc.n_kept else float("nan"),
              "independence": hmc.jump_sum / hmc.n_jumps if hmc.n_jumps else float("nan"),
              "population": weave.acceptance()}
    return HierarchicalDraws(pi_out, theta_out, accept, mean_out, conc_out)


def sample(model: Model, *, draws: int, chains: int, warmup: int, seed,
           hyper: Hyperprior = HYPERPRIOR) -> HierarchicalDraws:
    """The draws of one fit: :func:`sample_batch` with one data set (the faces' entry)."""
    out = sample_batch(model.paired[None], model.human[None], model.metric[None],
                       model.prior[None], paired_informs_pi=model.paired_informs_pi,
                       draws=draws, chains=chains, warmup=warmup, seed=seed, hyper=hyper)
    return HierarchicalDraws(out.pi[:, :, 0], out.theta[:, :, 0], out.accept, out.mean[:, :, 0],
                             out.concentration[:, :, 0])
