"""Tests of tasks.fetch: address guard, redirects, retries, caps, robots.txt, concurrency."""

from __future__ import annotations

import gzip
import http.server
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator

import httpx
import pytest

from affidavit.tasks.fetch import (
    BlockedURLError,
    ContentDecodingError,
    ContentTooLargeError,
    FetchConfig,
    Fetcher,
    check_url_allowed,
    decode_body,
    is_public_address,
    parse_retry_after,
)

PUBLIC = "93.184.216.34"
HOSTS = {"good.test": [PUBLIC], "other.test": ["198.51.100.7", PUBLIC]}
# 198.51.100.0/24 is TEST-NET-2 (documentation, not global): used below as a "reserved" answer.


def resolver(host: str) -> list[str]:
    if host in HOSTS:
        return HOSTS[host]
    if host == "evil.test":
        return ["10.1.2.3"]
    if host == "rebind.test":
        return [PUBLIC, "127.0.0.1"]
    if host == "2130706433":  # getaddrinfo reads a bare integer as an IPv4 address
        return ["127.0.0.1"]
    raise OSError(f"unknown host {host}")


def make_fetcher(
    handler: Callable[[httpx.Request], httpx.Response], *, sleeps: list[float] | None = None,
    **cfg: object,
) -> Fetcher:
    config = FetchConfig(**{"respect_robots": False, **cfg})  # type: ignore[arg-type]
    client = httpx.Client(transport=httpx.MockTransport(handler))
    return Fetcher(
        config, client=client, resolver=resolver,
        sleep=(sleeps.append if sleeps is not None else (lambda s: None)),
    )


# --------------------------------------------------------------------------- address guard


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://good.test/x",
        "gopher://good.test/",
        "javascript:alert(1)",
        "data:text/html,hi",
        "http:///nohost",
    ],
)
def test_guard_refuses_schemes_and_hostless(url: str) -> None:
    with pytest.raises(BlockedURLError):
        check_url_allowed(url, resolver=resolver)


@pytest.mark.parametrize(
    "url",
    [
        "http://evil.test/",  # resolves to 10/8
        "http://rebind.test/",  # one of its addresses is loopback
        "http://other.test/",  # one address in a documentation (reserved) range
        "http://127.0.0.1/",
        "http://[::1]/",
        "http://[fe80::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://169.254.169.254/latest/meta-data",
        "http://0.0.0.0/",
        "http://100.64.0.1/",  # shared address space (RFC 6598)
        "http://nowhere.test/",  # does not resolve
    ],
)
def test_guard_refuses_non_public_resolved_addresses(url: str) -> None:
    def res(host: str) -> list[str]:
        try:
            return resolver(host)
        except OSError:
            if host.replace(".", "").isdigit() or ":" in host:
                return [host]
            raise

    with pytest.raises(BlockedURLError):
        check_url_allowed(url, resolver=res)


@pytest.mark.parametrize("host", ["0x7f000001", "2130706433", "127.1", "017700000001"])
def test_guard_checks_resolved_ip_of_odd_loopback_spellings(host: str) -> None:
    # Numeric spellings resolve locally through getaddrinfo (no DNS): they must be refused.
    with pytest.raises(BlockedURLError, match="127.0.0.1"):
        check_url_allowed(f"http://{host}/")


def test_guard_allows_public_and_allow_private() -> None:
    check_url_allowed("https://good.test/a", resolver=resolver)
    check_url_allowed("http://evil.test/", allow_private=True, resolver=resolver)
    with pytest.raises(BlockedURLError):
        check_url_allowed("file:///x", allow_private=True, resolver=resolver)


def test_is_public_address() -> None:
    assert is_public_address("8.8.8.8")
    assert is_public_address("2606:4700:4700::1111")
    for ip in ["10.0.0.1", "192.168.1.1", "172.16.0.1", "127.0.0.1", "169.254.1.1", "::1",
               "fc00::1", "224.0.0.1", "240.0.0.1", "not-an-ip", "2002:7f00:1::1"]:
        assert not is_public_address(ip), ip


def test_fetch_blocks_private_target_without_request() -> None:
    seen: list[str] = []

    def handler(req: httpx.Request) -> httpx.Response:
        seen.append(str(req.url))
        return httpx.Response(200, text="secret")

    res = make_fetcher(handler).fetch("http://evil.test/admin")
    assert res.error is not None
    assert res.error.startswith("blocked")
    assert res.status is None
    assert res.content == b""
    assert seen == []


