"""Round 28's held-out families of secrets, none of them a template of the
earlier generators, from places earlier rounds did not visit: a password
said in passing, in parentheses or between dashes ("the NAS (pw X) is
back up"); a meeting's transcript with speakers and times, or a voice
assistant told to remember one; an account's recovery key (Apple's,
1Password's Secret Key, WhatsApp's backup key, Tuta's code); a key in a
URL's fragment (a Mega link, a Bitwarden Send, PrivateBin, an OAuth
redirect's ``#access_token=``) or a notebook's token; Windows commands
(``cmdkey``, ``net user``, ``ConvertTo-SecureString -AsPlainText``,
``schtasks /RP``, ``netsh wlan``); infrastructure as code (Ansible's
``ansible_become_pass``, Terraform's tfvars and ``TF_VAR_``, ``vault kv
put``, ``pulumi config set --secret``, ``fly secrets set``); tools' own
dotfiles (rclone.conf, .pypirc, .s3cfg, .my.cnf, wpa_supplicant.conf,
msmtprc, muttrc, Maven's settings.xml); an encrypted file's password
(``7z -p``, ``gpg --passphrase``, ``openssl -pass pass:``, ``qpdf``);
other tools' password flags (``redis-cli -a``, ``sqlcmd -P``,
``ldapsearch -w``, ``xfreerdp /p:``, ``lftp -u``); SQL that sets one
(``ALTER USER``, ``SET PASSWORD``, ``createUser({pwd:})``); the word
for password in fourteen languages no round tried (Danish, Norwegian,
Romanian, Croatian, Bulgarian, Lithuanian, Latvian, Estonian, Swahili,
Persian, Catalan, Icelandic, Malay, Afrikaans); and a label and its value
in an export that escapes them (an iCalendar ``DESCRIPTION:`` with
``\\n``, JSON's ``\\n``, HTML tags, URL-encoding, quoted-printable).

Like rounds 22 to 27, a family is a list of templates, the even ones the
half rules may be written on ("in"), the odd ones held out ("out"); a
trial fills one with drawn values.  ``NEGATIVES`` are everyday texts of
the same look that hold none (an aside without a value, a transcript
about a password, a Mega link without its key, ``net use`` without a
password, a tfvars file of sizes, a ``.my.cnf`` without one, ``7z x``
that asks, ``redis-cli -h``, ``ALTER USER ... ACCOUNT UNLOCK``, a
sentence about a password in another language, an ICS event with a
room).  Counted by ``python -m tests.bench.secret_families --round 28``.
"""

# Bulgarian and Persian are written as people type them.
# ruff: noqa: RUF001

from __future__ import annotations

import random
import string
from collections.abc import Callable, Iterator, Sequence

