"""Round 32's held-out families of secrets, none of them a template of the
earlier generators, from places earlier rounds did not visit: shell history
with its timestamps (zsh's ``: 1700000000:0;``, bash's ``HISTTIMEFORMAT``,
fish's ``- cmd:``); VPN configs (IPsec's ``: PSK "X"``, OpenVPN's inline
``<auth-user-pass>``, L2TP's, strongSwan's ``secret =``); SIP and VoIP
accounts (Asterisk's ``secret=``, PJSIP's ``password=``, a desk phone's
web form); a password said with a speaker's fillers ("uh, it's, um, X");
a spreadsheet's formulas and macros (``=IF(A2="X"``, VBA's
``Protect Password:="X"``); a JSON log line whose message holds escaped
JSON (``\\"password\\":\\"X\\"``); YAML's block scalars (``password: |``);
network gear's command line (Cisco's ``enable secret``, MikroTik's
``password=``, ``snmp-server community``); services' admin commands
(``rabbitmqctl add_user``, MinIO's ``mc alias set``, Redis' ``CONFIG SET
requirepass``); macOS's keychain and Apple's tools (``security
add-generic-password -w``, ``notarytool --password``); installers'
answer files (cloud-init's ``chpasswd``, Kickstart's ``rootpw``, a
preseed's ``passwd/root-password``, autounattend.xml); backup tools'
repository passphrases (``BORG_PASSPHRASE``, ``RESTIC_PASSWORD``, a
``borg init`` prompt answered).

Like rounds 22 to 31, a family is a list of templates, the even ones the
half rules may be written on ("in"), the odd ones held out ("out"); a
trial fills one with drawn values.  ``NEGATIVES`` are everyday texts of
the same look that hold none (history without a credential, a VPN's other
settings, a SIP account's server, fillers before no value, a formula
comparing a cell, a log line about a password, a block scalar of prose, a
router's other commands, a service's other commands, a keychain looked
up, an answer file's other answers, a backup run with a password file).
Counted by ``python -m tests.bench.secret_families --round 32``.
"""

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
_ALNUM = string.ascii_letters + string.digits


def _psk(rng: random.Random) -> str:
    """A VPN's pre-shared key: 20 to 32 letters and digits."""
    return _drawn(rng, _ALNUM, rng.choice([20, 24, 32]))


def _sip_secret(rng: random.Random) -> str:
    """A SIP account's secret as a PBX makes one: 12 to 16 letters and digits."""
    return _drawn(rng, _ALNUM, rng.choice([12, 16]))


_SLOTS: dict[str, Callable[[random.Random], str]] = {
    "pw": _password,
    "ppw": _plain_password,
    "pin": _pin,
    "hex": _hex,
    "tok": _token,
    "psk": _psk,
    "sip": _sip_secret,
}
_ENDINGS = ["", "", ".", " ty", " 🙏", " (sorry)"]

