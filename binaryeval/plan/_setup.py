"""What every planning function shares: the model, the options and their checks.

A planning call is checked once, into a :class:`Setup` (the model ``alpha``, ``rho``, ``eta`` and
the options that apply to every cell); the cells of a table or a search then carry only their sizes.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from scipy import special

from .. import _validate as check
from ..errors import InputTypeError, ParameterError

PAPER_N_HUMAN = (0, 100, 250, 500, 1000, 2500, 5000, 10000)
PAPER_N_METRIC = (0, 1000, 2500, 5000, 10000, 50000, 100000)
DEFAULT_GRID = (2000, 1000, 1000)

SIMULATE = ("expected", "sample")
ROUNDING = ("half_up", "half_even")
METHODS = ("exact", "grid")

#: What a call that leaves out the model is told.
MODEL_HINT = ("pass alpha= (the share of adequate outputs), rho= (the metric's true-positive "
              "rate) and, when it differs from rho, eta= (its true-negative rate; default rho), "
              "e.g. alpha=0.6, rho=0.8; from a fit, read them off fit.to_frame(), columns "
              "'estimate', 'rho' and 'eta'")

F = TypeVar("F", bound=Callable[..., Any])


def requires_model(func: F) -> F:
    """Decorator: a call without ``alpha`` or ``rho`` raises an error saying what to pass.

    The model's parameters have no defaults (a plan for a made-up metric is a wrong plan), so
    leaving them out is the caller's most likely slip; the error names them and where they come
    from instead of Python's bare "missing argument".
    """
    params = list(inspect.signature(func).parameters.values())
    where = {p.name: (i if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) else None)
             for i, p in enumerate(params) if p.name in ("alpha", "rho")}

    @functools.wraps(func)
    def inner(*args: Any, **kwargs: Any) -> Any:
        missing = [name for name, pos in where.items()
                   if name not in kwargs and (pos is None or pos >= len(args))]
        known = kwargs.get("rates")
        if "rho" in missing and isinstance(known, Mapping) and "rho" in known:
            # known rates {'rho': .., 'eta': ..} are the metric's rates: rho need not be repeated
            kwargs["rho"] = known["rho"]
            missing.remove("rho")
        if missing:
            names = " and ".join(missing)
            raise InputTypeError(f"{func.__name__}() needs the model's {names}: a plan has no "
                                 f"default metric or system; {MODEL_HINT}")
        return func(*args, **kwargs)

    return inner  # type: ignore[return-value]


def model(alpha: Any, rho: Any, eta: Any) -> tuple[float, float, float]:
    """The checked model: ``alpha``, ``rho`` and ``eta`` (``eta=None`` means ``rho``)."""
    alpha = check.probability(alpha, "alpha")
    rho = check.probability(rho, "rho")
    eta = rho if eta is None else check.probability(eta, "eta")
    if rho + eta <= 1.0:
        raise ParameterError(f"rho + eta must exceed 1 (got rho={rho!r}, eta={eta!r}, sum "
                             f"{rho + eta:.6g}): a metric with rho + eta <= 1 carries no information "
                             f"about alpha (the model is unidentified); swap the metric's labels if "
                             f"it is worse than chance.")
    return alpha, rho, eta


def check_rates(value: Any, rho: Any = None, eta: Any = None) -> tuple[str, Any, Any]:
    """The plan's ``rates`` (the values :func:`binaryeval.fit` takes): mode, rho and eta.

    Returns ``("estimate" | "pooled" | "known", rho, eta)``.  Known rates are the mapping
    ``{'rho': .., 'eta': ..}``; ``rho`` and ``eta`` then default to its values and, when given
    too, must agree with them (in a plan the known rates are the metric's rates).
    """
    example = "{'rho': 0.8, 'eta': 0.8}"
    if rho is not None and not isinstance(rho, (str, bytes)):
        with contextlib.suppress(TypeError, ValueError):
            e = rho if eta is None else eta
            example = f"{{'rho': {float(rho):g}, 'eta': {float(e):g}}}"
    value = check.rates(value, example=example)
    if isinstance(value, str) and value == "hierarchical":
        raise ParameterError("rates='hierarchical': a plan describes one system, whose rates "
                             "partial pooling would draw towards other systems' it does not "
                             "know; plan with rates='estimate' (the rates from the system's own "
                             "paired ratings: a plan that errs towards more ratings), or call "
                             "plan() on a fit with rates='hierarchical'")
    if not isinstance(value, Mapping):
        return value, rho, eta
    if not ({"rho", "eta"} <= set(map(str, value))) or any(v is None for v in value.values()):
        raise ParameterError(f"rates={dict(value)!r}: a plan describes one system, whose rates are "
                             f"known or estimated together: give both, e.g. rates={example}, or "
                             "rates='estimate'")
    out = []
    for name, given in (("rho", rho), ("eta", eta)):
        known = check.probability(value[name], f"known {name}")
        if given is not None and check.probability(given, name) != known:
            raise ParameterError(f"{name}={given!r} and rates={dict(value)!r} differ: in a plan the "
                                 f"known rates are the metric's rates; give them once, as rates=")
        out.append(known)
    return "known", out[0], out[1]


def size(value: Any, name: str) -> int:
    """A number of ratings: a whole number >= 0, at most the engine's largest count."""
    return at_most_engine(check.size(value, name, minimum=0), name)


def at_most_engine(n: int, name: str) -> int:
    """``n`` when the posterior engine takes it (:data:`binaryeval._validate.MAX_COUNT`).

    Above it the engine would refuse a count (``human_pos``, ``metric_pos``) the caller never
    named; the error names the planning argument instead.
    """
    if n > check.MAX_COUNT:
        raise ParameterError(f"{name}={n!r} exceeds the largest number of ratings a plan "
                             f"computes, {check.MAX_COUNT:,} (the posterior engine's limit, up to "
                             f"which its accuracy is checked): give at most {check.MAX_COUNT:,}")
    return n


def sizes(values: Any, name: str) -> list[int]:
    """One size or a sequence of sizes (at least one)."""
    if isinstance(values, (int, float, np.integer, np.floating)) and not isinstance(
            values, (bool, np.bool_)):
        values = [values]
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InputTypeError(f"{name}={values!r}: pass a number of ratings or a sequence of them, "
                             f"e.g. {name}=[100, 1000]")
    out = [size(v, name) for v in values]
    if not out:
        raise ParameterError(f"{name}: an empty sequence; give at least one size, e.g. "
                             f"{name}=[100, 1000]")
    return out


def paired(n_human: int, n_paired: Any, psi: Any) -> tuple[int, float | None]:
    """The paired set: its size (default ``n_human``) and the share of positives ``psi``."""
    n_paired = n_human if n_paired is None else size(n_paired, "n_paired")
    if psi is not None:
        psi = check.probability(psi, "psi")
    elif n_paired > n_human:
        raise ParameterError(
            f"n_paired={n_paired} exceeds n_human={n_human}: such a paired set cannot be a subset "
            f"of the human-rated items, so its share of positives is not implied; give it, e.g. "
            f"psi=0.5 (the value of alpha for a random calibration sample, as the authors' tool "
            f"assumes), or add the paired items to n_human if their human ratings should also "
            f"inform alpha.")
    return n_paired, psi


def simulation(simulate: Any, n_resamples: Any) -> tuple[str, int]:
    """The counts' mode (``"expected"`` or ``"sample"``) and the number of simulated experiments."""
    return (check.choice(simulate, "simulate", SIMULATE),
            check.size(n_resamples, "n_resamples", minimum=1))


#: ``progress=``: None (a bar on a terminal for long sweeps), True or False
progress = check.progress


def _grid(value: Any) -> tuple[int, int, int] | None:
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)) \
            or len(value) != 3:
        raise InputTypeError(f"grid={value!r}: give three grid sizes (N_alpha, N_rho, N_eta), "
                             f"e.g. grid={DEFAULT_GRID}")
    n_alpha, n_rho, n_eta = (check.size(g, "grid", minimum=2) for g in value)
    return n_alpha, n_rho, n_eta


