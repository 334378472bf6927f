"""Every third-party module that the package, its tests, benchmarks and vignettes import is declared.

A fresh machine has only what ``pyproject.toml`` declares.  A module that arrives by chance (as a
dependency of a dependency, or installed by hand) makes a suite pass here and fail for a user, so
each import must be declared directly, in the extra that needs it, or be guarded by
``try/except ImportError`` (an optional peer, with the test skipped by ``pytest.importorskip``).
"""

from __future__ import annotations

import ast
import functools
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ROOTS = ("binaryeval", "tests", "benchmarks")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> dict[str, set[str]]:
    """Distribution name -> the extras (or "required") that declare it."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    out: dict[str, set[str]] = {}
    for req in project["dependencies"]:
        out.setdefault(_norm(re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0]), set()).add("required")
    for extra, reqs in project["optional-dependencies"].items():
        for req in reqs:
            out.setdefault(_norm(re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0]), set()).add(extra)
    return out


def _catches_import_error(node: ast.Try) -> bool:
    return any(isinstance(h.type, ast.Name) and h.type.id in ("ImportError", "ModuleNotFoundError")
               for h in node.handlers)


@functools.cache
def _imports(tree: ast.AST) -> tuple[str, ...]:
    """Top-level names of the modules a file imports outside ``try:`` blocks that catch
    ImportError (optional imports), in the order of the file.

    An import is a statement, so the walk follows statements only (the bodies of ``if``,
    ``def``, ``class``, ``with``, ``for``, ``try``, ``match``), never into expressions.
    """
    out: list[str] = []

    def visit(statements, guarded: bool) -> None:
        for node in statements:
            if isinstance(node, ast.Import):
                if not guarded:
                    out.extend(a.name.split(".")[0] for a in node.names)
                continue
            if isinstance(node, ast.ImportFrom):
                if not guarded and node.level == 0 and node.module:
                    out.append(node.module.split(".")[0])
                continue
            inner = guarded or (isinstance(node, ast.Try) and _catches_import_error(node))
            visit(getattr(node, "body", ()) if isinstance(getattr(node, "body", None), list)
                  else (), inner)
            for field in ("orelse", "finalbody", "handlers", "cases"):
                visit(getattr(node, field, ()), guarded)

    visit(tree.body, False)
    return tuple(out)


@functools.cache
def _sources() -> list[tuple[str, ast.AST, set[str]]]:
    """(file, syntax tree, names of sibling modules) for every Python source and vignette chunk.

    Parsed once per run (the checks only read the trees): the files do not change during it."""
    out = []
    for root in ROOTS:
        for path in sorted((REPO / root).rglob("*.py")):
            if "reference" in path.relative_to(REPO).parts:
                # scripts that computed the stored reference values with peer packages (ppi_py,
                # QuaPy): run by hand, never by the suite; each names what it needs
                continue
            local = {p.stem for p in path.parent.glob("*.py")}
            out.append((str(path.relative_to(REPO)), ast.parse(path.read_text(encoding="utf-8")),
                        local))
    for path in sorted((REPO / "vignettes").glob("*.qmd")):
        code = "\n".join(re.findall(r"^```\{python[^}]*\}\n(.*?)^```", path.read_text(encoding="utf-8"),
                                    flags=re.S | re.M))
        out.append((str(path.relative_to(REPO)), ast.parse(code), set()))
    return out


def test_every_import_is_declared_directly():
    declared = _declared()
    dists = {m: {_norm(d) for d in ds} for m, ds in packages_distributions().items()}
    problems = []
    for where, tree, local in _sources():
        for module in _imports(tree):
            if module in sys.stdlib_module_names or module in local or module == "binaryeval":
                continue
            owners = dists.get(module)
            if not owners:
                problems.append(f"{where}: imports {module!r}, which is not installed here and not "
                                "guarded by try/except ImportError")
            elif not owners & set(declared) and _norm(module) not in declared:
                # (a module may live in a distribution of another name that the declared one
                # installs, e.g. griffe's module in griffelib)
                problems.append(f"{where}: imports {module!r} (distribution {sorted(owners)[0]!r}), "
                                "which pyproject.toml does not declare")
    assert not problems, "\n".join(sorted(set(problems)))


def test_the_check_sees_an_undeclared_import(tmp_path):
    # the walk itself: an unguarded import of a module no extra declares is reported, a guarded
    # one is not (mpmath is installed with the test extra; here it stands for any module)
    tree = ast.parse("import os\nimport mpmath\ntry:\n    import ppi_py\nexcept ImportError:\n"
                     "    ppi_py = None\n")
    assert _imports(tree) == ("os", "mpmath")
    assert "mpmath" in _declared() and "required" not in _declared()["mpmath"]


# peers that a benchmark runs beside ours, imported everywhere under try/except ImportError (the
# benchmark prints a note and skips them; a test compares with them when present and with stored
# values always): no test needs them, so the test extra need not install them (ppi_python brings
# numba and scikit-learn)
BENCHMARK_PEERS = {"ppi-python"}


def test_benchmark_peers_are_imported_guarded():
    for where, tree, _ in _sources():
        assert "ppi_py" not in _imports(tree), f"{where} imports ppi_py unguarded"
    uses = [where for where, tree, _ in _sources()
            if "ppi_py" in {a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                            for a in node.names}]
    assert any(w.startswith("benchmarks") for w in uses), uses


def test_test_extra_holds_every_extra_the_suite_needs():
    # make test installs .[test] only: every runtime extra (reports, latent, dask, bench) must be
    # inside it, or a test of that extra fails on a fresh machine
    declared = _declared()
    for dist, extras in declared.items():
        if dist in BENCHMARK_PEERS:
            continue
        if extras - {"required"}:
            assert "test" in extras or "required" in extras, (
                f"{dist} is declared in {sorted(extras)} but not in the test extra")


# --- the lowest versions: .ci/lowest installs the core dependencies at the lower bounds that
# pyproject.toml declares, pinned in .ci/lowest-constraints.txt, and runs the suite on them

CONSTRAINTS = REPO / ".ci" / "lowest-constraints.txt"


def _release(version: str) -> tuple[int, ...] | str:
    """A release number without its trailing zeros (1.17 and 1.17.0 are one release)."""
    if not re.fullmatch(r"\d+(\.\d+)*", version):
        return version
    parts = [int(p) for p in version.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def _bound_mismatches(dependencies: list[str], constraints: str) -> list[str]:
    """Where the ``name==version`` pins of a constraints file differ from the ``>=`` lower bounds
    of the dependencies: a dependency without a lower bound, or without a pin at it, and a pin of
    anything else (lines of another form, such as a cap on an extra's package, are not pins)."""
    bounds: dict[str, str | None] = {}
    for req in dependencies:
        name = _norm(re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0])
        low = re.search(r">=\s*([^,;\s]+)", req.split(";", 1)[0])
        bounds[name] = low.group(1) if low else None
    pins: dict[str, str] = {}
    for line in constraints.splitlines():
        pin = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*(\S+)",
                           line.split("#", 1)[0].strip())
        if pin:
            pins[_norm(pin.group(1))] = pin.group(2)
    out = [f"{name}: no lower bound" for name, low in bounds.items() if low is None]
    out += [f"{name}: >={low} declared, pinned at {pins.get(name)}" for name, low in bounds.items()
            if low is not None and (name not in pins or _release(pins[name]) != _release(low))]
    out += [f"{name}: pinned, but not a dependency" for name in pins if name not in bounds]
    return out


def test_lowest_constraints_pin_the_declared_lower_bounds():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert _bound_mismatches(project["dependencies"], CONSTRAINTS.read_text(encoding="utf-8")) == []


def test_the_bound_check_sees_each_difference():
    deps = ["numpy>=1.26.4", "scipy>=1.17", "pandas>=2.0", "tqdm", "joblib>=1.4"]
    pins = "numpy==1.26.4\nscipy==1.17.0  # same release\npandas==2.1.0\npyarrow<26\nextra==1.0\n"
    assert _bound_mismatches(deps, pins) == [
        "tqdm: no lower bound", "pandas: >=2.0 declared, pinned at 2.1.0",
        "joblib: >=1.4 declared, pinned at None", "extra: pinned, but not a dependency"]
