"""Small real evaluation datasets shipped with binaryeval.

Every dataset is a tidy :class:`pandas.DataFrame` built by ``data-raw/build_datasets.py`` from
public research data and stored as gzip-compressed CSV in ``binaryeval/datasets/data/``.  Only
numbers are shipped (ids, system names, human and metric scores, counts): no source texts,
references or system outputs.  Sources without a licence file contribute only aggregated figures
(system-level scores, counts per system) and, for Spot-The-Bot, the 0/1 verdicts per entity
rating under renumbered annotators (what a model of rater errors needs).  Attribution, licence and citation of each source are in
the loader's docstring and in ``binaryeval/datasets/LICENSES.md``.

Beside them, :func:`simulate_battles` and :func:`simulate_ratings` draw data whose truth is
known (a judge with a position lean; raters of known accuracy), for examples and checks.

Examples
--------
>>> from binaryeval import datasets
>>> datasets.describe()[["name", "rows"]].head(2)
         name   rows
0  wmt21_ende  17034
1  wmt21_enru  16032
>>> df = datasets.load_wmt21_ende()
>>> int((df["mqm"] == 0).sum())
5261
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputTypeError, ParameterError
from .simulated import simulate_battles, simulate_ratings

__all__ = [
    "names",
    "describe",
    "data_path",
    "load",
    "load_wmt21_ende",
    "load_wmt21_enru",
    "load_summeval",
    "load_wmt15",
    "load_wmt20",
    "load_stb_convai2",
    "load_stb_convai2_ratings",
    "simulate_battles",
    "simulate_ratings",
]


@dataclass(frozen=True)
class _Info:
    title: str
    unit: str
    source: str
    licence: str
    citation: str


_INFO: dict[str, _Info] = {
    "wmt21_ende": _Info(
        "WMT21 newstest2021 en-de: expert MQM with sentence chrF/BLEU/TER",
        "segment x system",
        "google/wmt-mqm-human-evaluation (MQM); chrF/BLEU/TER computed with sacrebleu 2.6.0 "
        "from the wmt-conference/wmt21-news-systems texts",
        "Apache-2.0 (MQM); metric scores computed by binaryeval",
        "Freitag et al. (2021), Experts, Errors, and Context, TACL 9; Akhbardeh et al. (2021), WMT21",
    ),
    "wmt21_enru": _Info(
        "WMT21 newstest2021 en-ru: MQM, crowd DA, BLEURT-20, COMET, chrF2, BLEU, TER",
        "segment x system",
        "NataliaKhaidanova/MT-evaluation-metrics (WMT21 metrics-task MQM/DA; metric scores by the author)",
        "MIT (c) 2023 Natalia Khaidanova",
        "Freitag et al. (2021), Results of the WMT21 Metrics Shared Task; Khaidanova (2023)",
    ),
    "summeval": _Info(
        "SummEval (CNN/DailyMail): expert and crowd Likert ratings with automatic metrics",
        "document x system",
        "CogComp/stat-analysis-experiments (SummEval annotations from Yale-LILY/SummEval)",
        "Apache-2.0 (metric scores); MIT (SummEval annotations)",
        "Fabbri et al. (2021), SummEval, TACL 9; Deutsch, Dror & Roth (2021), TACL 9",
    ),
    "wmt15": _Info(
        "WMT15 metrics task, system level: DA human score and metric scores",
        "system x language pair",
        "ygraham/MT-metric-confidence-intervals (WMT15 newstest2015)",
        "no licence file: system-level aggregates only",
        "Stanojevic et al. (2015), WMT15 Metrics Shared Task; Graham & Liu (2016), NAACL",
    ),
    "wmt20": _Info(
        "WMT20 metrics task, system level: DA human score and metric scores",
        "system x language pair x test set",
        "WMT-Metrics-task/wmt20-metrics",
        "no licence file: system-level aggregates only",
        "Mathur et al. (2020), Results of the WMT20 Metrics Shared Task",
    ),
    "stb_convai2": _Info(
        "Spot-The-Bot ConvAI2: counts of 'judged human' per system and segment length",
        "system x segment length x annotator subset",
        "jderiu/spot-the-bot-code (MongoDump.zip)",
        "no licence file: counts per system only",
        "Deriu et al. (2020), Spot The Bot, EMNLP",
    ),
    "stb_convai2_ratings": _Info(
        "Spot-The-Bot ConvAI2: each annotator's verdict on each entity (judged human or not)",
        "entity rating (conversation x entity x annotator)",
        "jderiu/spot-the-bot-code (MongoDump.zip)",
        "no licence file: verdicts as numbers only, conversations and annotators renumbered",
        "Deriu et al. (2020), Spot The Bot, EMNLP",
    ),
}

_LOADERS = {
    "wmt21_ende": "load_wmt21_ende",
    "wmt21_enru": "load_wmt21_enru",
    "summeval": "load_summeval",
    "wmt15": "load_wmt15",
    "wmt20": "load_wmt20",
    "stb_convai2": "load_stb_convai2",
    "stb_convai2_ratings": "load_stb_convai2_ratings",
}


def _check_name(name: str) -> str:
    if name not in _INFO:
        raise ParameterError(
            f"name={name!r} is not a shipped dataset; use one of {', '.join(_INFO)}")
    return name


def names() -> list[str]:
    """Names of the shipped datasets, in the order of :func:`describe`.

    Examples
    --------
    >>> from binaryeval.datasets import names
    >>> names()[:2]
    ['wmt21_ende', 'wmt21_enru']
    """
    return list(_INFO)


def data_path(name: str) -> Path:
    """Path of the compressed CSV file behind dataset ``name``.

    Parameters
    ----------
    name : str
        One of the names listed by :func:`describe`.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> from binaryeval.datasets import data_path
    >>> data_path("wmt15").name
    'wmt15.csv.gz'
    """
    _check_name(name)
    return Path(str(resources.files(__name__).joinpath("data", f"{name}.csv.gz")))


def _read(name: str, **kw) -> pd.DataFrame:
    df = pd.read_csv(data_path(name), **kw)
    info = _INFO[name]
    df.attrs.update({"dataset": name, "source": info.source, "licence": info.licence,
                     "citation": info.citation})
    return df


def _flag(value, name: str) -> bool:
    """True or False: a string such as ``"False"`` would be true."""
    if not isinstance(value, (bool, np.bool_)):
        raise InputTypeError(f"{name}={value!r}: pass True or False")
    return bool(value)


def _check_choice(arg: str, value, allowed) -> None:
    allowed = sorted(allowed)
    if value is not None and value not in allowed:
        raise ParameterError(f"{arg}={value!r} is not in the data; use one of {allowed} or None")


#: loader arguments that keep every row of the shipped file (where a loader selects by default)
_EVERY_ROW: dict[str, dict] = {"wmt20": {"testset": None}}


def load(name: str, every_row: bool = False) -> pd.DataFrame:
    """Load a shipped dataset by name (the loader's defaults apply).

    Parameters
    ----------
    name : str
        One of the names listed by :func:`describe`.
    every_row : bool, default False
        Every row of the shipped file, the ``rows`` :func:`describe` lists, where the loader
        selects some by default (``wmt20``: newstest2020 only); the command line reads a
        dataset so, and a ``--query`` selects from all of it.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> from binaryeval.datasets import load
    >>> load("stb_convai2").shape
    (42, 8)
    >>> len(load("wmt20")), len(load("wmt20", every_row=True))
    (237, 400)
    """
    name = _check_name(name)
    every_row = _flag(every_row, "every_row")
    return globals()[_LOADERS[name]](**(_EVERY_ROW.get(name, {}) if every_row else {}))


def describe() -> pd.DataFrame:
    """List the shipped datasets.

    Returns
    -------
    pandas.DataFrame
        One row per dataset: ``name``, ``loader``, ``title``, ``unit`` (what a row is), ``rows``,
        ``columns``, ``source``, ``licence``, ``citation`` and ``bytes`` (size of the compressed file).

    Examples
    --------
    >>> from binaryeval.datasets import describe
    >>> describe()["name"].tolist()
    ['wmt21_ende', 'wmt21_enru', 'summeval', 'wmt15', 'wmt20', 'stb_convai2', 'stb_convai2_ratings']
    """
    rows = []
    for name, info in _INFO.items():
        df = pd.read_csv(data_path(name))
        rows.append({"name": name, "loader": _LOADERS[name], "title": info.title, "unit": info.unit,
                     "rows": len(df), "columns": df.shape[1], "source": info.source,
                     "licence": info.licence, "citation": info.citation,
                     "bytes": data_path(name).stat().st_size})
    return pd.DataFrame(rows)


def load_wmt21_ende(annotated_only: bool = False) -> pd.DataFrame:
    """WMT21 newstest2021 English-German: expert MQM and sentence chrF, BLEU and TER.

    17 systems x 1002 segments.  527 segments (17 whole documents, the same for every system)
    were annotated with MQM by professional translators; the others have ``mqm`` missing.
    The systems are the 8 MQM-rated MT systems (Facebook-AI, HuaweiTSC, Nemo, Online-W, UEdin,
    VolcTrans-AT, VolcTrans-GLAT, eTranslation), the metrics-task systems metricsystem1-5 and
    the human translations ref-A, ref-B, ref-C, ref-D.

    Parameters
    ----------
    annotated_only : bool, default False
        Keep only the rows with an MQM score (17 x 527 = 8,959 rows).

    Returns
    -------
    pandas.DataFrame
        Columns:

        - ``system`` (str): system name as in the MQM release.
        - ``seg_id`` (int): 1-based line number in newstest2021 en-de.
        - ``mqm`` (float): minus the MQM penalty averaged over raters; 0 = no error, -25 = worst;
          NaN = not annotated.  "Adequate" in the binary sense is ``mqm == 0``.
        - ``chrf``, ``bleu``, ``ter`` (float): sentence chrF, BLEU and TER (0-100) of the output
          against reference C, computed with sacrebleu 2.6.0 (signatures
          ``nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no``,
          ``nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp``,
          ``nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no``).  Given for the 8 MT
          systems, ref-A and ref-D; NaN for metricsystem1-5 (no text released), ref-B (text
          not released) and ref-C (the reference itself).

    Notes
    -----
    Source: google/wmt-mqm-human-evaluation, ``newstest2021/ende/mqm_newstest2021_ende.avg_seg_scores.tsv``
    (commit 7fadea2), Apache-2.0.  The metric scores were computed by ``data-raw/build_datasets.py``
    from the texts of wmt-conference/wmt21-news-systems (commit f41750d); no text is shipped.

    Cite: Markus Freitag, George Foster, David Grangier, Viresh Ratnakar, Qijun Tan and Wolfgang
    Macherey (2021). Experts, Errors, and Context: A Large-Scale Study of Human Evaluation for
    Machine Translation. TACL 9:1460-1474.  Farhad Akhbardeh et al. (2021). Findings of the 2021
    Conference on Machine Translation (WMT21).

    Examples
    --------
    >>> from binaryeval.datasets import load_wmt21_ende
    >>> df = load_wmt21_ende(annotated_only=True)
    >>> int((df.loc[df["system"] == "Facebook-AI", "mqm"] == 0).sum())
    353
    """
    df = _read("wmt21_ende")
    if _flag(annotated_only, "annotated_only"):
        df = df[df["mqm"].notna()].reset_index(drop=True)
    return df


def load_wmt21_enru(annotated_only: bool = False) -> pd.DataFrame:
    """WMT21 newstest2021 English-Russian: MQM, crowd DA and metric scores per segment.

    16 systems x 1002 segments: 9 MT systems (Facebook-AI, Manifold, Nemo, NiuTrans, Online-A,
    Online-B, Online-G, Online-W, Online-Y), metricsystem1-5 and the human translations refA, refB.
    527 segments per system have an MQM score.

    Parameters
    ----------
    annotated_only : bool, default False
        Keep only the rows with an MQM score (16 x 527 = 8,432 rows).

    Returns
    -------
    pandas.DataFrame
        Columns:

        - ``system`` (str), ``seg_id`` (int, 1-based line number in newstest2021 en-ru).
        - ``mqm`` (float): MQM on a 0-100 scale, 100 = no error; NaN = not annotated.
          "Adequate" in the binary sense is ``mqm == 100``.
        - ``da_raw``, ``da_z`` (float): WMT21 crowd direct assessment (raw 0-100 and z-scored),
          given for 11 systems; NaN elsewhere.
        - ``bleurt20``, ``bleurt20_refb`` (float): BLEURT-20 against reference A / B.
        - ``comet_mqm``, ``comet_mqm_refb`` (float): COMET-MQM_2021 against reference A / B.
        - ``comet_qe`` (float): COMET-QE-MQM_2021 (reference-free).
        - ``chrf2``, ``bleu``, ``ter`` (float): sentence chrF2, BLEU and TER on a 0-1 scale.

        The metric columns are given for the 14 MT and metric systems and are NaN for refA, refB.

    Warnings
    --------
    ``chrf2``, ``bleu`` and ``ter`` are duplicated in the source: its ``traditional_metrics`` files
    for NiuTrans and Manifold are byte-identical, and so are those for Online-W, Online-Y and
    metricsystem3, so these systems have the same surface-metric score on every segment although
    their MQM and learned-metric scores differ.  At most one system of each group can carry its own
    scores and the source does not say which; drop all five (or these three columns) for analyses
    that use the surface metrics.  The MQM, DA, BLEURT-20 and COMET columns have no such duplicates.

    Notes
    -----
    Source: NataliaKhaidanova/MT-evaluation-metrics (commit d024a69), MIT licence,
    (c) 2023 Natalia Khaidanova.  MQM and DA are the WMT21 metrics-task release; the metric scores
    were computed by the repository's author (BLEURT-20, COMET-MQM_2021 and COMET-QE-MQM_2021
    checkpoints), not the official metrics-task submissions.  Values are as published (2-3 decimals).

    Cite: Markus Freitag et al. (2021). Results of the WMT21 Metrics Shared Task. WMT 2021.
    Natalia Khaidanova (2023). MT-evaluation-metrics, https://github.com/NataliaKhaidanova/MT-evaluation-metrics.

    Examples
    --------
    >>> from binaryeval.datasets import load_wmt21_enru
    >>> df = load_wmt21_enru(annotated_only=True)
    >>> int((df.loc[df["system"] == "refA", "mqm"] == 100).sum())
    506
    """
    df = _read("wmt21_enru")
    if _flag(annotated_only, "annotated_only"):
        df = df[df["mqm"].notna()].reset_index(drop=True)
    return df


def load_summeval() -> pd.DataFrame:
    """SummEval: expert and crowd ratings and automatic metric scores per (document, system).

    100 CNN/DailyMail test documents x 16 summarisation systems (M0, M1, M2, M5, M8-M15, M17,
    M20, M22, M23) = 1,600 rows.

    Returns
    -------
    pandas.DataFrame
        Columns:

        - ``doc_id`` (str), ``system`` (str).
        - ``expert_<dim>`` (float): mean of the 3 expert Likert ratings (1-5) for
          ``<dim>`` in coherence, consistency, fluency, relevance.
        - ``turker_<dim>`` (float): mean of the 5 crowd (Mechanical Turk) ratings.
        - ``expert_<dim>_1`` .. ``expert_<dim>_3`` (int): the individual expert ratings.
        - metric scores against the single original reference, computed with sacrerouge:
          ``rouge_{1,2,3,4,l,su4}_{recall,precision,f1}``, ``bertscore_{precision,recall,f1}``,
          ``s3_pyr``, ``s3_resp``, ``meteor``, ``moverscore``, ``qa_eval_{em,f1,lerc}``,
          ``bewte_{precision,recall,f1}``, ``autosummeng``, ``memog``, ``npower``.

    Notes
    -----
    Source: CogComp/stat-analysis-experiments (commit 7b05bd8), ``experiments/statistical-analysis/data/fabbri2020/*.jsonl``, Apache-2.0;
    the SummEval annotations are MIT-licensed (Yale-LILY/SummEval).  No text is shipped.

    Cite: Alexander R. Fabbri, Wojciech Kryscinski, Bryan McCann, Caiming Xiong, Richard Socher and
    Dragomir Radev (2021). SummEval: Re-evaluating Summarization Evaluation. TACL 9:391-409.
    Daniel Deutsch, Rotem Dror and Dan Roth (2021). A Statistical Analysis of Summarization
    Evaluation Metrics Using Resampling Methods. TACL 9:1132-1146.

    Examples
    --------
    >>> from binaryeval.datasets import load_summeval
    >>> df = load_summeval()
    >>> df.shape[0], df["system"].nunique()
    (1600, 16)
    """
    return _read("summeval")


def load_wmt15(lp: str | None = None) -> pd.DataFrame:
    """WMT15 metrics task, system level: human (DA) score and metric scores per system.

    10 language pairs of newstest2015 (cs-en, de-en, fi-en, fr-en, ru-en with 23 metrics;
    en-cs, en-de, en-fi, en-fr, en-ru with 15), 121 systems in all.

    Parameters
    ----------
    lp : str, optional
        Keep one language pair, e.g. ``"de-en"``.

    Returns
    -------
    pandas.DataFrame
        Wide form, one row per (``lp``, ``system``): ``lp`` (str), ``system`` (str), ``human``
        (float, the human score used by Graham & Liu) and one float column per metric with
        formula-friendly names (``chrF3`` -> ``chrf3``, ``LeBLEU-default`` -> ``lebleu_default``,
        ``VERTa-70Adeq30Flu`` -> ``verta_70adeq30flu``).  A metric not submitted for a language
        pair is NaN there.  After filtering one pair it fits ``correlate("human ~ bleu + chrf3", df)``.

        Direction: the values are as in the source files, where the error-rate baselines
        ``ter``, ``wer``, ``per`` and ``cder`` are already turned round so that higher is better
        (their correlation with ``human`` is positive; the values lie between 0 and 1).  ``bs`` is
        the one column where lower is better: pass ``lower_is_better=["bs"]`` to
        :func:`binaryeval.correlate`.

    Notes
    -----
    Source: ygraham/MT-metric-confidence-intervals (commit 84f1d68), ``wmt15-data/hum-sys.*.scores.csv``.
    The repository has no licence file; only these system-level figures (as published in the
    WMT15 metrics-task results) are shipped.

    Cite: Milos Stanojevic, Amir Kamran, Philipp Koehn and Ondrej Bojar (2015). Results of the
    WMT15 Metrics Shared Task. WMT 2015.  Yvette Graham and Qun Liu (2016). Achieving Accurate
    Conclusions in Evaluation of Automatic Machine Translation Metrics. NAACL 2016.

    Examples
    --------
    >>> from binaryeval.datasets import load_wmt15
    >>> load_wmt15("de-en").shape
    (13, 26)
    """
    df = _read("wmt15")
    if lp is not None:
        _check_choice("lp", lp, df["lp"].unique())
        df = df[df["lp"] == lp].reset_index(drop=True)
    return df


def load_wmt20(lp: str | None = None, testset: str | None = "newstest2020") -> pd.DataFrame:
    """WMT20 metrics task, system level: human (DA) scores and metric scores per system.

    18 language pairs on newstest2020, plus the alternative-reference variants newstestB2020 (a
    second reference), newstestM2020 (multiple references) and newstestP2020 (paraphrased
    reference) for some pairs; 400 rows in all.

    Parameters
    ----------
    lp : str, optional
        Keep one language pair, e.g. ``"en-de"``.
    testset : str or None, default "newstest2020"
        Keep one test set (``"newstest2020"``, ``"newstestB2020"``, ``"newstestM2020"``,
        ``"newstestP2020"``); None keeps all.

    Returns
    -------
    pandas.DataFrame
        Wide form, one row per (``lp``, ``testset``, ``system``):

        - ``lp`` (str), ``testset`` (str), ``system`` (str, WMT20 submission name).
        - ``human`` (float): DA z-score; ``human_raw`` (float): raw DA score.
        - ``is_human`` (bool): the row is a human translation (``Human-*``), which has NaN
          for reference-based metrics and is left out of the official correlations.
        - ``outlier`` (bool): the system is in the task's outlier list for that pair.
        - one float column per metric, formula-friendly names (``chrF++`` -> ``chrf_pp``,
          ``COMET-2R`` -> ``comet_2r``, ``YiSi-1`` -> ``yisi_1``, ``sentBLEU`` -> ``sentbleu``).
          Values are as in the source files, where ``ter`` is stored negated (``-TER``), so
          higher is better for it as for the other metrics.

    Notes
    -----
    Source: WMT-Metrics-task/wmt20-metrics (commit 3e434fc), ``results/output/system-level/DA-*-sys-scores.csv``
    and ``manual-evaluation/outlier-systems-dict.pk``.  The repository has no licence file; only
    these system-level figures (as published in the WMT20 metrics-task results) are shipped.

    Cite: Nitika Mathur, Johnny Wei, Markus Freitag, Qingsong Ma and Ondrej Bojar (2020). Results
    of the WMT20 Metrics Shared Task. WMT 2020.

    Examples
    --------
    >>> from binaryeval.datasets import load_wmt20
    >>> df = load_wmt20("en-de")
    >>> df = df[~df["is_human"]]
    >>> len(df)
    14
    """
    df = _read("wmt20")
    if testset is not None:
        _check_choice("testset", testset, df["testset"].unique())
        df = df[df["testset"] == testset]
    if lp is not None:
        _check_choice("lp", lp, df["lp"].unique())
        df = df[df["lp"] == lp]
    return df.reset_index(drop=True)


def load_stb_convai2(annotators: str | None = None) -> pd.DataFrame:
    """Spot-The-Bot on ConvAI2: how often each system's turns were judged human, as counts.

    In Spot-The-Bot, annotators read a segment of a conversation between two entities (bots or
    humans) and decide for each entity whether it is a human.  ConvAI2 has 975 conversations
    (300 human-human, 675 bot-bot), of which 846 were annotated (171 human-human, every bot-bot
    one): 5,123 annotations by 47 annotators; each annotation rates both entities, so it counts
    once for each of the two systems.

    Parameters
    ----------
    annotators : {"all", "kept"} or None, default None
        Keep only the counts over all annotators or over the annotators kept by the black-list
        rule; None returns both.

    Returns
    -------
    pandas.DataFrame
        One row per (``annotators``, ``system``, ``segment_length``):

        - ``system`` (str): ``bert_rank``, ``huggingface``, ``kvmemnn``, ``lost_in_conversation``,
          ``model`` (Blender 90M), ``suckybot`` (Seq2Seq GRU) or ``human``.
        - ``segment_length`` (int): number of turns shown, 4, 6 or 10 (the annotation's
          ``decision_turn``).
        - ``annotators`` (str): ``"all"`` or ``"kept"``.
        - ``n`` (int): number of entity ratings.
        - ``judged_human`` (int): how many of them judged the entity human.
        - ``fluent``, ``specific``, ``sensible`` (int): how many marked the entity fluent,
          specific, sensible.

    Notes
    -----
    Black-list rule (as in the Spot-The-Bot code, ``scoring_utils.create_black_list``),
    implemented in ``data-raw/build_datasets.py``: for each annotator take one annotation per
    conversation and compute the correctness (mean over the two entities of "predicted human
    status is right") and the turn penalty (mean over the two entities of
    ``(decision_turn - 2) / (turns - 2)``).  The annotator is dropped when (mean turn penalty
    <= 0.25 and mean correctness <= 0.75) or mean correctness <= 0.6, or when they annotated
    fewer than 10 conversations.  On ConvAI2 this drops 25 of 47 annotators and keeps 2,909
    annotations.

    Source: jderiu/spot-the-bot-code (commit 6b6ffa1), ``data_dump/MongoDump.zip``.  The
    repository has no licence file; only these counts per system are shipped.

    Cite: Jan Deriu, Don Tuggener, Pius von Daniken, Jon Ander Campos, Alvaro Rodrigo, Thiziri
    Belkacem, Aitor Soroa, Eneko Agirre and Mark Cieliebak (2020). Spot The Bot: A Robust and
    Efficient Framework for the Evaluation of Conversational Dialogue Systems. EMNLP 2020.

    Examples
    --------
    >>> from binaryeval.datasets import load_stb_convai2
    >>> df = load_stb_convai2("kept")
    >>> int(df.loc[df["system"] == "bert_rank", "n"].sum())
    766
    """
    df = _read("stb_convai2")
    if annotators is not None:
        _check_choice("annotators", annotators, ["all", "kept"])
        df = df[df["annotators"] == annotators].reset_index(drop=True)
    return df


def load_stb_convai2_ratings(annotators: str | None = None) -> pd.DataFrame:
    """Spot-The-Bot on ConvAI2, one row per entity rating: which annotator judged what.

    The rows behind :func:`load_stb_convai2`'s counts, with who gave each verdict, for models of
    the annotators' errors (:func:`binaryeval.fit` with ``rater=`` and ``item=``).  Each
    conversation's two entities are rated by about six annotations (most segment lengths by two
    annotators).

    Parameters
    ----------
    annotators : {"all", "kept"} or None, default None
        ``"kept"``: only the annotators the black-list rule keeps (see
        :func:`load_stb_convai2`); None or ``"all"``: every annotator.

    Returns
    -------
    pandas.DataFrame
        One row per (annotation, entity):

        - ``system`` (str): as in :func:`load_stb_convai2` (``human`` for a person).
        - ``conversation`` (int): the conversation, numbered in the sample's order.
        - ``entity`` (int): 0 or 1, the entity of the conversation.
        - ``segment_length`` (int): turns shown, 4, 6 or 10.
        - ``annotator`` (str): a pseudonym, ``a01`` to ``a47`` in order of first annotation.
        - ``judged_human`` (int): 1 when the annotator judged the entity human.
        - ``is_human`` (int): 1 when the entity is a person (the truth for that question).
        - ``kept`` (int): 1 when the black-list rule keeps the annotator.

    Notes
    -----
    Source: jderiu/spot-the-bot-code (commit 6b6ffa1), ``data_dump/MongoDump.zip``, built by
    ``data-raw/build_datasets.py``.  The repository has no licence file; only these numbers are
    shipped (no text, no user name).  Cite Deriu et al. (2020), EMNLP (see
    :func:`load_stb_convai2`).

    Examples
    --------
    >>> from binaryeval.datasets import load_stb_convai2_ratings
    >>> df = load_stb_convai2_ratings()
    >>> len(df), df["annotator"].nunique()
    (10246, 47)
    """
    df = _read("stb_convai2_ratings")
    if annotators is not None:
        _check_choice("annotators", annotators, ["all", "kept"])
        if annotators == "kept":
            df = df[df["kept"] == 1].reset_index(drop=True)
    return df
