"""The release a process runs, for the versions of the pages kept by a cache: a digest of the
project's own code, templates, static files and translations, or of ROUNDHOUSE_RELEASE when the
deploy names its release (an image's tag, a commit).

A public page's version (its ETag, and the keys of what the pages keep in Redis) names the data
it shows; with the release in it, a deploy draws every page anew. Without it, a copy kept by
nginx, a CDN, Redis or a phone would be revalidated as the old release's HTML (a 304) until the
data changed: old wording, and links to static files whose hashed names the new release no
longer has (WhiteNoise's manifest storage)."""

import functools
import hashlib
import os
import tomllib
from pathlib import Path

from django.conf import settings

# What the pages are made of, under BASE_DIR (the collected static files are made from these),
# and the libraries' versions (a new Django may draw a page otherwise). deploy/Dockerfile copies
# each into the image (tests/test_release.py).
SOURCES = (
    "accounts", "clubs", "config", "entries", "prizes", "rallies", "scoring", "tables",
    "tournaments",
    "templates", "locale", "uv.lock",
)  # fmt: skip


@functools.cache
def release() -> str:
    """Eight hex digits naming this process's release; computed once per process (about 2 MB
    read, 15-25 ms), at start (scoring's AppConfig.ready: before gunicorn forks its workers, so
    that they agree even if the files change while they run)."""
    digest = hashlib.blake2b(digest_size=4)
    named = os.environ.get("ROUNDHOUSE_RELEASE", "").strip()
    if named:
        digest.update(named.encode())
        return digest.hexdigest()
    base = Path(settings.BASE_DIR)
    for source in SOURCES:
        paths = [base / source] if (base / source).is_file() else (base / source).rglob("*")
        for path in sorted(paths):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.relative_to(base).as_posix().encode() + b"\x00")
                digest.update(path.read_bytes())
    return digest.hexdigest()


@functools.cache
def version() -> str:
    """Roundhouse's version, as pyproject.toml says it: the one place it is written (a release
    bumps it there and gives CHANGELOG.md's Unreleased section its heading). Read from the file:
    the project is not installed as a package (uv's package = false), so importlib.metadata
    knows none. Shown in the footer of the signed-in pages."""
    with open(Path(settings.BASE_DIR) / "pyproject.toml", "rb") as file:
        return tomllib.load(file)["project"]["version"]
