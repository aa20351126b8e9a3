"""Round 36: settings saved while Reverie is killed (SIGKILL) at a random
moment, a kill point no harness had.  Every start after reads the file
whole, without a word: the value being saved is the old or the new one,
every other value as it was, and a temporary file a kill left beside it is
removed by the next save."""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

import pytest

from desktop.core.base.settings import Settings, load_settings, save_settings
from tests.children import start_ready

CHILD = "tests.unit.core.base.settings_kill_child"
KILLS = 12


@pytest.mark.slow
def test_settings_saved_when_killed_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    defaults = Settings()
    kept = defaults.model_copy(
        update={"memory": defaults.memory.model_copy(update={"harvest_after_messages": 33})}
    )
    save_settings(kept, path)
    chance = random.Random(3649)
    wrong = []
    for kill in range(KILLS):
        child = start_ready(["-m", CHILD, str(path)], "settings")
        time.sleep(chance.uniform(0.0, 0.2))  # somewhere in a save, or between two
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert child.stdout is not None
        child.stdout.close()
        settings, problem = load_settings(path)
        found = (problem, settings.memory.harvest_after_messages, settings.chat.archive_days)
        if problem is not None or found[1] != 33 or found[2] not in (10, 11, 30):
            wrong.append((kill, found))
    save_settings(settings, path, since=settings)  # the next save, after the last kill

    assert wrong == []
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")) == [
        "settings.json"
    ]
