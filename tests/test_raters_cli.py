"""The command line reaches the rater-noise model: ``binaryeval fit --rater COLUMN --item COLUMN``.

Before, ``fit`` had no such options: long data (one row per rating) could only go through the
binary model, which takes every rating as the truth of its own output.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from binaryeval.cli import main
from binaryeval.errors import BinaryEvalWarning
from binaryeval.raters import fit_raters
from binaryeval.raters._simulate import simulate_crowd

FORMULA = "rating ~ metric | system"


@pytest.fixture(scope="module")
def crowd():
    df, _ = simulate_crowd(1, alphas=[0.6, 0.4], n_items=80, per_item=(2, 4),
                           competence=[0.9, 0.85, 0.8, 0.0, 0.7], n_metric_only=20)
    return df


def _api(df, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BinaryEvalWarning)
        return fit_raters(FORMULA, df, rater="annotator", item="item", seed=1, draws=200,
                          chains=2, **kw)


@pytest.mark.parametrize(("flags", "kw"), [
    ([], {}),
    (["--raters", "mace", "--error-free", "r00"], {"raters": "mace", "error_free": ["r00"]}),
])
def test_fit_with_rater_and_item_is_the_rater_model_draw_for_draw(crowd, tmp_path, flags, kw,
                                                                  capsys):
    data, out = tmp_path / "long.csv", tmp_path / "fit.csv"
    crowd.to_csv(data, index=False)
    code = main(["fit", FORMULA, "--data", str(data), "--rater", "annotator", "--item", "item",
                 "--seed", "1", "--draws", "200", "--chains", "2", *flags, "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    got = pd.read_csv(out, index_col="system")
    want = _api(crowd, **kw).to_frame()
    assert got.index.tolist() == want.index.tolist()
    assert got["n_ratings"].tolist() == want["n_ratings"].tolist() == [233, 230]
    for column in ("estimate", "std_error", "lower", "upper", "naive"):
        np.testing.assert_allclose(got[column], want[column], rtol=1e-12)


def test_the_summary_names_the_rater_model_and_a_missing_item_column_by_its_flag(crowd, tmp_path,
                                                                                 capsys):
    data = tmp_path / "long.csv"
    crowd.to_csv(data, index=False)
    code = main(["fit", FORMULA, "--data", str(data), "--rater", "annotator", "--item", "item",
                 "--seed", "1", "--draws", "200", "--chains", "2"])
    text = capsys.readouterr().out
    assert code == 0
    assert text.startswith("Rater-noise model (dawid-skene)") and "rater model:" in text
    code = main(["fit", FORMULA, "--data", str(data), "--rater", "annotator"])
    err = capsys.readouterr().err
    assert code == 1
    assert "--rater annotator asks for the rater-noise model, which also needs --item" in err
    # refused before the data are read (a missing file is not even looked at)
    code = main(["fit", FORMULA, "--data", str(tmp_path / "absent.csv"), "--rater", "annotator",
                 "--item", "item", "--n-jobs", "2"])
    assert code == 1 and ("--n-jobs 2: it shapes the binary model's rho and eta per group; with "
                          "--rater and --item the fit is the rater-noise model"
                          in capsys.readouterr().err)


def test_plan_on_the_rater_model_refuses_the_binary_plans_options(crowd, tmp_path, capsys):
    # RaterFit.plan() takes no epsilon, power, ...: they reached it as keywords, a TypeError
    data, out = tmp_path / "long.csv", tmp_path / "plan.csv"
    crowd.to_csv(data, index=False)
    base = ["fit", FORMULA, "--data", str(data), "--rater", "annotator", "--item", "item",
            "--seed", "1", "--draws", "200", "--chains", "2", "--plan"]
    code = main([*base, "--epsilon", "0.1", "--power", "0.8"])
    err = capsys.readouterr().err
    assert code == 1
    assert ("error: --epsilon 0.1 --power 0.8: the rater-noise model's plan (--plan with "
            "--rater and --item)") in err and "Traceback" not in err
    assert main([*base, "-o", str(out)]) == 0
    got = pd.read_csv(out, index_col="system")
    want = _api(crowd).plan().to_frame()
    np.testing.assert_allclose(got.loc[want.index, "gain_rated"], want["gain_rated"], rtol=1e-10)
