#!/usr/bin/env bash
# The shell steps of the resilcheck GitHub Action (action.yml at the
# repository root), kept here so they can be tested without a runner
# (cli/action_test.go runs them with fake GITHUB_* files).
#
#   certify.sh install   put a resilcheck binary at $RC_BIN: built from the
#                        action's own checkout ($RC_SOURCE) when $RC_VERSION
#                        is empty or "source", else `go install …@$RC_VERSION`;
#                        for a kind compose spec ($RC_SPEC), its helper
#                        resilcheck-compose beside it, built from the checkout
#   certify.sh run       certify; never fails itself: it records the exit code,
#                        appends summary.md to $GITHUB_STEP_SUMMARY (within
#                        GitHub's 1 MiB) and sets the step's outputs
#   certify.sh gate      exit with $RC_EXIT_CODE, the code `run` gave as its
#                        exit-code output: the job fails exactly when the gate does
#
# Inputs come as RC_* variables (action.yml maps its inputs to them):
# RC_SPEC (a target spec, or "reference"), RC_SUITES (comma or space
# separated), RC_FAIL_ON, RC_BASELINE, RC_FAIL_ON_NEW (true/false),
# RC_FORMATS, RC_REPORT_DIR, RC_ARGS (more certify flags, split on spaces).
set -euo pipefail

# GitHub caps one step's summary at 1 MiB; keep a margin for the lines added here.
summary_limit=$((1024 * 1024 - 4096))

die() { echo "::error title=resilcheck::$*" >&2; exit 2; }

output() { # name value: a step output, when the runner gave a file for them
  [ -n "${GITHUB_OUTPUT:-}" ] && printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
  return 0
}

install() {
  : "${RC_BIN:?RC_BIN: where to put the binary}"
  mkdir -p "$(dirname "$RC_BIN")"
  case "${RC_VERSION:-source}" in
    "" | source)
      : "${RC_SOURCE:?RC_SOURCE: the resilcheck checkout to build}"
      (cd "$RC_SOURCE" && go build -o "$RC_BIN" ./cmd/resilcheck) ;;
    *)
      if is_compose; then die_compose_version; fi
      local gobin
      gobin=$(mktemp -d)
      GOBIN="$gobin" go install "github.com/resilcheck/resilcheck/cmd/resilcheck@$RC_VERSION"
      mv "$gobin/resilcheck" "$RC_BIN"
      # The binary reads every spelling of the kind the line match above may miss.
      if is_compose; then die_compose_version; fi ;;
  esac
  if is_compose; then
    # Its own module (compose/engine), so its dependencies stay out of
    # resilcheck; certify finds it next to the resilcheck binary.
    (cd "$RC_SOURCE" && go -C compose/engine build -o "$(dirname "$RC_BIN")/resilcheck-compose" ./cmd/resilcheck-compose)
  fi
  "$RC_BIN" version
}

die_compose_version() {
  die "a kind compose spec needs the resilcheck-compose helper, built from the action's own checkout: leave the version input empty (or 'source') and pin the action's ref instead"
}

# is_compose reports whether $RC_SPEC is a target spec of kind compose. The
# built binary reads it as certify will (any YAML spelling of the kind);
# before there is one, a line `kind: compose` says so.
is_compose() {
  [ -n "${RC_SPEC:-}" ] && [ "$RC_SPEC" != reference ] && [ -f "$RC_SPEC" ] || return 1
  if [ -x "${RC_BIN:-}" ]; then
    local said
    said=$("$RC_BIN" target validate "$RC_SPEC" 2>/dev/null) || return 1
    [[ $said == *": ok (kind compose)" ]]
  else
    grep -Eq '^kind:[[:space:]]*["'\'']?compose\b' "$RC_SPEC"
  fi
}

# report_verdict prints a report's verdict: read with jq where the runner has
# it, else from the line resilcheck writes; "unknown" when neither finds one.
report_verdict() {
  local v=""
  if command -v jq >/dev/null 2>&1; then
    v=$(jq -r '.verdict // empty' "$1" 2>/dev/null) || v=""
  fi
  if [ -z "$v" ]; then
    v=$(sed -n 's/^ *"verdict": *"\([a-z]*\)",\{0,1\}$/\1/p' "$1" | head -n 1)
  fi
  case "$v" in
    "" | *[!a-z]*) echo unknown ;;
    *) echo "$v" ;;
  esac
}