HISTORY = [
    ": 1700000000:0;mysql -u root -p{ppw} shop",
    "  512  2026-12-01 10:02:13 sshpass -p {ppw} ssh ana@nas",
    "- cmd: psql postgresql://app:{ppw}@db.internal/app\n  when: 1700000000",
    ": 1700000123:4;export DB_PASSWORD={ppw}",
    "  77  2026-11-30 22:41:09 curl -u ana:{ppw} https://nas.local/api",
    "#1700000000\nredis-cli -a {ppw} ping",
    "~/.zsh_history:\n: 1701234567:0;docker login -u ana -p {ppw}",
    "history | grep pass\n  431  2026-12-01 09:12:55 mysql -uroot -p{ppw}",
]
VPN = [
    '# /etc/ipsec.secrets\n%any %any : PSK "{psk}"',
    "<auth-user-pass>\nana\n{ppw}\n</auth-user-pass>",
    "conn office\n  authby=secret\n  left=%defaultroute\n  right=vpn.acme.com\n"
    '# ipsec.secrets: vpn.acme.com : PSK "{psk}"',
    "L2TP/IPsec setup - server: vpn.acme.com, pre-shared key: {psk}, user ana, password {ppw}",
    "secrets {{\n  ike-office {{\n    secret = {psk}\n  }}\n}}",
    "nmcli con mod office vpn.secrets 'password={ppw}'",
    "IPsec PSK: {psk}\nXAUTH user: ana / {ppw}",
    "the vpn shared secret is {psk}, ask me for the user",
]
SIP = [
    "[6001]\ntype=friend\nhost=dynamic\nsecret={sip}\ncontext=internal",
    "[6001-auth]\ntype=auth\nauth_type=userpass\nusername=6001\npassword={sip}",
    "SIP account: 6001@pbx.acme.com, auth password {sip}",
    "sip:6001:{sip}@pbx.acme.com",
    "Extension 6001 / Secret: {sip} / Server: pbx.acme.com",
    "linphonec> register sip:6001@pbx.acme.com pbx.acme.com {sip}",
    "desk phone web UI -> Account 1 -> Authentication Password: {sip}",
    "voip provider login: 0301234567, sip password {sip}",
]
SPOKEN = [
    "uh, the password, it's, um, {ppw}",
    "so the wifi is, like, uh, {ppw}, I think",
    "the code is, uh, hmm, {pin}",
    "yeah so um the login is ana and the, uh, the password is {ppw} okay",
    "pin's, er, {pin}, yeah",
    "and the, the, um, router password is... {ppw}",
    "okay um it's it's {ppw} for the nas",
    "you know the, uh, alarm? it's, like, {pin}",
]
FORMULA = [
    '=IF(B2="{ppw}","ok","wrong password")',
    'ActiveSheet.Protect Password:="{ppw}"',
    'Sub Unlock()\n    ThisWorkbook.Unprotect "{ppw}"\nEnd Sub',
    '=HYPERLINK("https://ana:{ppw}@nas.local/files","NAS")',
    '=CONCATENATE("pw: ","{ppw}")',
    'Worksheets("Data").Unprotect Password:="{ppw}"',
    "sheet protection password is {ppw}",
    '=VLOOKUP("{ppw}",Passwords!A:B,2,FALSE)',
]
JSONLOG = [
    '{{"level":"debug","msg":"request body: {{\\"user\\":\\"ana\\",\\"password\\":\\"{ppw}\\"}}"}}',
    '{{"ts":"2026-12-01T10:02:13Z","msg":"login","body":"{{\\"password\\": \\"{ppw}\\"}}"}}',
    '{{"level":"warn","message":"retrying with password=\\"{ppw}\\""}}',
    '{{"event":"auth","payload":"{{\\"api_token\\":\\"{tok}\\"}}"}}',
    '{{"msg":"config loaded","db":"{{\\"pass\\":\\"{ppw}\\",\\"host\\":\\"db\\"}}"}}',
    '"args": "[\\"--password\\", \\"{ppw}\\"]"',
    'log: "{{\\"secret\\":\\"{ppw}\\"}}"',
    '{{"stderr":"mysql -uroot -p\\"{ppw}\\" failed"}}',
]
YAMLBLOCK = [
    "db:\n  password: |\n    {ppw}\n  host: db.internal",
    "stringData:\n  password: |-\n    {ppw}",
    "smtp:\n  pass: >-\n    {ppw}",
    "api_token: >\n  {tok}\nregion: eu",
    "credentials:\n  secret: |\n    {ppw}\n",
    'password: "{ppw}" # quoted, no block\nuser: ana',
    "env:\n  - name: DB_PASSWORD\n    value: |\n      {ppw}",
    "token: |\n  {tok}",
]
NETGEAR = [
    "enable secret 0 {ppw}",
    "username admin privilege 15 password 0 {ppw}",
    "/user add name=ana group=full password={ppw}",
    "snmp-server community {ppw} RO",
    "/interface wireless security-profiles set default wpa2-pre-shared-key={ppw}",
    "line vty 0 4\n password {ppw}\n login",
    "set system login user ana authentication plain-text-password-value {ppw}",
    "configure wifi: ssid HomeNet key {ppw}",
]
SVCADMIN = [
    "rabbitmqctl add_user ana {ppw}",
    "mc alias set local http://127.0.0.1:9000 minioadmin {ppw}",
    "redis-cli CONFIG SET requirepass {ppw}",
    "rabbitmqctl change_password ana {ppw}",
    "influx setup --username ana --password {ppw} --org acme --bucket data --force",
    "couchbase-cli cluster-init -c localhost --cluster-username admin --cluster-password {ppw}",
    "elasticsearch-reset-password -u elastic\nNew value: {ppw}",
    'mongosh admin --eval \'db.createUser({{user:"ana",pwd:"{ppw}",roles:["root"]}})\'',
]
KEYCHAIN = [
    "security add-generic-password -a ana -s github -w {ppw}",
    "xcrun notarytool store-credentials AC_PASS --apple-id ana@me.com --password {ppw}",
    "security unlock-keychain -p {ppw} ~/Library/Keychains/login.keychain-db",
    "xcrun altool --upload-app -f app.ipa -u ana@me.com -p {ppw}",
    "security add-internet-password -a ana -s nas.local -w '{ppw}'",
    "FASTLANE_PASSWORD={ppw} fastlane release",
    "$ security find-generic-password -s github -w\n{ppw}",
    "security create-keychain -p {ppw} build.keychain",
]
INSTALLER = [
    "#cloud-config\nchpasswd:\n  list: |\n    ana:{ppw}\n  expire: false",
    "rootpw --plaintext {ppw}",
    "d-i passwd/root-password password {ppw}\nd-i passwd/root-password-again password {ppw}",
    "<AdministratorPassword>\n  <Value>{ppw}</Value>\n  <PlainText>true</PlainText>\n"
    "</AdministratorPassword>",
    "users:\n  - name: ana\n    plain_text_passwd: {ppw}\n    lock_passwd: false",
    "user ana --password={ppw} --plaintext",
    "d-i passwd/user-password password {ppw}",
    "autologon: <Password><Value>{ppw}</Value></Password>",
]
BACKUP = [
    "export BORG_PASSPHRASE='{ppw}'\nborg create ::daily ~/docs",
    "RESTIC_PASSWORD={ppw} restic -r /srv/restic backup ~",
    "borg init -e repokey /mnt/backup\nEnter new passphrase: {ppw}\n"
    "Enter same passphrase again: {ppw}",
    "duplicity --encrypt-key ABCD1234 ~/docs file:///mnt/bk  # PASSPHRASE={ppw}",
    "kopia repository create filesystem --path /mnt/bk --password {ppw}",
    "restic init\nenter password for new repository: {ppw}",
    "the borg repo passphrase is {ppw}, keep it with the key export",
    "PASSPHRASE={ppw} duplicity ~/docs sftp://ana@nas//backup",
]

