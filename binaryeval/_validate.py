"""Argument checks shared by every module: one wording per kind of mistake.

Each check takes the value and the argument's name, returns the value in canonical form, and
raises the package's own error (:class:`~binaryeval.errors.InputTypeError` for a wrong type,
:class:`~binaryeval.errors.ParameterError` for a value out of range, :class:`CountsError` for
counts) naming the argument, the value and the fix.

The vocabulary
--------------
One name per concept across the package: the list is :mod:`binaryeval._vocabulary` (shown in
``vignettes/vocabulary.qmd``).  Earlier spellings are not silent aliases: :func:`renamed` turns
them into an error that names the new spelling.  ``RENAMED`` lists them.
"""

from __future__ import annotations

import functools
import math
import numbers
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from . import _vocabulary
from .errors import CountsError, DataError, InputTypeError, ParameterError

__all__ = [
    "ADJUSTMENTS",
    "MAX_COUNT",
    "RATES",
    "RENAMED",
    "adjust",
    "beta_pair",
    "choice",
    "count",
    "flag",
    "level",
    "n_jobs",
    "probability",
    "rates",
    "rates_mode",
    "sig_level_or",
    "real",
    "refused",
    "renamed",
    "require_pandas",
    "seed",
    "size",
    "unique_columns",
    "available_memory",
    "memory",
]

#: The largest count the exact engine accepts for one group (10^10 ratings): its accuracy is
#: checked up to there (benchmarks/bench_accuracy.py); at 10^12 double precision no longer
#: resolves the binomial kernels of the posterior's components.
MAX_COUNT = 10**10

#: Argument names that an earlier version used, and the name that replaced each (from the
#: vocabulary, :mod:`binaryeval._vocabulary`).
RENAMED: dict[str, str] = _vocabulary.renamed("argument")

F = TypeVar("F", bound=Callable[..., Any])


