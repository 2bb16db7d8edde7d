"""``agent-tui warm status|start|stop``: the warm processes of this user.

Each set of versions and environments has its own warm process (see
``agent_tui.warm.place``); status and stop act on all of them, start on the one
that fits this shell.
"""

from __future__ import annotations

import argparse
import json
import time

from agent_tui.commands.errors import fail

START_TIMEOUT_S = 120.0  # LiteLLM's import alone took 8 s on a loaded 2-core machine


def main(args: argparse.Namespace) -> int:
    from agent_tui.warm import client, place

    try:
        sockets = client.server_sockets()
    except place.NoPlace as error:
        return fail(f"no warm start here: {error}")
    match args.warm_command:
        case "status":
            return _status(sockets, args.json)
        case "stop":
            return _stop(sockets)
        case _:
            return _start()


def _status(sockets: list[str], as_json: bool) -> int:
    from agent_tui.warm import client

    answers = [a for a in (client.ask(path, "status") for path in sockets) if a is not None]
    if not answers:
        print("no warm process")
        return 0
    for answer in answers:
        if as_json:
            print(json.dumps(answer))
            continue
        rss = (answer.get("rss_kib") or 0) / 1024
        spare = (
            f", spare child {answer['spare_pid']} ({(answer.get('spare_rss_kib') or 0) / 1024:.0f} MiB)"
            if answer.get("spare_pid")
            else ""
        )
        print(
            f"pid {answer['pid']}  agent-tui {answer['version']}  idle {_duration(answer['idle_s'])}"
            f" (ends after {answer['idle_minutes']:g} min)  RSS {rss:.0f} MiB{spare}  "
            f"launches {answer['launches']}  running {len(answer['running'])}"
        )
    return 0


def _stop(sockets: list[str]) -> int:
    from agent_tui.warm import client

    stopped = [a for a in (client.ask(path, "stop") for path in sockets) if a is not None]
    if not stopped:
        print("no warm process")
    for answer in stopped:
        running = answer.get("running", 0)
        print(f"stopped {answer['pid']}" + (f" (it ends when its {running} running launches do)" if running else ""))
    return 0


def _start() -> int:
    """Start the warm process for this environment (if none) and wait until it serves."""
    from agent_tui.warm import client, place

    if place.switched_off():
        return fail(f"warm start is off ({place.OFF_ENV} is set)")
    if not client.wanted():
        return fail("warm start is off ([warm] idle_minutes = 0)")
    key = place.launch_key()
    path = str(place.socket_path(key))
    if client.ask(path, "status") is None:
        client.start(key)
    deadline = time.monotonic() + START_TIMEOUT_S
    while (answer := client.ask(path, "status")) is None:
        if time.monotonic() > deadline:
            return fail(f"no warm process came up within {START_TIMEOUT_S:.0f} s (see warm.log in the data directory)")
        time.sleep(0.05)
    print(f"warm process {answer['pid']} serving {path}")
    return 0


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"
