//! Rust: Cargo.toml.

use super::declared::Declared;
use super::formats::{parse_toml, toml_declared};

/// `[dependencies]`, `[workspace.dependencies]` and `[target.'cfg(…)'.dependencies]`;
/// dev- and build-dependencies are tools, not what the project runs on.
pub fn cargo(text: &str) -> Result<Vec<Declared>, String> {
    let manifest = parse_toml(text)?;
    let workspace = manifest.get("workspace").and_then(|workspace| workspace.get("dependencies"));
    let targets = manifest
        .get("target")
        .and_then(toml::Value::as_table)
        .into_iter()
        .flat_map(|targets| targets.values())
        .filter_map(|target| target.get("dependencies"));
    let sections = [workspace, manifest.get("dependencies")]
        .into_iter()
        .flatten()
        .chain(targets)
        .filter_map(toml::Value::as_table);
    Ok(sections.flat_map(|section| section.iter().map(|(name, spec)| toml_declared(name, spec))).collect())
}

#[cfg(test)]
mod tests {
    use crate::context::manifests::dependencies;
    use crate::context::manifests::tests::{found, row};
    use crate::model::Dependency;
    use crate::model::DependencyKind::{self, Cache, Cloud, Database, Framework, Queue};

    fn dependency(
        name: &str,
        version: Option<&str>,
        kind: DependencyKind,
        detail: Option<&str>,
        manifest: &str,
    ) -> Dependency {
        Dependency {
            name: name.into(),
            version: version.map(str::to_string),
            kind,
            detail: detail.map(str::to_string),
            manifest: manifest.into(),
        }
    }

    #[test]
    fn sqlx_with_the_postgres_feature_is_a_postgres_database() {
        let text = r#"
[package]
name = "shop"
version = "0.1.0"
edition = "2021"

[dependencies]
axum = "0.7"
sqlx = { version = "0.8", features = ["runtime-tokio", "tls-rustls", "postgres", "macros"] }
serde = { version = "1", features = ["derive"] }
tokio = { version = "1", features = ["full"] }
redis = { version = "^0.25", features = ["tokio-comp"] }
aws-sdk-s3 = "1.40.0"
internal = { path = "../internal" }

[dev-dependencies]
testcontainers = "0.20"
tantivy = "0.22"
"#;
        assert_eq!(
            dependencies("Cargo.toml", text),
            Ok(vec![
                dependency("axum", Some("0.7"), Framework, Some("web"), "Cargo.toml"),
                dependency("sqlx", Some("0.8"), Database, Some("postgres"), "Cargo.toml"),
                dependency("redis", Some("0.25"), Cache, Some("redis"), "Cargo.toml"),
                dependency("aws-sdk-s3", Some("1.40.0"), Cloud, Some("aws"), "Cargo.toml"),
            ])
        );
    }

    #[test]
    fn workspace_cargo_toml_reads_workspace_and_target_dependencies() {
        let text = r#"
[workspace]
members = ["crates/*"]
resolver = "2"

[workspace.dependencies]
tokio = { version = "1.38", features = ["full"] }
sea-orm = { version = "~1.0.1", features = ["sqlx-mysql", "sqlx-sqlite", "runtime-tokio-rustls"] }
tonic = "=0.12.1"
pg = { package = "tokio-postgres", version = ">=0.7, <0.8" }
rdkafka = { git = "https://github.com/fede1024/rust-rdkafka", version = "0.36" }

[dependencies]
sea-orm = { workspace = true }

[target.'cfg(unix)'.dependencies]
async-nats = "0.35"

[build-dependencies]
tonic-build = "0.12"
"#;
        assert_eq!(
            found("Cargo.toml", text),
            vec![
                row("tonic", Some("0.12.1"), Framework, Some("gRPC")),
                row("sea-orm", Some("1.0.1"), Database, Some("mysql, sqlite")),
                row("tokio-postgres", Some(">=0.7, <0.8"), Database, Some("postgres")),
                row("async-nats", Some("0.35"), Queue, Some("nats")),
                row("rdkafka", None, Queue, Some("kafka")),
            ]
        );
    }

    #[test]
    fn a_member_of_a_workspace_takes_features_but_no_version() {
        let text = "[dependencies]\ndiesel = { workspace = true, features = [\"postgres\"] }\nazure_core = \"0.20\"\n";
        assert_eq!(
            found("crates/db/Cargo.toml", text),
            vec![
                row("diesel", None, Database, Some("postgres")),
                row("azure_core", Some("0.20"), Cloud, Some("azure"))
            ]
        );
    }
}
