//! What a tool answers: a command's result as text for the agent and its `--json`
//! document as `structuredContent`; a failure or a refusal as a tool error that says why.

use rmcp::model::{CallToolResult, ContentBlock};

use super::commands::Reply;
use crate::error::Result;
use crate::text::secrets;
use crate::view::Paused;

/// A tool error that says why: a refusal of the call's arguments (nothing done), or a
/// server that cannot run the command.
pub fn refused(why: impl std::fmt::Display) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!("error: {why}"))])
}

/// What a command answered, as the tool's result: its text (and `notes`) for the agent
/// and its document as `structuredContent`; a failure as a tool error with its hint,
/// and, for a debate it left paused, the document `--json` prints for one.
pub fn answer(result: Result<Reply>, notes: Vec<String>) -> CallToolResult {
    let notes = notes.iter().map(|note| format!("\nNote: {note}")).collect::<String>();
    match result {
        Ok(reply) => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(format!("{}{notes}", reply.text))]);
            result.structured_content = Some(reply.document);
            result
        }
        Err(err) => {
            let hint = err.hint().map(|hint| format!("\nhint: {hint}")).unwrap_or_default();
            let resume =
                err.paused().map(|id| format!("\nContinue it with the resume_debate tool: {{\"id\": \"{id}\"}}."));
            let text = format!("error: {err}{hint}{}{notes}", resume.unwrap_or_default());
            let mut result = CallToolResult::error(vec![ContentBlock::text(text)]);
            if let Some(id) = err.paused() {
                let paused = Paused::new(id, err.to_string(), err.hint(), err.exit_code(), err.resume_command(id));
                result.structured_content =
                    secrets::gated_json(&paused, false).ok().and_then(|t| serde_json::from_str(&t).ok());
            }
            result
        }
    }
}
