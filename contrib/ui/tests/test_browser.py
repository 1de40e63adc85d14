"""The UI in a real browser against a real `agentframe serve` process on a scripted stack:
chat (streamed answer, a tool call, a sub-agent's card and session, stop, a question to
the person answered in a form), a reply's markup shown as text, sessions found by search, a
compaction, a run's trace (the real tracing plugin's local store), the knowledge graph and
the stack, on a phone-width dark page too. The server has an API key (the pages send it, the
key a tab was given; a tab without one is asked for it), so one process serves every test."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from uikit import HERE, seed, start_serve, stop, write_project

from agentframe_core import Entry, EntryKind
from agentframe_core.testing import eventually

MARKUP = (
    '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">'
    ' [run me](javascript:window.pwned=3) <a href="javascript:window.pwned=4">x</a>'
)
#: The one server's model plays these in order, so the tests that chat run in file order,
#: as a module (each takes its replies; a test picked alone with -k gets another's).
REPLIES: list[Any] = [
    {"content": "Adding.", "tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
    {"content": "The sum is 5.", "usage": {"prompt_tokens": 90, "completion_tokens": 6}},
    {"tool_calls": [{"name": "subagent", "arguments": {"agent": "other", "task": "Say hi"}}]},
    "hi from the child",
    "The child said hi.",
    MARKUP,
    {"content": "too late", "delay": 30},
    {"tool_calls": [{"name": "remove", "arguments": {"path": "notes.txt"}}]},
    "Removed, one copy kept.",
]
ALICE = "alice-key-0123456789abcdef"
KEYS = {"AGENTFRAME_SERVE_API_KEYS": f"alice={ALICE}"}


def _entries(*pairs: tuple[EntryKind, str]) -> list[Entry]:
    return [Entry(kind=kind, content=text) for kind, text in pairs]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_project(tmp_path_factory.mktemp("ui"), REPLIES)
    user, assistant = EntryKind.USER, EntryKind.ASSISTANT
    seed(
        root,
        {
            "rivers": _entries(
                (user, "Tell me about rivers"),
                (assistant, "The Danube flows through ten countries."),
                (user, "And the longest?"),
                (assistant, "The Nile."),
            ),
            "zebras": _entries(
                (user, "Where do zebras live?"),
                (assistant, "On the African savannah, in herds."),
            ),
        },
        compact={"rivers": 2},
        owner="alice",
    )
    return root


@pytest.fixture(scope="module")
def url(project: Path) -> Iterator[str]:
    process, address = start_serve(
        project,
        "--kg",
        "kg",
        PYTHONPATH=str(HERE),
        **KEYS,
    )
    yield address
    errors = stop(process)
    assert "Traceback" not in errors


@pytest.fixture
def page(browser: Any, url: str) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(f"sessionStorage.setItem('agentframe.key', {json.dumps(ALICE)})")
    opened = context.new_page()
    problems: list[str] = []
    opened.on("console", lambda m: m.type == "error" and problems.append(m.text))
    opened.on("pageerror", lambda err: problems.append(str(err)))
    yield opened
    context.close()
    assert not problems, problems  # no CSP violation, no script error


def shot(page: Any, folder: Path, name: str) -> None:
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def test_chat_streams_the_answer_and_shows_the_tool_call(
    page: Any, url: str, screenshots: Path
) -> None:
    from playwright.sync_api import expect

    page.goto(f"{url}/#/chat")
    page.get_by_label("Agent").select_option("helper")
    page.get_by_label("Message").fill("What is 2+3?")
    page.keyboard.press("Enter")
    expect(page.locator(".msg.assistant").last).to_have_text("The sum is 5.")
    tool = page.locator("details.tool").first
    expect(tool.locator(".name")).to_have_text("add")
    expect(tool.locator(".time")).not_to_be_empty()
    tool.locator("summary").click()
    expect(tool.locator(".args")).to_contain_text('"a": 2')
    expect(tool.locator(".result")).to_have_text("5")
    expect(page.locator(".meta").last).to_contain_text("completed · 90 in")
    shot(page, screenshots, "chat")


def test_a_sub_agent_is_a_card_that_opens_its_session(
    page: Any, url: str, screenshots: Path
) -> None:
    from playwright.sync_api import expect

    page.goto(f"{url}/#/chat")
    page.get_by_label("Message").fill("Ask the other agent to say hi")
    page.get_by_role("button", name="Send").click()
    expect(page.locator(".msg.assistant").last).to_have_text("The child said hi.")
    child = page.locator("details.child")
    expect(child.locator(".name")).to_have_text("sub-agent other")
    expect(child.locator(".status")).to_have_text("done")
    page.locator("details.tool summary").first.click()
    child.locator("summary").click()
    shot(page, screenshots, "chat-child")
    child.get_by_role("link", name="Open the child's session").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Child session")
    expect(page.locator("#entries")).to_contain_text("hi from the child")
    expect(page.locator("#entries")).to_contain_text("Say hi")
    shot(page, screenshots, "child-session")


def test_a_replys_markup_is_text_and_runs_nothing(page: Any, url: str) -> None:
    from playwright.sync_api import expect

    page.goto(f"{url}/#/chat")
    page.get_by_label("Message").fill("Show me markup")
    page.keyboard.press("Enter")
    reply = page.locator(".msg.assistant").last
    expect(reply).to_have_text(MARKUP)
    assert reply.locator("script, img, a").count() == 0
    assert page.evaluate("window.pwned") is None
    page.goto(f"{url}/#/sessions")  # the list and the history show it as text too
    page.get_by_role("link", name="Show me markup").first.click()
    expect(page.locator("#entries")).to_contain_text("<script>window.pwned = 1</script>")
    assert page.locator("#entries script, #entries img").count() == 0
    assert page.evaluate("window.pwned") is None


def test_stop_ends_the_run(page: Any, url: str) -> None:
    from playwright.sync_api import expect

    page.goto(f"{url}/#/chat")
    page.get_by_label("Message").fill("Take your time")
    page.keyboard.press("Enter")
    stop_button = page.get_by_role("button", name="Stop")
    expect(stop_button).to_be_enabled()
    stop_button.click()
    expect(page.locator(".note").last).to_have_text("Stopped.")
    expect(page.get_by_role("button", name="Send")).to_be_enabled()


def test_a_question_is_answered_in_the_chat(page: Any, url: str, screenshots: Path) -> None:
    from playwright.sync_api import expect

    page.goto(f"{url}/#/chat")
    page.get_by_label("Message").fill("Remove notes.txt")
    page.keyboard.press("Enter")
    form = page.locator("form.question")
    expect(form.locator(".asked")).to_have_text("Remove notes.txt?")
    expect(form.get_by_label("Why")).to_be_focused()
    page.keyboard.type("old")
    form.get_by_label("Copies to keep").fill("2")
    shot(page, screenshots, "chat-question")
    form.get_by_role("button", name="Send").click()
    expect(form.locator("[role=status]")).to_have_text("Answered.")
    expect(page.locator(".msg.assistant").last).to_have_text("Removed, one copy kept.")
    page.locator("details.tool summary").last.click()
    expect(page.locator("details.tool .result").last).to_have_text(
        "accept {'reason': 'old', 'copies': 2}"
    )


def test_a_session_is_found_by_what_its_entries_say(page: Any, url: str, screenshots: Path) -> None:
    from playwright.sync_api import expect

    page.goto(f"{url}/#/sessions")
    expect(page.locator("#count")).to_contain_text("sessions")
    page.get_by_label("Search sessions").fill("savannah")
    page.keyboard.press("Enter")
    found = page.locator("#sessions li")
    expect(found).to_have_count(1)
    expect(found.get_by_role("link")).to_have_text("Where do zebras live?")
    expect(found.locator(".snippet")).to_contain_text("African savannah")
    shot(page, screenshots, "sessions-search")
    found.get_by_role("link").click()
    expect(page.locator("#entries")).to_contain_text("in herds")


def test_a_compaction_shows_what_it_replaced(page: Any, url: str, screenshots: Path) -> None:
    from playwright.sync_api import expect

    page.goto(f"{url}/#/sessions/rivers")
    marker = page.locator("details.compaction")
    expect(marker.locator("summary")).to_contain_text("Replaced 2 entries")
    expect(page.locator("#entries > li")).to_have_count(3)  # the marker and what followed
    marker.locator("summary").click()
    expect(marker.locator(".replaced")).to_contain_text("Tell me about rivers")
    expect(marker.locator(".replaced")).to_contain_text("The Danube")
    page.get_by_label("assistant").uncheck()
    expect(page.locator("#entries > li.assistant").first).to_be_hidden()
    shot(page, screenshots, "session-compaction")


def _traced_run(url: str, tool: str) -> dict[str, Any]:
    """The newest of alice's traces (the real plugin's, from the server's local trace store)
    with an `execute_tool {tool}` span: the batch processor writes them soon after the run."""
    headers = {"Authorization": f"Bearer {ALICE}"}

    def traced() -> dict[str, Any] | None:
        found = httpx.get(f"{url}/v1/traces", headers=headers, timeout=10).json()
        assert found["enabled"], found
        for trace in found["traces"]:
            if any(s["name"] == f"execute_tool {tool}" for s in trace["spans"]):
                return dict(trace)
        return None

    return eventually(traced, 60, what=f"a trace with an `execute_tool {tool}` span")


def test_a_trace_as_a_waterfall_and_in_the_inspector(
    page: Any, url: str, screenshots: Path
) -> None:
    """The sub-agent chat's run above, as the real tracing plugin recorded it."""
    from playwright.sync_api import expect

    trace = _traced_run(url, "subagent")
    spans = trace["spans"]
    page.goto(f"{url}/#/traces")
    expect(page.locator("#traces li").first).to_be_visible()
    page.get_by_role("link", name=f"{trace['agent'] or 'run'} {trace['run_id']}").click()
    waterfall = page.locator("#waterfall li")
    expect(waterfall).to_have_count(len(spans))
    names = waterfall.locator(".label").all_inner_texts()
    agent = trace["agent"]  # the chat page's agent; the server's span is the trace's root
    assert names[0] == f"POST /ag-ui/{agent}" and f"invoke_agent {agent}" in names, names
    assert "invoke_agent other" in names, names  # the sub-agent's run, inside the tool call
    assert "execute_tool subagent" in names, names
    assert sum(n.startswith("chat") for n in names) == 3, names  # two the parent's, one the child's
    tool = next(s for s in spans if s["name"] == "execute_tool subagent")
    page.locator(f'[data-span="{tool["span_id"]}"]').click()
    detail = page.locator("#span-detail")
    expect(detail).to_contain_text("gen_ai.tool.name")
    expect(detail).to_contain_text("Say hi")  # the captured arguments
    inspector = page.locator("#inspector")
    expect(inspector).to_contain_text("Model calls (3)")
    expect(page.locator("#outcome")).to_contain_text("outcome: completed")
    first = inspector.locator("details.call").first
    first.locator("summary").click()
    expect(first.locator(".messages")).to_contain_text("Ask the other agent to say hi")
    expect(first).to_contain_text('"name": "subagent"')  # the tool schemas it was sent
    shot(page, screenshots, "trace")


