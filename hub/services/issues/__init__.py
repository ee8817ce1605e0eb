"""Issues as interfaces read them: the mirror's issues, comments, worklogs and notes
(``reading``), sprints, and the JQL filters a team saves (``saved_filters``)."""
