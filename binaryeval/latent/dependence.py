"""Is the joint model needed?  A Bayes factor for conditional dependence of several metrics.

Within each human class ``c`` the paired items' joint metric patterns ``N[c, (j1, j2, ...)]`` are
multinomial.  Under ``dependence="joint"`` the pattern probabilities have a Dirichlet prior
(concentration ``b`` per pattern); under ``"independent"`` each metric has its own Dirichlet
(``b`` per level) and the pattern probability is the product.  Both marginal likelihoods of the
observed sequence are Dirichlet-multinomial, in closed form:

    log p_joint = log G(J b) - log G(J b + n_c) + sum_j [log G(b + N_cj) - log G(b)]
    log p_indep = sum_r { log G(L_r b) - log G(L_r b + n_c) + sum_l [log G(b + N^r_cl) - log G(b)] }

(``G`` the gamma function, ``N^r`` the margin of metric ``r``).  The Bayes factor ``BF = p_joint /
p_indep`` is multiplied over classes (and over groups when ``Theta`` is per group).  ``log10 BF >
1`` is strong evidence that the metrics err together given the truth: only the joint model is
then valid, the product model double-counts their agreement and its intervals are too narrow.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import gammaln

__all__: list[str] = []

THRESHOLD = 1.0  # |log10 BF| above this is "strong" (Kass and Raftery 1995: BF > 10)


def _log_dm(counts: np.ndarray, conc: float) -> np.ndarray:
    """Log Dirichlet-multinomial sequence likelihood along the last axis (symmetric prior)."""
    n = counts.sum(axis=-1)
    size = counts.shape[-1]
    return (gammaln(size * conc) - gammaln(size * conc + n)
            + (gammaln(conc + counts) - gammaln(conc)).sum(axis=-1))


def log10_bayes_factor(paired: np.ndarray, levels: tuple[int, ...], conc: float = 1.0
                       ) -> np.ndarray:
    """log10 BF (joint over independent) per group of (G, K, J) paired counts.

    Examples
    --------
    Two copies of one metric: every paired item shows the pattern (0, 0) or (1, 1).

    >>> import numpy as np
    >>> from binaryeval.latent.dependence import log10_bayes_factor
    >>> copies = np.array([[[30, 0, 0, 10], [8, 0, 0, 52]]])
    >>> bool(log10_bayes_factor(copies, (2, 2))[0] > 10)
    True
    """
    counts = np.asarray(paired, dtype=float)
    g, k, j = counts.shape
    joint = _log_dm(counts, conc).sum(axis=1)
    full = counts.reshape(g, k, *levels)
    indep = np.zeros(g)
    for r in range(len(levels)):
        other = tuple(2 + s for s in range(len(levels)) if s != r)
        indep += _log_dm(full.sum(axis=other), conc).sum(axis=1)
    return (joint - indep) / np.log(10.0)


def verdict(log10_bf: float) -> str:
    """The reading of a log10 Bayes factor.

    Examples
    --------
    >>> from binaryeval.latent.dependence import verdict
    >>> verdict(3.2)
    'conditional dependence: use dependence="joint"'
    """
    if not np.isfinite(log10_bf):
        return "no paired items to check"
    if log10_bf > THRESHOLD:
        return 'conditional dependence: use dependence="joint"'
    if log10_bf < -THRESHOLD:
        return 'no dependence found: dependence="independent" is adequate (and narrower)'
    return 'inconclusive: dependence="joint" is the safe choice'


def note(log10_bf: float, fitted: str) -> str:
    """The summary's note on the dependence check, read against the fit's ``dependence``.

    Examples
    --------
    >>> from binaryeval.latent.dependence import note
    >>> note(444.2, "joint")
    'dependence check on the paired items: log10 BF (joint vs independent) = 444.2: conditional dependence, which dependence="joint" (this fit) allows for'
    >>> note(444.2, "independent")[:60]
    "WARNING: the metrics err together, so dependence='independen"
    """
    head = (f"dependence check on the paired items: log10 BF (joint vs independent) = "
            f"{log10_bf:.1f}: ")
    if not np.isfinite(log10_bf):
        return head + verdict(log10_bf)
    if log10_bf > THRESHOLD:
        if fitted == "independent":
            return ("WARNING: the metrics err together, so dependence='independent' is invalid "
                    "here and its intervals are too narrow; " + head + verdict(log10_bf))
        return head + 'conditional dependence, which dependence="joint" (this fit) allows for'
    if log10_bf < -THRESHOLD:
        return head + ('no dependence found: dependence="independent" (this fit) is adequate'
                       if fitted == "independent" else verdict(log10_bf))
    return head + ('inconclusive: dependence="joint" (this fit) is the safe choice'
                   if fitted == "joint" else verdict(log10_bf))


def check(paired: np.ndarray, levels: tuple[int, ...], groups, pooled: bool,
          conc: float = 1.0) -> pd.DataFrame:
    """Per-group log10 Bayes factors with the overall value and verdict in ``attrs``."""
    per_group = log10_bayes_factor(paired, levels, conc)
    total = (float(log10_bayes_factor(paired.sum(axis=0, keepdims=True), levels, conc)[0])
             if pooled else float(per_group.sum()))
    out = pd.DataFrame({"n_paired": paired.sum(axis=(1, 2)).astype(int),
                        "log10_bf": per_group}, index=pd.Index(list(groups), name="group"))
    out.attrs.update(log10_bf=total, verdict=verdict(total), decisive_log10_bf=THRESHOLD,
                     method="Bayes factor of joint vs product Dirichlet-multinomial models of "
                            "the paired items' metric patterns, per human class")
    return out
