"""binaryeval: evaluating the evaluation of text-generation systems."""

from __future__ import annotations

from . import datasets, plan
from .binary import (
    AlphaPosterior,
    BinaryFit,
    Comparison,
    RocResult,
    alpha_posterior,
    choose_threshold,
    fit,
    fit_counts,
    roc,
)
from .correlation import (
    CorrelationResult,
    WilliamsResult,
    correlate,
    fisher_ci,
    hybrid_supersample,
    williams_test,
    zou_ci,
)
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
from .favi import (
    FAVI_WEIGHTS,
    FaviResult,
    FaviUndefinedWarning,
    PreferenceConfusion,
    SignTestResult,
    UnpairedItemsWarning,
    favi_score,
    preference_confusion,
    preferences,
    sign_test,
)
from .favi import favi as favi  # noqa: E402  (the function; the module stays importable by path)
from .latent import (
    LatentFit,
    LatentPosterior,
    PreferenceFit,
    fit_latent,
    fit_preferences,
    latent_posterior,
)
from .summary import Summary

__version__ = "0.1.0"

__all__ = [
    "AlphaPosterior",
    "BinaryFit",
    "Comparison",
    "CorrelationResult",
    "FAVI_WEIGHTS",
    "FaviResult",
    "FaviUndefinedWarning",
    "PreferenceConfusion",
    "RocResult",
    "SignTestResult",
    "UnpairedItemsWarning",
    "WilliamsResult",
    "alpha_posterior",
    "choose_threshold",
    "correlate",
    "favi",
    "favi_score",
    "fisher_ci",
    "fit",
    "fit_counts",
    "hybrid_supersample",
    "preference_confusion",
    "preferences",
    "roc",
    "sign_test",
    "williams_test",
    "zou_ci",
    "BinaryEvalError",
    "BinaryEvalWarning",
    "CountsError",
    "DataError",
    "FormulaError",
    "IdentifiabilityWarning",
    "InputTypeError",
    "LatentFit",
    "LatentPosterior",
    "PreferenceFit",
    "fit_latent",
    "fit_preferences",
    "latent_posterior",
    "ParameterError",
    "Summary",
    "datasets",
    "plan",
    "__version__",
]
