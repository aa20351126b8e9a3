"""Round 25's held-out families of secrets, none of them a template of the
earlier generators: a credential in reported speech without quotes ("she
said the code was 4471"); in Finnish, Hungarian, Turkish, Polish or Russian
with the word for password or PIN inflected ("salasanani", "jelszavam",
"şifremi", "hasłem", "паролем"); a router's, a NAS's, a camera's or
another device's admin login; a verification, pairing or app password
without a digit ("qwXyzAbcdEf", "abcd efgh ijkl mnop"); a base64 or hex key
named a sentence or a line earlier, not right before it; in a voice
transcript or an OCR'd screenshot or router sticker ("pass word : hunter
2", "Passvvord:", "WPA Key:"); in a JSON, YAML, TOML or INI snippet under
an unusual key ("secret_access_key", "rpcpassword", "psk"); in shell
history (``mysql -p``, ``htpasswd -b``, ``zip -P``, ``smbclient -U
user%pw``); in a git remote or credentials file; split over two messages
("what's the wifi?", then the value).

Like rounds 22 to 24, a family is a list of templates, the even ones the
half rules may be written on ("in"), the odd ones held out ("out"); a trial
fills one with drawn values.  ``NEGATIVES`` are everyday sentences of the
same look that hold none.  Counted by ``python -m tests.bench.secret_families``.
"""

# Turkish and Russian are written as people type them.
# ruff: noqa: RUF001

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable, Iterator, Sequence

from tests.secret_families import Trial
from tests.secret_families_round22 import (
    _basic,
    _drawn,
    _github,
    _gitlab,
    _hex,
    _password,
    _pin,
    _plain_password,
    drawn_trials,
    halved,
    replied,
)
from tests.secret_families_round24 import _temporary

_HEX = "0123456789abcdef"
_HEARD_WORDS = str.split("hunter kettle falcon Mango pebble Otter walrus lantern")
_SPLIT = "\u241e"
"""Between the message before and the message of a split template."""


def _letters(rng: random.Random) -> str:
    """A verification or invite token of letters alone, both cases: "qwXyzAbcdEf"."""
    while True:
        value = _drawn(rng, string.ascii_letters, rng.randint(11, 18))
        if sum(c.isupper() for c in value) >= 2 and sum(c.islower() for c in value) >= 2:
            return value


def _upper(rng: random.Random) -> str:
    """A pairing or activation code of capitals: "KXQZ-BWTR" or "QWHZKXMB"."""
    letters = "BCDFGHJKLMNPQRSTVWXZ"
    if rng.random() < 0.5:
        return f"{_drawn(rng, letters, 4)}-{_drawn(rng, letters, 4)}"
    return _drawn(rng, letters, 8)


def _app_password(rng: random.Random) -> str:
    """Google's app password (four groups of four small letters, spaced) or
    Apple's app-specific one (dashed)."""
    groups = [_drawn(rng, string.ascii_lowercase, 4) for _ in range(4)]
    return rng.choice([" ", "-"]).join(groups)


def _b64_key(rng: random.Random) -> str:
    """A symmetric key in base64: 16, 24 or 32 random bytes."""
    return base64.b64encode(rng.randbytes(rng.choice([16, 24, 32]))).decode()


def _hex_key(rng: random.Random) -> str:
    """A key in hex: 32, 40 or 64 digits."""
    return _drawn(rng, _HEX, rng.choice([32, 40, 64]))


def _heard(rng: random.Random) -> str:
    """A password as a transcript or OCR writes it, its number apart: "hunter 2"."""
    return f"{rng.choice(_HEARD_WORDS)} {rng.randint(1, 99)}"


_SLOTS: dict[str, Callable[[random.Random], str]] = {
    "pw": _password,
    "ppw": _plain_password,
    "pin": _pin,
    "hex": _hex,
    "github": _github,
    "gitlab": _gitlab,
    "basic": _basic,
    "temp": _temporary,
    "letters": _letters,
    "upper": _upper,
    "apppw": _app_password,
    "b64": _b64_key,
    "hexkey": _hex_key,
    "heard": _heard,
}
_ENDINGS = ["", "", ".", " 🙂", " kiitos", " köszi", " sağol", " dzięki", " спс"]

