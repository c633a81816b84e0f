"""Claims stage: extract check-worthy claims, decompose questions, gate, classify volatility.

Pure functions (no IO except :func:`read_claims_file`, which only reads the file it is given;
no clock: ``now`` is an argument); the flows wrap them as Prefect tasks.

The rules are lexical and deterministic. They follow DESIGN.md, *Claims*:

* split text into sentences with character spans, and keep predicates whole ("Compare Rust and
  Go for backend services" stays one claim);
* score check-worthiness from figures, named entities and attribution verbs, lowered by opinion
  and vague words (after the feature families of ClaimBuster, Hassan et al., KDD 2017, without
  its trained model);
* a claim is researchable when some result could prove it false: vague evaluative words
  ("best", "good", "important", ...) make it not researchable unless it has a falsifiable form
  (a figure, a measurable comparison, an attribution or a named ranking);
* volatility class by pattern: fast (24 h), slow (180 days), immutable (5 years).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from affidavit.schemas.claims import make_claim_id, normalize_claim_text
from affidavit.schemas.enums import Volatility
from affidavit.tasks.claims_file import (  # the claims-file reader, re-exported
    read_claims_file,
)
from affidavit.tasks.judge_lexical import logical_lines, tokenize

__all__ = [
    "ClaimCandidate",
    "FAST",
    "IMMUTABLE",
    "SLOW",
    "build_claim_rows",
    "classify_volatility",
    "decompose_claim",
    "expires_at",
    "extract_claims",
    "gate_researchable",
    "is_instruction",
    "read_claims_file",
    "score_check_worthiness",
    "split_answer_claims",
    "split_clauses",
    "split_sentences",
    "unreadable_scripts",
]

FAST = timedelta(hours=24)
"""Lifetime of a fast claim (prices, polls, counts "as of", office holders); DESIGN.md."""
SLOW = timedelta(days=180)
"""Lifetime of a slow claim (everything not fast nor immutable); DESIGN.md (~180 days)."""
IMMUTABLE = timedelta(days=5 * 365)
"""Lifetime of an immutable claim (births, foundings, constants, dated publications); DESIGN.md."""

_LIFETIMES: dict[Volatility, timedelta] = {
    Volatility.FAST: FAST,
    Volatility.SLOW: SLOW,
    Volatility.IMMUTABLE: IMMUTABLE,
}

DEFAULT_MIN_WORTHINESS = 0.35
"""Default floor of :func:`extract_claims`. A plain factual sentence with a verb and one entity or
figure scores ~0.45-0.6; boilerplate, opinion and verbless fragments score below 0.3. Chosen by
reading the scores of the unit-test sentences, not tuned on a benchmark."""


@dataclass(frozen=True, slots=True)
class ClaimCandidate:
    """A claim found in a text.

    Attributes:
        text: The claim, as it appears in the source (whitespace collapsed).
        span_start: Start offset of the sentence in the source text (characters), or ``None``
            when the claim did not come from a text (a claims file, a question).
        span_end: End offset, exclusive, or ``None``.
        check_worthiness: 0..1, see :func:`score_check_worthiness`.
    """

    text: str
    span_start: int | None
    span_end: int | None
    check_worthiness: float


# --------------------------------------------------------------------------------------------
# Word lists
# --------------------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*|\d[\d,.]*")
_WS = re.compile(r"\s+")

_ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof sr jr st mt ft gen gov sen rep rev col lt sgt capt cmdr adm pres
    inc ltd co corp llc plc bros dept univ assn est approx vs etc al fig no nos vol pp ed eds
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun
    e.g i.e u.s u.k u.n a.m p.m d.c cf ca""".split()
)

STOP_WORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into onto over under
    about above below between through during before after since until than as so such that this
    these those there here it its it's they them their theirs he him his she her hers we us our
    ours you your yours i me my mine who whom whose which what when where why how is are was were
    be been being am do does did doing have has had having will would shall should can could may
    might must not no nor also just only very too more most less least much many some any each
    every all both either neither other another own same few again further once up down out off
    own s t don didn doesn isn wasn weren aren hasn haven hadn won wouldn shouldn couldn mustn
    let lets via per vs versus whether while because though although yet ever even still""".split()
)

_ATTRIBUTION = re.compile(
    r"\b(said|says|say|told|tells|according to|reported|reports|announced|announces|stated|"
    r"states|claimed|claims|confirmed|confirms|estimated|estimates|found|finds|showed|shows|"
    r"revealed|reveals|wrote|writes|testified|declared|declares|noted|notes|added|argued|"
    r"alleged|alleges|published|warned|warns|predicted|forecast|forecasts|disclosed|filed)\b",
    re.IGNORECASE,
)

_FIGURE = re.compile(
    r"(\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|hundred|thousand|million|billion|trillion|mln|bln|dozen|half|percent|"
    r"per cent|twice|double|triple|quarter)\b)",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)s?\b")
_DATE_WORD = re.compile(
    r"\b(january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?\s+\d{1,2}\b|\b\d{4}-\d{2}-\d{2}\b",
    re.IGNORECASE,
)

_OPINION = re.compile(
    r"\b(i think|i believe|i feel|we think|we believe|in my opinion|in our opinion|imho|"
    r"i guess|i hope|we hope|personally|i love|i hate|i like|i prefer|i'm sure|i am sure|"
    r"it seems to me|if you ask me)\b",
    re.IGNORECASE,
)
_NORMATIVE = re.compile(r"\b(should|ought to|must|need to|needs to|has to|have to)\b", re.I)
_HEDGE = re.compile(
    r"\b(might|may|could|perhaps|possibly|maybe|probably|likely|unlikely|arguably|"
    r"supposedly|allegedly|reportedly)\b",
    re.IGNORECASE,
)

VAGUE_WORDS = frozenset(
    """best better good great greatest bad worse worst important significant significantly
    amazing awesome terrible horrible excellent outstanding superior inferior nice beautiful
    ugly interesting boring impressive incredible remarkable huge massive tiny enormous
    overrated underrated brilliant stupid smart dumb wonderful awful fantastic perfect ideal
    crucial essential vital useful useless valuable meaningful fair unfair evil genius
    revolutionary legendary iconic""".split()
)
"""Evaluative words with no measurable criterion of their own (DESIGN.md: "vague words"); a
claim using one needs a falsifiable form (a figure, a named ranking or study, an attribution, a
measurable comparison), see :func:`gate_researchable`. Words that name a property studies do
measure ("safe", "effective", "popular") are deliberately not in the list."""

_COMPARATIVE_MEASURABLE = re.compile(
    r"\b(faster|slower|quicker|cheaper|costlier|pricier|larger|smaller|bigger|taller|shorter|"
    r"longer|older|younger|heavier|lighter|higher|lower|richer|poorer|hotter|colder|warmer|"
    r"cooler|wider|narrower|deeper|fewer|more|less|greater|lesser|"
    r"fastest|slowest|cheapest|largest|smallest|biggest|tallest|shortest|longest|oldest|youngest|"
    r"heaviest|lightest|highest|lowest|richest|poorest|hottest|coldest|deepest|first|last|"
    r"most|least|fewest|increased|decreased|rose|fell|grew|doubled|halved|tripled)\b",
    re.IGNORECASE,
)
# Words after which a vague word measures something ("best-selling", "best known" is not).
_RANKING = re.compile(
    r"\b(best[- ]selling|highest[- ]grossing|most[- ]visited|most[- ]populous|"
    r"statistically significant|significant(ly)? (at|with) p|p\s*[<=]\s*0?\.\d+|"
    r"ranked|rated|voted|named|awarded|won|top[- ]ranked|"
    r"according to|index|ranking|rankings|survey|surveys|poll|polls|benchmark|benchmarks|study|"
    r"studies|trial|trials|in (?:\w+ )?history|on record|ever recorded|record (?:high|low))\b",
    re.IGNORECASE,
)

_CAPITALISED = re.compile(
    r"\b[A-Z][a-zA-Z'’\-]+(?:\s+(?:of|the|de|von|van|and|&)?\s*[A-Z][a-zA-Z'’\-]+)*"
)

_AUX = frozenset(
    """is are was were be been being am has have had do does did will would shall should can
    could may might must isn't aren't wasn't weren't hasn't haven't hadn't won't can't don't
    doesn't didn't""".split()
)
_COMMON_VERBS = frozenset(
    """said says told say rose fell grew won lost made took gave became become becomes began
    begun begins came comes went goes got gets held holds kept keeps left leaves led leads met
    meets paid pays put puts ran runs saw sees sold sells sent sends set sets shows showed shown
    spent spends stood stands struck thought thinks wrote writes known knew knows found finds
    built builds bought buys brought brings cut cuts hit hits hurt let lets quit read reads
    spread spreads rise rises fall falls grow grows win wins lose loses make makes take takes give
    gives leave leaves lead leads need needs want wants use uses run reach reaches remain remains
    include includes contain contains cause causes kill kills claim claims plan plans expect
    expects seek seeks""".split()
)

_BOILERPLATE = re.compile(
    # page furniture that opens a line ("Click here to ...", "Most read: ...")
    r"^\W*(?:(?:click here|read more|read next|subscribe|sign up|sign in|log in|share this|"
    r"follow us|advertisement|sponsored|related articles|related stories|see also|"
    r"all rights reserved|copyright|accept cookies|we use cookies|skip to (?:main )?content|"
    r"back to top|download the app|terms of (?:use|service)|privacy policy|contact us|"
    r"newsletter|most read|most popular|trending now|recommended for you|you may also like|"
    r"more from|editor'?s picks|getty images|(?:last )?(?:updated|published|posted)(?: at| on)?"
    r" \d+)\b|(?:related|watch|listen|photo|image|credit|"
    r"video|file photo)\s*:|©)"
    # or a navigation word standing alone
    r"|^\W*(?:menu|home|previous|next|more|search|share|print|email|comments?)\W*$",
    re.IGNORECASE,
)


_EDITORIAL_NOTE = re.compile(
    r"^\W*(?:editor'?s note|note:|update(?:d)?\b[^:.]{0,24}:|"
    r"this (?:article|story|post|page|piece) (?:was|has been) (?:updated|corrected))",
    re.IGNORECASE,
)
"""Update and editor's notes about the page itself ("Update 11/28/17: Added a note ...")."""

