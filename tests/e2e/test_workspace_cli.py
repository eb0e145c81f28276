"""A researcher's own workspace through the ``arr`` command: init, scopes, index, search, edit,
search again, eval on a BEIR folder; and every kind of bad workspace input (exit 2, one line,
nothing written)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

MINI_BEIR = Path(__file__).resolve().parents[1] / "data" / "mini_beir"
SHARED_TEXT = "The warmup schedule removed the loss spikes seen at step 3000.\n"
# Model-free vectors keep this test fast; the real embedder has tests of its own (model).
FAST = ["embedder=hashing", "progress=false"]


def arr(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **(env or {})}
    if "ARR_WORKSPACE" not in (env or {}):
        environment.pop("ARR_WORKSPACE", None)  # the test names its workspace itself
    return subprocess.run(
        [sys.executable, "-m", "arr.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=environment,
    )


def make_tree(base: Path) -> Path:
    """A small real project: a package's source, notes shared by two scopes, a growing log."""
    import bm25s

    project = base / "project"
    shutil.copytree(
        Path(bm25s.__file__).parent, project / "src", ignore=shutil.ignore_patterns("__pycache__")
    )
    for folder in ("notes-a", "notes-b"):
        (project / folder).mkdir(parents=True)
        (project / folder / "warmup.md").write_text("# Warmup\n" + SHARED_TEXT)
    (project / "notes-a" / "train.log").write_text("step 1 loss 2.31\n")
    return project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = make_tree(tmp_path)
    done = arr("init", "team_id=lab", "project_id=thesis", cwd=folder)
    assert done.returncode == 0, done.stderr
    for name, root in (("code", "src"), ("a", "notes-a"), ("b", "notes-b")):
        extra = [] if name == "code" else [f"branch={name}"]
        done = arr("scope", "add", name, root, *extra, cwd=folder)
        assert done.returncode == 0, done.stderr
    return folder


def search(folder: Path, query: str, scope: str, *extra: str) -> dict:
    done = arr("search", f"query={query}", f"scope={scope}", "--json", *FAST, *extra, cwd=folder)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_own_workspace_end_to_end(project: Path) -> None:
    listed = arr("scope", "list", "--json", cwd=project)
    scopes = {s["name"]: s for s in json.loads(listed.stdout)["scopes"]}
    assert scopes["a"]["key"]["team_id"] == "lab" and scopes["a"]["key"]["branch"] == "a"
    assert scopes["code"]["key"]["repository"] == "code"  # no git: the scope's own name
    done = arr("index", *FAST, cwd=project / "src")  # found from a sub-folder, like git
    assert done.returncode == 0, done.stderr
    assert (project / ".arr" / "index" / "bm25").is_dir()
    assert (project / ".arr" / "state" / "memory.sqlite3").is_file()

    hybrid = search(project, "why did the warmup schedule remove the loss spikes", "a")
    channels = {c for e in hybrid["evidence"] for c in e["ranks"]}
    assert {"bm25", "vector"} <= channels
    assert all(e["scope"] == hybrid["scope"] for e in hybrid["evidence"])
    lexical = search(project, "weight_mask", "code", "tools=[grep,bm25]")
    assert {"grep", "bm25"} <= {c for e in lexical["evidence"] for c in e["ranks"]}
    other = search(project, "why did the warmup schedule remove the loss spikes", "b")
    assert other["evidence"] and other["scope_leak_count"] == 0
    assert {e["scope"]["branch"] for e in other["evidence"]} == {"b"}

    # Edit a file and grow the log: the next search sees both, with no stale rejection.
    (project / "src" / "tokenization.py").write_text(
        (project / "src" / "tokenization.py").read_text() + "\ndef zanzibar_marker():\n    pass\n"
    )
    with (project / "notes-a" / "train.log").open("a") as log:
        log.write("step 2 quokka_divergence detected\n")
    fresh = search(project, "zanzibar_marker", "code", "tools=[bm25,vector]")
    assert fresh["rejections"] == [] and fresh["partial"] is False
    assert any("zanzibar_marker" in e["snippet"] for e in fresh["evidence"])
    grown = search(project, "quokka_divergence", "a", "tools=[bm25]")
    assert grown["evidence"] and grown["evidence"][0]["location"]["path"] == "train.log"
    runs = list((project / ".arr" / "outputs" / "search" / "runs").iterdir())
    assert runs and all((r / "result.json").is_file() for r in runs)


def test_eval_on_any_beir_folder(project: Path, tmp_path: Path) -> None:
    collection = tmp_path / "my-collection"
    shutil.copytree(MINI_BEIR, collection)
    done = arr("eval", "eval=beir", f"eval.collection={collection}", *FAST, cwd=project)
    assert done.returncode == 0, done.stderr + done.stdout
    assert done.stdout.startswith("my-collection:")
    index = project / ".arr" / "outputs" / "index"
    assert [p.name.startswith("beir-my-collection-") for p in index.iterdir()] == [True]


