"""How many expert preference ratings the corrected model needs on WMT21 en-de (full run).

Run from the repository root::

    python studies/preference_subsample.py                      # about 3 minutes on one core
    python studies/preference_subsample.py --out /tmp/quick.csv # elsewhere

The data are the shipped ``load_wmt21_ende()``: the ten systems with expert MQM scores and
sentence chrF, BLEU and TER, 45 pairs of systems, 527 expert-rated segments of 1,002.  The
human preference of a pair on a segment is the sign of the MQM difference; a metric's is the sign
of its score difference with differences up to a tolerance counted as ties, the tolerance set so
that the metric ties as often as the experts do on the rated segments (TER enters negated).

The *call* of a pair is what its central 95 % interval of ``diff = win_1 - win_2`` says: first
better (above 0), second better (below 0), or no call.  The full human evaluation makes it from
the exact Dirichlet(1 + counts) posterior of all 527 rated segments (4,000 draws, seed 1).  For a
size ``n``, ``repeats`` random sets of ``n`` rated segments (the same for every pair, as in a
real evaluation) keep their expert ratings; the metric's preferences stand on the other
segments; :func:`binaryeval.latent_posterior` fits the 45 pairs x ``repeats`` tables at once.

Two studies:

* ``subsample``: chrF alone at n = 50 ... 527, 8 repeats, 1,000 draws (seed 0);
* ``combine``: chrF, BLEU, TER alone (1,000 draws) and chrF with BLEU or with TER (the joint
  pattern of the two metrics' preferences, 9 outputs; 2,000 draws), n = 100 and 264, 4 repeats
  (seed 7).

The draws are what every row needs to converge: each row records the worst R-hat and the
smallest bulk or tail ESS over the shares of its 45 x ``repeats`` tables, and the tests hold the
saved rows to R-hat <= 1.01 and ESS >= 400 (the package's own ConvergenceWarning rule).  The
joint model of two metrics mixes slowly: at 300 draws its R-hat was 1.6 and its bulk ESS 7, and
the unconverged draws showed a mean sd of ``diff`` a fifth below the converged one (0.058
against 0.071 at n = 100), a gain from the second metric that is not there.

Every row has its own random stream (``default_rng([seed, n])`` for the subsamples, seed
``seed + n`` for the sampler), so one row can be re-run alone and gives the same numbers on the
same machine (on another CPU the sampler's last-bit rounding can differ, and its calls then
agree within Monte Carlo error: ``tests/reruns.py``).

Output: ``vignettes/data/preference_subsample.csv``, one row per study x metrics x n:
``study``, ``metrics`` (joined by `` + ``), ``n``, ``share`` (n / 527), ``repeats``, ``draws``,
``seed``, ``rhat`` (the worst over the shares), ``ess`` (the smallest bulk or tail ESS),
``corrected`` (share of the 45 x repeats calls equal to the full evaluation's),
``corrected_sign`` (the same for the sign of the posterior mean of ``diff``), ``human_only``
(the calls of the kept expert ratings alone, exact Dirichlet posterior) and ``sd`` (mean
posterior sd of ``diff``).  ``vignettes/preferences.qmd`` reads it;
``tests/test_preference_subsample.py`` re-runs one row and compares it with the saved one.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import binaryeval as be  # noqa: E402
from binaryeval import datasets  # noqa: E402

OUT = ROOT / "vignettes" / "data" / "preference_subsample.csv"
DIRECTION = {"chrf": 1.0, "bleu": 1.0, "ter": -1.0}
STUDIES = [
    # (study, metric sets, sizes, repeats, draws by the number of metrics, seed)
    ("subsample", [["chrf"]], [50, 100, 200, 264, 350, 450, 527], 8, {1: 1000}, 0),
    ("combine", [["chrf"], ["bleu"], ["ter"], ["chrf", "bleu"], ["chrf", "ter"]], [100, 264],
     4, {1: 1000, 2: 2000}, 7),
]


@dataclass(frozen=True)
class Preferences:
    """The preference classes of the 45 pairs x 1,002 segments and the full evaluation's calls."""

    systems: list[str]
    human: np.ndarray            # pairs x segments: 0 first better, 1 tie, 2 second; -1 missing
    metric: dict[str, np.ndarray]
    tolerance: dict[str, float]
    rated: np.ndarray            # the segments the experts rated
    full_counts: np.ndarray      # pairs x 3 over all rated segments
    full_call: np.ndarray        # the full evaluation's call per pair: 1, -1 or 0


def classes(diff: np.ndarray, tol: float = 0.0) -> np.ndarray:
    """0: first better, 1: tie, 2: second better; -1 where a score is missing."""
    out = np.where(diff > tol, 0, np.where(diff < -tol, 2, 1))
    return np.where(np.isnan(diff), -1, out)


