"""``Dreamer``: one dream, from snapshot to report.

1. A consistent, checked snapshot of the database (``VACUUM INTO``; the last
   few kept; see ``snapshots``).  Without it the dream does not start.
2. A dream-run row, ``running`` until ``completed``; a paused or interrupted
   run is resumed from its checkpoint (the passes done, the model answers
   of the pass under way), not started again.
3. Each pass plans, then its changes are applied in one transaction, all or
   nothing, behind a circuit breaker: a pass that would supersede or archive
   more than a set share of the active memories changes nothing.  Passes
   are independent: one that fails is logged and the others go on.
4. The working set (``MEMORIES.md``) is written for reading and backup.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import DreamSettings
from desktop.core.db import Database, DiskFull, DreamRun, DreamStore, MemoryStore, RunStatus
from desktop.core.db.tally import described
from desktop.core.dreaming.changes import ChangeBook
from desktop.core.dreaming.control import DreamControl, DreamProgress, DreamStopped
from desktop.core.dreaming.erasure import Eraser
from desktop.core.dreaming.passes import DreamPass, PassContext, PassRejected
from desktop.core.dreaming.proposals import Applied, ChangeRefused, Proposal
from desktop.core.dreaming.snapshots import SnapshotFailed, snapshot_stamp, take_snapshot
from desktop.core.dreaming.working_set import write_working_set
from desktop.core.memory.service import MemoryService
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from models.errors import GenerationCancelled

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DreamReport:
    run: DreamRun
    applied: int = 0
    pending: int = 0
    outcomes: dict[str, str] = field(default_factory=dict, hash=False)
    """Per pass, what happened, in a sentence."""

    @property
    def changes(self) -> int:
        return self.applied + self.pending


class Dreamer:
    def __init__(
        self,
        database: Database,
        memories: MemoryService,
        broker: InferenceBroker,
        prompts: PromptLibrary,
        settings: DreamSettings,
        passes: Sequence[DreamPass],
        *,
        snapshots_dir: Path,
        working_set_file: Path,
        tasks: TaskService | None = None,
        skills: SkillLibrary | None = None,
        eraser: Eraser | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.dreams = DreamStore(database, clock=clock)
        self.eraser = eraser or Eraser(
            database,
            memories.store,
            snapshots_dir=snapshots_dir,
            working_set_file=working_set_file,
            working_set_size=lambda: settings.working_set_size,
            kept_days=lambda: settings.deleted_kept_days,
            clock=clock,
            skills=skills,
        )
        """Erases what was deleted longer ago than the restore window, after each dream."""
        self.book = ChangeBook(
            database,
            memories.store,
            self.dreams,
            settings,
            tasks=tasks,
            skills=skills,
            holds_named_secret=memories.holds_named_secret,
        )
        self._db = database
        self._memories = memories
        self._broker = broker
        self._prompts = prompts
        self._settings = settings
        self._passes = list(passes)
        self._snapshots_dir = snapshots_dir
        self._skills_dir = None if skills is None else skills.directory
        self._working_set_file = working_set_file
        self._clock = clock

    @property
    def store(self) -> MemoryStore:
        return self._memories.store

    def due_early(self) -> bool:
        """Enough memories were added since the last dream to dream now."""
        last = self.dreams.last_completed()
        since = 0.0 if last is None else last.started_at or last.created_at
        return self.store.count_added_since(since) >= self._settings.early_after_new_memories

    def run(self, trigger: str, control: DreamControl) -> DreamReport:
        """Dream now (or go on with the dream that was interrupted)."""
        run = self.dreams.unfinished()
        if run is None:
            try:
                self._snapshot()
            except SnapshotFailed as failed:  # no copy, no dream: the run says why
                self._record_failure(trigger, failed)
                raise
            run = self.dreams.start(trigger)
        else:
            run = self.dreams.resume(run.id)
        checkpoint: dict[str, Any] = dict(run.checkpoint or {})
        done: list[str] = list(checkpoint.get("done", []))
        totals = dict(checkpoint.get("totals", {"applied": 0, "pending": 0}))
        outcomes: dict[str, str] = dict(checkpoint.get("outcomes", {}))
        answers: dict[str, str] = dict(checkpoint.get("answers", {}))
        now = float(checkpoint.setdefault("now", run.started_at or self._clock()))

        cleaned: set[str] = set()

        def clean(text: str) -> str:
            # Redacted as all text stored is, once (tens of milliseconds an
            # answer); then only the secrets named since, while the dream ran
            # (taken out of the saved checkpoint), which must not come back.
            if text in cleaned:
                text = self._memories.without_named_secrets(text)
            else:
                text = self._memories.redacted(text)
            cleaned.add(text)
            return text

        def save() -> None:
            for kept in (answers, outcomes):
                kept.update((k, clean(v)) for k, v in kept.items())
            checkpoint.update(done=done, totals=totals, outcomes=outcomes, answers=answers)
            self.dreams.save_checkpoint(run.id, checkpoint)

        erasures = self.eraser.erasures
        status: RunStatus = "completed"
        try:
            with control.jobs.scope():  # the embeddings of a pass stop with the dream too
                self._run_passes(run.id, now, control, done, totals, outcomes, answers, save)
            control.give_way(
                DreamProgress("working_set", "Writing MEMORIES.md", len(done), len(self._passes))
            )
            self._write_working_set(outcomes)
            outcomes["erase_expired"] = self.eraser.erase_after_dream()
        except DreamStopped as stopped:
            save()
            status = "paused" if stopped.reason == "paused" else "cancelled"
        finished = self.dreams.finish(run.id, status, {**totals, "outcomes": outcomes})
        if self.eraser.erasures != erasures:
            # Something was erased while this dream ran: what it wrote since
            # may hold the model's words about it, from before.
            self.eraser.blank_dream_words()
        return DreamReport(finished, totals["applied"], totals["pending"], outcomes)

    def _run_passes(
        self,
        run_id: int,
        now: float,
        control: DreamControl,
        done: list[str],
        totals: dict[str, int],
        outcomes: dict[str, str],
        answers: dict[str, str],
        save: Callable[[], None],
    ) -> None:
        """Every pass not done yet, in order, each saved as it ends."""
        for step, dream_pass in enumerate(self._passes):
            if dream_pass.name in done:
                continue
            progress = DreamProgress(dream_pass.name, dream_pass.title, step, len(self._passes))
            control.give_way(progress)
            context = PassContext(
                run_id,
                now,
                self.dreams.judged_through(dream_pass.name),
                self._memories,
                self._settings,
                self._prompts,
                control,
                progress,
                answers,
                save,
                self._broker,
            )
            applied = self._run_pass(run_id, dream_pass, context, outcomes)
            totals["applied"] += applied.applied
            totals["pending"] += applied.pending
            done.append(dream_pass.name)
            answers.clear()  # the next pass starts with no answers kept
            save()

    def _run_pass(
        self, run_id: int, dream_pass: DreamPass, context: PassContext, outcomes: dict[str, str]
    ) -> Applied:
        name = dream_pass.name
        read_at = self.dreams.now()  # what changes after this, the model did not see
        try:
            proposals = dream_pass.plan(context)
            tripped = self._tripped(proposals)
            if tripped:
                self.dreams.log(run_id, name, "tripped", tripped)
                outcomes[name] = tripped
                return Applied()
            context.control.give_way(context.progress)
            applied = self.book.apply_pass(run_id, name, proposals, context.mark, read_at)
        except DreamStopped:
            raise
        except GenerationCancelled as stopped:  # an embedding of the pass, stopped with it
            raise DreamStopped(context.control.stopped or "cancelled") from stopped
        except PassRejected as rejected:
            message = f"Nothing changed: {rejected}."
            self.dreams.log(run_id, name, "rolled_back", message, rejected.raw_output)
            outcomes[name] = message
            return Applied()
        except DiskFull:  # every pass after would fail alike: the dream stops, to go on later
            raise
        except ChangeRefused as refused:  # edited by hand as it was written: a race, not a fault
            why = str(refused).removeprefix("Not applied: ")
            message = f"Nothing changed: {why}; the next dream looks again."
            self.dreams.log(run_id, name, "rolled_back", message)
            outcomes[name] = message
            return Applied()
        except Exception as error:  # each pass is independent: the others go on
            log.exception("dream pass %s failed", name)
            message = f"Nothing changed: the pass failed ({error})"
            self.dreams.log(run_id, name, "failed", message)
            outcomes[name] = message
            return Applied()
        counted = described({"applied": applied.applied, "pending": applied.pending})
        message = " ".join([counted, *_left_words(applied.left), *context.notes])
        self.dreams.log(run_id, name, "applied" if proposals else "nothing", message)
        outcomes[name] = message
        return applied

    def _tripped(self, proposals: Sequence[Proposal]) -> str:
        """Why the circuit breaker stops these proposals ("" if it does not)."""
        retired = {memory_id for p in proposals for memory_id in p.retires}
        active = self.store.count_active()
        allowed = max(
            self._settings.max_retired_floor, int(self._settings.max_retired_share * active)
        )
        if len(retired) <= allowed:
            return ""
        return (
            f"Nothing changed: the pass would have retired {len(retired)} of {active} active "
            f"memories, more than the {allowed} allowed at once (dream.max_retired_share)."
        )

    def _snapshot(self) -> None:
        """Copy the database and the skills folder before dreaming (see
        ``snapshots``); keep the newest few copies.  Raises ``SnapshotFailed``."""
        take_snapshot(
            self._db,
            self._snapshots_dir,
            snapshot_stamp(self._clock()),
            skills_dir=self._skills_dir,
            keep=self._settings.snapshots_kept,
            under=self.eraser.snapshots_lock,  # never beside an erasure ("Delete now")
        )

    def _record_failure(self, trigger: str, failed: SnapshotFailed) -> None:
        try:
            self.dreams.record_failed(trigger, str(failed))
        except EnvironmentProblem as also:  # a full disk may refuse the record too
            failed.add_note(f"the failed dream could not be recorded either: {also}")

    def _write_working_set(self, outcomes: dict[str, str]) -> None:
        try:
            count = write_working_set(
                self.store, self._working_set_file, self._settings.working_set_size
            )
        except OSError as error:
            outcomes["working_set"] = f"MEMORIES.md could not be written: {error}"
            return
        outcomes["working_set"] = f"MEMORIES.md lists {count} memories."


def _left_words(left: Sequence[str]) -> list[str]:
    """The changes left for the next dream, in words (none: nothing)."""
    if not left:
        return []
    changes = "1 change was" if len(left) == 1 else f"{len(left)} changes were"
    return [f"{changes} left for the next dream: {'; '.join(left)}."]
