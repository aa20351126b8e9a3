"""Whether the user's own words say a task is done: the one rule by which
the dream's task pass and the agenda review complete a task.

The model quotes the user (``quote``); the host finds the quote in a
message the user typed after the task was made (role "user", not a
command or a conversation's seed) and reads the sentence holding it.
Words cut out of a sentence that denies the task is done ("I have *not*
watered the plants"), asks about it ("*Did I* call the dentist?"), sets a
condition ("*if* I water the plants") or says it is still to do ("I *will*
water the plants", "*remind me to* …") are no evidence:
``against`` says which.  A cue counts when it comes before the quote in
its clause (the part of the sentence between commas, colons, dashes or a
"but"), or inside the quote.

Words that only might not say it are a ``doubt``: a negation or a
condition elsewhere in the sentence ("I didn't forget, I watered the
plants"), a hedge ("maybe", "I think"), a time to come after the quote
("… tomorrow"), the same words said both ways in one message, or a
sentence that does not name the task.  The dream
asks the user's approval for those; the agenda review, which cannot ask,
leaves the task open.

The cues are English, as is everything else the host reads of what the
user said (``content_words``, ``dreaming.evidence``); a quote in another
language is found, and read for questions only.  Each refusal is a kind
(a key of ``AGAINST`` or ``DOUBTS``), so a log can name it without the
user's words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from desktop.core.content_words import related
from desktop.core.db import Message
from desktop.core.text_fold import APOSTROPHES, normalised

MIN_QUOTE_WORDS = 2
"""A quote of one word ("done", "yes") could be about anything."""
QUOTE_CHARS = 300
"""The longest quote an answer may give (its schema says so)."""
NOT_EVIDENCE_KINDS = ("seed", "command")
"""Message metadata ``kind`` of what the user did not say as news: a
conversation's seed, a command."""

# The word lists are kept as paragraphs (``fmt: skip``): one word a line
# would make them five screens long.
_CUES: dict[str, tuple[str, ...]] = {
    "negated": (
        "not", "n't", "no", "never", "nothing", "none", "neither", "nor", "without",
        "no longer", "yet to", "forgot to", "forget to", "failed to", "unable to",
        "almost", "nearly", "cannot", "dont", "didnt", "doesnt", "havent", "hasnt",
        "hadnt", "cant", "wont", "isnt", "arent", "wasnt", "werent", "couldnt",
    ),
    "conditional": (
        "if", "unless", "in case", "whether", "as soon as", "provided", "assuming",
        "supposing",
    ),
    "intent": (
        "will", "'ll", "shall", "going to", "gonna", "about to", "need to", "needs to",
        "have to", "has to", "got to", "must", "should", "ought to", "want to", "wants to",
        "would like to", "'d like to", "plan to", "planning to", "intend to", "hope to",
        "try to", "trying to", "tried to", "remind me", "remember to", "let me", "let's",
        "please", "still need", "still have to", "todo", "to-do", "to do",
    ),
    "hedged": (
        "maybe", "perhaps", "probably", "possibly", "might", "i think", "i guess",
        "i believe", "i suppose",
    ),
}  # fmt: skip
"""What each kind of cue is made of, as typed (apostrophes straightened)."""
_LATER = (
    "tomorrow", "tonight", "next week", "next month", "next year", "next time", "someday",
)  # fmt: skip
"""Times after the quote that may put it in the future ("call the dentist tomorrow")."""

AGAINST = {
    "unquoted": "quoted nothing you said about it",
    "negated": "the words it quoted say it is not done",
    "question": "the words it quoted ask whether it is done",
    "conditional": "the words it quoted are a condition, not news",
    "intent": "the words it quoted say it is still to do",
}
"""Why quoted words are no evidence, after "the model thought it done, but"."""
DOUBTS = {
    "unrelated": "the words quoted as yours do not mention the task",
    "negation": "the sentence quoted as yours also says something is not so",
    "condition": "the sentence quoted as yours also sets a condition",
    "hedged": "the sentence quoted as yours is not sure",
    "both ways": "your message says the words quoted both as done and as not done",
    "later": "the sentence quoted as yours speaks of a time to come",
}
"""Why quoted words may not say the task is done (the user decides)."""


def _cue_pattern(phrases: Sequence[str]) -> re.Pattern[str]:
    # A phrase starting or ending with a letter stands as a word there ("no"
    # is not the start of "note"); "n't" and "'ll" hang on the word before.
    def one(phrase: str) -> str:
        body = r"\s+".join(re.escape(word) for word in phrase.split())
        head = r"(?<!\w)" if phrase[0].isalnum() and not phrase.startswith("n'") else ""
        tail = r"(?!\w)" if phrase[-1].isalnum() else ""
        return head + body + tail

    return re.compile("|".join(one(p) for p in sorted(phrases, key=len, reverse=True)))


