"""Sessions over HTTP: create, read, list, model/agent selection, clear 400s."""

from __future__ import annotations

from pathlib import Path

from .conftest import Api


async def test_create_then_get_and_list(api: Api, workdir: Path) -> None:
    status, created = await api.call("POST", "/api/session", {"location": str(workdir), "title": "first"})
    assert status == 201
    assert created["location"] == str(workdir) and created["title"] == "first" and created["agent"] == "build"
    status, fetched = await api.call("GET", f"/api/session/{created['id']}")
    assert status == 200 and fetched == created
    status, listing = await api.call("GET", "/api/session", params={"location": str(workdir)})
    assert status == 200 and [s["id"] for s in listing["data"]] == [created["id"]]
    assert listing["has_more"] is False
    status, same = await api.call("GET", "/api/session", params={"location": f"{workdir}/./"})
    assert [s["id"] for s in same["data"]] == [created["id"]]
    status, other = await api.call("GET", "/api/session", params={"location": "/elsewhere"})
    assert other == {"data": [], "has_more": False}
    status, error = await api.call("GET", "/api/session", params={"location": "project"})
    assert status == 400 and "absolute path" in error["error"]["message"]


async def test_reusing_an_id_returns_the_existing_session(api: Api, workdir: Path) -> None:
    status, first = await api.call("POST", "/api/session", {"id": "ses_mine", "location": str(workdir), "title": "a"})
    assert status == 201 and first["id"] == "ses_mine"
    status, again = await api.call("POST", "/api/session", {"id": "ses_mine", "location": str(workdir), "title": "b"})
    assert status == 200 and again == first


async def test_list_pages_with_has_more(api: Api, workdir: Path) -> None:
    ids = [await api.create(workdir) for _ in range(3)]
    status, page = await api.call("GET", "/api/session", params={"limit": 2})
    assert status == 200 and len(page["data"]) == 2 and page["has_more"] is True
    status, last = await api.call("GET", "/api/session", params={"limit": 2, "offset": 2})
    assert len(last["data"]) == 1 and last["has_more"] is False
    assert {s["id"] for s in page["data"] + last["data"]} == set(ids)


async def test_active_is_not_taken_for_a_session_id(api: Api) -> None:
    status, active = await api.call("GET", "/api/session/active")
    assert status == 200 and active == {}


async def test_bad_input_gets_one_clear_400(api: Api, workdir: Path) -> None:
    cases = [
        ({"location": "relative/dir"}, "location must be an absolute path"),
        ({"location": str(workdir / "missing")}, "is not a directory"),
        ({}, "body field location: Field required"),
        ({"location": str(workdir), "colour": "red"}, "unknown body field colour"),
        ({"location": str(workdir), "id": "has/slash"}, "body field id"),
        ({"location": str(workdir), "agent": "nobody"}, "unknown agent 'nobody'; the primary agents: build, plan"),
    ]
    for body, message in cases:
        status, error = await api.call("POST", "/api/session", body)
        assert status == 400, body
        assert error["error"]["type"] == "invalid-request"
        assert message in error["error"]["message"], error
    status, error = await api.call("POST", "/api/session", raw=b"{not json")
    assert status == 400 and "not valid JSON" in error["error"]["message"]
    status, error = await api.call("POST", "/api/session", raw=b"")
    assert status == 400 and "empty" in error["error"]["message"]
    status, error = await api.call("GET", "/api/session", params={"limit": "lots"})
    assert status == 400 and "query field limit" in error["error"]["message"]
    status, error = await api.call("GET", "/api/session", params={"limt": "3"})
    assert status == 400 and error["error"]["message"] == "unknown query field limt"


async def test_unknown_session_is_404(api: Api) -> None:
    for method, path, body in [
        ("GET", "/api/session/ses_nope", None),
        ("POST", "/api/session/ses_nope/model", {"model": "openai/other"}),
        ("POST", "/api/session/ses_nope/agent", {"agent": "build"}),
        ("POST", "/api/session/ses_nope/prompt", {"prompt": "hi"}),
        ("POST", "/api/session/ses_nope/compact", None),
        ("POST", "/api/session/ses_nope/interrupt", None),
        ("GET", "/api/session/ses_nope/pending", None),
        ("GET", "/api/session/ses_nope/history", None),
        ("GET", "/api/session/ses_nope/messages", None),
        ("GET", "/api/session/ses_nope/permissions", None),
        ("GET", "/api/session/ses_nope/log", None),
    ]:
        status, error = await api.call(method, path, body)
        assert status == 404, (method, path, error)
        assert error == {"error": {"type": "not-found", "message": "unknown session: ses_nope"}}


async def test_select_model_and_agent(api: Api, workdir: Path) -> None:
    sid = await api.create(workdir)
    status, session = await api.call("POST", f"/api/session/{sid}/model", {"model": "openai/other"})
    assert status == 200 and session["model"] == "openai/other"
    status, session = await api.call("POST", f"/api/session/{sid}/agent", {"agent": "build"})
    assert status == 200 and session["agent"] == "build"
    status, error = await api.call("POST", f"/api/session/{sid}/agent", {"agent": "ghost"})
    assert status == 400 and "unknown agent 'ghost'" in error["error"]["message"]
    status, error = await api.call("POST", f"/api/session/{sid}/model", {"model": ""})
    assert status == 400
    types = [e["type"] for e in await api.history(sid)]
    assert types == ["session.created.1", "session.model.selected.1", "session.agent.selected.1"]


async def test_a_prompt_may_select_a_primary_agent_first(api: Api, workdir: Path) -> None:
    sid = await api.create(workdir)
    status, error = await api.call("POST", f"/api/session/{sid}/prompt", {"prompt": "x", "agent": "ghost"})
    assert status == 400 and error["error"]["message"] == "unknown agent 'ghost'; the primary agents: build, plan"
    status, _ = await api.call(
        "POST", f"/api/session/{sid}/prompt", {"prompt": "look", "agent": "plan", "resume": False}
    )
    assert status == 202
    status, session = await api.call("GET", f"/api/session/{sid}")
    assert session["agent"] == "plan"
    types = [e["type"] for e in await api.history(sid)]
    assert types[:3] == ["session.created.1", "session.agent.selected.1", "session.prompt.admitted.1"]


async def test_search_finds_sessions_by_their_words(api: Api, workdir: Path) -> None:
    wanted = await api.create(workdir)
    await api.call("POST", f"/api/session/{wanted}/prompt", {"prompt": "refactor the tokenizer", "resume": False})
    other = await api.create(workdir)
    await api.call("POST", f"/api/session/{other}/prompt", {"prompt": "write the changelog", "resume": False})
    status, found = await api.call("GET", "/api/session", params={"search": "tokenizer"})
    assert status == 200 and [s["id"] for s in found["data"]] == [wanted]
    assert found["data"][0]["title"] == "refactor the tokenizer"


async def test_a_broken_project_config_is_named_not_a_traceback(api: Api, workdir: Path) -> None:
    (workdir / ".agent-tui").mkdir()
    (workdir / ".agent-tui" / "config.toml").write_text("model = [\n")
    status, error = await api.call("POST", "/api/session", {"location": str(workdir), "agent": "build"})
    assert status == 500 and error["error"]["type"] == "config"
    assert "config.toml" in error["error"]["message"] and "invalid TOML" in error["error"]["message"]
