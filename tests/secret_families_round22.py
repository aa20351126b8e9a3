"""Round 22's held-out families of secrets, built from how people write
credentials in chats, notes, e-mails, pasted config files and logs: in
German, Spanish, French, Portuguese, Italian or Dutch; inside a pasted
config, env file, YAML, JSON, INI, a URL with userinfo, a connection
string, a ``.netrc``, a ``curl -u``, an HTTP ``Authorization`` header; as
an API key or token of a known shape; as a private key block; as a
recovery phrase, a list of backup codes or a TOTP secret; as the code of
a voicemail, an alarm, a safe or a bike lock; as a security question's
answer; behind a misspelt or abbreviated label; dictated with spaces or
spelled out.  None of these templates is in ``tests.secret_families``.

Like that module, a family is a list of templates, the even ones the half
rules may be written on ("in"), the odd ones held out ("out"); a trial
fills one with drawn values.  ``NEGATIVES`` are everyday sentences of the
same look that hold none (a false positive destroys a user's words).
Counted by ``python -m tests.bench.secret_families``.
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from tests.secret_families import Trial
from tests.secret_situations import password

_CLASSIC = str.split(
    "Brombeere!7 Zugspitze2962 Tortuga#88 solecito_21 Mistral!04 framboise33 "
    "Saudade#19 chuva_forte7 Gelato!55 Tulpen2024! kiwi-mango-3 Kr4nich# "
    "Falken77? lumiere_9 Pastel#de#nata Ventana_12 vuvuzela8! Hafen#Kiel4"
)
_ALNUM = string.ascii_letters + string.digits
_B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_B64 = _ALNUM + "+/"
# The first words of the BIP-39 list (all of them in it).
_SEED_WORDS = str.split(
    "abandon ability able about above absent absorb abstract absurd abuse access "
    "accident account accuse achieve acid acoustic acquire across act action actor "
    "actress actual adapt add addict address adjust admit adult advance advice "
    "aerobic affair afford afraid again age agent agree ahead aim air airport aisle "
    "alarm album alcohol alert alien all alley allow almost alone alpha already also "
    "alter always amateur amazing among amount amused analyst anchor ancient anger "
    "angle angry animal ankle announce annual another answer antenna antique anxiety "
    "any apart apology appear apple approve april arch arctic area arena argue arm "
    "armed armor army around arrange arrest arrive arrow art artist artwork ask "
    "aspect assault asset assist assume asthma athlete atom attack attend attitude "
    "attract auction audit august aunt author auto autumn average avocado avoid "
    "awake aware away awesome awful awkward axis"
)
_ANSWERS = str.split(
    "Biscuit Whiskers Schneider Rocky Oakwood Pumpkin Kowalski Springfield "
    "Pemberton Marmalade Duisburg Fitzgerald Bartholomew Noodle Valparaiso"
)
_DIGIT_WORDS = str.split("zero one two three four five six seven eight nine")
_NATO = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyz",
        str.split(
            "alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima "
            "mike november oscar papa quebec romeo sierra tango uniform victor whiskey "
            "xray yankee zulu"
        ),
        strict=True,
    )
)


def _drawn(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def _password(rng: random.Random) -> str:
    return rng.choice([password(rng), rng.choice(_CLASSIC), rng.choice(_CLASSIC)])


def _plain_password(rng: random.Random) -> str:
    """A password that needs no quoting in a URL or a config line."""
    return rng.choice(_CLASSIC[1::2]) if rng.random() < 0.5 else _drawn(rng, _ALNUM, 12)


def _pin(rng: random.Random) -> str:
    value = _drawn(rng, string.digits, rng.choice([4, 4, 5, 6]))
    return value if not value.startswith(("19", "20")) else "8" + value[1:]


def _combo(rng: random.Random) -> str:
    return rng.choice(["-", " ", "-"]).join(str(rng.randint(1, 39)) for _ in range(3))


def _user(rng: random.Random) -> str:
    return rng.choice(["admin", "app_rw", "jonas.k", "ana", "deploy", "svc_backup", "lucia"])


def _openai(rng: random.Random) -> str:
    return rng.choice(["sk-", "sk-proj-"]) + _drawn(rng, _ALNUM, 48)


def _github(rng: random.Random) -> str:
    return rng.choice(["ghp_", "gho_", "ghs_"]) + _drawn(rng, _ALNUM, 36)


def _slack(rng: random.Random) -> str:
    digits = f"{_drawn(rng, string.digits, 12)}-{_drawn(rng, string.digits, 13)}"
    return f"{rng.choice(['xoxb', 'xoxp'])}-{digits}-{_drawn(rng, _ALNUM, 24)}"


def _aws_id(rng: random.Random) -> str:
    return "AKIA" + _drawn(rng, string.ascii_uppercase + "234567", 16)


def _aws_secret(rng: random.Random) -> str:
    return _drawn(rng, _B64, 40)


def _gitlab(rng: random.Random) -> str:
    return "glpat-" + _drawn(rng, _ALNUM + "-_", 20)


def _b64url(rng: random.Random, length: int) -> str:
    return _drawn(rng, _ALNUM + "-_", length)


def _jwt(rng: random.Random) -> str:
    return f"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{_b64url(rng, 60)}.{_b64url(rng, 43)}"


def _stripe(rng: random.Random) -> str:
    return rng.choice(["sk_live_", "rk_live_"]) + _drawn(rng, _ALNUM, 24)


def _google(rng: random.Random) -> str:
    return "AIza" + _b64url(rng, 35)


def _hf(rng: random.Random) -> str:
    return "hf_" + _drawn(rng, _ALNUM, 34)


def _npm(rng: random.Random) -> str:
    return "npm_" + _drawn(rng, _ALNUM, 36)


def _hex(rng: random.Random) -> str:
    return _drawn(rng, "0123456789abcdef", 32)


def _basic(rng: random.Random) -> str:
    return base64.b64encode(f"{_user(rng)}:{_plain_password(rng)}".encode()).decode()


def _key_line(rng: random.Random) -> str:
    return _drawn(rng, _B64, 64)


def _wg_key(rng: random.Random) -> str:
    return _drawn(rng, _B64, 43) + "="


def _seed(rng: random.Random) -> str:
    return " ".join(rng.sample(_SEED_WORDS, rng.choice([12, 12, 24])))


def _totp(rng: random.Random) -> str:
    secret = _drawn(rng, _B32, rng.choice([16, 32]))
    if rng.random() < 0.4:
        return " ".join(secret[i : i + 4] for i in range(0, len(secret), 4)).lower()
    return secret


def _backup_code(rng: random.Random) -> str:
    hexes = "0123456789abcdef"
    return rng.choice(
        [
            f"{_drawn(rng, hexes, 5)}-{_drawn(rng, hexes, 5)}",
            f"{_drawn(rng, string.digits, 4)} {_drawn(rng, string.digits, 4)}",
            _drawn(rng, string.ascii_lowercase + string.digits, 10),
        ]
    )


def _bitlocker(rng: random.Random) -> str:
    return "-".join(_drawn(rng, string.digits, 6) for _ in range(8))


def _answer(rng: random.Random) -> str:
    return rng.choice(_ANSWERS)


def _spaced(rng: random.Random) -> str:
    return rng.choice([" ", " ", "-", ". "]).join(
        rng.choice([*_CLASSIC[::3], "hunter2", "kettle42"])
    )


def _said_digits(rng: random.Random) -> str:
    return " ".join(_DIGIT_WORDS[int(d)] for d in _pin(rng)[:4])


def _nato(rng: random.Random) -> str:
    word = rng.choice(["kiwi", "fox", "lamp", "boat", "mole"])
    return " ".join(_NATO[c] for c in word) + " " + " ".join(_DIGIT_WORDS[d] for d in (4, 2))


def _word_number(rng: random.Random) -> str:
    return rng.choice(["hunter", "kettle", "falcon", "mango"]) + " " + rng.choice(_DIGIT_WORDS[1:])


_SLOTS: dict[str, Callable[[random.Random], str]] = {
    "pw": _password,
    "ppw": _plain_password,
    "pin": _pin,
    "combo": _combo,
    "openai": _openai,
    "github": _github,
    "slack": _slack,
    "akia": _aws_id,
    "awssecret": _aws_secret,
    "gitlab": _gitlab,
    "jwt": _jwt,
    "stripe": _stripe,
    "google": _google,
    "hf": _hf,
    "npm": _npm,
    "hex": _hex,
    "basic": _basic,
    "k1": _key_line,
    "k2": _key_line,
    "wg": _wg_key,
    "seed": _seed,
    "totp": _totp,
    "bc1": _backup_code,
    "bc2": _backup_code,
    "bitlocker": _bitlocker,
    "ans": _answer,
    "spaced": _spaced,
    "said": _said_digits,
    "nato": _nato,
    "wordnum": _word_number,
}
_ENDINGS = ["", "", ".", " :)", " danke", " merci", " (don't share)", " thx"]

LANGUAGES = [
    "mein Passwort ist {pw}",
    "la contraseña es {pw}",
    "le mot de passe est {pw}",
    "a minha senha é {pw}",
    "das WLAN-Passwort lautet {pw}",
    "mi clave del banco es {pin}",
    "mon code PIN c'est {pin}",
    "a senha do wifi é {pw}",
    "la password del wifi è {pw}",
    "het wachtwoord is {pw}",
    "Zugangsdaten: {user} / {pw}",
    "el código de la puerta es {pin}",
    "le digicode de l'immeuble est {pin}",
    "o PIN do cartão é {pin}",
    "Passwort fürs WLAN: {pw}",
    "contraseña del correo -> {pw}",
    "mdp : {pw}",
    "senha nova: {pw}",
    "Meine Geheimzahl ist {pin}",
    "el pin de la tarjeta: {pin}",
    "Kennwort für den Router {pw}",
    "ma carte bleue, code {pin}",
]
CONFIGS = [
    "DB_PASSWORD={ppw}",
    "export PGPASSWORD='{ppw}'",
    "database:\n  host: db.local\n  user: {user}\n  password: {ppw}\n  port: 5432",
    '{{"username": "{user}", "password": "{ppw}", "host": "10.0.0.4"}}',
    "[database]\nuser = {user}\npasswd = {ppw}",
    "postgres://{user}:{ppw}@db.example.com:5432/app",
    "mongodb+srv://{user}:{ppw}@cluster0.ab1cd.mongodb.net/test",
    "Server=tcp:sql01.example.net,1433;User ID={user};Password={ppw};Encrypt=True;",
    "machine api.example.com login {user} password {ppw}",
    "curl -u {user}:{ppw} https://api.example.com/v1/items",
    "Authorization: Basic {basic}",
    "Authorization: Bearer {jwt}",
    'smtp_pass = "{ppw}"',
    "redis://:{ppw}@localhost:6379/0",
    "git clone https://{user}:{ppw}@git.example.com/team/repo.git",
    "<user>{user}</user>\n<password>{ppw}</password>",
    "ftp://{user}:{ppw}@ftp.example.org/uploads",
    "spring.datasource.password={ppw}",
    "environment:\n  MYSQL_ROOT_PASSWORD: {ppw}\n  MYSQL_DATABASE: app",
    "mysql -u root -p{ppw} app_db",
    "psql 'host=db user={user} password={ppw} dbname=app'",
    "./deploy.sh --user {user} --password {ppw}",
]
API_KEYS = [
    "here's my openai key {openai}",
    "GITHUB_TOKEN={github}",
    "slack bot token: {slack}",
    "aws_access_key_id = {akia}\naws_secret_access_key = {awssecret}",
    "gitlab token {gitlab}",
    "the JWT is {jwt}",
    "stripe secret key {stripe}",
    "token {github} expires tomorrow",
    "use this key: {openai}",
    "maps key AIza? yes: {google}",
    "NPM_TOKEN: {npm}",
    "hf token {hf}",
    'api_key: "{hex}"',
    "OPENAI_API_KEY={openai}",
    "x-api-key: {hex}",
    "my personal access token is {github}",
    "AWS_SECRET_ACCESS_KEY={awssecret}",
    "webhook secret {hex}",
    "client_secret={hex}&grant_type=client_credentials",
    "{openai}",
]
PRIVATE_KEYS = [
    "-----BEGIN OPENSSH PRIVATE KEY-----\n{k1}\n{k2}\n-----END OPENSSH PRIVATE KEY-----",
    "-----BEGIN RSA PRIVATE KEY-----\n{k1}\n{k2}\n-----END RSA PRIVATE KEY-----",
    "my key:\n```\n-----BEGIN PRIVATE KEY-----\n{k1}\n{k2}\n-----END PRIVATE KEY-----\n```",
    "-----BEGIN EC PRIVATE KEY-----\n{k1}\n{k2}\n-----END EC PRIVATE KEY-----",
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{k1}\n{k2}\n-----END PGP PRIVATE KEY BLOCK-----",
    "[Interface]\nPrivateKey = {wg}\nAddress = 10.0.0.2/24",
    "    -----BEGIN OPENSSH PRIVATE KEY-----\n    {k1}\n    {k2}\n"
    "    -----END OPENSSH PRIVATE KEY-----",
    "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 2\n{k1}\n{k2}",
    "wireguard private key {wg}",
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\r\n{k1}\r\n{k2}\r\n-----END ENCRYPTED PRIVATE KEY-----",
]
RECOVERY = [
    "my wallet words: {seed}",
    "seed phrase is {seed}",
    "recovery phrase\n{seed}",
    "backup codes: {bc1}, {bc2}",
    "2FA secret: {totp}",
    "otpauth://totp/Example:ana@example.com?secret={totp}&issuer=Example",
    "BitLocker recovery key {bitlocker}",
    "github recovery codes\n{bc1}\n{bc2}",
    "the authenticator setup key is {totp}",
    "12 words for the ledger: {seed}",
    "Google backup codes\n1. {bc1}\n2. {bc2}",
    "if you can't scan the QR code, enter {totp}",
    "mnemonic: {seed}",
    "recovery key for the laptop: {bitlocker}",
]
LOCK_CODES = [
    "the voicemail pin is {pin}",
    "alarm code {pin}, it beeps for 30 seconds first",
    "the safe in the bedroom opens with {pin}",
    "bike lock {combo}",
    "my locker at the gym is {combo}",
    "the key box by the door: {pin}",
    "the garage opener code is {pin}",
    "screen time passcode on the kids' ipad: {pin}",
    "lockbox for the airbnb is {pin}",
    "the suitcase lock is set to {pin}",
    "disarm the alarm with {pin} then press OFF",
    "to get voicemail dial 121 then {pin}",
    "the hotel safe: {pin}#",
    "bike lock combination {pin}",
    "the shed padlock is {combo}",
    "the gate code is *{pin}#",
]
ANSWERS = [
    "security question: first pet? answer: {ans}",
    "for the bank's security question I put {ans} as my mother's maiden name",
    "memorable word: {ans}",
    "secret answer - {ans}",
    "Q: name of your first school A: {ans}",
    "the answer to 'city you were born in' is {ans} (I lied)",
    "my security answer is {ans}",
    "security questions: pet = {ans}",
    "for the 'favourite teacher' question I used {ans}",
    "mother's maiden name (for the bank): {ans}",
    "the memorable information is {ans}",
    "I set the security answer to {ans}",
]
TYPOS = [
    "pasword {pw}",
    "PW:{pw}",
    "pwd={pw}",
    "p/w {pw}",
    "passwrod is {pw}",
    "pssword: {pw}",
    "Pass - {pw}",
    "passwd {pw}",
    "PASSWORD IS {pw}",
    "pw is {pw}",
    "psw {pw}",
    "pass word: {pw}",
    "pw -> {pw}",
    "login/pw: {user}/{pw}",
    "u/p {user} {pw}",
    "creds: {user}:{pw}",
    "passowrd {pw}",
    "PWD: {pw}",
    "passcode={pin}",
    "pasword for wifi is {pw}",
]
SPELLED = [
    "my password is {spaced}",
    "the pin is {said}",
    "wifi password, spelled out: {spaced}",
    "password: {nato}",
    "the password is {wordnum}",
    "pin {said}",
    "it's {spaced}, that's the password",
    "the wifi password is {nato}",
    "the password is {spaced}",
    "alarm code is {said}",
    "password is literally {wordnum}",
    "my passcode: {said}",
]


def trials(family: str, draws: int, seed: int = 0) -> Iterator[Trial]:
    """*draws* trials of each of *family*'s templates."""
    return drawn_trials(
        "round22", family, FAMILIES[family], draws, seed, _SLOTS, _ENDINGS, _watched
    )


