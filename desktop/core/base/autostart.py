"""Starting Reverie when the user logs in: the entry each system reads at login.

Linux (and other XDG desktops): ``$XDG_CONFIG_HOME/autostart/reverie.desktop``;
macOS: a LaunchAgent, ``~/Library/LaunchAgents/<LAUNCH_AGENT_LABEL>.plist``;
Windows: a ``.cmd`` file in the user's Startup folder.  Each starts this
installation of Reverie (the absolute path of its script or interpreter, so a
venv's works too) hidden in the tray.

The entry on disk is the truth: ``is_enabled`` reads it each time.  One the
user turned off elsewhere (their desktop's startup manager writes
``Hidden=true``, a LaunchAgent ``Disabled``) is off, and nothing rewrites it
unless the user switches start at login on in Reverie again.  Reverie marks
the entries it writes (``MARK``) and only ever removes or rewrites its own: a
file someone else put at the same path is left alone, and switching off says
so.  Entries are the user's alone (0600; a folder made for one is 0700).
"""

from __future__ import annotations

import errno
import os
import plistlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from xml.parsers.expat import ExpatError

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.files import make_missing_folders, write_atomically
from desktop.core.base.paths import explain

APP_ID = "reverie"
"""The entry's name on XDG desktops: the application's own desktop entry
(``packaging/reverie.desktop``) has it too, so a startup manager that copied
that one into the autostart folder is seen here as well."""
LAUNCH_AGENT_LABEL = "org.reverie.Reverie"
WINDOWS_FILE_NAME = "Reverie.cmd"
MARK = "X-Reverie-Autostart"
"""The key (a comment on Windows) that says Reverie wrote an entry."""
HIDDEN_ARGUMENT = "--hidden"
ENV_AUTOSTART = "REVERIE_AUTOSTART_DIR"
"""The folder the entry goes in instead of the system's (tests point it
at a temporary folder, as they do every folder of Reverie's)."""

_EXEC_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")
"""Characters that make a Desktop Entry ``Exec`` argument need quotes."""
_READ_LIMIT = 64 * 1024
"""An entry is a few hundred bytes; a larger file at its path is not Reverie's."""


class AutostartProblem(EnvironmentProblem):
    """The entry that starts Reverie at login could not be written, removed or read."""


@dataclass(frozen=True)
class Launcher:
    """How to start this installation: *program* with *arguments* (ending in
    ``--hidden``), from *folder* if it must be started from one (a source
    checkout's ``python -m desktop.app``), and the icon a startup manager
    may show."""

    program: Path
    arguments: tuple[str, ...]
    folder: Path | None = None
    icon: Path | None = None

    @property
    def command(self) -> tuple[str, ...]:
        return (str(self.program), *self.arguments)


_SOURCE_ROOT = Path(__file__).resolve().parents[3]
"""The folder holding the ``desktop`` package (a checkout, or site-packages)."""


def this_installation(
    platform: str, argv0: str, executable: str, icon: Path | None = None, *, frozen: bool = False
) -> Launcher:
    """The launcher of the Reverie started as *argv0* by the interpreter
    *executable* on *platform*: a *frozen* bundle's executable itself; its
    ``reverie`` script when it was started by it (or one stands beside the
    interpreter, as in a venv), else the interpreter running
    ``desktop.app``.  On Windows the windowless ``pythonw.exe`` beside the
    interpreter runs it: a console script would open a console window at
    every login."""
    interpreter = Path(os.path.abspath(executable))
    if frozen:  # PyInstaller's: the executable is Reverie (argv0 may be a bare name)
        return Launcher(interpreter, (HIDDEN_ARGUMENT,), None, icon)
    module = Launcher(interpreter, ("-m", "desktop.app", HIDDEN_ARGUMENT), _SOURCE_ROOT, icon)
    if platform == "win32":
        windowless = interpreter.with_name("pythonw.exe")
        return replace(module, program=windowless) if windowless.is_file() else module
    script = Path(os.path.abspath(argv0)) if argv0 else interpreter.with_name(APP_ID)
    if script.name != APP_ID or not script.is_file():
        script = interpreter.with_name(APP_ID)
    return Launcher(script, (HIDDEN_ARGUMENT,), None, icon) if script.is_file() else module


@dataclass(frozen=True)
class EntryState:
    """What is at the entry's path."""

    exists: bool
    ours: bool
    """Reverie wrote it (it carries ``MARK``)."""
    turned_off: bool
    """It is there but the user turned it off elsewhere (``Hidden=true``,
    ``X-GNOME-Autostart-enabled=false``, a LaunchAgent's ``Disabled``)."""

    @property
    def enabled(self) -> bool:
        return self.exists and not self.turned_off


