"""The ``ChangeBook``: dream changes recorded, applied, approved and undone.

A pass's proposals are recorded in ``dream_changes`` with what they touch
as it was, and applied in the pass's one transaction (risky ones are left
pending for the user).  Changes to skill files cannot share that
transaction: they are noted (``skill_notes``), made, then recorded, and the
note removed.  The record decides: a change whose record did not land is
put back, at once when something fails, or when the book is next built
after a kill (``finish_interrupted``); so a pass lands whole or not at
all, and an approval or undo is recorded with its files or not made.
Undoing a change puts back what it did, unless something changed it since,
which refuses the undo rather than lose that change.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from desktop.core.base.errors import ReverieError
from desktop.core.base.settings import DreamSettings
from desktop.core.db import (
    Database,
    DreamChange,
    DreamStore,
    MemoryStore,
    RowNotFound,
    Transaction,
)
from desktop.core.db.purge import PurgeStore
from desktop.core.dreaming.memory_changes import MemoryChanges
from desktop.core.dreaming.proposals import (
    Applied,
    Applying,
    ChangeRefused,
    Handler,
    Proposal,
    sources_gone,
)
from desktop.core.dreaming.skill_changes import SkillChanges
from desktop.core.dreaming.skill_notes import ChangeNotes
from desktop.core.dreaming.task_changes import TaskChanges
from desktop.core.memory.embedding import Labelled
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService

log = logging.getLogger(__name__)

Embed = Callable[[Sequence[str]], Labelled | None]
"""Vectors of texts with the model that made them (``MemoryService.embed_labelled``)."""


class ChangeBook:
    def __init__(
        self,
        database: Database,
        memories: MemoryStore,
        dreams: DreamStore,
        settings: DreamSettings,
        *,
        tasks: TaskService | None = None,
        skills: SkillLibrary | None = None,
        holds_named_secret: Callable[[str], bool] | None = None,
    ) -> None:
        self._db = database
        self._holds_named_secret = holds_named_secret
        """Whether a text holds a secret named this run (``MemoryService.holds_named_secret``)."""
        self._memories = memories
        self._dreams = dreams
        self._settings = settings
        self._tasks = tasks
        self._skills = skills
        self._files = SkillChanges()
        handlers: tuple[Handler, ...] = (MemoryChanges(), TaskChanges(), self._files)
        self._handlers = {kind: h for h in handlers for kind in h.kinds}
        self._notes = None if skills is None else ChangeNotes(skills.directory)
        self._in_flight: dict[Path, dict[str, Any]] = {}
        self._held: dict[Path, int] = {}  # the notes in flight, open and locked
        if self._notes is not None and skills is not None:
            self._notes.clear_leftovers()
            try:
                self.finish_interrupted()
                skills.clear_leftovers()  # a kill mid-write leaves a draft's text
            except ReverieError as error:
                # Not lost: the note stays, and the next use of the book tries
                # again and raises this to whoever asked.
                log.warning(
                    "an interrupted skill change is not settled yet: %s", type(error).__name__
                )

    def finish_interrupted(self) -> list[str]:
        """Settle the skill changes a kill (or a failure while putting their
        files back) left half made: one whose record landed is done; one
        whose record did not is taken back, each skill it changed put back as
        it was.  A skill changed by hand since stays as it is: their names."""
        if self._notes is None:
            return []
        left: list[str] = []
        found = self._notes.found()  # a live process's notes are locked: not found
        try:
            for note in found:
                left += self._settle(note.path, note.note)
        finally:
            for note in found:  # all of them, also after a failure: else held for good
                self._notes.release(note.descriptor)
        if left:
            log.warning("%d skill(s) changed since an interrupted dream change", len(left))
        return left

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
        read_at: float | None = None,
    ) -> Applied:
        """Record and apply *proposals* (risky ones left pending) and move the
        pass's mark: all of it, or (on any failure) none of it.  A proposal
        touching what changed after *read_at* (when the pass read it) is
        left for the next dream, which judges it again as it is then."""
        self.finish_interrupted()
        actor = f"dream:{pass_name}"
        at = self._at(None, actor, run_id)
        left: list[str] = []

        def moved(where: Applying, proposal: Proposal) -> bool:
            handler = self._handler(proposal)
            why = "" if read_at is None else handler.moved_since(where, proposal, read_at)
            if not why and self._named_since(proposal):
                why = "a secret in what it was drafted from was named since"
            left.extend(filter(None, [why]))
            return bool(why)

        proposals = [p for p in proposals if self._handler(p).in_transaction or not moved(at, p)]
        risky = [self.risky(p) for p in proposals]
        befores = {
            id(p): self._files.before(at, p)
            for p in proposals
            if not self._handler(p).in_transaction
        }
        made = [
            (p, befores[id(p)])
            for p, is_risky in zip(proposals, risky, strict=True)
            if id(p) in befores and not is_risky
        ]
        note = self._note("apply", run_id, pass_name, None, made)
        counts = {"applied": 0, "pending": 0}
        try:
            # Checked again just before each write, as approving does: an
            # edit saved while the note was written is not written over.
            afters = {id(p): self._files.apply(at, p, before) for p, before in made}
            with self._db.transaction() as tx:
                now = self._dreams.now()
                for proposal, is_risky in zip(proposals, risky, strict=True):
                    handler = self._handler(proposal)
                    if handler.in_transaction and moved(self._at(tx, actor, run_id), proposal):
                        continue
                    counts["pending" if is_risky else "applied"] += 1
                    before = befores.get(id(proposal))
                    after = afters.get(id(proposal))
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
                        if not handler.in_transaction and note is not None:
                            after = {**after, "note": note.stem}  # what settles the note
                        DreamStore.record_outcome(tx, change_id, "applied", now=now, after=after)
                if judged_through is not None:
                    DreamStore.set_judged_through(tx, pass_name, judged_through, now)
        except BaseException:
            self._abandon(note)
            raise
        self._done(note)
        return Applied(counts["applied"], counts["pending"], tuple(left))

    def approve(self, change_id: int, embed: Embed | None = None) -> DreamChange:
        """Apply a pending change the user approved, if what it was decided
        on still holds (otherwise it is set aside as rejected)."""
        self.finish_interrupted()
        change = self._pending(change_id)
        handler = self._handlers[change.kind]
        texts = [str(change.payload["content"])] if "content" in change.payload else []
        made = embed(texts) if embed is not None and texts else None
        # Stored under the model that made the vector, whatever the dream used.
        payload = {} if made is None else {"embedding_model": made.model}
        proposal = Proposal(
            change.kind,
            change.summary,
            {**change.payload, **payload},
            touches=tuple(int(i) for i in (change.before or {}).get("memories", {})),
            vectors={} if made is None else dict(zip(texts, made.vectors, strict=True)),
        )
        moved, after, note = "", None, None
        try:
            if not handler.in_transaction:  # files: beside the transaction that records it
                at = self._at(None, "user", change.dream_run_id)
                moved = handler.still_as_before(at, change)
                if not moved:
                    note = self._note(
                        "approve",
                        change.dream_run_id,
                        change.pass_name,
                        change.id,
                        [(proposal, change.before or {})],
                    )
                    # Checked again just before its write: an edit saved while
                    # the note was written is not written over.
                    after = self._files.apply(at, proposal, change.before)
            with self._db.transaction() as tx:
                now = self._dreams.now()
                if handler.in_transaction:
                    at = self._at(tx, "user", change.dream_run_id, change.id)
                    # What it was read from may have gone to the bin since.
                    moved = handler.still_as_before(at, change) or sources_gone(at, proposal)
                    after = None if moved else handler.apply(at, proposal)
                if moved:
                    DreamStore.record_outcome(tx, change_id, "rejected", now=now, note=moved)
                else:
                    DreamStore.record_outcome(tx, change_id, "applied", now=now, after=after)
        except BaseException:
            self._abandon(note)
            raise
        self._done(note)
        if moved:
            raise ChangeRefused(f"Not applied: {moved}")
        return self._dreams.change(change_id)

    def reject(self, change_id: int) -> DreamChange:
        self.finish_interrupted()
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
        self.finish_interrupted()
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
                self._revert_files(change)

    def _revert_files(self, change: DreamChange) -> None:
        """Undo one change to skill files, noted, then recorded."""
        note = self._write_note(
            {
                "op": "revert",
                "run": change.dream_run_id,
                "pass": change.pass_name,
                "change": change.id,
                **self._files.undo_intent(change),
            }
        )
        try:
            self._files.undo(self._at(None, "user", change.dream_run_id), change)
            with self._db.transaction() as tx:
                DreamStore.record_outcome(tx, change.id, "reverted", now=self._dreams.now())
        except BaseException:
            self._abandon(note)
            raise
        self._done(note)

    # -- helpers -------------------------------------------------------------
    def _note(
        self,
        op: str,
        run_id: int,
        pass_name: str,
        change_id: int | None,
        made: Sequence[tuple[Proposal, dict[str, Any]]],
    ) -> Path | None:
        """The note of the file changes *made* (proposals and the skills they
        touch as they are), written before the first is made; None if none."""
        if not made:
            return None
        note: dict[str, Any] = {"op": op, "run": run_id, "pass": pass_name, "change": change_id}
        note["skills"], note["drafts"] = {}, []
        for proposal, before in made:
            intent = self._files.intent(proposal, before)
            note["skills"].update(intent["skills"])
            note["drafts"] += intent["drafts"]
        return self._write_note(note)

    def _write_note(self, note: dict[str, Any]) -> Path:
        if self._notes is None:
            raise ChangeRefused("Skills are not available.")
        path = self._notes.new_path()
        note = {**note, "id": path.stem}
        self._held[path] = self._notes.write(path, note)  # locked until settled
        self._in_flight[path] = note
        return path

    def _settle(self, path: Path, note: dict[str, Any]) -> list[str]:
        """Take back *note*'s changes unless their record landed, then drop
        the note; the skills left as they are (changed by hand since)."""
        assert self._notes is not None, "a note is only written where skills are"
        left: list[str] = []
        if not self._recorded(note):
            put_back = self._files.put_back(self._at(None, "user", int(note["run"])), note)
            if put_back.discarded:  # their files went first: a kill between leaves the row
                PurgeStore(self._db).forget_skills(put_back.discarded)
            left = put_back.left
        self._notes.remove(path)
        return left

    def _recorded(self, note: dict[str, Any]) -> bool:
        """Whether the record of *note*'s change landed in the database."""
        if note["op"] == "apply":
            changes = self._dreams.changes(int(note["run"]))
            if note.get("id") is None:  # an older version's note: the pass's record
                return any(
                    c.pass_name == note["pass"] and c.kind in self._files.kinds for c in changes
                )
            # Its own record: a run resumed may apply the same pass again.
            return any((c.after or {}).get("note") == note["id"] for c in changes)
        try:
            status = self._dreams.change(int(note["change"])).status
        except RowNotFound:
            return False  # erased since: nothing holds the change
        return status != "pending" if note["op"] == "approve" else status == "reverted"

    def _abandon(self, note: Path | None) -> None:
        """After a failure: take back what *note*'s change made of the files.
        If that fails too, the note stays for ``finish_interrupted``; the
        first error is the one reported."""
        if note is None:
            return
        try:
            self._settle(note, self._in_flight[note])
        except ReverieError as error:
            log.warning("a failed skill change is not taken back yet: %s", type(error).__name__)
        finally:
            self._let_go(note)

    def _done(self, note: Path | None) -> None:
        """The change is made and recorded: its note goes."""
        if note is None or self._notes is None:
            return
        try:
            self._notes.remove(note)
        except ReverieError as error:
            # Made and recorded: settling finds the record and drops the note.
            log.warning(
                "a skill change note stays until the next settling: %s", type(error).__name__
            )
        finally:
            self._let_go(note)

    def _let_go(self, note: Path) -> None:
        del self._in_flight[note]
        held = self._held.pop(note)
        if self._notes is not None:
            self._notes.release(held)

    def _named_since(self, proposal: Proposal) -> bool:
        """Whether *proposal* holds a secret named after it was drafted: the
        turn that named it took it out of everything stored, but not out of
        this (checked in the transaction that would store it, or before its
        files are written)."""
        if self._holds_named_secret is None:
            return False
        said = json.dumps([proposal.summary, proposal.payload], ensure_ascii=False)
        return self._holds_named_secret(said)

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
