"""The one number formatter (readouts, messages, glossaries, tables, figure labels), the
notation of figure labels, and the tables in words."""

from __future__ import annotations

import re

import pytest

from workbench.notation import mathtext
from workbench.numfmt import format_number, format_value, parse_number

E_NOTATION = re.compile(r"\d[eE][+-]?\d")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1600.4, "1600"),  # p5's F_c readout was "1.6e+03"
        (1e6, "1000000"),  # p2's L̄ readout was "1e+06"
        (1e3, "1000"),  # a range "1 … 1e+03"
        (33.333333333333336, "33.3"),  # a glossary default
        (0.09090909090909091, "0.0909"),
        (64.32252774842601, "64.3"),
        (0.75, "0.75"),  # no trailing zeros: 0.750 reads 0.75
        (1.0, "1"),
        (999.7, "1000"),  # rounding carries into the next power of ten
        (0.001, "0.001"),
        (-0.35, "−0.35"),
        (0, "0"),
        (12, "12"),
        (2.5e-5, "2.5 × 10⁻⁵"),  # outside 1e-3 … 1e6: a power of ten, never e-notation
        (1234567, "1.23 × 10⁶"),
        (float("nan"), "–"),
        (float("inf"), "∞"),
    ],
)
def test_format_number(value, text):
    assert format_number(value) == text


def test_format_number_digits_and_units():
    assert format_number(0.35, unit="s") == "0.35 s"
    assert format_number(1.4286, 2, "ms") == "1.4 ms"
    assert format_number(50, unit="%") == "50%"
    assert format_number(3.14159, 5) == "3.1416"


def test_no_e_notation_anywhere_in_the_plain_band():
    for exponent in range(-3, 7):
        for mantissa in (1.0, 1.234567, 4.5, 9.99):
            x = mantissa * 10.0**exponent
            if 1e-3 <= x <= 1e6:
                text = format_number(x)
                assert not E_NOTATION.search(text) and "×" not in text, (x, text)
                assert parse_number(text.replace("−", "-")) == pytest.approx(x, rel=5e-3)


def test_format_value_of_table_cells():
    assert format_value([64.32252774842601, 69.00241685961942]) == "[64.3, 69]"
    assert format_value("pooled") == "pooled" and format_value(None) == "–"
    assert format_value(True) == "True"


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("P_b", r"P$_{\mathregular{b}}$"),
        ("T_cl [s]", r"T$_{\mathregular{cl}}$ [s]"),
        ("λ_m", r"λ$_{\mathregular{m}}$"),
        ("Service delay vs p^I", r"Service delay vs p$^{\mathregular{I}}$"),
        ("cache_aware users", "cache_aware users"),  # a snake_case word stays a word
        ("$x^2$", "$x^2$"),  # already mathtext
    ],
)
def test_mathtext_renders_the_notation_of_figure_labels(label, expected):
    assert mathtext(label) == expected


def test_mathtext_labels_draw():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.add_subplot()
    ax.set_xlabel(mathtext("T_cl, λ_m, p^I, x^{n+1}, min′_th"))
    fig.canvas.draw()  # a malformed mathtext raises here


def test_glossary_is_short_and_unambiguous():
    from workbench.registry import PAPERS, paper
    from workbench.tables import glossary_frame

    for pid in sorted(PAPERS):
        frame = glossary_frame(paper(pid).params)
        assert list(frame.columns) == ["symbol", "meaning", "unit", "default", "from"]
        meanings = " ".join(frame["meaning"])
        for word in ("GMRES", "restart", "seed", "replications", "example_", "warm-up"):
            assert word not in meanings, (pid, word)
        assert frame["symbol"].is_unique, (pid, frame["symbol"][frame["symbol"].duplicated()])
        assert not any(E_NOTATION.search(d) for d in frame["default"]), pid
        assert len(frame) <= 30, (pid, len(frame))


def test_claims_read_as_sentences_with_a_why():
    import pandas as pd

    from workbench.tables import claims_frame, flip_text

    checked = pd.DataFrame(
        [
            {
                "id": "fig4_pareto_asto_gain_vs_benchmark_exact",
                "quantity": "ASTO's gain over the benchmark",
                "quote": "",
                "source": "workbench",
                "value": 0.65,
                "measured": 0.6123,
                "tolerance": 0.05,
                "agrees": True,
                "as_expected": True,
                "stationary": True,
                "note": "eq. 1 with Erlang-B",
            }
        ]
    )
    row = claims_frame(checked).iloc[0]
    assert row["claim"] == "ASTO's gain over the benchmark" and row["why"] == "eq. 1 with Erlang-B"
    assert row["workbench"] == "0.612" and row["tolerance"] == "±0.05"
    assert "fig4_" not in " ".join(map(str, row.values))

    from workbench.hierarchy import PARAMS

    text = flip_text("decision_time ≤ 0.001429: holds at 10/12; above: 0/4", PARAMS)
    assert text.startswith("where τ") and "≤ 1.4 ms" in text and "10 of 12" in text


