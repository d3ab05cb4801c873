#!/usr/bin/env bash
# Builds the libFuzzer targets (address sanitizer on) and runs them.
#
#   Scripts/fuzz.sh                      every target, 60 s each
#   Scripts/fuzz.sh TARGET               one target (Scripts/fuzz.sh --list names them)
#   Scripts/fuzz.sh [TARGET] --seconds N N seconds per target
#   Scripts/fuzz.sh --debug ...          an unoptimised build: a third of the build time, a fraction
#                                        of the executions per second
#   Scripts/fuzz.sh --check [--mutations N] [--strobe-fuzz PATH]
#                                        no libFuzzer build: the package's own debug strobe-fuzz (or
#                                        PATH) runs every target's regressions and seeds (cut from
#                                        Captures/, never grown) and N fixed mutations of them
#                                        (default 20000), the same inputs every run (the test command)
#
# Corpora live in .build/fuzz/corpus/TARGET, seeded from Captures/ on first use; the inputs in
# Tests/Fuzz/Regressions/TARGET (each one a crash found earlier) are run first, every time.
# A crash, a leak, an input that runs past 10 s or memory past 2 GB fails the run; the input is
# kept under .build/fuzz/artifacts/ and the script exits 1 naming it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

seconds=60
targets=()
list=false
configuration=release
check=false
mutations=20000
binary=
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --list) list=true; shift ;;
    --debug) configuration=debug; shift ;;
    --check) check=true; shift ;;
    --mutations) mutations="$2"; shift 2 ;;
    --strobe-fuzz) binary="$2"; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done

build=.build/fuzz
mkdir -p "$build/artifacts"

# seed TARGET BINARY DIR: cuts the target's starting inputs out of the captures into DIR on first use.
seed() {
  [ -d "$3" ] || "$2" seed "$1" "$3" Captures/*.btsnoop >/dev/null
  mkdir -p "Tests/Fuzz/Regressions/$1"
}

if $check; then
  if [ -z "$binary" ]; then
    swift build --product strobe-fuzz >"$build/build.log" 2>&1 || { cat "$build/build.log" >&2; exit 1; }
    binary="$(swift build --show-bin-path)/strobe-fuzz"
  fi
  [ -x "$binary" ] || { echo "fuzz: no strobe-fuzz at $binary" >&2; exit 1; }
  if [ ${#targets[@]} -eq 0 ]; then mapfile -t targets < <("$binary" list | cut -f1); fi
  [ ${#targets[@]} -gt 0 ] || { echo "fuzz: $binary lists no targets" >&2; exit 1; }
  export SWIFT_BACKTRACE=enable=no
  summary=()
  for target in "${targets[@]}"; do
    # The seeds, not the corpus campaigns grow: the same inputs every run.
    seed "$target" "$binary" "$build/seeds/$target"
    artifact="$build/artifacts/$target-check-input"
    if ! line=$("$binary" check "$target" --mutations "$mutations" --artifact "$artifact" \
        "Tests/Fuzz/Regressions/$target" "$build/seeds/$target"); then
      echo "fuzz: $target FAILED (a trap, or an input that ran past 10 s); the input is kept at $artifact" >&2
      echo "fuzz: reproduce with $binary check $target --mutations 0 INPUT; add it to Tests/Fuzz/Regressions/$target" >&2
      exit 1
    fi
    summary+=("$line")
  done
  printf 'fuzz: %s\n' "${summary[@]}"
  exit 0
fi
# A scratch path of its own: the sanitizer changes how every Swift module is compiled.
scratch=.build-fuzz
# gold cannot link address-sanitized Swift; lld ships with the toolchain.
if ! swift build -c "$configuration" --product strobe-fuzz --scratch-path "$scratch" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld \
    -Xlinker -u -Xlinker LLVMFuzzerRunDriver >"$build/build.log" 2>&1; then
  cat "$build/build.log" >&2
  echo "fuzz: the build failed" >&2
  exit 1
fi
fuzz="$build/strobe-fuzz"
# Kept apart, so that reproducing a crash runs the build that found it.
cp "$scratch/$configuration/strobe-fuzz" "$fuzz"

if $list; then "$fuzz" list; exit 0; fi
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <("$fuzz" list | cut -f1)
fi

# A Swift trap prints its message; the runtime's backtracer would trip the address sanitizer instead.
export SWIFT_BACKTRACE=enable=no
summary=()
for target in "${targets[@]}"; do
  corpus="$build/corpus/$target"
  seed "$target" "$fuzz" "$corpus"
  regressions="Tests/Fuzz/Regressions/$target"
  log="$build/$target.log"
  echo "fuzz: $target for ${seconds} s" >&2
  if ! "$fuzz" "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
      -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" \
      "$corpus" "$regressions" >"$log" 2>&1; then
    tail -40 "$log" >&2
    artifact=$(grep -o "$build/artifacts/$target-[a-z-]*[0-9a-f]*" "$log" | tail -1 || true)
    echo "fuzz: $target FAILED; input kept at ${artifact:-$log}" >&2
    echo "fuzz: reproduce with $fuzz $target ${artifact:-INPUT}; add the input to $regressions" >&2
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  summary+=("$target: ${runs:-?} executions in ${seconds} s, no crash")
done
printf 'fuzz: %s\n' "${summary[@]}"
