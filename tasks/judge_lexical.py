"""Lexical judge: stance of a document toward a claim with no model at all.

The judge reads the document's own sentences, weighs the claim's content terms by IDF (the
corpus IDF of the warehouse when given, else the IDF of the sentences of the batch's documents),
picks the sentence that covers the claim best and decides the stance from what that sentence
says about the claim's terms:

* figures are normalised (``8``, ``8%``, ``8.0`` and ``"eight"`` are the same number; the unit is
  kept, so ``8 percent`` and ``8 km`` differ) and a figure of the claim's unit that differs from
  the claim's inside the same sentence is a contradiction (claim 18 percent, evidence 11 percent);
* negation and refutation cues ("not", "never", "debunked", "failed to replicate", "found no",
  "withdrawn", "did not" ...) present on one side only flip support into refutation;
* antonyms (``increase``/``decrease``, ``best``/``worst``...) and a different value in the same
  frame (another nationality, month, ordinal, genre or medium) refute; so does a short passage
  that names an atomic claim's subject but not its predicate ("Lost is a political party"
  against "Lost is an American television drama series"); a negated claim ("X is not a Y") is
  supported by such a passage;
* hedges and qualifiers ("some", "may", "partly", "in part") turn support into PARTIAL rather
  than a contradiction;
* under a relevance floor the judge answers an honest NEUTRAL.

Short passages (at most ``short_doc_sentences`` sentences) and articles are judged with separate
thresholds: in an article, support is read over the union of the best few sentences and a
contradiction needs a sentence that covers most of the claim.

Articles (and short passages, when the claim states a measured quantity such as money or a
percentage) are read by frames (:mod:`affidavit.tasks.judge_frame`): a stance needs the claim's
subject in the document and its predicate or figure in one sentence, in the claim's own time
frame; a negation, a denial, a different figure or an opposite predicate refutes only when it
bears on that frame; plans against done facts, approximate figures and bounds are PARTIAL;
attributions and off-topic sentences are nothing. A claim of several facts (a long sentence of
several clauses, or one whose subject is a pronoun) is refuted on frames but supported over
the best few sentences, as above.

The quote is always a sentence of the document as written (``text[start:end]``), extended to its
neighbour when shorter than the anchor gate's minimum, so it anchors EXACT by construction.
"""

from __future__ import annotations

import math
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lemminflect import getAllLemmas

from affidavit.schemas.enums import Stance
from affidavit.schemas.judgments import JudgeResult
from affidavit.tasks.semantic import RELEVANCE_FLOOR, encoder

__all__ = [
    "Figure",
    "FrameConfig",
    "LexicalJudge",
    "LexicalJudgeConfig",
    "compute_idf",
    "normalize_figures",
    "MONTHS",
    "logical_lines",
    "name_numbers",
    "split_sentences",
    "tokenize",
]


@dataclass(frozen=True, slots=True)
class FrameConfig:
    """Thresholds of frame reading (IDF-weighted shares of the claim's predicate, 0..1).

    Attributes:
        subject_share: The document names the claim's subject when it holds at least this share
            of the subject's terms. Convention (0.5: a surname or a short form of a name).
        subject_window: Sentences before a sentence read with it for the claim's subject
            ("The company said ..." after the sentence that names it), where a reading needs
            the subject near (a dated event). Convention: 2.
        predicate_support: Share of the predicate a sentence must carry to support a claim
            that has no figure (and for a negation to bear on it). Measured on the verdict-set
            pairs (``bench_judge --verdict-set ../shared/bench/verdicts-dev``): 0.5 and 0.7
            score 0.04 and 0.06 lower status accuracy; 0.6.
        predicate_with_figure: Share of the predicate that, with the claim's figure, makes the
            sentence speak of the claim's quantity when the figure's head nouns do not meet.
            Convention (0.3).
        predicate_refute: Share of the predicate a sentence must carry for a different figure
            to be a value of the claim's quantity (with ``figure_context``), or for an opposite
            predicate to count with a figure claim. Convention (0.5).
        figure_context: A different figure of the claim's unit is a value of the claim's
            quantity when the words around it carry at least this IDF-weighted share of the
            words around the claim's figure ("backlog ... was $460 million" against "order
            backlog stood at $640 million"). Convention (0.4).
        missing_concepts: A sentence that carries enough of the predicate but lacks more than
            this many of its concepts supports only part of the claim (PARTIAL): a claim of
            several facts is not supported by one of them. Convention (2: one fact's verb and
            object may be paraphrased away).
        opposite_rest: An opposite predicate ("raised" against "cut") refutes only in a
            sentence that carries at least this share of the rest of the predicate (the same
            thing rises or falls). Convention (0.75: all but a minor term).
        negation_window: A negation cue bears on a predicate term at most this many words
            after it ("did not approve", "is not what farmers were paid"). The lexical judge's
            measured window (4).
        scope_window: A modal or planning cue bears on a predicate term within this many words
            after it, a denial within twice as many ("dismissed claims that it is preparing to
            close"). Convention (6).
        approx_tolerance: A hedged figure ("about 60") within this relative distance of the
            claim's is approximate support (PARTIAL), beyond it a different figure.
            Convention (0.15).
        exact_tolerance: Relative distance under which two figures are the same (rounding:
            1,180.3 million is 1.18 billion). Convention (0.005).
    """

    subject_share: float = 0.5
    subject_window: int = 2
    predicate_support: float = 0.6
    predicate_with_figure: float = 0.3
    predicate_refute: float = 0.5
    figure_context: float = 0.4
    opposite_rest: float = 0.75
    negation_window: int = 4
    missing_concepts: int = 2
    scope_window: int = 6
    approx_tolerance: float = 0.15
    exact_tolerance: float = 0.005


@dataclass(frozen=True, slots=True)
class LexicalJudgeConfig:
    """Thresholds of the lexical judge.

    All coverages are IDF-weighted shares (0..1) of the claim's content terms found in the
    selected sentence(s).

    Attributes:
        relevance_floor: Under this coverage of the best sentence the answer is NEUTRAL (unless
            the passage names an atomic claim's subject, see ``missing_term_refutes``). Measured
            on judge-dev (Climate-FEVER, where most pairs are topical but neutral; 0.30 to 0.38
            within 0.01 of macro-F1): 0.34.
        support_coverage: For short documents, coverage from which the passage SUPPORTS the
            claim; between the floor and this value it is PARTIAL. Convention (0.75): judge-dev's
            short-passage sets score PARTIAL as SUPPORTS, so they cannot measure it.
        article_relevance_floor: For articles, under this coverage of the best window the
            answer is NEUTRAL. Measured on judge-dev (WiCE; macro-F1 flat from 0.31 to 0.35):
            0.33.
        article_support_coverage: For articles, window coverage from which the article SUPPORTS
            the claim; between the floor and this value it is PARTIAL. Measured on judge-dev
            (WiCE; flat from 0.62 to 0.70): 0.66.
        article_refute_coverage: In an article, a contradiction signal counts only in a sentence
            that covers at least this much of the claim (long articles hold many negations about
            other things). Measured on judge-dev (WiCE, which has no refutations, so this is a
            false-refutation guard): 0.8.
        negation_floor: Minimum coverage for negation on one side only to refute (a negation in
            a sentence that shares little with the claim is usually about something else).
            Measured on judge-dev (Climate-FEVER; 0.5 and 0.6 refute less and score lower): 0.4.
        missing_term_refutes: A short document (at most ``short_doc_sentences`` sentences) that
            shares the claim's subject but lacks a content term of at least this share of the
            claim's weight contradicts it ("Lost is a political party" against "Lost is an
            American television drama series"). Measured on judge-dev (FEVER-Symmetric; 0.2 and
            0.3 within 0.01): 0.25.
        subject_share: The passage names the claim's subject only when it holds at least this
            IDF-weighted share of the subject's terms, written capitalised: one common word of
            a name ("Bridge" of "Lumen Bridge") is not the subject. Rule from the research loop,
            where retrieved short documents sharing one word of a name were read as refutations;
            0.5 keeps a surname alone ("DiCaprio" of "Leonardo DiCaprio", the rarer term).
        atomic_claim_terms: The missing-term rule applies only to atomic claims of at most this
            many content terms; in a longer claim an absent term means a part is unsupported,
            not contradicted. Measured on judge-dev (FEVER-Symmetric against Climate-FEVER;
            5 and 7 trade one set for the other): 6.
        negation_window: A negation cue in the selected sentence counts only within this many
            terms of a claim term (a negation scopes over its neighbours). Measured on judge-dev
            (flat from 3 to 5; all of the sentence scores lower): 4.
        short_doc_sentences: Documents with at most this many sentences are judged as single
            evidence passages (FEVER, Climate-FEVER style); longer ones as articles. Convention
            (3).
        window_sentences: For articles, support is measured over the union of the best
            ``window_sentences`` sentences (a claim's facts are often spread over two). Measured
            on judge-dev (WiCE): 3.
        min_quote_chars: Shortest quote returned when the document allows it; the anchor gate
            rejects shorter quotes (DESIGN.md, Gates). 24 characters.
        read_frames: Judge articles by reading the claim's frame (``judge_frame``).
        frame_claim_terms: A claim of more than this many content terms with several clauses
            (joined by commas, "and", "which"..., as Wikipedia sentences often are), or one
            whose subject is a pronoun, states several facts: its refutation is read on frames,
            its support over the best sentences together (one sentence rarely carries all its
            facts). The value of ``atomic_claim_terms`` (6). On judge-dev's WiCE, frames alone
            score 0.10 lower macro-F1.
        max_doc_chars: Documents are cut at this many characters before sentence splitting, to
            bound the time of one pair (about 40 pages of text). Convention: 200,000.
        semantic_floor: In a document found by search, a PARTIAL whose quote (alone, or read
            with the sentence before it, whichever is closer) has a sentence embedding less
            similar to the claim's than this cosine is NEUTRAL: the words are shared, the
            subject is not (:mod:`affidavit.tasks.semantic`). Calibrated on citation-integrity
            train (the 5th percentile of claim-to-rationale cosines):
            :data:`affidavit.tasks.semantic.RELEVANCE_FLOOR`. Full support is not floored: on
            verdicts-dev that lost two right verdicts (0.9667 → 0.9444) whose quotes state a
            figure in few words. ``None`` turns it off.
    """

    relevance_floor: float = 0.34
    support_coverage: float = 0.75
    article_relevance_floor: float = 0.33
    article_support_coverage: float = 0.66
    article_refute_coverage: float = 0.8
    negation_floor: float = 0.4
    missing_term_refutes: float = 0.25
    subject_share: float = 0.5
    atomic_claim_terms: int = 6
    negation_window: int = 4
    short_doc_sentences: int = 3
    window_sentences: int = 3
    min_quote_chars: int = 24
    max_doc_chars: int = 200_000
    read_frames: bool = True
    frame_claim_terms: int = 6
    frame: FrameConfig = FrameConfig()
    semantic_floor: float | None = RELEVANCE_FLOOR


# ---------------------------------------------------------------------------------------------
# Lexicons (written from general English knowledge, not from any benchmark's labels).

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself of off on once or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself yourselves one ones s t d ll m re ve lrb rrb lsb rsb
    mr mrs ms dr st also who whose may might must shall upon within via per among amongst yet
    however although though whether either still already ever even many much several various
    including include includes included known called named became become becomes""".split()
)

NEGATIONS = frozenset(
    """not no non never none nobody nothing neither nor without cannot nowhere n't lack lacks lacked
    lacking absent fail fails failed failing refuse refuses refused refusing deny denies denied
    denying reject rejects rejected rejecting unable impossible false untrue incorrect myth hoax
    debunked debunk disproved disprove refuted refute refutes retracted retract withdrawn
    withdrew unfounded baseless bogus fake wrong misleading erroneous mistaken contrary
    excluded exclude excludes omitted avoid avoids avoided avoiding""".split()
)
"""Cue words of negation, refutation and correction (stems are matched as words)."""

NEGATION_PHRASES = (
    "no evidence",
    "found no",
    "find no",
    "failed to replicate",
    "did not",
    "does not",
    "do not",
    "is not",
    "was not",
    "were not",
    "are not",
    "has not",
    "have not",
    "had not",
    "left out",
    "instead of",
    "rather than",
    "not true",
    "no longer",
    "far from",
    "yet to",
    # a bid or plan given up: what it was to do did not happen ("abandoned its bid to acquire")
    "abandoned its bid",
    "abandoned its plan",
    "abandoned its plans",
    "abandoned plans",
    "dropped its bid",
    "dropped its plan",
    "dropped its plans",
    "dropped plans",
    "scrapped its plan",
    "scrapped its plans",
    "scrapped plans",
    "withdrew its bid",
    "withdrew its offer",
)

HEDGES = frozenset(
    """may might could possibly perhaps partly partially some somewhat likely unlikely
    suggest suggests suggested suggesting appear appears appeared reportedly allegedly alleged
    estimated estimate approximately roughly about around nearly almost probably potential
    potentially uncertain unclear debated disputed controversial""".split()
)
"""Qualifier words: a sentence that covers the claim while hedging supports it only in part.
They are words, read as written: a word that merely shares a qualifier's truncation stem is no
qualifier ("reported" is not "reportedly", "like" not "likely", "potent" not "potential",
"control" not "controversial")."""

_HEDGE_RE = re.compile(
    r"\b(?:in\s+part|" + "|".join(sorted(HEDGES, key=len, reverse=True)) + r")\b"
)
"""A qualifier word of ``HEDGES``, or "in part", in a lowercased text."""

_ANTONYM_PAIRS = """increase decrease|increase decline|increase fall|increase drop|increase reduce
rise fall|rise decline|rise drop|grow shrink|grow decline|gain loss|gain lose|more less|more fewer
most least|best worst|higher lower|high low|large small|larger smaller|largest smallest|big small
bigger smaller|biggest smallest|long short|longer shorter|longest shortest|old young|older younger
oldest youngest|greatest worst|greatest least|best least|popular unpopular|old new
ancient modern|early late|earlier later|earliest latest|first last
before after|above below|warm cool|warmer cooler|warming cooling|hot cold|heat cold|wet dry
rich poor|strong weak|stronger weaker|fast slow|faster slower|easy difficult|easy hard
legal illegal|public private|always never|majority minority|male female|man woman|men women
boy girl|husband wife|father mother|son daughter|brother sister|king queen|north south
east west|northern southern|eastern western|positive negative|true false|accept reject
support oppose|success failure|successful unsuccessful|win lose|won lost|winner loser
victory defeat|include exclude|major minor|alive dead|living dead|live die|birth death
open close|opened closed|start end|begin end|began ended|beginning end|enter exit|import export
buy sell|bought sold|win loss|love hate|friend enemy|peace war|safe dangerous|safe unsafe
healthy unhealthy|possible impossible|common rare|frequent rare|often rarely|increasing decreasing
rising falling|growing declining|expand contract|expansion contraction|accelerate decelerate
accelerating slowing|thick thin|thicker thinner|deep shallow|wide narrow|heavy light|full empty
top bottom|inside outside|internal external|domestic foreign|urban rural|upper lower|maximum minimum
fiction nonfiction|comedy tragedy|sunny rainy|freeze melt|frozen melted|gained lost|winning losing
higher fewer|more fewer|better worse|good bad|superior inferior|similar different|same different
agree disagree|allow forbid|allowed banned|legalize ban|legalized banned|approve reject
approved rejected|confirm deny|confirmed denied|cause prevent|natural artificial|natural manmade
natural human|natural anthropogenic|real fake|original copy|professional amateur|remember forget
sink float|arrive depart|attack defend|guilty innocent|acquitted convicted|married divorced
pass fail|passed failed
employed unemployed|present absent|visible invisible|wealthy poor|cheap expensive|entire partial
all none|everything nothing|everyone nobody|only also|solo group|single multiple|debut final
stable increase|stable decrease|stable rise|stable fall|stable decline|stable drop|stable grow
unchanged increase|unchanged decrease|unchanged rise|unchanged fall|unchanged decline
unchanged grow"""


def regular_forms(word: str) -> frozenset[str]:
    """A word and its regular English inflections.

    -s, -es, -d, -ed, -ing (a final e dropped), -ies and -ied for a final consonant and y, a
    doubled final consonant before -ed, -ing and -er. Derivations are not forms of the word:
    "lately" is not "late", "hardly" not "hard".

    >>> sorted(regular_forms("close"))
    ['close', 'closed', 'closes', 'closing']
    >>> "lately" in regular_forms("late"), "increased" in regular_forms("increase")
    (False, True)
    """
    out = {word, word + "s", word + "es", word + "ed", word + "ing"}
    if word.endswith("e"):
        out -= {word + "es", word + "ed", word + "ing"}
        out |= {word + "d", word[:-1] + "ing"}
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        out |= {word[:-1] + "ies", word[:-1] + "ied"}
    if re.fullmatch(r"[a-z]*[^aeiou][aeiou][bdgmnprt]", word):
        out |= {word + word[-1] + "ed", word + word[-1] + "ing", word + word[-1] + "er"}
    return frozenset(out)


_UNINFLECTED_ANTONYMS = frozenset("""new old young ancient modern early late first last high low
large small big long short popular unpopular hot cold wet rich poor strong weak fast slow easy
difficult hard legal illegal public private male female north south east west northern southern
eastern western positive negative true false successful unsuccessful major minor alive dead
living safe dangerous unsafe healthy unhealthy possible impossible common rare frequent often
rarely thick deep shallow wide narrow heavy light full inside outside internal external domestic
foreign urban rural upper good bad better worse superior inferior similar different same natural
artificial manmade human anthropogenic real original professional amateur guilty innocent
present absent visible invisible wealthy cheap expensive entire partial only also solo single
multiple final stable unchanged always never above below before after""".split())
"""Words of ``_ANTONYM_PAIRS`` that are adjectives, adverbs or prepositions: their -s, -ed and
-ing forms are other words ("news" is not "new", "lasted" not "last", "presented" not
"present", "lighting" not "light", "fasting" not "fast"), so only the word itself counts."""


@lru_cache(maxsize=1)
def _antonym_forms() -> dict[str, frozenset[str]]:
    """Stem → the antonym words (``_ANTONYM_PAIRS``) of that stem and their regular forms.

    A word of ``_UNINFLECTED_ANTONYMS`` counts only as written.
    """
    out: dict[str, frozenset[str]] = {}
    for w in _ANTONYM_PAIRS.replace("|", " ").split():
        forms = frozenset({w}) if w in _UNINFLECTED_ANTONYMS else regular_forms(w)
        out[_stem(w)] = out.get(_stem(w), frozenset()) | forms
    return out


@lru_cache(maxsize=1)
def _antonyms() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for pair in _ANTONYM_PAIRS.replace("\n", "|").split("|"):
        a, b = pair.split()
        sa, sb = _stem(a), _stem(b)
        if sa == sb:
            continue
        table.setdefault(sa, set()).add(sb)
        table.setdefault(sb, set()).add(sa)
    return {k: frozenset(v) for k, v in table.items()}


FRAME_CLASSES: dict[str, frozenset[str]] = {
    "nationality": frozenset(
        """american british english scottish welsh irish canadian australian french german italian
        spanish portuguese dutch belgian swiss austrian swedish norwegian danish finnish icelandic
        russian polish czech hungarian greek turkish chinese japanese korean indian pakistani
        bangladeshi indonesian filipino thai vietnamese malaysian singaporean iranian iraqi
        israeli egyptian nigerian kenyan ethiopian brazilian argentine argentinian mexican
        chilean colombian peruvian venezuelan cuban jamaican ukrainian romanian bulgarian serbian
        croatian african european asian""".split()
    ),
    "month": frozenset(
        """january february march april june july august september october november
        december""".split()
    ),
    "ordinal": frozenset(
        """first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth
        thirteenth fourteenth fifteenth""".split()
    ),
    "weekday": frozenset("monday tuesday wednesday thursday friday saturday sunday".split()),
    "medium": frozenset(
        """film movie novel book album song painting poem opera sitcom documentary magazine
        newspaper website""".split()
    ),
    "genre": frozenset(
        """comedy drama horror thriller documentary romance western musical fantasy animated
        action rock pop jazz metal hip hop rap country folk punk blues classical reggae soul
        electronic dancehall""".split()
    ),
}
"""Closed classes of mutually exclusive values: a claim and a sentence that name different
members of one class (and the sentence not the claim's) put different values in the same
frame."""


_CANONICAL_FORMS = """film movie movies films motion-picture|writer author authors writers|
start begin began begun beginning starts started commence commenced|death die died dies dying dead|
birth born|buy bought purchase purchased|large big huge|child children kid kids childhood|
television tv|award awards prize prizes purse purses|marry married marriage wed wedded|
sell sold sells selling|
win won wins winning victory|write wrote written writes writing|become became|make made makes|
give gave given gives|take took taken takes|go went gone goes|see saw seen sees|run ran runs|
lead led leads|hold held holds|grow grew grown grows|rise rose risen rises|fall fell fallen falls|
leave left leaves|build built builds|teach taught teaches|bring brought brings|think thought|
tell told tells|speak spoke spoken speaks|sing sang sung sings|draw drew drawn draws|
fly flew flown flies|know knew known knows|choose chose chosen|eat ate eaten|meet met meets|
pay paid pays|send sent sends|spend spent spends|lose lost loses losing|shoot shot shoots|
fight fought fights|catch caught catches|keep kept keeps|feel felt feels|stand stood stands|
find found finds|establish established founded|country nation countries nations|
physician doctor|car automobile|people persons|situated located|ocean sea|global worldwide|
increase increases increased increasing|decrease decreases decreased decreasing|
approve authorise authorised authorises authorising authorisation authorisations authorize
authorized authorizes authorizing authorization authorizations"""
"""Irregular forms and near-synonyms mapped to one canonical word before stemming (general
English knowledge). ``found`` goes to ``find``; ``founded`` to ``establish``; an authorisation
is an approval (a regulator's "marketing authorisation")."""


@lru_cache(maxsize=1)
def _canonical() -> dict[str, str]:
    out: dict[str, str] = {}
    for group in _CANONICAL_FORMS.replace("\n", "").split("|"):
        words = group.split()
        for w in words[1:]:
            out[w] = words[0]
    return out


@lru_cache(maxsize=500_000)
def _base_form(word: str) -> str:
    """The word a lowercase word is read as before stemming.

    Its entry in ``_CANONICAL_FORMS``, else the base of a verb form that ``_stem`` does not
    join to it (:func:`_verb_base`), else the word.

    >>> _base_form("upheld"), _base_form("struck"), _base_form("sold"), _base_form("shed")
    ('uphold', 'strike', 'sell', 'shed')
    """
    hand = _canonical().get(word)
    return hand if hand is not None else _verb_base(word)


def _verb_base(word: str) -> str:
    """The base form of a verb form whose crude stem is not its base's ("upheld": "uphold").

    "sought" is "seek"; "covered" is "cover" (``_stem`` cuts "cover" to "cov" and "covered"
    to "cover"). Read from lemminflect's English lexicon (``getAllLemmas``; its tables come
    from the SPECIALIST Lexicon of the US National Library of Medicine). Only a form that is a
    verb and nothing else is mapped ("left", "saw", "shed" are also adjectives or nouns and
    stay as written), and only when ``_stem`` would not already join it to its base
    ("closed", "rising"); function words ("was", "had") and verbs of saying
    (``_AS_WRITTEN``), which the judge's cue lists read as written, are left alone.

    >>> _verb_base("sought"), _verb_base("covered"), _verb_base("closed")
    ('seek', 'cover', 'closed')
    """
    if len(word) < 3 or not word.isalpha() or word in STOPWORDS or word in _AS_WRITTEN:
        return word
    lemmas = getAllLemmas(word)
    verbs = lemmas.get("VERB")
    if not verbs or len(lemmas) != 1:
        return word
    base = verbs[0]
    if base in STOPWORDS or not base.isalpha() or _stem(base) == _stem(word):
        return word
    return base


_AS_WRITTEN = frozenset({"said"})
"""Verb forms read as written: "said" is a verb of saying in the judge's light-verb and
attribution lists (``judge_frame._LIGHT_VERBS``); its base "say" is listed beside it."""


NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12,
    "twice": 2, "half": 0.5, "a": 1,
}  # fmt: skip
SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "k": 1e3, "m": 1e6,
          "bn": 1e9}  # fmt: skip
