"""Tests of the secret store: the system keyring or a loud failure, never a plain file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import keyring.errors
import pytest
from keyring.backends import fail, null

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.paths import AppPaths
from desktop.core.base.secrets import SERVICE, SecretStore, SecretsUnavailable
from tests.fakes import MemoryKeyring

SECRET = "sk-very-secret-value-123"


class LockedKeyring(MemoryKeyring):
    """A keyring that exists but refuses every operation (e.g. it is locked)."""

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("the keyring is locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.PasswordSetError("the keyring is locked")

    def delete_password(self, service: str, username: str) -> None:
        raise keyring.errors.KeyringLocked("the keyring is locked")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary HOME (and XDG folders), where a file-based keyring would write."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for variable, folder in [
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_STATE_HOME", ".local/state"),
    ]:
        monkeypatch.setenv(variable, str(home / folder))
    return home


@pytest.fixture
def system_keyring_missing() -> Iterator[None]:
    """The process-wide keyring set to keyring's own "no backend found"."""
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


def _files_under(*folders: Path) -> list[Path]:
    return [path for folder in folders for path in folder.rglob("*") if path.is_file()]


def _files_containing(secret: str, *folders: Path) -> list[Path]:
    return [path for path in _files_under(*folders) if secret.encode() in path.read_bytes()]


@pytest.mark.usefixtures("system_keyring_missing")
def test_without_a_keyring_saving_fails_loudly_and_writes_no_file(
    home: Path, user_dirs: AppPaths
) -> None:
    reverie_home = user_dirs.config_dir.parent
    store = SecretStore()  # the process-wide keyring

    with pytest.raises(SecretsUnavailable) as caught:
        store.set("server-api-key", SECRET)

    assert not store.available
    assert isinstance(caught.value, EnvironmentProblem)
    assert "keyring" in caught.value.hint
    assert SECRET not in str(caught.value)
    assert _files_under(home, reverie_home) == []
    assert store.get("server-api-key") is None
    store.delete("server-api-key")  # nothing to delete: no error


def test_a_null_keyring_that_drops_secrets_counts_as_missing(home: Path) -> None:
    store = SecretStore(null.Keyring())

    with pytest.raises(SecretsUnavailable):
        store.set("server-api-key", SECRET)

    assert not store.available


def test_with_a_keyring_secrets_are_stored_read_and_deleted(
    home: Path, user_dirs: AppPaths
) -> None:
    backend = MemoryKeyring()
    store = SecretStore(backend)

    store.set("server-api-key", SECRET)

    assert store.available
    assert store.get("server-api-key") == SECRET
    assert backend.passwords == {(SERVICE, "server-api-key"): SECRET}
    assert _files_containing(SECRET, home, user_dirs.config_dir.parent) == []
    store.delete("server-api-key")
    assert store.get("server-api-key") is None


def test_an_absent_secret_reads_as_none_and_deletes_quietly() -> None:
    store = SecretStore(MemoryKeyring())

    assert store.get("never-set") is None
    store.delete("never-set")  # deleting is idempotent


def test_a_locked_keyring_raises_secrets_unavailable_on_every_operation() -> None:
    store = SecretStore(LockedKeyring())

    with pytest.raises(SecretsUnavailable, match="not saved"):
        store.set("server-api-key", SECRET)
    with pytest.raises(SecretsUnavailable, match="read"):
        store.get("server-api-key")
    with pytest.raises(SecretsUnavailable, match="delete"):
        store.delete("server-api-key")
