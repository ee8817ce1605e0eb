"""The ``write`` kind's parts (protocol v19): the write as the hub sends it and its outcome
(``model``), field values in Jira's shapes (``fields``), the markers that make a write happen once
(``markers``), the check of the maker's ``base`` (``conflicts``) and the requests of each operation
(``ops``). The handler, ``agent/handlers/write.py``, runs them in that order."""
