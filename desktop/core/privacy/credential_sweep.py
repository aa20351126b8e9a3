"""Every value-shaped word around a word naming a credential, for ``redaction``.

``credential_phrases`` and ``credential_nearby`` read how a value is tied to
the word that names it ("my password is X", "X ist mein Passwort").  People
in a chat tie them every other way too: "I got the password wrong, it's
actually 9731", "here's my password if you need it X", "my passwords are
Wallaby42! and Pepper#12", "no wait, it's Y", a list under "Passwords" or
above "(my passwords)", a table with a PIN column.  Every round of attacks
found new such ways.  This module reads no syntax: around a word that can
only name a credential (password, PIN, passcode, passphrase, in any language,
and their typos; not "key", "token" or "pass", which name other things too)
it takes every word shaped like a value:

- in the sentence holding the word (within its line), and in the next three
  if they are short ("My password is X. Wrong one, it's Y.");
- where the word's line is a heading or a footer (a few words and no value:
  "Passwords", "PINs:", "(my passwords)", "^ these are my passwords"), in the
  lines above and below it up to a blank line.

Shaped like a value: four characters or more with a digit, and not a time,
date, amount, unit, version or address (``credential_nearby.looks_like_a_value``),
an id, a reference, a file or a path ("uid=1002", "#4411", "SUP-2291",
"BA2490", "argon2", "4-digit", "report_2024.pdf"), nor after a word naming
what it is ("user id 88231", "room B204").  A number, or a word and its
number ("tiger7", as "Pixel8"), goes only where a value stands: ending its
clause, not right after a name ("my iPhone15", "the Fitbit Sense2"), and a
bare number only after the credential word, and not as a year or a count
("the PIN is 4821", not "2019", "1024 failed tries" or "I'd guess 8192").
A word before the credential word goes only if at most six words and no
comma or colon stand between them ("kate88, the password I'll give you
later" keeps the user name).  Where a word sets the value ("it's", "is",
"use", "enter", "went with"), what follows it goes whatever its shape
("It's tiger7", "went with 4093", "it's 4093 now"), and so does a bare
number before the credential word ("I think it was 4093? the password I
mean").  A PIN written digit by digit ("7 3 1 9") is one value; a date is
one only where a value is set or right after the word ("the PIN is
31/08/1994", not "changed my password on 31/08/2024").

A word that is no word of any language (``known_words.made_up``:
"Tolzanwensho") is shaped like a value too, taken where a number would
be.  And a passphrase: three words or more joined by one kind of space or
sign, none one of a language's most used nor a word said of passwords
("field", "reset", "hint"), ending their clause, and given as a value: at
a line's start, after a sign that links, or after a word that gives one
("is", "ist", "now") or the credential word with one frequent word at
most among them ("pw harbor quartz canyon", not "debe tener mayúsculas
minúsculas números").  On round 15's set (tuned on) these took leaks from
37.2% to 26.6% of 2,142 trials, sentences changed that hold no secret
17 of 670 before and after; on round 14's (not read this round) 19.2% to
16.1% of 1,824, 29 to 30 of 644; on round 16's, written for this round by
someone who saw neither the code nor the earlier sets, 45.3% to 36.0% of
2,360, and 30 to 32 of 740 (its false changes were counted by family
while the rules were tried, never read).

Measured on the attack rounds' phrasings: on rounds 5-9 (held in) leaks
of values inside the bar fell from 643 to 399 of 4,769 trials, sentences
changed that hold no secret went from 37 to 38 of 2,023; on round 10's
new everyday phrasings leaks fell from 506 to 213 of 2,926 (not tuned on,
but for the reach of three next sentences); its sentences built to bait this
module (products, flights, ids and files
beside the word) changed 73 of 487, against 48 without it (tuned on).
Round 11's additions (set values, digit-by-digit PINs, dates; with the
passphrase tail in ``redaction``), on rounds 5-10 (held in): leaks 1,070
to 890 of 9,977 trials, sentences changed that hold no secret 111 to 113
of 2,534; on round 11's set (written before them; its summary and 20
examples were read): leaks 375 to 224 of 1,822, changed 66 to 66 of 501;
on round 12's set, written afterwards and never seen: leaks 295 to 193 of
1,850, changed 58 to 59 of 501.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from desktop.core.base.text_fold import folded
from desktop.core.privacy import credential_nearby, credential_situations, known_words

_REACH = 400
"""How far from the credential word a value is taken, in characters (each
word then costs the same, however long the line)."""
_NEXT_SENTENCE = 160
"""How far the next sentences read with the word's own reach, in characters."""
_NEXT_SENTENCES = 3
"""How many short sentences after the word's own are read ("My password? Hold
on. It's X.")."""
_BLOCK_LINES = 12
"""How many lines of a heading's or a footer's block are read, each way."""
_HEADING_WORDS = 8
"""The most words a heading or a footer line holds."""

