"""``MemoryService``: the one way memories are written, changed and searched.

Every write, whoever makes it (``/remember``, the model's ``append_memory``
tool, the harvest, an edit in the memory browser), goes through the write
gate and then write-time deduplication: the same text (by hash) or a
near-duplicate (high cosine, same names, numbers and negations) reinforces
the memory already there instead of adding a row.  A memory the user deleted
is not learned again from conversation.  Every change lands in the store in
one transaction with its history row.  A write is decided first (``plan``:
the gate, the embedding, the category, all that may wait on a model) and
stored after (``writing``), so a caller can store many in one transaction
with writes of its own (a harvest's facts and its watermark).
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import tzinfo
from typing import Any, Literal, TypeVar

import numpy as np
import numpy.typing as npt

from desktop.core.base.content_words import denies
from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.scripts import has_unspaced, words_of
from desktop.core.base.text_fold import folded, normalised
from desktop.core.base.time_zones import local_zone
from desktop.core.db import (
    MAX_K,
    Database,
    Memory,
    MemoryQuery,
    MemoryStatus,
    MemoryStore,
    Message,
    NewMemory,
    SourceKind,
    Transaction,
)
from desktop.core.db import content_hash as hash_of
from desktop.core.db.memory_writes import MemoryWrites, NoLongerActive, checked_blob
from desktop.core.memory.category import CategoryGuesser
from desktop.core.memory.category import MemoryCategory as MemoryCategory  # its old home
from desktop.core.memory.embedding import Embeddings, Labelled, Vectors
from desktop.core.memory.gate import REDACTED, GatedText, MemoryRefused, WriteGate
from desktop.core.memory.retrieval import RRF_K, MemoryRetriever
from desktop.core.privacy.redaction import Redactor, taken_out, without
from models.broker import InferenceBroker, Priority

DUPLICATE_SIMILARITY = 0.9
"""Cosine similarity from which two memories with the same specifics are one."""
TOPIC_SIMILARITY = 0.45
"""Cosine similarity from which a memory is "about" a topic to forget."""
_NEIGHBOURS = 5
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'-]*", re.MULTILINE)
_STOP = frozenset(
    str.split(
        "the and for are was were has have had with that this they them their user his "
        "her she him you your about from into also very really does did who which been"
    )
)

_Item = TypeVar("_Item")
Saying = tuple[str, npt.NDArray[np.floating[Any]] | None]
"""A memory about to be written, as ``one_each`` compares it: its text and
its vector (one row; None when there is none)."""

Outcome = Literal["added", "reinforced", "known"]
"""``known``: already remembered from the very sources named, so not counted again."""


@dataclass(frozen=True)
class Remembered:
    outcome: Outcome
    memory: Memory
    redactions: tuple[str, ...] = ()
    """Kinds of secrets taken out of the text before it was stored."""
    source: Message | None = None
    """The message asking for it (``/remember`` typed in a conversation), as stored."""

    def describe(self) -> str:
        """What happened, in a sentence for the user."""
        memory = self.memory
        said = (
            f"Remembered (#{memory.id}): {memory.content}"
            if self.outcome == "added"
            else f"Already remembered (#{memory.id}, seen {memory.reinforcement_count} times): "
            f"{memory.content}"
        )
        if note := self.redaction_note():
            said += f"\n{note}"
        return said

    def redaction_note(self) -> str:
        """Which kinds of secrets were taken out, in a sentence ("" if none)."""
        if not self.redactions:
            return ""
        kinds = ", ".join(sorted(set(self.redactions)))
        return f"Secrets are never stored: the {kinds} was taken out."


@dataclass(frozen=True)
class PlannedMemory:
    """A memory write decided outside any transaction (``MemoryService.plan``)."""

    text: str
    """As the write gate lets it be stored."""
    source_kind: SourceKind
    category: str
    importance: float
    message_ids: tuple[int, ...]
    flags: tuple[str, ...]
    redactions: tuple[str, ...]
    vector: Vectors | None
    """Its vector, one row (None: no embedder was loaded, or it was found by its text)."""
    embedding_model: str | None

    @property
    def explicit(self) -> bool:
        """Said by the user themselves: it may bring back what they deleted."""
        return self.source_kind == "user_explicit"

    @property
    def saying(self) -> Saying:
        """What ``one_each`` compares."""
        return self.text, None if self.vector is None else self.vector[0]

    def joined(self, repeat: PlannedMemory) -> PlannedMemory:
        """This write standing for *repeat* too (``one_each``): the messages
        of both, the flags and redactions of either."""
        return replace(
            self,
            message_ids=tuple(sorted({*self.message_ids, *repeat.message_ids})),
            flags=tuple(dict.fromkeys((*self.flags, *repeat.flags))),
            redactions=tuple(dict.fromkeys((*self.redactions, *repeat.redactions))),
        )


class MemoryBatch:
    """The memory writes of one transaction (``MemoryService.writing``).

    A memory this batch already added or reinforced is not counted again
    when another planned write says the same: one harvest that names a fact
    twice saw it once.
    """

    def __init__(self, service: MemoryService, writes: MemoryWrites) -> None:
        self._service = service
        self.writes = writes
        self._outcomes: dict[int, Outcome] = {}

    @property
    def transaction(self) -> Transaction:
        """The open transaction, for other stores' writes that commit with these."""
        return self.writes.transaction

    def write(self, planned: PlannedMemory, *, may_add: bool = True) -> Remembered:
        """Store *planned*, or reinforce the memory that says it by now;
        ``MemoryRefused`` (nothing written) if the user deleted one like it
        since it was planned, or if it is new and not *may_add* (a memory
        was erased for good meanwhile: it may be this one)."""
        planned = self._service.as_now(planned)
        known = self._service._already(planned.text, planned.vector, planned.explicit)
        if known is not None:
            outcome = self._outcomes.get(known.id)
            if outcome is None:
                counted = self.writes.reinforce(known.id, planned.message_ids)
                outcome = "reinforced" if counted else "known"
                if counted:
                    self._outcomes[known.id] = outcome
            else:
                self.writes.add_sources(known.id, planned.message_ids, ())
            return Remembered(outcome, self.writes.current(known.id), planned.redactions)
        if not may_add:
            raise MemoryRefused(
                "A memory was erased for good while this was read; it may be this one, so it"
                " is not learned again."
            )
        item = NewMemory(
            planned.text,
            None if planned.vector is None else planned.vector[0],
            planned.source_kind,
            category=planned.category,
            importance=planned.importance,
            source_message_ids=planned.message_ids,
            embedding_model=planned.embedding_model,
            flags=planned.flags,
        )
        memory_id = self.writes.add(item, checked_blob(item))
        self._outcomes[memory_id] = "added"
        return Remembered("added", self.writes.current(memory_id), planned.redactions)


