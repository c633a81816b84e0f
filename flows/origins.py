"""``affidavit origins``: the lineage of a set of documents (composition and rendering only).

``compare_sources`` runs the lineage stage on the given documents and gathers what an analyst
reads: the raw count, the independent origins, every edge with its kind and figure, and a tree
(origin → copies, rewrites and quotes). ``render_origins`` prints it as a rich Tree.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import polars as pl
from rich.console import Console
from rich.markup import escape
from rich.tree import Tree

from affidavit.tasks.lineage import (
    LineageConfig,
    LineageResult,
    build_lineage,
    count_independent_origins,
)
from affidavit.tasks.sanitize import display_text

__all__ = ["OriginNode", "OriginsReport", "compare_sources", "render_origins"]


@dataclass(slots=True)
class OriginNode:
    """One document in the lineage tree.

    Attributes:
        doc_id: The document.
        label: What to show for it (title, url or host, else the doc_id).
        relation: How it hangs from its parent: ``origin`` for a root, else the edge kind.
        figure: The edge's figure, e.g. ``"Jaccard 0.93"`` or ``"shared passage 143 chars"``.
        direction: ``origin_time``, ``containment`` or ``undirected`` (roots: empty).
        children: Documents derived from it.
    """

    doc_id: str
    label: str
    relation: str
    figure: str = ""
    direction: str = ""
    children: list[OriginNode] = field(default_factory=list)


@dataclass(slots=True)
class OriginsReport:
    """The lineage of a set of documents.

    Attributes:
        n_documents: Raw count of documents given.
        n_origins: Independent origins among them.
        edges: One row per edge: parent_doc_id, child_doc_id, kind, jaccard, containment,
            shared_passage_chars, direction_basis, is_directed, figure (str).
        origins: The ``origins`` table of the documents.
        tree: One root node per independent origin, largest lineage first.
        notes: What was skipped and why.
    """

    n_documents: int
    n_origins: int
    edges: pl.DataFrame
    origins: pl.DataFrame
    tree: list[OriginNode]
    notes: list[str]


def _figure(row: dict) -> str:
    """Describe an edge's evidence in a few words."""
    if row["kind"] == "quote":
        return f"shared passage {row['shared_passage_chars']} chars"
    parts = [f"Jaccard {row['jaccard']:.2f}"]
    if row.get("containment") is not None and row["containment"] - row["jaccard"] >= 0.05:
        parts.append(f"containment {row['containment']:.2f}")
    return ", ".join(parts)


def _labels(docs: pl.DataFrame) -> dict[str, str]:
    """Pick a short human label per document: title, then url, then host."""
    labels: dict[str, str] = {}
    cols = [c for c in ("title", "url", "host") if c in docs.columns]
    for row in docs.select("doc_id", *cols).iter_rows(named=True):
        text = next((str(row[c]) for c in cols if row[c]), "")
        labels[str(row["doc_id"])] = (
            f"{text[:80]} [{row['doc_id']}]" if text else str(row["doc_id"])
        )
    return labels


def _build_tree(result: LineageResult, labels: dict[str, str]) -> list[OriginNode]:
    """Hang every document under its origin, following edges breadth first."""
    out_edges: dict[str, list[dict]] = defaultdict(list)
    for row in result.edges.iter_rows(named=True):
        out_edges[row["parent_doc_id"]].append(row)
        if not row["is_directed"]:
            flipped = dict(
                row, parent_doc_id=row["child_doc_id"], child_doc_id=row["parent_doc_id"]
            )
            out_edges[row["child_doc_id"]].append(flipped)
    by_origin: dict[str, list[str]] = defaultdict(list)
    for d, o in result.origins.select("doc_id", "origin_doc_id").iter_rows():
        by_origin[o].append(d)
    roots = []
    for origin, members in sorted(by_origin.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        member_set = set(members)
        root = OriginNode(origin, labels.get(origin, origin), "origin")
        placed = {origin: root}
        queue = [origin]
        while queue:
            parent = queue.pop(0)
            for e in sorted(out_edges.get(parent, []), key=lambda r: r["child_doc_id"]):
                child = e["child_doc_id"]
                if child in placed or child not in member_set:
                    continue
                node = OriginNode(
                    child, labels.get(child, child), e["kind"], _figure(e), e["direction_basis"]
                )
                placed[parent].children.append(node)
                placed[child] = node
                queue.append(child)
        for d in sorted(member_set - set(placed)):  # reached only through another lineage's edge
            root.children.append(OriginNode(d, labels.get(d, d), "linked", "via a quote", ""))
        roots.append(root)
    return roots


def compare_sources(
    docs: pl.DataFrame, *, config: LineageConfig = LineageConfig()
) -> OriginsReport:
    """Compute the lineage of a set of documents.

    Args:
        docs: One row per document: doc_id, text, and optionally host, published_at,
            wayback_first_seen, title, url (see ``affidavit.tasks.lineage.build_lineage``).
        config: Lineage thresholds.

    Returns:
        An ``OriginsReport``.

    Raises:
        ValueError: When doc_id or text is missing.
    """
    result = build_lineage(docs, config=config)
    edges = result.edges.with_columns(
        figure=pl.Series([_figure(r) for r in result.edges.iter_rows(named=True)], dtype=pl.String)
    )
    doc_ids = result.origins["doc_id"].to_list()
    return OriginsReport(
        n_documents=docs.height,
        n_origins=count_independent_origins(doc_ids, result.origins),
        edges=edges,
        origins=result.origins,
        tree=_build_tree(result, _labels(docs)),
        notes=result.notes,
    )


def _add(tree: Tree, node: OriginNode) -> None:
    for child in node.children:
        arrow = "↔" if child.direction == "undirected" else "→"
        extra = f" [dim]({child.figure}; {child.direction})[/dim]" if child.figure else ""
        label = escape(display_text(child.label, limit=120))
        branch = tree.add(f"{arrow} [bold]{child.relation}[/bold] {label}{extra}")
        _add(branch, child)


def render_origins(report: OriginsReport, console: Console) -> None:
    """Print a report: the counts, a tree per independent origin, and the notes.

    Args:
        report: From ``compare_sources``.
        console: Where to print.
    """
    top = Tree(
        f"[bold]{report.n_documents}[/bold] document(s), "
        f"[bold]{report.n_origins}[/bold] independent origin(s), {report.edges.height} edge(s)"
    )
    for root in report.tree:
        size = 1 + _count(root)
        label = escape(display_text(root.label, limit=120))
        branch = top.add(f"[green]origin[/green] {label} — {size} document(s)")
        _add(branch, root)
    console.print(top)
    for note in report.notes:
        console.print(f"[yellow]note:[/yellow] {escape(display_text(note, limit=400))}")


def _count(node: OriginNode) -> int:
    return sum(1 + _count(c) for c in node.children)
