//! What each tool's `structuredContent` is, as the JSON Schema its `outputSchema` gives
//! a client: the document the command's `--json` prints. Each names the fields an agent
//! reads, with their types, and leaves the rest open (`additionalProperties` is not
//! closed), so a field added to a document never breaks a client that validates.

use std::sync::Arc;

use rmcp::model::JsonObject;
use serde_json::{Value, json};

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(object) => Arc::new(object),
        _ => unreachable!("an output schema is an object"),
    }
}

fn text() -> Value {
    json!({"type": "string"})
}

fn maybe(kind: &str) -> Value {
    json!({"type": [kind, "null"]})
}

/// A debate as `debate list --json` gives each one.
fn summary() -> Value {
    json!({
        "type": "object",
        "required": ["id", "status", "question", "repository", "created_at", "rounds"],
        "properties": {
            "id": {"type": "string", "description": "The debate's id, DEB- and six characters."},
            "status": {
                "type": "string",
                "description": "analyzing, in_round, checkpoint, synthesizing, complete, paused or failed."
            },
            "question": text(),
            "title": text(),
            "repository": {"type": "string", "description": "The work tree it was debated in."},
            "created_at": text(),
            "rounds": {"type": "integer", "minimum": 0},
            "ended_by": maybe("string"),
            "confidence": maybe("string"),
            "record_path": maybe("string"),
            "record_status": maybe("string"),
            "commit_id": maybe("string"),
            "branch": maybe("string"),
            "tokens": {"type": "object"}
        }
    })
}

/// A debate in full, as `debate show --json` prints it: what start, resume, review and
/// show answer.
pub fn debate() -> Arc<JsonObject> {
    let mut detail = summary();
    let properties = detail["properties"].as_object_mut().expect("an object");
    for (name, kind) in [
        ("providers", "object"),
        ("rules", "object"),
        ("analysis", "object"),
        ("context", "object"),
        ("cost", "object"),
        ("cap", "object"),
    ] {
        properties.insert(name.into(), json!({"type": kind}));
    }
    for name in ["supersedes", "panel", "discarded", "revisions", "models", "servers", "evaluations"] {
        properties.insert(name.into(), json!({"type": "array"}));
    }
    properties.insert("clarification".into(), maybe("object"));
    properties.insert(
        "transcript".into(),
        json!({"type": "array", "description": "Every round in full.", "items": {
            "type": "object",
            "required": ["number", "arguments", "rebuttals"],
            "properties": {
                "number": {"type": "integer"},
                "guidance": maybe("string"),
                "arguments": {"type": "array"},
                "rebuttals": {"type": "array"}
            }
        }}),
    );
    properties.insert(
        "outcome".into(),
        json!({"type": ["object", "null"], "description": "The synthesis, once the debate has one.", "properties": {
            "confidence": text(),
            "synthesis": {"type": "object", "properties": {
                "chosen_option": maybe("string"),
                "recommendation": text(),
                "rationale": text()
            }},
            "sections": {"type": "array", "description": "Every section of the decision, in the record's order.", "items": {
                "type": "object",
                "required": ["key", "heading", "shape", "place", "value", "empty"],
                "properties": {
                    "key": text(),
                    "heading": text(),
                    "shape": {"enum": ["text", "points", "tasks", "good_bad", "options", "perspectives", "dissents", "guards", "date"]},
                    "place": {"enum": ["outcome", "recommendation", "body", "framed"]},
                    "value": {},
                    "empty": {"type": "boolean"}
                }
            }}
        }}),
    );
    detail["required"] =
        json!(["id", "status", "question", "repository", "created_at", "rounds", "panel", "transcript"]);
    schema(detail)
}

/// `debate list --json`'s debates.
pub fn debates() -> Arc<JsonObject> {
    schema(json!({
        "type": "object",
        "required": ["debates"],
        "properties": {"debates": {"type": "array", "items": summary()}}
    }))
}

