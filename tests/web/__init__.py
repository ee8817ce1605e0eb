"""The web interface in a real browser.

The browser tests run against a SQLite hub, but for ``test_web_session.py``, which runs on
both engines. The page reads and writes nothing but the HTTP API, and what each
engine answers there is held by the API's own tests, which run every case on SQLite and on
PostgreSQL (``tests/issues/``, ``tests/search/``, ``tests/files/`` …). Drawing every page
again over PostgreSQL would test Chromium twice and the engine no more. ``test_web_session.py``
still signs in, reads, revokes and signs out over a PostgreSQL hub, to show that the page works
from end to end on that engine too.
"""
