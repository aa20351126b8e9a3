"""``ExcerptRetriever``: what was said in the user's other conversations, recalled for a reply.

The harvest keeps facts; what it missed is still in the messages.  For the
newest user message (and, weighing less, the last reply) the findable
messages of every other conversation (kept, on the record: see
``MessageSearch``) are ranked the way memories are: by their telling words
(FTS5 bm25) and by meaning (the vectors the background indexer made), the
lists fused by reciprocal rank (``retrieval.RRF_K``).  Two steps follow,
each measured on the development benchmarks (``tests/bench/retrieval.py``):

- neighbours: a message's answer is often in the message after it (a
  question and its reply), so each hit lends a share of its score to the
  messages just before and after it (``NEIGHBOUR_SHARE``);
- Reverie's own words: a message of the assistant counts half
  (``OWN_WORDS_WEIGHT``), however it was found: what the user said is
  what the user's life is made of, and Reverie's long replies (advice,
  lists, its own mistakes) otherwise crowd the user's words out; unless
  the message asks what Reverie said (``ASKS_WHAT_REVERIE_SAID``);
- time: a message that names when ("last Friday", "four weeks ago", "on
  13 October 2023": ``named_time.named_period``) ranks the candidates said
  then as one more list, fused like the others (``retrieval.TIMED``);
- diversity, measured and left off (``DIVERSE``): counting the n-th
  excerpt of one conversation 1/n of its score, so ten excerpts are not ten
  lines of one session, loses more than it gains: the evidence of a
  question is mostly in one session, told over several messages.

Excerpts are read again after the searches (a conversation deleted
meanwhile is not recalled) and passed through the redactor, as every text
shown to the model is: a message stored before messages were redacted on
write may not be swept yet.  Of a long message, an excerpt is its beginning
and its end (``SHOWN_CHARS``), each read for secrets on its own.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, tzinfo
from functools import lru_cache

from desktop.core.base.time_zones import local_zone
from desktop.core.db import Database
from desktop.core.db.message_search import Excerpt, MessageSearch
from desktop.core.memory.embedding import Embeddings
from desktop.core.memory.message_index import searched_with
from desktop.core.memory.named_time import named_period
from desktop.core.memory.retrieval import (
    CANDIDATES,
    TIMED,
    Embed,
    fused,
    weighted_queries,
    with_period,
)
from desktop.core.privacy.redaction import Redactor, redact
from models.broker import InferenceBroker

SHOWN_CHARS = 300
"""Of a longer message, an excerpt holds the first and the last this many
characters (cut at a space), each redacted alone, the end read after the
``CONTEXT_CHARS`` before it ("my password is" just before the cut): more
than a prompt (``lines.EXCERPT_CHARS``) or a chip shows.  A pasted megabyte
redacted whole took 20 s at every turn that recalled it, and on the chat
window's thread for every reply shown that was given it."""
CONTEXT_CHARS = 200
EXCERPTS_CACHED = 4096
"""Excerpts kept redacted: a conversation's are read again at every turn (500
given over a long one took 38 s to redact again, each turn), a reply's
chips each time it is shown."""
_OMITTED = " … "
_SPACE = re.compile(r"\s")

