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


# Where the page's modules are announced (index.html holds the marker once, in its head).
PRELOADS = b"<!-- modulepreload -->"
# The page's files are also served under the version of the whole set, which never changes what
# it names: a browser keeps them without asking again (a year, "immutable").
FOREVER = "public, max-age=31536000, immutable"


def load_files(directory: Path = STATIC_DIR) -> dict[str, StaticFile]:
    """Every file of ``directory`` (not its subdirectories), by name. The page's index names each of
    the others under the set's :func:`version` (``/ui/v/{version}/app.js``), and every module of
    the page as a ``modulepreload``."""
    bodies = {path.name: path.read_bytes() for path in sorted(directory.iterdir())
              if path.is_file() and not path.name.startswith(".")}
    if INDEX in bodies:
        modules = sorted(name for name in bodies if name.endswith(".js"))
        page = with_preloads(bodies[INDEX], modules)
        bodies[INDEX] = page.replace(b'"/ui/', b'"/ui/v/%s/' % version(bodies).encode())
    files = {}
    for name, body in bodies.items():
        media = MEDIA_TYPES.get(Path(name).suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"
        files[name] = StaticFile(body, media, f'"{hashlib.sha256(body).hexdigest()[:32]}"')
    return files


def version(bodies: dict[str, bytes] | dict[str, StaticFile]) -> str:
    """The version of the page's files but the index: a hash of their names and contents, so a
    hub whose files changed names them anew, and a browser fetches them again."""
    digest = hashlib.sha256()
    for name in sorted(bodies):
        if name == INDEX:
            continue
        body = bodies[name]
        digest.update(b"%s\0%s\0" % (name.encode(), body.body if isinstance(body, StaticFile) else body))
    return digest.hexdigest()[:16]


def with_preloads(page: bytes, modules: list[str]) -> bytes:
    """The page with a ``<link rel="modulepreload">`` for each module in place of its marker.

    The modules import one another, and each answer names the next: without the links a
    browser learns of the sixth module only after five fetches one after another. With them, it
    asks for all of them at once as the page starts; the links are made from the files, so no
    list is kept by hand."""
    links = b"\n".join(b'<link rel="modulepreload" href="/ui/%s">' % name.encode() for name in modules)
    return page.replace(PRELOADS, links, 1)


def _answer(req: falcon.Request, resp: falcon.Response, file: StaticFile, head: bool = False,
            cache: str = "no-cache") -> None:
    resp.set_header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    resp.set_header("Referrer-Policy", "no-referrer")
    # The page and the unversioned names are asked again each time (a 304 while the hub's copy
    # is unchanged), so a new hub's page shows at once; it names its files by their version.
    resp.set_header("Cache-Control", cache)
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
        self._version = version(files)

    def on_get(self, req: falcon.Request, resp: falcon.Response, name: str, version: str | None = None) -> None:
        """One file of the interface (``/ui/{name}``, or ``/ui/v/{version}/{name}`` as the page names it)."""
        _answer(req, resp, self._file(name), cache=self._cache(version))

    def on_head(self, req: falcon.Request, resp: falcon.Response, name: str, version: str | None = None) -> None:
        """One file's headers."""
        _answer(req, resp, self._file(name), head=True, cache=self._cache(version))

    def _cache(self, version: str | None) -> str:
        # Another version's name (a page an older or newer hub served) still gets this hub's
        # file, asked again next time, so a page open across an upgrade keeps working.
        return FOREVER if version == self._version else "no-cache"

    def _file(self, name: str) -> StaticFile:
        file = self._files.get(name)
        if file is None or name == INDEX:
            raise falcon.HTTPNotFound(title="Not found", description=f"no file {name[:40]!r} in the web interface")
        return file
