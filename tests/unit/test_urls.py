"""Tests of tasks.urls: canonical URL spelling and host extraction."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from affidavit.tasks.urls import canonicalize_url, host_of, is_tracking_param


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTPS://WWW.Example.COM/Path/", "https://example.com/Path"),
        ("http://example.com/", "http://example.com"),
        ("http://example.com", "http://example.com"),
        ("http://example.com/a/b/#frag", "http://example.com/a/b"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("https://user:pw@www.example.com/a", "https://example.com/a"),
        (
            "https://example.com/a?utm_source=x&UTM_Medium=y&id=3&fbclid=1&gclid=2&mc_cid=3"
            "&mc_eid=4&ref=tw&page=2",
            "https://example.com/a?id=3&page=2",
        ),
        ("https://example.com/a?b=2&a=1", "https://example.com/a?b=2&a=1"),
        ("https://example.com/a?utm_source=only", "https://example.com/a"),
        ("https://example.com/%7Euser/", "https://example.com/~user"),
        ("https://example.com//double//slash/", "https://example.com/double/slash"),
        ("https://www.example.com.:443/", "https://example.com"),
    ],
)
def test_canonicalize_url_rules(url: str, expected: str) -> None:
    assert canonicalize_url(url) == expected


def test_canonicalize_keeps_non_tracking_ref_like_names() -> None:
    # Only the exact name "ref" is tracking; "referrer_id" and "preference" are content.
    got = canonicalize_url("https://example.com/?referrer_id=1&preference=dark&ref=home")
    assert got == "https://example.com?referrer_id=1&preference=dark"


@pytest.mark.parametrize("raw", ["not a url", "", "/relative/path", "mailto:someone"])
def test_canonicalize_leaves_non_urls_alone(raw: str) -> None:
    assert canonicalize_url(raw) == raw.strip()


def test_tracking_param_names() -> None:
    assert is_tracking_param("utm_content")
    assert is_tracking_param("mc_eid")
    assert not is_tracking_param("id")
    assert not is_tracking_param("refresh")


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://WWW.BBC.co.uk/news", "bbc.co.uk"),
        ("http://news.example.com:8080/a", "news.example.com"),
        ("https://www2.example.com/", "www2.example.com"),
        ("http://[::1]:8000/", "::1"),
        ("not a url", None),
        ("", None),
        (None, None),
    ],
)
def test_host_of(url: str | None, host: str | None) -> None:
    assert host_of(url) == host


_url_parts = st.fixed_dictionaries(
    {
        "scheme": st.sampled_from(["http", "https", "HTTP"]),
        "www": st.booleans(),
        "host": st.from_regex(r"[a-z][a-z0-9-]{0,10}\.(com|org|co\.uk)", fullmatch=True),
        "path": st.lists(st.from_regex(r"[A-Za-z0-9._~-]{1,8}", fullmatch=True), max_size=4),
        "slash": st.booleans(),
        "query": st.lists(
            st.tuples(
                st.sampled_from(["id", "page", "utm_source", "fbclid", "q", "ref", "mc_cid"]),
                st.from_regex(r"[a-z0-9]{0,5}", fullmatch=True),
            ),
            max_size=4,
        ),
        "frag": st.sampled_from(["", "#top", "#a-b"]),
    }
)


@given(_url_parts)
def test_canonicalize_is_idempotent_and_drops_tracking(parts: dict) -> None:
    host = ("www." if parts["www"] else "") + parts["host"]
    path = "/" + "/".join(parts["path"]) + ("/" if parts["slash"] else "")
    query = "&".join(f"{k}={v}" for k, v in parts["query"])
    url = f"{parts['scheme']}://{host.upper()}{path}" + (f"?{query}" if query else "")
    url += parts["frag"]
    once = canonicalize_url(url)
    assert canonicalize_url(once) == once
    assert "utm_" not in once
    assert "fbclid" not in once
    assert "mc_cid" not in once
    assert "#" not in once
    assert not once.endswith("/")
    assert host_of(once) == parts["host"]
