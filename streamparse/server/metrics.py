"""Counters of one proxy process, served as Prometheus text on ``GET /metrics``.

Plain integers mutated from the event loop's single thread: no locks needed. With several worker
processes each has its own counters (scrape each worker, or sum them).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

_HELP = {
    "requests_total": "requests received, by route",
    "tool_calls_total": "tool calls sent to clients as structured calls",
    "rejections_total": "candidate calls rejected, by reason",
    "handed_over_total": "schema-invalid calls sent to the client anyway (--pass-invalid)",
    "upstream_errors_total": "upstream failures, by kind",
    "client_gone_total": "requests whose client left, by stage",
    "refused_total": "requests refused by the proxy, by HTTP status",
    "retries_total": "upstream requests made again to correct a rejected call (--on-reject retry)",
}


@dataclass
class Metrics:
    counters: dict[str, Counter[str]] = field(default_factory=lambda: {name: Counter() for name in _HELP})
    streams_open: int = 0

    def inc(self, name: str, label: str = "", n: int = 1) -> None:
        self.counters[name][label] += n

    def get(self, name: str, label: str = "") -> int:
        return self.counters[name][label]

    def render(self) -> str:
        lines: list[str] = []
        for name, help_text in _HELP.items():
            metric = f"streamparse_{name}"
            lines += [f"# HELP {metric} {help_text}", f"# TYPE {metric} counter"]
            label = {"requests_total": "route", "rejections_total": "reason", "upstream_errors_total": "kind"}
            key = label.get(name, {"client_gone_total": "stage", "refused_total": "status"}.get(name, ""))
            for value, count in sorted(self.counters[name].items()):
                lines.append(f'{metric}{{{key}="{value}"}} {count}' if value else f"{metric} {count}")
        lines += [
            "# HELP streamparse_streams_open streaming replies in progress",
            "# TYPE streamparse_streams_open gauge",
            f"streamparse_streams_open {self.streams_open}",
        ]
        return "\n".join(lines) + "\n"
