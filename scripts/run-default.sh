#!/usr/bin/env bash
# The main job on built-in defaults: ranked memory plans for LLaMA-2 7B over the default GPU catalog.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build/tools/memest/memest --model llama-2-7b --seq-len 4096 --global-batch 32 --top 10
