"""Many materialised posteriors evaluated side by side: one point each, one kernel sum for all.

A fit of thousands of groups asks every posterior for the same few numbers (the quantiles of its
interval, its median and mode).  Asked one posterior at a time, each answer is a handful of
kernel sums of a few hundred terms, and the cost is the interpreter's, not the arithmetic's.
:class:`Stack` concatenates the components of many materialised mixtures (a single Beta is one
component) and evaluates, for one point per mixture, any number of sums
``sum_j c_j Beta(x; a_j, b_j)`` at once: the kernel sums of
:mod:`binaryeval.binary.posterior`, with a window and an anchor per point.  Within a window
the kernel relative to the anchor's term is a running product of rational factors,
``Beta_{j+1}(x) / Beta_j(x) = (x / (1 - x)) (b_j - 1) / a_j``: no exponential per term (the
products differ from the exponentials of running log sums by a few units in the last place;
windows whose products would leave the range of doubles take the log sums).

Both distribution functions are such sums.  With ``C_j`` the cumulative weights, the telescoping
identity of the posterior module reads ``F(x) = I_x(a_last, b_last) + x sum_{j < last}
(C_j / a_j) Beta(x; a_j, b_j)`` (its kernel ``C(N - 1, a_j) x^a_j (1 - x)^(b_j - 1)`` is
``x Beta(x; a_j, b_j) / a_j``), so the cdf and the density come from one pass (coefficients
``C_j / a_j`` and ``w_j``), every term positive.  The density's first two derivatives are
sums too (coefficients ``w_j``, ``w_j (a_j - r)`` and ``w_j (a_j - r)^2`` about a reference
``r`` near the mode, which keeps their differences small): Newton's method for the mode.

:func:`quantiles` solves ``F(x) = q`` for every posterior at once (the posterior module's
Newton iteration, on the side where each tail is small), :func:`modes` the mode; both answer
what the single-posterior methods answer, to their precision (the tests hold them to 1e-12).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from functools import cached_property

import numpy as np
from scipy import special

from ._kernels import _log_beta_pdf_one, log_beta_pdf

__all__ = ["Stack", "both_sides", "modes", "quantiles", "solve"]

# elements of the (points x window) work arrays per chunk: small enough that the arrays of a
# step stay in the processor's cache (2e6 took twice as long)
_CHUNK = 65_536
_TAIL = math.log(1e-18)
# Halley's correction is used while it is small (near the root, where the matched Beta's log
# density slope stands in well for the target's); a larger one falls back to Newton's step
_HALLEY_MAX = 0.05
# up to this many points (a posterior's quantiles) the bookkeeping is done in plain floats
_FEW_TARGETS = 4


def _steps(width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Index patterns of a window of ``width`` steps each way (see :meth:`Stack._window`).

    ``(2, width)`` arrays: the ratio read at step ``t`` relative to the anchor (``t`` forwards,
    ``-1 - t`` backwards), the step number, and the shift from the ratio read to the term
    reached (one forwards, none backwards).  The first ``width`` columns of the patterns of
    the widest window asked for so far (kept, read-only).
    """
    kept = _PATTERNS[0]
    if kept is None or kept[0].shape[1] < width:
        kept = _steps_new(max(width, 4096, 2 * (0 if kept is None else kept[0].shape[1])))
        _PATTERNS[0] = kept
    return kept[0][:, :width], kept[1][:, :width], kept[2][:, :width]