def renamed(**old_to_new: str) -> Callable[[F], F]:
    """Decorator: calling with an old argument name raises an error naming the new one.

    Parameters
    ----------
    **old_to_new : str
        ``old_name="new_name"`` pairs.

    Examples
    --------
    >>> from binaryeval._validate import renamed
    >>> @renamed(confidence="level")
    ... def interval(level=0.95):
    ...     return level
    >>> interval(confidence=0.9)
    Traceback (most recent call last):
    ...
    binaryeval.errors.InputTypeError: interval() got the argument 'confidence', which is now 'level'; call interval(level=0.9)
    """

    def wrap(func: F) -> F:
        @functools.wraps(func)
        def inner(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_to_new.items():
                if old in kwargs:
                    value = kwargs[old]
                    hint = _rename_hint(new, value)
                    raise InputTypeError(f"{func.__name__}() got the argument {old!r}, which is "
                                         f"now {new!r}; call {func.__name__}({hint})")
            return func(*args, **kwargs)

        return inner  # type: ignore[return-value]

    return wrap


def refused(**fixes: str) -> Callable[[F], F]:
    """Decorator: an argument a function no longer takes raises an error saying what to do.

    Parameters
    ----------
    **fixes : str
        ``old_name="what to do instead"`` pairs.

    Examples
    --------
    >>> from binaryeval._validate import refused
    >>> @refused(lower_is_better="negate the scores: f(-x)")
    ... def f(x):
    ...     return x
    >>> f(1, lower_is_better=True)
    Traceback (most recent call last):
    ...
    binaryeval.errors.InputTypeError: f() takes no argument 'lower_is_better': negate the scores: f(-x)
    """

    def wrap(func: F) -> F:
        @functools.wraps(func)
        def inner(*args: Any, **kwargs: Any) -> Any:
            for old, fix in fixes.items():
                if old in kwargs:
                    raise InputTypeError(f"{func.__name__}() takes no argument {old!r}: {fix}")
            return func(*args, **kwargs)

        return inner  # type: ignore[return-value]

    return wrap


def _rename_hint(new: str, value: Any) -> str:
    if new == "sig_level" and isinstance(value, float):
        return f"sig_level={value!r}"
    if new == "lower_is_better":
        return "lower_is_better=[...the terms where lower scores are better...]"
    return f"{new}={value!r}"


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def real(value: Any, name: str, *, finite: bool = True) -> float:
    """A real number (not a bool or a string); finite unless ``finite=False``.

    Examples
    --------
    >>> from binaryeval._validate import real
    >>> real(2, "scale")
    2.0
    >>> real("2", "scale")
    Traceback (most recent call last):
    ...
    binaryeval.errors.InputTypeError: scale='2' is a str; pass a number, e.g. scale=0.5
    """
    if not _is_number(value):
        raise InputTypeError(f"{name}={value!r} is a {type(value).__name__}; pass a number, "
                             f"e.g. {name}=0.5")
    v = float(value)
    if finite and not math.isfinite(v):
        raise ParameterError(f"{name}={value!r}: must be a finite number")
    return v


def level(value: Any, name: str = "level") -> float:
    """Coverage of an interval: a number strictly between 0 and 1.

    Examples
    --------
    >>> from binaryeval._validate import level
    >>> level(0.9)
    0.9
    >>> level(95)
    Traceback (most recent call last):
    ...
    binaryeval.errors.ParameterError: level=95 must lie strictly between 0 and 1; for a 95% interval pass level=0.95
    """
    if not _is_number(value):
        raise InputTypeError(f"{name}={value!r} is a {type(value).__name__}; pass a number, "
                             f"e.g. {name}=0.95")
    v = real(value, name, finite=False)
    if not 0.0 < v < 1.0:
        example = f"; for a {v:g}% interval pass {name}={v / 100:g}" if 50 <= v < 100 else \
            f", e.g. {name}=0.95"
        raise ParameterError(f"{name}={value!r} must lie strictly between 0 and 1{example}")
    return v


def probability(value: Any, name: str, *, open: bool = False) -> float:
    """A probability in [0, 1] (in (0, 1) with ``open=True``).

    Examples
    --------
    >>> from binaryeval._validate import probability
    >>> probability(0.7, "rho")
    0.7
    >>> probability(1.2, "rho")
    Traceback (most recent call last):
    ...
    binaryeval.errors.ParameterError: rho=1.2 is outside [0, 1]; a rate is a probability
    """
    v = real(value, name, finite=False)
    if open and not 0.0 < v < 1.0:
        raise ParameterError(f"{name}={value!r} must lie strictly between 0 and 1, e.g. "
                             f"{name}=0.05")
    if not 0.0 <= v <= 1.0:
        raise ParameterError(f"{name}={value!r} is outside [0, 1]; a rate is a probability")
    return v


def sig_level(value: Any, name: str = "sig_level") -> float:
    """A significance level: in (0, 1) and at most 0.5 (above it, a coverage given by mistake).

    Examples
    --------
    >>> from binaryeval._validate import sig_level
    >>> sig_level(0.05)
    0.05
    >>> sig_level(0.95)
    Traceback (most recent call last):
    ...
    binaryeval.errors.ParameterError: sig_level=0.95 is a significance level, the chance of a false difference (e.g. 0.05); 0.95 looks like the coverage of an interval (level=0.95 elsewhere): give sig_level=0.05
    """
    v = probability(value, name, open=True)
    if v > 0.5:
        raise ParameterError(f"{name}={value!r} is a significance level, the chance of a false "
                             f"difference (e.g. 0.05); {v:g} looks like the coverage of an "
                             f"interval (level={v:g} elsewhere): give {name}={1 - v:.3g}")
    return v


def sig_level_or(value: Any, level: float) -> float:
    """A test's significance threshold: ``value`` checked by :func:`sig_level`, or ``1 - level``.

    The default of the fits' ``compare()`` and ``plan()``: the complement of the fit's interval
    coverage, rounded so that ``level=0.95`` gives ``0.05`` (not ``1 - 0.95``'s
    ``0.050000000000000044``).

    Examples
    --------
    >>> from binaryeval._validate import sig_level_or
    >>> sig_level_or(None, 0.95), sig_level_or(0.01, 0.95)
    (0.05, 0.01)
    """
    if value is None:
        return round(1.0 - float(level), 12)
    return sig_level(value)


#: the multiple-testing adjustments of statsmodels' ``multipletests`` (its short aliases work too)
ADJUSTMENTS = ("bonferroni", "sidak", "holm-sidak", "holm", "simes-hochberg", "hommel", "fdr_bh",
               "fdr_by", "fdr_tsbh", "fdr_tsbky", "fdr_gbs")


def adjust(value: Any, name: str = "adjust") -> str | None:
    """A multiple-testing adjustment: None or a method of statsmodels' ``multipletests``.

    Examples
    --------
    >>> from binaryeval._validate import adjust
    >>> adjust("holm"), adjust(None)
    ('holm', None)
    >>> adjust("holms")
    Traceback (most recent call last):
    ...
    binaryeval.errors.ParameterError: adjust='holms': use None or one of 'bonferroni', 'sidak', 'holm-sidak', 'holm', 'simes-hochberg', 'hommel', 'fdr_bh', 'fdr_by', 'fdr_tsbh', 'fdr_tsbky', 'fdr_gbs'
    >>> adjust("BH")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    binaryeval.errors.ParameterError: adjust='BH': use None or one of ... (R's p.adjust method 'BH' is adjust='fdr_bh' here)
    """
    if value is None:
        return None
    ok = isinstance(value, str)
    if ok and value not in ADJUSTMENTS:
        from statsmodels.stats.multitest import multipletests

        try:  # one of multipletests' short aliases ("b", "fdr_i", ...)
            multipletests(np.array([0.5]), method=value)
        except (ValueError, TypeError):
            ok = False
    if not ok:
        listed = ", ".join(repr(a) for a in ADJUSTMENTS)
        known = _R_ADJUSTMENTS.get(value) if isinstance(value, str) else None
        said = (f" (R's p.adjust method {value!r} is {name}={known!r} here)" if known else "")
        raise ParameterError(f"{name}={value!r}: use None or one of {listed}{said}")
    return value


#: R's ``p.adjust`` methods under statsmodels' names (R's "holm", "hommel" and "bonferroni"
#: are spelt alike)
_R_ADJUSTMENTS = {"BH": "fdr_bh", "fdr": "fdr_bh", "BY": "fdr_by", "hochberg": "simes-hochberg"}


def power(value: Any, name: str = "power") -> float:
    """A planned power: the chance of finding the difference, in [0.5, 1).

    Examples
    --------
    >>> from binaryeval._validate import power
    >>> power(0.8)
    0.8
    >>> power(0.2)
    Traceback (most recent call last):
    ...
    binaryeval.errors.ParameterError: power=0.2 must lie in [0.5, 1): the chance of telling the two systems apart (0.5: the papers' detectable difference; 0.8 usual)
    """
    v = real(value, name)
    if not 0.5 <= v < 1.0:
        raise ParameterError(f"{name}={value!r} must lie in [0.5, 1): the chance of telling the "
                             "two systems apart (0.5: the papers' detectable difference; 0.8 "
                             "usual)")
    return v


def possible_under_known_rates(metric_pos: int, metric_total: int, rho: float | None,
                               eta: float | None) -> None:
    """Refuse metric-only counts that known rates make impossible.

    With ``rho = 1`` and ``eta = 0`` the metric accepts every output whatever ``alpha`` is, and
    with ``rho = 0`` and ``eta = 1`` it rejects every one: a rejection (an acceptance) then has
    probability 0 and there is no posterior.

    Examples
    --------
    >>> from binaryeval._validate import possible_under_known_rates
    >>> possible_under_known_rates(10, 10, 1.0, 0.0)   # all accepted: possible
    >>> possible_under_known_rates(3, 10, 1.0, 0.0)
    Traceback (most recent call last):
    ...
    binaryeval.errors.CountsError: metric_pos=3 of metric_total=10, but the known rates rho=1, eta=0 make the metric accept every output: the data have probability 0 under them. Check the known rates, or estimate them from paired rows (rates='estimate').
    """
    if rho is None or eta is None or rho + eta != 1.0 or rho not in (0.0, 1.0):
        return
    accepts = rho == 1.0
    if (metric_pos < metric_total) if accepts else (metric_pos > 0):
        raise CountsError(
            f"metric_pos={metric_pos} of metric_total={metric_total}, but the known rates "
            f"rho={rho:g}, eta={eta:g} make the metric {'accept' if accepts else 'reject'} every "
            "output: the data have probability 0 under them. Check the known rates, or "
            "estimate them from paired rows (rates='estimate').")


def known_rows_p_values(counts: np.ndarray, known: np.ndarray) -> np.ndarray:
    """p-values of observed counts against known probabilities, one test per row.

    ``counts``, ``known``: (N, J).  A count in a cell of probability 0 gives ``p = 0``; with
    two cells an exact binomial test (twice the smaller tail, at most 1), with more the
    likelihood-ratio (G) test against the chi-square distribution.  Rows without counts get
    ``p = 1``.  The one test of known rates (or a known confusion matrix) against paired items.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval._validate import known_rows_p_values
    >>> known_rows_p_values(np.array([[3, 2], [50, 0]]), np.array([[1.0, 0.0], [1.0, 0.0]]))
    array([0., 1.])
    """
    from scipy import stats

    counts = np.asarray(counts, dtype=float)
    known = np.asarray(known, dtype=float)
    n = counts.sum(axis=1)
    p = np.ones(n.size)
    impossible = np.any((known <= 0.0) & (counts > 0), axis=1)
    rest = ~impossible & (n > 0)
    if counts.shape[1] == 2:
        k, m, q = counts[rest, 0], n[rest], known[rest, 0]
        p[rest] = np.minimum(1.0, 2.0 * np.minimum(stats.binom.cdf(k, m, q),
                                                   stats.binom.sf(k - 1.0, m, q)))
    else:
        for i in np.flatnonzero(rest):
            seen = counts[i] > 0
            g = 2.0 * float(np.sum(counts[i, seen]
                                   * np.log(counts[i, seen] / (n[i] * known[i, seen]))))
            p[i] = float(stats.chi2.sf(g, int(np.sum(known[i] > 0)) - 1))
    p[impossible] = 0.0
    return p


def count(value: Any, name: str, *, maximum: int | None = MAX_COUNT) -> int:
    """A count of ratings: a whole number >= 0 (None, NaN and booleans are refused).

    Examples
    --------
    >>> from binaryeval._validate import count
    >>> count(12.0, "tp")
    12
    >>> count(True, "tp")
    Traceback (most recent call last):
    ...
    binaryeval.errors.InputTypeError: tp=True is a bool; counts are whole numbers of ratings, e.g. tp=12
    """
    if not _is_number(value):
        raise InputTypeError(f"{name}={value!r} is a {type(value).__name__}; counts are whole "
                             f"numbers of ratings, e.g. {name}=12")
    v = float(value)
    if not math.isfinite(v) or v < 0 or v != math.floor(v):
        raise CountsError(f"{name}={value!r}: counts must be non-negative whole numbers")
    if maximum is not None and v > maximum:
        raise CountsError(f"{name}={int(v):,} exceeds the largest supported count {maximum:,}; "
                          "the engine's accuracy is checked up to there (beyond, the posterior no "
                          "longer changes with more ratings: fit a random sample of them)")
    return int(value) if isinstance(value, (int, np.integer)) else int(v)


def size(value: Any, name: str, *, minimum: int = 1) -> int:
    """A size or number of repetitions: a whole number >= ``minimum``.

    Examples
    --------
    >>> from binaryeval._validate import size
    >>> size(200, "n_resamples")
    200
    >>> size(0, "n_resamples")
    Traceback (most recent call last):
    ...
    binaryeval.errors.ParameterError: n_resamples=0 must be a whole number >= 1
    """
    if not _is_number(value):
        raise InputTypeError(f"{name}={value!r} is a {type(value).__name__}; pass a whole number, "
                             f"e.g. {name}={max(minimum, 100)}")
    v = float(value)
    if not math.isfinite(v) or v != math.floor(v) or v < minimum:
        raise ParameterError(f"{name}={value!r} must be a whole number >= {minimum}")
    return int(v)


def choice(value: Any, name: str, options: Sequence[str], *,
           renamed_values: Mapping[str, str] | None = None) -> str:
    """One of ``options``; an old spelling in ``renamed_values`` gets an error naming the new one.

    Examples
    --------
    >>> from binaryeval._validate import choice
    >>> choice("eti", "kind", ("eti", "hdi"))
    'eti'
    >>> choice("estimated", "rates", ("estimate", "pooled"), renamed_values={"estimated": "estimate"})
    Traceback (most recent call last):
    ...
    binaryeval.errors.ParameterError: rates='estimated' is now spelled 'estimate'
    """
    if renamed_values and isinstance(value, str) and value in renamed_values:
        raise ParameterError(f"{name}={value!r} is now spelled {renamed_values[value]!r}")
    if not isinstance(value, str) or value not in options:
        listed = ", ".join(repr(o) for o in options)
        raise ParameterError(f"{name}={value!r}: use one of {listed}")
    return value


def beta_pair(value: Any, name: str) -> tuple[float, float]:
    """Parameters ``(a, b)`` of a Beta distribution: two positive finite numbers.

    Examples
    --------
    >>> from binaryeval._validate import beta_pair
    >>> beta_pair((1, 1), "prior")
    (1.0, 1.0)
    >>> beta_pair((0, 1), "prior")
    Traceback (most recent call last):
    ...
    binaryeval.errors.ParameterError: prior=(0, 1): Beta parameters must be positive and finite
    """
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)) \
            or len(value) != 2 or not all(_is_number(v) for v in value):
        raise InputTypeError(f"{name}={value!r}: give a pair (a, b) of positive numbers, "
                             "e.g. (1, 1) for a uniform prior")
    a, b = float(value[0]), float(value[1])
    if not (a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b)):
        raise ParameterError(f"{name}={value!r}: Beta parameters must be positive and finite")
    return a, b