_WORD = re.compile(
    r"[^\s\"'`\u2013\u2014\u2018-\u201f\u00ab\u00bb\u2039\u203a\u300c-\u300f\u301d-\u301f"
    r"()\[\]{}<>,;:|]+"
)
"""A word: what stands between spaces, quotes, brackets and the signs that
join a label to its value ("cabin:\"X\"", "<code>X</code>", "gmail,bob,X")."""
_EDGES = ".!?*_~"
"""Signs at a word's ends that are not part of its value: the sentence's own
stops ("it's X!"; where "!" was the value's, the marker keeps the sentence
readable and one sign is no secret) and emphasis."""
_SENTENCE_END = re.compile(r"[.!?]+(?=[ \t]+[A-Z]|[ \t]*(?:\n|\Z))|\n\s*\n")
"""The end of a sentence: a stop before a capital or the line's end (a "!"
inside "Kr4k3n! (passwords)" ends nothing), or a blank line."""
_NOT_A_VALUE = re.compile(
    r"[^=]*=.*|#.*"  # an assignment or a reference: uid=1002, #4411
    r"|[A-Z]{2,}-\d+|[A-Z]{3}\d{5,}"  # a ticket: SUP-2291, INC0012345
    r"|[a-z]{3,5}\d"  # a name with its version: argon2, ssh2
    r"|\d+-[^\W\d_]+|\d+(?:[.,]\d+)?[^\W\d_]{1,4}"  # a size: 4-digit, 12-character, 5GHz
    r"|[$\u20ac\u00a3\u00a5][\d.,]+/\w+"  # a price: $3/month
    r"|.*\d[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7af].*"  # 10자리
    r"|\d{4}-\d\d-\d\dT[\d:.]+Z?"  # a timestamp
    r"|[A-Z]{1,3}-?\d{3,}[A-Z]?"  # a flight, a room, a model, an error: BA2490, B204, RTX4090
    r"|\+?\d+(?:[-.]\d+){2,}"  # a phone number: 1-800-275-2273
    r"|[0-9A-F]{2,}(?:-[0-9A-F]{2,})+"  # a device id: 8F3A-22C1
    r"|@.*"  # a handle: @mike_2000
    r"|.+\.(?i:pdf|docx?|xlsx?|pptx?|odt|txt|csv|py|js|ts|java|rb|go|rs|c|h|cpp|md|json|ya?ml"
    r"|toml|ini|cfg|conf|html?|css|png|jpe?g|gif|svg|zip|tar|gz|7z|log|sh|exe|dmg|pkg|apk|msi)"
    r"|/.*"  # a path: /api/v2/login
    r"|[a-z]\d+[a-z]?\.\w+"  # an instance type: m5.large
)
_YEAR = re.compile(r"(?:19|20)\d\d")
_SPACED_DIGITS = re.compile(
    r"(?<![\w.,:/-])\d(?:(?: |, ?| ?[-\u2013] ?)\d){3,9}(?![\w.:/-]|,\s*\d|\s\d)"
)
"""A PIN written digit by digit: "7 3 1 9", "7, 3, 1, 9", "7 - 3 - 1 - 9"."""
_DATE = re.compile(r"\d{1,2}([/.-])\d{1,2}\1(?:\d\d)?\d\d|(?:19|20)\d\d-\d\d-\d\d")
"""A date, which people choose as a PIN or a password too."""
_SETTING = frozenset(
    ["is", "was", "be", "it's", "its", "it\u2019s", "use", "enter", "type", "try", "to", "as"]
)
"""Words after which a value is being set or given ("it's 4093", "enter 0408",
"set it to 31/08/1994"), even before the credential word or after a name."""
_SET_VALUE = re.compile(r"(?=\S*\d)(?=\S*[^\W\d])[^\s/@]{4,40}")
"""A word with a digit and a letter or sign: a value, where a value is set."""
_CHOOSING = frozenset(["went", "go", "going", "gone", "chose", "picked"])
_CLAUSE_ENDS = re.compile(
    r"[\"'`\u2019\u201d\u00bb]?\s*(?:[,;.!?()\u2013\u2014]|-(?=\s)|\n|\Z"
    r"|(?:and|or|but|now|lol|haha|btw|though|too|again)\b"
    r"|(?:(?:was|got|has\s+been|had\s+been)\s+)?(?:leaked|compromised|pwned|breached)\b"
    rf"|(?i:{credential_nearby.THANKS_FOLDED})(?!\w))"
)
"""Where a clause ends: a sign, a line's end, a word joining the next one, or
a dash before an aside ("4093 - don't tell anyone", round 34), a word
people add after what they said ("it's 4093 now", "0408 lol", "X
cảm ơn", "X 👍"), or what became of an old one ("because hunter2 leaked",
round 25); after the quote closing a value ("login is 'hunter2' and
the pin is ...")."""
_NOT_THE_VALUE_AFTER = frozenset(
    ["like", "guess", "size", "about", "around", "over", "under", "than", "least", "most", "not"]
)
"""Words after which a number is a count or an example, not the value."""
_LABELS = frozenset(
    [
        *("id", "user", "username", "userid", "employee", "account", "order", "ticket"),
        *("invoice", "case", "ref", "reference", "flight", "room", "box", "apt", "suite"),
        *("floor", "page", "seat", "ending", "model", "serial", "part", "sku", "item"),
        *("build", "version", "error", "kb", "ext", "zip", "tracking", "device"),
    ]
)
"""Words naming what a following value is, when that is no secret ("user id
88231", "flight BA2490", "card ending 4417", "PO Box 7720")."""
_NETWORKS = frozenset(["wifi", "wi-fi", "wlan", "hotspot", "ssid", "network", "net"])
"""Words naming a network, whose name a labelled key may follow."""
_WORDS_BEFORE = 6
"""The most words between a value written first and the credential word
("would X work as a password?", not "kate88 and I forgot my password")."""
_BETWEEN = re.compile(r"[,;:]")
_PLAIN = re.compile(r"\d+|[^\W\d_]+\d+[^\W\d_]?")
"""A number, or a word and its number: the shape of a password ("tiger7",
"4821") and of a product, a version or a count ("Pixel8", "Win11", "1024"),
taken in a sentence only where a value stands: ending its clause, and not
right after a name or a word that makes it one ("my iPhone15", "the Fitbit
Sense2", "after the Win11 update")."""
_BEFORE_A_NAME = frozenset(
    [
        *("the", "a", "an", "my", "your", "his", "her", "our", "their", "this", "that"),
        *("on", "of", "at", "in", "with", "from", "after", "before", "via", "by", "new", "old"),
    ]
)
_LAST_WORD = re.compile(r"(\S+)\s+[\"'`\u2018\u201c\u00ab]?\Z")
"""The word before a value, which may stand in quotes."""
_HOST = re.compile(r"[a-z][\w-]*(?:\.[\w-]+)*\.[a-z]{2,}")
"""A host's name, whose number is its port ("remote vpn.example.com 1194", round 34)."""
_PASSPHRASE_BEFORE = 3
"""The most words between a passphrase written first and its credential word."""
_PASSPHRASE_WORDS = 3
_BULLETS = " \t-*\u2022>#0123456789.)"
_LINKS = ":=>\u2192\u2014\u2013-|"
_GIVING = frozenset(
    str.split(
        """
        is was are it's its it\u2019s now use using enter type to ist lautet sind est c'est
        es son era \u00e8 \u00e9 sono er \u00e4r on jest je s\u0105 ir yra olan dir l\u00e0 adalah
        """
    )
)
"""Words after which a value is given, in the languages people type in."""
"""The fewest words of a passphrase: two are a name as often ("Hazel Cactus")."""
_RUN = re.compile(r"[^\W\d_]{3,14}(?:([ \t]|[-._])[^\W\d_]{3,14})(?:\1[^\W\d_]{3,14})+")
"""Words of letters joined by one kind of space or sign, three or more."""
_LETTERS = re.compile(r"[^\W\d_]+")
_DOING = re.compile(r"\w{3,}(?:ing|ed|ly)")
"""A verb's or an adverb's ending: words that say something of a password."""
_TALK = frozenset(
    str.split(
        """
        reset link field manager policy rules requirements requirement hint hints strength
        expired expires expiry change changes login logins account accounts email emails
        page screen settings setting prompt form box app apps portal site website browser
        vault keychain generator autofill recovery verification update upgrade sync backup
        error message attempts attempt question questions answer security admin user users
        username usernames support team office work home phone laptop tablet computer device
        characters digits letters numbers symbols words long minimum maximum length one two
        three four five six seven eight nine ten eleven twelve
        """
    )
)
"""Words said of passwords and where they are typed: "password reset link",
"PIN change screen", "login page": no passphrase's."""


def secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each value-shaped word around a credential word in *text* is."""
    seen, origins = folded(text)
    named = [match for match in credential_nearby.credential_words(seen) if _strong(seen, match)]
    if not named:  # most long pastes name none: their words are not split
        return
    words = _Words(seen)
    for match in named:
        if words.markers.within(*match.span()):
            continue
        low, high, block = _region(seen, words, *match.span())
        for start, stop in words.between(low, high):
            beside = stop <= match.start() or match.end() <= start
            if beside and _taken(seen, words, start, stop, None if block else match.span()):
                yield origins[start], origins[stop - 1] + 1
        for start, stop in _passphrases(seen, low, high):
            if match.end() <= start and not words.markers.within(start, stop):
                yield origins[start], origins[stop - 1] + 1
        if (closing := _closing_value(seen, words, match.end())) is not None:
            yield origins[closing[0]], origins[closing[1] - 1] + 1


def _closing_value(text: str, words: _Words, end: int) -> tuple[int, int] | None:
    """The value a message ends with, alone in its sentence or after its
    colon, a few sentences after the credential word ending at *end* named
    it, with no value between ("The alarm code. Don't laugh. It's the same
    as at our old house. 4821", "the locker combination. I wrote it on my
    hand... I still remember it: 7 45 29", round 35)."""
    paragraph_end = text.find("\n\n", end, end + _REACH)
    if paragraph_end < 0 and len(text) > end + _REACH:
        return None  # the message goes on past the word's reach
    closing = _CLOSING.search(text, end, len(text) if paragraph_end < 0 else paragraph_end)
    if closing is None:
        return None
    if any(words.shaped(*span) for span in words.between(end, closing.start("value"))):
        return None  # a value given before it: this one is something else
    value = closing["value"]
    if _COMBINATION.fullmatch(value):
        return closing.span("value")
    if value.isdigit():
        # After a colon, what its sentence says the number is: "call me back: 5551234".
        said = max(text.rfind(stop, 0, closing.start()) for stop in ".!?\n") + 1
        numbered = text[closing.start()] == ":" and _NUMBERED.search(text, said, closing.start())
        return None if _YEAR.fullmatch(value) or numbered else closing.span("value")
    shaped = words.shaped(*closing.span("value")) or credential_situations.password_shaped(value)
    if len(value) >= 4 and shaped:  # "b@n@n@!": letters with signs, no digit (round 35)
        return closing.span("value")
    return None


_CLOSING = re.compile(
    r"(?:[.!?:][ \t]+|\n[ \t]*)(?P<value>\d{1,2}(?:([ /-])\d{1,2}){2,3}"
    r"|[^\s.!?:()\[\]{}<>|\"'`\u00ab\u00bb\u2018-\u201f\u300c-\u301f]+)"
    rf"(?:[.!]|[ \t]+(?:anyway|haha|x|xx|{credential_nearby.THANKS_FOLDED}))*[ \t]*\Z",
    re.IGNORECASE,
)
"""A message's last sentence (or what ends it after a colon) that is one
word, unquoted (a quoted one is the phrase readers' to unwrap), or a lock's
combination, and a thanks or a sign-off after it."""
_COMBINATION = re.compile(r"\d{1,2}([ /-])\d{1,2}(?:\1\d{1,2}){1,2}")
_NUMBERED = re.compile(
    r"\b(?:call|phone|tel|text|number|no|room|order|flight|ext|fax|ticket|booking|id|at)\b",
    re.IGNORECASE,
)
"""What a number a sentence ends with is when it is no code: "call me back: 5551234"."""


def _strong(text: str, match: re.Match[str]) -> bool:
    """Can the word only name a credential (not "key", "pass", a chip's pin)?"""
    return (
        match["login"] is None
        and match["weak"] is None
        and not credential_nearby.about_hardware(text, match.start(), match.end())
    )


class _Words:
    """The words of a text without the signs around them, found once, with
    whether each is shaped like a value (asked once)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.markers = credential_nearby.Markers(text)
        self.spans: list[tuple[int, int]] = []
        for word in _WORD.finditer(text):
            start, stop = word.span()
            while start < stop and text[start] in _EDGES:
                start += 1
            while stop > start and text[stop - 1] in _EDGES:
                stop -= 1
            if start < stop:
                self.spans.append((start, stop))
        for spaced in reversed(list(_SPACED_DIGITS.finditer(text))):  # "7 3 1 9": one value
            first = bisect.bisect_left(self.spans, (spaced.start(), 0))
            last = bisect.bisect_left(self.spans, (spaced.end(), 0))
            self.spans[first:last] = [spaced.span()]
        self._starts = [start for start, _ in self.spans]
        self._shaped: dict[int, bool] = {}

    def between(self, start: int, stop: int) -> list[tuple[int, int]]:
        first = bisect.bisect_left(self._starts, start)
        last = bisect.bisect_left(self._starts, stop)
        return [span for span in self.spans[first:last] if span[1] <= stop]

    def shaped(self, start: int, stop: int) -> bool:
        if start not in self._shaped:
            self._shaped[start] = not self.markers.within(start, stop) and _shaped(
                self.text[start:stop]
            )
        return self._shaped[start]


def _shaped(value: str) -> bool:
    if _SPACED_DIGITS.fullmatch(value) or _DATE.fullmatch(value):
        return True  # taken only where a value stands (``_taken``)
    return (
        len(value) >= 4
        and any(c.isdigit() for c in value)
        and credential_nearby.looks_like_a_value(value)
        and not _NOT_A_VALUE.fullmatch(value)
    ) or credential_nearby.made_up(value)


def _taken(text: str, words: _Words, start: int, stop: int, word: tuple[int, int] | None) -> bool:
    """Is the word at *start*..*stop* a value of the credential word at
    *word* in its sentence (None: of a heading or a footer, in its block)?"""
    value = text[start:stop]
    before = word is not None and stop <= word[0]
    shaped = words.shaped(start, stop)
    if not shaped and (word is None or before or not _SET_VALUE.fullmatch(value)):
        return False
    previous = [w.strip("([{'\":#.").lower() for w in text[max(0, start - 24) : start].split()[-2:]]
    linked = _linked(previous)
    if not shaped and not (
        # "It's tiger7", "it's 123abc": what is set there is the value, whatever its shape.
        linked
        and not words.markers.within(start, stop)
        and _CLAUSE_ENDS.match(text, stop) is not None
    ):
        return False
    if _DATE.fullmatch(value):  # a date is a value only where one is set: "the PIN is 31/08/94"
        return word is not None and not before and (linked or _right_after(text, start, word))
    if word is not None and before:
        between = text[stop : word[0]]
        if _BETWEEN.search(between) or len(between.split()) > _WORDS_BEFORE:
            return False
    if previous and (
        previous[-1] in _LABELS
        or (previous[-1] in ("is", "=") and previous[0] in _LABELS)
        or (value.isdigit() and _HOST.fullmatch(previous[-1]))
    ):
        return False  # "user id 88231", "flight BA2490", "my username is kate88", a port
    if previous and previous[-1] in _NETWORKS and credential_nearby.its_password_next(text, stop):
        return False  # "hotspot: Pixel_7; key = X": the network's name, then its key
    ends_clause = _CLAUSE_ENDS.match(text, stop) is not None
    if value.isdigit() and word is not None and _numbered_apart(text, start, word):
        return False  # "my password expired. call me back: 07700900123": a phone's
    if value.replace(" ", "").isdigit() and (
        (before and not linked)
        or not ends_clause
        or _YEAR.fullmatch(value.replace(" ", ""))
        or (previous and (previous[-1].isdigit() or previous[-1] in _NOT_THE_VALUE_AFTER))
    ):
        return False
    if word is not None and (_PLAIN.fullmatch(value) or value.isalpha()):
        return ends_clause and (linked or not _after_a_name(text, start, word))
    return True


def _passphrases(text: str, low: int, high: int) -> Iterator[tuple[int, int]]:
    """Runs of three words or more joined by one kind of space or sign that
    none but a passphrase strings together: "glacier noodle drift dolphin",
    "orchard-otter-yonder", "Harbor Lantern Fjord" (not "the password
    field", "reset link expired", "die PIN meiner Karte")."""
    for found in _RUN.finditer(text, low, high):
        run: list[re.Match[str]] = []
        for word in [*_LETTERS.finditer(text, *found.span()), None]:
            if word is not None and _in_a_passphrase(word[0]):
                run.append(word)
                continue
            start, stop = (run[0].start(), run[-1].end()) if run else (0, 0)
            if (
                len(run) >= _PASSPHRASE_WORDS
                and _CLAUSE_ENDS.match(text, stop) is not None
                and _introduced(text, run)
            ):
                yield start, stop
            run = []


def _introduced(text: str, run: list[re.Match[str]]) -> bool:
    """Is the *run* of words given as a value: joined by a sign ("orchard-
    otter-yonder"), at its line's start (a list's item, an answer), after a
    sign that links ("pw: X", "-> X"), or after a word that gives a value
    ("is X", "ist X", "now X") or a credential word ("pw harbor quartz
    canyon") with one frequent word at most among them (not "contraseña
    caduca cada noventa días", "debe tener mayúsculas minúsculas")?"""
    start = run[0].start()
    if text[run[0].end()] not in " \t":
        return True
    line = text[text.rfind("\n", 0, start) + 1 : start].rstrip(" \t")
    if not line.strip(_BULLETS):
        return True
    if line[-1] in _LINKS:  # unless it says what the password is like: "password hint: X"
        said = line.rstrip(_LINKS + " \t").split()
        return not said or said[-1].casefold() not in _TALK
    last = line.split()[-1].casefold().strip("\"'(")
    frequent = sum(known_words.frequent(word[0]) for word in run)
    # A credential word alone before the run is its label ("pw glacier
    # drift raven"): words that are not all frequent, none joining ones, do.
    labelled = len(line.split()) == 1 and frequent < len(run)
    if frequent > 1 and not (labelled and not any(known_words.common(w[0]) for w in run)):
        return False
    return last in _GIVING or next(credential_nearby.credential_words(last), None) is not None


def a_passphrase(words: re.Match[str]) -> bool:
    """Could the words *words* found be the rest of a passphrase?"""
    return all(_in_a_passphrase(word) for word in words[0].split())


def _in_a_passphrase(word: str) -> bool:
    """Could *word* be one of a passphrase's: not one of a language's most used,
    nor one speaking of a password ("field", "reset", "expired", "Passwort"),
    nor a "my" of a language wordfreq has no list for (Tajik "пароли ман
    кӯҳна шуд", "my password got old", round 35)?"""
    folded_word = word.casefold()
    return not (
        folded_word in _TALK
        or credential_nearby.a_small_word(word)
        or _DOING.fullmatch(folded_word)
        or known_words.common(folded_word)
        or next(credential_nearby.credential_words(word), None) is not None
    )


def _close_before(text: str, stop: int, word: int) -> bool:
    """Does a passphrase ending at *stop* come close enough before the
    credential word at *word* to be its ("Thistle Pebble Otter meets the
    password rules?", not "btw kenji keeps asking me for the password")?"""
    between = text[stop:word]
    return not _BETWEEN.search(between) and len(between.split()) <= _PASSPHRASE_BEFORE


def _numbered_apart(text: str, start: int, word: tuple[int, int]) -> bool:
    """Does the number at *start* stand in a sentence after its credential
    word's that says what the number is ("my pin is new. room 2114", "my
    password expired. call me back: 07700900123"), a stop of any case between?"""
    said = max(text.rfind(stop, word[1], start) for stop in ".!?\n") + 1
    return said > word[1] and _NUMBERED.search(text, said, start) is not None


def _linked(previous: list[str]) -> bool:
    """Do the words before a value set it ("it's", "use", "went with")?"""
    return bool(previous) and (
        previous[-1] in _SETTING or (previous[-1] == "with" and previous[0] in _CHOOSING)
    )


def _right_after(text: str, start: int, word: tuple[int, int]) -> bool:
    """Does the value at *start* follow its credential word with nothing but
    a sign between ("PIN 31/08/94", "password: 7 3 1 9")?"""
    return not text[word[1] : start].strip(" \t:=-\u2013\u2014'\"")


def _after_a_name(text: str, start: int, word: tuple[int, int]) -> bool:
    """Does the word at *start* follow a name or a word that makes it one
    ("my", "the", "on", "Fitbit" mid-sentence), not its credential word?"""
    found = _LAST_WORD.search(text, max(0, start - 40), start)
    if found is None or found.end(1) == word[1]:
        return False
    last = found.group(1)
    if last.lower() in _BEFORE_A_NAME:
        return True
    before_it = text[max(0, found.start(1) - 3) : found.start(1)].rstrip()
    return (
        last[:1].isupper()
        and last[-1].isalnum()
        and before_it[-1:] not in ("", ".", "!", "?", "\n")
    )


def _region(text: str, words: _Words, start: int, end: int) -> tuple[int, int, bool]:
    """Where values of the credential word at *start*..*end* are looked for,
    and whether that is the block of a heading or a footer."""
    low, high = max(0, start - _REACH), min(len(text), end + _REACH)
    line_start = text.rfind("\n", low, start) + 1 or low
    line_end = text.find("\n", end, high)
    line_end = high if line_end < 0 else line_end
    in_line = words.between(line_start, line_end)
    if (
        len(in_line) <= _HEADING_WORDS
        and not any(words.shaped(*span) for span in in_line)
        and not credential_nearby.MARKER.search(text, line_start, line_end)
    ):
        return _block_start(text, line_start, low), _block_end(text, line_end, high), True
    left = line_start
    for sentence_end in _SENTENCE_END.finditer(text, line_start, start):
        left = sentence_end.end()
    stop = _SENTENCE_END.search(text, end, line_end)
    right = stop.end() if stop else line_end
    reach = min(high, right + _NEXT_SENTENCE)
    for _ in range(_NEXT_SENTENCES):  # the next sentences, if short: "Wrong one, it's Y."
        if right >= reach:
            break
        more = _SENTENCE_END.search(text, right, reach)
        ends = more.end() if more else reach
        if not (more or ends == len(text)) or "\n\n" in text[right:ends]:
            break
        right = ends
    return left, right, False


def _block_end(text: str, position: int, high: int) -> int:
    """The end of the lines after *position*, up to a blank line (one right
    after a heading is skipped: "PASSWORDS\\n\\namazon X")."""
    if text.startswith("\n\n", position):
        position += 1
    for _ in range(_BLOCK_LINES):
        following = text.find("\n", position + 1, high)
        following = high if following < 0 else following
        if position >= high or not text[position + 1 : following].strip():
            break
        position = following
    return position


def _block_start(text: str, position: int, low: int) -> int:
    """The start of the lines before *position*, up to a blank line."""
    for _ in range(_BLOCK_LINES):
        if position <= low:
            break
        previous = max(low, text.rfind("\n", low, position - 1) + 1)
        if not text[previous : position - 1].strip():
            break
        position = previous
    return position
