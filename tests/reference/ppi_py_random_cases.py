"""Make ppi_py_random_cases.json: ppi_py on the seeded random data of
tests/test_calibration.py::test_ppi_matches_ppi_py_on_random_data.

Run with ppi-python installed (``pip install ppi-python==0.2.3``):

    python tests/reference/ppi_py_random_cases.py

The data are drawn exactly as in the test (same seed, same order of draws); the test checks that
its counts equal the ``counts`` stored here before it compares with the stored ppi_py numbers, so
the file and the test cannot drift apart unnoticed.  ppi_py is imported inside ``main`` so that
importing this file (pytest's ``--doctest-modules`` does) needs no ppi_py.
"""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import numpy as np

SEED = 20251122  # tests/test_calibration.py::SEED
CASES = [(50, 500, 0.3, 0.8, 0.7), (200, 5000, 0.6, 0.9, 0.9), (30, 100, 0.8, 0.6, 0.95)]


def main() -> None:
    import ppi_py

    rng = np.random.default_rng(SEED)
    out = []
    for n, N, a, rho, eta in CASES:
        y = (rng.random(n) < a).astype(float)
        yhat = np.where(y == 1, rng.random(n) < rho, rng.random(n) > eta).astype(float)
        truth_u = rng.random(N) < a
        yhat_u = np.where(truth_u, rng.random(N) < rho, rng.random(N) > eta).astype(float)
        case = {"n": n, "N": N, "alpha": a, "rho": rho, "eta": eta,
                "counts": dict(tp=int(((y == 1) & (yhat == 1)).sum()),
                               fn=int(((y == 1) & (yhat == 0)).sum()),
                               tn=int(((y == 0) & (yhat == 0)).sum()),
                               fp=int(((y == 0) & (yhat == 1)).sum()),
                               metric_pos=int(yhat_u.sum()), metric_total=N)}
        for lam, key in ((None, "lam_None"), (1.0, "lam_1")):
            lo, hi = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, lam=lam)
            est = ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam)
            case[f"ppi_mean_pointestimate_{key}"] = float(np.squeeze(est))
            case[f"ppi_mean_ci_alpha0.05_{key}"] = [float(np.squeeze(lo)), float(np.squeeze(hi))]
        lo, hi = ppi_py.classical_mean_ci(y, alpha=0.05)
        case["classical_mean_ci_alpha0.05"] = [float(lo), float(hi)]
        out.append(case)
    versions = {name: version(name) for name in ("ppi-python", "numpy", "scipy", "statsmodels")}
    path = Path(__file__).with_name("ppi_py_random_cases.json")
    path.write_text(json.dumps({"versions": versions, "seed": SEED, "cases": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
