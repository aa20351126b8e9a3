"""Every directory Reverie reads or writes, in one place.

User directories come from platformdirs; each can be redirected by an
environment variable (tests and portable installs use this).  ``REVERIE_HOME``
moves all of them at once under one folder.  An override must be an absolute
path (``~`` counts): a relative one would follow the folder Reverie was
started from, so it is refused (``RelativeFolder``), and so is a ``~user``
whose home cannot be found (``UnknownHomeFolder``), and so is a data or
cache folder at the settings file's path (``FolderOnSettingsFile``).  The
shipped ``data/`` and ``resources/`` folders are found both in a source
checkout and in an installed wheel, where they travel inside the
``desktop`` package.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.files import (
    NAME_MAX_BYTES,
    PART,
    make_private,
    make_private_folder,
    make_tree_private,
)

APP_NAME = "Reverie"

ENV_HOME = "REVERIE_HOME"
ENV_DATA = "REVERIE_DATA_DIR"
ENV_CONFIG = "REVERIE_CONFIG_DIR"
ENV_CACHE = "REVERIE_CACHE_DIR"

_PACKAGE_DIR = Path(__file__).resolve().parents[2]  # .../desktop


@dataclass(frozen=True)
class AppPaths:
    """The user directories of one Reverie installation."""

    data_dir: Path
    config_dir: Path
    cache_dir: Path

    @property
    def database_file(self) -> Path:
        return self.data_dir / "reverie.sqlite3"

    @property
    def models_dir(self) -> Path:
        """Models Reverie made or downloaded (e.g. the converted embedder)."""
        return self.data_dir / "models"

    @property
    def skills_dir(self) -> Path:
        """The user's skills, one Markdown file each (``<name>.md``)."""
        return self.data_dir / "skills"

    @property
    def snapshots_dir(self) -> Path:
        """Copies of the database taken before each dream (the last few)."""
        return self.data_dir / "snapshots"

    @property
    def working_set_file(self) -> Path:
        """``MEMORIES.md``: the memories used most, written by every dream."""
        return self.data_dir / "MEMORIES.md"

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.json"

    @property
    def prompts_dir(self) -> Path:
        """The user's own versions of the prompt templates."""
        return self.config_dir / "prompts"

    @property
    def log_dir(self) -> Path:
        return self.cache_dir / "logs"

    @property
    def style_dir(self) -> Path:
        """The style sheets made for the chosen appearance."""
        return self.cache_dir / "style"

    @property
    def preparing_dir(self) -> Path:
        """Where a model's preparation unpacks its files while it runs (the
        memory model's weights on the first start): Reverie's, so what a
        kill left there is found and removed by the next preparation."""
        return self.cache_dir / "preparing"

    def ensure(self) -> None:
        """Create the directories (not the files) if they are missing, readable
        by the user alone, and take back what an older version left readable
        by others in them.  Only what is Reverie's is touched: a folder
        override may name a folder other programs use too (``~/.cache``).
        Raises ``FolderUnusable`` (an ``OSError``) saying what is in the way."""
        try:
            for top in (self.data_dir, self.config_dir, self.cache_dir):
                self._take_back(top)
            for directory in (self.models_dir, self.skills_dir, self.snapshots_dir, self.log_dir):
                if not directory.is_dir():  # else made private above, if it is Reverie's
                    make_private_folder(directory)
        except OSError as error:
            raise FolderUnusable(error) from error

    def _take_back(self, top: Path) -> None:
        """*top* made, or made private with all in it if all in it is
        Reverie's (a folder it was given through a link too).  A folder that
        also holds what is not Reverie's keeps its mode, and so does all of
        it but Reverie's own files: a folder there named like one of
        Reverie's may be another program's."""
        if not top.exists():
            make_private_folder(top)
            return
        real = Path(os.path.realpath(top))
        entries = list(real.iterdir())
        own = [entry for entry in entries if self._is_own(entry.name)]
        if len(own) == len(entries):
            make_tree_private(real)
            return
        for entry in own:
            if entry.is_symlink() or not entry.is_dir():
                make_private(entry)

    def refuse_own(self, target: Path) -> None:
        """``OwnFileRefused`` if *target* is Reverie's own (``holds``): what an
        export writes there replaces it ("--force" over the database left
        an archive where every conversation and memory was)."""
        if self.holds(target):
            raise OwnFileRefused(target)

    def holds(self, path: Path) -> bool:
        """Whether *path* (followed through its links) is one of Reverie's
        own files or folders, or in one: what nothing but Reverie may write
        (its database, settings, models, skills, snapshots, logs)."""
        real = Path(os.path.realpath(path))
        for top in (self.data_dir, self.config_dir, self.cache_dir):
            parts = _parts_under(real, Path(os.path.realpath(top)))
            if parts and self._is_own(parts[0]):
                return True
        return False

    def _is_own(self, name: str) -> bool:
        """Whether *name*, in one of the three folders, is Reverie's: one of
        its folders, or one of its files with their side files (SQLite's,
        a damaged settings file set aside) and the temporary files of their
        writes (``files.write_atomically``)."""
        folders = (
            self.models_dir,
            self.skills_dir,
            self.snapshots_dir,
            self.prompts_dir,
            self.log_dir,
            self.style_dir,
            self.preparing_dir,
        )
        files = (self.database_file, self.settings_file, self.working_set_file)
        return name in {f.name for f in folders} or any(_own_file(name, f.name) for f in files)


