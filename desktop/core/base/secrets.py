"""Secrets (API keys for a user's own server, tokens) through the system keyring.

Secrets never go into settings files or logs.  Where no keyring backend
exists, storing one fails loudly instead of falling back to a plain file.
"""

from __future__ import annotations

import keyring
import keyring.backend
import keyring.errors
from keyring.backends import fail, null

from desktop.core.base.errors import EnvironmentProblem

SERVICE = "Reverie"


class SecretsUnavailable(EnvironmentProblem):
    """No usable system keyring; the secret was not stored."""


class SecretStore:
    def __init__(self, backend: keyring.backend.KeyringBackend | None = None) -> None:
        self._backend = backend or keyring.get_keyring()
        self._revisions: dict[str, int] = {}

    def revision(self, name: str) -> int:
        """How often *name* was set or deleted through this store: a backend
        made with an older key is made again."""
        return self._revisions.get(name, 0)

    @property
    def available(self) -> bool:
        # The null backend accepts a secret and silently drops it.
        return not isinstance(self._backend, fail.Keyring | null.Keyring)

    def get(self, name: str) -> str | None:
        if not self.available:
            return None
        try:
            return self._backend.get_password(SERVICE, name)
        except keyring.errors.KeyringError as error:
            raise self._problem(f"Could not read the secret {name!r}: {error}") from error

    def set(self, name: str, value: str) -> None:
        if not self.available:
            raise self._problem(f"The secret {name!r} was not saved: no system keyring was found.")
        try:
            self._backend.set_password(SERVICE, name, value)
        except keyring.errors.KeyringError as error:
            raise self._problem(f"The secret {name!r} was not saved: {error}") from error
        self._revisions[name] = self.revision(name) + 1

    def delete(self, name: str) -> None:
        if not self.available:
            return
        self._revisions[name] = self.revision(name) + 1
        try:
            self._backend.delete_password(SERVICE, name)
        except keyring.errors.PasswordDeleteError:
            pass  # already absent: deleting is idempotent
        except keyring.errors.KeyringError as error:
            raise self._problem(f"Could not delete the secret {name!r}: {error}") from error

    @staticmethod
    def _problem(message: str) -> SecretsUnavailable:
        return SecretsUnavailable(
            message,
            "Install and unlock a keyring service (GNOME Keyring, KWallet, or the macOS/"
            "Windows credential store). Reverie never writes secrets to plain files.",
        )
