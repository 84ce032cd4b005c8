"""The peer of the `mcp` bench (crates/herald-bench/src/bin/mcp.rs): an MCP server built with
the official Python SDK (PyPI `mcp`, pinned in tests/mcp/requirements.txt) that answers
`tools/call herald_status` doing the same work the relay does for that call.

What one call does here, as the relay does it (crates/herald-relay/src/mcp/ and
routes/agents/notify.rs `status`):

- Transport: the SDK's Streamable HTTP app, stateless, JSON responses (one POST, one JSON
  answer, no session, no SSE), served by uvicorn with its default production settings.
  The SDK's DNS-rebinding protection checks Host and Origin (the relay checks Origin).
- Authentication: the SDK's bearer middleware calls `verify_token`, which hashes the token with
  SHA-256 and looks the hash up in the relay's own `agent_keys` table (then `connectors`) in a
  copy of the relay's SQLite file, compares in constant time, refuses a revoked key or a wrong
  prefix. Unknown → 401 with the SDK's `WWW-Authenticate`.
- Budget: one request of the account's daily budget, an in-memory counter per UTC day
  (the relay's is in memory too), 429-style refusal when spent.
- Status: presence is in memory (no device socket here: offline, like the bench's relay);
  `SELECT MAX(last_seen_ms) FROM devices …` and the `quiet_hours` row from the same file,
  quiet hours evaluated in the IANA zone (zoneinfo); the answer is
  `{"online", "lastSeenAt", "quietHours": {"active"}}` as structured content plus its JSON text.

What it does not do: no per-request in-process sub-request through a router (the relay sends
the tool call through its own axum router), no request tracing layer, no JSON-RPC header
checks beyond what the SDK does itself. SQLite reads run inline on the event loop (the
relay's run on tokio's blocking pool), the fastest choice for Python's short queries.

Run (the bench does this): HERALD_BENCH_DB=<relay.db copy> python mcp_status_server.py
--port P --workers W. The database path comes from the environment; no secret is passed.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import os
import sqlite3
import threading
from datetime import datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo

import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

AGENT_KEY_PREFIX = "hrk_"
CONNECTOR_TOKEN_PREFIX = "hra_"
REQUESTS_PER_DAY = int(os.environ.get("HERALD_BENCH_REQUESTS_PER_DAY", "4000000000"))

_local = threading.local()


def _db() -> sqlite3.Connection:
    """One read-only connection per thread (the event loop's, in practice)."""
    conn = getattr(_local, "conn", None)
    if conn is None:
        path = os.environ["HERALD_BENCH_DB"]
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        _local.conn = conn
    return conn


class HashedTokenVerifier:
    """The relay's agent-credential lookup: SHA-256 of the token, row by hash, constant-time
    comparison, revoked and prefix checks."""

    async def verify_token(self, token: str) -> AccessToken | None:
        if not (token.startswith(AGENT_KEY_PREFIX) or token.startswith(CONNECTOR_TOKEN_PREFIX)):
            return None
        digest = hashlib.sha256(token.encode()).digest()
        conn = _db()
        row, is_key = None, True
        for table in ("agent_keys", "connectors"):
            row = conn.execute(
                f"SELECT id, account_id, name, token_hash, revoked_at_ms FROM {table} WHERE token_hash = ?",
                (digest,),
            ).fetchone()
            if row is not None:
                break
            is_key = False
        if row is None:
            return None
        _id, account, _name, stored, revoked = row
        prefix_ok = token.startswith(AGENT_KEY_PREFIX if is_key else CONNECTOR_TOKEN_PREFIX)
        if not hmac.compare_digest(stored, digest) or revoked is not None or not prefix_ok:
            return None
        return AccessToken(token=token, client_id=account, scopes=[])


class DailyBudget:
    """Requests per account per UTC day, in memory."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.lock = threading.Lock()
        self.days: dict[str, tuple[str, int]] = {}

    def charge(self, account: str, now: datetime) -> bool:
        day = now.date().isoformat()
        with self.lock:
            seen_day, used = self.days.get(account, (day, 0))
            if seen_day != day:
                used = 0
            if used >= self.limit:
                return False
            self.days[account] = (day, used + 1)
            return True


def _hhmm(value: str) -> int | None:
    try:
        hours, minutes = value.split(":")
        h, m = int(hours), int(minutes)
    except ValueError:
        return None
    return h * 60 + m if 0 <= h < 24 and 0 <= m < 60 and len(value) == 5 else None


def _quiet_active(row: tuple | None, now: datetime) -> bool:
    if row is None:
        return False
    enabled, start_s, end_s, tz = row
    start, end = _hhmm(start_s), _hhmm(end_s)
    if not enabled or start is None or end is None:
        return False
    try:
        local = now.astimezone(ZoneInfo(tz))
    except (KeyError, ValueError):
        return False
    minute = local.hour * 60 + local.minute
    return start <= minute < end if start < end else (minute >= start or minute < end)


def _format_time(ms: int) -> str:
    t = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


budget = DailyBudget(REQUESTS_PER_DAY)
server = MCPServer(
    name="herald-status-peer",
    token_verifier=HashedTokenVerifier(),
    auth=AuthSettings(
        issuer_url="http://127.0.0.1",
        resource_server_url="http://127.0.0.1/mcp",
        validate_token_resource=False,
    ),
    log_level="WARNING",
)


@server.tool(name="herald_status", title="Is the user's Mac reachable", structured_output=True)
def herald_status() -> dict[str, Any]:
    """Whether a device of the account is online, when one was last seen, and whether quiet
    hours hold now."""
    token = get_access_token()
    if token is None:
        raise ValueError("unauthorized")
    account = token.client_id
    now = datetime.now(timezone.utc)
    if not budget.charge(account, now):
        raise ValueError("budget_exceeded")
    conn = _db()
    (last_ms,) = conn.execute(
        "SELECT MAX(last_seen_ms) FROM devices WHERE account_id = ? AND revoked_at_ms IS NULL",
        (account,),
    ).fetchone()
    quiet = conn.execute(
        "SELECT enabled, start_hhmm, end_hhmm, timezone FROM quiet_hours WHERE account_id = ?",
        (account,),
    ).fetchone()
    return {
        "online": False,
        "lastSeenAt": None if last_ms is None else _format_time(last_ms),
        "quietHours": {"active": _quiet_active(quiet, now)},
    }


app = server.streamable_http_app(
    json_response=True,
    stateless_http=True,
    transport_security=TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*"],
    ),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    uvicorn.run(
        "mcp_status_server:app",
        app_dir=os.path.dirname(os.path.abspath(__file__)),
        host="127.0.0.1",
        port=args.port,
        workers=args.workers,
        log_level="warning",
        access_log=False,
    )


if __name__ == "__main__":
    main()
