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