def test_redirect_to_private_address_is_blocked() -> None:
    seen: list[str] = []

    def handler(req: httpx.Request) -> httpx.Response:
        seen.append(req.url.host)
        if req.url.host == "good.test":
            return httpx.Response(302, headers={"Location": "http://2130706433/admin"})
        return httpx.Response(200, text="secret")

    res = make_fetcher(handler).fetch("http://good.test/start")
    assert res.error is not None
    assert "blocked" in res.error
    assert res.final_url == "http://2130706433/admin"
    assert seen == ["good.test"]


def test_redirects_followed_hop_by_hop() -> None:
    def handler(req: httpx.Request) -> httpx.Response:
        if req.url.path == "/a":
            return httpx.Response(301, headers={"Location": "/b"})
        if req.url.path == "/b":
            return httpx.Response(307, headers={"Location": "https://other.test/c"})
        return httpx.Response(200, text="done")

    # other.test has a reserved address: the second hop is refused.
    res = make_fetcher(handler).fetch("http://good.test/a")
    assert res.error is not None
    assert "198.51.100.7" in res.error
    HOSTS["third.test"] = [PUBLIC]
    try:

        def handler2(req: httpx.Request) -> httpx.Response:
            if req.url.path == "/a":
                return httpx.Response(301, headers={"Location": "/b"})
            if req.url.path == "/b":
                return httpx.Response(308, headers={"Location": "https://third.test/c"})
            return httpx.Response(200, text="done")

        ok = make_fetcher(handler2).fetch("http://good.test/a")
        assert ok.error is None
        assert ok.status == 200
        assert ok.content == b"done"
        assert ok.final_url == "https://third.test/c"
        assert ok.url == "http://good.test/a"
    finally:
        del HOSTS["third.test"]


def test_redirect_loop_stops() -> None:
    def handler(req: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"Location": "/again"})

    res = make_fetcher(handler, max_redirects=3).fetch("http://good.test/")
    assert res.error is not None
    assert "too many redirects" in res.error


# ------------------------------------------------------------------------------ retries


def test_retry_after_is_honoured_on_429_and_503() -> None:
    calls = Counter()

    def handler(req: httpx.Request) -> httpx.Response:
        calls[req.url.path] += 1
        if calls[req.url.path] == 1:
            return httpx.Response(429, headers={"Retry-After": "3"})
        if calls[req.url.path] == 2:
            return httpx.Response(503, headers={"Retry-After": "1"})
        return httpx.Response(200, text="ok")

    sleeps: list[float] = []
    res = make_fetcher(handler, sleeps=sleeps).fetch("http://good.test/x")
    assert res.status == 200
    assert res.content == b"ok"
    assert sleeps == [3.0, 1.0]


def test_exponential_backoff_without_retry_after_then_give_up() -> None:
    def handler(req: httpx.Request) -> httpx.Response:
        return httpx.Response(503)

    sleeps: list[float] = []
    res = make_fetcher(handler, sleeps=sleeps, backoff_s=0.5, max_retries=3).fetch(
        "http://good.test/x"
    )
    assert sleeps == [0.5, 1.0, 2.0]
    assert res.status == 503
    assert res.error is None
    assert not res.ok


def test_retry_after_longer_than_max_backoff_is_not_waited() -> None:
    def handler(req: httpx.Request) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": "3600"})

    sleeps: list[float] = []
    res = make_fetcher(handler, sleeps=sleeps, max_backoff_s=30).fetch("http://good.test/x")
    assert sleeps == []
    assert res.status == 429


def test_transport_errors_are_retried_then_reported() -> None:
    calls = Counter()

    def handler(req: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        raise httpx.ConnectTimeout("slow", request=req)

    sleeps: list[float] = []
    res = make_fetcher(handler, sleeps=sleeps, max_retries=2).fetch("http://good.test/x")
    assert calls["n"] == 3
    assert len(sleeps) == 2
    assert res.error is not None
    assert res.error.startswith("timeout")


def test_parse_retry_after_http_date() -> None:
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412490.0) == 0.0
    assert parse_retry_after(None, now=0.0) is None


# ------------------------------------------------------------------------------ byte caps


def test_byte_cap_on_plain_body() -> None:
    def handler(req: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=httpx.ByteStream(b"x" * 5000))

    res = make_fetcher(handler, max_bytes=1000).fetch("http://good.test/big")
    assert res.error is not None
    assert res.error.startswith("too large")
    assert res.content == b""
    ok = make_fetcher(handler, max_bytes=5000).fetch("http://good.test/big")
    assert ok.error is None
    assert len(ok.content) == 5000


def test_declared_content_length_over_cap_is_refused() -> None:
    def handler(req: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"Content-Length": "999999"}, stream=httpx.ByteStream(b"")
        )

    res = make_fetcher(handler, max_bytes=1000).fetch("http://good.test/big")
    assert res.error is not None
    assert "Content-Length" in res.error


