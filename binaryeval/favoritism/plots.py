"""Drawings of a :class:`~binaryeval.favoritism.FaviResult`: one-vs-all boxes, heat map, ranking DAG."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputTypeError

if TYPE_CHECKING:  # pragma: no cover
    from .result import FaviResult


def check_ax(ax: Any) -> None:
    """Refuse an ``ax`` that is not an Axes (e.g. a kind passed by position)."""
    if ax is not None and not hasattr(ax, "figure"):
        raise InputTypeError(f"ax={ax!r} is not a matplotlib Axes; pass the kind by keyword, "
                             f"e.g. plot(kind={ax!r})" if isinstance(ax, str) else
                             f"ax={ax!r} is not a matplotlib Axes")


def box(result: FaviResult, ax: Any, **kwargs: Any) -> Any:
    """One-vs-all Favi per system (paper Fig. 6), systems ordered by median."""
    import seaborn as sns

    long = result.by_system()
    order = long.groupby("group_1")["favi"].median().sort_values(ascending=False).index
    sns.boxplot(data=long, x="group_1", y="favi", order=list(order), ax=ax,
                color=kwargs.pop("color", "0.8"), **kwargs)
    ax.axhline(0, color="0.3", lw=0.8, ls="--")
    ax.set_xlabel("system")
    ax.set_ylabel("Favi (system as group_1)")
    ax.tick_params(axis="x", rotation=60)
    return ax


def heatmap(result: FaviResult, ax: Any, **kwargs: Any) -> Any:
    """The system x system matrix, centred at 0."""
    import seaborn as sns

    m = result.matrix()
    values = m.to_numpy()
    lim = float(np.nanmax(np.abs(values))) if np.isfinite(values).any() else 1.0
    kwargs.setdefault("cmap", "RdBu_r")
    kwargs.setdefault("center", 0.0)
    kwargs.setdefault("vmin", -lim)
    kwargs.setdefault("vmax", lim)
    sns.heatmap(m, ax=ax, **kwargs)
    ax.set_title("Favi (row system as group_1)")
    return ax


def dag(result: FaviResult, ax: Any, source: str, **kwargs: Any) -> Any:
    """The ranking of ``source`` in layers, winners on top."""
    from .._ranking import draw_layers

    g = result.ranking(source)
    return draw_layers(g, ax, f"significant {source} wins (sig_level = {g.graph['sig_level']})",
                       **kwargs)
