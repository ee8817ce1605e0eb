"""How the benchmarks print a latency figure."""

from __future__ import annotations

import statistics


def latency(name: str, times: list[float], width: int = 34) -> str:
    """``name  p50 … ms  p95 … ms`` for ``times`` in seconds."""
    ms = sorted(t * 1000 for t in times)
    return f"{name:<{width}} p50 {statistics.median(ms):7.2f} ms  p95 {ms[int(len(ms) * 0.95) - 1]:7.2f} ms"


def verdict(met: bool, target: str, missed: str = "OVER TARGET") -> str:
    """``(ok, target …)``, or ``missed`` in place of ok: how a figure stands to its target."""
    return f"({'ok' if met else missed}, target {target})"


def against_baseline(times: list[float], baseline: list[float], target_ms: float) -> str:
    """``ratio to baseline …x; p50 … ms (ok, target < … ms)`` for ``times`` beside ``baseline``."""
    p50 = statistics.median(times) * 1000
    return (f"ratio to baseline {statistics.median(times) / statistics.median(baseline):6.1f}x;"
            f" p50 {p50:.1f} ms {verdict(p50 < target_ms, f'< {target_ms:g} ms')}")
