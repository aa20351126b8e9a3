"""Tests of the settings file: defaults, round trips, damaged and newer files, atomic saves."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import (
    MAX_SETTINGS_BYTES,
    SETTINGS_VERSION,
    Backend,
    ChatSettings,
    DreamSettings,
    ModelSettings,
    Settings,
    SettingsProblem,
    TaskSettings,
    load_settings,
    save_settings,
)


@pytest.fixture
def path(user_dirs: AppPaths) -> Path:
    return user_dirs.settings_file


def _write(path: Path, content: object) -> None:
    """Write *content* as is (bytes or text) or as JSON (anything else)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")


def _set_aside_files(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.damaged-*"))


def test_defaults_when_the_file_is_absent(path: Path) -> None:
    settings, problem = load_settings(path)

    assert settings == Settings()
    assert problem is None
    assert settings.version == SETTINGS_VERSION
    assert settings.models.context_length == 4096
    assert not path.exists()  # loading never creates the file


def test_save_then_load_round_trips(path: Path) -> None:
    settings = Settings(
        models=ModelSettings(
            chat=(
                Backend(kind="server", url="http://box:8080/v1", model="qwen"),
                Backend(kind="local", model="/models/my.gguf"),
            ),
            background=(Backend(kind="local", model="qwen2.5-1.5b-instruct"),),
            embeddings=Backend(kind="server", url="https://box/v1", model="bge", dialect="vllm"),
            context_length=8192,
            temperature=0.2,
        )
    )

    save_settings(settings, path)
    loaded, problem = load_settings(path)

    assert loaded == settings
    assert problem is None
    assert json.loads(path.read_text("utf-8"))["version"] == SETTINGS_VERSION


def test_a_file_without_a_version_is_read_as_version_one(path: Path) -> None:
    _write(path, {"models": {"max_reply_tokens": 256}})

    settings, problem = load_settings(path)

    assert problem is None
    assert settings.models.max_reply_tokens == 256


def test_every_option_is_declared_with_a_description() -> None:
    for model in (Settings, ModelSettings, Backend):
        for name, field in model.model_fields.items():
            group = isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel)
            assert group or field.description, f"{model.__name__}.{name} has no description"


def test_settings_refuse_unknown_keys_and_are_frozen() -> None:
    with pytest.raises(ValidationError):
        ModelSettings.model_validate({"contxt_length": 4096})
    settings = Settings()
    with pytest.raises(ValidationError):
        settings.version = 2  # the refused assignment is the test


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        "",
        "[1, 2, 3]",
        '"just a string"',
        "  \n",
        # json recurses once per bracket: a RecursionError, not a ValueError
        pytest.param("[" * 5000, id="5000 ["),
        pytest.param("[" * 5000 + "]" * 5000, id="5000 [ closed"),
        pytest.param('{"models": ' * 3000, id="3000 {"),
        {"version": "one"},
        {"version": None},
        {"version": [1]},
        {"version": 0},
        {"version": -3},
        b'{"version": 1, "models": {"chat_model_path": "caf\xe9"}}',  # Latin-1, not UTF-8
    ],
)
def test_an_unreadable_file_is_set_aside_and_defaults_are_used(path: Path, content: object) -> None:
    _write(path, content)
    original = path.read_bytes()

    settings, problem = load_settings(path)

    assert settings == Settings()
    assert isinstance(problem, SettingsProblem)
    assert isinstance(problem, EnvironmentProblem)  # something the user can act on
    [kept] = _set_aside_files(path)
    assert kept.read_bytes() == original
    assert kept.name in str(problem)
    assert not path.exists()


def test_version_infinity_is_damage_not_a_crash(path: Path) -> None:
    _write(path, '{"version": Infinity}')  # Python's json reads it

    settings, problem = load_settings(path)

    assert settings == Settings()
    assert isinstance(problem, SettingsProblem)
    assert len(_set_aside_files(path)) == 1


def test_a_second_damaged_file_does_not_overwrite_the_first(path: Path) -> None:
    _write(path, "{first damage")
    load_settings(path)
    _write(path, "{second damage")

    load_settings(path)

    kept = _set_aside_files(path)
    assert sorted(file.read_text("utf-8") for file in kept) == ["{first damage", "{second damage"]