_ENUMERATION = re.compile(r"^\W{0,2}(?:[1-9]|[a-h])\)\s.*\s\(?(?:[2-9]|[b-h])\)(?:\s|$)")
"""A line that opens with numbered options or items ("(1) Should unlock the iPhone (2) Should
not unlock the iPhone (3)"): a survey's answer list, not a statement of fact. A statement that
lists its parts ("The plan has two parts: (a) ... and (b) ...") is still one."""

# Not-checkable cues, applied to the lowercased sentence (a claim is researched on its own,
# so it must name what it is about and assert something about the world):
_FIRST_PERSON_LC = re.compile(r"\b(?:i|i'm|i’m|i've|i’ve|i'd|i’d|i'll|i’ll|me|my|mine|myself)\b")
"""The writer or a quoted speaker speaking of themselves: anecdote, feeling or intent."""
_FIRST_PLURAL = re.compile(r"\b(?:[Ww]e(?:'re|’re|'ve|’ve|'ll|’ll)?|[Oo]urs?|us)\b")
"""A publication's or company's own voice ("we sat down with", "our series explains")."""
_SECOND_PERSON_LC = re.compile(r"\b(?:you|your|yours|you're|you’re|you'll|you’ll|you've)\b")
"""Addressing the reader: advice, instructions, offers and teasers."""
_PRONOUN_SUBJECT_LC = re.compile(
    r"^[\"'“‘(]*(?:[^,\"“]{1,40},\s+)?"
    r"(?:(?:he|she|they|it|it's|it’s|his|her|their|its)\b|"
    r"(?:this|that|these|those)\s+(?:is|are|was|were|has|have|had|will|would|can|could|"
    r"may|might|\w+ed|\w+[^s\W]s)\b)"
)
"""A sentence whose subject is a pronoun, at its start or after a short opening phrase, cannot
be checked alone ("He has played the game for two years.", "After the race, he ...",
"This paved the way ...": who, what?). "This year" or "That decision" are not pronouns, and
"There were ..." has no referent to miss."""
_UNATTRIBUTED_QUOTE = re.compile(r"^[\"“]")
"""A sentence that opens inside a quotation; without an attribution it is part of a quote."""
_PROMOTION_LC = re.compile(
    r"\b(?:coupon|promo code|discount code|with code|use code|at checkout|\d+% off|"
    r"percent off|black friday|cyber monday|(?:best|top|great|hot|gadget) deals|"
    r"(?:app|software|course|developer) bundle|giveaway|sponsored)\b"
)
"""Shopping offers and deal posts (not "deal", "sale" or "price" alone: a trade deal or a
price rise is news)."""
_TEASER_LC = re.compile(
    r"^\W*(?:here (?:are|is|'s|’s)|read (?:about|on|how)|learn (?:how|more|about|why)|"
    r"find out|check out|see (?:how|why)|discover|meet the|get (?:the|your|started)|"
    r"let's|let’s|let us|we sat down|tl;dr)\b|"
    r"\b(?:shows? you how|explains? how|tells? you|walks? you through)\b"
)
"""Teasers that announce content instead of stating a fact."""
_BIO_LC = re.compile(
    r"\bis an? (?:[a-z\-]+ ){0,3}(?:reporter|writer|editor|correspondent|columnist|"
    r"contributor|journalist|photographer|producer)\b|\bbefore joining\b"
)
"""An author's biography at the foot of an article."""

_IMPRESSION_LC = re.compile(
    r"\b(?:seems?|seemed|appears? to|appeared to|feels? like|looks? like)\b"
)
"""An impression rather than a statement ("it seemed like Apple was finally jumping in")."""
_CODE = re.compile(
    r"^\s*(?://|/\*|\*\s|#include|(?:let|var|const|func|def|return|import|class|if|for)\s+"
    r"[\w.(\"']+.*[=(:{])|[{};]\s*$|\w\s*=\s*[\w\"'(\[]+[.(]|^[A-Za-z_]\w*(?:\.\w+)+\("
)
"""Source code: a comment marker, a keyword-led statement, a line ending in a brace or
semicolon, an assignment of a call or member ("let x = Foo.bar(...)"), or a method call
("image.setImage(...)")."""

NOT_CHECKABLE_CAP = 0.3
"""Score ceiling of a sentence that cannot be checked on its own (below
:data:`DEFAULT_MIN_WORTHINESS`, above the zero of boilerplate so that ``min_worthiness=0``
still lists it): see :func:`_not_checkable_alone`."""


def _not_checkable_alone(sentence: str, low: str) -> bool:
    """Whether a sentence cannot be checked on its own, whatever figures or names it holds.

    A claim is researched without its article, so it must name what it is about and assert
    something about the world. Not so: a pronoun subject ("He has played for two years."), the
    writer or a quoted speaker speaking of themselves (anecdote, feeling, intent), the reader
    addressed (advice, offers), shopping promotions, teasers that announce content, an
    author's biography, a menu or title bar, source code, a sentence that only
    introduces what follows (ends with a colon) or exclaims, and a quotation without an
    attribution (the middle of a quote).
    """
    return bool(
        _FIRST_PERSON_LC.search(low)
        or _SECOND_PERSON_LC.search(low)
        or _PRONOUN_SUBJECT_LC.search(low)
        or _PROMOTION_LC.search(low)
        or _TEASER_LC.search(low)
        or _BIO_LC.search(low)
        or "|" in sentence
        or _CODE.search(sentence)
        or sentence.endswith((":", "!"))  # introduces what follows; an exclamation
        or (_UNATTRIBUTED_QUOTE.search(sentence) is not None
            and not _ATTRIBUTION_LC.search(low))
    )


_LINE_MARKER = re.compile(r"[ \t]*(?:#{1,6}|[-*•>·]|\d{1,2}[.)])[ \t]+")
"""Markdown heading, bullet, block-quote or list-number marker at the start of a line."""

_LIST_ITEM = re.compile(r"[ \t]*(?:[-*•·]|\(?(?:[1-9]\d?|[a-hA-H])[.)])[ \t]+")
"""A list item's marker at the start of a line: a bullet, a number or a letter ("1.", "2)",
"(3)", "a)", "B.")."""
_QUESTION_END = re.compile(r"\?[)\]]*\s*$")
"""A line that ends with a question of its own (closing brackets after the mark; not quotes:
a paragraph ending in a quoted question is not a poll's)."""
_FIRST_ITEM = re.compile(r"[ \t]*(?:[-*•·]|\(?(?:1|a|A)[.)])[ \t]+")
"""The marker of a list's first item: a bullet, 1, a or A."""
_IMPERATIVE_VERBS = frozenset(
    """abolish accept add allow approve ban build buy cancel change close create cut delay
    demolish do end expand extend fix fund give hire hold improve increase introduce invest
    keep leave let limit lower make move oppose pay plan protect put raise reduce reject
    remove repair replace require restore restrict scrap sell spend start stop support take
    tax use vote wait widen""".split()
)
"""Verbs that open an option or an instruction in their base form ("Build the bridge by 2027",
"Do nothing until 2030"): the policy and planning verbs of poll options and to-do lists,
written by hand. A word of the list opens a statement only as a noun, and a statement then
has a verb of its own further on ("Increase in sales was 12%."), which keeps it a claim."""
_OPTION_DETERMINERS = frozenset("""a an the this that these those its their our his her no all
    more less nothing everything something new""".split())
"""Words that follow a verb of an imperative directly ("Keep the plan", "Do nothing")."""


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _later_finite_verb(words: list[str]) -> bool:
    """Whether a word after the first is a finite verb.

    A lowercase auxiliary, common verb or -ed form (a capitalised one is a name there: "in
    May", "Will Smith").
    """
    return any(w[0].islower() and (w in _AUX or w in _COMMON_VERBS
                                   or (len(w) > 4 and w.endswith("ed")))
               for w in words[1:])


def _is_fragment_item(item: str) -> bool:
    """Whether a list item is an option or an instruction with no subject, not a statement.

    An infinitive ("To repair the old bridge"), an imperative (a verb of
    :data:`_IMPERATIVE_VERBS`, or a word followed by an article or "nothing": "Build the
    bridge by 2027") with no finite verb after it, or an auxiliary with its subject left out
    ("Do nothing until 2030", "Should unlock the iPhone", "Was founded in 1990"): none names
    what it is about, so none can be checked alone. A statement ("Revenue rose 12% to 40
    million euros in 2024.") has its subject first and a verb after it.
    """
    words = _words(item)
    if len(words) < 2:
        return False
    first, second = words[0].lower(), words[1].lower()
    if first in _AUX:  # "May sales rose 5%", "Will Smith's film has topped ...": a subject
        return not any(w[0].islower() and (w in _AUX or w in _COMMON_VERBS) for w in words[1:])
    if first == "to":
        return not _later_finite_verb(words[1:])
    if first in _IMPERATIVE_VERBS:
        return not _later_finite_verb(words)
    # another word before an article: a verb unless a finite verb follows, an -s form too
    # ("Currently the firm employs 400 people"; "the bridges" is a noun after its article)
    return (first not in STOP_WORDS and first.isalpha() and second in _OPTION_DETERMINERS
            and not _later_finite_verb(words)
            and not any(_verb_form(w) and words[i].lower() not in _DETERMINERS
                        for i, w in enumerate(words[2:], 1)))


