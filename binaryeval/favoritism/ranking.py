"""Rankings from pairwise sign tests: significant wins as a DAG, transitive edges removed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._comparison import adjusted
from .._ranking import reduced
from .._validate import adjust as valid_adjust
from .._validate import choice
from .._validate import sig_level as valid_sig_level

if TYPE_CHECKING:  # pragma: no cover
    from .result import FaviResult


def _adjusted(p: np.ndarray, sig_level: float, adjust: str | None) -> np.ndarray:
    return p if valid_adjust(adjust) is None else adjusted(p, adjust, sig_level)[0]


def ranking_graph(result: FaviResult, source: str, sig_level: float | None, adjust: str | None) -> Any:
    """The graph of :meth:`FaviResult.ranking`."""
    import networkx as nx

    choice(source, "source", ("human", "metric"))
    sig_level = result.sig_level if sig_level is None else valid_sig_level(sig_level)
    s = result._pair_stats()
    p = _adjusted(s[f"p_{source}"], sig_level, adjust)
    mar = s[f"mar_{source}"]
    g = nx.DiGraph(source=source, sig_level=sig_level, sign_test_ties=result.sign_test_ties,
                   adjust=adjust)
    fmean = result.by_system().attrs["summary"]["mean"]
    for name in result.systems:
        g.add_node(name, favi_mean=float(fmean.get(name, np.nan)))
    for (a, b), pv, mg, n in zip(result.pair_index, p, mar, s["n"], strict=True):
        if np.isfinite(pv) and pv < sig_level and mg != 0:
            win, lose = (a, b) if mg > 0 else (b, a)
            g.add_edge(result.systems[win], result.systems[lose], p_value=float(pv), margin=int(abs(mg)),
                       n=int(n))
    return reduced(g, f"significant {source} wins")
