"""A folder of real-world-style Agent Skills: all load, the prompt carries only names and
descriptions (in the tool list, in a stable order), load_skill returns the body and the
resources, the retriever preloads the best match above the threshold."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from agentframe_skills.options import SkillsOptions
from agentframe_skills.retriever import SkillsRetriever
from agentframe_skills.tools import SkillTools

from agentframe_core import MemoryStore, RunContext, Session, Stack, ToolCall, VerbatimBuilder
from agentframe_core.testing import RetrieverConformance, ScriptedAdapter, run_cli

SKILLS = Path(__file__).with_name("skills")
NAMES = ["commit-messages", "csv-analysis", "pdf-forms", "release-notes", "webapp-testing"]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    shutil.copytree(SKILLS, root / ".claude" / "skills")
    monkeypatch.chdir(root)
    return root


def run_context() -> RunContext:
    return RunContext(
        "s", Stack(adapter=ScriptedAdapter(), store=MemoryStore(), context=VerbatimBuilder())
    )


def skills_stack(replies: list, **options: object) -> Stack:
    opts = SkillsOptions.model_validate(options)
    return Stack(
        adapter=ScriptedAdapter(replies),
        store=MemoryStore(),
        context=VerbatimBuilder(),
        retrievers=[SkillsRetriever(opts)],
        tools=[SkillTools(opts)],
    )


async def test_the_prompt_holds_only_names_and_descriptions(project: Path) -> None:
    stack = skills_stack(["hello", "again"], preload_threshold=0)
    session = Session(stack)
    await session.run("hi")
    await session.run("hi again")
    first, second = stack.adapter.requests  # type: ignore[attr-defined]
    (tool,) = first.tools
    assert tool.name == "load_skill" and tool.parameters["properties"]["name"]["enum"] == NAMES
    listed = [
        line.split(":")[0][2:] for line in tool.description.splitlines() if line.startswith("- ")
    ]
    assert listed == NAMES  # sorted: the same order every time
    assert "Fill in, read and flatten PDF forms." in tool.description
    everything = tool.description + "".join(m.content for m in first.messages)
    assert "scripts/fill.py" not in everything and "Never flatten" not in everything
    assert second.tools == first.tools and second.messages[0] == first.messages[0]


async def test_load_skill_returns_the_body_and_resources(project: Path) -> None:
    call = {"name": "load_skill", "arguments": {"name": "pdf-forms"}}
    stack = skills_stack([{"tool_calls": [call]}, "done"], preload_threshold=0)
    result = await Session(stack).run("fill the form")
    loaded = result.tool_calls[0].result
    assert not loaded.is_error
    assert "Never flatten a form unless the user asks" in loaded.content
    for resource in ["reference.md", "scripts/fill.py", "scripts/list_fields.py"]:
        assert f"- {resource}" in loaded.content
    missing = await SkillTools(SkillsOptions()).dispatch(
        ToolCall("c", "load_skill", {"name": "nope"}), run_context()
    )
    assert missing.is_error and "available: commit-messages" in missing.content


async def test_no_skills_no_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert await SkillTools(SkillsOptions()).tools(run_context()) == []


async def test_the_best_match_is_preloaded_above_the_threshold(project: Path) -> None:
    retriever = SkillsRetriever(SkillsOptions())
    found = await retriever.retrieve(
        "please fill in this PDF form for me", ctx=run_context(), budget_tokens=1_000
    )
    assert [s.source for s in found] == ["skill:pdf-forms"]
    assert "scripts/fill.py" in found[0].text
    assert (
        await retriever.retrieve("what is the weather", ctx=run_context(), budget_tokens=1_000)
        == []
    )
    strict = SkillsRetriever(SkillsOptions(preload_threshold=1.0))
    assert (
        await strict.retrieve("fill in this PDF form", ctx=run_context(), budget_tokens=1_000) == []
    )


def test_cli_lists_every_skill_and_reports_failures(project: Path) -> None:
    broken = project / ".agentframe" / "skills" / "broken"
    broken.mkdir(parents=True)
    (broken / "SKILL.md").write_text("---\nname: [unclosed\n---\n")
    (project / "agentframe.yaml").write_text("adapter: scripted\nstore: memory\n")
    listed = run_cli(project, "skills", "list", "--json")
    data = json.loads(listed.stdout)
    assert [s["name"] for s in data["skills"]] == NAMES
    assert data["skills"][0]["source"] == str(project / ".claude" / "skills")
    assert [Path(f["path"]).parent.name for f in data["failures"]] == ["broken"]
    assert listed.returncode == 1 and "Traceback" not in listed.stderr
    shown = run_cli(project, "skills", "show", "pdf-forms", "--json")
    assert json.loads(shown.stdout)["resources"] == [
        "reference.md",
        "scripts/fill.py",
        "scripts/list_fields.py",
    ]


class TestSkillsConformance(RetrieverConformance):
    @pytest.fixture
    def retriever(self, project: Path) -> SkillsRetriever:
        return SkillsRetriever(SkillsOptions())

    @pytest.fixture
    def query(self) -> str:
        return "write a commit message for my changes"


def test_a_skill_linked_out_of_the_project_is_reported_not_loaded(
    project: Path, tmp_path: Path
) -> None:
    """issue 23 #4: a skill is a file of the project or of a skills folder, links resolved;
    a cloned repository's `.claude/skills/x -> ~/.ssh` must not reach `load_skill`."""
    outside = tmp_path / "outside" / "leak"
    outside.mkdir(parents=True)
    (outside / "SKILL.md").write_text("---\nname: leak\ndescription: d\n---\nSECRET-KEY\n")
    (project / ".claude" / "skills" / "leak").symlink_to(outside, target_is_directory=True)
    listed = run_cli(project, "skills", "list", "--json")
    assert listed.returncode == 1
    data = json.loads(listed.stdout)
    assert [s["name"] for s in data["skills"]] == NAMES
    (failure,) = data["failures"]
    assert failure["path"].endswith("leak/SKILL.md") and "must be inside" in failure["error"]
    shown = run_cli(project, "skills", "show", "leak")
    assert shown.returncode == 1 and "SECRET-KEY" not in shown.stdout
    # a folder the config adds is a skills folder: linking into it is allowed
    (project / "agentframe.yaml").write_text(
        f"adapter: scripted\ntools: [{{use: skills, folders: ['{outside.parent}']}}]\n"
    )
    allowed = run_cli(project, "skills", "show", "leak")
    assert allowed.returncode == 0 and "SECRET-KEY" in allowed.stdout


def test_the_default_threshold_preloads_one_skill_and_bm25s_stays_quiet(project: Path) -> None:
    """issue 28: with one skill, a message close to its description scored 0.53 in raw BM25
    and the default threshold (2.0) preloaded nothing; bm25s printed a DEBUG line per run."""
    for other in NAMES:
        if other != "pdf-forms":
            shutil.rmtree(project / ".claude" / "skills" / other)
    (project / "agentframe.yaml").write_text(
        "adapter: {use: scripted, replies: [done]}\nstore: memory\nretrievers: [{use: skills}]\n"
    )
    quiet = run_cli(project, "run", "--json", "please fill in this PDF form for me")
    assert quiet.returncode == 0, quiet.stderr
    (report,) = json.loads(quiet.stdout)["retrievals"]
    assert report["sources"] == ["skill:pdf-forms"]
    assert "DEBUG" not in quiet.stderr and "bm25s" not in quiet.stderr
    told = run_cli(project, "run", "-v", "merge two pdf files")
    assert "skills: best match pdf-forms scored 0." in told.stderr
    assert "(preload_threshold 0.20)" in told.stderr and "DEBUG" not in told.stderr