_REPLIES = ["", "", "Noted.", "Got it."]


def trials(family: str, draws: int, seed: int = 0) -> Iterator[Trial]:
    """*draws* trials of each of *family*'s templates (a split one read
    after the message before it)."""
    drawn = drawn_trials(
        "round32", family, FAMILIES[family], draws, seed, _SLOTS, _ENDINGS, _watched
    )
    return replied(drawn, _SPLIT, _REPLIES, random.Random(f"{seed}-round32-replies"))


def _watched(slot: str, value: str) -> tuple[str, ...]:
    """What of *value* must be gone: the secret whole."""
    del slot
    return (value,)


FAMILIES: dict[str, Sequence[str]] = {
    "history": HISTORY,
    "vpn": VPN,
    "sip": SIP,
    "spoken": SPOKEN,
    "formula": FORMULA,
    "jsonlog": JSONLOG,
    "yamlblock": YAMLBLOCK,
    "netgear": NETGEAR,
    "svcadmin": SVCADMIN,
    "keychain": KEYCHAIN,
    "installer": INSTALLER,
    "backup": BACKUP,
}

NEGATIVES: dict[str, Sequence[str]] = {
    "history": [
        ": 1700000000:0;git pull --rebase",
        "  512  2026-12-01 10:02:13 passwd",
        ": 1700000123:4;ssh -i ~/.ssh/id_ed25519 ana@nas",
        "- cmd: ls -la ~/passwords\n  when: 1700000000",
    ],
    "vpn": [
        "conn office\n  authby=secret\n  right=vpn.acme.com\n  auto=start",
        "auth-user-pass /etc/openvpn/creds.txt",
        "the vpn asks for a pre-shared key, where do I find it?",
        "IPsec PSK: see the admin vault entry 'office vpn'",
    ],
    "sip": [
        "[6001]\ntype=friend\nhost=dynamic\ncontext=internal",
        "SIP server: pbx.acme.com, port 5060, transport UDP",
        "sip:6001@pbx.acme.com",
        "Extension 6001 / Server: pbx.acme.com / Codec: G722",
    ],
    "spoken": [
        "uh, the password, it's, um, on the sticker",
        "so the wifi is, like, uh, really slow today",
        "the code is, uh, hmm, somewhere in my email",
        "pin's, er, the one I always use, yeah",
    ],
    "formula": [
        '=IF(B2="","missing","ok")',
        "ActiveSheet.Protect DrawingObjects:=True",
        '=HYPERLINK("https://nas.local/files","NAS")',
        "=VLOOKUP(A2,Prices!A:B,2,FALSE)",
    ],
    "jsonlog": [
        '{"level":"info","msg":"password changed for user \\"ana\\""}',
        '{"level":"warn","msg":"invalid password","attempts":3}',
        '{"event":"auth","payload":"{\\"user\\":\\"ana\\",\\"method\\":\\"totp\\"}"}',
        '{"msg":"request body: {\\"password_length\\":12}"}',
    ],
    "yamlblock": [
        "description: |\n  Reset your password from the login page.",
        "password_policy: >-\n  at least 12 characters",
        "notes: |\n  the password lives in the vault",
        "script: |\n  echo starting\n  ./run.sh",
    ],
    "netgear": [
        "enable secret is set, ask Jonas for it",
        "snmp-server location Server Room 2",
        "/user add name=ana group=read",
        "line vty 0 4\n transport input ssh\n login local",
    ],
    "svcadmin": [
        "rabbitmqctl list_users",
        "mc alias list",
        "redis-cli CONFIG GET maxmemory",
        "rabbitmqctl set_permissions -p / ana '.*' '.*' '.*'",
    ],
    "keychain": [
        "security find-generic-password -s github",
        "xcrun notarytool submit app.zip --keychain-profile AC_PASS --wait",
        "security list-keychains",
        "security unlock-keychain ~/Library/Keychains/login.keychain-db",
    ],
    "installer": [
        "#cloud-config\nssh_pwauth: false\npackage_update: true",
        "rootpw --lock",
        "d-i passwd/root-login boolean false",
        "<PlainText>false</PlainText>",
    ],
    "backup": [
        "borg create ::daily ~/docs --stats",
        "restic -r /srv/restic --password-file ~/.restic-pw backup ~",
        "borg init -e repokey /mnt/backup",
        "RESTIC_REPOSITORY=/srv/restic restic snapshots",
    ],
}


def negatives(family: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """*family*'s everyday texts: each one's half, its text and what it follows."""
    return halved(NEGATIVES[family], _SPLIT)
