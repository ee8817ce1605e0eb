"""The demo (``make demo``) and the fake Jira it runs, which the tests and benchmarks use too."""
