"""Dream changes to memories: merge, supersede, archive, decay, add.

Each is applied through ``MemoryWrites`` inside the pass's transaction.  Its
record keeps the touched memories as they were and as they became; undoing
it checks and puts back only the fields the change itself moved (so a
later fade or pin of the same memory does not block the undo), and takes
back the memories it created, unless something changed them since.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from desktop.core.base.errors import ReverieError
from desktop.core.db import DreamChange, Memory, MemorySources, NewMemory
from desktop.core.db.memory_writes import RESTORED_FIELDS, MemoryWrites, from_snapshot, snapshot
from desktop.core.dreaming.proposals import Applying, ChangeRefused, Proposal, sources_gone

KEY = "memories"
JUDGED_FIELDS = ("content", "status", "superseded_by", "category", "pinned", "importance")
"""What a change was decided on: if any of these moved, it no longer applies as it was."""
CREATED_FIELDS = (*JUDGED_FIELDS, "reinforcement_count")
"""What an undo checks of a memory the change created, which it takes away:
seen again since (a harvest counted a new message), the sighting would go with it."""
_FIELD_WORDS = {
    "content": "its text",
    "status": "its status",
    "superseded_by": "what replaces it",
    "category": "its category",
    "pinned": "its pin",
    "importance": "its importance",
    "faded_importance": "how far it faded",
    "decayed_through": "how far it faded",
    "valid_to": "when it stopped being true",
    "reinforcement_count": "it was seen again",
}


def _sightings(sources: Sequence[Memory], provenance: Sequence[MemorySources]) -> int:
    """How often the merged fact was seen: its sources' counts, with a
    message (or outside reference) that several of them were read from
    counted once."""
    named = Counter(s for p in provenance for s in (*p.message_ids, *p.external_refs))
    repeats = sum(times - 1 for times in named.values())
    counts = [m.reinforcement_count for m in sources]
    return max(sum(counts) - repeats, *counts)


def _merge(writes: MemoryWrites, payload: Mapping[str, Any], proposal: Proposal) -> list[int]:
    """A merged memory from its sources, written first; the superseded ones
    then point at it.  First and last seen, count, provenance and importance
    come from the sources, never from the model."""
    sources = [writes.current(int(i)) for i in payload["sources"]]
    provenance = [writes.sources(m.id) for m in sources]
    content = str(payload["content"])
    vector = proposal.vectors.get(content)
    merged = NewMemory(
        content,
        vector,
        "dream_merged",
        category=str(payload["category"]),
        importance=max(m.importance for m in sources),
        source_message_ids=tuple(sorted({i for p in provenance for i in p.message_ids})),
        external_refs=tuple(sorted({r for p in provenance for r in p.external_refs})),
        embedding_model=payload.get("embedding_model"),
        first_seen_at=min(m.created_at for m in sources),
        last_seen_at=max(m.last_seen_at for m in sources),
        reinforcement_count=_sightings(sources, provenance),
        pinned=any(m.pinned for m in sources),
    )
    merged_id = writes.add(merged, None if vector is None else writes.blob(vector))
    for memory_id in payload["superseded"]:
        writes.set_status(int(memory_id), "superseded", superseded_by=merged_id)
    return [merged_id]


def _supersede(writes: MemoryWrites, payload: Mapping[str, Any], _: Proposal) -> list[int]:
    writes.set_status(
        int(payload["memory"]),
        "superseded",
        superseded_by=int(payload["by"]),
        valid_to=payload.get("valid_to"),
    )
    return []


def _archive(writes: MemoryWrites, payload: Mapping[str, Any], _: Proposal) -> list[int]:
    writes.set_status(int(payload["memory"]), "archived")
    return []


def _decay(writes: MemoryWrites, payload: Mapping[str, Any], _: Proposal) -> list[int]:
    for memory_id, importance in payload["memories"]:
        writes.decay(int(memory_id), float(importance), through=float(payload["through"]))
    return []


def _add(writes: MemoryWrites, payload: Mapping[str, Any], proposal: Proposal) -> list[int]:
    content = str(payload["content"])
    vector = proposal.vectors.get(content)
    item = NewMemory(
        content,
        vector,
        payload.get("source_kind", "inferred"),
        category=str(payload["category"]),
        importance=float(payload.get("importance", 0.5)),
        source_message_ids=tuple(int(i) for i in payload.get("message_ids", ())),
        embedding_model=payload.get("embedding_model"),
        flags=tuple(payload.get("flags", ())),
    )
    return [writes.add(item, None if vector is None else writes.blob(vector))]


_APPLY: dict[str, Callable[[MemoryWrites, Mapping[str, Any], Proposal], list[int]]] = {
    "merge": _merge,
    "supersede": _supersede,
    "archive": _archive,
    "decay": _decay,
    "add": _add,
}


class MemoryChanges:
    kinds = frozenset(_APPLY)
    in_transaction = True

    def before(self, at: Applying, proposal: Proposal) -> dict[str, Any]:
        return {KEY: _state(at.memory_writes(), judged_on(proposal))}

    def apply(self, at: Applying, proposal: Proposal) -> dict[str, Any]:
        writes = at.memory_writes()
        created = _APPLY[proposal.kind](writes, proposal.payload, proposal)
        return {KEY: _state(writes, (*proposal.touches, *created)), "created": created}

    def still_as_before(self, at: Applying, change: DreamChange) -> str:
        writes = at.memory_writes()
        recorded = (change.before or {}).get(KEY, {}).items()
        return next(
            filter(None, (_changed_since(writes, k, d, JUDGED_FIELDS) for k, d in recorded)), ""
        )

    def moved_since(self, at: Applying, proposal: Proposal, read_at: float) -> str:
        writes = at.memory_writes()
        if proposal.kind == "add" and writes.erased_since(read_at):
            # "Delete now" leaves no row to refuse it by, as a deletion does.
            return "a memory was erased for good since the dream read, which it may repeat"
        if proposal.kind == "add" and (gone := sources_gone(at, proposal)):
            return gone
        for memory_id in judged_on(proposal):
            try:
                if writes.current(memory_id).updated_at > read_at:
                    return f"memory #{memory_id} changed since the dream read it"
            except ReverieError:
                return f"memory #{memory_id} no longer exists"
        return ""

    def undo(self, at: Applying, change: DreamChange) -> None:
        writes = at.memory_writes()
        before = (change.before or {}).get(KEY, {})
        after = change.after or {}
        made = {str(i) for i in after.get("created", [])}
        # What the change did, field by field: only that is checked and put back.
        did = {
            key: _differing(from_snapshot(before[key]), from_snapshot(data))
            if key in before
            else CREATED_FIELDS
            for key, data in after.get(KEY, {}).items()
        }
        for key, data in after.get(KEY, {}).items():
            changed = _changed_since(writes, key, data, did[key])
            if changed:
                raise ChangeRefused(f"Change #{change.id} cannot be undone: {changed}.")
        for key, data in before.items():
            if key not in made:
                writes.restore(from_snapshot(data), did.get(key, ()))
        for memory_id in after.get("created", []):
            writes.remove(int(memory_id))


def judged_on(proposal: Proposal) -> tuple[int, ...]:
    """The memories *proposal* was decided on: those it changes and, for a
    supersede, the one that replaces it (deleted or rewritten meanwhile, the
    loser would be retired for what no longer says it)."""
    if proposal.kind == "supersede":
        return (*proposal.touches, int(proposal.payload["by"]))
    return proposal.touches


def _state(writes: MemoryWrites, memory_ids: Sequence[int]) -> dict[str, Any]:
    """The memories *memory_ids* as they are now in the transaction."""
    return {str(i): snapshot(writes.current(i)) for i in dict.fromkeys(memory_ids)}


def _differing(first: Memory, second: Memory) -> tuple[str, ...]:
    return tuple(name for name in RESTORED_FIELDS if getattr(first, name) != getattr(second, name))


def _changed_since(
    writes: MemoryWrites, key: str, recorded: Mapping[str, Any], fields: Sequence[str]
) -> str:
    """ "" if memory *key* still has the *fields* recorded, else what changed, in words."""
    then = from_snapshot(recorded)
    try:
        now: Memory = writes.current(int(key))
    except ReverieError:
        return f"memory #{key} no longer exists"
    differs = [_FIELD_WORDS[name] for name in fields if getattr(now, name) != getattr(then, name)]
    if differs:
        return f"memory #{key} changed since ({', '.join(dict.fromkeys(differs))})"
    return ""
