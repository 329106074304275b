"""A small Server-Sent Events reader for tests (the format is simple enough to parse from the spec)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any


def parse(lines: Iterable[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    name, data = "message", []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if line == "":
            if data:
                yield name, json.loads("\n".join(data))
            name, data = "message", []
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    if data:
        yield name, json.loads("\n".join(data))