# certify_args sets args to certify's arguments from the RC_* inputs.
certify_args() {
  args=()
  case "$RC_SPEC" in
    reference) args+=(--reference) ;;
    *) args+=(-f "$RC_SPEC") ;;
  esac
  local s a
  for s in ${RC_SUITES//,/ }; do args+=(--suite "$s"); done
  if [ -n "$RC_FAIL_ON" ]; then args+=(--fail-on "$RC_FAIL_ON"); fi
  if [ -n "$RC_BASELINE" ]; then args+=(--baseline "$RC_BASELINE"); fi
  if [ "$RC_FAIL_ON_NEW" = true ]; then args+=(--fail-on-new); fi
  args+=(--format "$RC_FORMATS" --report-dir "$RC_REPORT_DIR")
  # Split on spaces only: no glob expansion of the user's words.
  set -f
  for a in $RC_ARGS; do args+=("$a"); done
  set +f
}

run() {
  : "${RC_BIN:?RC_BIN: the resilcheck binary}"
  RC_REPORT_DIR=${RC_REPORT_DIR:-resilcheck-report}
  RC_FORMATS=${RC_FORMATS:-console,json,junit,md,html}
  RC_SPEC=${RC_SPEC:-} RC_SUITES=${RC_SUITES:-} RC_FAIL_ON=${RC_FAIL_ON:-} RC_BASELINE=${RC_BASELINE:-}
  RC_FAIL_ON_NEW=${RC_FAIL_ON_NEW:-false} RC_ARGS=${RC_ARGS:-}
  [ -n "$RC_SPEC" ] || die "the spec input is required: a target spec file, or 'reference'"
  # A newline would start a forged line in $GITHUB_OUTPUT (exit-code=0).
  case "$RC_REPORT_DIR$RC_SPEC" in *$'\n'* | *$'\r'*) die "the spec and report-dir inputs must be one line each" ;; esac
  local args code=0
  certify_args
  echo "resilcheck certify ${args[*]}"
  "$RC_BIN" certify "${args[@]}" || code=$?
  local verdict=none
  if [ -f "$RC_REPORT_DIR/report.json" ]; then
    verdict=$(report_verdict "$RC_REPORT_DIR/report.json")
  fi
  summarize "$code" "$verdict"
  output exit-code "$code"
  output verdict "$verdict"
  output report-dir "$RC_REPORT_DIR"
  if [ "$code" -ne 0 ]; then
    echo "::error title=resilcheck::certify exited $code ($(meaning "$code")); the verdict is ${verdict}; the report is in $RC_REPORT_DIR"
  fi
}

meaning() {
  case "$1" in
    0) echo "the gate passed" ;;
    1) echo "a check the gate counts failed" ;;
    2) echo "usage or configuration error" ;;
    3) echo "inconclusive: target unhealthy or unreachable" ;;
    4) echo "interrupted" ;;
    *) echo "internal error" ;;
  esac
}

# summarize appends summary.md (failures first) to the step summary, cut
# at a line boundary below GitHub's limit, or says why there is none.
summarize() {
  [ -n "${GITHUB_STEP_SUMMARY:-}" ] || return 0
  local md="$RC_REPORT_DIR/summary.md"
  if [ ! -f "$md" ]; then
    printf '## resilcheck: exit %s\n\n%s: no report was written; the job log says why.\n' "$1" "$(meaning "$1")" >>"$GITHUB_STEP_SUMMARY"
    return 0
  fi
  if [ "$(wc -c <"$md")" -le "$summary_limit" ]; then
    cat "$md" >>"$GITHUB_STEP_SUMMARY"
  else
    head -c "$summary_limit" "$md" | sed '$d' >>"$GITHUB_STEP_SUMMARY"
    printf '\n\n> Cut to fit GitHub'"'"'s 1 MiB step summary: the artifact holds the whole report.\n' >>"$GITHUB_STEP_SUMMARY"
  fi
}

gate() {
  local code=${RC_EXIT_CODE:-}
  case "$code" in
    "" | *[!0-9]*) die "no exit code recorded (got '$code'): did the run step run?" ;;
  esac
  echo "resilcheck: exit $code ($(meaning "$code"))"
  exit "$code"
}

case "${1:-}" in
  install | run | gate) "$1" ;;
  *) echo "usage: $0 install|run|gate" >&2; exit 2 ;;
esac
