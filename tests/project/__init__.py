"""The repository itself: docs, deploy files, the demo, benchmarks, the test run's own reaper."""
