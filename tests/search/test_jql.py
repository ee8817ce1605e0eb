"""JQL over the mirror (GET /api/v1/issues?jql=): a table of queries over the fixture mirror of
tests/support/jql_reference.py, each with the keys Jira would return and why; then the API's answers
(422 with the position, 503 past the time bound, paging and total).

Keys are written short: A1 is AURORA-1, O2 is OTHER-2. A row without ORDER BY lists its keys in
any order (Jira's default order, key descending, is checked by the test); one with ORDER BY
lists them in the order Jira returns them. The clock is fixed (Monday 2026-11-02 09:00 UTC) and
dates are read in UTC.
"""

from __future__ import annotations

import falcon.testing
import pytest

from hub import startup
from hub.api.app import create_app
from hub.assembly import build
from hub.config import Config
from hub.services.issues.reading import key_order
from tests.support import load
from tests.support.engine_rows import engine_database
from tests.support.jql_reference import CATALOGUES, GONE, ISSUES, NEIGHBOURS, FixedClock, mark_gone

pytestmark = pytest.mark.backends("sqlite", "postgresql", shared=True)

ALL_BUT_GONE = "A1 A2 A3 A4 A5 A9 A10 A100 A101 O1 O2 O3"

ROWS = [
    # -- the whole mirror, and Jira's default order ------------------------------------------
    ("project in (AURORA, OTHER)", ALL_BUT_GONE, "every issue but the gone one, key descending"),
    ("order by key", "A1 A2 A3 A4 A5 A9 A10 A100 A101 O1 O2 O3", "key ascending: by project, then number"),
    ("ORDER BY key DESC", "O3 O2 O1 A101 A100 A10 A9 A5 A4 A3 A2 A1", "key descending"),
    # -- status: a name, case-insensitive ----------------------------------------------------
    ("status = Open", "A1 A10 A100 A101 O1 O3", "Open, any case of the query's"),
    ("status = OPEN", "A1 A10 A100 A101 O1 O3", "names fold case"),
    ("Status = 'open'", "A1 A10 A100 A101 O1 O3", "field names fold case too, quotes either way"),
    ('status = "In Progress"', "A2", "a quoted name with a space"),
    ("status = 'in progress'", "A2", "folded"),
    ("status = сделать", "A4", "Cyrillic folds: Сделать"),
    ("status = СДЕЛАТЬ", "A4", "Cyrillic upper case folds"),
    ("status != Open", "A2 A3 A4 A5 A9 O2", "every other status"),
    ("status in (Open, Review)", "A1 A5 A10 A100 A101 O1 O3", "either"),
    ("status not in (Open, Review, Done)", "A2 A4", "none of them"),
    ("status = Closed", "", "a status no issue holds: nothing, not an error"),
    ("status != Closed", ALL_BUT_GONE, "every issue has a status"),
    ("status is EMPTY", "", "no issue lacks a status"),
    ("status is not empty", ALL_BUT_GONE, "all"),
    ("not status = Open", "A2 A3 A4 A5 A9 O2", "NOT"),
    ("!(status = Open)", "A2 A3 A4 A5 A9 O2", "! is NOT"),
    ("status = Open and priority = Blocker", "A1 A101", "AND"),
    ("status = Review or priority = Trivial", "A5 A100", "OR"),
    ("status = Open && priority = Blocker", "A1 A101", "&& is AND"),
    ("status = Review || priority = Trivial", "A5 A100", "|| is OR"),
    ("(status = Open or status = Done) and priority = Minor", "A3 A10 O2 O3", "parentheses"),
    ("status = Open or status = Done and priority = Minor", "A1 A3 A10 A100 A101 O1 O2 O3",
     "AND binds tighter than OR"),
    ("not (status = Open or status = Done)", "A2 A4 A5", "NOT of a group"),
    ("not not status = Review", "A5", "double NOT"),
    # -- resolution: Unresolved is EMPTY ------------------------------------------------------
    ("resolution = Fixed", "A3", "a resolution"),
    ("resolution = готово", "O2", "a Cyrillic resolution folded"),
    ('resolution = "won\'t fix"', "A9", "an apostrophe inside double quotes"),
    ("resolution = 'won\\'t fix'", "A9", "an escaped quote"),
    ("resolution = Unresolved", "A1 A2 A4 A5 A10 A100 A101 O1 O3", "Unresolved: no resolution"),
    ("resolution is EMPTY", "A1 A2 A4 A5 A10 A100 A101 O1 O3", "the same"),
    ("resolution = EMPTY", "A1 A2 A4 A5 A10 A100 A101 O1 O3", "= EMPTY is IS EMPTY"),
    ("resolution = NULL", "A1 A2 A4 A5 A10 A100 A101 O1 O3", "NULL is EMPTY"),
    ("resolution is not empty", "A3 A9 O2", "resolved ones"),
    ("resolution != Unresolved", "A3 A9 O2", "resolved ones"),
    ("resolution != Fixed", "A9 O2", "!= never matches an empty field"),
    ("resolution not in (Fixed, Готово)", "A9", "NOT IN never matches an empty field"),
    ("resolution in (Fixed, EMPTY)", "A1 A2 A3 A4 A5 A10 A100 A101 O1 O3", "IN with EMPTY"),
    ("not resolution = Fixed", "A1 A2 A4 A5 A9 A10 A100 A101 O1 O2 O3", "NOT matches empty fields too"),
    # -- priority: names, order, comparisons --------------------------------------------------
    ("priority = Blocker", "A1 A101", "a priority"),
    ("priority = blocker", "A1 A101", "folded"),
    ("priority in (Critical, Trivial)", "A4 A100", "IN"),
    ("priority is EMPTY", "A9", "no priority"),
    ("priority != Major", "A1 A3 A4 A10 A100 A101 O2 O3", "!= leaves out A9, which has none"),
    ("priority > Major", "A1 A4 A101", "above Major in Jira's order"),
    ("priority >= Major", "A1 A2 A4 A5 A101 O1", "Major or above"),
    ("priority < Major", "A3 A10 A100 O2 O3", "below Major"),
    ("priority <= minor", "A3 A10 A100 O2 O3", "Minor or below"),
    ("priority > Unknown", "", "a priority no catalogue names: nothing"),
    ("priority = Blocker order by priority", "A101 A1", "same priority: ties by key descending"),
    ("priority in (Blocker, Trivial, Critical) order by priority", "A101 A1 A4 A100",
     "priority's default is descending: highest first"),
    ("priority in (Blocker, Trivial, Critical) order by priority asc", "A100 A4 A101 A1",
     "ascending: lowest first; ties still by key descending"),
    ("project = AURORA order by priority desc, key asc", "A9 A1 A101 A4 A2 A5 A3 A10 A100",
     "several keys; no priority is the greatest: first going down"),
    ("project = AURORA order by priority asc, key asc", "A100 A3 A10 A2 A5 A4 A1 A101 A9",
     "going up, lowest first and no priority last"),
    # -- issue type ---------------------------------------------------------------------------
    ("issuetype = Bug", "A1 A4 A101 O1", "a type"),
    ("type = bug", "A1 A4 A101 O1", "type is issuetype"),
    ("issueType in (Story, Epic)", "A2 A9 A10", "IN"),
    ('type = "Sub-task"', "A5", "a quoted name with a dash"),
    ("type != Bug", "A2 A3 A5 A9 A10 A100 O2 O3", "!="),
    ("type = Bug order by status", "O1 A101 A1 A4", "status in the catalogue's order, then key descending"),
    ("issuetype in (Bug, Task) order by type, key", "A1 A4 A101 O1 A3 A100 O2 O3",
     "types in the catalogue's order"),
    # -- project and key ----------------------------------------------------------------------
    ("project = AURORA", "A1 A2 A3 A4 A5 A9 A10 A100 A101", "the key's project"),
    ("project = aurora", "A1 A2 A3 A4 A5 A9 A10 A100 A101", "a project key folds"),
    ("project = OTHER", "O1 O2 O3", "the neighbour is in the mirror too"),
    ("project in (OTHER, NOPE)", "O1 O2 O3", "an unknown project matches nothing"),
    ("project != AURORA", "O1 O2 O3", "!="),
    ("project not in (AURORA)", "O1 O2 O3", "NOT IN"),
    ("project = AUROR", "", "a prefix is no project"),
    ("key = AURORA-1", "A1", "a key"),
    ("key = aurora-1", "A1", "a key folds"),
    ("issuekey = AURORA-10", "A10", "issuekey is key"),
    ("issue = AURORA-10", "A10", "so is issue"),
    ("key in (AURORA-1, OTHER-2, AURORA-999)", "A1 O2", "an absent key matches nothing"),
    ("key != AURORA-1", "A2 A3 A4 A5 A9 A10 A100 A101 O1 O2 O3", "every other"),
    ("key not in (AURORA-1, AURORA-2)", "A3 A4 A5 A9 A10 A100 A101 O1 O2 O3", "NOT IN"),
    ("key > AURORA-9", "A10 A100 A101", "by number within the project, not as text"),
    ("key >= AURORA-9", "A9 A10 A100 A101", ">="),
    ("key < AURORA-5", "A1 A2 A3 A4", "<"),
    ("key <= AURORA-5", "A1 A2 A3 A4 A5", "<="),
    ("key > OTHER-1", "O2 O3", "another project's range"),
    ("key > AURORA-100 and key < AURORA-102", "A101", "a range"),
    ("key = AURORA-7", "", "the gone issue is left out"),
    ("id = 10002", "A2", "Jira's id"),
    ("id in (10001, 20003)", "A1 O3", "ids"),
    ("id > 20001", "O2 O3", "ids compare as numbers"),
    ("id != 10001 and project = OTHER", "O1 O2 O3", "!="),
    ("project = AURORA order by id desc", "A101 A100 A10 A9 A5 A4 A3 A2 A1", "ORDER BY id"),
    # -- users --------------------------------------------------------------------------------
    ("assignee = ivanov", "A1 A5 A101 O1", "a login name"),
    ("assignee = IVANOV", "A1 A5 A101 O1", "folded"),
    ('assignee = "Ivan Ivanov"', "A1 A5 A101 O1", "a display name, as Jira resolves it"),
    ("assignee = 'пётр петров'", "A2 A10", "a Cyrillic display name folded"),
    ("assignee in (petrov, sidorova)", "A2 A4 A10 O2", "IN"),
    ("assignee is EMPTY", "A3 A9 A100 O3", "unassigned"),
    ("assignee != ivanov", "A2 A4 A10 O2", "!= leaves out the unassigned"),
    ("assignee not in (ivanov, petrov)", "A4 O2", "NOT IN leaves them out too"),
    ("not assignee = ivanov", "A2 A3 A4 A9 A10 A100 O2 O3", "NOT takes them in"),
    ("assignee = nobody", "", "an unknown user matches nothing"),
    ("reporter = ivanov", "A2 A3 A5 A100", "the reporter"),
    ("reporter is EMPTY", "A9 O3", "no reporter"),
    ("reporter = sidorova and assignee = sidorova", "A4 O2", "both"),
    ("assignee is not EMPTY order by assignee", "O1 A101 A5 A1 O2 A4 A10 A2",
     "by display name: Ivan Ivanov, Анна Сидорова, Пётр Петров"),
    # -- labels: multi-value ------------------------------------------------------------------
    ("labels = backend", "A1 A5 A100", "any of the labels"),
    ("labels = BACKEND", "A1 A5 A100", "folded"),
    ("labels = срочно", "A1 A4", "Cyrillic folded: Срочно and срочно"),
    ("labels = СРОЧНО", "A1 A4", "Cyrillic upper case"),
    ("labels in (frontend, missing)", "A2 A100", "IN"),
    ("labels != backend", "A2 A4", "has labels, none of them backend"),
    ("labels not in (backend, frontend)", "A4", "has labels, none of those"),
    ("labels is EMPTY", "A3 A9 A10 A101 O1 O2 O3", "no labels"),
    ("labels is not EMPTY", "A1 A2 A4 A5 A100", "some"),
    ("labels = backend and labels = frontend", "A100", "both on one issue"),
    ("labels in (backend, EMPTY) and project = OTHER", "O1 O2 O3", "IN with EMPTY"),
    # -- component ----------------------------------------------------------------------------
    ("component = Web", "A1 A2", "a component"),
    ("component = payments", "A2 A10", "folded"),
    ("component in (Web, Payments)", "A1 A2 A10", "IN"),
    ("component != Web", "A10", "has components, not Web"),
    ("component is EMPTY and project = AURORA", "A3 A4 A5 A9 A100 A101", "none"),
    # -- versions -----------------------------------------------------------------------------
    ("fixVersion = 2.3", "A1 A2", "a version by name"),
    ("fixversion = '2.2'", "A3", "quoted, field folded"),
    ("fixVersion = 10100", "A1 A2", "a version by id"),
    ("fixVersion in (2.2, 2.3)", "A1 A2 A3", "IN"),
    ("fixVersion != 2.3", "A3", "!= needs a version"),
    ("fixVersion is EMPTY and project = AURORA", "A4 A5 A9 A10 A100 A101", "none"),
    ("fixVersion in releasedVersions()", "A3", "released ones"),
    ("fixVersion in unreleasedVersions()", "A1 A2", "unreleased ones"),
    ("fixVersion in releasedVersions(OTHER)", "", "a project's released versions"),
    ("affectedVersion = 2.2", "A1", "affects version"),
    ("affectedVersion is not EMPTY", "A1", "some"),
    ("fixVersion = 9.9", "", "a version no issue has"),
    # -- sprint -------------------------------------------------------------------------------
    ('sprint = "AURORA Sprint 14"', "A1 A2", "a sprint by name"),
    ('sprint = "aurora sprint 13"', "A1 A3", "every sprint an issue was in, folded"),
    ("sprint = 24", "A1 A2", "by id"),
    ("sprint = 'спринт 2'", "A101 O1", "a Cyrillic name folded"),
    ("sprint in (23, 25)", "A1 A3 A101 O1", "IN"),
    ("sprint in openSprints()", "A1 A2", "the active sprint"),
    ("sprint in closedSprints()", "A1 A3", "the closed one"),
    ("sprint in futureSprints()", "A101 O1", "the future one"),
    ("sprint not in closedSprints()", "A2 A101 O1", "in a sprint, none closed"),
    ("sprint is EMPTY and project = AURORA", "A4 A5 A9 A10 A100", "in no sprint"),
    ("sprint != 24", "A3 A101 O1", "in a sprint, not 24"),
    ("sprint = 'No such sprint'", "", "nothing"),
    # -- Epic Link and parent -----------------------------------------------------------------
    ('"Epic Link" = AURORA-10', "A2", "the epic's issues"),
    ('"epic link" = aurora-10', "A2", "a quoted field name folds"),
    ('"Epic Link" is EMPTY and project = AURORA', "A1 A3 A4 A5 A9 A10 A100 A101", "no epic"),
    # -- the custom fields the mirror keeps in columns, by this instance's ids (the fields catalogue)
    ("cf[10510] = AURORA-10", "A2", "Epic Link by its id"),
    ("CF[10510] is EMPTY and project = AURORA", "A1 A3 A4 A5 A9 A10 A100 A101", "no epic, by id"),
    ("cf[11902] in openSprints()", "A1 A2", "Sprint by its id"),
    ("cf[11902] = 24", "A1 A2", "a sprint by id, through the Sprint field's id"),
    ('"Planned start" is EMPTY and project = OTHER', "O1 O2 O3", "a planned date by its name"),
    ("cf[12000] < 2026-01-01", "", "a planned date by its id: a day"),
    ("parent = AURORA-2", "A5", "sub-tasks"),
    ("parent in (AURORA-2, AURORA-1)", "A5", "IN"),
    ("parent is not EMPTY", "A5", "any sub-task"),
    ("parent != AURORA-1", "A5", "!= needs a parent"),
    # -- links --------------------------------------------------------------------------------
    ("issue in linkedIssues(AURORA-1)", "A2 A3", "linked either way"),
    ('issue in linkedIssues(AURORA-1, "blocks")', "A2", "the issues it blocks (outward phrase)"),
    ('issue in linkedIssues(AURORA-2, "is blocked by")', "A1", "the issues blocking it (inward phrase)"),
    ("issue in linkedIssues(AURORA-1, Blocks)", "A2", "by the type's name"),
    ('issue in linkedIssues(AURORA-1, "relates to")', "A3", "the other type, from either side"),
    ("issue in linkedIssues(AURORA-3)", "A1", "from the other end"),
    ("issue in linkedIssues(AURORA-9)", "", "no links"),
    ("issue not in linkedIssues(AURORA-1) and project = AURORA and type = Bug", "A1 A4 A101", "NOT IN"),
    # -- text ---------------------------------------------------------------------------------
    ("summary ~ safari", "A1 O1", "a word of the summary"),
    ('summary ~ "SAFARI"', "A1 O1", "words fold case"),
    ('summary ~ "login safari"', "A1", "every word"),
    ('summary ~ "\\"fails on\\""', "A1", "a phrase"),
    ("summary ~ 'crash*'", "A101 O1", "a prefix"),
    ("summary ~ отчет", "A4 O2", "Cyrillic; ё reads as е"),
    ("summary !~ safari and project = OTHER", "O2 O3", "!~"),
    ("description ~ blank", "A1", "the description"),
    ("description ~ кнопка", "A2", "Cyrillic in the description"),
    ("description is EMPTY and project = AURORA", "A3 A4 A5 A9 A10 A100 A101", "no description"),
    ("description !~ blank", "A2", "!~ needs a description"),
    ("environment ~ android", "A101", "the environment"),
    ("environment is not EMPTY", "A1 A101", "some environment"),
    ("comment ~ build", "A3", "a comment"),
    ("comment ~ стенде", "A4", "a Cyrillic comment"),
    ("comment is not EMPTY", "A3 A4", "issues with comments"),
    ("comment is EMPTY and project = OTHER", "O1 O2 O3", "none"),
    ("text ~ safari", "A1 O1", "text: summary, description, environment, comments, custom text"),
    ("text ~ receipts", "A2 A3", "A3's summary, A2's release notes"),
    ("text ~ build", "A3", "a comment"),
    ('"Release notes" ~ receipts', "A2", "a text custom field by name"),
    ("summary ~ nothinglikeit", "", "no match"),
    # -- dates --------------------------------------------------------------------------------
    ("created >= -2d", "A4 A5", "created in the last 48 hours"),
    ("created > -1d", "A5", "the last 24 hours"),
    ('created >= "2026/11/01"', "A5", "from the start of that day"),
    ('created > "2026/10/31"', "A4 A5", "> a day is after its midnight, as Jira reads it"),
    ('created >= "2026-10-31"', "A4 A5", "dashes too"),
    ('created < "2026/08/02"', "A9 A10", "before that day"),
    ('created <= "2026/08/01"', "A10", "<= a day is up to its midnight: A9, created that day, is not"),
    ('created <= "2026/10/31"', "A1 A2 A3 A9 A10 A100 A101 O1 O2 O3", "A4, created during the 31st, is not"),
    ('created = "2026/10/31"', "", "= a day is its midnight alone (A4 is 20:30 UTC)"),
    ('created = "2026/10/31 20:30"', "A4", "= a time: that instant, to the second"),
    ('created != "2026/10/31 20:30"', "A1 A2 A3 A5 A9 A10 A100 A101 O1 O2 O3", "!= a time: every other"),
    ('created = "2026/10/31 20:31"', "", "another minute"),
    ('created >= "2026/10/01" and created < "2026/10/02"', "A1", "a day as a range"),
    ("created >= startOfDay()", "", "today: nothing yet"),
    ("created >= startOfDay(-1)", "A5", "since yesterday's start"),
    ("created >= startOfWeek()", "A5", "this week (Sunday, 1 November)"),
    ("created >= startOfMonth()", "A5", "this month"),
    ("created < startOfMonth() and created >= startOfMonth(-1)", "A1 A2 A4 A100 A101 O1 O2 O3",
     "last month"),
    ("created > endOfDay()", "", "nothing is created tomorrow"),
    ("created <= now()", ALL_BUT_GONE, "everything so far"),
    ("created >= startOfYear()", ALL_BUT_GONE, "this year"),
    ("updated >= -1d", "A1 A4 A5 O2", "updated in the last day"),
    ("updated >= '2026/11/01'", "A1 A4 A5 O2", "updated since Sunday"),
    ("updated < -30d", "A9 A10", "not for a month"),
    ("resolved >= '2026/10/01'", "A3 O2", "resolved in October or later"),
    ("resolved is EMPTY and project = OTHER", "O1 O3", "unresolved"),
    ("resolutiondate < 2026-09-01", "A9", "resolutiondate is resolved"),
    ("duedate = 2026-11-01", "A2", "a day"),
    ("duedate <= now()", "A2 A5 O1", "due by today"),
    ("duedate < now()", "A2 O1", "< compares days: today is not before today"),
    ("duedate > 2026-11-01", "A1 A5", "after that day"),
    ("duedate >= '2026/11/02 13:00'", "A1 A5", "a time names its day"),
    ("duedate <= endOfWeek()", "A1 A2 A5 O1", "due by Saturday"),
    ("due is EMPTY and project = OTHER", "O2 O3", "no due date"),
    ("duedate in (2026-11-01, 2026-11-05)", "A1 A2", "IN"),
    ("duedate != 2026-11-01", "A1 A5 O1", "!= needs a due date"),
    ("project = AURORA and created >= -31d order by created", "A5 A4 A2 A101 A100",
     "created's default is descending: newest first"),
    ("project = AURORA and created >= -31d order by created asc", "A100 A101 A2 A4 A5", "oldest first"),
    ("duedate is not EMPTY order by duedate", "O1 A2 A5 A1", "duedate's default is ascending"),
    ("project = OTHER order by updated", "O2 O3 O1", "updated: newest first"),
    ("project = AURORA and resolved is not EMPTY order by resolved", "A3 A9", "resolved: newest first"),
    # -- custom fields ------------------------------------------------------------------------
    ('"Story Points" = 5', "A1", "a number custom field by name"),
    ('"story points" > 4', "A1 A3 A100", "numbers compare"),
    ("cf[10002] >= 8", "A3 A100", "cf[id]"),
    ("cf[10002] < 5", "A2", "<"),
    ("cf[10002] in (3, 13)", "A2 A100", "IN"),
    ("cf[10002] != 5", "A2 A3 A100", "!= needs a value"),
    ("cf[10002] is EMPTY and project = AURORA", "A4 A5 A9 A10 A101", "no value"),
    ("cf[10002] = 3.0", "A2", "3.0 is 3"),
    ("cf[10002] is not EMPTY order by cf[10002]", "A2 A1 A3 A100", "ascending by number"),
    ("cf[10002] is not EMPTY order by cf[10002] desc", "A100 A3 A1 A2", "descending"),
    ("Team = Platform", "A1 A4", "an option, folded (A4 holds platform)"),
    ("team in (Core)", "A2", "IN"),
    ("Team != Platform", "A2", "!= needs a value"),
    ("Team is EMPTY and project = AURORA", "A3 A5 A9 A10 A100 A101", "no option"),
    ("Platforms = android", "A1 A100", "a multi-value custom field: any value"),
    ("Platforms = iOS", "A1", "one of its values"),
    ("platforms != iOS", "A100", "has values, not iOS"),
    ("Reviewer = petrov", "A1", "a user custom field"),
    ('Reviewer = "Пётр Петров"', "A1", "by display name"),
    ('"Start date" = 2026-10-01', "A1", "a date custom field"),
    ('"Start date" < 2026-10-02', "A1", "compared as days"),
    ("Region = EMEA", "A1", "a cascading select by its parent"),
    ("region = kazan", "A1", "or by its child, folded"),
    ('Deployed >= "2026/10/20"', "A2", "a date-time custom field, in UTC (12:00)"),
    ('Deployed < "2026/10/20 12:00"', "", "< a minute is before its start"),
    ('Deployed = "2026/10/20"', "", "= a day: its midnight alone"),
    ('Deployed = "2026/10/20 12:00"', "A2", "= a time: that instant"),
    ("Reviewer is EMPTY and project = AURORA", "A2 A3 A4 A5 A9 A10 A100 A101", "no reviewer"),
    # -- more of each operator --------------------------------------------------------------
    ("labels is not EMPTY order by labels", "A100 A5 A1 A2 A4", "by the first label, folded; ties by key"),
    ("labels = EMPTY and project = OTHER", "O1 O2 O3", "= EMPTY on a multi-value field"),
    ('"Epic Link" in (AURORA-10, EMPTY) and project = AURORA', "A1 A2 A3 A4 A5 A9 A10 A100 A101",
     "the epic's issue, or none"),
    ("component not in (Web)", "A10", "has components, not Web"),
    ("affectedVersion != 2.2", "", "A1 has only 2.2; the others none"),
    ("sprint in (openSprints(), 25)", "A1 A2 A101 O1", "a function and a value in one list"),
    ("fixVersion in (releasedVersions(), 2.3)", "A1 A2 A3", "the same for versions"),
    ('issue in linkedIssues("AURORA-1")', "A2 A3", "a quoted key"),
    ("key in linkedIssues(AURORA-2)", "A1", "key takes linkedIssues too"),
    ('created in ("2026/10/31", "2026/10/01")', "", "IN of days: their midnights, which no issue holds"),
    ('created in ("2026/10/31 20:30", "2026/10/01 07:00")', "A1 A4", "IN of instants"),
    ('updated not in ("2026/11/02 08:00")', "A1 A2 A3 A5 A9 A10 A100 A101 O1 O2 O3", "NOT IN an instant"),
    ('resolved = "2026/11/01"', "", "= a day on resolved: its midnight"),
    ('resolved = "2026/11/01 10:00"', "O2", "= a time on resolved"),
    ("duedate is EMPTY and project = AURORA", "A3 A4 A9 A10 A100 A101", "no due date"),
    ("priority not in (Major, Minor)", "A1 A4 A100 A101", "NOT IN leaves out A9, which has none"),
    ("status in (Open, EMPTY) and type = Epic", "A10", "IN with EMPTY on a field never empty"),
    # -- gone issues --------------------------------------------------------------------------
    ("assignee = ivanov and type = Bug", "A1 A101 O1", "the gone issue stays out"),
]
# Rows run with gone=any or gone=true beside the query.
GONE_ROWS = [
    ("any", "assignee = ivanov and type = Bug", "A1 A7 A101 O1", "gone=any takes the gone issue in"),
    ("true", "type = Bug", "A7", "gone=true: only gone ones"),
    ("any", "key = AURORA-7", "A7", "asked by key with gone=any"),
]
# Queries the mirror cannot answer: (query, the error's words, the character it points at).
ERRORS = [
    ("foo = bar", "Field 'foo' does not exist or you do not have permission to view it.", 1),
    ("status = Open and nosuch = 1", "Field 'nosuch' does not exist or you do not have permission to view it.", 19),
    ("cf[99999] = 1", "Field 'cf[99999]' does not exist or you do not have permission to view it.", 1),
    ("assignee = currentUser()", "The function 'currentUser()' needs Jira itself: the mirror cannot answer it.", 12),
    ("issue in issueHistory()", "The function 'issueHistory()' needs Jira itself: the mirror cannot answer it.", 10),
    ("assignee in membersOf(devs)", "The function 'membersOf()' needs Jira itself: the mirror cannot answer it.", 13),
    ("status = nosuchfunction()", "Unable to find JQL function 'nosuchfunction()'.", 10),
    ("status in openSprints()",
     "A value provided by the function 'openSprints' is invalid for the field 'status'.", 11),
    ("summary = Safari", "The operator '=' is not supported by the 'summary' field.", 1),
    ("status > Open", "The operator '>' is not supported by the 'status' field.", 1),
    ("labels ~ backend", "The operator '~' is not supported by the 'labels' field.", 1),
    ("fixVersion > 2.2", "The operator '>' is not supported by the 'fixVersion' field.", 1),
    ("key = notakey", "The issue key 'notakey' for field 'key' is invalid.", 7),
    ("id = abc", "The value 'abc' for field 'id' is not a valid issue id.", 6),
    ("cf[10002] = many", "The value 'many' is not a valid number for the field 'Story Points'.", 13),
    ("created > yesterday", "Date value 'yesterday' for field 'created' is invalid.", 11),
    ("status is Open", "The operator 'IS' can only be used with the value 'EMPTY' or 'NULL'.", 11),
    ("project = AURORA order by comment", "Not able to sort using field 'comment'.", 27),
    ("status = Open order by nosuch", "Field 'nosuch' does not exist or you do not have permission to view it.", 24),
    ('issue in linkedIssues("AURORA-1", a, b)', "Function 'linkedIssues' expected 1 to 2 arguments but received 3.",
     10),
]


