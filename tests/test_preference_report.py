"""The preference report (``binaryeval report ... --item`` or ``--first/--second``), rendered and
read back: its tables against the fit and against counts made here from the raw rows, its
warnings, its advice as command-line flags, and the pairs the data cannot decide.

The data: the shipped WMT21 en-de MQM and chrF scores with 30 % of the human ratings kept (the
setting of the latent path's regression tests), and a small table of ready preferences whose
system names are HTML and JavaScript.
"""

from __future__ import annotations

import html
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from bs4 import BeautifulSoup

import binaryeval as be
from binaryeval import datasets
from binaryeval.cli import main
from binaryeval.errors import ParameterError

pytestmark = pytest.mark.slow   # each test renders a report (a Jupyter kernel)


def _wmt21_ende_30_percent() -> pd.DataFrame:
    """WMT21 en-de, the ten systems with MQM and chrF, 30 % of the MQM kept, as raw penalties
    (higher = worse): the same rows as tests/test_latent_protocol.py."""
    data = datasets.load_wmt21_ende()
    has_metric = data.groupby("system")["chrf"].count() > 0
    data = data[data["system"].isin(has_metric[has_metric].index)].reset_index(drop=True)
    keep = np.random.default_rng(0).random(len(data)) <= 0.3
    data.loc[~keep, "mqm"] = np.nan
    return data.assign(penalty=-data["mqm"])[["system", "seg_id", "penalty", "chrf"]]


NAMES = {"a": "<b>Bold</b>", "b": "$x$ & co", "c": 'sys "c"', "d": "<script>alert(1)</script>"}


def _ready_preferences() -> pd.DataFrame:
    """Ready preferences of four systems with hostile names; pair (c, d) has no human rating."""
    rng = np.random.default_rng(2)
    rows = []
    for a, b, share in (("a", "b", 0.7), ("a", "c", 0.8), ("b", "c", 0.6), ("c", "d", 0.5),
                        ("a", "d", 0.7), ("b", "d", 0.6)):
        for i in range(300):
            human = 1 if rng.random() < share else -1
            metric = human if rng.random() < 0.75 else -human
            rated = i < 120 and (a, b) != ("c", "d")
            rows.append({"s1": NAMES[a], "s2": NAMES[b], "h": human if rated else np.nan,
                         "m": metric})
    return pd.DataFrame(rows)


def _tables(page: str) -> dict[str, pd.DataFrame]:
    """The page's tables as text, keyed by their header row (joined with '|')."""
    out = {}
    for table in BeautifulSoup(page, "html.parser").find_all("table"):
        head = [" ".join(th.get_text().split()) for th in table.find("thead").find_all("th")]
        body = [[" ".join(td.get_text().split()) for td in tr.find_all("td")]
                for tr in table.find("tbody").find_all("tr")]
        out["|".join(head)] = pd.DataFrame(body, columns=head)
    return out


def _table(page: str, first_header: str, *others: str) -> pd.DataFrame:
    found = [t for key, t in _tables(page).items()
             if key.split("|")[0] == first_header and all(o in key.split("|") for o in others)]
    assert len(found) == 1, (first_header, list(_tables(page)))
    return found[0]


def _text(page: str) -> str:
    """Visible text, whitespace collapsed (no space left before a closing mark)."""
    text = " ".join(BeautifulSoup(page, "html.parser").get_text(" ").split())
    return re.sub(r" ([).,;:])", r"\1", text.replace("( ", "("))


def _code(page: str) -> str:
    """The text of the page's highlighted code blocks (pygments splits it into spans)."""
    blocks = BeautifulSoup(page, "html.parser").select("div.highlight pre")
    return "\n".join(b.get_text() for b in blocks)


def _fixed(x: float) -> str:
    text = f"{x:.3f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def _scores(frame: pd.DataFrame, column: str, use: np.ndarray) -> pd.Series:
    """Each system's mean of ``column`` against the others over the pairs in ``use``."""
    parts = {}
    for (a, b), x, keep in zip(frame.index, frame[column], use, strict=True):
        if keep:
            parts.setdefault(a, []).append(x)
            parts.setdefault(b, []).append(-x)
    return pd.Series({s: np.mean(v) for s, v in parts.items()})