def fit_sig_level(value: Any, level: float) -> float:
    """A plan's ``sig_level`` from a fit: as given (checked), else ``1 - level`` of the fit.

    A fit of narrow intervals (``level < 0.5``) has no significance level to lend: the error
    names the fit's level and asks for ``sig_level=`` rather than blaming an argument the
    caller did not give.
    """
    if value is not None:
        return check.sig_level(value)
    sig = check.sig_level_or(None, level)
    if sig > 0.5:
        raise ParameterError(f"the fit's level={level:g} makes the default sig_level = 1 - level "
                             f"= {sig:g}, above 0.5, which plans for chance differences; give "
                             f"sig_level=, e.g. sig_level=0.05")
    return sig


#: the papers' assumption behind eps's power (ends every plan's power note)
EQUAL_VARIANCE_NOTE = ("; both systems are taken to have this one's posterior variance, so near "
                       "alpha = 0 or 1, where the other system's is wider, the chance is "
                       "lower; variance='both' gives each system its own (in plans of a "
                       "detectable difference, a table of them, an allocation or a sample size)")

#: what a plan with ``variance="both"`` says instead of :data:`EQUAL_VARIANCE_NOTE`
BOTH_VARIANCE_NOTE = ("; each system has its own posterior variance (variance='both'): the other "
                      "system, eps away on the side nearer 0.5, has its own, wider near alpha = 0 "
                      "or 1, so the chance holds there too")

