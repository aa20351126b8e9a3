"""Round 33: round 32's families said in ways its held-in half does not
(written anew from each family's description and held-in templates, never
its held-out half): network gear's secrets with no type before them and
the keys a router shares, Windows' answer files and Kickstart, SIP's
registrations, MinIO's client, password stores' commands and output,
ipsec.secrets' other kinds and PascalCase settings; and everyday texts of
the same look that keep their words (a device's factory community, a
hash, a setting left empty above another).
"""

from __future__ import annotations

import pytest

from tests.redacted import assert_gone, assert_kept


@pytest.mark.parametrize(
    "text",
    [
        "enable secret Kettle42x",
        "enable password Kettle42x",
        "snmp-server community Kettle42x RW",
        "snmp-server community Kettle42x RO 10",
        "set snmp community Kettle42x authorization read-write",
        "tacacs-server key Kettle42x",
        "radius-server host 10.0.0.5 key Kettle42x",
        "crypto isakmp key Kettle42x address 0.0.0.0",
        "interface Gi0/1\n ip ospf authentication-key Kettle42x",
        "key chain OSPF\n key 1\n  key-string Kettle42x",
    ],
)
def test_network_gears_secret_without_a_type_is_taken_out(text: str) -> None:
    assert_gone(text, "Kettle42x")


@pytest.mark.parametrize(
    "text",
    [
        "snmp-server community public RO",
        "snmp-server community private RW",
        "set snmp community public authorization read-only",
        "enable secret 5 $1$mERr$hx5rVt7rPNoS4wqbXKX7m0",
        "enable secret",
        "key-string",
        "enable secret is set, ask Jonas for it",
        "the snmp-server community string is wrong",
    ],
)
def test_a_factory_community_or_a_hash_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "text",
    [
        "<AdministratorPassword>\n  <Value>Kettle42x</Value>\n  <PlainText>true</PlainText>\n"
        "</AdministratorPassword>",
        "<UserAccounts><AdministratorPassword><Value>Kettle42x</Value>"
        "</AdministratorPassword></UserAccounts>",
        "<DomainAdminPassword><wcm:Value>Kettle42x</wcm:Value></DomainAdminPassword>",
        "rootpw --plaintext Kettle42x",
        "rootpw Kettle42x --plaintext",
        "my ks.cfg has rootpw --plaintext Kettle42x in it",
        "[GuiUnattended]\nAdminPassword=Kettle42x\nAutoLogon=Yes",
    ],
)
def test_an_answer_files_password_is_taken_out(text: str) -> None:
    assert_gone(text, "Kettle42x")


@pytest.mark.parametrize(
    "text",
    [
        "rootpw --iscrypted $6$rounds=4096$abc$Xyz12",
        "rootpw --lock",
        "<DomainAdminPasswordRequired>true</DomainAdminPasswordRequired>",
        "ResetPassword=true",
        "RequirePassword=false",
    ],
)
def test_an_answer_files_hash_or_switch_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "text",
    [
        "register => 6001:Kettle42x@pbx.acme.com/6001",
        "register => 6001:Kettle42x:6001@sip.provider.net",
        "call sip:6001:Kettle42x@pbx.acme.com to test",
        "mc alias set local http://localhost:9000 admin Kettle42x",
        "mc config host add s3 https://s3.acme.com AKIDEXAMPLE Kettle42x",
    ],
)
def test_a_sip_registrations_or_a_clients_password_is_taken_out(text: str) -> None:
    assert_gone(text, "Kettle42x")


@pytest.mark.parametrize(
    "text",
    [
        "register => 6001@pbx.acme.com",
        "sip:6001@pbx.acme.com",
        "mc alias set local http://localhost:9000 $MINIO_USER $MINIO_PASS",
    ],
)
def test_a_registration_without_a_password_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "text",
    [
        'secret-tool store --label="github" service github user ana <<< "Kettle42x"',
        'echo -n "Kettle42x" | secret-tool store --label=nas service nas user ana',
        "$ secret-tool lookup service github user ana\nKettle42x",
        "security import cert.p12 -k build.keychain -P Kettle42x -T /usr/bin/codesign",
        "security set-generic-password-partition-list -S apple: -k Kettle42x build.keychain",
        "xcrun altool --upload-app -f app.ipa -u ana@acme.com -p Kettle42x",
        'ana : XAUTH "Kettle42x"',
        "IPSecSecret=Kettle42x",
        "[Peer]\nPresharedKey = Kettle42x",
    ],
)
def test_a_password_stores_or_a_vpns_value_is_taken_out(text: str) -> None:
    assert_gone(text, "Kettle42x")


@pytest.mark.parametrize(
    "text",
    [
        "secret-tool store --label=nas service nas user ana",
        "secret-tool lookup service github user ana",
        "security find-generic-password -s github",
        'xcrun altool --upload-app -f app.ipa -u ana@acme.com -p "@keychain:AC_PASSWORD"',
    ],
)
def test_a_password_stores_command_without_a_value_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "text",
    [
        "password=\nuser=ana",
        "[auth]\npassword=\nusername=6001\nrealm=pbx",
        "password:\nhost: db.local",
        "PASSWORD=\nHOST=db.local",
        "password = \nport = 5432",
    ],
)
def test_the_setting_after_an_empty_password_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "text",
    ["password:\nKettle42x", "username=ana\nKettle42x", "ssid: Casa\nkey: Kettle42x"],
)
def test_a_value_on_the_line_after_its_name_still_goes(text: str) -> None:
    assert_gone(text, "Kettle42x")
