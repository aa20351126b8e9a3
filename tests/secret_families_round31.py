"""Round 31's held-out families of secrets, none of them a template of the
earlier generators, from places earlier rounds did not visit: a diff or a
patch ("-password: old", "+password: new", a review's suggestion); a
container's command line (``docker run -e``, ``kubectl create secret
--from-literal``, ``helm --set``); database URLs and DSNs of more kinds
(``mongodb+srv``, ``redis://:X@``, JDBC's ``password=``, ODBC's ``PWD=``,
libpq's keywords); a password set before a command in its variable
(``PGPASSWORD=X pg_dump``, ``MYSQL_PWD``, ``smbclient -U ana%X``,
``htpasswd -b``); a secret left in a code comment (``# TODO remove:
pass=X``, ``<!-- pw -->``, SQL's ``--``); keystores (``keytool
-storepass``, ``jarsigner``, ``openssl pkcs12 -passout pass:X``, Gradle's
``storePassword``); commit messages and ``git log`` holding one; a
terminal's prompt and what was typed after it (``sudo``'s, ssh's
passphrase, git's "Password for"); OAuth's client secrets and token
responses; rows of a spreadsheet pasted with semicolons or tabs; a chat
log with timestamps and nicks; a device's label read off a sticker.

Like rounds 22 to 30, a family is a list of templates, the even ones the
half rules may be written on ("in"), the odd ones held out ("out"); a
trial fills one with drawn values.  ``NEGATIVES`` are everyday texts of
the same look that hold none (a diff's other lines, a container's other
options, a URL with no password, a command's other variables, a comment
about a password, a keystore's path, a commit about passwords, a prompt
answered by nothing shown, an OAuth request's public parts, a row of
names, a chat about logging in, a label's model and serial).
Counted by ``python -m tests.bench.secret_families --round 31``.
"""

from __future__ import annotations

import base64
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


def _b64_password(rng: random.Random) -> str:
    """A password in base64, as a Kubernetes secret's ``data`` holds it."""
    return base64.b64encode(_plain_password(rng).encode()).decode()


def _client_secret(rng: random.Random) -> str:
    """An OAuth client's secret: 32 to 40 letters, digits, "-" and "_"."""
    return _drawn(rng, _ALNUM + "-_", rng.choice([32, 35, 40]))


def _fritz_key(rng: random.Random) -> str:
    """A FRITZ!Box's Wi-Fi key as printed on its label: twenty digits."""
    return _drawn(rng, string.digits, 20)


def _wps(rng: random.Random) -> str:
    """A router's WPS PIN: eight digits."""
    return _drawn(rng, "123456789", 1) + _drawn(rng, string.digits, 7)


_SLOTS: dict[str, Callable[[random.Random], str]] = {
    "pw": _password,
    "ppw": _plain_password,
    "old": _plain_password,
    "pin": _pin,
    "hex": _hex,
    "tok": _token,
    "b64pw": _b64_password,
    "secret": _client_secret,
    "wps": _wps,
    "fritz": _fritz_key,
}
_ENDINGS = ["", "", ".", " ty", " 🙏", " (sorry)"]

