"""Check that every shared library in the bundle finds what it links against.

``ldd`` is run on the executable and on every ``.so`` in the bundle, with
``LD_LIBRARY_PATH`` set to the bundle's ``_internal`` folder as PyInstaller's
bootloader sets it at run time; any "not found" fails the check, naming the
library and what it misses.  Standard library only: it runs with any Python 3.

Usage: python3 packaging/check_libraries.py [dist/reverie]
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def shared_libraries(bundle: Path) -> list[Path]:
    """The executable and every shared library file (not links) in *bundle*."""
    found = [bundle / bundle.name]
    for path in sorted(bundle.rglob("*.so*")):
        if path.is_file() and not path.is_symlink() and _is_elf(path):
            found.append(path)
    return found


def _is_elf(path: Path) -> bool:
    with path.open("rb") as file:
        return file.read(4) == b"\x7fELF"


def missing_dependencies(library: Path, internal: Path) -> list[str]:
    """The lines of ``ldd``'s report on *library* that say "not found"."""
    env = {**os.environ, "LD_LIBRARY_PATH": str(internal), "LC_ALL": "C"}
    report = subprocess.run(
        ["ldd", str(library)], env=env, capture_output=True, text=True, check=False
    )
    return [line.strip() for line in report.stdout.splitlines() if "not found" in line]


def main(argv: list[str]) -> int:
    bundle = Path(argv[1] if len(argv) > 1 else "dist/reverie").resolve()
    internal = bundle / "_internal"
    if not (bundle / bundle.name).is_file():
        print(f"No bundle at {bundle}: run `make package` first.", file=sys.stderr)
        return 2
    libraries = shared_libraries(bundle)
    failures = 0
    for library in libraries:
        for line in missing_dependencies(library, internal):
            print(f"{library.relative_to(bundle)}: {line}", file=sys.stderr)
            failures += 1
    if failures:
        print(f"{failures} missing dependencies in {len(libraries)} files.", file=sys.stderr)
        return 1
    print(f"ldd: all {len(libraries)} shared libraries in {bundle.name}/ find their dependencies.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
