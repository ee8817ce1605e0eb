"""The file store in an S3-compatible object store (``HUB_STORE_URL=s3://bucket/prefix``).

Objects: ``<prefix>/<sha256>``, each a whole, verified attachment file. The
endpoint, credentials and region come from the usual ``AWS_*`` variables
(``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``,
``AWS_REGION``), as boto3 reads them.

Uploads. The body is read in parts of :data:`PART_BYTES` (never whole) and
hashed as it goes. A body that fits in one part is hashed first and then put
under its name. A longer one goes up as a multipart upload, which S3 shows
under no name until it is completed: when the agent names the sha256
(``X-Content-SHA256``, as the reference agent does) the upload is made under
``<prefix>/<sha256>`` and completed only once the hash matches, else aborted;
without it, under ``<prefix>/.tmp/<pid>-<uuid>``, then copied (server-side) to
its name once the hash is known, and the temporary object removed. A cut-off or
refused upload is aborted; one whose process died is an abandoned multipart
upload (or a ``.tmp/`` object) that the cleanup's ``tmp`` rule removes after an
hour.

Downloads. A reader that stops reading must hold no hub thread, and a response
streamed from S3 would hold one for as long as the reader dawdles. So each node
keeps a private cache (``<HUB_DATA_DIR>/cache/files``, 0700, files 0600): a
download first fills the cache file from S3 (a thread is held only while S3
sends, at S3's pace, never the client's), checks its sha256 against its name,
and is then served from the local file through ``wsgi.file_wrapper``, from
waitress's event loop, with ranges, like the local store. The cache keeps the
most recently read files within ``HUB_STORE_CACHE_BYTES``.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
import time
import uuid
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from hub.datadir import ensure_private_dir, new_private_file
from hub.errors import BadRequest, ContractError, TooLarge, Unavailable
from hub.services.files.store import FileStore, StoredFile, is_sha256, remove_dead_parts

log = logging.getLogger(__name__)

# S3 wants every part but the last to be at least 5 MiB; 8 MiB is boto3's own default.
PART_BYTES = 8 * 1024 * 1024
COPY_LIMIT = 5 * 1024**3  # CopyObject's limit; larger objects are copied in parts
READ_BYTES = 1024 * 1024
TMP = ".tmp"
LOOKUPS = 16  # HEAD requests side by side for a page of attachment states
USAGE_SECONDS = 60.0  # the overview and /metrics ask often; listing a bucket is not free


def parse_store_url(url: str) -> tuple[str, str]:
    """``s3://bucket/prefix`` as ``(bucket, prefix)``, the prefix without slashes at its ends."""
    parts = urlsplit(url)
    if parts.scheme != "s3" or not parts.netloc:
        raise ValueError(f"not an s3://bucket/prefix URL: {url!r}")
    return parts.netloc, parts.path.strip("/")


_loader: Any = None
_loader_lock = threading.Lock()


def boto_session(boto3: Any) -> Any:
    """A new boto3 session (a session is not for sharing between threads) that reads
    botocore's service models through the one loader of this process: reading them
    costs a fifth of a second of CPU, and a process makes a client for each store it
    opens and for its start check."""
    import botocore.loaders
    import botocore.session

    global _loader
    with _loader_lock:
        if _loader is None:
            _loader = botocore.loaders.create_loader()
    core = botocore.session.get_session()
    core.register_component("data_loader", _loader)
    return boto3.session.Session(botocore_session=core)


def s3_client() -> Any:
    """A boto3 S3 client configured by the ``AWS_*`` variables (path-style addressing,
    which every S3-compatible server takes)."""
    try:
        import boto3
        from botocore.config import Config as BotoConfig
    except ImportError:
        raise Unavailable("HUB_STORE_URL names an S3 bucket, and boto3 is not installed: "
                          "pip install '.[s3]'") from None
    return boto_session(boto3).client(
        "s3", config=BotoConfig(s3={"addressing_style": "path"}, retries={"max_attempts": 3, "mode": "standard"},
                                connect_timeout=10, read_timeout=60,
                                # The hub's threads and the lookups of a page of states share it.
                                max_pool_connections=64))


