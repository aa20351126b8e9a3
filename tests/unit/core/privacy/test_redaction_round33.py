"""Round 33's families (``tests.secret_families_round33``): a secret given
to a Windows service or sign-in, in a debug dump, typed by a browser
test, in a secret store's JSON, in PPP's secrets file, in a JMX password
file, after a VM's ``--cipassword``, masked or set in CI, hashed in seed
data or added by Redis' ACL; the held-in half of every family taken out;
and everyday texts of the same look that keep their words.
"""

from __future__ import annotations

import pytest

from tests import secret_families_round33
from tests.bench.secret_families import missed
from tests.redacted import assert_gone, assert_kept
from tests.secret_families import Trial


@pytest.mark.parametrize(
    "trial",
    [
        trial
        for family in secret_families_round33.FAMILIES
        for trial in secret_families_round33.trials(family, 3, seed=5)
        if trial.half == "in"
    ],
    ids=lambda trial: trial.family,
)
def test_a_secret_of_the_round_33_families_is_taken_out(trial: Trial) -> None:
    assert missed(trial) == []


@pytest.mark.parametrize(
    "text",
    [
        "sc config Spooler obj= .\\svc_print password= Kettle42x",
        'sc.exe create Agent binPath= "C:\\a.exe" obj= "ACME\\svc" password= "Kettle42x"',
        "nssm set Agent ObjectName ACME\\svc Kettle42x",
        "reg add HKLM\\SOFTWARE\\App /v DbPassword /t REG_SZ /d Kettle42x",
        'Set-ItemProperty -Path $key -Name "DefaultPassword" -Value Kettle42x',
        '"DefaultPassword"="Kettle42x"',
        "Autologon64.exe ana ACME Kettle42x",
    ],
)
def test_a_windows_services_or_sign_ins_password_is_taken_out(text: str) -> None:
    assert_gone(text, "Kettle42x")


@pytest.mark.parametrize(
    "text",
    [
        "sc config Spooler start= auto",
        "reg add HKCU\\Control\\Desktop /v WallPaper /t REG_SZ /d C:\\bg.jpg",
        "Set-ItemProperty -Path $key -Name AutoAdminLogon -Value 1",
        "nssm set Agent AppDirectory C:\\agent",
    ],
)
def test_a_services_other_settings_are_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "text",
    [
        "cy.get('#password').type('Kettle42x')",
        'driver.find_element(By.NAME, "passwd").send_keys("Kettle42x")',
        "await page.locator('input[type=password]').fill('Kettle42x')",
        "await page.type('#pw', 'Kettle42x')",
        'array(1) {\n  ["db_pass"]=>\n  string(9) "Kettle42x"\n}',
        '{"name": "DB_PASSWORD", "value": "Kettle42x"}',
        '{"Name": "/prod/db/password", "Type": "SecureString", "Value": "Kettle42x"}',
    ],
)
def test_a_value_typed_into_or_paired_with_a_password_field_is_taken_out(text: str) -> None:
    assert_gone(text, "Kettle42x")


@pytest.mark.parametrize(
    "text",
    [
        "cy.get('#password').should('be.visible')",
        "cy.get('#username').type('ana')",
        "await page.fill('#email', 'ana@example.com')",
        '{"name": "REGION", "value": "eu-west-1"}',
        '{"Name": "/prod/db/password", "Type": "SecureString"}',
    ],
)
def test_a_field_without_a_password_typed_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "text",
    [
        '# /etc/ppp/chap-secrets\n"ana" * "Kettle42x" *',
        "# jmxremote.password\nmonitorRole Kettle42x",
        "qm set 101 --cipassword Kettle42x",
        "echo '::add-mask::Kettle42x'",
        "glab variable set DB_TOKEN --value Kettle42x",
        "az pipelines variable create --name dbPassword --value Kettle42x --secret true",
        "circleci context store-secret acme prod DB_PASS <<< Kettle42x",
        "'password' => bcrypt('Kettle42x'),",
        "hashed = bcrypt.hashpw(b'Kettle42x', bcrypt.gensalt())",
        'passwordEncoder.encode("Kettle42x")',
        "ACL SETUSER ana on >Kettle42x ~* +@all",
    ],
)
def test_a_secret_set_masked_or_hashed_by_a_tool_is_taken_out(text: str) -> None:
    assert_gone(text, "Kettle42x")


@pytest.mark.parametrize(
    "text",
    [
        'echo "::add-mask::$DB_PASS"',
        "glab variable set REGION --value eu-west-1",
        "'password' => bcrypt($request->password),",
        "'password' => Hash::make($data['password']),",
        "$digest = hash('sha256', $body);",
        "ACL SETUSER ana on nopass ~* +@all",
        "qm set 101 --ciuser ana --sshkeys ~/.ssh/id.pub",
    ],
)
def test_a_tools_command_without_a_secret_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("persönliches Kennwort wbghoGmnlity", "wbghoGmnlity"),
        ("Passwort zLhkahUMqe bitte ändern", "zLhkahUMqe"),
        ("token yOfpTXLrmm", "yOfpTXLrmm"),
    ],
)
def test_a_value_in_a_case_no_word_has_after_a_weak_word_is_taken_out(
    text: str, value: str
) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    ["Passwort vergessen", "key PayPal", "the code YouTube sent", "Kennwort WLAN", "key getValue"],
)
def test_a_word_or_a_name_after_a_weak_word_is_kept(text: str) -> None:
    assert_kept(text)
