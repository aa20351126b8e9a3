"""Round 8 of issue 15 against ``reverie models use --server``: an API key
that cannot be sent is refused as it is read, never quoted, and nothing is
stored or chosen."""

from __future__ import annotations

from collections.abc import Iterator

import keyring
import pytest

from desktop import models_cli
from desktop.app import main
from desktop.core.paths import AppPaths
from desktop.core.settings import Settings, load_settings
from tests.fakes import MemoryKeyring


@pytest.fixture
def keys() -> Iterator[MemoryKeyring]:
    """The system keyring, as the secret store finds it, in memory."""
    previous = keyring.get_keyring()
    memory = MemoryKeyring()
    keyring.set_keyring(memory)
    yield memory
    keyring.set_keyring(previous)


@pytest.mark.parametrize(
    ("key", "said"),
    [("sk-SECRET123\nX: 1", "line break"), ("\u201csk-SECRET123\u201d", "quotes")],
)
def test_a_key_that_cannot_be_sent_is_refused_and_nothing_is_kept(
    user_dirs: AppPaths,
    keys: MemoryKeyring,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    key: str,
    said: str,
) -> None:
    monkeypatch.setenv(models_cli.API_KEY_VARIABLE, key)

    assert main(["models", "use", "--server", "http://box/v1", "--model", "m"]) == 1

    err = capsys.readouterr().err
    assert said in err and models_cli.API_KEY_VARIABLE in err
    assert "SECRET" not in err
    assert keys.passwords == {}
    settings, _ = load_settings(user_dirs.settings_file)
    assert settings.models == Settings().models
