"""What one more human rating buys: another rating of a rated item, or a new item.

Preposterior analysis from the fit's own draws.  Let ``y`` be the outcome of one more rating
(and, for a new item, the metric's output on it).  Given the parameters ``theta`` (the shares,
the metric's and the raters' confusion matrices), the items' classes are independent, so the
likelihood of ``y`` is a sum over the item's class:

- another rating by rater ``r`` of a rated item ``i``:
  ``p(y | theta, data) = sum_c P(z_i = c | theta, data_i) Phi_r[c, y]``, where
  ``P(z_i = c | theta, data_i)`` is proportional to ``pi_g[c]`` times the likelihood of the
  item's metric output and ratings;
- one more item of group ``g`` rated by ``r``: an item with a metric output only, while the group
  has some (its output ``j`` is known: ``sum_c pi_g[c] Theta_g[c, j] Phi_r[c, y] /
  sum_c pi_g[c] Theta_g[c, j]``), otherwise a fresh item on which the metric (when the fit has
  one) gives an output too (``y = (j, l)``: ``sum_c pi_g[c] Theta_g[c, j] Phi_r[c, l]``).

By Bayes' rule the posterior after ``y`` is the fit's posterior reweighted by
``w_s(y) = p(y | theta_s, data)``, so with ``alpha_s`` the draws of the group's ``alpha``:
``P(y | data) = mean_s w_s(y)``, ``E(alpha | data, y) = mean_s(w_s alpha_s) / mean_s w_s``, and
by the law of total variance the expected reduction of the posterior variance of ``alpha`` is

    gain = Var(alpha | data) - E_y Var(alpha | data, y) = sum_y P(y | data) (E(alpha | data, y)
           - E(alpha | data))^2,

a finite sum over the outcomes; no refit and no simulated outcome is needed, and the answer
is a function of the draws alone (a seed reproduces the fit, hence the plan).  Averages: the
rated item is one of the group's rated items drawn uniformly among those the rater has not
rated yet, the rater one of the raters drawn as often as they rated in the group (or the rater
named).  The Monte-Carlo error is the delete-one-batch jackknife over 20 contiguous batches of
draws (5 per chain for 4 chains), which allows for the autocorrelation within a chain.

For a binned rating ``alpha`` stands for the fit's estimate, the mean rating
``sum_c level_c pi_g[c]``; everything else is unchanged (``K`` outcomes per rating).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from .._results import Result
from ..summary import Summary

__all__ = ["RaterPlan", "rating_gains"]

N_BATCHES = 20
#: a gain is "either" when the two kinds differ by less than this many Monte-Carlo errors
MC_MARGIN = 2.0


def _batches(chains: int, draws: int) -> np.ndarray:
    """Batch label of each flattened draw (chains, draws): contiguous runs within a chain."""
    per = max(N_BATCHES // chains, 1)
    within = np.minimum((np.arange(draws) * per) // draws, per - 1)
    return (np.arange(chains)[:, None] * per + within[None, :]).ravel()


def _sums(prob: np.ndarray, out: np.ndarray, alpha: np.ndarray, batch: np.ndarray,
          n_batches: int) -> tuple[np.ndarray, np.ndarray]:
    """Per batch, ``sum_s w_s(i, r, y)`` and ``sum_s w_s alpha_s``.

    ``prob`` (S, N, K) the units' class probabilities per draw, ``out`` (S, R, K, Y) the
    outcome probabilities given the class per draw and rater.  Returns two (B, N, R, Y) arrays.
    The batches are contiguous runs of the flattened draws (see :func:`_batches`).
    """
    s, n, k = prob.shape
    r, y = out.shape[1], out.shape[3]
    w = np.zeros((n_batches, n, r, y))
    wa = np.zeros((n_batches, n, r, y))
    edges = np.searchsorted(batch, np.arange(n_batches + 1))
    for c in range(k):
        left = np.ascontiguousarray(prob[:, :, c])                 # (S, N)
        right = np.ascontiguousarray(out[:, :, c, :]).reshape(s, r * y)
        right_a = right * alpha[:, None]
        for b in range(n_batches):
            lo, hi = edges[b], edges[b + 1]
            w[b] += (left[lo:hi].T @ right[lo:hi]).reshape(n, r, y)
            wa[b] += (left[lo:hi].T @ right_a[lo:hi]).reshape(n, r, y)
    return w, wa


def _gain(w: np.ndarray, wa: np.ndarray, a_sum: float, n: float) -> np.ndarray:
    """The expected variance reduction per (unit, rater) from the sums over draws."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = w / n
        m = wa / w
        d = np.where(w > 0, m - a_sum / n, 0.0)
    return (p * d ** 2).sum(axis=-1)


