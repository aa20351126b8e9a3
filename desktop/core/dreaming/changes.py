"""The ``ChangeBook``: dream changes recorded, applied, approved and undone.

A pass's proposals are recorded in ``dream_changes`` with what they touch
as it was, and applied in the pass's one transaction (risky ones are left
pending for the user).  Changes to skill files cannot share that
transaction: they are made first, and taken back if the transaction then
fails, so a pass still lands whole or not at all.  Undoing a change puts
back what it did, unless something changed it since, which refuses the
undo rather than lose that change.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from desktop.core.db import Database, DreamChange, DreamStore, MemoryStore, Transaction
from desktop.core.db.tasks import TaskStore
from desktop.core.dreaming.memory_changes import MemoryChanges
from desktop.core.dreaming.proposals import (
    Applied,
    Applying,
    ChangeRefused,
    Handler,
    Proposal,
)
from desktop.core.dreaming.skill_changes import SkillChanges
from desktop.core.dreaming.task_changes import TaskChanges
from desktop.core.errors import ReverieError
from desktop.core.settings import DreamSettings
from desktop.core.skills import SkillLibrary

Embed = Callable[[Sequence[str]], npt.NDArray[np.floating[Any]] | None]


class ChangeBook:
    def __init__(
        self,
        database: Database,
        memories: MemoryStore,
        dreams: DreamStore,
        settings: DreamSettings,
        *,
        tasks: TaskStore | None = None,
        skills: SkillLibrary | None = None,
    ) -> None:
        self._db = database
        self._memories = memories
        self._dreams = dreams
        self._settings = settings
        self._tasks = tasks
        self._skills = skills
        self._files = SkillChanges()
        handlers: tuple[Handler, ...] = (MemoryChanges(), TaskChanges(), self._files)
        self._handlers = {kind: h for h in handlers for kind in h.kinds}

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
        pass's mark: all of it, or (on any failure) none of it."""
        risky = [self.risky(p) for p in proposals]
        actor = f"dream:{pass_name}"
        files = self._apply_files(run_id, actor, proposals, risky)
        try:
            with self._db.transaction() as tx:
                now = self._dreams.now()
                for proposal, is_risky in zip(proposals, risky, strict=True):
                    handler = self._handler(proposal)
                    before, after = files.get(id(proposal)) or (None, None)
                    if before is None:
                        before = handler.before(self._at(tx, actor, run_id), proposal)
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
                    if not is_risky and handler.in_transaction:
                        after = handler.apply(self._at(tx, actor, run_id, change_id), proposal)
                    if after is not None:
                        DreamStore.record_outcome(tx, change_id, "applied", now=now, after=after)
                if judged_through is not None:
                    DreamStore.set_judged_through(tx, pass_name, judged_through, now)
        except BaseException:
            self._take_back_files(run_id, files)
            raise
        pending = sum(risky)
        return Applied(len(proposals) - pending, pending)

    def approve(self, change_id: int, embed: Embed | None = None) -> DreamChange:
        """Apply a pending change the user approved, if what it was decided
        on still holds (otherwise it is set aside as rejected)."""
        change = self._pending(change_id)
        handler = self._handlers[change.kind]
        texts = [str(change.payload["content"])] if "content" in change.payload else []
        vectors = embed(texts) if embed is not None and texts else None
        proposal = Proposal(
            change.kind,
            change.summary,
            change.payload,
            touches=tuple(int(i) for i in (change.before or {}).get("memories", {})),
            vectors={} if vectors is None else dict(zip(texts, vectors, strict=True)),
        )
        moved, after = "", None
        if not handler.in_transaction:  # files: beside the transaction that records it
            at = self._at(None, "user", change.dream_run_id)
            moved = handler.still_as_before(at, change)
            after = None if moved else handler.apply(at, proposal)
        with self._db.transaction() as tx:
            now = self._dreams.now()
            if handler.in_transaction:
                at = self._at(tx, "user", change.dream_run_id, change.id)
                moved = handler.still_as_before(at, change)
                after = None if moved else handler.apply(at, proposal)
            if moved:
                DreamStore.record_outcome(tx, change_id, "rejected", now=now, note=moved)
            else:
                DreamStore.record_outcome(tx, change_id, "applied", now=now, after=after)
        if moved:
            raise ChangeRefused(f"Not applied: {moved}")
        return self._dreams.change(change_id)

    def reject(self, change_id: int) -> DreamChange:
        self._pending(change_id)
        with self._db.transaction() as tx:
            DreamStore.record_outcome(tx, change_id, "rejected", now=self._dreams.now())
        return self._dreams.change(change_id)

    def revert(self, change_id: int) -> DreamChange:
        """Undo one applied change (``ChangeRefused`` if what it changed moved since)."""
        self.revert_changes([self._dreams.change(change_id)])
        return self._dreams.change(change_id)

    def revert_run(self, run_id: int) -> int:
        """Undo every applied change of a run, newest first; how many were undone.

        Changes to the database are undone together or not at all; then the
        changes to skill files, each on its own."""
        applied = [c for c in self._dreams.changes(run_id) if c.status == "applied"]
        self.revert_changes(list(reversed(applied)))
        return len(applied)

    def revert_changes(self, changes: Sequence[DreamChange]) -> None:
        for change in changes:
            if change.status != "applied":
                raise ChangeRefused(
                    f"Change #{change.id} is {change.status}; only applied ones undo."
                )
        in_db = [c for c in changes if self._handlers[c.kind].in_transaction]
        with self._db.transaction() as tx:
            for change in in_db:
                at = self._at(tx, "user", change.dream_run_id, change.id)
                self._handlers[change.kind].undo(at, change)
                DreamStore.record_outcome(tx, change.id, "reverted", now=self._dreams.now())
        for change in changes:
            handler = self._handlers[change.kind]
            if not handler.in_transaction:
                handler.undo(self._at(None, "user", change.dream_run_id), change)
                with self._db.transaction() as tx:
                    DreamStore.record_outcome(tx, change.id, "reverted", now=self._dreams.now())

    # -- helpers -------------------------------------------------------------
    def _apply_files(
        self, run_id: int, actor: str, proposals: Sequence[Proposal], risky: Sequence[bool]
    ) -> dict[int, tuple[dict[str, Any], dict[str, Any] | None]]:
        """The file changes among *proposals*: what each touches, and what it
        made of it (None for a risky one, left pending); all made or none.
        By the proposal's identity."""
        made: dict[int, tuple[dict[str, Any], dict[str, Any] | None]] = {}
        at = self._at(None, actor, run_id)
        try:
            for proposal, is_risky in zip(proposals, risky, strict=True):
                if not self._handler(proposal).in_transaction:
                    before = self._files.before(at, proposal)
                    made[id(proposal)] = (before, None)
                    if not is_risky:
                        made[id(proposal)] = (before, self._files.apply(at, proposal))
        except BaseException:
            self._take_back_files(run_id, made)
            raise
        return made

    def _take_back_files(
        self, run_id: int, made: dict[int, tuple[dict[str, Any], dict[str, Any] | None]]
    ) -> None:
        """Undo file changes whose records never landed (best effort: the
        first error is the one reported)."""
        at = self._at(None, "user", run_id)
        for before, after in reversed(list(made.values())):
            if after is not None:
                with contextlib.suppress(ReverieError):
                    self._files.take_back(at, before, after)

    def _pending(self, change_id: int) -> DreamChange:
        change = self._dreams.change(change_id)
        if change.status != "pending":
            raise ChangeRefused(f"This change is {change.status}, not waiting for approval.")
        return change

    def _handler(self, proposal: Proposal) -> Handler:
        try:
            return self._handlers[proposal.kind]
        except KeyError:
            raise ValueError(f"no handler for dream changes of kind {proposal.kind!r}") from None

    def _at(
        self, tx: Transaction | None, actor: str, run_id: int, change_id: int | None = None
    ) -> Applying:
        return Applying(
            tx, self._memories, actor, run_id, change_id, tasks=self._tasks, skills=self._skills
        )
