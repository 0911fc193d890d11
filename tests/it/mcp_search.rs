//! Finding what was decided (issue 52, "search that finds decisions"): `debate search`
//! and the `search_decisions` tool rank a repository's records with SQLite FTS5 (BM25)
//! over each record's title, question, options, rationale, consequences and dissent —
//! records other tools wrote included — each hit with the words it matched; the index
//! follows the records as they are written, edited and removed.

use serde_json::{Value, json};

use crate::common::*;
use crate::mcp::Session;

/// A record another ADR tool wrote (MADR 3): the order events are named only in the
/// body of its question.
const BROKER: &str = "# Use a message broker\n\n* Status: accepted\n* Date: 2026-03-02\n\n## Context and Problem Statement\n\nThe checkout service must hand every order event to billing and shipping without losing one when either is down.\n\n## Considered Options\n\n* Kafka\n* RabbitMQ\n\n## Decision Outcome\n\nChosen option: \"RabbitMQ\", because the team runs it already.\n";

/// A record that mentions an order once, in its consequences.
const CACHE: &str = "# Cache product pages\n\n* Status: accepted\n* Date: 2026-04-01\n\n## Context and Problem Statement\n\nProduct pages are slow.\n\n## Decision Outcome\n\nChosen option: \"Postgres\", because it is there.\n\n### Consequences\n\n* Good, because the order of deployment stays simple.\n";

/// An accepted record that shares no word with the query.
const TABS: &str =
    "# Tabs over spaces\n\n* Status: accepted\n* Date: 2026-01-01\n\n## Decision Outcome\n\nChosen option: \"Tabs\".\n";

fn repository() -> Sandbox {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    write(&sandbox.repo, "docs/decisions/0001-use-a-message-broker.md", BROKER);
    write(&sandbox.repo, "docs/decisions/0002-cache-product-pages.md", CACHE);
    write(&sandbox.repo, "docs/decisions/0003-tabs-over-spaces.md", TABS);
    sandbox
}

fn paths(found: &Value) -> Vec<String> {
    found["records"].as_array().unwrap().iter().map(|r| r["path"].as_str().unwrap().to_string()).collect()
}

#[test]
fn search_decisions_ranks_first_the_record_whose_question_holds_the_words() {
    let sandbox = repository();
    let mut session = Session::open(&sandbox, &sandbox.repo, &[], &[], json!({}));
    let result = session.call("search_decisions", json!({"query": "Has anyone decided how order events travel?"}));
    assert!(result["isError"] != true, "{result}");
    let found = &result["structuredContent"];
    assert_eq!(
        paths(found),
        [
            "docs/decisions/0001-use-a-message-broker.md",
            "docs/decisions/0002-cache-product-pages.md",
            "docs/decisions/0003-tabs-over-spaces.md"
        ],
        "the question's body first, a word in the consequences next, then the standing decisions: {found}"
    );
    let records = found["records"].as_array().unwrap();
    assert_eq!(records[0]["matched"], json!(["event", "order"]), "{found}");
    assert_eq!(records[1]["matched"], json!(["order"]), "{found}");
    assert!(records[0]["relevance"].as_f64() > records[1]["relevance"].as_f64(), "{found}");
    assert_eq!((records[2]["relevance"].as_f64(), &records[2]["matched"]), (Some(0.0), &json!([])));
    assert_eq!(found["searched"], 3);
    let said = crate::mcp::text_of(&result);
    assert!(said.starts_with("docs/decisions/0001-use-a-message-broker.md  [accepted"), "{said}");
    assert!(said.contains("matched: event, order"), "{said}");

    // `debate search --json` prints the same document.
    let printed = sandbox.cmd().args(["search", "Has anyone decided how order events travel?", "--json"]).output();
    let printed: Value = serde_json::from_slice(&printed.unwrap().stdout).unwrap();
    assert_eq!(&printed, found);
    session.close();
}

#[test]
fn the_index_follows_the_records_as_they_are_written_edited_and_removed() {
    let sandbox = repository();
    let search = |query: &str| {
        let out = sandbox.cmd().args(["search", query, "--json"]).output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    assert_eq!(paths(&search("billing shipping"))[0], "docs/decisions/0001-use-a-message-broker.md");
    // Edited by hand: the old words are gone, the new ones found.
    let edited = BROKER.replace("billing and shipping", "invoicing and delivery");
    write(&sandbox.repo, "docs/decisions/0001-use-a-message-broker.md", &edited);
    let found = search("billing shipping");
    assert!(found["records"].as_array().unwrap().iter().all(|r| r["matched"] == json!([])), "{found}");
    assert_eq!(paths(&search("invoicing"))[0], "docs/decisions/0001-use-a-message-broker.md");
    // A debate's record, written and committed, is found by its question.
    let question = "Should the audit log live in S3 or Loki?";
    let out = sandbox.cmd().args(["--offline", "-r", "1", "--no-checkpoints", question]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let found = search("where does the audit log live");
    assert_eq!(found["records"][0]["id"], sandbox.only_id().as_str(), "{found}");
    // Removed: no longer found.
    std::fs::remove_file(sandbox.repo.join("docs/decisions/0001-use-a-message-broker.md")).unwrap();
    assert!(!paths(&search("invoicing")).contains(&"docs/decisions/0001-use-a-message-broker.md".to_string()));
}
