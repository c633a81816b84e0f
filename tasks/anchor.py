r"""The anchor gate: locate a judge's quote in the stored source text by string matching only.

A quote counts as evidence only when its words occur contiguously in the document. The gate has
two tiers and nothing fuzzy:

1. **EXACT** — the quote (leading/trailing whitespace stripped) occurs verbatim.
2. **NORMALIZED** — the quote occurs in a normalised form of the document, and the match is
   projected back to the original character offsets through an index map. Normalisation is
   applied identically to quote and document and only erases differences that do not change
   what is said: HTML entities left undecoded by an extractor, Unicode NFKC (which also expands
   typographic ligatures such as ``ﬁ`` and the ellipsis ``…``), case (full casefold), straight
   and curly quotes and apostrophes, dash variants, whitespace and line breaks (any run becomes
   one space), non-breaking and zero-width spaces, soft hyphens and other invisible format
   characters, and a hyphen between two letters (so a word hyphenated across a line break,
   ``Cinci-\nnati``, matches ``Cincinnati``). When that fails, punctuation at the ends of the
   quote (a trailing full stop, comma, quote mark, a leading ellipsis) is dropped and the core
   is searched again; words inside the quote never are.

A match must also sit on word boundaries: a quote that starts or ends inside a word or a number
of the document is not that document's statement ("42 million" inside "142 million", "reached
42" before "42.5"). Otherwise the first occurrence is taken.

Whatever fails is FAILED with a short reason: ``empty_quote``, ``empty_document``,
``content_changed`` (the text's SHA-256 differs from the hash the judgment recorded),
``too_short`` (under :data:`MIN_QUOTE_CHARS` after normalisation), ``not_found``. For
``not_found`` the diagnostic ``best_overlap`` is the Jaccard similarity of word sets between
the quote and its closest same-length window of the document; it never admits anything.

Normalised documents are cached per content hash (:class:`AnchorCache`), so anchoring many
quotes in one large document normalises it once. Pure functions; the only state is that memo,
which never changes a result.
"""

from __future__ import annotations

import html
import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from affidavit.schemas.documents import content_sha256
from affidavit.schemas.enums import AnchorKind
from affidavit.schemas.judgments import Anchor

__all__ = [
    "MIN_QUOTE_CHARS",
    "AnchorCache",
    "NormalizedText",
    "anchor_quote",
    "anchor_quotes",
    "gate_anchor",
    "highlight_span",
    "normalize_for_anchor",
    "normalize_quote",
]

MIN_QUOTE_CHARS = 24
"""Shortest quote admitted, in characters of the normalised quote (whitespace collapsed, end
punctuation dropped). From the seed design: shorter strings match by coincidence. On quotes-dev
every genuine quote has at least 24 such characters."""

REASON_OK = "ok"
REASON_EMPTY_QUOTE = "empty_quote"
REASON_EMPTY_DOCUMENT = "empty_document"
REASON_CONTENT_CHANGED = "content_changed"
REASON_TOO_SHORT = "too_short"
REASON_NOT_FOUND = "not_found"

# --------------------------------------------------------------------------------------------
# Character normalisation (stage 1: one character cluster at a time)
# --------------------------------------------------------------------------------------------

_LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
_APOSTROPHES = frozenset("'`\u00b4\u02b9\u02bc\u02c8\u2018\u2019\u201a\u201b\u2032\u2035\uff07")
_DOUBLE_QUOTES = frozenset(
    '"\u00ab\u00bb\u02ba\u201c\u201d\u201e\u201f\u2033\u2036\u301d\u301e\uff02'
)
_DASHES = frozenset(
    "-\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d"
)
_PUNCT_MAP = {
    **{ord(c): "'" for c in _APOSTROPHES},
    **{ord(c): '"' for c in _DOUBLE_QUOTES},
    **{ord(c): "-" for c in _DASHES},
}
# Hangul medial vowels and final consonants compose with the preceding jamo under NFKC.
_JAMO_ATTACHING = ((0x1160, 0x11FF), (0xD7B0, 0xD7FF))


