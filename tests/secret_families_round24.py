"""Round 24's held-out families of secrets, none of them a template of the
earlier generators: credentials in markdown and chat formatting (bold
labels, bullets with arrows, a code fence holding an ``.env``, emoji
labels, a spoiler); in a forwarded e-mail or text message (a temporary
password, a new PIN, a one-time code, a reset or magic link's token); in a
URL (a token or key in the query, a presigned URL's signature, a user and
password under a scheme such as redis, amqp, smb or rtsp); in a connection
string (ODBC, ADO.NET, JDBC); in an HTTP header or a ``curl``/``wget``
command line; in Vietnamese, Indonesian, Korean, Greek, Hebrew, Thai, Czech
or Finnish (native script or romanised); quoted from someone else in a
chat log ("[10:42] Tom: wifi is X"); in a password manager's note ("Bank:
Chase | user: x | pw: y").

Like rounds 22's and 23's, a family is a list of templates, the even ones
the half rules may be written on ("in"), the odd ones held out ("out"); a
trial fills one with drawn values.  ``NEGATIVES`` are everyday sentences of
the same look that hold none.  Counted by ``python -m tests.bench.secret_families``.
"""

# Greek, Hebrew, Korean and Thai are written as people type them.
# ruff: noqa: RUF001

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable, Iterator, Sequence

from tests.secret_families import Trial
from tests.secret_families_round22 import (
    _ALNUM,
    _drawn,
    _github,
    _gitlab,
    _hex,
    _password,
    _pin,
    _plain_password,
    drawn_trials,
    halved,
)

_URLSAFE = _ALNUM + "-_"


def _otp(rng: random.Random) -> str:
    """A one-time code sent by text or e-mail: six digits."""
    return str(rng.randint(100000, 999999)) if rng.random() < 0.8 else _pin(rng)


def _temporary(rng: random.Random) -> str:
    """A password a service makes up and sends: letters and digits, maybe dashed."""
    return rng.choice(
        [
            _drawn(rng, _ALNUM, 10),
            f"{_drawn(rng, _ALNUM, 4)}-{_drawn(rng, _ALNUM, 4)}-{_drawn(rng, _ALNUM, 4)}",
            f"Temp{rng.randint(1000, 9999)}!",
            f"Welcome{rng.randint(10, 99)}#",
        ]
    )


def _token(rng: random.Random) -> str:
    """A token in a link or a header: URL-safe, often shorter than a key."""
    return _drawn(rng, _URLSAFE, rng.choice([20, 24, 32, 43]))


def _signature(rng: random.Random) -> str:
    """A presigned URL's signature: 64 hex (S3) or URL-encoded base64 (Azure)."""
    if rng.random() < 0.5:
        return _drawn(rng, "0123456789abcdef", 64)
    raw = base64.b64encode(rng.randbytes(32)).decode()
    return raw.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


def _cookie(rng: random.Random) -> str:
    """A session's id: 26 small letters and digits (PHP) or 32 hex."""
    if rng.random() < 0.5:
        return _drawn(rng, string.ascii_lowercase + string.digits, 26)
    return _drawn(rng, "0123456789abcdef", 32)


def _shared_key(rng: random.Random) -> str:
    """A shared access key: 32 random bytes in base64."""
    return base64.b64encode(rng.randbytes(32)).decode()


def _paired_digits(rng: random.Random) -> str:
    """A code sent as two halves: "482-913"."""
    return f"{rng.randint(100, 999)}-{rng.randint(100, 999)}"


_SLOTS: dict[str, Callable[[random.Random], str]] = {
    "pw": _password,
    "ppw": _plain_password,
    "pin": _pin,
    "hex": _hex,
    "github": _github,
    "gitlab": _gitlab,
    "otp": _otp,
    "temp": _temporary,
    "tok": _token,
    "sig": _signature,
    "cookie": _cookie,
    "sak": _shared_key,
    "halves": _paired_digits,
}
_ENDINGS = ["", "", ".", " 👍", " cảm ơn", " makasih", " 고마워", " kiitos", " díky"]

