//! JavaScript and TypeScript: package.json.

use serde_json::Value as Json;

use super::declared::{Declared, plain_version};
use super::formats::{json_section, parse_json};

/// Specs that point somewhere rather than name a version: paths, git, URLs, workspaces,
/// and GitHub's `user/repo` shorthand (any `/`).
const SOURCES: &[&str] = &["file:", "link:", "portal:", "workspace:", "git", "github:", "http:", "https:"];

/// `dependencies` and `devDependencies`: front-end frameworks are usually
/// devDependencies because the bundler ships them, so both count.
pub fn package_json(text: &str) -> Result<Vec<Declared>, String> {
    let manifest = parse_json(text)?;
    Ok(["dependencies", "devDependencies"]
        .iter()
        .flat_map(|section| json_section(&manifest, section))
        .map(|(name, spec)| Declared::new(name, version(spec)))
        .collect())
}

/// The version a spec names; `None` for a spec that points elsewhere.
fn version(spec: &Json) -> Option<String> {
    let spec = spec.as_str()?;
    let elsewhere = spec.contains('/') || SOURCES.iter().any(|source| spec.starts_with(source));
    if elsewhere { None } else { plain_version(spec) }
}

#[cfg(test)]
mod tests {
    use crate::context::manifests::tests::{found, row};
    use crate::model::DependencyKind::{Cache, Cloud, Database, Framework, Queue};

    #[test]
    fn package_json_counts_dev_dependencies_and_skips_local_sources() {
        let text = r#"{
  "name": "storefront",
  "private": true,
  "scripts": { "build": "next build" },
  "dependencies": {
    "next": "14.2.3",
    "express": "^4.19.2",
    "pg": "~8.11.0",
    "@prisma/client": "5.14.0",
    "ioredis": "^5.4.1",
    "@aws-sdk/client-s3": "^3.600.0",
    "lodash": "^4.17.21",
    "shared-ui": "workspace:*",
    "kafkajs": "github:tulios/kafkajs",
    "mongoose": ">=8 <9"
  },
  "devDependencies": {
    "react": "^18.3.1",
    "typescript": "^5.4.5",
    "express": "^4.19.2"
  }
}"#;
        assert_eq!(
            found("web/package.json", text),
            vec![
                row("express", Some("4.19.2"), Framework, Some("web")),
                row("next", Some("14.2.3"), Framework, Some("React")),
                row("react", Some("18.3.1"), Framework, Some("UI")),
                row("@prisma/client", Some("5.14.0"), Database, None),
                row("mongoose", Some(">=8 <9"), Database, Some("mongodb")),
                row("pg", Some("8.11.0"), Database, Some("postgres")),
                row("ioredis", Some("5.4.1"), Cache, Some("redis")),
                row("kafkajs", None, Queue, Some("kafka")),
                row("@aws-sdk/client-s3", Some("3.600.0"), Cloud, Some("aws")),
            ]
        );
    }
}
