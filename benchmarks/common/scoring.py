"""Known-item scoring: per question kind, R@1 and R@10 of the right file and of the right place
in it."""

from __future__ import annotations


def score(  # type: ignore[no-untyped-def]
    cases: list[dict], search, doc: str = "pdf", unit: str = "page"
) -> dict[str, tuple[float, ...]]:
    """Per question kind: R@1 and R@10 of the right file (``case[doc]``), then of the right
    place in it (``case[unit]``)."""
    rows: dict[str, list[tuple[int, int, int, int]]] = {}
    for case in cases:
        found = search(case["query"])
        files = [name for name, _ in found]
        right = (case[doc], case[unit])
        rows.setdefault(case["kind"], []).append(
            (int(files[:1] == [case[doc]]), int(case[doc] in files),
             int(found[:1] == [right]), int(right in found))
        )  # fmt: skip
    return {kind: tuple(sum(col) / len(got) for col in zip(*got, strict=True))
            for kind, got in rows.items()}  # fmt: skip