def test_a_newer_file_is_left_untouched(path: Path) -> None:
    _write(path, {"version": SETTINGS_VERSION + 1, "models": {"a_new_option": 1}})
    original = path.read_bytes()

    settings, problem = load_settings(path)

    assert settings == Settings()
    assert isinstance(problem, SettingsProblem)
    assert "newer" in str(problem)
    assert path.read_bytes() == original
    assert _set_aside_files(path) == []


def test_save_leaves_no_temporary_file(path: Path) -> None:
    save_settings(Settings(), path)
    save_settings(Settings(models=ModelSettings(temperature=1.0)), path)

    assert [file.name for file in path.parent.iterdir()] == [path.name]


def test_save_creates_the_config_folder(tmp_path: Path) -> None:
    path = tmp_path / "new" / "deeper" / "settings.json"

    save_settings(Settings(), path)

    assert load_settings(path) == (Settings(), None)


def test_a_failed_replace_keeps_the_previous_file(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    previous = Settings(models=ModelSettings(temperature=0.1))
    save_settings(previous, path)
    before = path.read_bytes()

    def disk_full(source: object, target: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(SettingsProblem, match="No space left on device"):
        save_settings(Settings(models=ModelSettings(temperature=1.5)), path)
    monkeypatch.undo()

    assert path.read_bytes() == before
    assert [file.name for file in path.parent.iterdir()] == [path.name]
    assert load_settings(path) == (previous, None)


def test_saving_over_a_folder_fails_cleanly(path: Path) -> None:
    path.mkdir(parents=True)  # something else holds the name

    with pytest.raises(SettingsProblem):
        save_settings(Settings(), path)

    assert path.is_dir()
    assert [file.name for file in path.parent.iterdir()] == [path.name]


def test_saving_under_a_file_posing_as_the_folder_fails_cleanly(tmp_path: Path) -> None:
    blocker = tmp_path / "config"
    blocker.write_text("not a folder", "utf-8")

    with pytest.raises(SettingsProblem):
        save_settings(Settings(), blocker / "settings.json")

    assert blocker.read_text("utf-8") == "not a folder"


def test_a_stale_temporary_file_does_not_block_saving(path: Path) -> None:
    (path.parent / f"{path.stem}.tmp").mkdir(parents=True)  # the old fixed temporary name

    save_settings(Settings(), path)

    assert load_settings(path) == (Settings(), None)


def test_the_task_time_zone_defaults_to_the_systems_and_takes_iana_names(path: Path) -> None:
    assert Settings().tasks.time_zone == ""  # the system's, following it when it changes
    _write(path, {"version": 1, "tasks": {"time_zone": "Asia/Tokyo"}})

    settings, problem = load_settings(path)

    assert problem is None
    assert settings.tasks == TaskSettings(time_zone="Asia/Tokyo")


def test_an_unknown_task_time_zone_is_refused_with_a_hint() -> None:
    with pytest.raises(ValidationError, match="'Mars/Base' is not a time zone Reverie knows"):
        TaskSettings(time_zone="Mars/Base")


def test_a_version_1_file_keeps_its_chat_model_as_the_chat_roles_backend(path: Path) -> None:
    _write(path, {"version": 1, "models": {"chat_model_path": "~/m/q.gguf", "threads": 2}})

    settings, problem = load_settings(path)

    assert problem is None
    assert settings.models.chat == (Backend(kind="local", model="~/m/q.gguf"),)
    assert settings.models.background == ()  # background work follows the chat
    assert settings.models.embeddings == Backend()
    assert settings.models.threads == 2


def test_a_version_1_file_without_a_chat_model_keeps_the_embedded_one(path: Path) -> None:
    _write(path, {"version": 1, "models": {"chat_model_path": None}})

    settings, problem = load_settings(path)

    assert problem is None
    assert settings.models.chat == (Backend(kind="embedded"),)


@pytest.mark.parametrize(
    ("backend", "reason"),
    [
        ({"kind": "server", "url": "http://box:8080/v1"}, "needs its address and a model"),
        ({"kind": "server", "model": "qwen"}, "needs its address and a model"),
        ({"kind": "server", "url": "ftp://box/v1", "model": "q"}, "http:// or https://"),
        ({"kind": "server", "url": "box:8080", "model": "q"}, "http:// or https://"),
        ({"kind": "server", "url": "http://me:hunter2@box/v1", "model": "q"}, "API key"),
        ({"kind": "server", "url": "http://box/v1?key=abc", "model": "q"}, r"without \?query"),
        ({"kind": "server", "url": "http://box:99999/v1", "model": "q"}, "port"),
        ({"kind": "server", "url": "http://my box:8080/v1", "model": "q"}, "no spaces"),
        ({"kind": "server", "url": "http://\U0001f999.local/v1", "model": "q"}, "not a host"),
        ({"kind": "server", "url": "http://box/v1\x00x", "model": "q"}, "U\\+0000"),
        ({"kind": "server", "url": "http://box/\u202e1v", "model": "q"}, "U\\+202E"),
        ({"kind": "server", "url": "http://box/" + "v" * 400, "model": "q"}, "this long"),
        ({"kind": "server", "url": "http://box/v1", "model": "qwen\u202e"}, "model name holds"),
        ({"kind": "local"}, "names a catalog model or a .gguf"),
        ({"kind": "embedded", "model": "x"}, "takes no model"),
        ({"kind": "server", "url": "http://box/v1", "model": "q", "dialect": "foo"}, "dialect"),
    ],
)
def test_a_backend_that_cannot_work_is_refused_with_the_reason(
    backend: dict[str, str], reason: str
) -> None:
    with pytest.raises(ValidationError, match=reason):
        Backend.model_validate(backend)


def test_a_servers_address_is_kept_without_its_trailing_slash() -> None:
    backend = Backend(kind="server", url=" http://127.0.0.1:8080/v1/ ", model="q")

    assert backend.url == "http://127.0.0.1:8080/v1"


def test_roles_have_bounds() -> None:
    with pytest.raises(ValidationError):
        ModelSettings(chat=())
    with pytest.raises(ValidationError):
        ModelSettings(chat=(Backend(),) * 5)
    with pytest.raises(ValidationError):
        ModelSettings.model_validate({"embeddings": [{"kind": "embedded"}] * 2})


def test_a_file_from_before_the_appearance_setting_follows_the_system(path: Path) -> None:
    _write(path, {"version": SETTINGS_VERSION, "chat": {"memories_top_k": 7}})

    settings, problem = load_settings(path)

    assert problem is None
    assert settings.chat.appearance == "system"
    assert settings.chat.memories_top_k == 7


def test_the_appearance_is_saved_and_only_a_known_one_is_taken(path: Path) -> None:
    save_settings(Settings(chat=ChatSettings(appearance="dark")), path)
    assert load_settings(path)[0].chat.appearance == "dark"
    with pytest.raises(ValidationError, match="appearance"):
        ChatSettings.model_validate({"appearance": "blue"})


def test_a_file_too_large_to_be_settings_is_set_aside_unread(path: Path) -> None:
    _write(path, '{"version": 2, "chat": {}, "pad": "' + "x" * MAX_SETTINGS_BYTES + '"}')

    settings, problem = load_settings(path)

    assert settings == Settings()
    assert "larger than" in str(problem)
    assert len(_set_aside_files(path)) == 1


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        pytest.param("[" * 5000, "nests too deeply", id="5000 ["),
        ("[1, 2]", "it holds a list, not a JSON object"),
        (b'{"chat": "caf\xe9"}', "not UTF-8"),
        ("", "empty"),
        ("{not json", "not JSON"),
    ],
)
def test_an_unreadable_file_says_why(path: Path, content: object, reason: str) -> None:
    _write(path, content)

    _, problem = load_settings(path)

    assert reason in str(problem)


