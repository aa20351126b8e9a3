"""Values spelled out rather than typed, for ``redaction``.

People read a password or a code out as they would on the phone: a
character at a time ("t u l i p 7 1", "K. e. s. t. 4. 4. #", "O-t-t-e-r",
"P, e, b, b, l, e, 3, 0"), digits as words ("two six one eight",
"seven, three, nine, nine", "nine, twenty-two, fifteen"), a dial's turns
("right 31, left 8, right 22"), or a value described piece by piece
("marigold, no capitals, then 64, then a dollar"), in the phonetic alphabet
("Kilo India Whiskey India four two") or in Morse ("...- . .-.. ...-").
Letters and digits
spelled together are a value anywhere; letters alone, digits alone and
digits as words only where the line says what they open or that they are
spelled ("the shed code is two six one eight", not "one, two, three,
go!" nor "options A, B, C, D").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from desktop.core.base import text_scan
from desktop.core.privacy import known_words
from desktop.core.privacy.credential_nearby import THANKS, names_a_credential

_CHAR = r"[A-Za-z0-9!@#$%&*?]"
_INNER_CHAR = r"[A-Za-z0-9!@#$%&*?-]"
_SPELLED = re.compile(
    rf"(?<![\w.,'\u2019-]){_CHAR}(?P<sep>\.?[ \t]|,[ \t]|-|\.|_)"
    rf"(?:{_INNER_CHAR}(?P=sep)){{2,}}{_CHAR}\.?(?![\w-])"
)
"""Four or more characters, one at a time, split the same way each time
(a dot or an underscore too: "B.r.o.m.b.e.e.r.e.!.7", round 27), a dash
among them spelled too ("k i w i - m a n g o - 3"); not the "s" of
"locker's" ("the gym locker's 0 0 0" keeps its "'s")."""
_SIGNED = re.compile(r"[!@#$%&*?]")
"""A sign spelled, which no acronym nor address holds ("P_a_s_t_e_l_#_d_e")."""
_UNITS = r"zero|oh|one|two|three|four|five|six|seven|eight|nine"
_TENS = r"twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_NUMBER_WORD = (
    rf"(?:(?:{_TENS})(?:-(?:{_UNITS}))?|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
    rf"|seventeen|eighteen|nineteen|{_UNITS})"
)
_NUMBER_WORDS = re.compile(
    rf"\b{_NUMBER_WORD}(?:(?:,?[ \t]+|[ \t]*-[ \t]*)(?:then[ \t]+)?{_NUMBER_WORD}){{2,}}\b",
    re.IGNORECASE,
)
"""Three or more numbers in words ("five one one three", "nine, twenty-two, fifteen")."""
_DIAL = re.compile(
    r"\b(?:left|right)[ \t]+\d{1,2}(?:,?[ \t]+(?:then[ \t]+)?(?:left|right)[ \t]+\d{1,2}){2,}\b",
    re.IGNORECASE,
)
"""A dial's turns: "right 31, left 8, right 22"."""
_THEN_DIGITS = re.compile(
    r",?[ \t]+then[ \t]+(?:the[ \t]+(?:number|digits?)[ \t]+)?"
    rf"(?P<digits>\d{{1,6}}|{_NUMBER_WORD}(?:[ \t]+{_NUMBER_WORD}){{0,5}})\b"
    # The piece ends there: "then 300 guests walked out" counts guests.
    rf"(?![ \t]+(?!(?:then|and|plus|with|followed)\b|(?:{THANKS})(?!\w))[^\W\d_])",
    re.IGNORECASE,
)
"""A value's next piece, described or dictated: "then 88", "then the
number 17", "then six zero"; not a count ("and then 300 guests")."""
_DICTATED = re.compile(
    r"(?:\b(?:is|to|was|its|it['\u2019]s)|[:=]|\b(?:password|passcode|pin)\b)[ \t]+"
    r"(?P<run>(?:(?!(?:is|to|was|its)\b)[A-Za-z]+[ \t]+){0,9}?(?!(?:is|to|was|its)\b)[A-Za-z]+)"
    r"(?![A-Za-z])(?=[ \t]*(?:[.,;!?(]|[:;]\)|[-\u2013\u2014][ \t]|$"
    rf"|(?:{THANKS}|haha|anyway)(?!\w)|x+[ \t]*$))",
    re.IGNORECASE | re.MULTILINE,
)
"""A value dictated to a phone: "capital H hunter two", "otter four eight
exclamation mark", "lantern five all lowercase", "its biscuit two three no
spaces" (voice typing writes no apostrophe, round 35), up to the clause's end
(a dash too: "... one five - ta"), a run holding no "is" or "to" ("send to
Jonas the wifi is capital D ...": the run after "is", round 27)."""
_SAYING_HOW = frozenset(
    str.split(
        "capital uppercase upper lowercase lower case caps all with a then the number "
        "exclamation mark point sign at hash hashtag dollar underscore dash and no spaces"
    )
)
"""Words that say how a dictated value is typed, not what it is."""


