"""Input files checked before any work starts: what the name and the first bytes tell.

Commands check their input files here before Prefect starts or the home is touched, so a file
that cannot be read is refused in one line, in about a second, with nothing written. Only the
head of a file is read (:data:`affidavit.tasks.sanitize.SNIFF_CHARS` bytes), so a check costs
the same for a file of any size; malformed records further in are found by the readers, and
skipped and counted. This module imports nothing heavy (no pyarrow, Polars, DuckDB, Prefect):
the CLI runs it before its first line of progress.
"""

from __future__ import annotations

import errno
import gzip
import os
import re
import stat
import zlib
from pathlib import Path

from affidavit.tasks.charset import decode_user_text, sniff_bomless_utf16
from affidavit.tasks.sanitize import (
    SNIFF_CHARS,
    UntrustedJSONError,
    json_type_name,
    loads_untrusted_json,
    looks_binary,
)

__all__ = [
    "CLAIMS_FORMATS",
    "DUMP_FORMATS",
    "SESSION_EXTENSIONS",
    "check_claims_file",
    "check_sessions_file",
    "check_text_file",
    "claims_format",
    "dump_format",
    "file_above",
    "dump_header_fault",
    "repeated_column_fault",
    "binary_dump_fault",
    "dump_text_fault",
    "dump_not_text_fault",
    "gzip_name_fault",
    "html_page_feed_fault",
    "looks_like_html_page",
    "input_file_fault",
    "input_path_fault",
    "plain_text_feed_fault",
    "json_feed_fault",
    "missing_column_fault",
    "name_keys",
    "os_error_reason",
    "path_fault",
    "regular_file_fault",
    "NOT_A_REGULAR_FILE",
    "shown_path",
    "utf16_fault",
]

CLAIMS_FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".jsonlines": "jsonl", ".json": "json",
                  ".csv": "csv", ".tsv": "tsv", ".tab": "tsv"}
"""Extension of a claims file (before an optional ``.gz``) → its format."""

DUMP_FORMATS = {**CLAIMS_FORMATS, ".parquet": "parquet"}
"""Extension of a document dump → its format: the one list that the up-front checks
(:func:`dump_text_fault`), the kind detection (:func:`affidavit.tasks.ingest.detect_kind`) and
the reader (:func:`affidavit.tasks.ingest_dumps.read_dump`) go by. The text formats may be
gzipped (``.gz`` after the extension); Parquet may not (it compresses its own pages)."""

SESSION_EXTENSIONS = tuple(e for e, f in DUMP_FORMATS.items() if f in ("jsonl", "json", "parquet"))
"""Extensions of a sessions file (a ``.gz`` after the text ones is read through gzip)."""


def shown_path(path: str | os.PathLike[str]) -> str:
    """Name a path in a message exactly as the user typed it.

    Messages name the value given: a ``Path`` made from it drops a leading ``./``, doubled
    slashes and a trailing slash (``Path("./x.csv")`` prints ``x.csv``), so the checks and
    readers open their ``Path`` and name the original.

    >>> shown_path("./x.csv"), str(Path("./x.csv"))
    ('./x.csv', 'x.csv')
    """
    return os.fspath(path)


def _extension(path: Path) -> str:
    """The last extension of ``path`` other than ``.gz``, lower case ('' when none)."""
    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    return suffixes[-1] if suffixes else ""


_ERRNO_REASONS = {
    errno.ENOENT: "no such file",
    errno.ELOOP: "symlink loop",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EISDIR: "is a directory, not a file",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.ENAMETOOLONG: "file name too long",
}
"""How an input path's ``OSError`` is told (by ``errno``); others by their ``strerror``."""


def os_error_reason(exc: OSError) -> str:
    """Say in a few words why a path could not be read, from its error number.

    ``ELOOP`` is a symlink loop, not a missing file; a ``FileNotFoundError`` raised without
    an error number (``FileNotFoundError(path)``) is a missing file; ``ENOTDIR`` for a path
    under a file names that file (:func:`file_above`).

    >>> os_error_reason(OSError(errno.ELOOP, "Too many levels of symbolic links"))
    'symlink loop'
    >>> os_error_reason(FileNotFoundError("claims.jsonl"))
    'no such file'
    """
    if exc.errno == errno.ENOTDIR and isinstance(exc.filename, str | os.PathLike) and (
            blocker := file_above(exc.filename)) is not None:
        return f"{shown_path(blocker)} is a file, not a folder"
    if exc.errno in _ERRNO_REASONS:
        return _ERRNO_REASONS[exc.errno]
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if exc.strerror:
        return exc.strerror[0].lower() + exc.strerror[1:]
    return str(exc) or type(exc).__name__


def file_above(path: str | os.PathLike[str]) -> Path | None:
    """Return the file that stands where a folder above a missing ``path`` must be, or None.

    ``notes.txt/out.json``: nothing can be made under a file (``Not a directory``); the
    messages name that file (``notes.txt is a file, not a folder``), for an input, an output
    or a home alike. The file is named as it was given (relative when the path is).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as fh:
    ...     print(file_above(Path(fh.name) / "a" / "b.json") == Path(fh.name),
    ...           file_above(Path(fh.name)))
    True None
    """
    p = Path(path)
    if p.exists():
        return None
    for parent in p.parents:
        if parent.exists():
            return None if parent.is_dir() else parent
    return None


