"""Summary.as_html and every result's _repr_html_: text from the data is escaped.

System names, column names and formulas are data (a file from someone else): rendered as HTML
they must show as text and never act as markup.
"""

from __future__ import annotations

import html
import warnings

import numpy as np
import pandas as pd
from htmlchecks import live_markup, soup

import binaryeval as be
from binaryeval.summary import Summary

# names that would act as markup if written unescaped
PAYLOADS = ["<script>alert('sys')</script>", "<svg onload=alert('svg')>",
            "<img src=x onerror=alert('img')>", "<a href=\"javascript:alert('a')\">x</a>"]
HUMAN = "human<script>alert('col')</script>"
METRIC = "score<img src=x onerror=alert('mcol')>"


def _segments(seed: int = 7) -> pd.DataFrame:
    """Four systems named by the payloads; a human and a metric column named like payloads."""
    rng = np.random.default_rng(seed)
    parts = []
    for k, system in enumerate(PAYLOADS):
        good = rng.random(200) < 0.3 + 0.15 * k
        score = np.where(good, rng.normal(0.7, 0.2, 200), rng.normal(0.4, 0.2, 200))
        human = np.where(np.arange(200) < 60, good.astype(float), np.nan)
        parts.append(pd.DataFrame({"system": system, HUMAN: human, METRIC: score,
                                   "item": np.arange(200)}))
    return pd.concat(parts, ignore_index=True)


def _assert_inert(page: str, names: list[str]) -> None:
    assert live_markup(page) == []
    text = soup(page).get_text(" ")
    for name in names:
        assert name in text  # shown as text ...
        assert name not in page or name == html.escape(name)  # ... and written escaped


def test_summary_escapes_title_facts_tables_and_notes():
    frame = pd.DataFrame({PAYLOADS[1]: [0.5]}, index=pd.Index([PAYLOADS[0]], name=PAYLOADS[2]))
    s = Summary(PAYLOADS[3], {PAYLOADS[0]: PAYLOADS[1]}, [(PAYLOADS[2], frame)], [PAYLOADS[0]])
    _assert_inert(s.as_html(), PAYLOADS[:3])
    assert s._repr_html_() == s.as_html()


def test_results_render_hostile_names_as_text():
    data = _segments()
    formula = f'I(Q("{HUMAN}") == 1) ~ Q("{METRIC}") | system'
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # identifiability and the like: not what is tested
        fit = be.fit(formula, data, threshold="balanced", eval_env={})
        results = {
            "fit": fit,
            "compare": fit.compare(),
            "roc": be.roc(formula, data, eval_env={}),
            "favi": be.favi(f'Q("{METRIC}") ~ Q("{METRIC}") | system', data, item="item"),
            "correlate": be.correlate(f'Q("{METRIC}") ~ I(Q("{METRIC}") * 2) | system', data),
            "latent": be.fit(f'I(Q("{HUMAN}") == 1) ~ I(Q("{METRIC}") > 0.5) + '
                             f'I(Q("{METRIC}") > 0.6) | system', data, draws=200, chains=2,
                             seed=3),
        }
    for name, result in results.items():
        page = result._repr_html_()
        assert live_markup(page) == [], name
        text = soup(page).get_text(" ")
        # the system named <script>... is listed as text (the correlation lists its metric)
        assert (METRIC if name == "correlate" else PAYLOADS[0]) in text, name
        assert "<script>" not in page and "<img src=x" not in page, name


def test_live_markup_finds_what_it_looks_for():
    """The checker itself: each kind of live markup in a page is found."""
    page = ("<html><head></head><body><script>x()</script><p onclick=\"y()\">p</p>"
            "<a href=\"java&#x73;cript:z()\">a</a><svg></svg><img src=\"x.png\">"
            "<iframe src=\"data:text/html,hi\"></iframe></body></html>")
    found = live_markup(page)
    assert len(found) == 7, found


def test_counts_and_effective_sizes_print_as_counts():
    # n_eff 101.3218 printed with four decimals, n_paired 428.0 as 428.0000: a count shows as
    # a whole number, an effective size with one decimal, the same for the whole column (400.0
    # beside 996.6, not 400; a WMT21 fit printed n_eff 527 beside 528.0); other floats keep
    # the digits
    frame = pd.DataFrame({"n_paired": [428.0, 12.0], "n_eff": [101.3218, 99.96],
                          "ess_bulk": [996.627, 400.0], "estimate": [0.61234, 0.5]},
                         index=pd.Index(["A", "B"], name="group"))
    text = Summary("t", tables=[("per group", frame)]).as_text()
    row_a = next(line for line in text.splitlines() if line.startswith("A "))
    assert row_a.split() == ["A", "428", "101.3", "996.6", "0.6123"]
    row_b = next(line for line in text.splitlines() if line.startswith("B "))
    assert row_b.split() == ["B", "12", "100.0", "400.0", "0.5000"]


