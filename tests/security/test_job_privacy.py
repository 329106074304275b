"""Ingest jobs are an editor's work: a viewer of the same tenant must not list them or read one.

A job names the uploaded file and reports what it wrote; an editor uploading a draft ("layoffs-2027.md",
front matter ``status: draft``) would otherwise tell every viewer of the tenant that the draft exists and what it
is called — while the draft itself is a 404 to them. Viewers cannot upload, so they have no job to follow.
"""

from __future__ import annotations

from .conftest import Server
from .conftest import wait_job


def test_attack_a_viewer_cannot_list_or_read_an_editors_upload_job(server: Server) -> None:
    editor, viewer = server.key("editor", "jobs-private"), server.key("viewer", "jobs-private")
    with server.client(editor) as ce, server.client(viewer) as cv:
        r = ce.post("/api/items", params={"background": "true"}, files={"file": (
            "layoffs-2027.md", b"---\nstatus: draft\n---\n# Layoffs 2027\n\nDraft plan.\n", "text/markdown")})
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        assert wait_job(ce, job_id)["status"] == "completed"
        listed = cv.get("/api/jobs")
        assert listed.status_code == 403 and "layoffs" not in listed.text, listed.text
        one = cv.get(f"/api/jobs/{job_id}")
        assert one.status_code == 403 and "layoffs" not in one.text, one.text
        assert one.json()["error"]["details"]["required_role"] == "editor"
        assert job_id in [j["id"] for j in ce.get("/api/jobs").json()["jobs"]]  # the editor still follows it