def _averaged(w_b: np.ndarray, wa_b: np.ndarray, a_b: np.ndarray, n_b: np.ndarray,
              weight: np.ndarray) -> tuple[float, np.ndarray]:
    """The weighted average gain from all draws and with each batch left out (jackknife)."""
    def one(w, wa, a, n):
        g = _gain(w, wa, a, n)
        return float((g * weight).sum() / weight.sum())

    full = one(w_b.sum(0), wa_b.sum(0), a_b.sum(), n_b.sum())
    w_t, wa_t, a_t, n_t = w_b.sum(0), wa_b.sum(0), a_b.sum(), n_b.sum()
    loo = np.array([one(w_t - w_b[b], wa_t - wa_b[b], a_t - a_b[b], n_t - n_b[b])
                    for b in range(len(n_b))])
    return full, loo


def _jackknife(loo: np.ndarray) -> float:
    b = loo.size
    return float(np.sqrt((b - 1) / b * ((loo - loo.mean()) ** 2).sum()))


def rating_gains(fit: Any, rater: str | None = None) -> pd.DataFrame:
    """Per group: the expected reduction of ``Var(alpha)`` from one more rating of each kind.

    ``fit`` is a :class:`~binaryeval.raters.RaterFit`; see the module's docstring.  Returns one
    row per group (in the fit's order) with ``gain_rated``, ``gain_new`` and their Monte-Carlo
    errors, and the difference's.
    """
    d, r = fit.draws, fit.ratings
    chains, draws = d.pi.shape[:2]
    s = chains * draws
    k = d.pi.shape[-1]
    n_r = len(fit.rater_names)
    batch = _batches(chains, draws)
    n_batches = int(batch.max()) + 1
    n_b = np.bincount(batch, minlength=n_batches).astype(float)
    pi = d.pi.reshape(s, -1, k).astype(float)                       # (S, G, K)
    phi = d.phi.reshape(s, n_r, k, k).astype(float)                 # (S, R, K, K)
    free = np.array([x in fit.error_free for x in fit.rater_names])
    phi[:, free] = np.eye(k)
    theta = None if d.theta is None else d.theta.reshape(s, d.theta.shape[2], k, -1).astype(float)
    log_phi = np.log(np.maximum(phi, 1e-300))
    n_items = len(r.item_keys)
    is_free = free[r.rating_rater]
    fixed = np.full(n_items, -1)
    fixed[r.rating_item[is_free]] = r.rating_label[is_free]
    rows = []
    scores = fit._scores()
    for gpos in fit._positions():
        alpha = pi[:, gpos] @ scores
        a_b = np.bincount(batch, weights=alpha, minlength=n_batches)
        tg = None if theta is None else theta[:, 0 if theta.shape[1] == 1 else gpos]  # (S,K,J)
        in_g = np.flatnonzero(r.item_group == gpos)
        rat_g = np.flatnonzero(r.item_group[r.rating_item] == gpos)
        local = np.full(n_items, -1)
        local[in_g] = np.arange(in_g.size)
        counts = np.bincount(r.rating_rater[rat_g], minlength=n_r).astype(float)
        if rater is not None:
            who = np.zeros(n_r)
            who[fit.rater_names.index(rater)] = 1.0
        else:
            who = counts
        use = np.flatnonzero(who > 0)
        out = phi[:, use]                                            # (S, R_u, K, K)
        # -- another rating of a rated item -------------------------------------------------------
        # each item's class log-probabilities per draw, one (N, S) slab per class: its share,
        # its metric output and its ratings, summed through sparse count matrices
        lab, who_r = r.rating_label[rat_g], r.rating_rater[rat_g]
        counts_g = sparse.csr_matrix((np.ones(rat_g.size), (local[r.rating_item[rat_g]],
                                                            who_r * k + lab)),
                                     shape=(in_g.size, n_r * k))
        if tg is not None:
            met = r.item_metric[in_g]
            has = np.flatnonzero(met >= 0)
            met_g = sparse.csr_matrix((np.ones(has.size), (has, met[has])),
                                      shape=(in_g.size, tg.shape[2]))
            log_t = np.log(np.maximum(tg, 1e-300))
        log_pi = np.log(np.maximum(pi[:, gpos], 1e-300))
        logp = np.empty((k, in_g.size, s))
        for c in range(k):
            logp[c] = counts_g @ log_phi[:, :, c, :].reshape(s, n_r * k).T
            logp[c] += log_pi[None, :, c]
            if tg is not None:
                logp[c] += met_g @ log_t[:, c, :].T
        logp -= logp.max(axis=0)
        np.exp(logp, out=logp)
        logp /= logp.sum(axis=0)
        prob = logp.transpose(2, 1, 0)                               # (S, N, K)
        fx = fixed[in_g]
        if np.any(fx >= 0):
            prob = prob.copy()
            prob[:, fx >= 0] = np.eye(k)[fx[fx >= 0]]
        eligible = np.ones((in_g.size, use.size), dtype=bool)
        col = np.full(n_r, -1)
        col[use] = np.arange(use.size)
        seen = col[who_r] >= 0
        eligible[local[r.rating_item[rat_g]][seen], col[who_r][seen]] = False
        per_rater = eligible.sum(axis=0)
        weight_r = np.where(per_rater > 0, who[use] / np.maximum(per_rater, 1), 0.0)
        weight = eligible * weight_r[None, :]
        w_b, wa_b = _sums(prob, out, alpha, batch, n_batches)
        if weight.sum() > 0:
            rated, rated_loo = _averaged(w_b, wa_b, a_b, n_b, weight)
        else:
            rated, rated_loo = np.nan, np.full(n_batches, np.nan)
        # -- one new item -------------------------------------------------------------------------
        mo = r.metric_only[gpos] if r.metric_only.size else np.zeros(0)
        pig = pi[:, gpos]                                             # (S, K)
        if tg is not None and mo.sum() > 0:
            j_use = np.flatnonzero(mo > 0)
            joint = pig[:, None, :] * tg[:, :, j_use].transpose(0, 2, 1)   # (S, J_u, K)
            prob_new = joint / joint.sum(axis=2, keepdims=True)
            new_out = out
            new_weight = (mo[j_use] / mo.sum())[:, None] * (who[use] / who[use].sum())[None, :]
            kind = "an item with a metric output only"
        elif tg is not None:
            prob_new = pig[:, None, :]
            j = tg.shape[2]
            new_out = (tg[:, None, :, :, None] * out[:, :, :, None, :]).reshape(
                s, use.size, k, j * k)
            new_weight = (who[use] / who[use].sum())[None, :]
            kind = "a new item (metric output and rating)"
        else:
            prob_new = pig[:, None, :]
            new_out = out
            new_weight = (who[use] / who[use].sum())[None, :]
            kind = "a new item"
        wn_b, wan_b = _sums(prob_new, new_out, alpha, batch, n_batches)
        new, new_loo = _averaged(wn_b, wan_b, a_b, n_b, new_weight)
        # the same new item rated by an error-free rater (an expert taken as the truth)
        perfect = np.broadcast_to(np.eye(k), (s, 1, k, k))
        if new_out.shape[-1] != k:      # a fresh item: the metric's output comes with it
            perfect = (tg[:, None, :, :, None] * perfect[:, :, :, None, :]).reshape(
                s, 1, k, -1)
        wp_b, wap_b = _sums(prob_new, perfect, alpha, batch, n_batches)
        ef, ef_loo = _averaged(wp_b, wap_b, a_b, n_b, new_weight.sum(axis=1, keepdims=True))
        var = float(alpha.var(ddof=1))
        rows.append({"group": fit.groups[gpos], "estimate": float(alpha.mean()),
                     "std_error": np.sqrt(var), "gain_rated": rated,
                     "gain_rated_mc_error": _jackknife(rated_loo),
                     "gain_new": new, "gain_new_mc_error": _jackknife(new_loo),
                     "diff_mc_error": _jackknife(rated_loo - new_loo),
                     "gain_error_free": ef, "gain_error_free_mc_error": _jackknife(ef_loo),
                     "new_item": kind,
                     "n_human": in_g.size, "n_ratings": rat_g.size,
                     "n_metric": int(mo.sum()) if mo.size else 0})
    return pd.DataFrame(rows)