class _Hub:
    """A hub on its own data dir for this module's queries, read at the fixed clock."""

    def __init__(self, data_dir, **settings):
        self.config = Config(data_dir=data_dir, **settings)
        startup.prepare(self.config)
        self.built = build(self.config, lambda *args, **kwargs: None, FixedClock())
        self.client = falcon.testing.TestClient(create_app(self.built))
        tokens = self.built.services.tokens
        self.tokens = {role: tokens.add(f"test-{role}", role) for role in ("agent", "interface")}

    def agent(self, method, path, body=None):
        return self.client.simulate_request(method, path, json=body,
                                            headers={"Authorization": f"Bearer {self.tokens['agent']}"})

    def api(self, method, path, body=None, **kwargs):
        return self.client.simulate_request(method, path, json=body,
                                            headers={"Authorization": f"Bearer {self.tokens['interface']}"}, **kwargs)

    def jql(self, query: str, **params):
        return self.api("GET", "/api/v1/issues", params={"jql": query, "limit": 100, **params})


def _mirror(data_dir, **settings) -> _Hub:
    hub = _Hub(data_dir, **settings)
    load(hub, ISSUES, NEIGHBOURS, version=16, catalogues=CATALOGUES)
    mark_gone(GONE, "not found")
    return hub


@pytest.fixture(scope="module")
def mirror(tmp_path_factory, backend, request):
    with engine_database(request, backend) as url:
        yield _mirror(tmp_path_factory.mktemp("jql") / "data", database_url=url)


