"""Attachment upload and download through a real hub, against ``cp`` of the same file.

Starts ``hub serve --no-worker`` on a scratch data dir, uploads a file of
``--size`` MiB as a fetch_attachment's content (streamed from disk), downloads
it again, and prints each throughput beside the throughput of ``cp`` of the
same file measured in the same run, as a ratio (target >= 0.5), and the
server's peak resident memory (VmHWM) over the whole run (target < 150 MB).

    python bench/transfer.py [--size 1024]
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.figures import verdict
from bench.server import ScratchHub

MB = 1024 * 1024


def make_file(path: Path, size: int) -> str:
    digest = hashlib.sha256()
    with open(path, "wb") as out:
        written = 0
        while written < size:
            piece = os.urandom(min(MB, size - written))
            digest.update(piece)
            out.write(piece)
            written += len(piece)
    return digest.hexdigest()


def peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024


def attachment_id(n: int) -> str:
    return str(10001 + n)  # Jira's attachment ids are numbers, and none is 0


@dataclass
class Site:
    """The hub being measured: its port and a token of each role."""

    port: int
    agent: str
    ui: str

    def call(self, method: str, path: str, token: str, body=None) -> dict:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        conn.request(method, path, body=None if body is None else json.dumps(body),
                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        resp = conn.getresponse()
        data = json.loads(resp.read() or b"{}")
        conn.close()
        return data

    def upload(self, n: int, source: Path, sha: str, size: int, data_dir: Path) -> None:
        """Fetch attachment ``n``: the agent PUTs ``source`` as its content and reports it done."""
        command = self.call("POST", f"/api/v1/attachments/{attachment_id(n)}/fetch", self.ui)["command"]
        self.call("POST", "/agent/v1/claim", self.agent,
                  {"agent_id": "a", "version": 14, "types": ["fetch_attachment"]})
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        conn.putrequest("PUT", f"/agent/v1/commands/{command['id']}/file")
        conn.putheader("Authorization", f"Bearer {self.agent}")
        conn.putheader("Content-Length", str(size))
        conn.putheader("X-Content-SHA256", sha)
        conn.endheaders()
        with open(source, "rb") as body:
            while piece := body.read(MB):
                conn.send(piece)
        resp = conn.getresponse()
        result = json.loads(resp.read())
        conn.close()
        assert result == {"sha256": sha, "size": size}, result
        self.call("POST", f"/agent/v1/commands/{command['id']}/done", self.agent, {"result": result})
        # The next upload of the same content must write it again, not find it stored.
        (data_dir / "files" / sha).unlink()

    def download(self, n: int, size: int, target: Path) -> None:
        """Attachment ``n``'s content, written to ``target``."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        conn.request("GET", f"/api/v1/attachments/{attachment_id(n)}/content",
                     headers={"Authorization": f"Bearer {self.ui}"})
        resp = conn.getresponse()
        got = 0
        with open(target, "wb") as out:
            while piece := resp.read(MB):
                out.write(piece)
                got += len(piece)
        conn.close()
        assert got == size


def print_figures(size_mb: int, times: dict[str, list[float]], rss: float, rss_after_uploads: float) -> None:
    """The medians of ``times`` as rates, each transfer's against the copies of the same file."""
    size = size_mb * MB
    median = {name: statistics.median(values) for name, values in times.items()}
    cp_rate = size / MB / median["cp"]
    print(f"cp        {size_mb} MiB in {median['cp']:6.2f} s = {cp_rate:7.1f} MiB/s"
          f" (median of {len(times['cp'])}: {', '.join(f'{t:.2f}' for t in times['cp'])})")
    durable_rate = size / MB / median["cp+fsync"]
    print(f"cp+fsync  {size_mb} MiB in {median['cp+fsync']:6.2f} s = {durable_rate:7.1f} MiB/s")
    twice_rate = size / MB / median["cp twice"]
    print(f"cp twice  {size_mb} MiB in {median['cp twice']:6.2f} s = {twice_rate:7.1f} MiB/s"
          " (the floor for a server that spools bodies)")
    for name in ("upload", "download"):
        rate = size / MB / median[name]
        ratio = rate / cp_rate
        print(f"{name:<9} {size_mb} MiB in {median[name]:6.2f} s = {rate:7.1f} MiB/s; ratio to cp"
              f" {ratio:4.2f} {verdict(ratio >= 0.5, '>= 0.5', 'UNDER TARGET')};"
              f" to cp+fsync {rate / durable_rate:4.2f}; to cp twice {rate / twice_rate:4.2f}"
              f" ({', '.join(f'{t:.2f}' for t in times[name])})")
    print(f"server peak RSS {rss:6.1f} MB {verdict(rss < 150, '< 150 MB')};"
          f" {rss_after_uploads:.1f} MB after the uploads")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1024, help="file size in MiB (default 1024)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    args = parser.parse_args()
    size = args.size * MB

    with ScratchHub("hub-bench-transfer-") as scratch:
        work, data_dir = scratch.work, scratch.data_dir
        source = work / "source.bin"
        sha = make_file(source, size)
        agent = scratch.token("agent", "agent")
        ui = scratch.token("ui", "interface")

        site = Site(scratch.serve(HUB_MAX_UPLOAD_BYTES=str(size + MB)), agent, ui)

        refresh = site.call("POST", "/api/v1/commands", ui, {"type": "refresh", "params": {"jql": "key = X-1"}})
        site.call("POST", "/agent/v1/claim", agent, {"agent_id": "a", "version": 14})
        site.call("POST", f"/agent/v1/commands/{refresh['id']}/state", agent, {"issues": [
            {"key": "X-1", "id": "1", "attachments": [
                {"id": attachment_id(n), "filename": f"big-{n}.bin", "size": size} for n in range(args.repeat)]}]})
        site.call("POST", f"/agent/v1/commands/{refresh['id']}/done", agent, {"result": {"total": 1}})

        def timed(action) -> float:
            for leftover in ("copy.bin", "copy2.bin", "download.bin"):
                (work / leftover).unlink(missing_ok=True)
            os.sync()  # each measurement starts with no dirty pages of the one before
            started = time.perf_counter()
            action()
            return time.perf_counter() - started

        def copy() -> None:
            subprocess.run(["cp", str(source), str(work / "copy.bin")], check=True)

        def two_copies() -> None:
            # The floor for any server that spools a body before handing it on
            # (waitress does): the content is written twice.
            copy()
            subprocess.run(["cp", str(work / "copy.bin"), str(work / "copy2.bin")], check=True)

        def durable_copy() -> None:
            # What the store must do besides: the copy on disk before answering.
            copy()
            fd = os.open(work / "copy.bin", os.O_RDONLY)
            os.fsync(fd)
            os.close(fd)

        times: dict[str, list[float]] = {"cp": [], "cp+fsync": [], "cp twice": [], "upload": [], "download": []}
        for n in range(args.repeat):
            times["cp"].append(timed(copy))
            times["cp+fsync"].append(timed(durable_copy))
            times["cp twice"].append(timed(two_copies))
            times["upload"].append(timed(functools.partial(site.upload, n, source, sha, size, data_dir)))
        rss_after_uploads = peak_rss_mb(scratch.proc.pid)
        # The last upload's file stays for the downloads.
        hub_file = data_dir / "files" / sha
        shutil.copyfile(source, hub_file)
        for _ in range(args.repeat):
            times["download"].append(timed(functools.partial(site.download, args.repeat - 1, size,
                                                             work / "download.bin")))
        print_figures(args.size, times, peak_rss_mb(scratch.proc.pid), rss_after_uploads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
