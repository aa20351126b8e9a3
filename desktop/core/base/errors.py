"""Typed errors of the application core.

``EnvironmentProblem`` is something the user can fix (a missing library, an
unreadable file, a full disk); it carries a ``hint`` saying how.  Anything
else escaping the core is a bug.
"""

from __future__ import annotations


class ReverieError(Exception):
    """Base class of the core's errors."""


class EnvironmentProblem(ReverieError):
    """A problem with the user's machine or files, with a hint to fix it."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base} {self.hint}" if self.hint else base
