"""Round 29's held-out families of secrets, none of them a template of the
earlier generators, from places earlier rounds did not visit: a password
shown to the assistant to judge or keep ("is X a strong password?",
"remember my alarm code X"); a chat app's export (WhatsApp's, Telegram's,
Slack's, Discord's, Teams', IRC's own lines); telephone banking (a phone
passcode, memorable information, a verbal password); a device's own PIN
(Screen Time, a car radio, a TV's or a console's parental lock); a
holiday rental's or a hotel's check-in message (a lockbox, a key safe, a
room safe); a service's own config (a systemd unit's ``Environment=``, a
crontab line, a Dockerfile's ``ENV``, a launchd plist, supervisord); build
tools' credentials (gradle.properties, NuGet, Composer's auth.json,
Cargo, Yarn, Postfix's sasl_passwd, fetchmailrc); code in languages no
round wrote (PHP, Java, Rust, Ruby, Kotlin, Swift, Perl, Lua); the word
for password in fourteen languages no round tried (Ukrainian, Serbian,
Slovenian, Bengali, Tamil, Urdu, Tagalog, Georgian, Armenian, Kazakh,
Azerbaijani, Albanian, Basque, Welsh); a passphrase of random words
(diceware, "tuba otter crimson ladle"); a wallet's private key
(Ethereum's hex, Bitcoin's WIF, an extended ``xprv``); and a password
typed by a script (``expect``'s ``send``, AutoHotkey, AppleScript's
``keystroke``, ``xdotool type``, pexpect).

Like rounds 22 to 28, a family is a list of templates, the even ones the
half rules may be written on ("in"), the odd ones held out ("out"); a
trial fills one with drawn values.  ``NEGATIVES`` are everyday texts of
the same look that hold none (a question about passwords in general, a
chat export's ordinary lines, a bank's opening hours, Screen Time's hours,
a check-in time, a unit's ``PORT=``, ``org.gradle.jvmargs``, code reading
a password from the environment, a sentence about a password in another
language, advice to use four random words, a wallet's public address and
a transaction's hash, a script typing a command).  Counted by
``python -m tests.bench.secret_families --round 29``.
"""

# Ukrainian, Serbian, Kazakh and others are written as people type them.
# ruff: noqa: RUF001

from __future__ import annotations

import random
import string
from collections.abc import Callable, Iterator, Sequence