UNIT_ALIASES = {
    "%": "percent", "percent": "percent", "per cent": "percent", "pct": "percent",
    "percentage points": "percent",
    "°c": "degC", "degrees celsius": "degC", "celsius": "degC", "°f": "degF",
    "fahrenheit": "degF",
    "degrees": "deg", "degree": "deg", "°": "deg",
    "km": "km", "kilometres": "km", "kilometers": "km", "kilometre": "km", "kilometer": "km",
    "miles": "mile", "mile": "mile", "m": "metre", "metres": "metre", "meters": "metre",
    "metre": "metre", "meter": "metre", "cm": "cm", "mm": "mm", "feet": "foot", "ft": "foot",
    "foot": "foot", "inches": "inch", "inch": "inch",
    "kg": "kg", "kilograms": "kg", "tonnes": "tonne", "tons": "tonne", "tonne": "tonne",
    "ton": "tonne", "kt": "kilotonne", "kilotonnes": "kilotonne", "kilotons": "kilotonne",
    "megatonnes": "megatonne", "megatons": "megatonne", "gt": "gigatonne",
    "gigatonnes": "gigatonne", "gigatons": "gigatonne",
    "ppm": "ppm", "parts per million": "ppm", "ppb": "ppb",
    "years": "year_span", "year": "year_span", "yr": "year_span", "months": "month_span",
    "month": "month_span", "weeks": "week_span", "week": "week_span", "days": "day_span",
    "day": "day_span", "hours": "hour_span", "hour": "hour_span", "minutes": "minute_span",
    "seasons": "season", "season": "season", "episodes": "episode", "episode": "episode",
    "albums": "album", "album": "album", "films": "film", "film": "film", "goals": "goal",
    "people": "person", "persons": "person", "person": "person", "deaths": "death",
    "death": "death", "votes": "vote",
    "$": "usd", "us$": "usd", "usd": "usd", "dollars": "usd", "dollar": "usd",
    "us dollars": "usd", "u.s. dollars": "usd", "pounds sterling": "gbp", "sterling": "gbp",
    "canadian dollars": "cad", "c$": "cad", "australian dollars": "aud", "a$": "aud",
    "hong kong dollars": "hkd", "hk$": "hkd", "yen": "jpy", "¥": "jpy", "yuan": "cny",
    "renminbi": "cny", "rupees": "inr", "rupee": "inr", "₹": "inr", "swiss francs": "chf",
    "francs": "chf", "kronor": "sek", "krona": "sek", "kroner": "nok", "roubles": "rub",
    "rubles": "rub", "€": "eur", "sek": "sek", "nok": "nok", "dkk": "dkk", "chf": "chf",
    "cad": "cad", "aud": "aud", "jpy": "jpy", "cny": "cny", "inr": "inr", "hkd": "hkd",
    "danish kroner": "dkk",
    "euros": "eur", "euro": "eur", "eur": "eur", "gbp": "gbp", "£": "gbp", "pounds": "gbp",
    "cents": "cent", "cent": "cent", "w/m2": "w_m2",
    "watts per square meter": "w_m2", "watts per square metre": "w_m2", "watts": "watt",
    "watt": "watt", "mw": "mw", "gw": "gw", "kwh": "kwh",
    "mwh": "mwh", "gwh": "gwh", "twh": "twh", "kilowatt hours": "kwh",
    "megawatt hours": "mwh", "gigawatt hours": "gwh", "terawatt hours": "twh",
    "km/h": "kmh", "kmh": "kmh", "kph": "kmh", "kilometres per hour": "kmh",
    "kilometers per hour": "kmh", "mph": "mph", "miles per hour": "mph",
    "litres": "litre", "litre": "litre", "liters": "litre", "liter": "litre",
    "megalitres": "megalitre", "megalitre": "megalitre", "megaliters": "megalitre",
    "megaliter": "megalitre", "gallons": "gallon", "gallon": "gallon",
    "m2": "m2", "sq m": "m2", "sqm": "m2", "square metres": "m2", "square meters": "m2",
    "square metre": "m2", "square meter": "m2", "km2": "km2", "sq km": "km2",
    "square kilometres": "km2", "square kilometers": "km2", "hectares": "hectare",
    "hectare": "hectare", "ha": "hectare", "acres": "acre", "acre": "acre",
    "m3": "m3", "cubic metres": "m3", "cubic meters": "m3", "cubic metre": "m3",
    "cubic meter": "m3",
}  # fmt: skip
"""Units kept with a figure; keys are matched lowercase right after (or, for currency symbols,
right before) the number."""

MONEY_UNITS = frozenset("usd eur gbp cad aud hkd jpy cny inr chf sek nok dkk rub".split())
"""Currencies (``UNIT_ALIASES``' values for sums of money)."""
MEASURED_UNITS = MONEY_UNITS | frozenset(
    """cent percent km mile metre cm mm foot inch kg tonne gigatonne ppm ppb degC
    degF deg w_m2 watt mw gw kwh kmh mph litre gallon m2""".split()
)
"""Units of measured quantities (money, shares, physical units), as opposed to counts of
things ("films", "votes") and spans of time."""

HEDGED_FIGURE_WORDS = frozenset(
    "about around approximately roughly nearly almost some over more than less under up to".split()
)


# ---------------------------------------------------------------------------------------------
# Text normalisation.


_COMBINING_RE = re.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")
_PUNCT_FOLD = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"',
                             "\u2013": "-", "\u2014": "-", "\u00a0": " "})


def _fold(text: str) -> str:
    """Lowercase, strip accents and unify quotes and dashes (offsets are not kept)."""
    if text.isascii():
        return text.lower()
    text = _COMBINING_RE.sub("", unicodedata.normalize("NFKD", text))
    return text.lower().translate(_PUNCT_FOLD)


_SUFFIXES = (
    "ational", "ization", "iveness", "fulness", "ousness", "ically", "ations", "ation", "ments",
    "ment", "ness", "ings", "ing", "edly", "ies", "ied", "ers", "er", "ed", "es", "ly", "s",
)  # fmt: skip


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    """Reduce a lowercase word to a crude stem: strip one common suffix, keep 6 characters.

    Truncation stemming (a fixed prefix after suffix stripping) is a known strong baseline for
    English IR; it is used here because it is fast and needs no lexicon.

    >>> _stem("modelled") == _stem("model"), _stem("increasing") == _stem("increases")
    (True, True)
    """
    return _unsuffixed(word)[:6]


def _unsuffixed(word: str) -> str:
    """A lowercase word with one common suffix stripped, not yet cut to a stem (:func:`_stem`)."""
    if len(word) <= 3 or word.startswith("#"):
        return word
    for suf in _SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 3:
            word = word[: -len(suf)]
            if suf in ("ies", "ied"):
                word += "y"
            break
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "aeiousl":
        word = word[:-1]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if word.endswith("ll") and len(word) > 4:
        word = word[:-1]
    return word


@dataclass(frozen=True, slots=True)
class Figure:
    """A number found in a text, normalised.

    Attributes:
        value: The number as a float (``"8%"`` → 8.0, ``"eight"`` → 8.0, ``"1,200"`` → 1200.0,
            ``"3.5 million"`` → 3500000.0).
        unit: Normalised unit (``"percent"``, ``"metre"``, ``"usd"``...), ``"year"`` for a bare
            four-digit year between 1000 and 2100, or ``None``.
        start: Start offset of the figure in the text it was found in (characters).
        end: End offset, exclusive.
        is_hedged: Whether an approximation word precedes it ("about", "more than", ...).
        written: The number as written when ``value`` is converted to another unit ("nine
            weeks" is 63 days: 9.0), else None. How round a figure is, is read on it.
    """

    value: float
    unit: str | None
    start: int
    end: int
    is_hedged: bool = False
    written: float | None = None

    @property
    def token(self) -> str:
        """Canonical token of the value, e.g. ``"#8"`` for 8, 8.0 and eight."""
        v = self.value
        return f"#{int(v)}" if v == int(v) else f"#{v:g}"


_CUR_RE = (
    r"(?:(?P<cur>(?:us|c|a|hk)\$|\$|€|£|¥|₹|(?:eur|usd|gbp|sek|nok|dkk|chf|cad|aud|jpy|cny|inr|"
    r"hkd)(?=\s?\d))\s?)?"
)
_PREFIX_SYMBOLS = frozenset({"$", "us$", "c$", "a$", "hk$", "€", "£", "¥", "₹"})
"""Currency symbols written before a number only ("¥42 million", "C$3m")."""
_UNIT_ALT = "|".join(
    re.escape(u).replace(r"\ ", r"[\s-]")  # "terawatt hours" and "terawatt-hours"
    for u in sorted((u for u in UNIT_ALIASES if u not in _PREFIX_SYMBOLS), key=len, reverse=True)
)
_NUM_WORD_ALT = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
_TENS = frozenset(("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"))
_ONES_ALT = "one|two|three|four|five|six|seven|eight|nine"
_COMPOUND_NUMBER_RE = re.compile(rf"\b({'|'.join(sorted(_TENS))})-({_ONES_ALT})\b")
"""A number written as a hyphenated tens-and-ones compound ("thirty-seven"), read as one
number (English orthography)."""
_NAME_NUMBER_GUARD = r"(?:(?<![a-z\d])(?<![a-z]-)(?<!\d[.,])|(?<=\bmid-)|(?<=\bpre-)|(?<=\bpost-))"
"""A number glued to letters ("CO2", "H2O") or joined to a word by a hyphen ("COVID-19",
"SARS-CoV-2", "F-16") is part of a name, not a figure: "19 counties" states nothing about
COVID-19, nor "two proteins" about SARS-CoV-2. A year after "mid-", "pre-" or "post-" is still a
time frame ("mid-2020")."""
_FIGURE_RE = re.compile(
    # The look-ahead lets the engine skip positions that cannot start a figure (4x faster).
    r"(?=[\d$€£¥₹" + "".join(sorted({w[0] for w in NUMBER_WORDS} | {"g"})) + "uach])"
    + _CUR_RE
    + r"(?:" + _NAME_NUMBER_GUARD
    + r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:[ \u00a0\u202f\u2009]\d{3})+(?!\d)"
    r"(?:\.\d+)?|\d+(?:\.\d+)?)(?:st|nd|rd|th)?"
    rf"|\b(?P<word>{_NUM_WORD_ALT})\b(?:-(?P<ones>{_ONES_ALT})\b)?)"
    r"(?P<half>\s+and\s+a\s+half\b)?"
    r"(?:(?P<k>k)\b|[\s-]?(?P<scale>thousand|million|billion|trillion|bn)\b)?"
    rf"(?:[\s-]?(?P<unit>%|°c|°f|°|(?:{_UNIT_ALT})\b(?!-)))?",
)
# Thousands are grouped by commas ("14,862") or, as SI and much of Europe write them, by a
# space, a no-break space or a thin space ("14 862", "1 148"): one number either way.
_DIGIT_FIGURE_RE = re.compile(
    r"(?=[\d$€£¥₹eguach])" + _CUR_RE
    + _NAME_NUMBER_GUARD + r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|"
    r"\d{1,3}(?:[ \u00a0\u202f\u2009]\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?)(?:st|nd|rd|th)?"
    r"(?:(?P<k>k)\b|[\s-]?(?P<scale>thousand|million|billion|trillion|bn)\b)?"
    rf"(?:[\s-]?(?P<unit>%|°c|°f|°|(?:{_UNIT_ALT})\b(?!-)))?",
)
"""Figures written with digits only (a digit glued to letters, as in "CO2" or "H2O", is part of
a name, not a figure): the fast pass used on every sentence of a document (number
words are read as terms there, and as figures on the selected sentence)."""
_HEDGE_BEFORE_RE = re.compile(
    r"(?:about|around|approximately|roughly|nearly|almost|some|over|more than|less than|under|"
    r"up to|at least|at most)\s*$"
)


