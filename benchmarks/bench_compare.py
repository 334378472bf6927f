"""Speed of BinaryFit.compare on human-only fits (one Beta posterior per group).

Run: ``PYTHONPATH=. python benchmarks/bench_compare.py [--groups K]``.

Builds ``K`` groups with 527 human ratings each (the WMT21 en-de design) and times
``compare()``.  As the baseline, the same comparison is run in the same process with the
posteriors' ``pdf``/``cdf`` forced through the general per-point mixture path (what a
single-Beta posterior used before its vectorised shortcut); prints both times, their ratio and
the largest difference in ``prob_greater`` between the two runs.
"""

from __future__ import annotations

import argparse
import time
from unittest import mock

import numpy as np

import binaryeval as be
from binaryeval.binary.engine import AlphaPosterior


def _pdf_general(self, x):
    xs = np.atleast_1d(np.asarray(x, dtype=float))
    out = np.empty(xs.shape)
    from scipy import stats

    for i, xv in enumerate(xs.ravel()):
        out.flat[i] = 0.0 if (xv < 0 or xv > 1) else float(
            np.dot(self.weights, stats.beta.pdf(xv, self.a, self.b)))
    return float(out[0]) if np.ndim(x) == 0 else out.reshape(np.shape(x))


def _cdf_general(self, x):
    xs = np.atleast_1d(np.asarray(x, dtype=float))
    out = np.empty(xs.shape)
    from scipy import stats

    for i, xv in enumerate(xs.ravel()):
        out.flat[i] = float(np.clip(xv, 0.0, 1.0)) if (xv <= 0 or xv >= 1) else float(
            np.dot(self.weights, stats.beta.cdf(xv, self.a, self.b)))
    return float(out[0]) if np.ndim(x) == 0 else out.reshape(np.shape(x))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--groups", type=int, default=11)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    pos = rng.integers(270, 360, args.groups)
    res = be.fit_counts({f"s{i}": {"human_pos": int(k), "human_total": 527}
                         for i, k in enumerate(pos)})
    t0 = time.perf_counter()
    fast = res.compare().to_frame()
    t_fast = time.perf_counter() - t0
    with mock.patch.object(AlphaPosterior, "pdf", _pdf_general), \
            mock.patch.object(AlphaPosterior, "cdf", _cdf_general):
        t0 = time.perf_counter()
        slow = res.compare().to_frame()
        t_slow = time.perf_counter() - t0
    diff = float(np.max(np.abs(fast["prob_greater"] - slow["prob_greater"])))
    print(f"{args.groups} groups, {len(fast)} pairs")
    print(f"compare(), vectorised single Beta: {t_fast:.3f} s")
    print(f"compare(), per-point mixture path: {t_slow:.3f} s")
    print(f"ratio (per-point / vectorised): {t_slow / t_fast:.1f}x; max |diff| prob_greater {diff:.1e}")


if __name__ == "__main__":
    main()
