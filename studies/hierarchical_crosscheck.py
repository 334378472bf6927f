"""``rates="hierarchical"`` against an independent sampler of the same binary model.

Run from the repository root::

    python studies/hierarchical_crosscheck.py            # 40 data sets of binary_unequal

Data sets are drawn as in ``studies/hierarchical_sbc.py`` (design ``binary_unequal``: four
groups, 60 paired and 140 metric-only items each, ``log c ~ Normal(log 3, 0.5^2)``).  Each is
fitted twice:

* by :func:`binaryeval.latent.hierarchical.sample_batch` with the study's settings (4 chains,
  1,000 warm-up iterations, 500 draws);
* by a Gibbs sampler written here from the model's definition alone: the metric-only items'
  classes drawn given the shares and rates (data augmentation), then the shares and every
  group's rows from their Dirichlet full conditionals, then each row's population mean and log
  concentration by random-walk Metropolis (five moves per sweep, on the logit of the mean).

It prints, for the population mean of ``rho`` and its log concentration, the ratio of the two
samplers' posterior sds per data set, their difference in means (in posterior sds) and the
coverage of the true value by each sampler's 50 / 90 / 95 % intervals.  Two samplers that share
no code agreeing on every data set says the posterior is computed right; a shortfall in
coverage shared by both would then lie in the simulation or be chance.
"""

from __future__ import annotations

import importlib.util
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import special

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from binaryeval.latent.hierarchical import sample_batch  # noqa: E402

_spec = importlib.util.spec_from_file_location("hierarchical_sbc",
                                               ROOT / "studies" / "hierarchical_sbc.py")
sbc = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = sbc
_spec.loader.exec_module(sbc)

N_SETS, CHAINS, SWEEPS, BURN = 40, 4, 6000, 1000


def gibbs(paired, metric, loc, scale, rng):
    """Draws (chains, SWEEPS - BURN, data sets) of ``m_1[1]`` and ``log c_1``."""
    n, g = paired.shape[:2]
    p = np.broadcast_to(paired, (CHAINS, n, g, 2, 2)).astype(float)
    mt = np.broadcast_to(metric, (CHAINS, n, g, 2))
    pi = rng.dirichlet([1, 1], size=(CHAINS, n, g))
    th = rng.dirichlet([1, 1], size=(CHAINS, n, g, 2))
    u = rng.uniform(0.05, 0.95, (CHAINS, n, 2))  # m_k[1], rows k = 0, 1
    z = rng.normal(loc, scale, (CHAINS, n, 2))  # log c_k

    def log_cond(u, z, lt):  # (m_k, log c_k) given the rows; logit-m coordinates
        c = np.exp(z)
        a1, a0 = c * u, c * (1 - u)
        return (-0.5 * ((z - loc) / scale) ** 2 + np.log(u) + np.log1p(-u)
                + g * (special.gammaln(c) - special.gammaln(a1) - special.gammaln(a0))
                + ((a0[:, :, None] - 1) * lt[..., 0]
                   + (a1[:, :, None] - 1) * lt[..., 1]).sum(axis=2))

    keep_m, keep_z = [], []
    for it in range(SWEEPS):
        p1 = pi[..., 1, None] * th[..., 1, :]
        p0 = pi[..., 0, None] * th[..., 0, :]
        z1 = rng.binomial(mt, p1 / (p0 + p1))
        comp = p + np.stack([mt - z1, z1], axis=-2)  # complete counts (class, output)
        pi = rng.gamma(1 + comp.sum(axis=-1))
        pi /= pi.sum(axis=-1, keepdims=True)
        c = np.exp(z)
        gam = rng.gamma(np.stack([c * (1 - u), c * u], axis=-1)[:, :, None] + comp)
        th = np.clip(gam / gam.sum(axis=-1, keepdims=True), 1e-300, 1.0)
        lt = np.log(th)
        for _ in range(5):
            lu = np.log(u) - np.log1p(-u) + 0.5 * rng.standard_normal(u.shape)
            u2, z2 = 1 / (1 + np.exp(-lu)), z + 0.4 * rng.standard_normal(z.shape)
            take = np.log(rng.random(u.shape)) < log_cond(u2, z2, lt) - log_cond(u, z, lt)
            u, z = np.where(take, u2, u), np.where(take, z2, z)
        if it >= BURN:
            keep_m.append(u[:, :, 1].copy())
            keep_z.append(z[:, :, 1].copy())
    return np.stack(keep_m, axis=1), np.stack(keep_z, axis=1)


def coverage(x, truth):
    q = (x.reshape(-1, x.shape[-1]) < truth).mean(axis=0)
    return [float(np.mean(np.abs(q - 0.5) <= w / 2)) for w in (0.5, 0.9, 0.95)]


def main() -> None:
    design = next(d for d in sbc.DESIGNS if d.name == "binary_unequal")
    hp = design.hyper
    truth, paired, metric = sbc.simulate(design, np.random.default_rng(123), N_SETS)
    t0 = time.perf_counter()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        out = sample_batch(paired, np.zeros((N_SETS, sbc.GROUPS, 2)), metric,
                           np.ones((N_SETS, sbc.GROUPS, 2)), draws=sbc.DRAWS, chains=sbc.CHAINS,
                           warmup=sbc.WARMUP, seed=99, hyper=hp)
    t1 = time.perf_counter()
    gm, gz = gibbs(paired, metric, hp.loc, hp.scale, np.random.default_rng(0))
    t2 = time.perf_counter()
    print(f"HMC {t1 - t0:.0f} s, Gibbs {t2 - t1:.0f} s, {N_SETS} data sets")
    for name, hmc, gib, true in [("mean", out.mean[..., 1, 1], gm, truth["mean"]),
                                 ("log_concentration", np.log(out.concentration[..., 1]), gz,
                                  truth["log_concentration"])]:
        h, g = hmc.reshape(-1, N_SETS), gib.reshape(-1, N_SETS)
        ratio = g.std(axis=0) / h.std(axis=0)
        shift = np.abs(g.mean(axis=0) - h.mean(axis=0)) / h.std(axis=0)
        print(f"{name}: sd ratio Gibbs / HMC {ratio.min():.3f} to {ratio.max():.3f} "
              f"(median {np.median(ratio):.3f}); |mean difference| up to {shift.max():.2f} sd; "
              f"coverage 50/90/95 HMC {coverage(hmc, true)}, Gibbs {coverage(gib, true)}")


if __name__ == "__main__":
    main()
