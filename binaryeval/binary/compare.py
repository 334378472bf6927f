"""Pairwise comparison of groups' posteriors of ``alpha`` (the rows of a :class:`Comparison`).

For two groups the posteriors of ``alpha`` are independent, so the difference
``alpha_1 - alpha_2`` has the distribution function

    P(alpha_1 - alpha_2 <= d) = int f_2(y) F_1(y + d) dy = int f_1(x) S_2(x - d) dx,

integrated over the *narrower* of the two posteriors (the other one's distribution function is
then smooth on the scale of the nodes): Gauss-Legendre rules of 16 points on panels no wider than
the narrower posterior's standard deviation, placed as for ``P(alpha_1 > alpha_2)``
(:func:`binaryeval.binary.posterior.prob_greater`), over all but 1e-15 of its mass in each tail.
The interval's ends are the roots of ``P(alpha_1 - alpha_2 <= d) = (1 -/+ level) / 2`` (bracketed
on a grid of the normal approximation, then Brent's method to 1e-12).  A posterior with separate
modes enters as the weighted sum over its parts.  The tests hold the ends to 1e-9 of adaptive
quadrature (``scipy.integrate.quad``) and root finding on Beta posteriors and mixtures.

That is some milliseconds a pair.  :func:`difference_intervals` (what :func:`compare_posteriors`
uses) solves every pair side by side on checked surrogates of the posteriors
(:mod:`binaryeval.binary._differences`), each end within 1e-9 of this exact one, and keeps
:func:`difference_interval` for the pairs it cannot vouch for.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd
from scipy import optimize

from .. import _validate
from .._comparison import Comparison, finish
from ..errors import DataError, ParameterError
from . import _differences, _stack
from .posterior import (
    AlphaPosterior,
    PosteriorDistribution,
    _panel_edges,
    prob_greater_matrix,
    summaries,
)

__all__ = ["Comparison", "compare_posteriors", "difference_cdf", "difference_interval",
           "difference_intervals"]

_GL16 = np.polynomial.legendre.leggauss(16)
_MAX_PANELS = 400


def _nodes(narrow: PosteriorDistribution, wide: PosteriorDistribution
           ) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of ``int f_narrow(x) g(x) dx`` for ``g`` smooth on the wider scale."""
    lo, hi = narrow._support()
    if not hi > lo:
        return np.array([lo]), np.array([1.0])
    edges = _panel_edges(narrow, wide, lo, hi)
    step = max(narrow.std(), (hi - lo) / _MAX_PANELS)
    pieces = []
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        n = max(1, int(math.ceil((b - a) / step)))
        pieces.append(np.linspace(a, b, n + 1)[:-1])
    starts = np.concatenate(pieces)
    ends = np.r_[starts[1:], edges[-1]]
    mids, rads = 0.5 * (starts + ends), 0.5 * (ends - starts)
    x16, w16 = _GL16
    nodes = (mids[:, None] + rads[:, None] * x16[None, :]).ravel()
    weights = (rads[:, None] * w16[None, :]).ravel() * narrow._fast()[2](nodes)
    weights = np.clip(weights, 0.0, None)
    return nodes, weights / weights.sum()


