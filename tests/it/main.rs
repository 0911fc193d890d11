//! The integration tests: one crate, so the binary and the harness are built once.
//! Each module is one capability, driven as a user drives it: the real binary, real git
//! repositories, real SQLite files, and a mock LLM server on 127.0.0.1.

// Tests may say what they skipped or measured; the rule that output goes through
// `terminal` is the binary's.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

mod architecture;
mod authentic_records;

mod bad_input;
mod browser;
mod budgets;
mod clarifying;
mod command_shape;
mod completions;
mod concurrency;
mod cost;
mod crash_resume;
mod dashboard;
mod debate_flow;
mod decision_sections;
mod decisions_index;
mod eval_suite;
mod evaluation;
mod gateway;
mod git_as_git;
mod git_edges;
mod github_review;
mod guard_check_github;
mod guards;
mod honest_records;
mod hostile_text;
mod install;
mod interactive;
mod ledger;
mod lifecycle;
mod list_show_resume;
mod mcp;
mod mcp_confined;
mod mcp_modern;
mod mcp_python;
mod mcp_search;
mod options_confirmed;
mod other_adr_tools;
mod outside_numbers;
mod private_context;
mod providers_e2e;
mod providers_wire;
mod readme;
mod real_model;
mod receipts;
mod record_format;
mod record_git;
mod record_integrity;
mod record_review;
mod record_travels;
mod repository_context;
mod resume;
mod run_flags;
mod run_options;
mod say_what_runs;
mod secret_gate;
mod secrets;
mod selection;
mod servers;
mod settings_catalog;
mod signed_records;
mod trust;
mod untrusted_repo;
mod waves;
mod weak_model;
mod windows;
