"""Services: the hub's operations, called by API resources, CLI commands and tasks.

One package per domain, each owning its tables' SQL:

- ``access``: tokens and sessions;
- ``commands``: the command queue, claims and leases, reports, batches, sync runs, agents,
  the hub's own refreshes;
- ``mirror``: issue state loaded from agents (the only writer of the issue tables), moves,
  aliases, catalogues, projects;
- ``files``: the attachment store, attachment states, cleanup;
- ``markup``: Jira's wiki text converted and rendered;
- ``search``: the list's conditions, ``q`` and full text, JQL, facets;
- ``issues``: reading the mirror, sprints, saved filters, notes;
- ``writes``: writes to Jira an interface asks for, checked against the mirror, recorded and
  queued for an agent;
- ``operations``: backups, ``hub migrate-to``, health, the overview, metrics read at scrape time.

``pagination`` (lists as the API answers them) and ``tallies`` (running totals) serve every
domain. Where the engines differ too much for a SQL piece of :mod:`hub.dialect`, a domain
holds the interface in ``<thing>.py`` and one module per engine, ``<thing>_sqlite.py`` and
``<thing>_postgres.py``; the builder (:mod:`hub.assembly`) picks one.
"""
