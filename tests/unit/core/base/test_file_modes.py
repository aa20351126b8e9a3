"""Every file and folder Reverie creates is readable by the user alone.

Each test runs under the usual umask (0o022, which makes new files 0644),
starts one part on a fresh home and looks at the modes with ``os.stat``;
files an older version left readable by others are taken back at start.
Folders made later, after the start, are private under no umask at all
(0): the core may run without ``main``, which sets the umask.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from desktop.app import _logging
from desktop.core.base.paths import (
    ENV_CACHE,
    ENV_CONFIG,
    ENV_DATA,
    ENV_HOME,
    AppPaths,
    resolve_paths,
)
from desktop.core.base.settings import Settings, save_settings
from desktop.core.db import Database, MemoryStore, open_database
from desktop.core.db.skills import SkillStore
from desktop.core.dreaming.snapshots import take_snapshot
from desktop.core.dreaming.working_set import write_working_set
from desktop.core.skills.library import DELETED, DRAFTS, SkillLibrary

ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


@pytest.fixture
def home(tmp_path: Path) -> AppPaths:
    """A home that does not exist yet: Reverie creates all of it."""
    return resolve_paths({ENV_HOME: str(tmp_path / "home")})


def _shared(root: Path) -> list[str]:
    """Everything under *root* (and *root*) that group or others may read."""
    found = [root, *root.rglob("*")]
    return [
        f"{oct(stat.S_IMODE(path.lstat().st_mode))} {path.relative_to(root.parent)}"
        for path in found
        if not path.is_symlink() and path.lstat().st_mode & 0o077
    ]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_folders_are_created_for_the_user_alone(home: AppPaths) -> None:
    home.ensure()

    root = home.data_dir.parent
    folders = [root, *(p for p in root.rglob("*") if p.is_dir())]
    assert {home.models_dir, home.skills_dir, home.snapshots_dir, home.log_dir} <= set(folders)
    assert {p.name: _mode(p) for p in folders} == {p.name: 0o700 for p in folders}


def test_files_an_older_version_left_readable_are_taken_back_at_start(home: AppPaths) -> None:
    for folder in (home.data_dir, home.snapshots_dir, home.log_dir, home.models_dir):
        folder.mkdir(parents=True, mode=0o755)
    left = [
        home.database_file,
        Path(f"{home.database_file}-wal"),
        home.working_set_file,
        home.snapshots_dir / "before-dream-20250101-000000.sqlite3",
        home.log_dir / "reverie.log.1",
        home.models_dir / "converted.gguf",
    ]
    for path in left:
        path.write_bytes(b"")
        path.chmod(0o644)
    (home.models_dir / "tool").write_bytes(b"")
    (home.models_dir / "tool").chmod(0o755)
    shared = home.data_dir.parent / "shared-models"
    shared.mkdir(mode=0o755)
    (home.models_dir / "linked").symlink_to(shared)

    home.ensure()

    assert _shared(home.data_dir) == _shared(home.cache_dir) == []
    assert {_mode(path) for path in left} == {0o600}
    assert _mode(home.models_dir / "tool") == 0o700  # the user's own bits are kept
    assert _mode(shared) == 0o755  # what a symlink points to is not Reverie's


OWN_FILES: dict[str, Callable[[AppPaths], Path]] = {
    ENV_CACHE: lambda paths: paths.cache_dir / "reverie.sqlite3",  # the database beside
    ENV_DATA: lambda paths: paths.database_file,
    ENV_CONFIG: lambda paths: paths.settings_file,
}
"""Reverie's file in the shared folder (its log folder there is left as
found, as another program's folder of that name would be; the log files
are taken back when logging starts)."""


@pytest.mark.parametrize("variable", OWN_FILES)
def test_a_folder_override_holding_other_files_keeps_their_modes(
    tmp_path: Path, variable: str
) -> None:
    shared = tmp_path / "dot-cache"  # e.g. REVERIE_CACHE_DIR=~/.cache
    other = shared / "some-other-app"
    other.mkdir(parents=True)
    (other / "data.txt").write_text("another program's file\n")
    (shared / "notes.txt").write_text("the user's own notes\n")
    for path, mode in ((shared, 0o755), (other, 0o750), (other / "data.txt", 0o644)):
        path.chmod(mode)
    (shared / "notes.txt").chmod(0o640)
    ours = resolve_paths({ENV_HOME: str(tmp_path / "home"), variable: str(shared)})
    left = OWN_FILES[variable](ours)  # an older version's file, readable by others
    left.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
    left.write_text("")
    left.chmod(0o644)
    theirs = [shared, other, other / "data.txt", shared / "notes.txt"]
    before = {path: _mode(path) for path in theirs}

    ours.ensure()

    assert {path: _mode(path) for path in theirs} == before
    assert _mode(left) == 0o600


def test_a_shared_folder_keeps_folders_and_files_only_named_like_reveries(
    tmp_path: Path,
) -> None:
    shared = tmp_path / "shared"  # REVERIE_DATA_DIR at a folder another program uses
    theirs = [shared / "models", shared / "models" / "their.bin", shared / "reverie.sqlite3.mine"]
    theirs[0].mkdir(parents=True)
    theirs[1].write_text("another program's model")
    theirs[2].write_text("a copy the user made")
    (shared / "notes.txt").write_text("")
    for path, mode in zip(theirs, (0o775, 0o664, 0o644), strict=True):
        path.chmod(mode)
    shared.chmod(0o755)
    before = {path: _mode(path) for path in [shared, *theirs]}

    resolve_paths({ENV_HOME: str(tmp_path / "home"), ENV_DATA: str(shared)}).ensure()

    assert {path: _mode(path) for path in before} == before


def test_a_data_folder_given_through_a_link_is_taken_back(tmp_path: Path) -> None:
    real = tmp_path / "real-data"
    real.mkdir(mode=0o755)
    old = real / "reverie.sqlite3"
    old.write_bytes(b"")
    old.chmod(0o644)
    (tmp_path / "data-link").symlink_to(real)

    resolve_paths(
        {ENV_HOME: str(tmp_path / "home"), ENV_DATA: str(tmp_path / "data-link")}
    ).ensure()

    assert (_mode(real), _mode(old)) == (0o700, 0o600)


def test_the_database_its_wal_and_shared_memory_are_private(tmp_path: Path) -> None:
    path = tmp_path / "reverie.sqlite3"
    with open_database(path) as database, database.transaction() as tx:
        tx.execute("CREATE TABLE t (x TEXT)")
        tx.execute("INSERT INTO t VALUES ('written')")
        sides = [Path(f"{path}-wal"), Path(f"{path}-shm")]
        assert all(side.exists() for side in sides)
        assert {p.name: _mode(p) for p in (path, *sides)} == {p.name: 0o600 for p in (path, *sides)}


def test_a_database_an_older_version_left_readable_is_taken_back_when_opened(
    tmp_path: Path,
) -> None:
    path = tmp_path / "reverie.sqlite3"
    open_database(path).close()
    wal = Path(f"{path}-wal")
    wal.write_bytes(b"")  # an empty WAL is no WAL to SQLite
    for file in (path, wal):
        file.chmod(0o644)

    with open_database(path) as database:
        assert database.fetch_value("SELECT count(*) FROM schema_migrations") > 0

    assert _mode(path) == 0o600
    assert not wal.exists() or _mode(wal) == 0o600


def test_a_snapshot_is_private(database: Database, tmp_path: Path) -> None:
    copy = tmp_path / "copy.sqlite3"
    database.snapshot_to(copy)

    assert _mode(copy) == 0o600


def test_a_dreams_safety_copy_and_its_skills_are_private(
    database: Database, tmp_path: Path
) -> None:
    skills = tmp_path / "skills"
    skills.mkdir()
    (skills / "brew-tea.md").write_text("Brew the user's tea\n")

    copy = take_snapshot(
        database, tmp_path / "snapshots", "20260101-000000", skills_dir=skills, keep=1
    )

    assert _shared(tmp_path / "snapshots") == []
    assert _mode(copy) == 0o600


def test_the_log_folder_and_every_log_file_are_private(
    home: AppPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("desktop.app.LOG_FILE_BYTES", 500)
    with _logging(home, verbose=False):
        for n in range(40):
            logging.getLogger("reverie.test").info("line %d of the log, long enough to rotate", n)

    logs = sorted(home.log_dir.iterdir())
    assert len(logs) > 1  # it rotated: the new files are private too
    assert _mode(home.log_dir) == 0o700
    assert {p.name: _mode(p) for p in logs} == {p.name: 0o600 for p in logs}


def test_a_log_an_older_version_left_readable_is_taken_back(home: AppPaths) -> None:
    home.log_dir.mkdir(parents=True)
    old = home.log_dir / "reverie.log"
    old.write_text("an old line\n")
    old.chmod(0o644)

    with _logging(home, verbose=False):
        logging.getLogger("reverie.test").warning("a new line")

    assert _mode(old) == 0o600
    assert old.read_text().startswith("an old line\n")


def test_the_working_set_file_is_private(database: Database, home: AppPaths) -> None:
    home.ensure()
    write_working_set(MemoryStore(database), home.working_set_file, 10)

    assert _mode(home.working_set_file) == 0o600


@contextlib.contextmanager
def _no_umask() -> Iterator[None]:
    """Nothing taken off the modes of what is made in the block (umask 0)."""
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def _draft(database: Database, home: AppPaths) -> Path:
    home.ensure()
    with _no_umask():
        SkillLibrary(SkillStore(database), home.skills_dir).create(
            "Brew tea", "Steep.\n", draft=True
        )
    return home.skills_dir / DRAFTS


def _deleted(database: Database, home: AppPaths) -> Path:
    home.ensure()
    skills = SkillLibrary(SkillStore(database), home.skills_dir)
    tea = skills.create("Brew tea", "Steep.\n")
    with _no_umask():
        skills.delete(tea.id)
    return home.skills_dir / DELETED


def _settings(_database: Database, home: AppPaths) -> Path:
    with _no_umask():  # the config folder and the home above it are new
        save_settings(Settings(), home.settings_file)
    return home.config_dir


def _working_set(database: Database, home: AppPaths) -> Path:
    with _no_umask():  # the data folder is new
        write_working_set(MemoryStore(database), home.working_set_file, 10)
    return home.data_dir


@pytest.mark.parametrize(
    "make",
    [_draft, _deleted, _settings, _working_set],
    ids=["skill-drafts", "deleted-skills", "settings-folder", "working-set-folder"],
)
def test_a_folder_made_after_the_start_is_private_whatever_the_umask(
    database: Database, home: AppPaths, make: Callable[[Database, AppPaths], Path]
) -> None:
    folder = make(database, home)

    assert folder.is_dir()
    assert _shared(home.data_dir.parent) == []


@pytest.mark.slow
@pytest.mark.model
def test_a_first_check_leaves_nothing_readable_by_others(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k not in (ENV_DATA, ENV_CONFIG, ENV_CACHE)} | {
        ENV_HOME: str(home),
        "PYTHONPATH": str(ROOT),
    }

    done = subprocess.run(
        [sys.executable, "-m", "desktop.app", "--check", "--prompt", "Say hi."],
        cwd=ROOT,
        env=env,
        umask=0o022,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert (home / "data" / "reverie.sqlite3").is_file()
    assert any((home / "cache" / "logs").iterdir())
    assert _shared(home) == []
