"""Whether the user's own words say a task is done (``said_done``): a
whitelist.  Only a sentence that positively says so (a completion word, or
a past form of the task's own verb, said by the user or for them) counts;
everything else, however it is worded or spelled, leaves the task open.
The sentences below are round 14's attack, word for word, and more of each
kind; a few go through a whole agenda review and a whole dream too
(``test_agenda_round14``, ``dreaming/test_task_review_round14``)."""

from __future__ import annotations

from datetime import datetime
from datetime import time as time_of_day

import pytest

from desktop.core.db import Message
from desktop.core.db.conversations import MessageRole
from desktop.core.db.schedules import Daily, Interval, Once, Schedule
from desktop.core.db.tasks import Task
from desktop.core.tasks.evidence import AGAINST, DOUBTS, DoneEvidence, fold, said_done
from tests.growth import LINEAR, growth

MADE_AT = 100.0

NOT_DONE = [
    # (the task, what the user typed, the words the model quotes, why not)
    # Round 14, F1: a task named, asked for, moved or under way.
    ("Call the dentist", "Move the dentist call to Friday at 10.", "dentist call", "intent"),
    ("Call the dentist", "Call the dentist on Friday at 9.", "call the dentist on friday",
     "unsaid"),
    ("Water the plants", "Water the plants.", "water the plants", "unsaid"),
    ("Water the plants", "I am watering the plants right now.", "watering the plants",
     "progress"),
    ("File the taxes", "File the taxes is my biggest worry this month.", "file the taxes",
     "unsaid"),
    # F2: denials and plans no list had.
    ("Water the plants", "I keep forgetting to water the plants.", "water the plants", "negated"),
    ("Water the plants", "I was supposed to water the plants.", "water the plants", "obligation"),
    ("Water the plants", "I meant to water the plants.", "water the plants", "obligation"),
    ("Water the plants", "I wish I had watered the plants.", "watered the plants", "wish"),
    ("Water the plants", "I skipped watering the plants.", "watering the plants", "negated"),
    ("Water the plants", "I postponed watering the plants.", "watering the plants", "negated"),
    ("Water the plants", "Stop reminding me to water the plants.", "water the plants", "negated"),
    ("Water the plants", "I watered the plants... just kidding.", "watered the plants",
     "retracted"),
    ("Water the plants", "I barely watered the plants.", "watered the plants", "negated"),
    ("Water the plants", "I doubt I watered the plants.", "watered the plants", "negated"),
    ("Water the plants", "Has anyone watered the plants", "watered the plants", "question"),
    ("Water the plants", "I could have watered the plants.", "watered the plants", "wish"),
    ("Water the plants", "I refuse to water the plants.", "water the plants", "negated"),
    ("Water the plants", "Instead of watering the plants I watched TV.", "watering the plants",
     "negated"),
    ("Water the plants", "Is it true I watered the plants", "watered the plants", "question"),
    ("Water the plants", "I forgot about watering the plants.", "watering the plants", "negated"),
    ("Water the plants", "I ran out of time to water the plants.", "water the plants", "negated"),
    ("Water the plants", "I'm about to water the plants.", "water the plants", "intent"),
    ("Water the plants", "I hardly watered the plants.", "watered the plants", "negated"),
    ("Water the plants", "Watered the plants? Nope.", "watered the plants", "question"),
    ("Water the plants", "I watered the plants \u2014 NOT.", "watered the plants", "negated"),
    ("Water the plants", "My plan: I watered the plants (in my dreams).", "i watered the plants",
     "retracted"),
    ("Water the plants", "I'd rather die than water the plants.", "water the plants", "intent"),
    ("Water the plants", "Yesterday I did not. Today I watered the plants? no.",
     "watered the plants", "negated"),
    # F3: a denial or a question in other characters.
    ("Water the plants", "I have \uff4e\uff4f\uff54 watered the plants.", "watered the plants",
     "negated"),
    ("Water the plants", "I have n\u03bft watered the plants.", "watered the plants", "negated"),
    ("Water the plants", "I have n\u200bot watered the plants.", "watered the plants", "negated"),
    ("Water the plants", "I didn\u02bct water the plants.", "water the plants", "negated"),
    ("Water the plants", "I didn\u00b4t water the plants.", "water the plants", "negated"),
    ("Water the plants", "I did\u00adn't water the plants.", "water the plants", "negated"),
    ("Water the plants", "I watered the plants\uff1f", "watered the plants", "question"),
    ("Water the plants", "I watered the plants\u2753", "watered the plants", "question"),
    ("Water the plants", "I \U0001d5fb\U0001d5fc\U0001d601 watered the plants.",
     "watered the plants", "negated"),  # mathematical sans-serif "not"
    # F4: other languages say only what the host is sure of.
    ("Pflanzen gie\u00dfen", "Ich habe die Pflanzen noch nicht gegossen.",
     "die Pflanzen noch nicht gegossen", "unsaid"),
    ("Arroser les plantes", "Je n'ai pas encore arros\u00e9 les plantes.",
     "pas encore arros\u00e9 les plantes", "unsaid"),
    ("Regar las plantas", "Todav\u00eda no he regado las plantas.", "no he regado las plantas",
     "negated"),
    ("Pflanzen gie\u00dfen", "Ich habe die Pflanzen gegossen.", "die Pflanzen gegossen", "unsaid"),
    ("Pflanzen gie\u00dfen", "Pflanzen gie\u00dfen ist noch nicht erledigt.",
     "Pflanzen gie\u00dfen ist noch nicht erledigt", "negated"),
    ("Arroser les plantes", "Arroser les plantes : ce n'est pas fait.", "arroser les plantes",
     "unsaid"),
    ("Arroser les plantes", "Arroser les plantes : ce n'est pas encore terminé.",
     "arroser les plantes", "negated"),
    ("Regar las plantas", "\u00bfRegar las plantas? Todav\u00eda no est\u00e1 hecho.",
     "regar las plantas", "question"),
    # F5: the same message takes it back.
    ("Water the plants", "I watered the plants. Actually no, I have not watered the plants.",
     "I watered the plants", "retracted"),
    ("Water the plants", "I watered the plants. No wait, I didn't.", "I watered the plants",
     "retracted"),
    ("Water the plants", "I watered the plants. Not!", "I watered the plants", "negated"),
    ("Water the plants", "Nothing else today? No. But I watered the plants.",
     "I watered the plants", "negated"),
    # F6: a quote cut out of a word.
    ("Lock the door", "I unlocked the door.", "locked the door", "unquoted"),
    ("Pack the boxes", "I unpacked the boxes.", "packed the boxes", "unquoted"),
    ("Install the update", "I uninstalled the update.", "installed the update", "unquoted"),
    ("Subscribe to the newsletter", "I unsubscribed from the newsletter.",
     "subscribed from the newsletter", "unquoted"),
    ("Freeze the account", "I unfroze the account.", "froze the account", "unquoted"),
    ("Call the dentist", "I called the dentistry school.", "called the dentist", "unquoted"),
    ("Do the dishes", "I undid the dishes rack.", "did the dishes", "unquoted"),
    ("Lock the door", "I un-locked the door.", "locked the door", "unquoted"),
    # More of each kind.
    ("Water the plants", "I haven't watered the plants", "watered the plants", "negated"),
    ("Water the plants", "Nobody watered the plants.", "watered the plants", "negated"),
    ("Water the plants", "The plants weren't watered.", "the plants weren't watered", "negated"),
    ("Water the plants", "No, I never watered the plants.", "watered the plants", "negated"),
    ("Call the dentist", "I almost called the dentist.", "called the dentist", "negated"),
    ("Call the dentist", "I failed to call the dentist.", "call the dentist", "negated"),
    ("Call the dentist", "Called the dentist? I can't remember.", "called the dentist",
     "question"),
    ("Call the dentist", "Wait, did I call the dentist", "call the dentist", "question"),
    ("Call the dentist", "Who called the dentist", "called the dentist", "question"),
    ("Call the dentist", "I called the dentist, right", "called the dentist", "question"),
    ("Call the dentist", "I wonder whether I called the dentist.", "called the dentist",
     "question"),
    ("File the taxes", "If I filed the taxes, tell me.", "filed the taxes", "conditional"),
    ("File the taxes", "Once the taxes are filed, remind me to relax.", "the taxes are filed",
     "conditional"),
    ("File the taxes", "When the taxes are done, tell Ana.", "the taxes are done", "conditional"),
    ("File the taxes", "Unless Ana filed the taxes, it is late.", "filed the taxes",
     "conditional"),
    ("File the taxes", "I will have filed the taxes by Friday.", "filed the taxes", "intent"),
    ("File the taxes", "I'll be done with the taxes tomorrow.", "done with the taxes", "intent"),
    ("File the taxes", "The taxes are filed tomorrow.", "the taxes are filed", "intent"),
    ("File the taxes", "Remind me to file the taxes.", "file the taxes", "intent"),
    ("File the taxes", "I hope the taxes are filed.", "the taxes are filed", "wish"),
    ("File the taxes", "I want the taxes filed by Monday.", "the taxes filed", "wish"),
    ("File the taxes", "The taxes must be filed by Friday.", "the taxes must be filed",
     "obligation"),
    ("File the taxes", "The taxes should have been filed.", "the taxes should have been filed",
     "obligation"),
    ("File the taxes", "I had to file the taxes again.", "file the taxes", "obligation"),
    ("File the taxes", "I'm still filing the taxes.", "filing the taxes", "progress"),
    ("File the taxes", "Halfway done with the taxes.", "done with the taxes", "progress"),
    ("File the taxes", "I started the taxes, they are half done.", "half done", "progress"),
    ("File the taxes", "I usually filed the taxes in May.", "filed the taxes", "habit"),
    ("File the taxes", "Filed the taxes lol jk", "filed the taxes", "retracted"),
    ("File the taxes", "Yeah right, I filed the taxes.", "I filed the taxes", "retracted"),
    ("Post the letter", "You posted the letter.", "posted the letter", "unsaid"),
    ("Post the letter", "The posted letter is on the desk.", "the posted letter", "unsaid"),
    ("Post the letter", "Well done on the letter!", "well done on the letter", "unsaid"),
    ("Post the letter", "To be posted: the letter.", "to be posted: the letter", "unsaid"),
    ("Read the report", "I read the report.", "read the report", "unsaid"),  # "read" is both
    ("Buy milk", "Buy milk and eggs.", "buy milk", "unsaid"),
    ("Buy milk", "I bought bread, not milk.", "bought bread", "negated"),
]  # fmt: skip