def test_saving_over_a_deeply_nested_file_does_not_crash(path: Path) -> None:
    _write(path, "[" * 5000)

    save_settings(Settings(), path)

    assert load_settings(path) == (Settings(), None)


def test_one_bad_value_keeps_every_other_setting_and_names_its_key(path: Path) -> None:
    original = {
        "version": SETTINGS_VERSION,
        "models": {"temperature": 0.2, "threads": 3},
        "chat": {"appearance": "dark", "memories_top_k": 7},
        "dream": {"quiet_seconds": -5, "nightly_hour": 4},
    }
    _write(path, original)
    before = path.read_bytes()

    settings, problem = load_settings(path)

    assert settings.dream.quiet_seconds == DreamSettings().quiet_seconds
    assert settings.dream.nightly_hour == 4
    assert (settings.models.temperature, settings.models.threads) == (0.2, 3)
    assert (settings.chat.appearance, settings.chat.memories_top_k) == ("dark", 7)
    assert isinstance(problem, SettingsProblem)
    assert "dream.quiet_seconds: must be ≥ 0; kept the default" in str(problem)
    assert path.read_bytes() == before  # left for the user to correct
    assert _set_aside_files(path) == []


def test_a_wrong_type_in_one_key_keeps_the_others(path: Path) -> None:
    _write(
        path,
        {
            "models": {"temperature": "warm", "context_length": 8192},
            "tasks": {"time_zone": "Asia/Tokyo", "agenda_messages": "many"},
        },
    )

    settings, problem = load_settings(path)

    assert settings.models.temperature == ModelSettings().temperature
    assert settings.models.context_length == 8192
    assert settings.tasks == TaskSettings(time_zone="Asia/Tokyo")
    assert "models.temperature: must be a number; kept the default" in str(problem)
    assert "tasks.agenda_messages: must be a whole number; kept the default" in str(problem)


