"""Round 23: round 22's leftovers (a count after "and then" beside the word
"alarm", a value ending in a word of thanks, a keyboard walk after "Pass -",
values in a table's cells), then secrets as people write them in more
languages and scripts, in code and whole files, as keys of new shapes, on
the line after their label, dictated, in chat shorthand
(``tests.secret_families_round23``, whose templates at even places are the
ones this round's rules were written on), and sentences of the same look
that hold none.
"""

from __future__ import annotations

import re

import pytest

from desktop.core.privacy.redaction import redact
from tests.bench.secret_families import missed
from tests.secret_families import Trial
from tests.secret_families_round23 import FAMILIES, NEGATIVES, negatives, trials


def _assert_gone(text: str, *values: str) -> None:
    redacted = redact(text).text
    for value in values:
        pattern = rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])"
        assert re.search(pattern, redacted) is None, redacted


@pytest.mark.parametrize(
    "text",
    [
        "The alarm went off and then 300 guests walked out.",
        "the alarm rang, then three people left",
        "my password expired and then 2 days later it locked me out",
    ],
)
def test_a_count_after_then_beside_a_credential_word_is_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("password is cactus then the number six zero", ("cactus", "six zero")),
        ("my password is kettle with a capital K then seven five", ("kettle", "seven five")),
        ("the password for netflix is walrus then the number four thx", ("walrus", "four")),
    ],
)
def test_digits_dictated_after_then_are_taken_out(text: str, values: tuple[str, ...]) -> None:
    _assert_gone(text, *values)


def test_the_s_of_a_possessive_is_not_spelled_with_the_code_after_it() -> None:
    # Found by test_redaction_situations' lock_combination family.
    assert redact("the gym locker's 0 0 0").text == "the gym locker's [redacted password]"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Kennwort für den Router Pastel#de#nata danke", "Pastel#de#nata"),
        ("Kennwort für den Router Pastel#de#nata (don't share)", "Pastel#de#nata"),
        ("haslo do banku Fall93 спасибо", "Fall93"),
        ("haslo do banku June2029 dzięki", "June2029"),
        ("password for the wifi Kettle42 thx", "Kettle42"),
        ("pw for the wifi Pastel#de#nata k?.", "Pastel#de#nata"),
        ("password for the router Tulpen2024! ok?", "Tulpen2024!"),
        ("kalimat al sir Tulpen2024!", "Tulpen2024!"),
        ("kalimat al sir zxcvbn99 (не говори никому)", "zxcvbn99"),
    ],
)
def test_a_value_for_a_place_then_a_word_of_thanks_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "password for the wifi is on the router thx",
        "haslo do banku zmienione, dzięki",
        "Kennwort für den Router vergessen danke",
        "the password for my account expired (again)",
    ],
)
def test_words_after_a_password_for_a_place_with_thanks_are_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            'db, err := sql.Open("mysql", "app_rw:UZqR6u4aom8I@tcp(127.0.0.1:3306)/app")',
            "UZqR6u4aom8I",
        ),
        ("dsn = admin:lumiere_9@db.local:5432/app", "lumiere_9"),
        ("localhost:*:*:postgres:Tulpen2024! :)", "Tulpen2024!"),
        ("db.example.com:5432:app:ana:Kr4nich# thx", "Kr4nich#"),
        ("requests.get(url, auth=('lucia', 'Zugspitze2962')) thx", "Zugspitze2962"),
        ('session.auth = HTTPBasicAuth("deploy", "t1EFqHoRqnwT")', "t1EFqHoRqnwT"),
        ("Netflix,https://www.netflix.com,jonas.k,qy6fFJEJatHF, :)", "qy6fFJEJatHF"),
        ('"https://accounts.google.com","ana@example.com","Hafen#Kiel4"', "Hafen#Kiel4"),
    ],
)
def test_a_password_in_code_or_an_exported_row_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "meet me at 10:30@cafe",
        "requests.get(url, auth=token_auth)",
        "https://example.com/a,200,0.34",
        "https://example.com/pricing,Berlin,Germany",
        "url,visits\nhttps://example.com,1200,2024-03-01",
    ],
)
def test_code_and_rows_of_the_same_look_without_a_password_are_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "value",
    [
        "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",
        "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",
        "patm2CGcrmCysoX9E.9d80ac3d42b75dfba071eee79d532cc530450f90a251b925d2dab5b3e1f276ff",
    ],
)
def test_a_key_of_hex_after_a_prefix_is_taken_out(value: str) -> None:
    _assert_gone(f"groq key {value}.", value)


