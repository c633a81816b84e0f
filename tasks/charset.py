"""Character encoding of fetched and archived documents: header, then BOM, then in-document.

Pure functions, no IO. The order follows the project's rule for untrusted input: the HTTP
``Content-Type`` charset when there is one, then a byte-order mark, then the document's own
declaration (``<meta charset>`` / ``http-equiv`` for HTML, the XML declaration for feeds), then
UTF-8. Two repairs keep one bad byte from spoiling a whole document:

* A document that claims (or defaults to) UTF-8 and holds valid multi-byte UTF-8 sequences is
  decoded as UTF-8 even when a few bytes are invalid; those bytes become U+FFFD and are counted
  (a stray Latin-1 byte in a UTF-8 feed stays one character, not mojibake everywhere).
* A document that claims UTF-8 but holds no valid multi-byte sequence at all and does not
  decode is in a single-byte code page: it is read as Windows-1252 (what browsers do for
  Latin-1 labels too, WHATWG Encoding Standard) and the wrong declaration is counted.

ISO-8859-1 and US-ASCII labels are read as Windows-1252, as the WHATWG Encoding Standard maps
them: pages labelled Latin-1 routinely use its 0x80-0x9F punctuation (curly quotes, dashes).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

__all__ = ["DecodedText", "decode_document"]

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_HTTP_CHARSET_RE = re.compile(r"charset\s*=\s*[\"']?([A-Za-z0-9._:\-]+)", re.I)
_META_CHARSET_RE = re.compile(rb"<meta[^>]{0,200}?charset\s*=\s*[\"']?\s*([A-Za-z0-9._:\-]+)",
                              re.I)
_XML_DECL_RE = re.compile(rb"^<\?xml[^>]{0,200}?encoding\s*=\s*[\"']([A-Za-z0-9._:\-]+)[\"']",
                          re.I)
_XML_DECL_ENC_RE = re.compile(r"^(\s*<\?xml[^>]{0,200}?encoding\s*=\s*)([\"'])[^\"']*\2", re.I)
_UTF8_MULTIBYTE_RE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}"
)
_WINDOWS_1252_ALIASES = frozenset({"latin_1", "iso8859_1", "ascii", "cp1252"})
_META_SNIFF_BYTES = 4096
"""Bytes searched for a ``<meta charset>`` (the HTML standard's prescan looks at 1,024; pages
with long head scripts put it later)."""


@dataclass(frozen=True, slots=True)
class DecodedText:
    """A document decoded to text.

    Attributes:
        text: The decoded text (a BOM removed).
        encoding: Python codec name used.
        source: Where the encoding came from: ``http``, ``bom``, ``meta``, ``xml``, ``default``.
        n_replaced: Bytes or sequences that could not be decoded and became U+FFFD.
        declared_wrong: The declared encoding could not be right (UTF-8 declared, a single-byte
            code page found) and Windows-1252 was used instead.
    """

    text: str
    encoding: str
    source: str
    n_replaced: int = 0
    declared_wrong: bool = False


def _codec(label: str | None) -> str | None:
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().lower()).name
    except LookupError:
        return None
    if name.replace("-", "_") in _WINDOWS_1252_ALIASES:
        return "cp1252"
    return name


def _decode_counting(data: bytes, encoding: str) -> tuple[str, int]:
    """Decode with replacement; count the replacements (U+FFFD the bytes did not spell)."""
    text = data.decode(encoding, "replace")
    n = text.count("\ufffd")
    if encoding in ("utf-8", "utf_8"):
        n -= data.count("\ufffd".encode())
    return text, max(n, 0)


def decode_document(data: bytes, *, content_type: str | None = None,
                    kind: str = "html") -> DecodedText:
    r"""Decode a fetched or archived document (HTML page or XML feed) to text.

    Args:
        data: The document bytes (already decompressed).
        content_type: The HTTP ``Content-Type`` header, when the document was fetched or
            archived with one.
        kind: ``"html"`` (look for ``<meta charset>``) or ``"xml"`` (the XML declaration).

    Returns:
        A :class:`DecodedText`; never raises on bad bytes.

    >>> d = decode_document("<p>Caf\u00e9 M\u00f6we</p>".encode() + b" \xe9")
    >>> d.encoding, d.n_replaced, d.text.endswith("\ufffd")
    ('utf-8', 1, True)
    >>> latin1 = "text/html; charset=iso-8859-1"
    >>> decode_document(b"<p>\x93Quoted\x94</p>", content_type=latin1).text
    '<p>\u201cQuoted\u201d</p>'
    """
    encoding, source = None, "default"
    bom_len = 0
    http = _HTTP_CHARSET_RE.search(content_type or "")
    if http and _codec(http.group(1)):
        encoding, source = _codec(http.group(1)), "http"
    for bom, name in _BOMS:
        if data.startswith(bom):
            bom_len = len(bom)
            if encoding is None:
                encoding, source = name, "bom"
            break
    if encoding is None:
        head = data[bom_len:bom_len + _META_SNIFF_BYTES]
        m = (_XML_DECL_RE.match(head.lstrip()) if kind == "xml"
             else _META_CHARSET_RE.search(head) or _XML_DECL_RE.match(head.lstrip()))
        if m and _codec(m.group(1).decode("ascii", "replace")):
            encoding = _codec(m.group(1).decode("ascii"))
            source = "xml" if kind == "xml" or m.re is _XML_DECL_RE else "meta"
    if encoding is None:
        encoding = "utf-8"
    body = data[bom_len:] if source == "bom" or (bom_len and encoding.startswith(
        ("utf-8", "utf_8"))) else data
    try:
        return DecodedText(body.decode(encoding), encoding, source)
    except UnicodeDecodeError:
        pass
    if encoding in ("utf-8", "utf_8") and not _UTF8_MULTIBYTE_RE.search(body):
        return DecodedText(body.decode("cp1252", "replace"), "cp1252", source,
                           declared_wrong=True)
    text, n = _decode_counting(body, encoding)
    return DecodedText(text, encoding, source, n_replaced=n)


def set_xml_declared_encoding(text: str, encoding: str = "utf-8") -> str:
    """Rewrite the XML declaration's ``encoding`` (after decoding, the text is re-encoded).

    >>> set_xml_declared_encoding('<?xml version="1.0" encoding="ISO-8859-1"?><rss/>')
    '<?xml version="1.0" encoding="utf-8"?><rss/>'
    """
    return _XML_DECL_ENC_RE.sub(lambda m: f"{m.group(1)}{m.group(2)}{encoding}{m.group(2)}",
                                text, count=1)
