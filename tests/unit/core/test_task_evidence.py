"""Whether the user's own words say a task is done (``said_done``), read in
the sentence holding the quote, over every task and phrasing below: a
denial, a question, a condition or a plan is no evidence; a hedge or a
negation nearby is a doubt; a plain statement is evidence."""

from __future__ import annotations

import itertools

import pytest

from desktop.core.db import Message
from desktop.core.db.conversations import MessageRole
from desktop.core.task_evidence import AGAINST, DOUBTS, DoneEvidence, said_done

MADE_AT = 100.0

TASKS = [
    # (the task, its words as a plan, as done)
    ("Water the plants", "water the plants", "watered the plants"),
    ("Call the dentist", "call the dentist", "called the dentist"),
    ("File the taxes", "file the taxes", "filed the taxes"),
    ("Post the letter to the bank", "post the letter to the bank", "posted the letter to the bank"),
]

NOT_DONE = [
    # (why, what the user typed; the model quotes the words in braces)
    ("negated", "I have not {past} yet, I will do it tomorrow."),
    ("negated", "I haven't {past}."),
    ("negated", "I\u2019ve not {past} at all"),
    ("negated", "I never {past}."),
    ("negated", "I didn't {plan} today, sorry."),
    ("negated", "i didnt {plan}"),
    ("negated", "I no longer {plan}."),
    ("negated", "I'm yet to {plan}."),
    ("negated", "I forgot to {plan} again!"),
    ("negated", "I can't {plan} this week."),
    ("negated", "I almost {past}, then the phone rang."),
    ("negated", "Please don't tell me I {past}, I did not."),
    ("question", "Did I {plan}? I can't remember."),
    ("question", "Have I {past} yet?"),
    ("question", "did I {plan} or not"),
    ("question", "Wait, have I {past}"),
    ("question", "Should I {plan} today?"),
    ("question", "So I {past}, right?"),
    ("conditional", "If I {plan} today, tell me."),
    ("conditional", "Unless I {plan} soon it will be late."),
    ("conditional", "I wonder whether I {past}."),
    ("conditional", "As soon as I {plan} I will tell you."),
    ("intent", "I will {plan} tomorrow."),
    ("intent", "I'll {plan} after lunch."),
    ("intent", "I'm going to {plan}."),
    ("intent", "I need to {plan} this week."),
    ("intent", "I still need to {plan}."),
    ("intent", "Remind me to {plan} on Monday."),
    ("intent", "I want to {plan} soon."),
    ("intent", "Todo: {plan}"),
    ("intent", "I have to {plan} before Friday."),
    ("intent", "Please {plan} for me."),
]

DONE = [
    "I {past} this morning.",
    "Done: {past}.",
    "{Past}, finally!",
    "Good news: I {past} at last!",
    "Ana {past} for me yesterday.",
    "Yesterday I {past}.",
    "OK, {past} just now",
    "All good. I {past}.",
    "I {past} - one thing less to think about.",
    "Nothing else today? No. But I {past}, which was the big one.\nThanks!",
]

DOUBTFUL = [
    ("hedged", "Maybe I {past}."),
    ("hedged", "I think I {past} yesterday."),
    ("negation", "I didn't forget, I {past}."),
    ("negation", "I {past} but not the other thing."),
    ("condition", "I {past}, if you must know."),
    ("later", "I {plan} tomorrow."),
]


def _message(text: str, *, at: float = MADE_AT + 60, role: MessageRole = "user") -> Message:
    return Message(1, 1, role, text, at, None, None, None)


def _said(template: str, plan: str, past: str) -> tuple[str, str]:
    """What the user typed and the words of it the model quotes."""
    quoted = past if "{past}" in template or "{Past}" in template else plan
    text = template.format(plan=plan, past=past, Past=past.capitalize())
    return text, quoted


def _evidence(task: str, text: str, quoted: str) -> DoneEvidence:
    return said_done(task, MADE_AT, quoted, [_message(text)])


@pytest.mark.parametrize(
    ("task", "plan", "past", "why", "template"),
    [(*t, *n) for t, n in itertools.product(TASKS, NOT_DONE)],
)
def test_words_cut_out_of_a_denial_a_question_a_condition_or_a_plan_are_no_evidence(
    task: str, plan: str, past: str, why: str, template: str
) -> None:
    text, quoted = _said(template, plan, past)

    evidence = _evidence(task, text, quoted)

    assert evidence.message is not None  # the quote is the user's own words...
    assert (evidence.against, evidence.done) == (why, False), text  # ...but not news
    assert evidence.reason == f"the model thought it done, but {AGAINST[why]}"


