"""Whether the user's own words say a task is done: the one rule by which
the dream's task pass proposes completing a task (the user approves it)
and the agenda review asks whether it is done; neither completes one.

Safe by construction: a whitelist.  The model quotes the user
(``quote``); the host finds the quote, at word boundaries, in a message
the user typed after the task was made (or last reopened, ``reopened_at``:
a completion the user undid is not made again from the same words), role
"user", not a command or a conversation's seed.  The sentence holding it
must positively say the thing is done (``done_words``: a completion word
or a past form of the task's own verb, said by the user or by someone for
them); anything else is no evidence, with its kind:

- a negation, question, condition, plan, wish, obligation, something under
  way or done in part, a habit or an earlier time in that sentence, or in
  any other sentence of the message that names the task or has no content
  word of its own ("No, I haven't."); a joke taken back anywhere in the
  message ("just kidding");
- a sentence that says nothing done ("Water the plants.", "Move the dentist
  call to Friday");
- a later message that talks about the task (names it, or points back at it
  with a denial, "No I didn't", or a question, "Did I?") and does not say
  it is done: the newest word on the task decides, whatever the model
  quoted;
- a repeating task (a schedule other than ``once``): "I watered the plants
  today" is one run, not the task ended; a background job never completes
  one, the user completes or deletes it ("I don't need this reminder any
  more" is theirs to act on too).

Two doubts are kept apart, for the dream's report and the review's
question to say so: a hedge ("maybe", "I think") and a done word in a
sentence that does not name the task ("All done!").  Other languages:
only a completion word the host is sure of counts (``done_words``),
otherwise no evidence.

Text is read folded (``text_fold.folded``: full-width, look-alike and
invisible characters as plain ones; every apostrophe as one), so no
spelling hides a cue; reading is linear in the messages' length.  Each
refusal is a kind (a key of ``AGAINST`` or ``DOUBTS``), so a log can name
it without the user's words.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from desktop.core.base.text_fold import APOSTROPHES, folded_text
from desktop.core.db import Message
from desktop.core.db.schedules import Once
from desktop.core.db.tasks import Task
from desktop.core.tasks.done_words import Sentence, TaskWords, read_sentence, words

MIN_QUOTE_WORDS = 2
"""A quote of one word ("done", "yes") could be about anything."""
QUOTE_CHARS = 300
"""The longest quote an answer may give (its schema says so)."""
NOT_EVIDENCE_KINDS = ("seed", "command")
"""Message metadata ``kind`` of what the user did not say as news: a
conversation's seed, a command."""

AGAINST = {
    "unquoted": "quoted nothing you said about it",
    "reopened": "you reopened it after the words it quoted",
    "repeating": "it repeats, and a repeating task is yours to complete or delete",
    "unsaid": "the words it quoted do not say it is done",
    "newer": "you said more about it after the words it quoted",
    "negated": "the words it quoted say it is not done",
    "question": "the words it quoted ask whether it is done",
    "conditional": "the words it quoted are a condition, not news",
    "intent": "the words it quoted say it is still to do",
    "wish": "the words it quoted wish it were done",
    "obligation": "the words it quoted say it has yet to be done",
    "progress": "the words it quoted say it is under way, not done",
    "habit": "the words it quoted say what is usually done",
    "earlier": "the words it quoted speak of an earlier time",
    "retracted": "you took the words it quoted back",
}
"""Why quoted words are no evidence, after "the model thought it done, but"."""
DOUBTS = {
    "unrelated": "the words quoted as yours do not mention the task",
    "hedged": "the sentence quoted as yours is not sure",
}
"""Why quoted words may not say the task is done (the dream asks the user)."""

_QUOTE_MARKS = "\"'\u201c\u201d\u2018\u2019\u00ab\u00bb\u201e`"
_SENTENCE_END = re.compile(
    "[!?\n\u2026\u3002\u2753\u2754\u2757\u2755\u203c\u2047\u2048\u2049\u203d\u061f]+"
    r"|\.(?!\w)"
)
"""Where a sentence ends ("3.5" and "example.org" go on); it keeps its mark."""
_SPACES = re.compile(r"[^\S\n]+")
_LINE_BREAKS = re.compile(r" ?\n[\s]*")
_DASHES = re.compile(r"(?<=\s)[-\u2013\u2014](?=\s)|[\u2013\u2014]")
"""A dash between spaces ends a clause ("I watered them - NOT"); one inside a word does not."""


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


def said_done(task: Task, quote: str | None, messages: Sequence[Message]) -> DoneEvidence:
    """Whether *quote*, found in *messages* the user typed since *task* was
    made or reopened, says *task* is done; the newest of them that talks
    about the task decides."""
    wanted = fold(_unmarked(quote or "")).replace("\n", " ")
    if len([w for w in words(wanted) if w.isalnum()]) < MIN_QUOTE_WORDS:
        return DoneEvidence(None, against="unquoted")
    typed = sorted(
        (m for m in messages if _news(m, task.created_at)),
        key=lambda m: (m.created_at, m.id),
        reverse=True,
    )
    since = max(task.created_at, task.reopened_at or 0.0)
    current = [m for m in typed if m.created_at > since]
    about = TaskWords.of(fold(task.text))
    readings = [_Message(m, about) for m in current]
    quoted = next((r for r in readings if r.holding(wanted)), None)
    if quoted is None:
        gone = any(_Message(m, about).holding(wanted) for m in typed if m.created_at <= since)
        return DoneEvidence(None, against="reopened" if gone else "unquoted")
    if task.schedule is not None and not isinstance(task.schedule, Once):
        return DoneEvidence(quoted.message, against="repeating")
    newest = next(r for r in readings if r is quoted or r.talks)
    if newest is not quoted:
        against, doubt = newest.verdict(newest.naming())
        if against or doubt:
            return DoneEvidence(quoted.message, against=_later(against), doubt=doubt)
    against, doubt = quoted.verdict(quoted.holding(wanted))
    return DoneEvidence(quoted.message, against=against, doubt=doubt)


