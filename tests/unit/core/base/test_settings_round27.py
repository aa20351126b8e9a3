"""Round 27: a key of the settings file that no setting has is named in the
problem shown at start (on screen and on stderr) only when it is shaped
like a setting's name.

A secret pasted where a key goes (``"sk_live_...": 1``, or a token as a
group's key) was echoed whole when it held only letters, digits and
underscores, and its first forty characters when it held anything else.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import load_settings
from tests.unit.core.base.test_settings import _write

SECRETS = [
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "sk-ant-api03-Xq7vR2mKp9LwZt4NbY8sHc3JdF6gA1eU5iO0",
    "AKIAIOSFODNN7EXAMPLE",
    "hunter2-\u202egnp.exe\n",
]


@pytest.fixture
def path(user_dirs: AppPaths) -> Path:
    return user_dirs.settings_file


def test_a_key_that_may_be_a_secret_is_not_shown_in_the_problem(path: Path) -> None:
    file = {"version": 2, **dict.fromkeys(SECRETS, 1), "chat": dict.fromkeys(SECRETS, "x")}
    _write(path, json.dumps(file))

    _, problem = load_settings(path)

    said = str(problem)
    for secret in SECRETS:
        assert secret[:8] not in said
        assert ascii(secret)[1:9] not in said
    assert said.count("(a key of 32 characters, not shown: it may hold a secret)") == 2
    assert "\n" not in said and "\u202e" not in said


def test_a_mistyped_setting_is_still_named(path: Path) -> None:
    _write(path, {"version": 2, "speech": {}, "chat": {"contxt": 1, "maxTokens": 2, "top_k2": 3}})

    _, problem = load_settings(path)

    said = str(problem)
    for named in ("speech", "chat.contxt", "chat.maxTokens", "chat.top_k2"):
        assert f"{named}: not a setting Reverie knows; ignored" in said
