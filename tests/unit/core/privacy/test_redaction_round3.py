"""Phrasings a third attack found leaking or cut wrongly, a few of each
family (other languages and scripts, typos, separators, command lines, URLs,
pairs without a keyword, markup, look-alike letters, locks, several values
in one sentence), and ordinary sentences it found redacted.  These are the
attack's own words; the generated families are in
``test_redaction_phrasings``."""

from __future__ import annotations

import pytest

from desktop.core.privacy import credential_nearby
from desktop.core.privacy.redaction import redact

VALUES = ("Orca#Wave8", "9931", "t1gerLily")

LEAKED = [
    # Other languages and scripts.
    "Mein WLAN-Schlüssel ist {v}",
    "das Passwort heißt {v}",
    "mon mdp est {v}",
    "le mdp du wifi c'est {v}",
    "mon code d'accès est {v}",
    "la mia parola d'ordine è {v}",
    "il codice del cancello è {v}",
    "hasło to {v}",
    "mitt lösenord är {v}",
    "salasana on {v}",
    "adgangskode: {v}",
    "пароль: {v}",
    "мой пароль {v}",
    "パスワードは{v}です",
    "密码是{v}",
    "密码\uff1a{v}",
    "비밀번호는 {v}",
    "şifrem {v}",
    "jelszó: {v}",
    "heslo je {v}",
    "{v} ist mein Passwort",
    "{v} es mi contraseña",
    "{v} est mon mot de passe",
    # Typos.
    "my passcod is {v}",
    "my pincode is {v}",
    "pinnumber {v}",
    "passwrd: {v}",
    "psswd {v}",
    # Separators and notes.
    "password :: {v}",
    "password | {v}",
    "password / {v}",
    "password;{v}",
    "password ~ {v}",
    "password…{v}",
    "password... {v}",
    "password → {v}",
    "password -- {v}",
    "password (case-sensitive): {v}",
    "password, in case I forget: {v}",
    "Password? It's {v}.",
    "the password used to be {v}",
    "{v}: password for the router",
    "{v} <- password",
    "{v} is what I use to log in",
    # Command lines, variables and URLs.
    "export PGPASSWORD={v}",
    "redis://:{v}@localhost:6379",
    "curl -u bob:{v} https://api.example.com",
    "openssl enc -k {v}",
    "zip -P {v} a.zip f",
    "7z a -p{v} arch.7z",
    "unrar x -p{v} file.rar",
    "net use Z: \\\\srv\\share /user:bob {v}",
    "htpasswd -b file bob {v}",
    "docker login -u bob -p {v}",
    "echo {v} | sudo -S apt update",
    # Pairs.
    "u: bob p: {v}",
    "bob / {v} for netflix",
    "Hulu bob@mail.com {v}",
    "bob:{v} (my ssh login)",
    "Login bob Passwort {v}",
    "id: bob / mdp: {v}",
    # Markup.
    "<b>password</b>: {v}",
    "<td>password</td><td>{v}</td>",
    '<input type=password value="{v}">',
    "[password]: {v}",
    "# password\n{v}",
    "`password`: `{v}`",
    # Look-alike and full-width letters, invisible characters.
    "\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44: {v}",
    "p\u0430ssword: {v}",  # a Cyrillic a
    "passw\u043erd is {v}",  # a Cyrillic o
    "PASSW\u041eRD={v}",
    "pass\u200bword: {v}",
    "pass\u00adword: {v}",
    "\uff50\uff49\uff4e\uff1a{v}",
    "\U0001d429\U0001d41a\U0001d42c\U0001d42c\U0001d430\U0001d428\U0001d42b\U0001d41d: {v}",
    # Locks and codes.
    "the padlock is {v}",
    "garage opener code {v}",
    "keybox: {v}",
    "the unlock pattern is {v}",
    "the PUK is {v}",
    "2FA code {v}",
    "OTP: {v}",
]