#: The words ``rates`` takes wherever it appears (fit, fit_counts, the latent model, plan, the
#: report, the command line); known rates are given by their values instead of a word.
RATES = ("estimate", "pooled", "hierarchical")


def rates_mode(value: Any, name: str = "rates", *,
               example: str = "{'rho': 0.8, 'eta': 0.8}") -> str:
    """How the metric's rates enter: ``"estimate"``, ``"pooled"``, ``"hierarchical"``, ``"known"``.

    A string must be one of :data:`RATES`; anything else is known values, which the caller
    checks for its model (``{'rho': .., 'eta': ..}`` in the binary model, matrices in the latent
    one).  ``"known"`` is not a word of ``rates``: the error shows the values to give instead.

    Examples
    --------
    >>> from binaryeval._validate import rates_mode
    >>> rates_mode("pooled"), rates_mode({"rho": 0.9, "eta": 0.8})
    ('pooled', 'known')
    >>> rates_mode("known")
    Traceback (most recent call last):
    ...
    binaryeval.errors.ParameterError: rates='known': known rates are given by their values, e.g. rates={'rho': 0.8, 'eta': 0.8}
    """
    if isinstance(value, str):
        if value == "known":
            raise ParameterError(f"{name}='known': known rates are given by their values, e.g. "
                                 f"{name}={example}")
        return choice(value, name, RATES, renamed_values={"estimated": "estimate",
                                                          "pool": "pooled"})
    return "known"


