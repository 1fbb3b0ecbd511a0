"""``python -m tablevar``: the same as the ``tablevar`` command."""

from __future__ import annotations

import sys

from tablevar.cli import main

if __name__ == "__main__":
    sys.exit(main())
