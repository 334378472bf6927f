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

Chains run side by side as a leading axis, drawn from one generator seeded by ``seed``, so a
seed reproduces every draw.  The items' class probabilities are averaged over the kept
sweeps (Rao-Blackwellised: the conditional probabilities, not the 0/1 draws).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

__all__ = ["RaterData", "RaterDraws", "sample"]

_TINY = 1e-300
#: scans of the (shares, metric rates, metric-only classes) block per sweep over the items
INNER = 5


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


def _gamma_rows(rng: np.random.Generator, conc: np.ndarray) -> np.ndarray:
    """Dirichlet draws along the last axis of the concentrations (every chain at once)."""
    out = rng.standard_gamma(conc)
    np.maximum(out, _TINY, out=out)
    out /= out.sum(axis=-1, keepdims=True)
    return out


def sample(data: RaterData, *, draws: int, chains: int, warmup: int,
           seed: np.random.SeedSequence | int | None) -> RaterDraws:
    """Run ``chains`` Gibbs chains for ``warmup + draws`` sweeps; keep the last ``draws``.

    Two classes (the binary model).  Every item touches a few *cells*: its group, its (group,
    metric output) and the (rater, label) of each of its ratings.  With ``A`` the cells x items
    incidence matrix (sparse, ratings counted), ``A z`` gives every count the parameters' full
    conditionals need (items of class 1 per cell; class 0 is the rest), and ``A' lo`` every
    item's log-odds of class 1 (the sum of its cells' log-likelihood ratios), for all chains at
    once: two sparse products per sweep.
    """
    if data.n_classes != 2:
        raise ValueError("the sampler takes two classes")
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    rng = np.random.default_rng(ss)
    n, m = data.item_group.size, data.rating_item.size
    g, r, j = data.n_groups, data.n_raters, data.n_outputs
    gt = 1 if data.pooled else g
    has_metric = j > 0
    mace = data.model == "mace"
    fixed_idx = np.flatnonzero(data.fixed >= 0)
    fixed_val = data.fixed[fixed_idx].astype(float)
    # the cells: groups [0, g), metric cells [g, g + gt j), rater cells [g + gt j, ... + 2 r)
    metric_items = np.flatnonzero(data.item_metric >= 0)
    metric_group = np.zeros(metric_items.size, dtype=np.int64) if data.pooled else \
        data.item_group[metric_items]
    off_m, off_r = g, g + gt * j
    n_cells = off_r + 2 * r
    rows = np.concatenate([data.item_group, off_m + metric_group * j
                           + data.item_metric[metric_items],
                           off_r + data.rating_rater * 2 + data.rating_label])
    cols = np.concatenate([np.arange(n), metric_items, data.rating_item])
    incidence = sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n_cells, n))
    incidence_t = incidence.T.tocsr()
    total = np.asarray(incidence.sum(axis=1)).ravel()
    mo = np.asarray(data.metric_only, dtype=np.int64)                       # (G, J)
    mo_t = np.zeros(g, dtype=np.int64) if data.pooled else np.arange(g)
    a_r, b_r = data.rater_prior
    rater_conc = np.array([[a_r, b_r], [b_r, a_r]])
    share = data.share_concentration

    z = np.tile(np.where(data.fixed >= 0, data.fixed, data.init).astype(float)[:, None],
                (1, chains))                                                   # (N, C)
    pi_d = np.empty((chains, draws, g, 2))
    th_d = np.empty((chains, draws, gt, 2, j), dtype=np.float32) if has_metric else None
    phi_d = np.empty((chains, draws, r, 2, 2), dtype=np.float32)
    comp_d = np.empty((chains, draws, r), dtype=np.float32) if mace else None
    spam_d = np.empty((chains, draws, r, 2), dtype=np.float32) if mace else None
    prob_sum = np.zeros(n)
    mo_pos = np.zeros((chains, g, max(j, 1)))   # metric-only items of class 1 per cell
    comp = np.full((chains, r), a_r / (a_r + b_r))
    spam = np.full((chains, r, 2), 0.5)
    lo_table = np.zeros((n_cells, chains))

    for sweep in range(warmup + draws):
        # -- parameters given the classes ----------------------------------------------------------
        k1 = (incidence @ z).T                                 # (C, cells): items of class 1
        k0 = total[None, :] - k1
        cls_rated = np.stack([k0[:, :g], k1[:, :g]], axis=2)   # (C, G, 2)
        if has_metric:
            tc_rated = np.stack([k0[:, off_m:off_r], k1[:, off_m:off_r]], axis=1).reshape(
                chains, 2, gt, j).transpose(0, 2, 1, 3)       # (C, Gt, 2, J)
        # the shares, the metric's rates and the metric-only items' classes form a block whose
        # updates cost nothing next to a sweep over the items: it is scanned INNER times
        for _ in range(INNER if has_metric else 1):
            cls = cls_rated.copy()
            if has_metric:
                pos = mo_pos[:, :, :j]
                neg = mo[None] - pos
                cls[:, :, 1] += pos.sum(axis=2)
                cls[:, :, 0] += neg.sum(axis=2)
            pi = _gamma_rows(rng, share + cls)
            if not has_metric:
                break
            tc = tc_rated.copy()
            if data.pooled:
                tc[:, 0, 1] += pos.sum(axis=1)
                tc[:, 0, 0] += neg.sum(axis=1)
            else:
                tc[:, :, 1] += pos
                tc[:, :, 0] += neg
            theta = _gamma_rows(rng, data.rate_concentration + tc)
            # metric-only items: how many of each (group, output) cell are adequate
            th = theta[:, mo_t]                                    # (C, G, 2, J)
            w1 = pi[:, :, 1, None] * th[:, :, 1, :]
            w0 = pi[:, :, 0, None] * th[:, :, 0, :]
            q = w1 / np.maximum(w1 + w0, _TINY)
            mo_pos[:, :, :j] = rng.binomial(mo[None], q)
        if m:
            # (chain, rater, class, label)
            rc = np.stack([k0[:, off_r:], k1[:, off_r:]], axis=1).reshape(
                chains, 2, r, 2).transpose(0, 2, 1, 3)
            if mace:
                # a rating that agrees with the class is a guess with probability
                # (1 - theta) xi_l / (theta + (1 - theta) xi_l); one that disagrees always is
                agree = np.stack([rc[:, :, 0, 0], rc[:, :, 1, 1]], axis=2)   # (C, R, label)
                disagree = np.stack([rc[:, :, 1, 0], rc[:, :, 0, 1]], axis=2)
                guess = (1.0 - comp)[..., None] * spam
                p_guess = guess / (guess + comp[..., None])
                guessed = rng.binomial(np.rint(agree).astype(np.int64), p_guess) + disagree
                n_all = rc.sum(axis=(2, 3))
                n_guess = guessed.sum(axis=2)
                comp = rng.beta(a_r + n_all - n_guess, b_r + n_guess)
                spam = _gamma_rows(rng, 1.0 + guessed)
                phi = comp[..., None, None] * np.eye(2) + (1.0 - comp)[..., None, None] * \
                    spam[:, :, None, :]
            else:
                phi = _gamma_rows(rng, rater_conc + rc)
        else:
            phi = np.broadcast_to(np.eye(2), (chains, r, 2, 2))
        # -- classes given the parameters: log-odds of class 1 ---------------------------------------
        lp = np.log(np.maximum(pi, _TINY))
        lo_table[:g] = (lp[..., 1] - lp[..., 0]).T
        if has_metric:
            lt = np.log(np.maximum(theta, _TINY))
            lo_table[off_m:off_r] = (lt[:, :, 1, :] - lt[:, :, 0, :]).reshape(chains, -1).T
        if m:
            lf = np.log(np.maximum(phi, _TINY))
            lo_table[off_r:] = (lf[:, :, 1, :] - lf[:, :, 0, :]).reshape(chains, -1).T
        lo = incidence_t @ lo_table                                # (N, C)
        p1 = 1.0 / (1.0 + np.exp(-np.clip(lo, -700.0, 700.0)))
        if fixed_idx.size:
            p1[fixed_idx] = fixed_val[:, None]
        z = (rng.random((n, chains)) < p1).astype(float)
        if sweep >= warmup:
            t = sweep - warmup
            pi_d[:, t] = pi
            phi_d[:, t] = phi
            if has_metric:
                th_d[:, t] = theta
            if mace:
                comp_d[:, t] = comp
                spam_d[:, t] = spam
            prob_sum += p1.sum(axis=1)
    prob = prob_sum / (chains * draws)
    return RaterDraws(pi_d, th_d, phi_d, comp_d, spam_d, np.stack([1.0 - prob, prob], axis=1))


