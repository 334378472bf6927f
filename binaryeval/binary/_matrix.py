"""``P(alpha_i > alpha_j)`` for every pair of many posteriors at once.

``P(alpha_i > alpha_j) = int f_i(x) F_j(x) dx``.  On one set of quadrature nodes shared by all
posteriors, with weights ``W``, the whole matrix is one product ``(W f)^T F`` of two tables:
each posterior's density and distribution function at the nodes, computed once
(:mod:`binaryeval.binary._stack` evaluates the materialised mixtures side by side).  The
nodes are 16-point Gauss-Legendre rules on panels no wider than 2.5 standard deviations of any
posterior whose mass (within its 1e-16 quantiles) overlaps the panel, so each density and
each distribution function is smooth on the panels that hold it.  A 12-point rule on the same panels
gives a second matrix; where the two differ by more than ``_TOL`` (1e-13), or where a posterior
has separate modes, the pair is computed on its own by
:func:`~binaryeval.binary.posterior.prob_greater`.

Pairs whose 1e-16 quantiles do not overlap are 0 or 1 (the tails beyond a point between them
hold at most 2e-16).  Every other pair takes the narrower posterior's density (as the pairwise
path does) and is normalised by that density's integral on the same nodes; the two paths agree
within 1e-12 (the tests hold them to that).  :func:`~binaryeval.binary.posterior.prob_greater`
itself tries this quadrature for its one pair before its adaptive quadrature, and
:func:`~binaryeval.binary.posterior.prob_greater_matrix` applies it to every pair.
"""

from __future__ import annotations

import numpy as np

from ._stack import Stack, shared

__all__ = ["quadrature"]

_TOL = 1e-13
_PANEL_SDS = 2.5    # a panel's width at most this many sds of the narrowest posterior on it
_GL16 = np.polynomial.legendre.leggauss(16)
_GL12 = np.polynomial.legendre.leggauss(12)


def _panels(lo: np.ndarray, hi: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """Panel edges covering every ``[lo_i, hi_i]``.

    Each panel is at most ``_PANEL_SDS`` times the smallest ``sd_i`` of the posteriors
    overlapping it (and not more than 1/8 of [0, 1]).
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
            w = _PANEL_SDS * float(np.min(sd_s[:k][cover]))
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


def _stacked(posts) -> tuple[list[int], Stack | None]:
    """The materialised mixtures among ``posts``, and one stack of them.

    Materialised: with ``components()`` and neither a smooth representation nor parts.  The
    stack is the two-sided one the quantiles built (inside :func:`._stack.reuse`), whose first
    half is these mixtures; else their own.
    """
    stacked = [i for i, p in enumerate(posts) if getattr(p, "smooth", 0) is None
               and not getattr(p, "parts", ())]
    if not stacked:
        return stacked, None
    mixtures = [posts[i].components() for i in stacked]
    stack = shared(mixtures)
    return stacked, Stack(mixtures) if stack is None else stack


def _tables(posts, nodes: np.ndarray, lo: np.ndarray, hi: np.ndarray, stacked: list[int],
            stack: Stack | None):
    """Densities and distribution functions of every posterior at the nodes.

    Inside each one's 1e-16 quantiles; outside, 0 and 0 or 1.  The materialised mixtures
    ``stacked`` are evaluated side by side in ``stack`` (:func:`_stacked`), the others by their
    own ``cdf`` and ``pdf``.
    """
    G, n = len(posts), nodes.size
    dens = np.zeros((G, n))
    cdf = (nodes[None, :] > hi[:, None]).astype(float)
    inside = (nodes[None, :] >= lo[:, None]) & (nodes[None, :] <= hi[:, None])
    if stacked:
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


def quadrature(posts, lo: np.ndarray, hi: np.ndarray, sd: np.ndarray,
               todo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``P(alpha_i > alpha_j)`` by the shared quadrature for the pairs ``todo``.

    ``todo`` is a boolean matrix; returned with the values is which of them passed the check
    (see the module notes).  ``lo``, ``hi``: each posterior's 1e-16 quantiles; ``sd`` its standard deviation.  Returns
    ``(P, good)``: ``P`` holds the pairs of ``good``, NaN elsewhere.
    """
    G = len(posts)
    P = np.full((G, G), np.nan)
    good_all = np.zeros((G, G), dtype=bool)
    if not todo.any():
        return P, good_all
    use = np.flatnonzero(todo.any(axis=1))
    edges = _panels(lo[use], hi[use], sd[use])
    mid, rad = 0.5 * (edges[1:] + edges[:-1]), 0.5 * (edges[1:] - edges[:-1])
    results = []
    posts_used = [posts[i] for i in use]
    stacked, stack = _stacked(posts_used)     # (one stack for both rules)
    for x, w in (_GL16, _GL12):
        nodes = (mid[:, None] + rad[:, None] * x[None, :]).ravel()
        weights = (rad[:, None] * w[None, :]).ravel()
        dens, cdf = _tables(posts_used, nodes, lo[use], hi[use], stacked, stack)
        wf = dens * weights[None, :]
        z = wf.sum(axis=1)
        # q[a, b] = int f_a F_b, normalised by int f_a on the same nodes
        with np.errstate(invalid="ignore", divide="ignore"):
            results.append((wf @ cdf.T) / z[:, None])
    q16, q12 = results
    s = sd[use]
    narrow_row = s[:, None] <= s[None, :]
    p16 = np.where(narrow_row, q16, 1.0 - q16.T)
    p12 = np.where(narrow_row, q12, 1.0 - q12.T)
    sub = todo[np.ix_(use, use)]
    good = sub & (np.abs(p16 - p12) <= _TOL)
    rows, cols = np.nonzero(good)
    P[use[rows], use[cols]] = np.clip(p16[rows, cols], 0.0, 1.0)
    good_all[use[rows], use[cols]] = True
    return P, good_all
