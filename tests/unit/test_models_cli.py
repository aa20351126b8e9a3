"""Tests of ``reverie models ...``: listing, estimating, adding, choosing and
downloading models from the command line, against real files and a local Hub."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest

from desktop import models_cli
from desktop.app import main
from desktop.core.backends.roles import api_key_name
from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import Backend, Settings, load_settings, save_settings
from desktop.core.base.text import size_text
from models.catalog import Catalog, load_catalog
from models.memory_estimate import estimate_for_file
from tests.fakes import MemoryKeyring
from tests.hub_server import HubServer, sha256_hex


def _settings(paths: AppPaths) -> Settings:
    settings, problem = load_settings(paths.settings_file)
    assert problem is None
    return settings


@pytest.fixture
def keys() -> Iterator[MemoryKeyring]:
    """The system keyring, as the secret store finds it, in memory."""
    previous = keyring.get_keyring()
    memory = MemoryKeyring()
    keyring.set_keyring(memory)
    yield memory
    keyring.set_keyring(previous)


def test_list_shows_the_catalog_with_what_each_model_needs(
    user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "list"]) == 0

    out = capsys.readouterr().out
    assert "Memory available now:" in out
    row = next(line for line in out.splitlines() if "qwen2.5-1.5b-instruct" in line)
    assert "1.1 GB" in row and "needs" in row and "not downloaded" in row
    assert "bge-m3" in out.split("Embedding models:")[1]
    embedded = next(line for line in out.splitlines() if "SmolLM2 135M" in line)
    assert "installed" in embedded and "[chat, background]" in embedded


def test_estimate_prints_the_estimate_of_the_file(
    smollm2_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "estimate", str(smollm2_path), "--context", "4096"]) == 0

    out = capsys.readouterr().out
    expected = estimate_for_file(smollm2_path, 4096)
    assert "a chat model (llama, 135M, Q4_1)" in out
    assert f"total          {size_text(expected.total):>10}" in out
    assert "(4096 tokens)" in out


def test_estimate_of_a_file_that_is_not_a_model_fails_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bogus = tmp_path / "notes.gguf"
    bogus.write_text("not a model")

    assert main(["models", "estimate", str(bogus)]) == 1
    assert "notes.gguf" in capsys.readouterr().err


def test_add_keeps_a_good_file_in_the_settings_and_refuses_a_bad_one(
    user_dirs: AppPaths, smollm2_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "add", str(smollm2_path)]) == 0
    assert _settings(user_dirs).models.added == (str(smollm2_path.resolve()),)
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + os.urandom(64))

    assert main(["models", "add", str(broken)]) == 1
    assert "broken.gguf" in capsys.readouterr().err
    assert _settings(user_dirs).models.added == (str(smollm2_path.resolve()),)


def test_a_path_in_the_home_of_an_unknown_user_is_refused_with_the_reason(
    user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    ref = "~nosuchuser_zz/m.gguf"
    for command in (["add", ref], ["use", ref], ["estimate", ref]):
        assert main(["models", *command]) == 1
        assert "nosuchuser_zz" in capsys.readouterr().err
    assert _settings(user_dirs).models.added == ()

    models = _settings(user_dirs).models.model_copy(update={"added": (ref,)})
    save_settings(
        _settings(user_dirs).model_copy(update={"models": models}), user_dirs.settings_file
    )
    assert main(["models", "list"]) == 0
    assert "nosuchuser_zz" in capsys.readouterr().out


def test_use_writes_the_role_and_checks_the_models_kind(
    user_dirs: AppPaths, smollm2_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "use", "qwen2.5-1.5b-instruct"]) == 0
    assert "not downloaded yet" in capsys.readouterr().err
    assert main(["models", "use", str(smollm2_path), "--role", "background"]) == 0
    assert main(["models", "use", "bge-small-en-v1.5", "--role", "embeddings"]) == 0

    models = _settings(user_dirs).models
    assert models.chat == (Backend(kind="local", model="qwen2.5-1.5b-instruct"),)
    assert models.background == (Backend(kind="local", model=str(smollm2_path.resolve())),)
    assert models.embeddings == Backend(kind="local", model="bge-small-en-v1.5")
    assert main(["models", "use", "bge-m3"]) == 1  # an embedding model cannot chat
    assert "an embedding model, not a chat model" in capsys.readouterr().err
    assert _settings(user_dirs).models == models


def test_use_a_server_keeps_its_key_only_in_the_keyring(
    user_dirs: AppPaths, keys: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(models_cli.API_KEY_VARIABLE, "sk-live-4242")
    url = "https://box.example:8443/v1"

    assert main(["models", "use", "--server", url, "--model", "qwen2.5:7b"]) == 0

    [backend] = _settings(user_dirs).models.chat
    assert (backend.kind, backend.url, backend.model) == ("server", url, "qwen2.5:7b")
    assert keys.passwords == {("Reverie", api_key_name(url)): "sk-live-4242"}
    assert "sk-live-4242" not in user_dirs.settings_file.read_text("utf-8")


def test_use_a_server_without_a_key_never_waits_for_input(
    user_dirs: AppPaths, keys: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(models_cli.API_KEY_VARIABLE, raising=False)
    monkeypatch.setattr("sys.stdin", None)  # reading input would fail the test

    code = main(["models", "use", "--server", "http://127.0.0.1:8080/v1", "--model", "m"])

    assert code == 0
    assert keys.passwords == {}


@pytest.mark.parametrize(
    "arguments",
    [
        ["--server", "http://box/v1"],  # no model name
        ["qwen2.5-1.5b-instruct", "--server", "http://box/v1", "--model", "m"],
        ["--server", "ftp://box", "--model", "m"],
        [],
    ],
)
def test_use_refuses_what_cannot_be_used(
    user_dirs: AppPaths, arguments: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "use", *arguments]) == 1
    assert capsys.readouterr().err.startswith("reverie: ")
    assert not user_dirs.settings_file.exists()


def test_use_never_overwrites_settings_written_by_a_newer_reverie(
    user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    user_dirs.settings_file.parent.mkdir(parents=True, exist_ok=True)
    newer = json.dumps({"version": 99, "models": {"something": "new"}})
    user_dirs.settings_file.write_text(newer, "utf-8")

    assert main(["models", "use", "qwen2.5-1.5b-instruct"]) == 1

    assert "newer Reverie" in capsys.readouterr().err
    assert user_dirs.settings_file.read_text("utf-8") == newer


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_download_fetches_checks_and_places_the_file(
    user_dirs: AppPaths,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    content = b"GGUF" + os.urandom(300_000)
    with HubServer() as hub:
        hub.add("someone/tiny-GGUF", "tiny-q4_k_m.gguf", content)
        catalog = _one_model_catalog(tmp_path, content)
        monkeypatch.setattr(models_cli, "load_catalog", lambda: catalog)
        save_settings(
            Settings.model_validate({"models": {"hub_endpoint": hub.endpoint}}),
            user_dirs.settings_file,
        )

        assert main(["models", "download", "tiny"]) == 0

    placed = user_dirs.models_dir / "tiny-q4_k_m.gguf"
    assert placed.read_bytes() == content
    assert f"Done, checked: {placed}" in capsys.readouterr().out
    assert main(["models", "download", "tiny"]) == 0  # already there: nothing to do
    assert "already downloaded" in capsys.readouterr().out


def _one_model_catalog(folder: Path, content: bytes) -> Catalog:
    entry = {
        **{k: v for k, v in load_catalog().get("qwen2.5-1.5b-instruct").model_dump().items()},
        "id": "tiny",
        "name": "Tiny",
        "repo": "someone/tiny-GGUF",
        "file": "tiny-q4_k_m.gguf",
        "revision": "main",
        "size": len(content),
        "sha256": sha256_hex(content),
    }
    entry["shape"] = dict(entry["shape"])
    path = folder / "catalog.json"
    path.write_text(json.dumps({"version": 1, "models": [entry]}), "utf-8")
    return load_catalog(path)


def test_estimate_of_a_catalog_model_before_it_is_downloaded(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["models", "estimate", "qwen2.5-1.5b-instruct", "--context", "2048"]) == 0

    out = capsys.readouterr().out
    assert out.startswith("Qwen2.5 1.5B Instruct: chat model from the catalog (Q4_K_M)")
    assert "(2048 tokens)" in out


def test_asking_for_a_key_without_a_terminal_says_how_else(
    user_dirs: AppPaths, keys: MemoryKeyring, capsys: pytest.CaptureFixture[str]
) -> None:
    url = "http://127.0.0.1:8080/v1"

    assert main(["models", "use", "--server", url, "--model", "m", "--ask-key"]) == 1

    assert "set REVERIE_API_KEY" in capsys.readouterr().err
    assert keys.passwords == {} and not user_dirs.settings_file.exists()


@pytest.mark.parametrize("context", ["-5", "0", "99999999999", "lots"])
def test_a_context_out_of_bounds_is_refused(
    smollm2_path: Path, context: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["models", "estimate", str(smollm2_path), "--context", context])
    assert "--context" in capsys.readouterr().err


def test_a_path_that_cannot_be_looked_at_is_refused_with_the_reason(
    user_dirs: AppPaths, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "loop.gguf").symlink_to(tmp_path / "loop.gguf")
    refused = {
        str(tmp_path / ("a" * 300 + ".gguf")): "too long for the file system",
        str(tmp_path / "loop.gguf"): "loop of symbolic links",
    }
    for ref, reason in refused.items():
        for command in (["add", ref], ["use", ref], ["estimate", ref]):
            assert main(["models", *command]) == 1, command
            assert reason in capsys.readouterr().err
    assert _settings(user_dirs).models.added == ()


def test_add_and_use_agree_on_a_file_named_with_an_invisible_character(
    user_dirs: AppPaths, smollm2_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hidden = tmp_path / "smol\u200blm.gguf"
    if smollm2_path.stat().st_dev == tmp_path.stat().st_dev:
        os.link(smollm2_path, hidden)  # a second name, not a copy of 100 MB
    else:
        shutil.copyfile(smollm2_path, hidden)

    for action in ("add", "use"):
        assert main(["models", action, str(hidden)]) == 1
        assert "invisible or control character (U+200B)" in capsys.readouterr().err
    assert _settings(user_dirs).models.added == ()


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
    assert _settings(user_dirs).models == Settings().models


def test_list_shows_the_escapes_of_an_added_files_name(
    user_dirs: AppPaths, smollm2_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file dropped on the Models page may be named anything: its name is
    no terminal's command (round 13: ESC and BEL reached stdout raw)."""
    named = tmp_path / "model\x1b]0;PWNED\x07\x1b[2J.gguf"
    named.symlink_to(smollm2_path)
    models = _settings(user_dirs).models.model_copy(update={"added": (str(named),)})
    save_settings(
        _settings(user_dirs).model_copy(update={"models": models}), user_dirs.settings_file
    )

    assert main(["models", "list"]) == 0

    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out, ascii(out)
    assert "model\\x1b]0;PWNED\\x07\\x1b[2J.gguf" in out
