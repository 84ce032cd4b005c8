"""The official Python MCP SDK (PyPI `mcp`, tests/mcp/requirements.txt) against `herald mcp`.

Self-contained: starts a real herald-relay on 127.0.0.1:0, makes a headless device account and
a connection with the `herald` CLI, then, in each client mode -- "legacy" (the initialize
handshake), "auto" (probes server/discover) and "2026-07-28" (stateless, no probe) -- spawns
`herald mcp` through the SDK's stdio transport with the token in HERALD_TOKEN (never on a command
line), lists the tools, asks two questions that the device answers with `herald inbox answer`,
sends a message and a request, waits on it while pending and after it is answered, and checks a
refusal. Prints one line per check and closes with "N passed, N failed"; exits non-zero on any
failure.

    cargo build -p herald-cli -p herald-relay
    <venv with tests/mcp/requirements.txt>/bin/python tests/mcp/stdio_client.py

HERALD_BIN and HERALD_RELAY_BIN override the binaries (default: target/debug/...).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters

ROOT = Path(__file__).resolve().parents[2]
HERALD = os.environ.get("HERALD_BIN", str(ROOT / "target" / "debug" / "herald"))
RELAY = os.environ.get("HERALD_RELAY_BIN", str(ROOT / "target" / "debug" / "herald-relay"))
# mode -> the protocol version the session settles on (legacy: the SDK asks for its newest
# handshake version and herald mcp echoes it)
MODES = {"legacy": "2025-11-25", "auto": "2026-07-28", "2026-07-28": "2026-07-28"}
# Bounds against a hung process; nothing below waits this long when things work.
HANG_SECONDS = 60

passed = 0
failed = 0


def check(what: str, ok: bool, detail: Any = "") -> None:
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {what}")
    else:
        failed += 1
        print(f"FAIL {what}: {detail}")


def structured(result: Any) -> dict[str, Any]:
    """The result's structuredContent, after checking its text block carries the same JSON."""
    text = result.content[0].text if result.content else None
    data = result.structured_content
    if text is None or json.loads(text) != data:
        raise AssertionError(f"text and structuredContent differ: {text!r} vs {data!r}")
    return data


class Device:
    """A headless device of the account: the `herald` CLI with its own home."""

    def __init__(self, home: Path, relay_url: str) -> None:
        self.home = home
        self.relay_url = relay_url
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),
            "HERALD_HOME": str(home / "device"),
            "XDG_DATA_HOME": str(home / "xdg-data"),
            "XDG_CONFIG_HOME": str(home / "xdg-config"),
        }

    def run(self, *args: str) -> str:
        out = subprocess.run([HERALD, *args], env=self.env, capture_output=True, text=True,
                             stdin=subprocess.DEVNULL, timeout=HANG_SECONDS)
        if out.returncode != 0:
            raise RuntimeError(f"herald {args[0]} failed ({out.returncode}): {out.stderr}")
        return out.stdout

    def wait_for_title(self, title: str) -> dict[str, Any]:
        deadline = time.monotonic() + HANG_SECONDS
        while time.monotonic() < deadline:
            for message in json.loads(self.run("inbox", "list", "--json")):
                if message.get("title") == title:
                    return message
            time.sleep(0.1)
        raise RuntimeError(f"{title!r} never reached the inbox")

    def answer_when_seen(self, title: str, *answer: str) -> str:
        message = self.wait_for_title(title)
        self.run("inbox", "answer", message["id"], *answer)
        return message["id"]


