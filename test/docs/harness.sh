# Sourced before a page's examples (test/docs/examples.test.ts): strict bash, and a `curl`
# function around the real one. It records each call's status (curl writes it to stderr through
# --write-out, so stdout stays the body the example pipes on) and fails the example unless the
# status is a 2xx, or exactly the one the command declared (TABULA_EXPECT, from "# → NNN").
set -euo pipefail
shopt -s inherit_errexit

# Bash builtins only around the real curl (no mktemp, sed or rm per call): the pages make some
# 150 calls, and every extra process start is slow on a loaded 2-core machine.
curl() {
  local expected=${TABULA_EXPECT:-2xx} errors status='' line rc=0
  # curl's stderr into $errors; its stdout leaves through fd 3, untouched, to wherever ours goes.
  { errors=$(command curl "$@" --write-out '%{stderr}\n@@tabula-status %{http_code}\n' 2>&1 1>&3 3>&-) || rc=$?; } 3>&1
  while IFS= read -r line; do
    if [[ $line =~ ^@@tabula-status\ ([0-9]*)$ ]]; then
      status=${BASH_REMATCH[1]}
    elif [[ -n $line ]]; then
      printf '%s\n' "$line" >&2
    fi
  done <<<"$errors"
  printf '%s\t%s\t%s\t%s\n' "$TABULA_BLOCK" "${status:-000}" "$expected" "curl $*" >>"$TABULA_CURL_LOG"
  if ((rc != 0)); then
    echo "curl exited $rc: curl $*" >&2
    return "$rc"
  fi
  if [[ $expected == 2xx && $status == 2?? ]] || [[ $status == "$expected" ]]; then return 0; fi
  echo "curl answered $status where the docs expect $expected: curl $*" >&2
  return 1
}