class MemoryService:
    def __init__(
        self,
        store: MemoryStore,
        embeddings: Embeddings | None,
        gate: WriteGate,
        categories: CategoryGuesser | None = None,
        zone: Callable[[], tzinfo] = local_zone,
    ) -> None:
        self.store = store
        self._embeddings = embeddings
        self._gate = gate
        self._categories = categories or CategoryGuesser(
            lambda texts: self.embed(texts, Priority.USER)  # once, for the first /remember
        )
        self._adding = threading.Lock()
        self.retriever = MemoryRetriever(
            store, None if embeddings is None else embeddings.queries, zone=zone
        )
        """For a chat turn: its query is embedded ahead of background work."""
        self.background_retriever = MemoryRetriever(
            store, None if embeddings is None else self._background_queries, zone=zone
        )
        """For background work (harvest, routines): it waits behind the chat."""
        self._taken_out: tuple[Callable[[], None], ...] = ()

    def when_taken_out(self, action: Callable[[], None]) -> None:
        """Call *action* after each ``take_out`` that changed a memory, once
        committed: a file written from the memories (``MEMORIES.md``, which
        the composition root ties here; the memories know no files) must
        not keep the value either."""
        self._taken_out = (*self._taken_out, action)

    @classmethod
    def over(
        cls,
        database: Database,
        broker: InferenceBroker | None,
        prompts: PromptLibrary,
        redactor: Redactor | None = None,
        zone: Callable[[], tzinfo] = local_zone,
    ) -> MemoryService:
        """The service for *database*'s memories, embedding through *broker*
        (None: found by words only), refusing echoes of *prompts*, taking
        secrets out with *redactor*, reading the times a message names in
        *zone*."""
        gate = WriteGate.for_prompts(prompts, redactor)
        if broker is None:
            return cls(MemoryStore(database), None, gate, zone=zone)
        # Searches compare only the vectors of the embedding model in use.
        embeddings = Embeddings(broker)
        store = MemoryStore(
            database,
            embedding_model=lambda: broker.embedder_name,
            vector_length=embeddings.vector_length,
        )
        return cls(store, embeddings, gate, zone=zone)

    # -- writing -------------------------------------------------------------
    def take_out(self, values: Sequence[str], tx: Transaction) -> list[int]:
        """Take *values*, secrets named after a memory was made of them
        ("when the NAS asks, type X", then "X is my NAS password"), out of
        every memory and its history, in *tx* (see
        ``MemoryStore.rewrite_holding``, which owes what was written from
        them in *tx* too), then from what was written from them once *tx*
        committed (``when_taken_out``); the ids of the memories changed."""
        changed = self.store.rewrite_holding(values, lambda text: without(text, values), tx)
        for action in self._taken_out if changed else ():
            tx.after_commit(action)
        return changed

    def remember(
        self,
        text: str,
        *,
        source_kind: SourceKind,
        actor: str,
        category: str | None = "general",
        importance: float = 0.5,
        message_ids: Iterable[int] = (),
        priority: Priority = Priority.USER,
    ) -> Remembered:
        """Store *text* (or reinforce what is already known); ``MemoryRefused``
        says why not.  A new memory with no *category* (None) is filed under
        the one its words and meaning suggest."""
        planned = self.plan(
            text,
            source_kind=source_kind,
            category=category,
            importance=importance,
            message_ids=message_ids,
            priority=priority,
        )
        with self.writing(actor) as batch:
            return batch.write(planned)

    def plan(
        self,
        text: str,
        *,
        source_kind: SourceKind,
        category: str | None = "general",
        importance: float = 0.5,
        message_ids: Iterable[int] = (),
        priority: Priority = Priority.USER,
    ) -> PlannedMemory:
        """Decide how *text* would be stored, without writing: the gate's
        verdict (``MemoryRefused``), its vector and its category, everything
        that may wait on a model.  ``writing()`` stores it."""
        gated = self._gate.check(text)
        explicit = source_kind == "user_explicit"
        known, made = self._lookup(gated.text, explicit, priority)
        vector, model = (None, None) if made is None else (made.vectors, made.model)
        if category is None:
            category = "other" if known else self._categories.guess(gated.text, vector, model)
        return PlannedMemory(
            gated.text,
            source_kind,
            category,
            importance,
            tuple(message_ids),
            tuple(gated.flags),
            tuple(gated.redactions),
            vector,
            model,
        )

    def holds_named_secret(self, text: str) -> bool:
        """Whether *text* holds a secret named this run: drafted before it
        was named (a dream's merge), it must not be stored."""
        return self.without_named_secrets(text) != text

    def without_named_secrets(self, text: str) -> str:
        """*text* without the secrets named this run (``Redactor.known``)."""
        return self._gate.without_named(text)

    def redacted(self, text: str) -> str:
        """*text* (a model's answer, kept to resume with) as any text stored:
        every secret in it taken out (``WriteGate.redacted``)."""
        return self._gate.redacted(text)

    def as_now(self, planned: PlannedMemory) -> PlannedMemory:
        """*planned* without the secrets named since it was planned (while
        its model answered or its vector was made), read inside the write's
        transaction: the sweep of the message that named one ran before, or
        runs after and finds it.  Its vector, made of the old text, goes too
        (the memory upkeep makes one of the new)."""
        again = self._gate.named_since(planned.text)
        if again is None:
            return planned
        taken = taken_out(planned.text, again.text) or ("password",)
        return replace(
            planned,
            text=again.text,
            flags=tuple(dict.fromkeys((*planned.flags, REDACTED, *again.flags))),
            redactions=(*planned.redactions, *taken),
            vector=None,
            embedding_model=None,
        )

    @contextmanager
    def writing(self, actor: str) -> Iterator[MemoryBatch]:
        """Planned memories written by *actor* in one transaction: all of
        them (and whatever else is written in ``batch.transaction``) or, if
        anything raises, none.  Never plan inside it: planning runs models."""
        # Under the lock, two writers that both found nothing (a harvest, a
        # tool) store a fact once: the second sees the first's row.
        with self._adding, self.store.writing(actor) as writes:
            yield MemoryBatch(self, writes)

    def known_as(self, text: str, priority: Priority = Priority.BACKGROUND) -> Memory | None:
        """The active memory that already says *text* (the same text or a
        near duplicate), if any; ``MemoryRefused`` if the user deleted one
        like it.  Nothing is written."""
        return self._lookup(text, False, priority)[0]

    def _lookup(
        self, text: str, explicit: bool, priority: Priority
    ) -> tuple[Memory | None, Labelled | None]:
        """The active memory saying *text*, and *text*'s vector if it was needed.

        What the user deleted is not learned again from conversation (only
        when they say it again themselves, *explicit*)."""
        known = self._already(text, None, explicit)
        made = None
        if known is None:
            made = self.embed_labelled([text], priority)
            if made is not None:
                known = self._already(text, made.vectors, explicit)
        return known, made

    def _already(self, text: str, vector: Vectors | None, explicit: bool) -> Memory | None:
        """The active memory with *text*, or (given its *vector*) one close to
        it; ``MemoryRefused`` for one the user deleted, unless *explicit*."""
        same_text = self.store.find_by_hash(hash_of(text), status=None)
        known = next((m for m in same_text if m.status == "active"), None)
        if known is None and not explicit and any(m.status == "deleted" for m in same_text):
            raise MemoryRefused("You deleted this memory before; it is not learned again.")
        if known is None and vector is not None:
            known = self._near_duplicate(text, vector[0], "active")
            if not explicit and self._near_duplicate(text, vector[0], "deleted"):
                raise MemoryRefused("You deleted a memory like this; it is not learned again.")
        return known

    def edit(self, memory_id: int, text: str, *, expected: str) -> Remembered:
        """The user rewrote a memory that read *expected* when they started.

        Re-embedded and re-checked by the gate; ``EditConflict`` if someone
        else (a harvest, a dream) changed it meanwhile, ``MemoryRefused``
        naming what happened if it was merged, archived or deleted meanwhile.
        """
        gated: GatedText = self._gate.check(text)
        made = self.embed_labelled([gated.text], Priority.USER)
        try:
            memory = self.store.update_content(
                memory_id,
                gated.text,
                None if made is None else made.vectors[0],
                "user",
                embedding_model=None if made is None else made.model,
                expected_content=expected,
                flags=gated.flags,
            )
        except NoLongerActive as error:  # the browser shows a refusal as "Not saved: ..."
            raise MemoryRefused(str(error)) from error
        return Remembered("added", memory, gated.redactions)

    def set_status(self, memory_ids: Iterable[int], status: MemoryStatus) -> list[Memory]:
        """Archive, delete (both restorable) or restore memories, as the user."""
        return [self.store.set_status(i, status, "user") for i in memory_ids]

    def set_pinned(self, memory_ids: Iterable[int], pinned: bool) -> list[Memory]:
        return [self.store.set_pinned(i, pinned, "user") for i in memory_ids]

    def vectors_owed(self) -> int:
        """How many memories wait for a vector of the embedding model in
        use (``embed_missing``), the model asked its vectors' length first:
        a server swapped for a model of another size is found now."""
        if self._embeddings is not None:
            self._embeddings.asked_length()
        return self.store.count_without_vectors()

    def embed_missing(self, batch: int = 32) -> int:
        """Give vectors to memories stored without one of the embedding model
        in use (stored while there was none, or embedded by the model used
        before), in the background.  How many got one; 0 when there is no
        embedder."""
        if self._embeddings is not None:
            self._embeddings.asked_length()  # another model's size under its name needs them too
        done = 0
        while pending := self.store.without_vectors(batch):
            made = self.embed_labelled([m.content for m in pending], Priority.BACKGROUND)
            if made is None:
                break
            done += sum(
                self.store.set_vector(m.id, m.content, v, made.model)
                for m, v in zip(pending, made.vectors, strict=True)
            )
            if len(pending) < batch:
                break
        return done

    # -- reading -------------------------------------------------------------
    def browse(self, query: MemoryQuery) -> list[Memory]:
        """The memory browser's list: by *query*'s filters and order or, when
        it has search text, the memories matching it best first."""
        if not query.text.strip():
            return self.store.browse(query)
        found = self._matching(query.text, query.statuses, query.limit)
        if not found:
            return []
        ids = tuple(m.id for m in found)
        kept = {m.id for m in self.store.browse(_filters_only(query, ids))}
        return [m for m in found if m.id in kept]

    def about(self, topic: str, limit: int = 200) -> list[Memory]:
        """Memories about *topic*: its words or close in meaning.  The
        preview of "forget everything about <topic>"; nothing is changed.
        Archived and superseded ones too (still stored, exported, restorable);
        not those deleted already, on their way out."""
        return self._matching(topic, ("active", "archived", "superseded"), limit)

    def _matching(self, text: str, statuses: Sequence[MemoryStatus], limit: int) -> list[Memory]:
        """Memories with any word of *text* or close to it in meaning, fused
        by reciprocal rank; unlike the chat's retrieval, a memory merely
        nearest to an unrelated text is not a match."""
        by_words = self.store.browse(
            MemoryQuery(text=text, statuses=tuple(statuses), sort="relevance", limit=limit)
        )
        by_meaning: list[Memory] = []
        vector = self.embed([text], Priority.USER, query=True)
        if vector is not None:
            status = statuses[0] if len(statuses) == 1 else None
            hits = self.store.search_vector(vector[0], min(limit, MAX_K), status=status)
            by_meaning = [
                hit.memory
                for hit in hits
                if 1.0 - hit.score >= TOPIC_SIMILARITY
                and (not statuses or hit.memory.status in statuses)
            ]
        scores: dict[int, float] = defaultdict(float)
        found: dict[int, Memory] = {}
        for ranking in (by_words, by_meaning):
            for rank, memory in enumerate(ranking, start=1):
                scores[memory.id] += 1.0 / (RRF_K + rank)
                found[memory.id] = memory
        return sorted(found.values(), key=lambda m: (-scores[m.id], -m.id))[:limit]

    def vet(self, text: str) -> GatedText:
        """*text* as the write gate lets it be stored (``MemoryRefused`` if not at all)."""
        return self._gate.check(text)

    def embed(
        self, texts: Sequence[str], priority: Priority = Priority.BACKGROUND, *, query: bool = False
    ) -> Vectors | None:
        """Unit vectors of *texts* (to be found, or to search with if
        *query*), or None when no embedder is loaded."""
        if self._embeddings is None:
            return None
        return self._embeddings(texts, priority, query=query)

    def embed_labelled(
        self, texts: Sequence[str], priority: Priority = Priority.BACKGROUND, *, query: bool = False
    ) -> Labelled | None:
        """``embed``, with the name of the model that made the vectors: what
        they are stored under (the model in use may change meanwhile)."""
        if self._embeddings is None:
            return None
        return self._embeddings.labelled(texts, priority, query=query)

    def _background_queries(self, texts: Sequence[str]) -> Vectors | None:
        return self.embed(texts, Priority.BACKGROUND, query=True)

    @property
    def embedding_model(self) -> str | None:
        return None if self._embeddings is None else self._embeddings.model_name

    # -- helpers -------------------------------------------------------------
    def _near_duplicate(self, text: str, vector: Vectors, status: MemoryStatus) -> Memory | None:
        for hit in self.store.search_vector(vector, _NEIGHBOURS, status=status):
            if 1.0 - hit.score >= DUPLICATE_SIMILARITY and _same_fact(hit.memory.content, text):
                return hit.memory
        return None


