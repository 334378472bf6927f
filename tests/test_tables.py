"""Tables for reading (binaryeval._site.tables): formats, alignment, highlights, folding."""

import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from binaryeval._site.tables import (
    format_number,
    format_probability,
    format_table,
    matches_printed,
)
from binaryeval.errors import InputTypeError, ParameterError


class _Cells(HTMLParser):
    """Collect every <td>'s text and class attribute, and every src/href URL."""

    def __init__(self):
        super().__init__()
        self.cells, self.urls, self.tags = [], [], []
        self._in = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        for key in ("src", "href"):
            if key in attrs:
                self.urls.append(attrs[key])
        if tag == "td":
            self._in = [attrs.get("class", ""), ""]

    def handle_data(self, data):
        if self._in is not None:
            self._in[1] += data

    def handle_endtag(self, tag):
        if tag == "td" and self._in is not None:
            self.cells.append(tuple(self._in))
            self._in = None


def parse(html):
    p = _Cells()
    p.feed(html)
    return p


# --- single values -------------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [
    (1.410e-16, "< 0.001"),        # the getting-started page printed 1.410e-16
    (5.384e-25, "< 0.001"),        # and the correlations page 5.384e-25 beside 0.0000
    (0.0, "< 0.001"),
    (0.00099, "< 0.001"),
    (0.001, "0.001"),
    (0.0456, "0.046"),
    (0.5, "0.500"),
    (0.999, "0.999"),
    (0.9994, "> 0.999"),
    (0.99951, "> 0.999"),
    (1 - 1e-16, "> 0.999"),
    (1.0, "1.000"),
    (np.nan, "\u2013"),
    (None, "\u2013"),
])
def test_probability_never_in_e_notation(value, expected):
    assert format_probability(value) == expected


def test_probability_decimals():
    assert format_probability(0.00042, 4) == "0.0004"
    assert format_probability(0.00004, 4) == "< 0.0001"
    assert format_probability(0.012, 2) == "0.01"


@pytest.mark.parametrize("value, kw, expected", [
    (0.0171264220552157, {}, "0.017"),     # the Zou interval printed with 16 digits
    (-0.0000001, {}, "0.000"),             # no negative zero
    (-0.0004, {"signed": True}, "0.000"),
    (0.0123, {"decimals": 2, "signed": True}, "+0.01"),
    (-0.0123, {"decimals": 2, "signed": True}, "-0.01"),
    (0.25, {"decimals": 1, "percent": True}, "25.0%"),
    (12345.678, {"decimals": 1}, "12,345.7"),
    (float("inf"), {}, "inf"),
    (np.nan, {}, "\u2013"),
])
def test_number(value, kw, expected):
    assert format_number(value, **kw) == expected


# --- columns --------------------------------------------------------------------------------

def frame():
    return pd.DataFrame({
        "system": ["Facebook-AI", "eTranslation", "ref-B"],
        "n_human": [527.0, 527.0, 12.0],            # counts stored as floats (12.000 before)
        "tp": np.array([3, 40, 1200], dtype="int64"),
        "estimate": [0.67123, 0.51234, 0.68],
        "prob_greater": [1 - 1e-15, 0.5, 1.41e-16],
        "p_value": [5.384e-25, 0.0, 0.2],
        "significant": [True, False, True],
        "published": ["0.67", "", "0.64-0.65"],
    })


def test_kinds_and_cells():
    t = format_table(frame(), decimals={"estimate": 2})
    assert t.kinds == {"system": "text", "n_human": "count", "tp": "count", "estimate": "number",
                       "prob_greater": "probability", "p_value": "probability",
                       "significant": "flag", "published": "verbatim"}
    cells = t.cells
    assert list(cells["n_human"]) == ["527", "527", "12"]
    assert list(cells["tp"]) == ["3", "40", "1,200"]
    assert list(cells["estimate"]) == ["0.67", "0.51", "0.68"]
    assert list(cells["prob_greater"]) == ["> 0.999", "0.500", "< 0.001"]
    assert list(cells["p_value"]) == ["< 0.001", "< 0.001", "0.200"]
    assert list(cells["significant"]) == ["yes", "no", "yes"]
    assert list(cells["published"]) == ["0.67", "", "0.64-0.65"]   # blank cells stay blank
    # nothing anywhere in e-notation
    page = t.html
    assert not re.search(r"\d[eE][+-]?\d", page)


def test_alignment_text_left_numbers_right():
    t = format_table(frame())
    css = t.html
    cols = list(t.cells.columns)
    for j, label in enumerate(cols):
        rule = re.search(rf"td\.col{j} \{{\s*text-align: (\w+);", css)
        assert rule, label
        expected = "left" if t.kinds[label] in ("text", "flag") else "right"
        assert rule.group(1) == expected, label


