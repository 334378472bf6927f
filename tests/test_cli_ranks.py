"""``binaryeval ranks``: the leaderboard on the command line is the API's ``ranks()``.

Every number compared here comes from the Python API on the same data with the same seed (the
command line must not compute anything of its own); the error cases check the message names the
flag and the fix.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import binaryeval as be
from binaryeval.cli import main


def _battles(seed=0, n=240, voted=60):
    """Ready verdicts of a judge on three systems; humans voted on the first ``voted`` rows of
    every pair (1: first better, 0: tie, -1: second better)."""
    rng = np.random.default_rng(seed)
    rows = []
    for a, b, p in (("A", "B", [0.5, 0.2, 0.3]), ("A", "C", [0.6, 0.2, 0.2]),
                    ("B", "C", [0.45, 0.2, 0.35])):
        human = 1 - rng.choice(3, size=n, p=p)
        judge = np.where(rng.random(n) < 0.7, human, rng.choice([1, 0, -1], size=n))
        rows.append(pd.DataFrame({"model_a": a, "model_b": b, "judge": judge,
                                  "human": np.where(np.arange(n) < voted, human, np.nan)}))
    return pd.concat(rows, ignore_index=True)


def _quiet(func, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kw)


def test_preference_ranks_equal_the_api(tmp_path):
    data = tmp_path / "battles.csv"
    _battles().to_csv(data, index=False)
    out = tmp_path / "ranks.csv"
    code = _quiet(main, ["ranks", "human ~ judge", "--data", str(data), "--first", "model_a",
                         "--second", "model_b", "--seed", "3", "--draws", "300", "-o", str(out)])
    assert code == 0
    got = pd.read_csv(out)
    fit = _quiet(be.fit_preferences, "human ~ judge", pd.read_csv(data), first="model_a",
                 second="model_b", seed=3, draws=300)
    want = fit.ranks().to_frame().reset_index()
    assert got["system"].tolist() == want["system"].tolist()
    for col in ("estimate", "std_error", "p_best", "naive_score"):
        np.testing.assert_allclose(got[col], want[col], rtol=1e-12, atol=1e-15)
    for col in ("rank", "lower", "upper", "naive_rank"):
        assert got[col].tolist() == want[col].astype(int).tolist()


def test_binary_ranks_equal_the_api_and_seed_the_intervals(capsys):
    code = _quiet(main, ["ranks", "I(mqm == 0) ~ chrf | system", "--data", "wmt21_ende",
                         "--threshold", "balanced", "--seed", "1", "--format", "csv"])
    assert code == 0
    from io import StringIO

    got = pd.read_csv(StringIO(capsys.readouterr().out))
    fit = _quiet(be.fit, "I(mqm == 0) ~ chrf | system", be.datasets.load_wmt21_ende(),
                 threshold="balanced")
    want = fit.ranks(seed=1).to_frame().reset_index()
    assert got["system"].tolist() == want["system"].tolist()
    np.testing.assert_allclose(got["p_best"], want["p_best"], rtol=1e-12, atol=1e-15)
    assert got["lower"].tolist() == want["lower"].tolist()
    assert got["upper"].tolist() == want["upper"].tolist()


def test_options_of_the_other_model_are_refused_by_name(tmp_path, capsys, monkeypatch):
    # Guards: --threshold on ready preferences named --tolerance, which they refuse too; the
    # message now says what applies to ready preferences, before the data are read
    from binaryeval.cli import ranks as ranks_command

    data = tmp_path / "battles.csv"
    _battles().to_csv(data, index=False)
    read = []
    monkeypatch.setattr(ranks_command, "read_data", lambda args: read.append(args) or 1 / 0)
    code = main(["ranks", "human ~ judge", "--data", str(data), "--first", "model_a",
                 "--second", "model_b", "--threshold", "0.5"])
    err = capsys.readouterr().err
    assert code == 1 and err == (
        "binaryeval ranks: error: --threshold 0.5: it applies to ratings of single outputs "
        "(0/1 human ratings beside a metric's, without --item, --first and --second); ready "
        "preferences (--first/--second) are verdicts already (first/tie/second, 1/0/-1 or "
        "+/=/-), used as they are: leave it out; what applies to them is --rates, --level, "
        "--dependence (several judges) and the sampler's --seed, --draws and --chains\n")
    code = main(["ranks", "human ~ judge", "--data", str(data), "--first", "model_a",
                 "--second", "model_b", "--threshold", "balanced", "--prior", "2,3"])
    err = capsys.readouterr().err
    assert code == 1 and "error: --threshold balanced --prior 2,3: they apply to ratings of " \
        "single outputs" in err and "leave them out" in err and "--tolerance" not in err
    # scores per item take --tolerance and --lower-is-better
    code = main(["ranks", "mqm ~ chrf | system", "--data", str(data), "--item", "seg_id",
                 "--bins", "3"])
    err = capsys.readouterr().err
    assert code == 1 and "error: --bins 3: it applies to ratings of single outputs" in err
    assert "preferences from scores per item (--item) compare each item's scores as they " \
           "are: leave it out; score differences up to --tolerance are ties, and " \
           "--lower-is-better names the scores where lower is better" in err
    assert read == []
    monkeypatch.undo()
    # ready preferences refuse --tolerance themselves, naming what it is for
    code = main(["ranks", "human ~ judge", "--data", str(data), "--first", "model_a",
                 "--second", "model_b", "--tolerance", "0.5"])
    err = capsys.readouterr().err
    assert code == 1 and "--tolerance 0.5: it turns scores per (item, system) into " \
        "preferences (with --item); the data already hold preferences" in err
    code = main(["ranks", "I(mqm == 0) ~ chrf | system", "--data", "wmt21_ende",
                 "--tolerance", "1"])
    err = capsys.readouterr().err
    assert code == 1 and "--tolerance" in err and "--first/--second" in err


def test_the_input_is_never_overwritten(tmp_path, capsys):
    data = tmp_path / "battles.csv"
    _battles().to_csv(data, index=False)
    before = data.read_bytes()
    code = main(["ranks", "human ~ judge", "--data", str(data), "--first", "model_a",
                 "--second", "model_b", "-o", str(data), "--overwrite"])
    assert code == 2 and "input" in capsys.readouterr().err
    assert data.read_bytes() == before


def test_hierarchical_rates_rank_the_sampled_fit_with_its_seed(tmp_path, monkeypatch):
    # --rates hierarchical takes the latent-truth sampler: --seed seeds that fit (its ranks
    # come from the fit's own draws), as binaryeval.fit(..., rates="hierarchical", seed=)
    from binaryeval.latent import hierarchical

    monkeypatch.setattr(hierarchical, "WARMUP", 30)
    rng = np.random.default_rng(4)
    rows = []
    for system, alpha in (("A", 0.8), ("B", 0.5), ("C", 0.2)):
        truth = rng.random(60) < alpha
        judge = np.where(truth, rng.random(60) < 0.85, rng.random(60) < 0.2)
        rows.append(pd.DataFrame({"system": system, "judge": judge.astype(int),
                                  "human": np.where(np.arange(60) < 20, truth, np.nan)}))
    data = tmp_path / "ratings.csv"
    pd.concat(rows, ignore_index=True).to_csv(data, index=False)
    out = tmp_path / "ranks.csv"
    code = _quiet(main, ["ranks", "human ~ judge | system", "--data", str(data), "--rates",
                         "hierarchical", "--seed", "2", "--draws", "20", "--chains", "2",
                         "-o", str(out)])
    assert code == 0
    got = pd.read_csv(out)
    fit = _quiet(be.fit, "human ~ judge | system", pd.read_csv(data), rates="hierarchical",
                 seed=2, draws=20, chains=2)
    want = fit.ranks().to_frame().reset_index()
    assert got["system"].tolist() == want["system"].tolist()
    np.testing.assert_allclose(got["estimate"], want["estimate"], rtol=1e-12)
    assert got["lower"].tolist() == want["lower"].tolist()
    assert got["upper"].tolist() == want["upper"].tolist()


def test_help_says_what_the_seed_seeds(capsys):
    # Guards: --help said "seed of the sampler" only, while on the exact binary model (the
    # epilog's first example) --seed seeds the rank intervals' draws, as ranks(seed=) does
    assert main(["ranks", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ("--seed SEED seed of the sampler; on the exact binary model (one binary or "
            "thresholded metric), which draws nothing, the seed of the rank intervals' joint "
            "draws") in out


def test_too_few_draws_for_the_level_name_the_flag_and_the_draws_per_chain(tmp_path, capsys):
    # 2 chains x 40 draws: the sizing halves (2 x 20) cannot hold 99 %; 99 per chain can
    from io import StringIO

    data = tmp_path / "battles.csv"
    _battles().to_csv(data, index=False)
    code = main(["ranks", "human ~ judge", "--data", str(data), "--first", "model_a",
                 "--second", "model_b", "--seed", "1", "--draws", "40", "--chains", "2",
                 "--level", "0.99", "-f", "csv"])
    captured = capsys.readouterr()
    assert code == 0
    assert "need at least 198 posterior draws (99 per chain) and there are 80" in captured.err
    assert "draw more (--draws)" in captured.err and "n_resamples" not in captured.err
    got = pd.read_csv(StringIO(captured.out))
    assert (got["lower"] == 1).all() and (got["upper"] == len(got)).all()
