"""``tests.bench.retrieval --store conversations``: recall through past conversations.

Each benchmark session becomes a conversation of a fresh database, through
``ConversationStore`` as a chat stores it: its messages dated with the
session's date (a clock set to it), each message's text as the product
would show it ("Caroline: ..."; a shared photo as its caption).  LoCoMo's
two speakers are both people, and both are stored as the user: stored as
Reverie, the second one's words would count as Reverie's own
(``excerpts.OWN_WORDS_WEIGHT``), and half of LoCoMo's questions would ask
what Reverie lived through.  LongMemEval's sessions keep their roles (a
user and an assistant).  The product's own
background indexer (``MessageIndexer.index_missing``, run here at once)
embeds the messages, and each question is asked through
``ExcerptRetriever`` with no current conversation.  Message ids are mapped
back to the benchmark's turn ids by the benchmark alone.

Every variant of the retriever's tuned steps (``VARIANTS``) is asked each
question, so the constants can be chosen by cross-validation
(``tests.bench.cross_validation``) from one indexing pass.  Vectors are
cached by text hash in a file outside the repository, so a second run
embeds nothing it embedded before.
"""

from __future__ import annotations

import hashlib
import pickle
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from desktop.core.db import ConversationStore, MessageRole, open_database
from desktop.core.db.message_search import MessageSearch
from desktop.core.memory.embedding import Labelled
from desktop.core.memory.excerpts import ExcerptRetriever
from desktop.core.memory.message_index import MessageIndexer

Vectors = npt.NDArray[np.float32]
EMBED_BATCH = 64
TOP_K = 50
SAVE_EVERY = 2000


@dataclass(frozen=True)
class Variant:
    neighbour_share: float
    own_words_weight: float
    diverse: bool
    timed: bool

    @property
    def name(self) -> str:
        return (
            f"share={self.neighbour_share:g},own={self.own_words_weight:g},"
            f"diverse={int(self.diverse)},timed={int(self.timed)}"
        )


VARIANTS = tuple(
    Variant(share, own, diverse, timed)
    for share in (0.0, 0.25, 0.5, 0.75, 1.0)
    for own in (0.5, 0.75, 1.0)
    for diverse in (False, True)
    for timed in (False, True)
)


@dataclass(frozen=True)
class Turn:
    outside_id: str
    role: MessageRole
    text: str


@dataclass(frozen=True)
class Session:
    date: float
    turns: Sequence[Turn]