_PARTICLE_OVER_RE = re.compile(
    r"\b(?:hand|turn|t[ao]ok|taken|tak|sign|paid|pay|carr|pass|won|win|mov|went|go|came|"
    r"come|bought|buy|switch|chang|got|get|made|mak|h[ae]ld|hold)\w*\s+over\s*$"
)


def over_is_particle(before: str) -> bool:
    """Whether the "over" that ends ``before`` (text before a figure) belongs to a verb.

    "handed over 1,146 homes", "took over 40 shops": the verb's particle, not "more than".

    >>> over_is_particle("the firm handed over "), over_is_particle("it sold over ")
    (True, False)
    """
    return bool(_PARTICLE_OVER_RE.search(before))


_PEOPLE_NEXT_RE = re.compile(
    r"\s+(?:[a-z]+[- ])?(?:people|persons|participants|patients|residents|workers|employees|"
    r"staff|members|students|pupils|children|adults|volunteers|passengers|visitors|households|"
    r"families|homes|houses|dwellings|flats|apartments|jobs|beds|vehicles|cars|buses)\b"
)
"""After "1850": people or things counted ("1850 participants", "1200 new homes"), so the
figure is a count, not a year (general English: a year modifies such a noun only after a
determiner or a preposition, ``_YEAR_BEFORE_RE``)."""

_YEAR_BEFORE_RE = re.compile(
    r"\b(?:in|of|the|its|their|his|her|our|since|by|from|until|till|to|during|for|between|"
    r"and|on|at|before|after|year|fy)\s+$|['’]s\s+$"
)
"""Before "2019 residents": a word after which a four-digit figure is a year ("the 2019
residents' survey", "in 2019 patients waited")."""

_PLURAL_NEXT_RE = re.compile(
    r"\s+(?!(?:to|tall|high|long|wide|deep|above|below|from|away|across|apart|of|by|x)\b)"
    r"[a-z]"
)
"""After "3.8m": a word that is not a length context ("to blade tip", "tall", "above")."""


SCALED_UNITS = {"mm": ("metre", 1e-3), "cm": ("metre", 1e-2), "km": ("metre", 1e3),
                "mwh": ("kwh", 1e3), "gwh": ("kwh", 1e6), "twh": ("kwh", 1e9),
                "megalitre": ("litre", 1e6), "mph": ("kmh", 1.609344),
                "kilotonne": ("tonne", 1e3), "megatonne": ("tonne", 1e6),
                "km2": ("m2", 1e6), "hectare": ("m2", 1e4), "acre": ("m2", 4046.8564224),
                "m3": ("litre", 1e3)}
"""Units read in another by their factor (SI prefixes; 1 mile = 1.609344 km and 1 acre =
4,046.8564224 m² by definition; 1 ha = 10,000 m²; 1 m³ = 1,000 litres; 1 kt = 1,000
tonnes, 1 Mt = 1,000,000 tonnes, written out only: "Mt" is also "mount" and "mt" a metric ton): one
quantity, whichever way it is written: "212mm" is "21.2 cm", "1,200 GWh" is "1.2 TWh", "142
megalitres" is "142 million litres", "94 mph" is "151 km/h", "4.2 ha" is "42,000 m²"."""

SPAN_UNITS = {"hour_span": ("day_span", 1 / 24), "week_span": ("day_span", 7.0),
              "month_span": ("year_span", 1 / 12)}
"""Spans of time read in days or years (calendar definitions): "a 48-hour stoppage" lasts two
days, "two weeks" are 14 days, "18 months" are 1.5 years. Minutes stay minutes (their values in
days would be unreadable), and days are not years (months differ in length)."""


def normalize_figures(text: str, *, number_words: bool = True) -> list[Figure]:
    """Find the figures of a text and normalise their value and unit.

    Digits, decimals, thousands separators, ordinals ("26th"), number words ("eight", "twelve
    million") and the unit that follows (or the currency symbol that precedes) are read; the
    unit is kept, so ``8%`` equals ``8 percent`` and ``eight per cent`` but not ``8 km``.

    Args:
        text: Any text.
        number_words: Also read number words ("eight", "twelve million"); ``False`` reads
            digits only (about four times faster).

    Returns:
        The figures in order of appearance; offsets are character offsets in ``text``.

    >>> [(f.value, f.unit) for f in normalize_figures("8%, 8.0 percent, eight per cent, 8 km")]
    [(8.0, 'percent'), (8.0, 'percent'), (8.0, 'percent'), (8000.0, 'metre')]
    """
    low = text.lower()
    out: list[Figure] = []
    pattern = _FIGURE_RE if number_words else _DIGIT_FIGURE_RE
    matches = list(pattern.finditer(low))
    runs = _spelled_runs(low) if number_words else {}
    k = 0
    while k < len(matches):
        m = matches[k]
        k += 1
        start = m.start()
        num, word = m.group("num"), m.groupdict().get("word")
        spelled = runs.get(start)
        if spelled is not None:
            # "eighteen thousand five hundred pounds", "two dozen": one number, read whole;
            # the unit is the one after its last word
            end, whole = spelled
            while k < len(matches) and matches[k].start() < end:
                m = matches[k]
                k += 1
            value = whole
        elif num is not None:
            value = float(re.sub(r"[,\s]", "", num))
        elif word is not None:
            if word == "a" and not m.group("scale"):
                continue  # "a" counts only before a scale ("a thousand")
            if word in ("one", "half") and not (m.group("unit") or m.group("scale")):
                continue  # too ambiguous as words ("one of", "second album", "half of")
            value = float(NUMBER_WORDS[word])
            if (ones := m.group("ones")) and word in _TENS:
                value += NUMBER_WORDS[ones]  # "thirty-seven"
        else:
            continue
        if spelled is not None:
            pass  # its words' scales are in its value
        elif m.groupdict().get("half"):
            value += 0.5
        if spelled is not None:
            pass
        elif m.group("scale"):
            value *= SCALES[m.group("scale")]
        elif m.group("k"):
            value *= 1e3
        unit = None
        written = None
        raw_unit = m.group("unit")
        if raw_unit == "m" and not m.group("scale") and (
            m.group("cur")
            or (
                num is not None
                and "." in num
                and low[m.end() - 2] != " "
                and _PLURAL_NEXT_RE.match(low, m.end())
            )
        ):
            # "€57m", "EUR 3.2m", "3.8m passengers": m is million after money, or after a
            # decimal written against it and before a noun; "180m", "149.9m to blade tip"
            # and "57 m" stay metres.
            value *= 1e6
            raw_unit = None
        if m.group("cur"):
            unit = UNIT_ALIASES[m.group("cur")]
        elif raw_unit:
            unit = UNIT_ALIASES.get(re.sub(r"[\s-]+", " ", raw_unit.strip()))
            if unit in SCALED_UNITS:
                unit, factor = SCALED_UNITS[unit]
                value *= factor
            elif unit in SPAN_UNITS:
                unit, factor = SPAN_UNITS[unit]
                written = value
                value *= factor  # "a 48-hour stoppage" lasts two days
        if unit is None and num is not None and "." not in num and "," not in num:
            if len(num) == 4 and 1000 <= value <= 2100 and not (
                _PEOPLE_NEXT_RE.match(low, m.end())
                and not _YEAR_BEFORE_RE.search(low[max(0, start - 12) : start])
            ):
                unit = "year"
        if not math.isfinite(value):
            # hundreds of digits: past a float's range (~1.8e308); still a figure, larger than
            # any other (a claim of 10^400 dollars is not one of 42 million)
            value = sys.float_info.max
        hedged = bool(_HEDGE_BEFORE_RE.search(low[max(0, start - 16) : start])) and not (
            over_is_particle(low[max(0, start - 30) : start])
        )
        out.append(Figure(value, unit, start, m.end(), hedged, written))
    return out


_SPELLED_HINT_RE = re.compile(
    r"\b(?:hundred|thousand|million|billion|trillion|dozen|twenty|thirty|forty|fifty|sixty|"
    r"seventy|eighty|ninety|point)\b"
)
"""Words without which a text writes out no number of several words (a fast pre-check)."""
_SPELLED_WORD = "(?:" + "|".join(sorted(
    [w for w in NUMBER_WORDS if w not in ("a", "half", "twice")]
    + ["thousand", "million", "billion", "trillion"], key=len, reverse=True,
)) + ")"
_DIGIT_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_SPELLED_RUN_RE = re.compile(
    rf"\b(?:an?\s+)?{_SPELLED_WORD}(?:(?:[\s-]+|\s+and\s+)(?!a\b){_SPELLED_WORD}\b)*"
    rf"(?:\s+point(?:\s+(?:{'|'.join(_DIGIT_WORDS)})\b)+"
    r"(?:\s+(?:thousand|million|billion|trillion)\b)?"
    rf"|(?:(?:[\s-]+|\s+and\s+)(?!a\b){_SPELLED_WORD}\b)+)"
)
"""Two or more number words in a row ("eighteen thousand five hundred", "a hundred and fifty",
"two dozen", "four point two million"): candidates for one number written out."""


def _spelled_runs(low: str) -> dict[int, tuple[int, float]]:
    """Numbers written out in several words, as {start: (end, value)} (offsets in ``low``).

    The words are read by ``text2num`` (English); a run it does not read as one number ("two
    three", "twice one") is left to the single-word reading. "dozen" multiplies what precedes
    it ("two dozen" is 24), and a leading "a" is one ("a hundred and fifty").

    >>> _spelled_runs("fined eighteen thousand five hundred pounds")
    {6: (36, 18500.0)}
    >>> _spelled_runs("two dozen satellites and three hundred jobs")
    {0: (9, 24.0), 25: (38, 300.0)}
    >>> _spelled_runs("four point two million viewers")
    {0: (22, 4200000.0)}
    """
    from text_to_num import text2num

    out: dict[int, tuple[int, float]] = {}
    for r in _SPELLED_RUN_RE.finditer(low):
        words = re.sub(r"^an?\s+", "one ", r.group(0))
        words = " ".join(words.replace("-", " ").split())
        if " point " in words:
            # "four point two million": whole part, then one digit word per decimal place
            whole, _, rest = words.partition(" point ")
            decimals = rest.split()
            scale = SCALES.get(decimals[-1], 1.0)
            decimals = [w for w in decimals if w in _DIGIT_WORDS]
            try:
                value = float(text2num(whole, "en"))
            except ValueError:
                continue
            frac = "".join(str(_DIGIT_WORDS.index(w)) for w in decimals)
            out[r.start()] = (r.end(), (value + float("0." + frac)) * scale)
            continue
        factor = 1.0
        if words.endswith(" dozen"):
            words, factor = words[: -len(" dozen")], 12.0
        if "dozen" in words.split():
            continue  # "two dozen three": not one number
        try:
            value = float(text2num(words, "en")) * factor
        except ValueError:
            continue
        out[r.start()] = (r.end(), value)
    return out


_WORD_RE = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|n't")
_HAS_DIGIT_RE = re.compile(r"\d")
_WORD_CHAR_RE = re.compile(r"\w")
_TERM_NUMBERS = {w: v for w, v in NUMBER_WORDS.items() if w not in ("one", "half", "a")}


def tokenize(text: str) -> list[str]:
    """Split a text into normalised terms: folded, stemmed words and figure tokens.

    Figures become a value token (``"#8"``) followed by their unit; stopwords are kept (callers
    filter them) so that phrases can be matched.

    Args:
        text: Any text.

    Returns:
        Terms in order. The same function builds the keys of :func:`compute_idf`.

    >>> tokenize("Sales rose 8% in 2019") == tokenize("sales rising eight percent in 2019")
    True
    """
    return _terms_and_figures(_fold(text))[0]


_PHRASES = {
    "carbon dioxide": "co2", "co 2": "co2", "co₂": "co2", "methane": "ch4",
    "united states": "usa", "u.s.": "usa", "u.s.a.": "usa", "united kingdom": "uk",
    "u.k.": "uk", "european union": "eu", "united nations": "un", "u.n.": "un",
    "per cent": "percent",
}  # fmt: skip
"""Multi-word names and their abbreviations read as one term (general knowledge)."""
_PHRASE_RE = re.compile(
    r"(?=[" + "".join(sorted({p[0] for p in _PHRASES})) + r"])(?<![\w.])(?:"
    + "|".join(re.escape(p) for p in sorted(_PHRASES, key=len, reverse=True))
    + r")(?![\w])"
)


def _terms_and_figures(folded: str) -> tuple[list[str], list[Figure]]:
    """Terms (as :func:`tokenize`) and digit figures of an already folded text."""
    if "." in folded or " " in folded:
        folded = _PHRASE_RE.sub(lambda m: _PHRASES[m.group(0)], folded)
    if _SPELLED_HINT_RE.search(folded):
        for start, (end, value) in sorted(_spelled_runs(folded).items(), reverse=True):
            # "eighteen thousand five hundred" is the term of 18500, as "£18,500" is
            digits = str(int(value)) if value == int(value) else str(value)
            folded = folded[:start] + digits + folded[end:]
    if "-" in folded:
        folded = _COMPOUND_NUMBER_RE.sub(
            lambda m: str(int(NUMBER_WORDS[m.group(1)] + NUMBER_WORDS[m.group(2)])), folded
        )  # "thirty-seven" is the term of 37
    figures = normalize_figures(folded, number_words=False) if _HAS_DIGIT_RE.search(folded) else []
    parts: list[str] = []
    pos = 0
    for f in figures:
        parts.extend(_words(folded[pos : f.start]))
        parts.append(f.token)
        if f.unit and f.unit != "year":
            parts.append(_stem(f.unit))
        pos = f.end
    parts.extend(_words(folded[pos:]))
    return parts, figures


@lru_cache(maxsize=1)
def tokenizer_version() -> str:
    """A short hash of what :func:`tokenize` does: this module's source and lexicon's version.

    Term weights a home keeps (document frequencies, IDF) are keyed by it, so that a changed
    tokenizer (a suffix, a canonical form, a figure's token, another release of lemminflect,
    whose lexicon gives verb forms their base) starts them afresh. It changes with any change
    to the module, which costs one re-count of the archive's terms.

    Returns:
        12 hexadecimal digits.
    """
    from hashlib import sha1
    from importlib.metadata import version
    from pathlib import Path

    lexicon = f"lemminflect {version('lemminflect')}".encode()
    return sha1(Path(__file__).read_bytes() + lexicon).hexdigest()[:12]


def _words(chunk: str) -> list[str]:
    return [t for w in _WORD_RE.findall(chunk) for t in _term(w)]


@lru_cache(maxsize=500_000)
def _term(w: str) -> tuple[str, ...]:
    if w.endswith("'s"):
        w = w[:-2]
    elif w.endswith("n't"):
        return (w[:-3] or w, "not")
    if w.isdigit():
        return ("#" + str(int(w)),)
    if w in _TERM_NUMBERS:
        v = _TERM_NUMBERS[w]
        return (f"#{int(v)}" if v == int(v) else f"#{v:g}",)
    return (_stem(_base_form(w)),)


@lru_cache(maxsize=1)
def _stem_sets() -> tuple[frozenset[str], frozenset[str]]:
    stop = frozenset(_stem(w) for w in STOPWORDS) | STOPWORDS
    neg = frozenset(_stem(w) for w in NEGATIONS) | {"not"}
    return stop - neg, neg


_NOT_RE = re.compile(r"\bnot\b|n't\b|n’t\b")


def _said_negations(folded: str, terms: Sequence[str]) -> frozenset[str]:
    """The negation cue terms (``_stem_sets``) that a text holds as negation words.

    Cues are words of ``NEGATIONS``: a term that only shares a cue's truncation stem stands
    for another word ("contract" and "contrast" truncate as "contrary" does) and negates
    nothing.

    >>> text = "a contract that is not signed"
    >>> sorted(_said_negations(text, tokenize(text)))
    ['not']
    >>> text = "the contract, the report noted, was signed"
    >>> sorted(_said_negations(text, tokenize(text)))
    []
    """
    neg = _stem_sets()[1]
    out: set[str] = set()
    if "not" in terms and _NOT_RE.search(folded):
        out.add("not")  # "not", "n't"; "noted" and "notes" truncate to "not" as well
    for w in _WORD_RE.findall(folded):
        if w in NEGATIONS or _base_form(w) in NEGATIONS:
            out.add(_stem(_base_form(w)))
    return frozenset(out) & (neg | {"not"})


@lru_cache(maxsize=1)
def _frame_members() -> dict[str, str]:
    return {_stem(w): cls for cls, words in FRAME_CLASSES.items() for w in words}


@lru_cache(maxsize=1)
def _frame_classes() -> dict[str, frozenset[str]]:
    return {cls: frozenset(_stem(w) for w in words) for cls, words in FRAME_CLASSES.items()}


@lru_cache(maxsize=1)
def _frame_words() -> dict[str, frozenset[str]]:
    """The words of ``FRAME_CLASSES`` and their regular forms ("films"), by stem."""
    out: dict[str, set[str]] = {}
    for words in FRAME_CLASSES.values():
        for w in words:
            for f in regular_forms(w):
                out.setdefault(_stem(f), set()).add(f)
    return {t: frozenset(fs) for t, fs in out.items()}


