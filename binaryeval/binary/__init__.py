"""The binary evaluation model: the exact posterior engine, fit from counts, comparisons, ROC.

The formula front door :func:`binaryeval.fit` (:mod:`binaryeval.api`) codes a data frame into the
counts :func:`fit_counts` takes.
"""

from .compare import Comparison
from .engine import alpha_posterior
from .grid import GridPosterior
from .model import fit_counts
from .posterior import AlphaPosterior
from .result import BinaryFit
from .roc import RocResult, choose_threshold, roc_table

__all__ = ["AlphaPosterior", "BinaryFit", "Comparison", "GridPosterior", "RocResult",
           "alpha_posterior", "choose_threshold", "fit_counts", "roc_table"]
