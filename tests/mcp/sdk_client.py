"""The official Python MCP SDK (PyPI `mcp`) against a running herald-relay.

Run by tests/mcp/run.sh, which starts the relay, makes an agent key through the device API and
passes the relay URL in HERALD_RELAY_URL and the key's file in HERALD_AGENT_KEY_FILE (never on
a command line). For each client mode -- "legacy" (the initialize handshake), "2026-07-28"
(stateless, adopted without a probe) and "auto" (probes server/discover, then stateless) -- it
lists the tools and calls all four, checking what the relay promises in docs/mcp.md. In the
stateless modes it also uses the reply event (the MCP Events extension, webhook delivery): the SDK
has no events API, so `events/list`, `events/subscribe` and `events/unsubscribe` go through the
SDK session's generic `send_request` (which adds the 2026-07-28 envelope and headers) to a local
webhook receiver that checks the Standard Webhooks signature of the relay's verification
challenge and echoes it (the relay runs with --allow-loopback-webhooks). In legacy mode the same
methods must be refused with -32601. Prints one line per check and closes with "N passed,
N failed"; exits non-zero on any failure.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import os
import secrets
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx2
from mcp import Client
from mcp.client.extension import advertise
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import Request, RequestParams
from pydantic import ConfigDict, TypeAdapter

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


EVENTS_EXTENSION = "io.modelcontextprotocol/events"
REPLY_EVENT = "notification.replied"
ANY_RESULT = TypeAdapter(dict[str, Any])


class EventsParams(RequestParams):
    """Params of an events/* request: the extension's fields pass through as given."""

    model_config = ConfigDict(extra="allow")


class EventsRequest(Request[EventsParams, str]):
    """An events/* request, sent through the SDK session like any other request."""


async def events_call(client: Client, method: str, **params: Any) -> dict[str, Any]:
    request = EventsRequest(method=method, params=EventsParams(**params))
    return await client.session.send_request(request, ANY_RESULT)


class Webhooks:
    """A local webhook receiver: verifies each POST's signature with the secret of its path and
    echoes verification challenges."""

    def __init__(self) -> None:
        self.secrets: dict[str, str] = {}
        self.received: list[dict[str, Any]] = []
        hooks = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                secret = hooks.secrets.get(self.path, "")
                key = base64.b64decode(secret.removeprefix("whsec_")) if secret else b""
                signed = f"{self.headers.get('webhook-id')}.{self.headers.get('webhook-timestamp')}.".encode() + body
                expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
                entries = (self.headers.get("webhook-signature") or "").split(" ")
                valid = bool(key) and any(hmac.compare_digest(e, f"v1,{expected}") for e in entries)
                message = json.loads(body)
                hooks.received.append({"path": self.path, "valid": valid, "body": message,
                                       "subscription": self.headers.get("X-MCP-Subscription-Id")})
                answer = json.dumps({"challenge": message.get("challenge")}).encode() if valid else b"{}"
                self.send_response(200 if valid else 401)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def new_secret(self, path: str) -> str:
        self.secrets[path] = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
        return self.secrets[path]


async def check_reply_event(client: Client, mode: str, hooks: Webhooks) -> None:
    if mode == "legacy":
        try:
            await events_call(client, "events/list")
            check(f"[{mode}] events/list is refused", False, "it answered")
        except MCPError as e:
            check(f"[{mode}] events/list is refused with -32601", e.code == -32601, e.error)
        return
    if mode == "auto":
        extensions = client.server_capabilities.extensions or {}
        check(f"[{mode}] server/discover advertises the Events extension", EVENTS_EXTENSION in extensions,
              client.server_capabilities)
    listed = await events_call(client, "events/list")
    events = listed.get("events", [])
    check(f"[{mode}] events/list offers the reply event by webhook",
          [e.get("name") for e in events] == [REPLY_EVENT] and events[0].get("delivery") == ["webhook"], listed)
    path = f"/{mode}"
    secret = hooks.new_secret(path)
    url = hooks.url + path
    arguments = {"notificationId": f"sdk-{mode}"}
    subscribed = await events_call(client, "events/subscribe", name=REPLY_EVENT, arguments=arguments,
                                   delivery={"mode": "webhook", "url": url, "secret": secret}, ttlMs=600000)
    sub_id = subscribed.get("id", "")
    check(f"[{mode}] events/subscribe returns the subscription", sub_id.startswith("sub_")
          and isinstance(subscribed.get("refreshBefore"), str), subscribed)
    challenge = [r for r in hooks.received if r["path"] == path and r["body"].get("type") == "verification"]
    check(f"[{mode}] the relay verified the endpoint with a signed challenge",
          len(challenge) == 1 and challenge[0]["valid"] and challenge[0]["subscription"] == sub_id, challenge)
    gone = await events_call(client, "events/unsubscribe", name=REPLY_EVENT, arguments=arguments,
                             delivery={"url": url})
    check(f"[{mode}] events/unsubscribe", gone.get("resultType") == "complete", gone)
    try:
        await events_call(client, "events/unsubscribe", name=REPLY_EVENT, arguments=arguments, delivery={"url": url})
        check(f"[{mode}] a second unsubscribe is refused", False, "it answered")
    except MCPError as e:
        check(f"[{mode}] a second unsubscribe is NotFound (-32023)", e.code == -32023, e.error)


def structured(result: Any) -> dict[str, Any]:
    """The tool result's structuredContent, after checking the text block carries the same JSON."""
    text = result.content[0].text if result.content else None
    data = result.structured_content
    if text is None or json.loads(text) != data:
        raise AssertionError(f"text and structuredContent differ: {text!r} vs {data!r}")
    return data


async def run_mode(url: str, key: str, mode: str, expected_version: str, hooks: Webhooks) -> None:
    headers = {"Authorization": f"Bearer {key}", "User-Agent": "Herald-MCP-SDK-Test/1.0"}
    timeout = httpx2.Timeout(30.0, read=120.0)
    async with httpx2.AsyncClient(headers=headers, timeout=timeout) as http:
        transport = streamable_http_client(f"{url}/mcp", http_client=http)
        async with Client(transport, mode=mode, extensions=[advertise(EVENTS_EXTENSION)]) as client:
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

            await check_reply_event(client, mode, hooks)


async def main() -> int:
    url = os.environ["HERALD_RELAY_URL"].rstrip("/")
    with open(os.environ["HERALD_AGENT_KEY_FILE"], encoding="utf-8") as f:
        key = f.read().strip()
    hooks = Webhooks()
    for mode, version in MODES.items():
        try:
            await run_mode(url, key, mode, version, hooks)
        except Exception as e:  # a crash in one mode is a failure, not the end of the run
            check(f"[{mode}] ran to the end", False, repr(e))
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
