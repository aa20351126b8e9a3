"""How the Work window words a worker: its state, its time, its place in
the tree, and the detail pane's facts and transcript.  Plain functions of
the stored rows, so the window only lays them out."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from desktop.core.db.workers import Worker, WorkerMessage, WorkerState
from desktop.ui.widgets.labels import when

STATE_WORDS: dict[WorkerState, str] = {
    "waiting_deps": "Waiting on dependencies",
    "waiting_time": "Waiting for its time",
    "running": "Running",
    "continuing": "Continuing",
    "completed": "Completed",
    "failed": "Failed",
    "cancelled": "Cancelled",
}
WAITING_TURN = "Waiting its turn"
"""Said of a worker free to run: "Waiting for its time" misled, with no time set."""
TURN_WHY = "it starts once no other worker runs and you have been quiet a moment"
MODE_WORDS = {
    "minimal": "minimal",
    "full": "full",
    "base_only": "base prompt only",
    "none": "no system prompt",
}
ROLE_WORDS = {"user": "Asked", "assistant": "Worker", "tool": "Tool result"}
EMPTY_WORK = (
    "No background work yet. Ask Reverie to do something in the background, e.g. "
    "“research A and B, then write C from both, not before 20:00”, and its workers "
    "appear here."
)


@dataclass(frozen=True)
class Node:
    """A worker in the tree, and the rows under it: the workers it spawned
    and the hops that continued it after it ran out of time."""

    worker: Worker
    children: tuple[Node, ...]


def tree(workers: Sequence[Worker]) -> list[Node]:
    """*workers* as a forest: a continuation under its first hop, a spawned
    worker under its spawner's first hop, the rest at the top; oldest first."""
    under: dict[int | None, list[Worker]] = {}
    for worker in workers:
        above = worker.continuation_of or worker.parent_id
        under.setdefault(above, []).append(worker)
    known = {w.id for w in workers}

    def node(worker: Worker) -> Node:
        return Node(worker, tuple(node(w) for w in under.get(worker.id, [])))

    roots = [w for w in workers if (w.continuation_of or w.parent_id) not in known]
    return [node(w) for w in roots]


def listed_state(worker: Worker, now: float | None = None) -> str:
    """The state as the list's column says it: a worker free to run (no
    time gate, or one passed) waits its turn, not for a time."""
    if worker.state == "waiting_time" and not _gated(worker, now):
        return WAITING_TURN
    return STATE_WORDS[worker.state]


def state_words(worker: Worker, now: float | None = None) -> str:
    """The state in full: a time gate with its time, a turn with what it waits for."""
    words = listed_state(worker, now)
    if words == WAITING_TURN:
        return f"{words}: {TURN_WHY}"
    if worker.state == "waiting_time" and worker.not_before is not None:
        return f"{words} ({_moment(worker.not_before, now)})"
    return words


def _gated(worker: Worker, now: float | None) -> bool:
    """Whether *worker* waits for a time still ahead."""
    return worker.not_before is not None and worker.not_before > (now or time.time())


def duration(seconds: float) -> str:
    """ "0 s", "42 s", "3 min 5 s", "1 h 2 min"."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


def dependency_words(dependencies: Sequence[int]) -> str:
    """ "#2, #3": the ids of the workers it waits (or waited) on."""
    return ", ".join(f"#{d}" for d in dependencies)


def title(worker: Worker) -> str:
    """The list's first column: its id and objective (a continuation says so)."""
    if worker.continuation_of is not None:
        return f"#{worker.id} continued, hop {worker.continuations + 1}"
    return f"#{worker.id} {' '.join(worker.objective.split())}"


def facts(worker: Worker, dependencies: Sequence[Worker]) -> list[tuple[str, str]]:
    """The detail pane's lines: (what, value)."""
    lines = [
        ("State", state_words(worker)),
        ("Mode", MODE_WORDS.get(worker.mode, worker.mode)),
    ]
    if worker.profile:
        lines.append(("Profile", worker.profile))
    lines.append(("Tools", ", ".join(worker.tools) or "none"))
    lines.append(
        (
            "Depends on",
            "\n".join(  # one line each
                f"#{d.id} {d.objective} ({listed_state(d).lower()})" for d in dependencies
            )
            or "nothing",
        )
    )
    lines.append(("Time used", f"{duration(worker.time_used)} of {duration(worker.timeout_s)}"))
    lines.append(("Started", "not yet" if worker.started_at is None else when(worker.started_at)))
    if worker.ended_at is not None:
        lines.append(("Ended", when(worker.ended_at)))
    if worker.off_record:
        lines.append(("Off the record", "it writes no memories"))
    if worker.state == "completed" and worker.result:
        lines.append(("Result", worker.result))
    if worker.state == "failed":
        lines.append(("Why it failed", worker.failure or "unknown"))
    return lines


def transcript_text(messages: Sequence[WorkerMessage]) -> str:
    """Each message of a worker's transcript, with who wrote it."""
    if not messages:
        return "Nothing said yet."
    return "\n\n".join(f"{ROLE_WORDS.get(m.role, m.role)}:\n{m.content}" for m in messages)


def _moment(timestamp: float, now: float | None) -> str:
    moment = datetime.fromtimestamp(timestamp)
    today = datetime.fromtimestamp(now).date() if now is not None else datetime.now().date()
    return f"{moment:%H:%M}" if moment.date() == today else when(timestamp)