from tests.secret_families import Trial
from tests.secret_families_round22 import (
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
_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_DICE_WORDS = str.split(
    "tuba otter crimson ladle quartz meadow pickle harbor velvet cactus lantern walnut "
    "pepper comet saddle tundra gravel orchid falcon pillow marble wombat ember thistle"
)


def _dice(rng: random.Random) -> str:
    """A passphrase of four to six random words, spaced, dashed or dotted."""
    words = rng.sample(_DICE_WORDS, rng.choice([4, 5, 6]))
    return rng.choice([" ", " ", "-", ".", "_"]).join(words)


def _eth_key(rng: random.Random) -> str:
    """An Ethereum private key: 64 hex, maybe after "0x"."""
    return rng.choice(["0x", ""]) + _drawn(rng, "0123456789abcdef", 64)


def _wif(rng: random.Random) -> str:
    """A Bitcoin private key in WIF: 51 characters from "5", 52 from "K" or "L"."""
    if rng.random() < 0.5:
        return "5" + rng.choice("HJK") + _drawn(rng, _BASE58, 49)
    return rng.choice("KL") + _drawn(rng, _BASE58, 51)


def _xprv(rng: random.Random) -> str:
    """An extended private key (BIP32): "xprv" and 107 base58 characters."""
    return "xprv9s21ZrQH143K" + _drawn(rng, _BASE58, 95)


def _ms_pin(rng: random.Random) -> str:
    """A PIN of four digits (a car radio's, a TV's)."""
    return _drawn(rng, "123456789", 1) + _drawn(rng, string.digits, 3)


_SLOTS: dict[str, Callable[[random.Random], str]] = {
    "pw": _password,
    "ppw": _plain_password,
    "pin": _pin,
    "pin4": _ms_pin,
    "hex": _hex,
    "tok": _token,
    "dice": _dice,
    "eth": _eth_key,
    "wif": _wif,
    "xprv": _xprv,
}
_ENDINGS = ["", "", ".", " ty", " 🙏", " (sorry)"]

ASK = [
    "is {pw} a strong password?",
    "rate my password: {ppw}",
    "how long would it take to crack {pw}",
    "can you make {ppw} stronger? it's for my bank",
    "remember my alarm code {pin} for me",
    "I use {ppw} everywhere, is that bad?",
    "help me remember {ppw}, it's the new work one",
    "does {pw} have enough symbols for Gmail?",
]
CHATLOG = [
    "12/01/26, 10:02 - Bob: pin is {pin}",
    "[12/01/2026, 10:02:13] Bob: wifi pw {pw}",
    "Bob Smith, [01.12.26 10:02]\nthe code for the gate is {pin}",
    "Bob Smith  10:02 AM\nstaging db pass: {ppw}",
    "Bob — Today at 10:02\nserver password {ppw} dont leak it",
    "<bob> the root pw is {ppw}",
    "[10:02] Bob Smith\nVPN: {ppw}",
    "Bob: {pw} is the new wifi",
]
PHONEBANK = [
    "telephone banking passcode {pin}",
    "memorable information: {ppw}",
    "the bank's phone security number is {pin}",
    "verbal password for the account: {ppw}",
    "customer number 84729103, passcode {pin}",
    "phone banking PIN {pin}",
    "when they call, the password is {ppw}",
    "Amex telephone PIN: {pin}",
]
DEVICES = [
    "Screen Time passcode {pin4}",
    "the car radio code is {pin4}",
    "Netflix profile lock {pin4}",
    "parental PIN on the Switch: {pin4}",
    "Kindle restrictions password {ppw}",
    "the TV's child lock code {pin4}",
    "Sky PIN {pin4}",
    "the PS5 passcode is {pin4}",
]
RENTAL = [
    "Lockbox code: {pin} (left of the door)",
    "Key safe {pin}, the keys are inside",
    "Check-in: door code {pin}#, Wi-Fi Casa_Sol / {ppw}",
    "your room safe is set to {pin}",
    "Welcome! The keypad opens with {pin} and the wifi is {pw}",
    "Keynest collection code {pin}",
    "Self check-in\n1. Gate: {pin}\n2. Flat 4, keybox: {pin4}",
    "the host says the lockbox is {pin}",
]
SERVICE = [
    '[Service]\nEnvironment="DB_PASSWORD={ppw}"\nExecStart=/usr/bin/app',
    "0 3 * * * PGPASSWORD={ppw} pg_dump shop > /backup/shop.sql",
    "ENV ADMIN_PASSWORD={ppw}",
    '[program:worker]\nenvironment=API_TOKEN="{tok}"',
    "<key>PASSWORD</key>\n<string>{ppw}</string>",
    "web: SECRET_KEY={tok} gunicorn app:app",
    "wifi_password: {ppw}\nlatitude_home: 52.37",
    "docker run -d -e MYSQL_ROOT_PASSWORD={ppw} mysql:8",
]
BUILD = [
    "signing.password={ppw}\nsigning.keyId=24875D73",
    '<add key="ClearTextPassword" value="{ppw}" />',
    '{{"http-basic": {{"repo.example.com": {{"username": "ana", "password": "{ppw}"}}}}}}',
    '[registry]\ntoken = "{tok}"',
    'npmAuthToken: "{tok}"',
    "[smtp.gmail.com]:587 ana@gmail.com:{ppw}",
    "poll imap.example.com user 'ana' there with password '{ppw}'",
    "ossrhPassword={ppw}",
]
CODE = [
    "$db_pass = '{ppw}';",
    'private static final String PASSWORD = "{ppw}";',
    'let api_key = "{tok}";',
    'ENV["SMTP_PASSWORD"] ||= "{ppw}"',
    'val dbPassword = "{ppw}"',
    'let secret = "{tok}"',
    'my $pass = "{ppw}";',
    'local password = "{ppw}"',
]
LANGUAGE = [
    "Мій пароль від пошти {pw}",
    "Лозинка за wifi је {pw}",
    "Geslo za wifi je {pw}",
    "ওয়াইফাই পাসওয়ার্ড {pw}",
    "வைஃபை கடவுச்சொல் {pw}",
    "وائی فائی کا پاس ورڈ {pw} ہے",
    "Ang password ng wifi ay {pw}",
    "wifi-ს პაროლი არის {pw}",
    "Wifi-ի գաղտնաբառը {pw} է",
    "Wifi құпия сөзі {pw}",
    "Wifi şifrəsi {pw}",
    "Fjalëkalimi i wifi është {pw}",
    "Wifiaren pasahitza {pw} da",
    "Cyfrinair y wifi yw {pw}",
]
DICE = [
    "Bitwarden master password: {dice}",
    "my 1Password master passphrase is {dice}",
    "KeePass database - {dice}",
    "the disk encryption passphrase is {dice}",
    "FileVault: {dice}",
    "LUKS passphrase {dice}",
    "veracrypt volume pw = {dice}",
    "the wifi passphrase is {dice}",
]
WALLET = [
    "private key: {eth}",
    "the WIF for the paper wallet is {wif}",
    "import this key into MetaMask {eth}",
    "xprv for the cold wallet: {xprv}",
    "Electrum wallet password {ppw}",
    "bitcoin private key {wif}",
    "MetaMask password: {ppw}",
    "my ETH account's private key is {eth}",
]
SCRIPTED = [
    'expect "password:"\nsend "{ppw}\\r"',
    "Send, {ppw}{{Enter}}",
    'tell application "System Events" to keystroke "{ppw}"',
    "xdotool type '{ppw}'",
    "child.expect('Password:')\nchild.sendline('{ppw}')",
    "printf '%s\\n' '{ppw}' | openconnect --passwd-on-stdin vpn.acme.com",
    "echo '{ppw}' > ~/.vault_pass",
    'send -- "{ppw}\\r"',
]
_REPLIES = ["", "", "Noted.", "Got it."]


def trials(family: str, draws: int, seed: int = 0) -> Iterator[Trial]:
    """*draws* trials of each of *family*'s templates (a split one read
    after the message before it)."""
    drawn = drawn_trials(
        "round29", family, FAMILIES[family], draws, seed, _SLOTS, _ENDINGS, _watched
    )
    return replied(drawn, _SPLIT, _REPLIES, random.Random(f"{seed}-round29-replies"))


def _watched(slot: str, value: str) -> tuple[str, ...]:
    """What of *value* must be gone: a spaced passphrase's every two words
    (no part of it may stand), any other secret whole."""
    if slot == "dice" and " " in value:
        words = value.split()
        return tuple(" ".join(words[i : i + 2]) for i in range(0, len(words) - 1, 2))
    return (value,)


FAMILIES: dict[str, Sequence[str]] = {
    "ask": ASK,
    "chatlog": CHATLOG,
    "phonebank": PHONEBANK,
    "devices": DEVICES,
    "rental": RENTAL,
    "service": SERVICE,
    "build": BUILD,
    "code": CODE,
    "language": LANGUAGE,
    "dice": DICE,
    "wallet": WALLET,
    "scripted": SCRIPTED,
}

NEGATIVES: dict[str, Sequence[str]] = {
    "ask": [
        "is a 12 character password strong enough?",
        "rate my essay intro please",
        "how long would it take to crack an 8 letter password",
        "can you make me a strong password?",
        "remember my dentist appointment is at 4:30",
        "I use the same password everywhere, is that bad?",
    ],
    "chatlog": [
        "12/01/26, 10:02 - Bob: pin the poster on the wall",
        "[12/01/2026, 10:02:13] Bob: wifi is slow again",
        "Bob Smith, [01.12.26 10:02]\nthe gate is open till 6",
        "Bob Smith  10:02 AM\nstaging db is back up",
        "Bob — Today at 10:02\nserver restarts at 11",
        "<bob> the root cause was a full disk",
    ],
    "phonebank": [
        "telephone banking is open 8am to 8pm",
        "memorable information: they ask for the 2nd and 5th characters",
        "the bank's phone number is on the back of the card",
        "customer number 84729103, sort code 20-00-00",
        "phone banking asked me for my passcode twice",
        "when they call, never give them the password",
    ],
    "devices": [
        "Screen Time says 4h 12m today",
        "the car radio code card is in the glovebox",
        "set up a Netflix profile lock for the kids",
        "parental controls on the Switch are on",
        "the TV's child lock is off",
        "Sky box is on channel 101",
    ],
    "rental": [
        "Lockbox is left of the door, code by text on the day",
        "Key safe is by the bins",
        "Check-in from 3pm, check-out by 11",
        "your room is 412 on the 4th floor",
        "Welcome! The keypad is by the door and the wifi name is Casa_Sol",
        "Keynest is at the corner shop",
    ],
    "service": [
        '[Service]\nEnvironment="PORT=8080"\nExecStart=/usr/bin/app',
        "0 3 * * * pg_dump shop > /backup/shop.sql",
        "ENV NODE_ENV=production",
        "[program:worker]\ncommand=python worker.py",
        "<key>Label</key>\n<string>com.acme.backup</string>",
        "web: gunicorn app:app --workers 4",
    ],
    "build": [
        "org.gradle.jvmargs=-Xmx2g\nsigning.keyId=24875D73",
        '<add key="nuget.org" value="https://api.nuget.org/v3/index.json" />',
        '{"require": {"monolog/monolog": "^3.0"}}',
        '[registry]\ndefault = "crates-io"',
        "nodeLinker: node-modules",
        "relayhost = [smtp.gmail.com]:587",
    ],
    "code": [
        "$db_host = 'localhost';",
        'private static final String PASSWORD_FIELD = "password";',
        'let api_url = "https://api.example.com/v2";',
        'ENV["SMTP_PASSWORD"] ||= ENV.fetch("MAIL_PASS")',
        'val dbPassword = System.getenv("DB_PASSWORD")',
        "local password = io.read()",
    ],
    "language": [
        "Я забув пароль від пошти",
        "Лозинка је прекратка",
        "Pozabil sem geslo",
        "Nakalimutan ko ang password",
        "Wifi şifrəsi dəyişib",
        "Cyfrinair newydd, os gwelwch yn dda",
    ],
    "dice": [
        "Bitwarden master password: the one I never wrote down",
        "use a passphrase of four random words",
        "the LUKS passphrase prompt appears twice on boot",
        "FileVault: on",
        "KeePass database - last synced yesterday",
        "the wifi passphrase is on the router's sticker",
    ],
    "wallet": [
        "sent it to 0x742d35Cc6634C0532925a3b844Bc454e4438f44e",
        "tx 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 confirmed",
        "my address is bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
        "the Ledger asks for its PIN on every start",
        "Electrum wallet password reset is impossible, keep the seed",
        "import a private key in MetaMask under Accounts",
    ],
    "scripted": [
        'expect "password:"\ninteract',
        "Send, ^c",
        'tell application "System Events" to keystroke "q" using command down',
        "xdotool type 'hello world'",
        "child.expect('\\$ ')\nchild.sendline('ls -la')",
        "openconnect vpn.acme.com --user=ana",
    ],
}


def negatives(family: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """*family*'s everyday texts: each one's half, its text and what it follows."""
    return halved(NEGATIVES[family], _SPLIT)