NEIGHBOUR_SHARE = 0.25
"""How much of a hit's score its neighbours get.  Chosen with
``OWN_WORDS_WEIGHT`` by cross-validation on both development benchmarks at
once (``python -m tests.bench.retrieval ... --store conversations``;
shares 0, 0.25, 0.5, 0.75 and 1): LoCoMo recall@10 over categories 1-4
and LongMemEval_S recall_all@10 (every second question) summed, the
variant best on all but one part scored on that part.  LoCoMo's short
turns want more (its best alone is 0.5: 0.769, against 0.750 at 0.25),
LongMemEval's user and assistant less (0 and 0.25: 0.927, 0.902 at
0.5); 0.25 is the best of the sum (1.677, 1.672 at 0.5), and held out
LoCoMo 0.745 and LongMemEval 0.902.  Lending each message the sum of its
neighbours' shares instead of the best one, measured before, did worse."""
OWN_WORDS_WEIGHT = 0.5
"""What a message of Reverie's own counts, against the user's: the user's
words say more about the user (the last reply weighs as little among the
queries: ``retrieval.REPLY_WEIGHT``).  Chosen with the neighbours' share by
cross-validation among 0.5, 0.75 and 1 on both development benchmarks at
once (LongMemEval: a user and an assistant; LoCoMo: two people, both stored
as the user's words, so unchanged by it).  LongMemEval_S recall_all@10 at a
share of 0.25: 0.805 at 1, 0.878 at 0.75, 0.927 at 0.5; all@5 0.512, 0.756,
0.829.  Scored with the assistant's turns as evidence too, 0.830 and 0.915,
though one of the 6 questions about what the assistant said is then missed."""
ASKS_WHAT_REVERIE_SAID = re.compile(
    r"\byou\s+(?:said|told|mentioned|recommended|suggested|gave|created|wrote|listed|"
    r"provided|shared|explained|came\s+up\s+with)\b"
    r"|\bdid\s+you\s+(?:say|tell|mention|recommend|suggest|give|create|write|list|"
    r"provide|share|explain|come\s+up\s+with)\b"
    r"|\bour\s+(?:previous|last|earlier)\s+(?:conversation|chat|discussion)",
    re.IGNORECASE,
)
"""A message asking what Reverie said ("you recommended", "in our last
conversation"; English words): Reverie's words then count as much as the
user's.  LongMemEval_S (every second question, the assistant's turns as
evidence too): 5 of its 6 questions about what the assistant said match,
no other (of all 100 development questions: 9 of 11, no other);
recall_all@10 0.915 without, 0.936 with (the one such question
``OWN_WORDS_WEIGHT`` lost is found again)."""
DIVERSE = False
"""Whether the n-th excerpt of a conversation counts 1/n (see the module
docstring).  LoCoMo recall@10 over categories 1-4, in-sample: 0.741 without,
0.581 with (at a share of 0.5); worse with it at every share measured, and
on the LongMemEval_S tenth too (recall_all@10 0.875 without, 0.625 with)."""


@dataclass(frozen=True)
class RecalledExcerpt:
    excerpt: Excerpt
    score: float
    """Higher is better."""


