"""Rankings from pairwise posterior probabilities: a DAG of confident wins, and its drawing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd


def plot_dag(g: Any, ax: Any, **kwargs: Any):
    """The DAG of confident wins in layers (see :func:`binaryeval._ranking.draw_layers`)."""
    from .._ranking import draw_layers

    return draw_layers(g, ax, f"confident wins (P >= {g.graph['min_prob']:g})", **kwargs)


def _min_prob(value: Any) -> float:
    """``min_prob`` of a ranking, checked: above 0.5 (else both orders of a pair could win).

    Examples
    --------
    >>> _min_prob(0.9)
    0.9
    """
    from .. import _validate as v
    from ..errors import ParameterError

    value = v.probability(value, "min_prob", open=True)
    if value <= 0.5:
        raise ParameterError(f"min_prob={value!r}: a confident win needs a posterior "
                             "probability above 0.5 (at 0.5 or below both systems of a pair "
                             "could win it), e.g. min_prob=0.95")
    return value


def ranking_graph(prob: pd.DataFrame, min_prob: float) -> Any:
    """DAG of wins with ``P(row preferred over column) >= min_prob``, transitive edges removed."""
    import networkx as nx

    from .._ranking import reduced

    g = nx.DiGraph(min_prob=min_prob)
    mean_diff = prob.attrs.get("mean_diff", {})
    for name in prob.index:
        g.add_node(name, mean_diff=float(mean_diff.get(name, np.nan)))
    values = prob.to_numpy()
    for i, a in enumerate(prob.index):
        for j, b in enumerate(prob.columns):
            if i != j and np.isfinite(values[i, j]) and values[i, j] >= min_prob:
                g.add_edge(a, b, prob=float(values[i, j]))
    return reduced(g, "confident wins")


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
    out = pd.DataFrame(prob, index=pd.Index(names, name="group_1"),
                       columns=pd.Index(names, name="group_2"))
    means = pd.Series(flat.mean(axis=0), index=names)
    out.attrs.update(order=list(means.sort_values(ascending=False).index),
                     mean_diff={n: float(means[n] - means.drop(n).mean()) if g > 1 else 0.0
                                for n in names},
                     quantity="P(row > column)")
    return out
