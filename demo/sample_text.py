"""The words of the demo's sample project (``demo/sample.py``): its themes (one per epic), summaries
made of verbs, objects and places, and Jira wiki descriptions and comments made of varied blocks
(headings, lists, tables, code, panels, quotes, links, mentions), in English and in Russian."""

from __future__ import annotations

import random

THEMES = [
    {"epic": "Web workplace for the support team", "epic_name": "Web workplace", "lang": "en",
     "components": ["Web", "Backend"], "labels": ["frontend", "a11y"], "customer": "Аврора Сервис",
     "devs": ["m.novikova", "n.orlov", "d.sokolov"],
     "verbs": ["Show", "Filter", "Sort", "Fold", "Preview", "Edit in place", "Highlight", "Group"],
     "objects": ["comments", "sub-tasks", "work logs", "linked issues", "custom fields", "attachments",
                 "status changes", "assignees", "due dates", "the epic's issues"],
     "places": ["on the issue page", "on the board", "in the issue list", "on a phone", "in the activity tabs",
                "beside the description"],
     "symptoms": ["show in UTC", "overflow the layout at 390 px", "show the login instead of the name",
                  "wrap digit by digit", "stay stale after a fetch", "lose focus after a live update",
                  "are announced twice by screen readers", "flicker on every refresh"],
     "task_verbs": ["Document", "Add screenshots of", "Audit", "Clean up", "Split", "Automate"],
     "task_objects": ["the axe-core checks", "the CSP headers", "the stylesheets per page", "the Playwright fixtures",
                      "keyboard navigation", "colour contrast"],
     "acceptance": ["the first row is visible without scrolling at 1366×900", "works at 390 px",
                    "usable with the keyboard alone", "axe-core finds nothing serious",
                    "names people by their display name", "times show in the viewer's zone"],
     "pain": "the support team reads Jira all day and loses time scrolling past forms"},
    {"epic": "Mirror that keeps up with Jira", "epic_name": "Mirror catch-up", "lang": "en",
     "components": ["Backend"], "labels": ["backend", "performance"], "customer": None,
     "devs": ["d.sokolov", "s.morozov"],
     "verbs": ["Mirror", "Refresh", "Reconcile", "Page through", "Fetch", "Keep"],
     "objects": ["changelogs", "moved issues", "deleted issues", "neighbour issues", "sprint catalogues",
                 "worklogs", "entity properties", "board configurations"],
     "places": ["in incremental runs", "past 10,000 results", "on PostgreSQL", "within a minute",
                "during a full run", "for a single issue"],
     "symptoms": ["are skipped", "are counted twice", "stall the run", "time out", "lose their order",
                  "ignore Retry-After", "leak connections", "fail to commit"],
     "task_verbs": ["Benchmark", "Index", "Migrate", "Vacuum", "Profile", "Monitor"],
     "task_objects": ["the issue table", "the nightly full run", "the change feed", "the attachment store",
                      "the worker's queue", "the PostgreSQL 16 upgrade"],
     "acceptance": ["a full run of 25,000 issues ends within ten minutes", "an incremental run misses nothing",
                    "no page is asked twice", "the hub answers while it runs"],
     "pain": "the mirror lags behind Jira by up to an hour on busy days"},
    {"epic": "Reference agent on the customer's side", "epic_name": "Reference agent", "lang": "en",
     "components": ["Agent"], "labels": ["agent", "security"], "customer": "Vostok Bank",
     "devs": ["e.lebedev", "s.morozov"],
     "verbs": ["Retry", "Throttle", "Claim", "Report", "Authenticate", "Resume"],
     "objects": ["writes", "refresh commands", "heartbeats", "attachments", "rate-limited pages",
                 "personal access tokens", "transitions", "work logs"],
     "places": ["behind the SSO proxy", "when Jira is down", "on Windows", "in a storm of 429s", "after a restart",
                "under systemd"],
     "symptoms": ["are retried forever", "are claimed twice", "stop after a 502", "log the token",
                  "ignore the proxy", "pile up in the queue"],
     "task_verbs": ["Package", "Sign", "Rotate", "Document", "Harden", "Configure"],
     "task_objects": ["the agent's systemd unit", "the Debian package", "the token rotation", "the proxy settings",
                      "the log format", "the Windows service"],
     "acceptance": ["no write is applied twice", "a 429 is waited out as Retry-After asks",
                    "the token never appears in a log", "the agent resumes within a minute of Jira's return"],
     "pain": "the bank's Jira sits behind an SSO proxy that the hub cannot reach"},
    {"epic": "Платёжные уведомления в карточке клиента", "epic_name": "Платёжные уведомления", "lang": "ru",
     "components": ["Backend", "Web"], "labels": ["customer"], "customer": "Аврора",
     "devs": ["d.sokolov", "m.novikova", "n.orlov"],
     "verbs": ["Показать", "Отфильтровать", "Выгрузить", "Сгруппировать", "Проверить", "Подсветить"],
     "objects": ["платёжные уведомления", "статусы платежей", "реквизиты клиента", "историю оплат",
                 "просроченные счета", "возвраты"],
     "places": ["в карточке клиента", "в списке задач", "на телефоне", "в отчёте за месяц", "на доске",
                "в письме клиенту"],
     "symptoms": ["дублируются", "не обновляются", "показываются в UTC", "теряют форматирование",
                  "обрезаются на 255 символах", "приходят с опозданием"],
     "task_verbs": ["Согласовать", "Описать", "Настроить", "Проверить", "Обновить"],
     "task_objects": ["формат выгрузки с бухгалтерией", "алерты по задержке платежей", "доступы к тестовому стенду",
                      "регламент отката", "справочник валют"],
     "acceptance": ["уведомление видно в карточке через минуту после оплаты", "суммы в рублях с копейками",
                    "выгрузка открывается в Excel", "на телефоне ничего не обрезается"],
     "pain": "бухгалтерия клиента каждый день спрашивает, дошёл ли платёж"},
    {"epic": "Search that speaks JQL", "epic_name": "JQL search", "lang": "en",
     "components": ["Backend", "Web"], "labels": ["jql"], "customer": None,
     "devs": ["s.morozov", "n.orlov"],
     "verbs": ["Search", "Suggest", "Save", "Explain", "Validate", "Autocomplete"],
     "objects": ["JQL functions", "saved filters", "facet counts", "date ranges", "custom field clauses",
                 "ORDER BY clauses"],
     "places": ["in the search box", "in the MCP answers", "in the API", "for neighbours", "with Russian text",
                "in the CSV export"],
     "symptoms": ["are off by one", "return neighbours", "ignore the time zone", "show the error twice",
                  "keep a stale pager", "offer the key twice"],
     "task_verbs": ["Document", "Benchmark", "Compare", "Fuzz"],
     "task_objects": ["the JQL grammar", "the facet queries", "the search index", "Jira's own answers"],
     "acceptance": ["the same issues as Jira for every JQL of the reference", "an error names the clause",
                    "answers within 200 ms on 25,000 issues"],
     "pain": "people paste JQL from Jira and expect the same issues"},
]
OTHER_SUMMARIES = ["Upgrade the shared PostgreSQL cluster to 16", "SSO proxy drops the Authorization header",
                   "Rotate the wildcard TLS certificate", "Раздать доступы к стенду интеграции",
                   "Move the CI runners to the new subnet", "Jira 9.12 upgrade on staging",
                   "Open port 443 from the DMZ to the hub", "Backup storage is 90% full",
                   "Обновить nginx до 1.26 на шлюзе", "Add the hub to the monitoring dashboards"]
