"""The ``lineage_edges`` and ``origins`` tables."""

from __future__ import annotations

import pyarrow as pa

from affidavit.schemas._meta import table_schema

LINEAGE_EDGES_SCHEMA = table_schema(
    [
        pa.field("parent_doc_id", pa.string(), nullable=False),
        pa.field("child_doc_id", pa.string(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),  # schemas.enums.EdgeKind
        pa.field("jaccard", pa.float64()),  # exact shingle Jaccard, 0..1
        pa.field("containment", pa.float64()),  # max |A∩B|/min(|A|,|B|), 0..1
        pa.field("shared_passage_chars", pa.int32()),  # longest shared running text, characters
        pa.field("direction_basis", pa.string(), nullable=False),  # schemas.enums.DirectionBasis
        pa.field("is_directed", pa.bool_(), nullable=False),
    ],
    name="lineage_edges",
    grain="one row per linked pair of documents",
    key=("parent_doc_id", "child_doc_id"),
    version=1,
)

ORIGINS_SCHEMA = table_schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        # the lineage root; the document itself when it is independent
        pa.field("origin_doc_id", pa.string(), nullable=False),
        pa.field("lineage_id", pa.string(), nullable=False),  # id of the connected lineage
        pa.field("in_cycle", pa.bool_(), nullable=False),
    ],
    name="origins",
    grain="one row per document",
    key=("doc_id",),
    version=1,
)
