# Sourced by npm test (scripts/test.sh) and scripts/test-node-lts.sh: `step NAME` starts a step,
# `print_times` prints each step's time together at the end (and after a failure): where CI's
# minutes go. STEPS_TITLE names the table.
STEP_NAME=""
STEP_START=$SECONDS
TIMES=()
STEPS_TITLE="${STEPS_TITLE:-time per step}"
end_step() { if [ -n "$STEP_NAME" ]; then TIMES+=("$(printf '%5d s  %s' $((SECONDS - STEP_START)) "$STEP_NAME")"); fi; }
print_times() {
  end_step
  STEP_NAME=""
  printf '\n\033[1m== %s ==\033[0m\n' "$STEPS_TITLE"
  printf '%s\n' "${TIMES[@]}"
  printf '%5d s  in all\n' "$SECONDS"
}
step() {
  end_step
  STEP_NAME="$1"
  STEP_START=$SECONDS
  printf '\n\033[1m== %s ==\033[0m\n' "$1"
}
