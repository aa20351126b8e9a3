"""What a finished model job means for the user, in words."""

from __future__ import annotations

from desktop.core.errors import EnvironmentProblem
from models.broker import Job
from models.errors import ModelError

CHAT = "Chat"
EMBEDDER = "Memory search (the embedding model)"


def failure_message(what: str, job: Job) -> str | None:
    """Wait for *job*; a user-facing sentence if it failed, else None."""
    try:
        job.result()
    except (ModelError, EnvironmentProblem, OSError) as error:
        return f"{what} is unavailable: {error}"
    return None
