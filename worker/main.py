"""Huey's own consumer, configured from the environment:
``huey_consumer worker.main.huey -k thread`` (``hub worker`` does the same)."""

from hub.config import Config
from worker.tasks import assemble_worker

huey = assemble_worker(Config.from_env())
