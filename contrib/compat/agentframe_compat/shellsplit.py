"""A POSIX sh command line read as the simple commands it runs, for the Bash permission rules.

This is no shell: it reads quoting (`'…'`, `"…"`, `\\`, `$'…'`), the operators that join
commands (`;`, `&`, `&&`, `||`, `|`, `|&`, newlines), grouping (`( … )`, `{ …; }`, the
`if`/`while`/`for` keywords), substitutions (`$(…)`, backticks, `<(…)`, `>(…)`: each a
command list of its own, read the same way), redirections (which files they write),
here-documents and leading assignments (`FOO=1 cmd`). A command that runs another
(`sh -c '…'`, `env`, `timeout 5 …`, `xargs`, `sudo`, `find -exec`, `git -c k=v …`) adds the
inner command too. What cannot be known without running the shell (a command name made by
an expansion, `eval`, a function, `case`, an unclosed quote) is said in `Script.unsure`, so
that the caller asks instead of guessing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Script", "SimpleCommand", "split_script"]

#: Longer command lines, and deeper nesting, are not read (the caller asks).
MAX_CHARS = 64 * 1024
MAX_DEPTH = 32

_BLANKS = " \t"
_OPERATOR_CHARS = ";&|()<>\n"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_FD = re.compile(r"[0-9]+")
_SPECIAL_PARAMETERS = "@*#?$!-0123456789"
#: Files a redirection may write without it counting as a write to the project.
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})

#: Keywords before a command (`if cmd`, `! cmd`, `{ cmd; }`) and those closing a group.
_LEADING_KEYWORDS = frozenset(
    {"if", "then", "else", "elif", "while", "until", "do", "!", "{", "time"}
)
_CLOSING_KEYWORDS = frozenset({"fi", "done", "}"})
#: Programs that run text this reader does not see.
_UNREADABLE = {
    "eval": "`eval` runs text built at run time",
    "source": "`source` runs a file's commands",
    ".": "`.` runs a file's commands",
    "alias": "an alias changes what later names run",
    "trap": "`trap` runs text later",
    "function": "a function definition",
    "case": "`case` is not read",
    "coproc": "`coproc` is not read",
    "((": "arithmetic commands are not read",
}
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh"})

#: Programs that run the command in their arguments: options taking a value, and how many
#: plain arguments come before the command (`timeout 5 cmd`).
_WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "env": (frozenset({"-u", "--unset", "-C", "--chdir"}), 0),
    "command": (frozenset(), 0),
    "builtin": (frozenset(), 0),
    "exec": (frozenset({"-a"}), 0),
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "nohup": (frozenset(), 0),
    "setsid": (frozenset(), 0),
    "stdbuf": (frozenset({"-i", "-o", "-e"}), 0),
    "ionice": (frozenset({"-c", "-n", "-p", "-t"}), 0),
    "timeout": (frozenset({"-s", "--signal", "-k", "--kill-after"}), 1),
    "sudo": (frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}), 0),
    "doas": (frozenset({"-u", "-C"}), 0),
    "xargs": (
        frozenset({"-I", "-n", "-P", "-L", "-d", "-s", "-E", "-a", "--arg-file", "--delimiter"}),
        0,
    ),
}
#: git's options before its sub-command; those taking a value.
_GIT_VALUED = frozenset({"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One command the line runs: its words after quote removal (an expansion kept as
    written, `$(…)` included), and the assignments before it."""

    words: tuple[str, ...]
    assignments: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return " ".join(self.words)


@dataclass(slots=True)
class Script:
    """Every command a line runs, in order, the files its redirections write, and why it
    cannot be decided ("" when it can)."""

    commands: list[SimpleCommand] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    unsure: str = ""


class _Unsure(Exception):
    """The line cannot be read without running it (the message says why)."""


@dataclass(slots=True)
class _Word:
    value: str = ""
    #: Parts whose value comes from an expansion, or a glob, or a brace list.
    dynamic: bool = False
    quoted: bool = False


def split_script(text: str) -> Script:
    """The commands `text` runs; `unsure` set (and the rest partial) when it cannot tell."""
    script = Script()
    if len(text) > MAX_CHARS:
        script.unsure = f"the command is longer than {MAX_CHARS} characters"
        return script
    try:
        _Reader(text, script, 0).read_all()
    except _Unsure as err:
        script.unsure = str(err)
    return script


