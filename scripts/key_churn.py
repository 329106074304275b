"""Another tenant's latency while one tenant admin creates and revokes keys in a loop (real app over HTTP).

The keys file holds OTHER_KEYS keys of other tenants; a victim viewer times ``GET /api/search/preview`` quiet and then
while two threads of the attacker's admin loop ``POST /api/keys`` + ``DELETE /api/keys/{id}``. Key writes are budgeted
at the default ``api.keys_per_minute`` (where the code has it).

    PYTHONPATH=src .venv/bin/python scripts/key_churn.py OTHER_KEYS   (tests/security/test_key_churn.py)
"""

from __future__ import annotations

import hashlib
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' server helpers

from groundsearch.interfaces.api import create_app  # noqa: E402
from groundsearch.interfaces.api.auth import KeyStore  # noqa: E402
from groundsearch.settings import ApiSettings  # noqa: E402
from tests.api.live import serve  # noqa: E402
from tests.security.conftest import open_engine  # noqa: E402


def _timed(client: httpx.Client, n: int = 60) -> tuple[float, float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        r = client.get("/api/search/preview", params={"q": "fer"})
        assert r.status_code == 200, r.text
        out.append((time.perf_counter() - t) * 1000)
    return statistics.median(out), sorted(out)[int(0.95 * len(out))]


def main(other_keys: int) -> None:
    tmp = Path(tempfile.mkdtemp())
    engine = open_engine(tmp)
    records = [{"id": f"{i:012x}", "role": "viewer", "tenant": f"t{i % 500}", "created_at": "2026-01-01T00:00:00+00:00",
                "sha256": hashlib.sha256(str(i).encode()).hexdigest(), "label": "", "all_tenants": False}
               for i in range(other_keys)]
    (tmp / "keys.json").write_text(json.dumps({"keys": records}))
    keys = KeyStore(tmp / "keys.json")
    victim, admin = keys.create("viewer", tenant="victim")[1], keys.create("admin", tenant="attacker")[1]
    note = tmp / "ferns.md"
    note.write_text("# Ferns\n\nFerns grow in shade.\n")
    engine.ingest([note], "docs", tenant="victim")
    settings = engine.settings
    if "keys_per_minute" in ApiSettings.model_fields:  # the default budget, not the test servers' 100k
        default = ApiSettings.model_fields["keys_per_minute"].default
        settings = settings.model_copy(update={"api": settings.api.model_copy(update={"keys_per_minute": default})})
    with engine, serve(create_app(engine, settings, keys=keys)) as url, \
            httpx.Client(base_url=url, headers={"X-API-Key": victim}, timeout=60) as v:
        _timed(v, 10)
        for _ in range(2):
            print("quiet        p50 %.1f  p95 %.1f ms" % _timed(v))
        stop, cycles, refused = threading.Event(), [0], [0]

        def churn() -> None:
            with httpx.Client(base_url=url, headers={"X-API-Key": admin}, timeout=60) as a:
                while not stop.is_set():
                    made = a.post("/api/keys", json={"role": "viewer"})
                    if made.status_code != 201:
                        refused[0] += 1
                        continue
                    a.delete(f"/api/keys/{made.json()['id']}")
                    cycles[0] += 1

        threads = [threading.Thread(target=churn) for _ in range(2)]
        for t in threads:
            t.start()
        time.sleep(1)
        print("during churn p50 %.1f  p95 %.1f ms" % _timed(v))
        stop.set()
        for t in threads:
            t.join()
        print(f"attacker: {cycles[0]} create+revoke cycles, {refused[0]} creates refused")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