DIFF = [
    "diff --git a/config.yml b/config.yml\n@@ -3,7 +3,7 @@ db:\n   host: db.internal\n"
    "-  password: {old}\n+  password: {ppw}\n   pool: 5",
    "can you review this?\n```diff\n- DB_PASS={old}\n+ DB_PASS={ppw}\n```",
    '@@ -12,4 +12,4 @@\n-SMTP_PASSWORD = "{old}"\n+SMTP_PASSWORD = "{ppw}"',
    "--- a/.env\n+++ b/.env\n@@ -1,2 +1,2 @@\n-REDIS_PASS={old}\n+REDIS_PASS={ppw}",
    "```suggestion\n  api_token: {tok}\n```\nuse the new token here",
    "git diff HEAD~1 -- settings.py\n-    'PASSWORD': '{old}',\n+    'PASSWORD': '{ppw}',",
    "patch: change line 14 from `pwd={old}` to `pwd={ppw}`",
    "> -  admin_password: {old}\n> +  admin_password: {ppw}\nLGTM once CI passes",
]
CONTAINER = [
    "docker run -d -e POSTGRES_PASSWORD={ppw} -p 5432:5432 postgres:16",
    "kubectl create secret generic db-creds --from-literal=username=app "
    "--from-literal=password={ppw}",
    "helm install my-redis bitnami/redis --set auth.password={ppw}",
    "podman run --env MYSQL_ROOT_PASSWORD={ppw} docker.io/library/mysql:8",
    "docker run -e 'RABBITMQ_DEFAULT_PASS={ppw}' rabbitmq:3-management",
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: {b64pw}",
    "docker exec -it db mysql -uroot -p{ppw}",
    "helm upgrade grafana grafana/grafana --set adminPassword='{ppw}' --reuse-values",
]
DSN = [
    "mongodb+srv://app:{ppw}@cluster0.ab12c.mongodb.net/prod?retryWrites=true",
    "REDIS_URL=redis://:{ppw}@cache.internal:6379/0",
    "jdbc:postgresql://db.internal:5432/app?user=app&password={ppw}&ssl=true",
    "Driver={{ODBC Driver 18 for SQL Server}};Server=tcp:sql01,1433;Database=crm;"
    "Uid=sa;Pwd={ppw};Encrypt=yes",
    'psql "host=db.internal port=5432 dbname=app user=app password={ppw} sslmode=require"',
    "amqp://guest:{ppw}@rabbit.internal:5672/%2F",
    "jdbc:mysql://db:3306/shop?user=shop&password={ppw}",
    "postgresql+psycopg2://etl:{ppw}@warehouse.internal/analytics",
]
ENVPREFIX = [
    "PGPASSWORD={ppw} pg_dump -h db.internal -U app app > app.sql",
    "MYSQL_PWD={ppw} mysqldump -u root shop > shop.sql",
    "smbclient //nas/share -U ana%{ppw}",
    "htpasswd -b /etc/nginx/.htpasswd ana {ppw}",
    "RSYNC_PASSWORD={ppw} rsync -av backup@nas::data /mnt/data",
    "sshpass -p '{ppw}' scp dump.sql ana@10.0.0.5:/tmp",
    "export PGPASSWORD='{ppw}'\npsql -h db.internal -U app",
    "ANSIBLE_BECOME_PASS={ppw} ansible-playbook site.yml",
]
COMMENT = [
    "# TODO remove before commit: pass={ppw}",
    "// temp creds for staging: admin / {ppw}",
    "<!-- admin pw: {ppw} -->",
    "-- connect as app, password {ppw}",
    "/* FIXME hardcoded password {ppw} */",
    "REM net use Z: \\\\nas\\share password is {ppw}",
    "    # old password was {old}, new one {ppw}",
    "' default login admin/{ppw}",
]
KEYSTORE = [
    "keytool -genkey -alias app -keystore app.jks -storepass {ppw} -keypass {ppw}",
    "jarsigner -keystore release.jks -storepass {ppw} app.apk release",
    "openssl pkcs12 -export -in cert.pem -inkey key.pem -out cert.p12 -passout pass:{ppw}",
    "signingConfigs {{\n    release {{\n        storeFile file('release.jks')\n"
    '        storePassword "{ppw}"\n        keyAlias "release"\n    }}\n}}',
    "storePassword={ppw}\nkeyPassword={ppw}\nkeyAlias=upload",
    "the .p12 export password is {ppw}",
    "keytool -list -v -keystore cacerts -storepass {ppw}",
    "server.ssl.key-store-password={ppw}",
]
COMMIT = [
    "git commit -m 'rotate db password to {ppw}'",
    "commit 3f2a9c1\nAuthor: Ana <ana@example.com>\n\n    set staging admin password {ppw}",
    'git commit -am "temp: hardcode redis pass {ppw}, revert later"',
    "a1b2c3d Change SMTP password to {ppw}",
    "squash this: 'fix login (pw is {ppw} now)'",
    "git log -p shows the old one: password={old}",
    "Merge pull request #42: new API token {tok}",
    "I accidentally committed my password {ppw} in the last commit, how do I remove it?",
]
PROMPT = [
    "[sudo] password for ana: {ppw}\nSorry, try again.",
    "Enter passphrase for key '/home/ana/.ssh/id_ed25519': {ppw}",
    "Password for 'https://ana@github.com': {tok}",
    "ana@10.0.0.5's password: {ppw}\nPermission denied, please try again.",
    "Enter PEM pass phrase: {ppw}\nVerifying - Enter PEM pass phrase: {ppw}",
    "Enter password: {ppw}\nERROR 1045 (28000): Access denied for user 'root'@'localhost'",
    "Enter new UNIX password: {ppw}\nRetype new UNIX password: {ppw}",
    "Vault password: {ppw}",
]
OAUTH = [
    "client_id=web-app&client_secret={secret}&grant_type=client_credentials",
    '{{"access_token": "{tok}", "token_type": "Bearer", "expires_in": 3600}}',
    "GOOGLE_CLIENT_SECRET={secret}",
    'curl -X POST https://auth.example.com/oauth/token -d "client_secret={secret}"',
    '"refresh_token": "{tok}",',
    "OIDC client secret: {secret}",
    "spring.security.oauth2.client.registration.github.client-secret={secret}",
    "here is the client secret for the azure app {secret}",
]
CSV = [
    "Site;User;Password\nbank;ana;{pw}\nmail;ana@x.com;{ppw}",
    "Name\tLogin\tPassword\nRouter\tadmin\t{ppw}",
    '"Service","Username","Password"\n"Netflix","ana@x.com","{pw}"',
    "system;user;pw;notes\nNAS;admin;{ppw};change yearly",
    "Konto;Benutzer;Passwort\nSparkasse;ana;{pw}",
    "host,port,user,pass\ndb.internal,5432,app,{ppw}",
    "site\tuser\tpwd\nwifi\t-\t{ppw}\nalarm\t-\t{pin}",
    "| account | pass |\n| gmail | {pw} |",
]
CHATLOG = [
    "[10:02] <ana> pw for the nas is {ppw}\n[10:03] <bob> thx",
    "12/01/2026, 10:02 - Ana: door code {pin}",
    "[2026-12-01 10:02:13] ana: the wifi key is {pw}",
    "10:02 <@ana> bob: try {ppw} for the root login",
    "ana — Today at 10:02\nstaging pass: {ppw}",
    "[10:02:13] <ana> !op pass {ppw}",
    "Ana [10:02 AM]: new vpn password {pw}",
    "<ana> password: {ppw}\n<bob> works, thanks",
]
STICKER = [
    "Model: FRITZ!Box 7590\nWLAN network key: {fritz}\nFRITZ!Box password: {ppw}",
    "SSID: Vodafone-4A2C\nWPA2 Key: {ppw}\nWPS PIN: {wps}",
    "Default login: admin\nDefault password: {ppw}\nS/N: 2216AB0042",
    "Wireless key: {ppw}   Serial: 0042-7781",
    "the sticker under the router says key {ppw}",
    "Network name: TP-Link_1A2B\nPassword/PIN: {wps}",
    "Admin password (printed on the back): {ppw}",
    "Label: SSID BT-9XQ2 / Wireless Key {ppw}",
]
_REPLIES = ["", "", "Noted.", "Got it."]