MARKUP = [
    "**Password:** {pw}",
    "*wifi password* - {pw}",
    "- pwd → {pw}",
    "• router pass ⇒ {pw}",
    "```\nDB_USER={user}\nDB_PASS={ppw}\n```",
    "```env\nSECRET_KEY={hex}\nDEBUG=false\n```",
    "🔑 {pw}",
    "🔐: {pw}",
    "> wifi password: `{pw}`",
    "### Router\n- login: {user}\n- pass: `{pw}`",
    "| Wi-Fi password | {pw} |",
    "🔑 **{pw}** (wifi)",
    "wifi pw ||{pw}||",
    "<details><summary>password</summary>{pw}</details>",
    "`password`: `{pw}`",
    "🗝️ netflix → {pw}",
]
MESSAGES = [
    "Your temporary password is: {temp}",
    "Fwd: Your new PIN is {pin}. Do not share it with anyone.",
    "use this one-time code: {otp}",
    "Your verification code is {otp}. It expires in 10 minutes.",
    "Reset your password: https://accounts.example.com/reset?token={tok}",
    "Sign in with this magic link: https://app.example.com/auth/magic?code={tok}",
    "G-{otp} is your Google verification code.",
    "Your Amazon OTP is {otp}",
    "---------- Forwarded message ---------\nSubject: Welcome\nUsername: {user}\n"
    "Temporary password: {temp}",
    "Your login code: {otp}\nDon't share this code with anyone.",
    "Your PIN has been changed. New PIN: {pin}",
    "Click to verify your e-mail: https://example.com/verify/{tok}",
    "your one time passcode is {otp}",
    "Initial password for {user}: {temp} (you will be asked to change it)",
    "Your WhatsApp code: {halves}",
    "Join the team: https://team.example.com/join?invite_token={tok}",
]
URLS = [
    "https://api.example.com/v2/items?api_key={hex}",
    "https://hooks.example.com/notify?token={tok}&channel=ops",
    "https://bucket.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
    "&X-Amz-Expires=3600&X-Amz-Signature={sig}",
    "https://store1.blob.core.windows.net/f/a.zip?sv=2022-11-02&se=2025-01-01&sp=r&sig={sig}",
    "redis://default:{ppw}@cache.internal:6379",
    "amqp://{user}:{ppw}@rabbit.local:5672/vhost",
    "mongodb://{user}:{ppw}@mongo1,mongo2/app?replicaSet=rs0",
    "smb://{user}:{ppw}@nas.local/share",
    "ftps://{user}:{ppw}@files.example.org:990/",
    "sftp://{user}:{ppw}@backup.example.net/home",
    "https://example.com/download?access_token={tok}",
    "wss://stream.example.com/socket?auth={tok}",
    "http://{user}:{ppw}@192.168.1.1/admin",
    "https://maps.example.com/api/js?key={hex}&callback=init",
    "rtsp://{user}:{ppw}@192.168.0.40:554/stream1",
    "https://example.com/share/a81f?password={ppw}",
]
CONNECTIONS = [
    "Driver={{ODBC Driver 18 for SQL Server}};Server=sql01;Database=app;Uid={user};Pwd={ppw};",
    "Provider=SQLOLEDB;Data Source=sql01;Initial Catalog=app;User ID={user};PWD={ppw}",
    "jdbc:mysql://db.local:3306/app?user={user}&password={ppw}",
    "jdbc:postgresql://db:5432/app?user={user}&password={ppw}&ssl=true",
    "jdbc:oracle:thin:{user}/{ppw}@db.example.com:1521:ORCL",
    "Data Source=db;Initial Catalog=app;User ID={user};Password={ppw};TrustServerCertificate=True",
    "DSN=Warehouse;UID={user};PWD={ppw}",
    "Host=db;Username={user};Password={ppw};Database=app",
    "sqlserver://{user}:{ppw}@sql01:1433?database=app",
    "Endpoint=sb://ns1.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={sak}",
    "clickhouse://{user}:{ppw}@ch.local:9000/default",
    "Server=db;Port=3306;Uid={user};Pwd={ppw};SslMode=Required",
]
HTTP = [
    'curl -H "Authorization: token {github}" https://api.github.com/user',
    'curl -H "X-API-Key: {hex}" https://api.example.com/v1/status',
    "Cookie: session={cookie}; theme=dark",
    "curl --user {user}:{ppw} https://nas.local/api",
    "wget --password={ppw} --user={user} https://files.example.com/a.iso",
    "Authorization: Token {hex}",
    "curl -sS -u '{user}:{ppw}' https://ci.example.com/job/build",
    'http GET api.example.com/me "Authorization:Bearer {tok}"',
    "X-Auth-Token: {tok}",
    "Set-Cookie: sid={cookie}; Path=/; HttpOnly",
    "curl -x http://{user}:{ppw}@proxy.local:3128 https://example.com",
    "fetch(url, {{ headers: {{ 'x-api-key': '{hex}' }} }})",
    "Invoke-RestMethod -Uri $u -Headers @{{Authorization = 'Bearer {tok}'}}",
    "--header 'apikey: {hex}'",
    "-H 'PRIVATE-TOKEN: {gitlab}'",
    "aria2c --http-passwd={ppw} --http-user={user} https://example.com/file",
]
LANGUAGES = [
    "mật khẩu là {pw}",
    "mat khau wifi: {pw}",
    "mã PIN của tôi là {pin}",
    "kata sandi saya {pw}",
    "password wifinya {pw}",
    "sandi: {pw}",
    "PIN ATM saya {pin}",
    "비밀번호는 {pw}입니다",
    "와이파이 비번: {pw}",
    "비번 {pw}",
    "ο κωδικός μου είναι {pw}",
    "κωδικός wifi: {pw}",
    "kodikos: {pw}",
    "הסיסמה שלי היא {pw}",
    "סיסמה: {pw}",
    "hasisma hi {pw}",
    "รหัสผ่านคือ {pw}",
    "รหัส wifi: {pw}",
    "moje heslo je {pw}",
    "heslo na wifi: {pw}",
    "PIN ke kartě je {pin}",
    "salasana on {pw}",
    "wifin salasana: {pw}",
    "PIN-koodi on {pin}",
]
QUOTED = [
    "> Sarah: the door code is {pin}",
    "[10:42] Tom: wifi is {pw}",
    "Mum (WhatsApp): the alarm is {pin}, don't forget",
    "[12/03/24, 09:15:02] Dad: netflix password {pw}",
    "<jonas> the root pw is {ppw}",
    "Lena said the gate code is {pin}",
    "Forwarded from Ana:\nhere's the login {user} / {pw}",
    "> On Tue, Mark wrote:\n> server password is {ppw}",
    "Tom: what's the wifi?\nMe: {pw}",
    "— Grandma: my pin is {pin}",
    "12:01 PM - Alex: router admin is {pw}",
    'Slack #ops — deploy-bot: "temp password for {user}: {temp}"',
]
VAULT = [
    "Bank: Chase | user: {user} | pw: {pw}",
    "Title: Netflix\nUsername: {user}\nPassword: {pw}\nURL: https://netflix.com",
    "Gmail\n  login {user}\n  pass {pw}",
    "AMEX ending 1004 / online: {user} / {pw} / pin {pin}",
    "[Wifi]\nSSID: Home-5G\nKey: {pw}",
    "Router (admin) — u: {user} p: {pw}",
    "Steam: {user} // {pw}",
    "HSBC: {user} pw={pw}",
    "Email:: {user}@gmail.com :: {pw}",
    "Entry: Work VPN\nUser: {user}\nSecret: {pw}",
    "Spotify (family) u={user} p={pw}",
    "Insurance portal - id {user} - passcode {pw}",
]


