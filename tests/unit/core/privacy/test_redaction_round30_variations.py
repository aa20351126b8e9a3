"""Round 31: round 30's families said in ways its held-in half does not
(written anew from each family's description and held-in templates, never
its held-out half): smart homes' config and clients (Zigbee2MQTT's network
key, mosquitto's ``-P``), passwords handed to a decoder, game servers'
commands and launch lines (``/changepassword``, mcrcon's ``-p``, ARK's
``?ServerPassword=``), the word for password in languages no round tried;
and round 30's everyday texts that lost a word (an Irish preposition, a
hotspot's name, "is going to be").
"""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import redact
from tests.redacted import assert_gone, assert_kept

_PW = "Tq7m!Wz4e"


@pytest.mark.parametrize(
    ("text", "values"),
    [
        (
            "advanced:\n  network_key: [1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12, 13]",
            ("1, 3, 5, 7", "8, 10, 12, 13"),
        ),
        (
            "zigbee network key 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12, 13",
            ("1, 3, 5, 7", "8, 10, 12, 13"),
        ),
        ("mosquitto_pub -h 192.168.1.10 -u ha -P Tq7mWz4e -t test -m hi", ("Tq7mWz4e",)),
        ("mosquitto_sub -h broker -u ha -P 'Tq7mWz4e' -t '#'", ("Tq7mWz4e",)),
        ("network_key:\n  - 1\n  - 3\n  - 5\n  - 7\n  - 9\n  - 11\n  - 13\n  - 15", ("11",)),
        ("cmnd/tasmota/Password1 velvet42", ("velvet42",)),
        ("mosquitto_pub -t cmnd/plug/MqttPassword -m velvet42", ("velvet42",)),
        ("homebridge setup code 031-45-154", ("031-45-154",)),
        ('"pin": "031-45-154", "port": 51826', ("031-45-154",)),
    ],
)
def test_a_smart_homes_key_or_broker_password_is_taken_out(
    text: str, values: tuple[str, ...]
) -> None:
    assert_gone(text, *values)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("echo -n 'dmVsdmV0NDI=' | base64 --decode", "dmVsdmV0NDI="),
        ("base64 -d <<< dmVsdmV0NDI", "dmVsdmV0NDI"),
        ("atob('dmVsdmV0NDI=') is the admin password", "dmVsdmV0NDI="),
        ('pw = base64.b64decode("VHVscGVuMjAyNCE=")', "VHVscGVuMjAyNCE="),
        ("pw (b64) dmVsdmV0NDI=", "dmVsdmV0NDI="),
        ("password (base64) dmVsdmV0NDI=", "dmVsdmV0NDI="),
        ("password hex: 76 65 6c 76 65 74 34 32", "76 65 6c 76"),
        (
            "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d\nTulpen2024!",
            "Tulpen2024!",
        ),
        ("echo VHVscGVuMjAyNCE= | base64 -d  -> Tulpen2024!", "Tulpen2024!"),
        ("$ pass show email/gmail\nTulpen2024!", "Tulpen2024!"),
    ],
)
def test_a_password_handed_to_a_decoder_is_taken_out(text: str, value: str) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("/changepassword oldpw12 velvet42", ("oldpw12", "velvet42")),
        ('mcrcon -H localhost -P 25575 -p velvet42 "say hi"', ("velvet42",)),
        (
            "TheIsland?listen?SessionName=Ana?ServerPassword=velvet42?ServerAdminPassword=Tq7mWz4e",
            ("velvet42", "Tq7mWz4e"),
        ),
    ],
)
def test_a_game_servers_password_in_a_command_is_taken_out(
    text: str, values: tuple[str, ...]
) -> None:
    assert_gone(text, *values)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("/ns identify velvet42", ("velvet42",)),
        ("PRIVMSG NickServ :IDENTIFY velvet42", ("velvet42",)),
        ("ftp> user ana velvet42", ("velvet42",)),
        ("<auth mechanism='PLAIN'>AGFuYQB2ZWx2ZXQ0Mg==</auth>", ("AGFuYQB2ZWx2ZXQ0Mg==",)),
        ("snmpwalk -v2c -c velvet42 192.168.1.1", ("velvet42",)),
    ],
)
def test_a_protocols_or_a_tools_login_is_taken_out(text: str, values: tuple[str, ...]) -> None:
    assert_gone(text, *values)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("wifi: framboise33\n^ typo, should be velvet42", ("framboise33", "velvet42")),
        ("pw: framboise33\nvelvet42*", ("framboise33", "velvet42")),
        ("pass framboise33 er I mean velvet42", ("framboise33", "velvet42")),
    ],
)
def test_a_value_corrected_goes_with_the_one_it_corrects(
    text: str, values: tuple[str, ...]
) -> None:
    assert_gone(text, *values)