def test_gzip_bomb_is_stopped_by_decoded_cap() -> None:
    bomb = gzip.compress(b"\0" * (8 * 1024 * 1024), compresslevel=9)
    assert len(bomb) < 20_000

    def handler(req: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"Content-Encoding": "gzip"}, stream=httpx.ByteStream(bomb)
        )

    res = make_fetcher(handler, max_bytes=100_000).fetch("http://good.test/bomb")
    assert res.error is not None
    assert "too large" in res.error


def test_gzip_and_br_bodies_are_decoded() -> None:
    import brotli

    def handler(req: httpx.Request) -> httpx.Response:
        if req.url.path == "/gz":
            return httpx.Response(200, headers={"Content-Encoding": "gzip"},
                                  stream=httpx.ByteStream(gzip.compress(b"hello gzip")))
        return httpx.Response(200, headers={"Content-Encoding": "br"},
                              stream=httpx.ByteStream(brotli.compress(b"hello br")))

    f = make_fetcher(handler)
    assert f.fetch("http://good.test/gz").content == b"hello gzip"
    assert f.fetch("http://good.test/br").content == b"hello br"


def test_decode_body_variants() -> None:
    data = b"some text " * 100
    raw_deflate = zlib.compressobj(wbits=-15)
    assert decode_body(raw_deflate.compress(data) + raw_deflate.flush(), "deflate",
                       max_bytes=10_000) == data
    assert decode_body(zlib.compress(data), "deflate", max_bytes=10_000) == data
    assert decode_body(gzip.compress(data) + gzip.compress(data), "x-gzip",
                       max_bytes=10_000) == data * 2
    assert decode_body(data, "identity", max_bytes=10_000) == data
    with pytest.raises(ContentTooLargeError):
        decode_body(gzip.compress(data), "gzip", max_bytes=100)
    with pytest.raises(ContentDecodingError):
        decode_body(b"not gzip at all", "gzip", max_bytes=10_000)
    with pytest.raises(ContentDecodingError):
        decode_body(data, "compress", max_bytes=10_000)


# ------------------------------------------------------------------------------ robots.txt


def test_robots_txt_is_obeyed_and_cached_per_host() -> None:
    calls = Counter()

    def handler(req: httpx.Request) -> httpx.Response:
        calls[req.url.path] += 1
        if req.url.path == "/robots.txt":
            return httpx.Response(200, text="User-agent: *\nDisallow: /private\n")
        return httpx.Response(200, text="page")

    f = make_fetcher(handler, respect_robots=True)
    assert f.fetch("http://good.test/public").content == b"page"
    blocked = f.fetch("http://good.test/private/x")
    assert blocked.error == "robots.txt disallows"
    assert f.fetch("http://good.test/other").ok
    assert calls["/robots.txt"] == 1
    assert calls["/private/x"] == 0


@pytest.mark.parametrize(("status", "allowed"), [(404, True), (403, True), (500, False)])
def test_robots_txt_unavailable_vs_unreachable(status: int, allowed: bool) -> None:
    # RFC 9309: 4xx → no restrictions; 5xx → assume complete disallow.
    def handler(req: httpx.Request) -> httpx.Response:
        if req.url.path == "/robots.txt":
            return httpx.Response(status)
        return httpx.Response(200, text="page")

    res = make_fetcher(handler, respect_robots=True).fetch("http://good.test/page")
    assert (res.error is None) is allowed


def test_an_unreachable_robots_txt_says_why_the_page_was_not_fetched() -> None:
    # a server that is down is not a robots.txt that disallows: the reason names what happened
    def refused(req: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 111] Connection refused", request=req)

    def failing(req: httpx.Request) -> httpx.Response:
        return httpx.Response(503 if req.url.path == "/robots.txt" else 200, text="page")

    from affidavit.schemas.fetches import FetchReason

    down = make_fetcher(refused, respect_robots=True).fetch("http://good.test/page")
    assert down.reason is FetchReason.ROBOTS
    assert down.error.startswith("robots.txt could not be read (")
    assert "Connection refused" in down.error
    assert down.error.endswith("): complete disallow assumed (RFC 9309)")
    busy = make_fetcher(failing, respect_robots=True).fetch("http://good.test/page")
    assert busy.error == ("robots.txt could not be read (HTTP 503): complete disallow assumed "
                          "(RFC 9309)")


# ------------------------------------------------------------------------------ concurrency