def test_explicit_kinds_override_inference():
    df = pd.DataFrame({"a": [1.0, 2.0], "b": [0.5, 0.25], "c": [0.1234, 0.5]})
    t = format_table(df, decimals={"a": 1}, percent=["b"], signed=["c"], counts=False)
    assert list(t.cells["a"]) == ["1.0", "2.0"]          # named in decimals: not a count
    assert list(t.cells["b"]) == ["50.0%", "25.0%"]
    assert list(t.cells["c"]) == ["+0.123", "+0.500"]
    t = format_table(pd.DataFrame({"x": [1.0, 0.0], "y": [1e-9, 0.5]}), probabilities=True)
    assert list(t.cells["x"]) == ["> 0.999", "< 0.001"] and list(t.cells["y"]) == ["< 0.001", "0.500"]
    t = format_table(pd.DataFrame({"p": [0.3]}), probabilities=False, decimals=1)
    assert t.kinds["p"] == "number" and list(t.cells["p"]) == ["0.3"]
    t = format_table(pd.DataFrame({"code": [1, 2]}), text=["code"])
    assert t.kinds["code"] == "text"


def test_index_becomes_columns_and_range_index_is_dropped():
    df = frame().set_index("system")
    t = format_table(df)
    assert list(t.cells.columns)[0] == "system" and t.kinds["system"] == "text"
    t = format_table(frame())
    assert "system" in t.cells.columns and len(t.cells.columns) == frame().shape[1]
    t = format_table(frame().set_index("system"), index=False)
    assert "system" not in t.cells.columns
    # two index levels and MultiIndex columns
    cols = pd.MultiIndex.from_tuples([("ours", "estimate"), ("paper", "estimate")])
    m = pd.DataFrame([[0.671, 0.67], [0.5, 0.51]], columns=cols,
                     index=pd.MultiIndex.from_tuples([("en-de", "A"), ("en-de", "B")],
                                                     names=["lp", "system"]))
    t = format_table(m)
    assert t.cells.shape == (2, 4)
    assert t.cells.iloc[:, 0].tolist() == ["en-de", "en-de"]
    assert 'colspan="2"' not in t.html or "ours" in t.html


def test_series_is_a_one_column_table():
    s = pd.Series([0.5, 1e-20], index=pd.Index(["a", "b"], name="pair"), name="p_value")
    t = format_table(s)
    assert t.cells["p_value"].tolist() == ["0.500", "< 0.001"]


def test_highlight_marks_cells_and_explains_them():
    df = frame().set_index("system")
    t = format_table(df, highlight={("ref-B", "estimate"): "rounding in the paper",
                                    ("eTranslation", "p_value"): "a different convention",
                                    ("Facebook-AI", "tp"): "rounding in the paper"})
    # letters in reading order (row by row), one letter per explanation
    assert t.notes == {"a": "rounding in the paper", "b": "a different convention"}
    p = parse(t.html)
    marked = [(cls, text) for cls, text in p.cells if "be-hl" in cls]
    assert [text for _, text in marked] == ["3a", "< 0.001b", "0.680a"]
    assert "rounding in the paper" in t.html and "a different convention" in t.html
    assert str(t).endswith("(a) rounding in the paper\n(b) a different convention")


def test_highlight_rejects_unknown_cells():
    with pytest.raises(ParameterError, match="no cell"):
        format_table(frame().set_index("system"), highlight={("nobody", "estimate"): "x"})
    with pytest.raises(ParameterError, match="pairs"):
        format_table(frame(), highlight={"estimate": "x"})
    with pytest.raises(ParameterError, match="no column 'nope'"):
        format_table(frame(), decimals={"nope": 2})
    with pytest.raises(InputTypeError, match="DataFrame"):
        format_table([[1, 2]])


def test_long_tables_fold():
    df = pd.DataFrame({"pair": [f"S{i} vs S{i + 1}" for i in range(45)],
                       "favi": np.linspace(-1, 1, 45)})
    t = format_table(df, max_rows=20, show_rows=8)
    p = parse(t.html)
    assert "details" in p.tags and "summary" in p.tags
    assert "Show the other 37 of 45 rows" in t.html
    # every row is in the page exactly once: 8 above the fold, 37 below
    assert sum(1 for cls, _ in p.cells if "col0" in cls) == 45
    assert t.html.index("S7 vs S8") < t.html.index("<details>") < t.html.index("S8 vs S9")
    short = format_table(df.head(20), max_rows=20)
    assert "<details>" not in short.html
    folded = format_table(df.head(5), fold="All pairs")
    assert "<summary>All pairs</summary>" in folded.html