def trials(family: str, draws: int, seed: int = 0) -> Iterator[Trial]:
    """*draws* trials of each of *family*'s templates."""
    return drawn_trials(
        "round24", family, FAMILIES[family], draws, seed, _SLOTS, _ENDINGS, _watched
    )


def _watched(slot: str, value: str) -> tuple[str, ...]:
    """What of *value* must be gone: all of it."""
    return (value,)


FAMILIES: dict[str, Sequence[str]] = {
    "markup": MARKUP,
    "message": MESSAGES,
    "url": URLS,
    "connect": CONNECTIONS,
    "http": HTTP,
    "language": LANGUAGES,
    "quoted": QUOTED,
    "vault": VAULT,
}

NEGATIVES: dict[str, Sequence[str]] = {
    "markup": [
        "**Password:** required",
        "- pwd → print working directory",
        "```env\nDEBUG=false\nPORT=8080\n```",
        "🔑 key takeaways from the talk",
        "🔐: locked until Friday",
        "> **Note**: the password must be 12 characters",
        "| Password | Required |",
        "### Password reset\n- click the link in the e-mail",
        "`password` is a reserved word in that schema",
        "🗝️ netflix → ask mum",
        "my key takeaway is that backups matter",
        "- [ ] change the wifi password",
    ],
    "message": [
        "the reset link expired",
        "Your password was changed. If this wasn't you, contact us.",
        "Your verification code has expired",
        "passwordless login is enabled for this account",
        "Your PIN was updated on 12 March",
        "Unsubscribe: https://example.com/unsubscribe?list=news",
        "Your order #48213 has shipped",
        "We sent a one-time code to your phone",
        "Your Amazon package arrives today",
        "Use code SUMMER20 for 20% off",
        "PIN the map to the board",
        "Your new password must be at least 12 characters.",
    ],
    "url": [
        "https://example.com/search?q=token+ring",
        "https://api.example.com/v2/items?page=2&limit=50",
        "redis://localhost:6379/0",
        "amqp://rabbit.local:5672",
        "smb://nas.local/share",
        "https://maps.google.com/?q=52.52,13.40",
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
        "ftp://ftp.example.org/pub",
        "https://example.com/docs?section=api_key",
        "rtsp://192.168.0.40:554/stream1",
        "https://example.com/reset?lang=en",
        "token ring was a network standard",
    ],
    "connect": [
        'password = os.environ["DB_PASSWORD"]',
        "Driver={ODBC Driver 18 for SQL Server};Server=sql01;Database=app;Trusted_Connection=yes;",
        "jdbc:mysql://db.local:3306/app?useSSL=false",
        "Data Source=db;Initial Catalog=app;Integrated Security=True",
        "DSN=Warehouse",
        "Host=db;Database=app",
        "Server=db;Port=3306;Database=app",
        "jdbc:oracle:thin:@db.example.com:1521:ORCL",
        "the connection string lives in appsettings.json",
        "sqlserver://sql01:1433?database=app",
    ],
    "http": [
        "curl -sS https://api.example.com/v1/status",
        'curl -H "Accept: application/json" https://api.example.com',
        "Cookie: theme=dark; lang=en",
        "Authorization: required",
        "wget https://files.example.com/a.iso",
        "X-Request-Id: 7f3c2a",
        "Set-Cookie: theme=dark; Path=/",
        "curl -X POST -d @data.json https://api.example.com/items",
        "the Authorization header is missing",
        "fetch(url, { headers: { 'content-type': 'application/json' } })",
    ],
    "language": [
        "mật khẩu quá ngắn",
        "lupa kata sandi",
        "비밀번호를 잊어버렸어요",
        "ο κωδικός είναι λάθος",
        "שכחתי את הסיסמה",
        "ลืมรหัสผ่าน",
        "heslo je příliš krátké",
        "salasana on liian lyhyt",
        "kata sandi wifi ada di router",
        "비밀번호는 8자 이상",
        "το ραντεβού είναι στις 10:30",
        "PIN-koodi on kortin takana",
    ],
    "quoted": [
        "> Sarah: the door is open",
        "[10:42] Tom: wifi is down again",
        "Mum (WhatsApp): the alarm went off at 3",
        "[12/03/24, 09:15:02] Dad: netflix tonight?",
        "<jonas> the root cause was a typo",
        "Lena said the gate code changed",
        "> On Tue, Mark wrote:\n> the server is down",
        "Tom: what's the wifi?\nMe: ask Lena",
        "12:01 PM - Alex: router is rebooting",
        "— Grandma: my pin is on a note in the drawer",
    ],
    "vault": [
        "Bank: Chase | branch: Main St | hours: 9-5",
        "Title: Netflix\nPlan: Standard\nRenews: 12 May",
        "Gmail\n  login with Google\n  2FA on",
        "[Wifi]\nSSID: Home-5G\nBand: 5 GHz",
        "Router (admin) — model: FritzBox 7590",
        "Steam: 214 games // 12 installed",
        "Email:: support@example.com :: Mon-Fri",
        "Entry: Work VPN\nServer: vpn.example.com",
        "Spotify (family) 6 accounts",
        "Insurance portal - renewal in May",
    ],
}


def negatives(family: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """*family*'s everyday texts: each one's half, its text and what it follows."""
    return halved(NEGATIVES[family])