def _categorical(rng: np.random.Generator, logp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One class per row of ``logp`` (..., K) and the normalised probabilities."""
    p = np.exp(logp - logp.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    u = rng.random(p.shape[:-1])[..., None]
    z = (np.cumsum(p, axis=-1) < u).sum(axis=-1)
    return np.minimum(z, p.shape[-1] - 1), p


def sample_classes(data: RaterData, *, draws: int, chains: int, warmup: int,
                   seed: np.random.SeedSequence | int | None) -> RaterDraws:
    """The Gibbs sampler for ``K`` classes (binned or preference ratings; any ``K >= 2``).

    The same full conditionals as :func:`sample`, with the items' classes drawn from their
    categorical conditionals: ``A Z_c`` (``Z_c`` the indicator of class ``c``) gives the counts
    of class ``c`` per cell and ``A' L_c`` every item's log-probability of class ``c``, one pair
    of sparse products per class and sweep.  MACE's spam indicator: a rating equal to the class
    is a guess with probability ``(1 - theta) xi_l / (theta + (1 - theta) xi_l)``, any other
    rating always is.  A Dawid-Skene row's prior is Dirichlet with ``a`` on the diagonal and
    ``b / (K - 1)`` elsewhere (``rater_prior = (a, b)``: the diagonal's marginal is Beta(a, b)).
    Metric-only items: the classes of each (group, output) cell are one multinomial draw.
    """
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    rng = np.random.default_rng(ss)
    n, m = data.item_group.size, data.rating_item.size
    g, r, j, k = data.n_groups, data.n_raters, data.n_outputs, data.n_classes
    gt = 1 if data.pooled else g
    has_metric = j > 0
    mace = data.model == "mace"
    fixed_idx = np.flatnonzero(data.fixed >= 0)
    metric_items = np.flatnonzero(data.item_metric >= 0)
    metric_group = np.zeros(metric_items.size, dtype=np.int64) if data.pooled else \
        data.item_group[metric_items]
    off_m, off_r = g, g + gt * j
    n_cells = off_r + k * r
    rows = np.concatenate([data.item_group, off_m + metric_group * j
                           + data.item_metric[metric_items],
                           off_r + data.rating_rater * k + data.rating_label])
    cols = np.concatenate([np.arange(n), metric_items, data.rating_item])
    incidence = sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n_cells, n))
    incidence_t = incidence.T.tocsr()
    mo = np.asarray(data.metric_only, dtype=np.int64)                       # (G, J)
    mo_t = np.zeros(g, dtype=np.int64) if data.pooled else np.arange(g)
    a_r, b_r = data.rater_prior
    rater_conc = np.full((k, k), b_r / (k - 1))
    np.fill_diagonal(rater_conc, a_r)
    share = data.share_concentration
    eye = np.eye(k)

    z = np.tile(np.where(data.fixed >= 0, data.fixed, data.init)[:, None], (1, chains))
    pi_d = np.empty((chains, draws, g, k))
    th_d = np.empty((chains, draws, gt, k, j), dtype=np.float32) if has_metric else None
    phi_d = np.empty((chains, draws, r, k, k), dtype=np.float32)
    comp_d = np.empty((chains, draws, r), dtype=np.float32) if mace else None
    spam_d = np.empty((chains, draws, r, k), dtype=np.float32) if mace else None
    prob_sum = np.zeros((n, k))
    mo_cls = np.zeros((chains, g, max(j, 1), k))   # metric-only items of each class per cell
    comp = np.full((chains, r), a_r / (a_r + b_r))
    spam = np.full((chains, r, k), 1.0 / k)
    table = np.zeros((k, n_cells, chains))

    for sweep in range(warmup + draws):
        onehot = (z[..., None] == np.arange(k)).astype(float)                 # (N, C, K)
        cnt = np.stack([(incidence @ onehot[:, :, c]).T for c in range(k)], axis=2)  # (C,cells,K)
        cls_rated = cnt[:, :g]                                                  # (C, G, K)
        if has_metric:
            tc_rated = cnt[:, off_m:off_r].reshape(chains, gt, j, k).transpose(0, 1, 3, 2)
        for _ in range(INNER if has_metric else 1):
            cls = cls_rated.copy()
            if has_metric:
                cls += mo_cls[:, :, :j].sum(axis=2)
            pi = _gamma_rows(rng, share + cls)
            if not has_metric:
                break
            tc = tc_rated.copy()
            extra = mo_cls[:, :, :j].transpose(0, 1, 3, 2)                     # (C, G, K, J)
            if data.pooled:
                tc[:, 0] += extra.sum(axis=1)
            else:
                tc += extra
            theta = _gamma_rows(rng, data.rate_concentration + tc)
            th = theta[:, mo_t]                                                 # (C, G, K, J)
            w = pi[:, :, :, None] * th                                          # (C, G, K, J)
            q = (w / np.maximum(w.sum(axis=2, keepdims=True), _TINY)).transpose(0, 1, 3, 2)
            mo_cls[:, :, :j] = rng.multinomial(np.broadcast_to(mo[None], (chains, g, j)), q)
        if m:
            rc = cnt[:, off_r:].reshape(chains, r, k, k).transpose(0, 1, 3, 2)  # (C,R,class,lab)
            if mace:
                agree = np.rint(np.diagonal(rc, axis1=2, axis2=3)).astype(np.int64)  # (C,R,K)
                disagree = rc.sum(axis=2) - agree
                guess = (1.0 - comp)[..., None] * spam
                p_guess = guess / (guess + comp[..., None])
                guessed = rng.binomial(agree, p_guess) + disagree
                n_all = rc.sum(axis=(2, 3))
                n_guess = guessed.sum(axis=2)
                comp = rng.beta(a_r + n_all - n_guess, b_r + n_guess)
                spam = _gamma_rows(rng, 1.0 + guessed)
                phi = comp[..., None, None] * eye + (1.0 - comp)[..., None, None] * \
                    spam[:, :, None, :]
            else:
                phi = _gamma_rows(rng, rater_conc + rc)
        else:
            phi = np.broadcast_to(eye, (chains, r, k, k))
        lp = np.log(np.maximum(pi, _TINY))                                      # (C, G, K)
        table[:, :g] = lp.transpose(2, 1, 0)
        if has_metric:
            lt = np.log(np.maximum(theta, _TINY))                               # (C, Gt, K, J)
            table[:, off_m:off_r] = lt.transpose(2, 1, 3, 0).reshape(k, gt * j, chains)
        if m:
            lf = np.log(np.maximum(phi, _TINY))                                 # (C, R, K, K)
            table[:, off_r:] = lf.transpose(2, 1, 3, 0).reshape(k, r * k, chains)
        logp = np.stack([incidence_t @ table[c] for c in range(k)], axis=2)     # (N, C, K)
        z, prob = _categorical(rng, logp)
        if fixed_idx.size:
            z[fixed_idx] = data.fixed[fixed_idx, None]
            prob[fixed_idx] = eye[data.fixed[fixed_idx]][:, None, :]
        if sweep >= warmup:
            t = sweep - warmup
            pi_d[:, t] = pi
            phi_d[:, t] = phi
            if has_metric:
                th_d[:, t] = theta
            if mace:
                comp_d[:, t] = comp
                spam_d[:, t] = spam
            prob_sum += prob.sum(axis=1)
    return RaterDraws(pi_d, th_d, phi_d, comp_d, spam_d, prob_sum / (chains * draws))
