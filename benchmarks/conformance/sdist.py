"""autograd's sdist, downloaded from the package index with pip (pinned version) and its
`tests/` extracted under a build folder; nothing of it is stored in this repository.

`tests_folder(build)` returns the extracted folder, downloading and extracting only what is
missing (the tarball is kept in `build`, so a second run needs no network).
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

from . import AUTOGRAD_VERSION


def tests_folder(build: Path, version: str = AUTOGRAD_VERSION) -> Path:
    """build/autograd-<version>/tests, extracted from the sdist (downloaded if missing)."""
    target = build / f"autograd-{version}" / "tests"
    if target.is_dir():
        return target
    build.mkdir(parents=True, exist_ok=True)
    archive = build / f"autograd-{version}.tar.gz"
    if not archive.exists():
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--no-binary", ":all:", f"autograd=={version}", "-d", str(build)],
                       check=True)
    prefix = f"autograd-{version}/tests/"
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.name.startswith(prefix) and m.isfile()]
        tar.extractall(build, members=members, filter="data")
    return target
