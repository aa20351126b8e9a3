"""Typed errors of the application core.

``EnvironmentProblem`` is something the user can fix (a missing library, an
unreadable file, a full disk); it carries a ``hint`` saying how.  Anything
else escaping the core is a bug.

An error's message is for the user, and may name their files (a path holds
their home and often their name); ``brief`` says what went wrong without
them, for a model that reads why a tool failed (a server backend may run
on another machine, and what the model repeats is stored and exported).
"""

from __future__ import annotations

from typing import ClassVar


class ReverieError(Exception):
    """Base class of the core's errors."""

    brief: ClassVar[str | None] = None
    """What went wrong, naming no file, when the message may name one (None:
    the message names none, and is said as it is)."""


def said_to_a_model(error: ReverieError) -> str:
    """What a model is told of *error*: its ``brief`` if it has one, else its message."""
    return error.brief or str(error)


class EnvironmentProblem(ReverieError):
    """A problem with the user's machine or files, with a hint to fix it."""

    brief: ClassVar[str | None] = (
        "a file or folder Reverie keeps on this computer could not be used; "
        "the user was shown which, and what to do"
    )

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base} {self.hint}" if self.hint else base
