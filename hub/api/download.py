"""Serving a stored file: ranges, validators and a header-safe filename."""

from __future__ import annotations

import re
import unicodedata
from typing import BinaryIO
from urllib.parse import quote

# ASCII digits only: \d would also take other scripts' digits, which int() reads.
_RANGE = re.compile(r"\s*bytes\s*=\s*([0-9]*)\s*-\s*([0-9]*)\s*\Z", re.IGNORECASE)
# A media type as RFC 9110 writes it: type/subtype, then optional parameters.
_TOKEN = r"[A-Za-z0-9!#$&^_.+-]+"
_MEDIA_TYPE = re.compile(
    rf"{_TOKEN}/{_TOKEN}(?:[ \t]*;[ \t]*{_TOKEN}=(?:{_TOKEN}|\"[^\"\\\x00-\x1f\x7f-\xff]*\"))*[ \t]*\Z")
FALLBACK_MEDIA_TYPE = "application/octet-stream"


class Unsatisfiable(Exception):
    """A byte range that no byte of the file satisfies, or one too absurd to read."""


def parse_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The inclusive ``(first, last)`` byte positions a ``Range`` header asks for.

    None means: send the whole file (no header, another unit, several ranges or
    a malformed one — a server may ignore Range). Raises Unsatisfiable for a
    range that no byte of the file satisfies.
    """
    if not header:
        return None
    match = _RANGE.match(header)
    if match is None:
        return None
    first, last = match.groups()
    if not first and not last:
        return None
    try:
        # int() refuses numbers of more than 4,300 digits: no file is that big.
        start = int(first) if first else None
        end = int(last) if last else None
    except ValueError:
        raise Unsatisfiable from None
    if start is None:  # the last N bytes: ``last`` is there (both empty returned above)
        suffix = end or 0
        if suffix == 0 or size == 0:
            raise Unsatisfiable
        return max(0, size - suffix), size - 1
    end = size - 1 if end is None else end
    if last and end < start:
        return None  # malformed: ignored
    if start >= size:
        raise Unsatisfiable
    return start, min(end, size - 1)


def range_applies(if_range: str | None, etag: str) -> bool:
    """Whether to honour ``Range`` given ``If-Range``: only when it names our ETag.

    ``If-Range`` holds an ETag or a date; the hub sends no ``Last-Modified``, so
    a date never matches, and a weak ETag never matches either (RFC 9110 13.1.5
    wants a strong comparison). Without the header, ``Range`` applies.
    """
    if if_range is None:
        return True
    return if_range.strip() == etag


def media_type(value: str | None) -> str:
    """The attachment's MIME type if it can be a ``Content-Type``, else octet-stream.

    The type comes from Jira through the agent; one with CR/LF, characters
    outside ASCII or no ``type/subtype`` shape would break the header (or the
    whole response), so the file is served as plain bytes instead.
    """
    if value and _MEDIA_TYPE.match(value):
        return value
    return FALLBACK_MEDIA_TYPE


def content_disposition(filename: str) -> str:
    """``attachment`` with the filename, safe in a header whatever it holds.

    The plain ``filename`` is an ASCII stand-in without quotes, backslashes,
    slashes or control characters; ``filename*`` carries the real name,
    percent-encoded (RFC 6266, RFC 8187), with path separators replaced.
    """
    name = "".join("_" if c in "/\\" or unicodedata.category(c).startswith("C") else c
                   for c in filename).strip().lstrip(".") or "attachment"
    fallback = "".join(c if 0x20 <= ord(c) < 0x7F and c not in '"%;' else "_" for c in name)
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"


class FileSlice:
    """``length`` bytes of an open file from ``offset``, as a seekable file of their own.

    waitress streams a ``wsgi.file_wrapper`` from its event loop, freeing the
    worker thread, only when the object has ``seek`` and ``tell``; it measures
    what to send by seeking to the end. So positions here are relative to the
    slice and the end is the slice's end. Servers without a file wrapper (and
    Falcon's test client) read to EOF, which is the slice's end too.
    """

    def __init__(self, file: BinaryIO, offset: int, length: int):
        self._file = file
        self._offset = offset
        self._length = length
        self._pos = 0
        file.seek(offset)

    def read(self, size: int | None = -1) -> bytes:
        left = self._length - self._pos
        if left <= 0:
            return b""
        size = left if size is None or size < 0 else min(size, left)
        data = self._file.read(size)
        self._pos += len(data)
        return data

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, position: int, whence: int = 0) -> int:
        base = {0: 0, 1: self._pos, 2: self._length}[whence]
        self._pos = max(0, min(self._length, base + position))
        self._file.seek(self._offset + self._pos)
        return self._pos

    def close(self) -> None:
        self._file.close()
