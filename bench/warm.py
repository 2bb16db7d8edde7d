"""Warm start (issue 11, item 1): what a user waits for, with a warm process up and without.

Every figure is a fresh launch of the installed ``agent-tui`` in a 120x40 tmux pane (a
real terminal: it answers the app's queries; a bare pty leaves Textual waiting ~1 s for
them) against the fake provider in its own process, medians of ``--rounds``:

- ``ready``: launch -> the prompt accepting input (a key sent at the first frame is echoed);
- ``reply``: launch -> a prompt typed the moment the prompt shows -> the reply on screen;
- ``run``: ``agent-tui run "hi"`` wall time, answer printed;
- the warm process's idle RSS (its spare child's beside it) and CPU over 5 idle seconds.

Each is printed for the warm path beside the same-run baseline: the same launch with
``AGENT_TUI_NO_WARM=1`` (in-process, as before warm start). Each launch is quit and waited
for before the next starts, as at a shell prompt. ``ready`` also prints the harness's own
floor (a program that shows the prompt and echoes at once), which every figure includes. Budgets (warm): ready <= 0.15 s,
reply <= 1.0 s, run <= 0.6 s, idle RSS <= 350 MiB, idle CPU ~0.

Usage: ``python bench/warm.py [--rounds N]`` (unset PYTHONDONTWRITEBYTECODE first: an
installed copy has bytecode). Writes ``bench/results/warm.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tui import BINARY, _rss_mib  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "warm.json"
REPLY = "pong-from-the-fake"
EXITED = "agent-tui-exited"
BUDGETS = {"ready_s": 0.15, "reply_s": 1.0, "run_s": 0.6, "idle_rss_mib": 350}


def start_fake(tmp: Path) -> tuple[subprocess.Popen, str]:
    script = tmp / "script.json"
    script.write_text(json.dumps({"turns": [{"text": f"{REPLY} {i}"} for i in range(400)]}))
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_tui.testing.fake_provider", "--port", "0", "--script", str(script)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, line.split("listening on ")[1].split()[0]


def environment(tmp: Path, base: str, warm: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_TUI_")}
    env.update(
        {
            "AGENT_TUI_HOME": str(tmp / "home"),
            "XDG_RUNTIME_DIR": str(tmp / "run"),
            "TERM": "xterm-256color",
            "LITELLM_OFFLINE_MODE": "true",
            "AGENT_TUI_MODEL": "openai/fake",
            "AGENT_TUI_API_BASE": f"{base}/v1",
            "AGENT_TUI_API_KEY": "sk-bench",
        }
    )
    if not warm:
        env["AGENT_TUI_NO_WARM"] = "1"
    return env


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", "agent-tui-bench", *args], capture_output=True, text=True, check=True).stdout


def screen_shows(text: str, timeout: float = 30.0) -> float:
    """When ``text`` is on the pane's screen (read every ~5 ms, as a user would see it)."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if text in tmux("capture-pane", "-p", "-t", "bench"):
            return time.perf_counter()
        time.sleep(0.005)
    raise RuntimeError(f"{text!r} never showed: {tmux('capture-pane', '-p', '-t', 'bench')}")


def launch(env: dict[str, str], cwd: Path) -> float:
    """The installed agent-tui in a fresh 120x40 tmux pane with exactly ``env``; returns when it was started."""
    subprocess.run(["tmux", "-L", "agent-tui-bench", "kill-server"], capture_output=True)
    pairs = [f"{k}={shlex.quote(v)}" for k, v in env.items() if k not in ("TERM", "TMUX", "TMUX_PANE")]
    command = " ".join(["env", "-i", 'TERM="$TERM"', *pairs, shlex.quote(str(BINARY)), f"; echo {EXITED}; sleep 60"])
    started = time.perf_counter()
    tmux("-f", "/dev/null", "new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", "-c", str(cwd), command)
    return started


def quit_app() -> None:
    """Ctrl+C twice, then wait for the launch to end, as a user's shell prompt would: the next
    launch must not share the machine with this one's shutdown (on 2 cores that doubled it)."""
    for _ in range(5):
        tmux("send-keys", "-t", "bench", "C-c")
        tmux("send-keys", "-t", "bench", "C-c")
        try:
            screen_shows(EXITED, timeout=5)
            break
        except RuntimeError:
            continue
    subprocess.run(["tmux", "-L", "agent-tui-bench", "kill-server"], capture_output=True)


