"""The latent-truth posterior from counts: :func:`latent_posterior` and :class:`LatentPosterior`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._results import Result
from ..errors import ParameterError
from ..summary import Summary
from . import _common
from .engine import Draws, Model, check_counts

if TYPE_CHECKING:  # names used only in type hints
    from collections.abc import Mapping

    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike

__all__ = ["LatentPosterior", "latent_posterior"]


@dataclass(frozen=True, eq=False, repr=False)
class LatentPosterior(Result):
    """Posterior draws of the class shares ``pi`` (and ``Theta``) per group.

    Create it with :func:`latent_posterior`.  ``to_frame()`` has one row per group and class.

    Attributes
    ----------
    groups : tuple of str
        Group names.
    classes : tuple of str
        Names of the ``K`` human classes (latent truth).
    outputs : tuple of str
        Names of the ``J`` metric outputs (joint patterns for several metrics).
    paired, human, metric : ndarray
        The counts: (G, K, J), (G, K), (G, J).
    draws : Draws
        ``draws.pi`` has shape (chains, draws, G, K); ``draws.theta`` (chains, draws, Gt, K, J)
        with ``Gt = G`` for rates per group, 1 when pooled, None when known.

    Examples
    --------
    >>> from binaryeval import latent_posterior
    >>> post = latent_posterior([[[40, 10], [5, 45]]], metric=[[300, 700]], draws=300, seed=1)
    >>> post
    LatentPosterior(groups=1, classes=2, outputs=2, chains=4, draws=300, rates='estimate')
    >>> round(float(post.to_frame()["estimate"].iloc[1]), 2)
    0.6
    """

    groups: tuple[str, ...]
    classes: tuple[str, ...]
    outputs: tuple[str, ...]
    paired: np.ndarray
    human: np.ndarray
    metric: np.ndarray
    draws: Draws
    level: float = 0.95
    share_concentration: np.ndarray | None = None
    rate_concentration: np.ndarray | list[np.ndarray] | None = None
    rates: str = "estimate"
    known: np.ndarray | None = None
    dependence: str = "joint"
    levels: tuple[int, ...] = ()
    paired_informs_pi: bool = True
    seed: int | np.random.SeedSequence | np.random.Generator | None = None
    warmup: int = 0
    call: dict = field(default_factory=dict)

    # -- access ---------------------------------------------------------------------------------
    @property
    def n_chains(self) -> int:
        """Number of chains."""
        return int(self.draws.pi.shape[0])

    @property
    def n_draws(self) -> int:
        """Draws kept per chain (after warm-up)."""
        return int(self.draws.pi.shape[1])

    def pi_draws(self, group: str | None = None) -> np.ndarray:
        """Draws of the class shares of one group, shape (chains, draws, K).

        Parameters
        ----------
        group : str, optional
            The group (the only one when there is a single group).

        Returns
        -------
        ndarray

        Examples
        --------
        >>> from binaryeval import latent_posterior
        >>> post = latent_posterior([[[40, 10], [5, 45]]], metric=[[300, 700]], draws=300, seed=1)
        >>> post.pi_draws().shape
        (4, 300, 2)
        """
        return self.draws.pi[:, :, self._index(group)]

    def theta_mean(self, group: str | None = None) -> pd.DataFrame:
        """Posterior mean of ``Theta`` (rows: human classes, columns: metric outputs).

        Parameters
        ----------
        group : str, optional
            The group (ignored for pooled or known rates, which every group shares).

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> from binaryeval import latent_posterior
        >>> post = latent_posterior([[[40, 10], [5, 45]]], metric=[[300, 700]], draws=300, seed=1)
        >>> post.theta_mean().round(1).to_numpy().tolist()
        [[0.7, 0.3], [0.1, 0.9]]
        """
        shared = (self.draws.theta is not None and self.draws.theta.shape[2] == 1) or (
            self.draws.theta is None and self.known is not None and self.known.shape[0] == 1)
        i = 0 if shared and group is None else self._index(group)
        if self.draws.theta is None:
            known = self.known if self.known is not None else np.full((1,), np.nan)
            mat = known[i if known.shape[0] > 1 else 0]
        else:
            th = self.draws.theta
            mat = th[:, :, i if th.shape[2] > 1 else 0].astype(float).mean(axis=(0, 1))
        return pd.DataFrame(mat, index=pd.Index(self.classes, name="human"),
                            columns=pd.Index(self.outputs, name="metric"))

    def _index(self, group: str | None) -> int:
        if group is None:
            if len(self.groups) != 1:
                raise ParameterError(f"name a group: one of {list(self.groups)[:10]}")
            return 0
        if str(group) not in self.groups:
            raise ParameterError(f"group {group!r} is not in the posterior; groups are "
                                 f"{list(self.groups)[:10]}")
        return self.groups.index(str(group))

    def population(self, level: float | None = None) -> pd.DataFrame:
        """The population level of ``rates="hierarchical"``: each row's mean and concentration.

        One row per (human class, metric output): ``estimate``, ``std_error``, ``lower``,
        ``upper`` of the population mean ``m_k[j]`` (the rate of output ``j`` given class
        ``k`` in a typical group), and the class's concentration ``c_k`` (how alike the groups
        are: a between-group sd of ``sqrt(m (1 - m) / (c_k + 1))``) as ``concentration``
        (posterior median) with ``concentration_lower`` / ``concentration_upper``.

        Parameters
        ----------
        level : float, optional
            Coverage of the equal-tailed intervals (default: the posterior's ``level``).

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> from binaryeval import latent_posterior
        >>> post = latent_posterior([[[40, 10], [5, 45]], [[35, 15], [8, 42]]], draws=400,
        ...                         chains=2, warmup=200, rates="hierarchical", seed=1)
        >>> post.population().shape
        (4, 7)
        """
        mean = getattr(self.draws, "mean", None)
        if mean is None:
            raise ParameterError(f"population() describes the population level of "
                                 f"rates='hierarchical'; this posterior has rates="
                                 f"{self.rates!r}: refit with rates='hierarchical'")
        level = self.level if level is None else v.level(level)
        tail = (1.0 - level) / 2.0
        k, j = mean.shape[2:]
        flat = mean.reshape(-1, k * j)
        conc = self.draws.concentration.reshape(-1, k)  # type: ignore[attr-defined]
        c_lo, c_mid, c_hi = np.quantile(conc, [tail, 0.5, 1.0 - tail], axis=0)
        lo, hi = np.quantile(flat, [tail, 1.0 - tail], axis=0)
        out = pd.DataFrame({"estimate": flat.mean(axis=0), "std_error": flat.std(axis=0, ddof=1),
                            "lower": lo, "upper": hi,
                            "concentration": np.repeat(c_mid, j),
                            "concentration_lower": np.repeat(c_lo, j),
                            "concentration_upper": np.repeat(c_hi, j)},
                           index=pd.MultiIndex.from_product([self.classes, self.outputs],
                                                            names=["class", "metric_output"]))
        out.attrs.update(level=level, kind="eti", method=self.method)
        return out

    # -- tables ---------------------------------------------------------------------------------
    def _flat_draws(self) -> np.ndarray:
        c, d, g, k = self.draws.pi.shape
        return self.draws.pi.reshape(c, d, g * k)

    def _index_frame(self) -> pd.MultiIndex:
        return pd.MultiIndex.from_product([self.groups, self.classes], names=["group", "class"])

    def interval(self, level: float | None = None, kind: str = "eti") -> pd.DataFrame:
        """Credible intervals of every class share: columns ``lower``, ``upper``.

        Parameters
        ----------
        level : float, optional
            Coverage (default: the posterior's ``level``).
        kind : {"eti", "hdi"}
            Equal-tailed or highest-density (shortest) interval of the draws.

        Returns
        -------
        DataFrame
            Indexed by (group, class); ``attrs`` hold ``level`` and ``kind``.

        Examples
        --------
        >>> from binaryeval import latent_posterior
        >>> post = latent_posterior([[[40, 10], [5, 45]]], metric=[[300, 700]], draws=300, seed=1)
        >>> post.interval(0.9).shape
        (2, 2)
        """
        level = self.level if level is None else level
        return _common.interval_frame(self._flat_draws(), level, kind, self._index_frame())

    def to_frame(self) -> pd.DataFrame:
        """One row per (group, class): the posterior of the class share.

        Columns ``group``, ``class``, ``estimate`` (posterior mean), ``std_error`` (posterior
        sd), ``lower``/``upper`` (equal-tailed interval at ``level``), ``rhat``, ``ess_bulk``,
        ``ess_tail`` (Vehtari et al. 2021).

        Examples
        --------
        >>> from binaryeval import latent_posterior
        >>> post = latent_posterior([[[40, 10], [5, 45]]], metric=[[300, 700]], draws=300, seed=1)
        >>> list(post.to_frame().columns)[:4]
        ['group', 'class', 'estimate', 'std_error']
        """
        s = _common.summarise(self._flat_draws(), self.level)
        idx = self._index_frame()
        out = pd.DataFrame({"group": idx.get_level_values(0), "class": idx.get_level_values(1),
                            **s})
        out.attrs.update(level=self.level, kind="eti", method=self.method)
        return out

    @property
    def method(self) -> str:
        """How the draws were made."""
        if self.rates == "hierarchical":
            return (f"MCMC ({self.n_chains} chains x {self.n_draws} draws after {self.warmup} "
                    "warm-up; Hamiltonian Monte Carlo over the groups' rates and their "
                    "population's mean and concentration)")
        if self.rates == "estimate" and self.dependence == "joint":
            moves = ("Hamiltonian Monte Carlo in the shares of the metric's outputs and the "
                     "class shares given each output, with an independence t proposal")
        elif self.rates == "estimate":
            moves = ("data augmentation, Metropolis-within-Gibbs moves of the metrics' rows and "
                     "Hamiltonian Monte Carlo")
        elif self.rates == "pooled":
            moves = "data augmentation and Hamiltonian Monte Carlo of every group's shares"
        else:
            moves = "Hamiltonian Monte Carlo of every group's shares"
        if not self.paired_informs_pi:
            moves += "; Metropolis-within-Gibbs moves of two classes' split"
        return (f"MCMC ({self.n_chains} chains x {self.n_draws} draws after {self.warmup} "
                f"warm-up; {moves})")

    def summary(self) -> Summary:
        """Counts, priors, sampler settings and the table of class shares.

        Examples
        --------
        >>> from binaryeval import latent_posterior
        >>> post = latent_posterior([[[40, 10], [5, 45]]], metric=[[300, 700]], draws=300, seed=1)
        >>> print(post.summary().title)
        Latent-truth model: class shares per group
        """
        table = self.to_frame().set_index(["group", "class"])
        pct = f"{100 * self.level:g}%"
        info = {"groups": len(self.groups), "human classes": ", ".join(self.classes),
                "metric outputs": len(self.outputs),
                "paired / human-only / metric-only items": (
                    f"{int(self.paired.sum())} / {int(self.human.sum())} / "
                    f"{int(self.metric.sum())}"),
                "rates": _rates_text(self.rates, self.dependence),
                "paired items inform pi": self.paired_informs_pi,
                "interval": f"{pct} equal-tailed credible interval",
                "sampler": self.method, "seed": self.seed}
        table.index = [f"{g}: {c}" for g, c in table.index]
        table[["ess_bulk", "ess_tail"]] = table[["ess_bulk", "ess_tail"]].round().astype("Int64")
        return Summary("Latent-truth model: class shares per group", info, [("", table)])

    def _repr_fields(self) -> dict[str, Any]:
        return {"groups": len(self.groups), "classes": len(self.classes),
                "outputs": len(self.outputs), "chains": self.n_chains, "draws": self.n_draws,
                "rates": self.rates}

    def plot(self, ax: Axes | None = None, *, kind: str = "interval", group: str | None = None,
             **kwargs: Any) -> Axes:
        """Draw the class shares or the chains.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure when None.
        kind : {"interval", "trace"}
            ``"interval"``: posterior means and intervals of every class share per group;
            ``"trace"``: the chains of one group's class shares (to see mixing).
        group : str, optional
            The group for ``kind="trace"`` (default: the first).
        **kwargs
            Passed to matplotlib.

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> from binaryeval import latent_posterior
        >>> post = latent_posterior([[[40, 10], [5, 45]]], metric=[[300, 700]], draws=300, seed=1)
        >>> ax = post.plot(kind="trace")
        """
        import matplotlib.pyplot as plt

        kind = v.choice(kind, "kind", ("interval", "trace"))
        if ax is None:
            _, ax = plt.subplots(figsize=(7, 3.5))
        if kind == "trace":
            x = self.draws.pi[:, :, self._index(group if group is not None or len(self.groups)
                                                 == 1 else self.groups[0])]
            for k, name in enumerate(self.classes):
                for c in range(x.shape[0]):
                    ax.plot(x[c, :, k], lw=0.5, color=f"C{k}", alpha=0.7,
                            label=name if c == 0 else None, **kwargs)
            ax.set_xlabel("draw")
            ax.set_ylabel("class share")
            ax.legend(fontsize=8)
            return ax
        frame = self.to_frame()
        y = np.arange(len(frame))
        ax.errorbar(frame["estimate"], y, xerr=[frame["estimate"] - frame["lower"],
                                                frame["upper"] - frame["estimate"]],
                    fmt="o", capsize=3, **kwargs)
        ax.set_yticks(y, [f"{g}: {c}" for g, c in zip(frame["group"], frame["class"],
                                                        strict=True)])
        ax.set_xlabel(f"class share ({self.level:.0%} interval)")
        return ax


#: how ``rates="hierarchical"`` reads in summaries
HIERARCHICAL_TEXT = ("per group, partially pooled (each row drawn from a population Dirichlet "
                     "with learnt mean and concentration)")


def _rates_text(rates: str, dependence: str) -> str:
    base = {"estimate": "estimated per group", "pooled": "estimated once from all groups",
            "hierarchical": HIERARCHICAL_TEXT, "known": "known"}[rates]
    return base + ("" if dependence == "joint" else
                   " (metrics conditionally independent given the truth)")


@v.renamed(prior="share_concentration", rate_prior="rate_concentration")
def latent_posterior(paired: ArrayLike, human: ArrayLike | None = None,
                     metric: ArrayLike | None = None, *,
                     groups: Sequence[str] | None = None, classes: Sequence[str] | None = None,
                     outputs: Sequence[str] | None = None, levels: Sequence[int] | None = None,
                     dependence: str = "joint", rates: str | Mapping = "estimate",
                     share_concentration: float | ArrayLike = 1.0,
                     rate_concentration: float | ArrayLike = 1.0,
                     paired_informs_pi: bool = True, level: float = 0.95,
                     draws: int = 1000, chains: int = 4, warmup: int | None = None,
                     seed: int | np.random.SeedSequence | np.random.Generator | None = None) -> LatentPosterior:
    """Posterior of the class shares from counts (the engine behind the data-frame faces).

    Parameters
    ----------
    paired : array-like, shape (groups, K, J) or (K, J)
        Paired counts ``N[c, j]``: items with human class ``c`` and metric output ``j``.
    human : array-like, shape (groups, K) or (K,), optional
        Human-only counts (no metric output).
    metric : array-like, shape (groups, J) or (J,), optional
        Metric-only counts (no human rating).
    groups, classes, outputs : sequence of str, optional
        Names of the groups, of the ``K`` human classes and of the ``J`` metric outputs.
    levels : sequence of int, optional
        Levels of each metric when the ``J`` outputs are the joint patterns of several metrics
        (row-major, the last metric varying fastest); ``prod(levels) == J``.
    dependence : {"joint", "independent"}
        ``"joint"``: one unrestricted ``Theta`` over the patterns; ``"independent"``: the product
        of one confusion matrix per metric (needs ``levels``).
    rates : "estimate", "pooled", "hierarchical" or array-like
        ``Theta`` per group, one for all groups, per group partially pooled (each row drawn
        from a population Dirichlet with learnt mean and concentration, see
        :mod:`binaryeval.latent.hierarchical`), or known: a K x J matrix (or one per group,
        shape (groups, K, J), or a mapping group -> matrix).
    share_concentration : float or array-like of shape (K,)
        Dirichlet concentration of the class shares ``pi`` (their prior; 1: uniform).
    rate_concentration : float or array-like
        Dirichlet concentration of each row of ``Theta`` (its prior): shape (K, J), or for
        ``dependence="independent"`` a number (every cell of every metric's matrix).
    paired_informs_pi : bool
        Whether the paired items' human ratings count for ``pi`` (True in the model; False
        when the paired items are a separate calibration sample).
    level : float
        Coverage of the reported intervals.
    draws, chains, warmup : int
        Draws kept per chain, number of chains, warm-up iterations (default ``max(100,
        draws // 4)``).
    seed : int, SeedSequence or Generator, optional
        Seed; each chain gets its own stream spawned from it.  The same seed gives the same
        draws on one machine; on another CPU numpy and BLAS may round the last bit of some
        sums and exponentials differently, and the chains then differ by Monte Carlo error.
        None (or a Generator) draws fresh entropy, and the posterior's ``seed`` is that
        number: ``seed=`` of it gives the same draws.

    Returns
    -------
    LatentPosterior

    Warns
    -----
    ConvergenceWarning
        When a class share has R-hat above 1.01 or a bulk or tail ESS below 400.

    Examples
    --------
    A binary metric (K = J = 2) on 100 paired and 1,000 metric-only items:

    >>> from binaryeval import latent_posterior
    >>> post = latent_posterior([[40, 10], [5, 45]], metric=[300, 700], draws=500, seed=3)
    >>> frame = post.to_frame()
    >>> round(float(frame["estimate"].iloc[1]), 2)  # the exact engine: 0.5947
    0.6
    """
    paired_arr = np.asarray(paired)
    if paired_arr.ndim == 2:
        paired_arr = paired_arr[None]
        human = None if human is None else np.asarray(human)[None]
        metric = None if metric is None else np.asarray(metric)[None]
    if paired_arr.ndim != 3:
        raise ParameterError(f"paired must have shape (groups, K, J) or (K, J), got "
                             f"{paired_arr.shape}")
    g, k, j = paired_arr.shape
    human = np.zeros((g, k)) if human is None else human
    metric = np.zeros((g, j)) if metric is None else metric
    paired_arr, human_arr, metric_arr = check_counts(paired_arr, human, metric)
    names = _names(groups, g, "groups", [f"group {i + 1}" for i in range(g)])
    class_names = _names(classes, k, "classes", [str(i) for i in range(k)])
    output_names = _names(outputs, j, "outputs", [str(i) for i in range(j)])
    model = build_model(paired_arr, human_arr, metric_arr, names, class_names, output_names,
                        levels=levels, dependence=dependence, rates=rates,
                        share_concentration=share_concentration,
                        rate_concentration=rate_concentration,
                        paired_informs_pi=paired_informs_pi)
    level = v.level(level)
    draws, chains, warmup, seed_used = _common.sampler_options(draws, chains, warmup, seed,
                                                                rates=rates)
    out = _common.run(model, draws, chains, warmup, seed_used)
    post = LatentPosterior(names, class_names, output_names, paired_arr, human_arr, metric_arr,
                           out, level=level, share_concentration=model.prior[0],
                           rate_concentration=model.rate_prior,
                           rates=model.rates, known=model.known, dependence=model.dependence,
                           levels=model.levels, paired_informs_pi=model.paired_informs_pi,
                           seed=_common.reported_seed(seed, seed_used), warmup=warmup)
    frame = post.to_frame()
    _common.warn_convergence(frame, "the class share",
                             [f"{a}: class {b}" for a, b in zip(frame["group"], frame["class"],
                                                                strict=True)],
                             draws, chains)
    return post


def _names(values: Sequence[str] | None, n: int, name: str, default: list[str]) -> tuple[str, ...]:
    if values is None:
        return tuple(default)
    out = tuple(str(x) for x in values)
    if len(out) != n:
        raise ParameterError(f"{name} has {len(out)} names for {n} entries")
    if len(set(out)) != n:
        raise ParameterError(f"{name} has repeated names: {list(out)}")
    return out


def build_model(paired: np.ndarray, human: np.ndarray, metric: np.ndarray,
                groups: Sequence[str], classes: Sequence[str], outputs: Sequence[str], *,
                levels: Sequence[int] | None, dependence: str, rates: Any,
                share_concentration: Any, rate_concentration: Any,
                paired_informs_pi: bool) -> Model:
    """Check the options and assemble the engine's :class:`~binaryeval.latent.engine.Model`."""
    g, k, j = paired.shape
    dependence = v.choice(dependence, "dependence", ("joint", "independent"))
    lv = (j,) if levels is None else tuple(v.size(x, "levels", minimum=2) for x in levels)
    if int(np.prod(lv)) != j:
        raise ParameterError(f"levels={list(lv)} multiply to {int(np.prod(lv))}, but there are "
                             f"J={j} metric outputs")
    if dependence == "independent" and len(lv) < 2:
        raise ParameterError("dependence='independent' needs several metrics (levels= with "
                             "one entry per metric)")
    mode = _common.rates_mode(rates)
    if mode == "hierarchical":
        if dependence == "independent":
            raise ParameterError("rates='hierarchical' draws each row of every group's joint "
                                 "confusion matrix from a population Dirichlet; it has no "
                                 "product form: use dependence='joint' (the default)")
        if not (np.ndim(rate_concentration) == 0 and not isinstance(rate_concentration, tuple)
                and float(rate_concentration) == 1.0):
            raise ParameterError(f"rate_concentration={rate_concentration!r} is the Dirichlet "
                                 "prior of each group's confusion matrix; with "
                                 "rates='hierarchical' the rows are drawn from a population "
                                 "Dirichlet whose mean and concentration are learnt: leave "
                                 "rate_concentration out, or use rates='estimate'")
    if mode == "known" and (isinstance(rate_concentration, _common.BetaRatePrior)
                            or not (np.ndim(rate_concentration) == 0
                                    and float(rate_concentration) == 1.0)):
        name = ("rate_prior" if isinstance(rate_concentration, _common.BetaRatePrior)
                else "rate_concentration")
        shown = tuple(rate_concentration) if name == "rate_prior" else rate_concentration
        raise ParameterError(f"{name}={shown!r} is the prior of the latent-truth model's "
                             "confusion matrices where they are estimated; with known rates= "
                             f"nothing is estimated, so it would change nothing: leave {name}= "
                             "out, or use rates='estimate'")
    known = _common.known_rates(rates, groups, k, j, classes, outputs) if mode == "known" \
        else None
    if known is not None:
        _common.possible_under_known(np.asarray(metric), known, groups, outputs)
    pri = _common.concentration(share_concentration, "share_concentration", (k,),
                                what="one per human class")
    if dependence == "joint":
        rp: Any = _common.concentration(rate_concentration, "rate_concentration", (k, j),
                                        what="rows: human classes, columns: metric outputs")
    elif isinstance(rate_concentration, _common.BetaRatePrior):
        rp = [rate_concentration.matrix((k, lvl)) for lvl in lv]
    else:
        if np.ndim(rate_concentration) != 0:
            raise ParameterError("with dependence='independent' give rate_concentration as one "
                                 "number (the concentration of every cell of every metric's "
                                 "matrix)")
        val = float(_common.concentration(rate_concentration, "rate_concentration", (),
                                          what="one number"))
        rp = [np.full((k, lvl), val) for lvl in lv]
    return Model(paired, human, metric, np.broadcast_to(pri, (g, k)).copy(), rp, lv,
                 dependence=dependence, rates=mode, known=known,
                 paired_informs_pi=v.flag(paired_informs_pi, "paired_informs_pi"))