class S3FileStore(FileStore):
    """Attachment files as objects ``<prefix>/<sha256>`` of one bucket, read through a local cache."""

    def __init__(self, client: Any, bucket: str, prefix: str, cache_dir: Path, cache_bytes: int):
        from botocore.exceptions import BotoCoreError, ClientError

        self._client = client
        self._bucket = bucket
        self._prefix = f"{prefix}/" if prefix else ""
        self._cache = cache_dir
        self._cache_tmp = cache_dir / TMP
        self._cache_bytes = cache_bytes
        self._errors = (BotoCoreError, ClientError)
        self._client_error = ClientError
        self._fills: dict[str, threading.Lock] = {}
        self._fills_lock = threading.Lock()
        self._usage: tuple[float, dict] | None = None
        self.where = f"s3://{bucket}/{prefix}"

    @classmethod
    def from_url(cls, url: str, cache_dir: Path, cache_bytes: int) -> S3FileStore:
        bucket, prefix = parse_store_url(url)
        return cls(s3_client(), bucket, prefix, cache_dir, cache_bytes)

    # -- names ---------------------------------------------------------------

    def _key(self, sha256: str) -> str:
        if not is_sha256(sha256):
            raise ValueError(f"not a sha256: {sha256!r}")
        return self._prefix + sha256

    @contextmanager
    def _s3(self, doing: str) -> Iterator[None]:
        """S3's failures (unreachable, refused, throttled) as the hub's 503."""
        try:
            yield
        except self._errors as exc:
            log.warning("file store %s: %s failed: %s", self.where, doing, exc)
            raise Unavailable(f"the file store ({self.where}) cannot {doing} just now: "
                              f"{_reason(exc)}") from exc

    def _missing(self, exc: Exception) -> bool:
        return isinstance(exc, self._client_error) and \
            exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound")

    # -- reading -------------------------------------------------------------

    def size(self, sha256: str) -> int | None:
        try:
            key = self._key(sha256)
        except ValueError:
            return None
        try:
            return int(self._client.head_object(Bucket=self._bucket, Key=key)["ContentLength"])
        except self._errors as exc:
            if self._missing(exc):
                return None
            with self._s3("look a file up"):
                raise

    def present(self, names: Iterable[str]) -> set[str]:
        """One HEAD per name, up to :data:`LOOKUPS` at once: a page of states
        waits for the slowest of a few requests, not for the sum of them all."""
        names = list(names)
        if len(names) <= 1:
            return {name for name in names if self.size(name) is not None}
        with ThreadPoolExecutor(min(LOOKUPS, len(names)), thread_name_prefix="s3-head") as pool:
            sizes = list(pool.map(self.size, names))
        return {name for name, size in zip(names, sizes, strict=True) if size is not None}

    def open(self, sha256: str) -> BinaryIO:
        try:
            self._key(sha256)
        except ValueError:
            raise FileNotFoundError(sha256) from None
        cached = self._cache / sha256
        with self._fill_lock(sha256):
            try:
                file = open(cached, "rb")  # noqa: SIM115 -- the caller closes it
            except FileNotFoundError:
                pass
            else:
                # Most recently read: the last the cache lets go (unless trimmed meanwhile:
                # the open file reads on all the same).
                with contextlib.suppress(FileNotFoundError):
                    os.utime(cached)
                return file
            self._fill(sha256, cached)
            file = open(cached, "rb")  # noqa: SIM115 -- the caller closes it
        self._trim(keep=sha256)
        return file

    def reader(self, sha256: str) -> BinaryIO:
        try:
            key = self._key(sha256)
        except ValueError:
            raise FileNotFoundError(sha256) from None
        try:
            return self._client.get_object(Bucket=self._bucket, Key=key)["Body"]
        except self._errors as exc:
            if self._missing(exc):
                raise FileNotFoundError(sha256) from None
            with self._s3("send a file"):
                raise

    @contextmanager
    def _fill_lock(self, sha256: str) -> Iterator[None]:
        """One fill per file at a time in this process: a second reader waits for
        the first's file instead of fetching the same object again."""
        with self._fills_lock:
            lock = self._fills.setdefault(sha256, threading.Lock())
        try:
            with lock:
                yield
        finally:
            with self._fills_lock:
                if not lock.locked():
                    self._fills.pop(sha256, None)

    def _fill(self, sha256: str, cached: Path) -> None:
        """Copy the object into the cache, checking that its content is its name."""
        ensure_private_dir(self._cache)
        ensure_private_dir(self._cache_tmp)
        partial = self._cache_tmp / f"{os.getpid()}-{uuid.uuid4().hex}.part"
        try:
            digest = hashlib.sha256()
            with new_private_file(partial) as out:
                try:
                    body = self._client.get_object(Bucket=self._bucket, Key=self._key(sha256))["Body"]
                    while chunk := body.read(READ_BYTES):
                        digest.update(chunk)
                        out.write(chunk)
                    body.close()
                except self._errors as exc:
                    if self._missing(exc):
                        raise FileNotFoundError(sha256) from None
                    with self._s3("send a file"):
                        raise
            if digest.hexdigest() != sha256:
                # Not the content its name promises (damaged in the store): served as missing.
                log.error("file store %s: object %s holds content of sha256 %s; not served",
                          self.where, sha256, digest.hexdigest())
                raise FileNotFoundError(sha256)
            os.replace(partial, cached)
        finally:
            partial.unlink(missing_ok=True)

    def _trim(self, keep: str) -> None:
        """Let go of the least recently read cache files past the cache's bound.
        A file being sent stays readable: the open file outlives its name."""
        entries = []
        try:
            for entry in os.scandir(self._cache):
                if entry.is_file(follow_symlinks=False) and is_sha256(entry.name):
                    st = entry.stat(follow_symlinks=False)
                    entries.append((st.st_mtime, entry.name, st.st_size))
        except FileNotFoundError:
            return
        total = sum(size for _, _, size in entries)
        for _, name, size in sorted(entries):
            if total <= self._cache_bytes:
                break
            if name != keep:
                (self._cache / name).unlink(missing_ok=True)
                total -= size

    # -- writing -------------------------------------------------------------

    def receive(self, stream: BinaryIO, *, length: int | None, max_bytes: int,
                expected_sha256: str | None = None) -> tuple[str, int]:
        if length is not None and length > max_bytes:
            raise TooLarge(f"the file is {length} bytes; this hub takes at most {max_bytes} "
                           "(HUB_MAX_UPLOAD_BYTES)")
        expected = expected_sha256.lower() if expected_sha256 else None
        digest, size = hashlib.sha256(), 0

        def next_part() -> bytes:
            nonlocal size
            part = _read_part(stream, PART_BYTES)
            size += len(part)
            if size > max_bytes:
                raise TooLarge(f"the file is over {max_bytes} bytes (HUB_MAX_UPLOAD_BYTES)")
            digest.update(part)
            return part

        def verified() -> str:
            sha256 = digest.hexdigest()
            if length is not None and size != length:
                raise BadRequest(f"the upload ended after {size} of {length} bytes")
            if expected is not None and expected != sha256:
                raise ContractError(
                    f"the content's sha256 is {sha256}, not {expected_sha256} as "
                    "X-Content-SHA256 says; nothing was stored", "X-Content-SHA256")
            return sha256

        first = next_part()
        if len(first) < PART_BYTES:
            # All of it is here: checked first, then put under its name in one request.
            sha256 = verified()
            with self._s3("store a file"):
                self._client.put_object(Bucket=self._bucket, Key=self._key(sha256), Body=first)
            self._usage = None
            return sha256, size
        temporary = expected is None or not is_sha256(expected)
        key = f"{self._prefix}{TMP}/{os.getpid()}-{uuid.uuid4().hex}" if expected is None or temporary \
            else self._key(expected)
        with self._s3("take an upload"):
            upload_id = self._client.create_multipart_upload(Bucket=self._bucket, Key=key)["UploadId"]
        completed = False
        try:
            parts: list[dict] = []
            part = first
            while part:
                with self._s3("take an upload"):
                    etag = self._client.upload_part(Bucket=self._bucket, Key=key, UploadId=upload_id,
                                                    PartNumber=len(parts) + 1, Body=part)["ETag"]
                parts.append({"ETag": etag, "PartNumber": len(parts) + 1})
                part = next_part()
            sha256 = verified()  # before completing: until then no object has the name
            with self._s3("store a file"):
                self._client.complete_multipart_upload(Bucket=self._bucket, Key=key, UploadId=upload_id,
                                                       MultipartUpload={"Parts": parts})
                completed = True
                if temporary:
                    self._copy(key, self._key(sha256), size)
        finally:
            if not completed:
                self._abort(key, upload_id)
            elif temporary:
                self._delete(key)
        self._usage = None
        return sha256, size

    def _copy(self, source: str, target: str, size: int) -> None:
        if size <= COPY_LIMIT:
            self._client.copy_object(Bucket=self._bucket, Key=target,
                                     CopySource={"Bucket": self._bucket, "Key": source})
        else:  # boto3's managed copy: UploadPartCopy, completed once every part is copied
            self._client.copy({"Bucket": self._bucket, "Key": source}, self._bucket, target)

    def _abort(self, key: str, upload_id: str) -> None:
        try:
            self._client.abort_multipart_upload(Bucket=self._bucket, Key=key, UploadId=upload_id)
        except self._errors as exc:  # the cleanup's tmp rule aborts it later
            log.warning("file store %s: could not abort upload %s of %s: %s", self.where, upload_id, key, exc)

    def _delete(self, key: str) -> None:
        try:
            self._client.delete_object(Bucket=self._bucket, Key=key)
        except self._errors as exc:  # the cleanup's tmp rule removes it later
            log.warning("file store %s: could not remove %s: %s", self.where, key, exc)

    # -- listing and cleanup -------------------------------------------------

    def _objects(self, prefix: str) -> Iterator[dict]:
        with self._s3("list its files"):
            for page in self._client.get_paginator("list_objects_v2").paginate(
                    Bucket=self._bucket, Prefix=prefix):
                yield from page.get("Contents", [])

    def files(self) -> list[StoredFile]:
        found = []
        for item in self._objects(self._prefix):
            name = item["Key"][len(self._prefix):]
            if is_sha256(name):
                found.append(StoredFile(name, int(item["Size"]), item["LastModified"].timestamp(),
                                        item["Key"]))
        return found

    def uploads(self) -> list[StoredFile]:
        found = [StoredFile(item["Key"][len(self._prefix) + len(TMP) + 1:], int(item["Size"]),
                            item["LastModified"].timestamp(), item["Key"])
                 for item in self._objects(f"{self._prefix}{TMP}/")]
        with self._s3("list its uploads"):
            for page in self._client.get_paginator("list_multipart_uploads").paginate(
                    Bucket=self._bucket, Prefix=self._prefix):
                for upload in page.get("Uploads", []):
                    size = sum(int(part["Size"]) for part in self._parts(upload["Key"], upload["UploadId"]))
                    found.append(StoredFile(f"upload:{upload['Key'][len(self._prefix):]}", size,
                                            upload["Initiated"].timestamp(), (upload["Key"], upload["UploadId"])))
        return found

    def _parts(self, key: str, upload_id: str) -> list[dict]:
        try:
            parts: list[dict] = []
            for page in self._client.get_paginator("list_parts").paginate(
                    Bucket=self._bucket, Key=key, UploadId=upload_id):
                parts += page.get("Parts", [])
            return parts
        except self._errors:  # completed or aborted meanwhile: nothing left of it
            return []

    def remove(self, entry: StoredFile) -> None:
        with self._s3("remove a file"):
            if isinstance(entry.ref, tuple):
                key, upload_id = entry.ref
                try:
                    self._client.abort_multipart_upload(Bucket=self._bucket, Key=key, UploadId=upload_id)
                except self._client_error as exc:
                    if exc.response.get("Error", {}).get("Code") not in ("NoSuchUpload", "404"):
                        raise
            else:
                key = entry.ref if isinstance(entry.ref, str) else self._key(entry.name)
                self._client.delete_object(Bucket=self._bucket, Key=key)
                if is_sha256(entry.name):
                    (self._cache / entry.name).unlink(missing_ok=True)
        self._usage = None

    def remove_leftovers(self) -> list[str]:
        """The cache fills this node's dead processes left. Uploads in the bucket may be
        another node's, alive: the cleanup's ``tmp`` rule takes them after an hour."""
        return [str(path) for path in remove_dead_parts(self._cache_tmp)]

    def usage(self) -> dict:
        cached = self._usage
        if cached is not None and time.monotonic() - cached[0] < USAGE_SECONDS:
            return cached[1]
        usage = super().usage()
        self._usage = (time.monotonic(), usage)
        return usage

    def check(self) -> None:
        with self._s3("be reached"):
            self._client.head_bucket(Bucket=self._bucket)

    def close(self) -> None:
        # botocore's pools are emptied, not ended: a later request opens a connection again.
        self._client.close()


def _read_part(stream: BinaryIO, size: int) -> bytes:
    """Up to ``size`` bytes, fewer only at the end of the stream (reads may return less)."""
    pieces, got = [], 0
    while got < size:
        piece = stream.read(size - got)
        if not piece:
            break
        pieces.append(piece)
        got += len(piece)
    return b"".join(pieces)


def _reason(exc: Exception) -> str:
    response = getattr(exc, "response", None)
    if isinstance(response, dict) and "Error" in response:
        error = response["Error"]
        return f"{error.get('Code', '?')} {error.get('Message', '')}".strip()
    return str(exc)