OTHER_THEME = {**THEMES[1], "pain": "the platform team keeps the shared services running", "lang": "en"}
ENVIRONMENTS = ["Ubuntu 24.04, Chromium 131", "Windows 11, Firefox 133", "iPhone 13, Safari 18",
                "hub 2.2.1 on PostgreSQL 16", "Astra Linux 1.7, Яндекс Браузер"]
FLAG_REASONS = ["Waiting for the customer's answer.", "Ждём доступ к стенду от платформенной команды.",
                "Blocked by the Jira upgrade on staging.", "Needs a decision from [~a.volkova]."]
WORK = ["Implementation", "Code review", "Tests", "Investigation", "Разбор логов", "Pairing",
        "Docs", "Fixes after review", "Вёрстка", "Release checks"]
COMMENTS = [
    "[~{who}], could you take a look? I think it is the same as {other}.",
    "Ready for review: [PR #{pr}|https://git.example/aurora/hub/pull/{pr}]. Screenshots are in the PR.",
    "Checked on staging:\n* list view (/)\n* phone width (/)\n* keyboard only (x) — focus is lost after saving",
    "Logs from the customer:\n{{code}}\n2026-11-19 10:15:02,114 WARN hub.agent: page 7 of 12 took 9.8 s\n"
    "2026-11-19 10:15:12,530 INFO hub.agent: retrying after 429 (Retry-After: 10)\n{{code}}",
    "Посмотрел, воспроизводится только в Firefox. Беру в работу.",
    "Согласовали с клиентом: делаем в *2.3*, остальное — в следующем релизе.",
    "Moved to the next sprint: blocked by {other}.",
    "_Note:_ the estimate was too optimistic, adding a day for the tests.",
    "+1, the support team asks for this every week.",
    "Deployed in *2.3.0-rc2*. [~{qa}] please verify.",
    "{{quote}}Клиент пишет: «Непонятно, кто взял задачу в работу и когда её закончат».{{quote}}\n"
    "Это как раз про {key}.",
    "Why not reuse what {other} did? See {{{{hub/services/mirror}}}}.",
    "Verified on 2.3.0-rc2 ✔ Closing from my side.",
    "There is a simpler way:\n{{code:python}}\nrows = query.order_by(Issue.updated.desc()).limit(50)\n{{code}}",
]

