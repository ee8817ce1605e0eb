"""Markup: Jira's wiki text as Markdown, sanitised HTML and plain text (``convert`` and the
``wiki_*`` grammar pieces), and an issue's texts rendered for an answer (``rendering``)."""
