"""Dask frames give what pandas frames give: fits, Favi counts, correlations, row accounts, errors.

Every test builds a small pandas frame, splits it into Dask partitions (some of them empty or
without a value in a column) and compares the two results field by field: the pandas result is
the independent reference, and the comparison is exact wherever the quantity is a count.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pandas as pd
import pytest

import binaryeval as be
from binaryeval.errors import (
    ContradictionWarning,
    DataError,
    DirectionWarning,
    FormulaError,
    InputTypeError,
    ParameterError,
)

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")


@pytest.fixture(autouse=True)
def _synchronous():
    # one thread: fast and deterministic (the distributed scheduler has its own test below)
    # and object columns kept as they are (Dask would turn them into strings, numbers included)
    with dask.config.set({"scheduler": "synchronous", "dataframe.convert-string": False}):
        yield


def ratings(n=3000, seed=0, n_systems=5):
    """Human 0/1 with NaN, a binary and a scalar metric with NaN, two grouping columns with NaN."""
    rng = np.random.default_rng(seed)
    system = rng.choice([f"sys{i}" for i in range(n_systems)], n)
    lp = rng.choice(["de-en", "en-de", "zh-en"], n)
    quality = {f"sys{i}": 0.4 + 0.1 * i for i in range(n_systems)}
    truth = rng.random(n) < np.array([quality[s] for s in system])
    score = np.where(truth, rng.normal(0.7, 0.15, n), rng.normal(0.3, 0.15, n))
    human = np.where(rng.random(n) < 0.3, truth.astype(float), np.nan)
    metric = np.where(rng.random(n) < 0.9, (score > 0.5).astype(float), np.nan)
    score = np.where(np.isnan(metric), np.nan, score)
    df = pd.DataFrame({"system": system, "lp": lp, "human": human, "metric": metric,
                       "score": score, "mqm": np.where(np.isnan(human), np.nan,
                                                       np.where(human == 1, 0.0, 3.0))})
    df.loc[rng.random(n) < 0.02, "system"] = None
    df.loc[rng.random(n) < 0.02, "lp"] = None
    return df


def dask_frame(df, npartitions=7):
    ddf = dd.from_pandas(df, npartitions=npartitions, sort=False)
    assert ddf.npartitions > 1
    return ddf


def assert_same_fit(a, b):
    """Every field of two fits: counts, table, account, thresholds, text."""
    pd.testing.assert_frame_equal(a.counts, b.counts)
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    assert list(a.excluded.items()) == list(b.excluded.items())
    assert (a.n_rows, a.n_used) == (b.n_rows, b.n_used)
    assert a.groups == b.groups
    if isinstance(a.threshold, pd.Series):
        pd.testing.assert_series_equal(a.threshold, b.threshold)
    else:
        assert a.threshold == b.threshold
    assert a.threshold_rule == b.threshold_rule
    np.testing.assert_array_equal(pd.Series(a.diagnostics, dtype=float),
                                  pd.Series(b.diagnostics, dtype=float))
    assert str(a.summary()) == str(b.summary())


FITS = [
    ("human ~ metric | system", {}),
    ("human ~ metric | system + lp", {}),
    ("human ~ metric | system + lp", {"order": "input"}),
    ("human ~ metric", {"rates": "pooled"}),
    ("I(mqm == 0) ~ I(score > 0.5) | system", {}),
    ("human ~ 1 | lp", {}),
    ("human ~ metric | system", {"rates": {"rho": 0.8, "eta": 0.7}}),
    ("human ~ score | system", {"threshold": "balanced"}),
    ("human ~ score | system + lp", {"threshold": "youden", "order": "input"}),
    ("human ~ score | system", {"threshold": 0.45}),
    ("human ~ score | system", {"threshold": 0.45, "lower_is_better": "score"}),
    ("human ~ score | system", {"threshold": {"sys0": "balanced", "sys1": 0.5, "sys2": "youden",
                                              "sys3": 0.4, "sys4": "balanced"}}),
]


@pytest.mark.parametrize(("formula", "kw"), FITS, ids=[f"{f} {k}" for f, k in FITS])
def test_fit_on_dask_equals_pandas(formula, kw):
    df = ratings()
    # the score declared lower-is-better runs against the human ratings, and the known rates
    # are not those of the simulation: each said alike on both paths (any other warning fails)
    said = (DirectionWarning if kw.get("lower_is_better") else
            ContradictionWarning if isinstance(kw.get("rates"), dict) else None)
    with _warned(said):
        expected = be.fit(formula, df, **kw)
    with _warned(said):
        got = be.fit(formula, dask_frame(df), **kw)
    assert_same_fit(got, expected)
    # the counts are those of the rows: an independent count with pandas' groupby
    if "threshold" not in kw and formula == "human ~ metric | system":
        used = df.dropna(subset=["system"])
        both = used.dropna(subset=["human", "metric"])
        tp = both[(both.human == 1) & (both.metric == 1)].groupby("system").size()
        assert got.counts["tp"].to_dict() == tp.to_dict()


def _warned(category):
    """``pytest.warns(category)``, or no check (the package's warnings are errors) for None."""
    return pytest.warns(category) if category is not None else contextlib.nullcontext()


def test_group_order_is_first_appearance_across_partitions():
    df = ratings(n=400)
    df = df.dropna(subset=["system"])
    # the first partition holds only sys3, so sys3 must come first, as in pandas
    df = pd.concat([df[df.system == "sys3"], df[df.system != "sys3"]], ignore_index=True)
    got = be.fit("human ~ metric | system", dask_frame(df, 4), order="input")
    assert got.groups == list(dict.fromkeys(df.system))
    assert got.groups[0] == "sys3"
    assert_same_fit(got, be.fit("human ~ metric | system", df, order="input"))


def test_empty_partitions_and_partitions_without_ratings():
    df = ratings(n=2000)
    ddf = dask_frame(df, 8)
    # a filter that empties some partitions and leaves others with no human rating at all
    keep = ddf.map_partitions(lambda p: p[(p.index < 500) | (p.index >= 1500)])
    assert (keep.map_partitions(len).compute() == 0).any()
    pandas_keep = df[(df.index < 500) | (df.index >= 1500)]
    assert_same_fit(be.fit("human ~ metric | system + lp", keep),
                    be.fit("human ~ metric | system + lp", pandas_keep))


def test_arrow_strings_categoricals_and_numbers_as_groups():
    df = ratings(n=1500)
    df["system"] = df["system"].astype("category")
    df["year"] = np.where(df.index % 3 == 0, 2021.0, 2022.0)
    df.loc[df.index % 17 == 0, "year"] = np.nan
    for formula in ("human ~ metric | system + year", "human ~ metric | year"):
        assert_same_fit(be.fit(formula, dask_frame(df)), be.fit(formula, df))


def test_names_from_the_callers_frame():
    df = ratings(n=800)
    cut = 0.55
    expected = be.fit("human ~ I(score > cut) | system", df)
    assert expected.counts["tp"].sum() == int(((df.human == 1) & (df.score > cut)
                                               & df.system.notna()).sum())
    assert_same_fit(be.fit("human ~ I(score > cut) | system", dask_frame(df)), expected)


def _error(function, *args, **kwargs):
    with pytest.raises(Exception) as info:
        function(*args, **kwargs)
    return type(info.value), str(info.value)


def _bad(df, column, rows, value):
    df = df.copy()
    if df[column].dtype != object:
        df[column] = df[column].astype(object)
    for r in rows:
        df.at[r, column] = value
    return df


BAD = [
    # (what, data maker, formula, keywords, error class)
    ("text among human ratings, late partition", lambda d: _bad(d, "human", [2500], "yes"),
     "human ~ metric | system", {}, InputTypeError),
    ("human 2 in one partition, text in a later one",
     lambda d: _bad(_bad(d, "human", [2900], "x"), "human", [100], 2.0),
     "human ~ metric | system", {}, InputTypeError),
    ("metric problem early, human problem late",
     lambda d: _bad(_bad(d, "metric", [5], 0.5), "human", [2800], 7.0),
     "human ~ metric | system", {}, DataError),
    ("no human rating anywhere", lambda d: d.assign(human=np.nan),
     "human ~ metric | system", {}, DataError),
    ("grouping column missing everywhere", lambda d: d.assign(lp=None),
     "human ~ metric | system + lp", {}, DataError),
    ("a group without ratings",
     lambda d: pd.concat([d, pd.DataFrame({"system": ["lonely"], "human": [np.nan]})],
                         ignore_index=True),
     "human ~ metric | system", {}, DataError),
    ("unknown column", lambda d: d, "human ~ metirc | system", {}, FormulaError),
    ("scalar metric without threshold", lambda d: d, "human ~ score | system", {}, DataError),
    ("rule without paired rows", lambda d: d.assign(human=np.nan, mqm=1.0),
     "I(mqm == 0) ~ score | system", {"threshold": "balanced"}, DataError),
    ("threshold outside the scores", lambda d: d, "human ~ score | system",
     {"threshold": 5.0}, ParameterError),
    ("threshold mapping without a group", lambda d: d, "human ~ score | system",
     {"threshold": {"sys0": 0.5}}, ParameterError),
]


@pytest.mark.parametrize(("what", "make", "formula", "kw", "cls"), BAD, ids=[b[0] for b in BAD])
def test_errors_are_those_of_pandas(what, make, formula, kw, cls):
    df = make(ratings())
    expected = _error(be.fit, formula, df, **kw)
    assert expected[0] is cls
    assert _error(be.fit, formula, dask_frame(df), **kw) == expected


def test_no_rows():
    df = ratings(n=50).iloc[:0]
    ddf = dd.from_pandas(df, npartitions=1)
    assert _error(be.fit, "human ~ metric", ddf) == (DataError,
                                                             "data has no rows: nothing to fit")


def test_fit_on_a_distributed_cluster():
    # worker processes: summaries and errors travel between processes (pickled)
    distributed = pytest.importorskip("distributed")
    df = ratings(n=2000)
    expected = be.fit("human ~ score | system + lp", df, threshold="balanced")
    bad = _bad(df, "human", [1900], "yes")
    with dask.config.set(scheduler=None), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        with distributed.get_task_stream(client) as ts:
            got = be.fit("human ~ score | system + lp", dask_frame(df), threshold="balanced")
        error = _error(be.fit, "human ~ metric | system", dask_frame(bad))
    assert_same_fit(got, expected)
    assert len(ts.data) > 0
    assert error == _error(be.fit, "human ~ metric | system", bad)


# -- favi --------------------------------------------------------------------------------------
def segment_scores(n_items=300, n_systems=6, seed=3):
    """One row per (item, system): a human and a metric score, some missing, some unpaired."""
    rng = np.random.default_rng(seed)
    items = np.repeat(np.arange(n_items), n_systems)
    system = np.tile([f"s{i}" for i in range(n_systems)], n_items)
    quality = np.tile(np.linspace(0, 1, n_systems), n_items)
    human = np.round(quality + rng.normal(0, 0.6, items.size), 1)
    metric = np.round(quality + rng.normal(0, 0.6, items.size), 1)
    df = pd.DataFrame({"item": [f"seg{i}" for i in items], "system": system,
                       "mqm": -np.abs(human), "human": human, "metric": metric})
    df.loc[rng.random(len(df)) < 0.05, "human"] = np.nan
    df.loc[rng.random(len(df)) < 0.01, "item"] = None
    # shuffled, so that an item's rows lie in several partitions
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def preference_rows(n=2000, seed=4):
    rng = np.random.default_rng(seed)
    names = np.array(["a", "b", "c", "d"])
    pick = np.array([rng.choice(4, 2, replace=False) for _ in range(n)])
    return pd.DataFrame({"item": rng.integers(0, 500, n), "sys_a": names[pick[:, 0]],
                         "sys_b": names[pick[:, 1]],
                         "human": rng.choice(["+", "=", "-", None], n, p=[.4, .2, .35, .05]),
                         "metric": rng.choice([1, 0, -1], n)})


def assert_same_favi(a, b):
    assert a.systems == b.systems
    np.testing.assert_array_equal(a.pair_index, b.pair_index)
    np.testing.assert_array_equal(a.counts, b.counts)
    np.testing.assert_array_equal(a.n_skipped, b.n_skipped)
    assert (a.n_items, a.n_rows, list(a.excluded.items())) == (b.n_items, b.n_rows,
                                                              list(b.excluded.items()))
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())


