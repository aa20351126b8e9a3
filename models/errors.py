"""Typed errors of the model layer.

``ModelUnavailable`` and its subclasses are problems the user can fix (a
missing package, a corrupt file); everything else is a bug or a failed call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal


class ModelError(Exception):
    """Base class of every error raised by the model layer."""


class ModelUnavailable(ModelError):
    """A model cannot be loaded; ``hint`` tells the user how to fix it."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base} {self.hint}" if self.hint else base


class ModelNotInstalled(ModelUnavailable):
    """An embedded default model's package is not installed."""


class ModelFileInvalid(ModelUnavailable):
    """A model file is missing, truncated or not a usable GGUF."""


class ModelConversionError(ModelUnavailable):
    """Converting a model to GGUF failed or produced a model that fails its check.

    The user can fix it (reinstall the package the model came from), so it is
    a ``ModelUnavailable``.
    """


class NoRoomToPrepare(ModelUnavailable):
    """A model could not be prepared (converted) for want of disk space:
    the source is fine.  ``folder`` is where the write failed."""

    def __init__(self, message: str, hint: str, folder: Path) -> None:
        super().__init__(message, hint)
        self.folder = folder


class GenerationCancelled(ModelError):
    """A generation was stopped by its caller before it finished."""


class StructuredOutputError(ModelError):
    """A model's machine-read output did not validate; nothing may be applied.

    ``raw_text`` keeps what the model produced, for the log.
    """

    def __init__(self, message: str, raw_text: str) -> None:
        super().__init__(message)
        self.raw_text = raw_text


# -- downloads ---------------------------------------------------------------------
Check = Literal["size", "sha256", "gguf"]
"""What a downloaded file is checked for before it is put in place."""


class DownloadFailed(ModelUnavailable):
    """A download did not produce a usable file; the message says why, ``hint`` what to do."""


class Offline(DownloadFailed):
    """The server could not be reached at all (no network, DNS failure, refused)."""


class ServerError(DownloadFailed):
    """The server kept failing (5xx, 429, timeouts, dropped connections) through every retry."""


class ServerRefused(DownloadFailed):
    """The server answered with a 4xx: retrying cannot help."""

    def __init__(self, message: str, hint: str, status: int) -> None:
        super().__init__(message, hint)
        self.status = status


class DiskFull(DownloadFailed):
    """The file does not fit on the disk; the ``.part`` is kept so the download can resume."""


class FileRejected(DownloadFailed):
    """The downloaded file failed a check; it was kept aside at ``kept_at``, never put in place."""

    def __init__(self, message: str, hint: str, check: Check, kept_at: Path) -> None:
        super().__init__(message, hint)
        self.check = check
        self.kept_at = kept_at


class DownloadStopped(ModelError):
    """A download stopped because its caller asked; not a failure."""

    def __init__(self, message: str, received: int, total: int | None) -> None:
        super().__init__(message)
        self.received = received
        self.total = total


class DownloadPaused(DownloadStopped):
    """Paused: the ``.part`` and its sidecar are kept; the same request resumes it."""


class DownloadCancelled(DownloadStopped):
    """Cancelled: nothing the download wrote is left behind."""
