"""Fetch policy: total deadline, credentials, pinned connections, allow list, robots.txt."""

from __future__ import annotations

import httpx
import pytest

from affidavit.schemas.fetches import FetchReason
from affidavit.tasks.fetch import (
    ROBOTS_MAX_BYTES,
    AllowList,
    BlockedURLError,
    FetchConfig,
    Fetcher,
    check_url_allowed,
    parse_allow_list,
    robots_text,
    strip_credentials,
)
from tests.feed_server import FeedServer

LOCAL = AllowList(networks=("127.0.0.0/8",))


def test_total_deadline_stops_a_server_that_drips_bytes() -> None:
    with FeedServer({}, slow=("/drip",), drip_s=0.2) as srv:
        cfg = FetchConfig(allow=LOCAL, timeout_s=3.0, deadline_s=1.0, max_retries=2,
                          respect_robots=False)
        with Fetcher(cfg) as f:
            res = f.fetch(srv.url + "/drip")
    assert res.reason is FetchReason.DEADLINE
    assert res.error.startswith("deadline")
    # each byte came well within the 3 s read timeout: only the deadline could stop it
    assert 900 <= res.elapsed_ms < 3000


def test_credentials_are_stripped_before_fetching_and_storing() -> None:
    with FeedServer({"/feed.xml": b"<rss version='2.0'><channel></channel></rss>"}) as srv:
        secret_url = srv.url.replace("http://", "http://bob:s3cret@") + "/feed.xml"
        with Fetcher(FetchConfig(allow=LOCAL, respect_robots=False)) as f:
            res = f.fetch(secret_url)
        assert res.ok
        assert srv.auth_headers == []
    assert "s3cret" not in res.url
    assert "s3cret" not in res.final_url
    assert res.url == srv.url + "/feed.xml"


def test_connection_goes_to_the_address_the_guard_checked() -> None:
    # "pinned.test" does not resolve on this machine: the fetch can only succeed by connecting
    # to the address the guard's resolver returned (and approved).
    resolved: list[str] = []

    def resolver(host: str) -> list[str]:
        resolved.append(host)
        return ["127.0.0.1"] if host == "pinned.test" else []

    with FeedServer({"/page": b"<html><body>pinned</body></html>"}) as srv:
        port = srv.url.rsplit(":", 1)[1]
        with Fetcher(FetchConfig(allow=LOCAL, respect_robots=False), resolver=resolver) as f:
            res = f.fetch(f"http://pinned.test:{port}/page")
    assert res.ok
    assert res.content == b"<html><body>pinned</body></html>"
    assert resolved == ["pinned.test"]


def test_allow_list_parsing_and_guard() -> None:
    assert parse_allow_list("").is_off
    assert parse_allow_list("off").is_off
    assert parse_allow_list("all").allow_all
    assert parse_allow_list("1").describe() == "all"
    allow = parse_allow_list("10.0.0.0/8, 127.0.0.1 .corp.example")
    assert allow.describe() == "10.0.0.0/8,127.0.0.1/32,.corp.example"
    with pytest.raises(ValueError, match="not a CIDR range"):
        parse_allow_list("10.0.0.0/8,not_a host!")

    def res(host: str) -> list[str]:
        return {"a.test": ["10.1.2.3"], "b.test": ["192.168.1.1"],
                "wiki.corp.example": ["172.16.0.5"], "m.test": ["::ffff:10.0.0.9"]}[host]

    assert check_url_allowed("http://a.test/", resolver=res, allow=allow) == ["10.1.2.3"]
    assert check_url_allowed("http://m.test/", resolver=res, allow=allow)
    assert check_url_allowed("http://wiki.corp.example/", resolver=res, allow=allow)
    with pytest.raises(BlockedURLError, match="192.168.1.1"):
        check_url_allowed("http://b.test/", resolver=res, allow=allow)
    with pytest.raises(BlockedURLError):
        check_url_allowed("http://a.test/", resolver=res)
    cfg = FetchConfig.from_env({"AFFIDAVIT_ALLOW_PRIVATE": "127.0.0.0/8"})
    assert cfg.allow.describe() == "127.0.0.0/8"
    assert not cfg.allow_private
    assert FetchConfig.from_env({}).allow_list.is_off


def test_strip_credentials() -> None:
    assert strip_credentials("http://u:p@h.test:81/a?b#c") == "http://h.test:81/a?b#c"
    assert strip_credentials("http://u@h.test/") == "http://h.test/"
    assert strip_credentials("http://h.test/x@y") == "http://h.test/x@y"


def _robots_fetcher(body: bytes) -> tuple[Fetcher, list[str]]:
    seen: list[str] = []

    def handler(req: httpx.Request) -> httpx.Response:
        seen.append(req.url.path)
        if req.url.path == "/robots.txt":
            return httpx.Response(200, content=body)
        return httpx.Response(200, text="page")

    client = httpx.Client(transport=httpx.MockTransport(handler))
    return Fetcher(FetchConfig(allow_private=True), client=client), seen


def test_robots_txt_with_a_byte_order_mark_is_obeyed() -> None:
    f, seen = _robots_fetcher(b"\xef\xbb\xbfUser-agent: *\nDisallow: /private\n")
    assert f.fetch("http://x.test/private/a").reason is FetchReason.ROBOTS
    assert f.fetch("http://x.test/public").ok
    assert "/private/a" not in seen


def test_long_robots_txt_is_read_up_to_the_cap_not_allowed_whole() -> None:
    filler = b"# " + b"x" * 98 + b"\n"
    head = b"User-agent: *\nDisallow: /private\n"
    body = head + filler * (ROBOTS_MAX_BYTES // len(filler) + 50) + b"Disallow: /late\n"
    assert len(body) > ROBOTS_MAX_BYTES
    f, _ = _robots_fetcher(body)
    assert f.fetch("http://x.test/private/a").reason is FetchReason.ROBOTS
    # a rule past the first 512 KiB is not read (RFC 9309 §2.5; documented in ROBOTS_MAX_BYTES)
    assert f.fetch("http://x.test/late").ok
    text = robots_text(body)
    assert len(text) <= ROBOTS_MAX_BYTES
    assert text.endswith("\n")


def test_longest_match_wins_in_robots_txt() -> None:
    f, _ = _robots_fetcher(b"User-agent: *\nDisallow: /a\nAllow: /a/open\n")
    assert f.fetch("http://x.test/a/open/1").ok
    assert f.fetch("http://x.test/a/closed").reason is FetchReason.ROBOTS
