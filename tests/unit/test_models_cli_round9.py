"""Round 9 of the attacks on ``reverie models``: settings written by two.

- Eight ``reverie models add`` run at once all said "Added", and the
  settings file kept two or three of the files.
- ``reverie models add`` and ``use`` while the app runs: the app's next
  save of its settings dropped what the command wrote.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.app import main
from desktop.core.base.paths import ENV_CACHE, ENV_CONFIG, ENV_DATA, ENV_HOME, AppPaths
from desktop.core.base.settings import Backend, Settings, load_settings, save_settings

_ADD = "import sys; from desktop.app import main; sys.exit(main(['models', 'add', sys.argv[1]]))"
_REPO = Path(__file__).resolve().parents[2]


def _read(paths: AppPaths) -> Settings:
    settings, problem = load_settings(paths.settings_file)
    assert problem is None
    return settings


def _copies(model: Path, folder: Path, count: int) -> list[Path]:
    """*count* paths of *model* (hard links: distinct files to add, no copies)."""
    links = [folder / f"model{i}.gguf" for i in range(count)]
    for link in links:
        os.link(model, link)
    return links


@pytest.mark.slow
def test_adds_run_at_once_are_all_kept(
    user_dirs: AppPaths, smollm2_path: Path, tmp_path: Path
) -> None:
    files = _copies(smollm2_path, tmp_path, 6)
    save_settings(Settings(), user_dirs.settings_file)
    env = dict(os.environ)
    for variable in (ENV_HOME, ENV_DATA, ENV_CONFIG, ENV_CACHE):
        env[variable] = os.environ[variable]  # user_dirs set them

    runs = [
        subprocess.Popen(
            [sys.executable, "-c", _ADD, str(file)],
            cwd=_REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for file in files
    ]
    said = [run.communicate(timeout=120)[0] for run in runs]

    assert [run.returncode for run in runs] == [0] * len(files), said
    assert all(out.startswith("Added") for out in said), said
    assert sorted(_read(user_dirs).models.added) == sorted(str(f) for f in files)


def test_the_app_s_save_keeps_a_model_the_command_added_meanwhile(
    user_dirs: AppPaths, smollm2_path: Path, tmp_path: Path
) -> None:
    (added,) = _copies(smollm2_path, tmp_path, 1)
    start = Settings()
    save_settings(start, user_dirs.settings_file)  # the app's first start

    assert main(["models", "add", str(added)]) == 0
    assert main(["models", "use", str(added), "--role", "background"]) == 0
    memory = start.memory.model_copy(update={"harvest_check_minutes": 9})
    save_settings(start.model_copy(update={"memory": memory}), user_dirs.settings_file, since=start)

    now = _read(user_dirs)
    assert now.models.added == (str(added),)
    assert now.models.background == (Backend(kind="local", model=str(added)),)
    assert now.memory.harvest_check_minutes == 9