FAVIS = [
    ("human ~ metric | system", {}),
    ("mqm ~ I(metric * 2) | system", {"lower_is_better": "mqm", "tolerance": (0.1, 0.2)}),
    ("human ~ metric | system", {"pairs": [("s3", "s1"), ("s0", "s5")]}),
]


@pytest.mark.parametrize(("formula", "kw"), FAVIS, ids=[f"{f} {k}" for f, k in FAVIS])
def test_favi_on_dask_equals_pandas(formula, kw):
    df = segment_scores()
    with pytest.warns(be.errors.UnpairedItemsWarning):
        expected = be.favi(formula, df, item="item", **kw)
    with pytest.warns(be.errors.UnpairedItemsWarning):
        got = be.favi(formula, dask_frame(df), item="item", **kw)
    assert_same_favi(got, expected)
    assert got.counts.sum() > 500


def test_favi_preferences_on_dask_equal_pandas():
    df = preference_rows()
    # 2,000 draws of (item, pair) among 500 items and 6 pairs: some (item, pair) are drawn again,
    # and both paths say how many rows repeat one (the same count, the same message)
    with pytest.warns(be.errors.BinaryEvalWarning, match="rate an") as on_pandas:
        expected = be.favi("human ~ metric | sys_a + sys_b", df, item="item")
    with pytest.warns(be.errors.BinaryEvalWarning, match="rate an") as on_dask:
        got = be.favi("human ~ metric | sys_a + sys_b", dask_frame(df), item="item")
    assert_same_favi(got, expected)
    assert [str(w.message) for w in on_dask] == [str(w.message) for w in on_pandas]
    kept = df.dropna(subset=["human"])
    key = pd.DataFrame({"item": kept.item, "lo": kept[["sys_a", "sys_b"]].min(axis=1),
                        "hi": kept[["sys_a", "sys_b"]].max(axis=1)})
    assert str(on_pandas[0].message).startswith(f"{int(key.duplicated().sum())} of {len(kept)} ")
    bad = df.copy()
    bad.loc[1500, "sys_b"] = bad.loc[1500, "sys_a"]
    bad.loc[1700, "human"] = "?"
    for data in (bad, bad.drop(index=1700)):
        expected = _error(be.favi, "human ~ metric | sys_a + sys_b", data, item="item")
        got = _error(be.favi, "human ~ metric | sys_a + sys_b", dask_frame(data),
                                     item="item")
        assert got == expected
    assert "position" in expected[1] or "row" in expected[1]


