"""The schema steps, in order: each takes a database from version N-1 to N.

A step is frozen once released: it uses SQL and the helpers in its own module,
never the live models, so that later changes to the models cannot change what
an old step does to a deployed database. See docs/migrations.md.
"""

from hub.migrations.step import Step
from hub.migrations.steps import (
    v2_command_deliveries,
    v3_issue_comment,
    v4_projects,
    v5_changelog,
    v6_attachments,
    v7_tokens,
    v8_search,
    v9_agent_tokens,
    v10_whole_issue,
    v11_moves,
    v12_saved_filters,
    v13_web_sessions,
    v14_parallel_safe,
    v15_writes,
)

STEPS: tuple[Step, ...] = tuple(
    Step.from_module(module)
    for module in (
        v2_command_deliveries,
        v3_issue_comment,
        v4_projects,
        v5_changelog,
        v6_attachments,
        v7_tokens,
        v8_search,
        v9_agent_tokens,
        v10_whole_issue,
        v11_moves,
        v12_saved_filters,
        v13_web_sessions,
        v14_parallel_safe,
        v15_writes,
    )
)