def _frame_terms(folded: str) -> frozenset[str]:
    """Terms of a folded text that a word of ``FRAME_CLASSES`` spells, or begins.

    A word that only shares a member's truncation stem is another word: "electricity" is not
    the genre "electronic". One that a member begins with, or that begins with a member, is
    that member's ("Australia" of "Australian").

    >>> sorted(_frame_terms("a western film about electricity in australia"))
    ['austra', 'film', 'wester']
    """
    words = _frame_words()
    out = set()
    for w in _WORD_RE.findall(folded):
        t = _stem(w)
        if any(m.startswith(w) or w.startswith(m) for m in words.get(t, ())):
            out.add(t)
    return frozenset(out)


def compute_idf(texts: Iterable[str]) -> dict[str, float]:
    """Compute smoothed inverse document frequencies of the terms of some texts.

    ``idf(t) = ln((N + 1) / (df(t) + 1)) + 1`` (the smoothed form used by scikit-learn), where N
    is the number of texts. Keys are the terms of :func:`tokenize`.

    Args:
        texts: Documents (or sentences) of a corpus; any iterable, consumed once.

    Returns:
        Mapping term → IDF; the special key ``""`` holds the IDF of an unseen term
        (``ln(N + 1) + 1``).

    >>> idf = compute_idf(["the cat sat", "the dog sat", "the bird flew"])
    >>> idf["the"] < idf["cat"], round(idf[""], 3)
    (True, 2.386)
    """
    df: Counter[str] = Counter()
    n = 0
    for text in texts:
        n += 1
        df.update(set(tokenize(text)))
    idf = {t: math.log((n + 1) / (c + 1)) + 1.0 for t, c in df.items()}
    idf[""] = math.log(n + 1) + 1.0
    return idf


# ---------------------------------------------------------------------------------------------
# Sentences.

_ABBREV = frozenset(
    """mr mrs ms dr prof sr jr st vs etc inc ltd co corp gen col lt sgt capt gov sen rep rev
    no nos vol fig al approx dept est jan feb mar apr jun jul aug sep sept oct nov dec u.s e.g
    i.e""".split()
)
_BOUNDARY_RE = re.compile(r"(?<=[.!?])([\"'\u201d\u2019)\]]*)\s+")

_WRAPPED_END = re.compile(r"[.!?:;…][\"'”’)\]]*\s*$")
"""A line that ends a sentence or a clause list: the next line starts a new one."""


_WRAPPED_FIGURE_RE = re.compile(r"\d+(?:[,.]\d+)*(?![.)](?:\s|$))")
"""A line opening with a figure ("8 million", "2,400 jobs"), not with a numbered item ("1. ",
"2) ")."""
_LAST_WORD_RE = re.compile(r"([a-z]+),?\s*$")


_BEFORE_A_FIGURE = frozenset(
    """a an the of to by from with than about around nearly almost approximately roughly some
    at is are was were be been its their his her our cost costs reached totalled totaled""".split()
)
"""Words that need what follows them (an article, a preposition, a copula, a verb of amount):
a line ending in one cannot end a sentence or a headline. Prepositions that end headlines
("marches on", "and more", "line-up", "six-for") are left out; on WiCE's web articles the
wider stopword list joined headline-and-date pairs ("... line-up | 20 Aug 2019")."""


def _ends_in_function_word(line: str) -> bool:
    """Whether a line ends in a word of ``_BEFORE_A_FIGURE`` ("a budget of", "cost about")."""
    m = _LAST_WORD_RE.search(line)
    return bool(m) and m.group(1) in _BEFORE_A_FIGURE


_WRAP_MIN_WORDS = 5
"""Words a line needs before a figure on the next line continues it: a shorter line ending in
a lowercase word is usually a heading ("Results", "Key figures"). Convention."""


def logical_lines(text: str) -> list[tuple[int, int]]:
    r"""Spans of the text's lines, with hard-wrapped sentences joined.

    Plain-text feeds and e-mail wrap paragraphs at a fixed width ("So when The New York Times
    writes a hit\npiece which is ..."). A single line break joins two lines into one when the
    first does not end a sentence (terminal punctuation, a colon or a semicolon) and the
    second starts with a lowercase letter: it continues the sentence. It also joins a second
    line that opens with a figure ("a budget of\n12 million dollars") after a first line of at
    least ``_WRAP_MIN_WORDS`` words that ends in a word needing what follows (``_BEFORE_A_FIGURE``:
    "of", "the", "about", "cost" ...); a numbered item
    ("1. Build ...", "2) Repair ...") is not a figure. A blank line, a line ending a sentence,
    or a next line opening with a capital or a bullet stays a boundary (headlines, list items
    and paragraphs are kept apart).

    >>> t = "Trump began his usual tirade\nagainst the press.\nNext line"
    >>> [t[a:b] for a, b in logical_lines(t)]
    ['Trump began his usual tirade\nagainst the press.', 'Next line']
    >>> t = "The council approved a budget of\n12 million dollars.\nPlans:\n1. Build it"
    >>> [t[a:b] for a, b in logical_lines(t)]
    ['The council approved a budget of\n12 million dollars.', 'Plans:', '1. Build it']
    """
    lines = [m.span() for m in re.finditer(r"[^\n\r]+", text)]
    out: list[tuple[int, int]] = []
    for ls, le in lines:
        if out:
            ps, pe = out[-1]
            gap = text[pe:ls]
            first = text[ls:le].lstrip()[:1]
            prev = text[ps:pe]
            if (
                gap.count("\n") + gap.count("\r") - gap.count("\r\n") == 1
                and not _WRAPPED_END.search(prev)
                and (
                    first.islower()
                    or (
                        first.isdigit()
                        and _WRAPPED_FIGURE_RE.match(text, ls + len(text[ls:le])
                                                     - len(text[ls:le].lstrip()))
                        and _ends_in_function_word(prev)
                        and len(prev.split()) >= _WRAP_MIN_WORDS
                    )
                )
            ):
                out[-1] = (ps, le)
                continue
        out.append((ls, le))
    return out


def split_sentences(text: str) -> list[tuple[int, int]]:
    r"""Split a text into sentences and return their character spans in the original text.

    Lines are boundaries, except a single line break inside a hard-wrapped sentence
    (:func:`logical_lines`). Inside a line, a boundary is sentence-final punctuation followed by
    whitespace (not after a known abbreviation, an initial or a number followed by a lowercase
    word). Spans exclude the surrounding whitespace; empty pieces are dropped.

    Args:
        text: The document text as stored.

    Returns:
        ``(start, end)`` offsets (end exclusive) with ``text[start:end]`` the sentence as written,
        in order and non-overlapping.

    >>> t = "Dr. Smith came. It rained!\nThen sun."
    >>> [t[a:b] for a, b in split_sentences(t)]
    ['Dr. Smith came.', 'It rained!', 'Then sun.']
    >>> t = "Revenue grew 18 percent in the\nthird quarter, the filing said.\nHeadline"
    >>> [t[a:b] for a, b in split_sentences(t)]
    ['Revenue grew 18 percent in the\nthird quarter, the filing said.', 'Headline']
    """
    spans: list[tuple[int, int]] = []
    for ls, le in logical_lines(text):
        start = ls
        for m in _BOUNDARY_RE.finditer(text, ls, le):
            cut = m.end(1)
            # Look at the word before the punctuation and the character after the gap.
            j = cut - 1
            while j >= ls and text[j] in "\"'\u201d\u2019)]":
                j -= 1
            k = j - 1
            while k >= ls and not text[k].isspace():
                k -= 1
            prev = text[k + 1 : j].lower().rstrip(".")
            nxt = text[m.end()] if m.end() < le else ""
            if text[j] == "." and (
                prev in _ABBREV or (len(prev) == 1 and prev.isalpha()) or (nxt and nxt.islower())
            ):
                continue
            _add_span(text, start, cut, spans)
            start = m.end()
        _add_span(text, start, le, spans)
    return spans


def _add_span(text: str, a: int, b: int, spans: list[tuple[int, int]]) -> None:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    if b > a:
        spans.append((a, b))


# ---------------------------------------------------------------------------------------------
# The judge.


@dataclass(slots=True)
class _Doc:
    spans: list[tuple[int, int]]
    terms: list[list[str]]
    sets: list[frozenset[str]]
    folded: list[str]
    frames: object | None = None  # judge_frame.DocFrames, read when an article is judged


@dataclass(slots=True)
class _Claim:
    terms: list[str]
    content: dict[str, float]  # content term -> weight
    total: float
    neg: int
    figures: list[Figure]
    hedged: bool
    folded: str
    subject: frozenset[str]
    subject_words: tuple[str, ...]
    alternatives: dict[str, frozenset[str]]  # content term -> its antonyms and frame mates
    negated: bool = False  # negated by a particle outside its names ("is not", "never")
    titles: tuple[str, ...] = ()  # names that open with a negation word ("No Country for...")
    acts: int = 0  # words by which its named subject calls something untrue (_agent_denials)


_MAIN_AUX_RE = re.compile(
    r"\b(?:is|are|was|were|has|have|had|will be|will have|has been|have been|had been)\b"
    r"(?:\s+(?:been|being|not|never|also|now|already|just|\w+ly))*\s+(?=\w)", re.I
)
"""The claim's first auxiliary, with the adverbs and "been" after it: its main verb follows."""

MAIN_NEGATION_WINDOW = 3
"""Words before a claim's main predicate within which a negation negates it ("was not sent",
"has never been opened"): the auxiliary, the negation and one adverb. Convention."""

_NEG_PHRASE_RE = re.compile(
    r"(?=[" + "".join(sorted({p[0] for p in NEGATION_PHRASES})) + r"])\b(?:"
    + "|".join(re.escape(p) for p in NEGATION_PHRASES) + r")\b"
)


_DESCRIPTION_START_RE = re.compile(
    r"\s*(?:(?:At|In|On|After|Before|By|During|Since|From|With)\b[^,]{0,40},\s*)?"
    r"(?:[Tt]he|[Tt]his|[Tt]hese)\s+[a-z][\w-]*\s+(?!of\b)[a-z]"
)
"""A sentence that opens (after an adverbial phrase of time or place, if any) with a definite
description ("The film was nominated", "At 318.9 m, the structure was") speaks, like one
opening with a pronoun, of what its text named before."""

_PRONOUN_START = (["he"], ["she"], ["it"], ["they"], ["his"], ["her"], ["its"], ["their"])
"""A single evidence passage that opens with a pronoun is taken to speak of the claim's subject
(the passage was chosen as evidence for that claim)."""


def _neg_count(
    terms: list[str], folded: str, *, near: Mapping[str, float] | None = None, window: int = 0
) -> int:
    """Count negation cues; with ``near``, only word cues within ``window`` terms of one of them."""
    neg = _said_negations(folded, terms)
    k = len(_RESTRICTIVE_NOT_RE.findall(folded))
    if k:
        # "not only", "not due to just": a restriction is denied, not the predicate
        folded = _RESTRICTIVE_NOT_RE.sub(lambda m: "~~~" + m.group(0)[3:], folded)
        terms = list(terms)
        for _ in range(k):
            if "not" in terms:
                terms.remove("not")
    if near is None or window <= 0:
        n = sum(1 for t in terms if t in neg)
    else:
        anchors = [i for i, t in enumerate(terms) if t in near]
        n = sum(
            1
            for i, t in enumerate(terms)
            if t in neg and any(abs(i - j) <= window for j in anchors)
        )
    return n + len(_NEG_PHRASE_RE.findall(folded))


RESTRICTIVE_WORDS = "only|just|merely|solely|simply"
"""Words of restriction: "not" before one of them (within two words) denies the restriction."""
_RESTRICTIVE_NOT_RE = re.compile(rf"\bnot\s+(?:\w+\s+){{0,2}}?(?:{RESTRICTIVE_WORDS})\b")
"""A negation of a restriction ("not only", "is not due to just warming"): the predicate itself
is asserted, not denied (closed-class English)."""


_FLOORED = (Stance.PARTIAL,)  # the stances the semantic floor applies to (see LexicalJudgeConfig)


