"""The K x J latent-truth model: preference ratings, several metrics and binned scores.

The human rating of an item is its latent truth ``c`` (``K`` classes, shares ``pi`` per group);
a metric's output ``j`` (``J`` categories) follows ``P(j | c) = Theta[c, j]``.  Paired items
(human and metric) inform ``Theta`` and ``pi``; human-only items inform ``pi``; metric-only
items inform ``pi`` through ``q = pi Theta``.  The binary model (K = J = 2, ``alpha``, ``rho``,
``eta``) is the special case that :func:`binaryeval.alpha_posterior` computes exactly.

- :func:`fit_preferences` -- preference ratings per system pair (:class:`PreferenceFit`).
- :func:`fit_latent` -- a binary human rating with several metrics or binned scalar scores
  (:class:`LatentFit`).
- :func:`latent_posterior` -- the posterior from counts (:class:`LatentPosterior`).
- :func:`judge_bias` -- an LLM judge's confusion by position and by a covariate, on the
  paired rows (:class:`JudgeBias`).
- :class:`DrawsPosterior` -- the posterior of one quantity from the draws (what the fits'
  ``posterior()`` returns).

The sampler and its justification are in :mod:`binaryeval.latent.engine`; the convergence
diagnostics (R-hat, bulk and tail ESS as ArviZ defines them) in
:mod:`binaryeval.latent.diagnostics`.
"""

from .draws import DrawsPosterior
from .judge_bias import JudgeBias, judge_bias
from .multi import LatentFit, fit_latent
from .posterior import LatentPosterior, latent_posterior
from .preferences import PreferenceFit, fit_preferences

__all__ = ["DrawsPosterior", "JudgeBias", "LatentFit", "LatentPosterior", "PreferenceFit", "fit_latent",
           "fit_preferences", "judge_bias", "latent_posterior"]
