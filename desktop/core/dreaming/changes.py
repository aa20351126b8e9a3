"""Dream changes: proposed by a pass, recorded, applied, approved or undone.

A pass proposes ``Proposal``s: a kind, a sentence for the user, a JSON
payload saying exactly what to do, and the memories it touches.  The
``ChangeBook`` records each one in ``dream_changes`` with the touched
memories as they were, applies it through ``MemoryWrites`` in the pass's
transaction (or leaves a risky one pending for the user), and later undoes
it: the touched memories are put back as they were and what it created is
taken back, unless something changed them since, which refuses the undo
rather than lose that change.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from desktop.core.db import Database, DreamChange, DreamStore, Memory, MemoryStore, NewMemory
from desktop.core.db.memory_writes import RESTORED_FIELDS, MemoryWrites, from_snapshot, snapshot
from desktop.core.errors import ReverieError
from desktop.core.settings import DreamSettings

Vector = npt.NDArray[np.floating[Any]]
Kind = Literal["merge", "supersede", "archive", "decay", "add"]
Embed = Callable[[Sequence[str]], npt.NDArray[np.floating[Any]] | None]


@dataclass(frozen=True, eq=False)
class Proposal:
    kind: Kind
    summary: str
    """What it does, in a sentence for the dream report."""
    payload: dict[str, Any]
    touches: tuple[int, ...] = ()
    """Existing memories it changes."""
    retires: tuple[int, ...] = ()
    """Of those, the ones it supersedes or archives (the circuit breaker counts them)."""
    vectors: Mapping[str, Vector] = field(default_factory=dict)
    """Embeddings of the texts it adds, by text (computed before the transaction)."""
    needs_approval: bool = False
    """Risky whatever it touches (e.g. an inferred preference about money)."""


JUDGED_FIELDS = ("content", "status", "superseded_by", "category", "pinned", "importance")
"""What a change was decided on: if any of these moved, it no longer applies as it was."""
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
}


class ChangeRefused(ReverieError):
    """A change cannot be undone or approved as it stands; ``str()`` says why."""


@dataclass(frozen=True)
class Applied:
    applied: int = 0
    pending: int = 0


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
        reinforcement_count=sum(m.reinforcement_count for m in sources),
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


class ChangeBook:
    def __init__(
        self,
        database: Database,
        memories: MemoryStore,
        dreams: DreamStore,
        settings: DreamSettings,
    ) -> None:
        self._db = database
        self._memories = memories
        self._dreams = dreams
        self._settings = settings

    def risky(self, proposal: Proposal) -> bool:
        """Touches what the user holds dear: a pinned memory, one they told
        Reverie themselves, or one seen many times.  Fading is never risky."""
        if proposal.needs_approval:
            return True
        if proposal.kind == "decay":
            return False
        touched = [m for m in map(self._memories.get, proposal.touches) if m is not None]
        return any(
            m.pinned
            or m.source_kind == "user_explicit"
            or m.reinforcement_count >= self._settings.risky_reinforcement
            for m in touched
        )

    def apply_pass(
        self,
        run_id: int,
        pass_name: str,
        proposals: Sequence[Proposal],
        judged_through: float | None,
    ) -> Applied:
        """Record and apply *proposals* (risky ones left pending) and move the
        pass's mark, all in one transaction."""
        risky = [self.risky(p) for p in proposals]
        actor = f"dream:{pass_name}"
        with self._db.transaction() as tx:
            now = self._dreams.now()
            for proposal, is_risky in zip(proposals, risky, strict=True):
                writes = self._memories.writes_in(tx, actor, dream_run_id=run_id)
                before = _state(writes, proposal.touches)
                change_id = DreamStore.add_change(
                    tx,
                    run_id,
                    pass_name,
                    proposal.kind,
                    proposal.summary,
                    proposal.payload,
                    status="pending" if is_risky else "applied",
                    risky=is_risky,
                    now=now,
                    before=before,
                )
                if not is_risky:
                    self._apply(tx, run_id, actor, change_id, proposal)
            if judged_through is not None:
                DreamStore.set_judged_through(tx, pass_name, judged_through, now)
        pending = sum(risky)
        return Applied(len(proposals) - pending, pending)

    def approve(self, change_id: int, embed: Embed | None = None) -> DreamChange:
        """Apply a pending change the user approved, if what it touches is
        still as it was when proposed."""
        change = self._dreams.change(change_id)
        if change.status != "pending":
            raise ChangeRefused(f"This change is {change.status}, not waiting for approval.")
        texts = [str(change.payload["content"])] if "content" in change.payload else []
        vectors = embed(texts) if embed is not None and texts else None
        proposal = Proposal(
            change.kind,  # type: ignore[arg-type]  # stored by a Proposal of a known kind
            change.summary,
            change.payload,
            touches=tuple(int(i) for i in (change.before or {}).get("memories", {})),
            vectors={} if vectors is None else dict(zip(texts, vectors, strict=True)),
        )
        with self._db.transaction() as tx:
            writes = self._memories.writes_in(tx, "user", dream_run_id=change.dream_run_id)
            recorded = (change.before or {}).get("memories", {}).items()
            changed = next(
                filter(None, (_changed_since(writes, k, d, JUDGED_FIELDS) for k, d in recorded)),
                "",
            )
            if changed:
                DreamStore.record_outcome(
                    tx, change_id, "rejected", now=self._dreams.now(), note=changed
                )
            else:
                self._apply(tx, change.dream_run_id, "user", change_id, proposal)
        if changed:
            raise ChangeRefused(f"Not applied: {changed}")
        return self._dreams.change(change_id)

    def reject(self, change_id: int) -> DreamChange:
        change = self._dreams.change(change_id)
        if change.status != "pending":
            raise ChangeRefused(f"This change is {change.status}, not waiting for approval.")
        with self._db.transaction() as tx:
            DreamStore.record_outcome(tx, change_id, "rejected", now=self._dreams.now())
        return self._dreams.change(change_id)

    def revert(self, change_id: int) -> DreamChange:
        """Undo one applied change (``ChangeRefused`` if its memories changed since)."""
        change = self._dreams.change(change_id)
        with self._db.transaction() as tx:
            self._revert(tx, change)
        return self._dreams.change(change_id)

    def revert_run(self, run_id: int) -> int:
        """Undo every applied change of a run, newest first, all or none;
        how many were undone."""
        applied = [c for c in self._dreams.changes(run_id) if c.status == "applied"]
        with self._db.transaction() as tx:
            for change in reversed(applied):
                self._revert(tx, change)
        return len(applied)

    def _apply(self, tx: Any, run_id: int, actor: str, change_id: int, proposal: Proposal) -> None:
        writes = self._memories.writes_in(tx, actor, dream_run_id=run_id, dream_change_id=change_id)
        created = _APPLY[proposal.kind](writes, proposal.payload, proposal)
        after = _state(writes, (*proposal.touches, *created))
        after["created"] = created
        DreamStore.record_outcome(tx, change_id, "applied", now=writes.now, after=after)

    def _revert(self, tx: Any, change: DreamChange) -> None:
        if change.status != "applied":
            raise ChangeRefused(f"Change #{change.id} is {change.status}; only applied ones undo.")
        writes = self._memories.writes_in(
            tx, "user", dream_run_id=change.dream_run_id, dream_change_id=change.id
        )
        before = (change.before or {}).get("memories", {})
        after = change.after or {}
        made = {str(i) for i in after.get("created", [])}
        # What the change did, field by field: only that is checked and put back,
        # so a later fade or pin of the same memory does not block the undo.
        did = {
            key: _differing(from_snapshot(before[key]), from_snapshot(data))
            if key in before
            else JUDGED_FIELDS
            for key, data in after.get("memories", {}).items()
        }
        for key, data in after.get("memories", {}).items():
            changed = _changed_since(writes, key, data, did[key])
            if changed:
                raise ChangeRefused(f"Change #{change.id} cannot be undone: {changed}.")
        for key, data in before.items():
            if key not in made:
                writes.restore(from_snapshot(data), did.get(key, ()))
        for memory_id in after.get("created", []):
            writes.remove(int(memory_id))
        DreamStore.record_outcome(tx, change.id, "reverted", now=writes.now)


def _state(writes: MemoryWrites, memory_ids: Sequence[int]) -> dict[str, Any]:
    """The memories *memory_ids* as they are now in the transaction."""
    return {"memories": {str(i): snapshot(writes.current(i)) for i in dict.fromkeys(memory_ids)}}


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
        return f"memory #{key} changed since ({', '.join(differs)})"
    return ""