class _Reader:
    def __init__(self, text: str, script: Script, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise _Unsure(f"substitutions nested deeper than {MAX_DEPTH}")
        self.s = text
        self.i = 0
        self.script = script
        self.depth = depth
        self.nesting = 0
        #: Here-documents whose bodies follow the line: (delimiter, quoted, strip tabs).
        self.heredocs: list[tuple[str, bool, bool]] = []

    # -- lists of commands ---------------------------------------------------------------------

    def read_all(self) -> None:
        self._list(closing=False)
        if self.heredocs:
            raise _Unsure("a here-document without its body")

    def _list(self, closing: bool) -> None:
        """Commands up to the end, or (`closing`) up to and past the `)` that ends them."""
        self.nesting += 1
        if self.nesting > MAX_DEPTH:
            raise _Unsure(f"groups and substitutions nested deeper than {MAX_DEPTH}")
        try:
            self._commands(closing)
        finally:
            self.nesting -= 1

    def _commands(self, closing: bool) -> None:
        while True:
            self._command()
            if self.i >= len(self.s):
                if closing:
                    raise _Unsure("an unclosed `(` or `$(`")
                return
            c = self.s[self.i]
            if c == ")":
                if not closing:
                    raise _Unsure("an unmatched `)`")
                self.i += 1
                return
            if self.s.startswith(";;", self.i):
                raise _Unsure("`;;` (a case statement) is not read")
            if c == "\n":
                self.i += 1
                self._heredoc_bodies()
            elif self.s.startswith(("&&", "||", "|&"), self.i):
                self.i += 2
            else:  # ; & |
                self.i += 1

    def _command(self) -> None:
        words: list[_Word] = []
        assignments: list[str] = []
        timed = False
        while True:
            self._blanks()
            if self.i >= len(self.s):
                break
            c = self.s[self.i]
            if c == "#":
                end = self.s.find("\n", self.i)
                self.i = len(self.s) if end < 0 else end
                continue
            if c in "<>" and self.s.startswith("(", self.i + 1):
                self.i += 2
                self._list(closing=True)  # process substitution: an argument, /dev/fd/N
                words.append(_Word(f"{c}(…)", dynamic=True))
                continue
            if c in "<>" or self.s.startswith(("&>", ">&"), self.i):
                self._redirection()
                continue
            if c == "(":
                if words:
                    raise _Unsure("a function definition")
                if self.s.startswith("((", self.i):
                    raise _Unsure(_UNREADABLE["(("])
                self.i += 1
                self._list(closing=True)
                continue
            if c in _OPERATOR_CHARS:
                break
            start = self.i
            word = self._word()
            if _FD.fullmatch(word.value) and not word.quoted and self._at_redirection():
                self._redirection()
                continue
            if not words and _ASSIGNMENT.match(self.s, start):
                assignments.append(word.value)  # its substitutions are read already
                continue
            if not words and not word.quoted and not word.dynamic:
                if not assignments and word.value in _LEADING_KEYWORDS | _CLOSING_KEYWORDS:
                    timed = word.value == "time"
                    continue
                if timed and word.value in ("-p", "--"):
                    continue  # `time -p cmd`: the option is time's, cmd the command
                if word.value in ("for", "select"):
                    self._skip_loop_head()
                    continue
            words.append(word)
        if words:
            self._add(words, assignments)

    def _skip_loop_head(self) -> None:
        """`for NAME in WORDS` up to its `;` or newline: no command, but its words'
        substitutions run."""
        while True:
            self._blanks()
            if self.i >= len(self.s) or self.s[self.i] in _OPERATOR_CHARS:
                return
            self._word()

    def _add(self, words: list[_Word], assignments: list[str]) -> None:
        name = words[0]
        if name.dynamic:
            raise _Unsure(f"the command name {name.value!r} comes from an expansion")
        if name.value in _UNREADABLE:
            raise _Unsure(_UNREADABLE[name.value])
        self._add_static([w.value for w in words], assignments, [w.dynamic for w in words])

    def _add_static(self, values: list[str], assignments: list[str], dynamic: list[bool]) -> None:
        """Record a command, then the commands it runs itself."""
        self.script.commands.append(SimpleCommand(tuple(values), tuple(assignments)))
        name = values[0].rsplit("/", 1)[-1]
        if name in _SHELLS:
            self._shell_string(values, dynamic)
        elif name in _WRAPPERS:
            at = _skip_options(values, 1, *_WRAPPERS[name], env=name == "env")
            if at < len(values):
                if dynamic[at]:
                    raise _Unsure(f"`{name}` runs a command named by an expansion")
                if name == "env" and any(v.startswith(("-S", "--split")) for v in values[1:at]):
                    raise _Unsure("`env -S` splits a string into a command")
                self._add_static(values[at:], [], dynamic[at:])
        elif name == "git":
            at = _skip_options(values, 1, _GIT_VALUED, 0, env=False)
            if 1 < at < len(values):
                self._add_static(["git", *values[at:]], [], [False, *dynamic[at:]])
        elif name == "find":
            self._find_exec(values, dynamic)

    def _shell_string(self, values: list[str], dynamic: list[bool]) -> None:
        """`bash -c 'cmd'`: the string's commands too."""
        at = 1
        while at < len(values) and values[at].startswith(("-", "+")) and values[at] != "--":
            value = values[at]
            if value in ("-o", "+o", "-O", "+O"):
                at += 2
                continue
            if not value.startswith("--") and "c" in value[1:]:
                if at + 1 < len(values):
                    if dynamic[at + 1]:
                        raise _Unsure(f"`{values[0]} -c` runs a string made at run time")
                    _Reader(values[at + 1], self.script, self.depth + 1).read_all()
                return
            at += 1

    def _find_exec(self, values: list[str], dynamic: list[bool]) -> None:
        at = 0
        while at < len(values):
            if values[at] in _FIND_EXEC and at + 1 < len(values):
                end = at + 1
                while end < len(values) and values[end] not in (";", "+"):
                    end += 1
                if dynamic[at + 1]:
                    raise _Unsure("`find -exec` runs a command named by an expansion")
                self._add_static(values[at + 1 : end], [], dynamic[at + 1 : end])
                at = end
            at += 1

    # -- redirections and here-documents -------------------------------------------------------

    def _at_redirection(self) -> bool:
        return self.i < len(self.s) and self.s[self.i] in "<>"

    def _redirection(self) -> None:
        s = self.s
        for op in ("&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", ">>", ">|", ">&", "<", ">"):
            if s.startswith(op, self.i):
                break
        self.i += len(op)
        self._blanks()
        if self.i >= len(s) or s[self.i] in _OPERATOR_CHARS:
            raise _Unsure(f"a `{op}` redirection without its target")
        start = self.i
        target = self._word()
        if op in ("<<", "<<-"):
            raw = s[start : self.i]
            quoted = any(q in raw for q in "'\"\\")
            self.heredocs.append((target.value, quoted, op == "<<-"))
            return
        if op in ("<", "<<<"):
            return
        if op in ("<&", ">&") and (target.value == "-" or _FD.fullmatch(target.value)):
            return  # a copy of a file descriptor, or closing one
        if target.dynamic:
            raise _Unsure(f"a redirection to a file named by an expansion ({target.value!r})")
        if target.value in _HARMLESS_TARGETS or target.value.startswith("/dev/fd/"):
            return
        self.script.writes.append(target.value)

    def _heredoc_bodies(self) -> None:
        """The bodies of the here-documents of the line just ended."""
        pending, self.heredocs = self.heredocs, []
        for delimiter, quoted, strip in pending:
            while True:
                if self.i >= len(self.s):
                    raise _Unsure(f"a here-document without its end line {delimiter!r}")
                end = self.s.find("\n", self.i)
                end = len(self.s) if end < 0 else end
                line = self.s[self.i : end]
                self.i = min(end + 1, len(self.s))
                if (line.lstrip("\t") if strip else line) == delimiter:
                    break
                if not quoted and ("$(" in line or "`" in line):
                    raise _Unsure("a here-document whose body runs a command substitution")

    # -- words ---------------------------------------------------------------------------------

    def _blanks(self) -> None:
        s = self.s
        while self.i < len(s):
            if s[self.i] in _BLANKS:
                self.i += 1
            elif s.startswith("\\\n", self.i):
                self.i += 2
            else:
                return

    def _word(self) -> _Word:
        s, word = self.s, _Word()
        parts: list[str] = []
        end = self._word_end()  # once: a glob's `]` or a brace list's `}` lies before it
        while self.i < len(s):
            c = s[self.i]
            if c in _BLANKS or c in _OPERATOR_CHARS:
                break
            if c == "\\":
                if s.startswith("\\\n", self.i):
                    self.i += 2
                    continue
                parts.append(s[self.i + 1 : self.i + 2])
                word.quoted = True
                self.i += 2
            elif c == "'":
                end = s.find("'", self.i + 1)
                if end < 0:
                    raise _Unsure("an unclosed ' quote")
                parts.append(s[self.i + 1 : end])
                word.quoted = True
                self.i = end + 1
            elif c == '"':
                self.i += 1
                parts.append(self._double(word))
                word.quoted = True
            elif c == "$":
                parts.append(self._dollar(word, in_double=False))
            elif c == "`":
                parts.append(self._backtick(in_double=False))
                word.dynamic = True
            else:
                closes = {"[": "]", "{": "}"}.get(c)
                if c in "*?" or (closes and s.find(closes, self.i, end) >= 0):
                    word.dynamic = True
                parts.append(c)
                self.i += 1
        word.value = "".join(parts)
        return word

    def _word_end(self) -> int:
        """Where the unquoted run of word characters at `i` ends (a glob's `]` is in it)."""
        end = self.i
        while (
            end < len(self.s) and self.s[end] not in _BLANKS and self.s[end] not in _OPERATOR_CHARS
        ):
            end += 1
        return end

    def _double(self, word: _Word) -> str:
        s, parts = self.s, list[str]()
        while self.i < len(s):
            c = s[self.i]
            if c == '"':
                self.i += 1
                return "".join(parts)
            if c == "\\" and self.i + 1 < len(s) and s[self.i + 1] in '$`"\\\n':
                if s[self.i + 1] != "\n":
                    parts.append(s[self.i + 1])
                self.i += 2
            elif c == "$":
                parts.append(self._dollar(word, in_double=True))
            elif c == "`":
                parts.append(self._backtick(in_double=True))
                word.dynamic = True
            else:
                parts.append(c)
                self.i += 1
        raise _Unsure('an unclosed " quote')

    def _dollar(self, word: _Word, in_double: bool) -> str:
        """An expansion at `$`: its text as written; substitutions are read as commands."""
        s, start = self.s, self.i
        nxt = s[self.i + 1 : self.i + 2]
        if s.startswith("$((", self.i):
            self.i = self._balanced(self.i + 1, "(", ")")
            if "$(" in s[start + 3 : self.i] or "`" in s[start : self.i]:
                raise _Unsure("a command substitution inside an arithmetic expansion")
        elif nxt == "(":
            self.i += 2
            self._list(closing=True)
        elif nxt == "{":
            self.i = self._balanced(self.i + 1, "{", "}")
            if "$(" in s[start : self.i] or "`" in s[start : self.i]:
                raise _Unsure("a command substitution inside a ${…} expansion")
        elif nxt == "'" and not in_double:
            end = self.i + 2
            while end < len(s) and s[end] != "'":
                end += 2 if s[end] == "\\" else 1
            if end >= len(s):
                raise _Unsure("an unclosed $' quote")
            body = s[self.i + 2 : end]
            self.i = end + 1
            word.quoted = True
            if "\\" not in body:
                return body
        elif nxt == '"' and not in_double:
            self.i += 2
            return self._double(word)
        elif nxt and nxt in _SPECIAL_PARAMETERS:
            self.i += 2
        elif nxt and _NAME.match(nxt):
            match = _NAME.match(s, self.i + 1)
            self.i = match.end() if match else self.i + 1
        else:
            self.i += 1
            return "$"  # a lone `$` is itself
        word.dynamic = True
        return s[start : self.i]

    def _balanced(self, at: int, opening: str, closing: str) -> int:
        """The index past the `closing` that balances the `opening` at `at`."""
        depth = 0
        for end in range(at, len(self.s)):
            if self.s[end] == opening:
                depth += 1
            elif self.s[end] == closing:
                depth -= 1
                if depth == 0:
                    return end + 1
        raise _Unsure(f"an unclosed `{opening}`")

    def _backtick(self, in_double: bool) -> str:
        """A `…` substitution: its inner text unescaped as the shell does, read as commands."""
        s, start = self.s, self.i
        self.i += 1
        inner: list[str] = []
        escapable = '$`\\"' if in_double else "$`\\"
        while self.i < len(s):
            c = s[self.i]
            if c == "`":
                self.i += 1
                _Reader("".join(inner), self.script, self.depth + 1).read_all()
                return s[start : self.i]
            if c == "\\" and self.i + 1 < len(s) and s[self.i + 1] in escapable:
                inner.append(s[self.i + 1])
                self.i += 2
            else:
                inner.append(c)
                self.i += 1
        raise _Unsure("an unclosed ` quote")


def _skip_options(
    values: list[str], at: int, valued: frozenset[str], positional: int, *, env: bool
) -> int:
    """The index of the command a wrapper runs: past its options (and their values), its
    `positional` arguments, and (`env`) its NAME=value words."""
    while at < len(values):
        value = values[at]
        if value == "--":
            at += 1
            break
        if not value.startswith("-") or value == "-":
            break
        at += 2 if value in valued else 1
    while env and at < len(values) and _ASSIGNMENT.match(values[at]):
        at += 1
    return at + positional
