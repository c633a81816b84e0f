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
import io
import re
from dataclasses import dataclass

__all__ = ["DecodedText", "cp1252_char", "decode_document", "decode_user_text", "open_user_bytes",
           "open_user_text", "repair_escaped_bytes", "sniff_bomless_utf16"]

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
        n_repaired: Bytes that were not UTF-8 and were read as Windows-1252
            (:func:`decode_user_text`).
        first_repair_line: The 1-based line of the first such byte, None when there is none.
    """

    text: str
    encoding: str
    source: str
    n_replaced: int = 0
    declared_wrong: bool = False
    n_repaired: int = 0
    first_repair_line: int | None = None


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



_ESCAPED_BYTES_RE = re.compile("[\udc80-\udcff]+")


def cp1252_char(byte: int) -> str:
    """Return the Windows-1252 character of a byte.

    The five bytes it leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) map to the code point of
    the same number, as the WHATWG Encoding Standard's windows-1252 decoder maps them.
    """
    try:
        return bytes([byte]).decode("cp1252")
    except UnicodeDecodeError:
        return chr(byte)


def repair_escaped_bytes(text: str) -> tuple[str, int]:
    r"""Read the bytes a ``surrogateescape`` UTF-8 decoding could not decode as Windows-1252.

    Returns:
        ``(text, n_bytes)``: the text with each escaped byte (U+DC80-U+DCFF) replaced by its
        Windows-1252 character, and how many there were.

    >>> repair_escaped_bytes(b"caf\xe9 \x93q\x94".decode("utf-8", "surrogateescape"))
    ('caf\xe9 \u201cq\u201d', 3)
    """
    n = 0

    def repl(m: re.Match[str]) -> str:
        nonlocal n
        n += len(m.group())
        return "".join(cp1252_char(ord(c) - 0xDC00) for c in m.group())

    return _ESCAPED_BYTES_RE.sub(repl, text), n


def decode_user_text(data: bytes) -> DecodedText:
    r"""Decode a file a user gives (claims, dumps, sessions, answers, evidence, texts).

    The one policy of every such reader: a byte-order mark names the encoding (UTF-8, UTF-16
    or UTF-32, the mark removed; a sequence that does not decode becomes U+FFFD, counted in
    ``n_replaced``); without one the bytes are UTF-8, and a byte that is not UTF-8 is read as
    Windows-1252 (a file saved by a Windows program, or one such row pasted in), counted in
    ``n_repaired`` with the line of the first (``first_repair_line``), for the reader's note.
    No byte is lost. Web pages and XML feeds declare their own encoding:
    :func:`decode_document` reads those.

    >>> d = decode_user_text(b"ok\nCaf\xe9 \x93q\x94\n")
    >>> d.text, d.n_repaired, d.first_repair_line
    ('ok\nCaf\xe9 \u201cq\u201d\n', 3, 2)
    >>> decode_user_text("id,text\n1,Z\u00fcrich\n".encode("utf-16")).text
    'id,text\n1,Z\xfcrich\n'
    """
    for bom, name in _BOMS:
        if data.startswith(bom):
            text, n = _decode_counting(data[len(bom):], name)
            return DecodedText(text, name, "bom", n_replaced=n)
    text = data.decode("utf-8", "surrogateescape")
    m = _ESCAPED_BYTES_RE.search(text)
    if m is None:
        return DecodedText(text, "utf-8", "default")
    first_line = text.count("\n", 0, m.start()) + 1
    text, n = repair_escaped_bytes(text)
    return DecodedText(text, "utf-8", "default", n_repaired=n, first_repair_line=first_line)



UTF16_SNIFF_MIN_BYTES = 16
"""Fewest bytes :func:`sniff_bomless_utf16` judges (8 characters: shorter heads say too little)."""
UTF16_NUL_SHARE = 1 / 2
"""Share of one parity's bytes that must be NUL for :func:`sniff_bomless_utf16` (text in a Latin
script has one on every character: nearly all of them; half leaves room for other scripts)."""
UTF16_OTHER_NUL_SHARE = 1 / 20
"""Largest share of NULs at the other parity (binary data has them at both; one in twenty, as
:data:`affidavit.tasks.sanitize.NOT_TEXT_SHARE` tells text from binary data)."""


def sniff_bomless_utf16(data: bytes) -> str | None:
    r"""Tell UTF-16 text saved without a byte-order mark, which is read as UTF-8 (not text).

    Text in a Latin script saved as UTF-16 has a NUL byte beside each character: at the odd
    offsets for little-endian, at the even ones for big-endian, and next to none at the other
    parity; binary data has NULs at both. A file that starts with a byte-order mark is not
    judged (:func:`decode_user_text` reads it).

    Args:
        data: The head of a file (an odd last byte is ignored).

    Returns:
        ``"utf-16-le"`` or ``"utf-16-be"``, or None.

    >>> sniff_bomless_utf16("id,text\n1,Z\u00fcrich\n".encode("utf-16-le"))
    'utf-16-le'
    >>> sniff_bomless_utf16("id,text\n1,Z\u00fcrich\n".encode("utf-16-be"))
    'utf-16-be'
    >>> sniff_bomless_utf16(bytes(range(256))), sniff_bomless_utf16(b"plain text, UTF-8 here")
    (None, None)
    """
    if any(data.startswith(bom) for bom, _ in _BOMS):
        return None
    n = len(data) // 2 * 2
    if n < UTF16_SNIFF_MIN_BYTES:
        return None
    half = n // 2
    even, odd = data[0:n:2].count(0), data[1:n:2].count(0)
    for nuls, others, name in ((odd, even, "utf-16-le"), (even, odd, "utf-16-be")):
        if nuls >= half * UTF16_NUL_SHARE and others <= half * UTF16_OTHER_NUL_SHARE:
            return name
    return None


_WIDE_BOMS = tuple((bom, name) for bom, name in _BOMS if not name.startswith("utf-8"))


def _wide_encoding(fh: io.BufferedIOBase) -> str | None:
    """The UTF-16/32 encoding a stream's byte-order mark names (peeked, not consumed), or None."""
    head = fh.peek(4)[:4] if hasattr(fh, "peek") else b""
    for bom, name in _WIDE_BOMS:
        if head.startswith(bom):
            return name[:6]  # "utf-16", "utf-32": the codec reads the mark and its order
    return None


