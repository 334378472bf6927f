"""The K x J latent-truth model and its sampler.

The model
---------
For each group ``g`` (a system, or a pair of systems for preferences) the human rating of an
item is its latent truth ``c`` in ``K`` classes, ``pi_g ~ Dirichlet(a)``; a metric output ``j``
in ``J`` categories has ``P(j | c) = Theta_g[c, j]``, each row ``~ Dirichlet(b_c)``.  With several
metrics ``j`` is the joint pattern of their outputs (``J`` is the product of their levels) and
``Theta`` is either unrestricted (``dependence="joint"``) or the product of one confusion matrix
per metric (``"independent"``: the metrics are conditionally independent given the truth).
``Theta`` is per group (``rates="estimate"``), one for all groups (``"pooled"``) or known.

Data per group: paired counts ``N[c, j]`` (human and metric), human-only counts ``h[c]`` and
metric-only counts ``m[j]``.  The likelihood is

    prod_cj Theta[c, j]^N[c, j] * prod_c pi_c^(h_c + N[c, .]) * prod_j q_j^m_j,
    q = pi Theta (the metric's output distribution),

where the factor ``pi_c^N[c, .]`` is dropped when the paired items are a separate calibration
sample (``paired_informs_pi=False``; QuaPy's ``BayesianCC`` makes that assumption).

The sampler
-----------
With many metric-only items the metric's output distribution ``q`` is pinned down while ``pi``
and ``Theta`` can still trade off along the ridge ``pi Theta = q`` (a weak metric or few paired
items make it long).  Data augmentation (imputing the classes of the metric-only items) moves
along it in steps of the size of the complete-data posterior, so it stalls exactly where the
model matters; an independence proposal at the mode of ``p(pi | Theta)`` must be rebuilt by
Newton's method whenever ``Theta`` moves (its Hessian can be singular) and still leaves
``Theta`` to the slow moves.  The sampler instead works in coordinates in which the ridge is
straight, per (chain, group) unit and vectorised over all units:

* *Unrestricted ``Theta`` per group* (the preference model, several metrics jointly, bins): the
  reverse parametrisation ``P[c, j] = pi_c Theta[c, j] = q_j R[j, c]`` with ``R[j] = P(c |
  j)``.  The metric-only items inform only ``q``, so the ridge is an axis.  In additive
  log-ratio coordinates of ``q`` and of every ``R[j]`` the posterior density is

      prod_j q_j^(b_.j + N_.j + m_j) * prod_jc R[j, c]^(b_cj + N_cj) * prod_c pi_c^lambda_c,
      pi_c = sum_j q_j R[j, c],  lambda_c = a_c - B_c + h_c (- N_c. for a calibration sample),

  with ``B_c = sum_j b_cj``: our prior is ``Dir(P; b) Dir(pi; a) / Dir(pi; B)`` (the
  aggregation property of the Dirichlet), the Jacobian of ``P -> (q, R)`` is ``prod_j
  q_j^(K - 1)`` and each log-ratio map contributes the product of its simplex's components
  (the tests check this density against the posterior through a numerical Jacobian).  A
  Dirichlet in ``(q, R)`` times one smooth factor: close to Gaussian, and a rare class's share
  and row separate additively in the logarithms.  No augmentation is needed for human-only
  items or a calibration sample.
* *The product form of several metrics* (``dependence="independent"``): the shares and the rows
  of every metric's matrix in log-ratio coordinates, after a Gibbs sweep of data augmentation,
  a sweep over the rows and a relabelling step (below); two Hamiltonian transitions per
  iteration, with up to ``HMC_MAX_STEPS`` leapfrog steps.
* *Pooled or known ``Theta``*: every group's shares given ``Theta``, after a data-augmentation
  sweep that also draws the pooled ``Theta``.

The moves, each of which leaves the posterior exactly invariant:

H. *Hamiltonian Monte Carlo* (Neal 2011): a fresh momentum, leapfrog steps with a dense metric,
   and the Metropolis probability ``min(1, exp(-dH))`` (NaN or infinite energies reject).
   Leapfrog integration is volume preserving and reversible; the step size is jittered by
   +-20 % (a random choice independent of the state).  The trajectory is a quarter period of a
   Gaussian in whitened units (``pi / 2``): draws and their squares both decorrelate, so the
   spread mixes as well as the location (a half period would make the squares repeat);
   ``HMC_STEPS`` = 3 steps suffice for the reverse parametrisation.
I. *An independence proposal* after each Hamiltonian transition: a multivariate t (5 degrees of
   freedom) at the unit's warm-up mean with 1.2 times its metric as scale, accepted with
   ``min(1, w(y') / w(y))``, ``w = p / t``.  It does not depend on the current point, and its
   heavy tails reach the far ends of skewed posteriors, where short trajectories are slow.
A. *Data augmentation* (Tanner and Wong 1987): impute ``Z[c, j] ~ Multinomial(m_j, pi_c
   Theta[c, j] / q_j)`` and draw ``pi ~ Dir(a + h + N[c, .] + Z)``, ``Theta[c] ~ Dir(b_c + N[c]
   + Z[c])`` (pooled: summed over groups; the product form: one Dirichlet per metric from the
   margins of ``N + Z``): a Gibbs sweep.
E. *One row of a metric's matrix given the rest* (the product form): proposed from the paired
   items' posterior ``Dir(b + n_r[c])``, accepted with ``min(1, prod_j (q'_j / q_j)^m_j)``, the
   rest of the full conditional: Metropolis-within-Gibbs.
D. *A new split of two classes' shares* (a calibration sample, whose paired items do not
   inform ``pi``): with ``s = pi_a + pi_b`` fixed, ``pi_a' = u s``, ``u ~ Uniform(0, 1)``
   independent of the current split, ``Theta`` unchanged, accepted with the ratio of the
   posterior densities: Metropolis-within-Gibbs on the split.  When the metric tells two classes
   apart poorly, their split is nearly free and flat up to its ends, which log-ratio coordinates
   stretch into long tails.
S. *Relabelling* (the product form): swap the shares and rows of two classes.  The swap is an
   involution with unit Jacobian that leaves ``q`` unchanged, so its ratio is that of the
   priors and the paired and human-only items; it crosses between the mirror modes that a
   weak anchoring by the paired items leaves.

Warm-up (at least 20 iterations) adapts, per unit and from the chain's own draws only: the
step size throughout (dual averaging towards an acceptance of 0.7, Hoffman and Gelman 2014),
the metric and the mean from the draws of [15 %, 40 %) and [40 %, 85 %) of it (the covariance
regularised towards a multiple of the identity as Stan does), the number of leapfrog steps at
85 %; the last 15 % settle the step size.  After warm-up nothing adapts, so the draws kept come
from a fixed Markov kernel that leaves the posterior invariant.

Where mixing stays slow, the diagnostics say so: a calibration sample whose metric cannot tell
two classes apart (a share with a long, flat tail down to 0; the tests' case needs the 2,000
draws the warning asks for), and in the product form a class with almost no paired items.

Checked against exact answers: with K = J = 2 the draws match :func:`binaryeval.alpha_posterior`
(mean, sd, 2.5 / 97.5 % quantiles within 5 Monte-Carlo errors) on weak and strong metrics, known
rates, human-only ratings and the calibration design; K = 3 against a grid posterior (known
rates), QuaPy's BayesianCC (calibration design) and Dirichlet closed forms; simulation-based
calibration (ranks of the true values among the draws) in the tests and, at 500 data sets per
design, in ``studies/latent_sbc.py``.

Draws are seeded: ``numpy.random.SeedSequence(seed).spawn(chains)`` gives each chain its own
generator, and every adaptation uses the chain's own draws, so a chain's draws do not depend on
how many chains run beside it.  Diagnostics (rank-normalised split R-hat, bulk and tail ESS)
are in :mod:`binaryeval.latent.diagnostics`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validate as v
from ..errors import CountsError, ParameterError

__all__: list[str] = []

_TINY = np.finfo(float).tiny
#: leapfrog steps per transition (the most for the reverse and shares forms), the acceptance
#: rate the step size is tuned to, its jitter
HMC_STEPS = 3
HMC_ACCEPT = 0.7
HMC_JITTER = 0.2
#: trajectory length in whitened units (``eps * steps``); the product form's most leapfrog steps
#: per transition and transitions per iteration
HMC_LENGTH = 0.5 * np.pi
HMC_MAX_STEPS = 12
HMC_TRANSITIONS = 2
#: kept draws turned from coordinates into shares and rates at once (at most, and at most
#: about 16 MB of coordinates)
STATE_BLOCK = 50
STATE_BLOCK_BYTES = 2**24
#: the independence move: degrees of freedom and scale (times the metric's) of its t proposal
T_DOF = 5
T_SCALE = 1.2


@dataclass(frozen=True)
class Model:
    """The fixed parts of a latent-truth model (counts and priors already checked).

    Shapes: ``paired`` (G, K, J), ``human`` (G, K), ``metric`` (G, J), ``prior`` (G, K),
    ``rate_prior`` (K, J) for the unrestricted ``Theta`` or a list of (K, L_r) for the product
    model, ``known`` (1 or G, K, J) for known rates.
    """

    paired: np.ndarray
    human: np.ndarray
    metric: np.ndarray
    prior: np.ndarray
    rate_prior: object
    levels: tuple[int, ...]
    dependence: str = "joint"
    rates: str = "estimate"
    known: np.ndarray | None = None
    paired_informs_pi: bool = True

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.paired.shape  # type: ignore[return-value]

    @property
    def n_theta_groups(self) -> int:
        if self.rates == "pooled":
            return 1
        if self.rates == "known":
            return int(self.known.shape[0])  # type: ignore[union-attr]
        return self.paired.shape[0]


@dataclass(frozen=True)
class Draws:
    """Posterior draws and the acceptance rates of the moves.

    ``pi`` has shape (chains, draws, G, K); ``theta`` (chains, draws, Gt, K, J) as float32
    (None for known rates).  ``accept`` holds the mean acceptance rate of the Hamiltonian move
    after warm-up.
    """

    pi: np.ndarray
    theta: np.ndarray | None
    accept: dict


# ----------------------------------------------------------------------------------------------
# random building blocks, one generator per chain
# ----------------------------------------------------------------------------------------------

def _dirichlet(rngs, conc: np.ndarray, axis: int = -1) -> np.ndarray:
    """Dirichlet draws along ``axis`` of ``conc`` (leading axis = chains), via gamma draws."""
    conc = np.ascontiguousarray(conc, dtype=float)
    out = np.empty(conc.shape)
    for c, rng in enumerate(rngs):
        rng.standard_gamma(conc[c], out=out[c])
    np.maximum(out, _TINY, out=out)
    out /= out.sum(axis=axis, keepdims=True)
    return out


def _multinomial(rngs, n: np.ndarray, prob: np.ndarray, axis: int) -> np.ndarray:
    """Multinomial counts spreading ``n`` over ``axis`` of ``prob`` (sequential binomials).

    ``n`` has the shape of ``prob`` without ``axis``; the leading axis is the chain.
    """
    p = np.moveaxis(prob, axis, 1)  # (C, K, ...)
    k = p.shape[1]
    out = np.empty(p.shape, dtype=np.int64)
    remaining = np.array(n, dtype=np.int64)
    left = np.ones(remaining.shape)
    share = np.empty(remaining.shape)
    for i in range(k - 1):
        np.divide(p[:, i], left, out=share, where=left > 0)
        share[left <= 0] = 0.0
        np.clip(share, 0.0, 1.0, out=share)
        for c, rng in enumerate(rngs):
            out[c, i] = rng.binomial(remaining[c], share[c])
        remaining -= out[:, i]
        left -= p[:, i]
    out[:, k - 1] = remaining
    return np.moveaxis(out, 1, axis)


def _unit_draws(rngs, groups: int, method: str, lead: tuple[int, ...] = ()) -> np.ndarray:
    """Draws of shape (*lead, chains * groups), chain by chain.

    ``method``: ``"normal"`` (standard), ``"uniform"`` or ``"gamma"`` (shape ``T_DOF / 2``).
    """
    out = np.empty((*lead, len(rngs) * groups))
    for c, rng in enumerate(rngs):
        size = (*lead, groups)
        out[..., c * groups:(c + 1) * groups] = (
            rng.standard_normal(size) if method == "normal" else rng.random(size)
            if method == "uniform" else rng.standard_gamma(T_DOF / 2.0, size))
    return out


# ----------------------------------------------------------------------------------------------
# Theta in its two structures; log-ratio coordinates (simplex along axis 0 or 1, units last)
# ----------------------------------------------------------------------------------------------

def _product_theta(parts: list[np.ndarray]) -> np.ndarray:
    """Theta[c, (j1, j2, ...)] = prod_r Theta_r[c, j_r] for (..., K, L_r) parts."""
    out = parts[0]
    for part in parts[1:]:
        out = (out[..., :, None] * part[..., None, :]).reshape(*out.shape[:-1], -1)
    return out


def _margins(counts: np.ndarray, levels: tuple[int, ...]) -> list[np.ndarray]:
    """Per-metric margins of (..., K, J) counts over the joint patterns."""
    lead = counts.shape[:-1]
    full = counts.reshape(*lead, *levels)
    n_lead = len(lead)
    out = []
    for r in range(len(levels)):
        other = tuple(n_lead + s for s in range(len(levels)) if s != r)
        out.append(full.sum(axis=other))
    return out


def _cut(axis: int, index) -> tuple:
    """An index selecting ``index`` along ``axis``."""
    return (slice(None),) * axis + (index,)


def _alr(x: np.ndarray, axis: int) -> np.ndarray:
    """Additive log-ratios along ``axis`` (last category the reference): n -> n - 1."""
    logs = np.log(np.maximum(x, _TINY))
    return logs[_cut(axis, slice(None, -1))] - logs[_cut(axis, slice(-1, None))]


def _simplex(y: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The inverse additive log-ratio along ``axis`` (n - 1 -> n).

    Returns ``x``, ``y`` and ``log_total``: ``log x`` is ``y - log_total`` (the last component
    ``-log_total``).

    Log-ratios above about 700 overflow to NaN, which the Hamiltonian move rejects; no
    posterior puts mass there (it would need a share below 1e-304).
    """
    e = np.exp(y)
    total = 1.0 + e.sum(axis=axis, keepdims=True)
    x = np.concatenate([e, np.ones_like(total)], axis=axis) / total
    return x, y, np.log(total)