Slots = Mapping[str, Callable[[random.Random], str]]


def drawn_trials(
    round_name: str,
    family: str,
    templates: Sequence[str],
    draws: int,
    seed: int,
    slots: Slots,
    endings: Sequence[str],
    watched: Callable[[str, str], tuple[str, ...]],
) -> Iterator[Trial]:
    """*draws* trials of each of *templates*, the even ones "in", the odd
    ones "out": each slot filled with a drawn value, an ending added (not to
    a template of several lines), and what *watched* says of each value used
    to be gone."""
    rng = random.Random(f"{seed}-{round_name}-{family}")
    for index, template in enumerate(templates):
        half = "in" if index % 2 == 0 else "out"
        for _ in range(draws):
            drawn = {slot: make(rng) for slot, make in slots.items()}
            text = template.format(user=_user(rng), **drawn)
            used = [watched(slot, drawn[slot]) for slot in slots if "{" + slot + "}" in template]
            ending = "" if "\n" in template else rng.choice(endings)
            yield Trial(family, half, text + ending, tuple(v for values in used for v in values))


def replied(
    trials: Iterable[Trial], split: str, replies: Sequence[str], rng: random.Random
) -> Iterator[Trial]:
    """*trials*, each written as two messages (*split* between them) read
    after the first and then a reply drawn from *replies* ("": none)."""
    for trial in trials:
        before, _, text = trial.text.rpartition(split)
        if before:
            after = tuple(a for a in (before, rng.choice(replies)) if a)
            trial = Trial(trial.family, trial.half, text, trial.values, after)
        yield trial


