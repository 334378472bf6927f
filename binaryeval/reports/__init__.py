"""Rendering: the showcase site and its API reference, and a report of a fit on the user's data.

- :func:`render` and :func:`render_document` turn Quarto documents into HTML (with Quarto when it
  is installed, otherwise with the Jupyter stack; :mod:`.documents`); a folder inside a website
  project becomes the website its ``_quarto.yml`` describes (:mod:`.site`, :mod:`.apiref`);
- :func:`make_report` fits the binary model on a table and renders the report template
  (:mod:`.user_report`);
- :func:`set_theme` is the one figure theme of the site and the report (:mod:`.theme`).
"""

from .._site.documents import find_documents, project_output_dir, read_qmd, render, render_document
from .._site.site import build_site, find_site_config, read_site_config
from .._site.theme import set_theme
from ..errors import RenderError
from .user_report import REPORT_PARAMS, make_report, report_template

__all__ = ["REPORT_PARAMS", "RenderError", "build_site", "find_documents", "find_site_config",
           "make_report", "project_output_dir", "read_qmd", "read_site_config", "render", "render_document",
           "report_template", "set_theme"]