def test_fetch_many_keeps_order_and_per_host_limit() -> None:
    lock = threading.Lock()
    in_flight = Counter()
    peak = Counter()

    def handler(req: httpx.Request) -> httpx.Response:
        host = req.url.host
        with lock:
            in_flight[host] += 1
            peak[host] = max(peak[host], in_flight[host])
        time.sleep(0.02)
        with lock:
            in_flight[host] -= 1
        return httpx.Response(200, text=req.url.path)

    HOSTS["b.test"] = [PUBLIC]
    try:
        f = make_fetcher(handler, per_host_concurrency=2, max_workers=8)
        urls = [f"http://{h}/{i}" for i in range(8) for h in ("good.test", "b.test")]
        results = f.fetch_many(urls)
    finally:
        del HOSTS["b.test"]
    assert [r.url for r in results] == urls
    assert [r.content.decode() for r in results] == [f"/{u.rsplit('/', 1)[1]}" for u in urls]
    assert peak["good.test"] <= 2
    assert peak["b.test"] <= 2
    assert peak["good.test"] + peak["b.test"] >= 3  # hosts did run concurrently


def test_fetch_config_rejects_bad_values() -> None:
    with pytest.raises(ValueError, match="per_host_concurrency"):
        FetchConfig(per_host_concurrency=0)
    with pytest.raises(ValueError, match="max_retries"):
        FetchConfig(max_retries=-1)


# ------------------------------------------------------------------------------ real server


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server API
        if self.path == "/robots.txt":
            body = b"User-agent: *\nDisallow: /nope\n"
        elif self.path == "/gz":
            body = gzip.compress(b"<html><body>compressed page</body></html>")
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        elif self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/page")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        else:
            body = b"<html><body>hello from the local server</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def local_server() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_real_local_server_with_allow_private(local_server: str) -> None:
    with Fetcher(FetchConfig(allow_private=True, timeout_s=5.0)) as f:
        page = f.fetch(local_server + "/redirect")
        assert page.ok
        assert b"hello from the local server" in page.content
        assert page.final_url == local_server + "/page"
        assert f.fetch(local_server + "/gz").content == b"<html><body>compressed page</body></html>"
        assert f.fetch(local_server + "/nope").error == "robots.txt disallows"
    with Fetcher(FetchConfig(timeout_s=5.0)) as strict:
        res = strict.fetch(local_server + "/page")
        assert res.error is not None
        assert res.error.startswith("blocked")


# ------------------------------------------------------------------- names that do not resolve
def test_a_host_that_does_not_resolve_is_a_dns_failure_not_blocked() -> None:
    import socket

    from affidavit.schemas.fetches import FetchReason
    from affidavit.tasks.fetch import HostNotFoundError

    def no_such_name(host: str) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    with pytest.raises(HostNotFoundError, match="host 'nowhere.test' does not resolve"):
        check_url_allowed("http://nowhere.test/", resolver=no_such_name)
    with pytest.raises(HostNotFoundError, match="resolves to no address"):
        check_url_allowed("http://empty.test/", resolver=lambda host: [])
    seen: list[str] = []

    def handler(req: httpx.Request) -> httpx.Response:
        seen.append(str(req.url))
        return httpx.Response(200, text="never")

    f = make_fetcher(handler)  # its resolver knows no nowhere.test
    res = f.fetch("http://nowhere.test/feed.xml")
    assert res.reason is FetchReason.DNS
    assert res.outcome is FetchReason.DNS
    assert res.error is not None
    assert res.error.startswith("dns: host 'nowhere.test' does not resolve")
    assert "blocked" not in res.error
    assert seen == []
    # the guard's own refusals are still "blocked"
    assert f.fetch("http://evil.test/").reason is FetchReason.BLOCKED


def test_a_redirect_to_a_host_that_does_not_resolve_is_a_dns_failure() -> None:
    from affidavit.schemas.fetches import FetchReason

    def handler(req: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"location": "http://gone.test/x"})

    res = make_fetcher(handler).fetch("http://good.test/a")
    assert res.reason is FetchReason.DNS
    assert res.final_url == "http://gone.test/x"


def test_a_name_error_of_the_connection_itself_is_a_dns_failure() -> None:
    import socket

    from affidavit.schemas.fetches import FetchReason

    calls: list[str] = []

    def handler(req: httpx.Request) -> httpx.Response:
        # every address allowed: the guard resolves nothing and the connection resolves the
        # name, which httpx reports as a ConnectError caused by socket.gaierror
        calls.append(req.url.host)
        try:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        except socket.gaierror as exc:
            raise httpx.ConnectError(str(exc), request=req) from exc

    res = make_fetcher(handler, allow_private=True).fetch("http://nowhere.test/")
    assert res.reason is FetchReason.DNS
    assert res.error is not None
    assert res.error.startswith("dns: host 'nowhere.test' does not resolve")
    assert calls == ["nowhere.test"]  # a name that does not exist is not retried
