"""Every vignette renders without error output (the README's main job, checked in the tests).

Each vignette is rendered once, as a single self-contained page; the checks on the page are the
site's: nothing loaded from the network, a table of contents, figures with alt text, and no
probability in e-notation in a table (``< 0.001`` reads; ``1.410e-16`` does not).
"""

import re
from pathlib import Path

import pytest
from htmlchecks import e_notation_in_probability_columns, external_resources, soup

from binaryeval._site import read_qmd, render

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
    html = soup(page)
    assert external_resources(page) == []
    assert all(img.get("alt") for img in html.find_all("img"))
    if header.get("toc", True) is not False and len(html.find_all("h2")) >= 2:
        assert html.find("aside", class_="toc-side") is not None
    assert e_notation_in_probability_columns(page) == []