def _keys(short: str) -> list[str]:
    return [("AURORA-" if word[0] == "A" else "OTHER-") + word[1:] for word in short.split()]


def _expected(query: str, short: str) -> list[str]:
    keys = _keys(short)
    if "order by" in query.lower():
        return keys
    return sorted(keys, key=key_order, reverse=True)  # Jira's default: key descending


# The queries that search by words (~, !~), through the full-text index.
WORD_ROWS = [row for row in ROWS if "~" in row[0]]
PLAIN_ROWS = [row for row in ROWS if "~" not in row[0]]


@pytest.mark.parametrize(("query", "expected", "why"), PLAIN_ROWS, ids=[row[0] or "(empty)" for row in PLAIN_ROWS])
def test_query(mirror, query, expected, why):
    _answers(mirror, query, expected, why)


@pytest.mark.parametrize(("query", "expected", "why"), WORD_ROWS, ids=[row[0] for row in WORD_ROWS])
def test_query_by_words(mirror, query, expected, why):
    _answers(mirror, query, expected, why)


def _answers(mirror, query: str, expected: str, why: str) -> None:
    resp = mirror.jql(query)
    assert resp.status_code == 200, resp.json
    assert [item["key"] for item in resp.json["items"]] == _expected(query, expected), why
    assert resp.json["total"] == len(_keys(expected))


