"""The mirror: issue state loaded from agents into the issue tables (``loading``, the only
writer of them), moved issues re-keyed (``moves``) and their old keys (``aliases``), Jira's
catalogues and users, and the projects whose issues the hub keeps."""
