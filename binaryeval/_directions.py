"""Which way each score points: the one reader of ``lower_is_better`` and the one direction check.

Every formula entry point (``fit``, ``roc``, ``favi``, ``correlate``, ``fit_preferences``) reads
``lower_is_better`` with :func:`read_lower_is_better` and says that a score seems to run the wrong way
with :func:`check_direction`: one rule (a statistic of agreement between the human and the metric
below what chance gives), one wording of the fix, one :class:`~binaryeval.errors.DirectionWarning`
pointed at the caller's line.  What each model takes as its statistic is its own: the area under
the ROC curve (chance 0.5), the share of item comparisons where human and metric prefer the same
system (0.5), the largest correlation between the human score and a metric (0).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._warnings import warn
from .errors import DirectionWarning, InputTypeError, ParameterError

__all__ = ["check_direction", "describe", "direction_message", "read_lower_is_better"]


def read_lower_is_better(value: Any, terms: Sequence[str], *,
                    aliases: Mapping[str, str] | None = None,
                    example: str | None = None) -> tuple[str, ...]:
    """The terms ``lower_is_better`` names, checked against the formula's terms.

    Parameters
    ----------
    value : None, str or list of str
        The argument as the user gave it: no term, one term, or several.
    terms : sequence of str
        The formula's terms that may be named (as written in the formula).
    aliases : mapping, optional
        Other spellings of a term -> the term.  A term ``Q("label")`` may always be named by
        its column label ``"label"`` as well.
    example : str, optional
        The term the messages show as an example (default: the first term); a model whose
        human rating has no direction names a metric.

    Returns
    -------
    tuple of str
        The named terms, once each, in the formula's order.

    Raises
    ------
    InputTypeError
        ``value`` is neither a term name nor a list of them (``True``/``False`` included: the
        error names the list to give).
    ParameterError
        A name that is not a term of the formula.

    Examples
    --------
    >>> from binaryeval._directions import read_lower_is_better
    >>> read_lower_is_better(["ter", "mqm"], ["mqm", "bleu", "ter"])
    ('mqm', 'ter')
    >>> read_lower_is_better(None, ["mqm", "ter"])
    ()
    >>> read_lower_is_better(["TER (x100)"], ["mqm", 'Q("TER (x100)")'])
    ('Q("TER (x100)")',)
    """
    terms = list(terms)
    if example is None:
        example = terms[0] if terms else "term"
    if isinstance(value, (bool, np.bool_)):
        raise InputTypeError(f"lower_is_better={value!r}: name the terms whose lower scores are "
                             f"better instead of True/False, e.g. lower_is_better=[{example!r}] "
                             "(or leave it out when higher is better everywhere)")
    if value is None:
        names: tuple[Any, ...] = ()
    elif isinstance(value, str):
        names = (value,)
    elif isinstance(value, (list, tuple, set, frozenset, pd.Index, np.ndarray)):
        names = tuple(value)
    else:
        raise InputTypeError(f"lower_is_better={value!r}: give a term name or a list of term "
                             f"names, e.g. lower_is_better=[{example!r}]")
    # a column named through Q("...") may be named by its label too, on every path
    quoted = {m.group(2): t for t in terms
              if (m := re.fullmatch(r"""Q\((["'])(.*)\1\)""", t)) is not None}
    aliases = {**quoted, **(aliases or {})}
    named = set()
    for name in names:
        if not isinstance(name, str):
            raise InputTypeError(f"lower_is_better holds {name!r}, not a term name; give the terms "
                                 f"as written in the formula, e.g. lower_is_better=[{example!r}]")
        term = name if name in terms else aliases.get(name, name)
        if term not in terms:
            shown = value if isinstance(value, str) else list(names)
            raise ParameterError(f"lower_is_better={shown!r} names {name!r}, which is not a "
                                 f"term of the formula; the terms are {terms}")
        named.add(term)
    return tuple(t for t in dict.fromkeys(terms) if t in named)


def describe(terms: Sequence[str], lower: Sequence[str]) -> dict[str, str]:
    """``{term: "higher is better" | "lower is better"}`` for each term.

    Examples
    --------
    >>> from binaryeval._directions import describe
    >>> describe(["mqm", "chrf"], ["mqm"])
    {'mqm': 'lower is better', 'chrf': 'higher is better'}
    """
    return {term: "lower is better" if term in lower else "higher is better"
            for term in dict.fromkeys(terms)}


