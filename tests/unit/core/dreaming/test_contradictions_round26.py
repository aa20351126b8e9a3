"""Round 26: a contradiction against a memory the user had just corrected.

Which memory wins a contradiction is the host's rule: what the user said
themselves, else the newer.  A memory the user rewrote in the memory browser
kept the source it was learned from ("learned from a conversation"), so a
newer memory the harvest had learned (perhaps wrongly) beat it, and the
user's correction was superseded by the next dream without being asked.
"""

from __future__ import annotations

import json

from desktop.core.dreaming.control import DreamControl
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import DAY, Dreaming

ROME = "The user lives in Rome"
OSLO = "The user lives in Oslo"


def _verdict(verdict: str) -> str:
    return json.dumps({"verdict": verdict, "merged": None})


def test_the_users_correction_wins_over_a_newer_learned_memory(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    rome = dreaming.add(ROME)
    dreaming.clock.advance(10 * DAY)
    oslo = dreaming.add(OSLO)
    model.queue(_verdict("keep_both"))
    dreaming.dreamer.run("manual", DreamControl())  # both judged once: no conflict seen
    dreaming.clock.advance(DAY)
    corrected = dreaming.memories.edit(rome.id, ROME + ".", expected=ROME).memory
    dreaming.clock.advance(DAY)
    model.queue(_verdict("keep_second"))

    dreaming.dreamer.run("manual", DreamControl())

    assert corrected.source_kind == "user_explicit"  # shown as "told by you"
    assert len(model.requests) == 2  # the pair was judged again after the edit
    assert dreaming.get(corrected.id).status == "active"
    assert dreaming.get(corrected.id).content == ROME + "."
    assert dreaming.get(oslo.id).superseded_by == corrected.id
