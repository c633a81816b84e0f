"""Text normalisation and word shingles for the lineage stage.

A text becomes a set of word k-grams ("shingles"), each encoded as UTF-8 bytes: exactly the
values that ``datasketch.MinHash.update_batch`` is fed, so that our vectorised signatures
(``affidavit.tasks.minhash``) and datasketch's agree bit for bit.
"""

from __future__ import annotations

import re
import unicodedata

from affidavit.schemas.signatures import ShingleConfig

__all__ = ["normalize_for_shingles", "shingle_text", "shingles_from_words", "split_words"]

# Apostrophes (straight, curly, modifier letter, prime) are deleted so that "don't" and
# "don’t" give one word; every other punctuation or symbol character becomes a space.
_APOSTROPHES = re.compile("['\u2018\u2019\u02bc\u2032\u00b4`]")
_NON_WORD = re.compile(r"[^\w\s]|_")
_SPACES = re.compile(r"\s+")


def _ascii_table() -> dict[int, int | None]:
    """Translation table equal to the regex path on ASCII text (see ``normalize_for_shingles``)."""
    table: dict[int, int | None] = {}
    for code in range(128):
        ch = chr(code)
        if _APOSTROPHES.match(ch):
            table[code] = None
        elif _NON_WORD.match(ch) and not ch.isspace():
            table[code] = 32
    return table


_ASCII_TABLE = _ascii_table()


def normalize_for_shingles(text: str) -> str:
    """Normalise a text for shingling: NFKC, casefold, punctuation to spaces, single spaces.

    Soft hyphens and zero-width characters are dropped, apostrophes are deleted (so
    ``don’t`` and ``don't`` both become ``dont``) and any other punctuation or symbol
    becomes a word boundary.

    Args:
        text: Any text; ``None`` is not accepted.

    Returns:
        The normalised text: words of Unicode letters/digits separated by single spaces,
        with no leading or trailing space.

    >>> normalize_for_shingles("The “Fed” RAISED rates—by 0.25%!")
    'the fed raised rates by 0 25'
    >>> normalize_for_shingles("don’t  ﬁnd   it")
    'dont find it'
    """
    if text.isascii():
        # fast path, identical on ASCII: NFKC is the identity and casefold equals lower
        return " ".join(text.translate(_ASCII_TABLE).lower().split())
    return _normalize_unicode(text)


def _normalize_unicode(text: str) -> str:
    """The general path of ``normalize_for_shingles``."""
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("\u00ad", "").replace("\u200b", "").replace("\u200c", "")
    text = text.replace("\u200d", "").replace("\ufeff", "")
    text = text.casefold()
    text = _APOSTROPHES.sub("", text)
    text = _NON_WORD.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def split_words(text: str, *, normalize: bool = True) -> list[str]:
    """Split a text into the words that shingles are made of.

    Args:
        text: Any text.
        normalize: Apply ``normalize_for_shingles`` first (else split on whitespace only).

    Returns:
        The words, in order.
    """
    if normalize:
        text = normalize_for_shingles(text)
    return text.split()


def shingle_text(text: str, config: ShingleConfig = ShingleConfig()) -> list[bytes]:
    """Return the distinct word k-gram shingles of a text, in order of first appearance.

    A text with at least one word but fewer than ``config.k`` words gives a single shingle
    made of all its words (so a short text still has a signature and can match its exact
    copies); an empty text, or one with no word characters, gives no shingle.

    Args:
        text: Any text.
        config: Shingle size ``k`` (words) and whether to normalise.

    Returns:
        Distinct shingles as UTF-8 bytes (words joined by one space): what
        ``datasketch.MinHash.update_batch`` is fed.

    Raises:
        ValueError: When ``config.k`` is less than 1.

    >>> shingle_text("A b c d", ShingleConfig(k=3))
    [b'a b c', b'b c d']
    >>> shingle_text("Hi!", ShingleConfig(k=3))
    [b'hi']
    """
    if config.k < 1:
        raise ValueError(f"shingle size k must be >= 1, got {config.k}")
    return shingles_from_words(split_words(text, normalize=config.normalize), config.k)


def shingles_from_words(words: list[str], k: int) -> list[bytes]:
    """Return the distinct word k-grams of a list of words (see ``shingle_text``).

    Args:
        words: Words, already normalised.
        k: Words per shingle, >= 1.

    Returns:
        Distinct shingles as UTF-8 bytes, in order of first appearance.
    """
    if not words:
        return []
    if len(words) < k:
        return [" ".join(words).encode("utf-8", "surrogatepass")]
    grams = words if k == 1 else map(" ".join, zip(*(words[i:] for i in range(k)), strict=False))
    return [g.encode("utf-8", "surrogatepass") for g in dict.fromkeys(grams)]