def test_favi_errors_are_those_of_pandas():
    df = segment_scores()
    dup = pd.concat([df, df.iloc[[10]]], ignore_index=True)
    inf = df.assign(metric=np.where(df.index == 1234, np.inf, df.metric))
    for data in (dup, inf, df.assign(system=None)):
        expected = _error(be.favi, "human ~ metric | system", data, item="item",
                                          unpaired="count")
        assert expected[0] is DataError
        assert _error(be.favi, "human ~ metric | system", dask_frame(data), item="item",
                                      unpaired="count") == expected


# -- correlate -----------------------------------------------------------------------------------
def segment_metrics(n=4000, n_systems=8, seed=5):
    rng = np.random.default_rng(seed)
    system = rng.choice([f"sys{i}" for i in range(n_systems)], n)
    quality = np.array([int(s[3:]) for s in system]) / n_systems
    df = pd.DataFrame({"system": system, "lp": rng.choice(["de-en", "en-de"], n),
                       "mqm": -np.abs(rng.normal(5 * (1 - quality), 2)),
                       "chrf": 40 + 20 * quality + rng.normal(0, 5, n),
                       "ter": 0.8 - 0.4 * quality + rng.normal(0, 0.1, n)})
    df.loc[rng.random(n) < 0.03, "chrf"] = np.nan
    df.loc[rng.random(n) < 0.02, "system"] = None
    return df


