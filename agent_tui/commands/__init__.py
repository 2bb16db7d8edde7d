"""Implementations of CLI subcommands, imported lazily by ``agent_tui.cli``.

Each ``<name>_args.py`` builds its subcommand's parser with argparse alone (``launch_flags`` the flags
several share): ``cli.build_parser`` imports all of them on every launch argparse reads, and a
command's implementation (``<name>_cmd.py``: core, LiteLLM, Textual) only once it is chosen.
"""
