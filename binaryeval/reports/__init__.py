"""The user report: a fit on the user's own data as one self-contained HTML page.

:func:`make_report` fits the binary evaluation model on a data frame, a table file or a shipped
dataset and renders the report template (:func:`report_template`); ``binaryeval report`` on the
command line is the same.  The site builder that renders the package's website (documents, pages,
API reference) is a tool beside it (``binaryeval render``, :mod:`binaryeval._site`), not part of
this API.
"""

from .user_report import make_report, report_template

__all__ = ["make_report", "report_template"]

#: The site builder's names that this package exported before the builder became a tool.
_SITE_NAMES = frozenset({"build_site", "find_documents", "find_site_config", "project_output_dir",
                         "read_qmd", "read_site_config", "render", "render_document",
                         "set_theme"})


def __getattr__(name: str):
    if name in _SITE_NAMES:
        raise AttributeError(f"binaryeval.reports.{name} belongs to the site builder, a tool "
                             f"rather than the statistics API: run `binaryeval render`, or use "
                             f"binaryeval._site.{name}")
    raise AttributeError(f"module 'binaryeval.reports' has no attribute {name!r}")