REPORTED = [
    "she said the code was {pin}",
    "he told me his password is {pw}",
    "my sister said the wifi was {pw}",
    "Tom mentioned the alarm code is {pin} now",
    "apparently the new gate code is {pin}",
    "the landlord says the key safe is {pin}",
    "mum told me her pin was {pin} but not to tell anyone",
    "IT said my temporary password would be {temp}",
    "he whispered that the safe was {pin}",
    "my boss told me the admin password was {pw}",
    "I was told the door code is {pin}",
    "she reckons the wifi is {pw}, try it",
    "Dad said his netflix was {pw}",
    "according to Ben, the router password is {pw}",
    "the neighbour told us their wifi is {pw}",
    "I heard the office alarm is {pin}",
]
INFLECTED = [
    "salasanani on {pw}",
    "salasanasi on {pw}",
    "vaihdoin wifin salasanaksi {pw}",
    "pankin tunnusluku on {pin}",
    "jelszavam {pw}",
    "a wifi jelszava: {pw}",
    "a PIN-kódom {pin}",
    "a jelszó {pw}",
    "e-posta şifremi {pw} olarak değiştirdim",
    "şifreniz: {pw}",
    "kartımın şifresi {pin}",
    "modemin şifresini {pw} yaptım",
    "zmieniłam hasło na {pw}",
    "hasłem do wifi jest {pw}",
    "пароль от почты {pw}",
    "паролем был {pw}",
    "поменял пароль на {pw}",
    "пин-код от подъезда {pin}",
    "PIN-koodini on {pin}",
    "salasanalla {pw} pääsee sisään",
]
DEVICE = [
    "router admin is {pw}",
    "the NAS login: admin / {ppw}",
    "camera's default creds are admin:{ppw}",
    "printer web panel: user admin, pw {pw}",
    "Synology login {user} {pw}",
    "the TP-Link admin password is {pw}",
    "ssh into the pi as pi with {ppw}",
    "ubiquiti controller - {user} / {pw}",
    "the doorbell app login is {user} and {pw}",
    "modem: admin/{ppw}",
    "Hikvision NVR admin pass {pw}",
    "the smart TV parental PIN is {pin}",
    "Home Assistant: {user} {ppw}",
    "iDRAC root / {ppw}",
    "the thermostat's installer code is {pin}",
    "pfSense webgui admin:{ppw}",
]
VERIFY = [
    "your verify token is {letters}",
    "verification token: {letters}",
    "confirm with this token {letters}",
    "the invite code is {letters}",
    "pairing code {upper}",
    "enter {upper} on the TV to link your account",
    "gmail app password {apppw}",
    "the activation key is {upper}",
    "recovery token {letters}",
    "use the access code {letters} to join",
    "session token={letters}",
    "the link code for the smart tv: {upper}",
    "app password for thunderbird: {apppw}",
    "Apple app-specific password {apppw}",
    "the claim token is {letters}",
    "your magic word for support is {letters}",
]
CONTEXT = [
    "here's the key for the backup bucket.\n\n{b64}",
    "the restic repo key, keep it safe:\n{b64}",
    "encryption key for the NAS volume\n{hexkey}",
    "Secret for the webhook, as promised. {hexkey}",
    "this is what the vendor sent for our API access.\n{b64}",
    "ok found it, the signing secret:\n\n{hexkey}",
    "the vault unseal key (1 of 3) is below\n{b64}",
    "copying the HMAC key from the old server\n\n{hexkey}",
    "backup passphrase for the encrypted drive. Don't lose it.\n{b64}",
    "master key for the password db, in case I die:\n{hexkey}",
    "API credential for the staging env ->\n{b64}",
    "and the private part of the token:\n{hexkey}",
]
TRANSCRIPT = [
    "pass word : {heard}",
    "PASS WORD: {heard}",
    "[00:01:12] Speaker 2: the password is {heard}",
    "Passvvord: {pw}",
    "Username: {user}\nPassvvord : {pw}",
    "PlN: {pin}",
    "uh the wifi password is um {heard}",
    "Pa55word; {pw}",
    "Speaker 1: what's the code\nSpeaker 2: it's {pin}",
    "WPA Key: {ppw}",
    "Network Key : {ppw}",
    "Wireless Password/PIN: {pin}",
    "P a s s w o r d : {pw}",
    "Wi-Fi Key {ppw}",
    "so the pass code is, uh, {heard}",
    "Passw ord: {ppw}",
]
SNIPPET = [
    '"secret_access_key": "{ppw}"',
    "passwd: {ppw}",
    "[auth]\npass = {ppw}",
    'smtp:\n  host: mail.example.com\n  passphrase: "{ppw}"',
    '[mail]\nsmtp_pwd = "{ppw}"',
    '{{"auth": {{"user": "{user}", "pw": "{ppw}"}}}}',
    "admin_pass: {ppw}",
    "[database]\nsecret = {hex}",
    "rpcpassword={ppw}",
    '<add key="SmtpPwd" value="{ppw}" />',
    '"credentials": {{ "login": "{user}", "key": "{hex}" }}',
    "vpn:\n  psk: {ppw}",
    "master_password = {ppw}",
    "[wifi]\nssid = Home\npsk = {ppw}",
    "encryption_key: {hex}",
    "ldap_bind_pw: {ppw}",
]
SHELL = [
    "export MYSQL_PWD={ppw}",
    "$ mysql -uroot -p{ppw} -e 'show databases'",
    "sshpass -p {ppw} scp backup.tar {user}@nas:/vol1",
    "htpasswd -b .htpasswd {user} {ppw}",
    "  512  mysqldump -u {user} -p{ppw} app > dump.sql",
    "echo {ppw} | docker login --username {user} --password-stdin",
    "openssl enc -aes-256-cbc -k {ppw} -in a.tar -out a.enc",
    "zip -P {ppw} secret.zip notes.txt",
    "7z a -p{ppw} backup.7z docs/",
    "smbclient //nas/share -U {user}%{ppw}",
    "redis-cli -a {ppw} ping",
    "unzip -P {ppw} archive.zip",
    "mongosh -u {user} -p {ppw} --authenticationDatabase admin",
    "echo '{user}:{ppw}' | chpasswd",
    "gpg --batch --passphrase {ppw} -d file.gpg",
    "wp user update 1 --user_pass={ppw}",
    "keytool -genkey -storepass {ppw} -keystore app.jks",
    "net use Z: \\\\nas\\share {ppw} /user:{user}",
]
REMOTE = [
    "origin\thttps://gitlab-ci-token:{gitlab}@gitlab.example.com/group/proj.git (fetch)",
    "url = https://{user}:{github}@github.com/ana/dotfiles.git",
    "git push https://x-access-token:{github}@github.com/org/repo.git HEAD:main",
    '[remote "origin"]\n\turl = https://{user}:{ppw}@bitbucket.org/team/site.git',
    "https://{user}:{ppw}@dev.azure.com/org/proj/_git/repo",
    "git remote add backup https://{user}:{ppw}@git.example.net/me/notes.git",
    "https://{github}:x-oauth-basic@github.com/ana/app.git",
    "git clone https://{user}:{hex}@huggingface.co/spaces/ana/demo",
    'git -c http.extraHeader="Authorization: Basic {basic}" clone https://git.example.com/r.git',
    "https://{ppw}@git.example.org/team/tools.git",
    "echo https://{user}:{ppw}@github.com >> ~/.git-credentials",
    "pip install git+https://{github}@github.com/org/private-lib.git",
]
SPLIT = [
    f"what's the wifi?{_SPLIT}{{pw}}",
    f"and the alarm?{_SPLIT}{{pin}}",
    f"remind me the nas admin password{_SPLIT}{{ppw}} I think",
    f"the code for the bike lock{_SPLIT}{{pin}}, same as the garage",
    f"ok I'll send you the vpn login{_SPLIT}{{user}} {{pw}}",
    f"mum's netflix{_SPLIT}{{pw}}",
    f"Password for the shared calendar?{_SPLIT}oh that's {{pw}}",
    f"new door code from Monday{_SPLIT}{{pin}}",
    f"the api key for the weather thing{_SPLIT}{{hexkey}}",
    f"gym locker code{_SPLIT}{{pin}}",
    f"what did you set the router to?{_SPLIT}{{pw}}",
    f"the pin for grandma's phone{_SPLIT}{{pin}} but she forgets it",
]
_REPLIES = ["", "", "Go ahead.", "Okay, what is it?", "Sure."]


