"""Typed errors of the model layer.

``ModelUnavailable`` and its subclasses are problems the user can fix (a
missing package, a corrupt file); everything else is a bug or a failed call.
"""

from __future__ import annotations


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


class GenerationCancelled(ModelError):
    """A generation was stopped by its caller before it finished."""


class StructuredOutputError(ModelError):
    """A model's machine-read output did not validate; nothing may be applied.

    ``raw_text`` keeps what the model produced, for the log.
    """

    def __init__(self, message: str, raw_text: str) -> None:
        super().__init__(message)
        self.raw_text = raw_text
