"""Rendering: the showcase vignettes to HTML, and a report of a fit on the user's own data.

- :func:`render` and :func:`render_document` turn Quarto documents into self-contained HTML
  (with Quarto when it is installed, otherwise with the Jupyter stack; :mod:`.documents`);
- :func:`make_report` fits the binary model on a table and renders the report template
  (:mod:`.user_report`).
"""

from ..errors import RenderError
from .documents import find_documents, project_output_dir, read_qmd, render, render_document
from .user_report import REPORT_PARAMS, make_report, report_template

__all__ = ["REPORT_PARAMS", "RenderError", "find_documents", "make_report", "read_qmd", "render",
           "render_document", "report_template"]
