//! `--resume` as a user runs it after things went wrong: anywhere the key is
//! available, with the flags that can still change applied and the others refused.

use crate::common::*;

#[test]
fn a_debate_resumes_without_the_settings_file_it_started_with() {
    let sandbox = Sandbox::new();
    let answers = varied_answers(&PANEL, 2, CONTINUE);
    let failing = replace_answers(&answers, "{purpose: synthesis", "{purpose: synthesis, error: overloaded}");
    let config = sandbox.scripted(&failing);
    sandbox.cmd().arg("--config").arg(&config).args(["-r", "2", QUESTION]).assert().code(3);
    sandbox.scripted(&answers);
    // No --config: the provider the debate started with is stored with it.
    let id = sandbox.only_id();
    sandbox.cmd().args(["--resume", &id]).assert().success();
    assert_eq!(sandbox.records().len(), 1);
    let snapshot: String = sandbox.sqlite().query_row("SELECT snapshot FROM debates", [], |r| r.get(0)).unwrap();
    assert!(snapshot.contains("\"script\"") && !snapshot.contains("api_key\""), "{snapshot}");
}
