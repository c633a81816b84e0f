"""A real HTTP server on 127.0.0.1 for feed polling tests and benchmarks.

It serves files from a mapping (path → bytes) with ETag and Last-Modified, answers conditional
requests with 304, fails a path for its first N requests, drips a body slowly, serves a fake
SearXNG JSON API at ``/search``, and counts what it did per path.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from email.utils import formatdate
from typing import Any
from urllib.parse import parse_qs, urlsplit

LAST_MODIFIED = formatdate(1_700_000_000, usegmt=True)


class FeedServer:
    """Serve ``files`` on 127.0.0.1 (a random free port) until :meth:`close`.

    Args:
        files: URL path → body.
        content_types: URL path → Content-Type (default by extension).
        fail_first: URL path → number of first requests answered with ``fail_status``.
        fail_status: Status of those failures.
        slow: URL paths whose body is dripped one byte every ``drip_s`` seconds.
        drip_s: Seconds between dripped bytes.
        searxng: Query → list of SearXNG result dicts, served at ``/search?format=json``.
        validators: Send ETag / Last-Modified and honour conditional requests.

    Attributes:
        downloads: Path → number of 200 answers with a body.
        not_modified: Path → number of 304 answers.
        hits: Path → requests.
        auth_headers: Authorization headers received (should stay empty).
    """

    def __init__(
        self,
        files: dict[str, bytes],
        *,
        content_types: dict[str, str] | None = None,
        fail_first: dict[str, int] | None = None,
        fail_status: int = 500,
        slow: tuple[str, ...] = (),
        drip_s: float = 0.3,
        searxng: Callable[[str], list[dict[str, Any]]] | None = None,
        validators: bool = True,
    ) -> None:
        self.files = files
        self.content_types = content_types or {}
        self.fail_first = dict(fail_first or {})
        self.fail_status = fail_status
        self.slow = slow
        self.drip_s = drip_s
        self.searxng = searxng
        self.validators = validators
        self.downloads: Counter[str] = Counter()
        self.not_modified: Counter[str] = Counter()
        self.hits: Counter[str] = Counter()
        self.auth_headers: list[str] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 - http.server API
                server._handle(self)

            def log_message(self, *args: object) -> None:
                pass

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._httpd.handle_error = lambda *a: None  # type: ignore[method-assign] # resets
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """The server's root URL, ``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def close(self) -> None:
        """Stop serving (dripping bodies stop too)."""
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FeedServer:
        """Return self."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the server."""
        self.close()

    @staticmethod
    def etag_of(body: bytes) -> str:
        """The ETag served for ``body``."""
        return '"' + hashlib.sha256(body).hexdigest()[:16] + '"'

    def _send(self, h: http.server.BaseHTTPRequestHandler, status: int, body: bytes = b"",
              headers: dict[str, str] | None = None) -> None:
        h.send_response(status)
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        if body:
            h.wfile.write(body)

    def _handle(self, h: http.server.BaseHTTPRequestHandler) -> None:
        parts = urlsplit(h.path)
        path = parts.path
        with self._lock:
            self.hits[path] += 1
            if h.headers.get("Authorization"):
                self.auth_headers.append(h.headers["Authorization"])
            failing = self.fail_first.get(path, 0) > 0
            if failing:
                self.fail_first[path] -= 1
        if failing:
            self._send(h, self.fail_status, b"failing on purpose")
            return
        if path == "/search" and self.searxng is not None:
            q = parse_qs(parts.query).get("q", [""])[0]
            body = json.dumps({"query": q, "results": self.searxng(q)}).encode()
            self._send(h, 200, body, {"Content-Type": "application/json"})
            return
        if path == "/robots.txt" and path not in self.files:
            self._send(h, 404, b"")
            return
        if path in self.slow:
            self._drip(h)
            return
        body = self.files.get(path)
        if body is None:
            self._send(h, 404, b"not found")
            return
        ctype = self.content_types.get(path) or _content_type(path)
        headers = {"Content-Type": ctype}
        if self.validators:
            etag = self.etag_of(body)
            headers.update({"ETag": etag, "Last-Modified": LAST_MODIFIED})
            inm = h.headers.get("If-None-Match")
            ims = h.headers.get("If-Modified-Since")
            if (inm and inm == etag) or (not inm and ims == LAST_MODIFIED):
                with self._lock:
                    self.not_modified[path] += 1
                self._send(h, 304, b"", {k: v for k, v in headers.items()
                                          if k != "Content-Type"})
                return
        with self._lock:
            self.downloads[path] += 1
        self._send(h, 200, body, headers)

    def _drip(self, h: http.server.BaseHTTPRequestHandler) -> None:
        total = 10_000
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", str(total))
        h.end_headers()
        try:
            for _ in range(total):
                if self._stop.wait(self.drip_s):
                    return
                h.wfile.write(b"x")
                h.wfile.flush()
        except OSError:
            return


def _content_type(path: str) -> str:
    if path.endswith((".html", ".htm")) or "." not in path.rsplit("/", 1)[-1]:
        return "text/html; charset=utf-8"
    if path.endswith(".json"):
        return "application/feed+json"
    if path.endswith(".opml"):
        return "text/x-opml"
    return "application/xml"


def rss(title: str, items: list[tuple[str, str, str]]) -> bytes:
    """A small RSS 2.0 feed: items are (link, title, description)."""
    body = "".join(
        f"<item><title>{t}</title><link>{link}</link><guid>{link}</guid>"
        f"<pubDate>Mon, 02 Jun 2025 10:00:00 GMT</pubDate><description>{d}</description></item>"
        for link, t, d in items
    )
    return (f'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>'
            f"<title>{title}</title><link>http://example.org/</link>"
            f"<description>{title}</description>{body}</channel></rss>").encode()


def opml(feeds: list[tuple[str, str]], *, folder: str | None = None) -> bytes:
    """An OPML 2.0 list of (title, xmlUrl); inside one folder outline when ``folder`` is given."""
    outlines = "".join(
        f'<outline type="rss" text="{t}" title="{t}" xmlUrl="{u}"/>' for t, u in feeds)
    if folder:
        outlines = f'<outline text="{folder}">{outlines}</outline>'
    return (f'<?xml version="1.0" encoding="UTF-8"?><opml version="2.0"><head><title>subs'
            f"</title></head><body>{outlines}</body></opml>").encode()


def wait_until(pred: Callable[[], bool], timeout_s: float = 5.0) -> bool:
    """Poll ``pred`` until true or ``timeout_s`` passes."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return pred()
