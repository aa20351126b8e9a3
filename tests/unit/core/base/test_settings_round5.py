"""Round 5 of the attacks on the settings file: one byte that is not UTF-8
no longer sets every setting aside.  The values it spoils are named and
fall back to their defaults, the others are kept, and the original file is
still kept aside, as for any other damage."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import Settings, SettingsProblem, load_settings


@pytest.fixture
def path(user_dirs: AppPaths) -> Path:
    return user_dirs.settings_file


def _write(path: Path, data: bytes) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return data


def _set_aside(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.damaged-*"))


def test_a_byte_that_is_not_utf8_spoils_only_its_own_value(path: Path) -> None:
    original = _write(
        path,
        b'{"version": 2, "chat": {"language": "d\xe9", "keep_recent_messages": 20},'
        b' "models": {"temperature": 0.5}}',
    )

    settings, problem = load_settings(path)

    assert settings.chat.keep_recent_messages == 20
    assert settings.models.temperature == 0.5
    assert settings.chat.language == Settings().chat.language
    assert isinstance(problem, SettingsProblem)
    said = str(problem)
    assert "chat.language" in said
    assert "not UTF-8" in said
    [kept] = _set_aside(path)
    assert kept.read_bytes() == original
    assert kept.name in said


def test_a_key_that_is_not_utf8_is_named_readably_and_the_rest_kept(path: Path) -> None:
    _write(path, b'{"version": 2, "chat": {"lang\xffuage": "de", "keep_recent_messages": 20}}')

    settings, problem = load_settings(path)

    assert settings.chat.keep_recent_messages == 20
    said = str(problem)
    said.encode("utf-8")  # no lone surrogate from the damaged byte reaches the message
    assert "chat.'lang\\ufffduage'" in said
    assert "not UTF-8" in said
    assert len(_set_aside(path)) == 1


def test_a_damaged_value_inside_a_list_drops_that_setting_only(path: Path) -> None:
    _write(
        path,
        b'{"version": 2, "models": {"temperature": 0.5,'
        b' "chat": [{"kind": "local", "model": "/m/caf\xe9.gguf"}]}}',
    )

    settings, problem = load_settings(path)

    assert settings.models.temperature == 0.5
    assert settings.models.chat == Settings().models.chat
    assert "models.chat" in str(problem)


def test_a_damaged_byte_outside_any_value_still_sets_the_file_aside(path: Path) -> None:
    _write(path, b'{"version": 2, "chat": {}\xff}')

    settings, problem = load_settings(path)

    assert settings == Settings()
    assert "not UTF-8" in str(problem)
    assert len(_set_aside(path)) == 1
    assert not path.exists()
