"""``python -m bot.clip --stats FILE``: how many events of each type raw server output gives."""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterable, Sequence

from bot.clip.event import Unknown
from bot.clip.glue import parse_all
from bot.clip.lines import LineSplitter


def event_counts(lines: Iterable[str]) -> Counter[str]:
    """How many events of each type the lines give (``Unknown`` included)."""
    return Counter(type(event).__name__ for line in lines for event in parse_all(line))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.clip", description="Classify FIBS server lines.")
    parser.add_argument("--stats", metavar="FILE", nargs="+", required=True,
                        help="print the number of events of each type in FILE (raw server output)")
    parser.add_argument("--unknown", action="store_true", help="also print the Unknown lines")
    args = parser.parse_args(argv)
    lines: list[str] = []
    for name in args.stats:
        splitter = LineSplitter(prompts=())
        with open(name, "rb") as stream:
            lines += splitter.feed(stream.read()) + splitter.flush()
    counts = event_counts(lines)
    for name, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        print(f"{count:7d} {name}")
    print(f"{sum(counts.values()):7d} events from {len(lines)} lines, {counts['Unknown']} Unknown")
    if args.unknown:
        for line in lines:
            for event in parse_all(line):
                if isinstance(event, Unknown):
                    print(f"Unknown: {event.line}")
    return 0
