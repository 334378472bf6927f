"""The Gibbs sampler of the rater-noise model.

Every item ``i`` of group ``g`` has a latent class ``z_i`` (``K`` classes, shares ``pi_g``).
Each human rating ``l`` of the item by rater ``r`` is a noisy reading of it:

- Dawid and Skene (1979): ``P(l | z = c) = Phi_r[c, l]``, one confusion matrix per rater;
- MACE (Hovy et al. 2013): with probability ``theta_r`` the rater reports the class, otherwise
  an answer drawn from the rater's own distribution ``xi_r``:
  ``P(l | z = c) = theta_r [l = c] + (1 - theta_r) xi_r[l]``.

A metric's output ``j`` on the item follows ``Theta_g[c, j]`` (per group, or one matrix for all
groups), as in the latent-truth model.  Raters named error-free read the class without error:
their ratings fix ``z`` of the items they rated.

Given the classes, every parameter has a conjugate Dirichlet (Beta) full conditional; given the
parameters, the items' classes are independent categorical draws.  MACE is augmented with the
indicator of a rating drawn from the rater's own distribution (the spam indicator), after which
``theta_r`` is Beta and ``xi_r`` Dirichlet.  Items carrying only a metric output are
exchangeable within (group, output): their classes enter through one multinomial draw of the
number of each class per cell (the exact conditional of the sum), so the cost of a sweep grows
with the items that carry human ratings, not with the metric-only ones.

Chains run side by side as a leading axis; each has its own generator (spawned from the seed),
so a seed reproduces every draw.  The items' class probabilities are averaged over the kept
sweeps (Rao-Blackwellised: the conditional probabilities, not the 0/1 draws).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["RaterData", "RaterDraws", "sample"]

_TINY = 1e-300


@dataclass(frozen=True)
class RaterData:
    """The model's data and priors, as arrays.

    ``item_group`` (N,) group of each item carrying human ratings; ``item_metric`` (N,) its
    metric output (-1: none); ``fixed`` (N,) the class an error-free rater gave (-1: none);
    ``rating_item``, ``rating_rater``, ``rating_label`` (M,) the ratings of the raters who may
    err; ``metric_only`` (G, J) counts of items with a metric output only.
    """

    item_group: np.ndarray
    item_metric: np.ndarray
    fixed: np.ndarray
    rating_item: np.ndarray
    rating_rater: np.ndarray
    rating_label: np.ndarray
    metric_only: np.ndarray
    n_groups: int
    n_raters: int
    n_classes: int
    n_outputs: int
    model: str                      # "dawid-skene" or "mace"
    share_concentration: np.ndarray  # (K,)
    rater_prior: tuple[float, float]  # Beta(a, b) of a rater's chance to give the class
    rate_concentration: np.ndarray   # (K, J)
    pooled: bool
    init: np.ndarray                 # (N,) starting classes


@dataclass(frozen=True)
class RaterDraws:
    """Posterior draws (chains, draws, ...) and the items' class probabilities (N, K)."""

    pi: np.ndarray
    theta: np.ndarray | None     # metric confusion (C, D, Gt, K, J); None without a metric
    phi: np.ndarray              # rater confusion (C, D, R, K, K)
    competence: np.ndarray | None  # MACE theta_r (C, D, R)
    spam: np.ndarray | None        # MACE xi_r (C, D, R, K)
    item_prob: np.ndarray


def _dirichlet(rngs, conc: np.ndarray) -> np.ndarray:
    """Dirichlet draws along the last axis; the leading axis is the chain."""
    out = np.empty(conc.shape)
    for c, rng in enumerate(rngs):
        rng.standard_gamma(conc[c], out=out[c])
    np.maximum(out, _TINY, out=out)
    out /= out.sum(axis=-1, keepdims=True)
    return out