def _same_fact(first: str, second: str) -> bool:
    """Do two sentences close in meaning say the same thing?  Embeddings put
    "likes green tea" next to "likes black tea" and "lives in Rome" next to
    "lives in Oslo", so the words of one must all be in the other, with the
    same numbers, names and negation."""
    a, b = _specifics(first), _specifics(second)
    return a[:3] == b[:3] and (a[3] <= b[3] or b[3] <= a[3])


def lost_specifics(sources: Sequence[str], merged: str) -> list[str]:
    """The numbers and names (dates are both) of *sources* that *merged* lacks."""
    numbers, names, _, _ = _specifics(merged)
    lost: list[str] = []
    for source in sources:
        their_numbers, their_names, _, _ = _specifics(source)
        lost += sorted((their_numbers - numbers) | (their_names - names))
    return list(dict.fromkeys(lost))


def one_each(
    items: Iterable[_Item],
    saying: Callable[[_Item], Saying],
    joined: Callable[[_Item, _Item], _Item],
) -> list[_Item]:
    """*items*, the memories one model answer would write (a harvest's
    facts, a dream's preferences), with each fact once.  A small model
    names one twice: the same words, or another case, spacing, final stop,
    an invisible character, a word more ("a lot", "any").  Two memories
    read from one message would then merge in the next dream as "seen 2
    times".  A repeat is *joined* to the first item saying it, in order.

    Two items say one fact when they read the same (case, spacing, unseen
    characters and the final stop aside), or when (given both vectors)
    write-time deduplication would find one a near duplicate of the other:
    as close, with the same numbers, names and negation, and the words of
    one all in the other ("likes green tea" and "likes black tea" are two)."""
    kept: list[_Item] = []
    for item in items:
        said = saying(item)
        twin = next((i for i, first in enumerate(kept) if _same(saying(first), said)), None)
        if twin is None:
            kept.append(item)
        else:
            kept[twin] = joined(kept[twin], item)
    return kept