def trials(family: str, draws: int, seed: int = 0) -> Iterator[Trial]:
    """*draws* trials of each of *family*'s templates (a split one read
    after the message before it)."""
    drawn = drawn_trials(
        "round31", family, FAMILIES[family], draws, seed, _SLOTS, _ENDINGS, _watched
    )
    return replied(drawn, _SPLIT, _REPLIES, random.Random(f"{seed}-round31-replies"))


def _watched(slot: str, value: str) -> tuple[str, ...]:
    """What of *value* must be gone: the secret whole."""
    del slot
    return (value,)


FAMILIES: dict[str, Sequence[str]] = {
    "diff": DIFF,
    "container": CONTAINER,
    "dsn": DSN,
    "envprefix": ENVPREFIX,
    "comment": COMMENT,
    "keystore": KEYSTORE,
    "commit": COMMIT,
    "prompt": PROMPT,
    "oauth": OAUTH,
    "csv": CSV,
    "chatlog": CHATLOG,
    "sticker": STICKER,
}

NEGATIVES: dict[str, Sequence[str]] = {
    "diff": [
        "@@ -3,7 +3,7 @@ db:\n-  pool: 5\n+  pool: 10",
        "-  password_min_length: 8\n+  password_min_length: 12",
        "diff --git a/README.md b/README.md\n+Reset your password from the login page.",
        "- timeout: 30s\n+ timeout: 45s",
    ],
    "container": [
        "docker run -d -p 8080:80 -e TZ=Europe/Madrid nginx:1.27",
        "kubectl create secret generic db-creds --from-file=./password.txt",
        "helm install my-redis bitnami/redis --set auth.existingSecret=redis-pass",
        "docker run -e POSTGRES_PASSWORD_FILE=/run/secrets/db_pw postgres:16",
    ],
    "dsn": [
        "mongodb+srv://cluster0.ab12c.mongodb.net/prod?retryWrites=true",
        "jdbc:postgresql://db.internal:5432/app?ssl=true&sslmode=require",
        "Driver={ODBC Driver 18 for SQL Server};Server=tcp:sql01,1433;Trusted_Connection=yes",
        "redis://cache.internal:6379/0",
    ],
    "envprefix": [
        "PGHOST=db.internal pg_dump -U app app > app.sql",
        "TZ=UTC date",
        "htpasswd -c /etc/nginx/.htpasswd ana",
        "smbclient -L //nas -U ana",
    ],
    "comment": [
        "# TODO: read the password from the environment",
        "// password must be at least 12 characters",
        "<!-- password field below -->",
        "-- reset password flow, see ticket 4412",
    ],
    "keystore": [
        "keytool -list -v -keystore cacerts",
        "storeFile=release.jks\nkeyAlias=upload",
        "openssl pkcs12 -export -in cert.pem -inkey key.pem -out cert.p12",
        "server.ssl.key-store=classpath:keystore.p12",
    ],
    "commit": [
        "git commit -m 'add password strength meter'",
        "a1b2c3d Fix password reset email (#4412)",
        "commit 3f2a9c1\nAuthor: Ana <ana@example.com>\n\n    move secrets to vault",
        "git log --oneline -5",
    ],
    "prompt": [
        "[sudo] password for ana:\nSorry, try again.",
        "Enter passphrase for key '/home/ana/.ssh/id_ed25519':",
        "Password for 'https://ana@github.com':\nremote: Support for password authentication "
        "was removed.",
        "Enter password:\nWelcome to the MySQL monitor.",
    ],
    "oauth": [
        "client_id=web-app&grant_type=authorization_code&redirect_uri=https://app.example.com/cb",
        '{"token_type": "Bearer", "expires_in": 3600, "scope": "read"}',
        "where do I find the client secret in the azure portal?",
        "GOOGLE_CLIENT_ID=1234567890-abc.apps.googleusercontent.com",
    ],
    "csv": [
        "Name;City;Phone\nAna;Madrid;+34 600 123 456",
        "Item\tQty\tPrice\nBananas\t6\t1.20",
        '"Service","Username","Renewal"\n"Netflix","ana@x.com","2026-12-01"',
        "host,port,user\ndb.internal,5432,app",
    ],
    "chatlog": [
        "[10:02] <ana> did you reset your password?\n[10:03] <bob> yes",
        "12/01/2026, 10:02 - Ana: running 10 min late",
        "[2026-12-01 10:02:13] ana: meeting moved to 15:30",
        "10:02 <@ana> bob: try turning it off and on again",
    ],
    "sticker": [
        "Model: FRITZ!Box 7590\nS/N: 2216AB0042\nMAC: 3C:A6:2F:11:22:33",
        "SSID: Vodafone-4A2C\nFrequency: 5 GHz",
        "the sticker under the router says the model number",
        "Input: 12V 1.5A  Made in Taiwan",
    ],
}


def negatives(family: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """*family*'s everyday texts: each one's half, its text and what it follows."""
    return halved(NEGATIVES[family], _SPLIT)
