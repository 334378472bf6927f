"""binaryeval: evaluating the evaluation of text-generation systems."""

from __future__ import annotations

from .errors import (
    BinaryEvalError,
    BinaryEvalWarning,
    CountsError,
    DataError,
    FormulaError,
    IdentifiabilityWarning,
    InputTypeError,
    ParameterError,
)
from .summary import Summary

__version__ = "0.1.0"

__all__ = [
    "BinaryEvalError",
    "BinaryEvalWarning",
    "CountsError",
    "DataError",
    "FormulaError",
    "IdentifiabilityWarning",
    "InputTypeError",
    "ParameterError",
    "Summary",
    "__version__",
]