def _same(first: Saying, second: Saying) -> bool:
    (a, va), (b, vb) = first, second
    if _as_read(a) == _as_read(b):
        return True
    if va is None or vb is None:
        return False
    cosine = float(np.dot(va, vb) / ((np.linalg.norm(va) * np.linalg.norm(vb)) or 1.0))
    return cosine >= DUPLICATE_SIMILARITY and _same_fact(a, b)


def _as_read(text: str) -> str:
    return normalised(folded(text)[0]).rstrip(".!? ")


def merge_problem(duplicates: Sequence[str], merged: str) -> str | None:
    """Why *merged* cannot stand for *duplicates*, memories saying one thing
    (None: it can).  It must keep their names and numbers, deny what they
    deny, say at least all that the fullest of them says and add no word
    none of them has: a small model's merge drifts ("does not drink green
    tea" for "drinks green tea, never coffee") or thins ("a nurse at St
    Mary's" for "a nurse at St Mary's hospital")."""
    lost = lost_specifics(duplicates, merged)
    if lost:
        return f"it dropped {', '.join(lost)}"
    theirs = [_specifics(text) for text in duplicates]
    if len({denies for _, _, denies, _ in theirs}) > 1:
        return "they disagree: one denies what another says"
    _, _, denies, words = _specifics(merged)
    if denies != theirs[0][2]:
        return "it says the opposite"
    their_words = [specifics[3] for specifics in theirs]
    added = words.difference(*their_words)
    if added:
        return f"it added {', '.join(sorted(added))}"
    fullest = max(map(len, their_words))
    left_out: frozenset[str] = min(
        (said - words for said in their_words if len(said) == fullest), key=len
    )
    return f"it left out {', '.join(sorted(left_out))}" if left_out else None


def _specifics(text: str) -> tuple[frozenset[str], frozenset[str], bool, frozenset[str]]:
    """Numbers, names, whether it denies something, and its content words
    (of three letters or more; a pair of an unspaced script's letters)."""
    numbers = frozenset(_NUMBER.findall(text))
    names = frozenset(n.casefold() for n in _NAME.findall(text)) - {"i"}
    words = frozenset(
        w.removesuffix("s")
        for w in words_of(text.casefold())
        if (len(w) >= 3 or has_unspaced(w)) and w not in _STOP
    )
    return numbers, names, denies(text), words


def _filters_only(query: MemoryQuery, ids: tuple[int, ...]) -> MemoryQuery:
    return MemoryQuery(
        statuses=query.statuses,
        categories=query.categories,
        source_kinds=query.source_kinds,
        pinned=query.pinned,
        ids=ids,
        limit=len(ids),
    )
