"""The rater-noise model (binaryeval.raters): the human raters err too.

Numbers come from the exact binary engine (one error-free rater is today's model), from the
known truth of simulated crowds, from crowd-kit's Dawid-Skene and MACE (an independent
implementation, run on the same crowds), and from invariants.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import binaryeval as be
from binaryeval.errors import ConvergenceWarning, DataError, ParameterError
from binaryeval.raters import RaterFit, fit_raters
from binaryeval.raters._simulate import simulate_crowd


def _quiet(func, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return func(*args, **kw)


def _expert_frame(seed=3, n=600, rated=150, alphas=(("A", 0.7), ("B", 0.5))):
    """One expert rates the first ``rated`` items of each system; a metric rates them all."""
    rng = np.random.default_rng(seed)
    frames = []
    for system, a in alphas:
        t = rng.random(n) < a
        met = np.where(t, rng.random(n) < 0.8, rng.random(n) < 0.25).astype(int)
        expert = np.arange(n) < rated
        frames.append(pd.DataFrame({
            "system": system, "item": np.arange(n),
            "annotator": np.where(expert, "expert", None),
            "rating": np.where(expert, t.astype(float), np.nan), "metric": met,
            "truth": t.astype(int)}))
    return pd.concat(frames, ignore_index=True)


def _close_to_exact(fit: RaterFit, exact, groups, k=5.0):
    """Posterior mean within ``k`` Monte Carlo standard errors; 95% bounds within 0.01."""
    got, want = fit.to_frame(), exact.to_frame()
    for g in groups:
        mc_se = want.loc[g, "std_error"] / math.sqrt(got.loc[g, "ess_bulk"])
        assert abs(got.loc[g, "estimate"] - want.loc[g, "estimate"]) < k * mc_se, g
        assert got.loc[g, "std_error"] == pytest.approx(want.loc[g, "std_error"], rel=0.08)
        for side in ("lower", "upper"):
            assert got.loc[g, side] == pytest.approx(want.loc[g, side], abs=0.01), (g, side)


# ----------------------------------------------------------------------------------------------
# one error-free rater is today's exact binary model
# ----------------------------------------------------------------------------------------------

def test_one_error_free_rater_is_the_exact_binary_model():
    df = _expert_frame()
    exact = be.fit("rating ~ metric | system", df)
    fit = be.fit("rating ~ metric | system", df, rater="annotator", item="item",
                 error_free="expert", draws=2000, seed=1)
    _close_to_exact(fit, exact, ["A", "B"])
    # the metric's rates too: rho = P(1 | adequate), eta = P(0 | inadequate)
    r, e = fit.rates(), exact.rates()
    for g in ("A", "B"):
        assert r.loc[(g, "1", "1"), "estimate"] == pytest.approx(e.loc[g, "rho"], abs=0.01)
        assert r.loc[(g, "0", "0"), "estimate"] == pytest.approx(e.loc[g, "eta"], abs=0.01)


def test_noisy_raters_on_the_experts_items_leave_alpha_as_the_exact_model():
    # the expert fixes the class of the items they rated: crowd ratings of those items inform
    # the crowd's errors only, so alpha is still the exact model's
    df = _expert_frame(seed=5)
    rng = np.random.default_rng(0)
    rated = df[df["annotator"] == "expert"]
    crowd = []
    for name, acc in (("c1", 0.8), ("c2", 0.65)):
        c = rated.copy()
        c["annotator"] = name
        c["rating"] = np.where(rng.random(len(c)) < acc, c["truth"], 1 - c["truth"]).astype(float)
        crowd.append(c)
    long = pd.concat([df, *crowd], ignore_index=True)
    exact = be.fit("rating ~ metric | system", df)
    fit = fit_raters("rating ~ metric | system", long, rater="annotator", item="item",
                     error_free="expert", draws=2000, seed=2)
    _close_to_exact(fit, exact, ["A", "B"])
    # and the crowd's confusion is learnt against the expert: with every class known, each row
    # of a rater's matrix has the closed-form posterior Beta(2 + right, 1 + wrong) (the rater
    # prior Beta(2, 1) updated by the counts)
    from scipy import stats

    t = fit.raters()
    for name, c in zip(("c1", "c2"), crowd, strict=True):
        for cls in (0, 1):
            rows = c[c["truth"] == cls]
            right = int((rows["rating"] == cls).sum())
            post = stats.beta(2 + right, 1 + len(rows) - right)
            got = t.loc[(name, str(cls), str(cls))]
            assert got["estimate"] == pytest.approx(post.mean(), abs=4 * post.std() / 40)
            assert got["lower"] == pytest.approx(post.ppf(0.025), abs=0.01)
            assert got["upper"] == pytest.approx(post.ppf(0.975), abs=0.01)
    assert bool(t.loc[("expert", "1", "1"), "is_error_free"])
    assert t.loc[("expert", "1", "1"), "estimate"] == 1.0


# ----------------------------------------------------------------------------------------------
# simulated crowds with a known truth: the item labels against crowd-kit
# ----------------------------------------------------------------------------------------------

CROWD = {"competence": [0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.0, 0.0],
         "guess": [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.8, 0.5]}


def _accuracy(fit: RaterFit, truth: pd.DataFrame) -> float:
    items = fit.items().reset_index()
    merged = items.merge(truth.astype({"item": str}), on=["system", "item"])
    return float((merged["class"].astype(int) == merged["truth"]).mean())


@pytest.fixture(scope="module")
def crowd():
    return simulate_crowd(11, alphas=[0.7, 0.5, 0.35], n_items=300, per_item=(2, 3),
                          rho=0.8, eta=0.8, **CROWD)


def test_item_labels_beat_the_majority_vote_and_the_metric_helps(crowd):
    df, truth = crowd
    kw = {"rater": "annotator", "item": "item", "draws": 400, "seed": 1}
    alone = _quiet(fit_raters, "rating ~ 1 | system", df, **kw)
    with_metric = _quiet(fit_raters, "rating ~ metric | system", df, **kw)
    majority = alone.items()["majority"].to_numpy()
    items = alone.items().reset_index().merge(truth.astype({"item": str}), on=["system", "item"])
    rng = np.random.default_rng(0)
    vote = np.where(majority == 0.5, rng.random(majority.size) < 0.5, majority > 0.5)
    acc_vote = float((vote.astype(int) == items["truth"].to_numpy()).mean())
    acc_alone, acc_metric = _accuracy(alone, truth), _accuracy(with_metric, truth)
    assert acc_alone > acc_vote + 0.02
    assert acc_metric > acc_alone + 0.005


def _crowdkit_labels(df: pd.DataFrame, which: str) -> pd.Series:
    from crowdkit.aggregation import MACE, DawidSkene

    tasks = df.dropna(subset=["rating"]).assign(
        task=lambda d: d["system"] + "/" + d["item"].astype(str),
        worker=lambda d: d["annotator"], label=lambda d: d["rating"].astype(int))
    # MACE with one restart: its default of 10 restarts takes 21 s of CPU on this crowd and
    # labels the same 91.7 % of the items right (measured; so do 2 restarts)
    model = DawidSkene(n_iter=100) if which == "dawid-skene" else MACE(
        n_iter=100, n_restarts=1, random_state=0)
    with warnings.catch_warnings():   # crowd-kit's own calls into newer pandas
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return model.fit_predict(tasks[["task", "worker", "label"]])


@pytest.mark.parametrize("which", ["dawid-skene", "mace"])
def test_item_labels_at_least_as_accurate_as_crowdkit(crowd, which):
    df, truth = crowd
    kw = {"rater": "annotator", "item": "item", "raters": which, "draws": 400, "seed": 1}
    theirs = _crowdkit_labels(df, which)
    key = truth.assign(task=truth["system"] + "/" + truth["item"].astype(str)).set_index("task")
    acc_theirs = float((theirs.astype(int) == key.loc[theirs.index, "truth"]).mean())
    ours = _accuracy(_quiet(fit_raters, "rating ~ 1 | system", df, **kw), truth)
    with_metric = _accuracy(_quiet(fit_raters, "rating ~ metric | system", df, **kw), truth)
    assert ours >= acc_theirs - 0.005, (ours, acc_theirs)
    assert with_metric > acc_theirs + 0.01, (with_metric, acc_theirs)


def test_mace_finds_the_spammers(crowd):
    df, truth = crowd
    fit = _quiet(fit_raters, "rating ~ metric | system", df, rater="annotator", item="item",
                 raters="mace", draws=400, seed=1)
    t = fit.raters()
    # r08 and r09 answer at random (competence 0): the two lowest, near 0
    assert set(t["estimate"].nsmallest(2).index) == {"r08", "r09"}
    assert t.loc["r08", "upper"] < 0.25 and t.loc["r09", "upper"] < 0.35
    # the intervals cover each rater's realised competence in these data (a fair guesser right
    # a share acc of the time has competence 2 acc - 1), and the estimates order the raters as
    # the simulation's competences do
    from scipy import stats

    m = df.dropna(subset=["rating"]).merge(truth, on=["system", "item"])
    realised = 2 * (m["rating"] == m["truth"]).groupby(m["annotator"]).mean() - 1
    assert int(((t["lower"] <= realised) & (realised <= t["upper"])).sum()) >= 9
    assert stats.spearmanr(t["estimate"], CROWD["competence"]).statistic > 0.8
    # r08 guesses "adequate" 80 % of the time
    assert t.loc["r08", "spam_positive"] == pytest.approx(0.8, abs=0.1)
    assert list(t.columns) == ["estimate", "std_error", "lower", "upper", "spam_positive",
                               "n_items", "n_shared", "is_error_free", "rhat", "ess_bulk",
                               "ess_tail"]


def test_alpha_covers_the_truth_where_the_majority_vote_is_biased(crowd):
    df, truth = crowd
    fit = _quiet(fit_raters, "rating ~ metric | system", df, rater="annotator", item="item",
                 draws=400, seed=1)
    share = truth.groupby("system")["truth"].mean()
    frame = fit.to_frame()
    for g in frame.index:
        assert frame.loc[g, "lower"] < share[g] < frame.loc[g, "upper"], g


# ----------------------------------------------------------------------------------------------
# the protocol
# ----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def small():
    df, _ = simulate_crowd(2, alphas=[0.75, 0.55, 0.4], n_items=120, per_item=(2, 3),
                           competence=[0.9, 0.8, 0.7, 0.6], n_metric_only=200)
    return df


def test_the_protocol(small):
    fit = _quiet(be.fit, "rating ~ metric | system", small, rater="annotator", item="item",
                 draws=300, chains=2, seed=4)
    assert isinstance(fit, RaterFit)
    frame = fit.to_frame()
    assert frame.index.name == "system" and frame.attrs["level"] == 0.95
    assert list(frame["n_metric"]) == [200, 200, 200]
    assert list(frame["n_human"]) == [120, 120, 120]
    counts = small.dropna(subset=["rating"]).groupby("system").size()
    assert frame["n_ratings"].to_dict() == counts.to_dict()
    assert np.all(frame["lower"] <= frame["estimate"]) and np.all(
        frame["estimate"] <= frame["upper"])
    comp = fit.compare().to_frame()
    m = fit.compare().matrix()
    for row in comp.itertuples():
        assert m.loc[row.group_1, row.group_2] == pytest.approx(row.prob_greater)
        d = fit.alpha_draws(row.group_1) - fit.alpha_draws(row.group_2)
        assert row.diff == pytest.approx(d.mean())
        assert row.prob_greater == pytest.approx(np.mean(d > 0))
    ranks = fit.ranks().to_frame()
    assert sorted(ranks["rank"]) == [1, 2, 3]
    post = fit.posterior("S00")
    assert post.mean() == pytest.approx(frame.loc["S00", "estimate"])
    lo, hi = fit.interval(0.9).loc["S00"]
    assert lo == pytest.approx(np.quantile(fit.alpha_draws("S00"), 0.05))
    items = fit.items()
    assert len(items) == 360 and items["prob_adequate"].between(0, 1).all()
    # the summary says how many items carry how many ratings
    text = str(fit)
    ident = fit.identifiability()
    assert ident.sum() == 360 and set(ident.index) == {2, 3}
    assert f"{ident[2]} items with 2" in text and f"{ident[3]} items with 3" in text
    assert "Beta(2, 1) on each rater" in text and "Beta(1, 1)" in text
    html = fit.summary().as_html()
    assert "rater" in html
    # the naive answer is the majority vote
    naive = fit.naive()
    vote = items["majority"]
    share = (np.where(vote > 0.5, 1.0, np.where(vote == 0.5, 0.5, 0.0))).reshape(-1)
    want = pd.Series(share, index=items.index).groupby(level="system").mean()
    np.testing.assert_allclose(naive["estimate"].loc[want.index], want, rtol=1e-12)
    assert repr(fit).startswith("RaterFit(groups=3, raters=4, model='dawid-skene'")
    plan = fit.plan()
    assert list(plan.to_frame().index) == list(frame.index)
    assert "another rating of a rated item" in str(plan)


def test_raters_table_reads_the_draws(small):
    fit = _quiet(fit_raters, "rating ~ metric | system", small, rater="annotator", item="item",
                 draws=300, chains=2, seed=4)
    t = fit.raters(level=0.9)
    phi = fit.draws.phi.reshape(-1, 4, 2, 2).astype(float)
    assert t.loc[("r01", "1", "0"), "estimate"] == pytest.approx(phi[:, 1, 1, 0].mean())
    assert t.loc[("r01", "1", "0"), "upper"] == pytest.approx(np.quantile(phi[:, 1, 1, 0], 0.95))
    np.testing.assert_allclose(t["estimate"].groupby(level=["rater", "class"]).sum(), 1.0,
                               atol=1e-6)
    n_items = small.dropna(subset=["rating"]).groupby("annotator").size()
    assert t.xs("0", level="class").xs("0", level="rating")["n_items"].to_dict() == \
        n_items.to_dict()
    assert t.attrs["level"] == 0.9 and t.attrs["kind"] == "eti"


def test_the_raters_and_rates_tables_carry_the_samplers_diagnostics(small):
    # Guards: raters() and rates() gave posterior means and intervals of sampled quantities
    # with no R-hat or ESS, so a rater's confusion from chains that disagree read as settled.
    # The columns are the package's diagnostics of the very draws behind each row; an
    # error-free rater, not sampled, has NaN
    from binaryeval.latent import diagnostics

    fit = _quiet(fit_raters, "rating ~ metric | system", small, rater="annotator", item="item",
                 draws=200, chains=2, seed=4)
    phi = fit.draws.phi.astype(float)
    rhat, ess_bulk, ess_tail = diagnostics.summary(phi.reshape(2, 200, -1))
    t = fit.raters()
    np.testing.assert_allclose(t["rhat"], rhat)
    np.testing.assert_allclose(t["ess_bulk"], ess_bulk)
    np.testing.assert_allclose(t["ess_tail"], ess_tail)
    theta = fit.draws.theta.astype(float)                      # (C, D, G, 2, 2)
    g = [fit.groups.index(x) for x in fit.order]
    rhat_t = diagnostics.summary(theta[:, :, g].reshape(2, 200, -1))[0]
    np.testing.assert_allclose(fit.rates()["rhat"], rhat_t)
    mace = _quiet(fit_raters, "rating ~ metric | system", small, rater="annotator",
                  item="item", raters="mace", error_free="r00", draws=200, chains=2, seed=4)
    m = mace.raters()
    expected = diagnostics.summary(mace.draws.competence.astype(float))[1]
    assert np.isnan(m.loc["r00", "ess_bulk"]) and np.isnan(m.loc["r00", "rhat"])
    np.testing.assert_allclose(m["ess_bulk"].drop("r00"), expected[1:])


def test_seeds_reproduce_the_draws(small):
    kw = {"rater": "annotator", "item": "item", "draws": 100, "chains": 2}
    one = _quiet(fit_raters, "rating ~ metric | system", small, seed=7, raters="mace", **kw)
    two = _quiet(fit_raters, "rating ~ metric | system", small, seed=7, raters="mace", **kw)
    other = _quiet(fit_raters, "rating ~ metric | system", small, seed=8, raters="mace", **kw)
    np.testing.assert_array_equal(one.draws.pi, two.draws.pi)
    np.testing.assert_array_equal(one.draws.competence, two.draws.competence)
    np.testing.assert_array_equal(one.items()["prob_adequate"], two.items()["prob_adequate"])
    assert not np.array_equal(one.draws.pi, other.draws.pi)


@pytest.mark.parametrize("given", [None, "generator"])
def test_the_fit_carries_a_seed_that_reproduces_it(small, given):
    # Guards: seed=None reported seed None (and a Generator reported the Generator, whose state
    # had moved on), so the fit could not be run again; as the planning functions do, the
    # entropy drawn is the fit's seed, and refitting with it gives the same draws
    kw = {"rater": "annotator", "item": "item", "draws": 60, "chains": 2}
    seed = None if given is None else np.random.default_rng(3)
    one = _quiet(fit_raters, "rating ~ metric | system", small, seed=seed, **kw)
    assert isinstance(one.seed, int) and one.call["seed"] is seed
    again = _quiet(fit_raters, "rating ~ metric | system", small, seed=one.seed, **kw)
    np.testing.assert_array_equal(one.draws.pi, again.draws.pi)
    np.testing.assert_array_equal(one.draws.phi, again.draws.phi)
    assert str(one.seed) in str(one.summary())


# ----------------------------------------------------------------------------------------------
# refusals
# ----------------------------------------------------------------------------------------------

def test_nothing_identifies_the_raters_when_every_item_is_rated_once():
    df, _ = simulate_crowd(0, alphas=[0.6], n_items=100, per_item=(1, 1),
                           competence=[0.9, 0.8])
    with pytest.raises(DataError, match="every item carries at most one human rating and no "
                                        "rater is named error-free") as err:
        fit_raters("rating ~ metric", df, rater="annotator", item="item", seed=1)
    assert "error_free=" in str(err.value)
    # naming a trusted rater identifies it
    fit = _quiet(fit_raters, "rating ~ metric", df, rater="annotator", item="item",
                 error_free="r00", draws=100, chains=2, seed=1)
    assert fit.error_free == ("r00",)


def test_two_readings_per_item_are_said_to_leave_alpha_to_the_prior():
    # Pairs of readings fix how often two readers agree, not alpha: every reader adds two error
    # rates and two equations (its share of 1s, its agreement), alpha stays free.  Guards: two
    # of four raters per item and no metric gave a confident-looking fit with only a sampler
    # warning asking for more draws.  Here raters of competence 0.8, true alpha 0.3: ten times
    # the items shrink the 95% interval of triples as 1 / sqrt(10) (0.10 -> 0.03) and leave
    # that of pairs where the prior holds it (0.16 -> 0.16); only the pairs are warned about
    kw = {"rater": "annotator", "item": "item", "draws": 300, "chains": 2, "seed": 1}
    widths = {}
    for n in (400, 4000):
        for per in (2, 3):
            df, _ = simulate_crowd(4, alphas=[0.3], n_items=n, per_item=(per, per),
                                   competence=[0.8] * 4)
            forms = ["rating ~ 1"] + (["rating ~ metric"] if per == 2 and n == 400 else [])
            for f in forms:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    fit = fit_raters(f, df, **kw)
                said = [w for w in caught if w.category is be.IdentifiabilityWarning]
                if per == 2 and f == "rating ~ 1":
                    assert len(said) == 1 and said[0].filename == __file__
                    text = str(said[0].message)
                    assert "at most two readings (human ratings)" in text
                    assert "rests on the prior" in text and "a metric in the formula" in text
                    assert "pairs of readings tell how often two readers agree" in \
                        " ".join(fit.summary().notes)
                else:   # a third reading: the metric beside two ratings, or a third rating
                    assert not said, (per, n, f)
                    assert "pairs of readings" not in " ".join(fit.summary().notes)
                if f == "rating ~ 1":
                    frame = fit.to_frame()
                    widths[per, n] = float(frame["upper"].iloc[0] - frame["lower"].iloc[0])
    assert widths[3, 4000] / widths[3, 400] < 0.45
    assert widths[2, 4000] / widths[2, 400] > 0.7
    assert widths[2, 4000] > 3 * widths[3, 4000]


def test_refusals_name_the_argument_and_the_fix(small):
    kw = {"rater": "annotator", "item": "item", "draws": 50, "chains": 1, "seed": 1}
    with pytest.raises(ParameterError, match="also needs item="):
        be.fit("rating ~ metric | system", small, rater="annotator")
    with pytest.raises(ParameterError, match="also needs rater="):
        be.fit("rating ~ metric | system", small, raters="mace")
    with pytest.raises(ParameterError, match="threshold=0.5 is not taken by the rater-noise"):
        be.fit("rating ~ metric | system", small, threshold=0.5, **kw)
    with pytest.raises(ParameterError, match="error_free='nobody' is not a rater"):
        fit_raters("rating ~ metric | system", small, error_free="nobody", **kw)
    with pytest.raises(ParameterError, match="raters="):
        fit_raters("rating ~ metric | system", small, raters="glad", **kw)
    with pytest.raises(DataError, match="rater='who' is not a column"):
        fit_raters("rating ~ metric | system", small, **{**kw, "rater": "who"})
    scores = small.assign(rating=small["rating"] * 7 + np.arange(len(small)) % 7)
    with pytest.raises(DataError, match="14 distinct values.*at most 11.*I\\(rating >= 4\\)"):
        fit_raters("rating ~ metric | system", scores, **kw)
    with pytest.raises(ParameterError, match="prior=\\(2, 1\\): with a binned rating of 3 "
                                             "levels.*give 3 positive numbers"):
        fit_raters("rating ~ metric | system", small.assign(rating=small["rating"] + (
            small.index % 3 == 0)), prior=(2, 1), **kw)
    bad = small.copy()
    first = bad.index[bad["rating"].notna()][0]
    twin = bad[(bad["system"] == bad.loc[first, "system"]) & (bad["item"] == bad.loc[first,
                                                                                     "item"])]
    bad.loc[twin.index[1], "metric"] = 1 - bad.loc[twin.index[0], "metric"]
    with pytest.raises(DataError, match="different metric outputs"):
        fit_raters("rating ~ metric | system", bad, **kw)
    anonymous = small.copy()
    anonymous.loc[first, "annotator"] = None
    with pytest.raises(DataError, match="has a rating but no 'annotator'"):
        fit_raters("rating ~ metric | system", anonymous, **kw)
    # two error-free raters that disagree
    r = small.dropna(subset=["rating"])
    item_of = r.groupby(["system", "item"])["annotator"].agg(list)
    both = item_of[item_of.map(lambda a: "r00" in a and "r01" in a)].index[0]
    clash = small.copy()
    rows = clash[(clash["system"] == both[0]) & (clash["item"] == both[1])]
    clash.loc[rows.index[rows["annotator"] == "r00"], "rating"] = 1.0
    clash.loc[rows.index[rows["annotator"] == "r01"], "rating"] = 0.0
    with pytest.raises(DataError, match="error-free raters .* disagree"):
        fit_raters("rating ~ metric | system", clash, error_free=["r00", "r01"], **kw)


def test_missing_groups_are_accounted_for(small):
    df = small.copy()
    df.loc[df.index[:5], "system"] = None
    fit = _quiet(fit_raters, "rating ~ metric | system", df, rater="annotator", item="item",
                 draws=50, chains=1, seed=1)
    assert fit.excluded == {"missing group": 5} and fit.n_used == len(df) - 5


# ----------------------------------------------------------------------------------------------
# every argument of fit() on the rater path: honoured or refused naming it
# ----------------------------------------------------------------------------------------------

def test_every_argument_of_fit_is_honoured_or_refused_on_the_rater_path(small):
    import inspect

    base = {"rater": "annotator", "item": "item", "draws": 60, "chains": 2, "seed": 3}
    f = "rating ~ metric | system"
    plain = _quiet(be.fit, f, small, **base)
    cases = {   # argument -> (value, check of the result) or None: refused
        "prior": ((5, 2), lambda r: r.prior == (5.0, 2.0)),
        "rates": ("pooled", lambda r: r.rates_mode == "pooled" and r.draws.theta.shape[2] == 1),
        "threshold": None, "lower_is_better": None, "method": None, "grid": None,
        "dependence": None, "bins": None,
        "level": (0.9, lambda r: r.to_frame().attrs["level"] == 0.9),
        "order": (["S02", "S00", "S01"], lambda r: list(r.to_frame().index) ==
                  ["S02", "S00", "S01"]),
        # Beta(50, 1) on rho and eta: the metric's rates move towards 1
        "rate_prior": ((50, 1), lambda r: r.rates().loc[("S00", "1", "1"), "estimate"] >
                       plain.rates().loc[("S00", "1", "1"), "estimate"] + 0.01),
        "eval_env": ({"x": 1}, lambda r: isinstance(r, RaterFit)),
        "seed": (9, lambda r: r.seed == 9), "draws": (70, lambda r: r.n_draws == 70),
        "chains": (3, lambda r: r.n_chains == 3),
        "rater": ("annotator", lambda r: r.call["rater"] == "annotator"),
        "item": ("item", lambda r: r.call["item"] == "item"),
        "raters": ("mace", lambda r: r.model == "mace"),
        "error_free": ("r00", lambda r: r.error_free == ("r00",)),
        "rater_rates": ("hierarchical", lambda r: r.rater_rates == "hierarchical"
                        and r.population() is not None),
    }
    params = [p for p in inspect.signature(be.fit).parameters if p not in ("formula", "data")]
    assert sorted(params) == sorted(cases)
    values = {"threshold": 0.5, "lower_is_better": ["metric"], "method": "grid",
              "grid": (200, 50, 50), "dependence": "joint", "bins": 3}
    for name, case in cases.items():
        if case is None:
            with pytest.raises(ParameterError, match=f"{name}=.*rater-noise model"):
                be.fit(f, small, **{**base, name: values[name]})
            continue
        value, check = case
        fit = _quiet(be.fit, f, small, **{**base, name: value})
        assert check(fit), name


def test_a_fit_that_reads_the_metric_or_a_rater_worse_than_chance_says_the_classes_may_be_swapped():
    # Guards: two ratings per item, one rater who reversed the scale: the chains settled on
    # the swapped reading (alpha 0.468 [0.407, 0.530] for a true 0.537, every item's class
    # wrong, the careful rater and the metric read as worse than chance) with R-hat 1.000 and
    # no warning
    rng = np.random.default_rng(11)
    rows = []
    for i in range(300):
        t = int(rng.random() < 0.5)
        met = int(rng.random() < 0.8) if t else int(rng.random() < 0.2)
        good = t if rng.random() < 0.8 else 1 - t
        rev = 1 - (t if rng.random() < 0.95 else 1 - t)
        rows += [dict(item=i, annotator="ann1", rating=good, metric=met),
                 dict(item=i, annotator="ann2", rating=rev, metric=met)]
    df = pd.DataFrame(rows)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = be.fit_raters("rating ~ metric", df, rater="annotator", item="item", seed=0,
                            draws=300, chains=2)
    said = [w for w in caught if issubclass(w.category, be.IdentifiabilityWarning)]
    assert len(said) == 1 and said[0].filename == __file__
    table = fit._rater_table()
    assert table.loc["ann1", "p_correct_0"] + table.loc["ann1", "p_correct_1"] < 1
    assert "rater 'ann1'" in str(said[0].message) and "reversed the scale" in str(said[0].message)
    # the simulated crowd of the examples (raters better than chance): nothing of the kind
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        be.fit_raters("rating ~ metric | system", be.datasets.simulate_ratings(seed=0),
                      rater="annotator",
                      item="item", seed=1, draws=300, chains=2)
    assert not [w for w in caught if issubclass(w.category, be.IdentifiabilityWarning)]


def test_a_spammer_whose_posterior_sum_falls_under_the_threshold_is_not_called_reversed():
    # A crowd with two spammers (competence 0, guessing one half: p_correct_0 + p_correct_1 = 1
    # in truth).  With 92 ratings the posterior mean of spammer r04's sum came out 0.79 and the
    # fit warned that it read r04 as worse than chance and told the user to recode its ratings
    # (3 of 12 such crowds); its posterior sd (0.12) leaves 1 well inside, so nothing is said.
    # The rater who did reverse the scale (the test above) is still named.
    df, truth = simulate_crowd(2, alphas=[0.3], n_items=200, per_item=(3, 3),
                               competence=[0.9, 0.85, 0.8, 0.0, 0.0, 0.7])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = fit_raters("rating ~ 1", df, rater="annotator", item="item", seed=1, draws=300)
    phi = fit.draws.phi.reshape(-1, len(fit.rater_names), 2, 2).astype(float)
    total = phi[:, fit.rater_names.index("r04"), 0, 0] + phi[:, fit.rater_names.index("r04"),
                                                             1, 1]
    assert total.mean() < 0.85 and total.mean() + 3 * total.std() > 1.0
    assert not [w for w in caught if w.category is be.IdentifiabilityWarning]
    lower, upper = fit.to_frame()[["lower", "upper"]].iloc[0]
    assert lower < truth["truth"].mean() < upper


def test_one_time_raters_are_said_to_leave_alpha_to_the_fixed_rater_prior():
    # 300 items, three ratings each, every rating by a rater seen once (a crowd's long tail),
    # right 85 % of the time.  Under the fixed prior every rater's confusion is Beta(2, 1)'s:
    # each rating reads as right two times in three, and alpha came out 0.096 [0.031, 0.169]
    # for a true 0.19, without a word (over 8 such crowds: 0.09 too low, 3 of 8 intervals
    # covering).  The fit now says so and names the population prior, which covers it.
    rng = np.random.default_rng(4)
    truth = rng.random(300) < 0.25
    right = rng.random((300, 3)) < 0.85
    df = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
                       "annotator": [f"w{k}" for k in range(900)],
                       "rating": np.where(right, truth[:, None], ~truth[:, None]).astype(int)
                       .ravel()})
    kw = {"rater": "annotator", "item": "item", "seed": 1, "draws": 300, "chains": 2}
    with pytest.warns(be.IdentifiabilityWarning) as caught:
        fixed = _quiet(fit_raters, "rating ~ 1", df, **kw)
    said = [w for w in caught if w.category is be.IdentifiabilityWarning]
    assert len(said) == 1 and said[0].filename == __file__
    text = str(said[0].message)
    assert text.startswith("900 of the 900 ratings (100%) are by 900 rater(s) who share fewer "
                           "than 5 items")
    assert "Beta(2, 1): right 67% of the time" in text and "rater_rates='hierarchical'" in text
    lower, upper = fixed.to_frame()[["lower", "upper"]].iloc[0]
    assert upper < truth.mean() == 0.19
    with warnings.catch_warnings():
        warnings.simplefilter("error", be.IdentifiabilityWarning)
        pop = _quiet(fit_raters, "rating ~ 1", df, rater_rates="hierarchical", **kw)
    lower, upper = pop.to_frame()[["lower", "upper"]].iloc[0]
    assert lower < 0.19 < upper


def test_mace_reading_a_careful_rater_as_a_guesser_against_the_majority_says_so():
    # MACE's own rates have p_correct_0 + p_correct_1 = 1 + competence >= 1, so a crowd whose
    # majority reversed the scale took the fit to the swapped classes silently: alpha 0.65
    # for a true 0.3 (every item's class turned round), the careful rater read as a guesser
    # of competence 0.01, no warning.  Against the fitted classes that rater's ratings read
    # the other way round (0.51 < 0.9, by far more than three standard errors), and are named;
    # guessers (competence 0, their sum 1 up to noise) are not
    rng = np.random.default_rng(5)
    rows = []
    for i in range(400):
        t = int(rng.random() < 0.3)
        for r, acc, rev in (("good", 0.9, False), ("rev1", 0.9, True), ("rev2", 0.85, True)):
            label = t if rng.random() < acc else 1 - t
            rows.append(dict(item=i, annotator=r, rating=1 - label if rev else label))
    kw = {"rater": "annotator", "item": "item", "raters": "mace", "seed": 1, "draws": 300,
          "chains": 2}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = fit_raters("rating ~ 1", pd.DataFrame(rows), **kw)
    assert fit.to_frame()["estimate"].iloc[0] > 0.5        # the swapped reading of 0.3
    said = [w for w in caught if w.category is be.IdentifiabilityWarning]
    assert len(said) == 1 and said[0].filename == __file__
    text = str(said[0].message)
    assert "rater 'good' (p_correct_0 + p_correct_1 = 0." in text
    assert "against the fitted classes" in text and "rev1" not in text
    # a crowd with two guessers of competence 0 (and guessing rates 0.2 and 0.8): nothing said
    df, _ = simulate_crowd(3, alphas=[0.4], n_items=300, per_item=(2, 4),
                           competence=[0.9, 0.8, 0.7, 0.0, 0.0], guess=[0.5] * 3 + [0.2, 0.8])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit_raters("rating ~ metric", df, **kw)
    assert not [w for w in caught if w.category is be.IdentifiabilityWarning]


def test_chains_in_mirrored_readings_are_said_rather_than_sent_for_more_draws():
    # Guards: with chains split between the two readings (R-hat 1.5), the only advice was
    # "run more draws", which does not join them
    from binaryeval.latent import _common

    frame = pd.DataFrame({"rhat": [1.54], "ess_bulk": [8.0], "ess_tail": [20.0]})
    with pytest.warns(be.ConvergenceWarning, match=r"mirrored readings .* more draws do not "
                                                   r"join") as caught:
        _common.warn_convergence(frame, "alpha", ["A"], 300, 4, modes="mirrored readings "
                                 "(the two classes swapped), which more draws do not join")
    assert caught[0].filename == __file__
    slow = frame.assign(rhat=[1.05])
    with pytest.warns(be.ConvergenceWarning) as caught:
        _common.warn_convergence(slow, "alpha", ["A"], 300, 4, modes="mirrored readings")
    assert "mirrored" not in str(caught[0].message)


def _exact_alpha(ratings, metric, model, prior=(1.0, 1.0), rater_prior=(2.0, 1.0)):
    """Posterior mean of alpha by enumerating the items' classes (and MACE's guesses).

    Given the classes every parameter is conjugate: the marginal likelihood of a class
    assignment is a product of Beta functions (Dirichlet-multinomials), and E(alpha | z) is
    (a + n_1) / (a + b + n).  MACE's likelihood given z sums over which ratings were guesses.
    """
    from itertools import product

    from scipy.special import betaln

    n = 1 + max(i for i, _, _ in ratings)
    a, b = prior
    ra, rb = rater_prior
    log_w, mean = [], []
    for z in product((0, 1), repeat=n):
        n1 = sum(z)
        lw = betaln(a + n1, b + n - n1) - betaln(a, b)
        if metric is not None:
            for c in (0, 1):
                ones = sum(1 for i in range(n) if z[i] == c and metric[i] == 1)
                zeros = sum(1 for i in range(n) if z[i] == c and metric[i] == 0)
                lw += betaln(1 + ones, 1 + zeros)
        for who in sorted({r for _, r, _ in ratings}):
            mine = [(i, lab) for i, r, lab in ratings if r == who]
            if model == "dawid-skene":
                for c in (0, 1):
                    right = sum(1 for i, lab in mine if z[i] == c and lab == c)
                    wrong = sum(1 for i, lab in mine if z[i] == c and lab != c)
                    lw += betaln(ra + right, rb + wrong) - betaln(ra, rb)
                continue
            terms = []
            for guess in product((0, 1), repeat=len(mine)):
                if any(not g and lab != z[i] for g, (i, lab) in zip(guess, mine, strict=True)):
                    continue
                n_guess = sum(guess)
                ones = sum(1 for g, (_, lab) in zip(guess, mine, strict=True) if g and lab)
                terms.append(betaln(ra + len(mine) - n_guess, rb + n_guess) - betaln(ra, rb)
                             + betaln(1 + ones, 1 + n_guess - ones))
            lw += np.logaddexp.reduce(terms)
        log_w.append(lw)
        mean.append((a + n1) / (a + b + n))
    w = np.exp(np.array(log_w) - max(log_w))
    return float(w @ np.array(mean) / w.sum())


@pytest.mark.parametrize(("model", "formula", "prior"), [("dawid-skene", "rating ~ metric", (1, 1)),
                                                         ("mace", "rating ~ 1", (3, 1))])
def test_alpha_is_the_exact_posterior_mean_on_five_items(model, formula, prior):
    # eleven ratings by three raters of five items: the sampler's posterior mean of alpha
    # against the enumeration of the 32 class assignments (exact values 0.5828 and 0.7444),
    # within four Monte-Carlo errors
    ratings = [(0, "x", 1), (0, "y", 1), (1, "x", 1), (1, "y", 0), (2, "x", 0), (2, "y", 0),
               (3, "x", 1), (3, "y", 1), (3, "w", 0), (4, "w", 1), (4, "y", 1)]
    metric = [1, 1, 0, 1, 0]
    df = pd.DataFrame([{"item": i, "rater": r, "rating": lab, "metric": metric[i]}
                       for i, r, lab in ratings])
    exact = _exact_alpha(ratings, metric if "metric" in formula else None, model, prior)
    with warnings.catch_warnings():
        # eleven ratings: every rater is thin and the fit says its raters' errors rest on the
        # rater prior, which the exact posterior compared with has too
        warnings.simplefilter("ignore", be.IdentifiabilityWarning)
        fit = _quiet(fit_raters, formula, df, rater="rater", item="item", raters=model,
                     prior=prior, draws=1000, chains=8, seed=3)
    row = fit.to_frame().iloc[0]
    assert abs(row["estimate"] - exact) < 4 * row["std_error"] / np.sqrt(row["ess_bulk"])


def test_prob_greater_matrix_is_the_share_of_draws_as_on_the_other_fits():
    # be.fit(..., rater=) returns a RaterFit; BinaryFit and LatentFit answer
    # prob_greater_matrix(), the rater fit raised AttributeError
    df, _ = simulate_crowd(0, alphas=[0.7, 0.5, 0.45], n_items=80, per_item=(3, 3),
                           competence=[0.9, 0.8, 0.7, 0.6])
    fit = _quiet(be.fit, "rating ~ metric | system", df, rater="annotator", item="item",
                 seed=1, draws=200, chains=2)
    m = fit.prob_greater_matrix(order="input")
    assert m.index.tolist() == m.columns.tolist() == ["S00", "S01", "S02"]
    a = {g: fit.alpha_draws(g).ravel() for g in fit.groups}
    for i in m.index:
        for j in m.columns:
            if i == j:
                assert np.isnan(m.loc[i, j])
            else:
                assert m.loc[i, j] == pytest.approx(float(np.mean(a[i] > a[j])), abs=1e-12)
    pd.testing.assert_frame_equal(m, fit.compare(order="input").matrix(), check_like=True)
    assert m.attrs["quantity"] == "P(alpha_1 > alpha_2)"
