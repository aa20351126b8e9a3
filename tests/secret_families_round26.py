"""Round 26's held-out families of secrets, none of them a template of the
earlier generators: a credential inside a forwarded e-mail or a quoted
reply ("---------- Forwarded message ----------", "> > the pw is X"); in a
support ticket or bug report ("Steps to reproduce: log in as a@x.com /
X"); in a spreadsheet pasted as TSV or CSV under a header row; in a
markdown table; in a password manager's export (1Password, Bitwarden,
KeePass, LastPass, Dashlane); as a list of ten 2FA backup codes; as a
wallet's seed phrase, numbered or not; in a connection string of another
kind (SQLAlchemy, Celery, Upstash, Cosmos DB, neo4j, JDBC for SQL Server);
in Docker and Kubernetes (``--docker-password``, a Secret's ``data:``,
``.dockerconfigjson``, ``--from-literal``, ``helm --set``); in a CI file
(``env:``, ``with: password:``, a Jenkinsfile); in an HTTP request copied
from the browser's devtools; in a URL's query or a magic link; and round
25's leftovers (a device's admin login, "admin is lumiere_9", a spaced app
password before "thanks", a git remote's token, a value sent after its
question).

Like rounds 22 to 25, a family is a list of templates, the even ones the
half rules may be written on ("in"), the odd ones held out ("out"); a
trial fills one with drawn values.  ``NEGATIVES`` are everyday texts of
the same look that hold none.  Counted by ``python -m tests.bench.secret_families``.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from collections.abc import Callable, Iterator, Sequence

from tests.secret_families import Trial
from tests.secret_families_round22 import (
    _CLASSIC,
    _aws_secret,
    _basic,
    _drawn,
    _github,
    _gitlab,
    _google,
    _hex,
    _jwt,
    _npm,
    _password,
    _pin,
    _plain_password,
    drawn_trials,
    halved,
    replied,
)
from tests.secret_families_round24 import _cookie, _shared_key, _temporary, _token
from tests.secret_families_round25 import _app_password

_SPLIT = "\u241e"
"""Between the message before and the message of a split template."""
_SITES = str.split("netflix amazon paypal dropbox github ikea lufthansa zalando spotify ebay")
_EMAILS = str.split("ana@example.com t.berg@mail.de qa+1@example.org lena.k@firma.de")
# Words of the BIP-39 list (every one of them in it), past its "a" words.
_SEED_WORDS = str.split(
    "bacon badge bamboo banana banner barely basket battle beach beauty become "
    "begin behave bench betray bicycle bitter blade blanket bleak bless blossom "
    "blouse board boost border borrow bounce bracket brain brass brave breeze brick "
    "brief brisk broccoli bronze broom bubble buddy budget buffalo bulb bundle "
    "bunker burden burger cabbage cabin cactus canal canoe canvas canyon carbon "
    "cargo carpet castle casual catalog cattle caution celery cement census cereal "
    "chalk chaos cherry chimney chuckle chunk cinnamon clarify claw clay clerk "
    "clever cliff clinic clog clown clump cluster clutch coconut coil comic coral "
    "cotton couch coyote cradle cram crane crater crawl creek cricket crisp crouch "
    "crumble crunch crystal cupboard curtain cushion dawn debris decade deer defy "
    "denial dentist deputy desert diesel dilemma dinosaur dizzy dolphin donkey "
    "draft dragon drastic drift drill dune dwarf"
)
_CODE_LETTERS = string.ascii_lowercase


def _email(rng: random.Random) -> str:
    return rng.choice(_EMAILS)


def _site(rng: random.Random) -> str:
    return rng.choice(_SITES)


def _backup_codes(rng: random.Random) -> list[str]:
    """Ten 2FA backup codes of one shape: "abcd-efgh" or Google's "1234 5678"."""
    if rng.random() < 0.5:
        return [
            f"{_drawn(rng, _CODE_LETTERS, 4)}-{_drawn(rng, _CODE_LETTERS, 4)}" for _ in range(10)
        ]
    return [f"{_drawn(rng, string.digits, 4)} {_drawn(rng, string.digits, 4)}" for _ in range(10)]


def _codes_lines(rng: random.Random) -> str:
    return "\n".join(_backup_codes(rng))