def test_a_probability_of_one_reads_like_its_neighbours_unless_a_p_value():
    # WMT21 en-de's comparison printed prob_greater "> 0.9999" for most far-apart pairs and
    # "1.0000" for one (a far-apart pair is 1 by its bound): it read as the one certain pair.
    # A p-value of 1 (equal sign counts) is an exact answer and still reads 1.0000.
    frame = pd.DataFrame({"prob_greater": [1.0, 1 - 1e-9, 0.5], "p_value": [1.0, 0.0, 0.5],
                          "p_best": [1.0, 0.0, 0.5]}, index=pd.Index(["A", "B", "C"], name="g"))
    text = Summary("t", tables=[("pairs", frame)], digits=4).as_text()
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines()
            if line[:1] in ("A", "B", "C")}
    assert rows["A"] == [">", "0.9999", "1.0000", ">", "0.9999"]
    assert rows["B"] == [">", "0.9999", "<", "0.0001", "<", "0.0001"]
    html = Summary("t", tables=[("pairs", frame)], digits=4)._repr_html_()
    assert html.count("&gt; 0.9999") == 3 and "1.0000" in html
    # the site's tables follow the same rule
    from binaryeval._site.tables import format_table

    page = format_table(frame, decimals=4)._repr_html_()
    assert page.count("&gt; 0.9999") == 3 and page.count("1.0000") == 1


def test_row_keys_of_several_levels_read_as_what_they_are():
    # every tuple row key was joined by ' vs ', the pairs' mark: a judge's confusion read
    # 'position vs all vs tie' and a simulation's sizes '100 vs 1000'
    from binaryeval.summary import _format_frame

    sizes = pd.DataFrame({"eps": [0.1, 0.2]}, index=pd.MultiIndex.from_tuples(
        [(100, 1000), (200, 0)], names=["n_human", "n_metric"]))
    out = _format_frame(sizes, 3)
    assert out.index.tolist() == ["100 / 1000", "200 / 0"]
    assert out.index.name == "n_human / n_metric"
    pairs = pd.DataFrame({"diff": [0.1]}, index=pd.MultiIndex.from_tuples(
        [("A", "B")], names=["group_1", "group_2"]))
    assert _format_frame(pairs, 3).index.tolist() == ["A vs B"]


def test_a_table_without_row_labels_shows_none():
    # an optimal allocation's one row printed as "0" before its numbers (text, HTML, LaTeX)
    frame = pd.DataFrame({"n_human": [942], "epsilon": [0.0369]})
    s = Summary("t", tables=[("best split", frame)])
    lines = s.as_text().splitlines()
    i = lines.index("best split")
    assert lines[i + 1].split() == ["n_human", "epsilon"] and lines[i + 2].split() == ["942", "0.0369"]
    assert "<th>0</th>" not in s.as_html() and "<th></th>" not in s.as_html()
    latex = s.as_latex()
    assert "\\begin{tabular}{rr}" in latex and "942 & 0.0369" in latex
    # labelled rows keep their labels
    named = Summary("t", tables=[("x", frame.set_index(pd.Index(["A"], name="group")))])
    assert "A " in named.as_text() and "group" in named.as_text()


def test_probabilities_from_draws_are_shown_no_finer_than_the_draws():
    # a comparison of 2,000 draws with every draw on one side printed prob_greater '> 0.9999',
    # p_value '< 0.0001' and '***': more than 2,000 draws can say (they resolve 1/2,000)
    from binaryeval._comparison import compare_draws

    rng = np.random.default_rng(1)
    d = np.stack([rng.normal(0.15, 0.03, (4, 500)),        # z = 5: every draw above 0
                  rng.normal(0.02, 0.03, (4, 500))], axis=-1)
    cmp = compare_draws(d, [("A", "B"), ("A", "C")], groups=["A", "B", "C"], quantity="P")
    frame = cmp.to_frame()
    assert frame["prob_greater"].iloc[0] == 1.0 and frame.attrs["n_draws"] == 2000
    text = cmp.summary().as_text()
    row = next(line for line in text.splitlines() if line.startswith("A vs B")).split()
    assert row[7:9] == [">", "0.9995"] and row[10:12] == ["<", "0.0010"]
    assert frame["stars"].iloc[0] == "**"     # p <= 2/2,000 = 0.001, not below it
    assert "known no finer than 1/2,000" in text
    # the site's tables show the same bounds
    from binaryeval._site.tables import format_table

    cells = format_table(frame, decimals=4).cells
    assert cells["prob_greater"].iloc[0] == "> 0.9995" and cells["p_value"].iloc[0] == "< 0.0010"
    # exact probabilities keep the finer rule
    res = be.fit_counts({"A": {"human_pos": 90, "human_total": 100},
                         "B": {"human_pos": 30, "human_total": 100}})
    exact = res.compare().summary().as_text()
    assert "> 0.9999" in exact and "no finer" not in exact
    # ranks whose P(rank 1) are shares of draws
    ranks = be.fit("h ~ m | g", pd.DataFrame({"g": ["a"] * 40 + ["b"] * 40,
                                              "h": [1.0, 0.0] * 20 + [0.0] * 40,
                                              "m": [1, 0] * 40}),
                   rates={"rho": 0.9, "eta": 0.9}).ranks(seed=1)
    assert "n_draws" not in ranks.to_frame().attrs      # the binary fit's P(rank) are exact
    from binaryeval._ranks import ranks_from_draws

    drawn = ranks_from_draws(rng.normal([0.0, 1.0], 0.1, size=(2000, 2)), ["a", "b"],
                             np.array([0.1, 0.9]), level=0.95, ranked="score", method="demo")
    assert drawn.to_frame().attrs["n_draws"] == 2000
    line = next(x for x in drawn.summary().as_text().splitlines() if x.startswith("a "))
    assert "< 0.0005" in line