def _verdict(row: pd.Series) -> str:
    if not np.isfinite(row["gain_rated"]):
        return "new item"
    if abs(row["gain_rated"] - row["gain_new"]) < MC_MARGIN * row["diff_mc_error"]:
        return "either"
    return "rated item" if row["gain_rated"] > row["gain_new"] else "new item"


@dataclass(frozen=True, eq=False, repr=False)
class RaterPlan(Result):
    """Which buys more certainty about ``alpha``: another rating of a rated item, or a new item.

    Returned by :meth:`RaterFit.plan <binaryeval.raters.RaterFit.plan>`.

    Attributes
    ----------
    table : DataFrame
        One row per group (see :meth:`to_frame`).
    rater : str or None
        The rater who gives the rating, or None: a rater drawn as often as each rated.
    level : float
        The fit's level.
    method : str
        How the gains are computed.

    Examples
    --------
    >>> import binaryeval as be
    >>> from binaryeval.datasets import simulate_ratings
    >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
    >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
    ...                     item="item", seed=1)
    >>> res.plan()
    RaterPlan(groups=2, rated_item=0, new_item=2, either=0)
    """

    table: pd.DataFrame
    rater: str | None
    level: float
    group_name: str = "group"
    settings: dict = field(default_factory=dict)
    method: str = ("preposterior analysis: the fit's draws reweighted by each outcome's "
                   "likelihood (law of total variance), Monte-Carlo error by the batch "
                   "jackknife")

    def to_frame(self) -> pd.DataFrame:
        """One row per group: the gain of each kind of rating and which is larger.

        Returns
        -------
        DataFrame
            Indexed by the grouping column: ``estimate`` and ``std_error`` (``alpha`` now),
            ``gain_rated`` (expected reduction of the posterior variance of ``alpha`` from
            one more rating of a rated item), ``gain_new`` (from one new item), their
            ``*_mc_error``, ``std_error_rated`` and ``std_error_new`` (the expected posterior
            sd after it, ``sqrt(std_error^2 - gain)``), ``worth`` (``gain_rated / gain_new``:
            one more rating of a rated item is worth that many new items), ``better``
            (``"rated item"``, ``"new item"`` or ``"either"`` when they differ by less than
            two Monte-Carlo errors), ``gain_error_free`` (the new item rated by an error-free
            rater, an expert taken as the truth) and ``ratings_per_error_free``
            (``gain_error_free / gain_new``: how many new items rated once by the rater(s) one
            error-free rating is worth), ``new_item`` (what the new item is), ``n_human``,
            ``n_ratings``, ``n_metric``.

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df,
        ...                     rater="annotator", item="item", seed=1)
        >>> res.plan().to_frame()["better"].tolist()
        ['new item', 'new item']
        """
        out = self.table.set_index("group")
        out.index.name = self.group_name
        out.attrs.update(level=self.level, method=self.method, rater=self.rater,
                         mc_margin=MC_MARGIN)
        return out

    def _repr_fields(self) -> dict[str, Any]:
        b = self.table["better"]
        return {"groups": len(self.table), "rated_item": int((b == "rated item").sum()),
                "new_item": int((b == "new item").sum()), "either": int((b == "either").sum())}

    def summary(self) -> Summary:
        """The gains per group and the verdict.

        Returns
        -------
        Summary

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df,
        ...                     rater="annotator", item="item", seed=1)
        >>> print(res.plan().summary().title)
        Planning from the rater model: another rating of a rated item, or a new item?
        """
        t = self.to_frame()
        shown = t[["estimate", "std_error", "std_error_rated", "std_error_new", "worth",
                   "better", "ratings_per_error_free", "n_human", "n_ratings"]]
        info = {"rater": self.rater or "drawn as often as each rater rated in the group",
                "rated item": "one of the group's rated items the rater has not rated, "
                              "uniformly",
                "new item": "an item with a metric output only while the group has some, "
                            "else a new item (the metric rates it too when the fit has one)",
                "gain": "expected reduction of the posterior variance of the estimate (alpha, "
                        "or the mean rating of a binned rating)",
                "method": self.method, **self.settings}
        s = Summary("Planning from the rater model: another rating of a rated item, or a new "
                    "item?", info, [("per group", shown)])
        done = [str(g) for g, x in t["gain_rated"].items() if not np.isfinite(x)]
        if done:
            s.add_note(f"{', '.join(done[:5])}{', ...' if len(done) > 5 else ''}: every rater "
                       "has rated every rated item, so no rated item is left to rate again "
                       "(gain_rated missing); only new items can narrow alpha")
        s.add_note("ratings_per_error_free = gain of a new item rated without error / gain of "
                   "a new item rated by the rater(s): what one error-free rating is worth")
        s.add_note("worth = gain of another rating of a rated item / gain of a new item; "
                   f"'either' when they differ by less than {MC_MARGIN:g} Monte-Carlo errors "
                   "(more draws in the fit narrow them)")
        return s


def make_plan(fit: Any, rater: str | None) -> RaterPlan:
    """The plan of a fit (see :meth:`RaterFit.plan`)."""
    t = rating_gains(fit, rater)
    v0 = t["std_error"] ** 2
    t["std_error_rated"] = np.sqrt(np.maximum(v0 - t["gain_rated"], 0.0))
    t["std_error_new"] = np.sqrt(np.maximum(v0 - t["gain_new"], 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        t["worth"] = t["gain_rated"] / t["gain_new"]
        t["ratings_per_error_free"] = t["gain_error_free"] / t["gain_new"]
    t["better"] = [_verdict(row) for _, row in t.iterrows()]
    cols = ["group", "estimate", "std_error", "gain_rated", "gain_rated_mc_error", "gain_new",
            "gain_new_mc_error", "diff_mc_error", "std_error_rated", "std_error_new", "worth",
            "better", "gain_error_free", "gain_error_free_mc_error", "ratings_per_error_free",
            "new_item", "n_human", "n_ratings", "n_metric"]
    return RaterPlan(t[cols], rater, fit.level, fit.group_name,
                     settings={"draws": f"{fit.n_chains} chains x {fit.n_draws}",
                               "seed": fit.seed})