@pytest.mark.parametrize(("gone", "query", "expected", "why"), GONE_ROWS)
def test_gone_beside_the_query(mirror, gone, query, expected, why):
    resp = mirror.jql(query, gone=gone)
    assert resp.status_code == 200, resp.json
    assert [item["key"] for item in resp.json["items"]] == _expected(query, expected), why


@pytest.mark.parametrize(("query", "words", "character"), ERRORS, ids=[row[0] for row in ERRORS])
def test_what_the_mirror_cannot_answer_is_a_422_with_the_position(mirror, query, words, character):
    resp = mirror.jql(query)
    assert resp.status_code == 422, resp.json
    assert resp.json["description"].startswith(words)
    assert resp.json["field"] == "jql"
    assert resp.json["position"] == {"line": 1, "character": character}


def test_a_query_that_does_not_parse_is_a_422_with_the_position(mirror):
    resp = mirror.jql("status = Open AND")
    assert resp.status_code == 422
    assert resp.json["position"]["line"] == 1 and resp.json["position"]["character"] >= 15
    assert resp.json["field"] == "jql"


def test_history_operators_reach_the_changelog(mirror):
    # No issue's changelog names its status: each held the status it has now throughout.
    resp = mirror.jql("status was Open and project = OTHER")
    assert resp.status_code == 200, resp.json
    assert [item["key"] for item in resp.json["items"]] == ["OTHER-3", "OTHER-1"]
    resp = mirror.jql("labels was backend")
    assert resp.status_code == 422
    assert resp.json["description"] == "History searches do not support the 'labels' field."


