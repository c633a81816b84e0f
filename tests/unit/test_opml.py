"""OPML subscription lists: flat, nested, broken, not OPML, real exports."""

from __future__ import annotations

import pytest

from affidavit.tasks.opml import OpmlError, is_opml, parse_opml, read_opml
from tests.feed_server import opml


def test_flat_and_nested_lists() -> None:
    flat = parse_opml(opml([("A", "http://a.test/rss"), ("B", "https://u:p@b.test/atom")]),
                      source="subs.opml")
    assert [f.url for f in flat.feeds] == ["http://a.test/rss", "https://b.test/atom"]
    assert [f.title for f in flat.feeds] == ["A", "B"]
    assert flat.messages == []
    nested = parse_opml(opml([("A", "http://a.test/rss")], folder="News"), source="n.opml")
    assert nested.feeds[0].folder == "News"
    assert any("nested folder" in m for m in nested.messages)


def test_outlines_without_a_usable_url_are_skipped_with_a_message() -> None:
    data = (b'<opml version="2.0"><body><outline text="x" xmlUrl="file:///etc/passwd"/>'
            b'<outline text="ok" xmlUrl="http://ok.test/feed"/></body></opml>')
    lst = parse_opml(data, source="s.opml")
    assert [f.url for f in lst.feeds] == ["http://ok.test/feed"]
    assert lst.n_skipped == 1
    assert "no http(s) xmlUrl" in lst.messages[0]


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b'<opml version="2.0"><body><outline text="a" xmlUrl="http://a.test/"',
         "not well-formed XML at line 1"),
        (b"<rss version='2.0'><channel></channel></rss>", "not an OPML"),
        (b'<opml version="2.0"><body><outline text="folder"/></body></opml>', "lists no feed"),
        (b'<!DOCTYPE opml [<!ENTITY a "b">]><opml version="2.0"><body/></opml>', "ENTITY"),
        (b"", "not"),
    ],
)
def test_broken_or_empty_opml_is_one_clear_error(data: bytes, match: str) -> None:
    with pytest.raises(OpmlError, match=match) as info:
        parse_opml(data, source="bad.opml")
    assert str(info.value).startswith("bad.opml: ")
    assert "\n" not in str(info.value)


def test_real_exports_are_read(shared_data) -> None:
    folder = shared_data / "feeds" / "rsparser-real-feeds"
    subs = read_opml(folder / "Subs.opml")
    untitled = read_opml(folder / "SubsNoTitleAttributes.opml")
    assert len(subs.feeds) > 100
    assert len(untitled.feeds) > 100
    assert all(f.url.startswith(("http://", "https://")) for f in subs.feeds)
    assert is_opml(folder / "Subs.opml")
    assert not is_opml(folder / "489.rss")
