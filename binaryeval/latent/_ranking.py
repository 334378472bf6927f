"""Rankings from pairwise posterior probabilities: a DAG of confident wins, and its drawing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd


def plot_dag(g: Any, ax: Any, **kwargs: Any):
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
    kwargs.setdefault("node_color", "white")
    kwargs.setdefault("edgecolors", "0.3")
    kwargs.setdefault("node_size", 900)
    kwargs.setdefault("font_size", 8)
    nx.draw_networkx(g, pos=pos, ax=ax, arrows=True, **kwargs)
    ax.set_title(f"confident wins (P >= {g.graph['threshold']:g})")
    ax.set_axis_off()
    return ax


def ranking_graph(prob: pd.DataFrame, threshold: float) -> Any:
    """DAG of wins with ``P(row preferred over column) >= threshold``, transitive edges removed."""
    import networkx as nx

    from .._warnings import warn
    from ..errors import BinaryEvalWarning

    g = nx.DiGraph(threshold=threshold)
    mean_diff = prob.attrs.get("mean_diff", {})
    for name in prob.index:
        g.add_node(name, mean_diff=float(mean_diff.get(name, np.nan)))
    values = prob.to_numpy()
    for i, a in enumerate(prob.index):
        for j, b in enumerate(prob.columns):
            if i != j and np.isfinite(values[i, j]) and values[i, j] >= threshold:
                g.add_edge(a, b, prob=float(values[i, j]))
    for name in prob.index:
        g.nodes[name]["wins"] = g.out_degree(name)
        g.nodes[name]["losses"] = g.in_degree(name)
    if not nx.is_directed_acyclic_graph(g):
        warn("the confident wins contain a cycle; the graph is returned without transitive "
             "reduction", BinaryEvalWarning)
        g.graph["reduced"] = False
        return g
    tr = nx.transitive_reduction(g)
    tr.graph.update(g.graph)
    tr.graph["reduced"] = True
    tr.add_nodes_from(g.nodes(data=True))
    for a, b in tr.edges:
        tr.edges[a, b].update(g.edges[a, b])
    return tr


def prob_matrix(draws: np.ndarray, names: list[str]) -> pd.DataFrame:
    """``P(x_row > x_column)`` from joint draws (chains, draws, G) of one quantity per group.

    Draws of different groups at the same index come from the joint posterior, so the share of
    draws with ``x_row > x_column`` estimates the probability also when the groups share rates.
    """
    flat = draws.reshape(-1, draws.shape[2])
    g = flat.shape[1]
    prob = np.full((g, g), np.nan)
    for i in range(g):
        prob[i] = (flat[:, [i]] > flat).mean(axis=0)
        prob[i, i] = np.nan
    out = pd.DataFrame(prob, index=pd.Index(names, name="group"), columns=list(names))
    means = pd.Series(flat.mean(axis=0), index=names)
    out.attrs.update(order=list(means.sort_values(ascending=False).index),
                     mean_diff={n: float(means[n] - means.drop(n).mean()) if g > 1 else 0.0
                                for n in names},
                     quantity="P(row > column)")
    return out