DONE = [
    # (the task, what the user typed, the words the model quotes)
    ("Water the plants", "I watered the plants this morning.", "watered the plants"),
    ("File the taxes", "Done: filed the taxes.", "done: filed the taxes"),
    ("File the taxes", "Finally, the taxes are filed!", "the taxes are filed"),
    ("File the taxes", "Ana filed the taxes for us yesterday.", "filed the taxes"),
    ("Call the dentist", "I've called the dentist.", "called the dentist"),
    ("Call the dentist", "Called the dentist, all sorted.", "called the dentist"),
    ("Water the plants", "\u2705 water the plants", "water the plants"),
    ("Water the plants", "The plants are watered.", "the plants are watered"),
    ("Call the dentist", "My husband called the dentist for me.", "called the dentist"),
    ("File the taxes", "Just finished filing the taxes.", "finished filing the taxes"),
    ("Call the dentist", "I took care of the dentist call.", "took care of the dentist call"),
    ("Post the letter to the bank", "Posted the letter to the bank today.",
     "posted the letter to the bank"),
    ("Buy milk", "I bought the milk on the way home.", "bought the milk"),
    ("Pay the rent", "Paid the rent this morning.", "paid the rent"),
    ("Renew the passport", "We renewed the passport last week.", "renewed the passport"),
    ("File the taxes", "The taxes are done.", "the taxes are done"),
    ("Send the email to Bob", "I sent the email to Bob.", "sent the email to Bob"),
    ("Take out the trash", "Took out the trash.", "took out the trash"),
    ("Do the dishes", "Did the dishes after dinner.", "did the dishes"),
    ("Cancel the gym membership", "I have cancelled the gym membership.",
     "cancelled the gym membership"),  # "cancel" is the task's own verb, not a cue
    ("Reply to the landlord", "I replied to the landlord about the heating.",
     "I replied to the landlord"),
    ("Call the dentist", "I called the dentist's office.", "I called the dentist"),
    ("Water the plants", "I can't believe it. I watered the plants! Did you see?",
     "I watered the plants"),
    ("Water the plants", "All good.\nI watered the plants.", "I watered the plants"),
    ("Water the plants", "I watered the\nplants this morning", "watered the plants this morning"),
    ("Water the plants", "\u201cI watered the plants\u201d", "\u201cI watered the plants.\u201d"),
    ("Water the plants", "I watered the plants \u2014 one thing less to think about.",
     "watered the plants"),
    ("Water the plants", "I WATERED THE PLANTS", "i watered the plants"),
    ("Water the plants", "I w\u0430tered the plants.", "watered the plants"),  # Cyrillic a
    ("Pflanzen gie\u00dfen", "Pflanzen gie\u00dfen ist erledigt.",
     "Pflanzen gie\u00dfen ist erledigt"),
    ("Arroser les plantes", "Arroser les plantes : c'est fait.", "arroser les plantes"),
    ("Regar las plantas", "Regar las plantas: hecho.", "regar las plantas: hecho"),
    ("Innaffiare le piante", "Innaffiare le piante: fatto!", "innaffiare le piante: fatto"),
]  # fmt: skip

