"""Resolving contradictions: two memories that cannot both be true.

Pairs of memories close in meaning but not duplicates (similarity within
``contradiction_band``), at least one of them changed since the last dream,
go to the model, which says whether they conflict: ``keep_both`` (no
conflict), ``keep_first`` / ``keep_second`` (one replaces the other) or
``merge`` (one sentence holds both, e.g. a change over time).  Which one
wins is the host's rule, not the model's: what the user said themselves
wins over anything inferred, otherwise the newer wins.  The loser is
superseded, with its validity ending when the winner was learned; nothing
is erased.  A merged sentence replaces both only when it is faithful to them
(``dedup.unfaithful``): a merge that drops the newer one's news ("divorced",
"stopped taking"), denies what neither denied or adds a fact is refused, and
the report says why; both memories stay.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from desktop.core.db import Memory
from desktop.core.dreaming.dedup import Merge, merge_proposals, with_vectors
from desktop.core.dreaming.passes import PassContext, one_line
from desktop.core.dreaming.proposals import Proposal

TEMPLATE = "DREAM_CONTRADICTION_PROMPT.txt"
NEIGHBOURS = 8
_SOURCES = {
    "user_explicit": "the user said so themselves",
    "harvested": "learned from a conversation",
    "dream_merged": "merged from earlier memories",
    "imported": "imported",
    "inferred": "inferred",
}


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    verdict: Literal["keep_both", "keep_first", "keep_second", "merge"]
    merged: str | None = Field(None, max_length=400)
    """With ``merge``: one sentence holding what is true of both."""


class ContradictionPass:
    name = "contradictions"
    title = "Resolving contradictions"

    def plan(self, context: PassContext) -> list[Proposal]:
        proposals: list[Proposal] = []
        merges: list[Merge] = []
        retired: set[int] = set()
        for older, newer in pairs(context):
            if older.id in retired or newer.id in retired:
                continue  # one of them already lost to a third memory this run
            verdict = self._ask(context, older, newer)
            if verdict.verdict == "keep_both":
                continue
            if verdict.verdict == "merge":
                if verdict.merged:
                    merges.append(Merge(verdict.merged, newer.category, [older, newer]))
                    retired.update((older.id, newer.id))
                continue
            winner, loser = resolve(older, newer)
            asked = newer if verdict.verdict == "keep_second" else older
            if asked is not winner:
                context.notes.append(
                    f"For #{older.id} and #{newer.id} the model preferred #{asked.id}; "
                    f"#{winner.id} wins ({_why(winner, loser)})."
                )
            retired.add(loser.id)
            proposals.append(
                Proposal(
                    "supersede",
                    f"#{winner.id} replaces #{loser.id} ({_why(winner, loser)}): "
                    f"“{loser.content}” → “{winner.content}”",
                    {"memory": loser.id, "by": winner.id, "valid_to": winner.created_at},
                    touches=(loser.id,),
                    retires=(loser.id,),
                )
            )
        return proposals + with_vectors(context, merge_proposals(context, merges))

    @staticmethod
    def _ask(context: PassContext, older: Memory, newer: Memory) -> Verdict:
        step = f"contradiction:{older.id}@{older.updated_at},{newer.id}@{newer.updated_at}"
        messages = context.prompt(TEMPLATE, first=_describe(older), second=_describe(newer))
        return context.ask(step, messages, Verdict)


def pairs(context: PassContext) -> list[tuple[Memory, Memory]]:
    """Memories changed since the last dream with each neighbour in the band,
    (older, newer), the closest pairs first."""
    store = context.memories.store
    fresh = store.changed_since(context.judged_through)
    low, high = context.settings.contradiction_band
    vectors = store.vectors([m.id for m in fresh])
    found: dict[tuple[int, int], tuple[float, Memory, Memory]] = {}
    for memory in fresh:
        vector = vectors.get(memory.id)
        if vector is None:
            continue
        for hit in store.search_vector(vector, NEIGHBOURS):
            similarity = 1.0 - hit.score
            other = hit.memory
            if other.id == memory.id or not low <= similarity < high:
                continue
            older, newer = sorted((memory, other), key=lambda m: (m.created_at, m.id))
            found[(older.id, newer.id)] = (similarity, older, newer)
    ranked = sorted(found.values(), key=lambda item: (-item[0], item[1].id, item[2].id))
    return [(older, newer) for _, older, newer in ranked]


def resolve(older: Memory, newer: Memory) -> tuple[Memory, Memory]:
    """(winner, loser): what the user said themselves wins, else the newer."""
    older_told = older.source_kind == "user_explicit"
    newer_told = newer.source_kind == "user_explicit"
    if older_told and not newer_told:
        return older, newer
    return newer, older


def _why(winner: Memory, loser: Memory) -> str:
    if winner.source_kind == "user_explicit" and loser.source_kind != "user_explicit":
        return "you said it yourself"
    return "it is newer"


def _describe(memory: Memory) -> str:
    learned = datetime.fromtimestamp(memory.created_at).strftime("%Y-%m-%d")
    return f"{one_line(memory.content)} ({_SOURCES[memory.source_kind]}, {learned})"