def _codes_columns(rng: random.Random) -> str:
    """Two columns, as a printed sheet of codes is copied."""
    codes = _backup_codes(rng)
    return "\n".join(f"{codes[i]}    {codes[i + 5]}" for i in range(5))


def _codes_numbered(rng: random.Random) -> str:
    return "\n".join(f"{n}. {code}" for n, code in enumerate(_backup_codes(rng), 1))


def _codes_inline(rng: random.Random) -> str:
    return ", ".join(_backup_codes(rng))


def _seed_words(rng: random.Random) -> list[str]:
    return rng.sample(_SEED_WORDS, rng.choice([12, 12, 24]))


def _seed(rng: random.Random) -> str:
    return " ".join(_seed_words(rng))


def _seed_numbered(rng: random.Random) -> str:
    """A phrase as a wallet shows it: "1. canvas 2. brisk ..." in a row or a column."""
    sep = rng.choice([" ", "\n", "  "])
    return sep.join(f"{n}. {word}" for n, word in enumerate(_seed_words(rng), 1))


def _b64(value: str) -> str:
    return base64.b64encode(value.encode()).decode()


def _b64_token(rng: random.Random) -> str:
    """A Kubernetes Secret's value: a token, base64 as ``data:`` holds it."""
    return _b64(_token(rng))


def _b64_password(rng: random.Random) -> str:
    return _b64(_plain_password(rng))


def _docker_config(rng: random.Random) -> str:
    """A ``.dockerconfigjson`` value: base64 of the JSON holding a registry's auth."""
    auths = {"auths": {"ghcr.io": {"auth": _basic(rng)}}}
    return _b64(json.dumps(auths, separators=(",", ":")))


def _classic(rng: random.Random) -> str:
    """A hand-made password of round 22's list ("lumiere_9")."""
    return rng.choice(_CLASSIC)


_SLOTS: dict[str, Callable[[random.Random], str]] = {
    "pw": _password,
    "pw2": _password,
    "ppw": _plain_password,
    "pin": _pin,
    "hex": _hex,
    "github": _github,
    "gitlab": _gitlab,
    "google": _google,
    "jwt": _jwt,
    "npm": _npm,
    "aws": _aws_secret,
    "basic": _basic,
    "temp": _temporary,
    "tok": _token,
    "cookie": _cookie,
    "sak": _shared_key,
    "apppw": _app_password,
    "classic": _classic,
    "codes": _codes_lines,
    "codecols": _codes_columns,
    "codenums": _codes_numbered,
    "codeline": _codes_inline,
    "seed": _seed,
    "seednum": _seed_numbered,
    "b64tok": _b64_token,
    "b64pw": _b64_password,
    "dockercfg": _docker_config,
    "email": _email,
    "site": _site,
    "site2": _site,
}
_ENDINGS = ["", "", ".", " thanks", " - thanks!", " 👍", " cheers"]

