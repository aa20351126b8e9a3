"""The content words of a text, cut to their stems: how the host tells
whether two texts speak of the same thing (a task and the user's words
about it, a preference and a message, a skill and its rewrite), and its
words of change and negation (``changes``): how it tells that a rewrite
still says what changed, or what is not so; with its numbers, whether a
rewrite says a passage otherwise (``says_otherwise``).

Plain and mostly English, as everything the host reads of what was said;
but words are read in every script (``base.scripts``: a word keeps the
marks on its letters, and Chinese or Thai, written without spaces, is read
by pairs of neighbouring letters), and denials in the languages most
spoken, so what it cannot read of another language makes a rewrite fail
its checks rather than pass them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import regex

from desktop.core.base.scripts import has_unspaced, words_of
from desktop.core.base.text_fold import APOSTROPHES

_STEM = 4
_STOP = frozenset(
    str.split(
        "the and for are was were has have had with that this they them their user user's "
        "users his her she him you your about from into also very really does did who which "
        "been will would could should when what there then than just like some more much "
        "please thanks thank reverie always not but can all any how why yes one get got let "
        "its our out now too may say see way off own per via don't doesn't isn't"
    )
)
_CHANGES_SAID = (
    r"\b(?:"
    r"(?P<ended>no longer|any ?more|no more|used to|stop(?:s|ped|ping)?|quit(?:s|ting)?"
    r"|g[ai]ve(?:s|n)? up|giving up|ceased?|former(?:ly)?|ex-|previous(?:ly)?)"
    r"|(?P<died>died|dies|dead|passed away)"
    r"|(?P<divorced>divorc\w*|separated|broke up|split up)"
    r"|(?P<now>now|nowadays|these days)"
    r"|(?P<denied>not|no|never|none|nothing|nobody|neither|nor|without|skip\w*|avoid\w*"
    # typed without the apostrophe: "I dont want it"
    r"|(?:do|does|did|is|are|was|were|have|has|had|should|would|could|ca|wo)nt"
    # German, French, Spanish, Italian, Portuguese: "nicht allergisch", "pas", "nunca"
    r"|nicht|kein\w*|nie|niemals|pas|jamais|nunca|nadie|ninguna?|mai|nenhuma?"
    # Dutch, Swedish, Danish, Norwegian, Polish, Czech, Russian, Ukrainian,
    # Turkish, Indonesian, Vietnamese, Hindi, Urdu, Arabic, Korean's word
    r"|niet|geen|nooit|inte|ikke|aldrig|aldri|ingen|nigdy|nikdy|не|нет|никогда|ні|ніколи"
    r"|değil|yok|asla|tidak|bukan|belum|jangan|không|chưa|chẳng|đừng"
    r"|नहीं|नही|न|मत|نہیں|لا|لم|لن|ليس|ليست|안|못)"
    r")\b|n't\b"
)
"""Words that say something changed or is not so, by what they say: it
ended ("no longer", "stopped", "quit", "used to", "former", "ex-"),
someone died, a marriage ended, it holds *now*, or it is denied ("not",
"never", "without", "skip").  A small model's rewrite that loses one of
them says the opposite ("takes warfarin" for "stopped taking warfarin"),
one that gains one says what nobody said."""
_DENIED_INSIDE_WORDS = (
    # Chinese, Japanese, Korean's endings, Thai, Lao, Khmer
    r"不|没|沒|别|別|未(?!来|來)|无|無|非(?!常)|ない|ません|않|없|ไม่|ບໍ່|មិន"
)
"""Words of denial in scripts with no spaces between words (or, in Korean,
at a word's end): found wherever they stand."""
_CHANGES_ASCII = re.compile(_CHANGES_SAID, re.IGNORECASE)
_CHANGES_ANY = regex.compile(f"{_CHANGES_SAID}|{_DENIED_INSIDE_WORDS}", regex.IGNORECASE)


def _changes_in(text: str) -> re.Pattern[str] | regex.Pattern[str]:
    """``_CHANGES_SAID`` for *text*: its ``\\b`` must not fall inside a word
    ("नहीं" ends with marks, which re's ``\\w`` leaves out), and for a text
    all ASCII re finds it as well and several times sooner."""
    return _CHANGES_ASCII if text.isascii() else _CHANGES_ANY


NUMBER = re.compile(r"(?<![\d.])\d+(?:[.,:]\d+)*")
"""A number as written: "3", "08:00", "1.5", "2,000"."""
DENIED = "denied"
"""The ``changes`` of a text that denies something ("not", "never", "skip")."""
_DENIAL = frozenset({DENIED})


def stems(text: str) -> frozenset[str]:
    """The content words of *text*, cut to their first letters ("watered",
    "water" and "watering" are one)."""
    return stems_of(words_of(text.translate(APOSTROPHES).casefold()))


def stems_of(words: Iterable[str]) -> frozenset[str]:
    """``stems`` of words already split and in lower case; a pair of
    letters of an unspaced script is whole, as a word of its own."""
    return frozenset(
        w if has_unspaced(w) else w[:_STEM]
        for w in words
        if (len(w) >= 3 or has_unspaced(w)) and w not in _STOP
    )


def related(first: str, second: str) -> bool:
    """Do *first* and *second* share a content word?"""
    return bool(stems(first) & stems(second))


def new_words(text: str, sources: Iterable[str]) -> list[str]:
    """The content words of *text* that none of *sources* has (by stem), in
    order, each once: what a rewrite of them adds.  Words of change are
    left to ``changes`` ("used to" says "stopped" again, adding nothing)."""
    theirs = frozenset().union(*map(_their_stems, sources))
    return list(dict.fromkeys(w for w in _unchanged_words(text) if stems_of([w]) - theirs))


def _their_stems(source: str) -> frozenset[str]:
    """The stems a rewrite of *source* may use: its words' (``stems``), and
    where a word of change stands inside a run of unspaced letters, the
    pairs on each side of it too."""
    mine = stems(source)
    return mine | stems_of(_unchanged_words(source)) if has_unspaced(source) else mine


def _unchanged_words(text: str) -> list[str]:
    """The words of *text* other than its words of change (``_CHANGES_SAID``)."""
    text = text.translate(APOSTROPHES)
    return words_of(_changes_in(text).sub(" ", text).casefold())


def changes(text: str) -> frozenset[str]:
    """What *text* says changed or is not so (see ``_CHANGES_SAID``): "ended",
    "died", "divorced", "now" or ``DENIED``."""
    text = text.translate(APOSTROPHES)
    found = _changes_in(text).finditer(text)
    return frozenset(match.lastgroup or DENIED for match in found)


def says_otherwise(original: str, rewritten: str) -> str | None:
    """How *rewritten*, put in the place of *original*, says something else
    (None: it does not): other numbers, or theirs in another order ("3
    tablets, never more than 1" for "1 tablet, never more than 3"), or
    other words of change ("take it with aspirin" for "never take it with
    aspirin").  A small model's rewrite keeps every number and the word
    "never" somewhere, and still says the opposite."""
    if NUMBER.findall(rewritten) != NUMBER.findall(original):
        return "with other numbers"
    if changes(rewritten) != changes(original):
        return "with other words of change or denial"
    return None


# -- whether the user's words say a claim ------------------------------------------

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_CLAUSE = re.compile(
    r"[,:;()]|\s[-\u2013\u2014]\s|\b(?:but|though|although|whereas|however|so|because)\b",
    re.IGNORECASE,
)
"""Where a sentence's clauses part: each says its own thing ("I'm
vegetarian, I don't eat meat")."""
_AGAINST = re.compile(
    r"\b(?:hat(?:es?|ed|ing)|dislik\w*|detest\w*|loath\w*|can't stand|cannot stand)\b",
    re.IGNORECASE,
)
"""Words against something ("hates", "dislikes"): read as a denial, so
"I hate jokes" does not say "enjoys jokes" and does say "dislikes jokes"."""
_NAME = re.compile(r"(?<![.!?]\s)(?<=\s)[A-Z][\w-]*")
"""A capitalised word not at the start: a name, a place, a month."""
_NUMBER = re.compile(r"\d+")
_NUMBER_WORDS = dict(
    zip(
        str.split(
            "one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty "
            "fifty sixty seventy eighty ninety hundred"
        ),
        map(str, [*range(1, 20), *range(20, 100, 10), 100]),
        strict=True,
    )
)
_NUMBER_WORD = re.compile(r"\b(?:" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)
_CLAIMING = stems_of(
    str.split(
        "user prefers preferred preference likes loves enjoys wants wished named called "
        "favourite favorite fond tends usually often recently currently generally "
        "typically owns person answers replies responses "
        "mentioned mentions said says told talked became become plans planned planning number"
    )
)
"""Stems of the words a claim about the user is made of ("User prefers...",
"a dog named Max", "User mentioned...", "prefers short answers": a
preference is of Reverie's answers), not what it claims: the user's words
need not have them, and having them is not enough.  Not "works" nor "years
old": "I interviewed at Google" is no job there, "I paid 34 euros" no age
(``_IMPLIES`` reads them where they are said in other words)."""
_OPPOSITES = frozenset(
    frozenset(pair) for pair in (("shor", "long"), ("brie", "long"), ("fast", "slow"))
)
"""Stems of words that say each other's opposite: "stop writing long
answers" says "short answers"; "I love long answers" says the reverse."""
_CONTRAST = re.compile(r"\s*(?:not|rather than|instead of)\b", re.IGNORECASE)
"""The start of a claim's contrast ("prefers tea, not coffee")."""
_NOT_NOW = frozenset({"now"})
"""What ``changes`` finds that says nothing against a claim ("I live in
Lisbon now" says "lives in Lisbon")."""
_OTHER_PERSON = re.compile(
    r"^\W*(?:and\s+|well\s+|oh\s+|also\s+)?"
    r"(?:(?:my|our)\s+(?:[\w-]+\s+)?|(?:a|an|one|1|some)\s+(?:of\s+(?:my|our)\s+)?)"
    r"(?P<who>(?:ex-)?(?:mother|mom|mum|father|dad|parents?|brother|sister|sibling|son|"
    r"daughter|kids?|child|children|husband|wife|partner|spouse|boyfriend|girlfriend|"
    r"fianc\w*|friend|boss|manager|colleague|coworker|neighbou?r|roommate|flatmate|"
    r"cousin|uncle|aunt|niece|nephew|grand\w+|doctor|teacher|family|baby|"
    r"pet|dog|puppy|cat|kitten|horse|rabbit|hamster|bird|parrot)s?)"
    r"(?P<name>\s+(?-i:[A-Z])[\w-]*)?(?P<with_me>\s+and\s+(?:I|me)\b)?",
    re.IGNORECASE,
)
"""A clause whose subject is someone else ("my sister is a nurse", "my
friend Tom lives in Berlin", "a friend of mine", "one of my coworkers"),
not the user with them ("my wife and I")."""
_NO_SUBJECT = re.compile(
    r"^\W*(?:who|which|that|whose|is|are|was|were|has|have|had|does|did|works?|lives?)\b",
    re.IGNORECASE,
)
"""A clause going on about the subject of the clause before ("My sister,
who lives in Berlin, is a nurse": "is a nurse" is the sister's)."""
_HEDGES = (
    ("unsure", r"might|(?-i:may)|maybe|perhaps|possibly|probably|wonder\w*|not sure|unsure"),
    (
        "wish",
        r"wants?(?: to)?|wanted to|wanna|wish\w*|hop(?:e|es|ing) to"
        r"|(?:trying|try|tries|tried|attempting) to|(?:should|ought to|need to|have to|must)"
        r"|(?:would|'d) (?:like|love|prefer|rather)(?: to)?"
        r"|plan(?:s|ned|ning)? to|thinking (?:of|about)|consider\w*"
        r"|someday|some day|one day|prefer\w*|tell me|explain|show me|give me|help me"
        r"|(?:can|could|would|will) you|let me know|describe",
    ),
    # "would" and "'d" as a preference ("I'd rather") are the wish above.
    (
        "if",
        r"if|unless|whether|would(?! (?:like|love|prefer|rather))"
        r"|'d (?!been|like|love|prefer|rather)",
    ),
)
_HEDGE = re.compile(
    "|".join(rf"(?P<{kind}>\b(?:{words})\b)" for kind, words in _HEDGES), re.IGNORECASE
)
"""Words that say a clause is not so but only possible ("might", "wonder
if"), wished for ("want to", "hope to") or asked for ("tell me", "can
you"), or so only if ("if I were", "I'd"): what such a clause says is
said only of a claim that says it the same way ("wants to quit smoking"
for "I want to quit smoking"; a preference is a wish)."""
_IMPLIES = (
    (r"\b(?:moved|relocated) (?:to|here)\b|\bliv(?:e|es|ed|ing)\b", "lives"),
    (r"\b(?:kids?|child|children|sons?|daughters?)\b", "children kids"),
    (r"\b(?:meds|medicines?|medications?|pills|tablets|drugs)\b", "medication meds"),
    (r"\b(?:every|each) (?:day|morning|evening|night)\b", "daily"),
    (r"\binstruments?\b", "plays"),
    (r"\bwork\w* (?:nights|evenings|weekends)\b", "shifts"),
    (r"\b(?:learn\w*|stud\w*)\b", "learning studying"),
    (r"\b(?:programmer|developer|coder|software engineer)s?\b", "programmer developer"),
    (r"\bmarried\b|\b(?:my|our) (?:husband|wife|spouse)\b", "married spouse"),
    (r"\bmarried to\b(?! (?:my|the|his|her) (?:job|work|career))", "husband wife"),
    (r"\b(?:mom|mum)\b", "mother"),
    (r"\bdad\b", "father"),
    (
        r"\b(?:had|have|having|expecting) (?:a|our|my) (?:\w+ )?baby\b"
        r"(?! (?:brother|sister|cousin|niece|nephew|shower|sitter|monitor|clothes|photos?))",
        "parent father mother",
    ),
    (r"\b(?:allerg\w*|hives|reaction to)\b", "allergic allergy"),
    (r"\b(?:my|our) (?:job|boss|employer|office|colleagues?|coworkers?)\b|\bemploy\w*", "works"),
    (
        r"\b(?:am|i'm|im|is|are|was|were|turned|turning|aged?) \d+\b(?! ?(?:%|[a-z]+ (?:late|early)"
        r"|(?:min|minute|hour|day|week|month|euro|dollar|pound|percent|kg|km|mile|time|page|"
        r"item|people|person|cm|m|g|lb|st)s?\b))",
        "years old age",
    ),
    (r"\b\d+(?: years? old|-year-old| yo\b)", "years old age"),
)
"""Words of the common facts about a user said in other words: what a
phrase of the user's says too ("my kids" says "children", "I moved to
Berlin" says "lives", "I had a baby" says "parent").  Kept small: each is
so for any user who says it: not "a baby brother" (no parent), "married to
my job" (no spouse) or a swelling (a run does it as well as an allergy)."""
_IMPLIED = tuple((re.compile(phrase, re.IGNORECASE), words) for phrase, words in _IMPLIES)
_CANNOT_HAVE = re.compile(
    r"\bcan(?:'t|not| not) (?:eat|have|drink|take|tolerate)\b"
    # "I can't take ibuprofen before surgery": for now, not a body's reaction
    r"(?![^.!?;]*\b(?:before|until|till|while|during|today|tonight|this week|for now|right now)\b)",
    re.IGNORECASE,
)
""""I can't eat peanuts": not a denial but a body's reaction, read as
"allergic to" (so "does not eat peanuts" is refused, the safer way)."""


@dataclass(frozen=True)
class Support:
    """Whether the user's words say a claim (``support``)."""

    reason: str
    """Why they do not, in a few words without the words themselves, for a
    log or a report; "" when they do."""
    sources: tuple[int, ...] = ()
    """Which of the texts say it."""

    def __bool__(self) -> bool:
        return not self.reason


@dataclass(frozen=True)
class _Clause:
    """A clause: its content stems and numbers, what it says changed or
    is not so, and the text it is from."""

    stems: frozenset[str]
    changes: frozenset[str]
    source: int = 0
    contrast: bool = False
    """A claim's "..., not Y" after what it claims: it need not be said,
    only not said otherwise."""
    hedges: frozenset[str] = frozenset()
    """How it says it only may be, is wished for or holds if (``_HEDGE``)."""
    about: frozenset[str] = frozenset()
    """The stems of the other person it is about ("my sister"); none when
    it is about the user."""


def support(claim: str, said: Sequence[str]) -> Support:
    """Do the user's words *said* say *claim* (a fact or a preference about
    them)?  Each clause of a sentence is read on its own, and a question
    says nothing.  The claim's names and numbers must be in the words, and
    half its other content words in clauses that agree with it on what
    changed or is not so (``changes``): "not allergic" does not say
    "allergic", "stopped taking warfarin" not "takes warfarin", "don't make
    answers short" not "prefers short answers"; a clause that speaks
    mostly of the claim and says otherwise refuses it, and so does a word
    of it the user only asked about."""
    stated, asked = _sentences(said)
    names = _names(claim)
    if not _heard(stated) >= names:
        return Support("it names something you did not say")
    parts = [c for c in _clauses([claim]) if c.stems]
    whole = frozenset().union(*(part.stems for part in parts))
    hedged = frozenset().union(*(part.hedges for part in parts))
    grouped = _told_together(stated)
    clauses = [
        c
        for c in _clauses([(group, sentence) for group, _, sentence in grouped], implied=True)
        if c.hedges <= hedged and (not c.about or c.about & whole)
    ]
    only_asked = frozenset().union(*(c.stems for c in _clauses(asked))) - frozenset().union(
        *(c.stems for c in clauses)
    )
    # What each part of the claim is said by, sentences told together at a time.
    covered: dict[int, set[str]] = {}
    against: set[str] = set()
    for part in parts:
        for clause in (_read_for(clause, part.stems) for clause in clauses):
            common = _common(clause.stems, part.stems)
            if common and _agree(part.changes, clause.changes):
                covered.setdefault(clause.source, set()).update(common)
            elif clause.changes and 2 * len(common) > min(len(part.stems), len(clause.stems)):
                against |= common
    if against - set().union(*covered.values()):
        return Support("you said otherwise")
    if any(part.stems & only_asked for part in parts):
        return Support("you only asked about it")
    names_stems = {name[:_STEM] for name in names}
    saying = [group for group, words in covered.items() if _enough(words, parts, names_stems)]
    if not saying:
        return Support("too little of it is in your words")
    return Support("", tuple(sorted({text for group, text, _ in grouped if group in saying})))


def _told_together(stated: list[tuple[int, str]]) -> list[tuple[int, int, str]]:
    """*stated* (text index, sentence) with the number of the group each
    is told in: a sentence pointing back ("His name is Rex", "It was in
    May") is told with the one before it, in its message or the one
    before, any other alone.  A claim is
    said by one group: "I'm allergic to cats. The doctor gave me
    penicillin" does not say "allergic to penicillin"."""
    grouped: list[tuple[int, int, str]] = []
    for index, (text, sentence) in enumerate(stated):
        with_last = index and _POINTS_BACK.search(sentence)
        group = grouped[-1][0] if with_last else index
        grouped.append((group, text, sentence))
    return grouped


_POINTS_BACK = re.compile(
    r"\b(?:he|him|his|she|her|hers|it|its|they|them|their|this|that|these|those|there|then)\b",
    re.IGNORECASE,
)
"""Words by which a sentence speaks of what the one before it said."""


def _enough(covered: set[str], parts: Sequence[_Clause], names: set[str]) -> bool:
    """Is all of what the claim's *parts* say but its *names* (which must
    all be said anyway) and a contrast *covered* ("prefers short answers,
    not long essays" is said by "shorter answers please"), and something?
    A merged or reworded fact may leave words out, never add one: half
    let "takes metformin and insulin" through on "I take metformin".  With
    nothing but names, one of them said in agreement is enough ("User's
    name is Sam")."""
    needed = frozenset().union(*(part.stems for part in parts if not part.contrast)) - names
    return bool(covered) and needed <= covered


def _common(said: frozenset[str], claimed: frozenset[str]) -> frozenset[str]:
    """The stems of *claimed* that *said* has, a word of three letters
    and its endings alike ("eat" is "eating", "run" is "runner")."""
    return frozenset(word for word in claimed if word in said or _ending(word) & said)


def _ending(stem: str) -> frozenset[str]:
    """The other stem of *stem*'s word of three letters with or without an
    ending ("eati" and "eat", "runn" and "run")."""
    if len(stem) == _STEM and (stem[3] == "i" or stem[3] == stem[2]):
        return frozenset({stem[:3]})
    return frozenset({stem + "i", stem + stem[-1]}) if len(stem) == 3 else frozenset()


def own_words(text: str) -> str:
    """*text* without what the user passed on rather than said: ``>``
    quoted lines (an email), fenced or triple-quoted blocks, a quotation
    of three words or more, and everything after a line that hands over a
    pasted text ("Can you answer this email from Jo?", "Summarise this
    article:").  A fact, preference or instruction in them is someone
    else's: "I'm pregnant" in Jo's email is not the user's."""
    text = _FENCED.sub(" ", text)
    text = _QUOTED_LINE.sub("", text)
    if handed := _HANDS_OVER.search(text):
        text = text[: handed.end()]
    # Found with every quotation mark as one of two (the same length, so
    # what is found there is cut from the text as written).
    pieces: list[str] = []
    done = 0
    for quotation in _QUOTATION.finditer(text.translate(_QUOTATION_MARKS)):
        if len(quotation.group()[1:-1].split()) >= _QUOTED_WORDS:
            pieces.append(text[done : quotation.start()])
            done = quotation.end()
    return " ".join([*pieces, text[done:]])


_FENCED = re.compile(r"```.*?(?:```|\Z)|\"\"\".*?(?:\"\"\"|\Z)|'''.*?(?:'''|\Z)", re.DOTALL)
_QUOTED_LINE = re.compile(r"^[ \t]*>.*$", re.MULTILINE)
_QUOTATION_MARKS = APOSTROPHES | str.maketrans(
    dict.fromkeys(
        "\u201c\u201d\u201e\u201f\u00ab\u00bb\u2039\u203a\u300c\u300d\u300e\u300f\uff02\u301d\u301e\u301f",
        '"',
    )
    | dict.fromkeys("\u201a\u201b", "'")
)
"""Every quotation mark as ``"`` or ``'``: curly, German, French, single,
Japanese corner brackets and full-width ones quote as straight ones do."""
_QUOTATION = re.compile(r"(?<!\d)\"[^\"]*+\"|(?<!\w)'(?:[^'\n]|(?<=\w)'(?=\w))*+'(?!\w)")
"""A quotation, read once (its words are counted after, as a pattern
counting them backtracked over every way to split a line with an unclosed
quote: thirty words took minutes).  A single quote opens only after no
letter and closes only before none, so "I'm" and "Jo's" are apostrophes
inside it, not its ends; as those are many, it ends with its line.  A
double quote after a digit is inches (6'2"), no quotation's start."""
_QUOTED_WORDS = 3
"""The fewest words of a quotation that is someone else's: "sort of" is the user's."""
_PASSED_ON = (
    r"\b(?:e-?mails?|messages?|texts?|articles?|newsletters?|posts?|letters?|documents?|notes?"
    r"|reviews?|paragraphs?|threads?|tweets?|comments?|replies|reply|story|stories|pages?)\b"
)
_HANDS_OVER = re.compile(
    r"(?:\b(?:this|these|the following|below|here(?:'s| is| are)?)\b[^\n]{0,60}?"
    rf"{_PASSED_ON}[^\n]{{0,60}}?[:?]?"
    # Someone else's, named before or after it, on a line ending with ":" or
    # "?" ("Can you answer Jo's text:", "An email from my landlord:").
    r"|\b(?!(?:it|that|what|there|here|let|he|she|who)['\u2019]s\b)\w+['\u2019]s\s+"
    rf"{_PASSED_ON}[^\n]{{0,60}}?[:?]"
    rf"|{_PASSED_ON}\s+(?:from|by)\b[^\n]{{0,60}}?[:?])[ \t]*\n",
    re.IGNORECASE,
)


def _sentences(said: Sequence[str]) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """The sentences of *said* (each with the index of its text) that state
    something, and those that ask: the user's own words (``own_words``)."""
    stated: list[tuple[int, str]] = []
    asked: list[tuple[int, str]] = []
    for index, text in enumerate(said):
        text = own_words(text)
        for sentence in _SENTENCE.split(_digits(text.translate(APOSTROPHES)).strip()):
            if not sentence.strip():
                continue
            if _BARE_DENIAL.match(sentence):  # "Everyone thinks I like it. I don't."
                if stated and stated[-1][0] == index:
                    stated.pop()
                continue
            questions = sentence.rstrip().endswith("?") or _ASKS_UNMARKED.match(sentence)
            (asked if questions else stated).append((index, sentence))
    return stated, asked


_BARE_DENIAL = re.compile(
    r"^\W*(?:no[,.!]?\s*)?(?:(?:i|we)(?:'m| am| was| do| did| have| will)?\s*(?:not|never)"
    r"|(?:i|we) (?:don't|didn't|haven't|won't|wasn't|am not)|not really|nope|not at all"
    r"|not me|(?:that's|that is) not (?:true|right|so)|not true)\W*$",
    re.IGNORECASE,
)
"""A sentence that only denies the one before it."""
_ASKS_UNMARKED = re.compile(
    r"^\W*(?:do|does|did|am|is|are|was|were|should|could|would|can|will|have|has)\s+"
    r"(?:i|you|we|it|there|my)\b",
    re.IGNORECASE,
)
"""A question typed without its "?" ("do I have diabetes, I'm always thirsty")."""


def _names(claim: str) -> frozenset[str]:
    """The names and numbers of *claim* (none in a claim all in capitals),
    folded: each must be in the user's words."""
    claim = _digits(claim.translate(APOSTROPHES))
    capitals = [] if claim.isupper() else _NAME.findall(_changes_in(claim).sub(" ", claim))
    words = (_singular(w.casefold()) for w in capitals)
    named = {w for w in words if w[:_STEM] not in _CLAIMING and w not in ("i", "reverie")}
    return frozenset(named | set(_NUMBER.findall(claim)))


def _heard(stated: Sequence[tuple[int, str]]) -> frozenset[str]:
    """The words and numbers of the *stated* sentences, folded as ``_names``."""
    text = " ".join(sentence for _, sentence in stated)
    words = {_singular(w) for w in words_of(text.casefold())}
    return frozenset(words | set(_NUMBER.findall(text)))


def _clauses(
    texts: Iterable[str] | Iterable[tuple[int, str]], *, implied: bool = False
) -> list[_Clause]:
    """The clauses of *texts* (plain, or each with the index of its text);
    with what their words say too (``_IMPLIES``) when *implied*.  A clause
    after "if" holds only if too; one that denies but says nothing of its
    own ("..., but I'm not") denies the clause before."""
    found: list[_Clause] = []
    for item in texts:
        source, text = item if isinstance(item, tuple) else (0, item)
        text = _digits(text.translate(APOSTROPHES))
        if implied:
            text = _CANNOT_HAVE.sub("allergic to", text)
        carried: frozenset[str] = frozenset()
        first = len(found)
        subject: frozenset[str] = frozenset()
        for index, clause in enumerate(_CLAUSE.split(text)):
            against = {DENIED} if _AGAINST.search(clause) else set()
            subject = subject if _NO_SUBJECT.match(clause) else _about(clause)
            read = _Clause(
                _content(clause) | (_implied(clause) if implied else frozenset()),
                (changes(clause) | against) - _NOT_NOW,
                source,
                contrast=index > 0 and bool(_CONTRAST.match(clause)),
                hedges=_hedges(clause) | carried,
                about=subject,
            )
            carried = (
                read.hedges & {"if"} if clause.strip().casefold().startswith("if") else carried
            )
            if not read.stems and read.changes and len(found) > first:
                found[-1] = replace(found[-1], changes=found[-1].changes | read.changes)
            elif read.stems or read.changes:
                found.append(read)
    return found


def _hedges(clause: str) -> frozenset[str]:
    """How *clause* says it only may be, is wished for or holds if (``_HEDGE``)."""
    return frozenset(match.lastgroup or "" for match in _HEDGE.finditer(clause))


def against(text: str) -> bool:
    """Does *text* speak against something ("hate", "dislike", "can't stand")?"""
    return _AGAINST.search(text) is not None


def _about(clause: str) -> frozenset[str]:
    """The stems of the other person *clause* is about (``_OTHER_PERSON``)."""
    match = _OTHER_PERSON.match(clause)
    if match is None or match["with_me"]:
        return frozenset()
    who = match["who"] + (match["name"] or "")
    return _content(who) | _implied(who)


def _implied(clause: str) -> frozenset[str]:
    """The stems of what the words of *clause* say too (``_IMPLIES``)."""
    return stems_of(
        word for phrase, words in _IMPLIED if phrase.search(clause) for word in words.split()
    )


def _content(clause: str) -> frozenset[str]:
    """The stems and numbers of *clause* that say what it claims: not its
    words of change or against, nor those every claim is made of; and
    ``_OWN_CHILDREN_STEM`` if it says children are someone's own."""
    clause = _AGAINST.sub(" ", clause)
    words = words_of(_changes_in(clause).sub(" ", clause).casefold())
    plain = (_singular(w) for w in words if not any(c.isdigit() for c in w))
    own = {_OWN_CHILDREN_STEM} if _OWN_CHILDREN.search(clause) else set()
    return (stems_of(plain) - _CLAIMING) | frozenset(_NUMBER.findall(clause)) | own


_OWN_CHILDREN = re.compile(
    r"\b(?:(?:my|our|user's|users)\s+"
    r"|(?:i|we|user|who)\s+(?:also\s+|now\s+)?(?:have|has|had|got|raise|raised|raising)"
    r"\s+(?:got\s+)?)(?:(?!to\b)[\w-]+\s+)?(?:kids?|child|children|sons?|daughters?)\b",
    re.IGNORECASE,
)
"""Children said to be someone's own ("my kids", "we have two sons", "User
has children"), not children at all ("I coach the kids' football team",
"I teach children to swim")."""
_OWN_CHILDREN_STEM = "own children"
"""What a clause saying children are its subject's own holds beside its
stems (no word's stem has a space): a claim that the user has children
needs a clause of theirs that says so too, not "kids" anywhere."""


def _singular(word: str) -> str:
    """*word* without a plural's or a verb's final s ("runs" is "run")."""
    if len(word) <= 3 or word in _STOP or not word.endswith("s") or word.endswith("ss"):
        return word
    return word[:-1]


def _read_for(clause: _Clause, wanted: frozenset[str]) -> _Clause:
    """*clause* as it bears on the *wanted* stems: a word's opposite in it
    (and not the word) reads as the word with the changes turned around."""
    turned = {
        word: opposite
        for opposite in clause.stems
        for word in wanted - clause.stems
        if frozenset((word, opposite)) in _OPPOSITES
    }
    if not turned:
        return clause
    stems = (clause.stems - set(turned.values())) | set(turned)
    return replace(clause, stems=stems, changes=frozenset() if clause.changes else _DENIAL)


def _agree(claimed: frozenset[str], said: frozenset[str]) -> bool:
    """Do a claim's changes agree with those of the user's clause?  Both
    say something is not so, or neither; and what the claim says ended,
    died or divorced the user said too ("I quit smoking" says "does not
    smoke", "I don't smoke" does not say "quit smoking")."""
    return bool(claimed) == bool(said) and claimed - _DENIAL <= said - _DENIAL


def _digits(text: str) -> str:
    """*text* with its numbers in words as digits ("ten years": "10 years")."""
    return _NUMBER_WORD.sub(lambda m: _NUMBER_WORDS[m.group().casefold()], text)


def moved_across_denials(rewritten: str, sources: Iterable[str]) -> list[str]:
    """The content stems of *rewritten* that *sources* say only on the other
    side of a denial (denied where it affirms them, or the reverse), each
    once; a word the sources do not have is left to ``new_words``.  "Sign
    the loan, do not sign the lease" has every word, number and "not" of
    "Sign the lease, do not sign the loan" and says the opposite: word
    sets cannot see it, clauses can."""
    said = [(stems(clause), denies(clause)) for text in sources for clause in _parts(text)]
    moved: list[str] = []
    for clause in _parts(rewritten):
        denied = denies(clause)
        for stem in sorted(stems(clause)):
            sides = {side for words, side in said if stem in words}
            if sides and denied not in sides:
                moved.append(stem)
    return list(dict.fromkeys(moved))


_RELATION = re.compile(
    r"\b(?P<directed>instead of|rather than|in place of|from|to|into|onto|without|than"
    r"|before|after|versus|vs|with)\b"
    r"|\b(?P<joined>and|or|then|plus)\b"
    r"|(?P<mark>[,:;()]|\s[-\u2013\u2014]\s)"
    r"|(?P<number>\d+(?:[:.]\d+)?)"
    r"|(?P<word>\w+)",
    re.IGNORECASE,
)
"""The words that relate what stands around them: *directed* ones say
which side is which ("from savings to checking", "warfarin without
aspirin", "scrub with bleach and rinse with water"); every relation word
and clause mark parts a sentence into the segments that pair a number
with its words ("Anna 50 euros and Tom 5")."""


@dataclass(frozen=True)
class _Placed:
    """A content stem or number of a sentence, and where it stands."""

    stem: str
    number: bool
    segment: int
    """How many relation words and clause marks came before it."""
    directed: int
    """How many directed relation words came before it."""
    governed_by: str
    """The directed relation word last before it in its clause ("" if none)."""


def _placed(sentence: str) -> tuple[list[_Placed], list[str]]:
    """The stems and numbers of *sentence* in order, and its directed relation words."""
    placed: list[_Placed] = []
    directed: list[str] = []
    segment, governed_by = 0, ""
    for match in _RELATION.finditer(sentence.translate(APOSTROPHES).casefold()):
        if match["directed"] or match["joined"] or match["mark"]:
            segment += 1
            if match["directed"]:
                directed.append(governed_by := " ".join(match["directed"].split()))
            elif match["mark"]:
                governed_by = ""
        elif match["number"]:
            placed.append(_Placed(match["number"], True, segment, len(directed), governed_by))
        elif stem := stems_of([match["word"]]):
            placed.append(_Placed(min(stem), False, segment, len(directed), governed_by))
    return placed, directed


def swapped(rewritten: str, sources: Iterable[str], *, numbers_stay: bool = False) -> list[str]:
    """What *rewritten* says with the words of *sources* swapped around,
    each as "a/b": two of their words on the other sides of the same
    directed relation ("from checking to savings" for "from savings to
    checking", "aspirin without warfarin"), a word after another directed
    relation than the sources put it after ("to savings" for "from
    savings"), or a number in the segment of a word the sources pair with
    another number ("Tom 50 euros and Anna 5" for "Anna 50 euros and Tom
    5").  Every word, number and denial is kept, so word sets cannot see
    it; orders can.  Words only some sources say are left to ``new_words``.
    *numbers_stay*: a rewrite that may bring no number of its own (a
    merge, a condensed list), whose words keep their numbers across
    sentences and lines too (``_paired_apart``)."""
    said = [_placed(sentence) for text in sources for sentence in sentences(text)]
    found: list[str] = []
    for sentence in sentences(rewritten):
        placed, directed = _placed(sentence)
        for index, first in enumerate(placed):
            roles = {p.governed_by for s, _ in said for p in s if p.stem == first.stem}
            if first.governed_by and roles - {""} and first.governed_by not in roles:
                found.append(f"{first.stem}/{first.governed_by}")
            for second in placed[index + 1 :]:
                if first.stem == second.stem:
                    continue
                between = set(directed[first.directed : second.directed])
                turned = bool(between) and _only_other_way(first.stem, second.stem, between, said)
                repaired = (
                    first.segment == second.segment
                    and first.number != second.number
                    and _paired_apart(first.stem, second.stem, said, numbers_stay)
                )
                if turned or repaired:
                    found.append(f"{first.stem}/{second.stem}")
    return list(dict.fromkeys(found))


def _only_other_way(
    first: str, second: str, between: set[str], said: list[tuple[list[_Placed], list[str]]]
) -> bool:
    """Do the sources put *second* before *first* across one of the
    directed relation words *between*, and never *first* before *second*?"""
    ways = set()
    for placed, directed in said:
        both = [p for p in placed if p.stem in (first, second)]
        for a, b in ((a, b) for a in both for b in both if a.stem != b.stem):
            if a.directed < b.directed and between & set(directed[a.directed : b.directed]):
                ways.add(a.stem == first)
    return ways == {False}


def _paired_apart(
    first: str, second: str, said: list[tuple[list[_Placed], list[str]]], anywhere: bool
) -> bool:
    """Do the sources pair the word of *first* and *second* with another
    number than the other (and never with it)?  "Anna 50 euros and Tom 5"
    pairs Tom with 5, not 50; "moved to Paris in 2020" pairs "moved" with
    no number, so "In 2020 the user moved" swaps nothing.  The other
    number counts only in a sentence holding this one too, unless
    *anywhere*: then "#1 Take warfarin at 08:00", "#2 Take aspirin at 20:00"
    pair aspirin with 20:00 only."""
    together = apart = False
    for placed, _ in said:
        for word in placed:
            if word.number or word.stem not in (first, second):
                continue
            numbers = {p.stem for p in placed if p.number and p.segment == word.segment}
            number = second if word.stem == first else first
            if number in numbers:
                together = True
            elif numbers and (anywhere or any(p.stem == number for p in placed)):
                apart = True
    return apart and not together


def exchanged(rewritten: str, sources: Iterable[str]) -> list[str]:
    """The words two sentences of *rewritten* trade between them against
    the sentences of *sources* each stands for (the one sharing the most
    words with it), each as "a/b": "Scrub the tiles with vinegar. Clean the
    mirror with bleach." for "... with bleach. ... with vinegar." keeps
    every word and number, and says to scrub with the other chemical."""
    theirs = [stems(sentence) for text in sources for sentence in sentences(text)]
    if len(theirs) < 2:
        return []
    ours = [stems(sentence) for sentence in sentences(rewritten)]
    standing = [max(range(len(theirs)), key=lambda i: len(words & theirs[i])) for words in ours]
    found: list[str] = []
    for a, (words_a, source_a) in enumerate(zip(ours, standing, strict=True)):
        for words_b, source_b in zip(ours[a + 1 :], standing[a + 1 :], strict=True):
            if source_a == source_b:
                continue
            given = (theirs[source_a] - theirs[source_b]) & (words_b - words_a)
            taken = (theirs[source_b] - theirs[source_a]) & (words_a - words_b)
            found += [f"{x}/{y}" for x in sorted(given) for y in sorted(taken)]
    return list(dict.fromkeys(found))


def sentences(text: str) -> list[str]:
    """The sentences of *text* (a line is one too), blank ones left out."""
    return [sentence for sentence in _SENTENCE.split(text) if sentence.strip()]


def _parts(text: str) -> list[str]:
    """The clauses of *text*, sentence by sentence."""
    return [part for sentence in sentences(text) for part in _CLAUSE.split(sentence)]


def denies(text: str) -> bool:
    """Whether *text* denies something ("not", "never", "without", "不")."""
    return DENIED in changes(text)