@pytest.mark.parametrize("template", LEAKED)
@pytest.mark.parametrize("value", VALUES)
def test_the_phrasings_that_leaked_lose_their_value(template: str, value: str) -> None:
    redacted = redact(template.format(v=value)).text

    assert value not in redacted
    assert "[redacted" in redacted


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("passwords: plumtart77 and hunter3x", ("plumtart77", "hunter3x")),
        ("I changed the password from oldpass1 to Ferr0Vento", ("oldpass1", "Ferr0Vento")),
        ("the password for the bank is Gx7vQ2pL and the pin is 4471", ("Gx7vQ2pL", "4471")),
    ],
)
def test_every_value_of_a_sentence_goes(text: str, secrets: tuple[str, ...]) -> None:
    redacted = redact(text).text

    assert not [secret for secret in secrets if secret in redacted]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "my passphrase is correct horse battery staple",
            "my passphrase is [redacted password]",
        ),
        (
            "wifi: CabinNet / pw Kz88-wq, alarm 4471#",
            "wifi: CabinNet / pw [redacted password], alarm [redacted password]",
        ),
        ("password => Kz88-wq", "password => [redacted password]"),
        ("**Password:** Kz88-wq", "**Password:** [redacted password]"),
        ("wget --password=Kz88-wq http://x", "wget --password=[redacted password] http://x"),
        (
            "ftp://bob:Kz88-wq@files.example.net",
            "ftp://bob:[redacted password]@files.example.net",
        ),
        (
            '<input type=password value="Kz88-wq">',
            '<input type=password value="[redacted password]">',
        ),
        (
            "net use Z: \\\\srv\\share /user:bob Kz88-wq",
            "net use Z: \\\\srv\\share /user:bob [redacted password]",
        ),
        ("bob:Kz88-wq (my ssh login)", "bob:[redacted password] (my ssh login)"),
        ("p\u0430ssword: Kz88-wq", "p\u0430ssword: [redacted password]"),
    ],
)
def test_only_the_value_goes(text: str, expected: str) -> None:
    assert redact(text).text == expected


@pytest.mark.parametrize(
    "text",
    [
        "The code is 'secret sauce' in the recipe, haha.",
        "Dinner is at 7:30, the code for the table is on the reservation.",
        "Password123 is a terrible choice, everyone says.",
        # Numbers beside credential words that are no credential.
        "I changed my password 3 times this week.",
        "The password must be 12+ characters long.",
        "My PIN expired on 03/04/2025.",
        "The password reset link expires in 24h.",
        "Password reset at 10:30am went fine.",
        "My password manager costs $3/month.",
        "Our password policy: 90 days, 14 characters, no reuse.",
        "Password strength: 87% according to the meter.",
        "Mein Passwort ist seit 2019 das gleiche.",
        "Call the helpdesk at 555-0199 to reset your password.",
        "Two-factor is on; my PIN is unchanged since v2.3 of the app.",
        "The PIN is 4 digits and the passcode is 6 digits.",
        "Netflix password sharing ends on 23 May.",
        "My passport number is on the form.",
        "Le mot de passe expire dans 30 jours.",
        "line 399: the password for the router is [redacted password]",
        # Where a code is kept, and a file path, are no secrets.
        "The bike lock code is taped under the desk lamp.",
        "The door code is stuck on the fridge.",
        "loaded /tmp/afile.txt/data/models/all-MiniLM-L6-v2.f16.gguf.json",
        "/home/bob/.local/share/Reverie/models/SmolLM2-135M-Instruct-Q8_0",
    ],
)
def test_ordinary_sentences_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "REDIS_PASS: [redacted password]",
        "zip -P [redacted password] a.zip f",
        "ftp://bob:[redacted password]@files.example.net",
        "passwords: [redacted password] and [redacted password]",
    ],
)
def test_redacted_text_comes_out_the_same_again(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        *[(typo, True) for typo in ("paswrod", "passowrd", "psswd", "passcod")],
        *[(word, False) for word in ("passport", "passing", "passion", "pastor")],
    ],
)
def test_a_typo_of_password_is_read_as_one_and_other_words_are_not(typed: str, meant: bool) -> None:
    assert (list(credential_nearby.secret_spans(f"my {typed} is Kz88-wq")) != []) is meant
