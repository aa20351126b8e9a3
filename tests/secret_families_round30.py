"""Round 30's held-out families of secrets, none of them a template of the
earlier generators, from places earlier rounds did not visit: an
application's log lines (key=value, JSON, a traceback's locals, syslog); a
protocol's own transcript (IMAP's ``LOGIN``, FTP's and POP3's ``PASS``,
SMTP's ``AUTH PLAIN`` and ``AUTH LOGIN`` in base64, Redis' ``AUTH``,
NickServ's ``IDENTIFY``); the tools that join a Wi-Fi network (nmcli,
wpa_passphrase, iwctl, netsh's "Key Content", networksetup, adb);
a smart home's config (Home Assistant's secrets.yaml, ESPHome, Tasmota's
console, MQTT, a Hue bridge's key in its API path); game servers
(server.properties' ``rcon.password``, ``sv_password``, Valheim's
``-password``, AuthMe's ``/login``, Factorio's, ARK's ini); a Jupyter
notebook's JSON and its magics (``%env``, ``!pip`` with a password in
the index URL); a secret inside a task for the assistant ("translate
...", "fix my grammar ...", "write an email saying ..."); desktop
clients' saved sites (FileZilla's base64 ``<Pass>``, WinSCP's,
VS Code's SQLTools, s3cmd, Thunderbird's prefs.js, Remmina); the word for
password in sixteen languages no round tried (Swahili, Icelandic, Irish,
Galician, Mongolian, Sinhala, Khmer, Amharic, Burmese, Lao, Kyrgyz,
Hausa, Zulu, Malay, Luxembourgish, Romanian); a value corrected after a
typo ("*X", "s/old/new/", "I meant X"); a password given encoded (base64,
rot13, hex, reversed, URL-encoded, a Kubernetes secret decoded); and
accounts handed out (onboarding letters, an IT desk's reset, a school's
login, a Duo bypass code, a badge PIN).

Like rounds 22 to 29, a family is a list of templates, the even ones the
half rules may be written on ("in"), the odd ones held out ("out"); a
trial fills one with drawn values.  ``NEGATIVES`` are everyday texts of
the same look that hold none (a log's ordinary line, a protocol's other
commands, listing Wi-Fi networks, a config's other keys, a game server's
other settings, a notebook's other cells, the same tasks with no secret,
a client's host and port, a sentence about a password in each language,
a typo corrected, base64 of a greeting, a welcome letter's other news).
Counted by ``python -m tests.bench.secret_families --round 30``.
"""

# Mongolian, Kyrgyz, Sinhala and others are written as people type them.
# ruff: noqa: RUF001

from __future__ import annotations

import base64
import codecs
import random
import string
from collections.abc import Callable, Iterator, Sequence
from urllib.parse import quote

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
_ALNUM = string.ascii_letters + string.digits
_B64 = _ALNUM + "+/"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _b64_password(rng: random.Random) -> str:
    """A password in base64, as FileZilla saves it or someone sends it."""
    return _b64(_plain_password(rng))


def _sasl_plain(rng: random.Random) -> str:
    """SMTP's or IMAP's AUTH PLAIN: base64 of NUL, the user, NUL, the password."""
    return _b64(f"\0ana\0{_plain_password(rng)}")


def _rot13(rng: random.Random) -> str:
    return codecs.encode(_plain_password(rng), "rot13")


def _hex_password(rng: random.Random) -> str:
    """A password's bytes in hex ("48756e7465723221")."""
    return _plain_password(rng).encode().hex()


def _reversed(rng: random.Random) -> str:
    return _plain_password(rng)[::-1]


def _url_encoded(rng: random.Random) -> str:
    """A password with signs, URL-encoded ("Tortuga%2388")."""
    return quote(_password(rng), safe="")


def _esphome_key(rng: random.Random) -> str:
    """ESPHome's API encryption key: 32 random bytes in base64."""
    return _b64("".join(chr(rng.randrange(256)) for _ in range(32)))[:43] + "="