def _parts_under(path: Path, folder: Path) -> tuple[str, ...]:
    """The parts of *path* below *folder*; none if it is not below it."""
    try:
        return path.relative_to(folder).parts
    except ValueError:
        return ()


def _own_file(name: str, own: str) -> bool:
    """Is *name* the file *own*, one of its side files, or a temporary file
    of a write of it?"""
    if name.startswith(f".{own}.") and name.endswith(PART):
        return True
    return name.startswith(own) and _SIDE_FILE.fullmatch(name[len(own) :]) is not None


_SIDE_FILE = re.compile(r"|-(?:wal|shm|journal|erasing)|\.damaged-[\w-]+")
"""What follows a file's name in its side files: SQLite's, an erasure's mark,
a damaged settings file set aside."""


class OwnFileRefused(EnvironmentProblem):
    """An export was asked to write over one of Reverie's own files."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{path} is one of Reverie's own files or folders; it was left as it is.",
            "Choose a file elsewhere, such as your Documents folder or a backup disk.",
        )


class FolderUnusable(OSError):
    """A folder or file Reverie needs cannot be used; ``str()`` says what
    is in the way in a user's words (see ``explain``)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error.errno, error.strerror, error.filename)
        self.explanation = explain(error)

    def __str__(self) -> str:
        return self.explanation


def explain(error: OSError) -> str:
    """What is in the way of *error*'s path, in a user's words: a file where a
    folder should be, a link to nothing, a name too long, a folder closed to
    this user; else the system's own words and the path."""
    if not error.filename:
        return error.strerror or str(error)
    path = Path(os.fsdecode(error.filename))
    look = {
        errno.ENOTDIR: _not_a_folder,
        errno.EEXIST: _dangling_link,
        errno.ENOENT: _dangling_link,
        errno.ENAMETOOLONG: _name_too_long,
        errno.EACCES: _closed_folder,
        errno.EPERM: _closed_folder,
    }.get(error.errno or 0, _nothing_found)
    try:
        found = look(path)
    except OSError:  # looking closer failed too: the system's words will do
        found = None
    return found or f"{path}: {error.strerror or error}"


def _nothing_found(_path: Path) -> str | None:
    return None


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return path.lstat()
    except OSError:
        return None


def _not_a_folder(path: Path) -> str | None:
    """The first folder on *path*'s way (or *path*, used as one) that is
    something else."""
    for part in (*reversed(path.parents), path):
        if _lstat(part) is None:
            return None
        if not part.is_dir():
            if part == path and path.exists():
                return f"{part} is not a folder"
            return _dangling_link(part) or f"{part} is not a folder, so nothing can be kept in it"
    return None


def _dangling_link(path: Path) -> str | None:
    """The link on *path*'s way (or *path* itself) that points to nothing."""
    for part in (*reversed(path.parents), path):
        found = _lstat(part)
        if found is None:
            return None
        if stat.S_ISLNK(found.st_mode) and not os.path.exists(part):
            return f"{part} is a link to {os.readlink(part)}, which does not exist"
    return None


def _name_too_long(path: Path) -> str | None:
    long = next((p for p in path.parts if len(os.fsencode(p)) > NAME_MAX_BYTES), None)
    if long is None:
        return f"the path {path} is longer than this system allows"
    return (
        f"the name {long[:24]}… on its way is {len(os.fsencode(long))} bytes long; "
        f"a file system allows {NAME_MAX_BYTES} at most"
    )


def _closed_folder(path: Path) -> str | None:
    """The first folder on *path*'s way this user may not enter, or the path itself."""
    for part in reversed(path.parents):
        if part.is_dir() and not os.access(part, os.X_OK):
            return f"the folder {part} does not let this user in ({_whose(part)})"
    return f"{path} may not be used by this user ({_whose(path)})"


def _whose(path: Path) -> str:
    """Who owns *path* and its permissions, e.g. ``owner root, mode 0600``."""
    found = _lstat(path)
    if found is None:
        return "its owner and permissions cannot be seen"
    return f"owner {owner_name(found.st_uid)}, mode {stat.S_IMODE(found.st_mode):04o}"


def owner_name(uid: int) -> str:
    """The user name of *uid* (the number where the system has no name for it)."""
    try:
        import pwd  # here: POSIX only, and Windows has no owner names to give

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return str(uid)