class Autostart:
    """The login entry of *platform* (``sys.platform``'s words: "linux",
    "darwin", "win32"; any other is taken for an XDG desktop), under *home*,
    honouring ``XDG_CONFIG_HOME``, ``APPDATA`` and ``REVERIE_AUTOSTART_DIR``
    in *env*."""

    def __init__(
        self, platform: str, home: Path, env: Mapping[str, str], launcher: Launcher
    ) -> None:
        self.platform = platform
        self.launcher = launcher
        self.path = _entry_path(platform, home, env)

    def state(self) -> EntryState:
        """What is at the entry's path now; ``AutostartProblem`` if it cannot be read."""
        try:
            with self.path.open("rb") as file:
                data = file.read(_READ_LIMIT + 1)
        except (FileNotFoundError, NotADirectoryError):  # a file where its folder goes: none
            return EntryState(exists=False, ours=False, turned_off=False)
        except OSError as error:
            raise AutostartProblem(
                f"Whether Reverie starts at login cannot be read: {explain(error)}.",
                "Nothing was changed.",
            ) from error
        if len(data) > _READ_LIMIT:
            return EntryState(exists=True, ours=False, turned_off=False)
        if self.platform == "darwin":
            return _launch_agent_state(data)
        if self.platform == "win32":
            text = data.decode("utf-8", "replace")
            return EntryState(exists=True, ours=f"rem {MARK}" in text, turned_off=False)
        return _desktop_entry_state(data.decode("utf-8", "replace"))

    def is_enabled(self) -> bool:
        """Whether Reverie starts at login, as the entry on disk says."""
        return self.state().enabled

    def set_enabled(self, enabled: bool) -> None:
        self.enable() if enabled else self.disable()

    def enable(self) -> None:
        """Write the entry (again: one turned off elsewhere is turned on, as
        the user asked).  ``AutostartProblem`` if it cannot be, or if the
        file there is not Reverie's (it is left alone)."""
        found = self.state()
        if found.exists and not found.ours:
            if found.enabled:
                return  # it starts at login already, by an entry of the user's
            raise AutostartProblem(
                f"{self.path} is there already and Reverie did not write it; it was left as it is.",
                "Turn it on in your system's startup settings, or remove it and try again.",
            )
        try:
            make_missing_folders(self.path.parent)
            write_atomically(self.path, self._entry_text())
        except OSError as error:
            why = _why_not_written(error, self.path)
            raise AutostartProblem(
                f"Reverie could not be set to start at login: {why}.",
                "It does not start at login.",
            ) from error

    def disable(self) -> None:
        """Remove the entry Reverie wrote.  One the user turned off
        elsewhere is left as it is (it no longer starts anything); one that
        is not Reverie's is never removed: ``AutostartProblem`` says so."""
        found = self.state()
        if not found.exists or (found.turned_off and not found.ours):
            return
        if not found.ours:
            raise AutostartProblem(
                f"Reverie starts at login through {self.path}, which Reverie did not "
                "write; it was left as it is.",
                "Turn it off in your system's startup settings, or remove that file.",
            )
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        except OSError as error:
            why = _why_not_written(error, self.path)
            raise AutostartProblem(
                f"Reverie could not stop starting at login: {why}.",
                "It still starts at login.",
            ) from error

    def _entry_text(self) -> str:
        if self.platform == "darwin":
            return launch_agent(self.launcher)
        if self.platform == "win32":
            return startup_script(self.launcher)
        return desktop_entry(self.launcher)


def for_this_system(env: Mapping[str, str] | None = None, icon: Path | None = None) -> Autostart:
    """The login entry of this computer's user, starting this installation."""
    return Autostart(
        sys.platform,
        Path.home(),
        os.environ if env is None else env,
        this_installation(
            sys.platform, sys.argv[0], sys.executable, icon, frozen=getattr(sys, "frozen", False)
        ),
    )


def _entry_path(platform: str, home: Path, env: Mapping[str, str]) -> Path:
    if (override := env.get(ENV_AUTOSTART, "")) and os.path.isabs(override):
        return Path(override) / _entry_path(platform, home, {}).name
    if platform == "darwin":
        return home / "Library" / "LaunchAgents" / f"{LAUNCH_AGENT_LABEL}.plist"
    if platform == "win32":
        appdata = env.get("APPDATA") or str(home / "AppData" / "Roaming")
        startup = Path(appdata, "Microsoft", "Windows", "Start Menu", "Programs", "Startup")
        return startup / WINDOWS_FILE_NAME
    config = env.get("XDG_CONFIG_HOME", "")
    # The spec: a relative XDG_CONFIG_HOME is invalid and is ignored.
    folder = Path(config) if os.path.isabs(config) else home / ".config"
    return folder / "autostart" / f"{APP_ID}.desktop"