def _option_lines(text: str) -> list[tuple[int, int]]:
    r"""Spans of the list items of a text that are options or instructions, not statements.

    Each list item (:data:`_LIST_ITEM`) that is a fragment (:func:`_is_fragment_item`), and
    each item of a list that answers a question (the line before the list ends with "?" and
    the list starts at its first item: a poll's or a survey's options) unless it is a whole
    sentence of its own (it ends with a period). The lines right after such a question that
    are fragments are its options too (an HTML list arrives without its markers). A numbered
    list of statements keeps its claims.

    >>> t = "What should the council do?\n1. Build the bridge by 2027\n2. A new ferry line\n"
    >>> [t[a:b] for a, b in _option_lines(t)]
    ['1. Build the bridge by 2027', '2. A new ferry line']
    >>> _option_lines("Results:\n1. Revenue rose 12% to 40 million euros in 2024.")
    []
    """
    out: list[tuple[int, int]] = []
    after_question = first_item = False
    for start, end in logical_lines(text):
        marker = _LIST_ITEM.match(text, start, end)
        if marker is None:
            if after_question and _is_fragment_item(text[start:end]):
                out.append((start, end))  # an option whose list marker was lost (HTML <li>)
                continue
            after_question = bool(_QUESTION_END.search(text, start, end))
            first_item = True
            continue
        if first_item and not _FIRST_ITEM.match(text, start, end):
            after_question = False  # a list that goes on from before, not the question's
        first_item = False
        item = text[marker.end():end].strip()
        sentence = item.rstrip("\"'”’)]").endswith(".")
        if _is_fragment_item(item) or (after_question and not sentence):
            out.append((start, end))
    return out


def _has_verb(sentence: str) -> bool:
    """Whether a sentence has a finite verb, by word lists and suffixes (no POS tagger)."""
    words = _words(sentence)
    for i, w in enumerate(words):
        lw = w.lower()
        if lw in _AUX or lw in _COMMON_VERBS:
            return True
        # A lowercase -ed / -es word after the first is most often a verb ("prices soared").
        if i > 0 and w[0].islower() and len(lw) > 4 and (lw.endswith("ed") or lw.endswith("es")):
            return True
    return False


def _is_headline(sentence: str) -> bool:
    """Title-case text without terminal punctuation: a headline, menu item or caption."""
    s = sentence.strip()
    if s.endswith((".", "!", "?", '"', "”", "'")):
        return False
    words = [w for w in _words(s) if w[0].isalpha()]
    if len(words) < 2:
        return True
    content = [w for w in words if w.lower() not in STOP_WORDS]
    if not content:
        return True
    caps = sum(1 for w in content if w[0].isupper())
    return caps / len(content) >= 0.7 or s.isupper()


# --------------------------------------------------------------------------------------------
# Sentence splitting
# --------------------------------------------------------------------------------------------

_SENT_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s+|$)|(?<=[a-z0-9%)])\.(?=[A-Z][a-z])")
"""A sentence end: terminal punctuation before whitespace, or a period glued to the next
sentence's capitalised first word ("last year in April.Previously, Modi ..."), as feed
descriptions arrive when their HTML paragraphs are joined without a space."""
_CAMEL_START = re.compile(r"[a-z]{1,2}[A-Z]")
"""A sentence may open with a lowercase brand written in camel case ("iOS 11.2 adds ...",
"eBay said ...")."""


def split_sentences(text: str) -> list[tuple[int, int]]:
    r"""Split text into sentence spans.

    Line breaks are hard boundaries (extracted articles put one paragraph per line), except a
    single line break inside a hard-wrapped sentence (``logical_lines``). Inside a line, a
    sentence ends at ``.``, ``!`` or ``?`` (with closing quotes or brackets) followed by
    whitespace and an uppercase letter, digit or opening quote, unless the period closes a known
    abbreviation ("Dr.", "U.S.", "Inc.") or a single initial ("J. Smith").

    Args:
        text: Any text.

    Returns:
        ``(start, end)`` character offsets into ``text`` (end exclusive) of each non-empty
        sentence, stripped of surrounding whitespace, in order.

    >>> t = "Dr. Smith said so. Prices rose 5% in the U.S. last year.\nNext line"
    >>> [t[a:b] for a, b in split_sentences(t)]
    ['Dr. Smith said so.', 'Prices rose 5% in the U.S. last year.', 'Next line']
    >>> t = "Exports rose 12 percent in March, the\nport said. Imports fell."
    >>> [t[a:b] for a, b in split_sentences(t)]
    ['Exports rose 12 percent in March, the\nport said.', 'Imports fell.']
    """
    spans: list[tuple[int, int]] = []
    for ls, le in logical_lines(text):
        start = ls
        for m in _SENT_END.finditer(text, ls, le):
            end = m.end()
            rest = text[end:le].lstrip()
            if rest and not (rest[0].isupper() or rest[0].isdigit() or rest[0] in "\"'“‘(["
                             or _CAMEL_START.match(rest)):
                continue
            if m.group(0)[0] == ".":
                before = text[start : m.start()].split()
                last = before[-1].lower().rstrip(".") if before else ""
                last = last.lstrip("(\"'“‘")
                if last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
                    continue
                if re.fullmatch(r"(?:[a-z]\.)+[a-z]", last):  # "u.s", "e.g"
                    continue
            _append_span(text, start, end, spans)
            start = end
        _append_span(text, start, le, spans)
    return spans