def assert_same_correlation(a, b, rtol=1e-12):
    ta, tb = a.to_frame(), b.to_frame()
    pd.testing.assert_frame_equal(ta, tb, rtol=rtol, atol=0)
    pd.testing.assert_frame_equal(a._scores, b._scores, rtol=rtol, atol=0)
    assert (a.n, a.n_rows, a.n_used, a._excluded) == (b.n, b.n_rows, b.n_used, b._excluded)
    assert a.system_scores == b.system_scores
    assert a.systems_left_out == b.systems_left_out
    if a._rows_per_system is not None:
        pd.testing.assert_series_equal(a._rows_per_system, b._rows_per_system)


CORRELATIONS = [
    ("mqm ~ chrf + I(-ter) | system", {}),
    ("mqm ~ chrf + ter | system", {"aggregate": "median", "lower_is_better": "ter",
                                   "method": "kendall"}),
    ("mqm ~ chrf + ter | system + lp", {"method": "spearman"}),
]


@pytest.mark.parametrize(("formula", "kw"), CORRELATIONS, ids=[f"{f} {k}" for f, k in CORRELATIONS])
def test_correlate_on_dask_equals_pandas(formula, kw):
    df = segment_metrics()
    # ter is lower-is-better: said alike on both paths where the formula does not declare it
    said = None if kw.get("lower_is_better") or "I(-ter)" in formula else DirectionWarning
    with _warned(said):
        expected = be.correlate(formula, df, **kw)
    with _warned(said):
        got = be.correlate(formula, dask_frame(df), **kw)
    # means are sums of partial sums: equal to pandas' up to rounding; medians exactly
    assert_same_correlation(got, expected, rtol=0 if kw.get("aggregate") == "median" else 1e-12)
    # the system scores themselves, independently: pandas groupby on the complete rows
    complete = df.dropna(subset=["mqm", "chrf", "ter"])
    if formula.endswith("| system") and not kw:
        means = complete.dropna(subset=["system"]).groupby("system")["chrf"].mean()
        np.testing.assert_allclose(got._scores["chrf"], means.to_numpy(), rtol=1e-12)


