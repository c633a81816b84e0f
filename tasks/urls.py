"""URL canonicalisation: one spelling per document address (DESIGN.md, "Canonicalise").

The canonical form lowercases the scheme and host, drops a leading ``www.``, default ports,
tracking query parameters (``utm_*``, ``fbclid``, ``gclid``, ``mc_*``, ``ref``), the fragment and
trailing slashes of the path, and sorts nothing else: the order of the remaining query parameters
is kept, because some sites give it meaning. Pure functions, no IO.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

__all__ = ["canonicalize_url", "config_url_error", "host_of", "http_url_fault", "is_tracking_param"]

_TRACKING_EXACT = frozenset({"fbclid", "gclid", "ref", "dclid", "msclkid", "yclid"})
"""Tracking parameters dropped by exact (case-insensitive) name. ``fbclid``, ``gclid`` and
``ref`` are named in DESIGN.md; ``dclid``, ``msclkid`` and ``yclid`` are the same click-id kind
(DoubleClick, Microsoft Ads, Yandex)."""

_TRACKING_PREFIXES = ("utm_", "mc_")
"""Tracking parameter prefixes (Google Analytics ``utm_*``, Mailchimp ``mc_*``)."""

_DEFAULT_PORTS = {"http": 80, "https": 443}
_SAFE_PATH = "/:@!$&'()*+,;=-._~%"


def is_tracking_param(name: str) -> bool:
    """Return whether a query parameter name is a tracking parameter.

    >>> is_tracking_param("utm_source"), is_tracking_param("UTM_Medium"), is_tracking_param("id")
    (True, True, False)
    """
    low = name.lower()
    return low in _TRACKING_EXACT or low.startswith(_TRACKING_PREFIXES)


def _normalise_host(host: str) -> str:
    host = host.strip().rstrip(".").lower()
    if host.startswith("www."):
        host = host[4:]
    try:
        # IDN hosts: keep the ASCII (punycode) spelling so that both forms compare equal.
        host = host.encode("idna").decode("ascii")
    except UnicodeError:
        pass
    return host


def canonicalize_url(url: str) -> str:
    """Return the canonical spelling of ``url``.

    Lowercase scheme and host, no ``www.``, no default port, no user info, no fragment, no
    tracking parameters, no trailing slash on the path (the root path becomes empty).
    A string that does not parse as an absolute URL with a host is returned stripped but
    otherwise unchanged, so the function never raises on odd input.

    Args:
        url: An absolute URL.

    Returns:
        The canonical URL string.

    >>> canonicalize_url("HTTPS://WWW.Example.com:443/a/b/?utm_source=x&id=3&fbclid=1#top")
    'https://example.com/a/b?id=3'
    >>> canonicalize_url("http://example.com/")
    'http://example.com'
    """
    raw = url.strip()
    try:
        parts = urlsplit(raw)
    except ValueError:
        return raw
    scheme = parts.scheme.lower()
    if not scheme or not parts.netloc:
        return raw
    try:
        hostname = parts.hostname or ""
        port = parts.port
    except ValueError:
        return raw
    host = _normalise_host(hostname)
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host
    if port is not None and _DEFAULT_PORTS.get(scheme) != port:
        netloc = f"{host}:{port}"
    # Re-quote the path so that %7E and ~ (and other equivalent spellings) compare equal.
    path = quote(unquote(parts.path), safe=_SAFE_PATH)
    path = re.sub(r"/{2,}", "/", path).rstrip("/")
    query_pairs = [
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if not is_tracking_param(k)
    ]
    query = urlencode(query_pairs, doseq=True) if query_pairs else ""
    return urlunsplit((scheme, netloc, path, query, ""))


def host_of(url: str | None) -> str | None:
    """Return the normalised host of ``url`` (lowercase, no ``www.``), or None when it has none.

    >>> host_of("https://WWW.BBC.co.uk/news"), host_of("not a url")
    ('bbc.co.uk', None)
    """
    if not url:
        return None
    try:
        hostname = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    if not hostname:
        return None
    return _normalise_host(hostname) or None


def http_url_fault(url: str) -> str | None:
    """Say why a configured endpoint URL is not an http(s) URL with a host, or None when it is.

    >>> http_url_fault("http://localhost:8888"), http_url_fault("localhost:8888")
    (None, 'no http:// or https:// scheme')
    >>> http_url_fault("https://"), http_url_fault("http://h:99999")
    ('no host', 'a bad port')
    >>> http_url_fault("http://exa mple.com"), http_url_fault("http://[::1")
    ('a space or a character no host name holds', 'an unclosed [ in its host')
    """
    value = url.strip()
    if not value.lower().startswith(("http://", "https://")):
        return "no http:// or https:// scheme"
    try:
        parts = urlsplit(value)
        host, _ = parts.hostname, parts.port
    except ValueError:
        netloc = value.split("://", 1)[-1].split("/", 1)[0]
        if "[" in netloc and "]" not in netloc:
            return "an unclosed [ in its host"
        return "a bad port" if _has_port(value) else "not a URL"
    if host and _BAD_HOST_CHAR_RE.search(host):
        return "a space or a character no host name holds"
    return None if host else "no host"


_BAD_HOST_CHAR_RE = re.compile(r"[\s<>\"{}|\\^`%]")
"""Characters no host name holds (RFC 3986 reg-name; a percent escape is not resolved by DNS)."""


def _has_port(url: str) -> bool:
    """Whether the host part of ``url`` ends in ``:<something>`` (a port, maybe a bad one)."""
    netloc = url.split("://", 1)[-1].split("/", 1)[0].rsplit("@", 1)[-1]
    return ":" in netloc.rsplit("]", 1)[-1]


def config_url_error(variable: str, url: str, example: str) -> str | None:
    """One line for a URL setting that is not an http(s) URL with a host, naming its source.

    Args:
        variable: Where the URL was given: the environment variable (``AFFIDAVIT_SEARXNG_URL``)
            or the option (``--base-url``).
        url: The value given.
        example: A URL of the kind expected, for the message.

    Returns:
        The message (the value shown without a ``user:password@`` part), or None for a usable
        URL.

    >>> config_url_error("AFFIDAVIT_SEARXNG_URL", "localhost:8888", "http://localhost:8888")
    "AFFIDAVIT_SEARXNG_URL 'localhost:8888' is not an http(s) URL (no http:// or https:// scheme): give one such as http://localhost:8888"
    """  # noqa: E501 - a doctest's output is one line
    fault = http_url_fault(url)
    if fault is None:
        return None
    shown = url.strip()
    if "@" in shown.split("://", 1)[-1].split("/", 1)[0]:
        scheme, _, rest = shown.rpartition("://")
        netloc, slash, path = rest.partition("/")
        shown = f"{scheme}{'://' if scheme else ''}{netloc.rsplit('@', 1)[1]}{slash}{path}"
    return f"{variable} {shown!r} is not an http(s) URL ({fault}): give one such as {example}"
