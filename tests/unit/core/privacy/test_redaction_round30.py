"""Round 30: what round 29 left (a short code of capitals after
"remember" taken out, a Wi-Fi network's name taken with its password, a
password spelled with a dash or a sign among its letters kept), and the
families of ``tests.secret_families_round30``.
"""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import redact
from tests.redacted import assert_gone, assert_kept


@pytest.mark.parametrize(
    "text", ["remember B12 ok", "remember b12 ok", "remember M25, it is quicker", "remember A4!"]
)
def test_a_short_code_of_capitals_to_remember_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize("value", ["Kx7pQ2", "abc123"])
def test_a_password_to_remember_still_goes(value: str) -> None:
    assert_gone(f"help me remember {value}, it's the new work one", value)


@pytest.mark.parametrize(
    "text",
    [
        "wifi name: Casa_Sol, password: Vento#882",
        "wifi: Casa_Sol, pw: Vento#882",
        "Wi-Fi: Casa_Sol | password: Vento#882",
        "network Casa_Sol, key: Vento#882",
    ],
)
def test_a_networks_name_stays_and_its_password_goes(text: str) -> None:
    assert_gone(text, "Vento#882")
    assert "Casa_Sol" in redact(text).text


def test_a_networks_value_with_no_password_after_it_still_goes() -> None:
    assert_gone("wifi: Vento#882, thanks", "Vento#882")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("it's spelled k i w i - m a n g o - 3 for the email account", "k i w i - m a n g o - 3"),
        ("it's spelled k_i_w_i_-_m_a_n_g_o_-_3 for the email", "k_i_w_i_-_m_a_n_g_o_-_3"),
        ("it's spelled P_a_s_t_e_l_#_d_e_#_n_a_t_a for the email", "P_a_s_t_e_l_#_d_e_#_n_a_t_a"),
        ("it's spelled P.a.s.t.e.l.#.d.e for the bank", "P.a.s.t.e.l.#.d.e"),
        ("my password is k i w i - m a n g o", "k i w i - m a n g o"),
    ],
)
def test_a_password_spelled_with_a_dash_or_a_sign_in_it_is_taken_out(text: str, value: str) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    ["options A - B - C - D", "N.A.S.A. and 1.1.1.1", "it's spelled S-M-I-T-H, like the singer"],
)
def test_letters_listed_or_an_acronym_are_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a001 LOGIN ana jaakKfZuYfA3\na001 OK LOGIN completed", "jaakKfZuYfA3"),
        ('a001 LOGIN ana "chuva_forte7"\na001 OK', "chuva_forte7"),
        ("USER ana\n331 Password required for ana\nPASS lumiere_9\n230 Logged in", "lumiere_9"),
        ("250-AUTH PLAIN LOGIN\nAUTH PLAIN AGFuYQBsdW1pZXJlXzk=\n235 ok", "AGFuYQBsdW1pZXJlXzk="),
        ("a1 AUTHENTICATE PLAIN\n+\nAGFuYQBsdW1pZXJlXzk=\na1 OK", "AGFuYQBsdW1pZXJlXzk="),
        ("AUTH LOGIN\n334 VXNlcm5hbWU6\nYW5h\n334 UGFzc3dvcmQ6\nbHVtaWVyZV85", "bHVtaWVyZV85"),
        ("127.0.0.1:6379> AUTH Kr4nich#\nOK", "Kr4nich#"),
        ("127.0.0.1:6379> AUTH default Kr4nich#\nOK", "Kr4nich#"),
        ("WARN  [main] RedisClient - AUTH chuva_forte7 rejected by 10.0.0.7:6379", "chuva_forte7"),
        ("/msg NickServ IDENTIFY ana lumiere_9", "lumiere_9"),
        ("/login chuva_forte7", "chuva_forte7"),
        ("/register chuva_forte7 chuva_forte7", "chuva_forte7"),
    ],
)
def test_a_protocols_or_a_chats_login_is_taken_out(text: str, value: str) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("networksetup -setairportnetwork en0 Casa_Sol Hafen#Kiel4", "Hafen#Kiel4"),
        ("wpa_passphrase Casa_Sol 4gKVLL4Mw7CX >> /etc/wpa.conf", "4gKVLL4Mw7CX"),
        ("adb shell cmd wifi connect-network Casa_Sol wpa2 solecito_21", "solecito_21"),
        ('nmcli con modify Casa_Sol wifi-sec.psk "chuva_forte7".', "chuva_forte7"),
        ("nmcli con modify eduroam 802-1x.password Kr4nich#", "Kr4nich#"),
        (
            "curl http://192.168.1.2/api/8ZwM8vTfyNKIY4ChFWP5yo4V1SOZMGyQYVqWYhUh/lights",
            "8ZwM8vTfyNKIY4ChFWP5yo4V1SOZMGyQYVqWYhUh",
        ),
    ],
)
def test_a_password_a_tool_joins_a_network_with_or_a_hubs_key_is_taken_out(
    text: str, value: str
) -> None:
    assert_gone(text, value)


