"""Enumerations shared by every table of affidavit.

Each enum is a ``StrEnum`` so that its members are stored in Parquet and DuckDB as plain strings
(``Stance.SUPPORTS == "SUPPORTS"``).
"""

from __future__ import annotations

from enum import StrEnum


class SourceKind(StrEnum):
    """How a document reached the warehouse (``documents.source_kind``)."""

    FEED = "feed"
    WEB = "web"
    ARCHIVE = "archive"
    SNIPPET = "snippet"
    USER = "user"


class Stance(StrEnum):
    """Stance of one document toward one claim (``judgments.stance``)."""

    SUPPORTS = "SUPPORTS"
    PARTIAL = "PARTIAL"
    REFUTES = "REFUTES"
    NEUTRAL = "NEUTRAL"


class AnchorKind(StrEnum):
    """How a quote was located in its source text (``judgments.anchor``).

    EXACT: the quote occurs verbatim. NORMALIZED: it occurs after normalisation (Unicode, case,
    quotes, dashes, whitespace, ...) with offsets projected back to the original. FAILED: not found.
    """

    EXACT = "EXACT"
    NORMALIZED = "NORMALIZED"
    FAILED = "FAILED"


class VerdictStatus(StrEnum):
    """Status of a claim in one run (``verdicts.status``); see DESIGN.md, Tribunal."""

    SUPPORTED = "SUPPORTED"
    PARTIAL = "PARTIAL"
    CONTESTED = "CONTESTED"
    CONTRADICTED = "CONTRADICTED"
    UNVERIFIED = "UNVERIFIED"


class Volatility(StrEnum):
    """How fast a claim's truth may change (``claims.volatility``); drives ``expires_at``."""

    IMMUTABLE = "immutable"
    SLOW = "slow"
    FAST = "fast"


class Angle(StrEnum):
    """Why a query was issued (``queries.angle``)."""

    CONFIRM = "confirm"
    SUPPORT = "support"
    REFUTE = "refute"
    PROVENANCE = "provenance"
    FOLLOW_UP = "follow_up"


class Side(StrEnum):
    """Which side of the research a query or judgment belongs to.

    The advocate looks for support; the prosecutor hunts for disconfirmation and admits only
    REFUTES judgments.
    """

    ADVOCATE = "advocate"
    PROSECUTOR = "prosecutor"


class EdgeKind(StrEnum):
    """Kind of a lineage edge (``lineage_edges.kind``)."""

    SYNDICATION = "syndication"
    DERIVATION = "derivation"
    QUOTE = "quote"
    CITATION = "citation"


class DirectionBasis(StrEnum):
    """What decided the direction of a lineage edge (``lineage_edges.direction_basis``)."""

    ORIGIN_TIME = "origin_time"
    CONTAINMENT = "containment"
    UNDIRECTED = "undirected"


class RunStatus(StrEnum):
    """Outcome of one flow run (``runs.status``)."""

    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    NO_CAPABILITY = "no_capability"
    ABANDONED = "abandoned"
    """Stopped before its end: by Ctrl-C or a stop signal (set by the run itself), or left
    ``running`` by a process that died (kill, OOM; set by the next run that starts)."""


class SourceType(StrEnum):
    """Type of a source, from host patterns and identifiers (DESIGN.md, Source checks)."""

    PRIMARY = "primary"
    OFFICIAL = "official"
    PEER_REVIEWED = "peer-reviewed"
    NEWS = "news"
    AGGREGATOR = "aggregator"
    BLOG = "blog"
    FORUM = "forum"
    UNKNOWN = "unknown"


class Mode(StrEnum):
    """Research mode (DESIGN.md, Research modes)."""

    QUICK = "quick"
    STANDARD = "standard"
    DEEP = "deep"
    FORENSIC = "forensic"
