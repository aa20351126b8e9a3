"""Settings saved again and again until this process is killed, for
``test_settings_kills_round36``:

    python -m tests.unit.core.base.settings_kill_child SETTINGS_FILE

Each save flips ``chat.archive_days`` between 10 and 11 over what the file
holds; "ready" goes to stdout before the first."""

from __future__ import annotations

import sys
from pathlib import Path

from desktop.core.base.settings import load_settings, save_settings


def main(path: Path) -> None:
    settings, _problem = load_settings(path)
    print("ready", flush=True)
    for n in range(1_000_000):  # more than any test lets it live: it is killed
        flipped = settings.chat.model_copy(update={"archive_days": 10 + n % 2})
        saved = settings.model_copy(update={"chat": flipped})
        save_settings(saved, path, since=settings)
        settings = saved


if __name__ == "__main__":
    main(Path(sys.argv[1]))
