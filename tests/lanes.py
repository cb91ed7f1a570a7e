"""The suite's lanes (docs/testing.md).

The default lane (``make test``) proves each guarantee at the smallest size that proves it. A test
whose size is a parameter carries the ``soak`` marker and takes its sizes from :func:`sized`; the
soak lane (``make soak``: ``pytest -m soak --soak``) runs the same tests at their soak sizes.
"""

from __future__ import annotations

from typing import TypeVar

Size = TypeVar("Size", int, float)

# Set once per process by tests/conftest.py (pytest_configure), before any test module is
# imported, so that sizes read at import time (hypothesis settings) see it too.
SOAK = False


def sized(default: Size, soak: Size) -> Size:
    """``default`` in the default lane, ``soak`` under ``--soak``."""
    return soak if SOAK else default