def test_every_unusable_key_is_reported(path: Path) -> None:
    _write(
        path,
        {
            "surprise": True,
            "chat": {"appearance": "blue", "contxt": 1, "memories_top_k": 7},
            "memory": 5,
            "models": {
                "chat": [{"kind": "server", "url": "http://my box/v1", "model": "q"}],
                "embeddings": {"kind": "server"},
                "threads": 2,
            },
            "dream": {"contradiction_band": [0.9, 0.1]},
        },
    )

    settings, problem = load_settings(path)

    said = str(problem)
    for note in (
        "surprise: not a setting Reverie knows; ignored",
        "chat.contxt: not a setting Reverie knows; ignored",
        "chat.appearance: must be 'system', 'light' or 'dark'; kept the default",
        "memory: must be a group of settings (an object); kept the defaults",
        "models.chat[0].url: an address has no spaces; kept the default of models.chat",
        "models.embeddings: a server backend needs its address and a model name",
        "dream.contradiction_band: the band is two similarities",
    ):
        assert note in said
    assert "at least 1" not in said  # the emptied list follows from the bad backend
    assert settings.chat.memories_top_k == 7
    assert settings.models.threads == 2
    assert settings.models.chat == ModelSettings().chat


def test_a_made_up_key_is_shown_on_one_line_and_cut(path: Path) -> None:
    _write(path, {"chat": {"x\nproblem: all is lost" + "y" * 500: 1}})

    _, problem = load_settings(path)

    assert "\n" not in str(problem)
    assert len(str(problem)) < 400


def test_a_problem_names_ten_keys_and_counts_the_rest(path: Path) -> None:
    _write(path, {"chat": {f"unknown_{n}": n for n in range(25)}})

    settings, problem = load_settings(path)

    assert settings == Settings()
    assert str(problem).count("not a setting Reverie knows") == 10
    assert "And 15 more." in str(problem)


def test_a_version_1_file_with_a_bad_value_is_upgraded_and_keeps_the_rest(path: Path) -> None:
    _write(path, {"version": 1, "models": {"chat_model_path": "~/q.gguf", "threads": -1}})

    settings, problem = load_settings(path)

    assert settings.models.chat == (Backend(kind="local", model="~/q.gguf"),)
    assert settings.models.threads == 0
    assert "models.threads: must be ≥ 0; kept the default" in str(problem)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are a Unix matter")
