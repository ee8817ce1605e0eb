"""The ``hub-agent`` console script."""

from __future__ import annotations

import argparse
import logging
import sys

from agent.config import ConfigError, add_run_arguments, from_arguments


def build_parser() -> argparse.ArgumentParser:
    """``hub-agent run ...``; every flag also reads an environment variable (see docs/agent.md)."""
    parser = argparse.ArgumentParser(prog="hub-agent", description="Run the hub's commands against Jira.")
    commands = parser.add_subparsers(dest="command", required=True)
    add_run_arguments(commands.add_parser(
        "run", help="claim and run commands until SIGTERM",
        # The tokens by the environment in the example too: a command line is visible in `ps`.
        epilog="example:\n  export HUB_AGENT_TOKEN=\"$(cat hub-data/agent.token)\" JIRA_TOKEN=\"$JIRA_PAT\"\n"
               "  hub-agent run --hub http://127.0.0.1:8765 --jira https://jira.example.org\n"
               "writes (protocol v19): comments and transitions alone, on AURORA's issues, as their requesters:\n"
               "  hub-agent run ... --writes comment,transition --writes-jql 'project = AURORA' \\\n"
               "                    --jira-user-tokens /etc/hub-agent/user-tokens.json   # mode 0600",
        formatter_class=argparse.RawDescriptionHelpFormatter))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point: 0 after a clean stop, 2 on a wrong setting or credential, 1 on other start failures."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request drowns what matters
    try:
        config = from_arguments(args)
    except ConfigError as exc:
        print(f"hub-agent: {exc}", file=sys.stderr)
        return 2
    # Imported here so that `hub-agent --help` and setting errors need no HTTP stack.
    from agent.runner import Interrupted, Runner, StartupError, install_signals

    runner = Runner(config)
    install_signals(runner)
    try:
        runner.start()
    except Interrupted:  # SIGTERM or Ctrl-C while it still waits for Jira or the hub: asked for, so 0
        print("hub-agent: stopped before it started", file=sys.stderr)
        return 0
    except StartupError as exc:
        if runner.stopping.is_set():  # the stop ended a retry's wait: that is why it failed
            print("hub-agent: stopped before it started", file=sys.stderr)
            return 0
        print(f"hub-agent: {exc}", file=sys.stderr)
        return exc.code
    print(f"hub-agent: running as {config.agent_id}", flush=True)
    runner.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
