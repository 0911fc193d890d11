//! Debates as tasks (the `io.modelcontextprotocol/tasks` extension, 2026-07-28): a client
//! that declares it gets a task's handle from start, resume or review at once, and
//! follows the debate with `tasks/get` — working (its latest step), input required (a
//! checkpoint or a clarifying question, answered with `tasks/update`), completed (the
//! call's result) or cancelled (`tasks/cancel` pauses it, every finished step saved).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, CreateTaskResult, DetailedTask, GetTaskResult, InputResponses, JsonObject, Task, TaskPayload,
    TaskStatus,
};
use tokio_util::sync::CancellationToken;

use super::conversation::{self, Conversation, Latest, Turn};
use super::events::Asked;

/// How often a client should ask how a task stands.
const POLL_MS: u64 = 500;

/// The tasks of this server, by id.
#[derive(Clone, Default)]
pub struct Tasks {
    entries: Arc<Mutex<HashMap<String, Entry>>>,
}

/// One task: where it stands, the question it waits on, and what stops it.
struct Entry {
    task: Task,
    payload: TaskPayload,
    question: Option<Asked>,
    latest: Latest,
    stop: CancellationToken,
}

impl Tasks {
    /// A task for the debate `conversation` follows: its handle, the debate followed in
    /// the background.
    pub fn start(&self, conversation: Conversation) -> CreateTaskResult {
        let id = conversation::handle();
        let now = now();
        let task = Task::new(id.clone(), TaskStatus::Working, now.clone(), now).with_poll_interval_ms(POLL_MS);
        let entry = Entry {
            task: task.clone(),
            payload: TaskPayload::Working,
            question: None,
            latest: conversation.latest(),
            stop: conversation.stopper(),
        };
        self.lock().insert(id.clone(), entry);
        tokio::spawn(self.clone().follow(id, conversation));
        CreateTaskResult::new(task)
    }

    /// Follow the debate of task `id` to its end, its questions its status.
    async fn follow(self, id: String, mut conversation: Conversation) {
        loop {
            match conversation.next(None).await {
                Turn::Ask(asked) => {
                    let requests = conversation::input_requests(&asked);
                    self.set(&id, TaskPayload::InputRequired { input_requests: requests }, Some(asked));
                }
                Turn::Done(result) => {
                    let cancelled = self.lock().get(&id).is_some_and(|entry| entry.stop.is_cancelled());
                    let payload = match cancelled {
                        true => TaskPayload::Cancelled,
                        false => TaskPayload::Completed { result: completed(result) },
                    };
                    self.set(&id, payload, None);
                    return;
                }
            }
        }
    }

    fn set(&self, id: &str, payload: TaskPayload, question: Option<Asked>) {
        if let Some(entry) = self.lock().get_mut(id) {
            entry.task.status = payload.status();
            entry.task.last_updated_at = now();
            entry.payload = payload;
            entry.question = question;
        }
    }

    /// `tasks/get`: where task `id` stands.
    pub fn get(&self, id: &str) -> Result<GetTaskResult, ErrorData> {
        let entries = self.lock();
        let entry = entries.get(id).ok_or_else(|| unknown(id))?;
        let mut task = entry.task.clone();
        if let Some(latest) = entry.latest.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            task = task.with_status_message(latest);
        }
        Ok(GetTaskResult::new(DetailedTask::new(task, entry.payload.clone())))
    }

    /// `tasks/update`: the answer to the question task `id` waits on.
    pub fn update(&self, id: &str, responses: &InputResponses) -> Result<(), ErrorData> {
        let mut entries = self.lock();
        let entry = entries.get_mut(id).ok_or_else(|| unknown(id))?;
        let Some(asked) = entry.question.take() else {
            return Err(ErrorData::invalid_params(format!("task {id} waits on no answer now"), None));
        };
        if !responses.contains_key(asked.key) {
            let key = asked.key;
            entry.question = Some(asked);
            return Err(ErrorData::invalid_params(format!("task {id} waits on the answer to `{key}`"), None));
        }
        let _ = asked.answer.send(conversation::answer_to(asked.key, Some(responses)));
        entry.task.status = TaskStatus::Working;
        entry.payload = TaskPayload::Working;
        entry.task.last_updated_at = now();
        Ok(())
    }

    /// `tasks/cancel`: the debate of task `id` pauses at its next safe point (a question
    /// it waits on is answered "pause").
    pub fn cancel(&self, id: &str) -> Result<(), ErrorData> {
        let mut entries = self.lock();
        let entry = entries.get_mut(id).ok_or_else(|| unknown(id))?;
        entry.stop.cancel();
        if let Some(asked) = entry.question.take() {
            let _ = asked.answer.send(None);
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The call's result as a completed task carries it.
fn completed(result: CallToolResult) -> JsonObject {
    match serde_json::to_value(result) {
        Ok(serde_json::Value::Object(mut object)) => {
            object.entry("resultType").or_insert_with(|| "complete".into());
            object
        }
        _ => JsonObject::new(),
    }
}

fn unknown(id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("no task {id} on this server (tasks live as long as the server)"), None)
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_task_is_working_then_asks_then_completes() {
        let tasks = Tasks::default();
        let (conversation, ends) = Conversation::new();
        let created = tasks.start(conversation);
        let id = created.task.task_id.clone();
        assert_eq!(tasks.get(&id).unwrap().task.status(), TaskStatus::Working);
        let (answer, answered) = tokio::sync::oneshot::channel();
        let params = rmcp::model::ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: "round 1 is done".into(),
            requested_schema: rmcp::model::ElicitationSchema::builder().build().unwrap(),
        };
        ends.asks.send(Asked { key: "checkpoint", params, answer }).unwrap();
        let asking = async {
            loop {
                if tasks.get(&id).unwrap().task.status() == TaskStatus::InputRequired {
                    break;
                }
                tokio::task::yield_now().await;
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(5), asking).await.unwrap();
        assert!(tasks.update(&id, &InputResponses::new()).is_err(), "no answer to its key");
        let responses = serde_json::json!({"checkpoint": {"action": "accept", "content": {"action": "end"}}});
        let responses: InputResponses = serde_json::from_value(responses).unwrap();
        tasks.update(&id, &responses).unwrap();
        assert_eq!(answered.await.unwrap().unwrap().content.unwrap()["action"], "end");
        ends.done.send(CallToolResult::success(vec![])).unwrap();
        let done = async {
            loop {
                if tasks.get(&id).unwrap().task.status() == TaskStatus::Completed {
                    break;
                }
                tokio::task::yield_now().await;
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(5), done).await.unwrap();
        let got = serde_json::to_value(tasks.get(&id).unwrap()).unwrap();
        assert_eq!(got["result"]["resultType"], "complete", "{got}");
        assert!(tasks.get("nope").is_err());
    }
}