def test_a_p_value_among_the_facts_follows_the_tables_rule():
    # a sign test printed "p_value: 2.236e-05" above its table (e-notation, which the tables
    # never show)
    text = be.sign_test(30, 5, 20).summary().as_text()
    assert "p_value:" in text and "e-05" not in text
    line = next(x for x in text.splitlines() if x.startswith("p_value:"))
    assert line.split()[1:] == ["<", "0.0001"]
    s = Summary("t", {"p_value": 1.0, "prob_greater": 1.0, "n": 3}, digits=3)
    facts = {x.split(":")[0]: x.split(":", 1)[1].strip() for x in s.as_text().splitlines()
             if ":" in x}
    assert facts == {"p_value": "1.000", "prob_greater": "> 0.999", "n": "3"}


def test_a_posteriors_summary_writes_its_priors_as_a_fits_does():
    # it printed "prior: (1.0, 1.0)" (the grid's none at all) where a fit prints Beta(1, 1)
    est = be.alpha_posterior(20, 100, 300, 1000, 40, 10, 30, 20, prior=(2, 3)).summary().info
    assert est["prior (alpha)"] == "Beta(2, 3)" and est["prior (rho, eta)"] == "Beta(1, 1)"
    grid = be.alpha_posterior(20, 100, 300, 1000, 40, 10, 30, 20, method="grid",
                              grid=(200, 100, 100)).summary().info
    assert grid["prior (alpha)"] == "Beta(1, 1)" and "prior" not in grid
    # a rate prior only where a rate is estimated
    assert "prior (rho, eta)" not in be.alpha_posterior(20, 100, 300, 1000, rho=0.8,
                                                        eta=0.7).summary().info
    assert "prior (rho, eta)" not in be.alpha_posterior(20, 100).summary().info


def test_every_fits_summary_writes_the_prior_of_alpha_alike():
    # the binary fit wrote "prior (alpha): Beta(1, 1)", the latent and rater-noise fits
    # "prior: Beta(1.0, 1.0) on alpha"
    from test_protocol import CASES

    for name in ("BinaryFit", "LatentFit", "RaterFit"):
        info = CASES[name]().summary().info
        assert info["prior (alpha)"] == "Beta(1, 1)", name
        assert "prior" not in info


def test_the_row_account_is_written_with_thousands_separators():
    # Guards: a summary read "rows: 17034 ... rows excluded: 3325 no rating" while the report
    # beside it wrote "17,034" and "3,325"; the facts stay numbers
    n = 2500
    df = pd.DataFrame({"system": ["a", "b"] * (n // 2),
                       "human": [1.0, 0.0, float("nan"), 1.0, 0.0] * (n // 5),
                       "metric": [1, 0, 1, 1, 0] * (n // 5)})
    df.loc[:1199, ["human", "metric"]] = float("nan")
    s = be.fit("human ~ metric | system", df).summary()
    assert (s.info["rows"], s.info["rows used"]) == (2500, 1300)
    text = s.as_text()
    lines = {line.split(":")[0]: " ".join(line.split(":", 1)[1].split())
             for line in text.splitlines() if ":" in line}
    assert (lines["rows"], lines["rows used"]) == ("2,500", "1,300")
    assert lines["rows excluded"].startswith("1,200 no rating")


def test_a_note_never_breaks_a_flag_at_its_hyphens():
    # Guards: a note's line could end in "--n-" or "lower-is-" with the rest of the flag on
    # the next line, which a reader copies wrong; lines now break at spaces only
    words = "give --n-human 300 or --rates pooled, or declare lower-is-better scores".split()
    for pad in range(0, 60):
        note = " ".join(["x"] * pad + words)
        text = Summary("Example", {"n": 1}, notes=[note]).as_text()
        body = " ".join(line.strip() for line in text.splitlines()
                        if line.strip() and not line.startswith(("=", "Example", "n:", "-")))
        assert "--n-human 300" in body and "lower-is-better" in body, pad
