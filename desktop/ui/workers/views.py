"""How the Work window words a worker: its state, its time, its place in
the tree, and the detail pane's facts and transcript.  Plain functions of
the stored rows, so the window only lays them out."""

from __future__ import annotations

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


def state_words(worker: Worker, now: float | None = None) -> str:
    """The state as the list says it; a time gate with its time."""
    words = STATE_WORDS[worker.state]
    if worker.state == "waiting_time" and worker.not_before is not None:
        return f"{words} ({_moment(worker.not_before, now)})"
    return words


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
                f"#{d.id} {d.objective} ({STATE_WORDS[d.state].lower()})" for d in dependencies
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
