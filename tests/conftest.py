import dataclasses
import importlib.util
import sys
from pathlib import Path

import matplotlib
import pytest
from hypothesis import settings

matplotlib.use("Agg")

# Property tests draw the same examples on every run (derandomized, no example database): a
# clean clone's result does not depend on the luck of its draws, and a failure found once is
# found again.  A search for new counterexamples: pytest --hypothesis-profile=explore.
settings.register_profile("binaryeval", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False, database=None)
settings.load_profile("binaryeval")

REPO = Path(__file__).resolve().parents[1]
# Reference values the tests compare with, copied into the repository; provenance in README.md there.
REFERENCE = Path(__file__).parent / "reference"

# (No test reads the raw public data behind binaryeval/datasets: data-raw/extract_references.py
# computes what the tests need from them into REFERENCE, as numbers.)


def build_module():
    """``data-raw/build_datasets.py`` as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("build_datasets", REPO / "data-raw" / "build_datasets.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def study_module(name: str):
    """``studies/<name>.py`` as a module named ``name`` (a script, not part of the package).

    Registered in ``sys.modules`` first: the studies' dataclasses look their module up there.
    """
    spec = importlib.util.spec_from_file_location(name, REPO / "studies" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """Keep a module's tests on one worker when they share a fixture built once per module.

    With ``--dist loadgroup`` (the Makefile's), pytest-xdist sends the tests of one
    ``xdist_group`` to one worker; the others are balanced test by test.  A module-scoped
    fixture defined in the test's own module (a rendered site, a sweep of posteriors) is then
    built once instead of once per worker that happens to run one of its tests.
    """
    for item in items:
        infos = getattr(item, "_fixtureinfo", None)
        if infos is None:
            continue
        module = item.nodeid.split("::")[0]
        shared = any(d.scope == "module" and d.baseid.split("::")[0] == module
                     for defs in infos.name2fixturedefs.values() for d in defs)
        if shared:
            item.add_marker(pytest.mark.xdist_group(module))
            _name_the_group(config, item, module)


def _name_the_group(config, item, group):
    """Append ``@group`` to the test's id on an xdist worker, which is how the scheduler sees groups.

    pytest-xdist does this from the ``xdist_group`` mark by assigning ``item._nodeid``; pytest 9
    keeps the id in ``item._id`` instead, so that assignment is lost and every test would be
    scheduled alone (a module's fixture then built once per worker).  Where the id is a NodeId,
    the suffix is put on its text here; elsewhere xdist's own assignment does the work.
    """
    if not getattr(config.option, "loadgroup", False):
        return
    ident = getattr(item, "_id", None)
    suffix = f"@{group}"
    if ident is None or not dataclasses.is_dataclass(ident) or str(ident).endswith(suffix):
        return
    named = dataclasses.replace(ident)
    object.__setattr__(named, "_str_cache", f"{ident}{suffix}")
    item._id = named
