"""Projects (one Jira label each) and the base JQL computed from them."""

from __future__ import annotations

from hub.models import Project, Setting


def compose_base_jql(scope: str, labels: list[str]) -> str | None:
    """``<scope> AND labels in ("L1", "L2", …)``: labels ascending, each double-quoted
    with ``"`` and ``\\`` escaped; just the labels clause for an empty scope; None
    without labels."""
    if not labels:
        return None
    quoted = ", ".join(
        '"' + label.replace("\\", "\\\\").replace('"', '\\"') + '"' for label in sorted(labels)
    )
    clause = f"labels in ({quoted})"
    return f"{scope} AND {clause}" if scope else clause


class ProjectService:
    def base_jql(self) -> str | None:
        """The base JQL now; a ``refresh`` with exactly this JQL is a full run."""
        scope = Setting.get_or_none(Setting.key == "jql_scope")
        labels = [p.label for p in Project.select(Project.label)]
        return compose_base_jql(scope.value.strip() if scope else "", labels)
