"""OPML subscription lists as lists of feeds (``affidavit run --feed subscriptions.opml``).

OPML is parsed with ``listparser`` (handed bytes, so it never opens a path or a URL itself),
after the same refusal of entity declarations and DTD internal subsets as feeds
(:func:`affidavit.tasks.ingest_feeds.check_xml_safe`). Outlines nested in folders are read
(their folder names are kept as categories) and said so; a file that is not well-formed XML is
refused whole (listparser alone would read a truncated list silently); outlines that point at other
subscription lists are not followed (a message names them); an outline whose ``xmlUrl`` is not
an http(s) URL is skipped with a message. A file that is not well-formed, is not OPML, or lists
no feed at all raises :class:`OpmlError` with one line that says which.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from affidavit.tasks.fetch import strip_credentials
from affidavit.tasks.ingest_feeds import FeedRefusedError, check_xml_safe
from affidavit.tasks.input_checks import regular_file_fault

__all__ = ["MAX_OPML_BYTES", "OpmlError", "OpmlList", "is_opml", "parse_opml", "read_opml"]

MAX_OPML_BYTES = 16 * 1024 * 1024
"""Largest OPML file read, bytes (a 10,000-feed export is about 2 MB)."""

_OPML_HEAD_RE = re.compile(rb"<opml[\s>]", re.I)


class OpmlError(ValueError):
    """An OPML file that cannot be used as a subscription list (broken, not OPML, no feeds)."""


@dataclass(frozen=True, slots=True)
class OpmlFeed:
    """One subscribed feed.

    Attributes:
        url: The feed's ``xmlUrl`` (credentials stripped).
        title: The outline's title or text, when given.
        folder: The enclosing folder outlines, outermost first, joined by `` / ``; None at the
            top level.
    """

    url: str
    title: str | None
    folder: str | None


@dataclass
class OpmlList:
    """A parsed subscription list.

    Attributes:
        feeds: The feeds, in document order, duplicates removed.
        messages: One line per thing worth saying (nesting read, outlines skipped).
        n_skipped: Outlines that named a feed but could not be used.
    """

    feeds: list[OpmlFeed] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    n_skipped: int = 0


def is_opml(path: str | Path, head: bytes | None = None) -> bool:
    """Whether a local file is an OPML list: ``.opml`` extension or an ``<opml`` root element.

    Args:
        path: A file path (not read when ``head`` is given or the extension says ``.opml``).
        head: The file's first bytes, if already read.
    """
    p = Path(path)
    if p.name.lower().endswith(".opml"):
        return True
    if head is None and regular_file_fault(p) is not None:
        return False  # a pipe is not opened here (one no one writes to waits for ever)
    if head is None:
        try:
            with p.open("rb") as fh:
                head = fh.read(4096)
        except OSError:
            return False
    return bool(_OPML_HEAD_RE.search(head[:4096]))


def parse_opml(data: bytes, *, source: str) -> OpmlList:
    """Parse OPML bytes into the list of subscribed feeds.

    Args:
        data: The document.
        source: Its path, for messages.

    Returns:
        An :class:`OpmlList` with at least one feed.

    Raises:
        OpmlError: When the document declares entities, is not well-formed XML, is not OPML, or
            lists no http(s) feed.
    """
    import listparser

    try:
        check_xml_safe(data)
    except FeedRefusedError as exc:
        raise OpmlError(f"{source}: {exc}") from exc
    # listparser reads broken XML leniently and silently (a truncated list gives fewer feeds
    # and no error), so well-formedness is checked first with expat: a subscription list is
    # used whole or not at all.
    try:
        parser = ElementTree.XMLParser()
        parser.feed(data)
        parser.close()
    except ElementTree.ParseError as exc:
        line, col = exc.position
        raise OpmlError(f"{source}: not well-formed XML at line {line}, column {col + 1} "
                        f"({str(exc).split(':')[0]}): no feed read") from exc
    result = listparser.parse(data)
    exc = result.get("bozo_exception") if result.get("bozo") else None
    version = str(result.get("version") or "")
    raw_feeds = result.get("feeds") or []
    if not version.startswith("opml"):
        where = f": {exc}" if exc else ""
        if exc is not None and not raw_feeds:
            raise OpmlError(f"{source}: not well-formed OPML{where}")
        raise OpmlError(f"{source}: not an OPML subscription list (no <opml> root element)")
    out = OpmlList()
    if exc is not None:
        if not raw_feeds:
            raise OpmlError(f"{source}: not well-formed OPML ({exc})")
        out.messages.append(f"{source}: not well-formed OPML ({exc}): "
                            f"{len(raw_feeds)} feed(s) recovered")
    seen: set[str] = set()
    n_nested = 0
    for f in raw_feeds:
        url = str(f.get("url") or "").strip()
        title = (f.get("title") or None) if isinstance(f.get("title"), str) else None
        if not re.match(r"^https?://", url, re.I):
            out.n_skipped += 1
            out.messages.append(f"{source}: outline {title or url!r} has no http(s) xmlUrl "
                                f"({url[:80]!r}): skipped")
            continue
        url = strip_credentials(url)
        if url in seen:
            continue
        seen.add(url)
        cats = f.get("categories") or []
        folders = [c for c in cats if c and isinstance(c, list)]
        folder = " / ".join(folders[0]) if folders else None
        if folder:
            n_nested += 1
        out.feeds.append(OpmlFeed(url=url, title=title, folder=folder))
    lists = result.get("lists") or []
    for sub in lists:
        out.messages.append(f"{source}: outline {sub.get('title') or sub.get('url')!r} points "
                            f"at another subscription list ({sub.get('url')}): not followed")
    if n_nested:
        out.messages.append(f"{source}: {n_nested} feed(s) read from nested folder outlines")
    if not out.feeds:
        raise OpmlError(f"{source}: OPML lists no feed (no outline with an http(s) xmlUrl)")
    return out


def read_opml(path: str | Path) -> OpmlList:
    """Read an OPML file (see :func:`parse_opml`).

    Raises:
        FileNotFoundError: When the file does not exist.
        OpmlError: When it is a directory, a device or a pipe, too large, or cannot be used
            (see :func:`parse_opml`).
    """
    p = Path(path)
    size = p.stat().st_size
    if fault := regular_file_fault(p):  # a pipe is not opened (one no one writes to waits)
        raise OpmlError(f"{path}: {fault}")
    if size > MAX_OPML_BYTES:
        raise OpmlError(f"{path}: {size} bytes is more than the {MAX_OPML_BYTES} an OPML list may "
                        "have")
    return parse_opml(p.read_bytes(), source=str(path))