def test_the_other_filters_and_with_the_query(mirror):
    resp = mirror.api("GET", "/api/v1/issues", params={"jql": "type = Bug", "assignee": "ivanov", "limit": 100})
    assert [item["key"] for item in resp.json["items"]] == ["OTHER-1", "AURORA-101", "AURORA-1"]
    resp = mirror.api("GET", "/api/v1/issues", params={"jql": "type = Bug", "q": "safari"})
    assert resp.status_code == 422 and resp.json["field"] == "jql"
    resp = mirror.api("GET", "/api/v1/issues", params={"jql": "type = Bug", "sort": "priority"})
    assert resp.status_code == 422 and resp.json["field"] == "sort"


def test_pages_follow_the_query_order_with_an_offset_cursor_and_a_total_on_the_first(mirror):
    seen, cursor, first = [], None, True
    while True:
        params = {"jql": "project = AURORA ORDER BY priority DESC, created", "limit": 2}
        if cursor is not None:
            params["cursor"] = cursor
        resp = mirror.api("GET", "/api/v1/issues", params=params)
        assert resp.status_code == 200, resp.json
        assert ("total" in resp.json) == first
        if first:
            assert resp.json["total"] == 9
        first = False
        seen += [item["key"] for item in resp.json["items"]]
        cursor = resp.json["next_cursor"]
        if cursor is None:
            break
    whole = mirror.jql("project = AURORA ORDER BY priority DESC, created")
    assert seen == [item["key"] for item in whole.json["items"]]
    assert seen[:3] == ["AURORA-9", "AURORA-101", "AURORA-1"]  # no priority, then Blockers newest first


