"""Downloads in round 29: a download waiting its turn goes to the Hub the
settings name when it starts.

Downloads run one at a time; a second one asked for meanwhile waits.  Its
address was taken when it was asked for, so a user who saw the Hub was
slow or blocked and set a mirror (``models.hub_endpoint``) while the first
ran still had the second fetched from the old Hub, though ``Downloads``
promises the address at the moment a download starts.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.backends.library import ModelLibrary
from desktop.ui.settings.downloads import Downloads, DownloadUpdate
from models.catalog import load_catalog
from tests.hub_server import HubServer, sha256_hex

WAIT_MS = 20_000
REPO = "someone/models-GGUF"


def _catalog_of(files: dict[str, bytes], folder: Path) -> ModelLibrary:
    base = load_catalog().get("qwen2.5-1.5b-instruct").model_dump()
    entries = [
        {
            **base,
            "id": name,
            "name": name,
            "repo": REPO,
            "file": f"{name}.gguf",
            "revision": "main",
            "size": len(content),
            "sha256": sha256_hex(content),
            "shape": dict(base["shape"]),
        }
        for name, content in files.items()
    ]
    path = folder / "catalog.json"
    path.write_text(json.dumps({"version": 1, "models": entries}), "utf-8")
    return ModelLibrary(folder / "models", load_catalog(path))


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_queued_download_goes_to_the_hub_set_while_it_waited(
    qtbot: QtBot, tmp_path: Path
) -> None:
    files = {name: b"GGUF" + os.urandom(400_000) for name in ("first", "second")}
    library = _catalog_of(files, tmp_path)
    with HubServer() as old, HubServer() as mirror:
        for name, content in files.items():
            old.add(REPO, f"{name}.gguf", content)
            mirror.add(REPO, f"{name}.gguf", content)
        old.throttle = 100_000  # four seconds a file: the second waits its turn
        endpoint = [old.endpoint]
        downloads = Downloads(library, lambda: endpoint[0])
        try:
            downloads.start(library.catalog.get("first"))
            assert old.wait_for_requests(1, WAIT_MS / 1000)
            downloads.start(library.catalog.get("second"))  # queued behind the first
            endpoint[0] = mirror.endpoint  # the user sets a mirror meanwhile

            def second_done(update: DownloadUpdate) -> bool:
                return update.model_id == "second" and update.state == "done"

            with qtbot.waitSignal(downloads.changed, check_params_cb=second_done, timeout=WAIT_MS):
                pass
        finally:
            downloads.stop()

        asked_old = [r.path for r in old.requests if "second" in r.path]
        asked_mirror = [r.path for r in mirror.requests if "second" in r.path]

    assert asked_old == []
    assert asked_mirror != []
    assert (library.models_dir / "second.gguf").read_bytes() == files["second"]