def call(diff_draws: np.ndarray, level: float = 0.95) -> np.ndarray:
    """1 where the central interval lies above 0, -1 below 0, 0 otherwise (draws x pairs)."""
    lo, hi = np.quantile(diff_draws, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return np.where(lo > 0, 1, np.where(hi < 0, -1, 0))


def human_call(counts: np.ndarray, rng: np.random.Generator, size: int = 4000) -> np.ndarray:
    """The call from human ratings alone: draws of the exact Dirichlet(1 + counts) posterior."""
    g = rng.gamma(1.0 + counts[:, None, :], size=(counts.shape[0], size, 3))
    p = g / g.sum(axis=-1, keepdims=True)
    return call((p[..., 0] - p[..., 2]).T)


def prepare() -> Preferences:
    """Preference classes of every pair and segment from the shipped WMT21 en-de data."""
    ende = datasets.load_wmt21_ende()
    has_metric = ende.groupby("system")["chrf"].count() > 0
    systems = sorted(has_metric[has_metric].index)
    wmt = ende[ende["system"].isin(systems)]
    pairs = [(a, b) for i, a in enumerate(systems) for b in systems[i + 1:]]
    first = [systems.index(a) for a, _ in pairs]
    second = [systems.index(b) for _, b in pairs]
    wide = {v: wmt.pivot(index="seg_id", columns="system", values=v)[systems].to_numpy().T
            for v in ("mqm", *DIRECTION)}
    human_diff = wide["mqm"][first] - wide["mqm"][second]
    rated = ~np.isnan(human_diff)
    tie_share = float(np.mean(human_diff[rated] == 0))
    metric_diff = {m: s * (wide[m][first] - wide[m][second]) for m, s in DIRECTION.items()}
    tolerance = {m: float(np.quantile(np.abs(d[rated]), tie_share)) for m, d in metric_diff.items()}
    human = classes(human_diff)
    rated_segments = np.flatnonzero(rated[0])
    full_counts = np.stack([np.bincount(human[p, rated_segments], minlength=3)
                            for p in range(len(pairs))])
    full_call = human_call(full_counts, np.random.default_rng(1))
    return Preferences(systems, human, {m: classes(d, tolerance[m]) for m, d in metric_diff.items()},
                       tolerance, rated_segments, full_counts, full_call)


def subsample_row(prefs: Preferences, metrics: list[str], n: int, repeats: int, draws: int,
                  seed: int) -> dict:
    """Agreement with the full evaluation's calls for ``repeats`` subsamples of ``n`` segments."""
    rng = np.random.default_rng([seed, n])
    n_pairs, n_segments = prefs.human.shape
    out = np.zeros(prefs.human.shape, dtype=np.int64)
    for m in metrics:
        out = out * 3 + prefs.metric[m]
    j = 3 ** len(metrics)
    paired = np.zeros((repeats * n_pairs, 3, j), dtype=np.int64)
    metric_only = np.zeros((repeats * n_pairs, j), dtype=np.int64)
    human = np.zeros((repeats * n_pairs, 3), dtype=np.int64)
    for r in range(repeats):
        keep = np.zeros(n_segments, dtype=bool)
        keep[rng.choice(prefs.rated, n, replace=False)] = True
        for p in range(n_pairs):
            g = r * n_pairs + p
            np.add.at(paired[g], (prefs.human[p, keep], out[p, keep]), 1)
            metric_only[g] = np.bincount(out[p, ~keep], minlength=j)
            human[g] = np.bincount(prefs.human[p, keep], minlength=3)
    # (a row whose draws are not reliable says so: the ConvergenceWarning is not silenced)
    post = be.latent_posterior(paired, metric=metric_only, levels=(3,) * len(metrics),
                               draws=draws, seed=seed + n)
    shares = post.to_frame()
    d = (post.draws.pi[..., 0] - post.draws.pi[..., 2]).reshape(-1, repeats * n_pairs)
    truth = np.tile(prefs.full_call, repeats)
    sign = np.tile(np.sign(prefs.full_counts[:, 0] - prefs.full_counts[:, 2]), repeats)
    return {"metrics": " + ".join(metrics), "n": n, "share": n / len(prefs.rated),
            "repeats": repeats, "draws": draws, "seed": seed,
            "rhat": float(shares["rhat"].max()),
            "ess": float(shares[["ess_bulk", "ess_tail"]].min().min()),
            "corrected": float(np.mean(call(d) == truth)),
            "corrected_sign": float(np.mean(np.sign(d.mean(axis=0)) == sign)),
            "human_only": float(np.mean(human_call(human, rng) == truth)),
            "sd": float(d.std(axis=0).mean())}


def run(prefs: Preferences | None = None) -> pd.DataFrame:
    """Every row of both studies."""
    prefs = prepare() if prefs is None else prefs
    rows = []
    for study, sets, sizes, repeats, draws, seed in STUDIES:
        for metrics in sets:
            for n in sizes:
                start = time.process_time()
                rows.append({"study": study, **subsample_row(prefs, metrics, n, repeats,
                                                             draws[len(metrics)], seed)})
                print(f"{study} {' + '.join(metrics)} n={n}: {time.process_time() - start:.1f} s CPU",
                      flush=True)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="CSV to write (default: %(default)s)")
    args = parser.parse_args(argv)
    frame = run()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out, index=False, float_format="%.10g")
    print(f"wrote {len(frame)} rows to {args.out}")


if __name__ == "__main__":
    main()
