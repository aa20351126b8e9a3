"""Tests of scanning streamed text for stop strings split across pieces."""

from __future__ import annotations

from models.streaming import StopScanner


def test_stop_scanner_holds_back_a_possible_stop_and_releases_it_when_it_is_not() -> None:
    scanner = StopScanner(["</end>"])

    assert scanner.feed("Hello </e") == ("Hello ", False)
    assert scanner.feed("xtra") == ("</extra", False)
    assert scanner.flush() == ""


def test_stop_scanner_finds_a_stop_split_across_pieces() -> None:
    scanner = StopScanner(["User:"])

    assert scanner.feed("Sure. Us") == ("Sure. ", False)
    assert scanner.feed("er: more") == ("", True)


def test_stop_scanner_cuts_at_the_earliest_stop_whatever_the_order_listed() -> None:
    scanner = StopScanner(["world", "lo"])

    assert scanner.feed("hello world") == ("hel", True)


def test_stop_scanner_flush_returns_held_text_once() -> None:
    scanner = StopScanner(["STOP", ""])  # an empty stop string is ignored

    assert scanner.feed("wait ST") == ("wait ", False)
    assert scanner.flush() == "ST"
    assert scanner.flush() == ""


def test_stop_scanner_keeps_what_followed_the_stop_in_its_piece() -> None:
    scanner = StopScanner(["<tool_call>"])

    assert scanner.feed("Saving it. <tool") == ("Saving it. ", False)
    assert scanner.feed('_call>{"na') == ("", True)
    assert scanner.rest == '{"na'
