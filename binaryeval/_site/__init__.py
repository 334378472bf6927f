"""The site builder: Quarto documents to HTML, the website and its API reference.

A tool, not the statistics API (``binaryeval render`` and ``make reports`` run it; the user report,
:func:`binaryeval.reports.make_report`, renders its one document with it):

- :mod:`.rendering`: :func:`render`, documents or a website to HTML (Jupyter or Quarto);
- :mod:`.documents`: one ``.qmd`` document through jupytext, nbclient and nbconvert;
- :mod:`.kernels`: the documents' kernels, forked from a warm process where they can be;
- :mod:`.site`: the website a ``_quarto.yml`` describes (navbar, sidebar, listing, API reference);
- :mod:`.apiref`: the API reference pages, from the ``__all__`` and docstrings of the package;
- :mod:`.pages`: the page around a document's cells (stylesheet, table of contents, links);
- :mod:`.tables`: tables for reading (fixed decimals, no e-notation for probabilities);
- :mod:`.theme`: the one figure theme of every page.
"""

from .documents import find_documents, project_output_dir, read_qmd, render_document
from .rendering import render
from .site import build_site, find_site_config, read_site_config
from .theme import set_theme

__all__ = ["build_site", "find_documents", "find_site_config", "project_output_dir", "read_qmd",
           "read_site_config", "render", "render_document", "set_theme"]
