"""Exact posterior rank probabilities of independent posteriors of ``alpha``.

With independent posteriors (densities ``f_s``, survival functions ``S_t``) the probability that
system ``s`` has rank ``r`` (1 = highest ``alpha``) is

    P(rank_s = r) = int f_s(x) PB_{r-1}({S_t(x)}_{t != s}) dx,

``PB_m`` the Poisson-binomial probability that exactly ``m`` of the other systems lie above ``x``
(computed by the usual recursion over the systems).  The integral uses Gauss-Legendre rules of 16
points on panels whose edges are 64 quantiles of *every* posterior (and the points beyond which
each posterior has less than 1e-15 of its mass), so both the density of ``s`` and the steps of the
other systems' survival functions are resolved on their own scales.  The tests hold the result to
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


def _nodes(posts: Sequence[PosteriorDistribution]) -> tuple[np.ndarray, np.ndarray]:
    edges = []
    for p in posts:
        lo, hi = p._support()
        edges.extend([lo, hi])
        if hi > lo:
            edges.extend(np.asarray(p.ppf(_QUANTILES), dtype=float).tolist())
    e = np.unique(np.clip(np.asarray(edges, dtype=float), 0.0, 1.0))
    if e.size < 2:
        return e, np.ones_like(e)
    mids, rads = 0.5 * (e[1:] + e[:-1]), 0.5 * (e[1:] - e[:-1])
    x16, w16 = _GL16
    nodes = (mids[:, None] + rads[:, None] * x16[None, :]).ravel()
    weights = (rads[:, None] * w16[None, :]).ravel()
    return nodes, weights


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
    out = np.zeros((k, k))
    for s in range(k):
        dist = np.zeros((k, nodes.size))
        dist[0] = 1.0
        for t in range(k):
            if t == s:
                continue
            p = surv[t]
            new = dist * (1.0 - p)
            new[1:] += dist[:-1] * p
            dist = new
        out[s] = (dist * (weights * dens[s])[None, :]).sum(axis=1)
    # the quadrature of each density integrates to 1 up to its error; rows are probabilities
    return out / out.sum(axis=1, keepdims=True)
