"""Every directory Reverie reads or writes, in one place.

User directories come from platformdirs; each can be redirected by an
environment variable (tests and portable installs use this).  ``REVERIE_HOME``
moves all of them at once under one folder.  The shipped ``data/`` and
``resources/`` folders are found both in a source checkout and in an
installed wheel, where they travel inside the ``desktop`` package.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from desktop.core.files import make_private_folder, make_tree_private

APP_NAME = "Reverie"

ENV_HOME = "REVERIE_HOME"
ENV_DATA = "REVERIE_DATA_DIR"
ENV_CONFIG = "REVERIE_CONFIG_DIR"
ENV_CACHE = "REVERIE_CACHE_DIR"

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # .../desktop


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
    def log_dir(self) -> Path:
        return self.cache_dir / "logs"

    def ensure(self) -> None:
        """Create the directories (not the files) if they are missing, readable
        by the user alone, and take back what an older version left readable
        by others in them.  Raises ``OSError``."""
        for top in (self.data_dir, self.config_dir, self.cache_dir):
            make_private_folder(top)
            make_tree_private(top)
        for directory in (self.models_dir, self.skills_dir, self.snapshots_dir, self.log_dir):
            make_private_folder(directory)


def _pick(env: dict[str, str], variable: str, home_sub: str, default: str) -> Path:
    if value := env.get(variable):
        return Path(value).expanduser()
    if home := env.get(ENV_HOME):
        return Path(home).expanduser() / home_sub
    return Path(default)


def resolve_paths(env: dict[str, str] | None = None) -> AppPaths:
    """The user directories, honouring the ``REVERIE_*`` overrides in *env*."""
    env = dict(os.environ) if env is None else env
    return AppPaths(
        data_dir=_pick(env, ENV_DATA, "data", platformdirs.user_data_dir(APP_NAME, False)),
        config_dir=_pick(env, ENV_CONFIG, "config", platformdirs.user_config_dir(APP_NAME, False)),
        cache_dir=_pick(env, ENV_CACHE, "cache", platformdirs.user_cache_dir(APP_NAME, False)),
    )


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
