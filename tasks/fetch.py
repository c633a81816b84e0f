"""Guarded HTTP fetching with httpx: address guard, robots.txt, retries, byte caps.

Network IO lives here and nowhere else in the ingest stage; parsing is done by the callers on
the returned bytes, so a fetch can be retried or cached on its own (STYLE.md, ``tasks/``).

The address guard (:func:`check_url_allowed`) refuses non-http(s) schemes and any host that
*resolves* to a private, loopback, link-local, reserved, multicast or otherwise non-global
address, unless ``allow_private=True``. It checks the resolved IPs (``socket.getaddrinfo``), not
the host string, because httpx hands hosts such as ``0x7f000001``, ``2130706433`` and ``127.1``
to the resolver, which maps them to 127.0.0.1. Redirects are followed by hand so that every hop
is checked again.

Known limit: the guard resolves the name, then httpx resolves it again to connect; a DNS server
that answers differently within that window (DNS rebinding) is not caught.

Response bodies are read raw and decoded here (gzip, deflate, br) with an output cap, so a gzip
bomb (a tiny body expanding to gigabytes) stops at ``max_bytes`` decoded bytes.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin, urlsplit
from urllib.robotparser import RobotFileParser

import httpx

__all__ = [
    "BlockedURLError",
    "ContentDecodingError",
    "ContentTooLargeError",
    "FetchConfig",
    "FetchResult",
    "Fetcher",
    "check_url_allowed",
    "decode_body",
    "default_resolver",
    "is_public_address",
    "parse_retry_after",
]

Resolver = Callable[[str], list[str]]

_REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
_RETRY_CODES = frozenset({429, 500, 502, 503, 504})
"""Statuses retried with backoff. 429 and 503 carry Retry-After (RFC 9110 §10.2.3); 500/502/504
are the usual transient gateway errors."""

ROBOTS_MAX_BYTES = 512 * 1024
"""Bytes of robots.txt read; RFC 9309 §2.5 requires parsing at least the first 500 KiB."""


class BlockedURLError(ValueError):
    """A URL refused by the address guard (scheme or resolved address)."""


class ContentTooLargeError(ValueError):
    """A body (raw or decoded) exceeded its byte cap."""


class ContentDecodingError(ValueError):
    """A body could not be decoded with its Content-Encoding."""


@dataclass(frozen=True, slots=True)
class FetchConfig:
    """Settings of a :class:`Fetcher`.

    Attributes:
        timeout_s: Connect/read/write/pool timeout of each request, seconds.
        max_bytes: Cap on a decoded response body, bytes (5 MiB: well above news article pages,
            whose HTML is under 1 MiB on the article-extraction benchmark).
        max_retries: Retries after the first attempt, on timeouts, transport errors and
            429/500/502/503/504.
        backoff_s: First backoff delay, seconds; doubled on each retry (exponential backoff).
        max_backoff_s: Longest wait, seconds; a Retry-After above it ends the retries.
        per_host_concurrency: Requests in flight per host at most (politeness).
        respect_robots: Obey robots.txt (RFC 9309), cached per origin.
        allow_private: Allow private/loopback/link-local/reserved addresses (tests, intranets).
        user_agent: User-Agent header, also the robots.txt product token.
        max_redirects: Redirect hops followed (each hop is checked by the guard).
        max_workers: Threads of :meth:`Fetcher.fetch_many`.
    """

    timeout_s: float = 20.0
    max_bytes: int = 5 * 1024 * 1024
    max_retries: int = 3
    backoff_s: float = 0.5
    max_backoff_s: float = 30.0
    per_host_concurrency: int = 2
    respect_robots: bool = True
    allow_private: bool = False
    user_agent: str = "affidavit/0.1 (+fact-checking)"
    max_redirects: int = 5
    max_workers: int = 8

    def __post_init__(self) -> None:
        """Reject impossible settings early.

        Raises:
            ValueError: On a non-positive timeout, cap, concurrency or worker count, or a
                negative retry/redirect count or backoff.
        """
        if self.timeout_s <= 0 or self.max_bytes <= 0:
            raise ValueError("timeout_s and max_bytes must be positive")
        if self.per_host_concurrency < 1 or self.max_workers < 1:
            raise ValueError("per_host_concurrency and max_workers must be >= 1")
        if self.max_retries < 0 or self.max_redirects < 0:
            raise ValueError("max_retries and max_redirects must be >= 0")
        if self.backoff_s < 0 or self.max_backoff_s < 0:
            raise ValueError("backoff_s and max_backoff_s must be >= 0")


@dataclass(frozen=True, slots=True)
class FetchResult:
    """Outcome of one fetch; ``error`` is None on success (any HTTP status counts as success).

    Attributes:
        url: The URL asked for.
        final_url: The URL of the last hop (after redirects).
        status: HTTP status of the last response, or None when no response came.
        content: Decoded body (empty on error), at most ``FetchConfig.max_bytes``.
        headers: Response headers of the last hop, names lowercased.
        error: ``None``, or a short reason (``"blocked: ..."``, ``"robots.txt disallows"``,
            ``"timeout: ..."``, ``"too large: ..."``, ...).
    """

    url: str
    final_url: str
    status: int | None
    content: bytes
    headers: dict[str, str] = field(default_factory=dict)
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when there is no error and the status is 2xx."""
        return self.error is None and self.status is not None and 200 <= self.status < 300