_HEADINGS = {
    "en": {"context": "Context", "want": "What we want", "criteria": "Acceptance criteria",
           "steps": "Steps to reproduce",
           "expected": "Expected", "actual": "Actual", "notes": "Notes", "goal": "Goal", "scope": "Scope",
           "out": "Out of scope", "plan": "Milestones", "case": "Case", "result": "Expected result",
           "workaround": "Workaround", "done": "Done when", "sign_in": "Sign in as a support engineer",
           "look": "Look at", "then": ["Refresh the page", "Wait for the next run", "Switch to a phone width"]},
    "ru": {"context": "Контекст", "want": "Что нужно", "criteria": "Критерии приёмки", "steps": "Шаги",
           "expected": "Ожидаемо", "actual": "Фактически", "notes": "Заметки", "goal": "Цель", "scope": "Что входит",
           "out": "Что не входит", "plan": "Этапы", "case": "Сценарий", "result": "Результат",
           "workaround": "Как обойти", "done": "Готово, когда", "sign_in": "Войти под учёткой поддержки",
           "look": "Открыть", "then": ["Обновить страницу", "Дождаться следующей синхронизации",
                                       "Открыть на телефоне"]},
}


def _first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def summary(rng: random.Random, kind: str, theme: dict) -> str:
    """A summary for an issue of ``kind`` in ``theme``: verb × object × place (a story), object × symptom ×
    place (a bug), verb × object (a task)."""
    if kind == "Bug":
        return _first_upper(f"{rng.choice(theme['objects'])} {rng.choice(theme['symptoms'])} "
                            f"{rng.choice(theme['places'])}")
    if kind == "Task":
        return f"{rng.choice(theme['task_verbs'])} {rng.choice(theme['task_objects'])}"
    return f"{rng.choice(theme['verbs'])} {rng.choice(theme['objects'])} {rng.choice(theme['places'])}"


def subtask_summary(rng: random.Random, parent: str) -> str:
    part = rng.choice(["Backend", "UI", "Tests", "Docs", "API", "Review fixes", "Тесты", "Вёрстка"])
    return f"{part}: {parent if len(parent) <= 60 else parent[:59] + '…'}"


def _bullets(rng: random.Random, items: list[str]) -> str:
    chosen = rng.sample(items, min(len(items), rng.randint(2, 4)))
    lines = [f"* {item}" for item in chosen]
    if rng.random() < 0.3:
        lines.insert(1, f"** {rng.choice(['including sub-tasks', 'и на телефоне тоже', 'without a reload'])}")
    return "\n".join(lines)


def _table(rng: random.Random, theme: dict, words: dict) -> str:
    rows = rng.sample(theme["objects"], 3)
    return "\n".join([f"||{words['case']}||{words['result']}||",
                      *(f"|{_first_upper(r)} {rng.choice(theme['places'])}|{rng.choice(theme['acceptance'])}|"
                        for r in rows)])


def _code(rng: random.Random) -> str:
    return rng.choice([
        "{code:json}\n{\"key\": \"AURORA-1\", \"status\": \"In Progress\", \"assignee\": \"d.sokolov\"}\n{code}",
        "{code:sql}\nSELECT key, updated FROM issue\n WHERE neighbor = 0\n ORDER BY updated DESC\n LIMIT 50;\n{code}",
        "{code:bash}\ncurl -H \"Authorization: Bearer $TOKEN\" 'http://127.0.0.1:8765/api/v1/issues?limit=5'\n{code}",
        "{noformat}\nGET /rest/api/2/search?jql=project%20%3D%20AURORA 200 1.2s\n{noformat}",
        "{code:python}\nfor page in client.pages(jql, fields=SEARCH_FIELDS):\n    hub.send(page)\n{code}",
    ])


