"""Exact posterior rank probabilities of independent posteriors of ``alpha``.

With independent posteriors (densities ``f_s``, survival functions ``S_t``) the probability that
system ``s`` has rank ``r`` (1 = highest ``alpha``) is

    P(rank_s = r) = int f_s(x) PB_{r-1}({S_t(x)}_{t != s}) dx,

``PB_m`` the Poisson-binomial probability that exactly ``m`` of the other systems lie above ``x``:
the distribution of all ``K`` systems at every node (the usual recursion), with system ``s``
divided out of it in the direction in which no error grows (:func:`_take_out`), ``K^2`` steps
for the table instead of ``K^3`` (50 systems: 2-3x less time, the rest being the posteriors'
distribution functions at the nodes; the same numbers within 5e-16).  Nodes where ``s`` has
essentially no density (together at most ``1e-16`` of its integral) are left out of its row.
The integral uses Gauss-Legendre rules of 16 points on panels cut from the edges of *every*
posterior (63 quantiles and the points beyond which it has less than 1e-15 of its mass), joined
where many systems crowd them as long as no joined panel is wider than any system's own panels
there (:func:`_merged_edges`), so both the density of ``s`` and the steps of the other systems'
survival functions are resolved on their own scales (50 systems: about 11,000 nodes instead of
52,000, the table 4.5x faster and the same within 5e-16; ``benchmarks/bench_ranks.py``).  The tests hold the result to
1e-9 of the quadrature of ``P(alpha_1 > alpha_2)`` (two systems) and of a triple ``scipy``
integration for three Beta posteriors.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .posterior import PosteriorDistribution

__all__ = ["rank_probabilities"]

_GL16 = np.polynomial.legendre.leggauss(16)
_QUANTILES = np.linspace(0.0, 1.0, 65)[1:-1]
#: the share of a system's density integral its rank probabilities may leave out (smallest nodes)
_NEGLIGIBLE = 1e-16


def _nodes(posts: Sequence[PosteriorDistribution]) -> tuple[np.ndarray, np.ndarray]:
    own = []
    for p in posts:
        lo, hi = p._support()
        e = [lo, hi] if hi <= lo else [lo, *np.asarray(p.ppf(_QUANTILES), dtype=float), hi]
        own.append(np.unique(np.clip(np.asarray(e, dtype=float), 0.0, 1.0)))
    e = _merged_edges(own)
    if e.size < 2:
        return e, np.ones_like(e)
    mids, rads = 0.5 * (e[1:] + e[:-1]), 0.5 * (e[1:] - e[:-1])
    x16, w16 = _GL16
    nodes = (mids[:, None] + rads[:, None] * x16[None, :]).ravel()
    weights = (rads[:, None] * w16[None, :]).ravel()
    return nodes, weights


def _merged_edges(own: list[np.ndarray]) -> np.ndarray:
    """Panel edges for all systems at once: every panel within every system's own panels' width.

    Each system's own edges (its support's ends and 63 quantiles) give panels on which its
    density and survival function are resolved (two systems alone are integrated on such
    panels to 1e-9).  The union of all systems' edges resolves every one of them, but with many
    systems its panels are far narrower than any needs (50 systems: some 3,300 panels where a
    few hundred do).  Consecutive panels of the union are joined as long as the joined panel is
    no wider than the narrowest own panel of any system whose support it touches, so each
    system is integrated on panels no wider than its own; the ends of every support stay
    edges (a density may bend sharply there).
    """
    union = np.unique(np.concatenate(own))
    if union.size < 3:
        return union
    mids = 0.5 * (union[1:] + union[:-1])
    allowed = np.full(mids.size, np.inf)
    keep = np.zeros(union.size, dtype=bool)
    keep[[0, -1]] = True
    for e in own:
        if e.size < 2:
            keep[np.searchsorted(union, e)] = True
            continue
        inside = (mids > e[0]) & (mids < e[-1])
        at = np.clip(np.searchsorted(e, mids[inside]), 1, e.size - 1)
        allowed[inside] = np.minimum(allowed[inside], e[at] - e[at - 1])
        keep[np.searchsorted(union, [e[0], e[-1]])] = True
    out = [union[0]]
    start, room = union[0], np.inf
    for i in range(mids.size):
        room = min(room, allowed[i])
        nxt = union[i + 1]
        # joining this gap would make the panel wider than a system's own there: close it
        if nxt - start > room and union[i] > start:
            out.append(union[i])
            start, room = union[i], allowed[i]
        if keep[i + 1]:
            if nxt > start:
                out.append(nxt)
            start, room = nxt, np.inf
    return np.asarray(out)


def _add_one(dist: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The count's distribution (rows 0, 1, ...) with one more Bernoulli(``p``) added (per node)."""
    new = dist * (1.0 - p)
    new[1:] += dist[:-1] * p
    return new


