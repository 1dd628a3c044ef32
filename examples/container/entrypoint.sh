#!/bin/sh
# The container's entrypoint. The image listens on 0.0.0.0, and a router with no token leaves every scope open,
# so `serve` never starts open by accident: when no token is configured, an `admin` token is made at first
# start, kept in the data volume (mode 0600) and printed once; later starts reuse it without printing it.
#
#   -e TRESTLE_TOKENS='[{"name":"ops","token":"…","scopes":["admin"]}]'   your own tokens (nothing is generated)
#   --config FILE                                                         tokens from your file (nothing is generated)
#   -e TRESTLE_INSECURE_OPEN=1                                            open on purpose: every scope, no token
#
# Every other command (`tools list`, `services list`, …) goes straight to the trestle CLI.
set -eu

token_file="${TRESTLE_ADMIN_TOKEN_FILE:-/var/lib/trestle/admin-token}"

is_true() {
  case "$1" in
    1 | true | TRUE | True | yes | YES | on | ON) return 0 ;;
    *) return 1 ;;
  esac
}

wants_generated_token() {
  [ "${1:-}" = "serve" ] || return 1
  [ -z "${TRESTLE_TOKENS:-}" ] || return 1
  is_true "${TRESTLE_INSECURE_OPEN:-}" && return 1
  for arg in "$@"; do
    case "$arg" in
      # A config file may hold tokens; environment variables would override them, so none is made. Without
      # tokens in it, the router refuses to listen on 0.0.0.0 and says why.
      --config | --config=* | --insecure-open | --stdio) return 1 ;;
    esac
  done
  return 0
}

if wants_generated_token "$@"; then
  if [ ! -s "$token_file" ]; then
    umask 077
    node -e 'process.stdout.write(require("node:crypto").randomBytes(32).toString("base64url"))' >"$token_file.new"
    chmod 600 "$token_file.new"
    mv "$token_file.new" "$token_file"
    echo "trestle: no token was configured, so an admin token was generated and stored in $token_file (0600)."
    echo "trestle: it is printed this once; use it as 'Authorization: Bearer <token>' (TRESTLE_TOKEN for the CLI):"
    echo "TRESTLE_ADMIN_TOKEN=$(cat "$token_file")"
  fi
  token="$(cat "$token_file")"
  case "$token" in
    "" | *[!A-Za-z0-9_-]*)
      echo "trestle: $token_file must hold one token of letters, digits, '-' and '_'; remove it to make a new one" >&2
      exit 2
      ;;
  esac
  if [ "${#token}" -lt 16 ]; then
    echo "trestle: the token in $token_file is shorter than 16 characters; remove the file to make a new one" >&2
    exit 2
  fi
  TRESTLE_TOKENS="[{\"name\":\"admin\",\"token\":\"$token\",\"scopes\":[\"admin\"]}]"
  export TRESTLE_TOKENS
  unset token
fi

# The router's node flags (ROUTER_NODE_FLAGS, set by the image) go on node's command line: NODE_OPTIONS refuses some.
# shellcheck disable=SC2086 # the flags are words on purpose
exec node ${ROUTER_NODE_FLAGS:-} "$(command -v trestle)" "$@"