@pytest.mark.parametrize(
    "sentence",
    [
        "Mítt loyniorð er {}",  # Faroese
        "زما پټنوم {} دی",  # Pashto
        "Borînpeyva min {} e",  # Kurmanji
        "وشەی نهێنی من {}",  # Sorani
        "Минем серсүзем {}",  # Tatar
        "Okwuntughe m bụ {}",  # Igbo
        "Erayga sirta ah waa {}",  # Somali
        "Ny teny miafina dia {}",  # Malagasy
        "Ma ger-tremen eo {}",  # Breton
        "Is e m' fhacal-faire {}",  # Scottish Gaelic
        "Ko taku kupuhipa ko {}",  # Māori
        "Ijambo ry'ibanga ni {}",  # Kinyarwanda
        "Phasewete ya ka ke {}",  # Sesotho
        "എന്റെ പാസ്‌വേഡ് {} ആണ്",  # Malayalam
        "ನನ್ನ ಪಾಸ್‌ವರ್ಡ್ {}",  # Kannada
        "ମୋ ପାସୱାର୍ଡ {}",  # Odia
        "کلمه عبور من {} است",  # Persian, in two words
        "פּאַראָל: {}",  # Yiddish
        "Salasõna on {}",  # Estonian
        "Neno la siri ni {}",  # Swahili, in three words
        "Kalmar sirrina ita ce {}",  # Hausa, "my password"
        "Kalmar wucewa ta {}",  # Hausa, "pass word"
    ],
)
def test_the_word_for_password_in_more_languages_names_its_value(sentence: str) -> None:
    assert_gone(sentence.format(_PW), _PW)


@pytest.mark.parametrize(
    ("text", "kept", "value"),
    [
        ("hotspot: Pixel_7; key = Xq7!mm22", "Pixel_7", "Xq7!mm22"),
        ("hotspot: Pixel_7 / psk: Xq7!mm22", "Pixel_7", "Xq7!mm22"),
        ("hotspot: Pixel_7 WPA key: Xq7!mm22", "Pixel_7", "Xq7!mm22"),
        ("wifi: Casa_Sol2; key = Xq7!mm22", "Casa_Sol2", "Xq7!mm22"),
        ("my password is going to be Xq7!mm22", "going", "Xq7!mm22"),
        ("my password is going to be sunshine", "going", "sunshine"),
        ("the password should be Xq7!mm22", "should be", "Xq7!mm22"),
        ("my password has been changed to sunshine", "changed to", "sunshine"),
    ],
)
def test_only_the_value_goes_not_the_word_before_it(text: str, kept: str, value: str) -> None:
    assert_gone(text, value)
    assert kept in redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "Rinne mé dearmad ar mo phasfhocal",
        "Tá dearmad déanta agam ar mo phasfhocal",
        "Chuir mé ceist faoi mo phasfhocal",
        "my password is going to expire soon",
        "my password is about to expire",
        "the wifi password should be on the router",
        "the password must be at least 12 characters",
        "the password is supposed to rotate monthly",
        "the password should be memorable yet hard to guess",
        "echo aGVsbG8gd29ybGQ= | base64 -d",
        'atob("aGVsbG8=")',
        "the key is 1, 2, 3, 4, 5, 6, 7, 8 in order",
        "https://example.com/?forgot_password=1",
        "mosquitto_pub -h broker -p 1883 -t home/lights -m on",
        "/changepassword",
        "snmpwalk -v2c -c public 192.168.1.1",
        "/ns help identify",
        "cat notes.txt | base64 -d\n$ ls",
        "pass show email\nError: email is not in the password store.",
        "48 65 6c 6c 6f 20 77 6f 72 6c 64",
        "MAC 41:42:43:31:32:33",
        "the password (hex) is weak",
        "setup took 2 hours",
        "I mean, the meeting is at 10",
        "important*",
    ],
)
def test_everyday_text_of_the_same_look_is_kept(text: str) -> None:
    assert_kept(text)
