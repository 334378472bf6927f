"""Accuracy of the posterior's CDF against its term-by-term mixture at 10^6, 10^7 and 10^8 ratings.

Run: ``python benchmarks/bench_accuracy.py [--max 1e8]``.

For each size the posterior of a design with 1000 human and 1200 paired ratings is built and its
CDF and survival function are evaluated at nine points across the mass.  The reference is the
term-by-term mixture ``sum_j w_j I_x(a_j, b_j)`` of the same components and weights, computed
without the package's kernels: ``scipy.special.betainc`` for every component within 40 kernel
widths of ``x``, and the plain sum of the weights of the components below (whose ``I_x`` is 1 to
within 1e-300).  The documented bound is 1e-12 up to 10^7 ratings and 1e-11 up to 10^8
(``binaryeval.binary.posterior``); the script prints the largest differences and the bound.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import special

import binaryeval as be

BOUNDS = {10**6: 1e-12, 10**7: 1e-12, 10**8: 1e-11}


def reference(post, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Term-by-term CDF and survival function of ``post`` at ``xs`` (see the module notes)."""
    a, b, w = post.components()
    n = float(a[0] + b[0])
    order = np.argsort(a)
    a, b, w = a[order], b[order], w[order]
    cdf, sf = [], []
    for x in xs:
        s = np.sqrt(n * x * (1.0 - x))
        lo = np.searchsorted(a, x * n - 40.0 * s - 100.0)
        hi = np.searchsorted(a, x * n + 40.0 * s + 100.0)
        mid = slice(lo, hi)
        cdf.append(float(w[:lo].sum()) + float(np.dot(w[mid], special.betainc(a[mid], b[mid], x))))
        sf.append(float(w[hi:].sum()) + float(np.dot(w[mid], special.betaincc(a[mid], b[mid], x))))
    return np.array(cdf), np.array(sf)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--max", type=float, default=1e8, help="largest number of metric ratings")
    args = parser.parse_args(argv)
    print(f"{'metric ratings':>15}{'components':>13}{'build s':>9}{'|dF|':>10}{'|dS|':>10}"
          f"{'bound':>9}  within")
    for m in BOUNDS:
        if m > args.max:
            break
        t0 = time.perf_counter()
        post = be.alpha_posterior(human_pos=600, human_total=1000, metric_pos=int(0.56 * m),
                                  metric_total=m, tp=960, fn=240, tn=640, fp=160)
        t1 = time.perf_counter()
        xs = post.mean() + post.std() * np.linspace(-6.0, 6.0, 9)
        ref_cdf, ref_sf = reference(post, xs)
        d_cdf = float(np.max(np.abs(post.cdf(xs) - ref_cdf)))
        d_sf = float(np.max(np.abs(post.sf(xs) - ref_sf)))
        ok = max(d_cdf, d_sf) <= BOUNDS[m]
        print(f"{m:>15,}{post.n_components:>13,}{t1 - t0:>9.2f}{d_cdf:>10.1e}{d_sf:>10.1e}"
              f"{BOUNDS[m]:>9.0e}  {'yes' if ok else 'NO'}")


if __name__ == "__main__":
    main()