def start_relay(data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    relay = subprocess.Popen(
        [RELAY, "--listen", "127.0.0.1:0", "--data-dir", str(data_dir)],
        env={"PATH": os.environ.get("PATH", ""), "RUST_LOG": "info"},
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    assert relay.stderr is not None
    deadline = time.monotonic() + HANG_SECONDS
    while time.monotonic() < deadline:
        line = relay.stderr.readline()
        if not line:
            break
        found = re.search(r"herald-relay ready.*url=(http://\S+)", line)
        if found:
            return relay, found.group(1)
    relay.kill()
    raise RuntimeError("the relay did not report its URL")


async def run_mode(device: Device, token: str, mode: str, version: str) -> None:
    env = {**device.env, "HERALD_URL": device.relay_url, "HERALD_TOKEN": token}
    params = StdioServerParameters(command=HERALD, args=["mcp"], env=env)
    async with Client(params, mode=mode, read_timeout_seconds=HANG_SECONDS) as client:
        check(f"[{mode}] negotiated {version}", client.protocol_version == version,
              client.protocol_version)
        if mode != "2026-07-28":
            info = client.server_info
            check(f"[{mode}] the server names itself", info is not None and info.name == "herald", info)

        listed = await client.list_tools()
        names = [t.name for t in listed.tools]
        check(f"[{mode}] tools/list names ask, send, wait", names == ["ask", "send", "wait"], names)
        check(f"[{mode}] every input schema is closed",
              all(t.input_schema.get("additionalProperties") is False for t in listed.tools))

        title = f"Pick a stack ({mode})"
        answering = asyncio.create_task(asyncio.to_thread(
            device.answer_when_seen, title, "--json", json.dumps({"q1": "Postgres", "q2": ["eu", "us"]})))
        asked = await client.call_tool("ask", {
            "title": title,
            "questions": [
                {"question": "Which database?", "header": "DB", "multiSelect": False,
                 "options": [{"label": "Postgres", "description": "managed"},
                             {"label": "SQLite", "description": "a file"}]},
                {"question": "Which regions?", "header": "Regions", "multiSelect": True,
                 "options": [{"label": "eu", "description": "Frankfurt"},
                             {"label": "us", "description": "Virginia"}]},
            ],
        })
        asked_id = await answering
        body = structured(asked)
        check(f"[{mode}] ask returns the answers by question text",
              not asked.is_error and body.get("status") == "answered" and body.get("messageId") == asked_id
              and body.get("answers") == {"Which database?": "Postgres", "Which regions?": "eu, us"}, body)

        sent = await client.call_tool("send", {"title": f"Build finished ({mode})", "body": "All **green**."})
        body = structured(sent)
        check(f"[{mode}] send delivers a message",
              not sent.is_error and body.get("status") == "delivered"
              and str(body.get("messageId", "")).startswith("msg_"), body)

        request = structured(await client.call_tool("send", {
            "title": f"Deploy ({mode})?",
            "actions": [{"id": "approve", "label": "Approve"}, {"id": "reject", "label": "Reject"}],
        }))
        rid = request.get("messageId")
        check(f"[{mode}] send with actions is a pending request", request.get("status") == "pending", request)
        pending = structured(await client.call_tool("wait", {"messageId": rid, "timeoutSeconds": 0}))
        check(f"[{mode}] wait on an open request reports pending",
              pending.get("status") == "pending" and pending.get("timedOut") is True, pending)
        await asyncio.to_thread(device.run, "inbox", "answer", rid, "--action", "approve")
        done = structured(await client.call_tool("wait", {"messageId": rid}))
        check(f"[{mode}] wait returns the answer",
              done.get("status") == "answered" and done.get("actionId") == "approve", done)

        refused = await client.call_tool("ask", {
            "questions": [{"question": "Password?", "options": [{"label": "x"}]}],
            "fields": [{"id": "pw", "type": "secret"}],
        })
        body = structured(refused)
        check(f"[{mode}] a secret field is refused with forbidden_fields",
              refused.is_error is True and body.get("error") == "forbidden_fields"
              and body.get("fields") == ["fields"], body)


async def main() -> int:
    with tempfile.TemporaryDirectory(prefix="herald-mcp-stdio-") as tmp:
        tmp_path = Path(tmp)
        relay, url = start_relay(tmp_path / "relay")
        try:
            device = Device(tmp_path / "home", url)
            device.run("device", "init", "--relay", url, "--name", "sdk-box")
            token = device.run("connection", "create", "--name", "sdk-agent").strip()
            for mode, version in MODES.items():
                try:
                    await run_mode(device, token, mode, version)
                except Exception as e:  # one broken mode must not hide the others
                    check(f"[{mode}] runs to the end", False, repr(e))
        finally:
            relay.terminate()
            try:
                relay.wait(timeout=10)
            except subprocess.TimeoutExpired:
                relay.kill()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