def direction_message(evidence: str, *, terms: Sequence[str], sides: Sequence[Sequence[str]],
                      lower: Sequence[str], advice: str | None = None,
                      note: str | None = None) -> str:
    """What a :class:`~binaryeval.errors.DirectionWarning` says: the evidence and the likely fix.

    Parameters
    ----------
    evidence : str
        What the data show, e.g. ``"the score 'ter' runs against the human ratings (AUC 0.31)"``.
    terms : sequence of str
        Every term whose direction may be given, in the formula's order.
    sides : sequence of sequences of str
        The groups of terms that may point the other way (e.g. the human term, and the metrics);
        the fix for each turns that group's direction round.
    lower : sequence of str
        The terms now read as lower-is-better.
    advice : str, optional
        Said instead of the fixes when the data have no direction to turn (ready preferences).
    note : str, optional
        A further cause to check, said last.

    Returns
    -------
    str

    Examples
    --------
    >>> from binaryeval._directions import direction_message
    >>> direction_message("mqm and chrf disagree", terms=["mqm", "chrf"],
    ...                   sides=[["mqm"], ["chrf"]], lower=[])  # doctest: +NORMALIZE_WHITESPACE
    "mqm and chrf disagree, so one of the scores probably points the other way; likely fix:
    lower_is_better=['mqm'] if lower mqm is better, or lower_is_better=['chrf'] if lower chrf
    is better"
    """
    tail = f" ({note})" if note else ""
    if advice is not None:
        return f"{evidence}: {advice}{tail}"
    fixes = []
    for side in sides:
        toggled = [t for t in terms if (t in lower) != (t in side)]
        way = "higher" if side[0] in lower else "lower"
        names = ", ".join(side)
        fixes.append(f"lower_is_better={toggled!r} if {way} {names} "
                     f"{'is' if len(side) == 1 else 'are'} better")
    what = (f"{sides[0][0]!r} probably points" if len(sides) == 1 and len(sides[0]) == 1
            else "one of the scores probably points")
    now = f" (now lower_is_better={list(lower)!r})" if lower else ""
    return f"{evidence}, so {what} the other way{now}; likely fix: " + ", or ".join(fixes) + tail


def check_direction(statistic: float, evidence: str | Callable[[], str], *, chance: float = 0.5,
                    terms: Sequence[str], sides: Sequence[Sequence[str]], lower: Sequence[str],
                    advice: str | None = None, note: str | None = None,
                    emit: bool = True) -> str | None:
    """The one direction check: warn when human and metric agree less than chance would.

    Parameters
    ----------
    statistic : float
        How well the metric agrees with the human ratings (an AUC, a share of agreeing
        comparisons, a correlation); NaN when the data cannot tell.
    evidence : str or callable
        The evidence in words (a callable is called only when the check fires).
    chance : float
        The value of ``statistic`` when the metric has nothing to do with the human ratings.
    terms, sides, lower, advice, note
        As in :func:`direction_message`.
    emit : bool
        Issue the :class:`~binaryeval.errors.DirectionWarning` (False: only return its text, for
        a caller that says one warning per call and combines it with others).

    Returns
    -------
    str or None
        The message when the statistic is below chance, else None.

    Examples
    --------
    >>> from binaryeval._directions import check_direction
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     msg = check_direction(0.3, "the score 'ter' runs against the human ratings (AUC 0.30)",
    ...                           terms=["ter"], sides=[["ter"]], lower=[])
    >>> caught[0].category.__name__, msg.endswith("lower_is_better=['ter'] if lower ter is better")
    ('DirectionWarning', True)
    >>> check_direction(0.7, "fine", terms=["ter"], sides=[["ter"]], lower=[]) is None
    True
    """
    if not (np.isfinite(statistic) and statistic < chance):
        return None
    text = evidence() if callable(evidence) else evidence
    message = direction_message(text, terms=terms, sides=sides, lower=lower, advice=advice,
                                note=note)
    if emit:
        warn(message, DirectionWarning)
    return message
