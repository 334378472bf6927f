"""Speed and mixing of binaryeval.fit_preferences on an LLM-judge leaderboard.

Run: ``PYTHONPATH=. python benchmarks/bench_latent.py [--baseline REV | --no-baseline]``.

The design: 20 systems with Bradley-Terry strengths (a tie class as in Davidson 1970), every
one of the 190 pairs compared on 158 items (30,020 verdicts), a judge whose 3 x 3 confusion
matrix (first better / tie / second better) differs somewhat between pairs (each row drawn from
a Dirichlet around a common matrix, concentration 40), and a human verdict on 10 % of the items
(about 3,000; 27,000 judge-only).  One :func:`binaryeval.fit_preferences` call at its defaults
(4 chains x 1,000 draws after 250 warm-up).  Prints the wall and CPU time against the goal of
5 s, the worst R-hat and bulk / tail ESS over every reported quantity (``diff`` and the three
shares of every pair), the convergence warnings, and how often the 95 % intervals of ``diff``
cover the simulation's true ``P(first) - P(second)``.

The baseline is the sampler of revision ``REV`` (default: the last one with the Laplace
proposal), loaded from git into this process and run on the same data with the same seed; the
ratio of the two times is the speed-up (a loaded machine slows both alike).  The second design
is the earlier, friendlier one (300 paired and 3,000 metric-only items per pair from scores).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from binaryeval.latent import _common, diagnostics, fit_preferences

GOAL_SECONDS = 5.0
BASELINE = "941f54a"  # the sampler with the Laplace proposal (move C)
ROOT = Path(__file__).resolve().parents[1]
JUDGE = np.array([[0.70, 0.18, 0.12], [0.25, 0.50, 0.25], [0.12, 0.18, 0.70]])


def leaderboard(seed: int = 0, n_systems: int = 20, items: int = 158, human_share: float = 0.1,
                spread: float = 40.0, tie: float = 0.6) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pairwise verdicts (``first``, ``second``, ``human`` with NaN when not rated, ``judge``;
    1 first better, 0 tie, -1 second better) and the true class shares of every pair."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 0.8, n_systems)
    names = [f"m{i:02d}" for i in range(n_systems)]
    frames, truth = [], []
    for a, b in zip(*np.triu_indices(n_systems, k=1), strict=True):
        ea, eb = np.exp(strength[a]), np.exp(strength[b])
        share = np.array([ea, tie * np.sqrt(ea * eb), eb])
        share /= share.sum()
        confusion = np.array([rng.dirichlet(spread * row) for row in JUDGE])
        cls = rng.choice(3, size=items, p=share)
        judged = (rng.random(items)[:, None] > np.cumsum(confusion[cls], axis=1)).sum(axis=1)
        rated = rng.random(items) < human_share
        frames.append(pd.DataFrame({"first": names[a], "second": names[b],
                                    "human": np.where(rated, 1.0 - cls, np.nan),
                                    "judge": 1.0 - judged}))
        truth.append((names[a], names[b], *share))
    return (pd.concat(frames, ignore_index=True),
            pd.DataFrame(truth, columns=["group_1", "group_2", "win_1", "tie", "win_2"]))


def scores(seed: int = 0, n_systems: int = 20, n_paired: int = 300, n_metric: int = 3000):
    """The earlier design: scores per (item, system), humans on the first ``n_paired`` items."""
    rng = np.random.default_rng(seed)
    n_items = n_paired + n_metric
    quality = np.linspace(0.0, 0.8, n_systems)
    latent = (quality[None, :] + rng.normal(0, 1, n_items)[:, None]
              + rng.normal(0, 1, (n_items, n_systems)))
    human = np.clip(np.round(3 + latent), 1, 5)
    metric = latent + rng.normal(0, 0.3, n_systems)[None, :] + rng.normal(0, 0.8, latent.shape)
    human[n_paired:] = np.nan
    return pd.DataFrame({"item": np.repeat(np.arange(n_items), n_systems),
                         "system": np.tile([f"sys{k:02d}" for k in range(n_systems)], n_items),
                         "human": human.ravel(), "metric": metric.ravel()})


@contextmanager
def engine_of(rev: str | None):
    """Run the faces with the sampler of git revision ``rev`` (None: the working tree's)."""
    if rev is None:
        yield
        return
    source = subprocess.run(["git", "show", f"{rev}:binaryeval/latent/engine.py"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        # the old module's relative imports resolve inside the package
        path = Path(tmp) / "engine_baseline.py"
        path.write_text(source.replace("from ..errors import", "from binaryeval.errors import")
                        .replace("from .. import", "from binaryeval import"))
        spec = importlib.util.spec_from_file_location("engine_baseline", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        saved = _common.sample
        _common.sample = lambda model, **kw: module.sample(module.Model(**{
            f: getattr(model, f) for f in module.Model.__dataclass_fields__}), **kw)
        try:
            yield
        finally:
            _common.sample = saved


def timed_fit(call):
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = call()
    return res, time.perf_counter() - t0, time.process_time() - c0, [
        str(w.message) for w in caught if "reliable" in str(w.message)]


def worst(res) -> tuple[float, float, float]:
    """Largest R-hat and smallest bulk and tail ESS over diff and the three shares."""
    pi = res.latent.draws.pi  # (chains, draws, pairs, 3)
    x = np.concatenate([pi, (pi[..., 0] - pi[..., 2])[..., None]], axis=3)
    x = x.reshape(*x.shape[:2], -1)
    return (float(diagnostics.rhat(x).max()), float(diagnostics.ess_bulk(x).min()),
            float(diagnostics.ess_tail(x).min()))


def report(name: str, res, wall: float, cpu: float, warned: list[str]) -> None:
    r, eb, et = worst(res)
    print(f"  {name}: wall {wall:.2f} s, CPU {cpu:.2f} s; worst R-hat {r:.4f}, bulk ESS "
          f"{eb:.0f}, tail ESS {et:.0f}; convergence warnings: {len(warned)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE,
                        help="git revision of the sampler to compare with")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulated data")
    args = parser.parse_args()
    baseline = None if args.no_baseline else args.baseline

    df, truth = leaderboard(args.seed)
    n_human = int(df.human.notna().sum())
    print(f"leaderboard: 20 systems, 190 pairs, {len(df)} verdicts, {n_human} with a human "
          f"verdict, {len(df) - n_human} judge only; fit_preferences at its defaults")

    def call():
        return fit_preferences("human ~ judge", df, first="first", second="second", seed=1)

    res, wall, cpu, warned = timed_fit(call)
    report("now", res, wall, cpu, warned)
    print(f"  goal {GOAL_SECONDS:.0f} s: now/goal = {wall / GOAL_SECONDS:.2f} "
          f"(CPU {cpu / GOAL_SECONDS:.2f})")
    frame = res.to_frame().merge(truth, on=["group_1", "group_2"], suffixes=("", "_true"))
    true_diff = frame.win_1_true - frame.win_2_true
    covered = np.mean((frame.lower <= true_diff) & (true_diff <= frame.upper))
    naive = np.abs(frame.naive_diff - true_diff).mean()
    print(f"  95% intervals covering the true diff: {covered:.3f} of {len(frame)} pairs; mean "
          f"|error| corrected {np.abs(frame['diff'] - true_diff).mean():.4f}, naive judge "
          f"{naive:.4f}")
    if baseline is not None:
        with engine_of(baseline):
            old, old_wall, old_cpu, old_warned = timed_fit(call)
        report(f"baseline {baseline}", old, old_wall, old_cpu, old_warned)
        print(f"  speed-up: wall {old_wall / wall:.1f}x, CPU {old_cpu / cpu:.1f}x")

    scored = scores(args.seed)
    print("\nscores: 20 systems, 190 pairs, 300 paired + 3,000 metric-only items per pair")

    def call_scores():
        return fit_preferences("human ~ metric | system", scored, item="item",
                               tolerance={"metric": 0.25}, seed=1)

    res, wall, cpu, warned = timed_fit(call_scores)
    report("now", res, wall, cpu, warned)
    if baseline is not None:
        with engine_of(baseline):
            old, old_wall, old_cpu, old_warned = timed_fit(call_scores)
        report(f"baseline {baseline}", old, old_wall, old_cpu, old_warned)
        print(f"  speed-up: wall {old_wall / wall:.1f}x, CPU {old_cpu / cpu:.1f}x")


if __name__ == "__main__":
    main()