def difference_cdf(first: PosteriorDistribution, second: PosteriorDistribution
                   ) -> Callable[[np.ndarray], np.ndarray]:
    """``d -> P(alpha_1 - alpha_2 <= d)`` for two independent posteriors (vectorised in ``d``).

    Parameters
    ----------
    first, second : PosteriorDistribution

    Returns
    -------
    callable

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary.compare import difference_cdf
    >>> from binaryeval import alpha_posterior
    >>> a = alpha_posterior(human_pos=60, human_total=100)
    >>> cdf = difference_cdf(a, a)
    >>> round(float(cdf(np.array([0.0]))[0]), 10)   # symmetric: half the mass below 0
    0.5
    """
    if isinstance(first, AlphaPosterior) and first.parts:
        fns = [difference_cdf(p, second) for p in first.parts]
        return lambda d: sum(w * f(d) for f, w in zip(fns, first.part_weights, strict=True))
    if isinstance(second, AlphaPosterior) and second.parts:
        fns = [difference_cdf(first, p) for p in second.parts]
        return lambda d: sum(w * f(d) for f, w in zip(fns, second.part_weights, strict=True))
    swap = second.std() < first.std()
    narrow, wide = (second, first) if swap else (first, second)
    nodes, weights = _nodes(narrow, wide)
    cdf_w, sf_w, _ = wide._fast()

    def at(d: np.ndarray) -> np.ndarray:
        d = np.atleast_1d(np.asarray(d, dtype=float))
        if swap:   # int f_2(y) F_1(y + d) dy
            pts = np.clip(nodes[:, None] + d[None, :], 0.0, 1.0)
            vals = np.asarray(cdf_w(pts.ravel())).reshape(pts.shape)
        else:      # int f_1(x) S_2(x - d) dx
            pts = np.clip(nodes[:, None] - d[None, :], 0.0, 1.0)
            vals = np.asarray(sf_w(pts.ravel())).reshape(pts.shape)
        return np.clip(weights @ vals, 0.0, 1.0)

    return at


def difference_interval(first: PosteriorDistribution, second: PosteriorDistribution,
                        level: float = 0.95) -> tuple[float, float]:
    """Equal-tailed credible interval of ``alpha_1 - alpha_2`` for independent posteriors.

    Parameters
    ----------
    first, second : PosteriorDistribution
    level : float
        Probability inside the interval.

    Returns
    -------
    (float, float)

    Examples
    --------
    >>> from binaryeval.binary.compare import difference_interval
    >>> from binaryeval import alpha_posterior
    >>> a = alpha_posterior(human_pos=70, human_total=100)
    >>> b = alpha_posterior(human_pos=55, human_total=100)
    >>> [round(x, 4) for x in difference_interval(a, b)]
    [0.0151, 0.2766]
    """
    level = _validate.level(level)
    cdf = difference_cdf(first, second)
    mean = first.mean() - second.mean()
    sd = math.sqrt(first.var() + second.var())
    out = []
    for p in ((1.0 - level) / 2.0, (1.0 + level) / 2.0):
        if not sd > 0:
            out.append(mean)
            continue
        grid = np.clip(mean + sd * np.linspace(-9.0, 9.0, 19), -1.0, 1.0)
        grid = np.unique(np.r_[-1.0, grid, 1.0])
        vals = cdf(grid) - p
        k = int(np.searchsorted(vals, 0.0))   # vals increase with d
        k = min(max(k, 1), grid.size - 1)
        a, b = grid[k - 1], grid[k]
        fa, fb = vals[k - 1], vals[k]
        if fa == 0:
            out.append(float(a))
        elif fa * fb > 0:   # flat within rounding: the closer end
            out.append(float(a if abs(fa) < abs(fb) else b))
        else:
            out.append(float(optimize.brentq(lambda d, p=p: float(cdf(np.array([d]))[0] - p), a, b,
                                             xtol=1e-12, rtol=4 * np.finfo(float).eps)))
    return out[0], out[1]


