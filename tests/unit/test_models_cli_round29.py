"""Round 29 of the attacks on ``reverie models``: a model in a folder named
in Persian, or a file named with a family emoji.

Persian writes many words with a zero-width non-joiner (U+200C: its word
for "models" holds one), Indic scripts and emoji sequences with a zero-width
joiner (U+200D: a family emoji is three faces joined).  Both are format
characters, and every model path holding one was refused as holding "an
invisible or control character": the file could be neither added nor used,
from the command line, the Models page or settings.json.  They shape the
text around them and are shown, so such a path is taken now; a zero-width space (U+200B), which only
hides, and the controls that reorder text are still refused.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from desktop import models_cli
from desktop.app import main
from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import Backend, Settings, load_settings, save_settings
from tests.hub_server import HubServer
from tests.unit.test_models_cli import _one_model_catalog

_NAMED_WITH_JOINERS = [
    "\u0645\u062f\u0644\u200c\u0647\u0627/smol.gguf",  # Persian "models"
    "\U0001f468\u200d\U0001f469\u200d\U0001f467.gguf",  # a family emoji
]


def _second_name(source: Path, name: Path) -> Path:
    name.parent.mkdir(parents=True, exist_ok=True)
    if source.stat().st_dev == name.parent.stat().st_dev:
        os.link(source, name)  # a second name, not a copy of 100 MB
    else:
        shutil.copyfile(source, name)
    return name


@pytest.mark.parametrize("name", _NAMED_WITH_JOINERS)
def test_a_model_path_written_with_a_joiner_is_added_and_used(
    user_dirs: AppPaths,
    smollm2_path: Path,
    tmp_path: Path,
    name: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    model = _second_name(smollm2_path, tmp_path / name)

    assert main(["models", "add", str(model)]) == 0, capsys.readouterr().err
    assert main(["models", "use", str(model)]) == 0, capsys.readouterr().err

    settings, problem = load_settings(user_dirs.settings_file)
    assert problem is None
    assert settings.models.added == (str(model),)
    assert settings.models.chat == (Backend(kind="local", model=str(model)),)


@pytest.mark.parametrize("name", _NAMED_WITH_JOINERS)
def test_a_role_on_a_path_written_with_a_joiner_survives_a_start(
    user_dirs: AppPaths, tmp_path: Path, name: str
) -> None:
    settings_file = user_dirs.settings_file
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    settings_file.write_text(
        '{"version": 2, "models": {"chat": [{"kind": "local", "model": "%s"}]}}'
        % (tmp_path / name),
        encoding="utf-8",
    )

    settings, problem = load_settings(settings_file)

    assert problem is None
    assert settings.models.chat[0].model == str(tmp_path / name)
    save_settings(settings, settings_file)
    assert load_settings(settings_file)[0] == settings


@pytest.mark.parametrize("hidden", ["\u200b", "\u202e", "\u2066", "\u00ad", "\ufeff"])
def test_a_character_that_hides_or_reorders_is_still_refused(hidden: str) -> None:
    with pytest.raises(ValueError, match=f"U\\+{ord(hidden):04X}"):
        Backend(kind="local", model=f"/models/smol{hidden}lm.gguf")


@pytest.mark.parametrize("written", ["{folder}/{name}", "{folder}//{name}", "~/{name}"])
def test_list_names_the_file_a_role_uses_though_it_was_never_added(
    user_dirs: AppPaths,
    smollm2_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    written: str,
) -> None:
    mine = _second_name(smollm2_path, tmp_path / "mine.gguf")
    monkeypatch.setenv("HOME", str(tmp_path))
    chat = [{"kind": "local", "model": written.format(folder=tmp_path, name=mine.name)}]
    settings_file = user_dirs.settings_file
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    settings_file.write_text(json.dumps({"version": 2, "models": {"chat": chat}}), "utf-8")

    assert main(["models", "list"]) == 0

    rows = [line for line in capsys.readouterr().out.splitlines() if "mine.gguf" in line]
    assert len(rows) == 1
    assert rows[0].startswith(f"  {mine} ")
    assert rows[0].endswith("installed  [chat, background]")


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_broken_copy_of_a_catalog_model_is_no_download_and_is_downloaded_again(
    user_dirs: AppPaths,
    smollm2_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    content = smollm2_path.read_bytes()[:3_000_000]  # a model's header and some weights
    content += bytes(-len(content) % 1024)
    with HubServer() as hub:
        hub.add("someone/tiny-GGUF", "tiny-q4_k_m.gguf", content)
        monkeypatch.setattr(
            models_cli, "load_catalog", lambda: _one_model_catalog(tmp_path, content)
        )
        save_settings(
            Settings.model_validate({"models": {"hub_endpoint": hub.endpoint}}),
            user_dirs.settings_file,
        )
        placed = user_dirs.models_dir / "tiny-q4_k_m.gguf"
        placed.parent.mkdir(parents=True)
        placed.write_bytes(content[: len(content) // 2])  # a copy cut short (a crash, a cp)

        assert main(["models", "list"]) == 0
        [row] = [line for line in capsys.readouterr().out.splitlines() if "tiny " in line]
        assert "problem: tiny-q4_k_m.gguf is not a usable GGUF model file" in row

        assert main(["models", "download", "tiny"]) == 0

    assert placed.read_bytes() == content
    assert "already downloaded" not in capsys.readouterr().out