_COUNTED = frozenset(
    str.split(
        "digit digits number numbers letter letters character characters chars words long "
        "times tries attempts days weeks months years hours minutes"
    )
)
"""What digits said count, in a sentence about a password's rules."""


def _dictation(run: str) -> bool:
    """Is *run* a value dictated: a letter's case said or digits said last, and
    besides the words saying how, at most two words, none of a language's
    most used ("capital H hunter two"; not "a capital letter and two numbers")?"""
    words = [w.lower() for w in run.split()]
    said = [i for i, w in enumerate(words) if re.fullmatch(_UNITS, w)]
    # Without a case said, the digits end the value, or only how it is typed
    # follows them ("four eight exclamation mark"; not "three times").
    last = words[said[-1] + 1 :] if said else []
    if not (_CAPITAL_SAID.search(run) or (said and _SAYING_HOW.issuperset(last))):
        return False
    rest = [w for w in words if w not in _SAYING_HOW and len(w) > 1 and not re.fullmatch(_UNITS, w)]
    counted = not _COUNTED.isdisjoint(rest)  # "four digits", "a capital letter"
    return 0 < len(rest) <= 2 and not counted and not any(known_words.common(w) for w in rest)


_CAPITAL_SAID = re.compile(r"\b(?:capital|upper ?case|lower ?case)[ \t]+[A-Za-z]\b", re.IGNORECASE)
"""A letter's case said: "capital H"."""
_WHAT_OPENS = re.compile(
    r"\b(?:spell\w*|letter\s+by\s+letter|slowly|read\s+(?:it|them)\s+(?:back|out)|codes?|pin"
    r"|lock\w*|safe|combo|combination|gate|garage|door|alarm|keypad|wi-?fi|laptop|opens?)\b",
    re.IGNORECASE,
)
"""What says a line's spelled value is a secret, beside a credential's name."""


_LETTER_SAID = (
    r"alpha|alfa|bravo|charlie|delta|echo|foxtrot|golf|hotel|india|juliett?|kilo|lima|mike"
    r"|november|oscar|papa|quebec|romeo|sierra|tango|uniform|victor|whiske?y|x-?ray|yankee|zulu"
)
_PHONETIC_WORD = (
    r"(?:(?:capital|cap|upper(?:case)?|small|lower(?:case)?)[ \t]+)?"
    rf"(?:{_LETTER_SAID}|{_UNITS}|niner|\d)"
)
_PHONETIC_RUN = rf"\b(?:{_LETTER_SAID})\b(?:(?:,?[ \t]+|[ \t]*-[ \t]*){_PHONETIC_WORD}){{3,}}\b"
_PHONETIC = re.compile(_PHONETIC_RUN)
"""A letter in the phonetic alphabet and three or more after it, letters or
digits said ("Victor Echo Lima Victor four two", "kilo-india-whiskey-india"),
read in lower case (six times as fast as ignoring case)."""
_PHONETIC_ANY_CASE = re.compile(_PHONETIC_RUN, re.IGNORECASE)
"""``_PHONETIC`` for a text whose lower case is longer ("İ")."""
_MORSE = re.compile(r"(?<![\w.-])[.-]{1,7}(?:(?:[ \t]+/?[ \t]*|/)[.-]{1,7}){3,}(?![\w.-])")
"""Four or more letters in Morse, a space or a slash between them."""


def secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each value spelled out in *text* is."""
    yield from _in_an_alphabet(text)
    for found in text_scan.matches(_SPELLED, text):
        letters = sum(c.isalpha() for c in found.group())
        digits = sum(c.isdigit() for c in found.group())
        # Digits alone are read out for many things ("call 1 2 3 4 later
        # about the password"): only where what they open is named.
        mixed = letters >= 2 and (digits > 0 or _SIGNED.search(found.group()) is not None)
        if found["sep"] in "._" and not mixed:
            continue  # "N.A.S.A.", "1.1.1.1": an acronym, an address
        said = mixed or _said_what_it_is(text, found.start(), found.end(), credential=bool(letters))
        if said and (digits or not _a_word_spelled(text, found.start(), found.end())):
            yield found.span()
    for found in text_scan.matches(_NUMBER_WORDS, text):
        if _said_what_it_is(text, found.start(), found.end()):
            yield found.span()
    for found in text_scan.matches(_DIAL, text):
        yield found.span()
    if "then" in text:
        yield from _pieces_described(text)
    for found in text_scan.matches(_DICTATED, text):
        run = found["run"]
        low = text.rfind("\n", 0, found.start()) + 1
        named = text[low : found.start("run")]
        # "the wifi is capital J maple one five": what it opens names it too (round 27).
        if _dictation(run) and (names_a_credential(named) or _WHAT_IT_OPENS.search(named)):
            yield found.span("run")


def _in_an_alphabet(text: str) -> Iterator[tuple[int, int]]:
    """Values spelled in the phonetic alphabet or in Morse, on a line
    naming a credential or what it opens ("alpha bravo charlie" alone is
    the alphabet, "... --- ..." alone a call for help)."""
    lowered = text.lower()
    aligned = len(lowered) == len(text)  # each letter lowered in its place
    phonetic = _PHONETIC if aligned else _PHONETIC_ANY_CASE
    for found in text_scan.matches(phonetic, lowered if aligned else text):
        words = re.split(r"[\s,-]+", found.group())
        spelled = sum(not re.fullmatch(rf"{_UNITS}|niner|\d", w, re.I) for w in words)
        if spelled >= 2 and _said_what_it_is(text, found.start(), found.end()):
            yield found.span()
    if "--" in text or ".-" in text or "-." in text:
        for found in text_scan.matches(_MORSE, text):
            dots = found.group().count(".")
            signs = len(found.group().replace(" ", "").replace("/", ""))
            if 0 < dots < signs and _said_what_it_is(text, found.start(), found.end()):
                yield found.span()


def _said_what_it_is(text: str, start: int, end: int, *, credential: bool = True) -> bool:
    """Does the line holding *start*..*end* name what it opens, or a
    credential (where *credential*)?"""
    low = text.rfind("\n", 0, start) + 1
    high = text.find("\n", end)
    line = text[low : len(text) if high < 0 else high]
    return _WHAT_OPENS.search(line) is not None or (credential and names_a_credential(line))


def _a_word_spelled(text: str, start: int, end: int) -> bool:
    """Are the letters at *start*..*end* an everyday word spelled for its
    own sake ("spell it out: r e s p e c t", "he said h e l l o slowly"),
    on a line that names no credential nor what a code opens (round 22)?"""
    word = "".join(c for c in text[start:end] if c.isalpha()).lower()
    low = text.rfind("\n", 0, start) + 1
    high = text.find("\n", end)
    line = text[low : len(text) if high < 0 else high]
    named = names_a_credential(line) or _WHAT_IT_OPENS.search(line) is not None
    return known_words.known(word) and not named  # "r-e-c-e-i-p-t", not "reciept" (round 27)


_WHAT_IT_OPENS = re.compile(
    r"\b(?:codes?|pin|lock\w*|safe|combo|combination|gate|garage|door|alarm|keypad|wi-?fi|laptop"
    r"|opens?)\b",
    re.IGNORECASE,
)
"""What a spelled value opens (``_WHAT_OPENS`` without the words of spelling)."""


def _pieces_described(text: str) -> Iterator[tuple[int, int]]:
    """The digits a line naming a credential adds "then" ("marigold, no
    lowercase, then 88, then a hashtag")."""
    for found in text_scan.matches(_THEN_DIGITS, text):
        low = max(text.rfind("\n", 0, found.start()) + 1, found.start() - 80)
        if names_a_credential(text[low : found.start()]):
            yield found.span("digits")