def test_the_query_is_bounded_in_length_by_the_schema(mirror):
    resp = mirror.jql("status = Open or " * 700 + "status = Open")
    assert resp.status_code == 422
    assert "jql" in str(resp.json)


def test_values_reach_sql_only_as_parameters(mirror):
    for query in ("summary ~ \"'); DROP TABLE issue; --\"", "status = \"x' OR '1'='1\"",
                  "labels in (\"a\\\" OR 1=1 --\")", "cf[10002] = 1", "\"Team'--\" = x"):
        resp = mirror.jql(query)
        assert resp.status_code in (200, 422), (query, resp.json)
        if resp.status_code == 200:
            assert resp.json["items"] == [] or query == "cf[10002] = 1"
    assert mirror.jql("key = AURORA-1").json["total"] == 1


def test_no_value_of_a_query_is_in_its_sql_only_in_its_parameters(mirror):
    """The compiler, on the SQL pieces of the mirror's engine (hub/dialect/jql.py)."""
    from zoneinfo import ZoneInfo

    from hub.assembly import build_fulltext
    from hub.services.search.jql.compiler import compile_query
    from hub.services.search.jql.parser import parse
    from tests.support.jql_reference import NOW

    marker = "zq9marker"
    texts = [f"status = {marker}", f"labels in ({marker}, x)", f'assignee = "{marker}"',
             f"sprint = {marker}", f"Team = {marker} ORDER BY Team", f"issue in linkedIssues(AURORA-1, {marker})",
             f"fixVersion = {marker}", f"resolution != {marker}", f"Reviewer = {marker}", f"project = {marker}"]
    if mirror.config.backend == "sqlite":
        # On PostgreSQL the words of ``~`` go to the server as a parameter and come back as
        # their tsquery, which the statement holds as a quoted constant (fulltext_postgres._literal).
        texts.append(f'summary ~ "{marker}"')
    words = build_fulltext(mirror.config).matching
    for text in texts:
        compiled = compile_query(parse(text), now=NOW, zone=ZoneInfo("UTC"), words=words)
        sql = " ".join(sql for sql, _ in compiled.where) + " " + " ".join(compiled.order)
        assert marker not in sql.casefold(), text
        assert any(marker in str(param).casefold() for _, params in compiled.where for param in params), text