def rates(value: Any, name: str = "rates", *,
          example: str = "{'rho': 0.8, 'eta': 0.8}") -> str | Mapping:
    """The binary model's ``rates``: ``"estimate"``, ``"pooled"``, ``"hierarchical"`` or values.

    ``"hierarchical"`` (partial pooling) is taken by :func:`binaryeval.fit` to the
    latent-truth sampler; the exact engine refuses it.

    Known values are ``{'rho': .., 'eta': ..}`` for every group (a rate left out or None is
    estimated), or one such mapping per group.  Returns ``value`` unchanged once checked.

    Examples
    --------
    >>> from binaryeval._validate import rates
    >>> rates({"rho": 0.9})
    {'rho': 0.9}
    >>> rates({"rho": 0.9, "eat": 0.8})
    Traceback (most recent call last):
    ...
    binaryeval.errors.ParameterError: rates={'rho': 0.9, 'eat': 0.8} has unknown key 'eat'; known rates are given as {'rho': .., 'eta': ..}
    """
    if rates_mode(value, name, example=example) != "known":
        return value
    if not isinstance(value, Mapping):
        raise ParameterError(f"{name}={value!r}: use 'estimate', 'pooled', or known values "
                             f"{example} (optionally per group)")
    keys = set(map(str, value))
    if keys & {"rho", "eta"}:
        entries = {None: value}
    elif value and not any(isinstance(v, Mapping) for v in value.values()):
        # numbers under keys that are neither rate: a misspelt pair, not groups
        raise ParameterError(f"{name}={dict(value)!r} has unknown keys {sorted(keys)}; known rates "
                             "are given as {'rho': .., 'eta': ..} (or per group "
                             "{'sys1': {'rho': .., 'eta': ..}, ...})")
    else:
        entries = {str(g): v for g, v in value.items()}
    for g, entry in entries.items():
        where = name if g is None else f"{name}[{g!r}]"
        if not isinstance(entry, Mapping):
            raise ParameterError(f"{where}={entry!r}: give a mapping {{'rho': .., 'eta': ..}}")
        unknown = set(map(str, entry)) - {"rho", "eta"}
        if unknown:
            raise ParameterError(f"{where}={dict(entry)!r} has unknown key {sorted(unknown)[0]!r}; "
                                 "known rates are given as {'rho': .., 'eta': ..}")
        for key, v in entry.items():
            if v is not None:
                probability(v, f"known {key}")
    return value


