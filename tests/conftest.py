"""Shared fixtures: every test gets its own data dir under ``tmp_path``."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from hub.config import Config


def pytest_configure(config):
    # worker.instance opens <HUB_DATA_DIR>/queue.sqlite when imported; point
    # it at a scratch dir so no test run leaves ./hub-data behind.
    os.environ.setdefault("HUB_DATA_DIR", tempfile.mkdtemp(prefix="hub-test-queue-"))


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def config(data_dir: Path) -> Config:
    return Config(data_dir=data_dir)