def _take_out(full: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The count's distribution without one Bernoulli(``p``): ``full`` (rows 0..K) divided by it.

    ``full[m] = q[m] (1 - p) + q[m - 1] p``, solved for ``q`` (rows 0..K-1) upwards where
    ``p <= 1/2`` (each step divides by ``1 - p >= 1/2`` and carries the error before it times
    ``p / (1 - p) <= 1``) and downwards from the top where ``p > 1/2`` (dividing by ``p``, the
    error times ``(1 - p) / p < 1``): no error grows, each entry is within some ``K`` ulps of
    the largest (the recursion of every system but one, from the start, is the same sum in
    another order).
    """
    k = full.shape[0] - 1
    q = np.empty((k, full.shape[1]))
    low = p <= 0.5
    if low.any():
        d, pl = full[:, low], p[low]
        inv, ratio = 1.0 / (1.0 - pl), pl / (1.0 - pl)
        ql = np.empty((k, pl.size))
        np.multiply(d[0], inv, out=ql[0])
        for m in range(1, k):
            np.multiply(ratio, ql[m - 1], out=ql[m])
            np.subtract(d[m] * inv, ql[m], out=ql[m])
        q[:, low] = ql
    high = ~low
    if high.any():
        d, ph = full[:, high], p[high]
        inv, ratio = 1.0 / ph, (1.0 - ph) / ph
        qh = np.empty((k, ph.size))
        np.multiply(d[k], inv, out=qh[k - 1])
        for m in range(k - 1, 0, -1):
            np.multiply(ratio, qh[m], out=qh[m - 1])
            np.subtract(d[m] * inv, qh[m - 1], out=qh[m - 1])
        q[:, high] = qh
    return q


def rank_probabilities(posts: Sequence[PosteriorDistribution]) -> np.ndarray:
    """``P(rank_s = r)`` for independent posteriors: rows systems, columns ranks 1..K.

    Parameters
    ----------
    posts : sequence of PosteriorDistribution

    Returns
    -------
    ndarray (K, K)

    Examples
    --------
    >>> from binaryeval.binary.ranks import rank_probabilities
    >>> from binaryeval import alpha_posterior
    >>> a = alpha_posterior(human_pos=70, human_total=100)
    >>> b = alpha_posterior(human_pos=55, human_total=100)
    >>> p = rank_probabilities([a, b])
    >>> round(float(p[0, 0]), 10) == round(a.prob_greater(b), 10)
    True
    """
    k = len(posts)
    nodes, weights = _nodes(posts)
    fast = [p._fast() for p in posts]   # (cdf, sf, pdf) vectorised over many points
    dens = np.stack([np.asarray(f[2](nodes), dtype=float) for f in fast])
    surv = np.clip(np.stack([np.asarray(f[1](nodes), dtype=float) for f in fast]), 0.0, 1.0)
    dens = np.where(np.isfinite(dens), dens, 0.0)
    # the Poisson-binomial of all K systems at every node, then each system taken out of it
    full = np.zeros((k + 1, nodes.size))
    full[0] = 1.0
    for t in range(k):
        full = _add_one(full, surv[t])
    out = np.zeros((k, k))
    for s in range(k):
        # the nodes where system s has essentially no density are left out: together they
        # weigh at most 1e-16 of its integral, so no probability moves by more (the others'
        # Poisson-binomial is at most 1 there)
        mass = weights * dens[s]
        order = np.argsort(mass)
        tiny = order[np.cumsum(mass[order]) <= _NEGLIGIBLE * float(mass.sum())]
        keep = np.ones(nodes.size, dtype=bool)
        keep[tiny] = False
        out[s] = _take_out(full[:, keep], surv[s][keep]) @ mass[keep]
    # the quadrature of each density integrates to 1 up to its error; rows are probabilities
    return out / out.sum(axis=1, keepdims=True)