def flag(value: Any, name: str) -> bool:
    """True or False (numpy booleans included; 0/1 and strings are refused).

    Examples
    --------
    >>> from binaryeval._validate import flag
    >>> flag(True, "pooled")
    True
    """
    if not isinstance(value, (bool, np.bool_)):
        raise InputTypeError(f"{name}={value!r}: pass True or False")
    return bool(value)


def progress(value: Any) -> bool | None:
    """``progress=``: True, False or None (a bar for long runs, on a terminal).

    Examples
    --------
    >>> from binaryeval._validate import progress
    >>> progress(None), progress(False)
    (None, False)
    """
    return None if value is None else flag(value, "progress")


def seed(value: Any, name: str = "seed") -> Any:
    """A seed for :func:`numpy.random.default_rng`: None, an int >= 0, a SeedSequence or a Generator.

    Examples
    --------
    >>> from binaryeval._validate import seed
    >>> seed(42)
    42
    """
    if value is None or isinstance(value, (np.random.Generator, np.random.SeedSequence)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) \
            and value >= 0:
        return int(value)
    raise InputTypeError(f"{name}={value!r}: pass None, a whole number >= 0 or a "
                         "numpy.random.Generator")


def n_jobs(value: Any) -> int | None:
    """Joblib's ``n_jobs``: None, -1 (all cores) or a positive whole number.

    Examples
    --------
    >>> from binaryeval._validate import n_jobs
    >>> n_jobs(-1)
    -1
    """
    if value is None:
        return None
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) \
            and (value >= 1 or value < 0):
        return int(value)
    raise InputTypeError(f"n_jobs={value!r}: give a positive whole number of workers or -1 for all "
                         "cores (without n_jobs= it runs in this process)")


