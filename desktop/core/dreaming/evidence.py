"""Host checks of what a dream's small model claims, read off the text itself.

A 135M model's word is not enough to change what the user wrote or said:

- A skill's rewrite (condensed, or merged with another) must keep the
  original's specifics: commands and code spans, paths and file names,
  URLs, flags, environment variables and numbers (``lost_specifics``), and
  a fair share of its words (``kept_share``); and run what it ran, as it
  ran it (``changed_commands``): nothing added that runs, each command line
  as it was, in its order, nothing said not to run that was run or the
  reverse; and say its prose as it said it (``changed_steps``): each
  sentence with a number or a word of change with the same ones, nothing
  new added.
- A task is done only when the user said so: that rule is shared with the
  agenda review, in ``desktop.core.tasks.evidence``.
- A preference counts the user's messages that say it (``supports``: not
  the reverse, nor only a word of it) and is a firm correction only when
  one of those reads as one (``corrects``).

Everything is plain regular expressions, so the report can say exactly
what was missing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from desktop.core.base.content_words import (
    DENIED,
    NUMBER,
    changes,
    exchanged,
    new_words,
    says_otherwise,
    stems,
    support,
    swapped,
)

_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_URL = re.compile(r"\b(?:https?|ftp)://[^\s<>\"'`)\]]+", re.IGNORECASE)
_PATH = re.compile(
    r"(?<![\w/])(?:~|\.{1,2})?(?:/[\w.+@-]+)+/?"  # /etc/hosts, ~/notes, ./run.sh
    r"|\b[A-Za-z]:\\[\w.\\-]*\w"  # C:\Users\me
)
_FILE = re.compile(r"\b[\w-]*[A-Za-z_][\w-]*\.(?:[a-z][a-z0-9]{0,4})\b")
_NOT_FILES = frozenset({"e.g", "i.e", "etc.", "vs.", "a.m", "p.m"})
_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
_ENVIRONMENT = re.compile(r"\$\{?[A-Za-z_]\w*\}?|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")
_PROMPT_LINE = re.compile(r"^\s*[$>]\s+(\S.*)$", re.MULTILINE)
"""A line typed at a shell prompt: ``$ git pull``."""
_COMMAND = re.compile(
    r"```[^\n]*\n(?P<fence>.*?)```|`(?P<span>[^`\n]+)`|^[ \t]*[$>][ \t]+(?P<typed>\S[^\n]*)$",
    re.DOTALL | re.MULTILINE,
)
"""A command line, in the order written: a fenced block, a code span or a
line typed at a shell prompt."""
_SENTENCE_END = re.compile(r"[.!?;](?=\s)|\n")
_LIST_NUMBER = re.compile(r"^(\s*)\d+[.)](?=\s)", re.MULTILINE)
"""A step's own number ("2. Boil water"): renumbering steps loses nothing."""
NEW_WORDS = 0
"""How many content words a skill's rewrite may add that it did not have."""
_SPACE = re.compile(r"\s+")
_CORRECTION = re.compile(
    r"\b(?:no|nope|stop|don'?t|do not|never|not|wrong|quit|enough|"
    r"i said|i told you|i asked)\b|n't\b",
    re.IGNORECASE,
)
"""Words a firm correction is made of ("No, stop doing that!")."""
_PLEASANTRY = re.compile(
    r"\b(?:no (?:worries|problem|prob|rush|need|thanks|thank you)|not at all|never ?mind"
    r"|don'?t (?:worry|mind)|no,? (?:that'?s|it'?s) (?:fine|ok|okay|alright))\b",
    re.IGNORECASE,
)
"""A "no" or "don't" that corrects nothing ("No worries!", "never mind")."""


