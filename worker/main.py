"""Huey's own consumer, configured from the environment:
``huey_consumer worker.main.huey -k thread`` (``hub worker`` does the same)."""

from hub.assembly import assemble_worker
from hub.config import Config

huey = assemble_worker(Config.from_env())
