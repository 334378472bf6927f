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

Why a Gibbs sampler (and not NUTS)
----------------------------------
Every full conditional is conjugate once the latent classes of the metric-only items are
imputed (Dirichlet-multinomial), so one iteration is a handful of vectorised gamma and binomial
draws over all groups and chains at once: 190 system pairs cost about as much as one.  NUTS
(numpyro, PyMC) would need a compiled dependency, per-group adaptation and a gradient, and gains
nothing on a posterior this small.  Plain data augmentation is, however, slow exactly where the
model matters: with many metric-only items the metric's output distribution ``q`` is pinned
down while ``pi`` and ``Theta`` can still trade off along the ridge ``pi Theta = q`` (a weak
metric, ``rho + eta`` near 1, makes it long), and imputed classes move along it only in small
steps.  Each iteration therefore combines up to four moves, each leaving the posterior invariant:

A. *Data augmentation* (Tanner and Wong 1987): impute the classes ``Z[c, j] ~ Multinomial(m_j,
   pi_c Theta[c, j] / q_j)``, then draw ``pi ~ Dir(a + h + N[., .] + Z)`` and
   ``Theta[c] ~ Dir(b_c + N[c] + Z[c])`` (pooled: summed over groups; independent: one Dirichlet
   per metric from the margins of ``N + Z``).
B. *The reverse parametrisation* (unrestricted ``Theta`` per group): ``P[c, j] = pi_c Theta[c,
   j]`` is the same as ``q_j R[j, c]`` with ``R[j] = P(c | j)``.  In ``(q, R)`` the metric-only
   items inform only ``q``, so the ridge is an axis.  After imputing the metric outputs ``W`` of
   the human-only items (and, when the paired items must not inform ``pi``, the negative-binomial
   augmentation below), ``q ~ Dir(b.sum(0) + N.sum(0) + W.sum(0) + m)`` and ``R[j] ~ Dir(b[:, j] +
   N[:, j] + W[:, j])`` is the exact posterior under the prior ``P ~ Dirichlet(b)``.  It differs
   from ours only through ``pi``: ``Dir(pi; a) / Dir(pi; b.sum(1))`` (the aggregation property of
   the Dirichlet), which is the Metropolis-Hastings weight of this independence proposal.  The
   move works on the classes with enough human ratings (the weight's negative powers of ``pi_c``
   would make it stick on the others), given the shares and rows of the rest.
   ``pi_c^-N[c, .]`` (a calibration sample) is removed exactly by augmenting ``kappa_c ~
   NegBinomial(N[c, .], pi_c)`` failures, allocated to the other classes in proportion to ``pi``:
   ``pi_c^-n = sum_k C(n + k - 1, k) (1 - pi_c)^k`` makes them pseudo human-only items.
C. *pi given Theta* (known, pooled or product ``Theta``; and groups with a class too rare for
   B): an independence Metropolis-Hastings
   proposal, a multivariate t (5 degrees of freedom) at the mode of ``log p(pi | Theta, data)`` in
   additive log-ratio coordinates with the inverse negative Hessian as scale, found by Newton's
   method from a start that depends on ``Theta`` and the data only (so the proposal does not
   depend on the current state).
D. *A calibration sample* (``paired_informs_pi=False``): an independence proposal ``Theta' ~
   Dir(b + N)`` (the calibration posterior) with ``pi'`` from the proposal of C given ``Theta'``;
   the weight is the ratio of the evidences ``p(m, h | Theta)``.

Checked against exact answers: with K = J = 2 the draws match :func:`binaryeval.alpha_posterior`
(mean, sd, 2.5 / 97.5 % quantiles within 5 Monte-Carlo errors) on weak and strong metrics, known
rates, human-only ratings and the calibration design; K = 3 against a grid posterior (known
rates), QuaPy's BayesianCC (calibration design) and Dirichlet closed forms.  Where mixing is slow
the diagnostics say so: a calibration sample with a weak metric and K = J = 3 (move D's
acceptance falls to a few per cent when the metric-only items restrict ``Theta`` beyond its
calibration posterior), classes with almost no human ratings, and ``Theta`` itself under
``rates="pooled"`` (its draws move along the ridge only through moves A and C).

Draws are seeded: ``numpy.random.SeedSequence(seed).spawn(chains)`` gives each chain its own
generator, so a chain's draws do not depend on how many chains run beside it.  Diagnostics
(rank-normalised split R-hat, bulk and tail ESS) are in :mod:`binaryeval.latent.diagnostics`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validate as v
from ..errors import CountsError, ParameterError