def _fit(formula, data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return be.fit_preferences(formula, data, **kw)


def test_wmt21_preference_report_from_the_command_line(tmp_path, capsys):
    data = _wmt21_ende_30_percent()
    path = tmp_path / "wmt21_30.csv"
    data.to_csv(path, index=False)
    out = tmp_path / "pref.html"
    args = ["report", str(path), "--formula", "penalty ~ chrf | system", "--item", "seg_id",
            "--seed", "1", "--draws", "200", "--chains", "2", "-o", str(out)]
    assert main(args) == 0
    err = capsys.readouterr().err
    # raw penalties without --lower-is-better: said on the terminal too, as the flag
    warned = [line for line in err.splitlines()
              if line.startswith("binaryeval report: warning:") and "opposite systems" in line]
    assert len(warned) == 1 and "--lower-is-better penalty" in warned[0], err
    # (few draws: the sampler's own warning asks for more, as a flag)
    assert "lower_is_better=" not in err
    page = out.read_text(encoding="utf-8")
    text = _text(page)
    assert "Warnings of the fit" in text and "likely fix: --lower-is-better penalty" in text
    assert "lower_is_better=['penalty']" not in text.split("The same fit in Python")[0]

    fit = _fit("penalty ~ chrf | system", pd.read_csv(path), item="seg_id", seed=1, draws=200,
               chains=2)
    frame = fit.to_frame()
    assert not frame["prior_dominated"].any()

    # per-pair table: every pair, oriented as the fit, the fit's numbers
    pairs = _table(page, "first", "second", "diff", "naive diff")
    assert list(zip(pairs["first"], pairs["second"], strict=True)) == fit.pairs
    assert pairs["diff"].tolist() == [f"{x:.3f}" for x in frame["diff"]]
    assert pairs["naive diff"].tolist() == [f"{x:.3f}" for x in frame["naive_diff"]]

    # the corrected ranking: mean diff over the pairs, best first; beside it the metric alone
    ranking = _table(page, "rank", "system", "metric alone: rank")
    corrected = _scores(frame, "diff", np.ones(len(frame), dtype=bool))
    naive = _scores(frame, "naive_diff", np.ones(len(frame), dtype=bool))
    assert ranking["system"].tolist() == list(corrected.sort_values(ascending=False,
                                                                    kind="stable").index)
    got = ranking.set_index("system")
    assert got["mean diff against the others"].tolist() == [
        _fixed(corrected[s]) for s in got.index]
    assert got["metric alone: mean diff"].tolist() == [_fixed(naive[s]) for s in got.index]
    want_rank = naive.rank(ascending=False, method="min").astype(int).astype(str)
    assert got["metric alone: rank"].tolist() == [want_rank[s] for s in got.index]
    # confident wins: the systems each beats with P >= 0.95 (the ranking's edges before the
    # implied ones are removed)
    prob = fit.compare().matrix()
    assert got["confident wins"].astype(int).tolist() == [
        int((prob.loc[s].drop(s) >= 0.95).sum()) for s in got.index]

    # the confusion matrix, counted here from the raw rows: each pair oriented as the fit,
    # items where both systems have a penalty (the human side) and a chrF (the metric side)
    wide_h = data.pivot(index="seg_id", columns="system", values="penalty")
    wide_m = data.pivot(index="seg_id", columns="system", values="chrf")
    counts = np.zeros((3, 3), dtype=int)
    for a, b in fit.pairs:
        both = wide_h[[a, b]].notna().all(axis=1) & wide_m[[a, b]].notna().all(axis=1)
        h = np.sign(wide_h.loc[both, a] - wide_h.loc[both, b]).astype(int)   # +1: a better
        m = np.sign(wide_m.loc[both, a] - wide_m.loc[both, b]).astype(int)
        np.add.at(counts, (1 - h.to_numpy(), 1 - m.to_numpy()), 1)
    confusion = _table(page, "humans' preference", "metric agrees")
    shown = confusion[["first better", "tie", "second better"]].astype(int).to_numpy()
    np.testing.assert_array_equal(shown, counts)
    assert confusion["metric agrees"].tolist() == [f"{counts[i, i] / counts[i].sum():.1%}"
                                                   for i in range(3)]
    # the humans tie far more often than chrF: the report offers the tolerance, as a flag
    assert counts[1].sum() > 2 * counts[:, 1].sum()
    assert "rerun with --tolerance chrf=T" in text

    # what more human ratings would decide: the fit's plan, cheapest first
    plan = fit.plan().to_frame()
    open_pairs = plan[plan["more_human"].isna() | (plan["more_human"].fillna(1) > 0)]
    table = _table(page, "first", "more needed", "which items")
    want = open_pairs.assign(k=open_pairs["more_human"].astype(float)).sort_values(
        "k", kind="stable")
    assert list(zip(table["first"], table["second"], strict=True)) == list(
        zip(want["group_1"], want["group_2"], strict=True))
    assert table["more needed"].tolist() == [f"{int(k):,}" for k in want["more_human"]]
    beyond = want["more_human"].astype(int) > want["n_metric"]
    assert table["which items"].str.startswith("new items").tolist() == beyond.tolist()
    n_decided = len(plan) - len(open_pairs)
    assert f"The {n_decided} pairs already decided are not listed" in text
    assert "the numbers below are not added up" in text   # scores: one item serves every pair

    # reproduce: the command as run (the Python call beside it)
    block = BeautifulSoup(page, "html.parser").find("pre", style="white-space: pre-wrap")
    assert block.get_text().startswith("binaryeval report ") and "--item seg_id" in \
        block.get_text()
    assert "binaryeval.fit_preferences(" in _code(page)


def test_pairs_the_data_cannot_decide_are_left_out_of_the_ranking_unless_asked(tmp_path, capsys):
    data = _ready_preferences()
    path = tmp_path / "ready.csv"
    data.to_csv(path, index=False)
    fit = _fit("h ~ m", data, first="s1", second="s2", seed=2, draws=300, chains=2)
    frame = fit.to_frame()
    dominated = frame["prior_dominated"].to_numpy(dtype=bool)
    assert fit.prior_dominated() == [(NAMES["d"], NAMES["c"])] or \
        fit.prior_dominated() == [(NAMES["c"], NAMES["d"])]
    a, b = fit.prior_dominated()[0]
    pair = f"{a} vs {b}"
    common = ["report", str(path), "--formula", "h ~ m", "--first", "s1", "--second", "s2",
              "--seed", "2", "--draws", "300", "--chains", "2"]

    out = tmp_path / "default.html"
    assert main([*common, "-o", str(out)]) == 0, capsys.readouterr().err
    page = out.read_text(encoding="utf-8")
    # names are text, never markup
    assert "<script>alert" not in page and "<b>Bold" not in page
    assert html.escape(NAMES["d"]) in page
    text = _text(page)
    assert "For 1 pair the posterior of diff is essentially the prior" in text
    assert pair in text and "left out of the ranking (--include-prior-dominated keeps them)" \
        in text
    assert f"Not counted in the scores, the arrows and the matrix below (the data say little " \
           f"about them): {pair}. To count them: --include-prior-dominated." in text
    pairs = _table(page, "first", "second", "data say little")
    assert (pairs["data say little"] == "yes").tolist() == dominated.tolist()
    ranking = _table(page, "rank", "system").set_index("system")
    left_out = _scores(frame, "diff", ~dominated)
    assert ranking["mean diff against the others"].tolist() == [
        _fixed(left_out[s]) for s in ranking.index]
    assert ranking["pairs used"].astype(int).tolist() == [
        3 - (s in (a, b)) for s in ranking.index]
    plan = _table(page, "first", "more needed").set_index(["first", "second"])
    assert plan.loc[(a, b), "more needed"] == "–"
    assert plan.loc[(a, b), "which items"].startswith("the data say nothing about this pair")

    # asked from Python: the pair is kept; the fit's warnings reach the caller's line, and the
    # page's advice is written as Python arguments (few draws: a convergence warning is sure)
    from binaryeval.errors import ConvergenceWarning
    from binaryeval.reports import make_report

    out = tmp_path / "kept.html"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make_report(data, "h ~ m", first="s1", second="s2", seed=2, draws=100, chains=2,
                    include_prior_dominated=True, output=out)
    conv = [w for w in caught if w.category is ConvergenceWarning]
    assert len(conv) == 1 and conv[0].filename == __file__
    page = out.read_text(encoding="utf-8")
    text = _text(page)
    assert "kept in the ranking, as asked" in text and "Not counted in the scores" not in text
    assert "Warnings of the fit" in text and "draws=" in text and "--draws" not in text
    frame = _fit("h ~ m", data, first="s1", second="s2", seed=2, draws=100,
                 chains=2).to_frame()
    ranking = _table(page, "rank", "system").set_index("system")
    kept = _scores(frame, "diff", np.ones(len(frame), dtype=bool))
    assert not np.allclose(kept.sort_index(), _scores(frame, "diff", ~dominated).sort_index())
    assert ranking["mean diff against the others"].tolist() == [
        _fixed(kept[s]) for s in ranking.index]
    assert ranking["pairs used"].astype(int).tolist() == [3] * 4
    assert "include_prior_dominated=True" in _code(page)   # in the code that reproduces it


def test_the_command_line_passes_include_prior_dominated(tmp_path, monkeypatch, capsys):
    import binaryeval.reports as reports

    seen = {}

    def capture(data, formula, **kw):
        seen.update(kw, data=data, formula=formula)
        return tmp_path / "r.html"

    monkeypatch.setattr(reports, "make_report", capture)
    path = tmp_path / "ready.csv"
    _ready_preferences().to_csv(path, index=False)
    assert main(["report", str(path), "--formula", "h ~ m", "--first", "s1", "--second", "s2",
                 "--include-prior-dominated"]) == 0
    assert seen["include_prior_dominated"] is True
    assert seen["command"].endswith(" --include-prior-dominated")
    seen.clear()
    assert main(["report", str(path), "--formula", "h ~ m", "--first", "s1", "--second",
                 "s2"]) == 0
    assert "include_prior_dominated" not in seen and "--include" not in seen["command"]


def test_include_prior_dominated_belongs_to_the_preference_report(tmp_path):
    from binaryeval.reports import make_report

    ratings = pd.DataFrame({"system": ["A"] * 20 + ["B"] * 20,
                            "human": [1, 0, 1, 1] * 5 + [0, 1, 0, 0] * 5})
    with pytest.raises(ParameterError, match="include_prior_dominated=True belongs to the "
                                             "preference report"):
        make_report(ratings, "human ~ 1 | system", output=tmp_path / "r.html",
                    include_prior_dominated=True)
    assert not (tmp_path / "r.html").exists()


def test_a_query_on_the_item_column_is_counted_and_reproduced_and_numbers_align(tmp_path):
    # scores per item of three systems, items numbered, --query "item < 90": the page said
    # "rows: 270" without the file's 360; its Reproduce code ran DataFrame.query on the items
    # read as text ("item < 90": a TypeError); and every number sat left-aligned, so that
    # "-0.066" and "0.020" did not line up
    rng = np.random.default_rng(3)
    rows = []
    for item in range(120):
        for system, quality in (("A", 0.6), ("B", 0.5), ("C", 0.4)):
            good = rng.random() < quality
            rows.append({"item": item, "system": system,
                         "human": float(good) if item % 3 == 0 else np.nan,
                         "metric": good + rng.normal(0, 0.6)})
    # and rows the model leaves out: one without a system, one rated by neither
    rows += [{"item": 5, "system": np.nan, "human": 1.0, "metric": 0.5},
             {"item": 6, "system": "A", "human": np.nan, "metric": np.nan}]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    from binaryeval.reports import make_report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = make_report(path, "human ~ metric | system", item="item", query="item < 90",
                          seed=1, draws=200, chains=2, output=tmp_path / "r.html")
    page = out.read_text(encoding="utf-8")
    text = _text(page)
    assert "rows: 272 of 362 (the query left out 90), used: 270; left out: 1 missing " \
        "system; 1 no rating (every term missing)" in text, text[:600]
    code = BeautifulSoup(page, "html.parser").select("div.highlight pre")[-1].get_text()
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(code.replace("print(", "str("), namespace)  # noqa: S102 (the page's own code)
    assert namespace["data"]["item"].astype(int).max() == 89
    # every figure says what it shows (its alt text was "Figure")
    alts = [img["alt"] for img in BeautifulSoup(page, "html.parser").find_all("img")]
    assert len(alts) == 3 and "Figure" not in alts, alts
    assert alts[0].startswith("Interval plot of the corrected difference win_1 - win_2 for 3 ")
    assert alts[1].startswith("Graph of confident wins between the 3 systems: ")
    # the pairs table: the text columns left, the numbers right (cells and headers)
    soup = BeautifulSoup(page, "html.parser")
    pairs = next(t for t in soup.find_all("table")
                 if [th.get_text() for th in t.find("thead").find_all("th")][:3]
                 == ["first", "second", "paired items"])
    heads = [th.get_text() for th in pairs.find("thead").find_all("th")]
    css = " ".join(s.get_text() for s in soup.find_all("style"))
    for column, side in (("first", "left"), ("diff", "right"), ("P(first better)", "right"),
                         ("paired items", "right")):
        i = heads.index(column)
        for cell in ("td", "th"):
            rule = re.search(rf"#{pairs['id']} {cell}\.col{i} \{{\s*text-align: (\w+);", css)
            got = rule.group(1) if rule else "left"   # the page's default
            assert got == side, (column, cell, got)


def test_the_preference_report_lists_the_rows_left_out_as_text(tmp_path):
    from binaryeval.reports import make_report

    data = _ready_preferences()
    data.index = pd.Index([f"p{i}" for i in range(len(data))], name="pair id")
    data.loc["p5", "s2"] = None
    data.loc["p7", ["h", "m"]] = np.nan
    data = data.rename(index={"p7": "<svg onload=alert(7)>"})
    out = tmp_path / "rows.html"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_report(data, "h ~ m", first="s1", second="s2", seed=2, draws=100, chains=2,
                    output=out)
    page = out.read_text(encoding="utf-8")
    assert "<svg onload" not in page
    left = _table(page, "pair id", "reason")
    assert left.to_dict("records") == [
        {"pair id": "p5", "reason": "missing system"},
        {"pair id": "<svg onload=alert(7)>", "reason": "no rating (every term missing)"}]
    assert "Rows left out (by their label in the data)" in _text(page)


def test_a_pooled_preference_report_says_what_its_check_can_miss(tmp_path):
    # Guards: the report of a pooled preference fit said nothing about pooling (the binary
    # report does); it now gives the fit's note on the check before pooling, with the median
    # pair's unseen move, its hostile system names inert, its advice as a flag
    from binaryeval.reports import make_report

    data = _ready_preferences()
    out = tmp_path / "pooled.html"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_report(data, "h ~ m", first="s1", second="s2", rates="pooled", seed=2, draws=100,
                    chains=2, output=out)
        fit = be.fit_preferences("h ~ m", data, first="s1", second="s2", rates="pooled",
                                 seed=2, draws=100, chains=2)
    page = out.read_text(encoding="utf-8")
    assert "<script>alert" not in page and "<b>Bold</b>" not in page
    [note] = [n for n in fit.summary().notes if n.startswith("check before pooling")]
    text = _text(page)
    assert "One confusion matrix for all pairs. The metric's error rates were pooled over" in text
    shown = " ".join(("C" + note[1:]).split())
    assert re.sub(r" ([).,;:])", r"\1", shown.replace("( ", "(")) in text
    unpooled = tmp_path / "estimate.html"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_report(data, "h ~ m", first="s1", second="s2", seed=2, draws=100, chains=2,
                    output=unpooled)
    assert "One confusion matrix for all pairs" not in _text(unpooled.read_text(encoding="utf-8"))
