"""Round 36's held-out families of secrets, typed in a chat with the
companion in ways rounds 21 to 35 did not write: a credential in markdown
the user pastes (bold labels, a table row, a code span); one inside a
forwarded e-mail or a quoted reply ("> your temporary password is X"); the
text of a screenshot, a notification or a voicemail ("Your verification
code is 482913"); a shell command typed in the chat as a question ("why
does ``mysql -u root -pX`` say access denied?"); a word for password
misspelt or cut short ("passwrod", "pwd", "p/w", "PIN#"); emoji beside the
value ("🔑 X"); the value first and what it is after a list of values ("X,
Y and Z: those are my three backup codes"); the value said twice to
confirm it ("it's X, that's X with a capital"); the value spelt out a
letter at a time ("k-i-w-i-7-7", "H as in hotel, U, N"); and the word for
password in eight languages no round tried (Somali, Xhosa, Malagasy,
Faroese, Esperanto, Māori, Haitian Creole, Uyghur).

Like rounds 22 to 35, a family is a list of templates, the even ones the
half rules may be written on ("in"), the odd ones held out ("out"); a
trial fills one with drawn values.  ``NEGATIVES`` are everyday chat of
the same look that holds none and must stay as typed: a command with no
secret, "the password field", "pwd" the command, a phone number or a time
in a voicemail, "my PIN# is on the card", a markdown table of prices.
Counted by ``python -m tests.bench.secret_families --round 36``.
"""

from __future__ import annotations

import random
import string
from collections.abc import Iterator, Sequence

from tests.secret_families import Trial
from tests.secret_families_round22 import _NATO, _pin, drawn_trials, halved, replied

_SPLIT = "\u241e"
"""Between the companion's message before and the user's message."""

_WORDS = str.split(
    "otter mango tractor saffron juniper velvet quokka nutmeg cobalt pretzel "
    "heron paprika tundra walrus"
)
_SIGNS = "!#$%&*?@_"


