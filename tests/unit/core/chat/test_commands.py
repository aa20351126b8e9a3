"""Tests of slash-command parsing."""

from __future__ import annotations

import pytest

from desktop.core.chat.commands import COMMANDS, Command, help_text, parse


@pytest.mark.parametrize(
    ("typed", "parsed"),
    [
        ("/new", Command("new", "")),
        ("  /Remember   I like tea \n", Command("remember", "I like tea")),
        ("/forget #12", Command("forget", "#12")),
        ("/remember line one\nline two", Command("remember", "line one\nline two")),
        ("/frobnicate now", Command("frobnicate", "now")),
    ],
)
def test_commands(typed: str, parsed: Command) -> None:
    assert parse(typed) == parsed


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("hello /new", "hello /new"),
        ("/usr/bin is broken", "/usr/bin is broken"),
        ("//new is a command", "/new is a command"),
        ("/", "/"),
        ("/ spaced", "/ spaced"),
    ],
)
def test_messages(typed: str, message: str) -> None:
    assert parse(typed) == message


def test_known_and_help() -> None:
    assert Command("dream", "").known and not Command("frobnicate", "").known
    assert all(f"/{name}" in help_text() for name in COMMANDS)