def path_fault(path: str | Path) -> str | None:
    """Say why a local path cannot be opened at all, or None when it can be looked at.

    A broken symlink (its target missing) is said as one, with its target.

    >>> path_fault("/nonexistent/claims.jsonl")
    'no such file'
    """
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ENOENT and os.path.islink(path):
            return f"broken symlink (to {os.readlink(path)}, which does not exist)"
        return os_error_reason(exc)
    except ValueError:  # a NUL byte in the path
        return "not a valid path"
    return None


_FILE_EXTENSION_RE = re.compile(r"\.[A-Za-z0-9]{1,10}$")


def _looks_like_prose(value: str) -> bool:
    """Whether a value given as a file or URL reads as text: words, no folder, no extension."""
    value = value.strip()
    return (len(value.split()) >= 3 and "/" not in value and "\\" not in value
            and not _FILE_EXTENSION_RE.search(value))


def input_path_fault(value: str) -> str | None:
    """Say why an input given as a file or a URL cannot be opened, or None.

    As :func:`path_fault`, except that a value that names no file is said to be neither a
    file nor a URL (it is not looked up as one: only ``http(s)://`` values are); one that
    reads as words, not a path, is pointed to the commands that take a text.

    >>> input_path_fault("nofeed.xml")
    'no such file, and not a URL (a URL starts with http:// or https://)'
    >>> input_path_fault("The bridge opened in 2024.")[:58]
    'not a file or URL: to check a text use verify "TEXT" (a cl'
    """
    fault = path_fault(value)
    if fault != "no such file":
        return fault
    if _looks_like_prose(value):
        return ('not a file or URL: to check a text use verify "TEXT" (a claims file: run '
                "--claims)")
    return "no such file, and not a URL (a URL starts with http:// or https://)"


def _head(path: str | Path, n_bytes: int) -> bytes:
    """Return the first ``n_bytes`` of a file (of its gunzipped content for ``.gz``).

    Raises:
        ValueError: For a ``.gz`` file whose gzip data is broken.
    """
    if fault := gzip_name_fault(path):
        raise ValueError(f"{shown_path(path)}: {fault}")
    p = Path(path)
    with p.open("rb") as raw:
        if p.suffix.lower() != ".gz":
            return raw.read(n_bytes)
        try:
            with gzip.open(raw) as fh:
                return fh.read(n_bytes)
        except (EOFError, OSError, zlib.error) as exc:
            raise ValueError(f"{shown_path(path)}: broken or truncated gzip data ({exc})") \
                from None


NOT_A_REGULAR_FILE = "not a regular file (a device or a pipe): save it to a file first"
"""How every command tells an input file that is a device, a pipe or a socket (``/dev/null``,
``mkfifo``, ``<(…)``, ``/dev/stdin``): inputs are files, read whole and some read twice (a look
at the head, then the reader), and opening a pipe no one writes to waits for ever."""


