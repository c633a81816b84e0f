"""Tests for tasks.lineage: edges, direction, origins, incremental runs, bad input."""

from __future__ import annotations

import dataclasses
import signal
from datetime import UTC, datetime, timedelta

import numpy as np
import polars as pl
import pytest

from affidavit.schemas.enums import DirectionBasis, EdgeKind
from affidavit.schemas.lineage import LINEAGE_EDGES_SCHEMA, ORIGINS_SCHEMA
from affidavit.schemas.signatures import SIGNATURES_SCHEMA
from affidavit.tasks.lineage import (
    LineageConfig,
    build_lineage,
    compute_origins,
    count_independent_origins,
    lineage_members,
    passage_packed_rows,
    update_lineage,
)

T0 = datetime(1987, 3, 24, 15, 0, tzinfo=UTC)

ORIGIN = (
    "CPC International Inc said it reached an agreement in principle to sell its European corn "
    "wet milling business to Agricola Finanziaria SpA, a member of the Ferruzzi Group, for a "
    "price in excess of 600 mln dlrs.\n\nThe transaction is expected to be completed by "
    "September 30. CPC said it expects no material gain or loss on the sale, which is subject "
    "to approval by the European Commission and other regulators.\n\nIn 1986, the European corn "
    "wet milling business had sales of 914.1 mln dlrs, operating income before overheads of "
    "68.8 mln dlrs and associated headquarters overhead costs of 19.7 mln dlrs, according to "
    "CPC's 1986 annual report. The businesses' assets were 645.7 mln dlrs in 1986, the report said."
)
OTHER = (
    "Pittston Co said it has tentatively agreed to acquire WTC International N.V. in a tax-free "
    "exchange of stock. Pittston said it agreed to exchange 0.523 common share for each of the "
    "about 8,612,000 WTC common shares outstanding. Pittston said its Burlington Air Express "
    "subsidiary generates about two-thirds of its 450 mln dlrs in annual revenues with its "
    "domestic air freight services, and that the deal needs the approval of WTC holders."
)
DERIVED = (
    "Shares of food processors moved higher on Tuesday as investors weighed a string of asset "
    "sales across the industry. A report said: The transaction is expected to be completed by "
    "September 30. CPC said it expects no material gain or loss on the sale, which is subject "
    "to approval by the European Commission and other regulators. Analysts at two brokerages "
    "said more disposals were likely before the end of the year as companies refocus."
)
INDEPENDENT = (
    "Corn prices on the Chicago Board of Trade closed lower on Tuesday after the weekly export "
    "inspections report disappointed traders, who had expected stronger shipments to Japan and "
    "the Soviet Union. Soybeans finished mixed while wheat gained on short covering ahead of the "
    "government's planting intentions report due at the end of the month."
)


def doc(doc_id, text, *, host="wire.example.com", hours=0.0, wayback_hours=None, dated=True):
    return {
        "doc_id": doc_id,
        "text": text,
        "host": host,
        "published_at": T0 + timedelta(hours=hours) if dated else None,
        "wayback_first_seen": T0 + timedelta(hours=wayback_hours)
        if wayback_hours is not None
        else None,
    }


def frame(rows):
    return pl.DataFrame(
        rows,
        schema={
            "doc_id": pl.String,
            "text": pl.String,
            "host": pl.String,
            "published_at": pl.Datetime("us", "UTC"),
            "wayback_first_seen": pl.Datetime("us", "UTC"),
        },
    )


