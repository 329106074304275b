"""Attack on revocation (round 5): a revoked key must stay revoked while another process writes the keys file.

The keys file is one JSON document that every writer rewrites whole: read it, change one record, replace the
file. ``KeyStore`` guarded that read-modify-write with a thread lock, which only orders the threads of one
process, and re-read the file only when its mtime changed. The server, the operator's ``groundsearch keys
revoke`` and a second ``serve`` worker are separate processes with a ``KeyStore`` each, so:

* a tenant admin minting and revoking throwaway keys over HTTP (``POST`` / ``DELETE /api/keys``) rewrote the file
  from the copy it had read just before the operator's revoke, writing the revoked key back — for good;
* two writes within one tick of the file system's clock (4 ms here) leave the same mtime, so a process that had
  read the first kept its copy, still accepting the revoked key, and wrote it back with its next change.

The holder of a leaked or departing admin key kept it alive through its own revocation by keeping the server busy
writing. Writers now take an exclusive ``flock`` on a lock file beside the keys file and re-read the file under it,
and every write leaves an mtime past the one before, so a change is never hidden from another process's cache.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from groundsearch.interfaces.api.auth import KeyStore

from .conftest import Server

ROUNDS = 40


def test_attack_a_tenant_admin_minting_keys_cannot_undo_the_operators_revoke(server: Server) -> None:
    # a deployment's worth of other tenants' keys: every rewrite takes as long as it would there
    for i in range(300):
        server.keys.create("viewer", tenant=f"race-other-{i % 30}")
    victims = [server.keys.create("admin", tenant="race-a") for _ in range(ROUNDS)]
    attacker = server.client(victims[-1][1])  # the last victim is revoked last; it mints until then
    stop, minted, errors = threading.Event(), [0], []

    def mint() -> None:
        while not stop.is_set():
            made = attacker.post("/api/keys", json={"role": "viewer", "label": "throwaway"})
            if made.status_code == 401:
                return  # its own key is revoked (the last round)
            if made.status_code != 201:
                errors.append(made.text)
                return
            attacker.delete(f"/api/keys/{made.json()['id']}")
            minted[0] += 1

    thread = threading.Thread(target=mint, daemon=True)
    thread.start()
    try:
        while minted[0] < 3:  # the attacker is writing before the operator starts
            time.sleep(0.01)
        for record, _ in victims[:-1]:
            KeyStore(server.keys.path).revoke(record.id)  # the operator's `groundsearch keys revoke`: its own process
            time.sleep(0.005)
    finally:
        stop.set()
        thread.join(timeout=60)
    assert not errors, errors[0]
    time.sleep(0.05)
    fresh = KeyStore(server.keys.path)  # what any process reads from the file now
    back = [r.id for r, _ in victims[:-1] if fresh.get(r.id) is not None]
    assert back == [], f"{len(back)} of {ROUNDS - 1} revoked keys were written back into the keys file"
    alive = [r.id for r, key in victims[:-1]
             if server.client(key).get("/api/keys").status_code != 401]
    assert alive == [], f"{len(alive)} of {ROUNDS - 1} revoked keys still authenticate"


def test_a_change_in_the_same_clock_tick_is_seen_by_another_process(tmp_path: Path) -> None:
    """Two ``KeyStore`` objects on one file are two processes (a worker and the CLI). A revoke by one is never
    hidden from the other's cache, and the other's next write keeps it — also when the file system's clock gives
    both writes the same mtime (coarse timestamps: one tick is 1–10 ms on Linux; set here with ``os.utime``)."""
    path = tmp_path / "keys.json"
    for _ in range(20):
        worker, cli = KeyStore(path), KeyStore(path)
        record, key = worker.create("admin", tenant="tick")
        worker.authenticate(key)  # the worker has read the file with that key in it
        seen = path.stat().st_mtime_ns
        cli.revoke(record.id)
        os.utime(path, ns=(seen, seen))  # the revoke landed in the same tick as the write the worker read
        assert worker.get(record.id) is None
        worker.create("viewer", tenant="tick")  # its next change must start from the revoked file
        assert KeyStore(path).get(record.id) is None