/// `debate check --json`: what goes against the records' guards.
pub fn guard_check() -> Arc<JsonObject> {
    let violation = json!({
        "type": "object",
        "required": ["record", "guard", "found"],
        "properties": {
            "record": {"type": "object", "required": ["path", "title", "status"], "properties": {
                "path": {"type": "string", "description": "The record's path in the repository."},
                "number": maybe("integer"),
                "title": text(),
                "status": text()
            }},
            "guard": {"type": "string", "description": "The guard as the record writes it, e.g. forbid dependency redis."},
            "found": {"type": "object", "required": ["kind"], "properties": {
                "kind": {"enum": ["dependency", "path", "missing"]},
                "name": text(),
                "brings": maybe("string"),
                "manifest": text(),
                "line": maybe("integer"),
                "path": text(),
                "target": text()
            }}
        }
    });
    schema(json!({
        "type": "object",
        "required": ["records", "guards", "violations", "warnings", "exit_code"],
        "properties": {
            "base": maybe("string"),
            "records": {"type": "integer", "minimum": 0, "description": "Decision records read."},
            "guards": {"type": "integer", "minimum": 0, "description": "Guards of accepted and proposed records checked."},
            "violations": {"type": "array", "items": violation, "description": "Against accepted records: the change should not go ahead as it is."},
            "warnings": {"type": "array", "items": violation, "description": "Against proposed records: not enforced until accepted."},
            "notes": {"type": "array", "items": text()},
            "exit_code": {"type": "integer", "description": "1 with a violation, else 0."}
        }
    }))
}

/// `debate search --json`: the records most relevant to the query first.
pub fn found() -> Arc<JsonObject> {
    schema(json!({
        "type": "object",
        "required": ["query", "repository", "searched", "records"],
        "properties": {
            "query": text(),
            "repository": text(),
            "searched": {"type": "integer", "minimum": 0, "description": "How many records were searched."},
            "records": {"type": "array", "items": {
                "type": "object",
                "required": ["path", "title", "status", "decision", "relevance"],
                "properties": {
                    "path": {"type": "string", "description": "The record's path in the repository."},
                    "id": maybe("string"),
                    "title": text(),
                    "status": text(),
                    "date": maybe("string"),
                    "decision": {"type": "string", "description": "Its decision, on one line."},
                    "superseded_by": maybe("string"),
                    "relevance": {"type": "number", "description": "Its rank against the query (BM25): higher is closer."},
                    "matched": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "The words of the query the record holds."
                    }
                }
            }}
        }
    }))
}

/// `debate verify --json`.
pub fn verification() -> Arc<JsonObject> {
    let count = json!({"type": "integer", "minimum": 0});
    schema(json!({
        "type": "object",
        "required": ["records", "verified", "signed", "unsigned", "failed"],
        "properties": {
            "records": {"type": "array", "items": {
                "type": "object",
                "required": ["path", "verdict"],
                "properties": {
                    "path": text(),
                    "id": maybe("string"),
                    "verdict": {"type": "string", "description": "verified, unsigned, failed or skipped."},
                    "digest": maybe("string"),
                    "edited": {"type": "array"},
                    "failures": {"type": "array"}
                }
            }},
            "verified": count, "signed": count, "unsigned": count, "failed": count, "skipped": count,
            "exit_code": {"type": "integer"}
        }
    }))
}

/// `debate accept|reject|deprecate --json`.
pub fn status_change() -> Arc<JsonObject> {
    schema(json!({
        "type": "object",
        "required": ["path", "status", "previous_status", "changed"],
        "properties": {
            "path": text(),
            "status": text(),
            "previous_status": text(),
            "changed": {"type": "boolean", "description": "false when the record already had that status."},
            "commit": maybe("string"),
            "not_committed": maybe("string")
        }
    }))
}

/// `debate eval --json`: the scorecard.
pub fn scorecard() -> Arc<JsonObject> {
    schema(json!({
        "type": "object",
        "required": ["number", "criteria", "checks"],
        "properties": {
            "number": {"type": "integer"},
            "judged_by_a_model": {"type": "boolean"},
            "evaluators": {"type": "array"},
            "criteria": {"type": "array", "items": {
                "type": "object",
                "required": ["criterion", "marks"],
                "properties": {"criterion": text(), "label": text(), "marks": {"type": "array"}, "mean": maybe("number")}
            }},
            "checks": {"type": "array"}
        }
    }))
}

/// `debate doctor --json`'s checkups.
pub fn providers() -> Arc<JsonObject> {
    schema(json!({
        "type": "object",
        "required": ["providers"],
        "properties": {"providers": {"type": "array", "items": {
            "type": "object",
            "required": ["provider"],
            "properties": {"provider": text(), "kind": text(), "reachable": maybe("boolean"), "model": maybe("string")}
        }}}
    }))
}
