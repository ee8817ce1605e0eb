"""``hub backup`` and ``hub restore`` refuse paths they would write through or into
the wrong place: a symbolic link where they make their own directory, a backup
inside the data dir (its ``files/`` included), a restore from inside the data
dir. Each answers one line on stderr and exit 2, and nothing anywhere changes."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from tests.support import attachment, created_hub, fetched, listed, run_hub


def tree(root: Path) -> dict[str, tuple]:
    """Everything under ``root``: links by target, files by content, directories by mode."""
    seen = {}
    for path in sorted(root.rglob("*")):
        name = str(path.relative_to(root))
        if path.is_symlink():
            seen[name] = ("link", os.readlink(path))
        elif path.is_file():
            seen[name] = ("file", hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mode)
        else:
            seen[name] = ("dir", path.stat().st_mode)
    return seen


def refused(result, *words: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hub: "), result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture
def a_backup(tmp_path, make_hub) -> Path:
    """A backup of a hub holding one fetched file, at tmp_path/b."""
    hub = make_hub()
    listed(hub, attachment("901", "spec.pdf"), key="AURORA-12")
    fetched(hub, "901")
    made = run_hub("backup", str(tmp_path / "b"), data_dir=hub.config.data_dir)
    assert made.returncode == 0, made.stderr
    return tmp_path / "b"


@pytest.mark.parametrize("target", ["a directory", "a file", "nothing"])
def test_restore_refuses_a_staging_dir_that_is_a_symbolic_link(tmp_path, a_backup, target):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("keep me")
    link_to = {"a directory": outside, "a file": outside / "precious.txt", "nothing": tmp_path / "gone"}[target]
    data_dir = tmp_path / "r"
    data_dir.mkdir()
    (data_dir / ".restoring").symlink_to(link_to)
    before = tree(tmp_path)
    refused(run_hub("restore", str(a_backup), data_dir=data_dir), ".restoring", "symbolic link")
    assert tree(tmp_path) == before


def test_backup_refuses_a_destination_that_is_a_symbolic_link(tmp_path):
    data_dir = created_hub(tmp_path / "data")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "b").symlink_to(tmp_path / "elsewhere")
    before = tree(tmp_path)
    refused(run_hub("backup", str(tmp_path / "b"), data_dir=data_dir), "symbolic link")
    assert tree(tmp_path) == before


@pytest.mark.parametrize("dest", ["{data}", "{data}/files", "{data}/files/b", "{data}/backups/b", "{data}/b",
                                  "{link}/b", "{data}/../data/b"])
def test_backup_refuses_a_destination_inside_the_data_dir(tmp_path, make_hub, dest):
    hub = make_hub()
    listed(hub, attachment("901", "spec.pdf"), key="AURORA-12")
    fetched(hub, "901")
    data_dir = hub.config.data_dir
    (tmp_path / "link").symlink_to(data_dir)  # the data dir by another name
    before = tree(tmp_path)
    where = dest.format(data=data_dir, link=tmp_path / "link")
    refused(run_hub("backup", where, data_dir=data_dir), "inside the data dir")
    assert tree(tmp_path) == before


def test_restore_refuses_a_backup_kept_inside_the_data_dir(tmp_path, a_backup):
    # The backup copied in as a leftover staging dir: restore used to remove it first.
    data_dir = tmp_path / "r"
    data_dir.mkdir()
    (data_dir / ".restoring").mkdir()
    for path in a_backup.rglob("*"):
        copy = data_dir / ".restoring" / path.relative_to(a_backup)
        copy.mkdir() if path.is_dir() else copy.write_bytes(path.read_bytes())
    before = tree(tmp_path)
    refused(run_hub("restore", str(data_dir / ".restoring"), data_dir=data_dir), "overlap")
    assert tree(tmp_path) == before


def test_restore_refuses_a_data_dir_inside_the_backup(tmp_path, a_backup):
    before = tree(tmp_path)
    refused(run_hub("restore", str(a_backup), data_dir=a_backup / "hub"), "overlap")
    assert tree(tmp_path) == before


def test_a_backup_beside_the_data_dir_and_its_restore_still_work(tmp_path, a_backup):
    # The refusals name only what overlaps: a sibling of the data dir is fine.
    done = run_hub("restore", str(a_backup), data_dir=tmp_path / "r")
    assert done.returncode == 0, done.stderr
    again = run_hub("backup", str(tmp_path / "r-backup"), data_dir=tmp_path / "r")
    assert again.returncode == 0, again.stderr


def test_a_private_file_is_new_and_0600_from_its_first_byte(tmp_path):
    from hub.datadir import new_private_file

    old_umask = os.umask(0)  # a loose umask: the mode must not depend on it
    try:
        with new_private_file(tmp_path / "new") as out:
            out.write(b"secret")
    finally:
        os.umask(old_umask)
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o600
    (tmp_path / "elsewhere").write_bytes(b"someone else's")
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    for name in ("new", "link"):
        with pytest.raises(FileExistsError):
            new_private_file(tmp_path / name)
    assert (tmp_path / "new").read_bytes() == b"secret"
    assert (tmp_path / "elsewhere").read_bytes() == b"someone else's"