class ExcerptRetriever:
    """Ranks past messages of *search* for a reply; *embed* makes the query
    vectors (None: by words alone); *redactor* takes secrets out of what is
    recalled."""

    def __init__(
        self,
        search: MessageSearch,
        embed: Embed | None,
        *,
        redactor: Redactor | None = None,
        neighbour_share: float = NEIGHBOUR_SHARE,
        own_words_weight: float = OWN_WORDS_WEIGHT,
        diverse: bool = DIVERSE,
        timed: bool = TIMED,
        clock: Callable[[], float] = time.time,
        zone: Callable[[], tzinfo] = local_zone,
    ) -> None:
        self._search = search
        self._embed = embed
        self._redactor = redactor
        self._neighbour_share = neighbour_share
        self._own_words_weight = own_words_weight
        self._diverse = diverse
        self._timed = timed
        self._clock = clock
        self._zone = zone

    @classmethod
    def over(
        cls,
        database: Database,
        broker: InferenceBroker | None,
        redactor: Redactor,
        zone: Callable[[], tzinfo] = local_zone,
    ) -> ExcerptRetriever:
        """The retriever of *database*'s past messages for a chat turn: its
        query is embedded through *broker* ahead of background work (None:
        by words alone), its excerpts redacted by *redactor*, the times its
        messages name read in *zone*."""
        if broker is None:
            return cls(MessageSearch(database), None, redactor=redactor, zone=zone)
        # Searches compare only the vectors of the embedding model in use.
        embeddings = Embeddings(broker)
        search = searched_with(database, embeddings)
        return cls(search, embeddings.queries, redactor=redactor, zone=zone)

    def retrieve(
        self, message: str, last_reply: str = "", *, k: int = 10, other_than: int | None = None
    ) -> list[RecalledExcerpt]:
        """The *k* excerpts most relevant to *message* (and, less, to
        *last_reply*), best first, never from conversation *other_than* (the
        one being replied in)."""
        scores = self._fused(message, last_reply, other_than)
        if not scores or k < 1:
            return []
        if self._neighbour_share:
            scores = self._with_neighbours(scores)
        found = self._search.excerpts(sorted(scores))
        own = 1.0 if ASKS_WHAT_REVERIE_SAID.search(message) else self._own_words_weight
        scores = {
            i: score * (own if found[i].role == "assistant" else 1.0)
            for i, score in scores.items()
            if i in found
        }
        if self._timed:
            now = datetime.fromtimestamp(self._clock(), self._zone())
            if (period := named_period(message, now)) is not None:
                said = {i: (e.created_at, e.created_at) for i, e in found.items()}
                scores = with_period(scores, said, period)
        ranked_excerpts = sorted(
            (RecalledExcerpt(excerpt, scores[i]) for i, excerpt in found.items()),
            key=lambda r: (-r.score, r.excerpt.message_id),
        )
        if self._diverse:
            ranked_excerpts = diversified(ranked_excerpts)
        return [self._redacted(r) for r in ranked_excerpts[:k]]

    def by_id(self, message_ids: Sequence[int], *, for_model: bool = True) -> dict[int, Excerpt]:
        """The findable messages among *message_ids*, by id, redacted: read
        for secrets by every rule when they are for a model; for the user's
        eyes (a reply's chips) only the secrets named since are taken out,
        as the conversation a chip opens shows the message as it is stored.
        Reading a chip's ends by every rule took 10-30 ms each, on the
        window's thread: seconds to open a long conversation."""
        found = self._search.excerpts(sorted(set(message_ids)))
        return {
            i: self._redacted(RecalledExcerpt(e, 0.0), by_rules=for_model).excerpt
            for i, e in found.items()
        }

    def _fused(self, message: str, last_reply: str, other_than: int | None) -> dict[int, float]:
        queries = weighted_queries(message, last_reply)
        if not queries:
            return {}
        search = self._search
        rankings = [(w, search.rank_by_words(t, CANDIDATES, other_than)) for t, w in queries]
        vectors = None if self._embed is None else self._embed([t for t, _ in queries])
        if vectors is not None:
            rankings += [
                (w, search.rank_by_meaning(v, CANDIDATES, other_than))
                for (_, w), v in zip(queries, vectors, strict=True)
            ]
        return fused(rankings)

    def _with_neighbours(self, scores: dict[int, float]) -> dict[int, float]:
        """*scores*, each message also given ``neighbour_share`` of the
        score of its best-scored neighbour among them."""
        lent: dict[int, float] = defaultdict(float)
        for message_id, around in self._search.neighbours(sorted(scores)).items():
            for neighbour in around:
                share = self._neighbour_share * scores[message_id]
                lent[neighbour] = max(lent[neighbour], share)
        return {i: scores.get(i, 0.0) + lent.get(i, 0.0) for i in scores.keys() | lent.keys()}

    def _redacted(self, recalled: RecalledExcerpt, *, by_rules: bool = True) -> RecalledExcerpt:
        """*recalled* as shown: a long message by its ends, secrets out (the
        ones named this run only, unless *by_rules*)."""
        excerpt = recalled.excerpt
        text, title = excerpt.content, excerpt.conversation_title
        cut = _cut(text)
        head, tail = (text, "") if cut is None else (text[: cut[0]], text[cut[1] :])
        if (redactor := self._redactor) is not None:
            if by_rules:
                before = "" if cut is None else text[max(0, cut[1] - CONTEXT_CHARS) : cut[1]]
                head, tail = _without_secrets(head, ""), _without_secrets(tail, before)
                title = _without_secrets(title, "")
            # The secrets this run caught are taken out of what was redacted before.
            head, tail, title = redactor.known(head), redactor.known(tail), redactor.known(title)
        content = head if cut is None else head + _OMITTED + tail
        shown = replace(excerpt, conversation_title=title, content=content)
        return RecalledExcerpt(shown, recalled.score)


@lru_cache(maxsize=EXCERPTS_CACHED)
def _without_secrets(text: str, before: str) -> str:
    """*text* with its secrets taken out, read after *before*."""
    return redact(text, after=[before]).text


def _cut(text: str) -> tuple[int, int] | None:
    """Where the beginning of a long *text* ends and its end starts, at a
    space or a line break (no word halved, unless one is too long to end at
    one); None when *text* is short enough to show whole."""
    if len(text) <= 2 * SHOWN_CHARS + len(_OMITTED):
        return None
    spaces = [m.start() for m in _SPACE.finditer(text, SHOWN_CHARS // 2, SHOWN_CHARS + 1)]
    start = len(text) - SHOWN_CHARS - 1
    after = _SPACE.search(text, start, len(text) - SHOWN_CHARS // 2)
    return (spaces[-1] if spaces else SHOWN_CHARS), (start + 1 if after is None else after.end())


def diversified(ranking: list[RecalledExcerpt]) -> list[RecalledExcerpt]:
    """*ranking* (best first) with the n-th excerpt of each conversation
    counting 1/n of its score: no constant to tune, and a conversation that
    matches far better than any other still fills the list."""
    seen: dict[int, int] = defaultdict(int)
    discounted: list[tuple[float, int, RecalledExcerpt]] = []
    for position, recalled in enumerate(ranking):
        seen[recalled.excerpt.conversation_id] += 1
        score = recalled.score / seen[recalled.excerpt.conversation_id]
        discounted.append((score, position, recalled))
    discounted.sort(key=lambda item: (-item[0], item[1]))
    return [RecalledExcerpt(r.excerpt, score) for score, _, r in discounted]
