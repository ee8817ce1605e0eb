"""The demo's sample project: AURORA as a real team's Jira holds it, for ``make demo``, the benchmarks
and anyone who wants issues that look lived in.

Seven people (some named in Cyrillic) work on a hub in two-week sprints of a scrum board (id 1). Epics
(one every thirty issues) group stories, tasks and bugs by area; stories and tasks have sub-tasks.
Summaries are made of parts (verbs, objects, places), descriptions of Jira wiki blocks (headings,
lists, tables, code, panels, quotes, links), mixed English and Russian. Everything happens on a
working-day clock over the six weeks before :data:`NOW`, and each issue's history agrees with its
fields: the last status change leads to its status, assignee changes to its assignee, a resolution
is set when it is done, work is logged before a review, comments come after creation. The same seed
gives the same project.

The workflow is the fake Jira's (``demo/fakejira_meta.py``): Open → In Progress → Review → Done,
Resolve/Close, Reopen; the board's columns are To Do, In Progress, In Review and Done.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from demo.fakejira import FakeJira
from demo.fakejira_meta import COMPONENTS, OPTIONS, VERSIONS, allowed_values, status_bean
from demo.jirashapes import (
    CUSTOM,
    END_FIELD,
    EPIC_FIELD,
    ISSUE_TYPES,
    PRIORITIES,
    SPRINT_FIELD,
    START_FIELD,
    group,
    option,
    user,
    worklog,
)
from demo.sample_clock import (
    BOARD,
    NOW,
    SPRINTS,
    Clock,
    duration,
    item,
    png,
    sprint_dates,
    sprint_value,
    stamp,
    user_item,
)
from demo.sample_text import (
    COMMENTS,
    ENVIRONMENTS,
    FLAG_REASONS,
    OTHER_SUMMARIES,
    OTHER_THEME,
    THEMES,
    WORK,
    description,
    epic_description,
    subtask_summary,
    summary,
)

OWNER, QA = "a.volkova", "o.kozlova"  # who writes the stories, who tests
DEVS = ["d.sokolov", "m.novikova", "s.morozov", "e.lebedev", "n.orlov"]
TEAM = [OWNER, QA, *DEVS]
PLATFORM = ["p.egorov", "k.white"]  # the neighbouring team (OTHER)
WRITER = "d.sokolov"  # whom the demo's agent writes as
COLUMNS = [("To Do", ["Open", "Reopened"]), ("In Progress", ["In Progress"]), ("In Review", ["Review"]),
           ("Done", ["Done", "Resolved", "Closed"])]
EPIC_EVERY = 30
# How an issue reached its status: the statuses it went through after Open, a few ways for each.
_PATHS = {
    "Open": [[], [], [], ["In Progress", "Open"]],
    "In Progress": [["In Progress"], ["In Progress"], ["In Progress", "Review", "In Progress"]],
    "Review": [["In Progress", "Review"]],
    "Done": [["In Progress", "Review", "Done"]] * 3 + [["In Progress", "Review", "In Progress", "Review", "Done"]],
    "Resolved": [["In Progress", "Resolved"], ["Resolved"]],
    "Closed": [["In Progress", "Resolved", "Closed"], ["Closed"]],
    "Reopened": [["In Progress", "Review", "Done", "Reopened"]],
}
_TYPES = {t["name"]: t for t in ISSUE_TYPES}
_PRIORITY = {p["name"]: p for p in PRIORITIES}
_RESOLUTION = {r["name"]: r for r in allowed_values("resolution") or []}
_C = {name: f["id"] for name, f in CUSTOM.items()}
_DONE = {"Done", "Resolved", "Closed"}


class _Project:
    """One sample project being built: the random source, the clock, the ids handed out, and what
    each issue number became (its type, status, theme) for the issues after it."""

    def __init__(self, jira: FakeJira, issues: int, seed: int):
        self.jira, self.count, self.rng = jira, issues, random.Random(seed)
        self.clock = Clock()
        self.serial = {"history": 50000, "comment": 1000, "worklog": 40000}  # below the fake's own writes
        self.sprints = [(sprint_dates(first), state, sprint_value(sid, name, state, first, goal))
                        for sid, name, state, first, goal in SPRINTS]
        self.kinds: dict[int, str] = {}
        self.finals: dict[int, str] = {}
        self.themes: dict[int, int] = {}
        self.used: set[str] = set()
        self.flagged = 0

    def next(self, kind: str) -> str:
        self.serial[kind] += 1
        return str(self.serial[kind])

    # --- what an issue is ------------------------------------------------------------------------------

    def kind(self, n: int) -> str:
        if n % EPIC_EVERY == 1:
            return "Epic"
        if n == 2:
            return "Story"  # AURORA-2: the story with the spec attached, under way
        roll = self.rng.random()
        if roll < 0.16 and self.parents(n):
            return "Sub-task"
        return "Story" if roll < 0.55 else "Task" if roll < 0.75 else "Bug"

    def parents(self, n: int) -> list[int]:
        return [p for p in range(max(1, n - 12), n) if self.kinds.get(p) in ("Story", "Task")]

    def final_status(self, n: int, kind: str, x: float, parent: int | None) -> str:
        """Where the issue is now: older issues are more often done, newer ones open."""
        if kind == "Epic":
            return "Open" if n > 1 and n + EPIC_EVERY > self.count else "In Progress"
        if n == 2:
            return "In Progress"
        if parent is not None and self.finals[parent] == "Open":
            return "Open"
        age = 1 - x
        weights = {"Open": 0.04 + 0.35 * x, "In Progress": 0.1, "Review": 0.08, "Done": 0.65 * age,
                   "Resolved": (0.14 if kind == "Bug" else 0.03) * age,
                   "Closed": (0.1 if kind == "Bug" else 0.03) * age, "Reopened": 0.015}
        return self.rng.choices(list(weights), list(weights.values()))[0]

    def summary(self, n: int, kind: str, theme: dict, parent: int | None, block: int) -> str:
        if kind == "Epic":
            return theme["epic"] + ("" if block < len(THEMES) else f" ({block // len(THEMES) + 1})")
        if parent is not None:
            return subtask_summary(self.rng, self.jira.issues[f"AURORA-{parent}"]["fields"]["summary"])
        for _ in range(8):  # the parts make a few hundred summaries: tell the issues apart while they last
            text = summary(self.rng, kind, theme)
            if text not in self.used:
                break
        self.used.add(text)
        return text

    # --- one issue -------------------------------------------------------------------------------------

    def issue(self, n: int) -> None:
        rng, key = self.rng, f"AURORA-{n}"
        kind = self.kind(n)
        parent = rng.choice(self.parents(n)) if kind == "Sub-task" else None
        block = (n - 1) // EPIC_EVERY
        if parent is not None:
            theme_index = self.themes[parent]
        else:
            theme_index = block if kind == "Epic" or block == 0 or rng.random() < 0.75 else block - 1
        theme = THEMES[theme_index % len(THEMES)]
        x = min((n - 1 + rng.random() * 0.8) / self.count, 0.985)  # when it was created, along the clock
        status = self.final_status(n, kind, x, parent)
        self.kinds[n], self.themes[n], self.finals[n] = kind, theme_index, status
        text = self.summary(n, kind, theme, parent, block)
        devs = theme["devs"]
        reporter = (OWNER if kind in ("Epic", "Story") else QA if kind == "Bug" and rng.random() < 0.7
                    else rng.choice(DEVS))
        priority = rng.choices(["Blocker", "Critical", "Major", "Minor", "Trivial"],
                               [1, 4, 12, 5, 1] if kind == "Bug" else [0.3, 1.5, 14, 4, 1])[0]
        issue = self.jira.add_issue(key, summary=text, labels=["AWPCA", *theme["labels"][:rng.randint(0, 2)]],
                                    assignee=None, parent=f"AURORA-{parent}" if parent else None)
        created = self.clock.at(x)
        others = [f"AURORA-{k}" for k in range(max(1, n - 25), n) if k != parent]
        fields = issue["fields"]
        fields.update(
            issuetype=dict(_TYPES[kind]), priority=dict(_PRIORITY[priority]), reporter=user(reporter),
            creator=user(reporter), created=stamp(created),
            description=(epic_description(rng, theme) if kind == "Epic"
                         else description(rng, kind, text, theme, others, TEAM)),
            components=[dict(c) for c in COMPONENTS if c["name"] in theme["components"][:rng.randint(1, 2)]],
            environment=rng.choice(ENVIRONMENTS) if kind == "Bug" else None,
            watches={**fields["watches"], "watchCount": rng.randint(1, 5)},
            votes={**fields["votes"], "votes": rng.randint(0, 3) if kind == "Bug" else 0},
            duedate=(created.date() + timedelta(days=rng.randint(7, 30))).isoformat() if rng.random() < 0.2 else None,
            fixVersions=[] if kind == "Sub-task" else [dict(VERSIONS[2 if status == "Open" and rng.random() < 0.5
                                                                     else 1])])
        if kind == "Epic":
            assignee = OWNER
        else:
            assignee = rng.choice(devs) if parent or status != "Open" or rng.random() < 0.55 else None
        moments = self.timeline(issue, kind, status, x, assignee, devs)
        self.customs(issue, n, kind, theme, theme_index)
        self.sprint(issue, kind, parent, created, moments)

    def timeline(self, issue: dict, kind: str, status: str, x: float, assignee: str | None,
                 devs: list[str]) -> list[datetime]:
        """The issue's life from Open to ``status``: the transitions (with the resolution, the
        assignee and the work they took), a priority raised, comments, each at its time, and
        ``updated`` the last of them. Answers the transitions' moments."""
        rng, fields = self.rng, issue["fields"]
        created = self.clock.at(x)
        path = [] if kind == "Epic" and status == "Open" else ["In Progress"] if kind == "Epic" \
            else list(rng.choice(_PATHS[status]))
        # Done: some days ago; under way: begun in the last two or three weeks (if not created since).
        since, until = (x, x + (1 - x) * rng.uniform(0.3, 0.95)) if status in _DONE \
            else (max(x, 1 - rng.uniform(0.1, 0.35)), 1.0)
        moments = sorted(self.clock.at(rng.uniform(since, until)) for _ in path)
        moments = [max(m, created + timedelta(minutes=5 * (i + 1))) for i, m in enumerate(moments)]
        events: list[tuple[datetime, list[dict], str]] = []  # (when, changelog items, by whom)
        if kind == "Bug" and fields["priority"]["name"] in ("Blocker", "Critical") and rng.random() < 0.5:
            events.append((created + timedelta(minutes=rng.randint(10, 120)),
                           [item("priority", _PRIORITY["Major"], fields["priority"])], QA))
        current, resolution, worker, begun = "Open", None, assignee, created
        for i, (to, when) in enumerate(zip(path, moments, strict=True)):
            if to == "In Progress" and worker is None:
                worker = rng.choice(devs)
                events.append((when - timedelta(minutes=2), [user_item(None, worker)], worker))
            elif to == "In Progress" and i and rng.random() < 0.25:  # handed over after a rejected review
                other = rng.choice([d for d in devs + DEVS if d != worker])
                events.append((when - timedelta(minutes=2), [user_item(worker, other)], OWNER))
                worker = other
            if current == "In Progress" and kind != "Epic":
                self.work(issue, worker or rng.choice(devs), begun, when, required=to == "Review")
            items = [item("status", status_bean(current), status_bean(to))]
            gained = {"Done": "Done", "Resolved": rng.choice(["Fixed", "Fixed", "Won't Fix", "Duplicate"]),
                      "Closed": resolution or rng.choice(["Won't Fix", "Duplicate"])}.get(to)
            if gained != resolution:
                items.append(item("resolution", _RESOLUTION.get(resolution or ""), _RESOLUTION.get(gained or "")))
                resolution = gained
                fields["resolutiondate"] = stamp(when) if gained else None
            events.append((when, items, worker or OWNER))
            current, begun = to, when
        if current == "In Progress" and kind != "Epic" and rng.random() < 0.7:
            self.work(issue, worker or rng.choice(devs), begun, NOW, required=False)
        fields.update(status=status_bean(current), resolution=_RESOLUTION[resolution] if resolution else None,
                      assignee=user(worker) if worker else None)
        for when, items, who in sorted(events, key=lambda e: e[0]):
            issue["changelog"]["histories"].append({"id": self.next("history"), "author": user(who),
                                                    "created": stamp(when), "items": items})
        said = rng.choice([0, 0, 1, 1, 2, 3, 4]) if kind != "Sub-task" else rng.randint(0, 1)
        for when in sorted(self.clock.at(rng.uniform(x, 1.0)) for _ in range(said)):
            self.comment(issue, max(when, created + timedelta(minutes=3)), rng.choice(TEAM))
        self.estimate(issue, kind, current)
        self.touch(issue)
        return moments

    def work(self, issue: dict, who: str, begun: datetime, ended: datetime, required: bool) -> None:
        """Work logged between ``begun`` and ``ended``: up to two entries (at least one before a
        review, whose screen asks for it)."""
        rng, fields = self.rng, issue["fields"]
        span = (ended - begun).total_seconds()
        for _ in range(rng.randint(1 if required else 0, 2)):
            spent = rng.choice([1800, 3600, 5400, 7200, 10800, 14400])
            started = begun + timedelta(seconds=int(rng.uniform(0, max(span - spent, 0))))
            entry = worklog(self.next("worklog"), spent, who, rng.choice(WORK), stamp(started))
            logged = stamp(min(started + timedelta(seconds=spent), ended))
            entry.update(created=logged, updated=logged)
            fields["worklog"]["worklogs"].append(entry)
            fields["timespent"] = (fields["timespent"] or 0) + spent
        fields["worklog"]["worklogs"].sort(key=lambda w: w["started"])

    def comment(self, issue: dict, when: datetime, who: str, body: str | None = None) -> None:
        rng = self.rng
        number = int(issue["key"].split("-")[1])
        body = body or rng.choice(COMMENTS).format(who=rng.choice(TEAM), qa=QA, pr=rng.randint(310, 999),
                                                   key=issue["key"], other=f"AURORA-{rng.randint(1, number)}")
        issue["fields"]["comment"]["comments"].append(
            {"id": self.next("comment"), "author": user(who), "updateAuthor": user(who), "body": body,
             "created": stamp(when), "updated": stamp(when)})

    def estimate(self, issue: dict, kind: str, status: str) -> None:
        """The original and remaining estimates and the work ratio, as Jira keeps them beside the time spent."""
        rng, fields = self.rng, issue["fields"]
        spent = fields["timespent"]
        # Estimated before the work, so the work comes out near it (done) or short of it (under way).
        original = None if kind == "Epic" or rng.random() < 0.25 else 3600 * max(1, round(
            spent * rng.uniform(0.7, 1.5) / 3600 if spent and status in _DONE
            else (spent or 0) / 3600 + rng.choice([2, 4, 8, 16])))
        remaining = (0 if status in _DONE else max(original - (spent or 0), 0)) if original else None
        tracking: dict = {}
        for name, seconds in (("originalEstimate", original), ("remainingEstimate", remaining), ("timeSpent", spent)):
            if seconds is not None:
                tracking[name], tracking[f"{name}Seconds"] = duration(seconds), seconds
        fields.update(timeoriginalestimate=original, timeestimate=remaining, timetracking=tracking,
                      workratio=int(100 * (spent or 0) / original) if original else -1)

    def touch(self, issue: dict) -> None:
        """``updated``: the last thing that happened to the issue."""
        fields = issue["fields"]
        fields["updated"] = max([fields["created"], *(h["created"] for h in issue["changelog"]["histories"]),
                                 *(c["updated"] for c in fields["comment"]["comments"]),
                                 *(w["updated"] for w in fields["worklog"]["worklogs"]),
                                 *(a["created"] for a in fields["attachment"])])

    def customs(self, issue: dict, n: int, kind: str, theme: dict, theme_index: int) -> None:
        """Custom fields where a team fills them in: story points on stories, severity on bugs, the
        epic's name on epics, the epic link only on an issue in an epic, and so on."""
        rng, fields, c = self.rng, issue["fields"], _C
        status, priority = fields["status"]["name"], fields["priority"]["name"]
        reviewed = any(i["field"] == "status" and i["toString"] == "Review"
                       for h in issue["changelog"]["histories"] for i in h["items"])
        values: dict = {c["team"]: "42", c["owning_group"]: group("qa" if kind == "Bug" else "aurora-devs")}
        if kind not in ("Epic", "Sub-task") and rng.random() < 0.85:
            values[EPIC_FIELD] = f"AURORA-{theme_index * EPIC_EVERY + 1}"
        if kind == "Story" or (kind == "Task" and rng.random() < 0.4):
            values[c["story_points"]] = float(rng.choice([1, 2, 3, 5, 8, 13]))
        values.update(self.typed(issue, n, kind, theme))
        if kind in ("Story", "Bug") and (reviewed or status in _DONE):
            values[c["tester"]] = user(QA)
        if reviewed:
            worker = (fields["assignee"] or {}).get("name")
            values[c["reviewers"]] = [user(d) for d in rng.sample([d for d in DEVS if d != worker], rng.randint(1, 2))]
        if fields["resolution"] and fields["resolution"]["name"] in ("Done", "Fixed"):
            resolved = datetime.strptime(fields["resolutiondate"], "%Y-%m-%dT%H:%M:%S.000%z")
            deployed = (resolved + timedelta(days=1)).replace(hour=18, minute=0, second=0)
            if deployed < NOW:
                values[c["deployed_at"]] = stamp(deployed)
        if theme["customer"] and kind != "Sub-task" and rng.random() < 0.4:
            values[c["customer"]] = theme["customer"]
            values[c["region"]] = option("10420", "EMEA", option("10421", "Moscow"))
        if kind not in ("Epic", "Sub-task") and rng.random() < 0.15:
            values[c["tags"]] = rng.sample(["ui", "mirror", "agent", "jql", "export", "a11y"], 2)
        if priority in ("Blocker", "Critical"):
            values[c["notify_groups"]] = [group("aurora-devs"), group("qa")]
            values[c["risk"]] = option("10442", "High")
        fields.update(values)

    def typed(self, issue: dict, n: int, kind: str, theme: dict) -> dict:
        """The custom fields of an epic (its name, status, plan), a bug (severity, platforms, the build
        it was found in) or a story (acceptance criteria, design link, target date)."""
        rng, fields, c = self.rng, issue["fields"], _C
        status, priority = fields["status"]["name"], fields["priority"]["name"]
        values: dict = {}
        if kind == "Epic":
            going = status == "In Progress"
            values.update({c["epic_name"]: theme["epic_name"],
                           c["epic_status"]: option("10501", "In Progress") if going else option("10500", "To Do"),
                           c["target_releases"]: [dict(v) for v in VERSIONS[1:1 + rng.randint(1, 2)]],
                           c["risk"]: option("10442", "High") if n == 1 else option("10441", "Medium"),
                           c["health"]: {"score": rng.randint(2, 5), "checks": ["build", "deploy", "a11y"]},
                           START_FIELD: fields["created"][:10], END_FIELD: VERSIONS[1]["releaseDate"],
                           c["target_date"]: VERSIONS[1]["releaseDate"]})
        if kind == "Bug":
            severity = 0 if priority in ("Blocker", "Critical") else 1 if priority == "Major" else 2
            values.update({c["severity"]: dict(OPTIONS[c["severity"]][severity]), c["found_in"]: dict(VERSIONS[0]),
                           c["platforms"]: [dict(o) for o in rng.sample(OPTIONS[c["platforms"]], rng.randint(1, 2))]})
            fields["versions"] = [dict(VERSIONS[0])]
        if kind == "Story":
            values[c["acceptance"]] = "\n".join(f"* {line}" for line in rng.sample(theme["acceptance"], 2))
            if "Web" in theme["components"] and rng.random() < 0.5:
                values[c["design_link"]] = f"https://design.example/aurora/{issue['key'].lower()}"
            if rng.random() < 0.3:
                values[c["target_date"]] = fields["duedate"] or VERSIONS[1]["releaseDate"]
        return values

    def sprint(self, issue: dict, kind: str, parent: int | None, created: datetime,
               moments: list[datetime]) -> None:
        """The sprints an issue was in: those its work overlapped, the active one for what is under way,
        for some of the backlog the active or the next one; a sub-task is in its parent's. A few
        issues of the active sprint are flagged, with the comment Jira adds."""
        rng, fields = self.rng, issue["fields"]
        if kind == "Epic":
            return
        status = fields["status"]["name"]
        if parent is not None:
            chosen = self.jira.issues[f"AURORA-{parent}"]["fields"][SPRINT_FIELD] or []
        else:
            begun = moments[0] if moments else None
            ended = moments[-1] if status in _DONE and moments else NOW
            chosen = []
            for (starts, ends), state, value in self.sprints:
                worked = begun is not None and state != "future" and begun <= ends and ended >= starts
                planned = ((state == "active" and status in ("Open", "Reopened") and created < ends)
                           or (state == "future" and status == "Open" and not chosen))
                if worked or (planned and rng.random() < (0.3 if state == "active" else 0.6)):
                    chosen.append(value)
        fields[SPRINT_FIELD] = list(chosen) or None
        active = any(isinstance(v, str) and "state=ACTIVE" in v for v in chosen)
        if active and status not in _DONE and kind != "Sub-task" and self.flagged < 4 and rng.random() < 0.15:
            self.flagged += 1
            fields[_C["flagged"]] = [option("10430", "Impediment")]
            when = max(NOW - timedelta(hours=rng.randint(2, 40)), created + timedelta(minutes=3))
            self.comment(issue, when, (fields["assignee"] or {}).get("name") or OWNER,
                         f"(flag) Flag added\n\n{rng.choice(FLAG_REASONS)}")
            self.touch(issue)

    # --- around the issues -----------------------------------------------------------------------------

    def neighbours(self) -> None:
        """OTHER-1…10, the platform team's issues (no AWPCA label): some AURORA issues relate to them
        or are blocked by them."""
        rng = self.rng
        for n, text in enumerate(OTHER_SUMMARIES, start=1):
            key = f"OTHER-{n}"
            issue = self.jira.add_issue(key, summary=text, labels=[], assignee=None)
            x = rng.uniform(0, 0.5)
            issue["fields"].update(issuetype=dict(_TYPES["Task"]), priority=dict(_PRIORITY["Major"]),
                                   reporter=user(PLATFORM[n % 2]), creator=user(PLATFORM[n % 2]),
                                   created=stamp(self.clock.at(x)),
                                   description=description(rng, "Task", text, OTHER_THEME, [], PLATFORM))
            self.timeline(issue, "Task", rng.choice(["Open", "In Progress", "Done"]), x, PLATFORM[n % 2], PLATFORM)
            if n * 3 <= self.count:
                if n % 4 == 0:
                    self.jira.link(key, f"AURORA-{n * 3}", "Blocks")
                else:
                    self.jira.link(f"AURORA-{n * 3}", key, "Relates")

    def links(self) -> None:
        """Links between AURORA issues: one blocking the next now and then, a bug closed as a duplicate
        of an earlier one, a story cloned."""
        kinds = self.kinds
        for n in range(2, self.count, 7):
            both = {kinds[n], kinds[n + 1]}
            self.jira.link(f"AURORA-{n}", f"AURORA-{n + 1}", "Relates" if "Epic" in both else "Blocks")
        bugs = sorted(n for n, k in kinds.items() if k == "Bug")
        for place, n in enumerate(bugs):
            resolution = self.jira.issues[f"AURORA-{n}"]["fields"]["resolution"]
            if resolution and resolution["name"] == "Duplicate" and place:
                self.jira.link(f"AURORA-{n}", f"AURORA-{bugs[self.rng.randrange(place)]}", "Duplicate")
        stories = [n for n, k in kinds.items() if k == "Story"]
        for n in stories[5::40]:
            self.jira.link(f"AURORA-{n}", f"AURORA-{n - 1}", "Cloners")

    def attachments(self) -> None:
        """The technical specification on AURORA-1 (2 MiB), a spec on AURORA-2, a screenshot shown
        inline in the first bug's description."""
        rng = self.rng
        spec = b"%PDF-1.7\n" + rng.randbytes(2 * 1024 * 1024 - 9)
        files = [("AURORA-1", "31337", "Техническое задание №1.pdf", spec, "application/pdf", OWNER),
                 ("AURORA-2", "31338", "spec.pdf", b"%PDF-1.7 " + rng.randbytes(4096), "application/pdf", OWNER)]
        bug = next((n for n, k in self.kinds.items() if k == "Bug"), None)
        if bug is not None:
            key = f"AURORA-{bug}"
            fields = self.jira.issues[key]["fields"]
            fields["description"] = f"!screenshot-1.png|thumbnail!\n\n{fields['description']}"
            files.append((key, "31339", "screenshot-1.png", png(320, 200, (0xDE, 0xEB, 0xFF)), "image/png", QA))
        for key, aid, name, content, mime, who in files:
            if key not in self.jira.issues:
                continue
            issue = self.jira.issues[key]
            self.jira.add_attachment(key, aid, name, content, mime)
            created = datetime.strptime(issue["fields"]["created"], "%Y-%m-%dT%H:%M:%S.000%z")
            issue["fields"]["attachment"][-1].update(author=user(who), created=stamp(created + timedelta(minutes=7)))
            self.touch(issue)

    def ranks(self) -> None:
        """Jira's Rank: mostly the order of creation, with the team's reordering."""
        order = sorted(range(1, self.count + 1), key=lambda n: n + self.rng.uniform(-6, 6))
        for place, n in enumerate(order, start=1):
            self.jira.issues[f"AURORA-{n}"]["fields"][_C["rank"]] = f"0|i{place:05}:"

    def briefs(self) -> None:
        """A sub-task's ``parent`` and a parent's ``subtasks`` as they are now (summary, status, priority,
        type), as Jira writes them."""
        def brief(fields: dict) -> dict:
            return {name: fields[name] for name in ("summary", "status", "priority", "issuetype")}
        for issue in self.jira.issues.values():
            fields = issue["fields"]
            if fields.get("parent"):
                fields["parent"]["fields"] = brief(self.jira.issues[fields["parent"]["key"]]["fields"])
            for task in fields["subtasks"]:
                task["fields"] = brief(self.jira.issues[task["key"]]["fields"])


def sample_project(jira: FakeJira, issues: int = 120, seed: int = 7) -> FakeJira:
    """The sample AURORA project in ``jira``: ``issues`` issues labelled AWPCA (the base JQL) as a
    team's Jira holds them — epics with their stories, tasks, bugs and sub-tasks, four sprints of
    board 1 (one active), custom fields where a team fills them in, comments, work logs, changelogs
    that agree with the fields, links, attachments — and ten issues of a neighbouring team
    (OTHER-1…10) that some of them link to. With ``add_board``, the scrum board itself."""
    project = _Project(jira, issues, seed)
    for n in range(1, issues + 1):
        project.issue(n)
    project.neighbours()
    project.links()
    project.attachments()
    project.ranks()
    project.briefs()
    if hasattr(jira, "add_board"):  # the fake's agile API
        jira.add_board(BOARD, "AURORA board", "scrum", COLUMNS)
    return jira