class FolderOverrideProblem(EnvironmentProblem):
    """A folder override (``REVERIE_HOME``, ``REVERIE_DATA_DIR``...) names
    no folder Reverie can use; found before any folder exists to log into."""

    def __init__(self, variable: str, message: str, hint: str) -> None:
        super().__init__(message, hint)
        self.variable = variable


class RelativeFolder(FolderOverrideProblem):
    """A folder override names a relative path: it would be read from the
    folder Reverie was started in, so its data would move with that folder."""

    def __init__(self, variable: str, value: str) -> None:
        super().__init__(
            variable,
            f"{variable} is set to the relative path {value!r}, which would point "
            "somewhere else each time Reverie is started from another folder.",
            f"Set {variable} to an absolute path (such as {Path(value).absolute()}) or unset it.",
        )


class UnknownHomeFolder(FolderOverrideProblem):
    """A folder override starts with ``~user`` for a user this computer does
    not know (a typo), or with ``~`` when this user's home cannot be found."""

    def __init__(self, variable: str, value: str) -> None:
        user = value[1:].split("/", 1)[0]
        whose = (
            f"there is no user {user!r} on this computer"
            if user
            else "your home folder cannot be found (HOME is not set and the system knows "
            "no home for you)"
        )
        super().__init__(
            variable,
            f"{variable} is set to {value!r}, but {whose}.",
            f"Correct the name after ~, or set {variable} to an absolute path, or unset it.",
        )


class FolderOnSettingsFile(FolderOverrideProblem):
    """A data or cache folder override names the settings file's path (or a
    folder inside it): the first start would make that folder, and every
    later one would find a folder where the settings file belongs."""

    def __init__(self, variable: str, value: str, settings_file: Path) -> None:
        super().__init__(
            variable,
            f"{variable} is set to {value!r}, which is where Reverie keeps its settings "
            f"file ({settings_file}): a folder there would stand in the file's place.",
            f"Set {variable} to another folder, or unset it.",
        )


def _override(env: dict[str, str], variable: str) -> Path | None:
    """The folder *variable* names in *env* (None if unset or empty);
    ``RelativeFolder`` if that is not an absolute path, ``UnknownHomeFolder``
    if its ``~`` names no home."""
    value = env.get(variable)
    if not value:
        return None
    try:
        path = Path(value).expanduser()
    except RuntimeError as error:  # pathlib's only word for "no such home"
        raise UnknownHomeFolder(variable, value) from error
    if not path.is_absolute():
        raise RelativeFolder(variable, value)
    return path


def _pick(env: dict[str, str], variable: str, home_sub: str, default: str) -> Path:
    if (path := _override(env, variable)) is not None:
        return path
    if (home := _override(env, ENV_HOME)) is not None:
        return home / home_sub
    return Path(default)


def resolve_paths(env: dict[str, str] | None = None) -> AppPaths:
    """The user directories, honouring the ``REVERIE_*`` overrides in *env*;
    a ``FolderOverrideProblem`` if one of them names no usable folder (a
    relative path, the home of an unknown user)."""
    env = dict(os.environ) if env is None else env
    for variable in (ENV_HOME, ENV_DATA, ENV_CONFIG, ENV_CACHE):
        _override(env, variable)  # each one set is checked, used or not
    paths = AppPaths(
        data_dir=_pick(env, ENV_DATA, "data", platformdirs.user_data_dir(APP_NAME, False)),
        config_dir=_pick(env, ENV_CONFIG, "config", platformdirs.user_config_dir(APP_NAME, False)),
        cache_dir=_pick(env, ENV_CACHE, "cache", platformdirs.user_cache_dir(APP_NAME, False)),
    )
    _refuse_folder_on_settings_file(paths, env)
    return paths


def _refuse_folder_on_settings_file(paths: AppPaths, env: dict[str, str]) -> None:
    """``FolderOnSettingsFile`` if the data or cache folder is the settings
    file's path or inside it (named by its own variable, else by the one
    that placed it)."""
    settings_file = Path(os.path.realpath(paths.settings_file))
    for folder, variable in ((paths.data_dir, ENV_DATA), (paths.cache_dir, ENV_CACHE)):
        found = Path(os.path.realpath(folder))
        if found == settings_file or settings_file in found.parents:
            named = next((v for v in (variable, ENV_CONFIG, ENV_HOME) if env.get(v)), variable)
            raise FolderOnSettingsFile(named, env.get(named, str(folder)), paths.settings_file)


def _shipped_dir(name: str) -> Path:
    installed = _PACKAGE_DIR / "_shipped" / name
    if installed.is_dir():
        return installed
    return _PACKAGE_DIR.parent / name  # a source checkout or an editable install


def data_dir() -> Path:
    """The shipped ``data/`` folder: prompt templates, defaults, catalog."""
    return _shipped_dir("data")


def resources_dir() -> Path:
    """The shipped ``resources/`` folder: icons and style sheets."""
    return _shipped_dir("resources")
