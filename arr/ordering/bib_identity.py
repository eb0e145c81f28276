"""A bibliography's names on PDF pages (``bib_identity``): :mod:`arr.workspace.bib_identity`."""

from __future__ import annotations

from arr import codes
from arr.models import Degradation, EvidenceChunk
from arr.ordering.rule import PostContext


def workspace_of(context: PostContext) -> object | None:
    """The workspace a registered channel reads (None for collections without one)."""
    from arr.tools.contract import OnWorkspace, has

    return next((t.workspace for t in context.tools.values() if has(t, OnWorkspace)), None)


class BibIdentity:
    """PDF pages shown with the identity the scope's own ``.bib`` or Zotero library gives them;
    a bibliography that cannot be read leaves them as their reader named them, with a
    ``bibliography_unreadable`` degradation."""

    name = "bib_identity"

    def apply(
        self, query: str, ranked: list[EvidenceChunk], context: PostContext
    ) -> list[EvidenceChunk]:
        from arr.workspace.bib_identity import with_bib_identity

        if context.scope is None:
            return ranked
        try:
            return with_bib_identity(workspace_of(context), context.scope, ranked)
        except (OSError, ValueError) as exc:  # a .bib that vanished mid-read: names as read
            context.degradations.append(
                Degradation(
                    stage="identity",
                    code=codes.BIBLIOGRAPHY_UNREADABLE,
                    detail=f"{type(exc).__name__}: {exc}"[:300],
                )
            )
            return ranked