DOUBTFUL = [
    # (the task, what the user typed, the words the model quotes, why in doubt)
    ("Water the plants", "Maybe I watered the plants.", "watered the plants", "hedged"),
    ("Water the plants", "I think I watered the plants yesterday.", "watered the plants",
     "hedged"),
    ("Water the plants", "I watered the plants, I believe.", "watered the plants", "hedged"),
    ("File the taxes", "All done this morning.", "all done this morning", "unrelated"),
    ("File the taxes", "C'est fait !", "c'est fait", "unrelated"),
]  # fmt: skip


def _task(
    text: str,
    *,
    schedule: Schedule | None = None,
    made_at: float = MADE_AT,
    reopened_at: float | None = None,
) -> Task:
    return Task(
        1, 1, text, 5, "active", schedule, None, made_at, made_at, None, None, None, reopened_at
    )


def _message(
    text: str,
    *,
    at: float = MADE_AT + 60,
    role: MessageRole = "user",
    message_id: int = 1,
    kind: str | None = None,
) -> Message:
    metadata = None if kind is None else {"kind": kind}
    return Message(message_id, 1, role, text, at, None, None, metadata)


def _evidence(task: str, said: str, quote: str) -> DoneEvidence:
    return said_done(_task(task), quote, [_message(said)])


