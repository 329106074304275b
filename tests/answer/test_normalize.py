"""Structured results come from stored fields only, each row traceable to its evidence id."""

from __future__ import annotations

import pytest

from groundsearch.answer.normalize import normalize, theme_counts
from groundsearch.query.gate import GateOutcome
from groundsearch.types import Intent

from .helpers import SPECS, doc, paper, release

HITS = (
    release(1, "ragkit", "1.2.0", "RAG toolkit for LLM agents", 10, ("rag", "llm")),
    paper(2, "Dense Retrieval for RAG", ("Ada Lovelace",), "ICLR 2025", 3, ("rag",)),
    release(3, "agentx", "0.9.1", "Agents with MCP tools and LLM routing", 11, ("mcp", "llm")),
    paper(4, "Scaling LLM Agents", ("Alan Turing", "Grace Hopper"), "arXiv", 5, ("llm",)),
)


def test_table_per_collection_with_schema_columns_and_stored_cells() -> None:
    out = normalize(Intent(format="table"), HITS, SPECS, collections=("releases", "papers"))
    assert [t.collection for t in out] == ["releases", "papers"]
    releases, papers = out
    assert releases.columns == ("Date", "Product", "Version", "Summary")
    assert papers.columns == ("Date", "Title", "Authors", "Venue", "Link")
    assert releases.row_ids == ("releases:r1#0", "releases:r3#0")
    by_id = {h.id: h for h in HITS}
    for table in out:
        spec = SPECS[table.collection]
        for row, rid in zip(table.rows, table.row_ids, strict=True):
            fields = by_id[rid].item.fields
            for value, name in zip(row, spec.table_columns, strict=True):
                stored = fields[name]
                expected = stored.isoformat() if hasattr(stored, "isoformat") else (
                    ", ".join(stored) if isinstance(stored, tuple) else stored)
                assert value == expected
    assert papers.rows[1][2] == "Alan Turing, Grace Hopper"


def test_documents_table_uses_title_breadcrumb_link() -> None:
    [table] = normalize(Intent(format="table"), (doc(0, "Install it with pip."),), SPECS)
    assert table.columns == ("Title", "Section", "Link") and table.rows == (("Guide", "Guide", None),)


def test_tornado_is_unsupported_and_substituted_by_theme_ranked_bar() -> None:
    unsupported, chart = normalize(Intent(format="chart", chart_subtype="tornado"), HITS, SPECS)
    assert unsupported.kind == "unsupported-format" and unsupported.requested == "tornado"
    assert "signed" in unsupported.reason and unsupported.substitute == "chart:ranked-bar"
    assert chart.kind == "chart" and chart.subtype == "ranked-bar"
    assert [(p.label, p.value) for p in chart.points] == [("LLM", 3.0), ("RAG", 2.0)]  # as written in the evidence
    assert chart.points[0].source_ids == ("releases:r1#0", "releases:r3#0", "papers:p4#0")


def test_themes_exclude_a_records_own_names() -> None:
    names = [e for e, _ in theme_counts(HITS, SPECS)]
    assert "ragkit" not in names and "ada lovelace" not in names and "arxiv" not in names


def test_line_chart_counts_per_month_from_stored_dates() -> None:
    [chart] = normalize(Intent(format="chart", chart_subtype="line"), HITS, SPECS)
    assert [(p.label, p.value) for p in chart.points if p.value] == [
        ("2025-03", 1), ("2025-05", 1), ("2026-10", 1), ("2026-11", 1)]
    # the months between are drawn as zeros, not bridged by the line
    assert len(chart.points) == 21 and chart.points[1].label == "2025-04" and chart.points[1].value == 0
    assert "stored dates" in chart.source


def test_timeline_and_graph() -> None:
    [tl] = normalize(Intent(format="timeline"), HITS, SPECS)
    assert [e.source_id for e in tl.events] == ["papers:p2#0", "papers:p4#0", "releases:r1#0", "releases:r3#0"]
    [g] = normalize(Intent(format="graph"), HITS, SPECS)
    ids = {n.id for n in g.nodes}
    assert {"llm", "rag", "mcp"} <= ids
    assert all(e.source in ids and e.target in ids for e in g.edges)
    assert any({e.source, e.target} == {"llm", "mcp"} for e in g.edges)


def test_low_confidence_comes_first_and_broader_results_still_shown() -> None:
    out = normalize(Intent(format="table"), HITS, SPECS, gate=GateOutcome(0.12, 0.3, passed=False))
    assert out[0].kind == "low-confidence" and out[0].best_score == 0.12 and "0.30" in out[0].reason
    assert [r.kind for r in out[1:]] == ["table", "table"]


def test_default_format_has_no_structured_results() -> None:
    assert normalize(Intent(), HITS, SPECS) == []


@pytest.mark.parametrize("fmt", ["table", "timeline", "graph"])
def test_an_asked_shape_with_no_evidence_says_why_it_is_absent(fmt: str) -> None:
    """A table asked of an empty result set came back as nothing at all: the wish dropped without a word."""
    [notice] = normalize(Intent(format=fmt), (), SPECS)
    assert notice.kind == "unsupported-format" and notice.requested == fmt and notice.substitute == "none"
    assert "no stored results matched" in notice.reason
    gated = normalize(Intent(format=fmt), (), SPECS, gate=GateOutcome(0.12, 0.3, passed=False))
    assert [r.kind for r in gated] == ["low-confidence", "unsupported-format"]


def test_no_evidence_and_no_shape_asked_stays_empty() -> None:
    assert normalize(Intent(), (), SPECS) == []


@pytest.mark.parametrize(("fmt", "why"), [("timeline", "has a stored date"), ("graph", "mentions an entity")])
def test_an_asked_shape_the_results_cannot_fill_is_downgraded_not_drawn_empty(fmt: str, why: str) -> None:
    """"timeline chart of vector-db milestones" found twenty undated documentation sections and came back as a
    timeline of no events, which the fidelity eval counted as honoured: a silent drop under the asked name."""
    hits = (doc(0, "Install it with pip."), doc(1, "Then run the demo."))
    notice, table = normalize(Intent(format=fmt), hits, SPECS, collections=("docs",))
    assert notice.kind == "unsupported-format" and notice.requested == fmt and notice.substitute == "table"
    assert why in notice.reason and "among the 1 found" in notice.reason  # two chunks of one document
    assert table.kind == "table" and table.row_ids == ("docs:guide#0",)
    from groundsearch.answer.synthesize import synthesize

    said = synthesize(Intent(format=fmt), f"a {fmt} of the guide", [notice, table], hits, SPECS).prose.text
    assert f"A {fmt} cannot be drawn from the stored data, so a table is shown instead." in said