class LexicalJudge:
    """The default judge: IDF-weighted sentence selection and rule-based stance.

    Args:
        idf: Corpus IDF from the warehouse (keys from :func:`tokenize`, e.g. built with
            :func:`compute_idf`); ``None`` to use the IDF of the sentences of each batch's
            distinct documents.
        config: Thresholds.

    Example:
        >>> judge = LexicalJudge()
        >>> r = judge.judge_batch([("Unemployment rose to 18 percent in 2020.",
        ...     "Officials said unemployment rose to 11 percent in 2020. Markets fell.")])[0]
        >>> r.stance.value, r.quote
        ('REFUTES', 'Officials said unemployment rose to 11 percent in 2020.')
    """

    name = "lexical"

    def __init__(
        self,
        *,
        idf: Mapping[str, float] | None = None,
        config: LexicalJudgeConfig = LexicalJudgeConfig(),  # noqa: B008 - frozen, immutable
    ) -> None:
        self.idf = idf
        self.config = config
        self._frames: dict[tuple[str, int], object] = {}
        self._idf_default = (
            float(idf.get("", max(idf.values(), default=1.0))) if idf else 1.0
        )

    # -- public ------------------------------------------------------------------------------

    def judge_batch(
        self, pairs: Sequence[tuple[str, str]], *, titles: Sequence[str | None] | None = None,
        found: bool = False, hosts: Sequence[str | None] | None = None,
    ) -> list[JudgeResult]:
        """Judge many (claim, document_text) pairs.

        Args:
            pairs: ``(claim, document_text)`` tuples; documents repeated across pairs are parsed
                once.
            titles: Each document's title (or None), in the order of ``pairs``. A title names
                what its document is about ("Brannoch Tooling, Inc. – Annual Report"), so it
                counts where the judge asks whether a document names the claim's subject;
                quotes still come from the text alone.
            hosts: Each document's publisher host (or None), in the order of ``pairs``. A host
                that spells one of the claim's names (:func:`host_names`) names it as the
                title does: a council's budget book on ``democracy.vellowcross.gov.example``
                writes "the borough council", not "Vellow Cross Borough Council".
            found: The documents were found by searching for the claim (research), not given as
                its evidence (an audited answer's sources, a labelled pair). Evidence that is
                given addresses the claim, so a short passage that names the claim's subject
                and says something else of it refutes the claim, and so do another figure,
                an antonym or another member of a closed class (nationality, month ...) read
                as words in the best sentence. A document found by search only shares words
                with the claim: a sentence that names the subject and says something else is
                then no evidence (NEUTRAL), and the word-level readings refute only where the
                claim's frame, read in the document, bears them out. Measured end to end on
                verdicts-climate-fever-dev (its sentence-long Wikipedia documents are judged
                as short passages): contradicted precision 0.52 → 0.67, decisive errors
                22 → 14; on the other half of Climate-FEVER 0.33 → 0.48 and 34 → 23;
                verdicts-dev unchanged.

        Returns:
            One :class:`JudgeResult` per pair, in order, with ``judge="lexical"``; the quote is
            ``document_text[start:end]`` of one or two adjacent sentences ("" when the document
            is empty).
        """
        docs: dict[str, _Doc] = {}
        for _, text in pairs:
            if text not in docs:
                docs[text] = self._parse_doc(text)
        idf = self.idf
        default = self._idf_default
        if idf is None:
            idf = compute_idf_from_terms(s for d in docs.values() for s in d.sets)
            default = idf[""]
        if titles is not None and len(titles) != len(pairs):
            raise ValueError(f"{len(titles)} titles for {len(pairs)} pairs")
        if hosts is not None and len(hosts) != len(pairs):
            raise ValueError(f"{len(hosts)} hosts for {len(pairs)} pairs")
        out = []
        floor = self.config.semantic_floor
        variants: dict[str, list[str]] = {}
        for k, (claim, text) in enumerate(pairs):
            if claim not in variants:
                variants[claim] = conversion_variants(claim)
            # a claim with a conversion is read either way, and the reading that finds the
            # claim's quantity kept (a claim without one has one reading: itself)
            title = titles[k] if titles is not None else None
            if hosts is not None and (spelt := host_names(claim, hosts[k])):
                title = f"{title or ''} {spelt}".strip()
            r = max(
                (self._judge(v, text, docs[text], idf, default, title, found=found)
                 for v in variants[claim]),
                key=lambda r: (_VARIANT_RANK[r.stance], r.relevance),
            )
            if r.stance is Stance.SUPPORTS and names_nothing(claim):
                r = JudgeResult(Stance.PARTIAL, r.relevance, r.quote,
                                "the claim names no subject of its own; " + r.rationale,
                                r.judge, r.is_failure)
            if r.stance in (Stance.SUPPORTS, Stance.PARTIAL) and (
                other := other_named_number(claim, r.quote)
            ):
                r = JudgeResult(Stance.NEUTRAL, r.relevance, r.quote,
                                f"names {other[1]}, not the claim's {other[0]}; " + r.rationale,
                                r.judge, r.is_failure)
            if r.stance in (Stance.SUPPORTS, Stance.PARTIAL) and (
                day := other_date(claim, r.quote) or other_month(claim, r.quote)
            ):
                # the fact stated on another day: a full support is the claim's fact with
                # another date (a refutation); a partial one is not about the claim's day
                r = JudgeResult(Stance.REFUTES if r.stance is Stance.SUPPORTS else Stance.NEUTRAL,
                                r.relevance, r.quote,
                                f"states {day[1]}, not the claim's {day[0]}; " + r.rationale,
                                r.judge, r.is_failure)
            out.append(r)
        if found and floor is not None:
            self._floor(pairs, docs, out, floor)
        return out

    # -- internals ---------------------------------------------------------------------------

    @staticmethod
    def _floor(pairs: Sequence[tuple[str, str]], docs: Mapping[str, _Doc],
               out: list[JudgeResult], floor: float) -> None:
        """Turn to NEUTRAL, in place, each floored result whose quote is not about its claim.

        The cosine is the claim's to the quote or, when that is under ``floor``, to the quote
        read with the sentence before it (a sentence of an article leans on the one before:
        "The board is expected to vote on the recommendation", after the recommendation to
        close the school); the greater counts. Texts are embedded in two batches (quotes, then
        the contexts still needed), not pair by pair.
        """
        todo = [k for k, r in enumerate(out) if r.stance in _FLOORED and r.quote]
        if not todo:
            return
        enc = encoder()
        unique = list(dict.fromkeys(pairs[k][0] for k in todo))
        claims = dict(zip(unique, enc.encode(unique), strict=True))
        sims = {k: float(claims[pairs[k][0]] @ q) for k, q in zip(
            todo, enc.encode([out[k].quote for k in todo]), strict=True)}
        context: dict[int, str] = {}
        for k in todo:
            if sims[k] >= floor:
                continue
            text, quote = pairs[k][1], out[k].quote
            spans = docs[text].spans
            start = text.find(quote)
            i = next((n for n, (a, b) in enumerate(spans) if a <= start < b), 0)
            if start >= 0 and i > 0:
                context[k] = text[spans[i - 1][0]:start + len(quote)]
        if context:
            for k, c in zip(context, enc.encode(list(context.values())), strict=True):
                sims[k] = max(sims[k], float(claims[pairs[k][0]] @ c))
        for k, sim in sims.items():
            if sim < floor:
                r = out[k]
                out[k] = JudgeResult(Stance.NEUTRAL, r.relevance, r.quote,
                                     f"not about the claim (cosine {sim:.2f} under the semantic "
                                     f"floor {floor:.2f}); " + r.rationale, r.judge, r.is_failure)

    def _parse_doc(self, text: str) -> _Doc:
        text = text[: self.config.max_doc_chars]
        spans = split_sentences(text)
        terms, sets, folded = [], [], []
        for a, b in spans:
            sent = text[a:b]
            f = _fold(sent)
            t, _ = _terms_and_figures(f)
            terms.append(t)
            sets.append(frozenset(t))
            folded.append(" ".join(f.split()))
        return _Doc(spans, terms, sets, folded)

    def _parse_claim(self, claim: str, idf: Mapping[str, float], default: float) -> _Claim:
        stop = _stem_sets()[0]
        terms = tokenize(claim)
        neg = _said_negations(" ".join(_fold(claim).split()), terms)
        content: dict[str, float] = {}
        for t in terms:
            if t in stop or t in neg or (len(t) < 2 and not t.startswith("#")):
                continue
            w = idf.get(t, default)
            if t.startswith("#"):
                w = max(w, default * 0.8)
            content[t] = w
        folded = " ".join(_fold(claim).split())
        unnamed = without_names(claim)  # "Never Mind the Frost" negates nothing
        subject_words = _subject_words(claim)
        acts = _agent_denials(claim)
        subject = frozenset(t for t in tokenize(" ".join(subject_words)) if t in content)
        ants, members = _antonyms(), _frame_members()
        spelt = _frame_terms(folded)
        alternatives = {}
        for t in content:
            alt = set(ants.get(t, ()))
            if t in members and t in spelt:
                alt |= _frame_classes()[members[t]] - {t}
            if alt:
                alternatives[t] = frozenset(alt)
        return _Claim(
            terms=terms,
            content=content,
            total=sum(content.values()) or 1.0,
            neg=max(0, _neg_count(tokenize(unnamed), " ".join(_fold(unnamed).split()))
                    - acts),
            acts=acts,
            figures=[
                f for f in normalize_figures(_fold(claim))
                if f.unit is not None or f.token not in name_numbers(claim)
            ],
            hedged=_is_hedged(claim),
            folded=folded,
            subject=subject,
            subject_words=tuple(subject_words),
            alternatives=alternatives,
            negated=bool(_NEGATED_RE.search(" ".join(_fold(unnamed).split()))),
            titles=tuple(
                m.group(0) for m in _NAME_RUN_RE.finditer(claim) if _NEG_WORD_START_RE.match(
                    m.group(0))
            ),
        )

    def _judge(
        self, claim_text: str, text: str, doc: _Doc, idf: Mapping[str, float], default: float,
        title: str | None = None, *, found: bool = False,
    ) -> JudgeResult:
        cfg = self.config
        if not doc.spans:
            return JudgeResult(Stance.NEUTRAL, 0.0, "", "empty document", self.name)
        claim = self._parse_claim(claim_text, idf, default)
        if not claim.content:
            return JudgeResult(Stance.NEUTRAL, 0.0, "", "claim has no content terms", self.name)
        from affidavit.tasks.claims import unreadable_scripts  # (claims imports this module)

        if scripts := unreadable_scripts(claim_text):
            # "Население России в 2021 году составило 146 миллионов": read as its figures only,
            # which would match any document that states them, about anything
            return JudgeResult(Stance.NEUTRAL, 0.0, "", f"the claim's words are in {scripts[0]} "
                               "script, which this judge does not read: its figures alone say "
                               "nothing", self.name)
        framed = None
        several_facts = bool(
            (
                len(claim.content) > cfg.frame_claim_terms
                and _COMPOUND_RE.search(_RANGE_AND_RE.sub(
                    "between", _LEADING_PHRASE_RE.sub("", claim_text).replace(" and a half", "")
                ))
            )
            or _PRONOUN_SUBJECT_RE.match(claim_text)
        )
        if cfg.read_frames and len(doc.spans) > cfg.short_doc_sentences:
            framed, frame_index = self._judge_frames(
                claim_text, text, doc, idf, default, title, found
            )
            if (
                not several_facts
                or framed.stance is Stance.REFUTES
                or (frame_index < 0 and not _PRONOUN_SUBJECT_RE.match(claim_text))
            ):
                return framed  # refuted, or the document does not name the claim's subject
        elif cfg.read_frames and (
            (measured_claim := any(f.unit in MEASURED_UNITS for f in claim.figures))
            or (found and any(f.unit != "year" for f in claim.figures))
        ):
            # A claim of a measured quantity (money, percent, a unit) is read on frames in a
            # short passage too: without the claim's figure for its quantity a passage neither
            # supports nor refutes it.
            framed, _ = self._judge_frames(claim_text, text, doc, idf, default, title, found)
            if found and framed.stance is Stance.REFUTES and not several_facts:
                # found by search, a short passage is read on words only where its frame does
                # not refute the claim ("asked for 2 million dollars ... The court awarded her
                # 150,000 dollars" against "awarded 2 million dollars"; "was stated incorrectly
                # as 45,000 ... The correct figure is 54,000" against a population of 45,000)
                return framed
            if not measured_claim or framed.stance is not Stance.NEUTRAL or several_facts:
                framed = None
        content = claim.content
        total = claim.total
        covs = [sum(w for t, w in content.items() if t in s) / total for s in doc.sets]
        alts = claim.alternatives
        if alts:
            # Aligned coverage also counts a claim term whose antonym or frame mate the sentence
            # names: "ice is increasing" and "ice has been decreasing" speak of the same thing.
            aligned = [
                c + sum(content[t] for t, a in alts.items() if t not in s and not a.isdisjoint(s))
                / total
                for c, s in zip(covs, doc.sets, strict=True)
            ]
        else:
            aligned = covs
        best = max(range(len(covs)), key=lambda i: (aligned[i], covs[i], -i))
        cov = covs[best]
        rel = aligned[best]
        short = len(doc.spans) <= cfg.short_doc_sentences
        if short:
            whole = frozenset().union(*doc.sets)
            cov_window = sum(w for t, w in content.items() if t in whole) / total
            window = doc.folded
        else:
            order = sorted(range(len(covs)), key=lambda i: (-covs[i], i))[: cfg.window_sentences]
            union = frozenset().union(*(doc.sets[i] for i in order))
            cov_window = sum(w for t, w in content.items() if t in union) / total
            window = [doc.folded[i] for i in order]
        quote = _quote(text, doc.spans, best, cfg.min_quote_chars) if rel > 0 else ""
        if not _WORD_CHAR_RE.search(quote):
            quote = ""  # punctuation alone quotes nothing
        relevance = round(min(1.0, rel), 4)
        sent_set = doc.sets[best]
        sent_terms = doc.terms[best]

        # Contradiction signals, read on the selected sentence.
        raw_best = text[doc.spans[best][0] : doc.spans[best][1]]
        if claim.titles and any(t in raw_best for t in claim.titles):
            # a title the claim names ("Never Mind the Frost") negates nothing in the sentence
            unnamed = _fold(without_names(raw_best, only=claim.titles))
            s_neg = _neg_count(tokenize(unnamed), " ".join(unnamed.split()), near=content,
                               window=cfg.negation_window)
        else:
            s_neg = _neg_count(sent_terms, doc.folded[best], near=content,
                               window=cfg.negation_window)
        if s_neg and claim.acts:
            # the claim reports someone's act of calling a thing untrue ("Trump claims global
            # warming is a hoax"); the same act reported by the sentence negates nothing either
            s_neg = max(0, s_neg - _agent_denials(raw_best))
        same_polarity = (claim.neg > 0) == (s_neg > 0)
        conflicts = [
            c
            for c in (
                _figure_conflict(claim.figures, normalize_figures(doc.folded[best]),
                                 _fold(claim_text), doc.folded[best]),
                _antonym_conflict(claim.terms, sent_set, claim.folded, doc.folded[best]),
                _frame_conflict(claim.terms, sent_set),
            )
            if c
        ]
        # found by search: a figure, an antonym or another class member read as words in the
        # best sentence is only a cue; the claim's frame must bear it out
        word_level = found and bool(conflicts)
        missing = 1.0 - cov_window
        atomic = len(content) <= cfg.atomic_claim_terms
        subject_here = bool(claim.subject) and (
            (
                _subject_share(claim, sent_set) >= cfg.subject_share
                and _names(
                    [w for w in claim.subject_words if tokenize(w) and tokenize(w)[0]
                     in claim.subject],
                    text,
                    doc.spans[best],
                )
            )
            or (short and sent_terms[:1] in _PRONOUN_START)
        )
        subject_only = ""
        if (
            short
            and subject_here
            and atomic
            and missing >= cfg.missing_term_refutes
            and not conflicts
            and not (cfg.read_frames and self._claim_frame(claim_text, idf, default).weak_subject)
        ):
            subject_only = f"same subject, {missing:.0%} of the claim absent"
            if not found:
                conflicts.append(subject_only)

        def result(stance: Stance, why: str) -> JudgeResult:
            return JudgeResult(stance, relevance, quote, why, self.name)

        if not short:
            loose = self._judge_article(
                claim, rel, cov_window, conflicts, same_polarity, s_neg, result, window
            )
            if word_level and conflicts[0] in loose.rationale:
                # decided by a word-level cue in a document found by search: only the claim's
                # frame, read in the document, can make it a refutation
                if framed is not None and framed.stance is not Stance.NEUTRAL:
                    return framed  # the frame's reading (a refutation, or support) decides
                return result(Stance.NEUTRAL, f"{loose.rationale}, not borne out by the "
                              "claim's frame")
            if framed is None or loose.stance is Stance.NEUTRAL:
                return loose if framed is None else framed
            measured = [f for f in claim.figures if f.unit in MEASURED_UNITS]
            if found and measured and not any(
                _close(f, g) for f in measured for sent in window
                for g in normalize_figures(sent) if g.unit == f.unit
            ):
                # found by search, the best sentences share the claim's words but state none
                # of its measured figures (8 percent, £1.50): not evidence about its quantity
                return result(Stance.NEUTRAL, f"{loose.rationale}, none of the claim's measured "
                              "figures stated")
            if loose.stance is Stance.SUPPORTS and not all(
                any(_close(f, g) for sent in window for g in normalize_figures(sent))
                for f in claim.figures if f.unit != "year"
            ):
                # "over the coming 25 or 30 years ... likely to warm" against sentences that
                # state no such period: the claim's figures are part of what it states (a
                # year is its time frame, which a document often states once, in its lede)
                return result(Stance.PARTIAL, f"claim of several facts; {loose.rationale}, "
                              "not the claim's figures")
            if loose.stance is Stance.SUPPORTS and s_neg and not claim.neg:
                # the sentence quoted as the support negates the claim's words beside it ("would
                # not make any Brennock staff compulsorily redundant")
                return result(Stance.PARTIAL, f"claim of several facts; {loose.rationale}, "
                              "but its best sentence is negated")
            if loose.stance is Stance.SUPPORTS and (
                verb := self._main_predicate_negated(claim_text, idf, default, window)
            ):
                # "Keith Morrow was sent straight to prison after his hearing" against "He was
                # not sent to prison" beside sentences that name the court and the hearing
                return result(Stance.PARTIAL, f"claim of several facts; {loose.rationale}, "
                              f"but its main predicate is negated ('{verb}')")
            if loose.stance is Stance.SUPPORTS and (
                verb := self._main_predicate_absent(claim_text, idf, default, window)
            ):
                # "Quillon had been told about overheating bases months before it announced the
                # recall" against the recall notice: the other facts are there, the one the
                # claim asserts of them ("had been told") is not
                return result(Stance.PARTIAL, f"claim of several facts; {loose.rationale}, "
                              f"not its main predicate ('{verb}')")
            # A claim of several facts is often carried by several sentences together: it is
            # read over the best sentences, as before frames (its frames decide refutation).
            return JudgeResult(loose.stance, loose.relevance, loose.quote,
                               "claim of several facts; " + loose.rationale, self.name)
        about_subject = short and subject_here and atomic
        if short and found and cfg.read_frames and (
            lead_name := self._claim_frame(claim_text, idf, default).names[:1]
        ) and len(lead_name[0]) > 1 and not lead_name[0] & frozenset().union(*doc.sets):
            # found by search, a passage without a word of the claim's leading name ("Tom
            # Baker was elected mayor of Tessel" against "Jane Ortiz was elected mayor of
            # Tessel") speaks of someone else
            return result(Stance.NEUTRAL, "the passage does not name the claim's subject")
        if subject_only and found and not conflicts:
            # found by search, it names the subject and says something else of it: no evidence
            return result(Stance.NEUTRAL, f"{subject_only}: another statement about the subject")
        if rel < cfg.relevance_floor and not about_subject:
            return result(Stance.NEUTRAL, f"best sentence covers {rel:.0%} of the claim")
        polarity = "" if same_polarity else "negation on one side only"

        def on_frame(stance: Stance, why: str, *, word_level: bool = word_level) -> JudgeResult:
            # A negation, antonym or other value read on word sets decides when the sentence
            # names the claim's subject or one of its names; otherwise only when the claim's
            # frame, read in the passage, bears it out (same predicate, quantity and period).
            # An antonym or class member in a document found by search always needs the frame.
            if not word_level and (
                subject_here or not cfg.read_frames or why.startswith("same subject")
            ):
                return result(stance, why)
            name_words = self._claim_frame(claim_text, idf, default).name_words
            if not word_level and (
                _names(name_words, text, doc.spans[best])
                or _DESCRIPTION_START_RE.match(raw_best)
                or _possessive_anaphor(claim_text, raw_best)
                or (name_words and not _other_names(raw_best, claim_text))
            ):
                return result(stance, why)
            fr, _ = self._judge_frames(claim_text, text, doc, idf, default, title, found)
            if fr.stance is stance:
                return result(stance, why)
            return result(Stance.NEUTRAL, f"{why}, not borne out by the claim's frame")

        if conflicts:
            # The sentence gives the claim's frame another value. A negated claim ("X is not a
            # Y") is then supported by it; a positive one is refuted.
            if claim.neg > 0 and s_neg == 0:
                return on_frame(Stance.SUPPORTS, "negated claim; " + "; ".join(conflicts))
            return on_frame(Stance.REFUTES, "; ".join(conflicts))
        if cov < cfg.relevance_floor:
            return result(Stance.NEUTRAL, f"best sentence covers {cov:.0%} of the claim")
        if not same_polarity and cov >= cfg.negation_floor:
            # found by search, a negation read on word sets may negate another predicate of
            # the sentence ("the second law defines ... can never decrease"): the frame decides
            return on_frame(Stance.REFUTES, f"{polarity}; covers {cov:.0%} of the claim",
                            word_level=word_level or found)
        if framed is not None:
            # The claim's measured figure (money, percent, a unit) is not stated for its
            # quantity in the passage: no support (a refutation read above stands).
            return framed
        s_hedged = _is_hedged(raw_best)
        if cov_window >= cfg.support_coverage:
            if short and found and cfg.read_frames and not self._says_of_subject(
                claim_text, idf, default, window
            ) and not other_named_number(claim_text, raw_best):
                # (another numbered name, "Windows 10" for "Windows 11", is said as such below)
                # found by search, a passage with the claim's names and nothing of what it says
                # of them ("Velton Foods' revenue rose 3%, while Marlow Dairies' rose 12%"
                # against "Velton Foods acquired Marlow Dairies") does not support it
                return result(Stance.NEUTRAL, f"covers {cov_window:.0%} of the claim, only what "
                              "it is about")
            if short and (other := self._short_other_value(claim, doc)):
                # a short passage that carries the claim's words but gives its quantity or its
                # year another value ("holds 80,000 books" against 8,000; "opened on 3 March
                # 2021" against "opened in March 2019") does not support it
                kind, why = other
                if kind == "figure":
                    return on_frame(Stance.REFUTES, why)
                return result(Stance.NEUTRAL, f"covers {cov_window:.0%} of the claim, {why}")
            if s_hedged and not claim.hedged:
                return result(Stance.PARTIAL, "covers the claim with a qualifier")
            if short and cfg.read_frames and (said := self._attributed(claim_text, raw_best)):
                # "declined to comment on reports that it would acquire Marlow Dairies", "was
                # stated incorrectly as 45,000": what others say, or what was said in error, is
                # not the passage's statement
                return result(Stance.NEUTRAL, f"covers {cov_window:.0%} of the claim, as said "
                              f"by others or in error ('{said}')")
            if lacks := self._lacks_degree(claim, window):
                return result(Stance.PARTIAL, f"covers {cov_window:.0%} of the claim, not its "
                              f"degree ('{lacks}')")
            if when := self._lacks_horizon(claim, window):
                return result(Stance.PARTIAL, f"covers {cov_window:.0%} of the claim, not its "
                              f"time frame ('{when}')")
            return result(Stance.SUPPORTS, f"covers {cov_window:.0%} of the claim")
        if cfg.read_frames and found and not self._says_of_subject(claim_text, idf, default,
                                                                    window):
            # "The polar bear is the most carnivorous species": the claim's leading words and
            # nothing of what it says of them (the population, its growth)
            return result(Stance.NEUTRAL, f"covers {cov_window:.0%} of the claim, only what it "
                          "is about")
        return result(Stance.PARTIAL, f"covers {cov_window:.0%} of the claim")

    @staticmethod
    def _attributed(claim_text: str, sentence: str) -> str:
        """The cue that makes ``sentence`` someone else's statement or one made in error.

        That is an attribution cue that governs the claim's words (``judge_frame._ATTRIB_RE``,
        before most of them: "on reports that it would acquire") or a word of error before the
        claim's figure (``_ERROR_SAID_RE``: "was stated incorrectly as 45,000"); "" when there
        is none, or when the claim has the same kind of cue (a claim that reports a rumour is
        stated by a sentence that reports it).
        """
        from affidavit.tasks import judge_frame as jf

        folded, claim_folded = _fold(sentence), _fold(claim_text)
        m = jf.attribution(folded)
        if m is not None and not jf._ATTRIB_RE.search(claim_folded):
            words = {w for w in _LONG_WORD_RE.findall(claim_folded) if w not in STOPWORDS}
            at = [w.start() for w in _LONG_WORD_RE.finditer(folded) if w.group(0) in words]
            if at and m.start() < at[len(at) // 2]:
                # the cue stands before most of the claim's words: it governs them, not a
                # clause after them ("where ships are said to have disappeared")
                return m.group(0)
        m = _ERROR_SAID_RE.search(folded)
        if m is not None and not _ERROR_SAID_RE.search(claim_folded):
            values = {f.value for f in normalize_figures(claim_folded)}
            if any(m.end() <= f.start <= m.end() + 40 and f.value in values
                   for f in normalize_figures(folded)):
                return m.group(0)  # the claim's figure is what was said in error
        return ""

    def _says_of_subject(self, claim_text: str, idf: Mapping[str, float], default: float,
                         window: Sequence[str]) -> bool:
        """Whether the passage says something of what the claim is about.

        That is: it carries a concept of the claim's predicate beyond the claim's leading words
        and named subject (``judge_frame.ClaimFrame.lead``, ``subject``).
        """
        from affidavit.tasks import judge_frame as jf

        fr = self._claim_frame(claim_text, idf, default)
        rest = set(fr.predicate) - fr.lead - set(fr.subject)
        if not rest:
            return True
        return bool(rest & set(jf._concept_terms(" ".join(window))))

    def _claim_frame(self, claim_text: str, idf: Mapping[str, float], default: float) -> Any:
        """The claim's frame (``judge_frame.ClaimFrame``), parsed once per claim and IDF."""
        from affidavit.tasks import judge_frame as jf

        key = (claim_text, id(idf))
        frame = self._frames.get(key)
        if frame is None:
            frame = jf.parse_claim_frame(claim_text, idf, default)
            if len(self._frames) > 10_000:
                self._frames.clear()
            self._frames[key] = frame
        return frame

    def _judge_frames(
        self, claim_text: str, text: str, doc: _Doc, idf: Mapping[str, float], default: float,
        title: str | None = None, found: bool = False,
    ) -> tuple[JudgeResult, int]:
        """Judge an article by reading the claim's frame in its sentences (``judge_frame``).

        Returns the judgment and the index of its sentence (-1 when the document does not
        name the claim's subject).
        """
        from affidavit.tasks import judge_frame as jf

        frame = self._claim_frame(claim_text, idf, default)
        if doc.frames is None:
            doc.frames = jf.parse_doc_frames(text, doc.spans, folded=doc.folded, terms=doc.terms)
        unnamed = _names_not_written(frame.name_words, text, title)
        named = frozenset(tokenize(title)) - unnamed if title else frozenset()
        if frame.names:
            named |= jf.short_form_names(claim_text, text)  # "the Gazette"
        v = jf.judge_frames(
            frame, doc.frames, self.config.frame,  # type: ignore[arg-type]
            title_terms=named, searched=found, unnamed=unnamed,
        )
        quote = ""
        if v.index >= 0 and v.relevance > 0:
            quote = _quote(text, doc.spans, v.index, self.config.min_quote_chars)
            if not _WORD_CHAR_RE.search(quote):
                quote = ""
        return JudgeResult(Stance(v.stance), v.relevance, quote, v.why, self.name), v.index

    def _judge_article(
        self,
        claim: _Claim,
        cov: float,
        cov_window: float,
        conflicts: list[str],
        same_polarity: bool,
        s_neg: int,
        result: Callable[[Stance, str], JudgeResult],
        window: Sequence[str],
    ) -> JudgeResult:
        cfg = self.config
        if cov_window < cfg.article_relevance_floor:
            return result(Stance.NEUTRAL, f"best sentences cover {cov_window:.0%} of the claim")
        if cov >= cfg.article_refute_coverage:
            if conflicts:
                if claim.neg > 0 and s_neg == 0:
                    return result(Stance.SUPPORTS, "negated claim; " + "; ".join(conflicts))
                return result(Stance.REFUTES, "; ".join(conflicts))
            if not same_polarity:
                return result(Stance.REFUTES, f"negation on one side only; covers {cov:.0%}")
        if s_neg == 0 and claim.negated:
            # A negated claim ("X is not Y") is not fully supported by sentences that state
            # it without the negation (a claim of several facts may negate only one).
            return result(Stance.PARTIAL, f"negated claim; its best sentence states part of "
                          f"it without the negation (covers {cov_window:.0%})")
        if cov_window >= cfg.article_support_coverage:
            if lacks := self._lacks_degree(claim, window):
                return result(Stance.PARTIAL, f"best sentences cover {cov_window:.0%} of the "
                              f"claim, not its degree ('{lacks}')")
            if when := self._lacks_horizon(claim, window):
                return result(Stance.PARTIAL, f"best sentences cover {cov_window:.0%} of the "
                              f"claim, not its time frame ('{when}')")
            return result(Stance.SUPPORTS, f"best sentences cover {cov_window:.0%} of the claim")
        return result(Stance.PARTIAL, f"best sentences cover {cov_window:.0%} of the claim")

    def _short_other_value(self, claim: _Claim, doc: _Doc) -> tuple[str, str] | None:
        """Another value a short passage gives the claim's figure or year, or None.

        Returns ("figure", why) when a sentence states another value of one of the claim's
        figures that the passage does not state (``_figure_conflict``), and ("year", why)
        when the passage names none of the claim's years but another year (the claim's time
        frame is then not what it speaks of). A claim dated to a day is left to
        :func:`other_date`, which refutes the same fact stated on another day.
        """
        stated = [normalize_figures(sent) for sent in doc.folded]
        figs = [f for f in claim.figures if f.unit != "year"]
        if figs and not all(any(_close(f, g) for gs in stated for g in gs) for f in figs):
            for sent, gs in zip(doc.folded, stated, strict=True):
                if why := _figure_conflict(claim.figures, gs, claim.folded, sent):
                    return "figure", why
        years = {int(f.value) for f in claim.figures if f.unit == "year"}
        if years and not _days(claim.folded):  # a claim dated to a day: ``other_date`` reads it
            said = {int(g.value) for gs in stated for g in gs if g.unit == "year"}
            if said and not years & said:
                return "year", f"of another year ({', '.join(map(str, sorted(said)))})"
        return None

    def _main_predicate_absent(self, claim_text: str, idf: Mapping[str, float],
                               default: float, window: Sequence[str]) -> str:
        """The claim's main verb when no sentence of ``window`` states it, else "".

        The verb is ``judge_frame.ClaimFrame.main_verb``: only a claim with a named subject
        whose main verb follows an auxiliary ("had been *told*", "has *opened*") has one.
        """
        from affidavit.tasks import judge_frame as jf

        verb = self._claim_frame(claim_text, idf, default).main_verb
        if not verb or any(verb in jf._concept_terms(sentence) for sentence in window):
            return ""
        return verb

    def _main_predicate_negated(self, claim_text: str, idf: Mapping[str, float],
                                default: float, window: Sequence[str]) -> str:
        """The claim's main predicate word when ``window``'s sentences state it only negated.

        Returns "" otherwise, and when they do not state it at all. The main predicate is the
        first predicate concept after the claim's first auxiliary ("was *sent*", "has
        *opened*", "is *shutting*"); a negation counts within
        ``MAIN_NEGATION_WINDOW`` words before it ("was not sent", "has never opened"). A claim
        without an auxiliary, or without a named subject, has none here: its verb is not told
        from the words before it ("It is unclear whether ..."). A claim that is negated itself
        is not read here.
        """
        from affidavit.tasks import judge_frame as jf

        m = _MAIN_AUX_RE.search(claim_text)
        if not m:
            return ""
        fr = self._claim_frame(claim_text, idf, default)
        if not fr.name_words or fr.weak_subject or fr.is_negated:
            return ""  # no named subject: the words before the auxiliary may be the predicate
        rest = [t for t in jf._concept_terms(_fold(claim_text[m.end():])) if t in fr.predicate]
        if not rest:
            return ""
        main = rest[0]
        said = negated = False
        for sentence in window:
            terms = jf._concept_terms(sentence)
            for k, t in enumerate(terms):
                if t != main:
                    continue
                if {"not", "never", "nev", "no"} & set(terms[max(0, k - MAIN_NEGATION_WINDOW):k]):
                    negated = True
                else:
                    said = True
        return main if negated and not said else ""

    def _lacks_degree(self, claim: _Claim, sentences: Sequence[str]) -> str:
        """The claim's degree class ("main", "only", "less") no sentence names ("" if none).

        A comparison with an earlier time ("7% more than a year before") is a change, not a
        degree (as in the claim's frame, ``ClaimFrame.degrees``).
        """
        from affidavit.tasks import judge_frame as jf

        return jf.missing_degree(
            jf.claim_degrees(jf._compared_with_past(claim.folded)), sentences
        )

    def _lacks_horizon(self, claim: _Claim, sentences: Sequence[str]) -> str:
        """The claim's forward time frame ("next year") no sentence names ("" if none)."""
        from affidavit.tasks import judge_frame as jf

        return jf.missing_horizon(jf.claim_horizons(claim.folded), sentences)


def compute_idf_from_terms(term_sets: Iterable[frozenset[str]]) -> dict[str, float]:
    """Compute :func:`compute_idf` from already tokenised texts (one set of terms per text)."""
    df: Counter[str] = Counter()
    n = 0
    for s in term_sets:
        n += 1
        df.update(s)
    idf = {t: math.log((n + 1) / (c + 1)) + 1.0 for t, c in df.items()}
    idf[""] = math.log(n + 1) + 1.0
    return idf


_DENIAL_WORD_RE = re.compile(
    r"\b(?:disprov\w*|debunk\w*|refut\w*|retract\w*|wrong|hoax(?:es)?|myths?|false|"
    r"incorrect|mistaken|erroneous|misleading)\b",
    re.I,
)


_AGENT_JUDGES_RE = re.compile(
    r"^\W*(?:[Tt]he\s+)?(?!(?:The|A|An|This|That)\s+[a-z])(?:[A-Z][\w\-]*\s+){1,5}"
    r"(?:\w+\s+){0,2}?"
    r"(?i:disprov\w*|debunk\w*|refut\w*|retract\w*|calls?|called|says?|said|claims?|"
    r"claimed|argues?|argued|(?:was|were|is|are)\s+(?:wrong|mistaken|incorrect))\b"
)
"""A claim that opens with a name (not an article before a common noun: "The claim that ...")
followed by its act of judging something untrue."""

_AGENT_PASSIVE_RE = re.compile(
    r"\b(?:disprov\w*|debunk\w*|refut\w*|retract\w*|dismiss\w*|rejected)\s+by\s+"
    r"(?!far\b|now\b)\S"
)
"""The same act in the passive with a named agent ("has been debunked by the head of ...")."""

_AGENT_ACTIVE_RE = re.compile(
    r"\b(?!(?:is|are|was|were|be|been|being|has|have|had)\s)\w+\s+(?:\w+ly\s+)?"
    r"(?:disprov(?:e|es|ed|ing)|debunk(?:s|ed|ing)?|refut(?:e|es|ed|ing)|"
    r"retract(?:s|ed|ing)?|den(?:y|ies|ied|ying))\s+(?:the\s+|a\s+|an\s+|its\s+|his\s+|"
    r"her\s+|their\s+)?\w",
    re.I,
)
"""The same act in the active voice, with any subject ("The panel was forced to retract a
statement ...", "a study that totally debunks the whole concept of ..."): the verb has an
object after it and no auxiliary of the passive before it ("has been disproven" negates what it
is said of)."""


def _agent_denials(claim: str) -> int:
    """Count the words of a claim by which its named subject judges something untrue.

    "Postma disproved the greenhouse effect", "John Coleman calls global warming a hoax",
    "IPCC were wrong about the glaciers". Such a claim is about what its subject said or did,
    not a negation of what is denied: a source that states the denied thing neither
    contradicts nor supports it.

    >>> _agent_denials("Postma disproved the greenhouse effect.")
    1
    >>> _agent_denials("The 97% consensus has been disproven.")
    0
    >>> _agent_denials("The closure of the Tarsel plant in Orrin is a myth.")
    0
    >>> _agent_denials("The claim that 97 percent agree has been debunked by the IPCC's head.")
    1
    >>> _agent_denials("The claim that 97 percent agree has been debunked.")
    0
    >>> _agent_denials("The panel was forced to retract a statement in its 2007 report.")
    1
    >>> _agent_denials("97% consensus on human-caused global warming has been disproven.")
    0
    """
    if not (
        _AGENT_JUDGES_RE.match(claim) or _AGENT_PASSIVE_RE.search(claim)
        or _AGENT_ACTIVE_RE.search(claim)
    ):
        return 0
    return len(_DENIAL_WORD_RE.findall(claim))


_NAME_RUN_RE = re.compile(r"(?:\b[A-Z][\w'\u2019\-]*\s+)+[A-Z][\w'\u2019\-]*")


def without_names(claim: str, *, only: Sequence[str] | None = None) -> str:
    """The text with its names and titles (runs of capitalised words) blanked out.

    A negation inside a title ("Never Be Like You", "No Country for Old Men") does not negate
    the claim.

    Args:
        claim: A claim or a sentence.
        only: Blank only these runs (a sentence's copies of the claim's titles; "No Tarsel
            shop closed" keeps its "No").

    >>> without_names("Never Be Like You, featuring Kai, reached number one.").split()
    [',', 'featuring', 'Kai,', 'reached', 'number', 'one.']
    >>> without_names("Sea level is not rising.")
    'Sea level is not rising.'
    >>> without_names("No Tarsel shop closed. Never Mind the Frost", only=["Never Mind the Frost"])
    'No Tarsel shop closed.                     '
    """
    if only is not None:
        for t in only:
            claim = claim.replace(t, " " * len(t))
        return claim
    return _NAME_RUN_RE.sub(lambda m: " " * len(m.group(0)), claim)


_NEG_WORD_START_RE = re.compile(r"(?:No|Not|Never|None|Nothing|Nobody|Neither|Nor|Without)\s")


_NEGATED_RE = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot)\b|n't\b"
)
"""A claim negated by a particle ("is not", "never", "can't"), as the frame reader reads it;
verbs of failure or refusal ("failed to", "rejected") are predicates of their own."""

