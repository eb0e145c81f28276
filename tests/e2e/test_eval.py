"""``arr eval``, sweeps and ``arr report`` end to end on the demo workspace and a mini BEIR set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.test_cli import arr

pytestmark = pytest.mark.slow
MINI = Path(__file__).resolve().parent.parent / "data" / "mini_beir"


def only_run(tmp_path: Path, task: str = "eval") -> Path:
    runs = list((tmp_path / "outputs" / task / "runs").iterdir())
    assert len(runs) == 1
    return runs[0]


def test_eval_on_the_demo_gold_set(demo_overrides: list[str], tmp_path: Path) -> None:
    done = arr("eval", *demo_overrides)
    assert done.returncode == 0, done.stderr
    run = only_run(tmp_path)
    assert {"report.json", "report.md", "report.html", "run.trec", "config.resolved.json"} <= {
        p.name for p in run.iterdir()
    }
    report = json.loads((run / "report.json").read_text())
    assert report["status"] == "ok" and report["cases"] == 22
    agg = report["aggregate"]
    assert agg["scope_leak_count"] == 0 and agg["recall@10"] > 0.8 and agg["ndcg@10"] > 0.6
    assert {"search", "bm25", "memory"} <= set(report["latency_ms"])
    assert report["versions"]["arr"] and report["git_commit"]
    assert report["approvals"]["executed"] == 0
    assert report["approvals"]["decisions"] == {"approve": 3, "rejected_invalid": 2}
    trec = (run / "run.trec").read_text().splitlines()
    assert trec[0].split()[:4] == ["q01", "Q0", trec[0].split()[2], "1"]
    assert all(len(line.split()) == 6 for line in trec)
    ranx = pytest.importorskip("ranx")
    read_back = ranx.Run.from_file(str(run / "run.trec"), kind="trec")
    assert len(read_back.keys()) == report["cases"] - agg["failed_queries"]
    assert "<svg" in (run / "report.html").read_text()
    assert "scope leaks: **0**" in (run / "report.md").read_text()
    # routing share: every judged query counted once under the channel set it was planned to
    assert sum(report["routes"].values()) == report["cases"] - agg["failed_queries"]
    assert {c["channels"] for c in report["per_case"]} == set(report["routes"])
    assert "Queries per planned channel set" in (run / "report.md").read_text()
    # the fusion, its fitted values and what they were fitted on, in every form of the report
    fusion = report["fusion"]
    assert fusion["method"] == "WSumFusion" and fusion["options"]["code_gap_weight"] == 0.2
    assert "CoSQA dev" in fusion["fitted_on"]
    for name in ("report.md", "report.html"):
        assert "fitted on: code_gap_weight 0.2: CoSQA dev" in (run / name).read_text()


def test_failed_eval_still_writes_a_report(demo_overrides: list[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad_gold.jsonl"
    bad.write_text('{"id": "x", "scope": "vision-main", "query": "q"}\n')
    done = arr("eval", *demo_overrides, f"eval.gold={bad}")
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
    report = json.loads((only_run(tmp_path) / "report.json").read_text())
    assert report["status"] == "failed" and "bad_gold.jsonl:1" in report["error"]
    assert not (only_run(tmp_path) / "report.md").exists()  # never presented as complete


def test_unknown_relevant_ids_are_reported(demo_overrides: list[str], tmp_path: Path) -> None:
    bad = tmp_path / "gold.jsonl"
    bad.write_text(
        '{"id": "x", "scope": "vision-main", "query": "q", '
        '"relevant": {"doc:notes/nope.md#L1": 1}}\n'
    )
    arr("eval", *demo_overrides, f"eval.gold={bad}")
    report = json.loads((only_run(tmp_path) / "report.json").read_text())
    assert report["status"] == "failed" and "unknown relevant ids" in report["error"]


def test_sweep_and_comparison_report(demo_overrides: list[str], tmp_path: Path) -> None:
    done = arr("eval", "-m", *demo_overrides, "fusion.top_k=10,60", "pipeline=bm25_only,hybrid_rrf")
    assert done.returncode == 0, done.stderr
    sweeps = list((tmp_path / "outputs" / "eval" / "multiruns").iterdir())
    assert len(sweeps) == 1
    jobs = sorted(p for p in sweeps[0].iterdir() if p.is_dir() and p.name.isdigit())
    assert len(jobs) == 4 and all((j / "report.json").exists() for j in jobs)
    compared = arr("report", str(sweeps[0]), "baseline=0")
    assert compared.returncode == 0, compared.stderr
    result = json.loads((sweeps[0] / "comparison.json").read_text())
    assert result["baseline"] == "0" and len(result["jobs"]) == 4
    assert set(result["winners"]) >= {"ndcg@10", "recall@10"}
    assert all(0 < p <= 1 for row in result["jobs"][1:] for p in row["p_value"].values())
    assert (sweeps[0] / "comparison.html").exists()
    assert "pipeline=hybrid_rrf" in (sweeps[0] / "comparison.md").read_text()
    as_json = arr("report", str(sweeps[0]), "--json", "baseline=0")  # --json anywhere
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["jobs"] == result["jobs"]


def test_report_errors_are_one_line(tmp_path: Path) -> None:
    done = arr("report", str(tmp_path / "nothing"))
    assert done.returncode == 2 and done.stderr.startswith("arr: error:")
    done = arr("report", str(tmp_path), "baseline=7", "color=red")
    assert done.returncode == 2 and "unknown option 'color'" in done.stderr


def test_eval_on_a_beir_collection(demo_overrides: list[str], tmp_path: Path) -> None:
    done = arr(
        "eval",
        *demo_overrides,
        "eval=scifact",
        f"workspace.root={MINI}",
        f"paths.output_dir={tmp_path / 'outputs'}",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads((only_run(tmp_path) / "report.json").read_text())
    assert report["cases"] == 2 and report["aggregate"]["recall@10"] == 1.0
    assert "SECRET_LABEL" not in json.dumps(report)


@pytest.mark.parametrize("launcher", ["basic", "arr_joblib"])
def test_sweep_exit_code_follows_its_jobs(
    demo_overrides: list[str], tmp_path: Path, launcher: str
) -> None:
    extra = [] if launcher == "basic" else [f"hydra/launcher={launcher}"]
    good = arr("eval", "-m", *demo_overrides, *extra, "pipeline=bm25_only,memory_only")
    assert good.returncode == 0, good.stderr
    bad = arr("eval", "-m", *demo_overrides, *extra, "eval.k_values=[10],[0]")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "jobs 1 failed" in bad.stderr


def test_report_compares_separate_runs_and_refuses_other_gold_sets(
    demo_overrides: list[str], tmp_path: Path
) -> None:
    for pipeline in ("bm25_only", "memory_only"):
        done = arr("eval", *demo_overrides, f"pipeline={pipeline}")
        assert done.returncode == 0, done.stderr
    runs = sorted((tmp_path / "outputs" / "eval" / "runs").iterdir())
    compared = arr("report", *map(str, runs))
    assert compared.returncode == 0, compared.stderr
    (out,) = (tmp_path / "outputs" / "eval" / "runs" / "comparisons").iterdir()
    result = json.loads((out / "comparison.json").read_text())
    assert [j["label"] for j in result["jobs"]] == ["pipeline=bm25_only", "pipeline=memory_only"]
    assert "Holm" in result["test"] and result["comparisons"] == len(result["metrics"])
    page = (out / "comparison.html").read_text()
    assert (
        "<table id='comparison' class='sortable'>" in page
        and "class='best'" in page
        and "Holm" in page
    )
    # a run over another gold set (the mini BEIR collection) is refused, naming why
    done = arr(
        "eval",
        *demo_overrides,
        "eval=scifact",
        f"workspace.root={MINI}",
        f"paths.output_dir={tmp_path / 'beir'}",
    )
    assert done.returncode == 0, done.stderr
    (beir_run,) = (tmp_path / "beir" / "eval" / "runs").iterdir()
    refused = arr("report", str(runs[0]), str(beir_run))
    assert refused.returncode == 2 and "different gold sets" in refused.stderr


def test_file_level_eval_on_a_tree(tmp_path: Path) -> None:
    """eval=tree: questions whose relevant items are paths (or line ranges) of a source tree;
    every evidence item is judged as its file, each file at the rank of its first item."""
    import shutil

    collection = tmp_path / "set"
    shutil.copytree(Path(__file__).resolve().parent.parent / "data" / "mini_tree", collection)
    done = arr(
        "eval", "eval=tree", f"eval.collection={collection}", "embedder=hashing",
        "progress=false", f"paths.output_dir={tmp_path / 'outputs'}",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads((only_run(tmp_path) / "report.json").read_text())
    assert report["status"] == "ok" and report["cases"] == 2
    rankings = {c["id"]: c["ranking"] for c in report["per_case"]}
    assert rankings["c1"][0] == "src/http.py"  # a file, not a chunk or a line
    assert rankings["c2"][0] == "src/routing.py#L1-2"  # the range the evidence overlaps
    assert len(rankings["c1"]) == len(set(rankings["c1"]))
    assert report["aggregate"]["ndcg@10"] == 1.0
