"""Claude Code's permission rules, rule form by rule form: what each decides for a call."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentframe_compat.permissions import RuleError, Rules, parse_rule

PROJECT = Path("/work/project")


def rules(allow=(), ask=(), deny=(), mode="default") -> Rules:
    def parsed(texts):
        return [parse_rule(t, "settings.json", PROJECT) for t in texts]

    return Rules(parsed(allow), parsed(ask), parsed(deny), mode)


# (rules, tool, arguments, writes, expected action)
CASES = [
    # Bash: exact, `:*` prefix, `*` wildcard; compound commands part by part
    (
        rules(allow=["Bash(npm run test:*)"]),
        "Bash",
        {"command": "npm run test:unit"},
        True,
        "allow",
    ),
    (rules(allow=["Bash(npm run test:*)"]), "Bash", {"command": "npm run build"}, True, "ask"),
    (rules(allow=["Bash(npm run build)"]), "Bash", {"command": "npm run build"}, True, "allow"),
    (rules(allow=["Bash(npm run build)"]), "Bash", {"command": "npm run build -- x"}, True, "ask"),
    (rules(allow=["Bash(git * main)"]), "Bash", {"command": "git push origin main"}, True, "allow"),
    (
        rules(allow=["Bash(git status:*)"]),
        "Bash",
        {"command": "git status && rm -rf /"},
        True,
        "ask",
    ),
    (
        rules(allow=["Bash(git status:*)", "Bash(ls:*)"]),
        "Bash",
        {"command": "git status && ls -la"},
        True,
        "allow",
    ),
    (rules(deny=["Bash(rm:*)"]), "Bash", {"command": "ls; rm -rf build"}, True, "deny"),
    (rules(allow=["Bash"], deny=["Bash(curl:*)"]), "Bash", {"command": "curl x"}, True, "deny"),
    (rules(allow=["Bash"], ask=["Bash(git push:*)"]), "Bash", {"command": "git push"}, True, "ask"),
    (rules(allow=["Bash"]), "Bash", {"command": "anything at all"}, True, "allow"),
    # Bash: the command as the shell reads it (issue 38): background jobs, substitutions,
    # redirections, wrappers; what cannot be read asks
    *[
        (rules(allow=["Bash(git status:*)"]), "Bash", {"command": c}, True, "ask")
        for c in (
            "git status & touch x",
            "git status `touch x`",
            "git status $(touch x)",
            "git status <(touch x)",
            "git status > out.txt",
            "git -c core.fsmonitor=evil status",
            "LD_PRELOAD=evil.so git status",
            "eval git status",
            "git status 'unclosed",
        )
    ],
    (rules(allow=["Bash(git status:*)"]), "Bash", {"command": "LANG=C git status"}, True, "allow"),
    (
        rules(allow=["Bash(git status:*)", "Edit(out.txt)"]),
        "Bash",
        {"command": "git status > out.txt 2>&1"},
        True,
        "allow",
    ),
    (
        rules(allow=["Bash(git status:*)", "Bash(cd:*)", "Edit(out.txt)"]),
        "Bash",
        {"command": "cd /etc && git status > out.txt"},
        True,
        "ask",
    ),
    *[
        (rules(allow=["Bash"], deny=["Bash(rm:*)"]), "Bash", {"command": c}, True, "deny")
        for c in (
            "true & rm -rf build",
            "echo $(rm -rf build)",
            "echo `rm -rf build`",
            "/bin/rm -rf build",
            "sudo rm -rf build",
            "timeout 5 rm -rf build",
            "bash -c 'cd x; rm -rf build'",
            "find . -exec rm {} +",
            "X=1 rm -rf build",
            "cat <<'EOF'\nhi\nEOF\nrm -rf build",
        )
    ],
    (
        rules(allow=["Bash"], deny=["Bash(git push:*)"]),
        "Bash",
        {"command": "git -C . push"},
        True,
        "deny",
    ),
    (
        rules(allow=["Bash"], deny=["Edit(.env)"]),
        "Bash",
        {"command": "echo x > .env"},
        True,
        "deny",
    ),
    (rules(allow=["Bash"], deny=["Bash(rm:*)"]), "Bash", {"command": "eval rm x"}, True, "ask"),
    (rules(allow=["Bash"]), "Bash", {"command": "eval rm x"}, True, "allow"),
    (rules(allow=["Bash(eval:*)"], mode="dontAsk"), "Bash", {"command": "eval x"}, True, "deny"),
    # Read / Edit: gitignore-style paths; Edit rules cover Write, Read rules Grep
    (rules(deny=["Read(./.env)"]), "Read", {"file_path": "/work/project/.env"}, False, "deny"),
    (rules(deny=["Read(./.env)"]), "Read", {"file_path": "/work/project/a.txt"}, False, "allow"),
    (rules(deny=["Read(.env)"]), "Read", {"file_path": "/work/project/sub/.env"}, False, "deny"),
    (
        rules(allow=["Edit(src/**)"]),
        "Edit",
        {"file_path": "/work/project/src/a/b.py"},
        True,
        "allow",
    ),
    (rules(allow=["Edit(src/**)"]), "Edit", {"file_path": "/work/project/docs/b.md"}, True, "ask"),
    (
        rules(allow=["Edit(src/**)"]),
        "Write",
        {"file_path": "/work/project/src/new.py"},
        True,
        "allow",
    ),
    (
        rules(allow=["Edit(/src/*.py)"]),
        "Edit",
        {"file_path": "/work/project/src/x.py"},
        True,
        "allow",
    ),
    (rules(deny=["Edit(//etc/**)"]), "Write", {"file_path": "/etc/passwd"}, True, "deny"),
    (rules(deny=["Read(secrets/**)"]), "Grep", {"pattern": "x", "path": "secrets"}, False, "deny"),
    (rules(allow=["Edit(src/**)"]), "Edit", {"file_path": "src/../../outside.py"}, True, "ask"),
    # WebFetch by domain
    (
        rules(allow=["WebFetch(domain:example.com)"]),
        "WebFetch",
        {"url": "https://example.com/a"},
        False,
        "allow",
    ),
    (
        rules(deny=["WebFetch(domain:example.com)"]),
        "WebFetch",
        {"url": "https://docs.example.com/a"},
        False,
        "deny",
    ),
    (
        rules(deny=["WebFetch(domain:example.com)"]),
        "WebFetch",
        {"url": "https://example.org/"},
        False,
        "ask",  # not denied; no rule allows it either (issue 38: it ran)
    ),
    # WebFetch: every spelling of a host is that host; with no rule it asks (dontAsk: refused)
    *[
        (rules(deny=["WebFetch(domain:127.0.0.1)"]), "WebFetch", {"url": u}, False, "deny")
        for u in (
            "http://127.1/",
            "http://2130706433/",
            "http://0x7f.0.0.1/",
            "http://0177.0.0.1/",
            "http://[::ffff:127.0.0.1]:8080/",
            "http://127.0.0.1./",
            "http://user@127.0.0.1/",
        )
    ],
    (
        rules(deny=["WebFetch(domain:Bücher.Example.)"]),
        "WebFetch",
        {"url": "https://www.xn--bcher-kva.example/"},
        False,
        "deny",
    ),
    (rules(), "WebFetch", {"url": "https://example.com/"}, False, "ask"),
    (rules(mode="dontAsk"), "WebFetch", {"url": "https://example.com/"}, False, "deny"),
    (rules(mode="bypassPermissions"), "WebFetch", {"url": "https://example.com/"}, False, "allow"),
    # MCP tools, agentframe's names (`mcp_server_tool`) read as Claude Code's
    (rules(allow=["mcp__github__*"]), "mcp_github_create_issue", {}, True, "allow"),
    (rules(allow=["mcp__github"]), "mcp_github_create_issue", {}, True, "allow"),
    (rules(allow=["mcp__github__get_issue"]), "mcp_github_create_issue", {}, True, "ask"),
    (rules(deny=["mcp__github__create_issue"]), "mcp__github__create_issue", {}, True, "deny"),
    (rules(allow=["mcp__git_hub__*"]), "mcp_git_hub_list", {}, True, "allow"),
    # bare tool names, and the precedence deny > ask > allow
    (rules(allow=["TodoWrite"]), "TodoWrite", {"todos": []}, True, "allow"),
    (rules(allow=["Read"], deny=["Read"]), "Read", {"file_path": "a"}, False, "deny"),
    (rules(allow=["Bash"], ask=["Bash"]), "Bash", {"command": "ls"}, True, "ask"),
    # no rule: the mode decides, by what the tool marks `writes`
    (rules(), "Read", {"file_path": "a"}, False, "allow"),
    (rules(), "Bash", {"command": "ls"}, True, "ask"),
    (rules(mode="acceptEdits"), "Edit", {"file_path": "a"}, True, "allow"),
    (rules(mode="acceptEdits"), "Bash", {"command": "ls"}, True, "ask"),
    (rules(mode="plan"), "Edit", {"file_path": "a"}, True, "deny"),
    (rules(mode="plan"), "Grep", {"pattern": "a"}, False, "allow"),
    (rules(mode="dontAsk"), "Bash", {"command": "ls"}, True, "deny"),
    (rules(mode="bypassPermissions"), "Bash", {"command": "ls"}, True, "allow"),
    (rules(deny=["Bash"], mode="bypassPermissions"), "Bash", {"command": "ls"}, True, "deny"),
    # a stack's own tools: rules apply, the mode only in plan
    (rules(), "shell", {"cmd": "ls"}, True, "allow"),
    (rules(mode="dontAsk"), "add", {}, True, "allow"),
    (rules(mode="plan"), "shell", {"cmd": "ls"}, True, "deny"),
    (rules(deny=["shell"]), "shell", {"cmd": "ls"}, True, "deny"),
    (rules(), "mcp_github_create_issue", {}, True, "ask"),
]


@pytest.mark.parametrize(("rules", "tool", "arguments", "writes", "expected"), CASES)
def test_each_rule_form_decides_as_claude_code(rules, tool, arguments, writes, expected) -> None:
    decision = rules.decide(tool, arguments, writes=writes, cwd=PROJECT)
    assert decision.action == expected, decision.why


def test_a_decision_names_its_rule_and_file() -> None:
    decision = rules(deny=["Bash(rm:*)"]).decide(
        "Bash", {"command": "rm x"}, writes=True, cwd=PROJECT
    )
    assert decision.why == "rule 'Bash(rm:*)' in settings.json"


@pytest.mark.parametrize("text", ["Bash(", "", "Web Fetch", "WebFetch(example.com)"])
def test_a_malformed_rule_is_refused_quoting_it(text: str) -> None:
    with pytest.raises(RuleError, match=r"is not a rule|domain:HOST"):
        parse_rule(text, "s.json", PROJECT)
