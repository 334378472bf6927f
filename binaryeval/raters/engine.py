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

With ``rater_rates="hierarchical"`` the raters' parameters are not drawn from a fixed prior
but from a population whose mean and concentration are learnt (:class:`Population`): each row
``k`` of a Dawid-Skene matrix ``Phi_r[k] ~ Dirichlet(c_k m_k)``, MACE's competence ``theta_r ~
Beta(c m, c (1 - m))``.  Given the classes (and MACE's spam indicators) each rater's counts
follow a Dirichlet-multinomial in ``(m, c)`` once ``Phi_r`` (``theta_r``) is integrated out, so
the sweep draws the block (``m``, ``c``, the raters' parameters) by Metropolis steps on ``(m,
c)`` given the counts with the raters' parameters integrated out (random walks on the additive
log-ratios of ``m`` and on ``log c``, step sizes adapted in warm-up, then fixed), followed by
the raters' conjugate draws given the new ``(m, c)``.  Collapsing the raters' parameters out of
the hyperparameters' update avoids the slow alternation between ``c`` and raters who rated
few items.

Chains run side by side as a leading axis, drawn from one generator seeded by ``seed``, so a
seed reproduces every draw.  The items' class probabilities are averaged over the kept
sweeps (Rao-Blackwellised: the conditional probabilities, not the 0/1 draws).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse, special

__all__ = ["POPULATION", "Population", "RaterData", "RaterDraws", "sample"]

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
    rater_rates: str = "estimate"    # "estimate" (fixed prior) or "hierarchical"


@dataclass(frozen=True)
class RaterDraws:
    """Posterior draws (chains, draws, ...) and the items' class probabilities (N, K)."""

    pi: np.ndarray
    theta: np.ndarray | None     # metric confusion (C, D, Gt, K, J); None without a metric
    phi: np.ndarray              # rater confusion (C, D, R, K, K)
    competence: np.ndarray | None  # MACE theta_r (C, D, R)
    spam: np.ndarray | None        # MACE xi_r (C, D, R, K)
    item_prob: np.ndarray
    #: rater_rates="hierarchical": the population's mean (C, D, P, L) and concentration
    #: (C, D, P); Dawid-Skene: P = L = K (row k of the confusion), MACE: P = 1, L = 2
    #: (competence, 1 - competence)
    population_mean: np.ndarray | None = None
    population_concentration: np.ndarray | None = None
    #: the Metropolis steps' acceptance rates after warm-up: {"concentration", "mean"}
    accept: dict | None = None


def _gamma_rows(rng: np.random.Generator, conc: np.ndarray) -> np.ndarray:
    """Dirichlet draws along the last axis of the concentrations (every chain at once)."""
    out = rng.standard_gamma(conc)
    np.maximum(out, _TINY, out=out)
    out /= out.sum(axis=-1, keepdims=True)
    return out


# ----------------------------------------------------------------------------------------------
# the population level of rater_rates="hierarchical"
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Population:
    """The hyperprior of the raters' population.

    ``log c ~ Normal(loc, scale^2)`` truncated at ``truncate`` sd (the hyperprior of
    ``rates="hierarchical"``: central 95 % from ``c = 1.1`` to ``c = 380``); the population
    mean ``m`` has the fixed prior's shape: Beta(``lean``) on the chance of giving the item's
    class (a Dawid-Skene row: Dirichlet with ``lean[0]`` on the diagonal and ``lean[1] / (K -
    1)`` elsewhere).  Dawid-Skene's likelihood is unchanged when every class is renamed at
    once, and a population mean, unlike forty raters' own priors, leans only once: a class
    with few items would let its row drift to raters who mostly misread it.  So the
    Dawid-Skene population mean is truncated to rows whose diagonal is their largest entry (a
    typical rater gives an item's own class more often than any other), which fixes which
    class is which; MACE's competence is not symmetric that way and keeps the whole Beta.
    """

    loc: float = float(np.log(20.0))
    scale: float = 1.5
    truncate: float = 10.0
    lean: tuple[float, float] = (2.0, 1.0)

    def mean_prior(self, rows: int, width: int) -> np.ndarray:
        """Dirichlet parameters (P, L) of the population mean's rows."""
        a, b = self.lean
        if rows == 1:        # MACE: (competence, 1 - competence)
            return np.array([[a, b]])
        out = np.full((rows, width), b / (width - 1))
        np.fill_diagonal(out, a)
        return out


