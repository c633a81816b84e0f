"""All persisted tables by name."""

from __future__ import annotations

import pyarrow as pa

from schemas.claims import CLAIMS_SCHEMA
from schemas.documents import DOCUMENTS_SCHEMA
from schemas.judgments import JUDGMENTS_SCHEMA
from schemas.lineage import LINEAGE_EDGES_SCHEMA, ORIGINS_SCHEMA
from schemas.queries import QUERIES_SCHEMA
from schemas.runs import RUNS_SCHEMA
from schemas.signatures import SIGNATURES_SCHEMA
from schemas.verdicts import VERDICTS_SCHEMA

TABLES: dict[str, pa.Schema] = {
    "documents": DOCUMENTS_SCHEMA,
    "signatures": SIGNATURES_SCHEMA,
    "lineage_edges": LINEAGE_EDGES_SCHEMA,
    "origins": ORIGINS_SCHEMA,
    "claims": CLAIMS_SCHEMA,
    "queries": QUERIES_SCHEMA,
    "judgments": JUDGMENTS_SCHEMA,
    "verdicts": VERDICTS_SCHEMA,
    "runs": RUNS_SCHEMA,
}
