"""The statistical validation of the binary model: calibration study and peer intervals.

- :mod:`.calibration`: simulation-based calibration (the posterior's coverage when data come from
  its own prior) and frequentist coverage at fixed parameters, with the study's settings;
  ``studies/calibration.py`` in the repository runs the full, seeded study; and the random
  count sets of the engine's robustness sweeps (``random_designs``, ``pair_sweep``).
- :mod:`.peers`: the intervals the posterior is compared with -- Wald, Wilson and Clopper-Pearson
  for human ratings alone, prediction-powered inference (PPI, PPI++) and adjusted classify and
  count (ACC); the rank-sets of prediction-powered ranking (Chatzi et al. 2024).
"""

from .calibration import LEVELS, METHODS, Setting, coverage_region, pair_sweep, random_designs
from .peers import (
                    PeerInterval,
                    acc_interval,
                    classical_interval,
                    ppi_interval,
                    ppi_lambda,
                    rank_sets,
)

__all__ = ["LEVELS", "METHODS", "PeerInterval", "Setting", "acc_interval", "classical_interval",
           "coverage_region", "pair_sweep", "ppi_interval", "ppi_lambda", "random_designs", "rank_sets"]