@pytest.fixture
def pool():
    rows = [
        doc("origin", ORIGIN, hours=0),
        doc(
            "copy_furniture",
            "Home | Markets | World\n" + ORIGIN + "\nShare this article",
            host="ledger.example.com",
            hours=3,
        ),
        doc("copy_curly", ORIGIN.replace("'", "\u2019"), host="post.example.com", hours=5),
        doc("copy_truncated", ORIGIN[: len(ORIGIN) // 2], host="times.example.org", hours=6),
        doc("copy_undated", ORIGIN + " REUTER", host="hub.example.net", dated=False),
        doc("derived", DERIVED, host="ledger.example.com", hours=8),
        doc("independent", INDEPENDENT, hours=2),
        doc("other", OTHER, hours=1),
    ]
    return frame(rows)


def edge_map(edges):
    return {
        frozenset((r["parent_doc_id"], r["child_doc_id"])): r for r in edges.iter_rows(named=True)
    }


def test_output_frames_follow_the_schemas(pool):
    res = build_lineage(pool)
    assert res.signatures.columns == SIGNATURES_SCHEMA.names
    assert res.edges.columns == LINEAGE_EDGES_SCHEMA.names
    assert res.origins.columns == ORIGINS_SCHEMA.names
    assert res.signatures.height == res.origins.height == pool.height
    assert set(res.signatures["config"]) == {str(LineageConfig().minhash)}
    # round trip through the pyarrow schemas
    res.edges.to_arrow().cast(LINEAGE_EDGES_SCHEMA)
    res.origins.to_arrow().cast(ORIGINS_SCHEMA)
    res.signatures.to_arrow().cast(SIGNATURES_SCHEMA)


def test_copies_derivation_and_independents(pool):
    res = build_lineage(pool)
    edges = edge_map(res.edges)
    syn = edges[frozenset(("origin", "copy_furniture"))]
    assert syn["kind"] == EdgeKind.SYNDICATION
    assert syn["parent_doc_id"] == "origin"
    assert syn["direction_basis"] == DirectionBasis.ORIGIN_TIME
    assert (
        edges[frozenset(("origin", "copy_truncated"))]["kind"] == EdgeKind.SYNDICATION
    )  # by containment
    assert edges[frozenset(("origin", "copy_truncated"))]["containment"] >= 0.9
    quote = edges[frozenset(("origin", "derived"))]
    assert quote["kind"] == EdgeKind.QUOTE
    assert quote["parent_doc_id"] == "origin"
    assert quote["shared_passage_chars"] >= 100
    origins = dict(zip(res.origins["doc_id"], res.origins["origin_doc_id"], strict=True))
    for d in (
        "copy_furniture",
        "copy_curly",
        "copy_truncated",
        "copy_undated",
        "derived",
        "origin",
    ):
        assert origins[d] == "origin", d
    assert origins["independent"] == "independent"
    assert origins["other"] == "other"
    assert count_independent_origins(pool["doc_id"], res.origins) == 3
    assert not any("independent" in pair for pair in edges)


def test_two_copies_count_once_without_their_origin(pool):
    res = build_lineage(pool)
    assert count_independent_origins(["copy_curly", "copy_undated"], res.origins) == 1
    assert count_independent_origins(["copy_curly", "independent", "unknown_doc"], res.origins) == 3
    assert count_independent_origins([], res.origins) == 0
    assert lineage_members("copy_curly", res.origins) >= {"origin", "derived", "copy_truncated"}
    assert lineage_members("nowhere", res.origins) == {"nowhere"}


def test_wayback_capture_before_a_later_update_decides_direction():
    rows = [
        doc("origin", ORIGIN, hours=10, wayback_hours=0),  # re-dated: updated later, captured first
        doc("copy", "Home | Markets\n" + ORIGIN, host="ledger.example.com", hours=4),
    ]
    res = build_lineage(frame(rows))
    (edge,) = res.edges.iter_rows(named=True)
    assert edge["parent_doc_id"] == "origin"
    assert edge["is_directed"]
    assert res.origins.filter(pl.col("doc_id") == "copy")["origin_doc_id"].item() == "origin"


def test_undated_pair_is_undirected_or_decided_by_containment():
    rows = [
        doc("a", ORIGIN, dated=False),
        doc(
            "b",
            ORIGIN + "\nCopyright 1987 Daily Ledger. All rights reserved.",
            host="x.example",
            dated=False,
        ),
    ]
    res = build_lineage(frame(rows), config=LineageConfig(containment_tie_break=False))
    (edge,) = res.edges.iter_rows(named=True)
    assert not edge["is_directed"]
    assert edge["direction_basis"] == DirectionBasis.UNDIRECTED
    assert res.origins["in_cycle"].all()
    assert res.origins["origin_doc_id"].n_unique() == 1
    res = build_lineage(frame(rows), config=LineageConfig(containment_tie_break=True))
    (edge,) = res.edges.iter_rows(named=True)
    assert edge["is_directed"]
    assert edge["direction_basis"] == DirectionBasis.CONTAINMENT
    assert edge["parent_doc_id"] == "a"  # the copy holds the original plus furniture
    assert any("neither published_at nor wayback_first_seen" in n for n in res.notes)


def test_compute_origins_condenses_cycles_and_picks_earliest_root():
    edges = pl.DataFrame(
        {
            "parent_doc_id": ["a", "b", "c", "x"],
            "child_doc_id": ["b", "a", "d", "d"],
            "kind": ["syndication", "syndication", "syndication", "syndication"],
            "jaccard": [1.0] * 4,
            "containment": [1.0] * 4,
            "shared_passage_chars": [None] * 4,
            "direction_basis": ["origin_time"] * 4,
            "is_directed": [True] * 4,
        },
        schema_overrides={"shared_passage_chars": pl.Int32},
    )
    times = {"a": 5, "b": 3, "c": 1, "x": 2, "d": 9}
    out = compute_origins(["a", "b", "c", "d", "x", "lonely"], edges, origin_times=times)
    got = dict(zip(out["doc_id"], out["origin_doc_id"], strict=True))
    assert got["a"] == got["b"] == "b"  # the cycle a<->b is named by its earliest member
    assert got["d"] == "c"  # reached from roots c and x: the earliest wins
    assert got["lonely"] == "lonely"
    cyc = dict(zip(out["doc_id"], out["in_cycle"], strict=True))
    assert cyc["a"]
    assert cyc["b"]
    assert not cyc["d"]
    lin = dict(zip(out["doc_id"], out["lineage_id"], strict=True))
    assert lin["c"] == lin["d"] == lin["x"]
    assert lin["a"] == lin["b"] != lin["c"]


def test_incremental_run_equals_a_run_from_scratch(pool):
    config = LineageConfig()
    first = pool.filter(pl.col("doc_id").is_in(["origin", "independent", "other", "copy_curly"]))
    rest = pool.filter(~pl.col("doc_id").is_in(first["doc_id"].to_list()))
    stored = build_lineage(first, config=config)
    inc = update_lineage(
        rest,
        stored_docs=first,
        stored_signatures=stored.signatures,
        stored_edges=stored.edges,
        config=config,
    )
    scratch = build_lineage(pool, config=config)
    assert sorted(inc.signatures["doc_id"]) == sorted(rest["doc_id"])
    merged_sigs = pl.concat([stored.signatures, inc.signatures]).sort("doc_id")
    assert merged_sigs.equals(scratch.signatures.sort("doc_id"))
    merged_edges = pl.concat([stored.edges, inc.edges]).sort("parent_doc_id", "child_doc_id")
    assert merged_edges.equals(scratch.edges.sort("parent_doc_id", "child_doc_id"))
    assert inc.origins.sort("doc_id").equals(scratch.origins.sort("doc_id"))
    # new edges all touch a new document
    new_ids = set(rest["doc_id"])
    assert all(
        {r["parent_doc_id"], r["child_doc_id"]} & new_ids for r in inc.edges.iter_rows(named=True)
    )


def test_incremental_skips_documents_already_stored(pool):
    stored = build_lineage(pool)
    inc = update_lineage(
        pool.head(2),
        stored_docs=pool,
        stored_signatures=stored.signatures,
        stored_edges=stored.edges,
    )
    assert inc.signatures.height == 0
    assert inc.edges.height == 0
    assert inc.origins.equals(stored.origins)
    assert any("already stored" in n for n in inc.notes)


def test_bad_input_is_handled_and_explained():
    rows = [
        doc("empty", ""),
        doc("blank", "   \n\t "),
        doc("short", "Oil up", hours=1),
        doc("short_copy", "OIL UP!", hours=2),
        doc("bytes", "placeholder", hours=3),
        doc("nodate", ORIGIN, dated=False),
        doc("dated", ORIGIN, hours=4),
        {
            "doc_id": "dated",
            "text": "a duplicate id",
            "host": None,
            "published_at": None,
            "wayback_first_seen": None,
        },
        {
            "doc_id": "nulltext",
            "text": None,
            "host": None,
            "published_at": None,
            "wayback_first_seen": None,
        },
    ]
    texts = [r["text"].encode() if r["text"] is not None else None for r in rows]
    texts[4] = b"Caf\xe9 prices rose sharply in \xff\xfe Paris today"  # not UTF-8
    docs = frame(rows).with_columns(text=pl.Series(texts, dtype=pl.Binary))
    res = build_lineage(docs)
    notes = " | ".join(res.notes)
    assert "not valid UTF-8" in notes
    assert "no words" in notes
    assert "shorter than one 3-word shingle" in notes
    assert "duplicate doc_id" in notes
    assert "neither published_at" in notes
    origins = dict(zip(res.origins["doc_id"], res.origins["origin_doc_id"], strict=True))
    assert origins["empty"] == "empty"
    assert origins["blank"] == "blank"
    assert origins["short_copy"] == "short"  # exact copies of short texts still match
    assert origins["nodate"] == origins["dated"]
    assert res.origins.height == 8


def test_missing_required_columns_raise():
    with pytest.raises(ValueError, match="doc_id"):
        build_lineage(pl.DataFrame({"text": ["x"]}))


def test_optional_columns_and_string_times_are_accepted():
    docs = pl.DataFrame(
        {
            "doc_id": ["a", "b"],
            "text": [ORIGIN, ORIGIN],
            "published_at": ["1987-03-24T10:00:00Z", "1987-03-25T10:00:00Z"],
        }
    )
    res = build_lineage(docs)
    (edge,) = res.edges.iter_rows(named=True)
    assert edge["parent_doc_id"] == "a"
    assert edge["direction_basis"] == DirectionBasis.ORIGIN_TIME


def test_ten_thousand_copies_of_one_story():
    n = 10_000
    rows = {
        "doc_id": [f"c{i:05d}" for i in range(n)],
        "text": [ORIGIN] * n,
        "host": [f"h{i % 50}.example" for i in range(n)],
        "published_at": [T0 + timedelta(minutes=i) for i in range(n)],
    }
    res = build_lineage(pl.DataFrame(rows))
    assert res.origins["origin_doc_id"].unique().to_list() == ["c00000"]
    assert res.edges.height < 5 * n  # linked as a star, not 5*10^7 pairs
    assert any("linked to one member" in note for note in res.notes)
    assert count_independent_origins(rows["doc_id"][5:50], res.origins) == 1


def test_incremental_from_nothing_stored_equals_scratch(pool):
    empty_docs = pool.head(0)
    inc = update_lineage(
        pool, stored_docs=empty_docs, stored_signatures=pl.DataFrame(), stored_edges=pl.DataFrame()
    )
    scratch = build_lineage(pool)
    assert inc.signatures.sort("doc_id").equals(scratch.signatures.sort("doc_id"))
    assert inc.edges.equals(scratch.edges)
    assert inc.origins.equals(scratch.origins)


def _quote_edges(rows: list[tuple[str, str, int]]) -> pl.DataFrame:
    n = len(rows)
    return pl.DataFrame(
        {
            "parent_doc_id": [r[0] for r in rows],
            "child_doc_id": [r[1] for r in rows],
            "kind": ["quote"] * n,
            "jaccard": [0.0] * n,
            "containment": [0.0] * n,
            "shared_passage_chars": [r[2] for r in rows],
            "direction_basis": ["origin_time"] * n,
            "is_directed": [True] * n,
        },
        schema_overrides={"shared_passage_chars": pl.Int32},
    )


def test_quote_tier_keeps_the_strongest_parent_only_when_asked():
    # d quotes origin b at length (a sentence) and shares a short stock phrase with earlier a
    edges = _quote_edges([("a", "d", 60), ("b", "d", 180)])
    times = {"a": 1, "b": 2, "d": 3}
    every = compute_origins(["a", "b", "d"], edges, origin_times=times)
    single = compute_origins(["a", "b", "d"], edges, origin_times=times, quote_single_parent=True)
    got_every = dict(zip(every["doc_id"], every["origin_doc_id"], strict=True))
    got_single = dict(zip(single["doc_id"], single["origin_doc_id"], strict=True))
    assert got_every["d"] == "a"  # every arc counts: the earliest root reaching d
    assert got_single["d"] == "b"  # the strongest arc only
    assert got_single["a"] == "a"
    assert got_single["b"] == "b"


def test_pair_sharing_many_separate_fragments_gets_no_quote_edge():
    base = (
        "the central bank said the narrowly defined money supply rose in the latest week "
        "while the broad measure of liquid assets in public hands was little changed "
    )
    fragments = [
        "weekly figures released by the monetary authority on friday afternoon showed",
        "commercial lending to businesses and households across the country increased",
        "deposits held at chartered banks by foreign residents and companies declined",
        "analysts polled before the release had expected a somewhat smaller change",
        "the statement gave no reason for the movement in the seasonally adjusted",
    ]
    text_a = " alpha one. ".join(fragments) + " " + base
    text_b = " bravo two three. ".join(fragments) + " unrelated closing words here"
    docs = pl.DataFrame(
        {
            "doc_id": ["a", "b"],
            "text": [text_a, text_b],
            "host": ["one.example", "two.example"],
            "published_at": [datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 1, 2, tzinfo=UTC)],
        }
    )
    base_config = LineageConfig(quote_full_sentence=False, derivation_jaccard=0.99)
    loose = build_lineage(docs, config=dataclasses.replace(base_config, quote_max_runs=0))
    strict = build_lineage(docs, config=dataclasses.replace(base_config, quote_max_runs=4))
    assert loose.edges.filter(pl.col("kind") == EdgeKind.QUOTE).height == 1
    assert strict.edges.filter(pl.col("kind") == EdgeKind.QUOTE).height == 0


def _two_docs(text_a: str, text_b: str) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "doc_id": ["a", "b"],
            "text": [text_a, text_b],
            "host": ["one.example", "two.example"],
            "published_at": [datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 1, 2, tzinfo=UTC)],
        }
    )


