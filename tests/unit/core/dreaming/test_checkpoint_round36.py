"""Round 36 of issue 15: what a paused dream keeps of its model's answers.

A dream paused between its passes' steps keeps the answers it had (to
resume without asking again) in its checkpoint, a row of the database.
They were cleaned only of the secrets the user had named this run: a
secret the model wrote on its own (a merge spelling out a password two
memories held in halves, an echo of an older message) was stored as it
was, where everything else the app stores is redacted.
"""

from __future__ import annotations

import json

from desktop.core.db import Database
from desktop.core.dreaming.control import DreamControl, DreamProgress
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming

SECRET = "Vq8#Lm2!xR"
MERGED = f"The home wifi password is {SECRET}"


class PausedOnceAnswered(DreamControl):
    """Pauses the dream as soon as the model has answered once."""

    def __init__(self, model: ScriptedChatModel) -> None:
        super().__init__()
        self._model = model

    def give_way(self, progress: DreamProgress) -> None:
        if self._model.requests:
            self.stop("paused")
        super().give_way(progress)


def test_a_paused_dreams_kept_answer_is_redacted_and_still_resumes(
    dreaming: Dreaming, model: ScriptedChatModel, database: Database
) -> None:
    dreaming.add("At home, the wifi is called Lighthouse")
    dreaming.add("At home the wifi is called Lighthouse")
    saved = {"content": MERGED, "category": "other", "sourceIds": [1, 2]}
    model.queue(json.dumps({"toSave": [saved], "toDelete": [1, 2]}))

    report = dreaming.dreamer.run("manual", PausedOnceAnswered(model))

    assert report.run.status == "paused"
    kept = database.fetch_value("SELECT checkpoint FROM dream_runs")
    answers = json.loads(kept)["answers"]
    assert answers  # the answer is kept, to resume with
    assert SECRET not in kept  # was kept as the model wrote it
    for answer in answers.values():
        assert "[redacted" in json.loads(answer)["toSave"][0]["content"]  # still an answer

    asked = len(model.requests)
    resumed = dreaming.dreamer.run("manual", DreamControl())
    assert resumed.run.status == "completed"
    assert len(model.requests) == asked  # resumed from the kept answer, not asked again
    assert all(SECRET not in m.content for m in dreaming.memories.store.listed())
