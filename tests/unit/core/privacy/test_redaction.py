"""Secrets are taken out of text, the fact around them kept."""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import redact

# Shapes of real credentials; none of them is live.
SECRETS = [
    ("my openai key is sk-proj-abcdEFGH1234567890abcdEFGH1234567890abcd", "api key"),
    ("aws key AKIAIOSFODNN7EXAMPLE for the backup", "api key"),
    ("github token ghp_1234567890abcdefghijklmnopqrstuvwxyzAB", "token"),
    ("slack xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx", "token"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2hlcmU", "token"),
    ("the secret is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY in the config", "credential"),
    ('api_key = "a8f5f167f44f4964e6c998dee827110c"', "password"),
    ("My password is Tr0ub4dor&3 for the bank", "password"),
    ("The Wi-Fi password for the cabin is greenfrog42.", "password"),
    ("My PIN is 4821", "password"),
    ("the alarm code for the house is 4471-xz", "password"),
]


@pytest.mark.parametrize(("text", "kind"), SECRETS)
def test_a_secret_is_replaced_by_a_marker_naming_its_kind(text: str, kind: str) -> None:
    redacted = redact(text)
    assert f"[redacted {kind}]" in redacted.text
    assert kind in redacted.kinds


def test_only_the_secret_goes() -> None:
    redacted = redact("The Wi-Fi password for the cabin is greenfrog42. Dinner at eight.")
    assert redacted.text == (
        "The Wi-Fi password for the cabin is [redacted password]. Dinner at eight."
    )


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (
            "My password is purple monkey dishwasher",
            "My password is [redacted password]",
        ),
        (
            'my wifi password is "blue sky 42" at home',
            'my wifi password is "[redacted password]" at home',
        ),
        (
            "My password is Tr0ub4dor&3 for the bank",
            "My password is [redacted password] for the bank",
        ),
        (
            "The door code is 4471 and the gate code is 9917.",
            "The door code is [redacted password] and the gate code is [redacted password].",
        ),
    ],
)
def test_a_passphrase_goes_whole_and_the_sentence_around_it_stays(text: str, redacted: str) -> None:
    assert redact(text).text == redacted


def test_a_private_key_block_goes_whole() -> None:
    text = (
        "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc=\n"
        "-----END RSA PRIVATE KEY-----\nok"
    )
    assert redact(text).text == "key:\n[redacted private key]\nok"


@pytest.mark.parametrize(
    "text",
    [
        "I like hiking in the Alps and my dog is called Rex.",
        "I keep my passwords in a password manager.",
        "My password is used for everything, which I know is bad.",
        "My password is the same as before.",
        "My password is very long and hard to type.",
        "The token is used for auth.",
        "My phone number is 5555555555 and my IP is 8.8.8.8.",
        "I'm reading about tokens in NLP.",
        "https://example.org/articles/how-to-grow-tomatoes-in-pots",
        "",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text).text == text
    assert redact(text).kinds == ()


def test_a_huge_text_is_scanned() -> None:
    text = "word " * 20_000 + "password: hunter2isgreat"
    assert redact(text).text.endswith("password: [redacted password]")


def test_redaction_leaves_detect_secrets_process_wide_settings_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its keyword rules are read without configuring detect-secrets, whose
    settings every thread shares: configuring and restoring them took a
    quarter of each redaction, and two threads redacting at once swapped
    each other's."""
    from detect_secrets.settings import Settings

    configured: list[object] = []
    monkeypatch.setattr(Settings, "configure_plugins", lambda _, config: configured.append(config))
    assert "abcd1234efgh" not in redact('api_key = "abcd1234efgh" and nothing else').text
    assert configured == []
