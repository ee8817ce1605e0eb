"""The web interface's files, served by the hub itself.

The page is plain HTML, CSS and JavaScript modules from ``hub/web/static/``:
no build step, nothing loaded from anywhere but the hub. The files are read
once, when the app is built, and answered from memory with an ETag; a name
outside that set is 404, so no path from a request ever reaches the filesystem.
Every answer carries a Content-Security-Policy that allows only the hub's own
scripts, styles, images and API (no inline script, no ``eval``), so text from
the mirror that slipped into the page as markup could still run nothing.
``X-Content-Type-Options`` and ``X-Frame-Options`` are set on every answer of
the hub, these included (:mod:`hub.api.headers`).
"""

from __future__ import annotations

import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

import falcon

from hub.conditional import etag_matches
from hub.roles import PUBLIC

STATIC_DIR = Path(__file__).resolve().parent / "static"
INDEX = "index.html"
# What each page may load: the hub and nothing else. blob: for images is not
# needed; downloads go through object URLs, which are navigations, not loads.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
MEDIA_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
               ".html": "text/html; charset=utf-8", ".svg": "image/svg+xml"}


@dataclass(frozen=True)
class StaticFile:
    body: bytes
    media_type: str
    etag: str


def load_files(directory: Path = STATIC_DIR) -> dict[str, StaticFile]:
    """Every file of ``directory`` (not its subdirectories), by name."""
    files = {}
    for path in sorted(directory.iterdir()):
        if not path.is_file() or path.name.startswith("."):
            continue
        body = path.read_bytes()
        media = MEDIA_TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        files[path.name] = StaticFile(body, media, f'"{hashlib.sha256(body).hexdigest()[:32]}"')
    return files


def _answer(req: falcon.Request, resp: falcon.Response, file: StaticFile, head: bool = False) -> None:
    resp.set_header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    resp.set_header("Referrer-Policy", "no-referrer")
    # The names carry no version, so a browser asks again each time and gets a
    # 304 while the hub's copy is unchanged: a new hub's files show at once.
    resp.set_header("Cache-Control", "no-cache")
    resp.set_header("ETag", file.etag)
    if etag_matches(req.get_header("If-None-Match"), file.etag):
        resp.status = falcon.HTTP_304
        return
    resp.content_type = file.media_type
    if head:
        resp.content_length = len(file.body)
    else:
        resp.data = file.body


class IndexResource:
    """The web interface's page."""

    roles = PUBLIC

    def __init__(self, files: dict[str, StaticFile]):
        self._page = files[INDEX]

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """The page (HTML)."""
        _answer(req, resp, self._page)

    def on_head(self, req: falcon.Request, resp: falcon.Response) -> None:
        """The page's headers."""
        _answer(req, resp, self._page, head=True)


class AssetResource:
    """The scripts, styles and icon the page loads."""

    roles = PUBLIC

    def __init__(self, files: dict[str, StaticFile]):
        self._files = files

    def on_get(self, req: falcon.Request, resp: falcon.Response, name: str) -> None:
        """One file of the interface."""
        _answer(req, resp, self._file(name))

    def on_head(self, req: falcon.Request, resp: falcon.Response, name: str) -> None:
        """One file's headers."""
        _answer(req, resp, self._file(name), head=True)

    def _file(self, name: str) -> StaticFile:
        file = self._files.get(name)
        if file is None or name == INDEX:
            raise falcon.HTTPNotFound(title="Not found", description=f"no file {name[:40]!r} in the web interface")
        return file
