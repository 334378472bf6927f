"""The model's rates beyond every-term summation: accuracy and time.

Run: ``python benchmarks/bench_rates.py [--designs 161] [--seed 5]``.

``BinaryFit.rates()`` (and the ``rho``/``eta`` columns of ``to_frame()``) sum the (X, U) mixture
of :mod:`binaryeval.binary.rates` term by term up to 250,000 terms and on a checked lattice
beyond (:mod:`binaryeval.binary._lattice`).  Two checks:

1. random designs of 1,100-2,800 metric-only ratings (0-800 paired, some known rates, some rate
   priors (0.5, 2)) with more than 250,000 terms, and (1b) of 3,000-6,000 with 200-2,000 paired
   (where the lattice strides): the lattice's means and interval ends against the sum over
   every term (the package's own every-term path, itself tested against beta functions and
   Brent's method term by term); the largest gap.
2. designs of 30,000-50,000 metric-only ratings whose weights press an edge: the mixture's mean
   of ``alpha`` against the exact engine's (:func:`binaryeval.alpha_posterior`), now and with the
   coarse lattice (an eighth of the weights' spread apart, no edge handling) that was used for
   every design beyond 250,000 terms before, and the gap between their rho and eta ends; the
   CPU time of each.
3. the CPU time of one group's rates, now and with the coarse lattice, for groups of 1,300 to
   100,000 ratings with 10 % paired (weights inside or barely pressing: the two agree there).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import binaryeval as be
from binaryeval.binary import rates


def _design(rng, alpha, rho, eta, n_paired, M):
    adequate = rng.random(n_paired + M) < alpha
    metric = np.where(adequate, rng.random(n_paired + M) < rho, rng.random(n_paired + M) > eta)
    y, m = adequate[:n_paired], metric[:n_paired]
    tp, fn = int((y & m).sum()), int((y & ~m).sum())
    tn, fp = int((~y & ~m).sum()), int((~y & m).sum())
    return dict(k=int(metric[n_paired:].sum()), M=M, tp=tp, fn=fn, tn=tn, fp=fp)


def random_row(n: int, seed: int, sizes=(1100, 2800), paired=(0, 3, 10, 50, 200, 800),
               label: str = "1.") -> None:
    rng = np.random.default_rng(seed)
    worst, count, start = 0.0, 0, time.process_time()
    i = 0
    while count < n:
        i += 1
        alpha, rho, eta = rng.uniform(0.02, 0.98), rng.uniform(0.5, 0.999), rng.uniform(0.5, 0.999)
        d = _design(rng, alpha, rho, eta, int(rng.choice(paired)), int(rng.integers(*sizes)))
        case = dict(A=1 + d["tp"] + d["fn"] + int(rng.integers(0, 50)),
                    B=1 + d["tn"] + d["fp"] + int(rng.integers(0, 50)), **d,
                    rate_prior=(1, 1) if i % 5 else (0.5, 2.0))
        if i % 7 == 3:
            case["eta"] = float(rng.uniform(0.6, 0.99))
        if i % 9 == 4:
            case["rho"] = float(rng.uniform(0.6, 0.99))
        if (case["k"] + 1) * (case["M"] - case["k"] + 1) <= rates._FULL:
            continue
        count += 1
        got = rates.model_rates(**case)
        saved = rates._FULL
        rates._FULL = 10**8     # every term (the square holds at most 9 million here)
        try:
            want = rates.model_rates(**case)
        finally:
            rates._FULL = saved
        gaps = [abs(got[2] - want[2])] + [max(abs(g.mean - w.mean), abs(g.lower - w.lower),
                                                abs(g.upper - w.upper))
                                            for g, w in zip(got[:2], want[:2], strict=True)]
        worst = max(worst, *gaps)
    print(f"{label} {n} random designs of {sizes[0]:,}-{sizes[1]:,} metric-only ratings "
          f"(paired: {', '.join(map(str, paired))}) beyond 250,000 terms: largest gap to the sum "
          f"over every term {worst:.1e} (CPU {time.process_time() - start:.1f} s, both ways)")


def edge_row() -> None:
    print("2. weights pressing an edge: the mixture's mean of alpha minus the exact engine's")
    print(f"{'design':>44}{'now':>10}{'cpu s':>7}{'coarse':>10}{'cpu s':>7}{'rho ends':>10}"
          f"{'eta ends':>10}")
    for label, (alpha, rho, eta, n_paired, M, seed) in {
            "alpha .95, eta .995, 200 paired, 50,000": (0.95, 0.9, 0.995, 200, 50_000, 0),
            "alpha .95, eta .999, 100 paired, 30,000": (0.95, 0.9, 0.999, 100, 30_000, 1),
            "alpha .05, rho .999, 100 paired, 40,000": (0.05, 0.999, 0.9, 100, 40_000, 2)}.items():
        d = _design(np.random.default_rng(seed), alpha, rho, eta, n_paired, M)
        case = dict(A=1 + d["tp"] + d["fn"], B=1 + d["tn"] + d["fp"], **d, rate_prior=(1, 1))
        exact = be.alpha_posterior(d["tp"] + d["fn"], n_paired, d["k"], M, d["tp"], d["fn"],
                                   d["tn"], d["fp"]).mean()
        t = time.process_time()
        now = rates.model_rates(**case)
        t_now = time.process_time() - t
        saved = rates._on_lattice, rates._FULL_FALLBACK
        rates._on_lattice, rates._FULL_FALLBACK = (lambda args: None), 0
        try:
            t = time.process_time()
            coarse = rates.model_rates(**case)
            t_coarse = time.process_time() - t
        finally:
            rates._on_lattice, rates._FULL_FALLBACK = saved
        ends = [max(abs(a.lower - b.lower), abs(a.upper - b.upper))
                for a, b in zip(now[:2], coarse[:2], strict=True)]
        print(f"{label:>44}{now[2] - exact:>10.1e}{t_now:>7.1f}{coarse[2] - exact:>10.1e}"
              f"{t_coarse:>7.1f}{ends[0]:>10.1e}{ends[1]:>10.1e}")


def size_row(count: int = 5) -> None:
    """CPU a group now and with the coarse zoom, groups of 1,300-100,000 ratings, 10 % paired."""
    print("3. the model's rates of one group (10 % paired, alpha 0.3-0.85, rho 0.85, eta 0.8): "
          "CPU ms a group")
    print(f"{'ratings':>9}{'now':>8}{'coarse':>8}{'ends differ by':>16}")
    for n in (1300, 2500, 5000, 20_000, 100_000):
        rng = np.random.default_rng(3)
        cases = []
        for _ in range(count):
            d = _design(rng, rng.uniform(0.3, 0.85), 0.85, 0.8, n // 10, n - n // 10)
            cases.append(dict(A=1 + d["tp"] + d["fn"], B=1 + d["tn"] + d["fp"], **d,
                              rate_prior=(1, 1)))
        t = time.process_time()
        now = [rates.model_rates(**c) for c in cases]
        t_now = (time.process_time() - t) / count
        saved = rates._on_lattice, rates._FULL_FALLBACK
        rates._on_lattice, rates._FULL_FALLBACK = (lambda args: None), 0
        try:
            t = time.process_time()
            coarse = [rates.model_rates(**c) for c in cases]
            t_coarse = (time.process_time() - t) / count
        finally:
            rates._on_lattice, rates._FULL_FALLBACK = saved
        print(f"{n:>9,}{1e3 * t_now:>8.0f}{1e3 * t_coarse:>8.0f}{_gap(now, coarse):>16.1e}",
              end="")
        if n <= 2500:
            # small enough for every term (at most 4 million)
            saved = rates._FULL
            rates._FULL = 10**8
            try:
                full = [rates.model_rates(**c) for c in cases]
            finally:
                rates._FULL = saved
            print(f"   against every term: now {_gap(now, full):.1e}, coarse "
                  f"{_gap(coarse, full):.1e}", end="")
        print()


def _gap(xs, ys) -> float:
    """The largest gap between two lists of model_rates results' interval ends."""
    return max(max(abs(a.lower - b.lower), abs(a.upper - b.upper))
               for x, y in zip(xs, ys, strict=True) for a, b in zip(x[:2], y[:2], strict=True))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", type=int, default=161)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    random_row(args.designs, args.seed)
    random_row(40, 7, sizes=(3000, 6000), paired=(200, 800, 2000), label="1b.")
    edge_row()
    size_row()


if __name__ == "__main__":
    main()