def unique_columns(data: Any, names: Sequence[Any]) -> None:
    """Refuse a data frame in which a column the call reads appears more than once.

    Parameters
    ----------
    data : DataFrame
        The data.
    names : sequence
        The columns the call reads; duplicated names elsewhere in ``data`` are left alone.

    Examples
    --------
    >>> from binaryeval._validate import unique_columns
    >>> import pandas as pd
    >>> df = pd.DataFrame([[1, 2, 3]], columns=["h", "m", "m"])
    >>> unique_columns(df, ["h"])
    >>> unique_columns(df, ["h", "m"])
    Traceback (most recent call last):
    ...
    binaryeval.errors.DataError: data has 2 columns named 'm'; rename or drop the extra ones (e.g. data.loc[:, ~data.columns.duplicated()]) so that 'm' names one column
    """
    duplicated = set(data.columns[data.columns.duplicated()])
    for name in names:
        if name in duplicated:
            n = int((data.columns == name).sum())
            raise DataError(f"data has {n} columns named {name!r}; rename or drop the extra ones "
                            "(e.g. data.loc[:, ~data.columns.duplicated()]) so that "
                            f"{name!r} names one column")


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation now (None where the system does not say).

    Linux's ``MemAvailable`` (what can be allocated without swapping), else the free physical
    pages.

    Examples
    --------
    >>> from binaryeval._validate import available_memory
    >>> m = available_memory()
    >>> m is None or m > 0
    True
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import os

        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return None


