"""Make binary_rates_quadrature.json: the binary model's posterior means of rho and eta by 3-D
adaptive quadrature (scipy.integrate.tplquad) of the joint posterior, an implementation
independent of binaryeval.binary.rates (which sums a finite mixture).

Model (von Daeniken et al. 2022): alpha ~ Beta(1, 1) times the human ratings (paired ones
included), rho ~ Beta(1 + tp, 1 + fn), eta ~ Beta(1 + tn, 1 + fp), and the metric-only ratings
with k positives of M, each positive with probability q = alpha rho + (1 - alpha)(1 - eta).
Run: python tests/reference/binary_rates_quadrature.py (about a minute).
"""

import json
from pathlib import Path

from scipy import integrate, stats

CASES = [
    # human_pos, human_total (human-only), metric_pos, metric_total, tp, fn, tn, fp, known eta
    (0, 0, 30, 50, 8, 2, 7, 3, None),
    (12, 20, 14, 40, 5, 4, 6, 2, None),
    (3, 10, 25, 60, 9, 3, 4, 4, 0.7),
]


def moments(hp, ht, k, m, tp, fn, tn, fp, eta):
    hp2, ht2 = hp + tp + fn, ht + tp + fn + tn + fp   # paired rows inform alpha too

    def dens(a, r, e):
        q = a * r + (1 - a) * (1 - e)
        out = stats.beta.pdf(r, 1 + tp, 1 + fn) * q ** k * (1 - q) ** (m - k)
        out *= a ** hp2 * (1 - a) ** (ht2 - hp2)
        return out * (stats.beta.pdf(e, 1 + tn, 1 + fp) if eta is None else 1.0)

    opts = dict(epsabs=1e-14, epsrel=1e-11)
    if eta is None:
        z = integrate.tplquad(lambda e, r, a: dens(a, r, e), 0, 1, 0, 1, 0, 1, **opts)[0]
        r1 = integrate.tplquad(lambda e, r, a: r * dens(a, r, e), 0, 1, 0, 1, 0, 1, **opts)[0]
        e1 = integrate.tplquad(lambda e, r, a: e * dens(a, r, e), 0, 1, 0, 1, 0, 1, **opts)[0]
        return r1 / z, e1 / z
    z = integrate.dblquad(lambda r, a: dens(a, r, eta), 0, 1, 0, 1, **opts)[0]
    r1 = integrate.dblquad(lambda r, a: r * dens(a, r, eta), 0, 1, 0, 1, **opts)[0]
    return r1 / z, eta


if __name__ == "__main__":
    rows = []
    for case in CASES:
        rho, eta = moments(*case)
        rows.append({"counts": list(case[:8]), "eta_known": case[8], "rho_mean": rho,
                     "eta_mean": eta})
    out = Path(__file__).with_suffix(".json")
    out.write_text(json.dumps({"source": "scipy.integrate.tplquad/dblquad of the binary model's "
                                         "joint posterior, by "
                                         "tests/reference/binary_rates_quadrature.py",
                               "cases": rows}, indent=2), encoding="utf-8")
    print(out.read_text())
