"""Rankings of systems as directed graphs of wins, and their drawing (shared by favi and latent).

A ranking is a :class:`networkx.DiGraph` with an edge ``a -> b`` for every pair where ``a`` beats
``b`` (a significant sign test, a confident posterior probability).  Without cycles the graph is
reduced transitively, so that its layers read as a ranking with ties; with a cycle it is returned
as it is, with one warning.
"""

from __future__ import annotations

from typing import Any

from ._warnings import warn
from .errors import BinaryEvalWarning

__all__ = ["draw_layers", "reduced"]


def reduced(g: Any, what: str) -> Any:
    """The transitive reduction of the win graph ``g`` (node and edge data kept), or ``g``.

    ``graph["reduced"]`` says which; a cycle among ``what`` (e.g. "significant human wins") is
    warned about once.

    Examples
    --------
    >>> from binaryeval._ranking import reduced
    >>> import networkx as nx
    >>> g = nx.DiGraph([("A", "B"), ("B", "C"), ("A", "C")])
    >>> sorted(reduced(g, "wins").edges)
    [('A', 'B'), ('B', 'C')]
    """
    import networkx as nx

    for name in g.nodes:
        g.nodes[name]["wins"] = g.out_degree(name)
        g.nodes[name]["losses"] = g.in_degree(name)
    if not nx.is_directed_acyclic_graph(g):
        warn(f"the {what} contain a cycle; the graph is returned without transitive reduction",
             BinaryEvalWarning)
        g.graph["reduced"] = False
        return g
    tr = nx.transitive_reduction(g)
    tr.graph.update(g.graph)
    tr.graph["reduced"] = True
    tr.add_nodes_from(g.nodes(data=True))
    for a, b in tr.edges:
        tr.edges[a, b].update(g.edges[a, b])
    return tr


def draw_layers(g: Any, ax: Any, title: str, **kwargs: Any) -> Any:
    """Draw a win graph in layers, winners on top (all in one layer when it has a cycle).

    Examples
    --------
    >>> from binaryeval._ranking import draw_layers, reduced
    >>> import matplotlib.pyplot as plt, networkx as nx
    >>> g = reduced(nx.DiGraph([("A", "B")]), "wins")
    >>> ax = draw_layers(g, plt.subplots()[1], "wins")
    """
    import networkx as nx

    if g.graph.get("reduced", False):
        for layer, nodes in enumerate(nx.topological_generations(g)):
            for nd in nodes:
                g.nodes[nd]["layer"] = layer
    else:
        for nd in g.nodes:
            g.nodes[nd]["layer"] = 0
    pos = nx.multipartite_layout(g, subset_key="layer", align="horizontal")
    pos = {k: (x, -y) for k, (x, y) in pos.items()}
    # names in boxes wide enough for them (a circle of fixed size cuts long names); arrows stop
    # short of the boxes
    font_size = kwargs.pop("font_size", 9)
    node_size = kwargs.pop("node_size", 1000)
    edge_color = kwargs.pop("edge_color", "0.35")
    nx.draw_networkx_edges(g, pos=pos, ax=ax, arrows=True, node_size=node_size,
                           edge_color=edge_color, arrowsize=12, **kwargs)
    nx.draw_networkx_labels(g, pos=pos, ax=ax, font_size=font_size,
                            bbox={"boxstyle": "round,pad=0.35", "fc": "white", "ec": "0.3"})
    # the axes' limits cover every name: only the edges enter the data limits, so a system
    # with no confident win or loss at either end of its layer was drawn outside the figure
    ax.update_datalim(list(pos.values()))
    ax.autoscale_view()
    ax.set_title(title)
    ax.set_axis_off()
    ax.margins(0.08)
    return ax
