"""Search: the list's conditions and orders (``conditions``), ``q`` (``text_query``, read into a
tree; ``fulltext`` and one module per engine run it; ``snippets``; ``fulltext_backlog`` and one
module per engine index what a page changed), JQL (``jql``) and facets."""