def _dirichlet_log(alpha: np.ndarray, alpha_sum: np.ndarray, y: np.ndarray,
                   log_total: np.ndarray, axis: int) -> np.ndarray:
    """``sum alpha log x`` along ``axis`` for ``x`` the inverse log-ratio of ``y``."""
    head = alpha[_cut(axis, slice(None, -1))]
    return (head * y).sum(axis=axis) - alpha_sum.squeeze(axis) * log_total.squeeze(axis)


def _simplex_grad(x: np.ndarray, alpha: np.ndarray, alpha_sum: np.ndarray, ext: np.ndarray,
                  axis: int) -> np.ndarray:
    """Gradient in log-ratio coordinates of ``sum alpha log x + f(x)`` with ``df/dx = ext``.

    ``x`` is the inverse log-ratio of ``y`` along ``axis``; the log-ratio Jacobian ``prod x``
    is part of ``alpha`` (a Dirichlet(alpha) density times the Jacobian is ``prod x^alpha``);
    ``alpha_sum`` is ``alpha`` summed along ``axis`` (kept).
    """
    inner = (x * ext).sum(axis=axis, keepdims=True) + alpha_sum
    head = _cut(axis, slice(None, -1))
    return alpha[head] + x[head] * (ext[head] - inner)


def _units(a: np.ndarray, chains: int) -> np.ndarray:
    """A per-group array (G, ...) laid out per unit, units last: (..., chains * G)."""
    moved = np.moveaxis(np.asarray(a, dtype=float), 0, -1)
    return np.ascontiguousarray(np.tile(moved, (1,) * (moved.ndim - 1) + (chains,)))