FORWARD = [
    "---------- Forwarded message ----------\nFrom: IT Helpdesk <it@example.com>\n"
    "Subject: Your new account\n\nHi,\nyour account {email} is ready.\n"
    "Temporary password: {temp}\nPlease change it when you first log in.",
    "On Mon, 3 Jun 2024 at 09:12, Lena <lena@example.com> wrote:\n"
    "> you can log in with {user} and {pw}\n> let me know if it works",
    "> > the new vpn password is {pw}\n> got it, thanks\nall set on my side",
    "Begin forwarded message:\n\nFrom: Bank <noreply@bank.example>\n"
    "Subject: Card PIN\n\nThe PIN for your new card is {pin}.",
    "FW: wifi for the offsite\n\nNetwork: Offsite-Guest\nPassphrase: {ppw}\n\nsee you there",
    "-----Original Message-----\nFrom: Tom\nSent: Tuesday\nSubject: RE: server\n\n"
    "root pw for the new box is {ppw}",
    "Fwd: from Dad\n> the garage door is {pin} now",
    "> On 12 Mar, admin@example.com wrote:\n>> Your one-time password: {temp}",
    "Re: access\n\n>> credentials: {user} / {pw}\n\nthanks, that worked",
    "[Forwarded]\nJonas: staging db pass is {ppw}, don't commit it",
    "--- forwarded ---\nfrom: landlord\nthe key safe code is {pin}, door sticks a bit",
    ">>> Maria wrote:\n>>> my icloud is {email}, pass {pw}",
]
TICKET = [
    "Steps to reproduce:\n1. Log in as {email} / {pw}\n2. Open Settings\n3. Click Save",
    "Bug: login fails for test account {email} (password {pw}) on Safari",
    "Repro: user={user} pass={ppw}, go to /admin, get a 500",
    "Ticket #4821 - customer can't log in. Their credentials: {email} pw {pw}. Please check.",
    "Test account for QA: {email} / {pw}",
    "Expected: login works with {user}:{ppw}\nActual: 401 Unauthorized",
    "To reproduce, sign in with the staging admin ({user} / {ppw}) and delete a row",
    "Environment: staging\nLogin: {email}\nPwd: {pw}\nBrowser: Firefox 126",
    "Customer gave their account PIN {pin} for verification on the call",
    "Please use the demo login: username {user}, password {pw}",
    "repro creds -> {email} : {pw}",
    "Internal note: reset the user's password to {temp} and told them by phone",
]
SHEET = [
    "Site\tLogin\tPassword\tNotes\n{site}\t{email}\t{pw}\tmain\n{site2}\t{email}\t{pw2}\tkids",
    "account,email,pwd\n{site},{email},{ppw}",
    "Service;User;Pass;PIN\n{site};{user};{pw};{pin}",
    "System\tAccount\tSecret\n{site}\t{user}\t{ppw}",
    '"Name","Login","Password"\n"{site}","{email}","{pw}"',
    "host,port,user,passwd\ndb1.local,5432,{user},{ppw}",
    "who\twhat\tpw\nMum\t{site}\t{pw}\nDad\t{site2}\t{pw2}",
    "Website,Username,Password,Last changed\n{site}.com,{email},{pw},2024-03-01",
    "device\tip\tadmin pass\nrouter\t192.168.1.1\t{ppw}",
    "Konto;Benutzer;Kennwort\n{site};{email};{pw}",
]
MDTABLE = [
    "| service | login | pass |\n|---------|-------|------|\n| {site} | {email} | {pw} |",
    "| Device | IP | Admin password |\n|:--|:--|:--|\n| Router | 192.168.1.1 | {pw} |\n"
    "| NAS | 192.168.1.5 | {pw2} |",
    "| Name | Username | Password | 2FA |\n| --- | --- | --- | --- |\n"
    "| {site} | {user} | `{pw}` | yes |",
    "|Account|Pin|\n|-|-|\n|Visa|{pin}|",
    "| key | value |\n|---|---|\n| user | {user} |\n| password | {ppw} |",
    "| env | db user | db password |\n| --- | --- | --- |\n| prod | {user} | {ppw} |",
    "Login | Pass\n--- | ---\n{email} | {pw}",
    "| What | Secret |\n| --- | --- |\n| wifi | {pw} |\n| alarm | {pin} |",
]
MANAGER = [
    "Title,Website,Username,Password,OTPAuth,Favorite,Archived,Tags,Notes\n"
    "{site},https://{site}.com,{email},{pw},,false,false,,",
    "folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,"
    "login_totp\n,,login,{site},,,0,https://{site}.com,{email},{ppw},",
    '"Group","Title","Username","Password","URL","Notes"\n'
    '"Root","{site}","{user}","{pw}","https://{site}.com",""',
    "name,url,username,password,note\n{site}.com,https://{site}.com/login,{email},{ppw},",
    "url,username,password,totp,extra,name,grouping,fav\n"
    "https://{site}.com,{email},{ppw},,,{site},Email,0",
    "Title,URL,Username,Password,Notes,OTPAuth\n{site},https://{site}.com,{email},{ppw},,",
    "{site}\nusername: {email}\npassword: {pw}\nNotes: recovery code {hex}",
    "username,username2,username3,title,password,note,url,category,otpSecret\n"
    "{email},,,{site},{ppw},,https://{site}.com,,",
    "Secure note: Safe\nCombination: {pin}\nlocation: wardrobe",
    "Item: {site}\nFields:\n  email = {email}\n  password = {pw}",
]
BACKUP = [
    "backup codes\n{codes}",
    "Here are your backup codes. Keep them somewhere safe.\n\n{codecols}",
    "2FA backup codes for {site}:\n{codes}",
    "Save these codes\n{codenums}",
    "recovery codes (each works once)\n{codenums}",
    "{site} 2fa: {codeline}",
    "BACKUP VERIFICATION CODES\n{email}\n\n{codecols}\n\nGenerated 2024-05-01",
    "emergency codes for my authenticator - {codeline}",
]
SEED = [
    "MetaMask Secret Recovery Phrase: {seed}",
    "my ledger's words\n{seed}",
    "Write down your recovery phrase:\n{seednum}",
    'mnemonic = "{seed}"',
    "seed: {seed}",
    "recovery phrase for the exodus wallet - {seed}",
    "{seednum}",
    "the words are {seed}",
    "phrase:\n{seednum}\n(don't lose this)",
    "BIP39: {seed}",
    "seed phrase (trezor):\n{seed}",
    "electrum seed {seed}",
]
CONNSTR = [
    'MONGO_URL="mongodb+srv://{user}:{ppw}@cluster1.x9yz.mongodb.net/prod?retryWrites=true"',
    "REDIS_URL=redis://:{ppw}@redis.internal:6379/1",
    "CELERY_BROKER_URL = 'amqp://{user}:{ppw}@mq.local:5672//'",
    "jdbc:sqlserver://sql01:1433;databaseName=app;user={user};password={ppw};encrypt=true",
    "Server=myServerAddress;Database=myDataBase;User Id={user};Password={ppw};",
    "jdbc:mariadb://db:3306/app?user={user}&password={ppw}&useSSL=true",
    "DATABASE_URL=mysql+pymysql://{user}:{ppw}@db.local/app?charset=utf8mb4",
    "rediss://default:{ppw}@eu1-redis.upstash.io:6379",
    "SQLALCHEMY_DATABASE_URI = 'postgresql+psycopg2://{user}:{ppw}@localhost/app'",
    "AccountEndpoint=https://acct.documents.azure.com:443/;AccountKey={sak};",
    "host=db.local port=5432 dbname=app user={user} password={ppw} sslmode=require",
    "DefaultEndpointsProtocol=https;AccountName=store1;AccountKey={sak};"
    "EndpointSuffix=core.windows.net",
    "neo4j+s://{user}:{ppw}@abc123.databases.neo4j.io",
    "nats://{user}:{ppw}@nats.local:4222",
]
CONTAINER = [
    "docker login registry.gitlab.com -u {user} -p {gitlab}",
    "kubectl create secret docker-registry regcred --docker-server=ghcr.io "
    "--docker-username={user} --docker-password={github}",
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\ndata:\n  username: YWRtaW4=\n"
    "  token: {b64tok}",
    '{{"auths": {{"ghcr.io": {{"auth": "{basic}"}}}}}}',
    "kubectl create secret generic db --from-literal=password={ppw}",
    "docker run -e POSTGRES_PASSWORD={ppw} -d postgres:16",
    "helm install app ./chart --set db.password={ppw}",
    "type: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: {dockercfg}",
    "docker login -p {ppw} -u {user} myregistry.azurecr.io",
    "podman login --password {ppw} --username {user} quay.io",
    "data:\n  DB_PASSWORD: {b64pw}\n  API_KEY: {b64tok}",
    "kubectl create secret generic api --from-literal=api-key={hex} -n prod",
    "docker run --env API_TOKEN={tok} app:latest",
    "helm upgrade web ./chart --set-string redis.auth.password={ppw}",
]
CI = [
    "env:\n  API_TOKEN: {tok}\n  NODE_ENV: production",
    "- uses: docker/login-action@v3\n  with:\n    username: {user}\n    password: {ppw}",
    'variables:\n  DEPLOY_KEY: "{hex}"',
    "steps:\n  - run: ./deploy.sh\n    env:\n      SLACK_WEBHOOK_TOKEN: {tok}",
    "environment {{\n    NEXUS_PASSWORD = '{ppw}'\n}}",
    "- name: Publish\n  run: npm publish\n  env:\n    NODE_AUTH_TOKEN: {npm}",
    "script:\n  - curl -u {user}:{ppw} https://repo.example.com/upload",
    "env:\n  global:\n    - SONAR_TOKEN={hex}",
    "with:\n  token: {github}\n  repository: org/app",
    "DOCKERHUB_PASSWORD: {ppw}  # TODO move to secrets",
    "variables:\n  AWS_SECRET_ACCESS_KEY: {aws}\n  AWS_DEFAULT_REGION: eu-west-1",
    "export SENTRY_AUTH_TOKEN={hex} && sentry-cli releases new v1",
]
DEVTOOLS = [
    "GET /api/v1/me HTTP/1.1\nHost: app.example.com\nAuthorization: Bearer {tok}\n"
    "Accept: application/json",
    "curl 'https://app.example.com/api/items' \\\n  -H 'accept: */*' \\\n"
    "  -H 'cookie: _ga=GA1.2.123; sessionid={cookie}' \\\n  --compressed",
    ":authority: api.example.com\n:method: GET\nauthorization: Bearer {tok}\n"
    "user-agent: Mozilla/5.0",
    "curl 'https://api.example.com/v2/search' -H 'X-Api-Key: {hex}' "
    "-H 'Content-Type: application/json'",
    "cookie: PHPSESSID={cookie}; lang=en",
    'fetch("https://app.example.com/graphql", {{"headers": {{"authorization": "Bearer {tok}"}}, '
    '"method": "POST"}});',
    "POST /login HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\n"
    "username={user}&password={ppw}",
    "curl 'https://x.example.com/' -H 'Authorization: Basic {basic}'",
    "Request Headers\nx-session-token: {tok}\naccept-language: en-GB",
    "set-cookie: auth_token={tok}; Path=/; Secure; HttpOnly",
    '{{"name": "Authorization", "value": "Bearer {tok}"}}',
    "-H 'x-access-token: {tok}'",
]
QUERY = [
    "https://app.example.com/dashboard?access_token={tok}&view=week",
    "https://storage.example.com/f/report.pdf?expires=1717171717&sig={tok}",
    "https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={google}",
    "here's the magic link: https://app.example.com/login/magic/{tok}",
    "https://example.com/account/confirm?email={email}&token={tok}",
    "https://api.example.com/feed.xml?apikey={hex}",
    "https://example.zoom.us/j/81234567890?pwd={tok}",
    "wss://live.example.com/ws?jwt={jwt}",
    "https://cdn.example.com/video.mp4?Expires=1717&Signature={tok}&Key-Pair-Id=APKA123",
    "https://drive.example.com/invite?invite_code={tok}",
    "https://auth.example.com/oauth/token?client_id=app&client_secret={hex}",
    "open this to sign in: https://example.com/l/{tok}",
]
LEFTOVER = [
    "192.168.0.1 login is admin and the password is {ppw}",
    "the printer's admin is {classic}",
    "ok so the router admin is {classic}",
    "the camera's admin is {classic}",
    "here's the app password {apppw} thanks",
    "app pw {apppw} thanks!",
    "origin  https://{user}:{github}@github.com/me/site.git (push)",
    "git remote set-url origin https://{user}:{gitlab}@gitlab.example.com/me/site.git",
    f"wifi pw pls{_SPLIT}{{pw}}",
    f"hey whats the wifi here{_SPLIT}{{pw}}",
    f"do you have the guest network password?{_SPLIT}yes: {{pw}}",
    f"what's the code for the side door?{_SPLIT}{{pin}}",
    "NAS admin / {classic}",
    "the switch's login: admin, {classic}",
]
_REPLIES = ["", "", "Go ahead.", "Okay, what is it?", "Sure."]


