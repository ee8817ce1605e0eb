"""How the benchmarks print a latency figure."""

from __future__ import annotations

import statistics


def latency(name: str, times: list[float], width: int = 34) -> str:
    """``name  p50 … ms  p95 … ms`` for ``times`` in seconds."""
    ms = sorted(t * 1000 for t in times)
    return f"{name:<{width}} p50 {statistics.median(ms):7.2f} ms  p95 {ms[int(len(ms) * 0.95) - 1]:7.2f} ms"