__all__: list[str] = []

_TINY = np.finfo(float).tiny
_T_DOF = 5.0
_NEWTON_STEPS = 12
SUBSET_MIN = 1  # human ratings a class needs at least to take part in move B


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
    """Posterior draws and the acceptance rates of the Metropolis-Hastings moves.

    ``pi`` has shape (chains, draws, G, K); ``theta`` (chains, draws, Gt, K, J) as float32
    (None for known rates).
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


# ----------------------------------------------------------------------------------------------
# Theta in its two structures
# ----------------------------------------------------------------------------------------------

def _product_theta(parts: list[np.ndarray]) -> np.ndarray:
    """Theta[c, (j1, j2, ...)] = prod_r Theta_r[c, j_r] for (C, G, K, L_r) parts."""
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


# ----------------------------------------------------------------------------------------------
# the three moves
# ----------------------------------------------------------------------------------------------

class _Sampler:
    """State and moves of the chains of one fit (all groups at once)."""

    def __init__(self, model: Model, chains: int, seed) -> None:
        self.model = model
        ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        self.rngs = [np.random.default_rng(s) for s in ss.spawn(chains)]
        self.chains = chains
        g, k, j = model.shape
        self.n_paired_class = model.paired.sum(axis=2)  # (G, K)
        informs = model.paired_informs_pi
        self.pi_counts = model.human + (self.n_paired_class if informs else 0)  # (G, K)
        self.accept = {"reverse": [0.0, 0], "pi_given_theta": [0.0, 0], "calibration": [0.0, 0]}
        self._known_proposal = None
        if model.rates == "estimate" and model.dependence == "joint":
            rated = model.human + self.n_paired_class  # (G, K)
            need = np.maximum(SUBSET_MIN, 2.0 * (model.rate_prior.sum(axis=1) - model.prior))
            self.subset = rated >= need
            self.subset_is_all = bool(self.subset.all())
            self.reference = model.rate_prior[None] * self.subset[..., None]
        self._init_state()

    # -- state -------------------------------------------------------------------------------
    def _init_state(self) -> None:
        m = self.model
        c = self.chains
        g, k, j = m.shape
        base = np.broadcast_to(m.prior + self.pi_counts, (c, g, k))
        self.pi = _dirichlet(self.rngs, np.ascontiguousarray(base))
        if m.rates == "known":
            self.theta = np.broadcast_to(m.known, (c, *m.known.shape)).copy()
            self.parts = None
        elif m.dependence == "independent":
            margins = _margins(m.paired, m.levels)
            self.parts = []
            for prior_r, marg in zip(m.rate_prior, margins, strict=True):
                conc = prior_r + (marg.sum(axis=0, keepdims=True) if m.rates == "pooled"
                                  else marg)
                self.parts.append(_dirichlet(self.rngs, np.broadcast_to(
                    conc, (c, *conc.shape)).copy()))
            self.theta = _product_theta(self.parts)
        else:
            conc = m.rate_prior + (m.paired.sum(axis=0, keepdims=True) if m.rates == "pooled"
                                   else m.paired)
            self.theta = _dirichlet(self.rngs, np.broadcast_to(conc, (c, *conc.shape)).copy())
            self.parts = None

    def _theta_full(self) -> np.ndarray:
        """Theta broadcast to (C, G, K, J)."""
        g = self.model.shape[0]
        return np.broadcast_to(self.theta, (self.chains, g, *self.theta.shape[2:]))

    # -- move A: data augmentation ----------------------------------------------------------------
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
        if m.dependence == "independent":
            for r, (prior_r, marg) in enumerate(zip(m.rate_prior, _margins(complete, m.levels),
                                                    strict=True)):
                if m.rates == "pooled":
                    marg = marg.sum(axis=1, keepdims=True)
                self.parts[r] = _dirichlet(self.rngs, prior_r + marg)
            self.theta = _product_theta(self.parts)
        else:
            if m.rates == "pooled":
                complete = complete.sum(axis=1, keepdims=True)
            self.theta = _dirichlet(self.rngs, m.rate_prior + complete)

    # -- move B: the reverse parametrisation ---------------------------------------------------
    def reverse(self) -> None:
        """Independence proposal in ``(q, R)`` for the classes with data (see the module notes).

        The move works on the classes ``S`` with at least ``2 (sum_j b_cj - a_c)`` (and at
        least one) human ratings, given
        the shares and rows of the others: the metric-only items are first allocated between
        ``S`` and each other class, then ``P_S / sum(pi_S)`` is proposed from its conjugate
        posterior under the prior ``Dirichlet(b_S)``.  The weight is ``prod_{c in S}
        pi_c^(a_c - sum_j b_cj)`` (our prior over the proposal's), close to constant on classes
        with data; on classes with few ratings its negative power of ``pi_c`` would have heavy
        tails (an independence sampler then sticks), so they move in A only.
        """
        m = self.model
        c = self.chains
        g, k, j = m.shape
        ins = self.subset  # (G, K)
        if not ins.any():
            return
        human = np.broadcast_to(m.human, (c, g, k)).astype(np.int64)
        if not m.paired_informs_pi:
            human = human + self._calibration_pseudo_items()
        human = human * ins
        complete = np.broadcast_to(m.paired * ins[..., None], (c, g, k, j)).astype(np.int64)
        if human.any():
            complete = complete + _multinomial(self.rngs, human, self.theta, axis=3)
        if self.subset_is_all:
            metric = np.broadcast_to(m.metric, (c, g, j))
        else:
            joint = self.pi[..., None] * self._theta_full()
            post = joint / np.maximum(joint.sum(axis=2, keepdims=True), _TINY)
            z = _multinomial(self.rngs, np.broadcast_to(m.metric, (c, g, j)), post, axis=2)
            metric = (z * ins[None, :, :, None]).sum(axis=2)
        ref = self.reference  # (G, K, J): b on the classes in S, 0 elsewhere
        q = _dirichlet(self.rngs, ref.sum(axis=1) + complete.sum(axis=2) + metric)  # (C, G, J)
        rev = _dirichlet(self.rngs, ref + complete, axis=2) * ins[None, :, :, None]
        rev /= rev.sum(axis=2, keepdims=True)
        joint = rev * q[:, :, None, :]
        share_new = joint.sum(axis=3)  # (C, G, K), zero outside S
        mass = (self.pi * ins).sum(axis=2, keepdims=True)
        share_old = self.pi * ins / np.maximum(mass, _TINY)
        ok = np.all((share_new > 1e-300) | ~ins, axis=2) & (mass[..., 0] > 0)
        theta_new = joint / np.maximum(share_new, _TINY)[..., None]
        expo = np.where(ins, m.prior - ref.sum(axis=2), 0.0)  # (G, K)
        log_w_new = (expo * np.log(np.maximum(share_new, _TINY))).sum(axis=2)
        log_w_old = (expo * np.log(np.maximum(share_old, _TINY))).sum(axis=2)
        u = np.stack([rng.random(g) for rng in self.rngs])
        accept = ok & (np.log(u) < log_w_new - log_w_old)
        take = accept[..., None] & ins
        self.pi = np.where(take, mass * share_new, self.pi)
        self.theta = np.where(take[..., None], theta_new, self.theta)
        self.accept["reverse"][0] += float(accept.mean())
        self.accept["reverse"][1] += 1

    def _calibration_pseudo_items(self) -> np.ndarray:
        """Pseudo human-only counts that cancel ``pi_c^N[c, .]`` (negative-binomial augmentation).

        ``kappa_c ~ NegBinomial(N_c, pi_c)`` (failures before ``N_c`` successes); each failure
        falls in another class ``c'`` with probability ``pi_c' / (1 - pi_c)``.
        """
        m = self.model
        c = self.chains
        g, k = m.human.shape
        n_c = np.broadcast_to(self.n_paired_class, (c, g, k))
        kappa = np.zeros((c, g, k), dtype=np.int64)
        p = np.clip(self.pi, 1e-300, 1.0)
        for ci, rng in enumerate(self.rngs):
            kappa[ci] = rng.negative_binomial(np.maximum(n_c[ci], 1), p[ci]) * (n_c[ci] > 0)
        pseudo = np.zeros((c, g, k), dtype=np.int64)
        for cls in range(k):
            others = self.pi.copy()
            others[..., cls] = 0.0
            others /= np.maximum(others.sum(axis=2, keepdims=True), _TINY)
            pseudo += _multinomial(self.rngs, kappa[..., cls], others, axis=2)
        return pseudo

    # -- move C: pi given Theta ----------------------------------------------------------------
    def _proposal(self, theta: np.ndarray, idx: np.ndarray | None = None):
        """Laplace-t proposal for pi given ``theta`` (C, G, K, J): mode, precision, Cholesky.

        ``idx`` restricts it to some groups (``theta`` then holds only those).
        """
        m = self.model
        c = self.chains
        sel = slice(None) if idx is None else idx
        a_all = (m.prior + self.pi_counts)[sel]
        g, k = a_all.shape
        j = m.metric.shape[1]
        a = np.broadcast_to(a_all, (c, g, k))
        counts = np.broadcast_to(m.metric[sel], (c, g, j)).astype(float)
        mode, neg_h = _laplace(a, counts, theta)
        with np.errstate(invalid="ignore"):
            eig = np.linalg.eigvalsh(neg_h)
        valid = np.isfinite(eig).all(axis=2) & (eig.min(axis=2) > 0)
        safe = np.where(valid[..., None, None], neg_h, np.eye(k - 1))
        chol = np.linalg.cholesky(np.linalg.inv(safe))
        half_logdet = 0.5 * np.log(np.where(valid, np.linalg.det(safe), 1.0))
        return a, counts, mode, safe, chol, half_logdet, valid

    def _t_draw(self, mode, chol) -> np.ndarray:
        c, g, d = mode.shape
        z = np.stack([rng.standard_normal((g, d)) for rng in self.rngs])
        w = np.stack([rng.chisquare(_T_DOF, g) for rng in self.rngs]) / _T_DOF
        return mode + np.einsum("cgab,cgb->cga", chol, z) / np.sqrt(w)[..., None]

    def _alr(self, pi: np.ndarray) -> np.ndarray:
        d = pi.shape[-1] - 1
        return np.log(np.maximum(pi[..., :d], _TINY)) - np.log(np.maximum(pi[..., d:], _TINY))

    def pi_given_theta(self, idx: np.ndarray | None = None) -> None:
        """Move C on every group, or on the groups ``idx`` (a choice fixed by the data)."""
        if idx is not None and idx.size == 0:
            return
        theta = self._theta_full() if idx is None else self._theta_full()[:, idx]
        if self.model.rates == "known" and self._known_proposal is not None:
            prop = self._known_proposal
        else:
            prop = self._proposal(theta, idx)
            if self.model.rates == "known":
                self._known_proposal = prop
        a, counts, mode, neg_h, chol, _, valid = prop
        pi = self.pi if idx is None else self.pi[:, idx]
        y_new = self._t_draw(mode, chol)
        y_old = self._alr(pi)
        log_ratio = (_log_target(y_new, a, counts, theta) - _log_t(y_new, mode, neg_h)
                     - _log_target(y_old, a, counts, theta) + _log_t(y_old, mode, neg_h))
        u = np.stack([rng.random(pi.shape[1]) for rng in self.rngs])
        accept = valid & np.isfinite(log_ratio) & (np.log(u) < log_ratio)
        new = np.where(accept[..., None], _softmax(y_new), pi)
        if idx is None:
            self.pi = new
        else:
            self.pi[:, idx] = new
        self.accept["pi_given_theta"][0] += float(accept.mean())
        self.accept["pi_given_theta"][1] += 1

    # -- move D: calibration posterior of Theta, then pi ------------------------------------------
    def calibration(self) -> None:
        """Independence proposal ``Theta' ~ Dir(b + N)``, ``pi' ~`` Laplace-t given ``Theta'``.

        For a separate calibration sample (``paired_informs_pi=False``) the posterior of
        ``Theta`` is its calibration posterior reweighted by the evidence ``p(m, h | Theta)``;
        the Metropolis-Hastings ratio is the ratio of Laplace-normalised evidences, close to 1
        unless the metric-only items carry much information about ``Theta`` beyond ``q``.
        """
        m = self.model
        c = self.chains
        g, k, j = m.shape
        conc = np.broadcast_to(m.rate_prior + m.paired, (c, g, k, j)).copy()
        theta_new = _dirichlet(self.rngs, conc)
        a, counts, mode_n, neg_n, chol_n, hld_n, valid_n = self._proposal(theta_new)
        _, _, mode_o, neg_o, _, hld_o, valid_o = self._proposal(self.theta)
        y_new = self._t_draw(mode_n, chol_n)
        y_old = self._alr(self.pi)
        log_ratio = ((_log_target(y_new, a, counts, theta_new) - _log_t(y_new, mode_n, neg_n)
                      - hld_n)
                     - (_log_target(y_old, a, counts, self.theta) - _log_t(y_old, mode_o, neg_o)
                        - hld_o))
        u = np.stack([rng.random(g) for rng in self.rngs])
        accept = valid_n & valid_o & np.isfinite(log_ratio) & (np.log(u) < log_ratio)
        self.pi = np.where(accept[..., None], _softmax(y_new), self.pi)
        self.theta = np.where(accept[..., None, None], theta_new, self.theta)
        self.accept["calibration"][0] += float(accept.mean())
        self.accept["calibration"][1] += 1


def _softmax(y: np.ndarray) -> np.ndarray:
    """Inverse additive log-ratio: (..., K-1) -> (..., K) with the last class as reference."""
    full = np.concatenate([y, np.zeros((*y.shape[:-1], 1))], axis=-1)
    full = full - full.max(axis=-1, keepdims=True)
    e = np.exp(full)
    return e / e.sum(axis=-1, keepdims=True)


def _log_target(y, a, counts, theta) -> np.ndarray:
    """Log of p(pi | Theta, data) in log-ratio coordinates (Jacobian included), up to a constant."""
    pi = np.maximum(_softmax(y), _TINY)
    q = np.maximum(np.einsum("cgk,cgkj->cgj", pi, theta), _TINY)
    return (a * np.log(pi)).sum(axis=2) + (counts * np.log(q)).sum(axis=2)


def _log_t(y, mode, neg_h) -> np.ndarray:
    d = y.shape[-1]
    delta = y - mode
    quad = np.einsum("cga,cgab,cgb->cg", delta, neg_h, delta)
    return -0.5 * (_T_DOF + d) * np.log1p(quad / _T_DOF)


def _grad_hess(y, a, counts, theta):
    """Gradient and Hessian of :func:`_log_target` (derived in the module tests)."""
    d = y.shape[-1]
    pi = np.maximum(_softmax(y), _TINY)
    q = np.maximum(np.einsum("cgk,cgkj->cgj", pi, theta), _TINY)
    a_tot = a.sum(axis=2)
    m_tot = counts.sum(axis=2)
    s = np.einsum("cgj,cgkj->cgk", counts / q, theta)
    gmat = np.einsum("cgj,cgkj,cglj->cgkl", counts / q ** 2, theta, theta)
    pk = pi[..., :d]
    grad = a[..., :d] - a_tot[..., None] * pk + pk * (s[..., :d] - m_tot[..., None])
    total = (a_tot + m_tot)[..., None, None]
    hess = pk[..., :, None] * pk[..., None, :] * (total - gmat[..., :d, :d])
    diag = pk * (s[..., :d] - (a_tot + m_tot)[..., None])
    hess = hess + np.einsum("...a,ab->...ab", diag, np.eye(d))
    return grad, hess


def _start(a, counts, theta) -> np.ndarray:
    """A start for Newton's method: the least-squares solution of ``pi Theta = m / M``.

    The shares that reproduce the metric's observed output distribution (the method-of-moments
    answer), clipped into the simplex and mixed with the Dirichlet counts ``a`` in proportion to
    the numbers of items; log-ratio coordinates.
    """
    k = a.shape[2]
    m_tot = counts.sum(axis=2, keepdims=True)
    qhat = counts / np.maximum(m_tot, 1.0)
    gram = np.einsum("cgkj,cglj->cgkl", theta, theta) + 1e-9 * np.eye(k)
    rhs = np.einsum("cgkj,cgj->cgk", theta, qhat)
    sol = np.linalg.solve(gram, rhs[..., None])[..., 0]
    sol = np.clip(sol, 0.0, None) + 1e-3
    sol /= sol.sum(axis=2, keepdims=True)
    pi = (a + m_tot * sol) / (a.sum(axis=2, keepdims=True) + m_tot)
    return np.log(pi[..., :k - 1]) - np.log(pi[..., k - 1:])


def _newton_step(grad: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """Solve ``neg @ step = grad`` per (chain, group), shifting ``neg`` to positive definite.

    Far from the mode the target need not be concave in log-ratio coordinates; a shift by the
    largest diagonal entry then turns the step into a scaled gradient step.  Sizes 1 and 2 are
    written out (no LAPACK call per iteration).
    """
    d = grad.shape[-1]
    if d == 1:
        n = neg[..., 0, 0]
        n = np.where(n > 1e-12 * (np.abs(n) + 1.0), n, np.abs(n) + 1.0)
        return grad / n[..., None]
    if d == 2:
        n00, n01, n11 = neg[..., 0, 0], neg[..., 0, 1], neg[..., 1, 1]
        det = n00 * n11 - n01 * n01
        bad = ~((n00 > 0) & (det > 1e-12 * (n00 * n11 + 1.0)))
        shift = np.where(bad, np.maximum(np.abs(n00), np.abs(n11)) + 1.0, 0.0)
        n00, n11 = n00 + shift, n11 + shift
        det = n00 * n11 - n01 * n01
        g0, g1 = grad[..., 0], grad[..., 1]
        return np.stack([(n11 * g0 - n01 * g1) / det, (n00 * g1 - n01 * g0) / det], axis=-1)
    scale = np.abs(np.diagonal(neg, axis1=-2, axis2=-1)).max(axis=-1) + 1.0
    ridge = np.where(np.linalg.eigvalsh(neg).min(axis=-1) > 1e-10 * scale, 0.0, scale)
    return np.linalg.solve(neg + ridge[..., None, None] * np.eye(d), grad[..., None])[..., 0]


def _laplace(a, counts, theta) -> tuple[np.ndarray, np.ndarray]:
    """Mode and negative Hessian of log p(pi | Theta) in log-ratio coordinates.

    Starts from :func:`_start` (a function of ``Theta`` and the data only, so that the proposal
    does not depend on the current state) and takes damped Newton steps (step halving until the
    target does not decrease).
    """
    y = _start(a, counts, theta)
    f = _log_target(y, a, counts, theta)
    for _ in range(_NEWTON_STEPS):
        grad, hess = _grad_hess(y, a, counts, theta)
        step = _newton_step(grad, -hess)
        t = np.ones(y.shape[:2])
        cand = y + step
        fc = _log_target(cand, a, counts, theta)
        better = fc >= f - 1e-10 * (1.0 + np.abs(f))
        for _half in range(30):
            if better.all():
                break
            t = np.where(better, t, t / 2.0)
            cand = y + t[..., None] * step
            fc = np.where(better, fc, _log_target(cand, a, counts, theta))
            better = better | (fc >= f - 1e-10 * (1.0 + np.abs(f)))
        moved = np.where(better[..., None], t[..., None] * step, 0.0)
        y = y + moved
        f = np.where(better, fc, f)
        if np.abs(moved).max() < 1e-7:
            break
    _, hess = _grad_hess(y, a, counts, theta)
    return y, -hess


# ----------------------------------------------------------------------------------------------
# the driver
# ----------------------------------------------------------------------------------------------

def sample(model: Model, *, draws: int, chains: int, warmup: int, seed) -> Draws:
    """Run the chains and return the draws after ``warmup`` iterations.

    Every iteration applies move A; move B when ``Theta`` is unrestricted and per group (with
    move D as well for a calibration sample); move C when ``Theta`` is known, pooled or a
    product of per-metric matrices, and on the groups with a class too rare for move B.
    """
    g, k, j = model.shape
    # the stored draws: shares (float64) and, unless known, rates (float32)
    theta_bytes = 4.0 * model.n_theta_groups * k * j if model.rates != "known" else 0.0
    v.memory(chains * draws * (8.0 * g * k + theta_bytes),
             f"draws={draws} x chains={chains} over {g} groups",
             "use fewer draws (the default is 1000 per chain) or fit fewer groups at once")
    use_reverse = model.rates == "estimate" and model.dependence == "joint"
    use_pi_move = not use_reverse
    use_calibration = use_reverse and not model.paired_informs_pi
    # with move B, groups with a class too rare for it get move C as well (it moves their
    # shares given Theta, which imputed classes do only slowly)
    sampler = _Sampler(model, chains, seed)
    rare = (np.flatnonzero(~sampler.subset.all(axis=1)) if use_reverse
            else np.zeros(0, dtype=int))
    keep_theta = model.rates != "known"
    pi_out = np.empty((chains, draws, g, k))
    gt = model.n_theta_groups
    theta_out = np.empty((chains, draws, gt, k, j), dtype=np.float32) if keep_theta else None
    for it in range(warmup + draws):
        sampler.augmentation()
        if use_reverse:
            sampler.reverse()
        if use_calibration:
            sampler.calibration()
        if use_pi_move:
            sampler.pi_given_theta()
        elif rare.size:
            sampler.pi_given_theta(rare)
        if it >= warmup:
            pi_out[:, it - warmup] = sampler.pi
            if keep_theta:
                theta_out[:, it - warmup] = sampler.theta
    accept = {name: (tot / n if n else float("nan")) for name, (tot, n) in sampler.accept.items()}
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