def _in_units(nbytes: float) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes:.0f} bytes"


def memory(nbytes: float, request: str, fix: str) -> None:
    """Refuse up front a request whose arrays need more memory than is available.

    Parameters
    ----------
    nbytes : float
        The memory the request needs (its largest arrays together).
    request : str
        The call as the user wrote it, e.g. ``"rvs(size=1000000000)"``.
    fix : str
        What to do instead.

    Examples
    --------
    >>> from binaryeval import ParameterError
    >>> from binaryeval._validate import memory
    >>> try:
    ...     memory(1e20, "rvs(size=10**19)", "draw in batches")
    ... except ParameterError as err:
    ...     print(str(err).split(", more")[0])
    rvs(size=10**19) needs about 1e+08 TB of memory
    """
    avail = available_memory()
    if avail is not None and nbytes > avail:
        raise ParameterError(f"{request} needs about {_in_units(nbytes)} of memory, more than "
                             f"the {_in_units(avail)} available; {fix}")


def require_pandas(data: Any, what: str) -> None:
    """Refuse ``data`` unless it is a pandas DataFrame, saying what to pass instead.

    Parameters
    ----------
    data : object
        The caller's ``data``.
    what : str
        What needs the rows in memory, for the message about a Dask frame (``"fit_latent()"``).

    Raises
    ------
    DataError

    Examples
    --------
    >>> from binaryeval._validate import require_pandas
    >>> require_pandas([1, 2], "fit_latent()")
    Traceback (most recent call last):
    ...
    binaryeval.errors.DataError: data must be a pandas DataFrame, got list; wrap it with pd.DataFrame(...)
    """
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        return
    dask_frames = sys.modules.get("dask.dataframe")
    if dask_frames is not None and isinstance(data, dask_frames.DataFrame):
        raise DataError(f"data is a Dask DataFrame, and {what} needs the rows in memory: pass a "
                        "pandas frame (data.compute(), after selecting the rows and columns the "
                        "formula uses)")
    raise DataError(f"data must be a pandas DataFrame, got {type(data).__name__}; wrap it with "
                    "pd.DataFrame(...)")
