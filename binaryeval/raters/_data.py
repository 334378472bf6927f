"""Long data (one row per rating) to the arrays of the rater-noise model.

An item is one output: the value of the ``item`` column within its group (system), so the same
segment id under two systems is two items.  Its metric output is the same on every row of the
item (a contradiction is refused); its human ratings are the rows with a rater and a rating.  Each
rating is an independent reading of the item's class: a rater may read an item again (rows told
apart by another column, e.g. a session or the length of the text shown), but two rows of one
rater and item that agree in every other column are one reading, entered twice (the same rating:
a row read in twice) or contradicting itself (two ratings), and are refused.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data import RowAccount, _show, as_binary
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
    repeated: int = 0              # (rater, item) pairs read more than once (told apart)


def _labels(values: pd.Series, column: str, rated: np.ndarray) -> np.ndarray:
    """The item column as text; a missing value is refused by name.

    ``rated``: which rows carry a human rating (the others carry the metric's output only).
    """
    missing = values.isna().to_numpy()
    if missing.any():
        at = int(np.flatnonzero(missing)[0])
        row = _show(values.index[at])
        what = ("every rating needs its" if rated[at] else
                "a row with the metric's output alone is an item too and needs its")
        raise DataError(f"column {column!r} is missing on row {row}; {what} {column}: fill it "
                        "in or drop the row")
    return values.astype(str).to_numpy()


def code(human: pd.Series, human_name: str, metric: np.ndarray | None, group: pd.Series | None,
         rater: pd.Series, rater_name: str, item: pd.Series, item_name: str,
         n_outputs: int, coded: bool = False, reading: np.ndarray | None = None) -> Ratings:
    """Code the rows: ``metric`` holds each row's metric output code (-1 missing) or is None.

    ``coded``: ``human`` already holds class codes 0..K-1 (NaN: no rating), e.g. the levels of a
    binned rating; otherwise it is a binary rating, checked as everywhere in the package.
    ``reading``: a hash per row of the data's columns other than the rating (rows of one rater
    and item with the same hash are one reading); None: every column is the same.
    """
    account = RowAccount(len(human))
    label = (human.to_numpy(dtype=float) if coded
             else as_binary(human, human_name, "human rating").to_numpy())
    rated = ~np.isnan(label)
    if group is not None:
        keep = group.notna().to_numpy().copy()
        account.exclude("missing group", rows=~keep)
        gtext = group.astype(str).to_numpy()
    else:
        keep = np.ones(len(human), dtype=bool)
        gtext = np.full(len(human), _SINGLE)
    met = metric if metric is not None else np.full(len(human), -1)
    unrated = keep & ~rated & (met < 0)
    account.exclude("no rating (human and metric missing)", rows=unrated)
    keep &= ~unrated
    if not keep.any():
        raise DataError("no row has a group and a rating; check the columns in the formula")
    itext = _labels(item[keep], item_name, rated[keep])
    has_rater = rater[keep].notna().to_numpy()
    gcode, glabels = pd.factorize(gtext[keep], sort=True)
    icode, ilabels = pd.factorize(itext, sort=True)
    codes_all, uniq = pd.factorize(gcode.astype(np.int64) * len(ilabels) + icode, sort=True)
    nameless = rated[keep] & ~has_rater
    if nameless.any():
        row = _show(item[keep].index[nameless][0])
        shared = int(np.sum(np.bincount(codes_all[nameless]) > 1))
        raise DataError(
            f"row {row} has a rating but no {rater_name!r} ({int(nameless.sum())} such row(s)): "
            "the rater-noise model reads every rating as some rater's; fill in the rater. One "
            "name for unknown raters pools them into one rater, who reads each item once"
            + (f": {shared} item(s) carry two or more ratings without a rater, which one name "
               "would make one rater's repeated readings (refused): give those ratings names of "
               "their own (e.g. numbered by their order within the item) or drop them"
               if shared else ""))
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
        _refuse_two_outputs(bad, has & (codes_all == codes_all[bad]), met_k,
                            item[keep].index, str(item_label[codes_all[bad]]),
                            str(groups[gidx_item[codes_all[bad]]]) if group is not None else None,
                            item_name)
    rated_k = ~np.isnan(lab_k)
    carries = np.zeros(n_items, dtype=bool)
    carries[codes_all[rated_k]] = True
    item_ids = np.flatnonzero(carries)
    new_id = np.full(n_items, -1)
    new_id[item_ids] = np.arange(item_ids.size)
    rtext = rater[keep].astype(str).to_numpy()[rated_k]
    raters, r_idx = np.unique(rtext, return_inverse=True)
    same = np.zeros(len(human), dtype=np.uint64) if reading is None else np.asarray(reading)
    _refuse_repeats(codes_all[rated_k], r_idx, lab_k[rated_k], same[keep][rated_k],
                    item.index[keep][rated_k], np.flatnonzero(keep)[rated_k], raters,
                    item_label, groups[gidx_item], group is not None, rater_name)
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
        metric_only=metric_only, account=account,
        repeated=int(np.sum(np.bincount(codes_all[rated_k].astype(np.int64) * raters.size
                                        + r_idx) > 1)))


def _refuse_two_outputs(bad: int, rows_of_item: np.ndarray,
                        metric: np.ndarray, index: pd.Index, label: str, group: str | None,
                        item_name: str) -> None:
    """Refuse an item whose rows give the metric's output two ways, naming two such rows.

    Without a grouping the likeliest cause is an item column that repeats across systems (the
    same segment id under every system): the error says so and names the fix.
    """
    at = np.flatnonzero(rows_of_item)
    other = at[metric[at] != metric[bad]][0] if np.any(metric[at] != metric[bad]) else at[0]
    one, two = sorted((int(bad), int(other)))
    where = f"item {label!r}" + (f" of {group!r}" if group is not None else "")
    hint = (f"; without a grouping after '|' an item is the value of {item_name!r} alone, so "
            f"if {item_name!r} repeats across systems (the same segment under each), group by "
            "the system (e.g. 'rating ~ metric | system') or give item= a column naming each "
            "output" if group is None else "")
    raise DataError(f"{where} has different metric outputs on its rows (rows "
                    f"{_show(index[one])} and {_show(index[two])}, for one); the metric rates the "
                    "item once: give the same value on every row of the item (or leave it "
                    f"missing){hint}")


def _refuse_repeats(r_item: np.ndarray, r_rater: np.ndarray, r_label: np.ndarray,
                    reading: np.ndarray, rows: pd.Index, positions: np.ndarray,
                    raters: np.ndarray, item_label: np.ndarray, item_group: np.ndarray,
                    grouped: bool, rater_name: str) -> None:
    """Refuse one reading of an item by a rater entered more than once.

    Rows of one rater and item (the item within its group) that agree in every other column
    (``reading``) are one reading: with the same rating it would count twice, with two ratings
    the rater contradicts themselves, which no confusion matrix describes.  One error names the
    first repeated (rater, item), the rows concerned and how many repeats of each kind there are.
    """
    pair = r_item.astype(np.int64) * max(len(raters), 1) + r_rater
    if np.unique(pair).size == pair.size:
        return
    frame = pd.DataFrame({"pair": pair, "reading": reading, "label": r_label})
    again = frame.duplicated(["pair", "reading"]).to_numpy()
    if not again.any():
        return
    twice = frame.duplicated(["pair", "reading"], keep=False).to_numpy()
    by_reading = frame[twice].groupby(["pair", "reading"], sort=False)["label"].nunique() > 1
    n_extra = int(again.sum())
    n_pairs, n_differ = int(by_reading.size), int(by_reading.sum())
    at0 = int(np.flatnonzero(again)[0])
    at = np.flatnonzero((pair == pair[at0]) & (reading == reading[at0]))
    i, r = int(r_item[at[0]]), int(r_rater[at[0]])
    where = f"item {str(item_label[i])!r}" + (f" of {str(item_group[i])!r}" if grouped else "")
    labels = rows[at].tolist()
    if len(set(map(repr, labels))) == len(labels):
        shown = "rows " + ", ".join(repr(x) for x in labels[:3])
    else:   # the index repeats (data concatenated twice): name the positions
        shown = "rows at positions " + ", ".join(str(x) for x in positions[at[:3]])
    shown += ", ..." if at.size > 3 else ""
    kind = ("different ratings" if np.unique(r_label[at]).size > 1 else "the same rating")
    fixes = []
    if n_pairs > n_differ:
        fixes.append("drop the exact repeats with data.drop_duplicates()")
    if n_differ:
        fixes.append(f"for each of the {n_differ} (rater, item) pair(s) with different ratings, "
                     "decide which rating to keep (or drop them all)")
    raise DataError(
        f"rater {str(raters[r])!r} rates {where} {at.size} times, with {kind}, on rows that "
        f"agree in every other column ({shown}); in all {n_extra} row(s) repeat a rating "
        f"already given ({n_pairs} (rater, item) pair(s): {n_pairs - n_differ} with the same "
        f"rating, {n_differ} with different ratings). The rater-noise model reads each rating "
        f"of an item (the item within its group) by a {rater_name!r} as an independent reading "
        "of its class: one reading entered twice would count twice. Fix the data: "
        f"{'; '.join(fixes)} (a rater's separate readings of one item are taken when a column "
        "tells them apart, e.g. a session or the length of the text shown)")
