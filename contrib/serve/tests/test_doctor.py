"""`POST /v1/doctor`: the doctor's checks run in the server's process, once for many
requests, cached; and no page of another site can make the server run them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
from agentframe_serve.diagnoses import Diagnoses
from servekit import write_project

from agentframe_core import PluginHost, load_config


def children(pid: int) -> set[int]:
    """The processes `pid` started that are running now."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found.update(int(child) for child in (task / "children").read_text().split())
    return found


async def test_many_requests_share_one_in_process_run(serve_process: Any) -> None:
    process, url = serve_process(["unused"])
    seen: set[int] = set()
    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        asked = asyncio.gather(*(http.post("/v1/doctor") for _ in range(10)))
        while not asked.done():  # sample the server's children until every answer is in
            seen |= children(process.pid)
            await asyncio.wait([asked], timeout=0.02)
        answers = await asked
    assert [a.status_code for a in answers] == [200] * 10
    assert len({a.text for a in answers}) == 1  # one run, its result shared
    report = answers[0].json()
    assert report["ok"] is True, report
    names = [check["name"] for check in report["checks"]]
    assert names[0] == "python" and "config" in names and "tools" in names
    assert seen == set(), "the doctor started a process"


async def test_the_checks_run_once_at_a_time_and_are_cached(tmp_path: Path) -> None:
    root = write_project(tmp_path, ["unused"])
    config = load_config(PluginHost(), root / "agentframe.yaml")
    diagnoses = Diagnoses()
    reports = await asyncio.gather(*(diagnoses.report(config, root) for _ in range(10)))
    assert diagnoses.runs == 1 and all(r is reports[0] for r in reports)
    assert await diagnoses.report(config, root) is reports[0]  # fresh: not run again
    assert diagnoses.runs == 1


async def test_no_other_sites_page_can_make_the_server_run_it(serve: Any) -> None:
    served = await serve(["unused"])
    async with httpx.AsyncClient(base_url=served.url, timeout=120) as http:
        assert (await http.get("/v1/doctor")).status_code == 405  # an <img> is a GET
        image = {"sec-fetch-site": "cross-site", "sec-fetch-dest": "image"}
        for path in ("/v1/stack", "/v1/sessions", "/v1/models"):
            refused = await http.get(path, headers=image)
            assert refused.status_code == 403, path
            assert "another site" in refused.json()["error"]["message"]
        form = {"origin": "https://evil.example", "sec-fetch-site": "cross-site"}
        assert (await http.post("/v1/doctor", headers=form)).status_code == 403
        same = {"origin": served.url, "sec-fetch-site": "same-origin"}
        assert (await http.post("/v1/doctor", headers=same)).status_code == 200