@pytest.mark.parametrize(
    "text",
    [
        "mistral: 7ee91b9ac52b58979fa5644d9c0e82f0 thx",
        "Mistral API key = 56e7246c0e5ab60d0decdee70ddbf1d8",
        "cohere: Xk2mP9qR4sT7vW1yZ3bN5cD8fG0hJ6kL",
    ],
)
def test_a_key_named_by_its_service_is_taken_out(text: str) -> None:
    assert re.search(r"[0-9a-zA-Z]{24,}", redact(text).text) is None, redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "the commit is 3f9a2c1b7e4d5f60a1b2c3d4e5f6a7b8c9d0e1f2",
        "md5 d41d8cd98f00b204e9800998ecf8427e of the empty file",
        "trace_id=4bf92f3577b34da6a3ce929d0e0e4736",
        "mistral: the_model_name_is_very_long_indeed",
        "openai: gpt-4o-mini is cheaper",
        "datadog: 14 hosts reporting",
    ],
)
def test_hex_and_names_of_the_same_look_without_a_key_are_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Pass - poiuyt merci", "poiuyt"),
        ("mitt lösenord är poiuyt! dzięki", "poiuyt"),
        ('Wi-Fi "hunter2" | alarm "33268"', "hunter2"),
        ("wifi 'kettle42', alarm '4821'", "kettle42"),
    ],
)
def test_round_22s_leftovers_are_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "Wi-Fi HomeNet | alarm on the fridge",
        'Wi-Fi "Vodafone-4F2A" | router in the hall',
        "the qwerty layout is older than the pass - it is 1870s",
        "Pass - the salt, merci",
    ],
)
def test_a_network_name_and_a_plain_word_after_pass_are_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize("quote", ['"', "`"])
def test_the_quotes_around_a_value_after_a_label_are_kept(quote: str) -> None:
    # Found by test_redaction_phrasings' value_without_verb.
    text = f"passkey {quote}Aaa0!x{quote}"
    assert redact(text).text == f"passkey {quote}[redacted password]{quote}"