def trials(family: str, draws: int, seed: int = 0) -> Iterator[Trial]:
    """*draws* trials of each of *family*'s templates (a split one read
    after the message before it, then Reverie's reply)."""
    drawn = drawn_trials(
        "round26", family, FAMILIES[family], draws, seed, _SLOTS, _ENDINGS, _watched
    )
    return replied(drawn, _SPLIT, _REPLIES, random.Random(f"{seed}-round26-replies"))


_NOT_SECRET = frozenset({"email", "site", "site2"})
_CODE = re.compile(r"\b[a-z]{4}-[a-z]{4}\b|\b\d{4} \d{4}\b")
_NUMBERED_WORD = re.compile(r"\d+\. [a-z]+")


def _watched(slot: str, value: str) -> tuple[str, ...]:
    """What of *value* must be gone: each backup code; a seed phrase's every
    run of three words (numbered or not); any other secret whole."""
    if slot in _NOT_SECRET:
        return ()
    if slot.startswith("code"):
        return tuple(_CODE.findall(value))
    if slot == "seednum":
        entries = list(_NUMBERED_WORD.finditer(value))
        return tuple(
            value[entries[i].start() : entries[i + 2].end()] for i in range(0, len(entries) - 2, 3)
        )
    if slot == "seed":
        words = value.split()
        return tuple(" ".join(words[i : i + 3]) for i in range(0, len(words) - 2, 3))
    return (value,)


