"""Library mode prints nothing on the caller's stderr unless asked: no model-loading or
embedding progress bars, no third-party chatter, even when a search refreshes the vector
index with the real embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

import arr
from arr.compose.indexing import index_workspace
from arr.compose.library import compose
from arr.compose.runner import build_tools, build_workspace, config_container

pytestmark = pytest.mark.model


def test_library_search_is_quiet(
    demo_overrides: list[str], demo_copy: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    overrides = [o for o in demo_overrides if o not in ("embedder=hashing", "progress=false")]
    overrides.append(f"embedder.cache_dir={demo_copy.parent / 'onnx'}")
    container = config_container(compose("index", [*overrides, "progress=false"]))
    workspace = build_workspace(container)
    index_workspace(workspace, build_tools(container, workspace), workspace.named_scopes())
    capfd.readouterr()
    router = arr.load_router(overrides=[*overrides, "tools=[vector,bm25]"])
    (demo_copy / "vision-main" / "notes" / "warmup_schedule.md").write_text(
        "# Warmup\nA longer linear warmup removed the loss spikes in the quokka run.\n" * 30
    )
    result = router.search("Why did the warmup remove the loss spikes?", "vision-main")
    assert result.evidence and not result.rejections  # refreshed: the new text was embedded
    router.close()
    captured = capfd.readouterr()
    assert captured.err == "" and captured.out == ""
