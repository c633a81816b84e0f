"""Guarded HTTP fetching with httpx: address guard, robots.txt, retries, byte caps.

Network IO lives here and nowhere else in the ingest stage; parsing is done by the callers on
the returned bytes, so a fetch can be retried or cached on its own (STYLE.md, ``tasks/``).

The address guard (:func:`check_url_allowed`) refuses non-http(s) schemes and any host that
*resolves* to a private, loopback, link-local, reserved, multicast or otherwise non-global
address, unless ``allow_private=True``. It checks the resolved IPs (``socket.getaddrinfo``), not
the host string, because httpx hands hosts such as ``0x7f000001``, ``2130706433`` and ``127.1``
to the resolver, which maps them to 127.0.0.1. Redirects are followed by hand so that every hop
is checked again.

The connection is pinned to the address the guard checked: the fetcher's own client connects
through a network backend that maps each host to the IP the guard resolved and approved, so a
DNS server answering differently between the check and the connection (DNS rebinding) reaches
nothing (TLS still verifies the certificate against the host name). An injected ``client`` (a
mock transport in tests) is used as given. With an HTTP proxy from the environment, the proxy
resolves and connects; the guard still checks the name.

Private addresses are allowed by a setting (:class:`AllowList`): all of them, or only some CIDR
ranges and host names (``AFFIDAVIT_ALLOW_PRIVATE``, see :func:`allow_list_from_env`).

Every fetch has a total deadline (``FetchConfig.deadline_s``) over its retries, redirects and body
reads: per-read timeouts alone do not bound a server that drips one byte every few seconds.

Credentials in a URL (``user:password@``) are stripped before fetching, logging and storing
(:func:`strip_credentials`): they are never sent as Basic auth.

Response bodies are read raw and decoded here (gzip, deflate, br) with an output cap, so a gzip
bomb (a tiny body expanding to gigabytes) stops at ``max_bytes`` decoded bytes.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpcore
import httpx
from protego import Protego

from affidavit.schemas.fetches import FetchReason

__all__ = [
    "ALLOW_PRIVATE_ENV",
    "AllowList",
    "BlockedURLError",
    "HostNotFoundError",
    "ContentDecodingError",
    "ContentTooLargeError",
    "FetchConfig",
    "FetchReason",
    "FetchResult",
    "Fetcher",
    "allow_list_from_env",
    "check_url_allowed",
    "decode_body",
    "default_resolver",
    "is_public_address",
    "parse_allow_list",
    "parse_retry_after",
    "strip_credentials",
]

Resolver = Callable[[str], list[str]]

_REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
_RETRY_CODES = frozenset({429, 500, 502, 503, 504})
"""Statuses retried with backoff. 429 and 503 carry Retry-After (RFC 9110 §10.2.3); 500/502/504
are the usual transient gateway errors."""

ROBOTS_MAX_BYTES = 512 * 1024
"""Bytes of robots.txt read. RFC 9309 §2.5: crawlers must parse at least the first 500 KiB and
may ignore the rest. A longer file is cut here, at its last complete line, and that part is
parsed (the rule Google's open-source parser follows): never allow-all because it is long."""

ALLOW_PRIVATE_ENV = "AFFIDAVIT_ALLOW_PRIVATE"
"""Environment variable of the private-address setting (see :func:`parse_allow_list`)."""

_TRUE = frozenset({"1", "true", "yes", "on", "all", "*"})
_FALSE = frozenset({"", "0", "false", "no", "off", "none"})


def strip_credentials(url: str) -> str:
    """Return ``url`` without a ``user:password@`` part (never sent, logged or stored).

    >>> strip_credentials("https://bob:s3cret@example.org:8443/feed?x=1")
    'https://example.org:8443/feed?x=1'
    >>> strip_credentials("not a url")
    'not a url'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


@dataclass(frozen=True, slots=True)
class AllowList:
    """Which non-public addresses the guard lets through (off by default).

    Attributes:
        allow_all: Every address (private, loopback, link-local...) is allowed.
        networks: CIDR ranges whose addresses are allowed, e.g. ``("10.0.0.0/8",)``.
        hosts: Host names allowed whatever they resolve to; ``.corp.example`` also allows
            every subdomain of ``corp.example``.
    """

    allow_all: bool = False
    networks: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()

    @property
    def is_off(self) -> bool:
        """True when nothing beyond public addresses is allowed (the default)."""
        return not (self.allow_all or self.networks or self.hosts)

    def describe(self) -> str:
        """Return the setting as recorded in ``runs.parameters`` (``off``, ``all`` or a list).

        >>> AllowList(networks=("127.0.0.0/8",), hosts=("intranet",)).describe()
        '127.0.0.0/8,intranet'
        """
        if self.allow_all:
            return "all"
        return ",".join((*self.networks, *self.hosts)) or "off"

    def allows_host(self, host: str) -> bool:
        """Whether ``host`` is listed by name (exactly, or under a ``.domain`` entry)."""
        h = host.lower().rstrip(".")
        for entry in self.hosts:
            if entry.startswith("."):
                if h.endswith(entry) or h == entry[1:]:
                    return True
            elif h == entry:
                return True
        return False

    def allows_address(self, ip: str) -> bool:
        """Whether ``ip`` falls in one of the listed CIDR ranges."""
        try:
            addr = ipaddress.ip_address(ip.split("%", 1)[0])
        except ValueError:
            return False
        mapped = getattr(addr, "ipv4_mapped", None)
        for net in self.networks:
            network = ipaddress.ip_network(net, strict=False)
            if addr in network or (mapped is not None and mapped in network):
                return True
        return False


def parse_allow_list(value: str | None) -> AllowList:
    """Parse the private-address setting (``--allow-private`` / ``AFFIDAVIT_ALLOW_PRIVATE``).

    Args:
        value: Empty, ``0``, ``false``, ``no``, ``off`` or ``none``: off (the default).
            ``1``, ``true``, ``yes``, ``on``, ``all`` or ``*``: every address. Otherwise a
            comma- or space-separated list of CIDR ranges or addresses (``10.0.0.0/8``,
            ``127.0.0.1``, ``fd00::/8``) and host names (``intranet.example``, ``.corp.example``
            for a domain and its subdomains).

    Returns:
        The :class:`AllowList`.

    Raises:
        ValueError: On an entry that is neither a CIDR range, an address nor a host name.

    >>> parse_allow_list("127.0.0.1, .corp.example").describe()
    '127.0.0.1/32,.corp.example'
    >>> parse_allow_list("yes").allow_all, parse_allow_list(None).is_off
    (True, True)
    """
    raw = (value or "").strip()
    if raw.lower() in _FALSE:
        return AllowList()
    if raw.lower() in _TRUE:
        return AllowList(allow_all=True)
    networks: list[str] = []
    hosts: list[str] = []
    for item in raw.replace(",", " ").split():
        try:
            networks.append(str(ipaddress.ip_network(item, strict=False)))
            continue
        except ValueError:
            pass
        name = item.lower().rstrip(".")
        labels = name.lstrip(".").split(".")
        if not name.lstrip(".") or not all(
            lab and len(lab) <= 63 and all(c.isalnum() or c == "-" for c in lab) for lab in labels
        ):
            raise ValueError(
                f"{ALLOW_PRIVATE_ENV}: {item!r} is not a CIDR range, an IP address or a host name"
            )
        hosts.append(name)
    return AllowList(networks=tuple(dict.fromkeys(networks)), hosts=tuple(dict.fromkeys(hosts)))


def allow_list_from_env(environ: Mapping[str, str] | None = None) -> AllowList:
    """Read :data:`ALLOW_PRIVATE_ENV` (unset: off).

    Raises:
        ValueError: When the value cannot be parsed (see :func:`parse_allow_list`).
    """
    env = os.environ if environ is None else environ
    return parse_allow_list(env.get(ALLOW_PRIVATE_ENV))


class BlockedURLError(ValueError):
    """A URL refused by the address guard (scheme or resolved address)."""


class HostNotFoundError(BlockedURLError):
    """The URL's host name does not resolve (or resolves to no address).

    Nothing can be fetched, so the guard refuses it (a subclass: whoever catches
    :class:`BlockedURLError` still refuses it), but it is a resolution failure, not a guarded
    address: the fetcher records it as ``dns``, not ``blocked``.
    """


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
        allow_private: Allow every private/loopback/link-local/reserved address (tests,
            intranets); see ``allow`` for a narrower setting.
        allow: Non-public CIDR ranges and host names allowed (:class:`AllowList`); default
            none. :meth:`from_env` fills it from ``AFFIDAVIT_ALLOW_PRIVATE``.
        deadline_s: Total wall time of one fetch, seconds, over its redirects, retries, waits
            and body reads (60 s: three times the default per-request timeout; a page that
            takes longer is not worth holding a worker for).
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
    allow: AllowList = AllowList()  # noqa: RUF009 - frozen, immutable default
    deadline_s: float = 60.0
    user_agent: str = "affidavit/0.1 (+fact-checking)"
    max_redirects: int = 5
    max_workers: int = 8

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> FetchConfig:
        """Return a config whose private-address setting comes from ``AFFIDAVIT_ALLOW_PRIVATE``.

        Args:
            environ: Environment (default ``os.environ``).
            **overrides: Other :class:`FetchConfig` fields.

        Raises:
            ValueError: When the setting cannot be parsed.
        """
        allow = allow_list_from_env(environ)
        return cls(allow_private=allow.allow_all, allow=allow, **overrides)

    @property
    def allow_list(self) -> AllowList:
        """The effective private-address setting (``allow_private`` means all)."""
        return AllowList(allow_all=True) if self.allow_private else self.allow

    def __post_init__(self) -> None:
        """Reject impossible settings early.

        Raises:
            ValueError: On a non-positive timeout, cap, concurrency or worker count, or a
                negative retry/redirect count or backoff.
        """
        if self.timeout_s <= 0 or self.max_bytes <= 0 or self.deadline_s <= 0:
            raise ValueError("timeout_s, deadline_s and max_bytes must be positive")
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
        reason: The outcome as a code (:class:`~affidavit.schemas.fetches.FetchReason`); derived
            from ``status`` and ``error`` when not given.
        elapsed_ms: Wall time of the fetch, milliseconds (redirects, retries and waits included).
        is_conditional: Whether conditional headers (If-None-Match / If-Modified-Since) were sent.
    """

    url: str
    final_url: str
    status: int | None
    content: bytes
    headers: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    reason: FetchReason | None = None
    elapsed_ms: int = 0
    is_conditional: bool = False

    @property
    def ok(self) -> bool:
        """True when there is no error and the status is 2xx."""
        return self.error is None and self.status is not None and 200 <= self.status < 300

    @property
    def not_modified(self) -> bool:
        """True for a 304 answer to a conditional request (no body, nothing to parse)."""
        return self.error is None and self.status == 304

    @property
    def outcome(self) -> FetchReason:
        """The outcome code: ``reason`` when set, else ok / not_modified / http_status."""
        if self.reason is not None:
            return self.reason
        if self.ok:
            return FetchReason.OK
        if self.not_modified:
            return FetchReason.NOT_MODIFIED
        return FetchReason.HTTP_STATUS


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
    allow: AllowList | None = None,
) -> list[str]:
    """Refuse a URL whose scheme is not http(s) or whose host resolves to a non-public address.

    Args:
        url: The URL to check.
        allow_private: Skip the address check (the scheme is still checked).
        resolver: Host → IP strings; ``socket.getaddrinfo`` when None.
        allow: Non-public CIDR ranges and host names to let through (``allow_all`` is the same
            as ``allow_private``).

    Returns:
        The resolved addresses that were checked (the fetcher connects to the first), or ``[]``
        when every address is allowed and nothing was resolved.

    Raises:
        HostNotFoundError: When the host name does not resolve (a :class:`BlockedURLError`).
        BlockedURLError: On another scheme, a missing host, or any resolved address that is
            not public and not allowed.
    """
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise BlockedURLError(f"invalid URL {strip_credentials(str(url))!r}: {exc}") from exc
    if parsed.scheme not in ("http", "https"):
        raise BlockedURLError(f"scheme {parsed.scheme!r} is not http or https")
    host = parsed.host
    if not host:
        raise BlockedURLError(f"no host in {strip_credentials(url)!r}")
    allow = allow or AllowList()
    if allow_private or allow.allow_all:
        return []
    resolve = resolver or default_resolver
    try:
        addresses = resolve(host)
    except (OSError, UnicodeError) as exc:  # socket.gaierror; an IDNA name that cannot encode
        raise HostNotFoundError(f"host {host!r} does not resolve ({exc})") from exc
    if not addresses:
        raise HostNotFoundError(f"host {host!r} resolves to no address")
    if allow.allows_host(host):
        return list(addresses)
    bad = [a for a in addresses if not is_public_address(a) and not allow.allows_address(a)]
    if bad:
        hint = f" (allow it with {ALLOW_PRIVATE_ENV} or --allow-private)"
        raise BlockedURLError(f"host {host!r} resolves to non-public address {bad[0]}{hint}")
    return list(addresses)


