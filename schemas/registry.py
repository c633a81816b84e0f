"""All persisted tables by name."""

from __future__ import annotations

import pyarrow as pa

from affidavit.schemas.audits import AUDIT_CLAIMS_SCHEMA, AUDITS_SCHEMA
from affidavit.schemas.claims import CLAIMS_SCHEMA
from affidavit.schemas.documents import DOCUMENTS_SCHEMA
from affidavit.schemas.feeds import FEEDS_SCHEMA
from affidavit.schemas.fetches import FETCHES_SCHEMA
from affidavit.schemas.judgments import JUDGMENTS_SCHEMA
from affidavit.schemas.lineage import LINEAGE_EDGES_SCHEMA, ORIGINS_SCHEMA
from affidavit.schemas.passages import (
    PASSAGE_FURNITURE_SCHEMA,
    PASSAGE_GRAMS_SCHEMA,
    PASSAGE_PACKED_SCHEMA,
)
from affidavit.schemas.queries import QUERIES_SCHEMA
from affidavit.schemas.runs import RUNS_SCHEMA
from affidavit.schemas.signatures import SIGNATURES_SCHEMA
from affidavit.schemas.verdicts import VERDICTS_SCHEMA

TABLES: dict[str, pa.Schema] = {
    "documents": DOCUMENTS_SCHEMA,
    "signatures": SIGNATURES_SCHEMA,
    "lineage_edges": LINEAGE_EDGES_SCHEMA,
    "origins": ORIGINS_SCHEMA,
    "passage_grams": PASSAGE_GRAMS_SCHEMA,
    "passage_packed": PASSAGE_PACKED_SCHEMA,
    "passage_furniture": PASSAGE_FURNITURE_SCHEMA,
    "claims": CLAIMS_SCHEMA,
    "queries": QUERIES_SCHEMA,
    "judgments": JUDGMENTS_SCHEMA,
    "verdicts": VERDICTS_SCHEMA,
    "runs": RUNS_SCHEMA,
    "feeds": FEEDS_SCHEMA,
    "fetches": FETCHES_SCHEMA,
    "audits": AUDITS_SCHEMA,
    "audit_claims": AUDIT_CLAIMS_SCHEMA,
}
