//! The MCP server object: identity, capabilities and the tool calls, on rmcp's
//! [`ServerHandler`]. Protocol negotiation, JSON-RPC framing, `ping` and cancellation are
//! the SDK's.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, ToolsCapability,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::tools::{self, Tools};

const INSTRUCTIONS: &str = "Herald reaches the person you work for in their Herald inbox, \
end-to-end encrypted. Use `ask` for multiple-choice questions (AskUserQuestion's shape) and \
get the answers by question text; `send` for a message or an Approve/Reject style request; \
`wait` to keep waiting on a request that is still pending (each call waits at most 55 s). \
Never put passwords, keys or other secrets in a message.";

/// `herald mcp`'s handler: the tools of one connection.
pub struct HeraldMcp {
    tools: Tools,
}

impl HeraldMcp {
    pub fn new(tools: Tools) -> HeraldMcp {
        HeraldMcp { tools }
    }
}

impl ServerHandler for HeraldMcp {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder().enable_tools().build();
        let mut tools = ToolsCapability::default();
        tools.list_changed = Some(false);
        capabilities.tools = Some(tools);
        ServerConfig::new(capabilities)
            .with_server_info(
                Implementation::new("herald", env!("CARGO_PKG_VERSION")).with_title("Herald"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::list()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match self
            .tools
            .call(&request.name, request.arguments, context.ct.clone())
            .await
        {
            Some(result) => Ok(result.into()),
            // An unknown tool is a protocol error (-32602), as the MCP spec has it.
            None => Err(ErrorData::invalid_params(
                format!("unknown tool {:?}", request.name),
                None,
            )),
        }
    }
}
