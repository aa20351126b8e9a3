"""The rules of the workers' graph, as plain functions over ids.

An edge ``(a, b)`` says *a* cannot be done before *b*: a dependent before
what it depends on, and a worker before the workers it spawned (their
results, reported together, are the rest of its work).  A new worker is
refused if its edges close a cycle, which no order could run; ids it names
that no worker has are dropped (a small model's guess must never leave a
worker waiting for ever).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo

from desktop.core.base.errors import ReverieError

log = logging.getLogger(__name__)

EARLIEST = datetime(1970, 1, 2, tzinfo=UTC)
LATEST = datetime(9000, 1, 1, tzinfo=UTC)
"""The time gates a worker may have: one a day inside the range a clock and
a window can show in any zone (year 1 at +14:00 or 9999 at -14:00 is not
a date Python can make, and the Work window could list no worker)."""


class SpawnRefused(ReverieError):
    """A worker that cannot be spawned as asked; ``str()`` is for the model."""


@dataclass(frozen=True)
class Dependencies:
    kept: tuple[int, ...]
    stripped: tuple[int, ...]
    """Named but no worker of this conversation has them."""


def resolve_dependencies(
    asked: Sequence[int], previous: Sequence[int], known: Collection[int], *, previous_too: bool
) -> Dependencies:
    """The workers a new one waits on: *asked*, and with *previous_too*
    every worker its spawner started before (*previous*), those not in
    *known* dropped with a warning."""
    wanted = list(dict.fromkeys([*asked, *(previous if previous_too else ())]))
    kept = tuple(i for i in wanted if i in known)
    stripped = tuple(i for i in wanted if i not in known)
    if stripped:
        log.warning("a new worker named workers that do not exist: %s; dropped", stripped)
    return Dependencies(kept, stripped)


def find_cycle(edges: Iterable[tuple[int, int]]) -> list[int] | None:
    """A cycle of the graph *edges* make, as the ids along it; None if there is none."""
    graph: dict[int, list[int]] = {}
    for before, after in edges:
        graph.setdefault(before, []).append(after)
    done: set[int] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path: list[int] = []
        on_path: set[int] = set()
        stack: list[tuple[int, int]] = [(start, 0)]
        while stack:
            node, at = stack.pop()
            if at == 0:
                path.append(node)
                on_path.add(node)
            following = graph.get(node, [])
            if at < len(following):
                stack.append((node, at + 1))
                nxt = following[at]
                if nxt in on_path:
                    return [*path[path.index(nxt) :], nxt]
                if nxt not in done:
                    stack.append((nxt, 0))
                continue
            path.pop()
            on_path.discard(node)
            done.add(node)
    return None


def not_before_time(written: str | None, zone: tzinfo) -> float | None:
    """*written* (ISO-8601) as unix seconds; a time without a zone is read
    in *zone*.  ``SpawnRefused`` if it cannot be read or is out of range
    (``EARLIEST``, ``LATEST``), never a silent start now."""
    if written is None:
        return None
    try:
        when = datetime.fromisoformat(written.strip())
    except ValueError:
        raise SpawnRefused(
            f"not_before {written!r} is not a time Reverie can read; write it as ISO-8601, "
            "e.g. 2026-12-01T20:00 (in the user's time zone) or 2026-12-01T20:00+01:00. "
            "Nothing was started."
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=zone)
    if not EARLIEST <= when <= LATEST:
        raise SpawnRefused(
            f"not_before {written!r} is not between {EARLIEST:%Y} and {LATEST:%Y}; "
            "nothing was started."
        )
    return when.timestamp()
