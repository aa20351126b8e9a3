"""A second launch wakes the first instance instead of starting again; a
socket that cannot be listened on is reported, never taken for a running one."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.ui.shell.single_instance import (
    SingleInstance,
    SingleInstanceUnavailable,
    instance_key,
    socket_path,
)

NOBODY = 65534
unix_only = pytest.mark.skipif(os.name != "posix", reason="socket files are a Unix matter")


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


def _stale_socket(key: str) -> Path:
    """A socket file nobody listens on, as a crashed instance leaves it."""
    path = Path(socket_path(key))
    with socket.socket(socket.AF_UNIX) as unix:
        unix.bind(str(path))
    return path


@pytest.fixture
def key(tmp_path: Path) -> Iterator[str]:
    key = instance_key(tmp_path)
    yield key
    Path(socket_path(key)).unlink(missing_ok=True)


@unix_only
def test_a_stale_socket_of_ones_own_is_removed_and_this_is_the_first_instance(
    qtbot: QtBot, key: str
) -> None:
    _stale_socket(key)
    first = SingleInstance(key)

    assert first.claim()
    try:
        with qtbot.waitSignal(first.activation_requested, timeout=5000):
            assert not SingleInstance(key).claim()  # the new socket answers
    finally:
        first.release()


@unix_only
def test_another_users_stale_socket_is_named_not_taken_for_a_running_instance(key: str) -> None:
    path = _stale_socket(key)
    try:
        os.chown(path, NOBODY, NOBODY)
    except PermissionError:
        pytest.skip("only root can give a socket file to another user")

    with pytest.raises(SingleInstanceUnavailable) as refused:
        SingleInstance(key).claim()

    said = str(refused.value)
    assert f"its socket {path} cannot be used" in said
    assert "belongs to another user" in said
    assert path.exists()  # not another user's file to remove


def test_a_socket_path_too_long_is_reported_not_taken_for_a_running_instance(
    tmp_path: Path,
) -> None:
    key = str(tmp_path / ("x" * 120))

    with pytest.raises(SingleInstanceUnavailable, match="the path is too long"):
        SingleInstance(key).claim()


@unix_only
def test_a_folder_in_the_sockets_place_is_reported_with_its_path(key: str) -> None:
    path = Path(socket_path(key))
    path.mkdir()
    try:
        with pytest.raises(SingleInstanceUnavailable) as refused:
            SingleInstance(key).claim()
    finally:
        path.rmdir()

    assert f"its socket {path} cannot be used" in str(refused.value)
    assert "If no Reverie is running, remove that file." in str(refused.value)


@unix_only
def test_another_users_listening_socket_is_not_taken_for_this_users_reverie(key: str) -> None:
    path = Path(socket_path(key))
    with socket.socket(socket.AF_UNIX) as decoy:
        decoy.bind(str(path))
        decoy.listen(1)  # connections wait in its backlog: it "answers"
        try:
            os.chown(path, NOBODY, NOBODY)
        except PermissionError:
            pytest.skip("only root can give a socket file to another user")

        with pytest.raises(SingleInstanceUnavailable, match="belongs to another user"):
            SingleInstance(key).claim()
