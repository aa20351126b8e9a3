"""Merging duplicates: near-identical memories become one, nothing lost.

Memories changed since the last dream are clustered with their neighbours
(cosine similarity above ``duplicate_similarity``, or the same text).  Each
cluster goes to the model, which sees small numbers, never ids, and answers
under a schema that allows only those numbers: ``toSave`` (merged memories,
each naming the numbers it combines: those it replaces) and ``toDelete``
(numbers to retire, each one replaced by a merged memory: a number no merged
memory replaces is refused, and so is one merged into two).  The host maps
the numbers back and computes everything else.  A merged text must stand for what it replaces: be
faithful to them (``unfaithful``, the check of every merge, the
contradiction pass's too), deny what they deny and say all that the fullest
of them says (``merge_problem``); if the model's does not, the longest of
the replaced texts that does is kept instead, and with none the merge is
refused, as is one the write gate refuses.  Sources are superseded,
pointing at the merged memory, never deleted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from desktop.core.base.content_words import DENIED, changes, new_words, swapped
from desktop.core.db import Memory
from desktop.core.dreaming.passes import PassContext, PassRejected, numbered
from desktop.core.dreaming.proposals import Proposal
from desktop.core.memory.gate import MemoryRefused
from desktop.core.memory.service import MemoryCategory, lost_specifics, merge_problem
from models.structured import Numbers

TEMPLATE = "DREAM_DEDUP_PROMPT.txt"
MergeCheck = Callable[[Sequence[str], str], str | None]
"""Why a merged text cannot replace the texts it merges (None: it can)."""
NEIGHBOURS = 8
MAX_CLUSTER = 8
_WHEN = frozenset(str.split("until since before after later earlier"))
_NOW = frozenset({"now"})
"""Words (and the change "now") that only place what the merged memories
say in time, as a merge of a change over time must ("lived in Rome until
2024", "now lives in Oslo"): not a new fact."""
_CHANGES_SAY = {
    "ended": "something ended",
    "died": "someone died",
    "divorced": "a marriage ended",
    "now": "it holds now",
    DENIED: "something is not so",
}


class SavedMemory(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    content: str = Field(min_length=1, max_length=400)
    category: MemoryCategory
    sourceIds: Numbers = Field(min_length=1)  # the contract's name


class DedupAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    toSave: list[SavedMemory]  # the contract's name
    toDelete: Numbers


@dataclass(frozen=True)
class Merge:
    text: str
    category: str
    sources: list[Memory]
    """The memories it combines and replaces (their provenance is united)."""


class DedupPass:
    name = "dedup"
    title = "Merging duplicates"

    def plan(self, context: PassContext) -> list[Proposal]:
        proposals: list[Proposal] = []
        for cluster in clusters(context):
            if len({m.content_hash for m in cluster}) == 1:
                merged = [Merge(cluster[0].content, cluster[0].category, cluster)]
            else:
                merged = self._ask(context, cluster)
            proposals += merge_proposals(context, merged, stands_for)
        return with_vectors(context, proposals)

    def _ask(self, context: PassContext, cluster: list[Memory]) -> list[Merge]:
        """The merges the model asks for, its numbers mapped back to memories."""
        step = "dedup:" + ",".join(f"{m.id}@{m.updated_at}" for m in cluster)
        messages = context.prompt(TEMPLATE, memories=numbered([m.content for m in cluster]))
        answer = context.ask(step, messages, DedupAnswer, schema(len(cluster)))
        shown = range(1, len(cluster) + 1)
        named = [n for saved in answer.toSave for n in saved.sourceIds] + answer.toDelete
        if any(n not in shown for n in named):
            raise PassRejected(
                "the model named memories it was not shown", answer.model_dump_json()
            )
        if len(answer.toSave) > len(cluster):
            raise PassRejected(
                "the model asked for more merges than memories", answer.model_dump_json()
            )
        combined = {n for saved in answer.toSave for n in saved.sourceIds}
        if not set(answer.toDelete) <= combined:
            raise PassRejected(
                "the model would delete memories no merged memory replaces",
                answer.model_dump_json(),
            )
        merged = [n for saved in answer.toSave for n in dict.fromkeys(saved.sourceIds)]
        if len(merged) != len(set(merged)):
            # Which of the two texts stands for that memory is not said.
            raise PassRejected("the model merged one memory into two", answer.model_dump_json())
        merges: list[Merge] = []
        for saved in answer.toSave:
            sources = [cluster[n - 1] for n in dict.fromkeys(saved.sourceIds)]
            if len(sources) > 1:  # one memory alone is not a merge
                text = faithful(saved.content, [m.content for m in sources])
                merges.append(Merge(text, saved.category, sources))
        return merges


def faithful(proposed: str, duplicates: Sequence[str]) -> str:
    """The text of a merge of *duplicates*: *proposed* if it stands for them
    all (``stands_for``), else the longest of them that does (the model
    judged which are one; their own words say it safely), else *proposed*,
    which ``merge_proposals`` then refuses with the reason."""
    if stands_for(duplicates, proposed) is None:
        return proposed
    standing = [text for text in duplicates if stands_for(duplicates, text) is None]
    return max(standing, key=len, default=proposed)


def stands_for(duplicates: Sequence[str], merged: str) -> str | None:
    """Why *merged* cannot replace *duplicates*, memories saying one thing
    (None: it can): it must deny what they deny and say all that the
    fullest says (``merge_problem``), and be faithful to each of them
    (``unfaithful``)."""
    return merge_problem(duplicates, merged) or unfaithful(duplicates, merged)


def unfaithful(sources: Sequence[str], merged: str) -> str | None:
    """Why *merged* cannot replace *sources* (None: it can), the check of
    every merged memory: it keeps their names, numbers and dates, adds no
    content word none of them has, and says exactly the changes and denials
    they say (``content_words.changes``), words placing them in time aside
    (``_WHEN``).  A small model's merge reverses the news
    ("happily married to Anna" for "divorced Anna"), keeps only the fuller
    memory ("takes warfarin daily" beside "stopped taking warfarin"), or
    invents ("... and is allergic to penicillin")."""
    lost = lost_specifics(sources, merged)
    if lost:
        return f"it dropped {', '.join(lost)}"
    added = [word for word in new_words(merged, sources) if word not in _WHEN]
    if added:
        return f"it added {', '.join(added)}"
    theirs = frozenset().union(*map(changes, sources))
    said = changes(merged)
    if theirs - said:
        return f"it dropped that {_saying(theirs - said)}"
    if said - theirs - _NOW:
        return f"it says {_saying(said - theirs - _NOW)}, which none of them says"
    if turned := swapped(merged, sources, numbers_stay=True):
        return f"it swaps {', '.join(turned)} around"
    return None


def _saying(found: frozenset[str]) -> str:
    """What the ``changes`` *found* say, for the report."""
    return " and ".join(_CHANGES_SAY[name] for name in sorted(found))


def merge_proposals(
    context: PassContext, merges: Sequence[Merge], problem: MergeCheck = unfaithful
) -> list[Proposal]:
    """The merges with no *problem* (by default: ``unfaithful``) that pass
    the write gate."""
    proposals = []
    for merge in merges:
        replaced = ", ".join(f"#{m.id}" for m in merge.sources)
        refused = problem([m.content for m in merge.sources], merge.text)
        if refused:
            context.notes.append(f"A merge of {replaced} was refused: {refused}.")
            continue
        try:
            content = context.memories.vet(merge.text).text
        except MemoryRefused as refused:
            context.notes.append(f"A merge of {replaced} was refused: {refused}")
            continue
        ids = tuple(m.id for m in merge.sources)
        proposals.append(
            Proposal(
                "merge",
                f"Merged {len(merge.sources)} memories into one: {content}",
                {
                    "sources": list(ids),
                    "superseded": [m.id for m in merge.sources],
                    "content": content,
                    "category": merge.category,
                },
                touches=ids,
                retires=tuple(m.id for m in merge.sources),
            )
        )
    return proposals


def clusters(context: PassContext) -> list[list[Memory]]:
    """Memories changed since the last dream, each with its near-duplicates;
    a memory is in one cluster at most."""
    store = context.memories.store
    fresh = store.changed_since(context.judged_through)
    if not fresh:
        return []
    parent: dict[int, int] = {}
    known: dict[int, Memory] = {}

    def root(memory_id: int) -> int:
        while parent.setdefault(memory_id, memory_id) != memory_id:
            parent[memory_id] = parent[parent[memory_id]]
            memory_id = parent[memory_id]
        return memory_id

    def join(a: Memory, b: Memory) -> None:
        known[a.id], known[b.id] = a, b
        parent[root(a.id)] = root(b.id)

    vectors = store.vectors([m.id for m in fresh])
    for memory in fresh:
        for twin in store.find_by_hash(memory.content_hash):
            if twin.id != memory.id:
                join(memory, twin)
        vector = vectors.get(memory.id)
        if vector is None:
            continue
        for hit in store.search_vector(vector, NEIGHBOURS):
            if (
                hit.memory.id != memory.id
                and 1.0 - hit.score >= context.settings.duplicate_similarity
            ):
                join(memory, hit.memory)
    groups: dict[int, list[Memory]] = {}
    for memory_id, memory in sorted(known.items()):
        groups.setdefault(root(memory_id), []).append(memory)
    return [group[:MAX_CLUSTER] for group in groups.values() if len(group) > 1]


def schema(shown: int) -> dict[str, Any]:
    """The answer's schema, numbers limited to the *shown* ones."""
    result = DedupAnswer.model_json_schema()
    numbers = {"type": "integer", "enum": list(range(1, shown + 1))}
    result["$defs"]["SavedMemory"]["properties"]["sourceIds"]["items"] = numbers
    result["properties"]["toDelete"]["items"] = numbers
    result["properties"]["toSave"]["maxItems"] = shown
    return result


def with_vectors(context: PassContext, proposals: list[Proposal]) -> list[Proposal]:
    """*proposals* with the embeddings of the texts they add (before the
    transaction), labelled with the model that made them: the one in use
    may change while the pass waits for the user."""
    texts = [str(p.payload["content"]) for p in proposals]
    if not texts:
        return proposals
    context.control.give_way(context.progress)
    made = context.memories.embed_labelled(texts)
    if made is None:
        return proposals  # stored without vectors; the memory upkeep adds them later
    return [
        Proposal(
            p.kind,
            p.summary,
            {**p.payload, "embedding_model": made.model},
            touches=p.touches,
            retires=p.retires,
            vectors={text: vector},
            needs_approval=p.needs_approval,
        )
        for p, text, vector in zip(proposals, texts, made.vectors, strict=True)
    ]