_STOCK = "the energy information administration said in its weekly petroleum status report"
_QUOTED = "Output at the northern refinery fell by a third after the storm closed two units."


def test_quote_edge_needs_a_whole_sentence_on_one_side():
    stock = _two_docs(
        f"Crude stocks rose sharply, {_STOCK} on Wednesday. Traders were surprised by it.",
        f"Gasoline demand slipped, {_STOCK} that was released late. Prices hardly moved.",
    )
    quoted = _two_docs(
        "Storm damage was wide along the coast and several ports stayed shut for days. "
        f"{_QUOTED} Repairs may take a month, the operator said in a statement on Monday.",
        "Analysts cut their forecasts for the quarter as margins narrowed in most regions. "
        f"A report said {_QUOTED[0].lower()}{_QUOTED[1:]} Shares of the group fell four "
        "percent in early trading and bond spreads widened against the benchmark.",
    )
    rule = LineageConfig(quote_full_sentence=True, quote_sentence_exempt_chars=0)
    loose = LineageConfig(quote_full_sentence=False)
    n_quotes = lambda res: res.edges.filter(pl.col("kind") == EdgeKind.QUOTE).height  # noqa: E731
    assert n_quotes(build_lineage(stock, config=loose)) == 1
    assert n_quotes(build_lineage(stock, config=rule)) == 0  # a fragment of two sentences
    assert n_quotes(build_lineage(quoted, config=rule)) == 1  # whole in a, attributed in b
    long_rule = LineageConfig(quote_full_sentence=True, quote_sentence_exempt_chars=60)
    assert n_quotes(build_lineage(stock, config=long_rule)) == 1  # long enough to need none
    headline = "Bundesbank reported to have no plan for a rate cut in the spring"
    related = _two_docs(
        "Crude stocks rose sharply on Wednesday as imports climbed to a four month high. "
        "Traders were surprised by the size of the build at the main delivery hub."
        f"\nRelated\n{headline}\nStocks at the hub are watched for signs of demand.",
        "Gasoline demand slipped again in the latest week while refinery runs edged up. "
        f"Prices hardly moved in thin trade before the long weekend.\nRelated\n{headline}\n"
        "Refiners will report their results next month.",
    )
    line_is_sentence = dataclasses.replace(rule, quote_sentence_needs_stop=False)
    assert n_quotes(build_lineage(related, config=line_is_sentence)) == 1
    assert n_quotes(build_lineage(related, config=rule)) == 0  # a headline is no sentence


_FOOTER = (
    "Most read: Council approves new cycle lanes. Follow Quayside Wire on social media for "
    "the latest updates."
)
_MENU = "Quayside Wire | News | Business | Sport | Weather"


def test_furniture_repeated_on_one_host_never_makes_a_quote_edge():
    """Furniture of one host links nothing, even on too few pages for the many-clusters rule.

    A footer and a menu on two unrelated stories and a copy of a wire story on one host (3
    clusters) make no quote edge; the copy stays in its story's lineage, and a rewrite on
    another host that quotes the story still joins it.
    """
    stories = [
        "A record number of runners signed up for the harbour half marathon, organisers said. "
        "The route avoids the bridge works and water stations stand every three kilometres.",
        "The county orchard survey found that apple yields fell by a fifth after the late "
        "frost. Growers asked for help with new netting before the next season begins.",
    ]
    rows = [doc("origin", ORIGIN, host="cpc.example.com", hours=0)]
    rows.append(doc("copy", f"{_MENU}\n\n{ORIGIN}\n\n{_FOOTER}", host="quayside.example", hours=2))
    for n, body in enumerate(stories):
        rows.append(
            doc(f"story{n}", f"{_MENU}\n\n{body}\n\n{_FOOTER}", host="quayside.example",
                hours=3 + n)
        )
    rows.append(doc("derived", DERIVED, host="ledger.example.com", hours=8))
    res = build_lineage(frame(rows))
    quotes = res.edges.filter(pl.col("kind") == EdgeKind.QUOTE.value)
    on_host = {"story0", "story1", "copy"}
    for r in quotes.iter_rows(named=True):
        assert not {r["parent_doc_id"], r["child_doc_id"]} <= on_host, r
    origin_of = dict(zip(res.origins["doc_id"], res.origins["origin_doc_id"], strict=True))
    assert origin_of["copy"] == "origin"
    assert origin_of["derived"] == "origin"
    assert origin_of["story0"] == "story0"
    assert origin_of["story1"] == "story1"
    assert count_independent_origins(origin_of, origin_of) == 3
    # without the one-host rule the footer chains the unrelated stories into one lineage
    lax = LineageConfig(
        passages=dataclasses.replace(LineageConfig().passages, furniture_own_host_clusters=0)
    )
    lax_origins = build_lineage(frame(rows), config=lax).origins
    assert lax_origins["origin_doc_id"].n_unique() < 3


