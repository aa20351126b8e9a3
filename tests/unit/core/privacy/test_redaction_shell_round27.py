"""Round 27, shell and ``.env`` lines.

A shell command whose output stands for a password is no password.
``export DB_PASSWORD=$(cat /run/secrets/db_password)`` became ``export
[redacted password] /[redacted password])``: the word after
``DB_PASSWORD=`` was read past ``$(`` into the command, and the path's own
``db_password`` named the assignment before it as its value.  A value typed
in backticks (Markdown's code) is still a value.

A variable naming a secret with the place or version it is for after the
name (Rails' ``SECRET_KEY_BASE``, ``DB_PASSWORD_PROD``) kept its value:
only names ending in the secret's word were read."""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import redact


@pytest.mark.parametrize(
    "text",
    [
        "export DB_PASSWORD=$(cat /run/secrets/db_password)",
        "PGPASSWORD=$(pass show db/prod) psql -h db.internal",
        "export API_TOKEN=$(vault read -field=token secret/api) && ./deploy.sh",
    ],
)
def test_a_commands_output_in_place_of_a_password_is_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("my password is `Hunter22!`", "Hunter22!"),
        ("the wifi password is hunter2x, set it with $(nmcli dev wifi connect)", "hunter2x"),
        ("password=$(cat pw.txt); echo done. my pin is 4729", "4729"),
    ],
)
def test_a_value_typed_beside_a_command_is_still_taken_out(text: str, secret: str) -> None:
    redacted = redact(text).text
    assert secret not in redacted
    assert "[redacted password]" in redacted


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "export SECRET_KEY_BASE=4f9a8c7d6e5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39",
            "4f9a8c7d6e5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39",
        ),
        ("DB_PASSWORD_PROD=Tr0ub4dor&3", "Tr0ub4dor&3"),
        ("API_KEY_V2=k8s7d6f5g4h3j2", "k8s7d6f5g4h3j2"),
    ],
)
def test_a_secrets_variable_named_for_its_place_or_version_loses_its_value(
    text: str, secret: str
) -> None:
    assert secret not in redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "PASSWORD_MIN_LENGTH=12",
        "TOKEN_TTL=3600",
        "TOKEN_FILE=/run/secrets/token",
        "SECRET_KEY_BASE=$(rails secret)",
    ],
)
def test_a_setting_about_a_secret_is_kept(text: str) -> None:
    assert redact(text).text == text
