"""A prompt template's work and output are bounded; nothing is computed at load time; a
hostile definition is reported by name, and the others still load."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agentframe_core.contract.errors import AgentTemplateError
from agentframe_core.engine.definitions.template import PromptTemplate

NESTED = "${% for i in range(100000) %}${% for j in range(100000) %}${% endfor %}${% endfor %}"
HOSTILE = {
    "nested loops": (NESTED, "steps"),
    "a big repeat": ('${{ "x" * 100000000 }}', "would build a value"),
    "a big power": ("${{ 7 ** 10000000 }}", "bits"),
    "a long output": ('${% for i in range(100000) %}${{ "x" * 100 }}${% endfor %}', "renders more"),
    "a wide filter": ('${{ "x" | center(1000000000) }}', "over 100000"),
    "a wide method": ('${{ "x".ljust(1000000000) }}', "over 100000"),
    "a replace bomb": (
        '${{ ("x" * 1000) .replace("", "y" * 10000) }}',
        "would build a value",
    ),
    "a width in a format": (
        '${{ "%99999s%99999s%99999s%99999s%99999s%99999s%99999s%99999s%99999s%99999s%99999s"'
        " | format(1,2,3,4,5,6,7,8,9,10,11) }}",
        "would build a value",
    ),
    "doubling by concatenation": (
        "${% macro d(s, n) %}${{ d(s ~ s, n - 1) if n else s }}${% endmacro %}${{ d('x', 40) }}",
        "concatenation would build",
    ),
    "doubling in a namespace": (
        "${% set ns = namespace(s='x') %}${% for i in range(40) %}${% set ns.s = ns.s ~ ns.s %}"
        "${% endfor %}${{ ns.s | length }}",
        "concatenation would build",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_template_is_stopped_quickly_with_a_named_error(case: str):
    source, message = HOSTILE[case]
    started = time.process_time()  # CPU time: a loaded machine does not stretch it
    template = PromptTemplate(source, file=Path("a.md"), first_line=5, name="hostile")
    compiled_in = time.process_time() - started
    with pytest.raises(AgentTemplateError) as caught:
        template.render({})
    assert message in caught.value.message, caught.value.message
    assert caught.value.name == "hostile"
    assert caught.value.line == (None if case == "a long output" else 5)  # the output has none
    assert compiled_in < 1.0  # nothing was evaluated while compiling


def test_ordinary_templates_still_render():
    source = (
        "${% for name in tools %}- ${{ tools[name] | upper }}\n${% endfor %}"
        "${{ 'a' ~ 'b' }} ${{ 2 ** 10 }} ${{ '%5s' | format('x') }} ${{ 'ab'.replace('a', 'c') }}"
    )

    class Tools:
        def __iter__(self):
            return iter(["bash", "read"])

        def __getitem__(self, key):
            return key

    text = PromptTemplate(source).render({"tools": Tools()})
    assert text == "- BASH\n- READ\nab 1024     x cb"


def definition(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: test\npromptMode: full\n---\n{body}\n"


def test_a_hostile_definition_is_listed_fast_and_refused_by_name(hostile, tmp_path: Path):
    folder = tmp_path / ".agentframe" / "agents"
    folder.mkdir(parents=True)
    (folder / "folded.md").write_text(definition("folded", '${{ "x" * 100000000 }}'))
    (folder / "loops.md").write_text(definition("loops", NESTED))
    (folder / "good.md").write_text(definition("good", "You help on ${{ os_name }}."))
    (tmp_path / "agentframe.yaml").write_text(
        "adapter: {use: scripted, replies: [hi]}\nstore: memory\n"
    )
    listed = hostile("agents", "list")
    assert listed.returncode == 0, listed.stderr
    assert all(name in listed.stdout for name in ("folded", "loops", "good"))
    checked = hostile("agents", "check")
    assert checked.returncode == 1
    assert "folded.md:6: template: template line 1: * would build a value" in checked.stdout
    assert "loops.md:6: template: template line 1: the template did more than" in checked.stdout
    assert "ok: " in checked.stdout and "(good)" in checked.stdout
    ran = hostile("run", "--agent", "loops", "hi")
    assert ran.returncode == 1 and "loops.md:6" in ran.stderr and "steps" in ran.stderr
    assert hostile("run", "--agent", "good", "hi").returncode == 0


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("${{ os_name }}" * 70_000, "tags; the limit is 2000"),
        ("${{ [" + "1, " * 30_000 + "1] }}", "more than 20000 parts"),
        ("${{ " + "(" * 2000 + "1" + ")" * 2000 + " }}", "nested too deep"),
    ],
)
def test_a_template_too_big_to_compile_quickly_is_refused_at_load(source: str, message: str):
    started = time.process_time()  # CPU time: a loaded machine does not stretch it
    with pytest.raises(AgentTemplateError, match=message):
        PromptTemplate(source, file=Path("a.md"), name="big")
    assert time.process_time() - started < 5
