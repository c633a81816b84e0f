"""Tests for flows.origins: the report of compare_sources and its rendering."""

from __future__ import annotations

import io

import polars as pl
from rich.console import Console

from affidavit.flows.origins import compare_sources, render_origins
from tests.unit.test_lineage import DERIVED, INDEPENDENT, ORIGIN, T0


def docs() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "doc_id": ["o", "c1", "c2", "d", "i", "e"],
            "title": [
                "CPC to sell [European] unit",
                "Copy one",
                None,
                "Food shares",
                "Corn closes lower",
                None,
            ],
            "url": [None, None, "https://b.example/c2", None, None, None],
            "text": [ORIGIN, "Menu | Home\n" + ORIGIN, ORIGIN[:700], DERIVED, INDEPENDENT, ""],
            "host": ["wire.example", "a.example", "b.example", "a.example", "wire.example", None],
            "published_at": [
                T0,
                T0.replace(hour=18),
                T0.replace(hour=19),
                T0.replace(hour=20),
                T0,
                None,
            ],
        }
    )


def test_report_counts_edges_and_tree():
    report = compare_sources(docs())
    assert report.n_documents == 6
    assert report.n_origins == 3  # the CPC story, the corn story, the empty document
    assert {"kind", "jaccard", "shared_passage_chars", "figure"} <= set(report.edges.columns)
    kinds = dict(
        zip(
            zip(report.edges["parent_doc_id"], report.edges["child_doc_id"], strict=True),
            report.edges["kind"],
            strict=True,
        )
    )
    assert kinds[("o", "c1")] == "syndication"
    assert kinds[("o", "d")] == "quote"
    root = report.tree[0]
    assert root.doc_id == "o"
    assert root.relation == "origin"
    children = {c.doc_id: c for c in root.children}
    assert {"c1", "c2", "d"} <= set(children)
    assert children["d"].figure.startswith("shared passage")
    assert children["c1"].figure.startswith("Jaccard")
    assert any("no words" in n for n in report.notes)


def test_render_shows_counts_and_escapes_labels():
    buf = io.StringIO()
    render_origins(compare_sources(docs()), Console(file=buf, width=160, color_system=None))
    out = buf.getvalue()
    assert "6 document(s), 3 independent origin(s)" in out
    assert "[European]" in out  # markup-like text in a title is shown, not swallowed
    assert "syndication" in out
    assert "quote" in out
    assert "note:" in out


def test_demo_corpus_lineages_follow_its_stories():
    """The shipped demo: one lineage per story (release, copies, rewrites; the desalination
    story and its copies), every other document its own origin, whatever furniture the
    copies' hosts add (a MetroWire footer must not link unrelated stories)."""
    from pathlib import Path

    from affidavit.flows.analyst import load_documents

    path = Path(__file__).resolve().parents[2] / "flows" / "demo" / "documents.jsonl"
    docs, _ = load_documents([str(path)])
    report = compare_sources(docs)
    name = dict(zip(docs["doc_id"], docs["source_id"], strict=True))
    origin = {name[d]: name[o] for d, o in report.origins.select("doc_id", "origin_doc_id").rows()}
    for doc, root in origin.items():
        if doc.startswith(("nw-copy", "nw-rewrite")):
            assert root == "nw-release", doc
        elif doc.startswith("hc-copy"):
            assert root == "hc-origin", doc
        else:
            assert root == doc, doc
    assert report.n_origins == 12
