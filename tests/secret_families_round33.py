"""Round 33's held-out families of secrets, none of them a template of the
earlier generators, from places earlier rounds did not visit: a process
list and a program's system properties (``ps aux``, a JVM's
``-Dspring.datasource.password=X``, ``/proc/N/cmdline``, ``docker
inspect``'s ``Env``); Windows services and sign-in (``sc config ...
password= X``, NSSM, the registry's ``DefaultPassword``, Sysinternals'
Autologon); a program's debug dump of an object (PHP's ``var_dump`` and
``print_r``, Go's ``%+v``, Perl's Data::Dumper, Java's ``toString``,
Elixir's ``inspect``); browser tests typing a password (Selenium's
``send_keys``, Playwright's ``fill``, Cypress' ``type``, Puppeteer,
Robot Framework); secret stores' output (``vault kv get``'s table,
``pass show``, ``bw get password``, ``op read``, ``aws ssm
get-parameter``'s JSON); dial-up and an ISP's PPPoE (``pap-secrets``,
pppd's ``password``, ``nmcli``'s ``pppoe.password``); Java application
servers (``tomcat-users.xml``, JBoss' ``add-user.sh``,
``jmxremote.password``, WebLogic's ``boot.properties``, GlassFish's
``AS_ADMIN_PASSWORD``); virtual machines' guests (Proxmox's
``--cipassword``, ``VBoxManage``, Vagrant's ``config.ssh.password``,
``virt-customize``); CI's masks and secret setters (GitHub's
``::add-mask::``, ``az pipelines variable create --secret``, ``glab
variable set``); a password passed to a hashing call in seed data
(``bcrypt('X')``, ``Hash::make``, ``make_password``); and databases'
admin commands (``mysqladmin password``, ``db.changeUserPassword``,
Redis' ``ACL SETUSER ana on >X``, ``ALTER LOGIN``, ``neo4j-admin
set-initial-password``).

Like rounds 22 to 32, a family is a list of templates, the even ones the
half rules may be written on ("in"), the odd ones held out ("out"); a
trial fills one with drawn values.  ``NEGATIVES`` are everyday texts of
the same look that hold none (a process list without one, a service's
other settings, a dump of other fields, a test typing a name, a secret
store's listing, a PPP peer's other options, an app server's roles, a
VM's other options, a CI log's other commands, a hash stored, a
database's other admin commands).  Counted by ``python -m
tests.bench.secret_families --round 33``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from tests.secret_families import Trial
from tests.secret_families_round22 import (
    _password,
    _pin,
    _plain_password,
    drawn_trials,
    halved,
    replied,
)
from tests.secret_families_round24 import _token
from tests.secret_families_round32 import _watched

_SPLIT = "\u241e"
"""Between the message before and the message of a split template."""

_SLOTS = {"pw": _password, "ppw": _plain_password, "pin": _pin, "tok": _token}
_ENDINGS = ["", "", ".", " ty", " (from the box)", " 👀"]

PROCS = [
    "ana  4242  0.3  2.1 java -Dspring.datasource.password={ppw} -jar app.jar",
    "root  811  0.0  0.1 /usr/bin/python3 worker.py --db-user app --db-pass {ppw}",
    "$ ps aux | grep java\ntomcat 1201 12.0 9.8 java -Djavax.net.ssl.keyStorePassword={ppw}"
    " -cp /opt/app",
    "java -Ddb.password={ppw} -Xmx2g -jar billing.jar",
    "$ docker inspect web --format '{{{{json .Config.Env}}}}'\n"
    '["PATH=/usr/bin","DB_PASSWORD={ppw}","TZ=UTC"]',
    "/proc/4242/cmdline: node server.js --redis-password {ppw} --port 3000",
    "JAVA_OPTS=-Dkeystore.pass={ppw} -Xms512m",
    "ps -ef shows: svc 990 1 0 09:12 ? 00:00:01 mongod --auth --keyFilePass {ppw}",
]

WINSVC = [
    "sc config BackupSvc obj= .\\svc_backup password= {ppw}",
    'sc.exe create Agent binPath= "C:\\agent\\agent.exe" obj= "ACME\\svc" password= "{ppw}"',
    'reg add "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon" /v DefaultPassword'
    " /t REG_SZ /d {ppw} /f",
    "nssm set BackupSvc ObjectName .\\svc_backup {ppw}",
    "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon]\n"
    '"AutoAdminLogon"="1"\n"DefaultUserName"="ana"\n"DefaultPassword"="{ppw}"',
    "Autologon.exe ana ACME {ppw} /accepteula",
    'Set-ItemProperty -Path $winlogon -Name DefaultPassword -Value "{ppw}"',
    "New-Service -Name Agent -BinaryPathName C:\\agent.exe -Credential (New-Object"
    " PSCredential('ACME\\svc', (ConvertTo-SecureString '{ppw}' -AsPlainText -Force)))",
]

DUMPS = [
    'array(2) {{\n  ["user"]=>\n  string(3) "ana"\n  ["password"]=>\n  string(9) "{ppw}"\n}}',
    "Array\n(\n    [user] => ana\n    [pass] => {ppw}\n    [host] => db\n)",
    "config: {{Host:db.local User:ana Password:{ppw} Port:5432}}",
    "$VAR1 = {{\n          'user' => 'ana',\n          'password' => '{ppw}'\n        }};",
    "User{{id=42, name='ana', password='{ppw}', active=true}}",
    '%{{user: "ana", password: "{ppw}", host: "db"}}',
    "DEBUG Settings(db_user='ana', db_password='{ppw}', debug=True)",
    '#<struct Creds user="ana", password="{ppw}">',
]

E2E = [
    'driver.find_element(By.ID, "password").send_keys("{ppw}")',
    "await page.fill('#password', '{ppw}');",
    "cy.get('input[name=password]').type('{ppw}')",
    "await page.type('#pass', '{ppw}', {{delay: 50}});",
    "Input Password    id=password    {ppw}",
    '<input type="password" name="pw" value="{ppw}">',
    "self.selenium.find_element(By.NAME, 'pwd').send_keys('{ppw}')",
    "await page.getByLabel('Password').fill('{ppw}');",
]

VAULTCLI = [
    "$ vault kv get secret/db\n====== Data ======\nKey         Value\n---         -----\n"
    "password    {ppw}\nusername    app",
    "$ pass show email/ana\n{ppw}\nurl: mail.acme.com",
    "$ bw get password github\n{ppw}",
    "$ op read op://Private/NAS/password\n{ppw}",
    '$ aws ssm get-parameter --name /prod/db/pass --with-decryption\n{{"Parameter": '
    '{{"Name": "/prod/db/pass", "Type": "SecureString", "Value": "{ppw}"}}}}',
    "$ gopass show -o work/vpn\n{ppw}",
    "$ kubectl get secret db -o jsonpath='{{.data.password}}' | base64 -d\n{ppw}",
    '$ security find-internet-password -s nas.local -g\npassword: "{ppw}"',
]

PPP = [
    '# /etc/ppp/pap-secrets\n"ana@isp.net" * "{ppw}" *',
    "# chap-secrets\n# client   server  secret   IP addresses\nana   *   {ppw}   *",
    "/etc/ppp/peers/dsl:\nplugin rp-pppoe.so eth0\nuser ana@isp.net\npassword {ppw}",
    "nmcli con add type pppoe ifname eth0 username ana@isp.net password {ppw}",
    "nmcli con modify dsl pppoe.password {ppw}",
    "PPPoE login ana@isp.net, PPPoE password {ppw}, VLAN 7",
    "ISP letter: Zugangsnummer 001234, Anschlusskennung 0815, persönliches Kennwort {ppw}",
    "pppoe-client add user=ana@isp.net password={ppw} interface=ether1",
]

APPSERVER = [
    '<user username="admin" password="{ppw}" roles="manager-gui,admin-gui"/>',
    "./add-user.sh -u admin -p {ppw} -g admin",
    "# jmxremote.password\nmonitorRole {ppw}\ncontrolRole {ppw}",
    "boot.properties:\nusername=weblogic\npassword={ppw}",
    "AS_ADMIN_PASSWORD={ppw}\nAS_ADMIN_MASTERPASSWORD=changeit",
    "bin/jboss-cli.sh --connect --user=admin --password={ppw}",
    '$CATALINA_HOME/conf/tomcat-users.xml has <user name="deploy" password="{ppw}" />',
    "asadmin --user admin change-admin-password\nEnter the new admin password> {ppw}",
]

HYPERVISOR = [
    "qm set 101 --ciuser ana --cipassword {ppw}",
    "VBoxManage unattended install ubuntu --iso=ubuntu.iso --user=ana --password={ppw}",
    "VBoxManage guestcontrol win10 run --username ana --password {ppw} -- cmd.exe",
    'config.ssh.password = "{ppw}"',
    "virt-customize -a disk.qcow2 --root-password password:{ppw}",
    "pvesh create /access/users --userid ana@pve --password {ppw}",
    "multipass launch --cloud-init - <<< 'password: {ppw}'",
    "govc vm.create -u root:{ppw}@esxi.local -m 2048 vm1",
]

CIMASK = [
    'echo "::add-mask::{ppw}"',
    "az pipelines variable create --name dbPass --value {ppw} --secret true",
    "glab variable set DB_PASS --value {ppw} --masked",
    "::add-mask::{ppw}\n::set-output name=pw::***",
    'gh secret set DB_PASS --body "{ppw}"',
    "travis encrypt DB_PASS={ppw} --add",
    "circleci context store-secret acme prod DB_PASS <<< {ppw}",
    "buildkite-agent secret set db_pass {ppw}",
]

HASHCALLS = [
    "'password' => bcrypt('{ppw}'),",
    "User.objects.create(username='ana', password=make_password('{ppw}'))",
    "'password' => Hash::make('{ppw}'),",
    "hashed = generate_password_hash('{ppw}')",
    "$hash = password_hash('{ppw}', PASSWORD_DEFAULT);",
    'BCrypt::Password.create("{ppw}")',
    "const hash = await bcrypt.hash('{ppw}', 10);",
    'passlib: pwd_context.hash("{ppw}")',
]

DBADMIN = [
    "mysqladmin -u root password {ppw}",
    'db.changeUserPassword("ana", "{ppw}")',
    "ACL SETUSER ana on >{ppw} ~cache:* +get",
    "ALTER LOGIN sa WITH PASSWORD = '{ppw}';",
    "neo4j-admin dbms set-initial-password {ppw}",
    "127.0.0.1:6379> ACL SETUSER app on >{ppw} allcommands allkeys",
    "cqlsh -u cassandra -p cassandra -e \"ALTER ROLE ana WITH PASSWORD = '{ppw}'\"",
    "couchbase-cli user-manage -c localhost --set --rbac-username ana --rbac-password {ppw}",
]

FAMILIES: dict[str, Sequence[str]] = {
    "procs": PROCS,
    "winsvc": WINSVC,
    "dumps": DUMPS,
    "e2e": E2E,
    "vaultcli": VAULTCLI,
    "ppp": PPP,
    "appserver": APPSERVER,
    "hypervisor": HYPERVISOR,
    "cimask": CIMASK,
    "hashcalls": HASHCALLS,
    "dbadmin": DBADMIN,
}

NEGATIVES: dict[str, Sequence[str]] = {
    "procs": [
        "ana  4242  0.3  2.1 java -Dspring.profiles.active=prod -jar app.jar",
        "root  811  0.0  0.1 /usr/bin/python3 worker.py --db-user app --db-host db",
        "java -Dfile.encoding=UTF-8 -Xmx2g -jar billing.jar",
        '["PATH=/usr/bin","LANG=C.UTF-8","TZ=UTC"]',
        "postgres 1102 0.0 0.5 postgres: ana app 10.0.0.5(51234) idle",
        "JAVA_OPTS=-Djava.security.egd=file:/dev/urandom -Xms512m",
    ],
    "winsvc": [
        "sc config BackupSvc start= auto",
        "sc.exe query Agent",
        'reg add "HKCU\\Control Panel\\Desktop" /v WallPaper /t REG_SZ /d C:\\bg.jpg /f',
        "nssm set BackupSvc AppDirectory C:\\backup",
        '"AutoAdminLogon"="0"\n"DefaultUserName"="ana"',
        "Get-Service -Name Agent | Restart-Service",
    ],
    "dumps": [
        'array(2) {\n  ["user"]=>\n  string(3) "ana"\n  ["active"]=>\n  bool(true)\n}',
        "Array\n(\n    [user] => ana\n    [host] => db\n)",
        "config: {Host:db.local User:ana Port:5432}",
        "User{id=42, name='ana', active=true}",
        "DEBUG Settings(db_user='ana', debug=True)",
        '%{user: "ana", host: "db"}',
    ],
    "e2e": [
        'driver.find_element(By.ID, "username").send_keys("ana")',
        "await page.fill('#email', 'ana@example.com');",
        "cy.get('input[name=password]').should('be.visible')",
        '<input type="password" name="pw" placeholder="Password">',
        "Input Text    id=username    ana",
        "await page.getByLabel('Password').fill(process.env.TEST_PASSWORD);",
    ],
    "vaultcli": [
        "$ vault kv list secret/\nKeys\n----\ndb\nvpn",
        "$ pass ls\nPassword Store\n├── email\n└── work",
        "$ bw list items --search github | jq length\n3",
        "$ op item list --vault Private\nID  TITLE  VAULT",
        '{"Parameter": {"Name": "/prod/region", "Type": "String", "Value": "eu-west-1"}}',
        "$ kubectl get secret db\nNAME   TYPE     DATA   AGE\ndb     Opaque   2      3d",
    ],
    "ppp": [
        "/etc/ppp/peers/dsl:\nplugin rp-pppoe.so eth0\nuser ana@isp.net\nnoipdefault",
        "# chap-secrets\n# client   server  secret   IP addresses",
        "nmcli con modify dsl pppoe.service isp",
        "PPPoE with VLAN 7, MTU 1492",
        "pppoe-client add interface=ether1 add-default-route=yes",
        "the ISP letter with the PPPoE password came today",
    ],
    "appserver": [
        '<role rolename="manager-gui"/>',
        "./add-user.sh --help",
        "# jmxremote.access\nmonitorRole readonly\ncontrolRole readwrite",
        "boot.properties:\nusername=weblogic",
        "asadmin --user admin list-applications",
        "bin/jboss-cli.sh --connect --controller=localhost:9990",
    ],
    "hypervisor": [
        "qm set 101 --ciuser ana --sshkeys ~/.ssh/id_ed25519.pub",
        "VBoxManage startvm win10 --type headless",
        'config.ssh.username = "vagrant"',
        "virt-customize -a disk.qcow2 --root-password disabled",
        "pvesh get /nodes/pve/qemu",
        "multipass launch --name dev --memory 4G",
    ],
    "cimask": [
        'echo "::add-mask::$DB_PASS"',
        "az pipelines variable list --pipeline-name web",
        "glab variable list",
        "::group::Build\n::endgroup::",
        "gh secret list",
        "travis encrypt-file secrets.tar",
    ],
    "hashcalls": [
        "'password' => bcrypt($request->password),",
        "if bcrypt.checkpw(password.encode(), stored):",
        "'password' => Hash::make($data['password']),",
        "check_password_hash(user.pw_hash, form.password.data)",
        "$hash = password_hash($pw, PASSWORD_DEFAULT);",
        "const ok = await bcrypt.compare(input, hash);",
    ],
    "dbadmin": [
        "mysqladmin -u root -p status",
        'db.changeUserPassword("ana", passwordPrompt())',
        "ACL SETUSER ana on nopass ~cache:* +get",
        "ALTER LOGIN sa ENABLE;",
        "neo4j-admin dbms set-default-admin neo4j",
        "127.0.0.1:6379> ACL LIST",
    ],
}

_REPLIES = ["", "", "Noted.", "Got it."]


def trials(family: str, draws: int, seed: int = 0) -> Iterator[Trial]:
    """*draws* trials of each of *family*'s templates (a split one read
    after the message before it)."""
    drawn = drawn_trials(
        "round33", family, FAMILIES[family], draws, seed, _SLOTS, _ENDINGS, _watched
    )
    return replied(drawn, _SPLIT, _REPLIES, random.Random(f"{seed}-round33-replies"))


def negatives(family: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """Everyday texts of *family*'s look, each with its half and the message it follows."""
    return halved(NEGATIVES[family], _SPLIT)