@pytest.mark.parametrize(
    ("task", "plan", "past", "template"), [(*t, d) for t, d in itertools.product(TASKS, DONE)]
)
def test_a_plain_statement_that_it_was_done_is_evidence(
    task: str, plan: str, past: str, template: str
) -> None:
    text, quoted = _said(template, plan, past)

    evidence = _evidence(task, text, quoted)

    assert evidence.done, (text, evidence)
    assert evidence.reason == ""


@pytest.mark.parametrize(
    ("task", "plan", "past", "why", "template"),
    [(*t, *d) for t, d in itertools.product(TASKS, DOUBTFUL)],
)
def test_words_that_only_might_say_it_is_done_are_a_doubt(
    task: str, plan: str, past: str, why: str, template: str
) -> None:
    text, quoted = _said(template, plan, past)

    evidence = _evidence(task, text, quoted)

    assert (evidence.against, evidence.doubt, evidence.done) == ("", why, False), text
    assert evidence.reason == DOUBTS[why]


@pytest.mark.parametrize(
    ("task", "quote", "said"),
    [
        # The round-13 phrasings: each quote is a fragment of the message.
        ("Water the plants", "watered the plants", "I have not watered the plants yet."),
        ("File the taxes", "the taxes are filed", "Please don't tell me the taxes are filed."),
        ("Call the dentist", "call the dentist", "Did I call the dentist? I can't remember."),
    ],
)
def test_a_fragment_of_the_users_words_is_read_in_its_sentence(
    task: str, quote: str, said: str
) -> None:
    assert quote in said.casefold()
    assert not _evidence(task, said, quote).done


def test_the_quote_is_read_in_its_own_sentence_not_in_its_neighbours() -> None:
    said = "I can't believe it. I watered the plants! Did you see?"

    assert _evidence("Water the plants", said, "I watered the plants").done


@pytest.mark.parametrize(
    ("message", "quote"),
    [
        (_message("I watered the plants.", role="assistant"), "watered the plants"),
        (_message("I watered the plants.", at=MADE_AT - 1), "watered the plants"),
        (_message("I watered the plants."), "watered"),  # one word says little
        (_message("I watered the plants."), "I watered the flowers"),  # never typed
        (_message("I watered the plants."), None),
    ],
    ids=["reverie's words", "before the task", "one word", "not typed", "no quote"],
)
def test_words_not_typed_by_the_user_after_the_task_was_made_are_no_evidence(
    message: Message, quote: str | None
) -> None:
    evidence = said_done("Water the plants", MADE_AT, quote, [message])

    assert (evidence.message, evidence.against) == (None, "unquoted")


@pytest.mark.parametrize("kind", ["command", "seed"])
def test_a_command_or_a_seed_is_no_evidence(kind: str) -> None:
    message = Message(
        1, 1, "user", "/done watered the plants", MADE_AT + 1, None, None, {"kind": kind}
    )

    assert said_done("Water the plants", MADE_AT, "watered the plants", [message]).against == (
        "unquoted"
    )


def test_the_newest_message_holding_the_quote_decides() -> None:
    before = _message("I haven't watered the plants yet.", at=MADE_AT + 10)
    after = _message("Now I have watered the plants.", at=MADE_AT + 20)
    taken_back = _message("Sorry, I have not watered the plants after all.", at=MADE_AT + 30)

    assert said_done("Water the plants", MADE_AT, "watered the plants", [after, before]).done
    evidence = said_done("Water the plants", MADE_AT, "watered the plants", [after, taken_back])
    assert (evidence.message, evidence.against) == (taken_back, "negated")


def test_one_message_saying_it_both_ways_is_a_doubt() -> None:
    said = "I haven't watered the plants in the kitchen. I watered the plants in the hall."

    evidence = _evidence("Water the plants", said, "watered the plants")

    assert (evidence.against, evidence.doubt) == ("", "both ways")


def test_words_that_do_not_name_the_task_are_a_doubt() -> None:
    evidence = _evidence("File the taxes", "I bought the milk this morning.", "I bought the milk")

    assert (evidence.against, evidence.doubt) == ("", "unrelated")
