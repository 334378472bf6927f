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

    Two classes (the binary model): an item's class is drawn from its log-odds, the sum of the
    group's prior log-odds, the metric's and each rating's log-likelihood ratio, so one pass
    over the ratings per sweep gives every item's conditional.  The counts the parameters need
    are tallies of flat cell indices, all chains at once.
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
    chain = np.arange(chains)[:, None]
    fixed_idx = np.flatnonzero(data.fixed >= 0)
    fixed_val = data.fixed[fixed_idx].astype(float)
    # flat cell indices, chain offsets included (each tally is one bincount)
    item_group = data.item_group
    group_cell = (chain * g * 2 + item_group[None, :] * 2).ravel()          # + z
    rating_cell = (chain * r * 4 + data.rating_rater[None, :] * 4
                   + data.rating_label[None, :]).ravel()                      # + 2 z
    rating_lo = (chain * r * 2 + data.rating_rater[None, :] * 2
                 + data.rating_label[None, :]).ravel()
    rating_of = (chain * n + data.rating_item[None, :]).ravel()
    item_of_rating = data.rating_item
    metric_items = np.flatnonzero(data.item_metric >= 0)
    metric_group = np.zeros(metric_items.size, dtype=np.int64) if data.pooled else \
        item_group[metric_items]
    metric_cell = (chain * gt * 2 * j + metric_group[None, :] * 2 * j
                   + data.item_metric[metric_items][None, :]).ravel() if has_metric else None
    # every item's cell of the metric's log-odds table; items without a metric output point
    # at a zero appended to each chain's table
    if has_metric:
        width = gt * j + 1
        own = np.where(data.item_metric >= 0, (np.zeros(n, dtype=np.int64) if data.pooled else
                                               item_group) * j + data.item_metric, gt * j)
        metric_lo = (chain * width + own[None, :]).ravel()
    group_lo = (chain * g + item_group[None, :]).ravel()
    mo = np.asarray(data.metric_only, dtype=np.int64)                       # (G, J)
    mo_t = np.zeros(g, dtype=np.int64) if data.pooled else np.arange(g)
    a_r, b_r = data.rater_prior
    rater_conc = np.array([[a_r, b_r], [b_r, a_r]])
    share = data.share_concentration

    z = np.tile(np.where(data.fixed >= 0, data.fixed, data.init), (chains, 1)).astype(np.int64)
    pi_d = np.empty((chains, draws, g, 2))
    th_d = np.empty((chains, draws, gt, 2, j), dtype=np.float32) if has_metric else None
    phi_d = np.empty((chains, draws, r, 2, 2), dtype=np.float32)
    comp_d = np.empty((chains, draws, r), dtype=np.float32) if mace else None
    spam_d = np.empty((chains, draws, r, 2), dtype=np.float32) if mace else None
    prob_sum = np.zeros(n)
    mo_pos = np.zeros((chains, g, max(j, 1)))   # metric-only items of class 1 per cell
    comp = np.full((chains, r), a_r / (a_r + b_r))
    spam = np.full((chains, r, 2), 0.5)

    for sweep in range(warmup + draws):
        zf = z.ravel()
        # -- parameters given the classes ----------------------------------------------------------
        cls_rated = np.bincount(group_cell + zf, minlength=chains * g * 2).reshape(
            chains, g, 2).astype(float)
        if has_metric:
            zm = np.take(z, metric_items, axis=1).ravel()
            tc_rated = np.bincount(metric_cell + zm * j, minlength=chains * gt * 2 * j).reshape(
                chains, gt, 2, j).astype(float)
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
            zr = np.take(z, item_of_rating, axis=1).ravel()
            rc = np.bincount(rating_cell + 2 * zr, minlength=chains * r * 4).reshape(
                chains, r, 2, 2).astype(float)   # (chain, rater, class, label)
            if mace:
                # a rating that agrees with the class is a guess with probability
                # (1 - theta) xi_l / (theta + (1 - theta) xi_l); one that disagrees always is
                agree = np.stack([rc[:, :, 0, 0], rc[:, :, 1, 1]], axis=2)   # (C, R, label)
                disagree = np.stack([rc[:, :, 1, 0], rc[:, :, 0, 1]], axis=2)
                guess = (1.0 - comp)[..., None] * spam
                p_guess = guess / (guess + comp[..., None])
                guessed = rng.binomial(agree.astype(np.int64), p_guess) + disagree
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
        lo = np.take((lp[..., 1] - lp[..., 0]).ravel(), group_lo).reshape(chains, n)
        if has_metric and metric_items.size:
            lt = np.log(np.maximum(theta, _TINY))
            mlo = np.concatenate([(lt[:, :, 1, :] - lt[:, :, 0, :]).reshape(chains, -1),
                                  np.zeros((chains, 1))], axis=1).ravel()
            lo += np.take(mlo, metric_lo).reshape(chains, n)
        if m:
            lf = np.log(np.maximum(phi, _TINY))
            rlo = (lf[:, :, 1, :] - lf[:, :, 0, :]).ravel()       # (C, R, label)
            lo += np.bincount(rating_of, weights=np.take(rlo, rating_lo),
                              minlength=chains * n).reshape(chains, n)
        p1 = 1.0 / (1.0 + np.exp(-np.clip(lo, -700.0, 700.0)))
        if fixed_idx.size:
            p1[:, fixed_idx] = fixed_val
        u = rng.random((chains, n))
        z = (u < p1).astype(np.int64)
        if sweep >= warmup:
            t = sweep - warmup
            pi_d[:, t] = pi
            phi_d[:, t] = phi
            if has_metric:
                th_d[:, t] = theta
            if mace:
                comp_d[:, t] = comp
                spam_d[:, t] = spam
            prob_sum += p1.sum(axis=0)
    prob = prob_sum / (chains * draws)
    return RaterDraws(pi_d, th_d, phi_d, comp_d, spam_d, np.stack([1.0 - prob, prob], axis=1))
