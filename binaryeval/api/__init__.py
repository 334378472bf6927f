"""The formula front door, above the models.

:func:`fit` reads the shape of a formula and hands the data to the model it names (the exact
binary model, or the latent-truth model for several metrics and binned scores); :func:`roc`
draws a scalar metric's ROC curves from a formula.  The model frame of one metric
(:mod:`.frame`) codes a pandas or Dask frame into the binary model's counts and reads the
metric's direction.  The models below (:mod:`binaryeval.binary`, :mod:`binaryeval.latent`, ...)
never import this package.
"""

from .fit import fit
from .roc import roc

__all__ = ["fit", "roc"]