@pytest.mark.parametrize(
    "text", ["pw: see 1password", "passwords are all in 1Password", "PIN: in 1password too"]
)
def test_a_password_manager_named_where_a_value_would_be_is_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("here's the login for netflix\nuser: lucia\nnoah4563?", "noah4563"),
        ("netflix\nusername: jonas.k\nKr4nich#", "Kr4nich#"),
        ("email: ana@example.com\nTulpen2024!\n\nthanks", "Tulpen2024!"),
    ],
)
def test_a_password_alone_on_the_line_after_the_user_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "user: lucia\nthanks!",
        "username: jonas.k\n2024-03-01",
        "email: ana@example.com\nphone: 0171 2345678",
        "user: ana\nrole: admin",
    ],
)
def test_a_user_and_a_line_without_a_password_after_it_are_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("code 4 the door 41382", "41382"),
        ("code for the door 0545 thx", "0545"),
        ("code for the alarm: 8830", "8830"),
    ],
)
def test_a_code_for_a_door_or_an_alarm_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "code 4 the door is on the fridge",
        "the code for the door changed in 2019",
        "code for the alarm system was written in 1998 by 3 people",
        "I wrote 4 lines of code for the door sensor",
    ],
)
def test_code_for_a_door_without_a_code_is_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("code 4 the door 444942 tack", "444942"),
        ("the gate code is 7747 спасибо", "7747"),
        ("password is cactus then the number six zero спасибо", "six zero"),
        ("password is kettle then the number eight one tack", "eight one"),
    ],
)
def test_a_code_then_thanks_in_another_language_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("pinkoden är 3341.", "3341"),
        ("пин-код карты 1524 tack", "1524"),
        ("PIN card 0817", "0817"),
        ("mima shi Hafen#Kiel4 спасибо", "Hafen#Kiel4"),
        ("lösen: solecito_21", "solecito_21"),
        ('os.Setenv("DB_PASS", "yMKOtayvpPVx")', "yMKOtayvpPVx"),
        ('props.put("mail.smtp.password", "MdL6qOaz8BmL"); :)', "MdL6qOaz8BmL"),
        ('variable "db_password" {\n  default = "wOEuFkHqsTYJ"\n}', "wOEuFkHqsTYJ"),
    ],
)
def test_a_secret_of_the_round_23_families_held_out_is_taken_out(text: str, value: str) -> None:
    # Held out until measured; fixed after, so no longer held out.
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "pin expires 2025",
        "the pin for the map 2024",
        "Mima 2019 in Rome",
        "die Aufgabe lösen: bis Montag",
        'os.Setenv("DB_HOST", "localhost")',
        'props.put("mail.smtp.password.required", true);',
        'variable "region" {\n  default = "eu-central-1"\n}',
    ],
)
def test_sentences_of_the_look_of_the_held_out_fixes_are_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("password otter four eight exclamation mark thx", ("otter", "four eight")),
        ("password capital H hunter eight zero спасибо", ("hunter", "eight zero")),
        ("password lantern five all lowercase (don't share)", ("lantern", "five")),
        ("set the password to capital M mango four zero.", ("mango", "four zero")),
        ("password mango with a capital M then five eight.", ("mango", "five eight")),
        ("set the password to lantern two seven exclamation mark :)", ("lantern", "two seven")),
        ("the wifi password is capital K kettle two three", ("kettle", "two three")),
    ],
)
def test_a_value_dictated_is_taken_out(text: str, values: tuple[str, ...]) -> None:
    _assert_gone(text, *values)


@pytest.mark.parametrize(
    "text",
    [
        "my password is all lowercase",
        "the password needs a capital letter and two numbers",
        "my pin is one of the usual ones",
        "password two factor is on",
        "I entered the wrong password three times",
        "the password expires in two weeks",
        "the score was two one",
        "capital of France is Paris",
    ],
)
def test_a_sentence_about_a_passwords_case_or_digits_is_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "Pasword: forgot it",
        "my p4ssword is too short",
        "name,url,username,password\n",
        "my passw0rd is expired",
    ],
)
def test_a_misspelt_password_word_and_a_csv_heading_are_kept(text: str) -> None:
    assert redact(text).text == text


def test_a_password_before_a_comma_and_its_name_still_goes() -> None:
    _assert_gone("Kettle42, my password", "Kettle42")


@pytest.mark.parametrize(
    ("family", "trial"),
    [
        (family, trial)
        for family in FAMILIES
        for trial in trials(family, 3, seed=23)
        if trial.half == "in"
    ],
)
def test_a_secret_of_the_round_23_families_rules_were_written_on_is_taken_out(
    family: str, trial: Trial
) -> None:
    assert missed(trial) == [], (family, trial.text)


_KNOWN_NEGATIVES_CHANGED = {
    # Said of a value, which may be the user's: "X is a terrible password".
    "p4ssw0rd is a terrible password",
}


@pytest.mark.parametrize(
    ("half", "text"),
    [
        (half, text)
        for family in NEGATIVES
        for half, text, _ in negatives(family)
        if text not in _KNOWN_NEGATIVES_CHANGED
    ],
)
def test_an_everyday_sentence_of_a_round_23_family_stays(half: str, text: str) -> None:
    assert redact(text).text == text
