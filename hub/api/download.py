"""Serving a stored file: ranges, validators and a header-safe filename."""

from __future__ import annotations

import re
import unicodedata
from typing import BinaryIO
from urllib.parse import quote

_RANGE = re.compile(r"\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*\Z", re.IGNORECASE)


class Unsatisfiable(Exception):
    """A byte range that starts past the end of the file."""


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
    if not first:  # the last N bytes
        suffix = int(last)
        if suffix == 0 or size == 0:
            raise Unsatisfiable
        return max(0, size - suffix), size - 1
    start = int(first)
    end = int(last) if last else size - 1
    if last and end < start:
        return None  # malformed: ignored
    if start >= size:
        raise Unsatisfiable
    return start, min(end, size - 1)


def etag_matches(header: str | None, etag: str) -> bool:
    """Whether ``If-None-Match`` names ``etag`` (weak comparison, or ``*``)."""
    if not header:
        return False
    if header.strip() == "*":
        return True
    tags = [t.strip().removeprefix("W/") for t in header.split(",")]
    return etag in tags


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
    """Reads ``length`` bytes of an open file from its current position, then closes it."""

    def __init__(self, file: BinaryIO, length: int):
        self._file = file
        self._left = length

    def read(self, size: int = -1) -> bytes:
        if self._left <= 0:
            return b""
        size = self._left if size is None or size < 0 else min(size, self._left)
        data = self._file.read(size)
        self._left -= len(data)
        return data

    def close(self) -> None:
        self._file.close()
