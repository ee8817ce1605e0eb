"""Markup: Jira's wiki text as Markdown, sanitised HTML and plain text (``convert`` and the
``wiki_*`` grammar pieces), an issue's texts rendered for an answer (``rendering``), and the
other way, Markdown bodies of writes as Jira wiki markup (``markdown_wiki``, which knows Jira's
effects by ``wiki_phrases``; a body of the format "wiki" is Jira's own and passes byte for byte)."""
