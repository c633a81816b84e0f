"""Frame reading for the lexical judge: does a sentence speak of the claim's own fact?

A claim is read as a *frame*: its subject (the names it is about), its predicate (the other
content words, read as concepts so that "create 140 positions" and "140 new jobs" meet), its
figures (value and unit, without the years) and its time frame (years, quarters). A sentence
of an article bears on the claim only when the document names the subject and the sentence
carries the claim's predicate or figure in a compatible time frame. What it then says decides
the stance:

* the claim's figure (in any unit or format variant) with the predicate → support; an
  approximate figure ("about 60" for 62) → PARTIAL;
* a different figure of the same quantity (same unit and the same head noun or predicate, not a
  comparison figure such as "up from 97,500") → refutation;
* a negation or denial in the scope of the predicate ("has not blocked", "no plans to close",
  "dismissed claims that") → refutation; an opposite predicate ("raised" against "cut", "fall"
  against "increase") → refutation;
* a plan, expectation or hedge ("intends to close") against a claim of a done fact → PARTIAL;
  so is a sentence without the forward time frame of a claim of the future ("next year",
  "within a decade": ``claim_horizons``);
* an attribution ("a rumour that", "critics say", "posts suggesting") is not the document's own
  assertion → no support (a denial of it still refutes);
* a qualification ("excluding a one-off grant") or a contrast connective ("but") is neither.

Everything here is closed-class English (modal verbs, negations, attribution verbs) and general
paraphrase knowledge of news and filing register (jobs/positions/posts; plant/factory/site;
approve/grant/go-ahead), written from general knowledge, not from any benchmark's labels.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from affidavit.schemas.enums import Stance
from affidavit.schemas.judgments import JudgeResult
from affidavit.tasks.judge_lexical import _EFFECT_DATE_RE as EFFECT_DATE_RE
from affidavit.tasks.judge_lexical import _MAIN_AUX_RE as MAIN_AUX_RE
from affidavit.tasks.judge_lexical import (
    _MAY_MODAL,
    EFFECT_CUES,
    ERROR_ADVERBS,
    MEASURED_UNITS,
    MONEY_UNITS,
    MONTHS,
    NUMERIC_DATE_RE,
    RESTRICTIVE_WORDS,
    STOPWORDS,
    Figure,
    FrameConfig,
    is_estimate_figure,
    name_numbers,
    normalize_figures,
    one_off_month,
    over_is_particle,
    regular_forms,
    tokenize,
    within_stated,
    without_names,
)
from affidavit.tasks.judge_lexical import _MONTH_DAY_WORDS as MONTH_DAY_WORDS
from affidavit.tasks.judge_lexical import _agent_denials as agent_denials
from affidavit.tasks.judge_lexical import _base_form as base_form
from affidavit.tasks.judge_lexical import _days as day_dates
from affidavit.tasks.judge_lexical import _fold as fold_text
from affidavit.tasks.judge_lexical import _stem as stem

__all__ = [
    "ClaimFrame",
    "date_gate",
    "published_before_claim",
    "DocFrames",
    "FrameConfig",
    "FrameVerdict",
    "judge_frames",
    "parse_claim_frame",
    "parse_doc_frames",
]


# ---------------------------------------------------------------------------------------------
# Lexicons.

_CONCEPT_GROUPS = """job jobs position positions post posts role roles vacancy vacancies worker
workers work staff employee employees people person persons headcount recruit
recruits personnel workforce|hire hires hired hiring recruit recruited recruiting recruitment
create creating created add adding added|factory plant site mill facility
|close closes closed closing closure shut shuts shutting shutdown scrap scraps scrapped scrapping
axe axes axed axing remove removes removed removal discontinue discontinued cease ceased withdraw
withdraws withdrawn withdrawal withdrew halt halts halted halting suspend suspends suspended
suspending
|open opens opened opening launch launched reopen reopened reopening|approve approves approved
approval grant granted permission permit permitted backed endorse endorsed
allow allowed consent go-ahead authorise authorised authorize authorized license licensed
licenses licensing
|reject rejects rejected rejection refuse refused refusal refuses block blocked blocks veto
vetoed oppose opposed prohibit prohibited ban bans banned banning
|increase increases increased increasing rise rises rose risen rising grow grows grew grown
growth gain gains gained climb climbed up raise raised raises lift lifted boost boosted
jump jumped double doubled|decrease decreases decreased decreasing fall falls fell fallen
falling drop drops dropped decline declined declines cut cuts cutting reduce reduced reduces
reduction lowered slash slashed trim trimmed shrink shrank down lowering slip slips slipped
halve halves halved halving
|revenue revenues sales turnover|contract contracts deal deals agreement agreements pact pacts
partnership partnerships|buy buys bought acquire acquired acquisition takeover purchase
purchased transaction transactions merger mergers merge merges merged merging
|sell sells sold disposal dispose disposed
|win wins won winner take took taken
|budget budgets|fine fined fines penalty penalties penalised penalized sanction sanctions
|hurt injure injured injuring injury injuries wounded
|cost costs costing price prices|passenger passengers traveller travellers
rider riders journey journeys trip trips|visitor visitors visit visits attendance admissions
|home homes dwelling dwellings house houses housing unit units apartment apartments flat flats
|charge charges fee fees toll tolls fare fares tariff tariffs|begin began begun beginning start
started starts commence commenced enter entered|carry carries carried handle handled handles
serve served|employ employs|council councillors committee cabinet board
|film films movie movies|novel novels book books title titles|capacity certified
|keep keeps kept retain retained retains maintain maintained preserve preserved stay stays
remain remains continue continues|forecast guidance outlook|spend spent spending expenditure
capex|scheme schemes application applications project projects development developments
|vessel vessels ferry ferries ship ships boat boats|company companies firm firms business
businesses|final last|overrun overruns overran overspend overspent overspending
|vote votes voted ballot|paid pay pays payment payable consideration|stake stakes
shareholding shareholdings|venue venues arena arenas stadium stadiums
|relocate relocates relocated relocating relocation move moves moved moving switch switches
switched|debut debuted entry entered
|extension extensions extend extends extended extending expand expands expanded expansion
lengthen lengthened longer enlarge enlarged enlargement|height heights tall taller
|unchanged stable plateau plateaued plateaus|dismiss dismisses dismissed dismissal sack
sacks sacked sacking oust ousts ousted|arrest arrests arrested arresting detain detains
detained detaining|profit profits surplus surpluses ebit|deficit deficits|strike strikes walkout
walkouts stoppage stoppages|cancel cancels cancelled canceled cancelling canceling cancellation
cancellations|file files filed filing submit submits submitted submitting submission lodge
lodges lodged lodging"""
"""Paraphrase groups of news, filing and notice register (general English). A word may sit in
several groups ("employ"); its first group is its concept. Groups are keyed by stem, so words
whose stem is a common adjective ("higher" and "lower" stem to "high" and "low", as in "high
confidence", "low-margin") are left out."""

_OPPOSITES = """increase decrease|open close|approve reject|hire close|buy sell|keep close
|begin close|unchanged increase|unchanged decrease|surplus deficit|pass fail|passed failed"""
"""Concept pairs that cannot both hold of the same thing ("hire vs close, open vs shut, approve
vs reject, rise vs fall"), named by a word of each group."""

_LIGHT_VERBS = frozenset(
    """give gave given gives make made makes take took taken takes have has had get got gets
    do did does put puts completely fully entirely totally wholly partly partially currently
    now already recently finally officially formally effectively early late mid report
    reported reports reporting said say says announce announced announces stated booked
    recorded stood stand stands""".split()
)
"""Light verbs, verbs of reporting and degree adverbs: they carry no predicate of their own
("gave the go-ahead", "reported revenue of", "shutting down completely", "stood at $640
million")."""

_SCHEDULED_VERBS = (
    "be|start|begin|open|reopen|close|end|finish|launch|go|come|take|make|meet|visit|speak|"
    "announce|appear|stand|run|face|attend|expire|merge|welcome|have|return|release|publish|"
    "report|resume|arrive|leave|sign|hold|give|deliver|vote|decide|rule|testify|retire|"
    "complete|debut|air|premiere|enter|submit|present|receive|hear|host|play|perform|fly|"
    "travel|become|unveil|join|step|reach|pay|rise|fall|increase|double|move|hand|lift|stop|"
    "get|set|hit|address|outline|sit|tour|conclude|expand|introduce|list|issue|lead|marry|"
    "sail|serve|undergo|wed"
)
"""Base verbs of scheduled events in news register ("is due to open", "was due to testify"):
"due to" before one of them is a schedule; before a noun phrase it gives a cause ("due to
cosmic rays", "due to human activity"). Closed list written from general English usage."""

_DUE_CAUSE_RE = re.compile(rf"\bdue to\b(?!\s+(?:{_SCHEDULED_VERBS})\b)")
"""A causal "due to" (before anything but a scheduled event's verb): read as "caused by"."""

_REJECTED_PROPOSAL_RE = re.compile(
    r"\b(reject\w*|refus\w*|turn(?:ed|s|ing)? down|threw out|vot\w* against)\s+"
    r"(?:(?:an?|the|its|their|his|her|[\w-]+'s?|[\w-]+s')\s+){0,2}"
    r"(proposals?|plans?|bids?|calls?|motions?|requests?|recommendations?)\s+to\b"
)
_UNAPPROVED_PROPOSAL_RE = re.compile(
    r"\b(?:not|never)\s+(?:approv\w*|back\w*|pass\w*|adopt\w*|accept\w*)\s+"
    r"(?:an?|the|its|their)\s+(proposals?|plans?|bids?|motions?|requests?|recommendations?)"
    r"\s+to\b"
)
"""A refused proposal ("rejecting a proposal to close four", "did not approve the plan to
shut"): what it proposed does not happen, which ``_PHRASES`` writes as "to not close"."""

_HALVING_RE = re.compile(
    r"\bhalv(?:e|es|ed|ing)\b"
    r"|\b(?:by\s+(?:a\s+)?|in\s+)half\b(?![-\s]+(?:a|an|the|of|past|time)\b)"
)
"""Halving ("halved", "cut by half", "in half"; not "in half an hour"): a cut (the verb is in
the decrease concept) of 50 percent, a figure (``_quantities``), so that a cut of 25 percent is
another value of it."""

_PAST_BASE = (
    r"than\s+(?:(?:in\s+)?(?:a|the|one)\s+(?:year|month|quarter|decade)\s+(?:earlier|before)"
    r"|(?:twelve|12)\s+months\s+(?:earlier|before)"
    r"|(?:in\s+)?(?:the\s+)?(?:previous|prior|preceding)\s+(?:year|month|quarter|season)"
    r"|(?:in\s+)?(?:19|20)\d\d(?:-\d\d)?\b|last\s+year|a\s+year\s+ago"
    r"|(?:the\s+)?(?:one|deal|contract|agreement|scheme|system)\s+(?:it|they|that\s+it)\s+"
    r"(?:replaces|replaced|succeeds)|(?:its|their|the)\s+predecessors?)"
)
"""The base of a comparison with an earlier time or the thing replaced ("than a year earlier",
"than in 2023", "than the one it replaces")."""

_DECLINED_RE = re.compile(
    r"\bdeclin(?:ed|es|e|ing)\b(?=\s+(?:the|an?|its|their|his|her|this|that|all|any)\b"
    r"|\s+to\s+(?![\d$€£]|about\b|around\b|just\b))"
)
""""declined" as a refusal (rewritten "refused"), not a fall."""

_PAST_BASE_RE = re.compile(r"\b" + _PAST_BASE)
"""The base of a comparison with the past where it stands in a text (``_PAST_BASE``)."""

_COMPARED_WITH_PAST = [
    (rf"\b(?:fewer|less|lower|smaller)\b(?=(?:\s+[\w'’-]+){{0,12}}?\s+{_PAST_BASE})",
     "decreased"),
    (rf"\b(?:more|higher|greater|larger|bigger)\b(?=(?:\s+[\w'’-]+){{0,12}}?\s+{_PAST_BASE})",
     "increased"),
]
"""A comparison with an earlier time is a change: "fewer two-year-olds had the jab in 2024 than
a year earlier" states a fall (and "more ... than in 2023" a rise), as "slipped" or "rose" do;
"fewer" is then no degree of the claim."""

_PHRASES = [
    *_COMPARED_WITH_PAST,
    (r"\bgo[- ]ahead\b", "approval"),
    # "for grown-ups with psoriasis": adults, not a rise ("grown")
    (r"\bgrown[- ]ups?\b", "adults"),
    # "refuse-derived fuel", "household refuse", "refuse collection": waste, not a refusal
    (r"\brefuse(?=[- ](?:derived|collection|collectors?|disposal|tips?|sacks?|bins?|trucks?|"
     r"lorr(?:y|ies))\b)", "waste"),
    (r"\b(household|domestic|municipal|commercial)\s+refuse\b", r"\1 waste"),
    (r"(%|\bper\s?cent|\bpercent)\s+full\b", r"\1 of capacity"),  # "38% full": of its capacity
    (r"\bgave (?:the )?green light\b", "approved"),
    # "has won approval", "secured planning consent": the approval given, the verb light
    (r"\b(?:w[oi]ns?|winning|gain(?:ed|s|ing)?|secur(?:ed|es|e|ing)|receiv(?:ed|es|e|ing)|"
     r"obtain(?:ed|s|ing)?)\s+((?:[\w'’-]+\s+){0,2}?)(approval|authori[sz]ation|clearance|"
     r"consent|go-ahead)\b", r"\1\2"),
    (r"\bvoted? through\b", "approved"),
    (r"\bturn(?:ed|s)? down\b", "refused"),
    (r"\bsa(?:id|ys|y) yes to\b", "approved"),
    (r"\bsa(?:id|ys|y) no to\b", "refused"),
    # "cleared the takeover": a regulator's approval of a deal (not "cleared the snow")
    (r"\bclear(?:ed|s|ing)?\b(?=\s+(?:the\s+)?(?:[\w'’-]+\s+){0,4}?(?:takeover|merger|deal|"
     r"acquisition|sale|bid|purchase|drug|vaccine|medicine|treatment)s?\b)", "approved"),
    # "cleared Tremaxil for psoriasis patients aged 12 to 17": a product approved for a use
    (r"\bclear(?:ed|s|ing)?\b(?=\s+[\w'’-]+\s+for\s+(?:[\w'’-]+\s+){0,2}?(?:use|sale|"
     r"treatment|patients|adults|children|people|marketing)\b)", "approved"),
    # "refuse planning permission" refuses: the permission is the thing refused, not granted
    (r"\b(refus\w*|withh[eo]ld\w*|den(?:y|ied|ies)|reject\w*)\s+(?:\w+\s+){0,3}?"
     r"(?:permission|consent|approval|authori[sz]ation|licen[cs]e|clearance)\b", r"\1"),
    # "rejecting an officers' proposal to close four": what was proposed does not happen
    (_REJECTED_PROPOSAL_RE.pattern, r"\1 the \2 to not"),
    (_UNAPPROVED_PROPOSAL_RE.pattern, r"rejected the \1 to not"),
    (r"\b(?:threw|thrown|throws?|throwing) out\b", "rejected"),
    # "called off 212 flights": cancelled them (not "called off the search", a halt, read the
    # same way)
    (r"\bcall(?:ed|s|ing)? off\b", "cancelled"),
    # "declined the application", "declined to approve": a refusal ("declined 4%", "declined
    # to 91%" and "sales declined" are falls)
    (_DECLINED_RE.pattern, "refused"),
    (r"\bvot(?:ed|es|e|ing) against\b", "rejected"),
    (r"\bvot(?:ed|es|e|ing) down\b", "rejected"),  # "voted down its budget", as "turned down"
    (r"\bvot(?:ed|es|e|ing) (?:in favou?r of|for)\b", "approved"),
    (r"\bshut(?:ting|s)? down\b", "closing"),
    # "a local start-up": a young company (a noun), not a start or a rise
    (r"\bstart-ups?\b", "startup"),
    # "taking Lormidex off the market for good": a product discontinued, not a recall of
    # some of its batches
    (r"\b(?:pull(?:ed|s|ing)?|took|taken|takes|taking|take|withdr[ae]w[ns]?|withdrawing)\s+"
     r"((?:[\w'’-]+\s+){0,4}?)(?:off|from)\s+(?:the\s+)?(?:market|shelves|sale)\s+"
     r"(?:for\s+good|permanently|for\s+ever|forever)\b", r"discontinued \1"),
    # "pulled its kettles off the market", "withdrawn from sale": a recall
    (r"\b(?:pull(?:ed|s|ing)?|took|taken|takes|taking|withdr[ae]w[ns]?|withdrawing)\s+"
     r"((?:[\w'’-]+\s+){0,4}?)(?:off|from)\s+(?:the\s+)?(?:market|shelves|sale)\b",
     r"recalled \1"),
    # "has gone into administration": entered it
    (r"\b(?:go|goes|going|gone|went)\s+into\b", "entered"),
    # a place's closing or opening in idiom: "ceased trading", "stopped seeing patients",
    # "closed its doors"; "opened their doors"
    (r"\b(?:stop(?:ped|s|ping)?|ceas(?:ed|es|e|ing))\s+(?:seeing\s+(?:patients|customers|"
     r"clients)|operating|operations|trading)\b", "closed"),
    (r"\b(?:clos(?:ed|es|e|ing)|shut(?:s|ting)?)\s+(?:its|their|the)\s+doors\b", "closed"),
    (r"\bopen(?:ed|s|ing)?\s+(?:its|their|the)\s+doors\b", "opened"),
    (r"\b(?:switch|turn)(?:ed|es|s|ing)? off\b", "closed"),
    (r"\b(?:switch|turn)(?:ed|es|s|ing)? on\b", "opened"),
    (r"\b(?:a|the)?\s*round[- ]the[- ]clock\b|\baround the clock\b", " 24-hour"),
    # "has taken over the publisher" is an acquisition; "took over as chair", "took over
    # from her" and "took over the role" are a succession, not one
    (r"\b(?:took|taken|takes|taking|take)\s+over\b(?!\s+(?:as|from|the\s+role|"
     r"responsibility|duties|the\s+running|command|control)\b)", "acquired"),
    # "expects to make Tremaxil available to pharmacies": a launch (a product, a service)
    (r"\bma(?:ke|kes|de|king)\s+((?:[\w'’-]+\s+){0,3}?)(?:available|accessible)\b",
     r"launch \1"),
    (r"\broll(?:ed|s|ing)?\s+out\b", "launched"),
    # "abandoned its bid to acquire Marlow Dairies": the acquisition did not happen
    (r"\b(?:abandon(?:ed|s|ing)?|dropp(?:ed|ing)|scrapp(?:ed|ing)|withdr(?:ew|awn|aws))\s+"
     r"(?:its|their|his|her|the|a)\s+(?:bid|plans?|attempt|offer|proposals?)\s+to\b", "did not"),
    (r"\btake on\b", "hire"),
    (r"\btaking on\b", "hiring"),
    (r"\bcame into (?:operation|effect|force|service)\b", "started"),
    (r"\bput into (?:passenger )?service\b", "started"),
    # a statement left standing by a correction ("... remain as published"): no state of the
    # thing it is about
    (r"\bremain(?:s|ed)?\s+as\s+(?:published|stated|announced|reported|issued|printed)\b",
     "unaffected"),
    # a steady state: "remains the same", "has levelled off" (not a change either way)
    (r"\b(?:remain|stay)(?:s|ed)?\s+(?:the\s+same|constant|flat|level)\b", "unchanged"),
    (r"\blevel(?:l?ed|l?ing|s)?\s+off\b", "plateaued"),
    # "have stabilised" (a state reached); "stability" and "to stabilise" are no such state
    (r"\b(?:has|have|had|was|were|been)\s+stabili[sz]ed\b", "unchanged"),
    # a financial year written as its months ("the twelve months to March 2025")
    (r"\b(?:twelve|12)[- ]months? (to|ended|ending)\b", r"year \1"),
    # a quarter written as its months, or as the year's last ("the final quarter of 2024")
    (r"\bfirst three months of\b", "first quarter of"),
    (r"\b(?:three|3)[- ]months? (to|ended|ending)\b", r"quarter \1"),
    (r"\b(?:thirteen|13)[- ]weeks? (to|ended|ending)\b", r"quarter \1"),
    (r"\b(?:fifty[- ]two|52|fifty[- ]three|53)[- ]weeks? (to|ended|ending)\b", r"year \1"),
    (r"\b(?:last|final) (?:three months|quarter) of\b", "fourth quarter of"),
    # a length written as a decade, an agreement signed in an idiom
    (r"\b(?:a|one) decade\b", "ten years"),
    (r"\bdecade-long\b", "ten-year"),
    (r"\bput(?:s|ting)? pen to paper\b(?:\s+on\b)?", "signed"),
    # money handed over: "handed over £84m for", "splashed out €22 million on"
    (r"\b(?:hand(?:ed|s|ing)?\s+over|(?:splash|fork|shell)(?:ed|es|s|ing)?\s+out|"
     r"stump(?:ed|s|ing)?\s+up)\b(?=\s+(?:about\s+|around\s+|some\s+|nearly\s+)?(?:[£$€]|"
     r"us\$|eur\b|gbp\b|usd\b|\d))", "paid"),
    (r"\bsign(?:ed|s|ing)? off on\b", "approved"),
    # "contract out" is to outsource, not a contract (the noun, read as a deal)
    (r"\bcontract(?:s|ed|ing)?\s+out\b", "outsource"),
    (r"\b(?:went|gone) up\b", "rose"),
    (r"\bgo(?:es)? up\b", "rise"),
    (r"\bgoing up\b", "rising"),
    (r"\b(?:went|gone) down\b", "fell"),
    (r"\bgo(?:es)? down\b", "fall"),
    (r"\bgoing down\b", "falling"),
    # a comparative with a figure or "than" is a rise or a fall ("1% higher than in 2023");
    # alone, "higher" and "lower" are adjectives ("high confidence", "lower house")
    (r"(%|\bpercent|\bper cent)\s+higher\b", r"\1 rose"),
    (r"\bhigher(?=\s+than\b|\s+by\s+\d)", "rose"),
    (r"(%|\bpercent|\bper cent)\s+lower\b", r"\1 fell"),
    (r"\blower(?=\s+than\b|\s+by\s+\d)", "fell"),
    # "from fall 2025", "the fall semester": the season, not a fall
    (r"\bfall(?=\s+(?:of\s+)?(?:\d{4}|semesters?|terms?|quarters?|sessions?)\b)", "autumn"),
    # "an operating loss of £2.1m", "a pre-tax loss": a deficit, the opposite of a profit
    # ("job losses", "loss of life" are other losses)
    (r"\b(operating|pre-?tax|post-?tax|net|trading|underlying|annual|full-year|half-year)\s+"
     r"loss(?:es)?\b", r"\1 deficit"),
    (_DUE_CAUSE_RE.pattern, "caused by"),
    (r"\bper cent\b", "percent"),
    (r"\b(?:shall|must|will|may|does|did|do|would|should) not exceed\b", "at most"),
    (r"\bnot (?:less|fewer) than\b", "at least"),
    (r"\bno (?:less|fewer) than\b", "at least"),
    (r"\bnot more than\b", "at most"),
    (r"\bno more than\b", "at most"),
]
"""Multi-word predicates read as one word (general English)."""

NEGATION_CUES = frozenset(
    """not no never none nobody nothing neither nor without cannot n't untrue false""".split()
)
"""Closed-class negation words (a negation scopes over what follows it)."""

DENIAL_CUES = frozenset(
    """deny denies denied denying dismiss dismissed dismisses rebut rebutted refute refuted
    retract retracted retraction incorrect wrong erroneous error mistaken inaccurate
    correction""".split()
)
"""Words by which a speaker rejects a statement as false (a denial of X refutes X)."""

ATTRIBUTION_CUES = frozenset(
    """rumour rumours rumor rumors rumoured rumored allegation allegations allege alleged
    allegedly reportedly speculation speculated speculate claim claims claimed claiming
    suggest suggests suggested suggesting suggestion critics campaigners petition posts
    gossip unconfirmed hearsay supposedly purportedly""".split()
)
"""Words marking a statement as someone else's (not the document's own assertion)."""

PLAN_CUES = frozenset(
    """plan plans planned planning intend intends intended intention intent expect expects
    expected expecting expectation will would shall aim aims aimed aiming propose proposes
    proposed proposal proposals consider considers considering considered could may might
    set due scheduled schedule hope hopes hoped hoping likely forecast forecasts target
    targets targeting seek seeks seeking want wants wanted going intending prepare prepares
    preparing""".split()
)
"""Modal, future and planning words: an event that is intended, expected or proposed has not
(as stated) happened."""

_NEG_RE = re.compile(
    r"\b(?:(?<!\bmust )(?<!\bshall )"
    rf"not(?!\s+(?:\w+\s+){{0,2}}?(?:{RESTRICTIVE_WORDS}|least)\b)|"
    r"no(?!\.\s*\d)|never|none|nobody|nothing|neither|nor|"
    r"cannot|untrue|false|refus(?:e|es|ed|ing)\s+to(?=\s+[a-z]))\b|(?<!\bmust)(?<!\bshall)n't\b"
)
"""Negation cues of a sentence, read after ``_rewrite`` ("refused to renew", and so "declined to
approve", among them; "declined to 40 million" stays a fall). A prohibition ("customers must not
use a hosepipe", "shall not exceed") states a rule, not that something did not happen: its "not"
is no cue (a hosepipe ban's own notice does not deny the ban). "without" is not one: like a
claim's (see ``ClaimFrame.is_negated``), a sentence's "without" states a condition or a manner
("warms the surface above what it would be without this atmosphere"), not a denial of its
predicate."""

_REASON_NEG_RE = re.compile(r"\b(?:for|by|over|after|of)\s+not\s+\w+ing\b")
"""A negated act given as a reason ("fined for not paying compensation"): what it negates is
the reason's verb, not the predicate of the clause it belongs to."""


def _blank(m: re.Match[str]) -> str:
    """The match replaced by as many spaces (offsets after it are kept)."""
    return " " * len(m.group(0))


_DENIAL_RE = re.compile(
    r"\b(?:den(?:y|ies|ied|ying)|dismiss(?:es|ing)?|(?<!was )(?<!were )(?<!been )(?<!being )"
    r"dismissed|dismissed(?=\s+as\b)|rebut(?:s|ted)?|refut(?:e|ed|es)|"
    # "rejected claims by the union that ...": a statement rejected is denied (a rejected
    # application or offer is a refusal, read as such elsewhere)
    r"reject(?:s|ed|ing)?(?=\s+(?:the\s+|these\s+|those\s+)?(?:claims?|suggestions?|reports?|"
    r"allegations?|accusations?|assertions?)\b)|"
    r"retract(?:s|ed|ion)?(?!\s+(?:of\s+)?(?:[\w'’-]+\s+){0,2}(?:papers?|"
    r"articles?|stud(?:y|ies)|publications?)\b)|incorrect|wrong|erroneous|inaccurate|mistaken|"
    r"in error|"
    r"corrections?|corrected)\b"
)
_ATTRIB_RE = re.compile(
    r"\b(?:rumou?rs?|rumou?red|allegations?|alleged(?:ly)?|alleges?|reportedly|"
    r"speculat\w*|claims? that|claimed|claiming|suggest(?:s|ed|ing)?|suggestions?|critics|"
    r"campaigners|petition|(?:online|social media|forum) posts|posts? (?:online|on social)|"
    r"gossip|unconfirmed|supposedly|purportedly|hearsay|"
    # "declined to comment on reports that it would acquire", "amid press reports that": the
    # reports' statement, not the document's (a company "reports that" is its own statement)
    r"(?:on|amid|about|despite|following|media|press|news|newspaper|recent)\s+reports?\s+"
    r"(?:that|of)|"
    r"word (?:on|in|around|from)\b[^.;]{0,40}?\bis that|word is that|has it that|"
    r"(?:refer to|there is|there has been|amid|hear(?:d)?|heard)\s+(?:\w+\s+)?talk\b[^.;]{0,40}?"
    r"\bthat|whispers?\b[^.;]{0,40}?\bthat|"
    r"(?:is|are|was|were) (?:said|rumou?red|reported) to|"
    r"(?:people|persons?|sources?|insiders?) (?:familiar with|close to|briefed on)|"
    r"(?:ha(?:ve|s|d)\s+(?:also\s+|\w+ly\s+)?been|were|was|being)\s+told(?!\s+to\b)|"
    r"(?:ha(?:ve|s|d)\s+been|is|are|was|were|keeps?|kept)\s+telling\s+(?:\w+\s+){0,3}?that|"
    r"(?:say|says|said)\s+(?:\w+\s+){0,3}?told\s+(?:them|us|him|her|me)\b(?!\s+to\b)|"
    r"argues?|argued|arguing|contends?|contended|insists?|insisted|"
    # (a "call for project grants" is a funding round, not someone calling for a thing)
    r"(?:calls?|called|calling) (?:on|upon|for(?!\s+(?:[a-z]+\s+)?(?:proposals|applications|"
    r"grants|tenders|bids|projects|papers|evidence|submissions|nominations|entries)\b))|"
    r"urges?|urged|"
    r"urging|demands? that|demanded that|"
    r"(?:fears?|feared|worr(?:y|ies|ied)|believes?|believed|thinks?|thought|concerns?|"
    r"maintains?|maintained|asserts?|asserted) that|"
    # the nouns of those verbs: "leading to a belief that populations are increasing", "the
    # widespread perception that crime is rising" (someone's belief, not the document's word)
    r"(?:beliefs?|perceptions?|impressions?|notions?|myths?|misconceptions?|assumptions?)"
    r" that)\b"
)
_CONTRARY_RE = re.compile(r"\bcontrary to\b[^,;:.]{0,80}[,;:]")
"""A phrase that names a statement only to set the sentence against it: "Contrary to some posts
on social media, Hollins Water has not been fined". The attribution cue inside it ("posts")
marks the statement rejected, not the sentence's own clause."""


def attribution(folded: str) -> re.Match[str] | None:
    """The attribution cue of a folded sentence, outside a "contrary to" phrase.

    ``_ATTRIB_RE`` searched with ``_CONTRARY_RE``'s phrase blanked; offsets are the sentence's.
    """
    return _ATTRIB_RE.search(_CONTRARY_RE.sub(_blank, folded))


_CLAIM_DENIAL_RE = re.compile(
    _DENIAL_RE.pattern[:-3]
    + r"|disprov(?:e|ed|en|es|ing)|debunk(?:s|ed|ing)?|flawed|myths?|hoax(?:es)?|"
    r"fabricated|falsified|discredited|overstated|exaggerated)\b"
)
"""A claim that something was denied, disproved or is a myth negates that thing: a sentence
that states it plainly refutes the claim, and only a negation or denial supports it."""
_PLAN_RE = re.compile(
    rf"\b(?:will|would|shall|could|might|{_MAY_MODAL}|plans? to|planned|planning to|"
    r"intends?|intended|intention|intending|expects?|expected|expecting|expectation|"
    r"aims? to|aiming to|proposes?|proposals? to|(?<!\bthe )(?<!\bits )(?<!\btheir )proposed|"
    r"considering|considers|set to|"
    rf"due to(?=\s+(?:{_SCHEDULED_VERBS})\b)|scheduled(?=\s+(?:to|for|in|on|at|by|until)\b)|"
    r"hopes? to|hoping to|likely|seeks? to|seeking to|wants? to|going to|"
    r"prepar(?:es|ing) to|on track to|is to|are to)\b"
)
"""Cues read on the sentence's own words (not stems: "reportedly" is not "report", "planning
committee" is not a plan, a "scheduled flight" is a timetabled one, not one still to come).
"the proposed" is what a decision is taken on, not the sentence's mood: "has cleared the
proposed merger" states a done clearance (a "planned" or "expected" thing is still to come)."""

APPROX_CUES = frozenset(
    "about around approximately roughly nearly almost some over more than less under up".split()
)

_COMPARISON_RE = re.compile(
    r"(?:compared (?:with|to)|from|versus|vs\.?|previously|prior year|a year earlier|"
    r"last year|up from|down from|against|than)\s*$"
)
"""Words right before a figure that make it the comparison value, not the reported one."""

DEGREE_CLASSES: dict[str, frozenset[str]] = {
    "main": frozenset("""main primary chief principal dominant predominant foremost major
        biggest largest""".split()),
    "only": frozenset("only sole solely exclusively alone entirely purely".split()),
    "most": frozenset("most majority mostly largely predominantly".split()),
    "minor": frozenset("""minuscule tiny negligible insignificant minor trivial little
        small slight marginal""".split()),
    "half": frozenset("half".split()),
    "more": frozenset("more greater higher larger bigger stronger faster".split()),
    "less": frozenset("less fewer lower smaller weaker slower".split()),
    "all": frozenset("all every entire whole universal universally".split()),
    "record": frozenset("record unprecedented highest lowest hottest coldest warmest".split()),
}
"""Words of degree, quantity and comparison, in classes of near-synonyms ("main" cause,
"only" cause, "less than half", "larger than"). What a claim asserts includes its degree: a
sentence that states the rest without a word of the same class supports it only in part. A hand
list of ordinary English (no corpus words)."""

_DEGREE_WORD_RE = re.compile(
    r"\b(?:" + "|".join(sorted({w for ws in DEGREE_CLASSES.values() for w in ws})) + r")\b"
)
_DEGREE_OF_FIGURE_RE = re.compile(r"^\s*(?:than\s+)?(?:[$€£]?\d|one\b|a\s+(?:half|third)\b)")


_WHOLE_PERIOD_RE = re.compile(
    r"\b(?:the\s+)?(?:whole|entire|all)\s+(?:of\s+)?(?:the\s+)?(?:(?:calendar|financial|fiscal|"
    r"school)\s+)?(?:year|month|quarter|season|decade|century|\d{4})\b"
)
"""A whole period ("the whole of 2024", "the entire year"): the claim's time frame, not a
degree of what it states."""

_HALF_FIGURE_RE = re.compile(r"\band a half\b|\bhalf an?\b|\b(?:a|one) half\b")


def claim_degrees(folded: str) -> frozenset[str]:
    """The degree classes (:data:`DEGREE_CLASSES`) a claim's words name.

    A degree word right before a figure ("more than 1,000", "less than 5%") qualifies the
    figure, which the figure rules read; it is not counted.

    Args:
        folded: The claim, folded (lowercase, quotes and dashes normalised).

    Returns:
        The class names, e.g. ``frozenset({"main"})``.

    >>> sorted(claim_degrees("water vapour is the main greenhouse gas"))
    ['main']
    >>> sorted(claim_degrees("more than 1,000 people attended"))
    []
    >>> sorted(claim_degrees("up by three and a half percent"))
    []
    >>> sorted(claim_degrees("methane is the only cause")), sorted(claim_degrees("is only tall"))
    (['only'], [])
    >>> sorted(claim_degrees("3.84 million passengers over the whole of 2024"))
    []
    """
    out = set()
    folded = _HALF_FIGURE_RE.sub(" ", folded)  # "three and a half percent" is a figure
    folded = _WHOLE_PERIOD_RE.sub(" ", folded)  # "over the whole of 2024" is a time frame
    for m in _DEGREE_WORD_RE.finditer(folded):
        if _DEGREE_OF_FIGURE_RE.match(folded[m.end() :]):
            continue
        if m.group(0) in ("only", "alone", "entirely", "purely") and not re.search(
            r"\bthe\s+$", folded[max(0, m.start() - 8) : m.start()]
        ):
            # "the only cause" asserts that nothing else is one; an adverb "only" ("is only
            # American", "only worked in film") restricts an attribute the sentence states,
            # and the antonym rule reads "also" against it.
            continue
        out |= {c for c, ws in DEGREE_CLASSES.items() if m.group(0) in ws}
    return frozenset(out)


def missing_degree(degrees: frozenset[str], folded_sentences: Sequence[str]) -> str:
    """The first of a claim's degree classes that none of the sentences names ("" if none).

    Args:
        degrees: The claim's classes (:func:`claim_degrees`).
        folded_sentences: The evidence sentences, folded.

    Returns:
        A class name, or ``""`` when every class is named.

    >>> missing_degree(frozenset({"main"}), ["co2 is the primary greenhouse gas"])
    ''
    >>> missing_degree(frozenset({"main"}), ["co2 is a greenhouse gas"])
    'main'
    """
    if not degrees:
        return ""
    found = {w for f in folded_sentences for w in _DEGREE_WORD_RE.findall(f)}
    for c in sorted(degrees):
        if not (DEGREE_CLASSES[c] & found):
            return c
    return ""


_HORIZON_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twenty": 20, "thirty": 30, "forty": 40,
    "fifty": 50, "hundred": 100,
}
_HORIZON_UNITS = {"year": 1, "decade": 10, "century": 100}
_HORIZON_NUM = r"\d+(?:\s*(?:-|–|to|or)\s*\d+)?|a\s+few|few|several|" + "|".join(_HORIZON_NUMBERS)
_HORIZON_RE = re.compile(
    r"(?<!the )\bnext\s+(?P<unit0>year|decade|century)\b"
    r"|\b(?:in|over|during|within)\s+(?:the\s+)?(?:next|coming)\s+"
    rf"(?:(?P<n1>{_HORIZON_NUM})\s+)?(?P<unit1>years?|decades?|centur(?:y|ies))\b"
    rf"|\bwithin\s+(?P<n2>{_HORIZON_NUM})\s+(?P<unit2>years?|decades?|centur(?:y|ies))\b"
    r"(?!\s+of\b)"
)
"""A time frame counted forward from when the text was written: "next year", "within a
decade", "in the next 35 years", "over the coming decades". Not a frame counted from another
event, as narratives write them: "the next year", "the following year", "within a year of his
death" (closed-class English)."""