_COMPOUND_RE = re.compile(
    r",\s|;|\b(?:and|which|who|whose|while|whereas|where|when|after|before)\b"
)
"""Clause joints: a claim with one states several facts (which sentences may carry apart)."""

_LEADING_PHRASE_RE = re.compile(
    r"^\s*(?:in|at|on|from|under|by|for|after|before|during|since|until|between|as of|"
    r"according to)"
    r"\b[^,;]{0,60},\s"
    , re.I,
)
"""A leading adverbial phrase ("Under the Quayside permission, ...") is not a clause of its
own."""

_LONG_WORD_RE = re.compile(r"[a-z][a-z'’-]{3,}")
"""A word of four letters or more."""

ERROR_ADVERBS = "incorrectly|wrongly|mistakenly|erroneously|inaccurately"
"""Adverbs that say a statement was made in error ("stated incorrectly", "wrongly reported")."""

_ERROR_SAID_RE = re.compile(rf"\b(?:{ERROR_ADVERBS}|in error|misstated|misreported)\b")
"""A statement said to be in error ("was stated incorrectly as 45,000"): not the passage's."""

_RANGE_AND_RE = re.compile(r"\bbetween\s+[^,;]{1,30}?\s+and\b", re.I)
"""The "and" after "between" joins the two ends of a range, a route or a relation ("between May
and September", "between Harlow Bay and Tessin", "a link between solar activity and water
levels"), not two clauses."""

_PRONOUN_SUBJECT_RE = re.compile(r"\s*(?:he|she|it|they|his|her|its|their|this|these)\b", re.I)
"""A claim whose subject is a pronoun (a sentence taken out of its text) names no subject to
check: it is read over the best sentences, as before frames."""

