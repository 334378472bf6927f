"""Meta-evaluation by correlation: how closely metrics follow human judgements.

Metric shared tasks (the WMT metrics task and its relatives) rank automatic metrics by their
correlation with human scores over a handful of systems.  With 7 to 20 systems, one correlation
carries a wide interval and the difference between two metrics is often well inside the noise.
This package gives the tools of Graham & Baldwin (2014) and Graham & Liu (2016):

* :func:`fisher_ci` -- the interval of one correlation via Fisher's r-to-z transform (asymmetric in
  r; for Spearman's rho and Kendall's tau with the variance adjustments of Bonett & Wright (2000)
  and Fieller, Hartley & Pearson (1957)).
* :func:`williams_test` -- Williams' (1959) t test of the difference of two *dependent, overlapping*
  correlations r12 and r13 (human vs metric A, human vs metric B) given r23 (metric A vs metric B).
* :func:`zou_ci` -- Zou's (2007) interval for r12 - r13, built from the two single intervals.
* :func:`correlate` -- a formula interface, ``correlate("human ~ bleu + chrf + comet", data)``,
  returning an immutable :class:`CorrelationResult` with every pairwise comparison.
* :func:`hybrid_supersample` -- hybrid super-sampling (Graham & Liu 2016): thousands of artificial
  systems mixing the segment outputs of pairs of real systems, to evaluate metrics on many systems.

Layout
------
``dependent.py``  :func:`fisher_ci`, :func:`williams_test` (:class:`WilliamsResult`), :func:`zou_ci`
``api.py``        :func:`correlate`, the formula entry point
``frame.py``      formula and data -> one row of scores per system (aggregation, row accounting)
``result.py``     :class:`CorrelationResult`
``hybrid.py``     :func:`hybrid_supersample`
``_kernels.py``   vectorised Fisher, Williams and Zou formulas; ``_matrices.py`` correlation
                  matrices; ``_resampling.py`` bootstrap and permutation tests; ``_args.py``
                  correlation-specific argument checks

Conventions
-----------
The WMT evaluation scripts report ``|r|`` (so that error metrics such as TER look good) and drop
human "systems" and outlier systems before correlating.  Here correlations keep their sign by
default: a term where lower is better, on either side of the formula, is negated explicitly
(``lower_is_better=["ter"]`` for an error metric, ``lower_is_better=["mqm"]`` for a human score
given as MQM error penalties, or a term ``I(-ter)`` in the formula), and a warning says when every
metric correlates negatively with the human score.  ``absolute=True`` reproduces the WMT convention
by flipping every metric whose correlation with the human score is negative; the flip is applied
to the metric's values, so the metric-metric correlations used by the Williams test change sign
consistently.  Which systems to drop (human translations, outliers) is the caller's decision:
filter the rows.

System scores are the unit: data with one row per system (corpus-level metrics) are used as
given; with ``| system`` the segment rows of each system are combined by ``aggregate="mean"`` (or
``"median"``), and the summary says which.

References
----------
Bonett, D. G., & Wright, T. A. (2000). Sample size requirements for estimating Pearson, Kendall and
Spearman correlations. Psychometrika, 65(1), 23-28.
Fieller, E. C., Hartley, H. O., & Pearson, E. S. (1957). Tests for rank correlation coefficients. I.
Biometrika, 44(3/4), 470-481.
Graham, Y., & Baldwin, T. (2014). Testing for significance of increased correlation with human
judgment. EMNLP 2014, 172-176.
Graham, Y., & Liu, Q. (2016). Achieving accurate conclusions in evaluation of automatic machine
translation metrics. NAACL 2016, 1-10.
Steiger, J. H. (1980). Tests for comparing elements of a correlation matrix. Psychological Bulletin,
87(2), 245-251.
Williams, E. J. (1959). The comparison of regression variables. JRSS B, 21(2), 396-399.
Zou, G. Y. (2007). Toward using confidence intervals to compare correlations. Psychological Methods,
12(4), 399-413.
"""

from __future__ import annotations

from .api import correlate
from .dependent import WilliamsResult, fisher_ci, williams_test, zou_ci
from .hybrid import hybrid_supersample
from .result import CorrelationResult

__all__ = [
    "CorrelationResult",
    "WilliamsResult",
    "correlate",
    "fisher_ci",
    "hybrid_supersample",
    "williams_test",
    "zou_ci",
]
