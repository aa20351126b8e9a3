"""Round 22: what the memory browser shows of a memory, a topic or a search
written in HTML's characters."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.db import ConversationStore
from desktop.core.memory.service import MemoryService
from desktop.ui.memory.browser import MemoryBrowser
from desktop.ui.memory.views import ForgetPreview
from tests.on_screen import HOSTILE_TEXTS, label_shows, tip_shows


@pytest.fixture
def browser(
    qtbot: QtBot, memories: MemoryService, store: ConversationStore
) -> Iterator[MemoryBrowser]:
    window = MemoryBrowser(memories, store)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.shutdown()


def test_a_memorys_tooltip_shows_its_text_as_written(
    memories: MemoryService, browser: MemoryBrowser
) -> None:
    """A memory holding a tag ("<b>Budget</b> ...") was read as HTML in the
    list's tooltip: the tag vanished, the text turned bold, an <img> loaded
    a local file."""
    for text in HOSTILE_TEXTS:
        memories.remember(text, source_kind="user_explicit", actor="user")
    browser.refresh()

    tips = {tip_shows(browser.items.item(row).toolTip()) for row in range(browser.items.count())}
    assert tips == set(HOSTILE_TEXTS)


def test_a_problem_quoting_a_memory_is_shown_as_written_in_its_tooltip(
    browser: MemoryBrowser,
) -> None:
    said = "That did not work: <b>Budget</b> for the R&D trip was merged away"
    browser.show_problem(said)
    browser.show_notice(said)

    assert tip_shows(browser.problem.toolTip()) == said
    assert tip_shows(browser.notice.toolTip()) == said


def test_a_topic_to_forget_is_shown_as_written(
    qtbot: QtBot, memories: MemoryService, browser: MemoryBrowser
) -> None:
    """Forgetting everything about "<code>" (memories about writing HTML)
    said "Reverie remembers these about “”" in a typewriter font: the topic
    was read as a tag."""
    memory = memories.remember(
        "The user writes <code> blocks in HTML pages", source_kind="user_explicit", actor="user"
    ).memory
    for topic in ("<code>", *HOSTILE_TEXTS):
        preview = ForgetPreview(topic, [memory], browser)
        qtbot.addWidget(preview)
        assert label_shows(preview.intro).startswith(f"Reverie remembers these about “{topic}”.")


def test_a_search_that_finds_nothing_is_quoted_as_typed(
    qtbot: QtBot, memories: MemoryService, browser: MemoryBrowser
) -> None:
    """A search for "<h2>nothing</h2>" that found nothing said so with a
    heading in the middle of the sentence and the tags gone."""
    memories.remember("The user likes green tea", source_kind="user_explicit", actor="user")
    browser.refresh()
    browser.filters.search.setText("<h2>nothing</h2>")
    qtbot.waitUntil(lambda: browser.list_stack.currentWidget() is browser.empty_label)

    assert label_shows(browser.empty_label) == (
        "No memories match “<h2>nothing</h2>” with these filters."
    )


LONG_LINK = "https://example.com/recipes/" + "".join(
    f"{word}{number}_" for number, word in enumerate(["Zm9vYmFy", "cXV4eHl6", "YWJjZGVm"] * 40)
)


def test_a_long_link_in_a_memory_wraps_in_its_history_and_source(
    qtbot: QtBot, memories: MemoryService, store: ConversationStore, browser: MemoryBrowser
) -> None:
    """A memory holding a 1,300-character link, with no space to break it at,
    made its history line (and the message it came from) as wide as the
    link: the panel under the editor, which never scrolls sideways, cut
    every line of it, and of the facts above, off on the right."""
    conversation = store.create("Recipes")
    message = store.add_message(conversation.id, "user", f"Save this: {LONG_LINK}")
    memory = memories.remember(
        f"The user's recipe is at {LONG_LINK}",
        source_kind="user_explicit",
        actor="user",
        message_ids=(message.id,),
    ).memory
    browser.refresh()
    browser.show_memory(memory.id)
    about = browser.detail.about
    inside = about.widget()

    assert inside is not None and inside.minimumSizeHint().width() <= about.viewport().width()
    [history] = browser.detail.history_views
    assert unbroken(label_shows(history.change)) == memory.content
    [source] = browser.detail.source_views
    assert message.content.startswith(unbroken(label_shows(source.body)).removesuffix("…"))


def unbroken(text: str) -> str:
    return text.replace("\u200b", "")
