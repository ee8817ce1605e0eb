"""Writes to Jira: what an interface asks the hub to do in Jira, and how it went.

An interface token granted writes asks for one (a comment, a transition, an edit, logged work, a new
issue, a link or its removal, an attachment); :class:`~hub.services.writes.service.WriteService`
checks it against what the mirror knows (:mod:`~hub.services.writes.checks`), records it in the
``write`` table with the values its maker saw (:mod:`~hub.services.writes.ops`), and queues the
command of kind ``write`` (:mod:`hub.services.commands.kinds.write`) an agent applies it with, in one
transaction. The agent's state page of the issue's fresh state alone changes the mirror; its ``done``
records the outcome on the write's row. A write's status as shown joins its command
(:mod:`~hub.services.writes.shown`). See docs/writes.md.
"""
