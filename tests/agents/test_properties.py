"""Properties: any frontmatter loads or raises a typed `AgentDefinitionError`, nothing else."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentframe_core.contract.definition import FRONTMATTER_KEYS, AgentDefinition
from agentframe_core.contract.errors import AgentDefinitionError
from agentframe_core.engine.definitions import parse_definition
from agentframe_core.engine.prompt import assemble_system_prompt

SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["extend", "full", "plan", "concise", "inherit", "read, grep", "", "a-b"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.one_of(st.text(max_size=8), st.sampled_from(["tool", "retry"])), inner, max_size=4
        ),
    ),
    max_leaves=12,
)
keys = st.one_of(
    st.sampled_from(sorted(FRONTMATTER_KEYS)),
    st.sampled_from(["maxRetries", "baseDelayMs", "timeoutSecs", "reminder", "max_turns"]),
    st.text(max_size=10),
)
nested = {
    "completionRequirement": st.fixed_dictionaries(
        {"tool": values, "reminder": values},
        optional={
            "recovery": st.dictionaries(
                st.sampled_from(["maxRetries", "baseDelayMs", "maxDelayMs", "x"]), values
            )
        },
    ),
    "toolConfig": st.dictionaries(
        st.text(max_size=6),
        st.dictionaries(st.sampled_from(["retry", "timeoutSecs", "other"]), values, max_size=2),
        max_size=2,
    ),
    "toolNameOverrides": st.dictionaries(st.text(max_size=6), values, max_size=3),
    "paramNameOverrides": st.dictionaries(st.text(max_size=6), values, max_size=3),
}
frontmatters = st.builds(
    lambda base, extra: {**base, **extra},
    st.fixed_dictionaries(
        {},
        optional={
            "name": st.one_of(st.sampled_from(["ok-name", "x", "Bad Name"]), values),
            "description": st.one_of(st.just("Does things."), values),
            "promptMode": st.sampled_from(["extend", "full", "other"]),
            **nested,
        },
    ),
    st.dictionaries(keys, values, max_size=6),
)
bodies = st.one_of(
    st.text(max_size=80),
    st.lists(
        st.sampled_from(
            [
                "${{ tools.read }}",
                "${{ nope }}",
                "${% if tools.x %}",
                "${% endif %}",
                "{{ x }}",
                "${# c #}",
                "${{ 1 // 0 }}",
                "${{",
                "%}",
                "text",
                "\n",
                "${% for t in tools %}",
                "${% endfor %}",
                "${{ current_date }}",
            ]
        ),
        max_size=8,
    ).map("".join),
)
yaml_noise = st.text(alphabet=":-[]{}#&*!|>'\"%@`,? \nabc0123\t", max_size=60)


def load(text: str) -> AgentDefinition | None:
    """The property: a definition, or a typed error. Anything else fails the test."""
    try:
        return parse_definition(text, Path("generated.md"))
    except AgentDefinitionError as err:
        assert err.file == Path("generated.md")
        assert str(err).startswith("generated.md")
        return None


def render(definition: AgentDefinition, cwd: Path) -> str | None:
    try:
        return assemble_system_prompt(definition, {"read": "Read"}, cwd=cwd, today=date(2025, 1, 1))
    except AgentDefinitionError:
        return None


@SETTINGS
@given(data=frontmatters, body=bodies)
def test_generated_frontmatter_loads_or_raises_typed(
    data: dict[Any, Any], body: str, tmp_path: Path
) -> None:
    text = "---\n" + yaml.safe_dump(data, allow_unicode=True) + "---\n" + body
    definition = load(text)
    if definition is not None:
        prompt = render(definition, tmp_path)
        if prompt is not None and definition.prompt_mode == "full":
            assert "${{" not in prompt, "full mode left a template expression unresolved"


@SETTINGS
@given(noise=yaml_noise, body=bodies)
def test_yaml_noise_loads_or_raises_typed(noise: str, body: str) -> None:
    load(f"---\nname: n\ndescription: d\n{noise}\n---\n{body}")
    load(f"---\n{noise}\n---\n")


@SETTINGS
@given(text=st.text(max_size=200))
def test_any_text_loads_or_raises_typed(text: str) -> None:
    load(text)
    load("---\n" + text)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.text(
        alphabet=st.characters(blacklist_characters="$", blacklist_categories=["Cs"]),
        min_size=1,
        max_size=120,
    )
)
def test_full_mode_without_dollar_renders_the_body_verbatim(body: str, tmp_path: Path) -> None:
    """Only `${{`, `${%` and `${#` are template syntax: `{{ }}` and `{% %}` pass through."""
    text = "---\nname: v\ndescription: d\npromptMode: full\nagentsMd: false\n---\n" + body
    definition = load(text)
    assert definition is not None
    prompt = assemble_system_prompt(definition, {}, cwd=tmp_path, today=date(2025, 1, 1))
    assert prompt == (definition.prompt.strip() + "\n" if definition.prompt.strip() else "")