def _read_horizons(folded: str) -> dict[str, str]:
    """Forward time frames of a folded text (:data:`_HORIZON_RE`), keyed in years."""
    out: dict[str, str] = {}
    for m in _HORIZON_RE.finditer(folded):
        k = next(x for x in ("0", "1", "2") if m.group("unit" + x))
        unit = m.group("unit" + k)
        base = "century" if unit.startswith("centur") else unit.rstrip("s")
        n = " ".join((m.group("n" + k) or "").split()) if k != "0" else ""
        if n in _HORIZON_NUMBERS:
            key = f"{_HORIZON_NUMBERS[n] * _HORIZON_UNITS[base]} year"
        elif n.isdigit():
            key = f"{int(n) * _HORIZON_UNITS[base]} year"
        elif n:  # "a few", "several", a range ("5-20")
            key = f"{re.sub(r'[^0-9]+', '-', n) if n[0].isdigit() else 'few'} {base}"
        elif unit == base:  # "next year", "in the next decade"
            key = f"{_HORIZON_UNITS[base]} year"
        else:  # "over the coming decades"
            key = f"few {base}"
        out.setdefault(key, m.group(0))
    return out


def claim_horizons(folded: str) -> dict[str, str]:
    """The forward time frames a claim of a future or possible event names.

    A frame counted from when the claim was made ("next year", "within a decade") is part of
    what a claim of the future states: a sentence that names no such frame, or another
    ("before mid-century", "within 5-20 years"), supports it only in part. Counts are compared
    in years ("a decade" is "10 years"); "a few", "several" and plural units without a count
    are one key each. A claim with no future or modal word (:data:`_PLAN_RE`) tells a past,
    where such words count from another event ("within a year, he was promoted").

    Args:
        folded: Lowercased text (quotes and dashes normalised).

    Returns:
        Key to the words as written, e.g. ``{"1 year": "next year"}``; empty when none.

    >>> claim_horizons("next year or the year after, the arctic will be free of ice")
    {'1 year': 'next year'}
    >>> sorted(claim_horizons("it will be gone within a decade, or in the next 10 years"))
    ['10 year']
    >>> claim_horizons("sea level could rise over the coming decades")
    {'few decade': 'over the coming decades'}
    >>> claim_horizons("it was published within a year of his death, and closed the next year")
    {}
    >>> claim_horizons("within a year, the company had doubled its sales")
    {}
    """
    if not _PLAN_RE.search(folded):
        return {}
    return _read_horizons(folded)


def missing_horizon(horizons: Mapping[str, str], folded_sentences: Sequence[str]) -> str:
    """The claim's forward time frame, as written, when none of the sentences names it.

    Args:
        horizons: The claim's frames (:func:`claim_horizons`).
        folded_sentences: The evidence sentences, folded.

    Returns:
        The claim's words for its frame ("next year"), or ``""`` when a sentence names one of
        them (or the claim names none).

    >>> missing_horizon({"1 year": "next year"}, ["ice-free within a few decades"])
    'next year'
    >>> missing_horizon({"10 year": "within a decade"}, ["gone in the next ten years"])
    ''
    """
    if not horizons:
        return ""
    named = {k for f in folded_sentences for k in _read_horizons(f)}
    if named & horizons.keys():
        return ""
    return next(iter(horizons.values()))


REVERSAL_CUES = frozenset(
    """overturn overturned overturns reverse reversed reverses quash quashed lift lifted
    undo undid revoke revoked rescind rescinded""".split()
)
"""Verbs that turn their object's polarity ("overturned the refusal" is an approval): a claim
with one is not read for opposite predicates."""

_REVERSAL_RE = re.compile(
    r"\b(?:" + "|".join(sorted(REVERSAL_CUES - {"lift", "lifted"})) + r")\b|"
    r"\blift(?:ed|s|ing)?\s+(?:\w+\s+){0,3}?(?:ban|bans|restrictions?|embargo|moratorium|"
    r"suspension|freeze|curbs?|sanctions?|limits?|caps?|veto|objections?|blocks?|prohibition|"
    r"closure|lockdown)\b"
)
"""A reversal in a sentence. "lift" reverses only a restriction ("lifted the ban"); "lifted
its guidance" is a rise."""

_DATE_NEAR_RE = re.compile(
    r"^(?:st|nd|rd|th)?\s*(?:of\s+)?(?:" + "|".join(
        "january february march april may june july august september october november december"
        .split()) + r")\b"
)
_MONTH_BEFORE_RE = re.compile(
    r"\b(?:" + "|".join(
        "january february march april may june july august september october november december"
        .split()) + r")\s*$"
)

_IDENT_BEFORE = frozenset(
    """route line number no platform gate class model version flight type chapter item phase
    series stage level grade terminal runway bus tram ward district minute room unit lot plot
    block""".split()
)
"""Nouns after which a number names a thing ("route 12", "number two") rather than counts it."""

_QUARTER_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "q1": 1, "q2": 2, "q3": 3,
                  "q4": 4}
_MONTHS = MONTHS
_MONTH_ABBR = {m[:3]: i for m, i in _MONTHS.items() if m != "may"}
_QUARTER_RE = re.compile(r"\b(first|second|third|fourth)[- ]quarter\b|\b(q[1-4])\b")
_MONTH_RE = re.compile(r"\b(" + "|".join(_MONTHS) + r")\b")
_YEAR_RE = re.compile(
    r"(?<![\d.,$€£])\b(1[89]\d\d|20\d\d)\b(?![.,]\d)"
    r"(?!\s+(?:votes?|people|persons|jobs|posts|employees|staff|workers|homes|houses|"
    r"apartments|flats|units|signatures|visitors|passengers|riders|members|students|pupils|"
    r"patients|cases|deaths|seats|tickets|vehicles|cars|trips|journeys|customers|users|"
    r"households|residents|copies|entries|applications|objections|responses|complaints)\b)"
)
"""A year: 1800–2099, not a decimal or an amount, and not a count ("receiving 1842 votes")."""


@lru_cache(maxsize=1)
def _concepts() -> dict[str, str]:
    out: dict[str, str] = {}
    for group in _CONCEPT_GROUPS.replace("\n", " ").split("|"):
        words = group.split()
        head = stem(words[0])
        for w in words:
            out.setdefault(stem(w), head)
            out.setdefault(stem(base_form(w)), head)  # "axing" is read as "ax" (tokenize)
    return out


@lru_cache(maxsize=1)
def _concept_forms() -> frozenset[str]:
    """Word forms that carry a concept.

    Each word of ``_CONCEPT_GROUPS`` and its regular inflections (``regular_forms``), with no
    list of exceptions.
    """
    return frozenset().union(
        *(regular_forms(w) for w in _CONCEPT_GROUPS.replace("|", " ").split())
    )


@lru_cache(maxsize=1)
def _concept_heads() -> frozenset[str]:
    return frozenset(_concepts().values())


@lru_cache(maxsize=100_000)
def _word_concept(word: str) -> str:
    """The concept of one folded word, or its stem when it carries none.

    The concept table is keyed by truncation stem, and such stems join unrelated words:
    "factors" and "factory", "consensus" and "consent", "far" and "fare", "closely" and
    "close", "continent" and "continue", "positive" and "position", "authority" and
    "authorise". A
    word whose stem is a concept's but which is no form of a listed word
    (:func:`_concept_forms`) keeps its own sense: its stem marked with ``~``, so that it meets
    the same word elsewhere but neither the concept nor the concept's name as a plain stem.

    >>> _word_concept("factories"), _word_concept("factors"), _word_concept("far")
    ('factor', 'factor~', 'far~')
    """
    if word.endswith("'s"):
        word = word[:-2]
    base = base_form(word)
    t = stem(base)
    c = _concepts()
    if t not in c:
        return t
    return c[t] if base in _concept_forms() or word in _concept_forms() else t + "~"


class _ConceptsIn(dict[str, str]):
    """The concept table as it applies to one text: its own entries override the full table."""

    def get(self, key: str, default: str | None = None) -> str | None:  # type: ignore[override]
        own = dict.get(self, key)
        return own if own is not None else _concepts().get(key, default)


@lru_cache(maxsize=50_000)
def _text_concepts(folded: str) -> Mapping[str, str]:
    """The concept table as it applies to the terms of one folded text (``tokenize`` terms).

    A stem that only words of another sense carry in the text (no word of the text is a form
    of a listed word) maps to the stem marked with ``~`` (see :func:`_word_concept`); every
    other term, a unit's name among them, is looked up in the full table.
    """
    c = _concepts()
    carried: set[str] = set()
    other: set[str] = set()
    for w in set(_WORD_RE.findall(folded)):
        k = _word_concept(w)
        if k.endswith("~"):
            other.add(k[:-1])
        elif (t := stem(base_form(w))) in c:
            carried.add(t)
    return _ConceptsIn({t: t + "~" for t in other - carried})


def _own_terms(terms: Sequence[str], mapping: Mapping[str, str]) -> frozenset[str]:
    """Terms of a text as plain stems, kept marked where they spell a concept's name.

    A word of another sense whose stem is spelt as a concept's name stays marked: "factors"
    is not the concept ``factor`` of "factory".
    """
    heads = _concept_heads()
    return frozenset(
        mapping[t] if t in heads and mapping.get(t, t).endswith("~") else t for t in terms
    )


@lru_cache(maxsize=1)
def _opposites() -> dict[str, frozenset[str]]:
    c = _concepts()
    table: dict[str, set[str]] = {}
    for pair in _OPPOSITES.replace("\n", "").split("|"):
        a, b = (c.get(stem(w), stem(w)) for w in pair.split())
        table.setdefault(a, set()).add(b)
        table.setdefault(b, set()).add(a)
    return {k: frozenset(v) for k, v in table.items()}


@lru_cache(maxsize=1)
def _cue_stems() -> tuple[frozenset[str], ...]:
    def stems(words: frozenset[str]) -> frozenset[str]:
        return frozenset(stem(w) for w in words) | words

    return (
        stems(NEGATION_CUES) | {"not"},
        stems(DENIAL_CUES),
        stems(ATTRIBUTION_CUES),
        stems(PLAN_CUES),
        frozenset(stem(w) for w in STOPWORDS) | STOPWORDS,
    )


@lru_cache(maxsize=1)
def _phrase_res() -> list[tuple[re.Pattern[str], str]]:
    return [(re.compile(p), r) for p, r in _PHRASES]


def _compared_with_past(folded: str) -> str:
    """Rewrite a comparison with an earlier time as a change (``_COMPARED_WITH_PAST``)."""
    for pat, rep in _phrase_res()[: len(_COMPARED_WITH_PAST)]:
        folded = pat.sub(rep, folded)
    return folded


def _rewrite(folded: str) -> str:
    """Rewrite multi-word predicates as one word (see ``_PHRASES``)."""
    for pat, rep in _phrase_res():
        folded = pat.sub(rep, folded)
    return folded


def _concept_terms(folded: str) -> list[str]:
    """Stemmed terms of a folded text, each mapped to its concept."""
    folded = _rewrite(folded)
    c = _text_concepts(folded)
    return [c.get(t, t) for t in tokenize(folded)]


# ---------------------------------------------------------------------------------------------
# Time frames.


@dataclass(frozen=True, slots=True)
class TimeFrame:
    """Years and quarters a text names (empty sets when it names none)."""

    years: frozenset[int]
    quarters: frozenset[int]
    fiscal: frozenset[int] = frozenset()
    """Financial years (or seasons) the text names, each by the calendar year it ends in
    ("2024-25", "the year to June 2024", "its 2025 financial year"): they are not the calendar
    years in ``years``, and a quarter of one is not a calendar quarter."""

    @property
    def empty(self) -> bool:
        """Whether the text names no year, no financial year and no quarter."""
        return not self.years and not self.quarters and not self.fiscal

    dated: bool = False
    """Whether the text dates its period's end in a calendar year ("the quarter to 30 December
    2023", "the year ended 31 March 2025"): a financial year named beside it ("the third
    quarter of the 2024 financial year") names the same period, and the calendar year is its
    span."""

    def spans(self) -> frozenset[int]:
        """Calendar years named, with the two each financial year overlaps (unless ``dated``)."""
        if self.dated and self.years:
            return self.years
        return self.years | frozenset(y - k for y in self.fiscal for k in (0, 1))