def regular_file_fault(path: str | Path, *, pipe_ok: bool = False) -> str | None:
    """Say why an existing path is not a regular file, without opening it; None when it is.

    The one test of every input file option (claims, dumps, feeds, sessions, answers,
    evidence, cards, ``verify --file``, ``source``, credibility lists): a directory, or a
    device, a pipe or a socket (:data:`NOT_A_REGULAR_FILE`). Decided by ``os.stat`` (it
    follows symlinks), which never blocks, where opening a FIFO waits for a writer. A path
    that cannot be looked at (missing, a symlink loop) gives None: :func:`path_fault` says it.
    With ``pipe_ok`` a pipe is taken too, for a reader that reads its input once, start to
    end, and bounds what it reads (``verify --file <(command)``).

    >>> regular_file_fault("/"), regular_file_fault("/dev/null")[:19]
    ('is a directory, not a file', 'not a regular file ')
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISDIR(mode):
        return "is a directory, not a file"
    if stat.S_ISREG(mode) or (pipe_ok and stat.S_ISFIFO(mode)):
        return None
    if pipe_ok:
        return "not a regular file or a pipe (a device): save it to a file first"
    return NOT_A_REGULAR_FILE


def _existing_file(path: str | Path, what: str) -> Path:
    p, name = Path(path), shown_path(path)
    p.stat()  # a missing file, a symlink loop: raised with its errno (os_error_reason says it)
    if fault := regular_file_fault(p):
        if fault.startswith("is a directory"):
            raise ValueError(f"{name}: is a directory, not {what}")
        raise ValueError(f"{name}: {fault}")
    return p


def utf16_fault(raw: bytes) -> str | None:
    r"""Say that bytes are UTF-16 text saved without a byte-order mark, or None.

    Such a file is read as UTF-8 and is not text then (a NUL beside each character); the
    message says what it is and how to save it
    (:func:`affidavit.tasks.charset.sniff_bomless_utf16`).

    >>> utf16_fault("id,text\n1,Zurich\n".encode("utf-16-le"))[:71]
    'not text as UTF-8: it looks like UTF-16 (little-endian) saved without a'
    >>> utf16_fault(b"id,text\n1,plain\n") is None
    True
    """
    encoding = sniff_bomless_utf16(raw)
    if encoding is None:
        return None
    order = "little-endian" if encoding.endswith("le") else "big-endian"
    return (f"not text as UTF-8: it looks like UTF-16 ({order}) saved without a byte-order mark; "
            "save it as UTF-8, or as UTF-16 with a byte-order mark")


def _head_fault(raw: bytes, *, name: str, empty: str, binary: str,
                other: str | None = None) -> str | None:
    """Name what is wrong with a file head: the ``empty``, ``other`` or ``binary`` message.

    ``empty`` when the decoded head is nothing but whitespace (whatever the file's name: an
    empty file holds nothing, in any format), then ``other`` when given (what the name shows,
    such as an extension no reader takes), ``binary`` when it looks like binary data
    (:func:`~affidavit.tasks.sanitize.looks_binary`), unless its bytes are UTF-16 without a
    byte-order mark, which is said as such (:func:`utf16_fault`, after ``name``); else None.
    """
    head = decode_user_text(raw).text
    if not head.strip():
        return empty
    if other is not None:
        return other
    if looks_binary(head):
        return f"{name}: {wide}" if (wide := utf16_fault(raw)) else binary
    return None


def claims_format(path: str | Path) -> str:
    """Return the format of a claims file from its name: jsonl, json, csv or tsv.

    Raises:
        ValueError: For another extension.

    >>> claims_format(Path("claims.csv.gz"))
    'csv'
    """
    fmt = CLAIMS_FORMATS.get(_extension(Path(path)))
    if fmt is None:
        raise ValueError(f"unsupported claims file format {shown_path(path)!r} (jsonl, json, "
                         "csv, tsv)")
    return fmt


def dump_format(path: str | Path) -> str | None:
    """Return the format of a dump from its name (:data:`DUMP_FORMATS`), or None when unknown.

    A ``.parquet.gz`` name is unknown: Parquet is read in place, never through gzip.

    >>> dump_format("docs.ndjson.gz"), dump_format("docs.tab"), dump_format("docs.parquet.gz")
    ('jsonl', 'tsv', None)
    """
    p = Path(path)
    fmt = DUMP_FORMATS.get(_extension(p))
    if fmt == "parquet" and p.suffix.lower() == ".gz":
        return None
    return fmt


def dump_extensions() -> str:
    """Name the dump extensions for a message.

    >>> dump_extensions()
    '.jsonl, .ndjson, .jsonlines, .json, .csv, .tsv, .tab (optionally .gz), .parquet'
    """
    text = [e for e, f in DUMP_FORMATS.items() if f != "parquet"]
    return ", ".join(text) + " (optionally .gz), " + ", ".join(
        e for e, f in DUMP_FORMATS.items() if f == "parquet")


def check_claims_file(path: str | Path) -> None:
    """Refuse a claims file that cannot be read (``affidavit run --claims``).

    The head is decoded as the reader decodes the file (byte-order mark, then UTF-8, else
    Windows-1252), so text in those encodings passes.

    Raises:
        FileNotFoundError: When the file does not exist.
        ValueError: For a directory or a pipe, an empty file (nothing but whitespace; said
            as empty whatever its extension), an unsupported extension, broken gzip data or
            binary data.
    """
    _existing_file(path, "a claims file")
    name = shown_path(path)
    try:
        claims_format(path)
        unsupported = None
    except ValueError as exc:  # said after "empty": an empty claims.txt holds no claim
        unsupported = str(exc)
    if fault := _head_fault(
        _head(path, SNIFF_CHARS), name=name,
        empty=f"{name}: empty: a claims file holds one claim per line (JSONL), a JSON list, "
        "or CSV/TSV rows",
        binary=f"{name}: not text (binary data): a claims file is JSONL, JSON, CSV or TSV",
        other=unsupported,
    ):
        raise ValueError(fault)


def check_sessions_file(path: str | Path) -> None:
    """Refuse a sessions file that cannot be read (``affidavit audit --sessions``).

    Checks the extension (:data:`SESSION_EXTENSIONS`), Parquet's magic bytes, gzip data, and
    that a JSON or JSONL file is text (read as UTF-8, as the reader does).

    Raises:
        FileNotFoundError: When the file does not exist.
        ValueError: For a directory, an empty file (an only blank JSON or JSONL one too;
            said as empty whatever its extension), an unsupported extension, a ``.parquet``
            file that is not Parquet, broken gzip data, or binary data in a JSON or JSONL one.
    """
    p, name = _existing_file(path, "a sessions file"), shown_path(path)
    ext = _extension(p)
    head = _head(path, SNIFF_CHARS)
    empty = (f"{name}: empty: a sessions file holds one record {{id, answer, evidence}} per "
             "line (JSONL), a JSON list of them, or Parquet")
    if ext == ".parquet":
        if not head:
            raise ValueError(empty)
        if head[:4] != b"PAR1":
            raise ValueError(f"{name}: not a Parquet file (no PAR1 magic bytes)")
        return
    if fault := _head_fault(
        head, name=name, empty=empty,
        binary=f"{name}: not text (binary data): a sessions file is JSONL, JSON or Parquet",
        other=None if ext in SESSION_EXTENSIONS else
        f"unsupported sessions file {name!r} (jsonl, json, parquet)",
    ):
        raise ValueError(fault)


def check_text_file(path: str | Path, what: str, *, allow_empty: bool = True) -> None:
    """Refuse a file that cannot be one UTF-8 text (an answer, an evidence output, a card).

    Args:
        path: The file.
        what: What the file is, for the message (``"evidence file"``).
        allow_empty: Whether a file of nothing but whitespace passes (an evidence output may
            be empty; an answer may not).

    Raises:
        FileNotFoundError: When the file does not exist.
        ValueError: For a directory, binary or compressed data (see
            :func:`affidavit.tasks.sanitize.looks_binary`), or an empty file when not
            ``allow_empty``.
    """
    p, name = _existing_file(path, "a file"), shown_path(path)
    with p.open("rb") as fh:
        head = fh.read(SNIFF_CHARS)
    if not allow_empty and not head.strip() and p.stat().st_size <= SNIFF_CHARS:
        raise ValueError(f"{name}: empty: the {what} holds no text")
    if looks_binary(decode_user_text(head).text):
        if wide := utf16_fault(head):
            raise ValueError(f"{name}: {wide}")
        raise ValueError(f"{name}: not text (binary or compressed data): {what}s are read as "
                         "text (UTF-8, or UTF-16/32 with a byte-order mark)")


GZIP_MAGIC = b"\x1f\x8b"
"""The first two bytes of gzip data (RFC 1952, section 2.3.1)."""


def gzip_name_fault(path: str | Path) -> str | None:
    """Say that a file named ``*.gz`` is not gzip data, or None (other names, gzip data).

    Such a file is refused, not read as plain text: its name says something its bytes do not
    (a file saved uncompressed under a compressed name, or a broken download).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".jsonl.gz") as fh:
    ...     _ = fh.write(b'{"text": "x"}'); fh.flush()
    ...     print(gzip_name_fault(fh.name))
    not gzip data: the name ends in .gz but the file does not start with gzip's bytes (1f 8b)
    """
    p = Path(path)
    if p.suffix.lower() != ".gz":
        return None
    try:
        with p.open("rb") as fh:
            magic = fh.read(2)
    except OSError:
        return None  # said by path_fault or the reader
    if magic == GZIP_MAGIC:
        return None
    return ("not gzip data: the name ends in .gz but the file does not start with gzip's bytes "
            "(1f 8b)")


def input_file_fault(path: str | Path) -> str | None:
    """Say why a local input of ``backfill`` or ``origins`` can give no document, or None.

    Checks only what needs no parsing, so that such an input is refused before anything
    starts: a path that cannot be opened (:func:`path_fault`), a directory (inputs are files;
    a folder is not walked), a device or a pipe (``/dev/null``, ``<(…)``: the readers open a
    file more than once), and a file that is empty or holds nothing but whitespace (after
    gunzip for a ``.gz`` name). What is wrong further in is left to the readers.

    >>> input_file_fault("/dev/null")
    'not a regular file (a device or a pipe): save it to a file first'
    """
    p = Path(path)
    if fault := input_path_fault(os.fspath(path)):
        return fault
    if fault := regular_file_fault(p):
        return ("is a directory, not a file: give the files in it (a folder is not read)"
                if fault.startswith("is a directory") else fault)
    if p.stat().st_size == 0:
        return "empty file: nothing to read"
    if fault := gzip_name_fault(p):
        return fault
    try:
        head = _head(path, SNIFF_CHARS + 1)
    except (OSError, ValueError):
        return None  # unreadable or broken gzip data: the reader counts and says it
    if len(head) <= SNIFF_CHARS and not head.strip():
        return "empty file: nothing to read" if not head else \
            "empty file (nothing but whitespace): nothing to read"
    return None


_JSONL_EXTENSIONS = tuple(e for e, f in CLAIMS_FORMATS.items() if f == "jsonl")
_NOT_A_FEED_HINT = "to load documents use backfill (claims: run --claims)"
_PLAIN_TEXT_FEED_HINT = "to check its claims use verify --file (a claims file: run --claims)"


def plain_text_feed_fault(text: str, name: str) -> str | None:
    r"""Say that text given as a feed is plain text (no markup, no JSON), or None.

    A feed is XML (it opens with ``<``, after blanks) or JSON; text with neither is told as
    what it is, with the commands that read a text, instead of an XML parser's error at its
    first line. Shared by the up-front check (:func:`feed_file_fault`) and the feed parser
    (:func:`affidavit.tasks.ingest_feeds.parse_feed`).

    Args:
        text: The decoded file, or its head.
        name: The file as the user gave it (or the URL), for the message.

    >>> plain_text_feed_fault("The bridge opened in 2024.\n", "claim.txt")[:60]
    'claim.txt: is plain text, not an RSS/Atom/JSON Feed document'
    >>> plain_text_feed_fault(' <?xml version="1.0"?><rss/>', "f.xml") is None
    True
    """
    first = text.lstrip("\ufeff \t\r\n")[:1]
    if not first or first in "<{[" or "<" in text:
        return None
    return f"{name}: is plain text, not an RSS/Atom/JSON Feed document; {_PLAIN_TEXT_FEED_HINT}"


_FEED_HEAD_RE = re.compile(rb"<(rss|feed|rdf:rdf|opml)[\s>]", re.I)
"""Root elements of feeds (and of OPML lists, whose ``<body>`` is not a page's)."""
_HTML_HEAD_RE = re.compile(rb"<(!doctype\s+html|html|head|body)[\s>]", re.I)
_FEED_LINK_RE = re.compile(
    rb"<link\b(?=[^>]*\brel\s*=\s*[\"']?alternate\b)(?=[^>]*\btype\s*=\s*[\"']?application/"
    rb"(?:rss\+xml|atom\+xml|feed\+json|json)\b)[^>]*\bhref\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))",
    re.I)


def looks_like_html_page(content: bytes, content_type: str | None = None) -> bool:
    """Whether bytes are an HTML page rather than a feed (``Content-Type``, then a sniff).

    >>> looks_like_html_page(b"<!DOCTYPE html><html><body>x</body></html>")
    True
    >>> looks_like_html_page(b'<?xml version="1.0"?><rss version="2.0"></rss>', "text/html")
    False
    >>> looks_like_html_page(b'<opml version="2.0"><body><outline xmlUrl="http://a.test/">')
    False
    """
    head = content[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head[:1] in (b"{", b"[") or _FEED_HEAD_RE.search(head):
        return False
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media in ("text/html", "application/xhtml+xml"):
        return True
    return bool(_HTML_HEAD_RE.search(head))


def html_page_feed_fault(content: bytes, name: str, content_type: str | None = None) -> str | None:
    """Say that bytes given as a feed are an HTML page (not a feed), or None.

    ``run --feed`` reads feeds only, whether the page is a local file or a URL's answer: a page
    is told as what it is, with the feed it names (``<link rel="alternate">``) when its head
    names one. Shared by the up-front check (:func:`feed_file_fault`) and the feed parser
    (:func:`affidavit.tasks.ingest_feeds.parse_feed`, for files and URLs alike).

    Args:
        content: The bytes (or their head; the first 64 KiB are looked at for a feed link).
        name: The file as the user gave it (or the URL), for the message.
        content_type: The HTTP ``Content-Type`` of a fetched body.

    >>> page = b'<html><head><link rel="alternate" type="application/rss+xml" href="/rss.xml">'
    >>> html_page_feed_fault(page, "news.html")
    'news.html: is an HTML page, not an RSS/Atom/JSON Feed document; the page names its feed: /rss.xml'
    """  # noqa: E501 - a doctest's output is one line
    if not looks_like_html_page(content, content_type):
        return None
    found = _FEED_LINK_RE.search(content[:65536])
    href = next((g for g in found.groups() if g), b"").decode("utf-8", "replace").strip() \
        if found else ""
    if href and name.lower().startswith(("http://", "https://")):
        from urllib.parse import urljoin

        href = urljoin(name, href)  # a URL's page: its feed's own URL
    hint = (f"the page names its feed: {href}" if href and len(href) <= 300 else
            'give the site\'s feed (a page names it in <link rel="alternate">)')
    return f"{name}: is an HTML page, not an RSS/Atom/JSON Feed document; {hint}"


def _is_json_lines(lines: list[str]) -> bool:
    """Whether the first non-blank lines (at least two) each hold one JSON value."""
    lines = [ln for ln in lines if ln.strip()][:5]
    if len(lines) < 2:
        return False
    try:
        for ln in lines:
            loads_untrusted_json(ln)
    except UntrustedJSONError:
        return False
    return True


def json_feed_fault(text: str, name: str, *, complete: bool = True) -> str | None:
    r"""Say why JSON text given as a feed is not a JSON Feed, or None when it may be one.

    A JSON Feed is one object with an ``items`` list (jsonfeed.org/version/1.1). JSON Lines
    (several JSON values, one a line: a dump or a claims file) and a JSON document of another
    shape are told as what they are, with the command that reads them. Malformed JSON gives
    None (the feed parser says where it breaks). Shared by the up-front check
    (:func:`feed_file_fault`) and the feed parser
    (:func:`affidavit.tasks.ingest_feeds.parse_feed`).

    Args:
        text: The decoded file, or its head when not ``complete``.
        name: The file as the user gave it (or the URL), for the message.
        complete: Whether ``text`` is the whole file (a head is only tested for JSON Lines).

    >>> json_feed_fault('{"id": 1}\n{"id": 2}\n', "docs.jsonl")[:56]
    'docs.jsonl: is JSON Lines, not an RSS/Atom/JSON Feed doc'
    >>> json_feed_fault('{"version": "1.1", "items": []}', "f.json") is None
    True
    """
    lines = text.splitlines()
    if _is_json_lines(lines if complete else lines[:-1]):
        return f"{name}: is JSON Lines, not an RSS/Atom/JSON Feed document; {_NOT_A_FEED_HINT}"
    if not complete:
        return None
    try:
        obj = loads_untrusted_json(text)
    except UntrustedJSONError:
        return None
    if isinstance(obj, dict) and isinstance(obj.get("items"), list):
        return None
    if name.lower().removesuffix(".gz").endswith(_JSONL_EXTENSIONS):
        return f"{name}: is JSON Lines, not an RSS/Atom/JSON Feed document; {_NOT_A_FEED_HINT}"
    what = ("a JSON object without an 'items' list" if isinstance(obj, dict)
            else json_type_name(obj).replace("a ", "a JSON ", 1))
    return (f"{name}: is {what}, not an RSS/Atom/JSON Feed document (a JSON Feed is an object "
            f"with an 'items' list); {_NOT_A_FEED_HINT}")


def feed_file_fault(path: str | Path) -> str | None:
    """Say why a local feed file cannot be read, or None when it may be (``run --feed``).

    Checks a directory, a device or a pipe (read twice: once here, once by the reader), an
    empty file (nothing but whitespace), binary data, an HTML page
    (:func:`html_page_feed_fault`), and JSON that is not a JSON Feed (:func:`json_feed_fault`:
    JSON Lines, a list of records). Missing files are the caller's (they are counted as refused
    inputs).

    >>> feed_file_fault("/")
    '/: is a directory, not a feed file'
    """
    p = Path(path)
    if fault := regular_file_fault(p):  # a missing file is the caller's
        return (f"{path}: is a directory, not a feed file" if fault.startswith("is a directory")
                else f"{path}: {fault}")
    if not p.is_file():
        return None
    with p.open("rb") as fh:
        data = fh.read(DUMP_HEAD_BYTES + 1)
    head = decode_user_text(data[:SNIFF_CHARS]).text
    if fault := _head_fault(
        data[:SNIFF_CHARS], name=str(path),
        empty=f"{path}: empty: a feed file holds RSS, Atom, RDF or JSON Feed",
        binary=f"{path}: not text (binary data): a feed file holds RSS, Atom, RDF or JSON Feed",
    ):
        return fault
    if fault := html_page_feed_fault(data, str(path)):
        return fault
    if fault := plain_text_feed_fault(head, str(path)):
        return fault
    if head.lstrip()[:1] not in ("{", "["):
        return None
    complete = len(data) <= DUMP_HEAD_BYTES
    return json_feed_fault(decode_user_text(data if complete else data[:DUMP_HEAD_BYTES]).text,
                           str(path), complete=complete)


DUMP_HEAD_BYTES = 1024 * 1024
"""Bytes of a JSONL dump read to tell whether any row has the text field (1 MiB: the whole of
a small file, a bounded cost for a large one, whose rows past it are left to the reader)."""

KEYS_NAMED = 12
"""Keys or columns named in a message (the others are counted: "and 5 more"), so a row of
thousands of keys still gives one short line."""


def name_keys(keys: list[str]) -> str:
    """Name the first :data:`KEYS_NAMED` keys, counting the others.

    >>> name_keys([f"k{i}" for i in range(14)])
    'k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, k11 and 2 more'
    """
    more = len(keys) - KEYS_NAMED
    shown = [k if k.strip() else '""' for k in keys[:KEYS_NAMED]]  # a blank name, seen as one
    return (", ".join(shown) or "no keys") + (f" and {more} more" if more > 0 else "")


def missing_column_fault(name: str, column: str, columns: list[str], *, where: str = "header",
                         option: str = "--text-column", what: str = "text") -> str:
    """One line for a dump whose CSV header or Parquet schema lacks a column.

    Said alike by the up-front check (:func:`dump_text_fault`) and the reader
    (:func:`affidavit.tasks.ingest_dumps.read_dump`): the columns it has, and the option that
    names another.

    >>> print(missing_column_fault("a.csv", "body", ["a", ""], option="--text-column"))
    a.csv: no 'body' column in its header (it has a, ""; name the text column with --text-column)
    """
    return (f"{name}: no {column!r} column in its {where} (it has {name_keys(columns)}; "
            f"name the {what} column with {option})")


def binary_dump_fault(name: str, fmt: str, raw: bytes = b"") -> str:
    """One line for a CSV/TSV or JSON dump whose head is binary data, not text.

    Args:
        name: The file, as the user gave it.
        fmt: Its format (``csv``, ``tsv``, ``json``, ``jsonl``).
        raw: The head's bytes, when known: UTF-16 without a byte-order mark is said as such
            (:func:`utf16_fault`).

    >>> binary_dump_fault("a.csv", "csv")
    'a.csv: not text (binary data): a CSV dump is text, one row a line'
    """
    if raw and (wide := utf16_fault(raw)):
        return f"{name}: {wide}"
    return f"{name}: not text (binary data): a {fmt.upper()} dump is text, one row a line"


def _csv_header(head: str, fmt: str) -> list[str] | None:
    """The column names of a CSV/TSV file's first line (stripped), from its decoded head.

    None when the head is empty or is one line that may go on past it (left to the reader).

    Raises:
        csv.Error: For a header line the csv module cannot parse.
    """
    import csv

    lines = head.splitlines()
    if not lines or (len(lines) == 1 and len(head) >= SNIFF_CHARS):
        return None
    return [h.strip() for h in next(csv.reader([lines[0]],
                                               delimiter="," if fmt == "csv" else "\t"))]


def repeated_column_fault(name: str, header: list[str],
                          used: dict[str, str | None]) -> tuple[str | None, str | None]:
    """Tell a CSV/TSV header that names a column more than once: ``(refusal, note)``.

    A reader keyed by column name keeps one of the repeats silently (``csv.DictReader`` the
    last), so a repeated column that is read (the text, the id, any column ``used`` names) is
    refused: which of its values is meant cannot be told. A repeated column that is not read
    is only noted. The claims reader, the dump reader and the up-front checks all ask here.

    Args:
        name: The file, as the user gave it.
        header: The header's column names, in order.
        used: What each read column holds (``"text"``, ``"id"``) → its name (None: not read).

    Returns:
        ``(refusal, None)``, ``(None, note)`` or ``(None, None)`` when no column repeats.

    >>> refusal, _ = repeated_column_fault("a.csv", ["id", "text", "text"], {"text": "text"})
    >>> refusal[:56]
    "a.csv: the text column 'text' appears 2 times in its hea"
    >>> repeated_column_fault("a.csv", ["id", "text", "x", "x"], {"text": "text"})[1]
    "a.csv: column 'x' appears more than once in its header (not read: ignored)"
    """
    counts: dict[str, int] = {}
    for h in header:
        counts[h] = counts.get(h, 0) + 1
    for what, column in used.items():
        if column is not None and counts.get(column, 0) > 1:
            return (f"{name}: the {what} column {column!r} appears {counts[column]} times in "
                    f"its header: which one holds the {what} cannot be told (rename or remove "
                    "the repeats)", None)
    repeats = [h for h, n in counts.items() if n > 1]
    if not repeats:
        return None, None
    return None, (f"{name}: column{'s' if len(repeats) > 1 else ''} "
                  f"{', '.join(map(repr, repeats[:KEYS_NAMED]))} "
                  f"appear{'' if len(repeats) > 1 else 's'} more than once in its header "
                  "(not read: ignored)")


def dump_header_fault(path: str | Path, used: dict[str, str]) -> str | None:
    """Say why a CSV/TSV dump is refused for a repeated column it would read, or None.

    Decided from the header (:func:`repeated_column_fault`); other formats and unreadable
    files give None (left to the reader).
    """
    import csv

    p = Path(path)
    fmt = dump_format(p)
    if fmt not in ("csv", "tsv"):
        return None
    try:
        header = _csv_header(decode_user_text(_head(path, SNIFF_CHARS)).text, fmt)
    except (OSError, ValueError, csv.Error):
        return None
    if header is None:
        return None
    return repeated_column_fault(str(path), header,
                                 {w: c for w, c in used.items() if c in header})[0]


def dump_not_text_fault(path: str | Path) -> str | None:
    """Say why a CSV/TSV, JSON or JSONL dump is not text, or a Parquet dump not Parquet, or None.

    Decided from its head (gunzipped for ``.gz``): binary data, or UTF-16 saved without a
    byte-order mark (:func:`binary_dump_fault`); a ``.parquet`` file that does not start and
    end with Parquet's magic bytes ``PAR1`` (the format's specification), such as a text file
    so named. Other names and unreadable files give None (left to the reader).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "fake.parquet").write_text('{"id": 1}')
    >>> dump_not_text_fault(d / "fake.parquet").split(": ", 1)[1]
    "not a Parquet file (it does not start and end with the bytes 'PAR1'; it looks like text)"
    """
    fmt = dump_format(path)
    if fmt is None:
        return None
    if fmt == "parquet":
        return _parquet_magic_fault(path)
    try:
        raw = _head(path, SNIFF_CHARS)
    except (OSError, ValueError):
        return None
    if not looks_binary(decode_user_text(raw).text):
        return None
    return binary_dump_fault(shown_path(path), fmt, raw)


_PARQUET_MAGIC = b"PAR1"
"""First and last four bytes of every Parquet file (Apache Parquet format specification)."""


def _parquet_magic_fault(path: str | Path) -> str | None:
    """Say why a ``.parquet`` file is not Parquet (no ``PAR1`` at both ends), or None.

    Empty and unreadable files give None (refused or counted elsewhere).
    """
    try:
        with Path(path).open("rb") as fh:
            head = fh.read(SNIFF_CHARS)
            size = fh.seek(0, 2)
            if size == 0:
                return None
            fh.seek(max(0, size - len(_PARQUET_MAGIC)))
            tail = fh.read()
    except OSError:
        return None
    if size >= 2 * len(_PARQUET_MAGIC) and head.startswith(_PARQUET_MAGIC) \
            and tail == _PARQUET_MAGIC:
        return None
    looks = "binary data" if looks_binary(decode_user_text(head).text) else "text"
    return (f"{shown_path(path)}: not a Parquet file (it does not start and end with the bytes "
            f"'PAR1'; it looks like {looks})")


def dump_rows_fault(path: str | Path) -> str | None:
    r"""Say why a small JSON or CSV/TSV dump holds no row at all, or None.

    Decided only on a whole file within :data:`DUMP_HEAD_BYTES`: an empty JSON list or
    object, a JSON document that is not a list of records (a string, a number, ``null``; an
    object is read as one record, as the reader does), or a CSV/TSV header with no row under it.
    Larger files, JSON Lines, Parquet and unreadable files give None (the reader counts them).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.json").write_text("[]"); _ = (d / "b.csv").write_text("id,text\n")
    >>> dump_rows_fault(d / "a.json").split(": ", 1)[1]
    'holds no rows (an empty JSON list)'
    >>> dump_rows_fault(d / "b.csv").split(": ", 1)[1]
    'holds no rows (a header line only)'
    """
    import csv

    p = Path(path)
    fmt = dump_format(p)
    if fmt not in ("json", "csv", "tsv") or str(path).endswith(".gz"):
        return None
    try:
        raw = _head(path, DUMP_HEAD_BYTES + 1)
    except (OSError, ValueError):
        return None
    if len(raw) > DUMP_HEAD_BYTES or not raw.strip():
        return None  # large (the reader's) or empty (refused as empty elsewhere)
    text = decode_user_text(raw).text
    if fmt == "json":
        try:
            obj = loads_untrusted_json(text)
        except UntrustedJSONError:
            return None  # the reader says what is wrong with it
        if obj == [] or obj == {}:
            return f"{path}: holds no rows (an empty JSON {'list' if obj == [] else 'object'})"
        if not isinstance(obj, (list, dict)):
            return f"{path}: the JSON document is {json_type_name(obj)}, not a list of records"
        return None
    try:
        rows = list(csv.reader(text.splitlines(), delimiter="\t" if fmt == "tsv" else ","))
    except csv.Error:
        return None
    rows = [r for r in rows if any(c.strip() for c in r)]
    if len(rows) == 1:
        return f"{path}: holds no rows (a header line only)"
    return None


def dump_text_fault(
    path: str | Path, text_column: str, *, option: str = "--text-column", what: str = "text"
) -> str | None:
    """Say why no row of a dump can be read for want of its text column, or None.

    The same test tells a column named by another option (``option``, for the ``what`` column:
    ``--id-column``, "id") that no row has.

    Decided from what the head tells for sure: a CSV/TSV header or a Parquet schema without
    the column, or a JSONL file read whole within :data:`DUMP_HEAD_BYTES` of which no record
    has the field. A larger JSONL file, other formats and unreadable files give None (the
    reader counts and describes them: :func:`affidavit.tasks.ingest_dumps.read_dump`).

    Returns:
        One line naming the file, the column and the columns or keys it has; or None.
    """
    import csv

    p = Path(path)
    fmt = dump_format(p)
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            names = list(pq.read_schema(p).names)
            if text_column in names:
                return None
            return missing_column_fault(str(path), text_column, names, where="Parquet schema",
                                        option=option, what=what)
        if fmt in ("csv", "tsv"):
            raw = _head(path, SNIFF_CHARS)
            head = decode_user_text(raw).text
            header = _csv_header(head, fmt)
            if header is None or text_column in header:
                return None
            if looks_binary(head):  # no header at all: not a column to name
                return binary_dump_fault(shown_path(path), fmt, raw)
            return missing_column_fault(str(path), text_column, header, option=option, what=what)
        if fmt != "jsonl":
            return None
        raw = _head(path, DUMP_HEAD_BYTES + 1)
    except (OSError, ValueError, csv.Error):
        return None
    except Exception:  # noqa: BLE001 - a file pyarrow cannot read is the reader's to report
        return None
    if len(raw) > DUMP_HEAD_BYTES:
        return None
    keys: dict[str, int] = {}
    for line in decode_user_text(raw).text.splitlines():
        try:
            obj = loads_untrusted_json(line) if line.strip() else None
        except UntrustedJSONError:
            continue
        if not isinstance(obj, dict):
            continue
        if text_column in obj:
            return None
        for k in obj:
            keys[str(k)] = keys.get(str(k), 0) + 1
    if not keys:
        return None  # no object at all: the reader says what the lines are
    ordered = sorted(keys, key=lambda k: (-keys[k], k))
    return (f"{shown_path(path)}: no row has a {text_column!r} field (the rows have "
            f"{name_keys(ordered)}; name the {what} field with {option})")