# ----------------------------------------------------------------------------------------------
# the target of the Hamiltonian move, units last
# ----------------------------------------------------------------------------------------------

class _Target:
    """Log posterior density and gradient in log-ratio coordinates, per (chain, group) unit.

    ``kind``: ``"reverse"`` (``y = (alr q, alr R[0], ..., alr R[J-1])``), ``"shares"``
    (``y = alr pi`` given ``Theta``) or ``"product"`` (``y = (alr pi, alr Theta_1[0], ...,
    alr Theta_R[K-1])``).  Arrays hold the units on their last axis.
    """

    def __init__(self, kind: str, k: int, j: int, levels: tuple[int, ...], **const):
        self.kind = kind
        self.k, self.j, self.levels = k, j, levels
        # the sums of every exponent array along its simplex axis, kept
        if "alpha" in const:
            const["alpha_sum"] = const["alpha"].sum(axis=0, keepdims=True)
        if kind == "reverse":
            const["e_q_head"] = const["e_q"][:-1]
            const["e_q_sum"] = const["e_q"].sum(axis=0)
            const["e_r_head"] = const["e_r"][:, :-1]
            const["e_r_sum"] = const["e_r"].sum(axis=1)  # (J, U)
            const["q_shift"] = const["lam"].sum(axis=0) + const["e_q_sum"]
        if "alpha_parts" in const:
            const["alpha_parts_sum"] = [a.sum(axis=1, keepdims=True)
                                        for a in const["alpha_parts"]]
        self.const = const
        if kind == "reverse":
            self.dim = (j - 1) + j * (k - 1)
        elif kind == "shares":
            self.dim = k - 1
        else:
            self.dim = (k - 1) + k * sum(lv - 1 for lv in levels)

    # -- coordinates ------------------------------------------------------------------------------
    def blocks(self, y: np.ndarray) -> list[np.ndarray]:
        k, j = self.k, self.j
        u = y.shape[-1]
        if self.kind == "reverse":
            return [y[:j - 1], y[j - 1:].reshape(j, k - 1, u)]
        out = [y[:k - 1]]
        start = k - 1
        for lv in (self.levels if self.kind == "product" else ()):
            size = k * (lv - 1)
            out.append(y[start:start + size].reshape(k, lv - 1, u))
            start += size
        return out

    def from_state(self, pi: np.ndarray, theta: np.ndarray, parts: list | None) -> np.ndarray:
        """``y`` (d, U) from ``pi`` (K, U), ``Theta`` (K, J, U) and the product's parts."""
        u = pi.shape[-1]
        if self.kind == "reverse":
            joint = pi[:, None] * theta  # (K, J, U)
            q = joint.sum(axis=0)
            r = np.swapaxes(joint, 0, 1) / np.maximum(q, _TINY)[:, None]
            return np.concatenate([_alr(q, 0), _alr(r, 1).reshape(-1, u)])
        out = [_alr(pi, 0)]
        for part in (parts if self.kind == "product" else ()):  # type: ignore[union-attr]
            out.append(_alr(part, 1).reshape(-1, u))
        return np.concatenate(out)

    def to_state(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, list | None]:
        """``pi`` (K, U), ``Theta`` (K, J, U) or None, and the product's parts."""
        b = self.blocks(y)
        if self.kind == "reverse":
            q = _simplex(b[0], 0)[0]
            r = _simplex(b[1], 1)[0]  # (J, K, U)
            joint = np.swapaxes(r, 0, 1) * q[None]  # (K, J, U)
            pi = joint.sum(axis=1)
            return pi, joint / np.maximum(pi, _TINY)[:, None], None
        pi = _simplex(b[0], 0)[0]
        if self.kind == "shares":
            return pi, None, None
        parts = [_simplex(x, 1)[0] for x in b[1:]]
        return pi, _product_theta_units(parts), parts

    # -- density ----------------------------------------------------------------------------------
    def __call__(self, y: np.ndarray, theta: np.ndarray | None = None, value: bool = True
                 ) -> tuple[np.ndarray | None, np.ndarray]:
        """Log density (up to a constant; None unless ``value``) and gradient at ``y`` (d, U)."""
        if self.kind == "reverse":
            return self._reverse(y, value)
        c = self.const
        b = self.blocks(y)
        pi, y_pi, lt_pi = _simplex(b[0], 0)
        if self.kind == "product":
            parts_all = [_simplex(x, 1) for x in b[1:]]
            parts = [x for x, _, _ in parts_all]
            theta = _product_theta_units(parts)
        q = np.maximum((pi[:, None] * theta).sum(axis=0), _TINY)  # (J, U)
        logp = None
        if value:
            logp = (_dirichlet_log(c["alpha"], c["alpha_sum"], y_pi, lt_pi, 0)
                    + (c["metric"] * np.log(q)).sum(axis=0))
        w = c["metric"] / q
        grads = [_simplex_grad(pi, c["alpha"], c["alpha_sum"], (theta * w[None]).sum(axis=1),
                               0)]
        if self.kind == "product":
            k, u = pi.shape
            wk = (pi[:, None] * w[None]).reshape(k, *self.levels, u)
            for r, (alpha, alpha_sum, (part, y_part, lt_part)) in enumerate(zip(
                    c["alpha_parts"], c["alpha_parts_sum"], parts_all, strict=True)):
                if value:
                    logp = logp + _dirichlet_log(alpha, alpha_sum, y_part, lt_part, 1).sum(
                        axis=0)
                ext = wk
                for s in range(len(parts) - 1, -1, -1):  # sum out every other metric
                    if s == r:
                        continue
                    shape = [k] + [1] * len(self.levels) + [u]
                    shape[1 + s] = self.levels[s]
                    ext = (ext * parts[s].reshape(shape)).sum(axis=1 + s)
                grads.append(_simplex_grad(part, alpha, alpha_sum, ext, 1).reshape(-1, u))
        return logp, np.concatenate(grads)

    def _reverse(self, y: np.ndarray, value: bool) -> tuple[np.ndarray | None, np.ndarray]:
        """The target in ``(q, R)``, written out.

        With ``v = lambda / pi`` the gradient in the log-ratios of ``q`` is ``e_q,j - e_q,. q_j
        + q_j (sum_k R[j, k] v_k - sum_k lambda_k)`` (``sum_j q_j sum_k R[j, k] v_k = sum_k
        lambda_k``) and in those of ``R[j]`` ``e_r,jk - e_r,j. R[j, k] + R[j, k] q_j (v_k -
        sum_k' R[j, k'] v_k')``.
        """
        c = self.const
        j, k = self.j, self.k
        u = y.shape[-1]
        y_q, y_r = y[:j - 1], y[j - 1:].reshape(j, k - 1, u)
        e_q, e_r = np.exp(y_q), np.exp(y_r)
        t_q, t_r = 1.0 + e_q.sum(axis=0), 1.0 + e_r.sum(axis=1)  # (U,), (J, U)
        q = np.empty((j, u))
        np.divide(e_q, t_q, out=q[:-1])
        np.divide(1.0, t_q, out=q[-1])
        r = np.empty((j, k, u))
        np.divide(e_r, t_r[:, None], out=r[:, :-1])
        np.divide(1.0, t_r, out=r[:, -1])
        pi = np.maximum(np.einsum("ju,jku->ku", q, r), _TINY)  # (K, U)
        lam = c["lam"]
        v = lam / pi
        ext = np.einsum("jku,ku->ju", r, v)  # sum_k R[j, k] v_k
        grad = np.empty_like(y)
        grad[:j - 1] = c["e_q_head"] + q[:-1] * (ext[:-1] - c["q_shift"])
        grad[j - 1:] = (c["e_r_head"] + r[:, :-1] * (q[:, None] * (v[None, :-1] - ext[:, None])
                                                      - c["e_r_sum"][:, None])).reshape(-1, u)
        logp = None
        if value:
            logp = ((c["e_q_head"] * y_q).sum(axis=0) - c["e_q_sum"] * np.log(t_q)
                    + (c["e_r_head"] * y_r).sum(axis=(0, 1))
                    - (c["e_r_sum"] * np.log(t_r)).sum(axis=0) + (lam * np.log(pi)).sum(axis=0))
        return logp, grad


