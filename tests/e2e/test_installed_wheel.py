"""ARR as a new user gets it: the built wheel (not editable) installed into a fresh virtualenv
outside the checkout, run from a temporary folder holding a real tree.

The new virtualenv sees the test environment's third-party packages through a ``.pth`` line
(installing torch again would take minutes), but not its editable ``arr``: the ``arr`` that
runs is the one from the wheel, which the test checks.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.llama_fixtures import LlamaServer, llama_server  # noqa: F401 (fixture)

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
MINI_BEIR = REPO / "tests" / "data" / "mini_beir"
SHARED = "The warmup schedule removed the loss spikes seen at step 3000.\n"
FAST = ["embedder=hashing", "progress=false"]


def run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=cwd, env=env)
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done


# What a checkout without git (a source archive) leaves out of a build, as .gitignore does.
_NOT_SOURCE = {".git", ".venv", "outputs", "build", "dist", "__pycache__", ".pytest_cache",
               ".ruff_cache", "state"}  # fmt: skip


def source_files() -> list[str]:
    """The files a release is built from: git's tracked and unignored files in a clone; in a
    source archive (no git), every file on disk outside build outputs, caches and state."""
    if (REPO / ".git").exists() and shutil.which("git"):
        found = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, text=True,
            capture_output=True,
        )  # fmt: skip
        if found.returncode == 0:
            return found.stdout.splitlines()
    return [
        str(path.relative_to(REPO))
        for path in REPO.rglob("*")
        if path.is_file()
        and not _NOT_SOURCE & set(path.relative_to(REPO).parts)
        # hidden folders are caches and derived indexes (.hypothesis, data/**/.index), but .ci
        and not any(p.startswith(".") and p != ".ci" for p in path.relative_to(REPO).parts[:-1])
        and ".egg-info" not in str(path)
        and not path.name.endswith(".pyc")
        and ".sqlite3" not in path.name
    ]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    base = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ARR_WORKSPACE")} | {
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    # Built from a clean copy of the tracked files, as a release would be (the checkout's
    # own build/ or outputs/ never leak into the wheel, and the build writes nothing here).
    source = base / "source"
    for name in source_files():
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["-w", str(base / "dist"), str(source)],
        base,
        env,
    )
    # The distribution's own name: "arr" on the public index is another project.
    wheel = next((base / "dist").glob("agentic_research_retrieval-*.whl"))
    # The wheel is the package: no benchmark, no LLM fake endpoint, no test helper rides along.
    with zipfile.ZipFile(wheel) as built:
        names = built.namelist()
    assert [n for n in names if not n.startswith(("arr/", "agentic_research_retrieval-"))] == []
    assert [n for n in names if "bench" in n or "fake" in n or "/tests/" in n] == []
    venv = base / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], base, env)
    site = Path(
        subprocess.check_output(
            [
                str(venv / "bin" / "python"),
                "-c",
                "import sysconfig; print(sysconfig.get_path('purelib'))",
            ],
            text=True,
        ).strip()
    )
    (site / "zz_test_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    # Binaries of the dependencies (ripgrep's rg) live beside their interpreter, as after a
    # normal pip install into that virtualenv.
    rg = shutil.which("rg", path=str(Path(sys.executable).parent))
    if rg is not None:
        (venv / "bin" / "rg").symlink_to(rg)
    run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q"]
        + ["--no-deps", "--no-index", str(wheel)],
        base,
        env,
    )
    return venv, env


def test_wheel_runs_anywhere_and_writes_only_into_the_workspace(
    installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    venv, env = installed
    arr = str(venv / "bin" / "arr")
    where = run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import arr, arr.workspace.locations as l; print(arr.__file__, l.checkout_root())",
        ],
        tmp_path,
        env,
    ).stdout.split()
    assert where[0].startswith(str(venv)) and where[1] == "None"
    package = Path(where[0]).parent
    # conf/ and pipelines/ live at the checkout's top level and are mapped into the wheel.
    assert (REPO / "conf" / "search.yaml").is_file() and not (REPO / "arr" / "conf").exists()
    assert (package / "conf" / "search.yaml").is_file()
    assert (package / "pipelines" / "pipeline" / "bm25_only.yaml").is_file()
    job = run([str(venv / "bin" / "arr"), "search", "--cfg", "job"], tmp_path, env).stdout
    replay = subprocess.run(  # a checkout's tool: the wheel says so instead of a traceback
        [arr, "replay"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert replay.returncode == 2 and "unknown command 'replay'" in replay.stderr
    assert "Traceback" not in replay.stderr
    assert "task_name: search" in job and "\ntools:" in job and "vector:" in job
    recipe = run(  # a recipe from pipelines/ composes from the wheel too
        [str(venv / "bin" / "arr"), "search", "pipeline=bm25_only", "--cfg", "job"], tmp_path, env
    ).stdout
    assert "bm25:" in recipe and "vector:" not in recipe.split("\ntools:")[1].split("\nfusion:")[0]
    before = sorted(
        p.relative_to(package).as_posix()
        for p in package.rglob("*")
        if "__pycache__" not in p.parts
    )

    import bm25s

    project = tmp_path / "research"
    shutil.copytree(
        Path(bm25s.__file__).parent, project / "code", ignore=shutil.ignore_patterns("__pycache__")
    )
    for folder in ("notes-main", "notes-dev"):
        (project / folder).mkdir(parents=True)
        (project / folder / "warmup.md").write_text("# Warmup\n" + SHARED)
    (project / "notes-main" / "train.log").write_text("step 1 loss 2.3\n")
    # papers as they come: a real PDF when Debian's doc packages are installed (else one
    # typeset here), a broken one, and the notebook an installed package ships
    from tests.readers_fixtures import pdf_bytes

    papers = project / "notes-main" / "papers"
    papers.mkdir()
    (papers / "paper.pdf").write_bytes(
        pdf_bytes([["Warmup in large batches"], ["Gradient noise scale sets the batch size."]])
    )
    (papers / "broken.pdf").write_bytes(b"%PDF-1.4 truncated")
    real = sorted(Path("/usr/share/doc").glob("**/*.pdf"))[:1]
    for found in real:
        shutil.copyfile(found, papers / "debian.pdf")
    notebooks = sorted(Path(sysconfig.get_paths()["purelib"]).rglob("*.ipynb"))[:1]
    for found in notebooks:
        shutil.copyfile(found, papers / "packaged.ipynb")

    run([arr, "init"], project, env)
    run([arr, "scope", "add", "code", "code"], project, env)
    run([arr, "scope", "add", "main", "notes-main", "branch=main"], project, env)
    run([arr, "scope", "add", "dev", "notes-dev", "branch=dev"], project, env)
    indexed = run([arr, "index", *FAST], project, env)
    assert "FAILED" not in indexed.stdout

    def search(query: str, scope: str, *extra: str) -> dict:
        done = run(
            [arr, "search", f"query={query}", f"scope={scope}", "--json", *FAST, *extra],
            project / "code",
            env,
        )
        return json.loads(done.stdout)

    main = search("why did the warmup schedule remove the loss spikes", "main")
    dev = search("why did the warmup schedule remove the loss spikes", "dev")
    assert {"bm25", "vector"} <= {c for e in main["evidence"] for c in e["ranks"]}
    assert main["scope_leak_count"] == dev["scope_leak_count"] == 0
    assert {e["scope"]["branch"] for e in main["evidence"]} == {"main"}
    assert {e["scope"]["branch"] for e in dev["evidence"]} == {"dev"}
    code = search("weight_mask", "code", "tools=[grep,bm25]")
    assert {"grep", "bm25"} <= {c for e in code["evidence"] for c in e["ranks"]}

    page = search("gradient noise scale sets the batch size", "main", "tools=[grep,bm25]")
    places = [e["location"] for e in page["evidence"]]
    assert {"path": "papers/paper.pdf", "anchor": "page=2"}.items() <= places[0].items()
    skipped = json.loads(run([arr, "skipped", "scope=main", "output=json"], project, env).stdout)
    assert {"path": "papers/broken.pdf", "reason": "unreadable"}.items() <= skipped["main"][
        0
    ].items()
    assert [r["path"] for r in skipped["main"]] == ["papers/broken.pdf"]  # the rest were read

    with (project / "notes-main" / "train.log").open("a") as log:
        log.write("step 2 wombat_instability\n")
    fresh = search("wombat_instability", "main", "tools=[bm25,vector]")
    assert fresh["rejections"] == [] and fresh["evidence"]

    served_by(arr, project, env, tmp_path)

    collection = tmp_path / "tiny-beir"
    shutil.copytree(MINI_BEIR, collection)
    evaluated = run(
        [arr, "eval", "eval=beir", f"eval.collection={collection}", *FAST], project, env
    )
    assert evaluated.stdout.startswith("tiny-beir:")

    after = sorted(
        p.relative_to(package).as_posix()
        for p in package.rglob("*")
        if "__pycache__" not in p.parts
    )
    assert after == before  # nothing written into site-packages
    assert (project / ".arr" / "outputs" / "search" / "runs").is_dir()
    assert (project / ".arr" / "index" / "bm25").is_dir()


@pytest.mark.model
def served_by(arr: str, project: Path, env: dict[str, str], tmp_path: Path) -> None:
    """The wheel's `arr serve` answers the wheel's `arr search` through the CLI's door."""
    import time

    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    env = {**env, "XDG_RUNTIME_DIR": str(runtime)}
    server = subprocess.Popen(
        [arr, "serve", *FAST], cwd=project, env=env, stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        ends = time.monotonic() + 120
        while not list((runtime / "arr").glob("*.sock")):
            assert server.poll() is None and time.monotonic() < ends, "no door"
            time.sleep(0.2)
        run([arr, "search", "weight_mask", "scope=code", "--json", *FAST], project, env)
        runs = sorted((project / ".arr" / "outputs" / "search" / "runs").iterdir())
        assert f"answered by arr serve (pid {server.pid})" in (runs[-1] / "search.log").read_text()
    finally:
        server.terminate()
        server.wait(60)


def test_llm_check_from_the_wheel_against_a_real_server(
    installed: tuple[Path, dict[str, str]],
    llama_server: LlamaServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    """`arr llm check llm=local` of the installed wheel (its packaged conf/llm/local.yaml)
    against llama.cpp's server, and the one line a server that is not there gives."""
    venv, env = installed
    arr = str(venv / "bin" / "arr")
    done = run([arr, "llm", "check", *llama_server.overrides()], tmp_path, env)
    assert "structured output: json_schema: works" in done.stdout
    assert "SmolLM2-135M-Instruct" in done.stdout
    absent = subprocess.run(
        [arr, "llm", "check", "llm=local", "llm.base_url=http://127.0.0.1:9/v1"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )
    assert absent.returncode == 1 and "Traceback" not in absent.stderr
    assert absent.stderr.strip() == (
        "arr: llm check failed: llm_transport: connection refused (is the server running on "
        "that port?) (http://127.0.0.1:9/v1)"
    )


def test_a_source_archive_without_git_is_built_from_its_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``make test`` from a source archive (no ``.git``): the wheel's sources are the files on
    disk, without caches, build outputs, derived indexes or state."""
    for name in ("arr/a.py", "conf/b.yaml", ".ci/run", ".hypothesis/c", "outputs/d",
                 "data/demo/.index/e", "arr/__pycache__/f.pyc", "data/m.sqlite3"):  # fmt: skip
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    assert sorted(source_files()) == [".ci/run", "arr/a.py", "conf/b.yaml"]


def test_the_wheel_outside_a_workspace_and_its_own_demo(
    installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """Outside a workspace a command says so and creates nothing; ``arr demo`` and ``arr eval``
    run the packaged demo in the user's data folder, from inside a workspace too, and leave
    that workspace as it was."""
    venv, env = installed
    arr = str(venv / "bin" / "arr")
    env = {**env, "XDG_DATA_HOME": str(tmp_path / "data-home")}
    empty = tmp_path / "empty"
    empty.mkdir()
    for command in (["search", "warmup"], ["index", *FAST], ["skipped"], ["memory", "list"]):
        done = subprocess.run(
            [arr, *command], cwd=empty, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 2 and "no ARR workspace" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr and list(empty.iterdir()) == []
    project = tmp_path / "mine"
    (project / "notes").mkdir(parents=True)
    (project / "notes" / "a.md").write_text(SHARED)
    run([arr, "init"], project, env)
    run([arr, "scope", "add", "notes", "notes"], project, env)
    before = sorted(p.relative_to(project).as_posix() for p in project.rglob("*"))
    demo = run([arr, "demo", *FAST], project, env)
    assert "vision-main" in demo.stdout and "warmup" in demo.stdout.lower()
    evaluated = run([arr, "eval", *FAST], project, env)
    assert evaluated.stdout.startswith("demo:")
    assert sorted(p.relative_to(project).as_posix() for p in project.rglob("*")) == before
    home = tmp_path / "data-home" / "arr"
    (folder,) = list(home.iterdir())
    assert (folder / "data" / "demo" / "gold.jsonl").is_file()
    assert (folder / "outputs").is_dir()
    # pip compiled the packaged demo's sources at install: that byte code is not the demo's
    assert list((venv / "lib").rglob("demo_data/**/*.pyc")), "pip compiled nothing?"
    assert not list((folder / "data").rglob("*.pyc")) and ".pyc" not in demo.stdout