def _case_id(case: tuple[str, ...]) -> str:
    return case[1][:48]


@pytest.mark.parametrize(("task", "said", "quote", "why"), NOT_DONE, ids=map(_case_id, NOT_DONE))
def test_words_that_do_not_positively_say_it_is_done_are_no_evidence(
    task: str, said: str, quote: str, why: str
) -> None:
    evidence = _evidence(task, said, quote)

    assert (evidence.against, evidence.done) == (why, False), (said, evidence)
    assert evidence.reason == f"the model thought it done, but {AGAINST[why]}"


@pytest.mark.parametrize(("task", "said", "quote"), DONE, ids=map(_case_id, DONE))
def test_a_sentence_positively_saying_it_is_done_is_evidence(
    task: str, said: str, quote: str
) -> None:
    evidence = _evidence(task, said, quote)

    assert evidence.done, (said, evidence)
    assert evidence.reason == ""


@pytest.mark.parametrize(("task", "said", "quote", "why"), DOUBTFUL, ids=map(_case_id, DOUBTFUL))
def test_a_hedge_or_a_done_word_not_naming_the_task_is_a_doubt(
    task: str, said: str, quote: str, why: str
) -> None:
    evidence = _evidence(task, said, quote)

    assert (evidence.against, evidence.doubt, evidence.done) == ("", why, False), said
    assert evidence.reason == DOUBTS[why]