def _steps_new(width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    t = np.arange(width, dtype=np.int64)
    out = (np.stack([t, -1 - t]), np.stack([t, t]),
           np.stack([np.ones(width, dtype=np.int64), np.zeros(width, dtype=np.int64)]))
    for arr in out:
        arr.setflags(write=False)
    return out


_PATTERNS: list = [None]
# up to this many window ends short of the chunk's width are zeroed one by one
_FEW_ENDS = 16


def _read_windows(values: np.ndarray, fwd: np.ndarray, back: np.ndarray, width: int,
                  out: np.ndarray) -> None:
    """``out[i, 0, t] = values[fwd[i] + t]`` and ``out[i, 1, t] = values[back[i] + width - 1 - t]``.

    The forward windows and the backward ones (read from the end), ``t < width``; every index
    inside ``values``.
    """
    step = values.strides[0]
    windows = np.lib.stride_tricks.as_strided(values, (values.size - width + 1, width),
                                              (step, step), writeable=False)
    out[:, 0] = windows[fwd]
    out[:, 1] = windows[back][:, ::-1]


def _read_windows2(up: np.ndarray, down: np.ndarray, fwd: np.ndarray, back: np.ndarray,
                   width: int, out: np.ndarray) -> None:
    """:func:`_read_windows` with the forward windows from ``up``, the backward from ``down``."""
    step = up.strides[0]
    shape = (up.size - width + 1, width)
    out[:, 0] = np.lib.stride_tricks.as_strided(up, shape, (step, step), writeable=False)[fwd]
    out[:, 1] = np.lib.stride_tricks.as_strided(down, shape, (step, step),
                                                writeable=False)[back][:, ::-1]


def _check_edges(count, log_reached, lo, hi, first, last) -> None:
    """Each window must end where the kernel is negligible (or at its mixture's end).

    ``log_reached``: the log kernel at each window's last term (forwards, backwards per point).
    """
    edges = np.where(count.ravel() > 0, log_reached, -np.inf).reshape(-1, 2)
    if np.any(((hi < last) & (edges[:, 0] > _TAIL)) | ((lo > first) & (edges[:, 1] > _TAIL))):
        raise FloatingPointError("internal: kernel window too narrow; please report this case")


class Stack:
    """Materialised mixtures ``(a, b, w)`` side by side (see the module notes).

    Parameters
    ----------
    mixtures : list of (ndarray, ndarray, ndarray)
        Each mixture's components: consecutive ``a``, ``a + b`` constant, weights summing to 1.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._stack import Stack
    >>> from scipy import stats
    >>> s = Stack([(np.array([7.0]), np.array([5.0]), np.array([1.0]))])
    >>> cdf, pdf = s.cdf_pdf(np.array([0]), np.array([0.5]))
    >>> bool(np.isclose(cdf[0], stats.beta.cdf(0.5, 7, 5), rtol=1e-14))
    True
    """

    def __init__(self, mixtures):
        sizes = np.array([m[2].size for m in mixtures], dtype=np.int64)
        self.start = np.zeros(sizes.size, dtype=np.int64)
        np.cumsum(sizes[:-1], out=self.start[1:])
        self.K = sizes
        a = np.asarray(np.concatenate([m[0] for m in mixtures]), dtype=float)
        self.N = np.array([float(m[0][0] + m[1][0]) for m in mixtures])
        self.a0 = np.array([float(m[0][0]) for m in mixtures])
        self.a_last = np.array([float(m[0][-1]) for m in mixtures])
        self.b_last = self.N - self.a_last
        b = np.repeat(self.N, sizes)
        b -= a
        bm1 = b - 1.0
        with np.errstate(divide="ignore", invalid="ignore"):
            # Beta_{j+1}(x) / Beta_j(x) = (x / (1 - x)) (b_j - 1) / a_j within a mixture: the
            # factor and its inverse (every factor a window steps over is positive and finite:
            # b_j > 1 below a mixture's last component); its log when asked (:attr:`ratio`)
            self.step_up = bm1 / a
            self.step_down = np.divide(a, bm1, out=bm1)
        # the coefficients of the cdf and the density, for one pass over both: each mixture's
        # cumulative weights on its own (a running sum over all of them would carry the rounding
        # of the earlier mixtures' totals) over a, zero at each mixture's last component
        coefs = np.empty((2, a.size))
        cdf_coef, w = coefs
        if len(mixtures) == 1:
            np.cumsum(mixtures[0][2], out=cdf_coef)
        else:
            np.concatenate([np.cumsum(m[2]) for m in mixtures], out=cdf_coef)
        cdf_coef /= a
        cdf_coef[self.start + sizes - 1] = 0.0
        np.concatenate([m[2] for m in mixtures], out=w)
        self.a, self.b, self.w = a, b, w
        self.cdf_coef, self.cdf_pdf_coefs = cdf_coef, coefs

    @cached_property
    def ratio(self) -> np.ndarray:
        """``log(step_up)``: the log factors, for windows whose products leave the doubles."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(self.step_up)

    @cached_property
    def mean_a(self) -> np.ndarray:
        """Each mixture's mean ``a`` (``sum_j w_j a_j``)."""
        return np.add.reduceat(self.w * self.a, self.start)

    def sums(self, grp: np.ndarray, x: np.ndarray, coefs: np.ndarray):
        """``sum_j coefs[r, j] Beta(x_i; a_j, b_j)`` over the components of mixture ``grp[i]``.

        Returns ``(log_peak, scaled)``: the log of the kernel at its anchor and the sums divided
        by it (rows ``r``, one column per point); points strictly inside (0, 1).
        """
        if x.size <= _FEW_TARGETS:
            try:
                return self._sums_few(grp, x, coefs)
            except (ValueError, OverflowError):
                pass    # a bound that is not a number: the array form below decides
        start, K, N, a0 = self.start[grp], self.K[grp], self.N[grp], self.a0[grp]
        lx = np.log(x) - np.log1p(-x)
        n = np.maximum(N - 2.0, 0.0)
        centre = x * n + 1.0 - a0
        half = np.ceil(10.0 * np.sqrt(n * x * (1.0 - x)) + 40.0)
        last = K - 1
        lo = np.minimum(np.maximum(np.floor(centre - half), 0), last)
        hi = np.minimum(np.maximum(np.ceil(centre + half), 0), last)
        # (a single component needs no window: its kernel is the whole sum)
        before, after = (centre < 0) & (last > 0), (centre > last) & (last > 0)
        if before.any() or after.any():
            # a point whose kernel peaks beyond an end sums a tail of the kernel: log-concave,
            # so it falls at least by the end's own ratio; 42 / |that| terms bring it below 1e-18
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                first_ratio = self.ratio[start] + lx
                last_ratio = self.ratio[start + np.maximum(last - 1, 0)] + lx
                reach_l = np.minimum(np.ceil(42.0 / np.maximum(-first_ratio, 1e-300)) + 1,
                                     2 * half)
                reach_r = np.minimum(np.ceil(42.0 / np.maximum(last_ratio, 1e-300)) + 1,
                                     2 * half)
            hi = np.where(before, np.minimum(last, np.maximum(hi, reach_l)), hi)
            lo = np.where(after, np.maximum(0, np.minimum(lo, last - reach_r)), lo)
        anchor = np.minimum(np.maximum(np.round(centre), lo), hi).astype(np.int64)
        lo, hi = lo.astype(np.int64), hi.astype(np.int64)
        ia = start + anchor
        log_peak = log_beta_pdf(x, self.a[ia], self.b[ia])
        scaled = coefs[:, ia].copy()
        need = np.maximum(hi - anchor, anchor - lo)
        width = int(need.max(initial=0))
        if width == 0:
            return log_peak, scaled
        # points in order of their own windows, so that a chunk's steps are those of its widest
        # window, not of the widest of all (the sums keep the layout of the widest of all)
        order = np.argsort(need, kind="stable")
        need = need[order]
        s = 0
        while s < x.size:
            e = min(x.size, s + max(1, _CHUNK // (2 * int(need[s]) + 1)))
            while e - s > 1 and (e - s) * (2 * int(need[e - 1]) + 1) > _CHUNK:
                e = s + max(1, _CHUNK // (2 * int(need[e - 1]) + 1))
            sl = order[s:e]
            scaled[:, sl] += self._window(ia[sl], (start + lo)[sl], (start + hi)[sl], lx[sl],
                                          coefs, int(need[e - 1]), start[sl],
                                          (start + last)[sl], width)
            s = e
        return log_peak, scaled

    def _window(self, ia, lo, hi, lx, coefs, width, first, last, layout=None):
        """The kernel sums of :meth:`sums` over windows of at most ``width`` steps each way.

        Each point's terms are summed as if laid out over ``layout`` (at least ``width``) steps
        each way, the steps beyond its window zero: the sums do not depend on which points
        share a chunk.  The kernel is the running product of the steps' factors
        (``step_up`` times ``x / (1 - x)`` forwards, ``step_down`` times ``(1 - x) / x``
        backwards); where a product leaves the range of doubles the running sums of their
        logs decide (:meth:`_window_log`, the same terms to rounding).
        """
        n = ia.size
        layout = width if layout is None else layout
        if width == 0:
            return np.zeros((coefs.shape[0], n))
        # both directions in one array: step t forwards uses the factor at a + t and reaches
        # term a + t + 1 ([:, 0]); backwards it uses the factor at a - 1 - t and reaches that
        # term ([:, 1]).  Steps beyond a window's end get a factor of one (the running product
        # inside the window is untouched) and a kernel of zero
        inner, sliced, count = self._layout(ia, lo, hi, width)
        vals = np.empty((n, 2, width))
        idx = None
        if sliced:
            _read_windows2(self.step_up, self.step_down, ia, ia - width, width, vals)
        else:
            pattern = _steps(width)
            idx = ia[:, None, None] + pattern[0][None]
            vals[:, 0] = self.step_up.take(idx[:, 0], mode="clip")
            vals[:, 1] = self.step_down.take(idx[:, 1], mode="clip")
        with np.errstate(all="ignore"):
            # (odds of 0 or inf make a factor that is not a positive number: see below)
            odds = np.exp(lx)
            vals[:, 0] *= odds[:, None]
            vals[:, 1] /= odds[:, None]
        short = np.argwhere(count < width)
        few = short.shape[0] <= _FEW_ENDS
        inside = None
        if few:
            for i, d in short.tolist():
                vals[i, d, count[i, d]:] = 1.0
        else:
            inside = _steps(width)[1][None] < count[:, :, None]
            np.copyto(vals, 1.0, where=~inside)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            kern = np.cumprod(vals, axis=2)
        last_kern = kern[:, :, -1]
        if not (np.isfinite(last_kern).all() and (last_kern > 0.0).all()):
            # a product beyond the range of doubles (or a factor that is not a positive
            # number): the sums of logs, which keep their range
            return self._window_log(ia, lo, hi, lx, coefs, width, first, last, layout)
        if few:
            for i, d in short.tolist():
                kern[i, d, count[i, d]:] = 0.0
        else:
            kern *= inside
        total = self._weighted(coefs, kern, ia, idx, inner, width, layout)
        np.minimum(count, width, out=count)
        reached = kern.reshape(-1, width)[np.arange(2 * n), np.maximum(count.ravel() - 1, 0)]
        with np.errstate(divide="ignore"):
            _check_edges(count, np.log(reached), lo, hi, first, last)
        return total

    def _layout(self, ia, lo, hi, width):
        """Where the windows lie, and the steps each takes forwards and backwards.

        ``inner``: no window reaches before the arrays' start; ``sliced``: none beyond their
        end either, so they are read as slices.
        """
        inner = bool(ia.min() >= width)
        sliced = inner and int(ia.max()) + width <= self.a.size
        count = np.empty((ia.size, 2), dtype=np.int64)
        np.subtract(hi, ia, out=count[:, 0])
        np.subtract(ia, lo, out=count[:, 1])
        return inner, sliced, count

    def _weighted(self, coefs, kern, ia, idx, inner, width, layout):
        """``sum_t coefs[r, term_t] kern_t`` over each point's window (both directions)."""
        R, n = coefs.shape[0], ia.size
        if inner and int(ia.max()) + width + 1 <= coefs.shape[1]:
            terms = np.empty((R, n, 2, layout))
            if layout > width:
                terms[..., width:] = 0.0
            for r in range(R):
                _read_windows(coefs[r], ia + 1, ia - width, width, terms[r, :, :, :width])
            terms[..., :width] *= kern
        else:
            pattern = _steps(width)
            if idx is None:
                idx = ia[:, None, None] + pattern[0][None]
            idx = idx + pattern[2][None]
            terms = coefs.take(idx, axis=1, mode="clip")
            terms *= kern
            if layout > width:
                wide = np.empty((R, n, 2, layout))
                wide[..., width:] = 0.0
                wide[..., :width] = terms
                terms = wide
        return np.add.reduce(terms.reshape(R, n, -1), axis=2)

    def _window_log(self, ia, lo, hi, lx, coefs, width, first, last, layout=None):
        """:meth:`_window` with the kernel as the exponential of running sums of logs.

        For windows whose running product leaves the range of doubles; the same terms.
        """
        n = ia.size
        layout = width if layout is None else layout
        # as in _window, with steps of log factors: a step beyond a window's end adds 0
        inner, sliced, count = self._layout(ia, lo, hi, width)
        idx = None
        if sliced:
            vals = np.empty((n, 2, width))
            _read_windows(self.ratio, ia, ia - width, width, vals)
        else:
            pattern = _steps(width)
            idx = ia[:, None, None] + pattern[0][None]
            vals = self.ratio.take(idx, mode="clip")
        vals += lx[:, None, None]
        vals[:, 1] *= -1.0
        inside = _steps(width)[1][None] < count[:, :, None]
        np.copyto(vals, 0.0, where=~inside)
        rel = np.cumsum(vals, axis=2)
        with np.errstate(under="ignore", over="ignore"):
            kern = np.exp(rel)
        outside = ~inside
        with np.errstate(invalid="ignore"):
            # beyond the end what a step of -inf gives (0, or NaN after +inf), not a product
            # with zero
            kern[outside] = np.exp(rel[outside] - np.inf)
        total = self._weighted(coefs, kern, ia, idx, inner, width, layout)
        np.minimum(count, width, out=count)
        reached = rel.reshape(-1, width)[np.arange(2 * n), np.maximum(count.ravel() - 1, 0)]
        _check_edges(count, reached, lo, hi, first, last)
        return total

    def _sums_few(self, grp: np.ndarray, x: np.ndarray, coefs: np.ndarray):
        """:meth:`sums` for a few points: each window's bounds in plain floats (the same rules)."""
        cols = []
        for g, xi in zip(grp.tolist(), x.tolist(), strict=True):
            start, K, N, a0 = (int(self.start[g]), int(self.K[g]), float(self.N[g]),
                               float(self.a0[g]))
            lx = math.log(xi) - math.log1p(-xi)
            n = max(N - 2.0, 0.0)
            centre = xi * n + 1.0 - a0
            half = math.ceil(10.0 * math.sqrt(n * xi * (1.0 - xi)) + 40.0)
            last = K - 1
            lo = min(max(math.floor(centre - half), 0), last)
            hi = min(max(math.ceil(centre + half), 0), last)
            if last == 0:
                pass    # a single component: no window (as in sums)
            elif centre < 0:
                # a kernel peaking beyond an end: as in sums
                first_ratio = float(self.ratio[start]) + lx
                reach = min(math.ceil(42.0 / max(-first_ratio, 1e-300)) + 1, 2 * half)
                hi = min(last, max(hi, reach))
            elif centre > last:
                last_ratio = float(self.ratio[start + max(last - 1, 0)]) + lx
                reach = min(math.ceil(42.0 / max(last_ratio, 1e-300)) + 1, 2 * half)
                lo = max(0, min(lo, last - reach))
            anchor = int(min(max(round(centre), lo), hi))
            cols.append((start + anchor, start + int(lo), start + int(hi), lx, start,
                         start + last, max(int(hi) - anchor, anchor - int(lo))))
        width = max(c[6] for c in cols)
        anchors = [c[0] for c in cols]
        peaks = [_log_beta_pdf_one(xi, float(self.a[ia]), float(self.b[ia]))
                 for xi, ia in zip(x.tolist(), anchors, strict=True)]
        log_peak = (np.array(peaks) if None not in peaks
                    else log_beta_pdf(x, self.a[anchors], self.b[anchors]))
        scaled = coefs[:, anchors]
        if width:
            sums = self._windows_few(cols, coefs, width)
            if sums is None:
                # a product beyond the range of doubles: the array form (its log sums) decides
                ia, lo, hi, lx, first, last, _ = (np.array(v) for v in zip(*cols, strict=True))
                sums = self._window(ia.astype(np.int64), lo.astype(np.int64),
                                    hi.astype(np.int64), lx.astype(float), coefs, width,
                                    first.astype(np.int64), last.astype(np.int64))
            scaled = scaled + sums
        return log_peak, scaled

    def _windows_few(self, cols, coefs, width):
        """:meth:`_window` for a few points, one point at a time on slices of the arrays.

        The same kernel (the running product of the same factors, in the same order), the same
        terms laid out the same way (forwards in the first ``width`` places, backwards in the
        next, zeros beyond each window's end) and summed by the same reduction: the same sums,
        bit for bit, and the same check of each window's ends.  None when a product leaves the
        range of doubles (the caller then takes the array form, which sums logs there).
        """
        R = coefs.shape[0]
        out = np.empty((R, len(cols)))
        buf = np.empty((R, 2, width))
        flat = buf.reshape(R, 2 * width)
        accumulate = np.multiply.accumulate      # (np.cumprod's own loop)
        with np.errstate(all="ignore"):
            all_odds = np.exp(np.array([c[3] for c in cols]))
            for j, (ia, lo, hi, _, first, last, _) in enumerate(cols):
                buf.fill(0.0)
                odds = all_odds[j]
                for d, count in ((0, hi - ia), (1, ia - lo)):
                    if count <= 0:
                        continue
                    if d == 0:
                        kern = self.step_up[ia:hi] * odds
                        terms = coefs[:, ia + 1:hi + 1]
                    else:
                        kern = self.step_down[lo:ia][::-1] / odds
                        terms = coefs[:, lo:ia][:, ::-1]
                    accumulate(kern, out=kern)
                    end = float(kern[-1])
                    if not (0.0 < end < math.inf):
                        return None
                    # the window must end where the kernel is negligible (or at the mixture's end)
                    if (hi < last if d == 0 else lo > first) and math.log(end) > _TAIL:
                        raise FloatingPointError("internal: kernel window too narrow; please "
                                                 "report this case")
                    np.multiply(terms, kern, out=buf[:, d, :count])
                np.add.reduce(flat, axis=1, out=out[:, j])
        return out

    def cdf_pdf(self, grp: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Distribution function and density of mixture ``grp[i]`` at ``x[i]`` (in (0, 1))."""
        log_peak, s = self.sums(grp, x, self.cdf_pdf_coefs)
        with np.errstate(under="ignore", over="ignore"):
            peak = np.exp(log_peak)
            cdf = special.betainc(self.a_last[grp], self.b_last[grp], x) + x * peak * s[0]
            return np.minimum(cdf, 1.0), peak * s[1]

    def cdf(self, grp: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Distribution function of mixture ``grp[i]`` at ``x[i]`` (in (0, 1))."""
        log_peak, s = self.sums(grp, x, self.cdf_coef[None, :])
        with np.errstate(under="ignore", over="ignore"):
            cdf = special.betainc(self.a_last[grp], self.b_last[grp], x) + \
                x * np.exp(log_peak) * s[0]
        return np.minimum(cdf, 1.0)

    def logpdf(self, grp: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Log density of mixture ``grp[i]`` at ``x[i]`` (in (0, 1))."""
        log_peak, s = self.sums(grp, x, self.w[None, :])
        with np.errstate(divide="ignore"):
            return log_peak + np.log(s[0])


def solve(stack: Stack, grp: np.ndarray, tail: np.ndarray, mean: np.ndarray,
          var: np.ndarray, shape: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """The ``y`` with ``cdf_grp[i](y) = tail[i]`` for every ``i`` (tails in [0, 1/2]).

    ``mean``, ``var``: the moments of mixture ``grp[i]``; ``shape``, optionally, its skewness
    and excess kurtosis (for a better start).  The posterior module's Newton
    iteration (:func:`_solve_tails`), all targets at once; ask the
    mirrored mixture (components of ``1 - alpha``) for a quantile above the median.
    """
    def evaluate(active, y):
        g = grp[active]
        if y.size <= _FEW_TARGETS and all(0.0 < v < 1.0 for v in y.tolist()):
            # every point inside (0, 1): the values below without the masks
            cdf, pdf = stack.cdf_pdf(g, y)
            with np.errstate(divide="ignore"):
                return cdf, np.log(pdf)
        F = np.zeros(y.shape)
        logf = np.full(y.shape, -np.inf)
        inner = (y > 0.0) & (y < 1.0)
        F[y >= 1.0] = 1.0
        if inner.any():
            cdf, pdf = stack.cdf_pdf(g[inner], y[inner])
            F[inner] = cdf
            with np.errstate(divide="ignore"):
                logf[inner] = np.log(pdf)
        return F, logf

    return _solve_tails(evaluate, tail, mean, var, shape)


_REUSE: contextvars.ContextVar[dict | None] = contextvars.ContextVar("stack_reuse",
                                                                     default=None)


@contextlib.contextmanager
def reuse():
    """Within the block, :func:`both_sides` of the same mixtures as the last call is not rebuilt.

    "The same" means the same array objects in the same order (a posterior hands out its own
    arrays); the cache keeps them alive, so their identities cannot pass to other arrays.  It
    holds the last stack only (a fit of many groups asks for its blocks one after another), and
    is dropped when the outermost block ends.
    """
    if _REUSE.get() is not None:
        yield
        return
    token = _REUSE.set({})
    try:
        yield
    finally:
        _REUSE.reset(token)


def both_sides(mixtures) -> Stack:
    """The stack of the mixtures followed by their mirrors (``1 - alpha``).

    Groups ``i`` and ``len(mixtures) + i`` are the two sides of mixture ``i`` (the first half
    alone is the stack of the mixtures).  Inside :func:`reuse`, built once per set of mixtures.
    """
    mixtures = list(mixtures)
    found = shared(mixtures)
    if found is not None:
        return found
    stack = Stack(mixtures + [(b[::-1], a[::-1], w[::-1])
                              for a, b, w in mixtures])
    cache = _REUSE.get()
    if cache is not None:
        cache.clear()
        cache[_key(mixtures)] = (mixtures, stack)
    return stack


def shared(mixtures) -> Stack | None:
    """The two-sided stack of these mixtures kept by :func:`reuse`, or None."""
    cache = _REUSE.get()
    if not cache:
        return None
    hit = cache.get(_key(list(mixtures)))
    return None if hit is None else hit[1]


def _key(mixtures: list) -> tuple[int, ...]:
    return tuple(id(arr) for m in mixtures for arr in m)


def quantiles(stack: Stack, q: np.ndarray, mean: np.ndarray, var: np.ndarray) -> np.ndarray:
    """The ``q[i]``-quantile of mixture ``i`` of a :func:`both_sides` stack, for every ``i``.

    Each is solved on its small side: ``F(x) = q`` below the median, the mirror's
    ``F(y) = 1 - q`` (``x = 1 - y``) above it, so that both tails keep their relative accuracy.
    """
    q = np.asarray(q, dtype=float)
    n = q.size
    small = q <= 0.5
    grp = np.where(small, np.arange(n), n + np.arange(n))
    tail = np.where(small, q, 1.0 - q)
    y = solve(stack, grp, tail, np.where(small, mean, 1.0 - mean), var)
    return np.where(small, y, 1.0 - y)


def modes(stack: Stack, mean: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """The mode of every mixture, NaN where Newton's method cannot vouch for it.

    Newton's method on the density's derivative from the moment-matched Beta's mode, inside a
    bracket ``mean -+ 8 sd`` whose ends must have the derivative's signs of a single interior
    maximum (else NaN: the caller asks the posterior itself, which looks at the whole density).
    A step that leaves the bracket, or a density that is not concave there, bisects.
    """
    n = mean.size
    grp = np.arange(n)
    lo = np.clip(mean - 8.0 * sd, 1e-300, 1.0 - 1e-16)
    hi = np.clip(mean + 8.0 * sd, 1e-300, 1.0 - 1e-16)
    # the coefficients about each mixture's mean a (their sums then differ little), for the
    # mixtures asked about (the first n of the stack)
    ref = stack.mean_a
    end = int(stack.start[n - 1] + stack.K[n - 1])
    d = stack.a[:end] - np.repeat(ref[:n], stack.K[:n])
    w = stack.w[:end]
    coefs = np.stack([w, w * d, w * d * d])

    def derivatives(g, x):
        r = ref[g]
        N = stack.N[g]
        _, s = stack.sums(g, x, coefs)
        s0, s1, s2 = s
        u = 1.0 + (N - 2.0) * x - r           # (a_j - 1 - (N - 2) x) = (a_j - r) - u
        xx = x * (1.0 - x)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            d1 = (s1 - u * s0) / xx
            second = (s2 - 2.0 * u * s1 + u * u * s0) / (xx * xx)
            second -= (s1 + (r - 1.0) * s0) / (x * x) + ((N - 1.0 - r) * s0 - s1) / (1.0 - x) ** 2
        return d1, second

    d_lo, _ = derivatives(grp, lo)
    d_hi, _ = derivatives(grp, hi)
    good = (d_lo > 0) & (d_hi < 0)
    var = sd * sd
    c = np.maximum(mean * (1.0 - mean) / np.maximum(var, 1e-300) - 1.0, 1e-6)
    a_, b_ = mean * c, (1.0 - mean) * c
    x = np.where((a_ > 1) & (b_ > 1), (a_ - 1.0) / np.maximum(a_ + b_ - 2.0, 1e-300), mean)
    x = np.clip(x, lo, hi)
    out = np.full(n, np.nan)
    active = np.flatnonzero(good)
    for _ in range(100):
        if not active.size:
            break
        xa = x[active]
        d1, d2 = derivatives(active, xa)
        lo[active] = np.where(d1 > 0, xa, lo[active])
        hi[active] = np.where(d1 > 0, hi[active], xa)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = d1 / d2
        new = xa - step
        bad = ~np.isfinite(new) | (d2 >= 0) | (new <= lo[active]) | (new >= hi[active])
        new = np.where(bad, 0.5 * (lo[active] + hi[active]), new)
        done = (~bad & (np.abs(step) <= 1e-10 * xa)) | (d1 == 0) | \
            (hi[active] - lo[active] <= 1e-15 * hi[active])
        x[active] = np.where(d1 == 0, xa, new)
        out[active[done]] = x[active[done]]
        active = active[~done]
    return out


def _solve_tails(evaluate, tail: np.ndarray, mean: np.ndarray, var: np.ndarray,
                 shape: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """The ``y`` with ``cdf_i(y) = tail[i]`` for every ``tail[i]`` in [0, 1/2] at once.

    ``evaluate(active, y)`` gives the cdf and log density of target ``active[j]`` at ``y[j]``;
    ``mean``, ``var`` the moments of each target's distribution, ``shape`` optionally its
    skewness and excess kurtosis.  Newton's method on
    ``log cdf(y) - log tail`` (nearly linear in ``y`` far in a tail, where the cdf itself is
    exponentially curved), started from the Beta distribution with the same mean and variance
    (with ``shape``, moved by the difference of the Cornish-Fisher expansions of the target and
    that Beta, when the move is below a quarter standard deviation and the tail above 1e-6: for
    the posteriors of a few hundred paired rows the start is then within about 1e-5 of the
    quantile instead of 3e-4, and one evaluation fewer is needed; the start only saves work,
    the iteration below decides the answer).
    A bracket ``[lo, hi]`` holding the root is kept from the signs seen; a step that leaves it,
    or a density of zero, is replaced by bisection, so the iteration converges for any
    increasing cdf (several modes included).  It stops after a Newton step below 1e-9 of ``y``
    (the error left is of the order of its square), or when the bracket is within 1e-15 of
    ``y``; the cdf's own error (1e-13 relative in the tails) bounds the quantile's accuracy
    before that.
    """
    out = np.zeros(tail.shape)
    todo = np.flatnonzero(tail > 0.0)
    if not todo.size:
        return out
    t = tail[todo]
    m, v = np.asarray(mean, dtype=float)[todo], np.asarray(var, dtype=float)[todo]
    if t.size <= _FEW_TARGETS:
        sk = None if shape is None else [np.asarray(s, dtype=float)[todo] for s in shape]
        out[todo] = _solve_few(evaluate, todo, t, m, v, sk)
        return out
    log_t = np.log(t)
    c = np.maximum(m * (1.0 - m) / np.maximum(v, 1e-300) - 1.0, 1e-6)
    with np.errstate(invalid="ignore"):
        y = special.betaincinv(np.maximum(m * c, 1e-300), np.maximum((1.0 - m) * c, 1e-300), t)
    y = np.where(np.isfinite(y) & (y > 0.0) & (y < 1.0), y, m)
    if shape is not None:
        y = _cornish_fisher_start(y, t, m, v, c, *(np.asarray(s, dtype=float)[todo]
                                                    for s in shape))
    # the matched Beta's a - 1 and b - 1: its log density's slope stands in for the target's
    am1, bm1 = m * c - 1.0, (1.0 - m) * c - 1.0
    lo, hi = np.zeros(t.shape), np.ones(t.shape)
    active = np.arange(t.size)
    for _ in range(100):
        ya = y[active]
        F, logf = evaluate(todo[active], ya)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            logF = np.log(F)
            resid = logF - log_t[active]
            # d log F / dy = f / F
            slope = np.exp(logf - logF)
            step = resid / slope
            # Halley's correction with the second derivative g'' = g' (d log f / dy - g') of
            # g = log F - log t, the log density's slope taken from the matched Beta: nearly
            # cubic convergence while that slope is close; only while the correction is small
            # (_HALLEY_MAX), else Newton's step (the stopping rule below is Newton's)
            h = 0.5 * step * (am1[active] / ya - bm1[active] / (1.0 - ya) - slope)
            move = np.where(np.abs(h) <= _HALLEY_MAX, step / (1.0 - h), step)
        below = resid < 0.0
        lo[active] = np.where(below, ya, lo[active])
        hi[active] = np.where(below, hi[active], ya)
        new = ya - move
        bad = ~np.isfinite(new) | (new <= lo[active]) | (new >= hi[active])
        # quadratic convergence: after a Newton step below 1e-9 of y the error is of order its
        # square (relative to y, times the log cdf's curvature: below 1e-16 in practice); a step
        # that small leaving the bracket is the cdf's rounding noise (y is as good as it gets)
        # (far in a tail of the smooth representation the cdf carries relative noise, up to 1e-6
        # at 1e-15: a step out of the bracket when the cdf is that close is that noise too)
        tiny = (np.abs(step) <= 1e-9 * ya) | (bad & (np.abs(resid) <= 1e-6))
        done = (resid == 0.0) | tiny | (hi[active] - lo[active] <= 1e-15 * hi[active])
        new = np.where(bad, np.where(tiny, ya, 0.5 * (lo[active] + hi[active])), new)
        y[active] = np.where(resid == 0.0, ya, new)
        active = active[~done]
        if not active.size:
            break
    out[todo] = y
    return out


def _solve_few(evaluate, todo: np.ndarray, t: np.ndarray, m: np.ndarray, v: np.ndarray,
               shape: list | None) -> list:
    """:func:`_solve_tails` for a few targets: the same start and iteration in plain floats."""
    mm, vv, tt = m.tolist(), v.tolist(), t.tolist()
    c = [max(mi * (1.0 - mi) / max(vi, 1e-300) - 1.0, 1e-6) for mi, vi in zip(mm, vv, strict=True)]
    a = [max(mi * ci, 1e-300) for mi, ci in zip(mm, c, strict=True)]
    b = [max((1.0 - mi) * ci, 1e-300) for mi, ci in zip(mm, c, strict=True)]
    with np.errstate(invalid="ignore"):
        beta_q = special.betaincinv(a, b, t).tolist()
    y = [q if math.isfinite(q) and 0.0 < q < 1.0 else mi for q, mi in zip(beta_q, mm, strict=True)]
    if shape is not None:
        z = special.ndtri(t).tolist()
        y = [_cornish_fisher_one(*args) for args in zip(y, tt, mm, vv, c, shape[0].tolist(),
                                                          shape[1].tolist(), z, strict=True)]
    am1 = [mi * ci - 1.0 for mi, ci in zip(mm, c, strict=True)]
    bm1 = [(1.0 - mi) * ci - 1.0 for mi, ci in zip(mm, c, strict=True)]
    return _iterate_few(evaluate, todo, y, [math.log(ti) for ti in tt], am1, bm1)


def _cornish_fisher_one(y: float, t: float, m: float, v: float, c: float, skew: float,
                        kurt: float, z: float) -> float:
    """:func:`_cornish_fisher_start` of one target (``z`` the normal quantile of ``t``)."""
    a, b = m * c, (1.0 - m) * c
    if not (a > 0.0 and b > 0.0 and t >= 1e-6):
        return y
    g_b = 2.0 * (b - a) * math.sqrt(c + 1.0) / ((c + 2.0) * math.sqrt(a * b))
    e_b = 6.0 * ((a - b) * (a - b) * (c + 1.0) - a * b * (c + 2.0)) / (a * b * (c + 2.0)
                                                                         * (c + 3.0))
    sd = math.sqrt(v)
    z3 = z * z * z
    move = sd * ((skew - g_b) * (z * z - 1.0) / 6.0 + (kurt - e_b) * (z3 - 3.0 * z) / 24.0
                 - (skew * skew - g_b * g_b) * (2.0 * z3 - 5.0 * z) / 36.0)
    new = y + move
    ok = math.isfinite(new) and abs(move) <= 0.25 * sd and 0.0 < new < 1.0
    return new if ok else y


def _iterate_few(evaluate, todo: np.ndarray, y: list, log_t: list, am1: list,
                 bm1: list) -> list:
    """The iteration of :func:`_solve_tails` for a few targets, one at a time in plain floats.

    The same steps, bracket and stopping rule (for a handful of targets the array form's cost
    is the interpreter's, a few dozen array calls per step); ``evaluate`` still answers for all
    active targets at once.
    """
    n = len(y)
    lo, hi = [0.0] * n, [1.0] * n
    active = list(range(n))
    log, isfinite = math.log, math.isfinite
    for _ in range(100):
        ya = [y[i] for i in active]
        F, logf = evaluate(todo[active], np.array(ya))
        still = []
        for i, yi, Fi, lfi in zip(active, ya, F.tolist(), logf.tolist(), strict=True):
            logF = log(Fi) if Fi > 0.0 else (-math.inf if Fi == 0.0 else math.nan)
            resid = logF - log_t[i]
            # d log F / dy = f / F; Halley's correction while small (see _solve_tails)
            slope = _exp(lfi - logF)
            step = _div(resid, slope)
            h = (0.5 * step * (am1[i] / yi - bm1[i] / (1.0 - yi) - slope) if 0.0 < yi < 1.0
                 else math.nan)
            move = step / (1.0 - h) if abs(h) <= _HALLEY_MAX else step
            if resid < 0.0:
                lo[i] = yi
            else:
                hi[i] = yi
            new = yi - move
            bad = not isfinite(new) or new <= lo[i] or new >= hi[i]
            tiny = abs(step) <= 1e-9 * yi or (bad and abs(resid) <= 1e-6)
            done = resid == 0.0 or tiny or hi[i] - lo[i] <= 1e-15 * hi[i]
            if bad:
                new = yi if tiny else 0.5 * (lo[i] + hi[i])
            y[i] = yi if resid == 0.0 else new
            if not done:
                still.append(i)
        active = still
        if not active:
            break
    return y


def _exp(v: float) -> float:
    """``exp`` with numpy's overflow to inf (and NaN for NaN)."""
    try:
        return math.exp(v)
    except OverflowError:
        return math.inf


def _div(a: float, b: float) -> float:
    """``a / b`` with numpy's division by zero (inf of a's sign, NaN for 0 / 0)."""
    try:
        return a / b
    except ZeroDivisionError:
        return math.nan if a == 0.0 or a != a else math.copysign(math.inf, a)


def _cornish_fisher_start(y: np.ndarray, t: np.ndarray, m: np.ndarray, v: np.ndarray,
                          c: np.ndarray, skew: np.ndarray, kurt: np.ndarray) -> np.ndarray:
    """The Beta quantile ``y`` moved by the Cornish-Fisher difference of target and Beta.

    The Beta has mean ``m``, variance ``v`` (``c = a + b``); the target skewness ``skew`` and
    excess kurtosis ``kurt``.  With ``z`` the normal quantile of ``t``, each distribution's
    quantile is about ``mean + sd (z + (z^2 - 1) g / 6 + (z^3 - 3 z) e / 24 - (2 z^3 - 5 z)
    g^2 / 36)``; the two share mean and sd, so the difference of the expansions moves the Beta's
    exact quantile towards the target's.  Kept only where the move is small (below a quarter
    standard deviation), the tail above 1e-6 and the result inside (0, 1).
    """
    a, b = m * c, (1.0 - m) * c
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        g_b = 2.0 * (b - a) * np.sqrt(c + 1.0) / ((c + 2.0) * np.sqrt(a * b))
        e_b = 6.0 * ((a - b) ** 2 * (c + 1.0) - a * b * (c + 2.0)) / (a * b * (c + 2.0) * (c + 3.0))
        z = special.ndtri(t)
        sd = np.sqrt(v)
        move = sd * ((skew - g_b) * (z * z - 1.0) / 6.0 + (kurt - e_b) * (z ** 3 - 3.0 * z) / 24.0
                     - (skew * skew - g_b * g_b) * (2.0 * z ** 3 - 5.0 * z) / 36.0)
        new = y + move
        ok = (np.isfinite(new) & (np.abs(move) <= 0.25 * sd) & (t >= 1e-6) & (new > 0.0)
              & (new < 1.0))
    return np.where(ok, new, y)
