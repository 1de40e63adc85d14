"""`AgentLoaderConformance`: what every agent-definition loader must do.

Subclass it in your plugin's tests, say where your loader looks, and build the loader:

    class TestMyLoader(AgentLoaderConformance):
        layout = AgentLayout(project=".my/agents", user=".my/agents")

        @pytest.fixture
        def loader(self):
            return MyLoader()

        def render(self, name, description, body):  # only if your format differs
            return f"---\\nname: {name}\\ndescription: {description}\\n---\\n{body}\\n"

The kit builds a throwaway repository (`project`, with a `.git` folder) and a working
directory two levels below it (`cwd`), and points `$HOME` at an empty folder (`home`) before
your `loader` fixture runs. It checks behaviour: discovery returns `AgentDefinition`s, nearer
project folders win over farther ones and over the user folder, and a broken file is skipped
(and reported by `scan`, when the loader has it) without hiding any other file.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentframe_core.assembly.catalog import AgentCatalog, catalog_from_loaders
from agentframe_core.contract.definition import AgentDefinition
from agentframe_core.contract.errors import AgentDefinitionError

__all__ = ["AgentLayout", "AgentLoaderConformance"]

#: Files no frontmatter format accepts.
BROKEN_FILES = {
    "no-delimiters": "name: lost\ndescription: no frontmatter delimiters\n\nBody.\n",
    "unclosed": "---\nname: unclosed\ndescription: never closed\n\nBody.\n",
    "bad-yaml": "---\nname: [unterminated\ndescription: x\n---\nBody.\n",
    "not-a-mapping": "---\n- just\n- a list\n---\nBody.\n",
}


@dataclass(frozen=True)
class AgentLayout:
    """Where the loader looks: a folder relative to each project folder, and one relative to
    the home folder (None when the loader has no such level)."""

    project: str | None
    user: str | None = None


class AgentLoaderConformance:
    layout: ClassVar[AgentLayout]

    # -- what a subclass provides ------------------------------------------------------------

    @pytest.fixture
    def loader(self) -> Any:
        raise NotImplementedError("provide a `loader` fixture that builds your AgentLoader")

    def render(self, name: str, description: str, body: str) -> str:
        """A valid definition file in the loader's format."""
        return f"---\nname: {name}\ndescription: {description}\n---\n{body}\n"

    # -- the kit's own fixtures ----------------------------------------------------------------

    @pytest.fixture(autouse=True)
    def home(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
        home = tmp_path / "home"
        home.mkdir()
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("USERPROFILE", str(home))
        return home

    @pytest.fixture
    def project(self, tmp_path: Path) -> Path:
        return _make_project(tmp_path / "project")

    @pytest.fixture
    def cwd(self, project: Path) -> Path:
        return _make_cwd(project)

    # -- helpers -------------------------------------------------------------------------------

    def write(self, base: Path, folder: str | None, file: str, text: str) -> Path:
        if folder is None:
            pytest.skip("the loader has no such level")
        path = base / folder / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def write_agent(self, base: Path, folder: str | None, name: str, body: str = "") -> Path:
        body = body or f"You are {name}."
        return self.write(base, folder, f"{name}.md", self.render(name, f"The {name} agent", body))

    def catalog(self, loader: Any, cwd: Path) -> AgentCatalog:
        return catalog_from_loaders([("under-test", loader)], cwd)

    # -- behaviour -----------------------------------------------------------------------------

    def test_returns_definitions(self, loader: Any, project: Path, cwd: Path) -> None:
        first = self.write_agent(cwd, self.layout.project, "kit-alpha", "Alpha body.")
        self.write_agent(cwd, self.layout.project, "kit-beta", "Beta body.")
        found = {d.name: d for d in loader.discover(cwd)}
        assert {"kit-alpha", "kit-beta"} <= set(found)
        alpha = found["kit-alpha"]
        assert isinstance(alpha, AgentDefinition)
        assert alpha.description == "The kit-alpha agent"
        assert alpha.prompt.strip() == "Alpha body."
        assert alpha.path is not None and alpha.path.resolve() == first.resolve()
        assert alpha.source == "project"

    def test_nothing_written_nothing_found(self, loader: Any, project: Path, cwd: Path) -> None:
        for definition in loader.discover(cwd):
            path = definition.path
            assert path is None or not path.resolve().is_relative_to(project.resolve())

    def test_user_folder(self, loader: Any, home: Path, cwd: Path) -> None:
        self.write_agent(home, self.layout.user, "kit-user")
        found = {d.name: d for d in loader.discover(cwd)}
        assert found["kit-user"].source == "user"

    def test_nearer_project_folder_wins(self, loader: Any, project: Path, cwd: Path) -> None:
        far = self.write_agent(project, self.layout.project, "kit-same", "From the root.")
        near = self.write_agent(cwd, self.layout.project, "kit-same", "From the cwd.")
        same = [d for d in loader.discover(cwd) if d.name == "kit-same"]
        assert [_real(d.path) for d in same] == [near.resolve(), far.resolve()]
        entry = self.catalog(loader, cwd).entries["kit-same"]
        assert _real(entry.definition.path) == near.resolve()
        assert [_real(d.path) for d in entry.shadows] == [far.resolve()]

    def test_project_wins_over_user(
        self, loader: Any, home: Path, project: Path, cwd: Path
    ) -> None:
        if self.layout.project is None:
            pytest.skip("the loader has no project level")
        user = self.write_agent(home, self.layout.user, "kit-both", "From home.")
        mine = self.write_agent(project, self.layout.project, "kit-both", "From the project.")
        entry = self.catalog(loader, cwd).entries["kit-both"]
        assert _real(entry.definition.path) == mine.resolve()
        assert _real(entry.shadows[0].path) == user.resolve()

    def test_folders_above_the_repository_are_ignored(
        self, loader: Any, project: Path, cwd: Path
    ) -> None:
        outside = self.write_agent(project.parent, self.layout.project, "kit-outside")
        assert outside.exists()
        assert "kit-outside" not in {d.name for d in loader.discover(cwd)}

    @pytest.mark.parametrize("kind", sorted(BROKEN_FILES))
    def test_broken_file_is_skipped_not_hiding_others(
        self, loader: Any, project: Path, cwd: Path, kind: str
    ) -> None:
        self.write_agent(cwd, self.layout.project, "kit-a")
        broken = self.write(cwd, self.layout.project, f"kit-b-{kind}.md", BROKEN_FILES[kind])
        self.write_agent(cwd, self.layout.project, "kit-c")
        names = {d.name for d in loader.discover(cwd)}
        assert {"kit-a", "kit-c"} <= names
        catalog = self.catalog(loader, cwd)
        assert {"kit-a", "kit-c"} <= set(catalog.names())
        if callable(getattr(loader, "scan", None)):
            errors = loader.scan(cwd).errors
            assert [_real(e.file) for e in errors] == [broken.resolve()]
            assert all(isinstance(e, AgentDefinitionError) for e in errors)
            assert catalog.errors and str(broken.name) in str(catalog.errors[0])

    def test_each_call_looks_from_its_own_cwd(self, loader: Any, tmp_path: Path) -> None:
        one = _make_cwd(_make_project(tmp_path / "one"))
        two = _make_cwd(_make_project(tmp_path / "two"))
        self.write_agent(one, self.layout.project, "kit-one")
        self.write_agent(two, self.layout.project, "kit-two")
        first = {d.name for d in loader.discover(one)}
        second = {d.name for d in loader.discover(two)}
        assert "kit-one" in first and "kit-two" not in first
        assert "kit-two" in second and "kit-one" not in second

    @settings(
        max_examples=25,
        deadline=None,
        # The loader is built once and reused: it must not cache across working directories.
        # Each subclass runs this same method with its own layout: examples are independent.
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.function_scoped_fixture,
            HealthCheck.differing_executors,
        ],
    )
    @given(
        placements=st.lists(
            st.tuples(st.sampled_from(["kit-x", "kit-y", "kit-z"]), st.integers(0, 2)),
            min_size=1,
            max_size=8,
        ),
        broken=st.lists(st.sampled_from(sorted(BROKEN_FILES)), max_size=3),
    )
    def test_property_nearest_wins_and_broken_files_hide_nothing(
        self, loader: Any, placements: list[tuple[str, int]], broken: list[str]
    ) -> None:
        """For any placement of names at depths 0 (cwd) to 2 (the repository root), plus
        broken files anywhere, the catalog holds every name, each won by its nearest file."""
        if self.layout.project is None:
            pytest.skip("the loader has no project level")
        # a fresh folder per example: function-scoped fixtures are shared across examples
        with tempfile.TemporaryDirectory(prefix="agentframe-kit-") as scratch:
            cwd = _make_cwd(_make_project(Path(scratch) / "project"))
            levels = [cwd, cwd.parent, cwd.parent.parent]
            nearest: dict[str, int] = {}
            for name, depth in placements:
                self.write_agent(levels[depth], self.layout.project, name, f"{name} at {depth}")
                nearest[name] = min(depth, nearest.get(name, depth))
            for index, kind in enumerate(broken):
                base = levels[index % 3]
                self.write(base, self.layout.project, f"kit-broken-{kind}.md", BROKEN_FILES[kind])
            catalog = self.catalog(loader, cwd)
            for name, depth in nearest.items():
                winner = catalog.get(name)
                assert winner.prompt.strip() == f"{name} at {depth}"


def _real(path: Path | None) -> Path | None:
    return path.resolve() if path is not None else None


def _make_project(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    return root


def _make_cwd(project: Path) -> Path:
    cwd = project / "pkg" / "sub"
    cwd.mkdir(parents=True)
    return cwd