# ------------------------------------------------------------------------------ address guard


def default_resolver(host: str) -> list[str]:
    """Resolve ``host`` with ``socket.getaddrinfo``; return its distinct IP strings.

    Raises:
        OSError: (``socket.gaierror``) when the name does not resolve.
    """
    infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def is_public_address(ip: str) -> bool:
    """Whether an IP address is globally routable unicast (not private, loopback, link-local...).

    IPv4-mapped and 6to4/Teredo-embedded IPv6 addresses are judged by their IPv4 address.

    >>> is_public_address("93.184.216.34"), is_public_address("127.0.0.1")
    (True, False)
    >>> is_public_address("::ffff:10.0.0.1"), is_public_address("fe80::1%eth0")
    (False, False)
    """
    try:
        addr = ipaddress.ip_address(ip.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address):
        embedded = addr.ipv4_mapped or addr.sixtofour or (addr.teredo[1] if addr.teredo else None)
        if embedded is not None and not is_public_address(str(embedded)):
            return False
    return bool(addr.is_global) and not addr.is_multicast


def check_url_allowed(
    url: str,
    *,
    allow_private: bool = False,
    resolver: Resolver | None = None,
) -> None:
    """Refuse a URL whose scheme is not http(s) or whose host resolves to a non-public address.

    Args:
        url: The URL to check.
        allow_private: Skip the address check (the scheme is still checked).
        resolver: Host → IP strings; ``socket.getaddrinfo`` when None.

    Raises:
        BlockedURLError: On another scheme, a missing host, a name that does not resolve, or
            any resolved address that is not public.
    """
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise BlockedURLError(f"invalid URL {url!r}: {exc}") from exc
    if parsed.scheme not in ("http", "https"):
        raise BlockedURLError(f"scheme {parsed.scheme!r} is not http or https")
    host = parsed.host
    if not host:
        raise BlockedURLError(f"no host in {url!r}")
    if allow_private:
        return
    resolve = resolver or default_resolver
    try:
        addresses = resolve(host)
    except OSError as exc:
        raise BlockedURLError(f"host {host!r} does not resolve: {exc}") from exc
    if not addresses:
        raise BlockedURLError(f"host {host!r} resolves to no address")
    bad = [a for a in addresses if not is_public_address(a)]
    if bad:
        raise BlockedURLError(f"host {host!r} resolves to non-public address {bad[0]}")


# ------------------------------------------------------------------------------ body decoding


