"""Untrusted text made safe to parse, store and print: JSON, control characters, display.

Pure functions, no IO. Input files are written by others, sometimes by attackers; these helpers
turn what would crash a batch or reach the terminal raw into a counted, one-line outcome.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from affidavit.tasks.charset import cp1252_char

__all__ = [
    "DISPLAY_CHARS",
    "UntrustedJSONError",
    "describe_json_error",
    "display_text",
    "find_lone_surrogate",
    "json_type_name",
    "loads_untrusted_json",
    "page_text",
    "looks_binary",
    "strip_control_chars",
]

_ANSI_RE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
"""Terminal escape sequences: CSI (``ESC [ … final``), OSC (``ESC ] … BEL``) and two-byte ones."""
_CONTROL_MULTILINE_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_CONTROL_LINE_RE = re.compile("[\x00-\x1f\x7f-\x9f]")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_BIDI_RE = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
"""Bidirectional overrides and isolates: they reorder what a terminal shows (Trojan Source)."""

DISPLAY_CHARS = 200
"""Characters of one untrusted field shown in the terminal (a table cell, a note)."""


SNIFF_CHARS = 65_536
"""Characters of a text's head that :func:`looks_binary` inspects (64 Ki: a bounded cost for a
file of any size; binary junk shows in its first bytes)."""

NOT_TEXT_SHARE = 1 / 20
"""Share of replaced or control characters in a text's head above which it is not text: binary
data, or another encoding than the one it was decoded with. One in twenty: ``verify``'s rule
since it first refused binary input; real text has next to none (a stray byte or two)."""


def looks_binary(text: str) -> bool:
    r"""Tell whether decoded text is binary data rather than text.

    Counts NUL, U+FFFD (bytes that did not decode) and control characters other than tab,
    newline, carriage return and form feed in the first :data:`SNIFF_CHARS` characters. Control
    characters alone never make text binary (a form feed, a stray ``\x01`` pasted from a
    terminal): they count only in a head that also holds a NUL or a U+FFFD, which text has next
    to none of and binary data (images, archives, compressed bytes) always has.

    Args:
        text: The decoded text (:func:`affidavit.tasks.charset.decode_user_text`).

    Returns:
        True when the head holds a NUL or a U+FFFD and more than :data:`NOT_TEXT_SHARE` of it
        is such characters.

    >>> looks_binary("All 12 tests pass.\n"), looks_binary("PK\x03\x04\x00\x00\ufffd\ufffd")
    (False, True)
    >>> looks_binary("Paris is\x01\x02\x03 big.\x0c"), looks_binary("a\x00\x00\x00b")
    (False, True)
    """
    head = text[:SNIFF_CHARS]
    n_nul_or_bad = head.count("\x00") + head.count("\ufffd")
    if not n_nul_or_bad:
        return False
    bad = n_nul_or_bad + sum(1 for c in head if "\x00" < c < " " and c not in "\t\n\r\f")
    return bad > len(head) * NOT_TEXT_SHARE


class UntrustedJSONError(ValueError):
    """JSON text that cannot be parsed safely (malformed, nested too deep, a huge integer)."""


def describe_json_error(exc: json.JSONDecodeError) -> str:
    r"""Say what is wrong with JSON text and where: ``<reason> at [line L, ]column C``.

    Some of ``json``'s reasons end in "at" ("Unterminated string starting at"); it is not
    repeated. The line is given for text of several lines only. Where the text ends before
    the value does, the decoder points past the trailing line break (``line 2, column 1`` of
    a one-line record); the place is then where the text ends, and said so.

    >>> try:
    ...     json.loads('{"a": "x')
    ... except json.JSONDecodeError as exc:
    ...     describe_json_error(exc)
    'Unterminated string starting at column 7'
    >>> try:
    ...     json.loads('[1,\n 2,,]')
    ... except json.JSONDecodeError as exc:
    ...     describe_json_error(exc)
    'Expecting value at line 2, column 4'
    >>> try:
    ...     json.loads('{"a": "x"\n')
    ... except json.JSONDecodeError as exc:
    ...     describe_json_error(exc)
    "Expecting ',' delimiter at column 10, where the text ends"
    """
    reason = exc.msg.removesuffix(" at").rstrip()
    doc = exc.doc or ""
    end = len(doc.rstrip())
    pos, lineno, colno, ends = exc.pos, exc.lineno, exc.colno, ""
    if pos >= end:  # at or past its end (trailing whitespace): the text ended early
        ends = ", where the text ends"
    if pos > end:
        pos = end
        lineno = doc.count("\n", 0, pos) + 1
        colno = pos - doc.rfind("\n", 0, pos)
    multiline = "\n" in doc[:end]
    where = f"line {lineno}, column {colno}" if multiline else f"column {colno}"
    return f"{reason} at {where}{ends}"


def loads_untrusted_json(text: str | bytes, *, strict: bool = False) -> Any:
    """Parse JSON from an untrusted source; every failure is one :class:`UntrustedJSONError`.

    ``json.loads`` raises ``RecursionError`` on deep nesting (about 1,000 levels) and a
    plain ``ValueError`` on integers over 4,300 digits (CPython's int-conversion limit); both are
    turned into :class:`UntrustedJSONError` with a short reason, so that a caller skips that
    line or file and goes on.

    Args:
        text: The JSON text.
        strict: Refuse control characters inside strings (``json.loads``' ``strict``). Off by
            default: a raw tab or NUL inside a string is a common slip of the program that
            wrote the file, and the readers remove and count control characters in the text
            they keep, as they do for CSV.

    Returns:
        The parsed value.

    Raises:
        UntrustedJSONError: With a one-line reason.

    >>> loads_untrusted_json('{"a": 1}')
    {'a': 1}
    >>> try:
    ...     loads_untrusted_json("[" * 5000 + "]" * 5000)
    ... except UntrustedJSONError as exc:
    ...     print(exc)
    nested too deeply to parse
    """
    try:
        return json.loads(text, strict=strict)
    except json.JSONDecodeError as exc:
        raise UntrustedJSONError(f"not JSON ({describe_json_error(exc)})") from None
    except RecursionError:
        raise UntrustedJSONError("nested too deeply to parse") from None
    except ValueError as exc:  # e.g. "Exceeds the limit (4300 digits) for integer ..."
        msg = str(exc).split(";")[0]
        raise UntrustedJSONError(f"unreadable value ({msg[:80]})") from None


def find_lone_surrogate(value: Any, *, _depth: int = 0) -> bool:
    r"""Whether a parsed JSON value holds a lone UTF-16 surrogate (``"\ud800"``) in any string.

    Such a string cannot be encoded as UTF-8, so it could never be stored.

    >>> find_lone_surrogate({"t": ["ok", "a\ud800"]}), find_lone_surrogate("fine")
    (True, False)
    """
    if isinstance(value, str):
        return bool(_SURROGATE_RE.search(value))
    if _depth > 100:
        return False
    if isinstance(value, dict):
        return any(find_lone_surrogate(k, _depth=_depth + 1)
                   or find_lone_surrogate(v, _depth=_depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return any(find_lone_surrogate(v, _depth=_depth + 1) for v in value)
    return False


_C1_RE = re.compile("[\x80-\x9f]")
_TERMINAL_C1 = frozenset({0x90, 0x98, 0x9B, 0x9C, 0x9D, 0x9E, 0x9F})
"""C1 controls that open or end a terminal control string or sequence (DCS, SOS, CSI, ST,
OSC, PM, APC; ECMA-48 §5.3): always removed, never read as text."""
_C1_AS_CP1252 = {c: ch for c in range(0x80, 0xA0)
                 if c not in _TERMINAL_C1 and (ch := cp1252_char(c)) != chr(c)}
"""C1 code points that Windows-1252 defines (its quotes, dashes, ellipsis, euro sign),
mapped to its characters (the stdlib codec's table; the HTML standard reads numeric
references in this range the same way), except the terminal controls."""


def strip_control_chars(text: str, *, multiline: bool = True) -> tuple[str, int]:
    r"""Remove terminal escape sequences and control characters; return ``(text, n_removed)``.

    Removed: ANSI escape sequences whole (``ESC[2J`` goes, not just its ``ESC``), C0 controls
    (NUL, BEL, BS, ESC …), DEL and C1 controls. Tab, line feed and carriage return are kept when
    ``multiline`` (document text), turned into spaces otherwise (titles, authors, one-line
    fields). A C1 code point that Windows-1252 defines (U+0092 in "we\x92ve") is that text's
    punctuation decoded as Latin-1 somewhere upstream: it becomes the Windows-1252 character
    ("we’ve") and is counted with the removed ones, as a repair; the C1 controls that open a
    terminal sequence (CSI U+009B, OSC U+009D …) are removed.

    Args:
        text: The text.
        multiline: Keep ``\t``, ``\n`` and ``\r``.

    Returns:
        The cleaned text and the number of characters removed (escape sequences count whole).

    >>> strip_control_chars("Title\x00 \x1b[2Jnow")
    ('Title now', 5)
    >>> strip_control_chars("a\tb\nc", multiline=False)
    ('a b c', 0)
    >>> strip_control_chars("since we\x92ve \x93seen\x94 it\x81")
    ('since we’ve “seen” it', 4)
    """
    n = 0
    if _C1_RE.search(text):
        before = text
        text = text.translate(_C1_AS_CP1252)
        n += sum(a != b for a, b in zip(before, text, strict=True))
    if "\x1b" in text:
        before = len(text)
        text = _ANSI_RE.sub("", text)
        n += before - len(text)
    if multiline:
        before = len(text)
        text = _CONTROL_MULTILINE_RE.sub("", text)
        return text, n + before - len(text)
    removed = 0

    def sub(m: re.Match[str]) -> str:
        nonlocal removed
        if m.group(0) in "\t\n\r":
            return " "
        removed += 1
        return ""

    text = _CONTROL_LINE_RE.sub(sub, text)
    return text, n + removed


def strip_bidi_controls(value: str) -> tuple[str, int]:
    r"""Remove bidirectional overrides, embeddings, isolates and marks (Trojan Source).

    For text affidavit keeps as its own record (a claim's text), where an invisible control
    would make the stored row read differently from what it says. Document texts keep theirs
    (quotes are located in them as given).

    Returns:
        The text without them, and how many were removed.

    >>> strip_bidi_controls("rose \u202e5 percent\u202c")
    ('rose 5 percent', 2)
    """
    return _BIDI_RE.subn("", value)


def page_text(value: str) -> str:
    r"""Return untrusted text fit for an HTML page: no escapes, controls or bidi overrides.

    Line breaks and tabs are kept (the page lays text out); what a page cannot show or would
    show reordered (Trojan Source) goes. HTML escaping is the template's job.

    >>> page_text("a\x1b[2Jb\u202ec\nd")
    'abc\nd'
    """
    s, _ = strip_control_chars(value, multiline=True)
    return strip_bidi_controls(s)[0]


def display_text(value: Any, *, limit: int = DISPLAY_CHARS) -> str:
    r"""Return untrusted text fit for a terminal: one line, no escapes or controls, cut.

    Control characters and escape sequences are removed, bidirectional overrides dropped, line
    breaks and runs of spaces collapsed to one space, and text over ``limit`` characters cut
    with ``… (+N chars)``. Rich markup is *not* escaped here (callers printing through rich
    wrap the result in ``rich.markup.escape``).

    >>> display_text("a\x1b[31mred\n\nline " + "x" * 300, limit=20)
    'ared line xxxxxxxxxx… (+290 chars)'
    """
    if value is None:
        return ""
    s = value if isinstance(value, str) else str(value)
    s, _ = strip_control_chars(s, multiline=False)
    s = _BIDI_RE.sub("", s)
    s = _SURROGATE_RE.sub("\ufffd", s)
    s = re.sub(r"\s+", " ", s).strip()
    if len(s) > limit:
        cut = limit
        while cut > 0 and unicodedata.combining(s[cut]):
            cut -= 1
        s = f"{s[:cut]}… (+{len(s) - cut} chars)"
    return s


def json_type_name(value: object) -> str:
    """Name a parsed JSON value's type as JSON does, for a note ("a number", "null").

    >>> [json_type_name(v) for v in (42, 1.5, True, None, "x", [1], {"a": 1})]
    ['a number', 'a number', 'a boolean', 'null', 'a string', 'a list', 'an object']
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list | tuple) else "an object"