def test_the_sets_are_as_large_as_promised() -> None:
    assert len(NOT_DONE) >= 60 and len(DONE) >= 15


# -- which message decides ---------------------------------------------------------


@pytest.mark.parametrize(
    "quote", ["watered the plants", "I watered the plants", "watered the plants this morning"]
)
def test_a_later_message_taking_it_back_decides_whatever_the_quote(quote: str) -> None:
    # Round 14, F5: a longer quote found only in the older message made it decide.
    said = _message("I watered the plants this morning.", at=MADE_AT + 10)
    taken_back = _message(
        "Sorry, scratch that: I haven't watered the plants, the can was empty.",
        at=MADE_AT + 20,
        message_id=2,
    )

    evidence = said_done(_task("Water the plants"), quote, [taken_back, said])

    assert not evidence.done
    assert evidence.against in ("retracted", "negated")


@pytest.mark.parametrize(
    ("later", "why"),
    [
        ("Have I watered the plants?", "question"),
        ("No I didn't.", "negated"),
        ("Not yet!", "negated"),
        ("Did I?", "question"),
        ("Just kidding.", "retracted"),
        ("The plants look dry.", "newer"),  # it talks about them and says nothing done
        ("Can you move the plant reminder to Friday?", "question"),
    ],
)
def test_a_later_message_that_talks_about_the_task_without_saying_it_is_done_decides(
    later: str, why: str
) -> None:
    said = _message("I watered the plants.", at=MADE_AT + 10)
    newer = _message(later, at=MADE_AT + 20, message_id=2)

    evidence = said_done(_task("Water the plants"), "I watered the plants", [said, newer])

    assert (evidence.against, evidence.done) == (why, False)


@pytest.mark.parametrize(
    "later",
    ["How are you?", "No, thanks.", "What time is it?", "Thanks! I also watered the plants."],
)
def test_a_later_message_about_something_else_or_saying_it_again_does_not(later: str) -> None:
    said = _message("I watered the plants.", at=MADE_AT + 10)
    newer = _message(later, at=MADE_AT + 20, message_id=2)

    evidence = said_done(_task("Water the plants"), "I watered the plants", [said, newer])

    assert evidence.done and evidence.message == said


def test_a_later_message_saying_it_is_done_outweighs_an_earlier_denial() -> None:
    before = _message("I haven't watered the plants yet.", at=MADE_AT + 10)
    after = _message("Now I have watered the plants.", at=MADE_AT + 20, message_id=2)

    evidence = said_done(_task("Water the plants"), "watered the plants", [after, before])

    assert evidence.done and evidence.message == after


def test_messages_written_in_the_same_second_are_read_in_the_order_they_were_stored() -> None:
    said = _message("I watered the plants.", message_id=1)
    taken_back = _message("No I didn't.", message_id=2)

    assert not said_done(_task("Water the plants"), "watered the plants", [taken_back, said]).done


