"""The bot's bar: consecutive local bot-vs-bot matches, optionally with dropped connections.

``python -m bot.soak --matches 20 [--drop-every 50]`` plays matches over the
in-process server (loopback only) and checks: every match finished (no stuck
state), no move was refused by the server or blocked as illegal, and every
record file loads. With ``--drop-every N`` each connection is cut after a
random number of received lines around N (between N/2 and 3N/2), so the bots
must reconnect, resume and finish. Exit status 0 when all checks pass.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot import config as bot_config
from bot.config import BotConfig
from bot.player import Decider
from bot.run import engine_decider, local_players, play_local
from bot.session import Opener, Reader, Writer
from engine.errors import RecordParseError
from engine.records import load_sgf

log = logging.getLogger(__name__)


class Dropper:
    """An opener whose connections are cut after about ``every`` lines received after login.

    The cut falls inside what the server sent: the rest of that chunk is lost,
    as with a real broken connection, and the server sees the socket close.
    Counting starts at the welcome line, so that the banner and the login
    dialogue (some 40 lines) do not use up the budget.
    """

    def __init__(self, opener: Opener, every: int, rng: random.Random) -> None:
        self.opener = opener
        self.every = every
        self.rng = rng
        self.drops = 0

    async def __call__(self) -> tuple[Reader, Writer]:
        reader, writer = await self.opener()
        budget = self.rng.randint(max(1, self.every // 2), max(1, self.every * 3 // 2))
        return _Cutting(self, reader, writer, budget), writer


class _Cutting:
    def __init__(self, dropper: Dropper, reader: Reader, writer: Writer, budget: int) -> None:
        self.dropper = dropper
        self.reader = reader
        self.writer = writer
        self.budget = budget
        self.cut = False
        self.counting = False

    async def read(self, n: int) -> bytes:
        if self.cut:
            return b""
        data = await self.reader.read(n)
        if not self.counting:
            welcome = 0 if data.startswith(b"1 ") else data.find(b"\n1 ") + 1
            if welcome <= 0 and not data.startswith(b"1 "):
                return data
            self.counting = True
            return data[:welcome] + self._count(data[welcome:])
        return self._count(data)

    def _count(self, data: bytes) -> bytes:
        end = -1
        for _ in range(min(self.budget, data.count(b"\n"))):
            end = data.index(b"\n", end + 1)
        self.budget -= data.count(b"\n")
        if self.budget <= 0 and data:
            self.cut = True
            self.dropper.drops += 1
            self.writer.close()
            return data[:end + 1]
        return data


@dataclass
class SoakReport:
    matches: int
    finished: int = 0
    seconds: float = 0.0
    drops: int = 0
    reconnects: int = 0
    refused_moves: int = 0
    illegal_blocked: int = 0
    deadline_misses: int = 0
    records: list[Path] = field(default_factory=list)
    bad_records: list[str] = field(default_factory=list)
    forks: int = 0
    stuck: str = ""

    @property
    def ok(self) -> bool:
        return (self.finished == self.matches and not self.stuck and not self.refused_moves
                and not self.illegal_blocked and not self.bad_records and len(self.records) >= self.matches)

    def __str__(self) -> str:
        lines = [
            f"matches finished: {self.finished}/{self.matches} in {self.seconds:.1f} s"
            + (f" (STUCK: {self.stuck})" if self.stuck else ""),
            f"moves refused by the server: {self.refused_moves}, illegal moves blocked: {self.illegal_blocked}",
            f"connections dropped: {self.drops}, reconnects: {self.reconnects}, "
            f"engine deadlines missed: {self.deadline_misses}",
            f"records: {len(self.records)} load, {len(self.bad_records)} do not"
            + (f" ({self.forks} continued in a second file after a lost line)" if self.forks else ""),
        ]
        lines += [f"  bad record: {text}" for text in self.bad_records]
        lines.append("OK" if self.ok else "FAILED")
        return "\n".join(lines)


async def soak(cfg: BotConfig, ours: Decider, theirs: Decider, *, matches: int, length: int = 3,
               drop_every: int | None = None, seed: int = 1) -> SoakReport:
    """Play ``matches`` matches and check them (records go to ``cfg.records.dir``)."""
    report = SoakReport(matches)
    rng = random.Random(seed)
    droppers: list[Dropper] = []

    def wrap(opener: Opener) -> Opener:
        droppers.append(Dropper(opener, drop_every or 1, rng))
        return droppers[-1]

    player, sparring = local_players(cfg, ours, theirs, matches=matches, length=length)
    start = time.monotonic()
    try:
        await play_local(player, sparring, seed=seed, wrap=wrap if drop_every else None)
    except TimeoutError:
        report.stuck = f"not done after {cfg.local.timeout_s:.0f} s"
    report.seconds = time.monotonic() - start
    report.finished = len(player.results)
    report.drops = sum(d.drops for d in droppers)
    for who in (player, sparring):
        report.reconnects += max(0, who.stats.logins - 1)
        report.refused_moves += who.stats.refused_moves
        report.illegal_blocked += who.stats.illegal_blocked
        report.deadline_misses += who.stats.deadline_misses
    paths = sorted(cfg.records.dir.glob("*.sgf"))
    continued = {p.stem.split("-part")[0] for p in paths if "-part" in p.stem}
    for path in paths:
        try:
            record = load_sgf(path)
        except (OSError, RecordParseError) as exc:
            report.bad_records.append(f"{path.name}: {exc}")
            continue
        report.records.append(path)
        report.forks += "-part" in path.stem
        if path.stem not in continued and "-part" not in path.stem and not record.is_over():
            report.bad_records.append(f"{path.name}: the match is not over in the record ({record.score()})")
    for result in player.results:
        if result.score is not None and result.record is not None and "-part" not in result.record.stem:
            try:
                final = load_sgf(result.record).score()
            except (OSError, RecordParseError):
                continue  # reported above
            if max(final) >= result.length and (final[1], final[0]) != result.score:
                report.bad_records.append(f"{result.record.name}: score {final[::-1]}, the server said {result.score}")
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--length", type=int, default=3)
    parser.add_argument("--drop-every", type=int, metavar="LINES",
                        help="cut each connection after about LINES lines (30 or more: a login and a "
                             "resume alone take some 25)")
    parser.add_argument("--level", default="beginner", help="both bots' engine level (default: beginner, fast)")
    parser.add_argument("--seed", type=int, default=1, help="dice and cut points")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="keep records and transcripts in DIR")
    parser.add_argument("--config", type=Path, default=bot_config.DEFAULT_PATH)
    parser.add_argument("--log-level", default="ERROR", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    with tempfile.TemporaryDirectory(prefix="fibsbot-soak-") as tmp:
        folder = args.keep or Path(tmp)
        data = bot_config.load(args.config).model_dump()
        data["engine"]["level"] = data["local"]["opponent_level"] = args.level
        data["records"].update(dir=folder / "records", transcript=str(folder / "logs" / "{user}.log"),
                               ledger=folder / "ledger.jsonl")
        data["connection"].update(backoff_min_s=0.05, backoff_max_s=1.0)
        data["local"]["timeout_s"] = 120.0 * args.matches
        cfg = BotConfig.model_validate(data)
        decider = engine_decider(cfg)
        report = asyncio.run(soak(cfg, decider, decider, matches=args.matches, length=args.length,
                                  drop_every=args.drop_every, seed=args.seed))
        print(report)
        if args.keep:
            print(f"records and transcripts in {folder}")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
