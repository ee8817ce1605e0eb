"""The servers a test run starts end with it when it is killed (devservers/reaper.py): a pytest
running one tiny test that starts a server is sent SIGKILL — with its xdist worker, for one
case — and the server's processes are gone soon after, none left running as after a killed
``make test``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from devservers.reaper import start_time
from tests.support import wait_until

ROOT = Path(__file__).resolve().parents[2]

# The tiny test: starts the server named by $SERVER as the run's helpers do, writes its own
# process id and the server's processes' (the first one the server itself) to $PIDS, and waits.
# PostgreSQL's cluster directory goes to $PIDS.dir.
TINY = textwrap.dedent('''
    import os
    import time
    from pathlib import Path

    from tests.support.engines import require


    def children(pid):
        found = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(stat.parent.name))
        return found


    def postgresql():
        from tests.support.engines import postgres_server
        server, why = postgres_server()
        require(why)
        data = Path(server.execute("SHOW data_directory")[0][0])
        postmaster = int((data / "postmaster.pid").read_text().split()[0])
        Path(os.environ["PIDS"] + ".dir").write_text(str(data.parent))
        return [postmaster, *children(postmaster)]


    def redis():
        import redis as client
        from tests.support.nodes import redis_server
        url, why = redis_server()
        require(why)
        return [client.Redis.from_url(url).info("server")["process_id"]]


    def s3():
        from tests.support.s3 import s3_server
        _server, why = s3_server()
        require(why)
        return children(os.getpid())


    def hub(tmp_path):
        from tests.support import prepared_hub, start, wait_for_line
        prepared_hub(tmp_path / "data")
        proc = start("serve", data_dir=tmp_path / "data")
        wait_for_line(proc, "serving on")
        return [proc.pid]


    def test_a_server_that_outlives_nothing(tmp_path):
        which = os.environ["SERVER"]
        pids = hub(tmp_path) if which == "hub" else globals()[which]()
        written = Path(os.environ["PIDS"] + ".part")
        written.write_text(" ".join(map(str, [os.getpid(), *pids])))
        written.rename(os.environ["PIDS"])  # whole when it is there
        time.sleep(600)
''')


def alive(pids: list[int], starts: list[str | None]) -> list[int]:
    return [pid for pid, start in zip(pids, starts, strict=True) if start is not None and start_time(pid) == start]


@pytest.mark.parametrize("server, workers", [("postgresql", 0), ("postgresql", 1), ("redis", 0), ("s3", 0),
                                             ("hub", 0)])
def test_a_killed_test_run_leaves_no_server_running(tmp_path, server, workers):
    (tmp_path / "test_tiny.py").write_text(TINY)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    pids_file = tmp_path / "pids"
    env = {name: value for name, value in os.environ.items()
           if name not in ("HUB_TEST_POSTGRES_URL", "HUB_TEST_S3_ENDPOINT", "PYTEST_XDIST_WORKER")}
    env.update(SERVER=server, PIDS=str(pids_file), PYTHONPATH=str(ROOT))
    xdist = ["-p", "xdist", "-n", str(workers)] if workers else []
    run = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *xdist,
                            "-c", str(tmp_path / "pytest.ini"), str(tmp_path / "test_tiny.py")],
                           cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_until(lambda: pids_file.exists() or run.poll() is not None, timeout=180,
                   message=f"the tiny test's {server} server")
        assert run.poll() is None, run.stdout.read() if run.stdout else ""
        test_process, *servers = [int(pid) for pid in pids_file.read_text().split()]
        starts = [start_time(pid) for pid in servers]
        # The server itself runs (a child seen may have been a backend that ended since).
        assert servers and alive(servers[:1], starts[:1]) == servers[:1]
        # SIGKILL: nothing of the test process runs, no atexit, no finally.
        os.kill(test_process, signal.SIGKILL)
        if test_process != run.pid:
            os.kill(run.pid, signal.SIGKILL)
        run.wait(timeout=60)
        wait_until(lambda: not alive(servers, starts), timeout=60, message=f"the {server} server's end")
        cluster = tmp_path / "pids.dir"
        if cluster.exists():  # and the files it wrote, once it has ended
            wait_until(lambda: not Path(cluster.read_text()).exists(), timeout=60,
                       message="the cluster's directory removed")
    finally:
        if run.poll() is None:
            run.kill()
            run.wait(timeout=60)