def test_quoted_fragment_with_a_figure_joins_the_origin_lineage():
    """A rewrite that sets a distinctive fragment (not a whole sentence) of its origin in
    quotation marks joins the origin's lineage; an unquoted fragment or one without a
    figure (an official's stock wording) does not."""
    origin = (
        "Kestrel Analytics reported revenue of 42 million dollars for the second quarter, "
        "an increase of 18 percent on the same quarter of 2024, driven by new contracts in "
        "logistics. The company will hold an investor call on Friday."
    )
    fragment = "an increase of 18 percent on the same quarter of 2024"
    rewrite = (
        "Shares in the data firm climbed on Wednesday after it described quarterly sales as "
        f"\u201c{fragment}\u201d in its statement. Analysts at two banks raised their targets "
        "and said rivals would struggle to match its pricing this year."
    )
    unquoted = rewrite.replace("\u201c", "").replace("\u201d", "")
    n_quotes = lambda res: res.edges.filter(pl.col("kind") == EdgeKind.QUOTE).height  # noqa: E731
    res = build_lineage(_two_docs(origin, rewrite))
    assert n_quotes(res) == 1
    assert res.origins["origin_doc_id"].to_list() == ["a", "a"]
    assert n_quotes(build_lineage(_two_docs(origin, unquoted))) == 0
    off = LineageConfig(quote_marked_fragments=False)
    assert n_quotes(build_lineage(_two_docs(origin, rewrite), config=off)) == 0
    wording = "within ranges broadly consistent with economic fundamentals and stable growth"
    no_figure = _two_docs(
        f"Finance ministers agreed on Sunday to keep exchange rates {wording}, officials said "
        "after the meeting. The next talks are due in the spring.",
        f"The dollar firmed after ministers vowed to hold currencies \u201c{wording}\u201d in "
        "a communique. Traders expect little change before the data next week.",
    )
    assert n_quotes(build_lineage(no_figure)) == 0


def test_short_stock_sentence_of_a_template_makes_no_quote_edge():
    """A template's short stock sentence plus a furniture line, on two hosts, links nothing."""
    tail = (
        "[\u2026] Continue reading at the original source.\n"
        "Related: Pictures: the annual duck race"
    )
    stories = _two_docs(
        "Rail punctuality rose to 91 percent last year as new trains entered service on the "
        f"coast line, the operator said.\n\n{tail}\nRail Daily 2025",
        "The machine tool maker will close its assembly plant by the end of the year and move "
        f"the work to its main site, it said.\n\n{tail}\nTicker 2025",
    )
    n_quotes = lambda res: res.edges.filter(pl.col("kind") == EdgeKind.QUOTE).height  # noqa: E731
    assert n_quotes(build_lineage(stories)) == 0
    assert n_quotes(build_lineage(stories, config=LineageConfig(quote_min_sentence_words=1))) == 1


_RELEASE = (
    "Harlow Turbines said on Monday that it had won an order for 40 offshore wind turbines "
    "worth 310 million euros from a Baltic utility. Deliveries of the turbines will begin in "
    "the spring of 2026 and run for two years. The company expects the order to keep its "
    "Rostock plant busy until the end of the decade."
)
_QUOTED_SENTENCE = (
    "Deliveries of the turbines will begin in the spring of 2026 and run for two years."
)
_OWN_WORDS = [
    "Wind power shares rose in Frankfurt as traders bet on more orders from the region.",
    "The utility has struggled with grid connections on the coast for several winters.",
    "Unions at the yard welcomed the news after months of uncertainty about short time work.",
    "Analysts said prices for large turbines had stabilised after two years of increases.",
]


_TAILS = [
    "Its shares closed two percent higher in a quiet market on Monday afternoon.",
    "The regional government called the contract a vote of confidence in the port.",
    "Competitors from Denmark and Spain had also bid for the work, people said.",
    "Harlow will publish its third quarter figures at the end of October as planned.",
]


def test_quote_edges_form_a_forest_and_skip_compilations():
    """Rewrites quoting one sentence each get one quote edge (to the source), not a clique;
    a later page made of other stories' passages gets no quote parent."""
    rows = [doc("release", _RELEASE, host="harlow.example", hours=0)]
    for n, own in enumerate(_OWN_WORDS):
        text = f"{own} {_QUOTED_SENTENCE} {_TAILS[n]}"
        rows.append(doc(f"rewrite{n}", text, host=f"news{n}.example", hours=2 + n))
    rows += [doc("other", OTHER, host="wire.example", hours=1),
             doc("independent", INDEPENDENT, host="grain.example", hours=1.5)]
    first = lambda text: text.split(". ")[0] + "."  # noqa: E731
    digest = (
        f"In deals: {first(OTHER)}\n\nIn grains: {first(INDEPENDENT)}\n\nAnd in energy: "
        f"{_QUOTED_SENTENCE} More next week."
    )
    rows.append(doc("digest", digest, host="digest.example", hours=12))
    res = build_lineage(frame(rows))
    quotes = res.edges.filter(pl.col("kind") == EdgeKind.QUOTE.value)
    assert quotes["child_doc_id"].is_unique().all()
    assert set(quotes["child_doc_id"]) == {f"rewrite{n}" for n in range(4)}
    assert set(quotes["parent_doc_id"]) == {"release"}
    origin_of = dict(zip(res.origins["doc_id"], res.origins["origin_doc_id"], strict=True))
    assert origin_of["digest"] == "digest"
    lax = build_lineage(frame(rows), config=LineageConfig(quote_max_foreign=2)).origins
    assert lax.filter(pl.col("doc_id") == "digest")["origin_doc_id"].item() != "digest"
    cliques = build_lineage(frame(rows), config=LineageConfig(quote_forest=False))
    n_clique = cliques.edges.filter(pl.col("kind") == EdgeKind.QUOTE.value).height
    assert n_clique > quotes.height



def test_stock_sentences_under_the_link_bar_do_not_make_a_compilation():
    """Passages too short to join lineages among this many documents are stock phrases any
    story may share by chance: they do not make a rewrite a compilation."""
    stock_a = "Traders in Oslo said the quarter looked better than feared."
    stock_b = "Markets in Tokyo were closed for a public holiday on Monday."
    rows = [
        doc("release", _RELEASE, host="harlow.example", hours=0),
        doc("wire_a", f"{_OWN_WORDS[0]} {stock_a} {_TAILS[0]}", host="a.example", hours=1),
        doc("wire_b", f"{_OWN_WORDS[1]} {stock_b} {_TAILS[1]}", host="b.example", hours=2),
        doc("other", OTHER, host="wire.example", hours=3),
        doc("independent", INDEPENDENT, host="grain.example", hours=4),
        doc(
            "rewrite",
            f"{_OWN_WORDS[2]} {stock_a} {_QUOTED_SENTENCE} {_TAILS[2]} {stock_b} {_TAILS[3]}",
            host="news.example",
            hours=12,
        ),
    ]
    # a bar of 40 + 40 * log10(6) = 71 characters: over the stock sentences (59 and 60
    # characters), under the quoted one (82)
    config = LineageConfig(quote_chars_per_decade=40.0, quote_base_docs=1)
    assert 60 < config.quote_link_chars(len(rows)) <= len(_QUOTED_SENTENCE)
    res = build_lineage(frame(rows), config=config)
    origin_of = dict(zip(res.origins["doc_id"], res.origins["origin_doc_id"], strict=True))
    assert origin_of["rewrite"] == "release"
    # at the bar of a few documents (40) the two stock sentences are passages it shares with
    # two other lineages: a compilation
    plain = build_lineage(frame(rows)).origins
    assert plain.filter(pl.col("doc_id") == "rewrite")["origin_doc_id"].item() == "rewrite"

