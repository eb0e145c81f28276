"""Safe grep channel: line evidence from the trusted roots of the request scope, via ripgrep.

Two layers, so a fast engine never decides what is returned: ripgrep finds candidates, and every
line is re-read and verified under the one file rule before it is returned. The rooms:

- ``tool``: ``GrepTool``, the channel the Router calls (config ``conf/tools/grep.yaml``).
- ``query``: the call's terms and engine stages, the pure sub-path check.
- ``engine``: ripgrep as a subprocess (command line, pipes, rows, deadline).
- ``verify``: the re-reading under the one file rule, snippets, the sub-path checked on disk.
- ``lines``: one call's line search (stages, scoring, ranking, the per-file cap).
- ``narrow``: the word index per scope and which files a stage must scan.
- ``word_index``: the tree walk as ripgrep sees it and the word index's files.
- ``paths``: a query that names a file by path finds that file first.
"""

from arr.tools.grep.engine import exclusion_glob, find_rg
from arr.tools.grep.query import check_sub_path, co_occurrence_pattern, literal_terms
from arr.tools.grep.tool import GrepTool

__all__ = [
    "GrepTool",
    "check_sub_path",
    "co_occurrence_pattern",
    "exclusion_glob",
    "find_rg",
    "literal_terms",
]
