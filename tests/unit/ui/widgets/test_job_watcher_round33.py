"""Round 33: a job done before its watcher's receivers were connected still
reaches them.

``Job.add_done_callback`` calls at once when the job is done already, so a
watcher handed a finished job emitted ``done`` inside ``watch``, before the
code after it connected anything.  At start the application watches the
model loads and connects "the embedding model loaded" (the memories'
upkeep) only later in its constructor: with a model server, which "loads"
at once, that upkeep never ran (seen in CI).
"""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop.ui.widgets.job_watcher import JobWatcher
from models.jobs import EmbedRequest, Job, Priority


def test_a_job_done_already_is_said_from_the_event_loop(qtbot: QtBot) -> None:
    job = Job(EmbedRequest(()), Priority.BACKGROUND)
    job.finish("loaded")
    watcher = JobWatcher()
    heard: list[object] = []

    watcher.watch(job)
    watcher.done.connect(heard.append)  # connected after, as the application does

    assert heard == []  # never inside watch
    qtbot.waitUntil(lambda: heard == [job])