def test_correlate_system_rows_and_errors():
    systems = segment_metrics().groupby("system")[["mqm", "chrf", "ter"]].mean().reset_index()
    with pytest.warns(DirectionWarning, match=r"\['ter'\]"):
        on_dask = be.correlate("mqm ~ chrf + ter", dask_frame(systems, 3))
    with pytest.warns(DirectionWarning, match=r"\['ter'\]"):
        on_pandas = be.correlate("mqm ~ chrf + ter", systems)
    assert_same_correlation(on_dask, on_pandas)
    df = segment_metrics()
    text = df.assign(ter=df.ter.astype(object))
    text.loc[3900, "ter"] = "n/a"
    inf = df.assign(chrf=np.where(df.index == 100, np.inf, df.chrf))
    for data, kw in ((text, {}), (inf, {}), (df, {"aggregate": None}),
                     (df.assign(system=None), {})):
        expected = _error(be.correlate, "mqm ~ chrf + ter | system", data, **kw)
        assert expected[0] is DataError
        assert _error(be.correlate, "mqm ~ chrf + ter | system", dask_frame(data),
                                           **kw) == expected


def test_latent_model_asks_for_a_pandas_frame():
    df = ratings(n=200)
    with pytest.raises(DataError, match="latent-truth model.*pandas frame"):
        be.fit("human ~ metric + score | system", dask_frame(df))


# -- the command line ----------------------------------------------------------------------------
def test_cli_reads_a_parquet_folder_with_dask(tmp_path, capsys):
    from binaryeval.cli import main

    df = ratings(n=3000).drop(columns=["lp"])
    folder = tmp_path / "ratings"
    folder.mkdir()
    for i in range(4):
        df.iloc[i * 750:(i + 1) * 750].to_parquet(folder / f"part-{i}.parquet")
    outputs = {}
    for name, extra in (("pandas", []), ("dask", ["--dask"])):
        out = tmp_path / f"{name}.csv"
        assert main(["fit", "human ~ score | system", "--data", str(folder), "--threshold",
                     "balanced", "-o", str(out), *extra]) == 0
        outputs[name] = pd.read_csv(out)
    pd.testing.assert_frame_equal(outputs["dask"], outputs["pandas"])
    expected = be.fit("human ~ score | system", df, threshold="balanced").to_frame()
    np.testing.assert_array_equal(outputs["pandas"]["n_paired"], expected["n_paired"])
    assert main(["fit", "human ~ score", "--data", str(tmp_path / "nothing"), "--dask"]) == 1
    assert "neither a file nor a shipped dataset" in capsys.readouterr().err


def test_cli_on_a_running_scheduler(tmp_path):
    distributed = pytest.importorskip("distributed")
    from binaryeval.cli import main

    df = segment_metrics(n=1500)
    path = tmp_path / "segments.parquet"
    df.to_parquet(path)
    out_pandas, out_dask = tmp_path / "a.csv", tmp_path / "b.csv"
    assert main(["correlate", "mqm ~ chrf + ter | system", "--data", str(path), "-o",
                 str(out_pandas)]) == 0
    with dask.config.set(scheduler=None), \
            distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                     dashboard_address=None) as cluster:
        assert main(["correlate", "mqm ~ chrf + ter | system", "--data", str(path),
                     "--scheduler", cluster.scheduler_address, "-o", str(out_dask)]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(out_dask), pd.read_csv(out_pandas), rtol=1e-12)


# -- joblib's Dask backend -----------------------------------------------------------------------
def test_calibration_study_on_a_dask_cluster(tmp_path):
    # The study's chunks (studies/calibration.py, run through joblib) on a LocalCluster give
    # the replicates a local run gives, seed for seed, and the cluster did the work.
    distributed = pytest.importorskip("distributed")
    import importlib.util
    from pathlib import Path

    from joblib import Parallel, delayed, parallel_config

    path = Path(__file__).resolve().parents[1] / "studies" / "calibration.py"
    spec = importlib.util.spec_from_file_location("calibration_study", path)
    study = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(study)
    setting = study._setting("T1", 0.6, 0.85, 0.8, 30, 300)
    tasks = study._task_list([setting], {"T1": 3}, 2)
    assert {key for key, *_ in tasks} == {("T1", "fixed"), ("T1", "sbc"), ("misspec", "fixed")}
    local = [fn(*fargs) for _, _, fn, fargs in tasks]
    with dask.config.set(scheduler=None), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                     dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        with distributed.get_task_stream(client) as ts, parallel_config(backend="dask"):
            remote = Parallel(n_jobs=2)(delayed(study._cached)(tmp_path, key, i, fn, fargs)
                                        for key, i, fn, fargs in tasks)
    assert len(ts.data) > 0
    np.testing.assert_equal([res for res, _seconds in remote], local)
    assert len(list(tmp_path.glob("*.pkl"))) == len(tasks)