#: how far the promised power held in seeded simulations (studies/binary_plan_power.py), with
#: few paired ratings too (said in every plan's notes, before the variance assumption)
SMALL_PAIRED_NOTE = ("; checked in seeded simulations (binaryeval.plan's docs): eps was found "
                     "0.46-0.52 of the time at power 0.5 and 0.77-0.83 at 0.8 with 20-300 "
                     "paired ratings (a weak metric, rho = eta = 0.7, with 20: 0.46 and 0.77)")

#: what eps means for the chance of finding a difference (said in every plan's notes)
POWER_NOTE = ("eps is the papers' detectable difference: two systems eps apart are told apart at "
              "sig_level half the time (power 0.5); power=0.8 plans for four times in five "
              "(with the same ratings that is a difference (z_{1-sig_level/2} + z_0.8) / "
              "z_{1-sig_level/2} = 1.43 times eps at sig_level 0.05; eps itself then needs about "
              "2.04 times the ratings)" + SMALL_PAIRED_NOTE + EQUAL_VARIANCE_NOTE)


def shown_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A plan's settings as its summary states them.

    Known rates read ``known`` (their values stand in the ``rho`` and ``eta`` lines), not as a
    printed dict.

    Examples
    --------
    >>> from binaryeval.plan._setup import shown_settings
    >>> shown_settings({"rho": 0.8, "eta": 0.8, "rates": {"rho": 0.8, "eta": 0.8}})["rates"]
    'known (rho, eta above)'
    """
    out = dict(settings)
    if isinstance(out.get("rates"), Mapping):
        out["rates"] = ("known (rho, eta above)" if {"rho", "eta"} <= set(out)
                        else "known")
    return out


def z_total(sig_level: float, power: float) -> float:
    """``z_{1 - sig_level/2} + z_power``: the sds a difference must span (``z_0.5 = 0``)."""
    return float(special.ndtri(1.0 - sig_level / 2.0) + special.ndtri(power))


def power_note(power: float, variance: str = "equal") -> str:
    """The plan's notes on its power (:data:`POWER_NOTE` at the papers' 0.5).

    The note says how far the promise held in seeded simulations (:data:`SMALL_PAIRED_NOTE`,
    also with 20-30 paired ratings) and ends with the assumption on the other system's
    posterior variance:
    :data:`EQUAL_VARIANCE_NOTE` (``variance="equal"``, the papers') or
    :data:`BOTH_VARIANCE_NOTE` (``variance="both"``).

    Examples
    --------
    >>> from binaryeval.plan._setup import power_note
    >>> power_note(0.8, "both").endswith("so the chance holds there too")
    True
    """
    tail = BOTH_VARIANCE_NOTE if variance == "both" else EQUAL_VARIANCE_NOTE
    if power == 0.5:
        return POWER_NOTE.replace(EQUAL_VARIANCE_NOTE, tail)
    return (f"planned for power {power:g}: two systems eps apart are told apart at sig_level "
            f"with probability {power:g} (eps spans z_{{1-sig_level/2}} + z_{power:g} sds of "
            "the difference; the papers' eps, power 0.5, spans the first alone)"
            + SMALL_PAIRED_NOTE + tail)


@dataclass(frozen=True)
class Setup:
    """The checked settings of one planning call, shared by all of its cells.

    Parameters
    ----------
    alpha, rho, eta : float
        The model: share of adequate outputs, the metric's true-positive and true-negative rates.
    sig_level : float
        Significance level of the comparison.
    rates : {"estimate", "known"}
        Whether the rates are estimated from the paired counts or known (the engine's mode; the
        caller's ``rates`` is :attr:`rates_value`).
    pooled : bool
        ``rates="pooled"``: the paired set is shared by the systems, so it may be larger than
        one system's human sample; its share of positives ``psi`` defaults to ``alpha``.
    rounding : {"half_up", "half_even"}
        Rounding of expected counts.
    method : {"exact", "grid"}
        Posterior engine.
    prior, rate_prior : (float, float)
        Beta priors of alpha and of each rate.
    grid : (int, int, int) or None
        Grid of ``method="grid"``.
    """

    alpha: float
    rho: float
    eta: float
    sig_level: float = 0.05
    rates: str = "estimate"
    pooled: bool = False
    rounding: str = "half_up"
    method: str = "exact"
    prior: tuple[float, float] = (1.0, 1.0)
    rate_prior: tuple[float, float] = (1.0, 1.0)
    grid: tuple[int, int, int] | None = None
    power: float = 0.5

    @classmethod
    def check(cls, alpha: Any, rho: Any, eta: Any, *, sig_level: Any = 0.05,
              rates: Any = "estimate", rounding: Any = "half_up", method: Any = "exact",
              prior: Any = (1, 1), rate_prior: Any = (1, 1), grid: Any = None,
              power: Any = 0.5) -> Setup:
        """Check every argument once and return the settings."""
        mode, rho, eta = check_rates(rates, rho, eta)
        alpha, rho, eta = model(alpha, rho, eta)
        return cls(alpha, rho, eta,
                   sig_level=check.sig_level(sig_level),
                   rates="known" if mode == "known" else "estimate", pooled=mode == "pooled",
                   rounding=check.choice(rounding, "rounding", ROUNDING),
                   method=check.choice(method, "method", METHODS),
                   prior=check.beta_pair(prior, "prior"),
                   rate_prior=check.beta_pair(rate_prior, "rate_prior"),
                   grid=_grid(grid), power=check.power(power))

    def epsilon(self, sd: float) -> float:
        """``eps = sqrt(2) sd (z_{1 - sig_level/2} + z_power)`` for a posterior sd ``sd``."""
        return float(math.sqrt(2.0) * sd * z_total(self.sig_level, self.power))

    @property
    def rates_value(self) -> str | dict[str, float]:
        """``rates`` as the caller gives it: ``"estimate"``, ``"pooled"`` or the known values."""
        if self.rates == "known":
            return {"rho": self.rho, "eta": self.eta}
        return "pooled" if self.pooled else "estimate"

    def paired_share(self, psi: Any) -> Any:
        """``psi`` of the paired set: as given, else ``alpha`` for a pooled (shared) set."""
        return self.alpha if psi is None and self.pooled else psi

    def facts(self) -> dict[str, Any]:
        """The settings as a result reports them (``attrs`` of its frames, facts of its summary).

        The priors are stated when they are not the uniform default, the grid when
        ``method="grid"``: the same sizes with other priors or another grid give other numbers.
        """
        out = dict(alpha=self.alpha, rho=self.rho, eta=self.eta, sig_level=self.sig_level,
                   power=self.power, rates=self.rates_value, rounding=self.rounding,
                   method=self.method)
        for name, value in (("prior", self.prior), ("rate_prior", self.rate_prior)):
            if tuple(value) != (1.0, 1.0):
                out[name] = tuple(value)
        if self.method == "grid":
            out["grid"] = DEFAULT_GRID if self.grid is None else self.grid
        return out


def plan_pairs(pairs: Any, order: Sequence[str], *, orient: Sequence[str] | None = None
               ) -> list[tuple[str, str]]:
    """The pairs of groups a plan of a fit covers: a word, or the caller's own list.

    ``pairs``: ``"neighbours"`` (neighbouring groups in ``order``), ``"all"`` (every pair, row
    by row in ``order``) or a sequence of ``(group_1, group_2)``, kept in the order given.  A
    listed pair is put in the orientation of ``orient`` (default ``order``: the fit's order,
    the group ranked higher first), as the words' pairs are; groups are matched by their text.
    A group the fit lacks, a pair of one group, a pair listed twice (in either order) and an
    empty list are refused, naming the entry.

    Examples
    --------
    >>> from binaryeval.plan._setup import plan_pairs
    >>> plan_pairs("neighbours", ["A", "B", "C"])
    [('A', 'B'), ('B', 'C')]
    >>> plan_pairs([("C", "A")], ["A", "B", "C"])
    [('A', 'C')]
    """
    order = [str(g) for g in order]
    if isinstance(pairs, str):
        check.choice(pairs, "pairs", ("neighbours", "all"))
        if pairs == "neighbours":
            return list(zip(order[:-1], order[1:], strict=True))
        return [(a, b) for i, a in enumerate(order) for b in order[i + 1:]]
    if not isinstance(pairs, Iterable) or isinstance(pairs, Mapping):
        raise ParameterError(f"pairs={pairs!r}: give 'neighbours', 'all' or a list of "
                             "(group_1, group_2), e.g. pairs=[('A', 'B')]")
    rank = {g: i for i, g in enumerate(str(g) for g in (orient or order))}
    out: list[tuple[str, str]] = []
    seen: dict[frozenset, tuple] = {}
    for entry in pairs:
        if isinstance(entry, str) or not isinstance(entry, Sequence) or len(entry) != 2:
            raise ParameterError(f"each entry of pairs= must be (group_1, group_2), got "
                                 f"{entry!r}")
        a, b = (str(g) for g in entry)
        for name, given in ((a, entry[0]), (b, entry[1])):
            if name not in rank:
                raise ParameterError(f"group {given!r} in pairs= is not a group of the fit; its "
                                     f"groups: {list(rank)}")
        if a == b:
            raise ParameterError(f"pair {tuple(entry)!r} compares a group with itself; give "
                                 "two different groups")
        key = frozenset((a, b))
        if key in seen:
            raise ParameterError(f"pairs= lists the pair {seen[key]!r} twice (again as "
                                 f"{tuple(entry)!r}); give each pair once, in either order")
        seen[key] = tuple(entry)
        out.append((a, b) if rank[a] < rank[b] else (b, a))
    if not out:
        raise ParameterError("pairs= is empty; give 'neighbours', 'all' or at least one "
                             "(group_1, group_2)")
    return out