def test_intersection_sizes_equal_intersect1d_in_any_batch(monkeypatch):
    import numpy as np

    import affidavit.tasks.lineage as lineage_module
    from affidavit.tasks.lineage import intersection_sizes

    rng = np.random.default_rng(0)
    sets = [
        np.unique(rng.integers(0, 300, rng.integers(0, 200)).astype(np.uint64))
        for _ in range(200)
    ]
    offsets = np.zeros(len(sets) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(x) for x in sets])
    hashes = np.concatenate(sets)
    a, b = rng.integers(0, 200, 3000), rng.integers(0, 200, 3000)
    want = [len(np.intersect1d(sets[x], sets[y])) for x, y in zip(a, b, strict=True)]
    assert intersection_sizes(hashes, offsets, a, b).tolist() == want
    monkeypatch.setattr(lineage_module, "_VERIFY_BATCH_HASHES", 500)
    assert intersection_sizes(hashes, offsets, a, b).tolist() == want


def _from_store(
    first: pl.DataFrame, rest: pl.DataFrame, config: LineageConfig, *, hashes: bool = True
):
    """Build on ``first``, then add ``rest`` from the stored material alone (no stored text),
    with the material packed (as the warehouse keeps it) or its lists only."""
    stored = build_lineage(first, config=config)
    inc = update_lineage(
        rest,
        stored_docs=first.drop("text"),
        stored_signatures=stored.signatures,
        stored_edges=stored.edges,
        stored_passages=stored.passages.lazy(),
        stored_furniture=stored.furniture,
        stored_packed=passage_packed_rows(stored.passages).lazy() if hashes else None,
        config=config,
    )
    return stored, inc


@pytest.mark.parametrize("hashes", [True, False])
@pytest.mark.parametrize(
    "first_ids",
    [
        ["origin", "independent", "other", "copy_curly"],
        ["derived", "copy_furniture", "other"],
        ["origin"],
    ],
)
def test_update_from_stored_passages_equals_a_build_from_scratch(pool, first_ids, hashes):
    config = LineageConfig()
    first = pool.filter(pl.col("doc_id").is_in(first_ids))
    rest = pool.filter(~pl.col("doc_id").is_in(first_ids))
    stored, inc = _from_store(first, rest, config, hashes=hashes)
    scratch = build_lineage(pool, config=config)
    edges = pl.concat([stored.edges, inc.edges]).sort("parent_doc_id", "child_doc_id")
    assert edges.equals(scratch.edges.sort("parent_doc_id", "child_doc_id"))
    assert inc.origins.sort("doc_id").equals(scratch.origins.sort("doc_id"))
    sigs = pl.concat([stored.signatures, inc.signatures]).sort("doc_id")
    assert sigs.equals(scratch.signatures.sort("doc_id"))
    mats = pl.concat([stored.passages, inc.passages]).sort("doc_id")
    assert mats.equals(scratch.passages.sort("doc_id"))
    assert sorted(inc.passages["doc_id"]) == sorted(rest["doc_id"])


def test_update_from_stored_passages_keeps_known_furniture_out():
    # a host footer on three unrelated stories is furniture; a fourth story of the host added
    # later shares only the footer with them and gets no quote edge from it
    footer = (
        "MetroWire is an independent newsroom covering the city since 1998. Our reporting is "
        "supported by readers like you."
    )
    rows = [
        doc(f"s{i}", f"{t}\n{footer}", host="metro.example", hours=i)
        for i, t in enumerate([ORIGIN, OTHER, INDEPENDENT, DERIVED])
    ]
    pool = frame(rows)
    config = LineageConfig()
    first, rest = pool.head(3), pool.tail(1)
    stored, inc = _from_store(first, rest, config)
    assert stored.furniture.height > 0
    scratch = build_lineage(pool, config=config)
    edges = pl.concat([stored.edges, inc.edges]).sort("parent_doc_id", "child_doc_id")
    assert edges.equals(scratch.edges.sort("parent_doc_id", "child_doc_id"))
    assert not inc.edges.filter(pl.col("kind") == EdgeKind.QUOTE.value).height


def test_update_without_material_or_text_raises(pool):
    stored = build_lineage(pool.head(3))
    with pytest.raises(ValueError, match="passage material"):
        update_lineage(
            pool.tail(2),
            stored_docs=pool.head(3).drop("text"),
            stored_signatures=stored.signatures,
            stored_edges=stored.edges,
            stored_passages=stored.passages.head(1),
        )


def test_passage_packed_rows_pack_the_lists_and_read_back_flat(pool):
    from affidavit.tasks.lineage import _PACKED_DTYPES, _flat, _unpack

    quoted = doc("quoted", 'The minister said "the sale will close by Friday" on Monday.')
    mats = build_lineage(pl.concat([pool, frame([quoted])])).passages
    mats = pl.concat([mats, mats.head(1).with_columns(  # a document with no words
        doc_id=pl.lit("empty"), word_hashes=pl.lit([], dtype=pl.List(pl.UInt64)),
        ngram_hashes=pl.lit([], dtype=pl.List(pl.UInt64)))])
    rows = passage_packed_rows(mats)
    assert rows.columns == ["doc_id", "config", "word_hashes", "ngram_hashes",
                            "sentence_words", "quoted_words"]
    assert rows["doc_id"].to_list() == mats["doc_id"].to_list()
    assert mats["quoted_words"].list.len().sum() > 0
    for col, dtype in _PACKED_DTYPES.items():
        for start in (0, 2):  # a slice starts inside the bytes
            got_v, got_off = _unpack(rows.slice(start)[col], dtype)
            v, off = _flat(mats.slice(start)[col], got_v.dtype)
            assert got_v.tolist() == v.tolist(), col
            assert np.array_equal(got_off, off)
        n = mats[col].list.len()[0]
        assert len(rows[col][0]) == n * np.dtype(dtype).itemsize
    with pytest.raises(ValueError, match="8-byte"):
        _unpack(pl.Series([b"\x01\x02\x03"], dtype=pl.Binary), "<u8")


@pytest.mark.parametrize("sizes", [[0, 3, 0, 2, 5, 0], [0, 3, 0, 1, 5], [0, 0], [40] * 30])
def test_packed_runs_read_what_unpack_reads(sizes):
    # runs of rows read in place, rows of one value (8 bytes, held in Polars' views) and
    # empty rows, in one chunk and in two
    from affidavit.tasks.lineage import _packed_runs, _unpack

    col = pl.Series(
        [np.arange(k, dtype="<u8").tobytes() for k in sizes], dtype=pl.Binary
    )
    for c in (col, pl.concat([col, col.slice(1)], rechunk=False)):
        want_v, want_off = _unpack(c, "<u8")
        rows = []
        for first, vals, off in _packed_runs(c, "<u8"):
            assert off[0] == 0
            rows.extend((first + r, vals[off[r] : off[r + 1]].tolist())
                        for r in range(len(off) - 1))
        assert [r for r, _ in rows] == list(range(len(c)))
        assert [v for _, v in rows] == [
            want_v[want_off[r] : want_off[r + 1]].tolist() for r in range(len(c))
        ]


