"""Write published.csv: the published numbers the showcase vignettes set beside their own.

Every value is copied as text, exactly as printed in its source (rounding, labels and empty
significance cells kept), from the project's shared reference folder beside the checkout:

- ``../shared/reference/published_showcases.md`` (von Däniken et al. 2022 and 2024, von Däniken
  2023, Graham & Liu 2016: tables transcribed from the papers),
- ``../shared/reference/paper_tables.md`` (von Däniken et al. 2022, Tables 1 and 12),
- ``tests/reference/wmt20_reported_correlations.csv`` (the WMT20 metrics task's published
  system-level correlations, Mathur et al. 2020).

Only the cells the vignettes show are kept.  Sources (full references in the vignettes):
von Däniken, Deriu, Tuggener & Cieliebak (2022), On the Effectiveness of Automated Metrics for
Text Generation Systems, Findings of EMNLP 2022; P. von Däniken (2023), master thesis extending
it; von Däniken, Deriu, Tuggener & Cieliebak (2024), Favi-Score, ACL 2024; Graham & Liu (2016),
Achieving Accurate Conclusions in Evaluation of Automatic Machine Translation Metrics, NAACL 2016;
Mathur, Wei, Freitag, Ma & Bojar (2020), Results of the WMT20 Metrics Shared Task.  Run from the repository root:
``python vignettes/data/published_from_shared.py``; the vignettes only read the CSV.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "reference"
OUT = Path(__file__).with_name("published.csv")

V22 = "von Däniken et al. (2022)"
V23 = "von Däniken (2023), thesis"
V24 = "von Däniken et al. (2024)"
GL16 = "Graham & Liu (2016)"
WMT20 = "Mathur et al. (2020)"


def md_table(text: str, heading: str) -> list[list[str]]:
    """The first markdown table after ``heading``: header row and body rows, cells stripped."""
    start = text.index(heading)
    rows: list[list[str]] = []
    for line in text[start:].splitlines()[1:]:
        if line.startswith("|"):
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            if not all(set(c) <= set("-: ") for c in cells):
                rows.append(cells)
        elif rows:
            break
        elif line.startswith("#"):
            raise ValueError(f"no table under {heading!r}")
    return rows


def name(label: str) -> str:
    """A system label without its estimate in parentheses: 'FBAI (0.67)' -> 'FBAI'."""
    return re.sub(r"\s*\(.*\)$", "", label).strip()


def main() -> None:
    """Read the shared reference files and write published.csv."""
    pub = (SHARED / "published_showcases.md").read_text()
    paper = (SHARED / "paper_tables.md").read_text()
    out: list[dict[str, str]] = []

    def add(source, table, quantity, row, column, value):
        out.append({"source": source, "table": table, "quantity": quantity, "row": row,
                    "column": column, "value": value})

    # von Däniken et al. 2022, Table 2: scenario x pair -> estimates, epsilon, P(alpha1 > alpha2)
    for scenario, pair, eps, prob in md_table(pub, "### von Däniken et al. 2022, Table 2")[1:]:
        m = re.match(r"(\S+)\s*\(([\d.]+)\)\s*-\s*(\S+)\s*\(([\d.]+)\)", pair)
        label = f"{m.group(1)} - {m.group(3)}"
        add(V22, "Table 2", "estimate_1", scenario, label, m.group(2))
        add(V22, "Table 2", "estimate_2", scenario, label, m.group(4))
        add(V22, "Table 2", "epsilon", scenario, label, eps)
        add(V22, "Table 2", "prob_greater", scenario, label, prob)

    # Tables 5 (WMT21, 100 human ratings) and 9 (STB, 100 human ratings): matrices
    for table in ("Table 5", "Table 9"):
        rows = md_table(pub, f"### von Däniken et al. 2022, {table}\n")
        header = rows[0][1:]
        for label in header:
            add(V22, table, "estimate", name(label), "", re.search(r"\(([\d.]+)\)", label)[1])
        for row in rows[1:]:
            for col, cell in zip(header, row[1:], strict=True):
                if cell.strip() in ("-", "_"):
                    continue
                eps, prob = re.match(r"(-?[\d.]+) \(([\d.]+)\)", cell).groups()
                add(V22, table, "epsilon", name(row[0]), name(col), eps)
                add(V22, table, "prob_greater", name(row[0]), name(col), prob)

    # thesis Tables 5.1 and 5.3 (WMT21: Human and BLEU columns), 5.2 (STB: Human column)
    for table, columns in (("Table 5.1", ("Human", "BLEU")), ("Table 5.3", ("Human", "BLEU")),
                           ("Table 5.2", ("Human",))):
        rows = md_table(pub, f"### von Däniken 2023 (thesis), {table}\n")
        header = rows[0]
        for row in rows[1:]:
            for metric in columns:
                for stat, quantity in (("μ", "mean"), ("σ", "sd")):
                    add(V23, table, quantity, row[0], metric,
                        row[header.index(f"{metric} {stat}")])

    # thesis Tables 5.5 (WMT21) and 5.7 (STB): significance markers, empty cells kept
    for table in ("Table 5.5", "Table 5.7"):
        rows = md_table(pub, f"### von Däniken 2023 (thesis), {table}\n")
        header = [name(c) for c in rows[0][1:]]
        for row in rows[1:]:
            for col, cell in zip(header, row[1:], strict=True):
                if name(row[0]) != col:
                    add(V23, table, "stars", name(row[0]), col, cell)

    # Graham & Liu 2016: the values quoted in the text
    for quantity, value in md_table(pub, "### Graham & Liu 2016, Table 3")[1:]:
        add(GL16, "Table 3", quantity, "de-en", "", value)
    heading = "### Graham & Liu 2016, table number not in the extraction"
    for quantity, value in md_table(pub, heading)[1:]:
        add(GL16, "table between Tables 1 and 3 (en-cs)", quantity, "en-cs", "", value)

    # Favi-Score 2024: Table 1 (data statistics) and the values quoted for Figures 10 and 11
    rows = md_table(pub, "### von Däniken et al. 2024 (Favi-Score), Table 1")
    header = rows[0]
    for row in rows[1:]:
        for data in ("SummEval", "WMT21"):
            add(V24, "Table 1", row[0], data, "", row[header.index(data)])
    for where, quantity, value in md_table(
            pub, "### von Däniken et al. 2024 (Favi-Score), values stated in the text")[1:]:
        if where.startswith("Appendix D.2, Figure 10"):
            for q, v in zip(quantity.split("; "), value.split("; "), strict=True):
                add(V24, "Appendix D.2, Figure 10", q, "SummEval consistency", "BERTScore", v)
        elif where.startswith("Appendix D.2, Figure 11"):
            # the text names neither the expert feature nor the ROUGE variant
            for q, v in zip(quantity.split("; "), value.split("; "), strict=True):
                add(V24, "Appendix D.2, Figure 11", q, "SummEval (feature not stated)",
                    "ROUGE (variant not stated)", v)

    # Favi-Score 2024: the four worked examples (paper_tables.md)
    for label, value in re.findall(r"^- (C\d): .*Favi = ([\d/]+)\.$", paper, flags=re.M):
        add(V24, "worked examples", "favi", label, "", value)

    # von Däniken et al. 2022, Tables 1 and 12 (planning)
    for table, heading in (("Table 1", "### Table 1:"), ("Table 12", "### Table 12:")):
        rows = md_table(paper, heading)
        header = rows[0][1:]
        for row in rows[1:]:
            for col, cell in zip(header, row[1:], strict=True):
                add(V22, table, "epsilon", row[0], col, cell)

    # WMT20 en-de, the eight metrics of the correlations vignette
    keep = {"COMET": "comet", "BLEURT-extended": "bleurt_extended", "esim": "esim",
            "YiSi-1": "yisi_1", "prism": "prism", "chrF": "chrf", "BLEU": "bleu", "TER": "ter"}
    with open(ROOT / "tests" / "reference" / "wmt20_reported_correlations.csv") as fh:
        for rec in csv.DictReader(fh):
            if rec["lp"] == "ende" and rec["metric"] in keep:
                if rec["outliers_excluded"] == "True":
                    add(WMT20, "DA-ende-cor-excloutl.csv", "pearson", keep[rec["metric"]],
                        rec["N"], rec["Pearson"])
                else:
                    add(WMT20, "DA-ende-cor.csv", "kendall", keep[rec["metric"]], rec["N"],
                        rec["Kendall"])

    with open(OUT, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(out[0]))
        writer.writeheader()
        writer.writerows(out)
    print(f"{OUT}: {len(out)} values")


if __name__ == "__main__":
    main()
