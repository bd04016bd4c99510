"""Prints, as one JSON object, what kimi-cli makes of an agent file: its own `load_agent_spec`
(which resolves `extend`), then the system prompt as its `_load_system_prompt` renders it. The
kimi recipe gives the summariser such a file, so the test can check kimi gives it no tools.
Usage: kimi-venv/bin/python kimi_agent.py AGENT.yaml
"""

import json
import sys
from pathlib import Path

from kaos.path import KaosPath
from kimi_cli.agentspec import load_agent_spec
from kimi_cli.soul.agent import BuiltinSystemPromptArgs, _load_system_prompt


def main(agent_file: str) -> None:
    spec = load_agent_spec(Path(agent_file))
    # Every builtin argument is given, empty: a prompt that used one would render it so, and a
    # prompt with a template error fails here as it would in kimi.
    builtin = BuiltinSystemPromptArgs(
        KIMI_NOW="",
        KIMI_WORK_DIR=KaosPath("/"),
        KIMI_WORK_DIR_LS="",
        KIMI_AGENTS_MD="",
        KIMI_SKILLS="",
        KIMI_ADDITIONAL_DIRS_INFO="",
        KIMI_OS="",
        KIMI_SHELL="",
    )
    prompt = _load_system_prompt(spec.system_prompt_path, spec.system_prompt_args, builtin)
    report = {
        "name": spec.name,
        "tools": spec.tools,
        "allowed_tools": spec.allowed_tools,
        "subagents": sorted(spec.subagents),
        "system_prompt": prompt,
    }
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
