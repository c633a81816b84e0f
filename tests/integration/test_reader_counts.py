"""What the runs count and note for inputs that hold nothing new: feeds, repeated dumps."""

from __future__ import annotations

import pytest

EMPTY_RSS = '<rss version="2.0"><channel><title>t</title></channel></rss>'


def test_local_feed_files_are_counted_read_or_failed(prefect_harness, tmp_path):
    from affidavit.flows.factcheck import factcheck

    empty = tmp_path / "empty.xml"
    empty.write_text(EMPTY_RSS, encoding="utf-8")
    broken = tmp_path / "broken.xml"
    broken.write_text("<rss><channel><item>", encoding="utf-8")
    res = factcheck(feeds=[str(empty), str(broken)], home=str(tmp_path / "h"), mode="quick")
    assert res.counts["feeds_read"] == 1
    assert res.counts["feeds_failed"] == 1  # the refused file, as a polled feed would be
    assert res.counts["sources_refused"] == 1
    assert "1 read with no new entry, 1 failed" in res.message
    assert f"{empty}: the feed holds no items (no entry to read)" in res.messages


@pytest.mark.parametrize("body", [EMPTY_RSS, '{"version": "https://jsonfeed.org/version/1.1", '
                                  '"title": "t", "items": []}'])
def test_a_feed_of_no_item_is_said_to_hold_none(body):
    from affidavit.tasks.ingest_feeds import parse_feed

    batch = parse_feed(body.encode(), source="f")
    assert batch.n_documents == 0
    assert batch.messages == ["f: the feed holds no items (no entry to read)"]
