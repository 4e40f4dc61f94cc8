"""Where things are, for tests that read or run files of the checkout: `ROOT` is the repository
root (the folder of README.md), `SUPPORT` the folder of the tests' helper modules."""

from pathlib import Path

SUPPORT = Path(__file__).resolve().parent
ROOT = SUPPORT.parent.parent