#: the hyperprior of rater_rates="hierarchical"
POPULATION = Population()
#: Metropolis updates of log c and of m per sweep; the acceptance rate the warm-up aims at
POP_STEPS = 3
POP_ACCEPT = 0.4


class _PopulationStep:
    """Metropolis updates of the population's ``(m, log c)`` given the raters' counts.

    ``counts`` (C, R, P, L): per chain, rater and population row, the rater's counts of each
    outcome (a Dawid-Skene row: ratings of each label given class ``k``; MACE: ratings from
    the class and guesses).  The target per (chain, row) is the hyperprior times
    ``prod_r B(c m + n_r) / B(c m)``, the raters' Dirichlet-multinomial likelihood; rows are
    independent, so every (chain, row) accepts or rejects on its own.
    """

    def __init__(self, chains: int, rows: int, width: int, hyper: Population):
        self.hyper = hyper
        self.ordered = rows > 1      # Dawid-Skene: the diagonal is the row's largest entry
        self.beta = hyper.mean_prior(rows, width)                        # (P, L)
        self.m = np.broadcast_to(self.beta / self.beta.sum(axis=1, keepdims=True),
                                 (chains, rows, width)).copy()
        self.log_c = np.full((chains, rows), hyper.loc)
        self.step_c = np.full((chains, rows), 1.0)
        self.step_m = np.full((chains, rows), 0.5)
        self.n_moves = 0
        self.acc_c = np.zeros((chains, rows))
        self.acc_m = np.zeros((chains, rows))
        self.n_kept = 0

    def log_target(self, m: np.ndarray, log_c: np.ndarray, counts: np.ndarray) -> np.ndarray:
        hp = self.hyper
        c = np.exp(log_c)                                                # (C, P)
        conc = c[..., None] * m                                          # (C, P, L)
        total = counts.sum(axis=-1)                                      # (C, R, P)
        like = (special.gammaln(c)[:, None] - special.gammaln(c[:, None] + total)).sum(axis=1)
        like += (special.gammaln(conc[:, None] + counts)
                 - special.gammaln(conc[:, None])).sum(axis=(1, 3))
        z = (log_c - hp.loc) / hp.scale
        out = like + (self.beta * np.log(np.maximum(m, _TINY))).sum(axis=-1) - 0.5 * z ** 2
        inside = np.abs(z) <= hp.truncate
        if self.ordered:
            inside &= np.diagonal(m, axis1=-2, axis2=-1) >= m.max(axis=-1)
        return np.where(inside, out, -np.inf)

    def update(self, rng: np.random.Generator, counts: np.ndarray, adapting: bool) -> None:
        """``POP_STEPS`` random-walk updates of ``log c`` and of ``alr m``."""
        now = self.log_target(self.m, self.log_c, counts)
        for _ in range(POP_STEPS):
            # log c
            prop = self.log_c + self.step_c * rng.standard_normal(self.log_c.shape)
            new = self.log_target(self.m, prop, counts)
            ok = np.log(rng.random(now.shape)) < new - now
            self.log_c = np.where(ok, prop, self.log_c)
            now = np.where(ok, new, now)
            self._adapt(ok, "step_c", "acc_c", adapting)
            # m through its additive log-ratios (the Jacobian is in the hyperprior's prod m^beta)
            lm = np.log(np.maximum(self.m, _TINY))
            y = lm[..., :-1] - lm[..., -1:]
            y = y + self.step_m[..., None] * rng.standard_normal(y.shape)
            full = np.concatenate([y, np.zeros(y.shape[:-1] + (1,))], axis=-1)
            full -= full.max(axis=-1, keepdims=True)
            prop_m = np.exp(full)
            prop_m /= prop_m.sum(axis=-1, keepdims=True)
            new = self.log_target(prop_m, self.log_c, counts)
            ok = np.log(rng.random(now.shape)) < new - now
            self.m = np.where(ok[..., None], prop_m, self.m)
            now = np.where(ok, new, now)
            self._adapt(ok, "step_m", "acc_m", adapting)
        if adapting:
            self.n_moves += 1

    def _adapt(self, ok: np.ndarray, step: str, acc: str, adapting: bool) -> None:
        if adapting:
            # Robbins-Monro on the log step size, towards POP_ACCEPT; frozen after warm-up
            gain = 1.0 / np.sqrt(self.n_moves + 1.0)
            setattr(self, step, getattr(self, step) * np.exp(gain * (ok - POP_ACCEPT)))
        else:
            setattr(self, acc, getattr(self, acc) + ok)

    def keep(self) -> None:
        self.n_kept += POP_STEPS

    @property
    def concentration(self) -> np.ndarray:
        return np.exp(self.log_c)

    @property
    def conc(self) -> np.ndarray:
        """The population Dirichlet's parameters ``c m`` (C, P, L)."""
        return np.exp(self.log_c)[..., None] * self.m

    def acceptance(self) -> dict:
        n = max(self.n_kept, 1)
        return {"concentration": float(self.acc_c.mean() / n), "mean": float(self.acc_m.mean() / n)}