def test_html_is_self_contained_and_deterministic():
    t = format_table(frame(), caption="WMT21 `en-de`", source="von Däniken et al. 2022, Table 5",
                     note="Ours <b>beside</b> theirs")
    p = parse(t.html)
    assert p.urls == []                                  # no src/href at all
    assert "script" not in p.tags and "link" not in p.tags
    assert "http" not in t.html and "@import" not in t.html
    assert "<code>en-de</code>" in t.html                # backticks become code
    assert "Ours &lt;b&gt;beside&lt;/b&gt; theirs" in t.html   # text is escaped
    assert "Source: von Däniken et al. 2022, Table 5" in t.html
    assert format_table(frame(), caption="WMT21 `en-de`", source="von Däniken et al. 2022, Table 5",
                        note="Ours <b>beside</b> theirs").html == t.html
    # styles are scoped to the table's own id
    ids = re.findall(r'<table id="([^"]+)"', t.html)
    assert len(ids) == 1
    selectors = re.findall(r"^(#\S+)", t.html, flags=re.M)
    assert selectors and all(s.startswith(f"#{ids[0]}") for s in selectors)


def test_text_cells_are_escaped():
    t = format_table(pd.DataFrame({"name": ["<script>x</script>", "a & b"]}))
    assert "<script>" not in t.html and "&lt;script&gt;" in t.html and "a &amp; b" in t.html


def test_missing_values_are_dashes():
    df = pd.DataFrame({"system": ["A", None], "naive": [np.nan, 0.5], "n": [np.nan, 3.0]})
    t = format_table(df)
    assert t.cells["system"].tolist() == ["A", "\u2013"]
    assert t.cells["naive"].tolist() == ["\u2013", "0.500"]
    assert t.cells["n"].tolist() == ["\u2013", "3"]


@pytest.mark.parametrize("value, printed, expected", [
    (0.80033, "0.798", False),      # exact P vs the paper's grid value
    (0.79792, "0.798", True),
    (0.0246679, "0.02", True),
    (0.0045692, "0.005", True),     # Zou's lower limit as printed by Graham & Liu
    (0.0455, "0.05", True),         # a tie at half a unit counts either way
    (-0.0031, "-0.00", True),
    (527.0, "527", True),
    (0.6698, "0.67", True),
    (0.6649, "0.67", False),
    (np.nan, "0.5", False),
    (0.5, "***", False),
    (0.5, "", False),
])
def test_matches_printed(value, printed, expected):
    assert matches_printed(value, printed) is expected


def test_index_levels_take_decimals_and_kinds():
    df = pd.DataFrame({"t": [1.126297, 0.5]}, index=pd.Index([0.9, 0.95], name="r23"))
    t = format_table(df, decimals={"r23": 2, "t": 3})
    assert t.cells["r23"].tolist() == ["0.90", "0.95"] and t.kinds["r23"] == "number"
    t = format_table(pd.DataFrame({"x": [0.5]}, index=pd.Index([2500], name="n_human")))
    assert t.cells["n_human"].tolist() == ["2,500"] and t.kinds["n_human"] == "count"


def test_summaries_and_tables_write_probabilities_by_one_rule():
    # the text/HTML/LaTeX summary and the site's tables share one rule (binaryeval._format):
    # fixed decimals, "< 0.001" below 10**-d, "> 0.999" just below 1, whole numbers included,
    # and the same column names (p, p_*, prob*, P(...)) read as probabilities
    from binaryeval.summary import _format_frame

    # (a p-value of exactly 1 reads 1.000; any other probability of 1 reads as its neighbours)
    values = [1.4e-16, 0.0, 0.04567, 0.5, 1 - 1e-9, 1.0, 0, 1]
    p_value = ["< 0.001", "< 0.001", "0.046", "0.500", "> 0.999", "1.000", "< 0.001", "1.000"]
    other = p_value[:5] + ["> 0.999", "< 0.001", "> 0.999"]
    frame = pd.DataFrame({"p_value": values, "prob_greater": values, "P(A > B)": values},
                         dtype=object)
    summary_cells = _format_frame(frame, 3)
    table = format_table(frame, decimals=3)
    for column in frame.columns:
        expected = p_value if column == "p_value" else other
        assert summary_cells[column].tolist() == expected, column
        assert table.kinds[column] == "probability"
        assert table.cells[column].tolist() == expected, column
    # each renderer keeps its own mark for a missing value
    missing = pd.DataFrame({"p_value": [np.nan, None]}, dtype=object)
    assert _format_frame(missing, 3)["p_value"].tolist() == ["NaN", "-"]
    assert format_table(missing).cells["p_value"].tolist() == ["\u2013", "\u2013"]
