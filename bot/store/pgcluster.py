"""A throwaway PostgreSQL cluster on a Unix socket in a temporary folder (tests and CI).

``initdb`` + ``pg_ctl`` of the installed server (Debian's ``/usr/lib/postgresql/N/bin``);
as root, the server runs as an unprivileged user (PostgreSQL refuses root) through
``runuser``. Nothing listens on TCP; trust authentication on the socket only.

``python3 -m bot.store.pgcluster start FOLDER`` prints the cluster's URL;
``python3 -m bot.store.pgcluster stop FOLDER`` stops it.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

USER = "nobody"


class ClusterError(RuntimeError):
    """PostgreSQL cannot be started here (the reason says why)."""


def bindir() -> Path:
    """The folder of initdb and pg_ctl (ClusterError if PostgreSQL is not installed)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).parent
    raise ClusterError("PostgreSQL's initdb is not installed (Debian: apt-get install postgresql)")


class Cluster:
    """One cluster in ``folder`` (data in ``folder/data``, the socket in ``folder``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.data = folder / "data"
        self.bin = bindir()

    def _run(self, *command: str) -> subprocess.CompletedProcess[str]:
        argv = [str(self.bin / command[0]), *command[1:]]
        if os.geteuid() == 0:
            argv = ["runuser", "-u", USER, "--", *argv]
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=self.folder)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ClusterError(f"{command[0]}: {exc}") from None

    def _checked(self, *command: str) -> None:
        done = self._run(*command)
        if done.returncode != 0:
            raise ClusterError(f"{command[0]} failed: {(done.stderr or done.stdout).strip()[-500:]}")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@/postgres?host={self.folder}"

    def url_of(self, database: str) -> str:
        return f"postgresql+psycopg://postgres@/{database}?host={self.folder}"

    def init(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            try:
                user = pwd.getpwnam(USER)
            except KeyError:
                raise ClusterError(f"running as root and there is no user {USER!r} to run PostgreSQL") from None
            os.chown(self.folder, user.pw_uid, user.pw_gid)
        self.folder.chmod(0o755)
        if not (self.data / "PG_VERSION").exists():
            self._checked("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync",
                          "-E", "UTF8", "--locale=C")

    def start(self) -> None:
        options = f"-k {self.folder} -c listen_addresses='' -c fsync=off -c full_page_writes=off"
        self._checked("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "server.log"),
                      "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``immediate``: as a crash would)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def remove(self) -> None:
        """Stop the server and delete the cluster's folder."""
        self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)

    @property
    def running(self) -> bool:
        return self._run("pg_ctl", "-D", str(self.data), "status").returncode == 0

    def create_database(self, name: str | None = None) -> str:
        """A new empty database; its URL."""
        import psycopg

        name = name or f"t{uuid.uuid4().hex[:12]}"
        with psycopg.connect(host=str(self.folder), user="postgres", dbname="postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')  # a generated name: letters and digits only
        return self.url_of(name)


ENV = "FIBSBOT_TEST_POSTGRES"
"""The folder of a cluster CI started (``.ci/postgres``): tests use it instead of their own."""


def for_tests() -> tuple[Cluster, bool]:
    """The cluster CI started, or a new one in a new folder of the temporary folder (the
    server's user must reach it); whether the caller owns it (:meth:`Cluster.remove` it).
    ClusterError when PostgreSQL cannot be started."""
    given = os.environ.get(ENV)
    if given:
        cluster = Cluster(Path(given))
        if cluster.running:
            return cluster, False
    cluster = Cluster(Path(tempfile.mkdtemp(prefix="fibsbot-pg-")))
    try:
        cluster.init()
        cluster.start()
    except ClusterError:
        shutil.rmtree(cluster.folder, ignore_errors=True)
        raise
    return cluster, True


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] not in ("start", "stop"):
        print("usage: python3 -m bot.store.pgcluster start|stop FOLDER", file=sys.stderr)
        return 2
    try:
        cluster = Cluster(Path(args[1]).resolve())
        if args[0] == "start":
            cluster.init()
            cluster.start()
            print(cluster.url)
        else:
            cluster.stop()
    except ClusterError as exc:
        print(f"pgcluster: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