class _StreamDecoder:
    """Incremental Content-Encoding decoder with an output cap (stops decompression bombs)."""

    def __init__(self, encoding: str, max_bytes: int) -> None:
        self.codings = [c.strip().lower() for c in encoding.split(",") if c.strip()]
        self.codings = [c for c in self.codings if c != "identity"]
        if len(self.codings) > 1:
            raise ContentDecodingError(f"stacked content-encodings {encoding!r} not supported")
        self.coding = self.codings[0] if self.codings else None
        if self.coding not in (None, "gzip", "x-gzip", "deflate", "br"):
            raise ContentDecodingError(f"unsupported content-encoding {self.coding!r}")
        self.max_bytes = max_bytes
        self.out = bytearray()
        self._z: zlib._Decompress | None = None  # type: ignore[name-defined]
        self._br = None
        self._deflate_raw = False
        self._pending = b""  # first deflate bytes, until we know zlib vs raw deflate
        if self.coding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        elif self.coding == "br":
            try:
                import brotli
            except ImportError as exc:  # pragma: no cover - brotli is installed with httpx extras
                raise ContentDecodingError("br content-encoding needs the brotli package") from exc
            self._br = brotli.Decompressor()

    def _room(self) -> int:
        return self.max_bytes + 1 - len(self.out)

    def _emit(self, data: bytes) -> None:
        self.out += data
        if len(self.out) > self.max_bytes:
            raise ContentTooLargeError(f"more than {self.max_bytes} bytes after decoding")

    def _zlib_feed(self, data: bytes) -> None:
        assert self._z is not None
        buf = data
        while True:
            try:
                chunk = self._z.decompress(buf, self._room())
            except zlib.error as exc:
                raise ContentDecodingError(f"bad {self.coding} data: {exc}") from exc
            self._emit(chunk)
            buf = self._z.unconsumed_tail
            if self._z.eof and self._z.unused_data.strip(b"\x00"):
                # Multi-member gzip: start a new member on the rest.
                rest = self._z.unused_data
                self._z = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
                buf = rest
                continue
            if not buf:
                return

    def feed(self, data: bytes) -> None:
        if not data:
            return
        if self.coding is None:
            self._emit(data)
        elif self.coding == "br":
            assert self._br is not None
            try:
                self._emit(self._br.process(data, output_buffer_limit=self._room()))
                while not self._br.can_accept_more_data():
                    self._emit(self._br.process(b"", output_buffer_limit=self._room()))
            except Exception as exc:  # brotli.error is not a stable import path
                if isinstance(exc, ContentTooLargeError):
                    raise
                raise ContentDecodingError(f"bad br data: {exc}") from exc
        elif self.coding == "deflate" and self._z is None:
            # "deflate" is zlib-wrapped per RFC 9110, but many servers send raw deflate.
            self._pending += data
            if len(self._pending) < 2:
                return
            first = self._pending
            self._pending = b""
            cmf, flg = first[0], first[1]
            zlib_wrapped = (cmf & 0x0F) == 8 and (cmf << 8 | flg) % 31 == 0
            self._z = zlib.decompressobj(wbits=zlib.MAX_WBITS if zlib_wrapped else -zlib.MAX_WBITS)
            self._zlib_feed(first)
        else:
            self._zlib_feed(data)

    def finish(self) -> bytes:
        if self._pending:
            self._z = zlib.decompressobj(wbits=-zlib.MAX_WBITS)
            pending, self._pending = self._pending, b""
            self._zlib_feed(pending)
        if self._z is not None:
            try:
                self._emit(self._z.flush())
            except zlib.error as exc:  # pragma: no cover - flush rarely fails
                raise ContentDecodingError(f"bad {self.coding} data: {exc}") from exc
        return bytes(self.out)


def decode_body(data: bytes, encoding: str | None, *, max_bytes: int) -> bytes:
    """Decode an HTTP body by its Content-Encoding, stopping at ``max_bytes`` decoded bytes.

    Args:
        data: The encoded body.
        encoding: The Content-Encoding header value (``gzip``, ``x-gzip``, ``deflate``, ``br``,
            ``identity``), or None.
        max_bytes: Cap on decoded bytes.

    Returns:
        The decoded body.

    Raises:
        ContentTooLargeError: When decoding would exceed ``max_bytes`` (a decompression bomb
            stops here, having produced at most ``max_bytes + 1`` bytes).
        ContentDecodingError: On an unsupported coding or corrupt data.

    >>> import gzip
    >>> decode_body(gzip.compress(b"hello"), "gzip", max_bytes=100)
    b'hello'
    """
    dec = _StreamDecoder(encoding or "", max_bytes)
    step = 64 * 1024
    for i in range(0, len(data), step):
        dec.feed(data[i : i + step])
    return dec.finish()


def parse_retry_after(value: str | None, *, now: float) -> float | None:
    """Return the delay in seconds a Retry-After header asks for, or None.

    Args:
        value: The header value: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
        now: The current Unix time, seconds (for HTTP-dates).

    Returns:
        Seconds to wait (>= 0), or None when absent or unparseable.

    >>> parse_retry_after("7", now=0.0), parse_retry_after("soon", now=0.0)
    (7.0, None)
    """
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - now)


# ------------------------------------------------------------------------------------ fetcher