def test_maybe_in_passes_every_value_found_whatever_the_values(monkeypatch):
    import affidavit.tasks.lineage as lineage_module
    from affidavit.tasks.lineage import _maybe_in, _prefilter_table

    rng = np.random.default_rng(5)
    values = rng.integers(0, 2**63, 5000, dtype=np.int64).astype(np.uint64)
    among = np.unique(np.concatenate([values[::7], rng.integers(0, 2**63, 300).astype(np.uint64)]))
    small = np.arange(50, dtype=np.uint64)  # one top-bits bucket: every value passes
    monkeypatch.setattr(lineage_module, "_PREFILTER_CHUNK", 1000)
    for vals, amg in [(values, among), (small, small[::3]), (values[:0], among)]:
        got = _maybe_in(vals, _prefilter_table(amg))
        assert set(np.flatnonzero(np.isin(vals, amg)).tolist()) <= set(got.tolist())
        assert got.tolist() == sorted(set(got.tolist()))
    assert len(_maybe_in(values, _prefilter_table(among))) < len(values) // 2  # most fail
    assert _maybe_in(small, _prefilter_table(small[::3])).tolist() == list(range(50))
    assert _maybe_in(values, _prefilter_table(among[:0])).tolist() == []
    big = np.arange(1 << 20, dtype=np.uint64)  # too many for the table: every value passes
    assert _prefilter_table(big) is None
    assert _maybe_in(values, None).tolist() == list(range(len(values)))


def test_update_reads_the_packed_material_not_the_lists(pool):
    # the lists of the stored material emptied: an update given it packed still equals a
    # build from scratch, so it read the packed rows; with a stored document missing from
    # them it says so and reads the lists
    config = LineageConfig()
    first = pool.filter(pl.col("doc_id").is_in(["origin", "independent", "other"]))
    rest = pool.filter(~pl.col("doc_id").is_in(first["doc_id"].implode()))
    stored = build_lineage(first, config=config)
    emptied = stored.passages.with_columns(
        word_hashes=pl.lit([], dtype=pl.List(pl.UInt64)),
        ngram_hashes=pl.lit([], dtype=pl.List(pl.UInt64)),
        sentence_words=pl.lit([], dtype=pl.List(pl.Int32)),
        quoted_words=pl.lit([], dtype=pl.List(pl.Int32)),
    )
    kwargs = dict(
        stored_docs=first.drop("text"),
        stored_signatures=stored.signatures,
        stored_edges=stored.edges,
        stored_furniture=stored.furniture,
        config=config,
    )
    inc = update_lineage(rest, stored_passages=emptied.lazy(),
                         stored_packed=passage_packed_rows(stored.passages).lazy(), **kwargs)
    scratch = build_lineage(pool, config=config)
    key = ["parent_doc_id", "child_doc_id"]
    assert inc.edges.filter(pl.col("kind") == EdgeKind.QUOTE.value).height
    assert pl.concat([stored.edges, inc.edges]).sort(key).equals(scratch.edges.sort(key))
    assert inc.origins.sort("doc_id").equals(scratch.origins.sort("doc_id"))
    assert not any("packed" in n for n in inc.notes)
    rows = passage_packed_rows(stored.passages)
    twice = update_lineage(rest, stored_passages=emptied.lazy(),
                           stored_packed=pl.concat([rows, rows.head(1)]), **kwargs)
    assert twice.edges.equals(inc.edges)  # a document stored twice counts once
    partial = update_lineage(rest, stored_passages=stored.passages.lazy(),
                             stored_packed=passage_packed_rows(stored.passages.head(2)), **kwargs)
    assert any("1 stored document(s) had no packed passage material" in n for n in partial.notes)
    assert partial.edges.equals(inc.edges)
    assert partial.origins.equals(inc.origins)


def test_update_verifies_a_stored_candidate_sharing_no_passage(pool, monkeypatch):
    # every 8th word changed: the rewrite shares most 3-word shingles with the origin but no
    # 8-word passage n-gram, so the stored origin is read for its words and left out of the
    # passage join
    import affidavit.tasks.lineage as lineage_mod
    from affidavit.tasks.shingles import split_words

    words = split_words(ORIGIN)
    rewrite = " ".join(f"x{i}" if i % 8 == 7 else w for i, w in enumerate(words))
    docs = frame([doc("origin", ORIGIN), doc("rewrite", rewrite, host="b.example", hours=1)])
    skips = []
    find = lineage_mod.find_shared_passages
    monkeypatch.setattr(
        lineage_mod,
        "find_shared_passages",
        lambda *a, **k: skips.append(k.get("skip")) or find(*a, **k),
    )
    stored, inc = _from_store(docs.head(1), docs.tail(1), LineageConfig())
    assert skips[-1] is not None
    assert skips[-1].tolist() == [True, False]
    scratch = build_lineage(docs)
    assert inc.edges.equals(scratch.edges)
    assert inc.edges["kind"].to_list() == [EdgeKind.DERIVATION.value]
    assert inc.origins.equals(scratch.origins)


