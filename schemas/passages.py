"""The passage tables (``passage_grams``, ``passage_packed``, ``passage_furniture``).

They hold what the passage join keeps.

An incremental lineage run (``affidavit.tasks.lineage.update_lineage``) joins only the new
documents' passage n-grams against these tables; it never reads or splits a stored text again.
"""

from __future__ import annotations

import pyarrow as pa

from affidavit.schemas._meta import table_schema

PASSAGE_GRAMS_SCHEMA = table_schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        # affidavit.tasks.lineage.material_config(LineageConfig): normalisation, n-gram size,
        # sentence rule; rows of another form are never mixed in
        pa.field("config", pa.string(), nullable=False),
        # per normalised word: first 8 bytes of its SHA-1 (little-endian), characters, has a digit
        pa.field("word_hashes", pa.list_(pa.uint64()), nullable=False),
        pa.field("word_lengths", pa.list_(pa.int32()), nullable=False),
        pa.field("word_has_digit", pa.list_(pa.bool_()), nullable=False),
        pa.field("line_words", pa.list_(pa.int32()), nullable=False),  # words per line
        pa.field("sentence_words", pa.list_(pa.int32()), nullable=False),  # words per sentence
        # word ranges inside double quotation marks, flattened [start0, end0, start1, ...]
        pa.field("quoted_words", pa.list_(pa.int32()), nullable=False),
        # the passage n-gram hashes (affidavit.tasks.passages), one per n-gram start
        pa.field("ngram_hashes", pa.list_(pa.uint64()), nullable=False),
    ],
    name="passage_grams",
    grain="one row per document and passage configuration",
    key=("doc_id", "config"),
    version=1,
)

PASSAGE_PACKED_SCHEMA = table_schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("config", pa.string(), nullable=False),  # as in passage_grams
        # what an update reads of passage_grams' row of the same key, each list packed as
        # fixed-width little-endian values (uint64 hashes, int32 counts). A binary value reads
        # back as one flat array with no Parquet repetition levels to decode: an update scans
        # every stored n-gram hash, ~47 million at 100k documents of ~3 KB, in 0.1 s where
        # the list column takes 0.6 s (2 cores)
        pa.field("word_hashes", pa.large_binary(), nullable=False),  # uint64 per word
        pa.field("ngram_hashes", pa.large_binary(), nullable=False),  # uint64 per n-gram
        pa.field("sentence_words", pa.large_binary(), nullable=False),  # int32 per sentence
        pa.field("quoted_words", pa.large_binary(), nullable=False),  # int32 [start, end) pairs
    ],
    name="passage_packed",
    grain="one row per document and passage configuration (those of passage_grams)",
    key=("doc_id", "config"),
    version=1,
)

PASSAGE_FURNITURE_SCHEMA = table_schema(
    [
        pa.field("config", pa.string(), nullable=False),
        pa.field("ngram_hash", pa.uint64(), nullable=False),
        # "" for a passage n-gram ignored everywhere (furniture of a host, or in too many
        # unrelated stories); a host for a short template n-gram of that host
        pa.field("host", pa.string(), nullable=False),
        # common | host | own_host (affidavit.tasks.passages.PassageResult.bad_ngrams) | template
        pa.field("kind", pa.string(), nullable=False),
    ],
    name="passage_furniture",
    grain="one row per n-gram judged page furniture or boilerplate",
    key=("config", "ngram_hash", "host"),
    # replaced whole by each lineage run: a judgement can be undone (kind own_host)
    version=1,
)
