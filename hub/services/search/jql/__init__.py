"""JQL over the mirror: a query parsed (:mod:`.parser`) into a tree (:mod:`.tree`), compiled
(:mod:`.compiler`, with dates in :mod:`.dates` and history in :mod:`.history`) into SQL
conditions with parameters — the query's text never reaches SQL — and run by the issue
service like the list's other filters. docs/jql.md is the language as the hub reads it."""
