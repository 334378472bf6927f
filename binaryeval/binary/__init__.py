"""The binary evaluation model: exact posterior engine, fit, comparisons and ROC."""

from .engine import AlphaPosterior, alpha_posterior
from .fit import BinaryFit, Comparison, fit, fit_counts
from .roc import RocResult, choose_threshold, roc, roc_table

__all__ = ["AlphaPosterior", "BinaryFit", "Comparison", "RocResult", "alpha_posterior",
           "choose_threshold", "fit", "fit_counts", "roc", "roc_table"]
