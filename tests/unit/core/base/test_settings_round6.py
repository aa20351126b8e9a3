"""Round 6 of the attacks on the settings file: a lone surrogate written as
a JSON escape (``"\\ud800"``) is valid JSON but no text, and UTF-8 cannot
hold it.  In a key it made loading raise ``UnicodeEncodeError``; in a value
(``models.added``) it loaded unnoticed and then every save raised a
serialisation error, so ``reverie models list`` died.  It is now treated as
a byte that is not UTF-8: its entry is named and left out, the rest kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import Settings, SettingsProblem, load_settings, save_settings


@pytest.fixture
def path(user_dirs: AppPaths) -> Path:
    return user_dirs.settings_file


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff", "\\udc80", "\\ud83d"])
def test_a_lone_surrogate_in_a_key_is_named_and_the_rest_kept(path: Path, escape: str) -> None:
    _write(path, f'{{"version": 2, "z{escape}": 1, "models": {{"temperature": 0.5}}}}')

    settings, problem = load_settings(path)

    assert settings.models.temperature == 0.5
    assert isinstance(problem, SettingsProblem)
    said = str(problem)
    said.encode("utf-8")  # the message itself is text
    assert "'z\\ufffd'" in said
    save_settings(settings, path)
    assert load_settings(path) == (settings, None)


@pytest.mark.parametrize(
    "text",
    [
        '{"version": 2, "models": {"temperature": 0.5, "added": ["/m/\\ud800.gguf"]}}',
        '{"version": 2, "models": {"temperature": 0.5, "chat":'
        ' [{"kind": "local", "model": "/m/\\udbff.gguf"}]}}',
        '{"version": 2, "models": {"temperature": 0.5}, "chat": {"language": "d\\ud800e"}}',
    ],
)
def test_a_lone_surrogate_in_a_value_is_named_and_saving_still_works(path: Path, text: str) -> None:
    _write(path, text)

    settings, problem = load_settings(path)

    assert settings.models.temperature == 0.5
    assert isinstance(problem, SettingsProblem)
    assert "not UTF-8" in str(problem)
    save_settings(settings, path)  # used to raise PydanticSerializationError
    assert load_settings(path) == (settings, None)


def test_a_surrogate_pair_is_an_ordinary_character(path: Path) -> None:
    # JSON writes characters past U+FFFF as a pair of escapes: that is text.
    _write(path, '{"version": 2, "models": {"added": ["/m/\\ud83d\\ude00.gguf"]}}')

    settings, problem = load_settings(path)

    assert problem is None
    assert settings.models.added == ("/m/\U0001f600.gguf",)


def test_a_setting_that_cannot_be_written_as_utf8_is_a_settings_problem(path: Path) -> None:
    # However a lone surrogate got in (a path given on the command line in
    # bytes that are not UTF-8), saving says so instead of a traceback.
    models = Settings().models.model_copy(update={"added": ("/m/caf\udce9.gguf",)})
    settings = Settings().model_copy(update={"models": models})

    with pytest.raises(SettingsProblem) as refused:
        save_settings(settings, path)

    assert str(path) in str(refused.value)
    assert not path.exists()