class CachedEmbedder:
    """*embed* with its vectors kept by text hash in *path* (if given)."""

    def __init__(self, embed: Callable[[Sequence[str]], Vectors], path: Path | None) -> None:
        self._embed = embed
        self._path = path
        self._vectors: dict[bytes, Vectors] = {}
        if path is not None and path.exists():
            with path.open("rb") as stream:
                self._vectors = pickle.load(stream)  # our own cache file
        self.embedded = 0
        self.seconds = 0.0
        self._unsaved = 0

    def __call__(self, texts: Sequence[str]) -> Vectors:
        keys = [hashlib.sha1(text.encode()).digest() for text in texts]
        missing = sorted({i for i, key in enumerate(keys) if key not in self._vectors})
        started = time.perf_counter()
        for start in range(0, len(missing), EMBED_BATCH):
            chunk = missing[start : start + EMBED_BATCH]
            for i, vector in zip(chunk, self._embed([texts[i] for i in chunk]), strict=True):
                self._vectors[keys[i]] = np.asarray(vector, np.float32)
        self.seconds += time.perf_counter() - started
        self.embedded += len(missing)
        self._unsaved += len(missing)
        if self._unsaved >= SAVE_EVERY:  # a run stopped halfway keeps most of its work
            self.save()
        return np.stack([self._vectors[key] for key in keys])

    def save(self) -> None:
        self._unsaved = 0
        if self._path is not None:
            with self._path.open("wb") as stream:
                pickle.dump(self._vectors, stream)


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def ranked_by_variant(
    embed: CachedEmbedder,
    sessions: Sequence[Session],
    questions: Sequence[tuple[str, str, float]],
    variants: Sequence[Variant],
    timings: dict[str, float],
) -> Iterator[tuple[str, dict[str, list[str]]]]:
    """Store *sessions* as conversations of a fresh database, index them,
    and ask each of *questions* (key, text, when it is asked: what "last
    week" is read from) with each variant; yields
    (key, {variant name: outside ids best first})."""
    with tempfile.TemporaryDirectory() as folder:
        database = open_database(Path(folder) / "bench.sqlite3")
        try:
            clock = _Clock()
            store = ConversationStore(database, clock=clock)
            outside: dict[int, str] = {}
            started = time.perf_counter()
            for session in sessions:
                clock.now = session.date
                conversation = store.create("")
                for turn in session.turns:
                    clock.now += 1.0  # in order within the session
                    message = store.add_message(conversation.id, turn.role, turn.text)
                    outside[message.id] = turn.outside_id
            stored = time.perf_counter()
            search = MessageSearch(database, embedding_model=lambda: "default")
            indexed = MessageIndexer(
                search, lambda texts: Labelled(embed(texts), "default")
            ).index_missing(batch=EMBED_BATCH)
            timings["store_seconds"] += stored - started
            timings["index_seconds"] += time.perf_counter() - stored
            timings["messages"] += indexed
            retrievers = {
                v.name: ExcerptRetriever(
                    search,
                    embed,
                    neighbour_share=v.neighbour_share,
                    own_words_weight=v.own_words_weight,
                    diverse=v.diverse,
                    timed=v.timed,
                    clock=clock,
                    zone=lambda: UTC,
                )
                for v in variants
            }
            for key, question, asked_at in questions:
                clock.now = asked_at
                rankings: dict[str, list[str]] = {}
                for name, retriever in retrievers.items():
                    asked = time.perf_counter()
                    found = retriever.retrieve(question, k=TOP_K)
                    timings["query_seconds"] += time.perf_counter() - asked
                    timings["queries"] += 1
                    rankings[name] = [outside[r.excerpt.message_id] for r in found]
                yield key, rankings
        finally:
            database.close()


def locomo_sessions(sample: dict[str, Any]) -> list[Session]:
    conversation = sample["conversation"]
    sessions: list[Session] = []
    number = 1
    while f"session_{number}" in conversation:
        date = (
            datetime.strptime(conversation[f"session_{number}_date_time"], "%I:%M %p on %d %B, %Y")
            .replace(tzinfo=UTC)
            .timestamp()
        )
        turns = [
            Turn(turn["dia_id"], "user", _shown(turn)) for turn in conversation[f"session_{number}"]
        ]
        sessions.append(Session(date, turns))
        number += 1
    return sessions


def _shown(turn: dict[str, Any]) -> str:
    caption = f" [shares a photo: {turn['blip_caption']}]" if turn.get("blip_caption") else ""
    return f"{turn['speaker']}: {turn['text']}{caption}"


def longmemeval_sessions(item: dict[str, Any]) -> list[Session]:
    """The haystack as conversations: roles, words and dates only (no ids, no flags)."""
    sessions: list[Session] = []
    for session_id, date, turns in zip(
        item["haystack_session_ids"], item["haystack_dates"], item["haystack_sessions"], strict=True
    ):
        when = lme_time(date)
        kept = [
            Turn(f"{session_id}#{number}", turn["role"], turn["content"])
            for number, turn in enumerate(turns, start=1)
            if turn["role"] in ("user", "assistant")
        ]
        sessions.append(Session(when, kept))
    return sessions


def lme_time(text: str) -> float:
    """A LongMemEval date ("2023/05/20 (Sat) 02:21"), read as UTC."""
    return datetime.strptime(text, "%Y/%m/%d (%a) %H:%M").replace(tzinfo=UTC).timestamp()


def locomo_time(text: str) -> float:
    """A LoCoMo session date ("1:56 pm on 8 May, 2023"), read as UTC."""
    return datetime.strptime(text, "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC).timestamp()
