"""Main text and metadata of HTML pages with trafilatura; plain text of feed entry HTML.

Pure functions over bytes and strings, no IO. Two facts shape this module (measured on this
project's machine, trafilatura 2.3.1):

* trafilatura needs about 20 s and 420 MB for a 12 MiB page, so pages are cut to
  ``max_bytes`` (default :data:`DEFAULT_MAX_PAGE_BYTES`, 2 MiB) *before* extraction. News
  article pages are well under that (the 181 pages of the article-extraction benchmark are all
  below 1 MiB), so the cap only bounds the cost of pathological pages.
* trafilatura returns empty text, silently, for deeply nested markup. :func:`extract_html`
  returns ``None`` for an empty extraction so that the caller counts it (``"empty_extraction"``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

__all__ = [
    "DEFAULT_MAX_PAGE_BYTES",
    "ExtractedPage",
    "clean_text",
    "date_is_stated",
    "extract_html",
    "html_to_text",
    "note_page_repairs",
]

DEFAULT_MAX_PAGE_BYTES = 2 * 1024 * 1024
"""Bytes of HTML kept before extraction (2 MiB). trafilatura took ~20 s / 420 MB on a 12 MiB page
on this machine; 2 MiB keeps every page of the article-extraction benchmark whole."""

_LANG_RE = re.compile(
    rb"<html[^>]*?\blang\s*=\s*[\"']?([A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?)", re.I
)
_NUL_RE = re.compile("\x00")
_BLANK_LINES_RE = re.compile(r"\n{3,}")
_TRAILING_WS_RE = re.compile(r"[ \t\r\f\v]+\n")

logging.getLogger("trafilatura").setLevel(logging.CRITICAL)
logging.getLogger("htmldate").setLevel(logging.CRITICAL)


@dataclass(frozen=True, slots=True)
class ExtractedPage:
    """Main text and metadata of one HTML page.

    Attributes:
        text: Main text, paragraphs separated by newlines; never empty.
        title: Page title, or None.
        author: Author string as the page gives it, or None.
        published_at: Publication time (tz-aware UTC) when the page's date parses strictly.
        published_at_raw: The date string trafilatura found (``YYYY-MM-DD``), or None.
        lang: Language code from trafilatura or the ``<html lang>`` attribute, or None.
        truncated: The page was longer than the byte cap and only its beginning was read.
        n_replaced: Bytes that were not valid in the page's encoding (now U+FFFD).
        date_untrusted: A date trafilatura returned that the page does not state (it infers
            ``YYYY-01-01`` from a year in the body); ``published_at`` is then None.
    """

    text: str
    title: str | None
    author: str | None
    published_at: datetime | None
    published_at_raw: str | None
    lang: str | None
    truncated: bool = False
    n_replaced: int = 0
    date_untrusted: str | None = None


def note_page_repairs(page: ExtractedPage, where: str, add: Callable[[str, str], None], *,
                      max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES) -> None:
    """Count what :func:`extract_html` flagged on a page: truncation, bad bytes, an untrusted date.

    Args:
        page: The extracted page.
        where: Locator for messages (file and record, or URL).
        add: ``add(reason, message)``, e.g. ``IngestBatch.add_skip``.
        max_page_bytes: The cap the page was cut at (for the message).
    """
    if page.truncated:
        add("page_truncated", f"{where}: page larger than {max_page_bytes} bytes: only its "
            "beginning was read")
    if page.n_replaced:
        add("replacement_chars", f"{where}: {page.n_replaced} byte(s) not valid in the page's "
            "encoding replaced by U+FFFD")
    if page.date_untrusted:
        add("date_untrusted", f"{where}: date {page.date_untrusted} is not stated on the page "
            "(inferred by the extractor): stored as NULL")


def clean_text(text: str) -> str:
    r"""Remove NUL characters, trailing spaces of lines and runs of blank lines; strip the ends.

    >>> clean_text("a\x00b  \n\n\n\nc ")
    'ab\n\nc'
    """
    text = _NUL_RE.sub("", text)
    text = _TRAILING_WS_RE.sub("\n", text.replace("\r\n", "\n"))
    return _BLANK_LINES_RE.sub("\n\n", text).strip()


def _sniff_lang(head: bytes) -> str | None:
    m = _LANG_RE.search(head[:20000])
    return m.group(1).decode("ascii").replace("_", "-").lower() if m else None


_MONTHS = ("January February March April May June July August September October November "
           "December").split()


def date_is_stated(page: str, iso_date: str) -> bool:
    """Whether ``page`` states the date ``YYYY-MM-DD`` itself (markup, metadata or text).

    Accepted forms: ``2024-03-05``, ``2024/03/05``, ``2024.03.05``, ``20240305`` (URLs),
    ``5.3.2024`` / ``05/03/2024`` / ``3/5/2024``, ``5 March 2024``, ``March 5, 2024`` (English
    month names, full or three letters). trafilatura (htmldate) turns a bare year in the body
    into ``YYYY-01-01``; such a date is not stated and must not be stored.

    >>> date_is_stated('<meta property="article:published_time" content="2024-03-05T10:00">',
    ...                "2024-03-05")
    True
    >>> date_is_stated("<p>Founded in 1998, the firm ...</p>", "1998-01-01")
    False
    """
    try:
        y, m, d = (int(x) for x in iso_date[:10].split("-"))
    except ValueError:
        return False
    if not 1 <= m <= 12:
        return False
    forms = [rf"{y}[-/.]0?{m}[-/.]0?{d}(?!\d)", rf"{y}{m:02d}{d:02d}(?!\d)",
             rf"(?<!\d)0?{d}[./]0?{m}[./]{y}", rf"(?<!\d)0?{m}/0?{d}/{y}"]
    name = _MONTHS[m - 1]
    mon = rf"(?:{name}|{name[:3]}\.?)"
    forms += [rf"(?<!\d)0?{d}(?:st|nd|rd|th)?\.?\s+(?:of\s+)?{mon},?\s+{y}",
              rf"{mon}\s+0?{d}(?:st|nd|rd|th)?,?\s+{y}"]
    return re.search("|".join(forms), page, re.I) is not None


def extract_html(
    html: bytes | str,
    *,
    url: str | None = None,
    max_bytes: int = DEFAULT_MAX_PAGE_BYTES,
    content_type: str | None = None,
) -> ExtractedPage | None:
    """Extract the main text and metadata of one HTML page with trafilatura.

    Args:
        html: The page, as bytes (decoded by :func:`affidavit.tasks.charset.decode_document`:
            HTTP header, then BOM, then ``<meta charset>``) or text.
        url: The page's URL, used by trafilatura for metadata; optional.
        max_bytes: Bytes kept before extraction (a str is measured in UTF-8 bytes); must be > 0.
            A longer page is cut and flagged ``truncated``.
        content_type: The HTTP ``Content-Type`` the page came with, if any.

    Returns:
        An :class:`ExtractedPage`, or ``None`` when the extraction is empty (the caller counts
        it) or trafilatura fails on the markup.

    Raises:
        ValueError: When ``max_bytes`` is not positive.
    """
    # Imported here: trafilatura's import costs ~1 s and needs lxml_html_clean.
    from trafilatura import bare_extraction

    from affidavit.tasks.ingest_common import parse_datetime

    if max_bytes <= 0:
        raise ValueError(f"max_bytes must be positive, got {max_bytes}")
    from affidavit.tasks.charset import decode_document

    data = html.encode("utf-8", "replace") if isinstance(html, str) else bytes(html)
    truncated = len(data) > max_bytes
    if truncated:
        data = data[:max_bytes]
    if not data.strip():
        return None
    if isinstance(html, str):
        page, n_replaced = html if not truncated else data.decode("utf-8", "ignore"), 0
    else:
        dec = decode_document(data, content_type=content_type, kind="html")
        page, n_replaced = dec.text, dec.n_replaced
        if truncated and page.endswith("\ufffd"):  # a character cut by the byte cap
            page, n_replaced = page.rstrip("\ufffd"), max(n_replaced - 1, 0)
    try:
        doc = bare_extraction(
            page,
            url=url,
            with_metadata=True,
            include_comments=False,
            include_tables=True,
        )
    except Exception:  # noqa: BLE001 - trafilatura/lxml raise many kinds on broken markup
        return None
    if doc is None:
        return None
    meta = doc.as_dict() if hasattr(doc, "as_dict") else dict(doc)
    text = clean_text(meta.get("text") or "")
    if not text:
        return None
    raw_date = meta.get("date") or None
    untrusted = None
    if raw_date and not date_is_stated(page, str(raw_date)):
        untrusted, raw_date = str(raw_date), None
    lang = meta.get("language") or _sniff_lang(data)
    return ExtractedPage(
        text=text,
        title=(meta.get("title") or None),
        author=(meta.get("author") or None),
        published_at=parse_datetime(raw_date) if raw_date else None,
        published_at_raw=raw_date,
        lang=lang,
        truncated=truncated,
        n_replaced=n_replaced,
        date_untrusted=untrusted,
    )


_BLOCK_TAGS = (
    "p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
    "pre", "table", "tr", "section", "article", "header", "footer", "figure", "figcaption", "hr",
)  # fmt: skip


def html_to_text(fragment: str) -> str:
    r"""Return the plain text of an HTML fragment (a feed entry's content or summary).

    Scripts, styles and comments are dropped; block elements become line breaks; entities are
    decoded. Text without markup is returned cleaned but otherwise unchanged. lxml's HTML parser
    does not expand external or custom entities, so this is safe on untrusted input.

    Args:
        fragment: HTML or plain text.

    Returns:
        The text, NUL-free, one line per block element, no blank lines; ``""`` for an empty
        fragment.

    >>> html_to_text("<p>One &amp; two</p><p>three<br/>four</p><script>x()</script>")
    'One & two\nthree\nfour'
    """
    if not fragment or not fragment.strip():
        return ""
    fragment = _NUL_RE.sub("", fragment)
    if "<" not in fragment and "&" not in fragment:
        return clean_text(fragment)
    import lxml.html
    from lxml import etree

    try:
        root = lxml.html.fragment_fromstring(fragment, create_parent="div")
    except (etree.ParserError, ValueError):
        return clean_text(re.sub(r"<[^>]*>", " ", fragment))
    etree.strip_elements(root, "script", "style", "noscript", etree.Comment, with_tail=False)
    for el in root.iter(*_BLOCK_TAGS):
        el.tail = "\n" + (el.tail or "")
        if el.tag in ("br", "hr"):
            continue
        el.text = "\n" + (el.text or "") if el.tag not in ("li",) else (el.text or "")
    text = root.text_content()
    text = re.sub(r"[ \t\u00a0]+", " ", text)
    # One line per block, like trafilatura's text output (paragraphs on their own lines).
    lines = [ln.strip() for ln in text.split("\n")]
    return clean_text("\n".join(ln for ln in lines if ln))