def _hue_key(rng: random.Random) -> str:
    """A Hue bridge's application key: 40 letters and digits."""
    return _drawn(rng, _ALNUM, 40)


def _network_key(rng: random.Random) -> str:
    """Zigbee2MQTT's network key: sixteen bytes as numbers."""
    return ", ".join(str(rng.randrange(256)) for _ in range(16))


def _aws_secret(rng: random.Random) -> str:
    return _drawn(rng, _B64, 40)


def _openai(rng: random.Random) -> str:
    return "sk-proj-" + _drawn(rng, _ALNUM, 48)


def _bypass(rng: random.Random) -> str:
    """A Duo bypass code: nine digits."""
    return _drawn(rng, "123456789", 1) + _drawn(rng, string.digits, 8)


_SLOTS: dict[str, Callable[[random.Random], str]] = {
    "pw": _password,
    "ppw": _plain_password,
    "old": _plain_password,
    "pin": _pin,
    "hex": _hex,
    "tok": _token,
    "b64pw": _b64_password,
    "plain": _sasl_plain,
    "rot13": _rot13,
    "hexpw": _hex_password,
    "rev": _reversed,
    "urlenc": _url_encoded,
    "esp": _esphome_key,
    "hue": _hue_key,
    "netkey": _network_key,
    "aws": _aws_secret,
    "openai": _openai,
    "bypass": _bypass,
}
_ENDINGS = ["", "", ".", " ty", " 🙏", " (sorry)"]

