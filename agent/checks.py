"""What a ``check_issues`` asks Jira: whether the keys a full run did not load still name issues."""

from __future__ import annotations

import logging

from agent.jira_client import SEARCH_FIELDS, JiraAuthError, JiraClient, JiraError

log = logging.getLogger("hub-agent")


def issues_of(jira: JiraClient, keys: list[str]) -> list[dict]:
    """The issues Jira returns for ``keys`` (at most 100), each once, with the fields and changelog
    a refresh reads. One search of ``key in (...)`` with ``validateQuery=false``, so that a key Jira
    does not know (deleted, or not visible to the user) is left out rather than refusing the batch,
    and a moved key answers the issue under its new key. A Jira that refuses the batch anyway (400:
    one that ignores ``validateQuery``) is asked one key at a time, where a 400 or 404 means that
    key names no issue."""
    quoted = ", ".join(f'"{key}"' for key in keys)
    found: dict[str, dict] = {}
    try:
        for page, _ in jira.search(f"key in ({quoted})", SEARCH_FIELDS, page_size=max(1, len(keys)),
                                   expand=["changelog"], validate=False):
            for issue in page.get("issues") or []:
                found.setdefault(str(issue["id"]), issue)
        return list(found.values())
    except JiraAuthError:
        raise
    except JiraError as exc:
        if exc.status != 400:
            raise
        log.info("Jira refused a batch of %s keys (%s); checking them one by one", len(keys), exc)
    for key in keys:
        try:
            for page, _ in jira.search(f'key = "{key}"', SEARCH_FIELDS, page_size=1, expand=["changelog"]):
                for issue in page.get("issues") or []:
                    found.setdefault(str(issue["id"]), issue)
        except JiraAuthError:
            raise
        except JiraError as exc:
            if exc.status not in (400, 404):
                raise
    return list(found.values())
