"""Round 27's held-out families of secrets, none of them a template of the
earlier generators, from places earlier rounds did not visit: a password
dictated to a phone ("capital B blue horse eight eight"); one spelled with
separators in new sentences; the words for password in German, French,
Spanish, Portuguese, Italian and Dutch said in new ways; SMS one-time
codes; bank details (a card's number with its expiry and CVV, an online
bank's PIN beside an IBAN); door, gate, alarm and safe codes; a phone's
unlock pattern and a SIM's PUK; software licence keys; SSH and PGP private
key blocks pasted in part; ``.env`` files with ``export`` lines; apps'
JSON and YAML config (``"client_secret":``); passwords in shell history
(``mysql -uroot -pX``, ``sshpass -p``); meeting passcodes in calendar
invites; and chat slang ("pw's X btw").

Like rounds 22 to 26, a family is a list of templates, the even ones the
half rules may be written on ("in"), the odd ones held out ("out"); a
trial fills one with drawn values.  ``NEGATIVES`` are everyday texts of
the same look that hold none (a meeting's ID without its passcode, a
card's last four digits, "my PIN was rejected", a product's serial number,
an order number shaped like an IBAN, shell history without a credential,
French that only mentions "mot de passe oublié").  Counted by
``python -m tests.bench.secret_families --round 27``.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Iterator, Sequence

from tests.secret_families import Trial
from tests.secret_families_round22 import (
    _ALNUM,
    _B64,
    _CLASSIC,
    _drawn,
    _hex,
    _password,
    _pin,
    _plain_password,
    drawn_trials,
    halved,
    replied,
)
from tests.secret_families_round24 import _token

_SPLIT = "\u241e"
"""Between the message before and the message of a split template."""
_DIGIT_NAMES = str.split("zero one two three four five six seven eight nine")
_DICTATED_WORDS = str.split(
    "blue horse river candle maple tiger silver orange pepper window rocket garden"
)
_UPPER = string.ascii_uppercase


def _dictated(rng: random.Random) -> str:
    """A password as a voice assistant writes it down: "capital B blue horse eight eight"."""
    parts = [f"capital {rng.choice(_UPPER)}"]
    parts += rng.sample(_DICTATED_WORDS, rng.choice([1, 2]))
    parts += [_DIGIT_NAMES[int(d)] for d in _drawn(rng, string.digits, rng.choice([2, 3]))]
    if rng.random() < 0.5:
        parts.append(rng.choice(["exclamation mark", "hash", "at sign", "dollar sign"]))
    return " ".join(parts)


def _separated(rng: random.Random) -> str:
    """A password spelled with a sign between its letters: "h-u-n-t-e-r-2"."""
    word = rng.choice([*_CLASSIC[::2], "hunter2", "kettle42", "Mango77"])
    return rng.choice(["-", ".", " ", "_"]).join(word)


def _sms_code(rng: random.Random) -> str:
    code = _drawn(rng, string.digits, 6)
    return rng.choice([code, f"{code[:3]} {code[3:]}", f"{code[:3]}-{code[3:]}"])


def _luhn_card(rng: random.Random) -> str:
    """A Visa or Mastercard number with a valid check digit, grouped by four."""
    digits = [int(d) for d in rng.choice(["4", "51", "55"]) + _drawn(rng, string.digits, 13)]
    digits = digits[:15]
    total = 0
    for place, digit in enumerate(reversed(digits)):
        value = digit * (2 if place % 2 == 0 else 1)
        total += value - 9 if value > 9 else value
    number = "".join(map(str, digits)) + str((10 - total % 10) % 10)
    return " ".join(number[i : i + 4] for i in range(0, 16, 4))


def _cvv(rng: random.Random) -> str:
    return _drawn(rng, string.digits, 3)


def _expiry(rng: random.Random) -> str:
    return f"{rng.randint(1, 12):02d}/{rng.randint(26, 31)}"


def _iban(rng: random.Random) -> str:
    body = f"DE{_drawn(rng, string.digits, 20)}"
    return " ".join(body[i : i + 4] for i in range(0, len(body), 4))


def _puk(rng: random.Random) -> str:
    return _drawn(rng, string.digits, 8)


def _pattern(rng: random.Random) -> str:
    """A phone's unlock pattern, by the dots it passes (1 to 9)."""
    return rng.choice(["-", " ", ""]).join(map(str, rng.sample(range(1, 10), rng.randint(4, 6))))


