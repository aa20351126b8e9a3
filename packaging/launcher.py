"""The frozen bundle's entry point: what ``reverie`` (``desktop.app:main``) runs.

PyInstaller starts from a script, not from an entry point; this is that
script and nothing more.
"""

import sys

from desktop.app import main

if __name__ == "__main__":
    sys.exit(main())
