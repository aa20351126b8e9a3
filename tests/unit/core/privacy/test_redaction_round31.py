"""Round 31: what its held-in families left (a service's "pass" in a commit
message, a device's key a sticker "says", a comment's "new one" before a
note, a prompt answered by the program, a chart's reference to a secret),
each fixed as a family; and everyday texts of each new family's look (a
diff's other lines, a container's other options, a commit about passwords,
a prompt with nothing typed, a label's model and serial) that stay as typed.
"""

from __future__ import annotations

import pytest

from tests.redacted import assert_gone, assert_kept
from tests.secret_families_round31 import NEGATIVES


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('git commit -am "temp: hardcode redis pass Ventana_12, revert later"', "Ventana_12"),
        ("smtp pass Ventana_12 until friday", "Ventana_12"),
        ("the mysql pass: Ventana_12", "Ventana_12"),
        ("set the vpn pass to Ventana_12", "Ventana_12"),
    ],
)
def test_a_services_pass_names_its_value(text: str, value: str) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the sticker under the router says key lumiere_9.", "lumiere_9"),
        ("the label on the back says wifi key Tulpen2024!", "Tulpen2024!"),
        ("bottom of the modem says wireless key: Kr4nich#", "Kr4nich#"),
    ],
)
def test_a_key_a_label_says_is_taken_out(text: str, value: str) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        (
            "    # old password was Hafen#Kiel4, new one DnTvlJDrsDrv (sorry)",
            ("Hafen#Kiel4", "DnTvlJDrsDrv"),
        ),
        ("pin changed, new one: 4471 (don't tell)", ("4471",)),
    ],
)
def test_the_new_one_of_a_change_goes_before_a_note(text: str, values: tuple[str, ...]) -> None:
    assert_gone(text, *values)


@pytest.mark.parametrize(
    "text",
    [
        "[sudo] password for ana:\nSorry, try again.",
        "Password for 'https://ana@github.com':\nremote: Support for password authentication "
        "was removed.",
        "Password for 'https://bob@gitlab.com':",
        "ana@10.0.0.5's password:\nPermission denied, please try again.",
        "helm install my-redis bitnami/redis --set auth.existingSecret=redis-pass",
        "secretName: db-creds",
        "valueFrom:\n  secretKeyRef:\n    name: db\n    key: password",
        "git commit -m 'bus pass 12A scanned'",
        "the sticker says key",
        "he says key points matter",
        "my new password manager is great",
        "changed my password, new one coming soon",
    ],
)
def test_everyday_text_of_round_31s_look_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "text",
    [
        "pw for https://x.com/s/Zx81Qw_pLm3Nb7Vc5Xz9Kj",
        "the password for https://share.example.com/f/Zx81Qw_pLm3Nb7Vc5Xz9Kj",
    ],
)
def test_a_link_a_password_word_names_loses_its_token(text: str) -> None:
    """Only a bare site a prompt names stays ("Password for
    'https://ana@github.com':"); a link with a path after it may be the secret."""
    assert_gone(text, "Zx81Qw_pLm3Nb7Vc5Xz9Kj")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("password:\nTulpen2024!", "Tulpen2024"),
        ("sudo password for ana:\nKr4nich#", "Kr4nich#"),
        ("wifi password:\nTulpen2024 thanks", "Tulpen2024"),
    ],
)
def test_a_value_on_the_line_after_its_word_still_goes(text: str, value: str) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    "text", [text for texts in NEGATIVES.values() for text in texts[::2]], ids=str
)
def test_round_31s_held_in_everyday_texts_are_kept(text: str) -> None:
    assert_kept(text)