def _licence(rng: random.Random) -> str:
    alphabet = _UPPER.replace("O", "").replace("I", "") + "23456789"
    return "-".join(_drawn(rng, alphabet, 5) for _ in range(rng.choice([4, 5])))


def _key_body(rng: random.Random) -> str:
    """Lines of a private key's base64, as pasted in part."""
    return "\n".join(_drawn(rng, _B64, 64) for _ in range(rng.randint(2, 4)))


def _meeting_code(rng: random.Random) -> str:
    return rng.choice([_drawn(rng, string.digits, 6), _drawn(rng, _ALNUM, 8)])


def _meeting_id(rng: random.Random) -> str:
    digits = "8" + _drawn(rng, string.digits, 10)
    return f"{digits[:3]} {digits[3:7]} {digits[7:]}"


def _client_secret(rng: random.Random) -> str:
    return rng.choice([_drawn(rng, _ALNUM + "-_~.", 34), _hex(rng)])


_SLOTS: dict[str, Callable[[random.Random], str]] = {
    "pw": _password,
    "ppw": _plain_password,
    "pin": _pin,
    "hex": _hex,
    "tok": _token,
    "dict": _dictated,
    "sep": _separated,
    "sms": _sms_code,
    "card": _luhn_card,
    "cvv": _cvv,
    "exp": _expiry,
    "iban": _iban,
    "puk": _puk,
    "unlock": _pattern,
    "lic": _licence,
    "keybody": _key_body,
    "mcode": _meeting_code,
    "mid": _meeting_id,
    "csecret": _client_secret,
}
_NOT_SECRET = frozenset({"exp", "iban", "mid"})
_ENDINGS = ["", "", ".", " ok?", " - ta", " 🙂"]

