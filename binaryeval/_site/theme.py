"""The one look of every figure the package renders on its site pages.

The renderer runs :func:`set_theme` and :func:`sharp_figures` in the kernel before a document's
first chunk, so a page that never calls them still gets the theme; a vignette that calls
``seaborn.set_theme(style="whitegrid", context="notebook")`` gets the same look.
"""

from __future__ import annotations

__all__ = ["FIGURE_DPI", "FIGURE_SIZE", "PIXEL_RATIO", "figure_png", "set_theme", "sharp_figures"]

#: CSS pixels per inch of a figure on the page: a figure of 9 inches is 864 px wide, the width of
#: the text column on a laptop screen, and a 10-point label is 13.3 px high
FIGURE_DPI = 96
#: default figure size in inches (width, height)
FIGURE_SIZE = (9.0, 5.0)
#: device pixels per CSS pixel of an embedded figure: drawn at twice its size, shown at its size,
#: so it stays sharp on high-density screens and when zoomed
PIXEL_RATIO = 2


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
    96.0
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


def figure_png(fig) -> tuple[bytes, dict]:
    r"""A figure as PNG at :data:`PIXEL_RATIO` times its size, with the size to show it at.

    Returns the PNG and its metadata: ``width`` and ``height`` in CSS pixels (the image's pixels
    divided by the ratio) and ``smallest_text_px``, the height in CSS pixels of the smallest
    visible text of the figure shown at that width (its font size in points at the figure's
    dots per inch), which the site's checks compare with the 9 px a label needs to be read.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(3, 2), dpi=96)
    >>> _ = ax.set_xlabel("x", fontsize=9)
    >>> png, meta = figure_png(fig)
    >>> png[:4] == b"\x89PNG", meta["smallest_text_px"]
    (True, 12.0)
    >>> plt.close(fig)
    """
    import io

    from matplotlib.text import Text
    from PIL import Image

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi * PIXEL_RATIO, bbox_inches="tight",
                facecolor=fig.get_facecolor())
    data = buf.getvalue()
    # after drawing: tick labels get their text when the figure is drawn
    sizes = [t.get_fontsize() for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip() and t.get_alpha() != 0]
    with Image.open(io.BytesIO(data)) as img:
        width, height = img.size
    meta = {"width": round(width / PIXEL_RATIO), "height": round(height / PIXEL_RATIO)}
    if sizes:
        meta["smallest_text_px"] = round(min(sizes) * fig.dpi / 72, 2)
    return data, meta


def sharp_figures() -> None:
    """In an IPython kernel, show matplotlib figures as :func:`figure_png` draws them.

    The inline backend is loaded first (it installs its own PNG formatter when it loads), then
    replaced for figures.
    """
    import base64

    import matplotlib.pyplot as plt
    from IPython import get_ipython
    from matplotlib.figure import Figure

    shell = get_ipython()
    if shell is None:
        return
    plt.close(plt.figure())  # loads the backend now, not at the first chunk's figure

    def png(fig):
        data, meta = figure_png(fig)
        return base64.b64encode(data).decode("ascii"), meta

    formatter = shell.display_formatter.formatters["image/png"]
    formatter.for_type(Figure, png)

    # where the inline backend could not finish its set-up while it loaded (matplotlib 3.7 under
    # IPython 9: a circular import), it does so after this cell and installs its own formatter
    # again: this hook, registered after the backend's, puts this one back, once
    def again(*_):
        formatter.for_type(Figure, png)
        shell.events.unregister("post_run_cell", again)

    shell.events.register("post_run_cell", again)
