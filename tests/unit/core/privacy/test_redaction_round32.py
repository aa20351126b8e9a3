"""Round 32's held-in families: a password said with a speaker's fillers,
one said before what it opens, network gear's plain secrets, services'
users added with theirs, macOS's keychain, a spreadsheet's formulas and
macros, cloud-init's chpasswd; a network's sibling named after its
password; and everyday texts of the same look that keep their words.
"""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import redact
from tests.redacted import assert_gone, assert_kept


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("uh, the password, it's, um, zKDkOYQkfODq", "zKDkOYQkfODq"),
        ("the code is, uh, hmm, 57060", "57060"),
        ("pin's, er, 4817, yeah", "4817"),
        ("so the wifi is, like, uh, velvet42, I think", "velvet42"),
        ("and the, the, um, router password is... velvet42", "velvet42"),
        ("okay um it's it's Kr4nich# for the nas (sorry)", "Kr4nich#"),
    ],
)
def test_a_password_said_with_fillers_is_taken_out(text: str, value: str) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "uh, the password, it's, um, on the sticker",
        "so the wifi is, like, uh, really slow today",
        "Treffen um 15:30, Passwort ändern bis Freitag",
        "bye bye, see you at 10",
    ],
)
def test_fillers_before_no_value_keep_their_words(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("[10:02] <ana> it's velvet42 for the nas", "velvet42"),
        ("it's Tq7m!Wz4e for the router", "Tq7m!Wz4e"),
    ],
)
def test_a_value_said_before_what_it_opens_is_taken_out(text: str, value: str) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    ["it's 10:30 for the meeting", "it's 5pm for the router reboot", "it's v2.1 for the server"],
)
def test_a_time_or_version_before_a_thing_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("enable secret 0 chuva_forte7", "chuva_forte7"),
        ("username admin privilege 15 password 0 Tulpen2024", "Tulpen2024"),
        ("username admin password 7 0822455D0A16", "0822455D0A16"),
        ("rabbitmqctl add_user ana lumiere_9", "lumiere_9"),
        ("rabbitmqctl change_password ana velvet42", "velvet42"),
        ("mc admin user add local ana velvet42", "velvet42"),
        ("security add-generic-password -a ana -s github -w NqRFcrwyIpkP", "NqRFcrwyIpkP"),
        (
            "security unlock-keychain -p chuva_forte7 ~/Library/Keychains/login.keychain-db",
            "chuva_forte7",
        ),
        ("$ security find-generic-password -s github -w\nYFrLVQISlqga", "YFrLVQISlqga"),
        ('=IF(B2="2kGtszHmpgyB","ok","wrong password")', "2kGtszHmpgyB"),
        ('=CONCATENATE("pw: ","KCNGAXZKhUDL")', "KCNGAXZKhUDL"),
        ('="password: "&"velvet42"', "velvet42"),
        ('Sub Unlock()\n    ThisWorkbook.Unprotect "Kr4nich#"\nEnd Sub', "Kr4nich#"),
        ("#cloud-config\nchpasswd:\n  list: |\n    ana:lumiere_9\n  expire: false", "lumiere_9"),
    ],
)
def test_a_tools_own_password_argument_is_taken_out(text: str, value: str) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "enable secret 5 $1$mERr$hx5rVt7rPNoS4wqbXKX7m0",
        "rabbitmqctl list_users",
        "rabbitmqctl set_permissions -p / ana '.*' '.*' '.*'",
        "security find-generic-password -s github",
        "security unlock-keychain ~/Library/Keychains/login.keychain-db",
        '=IF(B2="","missing","ok")',
        '=IF(B2="yes","ok","no")',
        '=CONCATENATE("Name: ",A2)',
        "ActiveSheet.Protect DrawingObjects:=True",
        "#cloud-config\nssh_pwauth: false\npackage_update: true",
    ],
)
def test_the_same_tools_other_commands_are_kept(text: str) -> None:
    assert_kept(text)


def test_a_second_networks_label_names_a_password_not_the_first_ones_name() -> None:
    text = "the wifi is hunter2, the guest wifi is Q7vx!m2P and the router admin is zoe1722 thx"

    assert_gone(text, "hunter2", "Q7vx!m2P", "zoe1722")
    assert "wifi: Casa_Sol" in redact("wifi: Casa_Sol, wifi password: Tq7mWz4e").text