def test_plan_table_command_on_a_dask_cluster(tmp_path, capsys):
    # `binaryeval plan table --scheduler ADDRESS` computes the cells on that cluster (its task
    # stream records them) and writes the table a local run writes; the other plan commands
    # compute here and say so when given a cluster.
    distributed = pytest.importorskip("distributed")
    from binaryeval import plan
    from binaryeval.cli import main

    args = ["plan", "table", "--alpha", "0.6", "--rho", "0.8", "--n-human", "50,100",
            "--n-metric", "0,300", "--simulate", "sample", "--n-resamples", "3", "--seed", "5"]
    local, remote = tmp_path / "local.csv", tmp_path / "remote.csv"
    assert main(args + ["-o", str(local)]) == 0
    plan.cells.cache_clear()   # so that the cluster computes the posteriors again
    with dask.config.set(scheduler=None), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                     dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client, distributed.get_task_stream(client) as ts:
        assert main(args + ["--scheduler", cluster.scheduler_address, "-o", str(remote)]) == 0
    assert len(ts.data) > 0
    pd.testing.assert_frame_equal(pd.read_csv(remote), pd.read_csv(local), rtol=0, atol=0)
    capsys.readouterr()
    assert main(["plan", "difference", "--alpha", "0.6", "--rho", "0.8", "--n-human", "100",
                 "--dask"]) == 1
    assert "'difference' computes here: drop the option" in capsys.readouterr().err


def test_csv_true_false_with_blanks_after_dasks_sample_stay_missing(tmp_path):
    # Dask types a CSV's columns from its first 256 kB: a human column of True/False with its
    # first blank (not rated) further down was typed bool, and each blank then read as True
    # (fit: n_metric 0 and alpha 0.74 for 0.60).  The file's rows read by Dask must equal
    # pandas' (blanks missing) and so must the fit
    rng = np.random.default_rng(0)
    n = 20_000
    truth = rng.random(n) < 0.6
    human = np.where(truth, "True", "False").astype(object)
    human[n // 2:][rng.random(n - n // 2) < 0.7] = ""
    frame = pd.DataFrame({"system": rng.choice(["A", "B"], n), "human": human,
                          "metric": np.where(rng.random(n) < 0.8, truth, ~truth).astype(int),
                          "note": "x" * 20})
    path = tmp_path / "ratings.csv"
    frame.to_csv(path, index=False)
    assert path.stat().st_size > 256_000
    pandas_rows = be.read_table(str(path), string_columns=["system"])
    dask_rows = be.read_table(str(path), dask=True, string_columns=["system"])
    got = dask_rows.compute()["human"]
    assert int(got.isna().sum()) == int(pandas_rows["human"].isna().sum()) == int(
        (human == "").sum())
    assert int((got == True).sum()) == int((pandas_rows["human"] == True).sum())  # noqa: E712
    want = be.fit("human ~ metric | system", pandas_rows).to_frame()
    have = be.fit("human ~ metric | system", dask_rows).to_frame()
    pd.testing.assert_frame_equal(have[["n_human", "n_metric", "estimate"]],
                                  want[["n_human", "n_metric", "estimate"]])


# -- Parquet folders whose files differ ----------------------------------------------------------
def _folder_of_parts(tmp_path, parts):
    folder = tmp_path / "parts"
    folder.mkdir()
    for i, part in enumerate(parts):
        part.to_parquet(folder / f"part-{i}.parquet")
    return folder


def test_parquet_folder_keeps_categories_and_nullable_ints_when_a_file_lacks_a_column(tmp_path):
    # A categorical system column and a nullable Int64 human column, in a folder where one file
    # lacks the lp column: the Dask read made every system missing (the fit refused 'system'
    # as missing in every row) and failed on the Int64 column with pandas' IntCastingNaNError.
    df = ratings(n=2000)
    df["system"] = df["system"].astype("category")
    df["human"] = df["human"].astype("Int64")
    parts = [df.iloc[i * 500:(i + 1) * 500] for i in range(4)]
    parts[2] = parts[2].drop(columns=["lp"])
    folder = _folder_of_parts(tmp_path, parts)
    eager = be.read_table(folder)
    lazy = be.read_table(folder, dask=True)
    got = lazy.compute()
    assert got["system"].isna().sum() == eager["system"].isna().sum() == df["system"].isna().sum()
    assert got["human"].isna().sum() == df["human"].isna().sum()
    assert got["lp"].isna().sum() == df["lp"].iloc[np.r_[0:1000, 1500:2000]].isna().sum() + 500
    expected = be.fit("human ~ metric | system", df)
    assert_same_fit(be.fit("human ~ metric | system", lazy), expected)
    assert_same_fit(be.fit("human ~ metric | system", eager), expected)


def test_parquet_folder_whose_first_file_lacks_a_column_reads_it_without_dask(tmp_path):
    # pandas' reader took the first file's columns: a column the first file lacks was dropped,
    # and "human ~ metric | lp" was refused as an unknown name (the Dask read had it)
    df = ratings(n=1200)
    parts = [df.iloc[:400].drop(columns=["lp"]), df.iloc[400:800], df.iloc[800:]]
    folder = _folder_of_parts(tmp_path, parts)
    eager = be.read_table(folder)
    assert list(eager.columns) == list(be.read_table(folder, dask=True).columns)
    assert int(eager["lp"].isna().sum()) == 400 + int(df["lp"].iloc[400:].isna().sum())
    expected = be.fit("human ~ metric | lp", df.assign(lp=df["lp"].where(df.index >= 400)))
    assert_same_fit(be.fit("human ~ metric | lp", eager), expected)


def test_parquet_folder_with_clashing_types_names_the_column_on_dask(tmp_path):
    df = ratings(n=900)
    parts = [df.iloc[:300], df.iloc[300:600].assign(human=lambda d: d.human == 1), df.iloc[600:]]
    folder = _folder_of_parts(tmp_path, parts)
    assert len(be.read_table(folder)) == 900
    with pytest.raises(ParameterError, match=r"disagree on the type of 'human' \(double in "
                                             r"part-0.parquet, bool in part-1.parquet\)"):
        be.read_table(folder, dask=True)


# -- warnings said once per call, as for one pandas frame ----------------------------------------
def _said(function, *args, **kwargs):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args, **kwargs)
    return result, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("layout", ["apart", "mixed"])
