"""The one look of every figure the package renders (site pages and the user report).

The renderer runs :func:`set_theme` in the kernel before a document's first chunk, so a page
that never calls it still gets the theme; a vignette that calls
``seaborn.set_theme(style="whitegrid", context="notebook")`` gets the same look.
"""

from __future__ import annotations

__all__ = ["FIGURE_DPI", "FIGURE_SIZE", "set_theme"]

#: pixels per inch of an embedded figure: 7.2 in x 120 = 864 px, the width of a page's text column
FIGURE_DPI = 120
#: default figure size in inches (width, height)
FIGURE_SIZE = (7.2, 4.2)


def set_theme() -> None:
    """Apply the package's seaborn theme and figure size/resolution to matplotlib.

    Seaborn's ``whitegrid`` style in the ``notebook`` context with its default palette, a figure
    of :data:`FIGURE_SIZE` inches at :data:`FIGURE_DPI` dots per inch, and tight bounding boxes
    when saved, so that a figure is legible at the page's width.

    Examples
    --------
    >>> from binaryeval._site.theme import set_theme
    >>> import matplotlib
    >>> with matplotlib.rc_context():
    ...     set_theme()
    ...     print(matplotlib.rcParams["figure.dpi"])
    120.0
    """
    import matplotlib as mpl
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="notebook")
    mpl.rcParams.update({
        "figure.dpi": FIGURE_DPI,
        "savefig.dpi": FIGURE_DPI,
        "figure.figsize": FIGURE_SIZE,
        "savefig.bbox": "tight",
        "figure.constrained_layout.use": False,
        "legend.frameon": True,
        "legend.framealpha": 0.9,
    })
