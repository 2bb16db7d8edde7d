#!/usr/bin/env bash
# A peer sitting (../shared/peers, read-only there): agent-tui with a warm process up, agent-tui
# in-process (AGENT_TUI_NO_WARM=1), Claude Code and Codex, one after another, nothing else running.
# Usage: bench/peers/sitting.sh OUTDIR   (RUNS=3 by default; peers installed as ../shared/peers/README.md says)
# The warm process is started before each warm invocation (--setup-cmd; the harness ends every
# process of the profile's HOME when an invocation ends) in the environment the harness launches
# with: its tmux panes get this script's environment plus LANG/LC_ALL=C.UTF-8; headless.py runs
# with only HOME, PATH, LANG, LC_ALL and TERM. Otherwise the warm-up launch starts a second warm
# process for its own environment and both are counted. It runs with the warm profile's HOME,
# so the harness counts it (and each launch's child) with that agent's memory.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
P=$(cd "$ROOT/../shared/peers" && pwd)
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
RUNS=${RUNS:-3}
AT=$ROOT/.venv/bin/agent-tui
WARM_HOME=$HOME/peerhome-agent-tui-warm
AT_ENV=(--env AGENT_TUI_MODEL=openai/fake --env 'AGENT_TUI_API_BASE={base}/v1'
        --env AGENT_TUI_API_KEY=sk-fake --env 'AGENT_TUI_HOME={home}/.agent-tui')
AT_PROF=(--wire chat --cmd "$AT" --ready 'Ask anything' --version-cmd "$AT --version" "${AT_ENV[@]}")
WARM_SETUP="LANG=C.UTF-8 LC_ALL=C.UTF-8 AGENT_TUI_HOME=\$HOME/.agent-tui $AT warm start"
WARM_ENV=(env -i HOME="$WARM_HOME" PATH="$PATH" LANG=C.UTF-8 LC_ALL=C.UTF-8 AGENT_TUI_HOME="$WARM_HOME/.agent-tui")
U=(env -u PYTHONDONTWRITEBYTECODE)
log=$OUT/bench.log
bench() {   # bench OUTFILE ARGS...
  local out=$1; shift
  echo "== $(date +%T) $out: tuibench.py --runs $RUNS $*" >>"$log"
  timeout 900 "${U[@]}" python3 "$P/tuibench.py" --runs "$RUNS" "$@" --out "$OUT/$out" 2>>"$log" >/dev/null
  echo "   rc=$? $(date +%T)" >>"$log"
}
hl() {      # hl OUTFILE ARGS...
  local out=$1; shift
  echo "== $(date +%T) $out: headless.py $*" >>"$log"
  timeout 900 "${U[@]}" python3 "$P/headless.py" "$@" --out "$OUT/$out" 2>>"$log" >/dev/null
  echo "   rc=$? $(date +%T)" >>"$log"
}
warm_start() {
  mkdir -p "$WARM_HOME"
  "${U[@]}" "${WARM_ENV[@]}" "$AT" warm start >>"$log" 2>&1
  "${U[@]}" "${WARM_ENV[@]}" "$AT" warm status >>"$log" 2>&1
}
cd "$P"
echo "### sitting start $(date -Is) load: $(cat /proc/loadavg)" >>"$log"
python3 "$P/cpuwatch.py" --root $$ --out "$OUT/watch.jsonl" --every 2 &
bench agent-tui-warm.json --name agent-tui-warm --home "$WARM_HOME" --warm --setup-cmd "$WARM_SETUP" "${AT_PROF[@]}" \
  --measures version,first,rss,roundtrip,stream
bench agent-tui-warm-coldreply.json --name agent-tui-warm --home "$WARM_HOME" --warm --setup-cmd "$WARM_SETUP" \
  "${AT_PROF[@]}" --measures coldreply
warm_start
hl agent-tui-warm-headless.json --name agent-tui-warm --home "$WARM_HOME" --cmd "$AT run" "${AT_ENV[@]}" --runs 3
"${U[@]}" "${WARM_ENV[@]}" "$AT" warm status >>"$log" 2>&1
"${U[@]}" "${WARM_ENV[@]}" "$AT" warm stop >>"$log" 2>&1
bench agent-tui.json --name agent-tui "${AT_PROF[@]}" --env AGENT_TUI_NO_WARM=1 \
  --measures version,first,rss,roundtrip,stream
bench agent-tui-coldreply.json --name agent-tui "${AT_PROF[@]}" --env AGENT_TUI_NO_WARM=1 --measures coldreply
hl agent-tui-headless.json --name agent-tui --cmd "$AT run" "${AT_ENV[@]}" --env AGENT_TUI_NO_WARM=1 --runs 3
bench claude.json           --agent claude --measures version,first,rss,roundtrip,stream
bench claude-coldreply.json --agent claude --measures coldreply
hl claude-headless.json     --agent claude --runs 3
bench codex.json            --agent codex  --measures version,first,rss,roundtrip,stream
bench codex-coldreply.json  --agent codex  --measures coldreply
hl codex-headless.json      --agent codex  --runs 3
echo "### sitting end $(date -Is) load: $(cat /proc/loadavg)" >>"$log"
kill %1 2>/dev/null
python3 "$P/report.py" "$OUT"/*.json > "$OUT/table.md"
cat "$OUT/table.md"
