"""The latent-truth model on the same data in other forms: the answers do not depend on a
column's dtype, and the options of the exact binary model's results are taken (or refused by
name) where the latent fits answer the same questions.

Numbers: shares counted here from the rows, and the exact binary model on the same data.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import binaryeval as be


def _two_systems(seed: int = 1) -> pd.DataFrame:
    """Two systems with low rates of adequate outputs and a metric that says 1 more often for
    inadequate outputs than adequate ones in absolute numbers (so no level of it is the
    majority class of adequate outputs)."""
    rng = np.random.default_rng(seed)
    rows = []
    for system, alpha in (("A", 0.3), ("B", 0.15)):
        n = 400
        truth = rng.random(n) < alpha
        rows.append(pd.DataFrame({
            "system": system, "human": np.where(np.arange(n) < 100, truth, np.nan),
            "m1": np.where(truth, rng.random(n) < 0.8, rng.random(n) < 0.35).astype(int),
            "m2": np.where(truth, rng.random(n) < 0.7, rng.random(n) < 0.3).astype(int)}))
    return pd.concat(rows, ignore_index=True)


def _fit(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return be.fit(*args, **kw)


@pytest.mark.parametrize("dtype", ["float", "float with a missing value", "category of floats"])
def test_a_0_1_metric_stored_as_float_reads_as_the_integer_one(dtype):
    data = _two_systems()
    col = data["m1"].astype(float)
    if dtype == "float with a missing value":      # what a CSV with an empty cell gives
        col = col.mask(data.index == len(data) - 1)
    elif dtype == "category of floats":
        col = col.astype("category")
    as_int = _fit("human ~ m1 + m2 | system", data, seed=1, draws=100, chains=2)
    other = _fit("human ~ m1 + m2 | system", data.assign(m1=col), seed=1, draws=100, chains=2)
    assert other.metric_levels["m1"] == as_int.metric_levels["m1"] == ("0", "1")
    # naive: the share of the rows m1 rates 1, counted here (as the exact binary model says)
    rated = data.assign(m1=col).dropna(subset=["m1"])
    shares = rated.groupby("system")["m1"].apply(lambda s: float((s.astype(float) == 1).mean()))
    naive = other.to_frame()["naive"]
    assert naive.to_dict() == pytest.approx(shares.to_dict(), abs=1e-12)
    binary = _fit("human ~ m1 | system", data.assign(m1=col)).to_frame()["naive"]
    assert naive.to_dict() == pytest.approx(binary.to_dict(), abs=1e-12)
    # and the metric's levels are labelled alike in the rates table
    assert set(other.rates().index.get_level_values("metric_output")) == {
        "0/0", "0/1", "1/0", "1/1"}


@pytest.fixture(scope="module")
def two_fits():
    """A fit of two metrics and a preference fit, small."""
    import matplotlib

    matplotlib.use("Agg")
    latent = _fit("human ~ m1 + m2 | system", _two_systems(), seed=1, draws=100, chains=2)
    rng = np.random.default_rng(0)
    quality = np.array([0.3, 0.0, -0.3])
    z = quality[:, None] + rng.normal(size=(120, 3, 2))
    df = pd.DataFrame({"item": np.repeat(np.arange(120), 3), "system": np.tile(["A", "B", "C"], 120),
                       "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()})
    df.loc[df["item"] >= 40, "human"] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prefs = be.fit_preferences("human ~ metric | system", df, item="item", seed=1,
                                   draws=100, chains=2)
    return latent, prefs


def _bars(ax) -> np.ndarray:
    """The (low, high) ends of the horizontal error bars drawn on ``ax``, top to bottom."""
    segments = ax.collections[0].get_segments()
    return np.array([[s[0][0], s[1][0]] for s in segments])


def test_plot_draws_the_intervals_at_the_level_asked(two_fits):
    import matplotlib.pyplot as plt

    latent, prefs = two_fits
    # level= of BinaryFit.plot went on to matplotlib (AttributeError: Line2D ... 'level')
    for fit, kind in ((latent, "interval"), (prefs, "diff")):
        ax = fit.plot(kind=kind, level=0.5)
        frame = fit.to_frame(0.5)
        if kind == "diff":
            frame = frame[~frame["prior_dominated"].to_numpy(dtype=bool)]
        np.testing.assert_allclose(_bars(ax), frame[["lower", "upper"]].to_numpy(), atol=1e-12)
        wide = fit.to_frame()
        assert (wide["upper"] - wide["lower"] > frame["upper"] - frame["lower"] + 1e-3).all()
        assert any("50% interval" in t.get_text() for t in ax.get_legend().get_texts())
        plt.close(ax.figure)
        with pytest.raises(be.errors.ParameterError, match="kind='matrix' draws none"):
            fit.plot(kind="matrix", level=0.5)


@pytest.mark.parametrize("given", [{"seed": 1}, {"n_resamples": 100}])
def test_ranks_refuses_the_binary_models_resampling_options_by_name(two_fits, given):
    # BinaryFit.ranks(seed=1) draws its ranks anew; the sampled fits rank their own draws and
    # raised TypeError for the same call
    for fit in two_fits:
        name = next(iter(given))
        with pytest.raises(be.errors.ParameterError,
                           match=rf"{name}=.*own draws \(2 chains x 100 draws, seed=1 of the fit"):
            fit.ranks(**given)
        assert fit.ranks().to_frame()["rank"].notna().all()


def _weak_metric(seed: int = 11) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for system, alpha in (("A", 0.6), ("B", 0.4)):
        truth = rng.random(300) < alpha
        rows.append(pd.DataFrame({
            "system": system, "human": np.where(np.arange(300) < 30, truth, np.nan),
            "m": np.where(truth, rng.random(300) < 0.55, rng.random(300) < 0.5).astype(int)}))
    return pd.concat(rows, ignore_index=True)


@pytest.mark.parametrize("rates", ["estimate", "pooled"])
def test_one_binary_metric_on_the_latent_path_says_alpha_is_poorly_identified(rates):
    # the exact binary model warns (IdentifiabilityWarning) with P(rho + eta <= 1) per group;
    # the same data through the sampler (dependence= asks for it) said nothing
    data = _weak_metric()
    with pytest.warns(be.errors.IdentifiabilityWarning) as exact_caught:
        exact = be.fit("human ~ m | system", data, rates=rates)
    assert len(exact_caught) == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        latent = be.fit("human ~ m | system", data, dependence="joint", rates=rates, seed=2,
                        draws=1000, chains=2)
    said = [w for w in caught if issubclass(w.category, be.errors.IdentifiabilityWarning)]
    assert len(said) == 1
    message = str(said[0].message)
    for group, p in exact.unidentified.items():
        assert p > 0.3
        if rates == "pooled":
            # one confusion matrix for every group, fitted jointly: not the exact model's pooled
            # rates (each group's model with all paired rows), so only the warning is compared
            assert f"{group} (" in message
            continue
        # each group's share of draws with rho + eta <= 1, within Monte Carlo error (ESS of
        # some 1,000 draws: sd below 0.016; the bound is 3 sds)
        shown = float(message.split(f"{group} (")[1].split(")")[0])
        assert shown == pytest.approx(p, abs=0.05)
    assert message in latent.notes
    assert "poorly identified" in latent.summary().as_text()


def test_a_strong_binary_metric_on_the_latent_path_warns_of_nothing():
    data = _two_systems()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = be.fit("human ~ m2 | system", data, dependence="joint", seed=1, draws=500)
    assert not any("poorly identified" in n for n in fit.notes)



def test_a_fit_without_a_seed_reports_the_seed_that_reproduces_it():
    # seed=None (and a Generator) left the fit's seed None (or the Generator, moved on): the
    # summary said "seed: None" and the draws could not be had again
    data = _two_systems()
    for given in (None, np.random.default_rng(5)):
        first = _fit("human ~ m1 + m2 | system", data, seed=given, draws=50, chains=2)
        seed = first.latent.seed
        assert isinstance(seed, int) and seed >= 0
        assert f"{seed}" in first.summary().as_text()
        again = _fit("human ~ m1 + m2 | system", data, seed=seed, draws=50, chains=2)
        np.testing.assert_array_equal(again.latent.draws.pi, first.latent.draws.pi)
        assert again.latent.seed == seed
    # a given number is reported as given
    assert _fit("human ~ m1 + m2 | system", data, seed=7, draws=50, chains=2).latent.seed == 7
    prefs = pd.DataFrame({"a": ["x", "y"] * 40, "b": ["y", "x"] * 40,
                          "h": [1, -1, 0, np.nan] * 20, "m": [1, -1, 1, 1] * 20})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = be.fit_preferences("h ~ m", prefs, first="a", second="b", draws=50, chains=2)
        again = be.fit_preferences("h ~ m", prefs, first="a", second="b", draws=50, chains=2,
                                   seed=first.latent.seed)
        post = be.latent_posterior([[40, 10], [5, 45]], metric=[300, 700], draws=50, chains=2)
        post_again = be.latent_posterior([[40, 10], [5, 45]], metric=[300, 700], draws=50,
                                         chains=2, seed=post.seed)
    np.testing.assert_array_equal(again.latent.draws.pi, first.latent.draws.pi)
    np.testing.assert_array_equal(post_again.draws.pi, post.draws.pi)


@pytest.mark.parametrize("form", ["int", "text '0'/'1'", "category", "boolean"])
def test_a_reversed_0_1_metric_is_said_whatever_its_dtype(form):
    # written as the texts '0'/'1' or held in a category, a 0/1 metric whose 1 means inadequate
    # passed without the DirectionWarning that the same metric as integers gets
    data = _two_systems()
    reversed_ = 1 - data["m2"]
    col = {"int": reversed_, "text '0'/'1'": reversed_.astype(str),
           "category": reversed_.astype("category"),
           "boolean": reversed_.astype(bool).astype("boolean")}[form]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = be.fit("human ~ m1 + r | system", data.assign(r=col), seed=1, draws=50,
                     chains=2)
    said = [str(w.message) for w in caught if w.category is be.errors.DirectionWarning]
    assert len(said) == 1
    assert "the metric 'r' runs against the human ratings" in said[0]
    assert "I(1 - r)" in said[0]
    assert fit.metric_levels["r"] == ("0", "1")


def test_two_grouping_terms_give_the_groups_the_exact_binary_model_has():
    # "human ~ m | system + domain" is one group per (system, domain) on the binary path; the
    # latent path refused it ("this model takes one grouping term after '|'")
    data = _two_systems().assign(domain=lambda d: np.where(d.index % 2 == 0, "news", "chat"))
    data.loc[3, "domain"] = np.nan
    exact = _fit("human ~ m1 | system + domain", data)
    latent = _fit("human ~ m1 | system + domain", data, dependence="joint", seed=1,
                  draws=1000, chains=2)
    e, lt = exact.to_frame(), latent.to_frame()
    assert lt.index.name == e.index.name == "system:domain"
    assert sorted(lt.index) == sorted(e.index) == ["A:chat", "A:news", "B:chat", "B:news"]
    assert latent.excluded == exact.excluded == {"missing group": 1}
    lt = lt.loc[e.index]
    np.testing.assert_array_equal(lt["n_human"], e["n_human"])
    np.testing.assert_array_equal(lt["n_metric"], e["n_metric"])
    # posterior means within Monte Carlo error (posterior sds near 0.08, some 1,000 effective
    # draws: a standard error near 0.003; the bound is 5 of them)
    np.testing.assert_allclose(lt["estimate"], e["estimate"], atol=0.015)
    assert (lt["std_error"] > 0.03).all()
    several = _fit("human ~ m1 + m2 | system + domain", data, seed=1, draws=50, chains=2)
    assert sorted(several.to_frame().index) == sorted(e.index)


def test_prob_greater_matrix_is_the_share_of_draws_as_on_the_binary_fit():
    # BinaryFit.prob_greater_matrix() had no counterpart on the latent fit (AttributeError)
    fit = _fit("human ~ m1 + m2 | system", _two_systems(), seed=1, draws=100, chains=2)
    m = fit.prob_greater_matrix(order=["B", "A"])
    a, b = fit.alpha_draws("A").ravel(), fit.alpha_draws("B").ravel()
    assert list(m.index) == list(m.columns) == ["B", "A"]
    assert (m.index.name, m.columns.name) == ("group_1", "group_2")
    assert m.loc["A", "B"] == pytest.approx(float(np.mean(a > b)), abs=1e-12)
    assert m.loc["B", "A"] == pytest.approx(float(np.mean(b > a)), abs=1e-12)
    assert np.isnan(m.loc["A", "A"]) and m.attrs["quantity"] == "P(alpha_1 > alpha_2)"


def test_known_rates_per_group_as_rho_and_eta_as_on_the_binary_path():
    # rates={"A": {"rho": .., "eta": ..}, ...} is taken by the exact binary model; the latent
    # path (one metric with dependence=, fit_latent) refused it ("give a 2 x 2 matrix")
    data = _two_systems()
    known = {"A": {"rho": 0.8, "eta": 0.65}, "B": {"rho": 0.7, "eta": 0.7}}
    as_matrix = {g: [[r["eta"], 1 - r["eta"]], [1 - r["rho"], r["rho"]]] for g, r in known.items()}
    latent = _fit("human ~ m1 | system", data, rates=known, dependence="joint", seed=1,
                  draws=1000, chains=2)
    same = be.fit_latent("human ~ m1 | system", data, rates=as_matrix, seed=1, draws=1000,
                         chains=2)
    np.testing.assert_array_equal(latent.latent.draws.pi, same.latent.draws.pi)
    exact = _fit("human ~ m1 | system", data, rates=known).to_frame()
    # posterior sds near 0.05, some 1,000 effective draws: standard error near 0.002
    np.testing.assert_allclose(latent.to_frame().loc[exact.index, "estimate"],
                               exact["estimate"], atol=0.01)


def test_a_rate_left_unknown_on_the_latent_path_says_what_it_takes():
    # Guards: {"rho": 0.8, "eta": None} (one rate known, as the exact binary model takes it)
    # was refused on the latent path with "rates['A']['eta']=None is a NoneType; pass a
    # number", which does not say that a rate cannot be left to estimate there
    data = _two_systems()
    partly = {"A": {"rho": 0.8, "eta": None}, "B": {"rho": 0.7, "eta": 0.7}}
    with pytest.raises(be.errors.ParameterError,
                       match=r"rates\['A'\]=.* leaves eta unknown: the latent-truth model takes"):
        be.fit_latent("human ~ m1 | system", data, rates=partly, draws=100, chains=2, seed=1)
    with pytest.raises(be.errors.ParameterError, match=r"rates=.* leaves rho unknown"):
        be.fit_latent("human ~ m1 | system", data, rates={"eta": 0.7}, draws=100, chains=2,
                      seed=1)


# -- which rows were left out -----------------------------------------------------------------------
def test_latent_excluded_rows_name_each_row_by_its_label_and_reason():
    data = _two_systems().astype({"m1": float, "m2": float})
    data.index = pd.Index([f"out-{i:03d}" for i in range(len(data))][::-1], name="output")
    labels = data.index
    data.loc[labels[5], "system"] = np.nan                       # no group
    data.loc[labels[[150, 151]], "m2"] = np.nan                  # m1 only, no human rating
    data.loc[labels[600], ["m1", "m2"]] = np.nan                 # no rating at all
    res = _fit("human ~ m1 + m2 | system", data, seed=1, draws=50, chains=2)
    rows = res.excluded_rows
    assert rows.index.name == "output" and rows.name == "reason"
    assert rows.to_dict() == {
        labels[5]: "missing group",
        labels[150]: "rated by some metrics only, no human rating",
        labels[151]: "rated by some metrics only, no human rating",
        labels[600]: "no rating (human and metrics missing)"}
    assert list(rows.index) == list(labels[[5, 150, 151, 600]])   # data order
    assert rows.value_counts().to_dict() == res.excluded
    # bins= takes the same path; and with every row used the Series is empty
    binned = _fit("human ~ m1 + score | system",
                  data.assign(score=np.linspace(0, 1, len(data))), bins={"score": 3},
                  seed=1, draws=50, chains=2)
    assert binned.excluded_rows.value_counts().to_dict() == binned.excluded
    assert binned.excluded_rows.to_dict() == {labels[5]: "missing group",
                                              labels[600]: "rated by some metrics only, "
                                                           "no human rating"}
    whole = _fit("human ~ m1 + m2 | system", _two_systems(), seed=1, draws=50, chains=2)
    assert whole.excluded == {} and whole.excluded_rows.empty
    assert whole.excluded_rows.value_counts().to_dict() == whole.excluded


def test_preferences_excluded_rows_name_each_row_by_its_label_and_reason():
    rng = np.random.default_rng(0)
    z = np.array([0.3, 0.0, -0.3])[:, None, None] + rng.normal(size=(3, 60, 2))
    df = pd.DataFrame({"item": np.tile(np.arange(60), 3), "system": np.repeat(list("ABC"), 60),
                       "human": z[..., 0].ravel(), "metric": z[..., 1].ravel()},
                      index=pd.date_range("2025-01-01", periods=180, freq="h", name="at"))
    at = df.index
    df.loc[at[2], "system"] = None
    df.loc[at[4], "item"] = np.nan
    df.loc[at[7], ["human", "metric"]] = np.nan
    # item 59 is rated for system C alone: rows of A and B for it are gone
    df = df.drop(index=at[[59, 119]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = be.fit_preferences("human ~ metric | system", df, item="item", seed=1,
                                 draws=50, chains=2)
    rows = res.excluded_rows
    assert rows.index.dtype == df.index.dtype and rows.index.name == "at"
    assert rows.to_dict() == {at[2]: "missing system", at[4]: "missing item",
                              at[7]: "no rating (every term missing)",
                              at[179]: "item rated for no other system (in no pair)"}
    assert rows.value_counts().to_dict() == res.excluded
    # ready preferences, a row per compared pair
    prefs = pd.DataFrame({"a": ["x", "y", None, "x"] * 20, "b": ["y", "x", "y", "y"] * 20,
                          "h": [1, -1, 0, np.nan] * 20, "m": [1, -1, 1, np.nan] * 20},
                         index=np.arange(80)[::-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ready = be.fit_preferences("h ~ m", prefs, first="a", second="b", draws=50, chains=2,
                                   seed=1)
    assert ready.excluded_rows.to_dict() == {
        **{int(i): "missing system" for i in prefs.index[2::4]},
        **{int(i): "no rating (every term missing)" for i in prefs.index[3::4]}}
    assert list(ready.excluded_rows.index) == sorted(ready.excluded_rows.index, reverse=True)
    assert ready.excluded_rows.value_counts().to_dict() == ready.excluded