LOGS = [
    "2026-12-01T10:02:13Z INFO auth: login ok user=ana password={ppw}",
    '{{"ts":"2026-12-01T10:02:13Z","level":"debug","msg":"connect","user":"ana",'
    '"password":"{ppw}"}}',
    "[DEBUG] payload={{'username': 'ana', 'password': '{pw}'}}",
    "Dec  1 10:02:13 web01 app[812]: DEBUG smtp login ana@example.com / {ppw}",
    "Traceback (most recent call last):\n"
    '  File "app.py", line 12, in connect\n'
    "    db.login(user, password)\n"
    "    user = 'ana'\n"
    "    password = '{ppw}'\n"
    "OperationalError: FATAL: password authentication failed",
    "E1201 10:02:13.123 client.go:88] dial failed: token={tok}",
    "WARN  [main] RedisClient - AUTH {ppw} rejected by 10.0.0.7:6379",
    "INFO  launching worker with --admin-pass {ppw} --port 8080",
]
WIRE = [
    "a001 LOGIN ana {ppw}\na001 OK LOGIN completed",
    "USER ana\n331 Password required for ana\nPASS {ppw}\n230 Logged in",
    "EHLO laptop\n250-AUTH PLAIN LOGIN\nAUTH PLAIN {plain}\n235 2.7.0 Authentication successful",
    "127.0.0.1:6379> AUTH {ppw}\nOK",
    "AUTH LOGIN\n334 VXNlcm5hbWU6\nYW5h\n334 UGFzc3dvcmQ6\n{b64pw}\n235 Authentication succeeded",
    "/msg NickServ IDENTIFY {ppw}",
    "+OK POP3 ready\nUSER ana\n+OK\nPASS {ppw}\n+OK 3 messages",
    "a1 AUTHENTICATE PLAIN\n+\n{plain}\na1 OK Success",
]
WIFITOOLS = [
    "nmcli dev wifi connect Casa_Sol password {ppw}",
    "wpa_passphrase Casa_Sol {ppw} >> /etc/wpa_supplicant/wpa_supplicant.conf",
    "iwctl --passphrase {ppw} station wlan0 connect Casa_Sol",
    "netsh wlan show profile name=Casa_Sol key=clear\n"
    "    Authentication         : WPA2-Personal\n"
    "    Key Content            : {ppw}",
    "networksetup -setairportnetwork en0 Casa_Sol {ppw}",
    "adb shell cmd wifi connect-network Casa_Sol wpa2 {ppw}",
    'nmcli con modify Casa_Sol wifi-sec.psk "{pw}"',
    "sudo raspi-config nonint do_wifi_ssid_passphrase Casa_Sol {ppw}",
]
SMARTHOME = [
    "# secrets.yaml\nwifi_ssid: Casa_Sol\nwifi_password: {ppw}",
    'ota:\n  - platform: esphome\n    password: "{ppw}"',
    'api:\n  encryption:\n    key: "{esp}"',
    "Backlog SSID1 Casa_Sol; Password1 {ppw}",
    "mqtt:\n  broker: 192.168.1.10\n  username: ha\n  password: {ppw}",
    "advanced:\n  network_key: [{netkey}]",
    "curl http://192.168.1.2/api/{hue}/lights",
    "http:\n  api_password: {ppw}",
]
GAMES = [
    "enable-rcon=true\nrcon.port=25575\nrcon.password={ppw}",
    'sv_password "{ppw}"',
    'rcon_password "{ppw}"',
    './valheim_server.x86_64 -name "Vikings" -port 2456 -world Dedicated -password "{ppw}"',
    "/login {ppw}",
    "/register {ppw} {ppw}",
    '  "game_password": "{ppw}",',
    "[ServerSettings]\nServerPassword={ppw}\nServerAdminPassword={pw}",
]
NOTEBOOK = [
    '{{"cell_type": "code", "source": ["import openai\\n", "openai.api_key = \\"{openai}\\"\\n"]}}',
    '"source": ["%env DB_PASSWORD={ppw}"]',
    "%env OPENAI_API_KEY={openai}",
    "!pip install -i https://ana:{ppw}@pypi.acme.dev/simple acme-lib",
    '"source": ["password = \\"{ppw}\\"\\n", "conn = connect(host, user, password)"]',
    '"outputs": [{{"name": "stdout", "text": ["token: {tok}\\n"]}}]',
    "In [3]: pw = '{ppw}'",
    "os.environ['DB_PASS'] = '{ppw}'",
]
TASK = [
    "translate to Spanish: the wifi password is {pw}",
    "fix my grammar: my new pasword for the portal are {ppw}",
    "write an email to IT saying my new password is {pw} and it doesn't work",
    "make this sound polite: 'send me the alarm code, it's {pin}'",
    "summarize: Hi team, the staging admin login is admin / {ppw}, don't share it",
    "turn this into a table: gmail {ppw}, netflix {pw}",
    "put this in my notes: locker code {pin}",
    "write a text to Mia: the door code is {pin}, come in whenever",
]
CLIENTS = [
    "<Server>\n  <Host>ftp.acme.com</Host>\n  <User>ana</User>\n"
    '  <Pass encoding="base64">{b64pw}</Pass>\n</Server>',
    "[Sessions\\ana@ftp.acme.com]\nHostName=ftp.acme.com\nUserName=ana\nPassword={hex}",
    '"sqltools.connections": [{{"server": "db.acme.internal", "username": "ana", '
    '"password": "{ppw}"}}]',
    "[default]\naccess_key = AKIAIOSFODNN7EXAMPLE\nsecret_key = {aws}",
    'user_pref("mail.smtpserver.smtp1.password", "{ppw}");',
    '<entry key="password">{ppw}</entry>',
    "[remmina]\nserver=10.0.0.5\nusername=ana\npassword={b64pw}",
    "HostName=db.acme.internal\nUserName=ana\nPassword={ppw}\nPortNumber=3306",
]
LANGUAGE = [
    "Nenosiri la wifi ni {pw}",
    "Lykilorðið mitt er {pw}",
    "Is é mo phasfhocal ná {pw}",
    "O contrasinal do correo é {pw}",
    "Миний нууц үг бол {pw}",
    "මගේ මුරපදය {pw}",
    "ពាក្យសម្ងាត់របស់ខ្ញុំគឺ {pw}",
    "የይለፍ ቃሌ {pw} ነው",
    "ကျွန်တော့် စကားဝှက်က {pw} ပါ",
    "ລະຫັດຜ່ານຂອງຂ້ອຍແມ່ນ {pw}",
    "Менин сырсөзүм {pw}",
    "Kalmar sirrina ita ce {pw}",
    "Iphasiwedi yami ithi {pw}",
    "Kata laluan saya ialah {pw}",
    "Mäi Passwuert ass {pw}",
    "Parola mea de la bancă este {pw}",
]
CORRECT = [
    "the vpn password is {old}\u241e*{ppw}",
    "sorry typo, the wifi one is {pw} not {old}",
    "my netflix password is {old}\u241es/{old}/{ppw}/",
    "correction: the gate pin is {pin}, not what I said",
    "bank pw: {old}\u241eoops wrong one, use {ppw} instead",
    "the router login is {old}\u241eI meant {ppw}, autocorrect changed it",
    "edit: pw is actually {pw}",
    "door code is {pin}\u241eno wait, it's {ppw}",
]
ENCODED = [
    "here's the db password in base64 so it's not plain: {b64pw}",
    "pw (rot13): {rot13}",
    "the admin password hex-encoded: {hexpw}",
    "echo {b64pw} | base64 -d  # that's the admin password",
    "password reversed so bots don't read it: {rev}",
    'kubectl get secret db -o jsonpath="{{.data.password}}" | base64 -d\n{ppw}',
    "url-encoded the wifi password is {urlenc}",
    "PASSWORD_B64={b64pw}",
]
ONBOARD = [
    "Welcome aboard! Your temporary password is {pw} and must be changed at first login.",
    "Username: ab1234\nInitial password: {ppw}\nPlease change it within 7 days.",
    "IT here: I reset your account, new temp pw {ppw}, you'll be asked to set your own",
    "Student login for Sumdog: user jkoh3, pw {ppw}",
    "Guest Wi-Fi for the event: Acme-Guest / {ppw}",
    "Your Duo bypass code: {bypass}",
    "Badge PIN for the office door: {pin}",
    "Your account is ready. Sign in as ana.k with {ppw} and pick a new password.",
]
_REPLIES = ["", "", "Noted.", "Got it."]