def test_the_knowledge_graph_with_sources_and_shacl(page: Any, url: str, screenshots: Path) -> None:
    from playwright.sync_api import expect

    page.goto(f"{url}/#/kg")
    expect(page.locator("#kg-graph g.node")).to_have_count(4)
    expect(page.locator(".meta").first).to_contain_text("SHACL: does not conform")
    page.locator('#kg-graph g.node[data-id$="Ada_Lovelace"]').focus()
    page.keyboard.press("Enter")
    detail = page.locator("#kg-detail")
    expect(detail).to_contain_text("Ada Lovelace worksFor Analytical Society")
    detail.locator("details.source summary").click()
    expect(detail.locator(".chunk")).to_contain_text("worked with the Analytical Society")
    page.locator("details.shacl summary").click()
    expect(page.locator("#shacl")).to_contain_text("MinCountConstraintComponent")
    shot(page, screenshots, "kg")


def test_the_stack_with_doctor_and_the_config(page: Any, url: str, screenshots: Path) -> None:
    from playwright.sync_api import expect

    page.goto(f"{url}/#/stack")
    expect(page.locator("#plugins")).to_contain_text("agentframe-ui")
    expect(page.locator("#config")).to_contain_text("scripted")
    assert "hunter2" not in page.locator("#config").inner_text()  # masked
    expect(page.locator("#doctor li").first).to_contain_text("ok python", timeout=60_000)
    shot(page, screenshots, "stack")


