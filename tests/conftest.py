import os
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

SHARED = Path(os.environ.get("BINARYEVAL_SHARED", Path(__file__).resolve().parents[2] / "shared"))
REFERENCE = SHARED / "reference"
DATA = SHARED / "data"


def need(path: Path) -> Path:
    """Skip (with the reason) when the shared reference data are not beside the checkout."""
    if not path.exists():
        pytest.skip(f"shared data not found at {path} (set BINARYEVAL_SHARED)")
    return path