_CUE = {kind: _cue_pattern(phrases) for kind, phrases in _CUES.items()}
_LATER_CUE = _cue_pattern(_LATER)
_SENTENCE_END = re.compile(r"[!?\n\u2026]|\.(?!\w)")
"""Where a sentence ends ("3.5" and "example.org" go on)."""
_CLAUSE_BREAK = re.compile(r"[,;()\[\]\u2013\u2014]|\s-\s|(?<!\w)(?:but|however)(?!\w)")
"""Where a clause ends (not at a colon: "todo: call the dentist" is one)."""
_QUESTION = re.compile(
    r"\s*(?:(?:when|where|why|how|what|who|which)\s+)?"
    r"(?:(?:did|do|does|can|could|would|will|should|shall)\s+(?:i|you|we|they|he|she)"
    r"|(?:have|has|had|is|are|was|were|am)\s+(?:i|you|we|they|he|she|the|my|our))(?!\w)"
)
"""A sentence or clause opening as a question, its question mark left out."""
_QUOTE_MARKS = "\"'\u201c\u201d\u2018\u2019\u00ab\u00bb\u201e`"
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class DoneEvidence:
    """What the user's quoted words say of a task being done."""

    message: Message | None
    """The user's message the words are from (None: not found)."""
    against: str = ""
    """Why they are no evidence (a key of ``AGAINST``); "" when they are."""
    doubt: str = ""
    """Why they may not be (a key of ``DOUBTS``); "" when they plainly are."""

    @property
    def done(self) -> bool:
        """The words say it is done, beyond doubt."""
        return self.message is not None and not self.against and not self.doubt

    @property
    def reason(self) -> str:
        """Why the task is not completed on these words, for the user ("" if it is)."""
        if self.against:
            return f"the model thought it done, but {AGAINST[self.against]}"
        return DOUBTS[self.doubt] if self.doubt else ""


@dataclass(frozen=True)
class _Reading:
    message: Message
    sentence: str
    against: str
    doubt: str


def said_done(
    task_text: str, made_at: float, quote: str | None, messages: Sequence[Message]
) -> DoneEvidence:
    """Whether *quote*, found in *messages* the user typed after *made_at*,
    says the task *task_text* is done.  The newest message holding the
    quote decides (the user may have done it since saying it was not done);
    every place the quote occurs in it is read."""
    wanted = _wanted(quote or "")
    if len(_WORD.findall(wanted)) < MIN_QUOTE_WORDS:
        return DoneEvidence(None, against="unquoted")
    newest: list[_Reading] = []
    for message in sorted(messages, key=lambda m: m.created_at):
        if (
            message.role == "user"
            and message.created_at > made_at
            and (message.metadata or {}).get("kind") not in NOT_EVIDENCE_KINDS
        ):
            newest = _readings(wanted, message) or newest
    if not newest:
        return DoneEvidence(None, against="unquoted")
    message = newest[0].message
    saying = [r for r in newest if not r.against]
    if not saying:
        return DoneEvidence(message, against=newest[-1].against)
    if len(saying) < len(newest):
        return DoneEvidence(message, doubt="both ways")
    if any(r.doubt for r in saying):
        return DoneEvidence(message, doubt=next(r.doubt for r in saying if r.doubt))
    if not any(related(task_text, r.sentence) for r in saying):
        return DoneEvidence(message, doubt="unrelated")
    return DoneEvidence(message)


def _wanted(quote: str) -> str:
    """The quote as compared: its own quotation marks and final punctuation
    need not be in the message."""
    return normalised(quote.strip().strip(_QUOTE_MARKS).strip().rstrip(".!?,;:"))


def _readings(wanted: str, message: Message) -> list[_Reading]:
    """How each place *wanted* occurs in *message* reads."""
    # Lines are sentences too: spaces are folded as ``normalised`` folds
    # them, except that a line break stays one.
    text = re.sub(r"[^\S\n]+", " ", message.content.translate(APOSTROPHES).casefold())
    text = re.sub(r" ?\n\s*", "\n", text).strip()
    found = re.finditer(r"[ \n]".join(re.escape(w) for w in wanted.split(" ")), text)
    return [_reading(message, text, match.start(), match.end()) for match in found]


def _reading(message: Message, text: str, start: int, end: int) -> _Reading:
    ends = list(_SENTENCE_END.finditer(text, 0, start))
    first = ends[-1].end() if ends else 0
    after = _SENTENCE_END.search(text, end)
    last = after.start() if after else len(text)
    breaks = list(_CLAUSE_BREAK.finditer(text, first, start))
    clause = breaks[-1].end() if breaks else first
    broken = _CLAUSE_BREAK.search(text, end, last)
    clause_end = broken.start() if broken else last
    lead, tail = text[clause:end], text[end:clause_end]
    rest = text[first:clause] + " | " + text[clause_end:last]
    sentence = text[first:last]

    def has(kind: str, *parts: str) -> bool:
        return any(_CUE[kind].search(part) for part in parts)

    if (after is not None and after.group() == "?") or any(
        _QUESTION.match(text, at) for at in (first, clause)
    ):
        against = "question"
    else:
        against = next((k for k in ("negated", "conditional", "intent") if has(k, lead)), "")
    doubt = ""
    if has("hedged", sentence):
        doubt = "hedged"
    elif _LATER_CUE.search(tail):
        doubt = "later"
    elif has("negated", tail, rest):
        doubt = "negation"
    elif has("conditional", tail, rest):
        doubt = "condition"
    return _Reading(message, sentence, against, doubt)
