"""Tests of desktop.core.db.memory_rows: hashing and actor names."""

from __future__ import annotations

import hashlib

import pytest

from desktop.core.db.memory_rows import check_actor, content_hash


def test_content_hash_is_sha256_of_the_normalised_text() -> None:
    expected = hashlib.sha256(b"likes green tea").hexdigest()

    assert content_hash("  Likes \n GREEN\ttea ") == expected


def test_content_hash_casefolds() -> None:
    assert content_hash("STRASSE") == content_hash("straße")


@pytest.mark.parametrize("actor", ["user", "harvest", "system", "tool", "dream:merge"])
def test_known_actors_pass(actor: str) -> None:
    assert check_actor(actor) == actor


@pytest.mark.parametrize("actor", ["", "User", "dream:", "dreamer", "harvester", "tool "])
def test_unknown_actors_are_refused(actor: str) -> None:
    with pytest.raises(ValueError, match="unknown actor"):
        check_actor(actor)