_FRAGMENT_RE = re.compile(
    r"\s*[\"'\u2018\u201c]?(?:as|because|while|when|if|since|although|though|whereas)\s+[a-z]"
)
"""A claim that opens with a subordinator ("as continents rise after ...") is a clause taken
out of its sentence: it has no main clause of its own."""


_CONNECTIVE_PRONOUN_RE = re.compile(
    r"\s*[\"'\u2018\u201c]?(?:however|but|yet|still|moreover|instead|thus|therefore|"
    r"meanwhile)\b,?\s*(?:he|she|it|they|this|these)\b",
    re.I,
)


_CAPITAL_RUN_RE = re.compile(r"[A-Z][\w\-]*(?:['’]s)?(?:\s+[A-Z][\w\-]*(?:['’]s)?)*")

HOST_NAME_MIN_CHARS = 5
"""A host label names a claim's name only with at least this many letters: shorter labels
("www", "gov", "news", "bbc") are furniture or codes that spell many names. Convention."""


def host_names(claim: str, host: str | None) -> str:
    """The claim's names that a publisher's host spells, joined by spaces (``""`` if none).

    A host label (or a hyphenated part of one) that is a run of the claim's capitalised words,
    from its first word on, written together in lower case spells that name:
    ``democracy.vellowcross.gov.example`` spells "Vellow Cross" of "Vellow Cross Borough
    Council", ``www.orrisdale-county.example`` spells "Orrisdale", ``www.brennickhill.example``
    "Brennick Hill" (a leading "The" is not part of the name). A publisher's own pages speak
    of it without naming it ("The council has a statutory duty ...", "42 of our students"), as
    its title may name it once.

    Args:
        claim: The claim's text.
        host: The document's host name (None or empty: no names).

    Returns:
        The spelt names, longest run per name, in the claim's order.
    """
    if not host:
        return ""
    labels = set()
    for label in host.lower().split("."):
        labels.add(label)
        labels.update(label.split("-"))
    out = []
    for m in _CAPITAL_RUN_RE.finditer(claim):
        words = [re.sub(r"['’]s$", "", w) for w in m.group(0).split()]
        if len(words) > 1 and words[0] in ("The", "A", "An"):
            words = words[1:]  # "The Greyport Mariners ice hockey club": the name after it
        for k in range(len(words), 0, -1):
            key = re.sub(r"[^a-z0-9]", "", "".join(words[:k]).lower())
            if len(key) >= HOST_NAME_MIN_CHARS and key in labels:
                out.append(" ".join(words[:k]))
                break
    return " ".join(out)


def names_nothing(claim: str) -> bool:
    """Whether a claim has no subject of its own.

    Two shapes: a pronoun after a connective ("However, it is unable to explain ...": a step
    of someone's argument, taken out of it) and a subordinate clause taken out of its
    sentence ("as continents rise ..."). Evidence supports such a claim only in part: nothing
    says what it speaks of. (A claim that simply opens with a pronoun, "He was born in
    1970", is usually about its text's topic, which the evidence may name.)

    >>> names_nothing("However, it is unable to explain the trend."), names_nothing("Ice melts.")
    (True, False)
    >>> names_nothing("as continents rise after the ice melted"), names_nothing("He was born.")
    (True, False)
    """
    return bool(_CONNECTIVE_PRONOUN_RE.match(claim) or _FRAGMENT_RE.match(claim))


_CAP_RE = re.compile(r"[A-Z][\w'\-]*(?:\s+(?:of|the|de|von|van|and|&)?\s*[A-Z][\w'\-]*)*")


def _subject_words(claim: str) -> list[str]:
    """Words of the claim's leading capitalised run (its likely subject, when a name)."""
    m = _CAP_RE.match(claim.strip().lstrip("\"'\u201c"))
    if not m:
        return []
    return [w for w in re.findall(r"[\w'\-]+", m.group(0)) if w[:1].isupper()]


def _subject_share(claim: _Claim, sent: frozenset[str]) -> float:
    """IDF-weighted share of the claim's subject terms that the sentence holds (0..1)."""
    total = sum(claim.content[t] for t in claim.subject)
    if total <= 0:
        return 0.0
    return sum(claim.content[t] for t in claim.subject if t in sent) / total


def _names(words: Sequence[str], text: str, span: tuple[int, int]) -> bool:
    """Whether the passage writes one of ``words`` capitalised and never in lowercase.

    A claim's first word is capitalised whatever it is; it is a name ("Lost", "Valencia") only
    when the evidence capitalises it too, not when the evidence writes it in lowercase ("Sea
    level rise ..." against "... sea level rise would accelerate").
    """
    sent = unicodedata.normalize("NFC", text[span[0] : span[1]])
    for w in words:
        w = unicodedata.normalize("NFC", w)
        if len(w) < 2:
            continue
        if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", sent) and not re.search(
            rf"(?<!\w){re.escape(w.lower())}(?!\w)", sent
        ):
            return True
    return False


def _names_not_written(name_words: Sequence[str], text: str, title: str | None) -> frozenset[str]:
    """Terms of the claim's names that the document has only as other names.

    A name's term is a 6-character stem: "Brackenfold" and "Brackenford" are both
    ``bracke``. A term cut from a longer word does not name the claim's subject where the
    document (or its title) writes words of that stem capitalised, and none of them is the
    name's word or extends it, or is extended by it ("Brackenfold's"; "Antarctic" for
    "Antarctica", "Australian" for "Australia"): a co-operative called Brackenford does not name
    a housing association called Brackenfold. A word of the stem written in lowercase
    ("volcanic" for a claim opening "Volcanoes") is a common word, and the term counts as named,
    as it does when no word of the stem is found as written (a name with accents).

    Args:
        name_words: the claim's name words as written (``ClaimFrame.name_words``).
        text: the document's text.
        title: the document's title, if any.

    Returns:
        The terms (from :func:`tokenize`) of the names the document does not write.
    """
    out: set[str] = set()
    written = ""
    for w in name_words:
        for x in _WORD_RE.findall(_fold(w)):
            terms = tokenize(x)
            base = _unsuffixed(x).rstrip("'")
            if len(terms) != 1 or len(base) <= len(terms[0]) or not base.startswith(terms[0]):
                continue  # not cut short (or an irregular form read as another word)
            if not written:
                written = unicodedata.normalize("NFC", f"{text}\n{title or ''}")
            forms = re.findall(rf"(?<![\w'’]){re.escape(terms[0])}[\w'’]*", written,
                               flags=re.IGNORECASE)
            if forms and all(f[:1].isupper() for f in forms) and not any(
                (u := _unsuffixed(f.lower().replace("’", "'")).rstrip("'")).startswith(base)
                or base.startswith(u)
                for f in forms
            ):
                out.add(terms[0])
    return frozenset(out)


def _possessive_anaphor(claim: str, sentence: str) -> bool:
    """Whether the sentence names the claim's "<Name>'s <noun>" as "her/his/its/their <noun>".

    >>> _possessive_anaphor("Mary of Teck's son abdicated.", "when her eldest son, Edward")
    True
    """
    for m in re.finditer(r"[A-Z][\w\-]*\s*['\u2019]s\s+(\w+)", claim):
        noun = re.escape(m.group(1).lower())
        if re.search(rf"\b(?:his|her|its|their)\s+(?:\w+\s+)?{noun}\b", sentence.lower()):
            return True
    return False


_MONTH_DAY_WORDS = frozenset(
    """january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday
    saturday sunday""".split()
)


_NAME_NUMBER_RE = re.compile(
    r"(?<![\w.])([A-Za-z][\w-]*)[ \t]+(\d+(?:\.\d+)?)(?:\.\d+)*(?![\d,]|\.\d)"
)


def _name_number_pairs(text: str, *, skip_first: bool = True) -> list[tuple[str, str, str]]:
    """``(word, number as written, Figure.token)`` of each number written as part of a name.

    ``skip_first``: the text's first word does not count unless camel case (a claim's first
    word is capitalised whatever it is); a quote's does, when the claim names it too.
    """
    out: list[tuple[str, str, str]] = []
    lead = len(text) - len(text.lstrip())
    for m in _NAME_NUMBER_RE.finditer(text):
        word = m.group(1)
        camel = any(c.isupper() for c in word[1:]) and word[:1].islower()
        if not (word[:1].isupper() or camel) or word.lower() in _MONTH_DAY_WORDS or (
            word.lower() in STOPWORDS
        ):
            continue
        if skip_first and m.start(1) == lead and not camel:
            continue  # a sentence's first word is capitalised whatever it is
        v = float(m.group(2))
        out.append((word, m.group(0)[len(word):].strip(),
                    f"#{int(v)}" if v == int(v) else f"#{v:g}"))
    return out


def other_named_number(claim: str, quote: str) -> tuple[str, str] | None:
    """The claim's numbered name and another number the quote gives the same name, if any.

    "Windows 10" in a quote is another product than the claim's "Windows 11", and "iOS 11"
    another release than "iOS 12": a sentence about it is no evidence about the claim, however
    much else it shares. A quote that also writes the claim's own name and number is not
    counted ("iOS 11, like iOS 10, ..."). Names are compared case-insensitively; numbers by
    value (``Figure.token``), so "macOS 10.13.1" and "macOS 10.13" are one name.

    Args:
        claim: The claim as written.
        quote: The evidence quote as written.

    Returns:
        ``("Windows 11", "Windows 10")`` (as written), or ``None``.

    >>> other_named_number("Microsoft released Windows 11 in 2015.",
    ...                    "On 29 July 2015 Microsoft released Windows 10 in 190 countries.")
    ('Windows 11', 'Windows 10')
    >>> other_named_number("Apple released iOS 11 in 2017.", "iOS 11 and iOS 10 differ.") is None
    True
    """
    claimed = _name_number_pairs(claim)
    if not claimed or not quote:
        return None
    given = _name_number_pairs(quote, skip_first=False)
    for word, num, tok in claimed:
        same = [g for g in given if g[0].lower() == word.lower()]
        if same and not any(g[2] == tok for g in same):
            return f"{word} {num}", f"{same[0][0]} {same[0][1]}"
    return None


_CONVERSION_OPEN_RE = re.compile(
    r"\s*\(\s*(?:(?:about|approximately|approx\.|around|roughly|some|nearly|almost|over|"
    r"more\s+than|less\s+than|under|c\.|ca\.|~)\s*)?$", re.IGNORECASE)
_UNREAD_UNIT = r"\s?(?:°\s*)?(?:[^\W\d_]{1,3}|fahrenheit|celsius|kelvin)\b\.?|\s?[%°]"
"""A unit the figure parser leaves unread after a number: "0.54F", "7.5 mi", "0.22 C" (three
letters at most, or a temperature scale), or a sign."""
_CONVERSION_CLOSE_RE = re.compile(rf"(?:{_UNREAD_UNIT})?\s*\)", re.IGNORECASE)
_UNIT_AFTER_RE = re.compile(_UNREAD_UNIT, re.IGNORECASE)


_VARIANT_RANK = {Stance.SUPPORTS: 3, Stance.PARTIAL: 2, Stance.REFUTES: 1, Stance.NEUTRAL: 0}
"""Which of a claim's conversion variants' results is kept: a document that states the claim's
quantity in one of its two units supports it, and the other unit's reading of the same sentence
(another value, or no figure) is the conversion, not a conflict; a refutation is kept over
silence."""


def conversion_variants(claim: str) -> list[str]:
    """The claim as written with each figure, and again with its conversion in parentheses.

    "rise by 0.54F (0.3C) per decade", "top 700 meters (about 2,300 feet)", "57 million euros
    ($62 million)": a figure followed by a parenthesis holding nothing but one figure with a
    unit is one quantity written twice, in two units. A sentence that states either states the
    claim's quantity; judged as written, the claim has two figures and a sentence stating one
    of them covers half of them. The claim is then judged twice, once with the figures before
    the parentheses (the parentheses dropped) and once with the figures inside them in their
    place (``LexicalJudge.judge_batch`` keeps the stronger reading). A parenthesis that labels
    its figure ("(Q2 2023: EUR 15.2 million)"), holds a year, or pairs two bare numbers
    ("12 (15)") is no conversion.

    Args:
        claim: The claim as written.

    Returns:
        ``[claim]`` when it writes no conversion, else the two variants (each conversion
        resolved the same way in both): ``[with the first units, with the second units]``.

    >>> conversion_variants("Temperatures would rise by 0.54F (0.3C) per decade.")
    ['Temperatures would rise by 0.54F per decade.', 'Temperatures would rise by 0.3C per decade.']
    >>> conversion_variants("Profit rose to EUR 18.7 million (Q2 2023: EUR 15.2 million).")
    ['Profit rose to EUR 18.7 million (Q2 2023: EUR 15.2 million).']
    """
    figs = normalize_figures(claim, number_words=False)
    first: list[str] = []
    second: list[str] = []
    at = 0
    for f1, f2 in zip(figs, figs[1:], strict=False):
        if f1.start < at or "year" in (f1.unit, f2.unit):
            continue
        opened = _CONVERSION_OPEN_RE.search(claim, 0, f2.start)
        if opened is None or opened.start() != f1.end and not (
            # "0.54F (": the unit the parser did not read sits between figure and parenthesis
            _UNIT_AFTER_RE.fullmatch(claim, f1.end, opened.start())
        ):
            continue
        closed = _CONVERSION_CLOSE_RE.match(claim, f2.end)
        if closed is None:
            continue
        unit1 = f1.unit is not None or bool(_UNIT_AFTER_RE.match(claim, f1.end))
        unit2 = f2.unit is not None or bool(_UNIT_AFTER_RE.match(claim, f2.end))
        if not (unit1 and unit2) or (
            f1.unit is not None and f1.unit == f2.unit and f1.value != f2.value
        ):
            continue  # "rose 3.2 percent (2.9%)": two values of one unit are no conversion
        inner = claim[claim.index("(", opened.start()) + 1 : closed.end() - 1].strip()
        first.append(claim[at : opened.start()])
        second.append(claim[at : f1.start] + inner)
        at = closed.end()
    if not first:
        return [claim]
    return ["".join(first) + claim[at:], "".join(second) + claim[at:]]


_MONTH_NAMES = ("January February March April May June July August September October "
                "November December").split()
MONTHS = {m.lower(): i + 1 for i, m in enumerate(_MONTH_NAMES)}
"""Month names, lowercase, to their numbers (1-12); the claim frame's too."""
_MONTH_NUM = {**MONTHS, **{m[:3]: i for m, i in MONTHS.items()}}
_MONTH_NUM["sept"] = 9
_MONTH_ALT = "|".join(sorted(_MONTH_NUM, key=len, reverse=True))
_DAY_MONTH_RE = re.compile(
    rf"\b(?:(?P<d1>[0-3]?\d)(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m1>{_MONTH_ALT})\.?"
    rf"|(?P<m2>{_MONTH_ALT})\.?\s+(?P<d2>[0-3]?\d)(?:st|nd|rd|th)?)\b(?!\s*(?:%|percent))",
    re.IGNORECASE,
)


def _days(text: str) -> set[tuple[int, int]]:
    """``(month, day)`` of each day-and-month date a text writes ("14 May", "May 14th")."""
    return set(_dated_days(text))


_MAY_MODAL = (
    r"(?<!\d )(?<!\bin )(?<!\bof )(?<!\bto )(?<!\bby )(?<!from )(?<!since )(?<!until )"
    r"(?<!between )(?<!early )(?<!\blate )(?<!\bmid )(?<!\bmid-)(?<!last )(?<!next )(?<!this )"
    r"may(?!\s*\d)(?!\s+(?:and|to|until|through|or)\s+(?:january|february|march|april|june|"
    r"july|august|september|october|november|december)\b)"
)
""""may" as a modal, not the month: none after a digit or a word of a date ("in May", "between
May and September", "early May") or before another month ("May to August")."""

_MAY_MODAL_RE = re.compile(r"\b" + _MAY_MODAL + r"\b")


def _is_hedged(text: str) -> bool:
    """Whether a text holds a qualifier word (``HEDGES``) or "in part", the month May excepted.

    >>> _is_hedged("It opened on 14 May 2024."), _is_hedged("It may open in June.")
    (False, True)
    >>> _is_hedged("It was bought in May."), _is_hedged("Prices may rise in May.")
    (False, True)
    >>> _is_hedged("The council reported a surplus, like last year."), _is_hedged("It is likely.")
    (False, True)
    """
    low = _fold(text)
    found = {m.group(0) for m in _HEDGE_RE.finditer(low)}
    if found == {"may"} and not _MAY_MODAL_RE.search(low):
        return False
    return bool(found)


_DATE_YEAR_RE = re.compile(r"\s*,?\s*((?:1[89]|20)\d\d)\b")


def _dated_days(text: str) -> dict[tuple[int, int], set[int | None]]:
    """The year written right after each day-and-month date ("14 May 2024"; None if none).

    Dates written in numbers count too where they are unambiguous: ISO ("2024-05-14") and a
    day/month/year whose day is over 12 ("14/05/2024"; "05/06/2024" could be either).

    >>> _dated_days("It opened on 2024-05-14, not on 15/05/2024 nor 05/06/2024.")
    {(5, 14): {2024}, (5, 15): {2024}}
    """
    out: dict[tuple[int, int], set[int | None]] = {}
    for m in _DAY_MONTH_RE.finditer(text):
        day = int(m.group("d1") or m.group("d2"))
        month = _MONTH_NUM[(m.group("m1") or m.group("m2")).lower()]
        if 1 <= day <= 31:
            y = _DATE_YEAR_RE.match(text, m.end())
            out.setdefault((month, day), set()).add(int(y.group(1)) if y else None)
    for m in NUMERIC_DATE_RE.finditer(text):
        if m.group("y"):
            year, month, day = int(m.group("y")), int(m.group("m")), int(m.group("d"))
        else:
            a, b, year = int(m.group("a")), int(m.group("b")), int(m.group("y2"))
            if a > 12 >= b >= 1:
                day, month = a, b
            elif b > 12 >= a >= 1:
                day, month = b, a
            else:
                continue  # "05/06/2024": the fifth of June or the sixth of May
        if 1 <= month <= 12 and 1 <= day <= 31:
            out.setdefault((month, day), set()).add(year)
    return out