def test_atlas_in_words_and_its_figure_without_overlaps():
    import pandas as pd

    from workbench.layout import check_layout
    from workbench.tables import atlas_figure, atlas_frame, atlas_prose

    rows = []
    for claim, shares in (("red_gain", (0.0, 0.1, 0.0)), ("advanced_best", (0.6, 1.0, 0.3))):
        for reading, share in zip(("all", "eq11_in_ms", "batch_arrivals"), shares, strict=True):
            verdict = "refuted" if share <= 0.1 else ("reproduced" if share >= 0.9 else "depends")
            flip = (
                "decision_time ≤ 0.001429: holds at 10/12; above: 0/4"
                if verdict == "depends"
                else ""
            )
            rows.append(
                {
                    "paper": "p5",
                    "claim": claim,
                    "reading": reading,
                    "points": 16,
                    "undetermined": 0,
                    "holds_share": share,
                    "ci_low": 0.0,
                    "ci_high": 1.0,
                    "verdict": verdict,
                    "decided_by": "",
                    "flip": flip,
                }
            )
    frame = pd.DataFrame(rows)
    table = atlas_frame(frame, "p5")
    assert list(table.columns) == ["#", "claim", "holds at", "verdict", "where it flips"]
    assert table["holds at"][1] == "10 of 16 points (60%)"
    assert "τ" in table["where it flips"][1] and "1.4 ms" in table["where it flips"][1]
    prose = atlas_prose(table)
    assert "Claim 2 depends on the reading: where τ" in prose and "Claim 1 is refuted" in prose
    fig = atlas_figure(frame, "p5")
    problems = check_layout(fig, dpi=110)
    assert not problems, problems


def test_paper_latex_reads_as_text_with_scripts():
    from workbench.notation import latex_html

    out = latex_html(r"minimum at $\min\{P_{b}(m=1),P_{b}(m=2)\}$ when $\alpha<1.5$")
    assert out == "minimum at min{P<sub>b</sub>(m=1),P<sub>b</sub>(m=2)} when α&lt;1.5"
    assert latex_html(r"$\operatorname{S-Exp}(\Delta,m\mu)$") == "S-Exp(Δ,mμ)"
    assert latex_html(r"$Q_{n,n^{\prime}}=\frac{n}{n+n^{\prime}}$") == "Q<sub>n,n′</sub>=n/(n+n′)"
    assert latex_html("a <b> & $x$") == "a &lt;b&gt; &amp; x"


@pytest.mark.parametrize("paper", ["p1", "p2", "p3", "p4", "p5", "arena"])
def test_claims_tables_show_no_latex_source_and_no_code_names(paper):
    """Every claim sentence and note of every claims table as the notebook shows it: no raw
    LaTeX (``$``, backslash macros), no parameter spelled as code (``lam_u``,
    ``hedge_upload='least_wait'``), and two claims on one sentence say what each measures."""
    from workbench.claims import load_claims
    from workbench.tables import claims_frame

    table = load_claims(paper)
    checked = table.assign(
        measured=table["value"], agrees=True, as_expected=True, stationary=True, measure_note=""
    )
    shown = claims_frame(checked, paper)
    for col in ("claim", "why"):
        for text in shown[col]:
            assert "$" not in text and not re.search(r"\\[A-Za-z]+", text), (paper, text)
            assert not re.search(r"\blam_u\b|hedge_upload=|cache_aware=", text), (paper, text)
    assert shown["claim"].is_unique, shown["claim"][shown["claim"].duplicated()].tolist()


def test_multi_line_figure_texts_get_the_notation_too():
    from matplotlib.figure import Figure

    from workbench.rendering import apply_notation

    fig = Figure()
    ax = fig.add_subplot()
    ax.set_title("N = 24, T_cl = 15 s\nP_b simulated")
    apply_notation(fig)
    title = ax.get_title()
    assert "T$_{\\mathregular{cl}}$" in title and "P$_{\\mathregular{b}}$" in title
    assert title.count("\n") == 1
