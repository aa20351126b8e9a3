"""Round 30 of the attacks on ``reverie models``: a file named by a link,
and a server's API key once no role uses the server.

The Models page keeps a file as it was chosen (a link's path); ``reverie
models add`` keeps the file the path leads to.  Added both ways, the one
file was listed twice in ``models.added`` and shown as two models by
``reverie models list``.  It is one file: ``add`` says it is on the list
already, and ``list`` shows it once.

``use`` pointing the last role on a server elsewhere left the server's API
key in the system keyring, kept for nothing; it is taken out now.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop import models_cli
from desktop.app import main
from desktop.core.backends.roles import api_key_name
from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import ModelSettings, Settings, load_settings, save_settings
from tests.fakes import MemoryKeyring
from tests.unit.test_models_cli import keys  # noqa: F401 (a fixture)


def test_a_file_listed_by_a_link_is_not_added_again_nor_listed_twice(
    user_dirs: AppPaths, smollm2_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "my-chat.gguf"
    link.symlink_to(smollm2_path)
    settings = Settings().model_copy(update={"models": ModelSettings(added=(str(link),))})
    save_settings(settings, user_dirs.settings_file)  # as the Models page adds it

    assert main(["models", "add", str(smollm2_path)]) == 0
    said = capsys.readouterr().out
    assert main(["models", "list"]) == 0
    listed = capsys.readouterr().out

    assert "Already on the list" in said
    assert load_settings(user_dirs.settings_file)[0].models.added == (str(link),)
    rows = [line for line in listed.splitlines() if str(link) in line or str(smollm2_path) in line]
    assert len(rows) == 1, listed


def test_use_takes_out_the_key_of_a_server_no_role_uses_any_more(
    user_dirs: AppPaths,
    keys: MemoryKeyring,  # noqa: F811 (a fixture)
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(models_cli.API_KEY_VARIABLE, "sk-live-4242")
    url = "https://box.example:8443/v1"
    server = ["--server", url, "--model", "qwen2.5:7b"]
    assert main(["models", "use", *server]) == 0
    assert main(["models", "use", *server, "--role", "background"]) == 0
    monkeypatch.delenv(models_cli.API_KEY_VARIABLE)

    assert main(["models", "use", "embedded"]) == 0
    kept = dict(keys.passwords)  # background work still uses it
    assert main(["models", "use", "embedded", "--role", "background"]) == 0

    assert kept == {("Reverie", api_key_name(url)): "sk-live-4242"}
    assert keys.passwords == {}
