"""Formulas: the | grammar, evaluation of terms, missing values, and what a term may contain
(a formula is data: every way of running code through it is refused, and nothing runs)."""

import ast
import builtins
import datetime
import inspect
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import binaryeval as be
from binaryeval import formula as formula_module
from binaryeval.cli import main
from binaryeval.errors import BinaryEvalError, DataError, FormulaError
from binaryeval.formula import parse_formula


@pytest.fixture
def df():
    return pd.DataFrame({"mqm": [0.0, -1.0, np.nan, 0.0], "chrf": [0.6, 0.2, 0.9, np.nan],
                         "system": ["a", "b", "a", "b"], "lang": ["x", "x", "y", "y"]})


def test_split_sides_and_groups():
    f = parse_formula("I(mqm == 0) ~ I(chrf > 0.5) | system + lang")
    assert f.lhs_names == ["I(mqm == 0)"]
    assert f.rhs_names == ["I(chrf > 0.5)"]
    assert f.group_names == ["system", "lang"]


def test_bar_inside_call_is_not_grouping():
    f = parse_formula("h ~ I(a | b)")
    assert f.rhs_names == ["I(a | b)"] and f.group_names == []


def test_intercept_rhs_means_no_metric():
    assert parse_formula("h ~ 1 | s").rhs == []


def test_missing_propagates_through_expressions(df):
    mf = parse_formula("I(mqm == 0) ~ I(chrf > 0.5) | system").evaluate(df)
    lhs = mf.lhs.iloc[:, 0]
    rhs = mf.rhs.iloc[:, 0]
    # NaN == 0 would be False in plain pandas; here it stays missing
    assert lhs.isna().tolist() == [False, False, True, False]
    assert rhs.isna().tolist() == [False, False, False, True]
    assert bool(lhs[0]) and not bool(lhs[1])


def test_multiple_groups_are_joined(df):
    mf = parse_formula("mqm ~ chrf | system + lang").evaluate(df)
    assert mf.group.tolist() == ["a:x", "b:x", "a:y", "b:y"]


@pytest.mark.parametrize("text, fragment, caret", [
    ("human ~ metrc | system", "unknown name 'metrc'", "^^^^^"),
    ("human metric", "no '~'", None),
    ("human ~ metric | a | b", "more than one top-level '|'", None),
    ("human ~ (metric | system", "unclosed '('", None),
    ("human ~ | system", "nothing right of '~'", None),
    ("human ~ metric |", "nothing after '|'", None),
    ("human ~ metric + ", "empty term", None),
])
def test_bad_formulas(text, fragment, caret):
    data = pd.DataFrame({"human": [1], "metric": [1], "system": ["a"], "a": [1], "b": [1]})
    with pytest.raises(FormulaError) as info:
        parse_formula(text).evaluate(data)
    assert fragment in str(info.value)
    if caret:
        lines = str(info.value).splitlines()
        assert lines[-1].strip() == caret
        # the caret stands under the misspelt name
        assert lines[-2].index("metrc") == lines[-1].index("^")


def test_close_match_suggestion():
    with pytest.raises(FormulaError, match="did you mean 'Metric'"):
        parse_formula("human ~ metric").evaluate(pd.DataFrame({"human": [1], "Metric": [1]}))


def test_data_must_be_frame():
    with pytest.raises(DataError, match="DataFrame"):
        parse_formula("h ~ m").evaluate({"h": [1], "m": [1]})


# ---------------------------------------------------------------------------------------------
# a formula is data: what a term may contain, and everything else refused
# ---------------------------------------------------------------------------------------------



