"""Long data (one row per rating) to the arrays of the rater-noise model.

An item is one output: the value of the ``item`` column within its group (system), so the same
segment id under two systems is two items.  Its metric output is the same on every row of the
item (a contradiction is refused); its human ratings are the rows with a rater and a rating.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data import RowAccount, as_binary
from ..errors import DataError

_SINGLE = "all"


@dataclass(frozen=True)
class Ratings:
    """The model's data, coded."""

    groups: tuple[str, ...]
    raters: tuple[str, ...]
    item_keys: pd.DataFrame        # group, item of each item carrying human ratings (N rows)
    item_group: np.ndarray         # (N,)
    item_metric: np.ndarray        # (N,) metric output code, -1 none
    rating_item: np.ndarray        # (M,) every human rating, error-free raters included
    rating_rater: np.ndarray
    rating_label: np.ndarray
    metric_only: np.ndarray        # (G, J) items with a metric output only
    account: RowAccount


def _labels(values: pd.Series, column: str) -> np.ndarray:
    """A label column (rater, item, group) as text; a missing value is refused by name."""
    if values.isna().any():
        row = values.index[values.isna().to_numpy()][0]
        raise DataError(f"column {column!r} is missing on row {row!r}; every rating needs its "
                        f"{column}: fill it in or drop the row")
    return values.astype(str).to_numpy()


def code(human: pd.Series, human_name: str, metric: np.ndarray | None, group: pd.Series | None,
         rater: pd.Series, rater_name: str, item: pd.Series, item_name: str,
         n_outputs: int, coded: bool = False) -> Ratings:
    """Code the rows: ``metric`` holds each row's metric output code (-1 missing) or is None.

    ``coded``: ``human`` already holds class codes 0..K-1 (NaN: no rating), e.g. the levels of a
    binned rating; otherwise it is a binary rating, checked as everywhere in the package.
    """
    account = RowAccount(len(human))
    label = (human.to_numpy(dtype=float) if coded
             else as_binary(human, human_name, "human rating").to_numpy())
    rated = ~np.isnan(label)
    if group is not None:
        keep = group.notna().to_numpy().copy()
        account.exclude("missing group", int((~keep).sum()))
        gtext = group.astype(str).to_numpy()
    else:
        keep = np.ones(len(human), dtype=bool)
        gtext = np.full(len(human), _SINGLE)
    met = metric if metric is not None else np.full(len(human), -1)
    unrated = keep & ~rated & (met < 0)
    account.exclude("no rating (human and metric missing)", int(unrated.sum()))
    keep &= ~unrated
    if not keep.any():
        raise DataError("no row has a group and a rating; check the columns in the formula")
    itext = _labels(item[keep], item_name)
    has_rater = rater[keep].notna().to_numpy()
    if np.any(rated[keep] & ~has_rater):
        row = item[keep].index[rated[keep] & ~has_rater][0]
        raise DataError(f"row {row!r} has a rating but no {rater_name!r}: the rater-noise model "
                        "reads every rating as some rater's; fill in the rater (one name for an "
                        "unknown rater pools their ratings)")
    gcode, glabels = pd.factorize(gtext[keep], sort=True)
    icode, ilabels = pd.factorize(itext, sort=True)
    codes_all, uniq = pd.factorize(gcode.astype(np.int64) * len(ilabels) + icode, sort=True)
    uniq = np.asarray(uniq, dtype=np.int64)
    groups = np.asarray(glabels)
    gidx_item = uniq // len(ilabels)
    item_label = np.asarray(ilabels)[uniq % len(ilabels)]
    met_k, lab_k = met[keep], label[keep]
    # one metric output per item: the rows of an item must agree
    n_items = len(uniq)
    first = np.full(n_items, -1)
    has = met_k >= 0
    first[codes_all[has]] = met_k[has]
    if np.any(has & (first[codes_all] != met_k)):
        bad = np.flatnonzero(has & (first[codes_all] != met_k))[0]
        raise DataError(f"item {item_label[codes_all[bad]]!r} of "
                        f"{groups[gidx_item[codes_all[bad]]]!r} has "
                        "different metric outputs on its rows; the metric rates the item once: "
                        "give the same value on every row of the item (or leave it missing)")
    rated_k = ~np.isnan(lab_k)
    carries = np.zeros(n_items, dtype=bool)
    carries[codes_all[rated_k]] = True
    item_ids = np.flatnonzero(carries)
    new_id = np.full(n_items, -1)
    new_id[item_ids] = np.arange(item_ids.size)
    rtext = rater[keep].astype(str).to_numpy()[rated_k]
    raters, r_idx = np.unique(rtext, return_inverse=True)
    only = ~carries & (first >= 0)
    metric_only = np.zeros((groups.size, n_outputs), dtype=np.int64)
    if n_outputs:
        np.add.at(metric_only, (gidx_item[only], first[only]), 1)
    return Ratings(
        groups=tuple(str(g) for g in groups), raters=tuple(str(x) for x in raters),
        item_keys=pd.DataFrame({"group": groups[gidx_item[item_ids]],
                                "item": item_label[item_ids]}),
        item_group=gidx_item[item_ids].astype(np.int64),
        item_metric=first[item_ids].astype(np.int64),
        rating_item=new_id[codes_all[rated_k]].astype(np.int64),
        rating_rater=r_idx.astype(np.int64), rating_label=lab_k[rated_k].astype(np.int64),
        metric_only=metric_only, account=account)
