"""Human-readable figures shared by the CLI and the TUI (stdlib only: on start-up paths)."""

from __future__ import annotations


def byte_size(size: int) -> str:
    """``812 B``, ``1.2 KiB``, ``3.4 MiB``."""
    value = float(size)
    for unit in ("B", "KiB", "MiB"):
        if value < 1024:
            return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def relative_time(ms: int, now_ms: int) -> str:
    """``just now``, ``5m ago``, ``3h ago``, ``2d ago``."""
    seconds = max(0, (now_ms - ms) // 1000)
    for unit, size in (("d", 86_400), ("h", 3_600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return "just now"