def test_long_gold_query_is_a_recorded_failure_not_an_abort(tmp_path: Path) -> None:
    collection = tmp_path / "long"
    shutil.copytree(MINI_BEIR, collection)
    queries = [json.loads(line) for line in (collection / "queries.jsonl").read_text().splitlines()]
    queries[0]["text"] = "long " * 500
    (collection / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries) + "\n")
    out = tmp_path / "out"
    done = arr(
        "eval",
        "eval=beir",
        f"eval.collection={collection}",
        f"paths.output_dir={out}",
        *FAST,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    report = json.loads(next(out.glob("eval/runs/*/report.json")).read_text())
    failed = [c for c in report["per_case"] if c.get("error")]
    assert len(failed) == 1 and "limit" in failed[0]["error"]
    assert report["aggregate"]["failed_queries"] == 1
    # ... and every form of the report says so: console, report.md, report.html, JSON.
    assert "(1 failed: query_invalid 1)" in done.stdout
    assert report["failed"] == {"query_invalid": 1}
    run = next(out.glob("eval/runs/*"))
    markdown = (run / "report.md").read_text()
    assert "(1 failed: query_invalid 1)" in markdown
    assert f"`{failed[0]['id']}`" in markdown.split("Failed queries")[1]
    assert "1 failed: query_invalid 1" in (run / "report.html").read_text()
    as_json = arr(
        "eval",
        "eval=beir",
        f"eval.collection={collection}",
        f"paths.output_dir={out}",
        "--json",
        *FAST,
        cwd=tmp_path,
    )
    assert json.loads(as_json.stdout)["failed"] == {"query_invalid": 1}


def test_scifact_without_data_says_where_it_looks(tmp_path: Path) -> None:
    done = arr("eval", "eval=scifact", env={"ARR_SCIFACT": str(tmp_path / "absent")}, cwd=tmp_path)
    assert done.returncode != 0
    assert "ARR_SCIFACT" in done.stderr + done.stdout


def _one_line_refusal(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arr: error:"), done.stderr
    for word in words:
        assert word in lines[0], lines[0]


def test_bad_workspace_input_is_one_line_and_writes_nothing(project: Path, tmp_path: Path) -> None:
    config = project / ".arr" / "workspace.yaml"
    before = config.read_text()
    _one_line_refusal(arr("scope", "add", "a", "notes-a", cwd=project), "already exists")
    _one_line_refusal(arr("scope", "add", "x", "missing-dir", cwd=project), "does not exist")
    _one_line_refusal(arr("scope", "add", "x", cwd=project), "usage")
    _one_line_refusal(arr("scope", "add", "root", "/", cwd=project), "refused")
    _one_line_refusal(arr("scope", "add", "etc", "/etc", cwd=project), "system directory")
    _one_line_refusal(arr("scope", "add", "x", "src", "colour=red", cwd=project), "colour")
    _one_line_refusal(arr("init", cwd=project / "src"), "nest")
    _one_line_refusal(arr("init", cwd=project), "already")
    assert config.read_text() == before
    assert not (project / "src" / ".arr").exists()

    # A hand-edited file with an unknown key: every command names the key and the file.
    config.write_text(before + "colour: red\n")
    _one_line_refusal(arr("scope", "list", cwd=project), "colour", str(config))
    _one_line_refusal(arr("search", "query=x", "scope=a", cwd=project), "colour", str(config))
    config.write_text(before.replace("roots: [notes-a]", "roots: []"))
    _one_line_refusal(arr("scope", "list", cwd=project), "roots", str(config))
    config.write_text(before.replace("roots: [notes-a]", "roots: [../outside]"))
    _one_line_refusal(arr("scope", "list", cwd=project), "..", str(config))

    # Two workspaces nested in each other (made by hand): refused wherever arr runs.
    config.write_text(before)
    inner = project / "src" / ".arr"
    inner.mkdir()
    (inner / "workspace.yaml").write_text("name: inner\n")
    _one_line_refusal(arr("scope", "list", cwd=project / "src"), "nested")
    shutil.rmtree(inner)

    # An explicit workspace that is not one; the environment variable likewise.
    _one_line_refusal(arr("--workspace", str(tmp_path), "scope", "list", cwd=project), "not an ARR")
    env = {"ARR_WORKSPACE": str(tmp_path)}
    _one_line_refusal(arr("scope", "list", cwd=project, env=env), "ARR_WORKSPACE")
    listed = arr("--workspace", str(project), "scope", "list", cwd=tmp_path)
    assert listed.returncode == 0 and "notes-a" in listed.stdout


def test_memory_export_import_round_trip(project: Path, tmp_path: Path) -> None:
    assert arr("index", "tools=[bm25]", *FAST, cwd=project).returncode == 0
    add = arr("memory", "add", "id=m1", "scope=a", "title=Warmup", "body=Use 2k steps", cwd=project)
    assert add.returncode == 0, add.stderr
    assert arr("memory", "publish", "id=m1", cwd=project).returncode == 0
    out = tmp_path / "memories.jsonl"
    assert arr("memory", "export", f"file={out}", cwd=project).returncode == 0
    state = project / ".arr" / "state" / "memory.sqlite3"
    state.unlink()
    done = arr("memory", "import", f"file={out}", cwd=project)
    assert done.returncode == 0, done.stderr
    shown = json.loads(arr("memory", "show", "id=m1", cwd=project).stdout)
    assert shown["status"] == "published" and shown["title"] == "Warmup"
    (tmp_path / "bad.jsonl").write_text('{"id": "x"}\n')
    _one_line_refusal(arr("memory", "import", f"file={tmp_path / 'bad.jsonl'}", cwd=project), ":1")


def test_memory_add_conventions(project: Path) -> None:
    for number, tags in enumerate(("tags=[a,b]", "tags=a,b")):
        done = arr(
            "memory", "add", f"id=t{number}", "scope=a", "title=T", "body=B", tags, cwd=project
        )
        assert done.returncode == 0, done.stderr
        shown = json.loads(arr("memory", "show", f"id=t{number}", cwd=project).stdout)
        assert shown["tags"] == ["a", "b"]
    refused = arr(
        "memory", "add", "id=t9", "scope=a", "title=T", "body=B", "status=published", cwd=project
    )
    _one_line_refusal(refused, "status")
    bad_id = arr("memory", "add", "id=-bad id", "scope=a", "title=T", "body=B", cwd=project)
    _one_line_refusal(bad_id, "'id'")


def _key(folder: Path, name: str) -> dict[str, str]:
    listed = arr("scope", "list", "--json", cwd=folder)
    assert listed.returncode == 0, listed.stderr
    return next(s["key"] for s in json.loads(listed.stdout)["scopes"] if s["name"] == name)


def test_every_scope_gets_a_distinct_default_key(tmp_path: Path) -> None:
    """Outside git each scope's repository is its own name; in one git repository and branch
    the second scope gets <repository>/<scope>: a second scope add never collides."""
    plain = tmp_path / "plain"
    for sub in ("x", "y", "z"):
        (plain / sub).mkdir(parents=True)
    assert arr("init", cwd=plain).returncode == 0
    for sub in ("x", "y", "z"):
        done = arr("scope", "add", f"s{sub}", sub, cwd=plain)
        assert done.returncode == 0, done.stderr
    keys = [_key(plain, f"s{sub}") for sub in ("x", "y", "z")]
    assert len({tuple(k.values()) for k in keys}) == 3
    assert [k["repository"] for k in keys] == ["sx", "sy", "sz"]

    if shutil.which("git") is None:
        pytest.skip("git is not installed: the git half of this test needs it")
    repo = tmp_path / "thesis"
    for sub in ("src", "notes"):
        (repo / sub).mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    assert arr("init", cwd=repo).returncode == 0
    assert arr("scope", "add", "code", "src", cwd=repo).returncode == 0
    second = arr("scope", "add", "notes", "notes", cwd=repo)
    assert second.returncode == 0, second.stderr
    assert _key(repo, "code")["repository"] == "thesis"
    assert _key(repo, "notes")["repository"] == "thesis/notes"
    assert _key(repo, "notes")["branch"] == "main"
    # An explicit field is the user's choice: a clash is then refused, naming the scope.
    third = arr("scope", "add", "more", "notes", "branch=main", "repository=thesis", cwd=repo)
    _one_line_refusal(third, "same ScopeKey", "'code'")


def test_roots_every_later_command_would_refuse_are_refused_at_add(project: Path) -> None:
    config = project / ".arr" / "workspace.yaml"
    before = config.read_text()
    (project / ".arr" / "index").mkdir(parents=True, exist_ok=True)
    _one_line_refusal(arr("scope", "add", "idx", ".arr/index", cwd=project), "inside", ".arr")
    _one_line_refusal(arr("scope", "add", "own", ".arr", cwd=project), "inside", ".arr")
    (project / ".arr" / "outputs").mkdir(parents=True, exist_ok=True)  # run folders: every scope
    _one_line_refusal(arr("scope", "add", "runs", ".arr/outputs", cwd=project), "inside", ".arr")
    _one_line_refusal(arr("scope", "add", "up", "..", cwd=project), "'..'")
    _one_line_refusal(arr("scope", "add", "via", "src/../notes-a", cwd=project), "'..'")
    _one_line_refusal(arr("scope", "add", "deep", "src/..", cwd=project / "src"), "'..'")
    assert config.read_text() == before
    # What is accepted keeps working: every command still runs.
    assert arr("index", *FAST, cwd=project).returncode == 0
    assert search(project, "warmup schedule", "a")["evidence"]


def test_a_deleted_root_degrades_only_its_own_scope(project: Path) -> None:
    assert arr("index", *FAST, cwd=project).returncode == 0
    shutil.rmtree(project / "notes-b")
    listed = arr("scope", "list", cwd=project)
    assert listed.returncode == 0 and "notes-b" in listed.stdout
    assert search(project, "warmup schedule", "a")["evidence"]  # the others answer
    gone = search(project, "warmup schedule", "b")
    codes = {r["code"] for r in gone["rejections"]} | {d["code"] for d in gone["degradations"]}
    assert gone["partial"] and codes == {"scope_root_missing"}, gone
    assert not gone["evidence"]
    indexed = arr("index", *FAST, cwd=project)
    assert "notes-b" in indexed.stdout and "Traceback" not in indexed.stderr
    rows = [line.split() for line in indexed.stdout.splitlines() if len(line.split()) > 2]
    assert all("FAILED:" not in row for row in rows if row[1] == "a")
    assert any("FAILED:" in row for row in rows if row[1] == "b")
    removed = arr("scope", "remove", "b", cwd=project)
    assert removed.returncode == 0, removed.stderr
    assert arr("index", *FAST, cwd=project).returncode == 0


def test_search_size_is_an_option_and_added_keys_are_refused(project: Path) -> None:
    assert arr("index", *FAST, cwd=project).returncode == 0
    everything = search(project, "bm25 retrieve", "code")["evidence"]
    assert len(everything) > 3
    three = search(project, "bm25 retrieve", "code", "top_k=3")["evidence"]
    assert [e["id"] for e in three] == [e["id"] for e in everything[:3]]
    text = arr("search", "bm25 retrieve", "scope=code", "top_k=2", *FAST, cwd=project)
    assert text.returncode == 0 and " 2. [" in text.stdout and " 3. [" not in text.stdout
    for bad in ("+top_k=3", "++top_k=3", "+colour=red", "+limits.speed=9"):
        _one_line_refusal(
            arr("search", "x", "scope=code", bad, *FAST, cwd=project), "does not read"
        )
    # a key added inside a stage's group reaches its class, which names it
    _one_line_refusal(
        arr("search", "x", "scope=code", "+fusion.nrom=1", *FAST, cwd=project), "nrom"
    )
    _one_line_refusal(arr("search", "x", "scope=code", "top_k=0", *FAST, cwd=project), "top_k")
    _one_line_refusal(arr("eval", "+colour=red", *FAST, cwd=project), "does not read")


def test_search_run_folders_are_bounded(project: Path) -> None:
    assert arr("index", *FAST, cwd=project).returncode == 0
    runs = project / ".arr" / "outputs" / "search" / "runs"
    for _ in range(4):
        search(project, "warmup", "a", "keep_runs=2")
    kept = sorted(p.name for p in runs.iterdir())
    assert len(kept) == 2
    keep_mine = runs / "2000-01-01_00-00-00-000000"
    keep_mine.mkdir()
    (keep_mine / "my-notes.txt").write_text("mine")  # not what a search writes: kept
    search(project, "warmup", "a", "keep_runs=0")
    assert [p.name for p in runs.iterdir()] == [keep_mine.name]
    _one_line_refusal(arr("search", "x", "scope=a", "keep_runs=-1", *FAST, cwd=project), "keep")


def test_a_search_without_a_scope_uses_the_default_scope(project: Path) -> None:
    """The first scope added is the workspace's default; `arr search "x" -n 3 --json` needs
    nothing else. A removed default leaves none; a search then names the scopes to choose."""
    text = (project / ".arr" / "workspace.yaml").read_text()
    assert "default_scope: code" in text
    assert arr("index", *FAST, cwd=project).returncode == 0
    done = arr("search", "bm25 retrieve", "-n", "3", "--json", *FAST, cwd=project)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["scope"]["repository"] == "code" and len(found["evidence"]) == 3
    assert arr("scope", "remove", "code", cwd=project).returncode == 0
    refused = arr("search", "bm25 retrieve", *FAST, cwd=project)
    assert refused.returncode == 2 and "scope is required" in refused.stderr
    assert "['a', 'b']" in refused.stderr


def test_a_search_in_a_workspace_without_scopes_says_how_to_add_one(tmp_path: Path) -> None:
    assert arr("init", cwd=tmp_path).returncode == 0
    done = arr("search", "warmup", *FAST, cwd=tmp_path)
    assert done.returncode == 2 and "arr scope add NAME PATH" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
