"""The binary evaluation model: exact posterior engine, fit, comparisons and ROC."""

from .compare import Comparison
from .engine import alpha_posterior
from .model import fit, fit_counts
from .grid import GridPosterior
from .posterior import AlphaPosterior
from .result import BinaryFit
from .roc import RocResult, choose_threshold, roc, roc_table

__all__ = ["AlphaPosterior", "BinaryFit", "Comparison", "GridPosterior", "RocResult",
           "alpha_posterior", "choose_threshold", "fit", "fit_counts", "roc", "roc_table"]
