"""Split texts into words, lines, sentences and quoted ranges, vectorised over a batch.

The lineage stage needs, per document, its normalised words (``affidavit.tasks.shingles.
split_words``) as fixed-width arrays, the number of words on each line, the number of words in
each sentence, and the word ranges inside double quotation marks (``affidavit.tasks.lineage``,
``affidavit.tasks.passages``). ``segment_text`` states the rules one text at a time in Python;
``segment_texts`` gives the same arrays for a batch, with the ASCII texts (about nine in ten of
lineage-dev's and the synthetic scale corpus's documents) handled by NumPy on their bytes and
the others by ``segment_text`` (NFKC and case folding are not a per-byte table).

The rules (``segment_text``):

* lines are the pieces between line feeds; a line break is always a word boundary;
* within a line, a sentence ends at a run of whitespace after ``.``, ``!`` or ``?`` (and an
  optional closing quote or bracket); with ``stop_needed`` a line that does not end with such a
  stop (a headline, a menu line, a sentence broken across lines) does not end its sentence,
  which runs on into the next line; a last unfinished sentence of no word is not counted;
* double quotation marks (``"“”„«»``) toggle "inside quotes", reset at each line; every
  stretch of words between two quotation marks, sentence ends or line ends that lies inside
  quotes is one quoted range ``[start, end)`` of word positions.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from affidavit.tasks.minhash import Ragged, WordArrays, _encode_words
from affidavit.tasks.shingles import (
    _APOSTROPHES,
    _ASCII_TABLE,
    _NON_WORD,
    normalize_for_shingles,
    split_words,
)

__all__ = ["Segments", "segment_text", "segment_texts"]

# a sentence ends with . ! or ? (and any closing quote or bracket) before whitespace
_SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]?\s*$")
_QUOTE_CHARS = frozenset('"\u201c\u201d\u201e\u00ab\u00bb')
_QUOTE_MARK = re.compile('(["\u201c\u201d\u201e\u00ab\u00bb])')
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|(?<=[.!?][\"'\u201d\u2019)\]])\s+")


@dataclass(slots=True)
class Segments:
    """Words and spans of a batch of documents (in the order of the texts).

    Attributes:
        words: The normalised words (``WordArrays``).
        line_lengths: int32 words per line of each document.
        sentence_lengths: int32 words per sentence of each document.
        quoted: int32 ``(k, 2)`` word ranges ``[start, end)`` inside double quotes, per
            document (positions within the document).
    """

    words: WordArrays
    line_lengths: Ragged
    sentence_lengths: Ragged
    quoted: Ragged


def segment_text(
    text: str, *, normalize: bool = True, stop_needed: bool = True
) -> tuple[list[str], list[int], list[int], list[tuple[int, int]]]:
    r"""Split one text by the rules of the module docstring (the reference implementation).

    Args:
        text: Any text.
        normalize: As ``ShingleConfig.normalize`` (``split_words``).
        stop_needed: A line break ends a sentence only after a stop
            (``LineageConfig.quote_sentence_needs_stop``).

    Returns:
        ``(words, line_lengths, sentence_lengths, quoted)``.

    >>> segment_text('He said "Rates rose." Then\nit fell')
    (['he', 'said', 'rates', 'rose', 'then', 'it', 'fell'], [5, 2], [4, 3], [(2, 4)])
    """
    doc_words: list[str] = []
    doc_lines: list[int] = []
    doc_sents: list[int] = []
    doc_quoted: list[tuple[int, int]] = []
    carry = 0  # words of an unfinished sentence (a line without a full stop)
    for line in text.split("\n"):
        n_before = len(doc_words)
        inside = False  # within double quotation marks (reset at each line)
        for sent in _SENTENCE_BREAK.split(line):
            n_sent = 0
            for piece in _QUOTE_MARK.split(sent):
                if piece in _QUOTE_CHARS:
                    inside = not inside
                    continue
                piece_words = split_words(piece, normalize=normalize)
                if inside and piece_words:
                    doc_quoted.append((len(doc_words), len(doc_words) + len(piece_words)))
                doc_words.extend(piece_words)
                n_sent += len(piece_words)
            doc_sents.append(n_sent + carry)
            carry = 0
        doc_lines.append(len(doc_words) - n_before)
        if stop_needed and not _SENTENCE_END.search(line):
            carry = doc_sents.pop()
    if carry:
        doc_sents.append(carry)
    return doc_words, doc_lines, doc_sents, doc_quoted


@dataclass(slots=True)
class _Parts:
    """``Segments`` before the words are hashed: their strings, flat, and per-document offsets."""

    flat: pa.Array
    word_offsets: np.ndarray
    line_lengths: Ragged
    sentence_lengths: Ragged
    quoted: Ragged


def _segment_python(texts: Sequence[str], *, normalize: bool, stop_needed: bool) -> _Parts:
    """``segment_texts`` one text at a time (``segment_text``)."""
    words, lines, sents, quoted = [], [], [], []
    for text in texts:
        w, ln, s, q = segment_text(text, normalize=normalize, stop_needed=stop_needed)
        words.append(w)
        lines.append(ln)
        sents.append(s)
        quoted.append(q)
    counts = np.zeros(len(words) + 1, dtype=np.int64)
    counts[1:] = [len(w) for w in words]
    return _Parts(
        pa.array([w for ws in words for w in ws], type=pa.large_string()),
        np.cumsum(counts),
        Ragged.from_lists(lines, np.int32),
        Ragged.from_lists(sents, np.int32),
        Ragged.from_lists(quoted, np.int32, width=2),
    )


# byte classes of the ASCII path
_DROP, _SPACE, _WORD = 0, 1, 2


def _byte_tables(normalize: bool) -> tuple[np.ndarray, np.ndarray]:
    """Class (``_DROP`` / ``_SPACE`` / ``_WORD``) and lower-cased value of each ASCII byte.

    With ``normalize`` the classes follow ``normalize_for_shingles``'s ASCII table (apostrophes
    deleted, other punctuation a word boundary) and ``str.split``'s whitespace; without, only
    whitespace and the double quotation mark (which splits pieces) are boundaries.
    """
    cls = np.full(256, _WORD, dtype=np.uint8)
    low = np.arange(256, dtype=np.uint8)
    for code in range(128):
        ch = chr(code)
        if normalize:
            mapped = _ASCII_TABLE.get(code, code)
            if mapped is None:
                cls[code] = _DROP
            elif mapped == 32 or ch.isspace():
                cls[code] = _SPACE
            low[code] = ord(ch.lower())
        elif ch.isspace() or ch == '"':
            cls[code] = _SPACE
    return cls, low


# proxy bytes (``_proxy``) of characters outside ASCII: an opening quotation mark (not a
# closing one), and a character deleted by normalisation (not a closer)
_P_OPEN_QUOTE, _P_DROP = 0x80, 0x81
_TABLES = {True: _byte_tables(True), False: _byte_tables(False)}
_TABLES[True][0][_P_OPEN_QUOTE] = _SPACE
_TABLES[True][0][_P_DROP] = _DROP
_IS_SPACE = np.zeros(256, dtype=bool)
_IS_SPACE[[c for c in range(128) if re.match(r"\s", chr(c))]] = True
_IS_STOP = np.zeros(256, dtype=bool)
_IS_STOP[[ord(c) for c in ".!?"]] = True
_IS_CLOSER = np.zeros(256, dtype=bool)
_IS_CLOSER[[ord(c) for c in "\"')]"]] = True
_NL, _QUOTE = 10, 34
_IS_QUOTE = np.zeros(256, dtype=bool)
_IS_QUOTE[[_QUOTE, _P_OPEN_QUOTE]] = True
_ASCII_CHUNK = 256
"""ASCII texts split at once (~0.8 MB of bytes at 3 KB a text): every temporary of
``_segment_ascii`` (up to 8 bytes a text byte) stays within the allocator's reused heap and the
CPU caches. Measured on the synthetic scale corpus (5,000 texts): 256 a chunk takes a tenth of
the time of all at once, where each fresh array of 100+ MB is paid for in page faults."""


def _segment_ascii(
    texts: Sequence[str] | Sequence[bytes],
    *,
    normalize: bool,
    stop_needed: bool,
    words: pa.Array | None = None,
) -> _Parts:
    """``segment_texts`` of ASCII texts, on their bytes (every array of the batch's size).

    Events (word starts, sentence breaks, quotation marks, line ends) are keyed by
    ``2 * byte position`` (a document's end by ``2 * its end - 1``), so one sort orders them.

    ``texts`` may instead be proxy bytes of other texts (``_proxy``: one byte per character
    with its role in the rules) with their normalised ``words`` given; the words are then
    taken from ``words`` (the caller checks that their count per text matches).
    """
    lens = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    n_docs = len(texts)
    dstart = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(lens, out=dstart[1:])
    if words is None:
        buf = np.frombuffer("".join(texts).encode("ascii"), dtype=np.uint8)  # type: ignore[arg-type]
    else:
        buf = np.frombuffer(b"".join(texts), dtype=np.uint8)  # type: ignore[arg-type]
    cls_t, low_t = _TABLES[normalize]
    cls = cls_t[buf]
    doc_first = np.zeros(len(buf) + 1, dtype=bool)
    doc_first[dstart[:-1]] = True
    doc_first = doc_first[: len(buf)]
    # words: runs of word bytes once dropped bytes (apostrophes) are taken out
    kept = np.flatnonzero(cls != _DROP)
    kc = cls[kept]
    # a document starting inside the kept stream: its first kept byte
    ck = np.zeros(len(buf) + 1, dtype=np.int64)
    np.cumsum(cls != _DROP, out=ck[1:])
    k_first = np.zeros(len(kept) + 1, dtype=bool)
    k_first[ck[dstart[:-1]]] = True
    k_first = k_first[: len(kept)]
    is_w = kc == _WORD
    prev_w = np.concatenate([[False], is_w[:-1]]) & ~k_first
    next_w = np.concatenate([is_w[1:], [False]])
    next_w[: len(kept)] &= ~np.concatenate([k_first[1:], [True]])
    w_start = np.flatnonzero(is_w & ~prev_w)
    w_end = np.flatnonzero(is_w & ~next_w) + 1
    w_len = w_end - w_start
    if words is None:
        data = low_t[buf[kept[is_w]]]
        w_off = np.zeros(len(w_start) + 1, dtype=np.int64)
        np.cumsum(w_len, out=w_off[1:])
        flat = pa.LargeStringArray.from_buffers(
            len(w_start), pa.py_buffer(w_off), pa.py_buffer(data.tobytes())
        )
    else:
        flat = words
    w_pos = kept[w_start]  # byte position of each word's first byte
    w_doc = np.searchsorted(dstart, w_pos, side="right") - 1
    doc_words = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(np.bincount(w_doc, minlength=n_docs), out=doc_words[1:])
    w_key = 2 * w_pos

    def n_words_before(keys: np.ndarray) -> np.ndarray:
        return np.searchsorted(w_key, keys)

    # lines: every "\n", and each document's end
    nl = np.flatnonzero(buf == _NL)
    nl_doc = np.searchsorted(dstart, nl, side="right") - 1
    le_pos = np.concatenate([nl, dstart[1:]])
    le_key = np.concatenate([2 * nl, 2 * dstart[1:] - 1])
    le_doc = np.concatenate([nl_doc, np.arange(n_docs)])
    le_is_end = np.concatenate([np.zeros(len(nl), bool), np.ones(n_docs, bool)])
    order = np.argsort(le_key, kind="stable")
    le_pos, le_key, le_doc, le_is_end = (
        le_pos[order], le_key[order], le_doc[order], le_is_end[order]
    )
    n_lines = np.bincount(le_doc, minlength=n_docs)
    line_off = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(n_lines, out=line_off[1:])
    line_words = np.diff(np.concatenate([[0], n_words_before(le_key)]))
    # a line's words: those before its end and after the previous line's end (or doc start)
    line_lengths = Ragged(line_words.astype(np.int32), line_off)
    # line starts: the byte after the previous line end within the document
    le_start = np.concatenate([[0], le_pos[:-1] + 1])
    first_line = np.zeros(len(le_pos), dtype=bool)
    first_line[line_off[:-1][n_lines > 0]] = True
    le_start[first_line] = dstart[:-1][le_doc[first_line]]
    # does the line end with a stop (``_SENTENCE_END``): its last byte not whitespace
    not_space = np.flatnonzero(~_IS_SPACE[buf])
    at = np.searchsorted(not_space, le_pos) - 1
    last = not_space[np.maximum(at, 0)] if len(not_space) else np.zeros(len(le_pos), np.int64)
    has_last = (at >= 0) & (last >= le_start) if len(not_space) else np.zeros(len(le_pos), bool)
    c1 = buf[np.where(has_last, last, 0)] if len(buf) else np.zeros(len(le_pos), np.uint8)
    before = np.where(has_last & (last - 1 >= le_start), last - 1, -1)
    c2_stop = (before >= 0) & _IS_STOP[buf[np.maximum(before, 0)]] if len(buf) else before >= 0
    line_stop = has_last & (_IS_STOP[c1] | (_IS_CLOSER[c1] & c2_stop))
    # sentence breaks: a whitespace byte (not a line break) after a stop, or after a stop and
    # a closing quote or bracket, within the line
    prev1 = np.zeros(len(buf), dtype=np.uint8)
    prev1[1:] = buf[:-1]
    prev1[doc_first] = 0
    prev2 = np.zeros(len(buf), dtype=np.uint8)
    prev2[2:] = buf[:-2]
    prev2[doc_first] = 0
    second = np.flatnonzero(doc_first) + 1
    prev2[second[second < len(buf)]] = 0
    sp = np.flatnonzero(
        _IS_SPACE[buf] & (buf != _NL) & (_IS_STOP[prev1] | (_IS_CLOSER[prev1] & _IS_STOP[prev2]))
    )
    sp_doc = np.searchsorted(dstart, sp, side="right") - 1
    doc_start_key = 2 * dstart[:-1] - 1
    # sentences: closed by breaks and by line ends with a stop (any line end without
    # ``stop_needed``); a last unfinished sentence is counted when it holds a word
    closes_line = line_stop if stop_needed else np.ones(len(le_key), dtype=bool)
    tail = le_is_end & ~closes_line
    c_key = np.concatenate([2 * sp, le_key[closes_line], le_key[tail]])
    c_doc = np.concatenate([sp_doc, le_doc[closes_line], le_doc[tail]])
    c_opt = np.concatenate([np.zeros(len(sp) + int(closes_line.sum()), bool),
                            np.ones(int(tail.sum()), bool)])
    order = np.argsort(c_key, kind="stable")
    c_key, c_doc, c_opt = c_key[order], c_doc[order], c_opt[order]
    prev_key = np.concatenate([[0], c_key[:-1]])
    c_first = np.ones(len(c_key), dtype=bool)
    c_first[1:] = c_doc[1:] != c_doc[:-1]
    prev_key[c_first] = doc_start_key[c_doc[c_first]]
    s_len = n_words_before(c_key) - n_words_before(prev_key)
    keep = ~c_opt | (s_len > 0)
    s_len, s_doc = s_len[keep], c_doc[keep]
    s_off = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(np.bincount(s_doc, minlength=n_docs), out=s_off[1:])
    sentences = Ragged(s_len.astype(np.int32), s_off)
    # quoted ranges: pieces between quotation marks, sentence breaks and line ends
    q = np.flatnonzero(_IS_QUOTE[buf])
    q_doc = np.searchsorted(dstart, q, side="right") - 1
    e_key = np.concatenate([2 * q, 2 * sp, le_key])
    e_doc = np.concatenate([q_doc, sp_doc, le_doc])
    e_type = np.concatenate(
        [np.zeros(len(q), np.int8), np.ones(len(sp), np.int8), np.full(len(le_key), 2, np.int8)]
    )
    order = np.argsort(e_key, kind="stable")
    e_key, e_doc, e_type = e_key[order], e_doc[order], e_type[order]
    cum_q = np.cumsum(e_type == 0)
    base = np.maximum.accumulate(np.where(e_type == 2, cum_q, 0)) if len(cum_q) else cum_q
    inside_after = ((cum_q - base) % 2 == 1) & (e_type != 2)
    inside = np.concatenate([[False], inside_after[:-1]])
    p_key = np.concatenate([[0], e_key[:-1]])
    e_first = np.ones(len(e_key), dtype=bool)
    e_first[1:] = e_doc[1:] != e_doc[:-1]
    p_key[e_first] = doc_start_key[e_doc[e_first]]
    inside[e_first] = False
    a = n_words_before(p_key)
    b = n_words_before(e_key)
    take = inside & (b > a)
    base_w = doc_words[e_doc[take]]
    ranges = np.stack([a[take] - base_w, b[take] - base_w], axis=1).astype(np.int32)
    q_off = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(np.bincount(e_doc[take], minlength=n_docs), out=q_off[1:])
    return _Parts(flat, doc_words, line_lengths, sentences, Ragged(ranges.reshape(-1, 2), q_off))


def segment_texts(
    texts: Sequence[str], *, normalize: bool = True, stop_needed: bool = True
) -> Segments:
    """Split many texts by the rules of the module docstring, as ``segment_text`` does.

    ASCII texts go through ``_segment_ascii`` (NumPy on their bytes, no Python object per word);
    the others through ``segment_text``. The result equals ``segment_text`` of every text
    (tested on lineage-dev and on generated texts).

    Args:
        texts: The texts of one batch (held at once; the caller batches an archive).
        normalize: As ``ShingleConfig.normalize``.
        stop_needed: As ``LineageConfig.quote_sentence_needs_stop``.

    Returns:
        ``Segments`` in the order of ``texts``.
    """
    is_ascii = np.fromiter((t.isascii() for t in texts), dtype=bool, count=len(texts))
    a_rows = np.flatnonzero(is_ascii)
    o_rows = np.flatnonzero(~is_ascii)
    parts = [
        _segment_ascii([texts[r] for r in a_rows[a : a + _ASCII_CHUNK].tolist()],
                       normalize=normalize, stop_needed=stop_needed)
        for a in range(0, len(a_rows), _ASCII_CHUNK)
    ]
    p_rows = np.zeros(0, dtype=np.int64)
    if len(o_rows) and normalize:
        p_rows, o_rows, p_parts = _segment_proxied(texts, o_rows, stop_needed=stop_needed)
        parts.extend(p_parts)
    if len(o_rows) or not parts:
        parts.append(_segment_python([texts[r] for r in o_rows.tolist()], normalize=normalize,
                                     stop_needed=stop_needed))
    # the words of every part hashed at once: one SHA-1 per distinct word of the batch
    offs = [parts[0].word_offsets]
    for p in parts[1:]:
        offs.append(p.word_offsets[1:] + offs[-1][-1])
    out = Segments(
        _encode_words(pa.concat_arrays([p.flat for p in parts]), np.concatenate(offs)),
        Ragged.concat([p.line_lengths for p in parts]),
        Ragged.concat([p.sentence_lengths for p in parts]),
        Ragged.concat([p.quoted for p in parts]),
    )
    if len(a_rows) == len(texts):
        return out
    back = np.empty(len(texts), dtype=np.int64)
    back[np.concatenate([a_rows, p_rows, o_rows])] = np.arange(len(texts))
    return Segments(
        out.words.take(back),
        out.line_lengths.take(back),
        out.sentence_lengths.take(back),
        out.quoted.take(back),
    )


@lru_cache(maxsize=1 << 16)
def _proxy_char(c: str) -> int:
    """The proxy byte of one character outside ASCII for ``_segment_ascii``; -1 when none.

    Its role in the rules comes from the character as written (quotation mark, closing quote,
    whitespace), its class from what ``normalize_for_shingles`` makes of it alone: deleted,
    a word boundary, or word characters. A character that normalises to word characters and
    a boundary both (``İ`` casefolds to ``i`` and a combining dot) has no proxy.
    """
    if c.isspace():
        return 32
    if c == "\u201d":  # closing quotation mark: a quotation mark and a closer
        return _QUOTE
    if c in "\u201c\u201e\u00ab\u00bb":
        return _P_OPEN_QUOTE
    if c == "\u2019":  # an apostrophe (deleted) and a closer
        return ord("'")
    if c in "\u00ad\u200b\u200c\u200d\ufeff":
        return _P_DROP
    folded = _APOSTROPHES.sub("", c.casefold())
    if not folded:
        return _P_DROP
    boundary = [bool(_NON_WORD.match(ch)) or ch.isspace() for ch in folded]
    if not any(boundary):
        return ord("a")
    if all(boundary):
        return ord("#")
    return -1


def _segment_proxied(
    texts: Sequence[str], rows: np.ndarray, *, stop_needed: bool
) -> tuple[np.ndarray, np.ndarray, list[_Parts]]:
    """``_segment_ascii`` on proxy bytes for the texts outside ASCII that allow it.

    A text qualifies when it is already in NFKC form (so normalising it is per character)
    and each of its characters has a proxy (``_proxy_char``); its words are those of
    ``normalize_for_shingles`` of the whole text, and the number of words per text must equal
    the runs of word proxies (else the text goes back to ``segment_text``).

    Returns:
        ``(done_rows, other_rows, parts)``: rows handled here (in ``parts`` order), the rows
        left for ``segment_text``, and the parts.
    """
    ok = np.fromiter(
        (unicodedata.is_normalized("NFKC", texts[r]) for r in rows.tolist()),
        dtype=bool,
        count=len(rows),
    )
    cand = rows[ok]
    if len(cand) == 0:
        return cand, rows, []
    group = [texts[r] for r in cand.tolist()]
    lens = np.fromiter((len(t) for t in group), dtype=np.int64, count=len(group))
    cps = np.frombuffer("".join(group).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    proxy = np.empty(len(cps), dtype=np.int16)
    low = cps < 128
    proxy[low] = cps[low]
    uniq, inv = np.unique(cps[~low], return_inverse=True)
    table = np.fromiter((_proxy_char(chr(u)) for u in uniq.tolist()), dtype=np.int16,
                        count=len(uniq))
    proxy[~low] = table[inv]
    doc = np.repeat(np.arange(len(group)), lens)
    bad_doc = np.zeros(len(group), dtype=bool)
    bad_doc[doc[proxy < 0]] = True
    keep = np.flatnonzero(~bad_doc)
    starts = np.concatenate([[0], np.cumsum(lens)])
    raw = proxy.astype(np.uint8).tobytes()
    proxies = [raw[starts[k] : starts[k + 1]] for k in keep.tolist()]
    norm = [normalize_for_shingles(group[k]) for k in keep.tolist()]
    lists = pc.split_pattern(pa.array(norm, type=pa.large_string()), " ")
    n_words = pc.list_value_length(lists).to_numpy(zero_copy_only=False).astype(np.int64)
    n_words[np.array([not t for t in norm], dtype=bool)] = 0  # "" splits into [""]
    flat = pc.list_flatten(lists)
    flat = flat.filter(pc.greater(pc.binary_length(flat), 0))
    w_off = np.concatenate([[0], np.cumsum(n_words)])
    parts: list[_Parts] = []
    for a in range(0, len(keep), _ASCII_CHUNK):
        b = min(a + _ASCII_CHUNK, len(keep))
        part = _segment_ascii(
            proxies[a:b], normalize=True, stop_needed=stop_needed,
            words=flat.slice(int(w_off[a]), int(w_off[b] - w_off[a])),
        )
        if not np.array_equal(np.diff(part.word_offsets), n_words[a:b]):
            # the proxies disagree with normalising the whole text: these go one by one
            return np.zeros(0, dtype=np.int64), rows, []
        parts.append(part)
    done = cand[keep]
    return done, np.setdiff1d(rows, done), parts