def skill_specifics(text: str) -> list[str]:
    """What a skill's rewrite must keep: its code, paths, file names, URLs,
    flags, environment variables and numbers, in order of appearance."""
    found: list[str] = []
    for block in _FENCE.findall(text):
        found += [line.strip() for line in block.splitlines() if line.strip()]
    without_fences = _FENCE.sub(" ", text)
    found += [span.strip() for span in _CODE_SPAN.findall(without_fences) if span.strip()]
    found += [line.strip() for line in _PROMPT_LINE.findall(without_fences)]
    urls = [url.rstrip(".,;:!?") for url in _URL.findall(text)]
    found += urls
    outside_urls = _URL.sub(" ", text)
    paths = [p.rstrip(".,;:") for p in _PATH.findall(outside_urls)]
    found += [p for p in paths if p.strip("/.~")]
    found += [f for f in _FILE.findall(outside_urls) if f.casefold() not in _NOT_FILES]
    found += _FLAG.findall(outside_urls)
    found += _ENVIRONMENT.findall(text)
    found += NUMBER.findall(_LIST_NUMBER.sub(r"\1", outside_urls))
    return list(dict.fromkeys(found))


def lost_specifics(originals: Iterable[str], rewritten: str) -> list[str]:
    """The specifics of *originals* that *rewritten* lacks (whitespace aside;
    a number must be there as a number: "3" is not kept by "30")."""
    kept = _spaced(rewritten)
    numbers = set(NUMBER.findall(_LIST_NUMBER.sub(r"\1", rewritten)))
    lost: list[str] = []
    for original in originals:
        for specific in skill_specifics(original):
            if NUMBER.fullmatch(specific):
                if specific not in numbers:
                    lost.append(specific)
            elif _spaced(specific) not in kept:
                lost.append(specific)
    # "--minify" goes without saying once `hugo --minify` is said to be lost.
    return [s for s in dict.fromkeys(lost) if not any(s != o and s in o for o in lost)]


def changed_commands(originals: Sequence[str], rewritten: str) -> str | None:
    """How *rewritten* runs otherwise than *originals* (None: it runs what
    they ran, as they ran it), said after "the new text": it adds a
    specific they lack but a number (a URL, flag or path even in prose:
    "then curl http://x | sh"); a command line none of them has ("git push origin main
    --force", "rm -rf public/ ~"); says not to run a command they ran, or
    the reverse ("Do not back up (skip `tar czf backup.tgz site/`)"); or
    runs theirs in another order or more often (a merge's may interleave,
    each original's in its own order).  Every one keeps each old command as
    a substring, which is all ``lost_specifics`` asks."""
    added = [
        specific
        for specific in lost_specifics([rewritten], "\n".join(originals))
        if not NUMBER.fullmatch(specific)  # a number runs nothing ("Step 1:")
    ]
    if added:
        return "adds " + _quoted(added)
    theirs = [commands(text) for text in originals]
    ran = {line for listed in theirs for line in listed}
    known = {command for command, _ in ran}
    said = commands(rewritten)
    new = [command for command, _ in said if command not in known]
    if new:
        return "adds " + _quoted(new)
    turned = [command for command, denied in said if (command, denied) not in ran]
    if turned:
        return "turns around whether to run " + _quoted(turned)
    if not _in_their_order([[c for c, _ in listed] for listed in theirs], [c for c, _ in said]):
        return "does not run the skill's commands in their order"
    return None


def changed_steps(originals: Sequence[str], rewritten: str) -> str | None:
    """How *rewritten* says a step of *originals* otherwise (None: it does
    not), said after "the new text": it adds more than ``NEW_WORDS``
    content words none of them has ("5. Take a second tablet before bed"),
    or a sentence of theirs holding a number or a word of change reads
    otherwise (``says_otherwise``) in the sentence of *rewritten* sharing
    the most words with it ("3 tablets, never more than 1"; "never" dropped
    from one step while another keeps its own; "30 minutes are not
    needed").  The chat model follows a skill's prose as it follows its
    commands."""
    added = new_words(rewritten, originals)
    if len(added) > NEW_WORDS:
        return "adds " + _quoted(added)
    turned = swapped(rewritten, originals, numbers_stay=True) + exchanged(rewritten, originals)
    if turned:
        return "swaps " + _quoted(turned)
    theirs = sentences(rewritten)
    for original in originals:
        for sentence in sentences(original):
            if not NUMBER.search(sentence) and not changes(sentence):
                continue
            otherwise = _read_otherwise(sentence, theirs)
            if otherwise:
                return f"says “{_spaced(sentence)}” {otherwise}"
    return None


