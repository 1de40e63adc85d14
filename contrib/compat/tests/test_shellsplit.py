"""The shell reader behind the Bash rules: every command a line runs, the files it writes,
and an honest "cannot tell" for what only running it would show."""

from __future__ import annotations

import shlex
import subprocess

import pytest
from agentframe_compat.shellsplit import MAX_CHARS, split_script
from hypothesis import given, settings
from hypothesis import strategies as st

# (line, the commands it runs, the files it writes)
READ = [
    ("git status & rm -rf x", ["git status", "rm -rf x"], []),
    ("git status `rm x`", ["rm x", "git status `rm x`"], []),
    ("git status $(rm x)", ["rm x", "git status $(rm x)"], []),
    ('echo "a $(rm x) b"', ["rm x", "echo a $(rm x) b"], []),
    ("git status > out.txt", ["git status"], ["out.txt"]),
    ("ls 2>/dev/null >&2 2>&1", ["ls"], []),
    ("ls &> all.log; echo >> more.log", ["ls", "echo"], ["all.log", "more.log"]),
    ("diff <(ls a) >(rm b)", ["ls a", "rm b", "diff <(…) >(…)"], []),
    ("(cd a && rm x) | tee log", ["cd a", "rm x", "tee log"], []),
    ("{ echo a; rm b; } > /dev/null", ["echo a", "rm b"], []),
    ("if [ -f x ]; then rm x; fi", ["[ -f x ]", "rm x"], []),
    ("for f in $(ls); do echo $f; done", ["ls", "echo $f"], []),
    ("FOO=1 BAR=$(rm x) git status", ["rm x", "git status"], []),
    ("git -c core.pager=less push", ["git -c core.pager=less push", "git push"], []),
    ("bash -c 'rm -rf x; echo'", ["bash -c rm -rf x; echo", "rm -rf x", "echo"], []),
    ("sudo -u root rm x", ["sudo -u root rm x", "rm x"], []),
    ("timeout -s KILL 5 rm x", ["timeout -s KILL 5 rm x", "rm x"], []),
    ("xargs -n1 rm < list", ["xargs -n1 rm", "rm"], []),
    ("find . -name '*.o' -exec rm {} \\;", ["find . -name *.o -exec rm {} ;", "rm {}"], []),
    ("r\\m x; 'rm' y; $'rm' z", ["rm x", "rm y", "rm z"], []),
    ("cat <<'EOF'\n$(rm x)\nEOF\necho done", ["cat", "echo done"], []),
    ("git status # ; rm x", ["git status"], []),
    ("time -p rm x; ! rm y", ["rm x", "rm y"], []),
    ("echo `echo \\`rm x\\``", ["rm x", "echo `rm x`", "echo `echo \\`rm x\\``"], []),
    ("a && b || c; d | e |& f\ng", ["a", "b", "c", "d", "e", "f", "g"], []),
]


@pytest.mark.parametrize(("line", "commands", "writes"), READ)
def test_every_command_and_written_file_is_found(line, commands, writes) -> None:
    script = split_script(line)
    assert script.unsure == ""
    assert [c.text for c in script.commands] == commands
    assert script.writes == writes


UNSURE = [
    ("eval rm x", "eval"),
    ("$CMD x", "expansion"),
    ('"$HOME/bin/tool" x', "expansion"),
    ("{rm,-rf,x}", "expansion"),
    ("echo 'unclosed", "unclosed ' quote"),
    ('echo "unclosed', 'unclosed " quote'),
    ("echo $(rm x", "unclosed"),
    ("echo x)", "unmatched"),
    ("f() { rm a; }; f", "function"),
    ("case x in x) rm a;; esac", "case"),
    ("cat <<EOF\n$(rm x)\nEOF", "here-document"),
    ("cat <<EOF\nno end", "here-document"),
    ("echo > $FILE", "redirection"),
    ('bash -c "$SCRIPT"', "run time"),
    ("source ./env.sh", "source"),
    ("echo " + "$(" * 40 + "x" + ")" * 40, "nested"),
]


@pytest.mark.parametrize(("line", "why"), UNSURE)
def test_what_only_running_would_show_is_unsure(line: str, why: str) -> None:
    assert why in split_script(line).unsure


def test_a_huge_line_is_not_read() -> None:
    assert "longer than" in split_script("x" * (MAX_CHARS + 1)).unsure