_BASE_CUE_RE = re.compile(r"\b(?:than|compared|versus|vs|from)\b|\(\s*(?:1[89]|20)\d\d")
_BASE_YEAR_RE = re.compile(
    r"\b(?:than|compared\s+(?:with|to)|versus|vs\.?)\s+(?:[a-z]+\s+){0,5}?(?:1[89]\d\d|20\d\d)\b"
    r"(?:[-/\u2013]\d\d\b)?"
    r"|\b(?:up|down)\s+from\s+[^,;()]{0,30}?\b(?:in|for)\s+(?:the\s+)?(?:1[89]\d\d|20\d\d)\b"
    r"(?:[-/\u2013]\d\d\b)?"
    r"|\b(?:declines?|decreases?|falls?|drops?|rises?|increases?|growth|gains?|up|down)\b"
    r"[^;()]{0,40}?\bfrom\s+(?:the\s+)?(?:1[89]\d\d|20\d\d)\b(?:[-/\u2013]\d\d\b)?"
    r"|\(\s*(?:1[89]\d\d|20\d\d)(?:[-/\u2013]\d\d)?\s*:"
)
"""A comparison and its base year ("18% smaller than in 2024", "down from 158 in 2023-24",
"compared with the first quarter of 2023", "a decline of 428 students, or 2.3 percent, from
2023-24", "2.41 TWh in 2024 (2023: 2.05 TWh)"): the year the figure is measured against, not
the period it is of."""


_FY = r"(?:financial|fiscal)\s+year"
_FISCAL_RES = (
    # "the year to June 2024", "financial year ended 31 March 2025", "the twelve months to the
    # end of March 2023"
    re.compile(r"\b(?:(?:(?:financial|fiscal)\s+)?year|(?:twelve|12)\s+months)\s+"
               r"(?:to|ended|ending)\s+(?:the\s+end\s+of\s+)?(?:\d{1,2}\s+)?"
               r"(?:january|february|march|april|may|june|july|august|september|october|"
               r"november|december)\s+(?:\d{1,2},?\s+)?(20\d\d|19\d\d)\b"),
    # "the 2025 financial year", "financial year 2025", "fiscal 2024", "FY2025", "FY25", and a
    # quarter or half of one ("the third quarter of its 2025 financial year", "Q3 FY2025"),
    # which is no calendar quarter
    re.compile(r"\b(?:(?:(?:first|second|third|fourth|final|last)\s+(?:quarter|half)|q[1-4]|"
               r"h[12])\s+(?:of\s+)?(?:(?:its|the|our|their)\s+)?)?"
               r"(?:(20\d\d|19\d\d)\s+" + _FY + r"|" + _FY + r"\s+(?:of\s+)?(20\d\d|19\d\d)"
               r"|fiscal\s+(20\d\d|19\d\d)|fy\s?(20\d\d|\d\d))\b"),
)
"""Financial years written in the ways filings and news write them; each match gives the
calendar year the financial year ends in."""
_SPLIT_YEAR_RE = re.compile(r"\b(20\d\d|19\d\d)\s*[-/\u2013]\s*(\d\d)\b(?![-/.,:]\d)")
"""A year written across two ("2024-25", "2024/25"): a financial year or a season."""


def _read_fiscal(folded: str) -> tuple[str, frozenset[int]]:
    """The financial years of a folded text, and the text with them blanked out.

    >>> _read_fiscal("lost 4.1m in the 2024-25 financial year")[1]
    frozenset({2025})
    >>> _read_fiscal("the 13 weeks to 28 december 2024, the third quarter of its 2025 financial "
    ...              "year")[1]
    frozenset({2025})
    >>> _read_fiscal("in the year to june 2024")[1], _read_fiscal("from 2019-2023")[1]
    (frozenset({2024}), frozenset())
    """
    out: set[int] = set()

    def split(m: re.Match[str]) -> str:
        a, b = int(m.group(1)), int(m.group(2))
        if b != (a + 1) % 100:
            return m.group(0)  # "2019-23": a range of years, not one financial year
        out.add(a + 1)
        return " "

    folded = _SPLIT_YEAR_RE.sub(split, folded)
    for pat in _FISCAL_RES:
        def one(m: re.Match[str]) -> str:
            y = next(g for g in m.groups() if g)
            out.add(int(y) if len(y) == 4 else 2000 + int(y))
            return " "

        folded = pat.sub(one, folded)
    return folded, frozenset(out)