FAMILIES: dict[str, Sequence[str]] = {
    "forward": FORWARD,
    "ticket": TICKET,
    "sheet": SHEET,
    "mdtable": MDTABLE,
    "manager": MANAGER,
    "backup": BACKUP,
    "seed": SEED,
    "connstr": CONNSTR,
    "container": CONTAINER,
    "ci": CI,
    "devtools": DEVTOOLS,
    "query": QUERY,
    "leftover": LEFTOVER,
}

NEGATIVES: dict[str, Sequence[str]] = {
    "forward": [
        "---------- Forwarded message ----------\nFrom: IT Helpdesk <it@example.com>\n"
        "Subject: Password policy\n\nFrom Monday passwords must be 12 characters long.",
        "On Mon, 3 Jun 2024 at 09:12, Lena <lena@example.com> wrote:\n"
        "> see you at 10\n> bring the slides",
        "> > the new vpn is much faster\n> agreed",
        "Begin forwarded message:\n\nFrom: Bank\nSubject: Your new card\n\n"
        "Your card arrives in 5 days.",
        "FW: wifi for the offsite\n\nNetwork: Offsite-Guest\nPassphrase: ask at reception",
        "-----Original Message-----\nFrom: Tom\nSubject: RE: server\n\nthe new box is in rack 4",
        "> On 12 Mar, admin@example.com wrote:\n>> Your password was changed on 12 March.",
        "Re: access\n\n>> access granted for ana@example.com\n\nthanks",
    ],
    "ticket": [
        "Steps to reproduce:\n1. Log in as any user\n2. Open Settings\n3. Click Save",
        "Bug: login fails on Safari 17.4 after the password reset email",
        "Repro: go to /admin with a valid session, get a 500",
        "Ticket #4821 - customer can't log in, password reset link expired",
        "Expected: login works\nActual: 401 Unauthorized",
        "Environment: staging\nBrowser: Firefox 126\nOS: macOS 14.5",
        "Customer asked how to change their PIN",
        "Please use the demo login from the wiki",
    ],
    "sheet": [
        "name\temail\tpassword_changed\nAna\tana@example.com\t2024-03-01\nTom\ttom@example.com\t2024-04-12",
        "date,item,amount\n2024-03-01,coffee,3.20\n2024-03-02,bread,2.10",
        "Site\tVisits\tBounce rate\nhome\t1204\t41%\nblog\t388\t63%",
        "host,port,user\ndb1.local,5432,ana",
        "account,balance,currency\nchecking,1204.50,EUR\nsavings,8800.00,EUR",
        '"Name","City","Year"\n"Ana","Lisbon","2024"\n"Tom","Berlin","2023"',
        "who\twhat\twhen\nMum\tdentist\tMon 10:00\nDad\tgarage\tTue 14:30",
        "user,last_login,password_age_days\nana,2024-05-01,90\ntom,2024-05-03,12",
    ],
    "mdtable": [
        "| rule | value |\n|---|---|\n| minimum length | 12 |\n| must contain | a digit |",
        "| Password policy | Old | New |\n| --- | --- | --- |\n| length | 8 | 12 |\n"
        "| expiry | 90 days | never |",
        "| Device | IP |\n|:--|:--|\n| Router | 192.168.1.1 |\n| NAS | 192.168.1.5 |",
        "| Name | Role |\n| --- | --- |\n| Ana | admin |\n| Tom | viewer |",
        "| service | status |\n|---|---|\n| netflix | paid |\n| spotify | cancelled |",
        "| day | meal |\n|-|-|\n| Mon | pasta |\n| Tue | soup |",
    ],
    "manager": [
        "Title,Website,Username,Password,OTPAuth,Favorite,Archived,Tags,Notes",
        "folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password",
        "I exported my vault to CSV and deleted the file afterwards",
        "Secure note: Safe\nlocation: wardrobe",
        "Notes: recovery code printed, in the drawer",
        "Item: netflix\nFields:\n  email = ana@example.com\n  plan = standard",
    ],
    "backup": [
        "backup codes\nI printed them and put them in the safe",
        "Here are your backup codes. Keep them somewhere safe.",
        "the 2FA backup codes for github are in 1Password",
        "recovery codes can each be used once",
        "Order numbers\n1234 5678\n2345 6789",
        "timetable: 0815 0915, 1015 1115, 1215 1315",
    ],
    "seed": [
        "milk eggs bread butter cheese apples onions garlic rice pasta coffee sugar",
        "shopping list: milk eggs bread butter cheese apples onions garlic rice pasta coffee sugar",
        "the wind was cold and the night was long and we were far from home",
        "roses bloom daisies sway willows bend rivers run stones rest clouds drift birds sing",
        "never share your seed phrase with anyone, not even support",
        "Write down your recovery phrase on paper, never in a file.",
        "mnemonic devices help kids learn the planets",
        "seed: 42 (for the random shuffle)",
    ],
    "connstr": [
        'MONGO_URL="mongodb+srv://cluster1.x9yz.mongodb.net/prod?retryWrites=true"',
        "REDIS_URL=redis://redis.internal:6379/1",
        "jdbc:sqlserver://sql01:1433;databaseName=app;integratedSecurity=true",
        "Server=myServerAddress;Database=myDataBase;Trusted_Connection=True;",
        "DATABASE_URL=sqlite:///app.db",
        "host=db.local port=5432 dbname=app user=ana sslmode=require",
        "AccountEndpoint=https://acct.documents.azure.com:443/;",
        "nats://nats.local:4222",
    ],
    "container": [
        "docker login registry.gitlab.com",
        "docker login -u ana",
        "kubectl create secret generic db --from-file=./password.txt",
        "docker run -e TZ=Europe/Berlin -d postgres:16",
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  LOG_LEVEL: info",
        "helm install app ./chart --set replicas=3",
        "podman login quay.io",
        "kubectl get secrets -n prod",
    ],
    "ci": [
        "env:\n  NODE_ENV: production\n  CI: true",
        "- uses: docker/login-action@v3\n  with:\n    username: ${{ secrets.DOCKER_USER }}\n"
        "    password: ${{ secrets.DOCKER_PASSWORD }}",
        'variables:\n  DEPLOY_ENV: "staging"',
        "steps:\n  - run: npm test",
        "environment {\n    NEXUS_URL = 'https://nexus.example.com'\n}",
        "with:\n  token: ${{ secrets.GITHUB_TOKEN }}",
        "DOCKERHUB_PASSWORD: ${DOCKERHUB_PASSWORD}",
        "export SENTRY_ORG=acme && sentry-cli releases new v1",
    ],
    "devtools": [
        "GET /api/v1/me HTTP/1.1\nHost: app.example.com\nAccept: application/json",
        "Authorization: Bearer <token>",
        "curl 'https://app.example.com/api/items' -H 'accept: */*' --compressed",
        "Authorization: Bearer YOUR_TOKEN_HERE",
        "cookie: lang=en; theme=dark",
        "set-cookie: consent=yes; Path=/",
        "-H 'Content-Type: application/json'",
        'curl -H "Authorization: Bearer $TOKEN" https://api.example.com',
    ],
    "query": [
        "https://shop.example.com/list?page=2&sort=asc",
        "https://www.google.com/search?q=how+to+reset+token",
        "https://example.com/articles?tag=security&key=value",
        "https://example.com/account/confirm?email=ana@example.com",
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s",
        "https://maps.example.com/?lat=52.52&lng=13.40&zoom=12",
    ],
    "leftover": [
        "the printer's admin is Tom now",
        f"I'll send you the vpn login{_SPLIT}ana 2024 was the last time I used it",
        "the router admin is in the hallway cupboard",
        f"who set up the wifi?{_SPLIT}ana 2024",
        "here's the app password screen, thanks",
        f"what's the code for the side door?{_SPLIT}no idea",
        "origin  https://github.com/me/site.git (push)",
        "photos: ana 2024, tom 2023, lena 2022",
        "NAS admin page is slow",
        "git remote set-url origin git@github.com:me/site.git",
    ],
}


def negatives(family: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """*family*'s everyday texts: each one's half, its text and what it follows."""
    return halved(NEGATIVES[family], _SPLIT)