def _drawn(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def _password(rng: random.Random) -> str:
    """A word with a sign and a number ("Quokka!38"), two words joined
    ("velvet-tractor-7"), two words with signs for letters
    ("m@ngo*her0n") or twelve random characters."""
    first, second = rng.sample(_WORDS, 2)
    return rng.choice(
        [
            first.capitalize() + rng.choice(_SIGNS) + str(rng.randint(10, 999)),
            f"{first}-{second}-{rng.randint(1, 99)}",
            first.replace("a", "@") + rng.choice("*!#") + second.replace("o", "0"),
            _drawn(rng, string.ascii_letters + string.digits + "!#%", 12),
        ]
    )


def _otp(rng: random.Random) -> str:
    return _drawn(rng, string.digits, 6)


def _three(rng: random.Random) -> str:
    """Three 8-digit backup codes said as a list ("A, B and C")."""
    codes = [_drawn(rng, string.digits, 8) for _ in range(3)]
    return f"{codes[0]}, {codes[1]} and {codes[2]}"


def _spelled(rng: random.Random) -> str:
    """A password a letter at a time: "k-i-w-i-7-7", "K I W I 7 7"."""
    value = rng.choice(_WORDS)[: rng.randint(4, 6)] + str(rng.randint(10, 99))
    return rng.choice(["-", " ", ", ", "."]).join(value)


def _nato(rng: random.Random) -> str:
    """ "H as in hotel, U, N, T...": the first letter by its word, the rest alone."""
    value = rng.choice(_WORDS)[:5] + str(rng.randint(1, 9))
    head = f"{value[0].upper()} as in {_NATO[value[0]]}"
    return ", ".join([head, *value[1:].upper()])


_SLOTS = {
    "pw": _password,
    "pin": _pin,
    "otp": _otp,
    "three": _three,
    "spelled": _spelled,
    "nato": _nato,
}
_ENDINGS = ["", "", ".", " lol", " 🙏", " cheers", " ok?", " ty"]

MARKDOWN = [
    "**Password:** {pw}",
    "| service | password |\n|---|---|\n| wifi | {pw} |",
    "the router one is `{pw}` if you need it",
    "- **PIN**: {pin}",
    "### Wifi\n`{pw}`",
    "> **alarm code** {pin}",
    "__password__ = {pw}",
    "new password is **{pw}** (old one crossed out)",
]

QUOTED = [
    "> your temporary password is {pw}\nwhat do I do with this?",
    "---------- Forwarded message ---------\nFrom: IT Helpdesk\nSubject: account reset\n\n"
    "Your new password is {pw}",
    'the landlord replied: "gate code is {pin}, see you Friday"',
    "On Tue, Maria wrote:\n> the wifi pass is {pw}\nthanks Maria!",
    "fwd: your one-time passcode for the portal is {otp}",
    "copying what the school sent: Parent login password: {pw}",
    "> > PIN for the car share: {pin}\nfrom the group chat",
    "Begin forwarded message:\n\nYour Airbnb door code is {pin}.",
]

SCREEN_TEXT = [
    "screenshot of my phone says: Your verification code is {otp}",
    "the notification said '{otp} is your Instagram code. Don't share it.'",
    "voicemail transcript: hi this is the bank, your temporary PIN is {pin}, thanks",
    "text from Uber: Your Uber code: {otp}. Never share this code.",
    "OCR of the card: Wi-Fi password {pw}",
    "the popup read: Use {otp} to verify your account",
    "voicemail: hey it's Tom, the lockbox code is {pin}, call me",
    "the sticker on the router: KEY {pw}",
]

COMMANDS = [
    "why does mysql -u root -p{pw} say access denied?",
    "I typed sshpass -p {pw} ssh pi@raspberrypi.local and it hangs",
    "is this right: curl -u bob:{pw} https://api.example.com/me",
    "docker run -e POSTGRES_PASSWORD={pw} -d postgres fails on my mac",
    "what does psql 'postgresql://ana:{pw}@db.local/app' mean by no route?",
    "I ran htpasswd -b .htpasswd admin {pw} but apache ignores it",
    "smbclient //nas/share -U lucia%{pw} keeps timing out",
    "echo {pw} | sudo -S apt update <- is that safe?",
]

SHORT_FORMS = [
    "my passwrod is {pw}",
    "pasword for the wifi: {pw}",
    "pw {pw}",
    "pwd is {pw}",
    "passwd = {pw}",
    "p/w {pw}",
    "PIN# {pin}",
    "pword for netflix is {pw}",
]

EMOJI = [
    "🔑 {pw}",
    "wifi 📶 {pw}",
    "🔐 pin: {pin}",
    "my 🔑 is {pw}",
    "🚪 code {pin}",
    "🔒 {pin} 🔒 (bike lock)",
    "netflix 🍿 password {pw}",
    "🏧 {pin} <- card pin",
]

NAMED_AFTER = [
    "{three}: those are my three backup codes",
    "{pw} - that's the new wifi password",
    "{pin}, that's the garage code",
    "{pw}. that's what I set for the router",
    "{three} are the recovery codes for my bank",
    "{pin} is the alarm code, don't forget",
    "{pw} <- password for the shared drive",
    "{pin} (the pin for my new card)",
]

REPEATED = [
    "it's {pw}, that's {pw} with a capital",
    "pin {pin}, I repeat {pin}",
    "the password is {pw}... {pw}, got it?",
    "code {pin}. again: {pin}",
    "wifi password {pw} - yes {pw}, weird I know",
    "my pin is {pin}, {pin}, remember it",
    "the password is {pw} (that's {pw})",
    "door code {pin}. {pin}!",
]

SPELLED = [
    "my password, spelled out: {spelled}",
    "the wifi password is {nato}",
    "password is {spelled} all lower case",
    "spelling the router password for you: {nato}",
    "the pw, letter by letter: {spelled}",
    "ok the code word is {nato}",
    "it's {spelled}, that's the laptop password",
    "my password: {nato}",
]

LANGUAGES = [
    "ereygayga sirta ah waa {pw}",
    "iphasiwedi yam ngu-{pw}",
    "ny tenimiafiko dia {pw}",
    "mítt loyniorð er {pw}",
    "mia pasvorto estas {pw}",
    "ko taku kupuhipa ko {pw}",
    "modpas mwen se {pw}",
    "مېنىڭ پارولۇم {pw}",
]


def _watched(slot: str, value: str) -> tuple[str, ...]:
    """What of *value* must be gone: each of three backup codes, a value
    spelt out every three of its letters, any other value whole."""
    if slot == "three":
        return tuple(value.replace(",", " ").replace(" and ", " ").split())
    if slot in ("spelled", "nato"):
        sep = next(s for s in (", ", "-", ".", " ") if s in value)
        units = value.split(sep)
        return tuple(sep.join(units[i : i + 3]) for i in range(0, len(units) - 1, 3))
    return (value,)


FAMILIES: dict[str, Sequence[str]] = {
    "markdown": MARKDOWN,
    "quoted": QUOTED,
    "screen": SCREEN_TEXT,
    "command": COMMANDS,
    "short": SHORT_FORMS,
    "emoji": EMOJI,
    "namedafter": NAMED_AFTER,
    "repeated": REPEATED,
    "spelled": SPELLED,
    "language": LANGUAGES,
}

NEGATIVES: dict[str, Sequence[str]] = {
    "markdown": [
        "**Password:** see the manager",
        "| item | price |\n|---|---|\n| coffee | 3.50 |",
        "run `git pull` first",
        "- **PIN**: required at checkout",
        "### Meeting\n`14:30` in room 204",
        "> **alarm** goes off at 6",
        "__init__.py is empty",
        "the password field is **required**",
    ],
    "quoted": [
        "> your password has been changed\nwas that you?",
        "On Tue, Maria wrote:\n> dinner is at 19:30\nsee you!",
        'the landlord replied: "rent is $1200, due on the 1st"',
        "fwd: your order 40318822 has shipped",
        "Begin forwarded message:\n\nYour flight BA2490 leaves at 09:15.",
        "> > the meeting moved to room 114\nfrom the group chat",
    ],
    "screen": [
        "voicemail: hi it's Dr Lee, call me back at 555 0142",
        "screenshot says the store opens at 09:30",
        "the notification said your parcel 20261130 is out for delivery",
        "Your verification code expired, request a new one",
        "voicemail transcript: your appointment is at 4:15 in room 212",
        "the popup read: update available, version 14.2",
    ],
    "command": [
        "I ran mysql -u root -p and it asked for the password",
        "curl -I https://example.com returns 404",
        "docker run -p 8080:80 -d nginx works fine",
        "ssh -p 2222 bob@host.local times out",
        "sudo apt install -y postgresql-15 worked",
        "git commit -m 'fix the login page' did nothing",
        "passwd asks for the current password first, right?",
        "echo $PATH | tr ':' '\\n' prints nothing",
    ],
    "short": [
        "I forgot my pasword again",
        "the pw reset link expired",
        "pwd prints the folder you are in",
        "my PIN# is on the card",
        "the file is p/w protected",
        "passwd: all authentication tokens updated successfully",
        "the pword thing is annoying",
        "PW 4 is the maternity ward",
    ],
    "emoji": [
        "🔑 lost my keys again",
        "wifi 📶 down since 9",
        "🔐 turned on 2FA everywhere",
        "🍿 movie night at 8",
        "🚪 the door is stuck",
        "🏧 took out 60 euros",
    ],
    "namedafter": [
        "12, 14 and 16: those are the gate numbers",
        "2019, 2020 and 2021 were rough years",
        "9:30 - that's when the alarm goes off",
        "204, that's the room number",
        "BA2490 is the flight, don't forget",
        "$45 <- price for the shared drive",
    ],
    "repeated": [
        "it's Tuesday, that's Tuesday not Thursday",
        "room 204, I repeat 204",
        "the flight is BA2490... BA2490, got it?",
        "the password is wrong, wrong again",
        "my pin is on the card, the card!",
        "dinner at 7. 7!",
    ],
    "spelled": [
        "my name is spelled K-A-T-E",
        "the street is M as in Mike, A, I, N",
        "the password is case sensitive, spell it out",
        "it's spelled s-c-h-e-d-u-l-e in American",
    ],
    "language": [
        "waan ilaaway ereygayga sirta ah",
        "ndilibele iphasiwedi yam",
        "hadinoko ny tenimiafiko",
        "eg havi gloymt loyniorðið",
        "mi forgesis mian pasvorton",
        "kua wareware i ahau taku kupuhipa",
        "mwen bliye modpas mwen",
        "مەن پارولۇمنى ئۇنتۇپ قالدىم",
    ],
}

_REPLIES = [""]
"""The companion's question is the message before: nothing between."""


def trials(family: str, draws: int, seed: int = 0) -> Iterator[Trial]:
    """*draws* trials of each of *family*'s templates (a split one read
    after the companion's message before it)."""
    drawn = drawn_trials(
        "round36", family, FAMILIES[family], draws, seed, _SLOTS, _ENDINGS, _watched
    )
    return replied(drawn, _SPLIT, _REPLIES, random.Random(f"{seed}-round36-replies"))


def negatives(family: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """Everyday texts of *family*'s look, each with its half and the message it follows."""
    return halved(NEGATIVES[family], _SPLIT)