def _product_theta_units(parts: list[np.ndarray]) -> np.ndarray:
    """The product ``Theta`` (K, J, U) from parts (K, L_r, U)."""
    out = parts[0]
    for part in parts[1:]:
        k, a, u = out.shape
        out = (out[:, :, None] * part[:, None]).reshape(k, a * part.shape[1], u)
    return out


# ----------------------------------------------------------------------------------------------
# the Hamiltonian move
# ----------------------------------------------------------------------------------------------

class _Hamiltonian:
    """HMC for units (columns): per-unit step size, trajectory and dense metric, from warm-up.

    The metric enters as a square root ``S`` of the covariance (``S S^T``): the leapfrog runs
    in ``x = S^-1 y`` with unit mass, so that ``y += eps S p`` and the gradient is ``S^T g``.
    Each unit takes its own number of leapfrog steps, ``HMC_LENGTH / eps`` (``HMC_STEPS``
    before the end of warm-up).
    """

    def __init__(self, target: _Target, scale: np.ndarray, max_steps: int):
        self.target = target
        self.max_steps = max_steps
        d, u = scale.shape
        self.root = np.zeros((d, d, u))
        self.root[np.arange(d), np.arange(d)] = scale
        self.eps = np.full(u, 0.5 / np.sqrt(np.sqrt(d)))
        self.n_steps = np.full(u, HMC_STEPS)
        self._plan: tuple | None = None  # the leapfrog schedule of n_steps (see _schedule)
        # the independence proposal: a multivariate t around the warm-up mean
        self.root_inv = np.zeros((d, d, u))
        self.root_inv[np.arange(d), np.arange(d)] = 1.0 / scale
        self.center = np.zeros((d, u))
        self.has_center = np.zeros(u, dtype=bool)
        self.jump_sum = 0.0
        self.n_jumps = 0
        self._restart()
        self.window: list[np.ndarray] = []
        self.accept_sum = 0.0
        self.n_kept = 0

    def _restart(self) -> None:
        """Dual averaging state (Hoffman and Gelman 2014, algorithm 5) from the current step."""
        self.mu = np.log(10.0 * self.eps)
        self.hbar = np.zeros_like(self.eps)
        self.log_eps_bar = np.zeros_like(self.eps)
        self.t = 0

    def set_lengths(self, eps: np.ndarray) -> None:
        """Leapfrog steps per unit from adapted step sizes ``eps``.

        ``n = ceil(HMC_LENGTH / eps)`` (at most ``max_steps``), and the step size becomes
        ``HMC_LENGTH / n``.

        A trajectory of length pi / 2 in whitened units is a quarter period of a Gaussian
        target: both the draws and their squares decorrelate (the spread mixes as well as the
        location), where a half period would make the squares repeat.
        """
        n = np.clip(np.ceil(HMC_LENGTH / eps), 1, self.max_steps)
        self.eps = np.minimum(eps, HMC_LENGTH / n)
        self.n_steps = n.astype(np.int64)

    def step(self, y0: np.ndarray, rngs, groups: int, theta: np.ndarray | None,
             adapting: bool, start: tuple | None = None) -> tuple[np.ndarray, tuple]:
        """One transition from ``y0``.

        ``start`` is the target's value and gradient at ``y0`` when known.  Returns the new
        point with the target's value and gradient there.
        """
        d = y0.shape[0]
        lp0, grad0 = self.target(y0, theta) if start is None else start
        mom0 = _unit_draws(rngs, groups, "normal", (d,))
        uniform = _unit_draws(rngs, groups, "uniform", (2,))
        eps = self.eps * (1.0 + HMC_JITTER * (2.0 * uniform[0] - 1.0))
        y, lp, grad, mom = self._leapfrog(y0, grad0, mom0, eps, theta)
        log_ratio = (lp - lp0) - 0.5 * ((mom * mom).sum(axis=0) - (mom0 * mom0).sum(axis=0))
        prob = np.exp(np.minimum(log_ratio, 0.0))
        accept = uniform[1] < prob  # NaN (an overflow on the way) compares false: a rejection
        if adapting:
            self._adapt_step(np.where(np.isnan(prob), 0.0, prob))
        else:
            self.accept_sum += float(accept.mean())
            self.n_kept += 1
        return np.where(accept, y, y0), (np.where(accept, lp, lp0), np.where(accept, grad, grad0))

    def _leapfrog(self, y, grad, mom, eps, theta):
        """``n_steps`` leapfrog steps per unit, in one loop.

        A unit that has taken its steps stays where it is (its gradient is recomputed there,
        its momentum no longer moves).
        """
        root = self.root
        moves, kicks = self._schedule()
        mom = mom + 0.5 * eps * np.einsum("abu,au->bu", root, grad)
        lp = None
        for i, (move, kick) in enumerate(zip(moves, kicks, strict=True)):
            y = y + (eps if move is None else eps * move) * np.einsum("abu,bu->au", root, mom)
            lp, grad = self.target(y, theta, value=i == len(moves) - 1)
            mom = mom + eps * kick * np.einsum("abu,au->bu", root, grad)
        return y, lp, grad, mom

    def _schedule(self) -> tuple[list, list]:
        """Per leapfrog step, which units move (None: all) and their momentum kick in steps.

        The kick is 1 for a full step, 0.5 for a unit's last half step and 0 once it is done;
        both depend only on ``n_steps``, so they are kept until it changes.
        """
        n = self.n_steps
        if self._plan is None or self._plan[0] is not n:
            n_max = int(n.max())
            moves = [None if n_max == n.min() else (i < n).astype(float) for i in range(n_max)]
            kicks = [np.where(i < n - 1, 1.0, np.where(i == n - 1, 0.5, 0.0))
                     for i in range(n_max)]
            self._plan = (n, moves, kicks)
        return self._plan[1], self._plan[2]

    def jump(self, y0: np.ndarray, rngs, groups: int, theta: np.ndarray | None,
             start: tuple | None, kept: bool) -> tuple[np.ndarray, tuple]:
        """An independence Metropolis-Hastings step from a multivariate t.

        The t has ``T_DOF`` degrees of freedom, the warm-up mean and ``T_SCALE`` times the
        metric's scale.

        The proposal does not depend on the current point, so the ratio ``(p(y') / t(y')) /
        (p(y) / t(y))`` makes the move exact; its heavy tails reach the far ends of skewed
        posteriors, where the short Hamiltonian trajectories move slowly.
        """
        d, u = y0.shape
        lp0, grad0 = self.target(y0, theta) if start is None else start
        z = _unit_draws(rngs, groups, "normal", (d,))
        u_acc = _unit_draws(rngs, groups, "uniform")
        scale = np.sqrt(2.0 * _unit_draws(rngs, groups, "gamma") / T_DOF)  # chi2(dof) / dof
        y = self.center + T_SCALE * np.einsum("abu,bu->au", self.root, z) / scale

        def log_t(point):
            x = np.einsum("abu,bu->au", self.root_inv, point - self.center) / T_SCALE
            return -0.5 * (T_DOF + d) * np.log1p((x * x).sum(axis=0) / T_DOF)

        lp, grad = self.target(y, theta)
        log_ratio = (lp - log_t(y)) - (lp0 - log_t(y0))
        accept = (u_acc < np.exp(np.minimum(log_ratio, 0.0))) & self.has_center  # NaN: no
        if kept:
            self.jump_sum += float(accept.mean())
            self.n_jumps += 1
        return np.where(accept, y, y0), (np.where(accept, lp, lp0), np.where(accept, grad, grad0))

    def _adapt_step(self, prob: np.ndarray) -> None:
        self.t += 1
        t = self.t
        t0, gamma, kappa = 10.0, 0.05, 0.75
        self.hbar = (1.0 - 1.0 / (t + t0)) * self.hbar + (HMC_ACCEPT - prob) / (t + t0)
        log_eps = np.clip(self.mu - np.sqrt(t) / gamma * self.hbar, -14.0, 2.0)
        self.eps = np.exp(log_eps)
        weight = t ** -kappa
        self.log_eps_bar = weight * log_eps + (1.0 - weight) * self.log_eps_bar

    def collect(self, y: np.ndarray) -> None:
        self.window.append(y)

    def update_metric(self, lengths: bool = False) -> None:
        """Dense metric from the window's draws, per unit; Stan's regularisation.

        ``(n / (n + 5)) S + 10^-3 (5 / (n + 5)) s I`` with ``S`` the sample covariance and
        ``s`` its mean variance; units whose draws are not finite keep their metric.
        """
        if len(self.window) >= 10:
            x = np.stack(self.window)  # (n, d, U)
            n, d, _ = x.shape
            centred = x - x.mean(axis=0)
            cov = np.einsum("nau,nbu->uab", centred, centred) / (n - 1)
            var = np.einsum("uaa->ua", cov).mean(axis=1)
            w = n / (n + 5.0)
            reg = w * cov + ((1.0 - w) * 1e-3 * var + 1e-12)[:, None, None] * np.eye(d)
            ok = np.isfinite(reg).all(axis=(1, 2)) & (var > 0)
            reg[~ok] = np.eye(d)
            vals, vecs = np.linalg.eigh(reg)
            floor = 1e-10 * np.abs(vals).max(axis=1, keepdims=True) + 1e-300
            sqrt_vals = np.sqrt(np.maximum(vals, floor))
            root = np.moveaxis(vecs * sqrt_vals[:, None, :], 0, -1)  # reg = root root^T
            root_inv = np.moveaxis(np.swapaxes(vecs, 1, 2) / sqrt_vals[:, :, None], 0, -1)
            self.root = np.where(ok, root, self.root)
            self.root_inv = np.where(ok, root_inv, self.root_inv)
            self.center = np.where(ok, x.mean(axis=0), self.center)
            self.has_center = self.has_center | ok
        self.window = []
        if self.t and lengths:
            self.set_lengths(np.exp(self.log_eps_bar))
        self._restart()

    def finish_step_size(self) -> None:
        if self.t:
            self.eps = np.exp(self.log_eps_bar)
        self.set_lengths(self.eps)