@pytest.mark.parametrize("query", [
    "project = AURORA ORDER BY updated DESC",  # the index of updated gives the order: a count of its own
    "updated >= 2000-01-01 ORDER BY updated",
    "project = AURORA ORDER BY priority DESC",  # every match sorted: counted on the same pass
    "project = AURORA",
    "project = AURORA AND status = Nowhere",  # no match: the total is 0 either way
])
def test_the_first_page_total_counts_every_match_whichever_way_it_is_counted(mirror, query):
    whole = mirror.jql(query)
    resp = mirror.api("GET", "/api/v1/issues", params={"jql": query, "limit": 2})
    assert resp.status_code == 200, resp.json
    assert resp.json["total"] == whole.json["total"] == len(whole.json["items"])
    assert [item["key"] for item in resp.json["items"]] == [item["key"] for item in whole.json["items"]][:2]


@pytest.mark.parametrize(("query", "character"), [
    ("status in Open", 11),
    ("status = Open & priority = Blocker", 15),
    ("status = Open | priority = Blocker", 15),
])
def test_what_jiras_parser_refuses_is_a_422_with_its_position_when_run_and_when_saved(mirror, query, character):
    resp = mirror.jql(query)
    assert resp.status_code == 422, resp.json
    assert resp.json["field"] == "jql" and resp.json["description"].startswith("Error in the JQL Query: ")
    assert resp.json["position"] == {"line": 1, "character": character}
    saved = mirror.api("POST", "/api/v1/filters", {"name": f"refused {query}", "jql": query})
    assert saved.status_code == 422, saved.json
    assert saved.json["position"] == {"line": 1, "character": character}