def _ratings(n: int = 60) -> pd.DataFrame:
    """Human ratings on a third of the rows, a scalar metric, three systems, items."""
    rng = np.random.default_rng(20)
    truth = (rng.random(n) < 0.6).astype(float)
    human = np.where(np.arange(n) % 3 == 2, np.nan, truth)
    return pd.DataFrame({"human": human, "metric": 0.6 * truth + 0.4 * rng.random(n),
                         "system": np.repeat(["A", "B", "C"], n // 3),
                         "item": np.tile(np.arange(n // 3), 3)})


def _attacks(marker: Path) -> list[str]:
    """Ways a term could run code if it were evaluated as Python; each would create ``marker``."""
    run = f"__import__('os').system('touch {marker}')"
    return [
        run,
        f"I(human + 0*{run})",
        f"open('{marker}', 'w')",
        f"eval(\"open('{marker}', 'w')\")",
        f"exec(\"open('{marker}', 'w')\")",
        f"getattr(__builtins__, 'open')('{marker}', 'w')",
        "().__class__.__bases__[0].__subclasses__()",
        "I(human.__class__.__init__.__globals__)",
        f"np.log.__globals__['__builtins__']['open']('{marker}', 'w')",
        f"np.sys.modules['os'].system('touch {marker}')",
        f"(lambda: {run})()",
        f"[{run} for _ in 'a']",
        f"I(human if {run} else human)",
        f"breakpoint() or open('{marker}', 'w')",
        f"I(human + 0*len(str({run})))",
    ]


def _place(term: str, side: str) -> str:
    return {"lhs": f"{term} ~ metric | system", "rhs": f"human ~ {term} | system",
            "group": f"human ~ metric | {term}"}[side]


@pytest.mark.parametrize("side", ["lhs", "rhs", "group"])
def test_attacks_are_refused_by_fit_and_run_nothing(side, tmp_path):
    marker = tmp_path / "ran"
    data = _ratings()
    for term in _attacks(marker):
        formula = _place(term, side)
        with pytest.raises(FormulaError) as info:
            be.fit(formula, data)
        message = str(info.value)
        assert not marker.exists(), formula
        # the message says what a formula may contain, and the caret stands inside the term
        if "syntax error" not in message:
            assert "a formula term may contain column names" in message, message
        caret_line = message.splitlines()[-1]
        start = len(caret_line) - len(caret_line.lstrip(" ")) - 4
        offset = formula.index(term)
        assert offset <= start < offset + len(term), (formula, caret_line)


def test_attacks_are_refused_by_every_entry_point(tmp_path):
    marker = tmp_path / "ran"
    data = _ratings()
    preferences = pd.DataFrame({"sys_a": ["x", "y"] * 10, "sys_b": ["y", "x"] * 10,
                                "human": [1, -1, 0, None] * 5, "metric": [1, -1, 1, 1] * 5})
    systems = pd.DataFrame({"human": [0.1, 0.5, 0.3, 0.9, 0.7],
                            "metric": [1.0, 2.0, 2.5, 4.0, 3.0]})
    calls = {
        "correlate": lambda t: be.correlate(f"human ~ {t}", systems),
        "correlate, grouped": lambda t: be.correlate(f"human ~ metric | {t}",
                                                     data.assign(human=data["metric"])),
        "favi": lambda t: be.favi(f"metric ~ {t} | system", data.assign(human=data["metric"]),
                                  item="item"),
        "roc": lambda t: be.roc(f"I(human == 1) ~ {t} | system", data),
        "fit_latent": lambda t: be.fit(f"human ~ I(metric > 0.5) + {t} | system", data, seed=1),
        "fit_latent module": lambda t: be.latent.fit_latent(f"human ~ I(metric > 0.5) + {t}",
                                                            data, seed=1),
        "fit_preferences": lambda t: be.latent.fit_preferences(
            f"human ~ {t}", preferences, first="sys_a", second="sys_b", seed=1),
    }
    for name, call in calls.items():
        for term in _attacks(marker)[:8]:
            with pytest.raises(FormulaError):
                call(term)
            assert not marker.exists(), (name, term)


def test_attacks_are_refused_on_dask_partitions(tmp_path):
    dd = pytest.importorskip("dask.dataframe", reason="the dask extra is not installed")
    marker = tmp_path / "ran"
    frame = dd.from_pandas(_ratings(), npartitions=3)
    for term in _attacks(marker)[:4]:
        with pytest.raises(FormulaError):
            be.fit(f"human ~ {term} | system", frame, threshold=0.5)
        assert not marker.exists(), term


@pytest.mark.parametrize("command", ["fit", "correlate", "favi", "report"])
def test_attacks_from_the_command_line_exit_nonzero_and_run_nothing(command, tmp_path, capsys):
    marker = tmp_path / "ran"
    table = tmp_path / "ratings.csv"
    _ratings().to_csv(table, index=False)
    for term in _attacks(marker)[:4]:
        formula = f"human ~ {term} | system"
        argv = {"fit": ["fit", formula, "--data", str(table)],
                "correlate": ["correlate", formula, "--data", str(table)],
                "favi": ["favi", formula, "--data", str(table), "--item", "item"],
                "report": ["report", str(table), "--formula", formula,
                           "-o", str(tmp_path / "r.html")]}[command]
        code = main(argv)
        err = capsys.readouterr().err
        assert code != 0 and "error:" in err, (argv, err)
        assert not marker.exists(), argv
        assert not (tmp_path / "r.html").exists()


def test_the_command_line_reads_no_variables_of_its_process(tmp_path, capsys):
    table = tmp_path / "ratings.csv"
    _ratings().to_csv(table, index=False)
    cut = 0.5  # noqa: F841  (a variable of the calling frame: Python's fit would read it)
    # Python's fit reads it (eval_env=0: the calling frame) ...
    assert be.fit("human ~ I(metric > cut) | system", _ratings()).n_used == 60
    # ... the command line does not
    assert main(["fit", "human ~ I(metric > cut) | system", "--data", str(table)]) == 1
    assert "unknown name 'cut'" in capsys.readouterr().err


class Values(list):
    """A term's values with None for missing (so that lists compare)."""


def test_what_a_term_may_contain_keeps_working():
    df = pd.DataFrame({"h": [1.0, 0.0, np.nan, 1.0, 0.0], "x": [0.5, 2.0, 1.0, np.nan, 4.0],
                       "s": ["a", "b", "a", None, "b"], "odd name": [1, 2, 3, 4, 5],
                       "day": pd.to_datetime(["2024-01-01", "2024-02-01", "2024-03-01",
                                              "2024-04-01", "2024-05-01"])})
    cut = 1.5
    start = datetime.datetime(2024, 2, 15)

    def rhs(term, env=None):
        out = parse_formula(f"h ~ {term}").evaluate(df, {} if env is None else env).rhs.iloc[:, 0]
        return Values(None if pd.isna(v) else v for v in out)

    def number(term):
        return np.asarray(rhs(term), dtype=float)

    x = df["x"].to_numpy()
    # expected values from numpy directly; NaN where a column the term reads is missing
    np.testing.assert_allclose(number("np.log(x)"), np.log(x))
    np.testing.assert_allclose(number("numpy.log1p(x)"), np.log1p(x))
    np.testing.assert_allclose(number("log(x)"), np.log(x))
    np.testing.assert_allclose(number("np.clip(x, 0.6, 3)"), np.clip(x, 0.6, 3))
    np.testing.assert_allclose(number("np.round(x * np.pi, 2)"), np.round(x * np.pi, 2))
    np.testing.assert_allclose(number("np.maximum(x, 1) - np.minimum(x, 1)"),
                               np.maximum(x, 1) - np.minimum(x, 1))
    np.testing.assert_allclose(number("abs(1 - x) ** 2 // 1 % 3"), np.abs(1 - x) ** 2 // 1 % 3)
    assert rhs("I(x > cut)", {"cut": cut})[:3] == [False, True, False]
    assert rhs("I(0.6 < x <= 2)")[:3] == [False, True, True]
    assert rhs("I(~(x > 1) & (h == 1))") == [True, False, None, None, False]
    assert rhs("I((x > 3) | (h == 1))") == [True, False, None, None, True]
    assert rhs('I(s == "a")') == [True, False, True, None, False]
    assert rhs('Q("odd name")') == [1, 2, 3, 4, 5]
    assert rhs('np.log(Q("odd name"))') == pytest.approx(np.log([1, 2, 3, 4, 5]))
    assert rhs("C(s)") == ["a", "b", "a", None, "b"]
    assert rhs("I(day > start)", {"start": start}) == [False, False, True, True, True]
    assert rhs("I(x > limits)", {"limits": np.array([0, 3, 0, 0, 3])})[:3] == [
        True, False, True]
    assert rhs("np.isnan(x)") == [False, False, False, None, False]
    assert rhs("I(-x)")[:2] == [-0.5, -2.0]


def test_the_caller_s_variables_are_values_only(tmp_path):
    df = pd.DataFrame({"h": [1, 0], "x": [0.5, 2.0]})

    def helper(v):
        return v

    for name, value, kind in [("os", sys, "module"), ("helper", helper, "function"),
                              ("frame", df, "DataFrame"), ("cls", Path, "type")]:
        with pytest.raises(FormulaError, match=f"the variable '{name}' is a {kind}"):
            parse_formula(f"h ~ I(x + {name})").evaluate(df, {name: value})
        # a variable is never called
        with pytest.raises(FormulaError, match="is not one of the functions"):
            parse_formula(f"h ~ {name}(x)").evaluate(df, {name: value})
    # captured from the calling frame the same way (fit's default eval_env=0)
    cut = 0.5  # noqa: F841
    threshold_function = helper  # noqa: F841
    res = be.fit("I(h == 1) ~ I(x > cut)", df.assign(h=[1, 0]))
    assert res.n_used == 2
    with pytest.raises(FormulaError, match="'threshold_function' is a function"):
        be.fit("I(h == 1) ~ I(threshold_function > 0)", df)


def test_a_variable_missing_on_a_row_makes_its_term_missing_as_a_column_does():
    # Guards: "I(score >= cut)" with cut a variable holding NaN read those rows as metric
    # negatives (NaN >= x is False) while the same values as a column made them "no rating";
    # a Series with another index was aligned by label into NaN silently
    rng = np.random.default_rng(1)
    n = 300
    system = np.repeat(["A", "B", "C"], n)
    truth = rng.random(3 * n) < 0.6
    score = np.where(truth, rng.normal(1, 1, 3 * n), rng.normal(0, 1, 3 * n))
    df = pd.DataFrame({"system": system, "score": score,
                       "human": np.where(rng.random(3 * n) < 0.3, truth, np.nan)})
    cut = np.where(df.system == "C", np.nan, 0.5)
    as_column = be.fit("human ~ I(score >= cut) | system", df.assign(cut=cut))
    for value in (cut, pd.Series(cut, index=df.index)):
        as_variable = be.fit("human ~ I(score >= cut) | system", df, eval_env={"cut": value})
        pd.testing.assert_frame_equal(as_variable.counts, as_column.counts)
        assert as_variable.excluded == as_column.excluded
    assert as_column.counts.loc["C", "metric_total"] == 0  # C's rows: no metric rating
    # a NaN number: the term is missing everywhere, and refused by name as a column would be
    with pytest.raises(DataError, match="I\\(score >= cut\\)"):
        be.fit("human ~ I(score >= cut) | system", df, eval_env={"cut": float("nan")})
    # a Series indexed otherwise is refused, with the two ways to say what is meant
    moved = df.set_axis(df.index + 1000)
    with pytest.raises(FormulaError, match=r"w.to_numpy\(\).*w.reindex\(data.index\)"):
        be.fit("human ~ I(score * w >= 0.5) | system", moved,
               eval_env={"w": pd.Series(1.0, index=df.index)})
    assert be.fit("human ~ I(score * w >= 0.5) | system", moved,
                  eval_env={"w": np.ones(len(df))}).n_used == len(df)
    # on a Dask frame per-row values must be columns: said, not a numpy length error
    dd = pytest.importorskip("dask.dataframe")
    with pytest.raises(FormulaError, match="must be a column: add 'cut' to the data"):
        be.fit("human ~ I(score >= cut) | system", dd.from_pandas(df, npartitions=3),
               eval_env={"cut": cut})


@pytest.mark.parametrize("term, message, caret", [
    ("open('x')", "open() is not one of the functions", "open"),
    ("x.__class__", "the attribute '__class__' is not allowed", "x.__class__"),
    ("np.sys", "attribute access is not allowed", "np.sys"),
    ("np.loads(x)", "np.loads is not one of the functions", "np.loads"),
    ("x[0]", "indexing not allowed", "x[0]"),
    ("I(x and h)", "'and'/'or' are not allowed", "x and h"),
    ("I(not x)", "'not' is not allowed", "not x"),
    ("np.log(x, out=x)", "keyword arguments are not allowed", "x"),
    ("C(x, Treatment)", "C() takes one expression", "C(x, Treatment)"),
    ("center(x)", "center() is not one of the functions", "center"),
    ("I('a' * 10**9)", "text cannot be multiplied", "'a' * 10**9"),
    ("I(x > None)", "the literal None is not allowed", "None"),
    ('f"{x}"', "f-strings not allowed", 'f"{x}"'),
    ("I((y := x))", "':=' not allowed", "y := x"),
    ("log", "log is a function here", "log"),
    # a non-ASCII name before the offending part: the caret counts characters, not bytes
    ("I(größe + x.__class__)", "the attribute '__class__'", "x.__class__"),
])
def test_refusals_name_the_rule_and_point_at_the_part(term, message, caret):
    df = pd.DataFrame({"h": [1, 0], "x": [0.5, 2.0], "größe": [1, 2]})
    formula = f"h ~ {term}"
    with pytest.raises(FormulaError) as info:
        parse_formula(formula).evaluate(df, {})
    text = str(info.value)
    assert message in text
    assert "a formula term may contain column names" in text
    line, carets = text.splitlines()[-2:]
    start = carets.index("^")
    assert line[start:start + len(caret)] == caret
    assert len(carets.strip()) == len(caret)


@pytest.mark.parametrize("formula, message", [
    ("h ~ x\x00", "null bytes"),
    ("h ~ " + "*".join(["x"] * 100_000), "nested too deeply|cannot be read"),
    ("h ~ " + "(" * 300 + "x" + ")" * 300, "syntax error|cannot be read"),
])
def test_unreadable_terms_are_formula_errors(formula, message):
    with pytest.raises(FormulaError, match=message):
        parse_formula(formula).evaluate(pd.DataFrame({"h": [1], "x": [2.0]}), {})


def test_huge_powers_take_no_time():
    # 2 ** 10 ** 10 as Python integers would take minutes and gigabytes; as floats it is inf
    out = parse_formula("h ~ I(2 ** 10 ** 10)").evaluate(pd.DataFrame({"h": [1]}), {})
    assert out.rhs.iloc[0, 0] == np.inf


def test_the_evaluator_never_calls_eval_exec_or_compile():
    """No call of eval, exec, compile or __import__ anywhere in binaryeval/formula.py."""
    tree = ast.parse(inspect.getsource(formula_module))
    called = {node.func.id for node in ast.walk(tree)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert not called & {"eval", "exec", "compile", "__import__", "getattr", "globals", "vars"}


# --- fuzz: no formula reaches a builtin, a dunder or the caller's objects --------------------

_TOUCHED: list[str] = []


class _Tripwire:
    """A caller's object that records every operation on it (none may happen)."""


def _trip(name):
    def method(self, *args, **kwargs):
        _TOUCHED.append(name)
        raise AssertionError(f"the formula evaluator touched a caller's object: {name}")
    return method


for _name in ("__getattribute__", "__getattr__", "__call__", "__bool__", "__eq__", "__ne__",
              "__lt__", "__le__", "__gt__", "__ge__", "__add__", "__radd__", "__sub__", "__rsub__",
              "__mul__", "__rmul__", "__truediv__", "__rtruediv__", "__floordiv__",
              "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__and__", "__rand__",
              "__or__", "__ror__", "__xor__", "__rxor__", "__neg__", "__pos__", "__invert__",
              "__abs__", "__round__", "__getitem__", "__iter__", "__len__", "__array__",
              "__array_ufunc__", "__array_function__", "__float__", "__int__", "__index__",
              "__str__", "__format__", "__hash__", "__reduce__", "__reduce_ex__", "__dir__"):
    setattr(_Tripwire, _name, _trip(_name))

_ATOMS = ["h", "x", "s", "cut", "1", "0.5", "-2", "'a'", "True", "None", "1j", "b'x'", "...",
          "wire", "open", "eval", "exec", "getattr", "compile", "globals", "vars", "type",
          "object", "print", "breakpoint", "input", "__import__", "__builtins__", "__loader__",
          "__spec__", "os", "sys", "np", "numpy", "pd", "Q", "I", "C", "log", "where", "()",
          "[]", "{}", "''"]
_ATTRS = ["__class__", "__bases__", "__base__", "__mro__", "__subclasses__", "__globals__",
          "__builtins__", "__dict__", "__init__", "__call__", "__getattribute__", "__code__",
          "__reduce__", "system", "modules", "sys", "os", "log", "pi", "loads", "load", "save",
          "eval", "query", "apply", "pipe", "to_csv", "values", "f_globals", "gi_frame",
          "_", "mro", "format"]
_BINARY = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", "@", "==", "!=", "<", ">=",
           " and ", " or ", " in ", " is ", " not in "]


def _expressions():
    def extend(inner):
        pair = st.tuples(inner, inner)
        return st.one_of(
            st.builds(lambda a, op, b: f"{a}{op}{b}", inner, st.sampled_from(_BINARY), inner),
            st.builds(lambda a, attr: f"{a}.{attr}", inner, st.sampled_from(_ATTRS)),
            st.builds(lambda f, args: f"{f}({', '.join(args)})", inner,
                      st.lists(inner, max_size=3)),
            st.builds(lambda f, a: f"{f}(out={a})", inner, inner),
            st.builds(lambda a, b: f"{a}[{b}]", inner, inner),
            st.builds(lambda a: f"({a})", inner),
            st.builds(lambda op, a: f"{op}{a}", st.sampled_from(["~", "-", "not ", "*", "**"]),
                      inner),
            st.builds(lambda f, a: f"{f}({a})", st.sampled_from(["I", "C", "Q", "np.log", "abs"]),
                      inner),
            st.builds(lambda a: f"lambda: {a}", inner),
            st.builds(lambda ab: f"[{ab[0]} for _ in {ab[1]}]", pair),
            st.builds(lambda ab: f"{ab[0]} if {ab[1]} else {ab[0]}", pair),
            st.builds(lambda a: f"(y := {a})", inner),
            st.builds(lambda a: 'f"{' + a + '}"', inner),
            st.builds(lambda a: f"'{a}'", inner),
        )
    return st.recursive(st.sampled_from(_ATOMS), extend, max_leaves=8)


def _audit(events: list, active: list):
    def hook(event, args):
        if not active:
            return
        if event == "exec":
            code = args[0]
            # importing a module executes its file's code; nothing else may run code
            if not Path(getattr(code, "co_filename", "")).is_file():
                events.append((event, getattr(code, "co_filename", "?")))
        elif event in ("os.system", "subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn",
                       "os.fork", "os.remove", "os.rename", "shutil.rmtree", "builtins.input",
                       "socket.connect", "ctypes.dlopen", "pdb.Pdb"):
            events.append((event, str(args)[:80]))
        elif event == "open" and args[1] not in (None, "r", "rb") and args[1] != 0:
            events.append((event, str(args)[:80]))
    return hook


_EVENTS: list = []
_ACTIVE: list = []
sys.addaudithook(_audit(_EVENTS, _ACTIVE))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(term=_expressions(), side=st.sampled_from(["lhs", "rhs", "group"]))
def test_fuzz_no_formula_reaches_a_builtin_or_a_dunder(term, side, monkeypatch_module):
    """Formula-like text of every shape: only a result or a BinaryEvalError, and nothing run.

    Checked: no code object is executed but module files (the ``exec`` audit event fires for
    ``eval``/``exec`` of any code), ``compile`` is only asked for syntax trees, no process,
    file write or import of a module named by the formula, and no operation on the caller's
    objects (tripwires under builtin names and as a variable).
    """
    data = pd.DataFrame({"h": [1.0, 0.0, np.nan], "x": [0.5, 2.0, 1.0], "s": ["a", "b", "a"]})
    env = {name: _Tripwire() for name in ("wire", "open", "eval", "exec", "getattr", "compile",
                                          "globals", "vars", "type", "object", "print", "os",
                                          "sys", "pd", "__import__", "__builtins__")}
    env["cut"] = 0.5
    formula = _place(term, side).replace("metric", "x").replace("human", "h").replace(
        "system", "s")
    del _EVENTS[:]
    _TOUCHED.clear()
    _ACTIVE.append(True)
    try:
        parse_formula(formula).evaluate(data, env)
    except BinaryEvalError:
        pass
    finally:
        _ACTIVE.clear()
    assert not _TOUCHED, (formula, _TOUCHED)
    assert not _EVENTS, (formula, _EVENTS)
    assert monkeypatch_module.compiled_code == [], formula
    assert not monkeypatch_module.imported & {"os", "subprocess", "sys", "shutil", "socket",
                                              "ctypes", "builtins", "posix", "pty"}, formula


class _Guards:
    """builtins.compile asked only for syntax trees; builtins.__import__ calls recorded."""

    def __init__(self):
        self.compiled_code: list[str] = []
        self.imported: set[str] = set()


@pytest.fixture(scope="module")
def monkeypatch_module():
    guards = _Guards()
    real_compile, real_import = builtins.compile, builtins.__import__

    def compile_guard(source, filename, mode, flags=0, *args, **kwargs):
        if _ACTIVE and not flags & ast.PyCF_ONLY_AST:
            guards.compiled_code.append(str(source)[:80])
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    def import_guard(name, *args, **kwargs):
        if _ACTIVE:
            guards.imported.add(name.split(".")[0])
        return real_import(name, *args, **kwargs)

    builtins.compile, builtins.__import__ = compile_guard, import_guard
    try:
        yield guards
    finally:
        builtins.compile, builtins.__import__ = real_compile, real_import


def test_fuzz_guards_catch_what_they_guard(monkeypatch_module):
    """The instruments above see an eval, a write and an operation on a tripwire."""
    del _EVENTS[:]
    _TOUCHED.clear()
    monkeypatch_module.compiled_code.clear()
    _ACTIVE.append(True)
    try:
        eval(compile("1 + 1", "<formula>", "eval"))  # noqa: S307  (what the evaluator must not do)
        with pytest.raises(AssertionError):
            _Tripwire() + 1
    finally:
        _ACTIVE.clear()
    assert ("exec", "<formula>") in _EVENTS
    assert monkeypatch_module.compiled_code == ["1 + 1"]
    assert _TOUCHED == ["__add__"]
    monkeypatch_module.compiled_code.clear()
    _TOUCHED.clear()
    del _EVENTS[:]


def test_text_compared_with_a_number_is_refused_with_the_fix():
    # MQM penalties read as text ('0', '-1.5'): pandas answers `== 0` with False on every row,
    # so I(mqm == 0) rated every output inadequate without a word
    mqm = ["0", "-1.5", "0", "-3"] * 25
    df = pd.DataFrame({"system": list("AB") * 50, "mqm": mqm, "metric": [1, 0] * 50})
    assert not (df.mqm == 0).any()  # the trap: no row equals 0
    for formula in ("I(mqm == 0) ~ metric | system", "I(0 == mqm) ~ metric | system",
                    "I(mqm >= -1) ~ metric | system"):
        with pytest.raises(FormulaError, match=r"'mqm' holds text \('0', '-1.5', '-3'\) and is "
                                               r"compared with a number.*pd.to_numeric"):
            be.fit(formula, df)
    # following the advice gives the counts by hand: system A holds every '0' (rows 0, 2, ...)
    fixed = df.assign(mqm=pd.to_numeric(df.mqm))
    counts = be.fit("I(mqm == 0) ~ metric | system", fixed).counts
    adequate = counts.tp + counts.fn  # every row is paired (human and metric rated)
    assert adequate["A"] == 50 and adequate["B"] == 0
    # text compared with text, and an object column of numbers, are what they say
    assert be.fit("I(mqm == '0') ~ metric | system", df).counts.equals(counts)
    as_objects = fixed.assign(mqm=fixed.mqm.astype(object))
    assert be.fit("I(mqm == 0) ~ metric | system", as_objects).counts.equals(counts)
