"""Every vignette renders without error output (the README's main job, checked in the tests).

Each vignette is rendered once, as a single self-contained page; the checks on the page are the
site's: nothing loaded from the network, a table of contents, figures with alt text, and no
probability in e-notation in a table (``< 0.001`` reads; ``1.410e-16`` does not).
"""

import ast
import re
from pathlib import Path

import pytest
from htmlchecks import e_notation_in_probability_columns, external_resources, soup

from binaryeval._site import read_qmd, render

ROOT = Path(__file__).resolve().parents[1]
VIGNETTES = sorted((ROOT / "vignettes").glob("*.qmd"))


def _datasets_page(nb, page):
    """The datasets vignette: setup hidden, warnings shown (no page-wide ``warning: false``), one
    captioned seaborn figure.  Checked on the page rendered here, so that it is rendered once."""
    assert nb.metadata["quarto"]["execute"] == {"echo": True}
    assert "<title>The datasets shipped with binaryeval</title>" in page
    assert len(re.findall(r'<img[^>]*src="data:image/png;base64,', page)) == 1
    assert "Figure 1: Distribution of the MQM scores" in page
    assert "sns.set_theme" not in page
    # the opening sentence counts the datasets describe() lists (it said six beside seven)
    from binaryeval import datasets

    n = len(datasets.describe())
    words = "zero one two three four five six seven eight nine ten eleven twelve".split()
    assert f"ships {words[n] if n < len(words) else n} small numeric datasets" in page
    # the WMT21 en-de table shows a dash under mean_chrf for nine systems: the text says why
    assert "ref-C is the reference itself, and the texts of ref-B and the metrics-task " \
        "systems were not released" in " ".join(soup(page).get_text(" ").split())


# checks that belong to one vignette, run on its one rendering
PAGE_CHECKS = {"datasets": _datasets_page}


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
    # a showcase shows converged draws: no ConvergenceWarning on the page, and none filtered out
    # in its code (a table of unconverged draws once contradicted the text beside it)
    assert "ConvergenceWarning" not in page
    assert "#|" not in page
    if labels:
        assert re.search(r'<img[^>]*src="data:image/png;base64,', page)
    html = soup(page)  # parsed once for the checks below
    assert external_resources(html) == []
    assert all(img.get("alt") for img in html.find_all("img"))
    if header.get("toc", True) is not False and len(html.find_all("h2")) >= 2:
        assert html.find("aside", class_="toc-side") is not None
    assert e_notation_in_probability_columns(html) == []
    if doc.stem in PAGE_CHECKS:
        PAGE_CHECKS[doc.stem](nb, page)


def test_the_datasets_vignette_has_its_own_checks():
    # the vignette the checks above name exists, so they cannot be skipped by a rename
    assert set(PAGE_CHECKS) <= {p.stem for p in VIGNETTES}


def test_a_chunk_that_writes_prose_hides_its_code():
    """A chunk whose last statement is ``Markdown(...)`` writes a paragraph of the page: its
    code is not shown above the paragraph (the validation page showed four such f-strings)."""
    shown = []
    for doc in VIGNETTES:
        for cell in read_qmd(doc).cells:
            options = cell.metadata.get("quarto", {})
            if cell.cell_type != "code" or options.get("include", True) is False:
                continue
            body = ast.parse(cell.source).body
            writes = (body and isinstance(body[-1], ast.Expr) and isinstance(body[-1].value, ast.Call)
                      and getattr(body[-1].value.func, "id", None) == "Markdown")
            if writes and options.get("echo", True) is not False:
                shown.append(f"{doc.stem}: {options.get('label')}")
    assert shown == []


def test_the_planning_pages_side_by_side_tables_fold_their_code():
    """The chunks that only lay out the paper's tables beside ours fold their code, as in the
    other showcases (the planning page showed some 40 lines of table layout before Table 1)."""
    unfolded = []
    for cell in read_qmd(ROOT / "vignettes" / "planning.qmd").cells:
        options = cell.metadata.get("quarto", {})
        if cell.cell_type == "code" and "show_in_parts(" in cell.source \
                and options.get("code-fold") is not True:
            unfolded.append(options.get("label"))
    assert unfolded == []