def _name_error(exc: BaseException) -> socket.gaierror | None:
    """The name-resolution error behind a transport error, if any (its cause chain).

    A connection made without the guard's pin (every address allowed, or a proxy) resolves the
    name itself; httpx wraps the ``socket.gaierror`` in a ``ConnectError``.
    """
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, socket.gaierror):
            return cur
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return None


class _PinnedBackend(httpcore.NetworkBackend):
    """Connect each host to the address the guard checked for it (closes DNS rebinding).

    Args:
        pins: Host → IP, filled by the fetcher right after the guard approves a URL.
        lock: Guards ``pins``.
        strict: Refuse to connect to a host that has no pin (the guard did not run for it);
            when False such hosts are resolved as usual (every address is allowed anyway).
    """

    def __init__(self, pins: dict[str, str], lock: threading.Lock, *, strict: bool) -> None:
        self._inner = httpcore.SyncBackend()
        self._pins = pins
        self._lock = lock
        self._strict = strict

    def connect_tcp(  # noqa: D102 - httpcore.NetworkBackend API
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        with self._lock:
            ip = self._pins.get(host.lower().strip("[]"))
        if ip is None and self._strict:
            raise httpcore.ConnectError(f"no checked address for host {host!r}")
        return self._inner.connect_tcp(ip or host, port, timeout=timeout,
                                       local_address=local_address,
                                       socket_options=socket_options)

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore.NetworkStream:  # noqa: D102
        raise httpcore.ConnectError("unix sockets are not used by the fetcher")

    def sleep(self, seconds: float) -> None:  # noqa: D102
        self._inner.sleep(seconds)


class _PinnedTransport(httpx.HTTPTransport):
    """An ``httpx.HTTPTransport`` whose connection pool uses :class:`_PinnedBackend`."""

    def __init__(self, backend: _PinnedBackend, *, limits: httpx.Limits) -> None:
        super().__init__(limits=limits)
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=backend,
        )


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
    def __init__(self, reason: str, *, retryable: bool, code: FetchReason) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retryable = retryable
        self.code = code