_plain = st.text(st.sampled_from("abcxyz-_./=:,"), min_size=1, max_size=8)
_words = st.lists(st.one_of(_plain, st.text(max_size=8)), min_size=1, max_size=5)


@given(_words)
@settings(max_examples=300, deadline=None)
def test_shlex_quoted_words_come_back_as_one_command(words: list[str]) -> None:
    """Any words, quoted as Python quotes them for sh, are one command with those words."""
    line = shlex.join(["cmd", *words])
    script = split_script(line)
    assert script.unsure == ""
    assert [c.words for c in script.commands] == [("cmd", *words)]
    assert script.writes == []


@given(st.text(max_size=60))
@settings(max_examples=500, deadline=None)
def test_any_text_is_read_or_refused_without_error(text: str) -> None:
    script = split_script(text)
    assert script.unsure or all(c.words for c in script.commands)


@given(st.lists(_plain, min_size=1, max_size=4), st.sampled_from([";", "&", "&&", "||", "|"]))
@settings(max_examples=100, deadline=None)
def test_what_sh_runs_is_found_by_the_reader(names: list[str], joint: str) -> None:
    """The real shell agrees: each command sh runs (a function standing in for it tells
    on stderr) is one the reader found."""
    commands = [f"c{n}" for n in range(len(names))]
    line = f" {joint} ".join(f"{c} {shlex.quote(a)}" for c, a in zip(commands, names, strict=True))
    found = [c.words for c in split_script(line).commands]
    assert found == [(c, a) for c, a in zip(commands, names, strict=True)]
    stubs = "".join(f'{c}() {{ echo "{c} $1" >&2; }}\n' for c in commands)
    ran = subprocess.run(["sh", "-c", stubs + line + "\nwait"], capture_output=True, text=True)
    assert ran.stderr, ran
    assert {tuple(row.split(" ", 1)) for row in ran.stderr.splitlines()} <= set(found)


@pytest.mark.parametrize("unit", ["[", "{", "a{", "[a]", "a;", "x=$(y) ", "'a'", '"$x"'])
def test_the_longest_line_costs_bounded_work(unit: str) -> None:
    """A line of 64 Ki `[` once scanned the rest of its word per character (billions of
    steps); now well under a second (30 s is the bound on a loaded machine)."""
    import time

    started = time.monotonic()
    split_script(unit * (MAX_CHARS // len(unit)))
    assert time.monotonic() - started < 30


def _program(leaves: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Command lines built of stub commands, joined and nested the ways a line can be."""

    def nest(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        joined = st.tuples(inner, st.sampled_from([";", "&", "&&", "||", "|", "\n"]), inner)
        return st.one_of(
            joined.map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
            inner.map(lambda e: f"( {e} )"),
            inner.map(lambda e: f"{{ {e} ; }}"),
            st.tuples(leaves, inner).map(lambda t: f"{t[0]} $( {t[1]} )"),
            st.tuples(leaves, inner).map(lambda t: f'{t[0]} "x $( {t[1]} ) y"'),
            st.tuples(leaves, inner).map(lambda t: f"{t[0]} <( {t[1]} )"),
            st.tuples(leaves, leaves).map(lambda t: f"{t[0]} `{t[1]}`"),
            st.tuples(leaves, inner).map(lambda t: f"if {t[0]} ; then {t[1]} ; fi"),
            leaves.map(lambda c: f"X=$( {c} ) {c}"),
            inner.map(lambda e: f"{{ {e} ; }} > /dev/null"),
        )

    return st.recursive(leaves, nest, max_leaves=8)


@given(_program(st.sampled_from([f"c{n}" for n in range(6)])))
@settings(max_examples=150, deadline=None)
def test_bash_runs_no_command_the_reader_missed(line: str) -> None:
    """Random nestings of `;`, `&`, `&&`, `||`, `|`, subshells, groups, `$(…)`, backticks,
    `<(…)`, `if` and assignments: every stub command bash runs is one the reader found."""
    script = split_script(line)
    assert script.unsure == "", script.unsure
    found = {c.words[0] for c in script.commands}
    stubs = "".join(f"c{n}() {{ echo c{n} >&2; }}\n" for n in range(6))
    ran = subprocess.run(
        ["bash", "-c", f"{stubs}{line}\nwait"], capture_output=True, text=True, timeout=30
    )
    assert set(ran.stderr.split()) <= found, (line, ran.stderr)
    assert set(ran.stderr.split()), line  # something ran: the stubs were called