def _why_not_written(error: OSError, path: Path) -> str:
    """*error* in a user's words, naming the entry's folder when that is what
    refused (a write's error names a temporary file beside the entry)."""
    if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        folder = path.parent
        kind = "is on a read-only disk" if error.errno == errno.EROFS else "is read-only to you"
        return f"the folder {folder} {kind}"
    return explain(error)


# -- Linux: a Desktop Entry ----------------------------------------------------


def exec_argument(argument: str) -> str:
    """*argument* as the Desktop Entry spec's ``Exec`` key takes it: quoted
    if it holds a reserved character, ``"`$\\`` escaped within the quotes,
    ``%`` doubled (a field code otherwise)."""
    if argument and not _EXEC_RESERVED.intersection(argument):
        return argument.replace("%", "%%")
    escaped = "".join(f"\\{c}" if c in '"`$\\' else c for c in argument)
    return '"' + escaped.replace("%", "%%") + '"'


def string_value(text: str) -> str:
    """*text* as a Desktop Entry string value: the backslash, newline, tab and
    carriage return escaped (this escaping is undone before ``Exec``'s quoting)."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def desktop_entry(launcher: Launcher) -> str:
    """The XDG autostart entry starting *launcher* at login."""
    command = " ".join(exec_argument(part) for part in launcher.command)
    lines = [
        "[Desktop Entry]",
        "Type=Application",
        "Name=Reverie",
        "Comment=A private, local AI companion that remembers you",
        f"Exec={string_value(command)}",
        *([f"Path={string_value(str(launcher.folder))}"] if launcher.folder else []),
        *([f"Icon={string_value(str(launcher.icon))}"] if launcher.icon else []),
        "Terminal=false",
        "X-GNOME-Autostart-enabled=true",
        f"{MARK}=true",
    ]
    return "\n".join(lines) + "\n"


def _desktop_entry_state(text: str) -> EntryState:
    """What the ``[Desktop Entry]`` group of *text* says (a later key of the
    same name wins, as in GLib's reader)."""
    keys: dict[str, str] = {}
    group = ""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            group = line[1:-1]
        elif group == "Desktop Entry" and "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            keys[key.strip()] = value.strip()
    turned_off = (
        keys.get("Hidden") == "true" or keys.get("X-GNOME-Autostart-enabled", "true") == "false"
    )
    return EntryState(exists=True, ours=keys.get(MARK) == "true", turned_off=turned_off)


# -- macOS: a LaunchAgent --------------------------------------------------------


def launch_agent(launcher: Launcher) -> str:
    """The LaunchAgent property list starting *launcher* at login."""
    agent: dict[str, object] = {
        "Label": LAUNCH_AGENT_LABEL,
        "ProgramArguments": list(launcher.command),
        "RunAtLoad": True,
        "ProcessType": "Interactive",
        MARK: True,
    }
    if launcher.folder is not None:
        agent["WorkingDirectory"] = str(launcher.folder)
    return plistlib.dumps(agent).decode("utf-8")


def _launch_agent_state(data: bytes) -> EntryState:
    try:
        agent = plistlib.loads(data)
    except (ValueError, ExpatError):  # not a property list: not Reverie's
        return EntryState(exists=True, ours=False, turned_off=False)
    if not isinstance(agent, dict):
        return EntryState(exists=True, ours=False, turned_off=False)
    turned_off = agent.get("Disabled") is True or agent.get("RunAtLoad") is not True
    return EntryState(exists=True, ours=agent.get(MARK) is True, turned_off=turned_off)


# -- Windows: a script in the Startup folder --------------------------------------


def cmd_argument(argument: str) -> str:
    """*argument* for a ``.cmd`` file: quoted (a path may hold spaces, ``&``,
    ``^``), ``%`` doubled (a variable otherwise)."""
    return '"' + argument.replace("%", "%%") + '"'


def startup_script(launcher: Launcher) -> str:
    """The Startup folder's ``.cmd`` starting *launcher* with no console of
    its own (``start`` returns at once, and the console closes)."""
    command = " ".join(cmd_argument(part) for part in launcher.command)
    # cmd reads a script in the console's code page: 65001 has it read the
    # rest as UTF-8, so a folder named in any language is found.
    lines = ["@echo off", "chcp 65001 >nul", f"rem {MARK}"]
    if launcher.folder is not None:
        lines.append(f"cd /d {cmd_argument(str(launcher.folder))}")
    return "\r\n".join([*lines, f'start "" {command}', ""])
