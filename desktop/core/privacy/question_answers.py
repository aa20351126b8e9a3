"""Answers that stand in for a password, for ``redaction``: a security
question's answer, a memorable word, place or date, and the password a hint
gives away.

A security question is named ("security question", "secret word",
"memorable place", "recovery question"), quoted ("'name of your first
teacher' = Mrs Okoye") or asked ("what was the name of your first bicycle?
Red Rocket"), or written as "Q: ... A: ...", then answered in the same
line: "is", "=", ":", "->", "A:", "I put", "I used", "I answered", "mine
is", "set ... to", "answer ... with". A hint is named, usually quoted, then
its answer follows ("the hint on the desktop is 'first bike + year', i.e.
Raleigh2003", "'honeymoon city' -> Lisbon"). The answer runs to its
clause's end, at most four words ("Little Harbour", "blue walrus 19",
"Tomasz 1998"). What a question is about ("mother's maiden name",
"favourite film") is no answer, nor an opinion ("security questions are
pointless", "my answers are all made up", "the hint is no help"): a
lower-case answer is one of the everyday words (wordfreq's frequent ones)
only if it has a digit or a word that is not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from desktop.core.base import text_scan
from desktop.core.privacy import known_words

_QUOTE = "'\"\u2018\u2019\u201c\u201d"
_TOPIC = (
    r"(?:first|favou?rite|childhood|maiden|grew\s+up|born|honeymoon|nickname|mascot|best\s+friend"
    r"|parents\s+met|stuffed\s+animal|teacher|pet'?s?|street|school|mother'?s|father'?s)"
)
_QUESTION = re.compile(
    r"\b(?:(?:security|secret|recovery|verification|challenge|memorable)[ \t]+"
    r"(?:questions?|q|answers?|words?|phrase|place|date|name|number|info\w*)"
    r"|(?:account[ \t]+)?recovery[ \t]+(?:question|answer)s?"
    r"|(?P<hint>(?:password[ \t]+)?hint))\b"
    # Its place on a form is no question asked: "the memorable word box was greyed out".
    r"(?![ \t]+(?:box|field|option|screen|page|prompt|form|section|setting|button)s?\b)"
    rf"|[{_QUOTE}][^{_QUOTE}\n]{{0,40}}\b{_TOPIC}\b[^{_QUOTE}\n]{{0,40}}[{_QUOTE}]"
    rf"|\bQ[ \t]*[:.][^\n]{{0,40}}?\b{_TOPIC}\b[^\n]{{0,40}}?(?=\bA[ \t]*:)"
    rf"|(?P<asked>\b(?:what|where|who|which)(?:'s|[ \t]+(?:is|was|were|did))[^?\n]{{0,30}}"
    rf"\byour\b[^?\n]{{0,30}}\b{_TOPIC}\b[^?\n]{{0,40}}\?)",
    re.IGNORECASE,
)
"""A security question, a memorable word or a hint: named, quoted or asked."""
_CUES = (
    r"\b(?:is|was|are|were)(?:[ \t]+(?:always|still|just))?"
    r"|\banswer(?:ed|s)?(?:[ \t]+(?:is|was|are|with))?(?:[ \t]*:)?|\bA[ \t]*:"
    r"|\bput(?:[ \t]+(?:as|down|in))?|\b(?:used|chose|picked|gave)(?:[ \t]+(?:as|in))?"
    r"|\bwrote|\bset(?:[ \t]+it)?(?:[ \t]+(?:to|as))|\bto(?=[ \t]+[A-Z])|\bmine[ \t]+(?:is|was)"
    r"|\banswer\w*[^.,;\n]{0,30}?\bwith|[:=\u2014\u2013\u2192]|->|[ \t]-(?=[ \t])"
)
_CUE = re.compile(
    rf"(?:{_CUES})(?:[ \t]+(?:obviously|just|always|probably|basically))?[ \t]*", re.IGNORECASE
)
"""What gives the answer after the question: "is", "I put", "A:", "=", "->"."""
_HINT_CUE = re.compile(
    rf"(?:{_CUES}|\bit'?s|\bi\.e\.?|\bwhich[ \t]+(?:is|was)|\bmeans|\bfor|\bso)"
    r"(?:[ \t]+(?:obviously|just|always|probably|basically))?[ \t]*",
    re.IGNORECASE,
)
"""What gives a hint's answer: those, and "so it's", "i.e.", "which is", "means"."""
_WORD = r"[A-Za-z0-9\u00c0-\u024f][\w'\u2019.&!@#$%*+-]*"
_ANSWER = re.compile(
    rf"(?P<date>\d{{1,2}}[/.-]\d{{1,2}}[/.-]\d{{2,4}})(?![\w/])|{_WORD}(?:[ \t]+{_WORD}){{0,3}}"
)
_STOPS = frozenset(
    str.split(
        "but and or so not which that that's thats for on at in to from because i i'm it's it "
        "don't dont lol haha btw though just also is was obviously all one word then "
        "after before since with when if as you your my our his her their the a an same thx "
        "thanks danke merci gracias cheers please pls"
    )
)
"""Words that end an answer: what is said next ("Pippin but I wrote pip")."""
_NOT_ANSWERS = re.compile(
    rf"\b(?:{_TOPIC}|name|question|answer|hint|what|where|who|something|anything|nothing"
    r"|lies|fake|wrong|random|same|easy|useless|pointless|worthless|annoying|joke|blank|dumb"
    r"|stupid|silly|weak|hard|nonsense"
    r"|gibberish|garbage|rubbish|made[ -]up|case|sensitive|optional|required|mandatory|long"
    r"|short)\b",
    re.IGNORECASE,
)
"""What an answer is not made of: what the question asks, or an opinion."""
_ANSWERED_WITH = re.compile(
    r"\banswer\w*[ \t]+(?:(?:all|my|the|every|any)[ \t]+){0,2}(?:security|secret)[ \t]+"
    r"questions?[ \t]+with[ \t]+",
    re.IGNORECASE,
)
"""The answer given to every question: "I answer security questions with X"."""
_LINE_REACH = 200


def secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each answer standing in for a password in *text* is."""
    for question in text_scan.matches(_QUESTION, text):
        line_end = text.find("\n", question.end())
        high = min(len(text) if line_end < 0 else line_end, question.end() + _LINE_REACH)
        hint = bool(question["hint"])
        direct = _answer_at(text, _after_space(text, question.end()), high, hint=hint)
        # Straight after the question: its answer if asked ("...first
        # bicycle? Red Rocket"), or a value ("memorable word kipper77").
        if direct is not None and (question["asked"] or _has_digit(text, *direct)):
            yield direct
        yield from _answers(text, question.end(), high, hint=hint)
    for answered in text_scan.matches(_ANSWERED_WITH, text):
        if (found := _answer_at(text, answered.end(), len(text), hint=False)) is not None:
            yield found


def _after_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t":
        at += 1
    return at


def _has_digit(text: str, start: int, end: int) -> bool:
    return any(c.isdigit() for c in text[start:end])


def _answers(text: str, low: int, high: int, *, hint: bool) -> Iterator[tuple[int, int]]:
    """The answers given in ``text[low:high]`` after a question or a hint."""
    position = low
    cues = _HINT_CUE if hint else _CUE
    while (cue := cues.search(text, position, high)) is not None:
        position = max(cue.end(), cue.start() + 1)
        if text[cue.end() : cue.end() + 1] in _QUOTE:
            continue  # the question itself, quoted: "is 'where did you go on honeymoon'"
        answer = _answer_at(text, cue.end(), high, hint=hint)
        if hint and answer is not None and not _hint_gives(text, low, cue, answer):
            answer = None
        if answer is not None:
            yield answer
            position = answer[1]


def _hint_gives(text: str, low: int, cue: re.Match[str], answer: tuple[int, int]) -> bool:
    """Is *answer* a password its hint gives away: after "answer:", or
    after the quoted hint, with a digit or where the hint is about what
    security questions are ("'first bike' is for Raleigh", not "the
    crossword's hint is 'capital of France', so Paris")?"""
    if cue.group().lower().startswith("answer"):
        return True
    quoted = _QUOTED.search(text, low, cue.start())
    if quoted is None:
        return False
    return _has_digit(text, *answer) or re.search(rf"\b{_TOPIC}\b|\+", quoted.group()) is not None


_QUOTED = re.compile(rf"[{_QUOTE}][^{_QUOTE}\n]{{1,60}}[{_QUOTE}]")


def _answer_at(text: str, start: int, high: int, *, hint: bool) -> tuple[int, int] | None:
    """The answer starting at *start*, cut at its clause's end, if it is one."""
    found = _ANSWER.match(text, start, high)
    if found is None:
        return None
    if found["date"]:
        return found.span()
    words: list[str] = []
    for word in found.group().split():
        bare = word.rstrip(".,!?;:")
        if bare.lower() in _STOPS or bare.lower().startswith(("it'", "that'")):
            break
        words.append(bare)
        if bare != word:  # a sign after it ends the clause
            break
    if not words or _NOT_ANSWERS.search(" ".join(words)):
        return None
    if not _an_answer(words, hint=hint):
        return None
    end = text.index(words[-1], start) + len(words[-1])
    return start, end


def _an_answer(words: list[str], *, hint: bool) -> bool:
    """Could *words* be an answer: a name, a value with a digit, or words
    that are not all everyday ones?"""
    joined = " ".join(words)
    if any(c.isdigit() for c in joined):
        return True
    if hint and len(words) > 2:
        return False
    if words[0][0].isupper():
        return not known_words.common(words[0])
    return not all(known_words.frequent(word) for word in words)