NUMERIC_DATE_RE = re.compile(
    r"\b(?P<y>(?:19|20)\d\d)-(?P<m>0?[1-9]|1[0-2])-(?P<d>0?[1-9]|[12]\d|3[01])\b(?![-/]\d)"
    r"|\b(?P<a>[0-3]?\d)[/.](?P<b>[0-3]?\d)[/.](?P<y2>(?:19|20)\d\d)\b"
)
"""A date written in numbers: ISO "2024-05-14", or day, month and year "14/05/2024"."""


EFFECT_CUES = "starting|effective|beginning|from|with effect from|until|till|through|by"
"""Words before a date of effect or a deadline ("starting July 1", "until 2026")."""

_EFFECT_DATE_RE = re.compile(
    rf"\b(?:{EFFECT_CUES}|as of)\s+"
    r"(?:on\s+)?(?:the\s+)?(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?)?"
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
    r"\b",
    re.I,
)
"""A day given as a date of effect or a deadline ("starting July 1", "from 1 April"), not as
the day of the claim's act."""


def other_date(claim: str, quote: str) -> tuple[str, str] | None:
    """The claim's date and another date the quote gives instead, if any.

    A claim that dates its fact to one day ("opened on 14 May 2024") is not borne out by a
    sentence that states the fact on another day ("opened on 16 May 2024"): the day is part of
    what the claim states, and a day and month are not figures the judge compares (they are a
    date, not a quantity). Only a claim with exactly one day-and-month date is read, and only a
    quote that gives a day-and-month date and never the claim's own, or the claim's day and
    month with another year written after them and never the claim's year. A claim's day of
    effect ("starting July 1", ``_EFFECT_DATE_RE``) is compared with the quote's days of effect
    only.

    Args:
        claim: The claim as written.
        quote: The evidence quote as written.

    Returns:
        ``("14 May", "16 May")``, or ``None``.

    >>> other_date("The bridge opened on 14 May 2024.", "It opened on 16 May 2024.")
    ('14 May', '16 May')
    >>> other_date("The bridge opened on 14 May 2024.", "Opened May 14, not 16 May.") is None
    True
    >>> other_date("The bridge opened on 14 May 2023.", "It opened on 14 May 2024.")
    ('14 May 2023', '14 May 2024')
    >>> other_date("The board voted to raise fares by 5% starting July 1, 2024.",
    ...            "At its meeting on May 14, 2024, the board adopted a 5% fare rise.") is None
    True
    >>> other_date("Rents rise 4% from 1 April 2025.", "Rents will rise 4% from 1 May 2025.")
    ('1 April', '1 May')
    """
    claimed = _days(claim)
    if len(claimed) != 1:
        return None
    if _EFFECT_DATE_RE.search(claim):
        # a day the claim gives as a date of effect ("raise rates by 7.5 percent starting
        # July 1") is compared with the quote's dates of effect only: the vote "on May 14" is
        # the same vote, "from 1 May" another date of effect
        quote = " ".join(quote[m.start() : m.end() + 12] for m in _EFFECT_DATE_RE.finditer(quote))
    given = _days(quote)
    (month, day), = claimed
    if not given:
        return None
    if (month, day) in given:
        # the claim's day: another year written with it ("14 May 2024" for "14 May 2023") is
        # another date, unless the quote also writes the claim's year for it
        years, gyears = _dated_days(claim)[(month, day)], _dated_days(quote)[(month, day)]
        (year,) = years if len(years) == 1 else (None,)
        if year is None or None in gyears or year in gyears:
            return None
        other = min(y for y in gyears if y is not None)
        name = f"{day} {_MONTH_NAMES[month - 1]}"
        return f"{name} {year}", f"{name} {other}"
    om, od = sorted(given)[0]
    return f"{day} {_MONTH_NAMES[month - 1]}", f"{od} {_MONTH_NAMES[om - 1]}"


_ONE_OFF_RE = re.compile(
    r"\b(?:start(?:ed|s|ing)?|beg[au]n|begins|open(?:ed|s|ing)?|launch(?:ed|es)?|debut(?:ed|s)?|"
    r"first|came into (?:force|effect|operation|service)|took effect)\b", re.I
)
"""Words of a one-off event: a beginning or a first time happens once (closed-class English)."""

_ONE_OFF_DONE_RE = re.compile(
    r"\b(?:started|beg[au]n|opened|launched|debuted|came into (?:force|effect|operation|"
    r"service)|took effect)\b", re.I
)
"""A one-off event stated as done, in a claim: a past verb of beginning. ("first", "open" and
"starting" are too often a rank, a state or a date of effect: "finished first", "remains
open", "starting in November".)"""

_MONTH_ALT = "|".join(MONTHS)

_MONTH_NAME_RE = re.compile(
    rf"\b(?:{_MONTH_ALT})\b(?!\s+(?:be|have|not|also|well|say|help|need|want|see|take)\b)",
    re.I,
)
"""A month's name ("May" followed by a verb is the modal: "may be", "may not")."""

_MONTH_YEAR_RE = re.compile(rf"\b({_MONTH_ALT})\s+((?:19|20)\d\d)\b", re.I)


def one_off_month(claim: str) -> bool:
    """Whether a claim dates a one-off event (``_ONE_OFF_DONE_RE``) to one month, no day.

    It names one month, with its year, and no day.

    >>> one_off_month("The unit started treating patients in December 2024.")
    True
    >>> one_off_month("In November 2015 he finished first, winning it for the second time.")
    False
    """
    return (
        len(_MONTH_YEAR_RE.findall(claim)) == 1 and len(_MONTH_NAME_RE.findall(claim)) == 1
        and not _days(claim) and bool(_ONE_OFF_DONE_RE.search(claim))
    )


def other_month(claim: str, quote: str) -> tuple[str, str] | None:
    """The month a claim dates a one-off event to, and the other day the quote gives it.

    A claim that dates a beginning or a first to a month ("started treating patients in
    December 2024") is not borne out by a sentence that dates it to a day of another month
    ("treated its first patient ... on 14 January 2025"): it happens once. Only a claim of
    :func:`one_off_month` is read, and only a quote that gives day-and-month dates, none in
    the claim's month, and a word of a one-off event (``_ONE_OFF_RE``: "its first patient").

    >>> other_month("The unit started treating patients in December 2024.",
    ...             "It treated its first patient on 14 January 2025.")
    ('December 2024', '14 January 2025')
    >>> other_month("The unit started treating patients in December 2024.",
    ...             "It treated its first patient on 9 December 2024.") is None
    True
    >>> other_month("Sales rose 4% in December 2024.", "Sales rose 4% on 14 January 2025.") is None
    True
    """
    if not one_off_month(claim) or not _ONE_OFF_RE.search(quote):
        return None
    name, year = _MONTH_YEAR_RE.findall(claim)[0]
    month = _MONTH_NUM[name.lower()]
    given = _dated_days(quote)
    if not given or any(m == month for m, _ in given):
        return None
    (om, od) = sorted(given)[0]
    oyear = next((y for y in sorted(given[(om, od)], key=lambda y: y or 0) if y), None)
    stated = f"{od} {_MONTH_NAMES[om - 1]}" + (f" {oyear}" if oyear else "")
    return f"{_MONTH_NAMES[month - 1]} {year}", stated


def name_numbers(text: str) -> frozenset[str]:
    """Tokens (``Figure.token``) of the numbers a text writes as part of a name.

    A bare number right after a capitalised or camel-case word names a thing, it does not
    count one: a version or a model ("iOS 11", "macOS 10.13.1", "Windows 10", "Boeing 747"),
    a mission, a road or a chapter ("Apollo 11", "Route 66"). "iOS 8" in a sentence is then
    another product, not another value of the claim's quantity, and "iOS 9.3" in both is a
    shared name, not a stated figure. Not counted: the text's first word unless it is camel
    case ("Some 40 firms", "iPhone 8 sales"), a capitalised function word, months and days
    ("May 5"), and a number with a unit or scale after it, which ``normalize_figures`` reads
    as a measure (callers drop only unitless figures).

    Args:
        text: The text as written (case matters).

    Returns:
        Tokens such as ``"#11"`` and ``"#10.13"`` (a version keeps its first two parts, as
        :func:`normalize_figures` reads it).

    >>> sorted(name_numbers("About 40 firms use iOS 11 and macOS 10.13.1 since May 5 on Route 66"))
    ['#10.13', '#11', '#66']
    """
    return frozenset(tok for _, _, tok in _name_number_pairs(text))


def _other_names(sentence: str, claim: str) -> bool:
    """Whether the sentence writes a capitalised name the claim does not have.

    The sentence's first word, months and days, and bracket codes ("-LRB-") do not count. A
    passage about a named subject that names nothing else speaks of that subject (through a
    pronoun or a description: "the series began its eighth season").

    >>> _other_names("On Monday, the series began its eighth season.", "The Closer ended.")
    False
    >>> _other_names("It was surpassed by the Empire State Building.", "The Chrysler Building")
    True
    """
    mine = {w.lower() for w in re.findall(r"[\w'\-]+", claim)}
    words = re.findall(r"[\w'\-]+", sentence)
    for w in words[1:]:
        low = w.lower()
        if (
            w[:1].isupper()
            and low not in mine
            and low not in _MONTH_DAY_WORDS
            and low not in STOPWORDS
            and not re.fullmatch(r"-?[A-Z]{3}-?", w)
        ):
            return True
    return False


def _quote(text: str, spans: list[tuple[int, int]], i: int, min_chars: int) -> str:
    a, b = spans[i]
    lo, hi = i, i
    while b - a < min_chars and (lo > 0 or hi < len(spans) - 1):
        if hi < len(spans) - 1:
            hi += 1
            b = spans[hi][1]
        else:
            lo -= 1
            a = spans[lo][0]
    return text[a:b]


_RANGE_AFTER_RE = re.compile(r"\s*(?:[^\W\d]{1,8}\.?\s*)?(?:–|—|-|to|and)\s*[-+±]?[$€£]?\d")
_RANGE_BEFORE_RE = re.compile(
    r"(?:\d[\w%°˚.,]*\s*(?:–|—|-|to)\s*[$€£]?|\bbetween\s+[$€£]?|±\s*)$"
)
_FACTOR_AFTER_RE = re.compile(
    r"\s*(?:times|fold|x)\b(?!\s+(?:a|an|per|each|every)\b)"
    r"(?!\s*(?:[.,;:)]|$|(?:in|during|last|this|since|between|across|on|at|from|before|after|"
    r"through|so far|and|or|but)\b))"
)
"""A factor ("five times more likely", "three times the rate", "a threefold rise"); "six
times a day", "spilled 3,412 times in 2024" and "was delayed 14 times." are frequencies, values
of their own."""


def is_estimate_figure(folded: str, fig: Figure) -> bool:
    """Whether a figure is an end of a range, a factor or a target.

    Ranges: "16–21 cm", "between 0.13 and 0.19", "20 to 30 feet", "400,000 ± 100,000";
    factors: "five times more likely"; targets: "beat its £2.5m target", "a goal of 500". An
    end of a range is not a value of its quantity, a factor compares two quantities the text
    may not name, and a target is what the value was measured against: none is another value
    of a claim's figure.

    Args:
        folded: The text the figure was read from (folded, as :func:`normalize_figures` reads).
        fig: The figure, with its offsets in ``folded``.

    >>> t = "sea level rose by 16–21 cm"
    >>> [is_estimate_figure(t, f) for f in normalize_figures(t)]
    [True, True]
    >>> t = "revenue was 57 million euros"
    >>> [is_estimate_figure(t, f) for f in normalize_figures(t)]
    [False]
    """
    after = folded[fig.end : fig.end + 16]
    before = folded[max(0, fig.start - 16) : fig.start]
    return bool(
        _RANGE_AFTER_RE.match(after) or _RANGE_BEFORE_RE.search(before)
        or _FACTOR_AFTER_RE.match(after)
        or _TARGET_AFTER_RE.match(after) or _TARGET_BEFORE_RE.search(before)
    )


_TARGET_AFTER_RE = re.compile(r"\s*(?:fundraising\s+|sales\s+|savings\s+)?(?:target|goal)s?\b")
_TARGET_BEFORE_RE = re.compile(r"\b(?:target|goal|aim)\s+(?:of|was|is)\s+(?:about |around )?$")
"""Words that make a figure a target ("its £2.5m target", "a target of 500") (closed class)."""


def _figure_conflict(
    claim_figs: list[Figure], sent_figs: list[Figure], claim_folded: str = "",
    sent_folded: str = "",
) -> str | None:
    """Name a claim figure whose unit appears in the sentence only with other values.

    Ends of ranges and factors (:func:`is_estimate_figure`) on either side are not compared.
    """
    claim_figs = [f for f in claim_figs if not is_estimate_figure(claim_folded, f)]
    sent_figs = [f for f in sent_figs if not is_estimate_figure(sent_folded, f)]
    for cf in claim_figs:
        if cf.unit is None:
            # a bare count is compared with the sentence's counts of the same noun only
            # ("six lanes" against "four lanes", not against "4 cycle paths")
            noun = _counted_noun(claim_folded, cf)
            same = [sf for sf in sent_figs if sf.unit is None and noun
                    and _counted_noun(sent_folded, sf) == noun]
            if same and not any(_close(cf, sf) for sf in sent_figs if sf.unit is None):
                return f"figure {same[0].value:g} {noun} against the claim's {cf.value:g}"
            continue
        same_unit = [sf for sf in sent_figs if sf.unit == cf.unit]
        if not same_unit:
            continue
        if any(_close(cf, sf) for sf in same_unit):
            continue
        other = same_unit[0]
        return f"figure {cf.value:g} {cf.unit} against {other.value:g} {other.unit}"
    return None


def _counted_noun(folded: str, fig: Figure) -> str:
    """The stem of the word a bare count counts ("six lanes" -> "lan"), or "".

    Only the word right after the figure is read; a month ("14 May"), a function word or a
    number is no counted noun.

    >>> _counted_noun("it carries four lanes", normalize_figures("it carries four lanes")[0])
    'lan'
    """
    m = re.match(r"\s+([a-z][a-z\-]+)", folded[fig.end : fig.end + 40])
    if not m:
        return ""
    word = m.group(1)
    if word in STOPWORDS or word in MONTHS or word in NUMBER_WORDS or word in SCALES:
        return ""
    return _stem(word)


def _close(a: Figure, b: Figure) -> bool:
    if a.value == b.value:
        return True
    hedged = a.is_hedged or b.is_hedged
    tol = 0.1 if hedged else 0.005
    if abs(a.value - b.value) > tol * max(abs(a.value), abs(b.value)):
        return False
    return hedged or within_stated(a, b)


def within_stated(a: Figure, b: Figure) -> bool:
    """Whether two figures differ by no more than half the coarser one's last digit.

    Two figures stated more precisely than they differ are two values ("£98.88", "£98.40");
    "57.2 million" is "57 million" rounded. A value converted from another unit is stated to
    that unit, and years are read as time frames, not values: those always pass.
    """
    if a.written is not None or b.written is not None or "year" in (a.unit, b.unit):
        return True
    return abs(a.value - b.value) <= max(stated_precision(a.value), stated_precision(b.value)) / 2


def stated_precision(value: float) -> float:
    """The unit of the last digit a value is written to.

    0.01 for 98.88, 0.1 for 98.4 (the "98.40" written), 1 for 18,206, 10 for 18,250,
    100,000 for 3.5 million.

    >>> stated_precision(98.88), stated_precision(18250.0), stated_precision(3.5e6)
    (0.01, 10, 100000)
    """
    text = f"{abs(value):.12g}"
    if "e" in text:
        return 0.0
    if "." in text:
        return 10.0 ** -len(text.split(".")[1])
    return 10 ** (len(text) - len(text.rstrip("0"))) if text != "0" else 1


def _antonym_conflict(
    claim_terms: list[str], sent: frozenset[str], claim_folded: str, sent_folded: str
) -> str | None:
    """An antonym of a claim word that the sentence says instead of it, or None.

    Both are words of ``_ANTONYM_PAIRS`` as written or regular forms of them
    (:func:`regular_forms`): a word that only shares an antonym's truncation stem is another
    word ("lately" is not "late", "hardly" not "hard", "newly" not "new").
    """
    ants, forms = _antonyms(), _antonym_forms()
    claim_words = set(_WORD_RE.findall(claim_folded))
    sent_words: set[str] | None = None
    for t in claim_terms:
        opp = ants.get(t)
        if opp and t not in sent and claim_words & forms.get(t, frozenset()):
            hit = opp & sent
            if hit:
                if sent_words is None:
                    sent_words = set(_WORD_RE.findall(sent_folded))
                said = sorted(h for h in hit if sent_words & forms.get(h, frozenset()))
                if said:
                    return f"antonym: '{t}' against '{said[0]}'"
    return None


def _frame_conflict(claim_terms: list[str], sent: frozenset[str]) -> str | None:
    members = _frame_members()
    claim_by_cls: dict[str, set[str]] = {}
    for t in claim_terms:
        cls = members.get(t)
        if cls:
            claim_by_cls.setdefault(cls, set()).add(t)
    for cls, vals in claim_by_cls.items():
        if vals & sent:
            continue
        others = {t for t in sent if members.get(t) == cls}
        if others:
            return f"{cls}: '{sorted(vals)[0]}' against '{sorted(others)[0]}'"
    return None
