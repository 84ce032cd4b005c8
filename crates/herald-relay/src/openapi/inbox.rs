//! Operations of `routes/accounts.rs`, `routes/connections.rs`, `routes/keys.rs`, `/health`,
//! `/ws` and `/openapi.json` (docs/protocol.md, "Inbox API").
#![allow(dead_code)] // the functions only carry `#[utoipa::path]`

use herald_protocol::wire::{
    ConnectionList, CreateAccountRequest, CreateAccountResponse, CreateConnectionRequest,
    CreateConnectionResponse, KeysResponse, RecoveryBackup,
};
use herald_protocol::{ConnectionId, ErrorBody};
use utoipa::OpenApi;

use super::responses::{NotFound, PayloadTooLarge, Unauthorized};
use super::schemas::Health;

/// The inbox's account, connection and key routes.
#[derive(OpenApi)]
#[openapi(paths(
    create_account,
    create_connection,
    list_connections,
    revoke_connection,
    get_keys,
    get_backup,
    put_backup,
    health,
    ws,
    openapi_json,
))]
pub(super) struct InboxApi;

/// Create an account (the first device).
///
/// The relay checks the three certificates' shapes (it cannot verify an unknown account's
/// signatures): types, one account, an account id derived from the identity key, epoch 1.
#[utoipa::path(
    post,
    path = "/accounts",
    tag = "inbox",
    operation_id = "createAccount",
    request_body = CreateAccountRequest,
    responses(
        (status = 201, description = "Created; `deviceToken` (`hds_…`) is shown once.", body = CreateAccountResponse),
        (status = 400, description = "`bad_request` (not JSON of this shape) or `invalid_request` (`fields` names the certificate part, e.g. `statement.accountId`, `device.deviceId`).", body = ErrorBody),
        (status = 409, description = "`account_exists`.", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn create_account() {}

/// Register a connection (an agent credential) and issue its bearer.
#[utoipa::path(
    post,
    path = "/connections",
    tag = "inbox",
    operation_id = "createConnection",
    request_body = CreateConnectionRequest,
    security(("deviceSession" = [])),
    responses(
        (status = 201, description = "Created; `bearer` (`hdr_…`) is returned once.", body = CreateConnectionResponse),
        (status = 400, description = "`bad_request` or `invalid_request` (`certificate…`).", body = ErrorBody),
        (status = 409, description = "`connection_exists`.", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn create_connection() {}

/// The account's connections, revoked ones included.
#[utoipa::path(
    get,
    path = "/connections",
    tag = "inbox",
    operation_id = "listConnections",
    security(("deviceSession" = [])),
    responses((status = 200, description = "The connections.", body = ConnectionList))
)]
fn list_connections() {}

/// Revoke a connection: its bearer is refused from the next request on and its sockets close.
#[utoipa::path(
    delete,
    path = "/connections/{id}",
    tag = "inbox",
    operation_id = "revokeConnection",
    params(("id" = ConnectionId, Path, description = "The connection.")),
    security(("deviceSession" = [])),
    responses(
        (status = 204, description = "Revoked."),
        (status = 404, response = NotFound),
        (status = 409, description = "`already_revoked`: it was revoked before; nothing changed.", body = ErrorBody),
    )
)]
fn revoke_connection() {}

/// The key directory: what a sender seals to and what a reader verifies with.
#[utoipa::path(
    get,
    path = "/keys",
    tag = "inbox",
    operation_id = "getKeys",
    security(("deviceSession" = []), ("connection" = [])),
    responses((status = 200, description = "The account's certificates.", body = KeysResponse))
)]
fn get_keys() {}

/// The account key bundle sealed to the recovery key.
#[utoipa::path(
    get,
    path = "/keys/backup",
    tag = "inbox",
    operation_id = "getBackup",
    security(("deviceSession" = [])),
    responses(
        (status = 200, description = "The backup, with `updatedAt`.", body = RecoveryBackup),
        (status = 404, response = NotFound),
    )
)]
fn get_backup() {}

/// Store (replace) the account key bundle sealed to the recovery key.
#[utoipa::path(
    put,
    path = "/keys/backup",
    tag = "inbox",
    operation_id = "putBackup",
    request_body = RecoveryBackup,
    security(("deviceSession" = [])),
    responses(
        (status = 204, description = "Stored."),
        (status = 400, description = "`bad_request` or `invalid_request` (`recoveryPublicKey`, `recoveryKeyId`: not this key's id or another account's, `sealedBundle`).", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn put_backup() {}

/// Liveness.
#[utoipa::path(
    get,
    path = "/health",
    tag = "meta",
    operation_id = "health",
    responses((status = 200, description = "The relay is serving.", body = Health))
)]
fn health() {}

/// Live updates over a websocket.
///
/// After the upgrade the relay sends text frames `ServerFrame` (`{"type":"sync","revision":N}`):
/// once on connect, then after every change the caller may see. Pings every 20 s. At most 10
/// open sockets per credential (one more closes the oldest, Close code 4000) and 1,200 per
/// account.
#[utoipa::path(
    get,
    path = "/ws",
    tag = "meta",
    operation_id = "websocket",
    security(("deviceSession" = []), ("connection" = [])),
    responses(
        (status = 101, description = "Switching to the websocket protocol."),
        (status = 400, description = "`bad_request`: not a websocket upgrade request.", body = ErrorBody),
        (status = 401, response = Unauthorized),
        (status = 429, description = "`too_many_sockets`: the account holds its most open sockets and this credential none.", body = ErrorBody),
    )
)]
fn ws() {}

/// This document (OpenAPI 3.1).
#[utoipa::path(
    get,
    path = "/openapi.json",
    tag = "meta",
    operation_id = "openapi",
    responses((status = 200, description = "The OpenAPI document of every route.", content_type = "application/json", body = Object))
)]
fn openapi_json() {}