def trials(family: str, draws: int, seed: int = 0) -> Iterator[Trial]:
    """*draws* trials of each of *family*'s templates (a split one read
    after the message before it, then Reverie's reply)."""
    drawn = drawn_trials(
        "round25", family, FAMILIES[family], draws, seed, _SLOTS, _ENDINGS, _watched
    )
    return replied(drawn, _SPLIT, _REPLIES, random.Random(f"{seed}-round25-replies"))


def _watched(slot: str, value: str) -> tuple[str, ...]:
    """What of *value* must be gone: all of it."""
    return (value,)


FAMILIES: dict[str, Sequence[str]] = {
    "reported": REPORTED,
    "inflected": INFLECTED,
    "device": DEVICE,
    "verify": VERIFY,
    "context": CONTEXT,
    "transcr": TRANSCRIPT,
    "snippet": SNIPPET,
    "shell": SHELL,
    "remote": REMOTE,
    "split": SPLIT,
}

_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "YPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
"""A one-pixel PNG, as a markdown image's data URL holds it."""
NEGATIVES: dict[str, Sequence[str]] = {
    "reported": [
        "she said the meeting was at 4",
        "he told me his password is too weak",
        "my sister said the wifi was slow",
        "Tom mentioned the alarm went off at 3",
        "apparently the new gate is broken",
        "the landlord says the key safe is by the door",
        "mum told me her pin was stolen with her purse",
        "IT said my password would expire in 14 days",
        "he whispered that the safe was empty",
        "my boss told me the deadline was 14 May",
        "I was told the door code is changing",
        "she said they moved in 2019",
    ],
    "inflected": [
        "salasanani on liian lyhyt",
        "unohdin salasanasi",
        "jelszavam elfelejtettem",
        "a wifi jelszava a routeren van",
        "şifremi değiştirdim",
        "şifreniz yanlış",
        "zmieniłam hasło wczoraj",
        "hasłem jest imię psa",
        "пароль от почты я забыл",
        "поменял пароль вчера",
        "PIN-koodini unohdin",
        "tapaaminen on kello 14.30",
    ],
    "device": [
        "the router admin page is slow",
        "the NAS login page won't load",
        "camera's default creds are printed on the box",
        "printer web panel is at 192.168.1.20",
        "Synology login failed twice",
        "the TP-Link admin password is on the sticker",
        "ssh into the pi as pi",
        "ubiquiti controller updated to 8.0.7",
        "the doorbell app login is broken",
        "modem: Fritz!Box 7590",
        "the smart TV parental controls are off",
        "Home Assistant 2024.3 is out",
    ],
    "verify": [
        "your verify token expired",
        "verification token: missing",
        "confirm with this token button",
        "the invite code is in the email",
        "pairing code appears on the TV",
        "enter the code shown on the TV to link your account",
        "gmail app password settings moved",
        "the activation key is printed inside the box",
        "recovery token sent",
        "use the access code from the letter",
        "session token expired, log in again",
        "the claim token is valid for an hour",
    ],
    "context": [
        "here's the checksum for the backup.\n\n"
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "the commit that fixed the key rotation:\n3f9a2c1b7e4d5f60a1b2c3d4e5f6a7b8c9d0e1f2",
        f"here's the logo for the backup page.\n\n![logo](data:image/png;base64,{_PNG})",
        "UUID of the backup volume\n550e8400-e29b-41d4-a716-446655440000",
        "the key takeaway from the audit:\n\nrotate everything yearly",
        "the request id for the failed upload was\n7f3c2a9e1b4d5f60a1b2c3d4e5f6a7b8",
        "md5 of the file, as promised. d41d8cd98f00b204e9800998ecf8427e",
        "the vault is sealed again\n\nno action needed",
    ],
    "transcr": [
        "pass word : forgotten",
        "PASS WORD: see the card",
        "[00:01:12] Speaker 2: the password is on the fridge",
        "Passvvord: ********",
        "PlN: not set",
        "uh the wifi is down um again",
        "Speaker 1: what's the code\nSpeaker 2: I forgot",
        "WPA Key: printed on the bottom",
        "Network Key : see label",
        "Wireless Password/PIN: see sticker",
        "so the pass code is, uh, somewhere",
        "Passw ord: required",
    ],
    "snippet": [
        '"secret_access_key": null',
        "passwd: /etc/passwd",
        "[auth]\nmethod = oauth",
        "smtp:\n  host: mail.example.com\n  port: 587",
        '[mail]\nsmtp_port = "587"',
        '{"auth": {"user": "ana", "mfa": true}}',
        "admin_pass_length: 12",
        "[database]\nhost = db.local",
        "rpcport=8332",
        '<add key="SmtpPort" value="587" />',
        "[wifi]\nssid = Home\nband = 5",
        "encryption_key: ${ENCRYPTION_KEY}",
    ],
    "shell": [
        "export PATH=$HOME/.local/bin:$PATH",
        "$ mysql -u root -p -e 'show databases'",
        "scp backup.tar ana@nas:/vol1",
        "htpasswd -c .htpasswd ana",
        "  512  mysqldump -u ana -p app > dump.sql",
        "docker login --username ana --password-stdin < token.txt",
        "zip -r secret.zip notes.txt",
        "7z a backup.7z docs/",
        "smbclient //nas/share -U ana",
        "redis-cli ping",
        "unzip archive.zip -d out/",
        "gpg -d file.gpg",
    ],
    "remote": [
        "origin\thttps://gitlab.example.com/group/proj.git (fetch)",
        "url = https://github.com/ana/dotfiles.git",
        "git push origin HEAD:main",
        '[remote "origin"]\n\turl = git@bitbucket.org:team/site.git',
        "https://dev.azure.com/org/proj/_git/repo",
        "git remote add backup https://git.example.net/me/notes.git",
        "git config --global credential.helper store",
        "pip install git+https://github.com/org/public-lib.git",
        "git clone https://huggingface.co/spaces/ana/demo",
        "echo https://github.com >> notes.txt",
    ],
    "split": [
        f"what's the wifi?{_SPLIT}no idea, ask Tom",
        f"and the alarm?{_SPLIT}it went off at 3",
        f"remind me the nas admin password{_SPLIT}it's in 1password",
        f"the code for the bike lock{_SPLIT}I forgot it",
        f"mum's netflix{_SPLIT}it's down again",
        f"new door code from Monday{_SPLIT}they'll text it",
        f"gym locker{_SPLIT}114, next to the sauna",
        f"what did you set the router to?{_SPLIT}channel 11",
        f"the pin for grandma's phone{_SPLIT}she doesn't have one",
        f"what time is dinner?{_SPLIT}7:30",
    ],
}


def negatives(family: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """*family*'s everyday texts: each one's half, its text and what it follows."""
    return halved(NEGATIVES[family], _SPLIT)
