"""Full-text search, JQL and facets."""