@dataclass(frozen=True, slots=True)
class _Response:
    status: int
    headers: dict[str, str]
    content: bytes


class _FetchError(Exception):
    def __init__(self, reason: str, *, retryable: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retryable = retryable


class Fetcher:
    """Guarded, polite HTTP fetcher (thread-safe).

    Args:
        config: Settings.
        client: An ``httpx.Client`` to use (e.g. with ``httpx.MockTransport`` in tests); one is
            created (and closed by :meth:`close`) when None. Its redirect following is not used:
            redirects are followed here, hop by hop, through the guard.
        resolver: Host → IP strings for the address guard; ``socket.getaddrinfo`` when None.
        sleep: Called with the seconds to wait between retries (inject a fake in tests).
        clock: Returns Unix time, seconds; used for Retry-After HTTP-dates.
    """

    def __init__(
        self,
        config: FetchConfig = FetchConfig(),  # noqa: B008 - frozen, immutable default
        *,
        client: httpx.Client | None = None,
        resolver: Resolver | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self._owns_client = client is None
        self._client = client or httpx.Client(
            timeout=httpx.Timeout(config.timeout_s),
            follow_redirects=False,
            limits=httpx.Limits(max_connections=max(config.max_workers, 10)),
        )
        self._resolver = resolver
        self._sleep = sleep
        self._clock = clock
        self._lock = threading.Lock()
        self._host_slots: dict[str, threading.BoundedSemaphore] = {}
        self._robots: dict[str, RobotFileParser | None] = {}
        self._robots_locks: dict[str, threading.Lock] = {}

    def close(self) -> None:
        """Close the httpx client when this fetcher created it."""
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> Fetcher:
        """Return self."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the client."""
        self.close()

    # -- helpers -------------------------------------------------------------------------------

    def _slot(self, host: str) -> threading.BoundedSemaphore:
        with self._lock:
            sem = self._host_slots.get(host)
            if sem is None:
                sem = threading.BoundedSemaphore(self.config.per_host_concurrency)
                self._host_slots[host] = sem
            return sem

    def _request_once(self, url: str, *, max_bytes: int) -> _Response:
        """One GET, body read raw and decoded under the cap, inside the host's slot."""
        host = urlsplit(url).hostname or ""
        headers = {"User-Agent": self.config.user_agent, "Accept-Encoding": "gzip, deflate, br"}
        with self._slot(host):
            try:
                with self._client.stream("GET", url, headers=headers) as resp:
                    hdrs = {k.lower(): v for k, v in resp.headers.items()}
                    if resp.status_code in _REDIRECT_CODES or resp.status_code in _RETRY_CODES:
                        return _Response(resp.status_code, hdrs, b"")
                    declared = hdrs.get("content-length", "")
                    if declared.isdigit() and int(declared) > max_bytes:
                        raise _FetchError(
                            f"too large: Content-Length {declared} > {max_bytes}", retryable=False
                        )
                    try:
                        if resp.is_stream_consumed:
                            # A response built in memory (httpx.Response(content=...), as mock
                            # transports do) is already read and decoded by httpx: cap its size.
                            chunks: Iterable[bytes] = [resp.content]
                            dec = _StreamDecoder("", max_bytes)
                        else:
                            chunks = resp.iter_raw()
                            dec = _StreamDecoder(hdrs.get("content-encoding", ""), max_bytes)
                        raw_total = 0
                        for chunk in chunks:
                            raw_total += len(chunk)
                            if raw_total > max_bytes:
                                raise ContentTooLargeError(f"more than {max_bytes} bytes")
                            dec.feed(chunk)
                        body = dec.finish()
                    except ContentTooLargeError as exc:
                        raise _FetchError(f"too large: {exc}", retryable=False) from exc
                    except ContentDecodingError as exc:
                        raise _FetchError(f"decoding: {exc}", retryable=False) from exc
                    return _Response(resp.status_code, hdrs, body)
            except httpx.TimeoutException as exc:
                raise _FetchError(f"timeout: {exc!r}", retryable=True) from exc
            except httpx.TransportError as exc:
                raise _FetchError(f"transport: {exc!r}", retryable=True) from exc
            except httpx.HTTPError as exc:
                raise _FetchError(f"http: {exc!r}", retryable=False) from exc

    def _request_with_retries(self, url: str, *, max_bytes: int, retries: int) -> _Response:
        cfg = self.config
        attempt = 0
        while True:
            try:
                resp = self._request_once(url, max_bytes=max_bytes)
            except _FetchError as exc:
                if not exc.retryable or attempt >= retries:
                    raise
                delay = min(cfg.backoff_s * (2**attempt), cfg.max_backoff_s)
            else:
                if resp.status not in _RETRY_CODES or attempt >= retries:
                    return resp
                wanted = parse_retry_after(resp.headers.get("retry-after"), now=self._clock())
                if wanted is not None and wanted > cfg.max_backoff_s:
                    return resp  # the server asks for longer than we wait: report its answer
                delay = (
                    wanted
                    if wanted is not None
                    else min(cfg.backoff_s * (2**attempt), cfg.max_backoff_s)
                )
            attempt += 1
            if delay > 0:
                self._sleep(delay)

    def _robots_parser(self, url: str) -> RobotFileParser | None:
        """Return the cached robots.txt parser of ``url``'s origin (None: allow all)."""
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        with self._lock:
            if origin in self._robots:
                return self._robots[origin]
            origin_lock = self._robots_locks.setdefault(origin, threading.Lock())
        with origin_lock:
            with self._lock:
                if origin in self._robots:
                    return self._robots[origin]
            rp: RobotFileParser | None
            result = self._fetch(
                origin + "/robots.txt", check_robots=False, max_bytes=ROBOTS_MAX_BYTES, retries=0
            )
            if result.error is not None and result.error.startswith("too large"):
                rp = None  # RFC 9309 §2.5: parse what fits; we keep it simple and allow
            elif result.error is not None or (result.status or 0) >= 500:
                # RFC 9309 §2.3.1.4: unreachable robots.txt → assume complete disallow.
                rp = RobotFileParser()
                rp.parse(["User-agent: *", "Disallow: /"])
            elif result.status is not None and 400 <= result.status < 500:
                rp = None  # RFC 9309 §2.3.1.3: unavailable → allowed
            else:
                rp = RobotFileParser()
                rp.parse(result.content.decode("utf-8", "replace").splitlines())
            with self._lock:
                self._robots[origin] = rp
            return rp

    def _robots_allowed(self, url: str) -> bool:
        rp = self._robots_parser(url)
        return True if rp is None else rp.can_fetch(self.config.user_agent, url)

    def _fetch(self, url: str, *, check_robots: bool, max_bytes: int, retries: int) -> FetchResult:
        cfg = self.config
        current = url
        for _hop in range(cfg.max_redirects + 1):
            try:
                check_url_allowed(current, allow_private=cfg.allow_private, resolver=self._resolver)
            except BlockedURLError as exc:
                return FetchResult(url, current, None, b"", {}, f"blocked: {exc}")
            if check_robots and cfg.respect_robots and not self._robots_allowed(current):
                return FetchResult(url, current, None, b"", {}, "robots.txt disallows")
            try:
                resp = self._request_with_retries(current, max_bytes=max_bytes, retries=retries)
            except _FetchError as exc:
                return FetchResult(url, current, None, b"", {}, exc.reason)
            location = resp.headers.get("location")
            if resp.status in _REDIRECT_CODES and location:
                current = urljoin(current, location.strip())
                continue
            return FetchResult(url, current, resp.status, resp.content, resp.headers, None)
        return FetchResult(
            url, current, None, b"", {}, f"too many redirects (> {cfg.max_redirects})"
        )

    # -- public --------------------------------------------------------------------------------

    def fetch(self, url: str) -> FetchResult:
        """Fetch one URL through the guard, robots.txt, retries and the byte cap.

        Never raises for network or policy failures: they are reported in ``FetchResult.error``.

        Args:
            url: An http(s) URL.

        Returns:
            A :class:`FetchResult`; an HTTP error status (404, 500 after retries) is a result
            with that status and ``error=None``.
        """
        return self._fetch(
            url,
            check_robots=True,
            max_bytes=self.config.max_bytes,
            retries=self.config.max_retries,
        )

    def fetch_many(self, urls: Iterable[str]) -> list[FetchResult]:
        """Fetch many URLs on a thread pool; per-host concurrency stays within the config.

        Args:
            urls: URLs to fetch.

        Returns:
            One :class:`FetchResult` per URL, in input order.
        """
        url_list = list(urls)
        if not url_list:
            return []
        workers = min(self.config.max_workers, len(url_list))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fetch") as pool:
            return list(pool.map(self.fetch, url_list))