def _panel(rng: random.Random, words: dict) -> str:
    return rng.choice([
        "{info}The old behaviour stays behind a setting until 2.4.{info}",
        "{note}Do not ship before the customer has seen it on staging.{note}",
        "{warning}Touches the database schema: a migration is needed.{warning}",
        f"{{panel:title={words['notes']}|borderStyle=dashed}}\nAgreed at the planning on Monday; "
        "questions to [~a.volkova].\n{panel}",
    ])


def _quote(rng: random.Random) -> str:
    return rng.choice([
        "{quote}Клиент: «Хотим видеть всё на одном экране, без прокрутки».{quote}",
        "bq. The support lead: we open Jira only because the hub cannot do this yet.",
        "{quote}Из письма поддержки: «Дата показывается на три часа раньше».{quote}",
    ])


def description(rng: random.Random, kind: str, text: str, theme: dict, others: list[str],
                team: list[str]) -> str | None:
    """A wiki description for a story, task, bug or sub-task (None for some sub-tasks, as people leave them)."""
    words = _HEADINGS[theme["lang"]]
    other = rng.choice(others) if others else None
    see = (f"See [the design|https://design.example/aurora] and {other}." if other and theme["lang"] == "en"
           else f"См. {other} и [вики|https://wiki.example/aurora]." if other else "")
    if kind == "Sub-task":
        return None if rng.random() < 0.4 else f"Part of the parent story. [~{rng.choice(team)}] reviews it."
    if kind == "Bug":
        steps = "\n".join(f"# {step}" for step in [
            words["sign_in"], f"{words['look']} {rng.choice(theme['objects'])} {rng.choice(theme['places'])}",
            rng.choice(words["then"])])
        parts = [f"h3. {words['steps']}\n{steps}", f"*{words['expected']}:* {rng.choice(theme['acceptance'])}.",
                 f"*{words['actual']}:* {{color:#bf2600}}{text.lower()}{{color}}."]
        if rng.random() < 0.6:
            parts.append(_code(rng))
        if rng.random() < 0.4:
            parts.append(f"h3. {words['workaround']}\n{_panel(rng, words)}")
        if rng.random() < 0.3:
            parts.append(_quote(rng))
    elif kind == "Task":
        parts = [f"{_first_upper(theme['pain'])}; {text[:1].lower() + text[1:]} is the next step.",
                 f"h4. {words['done']}\n{_bullets(rng, theme['acceptance'])}"]
        if rng.random() < 0.6:
            parts.append(_code(rng))
    else:
        parts = [f"h2. {words['context']}\n{_first_upper(theme['pain'])}. _{text}_ — "
                 f"{'that is the ask.' if theme['lang'] == 'en' else 'вот что просят.'}",
                 f"h3. {words['want']}\n{_bullets(rng, theme['acceptance'])}"]
        extras = [lambda: f"h3. {words['criteria']}\n{_table(rng, theme, words)}", lambda: _panel(rng, words),
                  lambda: _quote(rng), lambda: _code(rng)]
        for extra in rng.sample(extras, rng.randint(1, 2)):
            parts.append(extra())
    if see:
        parts.append(see)
    return "\n\n".join(parts)


def epic_description(rng: random.Random, theme: dict) -> str:
    """An epic's description: its goal, scope, what is out, its milestones as a table, a panel."""
    words = _HEADINGS[theme["lang"]]
    milestones = "\n".join([f"||{words['plan']}||{'Release' if theme['lang'] == 'en' else 'Релиз'}||",
                            f"|{_first_upper(theme['objects'][0])}|2.3|", f"|{_first_upper(theme['objects'][1])}|2.3|",
                            f"|{_first_upper(theme['objects'][2])}|2.4|"])
    return "\n\n".join([
        f"h1. {theme['epic']}", f"h2. {words['goal']}\n{_first_upper(theme['pain'])}.",
        f"h2. {words['scope']}\n" + "\n".join(f"* {_first_upper(a)}" for a in theme["acceptance"]),
        f"h2. {words['out']}\n* {theme['objects'][-1]}\n* -{theme['objects'][-2]}- (moved to 2.4)",
        milestones, "{info}The technical specification is attached (PDF).{info}" if rng.random() < 0.5
        else _panel(rng, words)])
