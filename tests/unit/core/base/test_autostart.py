"""Starting Reverie at login: each system's entry written in a temporary
home, read back as that system reads it, and removed only when it is Reverie's."""

from __future__ import annotations

import os
import plistlib
import stat
from pathlib import Path

import pytest

from desktop.core.base.autostart import (
    ENV_AUTOSTART,
    MARK,
    Autostart,
    AutostartProblem,
    Launcher,
    exec_argument,
    string_value,
    this_installation,
)

SPACED = Path("/opt/my apps/Reverie $HOME/venv/bin/reverie")
LAUNCHER = Launcher(SPACED, ("--hidden",))


def autostart(tmp_path: Path, platform: str = "linux", **env: str) -> Autostart:
    return Autostart(platform, tmp_path / "home", env, LAUNCHER)


def desktop_keys(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "[Desktop Entry]"
    return dict(line.split("=", 1) for line in lines[1:])


def unescape_string(value: str) -> str:
    """A Desktop Entry string value as a reader takes it (the spec's escapes)."""
    out, chars = [], iter(value)
    for char in chars:
        if char == "\\":
            out.append({"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}[next(chars)])
        else:
            out.append(char)
    return "".join(out)


def exec_words(value: str) -> list[str]:
    """An ``Exec`` value split as the spec says: string escapes first, then
    the quoting (in quotes a backslash escapes ``"`$\\``), ``%%`` a percent."""
    words: list[str] = []
    word: list[str] | None = None
    quoted = False
    chars = iter(unescape_string(value))
    for char in chars:
        if quoted and char == "\\":
            escaped = next(chars)
            assert escaped in '"`$\\', f"{escaped!r} may not be escaped"
            word = [*(word or []), escaped]
        elif char == '"':
            quoted, word = not quoted, word or []
        elif char == " " and not quoted:
            if word is not None:
                words.append("".join(word))
            word = None
        else:
            assert quoted or char not in '"`$\\', f"{char!r} outside quotes"
            word = [*(word or []), char]
    assert not quoted
    if word is not None:
        words.append("".join(word))
    return [w.replace("%%", "%") for w in words]


def test_the_linux_entry_starts_this_installation_hidden(tmp_path: Path) -> None:
    entry = autostart(tmp_path, XDG_CONFIG_HOME=str(tmp_path / "config"))

    entry.enable()

    assert entry.path == tmp_path / "config" / "autostart" / "reverie.desktop"
    keys = desktop_keys(entry.path)
    assert keys["Type"] == "Application"
    assert keys["X-GNOME-Autostart-enabled"] == "true"
    assert keys[MARK] == "true"
    assert "Hidden" not in keys
    assert exec_words(keys["Exec"]) == [str(SPACED), "--hidden"]
    assert entry.is_enabled()


def test_without_xdg_config_home_the_entry_goes_to_dot_config(tmp_path: Path) -> None:
    assert autostart(tmp_path).path == tmp_path / "home" / ".config" / "autostart" / (
        "reverie.desktop"
    )
    relative = autostart(tmp_path, XDG_CONFIG_HOME="config")  # the spec: ignored
    assert relative.path.parent.parent == tmp_path / "home" / ".config"


@pytest.mark.parametrize(
    "argument",
    [
        "/usr/bin/reverie",
        "/home/ann/my venv/bin/reverie",
        '/tmp/"quoted"/reverie',
        "/tmp/back\\slash/reverie",
        "/tmp/$HOME/`cmd`/reverie",
        "/tmp/100%/reverie",
        "/tmp/new\nline/tab\there",
        "",
    ],
)
def test_exec_arguments_survive_the_spec_quoting(argument: str) -> None:
    quoted = exec_argument(argument)

    assert exec_words(string_value(quoted)) == [argument]
    if " " in argument:
        assert quoted.startswith('"')


def test_files_are_the_users_alone(tmp_path: Path) -> None:
    entry = autostart(tmp_path)

    entry.enable()

    assert stat.S_IMODE(entry.path.stat().st_mode) == 0o600
    for folder in (entry.path.parent, entry.path.parent.parent):  # made for it
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_switching_off_removes_the_entry(tmp_path: Path) -> None:
    entry = autostart(tmp_path)
    entry.enable()

    entry.disable()

    assert not entry.path.exists()
    assert not entry.is_enabled()
    entry.disable()  # nothing there: nothing to do


@pytest.mark.parametrize("turned_off", ["Hidden=true", "X-GNOME-Autostart-enabled=false"])
def test_an_entry_turned_off_elsewhere_is_off_and_stays_so(tmp_path: Path, turned_off: str) -> None:
    entry = autostart(tmp_path)
    entry.enable()
    # What a desktop's startup manager does: the entry kept, a key added.
    entry.path.write_text(entry.path.read_text() + f"{turned_off}\n")
    before = entry.path.read_text()

    assert not entry.is_enabled()
    assert entry.state().ours  # still Reverie's
    assert entry.path.read_text() == before


def test_switching_on_again_rewrites_an_entry_turned_off(tmp_path: Path) -> None:
    entry = autostart(tmp_path)
    entry.enable()
    entry.path.write_text(
        entry.path.read_text().replace("[Desktop Entry]", "[Desktop Entry]\nHidden=true")
    )

    entry.enable()

    assert entry.is_enabled()
    assert "Hidden" not in desktop_keys(entry.path)


FOREIGN = "[Desktop Entry]\nType=Application\nName=Reverie\nExec=reverie --hidden\n"


def test_a_foreign_entry_is_never_removed(tmp_path: Path) -> None:
    entry = autostart(tmp_path)
    entry.path.parent.mkdir(parents=True)
    entry.path.write_text(FOREIGN)  # e.g. one a startup manager copied from the menu

    assert entry.is_enabled()  # the truth: it does start Reverie
    with pytest.raises(AutostartProblem, match="Reverie did not write"):
        entry.disable()
    assert entry.path.read_text() == FOREIGN
    entry.enable()  # on already: left as it is
    assert entry.path.read_text() == FOREIGN


def test_a_foreign_entry_turned_off_is_not_written_over(tmp_path: Path) -> None:
    entry = autostart(tmp_path)
    entry.path.parent.mkdir(parents=True)
    entry.path.write_text(FOREIGN + "Hidden=true\n")

    assert not entry.is_enabled()
    entry.disable()  # off already
    with pytest.raises(AutostartProblem, match="left as it is"):
        entry.enable()
    assert entry.path.read_text() == FOREIGN + "Hidden=true\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in a read-only folder")
def test_a_read_only_folder_is_explained(tmp_path: Path) -> None:
    entry = autostart(tmp_path)
    entry.path.parent.mkdir(parents=True)
    entry.path.parent.chmod(0o500)
    try:
        with pytest.raises(AutostartProblem) as refused:
            entry.enable()
    finally:
        entry.path.parent.chmod(0o700)

    assert f"the folder {entry.path.parent} is read-only to you" in str(refused.value)
    assert str(refused.value).endswith("It does not start at login.")
    assert list(entry.path.parent.iterdir()) == []


def test_a_file_where_the_folder_belongs_is_explained(tmp_path: Path) -> None:
    entry = autostart(tmp_path)
    entry.path.parent.parent.mkdir(parents=True)
    entry.path.parent.write_text("not a folder")

    with pytest.raises(AutostartProblem) as refused:
        entry.enable()

    assert f"{entry.path.parent} is not a folder" in str(refused.value)
    assert entry.path.parent.read_text() == "not a folder"
    assert not entry.is_enabled()


def test_the_macos_launch_agent(tmp_path: Path) -> None:
    entry = autostart(tmp_path, "darwin")

    entry.enable()

    assert entry.path.parent == tmp_path / "home" / "Library" / "LaunchAgents"
    agent = plistlib.loads(entry.path.read_bytes())
    assert agent["Label"] + ".plist" == entry.path.name
    assert agent["ProgramArguments"] == [str(SPACED), "--hidden"]
    assert agent["RunAtLoad"] is True
    assert agent[MARK] is True
    assert entry.is_enabled()
    agent["Disabled"] = True
    entry.path.write_bytes(plistlib.dumps(agent))
    assert not entry.is_enabled()
    entry.enable()
    assert "Disabled" not in plistlib.loads(entry.path.read_bytes())
    entry.disable()
    assert not entry.path.exists()


def test_the_windows_startup_script(tmp_path: Path) -> None:
    appdata = tmp_path / "App Data" / "Roaming"
    program = Path("C:/Users/Ann 100%/venv/Scripts/pythonw.exe")
    launcher = Launcher(program, ("-m", "desktop.app", "--hidden"), Path("C:/src/rev & co"))
    entry = Autostart("win32", tmp_path / "home", {"APPDATA": str(appdata)}, launcher)

    entry.enable()

    assert entry.path == (
        appdata / "Microsoft" / "Windows" / "Start Menu" / "Programs" / "Startup" / "Reverie.cmd"
    )
    text = entry.path.read_bytes().decode("utf-8")
    lines = text.split("\r\n")
    assert lines[0] == "@echo off"
    assert f"rem {MARK}" in lines
    assert 'cd /d "C:/src/rev & co"' in lines
    assert (
        'start "" "C:/Users/Ann 100%%/venv/Scripts/pythonw.exe" "-m" "desktop.app" "--hidden"'
        in lines
    )
    assert entry.is_enabled()
    entry.disable()
    assert not entry.path.exists()


def test_a_foreign_windows_script_is_never_removed(tmp_path: Path) -> None:
    entry = Autostart("win32", tmp_path, {"APPDATA": str(tmp_path)}, LAUNCHER)
    entry.path.parent.mkdir(parents=True)
    entry.path.write_text("@start reverie\r\n")

    with pytest.raises(AutostartProblem):
        entry.disable()
    assert entry.path.exists()


def test_the_override_folder_holds_the_entry(tmp_path: Path) -> None:
    for platform, name in [("linux", "reverie.desktop"), ("darwin", "org.reverie.Reverie.plist")]:
        entry = autostart(tmp_path, platform, **{ENV_AUTOSTART: str(tmp_path / "here")})
        assert entry.path == tmp_path / "here" / name


def test_this_installation_is_its_script_in_a_venv(tmp_path: Path) -> None:
    bin_dir = tmp_path / "my venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").touch()
    (bin_dir / "reverie").touch()

    by_script = this_installation("linux", str(bin_dir / "reverie"), str(bin_dir / "python"))
    by_module = this_installation("linux", "-m", str(bin_dir / "python"))  # python -m desktop.app

    assert by_script.command == (str(bin_dir / "reverie"), "--hidden")
    assert by_module.command == by_script.command  # the venv's script beside its python


def test_without_a_script_the_interpreter_runs_the_module(tmp_path: Path) -> None:
    python = tmp_path / "python3"
    python.touch()

    launcher = this_installation("linux", str(tmp_path / "app.py"), str(python))

    assert launcher.command == (str(python), "-m", "desktop.app", "--hidden")
    assert launcher.folder is not None and (launcher.folder / "desktop" / "app.py").is_file()


def test_on_windows_the_windowless_interpreter_runs_it(tmp_path: Path) -> None:
    (tmp_path / "python.exe").touch()
    (tmp_path / "pythonw.exe").touch()

    launcher = this_installation("win32", "reverie", str(tmp_path / "python.exe"))

    assert launcher.command == (str(tmp_path / "pythonw.exe"), "-m", "desktop.app", "--hidden")


def test_a_frozen_bundle_starts_its_own_executable(tmp_path: Path) -> None:
    bundle = tmp_path / "dist" / "reverie"
    for platform, name in [("linux", "reverie"), ("win32", "reverie.exe")]:
        launcher = this_installation(platform, name, str(bundle / name), frozen=True)

        assert launcher.command == (str(bundle / name), "--hidden")
        assert launcher.folder is None