from tests.secret_families import Trial
from tests.secret_families_round22 import (
    _ALNUM,
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
_UPPER_DIGITS = string.ascii_uppercase + string.digits
_URLSAFE = _ALNUM + "-_"
_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _apple_key(rng: random.Random) -> str:
    """An Apple account's recovery key: 28 capitals and digits in fours."""
    return "-".join(_drawn(rng, _UPPER_DIGITS, 4) for _ in range(7))


def _secret_key(rng: random.Random) -> str:
    """1Password's Secret Key: "A3-" and six groups."""
    groups = [_drawn(rng, _UPPER_DIGITS, n) for n in (6, 6, 5, 5, 5, 5)]
    return "-".join(["A3", *groups])


def _backup_key(rng: random.Random) -> str:
    """WhatsApp's end-to-end backup key: 64 digits, in fours."""
    return " ".join(_drawn(rng, string.digits, 4) for _ in range(16))


def _recovery_code(rng: random.Random) -> str:
    """A recovery code of small letters and digits (Bitwarden's, Tuta's)."""
    if rng.random() < 0.5:
        return _drawn(rng, string.ascii_lowercase + string.digits, 32)
    return " ".join(_drawn(rng, "0123456789abcdef", 4) for _ in range(16))


def _mega_key(rng: random.Random) -> str:
    return _drawn(rng, _URLSAFE, 43)


def _send_key(rng: random.Random) -> str:
    return _drawn(rng, _URLSAFE, 22)


def _paste_key(rng: random.Random) -> str:
    return _drawn(rng, _BASE58, 44)


def _notebook_token(rng: random.Random) -> str:
    return _drawn(rng, "0123456789abcdef", 48)


_SLOTS: dict[str, Callable[[random.Random], str]] = {
    "pw": _password,
    "ppw": _plain_password,
    "pin": _pin,
    "hex": _hex,
    "tok": _token,
    "apple": _apple_key,
    "skey": _secret_key,
    "wabk": _backup_key,
    "rcode": _recovery_code,
    "mega": _mega_key,
    "send": _send_key,
    "paste": _paste_key,
    "nbtok": _notebook_token,
}
_ENDINGS = ["", "", ".", " - thx", " 👍", " ok"]

ASIDE = [
    "got into the NAS (pw {pw}) and the backups are fine",
    "the guest wifi - {pw} - only works downstairs",
    "logged in as admin (password: {ppw}) and changed the DNS",
    "set up mum's tablet, passcode being {pin}, and installed WhatsApp",
    "the VPN is back (creds: ana / {ppw}) but slow",
    "mailed the accountant the PDF — password {pw} — this morning",
    "the shared drive [pw {pw}] has the contracts",
    "the alarm, code {pin}, is armed at night now",
]
TRANSCRIPT = [
    "[00:14:03] Speaker 2: yeah so the admin password is {ppw}, I'll change it later",
    "Alexa, remember that the garage code is {pin}",
    "Tom Becker  00:21\nThe wifi in the studio is {pw} by the way.",
    "Hey Google, note: safe combination {pin}",
    "00:03:41 Maria: and the login for the portal, it's {ppw}",
    "Siri, save a note: alarm code {pin}",
    "(transcribed) ...so the router password is {ppw} okay and then...",
    "Ana (10:02 AM): VPN password {ppw}, don't share",
]
RECOVERY = [
    "Apple recovery key: {apple}",
    "1Password Secret Key {skey}",
    "WhatsApp end-to-end encrypted backup key:\n{wabk}",
    "Bitwarden recovery code {rcode}",
    "my iCloud recovery key is {apple} (printed, in the drawer)",
    "Tuta recovery code: {rcode}",
    "Emergency Kit - Secret Key: {skey}",
    "64-digit encryption key for the chat backup: {wabk}",
]
FRAGMENT = [
    "https://mega.nz/file/8Fh1kTIK#{mega}",
    "https://app.example.com/callback#access_token={tok}&token_type=Bearer&expires_in=3600",
    "here's the file: https://send.bitwarden.com/#Q2hpY2tlbnM/{send}",
    "https://privatebin.net/?4f1c2a9be3d07a65#{paste}",
    "the notebook: http://127.0.0.1:8888/lab?token={nbtok}",
    "folder link https://mega.nz/folder/Xk9DRQ6b#{mega} (all the photos)",
    "redirected to https://localhost:3000/#id_token={tok}&state=xyz",
    "open http://localhost:8888/tree?token={nbtok} in the browser",
]
WINDOWS = [
    "cmdkey /add:fileserver /user:ACME\\ana /pass:{ppw}",
    "net user backup {ppw} /add",
    "$pw = ConvertTo-SecureString '{pw}' -AsPlainText -Force",
    'schtasks /create /tn Backup /tr backup.cmd /ru ACME\\svc /rp "{ppw}"',
    'netsh wlan set hostednetwork mode=allow ssid=Lab key="{ppw}"',
    "Set-LocalUser -Name admin -Password (ConvertTo-SecureString {ppw} -AsPlainText -Force)",
    "runas /user:ACME\\admin cmd, then it asked and I typed {ppw}",
    "cmdkey /generic:TERMSRV/host01 /user:admin /pass:{ppw}",
]
IAC = [
    'ansible-playbook site.yml --extra-vars "ansible_become_pass={ppw}"',
    'db_password = "{ppw}"\ndb_user     = "app"',
    "export TF_VAR_db_password={ppw}",
    "vault kv put secret/app db_password={ppw}",
    "pulumi config set --secret dbPassword {ppw}",
    "ansible_user: deploy\nansible_password: {ppw}",
    "fly secrets set DATABASE_PASSWORD={ppw}",
    'gh secret set DEPLOY_TOKEN --body "{tok}"',
]
DOTFILES = [
    "[gdrive]\ntype = drive\nclient_secret = {tok}\ntoken = {{}}",
    "[pypi]\nusername = __token__\npassword = pypi-{tok}",
    "[default]\naccess_key = AKIAEXAMPLE\nsecret_key = {hex}",
    "[client]\nuser=root\npassword={ppw}",
    'network={{\n    ssid="HomeNet"\n    psk="{ppw}"\n}}',
    "account gmail\nhost smtp.gmail.com\nuser ana@gmail.com\npassword {ppw}",
    'set imap_pass = "{ppw}"',
    "<server>\n  <id>nexus</id>\n  <username>deploy</username>\n  <password>{ppw}</password>",
]
ARCHIVE = [
    "7z a -p{ppw} backup.7z ~/Documents",
    "the PDF from the bank opens with {pin}",
    "gpg --batch --passphrase {ppw} -d notes.gpg",
    "rar a -hp{ppw} photos.rar photos/",
    "openssl enc -aes-256-cbc -in db.sql -out db.enc -pass pass:{ppw}",
    "the zip's password is {pw}",
    "qpdf --password={ppw} --decrypt payslip.pdf out.pdf",
    "the encrypted USB stick: {pw}",
]
CLIFLAGS = [
    "redis-cli -h cache -a {ppw} ping",
    "sqlcmd -S db01 -U sa -P {ppw} -Q 'select 1'",
    "ldapsearch -x -D cn=admin,dc=acme -w {ppw} -b dc=acme",
    "xfreerdp /v:10.0.0.9 /u:admin /p:{ppw}",
    "lftp -u ana,{ppw} ftp.example.com",
    "rabbitmqctl add_user monitor {ppw}",
    "wget --user=ana --password={ppw} https://files.example.com/report.csv",
    "mosquitto_passwd -b /etc/mosquitto/passwd sensor {ppw}",
]
SQL = [
    "ALTER USER app WITH PASSWORD '{ppw}';",
    "SET PASSWORD FOR 'ana'@'localhost' = '{ppw}';",
    "CREATE ROLE reporting LOGIN PASSWORD '{ppw}';",
    'db.createUser({{user: "app", pwd: "{ppw}", roles: ["readWrite"]}})',
    "ALTER LOGIN sa WITH PASSWORD = '{ppw}';",
    "GRANT ALL ON shop.* TO 'ana'@'%' IDENTIFIED BY '{ppw}';",
    "CREATE LOGIN reader WITH PASSWORD = '{ppw}';",
    "alter user system identified by {ppw};",
]
LANGUAGE = [
    "Min adgangskode til netbanken er {pw}",
    "Passordet til wifi er {pw}",
    "Parola de la wifi este {pw}",
    "Lozinka za wifi je {pw}",
    "Паролата за wifi е {pw}",
    "Mano slaptažodis: {pw}",
    "Wifi parole ir {pw}",
    "Wifi parool on {pw}",
    "Nenosiri la wifi ni {pw}",
    "رمز عبور وای فای {pw} است",
    "La contrasenya del wifi és {pw}",
    "Lykilorðið er {pw}",
    "Kata laluan wifi ialah {pw}",
    "Die wagwoord vir die wifi is {pw}",
]
ESCAPED = [
    "DESCRIPTION:Door code {pin}\\nWi-Fi: {ppw}\\nSee you there",
    '{{"note": "login for the shop\\npassword: {ppw}\\nuser: ana"}}',
    "<p><b>Password:</b> {ppw}</p>",
    "body=username%3Dana%26password%3D{ppw}",
    "Your temporary password is=3D {ppw}=20",
    "<tr><td>Wi-Fi password</td><td>{ppw}</td></tr>",
    "NOTE:alarm {pin}\\, wifi pw {ppw}",
    "msg=%22the+pin+is+{pin}%22",
]
_REPLIES = ["", "", "Noted.", "Got it."]


def trials(family: str, draws: int, seed: int = 0) -> Iterator[Trial]:
    """*draws* trials of each of *family*'s templates (a split one read
    after the message before it)."""
    drawn = drawn_trials(
        "round28", family, FAMILIES[family], draws, seed, _SLOTS, _ENDINGS, _watched
    )
    return replied(drawn, _SPLIT, _REPLIES, random.Random(f"{seed}-round28-replies"))


def _watched(slot: str, value: str) -> tuple[str, ...]:
    """What of *value* must be gone: a key in groups by its groups of
    four or more (no part of it may stand), any other secret whole."""
    if slot in {"wabk", "rcode"} and " " in value:
        groups = value.split()
        return tuple(" ".join(groups[i : i + 2]) for i in range(0, len(groups), 2))
    return (value,)


FAMILIES: dict[str, Sequence[str]] = {
    "aside": ASIDE,
    "transcr": TRANSCRIPT,
    "recovery": RECOVERY,
    "fragment": FRAGMENT,
    "windows": WINDOWS,
    "iac": IAC,
    "dotfiles": DOTFILES,
    "archive": ARCHIVE,
    "cliflags": CLIFLAGS,
    "sql": SQL,
    "language": LANGUAGE,
    "escaped": ESCAPED,
}

NEGATIVES: dict[str, Sequence[str]] = {
    "aside": [
        "got into the NAS (finally) and the backups are fine",
        "the guest wifi - the one on the sticker - only works downstairs",
        "logged in as admin (after two tries) and changed the DNS",
        "set up mum's tablet, password manager and all, in 20 minutes",
        "the VPN is back (since 10:30) but slow",
    ],
    "transcr": [
        "[00:14:03] Speaker 2: yeah so the admin password expired, I'll reset it later",
        "Alexa, remind me at 7 to take the bins out",
        "Tom Becker  00:21\nThe wifi in the studio is down again.",
        "Hey Google, set a timer for 12 minutes",
        "00:03:41 Maria: and the login for the portal, it's on the wiki",
    ],
    "recovery": [
        "Apple recovery key: turn it on in Settings > Sign-In & Security",
        "1Password asks for the Secret Key on each new device",
        "WhatsApp backup is 2.4 GB, last run 03:00",
        "Bitwarden recovery code is in the safe, not here",
        "the recovery key is printed and in the drawer",
    ],
    "fragment": [
        "https://mega.nz/file/8Fh1kTIK (ask me for the key)",
        "https://docs.python.org/3/library/re.html#regular-expression-syntax",
        "https://example.com/page#section-2",
        "https://github.com/acme/app/blob/main/README.md#installation",
        "the notebook: http://127.0.0.1:8888/lab (token in the terminal)",
    ],
    "windows": [
        "cmdkey /list",
        "net use Z: \\\\nas\\share /persistent:yes",
        "$cred = Get-Credential",
        "schtasks /query /tn Backup",
        "netsh wlan show profiles",
    ],
    "iac": [
        "ansible-playbook site.yml --ask-become-pass",
        'instance_type = "t3.small"\nregion        = "eu-west-1"',
        "export TF_VAR_region=eu-west-1",
        "vault kv get secret/app",
        "pulumi config set aws:region eu-west-1",
    ],
    "dotfiles": [
        "[gdrive]\ntype = drive\nscope = drive",
        "[pypi]\nusername = __token__",
        "[default]\nhost_base = s3.amazonaws.com\nuse_https = True",
        "[client]\nuser=root\nhost=localhost",
        'network={\n    ssid="HomeNet"\n    key_mgmt=WPA-PSK\n}',
    ],
    "archive": [
        "7z x backup.7z (it asks for the password)",
        "the PDF from the bank opens with Acrobat only",
        "gpg --decrypt notes.gpg",
        "rar a photos.rar photos/",
        "openssl enc -aes-256-cbc -in db.sql -out db.enc",
    ],
    "cliflags": [
        "redis-cli -h cache -p 6379 ping",
        "sqlcmd -S db01 -E -Q 'select 1'",
        "ldapsearch -x -b dc=acme '(uid=ana)'",
        "xfreerdp /v:10.0.0.9 /u:admin",
        "lftp ftp.example.com",
    ],
    "sql": [
        "ALTER USER app ACCOUNT UNLOCK;",
        "SELECT user, host FROM mysql.user;",
        "CREATE ROLE reporting NOLOGIN;",
        'db.createUser({user: "app", roles: ["readWrite"]})',
        "ALTER LOGIN sa ENABLE;",
    ],
    "language": [
        "Jeg har glemt min adgangskode igen",
        "Passordet må ha minst 12 tegn",
        "Parola este prea scurtă",
        "Zaboravio sam lozinku za wifi",
        "Паролата е твърде кратка",
        "La contrasenya ha caducat",
    ],
    "escaped": [
        "DESCRIPTION:Room 4.12\\nBring the slides\\nSee you there",
        '{"note": "call the plumber\\nmonday 10:30"}',
        "<p><b>Password:</b> use the one from the letter</p>",
        "body=username%3Dana%26remember%3Dtrue",
        "<tr><td>Wi-Fi</td><td>ask at the desk</td></tr>",
    ],
}


def negatives(family: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """*family*'s everyday texts: each one's half, its text and what it follows."""
    return halved(NEGATIVES[family], _SPLIT)