def trials(family: str, draws: int, seed: int = 0) -> Iterator[Trial]:
    """*draws* trials of each of *family*'s templates (a split one read
    after the message before it)."""
    drawn = drawn_trials(
        "round30", family, FAMILIES[family], draws, seed, _SLOTS, _ENDINGS, _watched
    )
    return replied(drawn, _SPLIT, _REPLIES, random.Random(f"{seed}-round30-replies"))


def _watched(slot: str, value: str) -> tuple[str, ...]:
    """What of *value* must be gone: Zigbee's network key's every four
    numbers (no part of it may stand), any other secret whole."""
    if slot == "netkey":
        numbers = value.split(", ")
        return tuple(", ".join(numbers[i : i + 4]) for i in range(0, len(numbers), 4))
    return (value,)


FAMILIES: dict[str, Sequence[str]] = {
    "logs": LOGS,
    "wire": WIRE,
    "wifitools": WIFITOOLS,
    "smarthome": SMARTHOME,
    "games": GAMES,
    "notebook": NOTEBOOK,
    "task": TASK,
    "clients": CLIENTS,
    "language": LANGUAGE,
    "correct": CORRECT,
    "encoded": ENCODED,
    "onboard": ONBOARD,
}

NEGATIVES: dict[str, Sequence[str]] = {
    "logs": [
        "2026-12-01T10:02:13Z INFO auth: login ok user=ana",
        "[DEBUG] payload={'username': 'ana', 'remember': True}",
        'FATAL: password authentication failed for user "ana"',
        "Dec  1 10:02:13 web01 sshd[812]: Failed password for invalid user admin from "
        "10.0.0.5 port 51122 ssh2",
        "I1201 10:02:13.123 token refresh scheduled in 3600s",
        "WARN  [main] RedisClient - connection refused by 10.0.0.7:6379",
    ],
    "wire": [
        "a001 LOGOUT\n* BYE IMAP4rev1 Server logging out",
        "USER ana\n331 Password required for ana",
        "AUTH PLAIN\n504 5.7.4 Unrecognized authentication type",
        "127.0.0.1:6379> GET session:42",
        "AUTH LOGIN\n334 VXNlcm5hbWU6",
        "/msg NickServ HELP REGISTER",
    ],
    "wifitools": [
        "nmcli dev wifi list",
        "netsh wlan show profiles",
        "iwctl station wlan0 get-networks",
        "networksetup -getairportnetwork en0",
        "nmcli con modify Casa_Sol ipv4.method auto",
        "sudo raspi-config nonint do_wifi_country PT",
    ],
    "smarthome": [
        "# secrets.yaml\nwifi_ssid: Casa_Sol",
        "ota:\n  - platform: esphome",
        "api:\n  reboot_timeout: 15min",
        "Backlog Power1 ON; Delay 10; Power1 OFF",
        "mqtt:\n  broker: 192.168.1.10\n  discovery: true",
        "curl http://192.168.1.2/api/config",
    ],
    "games": [
        "enable-rcon=false\nmotd=A Minecraft Server",
        'sv_cheats "0"',
        "/login with your Mojang account first",
        "./valheim_server.x86_64 -port 2456 -world Dedicated -public 1",
        "/register needs your password twice",
        '  "visibility": {"public": true},',
    ],
    "notebook": [
        '{"cell_type": "markdown", "source": ["# Results\\n"]}',
        "%env CUDA_VISIBLE_DEVICES=0",
        "!pip install -q transformers accelerate",
        '"source": ["password = getpass.getpass()\\n"]',
        '"outputs": [{"name": "stdout", "text": ["epoch 3: loss 0.21\\n"]}]',
        "In [3]: df.head()",
    ],
    "task": [
        "translate to Spanish: where is the train station?",
        "fix my grammar: I has forgot my password again",
        "write an email to IT saying my password doesn't work",
        "summarize: Hi team, staging is down until 3pm, don't deploy",
        "put this in my notes: dentist Tuesday 4:30",
        "write a text to Mia: the door is open, come in whenever",
    ],
    "clients": [
        "<Server>\n  <Host>ftp.acme.com</Host>\n  <Port>21</Port>\n</Server>",
        "[Sessions\\ana@ftp.acme.com]\nHostName=ftp.acme.com\nPortNumber=22",
        '"sqltools.connections": [{"server": "db", "askForPassword": true}]',
        "[default]\nhost_base = s3.amazonaws.com",
        'user_pref("mail.smtpserver.smtp1.username", "ana");',
        '<entry key="timeout">30</entry>',
    ],
    "language": [
        "Nimesahau nenosiri langu",
        "Ég gleymdi lykilorðinu",
        "Rinne mé dearmad ar mo phasfhocal",
        "Esquecín o contrasinal",
        "Нууц үгээ мартчихлаа",
        "Am uitat parola de la bancă",
    ],
    "correct": [
        "sorry typo, I meant Tuesday not Thursday",
        "s/teh/the/",
        "*their",
        "correction: the meeting is at 3, not 2",
        "oops wrong chat, ignore",
        "edit: added the link",
    ],
    "encoded": [
        "echo aGVsbG8gd29ybGQ= | base64 -d",
        "rot13 is not encryption",
        "the dump is hex-encoded, see dump.bin",
        "kubectl get secret db -o yaml",
        "base64 encode the image first",
        "reverse the list before sorting",
    ],
    "onboard": [
        "Welcome aboard! Your laptop will arrive Monday.",
        "Username: ab1234\nPlease change your password within 7 days.",
        "IT here: I reset your account, check your email for the link",
        "Guest Wi-Fi for the event is open, no password",
        "Badge pickup at reception from 9",
        "Your Duo enrollment link expires in 24 hours",
    ],
}


def negatives(family: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """*family*'s everyday texts: each one's half, its text and what it follows."""
    return halved(NEGATIVES[family], _SPLIT)