def _append_span(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    seg = text[start:end]
    stripped = seg.strip()
    if not stripped:
        return
    lead = len(seg) - len(seg.lstrip())
    s = start + lead
    spans.append((s, s + len(stripped)))


# --------------------------------------------------------------------------------------------
# Check-worthiness
# --------------------------------------------------------------------------------------------


def _lowercase_twin(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """The same all-lowercase pattern without IGNORECASE, to run on lowercased text."""
    return re.compile(pattern.pattern)


_FIGURE_LC = _lowercase_twin(_FIGURE)
_DATE_WORD_LC = _lowercase_twin(_DATE_WORD)
_ATTRIBUTION_LC = _lowercase_twin(_ATTRIBUTION)
_COMPARATIVE_MEASURABLE_LC = _lowercase_twin(_COMPARATIVE_MEASURABLE)
_OPINION_LC = _lowercase_twin(_OPINION)
_HEDGE_LC = _lowercase_twin(_HEDGE)
_NORMATIVE_LC = _lowercase_twin(_NORMATIVE)


def score_check_worthiness(sentence: str) -> float:
    """Score how worth checking a sentence is, 0..1.

    A lexical sum in the spirit of ClaimBuster's features (Hassan et al., KDD 2017): figures,
    dates, named entities (capitalised words after the first, acronyms) and attribution verbs
    raise it; opinion markers, hedges, vague evaluative words and normative verbs lower it;
    questions, boilerplate, update notes, verbless fragments and headlines score near zero. A
    sentence with no figure, date, attribution or named entity, or one that cannot be checked
    without its article (:func:`_not_checkable_alone`), is capped at
    :data:`NOT_CHECKABLE_CAP`, under the extraction floor. Weights were set by hand so that the
    ordering of the unit-test sentences is right; the caps were measured against hand labels of
    real feeds (tests/fixtures/claims, tests/benchmarks/bench_extraction.py); nothing is
    trained.

    Args:
        sentence: One sentence.

    Returns:
        A float in [0, 1], rounded to 3 decimals.

    >>> score_check_worthiness("Click here to read more.")
    0.0
    >>> s = "Unemployment fell to 3.9% in April, the Labor Department said."
    >>> score_check_worthiness(s) > 0.7
    True
    """
    s = _WS.sub(" ", sentence).strip()
    if not s:
        return 0.0
    words = _words(s)
    n = len(words)
    if _BOILERPLATE.search(s) or _EDITORIAL_NOTE.search(s) or _ENUMERATION.search(s) or n < 3:
        return 0.0
    if s.endswith("?"):
        return 0.05
    if not _has_verb(s):
        return 0.05
    if _is_headline(s) and n < 14:
        return 0.1
    low = s.lower()  # the lowercase twins of the patterns are ~5x faster than re.IGNORECASE
    score = 0.25
    has_figure = _FIGURE_LC.search(low) is not None
    has_date = _YEAR.search(s) is not None or _DATE_WORD_LC.search(low) is not None
    has_attribution = _ATTRIBUTION_LC.search(low) is not None
    if has_figure:
        score += 0.2
    if has_date:
        score += 0.1
    # Named entities: capitalised words not at the very start, and acronyms.
    entities = {
        m.group(0) for m in _CAPITALISED.finditer(s) if m.start() > 0 or len(m.group(0).split()) > 1
    }
    entities |= {w for w in words if len(w) > 1 and w.isupper() and w.isalpha()}
    score += min(0.2, 0.1 * len(entities))
    if has_attribution:
        score += 0.15
    if _COMPARATIVE_MEASURABLE_LC.search(low):
        score += 0.05
    if _OPINION_LC.search(low):
        score -= 0.35
    if _HEDGE_LC.search(low):
        score -= 0.1
    if _NORMATIVE_LC.search(low):
        score -= 0.1
    vague = sum(1 for w in words if w.lower() in VAGUE_WORDS)
    score -= min(0.2, 0.1 * vague)
    if _FIRST_PLURAL.search(s):  # case kept: "US" is a country
        score -= 0.1
    if _IMPRESSION_LC.search(low):
        score -= 0.15
    if _not_checkable_alone(s, low) or not (has_figure or has_date or has_attribution
                                            or entities):
        # nothing to check it against (no figure, date, attribution or named entity), or it
        # cannot be checked without its article
        score = min(score, NOT_CHECKABLE_CAP)
    if n < 5:
        score -= 0.1
    elif n > 60:
        score -= 0.1
    return round(min(1.0, max(0.0, score)), 3)


def extract_claims(
    text: str, *, min_worthiness: float = DEFAULT_MIN_WORTHINESS, max_claims: int | None = None
) -> list[ClaimCandidate]:
    """Extract check-worthy claims from a text, with their spans.

    Each sentence (see :func:`split_sentences`) is scored with :func:`score_check_worthiness`;
    those at or above ``min_worthiness`` are kept. Sentences are never cut below the sentence
    level, so predicates stay whole. Questions, verbless headlines and boilerplate ("Click
    here", "Read more") score under any useful floor.

    Args:
        text: Article or feed text.
        min_worthiness: Floor on the score, 0..1.
        max_claims: Keep only the this many highest-scoring claims (ties in text order); the
            result is still in text order. ``None`` keeps all.

    Returns:
        Candidates in text order; ``text[c.span_start:c.span_end]`` is the sentence as written
        (``c.text`` is the same with whitespace collapsed).

    Raises:
        ValueError: When ``min_worthiness`` is outside [0, 1] or ``max_claims`` is negative.
    """
    if not 0.0 <= min_worthiness <= 1.0:
        raise ValueError(f"min_worthiness must be in [0, 1], got {min_worthiness}")
    if max_claims is not None and max_claims < 0:
        raise ValueError(f"max_claims must be >= 0, got {max_claims}")
    found: list[ClaimCandidate] = []
    seen: set[str] = set()
    options = _option_lines(text or "")
    option_starts = [a for a, _ in options]
    for start, end in split_sentences(text or ""):
        k = bisect.bisect_right(option_starts, start) - 1
        if k >= 0 and start < options[k][1]:  # an option or an instruction of a list
            continue
        marker = _LINE_MARKER.match(text, start, end)
        if marker:  # "# Heading", "- item", "> quote", "3. item": the claim starts after it
            start = marker.end()
        sentence = _WS.sub(" ", text[start:end]).strip()
        if not sentence:
            continue
        score = score_check_worthiness(sentence)
        if score < min_worthiness or score <= 0.0:
            continue
        key = sentence.casefold()
        if key in seen:  # a sentence repeated in one text (page furniture) counts once
            continue
        seen.add(key)
        found.append(ClaimCandidate(sentence, start, end, score))
    if max_claims is not None and len(found) > max_claims:
        order = sorted(range(len(found)), key=lambda i: (-found[i].check_worthiness, i))
        keep = set(order[:max_claims])
        found = [c for i, c in enumerate(found) if i in keep]
    return found


# --------------------------------------------------------------------------------------------
# Decomposition
# --------------------------------------------------------------------------------------------

_AUX_Q = r"(?:is|are|was|were|has|have|had|does|do|did|can|could|will|would|should)"
_COMPARATIVE_WORD = re.compile(
    r"^(?:more|less|better|worse|best|worst|most|least|fewer|[a-z]+er|[a-z]+est)\b", re.I
)
_ALT_SPLIT = re.compile(r"\s*,\s*(?:or\s+)?|\s+or\s+", re.IGNORECASE)


def _alternatives(span: str) -> list[str]:
    """Split "A, B or C" / "A or B" / "A vs B" into its items (empty list when none)."""
    if re.search(r"\bor\b", span, re.I):
        items = [p.strip(" .,:;?!\"'") for p in _ALT_SPLIT.split(span.strip())]
    elif re.search(r"\b(vs\.?|versus)\s", span, re.I):
        items = [
            p.strip(" .,:;?!\"'") for p in re.split(r"\s+(?:vs\.?|versus)\s+", span, flags=re.I)
        ]
    else:
        return []
    items = [p for p in items if p]
    if len(items) < 2 or any(len(p.split()) > 6 for p in items):
        return []
    return items


def _lemma(verb: str) -> str:
    """Third-person verb to its base form ("uses" → "use", "has" → "have"), naive rules."""
    v = verb.lower()
    irregular = {"has": "have", "does": "do", "is": "be", "goes": "go"}
    if v in irregular:
        return irregular[v]
    if v.endswith("ies") and len(v) > 4:
        return v[:-3] + "y"
    if re.search(r"(ch|sh|ss|x|z|o)es$", v):
        return v[:-2]
    if v.endswith("s") and not v.endswith("ss"):
        return v[:-1]
    return v


_WH = r"^(?:which|what|who)"
_NOUN = r"(?:\s+(?:one|of (?:them|these|those|the two)|[a-z]+))"


def _which_frame(frame: str, alternative: str) -> str | None:
    """Turn "Which [noun] is faster for X" and one alternative into "Is <alt> faster for X?".

    Patterns are tried without the optional noun first, so that "Which uses less memory" is
    read as a verb, not as the noun "uses".
    """
    f = frame.strip(" ?,:;")
    aux_re = r"\s+(is|are|was|were|can|could|will|would|should|does|do|did|has|had|have)\s+(.+)$"
    for noun in ("", _NOUN):
        m = re.match(_WH + noun + aux_re, f, re.IGNORECASE)
        if m:
            aux, rest = m.group(1).lower(), m.group(2).strip()
            if aux in ("has", "have"):
                return f"Does {alternative} have {rest}?"
            if aux == "had":
                return f"Did {alternative} have {rest}?"
            aux = {"are": "is", "were": "was", "do": "does"}.get(aux, aux)
            return f"{aux.capitalize()} {alternative} {rest}?"
    for noun in ("", _NOUN):
        m = re.match(_WH + noun + r"\s+([a-z]+[^s\W]s)\s+(.+)$", f, re.IGNORECASE)
        if m and m.group(1).islower():  # "Which uses less memory" → "Does Go use less memory?"
            return f"Does {alternative} {_lemma(m.group(1))} {m.group(2).strip()}?"
        m = re.match(_WH + noun + r"\s+([a-z]+ed)\s+(.+)$", f, re.IGNORECASE)
        if (
            m and m.group(1).islower()
        ):  # "Which reached Mars first" → "Is it true that X reached ...?"
            return f"Is it true that {alternative} {m.group(1)} {m.group(2).strip()}?"
    return None


def _decompose_question(q: str) -> list[str]:
    """Decompose one question; ``[q]`` when it has no alternatives to split."""
    body = q.strip().rstrip("?").strip()
    # "Which is faster for web servers, Rust or Go"
    m = re.match(r"^((?:which|what|who)\b.+?)\s*[,:;]\s*([^,:;].*\bor\b.*)$", body, re.I)
    if m:
        alts = _alternatives(m.group(2))
        if alts:
            out = [_which_frame(m.group(1), a) for a in alts]
            if all(out):
                return [o for o in out if o]
    # "Rust or Go: which is faster for web servers" (also "Rust vs Go: which ...")
    m = re.match(
        r"^(.+?\b(?:or|vs\.?|versus)\s.+?)\s*[:,;\-–—]\s*((?:which|what|who)\b.+)$", body, re.I
    )
    if m:
        alts = _alternatives(m.group(1))
        if alts:
            out = [_which_frame(m.group(2), a) for a in alts]
            if all(out):
                return [o for o in out if o]
    # "Is Rust or Go faster for web servers": subject alternatives before a comparative.
    m = re.match(rf"^({_AUX_Q})\s+(.+?\bor\b\s+\S+(?:\s+\S+)?)\s+(.+)$", body, re.I)
    if m:
        aux, subj, rest = m.group(1), m.group(2), m.group(3)
        # Move words that belong to the last alternative only when the rest is comparative.
        for cut in range(len(subj.split()), 1, -1):
            parts = subj.split()
            cand, tail = " ".join(parts[:cut]), " ".join(parts[cut:])
            full_rest = f"{tail} {rest}".strip()
            alts = _alternatives(cand)
            if alts and _COMPARATIVE_WORD.match(full_rest):
                aux_s = {"are": "Is", "were": "Was", "have": "Has", "do": "Does"}.get(
                    aux.lower(), aux.capitalize()
                )
                return [f"{aux_s} {a} {full_rest}?" for a in alts]
    return [q.strip()]


def decompose_claim(text: str, *, max_parts: int | None = None) -> list[str]:
    """Split a claim or question into atomic sub-questions, keeping each predicate whole.

    * A question asking to choose among alternatives becomes one yes/no sub-question per
      alternative, each carrying the whole predicate: "Which is faster for web servers, Rust or
      Go?" → ["Is Rust faster for web servers?", "Is Go faster for web servers?"]. Also
      "Rust or Go: which ...?" and "Is Rust or Go faster ...?".
    * A text made only of questions is split at its question marks, then each as above; a
      statement with a rhetorical question inside is not split.
    * Clauses joined by a semicolon are split when each stands alone: its own verb, at least
      four words, and (after the first) not starting with a pronoun, conjunction or
      preposition that leans on the clause before ("...; it continues at the same rate").
    * Everything else stays one claim: "Compare Rust and Go for backend services" → itself, and
      a conjunction is never split (that would sever "X and Y for Z" from its predicate).

    Args:
        text: A claim, a question or a research request.
        max_parts: Keep at most this many parts (in order); ``None`` keeps all.

    Returns:
        Non-empty list of sub-claims; ``[text.strip()]`` when nothing splits. Duplicates
        (by :func:`affidavit.schemas.claims.normalize_claim_text`) are dropped.

    Raises:
        ValueError: When ``max_parts`` < 1.

    >>> decompose_claim("Which is faster for web servers, Rust or Go?")
    ['Is Rust faster for web servers?', 'Is Go faster for web servers?']
    >>> decompose_claim("Compare Rust and Go for backend services")
    ['Compare Rust and Go for backend services']
    """
    if max_parts is not None and max_parts < 1:
        raise ValueError(f"max_parts must be >= 1, got {max_parts}")
    t = _WS.sub(" ", text or "").strip()
    if not t:
        return [t]
    pieces = [t]
    questions = _split_questions(t)
    if questions is not None:
        pieces = [p for q in questions for p in _decompose_question(q)]
    elif ";" in t:
        clauses = [c.strip() for c in t.split(";") if c.strip()]
        if len(clauses) > 1 and all(_independent_clause(c, i) for i, c in enumerate(clauses)):
            pieces = [c.rstrip(".") for c in clauses]
    out: list[str] = []
    seen: set[str] = set()
    for p in pieces:
        k = normalize_claim_text(p)
        if k and k not in seen:
            seen.add(k)
            out.append(p)
    if not out:
        out = [t]
    return out[:max_parts] if max_parts is not None else out


_CLOSERS = "\"'”’)]»"
# A clause that starts with one of these leans on the clause before it ("it continues ...",
# "and, hence, ...", "from 1-200 A.D., ..."): splitting there would sever it from its subject.
_DEPENDENT_START = frozenset(
    """it its it's they them their this that these those he him his she her hers which who
    whom whose and but or nor so hence thus then therefore also from in on at to for with
    by of as while whereas although though because since when where if unless until""".split()
)


def _split_questions(t: str) -> list[str] | None:
    """Split a text made only of questions into its questions; ``None`` when it is not.

    A text that mixes questions and statements ("You think that is easy? I signed orders ...")
    is a statement with a rhetorical question inside: it is not split.
    """
    if "?" not in t:
        return None
    raw = re.findall(rf"[^?]+\?[{re.escape(_CLOSERS)}]*|[^?]+$", t)
    parts: list[str] = []
    for piece in raw:
        piece = piece.strip()
        if not any(ch.isalnum() for ch in piece):
            if parts:
                parts[-1] += piece
            continue
        parts.append(piece)
    if not parts or not all(p.rstrip(_CLOSERS).endswith("?") for p in parts):
        return None
    out = []
    for q in parts:
        q = re.sub(r"^(and|or|also|but|so)\s+", "", q, flags=re.IGNORECASE)
        out.append(q[0].upper() + q[1:] if q else q)
    return out


def _independent_clause(clause: str, index: int) -> bool:
    """Whether a semicolon-separated clause stands alone (own verb, >= 4 words, no lean-on)."""
    words = _words(clause)
    if len(words) < 4 or not _has_verb(clause):
        return False
    if index > 0 and words[0].lower() in _DEPENDENT_START:
        return False
    # An unclosed quotation continues into the next clause.
    return clause.count('"') % 2 == 0 and clause.count("“") == clause.count("”")


_CLAUSE_JOINS = (
    ("semicolon", re.compile(r";\s*(?:nonetheless|however|but|so)?,?\s+")),
    ("coordinator", re.compile(
        r",\s+(?:and|so|but|while|whereas|nonetheless)\s+"
        r"|,\s+(?=(?:because|never|not|both|all|each|neither|none|which)\s)"
        r"|,\s+(?=[a-z]{2,}ing\s)")),
    ("colon", re.compile(r":\s+(?=[a-z])")),
    ("comma", re.compile(r",\s+(?=[a-z])")),
    ("bare", re.compile(r"\s+(?:and|but)\s+(?!(?:also|then)\b)")),
)
"""Points where an answer's sentence may join two clauses, strongest first: a semicolon; a comma
before a coordinator ("and", "so", "but", "while", "because", "never"), a non-restrictive
"which" ("fixed in 1.4.1, which shipped on ..."), a participle ("..., using a page size of 50")
or a quantifier that starts a claim of its own ("2 failures, both in tests/a.py"); a colon
before a lowercase clause; a bare comma before a clause with its own subject and verb; a bare
"and"/"but"."""
_LEAD_CONNECTIVE = re.compile(r"^(?:and|so|but|while|whereas|nonetheless|however|then),?\s+",
                              re.IGNORECASE)
_DETERMINERS = frozenset("a an the its their his her our your this that these those".split())


def _verb_form(word: str) -> bool:
    """A word read as a finite verb: auxiliary, common verb, or lowercase -s/-ed form."""
    w = word.lower()
    if w in _AUX or w in _COMMON_VERBS:
        return True
    return (word[0].islower() and len(w) > 3 and w.endswith(("s", "ed"))
            and not w.endswith(("ss", "us", "is")))


def _has_finite(words: list[str]) -> bool:
    """Whether a clause has a finite verb.

    By :func:`_has_verb`, or a lowercase -s form after a word that is not a determiner, and
    not the clause's last word ("the image builds from").
    """
    if _has_verb(" ".join(words)):
        return True
    return any(
        _verb_form(w) and words[i - 1].lower() not in _DETERMINERS and words[i - 1][0].isalpha()
        for i, w in enumerate(words[:-1]) if i > 0
    )


def _subject_then_verb(words: list[str], *, strict: bool) -> bool:
    """Whether a clause opens with its own subject and a verb within three words.

    Not ``strict``, a verb whose subject is elided also counts ("and reports version 2.11.4").
    """
    if not words:
        return False
    if not strict and _verb_form(words[0]) and words[0][0].islower():
        return True
    for w in words[1:4]:
        lw = w.lower()
        if lw in _AUX or lw in _COMMON_VERBS or (not strict and _verb_form(w)):
            return True
    return False


def split_clauses(text: str, *, min_words: int = 3) -> list[tuple[int, int]]:
    """Split one sentence into its coordinated clauses, keeping every predicate whole.

    Joins are tried strongest first. A semicolon, or a comma before a coordinator (", and",
    ", so", ", but", ", while", ", because", ", never"), or a colon before a lowercase clause
    cuts when both sides have at least ``min_words`` words (shorter sides are list items: "pro,
    free and team"). A bare comma, "and" or "but" cuts only between two clauses of their own:
    the left has a finite verb, the right opens with its own subject and verb (a bare "and" also
    accepts an elided subject: "answers 200 and reports version 2.11.4"). So "the database and
    the queue report ok" and "Compare Rust and Go for backend services" stay whole. A leading
    connective ("so", "and", "but") is left off the right clause.

    Args:
        text: One sentence.
        min_words: Fewest words a side needs to be cut off.

    Returns:
        ``(start, end)`` offsets into ``text`` of each clause, in order, stripped of surrounding
        whitespace and end punctuation.

    >>> t = "Clients get 600 requests per minute, and responses may be cached for 60 seconds."
    >>> [t[a:b] for a, b in split_clauses(t)]
    ['Clients get 600 requests per minute', 'responses may be cached for 60 seconds']
    >>> t = "Both the database and the queue report ok."
    >>> [t[a:b] for a, b in split_clauses(t)]
    ['Both the database and the queue report ok']
    """
    def trim(a: int, b: int) -> tuple[int, int]:
        while a < b and (text[a].isspace() or text[a] in ",;:"):
            a += 1
        m = _LEAD_CONNECTIVE.match(text, a, b)
        if m and a > 0:
            a = m.end()
        while b > a and (text[b - 1].isspace() or text[b - 1] in ".,;:!"):
            b -= 1
        return a, b

    def cut(a: int, b: int) -> list[tuple[int, int]] | None:
        for kind, pattern in _CLAUSE_JOINS:
            for m in pattern.finditer(text, a, b):
                la, lb = trim(a, m.start())
                ra, rb = trim(m.end(), b)
                left, right = _words(text[la:lb]), _words(text[ra:rb])
                if len(left) < min_words or len(right) < min_words:
                    continue
                if text[la:lb].count("(") != text[la:lb].count(")"):
                    continue  # never cut inside brackets
                if kind in ("comma", "bare"):
                    head = _words(text[ra:rb].split(",")[0])
                    if not (_has_finite(left)
                            and _subject_then_verb(head, strict=kind == "comma")):
                        continue
                return [(la, lb), (ra, rb)]
        return None

    todo = [trim(0, len(text))]
    out: list[tuple[int, int]] = []
    while todo:
        a, b = todo.pop(0)
        parts = cut(a, b)
        if parts is None:
            out.append((a, b))
        else:
            todo[:0] = parts
    return sorted(p for p in out if p[1] > p[0])


# --------------------------------------------------------------------------------------------
# Instructions in an answer
# --------------------------------------------------------------------------------------------

_INSTRUCTION_VERBS = frozenset(
    """activate add apply avoid browse build call cancel cd change check choose clean clear
    click clone close commit configure confirm connect copy create deactivate delete deploy
    disable download drag edit enable enter ensure export fetch fill follow go grant import
    install launch log look merge move navigate open paste pick pin point press pull push
    rebuild reboot refresh register reinstall reload remove rename replace rerun reset restart
    restore revert rollback run save scroll search see select send set sign skip specify start
    stop submit switch tap try type uncheck uninstall unpin unset unzip update upgrade upload
    use verify visit wait""".split()
)
"""Verbs that open a step of a how-to in their base form ("Open the settings page", "Run
`pip install x`", "Click Save"), written by hand from the steps of installation guides and
answers; a word of the list that opens a statement is a noun there ("Build times fell",
"Commit 4e1c9a7 moved ..."), and the statement has a finite verb further on."""
_CONTENT_CLAUSE_VERBS = frozenset("ensure verify confirm check".split())
"""Verbs whose object may be a whole clause ("Check that the port is 8080", "Ensure the
tests pass"): the clause says what to check, not what is so."""
_INSTRUCTION_LEAD = re.compile(
    r"^(?:(?:step\s+\d+\s*[:.)\-–—]\s*)|(?:(?:first|second|third|then|next|now|finally|lastly|"
    r"afterwards|also|optionally|please|just|simply|and)\b,?\s+))+",
    re.IGNORECASE,
)
"""Step words that may precede an instruction's verb ("Then run ...", "Step 2: open ...")."""
_NEGATIVE_LEAD = re.compile(r"^(?:do\s+not|don['’]t|never)\s+", re.IGNORECASE)
_CODE_SPAN = re.compile(r"`+[^`]*`+")
_OBJECT_OPENERS = frozenset(
    """a an the this that these those it them its their your my our all each every both any
    some one another to on in into at for with up down out off back over through via from by
    again now here there first""".split()
)
"""Words that follow an imperative's verb directly: its object's determiner or pronoun, or a
particle or preposition ("Log in", "Go to", "Wait for")."""
_SUBORDINATORS = frozenset(
    "if when whenever unless until before after once because since so while whether".split()
)
"""Words that open a condition or a purpose of a step ("Restart it if the port changed"):
the verbs after them belong to that clause, not to a statement."""
_CHAINING = frozenset("then and or to".split())
_PREPOSITIONS = frozenset("in by under from at on with for as into to inside within".split())
"""Words after which a base form is another step of the same instruction ("..., then run")."""
_ADJECTIVE_ENDINGS = ("ed", "ing", "al", "ic", "ous", "ive", "ble", "less", "ful")
_ADJECTIVES = frozenset("old new stale unused large small other extra local remote".split())


def _token_word(token: str) -> str:
    return token.strip("\"'“”‘’()[]{}<>.,;:!?*")


def is_instruction(clause: str) -> bool:
    """Whether a clause of an answer is an instruction (a step to do), not a factual claim.

    An imperative opens it: a verb of :data:`_INSTRUCTION_VERBS` in its base form, after
    optional step words ("Then", "Step 2:") and a negation ("Don't", "Never"), or "Make sure",
    or a shell prompt (``$ ``). The verb is followed by what an object opens with (an article, a
    pronoun, a preposition or particle, a capitalised label, a code span, a path or flag, or
    nothing), or by a lowercase word that ends the clause or is followed by one of those ("Run
    pytest", "Install dependencies with uv"). And no finite verb of a subject follows in the
    main clause: auxiliaries and the common verbs count, except a base form chained after
    "then", "and", "or" or "to"; an -ed form counts unless a preposition follows it ("the
    packages listed in ..."); an -s form counts after a word that is neither a stop word nor
    an adjective; a relative clause ("which", "who") counts. Verbs after a subordinator ("if",
    "when", "until") belong to a condition and do not count; nor does a clause after "check
    that", "ensure", "make sure". So "Revenue rose 12 percent in 2023", "Build times fell",
    "Rising costs hit margins" and "Commit 4e1c9a7 moved the limiter" stay claims.

    Args:
        clause: One clause or sentence, list marker removed.

    Returns:
        True for an instruction.

    >>> [is_instruction(s) for s in ("Open the settings page.", "Run `pip install x`",
    ...                              "Click Save, then restart", "Rising costs hit margins",
    ...                              "Run times fell 12 percent in 2023")]
    [True, True, True, False, False]
    """
    text = _CODE_SPAN.sub(" `code` ", clause).strip()
    if text.startswith("$ "):
        return True
    text = _NEGATIVE_LEAD.sub("", _INSTRUCTION_LEAD.sub("", text, count=1), count=1)
    tokens = text.split()
    if not tokens:
        return False
    first = tokens[0].rstrip(".,;:!")
    if not first.isalpha() or first[1:] != first[1:].lower():
        return False  # an identifier ("run.py", "`run`", "SetUp"), not a verb
    verb = first.lower()
    rest = tokens[1:]
    nxt = _token_word(rest[0]).lower() if rest else ""
    if verb == "make" and nxt == "sure":
        return True
    if verb not in _INSTRUCTION_VERBS:
        return False
    if verb == "ensure" or (verb in _CONTENT_CLAUSE_VERBS and nxt in ("that", "whether", "if")):
        return True
    if rest and not _opens_object(rest):
        return False
    return not _finite_after(rest)


def _opens_object(rest: list[str]) -> bool:
    """Whether the tokens after an imperative's verb open its object (see ``is_instruction``)."""
    def opener(token: str) -> bool:
        w = _token_word(token)
        return (not w or w.lower() in _OBJECT_OPENERS or not w[0].isalpha() or w[0].isupper()
                or any(ch in w for ch in "/._=:@`-"))

    if opener(rest[0]):
        return True
    w = _token_word(rest[0]).lower()
    if len(rest) > 1 and (w in _ADJECTIVES or w.endswith(_ADJECTIVE_ENDINGS)):
        rest = rest[1:]  # "Delete old releases", "Remove unused imports"
    # a lowercase word: the object itself when the clause ends there or an opener follows
    # ("Run pytest", "Install dependencies with uv"); a noun with its verb otherwise
    # ("Release notes list three fixes")
    if len(rest) == 1 or rest[0].endswith((",", ";")):
        return True
    w = _token_word(rest[1])
    return bool(w) and not w[0].isdigit() and (w.lower() in _OBJECT_OPENERS
                                              or w.lower() in _CHAINING
                                              or not w[0].isalpha() or rest[1][0] == "-")


def _finite_after(rest: list[str]) -> bool:
    """Whether a finite verb of a subject follows an imperative's verb (see ``is_instruction``)."""
    prev = ""
    for i, token in enumerate(rest):
        w = _token_word(token)
        lw = w.lower()
        if not w or not w[0].isalpha() or w[0].isupper():
            prev = lw
            continue
        if lw in _SUBORDINATORS:
            return False
        if lw in ("which", "who", "whose"):
            return True
        chained = i > 0 and (prev in _CHAINING or rest[i - 1].endswith(","))
        if lw in _AUX:
            return True
        if lw in _COMMON_VERBS and not chained:
            return True
        if len(lw) > 4 and lw.endswith("ed") and lw not in _INSTRUCTION_VERBS:
            # a participle after a noun of the object ("the packages listed in ..."), else a
            # verb with its subject ("Run times increased", "Commit 4e1c9a7 moved the ...")
            after = _token_word(rest[i + 1]).lower() if i + 1 < len(rest) else ""
            noun_before = bool(prev) and prev.isalpha() and prev not in STOP_WORDS and (
                rest[i - 1][0].islower())
            adjective = i == 0 and len(after) > 3 and after.endswith("s") and (
                rest[i + 1][0].islower())  # "Remove unused imports"
            if not (after in _PREPOSITIONS and noun_before) and not adjective:
                return True
        elif (i >= 1 and lw.endswith("s") and _verb_form(w) and prev not in STOP_WORDS
              and prev not in _ADJECTIVES and not prev.endswith(_ADJECTIVE_ENDINGS)
              and not rest[i - 1].endswith(",")):
            return True
        prev = lw
    return False


_LEAD_IN_END = re.compile(r"\s*:")
_LEAD_IN = re.compile(
    r"(?:here(?:'s|’s|\s+is|\s+are)|to\s+[a-z]+|(?:do\s+)?the\s+following|follow\s+these|"
    r"(?:the\s+)?steps|as\s+follows|for\s+example|for\s+instance|e\.g\.|note|tip|in\s+short|"
    r"options?|you\s+can|try\s+this|do\s+this)\b",
    re.IGNORECASE,
)
"""Openings of a clause that, ending at a colon, only introduces what follows ("Here is what
to do:", "To fix it:", "The steps:"); "Overall the migration went smoothly:" states a fact before
its details and stays a claim (closed-class English)."""
_MARKER_ONLY = re.compile(r"\s*\(?(?:\d{1,2}|[a-hA-H])[.)]\s*")
"""A sentence that is only a list item's number or letter ("1.", "b)")."""
_LOWER_SENTENCE = re.compile(
    r"(?<=\w)\.\s+(?=[a-z@/`])|(?<=ms)\.\s+(?=[A-Z])")
"""A period before a lowercase word (answers start sentences with identifiers: "... four
files. vendor-77c0aa.js is the largest"), or after a figure's unit that :func:`split_sentences`
reads as an abbreviation ("in 30 ms. Python ...")."""


def split_answer_claims(text: str, *, skips: Counter[str] | None = None
                        ) -> list[ClaimCandidate]:
    """Split an answer into its factual claims, each with its span.

    Sentences (:func:`split_sentences`, and breaks before identifiers), then their coordinated
    clauses (:func:`split_clauses`). Questions and instructions (:func:`is_instruction`: "1.
    Open the settings page.", "Run `pip install x`") are not claims and are left out; a clause
    after the first of its sentence is an instruction only when the clause before it is one or
    "so" or "then" joins them (", and run in 40 s" has its subject left out, not a step).
    Nothing else is scored away, since every statement of an audited answer is checked.

    Args:
        text: The answer.
        skips: When given, what is left out is counted in it: ``question_not_a_claim`` (one
            per sentence), ``instruction_not_a_claim``, ``lead_in_not_a_claim`` (a clause
            that ends at a colon and only introduces what follows: "Here is what to do:") and
            ``fragment_not_a_claim`` (a single word), one per clause.

    Returns:
        Candidates in answer order; ``text[c.span_start:c.span_end]`` is the clause as written.

    >>> [c.text for c in split_answer_claims("It builds with hatchling and needs Python 3.10.")]
    ['It builds with hatchling', 'needs Python 3.10']
    """
    found: list[ClaimCandidate] = []
    spans: list[tuple[int, int]] = []
    for start, end in split_sentences(text or ""):
        marker = _LINE_MARKER.match(text, start, end)
        if marker:
            start = marker.end()
        for m in _LOWER_SENTENCE.finditer(text, start, end):
            before = text[start : m.start()].split()
            if text[m.end()].islower():
                if before and before[-1].lower().rstrip(".") in _ABBREVIATIONS:
                    continue
            elif not re.search(r"\d\s?ms$", text[start : m.start()]):
                continue  # "Ms. Smith": only a figure's "ms" ends a sentence here
            spans.append((start, m.start() + 1))
            start = m.end()
        spans.append((start, end))
    for start, end in spans:
        sentence = text[start:end]
        if not any(ch.isalnum() for ch in sentence) or _MARKER_ONLY.fullmatch(sentence):
            continue  # nothing, or a list's number split off its item ("1." of "1. Open ...")
        if sentence.rstrip().endswith("?"):
            if skips is not None:
                skips["question_not_a_claim"] += 1
            continue
        step, last = False, 0
        for a, b in split_clauses(sentence):
            clause = _WS.sub(" ", sentence[a:b]).strip()
            joint = sentence[last:a].lower()
            last = b
            if not clause:
                continue
            if _LEAD_IN_END.match(sentence, b) and _LEAD_IN.match(clause):
                # "Here is what to do:", "To fix it:": it introduces what follows
                if skips is not None:
                    skips["lead_in_not_a_claim"] += 1
                step = True  # what follows its colon opens like a sentence
                continue
            if len(clause.split()) < 2:
                # "a" of a bullet "- a": a word alone states nothing to check
                if skips is not None:
                    skips["fragment_not_a_claim"] += 1
                continue
            step = is_instruction(clause) and (
                a == 0 or step or re.search(r"\b(?:so|then)\b", joint) is not None
                or clause[0].isupper())
            if step:
                if skips is not None:
                    skips["instruction_not_a_claim"] += 1
                continue
            found.append(ClaimCandidate(clause, start + a, start + b,
                                        score_check_worthiness(clause)))
    return found


# --------------------------------------------------------------------------------------------
# Researchable gate
# --------------------------------------------------------------------------------------------

_MEASURABLE_COMPARATIVE = re.compile(
    r"\b(faster|slower|quicker|cheaper|larger|smaller|bigger|taller|older|younger|heavier|"
    r"lighter|higher|lower|richer|poorer|hotter|colder|longer|shorter|fewer|"
    r"fastest|slowest|cheapest|largest|smallest|biggest|tallest|oldest|youngest|heaviest|"
    r"lightest|highest|lowest|richest|poorest|hottest|coldest|longest|shortest|fewest)\b",
    re.IGNORECASE,
)
_ATTRIBUTED = re.compile(
    r"\b(said|says|say|told|according to|reported|announced|stated|claimed|claims|wrote|"
    r"writes|tweeted|posted|testified|declared|argued|called|warn|warns|warned|believe|"
    r"believes|suggest|suggests|suggested|found|finds|concluded|concludes|show|shows|showed|"
    r"showing)\b",
    re.IGNORECASE,
)
_CHANGE = re.compile(
    r"\b(increased|decreased|declined|rose|risen|fell|fallen|dropped|grew|grown|shrank|"
    r"shrunk|doubled|halved|tripled|surged|plunged|climbed|slumped)\b",
    re.IGNORECASE,
)
_SPECULATIVE = re.compile(r"\b(might|may|could|perhaps|possibly|maybe)\b", re.IGNORECASE)
_NORMATIVE_STRICT = re.compile(r"\b(should|ought to)\b", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(
    r"[,;:(\u2014\u2013]|\s(?:which|that|who|whom|because|when|if|unless|suggesting|meaning|"
    r"until|while|although|though|as)\s",
    re.IGNORECASE,
)


def _main_clause(text: str) -> str:
    """Text up to the first clause break (comma, relative pronoun, subordinator)."""
    m = _CLAUSE_BREAK.search(text)
    return text[: m.start()] if m else text


def _falsifiable_form(text: str) -> str | None:
    """Name the falsifiable form a text has, or ``None``."""
    if _FIGURE.search(text) or _YEAR.search(text):
        return "figure"
    if _RANKING.search(text):
        return "named_ranking_or_study"
    if _ATTRIBUTED.search(text):
        return "attribution"
    if _MEASURABLE_COMPARATIVE.search(text):
        return "measurable_comparison"
    if _CHANGE.search(text):
        return "measurable_change"
    return None


def _vague_word(words: list[str]) -> str | None:
    """First vague word used as such.

    Not a capitalised part of a name ("Great Barrier Reef"), nor part of an idiom that says
    nothing vague ("for good" is permanently, "as good as" is nearly).
    """
    for i, w in enumerate(words):
        low = w.lower()
        if low not in VAGUE_WORDS:
            continue
        before = words[i - 1].lower() if i > 0 else ""
        after = words[i + 1].lower() if i + 1 < len(words) else ""
        if (before, low) == ("for", "good") or (before, low, after) == ("as", "good", "as"):
            continue
        if w[0].isupper():
            nxt = words[i + 1] if i + 1 < len(words) else ""
            if i > 0 or (nxt[:1].isupper()):
                continue
        return low
    return None


_SCRIPT_NAMES = {"CJK": "Han", "HIRAGANA": "Japanese kana", "KATAKANA": "Japanese kana",
                 "HANGUL": "Hangul"}
"""Script names for the first word of a letter's Unicode name where that word is not one."""


def unreadable_scripts(text: str) -> tuple[str, ...]:
    """Name the scripts of a text's letters when the lexical judge reads none of its words.

    The lexical judge (:func:`affidavit.tasks.judge_lexical.tokenize`) folds accents and reads
    ``a-z`` words and digit figures only: a claim in Han, Cyrillic, Arabic, Greek, Hangul...
    gives it no word to match (at most its figures), so it can weigh no document for it.

    Args:
        text: A claim.

    Returns:
        The scripts of its letters (from their Unicode names, most letters first), or ``()``
        when the judge reads at least one of its words or it has no letters.

    >>> unreadable_scripts("Москва — столица России с 1918 года")
    ('Cyrillic',)
    >>> unreadable_scripts("中国是世界上人口最多的国家"), unreadable_scripts("Café au lait")
    (('Han',), ())
    """
    if any(not t.startswith("#") for t in tokenize(text or "")):
        return ()
    counts: Counter[str] = Counter()
    for ch in text or "":
        if ch.isalpha():
            first = unicodedata.name(ch, "OTHER ").split()[0]
            counts[_SCRIPT_NAMES.get(first, first.title())] += 1
    return tuple(name for name, _ in counts.most_common())


MAX_CLAIM_WORDS = 150
"""Longest claim researched, in words. A check-worthy claim is one sentence: the longest claims
of the labelled sets in ``../shared/bench`` have 142–373 characters (about 60 words); a text of
hundreds of words is a passage of several claims, whose judgments would mix (a 50,000-character
repetition of a supported sentence was once decided CONTRADICTED). Convention: 150."""


def gate_researchable(text: str) -> tuple[bool, str]:
    """Decide whether some search result could prove a claim false (DESIGN.md, Gates).

    Rules, in order:

    1. empty or fewer than 2 content words → ``(False, "too_short")``, or ``(False,
       "no_readable_words: <script> script")`` when its words are all in scripts the lexical
       tools do not read (:func:`unreadable_scripts`: "Москва — столица России"); more than
       :data:`MAX_CLAIM_WORDS` words → ``(False, "too_long: N words")`` (a passage, not a
       claim: ``affidavit verify`` splits a text into its claims);
    2. an opinion marker ("I think", "in my opinion") with no attribution →
       ``(False, "opinion: <marker>")``;
    3. "should" / "ought to" in the main clause (before the first comma or subordinate
       clause) with no attribution → ``(False, "normative: <verb>")``;
    4. a vague evaluative word (:data:`VAGUE_WORDS`: best, good, better, important,
       significant, ...; a capitalised one inside a name such as "Great Barrier Reef" does
       not count) → ``(False, "vague: <word>")`` unless the claim has a falsifiable form: a
       figure or year, a named ranking or study ("ranked", "according to", "survey",
       "statistically significant"), an attribution ("X said ...", "scientists warn ..."), a
       measurable comparison ("faster", "cheaper", "tallest") or a measurable change
       ("declined", "doubled") → ``(True, "falsifiable: <form>")``;
    5. a speculative modal ("might", "may", "could", "perhaps", "possibly") in the main
       clause with no figure and no attribution → ``(False, "speculative: <word>")``; hedges
       in subordinate clauses ("... which could cause ...") and probability statements
       ("more likely") do not count, because such claims are checked every day;
    6. otherwise ``(True, "falsifiable")``.

    The clause rules were loosened after reading the rejects on Climate-FEVER and AVeriTeC
    dev claims, where hedges and "needs to" inside subordinate clauses had rejected plainly
    checkable claims.

    Args:
        text: A claim or sub-question.

    Returns:
        ``(passed, reason)``; the reason is kept in ``claims.researchable_reason``.

    >>> gate_researchable("Python is the best programming language")
    (False, 'vague: best')
    >>> gate_researchable("Python was ranked the best language in the TIOBE index for 2021")
    (True, 'falsifiable: figure')
    """
    t = _WS.sub(" ", text or "").strip()
    words = _words(t)
    content = [w for w in words if w.lower() not in STOP_WORDS]
    if len(content) < 2:
        scripts = unreadable_scripts(t)
        if scripts:
            return False, (f"no_readable_words: {', '.join(scripts)} "
                           f"script{'s' if len(scripts) > 1 else ''}")
        return False, "too_short"
    if len(words) > MAX_CLAIM_WORDS:
        return False, f"too_long: {len(words)} words"
    attributed = bool(_ATTRIBUTED.search(t))
    main = _main_clause(t)
    m = _OPINION.search(t)
    if m and not attributed:
        return False, f"opinion: {m.group(0).lower()}"
    m = _NORMATIVE_STRICT.search(main)
    if m and not attributed:
        return False, f"normative: {m.group(0).lower()}"
    vague = _vague_word(words)
    # "statistically significant" is a technical, testable term, not a vague one.
    if vague in ("significant", "significantly") and re.search(
        r"statistically significant", t, re.I
    ):
        return True, "falsifiable: named_ranking_or_study"
    if vague is not None:
        form = _falsifiable_form(t)
        if form is None:
            return False, f"vague: {vague}"
        return True, f"falsifiable: {form}"
    m = _SPECULATIVE.search(main)
    if m and not attributed and not _FIGURE.search(t):
        return False, f"speculative: {m.group(0).lower()}"
    return True, "falsifiable"


# --------------------------------------------------------------------------------------------
# Volatility
# --------------------------------------------------------------------------------------------

_IMMUTABLE_PAT = re.compile(
    r"\b(was born|were born|born (in|on)|birthplace|died (in|on|at)|passed away|was killed|"
    r"was founded|were founded|founded (in|on|by)|was established|established in|"
    r"was incorporated|was built in|was completed in|was published|published (in|on)|"
    r"was first published|was released (in|on)|first released|was invented|invented (in|by)|"
    r"was discovered|discovered (in|by)|was signed|signed (in|on)|was ratified|was elected in|"
    r"was assassinated|landed on|took place (in|on)|was fought|ended in|began in|"
    r"speed of light|boiling point|boils at|freezes at|melts at|freezing point|melting point|"
    r"atomic number|atomic mass|"
    r"gravitational constant|planck constant|avogadro|speed of sound|value of pi|"
    r"chemical formula|is a prime number|is an? (element|mammal|planet|continent|"
    r"prime)|molecular weight)\b",
    re.IGNORECASE,
)
_LIVE = r"as of|currently|right now|at the moment|so far(?! as)|to date|as we speak|year to date"
_FAST_PAT = re.compile(
    rf"\b({_LIVE}|"
    # prices and markets
    r"price|prices|priced at|costs? \$|trading at|trades at|traded at|share price|stock price|"
    r"stock market|market cap|market capitali[sz]ation|exchange rate|per barrel|per ounce|"
    r"per gallon|gas prices|mortgage rates?|interest rates?|is worth|valued at|"
    # polls
    r"(?<!to the )(?<!at the )polls?(?! workers?| stations?| places?| tax)|pollsters?|"
    r"approval rating|leads (in|by)|ahead in the polls|frontrunner|front-runner|"
    # running counts
    r"death toll|confirmed cases|new cases|active cases|case count|hospitali[sz]ations|"
    r"followers|subscribers|"
    # current office holders and titles
    r"is the current|current (president|prime minister|ceo|chair|chairman|leader|governor|"
    r"mayor|champion|record holder|head)|incumbent|serves as|serving as|in office|heads the|"
    r"is (the )?(president|prime minister|ceo|chief executive|chancellor|governor|mayor|"
    r"leader|head|chair|chairman|chairwoman|secretary|minister|speaker|coach|manager|"
    r"world number one|number one|world champion|champion)|"
    r"richest)\b",
    re.IGNORECASE,
)
_LIVE_PAT = re.compile(rf"\b({_LIVE})\b", re.IGNORECASE)
# A year that opens an ongoing period or sets a deadline is not the date of a past event.
_ONGOING = re.compile(
    r"\b(since|by|until|till|through|now|still|ever since)\b|['’]ve\b|\b(has|have) been\b",
    re.IGNORECASE,
)
_PAST_VERB = re.compile(
    r"\b(was|were|had|did|\w{3,}ed)\b|\b(won|lost|became|began|made|took|gave|held|led|met|"
    r"paid|sold|spent|wrote|fought|flew|ran|rose|fell|grew|struck|built|bought|brought|left|"
    r"came|went|saw|said|told|found|knew|thought|beat|broke|chose|drew|drove|ate|forgot|froze|"
    r"hid|rode|rang|sang|sank|spoke|stole|swam|threw|woke|wore|won)\b",
    re.IGNORECASE,
)
_PRESENT = re.compile(r"\b(is|are|has|have|remains|stands|holds|serves|leads)\b", re.I)
_STATISTIC = re.compile(
    r"(%|\bper ?cent\b|\brate\b|\bgdp\b|\bunemployment\b|\binflation\b|\bestimate[ds]?\b|"
    r"\baverage\b|\bmedian\b|\bpopulation\b|\bsurvey\b)",
    re.IGNORECASE,
)


def classify_volatility(text: str) -> Volatility:
    """Classify how fast a claim's truth may change (DESIGN.md, Claims).

    Rules, in order:

    1. **immutable** — births, deaths, foundings, inventions, dated publications and releases,
       signed treaties, physical and mathematical constants (e.g. "was born in", "founded in",
       "speed of light", "boiling point");
    2. **fast** — prices and markets, polls and approval ratings, running counts (cases, death
       toll, followers), counts "as of" / "currently" / "so far", and current office holders
       ("is the president of", "current CEO"), in the present tense or with a live marker
       ("as of", "currently", "so far"); in the past tense without a live marker it is a
       record of that moment → immutable when dated, slow when not;
    3. **immutable** — a past-tense event with an explicit year or date, when it is not a
       statistic (statistics are revised: rates, %, GDP, estimates → slow) and the year does
       not open an ongoing period or set a deadline ("since 1979", "by 2050", "now");
    4. **slow** — everything else.

    Args:
        text: A claim.

    Returns:
        A :class:`affidavit.schemas.enums.Volatility`.

    >>> classify_volatility("Barack Obama was born in Honolulu in 1961")
    <Volatility.IMMUTABLE: 'immutable'>
    >>> classify_volatility("Bitcoin is trading at $64,000")
    <Volatility.FAST: 'fast'>
    """
    t = _WS.sub(" ", text or "").strip()
    if _IMMUTABLE_PAT.search(t):
        return Volatility.IMMUTABLE
    dated = bool(_YEAR.search(t) or _DATE_WORD.search(t))
    past = bool(_PAST_VERB.search(t)) and not _PRESENT.search(t)
    ongoing = bool(_ONGOING.search(t))
    if _FAST_PAT.search(t):
        if _LIVE_PAT.search(t) or not past:
            return Volatility.FAST
        # A price, poll or count in the past tense is a record of that moment.
        return Volatility.IMMUTABLE if dated and not ongoing else Volatility.SLOW
    if dated and past and not ongoing and not _STATISTIC.search(t):
        return Volatility.IMMUTABLE
    return Volatility.SLOW


def expires_at(volatility: Volatility, now: datetime) -> datetime:
    """Return when a verdict on a claim of this volatility expires: ``now`` + its lifetime.

    Lifetimes: :data:`FAST` 24 h, :data:`SLOW` 180 days, :data:`IMMUTABLE` 5 × 365 days
    (DESIGN.md, Claims).

    Args:
        volatility: The claim's class (a :class:`Volatility` or its string value).
        now: The current time, timezone-aware (UTC by convention).

    Returns:
        A timezone-aware datetime.

    Raises:
        ValueError: When ``now`` is naive or ``volatility`` is not a known class.
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be timezone-aware (UTC)")
    try:
        v = Volatility(volatility)
    except ValueError as exc:
        raise ValueError(f"unknown volatility {volatility!r}") from exc
    return now + _LIFETIMES[v]


# --------------------------------------------------------------------------------------------
# Rows
# --------------------------------------------------------------------------------------------


def build_claim_rows(
    candidates_or_texts: Iterable[ClaimCandidate | str | dict[str, Any]],
    *,
    now: datetime,
    origin: str,
    source_doc_id: str | None = None,
    decompose: bool = False,
    max_sub_questions: int | None = None,
    skips: Counter[str] | None = None,
) -> list[dict[str, Any]]:
    """Build ``claims`` rows (``CLAIMS_SCHEMA``) from candidates, texts or file rows.

    Each item gets its ``claim_id`` (:func:`affidavit.schemas.claims.make_claim_id`),
    check-worthiness
    (the candidate's, else :func:`score_check_worthiness`), the researchable gate and the
    volatility class. With ``decompose=True`` a claim that :func:`decompose_claim` splits also
    yields one row per part with ``parent_claim_id`` set (the parent row is kept). Rows whose
    ``claim_id`` was already produced in this call are dropped (first one wins).

    Args:
        candidates_or_texts: :class:`ClaimCandidate` objects (spans kept), strings, or dicts
            with ``text`` and optional ``external_id``, ``external_label``, ``span_start``,
            ``span_end``, ``source_doc_id`` (as :func:`read_claims_file` returns).
        now: Time of the run, timezone-aware. It is validated only: the table holds no time
            column; ``expires_at`` belongs to verdicts.
        origin: Where the claims came from, e.g. ``"file:<path>"``, ``"feed:<url>"``,
            ``"text"``, ``"question"``.
        source_doc_id: Document the claims were extracted from, if any (a dict's own
            ``source_doc_id`` wins).
        decompose: Also emit sub-question rows.
        max_sub_questions: Cap on parts per claim (the mode's sub-questions); ``None`` = all.
        skips: When given, items left out are counted in it: ``empty_text`` and
            ``duplicate_claim`` (same ``claim_id`` as an earlier item of this call; real claim
            files repeat claims, e.g. Climate-FEVER has 1,535 rows and 1,502 distinct claims).

    Returns:
        One dict per row with exactly the columns of ``CLAIMS_SCHEMA``. Items with empty text
        are skipped.

    Raises:
        ValueError: When ``now`` is naive or an item has an unsupported type.
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be timezone-aware (UTC)")
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()

    def add(
        text: str,
        *,
        span: tuple[int | None, int | None],
        worth: float | None,
        ext_id: str | None,
        ext_label: str | None,
        doc_id: str | None,
        parent: str | None,
    ) -> str | None:
        cid = make_claim_id(text)
        if cid in seen:
            if skips is not None and parent is None:
                skips["duplicate_claim"] += 1
            return cid
        seen.add(cid)
        ok, reason = gate_researchable(text)
        rows.append(
            {
                "claim_id": cid,
                "text": text,
                "source_doc_id": doc_id,
                "span_start": span[0],
                "span_end": span[1],
                "parent_claim_id": parent,
                "check_worthiness": score_check_worthiness(text) if worth is None else worth,
                "is_researchable": ok,
                "researchable_reason": reason,
                "volatility": str(classify_volatility(text)),
                "external_id": ext_id,
                "external_label": ext_label,
                "origin": origin,
            }
        )
        return cid

    for item in candidates_or_texts:
        if isinstance(item, ClaimCandidate):
            text, span, worth = item.text, (item.span_start, item.span_end), item.check_worthiness
            ext_id = ext_label = None
            doc_id = source_doc_id
        elif isinstance(item, str):
            text, span, worth, ext_id, ext_label, doc_id = (
                item,
                (None, None),
                None,
                None,
                None,
                source_doc_id,
            )
        elif isinstance(item, dict):
            text = item.get("text") or ""
            span = (item.get("span_start"), item.get("span_end"))
            worth = item.get("check_worthiness")
            ext_id, ext_label = item.get("external_id"), item.get("external_label")
            doc_id = item.get("source_doc_id") or source_doc_id
        else:
            raise ValueError(f"unsupported claim item type {type(item).__name__}")
        text = _WS.sub(" ", str(text)).strip()
        if not text:
            if skips is not None:
                skips["empty_text"] += 1
            continue
        parent_id = add(
            text,
            span=span,
            worth=worth,
            ext_id=ext_id,
            ext_label=ext_label,
            doc_id=doc_id,
            parent=None,
        )
        if decompose:
            parts = decompose_claim(text, max_parts=max_sub_questions)
            if len(parts) > 1:
                for part in parts:
                    add(
                        part,
                        span=(None, None),
                        worth=None,
                        ext_id=None,
                        ext_label=None,
                        doc_id=doc_id,
                        parent=parent_id,
                    )
    return rows
