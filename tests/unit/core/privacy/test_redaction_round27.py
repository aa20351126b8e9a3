"""Round 27: what round 26's held-out families still showed (backup codes
under a heading of any words, a pair after an address, a registry's auth
in a Docker config), texts of the same look that lost a word they held no
secret in (a ticket's number, a GitHub Action's tag, a markdown table's
next row), and the families of ``tests.secret_families_round27``.
"""

from __future__ import annotations

import base64
import re

import pytest

from desktop.core.privacy.redaction import Redactor, redact


def _assert_gone(text: str, *values: str, after: tuple[str, ...] = ()) -> None:
    redacted = redact(text, after=after).text
    for value in values:
        pattern = rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])"
        assert re.search(pattern, redacted) is None, redacted


@pytest.mark.parametrize(
    "text",
    [
        "Ticket #4821 - customer can't log in, password reset link expired",
        "#5512 - user cannot sign in after the update",
        "Case 7731-B: the client couldn't log in this morning",
    ],
)
def test_a_ticket_about_a_failed_login_keeps_its_number(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "- uses: docker/login-action@v3\n  with:\n    username: ${{ secrets.DOCKER_USER }}",
        "steps:\n  - uses: actions/checkout@v4\n  - uses: azure/login@v2",
        "      - uses: 'aws-actions/configure-aws-credentials@v4'",
    ],
)
def test_a_github_actions_reference_is_kept(text: str) -> None:
    assert redact(text).text == text


def test_a_key_value_tables_rows_are_not_read_as_its_headers() -> None:
    text = (
        "| key | value |\n|---|---|\n| password | Hunter22x |\n| username | optional |\n"
        "| token | ghp-none |"
    )
    redacted = redact(text).text
    assert "Hunter22x" not in redacted
    assert "| username | optional |" in redacted


def test_a_markdown_tables_header_still_names_its_column() -> None:
    text = "| site | password |\n|---|---|\n| ebay | Pastel#de#nata |\n| ikea | lumiere_9 |"
    _assert_gone(text, "Pastel#de#nata", "lumiere_9")


@pytest.mark.parametrize(
    "auth",
    [
        '{"auths": {"ghcr.io": {"auth": "%s"}}}',
        '{\n  "auths": {\n    "https://index.docker.io/v1/": {\n      "auth": "%s"\n    }\n  }\n}',
        "auths:\n  registry.example.com:\n    auth: %s",
    ],
)
def test_a_registrys_auth_in_a_docker_config_is_taken_out(auth: str) -> None:
    value = base64.b64encode(b"lucia:solecito_21").decode()
    _assert_gone(auth % value, value)


def test_an_auth_that_is_no_user_and_password_is_kept() -> None:
    text = '{"auth": "oauth2", "provider": "github"}'
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        (
            "Save these codes\n1. ivbl-bxme\n2. jtoo-zlix\n3. fmnl-elks\n4. xcbj-ldlr\n"
            "5. gkfl-dkng",
            ("ivbl-bxme", "jtoo-zlix", "fmnl-elks", "xcbj-ldlr", "gkfl-dkng"),
        ),
        (
            "paypal 2fa: 9925 2611, 5500 8614, 6543 2050, 4885 1142, 9692 9833",
            ("9925 2611", "5500 8614", "6543 2050", "4885 1142", "9692 9833"),
        ),
        (
            "Your codes for dropbox\nabcd-efgh\nijkl-mnop\nqrst-uvwx\nyzab-cdef",
            ("abcd-efgh", "ijkl-mnop", "qrst-uvwx", "yzab-cdef"),
        ),
    ],
)
def test_codes_listed_under_a_heading_of_any_words_are_taken_out(
    text: str, codes: tuple[str, ...]
) -> None:
    _assert_gone(text, *codes)