def _tally(chains: int, shape: tuple[int, ...], cell: np.ndarray,
           weights: np.ndarray | None = None) -> np.ndarray:
    """Counts per chain of flat cell indices (chains, n) into ``shape``."""
    size = int(np.prod(shape))
    flat = cell + (np.arange(chains) * size)[:, None]
    out = np.bincount(flat.ravel(), weights=None if weights is None else
                      np.asarray(weights, dtype=float).ravel(), minlength=chains * size)
    return out.reshape(chains, *shape).astype(float)


def _rater_table(data: RaterData, phi, comp, spam) -> np.ndarray:
    """``P(label | class)`` per rater, (C, R, K, K)."""
    if data.model == "dawid-skene":
        return phi
    k = data.n_classes
    return (comp[..., None, None] * np.eye(k) + (1.0 - comp)[..., None, None] * spam[:, :, None, :])


def sample(data: RaterData, *, draws: int, chains: int, warmup: int,
           seed: np.random.SeedSequence | int | None) -> RaterDraws:
    """Run ``chains`` Gibbs chains for ``warmup + draws`` sweeps; keep the last ``draws``."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    rngs = [np.random.default_rng(s) for s in ss.spawn(chains)]
    n, m = data.item_group.size, data.rating_item.size
    g, r, k, j = data.n_groups, data.n_raters, data.n_classes, data.n_outputs
    gt = 1 if data.pooled else g
    has_metric = j > 0
    free = data.fixed < 0
    fixed_idx = np.flatnonzero(~free)
    # each rating's cell of the rater table (rater, label) and its item, per chain
    rating_cell = data.rating_rater * k + data.rating_label
    item_flat = (data.rating_item[None, :] + (np.arange(chains) * n)[:, None]).ravel()
    metric_items = np.flatnonzero(data.item_metric >= 0)
    metric_groups = data.item_group[metric_items] if not data.pooled else \
        np.zeros(metric_items.size, dtype=np.int64)
    metric_out = data.item_metric[metric_items]
    metric_cell = metric_groups * j + metric_out
    mo = np.asarray(data.metric_only, dtype=np.int64) if has_metric else np.zeros((g, 0), int)
    mo_pooled_group = np.zeros(g, dtype=np.int64) if data.pooled else np.arange(g)
    a_r, b_r = data.rater_prior
    rater_conc = np.full((k, k), b_r / max(k - 1, 1)) + np.eye(k) * (a_r - b_r / max(k - 1, 1))

    z = np.tile(np.where(free, data.init, data.fixed), (chains, 1))   # (C, N)
    pi_d = np.empty((chains, draws, g, k))
    th_d = np.empty((chains, draws, gt, k, j), dtype=np.float32) if has_metric else None
    phi_d = np.empty((chains, draws, r, k, k), dtype=np.float32)
    comp_d = np.empty((chains, draws, r), dtype=np.float32) if data.model == "mace" else None
    spam_d = np.empty((chains, draws, r, k), dtype=np.float32) if data.model == "mace" else None
    prob_sum = np.zeros((n, k))
    mo_class = np.zeros((chains, g, max(j, 1), k))   # metric-only items by class (first sweep: none)
    ch = np.arange(chains)[:, None]
    rater_cell = data.rating_rater * k * k + data.rating_label     # + class * k

    for sweep in range(warmup + draws):
        # -- parameters given the classes ----------------------------------------------------------
        cls_counts = _tally(chains, (g, k), data.item_group[None, :] * k + z)
        if has_metric:
            cls_counts += mo_class[:, :, :j].sum(axis=2)
        pi = _dirichlet(rngs, data.share_concentration + cls_counts)
        if has_metric:
            tc = _tally(chains, (gt, k, j), (metric_groups[None, :] * k + z[:, metric_items]) * j
                        + metric_out[None, :])
            mo_k = np.transpose(mo_class[:, :, :j], (0, 1, 3, 2))   # (C, G, K, J)
            if data.pooled:
                tc += mo_k.sum(axis=1, keepdims=True)
            else:
                tc += mo_k
            theta = _dirichlet(rngs, data.rate_concentration + tc)
        zr = z[:, data.rating_item]   # (C, M) class of each rating's item
        if data.model == "dawid-skene":
            rc = _tally(chains, (r, k, k), rater_cell + zr * k)
            phi = _dirichlet(rngs, rater_conc + rc)
            comp = spam = None
        else:
            comp_prev, spam_prev = (comp, spam) if sweep else (
                np.full((chains, r), a_r / (a_r + b_r)), np.full((chains, r, k), 1.0 / k))
            rr = data.rating_rater[None, :]
            p_spam_l = (1 - comp_prev[ch, rr]) * spam_prev[ch, rr, data.rating_label[None, :]]
            agree = zr == data.rating_label[None, :]
            p_spam = np.where(agree, p_spam_l / (p_spam_l + comp_prev[ch, rr]), 1.0)
            s = np.stack([rng.random(m) for rng in rngs]) < p_spam
            n_spam = _tally(chains, (r,), np.broadcast_to(rr, s.shape), s)
            n_all = np.bincount(data.rating_rater, minlength=r)
            comp = np.stack([rng.beta(a_r + n_all - n_spam[c], b_r + n_spam[c])
                             for c, rng in enumerate(rngs)])
            sc = _tally(chains, (r, k), np.broadcast_to(rr * k + data.rating_label[None, :],
                                                        s.shape), s)
            spam = _dirichlet(rngs, 1.0 + sc)
            phi = _rater_table(data, None, comp, spam)
        # -- classes given the parameters ----------------------------------------------------------
        logp = np.take(np.log(np.maximum(pi, _TINY)), data.item_group, axis=1)   # (C, N, K)
        if has_metric and metric_items.size:
            logth = np.log(np.maximum(theta, _TINY)).transpose(0, 1, 3, 2).reshape(
                chains, gt * j, k)
            logp[:, metric_items, :] += np.take(logth, metric_cell, axis=1)
        if m:
            logphi = np.log(np.maximum(phi, _TINY)).transpose(0, 1, 3, 2).reshape(
                chains, r * k, k)
            contrib = np.take(logphi, rating_cell, axis=1)              # (C, M, K)
            for c in range(k):
                logp[:, :, c] += np.bincount(item_flat, weights=contrib[:, :, c].ravel(),
                                             minlength=chains * n).reshape(chains, n)
        if k == 2:
            p1 = 1.0 / (1.0 + np.exp(np.clip(logp[:, :, 0] - logp[:, :, 1], -700, 700)))
            if fixed_idx.size:
                p1[:, fixed_idx] = data.fixed[fixed_idx]
            prob = np.stack([1.0 - p1, p1], axis=2)
            u = np.stack([rng.random(n) for rng in rngs])
            z = (u < p1).astype(np.int64)
        else:
            logp -= logp.max(axis=2, keepdims=True)
            prob = np.exp(logp)
            prob /= prob.sum(axis=2, keepdims=True)
            if fixed_idx.size:
                prob[:, fixed_idx, :] = np.eye(k)[data.fixed[fixed_idx]][None]
            u = np.stack([rng.random(n) for rng in rngs])
            z = (u[..., None] > np.cumsum(prob, axis=2)[..., :-1]).sum(axis=2)
        if has_metric:
            # metric-only items: how many of each cell (group, output) are of each class
            th_g = theta[:, mo_pooled_group]                       # (C, G, K, J)
            w = pi[:, :, :, None] * th_g                           # (C, G, K, J)
            w = w / np.maximum(w.sum(axis=2, keepdims=True), _TINY)
            w = np.transpose(w, (0, 1, 3, 2))                      # (C, G, J, K)
            for c, rng in enumerate(rngs):
                mo_class[c, :, :j] = rng.multinomial(mo, w[c])
        if sweep >= warmup:
            t = sweep - warmup
            pi_d[:, t] = pi
            phi_d[:, t] = phi
            if has_metric:
                th_d[:, t] = theta
            if comp_d is not None:
                comp_d[:, t] = comp
                spam_d[:, t] = spam
            prob_sum += prob.sum(axis=0)
    return RaterDraws(pi_d, th_d, phi_d, comp_d, spam_d, prob_sum / (chains * draws))