def _read_otherwise(sentence: str, theirs: list[str]) -> str | None:
    """How the sentences of *theirs* sharing the most words with *sentence*
    say it otherwise (None: one of them says it as it was; a step's bare
    number, "2" of "1. Boil. 2. Wait.", shares none and is found anywhere)."""
    shared = [len(stems(said) & stems(sentence)) for said in theirs]
    closest = [said for said, count in zip(theirs, shared, strict=True) if count == max(shared)]
    reasons = [says_otherwise(sentence, said) for said in closest or [""]]
    return None if None in reasons else reasons[0]


def sentences(text: str) -> list[str]:
    """The sentences and lines of *text*, steps' own numbers left out."""
    unnumbered = _LIST_NUMBER.sub(r"\1", text)
    return [part.strip() for part in _SENTENCE_END.split(unnumbered) if part and part.strip()]


def commands(text: str) -> list[tuple[str, bool]]:
    """The command lines of *text* in order (``_COMMAND``; spacing aside),
    each with whether the words that are its own (``_own_words``) say not
    to run it."""
    matches = list(_COMMAND.finditer(text))
    found: list[tuple[str, bool]] = []
    for index, match in enumerate(matches):
        if match["fence"] is not None:  # its lines say nothing more around them
            found += [(_spaced(line), False) for line in match["fence"].splitlines()]
            continue
        since = matches[index - 1].end() if index else 0
        until = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        words = _own_words(text, match, since, until)
        found.append((_spaced(match["span"] or match["typed"]), DENIED in changes(words)))
    return [(command, denied) for command, denied in found if command]


def _own_words(text: str, match: re.Match[str], since: int, until: int) -> str:
    """The words of *match*'s sentence that speak of it: those before it,
    back to the sentence's start or the command before (*since*), and, when
    no other command follows in the sentence (from *until*), those after it
    ("Do not back up (skip `tar ...`)", "`make install` is not needed"; in
    "`make` and, if it fails, do not run `make install`" the "not" is the
    second's)."""
    starts = [end.end() for end in _SENTENCE_END.finditer(text, since, match.start())]
    before = text[starts[-1] if starts else since : match.start()]
    after = _SENTENCE_END.search(text, match.end())
    end = len(text) if after is None else after.start()
    return before + " " + (text[match.end() : end] if end <= until else "")


def _in_their_order(theirs: list[list[str]], lines: list[str]) -> bool:
    """Does *lines* run the commands of each of *theirs* in its order, and
    none more often than the one that runs it most?"""
    most: Counter[str] = Counter()
    for listed in theirs:
        most |= Counter(listed)
    if Counter(lines) - most:
        return False
    return all(_runs_through(listed, iter(lines)) for listed in theirs)


def _runs_through(listed: list[str], lines: Iterator[str]) -> bool:
    """Is *listed* a subsequence of *lines* (consumed as it is read)?"""
    return all(command in lines for command in listed)


def _quoted(items: Iterable[str]) -> str:
    return ", ".join(f"“{item}”" for item in list(dict.fromkeys(items))[:8])


def kept_share(originals: Iterable[str], rewritten: str) -> float:
    """How much of the content words of *originals* *rewritten* still has
    (1.0 when they have none): a rewrite into other words altogether is no
    condensing."""
    theirs = frozenset().union(*(stems(text) for text in originals))
    if not theirs:
        return 1.0
    return len(theirs & stems(rewritten)) / len(theirs)


def supports(point: str, message: str) -> bool:
    """Does the user's *message* say *point* (``content_words.support``)?
    One that says the reverse ("No, don't make the answers short") does not."""
    return bool(support(point, [message]))


def corrects(message: str, point: str) -> bool:
    """Does *message* correct Reverie toward *point*: a sentence of it reads
    as a correction ("No, stop that!", "don't ...") and itself says the
    point ("No, stop writing long answers!")?  Not "No worries! Short
    answers are fine", nor "No, my husband likes short answers".  A
    sentence with nothing of its own ("No!") is read with the next."""
    pending = ""
    for sentence in sentences(_PLEASANTRY.sub(" ", message)):
        read = f"{pending}\n{sentence}"
        if _CORRECTION.search(read) and supports(point, read):
            return True
        pending = read if not stems(_CORRECTION.sub(" ", sentence)) else ""
    return False


def _spaced(text: str) -> str:
    return _SPACE.sub(" ", text).strip()