def test_values_printing_alike_are_said_once_across_partitions(layout):
    # Systems 1 (int) and '1' (str): one pandas frame says once that they are read as one
    # group; partitions each said it again (7 warnings for 7 partitions holding both) or, when
    # no partition held both (the ints first, the strings after), said nothing at all
    df = ratings(n=1400, n_systems=2).dropna(subset=["system"]).reset_index(drop=True)
    number = df["system"].str[-1].astype(int)
    if layout == "apart":
        text = df.index >= len(df) // 2
    else:
        text = df.index % 2 == 1
    df["system"] = pd.Series(np.where(text, number.astype(str), number), dtype=object)
    for formula, kw in (("human ~ metric | system", {}),
                        ("human ~ score | system", {"threshold": "balanced"})):
        expected, said = _said(be.fit, formula, df, **kw)
        assert len(said) == 1 and "print alike" in said[0][1]
        assert said[0][1].startswith("grouping column 'system': ")
        assert all(v in said[0][1] for v in ("0 (int)", "'0' (str)", "1 (int)", "'1' (str)"))
        got, said_dask = _said(be.fit, formula, dask_frame(df, 2 if layout == "apart" else 7),
                               **kw)
        assert said_dask == said
        assert_same_fit(got, expected)
        assert got.to_frame()["n_human"].sum() == int(df["human"].notna().sum())
    # correlate joins two grouping columns the same way
    seg = segment_metrics(n=1600)
    seg["lp"] = pd.Series([1 if i < 800 else "1" for i in range(len(seg))], dtype=object)
    expected, said = _said(be.correlate, "mqm ~ chrf + ter | system + lp", seg)
    assert [m for _, m in said if "print alike" in m] == [
        "grouping column 'lp': 1 (int) and '1' (str) print alike and are read as one group "
        "(groups are told apart by their text); if they are different groups, give them "
        "different names"]
    got, said_dask = _said(be.correlate, "mqm ~ chrf + ter | system + lp", dask_frame(seg, 4))
    assert said_dask == said
    assert_same_correlation(got, expected)