class Fetcher:
    """Guarded, polite HTTP fetcher (thread-safe).

    Args:
        config: Settings; ``FetchConfig.from_env()`` when None (the private-address setting
            comes from ``AFFIDAVIT_ALLOW_PRIVATE``).
        client: An ``httpx.Client`` to use (e.g. with ``httpx.MockTransport`` in tests); one is
            created (and closed by :meth:`close`) when None, whose connections are pinned to the
            addresses the guard checked. Its redirect following is not used: redirects are
            followed here, hop by hop, through the guard.
        resolver: Host → IP strings for the address guard; ``socket.getaddrinfo`` when None.
        sleep: Called with the seconds to wait between retries (inject a fake in tests).
        clock: Returns Unix time, seconds; used for Retry-After HTTP-dates.
        monotonic: Returns monotonic seconds; used for the deadline and ``elapsed_ms``.
    """

    def __init__(
        self,
        config: FetchConfig | None = None,
        *,
        client: httpx.Client | None = None,
        resolver: Resolver | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        config = config if config is not None else FetchConfig.from_env()
        self.config = config
        self._lock = threading.Lock()
        self._pins: dict[str, str] = {}
        self._pin_lock = threading.Lock()
        self._owns_client = client is None
        if client is None:
            limits = httpx.Limits(max_connections=max(config.max_workers, 10))
            backend = _PinnedBackend(self._pins, self._pin_lock,
                                     strict=not config.allow_list.allow_all)
            client = httpx.Client(
                timeout=httpx.Timeout(config.timeout_s),
                follow_redirects=False,
                transport=_PinnedTransport(backend, limits=limits),
            )
        self._client = client
        self._resolver = resolver
        self._sleep = sleep
        self._clock = clock
        self._monotonic = monotonic
        self._host_slots: dict[str, threading.BoundedSemaphore] = {}
        self._robots: dict[str, Protego | None] = {}
        self._robots_unread: dict[str, str] = {}  # origin → why its robots.txt was not read
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

    def _remaining(self, deadline: float) -> float:
        return deadline - self._monotonic()

    def _request_once(
        self,
        url: str,
        *,
        max_bytes: int,
        deadline: float,
        extra_headers: Mapping[str, str] | None = None,
        truncate: bool = False,
    ) -> _Response:
        """One GET, body read raw and decoded under the cap and the deadline, in a host slot.

        With ``truncate`` a body over ``max_bytes`` is cut there instead of refused.
        """
        host = urlsplit(url).hostname or ""
        headers = {"User-Agent": self.config.user_agent, "Accept-Encoding": "gzip, deflate, br"}
        headers.update(extra_headers or {})
        remaining = self._remaining(deadline)
        if remaining <= 0:
            raise _FetchError(f"deadline: {self.config.deadline_s:g} s passed", retryable=False,
                              code=FetchReason.DEADLINE)
        timeout = httpx.Timeout(min(self.config.timeout_s, remaining))
        slot = self._slot(host)
        if not slot.acquire(timeout=remaining):
            raise _FetchError(f"deadline: {self.config.deadline_s:g} s passed waiting for a "
                              f"free connection to {host}", retryable=False,
                              code=FetchReason.DEADLINE)
        try:
            try:
                with self._client.stream("GET", url, headers=headers, timeout=timeout) as resp:
                    hdrs = {k.lower(): v for k, v in resp.headers.items()}
                    if (resp.status_code in _REDIRECT_CODES or resp.status_code in _RETRY_CODES
                            or resp.status_code == 304):
                        return _Response(resp.status_code, hdrs, b"")
                    declared = hdrs.get("content-length", "")
                    if declared.isdigit() and int(declared) > max_bytes and not truncate:
                        raise _FetchError(
                            f"too large: Content-Length {declared} > {max_bytes}",
                            retryable=False, code=FetchReason.TOO_LARGE,
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
                            if self._remaining(deadline) <= 0:
                                raise _FetchError(
                                    f"deadline: body not complete after "
                                    f"{self.config.deadline_s:g} s ({raw_total} bytes read)",
                                    retryable=False, code=FetchReason.DEADLINE)
                            raw_total += len(chunk)
                            if truncate and len(dec.out) + len(chunk) > max_bytes:
                                dec.feed(chunk[: max(0, max_bytes - len(dec.out))])
                                break
                            if raw_total > max_bytes:
                                raise ContentTooLargeError(f"more than {max_bytes} bytes")
                            dec.feed(chunk)
                        body = dec.finish()
                    except ContentTooLargeError as exc:
                        raise _FetchError(f"too large: {exc}", retryable=False,
                                          code=FetchReason.TOO_LARGE) from exc
                    except ContentDecodingError as exc:
                        raise _FetchError(f"decoding: {exc}", retryable=False,
                                          code=FetchReason.DECODING) from exc
                    return _Response(resp.status_code, hdrs, body)
            except httpx.TimeoutException as exc:
                if self._remaining(deadline) <= 0:
                    raise _FetchError(f"deadline: {self.config.deadline_s:g} s passed ({exc!r})",
                                      retryable=False, code=FetchReason.DEADLINE) from exc
                raise _FetchError(f"timeout: {exc!r}", retryable=True,
                                  code=FetchReason.TIMEOUT) from exc
            except httpx.TransportError as exc:
                if (gai := _name_error(exc)) is not None:  # resolved by the connection itself
                    raise _FetchError(f"dns: host {httpx.URL(url).host!r} does not resolve "
                                      f"({gai})", retryable=gai.errno == socket.EAI_AGAIN,
                                      code=FetchReason.DNS) from exc
                raise _FetchError(f"transport: {exc!r}", retryable=True,
                                  code=FetchReason.TRANSPORT) from exc
            except httpx.HTTPError as exc:
                raise _FetchError(f"http: {exc!r}", retryable=False,
                                  code=FetchReason.TRANSPORT) from exc
        finally:
            slot.release()

    def _request_with_retries(
        self,
        url: str,
        *,
        max_bytes: int,
        retries: int,
        deadline: float,
        extra_headers: Mapping[str, str] | None = None,
        truncate: bool = False,
    ) -> _Response:
        cfg = self.config
        attempt = 0
        while True:
            try:
                resp = self._request_once(url, max_bytes=max_bytes, deadline=deadline,
                                          extra_headers=extra_headers, truncate=truncate)
            except _FetchError as exc:
                if not exc.retryable or attempt >= retries:
                    raise
                delay = min(cfg.backoff_s * (2**attempt), cfg.max_backoff_s)
                if delay >= self._remaining(deadline):
                    raise
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
                if delay >= self._remaining(deadline):
                    return resp  # no time left to wait: report the server's answer
            attempt += 1
            if delay > 0:
                self._sleep(delay)

    def _robots_parser(self, url: str, deadline: float) -> Protego | None:
        """Return the cached robots.txt rules of ``url``'s origin (None: allow all)."""
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
            rp: Protego | None
            result = self._fetch(
                origin + "/robots.txt", check_robots=False, max_bytes=ROBOTS_MAX_BYTES,
                retries=0, deadline=deadline, truncate=True,
            )
            if result.error is not None or (result.status or 0) >= 500:
                # RFC 9309 §2.3.1.4: unreachable robots.txt → assume complete disallow.
                rp = Protego.parse("User-agent: *\nDisallow: /\n")
                why = result.error or f"HTTP {result.status}"
                with self._lock:
                    self._robots_unread[origin] = (f"robots.txt could not be read ({why}): "
                                                   "complete disallow assumed (RFC 9309)")
            elif result.status is not None and 400 <= result.status < 500:
                rp = None  # RFC 9309 §2.3.1.3: unavailable → allowed
            else:
                rp = Protego.parse(robots_text(result.content, max_bytes=ROBOTS_MAX_BYTES))
            with self._lock:
                self._robots[origin] = rp
            return rp

    def _robots_refusal(self, url: str, deadline: float) -> str | None:
        """Why robots.txt keeps ``url`` from being fetched, or None when it may be.

        A robots.txt that could not be read (no answer, a server error) says so: it is not a
        robots.txt that disallows the page.
        """
        rp = self._robots_parser(url, deadline)
        if rp is None or rp.can_fetch(url, self.config.user_agent):
            return None
        parts = urlsplit(url)
        with self._lock:
            unread = self._robots_unread.get(f"{parts.scheme}://{parts.netloc}")
        return unread or "robots.txt disallows"

    def _pin(self, url: str, addresses: list[str]) -> None:
        if not addresses:
            return
        host = (urlsplit(url).hostname or "").lower()
        with self._pin_lock:
            self._pins[host] = addresses[0]

    def _fetch(
        self,
        url: str,
        *,
        check_robots: bool,
        max_bytes: int,
        retries: int,
        deadline: float | None = None,
        extra_headers: Mapping[str, str] | None = None,
        truncate: bool = False,
    ) -> FetchResult:
        cfg = self.config
        start = self._monotonic()
        deadline = deadline if deadline is not None else start + cfg.deadline_s
        url = strip_credentials(url)
        current = url
        conditional = bool(extra_headers)

        def done(status: int | None, content: bytes, headers: dict[str, str],
                 error: str | None, code: FetchReason | None) -> FetchResult:
            elapsed = int(round((self._monotonic() - start) * 1000))
            return FetchResult(url, current, status, content, headers, error, code, elapsed,
                               conditional)

        for _hop in range(cfg.max_redirects + 1):
            try:
                addresses = check_url_allowed(current, allow_private=cfg.allow_private,
                                              resolver=self._resolver, allow=cfg.allow)
            except HostNotFoundError as exc:  # not the guard's refusal: no such name
                return done(None, b"", {}, f"dns: {exc}", FetchReason.DNS)
            except BlockedURLError as exc:
                return done(None, b"", {}, f"blocked: {exc}", FetchReason.BLOCKED)
            if check_robots and cfg.respect_robots and (
                    refusal := self._robots_refusal(current, deadline)) is not None:
                return done(None, b"", {}, refusal, FetchReason.ROBOTS)
            # robots.txt may have been fetched on its own pin: set this URL's pin last
            self._pin(current, addresses)
            try:
                resp = self._request_with_retries(
                    current, max_bytes=max_bytes, retries=retries, deadline=deadline,
                    extra_headers=extra_headers, truncate=truncate)
            except _FetchError as exc:
                return done(None, b"", {}, exc.reason, exc.code)
            location = resp.headers.get("location")
            if resp.status in _REDIRECT_CODES and location:
                current = strip_credentials(urljoin(current, location.strip()))
                continue
            return done(resp.status, resp.content, resp.headers, None, None)
        return done(None, b"", {}, f"too many redirects (> {cfg.max_redirects})",
                    FetchReason.TOO_MANY_REDIRECTS)

    # -- public --------------------------------------------------------------------------------

    def fetch(
        self,
        url: str,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> FetchResult:
        """Fetch one URL through the guard, robots.txt, retries, the byte cap and the deadline.

        Never raises for network or policy failures: they are reported in ``FetchResult.error``
        and ``FetchResult.reason``. Credentials in the URL are dropped first.

        Args:
            url: An http(s) URL.
            etag: An ETag from an earlier answer: sent as ``If-None-Match`` (RFC 9110 §13.1.2).
            last_modified: A Last-Modified value from an earlier answer: sent as
                ``If-Modified-Since`` (RFC 9110 §13.1.3).

        Returns:
            A :class:`FetchResult`; an HTTP error status (404, 500 after retries) is a result
            with that status and ``error=None``; a 304 has ``not_modified`` set and no body.
        """
        headers = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        return self._fetch(
            url,
            check_robots=True,
            max_bytes=self.config.max_bytes,
            retries=self.config.max_retries,
            extra_headers=headers or None,
        )

    def fetch_many(
        self,
        urls: Iterable[str],
        *,
        validators: Mapping[str, tuple[str | None, str | None]] | None = None,
    ) -> list[FetchResult]:
        """Fetch many URLs on a thread pool; per-host concurrency stays within the config.

        Args:
            urls: URLs to fetch.
            validators: URL → (ETag, Last-Modified) of an earlier answer, for conditional
                requests (see :meth:`fetch`).

        Returns:
            One :class:`FetchResult` per URL, in input order.
        """
        url_list = list(urls)
        if not url_list:
            return []
        known = validators or {}

        def one(url: str) -> FetchResult:
            etag, last_modified = known.get(url, (None, None))
            return self.fetch(url, etag=etag, last_modified=last_modified)

        workers = min(self.config.max_workers, len(url_list))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fetch") as pool:
            return list(pool.map(one, url_list))


def robots_text(content: bytes, *, max_bytes: int = ROBOTS_MAX_BYTES) -> str:
    r"""Decode a robots.txt body as a standard parser reads it.

    UTF-8 (RFC 9309 §2.3), a leading byte-order mark dropped, invalid bytes replaced; a body of
    ``max_bytes`` or more is cut at its last complete line (RFC 9309 §2.5), so a rule is never
    read half.

    >>> robots_text(b"\xef\xbb\xbfUser-agent: *\nDisallow: /x\n")
    'User-agent: *\nDisallow: /x\n'
    """
    data = content
    if len(data) >= max_bytes:
        data = data[:max_bytes]
        cut = max(data.rfind(b"\n"), data.rfind(b"\r"))
        data = data[: cut + 1] if cut >= 0 else b""
    return data.decode("utf-8-sig", "replace").lstrip("\ufeff")
