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
from typing import Any, ClassVar, NoReturn

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentframe_core.assembly.catalog import AgentCatalog, catalog_from_loaders
from agentframe_core.contract.definition import AgentDefinition
from agentframe_core.contract.errors import AgentDefinitionError
from agentframe_core.contract.protocols import AgentLoader, ScanningLoader

from ._verdicts import kit_lacks, require

__all__ = ["AgentLayout", "AgentLoaderConformance"]

#: What the kit holds every loader to: a loader without it fails, told what to add.
REQUIRED = {"AgentLoader": "`discover(cwd)`: the definitions visible from a folder"}
#: What the kit checks only where the loader has it: without one, its tests skip, saying so
#: (`scan` is checked where it exists, inside the broken-file test).
OPTIONAL = {
    "ScanningLoader": "`scan(cwd)` also reports the files it skipped",
    "project": "a project level: `layout.project`, a folder in each project folder",
    "user": "a user level: `layout.user`, a folder in the home folder",
}

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
    """Set `layout`, provide the `loader` fixture; see the module docstring."""

    #: Read-only: the capabilities the kit requires and the optional ones, with what each is.
    required: ClassVar[dict[str, str]] = REQUIRED
    optional: ClassVar[dict[str, str]] = OPTIONAL

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
        __tracebackhide__ = True
        if folder is None:
            self._lacks_level("project" if self.layout.project is None else "user")
        path = base / folder / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def write_agent(self, base: Path, folder: str | None, name: str, body: str = "") -> Path:
        body = body or f"You are {name}."
        return self.write(base, folder, f"{name}.md", self.render(name, f"The {name} agent", body))

    def _lacks_level(self, level: str) -> NoReturn:
        """Skip the running test: the layout has no `level` ("project" or "user")."""
        __tracebackhide__ = True
        kit_lacks(
            self,
            f"has no {level} folder (`layout.{level}` is None)",
            gives=OPTIONAL[level],
            remedy=f"set `layout.{level}`",
        )

    def catalog(self, loader: Any, cwd: Path) -> AgentCatalog:
        return catalog_from_loaders([("under-test", loader)], cwd)

    # -- behaviour -----------------------------------------------------------------------------

    def _discover(self, loader: Any, cwd: Path) -> list[AgentDefinition]:
        """`loader.discover(cwd)`, once the loader is known to be an `AgentLoader`."""
        require(loader, AgentLoader, role="agent loader")
        found: list[AgentDefinition] = loader.discover(cwd)
        return found

    def test_returns_definitions(self, loader: Any, project: Path, cwd: Path) -> None:
        first = self.write_agent(cwd, self.layout.project, "kit-alpha", "Alpha body.")
        self.write_agent(cwd, self.layout.project, "kit-beta", "Beta body.")
        found = {d.name: d for d in self._discover(loader, cwd)}
        assert {"kit-alpha", "kit-beta"} <= set(found), (
            f"discover() must return both definitions written in the project folder "
            f"{self.layout.project}; it found {sorted(found)}"
        )
        alpha = found["kit-alpha"]
        assert isinstance(alpha, AgentDefinition), (
            f"discover() must return AgentDefinitions, not {type(alpha).__name__}"
        )
        assert alpha.description == "The kit-alpha agent", (
            f"the definition's description must be the file's, not {alpha.description!r}"
        )
        assert alpha.prompt.strip() == "Alpha body.", (
            f"the definition's prompt must be the file's body, not {alpha.prompt!r}"
        )
        assert alpha.path is not None and alpha.path.resolve() == first.resolve(), (
            f"the definition's path must be the file it came from ({first}), not {alpha.path}"
        )
        assert alpha.source == "project", (
            f"a definition from a project folder must have source 'project', not {alpha.source!r}"
        )

    def test_nothing_written_nothing_found(self, loader: Any, project: Path, cwd: Path) -> None:
        for definition in self._discover(loader, cwd):
            path = definition.path
            assert path is None or not path.resolve().is_relative_to(project.resolve()), (
                f"nothing was written in the project, yet discover() found {path}"
            )

    def test_user_folder(self, loader: Any, home: Path, cwd: Path) -> None:
        self.write_agent(home, self.layout.user, "kit-user")
        found = {d.name: d for d in self._discover(loader, cwd)}
        assert "kit-user" in found, (
            f"a definition in the user folder ~/{self.layout.user} was not found: {sorted(found)}"
        )
        assert found["kit-user"].source == "user", (
            "a definition from the user folder must have source 'user', not "
            f"{found['kit-user'].source!r}"
        )

    def test_nearer_project_folder_wins(self, loader: Any, project: Path, cwd: Path) -> None:
        far = self.write_agent(project, self.layout.project, "kit-same", "From the root.")
        near = self.write_agent(cwd, self.layout.project, "kit-same", "From the cwd.")
        same = [d for d in self._discover(loader, cwd) if d.name == "kit-same"]
        assert [_real(d.path) for d in same] == [near.resolve(), far.resolve()], (
            "discover() must return both definitions of one name, the nearest folder's "
            f"first: got {[str(d.path) for d in same]}"
        )
        entry = self.catalog(loader, cwd).entries["kit-same"]
        assert _real(entry.definition.path) == near.resolve(), (
            f"the nearer project folder's definition must win, not {entry.definition.path}"
        )
        assert [_real(d.path) for d in entry.shadows] == [far.resolve()], (
            f"the farther definition must be kept as a shadow: {entry.shadows}"
        )

    def test_project_wins_over_user(
        self, loader: Any, home: Path, project: Path, cwd: Path
    ) -> None:
        if self.layout.project is None:
            self._lacks_level("project")
        user = self.write_agent(home, self.layout.user, "kit-both", "From home.")
        mine = self.write_agent(project, self.layout.project, "kit-both", "From the project.")
        entry = self.catalog(loader, cwd).entries["kit-both"]
        assert _real(entry.definition.path) == mine.resolve(), (
            f"a project definition must win over the user folder's, not {entry.definition.path}"
        )
        assert entry.shadows and _real(entry.shadows[0].path) == user.resolve(), (
            f"the user folder's definition must be kept as a shadow: {entry.shadows}"
        )

    def test_folders_above_the_repository_are_ignored(
        self, loader: Any, project: Path, cwd: Path
    ) -> None:
        outside = self.write_agent(project.parent, self.layout.project, "kit-outside")
        assert outside.exists(), f"the kit could not write {outside}"
        names = {d.name for d in self._discover(loader, cwd)}
        assert "kit-outside" not in names, (
            "folders above the repository root (the folder with .git) must not be searched: "
            f"{outside} was found"
        )

    @pytest.mark.parametrize("kind", sorted(BROKEN_FILES))
    def test_broken_file_is_skipped_not_hiding_others(
        self, loader: Any, project: Path, cwd: Path, kind: str
    ) -> None:
        self.write_agent(cwd, self.layout.project, "kit-a")
        broken = self.write(cwd, self.layout.project, f"kit-b-{kind}.md", BROKEN_FILES[kind])
        self.write_agent(cwd, self.layout.project, "kit-c")
        names = {d.name for d in self._discover(loader, cwd)}
        assert {"kit-a", "kit-c"} <= names, (
            f"a broken file ({kind}) must be skipped without hiding the others: found "
            f"{sorted(names)}"
        )
        catalog = self.catalog(loader, cwd)
        assert {"kit-a", "kit-c"} <= set(catalog.names()), (
            f"the catalog must hold the valid definitions beside a broken file ({kind})"
        )
        if isinstance(loader, ScanningLoader):
            errors = loader.scan(cwd).errors
            assert [_real(e.file) for e in errors] == [broken.resolve()], (
                f"scan() must report exactly the broken file {broken.name} ({kind}), it "
                f"reported {[str(e.file) for e in errors]}"
            )
            assert all(isinstance(e, AgentDefinitionError) for e in errors), (
                f"scan() must report AgentDefinitionErrors, not {errors!r}"
            )
            assert catalog.errors and str(broken.name) in str(catalog.errors[0]), (
                f"the catalog must report the broken file {broken.name}: {catalog.errors}"
            )

    def test_each_call_looks_from_its_own_cwd(self, loader: Any, tmp_path: Path) -> None:
        one = _make_cwd(_make_project(tmp_path / "one"))
        two = _make_cwd(_make_project(tmp_path / "two"))
        self.write_agent(one, self.layout.project, "kit-one")
        self.write_agent(two, self.layout.project, "kit-two")
        first = {d.name for d in self._discover(loader, one)}
        second = {d.name for d in self._discover(loader, two)}
        assert "kit-one" in first and "kit-two" not in first, (
            f"discover(one) must see project one's definitions only (no caching across "
            f"folders): {sorted(first)}"
        )
        assert "kit-two" in second and "kit-one" not in second, (
            f"discover(two), after discover(one), must see project two's definitions only "
            f"(no caching across folders): {sorted(second)}"
        )

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
            self._lacks_level("project")
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
                assert winner.prompt.strip() == f"{name} at {depth}", (
                    f"{name}: the definition {depth} levels up is the nearest and must win, "
                    f"but the catalog holds {winner.path} (broken files: {broken})"
                )


def _real(path: Path | None) -> Path | None:
    return path.resolve() if path is not None else None


def _make_project(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    return root


def _make_cwd(project: Path) -> Path:
    cwd = project / "pkg" / "sub"
    cwd.mkdir(parents=True)
    return cwd
