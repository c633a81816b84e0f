"""Checks of ClaimReview JSON-LD against Google's fact-check structured data guidelines.

Required by the guidelines: ``claimReviewed``, ``reviewRating`` (a Rating whose
``alternateName`` is the textual verdict; ``ratingValue``/``bestRating``/``worstRating`` on one
scale) and ``url``. Recommended: ``author`` (Organization or Person with ``name`` and ``url``),
``datePublished`` and ``itemReviewed`` (a Claim with ``author``, ``datePublished`` and
``appearance`` where they are known). Ours must also carry no null or empty value anywhere.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

REQUIRED = ("@context", "@type", "url", "claimReviewed", "reviewRating")
RECOMMENDED = ("author", "datePublished", "itemReviewed")
RATING_KEYS = ("@type", "ratingValue", "bestRating", "worstRating", "alternateName")


def _is_url(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.hostname) and "@" not in parts.netloc


def _is_date(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def empty_values(node: Any, path: str = "$") -> list[str]:
    """Return the paths of every null, empty string, empty list or empty object."""
    out: list[str] = []
    if node is None or node == "" or node == [] or node == {}:
        return [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += empty_values(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += empty_values(v, f"{path}[{i}]")
    return out


def claimreview_problems(node: dict[str, Any], *, expect_appearance: bool = False) -> list[str]:
    """Return what is wrong with one ClaimReview node (empty when it validates).

    Args:
        node: The node.
        expect_appearance: The claim came from a stored document, so the Claim's author,
            datePublished and appearance are known and must be given.
    """
    problems = [f"missing required {k}" for k in REQUIRED if k not in node]
    problems += [f"missing recommended {k}" for k in RECOMMENDED if k not in node]
    problems += [f"empty value at {p}" for p in empty_values(node)]
    if "schema.org" not in str(node.get("@context", "")):
        problems.append("@context is not schema.org")
    if node.get("@type") != "ClaimReview":
        problems.append("@type is not ClaimReview")
    if "url" in node and not _is_url(node["url"]):
        problems.append(f"url is not an absolute http(s) URL: {node['url']!r}")
    if not isinstance(node.get("claimReviewed"), str) or not node["claimReviewed"].strip():
        problems.append("claimReviewed is not a text")
    short = node.get("headline")
    if not isinstance(short, str) or not 0 < len(short) <= 75:
        problems.append("no short form (headline of at most 75 characters)")
    rating = node.get("reviewRating") or {}
    problems += [f"reviewRating lacks {k}" for k in RATING_KEYS if k not in rating]
    if rating.get("@type") != "Rating":
        problems.append("reviewRating is not a Rating")
    nums = [rating.get(k) for k in ("worstRating", "ratingValue", "bestRating")]
    if all(isinstance(n, int | float) for n in nums):
        worst, value, best = nums
        if not worst <= value <= best or worst >= best:
            problems.append(f"rating off its scale: {worst} <= {value} <= {best}")
    else:
        problems.append("rating values are not numbers")
    author = node.get("author") or {}
    if author.get("@type") not in ("Organization", "Person"):
        problems.append("author is not an Organization or Person")
    if not author.get("name"):
        problems.append("author has no name")
    if not _is_url(author.get("url")):
        problems.append("author has no url")
    if "datePublished" in node and not _is_date(node["datePublished"]):
        problems.append(f"datePublished is not ISO-8601: {node['datePublished']!r}")
    claim = node.get("itemReviewed") or {}
    if claim.get("@type") != "Claim":
        problems.append("itemReviewed is not a Claim")
    for app in claim.get("appearance") or []:
        if not _is_url(app.get("url")):
            problems.append(f"appearance without an http(s) url: {app!r}")
    if "datePublished" in claim and not _is_date(claim["datePublished"]):
        problems.append("itemReviewed.datePublished is not ISO-8601")
    if expect_appearance:
        for k in ("author", "datePublished", "appearance"):
            if k not in claim:
                problems.append(f"itemReviewed lacks {k} (known for a claim from a document)")
        if claim.get("author") and not claim["author"].get("name"):
            problems.append("itemReviewed.author has no name")
    return problems


def schema_org_loader(url: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """A pyld document loader that answers schema.org's context offline.

    schema.org's own context maps every term into ``http://schema.org/`` (``@vocab``), for
    both its http and https addresses; nothing else is loaded.

    Raises:
        ValueError: For any other URL (tests run offline).
    """
    if urlsplit(url).hostname in ("schema.org", "www.schema.org"):
        return {"contentType": "application/ld+json", "contextUrl": None, "documentUrl": url,
                "document": {"@context": {"@vocab": "http://schema.org/"}}}
    raise ValueError(f"offline: will not load {url}")


def expanded_shape(node: dict[str, Any]) -> dict[str, set[str]]:
    """Expand a node with pyld and return, per nesting level, the property IRIs it uses.

    Returns:
        ``{"review": {...}, "rating": {...}, "item": {...}, "author": {...}}`` of expanded
        property IRIs (``http://schema.org/claimReviewed`` ...), ``@type`` included.
    """
    from pyld import jsonld

    ctx = node.get("@context", "http://schema.org")
    doc = {**node, "@context": ctx}
    expanded = jsonld.expand(doc, {"documentLoader": schema_org_loader})[0]

    def props(obj: dict[str, Any]) -> set[str]:
        return {k for k in obj if k != "@id"}

    def first(obj: dict[str, Any], key: str) -> dict[str, Any]:
        vals = obj.get(f"http://schema.org/{key}") or [{}]
        return vals[0] if isinstance(vals[0], dict) else {}

    return {"review": props(expanded), "rating": props(first(expanded, "reviewRating")),
            "item": props(first(expanded, "itemReviewed")),
            "author": props(first(expanded, "author"))}