def test_a_networks_name_before_a_tools_password_stays() -> None:
    assert "Casa_Sol" in redact("wpa_passphrase Casa_Sol 4gKVLL4Mw7CX >> /etc/wpa.conf").text
    assert_gone("wpa_passphrase=4gKVLL4Mw7CX", "4gKVLL4Mw7CX")


@pytest.mark.parametrize(
    "text",
    [
        "AUTH LOGIN\n334 VXNlcm5hbWU6",
        "250-AUTH PLAIN LOGIN CRAM-MD5",
        "AUTH PLAIN\n504 5.7.4 Unrecognized authentication type",
        "PASS  src/App.test.js",
        "PASS tests/unit/test_x.py (3 tests)",
        "FAIL src/utils.test.ts",
        "/login with your Mojang account first",
        "/register needs your password twice",
        "AUTH is down again",
        "/msg NickServ HELP REGISTER",
        "nmcli con modify Casa_Sol wifi-sec.psk-flags 0",
        "curl http://localhost:8080/api/v2/users/42",
        "curl https://example.com/api/users_by_department_and_role_2024/list",
    ],
)
def test_a_protocols_other_lines_a_test_run_and_an_apis_path_are_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('<Pass encoding="base64">VmVudGFuYV8xMg==</Pass>', "VmVudGFuYV8xMg=="),
        ('<password type="plain">Hafen#Kiel4</password>', "Hafen#Kiel4"),
        ("Менин сырсөзүм Mistral!04", "Mistral!04"),
        (
            "here's the db password in base64 so it's not plain: VHVscGVuMjAyNCE=",
            "VHVscGVuMjAyNCE=",
        ),
        ("password reversed so bots don't read it: HWTbKbqPCzbM", "HWTbKbqPCzbM"),
        ("the admin password hex-encoded: 48756e7465723221", "48756e7465723221"),
    ],
)
def test_a_password_in_an_elements_text_in_kyrgyz_or_encoded_is_taken_out(
    text: str, value: str
) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        '<Pass encoding="base64"></Pass>',
        '<passwordPolicy enabled="true">strong</passwordPolicy>',
        "my password in base64: see the attached file",
        "Сырсөз унутулду",
    ],
)
def test_an_empty_element_or_an_encoding_named_alone_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    ("before", "text", "value"),
    [
        ("the vpn password is Kr4nich#", "*ucKylrDdhmnM (sorry)", "ucKylrDdhmnM"),
        ("bank pw: Kr4nich#", "oops wrong one, use Zugspitze2962 instead", "Zugspitze2962"),
        ("the router login is Kr4nich#", "sorry, I meant framboise33", "framboise33"),
        ("bank pw: Kr4nich#", "use Zugspitze2962 instead", "Zugspitze2962"),
    ],
)
def test_a_password_corrected_is_taken_out(before: str, text: str, value: str) -> None:
    assert_gone(text, value, after=(before,))


@pytest.mark.parametrize(
    "text",
    [
        "*their",
        "*Summer is great",
        "sorry typo, I meant Tuesday not Thursday",
        "use Python3 instead",
        "typo in line 12: Report_2024 should be Report_2025",
        "* item one\n* item two 2024",
    ],
)
def test_an_everyday_correction_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "text",
    [
        "2026-12-01T10:02:13Z INFO auth: login ok user=ana",
        'FATAL: password authentication failed for user "ana"',
        "a001 LOGOUT\n* BYE IMAP4rev1 Server logging out",
        "USER ana\n331 Password required for ana",
        "127.0.0.1:6379> GET session:42",
        "netsh wlan show profiles",
        "networksetup -getairportnetwork en0",
        "# secrets.yaml\nwifi_ssid: Casa_Sol",
        "Backlog Power1 ON; Delay 10; Power1 OFF",
        "enable-rcon=false\nmotd=A Minecraft Server",
        '"source": ["password = getpass.getpass()\\n"]',
        "fix my grammar: I has forgot my password again",
        "write an email to IT saying my password doesn't work",
        '"sqltools.connections": [{"server": "db", "askForPassword": true}]',
        "echo aGVsbG8gd29ybGQ= | base64 -d",
        "kubectl get secret db -o yaml",
        "Username: ab1234\nPlease change your password within 7 days.",
        "Your Duo enrollment link expires in 24 hours",
    ],
)
def test_an_everyday_text_of_a_round_30_familys_look_is_kept(text: str) -> None:
    assert_kept(text)