class _RepairedText(io.TextIOBase):
    """A UTF-8 text stream whose bytes that are not UTF-8 are read as Windows-1252.

    Decoded with ``surrogateescape``; the escaped bytes are repaired as they are read
    (:func:`repair_escaped_bytes`) and counted in ``n_repaired``.
    """

    def __init__(self, inner: io.TextIOWrapper) -> None:
        self._inner = inner
        self.n_repaired = 0

    def readable(self) -> bool:  # noqa: D102
        return True

    def read(self, size: int | None = -1) -> str:  # noqa: D102
        text, n = repair_escaped_bytes(self._inner.read(size))
        self.n_repaired += n
        return text

    def readline(self, size: int | None = -1) -> str:  # noqa: D102
        text, n = repair_escaped_bytes(self._inner.readline(size if size is not None else -1))
        self.n_repaired += n
        return text

    def close(self) -> None:  # noqa: D102
        self._inner.close()
        super().close()


def open_user_text(fh: io.BufferedIOBase) -> io.TextIOBase:
    """Open a user file's byte stream as text, by :func:`decode_user_text`'s policy, streaming.

    Args:
        fh: The bytes (a file opened ``"rb"`` or a gzip stream: anything with ``peek``).

    Returns:
        A text stream (universal newlines off: ``CRLF`` is kept for CSV readers).
    """
    wide = _wide_encoding(fh)
    if wide is not None:
        return io.TextIOWrapper(fh, encoding=wide, errors="replace", newline="")
    return _RepairedText(io.TextIOWrapper(fh, encoding="utf-8-sig", errors="surrogateescape",
                                          newline=""))


class _Utf8Bytes(io.RawIOBase):
    """The UTF-8 bytes of a text stream, read in pieces (a UTF-16/32 file seen as UTF-8)."""

    def __init__(self, text: io.TextIOBase) -> None:
        self._text = text
        self._buf = b""

    def readable(self) -> bool:  # noqa: D102
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]  # noqa: D102
        while not self._buf:
            chunk = self._text.read(64 * 1024)
            if not chunk:
                return 0
            self._buf = chunk.encode("utf-8")
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n

    def close(self) -> None:  # noqa: D102
        self._text.close()
        super().close()


def open_user_bytes(fh: io.BufferedIOBase) -> io.BufferedIOBase:
    """A user file's byte stream as UTF-8 bytes: transcoded when a UTF-16/32 mark opens it.

    For readers that split bytes into lines (JSONL) before decoding each
    (:func:`decode_user_text`); other streams are returned as they are.
    """
    wide = _wide_encoding(fh)
    if wide is None:
        return fh
    return io.BufferedReader(_Utf8Bytes(io.TextIOWrapper(fh, encoding=wide, errors="replace",
                                                         newline="")))