def _population(data: RaterData, chains: int, draws: int, k: int):
    """The population step and its draws' arrays (None without rater_rates="hierarchical")."""
    if data.rater_rates != "hierarchical":
        return None, None, None
    rows, width = (1, 2) if data.model == "mace" else (k, k)
    pop = _PopulationStep(chains, rows, width, POPULATION)
    return (pop, np.empty((chains, draws, rows, width)), np.empty((chains, draws, rows)))


def _competence(rng: np.random.Generator, pop: _PopulationStep | None, known: np.ndarray,
                guessed: np.ndarray, fixed: tuple[float, float], adapting: bool) -> np.ndarray:
    """MACE's competence (C, R) given each rater's ratings from the class and guesses."""
    if pop is None:
        return rng.beta(fixed[0] + known, fixed[1] + guessed)
    pop.update(rng, np.stack([known, guessed], axis=-1)[:, :, None, :].astype(float), adapting)
    conc = pop.conc[:, 0]                                               # (C, 2)
    return rng.beta(conc[:, None, 0] + known, conc[:, None, 1] + guessed)


def _confusion(rng: np.random.Generator, pop: _PopulationStep | None, rc: np.ndarray,
               fixed: np.ndarray, adapting: bool) -> np.ndarray:
    """Dawid-Skene confusions (C, R, K, K) given the counts (C, R, class, label)."""
    if pop is None:
        return _gamma_rows(rng, fixed + rc)
    pop.update(rng, rc, adapting)
    return _gamma_rows(rng, pop.conc[:, None] + rc)


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
    pop, pm_d, pc_d = _population(data, chains, draws, 2)

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
        if m or pop is not None:
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
                comp = _competence(rng, pop, n_all - n_guess, n_guess, (a_r, b_r),
                                   sweep < warmup)
                spam = _gamma_rows(rng, 1.0 + guessed)
                phi = comp[..., None, None] * np.eye(2) + (1.0 - comp)[..., None, None] * \
                    spam[:, :, None, :]
            else:
                phi = _confusion(rng, pop, rc, rater_conc, sweep < warmup)
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
            if pop is not None:
                pm_d[:, t] = pop.m
                pc_d[:, t] = pop.concentration
                pop.keep()
            prob_sum += p1.sum(axis=1)
    prob = prob_sum / (chains * draws)
    return RaterDraws(pi_d, th_d, phi_d, comp_d, spam_d, np.stack([1.0 - prob, prob], axis=1),
                      pm_d, pc_d, None if pop is None else pop.acceptance())


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
    pop, pm_d, pc_d = _population(data, chains, draws, k)

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
        if m or pop is not None:
            rc = cnt[:, off_r:].reshape(chains, r, k, k).transpose(0, 1, 3, 2)  # (C,R,class,lab)
            if mace:
                agree = np.rint(np.diagonal(rc, axis1=2, axis2=3)).astype(np.int64)  # (C,R,K)
                disagree = rc.sum(axis=2) - agree
                guess = (1.0 - comp)[..., None] * spam
                p_guess = guess / (guess + comp[..., None])
                guessed = rng.binomial(agree, p_guess) + disagree
                n_all = rc.sum(axis=(2, 3))
                n_guess = guessed.sum(axis=2)
                comp = _competence(rng, pop, n_all - n_guess, n_guess, (a_r, b_r),
                                   sweep < warmup)
                spam = _gamma_rows(rng, 1.0 + guessed)
                phi = comp[..., None, None] * eye + (1.0 - comp)[..., None, None] * \
                    spam[:, :, None, :]
            else:
                phi = _confusion(rng, pop, rc, rater_conc, sweep < warmup)
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
            if pop is not None:
                pm_d[:, t] = pop.m
                pc_d[:, t] = pop.concentration
                pop.keep()
            prob_sum += prob.sum(axis=1)
    return RaterDraws(pi_d, th_d, phi_d, comp_d, spam_d, prob_sum / (chains * draws),
                      pm_d, pc_d, None if pop is None else pop.acceptance())