def fold(text: str) -> str:
    """*text* as it is read: folded (``text_fold.folded``), every apostrophe
    one, lower case, spaces single, line breaks kept (they end sentences)."""
    plain = folded_text(text.translate(APOSTROPHES)).translate(APOSTROPHES).casefold()
    plain = _LINE_BREAKS.sub("\n", _SPACES.sub(" ", plain)).strip()
    return _DASHES.sub("\u2014", plain)


def _unmarked(quote: str) -> str:
    """The quote as compared: its own quotation marks and final punctuation
    need not be in the message."""
    return quote.strip().strip(_QUOTE_MARKS).strip().rstrip(".!?,;:")


def _news(message: Message, made_at: float) -> bool:
    return (
        message.role == "user"
        and message.created_at > made_at
        and (message.metadata or {}).get("kind") not in NOT_EVIDENCE_KINDS
    )


def _later(against: str) -> str:
    """A later message's kind as the reason: one that says nothing done is "newer"."""
    return "newer" if against == "unsaid" else against


class _Message:
    """One message, folded and cut into sentences, each read once."""

    def __init__(self, message: Message, task: TaskWords) -> None:
        self.message = message
        self._task = task
        self._text = fold(message.content)
        self._flat = self._text.replace("\n", " ")  # a quote may run over a line break
        ends = [end.end() for end in _SENTENCE_END.finditer(self._text)]
        if not ends or ends[-1] < len(self._text):
            ends.append(len(self._text))
        self._spans = list(zip([0, *ends[:-1]], ends, strict=True))
        self._starts = [start for start, _ in self._spans]
        self._read: list[Sentence] | None = None
        self._held: dict[str, set[int]] = {}

    @property
    def _sentences(self) -> list[Sentence]:
        """Each sentence read, once, when first asked for."""
        if self._read is None:
            known: dict[str, Sentence] = {}  # a paste repeats its lines
            self._read = []
            for start, end in self._spans:
                text = self._text[start:end]
                if text not in known:
                    known[text] = read_sentence(text, self._task)
                self._read.append(known[text])
        return self._read

    @property
    def talks(self) -> bool:
        """It talks about the task: names it, or points back at it with a
        denial, a question or words taken back ("No I didn't.", "Did I?")."""
        return any(
            s.names_task
            or s.cue == "retracted"
            or (s.elliptical and s.points_back and s.cue in ("negated", "question"))
            for s in self._sentences
        )

    def naming(self) -> set[int]:
        """The sentences that name the task."""
        return {i for i, s in enumerate(self._sentences) if s.names_task}

    def holding(self, wanted: str) -> set[int]:
        """The sentences holding *wanted* at word boundaries (none: not here)."""
        if wanted not in self._held:
            self._held[wanted] = self._find(wanted)
        return self._held[wanted]

    def _find(self, wanted: str) -> set[int]:
        found: set[int] = set()
        at = self._flat.find(wanted)
        while at >= 0:
            end = at + len(wanted)
            if _bounded(self._flat, at, end):
                first = bisect.bisect_right(self._starts, at) - 1
                last = bisect.bisect_left(self._starts, end) - 1
                found.update(range(first, max(last, first) + 1))
                # Once a sentence holds it, only a place running past its end adds one.
                at = max(at + 1, self._spans[last][1] - len(wanted) + 1)
            else:
                at += 1
            at = self._flat.find(wanted, at)
        return found

    def verdict(self, focus: set[int]) -> tuple[str, str]:
        """(against, doubt) of this message read for the sentences in *focus*."""
        sentences = self._sentences
        if any(s.cue == "retracted" for s in sentences):
            return "retracted", ""
        hedged = False
        for index, sentence in enumerate(sentences):
            if index in focus or sentence.names_task:
                cue = sentence.cue
            elif sentence.elliptical:  # "No.", "Not yet!", but not "How are you?"
                asking_back = sentence.cue == "question" and sentence.points_back
                cue = sentence.cue if sentence.cue != "question" or asking_back else ""
            else:
                continue
            if cue:
                return cue, ""
            hedged = hedged or sentence.hedged
        saying = [sentences[i] for i in focus if sentences[i].positive]
        if not saying:
            return "unsaid", ""
        if hedged:
            return "", "hedged"
        return ("", "") if any(s.names_task for s in saying) else ("", "unrelated")


def _bounded(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] starts and ends at word boundaries (a hyphen
    inside a word is inside it: "un-locked")."""
    return not (_inside(text, start - 1, text[start]) or _inside(text, end, text[end - 1]))


def _inside(text: str, at: int, edge: str) -> bool:
    """Whether the character at *at* continues the word *edge* ends or begins."""
    if not _wordly(edge) or not 0 <= at < len(text):
        return False
    return _wordly(text[at]) or (text[at] == "-" and _hyphen_joins(text, at))


def _hyphen_joins(text: str, at: int) -> bool:
    return 0 < at < len(text) - 1 and _wordly(text[at - 1]) and _wordly(text[at + 1])


def _wordly(char: str) -> bool:
    return char.isalnum() or char == "_"