def read_time(folded: str, *, months_as_quarters: bool) -> TimeFrame:
    """Read the years and quarters of a folded text.

    Args:
        folded: Lowercased text.
        months_as_quarters: Also read month names as the quarter they fall in ("April–June",
            "three months ended 30 September").

    Returns:
        The time frame.

    >>> read_time("the third quarter of 2024", months_as_quarters=False)
    TimeFrame(years=frozenset({2024}), quarters=frozenset({3}), fiscal=frozenset(), dated=False)
    >>> read_time("the quarter to 30 december 2023", months_as_quarters=True).spans()
    frozenset({2023})
    >>> read_time("the 2025 crop was 18% smaller than in 2024", months_as_quarters=False).years
    frozenset({2025})
    >>> read_time("enrolled 18,206 this year, a decline of 2.3 percent from 2023-24",
    ...           months_as_quarters=False).fiscal
    frozenset()
    """
    if _BASE_CUE_RE.search(folded):
        folded = _BASE_YEAR_RE.sub(" ", folded)
    fiscal: frozenset[int] = frozenset()
    if "year" in folded or "fy" in folded or "fiscal" in folded or "months" in folded or (
        _SPLIT_YEAR_RE.search(folded)
    ):
        folded, fiscal = _read_fiscal(folded)
    years = frozenset(int(y) for y in _YEAR_RE.findall(folded))
    qs = {_QUARTER_WORDS[a or b] for a, b in _QUARTER_RE.findall(folded)}
    if months_as_quarters and not qs:
        # months stand for their quarter only where no quarter is named ("three months ended
        # 30 September"; not the dateline's month of a "second quarter" release)
        qs = {(_MONTHS[m] - 1) // 3 + 1 for m in _MONTH_RE.findall(folded)}
    return TimeFrame(years, frozenset(qs), fiscal, dated=bool(_PERIOD_ENDED_RE.search(folded)))


_PERIOD_ENDED_RE = re.compile(
    r"\b(?:quarter|year|half|months|weeks)\s+(?:to|ended|ending)\s+(?:the\s+end\s+of\s+)?"
    r"(?:\d{1,2}\s+)?"
    rf"(?:{'|'.join(MONTHS)})\s+(?:\d{{1,2}},?\s+)?(?:19|20)\d\d\b"
)
"""A period dated by its last day ("the quarter to 30 December 2023", "year ended March 31,
2025")."""


# ---------------------------------------------------------------------------------------------
# Claims.


@dataclass(frozen=True, slots=True)
class ClaimFrame:
    """What a claim states, read for frame matching.

    Attributes:
        subject: Stemmed terms of the names the claim is about, with their IDF weight.
        predicate: Concepts of the claim's other content words, with their IDF weight.
        figures: The claim's figures other than years and identifiers.
        heads: Concepts of the words around each figure (what it counts), one set each.
        counted: Concepts of the noun each figure counts ("140 positions").
        lower_bounds: Per figure, whether the claim gives it as a lower bound ("more than a
            thousand"): a larger value in the evidence then supports it.
        time: The claim's years and quarters.
        months: The months the claim names.
        names: Terms of each multi-word name of the claim ("Riverside Baths").
        is_plan: Whether the claim itself states a plan or future event ("is set to",
            "will", "plans to"): a plan in the evidence then supports it fully.
        is_negated: Whether the claim itself is negated ("not", "never", "n't"), or asserts
            a denial with no named agent ("was disproved", "is a myth"; not "Postma disproved
            it", which is about Postma). Negations inside names and titles, and
            "without" (a condition or a manner: "without carbon dioxide, life would die"), do
            not count.
        is_reversal: Whether the claim reverses its object ("overturned the refusal").
        weak_subject: Whether the claim names no subject (its only capitalised word is a
            common first word): refutations then need nearly all of its predicate.
        is_done: Whether the claim states a done fact (past or perfect tense, no modal): a
            plan or expectation in the evidence then supports it only in part.
        decided: Concepts of the claim's decision or announcement verb (``_DECISION_RE``)
            where it is the claim's only done verb (``is_done`` is then false): a plan in
            the evidence supports what was decided, unless the plan is the decision's own
            ("is expected to approve"), which supports it only in part.
        pronoun_subject: Whether the claim's subject is a pronoun ("He was invited ..."):
            it names its subject nowhere.
        days: The days the claim names, as ``(month, day)`` (``day_dates``): a round figure
            stated with the claim's day ("4% ... from 1 April 2025") is pinned to its fact.
        requested: Whether a figure of the claim is an amount asked for
            (``_REQUEST_BEFORE_RE``: "asked the court for €40 million"): only an amount asked
            for is another value of it, and an amount asked for is none of an amount paid.
        degrees: The claim's degree classes (:func:`claim_degrees`): a sentence without them
            supports the claim only in part.
        horizons: The claim's forward time frames (:func:`claim_horizons`, as key and words):
            a sentence that names none of them supports the claim only in part.
        estimates: Per figure, whether it is an end of a range or a factor
            (``is_estimate_figure``): another value does not refute it.
        is_conditional: Whether the claim is a conditional ("If the effect was saturated,
            adding more would add nothing"): a sentence stating its consequent's predicate
            does not refute the hypothetical.
        is_projection: Whether the claim is a possibility ("could", "may", "might"): another
            projection's figure ("up to two feet by 2100") does not refute it.
        targets: Per figure, whether it is the value a change reached ("doubled its headcount
            to 180"): a level stated with no change and no period of the claim ("it has 22
            employees", at some other time) does not refute it.
        lengths: Per figure, whether it is a span of time that is the length of a thing
            (:func:`is_length`: "a two-year deal", "a sentence of ten months"), a value of the
            claim's quantity rather than a period it speaks of.
        measures: Per figure, the money measures named around it (``MONEY_MEASURES``:
            "valued ... at 300 million dollars" is a valuation): a sum named as another measure
            and not this one ("raised US$28 million") is another quantity.
        additions: Per figure, whether it counts new things ("opened three new hotels",
            "1,140 new homes"): a total the change brought the count to ("the opening takes
            the group to 41 hotels") is another quantity and does not refute it.
        losses: Per figure, whether it counts things lost or cut ("will cost 90 jobs", "is
            axing 180 posts"): a headcount stated with no change ("3,400 staff") is another
            quantity and does not refute it.
        averages: Per figure, whether the claim gives it as an average (:func:`is_average`:
            "averaged 4.1 million viewers per episode") or a rate ("14,200 vehicles a day"):
            an average in the evidence is not a value of a single thing's figure ("the final
            episode drew 5 million").
        means: Per figure, whether the claim gives it as an average in so many words (not
            only as a rate): a single value in the evidence ("the hottest day reached 36
            degrees") is then not a value of it ("the average daily high was 36 degrees").
        kinds: Per figure, the kind of thing it counts (:func:`count_kind`: "affordable" of
            "75 affordable homes"): a count of a kind the claim does not name is of a part of
            what it counts, another quantity.
        wholes: Per figure, whether the claim says it of all of a count ("All 38 employees"):
            a part of it in the evidence ("eleven of the 38 staff were made redundant") then
            refutes what the claim says of all of them.
        is_one_off: Whether the claim dates a one-off event to a month, no day
            (:func:`judge_lexical.one_off_month`): a sentence that dates it to a day of
            another month states the same event on another date (``other_month``).
        negated_shares: Per figure, whether it counts those of whom the claim's verb is
            negated ("57 percent don't agree", :func:`negated_share`): a figure of those of
            whom it is stated ("97% agreed") counts the others, another quantity.
        is_current: Whether the claim states a present state or an ongoing change ("polar bear
            numbers are increasing", "the population has been growing") and names no time of
            its own: a sentence that dates the fact to a past period ("grew rapidly in the
            1960s") then supports it only in part.
        is_dated_event: Whether the claim dates its fact to exactly one day ("launched on 20
            January 2025"): a sentence that dates the same fact to a day of another month
            then speaks of the same event, not of another period.
        is_act: Whether the claim is about an agent's act of judging something untrue
            ("Postma disproved the greenhouse effect", "... has been debunked by the head of
            the IPCC"): only a sentence that names such an act bears on it; one that states
            the judged thing is about that thing, not the act (``agent_denials``).
        name_words: The claim's capitalised names as written, without those whose every
            term is common in the corpus (IDF under ``WEAK_NAME_IDF_SHARE`` of an unseen
            term's).
        lead: Concepts of the claim's leading words (:func:`_lead_concepts`): with a weak
            subject they name what the claim is about, and a sentence without them (that does
            not open with a pronoun) supports it only in part.
        name_heads: Per multi-word name, its words before its last, folded ("orrin general"
            of "Orrin General Hospital"; "" for a name of two words or fewer): written in a
            document, they name the place or body without its common head word.
        subject_phrase: The leading words' concepts when an auxiliary follows them (the
            subject's phrase, "Competition authorities have ..."): a negation of them in a
            sentence ("little or no competition") does not deny the claim's predicate.
        main_verb: The first predicate concept after the claim's first auxiliary ("Ardlow
            Minerals has *restarted* underground mining"), for a claim that names a subject
            and is not negated ("" otherwise): a sentence without it speaks of another fact
            of the same things ("underground operations ... have been suspended"), and
            supports the claim in part at most.
    """

    subject: dict[str, float]
    predicate: dict[str, float]
    figures: tuple[Figure, ...]
    heads: tuple[frozenset[str], ...]
    counted: tuple[frozenset[str], ...]
    lower_bounds: tuple[bool, ...]
    time: TimeFrame
    months: frozenset[int]
    names: tuple[frozenset[str], ...]
    is_plan: bool
    is_negated: bool
    is_reversal: bool
    is_done: bool
    decided: frozenset[str] = frozenset()
    requested: bool = False
    pronoun_subject: bool = False
    days: frozenset[tuple[int, int]] = frozenset()
    weak_subject: bool = False
    name_words: tuple[str, ...] = ()
    degrees: frozenset[str] = frozenset()
    horizons: tuple[tuple[str, str], ...] = ()
    estimates: tuple[bool, ...] = ()
    targets: tuple[bool, ...] = ()
    additions: tuple[bool, ...] = ()
    losses: tuple[bool, ...] = ()
    measures: tuple[frozenset[str], ...] = ()
    lengths: tuple[bool, ...] = ()
    averages: tuple[bool, ...] = ()
    means: tuple[bool, ...] = ()
    wholes: tuple[bool, ...] = ()
    negated_shares: tuple[bool, ...] = ()
    is_one_off: bool = False
    kinds: tuple[frozenset[str], ...] = ()
    is_projection: bool = False
    is_conditional: bool = False
    is_act: bool = False
    is_current: bool = False
    is_dated_event: bool = False
    lead: frozenset[str] = frozenset()
    subject_phrase: frozenset[str] = frozenset()
    name_heads: tuple[str, ...] = ()
    places: tuple[frozenset[str], ...] = ()
    main_verb: str = ""


_NAME_RE = re.compile(r"[A-Z][\w'’\-&]*")


_SETTING_RE = re.compile(
    r"^\W*(?:according to|in|on|at|by|since|after|during|from)\s+[^,;]{1,40},\s*(?=\S)", re.I
)
"""A leading phrase of source, place or time ("According to the WHO,", "In Alaska,"): the
claim's subject follows it."""

_UNIT_NAMES = frozenset("fahrenheit celsius centigrade kelvin".split())
"""Units written capitalised, which name no subject."""


LEAD_WORDS = 2
"""Words that open a claim and name what it is about when no name does: a noun and its
modifier ("Solar cycles cause ...", "Global warming is ...", "Hurricanes aren't ..."). English
compounds of this kind are mostly two words long. Convention."""


_SOURCE_LEAD_RE = re.compile(
    r"\W*(?:new\s+|recent\s+|some\s+|many\s+|most\s+)?(?:research|studies|study|scientists|"
    r"experts|data|evidence|surveys?|reports?|analys[ie]s|observations|measurements|models)\s+"
    r"(?:\w+\s+)?(?:has\s+|have\s+|had\s+)?(?:found|finds?|show\w*|says?|said|suggest\w*|"
    r"indicat\w*|confirm\w*|reveal\w*|warn\w*|agree\w*|conclud\w*)\b",
    re.I,
)
"""A claim that opens with its source and a reporting verb ("Research has found ...",
"Studies show ...", "Scientists warn ..."): its first words name who says it, not what it is
about (closed-class English)."""


_PRONOUN_SUBJECT_RE = re.compile(r"\W*(?:he|she|it|they|we|i|you)\s")
"""A claim whose subject is a personal pronoun ("He was invited to speak ...")."""

_PRONOUN_OPENING_RE = re.compile(r"\W*(?:it|they|these|this|such)\s")
"""A sentence that opens with a pronoun ("They are trace gases that ...") speaks of what the
text named before it."""


@lru_cache(maxsize=1)
def _lead_skip() -> frozenset[str]:
    """Words that end a leading phrase (:func:`_lead_concepts`), as for a claim's own lead.

    Stop words, negations and light verbs.
    """
    neg, _, _, _, stop = _cue_stems()
    return frozenset(stop | neg | {stem(w) for w in _LIGHT_VERBS} | _LIGHT_VERBS)


_IT_OPENING_RE = re.compile(r"\W*(?:it|they)\s")
"""A sentence whose subject is "it" or "they": the pronoun most often stands for the subject
of the sentence before it (the centering rule of thumb of discourse analysis)."""


def _lead_concepts(
    claim: str, skip: frozenset[str] | set[str], *, subject_phrase: bool = False
) -> frozenset[str]:
    """Concepts of the claim's first ``LEAD_WORDS`` words, up to the first function word.

    With ``subject_phrase``, only when an auxiliary or modal verb follows them, which makes
    them the subject's phrase, not a name and its verb ("Sablefield paid ...").

    >>> sorted(_lead_concepts("Solar cycles cause global warming.", frozenset({"caus"})))
    ['cycl', 'solar']
    >>> sorted(_lead_concepts("Hurricanes aren't linked to it", frozenset()))
    ['hurric']
    >>> sorted(_lead_concepts("Scientists say halting deforestation is urgent", frozenset()))
    ['clos', 'defore']
    """
    claim = _SETTING_RE.sub("", claim, count=1)
    if m := _SOURCE_LEAD_RE.match(claim):
        # "Research has found that ...": the source; what it is about follows
        claim = re.sub(r"^\W*(?:that\s+)?", "", claim[m.end() :])
    c = _text_concepts(fold_text(claim))
    out: set[str] = set()
    words = re.findall(r"[\w'’\-]+", claim)
    while words and words[0].lower() in ("a", "an", "the"):
        words = words[1:]
    n = 0
    for w in words[:LEAD_WORDS]:
        toks = tokenize(w)
        if not toks or any(t in skip or t in STOPWORDS for t in toks):
            break
        out.update(c.get(t, t) for t in toks)
        n += 1
    if subject_phrase and not (n < len(words) and words[n].lower() in _AUXILIARIES):
        return frozenset()
    return frozenset(out)


def _decided(plain: str) -> frozenset[str]:
    """Concepts of a claim's decision verb when it is the claim's only done verb.

    Args:
        plain: The folded claim, as written.

    Returns:
        The concepts of the ``_DECISION_RE`` words, or an empty set where the claim names none,
        states a plan itself, or has another done verb ("announced that it had closed").

    >>> sorted(_decided("pellam valley water announced a hosepipe ban that applies to 1.1m "
    ...                 "households."))
    ['announ']
    >>> _decided("northwind announced that it had closed its bergen plant.")
    frozenset()
    """
    found = list(_DECISION_RE.finditer(plain))
    if not found or _PLAN_RE.search(plain):
        return frozenset()
    rest = _DECISION_RE.sub(" ", plain)
    rest = re.sub(r"\b(?:has|have|had|was|were)\s+(?=\W|$)", " ", rest)  # the verb's auxiliary
    if _DONE_RE.search(rest) or _DONE_RE.search(_rewrite(rest)):
        return frozenset()
    # the decision's own word: "approval" of "given the go-ahead", "approved" of "signed off"
    verbs = _rewrite(" ".join(m.group(0) for m in found))
    return frozenset(_concept_terms(re.sub(r"\b(?:given|gave)\s+(?:the\s+)?", "", verbs)))


def _main_verb(claim: str, predicate: Mapping[str, float]) -> str:
    """The first predicate concept after the first auxiliary of the claim's main clause.

    Only where a participle follows the auxiliary ("has restarted", "have been launched",
    "is shutting"); a copula or "has" of possession has no verb after it. "" if none. The
    auxiliary is looked for in the main clause only, which ends at a subordinating conjunction
    (``_SUBORDINATE_RE``): "resigned after the company was sentenced" has no auxiliary of its
    own, and "sentenced" is not its verb.

    >>> _main_verb("Ardlow Minerals has restarted underground mining.", {"restar": 1.0,
    ...            "underg": 1.0, "mining": 1.0})
    'restar'
    >>> _main_verb("Brel heating is the main cause of the Orrin smog.", {"main": 1.0,
    ...            "caus": 1.0})
    ''
    >>> _main_verb("Ardlow's chief executive resigned after the company was fined.",
    ...            {"chief": 1.0, "execut": 1.0, "resign": 1.0, "compan": 1.0, "fine": 1.0})
    ''
    """
    cut = _SUBORDINATE_RE.search(claim, 1)
    main = claim[: cut.start()] if cut else claim
    m = MAIN_AUX_RE.search(main)
    if not m:
        return ""
    after = claim[m.end() :]
    first = re.match(r"[\w'’\-]+", after)
    if not first or not (
        re.search(r"(?:ed|en|ing)$", first.group(0).lower())
        or (m.group(0).split()[0].lower() in ("has", "have", "had")
            and first.group(0).lower() not in _NOT_PARTICIPLES)
    ):
        return ""  # "is the main cause", "has 40,000 residents": no verb follows
    return next((t for t in _concept_terms(fold_text(after)) if t in predicate), "")


_SUBORDINATE_RE = re.compile(
    r"\b(?:after|before|when|while|whilst|because|although|though|until|whereas)\b", re.I
)
"""A subordinating conjunction: the claim's main clause ends before it (its first word
excepted: "After the vote, the board ..."; closed-class English)."""

_NOT_PARTICIPLES = frozenset("a an the its their his her our this that these those no some any "
                             "more less about around over nearly almost".split())
"""Words after "has"/"have"/"had" that make it possession, not a perfect tense ("has a plan")."""


_AUXILIARIES = frozenset(
    "is are was were has have had will would can could may might must shall should do does "
    "did".split()
)
"""Auxiliary and modal verbs: the claim's leading words before one are its subject phrase
("Competition authorities have approved ...")."""


def _name_without_head(name: str) -> str:
    """A name of three or more words without its last, folded ("orrin general"), or ""."""
    words = fold_text(name).split()
    return " ".join(words[:-1]) if len(words) >= 3 else ""


def _subject_words(claim: str) -> list[str]:
    """Capitalised words of the claim that are names (not a capitalised first common word).

    The first word counts when the next is capitalised too, when it is possessive or an
    acronym, or when no other word of the claim is a name (the claim is about something).
    A leading setting of place ("In HALDEN-3, corvalimab cut ...", "At Kelso, ...") names the
    subject when the rest of the claim names none: a drug, a species or a trade written in
    lowercase is the subject of what happened there.
    """
    setting = _SETTING_RE.match(claim)
    claim = _SETTING_RE.sub("", claim, count=1)
    out = _names_in(claim)
    if not out and setting and re.match(r"\W*(?:in|at|on)\s", setting.group(0), re.I):
        out = [w for w in _names_in(setting.group(0)) if w.lower() not in ("in", "at", "on")]
    return out


def _names_in(claim: str) -> list[str]:
    """The capitalised name words of a claim, without a leading setting (``_subject_words``)."""
    words = re.findall(r"[\w'’\-&]+", claim)
    out: list[str] = []
    first = ""
    for i, w in enumerate(words):
        if not w[:1].isupper():
            continue
        low = w.lower()
        if low in STOPWORDS or low in _MONTHS or low in _UNIT_NAMES:
            continue
        if i == 0:
            nxt = words[1] if len(words) > 1 else ""
            if not (nxt[:1].isupper() or nxt == "&" or w.endswith(("'s", "’s")) or w.isupper()):
                first = w
                continue
        out.append(w)
    return out or ([first] if first else [])


_ADJUNCT_PREPS = frozenset("to in on at for from with by during after before since".split())
ADJUNCT_WEIGHT = 0.5
"""Weight of a predicate word inside a prepositional adjunct ("shut to motor vehicles",
"reopened to traffic") against the verb and its object, which carry the claim. Convention."""

WEAK_NAME_IDF_SHARE = 0.5
"""A capitalised first word whose IDF is under this share of an unseen term's IDF is a common
word of the corpus, not a name ("Global" in climate articles; "Orvanta" in news of a few
documents keeps about 0.65). Convention."""

_DONE_RE = re.compile(
    r"\b(?:has|have|had|was|were)\s+(?:\w+ly\s+)?\w+(?:ed|en|wn|un|ut|ld|lt|ght|de|ne)\b|"
    r"\b(?!need|feed|seed|speed|breed|proceed|exceed|succeed|red|bed)\w{3,}ed\b|"
    r"\b(?:began|became|built|bought|sold|won|rose|fell|grew|took|gave|made|paid|ran|led|held|"
    r"left|went|saw|met|sent|spent|lost|shot|fought|kept|stood|found|told|wrote|drew|chose|"
    r"brought|caught|taught|thought|struck|hit|quit|shut|set|put|cut)\b|"
    r"\b(?:can|is|are|has|have)\s+now\b"  # a present state: "patients can now get"
)
"""A claim in the past or perfect tense states a done fact ("has closed", "reopened", "began").
("cut", "shut", "set", "put" are read as past: claims are rarely in the present of these.)"""

_FISCAL_YEAR_RE = re.compile(
    r"\b(?:year|fy|financial year|fiscal year)\s+(?:to|ending|ended|end)\s+(?:\d{1,2}\s+)?\w+"
)

_DECISION_RE = re.compile(
    r"\b(?:announced|unveiled|approved|agreed|pledged|promised|designed|ordered|"
    r"(?:given|gave)\s+(?:the\s+)?(?:go-ahead|green\s+light)|signed\s+off(?:\s+on)?)\b"
)
"""A decision or announcement in the past ("announced a hosepipe ban that applies to 1.1m
households", "was designed to burn 350,000 tonnes", "have given the go-ahead for a stand taking
the ground to 27,500 seats"): when it is the claim's only done verb, what was decided or
announced is still to come, and a plan stating it ("the restrictions will apply to 1.1 million
households") is what was announced."""

_CURRENT_RE = re.compile(
    r"\b(?:is|are|has been|have been)\s+(?:\w+ly\s+|now\s+|still\s+|also\s+)?\w+ing\b"
    r"|\b(?:is|are)\s+(?:now|currently|still)\b"
)
"""A claim in the present progressive ("are increasing", "has been growing", "is now"): it
states how things are now (closed-class English)."""
_PAST_TENSE_RE = re.compile(r"\b(?:was|were|had|did)\b")

_PAST_PERIOD_RE = re.compile(
    r"\b(?:in|during|between|from|by|until|around)\s+(?:the\s+)?(?:early\s+|late\s+|mid-?\s*)?"
    r"(?:1[0-9]{3}|20[0-9]{2})s?\b|\b\d{1,2}(?:st|nd|rd|th)(?:\s+and\s+\d{1,2}(?:st|nd|rd|th))?"
    r"[- ]centur"
)
"""A sentence that dates what it states to a period ("in the 1960s", "between 1900 and 1950",
"in the 16th and 17th century")."""
_TO_NOW_RE = re.compile(
    r"\b(?:since|past|last|recent|recently|now|currently|today|present|continu\w*|ongoing)\b"
)
"""Words that carry a dated fact up to the present ("since 1980", "over the past decades")."""


def _dated_to_past(folded: str) -> str:
    """The past period a folded sentence dates its fact to ("in the 1960s"), or "".

    "" also when the sentence carries the fact up to the present ("since 1980").
    """
    m = _PAST_PERIOD_RE.search(folded)
    if not m or _TO_NOW_RE.search(folded):
        return ""
    return m.group(0)


_LOWER_BOUND_RE = re.compile(r"(?:more than|over|at least|above|in excess of|upwards of)\s*$")
_PROJECTION_RE = re.compile(rf"\b(?:could|might|{_MAY_MODAL}|possibly|perhaps)\b")
"""Epistemic modals: the claim states a possibility (closed-class English)."""
_CHANGE_STEMS = (
    r"doubl|tripl|quadrupl|halv|rise|rose|risen|rising|grow|grew|grown|increas|fell|fall|cut|"
    r"reduc|expand|shr[iau]nk|climb|drop|jump|surg|swell|swoll|boost|rais|lift|lower|slash|trim"
)
"""Beginnings of English verbs of change (closed class)."""
_CHANGE_TO_RE = re.compile(
    rf"\b(?:{_CHANGE_STEMS})\w*\b[^.;]{{0,40}}?\bto\s+"
    r"(?:about |around |some |nearly |almost |roughly )?$"
)
"""A change verb and "to" right before a figure: the figure is the value the change reached
("has doubled its headcount to 180")."""
_TOTAL_TO_RE = re.compile(
    rf"\b(?:{_CHANGE_STEMS}|tak|took|bring|brought)\w*\b[^.;]{{0,40}}?\bto\s+"
    r"(?:about |around |some |nearly |almost |roughly )?$"
)
"""A change, or its taking or bringing a count, "to" right before a figure: the figure is the
total reached ("takes the group to 41 hotels", "bringing its fleet to 120")."""
MONEY_MEASURES: dict[str, tuple[str, ...]] = {
    "revenue": ("revenue", "revenues", "turnover", "sales"),
    "profit": ("profit", "profits", "earnings", "net income", "surplus"),
    "loss": ("loss", "losses", "deficit"),
    "valuation": ("valuation", "valued", "valuing"),
    "raised": ("raised", "raising", "funding round", "in funding", "investment round"),
    "cost": ("cost", "costs", "costing", "spent", "spend", "spending", "price", "priced"),
    "fine": ("fine", "fined", "fines", "penalty", "penalties", "sanction"),
    "budget": ("budget", "budgets"),
    "debt": ("debt", "debts", "borrowing", "borrowings"),
    "wage": ("salary", "salaries", "wage", "wages"),
    "damages": ("damages", "compensation", "settlement"),
}
"""What a sum of money measures, by the words said around it (closed class of news and filing
English). A figure of one measure does not refute a figure of another: "raised US$28 million in
a Series B round" says nothing of the round's valuation. Words of a deal's price that also
name other sums ("paid", "worth") are left out."""
_MONEY_MEASURE_RE = re.compile(
    r"\b(" + "|".join(sorted({w for ws in MONEY_MEASURES.values() for w in ws}, key=len,
                              reverse=True)) + r")\b"
)
_MONEY_MEASURE_OF = {w: m for m, ws in MONEY_MEASURES.items() for w in ws}


def _money_measures(folded: str, fig: Figure) -> frozenset[str]:
    """The money measures (``MONEY_MEASURES`` keys) named in the clause around a figure.

    Read up to 60 characters before it and 20 after, not across a full stop or semicolon
    (a convention: a clause's measure word sits close to its sum). Empty for a figure that is
    not a sum of money.
    """
    if fig.unit not in MONEY_UNITS:
        return frozenset()
    before = re.split(r"[.;]\s", folded[max(0, fig.start - 60) : fig.start])[-1]
    after = re.split(r"[.;,]", folded[fig.end : fig.end + 20])[0]
    return frozenset(_MONEY_MEASURE_OF[w] for w in _MONEY_MEASURE_RE.findall(f"{before} {after}"))


_LENGTH_NOUNS = (
    "sentence|term|jail term|prison term|contract|deal|lease|ban|suspension|delay|wait|stay|"
    "tenure|loan|warranty|guarantee|licence|license|extension|closure|freeze|moratorium|"
    "programme|program|trial|residency|spell|stint|tour"
)
_LENGTH_BEFORE_RE = re.compile(
    rf"(?:\b(?:{_LENGTH_NOUNS})\s+of|\baverage\s+of|\b(?:runs?|running|ran|lasts?|lasting|lasted)"
    r"(?:\s+for)?|\b(?:jailed|imprisoned|banned|suspended|sentenced|signed|extended|renewed|"
    r"closed|shut)\b[^.;,]{0,30}\bfor|"
    r"\bin\s+(?:place|force|effect|operation|office|post|power|service)\s+for)"
    r"\s+(?:about |around |some |nearly |almost |just )?$"
)
"""Words before a span of time that make it the length of a thing ("a sentence of ten months",
"runs for three years", "jailed for eight months", "an average of 57 minutes", "was in place
for 16 days": a state's length) (closed-class English)."""
_DURATION_IS_RE = re.compile(
    r"\b(?:waits?|waiting\s+times?|delays?|response\s+times?|journey\s+times?|"
    r"travel\s+times?|turnaround|stays?)\b[^.;,:]{0,90}?\b(?:was|were|is|are|averaged|"
    r"stood\s+at|fell\s+to|rose\s+to|dropped\s+to|came\s+down\s+to)\s+"
    r"(?:about |around |some |nearly |almost |just |roughly )?$"
)
"""A duration named as what a copula states ("the median wait from arrival to assessment was 68
minutes", "response times averaged 9 minutes"): the span is the value of that duration
(closed-class English)."""
_TARGET_BEFORE_RE = re.compile(
    r"\b(?:(?:targets?|commitments?|goals?|pledges?|ambitions?|aims?|limits?|caps?|thresholds?|"
    r"benchmarks?)\s+(?:of|was|is|to|at|for)?|(?:seek|seeks|seeking|sought|demand|demands|"
    r"demanding|demanded|(?:ask|asks|asking|asked|call|calls|calling|called|push|pushing|"
    r"pushed)\s+for)\s+(?:an?|the|its|their)?)\s*(?:about |around |just |some |up to |under )?$"
)
"""Words that make the figure after them a target, a limit or a demand, not a value reached
("its commitment of 147 million litres a day", "a cap of 5,000", "the union is seeking a 7%
rise") (closed-class English)."""
_TARGET_STEMS = frozenset(stem(w) for w in """target commitment goal pledge ambition aim limit cap
    threshold benchmark seek sought demand ask call push""".split())
"""Stems of those words: a claim that names one gives a target."""
_PERIOD_BEFORE_RE = re.compile(
    r"\b(?:past|last|next|coming|recent|previous|first|final|within|over|in|during|after|"
    r"before|since|every|each|per|ago)\s+(?:the\s+)?(?:\w+\s+)?$"
)
"""Words before a span that make it a period the text speaks of ("over the past 800,000 years",
"within five years", "in the next two years")."""


def is_length(folded: str, fig: Figure) -> bool:
    """Whether a span of time (a ``*_span`` unit) is the length of a thing, not a period.

    A hyphenated span before a noun is one ("a two-year deal", "an eight-month prison term"),
    as is one after a noun of duration or a verb of lasting (``_LENGTH_BEFORE_RE``) or before
    "on average" or a word of delay (``_LENGTH_AFTER_RE``: "41 minutes on average", "31 minutes
    late"); none after words of a period (``_PERIOD_BEFORE_RE``).
    """
    if not (fig.unit or "").endswith("_span"):
        return False
    before = folded[max(0, fig.start - 40) : fig.start]
    if _PERIOD_BEFORE_RE.search(before) and not _LENGTH_BEFORE_RE.search(before):
        return False
    if "-" in folded[fig.start : fig.end] and re.match(r"\s+[a-z]", folded[fig.end :]):
        return True  # "two-year deal"
    if _DURATION_IS_RE.search(folded[max(0, fig.start - 120) : fig.start]):
        return True  # "the median wait ... was 68 minutes"
    return bool(_LENGTH_BEFORE_RE.search(before)) or bool(_LENGTH_AFTER_RE.match(folded, fig.end))


_LENGTH_AFTER_RE = re.compile(r"\s+(?:on average|late|early|behind schedule|overdue)\b")
"""After a span of time, words that make it a length: "41 minutes on average"; a delay,
"arrived 31 minutes late", "19 minutes behind schedule"."""


_ADDITION_AFTER_RE = re.compile(r"\s*(?:new|additional|extra|more|further)\b")
"""Words after a figure that make it a count of new things ("three new hotels")."""
_DESCRIPTOR_RE = re.compile(r"[\d.,]+-[a-z]+\s+[a-z]")
"""A figure joined to its unit by a hyphen before a noun ("4.1-metre telescope", "200-metre
track"): a description of the thing."""

_REQUEST_BEFORE_RE = re.compile(
    r"\b(?:ask(?:s|ed|ing)?\s+(?:[\w'’-]+\s+){0,4}?for|sought|seek(?:s|ing)?|"
    r"demand(?:s|ed|ing)?|request(?:s|ed|ing)?|claim(?:s|ed|ing)?\s+(?:damages|compensation)"
    r"(?:\s+of)?)\s+(?:[\w'’-]+\s+){0,4}?$"
)
"""A request just before a figure ("asked the court for €40 million", "sought payment of
£85,000"): the amount asked for, not the amount given or paid."""


def _asked_for(folded: str, fig: Figure) -> bool:
    """Whether the figure is an amount asked for (``_REQUEST_BEFORE_RE`` just before it)."""
    return bool(_REQUEST_BEFORE_RE.search(folded[max(0, fig.start - 40) : fig.start]))

_DENIED_AFTER_RE = re.compile(
    r"\s*(?:%|percent|per\s+cent)?\s*(?:[\w'’-]+\s+){0,2}?(?:was|is|were|are)\s+(?:not\s+"
    r"(?:the\s+|a\s+)?(?:correct|accurate|right|true|figure|number|value)\b|wrong\b|"
    r"incorrect\b|inaccurate\b|false\b|untrue\b|mistaken\b|an?\s+error\b)"
)
"""A figure's value rejected right after it ("27 percent number was not the figure", "the
£1.2m figure is wrong"); "was not revised" leaves it standing."""

_REJECTED_LATER_RE = re.compile(
    r"\b(?:(?:do|does|did)\s+not\s+(?:support|bear\s+out|confirm|reflect|match)\s+"
    r"(?:it|this|that|the\s+figure)|(?:it|this|that)\s+(?:figure\s+)?(?:is|was)\s+(?:wrong|"
    r"incorrect|inaccurate|false|untrue|mistaken))\b"
)
"""A later clause that rejects a value the sentence reports ("a figure of £1,245 has been
quoted ...; our members' data do not support it")."""

_HYPHEN_NOUN_RE = re.compile(r"-[a-z]{3,}\s+[a-z]")
"""What follows a figure written as a descriptor of a noun ("five-storey block")."""

_LOSS_BEFORE_RE = re.compile(
    r"\b(?:cost|costs|costing|cut|cuts|cutting|ax(?:e|es|ed|ing)|shed|sheds|shedding|lose|"
    r"loses|losing|lost|slash(?:es|ed|ing)?|scrap(?:s|ped|ping)?|eliminat(?:e|es|ed|ing))\s+"
    r"(?:up\s+to\s+|about\s+|around\s+|some\s+|as\s+many\s+as\s+|nearly\s+|almost\s+)?$"
)
"""A verb of loss right before a count ("will cost 90 jobs", "is axing 180"; "cost €74 million"
is a price, a measured figure)."""
_CHANGE_WORD_RE = re.compile(
    rf"\b(?:{_CHANGE_STEMS}|up|down|more|fewer|less|added|lost|from)\w*\b"
)


def _name_groups(claim: str) -> list[str]:
    """Runs of two or more capitalised words of the claim ("Riverside Baths").

    A possessive ends a name: "Solenne Power's Kestrel Bay wind farm" names Solenne Power and
    Kestrel Bay, two names.

    >>> _name_groups("Solenne Power's Kestrel Bay wind farm produced 1,200 GWh.")
    ['Solenne Power', 'Kestrel Bay']
    """
    out = []
    for run in re.findall(r"(?:[A-Z][\w'’\-]*\s+){1,}[A-Z][\w'’\-]*", claim):
        for part in re.split(r"(?<=['’]s)\s+|(?<=s['’])\s+", run):
            words = re.sub(r"['’]s?$", "", part).split()
            while words and words[0].lower() in STOPWORDS:
                words.pop(0)  # "The Sorrelby Transit" -> "Sorrelby Transit"
            if len(words) >= 2:
                out.append(" ".join(words))
    return out


def short_form_names(claim: str, text: str) -> frozenset[str]:
    """Terms of the claim's multi-word names that the text names by their short form.

    A text names "the Pellworth Gazette" when it writes "the Gazette" and gives the head word
    "Gazette" no other capitalised name ("the Harrowmere Gazette" is another paper).

    Args:
        claim: The claim as written.
        text: The document text.

    Returns:
        The stemmed terms of every such name, to count as named.

    >>> sorted(short_form_names("The Pellworth Gazette is closing.", "The Gazette is not closing."))
    ['gazett', 'pellwo']
    >>> sorted(short_form_names("The Pellworth Gazette is closing.", "The Orrin Gazette closed."))
    []
    """
    out: set[str] = set()
    for group in _name_groups(claim):
        words = group.split()
        head = re.escape(words[-1])
        if not re.search(rf"\b[Tt]he\s+{head}\b", text):
            continue
        others = {
            m.group(1) for m in re.finditer(rf"\b([A-Z][\w'’\-]*)\s+{head}\b", text)
        } - set(words) - {"The"}
        if not others:
            out.update(t for w in words for t in tokenize(w))
    return frozenset(out)


_PREPOSITIONS = frozenset(
    """across along around without beyond toward towards near behind beside beneath inside
    outside onto despite throughout via per""".split()
)
"""Prepositions the stopword list lacks: they end the noun run a count counts ("six lanes
across the river" counts lanes)."""


def _counted(folded: str, fig: Figure) -> frozenset[str]:
    """Concept of the noun a count counts: the last word of the run right after it.

    "150 new staff to ..." counts staff, "two staff groups on ..." counts groups, "200 people"
    counts people (a count unit is the noun itself, unless a noun follows it).
    """
    stop = _cue_stems()[4]
    c = _text_concepts(folded)
    words = _count_run(folded, fig)
    if not words and (of := _PARTITIVE_RE.match(folded, fig.end)):
        # "sold off 14 of its pubs": the pubs are counted
        words = [w for w in of.group(1).split() if stem(w) not in stop][-1:]
    run = [_word_concept(w) for w in words]
    if words and words[-1] in _EVENT_NOUNS:
        if len(run) > 1:
            return frozenset(run[-2:])  # "4,312 spill events" counts spills (and events)
        if words[-1] not in _FREQUENCY_NOUNS:
            return frozenset(run)
        # "spilled 3,412 times": the act before the count is what it counts
        before = re.split(r"[;,(]", folded[max(0, fig.start - 40) : fig.start])[-1]
        acts = [c.get(t, t) for t in tokenize(before) if t not in stop and not t.startswith("#")]
        return frozenset(acts[-1:] or run)
    if not run and fig.unit is not None and fig.unit not in MEASURED_UNITS:
        return frozenset({c.get(stem(fig.unit), stem(fig.unit))})
    if not run and (label := _LABEL_RE.search(folded, 0, fig.start)):
        # a register's line ("Households in temporary accommodation at 31 March 2025: 1,510"):
        # the label's head noun, before its first preposition, is what the figure counts
        head = _LABEL_HEAD_RE.split(label.group(1), maxsplit=1)[0]
        words = [c.get(t, t) for t in tokenize(head) if t not in stop and not t.startswith("#")]
        if words:
            return frozenset(words[-2:])
    if not run:
        # nothing follows ("passenger capacity 300)"): the noun stands before the figure
        before = re.split(r"[;,(]", folded[max(0, fig.start - 40) : fig.start])[-1]
        words = [c.get(t, t) for t in tokenize(before) if t not in stop and not t.startswith("#")]
        return frozenset(words[-2:])
    return frozenset(run[-1:])


_LABEL_RE = re.compile(r"(?:^|[;\n]|\s[-–]\s)\s*([a-z][^:;\n]{0,80}?):\s*(?:about\s+)?$")
"""A label and its colon right before a figure, from the start of a line or list item."""

_LABEL_HEAD_RE = re.compile(
    r"\s(?:in|at|on|of|for|by|from|to|with|during|as|under|per|since|until)\s"
)
"""The first preposition of a label: the head noun stands before it."""

_PARTITIVE_RE = re.compile(
    r"\s+of\s+(?:its|the|their|our|his|her|these|those)\s+"
    r"((?:[a-z][\w'’-]*\s+){0,2}?[a-z][\w'’-]*)"
    r"(?=\s+(?:in|on|at|for|during|to|from|by|with|and|or|but|since|across)\b|[.,;:)]|$)"
)
"""A count of some of a group ("14 of its pubs")."""

_EVENT_NOUNS = frozenset("times occasions events incidents instances".split())
"""Nouns that count occurrences of something named beside them ("4,312 spill events"): the
thing that occurred is counted as well as the noun."""
_FREQUENCY_NOUNS = frozenset({"times", "occasions"})
"""Occurrence nouns that name nothing of their own ("spilled 3,412 times"): only the act is
counted."""

_GENERIC_COUNT_WORDS = frozenset(
    "new more additional extra further other own".split()
)
"""Words before a counted noun that say nothing of its kind ("150 new staff")."""


def count_kind(folded: str, fig: Figure) -> frozenset[str]:
    """Concepts of the words between a count and its noun: the kind of thing counted.

    "75 affordable homes" counts affordable homes, a kind of homes; "1,146 new homes" counts
    homes ("new" says nothing of their kind, ``_GENERIC_COUNT_WORDS``). Counts of different
    kinds are not values of one quantity.

    >>> text = "the scheme includes 75 affordable homes"
    >>> sorted(count_kind(text, _quantities(text)[0]))
    ['afford']
    """
    run = _count_run(folded, fig)
    return frozenset(
        _word_concept(w) for w in run[:-1] if w not in _GENERIC_COUNT_WORDS
    )


def _count_run(folded: str, fig: Figure) -> list[str]:
    """Words right after a count, up to three, ending at a function word or punctuation."""
    stop = _cue_stems()[4]
    run: list[str] = []
    prev = 0
    for m in _WORD_RE.finditer(folded[fig.end : fig.end + 40]):
        w = m.group(0)
        if stem(w) in stop or w.isdigit() or w in _PREPOSITIONS or len(run) == 3:
            break
        if run and re.search(r"[,;:(]", folded[fig.end + prev : fig.end + m.start()]):
            break  # "1.84 million TEU, growth of 6.1%": the run ends at the comma
        run.append(w)
        prev = m.end()
    return run


@lru_cache(maxsize=1)
def _light_and_month_stems() -> frozenset[str]:
    """Stems of light verbs and month names.

    Words around a figure that do not name what it counts ("stood at 41 per cent of capacity
    on 1 July").
    """
    return frozenset(
        {stem(w) for w in _LIGHT_VERBS} | _LIGHT_VERBS | {stem(m) for m in _MONTHS} | set(_MONTHS)
    )


def _figure_head(folded: str, fig: Figure) -> frozenset[str]:
    """Concepts around a figure: up to six content words before it and two after.

    Light verbs and months are not counted among them. These name the quantity ("order
    backlog stood at $640 million", "150 new staff"); the unit is compared separately.
    """
    stop = _cue_stems()[4] | _light_and_month_stems()

    def content(chunk: str) -> list[str]:
        return [
            t for t in _concept_terms(chunk)
            if t not in stop and not t.startswith("#") and t != fig.unit and len(t) > 1
        ]

    before = content(re.split(r"[;()]", folded[max(0, fig.start - 100) : fig.start])[-1])
    after = content(re.split(r"[;(),]", folded[fig.end : fig.end + 40])[0])
    return frozenset(before[-6:] + after[:2])


def _is_identifier(folded: str, fig: Figure) -> bool:
    before = folded[max(0, fig.start - 12) : fig.start].split()
    return bool(before) and before[-1].rstrip(".") in _IDENT_BEFORE and fig.unit is None


def _is_date_or_rank(folded: str, fig: Figure) -> bool:
    """Whether a unitless figure is a day of a date, an ordinal or an age group.

    "13 May", "June 3", "3rd"; "two-year-olds" names who is counted, it is not a count.
    """
    if fig.unit is not None:
        return False
    if re.match(r"[- ]years?[- ]olds\b", folded[fig.end : fig.end + 12]):
        return True
    if any(m.start() <= fig.start < m.end() for m in NUMERIC_DATE_RE.finditer(
        folded, max(0, fig.start - 10), fig.end + 10
    )):
        return True  # the month or day of "2024-05-14" or "14/05/2024"
    after = folded[fig.end : fig.end + 14]
    if _DATE_NEAR_RE.match(after) or _MONTH_BEFORE_RE.search(folded[max(0, fig.start - 12) :
                                                                     fig.start]):
        return True
    if re.match(r"\s?(?:[ap]\.?m\b|h\b|o'clock)", folded[fig.end : fig.end + 6]):
        return True  # a time of day ("7pm")
    return bool(re.match(r"\d+(?:st|nd|rd|th)\b", folded[fig.start : fig.end + 2]))


def _quantities(folded: str) -> list[Figure]:
    """Figures of a folded text that are quantities.

    Years, financial years ("2024-25"), dates, ranks and identifiers are not.
    """
    split = [m.span() for m in _SPLIT_YEAR_RE.finditer(folded)]
    found = [
        f
        for f in normalize_figures(folded)
        if f.unit != "year"
        and not _is_identifier(folded, f)
        and not _is_date_or_rank(folded, f)
        and not any(a <= f.start < b for a, b in split)  # the "25" of "2024-25"
    ]
    # "halved", "cut by half": a change of 50 percent
    found += [Figure(50.0, "percent", m.start(), m.end()) for m in _HALVING_RE.finditer(folded)]
    return sorted(found, key=lambda f: f.start) if len(found) > 1 else found



def published_before_claim(claim: str, published_at: datetime | None) -> int | None:
    """The year a done-fact claim reports when a document was published before it (else None).

    "The audience award at the 2024 festival went to a documentary" is a done fact of 2024: a
    document published in 2023 cannot report it, whatever it says of an earlier edition. A
    claim of a plan or an expectation ("will open in 2025"), one naming no year, or a document
    with no publication time gives None. The claim's earliest year is used ("the 2025 budget,
    approved in December 2024" may be reported in 2024).

    Args:
        claim: The claim's text.
        published_at: The document's publication time (timezone-aware or naive), or None.

    Returns:
        The claim's earliest year when the document's publication year is earlier, else None.

    >>> from datetime import datetime
    >>> published_before_claim("The 2024 award went to a documentary.", datetime(2023, 10, 19))
    2024
    >>> published_before_claim("The 2024 award will go to a film.", datetime(2023, 10, 19))
    >>> published_before_claim("The 2024 award went to a documentary.", datetime(2024, 10, 19))
    >>> published_before_claim("The council has decided to end teaching there after 2026.",
    ...                        datetime(2025, 3, 17))
    """
    if published_at is None:
        return None
    folded = " ".join(fold_text(claim).split())
    # a year the act looks ahead to ("decided to end teaching there after 2026", "to close it
    # from 2027") is not the year of the act
    years = read_time(_HORIZON_YEAR_RE.sub(" ", folded), months_as_quarters=False).years
    if not years or _PLAN_RE.search(folded) or not _DONE_RE.search(folded):
        return None
    first = min(years)
    return first if published_at.year < first else None


_HORIZON_YEAR_RE = re.compile(
    rf"\b(?:{EFFECT_CUES}|after|beyond)\s+(?:the\s+end\s+of\s+)?"
    r"(?:[a-z]+\s+)?(?:\d{1,2}\s+)?(?:1[89]\d\d|20\d\d)\b"
)
"""A year a claim's act looks ahead to: a horizon or a date of effect, not the act's year."""


def date_gate(claim: str, published_at: datetime | None, result: JudgeResult) -> JudgeResult:
    """A support read in a document published before the claimed fact's year, made NEUTRAL.

    Args:
        claim: The claim's text.
        published_at: The document's publication time, or None.
        result: The judge's reading of the document.

    Returns:
        ``result`` itself, or a NEUTRAL copy (same quote, the reason prepended) when it is
        SUPPORTS or PARTIAL and :func:`published_before_claim` gives a year.
    """
    if result.stance not in (Stance.SUPPORTS, Stance.PARTIAL):
        return result
    year = published_before_claim(claim, published_at)
    if year is None:
        return result
    return JudgeResult(Stance.NEUTRAL, result.relevance, result.quote,
                       f"published before {year}, the year of the claimed fact; "
                       + result.rationale, result.judge, result.is_failure)


def parse_claim_frame(
    claim: str, idf: Mapping[str, float], default: float
) -> ClaimFrame:
    """Read a claim's subject, predicate, figures and time frame.

    Args:
        claim: The claim as written.
        idf: Term IDF (keys from :func:`tokenize`).
        default: IDF of an unseen term.

    Returns:
        The claim's frame.
    """
    neg, _, _, _, stop = _cue_stems()
    plain = " ".join(fold_text(claim).split())
    folded = _rewrite(plain)
    names = _subject_words(claim)
    subj_terms = {t for w in names for t in tokenize(w)}
    subject = {t: idf.get(t, default) for t in subj_terms if t not in stop}
    # A claim whose only "name" is its capitalised first word, and a common one in the corpus
    # ("Global warming is ..."), has no named subject to anchor refutations on.
    weak_subject = len(names) == 1 and claim.lstrip().startswith(names[0]) and all(
        w < WEAK_NAME_IDF_SHARE * default for w in subject.values()
    )
    unnamed = " ".join(fold_text(without_names(claim)).split())
    decided = _decided(plain)
    named = name_numbers(claim)  # "iOS 11": part of a name, not a quantity
    figures = tuple(f for f in _quantities(folded) if f.unit is not None or f.token not in named)
    # "3.1% higher than twelve months earlier": the base of a comparison with the past is a
    # time, not a figure the claim states
    bases = [m.span() for m in _PAST_BASE_RE.finditer(folded)]
    figures = tuple(f for f in figures if not any(a <= f.start < b for a, b in bases))
    # "Building Kelda Ridge's 4.1-metre telescope cost €74 million": a measure written into a
    # thing's description names which thing; beside another figure, it is not what the claim
    # states (another telescope's "2.2-metre" is not another value of it)
    if (weak_subject or not subject) and _HALVING_RE.search(plain):
        # "halve emissions by 2050" of no named subject: a topic's texts state 50 percent of
        # many things, and the halving is read as a cut only (not as a figure to be matched)
        figures = tuple(
            f for f in figures if not (f.unit == "percent" and f.value == 50 and "50" not in plain)
        )
    described = tuple(f for f in figures if _DESCRIPTOR_RE.match(folded, f.start, f.end + 3))
    if described and len(described) < len(figures):
        figures = tuple(f for f in figures if f not in described)
    else:
        described = ()
    fig_tokens = {f.token for f in normalize_figures(folded)}
    # the words of a figure written out ("eighteen thousand five hundred pounds") are the
    # figure, not the predicate
    fig_words = {
        t for f in figures if folded[f.start : f.start + 1].isalpha()
        for t in tokenize(folded[f.start : f.end])
    }
    c = _concepts()
    light = {stem(w) for w in _LIGHT_VERBS} | _LIGHT_VERBS
    months = {stem(m) for m in _MONTHS} | {"quarter", "quart", "year"} | {
        stem(w) for w in _QUARTER_WORDS}
    predicate: dict[str, float] = {}
    # Modal and planning words are the claim's modality, and negation and denial words its
    # polarity: neither is its predicate.
    agent_judges = bool(agent_denials(claim))  # "Postma disproved X": his act, a predicate
    bare = _NEG_RE.sub(" ", folded)
    if not agent_judges:
        bare = _CLAIM_DENIAL_RE.sub(" ", bare)
    bare = _PLAN_RE.sub("  ", bare)
    bare = re.sub(r"\s{3,}to\b", " ", bare)  # "intends to retire": the infinitive's "to"
    # "at the end of 2023", "at the start of July 2025", "year-end": a time, read as the
    # claim's period, not its predicate
    bare = re.sub(
        r"\b(?:at\s+)?the\s+(?:end|start|beginning|middle)\s+of\s+(?=(?:the\s+)?(?:year|quarter|"
        r"month|\d{4}|fiscal|financial|" + "|".join(_MONTHS) + r")\b)"
        r"|\byear[- ]end\b", " ", bare,
    )
    bare = re.sub(r"\b(?:financial|fiscal)\s+(?=year\b)", " ", bare)  # a time, as "year" is
    bare = re.sub(rf"\b{_PAST_BASE}", " ", bare)  # the base of the change the claim states
    if _PLAN_RE.search(folded):
        bare = _HORIZON_RE.sub(" ", bare)  # "next year": the claim's time frame (``horizons``)
    toks = tokenize(bare)
    in_claim = _text_concepts(bare)
    for k, t in enumerate(toks):
        if (
            t in stop or t in neg or t in light or t in subj_terms or t.startswith("#")
            or t in months or len(t) < 2 or t in fig_tokens or t in fig_words
        ):
            continue
        if any(f.unit and stem(f.unit) == t for f in figures + described):
            continue
        w = idf.get(t, default)
        if any(x in _ADJUNCT_PREPS for x in toks[max(0, k - 2) : k]):
            w *= ADJUNCT_WEIGHT  # "to motor vehicles", "to traffic": an adjunct of the verb
        q = in_claim.get(t, t)
        predicate[q] = max(predicate.get(q, 0.0), w)
    # identifiers ("route 12") and descriptors ("4.1-metre") are part of the predicate, as
    # literal tokens
    for f in normalize_figures(folded):
        if f.unit is None and (_is_identifier(folded, f) or f.token in named):
            predicate[f.token] = default
    for f in described:
        predicate[f.token] = default
    # "the year to February 2025", "year ended 31 March": the month ends a fiscal year, it is
    # not a month the claim speaks of
    months_named = frozenset(
        _MONTHS[m] for m in _MONTH_RE.findall(_FISCAL_YEAR_RE.sub(" ", folded))
    )
    time = read_time(folded, months_as_quarters="quarter" in folded or bool(
        re.search(r"\b(?:" + "|".join(_MONTHS) + r")\s*[-–]\s*(?:" + "|".join(_MONTHS) + r")\b",
                  folded)))
    is_reversal = bool(_REVERSAL_RE.search(folded))
    if is_reversal and "reject" in predicate:
        # "overturned the refusal" is an approval: read it so, and drop the reversal verb.
        predicate["approv"] = predicate.pop("reject")
        for w in REVERSAL_CUES:
            predicate.pop(c.get(stem(w), stem(w)), None)
        is_reversal = False
    return ClaimFrame(
        subject=subject,
        predicate=predicate,
        figures=figures,
        # what each figure counts: not the subject, a light verb ("stood at") or a time word
        heads=tuple(
            _figure_head(folded, f) - subj_terms - light - {"end"} for f in figures
        ),
        counted=tuple(_counted(folded, f) for f in figures),
        lower_bounds=tuple(
            bool(_LOWER_BOUND_RE.search(folded[max(0, f.start - 24) : f.start])) for f in figures
        ),
        time=time,
        months=months_named,
        names=tuple(frozenset(tokenize(n)) for n in _name_groups(claim)),
        name_heads=tuple(_name_without_head(n) for n in _name_groups(claim)),
        places=tuple(frozenset(tokenize(m.group(1))) for m in _PLACE_RE.finditer(claim)),
        is_plan=bool(_PLAN_RE.search(folded)),
        is_negated=bool(
            _NEG_RE.search(_REASON_NEG_RE.sub(" ", _DECLINED_RE.sub("refused", unnamed)))
            or (_CLAIM_DENIAL_RE.search(unnamed) and not agent_judges)
            or _REJECTED_PROPOSAL_RE.search(unnamed)  # "rejected a plan to close" (not closing)
        ),
        is_reversal=is_reversal,
        # read on the words as written ("has shut down", before it is rewritten "closing")
        # and as rewritten ("came into operation" is "started")
        is_done=not _PLAN_RE.search(plain) and not decided
        and bool(_DONE_RE.search(plain) or _DONE_RE.search(folded)),
        decided=decided,
        weak_subject=weak_subject,
        degrees=claim_degrees(_compared_with_past(plain)),
        horizons=tuple(claim_horizons(plain).items()),
        estimates=tuple(is_estimate_figure(folded, f) for f in figures),
        is_projection=bool(_PROJECTION_RE.search(folded)),
        is_conditional=bool(re.match(r"\W*(?:if|unless|were|had|should)\b", folded)),
        is_dated_event=len(day_dates(claim)) == 1,
        days=frozenset(day_dates(claim)),
        pronoun_subject=bool(_PRONOUN_SUBJECT_RE.match(folded)),
        lead=_lead_concepts(claim, stop | neg | light),
        subject_phrase=_lead_concepts(claim, stop | neg | light, subject_phrase=True),
        main_verb=_main_verb(claim, predicate) if names and not weak_subject and not (
            _NEG_RE.search(_REASON_NEG_RE.sub(" ", folded))
        ) else "",
        is_current=time.empty and not months_named and not _PLAN_RE.search(plain)
        and bool(_CURRENT_RE.search(plain)) and not _PAST_TENSE_RE.search(plain),
        is_act=agent_judges,
        targets=tuple(
            bool(_CHANGE_TO_RE.search(folded[max(0, f.start - 60) : f.start])) for f in figures
        ),
        requested=any(
            _asked_for(folded, f) for f in figures
        ),
        additions=tuple(bool(_ADDITION_AFTER_RE.match(folded[f.end : f.end + 16]))
                        for f in figures),
        losses=tuple(f.unit not in MEASURED_UNITS and bool(
            _LOSS_BEFORE_RE.search(folded[max(0, f.start - 40) : f.start])
        ) for f in figures),
        measures=tuple(_money_measures(folded, f) for f in figures),
        lengths=tuple(is_length(folded, f) for f in figures),
        kinds=tuple(count_kind(folded, f) for f in figures),
        wholes=tuple(
            bool(_ALL_BEFORE_RE.search(folded[max(0, f.start - 12) : f.start])) for f in figures
        ),
        negated_shares=tuple(negated_share(folded, f) for f in figures),
        is_one_off=one_off_month(claim),
        averages=tuple(
            is_average(folded, f) or bool(_RATE_AFTER_RE.match(folded[f.end : f.end + 40]))
            for f in figures
        ),
        means=tuple(_stated_as_average(folded, f) for f in figures),
        name_words=tuple(
            w for w in names
            if any(idf.get(t, default) >= WEAK_NAME_IDF_SHARE * default for t in tokenize(w))
        ),
    )


# ---------------------------------------------------------------------------------------------
# Documents.


@dataclass(slots=True)
class SentenceFrame:
    """One sentence read for frame matching (cue positions are read when first needed)."""

    concepts: list[str]
    concept_set: frozenset[str]
    folded: str
    time: TimeFrame
    quarter_time: TimeFrame
    months: frozenset[int]
    _cues: tuple[list[int], list[str], list[int], list[int], list[int], bool] | None = None
    raw: str = ""
    quantities: list[Figure] | None = None

    def _read_cues(self) -> tuple[list[int], list[str], list[int], list[int], list[int], bool]:
        if self._cues is None:
            words = list(_WORD_RE.finditer(self.folded))
            self._cues = (
                [m.start() for m in words],
                [_word_concept(m.group(0)) for m in words],
                [m.start() for m in _NEG_RE.finditer(_REASON_NEG_RE.sub(_blank, self.folded))],
                [m.start() for m in _PLAN_RE.finditer(self.folded)],
                _denials(self.folded),
                attribution(self.folded) is not None,
            )
        return self._cues

    @property
    def starts(self) -> list[int]:
        """Character offsets of the sentence's words."""
        return self._read_cues()[0]

    @property
    def word_concepts(self) -> list[str]:
        """Concept of each word (aligned with :attr:`starts`)."""
        return self._read_cues()[1]

    @property
    def neg_at(self) -> list[int]:
        """Character offsets of negation cues."""
        return self._read_cues()[2]

    @property
    def plan_at(self) -> list[int]:
        """Character offsets of modal, future and planning cues."""
        return self._read_cues()[3]

    @property
    def denial_at(self) -> list[int]:
        """Character offsets of denial and correction cues that are not themselves negated."""
        return self._read_cues()[4]

    @property
    def has_denial(self) -> bool:
        """Whether the sentence denies or corrects something."""
        return bool(self._read_cues()[4])

    @property
    def has_attrib(self) -> bool:
        """Whether the sentence attributes a statement to someone else (rumour, claims)."""
        return self._read_cues()[5]


@dataclass(slots=True)
class DocFrames:
    """The sentences of one document read for frame matching, and all its terms."""

    sentences: list[SentenceFrame]
    terms: frozenset[str]


_NO_TIME = TimeFrame(frozenset(), frozenset())
_TIME_HINT_RE = re.compile(r"\d|quarter|\bq[1-4]\b|" + "|".join(_MONTHS))
_PHRASE_HINT_RE = re.compile(
    r"due to|go[- ]ahead|green light|through|down|threw|thrown|throw|shut|tak(?:e|ing) on|"
    r"came into|"
    r"into service|went|goes|per cent|not exceed|than|vot|higher|lower|permission|consent|approval|"
    r"yes to|no to|clear|authori[sz]ation|licen[cs]e|remain|stay|level|stabili|over|"
    r"(?:proposal|plan|bid|call|motion|request|recommendation)s? to|three months|quarter of|"
    r"12|twelve|decade|pen to paper|declin|off\b|on\b|hand|splash|fork|shell|stump|clock|"
    r"contract|grown|available|accessible|roll|abandon|dropp|scrapp|withdr|refuse|start-up|"
    r"fall|loss"
)
"""Words of the phrases ``_PHRASES`` rewrites: a document's sentence without one of them is not
rewritten (a filter for speed; a phrase added to ``_PHRASES`` is read in documents only once
its word is here: "remained flat" and "have stabilised" were read in claims only)."""


def parse_doc_frames(
    text: str,
    spans: Sequence[tuple[int, int]],
    *,
    folded: Sequence[str] | None = None,
    terms: Sequence[Sequence[str]] | None = None,
) -> DocFrames:
    """Read the sentences of a document.

    Args:
        text: The document text.
        spans: Sentence spans (``split_sentences``).
        folded: The sentences already folded (whitespace collapsed), when the caller has them.
        terms: Their terms (``tokenize``), when the caller has them; re-read only where a
            multi-word predicate is rewritten.

    Returns:
        The document's sentence frames and the set of all its terms.
    """
    sents = []
    all_terms: set[str] = set()
    for k, (a, b) in enumerate(spans):
        f = folded[k] if folded is not None else " ".join(fold_text(text[a:b]).split())
        t = list(terms[k]) if terms is not None else None
        if _PHRASE_HINT_RE.search(f):
            f2 = _rewrite(f)
            if f2 != f or t is None:
                f, t = f2, tokenize(f2)
        if t is None:
            t = tokenize(f)
        all_terms.update(t)
        in_sent = _text_concepts(f)
        concepts = [in_sent.get(x, x) for x in t]
        if _TIME_HINT_RE.search(f):
            tm = read_time(f, months_as_quarters=False)
            qt = read_time(f, months_as_quarters=True)
            months = frozenset(_MONTHS[m] for m in _MONTH_RE.findall(f))
        else:
            tm = qt = _NO_TIME
            months = frozenset()
        sents.append(
            SentenceFrame(
                concepts, frozenset(concepts) | _own_terms(t, in_sent), f, tm, qt, months,
                raw=text[a:b],
            )
        )
    return DocFrames(sents, frozenset(all_terms))


# ---------------------------------------------------------------------------------------------
# Judging.


@dataclass(frozen=True, slots=True)
class FrameVerdict:
    """The stance a document takes toward a claim, and the sentence that decides it.

    Attributes:
        stance: ``"SUPPORTS"``, ``"PARTIAL"``, ``"REFUTES"`` or ``"NEUTRAL"``.
        index: Index of the deciding sentence (the best-covering one for NEUTRAL; -1 when the
            document does not name the subject).
        relevance: Share of the claim's frame the sentence carries (0..1).
        why: One line for the judgment's rationale.
    """

    stance: str
    index: int
    relevance: float
    why: str


def _share(weights: Mapping[str, float], present: frozenset[str]) -> float:
    total = sum(weights.values())
    if total <= 0:
        return 1.0
    return sum(w for t, w in weights.items() if t in present) / total


def _same(a: float, b: float, tol: float) -> bool:
    return abs(a - b) <= tol * max(abs(a), abs(b), 1e-9)


def _same_figure(a: Figure, b: Figure, tol: float) -> bool:
    """Whether two figures state one value.

    They do when within ``tol`` of each other (rounding), and no further apart than the
    coarser of them is stated to (:func:`judge_lexical.within_stated`): "£98.88" is not
    "£98.40", nor "18,250" "18,206"; "57 million" is "57.2 million" rounded.

    >>> f = lambda v: Figure(v, None, 0, 0)
    >>> _same_figure(f(98.4), f(98.88), 0.005), _same_figure(f(57e6), f(57.2e6), 0.005)
    (False, True)
    """
    return _same(a.value, b.value, tol) and within_stated(a, b)


def _units_agree(cf: Figure, sf: Figure) -> bool:
    """Whether two figures can be values of one quantity: the same unit, or one of them bare.

    A span of time read in another unit never agrees with a bare count: "within two weeks"
    (14 days) is no count of "fourteen batches" (a span as written, "aged 10-24" against
    "10-24 year old", may).
    """
    if (cf.unit or "").endswith("_span") != (sf.unit or "").endswith("_span") and (
        cf.written is not None or sf.written is not None
    ):
        return False
    return cf.unit == sf.unit or (cf.unit is None) != (sf.unit is None)


_WORD_RE = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


_NEGATED_DENIAL_RE = re.compile(r"(?:\b(?:not|never|no)|n't)\s+(?:\w+\s+)?$")
"""A negation just before a denial cue ("does not refute", "never denied", "is not wrong"): the
denial is itself denied, which asserts, not denies."""

_CLAUSE_END_RE = re.compile(r"[;:(\u2013\u2014]|\s-\s")
"""Marks that end a clause inside a sentence (semicolon, colon, bracket, dash): a denial cue's
object does not reach past them ("deny them\u2014an ideological phenomenon called climate change
denial")."""


_FALSITY_RE = re.compile(
    r"\b(?:is|are|was|were|be|been|being)\s+(?:\w+\s+)?(?:false|untrue|wrong|incorrect|"
    r"inaccurate|baseless|unfounded|fabricated|a myth|a hoax)\b"
)
"""A verdict of falsity ("Claims that X are false", "the rumour that X is untrue"): with an
attribution in the sentence, the document's own denial of what it attributes, unless the claim
is itself about someone's act of calling a thing false ("Trump claims global warming is a hoax",
``ClaimFrame.is_act``), which such a sentence restates."""


def _denials(folded: str) -> list[int]:
    """Character offsets of the denial cues of a sentence that are not negated themselves."""
    return [
        m.start() for m in _DENIAL_RE.finditer(folded)
        if not _NEGATED_DENIAL_RE.search(folded[max(0, m.start() - 24) : m.start()])
    ]


def _cue_before(
    s: SentenceFrame, cues: Sequence[int], targets: frozenset[str], window: int,
    extra: Sequence[int] = (), *, in_clause: bool = False,
) -> bool:
    """Whether a cue (character offset) stands within ``window`` words before a target.

    Targets are the sentence's words whose concept is in ``targets`` and the character
    offsets in ``extra`` (figures). With ``in_clause``, no clause end (``_CLAUSE_END_RE``)
    may stand between the cue and the target.
    """
    if not cues:
        return False
    hits = [s.starts[k] for k, t in enumerate(s.word_concepts) if t in targets] + list(extra)
    if not hits:
        return False
    for c in cues:
        ci = bisect_right(s.starts, c)
        for h in hits:
            if h > c and bisect_right(s.starts, h) - ci <= window and not (
                in_clause and _CLAUSE_END_RE.search(s.folded, c, h)
            ):
                return True
    return False


_PLANNED_AFTER_RE = re.compile(
    r"\b(?:is|are|was|were|remains?|now|still)\s+(?:now\s+|still\s+)?"
    r"(?:planned|scheduled|expected|due|slated|pencill?ed in|targeted|set)\s+(?:for|in|to|by)\b"
)
"""A plan stated after what is planned ("Launch of the satellites is planned for 2027")."""


def _planned_after(s: SentenceFrame, targets: frozenset[str], window: int) -> bool:
    """Whether a target concept stands within ``window`` words before a postposed plan.

    "Launch of the satellites is planned for 2027": the launch is still to come.
    """
    m = _PLANNED_AFTER_RE.search(s.folded)
    if not m:
        return False
    end = bisect_right(s.starts, m.start())
    return any(
        t in targets and end - k <= window for k, t in enumerate(s.word_concepts[:end])
    )


_SCOPE_SKIP = frozenset(
    """be is are was were been being am have has had having do does did will would shall should
    can could may might must yet even also still ever currently now longer further more any
    plans plan planned planning intention intentions intend intends intended expect expects
    expected likely immediately again actually really to the a an its their his her our this
    that these those it they he she we you""".split()
)
"""Words a negation reaches over to the word it negates ("has not yet approved", "has no
plans to close", "did not actually sell")."""


_UNSAID_VERBS = frozenset(
    """say says said comment commented disclose disclosed discloses reveal revealed reveals
    confirm confirmed confirms specify specified specifies give gave given gives name named
    names know knew known expect expected respond responded answer answered mention mentioned
    explain explained identify identified""".split()
)
"""Verbs of telling and knowing: "did not disclose the price of its purchase" leaves the
purchase standing, so a negation of one of them never reaches the words after it."""

_OBJECT_ENDS = frozenset(
    """by of in to from for with since than as that which who whom whose when while because
    if but and or at on into onto over under about after before during between through until
    across against within without per via like unless whether up down out off away back""".split()
)
"""Words that end a negated verb's object, and particles of the verb ("not taken up by the
ocean", "does not exist for periods ..."): what follows them is not what the negation
denies."""

_QUANTIFIERS = frozenset(
    "all every each both either some many much most enough so too very such only just".split()
)
"""Words after a negation that are no verb ("not all cities", "not as persistent", "no
more than"): the negation qualifies them and reaches no further."""

_OBJECT_BREAK_RE = re.compile(r"[,;:.!?()\[\]–—\"]")
"""Punctuation between two words that ends a negated verb's object ("is not mitigated, global
warming is likely ...")."""

_NEGATIVE_VERBS = frozenset(
    """refute refutes refuted dispute disputes disputed deny denies denied doubt doubts doubted
    question questioned reject rejects rejected oppose opposes opposed prevent prevents
    prevented stop stops stopped block blocks blocked challenge challenged contest contested
    rule ruled exclude excluded""".split()
)
"""Verbs that deny or prevent: negated ("do not dispute that climate change exists", "does not
refute long-term trends") they assert what follows, so the negation does not reach past
them."""


_RAW_NEG_RE = re.compile(r"\b(?:not|no|never|cannot|declined|refused)\b|n['’]t\b",
                         flags=re.IGNORECASE)


def _other_name(word: str, claim_words: set[str]) -> bool:
    """Whether a word as written is a name the claim does not have.

    Capitalised, not a month or day, not a short code or unit ("EUR", "TEU"), and none of its
    terms one of the claim's (``claim_words``, 6-character stems) or sharing a 5-character
    start with one ("Velquin's" for "Velquin").
    """
    terms = tokenize(word)
    return bool(terms) and word[:1].isupper() and word.lower() not in MONTH_DAY_WORDS and not (
        word.isupper() and len(word) <= 5
    ) and not any(
        t in claim_words or any(c.startswith(t[:5]) for c in claim_words) for t in terms
    )


def _named_before_negation(s: SentenceFrame, frame: ClaimFrame) -> bool:
    """Whether a name the claim does not have stands before the sentence's first negation.

    Past the sentence's first word (:func:`_other_name`): the negation is then likely said of
    that other party.
    """
    m = _RAW_NEG_RE.search(s.raw) if s.raw else None
    if not m:
        return False
    claim_words = {t for n in frame.names for t in n} | set(frame.subject)
    before = re.findall(r"[\w'’\-]+", s.raw[: m.start()])[1:]
    return any(_other_name(w, claim_words) for w in before)


_PARTY_FIGURE_RE = re.compile(
    r"((?:[A-Z][\w\-]*\s+)*[A-Z][\w\-]*)\s+(?:[a-z]+\s+)?(?:[A-Z]{3}\s*|[$€£¥])?\d"
)
"""A capitalised name right before a figure, or before one verb and a figure ("has fined
Bramwell Air EUR 800,000", "Haldvik handled 3.02 million")."""


def _variant_name(raw: str, first: frozenset[str], claim_words: set[str]) -> bool:
    """Whether the sentence names another entity built like the claim's first name.

    "Brennick Vale Academy" against the claim's "Brennick Hill Academy": a multi-word name
    whose last word (its head: what kind of thing it names) is a word of the claim's first
    name, with a capitalised word of its own before it (:func:`_other_name`), and without a
    word of the claim's name, is a sibling (another academy), not the subject. A name with
    another head is another entity where it opens the sentence, as its subject ("Saltmere
    Community College has ..." against "Saltmere State"), and is left alone elsewhere: "their
    arena will be known as Marlow Arena" may name a thing after the claim's "Marlow
    Insurance". Names are read as the claim's are (:func:`_name_groups`).
    """
    opening = raw.lstrip(" \"'\u201c\u2018(")
    for group in _name_groups(raw):
        words = group.split()
        terms = frozenset(t for w in words for t in tokenize(w))
        if frozenset(tokenize(words[-1])) & first and first - terms and any(
            _other_name(w, claim_words) for w in words[:-1]
        ):
            return True
        if opening.startswith(group) and terms & first and first - terms and any(
            _other_name(w, claim_words) for w in words
        ):
            # the sentence's subject, a name that shares a word with the claim's and ends
            # otherwise: "Saltmere Community College has 9,870 students" against "Saltmere
            # State", "Fenwick Bay Ferry Terminal carried" against "Fenwick Bay Airport"
            return True
    return False


def _other_party(s: SentenceFrame, frame: ClaimFrame) -> bool:
    """Whether a sentence's figure is another named party's rather than the claim's subject's.

    It is when the sentence writes none of the terms of the claim's first name and a name of
    its own (:func:`_other_name`, not the sentence's first word) stands right before the
    figure (:data:`_PARTY_FIGURE_RE`): "The Directorate has fined Bramwell Air EUR 800,000"
    against a claim that Pellow Jet was fined 1.3 million euros by the Directorate. A sentence
    that names no other party there ("The airline was fined ...", "Site manager Lorna Achebe
    said the expansion would bring 150") still speaks of the claim's subject.
    """
    # the claim's first name; where no name group is read ("The Port of Ostrand"), its name
    # words (not codes or units such as "TEU")
    first = frame.names[0] if frame.names else frozenset(
        t for w in frame.name_words if not (w.isupper() and len(w) <= 5) for t in tokenize(w)
    )
    if not first or not s.raw:
        return False
    claim_words = {t for n in frame.names for t in n} | first
    if first & frozenset(tokenize(s.raw)):
        return _variant_name(s.raw, first, claim_words)
    for m in _PARTY_FIGURE_RE.finditer(s.raw):
        words = m.group(1).split()
        if m.start(1) == 0:
            words = words[1:]  # the sentence's first word: capitalised whatever it is
        if any(_other_name(w, claim_words) for w in words):
            return True
    return False


def _negation_scopes(
    s: SentenceFrame, targets: frozenset[str], window: int, extra: Sequence[int] = (),
    passed: frozenset[str] = frozenset(), *, through_verb: bool = False,
) -> bool:
    """Whether a negation cue of the sentence negates one of the claim's predicate concepts.

    A negation negates the first word after it that is not an auxiliary, an adverb or a plan
    word ("did not approve", "has no plans to close", "not 75 million"): "do not dispute that
    climate change exists" negates "dispute", not "change". Before a wh-word it negates the
    clause that follows ("is not what farmers were paid"). At most ``window`` words are read
    past the cue. Figures at the character offsets ``extra`` count as predicate words.

    Args:
        s: The sentence.
        targets: The claim's predicate concepts the sentence holds.
        window: Words read past each cue.
        extra: Character offsets of the claim's figures in the sentence.
        passed: Concepts of the claim's subject phrase ("Competition authorities have
            approved ..."): read past, not negated ("little or no competition" denies
            nothing the claim says; "no jobs were cut" still negates "cut").
        through_verb: Read past the negated word itself when it is not one of the claim's
            (nor a verb of telling, :data:`_UNSAID_VERBS`) to the object it governs: "did
            not approve the optional cyber-risk cover", "does not include cyber insurance"
            negate the cover the claim says was taken out.
    """
    if not s.neg_at:
        return False
    words = list(_WORD_RE.finditer(s.folded))
    concepts = s.word_concepts
    for c in s.neg_at:
        k = bisect_right(s.starts, c)  # the word after the cue's first word
        read = 0
        clause = False  # "is not what farmers were paid": the negation covers a clause
        verb_read = False
        while k < len(words) and read < window:
            w = words[k].group(0)
            if verb_read and (w in _OBJECT_ENDS or _OBJECT_BREAK_RE.search(
                s.folded, words[k - 1].end(), words[k].start()
            )):
                break  # the negated verb's object ends ("not taken up by the ocean")
            if any(words[k].start() <= f < words[k].end() for f in extra):
                return True
            if w in _WH_WORDS and read == 0:
                clause = True
            if concepts[k] in _CAUSE_CONCEPTS and concepts[k] in targets:
                # "not caused by the Sun": what is negated is the cause named after it; it
                # bears on the claim only when that cause is the claim's
                return _cause_named(words, concepts, k + 1, targets) or _negation_scopes(
                    s, targets - {concepts[k]}, window, extra, passed
                )
            if concepts[k] in targets and concepts[k] not in passed:
                return True
            if clause or w in _SCOPE_SKIP or w.endswith("ly") or w in _NEG_WORDS or (
                concepts[k] in passed
            ):
                k += 1
                read += 1
                continue
            if through_verb and (
                verb_read
                or (w not in _UNSAID_VERBS and w not in _OBJECT_ENDS
                    and w not in _QUANTIFIERS and w not in _NEGATIVE_VERBS)
            ):
                verb_read = True  # the negated verb: its object is negated with it
                k += 1
                read += 1
                continue
            break
    return False


_CHANGE_CONCEPTS = frozenset({"increa", "decrea"})
"""Concepts of a rise or a fall (the concept groups of "increase" and "decrease")."""


_JOINT_RE = re.compile(
    r"[,;:()\[\]\u2013\u2014]|\s-\s|\b(?:but|while|whereas|which|who|although|though|and)\b"
)
"""Clause joints: a negation before one of them does not reach the words after it."""

_BOUND_AFTER_NEG_RE = re.compile(
    r"\W*(?:(?:more|less|fewer|later|earlier|longer|greater|higher|lower)\s+than|"
    r"longer\b|later\b)"
)
"""A negation that makes a bound ("no more than 30%", "not later than 2026"), not a denial."""


def _negated_before(s: SentenceFrame, fig_at: Sequence[int]) -> bool:
    """Whether a negation cue stands before a figure at ``fig_at`` in the same clause.

    "did not approve the use of Tremaxil in patients aged 12 to 17": the ages are what was
    not approved. A bound ("no more than 30%") and a negation in another clause ("did not say
    when, but put the cost at 40 million") do not count.
    """
    for c in s.neg_at:
        end = s.folded.find(" ", c)
        if _BOUND_AFTER_NEG_RE.match(s.folded, end if end > 0 else c):
            continue
        for f in fig_at:
            if f > c and not _JOINT_RE.search(s.folded, c + 2, f):
                return True
    return False


def _another_count(
    s: SentenceFrame, frame: ClaimFrame, figs: Sequence[Figure], cfg: FrameConfig
) -> bool:
    """Whether the sentence counts the claim's counted things with another number.

    "Hollinsby's 11 remaining Vareth supermarkets ... will continue to trade" against "is
    shutting fourteen supermarkets": what the sentence says of 11 of them (the others) is not
    said of the claim's 14. Counts only (figures of no measured unit); ``figs`` are the
    sentence's figures (:attr:`SentenceFrame.quantities`).
    """
    for cf, counted in zip(frame.figures, frame.counted, strict=True):
        if not counted or cf.unit in MEASURED_UNITS:
            continue
        for sf in figs:
            if _units_agree(cf, sf) and not _same_figure(cf, sf, cfg.exact_tolerance) and (
                counted & _counted(s.folded, sf)
            ):
                return True
    return False


def _change_at_figure(s: SentenceFrame, fig_at: Sequence[int]) -> str:
    """The concept of the change word nearest a figure at ``fig_at`` (``""`` if none).

    "fell by 0.4% ..., but were 3.1% higher": at 3.1% the change is a rise.
    """
    best, out = 1_000_000, ""
    for f in fig_at:
        fk = bisect_right(s.starts, f) - 1
        for k, c in enumerate(s.word_concepts):
            if c in _CHANGE_CONCEPTS and abs(k - fk) < best:
                best, out = abs(k - fk), c
    return out


_CHANGE_CLAUSE_RE = re.compile(
    r"[;:()\[\]\u2013\u2014]|\s-\s|\b(?:but|while|whereas|which|who|that)\b"
)
"""Clause joints that bound what a change word is said of."""

CHANGE_REACH_WORDS = 8
"""A change word is said of the things named before it in its clause ("Traffic in March, April
and May 2024 was 1% higher") and of those named up to this many words after it (its object:
"raised its full-year profit guidance"). Convention: an object with its modifiers; "Rising
global temperatures, caused by the greenhouse effect, contribute to ..., such as the polar
bear" names the bear 17 words on."""


def _detached(
    s: SentenceFrame, concepts: frozenset[str], anchors: frozenset[str]
) -> frozenset[str]:
    """Those of ``concepts`` that the sentence says of something other than the claim's things.

    A change word ("rising", "an increase") is said of what its clause names before it and
    of what is named up to ``CHANGE_REACH_WORDS`` words after it in its clause (clauses end
    at ``_CHANGE_CLAUSE_RE``): it is detached when none of the claim's ``anchors`` (its
    subject and the rest of its predicate: "polar bear", "numbers") is named there.

    Args:
        s: The sentence.
        concepts: Change concepts the sentence holds.
        anchors: The claim's other concepts and subject terms.

    Returns:
        The detached concepts.
    """
    starts, wc = s.starts, s.word_concepts
    joints = [m.start() for m in _CHANGE_CLAUSE_RE.finditer(s.folded)]
    attached: set[str] = set()
    for k, q in enumerate(wc):
        if q not in concepts or q in attached:
            continue
        lo = bisect_right(joints, starts[k])
        a = joints[lo - 1] if lo else 0
        end_k = min(len(starts) - 1, k + CHANGE_REACH_WORDS)
        b = min(joints[lo] if lo < len(joints) else len(s.folded),
                starts[end_k + 1] if end_k + 1 < len(starts) else len(s.folded))
        part = s.folded[a:b]
        terms = tokenize(part)
        c = _text_concepts(part)
        if ({c.get(t, t) for t in terms} | _own_terms(terms, c)) & anchors:
            attached.add(q)
    return concepts - attached


_CONDITIONAL_RE = re.compile(r"\b(?:if|unless|would)\b")
"""A conditional or counterfactual ("if melted would cause sea levels to rise"): what it states
holds only under its condition (closed-class English)."""

_POSSIBILITY_RE = re.compile(
    rf"\b(?:could|might|{_MAY_MODAL}|possibly|perhaps|potentially|conceivably)\b"
)
"""Epistemic modals and adverbs: the sentence states a possibility (closed-class English)."""


def _hedged(
    s: SentenceFrame, pred_here: frozenset[str], frame: ClaimFrame, cfg: FrameConfig,
    fig_at: Sequence[int] = (),
) -> str:
    """The possibility cue ("could") a sentence states the claim's predicate under, or "".

    A sentence that says a thing could or may be so does not state that it is: it supports
    a claim that asserts the thing (or that it will be) only in part. A claim that is itself
    a possibility or a conditional ("may underestimate", "if") is not asserted outright.
    """
    if frame.is_projection or frame.is_conditional:
        return ""
    found = list(_POSSIBILITY_RE.finditer(s.folded))
    for m in found:
        if _cue_before(s, [m.start()], pred_here, cfg.scope_window, fig_at):
            return m.group(0)
    return ""


_STATE_CONCEPTS = _CHANGE_CONCEPTS | {"unchan"}
"""A change either way or its absence (a steady state): what a claim of a trend says."""

_CAUSE_CONCEPTS = frozenset({"caus"})
"""Concepts of causation ("cause", "caused by", a causal "due to"): a relation whose negation
negates the cause named with it."""


def _cause_named(
    words: Sequence[re.Match[str]], concepts: Sequence[str], k: int, targets: frozenset[str]
) -> bool:
    """Whether the cause named from word ``k`` on ("by the Sun") is one of the claim's concepts.

    Reads past "by", "of", "from", auxiliaries and determiners to the first content word (at
    most 4 words).
    """
    for j in range(k, min(len(words), k + 4)):
        w = words[j].group(0)
        if w in _SCOPE_SKIP or w in ("by", "of", "from"):
            continue
        # a name of two words ("carbon dioxide") is one concept of the sentence's terms
        two = " ".join(m.group(0) for m in words[j : j + 2])
        c = _text_concepts(two)
        pair = {c.get(t, t) for t in tokenize(two)}
        return concepts[j] in targets or bool(pair & targets)
    return False


_WH_WORDS = frozenset("what how where when why which who whom whose".split())

_NEG_WORDS = frozenset(
    "not no never none nobody nothing neither nor without cannot n't untrue false".split()
)


def _time_clash(claim: TimeFrame, sent: TimeFrame, context: TimeFrame | None) -> bool:
    """Whether the sentence (or, when it names no time, its context) names another period."""
    if claim.quarters:
        own = sent.quarters or (context.quarters if context else frozenset())
        if own and not (own & claim.quarters):
            return True
    if claim.fiscal:
        # financial years against financial years; against calendar years, by the two
        # calendar years each one overlaps
        if sent.fiscal:
            return not (sent.fiscal & claim.fiscal)
        if not sent.years and context is not None and context.fiscal:
            return not (context.fiscal & claim.fiscal)
    cyears = claim.spans()
    if cyears:
        ys = sent.spans()
        ctx = context.spans() if context else frozenset()
        if ys and not (ys & cyears) and not (ctx & cyears):
            return True
        if not ys and ctx and not (ctx & cyears):
            return True
    return False


_LEAD_YEAR_RE = re.compile(
    r"\W*(?:(?:in|during|for|by|as\s+of|at\s+the\s+end\s+of)\s+)?(?:[a-z]+\s+){0,2}?"
    r"(1[89]\d\d|20\d\d)\b(?!\s*[-\u2013]\s*\d)"
)


_DATED_AFTER_RE = re.compile(
    r"[\w'-]*\s+(?:back\s+)?(?:in|on|since)\s+(?:[a-z0-9]+\s+){0,2}?(?:1[89]\d\d|20\d\d)\b"
)
"""A word followed by the year it happened in ("opened in 2011", "closed on 4 May 2019")."""


def _dated_act(s: SentenceFrame, concepts: frozenset[str]) -> bool:
    """Whether the sentence dates its act of one of ``concepts`` to a year ("opened in 2011").

    An act so dated is a past event: against a claim that names no time ("has shut down its
    call centre"), the opposite act years before ("The centre opened in 2011") is not its
    contradiction.
    """
    for k, c in enumerate(s.word_concepts):
        if c in concepts and _DATED_AFTER_RE.match(s.folded, s.starts[k]):
            return True
    return False


def _leads_with_other_year(claim: TimeFrame, folded: str) -> bool:
    """Whether the sentence opens with a year the claim does not name.

    That year is the period of the whole sentence ("In 2024, 91% of pupils ..." against a
    claim of 2025), whatever the document names around it.
    """
    if not claim.years:
        return False
    m = _LEAD_YEAR_RE.match(folded)
    return bool(m) and int(m.group(1)) not in claim.years


_GENERIC_RE = re.compile(
    r"\W*(?:once|if|when|whenever|wherever|unless)\s+(?:a|an|any|every|each|no)\s+\w+"
)
"""A sentence that opens with a condition on an indefinite noun phrase ("Once a pool closes",
"If a company fails", "When any plant shuts") states a generality about such things, not a
fact about the claim's named subject (closed-class English)."""


def judge_frames(
    frame: ClaimFrame, doc: DocFrames, config: FrameConfig = FrameConfig(),  # noqa: B008
    *, title_terms: frozenset[str] = frozenset(), searched: bool = False,
    unnamed: frozenset[str] = frozenset(),
) -> FrameVerdict:
    """Decide the stance of one document toward one claim by reading sentence frames.

    Args:
        frame: The claim's frame (:func:`parse_claim_frame`).
        doc: The document's sentences (:func:`parse_doc_frames`).
        config: Thresholds.
        title_terms: Terms of the document's title, which count (with the text's) for
            whether the document names the claim's subject.
        searched: The document was found by searching for the claim. Another figure for the
            claim's quantity then refutes only a claim with a subject the document names
            ("The Fallowmoor Ridge turbines will stand 180 metres tall" against "149.9
            metres" in a document about Fallowmoor Ridge). A claim with no subject of its own
            ("global temperatures have risen 0.2 degrees per decade") shares its quantity's
            words with every document on the topic, and the figures found there are other
            measures (other periods, regions, studies): on the Climate-FEVER halves 2 of 21
            such refutations fell on claims labelled refute.
        unnamed: Terms of the claim's names that the document's text has only as other words
            ("Brackenford" for "Brackenfold", both ``bracke``): they do not name the subject
            (``title_terms`` are taken as given: the caller leaves them out there too).

    Returns:
        The document's stance: a refutation that bears on the claim's frame outweighs support
        elsewhere in the document (a correction quotes what it corrects), support outweighs a
        qualified (PARTIAL) reading, and NEUTRAL is returned when no sentence bears on the claim.
    """
    cfg = config
    named = (doc.terms - unnamed) | title_terms
    if not _names_subject(frame, named, cfg):
        return FrameVerdict("NEUTRAL", -1, 0.0, "the document does not name the claim's subject")
    if searched and not all(
        n <= named or (h and any(h in st.folded for st in doc.sentences))
        for n, h in zip(frame.names[1:], frame.name_heads[1:], strict=False)
    ):
        # "Ostvale Municipality intends to close Riverside Baths": a document found by search
        # that names Ostvale but not Riverside Baths is about another of Ostvale's pools (the
        # first name, the claim's subject, is often shortened: "the municipality")
        return FrameVerdict("NEUTRAL", -1, 0.0, "the document does not name what the claim "
                            "names after its subject")
    pred = frame.predicate
    pred_keys = frozenset(pred)
    opp = _opposites()
    best_rel, best_i = 0.0, 0
    found: dict[str, tuple[float, int, str]] = {}

    def keep(stance: str, score: float, i: int, why: str) -> None:
        if stance not in found or score > found[stance][0]:
            found[stance] = (score, i, why)

    change = (pred_keys | frozenset().union(*(opp.get(q, frozenset()) for q in pred_keys))) & (
        _CHANGE_CONCEPTS
    )
    anchors = (pred_keys | frozenset(frame.subject)) - _CHANGE_CONCEPTS
    # a claim about a named subject (not a topic: "global temperatures ..."), whose figures
    # the document states of that subject: a range holding its value, or its figure with the
    # opposite change, speaks of it (in a topic's texts ranges and changes of other measures
    # abound)
    named_subject = bool(frame.subject) and not frame.weak_subject
    measured = any(f.unit in MEASURED_UNITS for f in frame.figures)
    value_stated = False  # some sentence states the claim's figure for its quantity
    reported_at = 0  # the first sentence (after the first) that reports someone stating it
    last_time: TimeFrame | None = None
    # a claim dated to a month speaks of that month's quarter: a sentence of another quarter
    # (or after one, naming none) speaks of another period ("in the quarter" of a first-quarter
    # index, against "in April 2025")
    month_quarters = frozenset(
        (m - 1) // 3 + 1 for m in frame.months
    ) if frame.months and not frame.time.quarters else frozenset()
    last_quarters: frozenset[int] = frozenset()
    lede_time: TimeFrame | None = None
    for i, s in enumerate(doc.sentences):
        # A sentence that names no period speaks of the period of the nearest sentence before
        # it that does, or of the document's first one (its dateline or lede).
        context = last_time
        if lede_time is not None and context is not None and context is not lede_time:
            context = TimeFrame(context.years | lede_time.years,
                                context.quarters | lede_time.quarters,
                                context.fiscal | lede_time.fiscal, dated=context.dated)
        st_time = s.quarter_time if frame.time.quarters else s.time
        if s.quarter_time.quarters and (
            s.time.quarters or len(s.months) > 1 or not EFFECT_DATE_RE.search(s.folded)
        ):
            # a date of effect ("to close the school effective June 30") is no period for the
            # sentences after it
            last_quarters = s.quarter_time.quarters
        elif s.time.years:
            last_quarters = frozenset()  # "throughout 2025": the whole year
        if not st_time.empty:
            last_time = st_time
            if lede_time is None:
                lede_time = st_time
        cs = s.concept_set
        if i and frame.lead and not frame.lead & cs and _IT_OPENING_RE.match(s.folded) and (
            frame.lead & _lead_concepts(doc.sentences[i - 1].folded, _lead_skip())
        ):
            # "The suite was found to be compliant ... It did not fail the inspection": "it"
            # or "they" opening a sentence stands for the subject of the sentence before it,
            # here the claim's leading words ("The containment suite ... failed")
            cs = cs | frame.lead
        if change and change & cs:
            # a rise or fall said of another thing ("rising global temperatures ... such as
            # the polar bear") is not the claim's change, nor its opposite
            cs = cs - _detached(s, change & cs, anchors)
        p = _share(pred, cs) if pred else 0.0
        if not (pred_keys & cs) and not frame.figures:
            continue
        if frame.is_act and not (_CLAIM_DENIAL_RE.search(s.folded) or s.has_attrib):
            continue  # states the judged thing, not the agent's act of judging it
        if frame.figures:
            if s.quantities is None:
                s.quantities = _quantities(s.folded)
            figs = s.quantities
        else:
            figs = []
        has_plan_any = bool(s.plan_at)
        has_denial_here = s.has_denial
        matched = approx = 0
        conflict = ""
        for (
            cf, head, lower, counted, estimate, target, addition, loss, measure, length, avg,
            whole, kind, mean, neg_share,
        ) in zip(
            frame.figures, frame.heads, frame.lower_bounds, frame.counted,
            frame.estimates or (False,) * len(frame.figures),
            frame.targets or (False,) * len(frame.figures),
            frame.additions or (False,) * len(frame.figures),
            frame.losses or (False,) * len(frame.figures),
            frame.measures or (frozenset(),) * len(frame.figures),
            frame.lengths or (False,) * len(frame.figures),
            frame.averages or (False,) * len(frame.figures),
            frame.wholes or (False,) * len(frame.figures),
            frame.kinds or (frozenset(),) * len(frame.figures),
            frame.means or (False,) * len(frame.figures),
            frame.negated_shares or (False,) * len(frame.figures), strict=True,
        ):
            same_unit = [sf for sf in figs if _units_agree(cf, sf) and not (
                # "the five-storey block": a number of another noun, not five years
                cf.unit and sf.unit is None and _HYPHEN_NOUN_RE.match(s.folded, sf.end)
            ) and frame.requested == _asked_for(s.folded, sf)]
            # (an amount asked for is no value of an amount given, nor the reverse)
            same = [sf for sf in same_unit if _same_figure(cf, sf, cfg.exact_tolerance)]
            if same and (kept := [
                sf for sf in same if not _set_aside(s.folded, sf, figs, frame.figures)
            ]) != same:
                part = next((w for sf in same if (w := _part_of(s.folded, sf, figs))), None)
                if part is not None and whole:
                    # "Eleven of the 38 staff ... were issued with redundancy notices" against
                    # "All 38 employees are keeping their jobs"
                    conflict = f"{part.value:g} of the {cf.value:g}, not all"
                    break
                rejected = [sf for sf in same if _REJECTED_BEFORE_RE.search(
                    s.folded[max(0, sf.start - 24) : sf.start])]
                other = [sf for sf in same_unit if sf.unit != "year"
                         and not _same_figure(cf, sf, cfg.exact_tolerance)]
                if rejected and other and (not _is_round(cf) or (
                    named_subject and p >= cfg.predicate_with_figure
                )):
                    # "was £287,500, not the £312,000 the company reported": the sentence
                    # names the claim's value only to reject it for another (a round value
                    # so rejected only where the sentence carries the claim's quantity of a
                    # named subject: "the average increase is 12 percent, not the 9 percent
                    # the company has announced")
                    conflict = f"figure {other[0].value:g}, not the claim's {cf.value:g}"
                    break
                same = kept  # "not the £312,000", "eleven of the 38": not the sentence's value
            if mean:
                # "the average daily high was 36 degrees": a single day's 36 is not it
                same = [sf for sf in same if _stated_as_average(s.folded, sf, rates=True)]
            if same and all(
                _approximates(s.folded, sf) and _digits(sf) < _digits(cf) for sf in same
            ):
                approx += 1  # "past 2.3 million" for 2,310,000: rounded and hedged
                continue
            if same:
                matched += 1
                continue
            if lower and any(
                sf.value > cf.value and _same(cf.value, sf.value, 0.5) for sf in same_unit
            ):
                matched += 1  # "more than a thousand" against 1,100
                continue
            if any(
                (sf.is_hedged or cf.is_hedged) and _same(cf.value, sf.value, cfg.approx_tolerance)
                and not (not cf.is_hedged and _bound_excludes(s.folded, sf, cf.value))
                for sf in same_unit
            ) or (named_subject and _in_range(s.folded, same_unit, cf)):
                approx += 1
                continue
            for sf in figs:
                if _same_figure(cf, sf, cfg.exact_tolerance):
                    continue  # the claim's own value, set aside ("eleven of the 38")
                if any(
                    of is not cf and _units_agree(of, sf)
                    and _same_figure(of, sf, cfg.exact_tolerance) for of in frame.figures
                ):
                    # the value of another of the claim's figures ("will shut nine centres,
                    # bringing its estate down to 52" against "to shut nine of its 61"): it
                    # states that figure, not another value of this one
                    continue
                if estimate or is_estimate_figure(s.folded, sf):
                    continue  # an end of a range, or a factor: not a value of the quantity
                if _bound_admits(s.folded, sf, cf.value):
                    continue  # "now above £1,000 a month" admits £1,045: no other value
                if sf.unit is None and sf.token in pred:
                    continue  # a number of the claim's names ("the Arc 3"), not a quantity
                counts = sf.unit not in MEASURED_UNITS and cf.unit not in MEASURED_UNITS
                # two lengths of a thing in one unit ("a two-year deal" against "runs for three
                # years") are values of the claim's quantity
                lengths = length and sf.unit == cf.unit and is_length(s.folded, sf)
                if not lengths and (
                    (sf.unit != cf.unit and not counts) or (sf.unit or "").endswith("_span")
                    or (cf.unit or "").endswith("_span")
                ):
                    # another unit, or a span of time ("for the past 800,000 years"): a
                    # period, not a value of the claim's quantity
                    continue
                before = s.folded[max(0, sf.start - 24) : sf.start]
                if _COMPARISON_RE.search(before):
                    continue
                if has_plan_any and not frame.is_plan and (
                    any(c < sf.start for c in s.plan_at) or _PLANNED_AFTER_RE.search(s.folded)
                ):
                    # an expected figure does not refute a reported one (a plan named after
                    # the figure, "signed a seven-year deal under which it will be known as",
                    # is not what the figure states)
                    continue
                if frame.is_plan and not has_plan_any:
                    continue  # nor a reported figure (another year's) a planned or expected one
                if frame.is_projection and has_plan_any:
                    continue  # one projection ("could reach seven feet") against another
                if target and frame.time.empty and not _CHANGE_WORD_RE.search(s.folded):
                    continue  # a level at some other time, not what the change reached
                if addition and _TOTAL_TO_RE.search(s.folded[max(0, sf.start - 60) : sf.start]):
                    continue  # the total the additions brought it to, not their number
                if loss and not _CHANGE_WORD_RE.search(
                    s.folded[max(0, sf.start - 40) : sf.end + 24]
                ) and not _LOSS_BEFORE_RE.search(s.folded[max(0, sf.start - 40) : sf.start]):
                    continue  # "3,400 staff", a headcount: not the number of jobs lost
                if measure and (other := _money_measures(s.folded, sf)) and measure.isdisjoint(
                    other
                ):
                    continue  # a sum of another measure ("raised" against "valued at")
                if (frame.time.years or frame.time.fiscal) and not frame.time.quarters and (
                    not frame.months
                ) and _SUB_PERIOD_RE.search(s.folded):
                    continue  # of a quarter or a half of the claim's year, not all of it
                if not avg and is_average(s.folded, sf):
                    continue  # a series average against one episode's audience
                if neg_share != negated_share(s.folded, sf):
                    continue  # "97% agreed" against "57 percent don't agree": the others
                if not head & _TARGET_STEMS and _TARGET_BEFORE_RE.search(
                    s.folded[max(0, sf.start - 40) : sf.start]
                ):
                    # "outperformed its commitment of 147 million litres a day": a target, not
                    # the value the claim gives (unless the claim's figure is one: "a target of")
                    continue
                if frame.requested != _asked_for(s.folded, sf):
                    # "sought payment of £85,000" against "paid out £318m"; "awarded €23.5
                    # million" against "asked the court for €40 million": what was asked for
                    # and what was given are two quantities
                    continue
                same_noun = counts and bool(counted & _counted(s.folded, sf))
                if same_noun and count_kind(s.folded, sf) - kind - counted:
                    # "75 affordable homes" against "1,146 new homes": a kind of them (a kind
                    # the claim names and the sentence leaves out, "passenger journeys"
                    # against "journeys", is the same count written shorter)
                    continue
                if counts and not same_noun and not lengths:
                    continue  # bare counts of different things ("4 SIMs", "1m subscribers")
                if _is_round(cf) and p < cfg.predicate_support and not same_noun:
                    continue  # a round measure alone does not name the claim's quantity
                sf_head = _figure_head(s.folded, sf)
                if (
                    _share(_weights(head, pred), sf_head) >= cfg.figure_context
                    and (
                        p >= cfg.predicate_refute
                        or same_noun
                    )
                ) or (has_denial_here and p >= cfg.predicate_refute) or (
                    (same_noun or (measure and measure & _money_measures(s.folded, sf)))
                    and p >= cfg.predicate_with_figure
                ) or (lengths and p >= cfg.predicate_refute):
                    conflict = f"figure {sf.value:g} against the claim's {cf.value:g}"
                    break
        n_figs = len(frame.figures)
        on_quantity = (
            p >= cfg.predicate_with_figure
            or any(h & cs for h in frame.heads)
            or any(
                f.unit is not None and f.unit not in MEASURED_UNITS and n & cs
                for f, n in zip(frame.figures, frame.counted, strict=True)
            )  # "212 films": a count unit names the quantity
            or any(
                f.unit is None and n and n & _counted(s.folded, sf)
                and _same_figure(f, sf, cfg.exact_tolerance)
                for f, n in zip(frame.figures, frame.counted, strict=True) for sf in figs
            )  # "1.84 million TEU" for "1.84m TEU": the same count of the same thing
            or any(
                f.unit == "m2" and sf.unit == "m2" and _same_figure(f, sf, cfg.exact_tolerance)
                for f in frame.figures for sf in figs
            )  # "covers 42,000 square metres" for "a floor area of 42,000 m²": an area's unit
            # names its quantity, as a count's noun does
        )
        rel = (p + (matched + approx) / n_figs) / 2 if n_figs else p
        if rel > best_rel:
            best_rel, best_i = rel, i
        if rel <= 0:
            continue
        if (_time_clash(frame.time, st_time, context) or _leads_with_other_year(
            frame.time, s.folded
        )) and not (
            frame.months and s.months & frame.months and not st_time.years
        ) and not ((frame.is_dated_event or frame.is_one_off) and _same_event(
            frame, doc, i, title_terms, cfg
        )):
            # another period (a sentence naming the claim's month names its period); an
            # event dated to a day on both sides is one event (``other_date`` compares them),
            # and so is a one-off event the claim dates to a month (``other_month``)
            continue
        if frame.months and not frame.time.quarters and s.months and not (
            s.months & frame.months
        ) and not ((frame.is_dated_event or frame.is_one_off) and _same_event(
            frame, doc, i, title_terms, cfg
        )) and not (
            s.quarter_time.quarters and s.quarter_time.quarters <= month_quarters
            and _QUARTER_RE.search(s.folded)
        ):
            # another month of the claim's year; but an event the claim dates to one day and
            # the sentence to another is the same event on another date (``other_date``), and
            # a sentence that names the quarter of the claim's months ("the first quarter" for
            # "January to March") names its period whatever other day it gives (the date of
            # the update it corrects)
            continue
        if month_quarters and not s.months and not frame.is_dated_event and (
            last_quarters and not last_quarters & month_quarters
        ):
            continue  # of another quarter than the claim's month
        pred_here = pred_keys & cs
        fig_at = [sf.start for sf in figs if any(
            _same(cf.value, sf.value, cfg.approx_tolerance) for cf in frame.figures)]
        has_neg = _negation_scopes(
            s, pred_here, cfg.negation_window, fig_at,
            frame.subject_phrase if pred_keys - frame.subject_phrase else frozenset(),
            # past the negated verb to its object only for a claim about a named subject: the
            # topic words of a claim with none are in many negated clauses on other things;
            # and not, for a claim whose subject is a pronoun ("He was invited ..."), where a
            # named party is the negation's subject ("Harvey Weinstein ... did not get an
            # invite" says nothing of whether the claim's "he" got one)
            through_verb=named_subject and not (
                frame.pronoun_subject and _named_before_negation(s, frame)
            ),
        )
        has_denial = s.has_denial
        has_attrib = s.has_attrib
        if frame.is_act:
            # the claim is about someone's act of calling a thing untrue: the sentence's
            # attribution and denial words report that act, they are not the document's denial
            has_denial = has_attrib = False
        has_plan = _cue_before(s, s.plan_at, pred_here, cfg.scope_window, fig_at) or (
            _planned_after(s, pred_here, cfg.scope_window)
        )
        # "is expected to approve the stand": the decision the claim reports is still to come
        plans_decision = bool(frame.decided) and _cue_before(
            s, s.plan_at, frame.decided, cfg.scope_window
        )
        # Refutation: only what bears on the claim's own quantity and predicate.
        strict = frame.weak_subject and p < cfg.opposite_rest
        # Another value of one of the claim's figures refutes even where the sentence states
        # its other figures ("The launch price of the 256 GB Arc 3 is €649" against 699 euros
        # for the 256 GB model): those name what the value is of.
        if n_figs and conflict and on_quantity and not strict and (
            frame.subject or not searched
        ) and _reports_retracted(doc, i):
            # a correction's report of the statement it retracts refutes nothing ("gave the
            # budget as 4.2 million pounds. That figure was wrong."); the value it corrects it
            # to is the claim's, if it is
            if why := _corrected_value(doc, i, frame, cfg, to_claims=True):
                keep("SUPPORTS", rel, i, why)
            continue
        if n_figs and conflict and on_quantity and not strict and (
            frame.subject or not searched
        ):
            if _other_party(s, frame):
                continue  # "has fined Bramwell Air EUR 800,000": another party's figure
            if has_denial or _neighbour_denies(doc, i):
                keep("REFUTES", rel + 0.5, i, conflict + ", stated as a correction")
            elif reported_at and reported_at < i and _CONTRAST_OPENING_RE.match(s.folded):
                # "The observatory announced a price of €74m ... But the accounts put the total
                # cost at €81m": the document reports the claim's value and contradicts it
                keep("REFUTES", rel + 0.5, i, conflict + ", against the value reported")
            else:
                keep("FIGURE", rel, i, conflict)
            continue
        cs_done = cs
        if frame.is_done and not frame.is_plan and s.plan_at and (
            frame.months or not frame.time.empty
        ):
            # "closed temporarily in May 2025 and is expected to reopen in spring 2026" against
            # "reopened in May 2025": in the claim's period it closed, and the reopening the
            # sentence states is still to come (a claim with no period is supported in part
            # by the plan, as before)
            cs_done = cs - frozenset(
                q for q in pred_keys & cs
                if q in opp and _cue_before(s, s.plan_at, frozenset({q}), cfg.scope_window)
            )
        opposite = [
            q
            for q in pred_keys - cs_done
            if opp.get(q, frozenset()) & cs_done and not opp[q] & pred_keys
        ]
        at_figure = _change_at_figure(s, fig_at) if fig_at and (matched or opposite) else ""
        bound = bool(matched) and not opposite and at_figure in cs and (
            at_figure not in pred_keys
        ) and not _negation_scopes(s, frozenset({at_figure}), cfg.negation_window)
        if bound:
            # the claim's figure stated with the opposite change ("did not return to growth
            # ... and were 4.2 per cent lower" against "grew 4.2%"): the change word at the
            # figure (:func:`_change_at_figure`) says what the figure is, whatever else the
            # sentence says of the claim's change (a change said of another thing, not in
            # ``cs``, is not the claim's)
            opposite = [q for q in pred_keys if at_figure in opp.get(q, frozenset())]
        if frame.is_reversal or (s.neg_at and not bound) or _REVERSAL_RE.search(s.folded):
            opposite = []
        if opposite and at_figure in pred_keys:
            # "fell by 0.4% compared with February, but were 3.1% higher than in March 2024":
            # the claim's figure goes with the claim's own change; the opposite is another's
            opposite = []
        rest = _share({k: v for k, v in pred.items() if k not in opposite}, cs)
        # the claim's own figure stated with the opposite change ("go up by 7%" against "a
        # decrease of 7 percent") names its quantity as well as the rest of its words would
        figured = named_subject and bool(n_figs) and matched == n_figs and on_quantity and (
            _counts_named(s.folded, figs, frame, cfg)
        ) and not (
            # the sentence states the claim's change too ("fell by 0.4% compared with
            # February, but were 3.1% higher than in March 2024"): its figure may be that one's
            frozenset(opposite) & s.concept_set
        )
        if opposite and (rest >= cfg.opposite_rest or figured) and not frame.is_negated and (
            not n_figs or matched or (
                p >= cfg.predicate_refute and not _another_count(s, frame, figs, cfg)
            )
        ) and not _CONDITIONAL_RE.search(s.folded) and not _hedged(
            s, frozenset().union(*(opp[q] for q in opposite)) & cs, frame, cfg
        ) and not (
            frame.time.empty and not frame.months
            and _dated_act(s, frozenset().union(*(opp[q] for q in opposite)) & cs)
        ):
            # (a change that could happen, or would under a condition, is not the opposite
            # state stated)
            if (not has_neg or bound) and not has_attrib:
                keep("REFUTES", rest + 0.4, i, f"opposite predicate to '{opposite[0]}'")
                continue
        if opposite and not frame.is_negated:
            continue  # the opposite of the claim's predicate is never support for it
        frame_share = _share({**frame.subject, **pred}, cs)
        if measured:
            # a claim of a measured quantity is negated only where its figure is stated
            bears = bool(matched and on_quantity)
        else:
            bears = (
                p >= cfg.predicate_support
                or (n_figs and matched and on_quantity)
                or (frame_share >= cfg.predicate_support and bool(pred_here))
                # "Mr Greave has not been suspended": the claim's main verb negated, said of its
                # named subject (the rest of a long claim, "headteacher of ..., by the trust
                # that runs the school", describes who and by whom)
                or (not n_figs and bool(frame.main_verb) and frame.main_verb in cs and bool(
                    frame.names
                ) and _share(dict.fromkeys(frame.names[0], 1.0), cs) >= cfg.subject_share
                    and bool(_AUX_NEGATION_RE.search(s.folded))
                    and _negation_scopes(s, frozenset({frame.main_verb}), cfg.negation_window))
            )
        denies = (has_denial and _cue_before(
            s, s.denial_at, pred_here, 2 * cfg.scope_window, fig_at, in_clause=True,
        )) or (has_attrib and not frame.is_act and bool(_FALSITY_RE.search(s.folded)))
        # "did not grant the permit" is the claim's "refusal of the permit": a negated opposite
        # of a word the claim has and the sentence lacks states that word, it does not deny it
        negates_opposite = has_neg and any(
            q not in cs and opp.get(q, frozenset()) & cs for q in pred_keys
        )
        negated_here = bears and ((has_neg and not has_attrib) or denies) and (
            not frame.is_negated
        ) and not negates_opposite
        if negated_here and not strict and (frame.subject or p >= cfg.opposite_rest):
            # (someone arguing or rumoured to say "not X" is not the document's denial; "X
            # dismissed claims that ..." is). A claim that names no subject shares its words
            # with every document on its topic: a negation refutes it only where the sentence
            # carries nearly all of its predicate, as for a weak subject.
            keep("REFUTES", rel + 0.3, i, "negation or denial of the claim's predicate")
            continue
        if negated_here:
            continue  # a negation of the claim's predicate is never support for it
        if has_attrib:
            continue  # someone else's statement: not the document's assertion
        if frame.is_negated and not (has_neg or denies):
            # A negated claim ("sea level is not rising") is refuted by a sentence that states
            # its predicate without the negation, and never supported by one.
            if (
                bears and not strict and not has_plan and p >= cfg.predicate_support
                and not frame.is_conditional
                and not _CLAIM_DENIAL_RE.search(s.folded)  # "X is a hoax" repeated, not denied
            ):
                keep("REFUTES", rel + 0.3, i, "states what the negated claim denies")
            continue
        if n_figs:
            if matched == n_figs and not all(_is_round(f) for f in frame.figures) and any(
                _DENIED_AFTER_RE.match(s.folded, sf.end)
                or _REJECTED_LATER_RE.search(s.folded, sf.end)
                for sf in figs if sf.start in fig_at
            ):
                # "The earlier 27 percent number was not the figure the investigators analysed":
                # the claim's own (not round) value named to be rejected
                keep("REFUTES", rel + 0.5, i, "the claim's value is said to be wrong")
                continue
            if not (matched + approx == n_figs and (on_quantity or (
                # "EBIT excluding special items: EUR 187 million" for "operating profit came
                # to €187m": the claim's own measured value, written with three significant
                # digits or more, in a document on the claim's named subject, names its
                # quantity though the words for it differ (a paraphrase of the predicate)
                named_subject and matched == n_figs and all(
                    f.unit in MEASURED_UNITS and _digits(f) >= PRECISE_DIGITS
                    for f in frame.figures
                )
            ))):
                continue
            if _quotes_corrected(doc, i):
                if why := _corrected_value(doc, i, frame, cfg):
                    # "... stated that series two averaged 4.1 million. That was incorrect. The
                    # average ... was 3.4 million": the correction retracts the claim's value
                    keep("REFUTES", rel + 0.5, i, why)
                continue  # "Our release stated that ... 168. That figure was wrong."
            if not frame.is_negated and _negated_before(s, fig_at):
                # "The agency did not approve the use of Tremaxil in patients aged 12 to 17":
                # the claim's figures in a negated clause are not stated as the claim states them
                continue
            value_stated = True
            # a plan hedges the claim's figure only where it governs the figure: "has bought 86
            # homes ..., as part of its plan to end the use of hotels" states the 86 as done
            fig_plan = has_plan and (
                not fig_at or _cue_before(s, s.plan_at, frozenset(), cfg.scope_window, fig_at)
                or _planned_after(s, pred_here, cfg.scope_window)
            )
            if approx or (fig_plan and frame.is_done) or plans_decision:
                keep("PARTIAL", rel, i, "approximate figure" if approx else "planned or expected")
            elif hedge := _hedged(s, pred_here, frame, cfg, fig_at):
                keep("PARTIAL", rel, i, f"states the claim's figure as a possibility ('{hedge}')")
            elif all(_is_round(f) for f in frame.figures) and p < cfg.predicate_support and not (
                frame.subject and not frame.weak_subject
                and all(f.unit not in MEASURED_UNITS for f in frame.figures)
                and _counts_named(s.folded, figs, frame, cfg)
            ) and not (
                # the claim's day stated with it ("will increase by four per cent from 1 April
                # 2025"): a round figure and a day together pin one fact of a named subject
                named_subject and frame.days and frame.days & set(day_dates(s.raw or s.folded))
            ):
                # a round figure ("2 degrees", "100 years") is found in many sentences: with
                # little of the claim's predicate around it, it is partial support at most (a
                # round count of a named subject's things, of the things the claim counts, is
                # their count: "two people have died" in a document on the Tarrow cluster)
                keep("PARTIAL", rel, i, "a round figure with little of the predicate")
            elif lacks := missing_degree(frame.degrees, [s.folded]):
                keep("PARTIAL", rel, i, f"states the claim's figure, not its degree ('{lacks}')")
            elif when := missing_horizon(dict(frame.horizons), [s.folded]):
                keep("PARTIAL", rel, i, f"states the claim's figure, not its time frame "
                     f"('{when}')")
            elif frame.is_current and (then := _dated_to_past(s.folded)):
                keep("PARTIAL", rel, i, f"states the claim's figure of a past period ('{then}')")
            else:
                keep("SUPPORTS", rel, i, "states the claim's figure for its quantity")
                if not reported_at and _REPORTED_VALUE_RE.search(s.folded):
                    reported_at = i  # "The observatory announced a price of €74m"
            continue
        if p >= cfg.predicate_support and _acts_on_other_name(s, frame, pred_here):
            continue  # "close the Marsh End Weekly": the predicate's object is another name
        if _in_other_places(s, frame):
            continue  # "opened three hotels in Truro, Lincoln and Stirling": not in Edinburgh
        if _GENERIC_RE.match(s.folded):
            continue  # "Once a pool closes, it never comes back": a generality, not the fact
        if p >= cfg.predicate_support and _reports_retracted(doc, i) and len(
            _WORD_RE.findall(doc.sentences[i + 1].folded)
        ) <= _BARE_ERROR_WORDS and not (
            # the retracted statement is of another period ("throughput in 2024 had risen")
            st_time.spans() and frame.time.spans() and not st_time.spans() & frame.time.spans()
        ):
            # "Our press release ... stated that the new link road was expected to open in
            # 2026. This was an error.": the correction retracts the statement the claim makes
            keep("REFUTES", p + 0.3, i, "the correction retracts the statement it reports")
            continue
        if p >= cfg.predicate_support and len(pred_keys & cs) < 2 and not (
            frame.subject.keys() & cs
        ) and not _PRONOUN_OPENING_RE.match(s.folded):
            continue  # one word of the claim and none of its names: "road closures announced"
        if p >= cfg.predicate_support:
            missing = len(pred_keys - cs)
            polar = sorted(pred_keys & _STATE_CONCEPTS - cs)
            if frame.main_verb and frame.main_verb not in cs:
                # without the claim's main verb the sentence speaks of another fact of the same
                # things ("underground operations ... have been suspended" against "has
                # restarted underground mining")
                keep("PARTIAL", p, i, f"carries {p:.0%} of the claim's predicate, not its verb "
                     f"('{frame.main_verb}')")
            elif polar:
                # the claim's change or steady state ("rose", "fell", "stable") is what it says
                # of its subject: a sentence without it states something else of the same
                # things ("its surface temperature of 735 K" against "surface temperatures
                # have stabilized")
                keep("PARTIAL", p, i, f"carries {p:.0%} of the claim's predicate, not "
                     f"'{polar[0]}'")
            elif strict and frame.lead and not frame.lead & cs and not _PRONOUN_OPENING_RE.match(
                s.folded
            ):
                # a claim whose subject is a common first word ("Solar cycles cause global
                # warming"): a sentence without its leading words carries the rest of the
                # claim about something else ("Warming in the last 100 years has caused ...")
                keep("PARTIAL", p, i, f"carries {p:.0%} of the claim's predicate, not its "
                     "subject")
            elif (has_plan and frame.is_done) or plans_decision:
                keep("PARTIAL", p, i, "planned or expected, not done")
            elif hedge := _hedged(s, pred_here, frame, cfg):
                keep("PARTIAL", p, i, f"stated as a possibility ('{hedge}'), the claim is not")
            elif missing > cfg.missing_concepts:
                keep("PARTIAL", p, i, f"carries {p:.0%} of the claim; {missing} parts absent")
            elif lacks := missing_degree(frame.degrees, [s.folded]):
                keep("PARTIAL", p, i, f"carries {p:.0%} of the claim's predicate, not its "
                     f"degree ('{lacks}')")
            elif when := missing_horizon(dict(frame.horizons), [s.folded]):
                keep("PARTIAL", p, i, f"carries {p:.0%} of the claim's predicate, not its "
                     f"time frame ('{when}')")
            elif frame.is_current and (then := _dated_to_past(s.folded)):
                keep("PARTIAL", p, i, f"carries {p:.0%} of the claim's predicate, of a past "
                     f"period ('{then}'), not now")
            else:
                keep("SUPPORTS", p, i, f"carries {p:.0%} of the claim's predicate")
    if "FIGURE" in found and (not value_stated or _is_correction(doc)):
        # A different value of the claim's quantity refutes it, unless the document also
        # states the claim's value (then the other figure is another quantity of its own) and
        # is not a correction (which quotes the value it corrects).
        score, i, why = found["FIGURE"]
        found.setdefault("REFUTES", (score + 0.5, i, why))
    for stance in ("REFUTES", "SUPPORTS", "PARTIAL"):
        if stance in found:
            score, i, why = found[stance]
            return FrameVerdict(stance, i, min(1.0, round(score, 4)), why)
    return FrameVerdict("NEUTRAL", best_i, round(best_rel, 4),
                        f"no sentence bears on the claim (best {best_rel:.0%})")


def _same_event(
    frame: ClaimFrame, doc: DocFrames, i: int, title_terms: frozenset[str], cfg: FrameConfig
) -> bool:
    """Whether sentence ``i`` dates the claim's own event to a day.

    It writes a day-and-month date, and it, the ``cfg.subject_window`` sentences before it or
    the title name the claim's subject ("The final edition will be published on 28 September
    2023" in a story about another paper is another event).
    """
    if not day_dates(doc.sentences[i].raw):
        return False
    near = frozenset(title_terms).union(
        *(s.concept_set for s in doc.sentences[max(0, i - cfg.subject_window) : i + 1])
    )
    return _names_subject(frame, near, cfg)


def _names_subject(frame: ClaimFrame, terms: frozenset[str], cfg: FrameConfig) -> bool:
    """Whether ``terms`` name the claim's subject (always true of a claim with none).

    They hold ``cfg.subject_share`` of its terms' weight, or every term of one of its
    multi-word names.
    """
    return not frame.subject or _share(frame.subject, terms) >= cfg.subject_share or any(
        n and n <= terms for n in frame.names
    )


PRECISE_DIGITS = 3
"""Significant digits from which a measured value (187 million euros, 91.2 percent, 14,862
tonnes) is specific enough to name its quantity by itself in a document on the claim's
subject: one or two digits (23 percent, 1.2 million) recur across a document's quantities.
Convention."""


def _is_round(f: Figure) -> bool:
    """Whether a figure has one significant digit (2, 30, 100, 3000): common in any text.

    Read on the number as written ("nine weeks": 9, not its 63 days).
    """
    return _digits(f) <= 1


_APPROX_BEFORE_RE = re.compile(
    r"(?:about|around|approximately|roughly|nearly|almost|some|over|past|above|more than|"
    r"less than|under|up to|at least|close to|just over|just under|passed|passing|exceeded|"
    r"exceeding|topped|surpassed)\s*$"
)


_AT_MOST_RE = re.compile(
    r"(?:\b(?:just |well |slightly )?(?:under|below|less than|fewer than)|\bnearly|\balmost|"
    r"\bnot quite|\bshort of|\bno more than|\bup to)\s*$"
)
_AT_LEAST_RE = re.compile(
    r"(?:\b(?:just |well |slightly )?(?:over|above|more than)|\bat least|\bin excess of|"
    r"\bexceeded|\bexceeding|\btopped|\bsurpassed|\bpassed)\s*$"
)


def _counts_named(
    folded: str, figs: Sequence[Figure], frame: ClaimFrame, cfg: FrameConfig
) -> bool:
    """Whether the sentence states each of the claim's figures as a count of the same things.

    A measured figure (percent, money, a unit of ``MEASURED_UNITS``) needs its value only; a
    count needs its count unit ("two people") or the noun it counts ("14 of its pubs" and "19
    pubs"): "In 12 of these areas" does not count twelve pharmacies.
    """
    return all(
        any(
            _same_figure(f, sf, cfg.exact_tolerance) and (
                f.unit in MEASURED_UNITS
                or (f.unit is not None and sf.unit == f.unit)
                or bool(n & _counted(folded, sf))
            )
            for sf in figs
        )
        for f, n in zip(frame.figures, frame.counted, strict=True)
    )


_REPORTED_VALUE_RE = re.compile(
    r"\b(?:announced|said|stated|claimed|told|quoted|publici[sz]ed|put\s+(?:the|its)\b)"
)
"""A sentence reporting what someone stated ("The observatory announced a price of €74m")."""
_CONTRAST_OPENING_RE = re.compile(r"\W*(?:but|however|yet|in fact)\b")
"""A sentence that opens by contradicting the one before ("But the accounts put the cost at
€81m")."""

_RANGE_BETWEEN_RE = re.compile(r"\s*(?:-|\u2013|to|and)\s*$")


def _in_range(folded: str, figs: Sequence[Figure], fig: Figure) -> bool:
    """Whether two figures of ``fig``'s unit state a narrow range that holds its value.

    "in the range of £41 million to £43 million" holds £42 million: an approximate value of it
    (the ends of a range are no values of their own, ``is_estimate_figure``). A wide range
    ("1 to 9 million", "1.5 to 4.5 degrees") says little of any value in it: its upper end may
    be at most ``NARROW_RANGE`` times its lower.

    >>> t = "profit in the range of £41 million to £43 million"
    >>> q = _quantities(t)
    >>> _in_range(t, q, Figure(42e6, "gbp", 0, 0)), _in_range(t, q, Figure(45e6, "gbp", 0, 0))
    (True, False)
    """
    return any(
        lo.unit == hi.unit == fig.unit and fig.unit is not None
        and 0 < lo.value < hi.value <= NARROW_RANGE * lo.value
        and lo.value <= fig.value <= hi.value
        and _RANGE_BETWEEN_RE.match(folded[lo.end : hi.start])
        for lo, hi in zip(figs, figs[1:], strict=False)
    )


NARROW_RANGE = 1.25
"""Largest ratio of a range's ends for a value inside it to be approximated by it (forecast
ranges such as "£41 million to £43 million", 1.05). Convention."""


def _bound_admits(folded: str, fig: Figure, value: float) -> bool:
    """Whether a figure given as a bound admits ``value`` (float, the claim's figure).

    "the average rent is now above £1,000 a month" is a value over 1,000: it admits the
    claim's £1,045, so it states no other value of the quantity (and "more than 100 jobs"
    still excludes 45). Comparatives only (:data:`_OPEN_AT_LEAST_RE`, :data:`_OPEN_AT_MOST_RE`):
    "nearly 1,000", "just over 1,000" or "topped 1,000" are values near 1,000, not every value
    past it, and a limit ("requires not less than 25% of the apartments", "up to 200 homes",
    "no more than") names the limit's own value; a figure with no bound word admits nothing
    but itself.
    """
    before = folded[max(0, fig.start - 24) : fig.start]
    if _OPEN_AT_LEAST_RE.search(before) and not over_is_particle(
        folded[max(0, fig.start - 30) : fig.start]
    ):
        return value >= fig.value * 0.995
    if _OPEN_AT_MOST_RE.search(before):
        return value <= fig.value * 1.005
    return False


_OPEN_AT_LEAST_RE = re.compile(
    r"(?<!\bjust )(?<!\bslightly )(?<!\bno )(?<!\bnot )\b(?:over|above|more than|in excess of)\s*$"
)
_OPEN_AT_MOST_RE = re.compile(
    r"(?<!\bjust )(?<!\bslightly )(?<!\bno )(?<!\bnot )\b(?:under|below|less than|fewer than)\s*$"
)
"""Comparative bounds: "above £1,000", "more than 40", "under 5 per cent" (closed-class English;
"just over", "nearly", "topped" name a value near the bound, and limits, "at least", "not less
than", "up to", "no more than", the limit's value: neither is here)."""


def _bound_excludes(folded: str, fig: Figure, value: float) -> bool:
    """Whether a figure given as a bound excludes ``value`` (float, the claim's figure).

    "just under 39 per cent" is a value below 39: it excludes 41.2 however close 39 is, while
    "about 39" does not. Upper bounds: under, below, less/fewer than, nearly, almost, up to, not
    quite, short of, no more than; lower bounds: over, above, more than, at least, in excess
    of, exceeded, topped, surpassed, passed. Values within ``FrameConfig.exact_tolerance``'s
    default (0.005) of the bound are not excluded (rounding).
    """
    before = folded[max(0, fig.start - 24) : fig.start]
    if value > fig.value * 1.005 and _AT_MOST_RE.search(before):
        return True
    return value < fig.value * 0.995 and bool(_AT_LEAST_RE.search(before)) and not (
        over_is_particle(folded[max(0, fig.start - 30) : fig.start])
    )


_AVERAGE_BEFORE_RE = re.compile(
    r"\b(?:averag(?:ed|es|ing)|an average of|average of|a mean of|averaging out at|average)\s+"
    r"(?:(?:about|around|roughly|nearly|almost|just|over|under|some)\s+)?\W?$"
)
_AVERAGE_AFTER_RE = re.compile(
    r"^\W?\s*(?:\w+\s+){0,3}?(?:on average|average|an episode|a game|a match|per episode|"
    r"per game|per match|per issue)\b"
)


_AVERAGE_NOUN_RE = re.compile(
    r"\b(?:average|mean|median)\b(?:\s+[\w']+){0,8}?\s+(?:was|were|is|are|of|at)\s+\W?$"
)
"""An average named as the quantity, its value after it ("the average daily high temperature
was 27 degrees", "a mean of 4.1")."""
_PER_UNIT_RE = re.compile(r"\W?\s*(?:[\w-]+\s+){0,2}?(?:per\s+|/\s*)[a-z]+")
"""A price or rate per unit after a figure ("41.2 cents per litre", "42.0c/litre"): a mean
over the units."""
_RATE_AFTER_RE = re.compile(
    r"\W?\s*(?:\w+\s+){0,3}?(?:a|per|each|every)\s+(?:day|week|month|year|night|episode|game|"
    r"match|season|head|person|capita)\b|\W?\s*(?:\w+\s+){0,3}?(?:daily|weekly|monthly|annually|"
    r"yearly)\b"
)
"""A rate after a claim's figure ("14,200 vehicles a day"): a mean over a period's days."""


def _stated_as_average(folded: str, fig: Figure, *, rates: bool = False) -> bool:
    """Whether ``folded`` gives ``fig`` as an average.

    As :func:`is_average`, or an average named as the quantity before it ("the average daily
    high temperature was 27 degrees"); with ``rates``, also a rate or a price per unit after
    it ("14,200 vehicles a day", "41.2 cents per litre").
    """
    before = folded[max(0, fig.start - 90) : fig.start]
    if is_average(folded, fig) or _AVERAGE_NOUN_RE.search(before):
        return True
    after = folded[fig.end : fig.end + 40]
    return rates and bool(_RATE_AFTER_RE.match(after) or _PER_UNIT_RE.match(after))


def is_average(folded: str, fig: Figure) -> bool:
    """Whether ``folded`` (folded text) gives ``fig`` as an average of several values.

    "averaged 4.1 million viewers", "an average of 57 minutes", "3.40m average", "2.3 million
    an episode": a mean of a series, not the value of one of its members. "average
    temperatures rose 1.1 degrees" is not one: there "average" names the quantity, and the
    claim and the evidence name it alike.

    >>> text = "series two averaged 4.1 million viewers per episode"
    >>> is_average(text, _quantities(text)[0])
    True
    >>> text = "the final episode drew 5 million viewers"
    >>> is_average(text, _quantities(text)[0])
    False
    """
    before = folded[max(0, fig.start - 30) : fig.start]
    return bool(_AVERAGE_BEFORE_RE.search(before) or _AVERAGE_AFTER_RE.search(
        folded[fig.end : fig.end + 40]
    ))


_REJECTED_BEFORE_RE = re.compile(
    r"\b(?:not|rather than|instead of)\s+(?:the\s+|a\s+|an\s+)?(?:figure\s+of\s+)?\W?$"
)
_OF_THE_RE = re.compile(r"^\s+(?:out\s+)?of\s+(?:the|its|their|all)?\s*$")
_ALL_BEFORE_RE = re.compile(r"\b(?:all|every|each of the|the whole)\s+(?:of\s+the\s+)?$")


_NEGATED_AFTER_RE = re.compile(
    r"\s*(?:of\s+(?:the\s+|all\s+)?(?:[\w'’-]+\s+){0,3}?)?(?:who\s+|that\s+)?"
    r"(?:(?:do|does|did|would|will|could|can|are|were|is|was|have|has|had)\s*(?:not\b|n['’]t\b)"
    r"|(?:won|can)['’]t\b|never\b)"
)


def negated_share(folded: str, fig: Figure) -> bool:
    """Whether a figure counts those of whom the verb after it is negated (closed-class English).

    >>> from affidavit.tasks.judge_lexical import normalize_figures
    >>> [negated_share(t, normalize_figures(t)[0]) for t in (
    ...     "57 percent don't agree", "40% of voters do not support the plan",
    ...     "97% of the scientists surveyed agreed", "12% did not")]
    [True, True, False, True]
    """
    return bool(_NEGATED_AFTER_RE.match(folded, fig.end))


def _part_of(folded: str, fig: Figure, figs: Sequence[Figure]) -> Figure | None:
    """The part whose whole ``fig`` is ("eleven of the 38": eleven), or None.

    The whole may come first, with the part after a comma: "Of the 38 posts created, only 21
    have been filled".
    """
    for other in figs:
        if other.end <= fig.start and _OF_THE_RE.match(folded[other.end : fig.start]) and (
            other.value < fig.value
        ):
            return other
    if _FRONTED_WHOLE_RE.search(folded[max(0, fig.start - 20) : fig.start]):
        for other in figs:
            between = folded[fig.end : other.start]
            if other.start >= fig.end and other.value < fig.value and len(between) <= 90 and (
                _FRONTED_PART_RE.search(between)
            ):
                return other
    return None


_FRONTED_WHOLE_RE = re.compile(r"(?:^|[^\w\s]\s*|\b(?:and|but)\s+)(?:out\s+)?of\s+"
                               r"(?:the|its|their|all)?\s*$")
"""A whole named first ("Of the 38 posts", "out of 120 applicants"), at a sentence's or a
clause's start."""
_FRONTED_PART_RE = re.compile(r",\s+(?:only|just|some|about|around|fewer\s+than|less\s+than|"
                              r"more\s+than)?\s*$")
"""The comma that opens the part's clause after a fronted whole ("..., only 21")."""


def _set_aside(
    folded: str, fig: Figure, figs: Sequence[Figure], claimed: Sequence[Figure] = ()
) -> bool:
    """Whether the sentence gives ``fig`` as a value it rejects or as a whole it counts from.

    "was £287,500, not the £312,000 the company reported": the value is rejected. "Eleven of
    the 38 staff were issued with redundancy notices": what the sentence states, it states of
    eleven, not of the 38 (unless the part is one of the ``claimed`` figures too: "nine of the
    25 sets" for a claim of nine of the 25).
    """
    before = folded[max(0, fig.start - 24) : fig.start]
    if _REJECTED_BEFORE_RE.search(before):
        return True
    part = _part_of(folded, fig, figs)
    return part is not None and not any(c.value == part.value for c in claimed)


def _approximates(folded: str, fig: Figure) -> bool:
    """Whether a figure is given as an approximation or a bound ("past 2.3 million")."""
    return bool(_APPROX_BEFORE_RE.search(folded[max(0, fig.start - 16) : fig.start])) and not (
        over_is_particle(folded[max(0, fig.start - 30) : fig.start])
    )


def _digits(f: Figure) -> int:
    """Significant digits of a figure's value as written (2.31 million -> 3)."""
    v = f.written if f.written is not None else f.value
    return len(f"{abs(v):.6g}".split("e")[0].replace(".", "").strip("0"))


def _weights(terms: frozenset[str], pred: Mapping[str, float]) -> dict[str, float]:
    """IDF weights of a figure's context terms (the claim's predicate weight where known)."""
    if not pred:
        return dict.fromkeys(terms, 1.0)
    low = min(pred.values())
    return {t: pred.get(t, low) for t in terms}


_SUB_PERIOD_RE = re.compile(
    r"\b(?:first|second|third|fourth|final|last)\s+(?:quarter|half)\b|\b[qh][1-4]\b|"
    r"\b(?:the|this|that)\s+(?:quarter|half)\b|\bhalf[- ]year|\b(?:six|6)[- ]months\b|"
    rf"\b(?:{'|'.join(_MONTHS)})\s*(?:-|\u2013|to|and|through)\s*(?:{'|'.join(_MONTHS)})\b"
)
"""A part of a year: a quarter ("the first quarter", "the strongest month of the quarter"), a
half ("profit for the half", "half-year", "the six months to August"), a range of months
("between January and March")."""

_CORRECTION_RE = re.compile(
    r"\b(?:corrections?|corrected|correcting|erratum|errors?|misstated|misreported|"
    r"should have (?:read|said|stated)|incorrect(?:ly)?|inaccurate|wrong(?:ly)?|mistaken(?:ly)?)\b"
)


def _is_correction(doc: DocFrames) -> bool:
    """Whether the document corrects an earlier statement (a correction notice, an erratum)."""
    return any(_CORRECTION_RE.search(s.folded) for s in doc.sentences[:4])


_AUX_NEGATION_RE = re.compile(
    r"\b(?:has|have|had|is|are|was|were|will|would|did|does|do|can|could)(?:\s+not\b|n't)"
    r"|\bnever\b|\bno longer\b"
)
"""A negated auxiliary ("has not been suspended", "was never approved"): the negation of a verb,
not a word of negation in a noun phrase ("false starts", "no evidence")."""

_STATEMENT_ERROR_RE = re.compile(
    r"\b(?:figures?|numbers?|statements?|release|report|article|story|notice|version|totals?|"
    r"estimates?|amount|this|that|it)\b[^.;]{0,40}?\b(?:was|were|is|are)\s+(?:also\s+)?(?:wrong|"
    r"incorrect|inaccurate|an error|in error|mistaken|not correct)\b|\bgot\s+(?:it|this|that|"
    r"the\s+\w+)\s+wrong\b|\b(?:contained|included|had)\s+(?:an?\s+)?errors?\b|"
    # a correction named as such: a notice's heading, "incorrectly stated", "reported in error"
    r"\b(?:corrections?|corrected|correcting|erratum|errata|misstated|misreported|"
    rf"should have (?:read|said|stated)|(?:{ERROR_ADVERBS})\s+(?:\w+\s+)?(?:stated|said|"
    r"reported|gave|given|described|published|printed|quoted|listed|named)|(?:stated|said|"
    rf"reported|published|printed|given|quoted)\s+(?:{ERROR_ADVERBS}|in error))\b"
)
"""A sentence that says an earlier statement was in error ("That figure was wrong.", "This was
an error."); not a word of error about something else ("the households whose bills were
wrong")."""


def _corrected_value(
    doc: DocFrames, i: int, frame: ClaimFrame, cfg: FrameConfig, *, to_claims: bool = False
) -> str:
    """Why a correction retracts the claim's value quoted in sentence ``i`` ("" if it does not).

    The sentence after ``i`` is one of error ("That was incorrect."), or ``i`` says the error
    itself ("was stated incorrectly as 94.1%"), and one of the next
    ``CORRECTED_VALUE_REACH`` sentences gives a claim figure's unit another value (the
    corrected one). A correction whose other value is of another unit corrects another figure
    of the quoted statement ("stated revenue of 57 million euros and growth of 23 percent. The
    growth figure was wrong: 21 percent"), and leaves the claim's value standing.

    With ``to_claims``, sentence ``i`` quotes another value and the question is the other way
    round: why the correction supports the claim, whose value is the one it corrects to.
    """
    # the error is said in the next sentence ("That was incorrect."), or in the quoting
    # sentence itself ("the combined ratio was stated incorrectly as 94.1%. The correct figure
    # is 96.4%."), whose own figures are then the ones it retracts
    here = bool(_CORRECTION_RE.search(doc.sentences[i].folded))
    if not here and (
        i + 1 >= len(doc.sentences) or not _CORRECTION_RE.search(doc.sentences[i + 1].folded)
    ):
        return ""
    for s in doc.sentences[i + 1 : i + 1 + CORRECTED_VALUE_REACH]:
        if s.quantities is None:
            s.quantities = _quantities(s.folded)
        for cf in frame.figures:
            for sf in s.quantities:
                if sf.unit == "year" or not (cf.unit == sf.unit):
                    continue
                same = _same_figure(cf, sf, cfg.exact_tolerance)
                if to_claims and same:
                    return f"the correction gives the claim's {cf.value:g}"
                if not to_claims and not same:
                    return (f"the correction retracts the claim's {cf.value:g} (corrected to "
                            f"{sf.value:g})")
    return ""


CORRECTED_VALUE_REACH = 3
"""Sentences after a retracted statement within which a correction gives the corrected value
(the error sentence, the corrected value, and one more). Convention."""


_REPORTED_RE = re.compile(
    r"\b(?:stated|said|reported|gave|announced|wrote|claimed|put)\b.{0,80}?\b(?:that|as|at)\b"
)
"""A sentence that reports what was stated ("our release stated that ...", "gave the figure
as ...")."""


def _quotes_corrected(doc: DocFrames, i: int) -> bool:
    """Whether sentence ``i`` of a correction reports the statement it corrects.

    In a correction notice, a sentence that reports what was stated, or one followed by a
    sentence of error ("That figure was wrong."), is the corrected statement quoted, not the
    document's assertion.
    """
    if not _is_correction(doc):
        return False
    s = doc.sentences[i]
    nxt = doc.sentences[i + 1].folded if i + 1 < len(doc.sentences) else ""
    return bool(_REPORTED_RE.search(s.folded) or _STATEMENT_ERROR_RE.search(nxt))


def _reports_retracted(doc: DocFrames, i: int) -> bool:
    """Whether sentence ``i`` of a correction reports what was stated, then retracted.

    It reports a statement ("gave the budget as 4.2 million pounds") with no word of error in
    it, and the next sentence is one of error ("That figure was wrong."). The sentence that
    gives the right value ("That figure was wrong: the backlog was $460 million") is not one.
    """
    if not _is_correction(doc) or i + 1 >= len(doc.sentences):
        return False
    said = _NOTICE_LABEL_RE.sub("", doc.sentences[i].folded, count=1)
    return bool(
        _REPORTED_RE.search(said) and not _CORRECTION_RE.search(said)
        and _CORRECTION_RE.search(doc.sentences[i + 1].folded)
    )


_BARE_ERROR_WORDS = 8
"""Most words of a sentence of error that retracts the whole statement before it ("This was an
error.", "That statement was incorrect."); a longer one names what was wrong ("The growth
figure given for the third quarter was wrong"), which may be another part of the statement."""

_NOTICE_LABEL_RE = re.compile(r"^\W*(?:corrections?|clarifications?|erratum)\b[^:.]{0,40}:")
"""The label a correction notice opens with ("Correction, 2 June 2025:")."""


_OBJECT_NAME_RE = re.compile(
    r"\s+(?:(?:down|off|up|out|of|to)\s+)?(?:(?:the|a|an|its|their|his|her)\s+)?"
    r"((?:[A-Z][\w'’\-]*\s+){1,3}[A-Z][\w'’\-]*)"
)


def _acts_on_other_name(s: SentenceFrame, frame: ClaimFrame, pred_here: frozenset[str]) -> bool:
    """Whether a claim predicate in the sentence takes another named entity as its object.

    Only when the sentence does not name the claim's subject: "Ledgerwood Media has decided to
    close the Marsh End Weekly" does not speak of the Pellworth Gazette.
    """
    if not frame.subject or frame.subject.keys() & s.concept_set or not s.raw:
        return False
    for m in _WORD_RE.finditer(s.raw.lower()):
        if _word_concept(m.group(0)) not in pred_here:
            continue
        obj = _OBJECT_NAME_RE.match(s.raw, m.end())
        if obj and not (set(tokenize(obj.group(1))) & frame.subject.keys()):
            return True
    return False


_PLACE_RE = re.compile(r"\b(?:in|at)\s+((?:[A-Z][\w'’-]+)(?:\s+[A-Z][\w'’-]+)*)")
"""A place the claim names ("opened a hotel in Edinburgh")."""


def _in_other_places(s: SentenceFrame, frame: ClaimFrame) -> bool:
    """Whether the sentence places its statement in other named places than the claim's.

    "The group opened three hotels during the quarter, in Truro, Lincoln and Stirling" does not
    speak of a hotel opened in Edinburgh: the sentence names places, none of them the claim's.
    """
    if not frame.places or not s.raw:
        return False
    if any(place <= s.concept_set for place in frame.places):
        return False
    own = frozenset().union(*frame.places, frame.subject.keys())
    return any(
        not (frozenset(tokenize(m.group(1))) & own) for m in _PLACE_RE.finditer(s.raw)
    )


def _neighbour_denies(doc: DocFrames, i: int) -> bool:
    """Whether the sentence right before or after sentence ``i`` denies or corrects."""
    return any(
        doc.sentences[j].has_denial for j in (i - 1, i + 1) if 0 <= j < len(doc.sentences)
    )


def _fig_terms(s: SentenceFrame, frame: ClaimFrame) -> frozenset[str]:
    """Figure tokens of the claim that the sentence holds (negation may scope over them)."""
    return frozenset(f.token for f in frame.figures) & s.concept_set
