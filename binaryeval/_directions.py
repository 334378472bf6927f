"""Which way each score points (``lower_is_better``), and the check that human and metric agree on it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._warnings import warn
from .errors import DirectionWarning, InputTypeError, ParameterError


def resolve_lower_is_better(value: Any, human_term: str, metric_term: str, mode: str) -> tuple[str, ...]:
    """The terms where lower scores are better, checked against the formula's two terms."""
    if value is None:
        terms: tuple[Any, ...] = ()
    elif isinstance(value, str):
        terms = (value,)
    elif isinstance(value, (list, tuple, set, frozenset, pd.Index, np.ndarray)):
        terms = tuple(value)
    else:
        raise InputTypeError(f"lower_is_better={value!r}: give a term name or a list of term names, "
                             f"e.g. lower_is_better=[{human_term!r}]")
    known = (human_term, metric_term)
    for term in terms:
        if not isinstance(term, str):
            raise InputTypeError(f"lower_is_better holds {term!r}, not a term name; give the terms as "
                                 f"written in the formula, e.g. lower_is_better=[{human_term!r}]")
        if term not in known:
            raise ParameterError(f"lower_is_better names {term!r}, which is not a term of the formula; "
                                 f"the terms are {list(known)} (as written left and right of '~')")
    if terms and mode == "preferences":
        raise ParameterError(f"lower_is_better={list(terms)!r} applies to scores; preference ratings "
                             "('+' = the first system is better) have no direction to flip")
    return tuple(t for t in known if t in terms)


def describe(human_term: str, metric_term: str, lower: tuple[str, ...]) -> dict[str, str]:
    """``{term: "higher is better" | "lower is better"}`` for the human and the metric term."""
    return {term: "lower is better" if term in lower else "higher is better"
            for term in dict.fromkeys((human_term, metric_term))}


def check_agreement(counts: np.ndarray, human_term: str, metric_term: str, lower: tuple[str, ...],
                    mode: str) -> None:
    """Warn when human and metric prefer opposite systems on more than half of the decided items.

    An item (of a pair) is decided when both the human and the metric prefer a system
    (cells ``(+, +)``, ``(+, -)``, ``(-, +)``, ``(-, -)``).  A metric worth evaluating agrees with
    the humans on most of them; agreeing on fewer than half means that one score most likely
    points the other way (an error penalty or TER read as higher-is-better).
    """
    c = np.asarray(counts).sum(axis=0)
    opposite = int(c[0, 2] + c[2, 0])
    decided = opposite + int(c[0, 0] + c[2, 2])
    if decided == 0 or 2 * opposite <= decided:
        return
    head = (f"the human ({human_term}) and metric ({metric_term}) preferences point to opposite systems on "
            f"{opposite / decided:.0%} of the {decided:,} item comparisons where both prefer a system")
    if mode == "preferences":
        warn(head + ": check that '+' (or 1) means the first system is better in both columns",
                  DirectionWarning)
        return
    fixes = []
    for term in (human_term, metric_term):
        toggled = [t for t in (human_term, metric_term) if (t in lower) != (t == term)]
        way = "higher" if term in lower else "lower"
        fixes.append(f"lower_is_better={toggled!r} if {way} {term} is better")
    warn(f"{head}, so one of the scores probably points the other way (now "
              f"lower_is_better={list(lower)!r}); likely fix: " + ", or ".join(fixes), DirectionWarning)
