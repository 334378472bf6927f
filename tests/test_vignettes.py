"""Every vignette renders without error output (the README's main job, checked in the tests)."""

import re
from pathlib import Path

import pytest

from binaryeval.reports import read_qmd, render

ROOT = Path(__file__).resolve().parents[1]
VIGNETTES = sorted((ROOT / "vignettes").glob("*.qmd"))


@pytest.mark.slow
@pytest.mark.parametrize("doc", VIGNETTES, ids=lambda p: p.stem)
def test_vignette_renders_cleanly(doc, tmp_path):
    nb = read_qmd(doc)
    header = nb.metadata["quarto"]
    assert header.get("title"), "every vignette has a title"
    labels = [c.metadata["quarto"].get("label", "") for c in nb.cells if c.cell_type == "code"]
    assert all(labels) and not any(lab.startswith("chunk-") for lab in labels), \
        "every chunk has a #| label"
    (written,) = render([doc], output_dir=tmp_path, engine="jupyter", timeout=600)
    page = written.read_text()
    # no traceback or error output in the rendered page, and (for a page that computes) at least
    # one embedded figure
    assert "Traceback" not in page and 'class="output_error"' not in page
    assert "#|" not in page
    if labels:
        assert re.search(r'<img[^>]*src="data:image/png;base64,', page)
