"""Copy the reference values the tests use from ../shared into tests/reference.

Run from the repository root with the shared folder beside it (or ``BINARYEVAL_SHARED`` set):

    python data-raw/extract_references.py

Numbers are copied as text, cell by cell, so nothing is re-rounded: CSV files keep the rows and
columns the tests read; JSON files (written by Python's ``json`` with ``indent=1`` upstream) keep
the entries and keys the tests read.  Two files are extracts of ../shared/data (small derived
numbers, no raw data): the WMT20 correlations the task reported and the WMT19 de-en system-level
scores.  Three are computed here from the raw data, numbers only: sentence scores recomputed
with sacrebleu, the Spot-The-Bot annotator black list's counts, and the SHA-256 of every dataset
rebuilt from the raw data by ``build_datasets.py``.  ``tests/reference/README.md`` gives the
provenance of every file.  The tests never run this script and never read ../shared; it documents
how each file was made and lets it be remade.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HERE = REPO / "tests" / "reference"      # where the extracts go
SHARED = Path(os.environ.get("BINARYEVAL_SHARED", REPO.parent / "shared"))
REF = SHARED / "reference"
DATA = SHARED / "data"


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def read_rows(path: Path, delimiter: str = ",") -> tuple[list[str], list[list[str]]]:
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh, delimiter=delimiter))
    return rows[0], rows[1:]


def write_rows(name: str, header: list[str], rows: list[list[str]]) -> None:
    with open(HERE / name, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def copy_csv(name: str, columns: list[str] | None = None, keep=None, source: str | None = None) -> None:
    """Copy ``columns`` (all when None) of the rows for which ``keep(row_dict)`` is true."""
    header, rows = read_rows(REF / (source or name))
    columns = columns or header
    idx = [header.index(c) for c in columns]
    out = [[r[i] for i in idx] for r in rows if keep is None or keep(dict(zip(header, r, strict=True)))]
    write_rows(name, columns, out)


def read_json(name: str):
    text = (REF / name).read_text(encoding="utf-8")
    obj = json.loads(text)
    # written by json.dumps(..., indent=1): a subset dumped the same way keeps each number's text
    assert json.dumps(obj, indent=1) == text.rstrip("\n"), name
    return obj


def write_json(name: str, obj) -> None:
    (HERE / name).write_text(json.dumps(obj, indent=1) + "\n", encoding="utf-8")


def pick(d: dict, keys) -> dict:
    return {k: d[k] for k in keys if k in d}


# ---------------------------------------------------------------------------------------------
# ../shared/reference
# ---------------------------------------------------------------------------------------------
def dependent_correlations() -> None:
    copy_csv("dependent_correlations_R.csv",
             ["n", "r12", "r13", "r23", "psych_t", "psych_p_two", "williams_t", "williams_df",
              "williams_p_two", "williams_p_greater", "zou95_lo", "zou95_hi", "zou90_lo", "zou90_hi"])
    copy_csv("dependent_correlations_mtme.csv")
    copy_csv("dependent_correlations_edge_R.csv")


def wmt15_intervals() -> None:
    copy_csv("wmt15_single_r_ci_R.csv", ["lp", "metric", "n", "r", "cortest_ci_lo", "cortest_ci_hi"])
    copy_csv("wmt15_single_r_ci_scipy_vs_R.csv",
             ["lp", "metric", "n", "scipy_r", "scipy_ci_lo", "scipy_ci_hi", "R_ci_lo"])


def binary_model() -> None:
    post = read_json("bayes_authors_nuts_posterior.json")
    keys = ["name", "rho_pos", "rho_total", "eta_pos", "eta_total", "human_pos", "human_total",
            "metric_pos", "metric_total", "n_samples", "mean", "sd", "q025", "q05", "median", "q95",
            "q975", "value"]
    post["results"] = [pick(r, keys) for r in post["results"]]
    write_json("bayes_authors_nuts_posterior.json", post)

    syn = read_json("bayes_authors_nuts_synthetic.json")
    keys = ["name", "rho", "eta", "human", "metric", "mean", "sd", "q025", "q975", "eps95"]
    syn["results"] = [pick(r, keys) for r in syn["results"]]
    write_json("bayes_authors_nuts_synthetic.json", syn)

    eps = read_json("bayes_authors_nuts_epsilon.json")
    keys = ["n_human", "n_rho_eta", "n_metric", "rho", "eta", "alpha", "epsilon", "counts"]
    eps["results"] = [pick(r, keys) for r in eps["results"]]
    write_json("bayes_authors_nuts_epsilon.json", eps)

    quapy = read_json("bayes_quapy_bayesiancc.json")
    keys = ["name", "num_warmup", "num_samples", "labeled", "unlabeled", "mean", "sd", "q025", "q975"]
    quapy["results"] = [pick(r, keys) for r in quapy["results"] if r["num_samples"] >= 50000]
    write_json("bayes_quapy_bayesiancc.json", quapy)

    # the posterior cases E1-E5, S1, S2 (the estimate_epsilon rows are read from the json above);
    # the grid_OURS_* columns are this package's own grid, not a reference: the tests integrate
    # the model themselves (tests/binary_quadrature.py)
    copy_csv("bayes_comparison.csv",
             ["case", "authors_nuts_mean", "authors_nuts_sd", "authors_q025", "authors_q975"],
             keep=lambda r: not r["case"].startswith("eps_"))

    write_json("synthetic_binary_counts.json", read_json("synthetic_binary_counts.json"))
    # human_hidden (the truth behind the metric-only rows) is never used by a test
    copy_csv("synthetic_binary_dataset.csv", ["split", "human", "metric"])

    roc = read_json("roc_threshold_sklearn.json")
    write_json("roc_threshold_sklearn.json",
               pick(roc, ["sklearn", "n", "n_pos", "auc", "drop_intermediate=False",
                          "counts_at_threshold"]))
    copy_csv("roc_threshold_data.csv")


def peers() -> None:
    ref = read_json("ppi_quapy_synthetic.json")
    out = {
        "versions": ref["versions"],
        "ppi_py": pick(ref["ppi_py"], [
            "ppi_mean_pointestimate_lam_None(PPI++ tuned)",
            "ppi_mean_pointestimate_lam_1(vanilla PPI)",
            "ppi_mean_pointestimate_lam_0(classical)",
            "ppi_mean_ci_alpha0.05_lam_None",
            "ppi_mean_ci_alpha0.1_lam_None",
            "ppi_mean_ci_alpha0.05_lam_1",
            "ppi_mean_ci_alpha0.1_lam_1",
            "ppi_mean_ci_defaults(alpha=0.1)",
            "classical_mean_ci_alpha0.05(labeled only, z-interval, ddof=0)",
        ]),
        "quapy_acc": pick(ref["quapy_acc"], ["ACC_inversion_exact-raise_raw",
                                             "solve_adjustment_binary(q,tpr,fpr)"]),
        "quapy_acc_count_cases": [
            pick(c, ["TP", "FN", "TN", "FP", "metric_pos", "metric_total", "rho_hat", "eta_hat",
                     "solve_adjustment_binary_clip"])
            for c in ref["quapy_acc_count_cases"]],
    }
    write_json("ppi_quapy_synthetic.json", out)
    cases = {("0", "10"), ("1", "10"), ("5", "10"), ("9", "10")}
    copy_csv("proportion_ci_R.csv", ["x", "n", "R_clopper_lo", "R_clopper_hi", "R_wilson_lo", "R_wilson_hi"],
             keep=lambda r: (r["x"], r["n"]) in cases)


def favi_and_sign_tests() -> None:
    # favi_score_DERIVED.json is not copied: it applies the paper's definitions with code of its
    # own (a snapshot, not a reference); test_favi.py works the same cases out by hand
    copy_csv("sign_test_R.csv")
    copy_csv("sign_test.csv", ["n_pos", "n_ties", "n_neg", "sm_sign_test_p", "scipy_binomtest_p_two"])
    copy_csv("p_adjust_R.csv")


def paper_tables() -> None:
    (HERE / "paper_tables.md").write_bytes((REF / "paper_tables.md").read_bytes())


# ---------------------------------------------------------------------------------------------
# ../shared/data: small derived numbers only
# ---------------------------------------------------------------------------------------------
WMT20_LPS = ["csen", "deen", "encs", "ende", "eniu_full", "eniu_news", "enja", "enpl", "enru", "enta",
             "enzh", "iuen", "jaen", "kmen", "plen", "psen", "ruen", "taen", "zhen"]


def wmt20_reported_correlations() -> None:
    """The system-level correlations of the WMT20 metrics task, newstest2020, 19 language pairs."""
    folder = DATA / "wmt20_metrics_syslevel" / "system-level"
    out = []
    for lp in WMT20_LPS:
        for excluded, suffix, column in ((False, "-cor.csv", "Kendall"), (True, "-cor-excloutl.csv", "Pearson")):
            header, rows = read_rows(folder / f"DA-{lp}{suffix}", delimiter="\t")
            assert header[0] == "" and header[1] == column and header[2] == "N", header
            for r in rows:
                out.append([lp, str(excluded), r[0], r[2], r[1] if column == "Kendall" else "",
                            r[1] if column == "Pearson" else ""])
    write_rows("wmt20_reported_correlations.csv",
               ["lp", "outliers_excluded", "metric", "N", "Kendall", "Pearson"], out)


def wmt19_deen_system_level() -> None:
    """WMT19 newstest2019 de-en: DA z-score and every metric that scores all 16 systems."""
    root = DATA / "wmt19_metrics_syslevel"
    header, rows = read_rows(root / "DA-syslevel.csv", delimiter=" ")
    human = {r[2]: r[1] for r in rows if r[0] == "de-en"}
    scores: dict[str, dict[str, str]] = {}
    for folder in ("baselines", "submissions-corrected"):
        for path in sorted((root / folder).glob("*.sys.score.gz")):
            with gzip.open(path, "rt") as fh:
                for line in fh:
                    if not line.strip():
                        continue
                    metric, lp, testset, system, score = line.split()[:5]
                    if lp == "de-en" and testset == "newstest2019":
                        scores.setdefault(metric, {})[system] = score
    metrics = [m for m, s in scores.items() if all(system in s for system in human)]
    write_rows("wmt19_deen_system_level.csv", ["SYSTEM", "HUMAN", *metrics],
               [[system, h, *(scores[m][system] for m in metrics)] for system, h in human.items()])


def wmt21_ende_sacrebleu_sample() -> None:
    """Every fifth segment of the sentence-level sacrebleu scores computed upstream against ref-C."""
    header, rows = read_rows(DATA / "wmt21_ende_mqm" / "wmt21_ende_sentence_sacrebleu_refC.derived.tsv",
                             delimiter="\t")
    assert header == ["system", "seg_id", "sentBLEU", "chrF", "TER"], header
    write_rows("wmt21_ende_sacrebleu_refC_sample.csv", header,
               [r for r in rows if int(r[1]) % 5 == 1])


def wmt21_ende_sacrebleu_recomputed() -> None:
    """Sentence chrF and BLEU recomputed here with sacrebleu from the WMT21 texts against ref-C.

    Segments 1, 26, ..., 1001 of Nemo and ref-A: the sample ``test_datasets`` recomputes when the
    texts are beside the checkout; the scores (not the texts) are kept so a bare clone checks the
    shipped file against them.
    """
    from sacrebleu.metrics import BLEU, CHRF, TER

    txt = DATA / "wmt21_ende_mqm" / "wmt21-news-systems" / "txt"
    ref = (txt / "newstest2021.en-de.ref.C.de").read_text(encoding="utf-8").split("\n")
    out = []
    for system, fname in [("Nemo", "hyp.NVIDIA-NeMo"), ("ref-A", "ref.A")]:
        hyp = (txt / f"newstest2021.en-de.{fname}.de").read_text(encoding="utf-8").split("\n")
        for i in range(1, 1002, 25):
            h, r = hyp[i - 1], ref[i - 1]
            out.append([system, str(i), repr(CHRF().sentence_score(h, [r]).score),
                        repr(BLEU(effective_order=True).sentence_score(h, [r]).score),
                        repr(TER().sentence_score(h, [r]).score)])
    write_rows("wmt21_ende_sacrebleu_recomputed.csv", ["system", "seg_id", "chrf", "bleu", "ter"],
               out)


def _build_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_datasets",
                                                  REPO / "data-raw" / "build_datasets.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def stb_black_list_counts() -> None:
    """The Spot-The-Bot annotators and how many the black-list rule drops, from the raw dump."""
    df = _build_module().build_stb_convai2(DATA)
    write_rows("stb_black_list_counts.csv", ["n_annotators", "n_dropped"],
               [[str(df.attrs["n_annotators"]), str(df.attrs["n_dropped"])]])


def datasets_rebuilt_sha256() -> None:
    """SHA-256 of every dataset rebuilt here from the raw data by ``build_datasets.py``.

    The tests hold the shipped files to these digests: the files are what the build makes from
    the raw data (gzip without a timestamp, so a rebuild gives the same bytes).  Rebuilding
    wmt21_ende recomputes 10,020 sentence TER scores (a minute or two).
    """
    import hashlib
    import tempfile

    build = _build_module()
    with tempfile.TemporaryDirectory() as tmp:
        written = build.build(None, shared=SHARED, out=Path(tmp))
        rows = [[name, hashlib.sha256(Path(path).read_bytes()).hexdigest()]
                for name, path in written.items()]
    write_rows("datasets_rebuilt_sha256.csv", ["name", "sha256"], rows)


def summeval_bartscore_expert_means() -> None:
    """The expert means BARTScore's SummEval copy stores, for its first ten documents."""
    raw = json.loads((DATA / "summeval" / "bartscore" / "SummEval_data.json").read_text(encoding="utf-8"))
    dims = ["coherence", "consistency", "fluency", "relevance"]
    out = []
    for doc_id, doc in list(raw.items())[:10]:
        for system, item in doc["sys_summs"].items():
            out.append([doc_id, system, *(repr(item["scores"][d]) for d in dims)])
    write_rows("summeval_bartscore_expert_means.csv", ["doc_id", "system", *dims], out)


def main() -> None:
    dependent_correlations()
    wmt15_intervals()
    binary_model()
    peers()
    favi_and_sign_tests()
    paper_tables()
    wmt20_reported_correlations()
    wmt19_deen_system_level()
    wmt21_ende_sacrebleu_sample()
    wmt21_ende_sacrebleu_recomputed()
    summeval_bartscore_expert_means()
    stb_black_list_counts()
    datasets_rebuilt_sha256()


if __name__ == "__main__":
    main()