@pytest.mark.parametrize("query", ["", "   ", "\n\t"], ids=["empty", "spaces", "whitespace"])
def test_an_empty_or_blank_jql_is_every_issue_as_in_jira(mirror, query):
    every = _expected("", ALL_BUT_GONE)
    resp = mirror.jql(query)
    assert resp.status_code == 200, resp.json
    assert [item["key"] for item in resp.json["items"]] == every and resp.json["total"] == len(every)
    facets = mirror.api("GET", "/api/v1/issues/facets", params={"jql": query, "fields": "status"})
    assert facets.status_code == 200, facets.json
    assert facets.json["total"] == len(every)
    saved = mirror.api("POST", "/api/v1/filters", {"name": f"every issue {query!r}", "jql": query})
    assert saved.status_code == 201, saved.json
    run = mirror.api("GET", f"/api/v1/filters/{saved.json['id']}/issues", params={"limit": 100})
    assert run.status_code == 200, run.json
    assert [item["key"] for item in run.json["items"]] == every


def test_the_reference_agent_sends_the_ids_of_the_custom_fields_the_mirror_keeps_in_columns():
    """What lets cf[N] of Sprint, Epic Link and the planned dates be read: the agent's ``fields``
    catalogue, from Jira's own field list (the ids are the instance's)."""
    from agent import mapping
    from demo.fakejira import END_FIELD, EPIC_FIELD, FIELDS, SPRINT_FIELD, START_FIELD

    sent = mapping.column_fields(mapping.find_custom_fields(FIELDS))
    assert {entry["column"]: entry["id"] for entry in sent} == {
        "sprint": SPRINT_FIELD, "epic_key": EPIC_FIELD, "planned_start": START_FIELD, "planned_end": END_FIELD}
    assert {entry["name"] for entry in sent} >= {"Sprint", "Epic Link"}
    assert mapping.column_fields(mapping.CustomFields()) == []
