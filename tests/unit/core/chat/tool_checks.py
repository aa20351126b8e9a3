"""What the tool tests expect of any call's result, in one place."""

from __future__ import annotations

import re

TOOL_ERROR = re.compile(
    r"The tool call is not valid JSON\.|A tool call is one JSON object\."
    r"|The arguments are one JSON object\.|There is no tool .*; tools: .+\."
    r"|Wrong arguments for \w+: .+\.|\w+ failed: .+",
    re.DOTALL,
)
"""Every error a call can come back with (``desktop.core.chat.tools.toolbox``)."""
