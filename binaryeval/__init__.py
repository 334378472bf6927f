"""binaryeval: evaluating the evaluation of text-generation systems."""

from __future__ import annotations

from . import datasets, plan
from ._ranks import Ranks
from .api import fit, roc
from .binary import (
    AlphaPosterior,
    BinaryFit,
    Comparison,
    RocResult,
    alpha_posterior,
    choose_threshold,
    fit_counts,
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
    ContradictionWarning,
    ConvergenceWarning,
    CountsError,
    DataError,
    DependenceWarning,
    DirectionWarning,
    FaviUndefinedWarning,
    FormulaError,
    IdentifiabilityWarning,
    InputTypeError,
    OutputError,
    ParameterError,
    RenderError,
    SmallSampleWarning,
    UnpairedItemsWarning,
)
from .favoritism import (
    FAVI_WEIGHTS,
    FaviResult,
    PreferenceConfusion,
    SignTestResult,
    favi,
    favi_score,
    preference_confusion,
    preferences,
    sign_test,
)
from .io import read_table
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
    "Ranks",
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
    "read_table",
    "roc",
    "sign_test",
    "williams_test",
    "zou_ci",
    "BinaryEvalError",
    "BinaryEvalWarning",
    "ContradictionWarning",
    "ConvergenceWarning",
    "CountsError",
    "DataError",
    "DependenceWarning",
    "DirectionWarning",
    "FormulaError",
    "IdentifiabilityWarning",
    "InputTypeError",
    "LatentFit",
    "LatentPosterior",
    "PreferenceFit",
    "fit_latent",
    "fit_preferences",
    "latent_posterior",
    "OutputError",
    "ParameterError",
    "RenderError",
    "SmallSampleWarning",
    "Summary",
    "datasets",
    "plan",
    "__version__",
]
