"""Tests of a whole dream: passes, transactions, the circuit breaker, the log,
resuming, snapshots and the working set; a scripted model answers."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable

import pytest

from desktop.core.base.settings import DreamSettings
from desktop.core.db import Database, NewMemory, open_database
from desktop.core.dreaming.activity import UserActivity
from desktop.core.dreaming.control import DreamControl, DreamProgress
from desktop.core.dreaming.dreamer import DreamReport
from desktop.core.skills.library import SkillLibrary
from tests.erasers import waiting_for_snapshots
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import DAY, Dreaming

REX = "The user has a dog named Rex"
REX_TWIN = "The user has a dog called Rex"


def _merge(content: str, sources: list[int], delete: list[int] | None = None) -> str:
    saved = {"content": content, "category": "people", "sourceIds": sources}
    return json.dumps({"toSave": [saved], "toDelete": sources if delete is None else delete})


def _dream(dreaming: Dreaming, control: DreamControl | None = None) -> DreamReport:
    return dreaming.dreamer.run("manual", control or DreamControl())


# -- decay --------------------------------------------------------------------


def test_decay_halves_importance_every_half_life_after_the_grace_period(
    dreaming: Dreaming,
) -> None:
    memory = dreaming.add("The user once visited Lyon in France.", importance=0.8)
    dreaming.clock.advance(75 * DAY)  # 30 days of grace, then one half-life (45)

    _dream(dreaming)

    assert dreaming.get(memory.id).current_importance == pytest.approx(0.4)
    assert dreaming.get(memory.id).importance == 0.8  # as it was given


def test_decay_traces_the_same_curve_however_often_it_runs(
    make_dreaming: Callable[..., Dreaming],
) -> None:
    often = make_dreaming()
    early = often.add("The user once visited Lyon in France.", importance=0.9)
    late = often.add("The user once visited Graz in Austria.", importance=0.9)
    for _ in range(12):  # dreams every 5 days for 60 days: only `early` is old enough
        often.clock.advance(5 * DAY)
        _dream(often)

    expected = 0.9 * 0.5 ** ((60 - 30) / 45)
    assert often.get(early.id).current_importance == pytest.approx(expected, rel=1e-4)
    assert often.get(late.id).current_importance == pytest.approx(expected, rel=1e-4)


def test_decay_stops_at_the_floor_and_never_touches_pinned_memories(
    dreaming: Dreaming,
) -> None:
    faded = dreaming.add("The user once visited Lyon in France.", importance=0.8)
    pinned = dreaming.add("The user is allergic to peanuts.", importance=0.8, pinned=True)
    dreaming.clock.advance(1000 * DAY)

    _dream(dreaming)

    assert dreaming.get(faded.id).current_importance == pytest.approx(0.10)
    assert dreaming.get(pinned.id).current_importance == 0.8


# -- duplicates ---------------------------------------------------------------


def test_duplicates_merge_with_what_the_host_computes_and_sources_point_at_it(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    first = dreaming.add(REX, source_message_ids=(4,), reinforcement_count=2)
    dreaming.clock.advance(DAY)
    second = dreaming.add(REX_TWIN, source_message_ids=(9,), reinforcement_count=1)
    model.queue(_merge("The user has a dog named Rex.", [1, 2]))

    report = dreaming.dreamer.run("manual", DreamControl())

    store = dreaming.memories.store
    a, b = dreaming.get(first.id), dreaming.get(second.id)
    assert (a.status, b.status) == ("superseded", "superseded")
    assert a.superseded_by is not None and a.superseded_by == b.superseded_by
    merged = dreaming.get(a.superseded_by)
    assert (merged.content, merged.source_kind, merged.category) == (
        "The user has a dog named Rex.",
        "dream_merged",
        "people",
    )
    assert merged.created_at == first.created_at  # the earliest first sight
    assert merged.last_seen_at == second.last_seen_at  # the latest
    assert merged.reinforcement_count == 3
    assert store.sources(merged.id).message_ids == (4, 9)
    assert store.vectors([merged.id])  # searchable by meaning at once
    history = store.history(a.id)[-1]
    assert (history.operation, history.actor, history.dream_run_id) == (
        "supersede",
        "dream:dedup",
        report.run.id,
    )
    [change] = dreaming.dreamer.dreams.changes(report.run.id)
    assert change.kind == "merge" and change.status == "applied"
    assert history.details is not None and history.details["superseded_by"] == merged.id


@pytest.mark.parametrize("delete", [[], [2]])
def test_a_merged_memory_replaces_its_sources_whatever_to_delete_repeats(
    dreaming: Dreaming, model: ScriptedChatModel, delete: list[int]
) -> None:
    first = dreaming.add(REX)
    second = dreaming.add(REX_TWIN)
    model.queue(_merge("The user has a dog named Rex.", [1, 2], delete))

    _dream(dreaming)

    assert {dreaming.get(first.id).status, dreaming.get(second.id).status} == {"superseded"}


def test_duplicates_read_from_one_message_are_counted_once_when_merged(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    # Two wordings of one thing the user said once, and a later sighting.
    dreaming.add(REX, source_message_ids=(4,), reinforcement_count=1)
    twin = dreaming.add(REX_TWIN, source_message_ids=(4, 9), reinforcement_count=2)
    model.queue(_merge("The user has a dog named Rex.", [1, 2]))

    dreaming.dreamer.run("manual", DreamControl())

    merged = dreaming.get(dreaming.get(twin.id).superseded_by or 0)
    assert merged.reinforcement_count == 2  # messages 4 and 9, not 1 + 2
    assert dreaming.memories.store.sources(merged.id).message_ids == (4, 9)


def test_the_model_sees_small_numbers_and_a_schema_allowing_only_those(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    first = dreaming.add(REX)
    dreaming.add(REX_TWIN)

    _dream(dreaming)

    [(prompt, options)] = model.requests
    assert "[1] The user has a dog named Rex" in prompt[-1].content
    assert f"#{first.id}" not in prompt[-1].content
    assert options.json_schema is not None
    assert options.json_schema["properties"]["toDelete"]["items"]["enum"] == [1, 2]


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ('{"toSave": [{"content": "The user has a dog', "not usable"),
        ('{"toSave": [], "toDelete": [1]}', "no merged memory replaces"),
        (_merge("The user has a dog named Rex.", [1, 7]), "not shown"),
        ('{"toSave": [], "toDelete": [], "note": 1}', "not usable"),
    ],
)
def test_an_unusable_answer_rolls_the_pass_back_keeps_it_in_the_log_and_others_go_on(
    dreaming: Dreaming, model: ScriptedChatModel, answer: str, reason: str
) -> None:
    stale = dreaming.add("The user once liked a band called Vesper.")
    dreaming.clock.advance(100 * DAY)
    first = dreaming.add(REX)
    second = dreaming.add(REX_TWIN)
    model.queue(answer)

    report = dreaming.dreamer.run("manual", DreamControl())

    assert (dreaming.get(first.id).status, dreaming.get(second.id).status) == ("active",) * 2
    assert dreaming.get(stale.id).status == "archived"  # the stale pass still ran
    log = {e.pass_name: e for e in dreaming.dreamer.dreams.log_entries(report.run.id)}
    assert log["dedup"].outcome == "rolled_back"
    assert reason in log["dedup"].message
    assert log["dedup"].raw_output is not None
    assert report.run.status == "completed"


def test_a_merge_dropping_a_number_is_refused_by_the_coverage_check(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    first = dreaming.add("The user runs 10 km every Sunday")
    dreaming.add("The user runs 12 km every Sunday")
    model.queue(_merge("The user runs every Sunday.", [1, 2]))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert dreaming.get(first.id).status == "active"
    [entry] = [
        e for e in dreaming.dreamer.dreams.log_entries(report.run.id) if e.pass_name == "dedup"
    ]
    assert "it dropped 10, 12" in entry.message


@pytest.mark.parametrize(
    "drifted",
    [
        "The user does not have a dog named Rex.",  # says the opposite
        "The user has a small dog named Rex.",  # adds what neither says
        "The user has a dog named Max.",  # drops a name
        "The user has Rex.",  # says less than either
    ],
)
def test_a_merge_that_drifts_keeps_the_words_of_a_duplicate_instead(
    dreaming: Dreaming, model: ScriptedChatModel, drifted: str
) -> None:
    first = dreaming.add(REX)
    dreaming.add(REX_TWIN)
    model.queue(_merge(drifted, [1, 2]))

    dreaming.dreamer.run("manual", DreamControl())

    merged = dreaming.get(dreaming.get(first.id).superseded_by or 0)
    assert merged.content == REX_TWIN  # the longer of the two that say it all


def test_duplicates_that_disagree_are_not_merged(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    first = dreaming.add(REX)
    dreaming.add("The user has not a dog named Rex")
    model.queue(_merge(REX, [1, 2]))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert dreaming.get(first.id).status == "active"
    [entry] = [
        e for e in dreaming.dreamer.dreams.log_entries(report.run.id) if e.pass_name == "dedup"
    ]
    assert "they disagree" in entry.message


def test_only_memories_changed_since_the_last_dream_reach_the_model(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    dreaming.add(REX)
    dreaming.add(REX_TWIN)
    _dream(dreaming)  # judged: not duplicates
    dreaming.clock.advance(60)

    _dream(dreaming)
    assert len(model.requests) == 1

    dreaming.clock.advance(60)
    dreaming.add("The user has a dog called Rex!")  # new: judged with its neighbours
    _dream(dreaming)
    assert len(model.requests) == 2


# -- stale memories and the circuit breaker ------------------------------------


def test_stale_memories_are_archived_but_never_cherished_ones(dreaming: Dreaming) -> None:
    stale = dreaming.add("The user once liked a band called Vesper.")
    told = dreaming.memories.remember(
        "The user's locker number is 1234.", source_kind="user_explicit", actor="user"
    ).memory
    important = dreaming.add("The user had surgery on a knee.", importance=0.9)
    reinforced = dreaming.add("The user likes long walks.", reinforcement_count=5)
    pinned = dreaming.add("The user's mother is called Ines.", pinned=True)
    dreaming.clock.advance(91 * DAY)

    _dream(dreaming)

    assert dreaming.get(stale.id).status == "archived"
    kept = [told, important, reinforced, pinned]
    assert [dreaming.get(m.id).status for m in kept] == ["active"] * 4


def test_a_pass_retiring_too_many_memories_changes_nothing(
    make_dreaming: Callable[..., Dreaming],
) -> None:
    dreaming = make_dreaming(DreamSettings(max_retired_share=0.25, max_retired_floor=1))
    stale = [dreaming.add(f"The user once tried hobby number {n}.") for n in range(4)]
    dreaming.clock.advance(100 * DAY)
    fresh = [dreaming.add(f"The user now plays sport number {n}.") for n in range(4)]

    report = dreaming.dreamer.run("manual", DreamControl())

    assert {dreaming.get(m.id).status for m in stale + fresh} == {"active"}
    [entry] = [
        e for e in dreaming.dreamer.dreams.log_entries(report.run.id) if e.pass_name == "stale"
    ]
    assert entry.outcome == "tripped"
    assert "would have retired 4 of 8 active memories, more than the 2 allowed" in entry.message


# -- risky changes, approval and undo ------------------------------------------


def test_a_change_touching_a_pinned_memory_waits_for_approval(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    first = dreaming.add(REX, pinned=True)
    second = dreaming.add(REX_TWIN)
    model.queue(_merge("The user has a dog named Rex.", [1, 2]))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert report.pending == 1 and report.applied == 0
    assert dreaming.get(first.id).status == "active"
    [change] = dreaming.dreamer.dreams.pending()
    approved = dreaming.dreamer.book.approve(change.id, dreaming.memories.embed_labelled)
    assert approved.status == "applied"
    merged = dreaming.get(dreaming.get(first.id).superseded_by or 0)
    assert merged.pinned  # a pinned source keeps the merged memory pinned
    assert dreaming.get(second.id).status == "superseded"


def test_undoing_a_run_brings_sources_back_and_takes_merges_away(
    dreaming: Dreaming, model: ScriptedChatModel, database: Database
) -> None:
    first = dreaming.add(REX)
    second = dreaming.add(REX_TWIN)
    model.queue(_merge("The user has a dog named Rex.", [1, 2]))
    report = dreaming.dreamer.run("manual", DreamControl())
    merged_id = dreaming.get(first.id).superseded_by

    undone = dreaming.dreamer.book.revert_run(report.run.id)

    assert undone == 1
    assert (dreaming.get(first.id).status, dreaming.get(second.id).status) == ("active",) * 2
    assert dreaming.get(first.id).superseded_by is None
    assert merged_id is not None and dreaming.memories.store.get(merged_id) is None
    assert database.fetch_value("SELECT count(*) FROM memory_embeddings") == 2


def test_an_undo_is_refused_when_the_memory_changed_since(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    first = dreaming.add(REX)
    dreaming.add(REX_TWIN)
    model.queue(_merge("The user has a dog named Rex.", [1, 2]))
    report = dreaming.dreamer.run("manual", DreamControl())
    merged_id = dreaming.get(first.id).superseded_by
    assert merged_id is not None
    dreaming.memories.edit(
        merged_id,
        "The user has a border collie named Rex.",
        expected=dreaming.get(merged_id).content,
    )
    [change] = dreaming.dreamer.dreams.changes(report.run.id)

    with pytest.raises(Exception, match="changed since"):
        dreaming.dreamer.book.revert(change.id)

    assert dreaming.get(first.id).status == "superseded"


# -- giving way, resuming, snapshots, the working set ---------------------------


def test_a_dream_waits_while_the_user_chats_then_goes_on(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    dreaming.add(REX)
    dreaming.add(REX_TWIN)
    activity = UserActivity()
    activity.turn_started()
    waiting = threading.Event()

    def heard(progress: DreamProgress) -> None:
        if progress.waiting:
            waiting.set()

    control = DreamControl(activity, quiet_seconds=0, on_progress=heard)
    dream = threading.Thread(target=dreaming.dreamer.run, args=("manual", control))
    dream.start()
    assert waiting.wait(10)
    assert model.requests == []  # held before any model call

    activity.turn_ended()
    dream.join(10)

    assert not dream.is_alive()
    assert len(model.requests) == 1


def test_a_paused_dream_resumes_where_it_stopped_without_asking_again(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    dreaming.add(REX)
    dreaming.add(REX_TWIN)
    tea = dreaming.add("The user drinks green tea daily")
    dreaming.add("The user drinks green tea daily!")
    model.queue(_merge("The user has a dog named Rex.", [1, 2]))
    controls: list[DreamControl] = []

    def pause_after_the_first_answer(progress: DreamProgress) -> None:
        if progress.pass_name == "dedup" and len(model.requests) == 1:
            controls[0].stop("paused")  # before the second cluster is asked about

    controls.append(DreamControl(on_progress=pause_after_the_first_answer))
    paused = dreaming.dreamer.run("manual", controls[0])
    assert paused.run.status == "paused"
    assert dreaming.get(tea.id).status == "active"  # nothing of the pass applied yet
    model.queue(_merge("The user drinks green tea daily.", [1, 2]))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert report.run.id == paused.run.id
    assert report.run.status == "completed"
    assert len(model.requests) == 2  # the first cluster was not asked about again
    assert report.applied == 2
    assert dreaming.get(tea.id).status == "superseded"


def test_a_wave_of_new_memories_makes_a_dream_due_early_but_not_the_dreams_own(
    make_dreaming: Callable[..., Dreaming],
) -> None:
    dreaming = make_dreaming(DreamSettings(quiet_seconds=0, early_after_new_memories=2))
    dreaming.add(REX)
    assert not dreaming.dreamer.due_early()
    dreaming.add("The user plays the cello on Sundays.")
    assert dreaming.dreamer.due_early()

    dreaming.clock.advance(60)
    _dream(dreaming)
    assert not dreaming.dreamer.due_early()

    dreaming.clock.advance(60)
    inferred = NewMemory("The user prefers short answers.", None, "inferred")
    dreaming.memories.store.add_many([inferred], actor="dream:preferences")
    dreaming.add("The user's sister is called Ana.")
    assert not dreaming.dreamer.due_early()  # one new from outside; the dream's own is not news
    dreaming.add("The user is allergic to peanuts.")
    assert dreaming.dreamer.due_early()


def test_a_snapshot_is_taken_before_each_dream_and_only_the_last_few_kept(
    make_dreaming: Callable[..., Dreaming], skills: SkillLibrary
) -> None:
    dreaming = make_dreaming(DreamSettings(snapshots_kept=2), skills=skills)
    dreaming.add(REX)
    tea = skills.create("brew-tea", "Brew the user's tea\nGreen, 80 degrees.\n")
    for text in ("Brew the user's tea\nBlack now.\n", "Brew the user's tea\nWhite.\n", None):
        dreaming.clock.advance(3600)
        _dream(dreaming)
        if text is not None:  # changed between dreams, as the user might
            skills.update_text(tea.id, text)

    kept = sorted((dreaming.folder / "snapshots").glob("*.sqlite3"))
    assert len(kept) == 2
    with open_database(kept[0]) as copy:
        assert copy.fetch_value("SELECT content FROM memories") == REX
    # Skill files cannot share a pass's transaction: the copy keeps them as they were.
    copies = sorted((dreaming.folder / "snapshots").glob("*.skills"))
    assert copies == [path.with_suffix(".skills") for path in kept]
    assert [(c / "brew-tea.md").read_text(encoding="utf-8") for c in copies] == [
        "Brew the user's tea\nBlack now.\n",
        "Brew the user's tea\nWhite.\n",
    ]


def test_a_dream_copies_the_database_only_once_an_erasure_under_way_is_done(
    dreaming: Dreaming,
) -> None:
    dreaming.add(REX)
    folder = dreaming.folder / "snapshots"
    dream = threading.Thread(target=_dream, args=(dreaming,))
    erasing = dreaming.dreamer.eraser.snapshots_lock.held("An erasure")
    try:
        with waiting_for_snapshots() as waiting, erasing:
            dream.start()
            assert waiting.wait(60)
            assert list(folder.glob("*before-dream-*")) == []  # nothing copied meanwhile
    finally:  # the erasure is over: the dream goes on
        if dream.ident is not None:
            dream.join(60)

    assert not dream.is_alive()
    assert len(list(folder.glob("before-dream-*.sqlite3"))) == 1


def test_the_working_set_lists_the_most_used_memories(dreaming: Dreaming) -> None:
    dreaming.add("The user's partner is called Sam.", reinforcement_count=7)
    dreaming.add("The user mentioned rain once.")
    dreaming.add("The user is allergic to peanuts.", pinned=True)

    _dream(dreaming)

    text = (dreaming.folder / "MEMORIES.md").read_text(encoding="utf-8")
    assert text.index("allergic to peanuts") < text.index("called Sam") < text.index("rain once")
    assert "(pinned)" in text


def test_importance_is_never_nan(dreaming: Dreaming) -> None:
    memory = dreaming.add("The user once visited Lyon in France.", importance=0.5)
    dreaming.clock.advance(10_000 * DAY)
    _dream(dreaming)
    assert not math.isnan(dreaming.get(memory.id).current_importance)


def test_a_later_fade_blocks_neither_undo_nor_approval(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    first = dreaming.add(REX, reinforcement_count=3)  # merged, seen too often to go stale
    dreaming.add(REX_TWIN, reinforcement_count=3)
    pinned = dreaming.add("The user's tea is green tea daily", pinned=True)
    faded = dreaming.add("The user's tea is green tea daily!", reinforcement_count=5)
    model.queue(
        _merge("The user has a dog named Rex.", [1, 2]),
        _merge("The user's tea is green tea daily.", [1, 2]),
    )
    report = _dream(dreaming)
    assert (report.applied, report.pending) == (1, 1)
    dreaming.clock.advance(200 * DAY)  # the next dream fades every memory involved
    _dream(dreaming)
    assert dreaming.get(pinned.id).current_importance == 0.5  # pinned: never faded
    assert dreaming.get(faded.id).faded_importance is not None
    merged = dreaming.get(dreaming.get(first.id).superseded_by or 0)
    assert merged.faded_importance is not None

    [pending] = dreaming.dreamer.dreams.pending()
    assert dreaming.dreamer.book.approve(pending.id).status == "applied"
    [merge, *_] = dreaming.dreamer.dreams.changes(report.run.id)
    dreaming.dreamer.book.revert(merge.id)

    assert dreaming.get(first.id).status == "active"
