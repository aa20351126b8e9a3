"""Start-up against damaged surroundings, round 4 of issue 15's attack.

Each case is one the attack met: a settings folder closed to the user or a
home with a name too long (a crash), a log file on a full disk (a crash at
exit), messages that named the wrong cause (a full disk read as a corrupt
package, another user's database as a read-only one, a dangling link as
"File exists"), and settings read loosely (true as 1, "0.7" as 0.7).
Several run a small script in a child process: a file size limit or
another user cannot be set inside the test process without harming it.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import (
    SETTINGS_VERSION,
    Settings,
    SettingsProblem,
    is_absent,
    load_settings,
    save_settings,
)
from desktop.core.db import open_database
from desktop.core.db.errors import DatabaseUnavailable
from desktop.core.db.writable import refuse_read_only
from models.convert_bert import ensure_default_embedder_gguf
from models.embedded import default_embedding_source
from models.errors import ModelUnavailable

ROOT = Path(__file__).resolve().parents[4]
NOBODY = 65534


def _child(
    code: str, *, file_size: int | None = None, as_nobody: bool = False
) -> subprocess.CompletedProcess[str]:
    """Run *code* in a fresh Python (this checkout on its path), under a
    file size limit or as user nobody."""

    def limit() -> None:
        if file_size is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
        if as_nobody:
            _become_nobody()

    python = _python_of_nobody() if as_nobody else sys.executable
    # The test's own packages, for an interpreter outside this virtualenv.
    packages = os.pathsep.join((str(ROOT), sysconfig.get_paths()["purelib"]))
    return subprocess.run(
        [python, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd="/",
        env={**os.environ, "PYTHONPATH": packages},
        preexec_fn=limit,
        check=False,
    )


def _become_nobody() -> None:
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def _python_of_nobody() -> str:
    """An interpreter of this Python version that user nobody may run (this
    one may sit in root's closed home folder); skips the test if none."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for python in (sys.executable, shutil.which(version, path="/usr/local/bin:/usr/bin")):
        if python is None or not _open_to_all(Path(os.path.realpath(python))):
            continue
        tried = subprocess.run(
            [python, "-c", "pass"], capture_output=True, preexec_fn=_become_nobody, check=False
        )
        if tried.returncode == 0:
            return python
    pytest.skip(f"no {version} that user nobody may run")


def _open_to_all(file: Path) -> bool:
    """Whether anyone may run *file*: it and every folder above it."""
    return all(part.stat().st_mode & 0o001 for part in (file, *file.parents))


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A folder another user can enter (pytest's own are closed to them)."""
    folder = Path(tempfile.mkdtemp(prefix="reverie-startup-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="acts as another user (needs root)"
)


# -- D1: a settings file that cannot be reached is a problem, never a crash ----
def test_a_home_with_a_name_too_long_is_a_settings_problem(tmp_path: Path) -> None:
    path = tmp_path / ("c" * 256) / "config" / "settings.json"

    settings, problem = load_settings(path)

    assert settings == Settings()
    assert isinstance(problem, SettingsProblem)
    assert "256 bytes long" in str(problem) and "255" in str(problem)
    assert "kept as" not in str(problem)
    assert not is_absent(path)  # nothing is written in its place


def test_a_config_folder_that_is_a_file_is_named_and_nothing_claims_to_be_kept(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config"
    config.write_text("mine", "utf-8")

    settings, problem = load_settings(config / "settings.json")

    assert settings == Settings()
    assert f"{config} is not a folder" in str(problem)
    assert "kept as" not in str(problem)
    assert config.read_text("utf-8") == "mine"
    assert [p.name for p in tmp_path.iterdir()] == ["config"]


@needs_root
def test_a_config_folder_closed_to_the_user_is_a_problem_not_a_crash(shared_tmp: Path) -> None:
    config = shared_tmp / "config"
    config.mkdir()
    settings_file = config / "settings.json"
    settings_file.write_text(json.dumps({"version": SETTINGS_VERSION, "chat": {"language": "de"}}))
    for path in (shared_tmp, config, settings_file):
        os.chown(path, NOBODY, NOBODY)
    config.chmod(0o600)  # read, but no search: nothing in it can be reached

    done = _child(
        "from pathlib import Path\n"
        "from desktop.core.base.settings import is_absent, load_settings\n"
        f"path = Path({str(settings_file)!r})\n"
        "settings, problem = load_settings(path)\n"
        "print(settings.chat.language, is_absent(path))\n"
        "print(problem)\n",
        as_nobody=True,
    )

    assert done.returncode == 0, done.stderr
    first, said = done.stdout.splitlines()[:2]
    assert first == "en False"  # the defaults; and no first file is written over it
    assert f"the folder {config} does not let this user in" in said
    assert "mode 0600" in said
    config.chmod(0o700)
    assert json.loads(settings_file.read_text())["chat"] == {"language": "de"}
    assert sorted(p.name for p in config.iterdir()) == ["settings.json"]


# -- D2: a log file that cannot be written never stops the app -----------------
def test_a_log_file_on_a_full_disk_says_so_once_and_the_app_goes_on(tmp_path: Path) -> None:
    log_file = tmp_path / "reverie.log"

    done = _child(
        "import logging\n"
        "from pathlib import Path\n"
        "from desktop.core.privacy.log_privacy import PrivateRotatingFileHandler\n"
        f"handler = PrivateRotatingFileHandler(Path({str(log_file)!r}), "
        "max_bytes=1000000, backups=3)\n"
        "log = logging.getLogger('reverie')\n"
        "log.addHandler(handler)\n"
        "for n in range(3):\n"
        "    log.warning('line %d', n)\n"
        "log.removeHandler(handler)\n"
        "handler.close()\n"
        "print('went on')\n",
        file_size=0,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout == "went on\n"
    assert "Traceback" not in done.stderr
    assert "Logging error" not in done.stderr
    said = done.stderr.splitlines()
    assert len(said) == 1, said
    assert f"the log file {log_file} cannot be written" in said[0]
    assert "File too large" in said[0]


# -- D3: the messages name the real cause ---------------------------------------
@pytest.mark.parametrize("file_size", [0, 200_000], ids=["no byte", "a few"])
def test_a_full_disk_while_preparing_the_memory_model_says_the_disk_is_full(
    tmp_path: Path, file_size: int
) -> None:
    # With no byte free, not even a temporary folder can be found; with a
    # few, unpacking the weights fails: neither is a corrupt package.
    models = tmp_path / "models"

    done = _child(
        "from pathlib import Path\n"
        "from models.convert_bert import ensure_default_embedder_gguf\n"
        "from models.embedded import default_embedding_source\n"
        "from models.errors import ModelUnavailable\n"
        "try:\n"
        f"    ensure_default_embedder_gguf(default_embedding_source(), Path({str(models)!r}))\n"
        "except ModelUnavailable as error:\n"
        "    print(type(error).__name__, error)\n",
        file_size=file_size,
    )

    assert done.returncode == 0, done.stderr
    # No conversion error: the source is fine (NoRoomToPrepare is a ModelUnavailable).
    assert done.stdout.startswith(("ModelUnavailable ", "NoRoomToPrepare "))
    assert "Free about 140 MB" in done.stdout
    assert "corrupt" not in done.stdout and "reinstall" not in done.stdout
    assert not [p for p in models.iterdir() if p.name != "all-MiniLM-L6-v2.f16.gguf.json"]


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda models: models.write_text("not a folder"), "is not a folder"),
        (lambda models: models.symlink_to(models.parent / "nowhere"), "is a link to"),
    ],
    ids=["a file", "a dangling link"],
)
def test_a_models_folder_that_cannot_hold_the_model_is_a_typed_problem(
    tmp_path: Path, make: Callable[[Path], object], said: str
) -> None:
    # A typed problem is logged in one line; an OSError was a bug's traceback on stderr.
    models = tmp_path / "models"
    make(models)

    with pytest.raises(ModelUnavailable) as caught:
        ensure_default_embedder_gguf(default_embedding_source(), models)

    assert f"{models} {said}" in str(caught.value)


@needs_root
def test_another_users_unreadable_database_is_called_unreadable_not_read_only(
    shared_tmp: Path,
) -> None:
    database = shared_tmp / "reverie.sqlite3"
    database.write_bytes(b"")
    database.chmod(0o600)  # root's, closed to nobody
    os.chown(shared_tmp, NOBODY, NOBODY)

    done = _child(
        "from pathlib import Path\n"
        "from desktop.core.db.writable import refuse_read_only\n"
        f"refuse_read_only(Path({str(database)!r}))\n",
        as_nobody=True,
    )

    assert "DatabaseUnavailable" in done.stderr
    assert f"The database {database} cannot be read by this user" in done.stderr
    assert "belongs to root" in done.stderr
    assert "read-only" not in done.stderr


def test_a_database_the_user_can_read_and_write_passes(tmp_path: Path) -> None:
    database = tmp_path / "reverie.sqlite3"
    database.write_bytes(b"")

    refuse_read_only(database)  # raises DatabaseUnavailable if it cannot be used

    assert database.exists()


def test_a_database_under_a_name_too_long_is_unavailable_not_a_crash(tmp_path: Path) -> None:
    database = tmp_path / ("c" * 256) / "reverie.sqlite3"

    with pytest.raises(DatabaseUnavailable) as caught:
        open_database(database)

    assert "cannot be reached" in str(caught.value) and "256 bytes long" in str(caught.value)


def test_a_config_folder_that_is_a_file_is_named_when_folders_are_made(tmp_path: Path) -> None:
    (tmp_path / "config").write_text("mine", "utf-8")
    paths = AppPaths(tmp_path / "data", tmp_path / "config", tmp_path / "cache")

    with pytest.raises(OSError) as caught:
        paths.ensure()

    assert str(caught.value) == f"{tmp_path / 'config'} is not a folder"


def test_saving_settings_under_a_dangling_link_names_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.symlink_to(tmp_path / "gone")

    with pytest.raises(SettingsProblem) as caught:
        save_settings(Settings(), home / "config" / "settings.json")

    assert f"{home} is a link to {tmp_path / 'gone'}, which does not exist" in str(caught.value)


def test_a_dangling_link_as_home_is_named_with_where_it_points(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.symlink_to(tmp_path / "gone" / "target")
    paths = AppPaths(home / "data", home / "config", home / "cache")

    with pytest.raises(OSError) as caught:
        paths.ensure()

    assert (
        str(caught.value)
        == f"{home} is a link to {tmp_path / 'gone' / 'target'}, which does not exist"
    )


# -- D4: settings are read strictly --------------------------------------------
@pytest.mark.parametrize(
    ("group", "key", "value", "said"),
    [
        ("models", "threads", True, "a whole number"),
        ("models", "context_length", 4096.0, "a whole number"),
        ("models", "temperature", "0.7", "a number"),
        ("models", "temperature", False, "a number"),
        ("dream", "enabled", "yes", "true or false"),
        ("chat", "tools_enabled", 1, "true or false"),
        ("dream", "contradiction_band", [True, 0.8], "a number"),
    ],
)
def test_a_value_of_the_wrong_json_type_keeps_its_default_and_is_named(
    user_dirs: AppPaths, group: str, key: str, value: object, said: str
) -> None:
    path = user_dirs.settings_file
    path.parent.mkdir(parents=True, exist_ok=True)
    groups: dict[str, dict[str, object]] = {"chat": {"keep_recent_messages": 9}}
    groups.setdefault(group, {})[key] = value
    path.write_text(json.dumps({"version": SETTINGS_VERSION, **groups}), "utf-8")

    settings, problem = load_settings(path)

    assert getattr(getattr(settings, group), key) == getattr(getattr(Settings(), group), key)
    assert settings.chat.keep_recent_messages == 9  # the rest is kept
    assert problem is not None and f"{group}.{key}" in str(problem)
    assert f"must be {said}" in str(problem)


@pytest.mark.parametrize("version", [True, 2.0, "2"])
def test_a_version_that_is_not_a_whole_number_is_named(
    user_dirs: AppPaths, version: object
) -> None:
    path = user_dirs.settings_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": version}), "utf-8")

    settings, problem = load_settings(path)

    assert settings == Settings()
    assert problem is not None and "is not a whole number" in str(problem)


def test_a_whole_number_is_read_for_a_number_with_a_fraction(user_dirs: AppPaths) -> None:
    path = user_dirs.settings_file
    path.parent.mkdir(parents=True, exist_ok=True)
    values = {"version": SETTINGS_VERSION, "models": {"temperature": 0}}
    path.write_text(json.dumps({**values, "dream": {"contradiction_band": [0.5, 1]}}), "utf-8")

    settings, problem = load_settings(path)

    assert problem is None
    assert settings.models.temperature == 0.0
    assert settings.dream.contradiction_band == (0.5, 1.0)