@lru_cache(maxsize=65536)
def _normalize_cluster(cluster: str) -> str:
    r"""Normalise one character cluster (a base character and its combining marks).

    NFKC, full casefold, NFKC again (Unicode's NFKC_Casefold recipe), then quotes to ``'``/``"``,
    dashes to ``-``, line breaks to ``\n``, other whitespace to a space, and format/control
    characters (soft hyphen, zero-width spaces and joiners, BOM, bidi marks) and variation
    selectors deleted.
    """
    # Quote marks and dashes are mapped before NFKC too: NFKC turns the acute accent used as an
    # apostrophe (U+00B4) into a space and a combining mark.
    s = cluster.translate(_PUNCT_MAP)
    s = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", s).casefold())
    out: list[str] = []
    for ch in s:
        if ch in _LINE_BREAKS:
            out.append("\n")
        elif ch.isspace():
            out.append(" ")
        elif ch in _APOSTROPHES:
            out.append("'")
        elif ch in _DOUBLE_QUOTES:
            out.append('"')
        elif ch in _DASHES:
            out.append("-")
        else:
            cp = ord(ch)
            if 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF:
                continue  # variation selectors
            if unicodedata.category(ch) in ("Cf", "Cc"):
                continue  # soft hyphen, zero-width characters, BOM, bidi marks, controls
            out.append(ch)
    return "".join(out)


@lru_cache(maxsize=65536)
def _attaches(ch: str) -> bool:
    """Whether ``ch`` belongs to the cluster of the character before it (combining marks)."""
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Mc", "Me"):
        return True
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _JAMO_ATTACHING)


# str.translate table for characters that never attach; grown lazily for non-ASCII characters.
_TRANSLATE: dict[int, str] = {i: _normalize_cluster(chr(i)) for i in range(128)}
_ASCII_TRANSLATE = dict(_TRANSLATE)
_ASCII_OUT = np.full(128, -1, dtype=np.int64)  # output code point of each ASCII char, -1 deleted
for _i in range(128):
    _o = _TRANSLATE[_i]
    if len(_o) == 1:
        _ASCII_OUT[_i] = ord(_o)
    elif _o:  # pragma: no cover - no ASCII character expands
        raise AssertionError("ASCII character expands under normalisation")

_ENTITY_RE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
# Stage 2 on the stage-1 string (whose only whitespace is " " and "\n"): a hyphen between two
# letters is deleted together with a line break (and its indentation) right after it, then every
# whitespace run becomes one space.
_HYPHEN_JOIN_RE = re.compile(r"(?<=[^\W\d_])-(?:[ ]*\n[ \n]*)?(?=[^\W\d_])")
_WS_RUN_RE = re.compile(r"[ \n]+")
_WORD_RE = re.compile(r"\w+")

_TRAIL_PUNCT = ".,;:!?'\")]}"


def _decode_entities(s: str) -> str:
    """Decode HTML character references (``&amp;``, ``&#8217;``, ``&nbsp;``) one level deep."""
    return _ENTITY_RE.sub(lambda m: html.unescape(m.group()), s)


def _stage1(s: str) -> str:
    """Normalise characters of ``s`` (no entity decoding, no whitespace/hyphen rules)."""
    if s.isascii():
        return s.translate(_ASCII_TRANSLATE)
    attaching = False
    for ch in set(s):
        cp = ord(ch)
        if cp not in _TRANSLATE:
            if _attaches(ch):
                attaching = True
                continue
            _TRANSLATE[cp] = _normalize_cluster(ch)
    if not attaching:
        return s.translate(_TRANSLATE)
    out: list[str] = []
    start = 0
    for k in range(1, len(s) + 1):
        if k == len(s) or not _attaches(s[k]):
            out.append(_normalize_cluster(s[start:k]))
            start = k
    return "".join(out)


def normalize_quote(quote: str) -> str:
    r"""Return the normalised form of a string, exactly as the document side is normalised.

    Equal to ``normalize_for_anchor(quote).text`` but faster (no offset map), with leading and
    trailing whitespace removed.

    Args:
        quote: Any string.

    Returns:
        The normalised string.

    >>> normalize_quote("  The “Fed” RAISED rates\u00a0—\nby 0.25&nbsp;% ")
    'the "fed" raised rates - by 0.25 %'
    >>> normalize_quote("ﬁnd the Cincin-\nnati oﬃce")
    'find the cincinnati office'
    """
    s = _decode_entities(quote) if "&" in quote else quote
    s = _stage1(s)
    if "-" in s:
        s = _HYPHEN_JOIN_RE.sub("", s)
    return _WS_RUN_RE.sub(" ", s).strip()


