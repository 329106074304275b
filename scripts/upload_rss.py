"""Peak RSS of a real ``groundsearch serve`` while N clients upload SIZE MiB each at once.

The uploads are records sent to a documents collection in the background: each is staged, answered 202, and its
job fails at once without parsing it, so the figure is the upload path's memory, not ingest's.

    PYTHONPATH=src .venv/bin/python scripts/upload_rss.py N SIZE_MIB   (tests/security/test_upload_memory.py)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx


def _mib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) // 1024
    raise KeyError(field)


def main(n: int, mib: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="upload-rss-"))
    (tmp / "groundsearch.toml").write_text('[collections.docs]\nkind = "documents"\n')
    env = {**os.environ, "GROUNDSEARCH_EMBEDDER": "hash", "OMP_NUM_THREADS": "1"}
    cli = str(Path(sys.executable).parent / "groundsearch")
    proc = subprocess.Popen([cli, "--config", str(tmp / "groundsearch.toml"), "--data-dir", str(tmp / "data"),
                             "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                            text=True)
    try:
        assert proc.stdout is not None
        url = next(m.group(0) for line in proc.stdout if (m := re.search(r"http://127\.0\.0\.1:\d+", line)))
        threading.Thread(target=proc.stdout.read, daemon=True).start()
        with httpx.Client(base_url=url, timeout=60) as c:
            c.post("/api/search", json={"query": "warm up"})
        before = _mib(proc.pid, "VmRSS")
        body = (b"# big\n\n" + b"word " * (mib * 2**20 // 5))[: mib * 2**20 - 4096]  # under the 32 MiB limit
        codes: list[int] = []

        def one() -> None:
            with httpx.Client(base_url=url, timeout=120) as c:
                codes.append(c.post("/api/items", params={"background": "true"}, data={"collection": "docs"},
                                    files={"file": ("big.jsonl", body, "application/jsonl")}).status_code)

        threads = [threading.Thread(target=one) for _ in range(n)]
        for t in threads:
            t.start()
        peak = before
        while any(t.is_alive() for t in threads):
            peak = max(peak, _mib(proc.pid, "VmRSS"))
            time.sleep(0.005)
        print(f"{n} x {len(body) / 2**20:.0f} MiB: codes {sorted(set(codes))}; server RSS before {before} MiB, "
              f"sampled peak {peak} MiB, VmHWM {_mib(proc.pid, 'VmHWM')} MiB")
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