DICTATED = [
    "ok google my new password is {dict}",
    "new wifi password {dict} period",
    "note to self the alarm app login is {dict}",
    "text mom the password for netflix is {dict}",
    "remind me the bank password {dict}",
    "set the garage password to {dict} thanks",
    "send to Jonas colon the wifi is {dict}",
    "dictation the VPN password is {dict} end",
]
SEPARATED = [
    "it's spelled {sep} for the email account",
    "password (letter by letter): {sep}",
    "ok the wifi key spelled out is {sep}",
    "spell it: {sep} - that's the router login",
    "pass for the locker: {sep}",
    "I'll spell the code for you: {sep}",
    "typed it as {sep}, the password for steam",
    "letters of the pw: {sep}",
]
LANGUAGE = [
    "Das neue Passwort für das Büro lautet {pw}",
    "Ton mot de passe provisoire : {pw}",
    "Tu contraseña temporal es {pw}, cámbiala al entrar",
    "Sua nova senha de acesso: {pw}",
    "La password della posta è {pw}",
    "Het wachtwoord van de wifi is {pw}",
    "Passwort für den Gastzugang: {pw}",
    "Voici le mot de passe du wifi de la maison : {pw}",
    "La contraseña del portal es {pw}",
    "Minha senha do banco é {pin}",
    "Ecco la nuova password: {pw}",
    "Je nieuwe wachtwoord: {pw}",
]
SMS = [
    "Your verification code is {sms}",
    "{sms} is your Instagram code. Don't share it.",
    "Use code {sms} to sign in to your account. It expires in 10 minutes.",
    "Your Microsoft account security code: {sms}",
    "Your one time passcode is {sms}. Never share this code.",
    "Bank: Your security code for the transfer is {sms}",
    "Do not share this code: {sms}",
    "WhatsApp code: {sms}. Don't share this code with others",
]
BANK = [
    "card {card} exp {exp} cvv {cvv}",
    "Visa: {card}\nExpiry: {exp}\nCVC: {cvv}",
    "IBAN {iban}, online banking PIN {pin}",
    "pay with my card {card} {exp} security code {cvv}",
    "Kartennummer {card}, gültig bis {exp}, Prüfnummer {cvv}",
    "account {iban} / telebanking PIN {pin}",
    "the card is {card}, exp {exp}, the 3 digits on the back are {cvv}",
    "my debit card PIN for the {iban} account is {pin}",
]
LOCKS = [
    "front gate code is {pin}#",
    "alarm: disarm with {pin} then press OFF",
    "The safe in the hotel room opens with {pin}",
    "door keypad {pin} then the key symbol",
    "garage opener code {pin}",
    "the lockbox by the door - {pin}",
    "gym locker combination: {pin}",
    "to turn off the alarm punch {pin} within 30s",
]
PHONE = [
    "my phone unlock pattern is {unlock}",
    "SIM PUK: {puk}",
    "phone pin {pin}, pattern {unlock}",
    "the PUK code for my SIM card is {puk}",
    "the tablet's unlock code is {pin}",
    "PUK1 {puk} PIN1 {pin}",
    "unlock pattern for the kids' tablet: {unlock}",
    "new SIM, PIN {pin} and PUK {puk}",
]
LICENCE = [
    "Windows product key: {lic}",
    "license key {lic} for Office",
    "Serial: {lic}\nRegistered to: Ana",
    "activation key = {lic}",
    "Your license key is {lic}. Keep it safe.",
    "the photoshop serial {lic}",
    "Licence: {lic}",
    "reg key for winrar {lic}",
]
KEYBLOCK = [
    "-----BEGIN OPENSSH PRIVATE KEY-----\n{keybody}",
    "here's the key\n-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\n{keybody}",
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{keybody}\n...",
    "middle of my id_rsa (rest is on the usb):\n{keybody}",
    "-----BEGIN EC PRIVATE KEY-----\n{keybody}\n-----END EC PRIVATE KEY-----",
    "pasting the private key, first lines only\n{keybody}",
]
DOTENV = [
    "export DB_PASSWORD={ppw}",
    "export STRIPE_SECRET_KEY={hex}",
    "# .env\nexport API_TOKEN={tok}\nexport DEBUG=1",
    "export MAIL_PASS='{pw}'",
    "export GITHUB_TOKEN={tok} && make release",
    'export REDIS_PASSWORD="{ppw}"',
    "export SECRET_KEY_BASE={hex}",
    "set -a; export ADMIN_PASS={ppw}; set +a",
]
APPCONFIG = [
    '{{"client_id": "web-app", "client_secret": "{csecret}"}}',
    "oauth:\n  clientId: web-app\n  clientSecret: {csecret}",
    '"smtp": {{"user": "mailer", "pass": "{ppw}"}}',
    "[database]\nuser = app\npassword = {ppw}",
    '{{"apiKey": "{hex}", "region": "eu"}}',
    "quarkus.datasource.password = {ppw}",
    "auth:\n  admin_password: {ppw}\n  admin_user: root",
    '<add key="ClientSecret" value="{csecret}" />',
]
SHELL = [
    "mysql -uroot -p{ppw} shop",
    "sshpass -p '{pw}' ssh ana@10.0.0.5",
    "  512  mysqldump -u backup --password={ppw} shop > shop.sql",
    "$ smbclient //nas/share -U ana%{ppw}",
    "psql 'postgresql://app:{ppw}@db/app' -c 'select 1'",
    "history | tail\n 1001  sshpass -p {ppw} scp file pi@raspberrypi:",
    "mongosh -u admin -p {ppw} --authenticationDatabase admin",
    "printf '%s\\n' '{ppw}' | sudo -S systemctl restart nginx",
]
MEETING = [
    "Join Zoom Meeting\nhttps://us02web.zoom.us/j/{mid}\nMeeting ID: {mid}\nPasscode: {mcode}",
    "Meeting ID: {mid} Passcode: {mcode}",
    "Microsoft Teams meeting\nMeeting ID: {mid}\nPasscode: {mcode}",
    "Webex: access code {mid}, meeting password {mcode}",
    "dial in, then passcode {mcode}#",
    "zoom for tonight - id {mid} pw {mcode}",
]
SLANG = [
    "pw's {pw} btw",
    "pw iz {pw}",
    "the pass 4 the wifi = {pw}",
    "netflix pass? its {pw}",
    "psswd {pw} dont tell mum",
    "login stuff: me / {pw}",
    "ur pw is {pw} change it l8r",
    "wifi pw >> {pw}",
]
_REPLIES = ["", "", "Go ahead.", "Sure."]


def trials(family: str, draws: int, seed: int = 0) -> Iterator[Trial]:
    """*draws* trials of each of *family*'s templates (a split one read
    after the message before it)."""
    drawn = drawn_trials(
        "round27", family, FAMILIES[family], draws, seed, _SLOTS, _ENDINGS, _watched
    )
    return replied(drawn, _SPLIT, _REPLIES, random.Random(f"{seed}-round27-replies"))


def _watched(slot: str, value: str) -> tuple[str, ...]:
    """What of *value* must be gone: a key's lines each, any other secret whole."""
    if slot in _NOT_SECRET:
        return ()
    if slot == "keybody":
        return tuple(value.splitlines())
    return (value,)


