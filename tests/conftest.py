import importlib.util
import os
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

REPO = Path(__file__).resolve().parents[1]
# Reference values the tests compare with, copied into the repository; provenance in README.md there.
REFERENCE = Path(__file__).parent / "reference"

# The raw public data behind binaryeval/datasets (never copied into the repository).  Only the tests
# that rebuild the shipped datasets from them, or check the shipped numbers against them, read it.
SHARED = Path(os.environ.get("BINARYEVAL_SHARED", REPO.parent / "shared"))
DATA = SHARED / "data"


def need(path: Path) -> Path:
    """Skip (with the reason) when the raw shared data are not beside the checkout."""
    if not path.exists():
        pytest.skip(f"shared data not found at {path} (set BINARYEVAL_SHARED)")
    return path


def build_module():
    """``data-raw/build_datasets.py`` as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("build_datasets", REPO / "data-raw" / "build_datasets.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