def _synthetic_archive(n_docs: int, seed: int) -> pl.DataFrame:
    """Documents of random words with what the passage join looks at: copies, rewrites
    quoting one sentence (some in quotation marks, with a figure), loosely edited shared
    paragraphs (echoes), a footer line per host, and a stock sentence many stories carry."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{k}" for k in range(400)] + [f"{k}.5" for k in range(20)]

    def sentence(k: int) -> str:
        words = [vocab[x] for x in rng.integers(0, len(vocab), k)]
        return " ".join([words[0].capitalize(), *words[1:]]) + "."

    paragraphs = [" ".join(sentence(int(rng.integers(9, 16))) for _ in range(5)) for _ in range(30)]
    stock = "The company said in a statement that it expects demand to stay firm next year."
    footers = {h: f"Read more stories from {h} every day of the week on our site." for h in "abcd"}
    texts: list[str] = []
    hosts: list[str] = []
    for i in range(n_docs):
        host = "abcd"[i % 4]
        r = rng.random()
        if i > 5 and r < 0.15:  # a copy of an earlier text, one word changed
            words = texts[int(rng.integers(0, i))].split(" ")
            words[int(rng.integers(0, len(words)))] = "changed"
            body = " ".join(words)
        else:
            parts = [sentence(int(rng.integers(8, 18))) for _ in range(int(rng.integers(6, 14)))]
            if rng.random() < 0.4:  # a shared paragraph, loosely edited (an echo)
                words = paragraphs[int(rng.integers(0, len(paragraphs)))].split(" ")
                for k in rng.integers(0, len(words), len(words) // 6):
                    words[k] = vocab[int(rng.integers(0, len(vocab)))]
                parts.insert(int(rng.integers(0, len(parts))), " ".join(words))
            if i > 5 and r < 0.45:  # a rewrite quoting one sentence of an earlier text
                src = [s for s in texts[int(rng.integers(0, i))].split("\n")[0].split(". ") if s]
                quote = src[int(rng.integers(0, len(src)))].rstrip(".") + "."
                if rng.random() < 0.5:
                    quote = f'She said: "{quote}"'
                parts.insert(int(rng.integers(0, len(parts))), quote)
            if rng.random() < 0.2:
                parts.append(stock)
            body = " ".join(parts)
        texts.append(body if "\n" in body else f"{body}\n{footers[host]}")
        hosts.append(f"{host}.example")
    return frame(
        [
            {
                "doc_id": f"s{i:04d}",
                "text": t,
                "host": h,
                "published_at": T0 + timedelta(hours=i),
                "wayback_first_seen": None,
            }
            for i, (t, h) in enumerate(zip(texts, hosts, strict=True))
        ]
    )


@pytest.mark.parametrize("seed", [3, 11])
def test_update_of_a_larger_archive_equals_a_build_from_scratch(seed, monkeypatch):
    # stored documents meet the new ones through windows of their words around the shared
    # n-grams (``_PassageView``): copies, quotes, echoes, footers and stock sentences must
    # come out as a build of everything gives them; the packed material is scanned a few
    # documents at a time
    import affidavit.tasks.lineage as lineage_module

    monkeypatch.setattr(lineage_module, "_PACKED_BATCH", 7)
    monkeypatch.setattr(lineage_module, "_EXACT_BATCH", 2000)
    docs = _synthetic_archive(240, seed)
    first, rest = docs.head(200), docs.tail(40)
    config = LineageConfig()
    stored, inc = _from_store(first, rest, config)
    _, inc_lists = _from_store(first, rest, config, hashes=False)
    for name in ("edges", "origins", "passages", "furniture", "signatures"):
        a, b = getattr(inc, name), getattr(inc_lists, name)
        assert a.sort(a.columns).equals(b.sort(b.columns)), name
    scratch = build_lineage(docs, config=config)
    key = ["parent_doc_id", "child_doc_id"]
    new_ids = rest["doc_id"].implode()
    touches_new = pl.col("parent_doc_id").is_in(new_ids) | pl.col("child_doc_id").is_in(new_ids)
    want = scratch.edges.filter(touches_new).sort(key)
    assert want.filter(pl.col("kind") == EdgeKind.QUOTE.value).height >= 3
    assert want.filter(pl.col("kind") == EdgeKind.SYNDICATION.value).height >= 1
    assert inc.edges.sort(key).equals(want)
    if scratch.edges.filter(~touches_new).sort(key).equals(stored.edges.sort(key)):
        assert inc.origins.sort("doc_id").equals(scratch.origins.sort("doc_id"))
    # else: new documents changed an edge between two stored ones, which an update keeps
    # the same as an update that reads and splits the stored texts again
    again = update_lineage(
        rest,
        stored_docs=first,
        stored_signatures=stored.signatures,
        stored_edges=stored.edges,
        config=config,
    )
    assert again.edges.sort(key).equals(inc.edges.sort(key))
    assert again.origins.sort("doc_id").equals(inc.origins.sort("doc_id"))


def test_lazy_input_read_in_batches_equals_a_frame(tmp_path, monkeypatch):
    # texts read a batch at a time from a Parquet scan (never all at once) give the same
    # tables as the frame in memory, with duplicate ids, a null id and undecodable bytes
    import affidavit.tasks.lineage as lineage_module

    monkeypatch.setattr(lineage_module, "_PREPARE_BATCH", 7)
    docs = _synthetic_archive(60, 5)
    extra = pl.concat([docs.slice(3, 1), docs.slice(10, 1).with_columns(doc_id=pl.lit(None))])
    docs = pl.concat([docs, extra]).with_columns(text=pl.col("text").cast(pl.Binary))
    bad = docs["text"].to_list()
    bad[4] = bad[4] + b"\xff\xfe caf\xe9"
    docs = docs.with_columns(text=pl.Series(bad, dtype=pl.Binary))
    path = tmp_path / "docs.parquet"
    docs.write_parquet(path, row_group_size=9)
    eager = build_lineage(docs)
    lazy = build_lineage(pl.scan_parquet(path))
    def same(a: pl.DataFrame | pl.LazyFrame, b: pl.DataFrame | pl.LazyFrame) -> bool:
        a, b = _collected(a), _collected(b)  # furniture rows come in any order
        return a.sort(a.columns).equals(b.sort(b.columns))

    for name in ("signatures", "edges", "origins", "passages", "furniture"):
        assert same(getattr(lazy, name), getattr(eager, name)), name
    assert sorted(lazy.notes) == sorted(eager.notes)
    assert any("not valid UTF-8" in n for n in lazy.notes)
    # an update whose new documents come lazily
    first, rest = docs.head(40), pl.scan_parquet(path).slice(40)
    stored = build_lineage(first)
    kwargs = dict(
        stored_docs=first.drop("text"),
        stored_signatures=stored.signatures,
        stored_edges=stored.edges,
        stored_passages=stored.passages.lazy(),
        stored_furniture=stored.furniture,
    )
    inc_lazy = update_lineage(rest, **kwargs)
    inc_eager = update_lineage(rest.collect(), **kwargs)
    for name in ("signatures", "edges", "origins", "passages", "furniture"):
        assert same(getattr(inc_lazy, name), getattr(inc_eager, name)), name
    # nothing stored: the update is a build, lazily too
    fresh = update_lineage(
        pl.scan_parquet(path), stored_docs=docs.head(0), stored_signatures=pl.DataFrame(),
        stored_edges=pl.DataFrame(),
    )
    assert fresh.origins.equals(eager.origins)


@pytest.mark.parametrize("respect_lines", [False, True])
def test_batches_on_a_pool_give_the_arrays_of_one_process(monkeypatch, respect_lines):
    # the per-batch work of a build (words and spans, signatures, passage n-grams) on two
    # processes gives the arrays of the same work in process, and of splitting, shingling
    # and hashing every document at once; a non-ASCII text and an empty one among them
    import tempfile

    import affidavit.tasks.lineage as lineage_module
    from affidavit.tasks.minhash import signatures_from_hashes
    from affidavit.tasks.passages import PassageConfig, ngram_hashes_by_doc, passage_ngrams

    monkeypatch.setattr(lineage_module, "_PREPARE_BATCH", 13)
    docs = _synthetic_archive(70, 7)
    texts = docs["text"].to_list()
    texts[5] = "Café «naïve» Straße rose 12% on the year. " + texts[5]
    texts[8] = ""
    docs = docs.with_columns(text=pl.Series(texts))
    config = LineageConfig(passages=PassageConfig(respect_lines=respect_lines))
    frame = lineage_module._prepare_docs(docs, [])
    ref = lineage_module._prepare(frame, config)
    h, off = lineage_module._hash_sets(ref, np.arange(frame.height))
    ref_sigs = signatures_from_hashes(h, off, config.minhash)
    lines = ref.line_lengths if respect_lines else None
    ref_h, ref_s, _ = passage_ngrams(ref.words, config.passages.ngram_words, lines)
    ref_by_doc = ngram_hashes_by_doc(ref.words, config.passages.ngram_words, lines)
    for workers in (0, 2):
        with tempfile.TemporaryDirectory() as spill:
            prep, sigs, spilled = lineage_module._prepare_build(
                frame, config, spill, workers=workers
            )
            assert np.array_equal(sigs, ref_sigs)
            assert np.array_equal(prep.n_shingles, np.diff(off))
            for name in ("hashes", "lengths", "has_digit", "offsets"):
                assert np.array_equal(getattr(prep.words, name), getattr(ref.words, name)), name
            for name in ("line_lengths", "sentence_lengths", "quoted"):
                got, want = getattr(prep, name), getattr(ref, name)
                assert np.array_equal(got.values, want.values), name
                assert np.array_equal(got.offsets, want.offsets), name
            ng_h, ng_s = spilled.for_join()
            assert np.array_equal(ng_h, ref_h)
            assert np.array_equal(ng_s, ref_s)
            assert ng_s.dtype == ref_s.dtype
            by_doc = spilled.by_doc()
            assert np.array_equal(by_doc[0], ref_by_doc[0])
            assert np.array_equal(by_doc[1], ref_by_doc[1])


def test_a_build_on_a_pool_equals_one_in_process(monkeypatch):
    # a corpus of many batches runs them on a pool of processes: the same tables
    import affidavit.tasks.lineage as lineage_module
    import affidavit.tasks.lineage_batches as batches

    monkeypatch.setattr(lineage_module, "_PREPARE_BATCH", 16)
    docs = _synthetic_archive(100, 13)
    monkeypatch.setattr(batches, "POOL_MIN_BATCHES", 10**9)
    local = build_lineage(docs)
    monkeypatch.setattr(batches, "POOL_MIN_BATCHES", 2)
    monkeypatch.setattr(batches, "MAX_WORKERS", 2)
    monkeypatch.setattr(batches.os, "sched_getaffinity", lambda _pid: {0, 1})
    used: list[int] = []

    def spy(texts, spec, *, workers=0):
        used.append(workers)
        return batches.prepare_batches(texts, spec, workers=workers)

    monkeypatch.setattr(lineage_module, "prepare_batches", spy)
    pooled = build_lineage(docs)
    assert used == [2]
    assert local.edges.filter(pl.col("kind") == EdgeKind.QUOTE.value).height >= 1
    for name in ("signatures", "edges", "origins", "passages", "furniture"):
        a, b = _collected(getattr(pooled, name)), _collected(getattr(local, name))
        # furniture rows come in any order
        assert a.sort(a.columns).equals(b.sort(b.columns)), name
    assert pooled.notes == local.notes


def _collected(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


@pytest.mark.parametrize(("seed", "respect_lines"), [(17, False), (19, True)])
def test_a_build_with_words_on_disk_equals_one_in_memory(monkeypatch, seed, respect_lines):
    # an archive too large to hold its words keeps them, and the passage n-grams by hash
    # range, in files: the same tables, with the passage material as Parquet parts that go
    # when the result goes
    import gc
    from pathlib import Path

    import affidavit.tasks.lineage as lineage_module
    from affidavit.tasks.passages import PassageConfig

    monkeypatch.setattr(lineage_module, "_PREPARE_BATCH", 16)
    monkeypatch.setattr(lineage_module, "_MATERIAL_BATCH", 40)
    docs = _synthetic_archive(130, seed)
    config = LineageConfig(passages=PassageConfig(respect_lines=respect_lines))
    held = build_lineage(docs, config=config, spill_words=False)
    spilled = build_lineage(docs, config=config, spill_words=True)
    assert isinstance(held.passages, pl.DataFrame)
    assert isinstance(spilled.passages, pl.LazyFrame)
    assert held.edges.filter(pl.col("kind") == EdgeKind.QUOTE.value).height >= 1
    assert held.furniture.height >= 1
    for name in ("signatures", "edges", "origins", "passages", "furniture"):
        a, b = _collected(getattr(spilled, name)), _collected(getattr(held, name))
        assert a.sort(a.columns).equals(b.sort(b.columns)), name
    assert spilled.notes == held.notes
    parts = list(spilled.passage_batches())
    assert [p.height for p in parts] == [40, 40, 40, 10]
    assert pl.concat(parts).equals(held.passages)
    assert list(held.passage_batches())[0].equals(held.passages)
    folder = Path(spilled.material_dir.name)
    assert folder.is_dir()
    del spilled, parts
    gc.collect()
    assert not folder.exists()


def test_spilled_ngrams_come_one_hash_range_at_a_time_and_all_of_them(monkeypatch):
    # every n-gram row is in exactly one range, the range its top bits name, in ascending
    # start order within it; the words come back as read-only maps equal to the words held
    import tempfile

    import affidavit.tasks.lineage as lineage_module

    monkeypatch.setattr(lineage_module, "_PREPARE_BATCH", 11)
    docs = _synthetic_archive(50, 23)
    config = LineageConfig()
    frame = lineage_module._prepare_docs(docs, [])
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        held, _, whole = lineage_module._prepare_build(frame, config, a, workers=0)
        disk, _, parts = lineage_module._prepare_build(
            frame, config, b, workers=0, spill_words=True
        )
        for name in ("hashes", "lengths", "has_digit", "offsets"):
            assert np.array_equal(getattr(disk.words, name), getattr(held.words, name)), name
        assert isinstance(disk.words.hashes, np.memmap)
        assert not disk.words.hashes.flags.writeable
        want_h, want_s = whole.for_join()
        got_h, got_s = [], []
        for p, (h, st) in enumerate(parts.parts()):
            assert ((h >> np.uint64(64 - parts.part_bits)) == p).all()
            assert (np.diff(st) > 0).all()
            got_h.append(h)
            got_s.append(st)
        assert p == (1 << parts.part_bits) - 1
        order = np.lexsort((want_s, want_h))
        got_h, got_s = np.concatenate(got_h), np.concatenate(got_s)
        again = np.lexsort((got_s, got_h))
        assert np.array_equal(got_h[again], want_h[order])
        assert np.array_equal(got_s[again], want_s[order].astype(np.int64))
        disk.words.release()  # pages given back; the values read again from the file
        assert np.array_equal(disk.words.hashes, held.words.hashes)


def _workers_in_child(queue) -> None:  # a daemonic pool worker asks how many it may start
    from affidavit.tasks.lineage_batches import POOL_MIN_BATCHES, pool_workers

    queue.put(pool_workers(POOL_MIN_BATCHES * 4))


def test_a_daemonic_process_builds_in_process():
    import multiprocessing

    from affidavit.tasks.lineage_batches import POOL_MIN_BATCHES, pool_workers

    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    child = ctx.Process(target=_workers_in_child, args=(queue,), daemon=True)
    child.start()
    got = queue.get(timeout=120)
    child.join(30)
    assert got == 0
    assert pool_workers(POOL_MIN_BATCHES - 1) == 0


@pytest.mark.parametrize("wrong_from", [None, 0, 25])
def test_shingle_sets_hashed_in_batches_equal_one_pass(monkeypatch, wrong_from):
    # the sets of many documents are filled a batch at a time into one array sized by the
    # known shingle counts; where a count is not known (zero, as for an update's stored
    # rows) the rest are gathered and joined instead: the same sets either way
    import affidavit.tasks.lineage as lineage_module
    from affidavit.tasks.minhash import shingle_hashes_from_words

    monkeypatch.setattr(lineage_module, "_PREPARE_BATCH", 9)
    docs = _synthetic_archive(40, 31)
    config = LineageConfig()
    frame = lineage_module._prepare_docs(docs, [])
    prep = lineage_module._prepare(frame, config)
    rows = np.array([5, 3, *range(10, 40), 0], dtype=np.int64)
    want_h, want_off = shingle_hashes_from_words(prep.words.take(rows), config.minhash.shingles.k)
    prep.n_shingles = np.zeros(frame.height, dtype=np.int64)
    prep.n_shingles[rows] = np.diff(want_off)
    if wrong_from is not None:
        prep.n_shingles[rows[wrong_from:]] = 0
    got_h, got_off = lineage_module._hash_sets(prep, rows)
    assert np.array_equal(got_off, want_off)
    assert np.array_equal(got_h, want_h)


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_pool_workers_start_with_ctrl_c_blocked_and_this_process_keeps_it():
    # Ctrl-C reaches the whole process group: the command stops the build, and a worker that
    # got it too printed its KeyboardInterrupt traceback (or a "Fatal Python error" when it
    # was still starting)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from affidavit.tasks.lineage_batches import submit_without_sigint

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        in_worker = submit_without_sigint(pool, signal.pthread_sigmask, signal.SIG_BLOCK,
                                           []).result()
    assert signal.SIGINT in in_worker
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
