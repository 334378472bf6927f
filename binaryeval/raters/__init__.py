"""Human raters make mistakes too: the rater-noise model.

The item's class (adequate or not) is latent; each human rating is one rater's noisy reading of
it (a Dawid-Skene confusion matrix per rater, or MACE's competence and guessing distribution),
and the metric another, with its own confusion matrix per group.

- :func:`fit_raters` -- the fit from long data, one row per rating (:class:`RaterFit`); also
  reached through :func:`binaryeval.fit` with ``rater=`` and ``item=``;
- :class:`RaterPlan` -- ``RaterFit.plan()``: another rating of a rated item, or a new item
  (the preposterior analysis is in :mod:`binaryeval.raters._plan`).

The Gibbs sampler and its justification are in :mod:`binaryeval.raters.engine`.
"""

from ._plan import RaterPlan
from .fit import RaterFit, fit_raters

__all__ = ["RaterFit", "RaterPlan", "fit_raters"]