def test_phone_width_in_the_dark(browser: Any, url: str, screenshots: Path) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="dark")
    context.add_init_script(f"sessionStorage.setItem('agentframe.key', {json.dumps(ALICE)})")
    page = context.new_page()
    try:
        page.goto(f"{url}/#/sessions/rivers")
        expect(page.locator("details.compaction")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(21, 23, 26)"
        shot(page, screenshots, "phone-dark")
    finally:
        context.close()


def test_pages_carry_a_strict_content_security_policy(url: str) -> None:
    answers = {"/": 200, "/ui/js/app.js": 200, "/ui/app.css": 200, "/ui/missing.html": 404}
    answers["/ui/%2e%2e/%2e%2e/etc/passwd"] = 404  # out of the folder: refused, secured too
    for path, status in answers.items():
        response = httpx.get(f"{url}{path}")
        assert response.status_code == status and "content-security-policy" in response.headers
        policy = response.headers["content-security-policy"]
        assert "default-src 'self'" in policy and "script-src 'self'" in policy
        assert "require-trusted-types-for 'script'" in policy
        assert response.headers["x-content-type-options"] == "nosniff"
    assert "<script>" not in httpx.get(f"{url}/").text.replace(
        '<script type="module" src="/ui/js/app.js"></script>', ""
    )


def test_a_tab_without_the_key_is_asked_for_it(browser: Any, url: str) -> None:
    from playwright.sync_api import expect

    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{url}/#/sessions")
        page.get_by_label("Key").fill("wrong-key-0123456789")
        page.get_by_role("button", name="Use this key").click()
        expect(page.get_by_role("heading", name="API key")).to_be_visible()
        page.get_by_label("Key").fill(ALICE)
        page.get_by_role("button", name="Use this key").click()
        expect(page.locator("#sessions li").first).to_be_visible()
        assert page.evaluate("sessionStorage.getItem('agentframe.key')") == ALICE
    finally:
        context.close()