def test_correlate_lists_systems_in_one_order_whatever_their_type():
    # A categorical system column whose categories run Z..A (and hold one without rows): the
    # Dask table listed the systems in the categories' order, pandas' by value, so that
    # bootstrap(seed=1) drew other systems (chrf lower bound 0.873 against 0.934), and both
    # counted the empty category as a system of 0 rows ("mean of 0 to 197 segment scores").
    # Systems 1 (int) and "b" (str) in one column failed in pandas with "'<' not supported".
    import warnings

    df = segment_metrics(n=1600)
    names = sorted(df["system"].dropna().unique())
    df["system"] = pd.Categorical(df["system"], categories=[*names[::-1], "unused"])
    counts = df.dropna(subset=["mqm", "chrf", "ter"])["system"].value_counts()
    mixed = df.assign(system=df["system"].astype(object).map(
        lambda s: int(s[3:]) if isinstance(s, str) and int(s[3:]) % 2 else s))
    for data, aggregate in ((df, "mean"), (df, "median"), (mixed, "median")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = be.correlate("mqm ~ chrf + ter | system", data, aggregate=aggregate)
            got = be.correlate("mqm ~ chrf + ter | system", dask_frame(data, 3),
                               aggregate=aggregate)
        assert_same_correlation(got, expected, rtol=1e-12 if aggregate == "mean" else 0)
        assert list(got._scores.index) == list(expected._scores.index)
        assert list(got.rows_per_system.index) == list(expected.rows_per_system.index)
        if aggregate == "median":
            # (medians are exact: means differ from pandas' in the last bits, which a
            # bootstrap's bias correction may feel)
            pd.testing.assert_frame_equal(got.bootstrap(seed=1, n_resamples=200),
                                          expected.bootstrap(seed=1, n_resamples=200))
        assert expected.system_scores == (f"{aggregate} of {counts[counts > 0].min()} to "
                                          f"{counts.max()} segment scores per system")
    # (the last frame: mixed systems, by their text)
    systems = list(expected._scores.index)
    assert {type(s) for s in systems} == {int, str}
    assert [str(s) for s in systems] == sorted(str(s) for s in systems)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert list(be.correlate("mqm ~ chrf + ter | system", df)._scores.index) == names


@pytest.mark.parametrize("call", ["roc", "fit_latent", "fit_preferences", "judge_bias"])
def test_calls_that_need_the_rows_in_memory_name_themselves(call):
    # roc() once said "this call needs the rows in memory"; each entry point names itself
    from binaryeval.latent import fit_latent, fit_preferences, judge_bias

    df = pd.DataFrame({"human": [1, 0, 1, 0] * 10, "s": np.linspace(0, 1, 40),
                       "m": [1, 1, 0, 0] * 10, "system": ["A", "B"] * 20,
                       "seg": np.arange(40) // 2})
    ddf = dd.from_pandas(df, npartitions=2)
    run = {"roc": lambda: be.roc("human ~ s | system", ddf),
           "fit_latent": lambda: fit_latent("human ~ m | system", ddf),
           "fit_preferences": lambda: fit_preferences("human ~ s | system", ddf, item="seg"),
           "judge_bias": lambda: judge_bias("human ~ m | system", ddf)}[call]
    with pytest.raises(DataError, match=rf"Dask DataFrame, and {call}\(\) needs the rows in "
                                        r"memory: pass a pandas frame \(data.compute\(\)"):
        run()


def test_correlate_names_the_systems_left_out_as_pandas_does():
    # a reference 'system' without metric scores (WMT21 en-ru refA and refB) has no complete row
    enru = be.datasets.load_wmt21_enru(annotated_only=True)
    enru = enru[enru["system"].isin(["refA", "refB", *sorted(enru["system"].unique())[:6]])]
    on_pandas = be.correlate("mqm ~ bleurt20 + comet_mqm | system", enru)
    on_dask = be.correlate("mqm ~ bleurt20 + comet_mqm | system",
                           dask_frame(enru.reset_index(drop=True), 4))
    assert on_pandas.systems_left_out == on_dask.systems_left_out == ["refA", "refB"]
    assert_same_correlation(on_dask, on_pandas)


@pytest.mark.parametrize("npartitions", [1, 7])
def test_excluded_rows_are_none_on_dask_and_the_pandas_rows_count_the_same(npartitions):
    # a partition's index labels need not be unique nor ordered across partitions: a Dask
    # frame's fit says how many rows were left out and why, not which (excluded_rows is None)
    df = ratings()
    ddf = dd.from_pandas(df, npartitions=npartitions, sort=False)
    for call in (lambda d: be.fit("human ~ metric | system", d),
                 lambda d: be.fit("human ~ score | system", d, threshold="balanced")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            on_dask, on_pandas = call(ddf), call(df)
        assert on_dask.excluded_rows is None
        assert on_pandas.excluded_rows.value_counts().to_dict() == on_dask.excluded != {}
    seg = segment_scores()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        on_dask = be.favi("human ~ metric | system", dd.from_pandas(seg, npartitions=npartitions,
                                                                    sort=False), item="item")
        on_pandas = be.favi("human ~ metric | system", seg, item="item")
    assert on_dask.excluded_rows is None
    assert on_pandas.excluded_rows.value_counts().to_dict() == on_dask.excluded != {}
    metrics = segment_metrics()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        on_dask = be.correlate("mqm ~ chrf | system",
                               dd.from_pandas(metrics, npartitions=npartitions, sort=False))
        on_pandas = be.correlate("mqm ~ chrf | system", metrics)
    assert on_dask.excluded_rows is None
    assert on_pandas.excluded_rows.value_counts().to_dict() == on_dask.excluded != {}