def difference_intervals(posts, first: np.ndarray, second: np.ndarray,
                         level: float = 0.95) -> np.ndarray:
    """Equal-tailed intervals of ``alpha_first[k] - alpha_second[k]`` for many pairs at once.

    Every pair is solved side by side on checked surrogates of the posteriors
    (:mod:`binaryeval.binary._differences`): each end within 1e-9 of
    :func:`difference_interval`'s exact one.  Pairs the fast path cannot vouch for (a posterior
    with separate modes, or whose surrogate misses its tolerance) are answered by
    :func:`difference_interval` itself.

    Parameters
    ----------
    posts : sequence of PosteriorDistribution
    first, second : array of int
        Indices into ``posts`` of each pair's two posteriors.
    level : float
        Probability inside each interval.

    Returns
    -------
    ndarray
        ``(n_pairs, 2)``: ``lower``, ``upper``.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary.compare import difference_interval, difference_intervals
    >>> from binaryeval import alpha_posterior
    >>> posts = [alpha_posterior(70, 100), alpha_posterior(55, 100), alpha_posterior(60, 100)]
    >>> ends = difference_intervals(posts, np.array([0, 0]), np.array([1, 2]))
    >>> [round(x, 4) for x in ends[0]] == [round(x, 4) for x in difference_interval(*posts[:2])]
    True
    """
    level = _validate.level(level)
    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    out = np.full((first.size, 2), np.nan)
    if not first.size:
        return out
    with _stack.reuse():
        # (the quantiles and the surrogates' exact values read one stack of the mixtures)
        ends = summaries(posts, _differences.DOMAIN_TAIL, mode=False)
        lo, hi, ok = _differences.intervals(posts, first, second, level, ends["lower"],
                                            ends["upper"])
    out[ok, 0], out[ok, 1] = lo[ok], hi[ok]
    for k in np.flatnonzero(~ok):
        out[k] = difference_interval(posts[first[k]], posts[second[k]], level)
    return out


def compare_posteriors(posteriors: Mapping[str, PosteriorDistribution], *, method: str = "bayes",
                       sig_level: float = 0.05, adjust: str | None = None,
                       group_name: str = "group", level: float = 0.95,
                       shared_rows: bool = False) -> Comparison:
    """Compare every pair of posteriors (see :meth:`BinaryFit.compare`).

    Parameters
    ----------
    posteriors : mapping
        ``group -> posterior``, in display order.
    method : {"bayes", "z"}
        Which p-value decides significance.
    sig_level : float
        Significance threshold.
    adjust : str, optional
        A statsmodels ``multipletests`` method applied over all pairs.
    group_name : str
        Name of the grouping column (for the matrix's axes).
    level : float
        Probability of the credible interval of each difference.
    shared_rows : bool
        The posteriors share paired rows (pooled rates): the comparison, which takes them as
        independent, says so.

    Returns
    -------
    Comparison

    Examples
    --------
    >>> from binaryeval.binary.compare import compare_posteriors
    >>> from binaryeval import alpha_posterior
    >>> comp = compare_posteriors({"A": alpha_posterior(human_pos=70, human_total=100),
    ...                            "B": alpha_posterior(human_pos=55, human_total=100)})
    >>> comp
    Comparison(pairs=1, significant=1, method='bayes', sig_level=0.05)
    """
    _validate.choice(method, "method", ("bayes", "z"))
    sig_level = _validate.sig_level(sig_level)
    level = _validate.level(level)
    groups = [str(g) for g in posteriors]
    if len(groups) < 2:
        raise DataError("compare needs at least two groups; add '| system' to the formula")
    if len(set(groups)) != len(groups):
        raise ParameterError(f"the groups {groups} repeat a name")
    posts = [posteriors[g] for g in posteriors]
    mean = np.array([p.mean() for p in posts])
    var = np.array([p.var() for p in posts])
    # P(alpha_i > alpha_j) for every pair at once (one quadrature over shared nodes, see
    # binaryeval.binary._matrix); each difference's interval from its exact distribution
    i, j = np.triu_indices(len(groups), k=1)
    with _stack.reuse():
        pg_all = prob_greater_matrix(posts)
        bounds = difference_intervals(posts, i, j, level)
    names = np.array(groups, dtype=object)
    rows = pd.DataFrame({"group_1": names[i], "group_2": names[j], "diff": mean[i] - mean[j],
                         "std_error": np.sqrt(var[i] + var[j]), "lower": bounds[:, 0],
                         "upper": bounds[:, 1], "prob_greater": pg_all[i, j]})
    return finish(rows, groups=groups, method=method, sig_level=sig_level,
                  adjust=adjust, level=level, group_name=group_name,
                  quantity="P(alpha_1 > alpha_2)",
                  interval="exact: the difference of the two independent posteriors" + (
                      "; with pooled rates they share the paired rows, which this leaves out "
                      "(it usually makes P and the interval conservative)" if shared_rows
                      else ""))
