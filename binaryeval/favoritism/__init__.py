r"""Preference ratings, their confusion matrices, the Favi-Score, sign tests and rankings.

A *preference rating* compares two outputs for the same input: ``+`` (the first system's output is
better), ``=`` (equal) or ``-`` (the second is better).  A human and a metric each give one rating per
item and pair of systems; the 3 x 3 *confusion matrix* ``C`` (rows human, columns metric, order
``+, =, -``) counts how the two agree.  The Favi-Score (von Däniken et al. 2024) measures whether the
metric's *disagreements* with the humans lean towards one system:

.. math::

    \mathrm{Favi}(C) = \frac{\sum_{ij} W_{ij} C_{ij}}{E}
                     = \frac{\mathrm{mar}(d_\mathrm{metric}) - \mathrm{mar}(d_\mathrm{human})}{E},
    \qquad W = \begin{pmatrix}0&-1&-2\\1&0&-1\\2&1&0\end{pmatrix},

with ``E`` the number of off-diagonal items (disagreements) and ``mar(d) = d+ - d-`` the margin of a
rating distribution.  It lies in ``[-2, 2]``; a positive value means the metric favours the first
system.  With ``E = 0`` the metric never disagrees and the score is undefined: the package returns
NaN (with :class:`~binaryeval.errors.FaviUndefinedWarning` where a single score is asked for),
never 0.

Entry points
------------
- :func:`favi_score` -- the score of one 3 x 3 matrix.
- :func:`preference_confusion` -- a :class:`PreferenceConfusion` from two rating sequences.
- :func:`preferences` -- ratings ``+1/0/-1`` from two score sequences (tolerance, direction).
- :func:`sign_test` -- the sign test of ``n(+)`` against ``n(-)`` with a documented tie rule.
- :func:`favi` -- every system pair of a data frame: a :class:`FaviResult` with per-pair scores,
  a system x system matrix, one-vs-all distributions, ranking DAGs, intervals and plots.

Modules
-------
``score``       the weights and their arithmetic, count matrices checked, preferences from scores
``ratings``     rating symbols to codes, tolerances
``sign``        the sign test and its result
``confusion``   one confusion matrix (:class:`PreferenceConfusion`) and its score (:func:`favi_score`)
``intervals``   Dirichlet, bootstrap and score intervals, and the small-``E`` rule
``frame``       formula and data to checked, directed ratings (row accounting)
``counting``    confusion counts of every system pair
``result``      :class:`FaviResult`
``ranking``     significant wins as a DAG
``plots``       the drawings of a :class:`FaviResult`
``api``         :func:`favi`
"""

from __future__ import annotations

from .api import favi
from .confusion import PreferenceConfusion, favi_score, preference_confusion
from .result import FaviResult
from .score import FAVI_WEIGHTS, preferences
from .sign import SignTestResult, sign_test

__all__ = [
    "FAVI_WEIGHTS",
    "FaviResult",
    "PreferenceConfusion",
    "SignTestResult",
    "favi",
    "favi_score",
    "preference_confusion",
    "preferences",
    "sign_test",
]