# ----------------------------------------------------------------------------------------------
# the chains
# ----------------------------------------------------------------------------------------------

class _Sampler:
    """State and moves of the chains of one fit (all groups at once).

    ``pi`` (C, G, K) and ``theta`` (C, Gt, K, J) are the state; the Hamiltonian move works on
    the same state laid out per unit (units last).
    """

    def __init__(self, model: Model, chains: int, seed) -> None:
        self.model = model
        ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        self.rngs = [np.random.default_rng(s) for s in ss.spawn(chains)]
        self.chains = chains
        g, k, j = model.shape
        self.n_paired_class = model.paired.sum(axis=2)  # (G, K)
        informs = model.paired_informs_pi
        self.pi_counts = model.human + (self.n_paired_class if informs else 0)  # (G, K)
        joint = model.dependence == "joint"
        self.kind = ("shares" if model.rates != "estimate" else
                     "reverse" if joint else "product")
        # the product form's parts (one confusion matrix per metric) and their priors
        self.part_priors = [model.rate_prior] if joint else list(model.rate_prior)
        self.levels = (j,) if joint else model.levels
        self._init_state()
        self._init_hamiltonian()

    # -- state -------------------------------------------------------------------------------
    def _init_state(self) -> None:
        m = self.model
        c = self.chains
        g, k, j = m.shape
        base = np.broadcast_to(m.prior + self.pi_counts, (c, g, k))
        self.pi = _dirichlet(self.rngs, base)
        self.parts = None
        if m.rates == "known":
            self.theta = np.broadcast_to(m.known, (c, *m.known.shape)).copy()
        elif m.dependence == "independent":
            self.parts = []
            for prior_r, marg in zip(self.part_priors, _margins(m.paired, self.levels),
                                     strict=True):
                conc = prior_r + (marg.sum(axis=0, keepdims=True) if m.rates == "pooled"
                                  else marg)
                self.parts.append(_dirichlet(self.rngs, np.broadcast_to(
                    conc, (c, *conc.shape))))
            self.theta = _product_theta(self.parts)
        else:
            conc = m.rate_prior + (m.paired.sum(axis=0, keepdims=True) if m.rates == "pooled"
                                   else m.paired)
            self.theta = _dirichlet(self.rngs, np.broadcast_to(conc, (c, *conc.shape)))

    def _theta_full(self) -> np.ndarray:
        """Theta broadcast to (C, G, K, J)."""
        g = self.model.shape[0]
        return np.broadcast_to(self.theta, (self.chains, g, *self.theta.shape[2:]))

    # -- data augmentation --------------------------------------------------------------------
    def augmentation(self) -> None:
        m = self.model
        theta = self._theta_full()
        joint = self.pi[..., None] * theta  # (C, G, K, J)
        q = joint.sum(axis=2, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            post = np.where(q > 0, joint / q, 1.0 / joint.shape[2])
        z = _multinomial(self.rngs, np.broadcast_to(m.metric, q[:, :, 0].shape), post, axis=2)
        self.pi = _dirichlet(self.rngs, m.prior + self.pi_counts + z.sum(axis=3))
        if m.rates == "known":
            return
        complete = m.paired + z  # (C, G, K, J)
        if self.parts is not None:
            for r, (prior_r, marg) in enumerate(zip(self.part_priors,
                                                    _margins(complete, self.levels),
                                                    strict=True)):
                if m.rates == "pooled":
                    marg = marg.sum(axis=1, keepdims=True)
                self.parts[r] = _dirichlet(self.rngs, prior_r + marg)  # type: ignore[index]
            self.theta = _product_theta(self.parts)  # type: ignore[arg-type]
        else:
            if m.rates == "pooled":
                complete = complete.sum(axis=1, keepdims=True)
            self.theta = _dirichlet(self.rngs, m.rate_prior + complete)

    # -- one row of a metric's matrix given the rest ------------------------------------------
    def rows(self) -> None:
        """Each row of each metric's matrix in turn from its paired items' posterior.

        The full conditional of the row ``Theta_r[c]`` is ``Dir(b + n_r[c])`` (``n_r`` the
        margin of the paired counts for metric ``r``) times ``prod_j q_j^m_j``: an independence
        proposal from the Dirichlet is accepted with probability ``min(1, prod_j (q'_j /
        q_j)^m_j)``.  It moves the rows of rare classes, whose shares are too small for the
        metric-only items to pin them down.
        """
        m = self.model
        c = self.chains
        g, k, _ = m.shape
        metric = m.metric
        parts = self.parts
        q = np.einsum("cgk,cgkj->cgj", self.pi, self.theta)
        log_q = np.log(np.maximum(q, _TINY))
        margins = _margins(m.paired, self.levels)
        for r, (prior_r, marg) in enumerate(zip(self.part_priors, margins, strict=True)):
            for cls in range(k):
                prop = _dirichlet(self.rngs, np.broadcast_to(prior_r[cls] + marg[:, cls],
                                                              (c, g, marg.shape[2])))
                rows = [p[:, :, cls] for p in parts]  # type: ignore[union-attr]
                rows[r] = prop
                row_new = _product_theta(rows)  # (C, G, J)
                q_new = q + self.pi[:, :, cls, None] * (row_new - self.theta[:, :, cls])
                log_q_new = np.log(np.maximum(q_new, _TINY))
                log_ratio = (metric * (log_q_new - log_q)).sum(axis=2)
                u = np.stack([rng.random(g) for rng in self.rngs])
                take = (np.log(u) < log_ratio)[..., None]
                part = parts[r]  # type: ignore[index]
                part[:, :, cls] = np.where(take, prop, part[:, :, cls])
                self.theta[:, :, cls] = np.where(take, row_new, self.theta[:, :, cls])
                q = np.where(take, q_new, q)
                log_q = np.where(take, log_q_new, log_q)

    # -- a new split of two classes' shares ------------------------------------------------------
    def split(self) -> None:
        """Redraw how two classes (a pair chosen uniformly) share their total, given the rest.

        With ``s = pi_a + pi_b`` fixed, ``pi_a' = u s`` with ``u ~ Uniform(0, 1)`` (independent of
        the current split), ``Theta`` and the other shares unchanged: the ratio of the posterior
        densities is the Metropolis-Hastings ratio.  When the metric tells the two classes
        apart poorly, the split is nearly free and flat up to its ends, which log-ratio
        coordinates stretch into long tails.
        """
        m = self.model
        c = self.chains
        g, k, _ = m.shape
        pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
        choice = np.stack([rng.integers(len(pairs), size=g) for rng in self.rngs])
        u = np.stack([rng.random((2, g)) for rng in self.rngs])  # (C, 2, G)
        first = np.array([a for a, _ in pairs])[choice]
        second = np.array([b for _, b in pairs])[choice]
        ci, gi = np.indices((c, g))
        pi = self.pi
        total = pi[ci, gi, first] + pi[ci, gi, second]
        new = pi.copy()
        new[ci, gi, first] = u[:, 0] * total
        new[ci, gi, second] = (1.0 - u[:, 0]) * total
        alpha = m.prior + self.pi_counts - 1.0
        theta = self._theta_full()

        def log_density(shares):
            q = np.maximum(np.einsum("cgk,cgkj->cgj", shares, theta), _TINY)
            return ((alpha * np.log(np.maximum(shares, _TINY))).sum(axis=2)
                    + (m.metric * np.log(q)).sum(axis=2))

        log_ratio = log_density(new) - log_density(pi)
        accept = u[:, 1] < np.exp(np.minimum(log_ratio, 0.0))
        self.pi = np.where(accept[..., None], new, pi)

    # -- relabelling -------------------------------------------------------------------------
    def relabel(self) -> None:
        """Swap two classes' shares and rows, accepted with the Metropolis probability.

        The transposition of two classes is chosen uniformly.

        The swap is an involution of the parameter space with unit Jacobian and leaves ``q``
        (so the metric-only items' likelihood) unchanged; the ratio is that of the priors and
        the paired and human-only items.  It lets the product form move between the mirror
        modes that a weak anchoring by the paired items leaves.
        """
        m = self.model
        c = self.chains
        g, k, _ = m.shape
        pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
        choice = np.stack([rng.integers(len(pairs), size=g) for rng in self.rngs])
        perm = np.broadcast_to(np.arange(k), (c, g, k)).copy()
        for i, (a, b) in enumerate(pairs):
            hit = choice == i
            perm[hit, a], perm[hit, b] = b, a
        alpha = m.prior + self.pi_counts - 1.0  # (G, K)
        log_pi = np.log(np.maximum(self.pi, _TINY))
        new_log_pi = np.take_along_axis(log_pi, perm, axis=2)
        log_ratio = (alpha * (new_log_pi - log_pi)).sum(axis=2)
        margins = _margins(m.paired, self.levels)
        new_parts = []
        for prior_r, marg, part in zip(self.part_priors, margins, self.parts, strict=True):
            log_part = np.log(np.maximum(part, _TINY))
            new_log = np.take_along_axis(log_part, perm[..., None], axis=2)
            log_ratio = log_ratio + ((prior_r + marg - 1.0) * (new_log - log_part)).sum(
                axis=(2, 3))
            new_parts.append(np.take_along_axis(part, perm[..., None], axis=2))
        u = np.stack([rng.random(g) for rng in self.rngs])
        accept = np.log(u) < log_ratio
        self.pi = np.where(accept[..., None], np.take_along_axis(self.pi, perm, axis=2),
                           self.pi)
        self.parts = [np.where(accept[..., None, None], new, old)
                      for new, old in zip(new_parts, self.parts, strict=True)]
        self.theta = _product_theta(self.parts)

    # -- the Hamiltonian move -----------------------------------------------------------------
    def _init_hamiltonian(self) -> None:
        m = self.model
        c = self.chains
        g, k, j = m.shape
        metric = m.metric.astype(float)
        alpha = m.prior + self.pi_counts  # (G, K)
        if self.kind == "reverse":
            b = np.broadcast_to(m.rate_prior, (g, k, j)).astype(float)
            lam = m.prior - b.sum(axis=2) + m.human - (0 if m.paired_informs_pi
                                                        else self.n_paired_class)
            e_q = b.sum(axis=1) + m.paired.sum(axis=1) + metric  # (G, J)
            e_r = np.swapaxes(b + m.paired, 1, 2)  # (G, J, K)
            const = {"lam": _units(lam, c), "e_q": _units(e_q, c), "e_r": _units(e_r, c)}
            scale = [np.sqrt(1.0 / e_q[:, :-1] + 1.0 / e_q[:, -1:]),
                     np.sqrt(1.0 / e_r[..., :-1] + 1.0 / e_r[..., -1:]).reshape(g, -1)]
        else:
            # the shares' log-ratio sd as if the metric-only items fell in proportion to a
            spread = alpha + metric.sum(axis=1, keepdims=True) * m.prior / m.prior.sum(
                axis=1, keepdims=True)
            scale = [np.sqrt(1.0 / spread[:, :-1] + 1.0 / spread[:, -1:])]
            const = {"alpha": _units(alpha, c), "metric": _units(metric, c)}
            if self.kind == "product":
                alpha_parts = [prior_r + marg for prior_r, marg in
                               zip(self.part_priors, _margins(m.paired, self.levels),
                                   strict=True)]
                const["alpha_parts"] = [_units(a, c) for a in alpha_parts]
                scale += [np.sqrt(1.0 / a[..., :-1] + 1.0 / a[..., -1:]).reshape(g, -1)
                          for a in alpha_parts]
        self.target = _Target(self.kind, k, j, self.levels, **const)
        self.hamiltonian = _Hamiltonian(self.target, _units(np.concatenate(scale, axis=1), c),
                                        HMC_MAX_STEPS if self.kind == "product" else HMC_STEPS)

    def _to_units(self, x: np.ndarray) -> np.ndarray:
        """(C, G, ...) -> (..., C * G)."""
        c, g = x.shape[:2]
        return np.moveaxis(x.reshape(c * g, *x.shape[2:]), 0, -1)

    def _from_units(self, x: np.ndarray) -> np.ndarray:
        """(..., C * G) -> (C, G, ...)."""
        moved = np.moveaxis(x, -1, 0)
        return moved.reshape(self.chains, -1, *moved.shape[1:])

    def coordinates(self) -> np.ndarray:
        parts = None if self.parts is None else [self._to_units(p) for p in self.parts]
        theta = self._to_units(self._theta_full()) if self.kind == "reverse" else None
        pi = self._to_units(self.pi)
        return self.target.from_state(pi, theta, parts)  # type: ignore[arg-type]

    def hamiltonian_step(self, y: np.ndarray, adapting: bool, start: tuple | None = None
                         ) -> tuple[np.ndarray, tuple]:
        """One HMC transition from ``y``.

        ``start``: the target's value and gradient there, if known.  Returns the new
        coordinates and the target there (the state follows in :meth:`set_state`).
        """
        g = self.model.shape[0]
        theta = self._to_units(self._theta_full()) if self.kind == "shares" else None
        return self.hamiltonian.step(y, self.rngs, g, theta, adapting, start)

    def jump_step(self, y: np.ndarray, start: tuple | None, kept: bool
                  ) -> tuple[np.ndarray, tuple]:
        """The independence move from ``y`` (see :meth:`_Hamiltonian.jump`)."""
        g = self.model.shape[0]
        theta = self._to_units(self._theta_full()) if self.kind == "shares" else None
        return self.hamiltonian.jump(y, self.rngs, g, theta, start, kept)

    def store(self, ys: list[np.ndarray], pi_out: np.ndarray, theta_out: np.ndarray | None,
              start: int) -> None:
        """Shares (and rates) of the kept coordinates ``ys`` into the outputs from ``start``.

        The conversion works unit by unit, so all of ``ys`` go through it at once (units
        last); the state is set from the last of them.
        """
        n = len(ys)
        u = ys[0].shape[-1]
        pi, theta_new, _ = self.target.to_state(np.concatenate(ys, axis=-1))
        # (..., n * U) -> (C, n, G, ...)
        def lay_out(x):
            moved = np.moveaxis(x.reshape(*x.shape[:-1], n, self.chains, u // self.chains),
                                (-3, -2, -1), (1, 0, 2))
            return moved.reshape(self.chains, n, u // self.chains, *x.shape[:-1])
        pi_out[:, start:start + n] = lay_out(pi)
        if theta_out is not None and self.kind == "reverse":
            theta_out[:, start:start + n] = lay_out(theta_new)
        self.set_state(ys[-1])

    def set_state(self, y: np.ndarray) -> None:
        """``pi``, ``theta`` (and the product's parts) from the coordinates ``y``."""
        pi, theta_new, parts = self.target.to_state(y)
        self.pi = self._from_units(pi)
        if self.kind != "shares":
            self.theta = self._from_units(theta_new)
        if parts is not None:
            self.parts = [self._from_units(p) for p in parts]


# ----------------------------------------------------------------------------------------------
# the driver
# ----------------------------------------------------------------------------------------------

def sample(model: Model, *, draws: int, chains: int, warmup: int, seed) -> Draws:
    """Run the chains and return the draws after ``warmup`` iterations.

    Every iteration (see the module notes): unrestricted ``Theta`` per group, moves H and I in
    ``(q, R)``; the product form, A, E and S, then twice H and once I on the shares and the
    metrics' matrices; pooled ``Theta``, A, then H and I on the shares; known ``Theta``, H and
    I on the shares; a calibration sample, D first.  Move I starts once warm-up has a mean
    and a metric (at 40 %).
    """
    g, k, j = model.shape
    # the stored draws: shares (float64) and, unless known, rates (float32)
    theta_bytes = 4.0 * model.n_theta_groups * k * j if model.rates != "known" else 0.0
    v.memory(chains * draws * (8.0 * g * k + theta_bytes),
             f"draws={draws} x chains={chains} over {g} groups",
             "use fewer draws (the default is 1000 per chain) or fit fewer groups at once")
    sampler = _Sampler(model, chains, seed)
    keep_theta = model.rates != "known"
    pi_out = np.empty((chains, draws, g, k))
    gt = model.n_theta_groups
    theta_out = np.empty((chains, draws, gt, k, j), dtype=np.float32) if keep_theta else None
    adapt = warmup >= 20
    w15, w40, w85 = (int(f * warmup) for f in (0.15, 0.4, 0.85))
    hmc = sampler.hamiltonian
    gibbs = sampler.kind != "reverse" and model.rates != "known"
    splits = not model.paired_informs_pi
    y = sampler.coordinates()
    at = None  # the target's value and gradient at y, when y did not change since
    pending: list[np.ndarray] = []  # kept coordinates not yet turned into shares and rates
    block = int(min(STATE_BLOCK, max(1, STATE_BLOCK_BYTES // max(y.nbytes, 1))))
    for it in range(warmup + draws):
        warming = it < warmup
        if splits:
            if not gibbs:
                sampler.set_state(y)
            sampler.split()
            if not gibbs:
                y = sampler.coordinates()
                at = None
        if gibbs:
            sampler.augmentation()
            if sampler.kind == "product":
                sampler.rows()
                sampler.relabel()
            y = sampler.coordinates()
            at = None
        for _ in range(HMC_TRANSITIONS if sampler.kind == "product" else 1):
            y, at = sampler.hamiltonian_step(y, adapting=adapt and warming, start=at)
        if hmc.has_center.any():
            y, at = sampler.jump_step(y, at, kept=not warming)
        if gibbs:
            sampler.set_state(y)
        if adapt and warming:
            if w15 <= it < w85:
                hmc.collect(y)
            if it + 1 in (w40, w85):
                hmc.update_metric(lengths=it + 1 == w85)
            if it + 1 == warmup:
                hmc.finish_step_size()
        if not warming:
            if gibbs:
                pi_out[:, it - warmup] = sampler.pi
                if keep_theta:
                    theta_out[:, it - warmup] = sampler.theta  # type: ignore[index]
            else:
                # the state follows from y alone: convert a block of draws at once
                pending.append(y)
                if len(pending) == block or it + 1 == warmup + draws:
                    sampler.store(pending, pi_out, theta_out, it + 1 - warmup - len(pending))
                    pending = []
    accept = {"hamiltonian": hmc.accept_sum / hmc.n_kept if hmc.n_kept else float("nan"),
              "independence": hmc.jump_sum / hmc.n_jumps if hmc.n_jumps else float("nan")}
    return Draws(pi_out, theta_out, accept)


def check_counts(paired, human, metric) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts as int64 arrays (G, K, J), (G, K), (G, J); clear errors for bad values."""
    arrays = []
    for name, value in (("paired", paired), ("human", human), ("metric", metric)):
        arr = np.asarray(value, dtype=float)
        if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.floor(arr)):
            raise CountsError(f"{name} counts must be whole numbers >= 0; got {arr.tolist()!r}"
                              if arr.size <= 12 else
                              f"{name} counts must be whole numbers >= 0 (found "
                              f"{arr[~np.isfinite(arr) | (arr < 0) | (arr != np.floor(arr))][0]!r})")
        arrays.append(arr.astype(np.int64))
    paired_a, human_a, metric_a = arrays
    if paired_a.ndim != 3:
        raise CountsError(f"paired counts must have shape (groups, K, J), got {paired_a.shape}")
    g, k, j = paired_a.shape
    if human_a.shape != (g, k):
        raise CountsError(f"human counts must have shape (groups, K) = {(g, k)}, got "
                          f"{human_a.shape}")
    if metric_a.shape != (g, j):
        raise CountsError(f"metric counts must have shape (groups, J) = {(g, j)}, got "
                          f"{metric_a.shape}")
    if k < 2 or j < 2:
        raise ParameterError(f"the model needs K >= 2 human classes and J >= 2 metric outputs, "
                             f"got K={k}, J={j}")
    return paired_a, human_a, metric_a