# --------------------------------------------------------------------------------------------
# Document normalisation with an offset map
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NormalizedText:
    """A document's normalised text and the map from each normalised character to the original.

    Attributes:
        text: The normalised string (see the module docstring for the rules).
        orig_start: int32, shape (len(text),): original offset of the first character that
            produced each normalised character.
        orig_end: int32, shape (len(text),): original offset (exclusive) of the last character
            that produced it. A normalised match ``[i, j)`` maps back to
            ``[orig_start[i], orig_end[j - 1])``.
        memo: Lookup structures, not part of equality: ``"joins"`` (the normalised offsets
            right after a deleted hyphen, which count as word boundaries) and, built lazily,
            ``"words"`` (the word index used to search large documents and for near-miss
            diagnostics).
    """

    text: str
    orig_start: np.ndarray
    orig_end: np.ndarray
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def to_original(self, i: int, j: int) -> tuple[int, int]:
        """Map a normalised span ``[i, j)`` (``i < j``) to original offsets ``(start, end)``."""
        return int(self.orig_start[i]), int(self.orig_end[j - 1])


_EMPTY_I32 = np.zeros(0, dtype=np.int32)


def normalize_for_anchor(text: str) -> NormalizedText:
    r"""Normalise a document for anchoring and keep the map back to original offsets.

    Work is vectorised over code points (numpy); only characters that expand, vanish into
    clusters with combining marks, or belong to HTML entities go through Python one by one.

    Args:
        text: The document text as stored (``documents.text``).

    Returns:
        The :class:`NormalizedText`; ``normalize_for_anchor(t).text`` equals
        ``normalize_quote(t)`` up to leading/trailing space.

    >>> nt = normalize_for_anchor("Q3\u00a0re\u00advenue &amp; ﬁnance")
    >>> nt.text
    'q3 revenue & finance'
    >>> i = nt.text.index("finance"); nt.to_original(i, i + len("finance"))
    (18, 24)
    """
    n = len(text)
    if n == 0:
        return NormalizedText("", _EMPTY_I32, _EMPTY_I32)
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4").astype(np.int64)

    # Per position: output code point for 1:1 characters, -1 deleted, -2 expands; attaching flag.
    is_ascii = cps < 128
    pos_out = np.empty(n, dtype=np.int64)
    pos_att = np.zeros(n, dtype=bool)
    pos_out[is_ascii] = _ASCII_OUT[cps[is_ascii]]
    if not is_ascii.all():
        na = np.flatnonzero(~is_ascii)
        cps_na = cps[na]
        # Dense tables over the code points present (a sort-free np.unique).
        size = int(cps_na.max()) + 1
        present = np.zeros(size, dtype=bool)
        present[cps_na] = True
        uniq = np.flatnonzero(present)
        t_out = np.zeros(size, dtype=np.int64)
        t_att = np.zeros(size, dtype=bool)
        for u in uniq.tolist():
            ch = chr(u)
            if _attaches(ch):
                t_att[u] = True
                t_out[u] = -2
                continue
            o = _normalize_cluster(ch)
            t_out[u] = ord(o) if len(o) == 1 else (-1 if not o else -2)
        pos_out[na] = t_out[cps_na]
        pos_att[na] = t_att[cps_na]

    # Segments replaced as a whole: HTML entities first, then clusters and expanding characters.
    seg_a: list[int] = []
    seg_b: list[int] = []
    seg_out: list[str] = []
    covered = np.zeros(n, dtype=bool)
    if "&" in text:
        for m in _ENTITY_RE.finditer(text):
            decoded = html.unescape(m.group())
            if decoded == m.group():
                continue
            a, b = m.span()
            seg_a.append(a)
            seg_b.append(b)
            seg_out.append(_stage1(decoded))
            covered[a:b] = True
    special = pos_out == -2
    att_idx = np.flatnonzero(pos_att)
    if len(att_idx):
        base = att_idx[att_idx > 0] - 1
        special[base] = True
    special &= ~covered
    cur_a = cur_b = -1
    for p in np.flatnonzero(special).tolist():
        if p == cur_b and pos_att[p]:
            cur_b = p + 1
            continue
        if cur_a >= 0:
            seg_a.append(cur_a)
            seg_b.append(cur_b)
            seg_out.append(_normalize_cluster(text[cur_a:cur_b]))
        cur_a, cur_b = p, p + 1
    if cur_a >= 0:
        seg_a.append(cur_a)
        seg_b.append(cur_b)
        seg_out.append(_normalize_cluster(text[cur_a:cur_b]))

    simple = np.flatnonzero(~special & ~covered & (pos_out >= 0))
    out_cp = [pos_out[simple]]
    starts = [simple]
    ends = [simple + 1]
    subs = [np.zeros(len(simple), dtype=np.int64)]
    if seg_out:
        lens = np.fromiter((len(o) for o in seg_out), dtype=np.int64, count=len(seg_out))
        joined = "".join(seg_out)
        if joined:
            out_cp.append(
                np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype="<u4").astype(
                    np.int64
                )
            )
            starts.append(np.repeat(np.asarray(seg_a, dtype=np.int64), lens))
            ends.append(np.repeat(np.asarray(seg_b, dtype=np.int64), lens))
            first = np.repeat(np.cumsum(lens) - lens, lens)
            subs.append(np.arange(len(joined), dtype=np.int64) - first)
    s_cp = np.concatenate(out_cp)
    s_start = np.concatenate(starts)
    s_end = np.concatenate(ends)
    if len(out_cp) > 1:
        order = np.lexsort((np.concatenate(subs), s_start))
        s_cp, s_start, s_end = s_cp[order], s_start[order], s_end[order]

    # Stage 2: hyphen joins, then whitespace runs to one space.
    keep = np.ones(len(s_cp), dtype=bool)
    join_after: list[int] = []
    if (s_cp == 0x2D).any():
        s1 = s_cp.astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")
        for m in _HYPHEN_JOIN_RE.finditer(s1):
            keep[m.start() : m.end()] = False
            join_after.append(m.end())
    idx = np.flatnonzero(keep)
    ws = (s_cp[idx] == 0x20) | (s_cp[idx] == 0x0A)
    dup = np.zeros(len(idx), dtype=bool)
    dup[1:] = ws[1:] & ws[:-1]
    idx = idx[~dup]
    final_cp = s_cp[idx]
    final_cp[final_cp == 0x0A] = 0x20
    norm = final_cp.astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")
    # A deleted hyphen is followed by a letter, which is kept: its final offset is a join.
    joins = frozenset(np.searchsorted(idx, join_after).tolist()) if join_after else frozenset()
    return NormalizedText(
        norm,
        s_start[idx].astype(np.int32),
        s_end[idx].astype(np.int32),
        memo={"joins": joins},
    )