@pytest.mark.parametrize(
    ("message", "quote"),
    [
        (_message("I watered the plants.", role="assistant"), "watered the plants"),
        (_message("I watered the plants.", at=MADE_AT - 1), "watered the plants"),
        (_message("I watered the plants.", kind="command"), "watered the plants"),
        (_message("I watered the plants.", kind="seed"), "watered the plants"),
        (_message("I watered the plants."), "watered"),  # one word says little
        (_message("I watered the plants."), "I watered the flowers"),  # never typed
        (_message("I watered the plants."), None),
        (_message("I watered the plants."), "  .  "),
    ],
    ids=[
        "reverie's words",
        "before the task",
        "command",
        "seed",
        "one word",
        "not typed",
        "no quote",
        "punctuation",
    ],
)
def test_words_not_typed_by_the_user_after_the_task_was_made_are_no_evidence(
    message: Message, quote: str | None
) -> None:
    evidence = said_done(_task("Water the plants"), quote, [message])

    assert (evidence.message, evidence.against) == (None, "unquoted")


def test_only_words_typed_after_the_task_was_reopened_count() -> None:
    # Round 14, F7: a completion the user undid was made again from the same words.
    said = _message("I called the dentist's office.", at=MADE_AT + 10)
    reopened = _task("Call the dentist", reopened_at=MADE_AT + 20)

    evidence = said_done(reopened, "I called the dentist", [said])

    assert (evidence.message, evidence.against) == (None, "reopened")
    again = _message("Now I really called the dentist.", at=MADE_AT + 30, message_id=2)
    assert said_done(reopened, "I really called the dentist", [said, again]).done


@pytest.mark.parametrize(
    "schedule", [Daily(time_of_day(9)), Interval(90)], ids=["daily", "every 90 minutes"]
)
def test_a_repeating_task_is_never_completed_by_what_the_user_said(schedule: Schedule) -> None:
    # Round 14, F8: "today" ended a daily task for good.
    evidence = said_done(
        _task("Water the plants", schedule=schedule),
        "I watered the plants today",
        [_message("I watered the plants today.")],
    )

    assert (evidence.against, evidence.done) == ("repeating", False)


def test_a_task_that_runs_once_is_completed_as_any_other() -> None:
    once = Once(datetime(2030, 1, 1, 9))

    evidence = said_done(
        _task("Call the dentist", schedule=once),
        "I called the dentist",
        [_message("I called the dentist.")],
    )

    assert evidence.done


# -- spelling and time ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I DIDN\u2019T",
        "I didn\u02bct",
        "I didn\u00b4t",
        "I didn`t",
        "I didn\uff07t",
        "I di\u200bdn't",
        "\uff29 \uff44\uff49\uff44\uff4e'\uff54",
        "I d\u0456dn't",  # Cyrillic i
    ],
)
def test_every_spelling_of_a_word_is_read_as_the_plain_word(text: str) -> None:
    assert fold(text) == "i didn't"


@pytest.mark.parametrize(
    "unit",
    [
        "water the plants repot the plants feed the plants prune the plants ",
        "I watered the plants. ",
        "did it, ",
        "no ",
        ", so so did I",
        "have have have done ",
        "\U0001f331\u2705\u2753 ",
        "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8\u3001",
        "the plants the plants ",
    ],
    ids=["list", "sentences", "did it", "no", "so did", "have done", "emoji", "cjk", "quotes"],
)
def test_a_long_message_is_read_in_linear_time(unit: str) -> None:
    # Round 14, F9: quadratic (38 s at 11 kB, 133 s at 22 kB).
    def read(size: int) -> None:
        said = _message(unit * (size // len(unit)) + " I watered the plants")
        said_done(_task("Water the plants"), "the plants", [said])

    assert growth(read, 25_000) < LINEAR


def test_a_done_sentence_at_the_end_of_a_megabyte_message_is_found() -> None:
    # How long it takes is the linear-growth test's to say, as a ratio: a
    # clock bound here failed on a loaded CI machine (1.06 s against 1.0).
    prose = "".join(f"On day {n} I watered plant {n}, and then I rested. " for n in range(20_000))
    said = _message(prose[:1_000_000] + " Done: I watered the plants.")

    evidence = said_done(_task("Water the plants"), "I watered the plants", [said])

    assert evidence.done