FAMILIES: dict[str, Sequence[str]] = {
    "dictated": DICTATED,
    "separated": SEPARATED,
    "language": LANGUAGE,
    "sms": SMS,
    "bank": BANK,
    "locks": LOCKS,
    "phone": PHONE,
    "licence": LICENCE,
    "keyblock": KEYBLOCK,
    "dotenv": DOTENV,
    "appconfig": APPCONFIG,
    "shell": SHELL,
    "meeting": MEETING,
    "slang": SLANG,
}

NEGATIVES: dict[str, Sequence[str]] = {
    "dictated": [
        "my password is capital sensitive apparently",
        "new paragraph the meeting moved to Tuesday period",
        "note to self buy blue paint and eight candles",
        "text mom I'll be home at eight",
    ],
    "separated": [
        "it's spelled S-M-I-T-H, like the singer",
        "the acronym is N.A.S.A. of course",
        "spell it: r-e-c-e-i-p-t, not reciept",
        "the flight code is L-H-4-5-2-0? no idea",
    ],
    "language": [
        "J'ai cliqué sur mot de passe oublié mais rien ne se passe",
        "Das Passwort muss mindestens 12 Zeichen haben",
        "¿Dónde cambio la contraseña del router?",
        "Esqueci a senha de novo, que raiva",
        "La password è scaduta, devo rinnovarla",
        "Het wachtwoord werkt niet meer sinds gisteren",
    ],
    "sms": [
        "Your order 48190 has shipped and arrives Tuesday",
        "Your verification code has expired. Request a new one.",
        "Reminder: your appointment is on 12 June at 14:30",
        "Use code SUMMER24 for 20% off",
    ],
    "bank": [
        "paid with the card ending 4242 yesterday",
        "my PIN was rejected at the ATM, card is blocked now",
        "order number DE12 3456 7890 1234 5678 90 shipped",
        "the card expires 08/27, I need to order a new one",
        "IBAN is on the invoice, reference 2024-118",
    ],
    "locks": [
        "the gate code changed again, ask the landlord",
        "alarm went off at 3am for no reason",
        "the safe is in the wardrobe, behind the shoes",
        "door 4 is the one with the blue keypad",
    ],
    "phone": [
        "forgot my unlock pattern, had to reset the phone",
        "the SIM card needs a PUK after 3 wrong PINs",
        "phone is on 12% battery",
        "my new number is on the fridge",
    ],
    "licence": [
        "Serial number on the sticker: printer model HL-L2350DW",
        "Support ticket 55123: product serial SN 4C3D2B1A, keyboard sticks",
        "license key is in the confirmation email",
        "Order ID: 112-4455667-8899001",
    ],
    "keyblock": [
        "-----BEGIN PUBLIC KEY-----\nis what the server wants, not the private one",
        "generate the key with ssh-keygen -t ed25519 and never paste the private key",
        "-----BEGIN CERTIFICATE----- goes first in the pem file",
        "where is my id_rsa.pub? I need to add it to github",
    ],
    "dotenv": [
        "export PATH=/opt/tools/bin:$PATH",
        "export NODE_ENV=production",
        "export DB_PASSWORD=$(cat /run/secrets/db_password)",
        "export EDITOR=vim LANG=en_US.UTF-8",
    ],
    "appconfig": [
        '{"client_id": "web-app", "redirect_uri": "https://app.example.com/cb"}',
        "oauth:\n  clientId: web-app\n  scopes: [openid, email]",
        '"smtp": {"host": "smtp.example.com", "port": 587}',
        "[database]\nuser = app\nhost = localhost",
    ],
    "shell": [
        "mysql -uroot -p shop",
        "ssh ana@10.0.0.5 -p 2222",
        "  512  ls -la\n  513  cd projects\n  514  git status",
        "psql -h db -U app -W",
    ],
    "meeting": [
        "Join Zoom Meeting\nhttps://us02web.zoom.us/j/81234567890\nMeeting ID: 812 3456 7890",
        "Meeting ID: 812 3456 7890, no passcode needed",
        "Teams meeting at 3pm, link in the invite",
        "the passcode is in the calendar invite",
    ],
    "slang": [
        "pw's expired again lol",
        "pass the salt pls",
        "forgot my pw again, resetting it now",
        "the pass 4 the festival arrived!",
    ],
}


def negatives(family: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """*family*'s everyday texts: each one's half, its text and what it follows."""
    return halved(NEGATIVES[family], _SPLIT)
