"""The official Python MCP SDK (PyPI `mcp`) against a running herald-relay.

Run by tests/mcp/run.sh, which starts the relay, makes an agent key through the device API and
passes the relay URL in HERALD_RELAY_URL and the key's file in HERALD_AGENT_KEY_FILE (never on
a command line). For each client mode -- "legacy" (the initialize handshake), "2026-07-28"
(stateless, adopted without a probe) and "auto" (probes server/discover, then stateless) -- it
lists the tools and calls all four, checking what the relay promises in docs/mcp.md. Prints one
line per check and closes with "N passed, N failed"; exits non-zero on any failure.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

TOOLS = ["send_notification", "get_receipt", "wait_for_reply", "herald_status"]
# mode -> the protocol version the relay must settle on
MODES = {"legacy": "2025-06-18", "2026-07-28": "2026-07-28", "auto": "2026-07-28"}

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
    """The tool result's structuredContent, after checking the text block carries the same JSON."""
    text = result.content[0].text if result.content else None
    data = result.structured_content
    if text is None or json.loads(text) != data:
        raise AssertionError(f"text and structuredContent differ: {text!r} vs {data!r}")
    return data


async def run_mode(url: str, key: str, mode: str, expected_version: str) -> None:
    headers = {"Authorization": f"Bearer {key}", "User-Agent": "Herald-MCP-SDK-Test/1.0"}
    timeout = httpx2.Timeout(30.0, read=120.0)
    async with httpx2.AsyncClient(headers=headers, timeout=timeout) as http:
        transport = streamable_http_client(f"{url}/mcp", http_client=http)
        async with Client(transport, mode=mode) as client:
            check(f"[{mode}] negotiated {expected_version}", client.protocol_version == expected_version,
                  client.protocol_version)
            if mode != "2026-07-28":
                # Learned from initialize or server/discover; a pinned 2026-07-28 client asks neither.
                info = client.server_info
                check(f"[{mode}] the server names itself", info is not None and info.name == "herald-relay",
                      info)
                caps = client.server_capabilities
                check(f"[{mode}] tools capability, list never changes",
                      caps.tools is not None and caps.tools.list_changed is False, caps)

            listed = await client.list_tools()
            names = [t.name for t in listed.tools]
            check(f"[{mode}] tools/list names the four tools", names == TOOLS, names)
            closed = all(t.input_schema.get("additionalProperties") is False for t in listed.tools)
            check(f"[{mode}] every input schema is closed", closed)

            status = await client.call_tool("herald_status", {})
            body = structured(status)
            check(f"[{mode}] herald_status", not status.is_error and set(body) == {"online", "lastSeenAt", "quietHours"},
                  body)

            nid = f"sdk-{mode}"
            sent = await client.call_tool("send_notification", {
                "title": f"Hello from the MCP SDK ({mode})",
                "body": "A test notification.",
                "expectReply": True,
                "notificationId": nid,
            })
            receipt = structured(sent)
            check(f"[{mode}] send_notification returns the receipt",
                  not sent.is_error and receipt.get("notificationId") == nid and receipt.get("received") is True
                  and receipt.get("duplicate") is False, receipt)

            got = await client.call_tool("get_receipt", {"notificationId": nid})
            receipt = structured(got)
            check(f"[{mode}] get_receipt", not got.is_error and receipt.get("expectReply") is True, receipt)

            waited = await client.call_tool("wait_for_reply", {"notificationId": nid, "timeoutSeconds": 0})
            reply = structured(waited)
            check(f"[{mode}] wait_for_reply times out with nothing yet",
                  not waited.is_error and reply.get("replied") is False and reply.get("timedOut") is True, reply)

            refused = await client.call_tool("send_notification", {"title": "x", "command": "rm -rf /"})
            error = structured(refused)
            check(f"[{mode}] a forbidden field is a tool error with the endpoint's body",
                  refused.is_error and error.get("error") == "forbidden_fields" and error.get("fields") == ["command"],
                  error)


async def main() -> int:
    url = os.environ["HERALD_RELAY_URL"].rstrip("/")
    with open(os.environ["HERALD_AGENT_KEY_FILE"], encoding="utf-8") as f:
        key = f.read().strip()
    for mode, version in MODES.items():
        try:
            await run_mode(url, key, mode, version)
        except Exception as e:  # a crash in one mode is a failure, not the end of the run
            check(f"[{mode}] ran to the end", False, repr(e))
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
