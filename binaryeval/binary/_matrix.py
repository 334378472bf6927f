"""``P(alpha_i > alpha_j)`` for every pair of many posteriors at once.

``P(alpha_i > alpha_j) = int f_i(x) F_j(x) dx``.  On one set of quadrature nodes shared by all
posteriors, with weights ``W``, the whole matrix is one product ``(W f)^T F`` of two tables:
each posterior's density and distribution function at the nodes, computed once
(:mod:`binaryeval.binary._stack` evaluates the materialised mixtures side by side).  The
nodes are 16-point Gauss-Legendre rules on panels no wider than twice the standard deviation
of any posterior whose mass (within its 1e-16 quantiles) overlaps the panel, so each density and
each distribution function is smooth on the panels that hold it.  A 12-point rule on the same panels
gives a second matrix; where the two differ by more than ``_TOL`` (1e-13), or where a posterior
has separate modes, the pair is computed on its own by
:func:`~binaryeval.binary.posterior.prob_greater`.

Pairs whose 1e-16 quantiles do not overlap are 0 or 1 (the tails beyond a point between them
hold at most 2e-16).  Every other pair takes the narrower posterior's density (as the pairwise
path does) and is normalised by that density's integral on the same nodes; the two paths agree
within 1e-12 (the tests hold them to that).
"""

from __future__ import annotations

import numpy as np

__all__ = ["prob_greater_matrix"]

_TOL = 1e-13
_GL16 = np.polynomial.legendre.leggauss(16)
_GL12 = np.polynomial.legendre.leggauss(12)


def _panels(lo: np.ndarray, hi: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """Panel edges covering every ``[lo_i, hi_i]``.

    Each panel is at most twice the smallest ``sd_i`` of the posteriors overlapping it (and not
    more than 1/8 of [0, 1]).
    """
    order = np.argsort(lo)
    lo_s, hi_s, sd_s = lo[order], hi[order], sd[order]
    edges = [float(lo.min())]
    end = float(hi.max())
    x = edges[0]
    while x < end:
        width = 1.0 / 8.0
        for _ in range(8):
            # posteriors whose mass overlaps [x, x + width]
            k = int(np.searchsorted(lo_s, x + width, side="right"))
            cover = hi_s[:k] > x
            if not cover.any():
                break
            w = 2.0 * float(np.min(sd_s[:k][cover]))
            if w >= width:
                break
            width = w
        # skip gaps no posterior covers
        k = int(np.searchsorted(lo_s, x + width, side="right"))
        if not np.any(hi_s[:k] > x):
            nxt = lo_s[k] if k < lo_s.size else end
            x = float(min(max(nxt, x + width), end))
        else:
            x = float(min(x + width, end))
        edges.append(x)
    return np.unique(np.asarray(edges))


def _tables(posts, nodes: np.ndarray, lo: np.ndarray, hi: np.ndarray):
    """Densities and distribution functions of every posterior at the nodes.

    Inside each one's 1e-16 quantiles; outside, 0 and 0 or 1.
    """
    from ._stack import Stack
    from .posterior import AlphaPosterior

    G, n = len(posts), nodes.size
    dens = np.zeros((G, n))
    cdf = (nodes[None, :] > hi[:, None]).astype(float)
    inside = (nodes[None, :] >= lo[:, None]) & (nodes[None, :] <= hi[:, None])
    stacked = [i for i, p in enumerate(posts) if isinstance(p, AlphaPosterior)
               and p.smooth is None and not p.parts]
    if stacked:
        stack = Stack([posts[i].components() for i in stacked])
        where = inside[stacked]
        grp, col = np.nonzero(where)
        x = nodes[col]
        ok = (x > 0.0) & (x < 1.0)
        F, f = stack.cdf_pdf(grp[ok], x[ok])
        rows = np.asarray(stacked)[grp[ok]]
        cdf[rows, col[ok]] = F
        dens[rows, col[ok]] = f
    done = set(stacked)
    for i, p in enumerate(posts):
        if i in done:
            continue
        cols = np.flatnonzero(inside[i])
        if cols.size:
            cdf[i, cols] = p.cdf(nodes[cols])
            dens[i, cols] = p.pdf(nodes[cols])
    return dens, cdf


def prob_greater_matrix(posts) -> np.ndarray:
    """``P[i, j] = P(alpha_i > alpha_j)`` for independent posteriors (see the module notes).

    Parameters
    ----------
    posts : sequence of PosteriorDistribution

    Returns
    -------
    ndarray
        ``(G, G)``; the diagonal is NaN.

    Examples
    --------
    >>> from binaryeval import alpha_posterior
    >>> posts = [alpha_posterior(70, 100), alpha_posterior(55, 100), alpha_posterior(60, 100)]
    >>> P = prob_greater_matrix(posts)
    >>> round(float(P[0, 1]), 4), round(float(P[0, 1] + P[1, 0]), 12)
    (0.9855, 1.0)
    """
    from .posterior import AlphaPosterior, prob_greater, summaries

    G = len(posts)
    out = np.full((G, G), np.nan)
    if G < 2:
        return out
    sd = np.array([p.std() for p in posts])
    ends = summaries(posts, 1e-16, mode=False)
    lo, hi = ends["lower"], ends["upper"]
    apart = hi[:, None] < lo[None, :]           # i's mass wholly below j's
    out[apart] = 0.0
    out[apart.T] = 1.0
    close = ~(apart | apart.T)
    np.fill_diagonal(close, False)
    # posteriors with separate modes have narrow features their sd does not show
    parts = np.array([isinstance(p, AlphaPosterior) and bool(p.parts) for p in posts])
    todo = close & ~parts[:, None] & ~parts[None, :]
    if todo.any():
        use = np.flatnonzero(todo.any(axis=1))
        edges = _panels(lo[use], hi[use], sd[use])
        mid, rad = 0.5 * (edges[1:] + edges[:-1]), 0.5 * (edges[1:] - edges[:-1])
        results = []
        for x, w in (_GL16, _GL12):
            nodes = (mid[:, None] + rad[:, None] * x[None, :]).ravel()
            weights = (rad[:, None] * w[None, :]).ravel()
            dens, cdf = _tables([posts[i] for i in use], nodes, lo[use], hi[use])
            wf = dens * weights[None, :]
            z = wf.sum(axis=1)
            # q[a, b] = int f_a F_b, normalised by int f_a on the same nodes
            results.append((wf @ cdf.T) / z[:, None])
        q16, q12 = results
        s = sd[use]
        narrow_row = s[:, None] <= s[None, :]
        p16 = np.where(narrow_row, q16, 1.0 - q16.T)
        p12 = np.where(narrow_row, q12, 1.0 - q12.T)
        sub = todo[np.ix_(use, use)]
        good = sub & (np.abs(p16 - p12) <= _TOL)
        rows, cols = np.nonzero(good)
        out[use[rows], use[cols]] = np.clip(p16[rows, cols], 0.0, 1.0)
        todo[np.ix_(use, use)] &= ~good
    # the rest one by one (each pair once; the other order by complement)
    for i, j in zip(*np.nonzero(np.triu(todo | (close & (parts[:, None] | parts[None, :])))),
                    strict=True):
        v = prob_greater(posts[i], posts[j])
        out[i, j], out[j, i] = v, 1.0 - v
    return out
