"""A second launch wakes the first instance instead of starting again."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.ui.single_instance import SingleInstance, instance_key


def test_the_second_claim_fails_and_wakes_the_first(qtbot: QtBot, tmp_path: Path) -> None:
    key = instance_key(tmp_path)
    first = SingleInstance(key)
    assert first.claim()
    try:
        with qtbot.waitSignal(first.activation_requested, timeout=5000):
            assert not SingleInstance(key).claim()
    finally:
        first.release()


def test_after_release_the_next_launch_is_first_again(tmp_path: Path) -> None:
    key = instance_key(tmp_path)
    first = SingleInstance(key)
    assert first.claim()
    first.release()
    second = SingleInstance(key)
    assert second.claim()
    second.release()


def test_different_data_folders_do_not_collide(tmp_path: Path) -> None:
    one, two = (
        SingleInstance(instance_key(tmp_path / "a")),
        SingleInstance(instance_key(tmp_path / "b")),
    )
    assert one.claim() and two.claim()
    one.release()
    two.release()