def ready(env: dict[str, str], cwd: Path) -> float:
    """Launch -> the prompt shows -> a key typed then is echoed in it."""
    started = launch(env, cwd)
    screen_shows("Ask anything")
    tmux("send-keys", "-t", "bench", "-l", "Q")
    echoed = screen_shows("│ Q")
    quit_app()
    return echoed - started


def harness_floor() -> float:
    """``ready`` for a program that prints the prompt at once and echoes what is typed: what tmux,
    the shell and the 5 ms screen reads add to every figure here."""
    subprocess.run(["tmux", "-L", "agent-tui-bench", "kill-server"], capture_output=True)
    started = time.perf_counter()
    tmux(
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        "bench",
        "-x",
        "120",
        "-y",
        "40",
        "sh -c 'printf \"Ask anything\\n│ \"; exec cat'",
    )
    screen_shows("Ask anything")
    tmux("send-keys", "-t", "bench", "-l", "Q")
    echoed = screen_shows("│ Q")
    subprocess.run(["tmux", "-L", "agent-tui-bench", "kill-server"], capture_output=True)
    return echoed - started


def reply(env: dict[str, str], cwd: Path) -> float:
    """Launch -> the prompt shows -> "hi" + Enter at once -> the fake's reply on screen."""
    started = launch(env, cwd)
    screen_shows("Ask anything")
    tmux("send-keys", "-t", "bench", "-l", "hi")
    tmux("send-keys", "-t", "bench", "Enter")
    shown = screen_shows(REPLY)
    quit_app()
    return shown - started


def run_hi(env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run([str(BINARY), "run", "hi"], cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    assert done.returncode == 0 and REPLY in done.stdout, done.stderr
    return elapsed


def warm_process(env: dict[str, str]) -> dict:
    out = subprocess.run([str(BINARY), "warm", "status", "--json"], env=env, capture_output=True, text=True)
    return json.loads(out.stdout.splitlines()[0])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def median(values: list[float]) -> float:
    return round(statistics.median(values), 3)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        (tmp / "run").mkdir(mode=0o700)
        cwd = tmp / "project"
        cwd.mkdir()
        fake, base = start_fake(tmp)
        try:
            result = measure(tmp, base, cwd, args.rounds)
        finally:
            subprocess.run([str(BINARY), "warm", "stop"], env=environment(tmp, base, True), capture_output=True)
            fake.terminate()
            fake.wait()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


def measure(tmp: Path, base: str, cwd: Path, rounds: int) -> dict:
    warm_env, cold_env = environment(tmp, base, True), environment(tmp, base, False)
    started = time.perf_counter()
    subprocess.run([str(BINARY), "warm", "start"], env=warm_env, check=True, capture_output=True)
    result: dict = {
        "date": time.strftime("%Y-%m-%d"),
        "rounds": rounds,
        "warm_process_start_s": round(time.perf_counter() - started, 2),
    }
    for name, measure_one in (("ready_s", ready), ("reply_s", reply), ("run_s", run_hi)):
        warm = [measure_one(warm_env, cwd) for _ in range(rounds)]
        cold = [measure_one(cold_env, cwd) for _ in range(rounds)]
        result[name] = {
            "warm": median(warm),
            "in_process": median(cold),
            "budget": BUDGETS[name],
            "warm_all": [round(v, 3) for v in warm],
        }
    result["ready_s"]["harness_floor"] = median([harness_floor() for _ in range(rounds)])
    status = warm_process(warm_env)
    time.sleep(1)  # let the last launch's spare child settle before the idle window
    pid = status["pid"]
    before = cpu_seconds(pid)
    time.sleep(5)
    status = warm_process(warm_env)
    result["idle"] = {
        "rss_mib": _rss_mib(pid),
        "spare_rss_mib": round((status.get("spare_rss_kib") or 0) / 1024, 1),
        "cpu_s_over_5s": round(cpu_seconds(pid) - before, 3),
        "budget_rss_mib": BUDGETS["idle_rss_mib"],
        "launches": status["launches"],
    }
    return result


if __name__ == "__main__":
    main()
