"""Planning an evaluation: how many human and metric ratings tell two systems apart.

The binary evaluation model (von Däniken et al. 2022, Sec. 4 and App. B) estimates the share of
adequate (positive) outputs ``alpha`` of a system from human ratings (error-free), metric ratings of
items without a human rating, and paired items carrying both ratings (which estimate the metric's
true-positive rate ``rho`` and true-negative rate ``eta``).  The *minimal detectable difference* at
significance level ``sig_level`` of two systems whose posteriors of ``alpha`` have the same
variance is

    eps = sqrt(2 var(alpha)) * z_{1 - sig_level/2},

shown as 1.0 when no rating informs ``alpha`` (``n_human = n_metric = 0``).  Two systems ``eps``
apart are then told apart half the time (power 0.5, the papers' definition).  Every planning
function takes ``power=``: ``eps`` then spans ``z_{1 - sig_level/2} + z_power`` sds of the
difference (power 0.8: 1.43 times the papers' ``eps`` at ``sig_level = 0.05``, about 2.04 times
the ratings for a given ``eps``).  Every plan's summary says which.  ``sig_level`` above 0.5 is
refused (a coverage given by mistake).

The promise was checked in seeded simulations (``studies/binary_plan_power.py``: two systems at
``alpha +- eps/2`` told apart by the z-test on their posteriors, rates estimated, 2,000
comparisons a design, 24 designs).  With 50-300 paired ratings ``eps`` was found 0.47-0.52 of
the time at power 0.5 and 0.79-0.80 at 0.8.  With 20-30 paired ratings the promise holds on
average (0.487 and 0.794 over ten designs) but single designs scatter more than the binomial
error (0.46-0.51 and 0.77-0.83; a weak metric, ``rho = eta = 0.7``, with 20 paired ratings:
0.46 and 0.77): with 20 paired ratings the priors shrink the difference of the posterior means
to 0.91-0.98 of ``eps`` while the posterior sds come out 0.91-0.99 of the plan's, and the two
nearly cancel.  Two equal
systems are told apart 0.030-0.064 of the time (0.030-0.052 with 20 paired ratings, where the
discrete test is conservative).  ``simulate="sample"`` is no correction there: its ``eps`` is
1-3 % smaller with 20 paired ratings and was found 0.471 and 0.785 of the time.

The papers' ``eps`` gives the other system this one's posterior variance.  Near ``alpha = 0`` or 1
a system ``eps`` away towards 0.5 has a wider posterior and the power falls short (``alpha =
0.05``, ``rho = 0.9``, 300 human and 5000 metric ratings, ``power=0.8``: found 71% of the time in
seeded simulated comparisons); :func:`detectable_difference`, :func:`detectable_difference_table`,
:func:`optimal_allocation` and :func:`required_sample_size` take ``variance="both"`` to give each
system its own variance, which keeps the planned power (``binaryeval plan --variance both``).

The model comes first
---------------------
Every planning function needs ``alpha`` and ``rho`` (``eta`` defaults to ``rho``): there is no
default system or metric, since a plan for made-up rates answers a different question.  Take them
from a pilot fit (the columns ``estimate``, ``rho`` and ``eta`` of its ``to_frame()``) or from the
literature.

Layout
------
``counts``
    expected and sampled counts of one planned experiment (:func:`expected_counts`);
``cells``
    the posterior moments of one planning cell, the cache of identical cells, joblib dispatch;
``detectable``
    :func:`detectable_difference`, :func:`detectable_difference_table`;
``simulation``
    :func:`simulate` (bias and spread over simulated experiments);
``sample_size``
    :func:`required_sample_size`;
``allocation``
    :func:`optimal_allocation` (splitting a budget);
``fit_plan``
    ``BinaryFit.plan()``: how many more human ratings would separate a fit's systems (this
    package sits above :mod:`binaryeval.binary` and adds the method to its result);
``latent_plan``
    ``LatentFit.plan()`` and ``PreferenceFit.plan()``, the same question for the latent-truth
    model (an effective-sample-size approximation, checked against the binary model's exact
    plan and, for preferences, by simulation; this package sits above :mod:`binaryeval.latent`
    too).

Counts of one planned experiment
--------------------------------
``simulate="expected"`` (the paper) replaces every count by its expected value, rounded:

* ``n+ = r(alpha n_human)`` human positives; they inform ``alpha``;
* ``m+ = r((alpha (rho + eta - 1) + 1 - eta) n_metric)`` metric positives among ``n_metric`` items
  rated by the metric only;
* ``n_p = r(psi n_paired)`` positives among the ``n_paired`` paired items, ``n_TP = r(rho n_p)``,
  ``n_TN = r(eta (n_paired - n_p))``; they inform only ``rho`` and ``eta``.

``rounding="half_up"`` is the paper's ``floor(x + 1/2)``; ``rounding="half_even"`` is Python's
``round``, as in the authors' tool.  ``simulate="sample"`` (the thesis' Algorithm 2) draws the counts
from their binomials ``n_resamples`` times instead.

The paired set
--------------
``n_human`` is always the number of human ratings that inform ``alpha``.  By default
(``n_paired=None``) the human-rated items are also rated by the metric, so ``n_paired = n_human``, the
paired human ratings *are* the human sample (counted once for ``alpha``) and ``psi = alpha``.  A
smaller ``n_paired`` is a subset of the human-rated items (again ``psi = alpha``).  A paired set larger
than the human sample, or one given an explicit share of positives ``psi``, is a separate calibration
set whose human ratings inform only the rates; this is how the authors' ``estimate_epsilon`` treats its
``n_rho_eta`` (its reference values are reproduced with ``psi = alpha``, see the tests).  To let such
a set also inform ``alpha``, add it to ``n_human``.

Rates
-----
``rates`` takes the values it takes in :func:`binaryeval.fit`.  ``rates="estimate"`` (the default)
estimates ``rho`` and ``eta`` from the paired counts (``rate_prior`` on each).  Known rates are
given by their values, ``rates={"rho": 0.7, "eta": 0.7}``: the analysis takes them as exact, and
since in a plan they are the metric's rates, ``rho`` and ``eta`` need not be given again (when they
are, they must agree).  ``rates="pooled"`` plans a paired set shared by the systems, as a pooled fit
uses it: the set (``n_paired``, default ``n_human``) may be larger than one system's human sample
and informs only the rates, with a share of positives ``psi`` that defaults to ``alpha`` (both
systems of the planned comparison are like this one).  The plan then treats the two systems'
posteriors as independent, ignoring the positive correlation that shared rates induce, which makes
the detectable difference slightly conservative.

Posterior engines
-----------------
``method="exact"`` (the default) uses :func:`binaryeval.binary.engine.alpha_posterior`;
``method="grid"`` the paper's midpoint grid (:func:`binaryeval.binary.grid.grid_posterior`,
``grid=(2000, 1000, 1000)`` unless given), which is far slower and carries a discretisation error of
order ``1 / N_alpha^2`` in the variance.

Reproducing the paper
---------------------
With the default settings (``rounding="half_up"``, exact engine) all 56 cells of the paper's
Table 12 (``rates="estimate"``) and 29 of the 30 cells of Table 1 (known rates) are reproduced
to three decimals.  The exception is Table 1 at ``n_human = 2500, n_metric = 10000``: the paper prints
0.020, while its own procedure gives 0.0213 (the exact posterior, the paper's grid and the normal
approximation agree, under either rounding), and its neighbouring cells agree with this computation;
the printed value is most likely a typo.  The authors' tool values (``estimate_epsilon``) are
reproduced with ``rounding="half_even"`` and ``psi = alpha`` for its separate paired set: the counts
exactly, ``eps`` within 0.4% (the NUTS Monte-Carlo error is up to 2%).  Where the paper's grid and
the exact engine differ, the grid's error is of order ``1 / N_alpha^2`` in the variance (< 0.1% of
``eps`` in these tables).

Speed
-----
The cost is that of the posterior engine, milliseconds to tens of milliseconds per distinct count
vector; the planning code around it (checks once per call, counts, keys, tables) adds about 1%
(``benchmarks/bench_plan.py`` prints both).  Identical posteriors are computed once: within a call
(simulated experiments that draw the same counts, cells without metric ratings whose posterior is
a Beta whatever the rates) and across calls (a process-wide cache, :func:`cells.cache_clear`).

Parallel sweeps
---------------
Tables, simulations and allocations take ``n_jobs``: the distinct posteriors are dealt out to
:class:`joblib.Parallel` in balanced batches, 16 per worker; inside
``joblib.parallel_config(backend="dask")`` (with a ``dask.distributed.Client``) or the Ray backend
the same call runs on a cluster.  Simulated counts are drawn in the calling process from
independent child seeds of ``seed``, one per cell, so results depend neither on ``n_jobs`` nor on
the backend.  Sweeps too small to gain from workers (fewer than two posteriors that need the
mixture) run in the calling process.

Examples
--------
>>> from binaryeval import plan
>>> round(plan.detectable_difference(0.6, 0.9, n_human=1000, n_metric=10000), 3)  # paper Table 12
0.028
"""

from __future__ import annotations

from . import cells as cells
from . import fit_plan as fit_plan  # BinaryFit.plan(): planning from a fit
from . import latent_plan as latent_plan  # LatentFit.plan(), PreferenceFit.plan()
from ._setup import DEFAULT_GRID as DEFAULT_GRID  # the paper's grid and Table 12's sizes
from ._setup import PAPER_N_HUMAN as PAPER_N_HUMAN
from ._setup import PAPER_N_METRIC as PAPER_N_METRIC
from .allocation import AllocationResult, optimal_allocation
from .counts import expected_counts
from .detectable import (
    DetectableDifferenceTable,
    detectable_difference,
    detectable_difference_table,
)
from .sample_size import SampleSizeResult, required_sample_size
from .simulation import SimulationResult, simulate

__all__ = [
    "AllocationResult",
    "DetectableDifferenceTable",
    "SampleSizeResult",
    "SimulationResult",
    "detectable_difference",
    "detectable_difference_table",
    "expected_counts",
    "optimal_allocation",
    "required_sample_size",
    "simulate",
]