def halved(
    texts: Sequence[str], split: str = "\u241e"
) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """Everyday *texts*, each with its half (every other one held out), its
    text and the message it follows (what stands before *split*, if any)."""
    for index, negative in enumerate(texts):
        before, _, text = negative.rpartition(split)
        yield ("in" if index % 2 == 0 else "out"), text, (before,) if before else ()


def _watched(slot: str, value: str) -> tuple[str, ...]:
    """What of *value* must be gone: a seed phrase's every run of three
    words (no part of it may stand), any other value whole."""
    if slot != "seed":
        return (value,)
    words = value.split()
    return tuple(" ".join(words[i : i + 3]) for i in range(0, len(words) - 2, 3))


FAMILIES: dict[str, Sequence[str]] = {
    "language": LANGUAGES,
    "config": CONFIGS,
    "apikey": API_KEYS,
    "pkey": PRIVATE_KEYS,
    "recovery": RECOVERY,
    "lock": LOCK_CODES,
    "answer": ANSWERS,
    "typo": TYPOS,
    "spelled": SPELLED,
}

NEGATIVES: dict[str, Sequence[str]] = {
    "language": [
        "mein Passwort ist zu kurz, sagt die Webseite",
        "la contraseña es obligatoria para entrar",
        "le mot de passe est oublié, je dois le réinitialiser",
        "a minha senha é muito fácil, preciso mudar",
        "das WLAN-Passwort steht auf dem Router",
        "mi clave del banco es la misma de siempre",
        "mon code postal c'est 75011",
        "a senha do wifi é a mesma da casa da minha mãe",
        "la password del wifi è sul retro del modem",
        "het wachtwoord is verlopen",
        "Zugangsdaten kommen per Post",
        "el código de la puerta cambió ayer",
        "le digicode ne marche plus depuis lundi",
        "o PIN do cartão chegou pelo correio",
        "Passwort vergessen? Klicken Sie hier",
        "¿cuál es la contraseña del wifi?",
        "mdp oublié, encore",
        "senha nova amanhã",
        "meine Telefonnummer ist 0171 2345678",
        "el vuelo sale a las 10:30 de la puerta 22",
        "le train part à 14h12 du quai 3",
        "o meu aniversário é 12 de maio",
        "die Wohnung hat 3 Zimmer und kostet 1200 Euro",
        "mi número de cliente es el 48213",
    ],
    "config": [
        "DB_HOST=localhost",
        "export PATH=$HOME/.local/bin:$PATH",
        "database:\n  host: db.local\n  port: 5432\n  pool: 10",
        '{"username": "ana", "theme": "dark", "fontSize": 14}',
        "[server]\nhost = 0.0.0.0\nport = 8080",
        "postgres://db.example.com:5432/app",
        "the connection string is in the vault, not in the repo",
        "Server=tcp:sql01.example.net,1433;Database=app;Encrypt=True;",
        "machine api.example.com login ana",
        "curl -X POST https://api.example.com/v1/items -d @body.json",
        "Authorization header is missing from the request",
        "Content-Type: application/json",
        "password_min_length = 12",
        "redis://localhost:6379/0",
        "git clone https://github.com/psf/requests.git",
        "<timeout>30</timeout>\n<retries>3</retries>",
        "https://ana@example.com is not a valid URL",
        "spring.datasource.url=jdbc:postgresql://db:5432/app",
        "environment:\n  TZ: Europe/Berlin\n  LANG: de_DE.UTF-8",
        "mysql -u root -p app_db",
        "password: (set via PGPASSWORD env var)",
        "PASSWORD_RESET_TIMEOUT=3600",
        "2024-03-01 12:00:03 INFO login ok user=ana ip=10.0.0.4",
        "2024-03-01 12:00:04 ERROR auth failed for user=ana (bad password)",
    ],
    "apikey": [
        "the API key goes in the .env file",
        "commit 3f9a2c1b7e4d5f60a1b2c3d4e5f6a7b8c9d0e1f2 fixed the login bug",
        "request id 550e8400-e29b-41d4-a716-446655440000 failed",
        "docker image sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "rotate the slack token every 90 days",
        "the JWT expired after an hour",
        "stripe charges 2.9% + 30c per transaction",
        "version 1.24.3-rc2 is out",
        "the sk-learn package is called scikit-learn",
        "generate a personal access token in the settings",
        "AWS region eu-central-1",
        "npm install left-pad@1.3.0",
        "trace_id=4bf92f3577b34da6a3ce929d0e0e4736",
        "the key is under the mat",
        "the key to the shed is under the mat",
        "my house key is on the blue ring",
        "ISBN 978-3-16-148410-0",
        "tracking number 1Z999AA10123456784",
        "git checkout -b feature/api-key-rotation",
        "the api key field must not be empty",
    ],
    "pkey": [
        "how do I generate an SSH key?",
        "ssh-keygen -t ed25519 -C ana@example.com",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb7cF0x ana@laptop",
        "add your public key to ~/.ssh/authorized_keys",
        "-----BEGIN CERTIFICATE----- is how a cert starts",
        "the private key never leaves the yubikey",
        "[Interface]\nAddress = 10.0.0.2/24\nListenPort = 51820",
        "PGP fingerprint: 3AA5 C34371567BD2",
        "I lost my private key, can I recover it?",
        "keys are stored in ~/.gnupg",
    ],
    "recovery": [
        "I wrote the seed phrase on paper and put it in the safe",
        "never share your recovery phrase with anyone",
        "the recovery codes are printed in the drawer",
        "backup codes can be used once each",
        "2FA is turned on for my email",
        "scan the QR code with your authenticator app",
        "the BitLocker recovery screen came up again",
        "I need to buy apples, bread, milk, eggs, butter, cheese, rice, pasta, beans, oil and tea",
        "we saw the lion, the tiger, an elephant, a zebra, the monkeys and a giraffe",
        "order 1234 5678 shipped today",
        "the meeting ID is 845 2291 3307",
        "I recovered my account with a backup code",
        "call 0800 123 4567 for help",
        "the wallet app shows 0.02 BTC",
        "the setup key is shown under the QR code",
        "abandon all hope, ye who enter here",
    ],
    "lock": [
        "the voicemail is full",
        "the alarm code is on the fridge",
        "the safe in the bedroom is empty",
        "bike lock broke, need a new one",
        "my locker at the gym is number 114",
        "the key box is by the door",
        "the garage opener needs a new battery",
        "screen time is 2 hours on school days",
        "check-in is at 15:00, the lockbox is on the left",
        "the suitcase weighs 23 kg",
        "the alarm went off at 3:15 am",
        "call 121 to check voicemail",
        "the hotel safe is too small for the laptop",
        "I set the alarm for 6:45",
        "the shed is 2.4 by 3 metres",
        "the bike is in the shed",
        "the kids' ipad is charging",
        "room 1204, floor 12",
    ],
    "answer": [
        "my first pet was a hamster called Biscuit",
        "my mother's maiden name is hard to spell",
        "I grew up in Springfield",
        "the security questions were so annoying",
        "my favourite teacher was Mrs Pemberton",
        "what was the name of your first pet?",
        "the memorable word box was greyed out",
        "our cat is called Whiskers",
        "I was born in Valparaiso in 1988",
        "the answer is 42",
        "my grandmother's name was Rose Kowalski",
        "Hi Tom, thanks, Maya1990",
        "the secret to good bread is time",
        "the first school I went to was Oakwood Primary",
    ],
    "typo": [
        "forgot my pasword again",
        "PW reset link expired",
        "pwd shows the current directory",
        "p/w protected files cannot be previewed",
        "the passwrod field is broken",
        "password is required",
        "pass the salt please",
        "passwd is a unix command",
        "PASSWORD IS TOO SHORT",
        "pw is due on friday",
        "PSW stands for program status word",
        "login/logout buttons are swapped",
        "creds are in 1password",
        "passcode screen keeps appearing",
        "u/p ratio is 3:1",
        "pw strength: weak",
    ],
    "spelled": [
        "my password is strong, says the meter",
        "the pin is four digits long",
        "spell it out: r e s p e c t",
        "it's one two three o'clock, four o'clock rock",
        "alpha bravo charlie is the NATO alphabet",
        "the password is the name of my dog",
        "alarm code is the same as the gate",
        "I counted one two three four five and jumped",
        "he said h e l l o very slowly",
        "my passcode: none, I use face id",
        "the password is case sensitive",
        "pin one on the map and share it",
    ],
}


def negatives(family: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """*family*'s everyday texts: each one's half, its text and what it follows."""
    return halved(NEGATIVES[family])
