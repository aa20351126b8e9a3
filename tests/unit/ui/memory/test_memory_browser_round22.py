"""Round 22: what the memory browser shows of a memory written in HTML's
characters."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.db import ConversationStore
from desktop.core.memory.service import MemoryService
from desktop.ui.memory.browser import MemoryBrowser
from tests.tooltips import HOSTILE_TEXTS, tip_shows


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