def test_a_named_pipe_in_the_settings_place_does_not_block_the_start(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)  # reading it would wait for a writer that never comes

    settings, problem = load_settings(path)

    assert settings == Settings()
    assert "is a named pipe, not a settings file" in str(problem)
    assert _set_aside_files(path) == []  # not the user's settings: left alone (round 9)
    assert path.is_fifo()


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_a_link_to_an_endless_device_is_not_read(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to("/dev/zero")  # st_size 0, and it never ends

    settings, problem = load_settings(path)

    assert settings == Settings()
    assert "is a device, not a settings file" in str(problem)


@pytest.mark.parametrize("number", ["Infinity", "-Infinity", "NaN", "1e400"])
def test_a_number_that_is_not_finite_keeps_the_default(path: Path, number: str) -> None:
    _write(path, '{"dream": {"half_life_days": ' + number + ', "nightly_hour": 4}}')

    settings, problem = load_settings(path)

    assert settings.dream.half_life_days == DreamSettings().half_life_days
    assert settings.dream.nightly_hour == 4
    assert "dream.half_life_days: must be" in str(problem)


def test_every_setting_that_loads_saves_and_loads_back_the_same(path: Path) -> None:
    _write(path, '{"dream": {"grace_days": Infinity}}')  # once kept, then saved as null
    settings, _ = load_settings(path)

    save_settings(settings, path)

    assert load_settings(path) == (settings, None)


@pytest.mark.parametrize(
    ("content", "kind"),
    [("null", "null"), ("[1]", "a list"), ("3.5", "a number"), ('"x"', "text"), ("true", "true")],
)
def test_a_file_that_is_not_an_object_names_its_json_kind(
    path: Path, content: str, kind: str
) -> None:
    _write(path, content)

    _, problem = load_settings(path)

    assert f"it holds {kind}, not a JSON object" in str(problem)
    assert "NoneType" not in str(problem)


@pytest.mark.parametrize(
    "encoded",
    [
        pytest.param(lambda text: text.encode("utf-8-sig"), id="UTF-8 with BOM"),
        pytest.param(lambda text: text.encode("utf-16"), id="UTF-16, native order"),
        pytest.param(lambda text: b"\xff\xfe" + text.encode("utf-16-le"), id="UTF-16 LE"),
        pytest.param(lambda text: b"\xfe\xff" + text.encode("utf-16-be"), id="UTF-16 BE"),
        pytest.param(lambda text: text.encode("utf-32"), id="UTF-32"),
    ],
)
def test_a_file_with_a_byte_order_mark_is_read(path: Path, encoded: Callable[[str], bytes]) -> None:
    # Some Windows editors save JSON as UTF-16 (or UTF-8 with a BOM).
    customised = {
        "version": SETTINGS_VERSION,
        "chat": {"language": "de"},
        "dream": {"stale_days": 7},
    }
    _write(path, encoded(json.dumps(customised)))

    settings, problem = load_settings(path)

    assert problem is None
    assert (settings.chat.language, settings.dream.stale_days) == ("de", 7)
    assert _set_aside_files(path) == []


def test_a_utf16_file_is_saved_back_as_utf8(path: Path) -> None:
    _write(
        path, json.dumps({"chat": {"language": "de"}, "version": SETTINGS_VERSION}).encode("utf-16")
    )
    settings, _ = load_settings(path)

    save_settings(settings.model_copy(update={"dream": DreamSettings(stale_days=7)}), path)

    saved = json.loads(path.read_bytes().decode("utf-8"))  # strict UTF-8, no BOM
    assert (saved["chat"]["language"], saved["dream"]["stale_days"]) == ("de", 7)


def test_a_value_error_ending_in_a_full_stop_reads_as_one_sentence(path: Path) -> None:
    _write(path, {"version": SETTINGS_VERSION, "tasks": {"time_zone": "Mars/Olympus"}})

    _, problem = load_settings(path)

    assert "tasks.time_zone:" in str(problem)
    assert ".;" not in str(problem)


def test_saving_writes_through_a_symlinked_file_and_keeps_the_link(
    path: Path, tmp_path: Path
) -> None:
    # A dotfile manager keeps the real file elsewhere and links it here.
    target = tmp_path / "dotfiles" / "reverie.json"
    target.parent.mkdir()
    save_settings(Settings(), target)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)

    save_settings(Settings(chat=ChatSettings(language="de")), path)

    assert path.is_symlink()
    assert path.readlink() == target
    assert load_settings(target)[0].chat.language == "de"
    assert sorted(p.name for p in target.parent.iterdir()) == ["reverie.json"]
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
