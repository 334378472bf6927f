"""Several metrics and binned scalar scores for a binary human rating: :func:`fit_latent`.

The human rating (adequate or not) is the latent truth, K = 2.  The metrics' outputs on an item
form one pattern ``j`` (``J`` = the product of their levels): with ``dependence="joint"`` the
pattern probabilities per human class are unrestricted, so however the metrics depend on each
other given the truth is learnt from the paired items; ``"independent"`` multiplies one
confusion matrix per metric (fewer parameters, valid only when the metrics err independently;
:meth:`LatentFit.dependence` checks it on the paired items).  A scalar score enters without a
threshold through ``bins``: its ``k`` bins are cut at the quantiles ``1/k, ..., (k-1)/k`` of the
paired rows' scores, and each bin is a metric output.  One binary metric is the binary model,
which :func:`binaryeval.fit` computes exactly.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._results import Result
from ..data import RowAccount, as_binary, refuse_all_missing, scores
from ..errors import DataError, ParameterError
from ..summary import Summary
from . import _common, _data, dependence
from ._ranking import plot_dag, prob_matrix, ranking_graph
from .posterior import LatentPosterior, build_model

__all__ = ["LatentFit", "fit_latent"]

_SINGLE = "all"
_MAX_LEVELS = 12


def _metric_codes(values: pd.Series, term: str, paired: np.ndarray, n_bins: int | None
                  ) -> tuple[np.ndarray, tuple[str, ...], np.ndarray | None]:
    """Output index per row (-1 missing), the output labels and the bin edges (binned terms)."""
    if n_bins is not None:
        score = _data.numeric(values, term)
        edges = _data.bin_edges(score, paired, n_bins, term)
        code = np.where(np.isnan(score), -1, np.searchsorted(edges, score, side="right"))
        labels = _bin_labels(edges)
        return code.astype(np.int64), labels, edges
    present = values.dropna()
    if pd.api.types.is_numeric_dtype(present):
        scores(values, term, "metric term")  # infinities refused by name, not counted as levels
    if present.map(lambda x: isinstance(x, (bool, np.bool_))).all() and len(present):
        present = present.astype(int)
        values = values.map(lambda x: x if pd.isna(x) else int(x))
    levels = sorted(pd.unique(present), key=lambda x: (str(type(x)), x))
    numeric = pd.api.types.is_numeric_dtype(present)
    if len(levels) > _MAX_LEVELS or (numeric and len(levels) > 2 and
                                     not np.all(np.mod(present.astype(float), 1) == 0)):
        raise DataError(f"metric term {term!r} has {len(levels)} distinct values; a scalar "
                        f"score enters binned: pass bins=5 (or bins={{{term!r}: 5}}), or "
                        "threshold it in the formula, e.g. I(score > 0.5)")
    if len(levels) < 2:
        levels = sorted(set(levels) | ({0, 1} if numeric or not levels else set()))
        if len(levels) < 2:
            raise DataError(f"metric term {term!r} has a single value {levels!r}; it carries "
                            "no information")
    index = {lv: i for i, lv in enumerate(levels)}
    code = values.map(lambda x: -1 if pd.isna(x) else index[x]).to_numpy(dtype=np.int64)
    return code, tuple(str(lv) for lv in levels), None


def _bin_labels(edges: np.ndarray) -> tuple[str, ...]:
    cuts = [f"{e:.4g}" for e in edges]
    return tuple([f"< {cuts[0]}"] + [f"[{a}, {b})" for a, b in zip(cuts[:-1], cuts[1:],
                                                                   strict=True)]
                 + [f">= {cuts[-1]}"])


@dataclass(frozen=True, eq=False, repr=False)
class LatentFit(Result):
    """Rate of adequate outputs per group from several metrics or binned scores.

    Returned by :func:`fit_latent`.

    Attributes
    ----------
    groups : tuple of str
        The groups (systems).
    posterior : LatentPosterior
        The draws; classes ``0`` and ``1`` (inadequate, adequate); the outputs are the joint
        metric patterns.
    metric_levels : dict
        ``term -> labels`` of each metric's outputs (bins as intervals).
    bin_edges : dict
        ``term -> interior edges`` of every binned term (quantiles of the paired rows).

    Examples
    --------
    >>> res = _example()
    >>> res
    LatentFit(groups=2, metrics=2, outputs=4, n_rows=2400, chains=4, draws=300)
    >>> list(res.to_frame().columns)[:5]
    ['group', 'n_human', 'n_paired', 'n_metric', 'estimate']
    """

    formula: str
    groups: tuple[str, ...]
    posterior: LatentPosterior
    human_term: str
    metric_terms: tuple[str, ...]
    metric_levels: dict
    bin_edges: dict = field(default_factory=dict)
    level: float = 0.95
    n_rows: int = 0
    excluded: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    call: dict = field(default_factory=dict)

    @property
    def n_used(self) -> int:
        """Rows used (``n_rows - n_excluded``)."""
        return self.n_rows - self.n_excluded

    @property
    def n_excluded(self) -> int:
        """Rows left out (reasons in ``excluded``)."""
        return int(sum(self.excluded.values()))

    def _alpha(self) -> np.ndarray:
        return self.posterior.draws.pi[..., 1]

    def alpha_draws(self, group: str | None = None) -> np.ndarray:
        """Posterior draws of ``alpha`` (the rate of adequate outputs), shape (chains, draws).

        Parameters
        ----------
        group : str, optional
            The group (the only one when there is a single group).

        Returns
        -------
        ndarray

        Examples
        --------
        >>> _example().alpha_draws("A").shape
        (4, 300)
        """
        return self.posterior.pi_draws(group)[..., 1]

    def interval(self, level: float | None = None, kind: str = "eti") -> pd.DataFrame:
        """Credible intervals of ``alpha`` per group: columns ``lower``, ``upper``.

        Parameters
        ----------
        level : float, optional
            Coverage (default: the fit's ``level``).
        kind : {"eti", "hdi"}
            Equal-tailed or highest-density interval.

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> _example().interval(0.8, kind="hdi").attrs["kind"]
        'hdi'
        """
        level = self.level if level is None else level
        return _common.interval_frame(self._alpha(), level, kind,
                                      pd.Index(self.groups, name="group"))

    def to_frame(self) -> pd.DataFrame:
        """One row per group.

        Columns: ``group``, ``n_human`` (human ratings informing ``alpha``, paired included),
        ``n_paired``, ``n_metric`` (metric-only), ``estimate`` (posterior mean of ``alpha``),
        ``std_error`` (posterior sd), ``lower``/``upper`` (equal-tailed interval at ``level``),
        and the sampler's ``rhat``, ``ess_bulk``, ``ess_tail``.

        Examples
        --------
        >>> int(_example().to_frame()["n_paired"].iloc[0])
        200
        """
        post = self.posterior
        s = _common.summarise(self._alpha(), self.level)
        n_paired = post.paired.sum(axis=(1, 2))
        out = pd.DataFrame({
            "group": list(self.groups),
            "n_human": (post.human.sum(axis=1)
                        + (n_paired if post.paired_informs_pi else 0)).astype(int),
            "n_paired": n_paired.astype(int), "n_metric": post.metric.sum(axis=1).astype(int),
            **s})
        out.attrs.update(level=self.level, kind="eti", method=post.method,
                         dependence=post.dependence, bins={k: e.tolist() for k, e in
                                                           self.bin_edges.items()})
        return out

    def compare(self) -> pd.DataFrame:
        """Group x group matrix of ``P(alpha_row > alpha_column)``.

        Returns
        -------
        DataFrame
            ``attrs["order"]`` lists the groups by posterior mean (best first).

        Examples
        --------
        >>> m = _example().compare()
        >>> round(float(m.loc["A", "B"] + m.loc["B", "A"]), 6)
        1.0
        """
        return prob_matrix(self._alpha(), list(self.groups))

    @v.renamed(threshold="min_prob")
    def ranking(self, min_prob: float = 0.95) -> Any:
        """Groups ranked by ``P(alpha_a > alpha_b) >= min_prob``: a DAG (networkx).

        Parameters
        ----------
        min_prob : float
            Posterior probability an edge needs (0.5 < min_prob < 1).

        Returns
        -------
        networkx.DiGraph
            Transitive edges removed; see :meth:`PreferenceFit.ranking`.

        Examples
        --------
        >>> sorted(_example().ranking().nodes)
        ['A', 'B']
        """
        return ranking_graph(self.compare(), v.probability(min_prob, "min_prob", open=True))

    def dependence(self) -> pd.DataFrame:
        """Check of conditional dependence of the metrics on the paired items.

        Returns
        -------
        DataFrame
            ``n_paired`` and ``log10_bf`` (joint over independent) per group; ``attrs`` hold
            the overall ``log10_bf`` and the ``verdict`` (see
            :mod:`binaryeval.latent.dependence`).

        Examples
        --------
        >>> _example().dependence().attrs["verdict"]  # two independent metrics, 200 paired rows
        'inconclusive: dependence="joint" is the safe choice'
        """
        if len(self.metric_terms) < 2:
            raise ParameterError("the dependence check compares metrics: the fit has one")
        post = self.posterior
        return dependence.check(post.paired, post.levels, self.groups,
                                pooled=post.rates == "pooled")

    def _repr_fields(self) -> dict[str, Any]:
        return {"groups": len(self.groups), "metrics": len(self.metric_terms),
                "outputs": len(self.posterior.outputs), "n_rows": self.n_rows,
                "chains": self.posterior.n_chains, "draws": self.posterior.n_draws}

    def summary(self) -> Summary:
        """Facts of the fit, the table per group and the dependence check.

        Examples
        --------
        >>> print(_example().summary().title)
        Latent-truth model: rate of adequate outputs from several metrics
        """
        post = self.posterior
        table = self.to_frame().set_index("group")
        table[["ess_bulk", "ess_tail"]] = table[["ess_bulk", "ess_tail"]].round().astype("Int64")
        pct = f"{100 * self.level:g}%"
        info: dict[str, Any] = {
            "formula": self.formula, "rows": self.n_rows, "rows used": self.n_used,
            "rows excluded": "; ".join(f"{n} {r}" for r, n in self.excluded.items()) or "none",
            "metrics": ", ".join(f"{t} ({len(self.metric_levels[t])} levels)"
                                 for t in self.metric_terms),
            "metric outputs (patterns)": len(post.outputs),
            "dependence": post.dependence,
            "rates": {"estimate": "estimated per group", "pooled": "estimated once from all "
                      "groups", "known": "known"}[post.rates],
            "interval": f"{pct} equal-tailed credible interval", "sampler": post.method,
            "seed": post.seed}
        for term, edges in self.bin_edges.items():
            info[f"bins of {term}"] = ("edges " + ", ".join(f"{e:.4g}" for e in edges)
                                       + " (quantiles of the paired rows' scores)")
        s = Summary("Latent-truth model: rate of adequate outputs from several metrics", info,
                    [("per group (estimate: alpha, the rate of adequate outputs)", table)])
        if len(self.metric_terms) > 1:
            dep = self.dependence()
            s.add_note(f"dependence check on the paired items: log10 BF (joint vs independent) "
                       f"= {dep.attrs['log10_bf']:.1f}: {dep.attrs['verdict']}")
        for note in self.notes:
            s.add_note(note)
        return s

    @v.renamed(threshold="min_prob")
    def plot(self, ax: Any = None, *, kind: str = "interval", min_prob: float = 0.95,
             **kwargs: Any) -> Any:
        """Draw the rates, the comparison matrix or the ranking.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure when None.
        kind : {"interval", "matrix", "ranking"}
            Posterior means and intervals of ``alpha``; heat map of ``P(alpha_row >
            alpha_column)``; the DAG of :meth:`ranking`.
        min_prob : float
            Posterior probability of an edge in ``kind="ranking"``.
        **kwargs
            Passed to matplotlib (seaborn for the matrix, networkx for the ranking).

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> ax = _example().plot()
        """
        import matplotlib.pyplot as plt

        kind = v.choice(kind, "kind", ("interval", "matrix", "ranking"))
        if ax is None:
            _, ax = plt.subplots(figsize=(7, min(0.35 * len(self.groups) + 2.5, 14.0)))
        if kind == "interval":
            frame = self.to_frame().sort_values("estimate")
            y = np.arange(len(frame))
            ax.errorbar(frame["estimate"], y, xerr=[frame["estimate"] - frame["lower"],
                                                    frame["upper"] - frame["estimate"]],
                        fmt="o", capsize=3, label=f"posterior mean, {self.level:.0%} interval",
                        **kwargs)
            ax.set_yticks(y, frame["group"])
            ax.set_xlabel("alpha (rate of adequate outputs)")
            ax.legend(fontsize=8)
            return ax
        if kind == "matrix":
            import seaborn as sns

            m = self.compare()
            order = m.attrs["order"]
            kwargs.setdefault("cmap", "RdBu_r")
            kwargs.setdefault("vmin", 0.0)
            kwargs.setdefault("vmax", 1.0)
            sns.heatmap(m.loc[order, order], ax=ax, **kwargs)
            ax.set_title("P(alpha_row > alpha_column)")
            return ax
        return plot_dag(self.ranking(min_prob), ax, **kwargs)


def _counts(parsed, frame, data: pd.DataFrame, bins: dict[str, int]):
    """Groups, per-metric codes and the counts of the model."""
    account = RowAccount(len(data))
    human = as_binary(frame.lhs.iloc[:, 0], parsed.lhs_names[0], "human rating").to_numpy()
    if frame.group is not None:
        group = frame.group
        missing = group.isna().to_numpy()
        account.exclude("missing group", int(missing.sum()))
    else:
        group = pd.Series(_SINGLE, index=data.index)
        missing = np.zeros(len(data), dtype=bool)
    has_human = ~np.isnan(human)
    codes, labels, edges = [], {}, {}
    for term in parsed.rhs_names:
        present = frame.rhs[term].notna().to_numpy()
        code, lab, edge = _metric_codes(frame.rhs[term][~missing], term,
                                        (has_human & present)[~missing], bins.get(term))
        full = np.full(len(data), -1, dtype=np.int64)
        full[~missing] = code
        codes.append(full)
        labels[term] = lab
        if edge is not None:
            edges[term] = edge
    levels = tuple(len(labels[t]) for t in parsed.rhs_names)
    out = _data.joint_index(codes, levels)
    unrated = ~has_human & (out < 0) & ~missing
    account.exclude("no rating (human and metrics missing)", int(unrated.sum()))
    keep = ~missing & ~unrated
    if not keep.any():
        raise DataError("no row has a group and a rating; check the columns in the formula")
    names, gidx = np.unique(group[keep].astype(str).to_numpy(), return_inverse=True)
    cls = np.where(np.isnan(human[keep]), -1, human[keep]).astype(np.int64)
    n, h, m, naive = _data.tally(gidx, cls, out[keep], codes[0][keep], len(names), 2,
                                 int(np.prod(levels)), levels[0])
    partial = int(((np.stack(codes) >= 0).any(axis=0) & (out < 0) & keep).sum())
    notes = ([f"{partial} rows rated by some metrics only: their metric ratings are not used"]
             if partial and len(codes) > 1 else [])
    return tuple(str(x) for x in names), n, h, m, labels, edges, levels, account, notes


@v.renamed(confidence="level", random_state="seed", rate_prior="rate_concentration")
def fit_latent(formula: str, data: pd.DataFrame, *, dependence: str = "joint",
               bins: int | dict[str, int] | None = None, rates: Any = "estimate",
               prior: tuple[float, float] = (1.0, 1.0), rate_concentration: Any = 1.0,
               paired_informs_pi: bool = True, level: float = 0.95, seed: Any = None,
               draws: int = 1000, chains: int = 4, warmup: int | None = None) -> LatentFit:
    """The rate of adequate outputs per group from several metrics or binned scalar scores.

    Parameters
    ----------
    formula : str
        ``"human ~ m1 + m2 | system"``: a binary human rating (0/1, NaN = not rated), one or
        more metric terms (binary, categorical with a few levels, or scalar with ``bins``),
        and optionally the grouping.
    data : DataFrame
        One row per rated output.
    dependence : {"joint", "independent"}
        How several metrics combine: their joint pattern (valid however they depend on each
        other given the truth) or the product of per-metric confusion matrices.
    bins : int or dict, optional
        Bin scalar metric terms into this many bins (one number for every metric term, or
        ``{term: bins}``); the edges are the quantiles of the paired rows' scores.
    rates : "estimate", "pooled" or array-like
        The metrics' confusion matrix per group, one for all groups, or known (a 2 x J
        matrix, rows inadequate/adequate, or ``{"rho": .., "eta": ..}`` for one binary
        metric).
    prior : (float, float)
        Beta prior ``(a, b)`` of ``alpha``, as in :func:`binaryeval.fit`.
    rate_concentration : float or array-like of shape (2, J)
        Dirichlet concentration of each row of the confusion matrix, its prior (1: uniform;
        for one binary metric, ``[[a, b], [b, a]]``, rows inadequate/adequate and columns
        metric 0/1, is the Beta prior ``rate_prior=(a, b)`` of :func:`binaryeval.fit` on
        ``eta`` and ``rho``).
    paired_informs_pi : bool
        Whether the paired rows' human ratings count for ``alpha``.
    level : float
        Coverage of the credible intervals.
    seed : int, optional
        Seed of the sampler.
    draws, chains, warmup : int
        Draws kept per chain, chains and warm-up iterations (default ``max(100, draws // 4)``).

    Returns
    -------
    LatentFit

    Warns
    -----
    ConvergenceWarning
        When ``alpha`` of some group has R-hat above 1.01 or bulk/tail ESS below 400.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.random(2000) < 0.6
    >>> df = pd.DataFrame({"human": np.where(np.arange(2000) < 300, truth, np.nan),
    ...                    "m1": np.where(truth, rng.random(2000) < 0.8, rng.random(2000) < 0.3),
    ...                    "score": truth + rng.normal(0, 1, 2000)})
    >>> res = fit_latent("human ~ m1 + score", df, bins={"score": 4}, draws=300, seed=1)
    >>> round(float(res.to_frame()["estimate"].iloc[0]), 1)
    0.6
    """
    from ..formula import parse_formula

    v.require_pandas(data, "fit_latent()")
    level = v.level(level)
    a, b = v.beta_pair(prior, "prior")
    draws, chains, warmup, seed_used = _common.sampler_options(draws, chains, warmup, seed)
    parsed = parse_formula(formula)
    _data.check_formula_sides(parsed, formula, groups=(0, 1))
    frame = parsed.evaluate(data, eval_env={})
    # before an all-missing term makes every row look unrated by the others
    refuse_all_missing({t: frame.rhs[t] for t in parsed.rhs_names}, "metric rating")
    bins_map = _data.bins_for(bins, parsed.rhs_names)
    groups, n, h, m, labels, edges, levels, account, notes = _counts(parsed, frame, data,
                                                                     bins_map)
    outputs = ["/".join(labels[t][i] for t, i in zip(parsed.rhs_names, pattern, strict=True))
               for pattern in np.ndindex(*levels)]
    model = build_model(n, h, m, groups, ("0", "1"), outputs, levels=levels,
                        dependence=dependence, rates=rates,
                        share_concentration=np.array([b, a]),
                        rate_concentration=rate_concentration,
                        paired_informs_pi=paired_informs_pi)
    out = _common.run(model, draws, chains, warmup, seed_used)
    post = LatentPosterior(groups, ("0", "1"), tuple(outputs), n, h, m, out, level=level,
                           share_concentration=model.prior[0],
                           rate_concentration=model.rate_prior, rates=model.rates,
                           known=model.known, dependence=model.dependence, levels=model.levels,
                           paired_informs_pi=model.paired_informs_pi, seed=seed, warmup=warmup)
    res = LatentFit(formula, groups, post, parsed.lhs_names[0], tuple(parsed.rhs_names),
                    labels, edges, level=level, n_rows=account.n_rows,
                    excluded=dict(account.excluded), notes=tuple(notes),
                    call={"formula": formula, "dependence": dependence, "bins": bins,
                          "rates": rates, "prior": (a, b), "draws": draws, "chains": chains,
                          "seed": seed})
    _common.warn_convergence(res.to_frame(), "alpha", list(groups), draws, chains)
    return res


@functools.lru_cache(maxsize=1)
def _example() -> LatentFit:
    """A small fit for the examples: two systems, two independent binary metrics."""
    rng = np.random.default_rng(0)
    rows = []
    for system, alpha in (("A", 0.7), ("B", 0.5)):
        truth = rng.random(1200) < alpha
        rows.append(pd.DataFrame({
            "system": system, "human": np.where(np.arange(1200) < 200, truth, np.nan),
            "m1": np.where(truth, rng.random(1200) < 0.8, rng.random(1200) < 0.25),
            "m2": np.where(truth, rng.random(1200) < 0.75, rng.random(1200) < 0.3)}))
    df = pd.concat(rows, ignore_index=True)
    return fit_latent("human ~ m1 + m2 | system", df, draws=300, seed=1)
