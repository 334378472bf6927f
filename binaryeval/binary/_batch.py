"""The posteriors of many groups at once: the engine's direct path over a batch of designs.

A fit of thousands of groups spends most of its time in what each posterior does before any
arithmetic (building the likelihood's log-gamma tables, dozens of small array operations), not
in the arithmetic itself.  :func:`posteriors` takes the designs of every group and computes the
posteriors that the engine (:func:`~binaryeval.binary.engine.alpha_posterior`) computes by one
exact convolution (its direct path: up to ``_DIRECT_ANY`` metric ratings and ``_FFT_FROM``
multiply-adds) for all of them together:

- the log-gamma tables of the metric likelihood depend on a group only through the offset
  ``d`` of each ratio ``log Γ(z + d) - log Γ(z)`` (a paired count plus the rate prior), so each
  offset's table is computed once, as long as the longest group needs it, by the engine's own
  kernel (:func:`~binaryeval.binary._kernels.log_gamma_ratio_range`, whose entries do not depend
  on the table's length), and every group reads its rows from it;
- groups of similar size are stacked into padded arrays, and every step of the direct path
  except the convolution (the tilt, the scaling, the underflow bound of the sums, the weights'
  normalisation) is one array operation for the whole stack; the convolution stays the exact
  ``np.convolve`` of each group.

The steps are those of :func:`~binaryeval.binary.engine._direct_log_weights` and
:func:`~binaryeval.binary.engine._normalised`, element by element the same operations, so the
weights agree with the engine's to rounding (the tests compare them on random designs).  A
group the direct path does not settle at once (a sum that underflows where its weight could
matter, a known rate of 0 or 1, a convolution the engine would take by FFT, more metric ratings
than ``_DIRECT_ANY``) gets :func:`~binaryeval.binary.engine.alpha_posterior` itself, as do all
groups with ``method="grid"``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from .. import _validate
from . import engine
from ._kernels import log_gamma_ratio_range
from .posterior import AlphaPosterior

__all__ = ["posteriors", "prob_rates_unidentified"]

_COUNTS = ("human_pos", "human_total", "metric_pos", "metric_total", "tp", "fn", "tn", "fp")
_FLOOR = 1e-280  # the direct path's smallest trusted sum (engine._direct_log_weights)
_BUDGET = 1 << 18  # elements of one stacked array (padded groups x components)
_TABLES = 1 << 22  # table entries of one block of groups (at most 32 MB)
_FEW = 4  # fewer groups go to the engine one by one (about 1 ms a group; the stack's set-up 1.5)


def posteriors(counts: np.ndarray, rho: np.ndarray, eta: np.ndarray, *,
               prior: tuple[float, float], rate_prior: tuple[float, float],
               method: str = "exact",
               grid: tuple[int, int, int] = (2000, 1000, 1000)) -> list[AlphaPosterior]:
    """The posterior of every group, as :func:`~binaryeval.binary.engine.alpha_posterior` gives it.

    Parameters
    ----------
    counts : ndarray of int, shape (n_groups, 8)
        Per group the arguments of ``alpha_posterior`` in its order: ``human_pos,
        human_total, metric_pos, metric_total, tp, fn, tn, fp``.
    rho, eta : ndarray of float, shape (n_groups,)
        Known rates (NaN where the rate is estimated).
    prior, rate_prior, method, grid
        As in ``alpha_posterior``.

    Returns
    -------
    list of AlphaPosterior
        In the order of the rows.
    """
    counts = np.asarray(counts, dtype=np.int64).reshape(-1, 8)
    n = counts.shape[0]
    rho = np.asarray(rho, dtype=float)
    eta = np.asarray(eta, dtype=float)
    out: list[AlphaPosterior | None] = [None] * n
    # a few groups: the engine one by one costs less than setting up the stack
    if method == "exact" and n >= _FEW:
        a, b = engine._check_prior(prior, "prior", engine.MAX_PRIOR)
        ar, br = engine._check_prior(rate_prior, "rate_prior", engine.MAX_RATE_PRIOR)
        for i, post in _batched(counts, rho, eta, (a, b), (ar, br)).items():
            out[i] = post
    for i in range(n):
        if out[i] is None:
            out[i] = engine.alpha_posterior(
                *(int(v) for v in counts[i]), rho=_known(rho[i]), eta=_known(eta[i]),
                prior=prior, rate_prior=rate_prior, method=method, grid=grid)
    return out


def _known(v: float) -> float | None:
    return None if math.isnan(v) else float(v)


def _info(row, rho: float | None, eta: float | None, prior, rate_prior) -> dict:
    """The counts an engine posterior carries (``alpha_posterior``'s ``counts``)."""
    info = dict(zip(_COUNTS, row, strict=True))
    info.update(rho=rho, eta=eta, prior=prior, rate_prior=rate_prior)
    return info


def _batched(counts: np.ndarray, rho: np.ndarray, eta: np.ndarray, prior, rate_prior) -> dict:
    """Posteriors of the groups the batch settles, by row: one Beta, or the direct path."""
    a, b = prior
    ar, br = rate_prior
    hp, ht, k, M, tp, fn, tn, fp = counts.T
    rows = counts.tolist()
    fine = ((counts >= 0).all(axis=1) & (counts <= _validate.MAX_COUNT).all(axis=1)
            & (hp <= ht) & (k <= M))
    for v in (rho, eta):
        # a known rate outside [0, 1] (or not a number) gets the engine's error
        fine &= np.isnan(v) | ((v >= 0.0) & (v <= 1.0))
    rho_k, eta_k = ~np.isnan(rho), ~np.isnan(eta)
    # the metric accepts an inadequate output with probability 1 - eta
    neg_known = 1.0 - eta
    A = a + hp.astype(float)
    B = b + (ht - hp).astype(float)
    done: dict[int, AlphaPosterior] = {}
    # one Beta: no metric-only rating, or rho + eta = 1 (the metric says nothing about alpha)
    beta = fine & ((M == 0) | (rho_k & eta_k & (rho == neg_known)))
    for i in np.flatnonzero(beta).tolist():
        info = _info(rows[i], _known(rho[i]), _known(eta[i]), prior, rate_prior)
        done[i] = AlphaPosterior(np.array([A[i]]), np.array([B[i]]), np.array([1.0]),
                                 counts=info, method="exact")
    D = M - k
    degenerate = (rho_k & ((rho == 0.0) | (rho == 1.0))) | (eta_k & ((eta == 0.0) | (eta == 1.0)))
    direct = (fine & ~beta & ~degenerate & (M <= engine._DIRECT_ANY)
              & ((k + 1.0) * (D + 1.0) <= engine._FFT_FROM))
    idx = np.flatnonzero(direct)
    if not idx.size:
        return done
    # each side's Beta parameters where estimated (the engine's RateDistribution)
    pa, pb = tp + ar, fn + br
    na, nb = fp + br, tn + ar
    centre = _guess(A, B, k, M, np.where(rho_k, rho, pa / (pa + pb)),
                    np.where(eta_k, neg_known, na / (na + nb)), rho_k, eta_k, pa + pb, na + nb)
    # groups of one kind (which rates are known) and similar size stacked together; the tables
    # for a block of groups at a time (their memory bounded whatever the counts)
    kind = rho_k.astype(int) * 2 + eta_k.astype(int)
    order = idx[np.lexsort((M[idx], kind[idx]))]
    block_end = np.cumsum(4 * (M[order] + 1)) // _TABLES
    for block in np.split(order, np.flatnonzero(np.diff(block_end)) + 1):
        store = _RatioStore()
        for known, sa, sb in ((rho_k, pa, pb), (eta_k, na, nb)):
            est = block[~known[block]]
            store.need(sa[est] + sb[est] - 1.0, M[est] + 1)
            store.need(sa[est] - 1.0, k[est] + 1)
            store.need(sb[est] - 1.0, D[est] + 1)
        store.build()
        logfact = special.gammaln(np.arange(int(M[block].max()) + 1, dtype=float) + 1.0)
        for chunk in _chunks(block, M, kind):
            sides = [_Side(chunk, bool(known[chunk[0]]), sa, sb, kn, store, logfact)
                     for known, sa, sb, kn in ((rho_k, pa, pb, rho), (eta_k, na, nb, neg_known))]
            mixtures = _direct_chunk(chunk, A, B, k, M, centre, *sides)
            for i, mix in zip(chunk.tolist(), mixtures, strict=True):
                if mix is not None:
                    info = _info(rows[i], _known(rho[i]), _known(eta[i]), prior, rate_prior)
                    done[i] = AlphaPosterior(*mix, counts=info, method="exact")
    return done


def _chunks(order: np.ndarray, M: np.ndarray, kind: np.ndarray):
    """Runs of ``order`` (sorted by kind, then size) to stack: one kind, similar sizes."""
    start = 0
    n = order.size
    while start < n:
        first = order[start]
        m0 = int(M[first]) + 1
        stop = start + 1
        while stop < n:
            j = order[stop]
            m = int(M[j]) + 1
            if (kind[j] != kind[first] or (stop - start + 1) * m > _BUDGET
                    or m > 1.25 * m0 + 16):
                break
            stop += 1
        yield order[start:stop]
        start = stop


class _RatioStore:
    """``log Γ(z + d) - log Γ(z)`` at ``z = 1..n`` for each offset ``d``, one table per offset.

    Built by the engine's :func:`log_gamma_ratio_range` as long as the longest request; its
    entries do not depend on the length, so a shorter table is a prefix of a longer one.
    """

    def __init__(self):
        self._want: dict[float, int] = {}
        self.flat = np.zeros(0)
        self.offset: dict[float, int] = {}

    def need(self, d: np.ndarray, n: np.ndarray) -> None:
        """Ask for the tables of offsets ``d`` over ``z = 1..n`` (arrays, one entry a group)."""
        if not d.size:
            return
        d = np.asarray(d, dtype=float)
        keys, inv = np.unique(d, return_inverse=True)
        longest = np.zeros(keys.size, dtype=np.int64)
        np.maximum.at(longest, inv, np.asarray(n, dtype=np.int64))
        for key, size in zip(keys.tolist(), longest.tolist(), strict=True):
            self._want[key] = max(self._want.get(key, 0), size)

    def build(self) -> None:
        """Compute every table asked for, each once, into :attr:`flat`."""
        tables, pos = [], 0
        for d, size in self._want.items():
            self.offset[d] = pos
            tables.append(log_gamma_ratio_range(size, d))
            pos += size
        self.flat = np.concatenate(tables) if tables else np.zeros(0)

    def starts(self, d: np.ndarray) -> list[int]:
        """Where the table of each offset in ``d`` starts in :attr:`flat`."""
        return [self.offset[v] for v in d.tolist()]


def _stacked(src: np.ndarray, starts, sizes: list[int], width: int, reverse: bool) -> np.ndarray:
    """Rows ``src[s : s + m + 1]`` (reversed if asked), zero-padded to ``width`` columns.

    One slice per group: cheaper than a gather of every element.
    """
    out = np.zeros((len(sizes), width))
    for g, (s, m) in enumerate(zip(starts, sizes, strict=True)):
        seg = src[s:s + m + 1]
        out[g, :m + 1] = seg[::-1] if reverse else seg
    return out


class _Side:
    """One rate's three log tables (``row``, ``first``, ``second``) for a stack of groups.

    As :meth:`~binaryeval.binary.engine._MetricLikelihood._int_tables` builds them for one
    group: an estimated rate ``Beta(a, b)`` gives ``-R_{a+b-1} - log B(a, b)``, ``R_{a-1}`` and
    ``R_{b-1}`` (``R_d(i) = log Γ(i + 1 + d) - log Γ(i + 1)``); a known probability ``p`` gives
    ``log i!``, ``i log p - log i!`` and ``i log(1 - p) - log i!``.
    """

    def __init__(self, chunk, known: bool, sa, sb, p, store: _RatioStore, logfact):
        self.known, self.store, self.logfact = known, store, logfact
        if known:
            # math.log per group, as the engine takes it
            pk = p[chunk].tolist()
            self.log_p = np.array([math.log(v) for v in pk])
            self.log_q = np.array([math.log1p(-v) for v in pk])
        else:
            a, b = sa[chunk].astype(float), sb[chunk].astype(float)
            self.d = (a + b - 1.0, a - 1.0, b - 1.0)
            self.lbeta = special.betaln(a, b)

    def table(self, which: int, sizes: list[int], width: int, reverse: bool) -> np.ndarray:
        """Table ``which`` (0 row, 1 first, 2 second) over ``0..m`` per group, padded.

        Reversed (read from ``m`` down to 0) where the rate is the inadequate outputs'.
        """
        if self.known:
            lf = _stacked(self.logfact, [0] * len(sizes), sizes, width, reverse)
            if which == 0:
                return lf
            i = np.arange(width, dtype=float)[None, :]
            if reverse:
                i = np.asarray(sizes, dtype=float)[:, None] - i
            return i * (self.log_p if which == 1 else self.log_q)[:, None] - lf
        vals = _stacked(self.store.flat, self.store.starts(self.d[which]), sizes, width, reverse)
        return -vals - self.lbeta[:, None] if which == 0 else vals


def _guess(A, B, k, M, p1, p2, known1, known2, s1, s2) -> np.ndarray:
    """:func:`engine._guess`'s centre (the guessed peak ``M a``) for every group at once."""
    with np.errstate(divide="ignore", invalid="ignore"):
        v1 = np.where(known1, 0.0, p1 * (1.0 - p1) / (s1 + 1.0))
        v2 = np.where(known2, 0.0, p2 * (1.0 - p2) / (s2 + 1.0))
        q = k / M
        ah = A / (A + B)
        vh = A * B / ((A + B) ** 2 * (A + B + 1.0))
        delta = p1 - p2
        am = (q - p2) / delta
        vm = (q * (1.0 - q) / M + am * am * v1 + (1.0 - am) ** 2 * v2) / (delta * delta)
        vm_ = np.maximum(vm, 1e-300)
        v = 1.0 / (1.0 / vh + 1.0 / vm_)
        a = np.minimum(np.maximum(v * (ah / vh + am / vm_), 0.0), 1.0)
    return M * np.where(np.abs(delta) > 1e-3, a, ah)


def _gather(values: np.ndarray, cols: np.ndarray) -> np.ndarray:
    return np.take_along_axis(values, cols, axis=1)


def _from_reference(steps: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Per row, the running sums of ``steps`` outwards from column ``ref`` (zero there).

    ``steps[:, j]`` is the step from column ``j`` to ``j + 1``; the sums are those of
    :func:`engine._base_steps` from a reference, in its order (one cumulative sum each way).
    """
    n, w = steps.shape
    cols = np.arange(w + 1)[None, :]
    r = ref[:, None]
    # forward: fwd[:, i] = steps[ref] + ... + steps[ref + i]
    fwd = _gather(steps, np.minimum(r + cols[:, :-1], max(w - 1, 0))) if w else steps
    np.cumsum(fwd, axis=1, out=fwd)
    # backward: back[:, i] = steps[ref - 1] + ... + steps[ref - 1 - i]
    back = _gather(steps, np.maximum(r - 1 - cols[:, :-1], 0)) if w else steps
    np.cumsum(back, axis=1, out=back)
    out = np.zeros((n, w + 1))
    after = cols > r
    before = cols < r
    out[after] = _gather(fwd, np.clip(cols - r - 1, 0, max(w - 1, 0)))[after]
    out[before] = -_gather(back, np.clip(r - 1 - cols, 0, max(w - 1, 0)))[before]
    return out


def _direct_chunk(chunk, A, B, k, M, centre, pos: _Side, neg: _Side) -> list:
    """``(a, b, weights)`` of each group of the stack (the engine's direct path), or None.

    The steps of :func:`engine._direct_log_weights`, then :func:`engine._normalised`.

    None where the engine would not take these weights as they are (no sum above the floor,
    or a sum below it that could hide a weight that matters): that group goes to the engine.
    """
    Ac, Bc = A[chunk], B[chunk]
    kc, Mc = k[chunk], M[chunk]
    Dc = Mc - kc
    W, Kw, Dw = int(Mc.max()) + 1, int(kc.max()) + 1, int(Dc.max()) + 1
    T = np.arange(W, dtype=float)
    ti = np.arange(W, dtype=np.int64)
    xi = np.arange(Kw, dtype=np.int64)
    ui = np.arange(Dw, dtype=np.int64)
    valid_t = ti[None, :] <= Mc[:, None]
    valid_x = xi[None, :] <= kc[:, None]
    valid_u = ui[None, :] <= Dc[:, None]
    with np.errstate(all="ignore"):
        # the likelihood's tables, as _int_tables combines them: row[T] = prow[T] + nrow[M - T],
        # lp[x] = pfirst[x] + nfirst[k - x], lq[u] = psecond[u] + nsecond[D - u]
        m_l, k_l, d_l = Mc.tolist(), kc.tolist(), Dc.tolist()
        row = pos.table(0, m_l, W, False) + neg.table(0, m_l, W, True)
        lp = pos.table(1, k_l, Kw, False) + neg.table(1, k_l, Kw, True)
        lq = pos.table(2, d_l, Dw, False) + neg.table(2, d_l, Dw, True)
        # _base_steps: log C(M, T) B(A + T, B + M - T) by its ratios, summed outwards from the
        # guessed peak as the engine sums them
        Tn = T[None, 1:]
        Mf = Mc[:, None].astype(float)
        # (in place: the operations of the engine's expression, in its order)
        steps = Mf - Tn
        steps += 1.0
        steps /= Tn
        np.log(steps, out=steps)
        ratio = Ac[:, None] + Tn
        ratio -= 1.0
        denom = (Bc[:, None] + Mf) - Tn
        ratio /= denom
        np.log(ratio, out=ratio)
        steps += ratio
        steps[~valid_t[:, 1:]] = 0.0
        ref = np.minimum(np.maximum(np.round(centre[chunk]), 0.0), Mc).astype(np.int64)
        H = _from_reference(steps, ref)
        H += row
        # the tilt at the guessed peak
        two = Mc >= 2
        t0 = np.where(two, np.minimum(np.maximum(np.round(centre[chunk]), 1.0), Mc - 1.0),
                      0.0).astype(np.int64)
        h_up = _gather(H, np.minimum(t0 + 1, W - 1)[:, None])[:, 0]
        h_dn = _gather(H, np.maximum(t0 - 1, 0)[:, None])[:, 0]
        theta = np.where(two, -0.5 * (h_up - h_dn), 0.0)
        xs = xi.astype(float)
        us = ui.astype(float)
        P = theta[:, None] * xs[None, :]
        P += lp
        P[~valid_x] = -np.inf
        Q = theta[:, None] * us[None, :]
        Q += lq
        Q[~valid_u] = -np.inf
        ca = np.max(P, axis=1)
        cb = np.max(Q, axis=1)
        P -= ca[:, None]
        np.exp(P, out=P)
        Q -= cb[:, None]
        np.exp(Q, out=Q)
        conv = np.zeros((chunk.size, W))
        for g, (kk, dd) in enumerate(zip(kc.tolist(), Dc.tolist(), strict=True)):
            conv[g, :kk + dd + 1] = np.convolve(P[g, :kk + 1], Q[g, :dd + 1])
        shift = H + (ca + cb)[:, None]
        shift -= theta[:, None] * T[None, :]
        ok = conv >= _FLOOR
        ok &= valid_t
        logc = np.where(ok, conv, _FLOOR)
        np.log(logc, out=logc)
        lw = shift + logc
        lw[~ok] = -np.inf
        top = np.max(lw, axis=1)
        keep = ok.any(axis=1)
        # sums below the floor (rare): could one hide a weight that matters?
        under = np.flatnonzero(keep & (ok != valid_t).any(axis=1))
        if under.size:
            keep[under] = ~_risky(ok[under], logc[under], shift[under], top[under],
                                  valid_t[under], _concave(lp[under], valid_x[under])
                                  & _concave(lq[under], valid_u[under]),
                                  np.minimum(kc[under], Dc[under]))
        # engine._normalised: the components within TAIL_LOG of the largest, by their sum
        near = lw > (top - engine.TAIL_LOG)[:, None]
        first = np.argmax(near, axis=1).tolist()
        last = (W - 1 - np.argmax(near[:, ::-1], axis=1)).tolist()
        w_all = lw - top[:, None]
        np.exp(w_all, out=w_all)
    out = []
    base_b = Bc + Mc
    for g in range(chunk.size):
        if not keep[g]:
            out.append(None)
            continue
        sl = slice(first[g], last[g] + 1)
        w = w_all[g, sl]
        ts = T[sl]
        out.append((Ac[g] + ts, base_b[g] - ts, w / float(np.sum(w))))
    return out


def _risky(ok, logc, shift, top, valid_t, concave, least) -> np.ndarray:
    """Rows where a sum below the floor could hide a weight within TAIL_LOG + 5 of the top.

    As in :func:`engine._direct_log_weights`: an underflowed sum is at most ``(min(k, D) + 1)
    floor``, and where the summand is log-concave and the sums above the floor are one run, at
    most the geometric continuation of the run's last step on each side.
    """
    W = ok.shape[1]
    T = np.arange(W, dtype=float)[None, :]
    bound = np.array([math.log((v + 1) * _FLOOR) for v in least.tolist()])[:, None]
    lo_i = np.argmax(ok, axis=1)
    hi_i = W - 1 - np.argmax(ok[:, ::-1], axis=1)
    run = ok.sum(axis=1) == hi_i - lo_i + 1
    cond = (concave & (hi_i - lo_i >= 1) & run)[:, None]
    lc_hi = _gather(logc, hi_i[:, None])
    lc_lo = _gather(logc, lo_i[:, None])
    up = lc_hi - _gather(logc, np.maximum(hi_i - 1, 0)[:, None])
    down = _gather(logc, np.minimum(lo_i + 1, W - 1)[:, None]) - lc_lo
    hi_f, lo_f = hi_i.astype(float)[:, None], lo_i.astype(float)[:, None]
    with np.errstate(all="ignore"):
        bound = np.where(cond & (T > hi_f), np.minimum(bound, lc_hi + up * (T - hi_f)), bound)
        bound = np.where(cond & (T < lo_f), np.minimum(bound, lc_lo - down * (lo_f - T)), bound)
        hidden = np.where(ok | ~valid_t, -np.inf, shift + bound)
    return (hidden > (top - engine.TAIL_LOG - 5.0)[:, None]).any(axis=1)


def _concave(v: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Per row: every second difference over the valid entries at most 1e-9."""
    if v.shape[1] < 3:
        return np.ones(v.shape[0], dtype=bool)
    with np.errstate(all="ignore"):
        d2 = np.diff(v, 2, axis=1)
    inside = valid[:, 2:]
    return np.all(~inside | (d2 <= 1e-9), axis=1)


def prob_rates_unidentified(tp, fn, tn, fp, rate_prior) -> np.ndarray:
    """P(rho + eta <= 1) of every group under the Beta posteriors of its paired counts.

    For whole-number prior parameters only (the default ``(1, 1)``): the beta-binomial
    distribution function of :func:`binaryeval.binary.model._beta_binomial_cdf` for all groups
    at once (the same terms, built from their ratios outwards from the mode).
    """
    ar, br = rate_prior
    if not (float(ar).is_integer() and float(br).is_integer()):
        raise ValueError("prob_rates_unidentified takes whole-number rate priors")
    tp, fn, tn, fp = (np.asarray(v, dtype=np.int64) for v in (tp, fn, tn, fp))
    a1, b1, a2, b2 = tp + ar, fn + br, tn + ar, fp + br
    # symmetric in rho and eta: expand the one with fewer terms
    swap = a2 + b2 > a1 + b1
    a1, b1, a2, b2 = (np.where(swap, a2, a1), np.where(swap, b2, b1), np.where(swap, a1, a2),
                      np.where(swap, b1, b2))
    k = (b2 - 1).astype(np.int64)
    n = (a2 + b2 - 1).astype(np.int64)
    return _beta_binomial_cdf(k, n, a1.astype(float), b1.astype(float))


def _beta_binomial_cdf(k: np.ndarray, n: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``model._beta_binomial_cdf`` for arrays of designs (padded rows, the same terms)."""
    out = np.empty(k.size)
    if not k.size:
        return out
    nf = n.astype(float)
    mean = nf * a / (a + b)
    sd = np.sqrt(nf * a * b * (a + b + nf) / ((a + b) ** 2 * (a + b + 1.0)))
    lo = np.maximum(0, np.floor(mean - 60 * sd - 10)).astype(np.int64)
    hi = np.minimum(n, np.ceil(mean + 60 * sd + 10).astype(np.int64))
    # rows of similar length together
    order = np.argsort(hi - lo, kind="stable")
    span = (hi - lo)[order]
    start = 0
    while start < order.size:
        stop = start + 1
        while (stop < order.size and span[stop] <= 1.25 * span[start] + 16
               and (stop - start + 1) * (span[stop] + 1) <= _BUDGET):
            stop += 1
        rows = order[start:stop]
        out[rows] = _beta_binomial_rows(k[rows], n[rows], a[rows], b[rows], lo[rows], hi[rows])
        start = stop
    return out


def _beta_binomial_rows(k, n, a, b, lo, hi) -> np.ndarray:
    width = int((hi - lo).max())
    j = lo[:, None].astype(float) + np.arange(width, dtype=float)[None, :]
    inside = np.arange(width)[None, :] < (hi - lo)[:, None]
    nf = n[:, None].astype(float)
    with np.errstate(all="ignore"):
        step = (np.log((nf - j) * (j + a[:, None]))
                - np.log((j + 1.0) * (nf - j - 1.0 + b[:, None])))
    step = np.where(inside, step, 0.0)
    mode = np.count_nonzero(inside & (step > 0), axis=1)
    # log_w[mode + 1 + i] = step[mode] + ... + step[mode + i]; log_w[mode - 1 - i] =
    # -(step[mode - 1] + ... + step[mode - 1 - i]); log_w[mode] = 0
    cols = np.arange(width + 1)[None, :]
    fwd = _gather(step, np.clip(mode[:, None] + cols[:, :-1], 0, max(width - 1, 0))) \
        if width else np.zeros((k.size, 0))
    fwd = np.where(mode[:, None] + cols[:, :-1] < (hi - lo)[:, None], fwd, 0.0)
    back = _gather(step, np.clip(mode[:, None] - 1 - cols[:, :-1], 0, max(width - 1, 0))) \
        if width else np.zeros((k.size, 0))
    back = np.where(mode[:, None] - 1 - cols[:, :-1] >= 0, back, 0.0)
    up = np.cumsum(fwd, axis=1)
    down = -np.cumsum(back, axis=1)
    # log_w at position p (0..hi - lo): p > mode -> up[p - mode - 1]; p < mode -> down[mode - 1 - p]
    p = cols
    log_w = np.where(p > mode[:, None], _gather(np.c_[up, np.zeros(k.size)],
                                                 np.clip(p - mode[:, None] - 1, 0, width)),
                     np.where(p < mode[:, None],
                              _gather(np.c_[down, np.zeros(k.size)],
                                      np.clip(mode[:, None] - 1 - p, 0, width)), 0.0))
    within = p <= (hi - lo)[:, None]
    w = np.where(within, np.exp(log_w), 0.0)
    below = np.where(p < np.maximum(k - lo + 1, 0)[:, None], w, 0.0).sum(axis=1)
    return np.minimum(below / w.sum(axis=1), 1.0)