# --------------------------------------------------------------------------------------------
# Cache
# --------------------------------------------------------------------------------------------


class AnchorCache:
    """Bounded LRU of :class:`NormalizedText` keyed by the document's content SHA-256.

    A hit is checked against the stored text (same object, or equal string), so a wrong or
    stale ``sha256`` argument can cost a re-normalisation but never a wrong span. The hash of a
    text object already in the cache is remembered by identity, so a warm lookup does not hash
    the document again.

    Args:
        max_docs: Most documents kept.
        max_chars: Most original characters kept in total (a normalised document costs about
            9 bytes per character: the string and two int32 maps). Default 16 M characters,
            about 150 MB.

    Raises:
        ValueError: When a bound is not positive.
    """

    def __init__(self, *, max_docs: int = 256, max_chars: int = 16_000_000) -> None:
        if max_docs <= 0 or max_chars <= 0:
            raise ValueError("max_docs and max_chars must be positive")
        self.max_docs = max_docs
        self.max_chars = max_chars
        self._entries: OrderedDict[str, tuple[str, NormalizedText]] = OrderedDict()
        self._sha_by_id: dict[int, tuple[str, str]] = {}
        self._chars = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Drop every entry."""
        with self._lock:
            self._entries.clear()
            self._sha_by_id.clear()
            self._chars = 0

    def sha256_of(self, text: str) -> str:
        """Return ``content_sha256(text)``, without re-hashing a text object held by the cache."""
        known = self._sha_by_id.get(id(text))
        if known is not None and known[0] is text:
            return known[1]
        return content_sha256(text)

    def get(self, text: str, sha256: str | None = None) -> NormalizedText:
        """Return the normalised form of ``text``, normalising it only on a miss.

        Args:
            text: The document text.
            sha256: Its ``content_sha256`` when known: a hit then costs no hashing (the
                stored text is compared instead). A miss hashes ``text`` anyway, so a wrong
                hint never stores a wrong entry.

        Returns:
            The :class:`NormalizedText` of ``text``.
        """
        if sha256:
            nt = self._lookup(text, sha256.lower())
            if nt is not None:
                return nt
        # No hint, or a hint that missed: it may be wrong, so store under the real hash.
        return self._get_verified(text, self.sha256_of(text))

    def _lookup(self, text: str, key: str) -> NormalizedText | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and (entry[0] is text or entry[0] == text):
                self._entries.move_to_end(key)
                self.hits += 1
                return entry[1]
        return None

    def _get_verified(self, text: str, key: str) -> NormalizedText:
        """Like :meth:`get` with ``key`` known to be ``content_sha256(text)``."""
        nt = self._lookup(text, key)
        if nt is not None:
            return nt
        nt = normalize_for_anchor(text)
        with self._lock:
            self.misses += 1
            if key not in self._entries:
                self._entries[key] = (text, nt)
                self._sha_by_id[id(text)] = (text, key)
                self._chars += len(text)
            while len(self._entries) > 1 and (
                len(self._entries) > self.max_docs or self._chars > self.max_chars
            ):
                _, (old_text, _) = self._entries.popitem(last=False)
                self._chars -= len(old_text)
                known = self._sha_by_id.get(id(old_text))
                if known is not None and known[0] is old_text:
                    del self._sha_by_id[id(old_text)]
        return nt


_DEFAULT_CACHE = AnchorCache(max_docs=64, max_chars=8_000_000)


# --------------------------------------------------------------------------------------------
# Matching
# --------------------------------------------------------------------------------------------

_UNSPACED_RANGES = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3400, 0x4DBF),  # CJK Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
    (0x20000, 0x3FFFF),  # CJK Extensions B+
)
_NUMBER_JOINERS = ".,"
_MINUS_SIGNS = "-\u2010\u2011\u2012\u2013\u2014\u2212"


def _is_unspaced(ch: str) -> bool:
    cp = ord(ch)
    return cp >= 0x0E00 and any(lo <= cp <= hi for lo, hi in _UNSPACED_RANGES)


def _joined(a: str, b: str) -> bool:
    """Whether adjacent characters ``a`` and ``b`` belong to one word or number."""
    if a.isdigit() and b.isdigit():
        return True
    return a.isalnum() and b.isalnum() and not (_is_unspaced(a) or _is_unspaced(b))


def _on_boundaries(hay: str, i: int, j: int, joins: frozenset[int] = frozenset()) -> bool:
    """Whether ``hay[i:j]`` starts and ends on word/number boundaries of ``hay``.

    Rejects a match that starts or ends inside a word or number (``42`` in ``142``), stops or
    starts at a decimal or thousands separator of a number that goes on (``42`` or ``42.``
    before ``.5``, ``500`` after ``1,``), or drops a leading minus sign (``42`` after `` -``).
    Offsets in ``joins`` (where normalisation deleted a hyphen between two letters) are word
    boundaries: "based approach" may be quoted from "evidence-based approach".
    """
    first, last = hay[i], hay[j - 1]
    if i > 0 and i not in joins:
        prev = hay[i - 1]
        if _joined(prev, first):
            return False
        if first.isdigit():
            if prev in _NUMBER_JOINERS and i > 1 and hay[i - 2].isdigit():
                return False
            if prev in _MINUS_SIGNS and (i == 1 or not hay[i - 2].isalnum()):
                return False
        elif first in _NUMBER_JOINERS and prev.isdigit() and i + 1 < j and hay[i + 1].isdigit():
            return False  # ".5 million" inside "42.5 million"
    if j < len(hay) and j not in joins:
        nxt = hay[j]
        if _joined(last, nxt):
            return False
        if last.isdigit() and nxt in _NUMBER_JOINERS and j + 1 < len(hay) and hay[j + 1].isdigit():
            return False
        if last in _NUMBER_JOINERS and nxt.isdigit() and j - 2 >= i and hay[j - 2].isdigit():
            return False  # "reached 42." before "42.5"
    return True


def _find_on_boundaries(hay: str, needle: str) -> int:
    """Return the first offset where ``needle`` occurs in ``hay`` on boundaries, or -1."""
    pos = hay.find(needle)
    while pos >= 0:
        if _on_boundaries(hay, pos, pos + len(needle)):
            return pos
        pos = hay.find(needle, pos + 1)
    return -1


_INDEX_MIN_CHARS = 65_536
"""Documents at least this long (characters) are searched through their word index instead of
a scan per quote: a scan of a 1 MB document costs ~0.3 ms, a lookup of the quote's rarest word
microseconds (measured with tests/benchmarks/bench_quotes.py on a 2-core machine)."""


def _occurrences(nt: NormalizedText, needle: str) -> Iterator[int]:
    """Yield, in increasing order, the offsets where ``needle`` occurs on word boundaries.

    Offsets are into ``nt.text``.

    Short documents are scanned. Long ones (:data:`_INDEX_MIN_CHARS`) are searched from the
    occurrences of the needle's rarest *inner* word (a word with a non-word character on both
    sides inside the needle, so that at any match it is a whole word of the document too); a
    needle with an inner word the document lacks cannot occur at all.
    """
    hay = nt.text
    joins = nt.memo.get("joins", frozenset())
    if len(hay) >= _INDEX_MIN_CHARS:
        inner = [m for m in _WORD_RE.finditer(needle) if m.start() > 0 and m.end() < len(needle)]
        if inner:
            _, where, starts = _doc_words(nt)
            best: tuple[int, list[int]] | None = None
            for m in inner:
                occ = where.get(m.group())
                if occ is None:
                    return
                if best is None or len(occ) < len(best[1]):
                    best = (m.start(), occ)
            assert best is not None
            offset, occ = best
            for w in occ:
                i = starts[w] - offset
                if (
                    i >= 0
                    and hay.startswith(needle, i)
                    and _on_boundaries(hay, i, i + len(needle), joins)
                ):
                    yield i
            return
    pos = hay.find(needle)
    while pos >= 0:
        if _on_boundaries(hay, pos, pos + len(needle), joins):
            yield pos
        pos = hay.find(needle, pos + 1)


def _strip_end_punct(nq: str, *, leading: bool = True) -> str:
    """Drop punctuation at the ends of a normalised quote (never inside it).

    Trailing ``. , ; : ! ?``, quote marks and closing brackets go; with ``leading``, leading
    quote marks, opening brackets and ellipses go too. A single leading ``.`` stays (``.5`` is a
    number).
    """
    core = nq
    while True:
        before = core
        core = core.rstrip(_TRAIL_PUNCT).rstrip()
        if leading:
            if core.startswith("..."):
                core = core.lstrip(".").lstrip()
            core = core.lstrip("'\"([{").lstrip()
        if core == before:
            return core


def _doc_words(nt: NormalizedText) -> tuple[list[str], dict[str, list[int]], list[int]]:
    """Word index of a normalised document, built once and kept in its memo.

    Returns:
        ``(words, where, starts)``: the words in order, the word positions of each distinct word
        (ascending), and each word's character offset in ``nt.text``.
    """
    cached = nt.memo.get("words")
    if cached is None:
        words: list[str] = []
        starts: list[int] = []
        where: dict[str, list[int]] = {}
        for k, m in enumerate(_WORD_RE.finditer(nt.text)):
            w = m.group()
            words.append(w)
            starts.append(m.start())
            where.setdefault(w, []).append(k)
        cached = (words, where, starts)
        nt.memo["words"] = cached
    return cached


_N_VOTERS = 3
"""Quote words (the rarest in the document) whose occurrences propose candidate windows for the
near-miss diagnostic."""


def _best_overlap(nq: str, nt: NormalizedText) -> float:
    """Jaccard similarity of word sets between a quote and its closest window of the document.

    The :data:`_N_VOTERS` rarest quote words that occur in the document vote for window starts
    (each occurrence, minus the word's offset in the quote); the start with most votes, and its
    neighbours one word earlier or later (a dropped or inserted word), are compared with the
    quote as sets of words. A diagnostic only: it never admits a quote.
    """
    q_words = _WORD_RE.findall(nq)
    if not q_words:
        return 0.0
    words, where, _ = _doc_words(nt)
    found = [where.get(w) for w in q_words]
    hits = sorted([(len(pos), k) for k, pos in enumerate(found) if pos is not None])
    if not hits:
        return 0.0
    votes: dict[int, int] = {}
    for _, k in hits[:_N_VOTERS]:
        for p in found[k]:  # type: ignore[union-attr]
            votes[p - k] = votes.get(p - k, 0) + 1
    top = max(votes, key=votes.__getitem__)
    n = len(q_words)
    q_set = set(q_words)
    n_q = len(q_set)
    last_start = max(len(words) - n, 0)
    best = 0.0
    for t in {min(max(top + d, 0), last_start) for d in (-1, 0, 1)}:
        w_set = set(words[t : t + n])
        shared = len(q_set.intersection(w_set))
        best = max(best, shared / (n_q + len(w_set) - shared))
    return round(best, 4)


_SINGLE_WRAPPERS = frozenset("'\u2018\u2019\u201a\u201b\u2039\u203a")


def unwrap_quote(quote: str) -> str:
    """Remove the quote marks a judge wrapped around a quote; keep marks that belong to it.

    Double marks (straight, curly, low-9, guillemets) at the ends are a wrapper only when the
    words between them hold no double mark of their own: ``“We won’t close”`` and an
    unbalanced ``“We won’t close`` are unwrapped, while ``the plan "a promise"`` and
    ``"aaa" … "bbb"`` (quoted words at both ends of a span) are left whole. Single marks are a
    wrapper only as a pair (a lone ``'`` may be an apostrophe). Punctuation the judge put
    after the closing mark (``“…”.``) goes with it.

    >>> unwrap_quote("\u201cWe won\u2019t close the clinic.\u201d")
    'We won\u2019t close the clinic.'
    >>> unwrap_quote('The plan was "a promise with no money"')
    'The plan was "a promise with no money"'
    >>> unwrap_quote("\u00abUnbalanced opening only")
    'Unbalanced opening only'
    >>> unwrap_quote('"aaa" and "bbb"')
    '"aaa" and "bbb"'
    """
    q = quote.strip()
    for _ in range(2):  # at most two nested wrappers ("'…'")
        if len(q) < 2:
            return q
        trimmed = q.rstrip(".,;:")
        body = trimmed if trimmed[-1:] in _DOUBLE_QUOTES | _SINGLE_WRAPPERS else q
        first, last = body[0], body[-1]
        lead = first in _DOUBLE_QUOTES
        trail = last in _DOUBLE_QUOTES
        if lead or trail:
            inner = body[1 if lead else 0: len(body) - 1 if trail else len(body)]
            if any(c in _DOUBLE_QUOTES for c in inner):
                return q
            q = inner.strip()
        elif first in _SINGLE_WRAPPERS and last in _SINGLE_WRAPPERS and len(body) > 2:
            q = body[1:-1].strip()
        else:
            return q
    return q


def _failed(reason: str, best_overlap: float | None = None) -> Anchor:
    return Anchor(kind=AnchorKind.FAILED, reason=reason, best_overlap=best_overlap)


def anchor_quote(
    quote: str,
    text: str,
    *,
    min_chars: int = MIN_QUOTE_CHARS,
    expected_sha256: str | None = None,
    cache: AnchorCache | None = None,
    diagnose: bool = True,
) -> Anchor:
    """Locate ``quote`` in ``text``: EXACT, else NORMALIZED, else FAILED with a reason.

    Args:
        quote: The quote a judge returned.
        text: The stored document text the quote claims to come from.
        min_chars: Shortest admissible quote, in characters of the normalised quote with its
            end punctuation dropped (default :data:`MIN_QUOTE_CHARS`).
        expected_sha256: The ``content_sha256`` recorded for the document; when given and
            ``text`` hashes differently the quote is rejected (``content_changed``).
        cache: Cache of normalised documents; a module-level default cache when ``None``.
        diagnose: Compute ``best_overlap`` for ``not_found`` (costs one word index per
            document, built once and cached with it).

    Returns:
        An :class:`~affidavit.schemas.judgments.Anchor`. Admitted anchors carry ``span_start`` /
        ``span_end`` (character offsets into ``text``, end exclusive): the first verbatim
        occurrence when there is one (EXACT), else the first normalised one (NORMALIZED). In
        documents of :data:`_INDEX_MIN_CHARS` or more the verbatim occurrences are found among
        the normalised ones, through the word index, instead of by a separate scan.

    Raises:
        ValueError: When ``min_chars`` is negative.

    >>> doc = "The company said its Q3 revenue reached 42 million dollars last year."
    >>> anchor_quote("its Q3 revenue reached 42 million dollars", doc).kind
    <AnchorKind.EXACT: 'EXACT'>
    >>> a = anchor_quote("its Q3 revenue reached 91 million dollars", doc)
    >>> a.kind, a.reason, a.best_overlap
    (<AnchorKind.FAILED: 'FAILED'>, 'not_found', 0.75)
    """
    if min_chars < 0:
        raise ValueError(f"min_chars must be >= 0, got {min_chars}")
    if quote is None or not quote.strip():
        return _failed(REASON_EMPTY_QUOTE)
    if text is None or not text.strip():
        return _failed(REASON_EMPTY_DOCUMENT)
    cache = _DEFAULT_CACHE if cache is None else cache
    actual_sha = None
    if expected_sha256 is not None:
        actual_sha = cache.sha256_of(text)
        if actual_sha != expected_sha256.lower():
            return _failed(REASON_CONTENT_CHANGED)
    inner = unwrap_quote(quote)
    if inner and inner != quote.strip() and not (
        len(text) < _INDEX_MIN_CHARS and _find_on_boundaries(text, quote.strip()) >= 0
    ):
        # the words inside a judge's quote marks: the span then leaves the marks out
        a = anchor_quote(inner, text, min_chars=min_chars, expected_sha256=expected_sha256,
                         cache=cache, diagnose=False)
        if a.is_admitted:  # not verbatim as given: the marks were removed
            return Anchor(kind=AnchorKind.NORMALIZED, span_start=a.span_start,
                          span_end=a.span_end)
        if a.reason == REASON_CONTENT_CHANGED:
            return a
    nq = normalize_quote(quote)
    core = _strip_end_punct(nq)
    if not core:
        return _failed(REASON_EMPTY_QUOTE)
    if len(core) < min_chars:
        return _failed(REASON_TOO_SHORT)

    stripped = quote.strip()
    large = len(text) >= _INDEX_MIN_CHARS
    if not large:
        pos = _find_on_boundaries(text, stripped)
        if pos >= 0:
            return Anchor(kind=AnchorKind.EXACT, span_start=pos, span_end=pos + len(stripped))

    nt = cache._get_verified(text, actual_sha) if actual_sha else cache.get(text)
    needles = [nq]
    for variant in (_strip_end_punct(nq, leading=False), core):
        if variant not in needles:
            needles.append(variant)
    for n, needle in enumerate(needles):
        first: tuple[int, int] | None = None
        for i in _occurrences(nt, needle):
            start, end = nt.to_original(i, i + len(needle))
            if large and n == 0 and text[start:end] == stripped:
                # Large documents skip the verbatim scan: the first verbatim occurrence is
                # among the normalised ones.
                return Anchor(kind=AnchorKind.EXACT, span_start=start, span_end=end)
            if first is None:
                first = (start, end)
                if not (large and n == 0):
                    break
        if first is not None:
            return Anchor(kind=AnchorKind.NORMALIZED, span_start=first[0], span_end=first[1])
    return _failed(REASON_NOT_FOUND, _best_overlap(core, nt) if diagnose else None)


def gate_anchor(quote: str, text: str, **kw: Any) -> tuple[bool, str]:
    """The anchor gate as ``(passed, reason)``; reason is ``"ok"`` when the quote is located.

    Args:
        quote: The quote.
        text: The document text.
        **kw: Options of :func:`anchor_quote`.

    Returns:
        ``(True, "ok")`` or ``(False, reason)``.

    >>> gate_anchor("short", "a short text")
    (False, 'too_short')
    """
    a = anchor_quote(quote, text, **kw)
    return (True, REASON_OK) if a.is_admitted else (False, a.reason or REASON_NOT_FOUND)


def anchor_quotes(
    pairs: Sequence[tuple[str, str]], *, cache: AnchorCache | None = None, **kw: Any
) -> list[Anchor]:
    """Anchor a batch of ``(quote, text)`` pairs, normalising each distinct document once.

    Args:
        pairs: ``(quote, document text)`` pairs, one per judgment.
        cache: Cache of normalised documents; a fresh one sized for the batch when ``None``
            (so a large batch does not evict the module-level cache).
        **kw: Other options of :func:`anchor_quote` (``min_chars``, ``diagnose``).

    Returns:
        One :class:`~affidavit.schemas.judgments.Anchor` per pair, in order.
    """
    if cache is None:
        n_docs = len({id(t) for _, t in pairs}) or 1
        cache = AnchorCache(max_docs=max(n_docs, 1))
    return [anchor_quote(q, t, cache=cache, **kw) for q, t in pairs]


def highlight_span(
    text: str, start: int, end: int, *, context_chars: int = 160
) -> tuple[str, str, str]:
    """Split a document around an anchored span for display: ``(before, quote, after)``.

    The context is cut at a word boundary where one is near and marked with ``…`` where the
    document goes on; whitespace runs in the context are collapsed.

    Args:
        text: The document text.
        start: Span start (original offset).
        end: Span end, exclusive.
        context_chars: Characters of context kept on each side (at most).

    Returns:
        ``(before, quote, after)``; ``quote == text[start:end]``.

    Raises:
        ValueError: When the span is not within the text or ``context_chars`` is negative.

    >>> highlight_span("One two three four five", 8, 13, context_chars=6)
    ('…two ', 'three', ' four…')
    """
    if not 0 <= start <= end <= len(text):
        raise ValueError(f"span [{start}, {end}) is not within a text of {len(text)} characters")
    if context_chars < 0:
        raise ValueError("context_chars must be >= 0")
    b0 = max(0, start - context_chars)
    before = text[b0:start]
    if b0 > 0:
        cut = before.find(" ")
        if 0 <= cut < len(before) - 1:
            before = before[cut + 1 :]
        before = "…" + before
    a1 = min(len(text), end + context_chars)
    after = text[end:a1]
    if a1 < len(text):
        cut = after.rfind(" ")
        if cut > 0:
            after = after[:cut]
        after = after + "…"
    collapse = re.compile(r"\s+")
    return collapse.sub(" ", before), text[start:end], collapse.sub(" ", after)