@pytest.mark.parametrize(
    "text",
    [
        "zip codes: 10115 10117, 10119 10178, 10243 10245, 10247 10249",
        "error codes\n4001 2002\n4003 2004\n4005 2006\n4007 2008",
        "timetable: 0815 0915, 1015 1115, 1215 1315",
        "Save these codes for later, they are the discount ones",
    ],
)
def test_codes_that_are_no_secret_are_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (">>> Maria wrote:\n>>> my icloud is lena.k@firma.de, pass Saudade#19", "Saudade#19"),
        ("the gmail one is ana@example.com, password Kr4nich#", "Kr4nich#"),
        ("netflix -> t.berg@mail.de pw vuvuzela8!", "vuvuzela8!"),
    ],
)
def test_a_password_after_an_address_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "write to ana@example.com, password resets go through her",
        "ana@example.com, pass the salt please",
    ],
)
def test_an_address_before_words_about_a_password_is_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        '{"id": 1, "title": "Snow", "pass": true, "url": "https://example.com/a/1"}',
        '{"password": null, "remember_password": false}',
        "password: false\ntoken: none",
        "settings = {'password': None, 'pin': False}",
    ],
)
def test_a_json_or_yaml_literal_where_a_value_would_be_is_kept(text: str) -> None:
    assert redact(text).text == text


def test_a_redacted_literal_is_not_taken_out_of_what_follows() -> None:
    redactor = Redactor()
    redactor('{"pass": true}')
    assert redactor.text("it is true that the door sticks") == "it is true that the door sticks"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Serial: V36N4-CMPFB-UHPRP-7TDW7\nRegistered to: Ana", "V36N4-CMPFB-UHPRP-7TDW7"),
        ("Licence: DHT4P-3RFVW-UWS3T-THJ85-ZQAC5.", "DHT4P-3RFVW-UWS3T-THJ85-ZQAC5"),
        ("Windows product key: BTFVH-Q3TH7-7ZN7L-BE472 ok?", "BTFVH-Q3TH7-7ZN7L-BE472"),
    ],
)
def test_a_licence_key_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "Order ID: 112-4455667-8899001",
        "order 12345-67890-11111-22222 shipped",
        "SKU ABCDE-FGHIJ-KLMNO-PQRST",
        "Serial number on the sticker: printer model HL-L2350DW",
    ],
)
def test_numbers_shaped_near_a_licence_key_are_kept(text: str) -> None:
    assert redact(text).text == text


def test_a_cards_code_named_in_german_or_french_is_taken_out() -> None:
    _assert_gone("Kartennummer 5169 1798 4258 7683, gültig bis 10/27, Prüfnummer 444", "444")
    _assert_gone("carte 4111 1111 1111 1111, cryptogramme visuel 123", "123")
    kept = "Prüfnummer des Formulars 123"
    assert redact(kept).text == kept


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("my phone unlock pattern is 5 9 4 8 - ta", "5 9 4 8"),
        ("phone pin 4027, pattern 7328", "7328"),
        ("unlock pattern for the kids' tablet: 4 6 3 7.", "4 6 3 7"),
        ("SIM PUK: 64656171", "64656171"),
        ("the PUK code for my SIM card is 64656171", "64656171"),
    ],
)
def test_a_phones_unlock_pattern_and_a_sims_puk_are_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "the knitting pattern 2 3 4 5 rows",
        "forgot my unlock pattern, had to reset the phone",
        "the SIM card needs a PUK after 3 wrong PINs",
    ],
)
def test_a_pattern_or_puk_without_its_value_is_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("it's spelled B.r.o.m.b.e.e.r.e.!.7 for the email account", "B.r.o.m.b.e.e.r.e.!.7"),
        ("spell it: h_u_n_t_e_r_2", "h_u_n_t_e_r_2"),
    ],
)
def test_a_password_spelled_with_dots_or_underscores_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "spell it: r-e-c-e-i-p-t, not reciept",
        "the acronym is N.A.S.A. of course",
        "dns is 1.1.1.1 on the wifi",
    ],
)
def test_a_word_acronym_or_address_spelled_is_kept(text: str) -> None:
    assert redact(text).text == text


def test_a_dictated_wifi_password_before_a_dash_is_taken_out() -> None:
    value = "capital J maple window one five"
    _assert_gone(f"send to Jonas colon the wifi is {value} - ta", value)


def test_an_italian_verb_after_the_word_password_is_kept() -> None:
    text = "La password è scaduta, devo rinnovarla"
    assert redact(text).text == text


def test_a_dictated_value_is_read_after_the_last_is_of_its_sentence() -> None:
    value = "capital D silver five one"
    _assert_gone(f"send to Jonas colon the wifi is {value} - ta", value)
