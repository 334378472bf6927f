"""Argument checks specific to correlations (the general ones live in ``binaryeval._validate``).

A correlation must lie in [-1, 1], three correlations must form a valid correlation matrix, and
the number of systems must leave the intervals and tests their degrees of freedom; the wording of
these messages belongs to this package.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _validate
from ..errors import InputTypeError, ParameterError
from ._kernels import det3

METHODS = ("pearson", "spearman", "kendall")
ALTERNATIVES = ("greater", "less", "two-sided")

# Determinants of valid correlation matrices computed in floating point can come out a few ulps
# below zero (e.g. two identical metrics); only clearly negative ones are rejected.
_DET_TOL = 1e-12


def corr_arg(name: str, value: Any) -> float:
    """A correlation: a finite real number with ``|value| <= 1``."""
    v = _validate.real(value, name)
    if abs(v) > 1:
        raise ParameterError(f"{name} = {v} is not a correlation: |{name}| must be <= 1; "
                             "check that you passed correlations, not scores or covariances")
    return v


def n_arg(n: Any, method: str = "pearson") -> int:
    """A number of systems: a whole number, at least 4 (5 for Kendall's variance)."""
    low = 5 if method == "kendall" else 4
    try:
        v = _validate.real(n, "n")
    except InputTypeError:
        # (the general message's example, n=0.5, is no number of systems)
        raise InputTypeError(f"n={n!r} is a {type(n).__name__}; pass the number of systems, a "
                             f"whole number >= {low}, e.g. n=16") from None
    if not v.is_integer():
        raise ParameterError(f"n must be a whole number of systems, got {n}")
    n = int(v)
    if n < low:
        extra = " (the Kendall variance 0.437/(n - 4) needs n >= 5)" if method == "kendall" else ""
        raise ParameterError(f"n = {n} systems is too few: these intervals and tests need n >= {low}"
                             f"{extra}; with so few systems no correlation can be compared")
    return n


def method_arg(method: Any) -> str:
    """One of :data:`METHODS`, case-insensitive."""
    return _validate.choice(method.lower() if isinstance(method, str) else method, "method",
                            METHODS)


def alternative_arg(alternative: Any) -> str:
    """One of :data:`ALTERNATIVES` (``"greater"``: metric A correlates more strongly)."""
    return _validate.choice(alternative, "alternative", ALTERNATIVES)


def triple_arg(r12: Any, r13: Any, r23: Any) -> tuple[float, float, float]:
    """Three correlations that some three variables can have (non-negative determinant)."""
    r12, r13, r23 = corr_arg("r12", r12), corr_arg("r13", r13), corr_arg("r23", r23)
    k = det3(r12, r13, r23)
    if k < -_DET_TOL:
        raise ParameterError(
            f"(r12, r13, r23) = ({r12}, {r13}, {r23}) is not a valid correlation matrix: its "
            f"determinant is {k:.6g} < 0, so no three variables have these correlations; check that "
            "r23 is the correlation between the two metrics computed on the same systems")
    return r12, r13, r23


def seed_arg(seed: Any) -> Any:
    """A checked seed; ``None`` becomes fresh entropy, returned so that the result can report it.

    The integer is what the result's ``attrs["seed"]`` holds: passing it back gives the same
    draws (as ``seed=None`` does in the rest of the package).
    """
    seed = _validate.seed(seed)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2 ** 63)
    return seed
